"""Shared helpers of the chart builders: input validation, cell texts and inks, sizes, the
heatmap skeleton, titles, and measure labels. Presentation only: no analysis, no I/O."""
from __future__ import annotations

import hashlib
from collections.abc import Sequence

import altair as alt
import numpy as np
import pandas as pd

from evalreport.charts.names import budget_for, label_expr, shorten_names, text_px
from evalreport.measures.labels import SHORT_LABEL, measure_label, short_measure_label  # noqa: F401 (re-exported)

#: Usable plot width on an A4 portrait page (px), axis labels and legend excluded.
PLOT_WIDTH = 360
#: Width of a full-width chart including its axis labels (the report's figure width).
PAGE_WIDTH = 500
#: The widest a chart may grow for long names (px): the PDF shows up to this width at natural size.
WIDE_PAGE = 640
UNDEFINED_FILL = "#d9d9d9"
UNDEFINED_TEXT = "—"
DARK_INK, LIGHT_INK = "white", "#222222"
LABEL_LIMIT = 150  # px; longer axis labels are shortened (beginning and end kept, see names.py)
#: Longest text (characters) a chart carries for one name from the data (a class, a system, a
#: baseline): a longer one is cut and keeps a short hash of its full text, so two names that
#: share a beginning stay apart. The full text stays in the tables (CSV/JSON).
MAX_TEXT = 80


# --------------------------------------------------------------------------------------------
# validation and small presentation helpers


def display_text(value):
    """``value`` as a chart shows it: a string longer than :data:`MAX_TEXT` characters becomes its
    beginning, an ellipsis and a 6-digit hash of the whole (``"Lxxx…[3fa2c1]"``, at most
    MAX_TEXT characters); anything else is returned unchanged. The same text always gives the
    same result, so frames shortened separately still join."""
    if not isinstance(value, str) or len(value) <= MAX_TEXT:
        return value
    digest = hashlib.sha1(value.encode("utf-8", "surrogatepass")).hexdigest()[:6]
    return f"{value[:MAX_TEXT - 9].rstrip()}…[{digest}]"


def _shorten(df: pd.DataFrame) -> pd.DataFrame:
    """``df`` with every text cell longer than :data:`MAX_TEXT` replaced by :func:`display_text`."""
    for column in df.columns:
        col = df[column]
        if not (col.dtype == object or pd.api.types.is_string_dtype(col)):
            continue
        # a plain loop over the values: Series.map with a lambda costs ~10x more (arrow strings)
        values = col.to_numpy(dtype=object)
        flags = np.fromiter((isinstance(v, str) and len(v) > MAX_TEXT for v in values), bool, len(values))
        if flags.any():
            long = pd.Series(flags, index=col.index)
            short = {v: display_text(v) for v in pd.unique(col[long])}
            df[column] = col.astype(object).where(~long, col[long].map(short))
    return df


def require(df, columns: Sequence[str], what: str) -> pd.DataFrame:
    """A copy of ``df`` with the required columns (long texts shortened by :func:`display_text`),
    or a ValueError saying what is wrong."""
    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"{what}: expected a pandas DataFrame, got {type(df).__name__}")
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise ValueError(f"{what}: missing column(s) {missing}; the frame has {list(df.columns)}")
    if df.empty:
        raise ValueError(f"{what}: the frame has no rows - nothing to plot")
    return _shorten(df.copy())


def select(df: pd.DataFrame, column: str, value, what: str) -> pd.DataFrame:
    """Rows where ``column == value``; a ValueError listing the available values if none."""
    value = display_text(value)
    rows = df[df[column] == value]
    if rows.empty:
        available = ", ".join(map(str, ordered(df[column])))
        raise ValueError(f"{what}: no rows with {column} = {value!r}; available: {available}")
    return rows


def restrict(df: pd.DataFrame, column: str, keep, what: str):
    """Rows whose ``column`` is in ``keep`` (all if None) and the panel order: ``keep``'s order,
    else order of appearance. Asking for a value with no rows is an error that names it."""
    if keep is None:
        return df, ordered(df[column])
    keep = [display_text(v) for v in keep]
    missing = [v for v in keep if v not in set(df[column])]
    if missing:
        raise ValueError(f"{what}: no rows for {column}(s) {missing}")
    return df[df[column].isin(list(keep))], list(keep)


def in_order(values, order=None) -> list:
    """Distinct ``values`` (as shown: :func:`display_text`) in ``order`` (e.g. the leaderboard's),
    those not in it after, in order of first appearance; without ``order``, order of appearance."""
    found = ordered(values)
    if order is None:
        return found
    pos = {display_text(str(v)): i for i, v in enumerate(order)}
    return sorted(found, key=lambda v: pos.get(v, len(pos)))


def ordered(values) -> list:
    """Distinct values in order of first appearance."""
    return pd.Series(pd.unique(pd.Series(values))).tolist()  # Python scalars: JSON-safe in a spec


def texts(values, fmt: str = "{:.3f}") -> np.ndarray:
    """Cell texts: formatted numbers, and the undefined marker for NaN."""
    v = pd.to_numeric(pd.Series(values), errors="coerce").to_numpy(dtype=float)
    out = np.full(v.shape, UNDEFINED_TEXT, dtype=object)
    ok = np.isfinite(v)
    out[ok] = [fmt.format(x) for x in v[ok]]
    out[ok] = [t[1:] if t.startswith("-") and float(t) == 0 else t for t in out[ok]]  # no "-0.000"
    return out


def ink(darkness) -> np.ndarray:
    """Text colour per cell from the darkness of its fill in [0, 1]."""
    d = np.asarray(darkness, dtype=float)
    return np.where(np.nan_to_num(d, nan=0.0) > 0.6, DARK_INK, LIGHT_INK)


def band_step(n: int, room: float = PLOT_WIDTH, lo: float = 14, hi: float = 46) -> float:
    """Band size (px) for ``n`` categories sharing ``room`` px, kept readable."""
    return float(np.clip(room / max(n, 1), lo, hi))


def font(step: float) -> float:
    return float(np.clip(step * 0.38, 7, 11))


#: Light-to-dark blue for "dark = good" fills; the light end is almost white so that empty
#: (zero) cells read as empty.
SEQUENTIAL = ("#f7fbff", "#6baed6", "#08306b")


def sequential(lo: float, hi: float, *, reverse: bool = False) -> alt.Scale:
    """Linear scale from ``lo`` (light) to ``hi`` (dark); ``reverse`` makes ``lo`` dark."""
    colours = list(SEQUENTIAL[::-1] if reverse else SEQUENTIAL)
    return alt.Scale(domain=[lo, (lo + hi) / 2, hi], range=colours, interpolate="hcl")


def bottom_legend(**kw) -> alt.Legend:
    """A horizontal legend under the chart (keeps the figure within the page width)."""
    return alt.Legend(orient="bottom", direction="horizontal", gradientLength=160, titleOrient="left",
                      titleAnchor="start", **kw)


def is_higher_better(measure: str, override: bool | None = None) -> bool:
    """Whether higher is better for ``measure`` (the registry's declaration; True if unknown)."""
    if override is not None:
        return bool(override)
    try:
        from evalreport.measures import get

        return bool(get(measure).higher_is_better)
    except Exception:  # not a registered measure: charts still draw, best assumed high
        return True


def shown_names(values, px: float, *, size: float = 11) -> dict:
    """``{name: shown}`` for the distinct ``values`` drawn within ``px`` pixels at font ``size``:
    :func:`~evalreport.charts.names.shorten_names` with the budget of that room (a name that fits
    is shown whole; no two names look alike)."""
    names = [str(v) for v in ordered(values)]
    if not names:
        return {}
    shown = shorten_names(names, budget_for(px, names, size=size))
    # the budget leaves room for two ellipses; a name that fits the room as it is stays whole
    whole = {n: (n if text_px(n, size) * 1.03 <= px else s) for n, s in shown.items()}
    return whole if len(set(whole.values())) == len(whole) else shown


def label_axis(angle: int = 0, limit: int = LABEL_LIMIT, names=None, **kw) -> alt.Axis:
    """An axis whose labels are cut past ``limit`` px; with ``names`` (the values on the axis), a
    name too long for ``limit`` is drawn shortened by :func:`shown_names` (beginning and end kept,
    distinct from every other) through a label expression, the data and tooltips keeping it whole."""
    if names is not None:
        expr = label_expr(shown_names(names, limit, size=kw.get("labelFontSize", 11)))
        if expr is not None:
            kw["labelExpr"] = expr
    return alt.Axis(labelAngle=angle, labelLimit=limit, **kw)


#: Width (px) of a character of an 11 px axis label, generous (Liberation Sans averages ~6).
from evalreport.charts.names import CHAR_WIDTH  # noqa: E402 (one value for widths and name budgets)


def text_width(text, size: float = 11) -> float:
    """Estimated width (px) of ``text`` at font ``size``."""
    return len(str(text)) * CHAR_WIDTH * size / 11


def nominal_axis_for(values, step: float | None = None, *, limit: int = 110) -> alt.Axis:
    """An x axis for nominal labels: horizontal when every label fits in its band of ``step``
    px (default: the band a full-width axis would give), else angled at -40 degrees and
    shortened to ``limit`` px by :func:`shown_names` (the full text is in the tooltip)."""
    labels = [str(v) for v in ordered(values)]
    if step is None:
        step = PLOT_WIDTH / max(len(labels), 1)
    longest = max((text_width(s) for s in labels), default=0)
    if longest + 6 <= step:
        return label_axis(0)
    if step >= 16:
        return label_axis(-40, limit=limit, names=labels, labelAlign="right", labelBaseline="top")
    # narrow bands: upright labels, their font no taller than the band
    return label_axis(-90, limit=limit, names=labels, labelAlign="right", labelBaseline="middle",
                 labelFontSize=band_font(step))


def band_font(step: float) -> float:
    """Font size (px) of axis labels one per band of ``step`` px: 11, smaller for narrow bands."""
    return float(np.clip(step - 1, 7, 11))


#: Longest system label (px) before it is truncated (the full name is in the tooltip).
MAX_SYSTEM_LABEL = 300


def label_limit(names, cap: int = MAX_SYSTEM_LABEL) -> int:
    """A label limit (px) that fits the longest of ``names`` (at 11 px), at most ``cap``."""
    longest = max((text_width(n) for n in names), default=0)
    return int(min(cap, max(60, longest + 8)))


# --------------------------------------------------------------------------------------------
# measure labels: readers see the registry's names, the ids stay in the tooltips

def name_measures(df: pd.DataFrame, column: str = "measure", *, labels: bool = True, order=None):
    """``df`` with ``<column>_name`` (the short label shown on an axis; the id itself when
    ``labels`` is False) and ``<column>_label`` (the full label, for the tooltip), and the names
    in ``order`` (default: order of appearance)."""
    ids = list(order) if order is not None else ordered(df[column])
    names = measure_names(ids) if labels else {m: str(m) for m in ids}
    full = {m: measure_label(m) if labels else str(m) for m in ids}
    df = df.assign(**{f"{column}_name": df[column].map(names).fillna(df[column].astype(str)),
                      f"{column}_label": df[column].map(full).fillna(df[column].astype(str))})
    return df, [names[m] for m in ids]


def measure_names(ids, *, short: bool = True) -> dict:
    """``{id: label}`` for the given measure ids, labels made unique (a label two ids share gets
    the id appended)."""
    ids = ordered(ids)
    names = {m: (short_measure_label(m) if short else measure_label(m)) for m in ids}
    counts = pd.Series(list(names.values())).value_counts()
    return {m: (f"{n} [{m}]" if counts[n] > 1 else n) for m, n in names.items()}


#: Smallest cell (px) that gets its value printed, and the smallest font of a printed value.
MIN_TEXT_CELL, MIN_TEXT_FONT = 14, 8


def heatmap(data: pd.DataFrame, *, x: str, y: str, x_title: str | None, y_title: str | None, colour: alt.Fill,
             tooltip: list, x_sort=None, y_sort=None, text: bool = True, width=None, height=None,
             x_axis=None, y_axis=None, extra=(), x_limit: int = 110, y_limit: int = LABEL_LIMIT) -> alt.LayerChart:
    """Rect + text layers over a frame with columns x, y, ``fill`` (NaN = undefined),
    ``label`` (printed text) and ``ink`` (its colour). The data sits on the layer chart (not
    on the layers), so the result can be faceted. ``extra``: functions ``base -> layer``
    drawn on top (e.g. an outline of some cells). The values are printed only when ``text``
    and the cells are at least :data:`MIN_TEXT_CELL` px (else the tooltip has them); x labels
    are angled when they do not fit their band."""
    nx, ny = data[x].nunique(), data[y].nunique()
    # the cells share what the row labels leave of the page width
    y_labels = min(y_limit, max((text_width(v) for v in ordered(data[y])), default=0))
    room = float(np.clip(PAGE_WIDTH - y_labels - 50, 200, PLOT_WIDTH))
    sx = width / max(nx, 1) if width is not None else band_step(nx, room=room)
    sy = height / max(ny, 1) if height is not None else band_step(ny, lo=14, hi=28)
    data = data.assign(defined=np.isfinite(pd.to_numeric(data["fill"], errors="coerce").to_numpy(float)))
    base = alt.Chart().encode(
        x=alt.X(f"{x}:N", title=x_title, sort=x_sort,
                axis=x_axis if x_axis is not None else nominal_axis_for(data[x], sx, limit=x_limit)),
        y=alt.Y(f"{y}:N", title=y_title, sort=y_sort,
                axis=y_axis if y_axis is not None else label_axis(0, limit=y_limit, names=data[y],
                                                             labelFontSize=band_font(sy))),
        tooltip=tooltip,
    )
    layers = [
        base.mark_rect(color=UNDEFINED_FILL, stroke="white", strokeWidth=0.5)
        .transform_filter("!datum.defined"),
        base.mark_rect(stroke="white", strokeWidth=0.5).encode(fill=colour).transform_filter("datum.defined"),
    ]
    longest = max((len(str(t)) for t in data["label"]), default=1) if "label" in data else 1
    # the font that fits the longest printed value in a cell, at most 11 px
    size = float(min(11, sy * 0.65, (sx - 3) / (max(longest, 1) * 0.62)))
    if text and min(sx, sy) >= MIN_TEXT_CELL and size >= MIN_TEXT_FONT:
        layers.append(base.mark_text(baseline="middle", fontSize=round(size, 1)).encode(
            text=alt.Text("label:N"), color=alt.Color("ink:N", scale=None)))
    layers.extend(f(base) for f in extra)
    return with_properties(alt.layer(*layers, data=data), width=alt.Step(sx), height=alt.Step(sy))


def with_properties(chart, **properties):
    """``chart.properties(**properties)`` for a chart just built here (not shared): the properties
    are set on ``chart`` itself, which is returned. Altair's ``properties`` builds a new chart, and
    the constructor of a layered, faceted or concatenated chart deep-copies every subchart (about
    a third of the time of a heatmap); the spec is the same. Not validated here: the tests
    validate every chart's whole spec (``to_dict(validate=True)``)."""
    for key, value in properties.items():
        setattr(chart, key, value)
    return chart


def rank_values(worst: float) -> list[int]:
    """Legend values of a rank scale from 1 to ``worst``: every rank up to 10, else 1 and round
    steps (1, 5, 10, 15, 20, 25 for 25 systems), so that the labels never run together."""
    worst = max(int(np.floor(worst)), 1)
    if worst <= 10:
        return list(range(1, worst + 1))
    k = next(k for k in (5, 10, 20, 50, 100, 200, 500, 1000) if worst / k <= 5)
    return [1] + list(range(k, worst + 1, k))


def _subtitle(*parts) -> list[str]:
    return [p for p in parts if p]


def chart_title(text: str, *subtitle) -> alt.TitleParams:
    sub = _subtitle(*subtitle)
    return alt.TitleParams(text, subtitle=sub) if sub else alt.TitleParams(text)

