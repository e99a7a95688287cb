"""Charts of the multi-label report: label frequencies, labels per item, the
labels x systems heatmaps (F1, calibrated F1, errors) - each ``tidy frame -> alt.Chart``.

Conventions of :mod:`evalreport.charts` hold: inputs are validated (a missing column or an
empty frame is a ValueError), names from the data longer than ``MAX_TEXT`` characters are
shortened by :func:`~evalreport.charts._common.display_text` (full text in the tables), names too
long for their axis are shortened with their beginning and end kept and no two alike
(:func:`~evalreport.charts.names.shorten_names`; full name in the tooltip), and the one theme
styles everything. Labels are shown in the order given (the report passes them most frequent
first), systems in the order given (the leaderboard's).
"""
from __future__ import annotations

import altair as alt
import numpy as np
import pandas as pd

from evalreport.charts._common import (
    LABEL_LIMIT,
    PAGE_WIDTH,
    PLOT_WIDTH,
    UNDEFINED_TEXT,
    band_step,
    bottom_legend,
    chart_title,
    display_text,
    heatmap,
    ink,
    label_limit,
    ordered,
    require,
    sequential,
    shown_names,
    texts,
    with_properties,
)
from evalreport.charts.theme import CATEGORY_COLOURS

__all__ = ["label_frequency", "set_size_heatmap", "label_heatmap", "label_error_heatmap"]

#: Longest label name (px) on the label axis before it is truncated (full name in the tooltip).
LABEL_AXIS_LIMIT = LABEL_LIMIT
#: Up to this many systems get a colour of their own in the label-frequency chart; beyond it
#: every system's tick is one muted colour (a 25-colour legend cannot be read).
MAX_COLOURED_SYSTEMS = len(CATEGORY_COLOURS)


#: Room (px) of a name on a heatmap axis: a longer one is shown with an ellipsis in the middle, its
#: beginning and end kept and no two names alike ("team-02-a-…-words-sys2": participants' names
#: often share a long beginning, so cutting the end would make them all look alike); the tooltip has
#: the full name (:func:`~evalreport.charts.names.middle_ellipsis`).
AXIS_PX = {"system": 140, "label": LABEL_AXIS_LIMIT}


def _axis_names(df: pd.DataFrame, column: str, order: list, kind: str) -> tuple[pd.DataFrame, list]:
    """``df`` with ``<column>_shown`` (:func:`~evalreport.charts._common.shown_names`) and the order in shown names."""
    shown = shown_names(order, AXIS_PX[kind])
    df = df.assign(**{f"{column}_shown": df[column].map(shown).fillna(df[column])})
    return df, [shown[str(v)] for v in order]


def _order(values, order) -> list:
    """``order`` shortened like the data (display_text), else the values in order of appearance."""
    return [display_text(v) for v in order] if order is not None else ordered(values)


def label_frequency(frequency: pd.DataFrame, *, order=None, systems=None, title: str | None = None) -> alt.LayerChart:
    """Share of items that carry each label: a bar for the gold labels, a tick for each system's
    predictions (how often it predicts the label), labels down the side in ``order`` (default:
    order of appearance).

    ``frequency``: (label, source, role, share) with role ``gold`` or ``system`` (``count`` is
    shown in the tooltip when present). Up to :data:`MAX_COLOURED_SYSTEMS` systems are coloured
    and named in a legend; more share one colour (the tooltip names each).
    """
    df = require(frequency, ["label", "source", "role", "share"], "label_frequency")
    df["label"] = df["label"].astype(str)
    df["source"] = df["source"].astype(str)
    df["share"] = pd.to_numeric(df["share"], errors="coerce").astype(float)
    if "count" not in df:
        df["count"] = np.nan
    labels = _order(df["label"], order)
    gold, pred = df[df["role"] == "gold"], df[df["role"] != "gold"]
    sys_order = _order(pred["source"], systems) if not pred.empty else []
    df, labels = _axis_names(df, "label", labels, "label")
    gold, pred = df[df["role"] == "gold"], df[df["role"] != "gold"]
    n = len(labels)
    step = float(np.clip(360 / max(n, 1), 13, 20))
    limit = label_limit(labels, LABEL_AXIS_LIMIT)
    width = float(np.clip(PAGE_WIDTH - limit - 60, 220, PLOT_WIDTH))
    y = alt.Y("label_shown:N", sort=labels, title=None,
              axis=alt.Axis(labelLimit=limit, labelFontSize=float(np.clip(step - 2, 7, 11))))
    top = float(np.nanmax(df["share"])) if np.isfinite(df["share"]).any() else 1.0
    x = alt.X("share:Q", title="Share of items with the label", axis=alt.Axis(format="%"),
              scale=alt.Scale(domain=[0, min(1.0, max(top * 1.05, 0.05))], nice=False))
    tip = [alt.Tooltip("label:N", title="Label"), alt.Tooltip("source:N", title="Source"),
           alt.Tooltip("share:Q", title="Share", format=".1%"), alt.Tooltip("count:Q", title="Items", format=",")]
    bars = alt.Chart(gold).mark_bar(color="#cfd8e3", height={"band": 0.8}).encode(x=x, y=y, tooltip=tip)
    layers = [bars]
    if not pred.empty:
        coloured = len(sys_order) <= MAX_COLOURED_SYSTEMS
        colour = (alt.Color("source:N", title="System", sort=sys_order,
                            scale=alt.Scale(domain=sys_order, range=list(CATEGORY_COLOURS[:len(sys_order)])),
                            legend=alt.Legend(orient="bottom", columns=2, labelLimit=200, titleOrient="left"))
                  if coloured else alt.value(CATEGORY_COLOURS[0]))
        ticks = alt.Chart(pred).mark_tick(thickness=2, size=step * 0.8, opacity=1.0 if coloured else 0.35).encode(
            x=x, y=y, color=colour, tooltip=tip)
        layers.append(ticks)
    sub = ("bar: gold labels; tick: a system's predictions" if not pred.empty else "gold labels")
    return with_properties(alt.layer(*layers), width=width, height=alt.Step(step),
                                         title=chart_title(title or "How often each label is given", sub))


def set_size_heatmap(sizes: pd.DataFrame, *, sources=None, title: str | None = None) -> alt.LayerChart:
    """Labels per item: one row per source (gold first, then the systems in ``sources`` order),
    one column per set size k = 0, 1, 2, ..., each cell the share of items whose set has k
    labels (a histogram per row, darker = more items), printed where it fits.

    ``sizes``: (source, size, items, share).
    """
    df = require(sizes, ["source", "size", "items", "share"], "set_size_heatmap")
    df["source"] = df["source"].astype(str)
    df["size"] = pd.to_numeric(df["size"], errors="coerce").astype(int)
    df["share"] = pd.to_numeric(df["share"], errors="coerce").astype(float)
    rows = _order(df["source"], sources)
    k_max = int(df["size"].max())
    # every size from 0 to the largest seen, so the columns read as a histogram's bins
    full = pd.MultiIndex.from_product([rows, range(k_max + 1)], names=["source", "size"])
    df = df.set_index(["source", "size"]).reindex(full).reset_index()
    df["items"] = df["items"].fillna(0).astype(int)
    df["share"] = df["share"].fillna(0.0)
    df["k"] = df["size"].astype(str)
    top = float(df["share"].max()) or 1.0
    df["fill"] = df["share"]
    df["label"] = [("" if s == 0 else "<1" if round(100 * s) < 1 else f"{100 * s:.0f}") for s in df["share"]]
    df["ink"] = ink(df["share"] / top)
    colour = alt.Fill("fill:Q", title="Share of items", scale=sequential(0, top),
                      legend=bottom_legend(format="%", values=[0, round(top / 2, 2), round(top, 2)]))
    tip = [alt.Tooltip("source:N", title="Source"), alt.Tooltip("k:N", title="Labels per item"),
           alt.Tooltip("items:Q", title="Items", format=","), alt.Tooltip("share:Q", title="Share", format=".1%")]
    df, rows = _axis_names(df, "source", rows, "system")
    limit = label_limit(rows)
    room = float(np.clip(PAGE_WIDTH - limit - 50, 200, PLOT_WIDTH))
    sx = band_step(k_max + 1, room=room, lo=12, hi=36)
    heat = heatmap(df, x="k", y="source_shown", x_title="Labels per item (set size)", y_title=None,
                    x_sort=[str(k) for k in range(k_max + 1)], y_sort=rows, colour=colour, tooltip=tip,
                    width=sx * (k_max + 1), y_limit=limit)
    return with_properties(heat, title=chart_title(title or "Labels per item: gold and each system",
                                        "share of items (%) with a set of k labels; top row: gold"))


def _labels_by_systems(df: pd.DataFrame, labels: list, systems: list, colour: alt.Fill,
                       tooltip: list) -> alt.LayerChart:
    """The labels x systems heatmap of :func:`label_heatmap` and :func:`label_error_heatmap`, sized to the page."""
    limit = label_limit(shown_names(labels, AXIS_PX["label"]).values(), LABEL_AXIS_LIMIT)
    sx = band_step(len(systems), room=min(PLOT_WIDTH, PAGE_WIDTH - limit - 40), lo=12, hi=44)
    sy = band_step(len(labels), lo=12, hi=20)
    df, systems = _axis_names(df, "system", systems, "system")
    df, labels = _axis_names(df, "name", labels, "label")
    return heatmap(df, x="system_shown", y="name_shown", x_title=None, y_title=None, x_sort=systems,
                   y_sort=labels, colour=colour, tooltip=tooltip, width=sx * len(systems),
                   height=sy * len(labels), x_limit=140, y_limit=limit)


def label_heatmap(frame: pd.DataFrame, *, value: str = "f1", order=None, systems=None, title: str | None = None,
                  value_title: str | None = None, marked=()) -> alt.LayerChart:
    """Labels (rows, in ``order``) x systems (columns, in ``systems`` order), each cell ``value``
    (a score in [0, 1], darker = better), printed when the cells are large enough; NaN cells are
    undefined (grey, "—"). ``marked``: labels shown with a trailing " *" (e.g. labels found only in
    predictions), said in the subtitle.

    ``frame``: (system, label, ``value``[, support]).
    """
    df = require(frame, ["system", "label", value], "label_heatmap")
    df["system"] = df["system"].astype(str)
    df["label"] = df["label"].astype(str)
    marked = {display_text(str(m)) for m in marked}
    if marked:
        df["label"] = [f"{lab} *" if lab in marked else lab for lab in df["label"]]
    labels = _order(df["label"], [f"{v} *" if display_text(str(v)) in marked else v for v in order]
                    if order is not None else None)
    cols = _order(df["system"], systems)
    df["value"] = pd.to_numeric(df[value], errors="coerce").astype(float)
    if "support" not in df:
        df["support"] = np.nan
    df["fill"] = df["value"]
    df = df.rename(columns={"label": "name"})
    df["label"] = [t.replace("0.", ".", 1) if t.startswith("0.") else t for t in texts(df["value"], "{:.2f}")]
    df["ink"] = ink(df["value"])
    name = value_title or value
    colour = alt.Fill("fill:Q", title=name, scale=sequential(0, 1), legend=bottom_legend(values=[0, 0.5, 1]))
    tip = [alt.Tooltip("name:N", title="Label"), alt.Tooltip("system:N", title="System"),
           alt.Tooltip("value:Q", title=name, format=".3f"), alt.Tooltip("support:Q", title="Gold items", format=",")]
    heat = _labels_by_systems(df, labels, cols, colour, tip)
    sub = [f"grey '{UNDEFINED_TEXT}' = undefined (0/0); labels most frequent first"]
    if marked:
        sub.append("* = label found only in predictions (no gold items)")
    return with_properties(heat, title=chart_title(title or f"{name} per label and system", *sub))


def label_error_heatmap(label_errors: pd.DataFrame, *, order=None, systems=None,
                        title: str | None = None) -> alt.LayerChart:
    """Labels (rows) x systems (columns): how much each system over- or under-predicts each label,
    as (added - dropped) / gold items of the label (added: predicted, not gold, FP; dropped:
    gold, not predicted, FN). Orange = adds the label too often, blue = drops it; the tooltip has
    both counts. A label without gold items has no ratio: its cell shows the count added.

    ``label_errors``: (system, label, support, added, dropped).
    """
    df = require(label_errors, ["system", "label", "support", "added", "dropped"], "label_error_heatmap")
    df["system"] = df["system"].astype(str)
    df["label"] = df["label"].astype(str)
    for c in ("support", "added", "dropped"):
        df[c] = pd.to_numeric(df[c], errors="coerce").astype(float)
    labels = _order(df["label"], order)
    cols = _order(df["system"], systems)
    net = df["added"] - df["dropped"]
    with np.errstate(all="ignore"):
        ratio = np.where(df["support"] > 0, net / df["support"], np.nan)
    df["net"] = net
    df["ratio"] = ratio
    finite = np.abs(ratio[np.isfinite(ratio)])
    top = float(np.clip(finite.max() if finite.size else 1.0, 0.05, 1.0))
    df["fill"] = np.clip(np.nan_to_num(ratio, nan=0.0), -top, top)
    df.loc[~np.isfinite(ratio), "fill"] = np.where(df.loc[~np.isfinite(ratio), "added"] > 0, top, 0.0)
    df = df.rename(columns={"label": "name"})
    df["label"] = [(f"+{int(a)}" if s <= 0 else f"{100 * r:+.0f}".replace("+0", "0").replace("-0", "0"))
                   for a, s, r in zip(df["added"], df["support"], np.nan_to_num(ratio))]
    df["ink"] = ink(np.abs(df["fill"]) / top)
    colour = alt.Fill("fill:Q", title="(added − dropped) / gold items",
                      scale=alt.Scale(domain=[-top, 0, top], range=["#2166ac", "#f7f7f7", "#d6604d"]),
                      legend=bottom_legend(format="+.0%", values=[-top, 0, top]))
    tip = [alt.Tooltip("name:N", title="Label"), alt.Tooltip("system:N", title="System"),
           alt.Tooltip("support:Q", title="Gold items", format=","),
           alt.Tooltip("added:Q", title="Added (FP)", format=","),
           alt.Tooltip("dropped:Q", title="Dropped (FN)", format=","),
           alt.Tooltip("ratio:Q", title="(added − dropped) / gold", format="+.1%")]
    heat = _labels_by_systems(df, labels, cols, colour, tip)
    return with_properties(heat, title=chart_title(title or "Labels added and dropped",
                                        "(added − dropped) as % of the label's gold items; orange: predicted too "
                                        "often, blue: missed"))
