"""The report's "Choosing a measure" section (report.ipynb): which of the report's measures meet the
default requirements on this data, from ``recommend.csv`` and ``recommend_notes.csv``
(:func:`evalreport.analyses.recommend.recommend_for_report`)."""
from __future__ import annotations

import pandas as pd

from evalreport.escape import markdown
from evalreport.report.audit_section import readable
from evalreport.report.display import Note, Table
from evalreport.report.sections._core import ReportBase

#: the table's mark per verdict word
_MARK = {"satisfied": "✓", "violated": "✗", "n/a": "n/a"}

#: the columns of recommend.csv that are not requirements
_FIXED = ("measure", "label", "applicable", "fits", "failed", "reason", "pitfalls")


class RecommendSections(ReportBase):
    """Which measures of the report meet the requirements of a choice of measure, and why not."""

    def _recommend_requirements(self, table: pd.DataFrame) -> list[str]:
        return [c for c in table.columns if c not in _FIXED]

    def recommend_table(self) -> Table | Note:
        """One row per measure of the report: a mark per requirement, fits, why not and the pitfalls."""
        rec = self.table("recommend")
        if rec.empty:
            return Note("No measure advice: the report has fewer than two classes.")
        rec = rec[rec["applicable"].astype(str).str.lower() == "true"]
        reqs = self._recommend_requirements(rec)
        shown = pd.DataFrame({"measure": [self._label(m) + (" — primary" if m == self.primary else "")
                                          for m in rec["measure"].astype(str)]})
        for r in reqs:
            shown[r] = [_MARK.get(str(v).partition(":")[0], "?") for v in rec[r]]
        shown["fits"] = ["yes" if str(v).lower() == "true" else "no" for v in rec["fits"]]
        # one text column (a second one, mostly empty, would halve its width in the PDF)
        pitfalls = rec["pitfalls"].fillna("").astype(str).tolist()
        shown["why not; pitfalls"] = [" ".join(p for p in (_why_not(row, reqs), f"Pitfall: {pit}." if pit else "")
                                               if p) for (_, row), pit in zip(rec.iterrows(), pitfalls)]
        return Table(shown, index=False,
                     caption="✓ met, ✗ not met on this data (" + ", ".join(reqs) + "; docs/recommend.md defines "
                             "each). Why not: what systems without skill score on these prevalences, the audit's "
                             "counterexample (confusion matrices row by row, rows = gold) or the prediction that "
                             "leaves the measure without a value; in full in recommend.csv. Other requirements: "
                             "evalreport recommend GOLD --must ...")

    def recommend_note(self) -> Note:
        """The sentences: the setting, requirements no measure meets, the measures that fit."""
        notes = self.table("recommend_notes")
        if notes.empty or "note" not in notes.columns:
            return Note("No measure advice was computed.")
        # the sentences quote class names and measure labels: data text, escaped
        text = " ".join(markdown(n) for n in notes["note"].astype(str))
        if "chance-corrected" not in self.table("recommend").columns:
            text = ("The measure audit was not run (`--no-audit`): only `defined`, computed on the class counts, is "
                    "answered here. ") + text
        return Note(text)


def _why_not(row: pd.Series, reqs: list[str]) -> str:
    """The failed requirements with their reasons (``requirement: reason``), ``""`` when it fits."""
    out = []
    for r in reqs:
        verdict, _, text = str(row[r]).partition(": ")
        if verdict != "satisfied":
            out.append(f"{r}: {_short(text)}")
    return "; ".join(out)


def _short(text: str, limit: int = 220) -> str:
    """The reason up to ``limit`` characters, cut at a word."""
    text = readable(text)
    if len(text) <= limit:
        return text
    head = text[:limit]
    cut = head.rfind("; ")          # at a clause where there is one, else at a word
    return (head[:cut] if cut > limit // 3 else head.rsplit(" ", 1)[0]) + " …"
