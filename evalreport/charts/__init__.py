"""Stage 5 - chart builders: one function per figure, ``tidy frame -> alt.Chart``, and the shared theme.

Each builder takes the tidy frame an analysis returns (its column contract is in the
docstring), keyword options, and returns an Altair chart: no display, no file I/O, no
analysis. The little arithmetic done here is presentation only (sorting, the colour of a
cell, the text printed in a cell).

Conventions shared by every builder:

* Inputs are validated: a missing column, an empty frame, or a filter (``measure=``,
  ``method=``, ``test=``) that selects no rows raises :class:`ValueError` naming what was
  expected and what is there. A chart is never drawn from nothing.
* NaN values are undefined values (0/0 under the nan policy): heatmap cells are grey with
  a "—" and the reason in the tooltip; point charts leave the system out and name it in the
  subtitle.
* Sizes fit an A4 portrait page (at most ~500 px wide including axis labels): cell sizes
  are derived from the number of rows and columns, long measure ids are angled or
  shortened with the full name in the tooltip, and many measures go on the vertical axis.
* Dark cells mean "good" in every heatmap (rank 1, small p-value, large rate); the text in a
  cell is white on dark and black on light fills.
* Styling comes from the one registered theme (:mod:`evalreport.charts.theme`); builders
  set only what is specific to a chart.
* Measures are shown by their registry labels (short ones on axes), the ids in the tooltips.
* A name too long for its room on an axis, a panel header or a text mark is shortened by
  :func:`~evalreport.charts.names.shorten_names`: its beginning and end kept around an ellipsis,
  no two names alike (where they would be, more of the part where they differ is kept); the full
  name is in the tooltip.
* Names from the data (classes, systems, baselines) longer than :data:`MAX_TEXT` characters are
  shown by :func:`display_text` (their beginning and a hash of the whole): a chart never carries
  a megabyte label, which Vega would measure for minutes; the full text stays in the tables.
* :func:`use_theme` also lifts Altair's 5,000-row limit: a chart carries all its data (200
  systems make a 39,800-cell p-value heatmap).
* A chart is never larger than it needs: small charts stay small (the report's CSS never
  scales a chart up, and scales it down only when it is wider than the column).

Modules: :mod:`~evalreport.charts.points` (prevalence, leaderboard, calibration, rank
distribution), :mod:`~evalreport.charts.heatmaps` (ranks, correlations, p-values,
per-class values, confusion matrices), :mod:`~evalreport.charts.crossval` (the
estimators and simulation figures of Forman & Scholz 2010), :mod:`~evalreport.charts.curves` (ROC,
precision-recall and reliability curves of scored systems), :mod:`~evalreport.charts.benchmark` and
:mod:`~evalreport.charts.critical_difference` (the charts of a benchmark of several
tasks, and Demšar's critical-difference diagram); the helpers they
share are in ``_common``.
"""
import importlib

#: Where each public name lives. The package imports its modules (and Altair) only when one of
#: these is first asked for, so that :mod:`evalreport.charts.names` (no Altair) is cheap to import,
#: e.g. for the command line's terminal tables.
_EXPORTS = {
    **dict.fromkeys(["MAX_TEXT", "display_text", "measure_label", "short_measure_label"], "_common"),
    **dict.fromkeys(["cd_diagram", "consensus_methods", "consensus_rank_distribution", "rank_frequency",
                     "task_rank_heatmap"], "benchmark"),
    **dict.fromkeys(["cv_estimates", "simulation_bias", "simulation_sd"], "crossval"),
    **dict.fromkeys(["roc_chart", "pr_chart", "reliability_chart"], "curves"),
    **dict.fromkeys(["confusion_grid", "correlation_heatmap", "identical_rankings", "per_class_heatmap",
                     "pvalue_heatmap", "rank_heatmap"], "heatmaps"),
    **dict.fromkeys(["calibration_dumbbell", "leaderboard_intervals", "prevalence_bar", "rank_distribution_chart"],
                    "points"),
    **dict.fromkeys(["rank_blob"], "ranks"),
    **dict.fromkeys(["THEME_NAME", "use_theme"], "theme"),
    **dict.fromkeys(["shorten_names", "middle_ellipsis"], "names"),
}

__all__ = ["THEME_NAME", "use_theme", "prevalence_bar", "leaderboard_intervals", "rank_heatmap",
           "correlation_heatmap", "calibration_dumbbell", "rank_distribution_chart", "pvalue_heatmap",
           "per_class_heatmap", "confusion_grid", "cv_estimates", "simulation_bias", "simulation_sd",
           "measure_label", "short_measure_label", "identical_rankings", "cd_diagram", "task_rank_heatmap",
           "rank_frequency", "consensus_rank_distribution", "consensus_methods", "rank_blob",
           "roc_chart", "pr_chart", "reliability_chart"]


def __getattr__(name: str):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_EXPORTS))
