"""The report's section on scores and probabilities (report.ipynb): the score-based measures, ROC and
precision-recall curves of every system, the reliability diagram and calibration in words.

It reads what a comparison on scored runs writes: ``roc_curve.csv``, ``pr_curve.csv``,
``reliability.csv`` and the rows of the score-based measures in ``scores.csv``. Without them
(runs without score columns) every method returns None: the report shows no trace of the section,
heading included."""
from __future__ import annotations

from functools import cached_property
from typing import Any

import numpy as np
import pandas as pd

from evalreport.charts import curves
from evalreport.charts.curves import CURVE_PIXELS, DECIMALS, MAX_LINES, MAX_RELIABILITY, REST_PIXELS
from evalreport.escape import markdown as escape
from evalreport.measures import get
from evalreport.report.display import Chart, Heading, Note, Table
from evalreport.report.sections._core import ReportBase
from evalreport.words import counted

#: The score-based measures a scored comparison may write, in the order the table shows them, with
#: the direction used when the registry does not declare the id.
SCORE_MEASURES = {"roc_auc": True, "roc_auc_weighted": True, "roc_auc_ovo": True, "average_precision": True,
                  "pr_auc": True, "brier": False, "log_loss": False, "ece": False, "mce": False}
#: The curve tables of a scored comparison.
CURVE_TABLES = ("roc_curve", "pr_curve", "reliability")
#: Reliability panels: the first few on the leaderboard, then the best and worst calibrated.
TOP_RELIABILITY = 6


def _is_score_measure(measure: str) -> bool:
    """Whether ``measure`` is computed from scores."""
    if measure in SCORE_MEASURES:
        return True
    try:
        return str(get(measure).kind).lower() in ("score", "scores", "probability")
    except Exception:     # not a registered id
        return False


def _higher_is_better(measure: str) -> bool:
    try:
        return bool(get(measure).higher_is_better)
    except Exception:     # an id this registry does not declare: the direction of its kind
        return SCORE_MEASURES.get(measure, True)


def _fmt(v: float) -> str:
    return f"{v:.3f}"


class ScoreSections(ReportBase):
    """The score-based measures, their curves and the calibration of the systems' probabilities."""

    # ------------------------------------------------------------------ what the tables hold
    @cached_property
    def score_rows(self) -> pd.DataFrame:
        """The rows of the score-based measures in scores.csv (uncalibrated), in leaderboard order."""
        scores = self.table("scores")
        if scores.empty:
            return scores
        ids = pd.unique(scores["measure"].astype(str))
        rows = scores[scores["measure"].isin([m for m in ids if _is_score_measure(m)])]
        if "calibrated" in rows:
            rows = rows[~rows["calibrated"].astype(bool)]
        return self.by_board(rows)

    @cached_property
    def score_measures(self) -> list[str]:
        """The score-based measures present: those of :data:`SCORE_MEASURES` in its order, then any other."""
        present = list(dict.fromkeys(self.score_rows["measure"])) if not self.score_rows.empty else []
        return [m for m in SCORE_MEASURES if m in present] + [m for m in present if m not in SCORE_MEASURES]

    @property
    def has_scores(self) -> bool:
        """Whether the comparison saw scores: a curve table or a score-based measure."""
        return bool(self.score_measures) or any((self.folder / f"{t}.csv").exists() for t in CURVE_TABLES)

    def score_values(self, measure: str) -> pd.Series:
        """system -> value of ``measure`` (NaN: undefined)."""
        rows = self.score_rows[self.score_rows["measure"] == measure]
        return pd.to_numeric(rows.set_index("system")["value"], errors="coerce").astype(float)

    @cached_property
    def class_shares(self) -> dict[str, float]:
        """class -> its share of the gold labels (prevalence.csv)."""
        prev = self.table("prevalence")
        if prev.empty:
            return {}
        return dict(zip(prev["class"].astype(str), pd.to_numeric(prev["share"], errors="coerce").astype(float)))

    def prevalence_forecast(self, measure: str) -> float | None:
        """What the forecast that gives every item the class shares scores under ``measure``: from
        baselines.csv (baseline ``prevalence``) where the comparison wrote it, else from the shares
        (Brier: 1 - sum p_k^2, for two classes p(1 - p); log loss: the entropy -sum p_k log p_k;
        AUC 0.5; average precision: the positive class's share, the mean share over classes for
        several; PR AUC by trapezoids: (1 + that share) / 2, the area under its two-point curve; ECE and MCE 0, the forecast being perfectly calibrated: its top-label confidence,
        the largest share, is the accuracy of always naming that class); None for another measure."""
        base = self.table("baselines")
        if not base.empty and {"measure", "baseline", "value"} <= set(base.columns):
            row = base[(base["measure"] == measure) & (base["baseline"] == "prevalence")]
            if len(row) and np.isfinite(float(row["value"].iloc[0])):
                return float(row["value"].iloc[0])
        p = np.array([v for v in self.class_shares.values() if np.isfinite(v)])
        if measure in ("roc_auc", "roc_auc_weighted", "roc_auc_ovo"):
            return 0.5
        if measure in ("ece", "mce"):
            return 0.0
        if not len(p):
            return None
        if measure == "brier":
            return float(p[0] * (1 - p[0])) if len(p) == 2 else float(1 - (p ** 2).sum())
        if measure == "log_loss":
            q = p[p > 0]
            return float(-(q * np.log(q)).sum())
        if measure in ("average_precision", "pr_auc"):
            roc = self.table("roc_curve")
            classes = set(roc["class"].astype(str)) if not roc.empty else set()
            share = self.class_shares.get(next(iter(classes))) if len(p) == 2 and len(classes) == 1 else float(p.mean())
            if share is None or measure == "average_precision":
                return share
            # the trapezoids join (recall 0, precision 1) to (recall 1, share) for a constant forecast
            return (1.0 + share) / 2.0
        return None

    # ------------------------------------------------------------------ the section
    def scores_heading(self) -> Heading | None:
        """The section's heading, or None without scores."""
        return Heading("Scores and calibration", level=2) if self.has_scores else None

    def scores_intro(self) -> Note | None:
        """What the section shows, and where a measure of the other sections does not apply."""
        if not self.has_scores:
            return None
        probabilities = bool({"brier", "log_loss", "ece"} & set(self.score_measures))
        return Note(
            "The systems' scores and probabilities, judged before any threshold turns them into labels: how well "
            "they rank the items of a class above the others (the area under the ROC curve, AUC; average "
            "precision)"
            + (", and how far the probabilities can be taken at their word (the Brier score, log loss and the "
               "expected calibration error, ECE, of the top-label confidence in 15 equal-width bins; Guo et al. "
               "2017). Chance: AUC 0.5, and the Brier score and log loss of the prevalence forecast (every item "
               "given the class shares of the gold labels).\n\n" if probabilities else
               ". Chance: AUC 0.5. Not every system's scores are probabilities, so the Brier score, log loss and "
               "calibration errors are not computed (the overview names the file and line).\n\n")
            + "Prevalence calibration (Opitz 2022, eq. 5-6) rescales confusion matrices; the score-based measures "
            "are computed from scores, not from a confusion matrix, so they have no prevalence-calibrated value "
            "and take no part in the calibrated comparison or the what-if class distributions above.")

    def score_measures_table(self) -> Table | None:
        """Every system (rows, leaderboard order) under every score-based measure, and the prevalence forecast."""
        if not self.score_measures:
            return None
        rows = self.score_rows
        systems = self.in_board_order(rows["system"])
        values = rows.pivot(index="system", columns="measure", values="value").reindex(
            index=systems, columns=self.score_measures).apply(pd.to_numeric, errors="coerce")
        reason = rows.pivot(index="system", columns="measure", values="reason").reindex(
            index=systems, columns=self.score_measures).fillna("").astype(str)
        blank = values.index[values.isna().all(axis=1)]       # no score-based value at all (no score columns)
        if 0 < len(blank) < len(values):
            values, reason = values.drop(index=blank), reason.drop(index=blank)
        chance = {m: self.prevalence_forecast(m) for m in self.score_measures}
        forecast = "chance: prevalence forecast"
        values.loc[forecast] = [np.nan if v is None else v for v in chance.values()]
        reason.loc[forecast] = ["not known for this measure" if v is None else ""
                                for v in chance.values()]
        mark = values.isna()
        reason = reason.where(mark, "")
        reason = reason.where(reason != "", "undefined").where(mark, "")
        labels = [f"{self._label(m)} ({'↑' if _higher_is_better(m) else '↓'})" for m in self.score_measures]
        values.columns = mark.columns = reason.columns = labels
        values.index.name = "system"
        return Table(values, undefined=mark, reasons=reason,
                     caption="The score-based measures of every system (rows in leaderboard order; ↑ higher is "
                             "better, ↓ lower is better), and in the last row what the prevalence forecast scores "
                             "(AUC 0.5 for any constant; ECE 0, as it is perfectly calibrated). A system without scores has no value here, with the "
                             "reason; its other measures are in the tables above."
                             + (f" Left out: {counted(len(blank), 'system')} without any score-based value "
                                "(scores.csv holds their rows)." if 0 < len(blank) < len(systems) else ""))

    def _caption_systems(self, shown: int, every: int) -> str:
        if every <= shown:
            return "every system in leaderboard order"
        return f"the first {shown} of {every} systems on the leaderboard in colour, the others in grey"

    def _simplified_clause(self, table: str, grey: bool) -> str:
        """The sentence that says how far a drawn curve may depart from the exact one (``grey``: some are grey)."""
        return (f" Each drawn curve is simplified to the points that keep it within {CURVE_PIXELS:g} px of the "
                "exact curve" + (f" (a grey one within {REST_PIXELS:g} px)" if grey else "")
                + f", its coordinates rounded to {DECIMALS} decimals; {table}.csv keeps every point.")

    def _first_run_clause(self) -> str:
        """With several runs per system, the sentence that says whose curves are drawn (else empty)."""
        if not self.manifest.get("settings", {}).get("runs_per_system"):
            return ""
        return " With several runs per system, each system's curve is that of its first run with scores (curve tables too)."

    def curve_figure(self, kind: str) -> tuple[Any, str] | None:
        """The Altair chart of one curve table and its caption (plain text, no data text in it), or None
        without the table: ``kind`` is ``"roc"``, ``"precision-recall"`` or ``"reliability"``. The
        report's cells and the paper appendix draw the same figures."""
        table = {"roc": "roc_curve", "precision-recall": "pr_curve", "reliability": "reliability"}[kind]
        frame = self.table(table)
        if frame.empty:
            return None
        systems = self.board_order or None
        classes = list(self.class_shares) or None      # the panels in the task's class order
        grey = frame["system"].nunique() > MAX_LINES
        if kind == "roc":
            return (curves.roc_chart(frame, systems=systems, classes=classes),
                    f"ROC curves: true-positive against false-positive rate as the threshold falls, "
                    f"{self._caption_systems(MAX_LINES, frame['system'].nunique())}. The dashed "
                    "diagonal is a system that ranks at random (AUC 0.5); the higher a curve, the better the ranking."
                    + self._simplified_clause(table, grey) + self._first_run_clause())
        if kind == "precision-recall":
            return (curves.pr_chart(frame, prevalence=self.class_shares, systems=systems, classes=classes),
                    f"Precision-recall curves, {self._caption_systems(MAX_LINES, frame['system'].nunique())}. "
                    "The dashed line is the class's prevalence: the precision of a system that ranks "
                    "at random. Rare classes show here what the ROC curve hides. Each step holds a point's precision "
                    "back to the recall of the point before it, as average precision sums them."
                    + self._simplified_clause(table, grey)
                    + self._first_run_clause())
        chosen, words = self.reliability_systems(frame)
        if not chosen:
            return None
        ece = self.score_values("ece").to_dict() if "ece" in self.score_measures else None
        return (curves.reliability_chart(frame, systems=chosen, ece=ece),
                f"Reliability diagrams of {words}: in each bin of top-label confidence, the share of items "
                "predicted right against the mean confidence. Points on the dashed diagonal are perfectly "
                "calibrated; below it a system is over-confident, above it under-confident. The bars under each "
                "diagram show where its confidences fall." + self._first_run_clause())

    def roc_chart(self) -> Chart | None:
        """ROC curves of every system (one panel per class for several classes)."""
        return self._curve_cell("roc")

    def pr_chart(self) -> Chart | None:
        """Precision-recall curves of every system, the class prevalence as the chance line."""
        return self._curve_cell("precision-recall")

    def reliability_chart(self) -> Chart | None:
        """Reliability diagrams with the confidence histogram under each."""
        return self._curve_cell("reliability")

    def _curve_cell(self, kind: str) -> Chart | None:
        figure = self.curve_figure(kind)
        return None if figure is None else Chart(figure[0], name=kind, caption=figure[1])

    def reliability_systems(self, rel: pd.DataFrame) -> tuple[list[str], str]:
        """The systems of the reliability diagram and what the caption says of the choice."""
        conf = pd.to_numeric(rel["confidence"], errors="coerce")
        # scores outside [0, 1] are no probabilities: a reliability diagram of them means nothing
        bad = set(rel.loc[(conf < -1e-9) | (conf > 1 + 1e-9), "system"].astype(str))
        if bad:
            chosen, words = self.reliability_systems(rel[~rel["system"].astype(str).isin(bad)])
            return chosen, words + (f" ({len(bad)} other system{'s' if len(bad) > 1 else ''} left out: "
                                    f"{'their' if len(bad) > 1 else 'its'} scores are not probabilities, they fall "
                                    "outside 0 to 1)")
        order = self.in_board_order(rel["system"])
        if len(order) <= MAX_RELIABILITY:
            return order, "every system in leaderboard order"
        ece = self.score_values("ece").dropna() if "ece" in self.score_measures else pd.Series(dtype=float)
        ece = ece[ece.index.isin(order)]
        chosen = order[:TOP_RELIABILITY]
        extra = []
        if len(ece):
            extra = [str(ece.idxmin()), str(ece.idxmax())]
        chosen += [s for s in dict.fromkeys(extra) if s not in chosen]
        words = f"the first {TOP_RELIABILITY} of {len(order)} systems on the leaderboard"
        if extra:
            words += " and the best and worst calibrated by ECE"
        return [s for s in order if s in set(chosen)], words + " (every bin is in reliability.csv)"

    # ------------------------------------------------------------------ calibration in words
    def _extremes(self, measure: str) -> str | None:
        """'X is best (v), Y worst (w)' under ``measure``, or None with fewer than two values."""
        v = self.score_values(measure).dropna()
        if len(v) < 2:
            return None
        best, worst = (v.idxmax(), v.idxmin()) if _higher_is_better(measure) else (v.idxmin(), v.idxmax())
        if v[best] == v[worst]:
            return f"every system has the same {self._label(measure)} ({_fmt(v[best])})"
        return (f"**{escape(str(best))}** is the best calibrated ({_fmt(v[best])}) and **{escape(str(worst))}** "
                f"the worst ({_fmt(v[worst])})")

    def _against_forecast(self, measure: str) -> str | None:
        """How many systems beat the prevalence forecast under ``measure`` (a lower-is-better score)."""
        v = self.score_values(measure).dropna()
        chance = self.prevalence_forecast(measure)
        if v.empty or chance is None:
            return None
        worse = [str(s) for s in v.index if v[s] >= chance]
        text = (f"{self._label(measure)}: {len(v) - len(worse)} of {len(v)} systems do better than the prevalence "
                f"forecast ({_fmt(chance)})")
        if worse:
            names = ", ".join(escape(s) for s in worse[:10]) + (f" and {len(worse) - 10} more" if len(worse) > 10 else "")
            text += f"; not: {names}, whose probabilities say less than the class shares alone"
        return text

    def calibration_words(self) -> Note | None:
        """Which systems are best and worst calibrated (ECE), and the Brier score and log loss against
        the prevalence forecast; the systems without scores, with the reason."""
        if not self.score_measures:
            return None
        parts = []
        if "ece" in self.score_measures and (ext := self._extremes("ece")):
            parts.append(f"By the expected calibration error (ECE), {ext}. A low ECE alone is not skill: the "
                         "prevalence forecast is perfectly calibrated and knows nothing of the items.")
        for m in ("brier", "log_loss"):
            if m in self.score_measures and (text := self._against_forecast(m)):
                parts.append(text + ".")
        rows = self.score_rows
        missing = rows[rows["value"].isna()].drop_duplicates("system")
        if len(missing):
            parts.append("Without a value: " + _without_value(missing) + ".")
        if not parts:
            return None
        return Note("\n\n".join(parts))


#: The most systems a sentence names for one reason; the others are counted (every one is in scores.csv).
MAX_NAMED_MISSING = 10


def _without_value(missing: pd.DataFrame) -> str:
    """The systems without a value grouped by reason, each reason said once: "a, b and 3 more (reason; ...)"."""
    groups: dict[str, list[str]] = {}
    for system, reason in zip(missing["system"], missing["reason"]):
        groups.setdefault(str(reason) if isinstance(reason, str) and reason else "undefined", []).append(str(system))
    out = []
    for reason, names in groups.items():
        shown, why = ", ".join(escape(n) for n in names[:MAX_NAMED_MISSING]), escape(reason)
        if len(names) > MAX_NAMED_MISSING:
            shown += f" and {len(names) - MAX_NAMED_MISSING} more"
            why += f"; all {len(names)} in scores.csv"
        out.append(f"{shown} ({why})")
    return "; ".join(out)
