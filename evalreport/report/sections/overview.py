"""Report sections 0-3 (report.ipynb): findings, overview, leaderboard and every measure."""
from __future__ import annotations

from pathlib import PurePath

import pandas as pd

from evalreport import charts
from evalreport.analyses.letters import letters_sentence, range_sentence
from evalreport.analyses.rank_intervals import rank_interval_sentence
from evalreport.escape import markdown as escape
from evalreport.measures import get
from evalreport.report.display import Chart, Note, Table
from evalreport.report.sections._core import MAX_CLASSES_SHOWN, MAX_ROWS, ReportBase, leaderboard_columns, wide_scores


class OverviewSections(ReportBase):
    """The single-label overview, leaderboard table and the table of every measure."""

    # ------------------------------------------------------------------ 1. overview
    def overview(self) -> Note:
        m = self.meta
        lines = [
            f"**{m.get('n_items', '?'):,} items**, **{m.get('n_classes', '?')} classes**"
            + (f" (and {m['n_prediction_only']} label(s) found only in predictions, counted as wrong)"
               if m.get("n_prediction_only") else "") + ", "
            f"**{m.get('n_systems', '?')} systems**. Primary measure: **{escape(self._label(self.primary))}** "
            f"({code_span(self.primary)}).",
        ]
        unit = {"clusters": "whole clusters"}.get(self._resampled(), self._resampled())
        if m.get("bootstrap"):
            how = (f"{self._test_name()} resamples" if self._several_runs() else
                   f"paired bootstrap resamples over {unit}")
            if self._resampled() == "runs and clusters":      # the design in words: both levels
                how += " (clustered items, several runs per system)"
            lines.append(f"Uncertainty: {m['bootstrap']:,} {how}, seed "
                         f"{m.get('seed')}; intervals are {100 * (1 - m.get('alpha', 0.05)):g}% percentile intervals.")
        if m.get("positive"):
            lines.append(f"Positive class for binary measures: **{escape(m['positive'])}**.")   # a name from the data
        if m.get("folds"):
            lines.append(f"Cross-validation folds: {m['folds']} (see the cross-validation section).")
        for note in self.manifest.get("notes", []):
            # intervals: said above; confusion-matrix input: the findings say what it cannot tell
            if not note.startswith(("intervals:", "confusion-matrix input")):
                lines.append(f"Note: {escape(self._file_names(note))}.")   # notes quote class names from the data
        return Note("\n\n".join(lines))

    def _file_names(self, text: str) -> str:
        """``text`` with every input file's path cut to its name."""
        inputs = self.table("inputs")
        if "path" not in inputs:
            return text
        for path in sorted({str(p) for p in inputs["path"].dropna()}, key=len, reverse=True):
            text = text.replace(path, PurePath(path).name) if path else text
        return text

    def prevalence_chart(self) -> Chart | Note:
        prev = self.table("prevalence")
        present = prev[prev["count"] > 0]
        if len(prev) > MAX_CLASSES_SHOWN and present["count"].nunique() == 1:
            return Note(f"All {len(present):,} classes present in the gold labels have {int(present['count'].iloc[0]):,} "
                        "items each (a balanced test set)"
                        + (f"; {len(prev) - len(present):,} listed classes have none." if len(present) < len(prev)
                           else "."))
        caption = "Share of each class in the gold labels."
        whole = prev
        if len(prev) > MAX_CLASSES_SHOWN:     # 1,000 bars would be a 14,000-pixel chart
            half = MAX_CLASSES_SHOWN // 2
            order = prev.sort_values("count", ascending=False, kind="stable")
            prev = pd.concat([order.head(half), order.tail(half)])
            caption += (f" Only the {half} largest and {half} smallest of {len(order):,} classes; every class is in "
                        "prevalence.csv.")
        return Chart(charts.prevalence_bar(prev, whole=whole), name="prevalence", caption=caption)

    # ------------------------------------------------------------------ 2. leaderboard
    def leaderboard_table(self) -> Table:
        board = self.table("leaderboard")
        undefined = board["value"].isna()
        p_label = self._label(self.primary)
        show, has_letters, ranks = leaderboard_columns(board, p_label, calibrated="rank_calibrated" in board
                                                      and board["rank_calibrated"].notna().any())
        shown = [what for column, what in (
            ("interval", "bootstrap interval"), ("P(best)", "probability of being best"),
            ("letters", "significance letters"),
            ("rank (calibrated)", "the rank after prevalence calibration"),
            ("rank interval", "the simultaneous rank interval")) if column in show]
        caption = (f"Leaderboard under {p_label}" + (": " + ", ".join(shown[:-1]) + (" and " if len(shown) > 1 else "")
                                                     + shown[-1] if shown else "") + ".")
        if has_letters:
            caption += " " + letters_sentence(self._test_name(), self.meta.get("alpha", 0.05))
            caption += range_sentence(board["letters"])
        if (board["rank"] % 1 != 0).any():
            caption += " Tied systems share the mean of their ranks (e.g. 1.5)."
        if "rank interval" in show:
            caption += " " + rank_interval_sentence(self._test_name(), self.meta.get("alpha", 0.05))
        settings = self.manifest.get("settings", {})
        if "interval" in show and settings.get("bootstrap_missing_class"):
            from evalreport.analyses.resampling import lost_classes_sentence

            caption += " " + lost_classes_sentence(settings.get("bootstrap_class_absent", {}),
                                                   settings["bootstrap_missing_class"], int(settings["bootstrap"]))
        if "interval" in show and settings.get("bootstrap_strata") == "gold":
            caption += (" Items were resampled within each gold class (stratified bootstrap): every resample keeps "
                        "the class sizes, so the intervals leave out the variation of the class proportions.")
        flags = reasons = None
        if undefined.any():
            scores = self.table("scores")
            why = scores[(scores["measure"] == self.primary) & ~scores["calibrated"]].set_index("system")["reason"]
            flags = pd.DataFrame({p_label: undefined}, index=show.index)
            reasons = pd.DataFrame({p_label: board["system"].map(why).fillna("")}, index=show.index)
            caption += (" A system whose value is undefined is ranked last and has no letter: no "
                        "test can compare an undefined value.")
        # in HTML the interactive leaderboard (every measure) comes first; the PDF keeps this static table
        from evalreport.report.leaderboard_page import InteractiveTable, report_component

        return InteractiveTable(show, formats=ranks, index=False, caption=caption, undefined=flags, reasons=reasons,
                                component=report_component(self.folder))

    def design_note(self) -> Note | None:
        """Under the leaderboard, a clustered test set's design in words: the clusters, the design effect
        and a warning when they are few (:func:`evalreport.analyses.clusters.design_sentence`); None
        without clusters."""
        design = self.table("design")
        if design.empty or "design_effect" not in design:
            return None
        from evalreport.analyses.clusters import FEW_CLUSTERS, design_sentence

        few = int(design["n_clusters"].iloc[0]) < FEW_CLUSTERS
        return Note(design_sentence(design, quote=escape, label=self._label(self.primary),
                                    one_run=self._several_runs()) + " Every system's "
                    "design effect is in design.csv.", kind="warning" if few else "note")

    # ------------------------------------------------------------------ 3. every measure
    def scores_table(self, *, calibrated: bool = False) -> Table:
        scores = self.table("scores")
        scores = scores[scores["calibrated"] == calibrated]
        # the primary measure first, whatever its kind (score-based rows come after the confusion ones)
        order = dict.fromkeys([self.primary] * (self.primary in set(scores["measure"])) + list(scores["measure"]))
        values, mark, reasons = wide_scores(scores, order, self.in_board_order(scores["system"]))
        values.index = [f"{self._label(m)} ({'↑' if get(m).higher_is_better else '↓'})" for m in values.index]
        values.index.name = "measure"
        mark.index = reasons.index = values.index
        after = " after prevalence calibration" if calibrated else ""
        rest = ". Undefined (0/0) cells are marked and the reason is given; the measures' ids and definitions are in " \
               "the appendix."
        if self._several_runs():
            rest = "; each value is the mean over the system's runs (every run's value is in runs.csv)" + rest
        if values.shape[1] > max(values.shape[0], MAX_SYSTEM_COLUMNS):
            # more systems than measures: a column per system would not fit the page, a row per system does
            values, mark, reasons = values.T, mark.T, reasons.T
            values.index.name = "system"
            return Table(values, undefined=mark, reasons=reasons,
                         caption=f"Every system (rows, in leaderboard order) under every measure (columns; ↑ higher is "
                                 f"better, ↓ lower is better){after}" + rest)
        return Table(values, undefined=mark, reasons=reasons,
                     caption=f"Every measure (rows; ↑ higher is better, ↓ lower is better) for every system (columns, in "
                             f"leaderboard order){after}" + rest)

    def undefined_table(self) -> Table | Note:
        scores = self.table("scores")
        flagged = scores[(scores["reason"] != "") & ~scores["calibrated"]]
        if flagged.empty:
            return Note("No measure hit an undefined (0/0) case on these systems.")
        show = pd.DataFrame({"system": flagged["system"], "measure": flagged["measure"].map(self._label),
                             "value": flagged["value"], "reason": flagged["reason"]})
        shown = (f" First {MAX_ROWS} of {len(show):,}; all in scores.csv (column reason)."
                 if len(show) > MAX_ROWS else "")
        return Table(show.head(MAX_ROWS), index=False,
                     caption="Every 0/0 case met while computing the measures, named (no value: the measure is "
                             "undefined; a number: the case was inside an average and skipped or replaced as the "
                             "policy says)." + shown)




#: Above this many systems, and more systems than measures, the every-measure table has a row per system.
MAX_SYSTEM_COLUMNS = 12


def code_span(text: str) -> str:
    """``text`` as a Markdown code span, or escaped text where it holds a backtick (the id of a
    class-subset measure holds class names: data text)."""
    return f"`{text}`" if text and "`" not in text and text.strip() == text else escape(text)
