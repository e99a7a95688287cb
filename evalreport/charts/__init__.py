"""Chart builders (``frame -> alt.Chart``, no display, no I/O) and the shared theme."""
from evalreport.charts.builders import (calibration_dumbbell, confusion_grid, correlation_heatmap, cv_estimates,
                                       leaderboard_intervals, per_class_heatmap, prevalence_bar, pvalue_heatmap,
                                       rank_distribution_chart, rank_heatmap, score_heatmap, simulation_bias,
                                       simulation_sd)
from evalreport.charts.theme import THEME_NAME, use_theme

__all__ = ["THEME_NAME", "use_theme", "prevalence_bar", "leaderboard_intervals", "rank_heatmap", "score_heatmap",
           "correlation_heatmap", "calibration_dumbbell", "rank_distribution_chart", "pvalue_heatmap",
           "per_class_heatmap", "confusion_grid", "cv_estimates", "simulation_bias", "simulation_sd"]
