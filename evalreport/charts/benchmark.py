"""Benchmark charts: several tasks ranked together.

Each builder takes one frame of :mod:`evalreport.analyses.consensus` (the column contract is in
its docstring) and returns an Altair chart; no analysis, no I/O.

* :func:`cd_diagram` - Demšar's critical-difference diagram (Demšar 2006, JMLR 7, section 3.2.2
  and Fig. 1): average ranks on an axis, 1 (best) at the left, the systems hung from it on
  leader lines (the better half labelled on the left, the worse half on the right), the
  critical difference drawn above the axis, and thick bars joining the systems that are not
  significantly different.
* :func:`task_rank_heatmap` - systems x tasks, the rank in each task printed in its cell.
* :func:`rank_frequency` - how often each system took rank 1, 2, ... (stacked bars).
* :func:`consensus_rank_distribution` - challengeR's blob plot: P(consensus rank = k).
* :func:`consensus_methods` - a bump chart of the consensus methods' rankings.

Systems are always listed in the consensus order: ``order=`` when given, else the mean rank
(over the tasks a system took part in).
"""
from __future__ import annotations

import json

import altair as alt
import numpy as np
import pandas as pd

from evalreport.charts._common import (
    PAGE_WIDTH,
    PLOT_WIDTH,
    SEQUENTIAL,
    UNDEFINED_FILL,
    band_font,
    band_step,
    bottom_legend,
    chart_title,
    display_text,
    heatmap,
    ink,
    label_axis,
    label_limit,
    nominal_axis_for,
    ordered,
    rank_values,
    require,
    sequential,
    shown_names,
    text_width,
    with_properties,
)
from evalreport.charts.critical_difference import cd_diagram, cd_layout
from evalreport.charts.heatmaps import rank_texts

__all__ = ["cd_diagram", "cd_layout", "task_rank_heatmap", "rank_frequency", "consensus_rank_distribution",
           "consensus_methods"]

#: Names of the consensus methods as readers see them (ids in the tooltips).
METHOD_LABELS = {"mean_score": "Mean score", "weighted_mean_score": "Weighted mean score",
                 "pooled": "Pooled score", "mean_rank": "Mean rank", "median_rank": "Median rank",
                 "borda": "Borda", "copeland": "Copeland", "kemeny": "Kemeny"}
MISSING_LABEL = "did not take part"
MISSING_INK = "#9a9a9a"
#: The observed consensus rank on the blob plot: vermillion, visible on the darkest blob.
OBSERVED_INK = "#D55E00"


def _method_label(method) -> str:
    return METHOD_LABELS.get(str(method), str(method))


def _system_order(df: pd.DataFrame, order, what: str) -> list:
    """The systems by mean rank (ties in order of appearance), or those ``order`` names first."""
    means = df.groupby("system", sort=False)["rank"].mean()
    by_rank = means.sort_values(kind="stable").index.tolist()
    if order is None:
        return by_rank
    order = list(dict.fromkeys(display_text(str(s)) for s in order))
    present = set(df["system"])
    first = [s for s in order if s in present]
    if not first:
        raise ValueError(f"{what}: none of the systems in order= is in the frame")
    return first + [s for s in by_rank if s not in set(first)]


# --------------------------------------------------------------------------------------------
# per-task ranks


def _task_grid(task_ranks: pd.DataFrame, what: str) -> pd.DataFrame:
    """The task_ranks frame completed to every system x task, with ``took_part``."""
    df = require(task_ranks, ["task", "system", "rank"], what)
    keep = ["task", "system", "rank"] + [c for c in ("value", "missing") if c in df.columns]
    df = df[keep].copy()
    df["task"], df["system"] = df["task"].astype(str), df["system"].astype(str)
    df["rank"] = pd.to_numeric(df["rank"], errors="coerce").astype(float)
    if df.duplicated(["task", "system"]).any():
        raise ValueError(f"{what}: several rows for one task x system")
    tasks, systems = ordered(df["task"]), ordered(df["system"])
    grid = pd.MultiIndex.from_product([tasks, systems], names=["task", "system"]).to_frame(index=False)
    df = grid.merge(df, on=["task", "system"], how="left")
    missing = df["missing"].fillna(False).astype(bool) if "missing" in df.columns else False
    no_row = df["rank"].isna() & (~df["value"].notna() if "value" in df.columns else True)
    df["took_part"] = ~(missing | no_row)
    return df


def task_rank_heatmap(task_ranks: pd.DataFrame, *, order=None, title: str | None = None) -> alt.LayerChart:
    """Systems (rows, in the consensus ``order``, default mean rank over the tasks taken part
    in) x tasks (columns), each cell the system's rank in that task (1 = best, dark; shared
    ranks with one decimal), printed in the cell. The scale runs from light to dark blue in
    lightness, so it prints in grey. A system that did not take part in a task gets a light
    grey cell crossed by a diagonal hatch line and no number ("did not take part" in the
    legend); a rank the missing policy gave it (``missing="last"``) is in the tooltip.

    ``task_ranks``: (task, system, rank[, value, missing]) - ``consensus.task_ranks``.
    """
    df = _task_grid(task_ranks, "task_rank_heatmap")
    shown = df[df["took_part"]]
    systems = _system_order(shown if not shown.empty else df, order, "task_rank_heatmap")
    tasks = ordered(df["task"])
    worst = float(np.nanmax(df["rank"])) if np.isfinite(df["rank"]).any() else 1.0
    df["fill"] = np.where(df["took_part"], df["rank"], np.nan)
    df["label"] = np.where(df["took_part"], rank_texts(df["rank"]), "")
    df["ink"] = ink((worst - df["rank"]) / max(worst - 1, 1))
    df["status"] = np.where(df["took_part"], "took part", MISSING_LABEL)
    df["rank_text"] = np.where(df["took_part"], df["label"],
                               np.where(df["rank"].notna(), "ranked last: " + rank_texts(df["rank"]).astype(str),
                                        MISSING_LABEL))
    colour = alt.Fill("fill:Q", title="Rank in task", scale=sequential(1, max(worst, 2), reverse=True),
                      legend=bottom_legend(values=rank_values(worst), format="d", labelOverlap="greedy"))
    tooltip = [alt.Tooltip("system:N", title="System"), alt.Tooltip("task:N", title="Task"),
               alt.Tooltip("rank_text:N", title="Rank")]
    if "value" in df.columns:
        tooltip.append(alt.Tooltip("value:Q", title="Score", format=".4f"))
    limit = label_limit(systems, 230)
    n_missing = int((~df["took_part"]).sum())

    def hatch(base):
        # one diagonal per missing cell: a rule across its band, so the cell differs from a
        # light rank colour in grey print too; the fill legend gets its "did not take part" entry
        return base.mark_rule(color=MISSING_INK, strokeWidth=1).encode(
            x=alt.X("task:N", sort=tasks, bandPosition=0), x2=alt.X2("task:N", bandPosition=1),
            y=alt.Y("system:N", sort=systems, bandPosition=1), y2=alt.Y2("system:N", bandPosition=0),
        ).transform_filter("datum.status != 'took part'")

    def missing_legend(base):
        return base.mark_rect(fill=UNDEFINED_FILL, opacity=0).encode(
            stroke=alt.Stroke("status:N", title=None, scale=alt.Scale(domain=[MISSING_LABEL], range=[MISSING_INK]),
                              # above the plot: beside the rank legend it would widen the figure
                              legend=alt.Legend(orient="top", symbolType="square", symbolFillColor=UNDEFINED_FILL,
                                                symbolOpacity=1, symbolStrokeColor=MISSING_INK, symbolSize=120))
        ).transform_filter("datum.status != 'took part'")

    extra = (hatch, missing_legend) if n_missing else ()
    chart = heatmap(df, x="task", y="system", x_title="Task", y_title=None, colour=colour, tooltip=tooltip,
                     x_sort=tasks, y_sort=systems, y_limit=limit, extra=extra)
    subtitle = "1 = best in the task; systems in consensus order"
    if n_missing:
        subtitle += f"; hatched grey = did not take part ({n_missing} cells)"
    return with_properties(chart, title=chart_title(title or "Rank in every task", subtitle))


# --------------------------------------------------------------------------------------------
# rank frequencies


def _spread_ties(df: pd.DataFrame) -> pd.DataFrame:
    """Counts per (system, position): a rank shared by n tied systems counts 1/n at each position it spans."""
    size = df.groupby(["task", "rank"])["system"].transform("size").to_numpy()
    rows = []
    for (_task, system, rank), n in zip(df[["task", "system", "rank"]].itertuples(index=False), size):
        first = rank - (n - 1) / 2
        for j in range(int(n)):
            rows.append((system, int(round(first + j)), 1.0 / n))
    return pd.DataFrame(rows, columns=["system", "position", "amount"])


def rank_frequency(frame: pd.DataFrame, *, method: str | None = None, order=None,
                   title: str | None = None) -> alt.LayerChart:
    """Stacked horizontal bars: for each system (rows, in consensus order) how many tasks it
    ranked 1st, 2nd, ... (dark = 1st, lighter = worse), plus the tasks it did not take part
    in (grey, last).

    ``frame``: either ``task_ranks`` (task, system, rank[, missing]) - counts of tasks; a
    shared (average) rank of n tied systems counts 1/n at each of the n places it spans - or
    a bootstrap rank distribution (system, rank, probability[, method]) - then the bars are
    probabilities; ``method`` picks one method's rows (default: the first).
    """
    what = "rank_frequency"
    if isinstance(frame, pd.DataFrame) and "probability" in frame.columns:
        df = require(frame, ["system", "rank", "probability"], what)
        if "method" in df.columns:
            methods = ordered(df["method"])
            method = method if method is not None else methods[0]
            df = df[df["method"] == method]
            if df.empty:
                raise ValueError(f"{what}: no rows with method = {method!r}; available: {methods}")
        df = df.assign(system=df["system"].astype(str),
                       position=pd.to_numeric(df["rank"], errors="coerce").round().astype(int),
                       amount=pd.to_numeric(df["probability"], errors="coerce").astype(float))
        expected = (df["position"] * df["amount"]).groupby(df["system"], sort=False).sum()
        systems = [display_text(str(s)) for s in order] if order is not None else \
            expected.sort_values(kind="stable").index.tolist()
        counts = df.groupby(["system", "position"], as_index=False)["amount"].sum()
        x_title, fmt, n_missing = "Probability", ".0%", 0
        sub = f"bootstrap probability of each consensus rank ({_method_label(method)})"
    else:
        grid = _task_grid(frame, what)
        took = grid[grid["took_part"]]
        systems = _system_order(took, order, what)
        counts = _spread_ties(took).groupby(["system", "position"], as_index=False)["amount"].sum()
        absent = (~grid["took_part"]).groupby(grid["system"]).sum()
        absent = absent[absent > 0]
        n_missing = int(absent.sum())
        if n_missing:
            counts = pd.concat([counts, pd.DataFrame({"system": absent.index, "position": 0,
                                                      "amount": absent.to_numpy(float)})], ignore_index=True)
        x_title, fmt = "Tasks", ".2~f"
        sub = "number of tasks at each rank; a tie of n systems counts 1/n at each place it spans"
    counts = counts[counts["system"].isin(systems) & (counts["amount"] > 0)]
    worst = int(max(counts["position"].max(), 1))
    counts["place"] = np.where(counts["position"] > 0, counts["position"].astype(str), MISSING_LABEL)
    counts["stack"] = np.where(counts["position"] > 0, counts["position"], worst + 1)
    places = [str(p) for p in range(1, worst + 1)] + ([MISSING_LABEL] if n_missing else [])
    colours = _ordinal_colours(worst) + ([UNDEFINED_FILL] if n_missing else [])
    shown = [str(v) for v in rank_values(worst)]   # grey is named in the subtitle: the legend fits the plot
    subtitle: list[str] = [sub]
    if n_missing:
        subtitle.append(f"grey = {MISSING_LABEL} ({n_missing:g} system x task cells)")
    limit = label_limit(systems, 230)
    width = float(np.clip(PAGE_WIDTH - limit - 30, 200, PLOT_WIDTH))
    row = band_step(len(systems), lo=12, hi=22)
    bars = alt.Chart(counts).mark_bar(stroke="white", strokeWidth=0.5).encode(
        y=alt.Y("system:N", sort=systems, title=None,
                axis=label_axis(0, limit=limit, names=systems, labelFontSize=band_font(row))),
        x=alt.X("sum(amount):Q", title=x_title, stack="zero",
                axis=alt.Axis(format=fmt, tickMinStep=1 if fmt != ".0%" else 0.05)),
        color=alt.Color("place:N", title="Rank", sort=places, scale=alt.Scale(domain=places, range=colours),
                        legend=bottom_legend(values=shown, symbolType="square")),
        order=alt.Order("stack:Q", sort="ascending"),
        tooltip=[alt.Tooltip("system:N", title="System"), alt.Tooltip("place:N", title="Rank"),
                 alt.Tooltip("sum(amount):Q", title=x_title, format=".3~f")],
    )
    return with_properties(alt.layer(bars), width=width, height=alt.Step(row),
                           title=chart_title(title or "How often each system took each rank", *subtitle))


def _ordinal_colours(n: int) -> list[str]:
    """``n`` blues from the darkest (rank 1) to the lightest of the sequential scale (monotone in lightness)."""
    stops = np.array([[int(c[i:i + 2], 16) for i in (1, 3, 5)] for c in SEQUENTIAL[::-1]], dtype=float)
    # stop at 85% of the way to the near-white end: the last rank must still show on white paper
    t = np.linspace(0, 0.85, n) if n > 1 else np.array([0.0])
    pos = t * (len(stops) - 1)
    lo = np.minimum(pos.astype(int), len(stops) - 2)
    frac = (pos - lo)[:, None]
    rgb = stops[lo] * (1 - frac) + stops[lo + 1] * frac
    return ["#{:02x}{:02x}{:02x}".format(*(int(round(v)) for v in c)) for c in rgb]


# --------------------------------------------------------------------------------------------
# consensus uncertainty and the methods side by side


def consensus_rank_distribution(frame: pd.DataFrame, *, observed: pd.DataFrame | None = None, methods=None,
                                min_probability: float = 0.005, title: str | None = None) -> alt.VConcatChart:
    """challengeR's blob plot (Wiesenfarth et al. 2021, Sci. Rep. 11, Fig. 5) in our theme: one
    panel per consensus method; x = system (ordered by the observed consensus rank when
    ``observed`` is given, else by expected rank), y = rank (1 at the top), circle area =
    bootstrap probability of that rank; the observed consensus rank is marked by an orange bar.

    ``frame``: (method, system, rank, probability) - the consensus rank distribution;
    ``observed``: (method, system, rank) - ``Consensus.table``; ``methods`` restricts and orders
    the panels (default: all, in the frame's order). Probabilities below ``min_probability``
    are not drawn.
    """
    what = "consensus_rank_distribution"
    df = require(frame, ["method", "system", "rank", "probability"], what)[["method", "system", "rank",
                                                                            "probability"]]
    df["system"] = df["system"].astype(str)
    df["rank"] = pd.to_numeric(df["rank"], errors="coerce").astype(float)
    df["probability"] = pd.to_numeric(df["probability"], errors="coerce").astype(float)
    available = ordered(df["method"])
    methods = available if methods is None else list(methods)
    unknown = [m for m in methods if m not in available]
    if unknown:
        raise ValueError(f"{what}: no rows for method(s) {unknown}; available: {available}")
    obs = None
    if observed is not None:
        obs = require(observed, ["method", "system", "rank"], f"{what}(observed)")[["method", "system", "rank"]]
        obs["system"] = obs["system"].astype(str)
        obs["rank"] = pd.to_numeric(obs["rank"], errors="coerce").astype(float)
    systems_all = ordered(df["system"])
    n = len(systems_all)
    worst = float(max(n, np.nanmax(df["rank"])))
    limit = 110
    step_x = band_step(n, room=PAGE_WIDTH - 60, lo=9, hi=34)
    height = float(np.clip(step_x * worst, 100, 360))
    cell = min(step_x, height / worst)
    y_scale = alt.Scale(domain=[worst + 0.5, 0.5], nice=False, zero=False)
    panels = []
    for m in methods:
        part = df[df["method"] == m]
        expected = (part["rank"] * part["probability"]).groupby(part["system"], sort=False).sum()
        if obs is not None and (obs["method"] == m).any():
            o = obs[obs["method"] == m]
            key = o.set_index("system")["rank"].reindex(expected.index).fillna(np.inf)
            order = pd.DataFrame({"o": key, "e": expected}).sort_values(["o", "e"], kind="stable").index.tolist()
        else:
            o = None
            order = expected.sort_values(kind="stable").index.tolist()
        part = part[part["probability"] >= min_probability]
        x = alt.X("system:N", sort=order, title=None, axis=nominal_axis_for(order, step_x, limit=limit))
        y = alt.Y("rank:Q", title="Rank (1 = best)", scale=y_scale,
                  axis=alt.Axis(values=rank_values(worst), format="d", grid=True))
        blobs = alt.Chart(part).mark_circle(opacity=0.85).encode(
            x=x, y=y,
            size=alt.Size("probability:Q", title="P(rank = k)", scale=alt.Scale(domain=[0, 1],
                                                                                range=[0, (0.95 * cell) ** 2]),
                          legend=bottom_legend(format=".0%", values=[0.1, 0.5, 1.0], symbolFillColor="#4292c6")),
            color=alt.Color("probability:Q", scale=sequential(-0.3, 1), legend=None),
            tooltip=[alt.Tooltip("system:N", title="System"), alt.Tooltip("rank:Q", title="Rank"),
                     alt.Tooltip("probability:Q", title="P(rank)", format=".1%")])
        layers = [blobs]
        if o is not None:
            layers.append(alt.Chart(o).mark_tick(color=OBSERVED_INK, thickness=2, size=max(cell * 0.9, 6)).encode(
                x=x, y=y, tooltip=[alt.Tooltip("system:N", title="System"),
                                   alt.Tooltip("rank:Q", title="Observed consensus rank")]))
        panels.append(with_properties(alt.layer(*layers), width=alt.Step(step_x), height=height,
                                                    title=alt.TitleParams(_method_label(m), fontSize=12)))
    sub = "circle area = bootstrap probability of the rank"
    if obs is not None:
        sub += "; orange bar = observed consensus rank"
    return with_properties(alt.vconcat(*panels, spacing=14),
        title=chart_title(title or "Uncertainty of the consensus ranking", sub))


#: A tie group is named in full (each name shortened to its share of the room) while every name
#: keeps at least this many characters; a larger group shows its first name and how many more.
MIN_TIED_NAME = 12


def _end_labels(members: pd.Series, systems, limit: float, size: float) -> list[str]:
    """The names at the ends of the bump chart's lines: each tie group's systems, shortened to fit ``limit`` px."""
    maps: dict = {}

    def shown(px: float) -> dict:
        if px not in maps:
            maps[px] = shown_names(systems, px, size=size)
        return maps[px]

    out = []
    for group in members:
        k = len(group)
        share = (limit - text_width(", ", size) * (k - 1)) / k
        if k == 1 or share >= MIN_TIED_NAME * text_width("x", size):
            out.append(", ".join(shown(share)[s] for s in group))
        else:
            more = f" +{k - 1} tied"
            out.append(shown(limit - text_width(more, size))[group[0]] + more)
    return out


def consensus_methods(table: pd.DataFrame, *, methods=None, title: str | None = None) -> alt.LayerChart:
    """A bump chart of the consensus methods: x = method (in the table's order), y = rank (1 at
    the top), one line per system, so two systems that swap between methods cross. Systems
    whose rank differs between methods are drawn in colour with thick lines, the others thin
    and grey; each system is named at the right end of its line (systems tied at the last
    method share one label; names too long for the room are shortened, no two alike, full names
    in the tooltip). Systems tied under a method are drawn slightly apart (at most
    0.25 rank, in the order of their mean rank over the methods; the tooltip has the rank), so
    that lines that only touch at a tie do not look like a swap.

    ``table``: (method, system, rank[, aggregate]) - ``Consensus.table``; ``methods``
    restricts and orders the columns.
    """
    what = "consensus_methods"
    df = require(table, ["method", "system", "rank"], what)
    df = df[["method", "system", "rank"] + (["aggregate"] if "aggregate" in df.columns else [])]
    df["system"] = df["system"].astype(str)
    df["method"] = df["method"].astype(str)
    df["rank"] = pd.to_numeric(df["rank"], errors="coerce").astype(float)
    available = ordered(df["method"])
    methods = available if methods is None else [str(m) for m in methods]
    unknown = [m for m in methods if m not in available]
    if unknown:
        raise ValueError(f"{what}: no rows for method(s) {unknown}; available: {available}")
    df = df[df["method"].isin(methods)].copy()
    df["label"] = df["method"].map(_method_label)
    labels = [_method_label(m) for m in methods]
    spread = df.groupby("system")["rank"].agg(lambda r: float(np.nanmax(r) - np.nanmin(r)) if r.notna().any()
                                              else 0.0)
    df["changes"] = np.where(df["system"].map(spread) > 0, "rank differs between methods",
                             "same rank under every method")
    df["x"] = df["method"].map({m: i for i, m in enumerate(methods)})
    # systems tied under a method are drawn a little apart (in the order of their mean rank over
    # the methods), so that two lines that only touch at a tie do not look like a swap
    overall = df.groupby("system")["rank"].mean()
    df = df.assign(_o=df["system"].map(overall)).sort_values(["method", "rank", "_o", "system"], kind="stable")
    size = df.groupby(["method", "rank"])["system"].transform("size")
    index = df.groupby(["method", "rank"]).cumcount()
    df["position"] = df["rank"] + (index - (size - 1) / 2) * np.minimum(0.25, 0.8 / size)
    df = df.drop(columns="_o")
    n = df["system"].nunique()
    worst = float(max(n, np.nanmax(df["rank"])))
    row = float(np.clip(320 / worst, 14, 24))
    height = row * worst
    last = df[df["method"] == methods[-1]].dropna(subset=["rank"])
    ends = last.groupby("rank", sort=True).agg(members=("system", list),
                                               changes=("changes", "first")).reset_index()
    ends["system"] = ends["members"].map(", ".join)
    limit = label_limit(ends["system"], 200)
    ends["shown"] = _end_labels(ends["members"], df["system"], limit, band_font(row))
    ends = ends.drop(columns="members")
    step = float(np.clip((PAGE_WIDTH - limit - 60) / max(len(methods), 1), 40, 90))
    width = step * max(len(methods) - 1, 1)
    x_axis = alt.Axis(values=list(range(len(methods))), labelExpr=f"{json.dumps(labels)}[datum.value]", grid=True,
                      labelAngle=-35 if step < 70 else 0, labelAlign="right" if step < 70 else "center",
                      labelOverlap=False, labelBound=False,
                      title="Consensus method", tickCount=len(methods))
    x = alt.X("x:Q", axis=x_axis, scale=alt.Scale(domain=[0, max(len(methods) - 1, 1)], nice=False, zero=False))
    y = alt.Y("position:Q", title="Consensus rank (1 = best)",
              scale=alt.Scale(domain=[worst + 0.5, 0.5], nice=False, zero=False),
              axis=alt.Axis(values=rank_values(worst), format="d", grid=False))
    colour = alt.Color("changes:N", title=None,
                       scale=alt.Scale(domain=["rank differs between methods", "same rank under every method"],
                                       range=["#0072B2", "#b0b0b0"]), legend=bottom_legend(symbolType="stroke"))
    tip = [alt.Tooltip("system:N", title="System"), alt.Tooltip("label:N", title="Method"),
           alt.Tooltip("rank:Q", title="Rank", format=".3~f")]
    if "aggregate" in df.columns:
        tip.append(alt.Tooltip("aggregate:Q", title="Aggregate", format=".4~f"))
    base = alt.Chart(df).encode(x=x, y=y, color=colour, tooltip=tip)
    lines = base.mark_line(point=False).encode(
        detail="system:N", strokeWidth=alt.StrokeWidth("changes:N", legend=None, scale=alt.Scale(
            domain=["rank differs between methods", "same rank under every method"], range=[2.2, 1])))
    points = base.mark_circle(size=28, opacity=1)
    ends["x"] = len(methods) - 1 if len(methods) > 1 else 1
    names = alt.Chart(ends).mark_text(align="left", dx=7, baseline="middle", fontSize=band_font(row),
                                      limit=limit).encode(
        x=alt.X("x:Q", scale=alt.Scale(domain=[0, max(len(methods) - 1, 1)], nice=False, zero=False)),
        y=alt.Y("rank:Q", scale=alt.Scale(domain=[worst + 0.5, 0.5], nice=False, zero=False)),
        text=alt.Text("shown:N"), tooltip=[alt.Tooltip("system:N", title="System")])
    changed = int((spread > 0).sum())
    sub = f"{changed} of {n} systems change rank between methods" if changed else \
        "every method ranks the systems the same"
    return with_properties(alt.layer(lines, points, names),
        width=width, height=height, title=chart_title(title or "The consensus methods side by side", sub))
