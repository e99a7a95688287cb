"""Score curves: ROC and precision-recall curves of every system, and the reliability diagram.

The frames are those of :mod:`evalreport.analyses.curves`: ``roc_curves`` (system, class, fpr,
tpr, threshold), ``pr_curves`` (system, class, recall, precision, threshold) and ``reliability``
(system, bin, lo, hi, confidence, accuracy, count). A binary task has one class (the positive
one) and one panel; with several classes each class is a panel of its own (one-vs-rest), small
multiples that read the same on screen and in print.

Many systems: the first :data:`MAX_LINES` systems of the given order (the leaderboard's) are
drawn in colour, the others as thin grey lines behind them, so that the field's spread stays
visible without a legend of 100 names. Long names are shortened in the legend and panel titles
(beginning and end kept, no two alike; :func:`~evalreport.charts.names.shorten_names`), the full
name in the tooltip.

A curve of 4,000 items has thousands of points, most a fraction of a pixel apart: each drawn curve
is simplified (Ramer-Douglas-Peucker, :mod:`~evalreport.charts.simplify`) to the points that keep it
within half a pixel of the exact curve on its panel (a grey one within a pixel; :data:`CURVE_PIXELS`,
:data:`REST_PIXELS`), at most :data:`CURVE_POINTS` (:data:`REST_POINTS`) per curve, its
coordinates rounded to :data:`DECIMALS` decimals, and carried as one inline CSV text. 100 systems of
12 classes drew 13 MB of curve data in the report before, 1.7 MB now (docs/benchmark.md). The exact
curves, every point, are in the tables (``roc_curve.csv``, ``pr_curve.csv``).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

import altair as alt
import numpy as np
import pandas as pd

from evalreport.charts._common import (
    PAGE_WIDTH,
    WIDE_PAGE,
    chart_title,
    display_text,
    in_order,
    label_expr,
    require,
    shown_names,
    with_properties,
)
from evalreport.charts.names import text_px
from evalreport.charts.simplify import simplify, staircase
from evalreport.charts.theme import CATEGORY_COLOURS, MUTED_COLOUR

__all__ = ["roc_chart", "pr_chart", "reliability_chart", "MAX_LINES", "MAX_PANELS", "thin_curves"]

#: Systems drawn in colour (the theme's palette has this many colours); the others are grey.
MAX_LINES = len(CATEGORY_COLOURS)
#: Class panels drawn at most (the classes the caller lists first; the CSV keeps every class).
MAX_PANELS = 12
#: Most points kept per coloured curve, and per grey one (a cap that the tolerances below rarely reach).
CURVE_POINTS, REST_POINTS = 1000, 400
#: How far (px on the panel) a drawn coloured curve, and a grey one, may depart from the exact curve:
#: half a pixel for the curves a reader follows, one for the thin grey field behind them.
CURVE_PIXELS, REST_PIXELS = 0.5, 1.0
#: The tolerance (axis units) of :func:`thin_curves` when none is given: half a pixel of a 240 px panel.
TOLERANCE = 0.002
#: Decimals of the drawn coordinates, and the most rounding moves a point (its share of the tolerance).
DECIMALS = 4
ROUNDING = 0.5 * 10.0 ** -DECIMALS * 2 ** 0.5
#: Significant digits of the thresholds in the tooltips.
THRESHOLD_DIGITS = 4
#: Reliability panels (one per system) drawn at most.
MAX_RELIABILITY = 9
REST_COLOUR = "#bbbbbb"
#: Room (px) for the y-axis labels of a reliability panel, the same above and below: the plots align.
AXIS_EXTENT = 30
CHANCE_COLOUR = "#777777"
#: The ROC and precision-recall chance line: darker than any curve's colour, so that it shows on top of a
#: system without skill that runs along it.
CHANCE_LINE = "#222222"


def thin_curves(df: pd.DataFrame, x: str, y: str, keys: Sequence[str], n: int, *,
                tolerance: float = TOLERANCE, steps: bool = False) -> pd.DataFrame:
    """The rows of ``df`` to draw: per curve (the rows of one value of ``keys``, in their order), the
    points that a straight polyline through them needs to stay within ``tolerance`` of the full
    curve (Ramer-Douglas-Peucker, :func:`~evalreport.charts.simplify.simplify`), at most ``n``, the
    first and last kept, the coordinates rounded to :data:`DECIMALS` decimals (the rounding counted
    in the tolerance); a ``step`` column numbers the kept points of each curve in their order.

    Parameters
    ----------
    df : DataFrame
        The curves, each one's points in drawing order.
    x, y : str
        The columns of the coordinates (in [0, 1]).
    keys : sequence of str
        The columns that name a curve.
    n : int
        Most points kept per curve (at least 2); a curve that needs more departs by more than the tolerance.
    tolerance : float
        The farthest (Euclidean distance, axis units) a point of the full curve may lie from the drawn line.
    steps : bool
        Draw the curve as steps (each interval of ``x`` at the ``y`` of its right end, as average precision
        sums a precision-recall curve): the corners become rows of their own, then the staircase is thinned.

    Returns
    -------
    DataFrame
        The kept rows with ``step``; a corner row carries the other columns of the point it leads to.
    """
    xy = df[[x, y]].to_numpy(float)
    df = df[np.isfinite(xy).all(axis=1)]
    if df.empty:
        return df.assign(step=pd.Series(dtype=int))
    group = df.groupby(list(keys), sort=False).ngroup().to_numpy()
    if (np.diff(group) < 0).any():           # a curve's rows apart: bring them together, in their order
        df, group = df.iloc[np.argsort(group, kind="stable")], np.sort(group, kind="stable")
    starts = np.flatnonzero(np.r_[True, group[1:] != group[:-1]])
    px, py = df[x].to_numpy(float), df[y].to_numpy(float)
    owner = np.arange(len(df))
    if steps:
        px, py, owner = staircase(px, py, starts)
        starts = np.searchsorted(owner, starts)
    keep = simplify(np.c_[px, py], starts, max(tolerance - ROUNDING, 0.0), n)
    out = df.iloc[owner[keep]].assign(**{x: np.round(px[keep], DECIMALS), y: np.round(py[keep], DECIMALS)})
    curve = np.searchsorted(starts, np.flatnonzero(keep), side="right") - 1
    return out.assign(step=np.arange(len(out)) - np.searchsorted(curve, curve)).reset_index(drop=True)


def drawn_tolerance(side: float, pixels: float) -> float:
    """The tolerance (axis units of a [0, 1] axis) that is ``pixels`` px on a panel of ``side`` px."""
    return pixels / side


def _systems(df: pd.DataFrame, systems, max_lines: int) -> tuple[list[str], list[str]]:
    """The systems drawn in colour (the first ``max_lines`` of ``systems``' order) and the rest."""
    order = in_order(df["system"], systems)
    return order[:max_lines], order[max_lines:]


def _classes(df: pd.DataFrame, classes) -> list[str]:
    return in_order(df["class"], classes)[:MAX_PANELS]


def _layout(n_panels: int) -> tuple[int, float]:
    """Columns and the side (px) of one square panel: one large panel, else two or three a row."""
    if n_panels == 1:
        return 1, 300.0
    columns = 2 if n_panels in (2, 4) else 3
    return columns, float(np.clip((WIDE_PAGE - 40 - 55 * columns) / columns, 140, 240))


def _ticks(side: float) -> list[float]:
    """Tick values of a [0, 1] axis of ``side`` px: quarters when there is room, else 0, 0.5, 1."""
    return [0.0, 0.25, 0.5, 0.75, 1.0] if side >= 200 else [0.0, 0.5, 1.0]


def _legend(shown: list[str], width: float) -> alt.Legend:
    """A legend under the chart, in as many columns as its (shortened) names fit."""
    names = shown_names(shown, 220)
    widest = max((text_px(s) for s in names.values()), default=10.0) + 35
    columns = int(max(1, min(len(shown), (width - 10) // widest)))
    kw: dict[str, Any] = {"labelExpr": expr} if (expr := label_expr(names)) is not None else {}
    return alt.Legend(orient="bottom", direction="horizontal", columns=columns, labelLimit=230,
                      symbolType="stroke", title=None, **kw)


def _inline_csv(x: str, y: str, *frames: pd.DataFrame) -> alt.InlineData:
    """The rows of ``frames`` as the chart's inline data, one CSV text (the column names once, not
    on every row: a third of the JSON records' size) with every column's type declared, so that a
    name that reads as a number stays a name; a missing value is an empty field (Vega reads null),
    the thresholds rounded to :data:`THRESHOLD_DIGITS` significant digits."""
    columns = ["system", "class", x, y, "threshold", "step", "kind"]
    data = pd.concat([f.reindex(columns=columns) for f in frames], ignore_index=True)
    t = pd.to_numeric(data["threshold"], errors="coerce").to_numpy(float)
    data["threshold"] = [f"{v:.{THRESHOLD_DIGITS}g}" if np.isfinite(v) else "" for v in t]
    data["step"] = data["step"].astype(int)
    parse = {"system": "string", "class": "string", x: "number", y: "number", "threshold": "number",
             "step": "number", "kind": "string"}
    return alt.InlineData(values=data.to_csv(index=False, lineterminator="\n"),
                          format=alt.CsvDataFormat(type="csv", parse=parse))


def _curve_chart(df: pd.DataFrame, *, x: str, y: str, x_title: str, y_title: str, chance: pd.DataFrame,
                 systems, classes, max_lines: int, interpolate: Literal["linear", "step-before"], tooltip: list,
                 title: str, subtitle: list[str]) -> alt.TopLevelMixin:
    """The shared skeleton of the ROC and precision-recall charts (see :func:`roc_chart`)."""
    df["system"] = df["system"].astype(str)
    df["class"] = df["class"].astype(str)
    shown_classes = _classes(df, classes)
    coloured, rest = _systems(df, systems, max_lines)
    n_classes = df["class"].nunique()
    df = df[df["class"].isin(shown_classes)]
    columns, side = _layout(len(shown_classes))
    steps = interpolate == "step-before"
    lines = thin_curves(df[df["system"].isin(coloured)], x, y, ["system", "class"], CURVE_POINTS,
                        tolerance=drawn_tolerance(side, CURVE_PIXELS), steps=steps)
    grey = thin_curves(df[df["system"].isin(rest)], x, y, ["system", "class"], REST_POINTS,
                       tolerance=drawn_tolerance(side, REST_PIXELS), steps=steps)
    data = _inline_csv(x, y, lines.assign(kind="curve"), grey.drop(columns="threshold").assign(kind="rest"),
                       chance[chance["class"].isin(shown_classes)].assign(kind="chance"))
    scale = alt.Scale(domain=[0, 1], nice=False)
    x_enc = alt.X(f"{x}:Q", title=x_title, scale=scale, axis=alt.Axis(values=_ticks(side), format=".2~f"))
    y_enc = alt.Y(f"{y}:Q", title=y_title, scale=scale, axis=alt.Axis(values=_ticks(side), format=".2~f"))
    base = alt.Chart().encode(x=x_enc, y=y_enc)
    layers = []
    if rest:
        layers.append(base.mark_line(color=REST_COLOUR, strokeWidth=0.8, opacity=0.6)
                      .encode(detail="system:N", order=alt.Order("step:Q"))
                      .transform_filter("datum.kind == 'rest'"))
    colour = alt.Color("system:N", sort=coloured, title=None,
                       scale=alt.Scale(domain=coloured, range=list(CATEGORY_COLOURS[:len(coloured)])),
                       legend=_legend(coloured, columns * (side + 55)) if len(coloured) + len(rest) > 1 else None)
    layers.append(base.mark_line(strokeWidth=1.8).encode(
        color=colour, order=alt.Order("step:Q"), tooltip=tooltip).transform_filter("datum.kind == 'curve'"))
    # the chance line last, on top: a system with no skill (the prior) runs along it and would hide it
    layers.append(base.mark_line(color=CHANCE_LINE, strokeDash=[5, 4], strokeWidth=1.5).encode(
        order=alt.Order("step:Q")).transform_filter("datum.kind == 'chance'"))
    if rest:
        subtitle = [*subtitle, f"coloured: the first {len(coloured)} of {len(coloured) + len(rest)} systems; "
                               f"grey: the other {len(rest)}"]
    head = chart_title(title, *subtitle)
    layer = alt.layer(*layers, data=data)
    if len(shown_classes) == 1:
        return with_properties(layer, width=side, height=side, title=head)
    if n_classes > len(shown_classes):
        head = chart_title(title, *subtitle, f"the first {len(shown_classes)} of {n_classes} classes")
    names = shown_names(shown_classes, side)
    kw: dict[str, Any] = {"labelExpr": e} if (e := label_expr(names)) is not None else {}
    header = alt.Header(labelFontWeight="bold", labelLimit=int(side), **kw)
    return with_properties(with_properties(layer, width=side, height=side).facet(
        facet=alt.Facet("class:N", sort=shown_classes, title=None, header=header), columns=columns), title=head)


def roc_chart(roc: pd.DataFrame, *, systems=None, classes=None, max_lines: int = MAX_LINES,
              title: str | None = None) -> alt.TopLevelMixin:
    """ROC curves of every system: true-positive against false-positive rate, the diagonal the
    chance line (AUC 0.5). One panel for a binary task, else one panel per class (one-vs-rest).

    Parameters
    ----------
    roc : DataFrame
        system, class, fpr, tpr, threshold; each curve's points in the order they are joined.
    systems : sequence of str, optional
        The order of the systems (the leaderboard's): the first ``max_lines`` are coloured.
    classes : sequence of str, optional
        The order of the panels (at most :data:`MAX_PANELS`).
    max_lines : int
        Systems drawn in colour; the others are grey lines.
    title : str, optional
        The chart's title.

    Returns
    -------
    altair.LayerChart or altair.FacetChart
    """
    df = require(roc, ["system", "class", "fpr", "tpr", "threshold"], "roc_chart")
    classes_all = in_order(df["class"].astype(str), classes)
    chance = pd.DataFrame({"class": np.repeat(classes_all, 2), "fpr": [0.0, 1.0] * len(classes_all),
                           "tpr": [0.0, 1.0] * len(classes_all), "step": [0, 1] * len(classes_all)})
    single = df["class"].nunique() == 1
    tooltip = [alt.Tooltip("system:N", title="System"), alt.Tooltip("class:N", title="Class"),
               alt.Tooltip("fpr:Q", title="False-positive rate", format=".3f"),
               alt.Tooltip("tpr:Q", title="True-positive rate", format=".3f"),
               alt.Tooltip("threshold:Q", title="Threshold", format=".4g")]
    what = f"positive class: {classes_all[0]}" if single else "each class against the rest"
    return _curve_chart(df, x="fpr", y="tpr", x_title="False-positive rate", y_title="True-positive rate",
                        chance=chance, systems=systems, classes=classes, max_lines=max_lines, interpolate="linear",
                        tooltip=tooltip, title=title or "ROC curves",
                        subtitle=[f"{what}; dashed: chance (AUC 0.5)"])


def pr_chart(pr: pd.DataFrame, *, prevalence: Mapping[str, float] | None = None, systems=None, classes=None,
             max_lines: int = MAX_LINES, title: str | None = None) -> alt.TopLevelMixin:
    """Precision-recall curves of every system, drawn as steps (each interval of recall at the
    precision of its right end, the steps that average precision sums; Davis & Goadrich 2006 show
    why a straight line between points is too optimistic), with the class's prevalence as the chance
    line (a system that ranks items at random has that precision at every recall).

    Parameters
    ----------
    pr : DataFrame
        system, class, recall, precision, threshold; each curve's points in the order they are joined.
    prevalence : mapping of str to float, optional
        Each class's share of the gold labels: the chance line (none drawn for a class without it).
    systems, classes, max_lines, title
        As for :func:`roc_chart`.

    Returns
    -------
    altair.LayerChart or altair.FacetChart
    """
    df = require(pr, ["system", "class", "recall", "precision", "threshold"], "pr_chart")
    classes_all = in_order(df["class"].astype(str), classes)
    # (keys as the frame shows them: a name longer than MAX_TEXT is shortened there)
    shares = {display_text(str(k)): float(v) for k, v in (prevalence or {}).items() if np.isfinite(float(v))}
    known = [c for c in classes_all if c in shares]
    chance = pd.DataFrame({"class": np.repeat(known, 2), "recall": [0.0, 1.0] * len(known),
                           "precision": np.repeat([shares[c] for c in known], 2), "step": [0, 1] * len(known)})
    single = df["class"].nunique() == 1
    tooltip = [alt.Tooltip("system:N", title="System"), alt.Tooltip("class:N", title="Class"),
               alt.Tooltip("recall:Q", title="Recall", format=".3f"),
               alt.Tooltip("precision:Q", title="Precision", format=".3f"),
               alt.Tooltip("threshold:Q", title="Threshold", format=".4g")]
    what = f"positive class: {classes_all[0]}" if single else "each class against the rest"
    chance_words = ("dashed: chance (the class's prevalence" + (f", {shares[known[0]]:.3f}" if single and known
                                                               else "") + ")") if known else ""
    return _curve_chart(df, x="recall", y="precision", x_title="Recall", y_title="Precision", chance=chance,
                        systems=systems, classes=classes, max_lines=max_lines, interpolate="step-before",
                        tooltip=tooltip, title=title or "Precision-recall curves",
                        subtitle=["; ".join(p for p in (what, chance_words) if p)])


def _reliability_panel(rows: pd.DataFrame, name: str, side: float, ece: float | None) -> alt.VConcatChart:
    """One system's reliability diagram over its confidence histogram."""
    total = float(rows["count"].sum())
    rows = rows.assign(share=rows["count"] / total if total > 0 else 0.0)
    scale = alt.Scale(domain=[0, 1], nice=False)
    drawn = rows[(rows["count"] > 0) & np.isfinite(rows["confidence"]) & np.isfinite(rows["accuracy"])]
    tooltip = [alt.Tooltip("system:N", title="System"), alt.Tooltip("lo:Q", title="bin from", format=".3f"),
               alt.Tooltip("hi:Q", title="bin to", format=".3f"),
               alt.Tooltip("confidence:Q", title="Mean confidence", format=".3f"),
               alt.Tooltip("accuracy:Q", title="Accuracy", format=".3f"), alt.Tooltip("count:Q", title="Items")]
    diagonal = alt.Chart(pd.DataFrame({"x": [0.0, 1.0]})).mark_line(
        color=CHANCE_COLOUR, strokeDash=[5, 4], strokeWidth=1.2).encode(
        x=alt.X("x:Q", scale=scale, title=None), y=alt.Y("x:Q", scale=scale, title=None))
    base = alt.Chart(drawn).encode(
        x=alt.X("confidence:Q", scale=scale, title=None, axis=alt.Axis(values=_ticks(side), labels=False)),
        y=alt.Y("accuracy:Q", scale=scale, title="Accuracy", axis=alt.Axis(values=_ticks(side), format=".2~f", minExtent=AXIS_EXTENT)),
        tooltip=tooltip)
    gaps = alt.Chart(drawn).mark_rule(color="#D55E00", strokeWidth=1.5, opacity=0.7).encode(
        x=alt.X("confidence:Q", scale=scale), y=alt.Y("accuracy:Q", scale=scale), y2=alt.Y2("confidence:Q"))
    curve = alt.layer(diagonal, gaps, base.mark_line(color=CATEGORY_COLOURS[0], strokeWidth=1.5),
                      base.mark_point(color=CATEGORY_COLOURS[0], size=18, filled=True))
    top = with_properties(curve, width=side, height=side,
                          title=alt.TitleParams(name, subtitle=[f"ECE {ece:.3f}"] if ece is not None else [],
                                                fontSize=12, limit=side + 30))
    hist = alt.Chart(rows).mark_rect(color=MUTED_COLOUR, opacity=0.6).encode(
        x=alt.X("lo:Q", scale=scale, title="Confidence", axis=alt.Axis(values=_ticks(side), format=".2~f")), x2=alt.X2("hi:Q"),
        y=alt.Y("share:Q", title="Items", axis=alt.Axis(format="%", tickCount=2, minExtent=AXIS_EXTENT)),
        tooltip=[alt.Tooltip("lo:Q", title="bin from", format=".3f"), alt.Tooltip("hi:Q", title="bin to", format=".3f"),
                 alt.Tooltip("count:Q", title="Items"), alt.Tooltip("share:Q", title="Share", format=".1%")])
    return alt.vconcat(top, with_properties(hist, width=side, height=max(40.0, side / 3)), spacing=4)


def reliability_chart(rel: pd.DataFrame, *, systems=None, ece: Mapping[str, float] | None = None,
                      max_panels: int = MAX_RELIABILITY, title: str | None = None) -> alt.ConcatChart:
    """Reliability diagrams (Guo et al. 2017, Figure 1): per system, the accuracy of the items in
    each confidence bin against their mean top-label confidence, the diagonal being perfect
    calibration and the orange bars the gap to it, over the histogram of the confidences (the
    share of items in each bin: a gap in a nearly empty bin matters little).

    Parameters
    ----------
    rel : DataFrame
        system, bin, lo, hi, confidence, accuracy, count (a bin without items: count 0).
    systems : sequence of str, optional
        The systems drawn, in this order (default: every system, in order of appearance); at most
        ``max_panels``.
    ece : mapping of str to float, optional
        Each system's expected calibration error, printed under its name.
    max_panels : int
        Most panels drawn.
    title : str, optional
        The chart's title.

    Returns
    -------
    altair.ConcatChart
    """
    df = require(rel, ["system", "bin", "lo", "hi", "confidence", "accuracy", "count"], "reliability_chart")
    df["system"] = df["system"].astype(str)
    for col in ("lo", "hi", "confidence", "accuracy", "count"):
        df[col] = pd.to_numeric(df[col], errors="coerce").astype(float)
    wanted = None if systems is None else {display_text(str(s)) for s in systems}
    order = [s for s in in_order(df["system"], systems) if wanted is None or s in wanted]
    every = df["system"].nunique()
    order = order[:max_panels]
    columns = 2 if len(order) in (2, 4) else min(3, len(order))
    side = float(np.clip((PAGE_WIDTH + 40 - 60 * columns) / columns, 120, 260))
    names = shown_names(order, side + 30, size=12)
    errors = {display_text(str(k)): float(v) for k, v in (ece or {}).items()}
    panels = [_reliability_panel(df[df["system"] == s], names[s], side,
                                 float(errors[s]) if s in errors and np.isfinite(errors[s]) else None)
              for s in order]
    subtitle = ["dashed: perfect calibration; orange: the gap in each bin; grey bars: share of the system's items"]
    if len(order) < every:
        subtitle.append(f"{len(order)} of {every} systems")
    return with_properties(alt.concat(*panels, columns=columns, spacing=14),
                           title=chart_title(title or "Reliability of the top-label confidence", *subtitle))
