"""Report sections 0-3 (report.ipynb): findings, overview, leaderboard and every measure."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from evalreport import charts
from evalreport.analyses.letters import letters_sentence
from evalreport.measures import get
from evalreport.report.display import Chart, Note, Table
from evalreport.report.section_tables import BASELINE_CHART_WORDS, integer_ranks
from evalreport.report.sections._core import MAX_CLASSES_SHOWN, MAX_ROWS, ReportBase, wide_scores
from evalreport.escape import markdown as escape


class OverviewSections(ReportBase):
    """Findings, overview, leaderboard and the table of every measure."""

    # ------------------------------------------------------------------ 0. findings
    def findings(self) -> Note:
        """The opening findings block, made from findings.csv only (:mod:`evalreport.report.summary`)."""
        from evalreport.report.summary import findings_note

        return findings_note(self.table("findings"), primary=self.primary, alpha=self.meta.get("alpha", 0.05),
                             n_items=self.meta.get("n_items"))

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
        if m.get("bootstrap"):
            lines.append(f"Uncertainty: {m['bootstrap']:,} paired bootstrap resamples over items, seed "
                         f"{m.get('seed')}; intervals are {100 * (1 - m.get('alpha', 0.05)):g}% percentile intervals.")
        if m.get("positive"):
            lines.append(f"Positive class for binary measures: **{escape(m['positive'])}**.")   # a name from the data
        if m.get("folds"):
            lines.append(f"Cross-validation folds: {m['folds']} (see the cross-validation section).")
        for note in self.manifest.get("notes", []):
            # intervals: said above; confusion-matrix input: the findings say what it cannot tell
            if not note.startswith(("intervals:", "confusion-matrix input")):
                lines.append(f"Note: {escape(note)}.")   # notes quote class names from the data
        return Note("\n\n".join(lines))

    def prevalence_chart(self) -> Chart | Note:
        prev = self.table("prevalence")
        present = prev[prev["count"] > 0]
        if len(prev) > MAX_CLASSES_SHOWN and present["count"].nunique() == 1:
            return Note(f"All {len(present):,} classes present in the gold labels have {int(present['count'].iloc[0]):,} "
                        "items each (a balanced test set)"
                        + (f"; {len(prev) - len(present):,} listed classes have none." if len(present) < len(prev)
                           else "."))
        caption = "Share of each class in the gold labels."
        if len(prev) > MAX_CLASSES_SHOWN:     # 1,000 bars would be a 14,000-pixel chart
            half = MAX_CLASSES_SHOWN // 2
            order = prev.sort_values("count", ascending=False, kind="stable")
            prev = pd.concat([order.head(half), order.tail(half)])
            caption += (f" Only the {half} largest and {half} smallest of {len(order):,} classes; every class is in "
                        "prevalence.csv.")
        return Chart(charts.prevalence_bar(prev), name="prevalence", caption=caption)

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

    # ------------------------------------------------------------------ 2. leaderboard
    def leaderboard_table(self) -> Table:
        board = self.table("leaderboard")
        undefined = board["value"].isna()
        p_label = self._label(self.primary)
        show = pd.DataFrame({"rank": integer_ranks(board["rank"]), "system": board["system"], p_label: board["value"]})
        if board["lo"].notna().any():
            show["interval"] = ["—" if pd.isna(lo) else f"[{lo:.3f}, {hi:.3f}]" for lo, hi in zip(board["lo"], board["hi"])]
        if "p_best" in board and board["p_best"].notna().any():
            show["P(best)"] = board["p_best"]
        has_letters = "letters" in board and board["letters"].map(lambda v: isinstance(v, str) and v != "").any()
        if has_letters:
            show["letters"] = board["letters"].map(lambda v: "—" if pd.isna(v) or v == "" else str(v))
        if "rank_calibrated" in board:
            show["rank (calibrated)"] = integer_ranks(board["rank_calibrated"])
        ranks = {c: (lambda r: "" if pd.isna(r) else f"{r:g}") for c in ("rank", "rank (calibrated)") if c in show}
        shown = [what for column, what in (
            ("interval", "bootstrap interval"), ("P(best)", "probability of being best"),
            ("letters", "significance letters"),
            ("rank (calibrated)", "the rank after prevalence calibration")) if column in show]
        caption = (f"Leaderboard under {p_label}" + (": " + ", ".join(shown[:-1]) + (" and " if len(shown) > 1 else "")
                                                     + shown[-1] if shown else "") + ".")
        if has_letters:
            caption += " " + letters_sentence(self.meta.get("pairwise_test", "bootstrap"), self.meta.get("alpha", 0.05))
        if (board["rank"] % 1 != 0).any():
            caption += " Tied systems share the mean of their ranks (e.g. 1.5)."
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
        return Table(show, formats=ranks, index=False, caption=caption, undefined=flags, reasons=reasons)

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
                                             baseline_names=BASELINE_CHART_WORDS)
        intervals = "with bootstrap intervals" if iv["lo"].notna().any() else "(no intervals: see the overview)"
        letters = "" if groups.empty or "letters" not in groups else (
            " Colour: the significance letters. " + letters_sentence(self.meta.get("pairwise_test", "bootstrap"),
                                                                     self.meta.get("alpha", 0.05)))
        return Chart(chart, name="leaderboard",
                     caption=f"Systems under {self._label(self.primary)} {intervals}. What trivial or random "
                             "systems score (chance baselines) is drawn as dashed lines when near the systems, "
                             "always including the one the findings call the strongest (marked \"strongest\"); the "
                             "axis is zoomed to the systems, and a baseline far from them is named in the chart's "
                             "subtitle instead." + letters)

    # ------------------------------------------------------------------ 3. every measure
    def scores_table(self, *, calibrated: bool = False) -> Table:
        scores = self.table("scores")
        scores = scores[scores["calibrated"] == calibrated]
        values, mark, reasons = wide_scores(scores, dict.fromkeys(scores["measure"]), self.in_board_order(scores["system"]))
        values.index = [f"{self._label(m)} ({'↑' if get(m).higher_is_better else '↓'})" for m in values.index]
        values.index.name = "measure"
        mark.index = reasons.index = values.index
        after = " after prevalence calibration" if calibrated else ""
        rest = ". Undefined (0/0) cells are marked and the reason is given; the measures' ids and definitions are in " \
               "the appendix."
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

    def rank_heatmap(self, *, calibrated: bool = False) -> Chart | Note | None:
        ranks = self.table("ranks")
        if calibrated and self._calibration_changes_nothing(ranks, "rank"):
            if self._calibration_changes_nothing(self.table("scores"), "value"):
                return None   # a balanced test set: the calibration chart's note says so already
            return Note("Prevalence calibration changes no system's rank under any measure: the calibrated ranks "
                        "are those of the rank chart above.")
        return Chart(charts.rank_heatmap(ranks, calibrated=calibrated, systems=self.board_order or None),
                     name="ranks-calibrated" if calibrated else "ranks",
                     caption="Rank of every system under every measure (1 = best)"
                             + (" after prevalence calibration." if calibrated else ".")
                             + self._undefined_ranks_sentence(ranks, calibrated))

    def _undefined_ranks_sentence(self, ranks: pd.DataFrame, calibrated: bool) -> str:
        """Which cells of the rank chart hold an undefined (0/0) value, ranked last only to give it a
        place: no comparison between measures uses that place (pairs with it are not comparable)."""
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


#: Above this many systems, and more systems than measures, the every-measure table has a row per system.
MAX_SYSTEM_COLUMNS = 12


def code_span(text: str) -> str:
    """``text`` as a Markdown code span, or escaped text where it holds a backtick (the id of a
    class-subset measure holds class names: data text)."""
    return f"`{text}`" if text and "`" not in text and text.strip() == text else escape(text)
