"""Demšar's critical-difference diagram (Demšar 2006, JMLR 7, section 3.2.2 and Fig. 1): the
average ranks of the systems over the tasks of a benchmark on one axis, 1 (best) at the left,
the systems hung from it on leader lines, the Nemenyi critical difference drawn above the axis
and thick bars joining the systems that are not significantly different. Part of the benchmark
charts (:mod:`evalreport.charts.benchmark`); every position is computed here in pixels
(:func:`cd_layout`), so that tests can check the geometry without rendering."""
from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Literal

import altair as alt
import numpy as np
import pandas as pd

from evalreport.charts._common import (
    CHAR_WIDTH,
    PAGE_WIDTH,
    PLOT_WIDTH,
    chart_title,
    display_text,
    require,
    shown_names,
    text_width,
    with_properties,
)
from evalreport.charts.names import text_px

__all__ = ["cd_diagram", "cd_layout"]

# --------------------------------------------------------------------------------------------
# critical-difference diagram

#: Font (px) of the system names, height (px) of one text line, and the px between a name and
#: the end of its leader line.
CD_FONT, CD_LINE, CD_GAP = 11, 13, 5
#: Extra px between two names (so that the two lines of a broken name read as one name).
CD_SPACE = 5
#: The rank axis is never narrower than this (px); the names share what is left of the page.
CD_MIN_AXIS = 170
_BREAK = re.compile(r"[\s_\-./:+…]")


def _one_line(name: str) -> str:
    """A line break in a name is not ours to draw."""
    return re.sub(r"\s*[\r\n]+\s*", " ", name)


def _wrap(name: str, room: float, size: float = CD_FONT) -> list[str]:
    """``name`` on one line when it fits ``room`` px, else on two lines broken near its middle."""
    name = _one_line(name)
    if text_px(name, size) <= room or len(name) < 4:
        return [name]
    fits = [c for c in range(1, len(name)) if text_px(name[:c], size) <= room and text_px(name[c:], size) <= room]
    cuts = [m.end() for m in _BREAK.finditer(name) if m.end() in fits]
    mid = len(name) / 2
    if cuts:
        cut = min(cuts, key=lambda c: abs(c - mid))
    elif fits:
        cut = min(fits, key=lambda c: abs(c - mid))
    else:
        cut = max(1, int(room // text_px("x", size)))
    return [name[:cut], name[cut:]]


def _names(systems, room: float) -> dict:
    """``{system: shown}``: every name shortened to what two lines of ``room`` px hold (no two alike)."""
    return shown_names([_one_line(s) for s in systems], 2 * room - 2 * CHAR_WIDTH, size=CD_FONT)


def _average_ranks(average_ranks) -> pd.DataFrame:
    if isinstance(average_ranks, Mapping):
        average_ranks = pd.DataFrame({"system": list(average_ranks), "rank": list(average_ranks.values())})
    elif isinstance(average_ranks, pd.Series):
        average_ranks = pd.DataFrame({"system": average_ranks.index, "rank": average_ranks.to_numpy()})
    df = require(average_ranks, ["system", "rank"], "cd_diagram")[["system", "rank"]]
    df["full"] = df["system"].astype(str)
    df["system"] = df["full"].map(display_text)
    df["rank"] = pd.to_numeric(df["rank"], errors="coerce").astype(float)
    if not np.isfinite(df["rank"]).all():
        raise ValueError(f"cd_diagram: average ranks must be finite; got NaN for "
                         f"{df.loc[~np.isfinite(df['rank']), 'system'].tolist()}")
    if df["system"].duplicated().any():
        raise ValueError(f"cd_diagram: systems listed twice: {df.loc[df['system'].duplicated(), 'system'].tolist()}")
    return df.sort_values(["rank"], kind="stable").reset_index(drop=True)


def cd_layout(average_ranks, cd: float | None, cliques=(), *, width: float | None = None) -> dict:
    """Positions (px, y down from the top of the view) of every part of the diagram:
    ``labels`` (system, rank, side, x of the axis point, y of the row, text x, lines, align),
    ``cliques`` (x, x2, y, members), ``axis`` (x0, x1, y, ticks), ``cd`` bar (x, x2, y) and the
    view ``width``/``height``. :func:`cd_diagram` draws exactly these (tests read them back)."""
    df = _average_ranks(average_ranks)
    k = len(df)
    hi = float(max(k, np.ceil(df["rank"].max()), 2))
    if cd is not None and np.isfinite(cd):
        hi = float(max(hi, np.ceil(1 + cd)))   # a CD wider than the axis is drawn whole
    n_left = (k + 1) // 2                    # Demšar: the better half on the left
    df["side"] = ["left"] * n_left + ["right"] * (k - n_left)
    room = (PAGE_WIDTH - 16 - CD_MIN_AXIS) / 2 - CD_GAP - 6
    shown = _names(df["system"], room)
    df["lines"] = [_wrap(shown[_one_line(s)], room) for s in df["system"]]
    text_w = df["lines"].map(lambda ls: min(room, max(text_width(x) for x in ls)))
    margin = {side: float(text_w[df["side"] == side].max()) + CD_GAP + 10 if (df["side"] == side).any() else 10.0
              for side in ("left", "right")}
    if width is None:   # the axis takes what the names leave of the page, at most PLOT_WIDTH
        width = margin["left"] + margin["right"] + float(
            np.clip(PAGE_WIDTH - 16 - margin["left"] - margin["right"], CD_MIN_AXIS, PLOT_WIDTH))
    axis_w = width - margin["left"] - margin["right"]
    if axis_w < 60:
        raise ValueError(f"cd_diagram: width={width} leaves {axis_w:.0f} px for the rank axis")

    def px(r):
        return margin["left"] + (np.asarray(r, dtype=float) - 1) / (hi - 1) * axis_w

    y_cd, y_axis = 16.0, 48.0
    # clique bars: thick bars below the axis, packed on rows so that bars never touch
    bars = []
    members = []
    known = set(df["system"])
    for clique in cliques or ():
        names = [display_text(str(s)) for s in clique]
        unknown = [s for s in names if s not in known]
        if unknown:
            raise ValueError(f"cd_diagram: clique members {unknown} have no average rank")
        if len(names) < 2:
            continue
        r = df.set_index("system").loc[names, "rank"]
        members.append(names)
        bars.append((float(px(r.min())) - 3, float(px(r.max())) + 3))
    rows_end: list[float] = []
    clique_rows = []
    for (x0, x1), names in sorted(zip(bars, members), key=lambda b: b[0]):
        row = next((i for i, end in enumerate(rows_end) if x0 > end + 6), len(rows_end))
        if row == len(rows_end):
            rows_end.append(x1)
        else:
            rows_end[row] = x1
        clique_rows.append({"x": x0, "x2": x1, "row": row, "members": ", ".join(names)})
    cliques_df = pd.DataFrame(clique_rows, columns=["x", "x2", "row", "members"])
    cliques_df["y"] = y_axis + 12 + 7 * cliques_df["row"].astype(float)
    top = y_axis + 12 + 7 * len(rows_end) + 10
    # the rows of the names: the best system of the left half and the worst of the right half
    # highest, so that no leader line crosses another (Demšar's Fig. 1)
    df["x"] = px(df["rank"])
    rows_y = np.zeros(k)
    for idx in (np.arange(n_left), np.arange(k - 1, n_left - 1, -1)):     # left side, then right
        y = top
        for i in idx:
            rows_y[i] = y                    # the leader meets the first line of the name
            y += CD_LINE * len(df.at[i, "lines"]) + CD_SPACE
    df["y"] = rows_y
    df["align"] = np.where(df["side"] == "left", "right", "left")
    df["text_x"] = np.where(df["side"] == "left", margin["left"] - CD_GAP, width - margin["right"] + CD_GAP)
    df["end_x"] = np.where(df["side"] == "left", margin["left"], width - margin["right"])
    df["text_w"] = text_w
    last = df["y"] + CD_LINE * (df["lines"].map(len) - 1)
    height = float(last.max() + CD_LINE) if k else top
    # ticks at every half rank while they are 8 px apart, else at whole ranks; numbers at 1 and
    # every 1, 2, 5, 10 ... ranks, at least 6 px of space between two numbers
    per_rank = axis_w / (hi - 1)
    ticks = np.arange(1, hi + 0.25, 0.5 if per_rank >= 16 else 1.0)
    widest = text_width(f"{hi:.0f}") + 6
    every = next(e for e in (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000) if e * per_rank >= widest)
    numbered: list[float] = []
    for v in [1.0] + [float(v) for v in np.arange(every, hi + 0.25, every) if v > 1]:
        gap = (v - numbered[-1]) * per_rank if numbered else np.inf
        if gap >= (text_width(f"{v:.0f}") + text_width(f"{numbered[-1] if numbered else 1:.0f}")) / 2 + 6:
            numbered.append(v)
    cd_bar = None
    if cd is not None and np.isfinite(cd):
        cd_bar = {"x": float(px(1)), "x2": float(px(1 + cd)), "y": y_cd, "cd": float(cd)}
    return {"labels": df, "cliques": cliques_df, "cd": cd_bar, "width": float(width), "height": height,
            "axis": {"x0": float(px(1)), "x1": float(px(hi)), "y": y_axis, "ticks": ticks, "tick_x": px(ticks),
                     "numbered": numbered, "room": room}}


def cd_diagram(average_ranks, cd: float | None, cliques=(), *, title: str | None = None,
               width: float | None = None, alpha: float | None = None) -> alt.LayerChart:
    """Demšar's critical-difference diagram (Demšar 2006, JMLR 7, Fig. 1 and 2).

    ``average_ranks``: DataFrame (system, rank) - each system's average rank over the tasks
    (a ``{system: rank}`` mapping or Series is accepted too); ``cd``: the Nemenyi critical
    difference (None: no CD bar, e.g. when the cliques come from another test); ``cliques``:
    the groups of systems not significantly different (``cd_cliques``), each drawn as a thick
    bar from its best to its worst member; groups of one are not drawn.

    Conventions: rank 1 (best) is at the LEFT end of the axis, as Demšar draws it; the better
    half of the systems is labelled on the left, the worse half on the right, each name on
    its own row, joined to its rank by a leader line (rows ordered so that no two leader lines
    cross). A name too long for its side is broken onto two lines at a separator; one too long
    for two lines is shortened first, its beginning and end kept and no two names alike (the
    full name and the average rank are in the tooltip). Everything is placed in pixels by :func:`cd_layout`.
    """
    lay = cd_layout(average_ranks, cd, cliques, width=width)
    labels, ax = lay["labels"], lay["axis"]
    px_x = alt.X("x:Q", scale=None, axis=None)
    px_y = alt.Y("y:Q", scale=None, axis=None)
    layers = []
    # the rank axis: a line, ticks at every half rank (longer at whole ranks), the rank numbers
    tick_df = pd.DataFrame({"x": ax["tick_x"], "value": ax["ticks"]})
    tick_df["y"] = ax["y"]
    tick_df["y2"] = np.where(np.isclose(tick_df["value"] % 1, 0), ax["y"] - 7, ax["y"] - 4)
    tick_df["text"] = [f"{v:.0f}" if any(np.isclose(v, n) for n in ax["numbered"]) else "" for v in tick_df["value"]]
    axis_df = pd.DataFrame({"x": [ax["x0"]], "x2": [ax["x1"]], "y": [ax["y"]]})
    layers.append(alt.Chart(axis_df).mark_rule(color="#444444", strokeWidth=1.2).encode(
        x=px_x, x2=alt.X2("x2:Q"), y=px_y))
    layers.append(alt.Chart(tick_df).mark_rule(color="#444444").encode(x=px_x, y=px_y, y2=alt.Y2("y2:Q")))
    layers.append(alt.Chart(tick_df[tick_df["text"] != ""]).mark_text(
        baseline="bottom", fontSize=11, color="#444444", dy=-9).encode(x=px_x, y=px_y, text=alt.Text("text:N")))
    # the CD interval above the axis, its value over it
    subtitle = []
    if lay["cd"] is not None:
        c = lay["cd"]
        cd_df = pd.DataFrame({"x": [c["x"]], "x2": [c["x2"]], "y": [c["y"]],
                              "text": [f"CD = {c['cd']:.2f}"], "mid": [(c["x"] + c["x2"]) / 2]})
        ends = pd.DataFrame({"x": [c["x"], c["x2"]], "y": [c["y"] - 4] * 2, "y2": [c["y"] + 4] * 2})
        layers.append(alt.Chart(cd_df).mark_rule(strokeWidth=1.5, color="#222222").encode(
            x=px_x, x2=alt.X2("x2:Q"), y=px_y))
        layers.append(alt.Chart(ends).mark_rule(strokeWidth=1.5, color="#222222").encode(
            x=px_x, y=px_y, y2=alt.Y2("y2:Q")))
        layers.append(alt.Chart(cd_df).mark_text(baseline="bottom", dy=-5, fontSize=11, align="left").encode(
            x=alt.X("x:Q", scale=None, axis=None), y=px_y, text=alt.Text("text:N")))
        subtitle.append(f"critical difference (Nemenyi{f', alpha = {alpha:g}' if alpha else ''}) = {c['cd']:.3f}")
    # leader lines: down from the rank to the row, then out to the name
    tip = [alt.Tooltip("full:N", title="System"), alt.Tooltip("rank:Q", title="Average rank", format=".3f")]
    lab = labels[["system", "full", "rank", "x", "y", "end_x", "text_x", "align", "side"]].copy()
    lab["axis_y"] = ax["y"]
    layers.append(alt.Chart(lab).mark_rule(color="#666666").encode(x=px_x, y=alt.Y("axis_y:Q", scale=None, axis=None),
                                                                   y2=alt.Y2("y:Q"), tooltip=tip))
    layers.append(alt.Chart(lab).mark_rule(color="#666666").encode(x=px_x, x2=alt.X2("end_x:Q"), y=px_y, tooltip=tip))
    layers.append(alt.Chart(lab).mark_tick(orient="vertical", color="#222222", thickness=2, size=9).encode(
        x=px_x, y=alt.Y("axis_y:Q", scale=None, axis=None), tooltip=tip))
    # thick bars joining the systems of each clique
    if not lay["cliques"].empty:
        layers.append(alt.Chart(lay["cliques"]).mark_rule(strokeWidth=4, color="#000000", strokeCap="round").encode(
            x=px_x, x2=alt.X2("x2:Q"), y=px_y, tooltip=[alt.Tooltip("members:N", title="Not significantly different")]))
    # the names (one text layer per side: the alignment is a mark property)
    sides: tuple[tuple[str, Literal["left", "right"]], ...] = (("left", "right"), ("right", "left"))
    for side, align in sides:
        rows = labels[labels["side"] == side]
        if rows.empty:
            continue
        data = rows[["full", "rank", "y", "text_x"]].assign(text=["\n".join(ls) for ls in rows["lines"]])
        layers.append(alt.Chart(data).mark_text(
            align=align, baseline="middle", fontSize=CD_FONT, lineBreak="\n", lineHeight=CD_LINE,
            limit=int(ax["room"])).encode(x=alt.X("text_x:Q", scale=None, axis=None), y=px_y, text=alt.Text("text:N"),
                                          tooltip=tip))
    subtitle.insert(0, "average rank over the tasks, 1 = best at the left; bars join systems not "
                       "significantly different" if len(lay["cliques"]) else
                       "average rank over the tasks, 1 = best at the left")
    return with_properties(alt.layer(*layers),
        width=lay["width"], height=lay["height"], title=chart_title(title or "Critical-difference diagram", *subtitle))
