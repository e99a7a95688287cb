"""Heatmaps: the rank of every system under every measure, agreement between measures,
pairwise p-values, per-class values and confusion matrices."""
from __future__ import annotations

from typing import Any

import altair as alt
import numpy as np
import pandas as pd

from evalreport.charts._common import (
    PAGE_WIDTH,
    PLOT_WIDTH,
    UNDEFINED_TEXT,
    band_step,
    bottom_legend,
    chart_title,
    display_text,
    font,
    heatmap,
    in_order,
    ink,
    label_axis,
    label_expr,
    label_limit,
    measure_names,
    name_measures,
    nominal_axis_for,
    ordered,
    rank_values,
    require,
    restrict,
    select,
    sequential,
    short_measure_label,
    shown_names,
    text_width,
    texts,
    with_properties,
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
    return select(df, "calibrated", bool(calibrated), what)


#: Longest system name (px) on a heatmap's x axis (angled) and y axis before it is truncated
#: (the full name is in the tooltip).
SYSTEM_LIMIT, SYSTEM_ROW_LIMIT = 160, 300
#: Longest measure label (px) on a row: room for a short label whole ("Symmetric balanced accuracy").
MEASURE_ROW_LIMIT = 190


def rank_texts(ranks) -> np.ndarray:
    """Ranks as printed: "2" for whole ranks, "1.5" for shared ones (ties), "—" if undefined."""
    v = pd.to_numeric(pd.Series(ranks), errors="coerce").to_numpy(float)
    return np.array([UNDEFINED_TEXT if not np.isfinite(r) else f"{r:.0f}" if np.isclose(r % 1, 0) else f"{r:.1f}"
                     for r in v], dtype=object)


def _system_measure_axes(rows_are_measures: bool, systems, measures, measure_title: str) -> dict:
    """x/y fields, titles, orders and label limits of a systems x measures heatmap."""
    if rows_are_measures:
        return dict(x="system", y="measure_name", x_title="System", y_title=measure_title, x_sort=systems,
                    y_sort=measures, x_limit=SYSTEM_LIMIT, y_limit=MEASURE_ROW_LIMIT)
    return dict(x="measure_name", y="system", x_title=measure_title, y_title=None, x_sort=measures,
                y_sort=systems, y_limit=label_limit(systems, SYSTEM_ROW_LIMIT), x_limit=150)


def worst_rank(ranks: pd.DataFrame, *, calibrated: bool = False) -> float:
    """The worst (largest) rank of ``ranks`` (its raw or calibrated rows, as :func:`rank_heatmap` picks
    them), where the rank chart's colour scale ends; 1 without ranks.

    Parameters
    ----------
    ranks : DataFrame
        (system, measure, rank[, calibrated]).
    calibrated : bool
        The prevalence-calibrated rows (when the column is there).

    Returns
    -------
    float
    """
    df = _calibration_filter(require(ranks, ["system", "measure", "rank"], "rank_heatmap"), calibrated,
                             "rank_heatmap")
    rank = pd.to_numeric(df["rank"], errors="coerce").astype(float)
    return float(np.nanmax(rank)) if np.isfinite(rank).any() else 1.0


def rank_heatmap(ranks: pd.DataFrame, *, calibrated: bool = False, orient: str = "auto",
                 title: str | None = None, measure_title: str = "Measure",
                 measure_labels: bool = True, systems=None, worst: float | None = None) -> alt.LayerChart:
    """Systems x measures, each cell the rank of the system under the measure (1 = best,
    dark), printed in the cell. Systems are in the order ``systems`` gives (e.g. the
    leaderboard's), else ordered by their mean rank.

    ``ranks``: (system, measure, rank[, calibrated]); ``calibrated`` picks the raw (False) or
    prevalence-calibrated (True) rows when the column is there. Shared ranks (ties) are
    printed with one decimal, the others without. ``orient``: ``"auto"`` puts the longer list
    on the rows. Measures are shown by their short registry labels (ids in the tooltip);
    ``measure_labels=False`` shows the ``measure`` values as they are (e.g. scenario names).
    ``worst``: the rank the colour scale ends at (default: the worst in ``ranks``); a chart of some
    systems of a table passes the whole table's (:func:`worst_rank`), so that a colour means the same
    rank as in the chart of every system.
    """
    df = require(ranks, ["system", "measure", "rank"], "rank_heatmap")
    df = _calibration_filter(df, calibrated, "rank_heatmap")[["system", "measure", "rank"]]
    df["system"] = df["system"].astype(str)
    df["rank"] = pd.to_numeric(df["rank"], errors="coerce").astype(float)
    worst = worst_rank(df) if worst is None else float(worst)
    df["fill"] = df["rank"]
    df["label"] = rank_texts(df["rank"])
    df["ink"] = ink((worst - df["rank"]) / max(worst - 1, 1))
    order = systems
    if order is None:
        systems = df.groupby("system", sort=False)["rank"].mean().sort_values(kind="stable").index.tolist()
    else:
        systems = in_order(df["system"], order)
    df, measures = name_measures(df, labels=measure_labels)
    colour = alt.Fill("fill:Q", title="Rank", scale=sequential(1, max(worst, 2), reverse=True),
                      legend=bottom_legend(values=rank_values(worst), format="d", labelOverlap="greedy"))
    tooltip = [alt.Tooltip("system:N", title="System"), alt.Tooltip("measure_label:N", title=measure_title)]
    if measure_labels:
        tooltip.append(alt.Tooltip("measure:N", title="id"))
    tooltip.append(alt.Tooltip("label:N", title="Rank"))
    kw = _system_measure_axes(_orient(len(systems), len(measures), orient), systems, measures, measure_title)
    which = "prevalence-calibrated" if calibrated else "raw"
    return with_properties(heatmap(df, colour=colour, tooltip=tooltip, **kw),
        title=chart_title(title or f"Rank of every system under every measure ({which})",
                     "1 = best; systems ordered by mean rank" if order is None else
                     "1 = best; systems in leaderboard order"))


# --------------------------------------------------------------------------------------------
# 4. agreement between measures


def _correlation_frame(rank_correlation: pd.DataFrame, method: str, order, what: str):
    """The (measure_a, measure_b, value) rows of ``method``, mirrored, and the measure order."""
    df = require(rank_correlation, ["measure_a", "measure_b", "method", "value"], what)
    # n_systems (systems with a value under both measures) tells identical rankings from rankings
    # that agree only where both measures are defined
    df = select(df, "method", method, what)[["measure_a", "measure_b", "value"]
                                             + (["n_systems"] if "n_systems" in df else [])]
    df["value"] = pd.to_numeric(df["value"], errors="coerce").astype(float)
    mirror = df.rename(columns={"measure_a": "measure_b", "measure_b": "measure_a"})
    df = pd.concat([df, mirror], ignore_index=True).drop_duplicates(["measure_a", "measure_b"], keep="first")
    found = ordered(pd.concat([df["measure_a"], df["measure_b"]]))
    measures = [m for m in map(display_text, order) if m in set(found)] if order is not None else found
    return df[df["measure_a"].isin(measures) & df["measure_b"].isin(measures)], measures


def identical_rankings(rank_correlation: pd.DataFrame, *, method: str = "spearman", order=None) -> list[list]:
    """The measures grouped by the ranking of the systems they induce: two measures are in one
    group when their rank correlation is 1 (the same order). Groups in ``order`` (default:
    order of appearance), each group's members in that order; a measure whose correlations are
    undefined (e.g. it gives every system the same value) is a group of its own."""
    df, measures = _correlation_frame(rank_correlation, method, order, "identical_rankings")
    return _identical_groups(df, measures)


def _identical_groups(df: pd.DataFrame, measures: list) -> list[list]:
    """The groups of :func:`identical_rankings` from a :func:`_correlation_frame` result."""
    same = df["value"].to_numpy(float) >= 1 - 1e-9
    if "n_systems" in df:
        own = df.loc[df["measure_a"] == df["measure_b"]].set_index("measure_a")["n_systems"]
        n = df["n_systems"].to_numpy()
        same &= (n == df["measure_a"].map(own).to_numpy()) & (n == df["measure_b"].map(own).to_numpy())
    where = {m: i for i, m in enumerate(measures)}
    parent = list(range(len(measures)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for a, b in zip(df["measure_a"].to_numpy(object)[same], df["measure_b"].to_numpy(object)[same]):
        ra, rb = root(where[a]), root(where[b])
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)
    groups: dict = {}
    for i, m in enumerate(measures):     # groups and members in ``measures`` order
        groups.setdefault(root(i), []).append(m)
    return list(groups.values())


#: Printed correlations need cells of at least this many px (else colour only, values in the tooltip).
CORRELATION_TEXT_CELL = 26


def correlation_heatmap(rank_correlation: pd.DataFrame, *, method: str = "spearman", order=None,
                        merge_identical: bool = True, title: str | None = None) -> alt.LayerChart:
    """Measures x measures, the rank correlation of the system rankings they induce, printed
    in the cells, on a diverging scale fixed to [-1, 1] (in the style of Opitz 2022, Figure 2).

    ``rank_correlation``: (measure_a, measure_b, method, value). Pairs given once are
    mirrored; ``order`` fixes the measure order (default: order of appearance). With
    ``merge_identical`` the measures that rank the systems identically (correlation 1, see
    :func:`identical_rankings`) share one row and column, labelled "first measure and k more" with
    every member in the tooltip: with few systems most measures agree, and the chart shrinks to
    what differs. Values are printed (".95", "-.50") only when the cells are at least
    :data:`CORRELATION_TEXT_CELL` px; measures are shown by their short registry labels.
    """
    df, measures = _correlation_frame(rank_correlation, method, order, "correlation_heatmap")
    # the same groups as identical_rankings(rank_correlation, method=method, order=measures)
    groups = _identical_groups(df, measures) if merge_identical else [[m] for m in measures]
    df = df.drop(columns="n_systems", errors="ignore")
    heads = [g[0] for g in groups]
    names = measure_names(heads)
    shown = {g[0]: names[g[0]] + (f" and {len(g) - 1} more" if len(g) > 1 else "") for g in groups}
    members = {g[0]: ", ".join(measure_names(g).values()) for g in groups}
    df = df[df["measure_a"].isin(heads) & df["measure_b"].isin(heads)].copy()
    df["name_a"], df["name_b"] = df["measure_a"].map(shown), df["measure_b"].map(shown)
    df["members_a"], df["members_b"] = df["measure_a"].map(members), df["measure_b"].map(members)
    order_names = [shown[h] for h in heads]
    n = len(heads)
    step = band_step(n, room=PLOT_WIDTH, lo=10, hi=40)
    df["fill"] = df["value"]
    df["label"] = [t.replace("0.", ".", 1) if t.startswith(("0.", "-0.")) else t for t in texts(df["value"], "{:.2f}")]
    df["ink"] = ink(np.abs(df["value"].to_numpy(float)) + 0.05)
    colour = alt.Fill("fill:Q", title=f"{method.capitalize()} correlation",
                      scale=alt.Scale(scheme="blueorange", domain=[-1, 1], domainMid=0, reverse=True),
                      legend=bottom_legend(values=[-1, -0.5, 0, 0.5, 1], format=".1~f"))
    tooltip = [alt.Tooltip("members_a:N", title="Measure(s)"), alt.Tooltip("members_b:N", title="vs"),
               alt.Tooltip("label:N", title=f"{method} correlation")]
    chart = heatmap(df, x="name_b", y="name_a", x_title=None, y_title=None, x_sort=order_names,
                     y_sort=order_names, colour=colour, tooltip=tooltip, text=step >= CORRELATION_TEXT_CELL,
                     width=step * n, height=step * n, x_limit=150, y_limit=190)
    merged = sum(len(g) - 1 for g in groups)
    off = df.loc[df["measure_a"] != df["measure_b"], "value"]
    lowest = f"; lowest {off.min():.2f}" if off.notna().any() else ""
    subtitle = ["of the system rankings induced by each pair of measures",
                f"1 = same order, -1 = reversed{lowest}"]
    if merged:
        subtitle.append("a row 'and k more' stands for k + 1 measures that rank the systems identically")
    if step < CORRELATION_TEXT_CELL:
        subtitle.append("too many measures to print the values (they are in rank_correlation.csv)")
    return with_properties(chart, title=chart_title(
        title or f"Agreement between measures: {method.capitalize()} rank correlation", *subtitle))


def pvalue_heatmap(pairwise: pd.DataFrame, *, measure: str, test: str, column: str = "p_holm",
                   alpha: float = 0.05, order=None, floor: float | None = None, floor_note: str | None = None,
                   title: str | None = None) -> alt.LayerChart:
    """System x system p-values of a pairwise test under ``measure``, printed in the cells;
    darker = smaller p, bold outline = significant at ``alpha``.

    ``pairwise``: (system_a, system_b, measure, test, p_value, p_holm, p_bh); ``column``
    picks the raw (``p_value``) or corrected (``p_holm``, ``p_bh``) p-value. Pairs given once
    are mirrored; the diagonal is left empty. ``floor``: the smallest p-value the test can
    give (e.g. pairs / (resamples + 1) for a Holm-corrected resampling test): the colour
    scale starts there (darkest = as small as it gets) and ``floor_note`` (or "smallest
    attainable p = ...") is added to the subtitle; default 0.0001. System names on the
    axes are angled when they do not fit their column and shortened to 130 px, beginning and
    end kept and no two alike (full name in the tooltip); the measure is shown by its registry label.
    """
    if column not in ("p_value", "p_holm", "p_bh"):
        raise ValueError(f"pvalue_heatmap: column must be p_value, p_holm or p_bh; got {column!r}")
    df = require(pairwise, ["system_a", "system_b", "measure", "test", column], "pvalue_heatmap")
    df = select(df, "measure", measure, "pvalue_heatmap")
    df = select(df, "test", test, "pvalue_heatmap")[["system_a", "system_b", column]]
    df = df.rename(columns={column: "p"})
    df[["system_a", "system_b"]] = df[["system_a", "system_b"]].astype(str)
    mirror = df.rename(columns={"system_a": "system_b", "system_b": "system_a"})
    df = pd.concat([df, mirror], ignore_index=True).drop_duplicates(["system_a", "system_b"])
    df = df[df["system_a"] != df["system_b"]]
    systems = [display_text(v) for v in order] if order is not None else ordered(pd.concat([df["system_a"],
                                                                                           df["system_b"]]))
    df["p"] = pd.to_numeric(df["p"], errors="coerce").astype(float)
    given = floor is not None
    floor = float(np.clip(floor if floor is not None else 1e-4, 1e-6, 0.5))
    logp = np.log10(np.clip(df["p"].to_numpy(float), floor, 1))
    df["fill"] = np.where(np.isfinite(df["p"]), np.clip(df["p"], floor, 1), np.nan)
    small = df["p"].to_numpy(float) < 0.001
    df["label"] = np.where(small, "<.001", [s.replace("0.", ".", 1) for s in texts(df["p"], "{:.3f}")])
    df["ink"] = ink(logp / np.log10(floor))
    df["significant"] = df["p"] < alpha
    n = len(systems)
    labels = label_limit(systems, SYSTEM_ROW_LIMIT)
    step = band_step(n, room=min(PLOT_WIDTH - 20, PAGE_WIDTH - labels - 30), lo=10, hi=44)
    colour = alt.Fill("fill:Q", title=column, scale=alt.Scale(type="log", domain=[floor, 1], scheme="purples",
                                                               reverse=True),
                      legend=bottom_legend(values=[floor] + [v for v in (1e-3, 0.01, alpha, 1) if v > floor * 1.5],
                                     format=".2~g", labelOverlap="greedy"))
    tooltip = [alt.Tooltip("system_a:N", title="System"), alt.Tooltip("system_b:N", title="vs"),
               alt.Tooltip("p:Q", title=column, format=".4g"), alt.Tooltip("significant:N", title=f"p < {alpha}")]
    def outline(base):
        return base.mark_rect(fill=None, stroke="#D55E00", strokeWidth=2).transform_filter("datum.significant")

    heat = heatmap(df, x="system_b", y="system_a", x_title=None, y_title=None, x_sort=systems, y_sort=systems,
                    colour=colour, tooltip=tooltip, width=step * n, height=step * n, extra=[outline],
                    x_limit=130, y_limit=labels)
    note = floor_note or (f"smallest attainable p = {floor:.3g}" if given else "")
    if given and floor >= alpha:
        note += f"{'; ' if note else ''}no pair can reach p < {alpha:g}"
    return with_properties(heat,
        title=chart_title(title or f"Pairwise differences under {short_measure_label(measure)}: {test} test",
                     f"{column}; outlined: p < {alpha:g}", note))



# --------------------------------------------------------------------------------------------
# 6. per-class view


def per_class_heatmap(per_class: pd.DataFrame, *, metrics=("recall", "precision", "f1"),
                      title: str | None = None, systems=None) -> alt.FacetChart:
    """Recall, precision and F1 of every class for every system: one heatmap per metric
    (stacked), classes across, systems down (in the order ``systems`` gives, e.g. the
    leaderboard's; else as they come), values printed, undefined cells grey.

    ``per_class``: (system, class, metric, value).
    """
    df = require(per_class, ["system", "class", "metric", "value"], "per_class_heatmap")
    df = df[["system", "class", "metric", "value"]]
    df = df[df["metric"].isin(list(metrics))]
    if df.empty:
        raise ValueError(f"per_class_heatmap: no rows for metrics {list(metrics)}")
    df["system"] = df["system"].astype(str)
    df["class"] = df["class"].astype(str)
    df["value"] = pd.to_numeric(df["value"], errors="coerce").astype(float)
    df["fill"] = df["value"]
    df["label"] = [t.replace("0.", ".", 1) if t.startswith("0.") else t for t in texts(df["value"], "{:.2f}")]
    df["ink"] = ink(df["value"])
    classes, systems = ordered(df["class"]), in_order(df["system"], systems)
    present = [m for m in metrics if m in set(df["metric"])]
    # the classes share what the system names leave of the page width (values printed when they fit)
    labels = label_limit(systems, SYSTEM_ROW_LIMIT)
    sx = band_step(len(classes), room=min(PLOT_WIDTH, PAGE_WIDTH - labels - 40), lo=12, hi=52)
    colour = alt.Fill("fill:Q", title="Value", scale=sequential(0, 1), legend=bottom_legend(values=[0, 0.5, 1]))
    tooltip = [alt.Tooltip("system:N", title="System"), alt.Tooltip("class:N", title="Class"),
               alt.Tooltip("metric:N", title="Metric"), alt.Tooltip("label:N", title="Value")]
    heat = heatmap(df, x="class", y="system", x_title="Class", y_title=None, x_sort=classes, y_sort=systems,
                    colour=colour, tooltip=tooltip, width=sx * len(classes),
                    height=band_step(len(systems), lo=14, hi=20) * len(systems), y_limit=labels)
    if len(present) == 1:     # one metric: no panel header repeating the title
        return with_properties(heat, title=chart_title(title or f"Per-class {present[0]}",
                                            f"grey '{UNDEFINED_TEXT}' = undefined (0/0)"))
    return with_properties(heat.facet(row=alt.Row("metric:N", sort=present, title=None,
                        header=alt.Header(labelAngle=0, labelAlign="left", labelFontWeight="bold",
                                          labelOrient="top", labelAnchor="start"))
            ), title=chart_title(title or "Per-class recall, precision and F1",
                                      f"grey '{UNDEFINED_TEXT}' = undefined (0/0)"))


def confusion_grid(confusion: pd.DataFrame, *, columns: int | None = None, systems=None,
                   title: str | None = None) -> alt.FacetChart:
    """Row-normalised confusion matrices as small multiples, one per system: gold down,
    predicted across, the share of each gold class printed in % (blank when it rounds to 0).

    ``confusion``: (system, gold, predicted, count, rate) with ``rate`` normalised per gold
    row. ``systems`` restricts and orders the panels.
    """
    df = require(confusion, ["system", "gold", "predicted", "count", "rate"], "confusion_grid")
    df = df[["system", "gold", "predicted", "count", "rate"]]
    df[["system", "gold", "predicted"]] = df[["system", "gold", "predicted"]].astype(str)
    df, order = restrict(df, "system", systems, "confusion_grid")
    classes = ordered(pd.concat([df["gold"], df["predicted"]]))
    k = len(classes)
    n = len(order)
    if columns is None:
        columns = 3 if k <= 6 else 2 if k <= 12 else 1
    columns = max(1, min(columns, n))
    own_axes = n % columns != 0
    # with empty slots in the grid, every panel has its own axes (their labels take room too)
    labels = min(70, max(text_width(c) for c in classes)) if own_axes else 0
    panel = (PAGE_WIDTH - 90) / columns - 16 - labels / 2
    step = float(np.clip(panel / k, 6, 40))
    df["rate"] = pd.to_numeric(df["rate"], errors="coerce").astype(float)
    pct = np.round(df["rate"].to_numpy(float) * 100)
    df["label"] = np.where(np.isfinite(pct) & (pct >= 1), np.nan_to_num(pct).astype(int).astype(str), "")
    df["ink"] = ink(df["rate"])
    base = alt.Chart().encode(
        x=alt.X("predicted:N", sort=classes, title=None if own_axes else "Predicted",
                axis=nominal_axis_for(classes, step, limit=70)),
        y=alt.Y("gold:N", sort=classes, title=None if own_axes else "Gold", axis=label_axis(0, limit=70, names=classes)),
        tooltip=[alt.Tooltip("system:N", title="System"), alt.Tooltip("gold:N", title="Gold"),
                 alt.Tooltip("predicted:N", title="Predicted"), alt.Tooltip("count:Q", title="Items"),
                 alt.Tooltip("rate:Q", title="Share of the gold class", format=".1%")],
    )
    rect = base.mark_rect(stroke="white", strokeWidth=0.5).encode(
        fill=alt.Fill("rate:Q", title="Share of the gold class", scale=sequential(0, 1),
                      legend=bottom_legend(format=".0%", values=[0, 0.5, 1])))
    layers = [rect]
    if step >= 14:
        layers.append(base.mark_text(baseline="middle", fontSize=font(step * 1.1)).encode(
            text=alt.Text("label:N"), color=alt.Color("ink:N", scale=None)))
    header = int(step * k + 20)
    # panel titles: system names shortened to the panel (bold text is ~10% wider), no two alike
    names = label_expr(shown_names(order, header / 1.1))
    label_expression: dict[str, Any] = {"labelExpr": names} if names else {}
    chart = with_properties(alt.layer(*layers, data=df), width=alt.Step(step), height=alt.Step(step)).facet(
        facet=alt.Facet("system:N", sort=order, title=None, header=alt.Header(
            labelFontWeight="bold", labelLimit=header, **label_expression)),
        columns=columns,
    )
    if own_axes:
        # a grid with empty slots: every panel gets its own axes, so that no empty slot shows a
        # lone axis (a shared axis is drawn under each column's last slot, panel or not)
        chart = chart.resolve_axis(x="independent", y="independent")
    return with_properties(chart, title=chart_title(title or "Normalised confusion matrices",
                                         "rows: gold class, columns: predicted class; each row sums to 100%; "
                                         "cells in %"))

