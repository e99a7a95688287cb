"""Report sections 4-8 (report.ipynb): how far the ranking holds - agreement between measures,
prevalence calibration, per class, chance baselines and rank uncertainty."""
from __future__ import annotations

import numpy as np
import pandas as pd

from evalreport import charts
from evalreport.report.display import Chart, Note, Table
from evalreport.escape import markdown as escape
from evalreport.report.section_tables import (MAX_FLIPS, MAX_INCONSISTENT, MAX_PAIRS_ALL, MIN_SYSTEMS_AGREEMENT,
                                               NOISE_SE, baselines_wide,
                                               flips, p_floor, p_floor_sentence)
from evalreport.report.sections._core import MAX_CLASSES_CONFUSION, MAX_CLASSES_SHOWN, MAX_ROWS, ReportBase
from evalreport.report.sections.overview import code_span
from evalreport.words import counted

#: Above this many systems the p-value heatmap shows the best ones (all pairs stay in pairwise.csv).
MAX_PVALUE_SYSTEMS = 40


class RobustnessSections(ReportBase):
    """Agreement, calibration, per-class, chance-baseline and rank-uncertainty sections."""

    # ------------------------------------------------------------------ 4. agreement
    @property
    def _n_systems(self) -> int | None:
        """How many systems the report compares (None: no table says)."""
        if self.board_order:
            return len(self.board_order)
        scores = self.table("scores")
        return int(scores["system"].nunique()) if "system" in scores else None

    def _too_few_systems(self, what: str) -> str | None:
        """The sentence that replaces ``what`` below :data:`MIN_SYSTEMS_AGREEMENT` systems, else None."""
        n = self._n_systems
        if n is None or n >= MIN_SYSTEMS_AGREEMENT:
            return None
        pairs = n * (n - 1) // 2
        return (f"With {n} systems, {what} would rest on {pairs} pair{'s' if pairs != 1 else ''} of systems and could take only a "
                f"few values, so it is not shown (it needs at least {MIN_SYSTEMS_AGREEMENT} systems); the rank chart "
                "above shows each system's rank under every measure.")

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

    def identities_note(self) -> Note:
        ids = self.table("identities")
        if ids.empty:
            return Note("No two measures of this report are the same quantity or always rank systems alike "
                        "(checked on seeded samples of confusion matrices), so every correlation above is "
                        "a fact about these systems.")
        lines = []
        for relation, text in (("equal", "the same quantity"),
                               ("same order", "always rank systems alike (one is an increasing function of the other)")):
            groups = list(dict.fromkeys(ids.loc[ids["relation"] == relation, "members"]))
            if relation == "same order":   # an equal group is also same-order: name only what is new
                equal = set(ids.loc[ids["relation"] == "equal", "members"])
                groups = [g for g in groups if g not in equal]
            for g in groups:
                members = g.split(", ")
                # labels and ids of class-subset measures hold class names (data text): escaped
                lines.append(f"- {', '.join(escape(self._label(m)) for m in members)} — "
                             f"{', '.join(code_span(m) for m in members)}: {text}")
        return Note("Correlation 1 by construction. These measures of the report are related whatever the "
                    "systems (found by computing every measure on seeded samples of confusion matrices, "
                    "`identities.csv`; Hand et al. (2021) and Gösgens et al. (2021), section 5.1, discuss such pairs):\n\n"
                    + "\n".join(lines))

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
        rule = (f"A flip is larger than the noise when, under both measures, the paired bootstrap test of the two "
                f"systems' difference (the same resampled items for both), Holm-corrected over the two tests of "
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

    # ------------------------------------------------------------------ 5. calibration
    def calibration_chart(self) -> Chart:
        scores = self.table("scores")
        if self._calibration_changes_nothing(scores, "value"):
            return Note("Every class is equally frequent in the gold labels, so prevalence calibration changes no "
                        "value and no rank (the calibrated charts would repeat the raw ones).")
        measures = [m for m in self.measures if m in set(scores["measure"])] or list(dict.fromkeys(scores["measure"]))
        # a panel is as tall as the systems are many: fewer panels when there are many systems
        most = 12 if scores["system"].nunique() <= 10 else 6
        caption = ("Raw (grey) vs prevalence-calibrated (orange) value of every system: the confusion matrix "
                   "rescaled so that every class has the same prevalence (Opitz (2022), eq. 6).")
        if len(measures) > most:
            cc = self.table("calibration_correlation")
            change = (cc[cc["method"] == "spearman"].set_index("measure")["value"] if not cc.empty
                      else pd.Series(dtype=float))
            # the primary measure, then the measures whose ranking calibration changes most
            others = sorted((m for m in measures if m != self.primary), key=lambda m: change.get(m, 1.0))
            keep = {self.primary, *others[:most - 1]}
            measures = [m for m in measures if m in keep]
            caption += (f" {len(measures)} of {len(self.measures)} measures: {self._label(self.primary)} and those "
                        "whose ranking calibration changes most; all values are in scores.csv.")
        return Chart(charts.calibration_dumbbell(scores, measures=measures or None, systems=self.board_order or None),
                     name="calibration",
                     caption=caption)

    def calibration_table(self) -> Table | Note | None:
        cc = self.table("calibration_correlation")
        if cc.empty:
            return Note("No calibrated rankings were computed.")
        few = self._too_few_systems("the rank correlation of each measure with its prevalence-calibrated self")
        if few:
            return Note(few.replace("the rank chart above shows each system's rank under every measure",
                                    "the calibrated rank chart above shows the ranks"))
        if self._calibration_changes_nothing(self.table("scores"), "value"):
            return None    # calibration_chart's note says it (equal prevalence)
        wide = cc.pivot(index="measure", columns="method", values="value")
        order = [m for m in self.measures if m in wide.index] + [m for m in wide.index if m not in self.measures]
        wide = wide.reindex(order)
        unchanged = wide[(wide.fillna(0) >= 1 - 1e-12).all(axis=1)].index
        changed = wide.drop(index=unchanged)
        names = ", ".join(self._label(m) for m in unchanged)
        if changed.empty:
            return Note("Prevalence calibration (Opitz (2022), eq. 6) changes no measure's ranking of these systems.")
        changed = changed.sort_values(list(changed.columns)[:1], kind="stable")
        changed.index = [self._label(m) for m in changed.index]
        changed.index.name = "measure"
        changed.columns = [f"{c.capitalize()} correlation" for c in changed.columns]
        return Table(changed, caption="Rank correlation of each measure with its prevalence-calibrated self (as in "
                                      "Opitz (2022), Figure 2), lowest first: the measures whose ranking "
                                      "depends most on this test set's class distribution."
                                      + (f" Unchanged by calibration (correlation 1): {names}." if names else ""))

    def what_if_chart(self) -> Chart | Note:
        wi = self.table("what_if")
        if wi.empty:
            return Note("No prevalence scenarios were computed.")
        ranks = wi.assign(measure=wi["scenario"])[["system", "measure", "rank"]]
        scenarios = list(dict.fromkeys(wi["scenario"]))
        if len(scenarios) > 1 and (ranks.groupby("system")["rank"].nunique(dropna=False) == 1).all():
            return Note(f"Every system keeps its rank under {escape(self._label(self.primary))} in every class "
                        f"distribution tried ({', '.join(escape(s) for s in scenarios)}): this ranking does not "
                        "depend on the test set's class distribution. The values are in the table below.")
        chart = charts.rank_heatmap(ranks, title=f"{charts.short_measure_label(self.primary)}: rank under other "
                                                  "class distributions",
                                    measure_title="Class distribution", measure_labels=False,
                                    systems=self.board_order or None)
        return Chart(chart, name="what-if",
                     caption=f"Rank of every system under {self._label(self.primary)} when the confusion matrices are "
                             "rescaled to other class distributions (each class's error proportions kept): observed, "
                             "equal prevalence, the observed shares reversed (rare classes frequent), and any "
                             "scenario given with --what-if.")

    def what_if_table(self) -> Table | Note:
        wi = self.table("what_if")
        if wi.empty:
            return Note("No prevalence scenarios were computed.")
        scenarios = list(dict.fromkeys(wi["scenario"]))
        wide = wi.pivot(index="system", columns="scenario", values="value")[scenarios]
        ranks = wi.pivot(index="system", columns="scenario", values="rank")[scenarios]
        wide = wide.loc[ranks[scenarios[0]].sort_values(kind="stable").index]      # observed order
        caption = f"{self._label(self.primary)} under each class-distribution scenario, best observed first."
        if len(wide) > MAX_ROWS:
            moved = (ranks.max(axis=1) - ranks.min(axis=1)).reindex(wide.index)
            keep = moved.sort_values(ascending=False, kind="stable").index[:MAX_ROWS]
            n_moved = int((moved > 0).sum())
            wide = wide.loc[[s for s in wide.index if s in set(keep)]]
            caption += (f" The {len(wide)} systems whose rank moves most between scenarios ({n_moved} of "
                        f"{len(moved)} move at all); every system is in what_if.csv.")
        return Table(wide, caption=caption)

    # ------------------------------------------------------------------ 6. per class
    def per_class_chart(self) -> Chart | Note:
        pc = self.table("per_class")
        if pc.empty:
            return Note("No per-class values.")
        classes = list(dict.fromkeys(pc["class"].astype(str)))
        caption = "Recall, precision and F1 of every class for every system."
        if len(classes) > MAX_CLASSES_SHOWN:
            f1 = pc[pc["metric"] == "f1"]
            by_class = f1.groupby("class")["value"]
            spread = (by_class.max() - by_class.min()).fillna(0)    # (NaN skipped; a class of NaN only: 0)
            keep = spread.sort_values(ascending=False).index[:MAX_CLASSES_SHOWN]
            pc = pc[pc["class"].isin(keep)]
            caption += f" Only the {MAX_CLASSES_SHOWN} of {len(classes)} classes where the systems' F1 differ most."
        if pc["system"].nunique() > 12:     # three stacked heatmaps of many systems: a screen each; F1 only
            caption = caption.replace("Recall, precision and F1", "F1") + " Recall and precision are in per_class.csv."
            return Chart(charts.per_class_heatmap(pc, metrics=("f1",), title="Per-class F1",
                                                  systems=self.board_order or None), name="per-class", caption=caption)
        return Chart(charts.per_class_heatmap(pc, systems=self.board_order or None), name="per-class", caption=caption)

    def confusion_chart(self) -> Chart | Note:
        conf = self.table("confusion")
        n_classes = conf["gold"].nunique() if not conf.empty else 0
        if conf.empty or n_classes > MAX_CLASSES_CONFUSION:
            return Note(f"Confusion matrices are not drawn for {n_classes} classes; they are in confusion.csv.")
        caption = "Confusion matrices normalised per gold class (rows = gold, columns = predicted)."
        systems = self.in_board_order(conf["system"].astype(str)) if self.board_order else None
        if conf["system"].nunique() > 12 and self.board_order:   # 25 panels would be two pages: best 6, worst 3
            order = [s for s in self.board_order if s in set(conf["system"].astype(str))]
            systems = order[:6] + order[-3:]
            caption += (f" The 6 best and 3 worst of {len(order)} systems under {self._label(self.primary)}; every "
                        "matrix is in confusion.csv.")
        return Chart(charts.confusion_grid(conf, systems=systems), name="confusion", caption=caption)

    # ------------------------------------------------------------------ 7. chance baselines
    def baselines_table(self) -> Table | Note:
        base = self.table("baselines")
        if base.empty:
            return Note("No chance baselines were computed.")
        wide, flags = baselines_wide(base, self.measures)
        reasons = pd.DataFrame("undefined for this baseline (0/0); see baselines.csv", index=wide.index,
                               columns=wide.columns)
        return Table(wide, undefined=flags if flags.any().any() else None, reasons=reasons,
                     caption="What a system with no skill scores under each measure (↑ higher is better, ↓ lower): "
                             + ("the constant-class predictors (the lowest and highest over the classes), "
                                if base["baseline"].astype(str).str.startswith("constant:").any() else
                                "the trivial predictors, ")
                             + "the majority class, and the expected value under named random-classifier models "
                             "(exact where the measure is linear in the cells, else enumerated or Monte Carlo). Every "
                             "predictor, with "
                             "the method and standard error, is in baselines.csv.")

    # ------------------------------------------------------------------ 8. rank uncertainty
    def rank_distribution_chart(self) -> Chart | Note:
        rd = self.table("rank_distribution")
        if rd.empty and self.meta.get("input") == "confusion matrices":
            # said once for the section: the p-value chart shows nothing in this case
            return Note("Rank distributions and pairwise tests are not available: they resample test items, and "
                        "this report was made from confusion matrices (see the overview).")
        if rd.empty:
            return Note("Rank distributions need item-level predictions and bootstrap resamples.")
        return Chart(charts.rank_distribution_chart(rd, measure=self.primary, order=self.board_order or None),
                     name="rank-distribution",
                     caption=f"Bootstrap distribution of each system's rank under {self._label(self.primary)}: "
                             "P(rank = k).")

    def pvalue_chart(self) -> Chart | Note | None:
        pw = self.table("pairwise")
        if pw.empty and self.meta.get("input") == "confusion matrices":
            return None     # the rank-distribution note of this section says why
        if pw.empty:
            return Note("Pairwise tests need item-level predictions, at least two systems and bootstrap resamples.")
        test = self.meta.get("pairwise_test", "bootstrap")
        floor = p_floor(pw, test)     # over every pair: Holm corrects over all of them
        caption = (f"Holm-corrected p-values of the paired {test} test between every pair of systems under "
                   f"{self._label(self.primary)}.")
        board = self.table("leaderboard")
        if not board.empty and board["system"].nunique() > MAX_PVALUE_SYSTEMS:   # 200 systems: a 6 MB chart
            top = set(board.sort_values("rank", kind="stable")["system"].head(MAX_PVALUE_SYSTEMS))
            pw = pw[pw["system_a"].isin(top) & pw["system_b"].isin(top)]
            caption = (f"Holm-corrected p-values of the paired {test} test between the {MAX_PVALUE_SYSTEMS} "
                       f"best systems under {self._label(self.primary)} (of {board['system'].nunique()}; every "
                       "pair is in pairwise.csv).")
        shown = set(pw["system_a"].astype(str)) | set(pw["system_b"].astype(str))
        return Chart(charts.pvalue_heatmap(pw, measure=self.primary, test=test, column="p_holm",
                                           order=self.in_board_order(shown),
                                           alpha=self.meta.get("alpha", 0.05),
                                           floor=floor["holm"] if floor else None,
                                           floor_note=(f"smallest attainable: {floor['holm']:.3g} ({floor['B']:,} "
                                                       f"resamples, {floor['pairs']} pairs)") if floor else None),
                     name="pvalues", caption=caption)

    #: With many systems the pairwise table shows each system against the next one, at most this many rows.
    MAX_NEIGHBOUR_PAIRS = 60

    def pairwise_table(self) -> Table | Note | None:
        pw = self.table("pairwise")
        if pw.empty:   # from confusion matrices the section's one note already says why (rank_distribution_chart)
            return None if self.meta.get("input") not in ("runs", "patterns") else Note("No pairwise tests.")
        test = self.meta.get("pairwise_test", "bootstrap")
        floors = [f for f in (p_floor(pw, t) for t in dict.fromkeys([test, *pw["test"]])) if f]
        pw = pw[(pw["measure"] == self.primary) | (pw["test"] == "mcnemar")]   # McNemar: on accuracy
        wide = pw.pivot_table(index=["system_a", "system_b"], columns="test", values="p_holm", aggfunc="first")
        wide.columns = [f"p ({t}, Holm)" for t in wide.columns]
        diff = pw[pw["test"] != "mcnemar"].groupby(["system_a", "system_b"])["difference"].first()
        p_label = self._label(self.primary)
        wide.insert(0, "difference A - B", diff)
        wide = wide.reset_index().rename(columns={"system_a": "system A", "system_b": "system B"})
        n_pairs = len(wide)
        shown = "Every pair of systems, in leaderboard order (A the better-ranked)"
        order = self.board_order or list(dict.fromkeys(wide["system A"]))
        pos = {s: i for i, s in enumerate(order)}
        swap = (wide["system A"].map(pos) > wide["system B"].map(pos)).to_numpy()   # A: the better-ranked
        a, b = wide["system A"].copy(), wide["system B"].copy()
        wide["system A"], wide["system B"] = np.where(swap, b, a), np.where(swap, a, b)
        wide["difference A - B"] = np.where(swap, -wide["difference A - B"], wide["difference A - B"])
        wide = wide.assign(_a=wide["system A"].map(pos), _b=wide["system B"].map(pos)) \
            .sort_values(["_a", "_b"], kind="stable").drop(columns=["_a", "_b"])
        if n_pairs > MAX_PAIRS_ALL:
            nxt = {a: b for a, b in zip(order, order[1:])}
            keep = [nxt.get(a) == b for a, b in zip(wide["system A"], wide["system B"])]
            wide = wide[keep]
            n_next = len(wide)
            wide = wide.head(self.MAX_NEIGHBOUR_PAIRS)
            shown = ("Each system and the next one in the leaderboard ("
                     + (f"the first {len(wide):,} of these {n_next:,} pairs; " if n_next > len(wide) else
                        f"{len(wide):,} of the {n_pairs:,} pairs; ")
                     + "every pair is in pairwise.csv and in the p-value chart)")
        caption = (f"{shown}: the difference under {p_label} and the Holm-corrected p-values of each paired test "
                   "(McNemar's test is on accuracy, as a cross-check). Raw and Benjamini-Hochberg p-values are in "
                   "pairwise.csv.")
        caption += "".join(" " + p_floor_sentence(f, alpha=self.meta.get("alpha", 0.05)) for f in floors[:1])
        return Table(wide, index=False, caption=caption)
