"""Report sections 4-8 (report.ipynb): how far the ranking holds - agreement between measures,
prevalence calibration, per class, chance baselines and rank uncertainty."""
from __future__ import annotations

import pandas as pd

from evalreport import charts
from evalreport.escape import markdown as escape
from evalreport.report.display import Chart, Note, Table
from evalreport.report.section_tables import baselines_wide
from evalreport.report.sections._core import MAX_CLASSES_CONFUSION, MAX_CLASSES_SHOWN, MAX_ROWS, ReportBase
from evalreport.report.sections.many_systems import print_first, print_systems
from evalreport.report.sections.overview import code_span

#: The most system rows the printed raw-vs-calibrated chart stacks (its panels of every measure together).
PRINT_PANEL_ROWS = 80


class RobustnessSections(ReportBase):
    """Agreement, calibration, per-class, chance-baseline and rank-uncertainty sections."""

    # ------------------------------------------------------------------ 4. agreement (the rest: .common)

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

    # ------------------------------------------------------------------ 5. calibration
    def calibration_chart(self) -> Chart | Note:
        scores = self.table("scores")
        if self._calibration_changes_nothing(scores, "value"):
            return Note("Every class is equally frequent in the gold labels, so prevalence calibration changes no "
                        "value and no rank (the calibrated charts would repeat the raw ones).")
        # the measures with a calibrated value (score-based measures have none)
        has = set(scores.loc[scores["calibrated"].astype(str).str.lower().isin(("true", "1")), "measure"]) \
            if "calibrated" in scores else set(scores["measure"])
        measures = ([m for m in self.measures if m in has] or [m for m in self.measures if m in set(scores["measure"])]
                    or list(dict.fromkeys(scores["measure"])))
        n_candidates = len(measures)
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
            moved = any(change.get(m, 1.0) < 1.0 for m in others)
            caption += (f" {len(measures)} of the {n_candidates} measures with a calibrated value: "
                        f"{self._label(self.primary)} and "
                        + ("those whose ranking calibration changes most" if moved else
                           "the next in the catalogue's order (calibration changes no measure's ranking)")
                        + "; all values are in scores.csv.")
        # printed (PDF): stacked panels of every system overflow a page; the first systems, so that the
        # panels hold at most PRINT_PANEL_ROWS rows (about two panels side by side)
        panel_rows = -(-len(measures or [None]) // 2)
        top = print_systems(self.board_order, limit=max(10, PRINT_PANEL_ROWS // panel_rows))
        return Chart(charts.calibration_dumbbell(scores, measures=measures or None, systems=self.board_order or None),
                     name="calibration", caption=caption,
                     **print_first(top, lambda: charts.calibration_dumbbell(
                         scores[scores["system"].astype(str).isin(top or ())], measures=measures or None, systems=top),
                         caption, total=len(self.board_order), ranked_by=self._label(self.primary),
                         table="scores.csv"))

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
            from evalreport.measures.scores import is_score_measure

            if is_score_measure(self.primary):      # the scenarios rescale confusion matrices
                return Note(f"No class-distribution scenarios: {escape(self._label(self.primary))} is computed from "
                            "the systems' scores, and the scenarios rescale confusion matrices.")
            return Note("No prevalence scenarios were computed.")
        ranks = wi.assign(measure=wi["scenario"])[["system", "measure", "rank"]]
        scenarios = list(dict.fromkeys(wi["scenario"]))
        if len(scenarios) > 1 and (ranks.groupby("system")["rank"].nunique(dropna=False) == 1).all():
            return Note(f"Every system keeps its rank under {escape(self._label(self.primary))} in every class "
                        f"distribution tried ({', '.join(escape(s) for s in scenarios)}): this ranking does not "
                        "depend on the test set's class distribution. The values are in the table below.")
        from evalreport.charts.heatmaps import worst_rank

        worst = worst_rank(ranks)          # printed, some systems: the colours of the whole table's ranks

        def draw(systems: list[str] | None) -> object:
            shown = ranks if systems is None else ranks[ranks["system"].astype(str).isin(systems)]
            return charts.rank_heatmap(shown, title=f"{charts.short_measure_label(self.primary)}: rank under other "
                                                    "class distributions",
                                       measure_title="Class distribution", measure_labels=False,
                                       systems=systems or self.board_order or None, worst=worst)

        caption = (f"Rank of every system under {self._label(self.primary)} when the confusion matrices are "
                   "rescaled to other class distributions (each class's error proportions kept): observed, "
                   "equal prevalence, the observed shares reversed (rare classes frequent), and any "
                   "scenario given with --what-if.")
        top = print_systems(self.board_order)
        return Chart(draw(None), name="what-if", caption=caption,
                     **print_first(top, lambda: draw(top), caption, total=len(self.board_order),
                                   ranked_by=self._label(self.primary), table="what_if.csv"))

    def what_if_table(self) -> Table | None:
        wi = self.table("what_if")
        if wi.empty:
            return None         # the chart's note says why
        scenarios = list(dict.fromkeys(wi["scenario"]))
        wide = wi.pivot(index="system", columns="scenario", values="value")[scenarios]
        ranks = wi.pivot(index="system", columns="scenario", values="rank")[scenarios]
        wide = wide.loc[ranks[scenarios[0]].sort_values(kind="stable").index]      # observed order
        caption = f"{self._label(self.primary)} under each class-distribution scenario, best observed first."
        if self._runs_words():
            # the scenarios rescale one confusion matrix per system: the mean of its runs' counts, whose value is
            # not the mean of the runs' values that the leaderboard shows
            caption += (" Each system's counts are averaged over its runs first, so its observed value can differ "
                        "slightly from the leaderboard's mean over runs.")
        if len(wide) > MAX_ROWS:
            moved = (ranks.max(axis=1) - ranks.min(axis=1)).reindex(wide.index)
            n_moved = int((moved > 0).sum())
            # the systems whose rank moves (most first); none moving: the best observed
            keep = (moved[moved > 0].sort_values(ascending=False, kind="stable").index[:MAX_ROWS] if n_moved
                    else wide.index[:MAX_ROWS])
            wide = wide.loc[[s for s in wide.index if s in set(keep)]]
            caption += ((f" The {len(wide)} systems whose rank moves most between scenarios ({n_moved} of "
                         f"{len(moved)} move at all)" if n_moved > len(wide) else
                         f" The {n_moved} of {len(moved)} systems whose rank moves between scenarios" if n_moved else
                         f" The first {len(wide)} of {len(moved)} systems (no rank moves between scenarios)")
                        + "; every system is in what_if.csv.")
        return Table(wide, caption=caption)

    # ------------------------------------------------------------------ 6. per class
    def per_class_chart(self) -> Chart | Note:
        pc = self.table("per_class")
        if pc.empty:
            return Note("No per-class values.")
        classes = list(dict.fromkeys(pc["class"].astype(str)))
        caption = "Recall, precision and F1 of every class for every system" + self._runs_words() + "."
        if len(classes) > MAX_CLASSES_SHOWN:
            f1 = pc[pc["metric"] == "f1"]
            by_class = f1.groupby("class")["value"]
            spread = (by_class.max() - by_class.min()).fillna(0)    # (NaN skipped; a class of NaN only: 0)
            keep = spread.sort_values(ascending=False).index[:MAX_CLASSES_SHOWN]
            pc = pc[pc["class"].isin(keep)]
            caption += f" Only the {MAX_CLASSES_SHOWN} of {len(classes)} classes where the systems' F1 differ most."
        if pc["system"].nunique() > 12:     # three stacked heatmaps of many systems: a screen each; F1 only
            caption = caption.replace("Recall, precision and F1", "F1") + " Recall and precision are in per_class.csv."
            top = print_systems(self.board_order)
            # printed (PDF): the first systems at a legible row height, as the other heatmaps of systems
            return Chart(charts.per_class_heatmap(pc, metrics=("f1",), title="Per-class F1",
                                                  systems=self.board_order or None), name="per-class", caption=caption,
                         **print_first(top, lambda: charts.per_class_heatmap(
                             pc[pc["system"].astype(str).isin(top or ())], metrics=("f1",), title="Per-class F1",
                             systems=top), caption, total=len(self.board_order), ranked_by=self._label(self.primary),
                             table="per_class.csv"))
        return Chart(charts.per_class_heatmap(pc, systems=self.board_order or None), name="per-class", caption=caption)

    def confusion_chart(self) -> Chart | Note:
        conf = self.table("confusion")
        gold = self.table("prevalence")
        if not conf.empty and "class" in gold:      # a class only in predictions has no gold row to normalise
            conf = conf[conf["gold"].astype(str).isin(set(gold["class"].astype(str)))]
        n_classes = conf["gold"].nunique() if not conf.empty else 0
        if conf.empty or n_classes > MAX_CLASSES_CONFUSION:
            return Note(f"Confusion matrices are not drawn for {n_classes} classes; they are in confusion.csv.")
        caption = "Confusion matrices normalised per gold class (rows = gold, columns = predicted)" \
            + self._runs_words() + "."
        systems = self.in_board_order(conf["system"].astype(str)) if self.board_order else None
        if conf["system"].nunique() > 12 and self.board_order:   # 25 panels would be two pages: best 6, worst 3
            order = [s for s in self.board_order if s in set(conf["system"].astype(str))]
            systems = order[:6] + order[-3:]
            caption += (f" The 6 best and 3 worst of {len(order)} systems under {self._label(self.primary)}; every "
                        "matrix is in confusion.csv.")
        return Chart(charts.confusion_grid(conf, systems=systems), name="confusion", caption=caption)

    def _runs_words(self) -> str:
        """With several runs per system, what a per-class value is; else nothing."""
        return "; counts averaged over each system's runs" if self._several_runs() else ""

    # ------------------------------------------------------------------ 7. chance baselines
    def _baselines_not_computed(self, base: pd.DataFrame, reasons: pd.DataFrame) -> pd.DataFrame:
        """The reasons of a baseline never computed for a measure saying so instead of 0/0."""
        from evalreport.report.section_tables import BASELINE_WORDS

        ids = [m for m in self.measures if m in set(base["measure"])] or list(dict.fromkeys(base["measure"]))
        if len(ids) != len(reasons.index):
            return reasons
        words = {v: k for k, v in BASELINE_WORDS.items()}
        present = set(zip(base["measure"].astype(str), base["baseline"].astype(str)))
        out = reasons.copy()
        for column in out.columns:
            if column.startswith("constant class"):
                continue
            b = words.get(column, column)
            for row, m in zip(out.index, ids):
                if (m, b) not in present:
                    out.loc[row, column] = "not computed: this baseline applies to other measures (scores or labels)"
        return out

    def baselines_table(self) -> Table | Note:
        base = self.table("baselines")
        if base.empty:
            return Note("No chance baselines were computed.")
        wide, flags = baselines_wide(base, self.measures)
        reasons = pd.DataFrame("undefined for this baseline (0/0); see baselines.csv", index=wide.index,
                               columns=wide.columns)
        reasons = self._baselines_not_computed(base, reasons)
        return Table(wide, undefined=flags if flags.any().any() else None, reasons=reasons,
                     caption="What a system with no skill scores under each measure (↑ higher is better, ↓ lower): "
                             + ("the constant-class predictors (the lowest and highest over the classes), "
                                if base["baseline"].astype(str).str.startswith("constant:").any() else
                                "the trivial predictors, ")
                             + "the majority class, and the expected value under named random-classifier models "
                             "(exact where the measure is linear in the cells, else enumerated or Monte Carlo). Every "
                             "predictor, with "
                             "the method and standard error, is in baselines.csv.")

