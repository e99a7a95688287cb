"""The measure-audit sections (audit.ipynb); the tables are made by
:mod:`evalreport.report.audit_section`."""
from __future__ import annotations

import pandas as pd

from evalreport.escape import markdown
from evalreport.report import audit_section
from evalreport.report.display import Note, Table
from evalreport.report.sections._core import MAX_ROWS, ReportBase


class AuditSections(ReportBase):
    """Which properties the report's measures have, their legend, counterexamples and fit."""

    # ------------------------------------------------------------------ audit
    def audit_table(self) -> Table | Note:
        au = self.table("audit")
        if au.empty:
            return Note("The measure audit was not run.")
        setting = self._audit_setting(au)
        shown, notes = audit_section.matrix(au, setting, self.measures, self.primary)
        if shown.empty or shown.shape[1] == 0:
            return Note(f"Measure audit ({setting} setting): the measures of this report do not differ in any "
                        "property. " + " ".join(markdown(n) for n in notes))   # notes name measures (data text)
        qualifiers = self._audit_qualifiers(shown)       # (reads the CLI names: goesgens.CB)
        links = {c.partition(".")[2]: audit_section.anchor(c) for c in shown.columns}
        shown.columns = [c.partition(".")[2] for c in shown.columns]     # the ids are unique: MON, Mon, CB, ...
        return audit_section.LinkedTable(
            shown, links=links,
            caption=f"Which properties each measure of this report has ({setting} setting; ✓ satisfied, "
                    "✗ violated, n/a: cannot be evaluated), computed by enumeration and random search on every "
                    "confusion matrix, including those where a class is absent. " + qualifiers
                    + "Columns: the properties where the measures differ, by the ids that `evalreport audit "
                    "--properties` and `--needs` accept "
                    "(also as paper.ID: sebastiani.MON, opitz.PIV, goesgens.CB); the next table names and defines "
                    "each. " + "".join(n + " " for n in notes) + "Every verdict is in audit.csv.")

    def _audit_condition(self) -> str | None:
        """The condition of the audit's restricted verdicts that this report's data meets."""
        return audit_section.data_condition(self.table("prevalence"), self.table("confusion"))

    def _audit_policy(self) -> str:
        return str(self.meta.get("policy") or "nan")

    def _audit_qualifiers(self, shown: pd.DataFrame) -> str:
        """The caption's sentences for the footnoted marks, the data's condition and the policies."""
        cells = [str(v) for v in shown.to_numpy().ravel()]
        out = [n + "." for n in audit_section.notes_for(cells)]
        cond = self._audit_condition()
        if cond == "gold":
            out.append(f"In this data {audit_section.condition_words(cond)}, not every class in every system's "
                       "predictions: a ✗¹ does not apply to it, a ✗² does; `--needs` is answered under that condition.")
        elif cond == "every":
            out.append(f"In this data {audit_section.condition_words(cond)}: neither ✗¹ nor ✗² applies to it; "
                       "`--needs` is answered under that condition.")
        elif self.table("prevalence").empty:       # (a benchmark's audit covers every task's data)
            out.append("Every ✗ applies to data where a class may be absent; a task whose gold labels hold every "
                       "class is not affected by a ✗¹.")
        else:
            out.append("In this data a class is absent from the gold labels: every ✗ applies.")
        pol = self._audit_policy()
        if any(" (" in c for c in cells):
            out.append(f"Verdicts under this report's undefined-value policy ({pol}); in parentheses, where it "
                       "differs, the verdict under the paper's own policy ("
                       + audit_section.paper_policies(
                           [c for c in shown.columns if shown[c].astype(str).str.contains(" (", regex=False).any()])
                       + ").")
        else:
            out.append(f"Verdicts under this report's undefined-value policy ({pol}); each paper's own policy gives "
                       "the same marks here.")
        return " ".join(out) + " "

    def audit_legend(self) -> Table | Note:
        au = self.table("audit")
        if au.empty:
            return Note("The measure audit was not run.")
        setting = self._audit_setting(au)
        wide, _ = audit_section.verdicts(au, setting, self.measures, self.primary)
        leg = audit_section.legend(list(wide.columns))
        return audit_section.LinkedTable(
            leg, index=False, row_ids={n: audit_section.anchor(n) for n in leg["property"]},
            caption="The properties of the audit: the name to give `--properties` or `--needs` ("
                    + audit_section.papers_sentence(leg["property"]) + "), the property in words and where the paper "
                    "defines it, and what is checked (docs/audit.md says where a check differs from a paper and why).")

    def _audit_setting(self, au: pd.DataFrame) -> str:
        """The audit setting that matches the data: binary for two classes, else the multi-class one."""
        settings = list(dict.fromkeys(au["setting"]))
        if self.meta.get("n_classes") == 2 and "binary" in settings:
            return "binary"
        return settings[-1]

    def audit_counterexamples(self) -> Table | Note:
        au = self.table("audit")
        if au.empty:
            return Note("The measure audit was not run.")
        setting = self._audit_setting(au)
        ce, n = audit_section.counterexamples(audit_section.policy_rows(au, "report"), setting, self.measures,
                                              self.primary, top=MAX_ROWS)
        p = self._label(self.primary)
        if ce.empty:
            return Note(f"No measure of this report violates a property in the {setting} setting.")
        shown = f" First {len(ce)} of {n} violated properties." if n > len(ce) else ""
        return Table(ce, index=False,
                     caption=f"One counterexample per violated property: first {p}'s own, then, for the properties "
                             f"{p} has, that of the first measure that lacks it. Confusion matrices are written row by "
                             "row, rows = gold classes, e.g. [0 1; 2 3]." + shown + " The smallest counterexample for "
                             "every measure and property is in audit.csv.")

    def audit_fit(self) -> Note:
        au = self.table("audit")
        if au.empty:
            return Note("The measure audit was not run.")
        wanted = self.meta.get("needs") or []
        if not wanted:
            return Note("State the properties you need with `--needs` (e.g. `--needs goesgens.CB,goesgens.Max`) "
                        "and the report lists the measures that have all of them.")
        cond, pol = self._audit_condition(), self._audit_policy()
        mine = audit_section.policy_rows(au, "report")
        ok = mine.assign(key=[audit_section.cli_name(p, q) for p, q in zip(mine["paper"].astype(str),
                                                                           mine["property"].astype(str))])
        ok = ok[(ok["key"].isin(wanted) | ok["property"].isin(wanted)) & (ok["setting"] == self._audit_setting(au))]
        col = {"gold": "verdict_every_class_in_gold", "every": "verdict_every_class_in_gold_and_predicted"}.get(
            cond or "", "verdict")
        applies = ok[col] if col in ok.columns else ok["verdict"]
        ok = ok.assign(applies=applies.where(applies.notna() & applies.astype(str).ne(""), ok["verdict"]))
        fits = ok.groupby("measure", sort=False)["applies"].agg(lambda v: bool((v == "satisfied").all()))
        general = ok.groupby("measure", sort=False)["verdict"].agg(lambda v: bool((v == "satisfied").all()))
        names = [m for m in fits.index if fits[m]]
        only_here = [m for m in names if not general.get(m, True)]
        where = (f"verdicts on the confusion matrices where {audit_section.condition_words(cond)}, as in this data"
                 if cond else "verdicts on every confusion matrix" + (
                     "" if self.table("prevalence").empty else " (in this data a class is absent from the gold labels)"))
        # labels and ids of class-subset measures hold class names (data text): escaped, no code spans
        text = (f"Measures of this report that satisfy every stated need ({markdown(', '.join(wanted))}; "
                f"{self._audit_setting(au)} setting; {where}; policy {markdown(pol)}): "
                + (", ".join(f"{markdown(self._label(m))} ({_code(m)})" for m in names) + "." if names else "none."))
        if only_here:
            text += ((" " if names else "") + "Of these, " + ", ".join(markdown(self._label(m)) for m in only_here) + " would not qualify on "
                     "data where a class is absent (their ✗¹ or ✗² marks above).")
        return Note(text)


def _code(text: str) -> str:
    """``text`` as a Markdown code span, or escaped text where it holds a backtick."""
    return f"`{text}`" if "`" not in text and text.strip() == text and text else markdown(text)
