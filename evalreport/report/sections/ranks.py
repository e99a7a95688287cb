"""Report sections on ranks: the blob plot with the simultaneous rank intervals, what the test set
can detect (under the leaderboard) and, with a margin, the pairs' equivalence verdicts."""
from __future__ import annotations

import pandas as pd

from evalreport import charts
from evalreport.analyses.letters import TWO_LEVEL_CLUSTER_TEST, TWO_LEVEL_TEST
from evalreport.analyses.rank_intervals import rank_interval_sentence
from evalreport.escape import markdown as escape
from evalreport.report.display import Chart, Note, Table
from evalreport.report.sections._core import MAX_ROWS, ReportBase

__all__ = ["RankSections"]


class RankSections(ReportBase):
    """The rank-interval chart, the detectable difference and the verdicts table."""

    def rank_interval_chart(self) -> Chart | Note | None:
        board = self.table("leaderboard")
        rd = self.table("rank_distribution")
        if rd.empty or board.empty or "rank_lo" not in board or board["rank_lo"].isna().all():
            return None          # no resampling: the rank-distribution section says why
        test = self._test_name()
        alpha = self.meta.get("alpha", 0.05)
        return Chart(charts.rank_blob(rd, board, measure=self.primary), name="rank-intervals",
                     caption=f"Each system's bootstrap rank distribution under {self._label(self.primary)} "
                             "(circle area = P(rank = k)), its observed rank (orange) and its simultaneous rank "
                             f"interval (grey bar). {rank_interval_sentence(test, alpha)}")

    def detectable_note(self) -> Note | None:
        found = self.table("findings")
        if found.empty or "finding" not in found:
            return None
        row = found[found["finding"] == "detectable"]
        if row.empty or pd.isna(row["value"].iloc[0]):
            return None
        r = row.iloc[0]
        n = self.meta.get("n_items")
        items = f"{n:,} items" if isinstance(n, int) else "these items"
        test = {"clusters": "paired cluster bootstrap test", "runs and items": f"{TWO_LEVEL_TEST} test",
                "runs and clusters": f"{TWO_LEVEL_CLUSTER_TEST} test"}.get(
            self._resampled(), "paired bootstrap test")
        unit = "items"
        n_clusters = self.manifest.get("settings", {}).get("n_clusters")
        if self._resampled() in ("clusters", "runs and clusters") and n_clusters:
            # clustered: the cluster bootstrap's se, and the test set's size is its clusters
            items = f"{int(n_clusters):,} clusters" + (f" ({n:,} items)" if isinstance(n, int) else "")
            unit = "clusters"
        pair = escape(str(r["system"]))
        return Note(f"**What this test set can detect:** with {items}, the {test} finds a true "
                    f"difference of {float(r['value']):.3g} in {escape(self._label(self.primary))} between the two "
                    f"leading systems ({pair}) with 80% power at alpha = {self.meta.get('alpha', 0.05):g}; smaller "
                    "differences are often missed, so a tie here is no evidence of equality. "
                    + self._plan_pointer(unit))

    def _plan_pointer(self, unit: str) -> str:
        """Where to find the test set size for a smaller difference (``evalreport plan``, label measures only)."""
        from evalreport.measures.scores import is_score_measure

        if is_score_measure(self.primary):
            return ("`evalreport plan` plans measures of predicted labels; for this score-based measure, a larger "
                    "test set narrows the interval roughly as one over the square root of its size.")
        return (f"`evalreport plan` gives the {unit} needed for a smaller difference"
                + (" (with `--cluster-col`)." if unit == "clusters" else "."))

    def verdicts_table(self) -> Table | None:
        margin = self.manifest.get("settings", {}).get("margin")
        pw = self.table("pairwise")
        if margin is None or pw.empty or "verdict" not in pw:
            return None
        test = self.meta.get("pairwise_test", "bootstrap")
        own = pw[(pw["test"] == test) & (pw["measure"] == self.primary)]
        if own.empty:
            return None
        order = {s: i for i, s in enumerate(self.board_order)}
        own = own.assign(_o=own["verdict"].map({"different": 2, "equivalent": 1, "inconclusive": 0}),
                         _a=own["system_a"].map(order), _b=own["system_b"].map(order)).sort_values(
            ["_o", "_a", "_b"], kind="stable")
        show = pd.DataFrame({"A": own["system_a"], "B": own["system_b"], "difference": own["difference"],
                             "p (difference, Holm)": own["p_holm"],
                             "p (equivalence, Holm)": own["p_equivalence"], "verdict": own["verdict"]})
        more = f" First {MAX_ROWS} of {len(show):,} (inconclusive first); all in pairwise.csv." \
            if len(show) > MAX_ROWS else ""
        return Table(show.head(MAX_ROWS), index=False,
                     caption=f"Equivalence within a margin of {float(margin):g} {self._label(self.primary)}: "
                             "different (the corrected test rejects equality), equivalent (two one-sided tests, "
                             "Holm-corrected over all pairs, place the difference inside the margin) or "
                             "inconclusive." + more)
