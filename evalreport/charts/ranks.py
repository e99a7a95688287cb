"""The blob plot of a leaderboard's ranks: P(rank = k) and the simultaneous rank intervals.

challengeR's blob plot (Wiesenfarth et al. 2021, Sci. Rep. 11, Fig. 5) for one leaderboard: x =
system in leaderboard order, y = rank (1 at the top), circle area = bootstrap probability of the
rank, a grey bar from ``rank_lo`` to ``rank_hi`` (the simultaneous rank interval of
:mod:`evalreport.analyses.rank_intervals`) and an orange tick at the observed rank. From 2 to a
few hundred systems: narrow bands turn the names upright and smaller, and beyond
:data:`MAX_NAMED` systems the names are left out (the leaderboard table and leaderboard.csv hold
them, in the same order).
"""
from __future__ import annotations

import altair as alt
import numpy as np
import pandas as pd

from evalreport.charts._common import (
    PAGE_WIDTH,
    band_step,
    bottom_legend,
    chart_title,
    nominal_axis_for,
    rank_values,
    require,
    select,
    sequential,
    short_measure_label,
    with_properties,
)

__all__ = ["rank_blob", "MAX_NAMED"]

#: Above this many systems the x axis carries no names (a band narrower than a 7 px font).
MAX_NAMED = 70
OBSERVED_INK = "#e6550d"
INTERVAL_FILL = "#d9d9d9"


def rank_blob(rank_distribution: pd.DataFrame, board: pd.DataFrame, *, measure: str, min_probability: float = 0.005,
              title: str | None = None) -> alt.LayerChart:
    """Blob plot of the ranks under ``measure`` with the rank intervals.

    Parameters
    ----------
    rank_distribution : DataFrame
        system, measure, rank, probability (the comparison's ``rank_distribution``).
    board : DataFrame
        system, rank, rank_lo, rank_hi: the leaderboard, best first (its order is the x axis).
    measure : str
        The measure whose rank distribution is drawn.
    min_probability : float
        Circles of smaller probabilities are not drawn.
    title : str, optional
        The chart's title.

    Returns
    -------
    LayerChart
    """
    what = "rank_blob"
    df = require(rank_distribution, ["system", "measure", "rank", "probability"], what)
    df = select(df, "measure", measure, what)[["system", "rank", "probability"]].copy()
    bd = require(board, ["system", "rank", "rank_lo", "rank_hi"], f"{what}(board)")[
        ["system", "rank", "rank_lo", "rank_hi"]].copy()
    df["system"] = df["system"].astype(str)
    bd["system"] = bd["system"].astype(str)
    df["rank"] = pd.to_numeric(df["rank"], errors="coerce").astype(float)
    df["probability"] = pd.to_numeric(df["probability"], errors="coerce").astype(float)
    for c in ("rank", "rank_lo", "rank_hi"):
        bd[c] = pd.to_numeric(bd[c], errors="coerce").astype(float)
    order = list(bd["system"]) + [s for s in dict.fromkeys(df["system"]) if s not in set(bd["system"])]
    n = len(order)
    worst = float(max(n, np.nanmax(df["rank"]) if len(df) else 1))
    named = n <= MAX_NAMED
    step_x = band_step(n, room=PAGE_WIDTH - 60, lo=7 if named else 1.2, hi=34)
    height = float(np.clip(step_x * worst, 120, 380))
    cell = min(step_x, height / worst)
    y_scale = alt.Scale(domain=[worst + 0.5, 0.5], nice=False, zero=False)
    axis = nominal_axis_for(order, step_x) if named else alt.Axis(labels=False, ticks=False)
    x = alt.X("system:N", sort=order, title=None if named else "systems, in leaderboard order", axis=axis,
              scale=alt.Scale(domain=order))
    y = alt.Y("rank:Q", title="Rank (1 = best)", scale=y_scale,
              axis=alt.Axis(values=rank_values(worst), format="d", grid=True))
    shown = df[df["probability"] >= min_probability]
    blobs = alt.Chart(shown).mark_circle(opacity=0.8).encode(
        x=x, y=y,
        size=alt.Size("probability:Q", title="P(rank = k)",
                      scale=alt.Scale(domain=[0, 1], range=[0, (0.95 * cell) ** 2]),
                      legend=bottom_legend(format=".0%", values=[0.1, 0.5, 1.0], symbolFillColor="#4292c6")),
        color=alt.Color("probability:Q", scale=sequential(-0.3, 1), legend=None),
        tooltip=[alt.Tooltip("system:N", title="System"), alt.Tooltip("rank:Q", title="Rank"),
                 alt.Tooltip("probability:Q", title="P(rank)", format=".1%")])
    layers: list = []
    has_bounds = bd["rank_lo"].notna().any()
    if has_bounds:
        band = bd.dropna(subset=["rank_lo", "rank_hi"]).assign(
            top=lambda f: f["rank_lo"] - 0.45, bottom=lambda f: f["rank_hi"] + 0.45)
        layers.append(alt.Chart(band).mark_bar(color=INTERVAL_FILL, opacity=0.9, width=alt.RelativeBandSize(0.55)
                                               ).encode(
            x=x, y=alt.Y("top:Q", scale=y_scale, title="Rank (1 = best)"), y2="bottom:Q",
            tooltip=[alt.Tooltip("system:N", title="System"), alt.Tooltip("rank_lo:Q", title="Best rank", format="d"),
                     alt.Tooltip("rank_hi:Q", title="Worst rank", format="d")]))
    layers.append(blobs)
    layers.append(alt.Chart(bd.dropna(subset=["rank"])).mark_tick(
        color=OBSERVED_INK, thickness=2, size=float(max(step_x * 0.8, 3))).encode(
        x=x, y=alt.Y("rank:Q", scale=y_scale), tooltip=[alt.Tooltip("system:N", title="System"),
                                                        alt.Tooltip("rank:Q", title="Observed rank")]))
    lines = ["circle area = bootstrap P(rank = k); orange = observed rank"]
    if has_bounds:
        lines.append("grey bar = simultaneous rank interval")
    return with_properties(alt.layer(*layers), width=alt.Step(step_x), height=height,
                           title=chart_title(title or f"Ranks and rank intervals: {short_measure_label(measure)}",
                                             *lines))
