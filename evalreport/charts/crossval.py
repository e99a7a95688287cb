"""Cross-validation charts (Forman & Scholz 2010): the fold-aggregation estimates per system
and the simulation figures 5-8."""
from __future__ import annotations

import altair as alt
import numpy as np
import pandas as pd

from evalreport.charts._common import (
    PAGE_WIDTH,
    PLOT_WIDTH,
    band_step,
    bottom_legend,
    chart_title,
    label_axis,
    label_limit,
    ordered,
    require,
    select,
    short_measure_label,
    with_properties,
)

# --------------------------------------------------------------------------------------------
# 9. cross-validation (Forman & Scholz 2010)


def cv_estimates(cv: pd.DataFrame, *, measure: str | None = None, by: str = "auto",
                 title: str | None = None) -> alt.LayerChart:
    """The fold-aggregation estimates of one measure per system (e.g. the five F estimators
    F_avg, F~_avg, F_pr,re, F~_pr,re, F_tp,fp of Forman & Scholz 2010, section 2.3): one row per system,
    one coloured mark per estimator, a grey line spanning their range.

    ``cv``: (system, measure, aggregation, value[, estimator]). ``measure`` is needed when the
    frame holds several measures. ``by``: the column that names the series; ``"auto"`` takes
    ``estimator`` (the paper's names, e.g. ``F_tp,fp``) when every selected row has one,
    else ``aggregation``. Undefined estimates (NaN, e.g. F~ when every fold was skipped) are
    named in the subtitle.
    """
    df = require(cv, ["system", "measure", "aggregation", "value"], "cv_estimates")
    if measure is None:
        found = ordered(df["measure"])
        if len(found) > 1:
            raise ValueError(f"cv_estimates: the frame has several measures {found}; pass measure=")
        measure = found[0]
    df = select(df, "measure", measure, "cv_estimates")
    name = short_measure_label(measure)
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
    aggregations = ordered(df["aggregation"])
    bad = df[~np.isfinite(df["value"])]
    df = df[np.isfinite(df["value"])]
    if df.empty:
        raise ValueError(f"cv_estimates: every estimate of {measure!r} is undefined")
    means = df.groupby("system", sort=False)["value"].mean()
    systems = means.sort_values(ascending=False, kind="stable").index.tolist()
    span = df.groupby("system", as_index=False)["value"].agg(lo="min", hi="max")
    span["spread"] = span["hi"] - span["lo"]
    y = alt.Y("system:N", sort=systems, title=None, axis=label_axis(0, limit=label_limit(systems), names=systems))
    x_scale = alt.Scale(zero=False, nice=False, padding=10)
    rule = alt.Chart(span).mark_rule(color="#bbbbbb", strokeWidth=6, strokeCap="round").encode(
        y=y, x=alt.X("lo:Q", scale=x_scale, title=name), x2=alt.X2("hi:Q"),
        tooltip=[alt.Tooltip("system:N", title="System"), alt.Tooltip("spread:Q", title="max - min", format=".4f")])
    points = alt.Chart(df).mark_point(size=60, filled=True, opacity=0.9).encode(
        y=y, x=alt.X("value:Q", scale=x_scale, title=name),
        color=alt.Color("aggregation:N", scale=alt.Scale(domain=aggregations), title="Estimator",
                        legend=bottom_legend(columns=5)),
        shape=alt.Shape("aggregation:N", scale=alt.Scale(domain=aggregations), title="Estimator",
                        legend=bottom_legend(columns=5)),
        tooltip=[alt.Tooltip("system:N", title="System"), alt.Tooltip("aggregation:N", title="Estimator"),
                 alt.Tooltip("value:Q", title=f"{name} ({measure})", format=".4f")],
    )
    missing = [f"{s} ({a})" for s, a in zip(bad["system"], bad["aggregation"])]
    return with_properties(alt.layer(rule, points),
        width=PLOT_WIDTH, height=alt.Step(band_step(len(systems), lo=18, hi=26)),
        title=chart_title(title or f"Cross-validation: ways to aggregate {name} over folds",
                     "the same predictions, aggregated differently (Forman and Scholz, 2010)",
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
    df = require(sim, needed, what)[needed]
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
    estimators = ordered(df[estimator])
    panels = df[column].nunique() if column else 1
    width = (PAGE_WIDTH - 150) / panels - (12 if panels > 1 else 0)
    x_enc = alt.X(f"{x}:Q", title=_SETTING_TITLES.get(x, x) or x,
                  axis=alt.Axis(format="%" if percent else "~g"), scale=alt.Scale(zero=False, nice=False))
    legend = bottom_legend(columns=5)
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
    chart = with_properties(alt.layer(*layers, data=df), width=max(width, 110), height=200 if row is None else 150)
    if column or row:
        facet = {}
        for channel, name in (("column", column), ("row", row)):
            if name:
                values = ordered(df[name])
                if pd.api.types.is_numeric_dtype(df[name]) or pd.api.types.is_bool_dtype(df[name]):
                    values = sorted(values)  # else the order given ("1% positives" before "25% ...")
                facet[channel] = (alt.Column if channel == "column" else alt.Row)(
                    f"{name}:N", title=_SETTING_TITLES.get(name, name), sort=values,
                    header=alt.Header(labelFontWeight="bold", labelExpr=_header_expr(name)))
        chart = chart.facet(**facet)
    return with_properties(chart, title=chart_title(title, subtitle))


def simulation_bias(sim: pd.DataFrame, *, x: str = "auto", column: str | None = "auto", row: str | None = None,
                    estimator: str = "auto", title: str | None = None):
    """Relative bias of each F estimator, one line per estimator, one panel per ``column``
    (and ``row``) value - Forman & Scholz (2010), Figures 5-7.

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
    ``metric == "rel_sd"``), laid out as :func:`simulation_bias` (Forman & Scholz 2010, Figure 8)."""
    return _simulation(sim, metric="rel_sd", y_title="Relative standard deviation", x=x, column=column, row=row,
                       estimator=estimator, what="simulation_sd", zero_rule=False,
                       title=title or "Spread of the ways to compute F in cross-validation",
                       subtitle="standard deviation of the estimate / true F over simulated runs")
