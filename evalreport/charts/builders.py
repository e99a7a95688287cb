"""Stage 5 - chart builders: one function per figure, ``tidy frame -> alt.Chart``.

Each builder takes the tidy frame an analysis returns (its column contract is in the
docstring), keyword options, and returns an Altair chart: no display, no file I/O, no
analysis. The little arithmetic done here is presentation only (sorting, the position of a
value within its measure for the colour of a cell, the text printed in a cell).

Conventions shared by every builder:

* Inputs are validated: a missing column, an empty frame, or a filter (``measure=``,
  ``method=``, ``test=``) that selects no rows raises :class:`ValueError` naming what was
  expected and what is there. A chart is never drawn from nothing.
* NaN values are undefined values (0/0 under the nan policy): heatmap cells are grey with
  a "—" and the reason in the tooltip; point charts leave the system out and name it in the
  subtitle.
* Sizes fit an A4 portrait page (at most ~500 px wide including axis labels): cell sizes
  are derived from the number of rows and columns, long measure ids are angled or
  truncated with the full name in the tooltip, and many measures go on the vertical axis.
* Dark cells mean "good" in every heatmap (rank 1, best value of a measure, small p-value,
  large rate); the text in a cell is white on dark and black on light fills.
* Styling comes from the one registered theme (:mod:`evalreport.charts.theme`); builders
  set only what is specific to a chart.
"""
from __future__ import annotations

from collections.abc import Sequence

import altair as alt
import numpy as np
import pandas as pd

__all__ = [
    "prevalence_bar",
    "leaderboard_intervals",
    "rank_heatmap",
    "score_heatmap",
    "correlation_heatmap",
    "calibration_dumbbell",
    "rank_distribution_chart",
    "pvalue_heatmap",
    "per_class_heatmap",
    "confusion_grid",
    "cv_estimates",
    "simulation_bias",
    "simulation_sd",
]

#: Usable plot width on an A4 portrait page (px), axis labels and legend excluded.
PLOT_WIDTH = 360
#: Width of a full-width chart including its axis labels (the report's figure width).
PAGE_WIDTH = 500
UNDEFINED_FILL = "#d9d9d9"
UNDEFINED_TEXT = "—"
DARK_INK, LIGHT_INK = "white", "#222222"
LABEL_LIMIT = 150  # px; longer axis labels are truncated with an ellipsis


# --------------------------------------------------------------------------------------------
# validation and small presentation helpers


def _require(df, columns: Sequence[str], what: str) -> pd.DataFrame:
    """A copy of ``df`` with the required columns, or a ValueError saying what is wrong."""
    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"{what}: expected a pandas DataFrame, got {type(df).__name__}")
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise ValueError(f"{what}: missing column(s) {missing}; the frame has {list(df.columns)}")
    if df.empty:
        raise ValueError(f"{what}: the frame has no rows - nothing to plot")
    return df.copy()


def _select(df: pd.DataFrame, column: str, value, what: str) -> pd.DataFrame:
    """Rows where ``column == value``; a ValueError listing the available values if none."""
    rows = df[df[column] == value]
    if rows.empty:
        available = ", ".join(map(str, _ordered(df[column])))
        raise ValueError(f"{what}: no rows with {column} = {value!r}; available: {available}")
    return rows


def _restrict(df: pd.DataFrame, column: str, keep, what: str):
    """Rows whose ``column`` is in ``keep`` (all if None) and the panel order: ``keep``'s order,
    else order of appearance. Asking for a value with no rows is an error that names it."""
    if keep is None:
        return df, _ordered(df[column])
    missing = [v for v in keep if v not in set(df[column])]
    if missing:
        raise ValueError(f"{what}: no rows for {column}(s) {missing}")
    return df[df[column].isin(list(keep))], list(keep)


def _ordered(values) -> list:
    """Distinct values in order of first appearance."""
    return pd.Series(pd.unique(pd.Series(values))).tolist()  # Python scalars: JSON-safe in a spec


def _texts(values, fmt: str = "{:.3f}") -> np.ndarray:
    """Cell texts: formatted numbers, and the undefined marker for NaN."""
    v = pd.to_numeric(pd.Series(values), errors="coerce").to_numpy(dtype=float)
    out = np.full(v.shape, UNDEFINED_TEXT, dtype=object)
    ok = np.isfinite(v)
    out[ok] = [fmt.format(x) for x in v[ok]]
    out[ok] = [t[1:] if t.startswith("-") and float(t) == 0 else t for t in out[ok]]  # no "-0.000"
    return out


def _ink(darkness) -> np.ndarray:
    """Text colour per cell from the darkness of its fill in [0, 1]."""
    d = np.asarray(darkness, dtype=float)
    return np.where(np.nan_to_num(d, nan=0.0) > 0.6, DARK_INK, LIGHT_INK)


def _step(n: int, room: float = PLOT_WIDTH, lo: float = 14, hi: float = 46) -> float:
    """Band size (px) for ``n`` categories sharing ``room`` px, kept readable."""
    return float(np.clip(room / max(n, 1), lo, hi))


def _font(step: float) -> float:
    return float(np.clip(step * 0.38, 7, 11))


#: Light-to-dark blue for "dark = good" fills; the light end is almost white so that empty
#: (zero) cells read as empty.
SEQUENTIAL = ("#f7fbff", "#6baed6", "#08306b")


def _sequential(lo: float, hi: float, *, reverse: bool = False) -> alt.Scale:
    """Linear scale from ``lo`` (light) to ``hi`` (dark); ``reverse`` makes ``lo`` dark."""
    colours = list(SEQUENTIAL[::-1] if reverse else SEQUENTIAL)
    return alt.Scale(domain=[lo, (lo + hi) / 2, hi], range=colours, interpolate="hcl")


def _legend(**kw) -> alt.Legend:
    """A horizontal legend under the chart (keeps the figure within the page width)."""
    return alt.Legend(orient="bottom", direction="horizontal", gradientLength=160, titleOrient="left",
                      titleAnchor="start", **kw)


def _direction(measure: str, override: bool | None = None) -> bool:
    """Whether higher is better for ``measure`` (the registry's declaration; True if unknown)."""
    if override is not None:
        return bool(override)
    try:
        from evalreport.measures import get

        return bool(get(measure).higher_is_better)
    except Exception:  # not a registered measure: charts still draw, best assumed high
        return True


def _axis(angle: int = 0, limit: int = LABEL_LIMIT, **kw) -> alt.Axis:
    return alt.Axis(labelAngle=angle, labelLimit=limit, **kw)


def _nominal_axis_for(values) -> alt.Axis:
    """An x axis for nominal labels: horizontal when short, angled when long or many."""
    labels = [str(v) for v in _ordered(values)]
    longest = max((len(s) for s in labels), default=0)
    if longest * 6.5 <= PLOT_WIDTH / max(len(labels), 1):
        return _axis(0)
    return _axis(-40, limit=110, labelAlign="right")


def _heatmap(data: pd.DataFrame, *, x: str, y: str, x_title: str, y_title: str, colour: alt.Fill,
             tooltip: list, x_sort=None, y_sort=None, text: bool = True, width=None, height=None,
             x_axis=None, y_axis=None, extra=()) -> alt.LayerChart:
    """Rect + text layers over a frame with columns x, y, ``fill`` (NaN = undefined),
    ``label`` (printed text) and ``ink`` (its colour). The data sits on the layer chart (not
    on the layers), so the result can be faceted. ``extra``: functions ``base -> layer``
    drawn on top (e.g. an outline of some cells)."""
    nx, ny = data[x].nunique(), data[y].nunique()
    sx = width / max(nx, 1) if width is not None else _step(nx)
    sy = height / max(ny, 1) if height is not None else _step(ny, lo=14, hi=28)
    data = data.assign(defined=np.isfinite(pd.to_numeric(data["fill"], errors="coerce").to_numpy(float)))
    base = alt.Chart().encode(
        x=alt.X(f"{x}:N", title=x_title, sort=x_sort,
                axis=x_axis if x_axis is not None else _nominal_axis_for(data[x])),
        y=alt.Y(f"{y}:N", title=y_title, sort=y_sort, axis=y_axis if y_axis is not None else _axis(0)),
        tooltip=tooltip,
    )
    layers = [
        base.mark_rect(color=UNDEFINED_FILL, stroke="white", strokeWidth=0.5)
        .transform_filter("!datum.defined"),
        base.mark_rect(stroke="white", strokeWidth=0.5).encode(fill=colour).transform_filter("datum.defined"),
    ]
    if text:
        layers.append(base.mark_text(baseline="middle", fontSize=_font(min(sx, sy * 1.6))).encode(
            text="label:N", color=alt.Color("ink:N", scale=None)))
    layers.extend(f(base) for f in extra)
    return alt.layer(*layers, data=data).properties(width=alt.Step(sx), height=alt.Step(sy))


def _subtitle(*parts) -> list[str]:
    return [p for p in parts if p]


def _title(text: str, *subtitle) -> alt.TitleParams:
    sub = _subtitle(*subtitle)
    return alt.TitleParams(text, subtitle=sub) if sub else alt.TitleParams(text)


# --------------------------------------------------------------------------------------------
# 1. overview


def prevalence_bar(prevalence: pd.DataFrame, *, title: str = "Class prevalence") -> alt.LayerChart:
    """Bar per class of its share of the gold labels, largest first, count printed at the bar.

    ``prevalence``: (class, count, share).
    """
    df = _require(prevalence, ["class", "count", "share"], "prevalence_bar")[["class", "count", "share"]]
    df["class"] = df["class"].astype(str)
    df = df.sort_values("count", ascending=False, kind="stable")
    df["label"] = [f"{int(c)} ({s:.1%})" for c, s in zip(df["count"], df["share"])]
    n = len(df)
    ratio = df["count"].max() / max(df["count"].min(), 1)
    base = alt.Chart(df).encode(
        y=alt.Y("class:N", sort=df["class"].tolist(), title="Class", axis=_axis(0)),
        x=alt.X("share:Q", title="Share of items", axis=alt.Axis(format="%"),
                scale=alt.Scale(domain=[0, float(df["share"].max()) * 1.25])),
        tooltip=[alt.Tooltip("class:N", title="Class"), alt.Tooltip("count:Q", title="Items"),
                 alt.Tooltip("share:Q", title="Share", format=".1%")],
    )
    bars = base.mark_bar()
    text = base.mark_text(align="left", dx=4, baseline="middle").encode(text="label:N")
    return alt.layer(bars, text).properties(
        width=PLOT_WIDTH, height=alt.Step(_step(n, lo=14, hi=24)),
        title=_title(title, f"{n} classes, {int(df['count'].sum())} items; largest / smallest = {ratio:.1f}"),
    )


# --------------------------------------------------------------------------------------------
# 2. leaderboard


DEFAULT_BASELINES = ("majority", "uniform", "prevalence")


def leaderboard_intervals(intervals: pd.DataFrame, *, measure: str, baselines: pd.DataFrame | None = None,
                          groups: pd.DataFrame | None = None, show_baselines=DEFAULT_BASELINES,
                          higher_is_better: bool | None = None, title: str | None = None) -> alt.LayerChart:
    """Each system's value under ``measure`` with its interval, best system on top.

    ``intervals``: (system, measure, value, lo, hi). ``baselines``: (measure, baseline, value),
    drawn as dashed vertical rules with their names; ``show_baselines`` picks which (default:
    the majority-class, uniform-random and prevalence-random systems; all of them when none
    of the names is present, or with ``None``). Baselines too close to label separately
    share one label. ``groups``: (system, group) - the
    significance groups; points are coloured by group (a system in several groups gets the
    joined label, e.g. ``"a,b"``). Systems whose value is undefined are named in the subtitle.
    """
    df = _select(_require(intervals, ["system", "measure", "value", "lo", "hi"], "leaderboard_intervals"),
                 "measure", measure, "leaderboard_intervals")[["system", "value", "lo", "hi"]]
    df["system"] = df["system"].astype(str)
    undefined = df.loc[~np.isfinite(df["value"].astype(float)), "system"].tolist()
    df = df[np.isfinite(df["value"].astype(float))]
    if df.empty:
        raise ValueError(f"leaderboard_intervals: {measure!r} is undefined for every system")
    hib = _direction(measure, higher_is_better)
    df = df.sort_values("value", ascending=not hib, kind="stable")
    order = df["system"].tolist()

    colour = None
    if groups is not None:
        g = _require(groups, ["system", "group"], "leaderboard_intervals(groups)")
        g["system"] = g["system"].astype(str)
        joined = g.groupby("system", sort=False)["group"].agg(lambda s: ",".join(sorted(map(str, s.unique()))))
        df["group"] = df["system"].map(joined).fillna("none")
        colour = alt.Color("group:N", title="Significance group", legend=_legend())
    direction = "higher is better" if hib else "lower is better"
    tooltip = [alt.Tooltip("system:N", title="System"), alt.Tooltip("value:Q", title=measure, format=".4f"),
               alt.Tooltip("lo:Q", title="interval low", format=".4f"),
               alt.Tooltip("hi:Q", title="interval high", format=".4f")]
    if groups is not None:
        tooltip.append(alt.Tooltip("group:N", title="Significance group"))

    lo = float(np.nanmin(df[["value", "lo"]].to_numpy(float)))
    hi = float(np.nanmax(df[["value", "hi"]].to_numpy(float)))
    layers = []
    base_rows = None
    if baselines is not None:
        b = _require(baselines, ["measure", "baseline", "value"], "leaderboard_intervals(baselines)")
        b = b[(b["measure"] == measure) & np.isfinite(b["value"].astype(float))][["baseline", "value"]]
        if show_baselines is not None and b["baseline"].isin(list(show_baselines)).any():
            b = b[b["baseline"].isin(list(show_baselines))]
        if not b.empty:
            b = b.sort_values("value", kind="stable").reset_index(drop=True)
            b["text"] = [f"{name} = {v:.3f}" for name, v in zip(b["baseline"], b["value"])]
            lo, hi = min(lo, float(b["value"].min())), max(hi, float(b["value"].max()))
            base_rows = b
    pad = 0.05 * (hi - lo) if hi > lo else 0.05
    if base_rows is not None:
        # baselines closer than a label's height share one label (written at the first rule)
        px = (base_rows["value"].to_numpy(float) - (lo - pad)) / ((hi - lo) + 2 * pad) * PLOT_WIDTH
        cluster = np.concatenate([[0], np.cumsum(np.diff(px) > 14)])
        labels = base_rows.groupby(cluster)["text"].agg(" / ".join)
        base_rows = base_rows.assign(text=np.where(np.r_[True, np.diff(cluster) > 0], labels.loc[cluster].to_numpy(),
                                                   ""))
    x_scale = alt.Scale(domain=[lo - pad, hi + pad], zero=False, nice=False)
    x = alt.X("value:Q", title=f"{measure} ({direction})", scale=x_scale)
    y = alt.Y("system:N", sort=order, title=None, axis=_axis(0))
    base = alt.Chart(df).encode(y=y, tooltip=tooltip)
    layers.append(base.mark_rule(strokeWidth=2, color="#888888").encode(
        x=alt.X("lo:Q", scale=x_scale, title=f"{measure} ({direction})"), x2="hi:Q"))
    point = base.mark_point(filled=True, size=70).encode(x=x)
    layers.append(point.encode(color=colour) if colour is not None else point)
    if base_rows is not None:
        rb = alt.Chart(base_rows)
        layers.append(rb.mark_rule(strokeDash=[5, 4], color="#555555").encode(
            x=alt.X("value:Q", scale=x_scale),
            tooltip=[alt.Tooltip("baseline:N", title="Baseline"), alt.Tooltip("value:Q", format=".4f")]))
        for i in np.flatnonzero(base_rows["text"] != ""):  # each label written along its rule
            layers.append(alt.Chart(base_rows.iloc[[i]]).mark_text(
                angle=270, align="right", baseline="bottom", dx=-2, dy=-2, fontSize=10, color="#555555").encode(
                x=alt.X("value:Q", scale=x_scale), y=alt.value(0), text="text:N"))
    subtitle = [f"points: value on all items; bars: interval; {direction}"]
    if undefined:
        subtitle.append(f"undefined (not drawn): {', '.join(undefined)}")
    return alt.layer(*layers).properties(
        width=PLOT_WIDTH, height=alt.Step(_step(len(order), lo=16, hi=26)),
        title=_title(title or f"Leaderboard: {measure}", *subtitle),
    )


# --------------------------------------------------------------------------------------------
# 3. every measure for every system


def _orient(systems: int, measures: int, orient: str) -> bool:
    """True when measures go on the rows (y axis)."""
    if orient not in ("auto", "measures_rows", "systems_rows"):
        raise ValueError(f"orient must be 'auto', 'measures_rows' or 'systems_rows'; got {orient!r}")
    if orient == "auto":
        return measures > systems
    return orient == "measures_rows"


def _calibration_filter(df: pd.DataFrame, calibrated: bool, what: str) -> pd.DataFrame:
    if "calibrated" not in df.columns:
        if calibrated:
            raise ValueError(f"{what}: calibrated=True but the frame has no 'calibrated' column")
        return df
    return _select(df, "calibrated", bool(calibrated), what)


def rank_heatmap(ranks: pd.DataFrame, *, calibrated: bool = False, orient: str = "auto",
                 title: str | None = None, measure_title: str = "Measure") -> alt.LayerChart:
    """Systems x measures, each cell the rank of the system under the measure (1 = best,
    dark), printed in the cell. Systems are ordered by their mean rank.

    ``ranks``: (system, measure, rank[, calibrated]); ``calibrated`` picks the raw (False) or
    prevalence-calibrated (True) rows when the column is there. Ties may give fractional
    ranks (printed with one decimal). ``orient``: ``"auto"`` puts the longer list on the rows.
    """
    df = _require(ranks, ["system", "measure", "rank"], "rank_heatmap")
    df = _calibration_filter(df, calibrated, "rank_heatmap")[["system", "measure", "rank"]]
    df["system"] = df["system"].astype(str)
    df["rank"] = pd.to_numeric(df["rank"], errors="coerce").astype(float)
    worst = float(np.nanmax(df["rank"])) if np.isfinite(df["rank"]).any() else 1.0
    df["fill"] = df["rank"]
    integral = np.all(np.isclose(df["rank"].dropna() % 1, 0))
    df["label"] = _texts(df["rank"], "{:.0f}" if integral else "{:.1f}")
    df["ink"] = _ink((worst - df["rank"]) / max(worst - 1, 1))
    systems = df.groupby("system", sort=False)["rank"].mean().sort_values(kind="stable").index.tolist()
    measures = _ordered(df["measure"])
    colour = alt.Fill("fill:Q", title="Rank", scale=_sequential(1, max(worst, 2), reverse=True),
                      legend=_legend(tickCount=min(int(worst), 8)))
    tooltip = [alt.Tooltip("system:N", title="System"), alt.Tooltip("measure:N", title=measure_title),
               alt.Tooltip("label:N", title="Rank")]
    rows_are_measures = _orient(len(systems), len(measures), orient)
    kw = dict(x="system", y="measure", x_title="System", y_title=measure_title, x_sort=systems,
              y_sort=measures) if rows_are_measures else \
        dict(x="measure", y="system", x_title=measure_title, y_title="System", x_sort=measures, y_sort=systems)
    which = "prevalence-calibrated" if calibrated else "raw"
    return _heatmap(df, colour=colour, tooltip=tooltip, **kw).properties(
        title=_title(title or f"Rank of every system under every measure ({which})",
                     "1 = best; systems ordered by mean rank"))


def score_heatmap(scores: pd.DataFrame, *, calibrated: bool = False, orient: str = "auto",
                  higher_is_better: dict | None = None, digits: int = 3,
                  title: str | None = None) -> alt.LayerChart:
    """Systems x measures with each value printed; undefined cells grey with "—" and the
    reason in the tooltip.

    ``scores``: (system, measure, value[, undefined, reason, calibrated]). Measures have
    different ranges and directions, so the colour of a cell is the position of its value
    between the worst (light) and the best (dark) system under that measure; the direction
    is the registry's (``higher_is_better`` overrides it per measure id).
    """
    df = _require(scores, ["system", "measure", "value"], "score_heatmap")
    if "undefined" not in df.columns:
        df["undefined"] = pd.to_numeric(df["value"], errors="coerce").isna()
    if "reason" not in df.columns:
        df["reason"] = ""
    df = _calibration_filter(df, calibrated, "score_heatmap")[["system", "measure", "value", "undefined", "reason"]]
    df["system"] = df["system"].astype(str)
    df["value"] = pd.to_numeric(df["value"], errors="coerce").astype(float)
    df["reason"] = df["reason"].fillna("").astype(str)
    measures = _ordered(df["measure"])
    systems = _ordered(df["system"])
    overrides = higher_is_better or {}
    sign = df["measure"].map({m: 1.0 if _direction(m, overrides.get(m)) else -1.0 for m in measures})
    signed = df["value"] * sign
    grouped = signed.groupby(df["measure"])
    lo, hi = grouped.transform("min"), grouped.transform("max")
    spread = (hi - lo).to_numpy(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        pos = np.where(spread > 0, (signed - lo).to_numpy(float) / spread, 1.0)
    pos[~np.isfinite(df["value"].to_numpy(float))] = np.nan
    df["fill"] = pos
    df["label"] = _texts(df["value"], "{:.%df}" % digits)
    df["ink"] = _ink(pos)
    df["shown"] = np.where(df["undefined"].astype(bool) | df["value"].isna(), "undefined", df["label"])
    colour = alt.Fill("fill:Q", title="Within each measure", scale=_sequential(0, 1),
                      legend=_legend(values=[0, 1], labelExpr="datum.value < 0.5 ? 'worst system' : 'best system'"))
    tooltip = [alt.Tooltip("system:N", title="System"), alt.Tooltip("measure:N", title="Measure"),
               alt.Tooltip("shown:N", title="Value"), alt.Tooltip("reason:N", title="Why undefined")]
    rows_are_measures = _orient(len(systems), len(measures), orient)
    kw = dict(x="system", y="measure", x_title="System", y_title="Measure", x_sort=systems, y_sort=measures) \
        if rows_are_measures else \
        dict(x="measure", y="system", x_title="Measure", y_title="System", x_sort=measures, y_sort=systems)
    n_undefined = int(np.isnan(pos).sum())
    which = "prevalence-calibrated" if calibrated else "raw"
    return _heatmap(df, colour=colour, tooltip=tooltip, **kw).properties(
        title=_title(title or f"Every measure for every system ({which})",
                     f"grey '{UNDEFINED_TEXT}' = undefined ({n_undefined} cells; hover for the reason)"
                     if n_undefined else "no undefined values"))


# --------------------------------------------------------------------------------------------
# 4. agreement between measures


def correlation_heatmap(rank_correlation: pd.DataFrame, *, method: str = "spearman", order=None,
                        title: str | None = None) -> alt.LayerChart:
    """Measures x measures, the rank correlation of the system rankings they induce, printed
    in the cells, on a diverging scale fixed to [-1, 1] (Opitz, paper 002, Figure 2 style).

    ``rank_correlation``: (measure_a, measure_b, method, value). Pairs given once are
    mirrored; ``order`` fixes the measure order (default: order of appearance). With more
    than ~28 measures the cells are too small for text and only the colours are drawn.
    """
    df = _require(rank_correlation, ["measure_a", "measure_b", "method", "value"], "correlation_heatmap")
    df = _select(df, "method", method, "correlation_heatmap")[["measure_a", "measure_b", "value"]]
    df["value"] = pd.to_numeric(df["value"], errors="coerce").astype(float)
    mirror = df.rename(columns={"measure_a": "measure_b", "measure_b": "measure_a"})
    df = pd.concat([df, mirror], ignore_index=True).drop_duplicates(["measure_a", "measure_b"], keep="first")
    measures = list(order) if order is not None else _ordered(pd.concat([df["measure_a"], df["measure_b"]]))
    df = df[df["measure_a"].isin(measures) & df["measure_b"].isin(measures)]
    n = len(measures)
    step = _step(n, room=PLOT_WIDTH - 40, lo=9, hi=40)
    df["fill"] = df["value"]
    df["label"] = _texts(df["value"], "{:.2f}")
    df["ink"] = _ink(np.abs(df["value"].to_numpy(float)) + 0.05)
    colour = alt.Fill("fill:Q", title=f"{method.capitalize()} correlation",
                      scale=alt.Scale(scheme="blueorange", domain=[-1, 1], domainMid=0, reverse=True),
                      legend=_legend(values=[-1, -0.5, 0, 0.5, 1], format=".1~f"))
    tooltip = [alt.Tooltip("measure_a:N", title="Measure"), alt.Tooltip("measure_b:N", title="vs"),
               alt.Tooltip("label:N", title=f"{method} correlation")]
    chart = _heatmap(df, x="measure_b", y="measure_a", x_title=None, y_title=None, x_sort=measures,
                     y_sort=measures, colour=colour, tooltip=tooltip, text=step >= 16,
                     width=step * n, height=step * n,
                     x_axis=_axis(-45, limit=110, labelAlign="right"), y_axis=_axis(0, limit=120))
    return chart.properties(title=_title(
        title or f"Agreement between measures: {method.capitalize()} rank correlation",
        "of the system rankings induced by each pair of measures; 1 = same order, -1 = reversed"))


# --------------------------------------------------------------------------------------------
# 5. prevalence calibration


def calibration_dumbbell(scores: pd.DataFrame, *, measures=None, columns: int = 3,
                         title: str | None = None) -> alt.FacetChart:
    """Raw vs prevalence-calibrated value of every system, one small panel per measure: a
    line from the raw (grey) to the calibrated (orange) value.

    ``scores``: (system, measure, value, calibrated[bool], ...). ``measures`` restricts and
    orders the panels. Each panel has its own value axis (measures differ in range).
    """
    df = _require(scores, ["system", "measure", "value", "calibrated"], "calibration_dumbbell")
    df = df[["system", "measure", "value", "calibrated"]]
    df["system"] = df["system"].astype(str)
    df, order = _restrict(df, "measure", measures, "calibration_dumbbell")
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
    systems = _ordered(df["system"])
    columns = max(1, min(columns, len(order)))
    width = (PAGE_WIDTH - 110) / columns - 18
    y = alt.Y("system:N", sort=systems, title=None, axis=_axis(0, limit=100))
    x_axis = alt.Axis(tickCount=3, labelOverlap="greedy", labelSeparation=8, labelFlush=True)
    rule = alt.Chart().mark_rule(color="#aaaaaa", strokeWidth=2).encode(
        y=y, x=alt.X("raw:Q", title=None, scale=alt.Scale(zero=False), axis=x_axis), x2="calibrated:Q",
        tooltip=[alt.Tooltip("system:N", title="System"), alt.Tooltip("raw:Q", format=".4f"),
                 alt.Tooltip("calibrated:Q", format=".4f")],
    ).transform_pivot("version", value="value", groupby=["measure", "system"])
    points = alt.Chart().mark_circle(size=40, opacity=1).encode(
        y=y, x=alt.X("value:Q", title=None, scale=alt.Scale(zero=False), axis=x_axis),
        color=alt.Color("version:N", title=None, scale=alt.Scale(domain=["raw", "calibrated"],
                                                                  range=["#777777", "#E69F00"]),
                        legend=_legend()),
        tooltip=[alt.Tooltip("system:N", title="System"), alt.Tooltip("version:N", title="Version"),
                 alt.Tooltip("value:Q", format=".4f")],
    )
    return alt.layer(rule, points, data=df).properties(
        width=width, height=alt.Step(_step(len(systems), lo=11, hi=16))
    ).facet(
        facet=alt.Facet("measure:N", sort=order, title=None, header=alt.Header(labelFontWeight="bold")),
        columns=columns,
    ).resolve_scale(x="independent").properties(title=_title(
        title or "Raw vs prevalence-calibrated values",
        "grey: raw; orange: calibrated to balanced prevalence (Opitz, paper 002, eq. 5-6)"))


# --------------------------------------------------------------------------------------------
# 8. rank uncertainty


def rank_distribution_chart(rank_distribution: pd.DataFrame, *, measure: str, min_probability: float = 0.005,
                            title: str | None = None) -> alt.LayerChart:
    """Bubble chart of P(rank = k) for every system under ``measure``: one row per system
    (ordered by expected rank), bubble area and shade proportional to the probability, the
    probability printed next to the bubbles of at least 10%.

    ``rank_distribution``: (system, measure, rank, probability).
    """
    df = _require(rank_distribution, ["system", "measure", "rank", "probability"], "rank_distribution_chart")
    df = _select(df, "measure", measure, "rank_distribution_chart")[["system", "rank", "probability"]]
    df["system"] = df["system"].astype(str)
    df["probability"] = pd.to_numeric(df["probability"], errors="coerce").astype(float)
    expected = (df["rank"] * df["probability"]).groupby(df["system"]).sum() / \
        df["probability"].groupby(df["system"]).sum()
    systems = expected.sort_values(kind="stable").index.tolist()
    df = df[df["probability"] >= min_probability]
    df["text"] = np.where(df["probability"] >= 0.3, (df["probability"] * 100).round().astype(int).astype(str) + "%", "")
    ranks = sorted(pd.unique(df["rank"]))
    step = _step(len(ranks), lo=22, hi=44)
    row = _step(len(systems), lo=22, hi=32)
    biggest = (0.95 * min(step, row)) ** 2  # area of the bubble of P = 1: fills its cell
    base = alt.Chart(df).encode(
        x=alt.X("rank:O", title="Rank (1 = best)", axis=_axis(0), scale=alt.Scale(domain=ranks)),
        y=alt.Y("system:N", sort=systems, title=None, axis=_axis(0)),
        tooltip=[alt.Tooltip("system:N", title="System"), alt.Tooltip("rank:O", title="Rank"),
                 alt.Tooltip("probability:Q", title="P(rank)", format=".1%")],
    )
    bubbles = base.mark_circle(opacity=0.9).encode(
        size=alt.Size("probability:Q", title="P(rank = k)", scale=alt.Scale(domain=[0, 1], range=[0, biggest]),
                      legend=_legend(format=".0%", values=[0.1, 0.5, 1.0], symbolFillColor="#4292c6")),
        color=alt.Color("probability:Q", scale=_sequential(-0.3, 1), legend=None),
    )
    text = base.mark_text(fontSize=9, baseline="middle", color="white").encode(text="text:N")
    return alt.layer(bubbles, text).properties(
        width=alt.Step(step), height=alt.Step(row),
        title=_title(title or f"Rank uncertainty: {measure}",
                     "bubble area = probability of the rank (printed from 30%); systems by expected rank"))


def pvalue_heatmap(pairwise: pd.DataFrame, *, measure: str, test: str, column: str = "p_holm",
                   alpha: float = 0.05, order=None, title: str | None = None) -> alt.LayerChart:
    """System x system p-values of a pairwise test under ``measure``, printed in the cells;
    darker = smaller p, bold outline = significant at ``alpha``.

    ``pairwise``: (system_a, system_b, measure, test, p_value, p_holm, p_bh); ``column``
    picks the raw (``p_value``) or corrected (``p_holm``, ``p_bh``) p-value. Pairs given once
    are mirrored; the diagonal is left empty.
    """
    if column not in ("p_value", "p_holm", "p_bh"):
        raise ValueError(f"pvalue_heatmap: column must be p_value, p_holm or p_bh; got {column!r}")
    df = _require(pairwise, ["system_a", "system_b", "measure", "test", column], "pvalue_heatmap")
    df = _select(df, "measure", measure, "pvalue_heatmap")
    df = _select(df, "test", test, "pvalue_heatmap")[["system_a", "system_b", column]]
    df = df.rename(columns={column: "p"})
    df[["system_a", "system_b"]] = df[["system_a", "system_b"]].astype(str)
    mirror = df.rename(columns={"system_a": "system_b", "system_b": "system_a"})
    df = pd.concat([df, mirror], ignore_index=True).drop_duplicates(["system_a", "system_b"])
    df = df[df["system_a"] != df["system_b"]]
    systems = list(order) if order is not None else _ordered(pd.concat([df["system_a"], df["system_b"]]))
    df["p"] = pd.to_numeric(df["p"], errors="coerce").astype(float)
    floor = 1e-4
    logp = np.log10(np.clip(df["p"].to_numpy(float), floor, 1))
    df["fill"] = np.where(np.isfinite(df["p"]), np.clip(df["p"], floor, 1), np.nan)
    small = df["p"].to_numpy(float) < 0.001
    df["label"] = np.where(small, "<.001", [s.replace("0.", ".", 1) for s in _texts(df["p"], "{:.3f}")])
    df["ink"] = _ink(-logp / 4)
    df["significant"] = df["p"] < alpha
    n = len(systems)
    step = _step(n, room=PLOT_WIDTH - 20, lo=20, hi=44)
    colour = alt.Fill("fill:Q", title=column, scale=alt.Scale(type="log", domain=[floor, 1], scheme="purples",
                                                               reverse=True),
                      legend=_legend(values=[1e-4, 1e-3, 0.01, 0.05, 1], format="~g"))
    tooltip = [alt.Tooltip("system_a:N", title="System"), alt.Tooltip("system_b:N", title="vs"),
               alt.Tooltip("p:Q", title=column, format=".4g"), alt.Tooltip("significant:N", title=f"p < {alpha}")]
    def outline(base):
        return base.mark_rect(fill=None, stroke="#D55E00", strokeWidth=2).transform_filter("datum.significant")

    heat = _heatmap(df, x="system_b", y="system_a", x_title=None, y_title=None, x_sort=systems, y_sort=systems,
                    colour=colour, tooltip=tooltip, width=step * n, height=step * n, extra=[outline])
    return heat.properties(
        title=_title(title or f"Pairwise differences under {measure}: {test}",
                     f"{column}; outlined: p < {alpha:g}"))


# --------------------------------------------------------------------------------------------
# 6. per-class view


def per_class_heatmap(per_class: pd.DataFrame, *, metrics=("recall", "precision", "f1"),
                      title: str | None = None) -> alt.FacetChart:
    """Recall, precision and F1 of every class for every system: one heatmap per metric
    (stacked), classes across, systems down, values printed, undefined cells grey.

    ``per_class``: (system, class, metric, value).
    """
    df = _require(per_class, ["system", "class", "metric", "value"], "per_class_heatmap")
    df = df[["system", "class", "metric", "value"]]
    df = df[df["metric"].isin(list(metrics))]
    if df.empty:
        raise ValueError(f"per_class_heatmap: no rows for metrics {list(metrics)}")
    df["system"] = df["system"].astype(str)
    df["class"] = df["class"].astype(str)
    df["value"] = pd.to_numeric(df["value"], errors="coerce").astype(float)
    df["fill"] = df["value"]
    df["label"] = _texts(df["value"], "{:.2f}")
    df["ink"] = _ink(df["value"])
    classes, systems = _ordered(df["class"]), _ordered(df["system"])
    present = [m for m in metrics if m in set(df["metric"])]
    sx = _step(len(classes), lo=26, hi=52)
    colour = alt.Fill("fill:Q", title="Value", scale=_sequential(0, 1), legend=_legend(values=[0, 0.5, 1]))
    tooltip = [alt.Tooltip("system:N", title="System"), alt.Tooltip("class:N", title="Class"),
               alt.Tooltip("metric:N", title="Metric"), alt.Tooltip("label:N", title="Value")]
    heat = _heatmap(df, x="class", y="system", x_title="Class", y_title=None, x_sort=classes, y_sort=systems,
                    colour=colour, tooltip=tooltip, width=sx * len(classes),
                    height=_step(len(systems), lo=14, hi=20) * len(systems))
    return heat.facet(row=alt.Row("metric:N", sort=present, title=None,
                        header=alt.Header(labelAngle=0, labelAlign="left", labelFontWeight="bold",
                                          labelOrient="top", labelAnchor="start"))
            ).properties(title=_title(title or "Per-class recall, precision and F1",
                                      f"grey '{UNDEFINED_TEXT}' = undefined (0/0)"))


def confusion_grid(confusion: pd.DataFrame, *, columns: int | None = None, systems=None,
                   title: str | None = None) -> alt.FacetChart:
    """Row-normalised confusion matrices as small multiples, one per system: gold down,
    predicted across, the share of each gold class printed in % (blank when it rounds to 0).

    ``confusion``: (system, gold, predicted, count, rate) with ``rate`` normalised per gold
    row. ``systems`` restricts and orders the panels.
    """
    df = _require(confusion, ["system", "gold", "predicted", "count", "rate"], "confusion_grid")
    df = df[["system", "gold", "predicted", "count", "rate"]]
    df[["system", "gold", "predicted"]] = df[["system", "gold", "predicted"]].astype(str)
    df, order = _restrict(df, "system", systems, "confusion_grid")
    classes = _ordered(pd.concat([df["gold"], df["predicted"]]))
    k = len(classes)
    if columns is None:
        columns = 3 if k <= 6 else 2 if k <= 12 else 1
    columns = max(1, min(columns, len(order)))
    panel = (PAGE_WIDTH - 90) / columns - 16
    step = float(np.clip(panel / k, 6, 40))
    df["rate"] = pd.to_numeric(df["rate"], errors="coerce").astype(float)
    pct = np.round(df["rate"].to_numpy(float) * 100)
    df["label"] = np.where(np.isfinite(pct) & (pct >= 1), np.nan_to_num(pct).astype(int).astype(str), "")
    df["ink"] = _ink(df["rate"])
    base = alt.Chart().encode(
        x=alt.X("predicted:N", sort=classes, title="Predicted", axis=_axis(-90 if step < 30 else -45, limit=70,
                                                                          labelAlign="right")),
        y=alt.Y("gold:N", sort=classes, title="Gold", axis=_axis(0, limit=70)),
        tooltip=[alt.Tooltip("system:N", title="System"), alt.Tooltip("gold:N", title="Gold"),
                 alt.Tooltip("predicted:N", title="Predicted"), alt.Tooltip("count:Q", title="Items"),
                 alt.Tooltip("rate:Q", title="Share of the gold class", format=".1%")],
    )
    rect = base.mark_rect(stroke="white", strokeWidth=0.5).encode(
        fill=alt.Fill("rate:Q", title="Share of the gold class", scale=_sequential(0, 1),
                      legend=_legend(format=".0%", values=[0, 0.5, 1])))
    layers = [rect]
    if step >= 14:
        layers.append(base.mark_text(baseline="middle", fontSize=_font(step * 1.1)).encode(
            text="label:N", color=alt.Color("ink:N", scale=None)))
    return alt.layer(*layers, data=df).properties(width=alt.Step(step), height=alt.Step(step)).facet(
        facet=alt.Facet("system:N", sort=order, title=None, header=alt.Header(labelFontWeight="bold")),
        columns=columns,
    ).properties(title=_title(title or "Normalised confusion matrices",
                              "each row (gold class) sums to 100%; cells in %"))


# --------------------------------------------------------------------------------------------
# 9. cross-validation (Forman & Scholz, paper 001)


def cv_estimates(cv: pd.DataFrame, *, measure: str | None = None, by: str = "auto",
                 title: str | None = None) -> alt.LayerChart:
    """The fold-aggregation estimates of one measure per system (e.g. the five F estimators
    F_avg, F~_avg, F_pr,re, F~_pr,re, F_tp,fp of paper 001, section 3): one row per system,
    one coloured mark per estimator, a grey line spanning their range.

    ``cv``: (system, measure, aggregation, value[, estimator]). ``measure`` is needed when the
    frame holds several measures. ``by``: the column that names the series; ``"auto"`` takes
    ``estimator`` (the paper's names, e.g. ``F_tp,fp``) when every selected row has one,
    else ``aggregation``. Undefined estimates (NaN, e.g. F~ when every fold was skipped) are
    named in the subtitle.
    """
    df = _require(cv, ["system", "measure", "aggregation", "value"], "cv_estimates")
    if measure is None:
        found = _ordered(df["measure"])
        if len(found) > 1:
            raise ValueError(f"cv_estimates: the frame has several measures {found}; pass measure=")
        measure = found[0]
    df = _select(df, "measure", measure, "cv_estimates")
    if by == "auto":
        names = df["estimator"] if "estimator" in df.columns else None
        named = names is not None and names.notna().all() and (names.astype(str) != "").all()
        by = "estimator" if named else "aggregation"
    if by not in df.columns:
        raise ValueError(f"cv_estimates: missing column(s) [{by!r}]; the frame has {list(df.columns)}")
    df = df[["system", by, "value"]].rename(columns={by: "aggregation"})
    df["system"] = df["system"].astype(str)
    df["aggregation"] = df["aggregation"].astype(str)
    df["value"] = pd.to_numeric(df["value"], errors="coerce").astype(float)
    aggregations = _ordered(df["aggregation"])
    bad = df[~np.isfinite(df["value"])]
    df = df[np.isfinite(df["value"])]
    if df.empty:
        raise ValueError(f"cv_estimates: every estimate of {measure!r} is undefined")
    means = df.groupby("system", sort=False)["value"].mean()
    systems = means.sort_values(ascending=False, kind="stable").index.tolist()
    span = df.groupby("system", as_index=False)["value"].agg(lo="min", hi="max")
    span["spread"] = span["hi"] - span["lo"]
    y = alt.Y("system:N", sort=systems, title=None, axis=_axis(0))
    x_scale = alt.Scale(zero=False, nice=False, padding=10)
    rule = alt.Chart(span).mark_rule(color="#bbbbbb", strokeWidth=6, strokeCap="round").encode(
        y=y, x=alt.X("lo:Q", scale=x_scale, title=measure), x2="hi:Q",
        tooltip=[alt.Tooltip("system:N", title="System"), alt.Tooltip("spread:Q", title="max - min", format=".4f")])
    points = alt.Chart(df).mark_point(size=60, filled=True, opacity=0.9).encode(
        y=y, x=alt.X("value:Q", scale=x_scale, title=measure),
        color=alt.Color("aggregation:N", scale=alt.Scale(domain=aggregations), title="Estimator",
                        legend=_legend(columns=5)),
        shape=alt.Shape("aggregation:N", scale=alt.Scale(domain=aggregations), title="Estimator",
                        legend=_legend(columns=5)),
        tooltip=[alt.Tooltip("system:N", title="System"), alt.Tooltip("aggregation:N", title="Estimator"),
                 alt.Tooltip("value:Q", title=measure, format=".4f")],
    )
    missing = [f"{s} ({a})" for s, a in zip(bad["system"], bad["aggregation"])]
    return alt.layer(rule, points).properties(
        width=PLOT_WIDTH, height=alt.Step(_step(len(systems), lo=18, hi=26)),
        title=_title(title or f"Cross-validation: ways to aggregate {measure} over folds",
                     "the same predictions, aggregated differently (Forman & Scholz, paper 001)",
                     f"undefined: {', '.join(missing)}" if missing else ""))


_SETTING_TITLES = {"true_f": "True F-measure", "f_true": "True F-measure", "stratified": "Cross-validation",
                   "positives": "Positives", "prevalence": "Positives", "panel": None}
#: Columns of a simulation frame that are results or names, never settings.
_RESULT_COLUMNS = {"mean", "sd", "rel_bias", "rel_sd", "invalid_rate", "undefined_rate", "repetitions", "value",
                   "metric", "estimator", "label"}


def _header_expr(column: str) -> str:
    """Panel labels: 'stratified' / 'unstratified' for the boolean setting, else the value."""
    if column == "stratified":
        return "datum.value === true || datum.value === 'true' ? 'stratified' : 'unstratified'"
    return "datum.value"


def _first(columns, candidates):
    return next((c for c in candidates if c in columns), None)


def _simulation(sim: pd.DataFrame, *, metric: str, y_title: str, x, column, row, estimator, what: str,
                title: str, subtitle: str, zero_rule: bool) -> alt.FacetChart | alt.LayerChart:
    if not isinstance(sim, pd.DataFrame):
        raise TypeError(f"{what}: expected a pandas DataFrame, got {type(sim).__name__}")
    cols = set(sim.columns)
    # the result column: rel_bias / rel_sd (simulation.run) or value + metric (figure frames)
    if metric in cols:
        y = metric
    elif "value" in cols and "metric" in cols:
        y = "value"
        wrong = sorted(set(sim["metric"].astype(str)) - {metric})
        if wrong:
            raise ValueError(f"{what}: plots {metric}; the frame holds metric {wrong}")
    else:
        y = metric  # reported as missing below
    if x == "auto":
        x = _first(cols, ("prevalence", "positives")) or "positives"
    if estimator == "auto":
        estimator = _first(cols, ("label", "estimator")) or "estimator"
    if column == "auto":
        varying = [c for c in ("panel", "f_true", "true_f", "stratified")
                   if c in cols and c not in (x, row) and sim[c].nunique() > 1]
        column = varying[0] if varying else None
    needed = list(dict.fromkeys(c for c in (x, y, estimator, column, row) if c is not None))
    df = _require(sim, needed, what)[needed]
    keys = [c for c in (x, estimator, column, row) if c is not None]
    dup = sim.duplicated(keys, keep=False)
    if dup.any():
        clash = sim[dup].groupby(keys, dropna=False).nunique()
        others = [c for c in clash.columns if c not in _RESULT_COLUMNS and (clash[c] > 1).any()]
        raise ValueError(f"{what}: several rows per point of {keys}; filter the frame, or put one of "
                         f"{others} on column= or row=")
    df[y] = pd.to_numeric(df[y], errors="coerce").astype(float)
    xs = pd.to_numeric(df[x], errors="coerce")
    percent = bool(xs.notna().all() and xs.max() <= 1 and x != _first(cols, ("f_true", "true_f")))
    estimators = _ordered(df[estimator])
    panels = df[column].nunique() if column else 1
    width = (PAGE_WIDTH - 150) / panels - (12 if panels > 1 else 0)
    x_enc = alt.X(f"{x}:Q", title=_SETTING_TITLES.get(x, x) or x,
                  axis=alt.Axis(format="%" if percent else "~g"), scale=alt.Scale(zero=False, nice=False))
    legend = _legend(columns=5)
    base = alt.Chart().encode(
        x=x_enc,
        y=alt.Y(f"{y}:Q", title=y_title, axis=alt.Axis(format="%")),
        color=alt.Color(f"{estimator}:N", scale=alt.Scale(domain=estimators), title="Estimator", legend=legend),
        shape=alt.Shape(f"{estimator}:N", scale=alt.Scale(domain=estimators), title="Estimator", legend=legend),
        tooltip=[alt.Tooltip(f"{c}:N") for c in keys if c != x] + [
            alt.Tooltip(f"{x}:Q", format=".0%" if percent else "~g"), alt.Tooltip(f"{y}:Q", format=".2%")],
    )
    layers = [base.mark_line(strokeWidth=1.5), base.mark_point(size=30, filled=True)]
    if zero_rule:
        layers.insert(0, alt.Chart().mark_rule(color="#888888", strokeDash=[4, 3]).encode(y=alt.YDatum(0)))
    chart = alt.layer(*layers, data=df).properties(width=max(width, 110), height=200 if row is None else 150)
    if column or row:
        facet = {}
        for channel, name in (("column", column), ("row", row)):
            if name:
                values = _ordered(df[name])
                if pd.api.types.is_numeric_dtype(df[name]) or pd.api.types.is_bool_dtype(df[name]):
                    values = sorted(values)  # else the order given ("1% positives" before "25% ...")
                facet[channel] = (alt.Column if channel == "column" else alt.Row)(
                    f"{name}:N", title=_SETTING_TITLES.get(name, name), sort=values,
                    header=alt.Header(labelFontWeight="bold", labelExpr=_header_expr(name)))
        chart = chart.facet(**facet)
    return chart.properties(title=_title(title, subtitle))


def simulation_bias(sim: pd.DataFrame, *, x: str = "auto", column: str | None = "auto", row: str | None = None,
                    estimator: str = "auto", title: str | None = None):
    """Relative bias of each F estimator, one line per estimator, one panel per ``column``
    (and ``row``) value - Forman & Scholz (paper 001), Figures 5-7.

    ``sim``: setting columns (e.g. ``positives``/``prevalence``, ``true_f``/``f_true``,
    ``stratified``, ``panel``), the estimator (``label``, the paper's name, or ``estimator``)
    and the result: ``rel_bias`` (as from ``analyses.simulation.run``) or ``value`` with
    ``metric == "rel_bias"`` (its ``figure_frames``). Defaults (``"auto"``): x = the share of
    positives (``prevalence``, else ``positives``; a fraction is shown in %), colour = ``label``
    if present, column = the first of panel / f_true / true_f / stratified that varies. Every
    setting that varies must be on x, ``column`` or ``row`` (or filtered out before),
    otherwise a ValueError names it. Figures 6-7: ``x="f_true", column="panel"``.
    """
    return _simulation(sim, metric="rel_bias", y_title="Relative bias", x=x, column=column, row=row,
                       estimator=estimator, what="simulation_bias", zero_rule=True,
                       title=title or "Bias of the ways to compute F in cross-validation",
                       subtitle="(mean estimate - true F) / true F over simulated runs; 0 = unbiased")


def simulation_sd(sim: pd.DataFrame, *, x: str = "auto", column: str | None = "auto", row: str | None = None,
                  estimator: str = "auto", title: str | None = None):
    """Relative standard deviation of each F estimator (``rel_sd``, or ``value`` with
    ``metric == "rel_sd"``), laid out as :func:`simulation_bias` (paper 001, Figure 8)."""
    return _simulation(sim, metric="rel_sd", y_title="Relative standard deviation", x=x, column=column, row=row,
                       estimator=estimator, what="simulation_sd", zero_rule=False,
                       title=title or "Spread of the ways to compute F in cross-validation",
                       subtitle="standard deviation of the estimate / true F over simulated runs")
