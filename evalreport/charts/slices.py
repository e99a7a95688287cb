"""Slices of the test set (domains, languages, length bins): a system x slice heatmap and small
multiples of the per-slice leaderboards.

Both read the ``slices`` table of :mod:`evalreport.analyses.slices` (system, slice_col, slice,
measure, value, lo, hi, n, rank, best, small, ...). Systems come in the order given (the overall
leaderboard's), slices in the order of the table (numeric bins in their natural order). A small slice
(too few items for an interval) keeps its value and is marked: an asterisk after its name and a
dashed outline on its cells; the best system of each slice has a dark outline.
"""
from __future__ import annotations

from typing import Any

import altair as alt
import numpy as np
import pandas as pd

from evalreport.charts._common import (
    PAGE_WIDTH,
    WIDE_PAGE,
    chart_title,
    display_text,
    heatmap,
    in_order,
    ink,
    is_higher_better,
    label_limit,
    ordered,
    require,
    select,
    sequential,
    shown_names,
    texts,
    with_properties,
)
from evalreport.charts.names import label_expr
from evalreport.charts.theme import CATEGORY_COLOURS, MUTED_COLOUR, TEXT_COLOUR
from evalreport.measures.labels import measure_label

__all__ = ["slice_heatmap", "slice_leaderboards", "slice_names", "slice_value_domain", "SMALL_MARK",
           "MAX_PANEL_SYSTEMS"]

#: Added to the name of a slice with too few items for an interval.
SMALL_MARK = " *"
#: Longest system name (px) on the rows of the heatmap and the panels.
SYSTEM_LIMIT = 220
#: Systems drawn in each panel of the small multiples (the first of the leaderboard; the heatmap has all),
#: and fewer with more than :data:`MANY_SLICES` slices, so that the panels of 30 slices stay within a page.
MAX_PANEL_SYSTEMS, MANY_SLICES, FEW_PANEL_SYSTEMS = 12, 12, 8
#: Longest system name (px) beside the panels (with more than :data:`MANY_SLICES` slices: the second).
PANEL_SYSTEM_LIMIT, MANY_SLICE_SYSTEM_LIMIT = 150, 110
_COLUMNS = ["system", "slice_col", "slice", "measure", "value", "n", "best", "small"]


def _flag(values) -> np.ndarray:
    """Booleans from a column read back from CSV ("True"/"False" text) or written as bool."""
    return np.array([str(v).strip().lower() in ("true", "1", "1.0") for v in values], dtype=bool)


def _rows(slices: pd.DataFrame, measure: str, slice_col: str | None, what: str) -> tuple[pd.DataFrame, str]:
    """The rows of one measure and one slice column (default: the first), text columns as str."""
    df = require(slices, _COLUMNS, what)
    df = select(df, "measure", measure, what)
    cols = ordered(df["slice_col"].astype(str))
    col = cols[0] if slice_col is None else str(slice_col)
    df = select(df.assign(slice_col=df["slice_col"].astype(str)), "slice_col", col, what)
    df = df.assign(system=df["system"].astype(str), slice=df["slice"].astype(str),
                   value=pd.to_numeric(df["value"], errors="coerce").astype(float),
                   n=pd.to_numeric(df["n"], errors="coerce"), best=_flag(df["best"]), small=_flag(df["small"]))
    df = df.reset_index(drop=True)
    for c in ("system", "slice"):     # a name from the data never reaches a chart megabytes long
        df[c] = [display_text(v) for v in df[c]]
    return df, col


def slice_names(rows: pd.DataFrame) -> dict[str, str]:
    """``{slice: label}`` in the table's order: the slice's name, its item count and, for a small
    slice, :data:`SMALL_MARK` (``"news (n=120)"``, ``"[0, 12) (n=4) *"``)."""
    first = rows.drop_duplicates("slice")
    out = {}
    for s, n, small in zip(first["slice"], first["n"], first["small"]):
        count = f" (n={int(n):,})" if pd.notna(n) else ""
        out[str(s)] = f"{s}{count}{SMALL_MARK if small else ''}"
    return out


def _outline(field: str, colour: str, width: float, dash: list[int] | None = None):
    """A layer outlining the cells where ``field`` is true."""
    def layer(base: alt.Chart) -> alt.Chart:
        kw: dict[str, Any] = {"strokeDash": dash} if dash else {}
        return base.mark_rect(fill=None, stroke=colour, strokeWidth=width, **kw).transform_filter(f"datum.{field}")
    return layer


def slice_value_domain(slices: pd.DataFrame, *, measure: str, slice_col: str | None = None) -> tuple[float, float]:
    """The values the colour scale of :func:`slice_heatmap` spans: the lowest and highest value of the measure
    on the slices of ``slice_col`` over every system of ``slices``, ``(0, 1)`` without values.

    Parameters
    ----------
    slices : DataFrame
        The ``slices`` table.
    measure : str
        The measure shown.
    slice_col : str, optional
        The slice column (default: the first in the table).

    Returns
    -------
    tuple of float
        ``(lo, hi)``, ``hi > lo``.
    """
    df, _ = _rows(slices, measure, slice_col, "slice_heatmap")
    return _domain(df["value"].to_numpy(float))


def _domain(v: np.ndarray) -> tuple[float, float]:
    """``(lo, hi)`` of the finite values, ``(0, 1)`` without any; a single value gets a sliver of width."""
    lo, hi = (float(np.nanmin(v)), float(np.nanmax(v))) if np.isfinite(v).any() else (0.0, 1.0)
    return lo, (hi if hi > lo else lo + 1e-9)


def slice_heatmap(slices: pd.DataFrame, *, measure: str, slice_col: str | None = None, systems=None,
                  higher_is_better: bool | None = None, title: str | None = None,
                  domain: tuple[float, float] | None = None) -> alt.LayerChart:
    """Systems (rows) x slices (columns), each cell the system's value on the slice, as colour
    (dark = good) and printed when the cells leave room (always in the tooltip).

    Parameters
    ----------
    slices : DataFrame
        The ``slices`` table (system, slice_col, slice, measure, value, n, best, small; lo, hi used
        in the tooltip when present).
    measure : str
        The measure to show.
    slice_col : str, optional
        The slice column (default: the first in the table).
    systems : sequence of str, optional
        The row order (the overall leaderboard's); default: the table's order.
    higher_is_better : bool, optional
        The measure's direction (default: the registry's).
    title : str, optional
        The title (default names the measure and the slice column).
    domain : tuple of float, optional
        The values the colour scale spans (default: those shown, :func:`slice_value_domain`); a chart of
        some systems of a table passes the whole table's, so that a colour means the same value as in the
        chart of every system.

    Returns
    -------
    alt.LayerChart
        Rect and text layers, a dark outline on each slice's best cell and a dashed one on the cells
        of small slices, whose names carry :data:`SMALL_MARK`.
    """
    df, col = _rows(slices, measure, slice_col, "slice_heatmap")
    order = in_order(df["system"], systems)
    df = df[df["system"].isin(order)]
    names = slice_names(df)
    df["slice_label"] = df["slice"].map(names)
    up = is_higher_better(measure, higher_is_better)
    v = df["value"].to_numpy(float)
    lo, hi = _domain(v) if domain is None else (float(domain[0]), float(domain[1]))
    df["fill"] = v
    df["label"] = texts(v, "{:.2f}")
    df["ink"] = ink(((v - lo) / (hi - lo)) if up else ((hi - v) / (hi - lo)))
    has_interval = {"lo", "hi"} <= set(df.columns)
    if has_interval:
        df["interval"] = ["" if pd.isna(a) else f"[{a:.3f}, {b:.3f}]" for a, b in zip(df["lo"], df["hi"])]
    label = measure_label(measure)
    colour = alt.Fill("fill:Q", title=label, scale=sequential(lo, hi, reverse=not up),
                      legend=alt.Legend(orient="bottom", direction="horizontal", gradientLength=160,
                                        titleOrient="left", titleAnchor="start", format=".2f", titleLimit=200))
    tooltip = [alt.Tooltip("system:N", title="System"), alt.Tooltip("slice:N", title=col),
               alt.Tooltip("n:Q", title="items", format=","), alt.Tooltip("label:N", title=label)]
    if has_interval:
        tooltip.append(alt.Tooltip("interval:N", title="interval"))
    slice_order = list(names.values())
    chart = heatmap(df, x="slice_label", y="system", x_title=str(col), y_title=None, colour=colour,
                    tooltip=tooltip, x_sort=slice_order, y_sort=order, x_limit=130,
                    y_limit=label_limit(order, SYSTEM_LIMIT),
                    extra=(_outline("small", MUTED_COLOUR, 1.2, [3, 2]), _outline("best", TEXT_COLOUR, 2)))
    subtitle = ["systems in leaderboard order; dark outline: the best system of the slice"]
    if df["small"].any():
        subtitle.append(f"{SMALL_MARK.strip()} and dashed: a small slice, too few items or a gold class missing for an interval")
    return with_properties(chart, title=chart_title(title or f"{label} on each slice of {col}", *subtitle))


def _panel_data(df: pd.DataFrame, systems: list[str]) -> pd.DataFrame:
    """The rows of the panels' systems with the columns the marks read."""
    df = df[df["system"].isin(systems)].copy()
    for c in ("lo", "hi"):
        df[c] = pd.to_numeric(df[c], errors="coerce").astype(float) if c in df else np.nan
    df["kind"] = np.where(df["best"], "best in the slice", "other")
    df["shown"] = texts(df["value"], "{:.3f}")
    df["interval"] = ["" if pd.isna(a) else f"[{a:.3f}, {b:.3f}]" for a, b in zip(df["lo"], df["hi"])]
    return df


def _ticks(lo: float, hi: float, k: int) -> tuple[list[float], str]:
    """At most ``k`` tick values inside ``[lo, hi]``, rounded to what the span resolves, and their format."""
    span = hi - lo if hi > lo else 1.0
    digits = 0 if span >= 3 else 1 if span >= 0.3 else 2
    inner = np.linspace(lo + 0.1 * span, hi - 0.1 * span, k) if k > 1 else np.array([(lo + hi) / 2])
    values = sorted({float(v) for v in np.round(inner, digits)})
    return values, f".{digits}f"


def slice_leaderboards(slices: pd.DataFrame, *, measure: str, slice_col: str | None = None, systems=None,
                       max_systems: int | None = None, columns: int | None = None,
                       title: str | None = None) -> alt.FacetChart:
    """Small multiples: one panel per slice, each the slice's leaderboard (a point per system with its
    interval as a whisker), the systems on a shared axis in the overall leaderboard's order.

    Parameters
    ----------
    slices : DataFrame
        The ``slices`` table (system, slice_col, slice, measure, value, lo, hi, n, best, small).
    measure : str
        The measure to show.
    slice_col : str, optional
        The slice column (default: the first in the table).
    systems : sequence of str, optional
        The systems' order (the overall leaderboard's); default: the table's order.
    max_systems : int, optional
        At most this many systems (the first of ``systems``) are drawn, the subtitle says so; default
        :data:`MAX_PANEL_SYSTEMS`, :data:`FEW_PANEL_SYSTEMS` with more than :data:`MANY_SLICES` slices.
    columns : int, optional
        Panels per row (default: what fits the page beside the system names).
    title : str, optional
        The title.

    Returns
    -------
    alt.FacetChart
        Panels wrapped into rows; the best system of each slice in orange, a small slice's panel
        header marked with :data:`SMALL_MARK` (its points have no whiskers).
    """
    df, col = _rows(slices, measure, slice_col, "slice_leaderboards")
    order = in_order(df["system"], systems)
    names = slice_names(df)
    if max_systems is None:
        max_systems = MAX_PANEL_SYSTEMS if len(names) <= MANY_SLICES else FEW_PANEL_SYSTEMS
    shown = order[:max(1, int(max_systems))]
    df = _panel_data(df, shown)
    df["slice_label"] = df["slice"].map(names)
    label = measure_label(measure)
    many = len(names) > MANY_SLICES
    # many slices: the page's widest figure, shorter names and rows, so that the panels fit one page
    limit = label_limit(shown, MANY_SLICE_SYSTEM_LIMIT if many else PANEL_SYSTEM_LIMIT)
    room = (WIDE_PAGE if many else PAGE_WIDTH) - limit
    if columns is None:
        columns = int(np.clip(room // 95, 1, 6))
    columns = max(1, min(columns, len(names)))
    width = float(np.clip(room / columns - 14, 70, 200))
    height = float(np.clip((9 if many else 10) * len(shown), 54, 200))
    lo_v = np.nanmin(np.r_[df["value"].to_numpy(float), df["lo"].to_numpy(float)])
    hi_v = np.nanmax(np.r_[df["value"].to_numpy(float), df["hi"].to_numpy(float)])
    pad = 0.05 * (hi_v - lo_v) if hi_v > lo_v else 0.05
    # few round ticks inside the range, end labels kept inside their panel: neighbouring panels' labels never touch
    values, fmt = _ticks(float(lo_v), float(hi_v), 3 if width >= 110 else 2)
    ticks = alt.Axis(values=values, format=fmt, labelFlush=True)
    x = alt.X("value:Q", title=None, axis=ticks,
              scale=alt.Scale(domain=[float(lo_v - pad), float(hi_v + pad)], nice=False, zero=False))
    axis: dict[str, Any] = {"labelLimit": limit, "labelFontSize": float(np.clip(height / len(shown) - 1, 7, 11))}
    if (e := label_expr(shown_names(shown, limit))) is not None:
        axis["labelExpr"] = e
    y = alt.Y("system:N", sort=shown, title=None, axis=alt.Axis(**axis))
    tooltip = [alt.Tooltip("system:N", title="System"), alt.Tooltip("slice:N", title=col),
               alt.Tooltip("shown:N", title=label), alt.Tooltip("interval:N", title="interval"),
               alt.Tooltip("n:Q", title="items", format=",")]
    base = alt.Chart().encode(y=y, tooltip=tooltip)
    whiskers = base.mark_rule(color=MUTED_COLOUR, strokeWidth=1.2).encode(
        x=alt.X("lo:Q"), x2=alt.X2("hi:Q")).transform_filter("isValid(datum.lo) && isFinite(datum.lo)")
    colour = alt.Color("kind:N", title=None, scale=alt.Scale(domain=["best in the slice", "other"],
                                                             range=[CATEGORY_COLOURS[1], CATEGORY_COLOURS[0]]),
                       legend=alt.Legend(orient="bottom", direction="horizontal"))
    points = base.mark_point(filled=True, size=36, opacity=1).encode(x=x, color=colour)
    panel = with_properties(alt.layer(whiskers, points, data=df), width=width, height=height)
    # a header may reach into the gap between panels; 10 px regular text holds a name and its count
    room_px = width + 10
    header_names = shown_names(list(names.values()), room_px, size=10)
    kw: dict[str, Any] = {"labelExpr": e} if (e := label_expr(header_names)) is not None else {}
    header = alt.Header(labelLimit=int(room_px), labelFontSize=10, labelColor=TEXT_COLOUR, **kw)
    subtitle = ["one panel per slice; systems in leaderboard order, whiskers: the slice's interval"]
    if len(order) > len(shown):
        subtitle.append(f"the first {len(shown)} of {len(order)} systems; slices.csv has every system")
    if df["small"].any():
        subtitle.append(f"{SMALL_MARK.strip()} a small slice: too few items or a gold class missing for an interval, the value alone")
    facet = alt.Facet("slice_label:N", sort=list(names.values()), title=None, header=header)
    return with_properties(panel.facet(facet=facet, columns=columns, spacing={"row": 8, "column": 10}),
                           title=chart_title(title or f"{label}: the leaderboard of each slice of {col}", *subtitle))
