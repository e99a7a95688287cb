"""The paper appendix of a benchmark report (several tasks ranked together).

:func:`write_benchmark_appendix` reads the benchmark report's tables folder (``consensus``,
``average_ranks``, ``friedman``, ``cd_cliques``, ``task_scores``, ``task_ranks``, ...; the JSON
files, through :class:`~evalreport.report.sections.benchmark.BenchmarkSections`, as the report's
own benchmark overview reads them) and writes the bundle of :func:`.writer.write_appendix`:

- ``tables/consensus-column``: rank by mean rank, system, average rank, P(first) (one column);
- ``tables/consensus-page``: the system's rank under every aggregation method (the page);
- ``tables/task-scores[-k]``: each task's primary-measure value (systems x tasks; one number of
  decimals per task from its bootstrap intervals, :mod:`.numbers`), the best of each task in bold;
- ``tables/friedman``: Friedman, Iman-Davenport, Nemenyi's q_alpha and critical difference;
- ``figures/cd-diagram-*``, ``figures/task-ranks-*``: the CD diagram and the per-task rank heatmap;
- ``methods.*`` (:func:`.methods.benchmark_segments`) and ``references.bib``.

Numbers are formatted as the report's benchmark tables format them (average ranks and P(first)
to 2 decimals, the Friedman statistics to 3), so appendix and report agree to the digit.
"""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd

from evalreport.report.appendix import methods
from evalreport.report.appendix.numbers import REPORT_DIGITS, decimals, fmt
from evalreport.report.appendix.tables import (
    COLUMN_IN,
    GAP_IN,
    Cell,
    Column,
    TableSpec,
    paper_measure_label,
    rank_cell,
    system_forms,
)
from evalreport.report.sections.benchmark import DEFAULT_CONSENSUS, BenchmarkSections

__all__ = ["BenchmarkAppendixData", "consensus_tables", "task_score_tables", "friedman_table", "build_all",
           "figure_items", "write_benchmark_appendix"]

#: Width of a rank or number column (a method, the average rank, P(first)) and of a task's column; a method's
#: name in bold ("Copeland", 40.6 pt at 8 pt, 44.1 pt at the 9 pt of an 11 pt paper) must fit its column unbroken.
NUM_COL_IN, TASK_COL_IN, MAX_TASK_COL_IN = 0.62, 0.62, 0.95
#: The consensus methods that aggregate the scores first, then rank (the others rank first).
AGGREGATE_FIRST = ("mean_score", "weighted_mean_score", "pooled")
#: Tallest figure (inches): a letter page's text height (9.4 in) less room for the caption.
MAX_FIGURE_HEIGHT_IN = 8.0
#: Narrowest and widest system-name column.
MIN_NAME_IN, MAX_NAME_IN = 1.0, 1.8
#: The narrowest system-name column of the one-column task-scores table: three tasks fit :data:`COLUMN_IN`.
COLUMN_MIN_NAME_IN = 0.8


class BenchmarkAppendixData(BenchmarkSections):
    """A benchmark report's tables folder, as the appendix reads it."""

    @property
    def settings(self) -> dict:
        return {**self.meta, **self.manifest.get("settings", {})}

    @property
    def friedman(self):
        """The Friedman table's row, or None where the test could not run (fewer than two systems
        present in every task: the statistics are null)."""
        fr = self.bench_table("friedman")
        if fr.empty:
            return None
        r = fr.iloc[0]
        ok = all(pd.notna(r.get(c)) and np.isfinite(float(r[c])) for c in ("chi2_F", "F_F", "cd", "q_alpha"))
        return r if ok else None

    @property
    def methods_used(self) -> list[str]:
        cons = self.bench_table("consensus")
        return list(dict.fromkeys(cons["method"])) if not cons.empty else []


def _name_width(total_in: float, other_widths, *, least: float = MIN_NAME_IN) -> float:
    """What is left for the system-name column of a table ``total_in`` wide, within its bounds (``least`` the
    narrowest)."""
    others = list(other_widths)
    room = total_in - sum(others) - 2 * GAP_IN * (len(others) + 1)
    return math.floor(100 * min(MAX_NAME_IN, max(least, room))) / 100    # down: never over the width


def consensus_tables(data: BenchmarkAppendixData) -> list[TableSpec]:
    """The consensus leaderboard: a one-column table (rank by mean rank, system, average rank,
    P(first)) and a page table (the rank under every aggregation method, rank 1 in bold)."""
    cons = data.bench_table("consensus")
    if cons.empty:
        return []
    order = data.consensus_order
    methods_ = data.methods_used
    rank = cons.pivot(index="system", columns="method", values="rank").reindex(index=order, columns=methods_)
    own = cons[cons["method"] == DEFAULT_CONSENSUS].set_index("system")
    pf = data.bench_table("consensus_p_first")
    p_first = (pf[pf["method"] == DEFAULT_CONSENSUS].set_index("system")["probability"].reindex(order)
               if not pf.empty else None)
    B = int(data.meta.get("bootstrap") or 0)
    cols = [Column("Rank", 0.35), Column("System", 0, "l"), Column("Avg. rank", NUM_COL_IN)]
    if p_first is not None:
        cols.append(Column("P(first)", NUM_COL_IN))
    cols[1].width = _name_width(COLUMN_IN, [c.width for c in cols if c.title != "System"])
    best = own["rank"].min()
    rows = []
    for s in order:
        r = own.at[s, "rank"]
        row = [Cell(rank_cell(r)), Cell(str(s), kind="text"),
               Cell(fmt(own.at[s, "aggregate"], 2), bold=bool(r == best))]
        if p_first is not None:
            row.append(Cell(fmt(p_first[s], 2) or "\u2014"))
        rows.append(row)
    cap = ("Consensus leaderboard across the tasks, best first: each system's average rank over the tasks (each "
           "task ranks the systems by its primary measure; 1 = best) and its consensus rank by mean rank.")
    if p_first is not None:
        cap += f" P(first): the share of {B:,} joint bootstrap resamples in which the system ranks first by mean rank."
    out = [TableSpec("consensus-column", cap, cols, rows, width="column")]
    labels = {m: data.method_label(m) for m in methods_}
    first = [labels[m] for m in methods_ if m in AGGREGATE_FIRST]
    pcap = ("Consensus rank of every system under every aggregation method (1 = best, in bold), in the order of the "
            "mean rank; Avg. rank: the mean rank's average. "
            + (f"Aggregate-then-rank: {', '.join(first)}; rank-then-aggregate: " if first else "Rank-then-aggregate: ")
            + ", ".join(labels[m] for m in methods_ if m not in AGGREGATE_FIRST)
            + ". Tied systems share the mean of their positions.")

    def build(parts: list[list], stem, width_in: float) -> list[TableSpec]:
        specs = []
        for k, part in enumerate(parts, 1):       # the average rank first, then a column per method
            mcols = [Column("Avg. rank" if m is None else labels[m], NUM_COL_IN) for m in part]
            name = Column("System", _name_width(width_in, [c.width for c in mcols]), "l")
            prow = []
            for s in order:
                prow.append([Cell(str(s), kind="text")] + [
                    Cell(fmt(own.at[s, "aggregate"], 2)) if m is None else
                    Cell(rank_cell(rank.at[s, m]) or "\u2014", bold=bool(rank.at[s, m] == rank[m].min())) for m in part])
            done = sum(len(p) for p in parts[:k - 1])
            which = (f" Columns {done + 1}-{done + len(part)} of {sum(map(len, parts))}." if len(parts) > 1 else "")
            specs.append(TableSpec(stem(k), pcap + which, [name] + mcols, prow, width="page"))
        return specs

    return out + system_forms("consensus-page", [None, *methods_], build, per_table=_methods_per_table)


def _methods_per_table(width_in: float) -> int:
    """How many rank columns fit beside the narrowest system column in a table of ``width_in`` inches."""
    return max(1, int((width_in - MIN_NAME_IN - 2 * GAP_IN) // (NUM_COL_IN + 2 * GAP_IN)))


def task_score_tables(data: BenchmarkAppendixData) -> list[TableSpec]:
    """Each task's primary-measure value of every system (rows: systems in consensus order;
    columns: tasks, split into page-wide tables; one column's table when it fits), the best of each
    task in bold, a dash where the system did not take part. Decimals per task from its intervals."""
    ts = data.bench_table("task_scores")
    if ts.empty:
        return []
    tasks = list(dict.fromkeys(data.manifest.get("tasks") or ts["task"]))
    order = data.consensus_order or list(dict.fromkeys(ts["system"]))
    value = ts.set_index(["task", "system"])["value"]
    rank = ts.set_index(["task", "system"])["rank"]
    digits, best = {}, {}
    for t in tasks:
        sub = ts[ts["task"] == t]
        digits[t] = decimals(sub["lo"], sub["hi"]) if "lo" in sub and sub["lo"].notna().any() else REPORT_DIGITS
        best[t] = sub["rank"].min()
    primaries = data.tasks.set_index("task")["primary"].to_dict() if not data.tasks.empty else {}
    one = len(set(primaries.values())) == 1
    what = (paper_measure_label(next(iter(primaries.values()))) if one and primaries else "its primary measure")

    def build(parts: list[list], stem, width_in: float) -> list[TableSpec]:
        width = "column" if width_in <= COLUMN_IN and len(parts) == 1 else "page"
        out = []
        for k, part in enumerate(parts, 1):
            # wider task columns where the text has room (long task names then break less)
            room = (width_in - 1.4 - 2 * GAP_IN * (len(part) + 1)) / len(part)
            tcols = [Column(str(t), math.floor(100 * min(MAX_TASK_COL_IN, max(TASK_COL_IN, room))) / 100) for t in part]
            cols = [Column("System", _name_width(width_in, [c.width for c in tcols], least=_least_name(width_in)),
                           "l")] + tcols
            rows = [[Cell(str(s), kind="text")] + [
                Cell(fmt(value.get((t, s), np.nan), digits[t]) or "\u2014",
                     bold=bool(pd.notna(rank.get((t, s), np.nan)) and rank.get((t, s)) == best[t])) for t in part]
                for s in order]
            first = sum(len(p) for p in parts[:k - 1])
            which = f" (tasks {first + 1}-{first + len(part)} of {len(tasks)})" if len(parts) > 1 else ""
            cap = (f"Every system's {what} in every task{which}, systems in consensus order (mean rank); the best of "
                   "each task in bold, a dash where the system did not take part. Each task to the decimals its "
                   "bootstrap intervals resolve (the rule is in the methods paragraph).")
            if not one:
                cap += " Primary measures: " + "; ".join(f"{t}: {paper_measure_label(primaries[t])}" for t in part
                                                         if isinstance(primaries.get(t), str)) + "."
            out.append(TableSpec(stem(k), cap, cols, rows, width=width))
        return out

    if len(tasks) <= _tasks_per_table(COLUMN_IN):         # one column's table
        return build([tasks], lambda k: "task-scores", COLUMN_IN)
    # page tables of at most 7 tasks, with narrower forms for a narrower text (tables.FORMS)
    return system_forms("task-scores", tasks, build, per_table=_tasks_per_table)


def _least_name(width_in: float) -> float:
    """The narrowest system column of a task-scores table made for ``width_in`` inches of text."""
    return COLUMN_MIN_NAME_IN if width_in <= COLUMN_IN + 1e-9 else MIN_NAME_IN


def _tasks_per_table(width_in: float) -> int:
    """How many task columns fit beside the system column in a table of ``width_in`` inches."""
    name_in = _least_name(width_in) if width_in <= COLUMN_IN + 1e-9 else 1.4
    return max(1, int((width_in - name_in - 2 * GAP_IN) // (TASK_COL_IN + 2 * GAP_IN)))


def friedman_table(data: BenchmarkAppendixData) -> list[TableSpec]:
    """Friedman's chi2_F, the Iman-Davenport F_F, Nemenyi's q_alpha and the critical difference
    (one column; formatted as the report's Friedman table)."""
    r = data.friedman
    if r is None:
        return []
    rows = [("Systems (k)", f"{int(r['k'])}"), ("Tasks (N)", f"{int(r['N'])}"),
            ("Friedman chi-square", f"{r['chi2_F']:.3f} (df {int(r['df'])})"),
            ("", methods.p_words(r["p_chi2"])),
            ("Iman-Davenport F", f"{r['F_F']:.3f} (df {int(r['df1'])}, {int(r['df2'])})"),
            ("", methods.p_words(r["p_F"])),
            ("Nemenyi q", f"{r['q_alpha']:.3f} (alpha = {r['alpha']:g})"),
            ("Critical difference", f"{r['cd']:.3f} ranks")]
    cols = [Column("Statistic", 1.3, "l"), Column("Value", 1.5)]
    cap = ("Friedman test with the Iman-Davenport correction and Nemenyi's critical difference (Demšar 2006, "
           "section 3.2.2), on the ranks of the systems present in every task.")
    return [TableSpec("friedman", cap, cols, [[Cell(a, kind="text"), Cell(b, kind="text")] for a, b in rows])]


def build_all(data: BenchmarkAppendixData) -> list[TableSpec]:
    """Every table of the benchmark appendix, in the order ``appendix.tex`` shows them."""
    return [*consensus_tables(data), *task_score_tables(data), *friedman_table(data)]


def figure_items(data: BenchmarkAppendixData) -> list[tuple[str, str | None, object, str]]:
    """(name, caption, chart, size shown): the CD diagram (where the Friedman test ran) and the
    per-task rank heatmap, the charts and captions of the report's benchmark overview."""
    from evalreport.report.display import Chart

    out: list[tuple[str, str | None, object, str]] = []
    # both asked for at column width: shown at page width only where their text would be too small
    for make, shown in ((data.cd_diagram, "column"), (data.task_rank_chart, "column")):
        if make == data.cd_diagram and data.friedman is None:
            continue        # no Friedman test, no critical difference (the report's method fails on null CDs)
        item = make()
        if isinstance(item, Chart):
            out.append((item.name, item.caption, _Spec(item.spec), shown))
    return out


class _Spec:
    """A report chart's Vega-Lite spec where the figure writer expects a chart (``to_dict``)."""

    def __init__(self, spec: dict):
        self.spec = spec

    def to_dict(self) -> dict:
        return self.spec


def write_benchmark_appendix(tables_dir, out_dir, *, figures: bool = True) -> dict[str, Path]:
    """Write the appendix bundle of the benchmark report whose tables are in ``tables_dir`` into
    ``out_dir`` (created; the caller makes it atomic): the layout of :func:`.writer.write_appendix`."""
    from evalreport.report.appendix import bib
    from evalreport.report.appendix.figures import write_charts
    from evalreport.report.appendix.writer import write_bundle, write_tables

    data = BenchmarkAppendixData(Path(tables_dir))
    if not data.meta.get("benchmark"):
        from evalreport.errors import InputError

        raise InputError("not a benchmark report's tables folder (report.json has no \"benchmark\": true)",
                         path=str(Path(tables_dir) / "report.json"))
    out = Path(out_dir)
    specs = build_all(data)
    write_tables(specs, out)
    figs = write_charts(figure_items(data), out / "figures", subtitles=False,
                        max_height_in=MAX_FIGURE_HEIGHT_IN) if figures else []
    return write_bundle(out, specs, figs, methods.benchmark_segments(data), bib.benchmark_references(data),
                        fixed_width=True)
