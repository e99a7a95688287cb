"""The "Gold labels" section (report.ipynb): how many gold-label changes the ranking rests on
(``gold_fragility.csv``), the ranking under simulated label noise (``label_noise.csv``) and, for a
gold file of several annotators, their agreement and each system scored against each annotator
(``annotators.csv``, ``agreement.csv``). A cell whose table is absent shows nothing."""
from __future__ import annotations

import pandas as pd

from evalreport.analyses.gold import gold_measure
from evalreport.report.display import Note, Table
from evalreport.report.sections._core import ReportBase


class GoldSections(ReportBase):
    """Gold fragility, label noise and annotator tables."""

    def gold_fragility_table(self) -> Table | Note | None:
        frame = self.table("gold_fragility")
        if frame.empty and self.manifest.get("settings", {}).get("runs_per_system"):
            return Note("Skipped: with several runs per system a system is the mean over its runs, so a gold "
                        "label that changes moves every run at once; the search for the fewest changes and the "
                        "label-noise draws count one set of predictions per system and are not made for runs.")
        if frame.empty:
            return Note("Not computed: counting gold-label changes needs the item-level gold labels and "
                        "predictions (not confusion matrices) and at least two systems.")
        frame = frame.assign(shown=[_count(c, e) for c, e in zip(frame["changes"], frame["exact"])])
        wide = frame.pivot_table(index="system", columns="measure", values="shown", aggfunc="first")
        measures = list(dict.fromkeys(frame["measure"]))
        wide = wide.reindex(columns=measures)
        for m in measures:                      # the leader under a measure has no count of its own
            wide.loc[wide.index == leaders_of(frame)[m], m] = "leader"
        wide = wide.fillna("")
        wide = wide.reindex([s for s in self.in_board_order(wide.index)] or list(wide.index))
        wide.columns = [self._label(m) for m in wide.columns]
        wide.index.name = "challenger"
        leaders = leaders_of(frame)
        who = "; ".join(f"{self._label(m)}: {leaders[m]}" for m in measures)     # Table escapes captions
        return Table(wide, caption=self._stand_in_sentence() + "Fewest gold labels that must change for each "
                                   f"challenger to draw level with the leader ({who}). A number after ≤ is a "
                                   "checked upper bound found by search; the others are exact. For accuracy it is "
                                   "half the gap in correct items, rounded up.")

    def _stand_in_sentence(self) -> str:
        """Which measure the gold-label checks used when the primary one is score-based, in words ("" else)."""
        used = gold_measure(self.primary)
        if used == self.primary:
            return ""
        return (f"These checks rank by {self._label(used)}, not by the primary measure: {self._label(self.primary)} "
                "is computed from scores, not from the confusion matrices the checks change. ")

    def label_noise_table(self) -> Table | None:
        frame = self.table("label_noise")
        if frame.empty:
            return None
        frame = frame.assign(noise=[f"{100 * r:g} %" if m == "uniform" else f"matrix ({100 * r:.1f} %)"
                                    for r, m in zip(frame["noise_rate"], frame["model"])],
                             rank=[_span(lo, hi) for lo, hi in zip(frame["rank_lo"], frame["rank_hi"])])
        wide = frame.pivot_table(index="system", columns="noise", values="p_first", aggfunc="first")
        wide = wide.reindex(columns=list(dict.fromkeys(frame["noise"])))
        wide = wide.reindex(self.in_board_order(wide.index) or list(wide.index))
        wide.index.name = "system"
        draws = int(frame["draws"].iloc[0])
        return Table(wide, digits=2,
                     caption=f"Share of {draws} seeded draws in which each system is first (ties count) when "
                             f"every gold label is flipped at the given rate (a flipped label takes another "
                             f"class at random, or follows the noise matrix), under "
                             f"{self._label(gold_measure(self.primary))}; label_noise.csv has the mean rank and its "
                             "range per system. " + self._stand_in_sentence().strip())

    def agreement_note(self) -> Note | None:
        agree = self.table("agreement")
        if agree.empty:
            return None
        row = agree.iloc[0]
        return Note(f"The gold labels come from {int(row['annotators'])} annotators on {int(row['items']):,} items. "
                    f"Their agreement is Krippendorff's alpha = {row['krippendorff_alpha']:.3f} (nominal) and "
                    f"Fleiss' kappa = {row['fleiss_kappa']:.3f}; mean pairwise agreement "
                    f"{row['pairwise_agreement']:.3f}. A system that agrees with the annotators as much as they "
                    "agree with each other is at the ceiling these labels allow.")

    def annotators_table(self) -> Table | None:
        frame = self.table("annotators")
        if frame.empty:
            return None
        frame = frame.assign(annotator=frame["annotator"].astype(str), system=frame["system"].astype(str))
        wide = frame.pivot_table(index="system", columns="annotator", values="value", aggfunc="first")
        annotators = list(dict.fromkeys(frame["annotator"].astype(str)))
        wide = wide.reindex(columns=annotators)
        systems = [s for s in frame["system"].drop_duplicates() if not str(s).startswith("annotator ")]
        wide = wide.reindex([f"annotator {a}" for a in annotators if f"annotator {a}" in wide.index]
                            + (self.in_board_order(systems) or systems))
        wide.columns = [f"vs {a}" for a in annotators]
        wide.index.name = "scored"
        measure = str(frame["measure"].iloc[0])
        return Table(wide, caption=f"{self._label(measure)} of each system against each annotator's labels (columns), "
                                   "and of each annotator against the others (first rows): the human ceiling.")


def leaders_of(frame: pd.DataFrame) -> dict[str, str]:
    """Measure -> its leader, from ``gold_fragility.csv``."""
    return {str(m): str(ld) for m, ld in zip(frame["measure"], frame["leader"])}


def _count(changes, exact) -> str:
    """A count as shown: exact, a checked bound (≤ n) or none found."""
    if pd.isna(changes):
        return "none found"
    return f"{int(changes)}" if bool(exact) else f"≤ {int(changes)}"


def _span(lo, hi) -> str:
    """A rank range as shown."""
    return f"{lo:g}" if lo == hi else f"{lo:g}–{hi:g}"
