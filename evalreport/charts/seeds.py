"""Charts of several runs per system: every run's value as a strip beside the mean and its interval, and
the seed spread beside the item noise."""
from __future__ import annotations

import altair as alt
import numpy as np
import pandas as pd

from evalreport.charts._common import (
    PLOT_WIDTH,
    band_step,
    bottom_legend,
    chart_title,
    is_higher_better,
    label_axis,
    label_limit,
    measure_label,
    require,
    select,
    short_measure_label,
    with_properties,
)

__all__ = ["seed_strip", "seed_spread_bars"]

#: The two sources of variation, as the legend names them.
SOURCES = {"seed_sd": "seed spread (SD over runs)", "item_se": "item noise (bootstrap SE of one run)"}


def _order(values: pd.Series, hib: bool) -> list[str]:
    """Systems best first by their values (NaN last)."""
    return values.sort_values(ascending=not hib, kind="stable", na_position="last").index.astype(str).tolist()


def seed_strip(runs: pd.DataFrame, *, measure: str, intervals: pd.DataFrame | None = None,
               higher_is_better: bool | None = None, title: str | None = None,
               unit: str = "items") -> alt.LayerChart:
    """One row per system: a dot per run (seed), the mean over runs and its interval as a bar.

    Parameters
    ----------
    runs : DataFrame
        system, run, measure, value (the ``runs`` table).
    measure : str
        The measure shown.
    intervals : DataFrame, optional
        system, measure, value, lo, hi (the two-level bootstrap interval of the mean).
    higher_is_better : bool, optional
        The measure's direction (default: the registry's); the best system is on top.
    title : str, optional
        The chart's title.
    unit : str
        What the bootstrap draws after the runs, for the subtitle (``"clusters"`` with clustered items).

    Returns
    -------
    LayerChart
    """
    df = select(require(runs, ["system", "run", "measure", "value"], "seed_strip"), "measure", measure,
                "seed_strip")[["system", "run", "value"]].copy()
    df["system"] = df["system"].astype(str)
    df["run"] = df["run"].astype(str)
    df["value"] = pd.to_numeric(df["value"], errors="coerce").astype(float)
    # runs spread across the row in their order (a fixed offset, so the same data draw the same chart)
    k = df.groupby("system", sort=False).cumcount().to_numpy(float)
    n = df.groupby("system", sort=False)["run"].transform("size").to_numpy(float)
    df["jitter"] = np.where(n > 1, k / np.maximum(n - 1, 1) - 0.5, 0.0) * 0.8
    hib = is_higher_better(measure, higher_is_better)
    means = df.groupby("system", sort=False)["value"].mean()
    mean = pd.DataFrame({"system": means.index.astype(str), "value": means.to_numpy(), "lo": np.nan, "hi": np.nan})
    if intervals is not None and len(intervals):
        iv = select(require(intervals, ["system", "measure", "lo", "hi"], "seed_strip(intervals)"), "measure",
                    measure, "seed_strip(intervals)")
        bounds = iv.assign(system=iv["system"].astype(str)).set_index("system")
        mean["lo"] = mean["system"].map(bounds["lo"]).astype(float)
        mean["hi"] = mean["system"].map(bounds["hi"]).astype(float)
    mean["n_runs"] = mean["system"].map(df.groupby("system")["value"].size()).astype(int)
    order = _order(means, hib)
    name = short_measure_label(measure)
    y = alt.Y("system:N", sort=order, title=None, axis=label_axis(0, label_limit(order), names=order))
    x_title = f"{name} ({'higher' if hib else 'lower'} is better)"
    tip = [alt.Tooltip("system:N", title="System")]
    dots = alt.Chart(df).mark_circle(size=36, opacity=0.55, color="#6baed6").encode(
        x=alt.X("value:Q", title=x_title, scale=alt.Scale(zero=False),
                  axis=alt.Axis(labelOverlap="greedy", labelSeparation=6)), y=y,
        yOffset=alt.YOffset("jitter:Q", scale=alt.Scale(domain=[-1, 1])),
        tooltip=[*tip, alt.Tooltip("run:N", title="Run"),
                 alt.Tooltip("value:Q", title=f"{measure_label(measure)} ({measure})", format=".4f")],
    )
    has_iv = bool(np.isfinite(mean[["lo", "hi"]].to_numpy(float)).any())
    layers: list[alt.Chart] = [dots]
    mean_tip = [*tip, alt.Tooltip("n_runs:Q", title="Runs"),
                alt.Tooltip("value:Q", title="Mean over runs", format=".4f")]
    if has_iv:
        mean_tip += [alt.Tooltip("lo:Q", title="Interval low", format=".4f"),
                     alt.Tooltip("hi:Q", title="Interval high", format=".4f")]
        layers.append(alt.Chart(mean).mark_rule(strokeWidth=2, color="#08306b").encode(
            x="lo:Q", x2="hi:Q", y=y, tooltip=mean_tip))
    layers.append(alt.Chart(mean).mark_tick(thickness=3, size=16, color="#08306b").encode(
        x="value:Q", y=y, tooltip=mean_tip))
    runs_per = sorted(set(mean["n_runs"]))
    counts = f"{runs_per[0]} runs each" if len(runs_per) == 1 else f"{runs_per[0]}-{runs_per[-1]} runs"
    sub = [f"{len(order)} systems, {counts}; a dot per run (seed), a dark tick at the mean over runs",
           f"the dark line: the interval of the mean (two-level bootstrap over runs and {unit})" if has_iv else ""]
    return with_properties(alt.layer(*layers), width=PLOT_WIDTH, height=alt.Step(band_step(len(order), lo=18, hi=30)),
                           title=chart_title(title or f"Every run under {name}", *sub))


def seed_spread_bars(spread: pd.DataFrame, *, measure: str, higher_is_better: bool | None = None,
                     title: str | None = None) -> alt.Chart:
    """Per system two bars: the seed spread (standard deviation over runs) and the item noise (the
    bootstrap standard error of one run).

    Parameters
    ----------
    spread : DataFrame
        system, measure, value, seed_sd, item_se (the ``seed_spread`` table).
    measure : str
        The measure shown.
    higher_is_better : bool, optional
        The measure's direction: the systems are in the order of their means, best on top.
    title : str, optional
        The chart's title.

    Returns
    -------
    Chart
    """
    df = select(require(spread, ["system", "measure", "value", "seed_sd", "item_se"], "seed_spread_bars"),
                "measure", measure, "seed_spread_bars").copy()
    df["system"] = df["system"].astype(str)
    order = _order(df.set_index("system")["value"].astype(float), is_higher_better(measure, higher_is_better))
    long = df.melt(id_vars=["system"], value_vars=list(SOURCES), var_name="source", value_name="sd")
    long["source"] = long["source"].map(SOURCES)
    long["sd"] = pd.to_numeric(long["sd"], errors="coerce").astype(float)
    long = long[np.isfinite(long["sd"])]
    if long.empty:
        raise ValueError(f"seed_spread_bars: no seed spread or item noise for {measure!r}")
    name = short_measure_label(measure)
    y = alt.Y("system:N", sort=order, title=None, axis=label_axis(0, label_limit(order), names=order))
    chart = alt.Chart(long).mark_bar().encode(
        x=alt.X("sd:Q", title=f"Standard deviation of {name}"), y=y,
        yOffset=alt.YOffset("source:N", sort=list(SOURCES.values())),
        color=alt.Color("source:N", title=None, sort=list(SOURCES.values()),
                        scale=alt.Scale(range=["#e6550d", "#6baed6"]), legend=bottom_legend(labelLimit=300)),
        tooltip=[alt.Tooltip("system:N", title="System"), alt.Tooltip("source:N", title="Source"),
                 alt.Tooltip("sd:Q", title="Standard deviation", format=".4f")])
    sub = ["where the seed spread is the longer bar, another seed moves the score",
           "more than another test set of the same size would"]
    return with_properties(chart, width=PLOT_WIDTH, height=alt.Step(band_step(2 * len(order), lo=10, hi=16)),
                           title=chart_title(title or f"Seed spread and item noise under {name}", *sub))
