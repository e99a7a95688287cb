"""The multi-label report's sections (multilabel.ipynb): one method per table or figure,
each returning ONE display object, read from the tables that
:mod:`evalreport.report.multilabel_build` wrote.

Sections, in order: findings in words (findings.csv, the single-label report's sentence builder);
overview (items, labels, label cardinality, label
frequencies, labels per item); leaderboard; every measure (label-based and example-based); rank
correlation between measures; the per-label view; label errors; pairwise tests (bootstrap,
approximate randomisation, McNemar); prevalence calibration per label; chance baselines for sets;
the audit of the example-based measures. The appendix is the shared appendix.ipynb.

Sections the single-label report shows too and that read tables of the same name and columns
(the findings, inputs, leaderboard chart, rank heatmap, rank correlation, inconsistency, flips,
rank distribution, p-values and the pairwise table) come from
:class:`~evalreport.report.sections.common.CommonSections`; nothing else of the single-label
report is composed in. A table the comparison does not have (``calibration`` or ``audit``) makes
its method return None: the report leaves the part out. Names from the data go through :func:`escape` in Markdown; table cells
and captions are plain text, escaped by :mod:`evalreport.report.display`.
"""
from __future__ import annotations

from pathlib import Path

import pandas as pd

from evalreport import charts
from evalreport.analyses.letters import letters_sentence, range_sentence
from evalreport.charts import multilabel as mlcharts
from evalreport.escape import markdown as escape
from evalreport.report.display import Chart, Note, Table
from evalreport.report.sections._core import MAX_ROWS, leaderboard_columns, wide_scores
from evalreport.report.sections.multilabel_parts import MultiLabelParts
from evalreport.report.sections.slices import SliceSections

__all__ = ["open_multilabel_report", "MultiLabelReport"]

#: Labels each system's row of the label-error table names (most added, most dropped).
TOP_ERRORS = 3


def _counted(rows: pd.DataFrame, column: str) -> str:
    """``"joy (12), fear (7)"``: each row's label and its count in ``column`` ("—" when none)."""
    return ", ".join(f"{lab} ({int(n)})" for lab, n in zip(rows["label"], rows[column])) or "—"


def open_multilabel_report(tables) -> MultiLabelReport:
    """The multi-label report's data, read from the ``tables`` folder written by the build."""
    charts.use_theme()
    return MultiLabelReport(Path(tables))


class MultiLabelReport(MultiLabelParts, SliceSections):
    """The tables of a multi-label report and the display objects made from them (overview to label
    errors here; the later parts in :class:`~evalreport.report.sections.multilabel_parts.MultiLabelParts`;
    the findings and the sections both reports show in
    :class:`~evalreport.report.sections.common.CommonSections`)."""

    # ------------------------------------------------------------------ 1. overview
    def ml_overview(self) -> Note:
        m = self.meta
        card = self.table("cardinality")
        gold = card[card["role"] == "gold"].iloc[0] if not card.empty else None
        lines = [f"**{m.get('n_items', 0):,} items**, **{m.get('n_labels', '?')} labels**"
                 + (f" (and {m['n_prediction_only']} label(s) found only in predictions, counted as false positives)"
                    if m.get("n_prediction_only") else "")
                 + f", **{m.get('n_systems', '?')} systems**. Each item has a set of labels (possibly empty). "
                 f"Primary measure: **{escape(self._label(self.primary))}** (`{self.primary}`)."]
        if gold is not None:
            lines.append(f"Gold sets: label cardinality (mean labels per item) **{gold['cardinality']:.2f}**, label "
                         f"density {gold['density']:.3f} (cardinality / labels), {gold['empty']:.1%} of the items "
                         f"have the empty set, {int(gold['distinct_sets']):,} distinct label sets.")
        if m.get("bootstrap"):
            lines.append(f"Uncertainty: {m['bootstrap']:,} paired bootstrap resamples over items (the same items for "
                         f"every system), seed {m.get('seed')}; "
                         f"{100 * (1 - m.get('alpha', 0.05)):g}% percentile intervals.")
        for note in self.manifest.get("notes", []):
            if not note.startswith("intervals:"):
                lines.append(f"Note: {escape(note)}.")
        return Note("\n\n".join(lines))

    def cardinality_table(self) -> Table:
        card = self.table("cardinality")
        pos = {s: i + 1 for i, s in enumerate(self.order)}
        card = card.assign(_o=[0 if r == "gold" else pos.get(s, len(pos) + 1) for r, s in zip(card["role"],
                                                                                              card["source"])])
        card = card.sort_values("_o", kind="stable").reset_index(drop=True)
        show = pd.DataFrame({"source": card["source"], "labels per item": card["cardinality"],
                             "density": card["density"], "empty sets": card["empty"],
                             "distinct sets": card["distinct_sets"].astype(int)})
        return Table(show, index=False, formats={"empty sets": "{:.1%}", "labels per item": "{:.2f}"},
                     caption="Label cardinality of the gold sets and of each system's predictions (Tsoumakas & "
                             "Katakis 2007): mean labels per item, density (cardinality / labels), share of items "
                             "with the empty set, and distinct label sets (systems in leaderboard order).")

    def label_frequency_chart(self) -> Chart:
        freq = self.table("label_frequency")
        return Chart(mlcharts.label_frequency(freq, order=self.label_order, systems=self.order), name="label-frequency",
                     caption="Share of the items that carry each label, most frequent first: the gold labels (bars) "
                             "and how often each system predicts the label (ticks). Counts are in "
                             "label_frequency.csv.")

    def set_size_chart(self) -> Chart:
        sizes = self.table("set_sizes")
        return Chart(mlcharts.set_size_heatmap(sizes, sources=["gold", *self.order]), name="set-sizes",
                     caption="How many labels each item gets: the share of items with a set of k labels, for the "
                             "gold sets (top row) and each system (best first). A system whose row is shifted left "
                             "predicts too few labels per item.")

    # ------------------------------------------------------------------ 2. leaderboard
    def leaderboard_table(self) -> Table:
        board = self.table("leaderboard")
        p_label = self._label(self.primary)
        calibrated = "rank_calibrated" in board and board["rank_calibrated"].notna().any()
        show, has_letters, ranks = leaderboard_columns(board, p_label, calibrated=calibrated)
        return Table(show, formats=ranks, index=False,
                     caption=f"Leaderboard under {p_label}: the value, its paired bootstrap interval, the "
                             "probability of being best, and the significance letters"
                             + ("; the rank after prevalence calibration of every label." if "rank (calibrated)"
                                in show else ".")
                             + (" " + letters_sentence("bootstrap", self.meta.get("alpha", 0.05))
                                + range_sentence(board["letters"]) if has_letters else ""))

    # ------------------------------------------------------------------ 3. every measure
    def ml_scores_table(self) -> Table:
        scores = self.table("scores")
        scores = scores[~scores["calibrated"]] if "calibrated" in scores else scores
        measures = list(dict.fromkeys(scores["measure"]))
        measures = [m for m in measures if self.kinds.get(m) != "example"] + \
                   [m for m in measures if self.kinds.get(m) == "example"]
        systems = [s for s in self.order if s in set(scores["system"])] or list(dict.fromkeys(scores["system"]))
        values, mark, reasons = wide_scores(scores, measures, systems)
        rows = [f"{'E' if self.kinds.get(m) == 'example' else 'L'}: {self._label(m)} "
                f"{'↑' if self._higher(m) else '↓'}" for m in measures]
        values.index = mark.index = reasons.index = rows
        values.index.name = "measure"
        return Table(values, undefined=mark, reasons=reasons,
                     caption="Every measure (rows; L: label-based, an average over the labels' 2 x 2 matrices; "
                             "E: example-based, an average over the items' sets; ↑ higher is better, ↓ lower) for "
                             "every system (columns, best first under the primary measure). Undefined (0/0) cells "
                             "are marked with the reason; definitions are in the appendix.")

    def ml_undefined_table(self) -> Table | Note:
        """Every 0/0 case met, the reason shortened where it lists many labels (the full text is in
        scores.csv)."""
        import re

        scores = self.table("scores")
        flagged = scores[(scores["reason"] != "") & ~scores["calibrated"]]
        if flagged.empty:
            return Note("No measure hit an undefined (0/0) case on these systems.")

        def short(reason: str) -> str:
            def names(m):
                items = m.group(2).split(", ")
                if len(items) <= 3:
                    return m.group(0)
                return f"({m.group(1)} {', '.join(items[:3])} and {len(items) - 3} more)"
            return re.sub(r"\((class|label)\s([^()]*)\)", names, reason)

        show = pd.DataFrame({"system": flagged["system"], "measure": flagged["measure"].map(self._label),
                             "value": flagged["value"], "reason": flagged["reason"].map(short)})
        shown = f" First {MAX_ROWS} of {len(show):,}; all in scores.csv." if len(show) > MAX_ROWS else ""
        return Table(show.head(MAX_ROWS), index=False,
                     caption="Every 0/0 case met while computing the measures (no value: the measure is undefined; "
                             "a number: the case was inside an average over labels or items and skipped or replaced "
                             "as the policy says). Long lists of labels are cut; the column reason of scores.csv "
                             "has them whole." + shown)

    # ------------------------------------------------------------------ 5. per label
    def per_label_chart(self) -> Chart:
        pl = self.table("per_label")
        return Chart(mlcharts.label_heatmap(pl, value="f1", order=self.label_order, systems=self.order,
                                            value_title="F1", marked=self.extra_labels),
                     name="per-label-f1",
                     caption="F1 of every label (rows, most frequent first) for every system (columns, best first). "
                             "Precision, recall and F1 of every label are in per_label.csv.")

    def per_label_table(self) -> Table:
        pl = self.table("per_label")
        g = pl.groupby("label", sort=False)
        best = pl.loc[pl["f1"].fillna(-1).groupby(pl["label"], sort=False).idxmax()].set_index("label")
        worst = pl.loc[pl["f1"].fillna(2).groupby(pl["label"], sort=False).idxmin()].set_index("label")
        show = pd.DataFrame({"gold items": g["support"].first().astype(int), "mean F1": g["f1"].mean(),
                             "best system": best["system"], "best F1": best["f1"], "worst system": worst["system"],
                             "worst F1": worst["f1"]})
        show = show.reindex([x for x in self.label_order if x in show.index])
        show.index.name = "label"
        more = ""
        if len(show) > 2 * MAX_ROWS:
            more = f" The {MAX_ROWS} most and {MAX_ROWS} least frequent of {len(show)} labels; all in per_label.csv."
            show = pd.concat([show.head(MAX_ROWS), show.tail(MAX_ROWS)])
        return Table(show, caption="Per label: its gold items, the mean F1 over the systems, and the systems with the "
                                   "highest and lowest F1." + more)

    # ------------------------------------------------------------------ 6. label errors
    def label_errors_chart(self) -> Chart:
        le = self.table("label_errors")
        return Chart(mlcharts.label_error_heatmap(le, order=self.label_order, systems=self.order), name="label-errors",
                     caption="Which labels each system adds (false positives) or drops (false negatives): "
                             "(added − dropped) as a share of the label's gold items; the counts are in the tooltip "
                             "and in label_errors.csv.")

    def label_errors_table(self) -> Table:
        le = self.table("label_errors")
        rows = []
        for system in [s for s in self.order if s in set(le["system"])] or list(dict.fromkeys(le["system"])):
            own = le[le["system"] == system]
            added = own[own["added"] > 0].sort_values("added", ascending=False, kind="stable").head(TOP_ERRORS)
            dropped = own[own["dropped"] > 0].sort_values("dropped", ascending=False, kind="stable").head(TOP_ERRORS)
            rows.append({"system": system, "adds most (FP)": _counted(added, "added"),
                         "drops most (FN)": _counted(dropped, "dropped"),
                         "added": int(own["added"].sum()), "dropped": int(own["dropped"].sum())})
        return Table(pd.DataFrame(rows), index=False,
                     caption=f"Per system: the {TOP_ERRORS} labels it adds most often where the gold set lacks them "
                             f"and the {TOP_ERRORS} it drops most often (counts of items), and its totals.")

