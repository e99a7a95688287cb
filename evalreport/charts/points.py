"""Point and bar charts: class prevalence, the leaderboard with intervals and chance baselines,
raw vs calibrated values, and the bootstrap rank distribution."""
from __future__ import annotations

from collections.abc import Sequence

import altair as alt
import numpy as np
import pandas as pd

from evalreport.charts._common import (
    PAGE_WIDTH,
    PLOT_WIDTH,
    WIDE_PAGE,
    band_step,
    bottom_legend,
    chart_title,
    in_order,
    is_higher_better,
    label_axis,
    label_limit,
    measure_label,
    name_measures,
    require,
    restrict,
    select,
    sequential,
    short_measure_label,
    text_width,
    with_properties,
)
from evalreport.inputs.checks import listing
from evalreport.words import counted

# --------------------------------------------------------------------------------------------
# 1. overview


def prevalence_bar(prevalence: pd.DataFrame, *, title: str = "Class prevalence",
                   whole: pd.DataFrame | None = None) -> alt.LayerChart:
    """Bar per class of its share of the gold labels, largest first, count printed at the bar.

    ``prevalence``: (class, count, share), the classes drawn; ``whole``: every class, when
    ``prevalence`` draws only some of them (the subtitle's counts and ratio are of ``whole``).
    """
    df = require(prevalence, ["class", "count", "share"], "prevalence_bar")[["class", "count", "share"]]
    df["class"] = df["class"].astype(str)
    df = df.sort_values("count", ascending=False, kind="stable")
    df["label"] = [f"{int(c):,} ({s:.1%})" for c, s in zip(df["count"], df["share"])]
    n = len(df)
    every = df if whole is None else require(whole, ["count"], "prevalence_bar")
    counts = every["count"]
    shown = f"{len(counts):,} classes" + (f" ({n:,} shown)" if len(counts) > n else "")
    # room for the labels right of the bars, but a share never runs past 100 %
    top = min(1.0, float(df["share"].max()) * 1.25)
    room = (top - df["share"].astype(float)) / top * PLOT_WIDTH
    df["inside"] = [r < text_width(t) + 8 for r, t in zip(room, df["label"])]   # no room right: in the bar
    base = alt.Chart(df).encode(
        y=alt.Y("class:N", sort=df["class"].tolist(), title="Class", axis=label_axis(0, names=df["class"])),
        x=alt.X("share:Q", title="Share of items", axis=alt.Axis(format="%"),
                scale=alt.Scale(domain=[0, top], nice=False, clamp=True)),
        tooltip=[alt.Tooltip("class:N", title="Class"), alt.Tooltip("count:Q", title="Items"),
                 alt.Tooltip("share:Q", title="Share", format=".1%")],
    )
    bars = base.mark_bar()
    layers = [bars, base.mark_text(align="left", dx=4, baseline="middle").encode(text=alt.Text("label:N"))
              .transform_filter("!datum.inside")]
    if df["inside"].any():
        layers.append(base.mark_text(align="right", dx=-4, baseline="middle", color="white")
                      .encode(text=alt.Text("label:N")).transform_filter("datum.inside"))
    return with_properties(alt.layer(*layers),
        width=PLOT_WIDTH, height=alt.Step(band_step(n, lo=14, hi=24)),
        title=chart_title(title, f"{shown}, {int(counts.sum()):,} items; {imbalance_text(every)}"),
    )


def imbalance_text(prevalence: pd.DataFrame) -> str:
    """The largest class's count over the smallest's, for a subtitle: undefined, with the empty classes
    named, when a declared class (``--labels``, a task file's ``labels``) has no gold items.

    Parameters
    ----------
    prevalence : pandas.DataFrame
        Columns ``count`` and, to name the empty classes, ``class``: every class of the task.

    Returns
    -------
    str
        ``largest / smallest = 6.0``, or ``largest / smallest undefined: class 'x' has no gold items``.
    """
    counts = prevalence["count"].to_numpy()
    empty = counts == 0
    if not empty.any():
        return f"largest / smallest = {counts.max() / counts.min():.1f}"
    names = [str(c) for c in prevalence["class"].to_numpy()[empty]] if "class" in prevalence else []
    n = int(empty.sum())
    if not names:
        return f"largest / smallest undefined: {counted(n, 'class', 'classes')} with no gold items"
    verb = "has" if n == 1 else "have"
    return (f"largest / smallest undefined: {'class' if n == 1 else 'classes'} {listing(names, 3)} {verb} "
            "no gold items")


# --------------------------------------------------------------------------------------------
# 2. leaderboard


DEFAULT_BASELINES = ("majority", "uniform", "prevalence")
#: A baseline widens the value axis only while the systems' values still fill at least
#: 1 / ZOOM of it; the others are named in the subtitle as off the axis.
ZOOM = 4.0
#: ... and while the median interval stays this many px wide: wider than a point, so that it is seen.
MIN_INTERVAL_PX = 24
#: At most this many distinct letter sets are told apart by colour (the theme's categorical palette
#: has 10); beyond it the letters are written beside the intervals.
MAX_COLOURED_GROUPS = 10
#: Font size and line height (px) of the baseline labels above the plot.
BASELINE_FONT, BASELINE_LINE = 10, 13


def _letter_sets(groups: pd.DataFrame, systems: pd.Series, field: str) -> pd.Series:
    """Each system's letters (or joined groups, ``"a,b"``) in the order of ``systems``; "none" for none."""
    g = require(groups, ["system", field], "leaderboard_intervals(groups)")
    g["system"] = g["system"].astype(str)
    g = g[g[field].notna() & (g[field].astype(str) != "")]
    joined = g.groupby("system", sort=False)[field].agg(lambda s: ",".join(sorted(map(str, s.unique()))))
    return systems.astype(str).map(joined).fillna("none")


def _shown_as(sets: pd.Series) -> str:
    """How the chart shows these letter sets: "none" (one set for all), "colour" or "written"."""
    # one group for all: a legend with a single entry says less than the subtitle; more letter sets
    # than a palette tells apart: the letters are written beside the intervals instead of colours
    n = sets.nunique()
    return "none" if n == 1 else "written" if n > MAX_COLOURED_GROUPS else "colour"


def letters_shown_as(groups: pd.DataFrame | None, systems: Sequence[str]) -> str:
    """How :func:`leaderboard_intervals` shows the significance letters of ``systems``.

    Parameters
    ----------
    groups : DataFrame or None
        The ``groups`` :func:`leaderboard_intervals` takes: (system, letters) or (system, group).
    systems : sequence of str
        The systems the chart draws (those with a value).

    Returns
    -------
    str
        "colour" (points coloured by their letters), "written" (more letter sets than colours: the
        letters beside the intervals) or "none" (no groups, or one set shared by every system).
    """
    if groups is None or groups.empty or not len(systems):
        return "none"
    field = "letters" if "letters" in groups else "group"
    return _shown_as(_letter_sets(groups, pd.Series(list(systems), dtype=object), field))


def _baseline_rows(base: pd.DataFrame, lo: float, hi: float, width: float) -> pd.DataFrame:
    """Where each baseline label goes above the plot (baselines within 3 px share one label)."""
    px = (base["value"].to_numpy(float) - lo) / (hi - lo) * width
    cluster = np.concatenate([[0], np.cumsum(np.diff(px) > 3)])
    rows = []
    for c in np.unique(cluster):
        members = base[cluster == c]
        names = " / ".join(members["baseline"].astype(str))
        value = float(members["value"].iloc[0])
        shown = [f"{v:.3f}" for v in members["value"].astype(float)]
        text = (f"{names} = {shown[0]}" if len(set(shown)) == 1 else
                " / ".join(f"{b} = {v}" for b, v in zip(members["baseline"].astype(str), shown)))
        rows.append({"value": value, "text": text, "px": float(px[cluster == c][0])})
    labels = pd.DataFrame(rows)
    lines: list[list[tuple[float, float]]] = []
    align, line = [], []
    starts = []
    for p, text in zip(labels["px"], labels["text"]):
        w = text_width(text, BASELINE_FONT) + 4
        a = "left" if p + w <= width + 4 else "right"
        if a == "right" and p - w < -4:      # wider than either side of its rule: from the plot's left edge
            a, p = "left", 0.0
        starts.append(p)
        span = (p, p + w) if a == "left" else (p - w, p)
        for used in lines:
            if all(span[1] + 4 <= u0 or span[0] >= u1 + 4 for u0, u1 in used):
                used.append(span)
                break
        else:
            lines.append([span])
            k = len(lines) - 1
        align.append(a)
        line.append(k)
    labels["align"], labels["line"] = align, line
    labels["value"] = np.where(np.isclose(starts, labels["px"]), labels["value"], lo + np.asarray(starts) / width * (hi - lo))
    labels["y"] = -4 - labels["line"] * BASELINE_LINE
    return labels


def _fmt_baselines(b: pd.DataFrame) -> str:
    """'majority, uniform = 0.001; prevalence = 0.002' (equal values named together)."""
    parts = []
    for value, rows in b.groupby(b["value"].round(3), sort=True):
        parts.append(f"{', '.join(rows['baseline'].astype(str))} = {value:.3f}")
    return "; ".join(parts)


def leaderboard_intervals(intervals: pd.DataFrame, *, measure: str, baselines: pd.DataFrame | None = None,
                          groups: pd.DataFrame | None = None, show_baselines=DEFAULT_BASELINES,
                          higher_is_better: bool | None = None, title: str | None = None,
                          zoom: float = ZOOM, strongest: str | None = None,
                          baseline_names=None, points: str = "value on all items") -> alt.LayerChart:
    """Each system's value under ``measure`` with its interval, best system on top.

    ``intervals``: (system, measure, value, lo, hi); ``lo``/``hi`` may be NaN (no interval,
    e.g. confusion-matrix input). ``baselines``: (measure, baseline, value), drawn as dashed
    vertical rules, their names written horizontally above the plot (on several lines when
    they would overlap; baselines within 3 px share one label); ``show_baselines`` picks which
    (default: the majority-class, uniform-random and prevalence-random systems; all of them
    when none of the names is present, or with ``None``). The value axis is zoomed to the
    systems: a baseline widens it only while the systems still fill at least 1/``zoom`` of
    it and the median interval stays :data:`MIN_INTERVAL_PX` wide; the others are named in the
    subtitle as off the axis. ``groups``: (system, letters) - the
    compact letter display of the significance tests (:mod:`evalreport.analyses.letters`), points
    coloured by their letters; or (system, group), one row per group a system is in (a system in
    several gets the joined label, e.g. ``"a,b"``). Systems whose value is undefined are named in the
    subtitle. System names longer than 300 px are shortened, beginning and end kept and no two
    alike (:func:`~evalreport.charts._common.shown_names`; full name in the tooltip); the measure
    is shown by its registry label. ``strongest``: the name of the baseline the findings call the
    strongest (:func:`evalreport.analyses.findings.strongest_baseline`): drawn whatever
    ``show_baselines`` says, first in the zoom (so it widens the axis before any other baseline)
    and labelled "(strongest)"; when even it lies too far from the systems it is named in the
    subtitle. ``baseline_names``: the words a reader sees for each baseline name (e.g.
    ``{"majority": "majority class"}``; names not in it are shown as they are). ``points``: what a
    point is, in the subtitle (e.g. "mean over each system's runs" for several runs per system).
    """
    df = select(require(intervals, ["system", "measure", "value", "lo", "hi"], "leaderboard_intervals"),
                 "measure", measure, "leaderboard_intervals")[["system", "value", "lo", "hi"]]
    df["system"] = df["system"].astype(str)
    for col in ("value", "lo", "hi"):
        df[col] = pd.to_numeric(df[col], errors="coerce").astype(float)
    undefined = df.loc[~np.isfinite(df["value"]), "system"].tolist()
    df = df[np.isfinite(df["value"])]
    if df.empty:
        raise ValueError(f"leaderboard_intervals: {measure!r} is undefined for every system")
    hib = is_higher_better(measure, higher_is_better)
    df = df.sort_values("value", ascending=not hib, kind="stable")
    order = df["system"].tolist()
    name = short_measure_label(measure)
    has_intervals = bool(np.isfinite(df[["lo", "hi"]].to_numpy(float)).any())

    colour, written = None, False
    if groups is not None:
        field, legend_title = (("letters", "Significance letters") if "letters" in groups
                               else ("group", "Significance group"))
        df[field] = _letter_sets(groups, df["system"], field).to_numpy()
        shown_as = _shown_as(df[field])
        written = shown_as == "written"
        colour = alt.Color(f"{field}:N", title=legend_title, legend=bottom_legend()) if shown_as == "colour" else None
    direction = "higher is better" if hib else "lower is better"
    tooltip = [alt.Tooltip("system:N", title="System"),
               alt.Tooltip("value:Q", title=f"{measure_label(measure)} ({measure})", format=".4f")]
    if has_intervals:
        tooltip += [alt.Tooltip("lo:Q", title="interval low", format=".4f"),
                    alt.Tooltip("hi:Q", title="interval high", format=".4f")]
    if groups is not None:
        tooltip.append(alt.Tooltip(f"{field}:N", title=legend_title))

    lo = float(np.nanmin(df[["value", "lo", "hi"]].to_numpy(float)))
    hi = float(np.nanmax(df[["value", "lo", "hi"]].to_numpy(float)))
    span = max(hi - lo, 0.01 * max(abs(hi), abs(lo), 1e-9))
    limit = label_limit(order)
    # long names widen the chart (up to WIDE_PAGE) rather than narrow the plot: the intervals need room
    width = float(np.clip(WIDE_PAGE - limit - 40, 260, PLOT_WIDTH))
    widest = zoom * span           # the axis a baseline may widen to
    if has_intervals:
        median = float(np.nanmedian((df["hi"] - df["lo"]).to_numpy(float)))
        if np.isfinite(median) and median > 0:
            widest = min(widest, max(span, median * width / MIN_INTERVAL_PX))
    shown = off = None
    if baselines is not None:
        b = require(baselines, ["measure", "baseline", "value"], "leaderboard_intervals(baselines)")
        b = b[(b["measure"] == measure)][["baseline", "value"]]
        b["value"] = pd.to_numeric(b["value"], errors="coerce").astype(float)
        b = b[np.isfinite(b["value"])]
        if show_baselines is not None and b["baseline"].isin(list(show_baselines)).any():
            b = b[b["baseline"].isin([*show_baselines, *([strongest] if strongest is not None else [])])]
        if not b.empty:
            # the strongest, then nearest first: each baseline widens the axis while the systems still
            # fill 1/zoom of it
            b = b.assign(distance=np.maximum(lo - b["value"], b["value"] - hi).clip(lower=0),
                         _first=(b["baseline"] != strongest) if strongest is not None else True)
            b = b.sort_values(["_first", "distance", "value"], kind="stable").drop(columns="_first")
            words = dict(baseline_names or {})
            if strongest is not None:
                b["baseline"] = b["baseline"].where(b["baseline"] != strongest,
                                                    f"{words.get(strongest, strongest)} (strongest)")
            b["baseline"] = b["baseline"].map(lambda x: words.get(x, x))
            keep = []
            for v in b["value"]:
                if max(hi, v) - min(lo, v) <= widest:
                    lo, hi = min(lo, v), max(hi, v)
                    keep.append(True)
                else:
                    keep.append(False)
            kept = np.array(keep)
            shown = b[kept].sort_values("value", kind="stable").reset_index(drop=True)
            off = b[~kept].sort_values("value", kind="stable")
    pad = 0.05 * (hi - lo) if hi > lo else 0.05
    domain = [lo - pad, hi + pad]

    x_scale = alt.Scale(domain=domain, zero=False, nice=False)
    x_title = f"{name} ({direction})"
    x = alt.X("value:Q", title=x_title, scale=x_scale)
    y = alt.Y("system:N", sort=order, title=None, axis=label_axis(0, limit=limit, names=order))
    base = alt.Chart(df).encode(y=y, tooltip=tooltip)
    layers = []
    if has_intervals:
        layers.append(base.mark_rule(strokeWidth=2, color="#888888").encode(
            x=alt.X("lo:Q", scale=x_scale, title=x_title), x2=alt.X2("hi:Q")))
    point = base.mark_point(filled=True, size=70).encode(x=x)
    layers.append(point.encode(color=colour) if colour is not None else point)
    if groups is not None and written:
        right = "hi:Q" if has_intervals else "value:Q"
        layers.append(base.mark_text(align="left", dx=5, fontSize=BASELINE_FONT, color="#333333").encode(
            x=alt.X(right, scale=x_scale, title=x_title), text=alt.Text(f"{field}:N")))
    if shown is not None and not shown.empty:
        layers.append(alt.Chart(shown).mark_rule(strokeDash=[5, 4], color="#555555").encode(
            x=alt.X("value:Q", scale=x_scale),
            tooltip=[alt.Tooltip("baseline:N", title="Baseline"), alt.Tooltip("value:Q", format=".4f")]))
        labels = _baseline_rows(shown, domain[0], domain[1], width)
        for align in ("left", "right"):
            rows = labels[labels["align"] == align]
            if not rows.empty:
                layers.append(alt.Chart(rows).mark_text(
                    align=align, baseline="bottom", dx=3 if align == "left" else -3, fontSize=BASELINE_FONT,
                    color="#555555").encode(x=alt.X("value:Q", scale=x_scale), y=alt.Y("y:Q", scale=None),
                                            text=alt.Text("text:N")))
    subtitle = [f"points: {points}; {'bars: interval; ' if has_intervals else ''}{direction}"
                + ("; dashed: chance baselines" if shown is not None and not shown.empty else "")]
    if off is not None and not off.empty:
        side = "below" if (off["value"] < lo).all() else "above" if (off["value"] > hi).all() else "away from"
        subtitle.append(f"off the axis, far {side} every system: {_fmt_baselines(off)}")
    if groups is not None and written:
        subtitle.append(f"beside each interval: its {legend_title.lower()} (systems sharing one are not separated)")
    elif groups is not None and colour is None:
        subtitle.append("every system shares one letter (no pair separated)" if field == "letters"
                        else "every system in one significance group (none separable)")
    if undefined:
        subtitle.append(f"undefined (not drawn): {', '.join(undefined)}")
    return with_properties(alt.layer(*layers),
        width=width, height=alt.Step(band_step(len(order), lo=16, hi=26)),
        title=chart_title(title or f"Leaderboard: {name}", *subtitle),
    )


# --------------------------------------------------------------------------------------------
# 5. prevalence calibration


def calibration_dumbbell(scores: pd.DataFrame, *, measures=None, columns: int = 3,
                         title: str | None = None, systems=None) -> alt.FacetChart:
    """Raw vs prevalence-calibrated value of every system, one small panel per measure: a
    line from the raw (grey) to the calibrated (orange) value.

    ``scores``: (system, measure, value, calibrated[bool], ...). ``measures`` restricts and
    orders the panels, headed by the measures' short registry labels. Each panel has its own
    value axis (measures differ in range). Systems in the order ``systems`` gives (e.g. the
    leaderboard's), else as they come. System names longer than 240 px are shortened, no two
    alike (full name in the tooltip); with long names the grid has fewer columns than ``columns``.
    """
    df = require(scores, ["system", "measure", "value", "calibrated"], "calibration_dumbbell")
    df = df[["system", "measure", "value", "calibrated"]]
    df["system"] = df["system"].astype(str)
    df, order = restrict(df, "measure", measures, "calibration_dumbbell")
    df["calibrated"] = df["calibrated"].astype(bool)
    if df["calibrated"].nunique() < 2:
        raise ValueError("calibration_dumbbell: needs both raw (calibrated=False) and calibrated "
                         "(calibrated=True) rows")
    df["version"] = np.where(df["calibrated"], "calibrated", "raw")
    df["value"] = pd.to_numeric(df["value"], errors="coerce").astype(float)
    df = df[np.isfinite(df["value"])]
    wide = df.pivot_table(index=["measure", "system"], columns="version", values="value",
                          aggfunc="first").reset_index()
    wide = wide.dropna(subset=[c for c in ("raw", "calibrated") if c in wide.columns])
    df = df.merge(wide[["measure", "system"]], on=["measure", "system"])
    if df.empty:
        raise ValueError("calibration_dumbbell: no system has both a raw and a calibrated value")
    systems = in_order(df["system"], systems)
    df, names = name_measures(df, order=order)
    limit = int(min(240, max(text_width(x) for x in systems) + 6))
    columns = max(1, min(columns, len(order)))
    while columns > 1 and (PAGE_WIDTH - limit - 20) / columns - 18 < 90:
        columns -= 1   # long system names: fewer, wider panels (a panel needs ~90 px for its axis)
    width = (PAGE_WIDTH - limit - 20) / columns - 18
    y = alt.Y("system:N", sort=systems, title=None, axis=label_axis(0, limit=limit, names=systems))
    x_axis = alt.Axis(tickCount=3, labelOverlap="greedy", labelSeparation=8, labelFlush=True)
    rule = alt.Chart().mark_rule(color="#aaaaaa", strokeWidth=2).encode(
        y=y, x=alt.X("raw:Q", title=None, scale=alt.Scale(zero=False, padding=7), axis=x_axis),
        x2=alt.X2("calibrated:Q"),
        tooltip=[alt.Tooltip("system:N", title="System"), alt.Tooltip("raw:Q", format=".4f"),
                 alt.Tooltip("calibrated:Q", format=".4f")],
    ).transform_pivot("version", value="value", groupby=["measure_name", "system"])
    points = alt.Chart().mark_circle(size=40, opacity=1).encode(
        y=y, x=alt.X("value:Q", title=None, scale=alt.Scale(zero=False, padding=7), axis=x_axis),
        color=alt.Color("version:N", title=None, scale=alt.Scale(domain=["raw", "calibrated"],
                                                                  range=["#777777", "#E69F00"]),
                        legend=bottom_legend()),
        tooltip=[alt.Tooltip("system:N", title="System"), alt.Tooltip("version:N", title="Version"),
                 alt.Tooltip("value:Q", format=".4f")],
    )
    return with_properties(with_properties(alt.layer(rule, points, data=df),
        width=width, height=alt.Step(band_step(len(systems), lo=11, hi=16))
    ).facet(
        facet=alt.Facet("measure_name:N", sort=names, title=None,
                        header=alt.Header(labelFontWeight="bold", labelLimit=int(width + 10))),
        columns=columns,
    ).resolve_scale(x="independent"), title=chart_title(
        title or "Raw vs prevalence-calibrated values",
        "grey: raw; orange: calibrated to balanced prevalence (Opitz, 2022, eq. 5-6)"))


# --------------------------------------------------------------------------------------------
# 8. rank uncertainty


def rank_distribution_chart(rank_distribution: pd.DataFrame, *, measure: str, min_probability: float = 0.005,
                            title: str | None = None, order=None) -> alt.LayerChart:
    """Bubble chart of P(rank = k) for every system under ``measure``: one row per system
    (ordered by expected rank), bubble area and shade proportional to the probability, the
    probability printed in the bubbles big enough to hold it (at least 30%). The chart stays
    within the page width: rank columns narrow down to 14 px and long system names are
    shortened, beginning and end kept and no two alike (full name in the tooltip).

    ``rank_distribution``: (system, measure, rank, probability). ``order``: the systems top to bottom
    (the leaderboard's order; systems not in it follow by expected rank).
    """
    df = require(rank_distribution, ["system", "measure", "rank", "probability"], "rank_distribution_chart")
    df = select(df, "measure", measure, "rank_distribution_chart")[["system", "rank", "probability"]]
    df["system"] = df["system"].astype(str)
    df["probability"] = pd.to_numeric(df["probability"], errors="coerce").astype(float)
    expected = (df["rank"] * df["probability"]).groupby(df["system"]).sum() / \
        df["probability"].groupby(df["system"]).sum()
    systems = expected.sort_values(kind="stable").index.tolist()
    if order is not None:
        given = [str(x) for x in order if str(x) in set(systems)]
        systems = given + [x for x in systems if x not in set(given)]
    df = df[df["probability"] >= min_probability]
    ranks = sorted(pd.unique(df["rank"]))
    # names take the room the rank columns (at least 14 px each) leave on the widest page
    limit = int(min(label_limit(systems), max(110, WIDE_PAGE - 30 - 14 * len(ranks))))
    step = band_step(len(ranks), room=max(14 * len(ranks), PAGE_WIDTH - limit - 30), lo=14, hi=44)
    row = band_step(len(systems), lo=18, hi=32)
    cell = min(step, row)
    biggest = (0.95 * cell) ** 2  # area of the bubble of P = 1: fills its cell
    # a bubble's diameter is 1.07 * cell * sqrt(p): print "NN%" (9 px) only where it fits inside
    printed = float(np.clip(((text_width("100%", 9) + 2) / (1.07 * cell)) ** 2, 0.3, 1.01))
    df["text"] = np.where(df["probability"] >= printed,
                          (df["probability"] * 100).round().astype(int).astype(str) + "%", "")
    base = alt.Chart(df).encode(
        x=alt.X("rank:O", title="Rank (1 = best)", axis=label_axis(0), scale=alt.Scale(domain=ranks)),
        y=alt.Y("system:N", sort=systems, title=None, axis=label_axis(0, limit=limit, names=systems)),
        tooltip=[alt.Tooltip("system:N", title="System"), alt.Tooltip("rank:O", title="Rank"),
                 alt.Tooltip("probability:Q", title="P(rank)", format=".1%")],
    )
    bubbles = base.mark_circle(opacity=0.9).encode(
        size=alt.Size("probability:Q", title="P(rank = k)", scale=alt.Scale(domain=[0, 1], range=[0, biggest]),
                      legend=bottom_legend(format=".0%", values=[0.1, 0.5, 1.0], symbolFillColor="#4292c6")),
        color=alt.Color("probability:Q", scale=sequential(-0.3, 1), legend=None),
    )
    text = base.mark_text(fontSize=9, baseline="middle", color="white").encode(text=alt.Text("text:N"))
    shown = f" (printed from {printed:.0%})" if printed <= 1 else ""
    return with_properties(alt.layer(bubbles, text),
        width=alt.Step(step), height=alt.Step(row),
        title=chart_title(title or f"Rank uncertainty: {short_measure_label(measure)}",
                     f"bubble area = P(rank = k){shown}; systems " + ("in leaderboard order" if order is not None else "by expected rank")))

