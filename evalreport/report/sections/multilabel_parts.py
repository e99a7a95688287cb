"""The multi-label report's shared facts and its later parts: the cross-check pairwise tests
(approximate randomisation, McNemar; pairwise.csv), prevalence calibration per label, chance baselines
for sets and the audit of the example-based measures; the earlier parts and the findings are in
:mod:`evalreport.report.sections.multilabel`. A part whose table is absent returns None (left out)."""
from __future__ import annotations

from functools import cached_property

import numpy as np
import pandas as pd

from evalreport import charts
from evalreport.charts import multilabel as mlcharts
from evalreport.escape import markdown as escape
from evalreport.report.display import Chart, Heading, Note, Table
from evalreport.report.section_tables import p_floor
from evalreport.report.sections._core import MAX_ROWS
from evalreport.report.sections.common import CommonSections

__all__ = ["MultiLabelBase", "MultiLabelParts", "BASELINE_WORDS", "TEST_WORDS"]

#: Baseline names as readers see them.
BASELINE_WORDS = {"label_frequency": "each label at its gold frequency", "empty_set": "empty set",
                  "most_frequent_set": "most frequent gold set"}
TEST_WORDS = {"bootstrap": "paired bootstrap", "randomization": "approximate randomisation",
              "mcnemar": "McNemar (exact match)"}


class MultiLabelBase(CommonSections):
    """The facts every multi-label section uses: measure kinds and directions, the leaderboard's
    order of systems, the labels by frequency, which tables are there."""

    #: McNemar's test of label sets counts exact-match disagreements.
    test_words = TEST_WORDS

    # ------------------------------------------------------------------ shared facts
    @cached_property
    def kinds(self) -> dict:
        """measure id -> "example" (example-based) or "label" (label-based average)."""
        defs = self.table("measures")
        if defs.empty:
            return {}
        return {m: ("example" if k == "example" else "label") for m, k in zip(defs["id"], defs["kind"])}

    def _higher(self, measure: str) -> bool:
        defs = self.table("measures")
        row = defs[defs["id"] == measure] if not defs.empty else defs
        return bool(row["direction"].iloc[0] == "higher") if len(row) else True

    @cached_property
    def order(self) -> list[str]:
        """Systems in leaderboard order."""
        board = self.table("leaderboard")
        return list(board.sort_values("rank", kind="stable")["system"]) if not board.empty else []

    def _label(self, measure_id: str) -> str:
        """A measure's short label (the appendix has the full definition)."""
        return charts.short_measure_label(measure_id)

    @cached_property
    def label_order(self) -> list[str]:
        """The task's labels most frequent first (gold items; ties in the task's order), then the labels
        found only in predictions."""
        freq = self.table("label_frequency")
        gold = freq[freq["role"] == "gold"].reset_index(drop=True)
        gold = gold.assign(_o=np.arange(len(gold)), _extra=gold["label"].isin(self.extra_labels))
        return list(gold.sort_values(["_extra", "count", "_o"], ascending=[True, False, True],
                                     kind="stable")["label"])

    @cached_property
    def extra_labels(self) -> list[str]:
        """Labels found only in predictions (kept with --allow-unknown): after the task's labels."""
        n_task = self.meta.get("n_labels")
        labels = self.manifest.get("labels", [])
        return list(labels[n_task:]) if n_task is not None else []

    def _has(self, name: str) -> bool:
        return (self.folder / f"{name}.csv").exists()

    def _nonempty(self, name: str) -> pd.DataFrame | None:
        """The table ``name``, or None when it is absent or empty."""
        frame = self.table(name)
        return None if frame.empty else frame

    #: The parts that a comparison may lack (an older one): their heading is shown only with their table.
    PARTS = {"calibration": ("calibration_summary", "Prevalence calibration per label"),
             "audit": ("audit", "Audit of the example-based measures")}

    def part_heading(self, part: str) -> Heading | None:
        """The heading of an optional part (:data:`PARTS`), or None when its table is absent: the
        report then leaves the part out, heading included."""
        table, text = self.PARTS[part]
        return Heading(text, level=2) if self._has(table) else None


class MultiLabelParts(MultiLabelBase):
    """Pairwise tests, prevalence calibration, chance baselines and the audit."""

    # ------------------------------------------------------------------ 7. pairwise tests (the table: .common)
    def tests_chart(self, test: str = "randomization") -> Chart | None:
        """The Holm-corrected p-values of one cross-check test of pairwise.csv.

        Parameters
        ----------
        test
            ``"randomization"`` (on the primary measure) or ``"mcnemar"`` (on subset accuracy).

        Returns
        -------
        Chart or None
            None without rows of that test.
        """
        pw = self.table("pairwise")
        if pw.empty or test not in set(pw["test"]):
            return None
        own = pw[pw["test"] == test]
        measure = own["measure"].iloc[0]
        own = own[own["measure"] == measure]
        order = [s for s in self.order if s in set(own["system_a"]) | set(own["system_b"])] or None
        floor = p_floor(own, test)       # randomisation: m / (R + 1) at best (Holm over m pairs)
        floor = floor["holm"] if floor else None
        return Chart(charts.pvalue_heatmap(own, measure=measure, test=test, column="p_holm",
                                           alpha=self.meta.get("alpha", 0.05), order=order, floor=floor,
                                           title=f"Pairwise {TEST_WORDS.get(test, test)} test: "
                                                 f"{charts.short_measure_label(measure)}"),
                     name=f"tests-{test}",
                     caption=f"Holm-corrected p-values of the {TEST_WORDS.get(test, test)} test between every pair "
                             f"of systems ({self._label(measure)}).")

    # ------------------------------------------------------------------ 8. calibration
    def calibration_reference_words(self) -> str:
        """The reference prevalence in words: "reference prevalence 0.5 (uniform)"."""
        settings = self.manifest.get("settings", {}) or self.meta.get("settings", {})
        ref, pi = settings.get("calibration_reference"), settings.get("calibration_prevalence")
        named = {"uniform": "uniform: both rows of each label's matrix equal",
                 "mean": "the mean gold prevalence of the labels"}
        if isinstance(pi, (int, float)):
            return f"reference prevalence {pi:.3g}" + (f", {named.get(ref, ref)}" if isinstance(ref, str) else "")
        if ref is None:
            return "the reference prevalence of calibration.csv"
        return f"reference prevalence {ref:g}" if isinstance(ref, (int, float)) else f"reference prevalence: {ref}"

    def calibration_note(self) -> Note | None:
        if not self._has("calibration_summary"):
            return None
        return Note("A label-based measure depends on how common each label is: the same error rates give a rare "
                    "label a lower precision than a frequent one (Opitz 2022, eq. 5-6; Sebastiani 2015 on "
                    "prevalence). Multi-label classification is one binary task per label, so calibration acts on "
                    "each label's own 2 x 2 matrix: its rows are rescaled so that the label's gold prevalence "
                    f"becomes the reference ({escape(self.calibration_reference_words())}); recall and specificity "
                    "do not move. A label's calibrated precision or F1 is its value *as if that label occurred in "
                    "that share of the items*, and the averages over the labels compare systems on equal footing. "
                    "The example-based measures read whole sets (which labels come together on an item) and have "
                    "no calibrated form.")

    def calibration_summary_table(self) -> Table | None:
        if (cs := self._nonempty("calibration_summary")) is None:
            return None
        m = self.primary if self.primary in set(cs["measure"]) else cs["measure"].iloc[0]
        own = cs[cs["measure"] == m].set_index("system").reindex([s for s in self.order if s in set(cs["system"])])
        label = self._label(m)
        show = pd.DataFrame({f"{label} (raw)": own["value"], f"{label} (calibrated)": own["calibrated"],
                             "rank (raw)": own["rank"], "rank (calibrated)": own["rank_calibrated"]})
        show.index.name = "system"
        ranks = {c: (lambda r: "" if pd.isna(r) else f"{r:g}") for c in ("rank (raw)", "rank (calibrated)")}
        return Table(show, formats=ranks,
                     caption=f"{label} before and after prevalence calibration of every label, with the ranks they "
                             "give (systems in leaderboard order). Every label-based average is in "
                             "calibration_summary.csv; the next chart has the calibrated ranks under each.")

    def calibration_rank_chart(self) -> Chart | Note | None:
        if (cs := self._nonempty("calibration_summary")) is None:
            return None
        if (cs["rank"] == cs["rank_calibrated"]).all():
            return Note("Prevalence calibration changes no system's rank under any label-based average.")
        ranks = cs.assign(rank=cs["rank_calibrated"])[["system", "measure", "rank"]]
        return Chart(charts.rank_heatmap(ranks, orient="systems_rows" if cs["system"].nunique() > 12 else "auto",
                                         title="Rank of every system after prevalence calibration"),
                     name="calibration-ranks",
                     caption="Rank of every system under each label-based average after prevalence calibration "
                             "(1 = best); compare with the raw rank chart of 'Every measure'.")

    def calibration_chart(self) -> Chart | None:
        if (cal := self._nonempty("calibration")) is None:
            return None
        measure = "f1" if "f1" in set(cal["measure"]) else cal["measure"].iloc[0]
        own = cal[cal["measure"] == measure]
        return Chart(mlcharts.label_heatmap(own, value="calibrated", order=self.label_order, systems=self.order,
                                            value_title=f"calibrated {measure}",
                                            title=f"Prevalence-calibrated {measure} per label and system"),
                     name="calibration-per-label",
                     caption=f"Each label's {measure} after calibration to the reference prevalence; compare with the "
                             "per-label chart above (raw values). Every label, measure and system is in "
                             "calibration.csv.")

    # ------------------------------------------------------------------ 9. chance baselines
    def ml_baselines_table(self) -> Table | Note:
        if (base := self.table("baselines")).empty:
            return Note("No chance baselines were computed.")
        wide = base.pivot_table(index="measure", columns="baseline", values="value", aggfunc="first", dropna=False)
        cols = [c for c in BASELINE_WORDS if c in wide.columns] + [c for c in wide.columns if c not in BASELINE_WORDS]
        order = [m for m in self.measures if m in wide.index]
        wide = wide.reindex(index=order, columns=cols)
        flags = wide.isna()
        board = self.table("scores")
        board = board[~board["calibrated"]] if "calibrated" in board else board
        best = board.groupby("measure")["value"].agg(["max", "min"])
        wide["best system"] = [best.loc[m, "max" if self._higher(m) else "min"] if m in best.index else np.nan
                               for m in wide.index]
        flags["best system"] = False
        wide.columns = [BASELINE_WORDS.get(c, c) for c in wide.columns]
        flags.columns = wide.columns
        wide.index = [f"{self._label(m)} {'↑' if self._higher(m) else '↓'}" for m in wide.index]
        flags.index = wide.index
        wide.index.name = "measure"
        reasons = pd.DataFrame("undefined for this baseline (0/0)", index=wide.index, columns=wide.columns)
        return Table(wide, undefined=flags if flags.any().any() else None, reasons=reasons,
                     caption="What a system with no skill scores: every label predicted independently with its gold "
                             "frequency (Monte Carlo mean), the empty set for every item, and the most frequent gold "
                             "set for every item (exact); the best system's value for comparison. Methods and "
                             "standard errors are in baselines.csv.")

    # ------------------------------------------------------------------ 10. audit
    def ml_audit_intro(self) -> Note | None:
        au = self._nonempty("audit")
        if au is None:
            return None
        setting = escape(str(au["setting"].iloc[0]))
        return Note("Which properties each example-based measure has, checked by computation on label sets: every "
                    f"small multi-label test set is enumerated ({setting}: L labels, up to n items, a gold and a "
                    "predicted set per item), and each property of Sebastiani (2015), Opitz (2022) and Gösgens et "
                    "al. (2021) is read for sets (the next tables say how). A violated property comes with the first "
                    "counterexample found, fewest items first; a set is written {a,b}, the empty set {}.")

    def ml_audit_table(self) -> Table | None:
        au = self._nonempty("audit")
        if au is None:
            return None
        marks = {"satisfied": "✓", "violated": "✗", "n/a": "n/a"}
        props = list(dict.fromkeys(au["property"]))
        measures = list(dict.fromkeys(au["measure"]))
        wide = au.pivot_table(index="measure", columns="property", values="verdict", aggfunc="first")
        wide = wide.reindex(index=measures, columns=props).apply(lambda c: c.map(lambda v: marks.get(v, v)))
        wide.index = [self._label(m) for m in wide.index]
        wide.index.name = "measure"
        agree_col = "as_expected" if "as_expected" in au else "agrees"      # (an older audit.csv: agrees)
        disagree = au[au[agree_col].astype(str).str.lower().eq("false")] if agree_col in au else au.iloc[:0]
        note = (f" {len(disagree)} verdict(s) differ from what the measure's record claims: "
                + "; ".join(f"{m} {p}" for m, p in zip(disagree["measure"], disagree["property"])) + "."
                if len(disagree) else " Every verdict agrees with what the measures' records claim."
                if agree_col in au and au[agree_col].notna().any() else "")
        empty = au[au["property"] == "EMPTY"]
        if len(empty):
            note += (f" EMPTY is checked under the 0/0 policy of this report's values ({empty['policy'].iloc[0]}); "
                     "audit.csv's detail says under which policies it holds.")
        return Table(wide, caption="Which properties each example-based measure has on label sets (✓ satisfied, "
                                   "✗ violated, n/a: cannot be evaluated); the next table defines each property. "
                                   "Every verdict, with its detail and the record's claim, is in audit.csv." + note)

    def ml_audit_legend(self) -> Table | None:
        au = self._nonempty("audit")
        if au is None:
            return None
        try:
            from evalreport.analyses.audit.multilabel import ML_PROPERTIES
        except ImportError:        # an older tree: the ids alone
            ML_PROPERTIES = {}
        papers = {"sebastiani": "Sebastiani 2015", "opitz": "Opitz 2022", "goesgens": "Gösgens et al. 2021"}
        rows = []
        for pid in dict.fromkeys(au["property"]):
            paper, where, what = ML_PROPERTIES.get(pid, ("", "", ""))
            rows.append({"property": pid, "source": f"{papers.get(paper, paper)}, {where}" if paper else where,
                         "on label sets": what})
        return Table(pd.DataFrame(rows), index=False,
                     caption="The properties of the audit, where each paper defines it and what is checked for sets "
                             "(evalreport/analyses/audit/multilabel.py states each check in full).")

    def ml_audit_counterexamples(self) -> Table | Note | None:
        au = self._nonempty("audit")
        if au is None:
            return None
        bad = au[au["verdict"] == "violated"]
        if bad.empty:
            return Note("No example-based measure violates a property on these test sets.")
        show = pd.DataFrame({"measure": bad["measure"].map(self._label), "property": bad["property"],
                             "counterexample": bad["counterexample"], "what changes": bad["detail"]})
        more = f" First {2 * MAX_ROWS} of {len(show)}; all in audit.csv." if len(show) > 2 * MAX_ROWS else ""
        return Table(show.head(2 * MAX_ROWS), index=False,
                     caption="The first counterexample of every violated property: G = the gold sets, P = the "
                             "predicted sets (one per item), the value in brackets; P' is the changed prediction."
                             + more)
