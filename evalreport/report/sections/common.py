"""The sections both reports show, single labels and label sets alike: the findings block (from
findings.csv), the inputs, the leaderboard chart, the rank chart, agreement between measures, order
flips, rank uncertainty and the pairwise tests (pairwise.csv: one schema for both kinds, a row per
pair, measure and test). Each reads tables of the same name and columns in both report folders;
:class:`~evalreport.report.sections.ReportData` (single labels) and
:class:`~evalreport.report.sections.multilabel.MultiLabelReport` (label sets) compose it with
their own sections."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from evalreport import charts
from evalreport.analyses.letters import TWO_LEVEL_CLUSTER_TEST, TWO_LEVEL_TEST, letters_sentence, range_sentence
from evalreport.charts.points import letters_shown_as
from evalreport.escape import markdown as escape
from evalreport.measures import get
from evalreport.report.display import Chart, Note, Table
from evalreport.report.section_tables import (
    BASELINE_CHART_WORDS,
    MAX_FLIPS,
    MAX_INCONSISTENT,
    MAX_PAIRS_ALL,
    NOISE_SE,
    flips,
    p_floor,
    p_floor_sentence,
)
from evalreport.report.sections._core import ReportBase
from evalreport.report.sections.many_systems import print_first, print_systems
from evalreport.words import counted

__all__ = ["CommonSections", "MAX_PVALUE_SYSTEMS", "p_value_text"]

#: Above this many systems the p-value heatmap shows the best ones (all pairs stay in pairwise.csv).
MAX_PVALUE_SYSTEMS = 40
#: What the leaderboard chart's caption says of its letters, by how the chart shows them
#: (:func:`evalreport.charts.points.letters_shown_as`).
LETTERS_SHOWN = {"colour": " Colour: the significance letters. ",
                 "written": " Beside each interval: its significance letters. ", "none": " "}


def p_value_text(p: float) -> str:
    """A p-value as a table shows it: three decimals, ``<0.001`` below that, empty when missing.

    Parameters
    ----------
    p : float
        The p-value (NaN when the test has no value for the pair).

    Returns
    -------
    str
    """
    return "" if pd.isna(p) else "<0.001" if p < 0.001 else f"{p:.3f}"


class CommonSections(ReportBase):
    """The sections of both reports (module docstring)."""

    # ------------------------------------------------------------------ findings
    def findings(self) -> Note:
        """The opening findings block, made from findings.csv only (:mod:`evalreport.report.summary`)."""
        from evalreport.report.summary import findings_note

        return findings_note(self.table("findings"), primary=self.primary, alpha=self.meta.get("alpha", 0.05),
                             n_items=self.meta.get("n_items"), test_name=self._test_name())

    # ------------------------------------------------------------------ inputs, leaderboard, ranks
    def inputs_table(self) -> Table:
        df = self.table("inputs")
        if df.empty:
            return Table(pd.DataFrame({"input": ["(given in memory)"]}), caption="Inputs")
        # an installed entry point has no file and no hash: its row names the distribution and version
        sha = df["sha256"].fillna("").astype(str)
        df = df.assign(sha256=sha.str[:16].where(sha == "", sha.str[:16] + "…"),
                       file=[p if r == "entry-point" else Path(p).name for r, p in zip(df["role"], df["path"])])
        # a column with nothing in it (rows of confusion matrices, systems named inside one file) is left out
        cols = [c for c in ("role", "system", "file", "rows", "sha256")
                if c in df and not df[c].replace("", np.nan).isna().all()]
        return Table(df[cols], caption="Input files and their SHA-256 hashes (first 16 hex digits).", index=False)

    def leaderboard_chart(self) -> Chart | Note:
        iv = self.table("intervals")
        if iv.empty:
            scores = self.table("scores")
            iv = scores[(scores["measure"] == self.primary) & ~scores["calibrated"]].assign(lo=np.nan, hi=np.nan)
        iv = iv[iv["measure"] == self.primary]
        base = self.table("baselines")
        base = base[base["measure"] == self.primary] if not base.empty else None
        groups = self.table("groups")
        # the baseline the findings call the strongest is drawn (one rule: findings.strongest_baseline)
        found = self.table("findings")
        best = found.loc[found["finding"] == "baseline_best", "system"] if "finding" in found else []
        if not len(best) and base is not None and len(base):
            from evalreport.analyses.findings import strongest_baseline

            row = strongest_baseline(base, higher_is_better=get(self.primary).higher_is_better)
            best = [] if row is None else [row["baseline"]]
        chart = charts.leaderboard_intervals(iv, measure=self.primary, baselines=base,
                                             groups=groups if not groups.empty else None,
                                             higher_is_better=get(self.primary).higher_is_better,
                                             strongest=str(list(best)[0]) if len(best) else None,
                                             baseline_names=BASELINE_CHART_WORDS,
                                             points="mean over each system's runs"
                                             if self._several_runs() else "value on all items")
        intervals = "with bootstrap intervals" if iv["lo"].notna().any() else "(no intervals: see the overview)"
        drawn = iv.loc[np.isfinite(pd.to_numeric(iv["value"], errors="coerce")), "system"].astype(str)
        letters = "" if groups.empty or "letters" not in groups else (
            LETTERS_SHOWN[letters_shown_as(groups, list(drawn))] + letters_sentence(self._test_name(),
                                                                                  self.meta.get("alpha", 0.05))
            + range_sentence(groups["letters"]))
        caption = (f"Systems under {self._label(self.primary)} {intervals}. What trivial or random "
                   "systems score (chance baselines) is drawn as dashed lines when near the systems, "
                   "always including the one the findings call the strongest (marked \"strongest\"); the "
                   "axis is zoomed to the systems, and a baseline far from them is named in the chart's "
                   "subtitle instead." + letters)
        top = print_systems(self.board_order)
        # the printed chart (PDF) of many systems: the first of the leaderboard, at a readable size
        printed = print_first(top, lambda: charts.leaderboard_intervals(
                         iv[iv["system"].astype(str).isin(top or ())], measure=self.primary, baselines=base,
                         groups=groups[groups["system"].astype(str).isin(top or ())] if not groups.empty else None,
                         higher_is_better=get(self.primary).higher_is_better,
                         strongest=str(list(best)[0]) if len(best) else None, baseline_names=BASELINE_CHART_WORDS,
                         points="mean over each system's runs" if self._resampled() == "runs and items"
                         else "value on all items"), caption, total=len(self.board_order),
                         ranked_by=self._label(self.primary), table="leaderboard.csv")
        if letters and top is not None and "print_caption" in printed:
            # the printed chart of the first systems may show their fewer letter sets another way
            live, shown = letters_shown_as(groups, list(drawn)), letters_shown_as(groups, [s for s in drawn if s in top])
            if live != shown and live != "none":
                printed["print_caption"] = printed["print_caption"].replace(LETTERS_SHOWN[live], LETTERS_SHOWN[shown], 1)
        return Chart(chart, name="leaderboard", caption=caption, **printed)

    def rank_heatmap(self, *, calibrated: bool = False) -> Chart | Note | None:
        ranks = self.table("ranks")
        if calibrated and self._calibration_changes_nothing(ranks, "rank"):
            if self._calibration_changes_nothing(self.table("scores"), "value"):
                return None   # a balanced test set: the calibration chart's note says so already
            return Note("Prevalence calibration changes no system's rank under any measure: the calibrated ranks "
                        "are those of the rank chart above.")
        caption = ("Rank of every system under every measure (1 = best)"
                   + (" after prevalence calibration." if calibrated else ".")
                   + self._undefined_ranks_sentence(ranks, calibrated))
        chart = charts.rank_heatmap(ranks, calibrated=calibrated, systems=self.board_order or None)
        top = print_systems(self.board_order)
        from evalreport.charts.heatmaps import worst_rank

        worst = worst_rank(ranks, calibrated=calibrated)      # printed: the colours of the whole table's ranks
        return Chart(chart, name="ranks-calibrated" if calibrated else "ranks", caption=caption,
                     **print_first(top, lambda: charts.rank_heatmap(
                         ranks[ranks["system"].astype(str).isin(top or ())], calibrated=calibrated, systems=top,
                         worst=worst),
                         caption, total=len(self.board_order), ranked_by=self._label(self.primary),
                         table="ranks.csv"))

    def _undefined_ranks_sentence(self, ranks: pd.DataFrame, calibrated: bool) -> str:
        """Which rank-chart cells hold an undefined (0/0) value, ranked last only to give it a place."""
        if "nan_last" not in ranks or "calibrated" not in ranks:
            return ""
        part = ranks[(ranks["calibrated"].astype(bool) == calibrated) & ranks["nan_last"].astype(bool)]
        if self.measures:
            part = part[part["measure"].isin(self.measures)]
        if part.empty:
            return ""
        cells = [f"{s} under {self._label(m)}" for s, m in zip(part["system"], part["measure"])]
        listed = "; ".join(cells[:6]) + (f"; and {len(cells) - 6:,} more (nan_last in ranks.csv)"
                                         if len(cells) > 6 else "")
        return (f" An undefined (0/0) value is ranked last, tied, only to give it a place ({listed}); the agreement "
                "between measures below leaves such systems out instead of counting them as worst.")

    # ------------------------------------------------------------------ agreement between measures
    def correlation_heatmap(self, method: str = "spearman") -> Chart | Note | None:
        """The agreement chart; a Note instead when every measure ranks the systems alike (said
        once, by the first method's call: the other returns None and shows nothing), or when
        there are too few systems for a correlation to say much."""
        few = self._too_few_systems("a rank correlation between two measures")
        if few:
            return Note(few) if method == "spearman" else None
        corr = self.table("rank_correlation")
        if corr.empty or method not in set(corr["method"]):
            return Note("Fewer than two systems or measures: no rank correlations.") if method == "spearman" else None
        order = self.measures or None
        groups = charts.identical_rankings(corr, method=method, order=order)
        if len(groups) == 1:
            if method != "spearman" and "spearman" in set(corr["method"]):
                return None
            return Note(f"All {len(groups[0])} measures rank the systems in the same order: every rank correlation "
                        "between two measures is 1, so there is no disagreement to chart.")
        merged = [g for g in groups if len(g) > 1]
        caption = (f"{method.capitalize()} rank correlation between the system rankings of every pair of measures "
                   "(hover a cell for the value and the measures).")
        if "n_systems" in corr and (corr["n_systems"] < corr["n_systems"].max()).any():
            caption += (" Where a measure is undefined (0/0) for some systems, its correlations are over the systems "
                        "with a value under both measures (n_systems in rank_correlation.csv), not with the undefined "
                        "ones ranked last; empty where fewer than three remain.")
        if merged and method != "spearman" and "spearman" in set(corr["method"]):
            caption += " Measures share a row as in the Spearman chart (the same groups: identical rankings)."
        elif merged:
            caption += " Measures with identical rankings share a row: " + "; ".join(
                ", ".join(charts.short_measure_label(m) for m in g) for g in merged) + "."
        return Chart(charts.correlation_heatmap(corr, method=method, order=order), name=f"correlation-{method}",
                     caption=caption)

    def inconsistency_table(self) -> Table | Note | None:
        if self._too_few_systems("a rank correlation between two measures"):
            return None    # the agreement chart's note says it
        inc = self.table("inconsistency")
        if inc.empty:
            return Note("Fewer than two systems: nothing to compare.")
        pos = {m: i for i, m in enumerate(self.measures)}
        inc = inc[inc["measure_a"].map(pos).fillna(1e9) < inc["measure_b"].map(pos).fillna(1e9)]
        fewer = int((inc["n_comparable"] < inc["n_pairs"]).sum()) if "n_comparable" in inc else 0
        inc = inc[inc["discordant"] > 0]
        inc = inc.sort_values("rate", ascending=False, kind="stable")
        if inc.empty:
            return Note("Every pair of measures orders every pair of systems the same way" + (
                " (a pair of systems with an undefined value under a measure is not compared under it)."
                if fewer else "."))
        n_pairs = int(inc["n_pairs"].max())
        comparable = inc["n_comparable"] if "n_comparable" in inc else inc["n_pairs"]
        show = pd.DataFrame({"measure": inc["measure_a"].map(self._label),
                             "other measure": inc["measure_b"].map(self._label),
                             "system pairs ordered differently": inc["discordant"].astype(int),
                             "comparable system pairs": comparable.astype(int),
                             "share of comparable pairs": inc["rate"]})
        top = MAX_INCONSISTENT
        shown = f"The {top} most discordant of {len(show):,} such pairs of measures; all in inconsistency.csv." \
            if len(show) > top else "All in inconsistency.csv."
        undefined = (f" A pair of systems is comparable under a measure when both have a value: an undefined (0/0) "
                     f"value gives no order, so a pair with one is neither an agreement nor a disagreement (it is not "
                     f"counted as the worst value), and the share is over the pairs comparable under both measures "
                     f"({fewer:,} pairs of measures have fewer than {n_pairs:,}: those with an undefined value)."
                     if fewer else
                     " Every system has a value under every measure shown, so every pair is comparable.")
        return Table(show.head(top), index=False, formats={"share of comparable pairs": "{:.0%}"},
                     caption=f"Pairs of measures that order some of the {n_pairs:,} pairs of systems differently: how "
                             "many and which share (the inconsistency rate of Gösgens et al. (2021), Tables 4-6)."
                             + undefined + " " + shown)

    def flips_table(self) -> Table | Note:
        dis = self.table("disagreements")
        if dis.empty:
            return Note("No pair of systems changes order between the measures shown.")
        paired = self.table("paired_differences")
        alpha = self.meta.get("alpha", 0.05)
        fl = flips(dis, self.table("intervals"), self.primary, paired=paired, alpha=alpha)
        p = self._label(self.primary)
        if fl.empty:
            return Note(f"No pair of systems changes order between {escape(p)} and the other measures.")
        test = {"runs and items": TWO_LEVEL_TEST, "runs and clusters": TWO_LEVEL_CLUSTER_TEST}.get(self._resampled(),
                                                                                                "paired bootstrap")
        rule = (f"A flip is larger than the noise when, under both measures, the {test} test of the two "
                f"systems' difference (the same resampled {self._resampled()} for both), Holm-corrected over the two tests of "
                f"every flip, gives p < {alpha:g} (paired_differences.csv)." if "p_primary" in fl else
                f"A flip is larger than the noise when, under both measures, the two systems differ by more than "
                f"{NOISE_SE:g} standard errors of their difference, sqrt(se_A² + se_B²), with se the bootstrap "
                "standard errors of intervals.csv.")
        known = fl["z_primary"].notna() & fl["z_other"].notna()
        if not known.any():
            show, head = fl, (f"System pairs whose order under {p} flips under another measure ({len(fl):,}). There "
                              "are no bootstrap standard errors (no item-level predictions), so flips larger than "
                              "the noise cannot be told from the rest.")
        else:
            show = fl[fl["beyond_noise"]]
            n_noise = len(fl) - len(show)
            if show.empty:
                return Note(f"{counted(len(fl), 'flip')} (a pair of systems that another measure orders the other way "
                            f"than {escape(p)}), but every one "
                            f"of these flips is within the bootstrap noise. {rule} All flips are in disagreements.csv.")
            head = (f"The {counted(len(show), 'flip')} larger than the noise: a pair of systems whose order under {p} "
                    f"(primary; A is its winner) flips under another measure. {rule} The other {counted(n_noise, 'flip')} {'is' if n_noise == 1 else 'are'} within the "
                    "noise of at least one of the two measures.")
        shown = f" First {MAX_FLIPS} (the clearest); all in disagreements.csv." if len(show) > MAX_FLIPS \
            else " All flips, with the noise-level ones, are in disagreements.csv."
        table = pd.DataFrame({"other measure": show["measure"].map(self._label), "A": show["A"], "B": show["B"],
                              "primary: A": show["primary_A"], "primary: B": show["primary_B"],
                              "other: A": show["other_A"], "other: B": show["other_B"]}).head(MAX_FLIPS)
        return Table(table, index=False, caption=head + shown)

    # ------------------------------------------------------------------ rank uncertainty, pairwise tests
    def rank_distribution_chart(self) -> Chart | Note:
        rd = self.table("rank_distribution")
        if rd.empty and self.meta.get("input") == "confusion matrices":
            # said once for the section: the p-value chart shows nothing in this case
            return Note("Rank distributions and pairwise tests are not available: they resample test items, and "
                        "this report was made from confusion matrices (see the overview).")
        if rd.empty:
            return Note("Rank distributions need item-level predictions and bootstrap resamples.")
        caption = f"Bootstrap distribution of each system's rank under {self._label(self.primary)}: P(rank = k)."
        top = print_systems(self.board_order)
        # printed (PDF): the first systems and the ranks they reach, at a legible size
        return Chart(charts.rank_distribution_chart(rd, measure=self.primary, order=self.board_order or None),
                     name="rank-distribution", caption=caption,
                     **print_first(top, lambda: charts.rank_distribution_chart(
                         rd[rd["system"].astype(str).isin(top or ())], measure=self.primary, order=top),
                         caption, total=len(self.board_order), ranked_by=self._label(self.primary),
                         table="rank_distribution.csv"))

    def pvalue_chart(self) -> Chart | Note | None:
        pw = self.table("pairwise")
        if pw.empty and self.meta.get("input") == "confusion matrices":
            return None     # the rank-distribution note of this section says why
        if pw.empty:
            return Note("Pairwise tests need item-level predictions, at least two systems and bootstrap resamples.")
        test = self.meta.get("pairwise_test", "bootstrap")
        floor = p_floor(pw, test)     # over every pair: Holm corrects over all of them
        words = self._test_name() if test == "bootstrap" else self.test_words.get(test, test)
        caption = (f"Holm-corrected p-values of the {words} test between every pair of systems under "
                   f"{self._label(self.primary)} (systems in leaderboard order).")
        board = self.table("leaderboard")
        if not board.empty and board["system"].nunique() > MAX_PVALUE_SYSTEMS:   # 200 systems: a 6 MB chart
            top = set(board.sort_values("rank", kind="stable")["system"].head(MAX_PVALUE_SYSTEMS))
            pw = pw[pw["system_a"].isin(top) & pw["system_b"].isin(top)]
            caption = (f"Holm-corrected p-values of the {words} test between the {MAX_PVALUE_SYSTEMS} "
                       f"best systems under {self._label(self.primary)} (of {board['system'].nunique()}, in "
                       "leaderboard order; every pair is in pairwise.csv).")
        shown = set(pw["system_a"].astype(str)) | set(pw["system_b"].astype(str))
        return Chart(charts.pvalue_heatmap(pw, measure=self.primary, test=test, column="p_holm",
                                           order=self.in_board_order(shown),
                                           alpha=self.meta.get("alpha", 0.05),
                                           floor=floor["holm"] if floor else None,
                                           floor_note=(f"smallest attainable: {floor['holm']:.3g} ({floor['B']:,} "
                                                       f"resamples, {floor['pairs']} pairs)") if floor else None,
                                           title=f"Pairwise differences under "
                                                 f"{charts.short_measure_label(self.primary)}: {words} test"),
                     name="pvalues", caption=caption)

    #: With many pairs the pairwise table shows the leader against every other system and each system
    #: against the next one, at most this many rows (the systems of the first places of the leaderboard).
    MAX_NEIGHBOUR_PAIRS = 60

    #: Each test of pairwise.csv in the words a reader sees (the ids stay in the CSV).
    test_words: dict[str, str] = {"bootstrap": "paired bootstrap", "randomization": "approximate randomisation",
                                  "mcnemar": "McNemar"}

    def pairwise_table(self) -> Table | Note | None:
        """Every pair of systems (or, with many, the leader against every other system and each system
        against the next one in the leaderboard) with the difference under the primary measure and the
        Holm-corrected p-value of each test of pairwise.csv.

        Returns
        -------
        Table, Note or None
            None without pairwise tests where the section's note says why already.
        """
        pw = self.table("pairwise")
        if pw.empty:   # from confusion matrices the section's one note already says why (rank_distribution_chart)
            return None if self.meta.get("input") not in ("runs", "patterns") else Note("No pairwise tests.")
        test = self.meta.get("pairwise_test", "bootstrap")
        floors = [f for f in (p_floor(pw, t) for t in dict.fromkeys([test, *pw["test"]])) if f]
        pw = pw[(pw["measure"] == self.primary) | (pw["test"] == "mcnemar")]   # McNemar: on accuracy
        # without a leaderboard: the order in which pairwise.csv first names the systems
        order = self.board_order or list(dict.fromkeys(pw[["system_a", "system_b"]].to_numpy().ravel()))
        wide = pw.pivot_table(index=["system_a", "system_b"], columns="test", values="p_holm", aggfunc="first")
        words = dict(self.test_words)
        if self._resampled() == "clusters":       # the tests swap and count whole clusters
            words.update(mcnemar="clustered McNemar", bootstrap=self._test_name())
        elif self._several_runs():
            words.update(bootstrap=self._test_name())
        wide.columns = [f"p ({words.get(t, t)}, Holm)" for t in wide.columns]
        diff = pw[pw["test"] != "mcnemar"].groupby(["system_a", "system_b"])["difference"].first()
        p_label = self._label(self.primary)
        wide.insert(0, "difference A - B", diff)
        wide = wide.reset_index().rename(columns={"system_a": "system A", "system_b": "system B"})
        wide, shown = self._pairs_shown(wide, order)
        mcnemar = pw.loc[pw["test"] == "mcnemar", "measure"]
        # McNemar counts the items one system gets right and the other wrong: accuracy, or exact match for sets
        on = "accuracy" if mcnemar.empty or mcnemar.iloc[0] == "accuracy" else self._label(mcnemar.iloc[0])
        caption = (f"{shown}: the difference under {p_label} and the Holm-corrected p-values of each paired test"
                   + ("" if mcnemar.empty else f" ({words['mcnemar']} test on {on}, as a cross-check)")   # none: several runs
                   + ". Raw and Benjamini-Hochberg p-values are in pairwise.csv.")
        caption += "".join(" " + p_floor_sentence(f, alpha=self.meta.get("alpha", 0.05)) for f in floors[:1])
        return Table(wide, index=False, caption=caption,
                     formats={c: p_value_text for c in wide.columns if c.startswith("p (")})

    def _pairs_shown(self, wide: pd.DataFrame, order: list[str]) -> tuple[pd.DataFrame, str]:
        """The rows of the pairwise table in leaderboard order (beyond :data:`MAX_PAIRS_ALL`, a subset)."""
        pos = {s: i for i, s in enumerate(order)}
        swap = (wide["system A"].map(pos) > wide["system B"].map(pos)).to_numpy()   # A: the better-ranked
        a, b = wide["system A"].copy(), wide["system B"].copy()
        wide["system A"], wide["system B"] = np.where(swap, b, a), np.where(swap, a, b)
        wide["difference A - B"] = np.where(swap, -wide["difference A - B"], wide["difference A - B"])
        first, second = wide["system A"].map(pos), wide["system B"].map(pos)
        wide = wide.assign(_a=first, _b=second).sort_values(["_a", "_b"], kind="stable")
        n_pairs = len(wide)
        if n_pairs <= MAX_PAIRS_ALL:
            return wide.drop(columns=["_a", "_b"]), "Every pair of systems, in leaderboard order (A the better-ranked)"
        keep = wide[(wide["_a"] == 0) | (wide["_b"] - wide["_a"] == 1)]
        # the leader's row against place p and the row (p - 1, p) for p below the limit: 2 * limit - 3 rows
        limit = (self.MAX_NEIGHBOUR_PAIRS + 3) // 2
        shown = keep[keep["_b"] < limit]
        within = (f"{len(shown):,} of the {n_pairs:,} pairs" if len(shown) == len(keep) else
                  f"the systems of the first {limit} places: {len(shown):,} of these {len(keep):,} pairs")
        return shown.drop(columns=["_a", "_b"]), (
            "The leader against every other system, and each system against the next one in the leaderboard "
            f"({within}, A ranked above B; every pair is in pairwise.csv and in the p-value chart)")
