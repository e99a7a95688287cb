"""A benchmark's long tables counted out of core: one :func:`count_patterns` per task.

The long gold table has columns ``task, id, label`` (optionally ``fold``), the long runs table
``task, system, id, label``. DuckDB lists the tasks (the distinct gold ``task`` values), then for
each task copies its rows (``WHERE task = ...``) to temporary Parquet files - streamed, within
``memory_limit`` - and :func:`evalreport.counts.bigdata.count_patterns` counts them with every
check of the single-task path. Each task gets :class:`~evalreport.counts.bigdata.PatternCounts`
(the sufficient statistics of the paired bootstrap), so the result equals the in-memory
:func:`evalreport.inputs.benchmark.read_benchmark` of the same tables (tested) without loading
items. Only DuckDB splits the tables (Spark is not offered here: splitting through DuckDB
would defeat a cluster; ``count_patterns(engine="spark")`` per task file remains possible).
"""
from __future__ import annotations

import tempfile
from collections.abc import Mapping
from pathlib import Path

from evalreport.counts.bigdata import count_patterns
from evalreport.counts.bigdata_engines import DuckDB, sql_string
from evalreport.counts.bigdata_job import paths
from evalreport.errors import InputError
from evalreport.inputs.benchmark import Benchmark, make_task, settings_for, task_error, unknown_tasks
from evalreport.inputs.checks import hash_file, listing, natural_sorted
from evalreport.inputs.runs import Source

__all__ = ["count_benchmark"]


def count_benchmark(gold, runs, *, settings: Mapping[str, Mapping] | None = None, defaults: Mapping | None = None,
                    missing: str = "drop", task_col: str = "task", system_col: str = "system", id_col: str = "id",
                    label_col: str = "label", memory_limit: str = "1GB", temp_directory=None,
                    threads: int | None = None) -> Benchmark:
    """Read a benchmark from a long gold and a long runs table with DuckDB (files, globs or folders
    as :func:`~evalreport.counts.bigdata.count_patterns` takes them). Per-task ``settings`` and
    ``defaults`` as :func:`~evalreport.inputs.benchmark.read_benchmark` (``labels``, ``missing``
    and ``allow_unknown`` are passed to the counting)."""
    gold_files, gold_fmt = paths(gold, "gold")
    run_files, run_fmt = paths(runs, "run")
    gold_label, runs_label = gold_files[0], run_files[0]
    engine = DuckDB(memory_limit=memory_limit, temp_directory=temp_directory, threads=threads)
    q = lambda name: '"' + name.replace('"', '""') + '"'   # noqa: E731
    try:
        engine.view("bench_gold", gold_files, gold_fmt)
        engine.view("bench_runs", run_files, run_fmt)
        for view, cols, where in (("bench_gold", (task_col, id_col, label_col), gold_label),
                                  ("bench_runs", (task_col, system_col, id_col, label_col), runs_label)):
            found = engine.columns(view)
            lacking = [c for c in cols if c not in found]
            if lacking:
                raise InputError(f"missing column(s) {listing(lacking)}; the columns found are: {listing(list(found))}",
                                 path=where)
        task = f"TRIM(CAST({q(task_col)} AS VARCHAR))"
        gold_tasks = [r[0] for r in engine.rows(f"SELECT DISTINCT {task} FROM bench_gold")]
        run_tasks = {r[0] for r in engine.rows(f"SELECT DISTINCT {task} FROM bench_runs")}
        if None in gold_tasks or "" in gold_tasks:
            raise InputError(f"empty task name in column {task_col!r}", path=gold_label)
        names = natural_sorted(gold_tasks)
        if not names:
            raise InputError("empty benchmark: the gold table has no rows", path=gold_label)
        no_gold = natural_sorted(t for t in run_tasks if t not in set(names) and t is not None)
        if no_gold:
            raise InputError(f"task(s) {listing(no_gold)} have runs but no gold labels in {gold_label}", path=runs_label)
        unknown_tasks(names, settings)
        gold_cols = [c for c in engine.columns("bench_gold") if c != task_col]
        run_cols = [c for c in engine.columns("bench_runs") if c != task_col]
        built, task_sources = [], {}
        with tempfile.TemporaryDirectory(prefix="evalreport-benchmark-") as tmp:
            for k, name in enumerate(names):
                opts = settings_for(name, settings, defaults)
                if name not in run_tasks:
                    raise InputError(f"task {name!r}: no runs (no rows of this task in the runs table)", path=runs_label)
                g_file, r_file = Path(tmp) / f"gold{k}.parquet", Path(tmp) / f"runs{k}.parquet"
                for view, columns, out in (("bench_gold", gold_cols, g_file), ("bench_runs", run_cols, r_file)):
                    engine.con.execute(f"COPY (SELECT {', '.join(q(c) for c in columns)} FROM {view} "
                                       f"WHERE {task} = {sql_string(name)}) TO {sql_string(str(out))} (FORMAT PARQUET)")
                labels = opts.get("labels")
                if isinstance(labels, str):
                    labels = [x.strip() for x in labels.split(",")]
                try:
                    data = count_patterns(str(g_file), str(r_file), labels=labels, id_col=id_col,
                                          label_col=label_col, system_col=system_col,
                                          missing=opts.get("missing", "error"),
                                          allow_unknown=bool(opts.get("allow_unknown", False)),
                                          memory_limit=memory_limit, temp_directory=temp_directory, threads=threads)
                except InputError as exc:
                    problem = exc.problem.replace(str(g_file), gold_label).replace(str(r_file), runs_label)
                    renamed: dict[str | None, str | None] = {str(g_file): gold_label, str(r_file): runs_label}
                    path = renamed.get(exc.path, exc.path)
                    raise task_error(name, InputError(problem, path=path, item=exc.item)) from None
                built.append(make_task(name, data, opts))
                task_sources[name] = tuple(Source("run", runs_label, "", None, system=s) for s in data.systems)
    finally:
        engine.close()
    sources = tuple(Source(role, f, hash_file(f), None) for role, files in (("gold", gold_files), ("run", run_files))
                    for f in files)
    return Benchmark(tasks=tuple(built), sources=sources, missing=missing, task_sources=task_sources)
