"""Cross-validation in the appendix: how values were aggregated over folds, and the F estimators.

When the gold file has folds, the report computes every measure from the counts pooled over the
folds (the fold confusion matrices summed), and its cross-validation section compares the five ways
of computing F over folds of Forman and Scholz (2010), "Apples-to-Apples in Cross-Validation
Studies", section 3: F_tp,fp (pooled counts), F_avg and F~_avg (the mean of fold F,
undefined folds as 0 or left out), F_pr,re and F~_pr,re (F of the mean fold precision and recall),
with AUC_avg and AUC_merge (section 2.4) where the runs have scores. :func:`cv_table` shows those
numbers as the report's ``cv_summary`` table holds them (read, never recomputed);
:func:`crossval_segments` writes the methods paragraph's sentences, quoting the paper's
recommendation word for word (section 5).
"""
from __future__ import annotations

from dataclasses import replace

import pandas as pd

from evalreport.measures.references import METHODS
from evalreport.report.appendix.numbers import REPORT_DIGITS, fmt
from evalreport.report.appendix.tables import FORMS, GAP_IN, Cell, Column, TableSpec, even_chunks, form_width

__all__ = ["ESTIMATOR_MATH", "RECOMMENDATION", "AUC_RECOMMENDATION", "folds", "cv_table", "crossval_segments",
           "TABLE_LABEL"]

#: The report's column names of the estimators as math: (LaTeX, Typst), the paper's notation.
ESTIMATOR_MATH = {
    "F_tp,fp": (r"F_{\mathrm{tp,fp}}", 'F_"tp,fp"'),
    "F_avg": (r"F_{\mathrm{avg}}", 'F_"avg"'),
    "F~_avg": (r"\tilde{F}_{\mathrm{avg}}", 'tilde(F)_"avg"'),
    "F_pr,re": (r"F_{\mathrm{pr,re}}", 'F_"pr,re"'),
    "F~_pr,re": (r"\tilde{F}_{\mathrm{pr,re}}", 'tilde(F)_"pr,re"'),
    "AUC_avg": (r"\mathrm{AUC}_{\mathrm{avg}}", '"AUC"_"avg"'),
    "AUC_merge": (r"\mathrm{AUC}_{\mathrm{merge}}", '"AUC"_"merge"'),
}
#: Forman and Scholz (2010), section 5, conclusion (a), word for word after its estimator's name.
RECOMMENDATION = "is the by far most unbiased method and should be used for computing F-measure"
#: Forman and Scholz (2010), section 5, last paragraph, word for word (the two names are math).
AUC_RECOMMENDATION = ("we urge the research community to consistently use", "and")

TABLE_LABEL = "tab:evalreport-cv-estimators"


def folds(data) -> int:
    """How many cross-validation folds the report's gold file has (0: none)."""
    try:
        return int(data.meta.get("folds") or data.manifest.get("settings", {}).get("folds") or 0)
    except (TypeError, ValueError):
        return 0


def _summary(data) -> pd.DataFrame:
    cv = data.table("cv_summary")
    if cv.empty:
        return cv
    board = data.table("leaderboard")
    if len(board) and set(cv["system"]) <= set(board["system"]):     # the leaderboard's order
        cv = cv.set_index("system").loc[[s for s in board["system"] if s in set(cv["system"])]].reset_index()
    return cv


def cv_table(data) -> list[TableSpec]:
    """The F estimators (and AUC_avg, AUC_merge where the runs have scores) per system, the values of
    the report's ``cv_summary`` table with its 3 decimals (no intervals); empty without folds or
    without a positive class."""
    cv = _summary(data)
    if not folds(data) or cv.empty:
        return []
    cols = [c for c in ESTIMATOR_MATH if c in cv.columns]
    cap = _caption(data, cv, cols)
    out: list[TableSpec] = []
    last: list[TableSpec] = []
    for form, text_in in FORMS:
        if last and form_width(last) <= text_in:        # the wider form fits this text too
            continue
        # a page table: a float in both LaTeX and Typst (a Typst column table would break across columns);
        # narrower forms split the estimators into groups, each table repeating the system column
        name_in, value_in = _WIDTHS_IN[form]
        per = max(1, int((text_in - name_in - 2 * GAP_IN) // (value_in + 2 * GAP_IN)))
        groups = even_chunks(cols, per)
        stem = "cv-estimators" if form == FORMS[0][0] else f"cv-estimators-{form}"
        last = []
        for k, group in enumerate(groups, 1):
            columns = [Column("System", name_in, "l")] + [Column(c, value_in, math=ESTIMATOR_MATH[c]) for c in group]
            rows = [[Cell(str(row["system"]), kind="text")] + [Cell(fmt(row[c], REPORT_DIGITS) or "\u2014")
                                                                for c in group] for _, row in cv.iterrows()]
            last.append(TableSpec(f"{stem}-{k}" if len(groups) > 1 else stem, cap if k == 1 else _continued(group),
                                  columns, rows, width="page", label=TABLE_LABEL if k == 1 else "",
                                  family="cv-estimators", form=form))
        out += last
    return out if len(out) > 1 else [replace(s, family="", form="") for s in out]


def _continued(group: list[str]) -> list:
    """The caption of a further table of the estimators: which ones it holds."""
    segs: list = [("text", "Cross-validation estimators, continued: ")]
    for i, c in enumerate(group):
        segs += [("text", ", ")] * (i > 0) + [("math", ESTIMATOR_MATH[c])]
    return segs + [("text", ".")]


#: Widths (in) of the system column and of an estimator's column in each form (:data:`~.tables.FORMS`); an
#: estimator's column holds its name as math (AUC_merge: 38 pt at 8 pt, more than 0.5 in).
_WIDTHS_IN = {"page": (2.0, 0.6), "text": (1.3, 0.55), "column": (1.0, 0.55)}


def _caption(data, cv: pd.DataFrame, cols: list[str]) -> list:
    """The caption's segments: what each estimator is, the folds where one is undefined, the decimals."""
    positive = data.settings.get("positive")
    cap: list = [("text", f"F1 of the positive class{' ' if positive else ''}"),
                 ("data", str(positive or "")),
                 ("text", f" over the {folds(data)} cross-validation folds, computed in the five ways of Forman and "
                          "Scholz (2010), section\u00a03. "), ("math", ESTIMATOR_MATH["F_tp,fp"]),
                 ("text", ": from the counts pooled over the folds, as in the other tables; "),
                 ("math", ESTIMATOR_MATH["F_avg"]), ("text", ": the mean of the folds' F; "),
                 ("math", ESTIMATOR_MATH["F_pr,re"]), ("text", ": F of the mean fold precision and recall; "),
                 ("math", ESTIMATOR_MATH["F~_avg"]), ("text", ", "), ("math", ESTIMATOR_MATH["F~_pr,re"]),
                 ("text", ": the same without the folds where precision or recall is undefined (counted as 0 "
                          "above).")]
    if "AUC_avg" in cols:
        cap += [("text", " "), ("math", ESTIMATOR_MATH["AUC_avg"]), ("text", ": the mean of the folds' AUC; "),
                ("math", ESTIMATOR_MATH["AUC_merge"]), ("text", ": one AUC over the pooled scores (section\u00a02.4).")]
    invalid = cv[["system", "invalid_folds"]].dropna() if "invalid_folds" in cv else pd.DataFrame()
    invalid = invalid[invalid["invalid_folds"].astype(str).str.strip() != ""] if len(invalid) else invalid
    if len(invalid):
        cap.append(("text", " Folds with undefined precision or recall: "))
        for k, (_, r) in enumerate(invalid.iterrows()):
            cap += [("text", "; " if k else ""), ("data", str(r["system"])), ("text", " (folds "),
                    ("data", str(r["invalid_folds"])), ("text", ")")]
        cap.append(("text", "."))
    cap.append(("text", f" A dash: undefined in every fold. {REPORT_DIGITS} decimals, as in the report."))
    return cap


def crossval_segments(data, seg) -> None:
    """The methods paragraph's sentences on folds (appended to ``seg``, a ``methods._Segments``):
    the pooled aggregation, Forman and Scholz's estimators and their recommendation, quoted."""
    k = folds(data)
    if not k:
        return
    t, c = seg.text, seg.cite
    t(f"The items come in {k} cross-validation folds. Every value in the other tables is computed from the counts "
      f"pooled over the folds (the sum of the {k} folds' confusion matrices), not as a mean of per-fold values; "
      "for F this is the estimator ")
    seg.append(("math", ESTIMATOR_MATH["F_tp,fp"]))
    t(" of Forman and Scholz (2010) ")
    c(*METHODS["crossval"])
    t(", who compare five ways of computing F over folds and conclude that ")
    seg.append(("math", ESTIMATOR_MATH["F_tp,fp"]))
    t(f" \u201c{RECOMMENDATION}\u201d (section\u00a05).")
    cv = _summary(data)
    if not cv.empty:
        t(" The five estimators of each system are in ")
        seg.append(("ref", TABLE_LABEL))
        t(".")
        if "AUC_avg" in cv.columns:
            t(" For AUC they write: \u201c" + AUC_RECOMMENDATION[0] + " ")
            seg.append(("math", ESTIMATOR_MATH["F_tp,fp"]))
            t(f" {AUC_RECOMMENDATION[1]} ")
            seg.append(("math", ESTIMATOR_MATH["AUC_avg"]))
            t("\u201d (section\u00a05); the table gives both ")
            seg.append(("math", ESTIMATOR_MATH["AUC_avg"]))
            t(" and ")
            seg.append(("math", ESTIMATOR_MATH["AUC_merge"]))
            t(".")
    else:
        t(" The five F estimators of each system need a positive class (--positive), which was not given.")
    seg.append(("break", ""))
