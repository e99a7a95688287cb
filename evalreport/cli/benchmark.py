"""``evalreport benchmark``: several tasks ranked together, in one report.

    evalreport benchmark TASKS_DIR -o OUT
    evalreport benchmark --task en=en/gold.tsv:en/runs --task de=de/gold.tsv -o OUT
    evalreport benchmark --long-gold gold.parquet --long-runs runs.parquet [--backend duckdb] -o OUT
    evalreport benchmark --benchmark-file bench.toml -o OUT

The report options are those of ``evalreport report`` (:func:`evalreport.cli.report.add_report_options`);
``--primary``, ``--positive`` and ``--measures`` are the defaults of every task (a benchmark file
may set them per task). A benchmark file's top-level ``title``, ``seed``, ``bootstrap``, ``alpha``
and ``policy`` are the defaults of those options (the command line wins) and its ``plugins`` are
loaded; every task's measures are checked on its class set before any work, and an error names
the task. Tasks with different primary measures get a warning: the mean score then averages
different measures.
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from evalreport.errors import InputError
from evalreport.words import counted


def register(sub) -> None:
    from evalreport.cli.common import add_cluster_option, csv_list
    from evalreport.cli.report import add_report_options
    from evalreport.inputs.benchmark import MISSING_POLICIES
    from evalreport.measures import POLICIES

    p = sub.add_parser("benchmark", help="several tasks (test sets, tracks, languages) ranked together: one report",
                       description="Compare the systems on every task, rank them across tasks (consensus rankings, "
                                   "Friedman/Nemenyi, critical-difference diagram, Wilcoxon-Holm, wins, the consensus "
                                   "bootstrap) and write one report: the benchmark overview, then one section per "
                                   "task. Systems are matched across tasks by name.")
    p.add_argument("tasks_dir", nargs="?", metavar="TASKS_DIR",
                   help="a folder of tasks: TASKS_DIR/<task>/gold.* and TASKS_DIR/<task>/runs/*")
    p.add_argument("--task", action="append", default=[], metavar="NAME=GOLD[:RUNS_DIR]",
                   help="one task (repeatable); RUNS_DIR defaults to runs/ beside GOLD")
    p.add_argument("--long-gold", metavar="FILE", help="one gold table of every task (columns task, id, label)")
    p.add_argument("--long-runs", nargs="+", metavar="FILE",
                   help="one runs table of every task (columns task, system, id, label); with --backend duckdb "
                        "also several files, folders or globs")
    p.add_argument("--benchmark-file", metavar="FILE",
                   help="a benchmark file (TOML or YAML): tasks with their gold, runs, primary measure, positive "
                        "class and weight")
    p.add_argument("--missing", choices=MISSING_POLICIES, default=None,
                   help="a system missing from some tasks: drop (default; each aggregation uses the tasks it took "
                        "part in), last (ranked last there) or exclude (removed from the benchmark)")
    p.add_argument("--backend", choices=("memory", "duckdb"), default="memory",
                   help="memory (default), or duckdb: count the long tables where they lie (with --long-gold)")
    p.add_argument("--labels", type=csv_list, help="class set and order of every task, comma-separated")
    add_cluster_option(p)
    p.add_argument("--measures", type=csv_list, help="measure ids of every task, comma-separated (default: every "
                                                     "measure that applies)")
    p.add_argument("--positive", help="positive class of every task's binary measures")
    p.add_argument("--policy", choices=POLICIES, default="nan", help="value of undefined (0/0) cases (default nan)")
    add_report_options(p)
    from evalreport.cli.common import add_task_options

    add_task_options(p)
    p.set_defaults(func=run_benchmark, _file_defaults=_file_defaults)


def _file_defaults(args) -> dict:
    """The benchmark-wide keys of ``--benchmark-file`` as this command's option defaults (docs/plugins.md)."""
    if not getattr(args, "benchmark_file", None):
        return {}
    from evalreport.inputs.benchmark import benchmark_wide
    from evalreport.inputs.taskfile import load_benchmark_file

    wide = benchmark_wide(load_benchmark_file(args.benchmark_file))
    if "plugins" in wide:   # after the task file's and the command line's plugins (loading twice does nothing)
        earlier = args._command_parser.get_default("plugin") or []          # the task file's
        wide["plugin"] = list(dict.fromkeys([*map(str, earlier), *wide.pop("plugins")]))
    return wide


def _inputs(args) -> list[str]:
    """Every input path named on the command line (``-o`` must hold none of them)."""
    out = [args.tasks_dir, args.long_gold, args.benchmark_file, *(args.long_runs or [])]
    for spec in args.task:
        _, _, paths = spec.partition("=")
        out += [p for p in paths.split(":") if p]
    return [p for p in out if p]


def _read(args):
    from evalreport.inputs.benchmark import read_benchmark

    forms = [args.tasks_dir is not None, bool(args.task), bool(args.long_gold or args.long_runs),
             args.benchmark_file is not None]
    if sum(forms) != 1:
        raise InputError("give exactly one of: TASKS_DIR, --task NAME=GOLD[:RUNS_DIR] (repeatable), "
                         "--long-gold FILE with --long-runs FILE, or --benchmark-file FILE")
    if args.backend != "memory" and not forms[2]:
        raise InputError("--backend duckdb counts the long tables: give --long-gold and --long-runs")
    defaults = {k: v for k, v in (("primary", args.primary), ("positive", args.positive),
                                  ("measures", args.measures), ("labels", args.labels)) if v is not None}
    if getattr(args, "cluster_col", None):
        if forms[2]:
            raise InputError("--cluster-col needs a gold file per task (TASKS_DIR, --task or --benchmark-file), "
                             "not --long-gold")
        defaults["cluster_col"] = args.cluster_col
    if getattr(args, "slice_col", None):                # every task read with these slice columns
        defaults["slices"] = tuple(args.slice_col)
    if getattr(args, "slice_bins", None) is not None:
        defaults["slice_bins"] = args.slice_bins
    if forms[2]:
        if not args.long_gold or not args.long_runs:
            raise InputError("--long-gold and --long-runs go together (gold: task, id, label; runs: task, system, "
                             "id, label)")
        if args.backend == "duckdb":
            from evalreport.counts.bigdata_tasks import count_benchmark

            return count_benchmark(args.long_gold, args.long_runs, defaults=defaults, missing=args.missing or "drop")
        if len(args.long_runs) > 1:
            raise InputError("--long-runs takes one file in memory (several files, folders or globs need "
                             "--backend duckdb)")
        return read_benchmark(long_gold=args.long_gold, long_runs=args.long_runs[0], defaults=defaults,
                              missing=args.missing)
    return read_benchmark(args.tasks_dir, tasks=tuple(args.task), benchmark_file=args.benchmark_file,
                          defaults=defaults, missing=args.missing)


def check_tasks(benchmark, *, policy: str = "nan") -> None:
    """Before any work: every task's primary measure and measures must apply to its own class set
    (a class subset names its classes, a binary measure has its positive class, a cost measure its
    costs). An error names the task: ``task 'track-C-fr': measure ...: unknown class ...``."""
    from evalreport.counts import Counts
    from evalreport.errors import MeasureError
    from evalreport.measures import check_names, evaluate, get
    from evalreport.measures.subsets import bind

    for t in benchmark.tasks:
        labels = list(t.labels)
        try:
            check_names([t.primary, *(t.measures or ())])          # every unknown id of the task at once
            records = [bind(get(m), labels) for m in dict.fromkeys([t.primary, *(t.measures or ())])]
            if not labels:
                continue
            perfect = np.diag(np.ones(len(labels)))[None]           # a dry run on one perfect system
            evaluate(Counts(perfect, tuple(labels), ("check",), n_task=getattr(t.runs, "n_task", None)), records, positive=t.positive, policy=policy,
                     costs=t.costs)
        except (InputError, MeasureError) as exc:
            prefix = f"task {t.name!r}: "
            text = str(exc)
            raise InputError(text if text.startswith(prefix) else prefix + text) from None


def warn_mixed_primaries(benchmark) -> None:
    """A warning (a note on stderr) when the tasks' primary measures differ: the mean score then
    averages numbers of different measures."""
    import warnings

    primaries = list(dict.fromkeys(t.primary for t in benchmark.tasks))
    if len(primaries) > 1:
        warnings.warn(f"the tasks have different primary measures ({', '.join(primaries)}): the (weighted) mean "
                      "score averages numbers of different measures and scales; prefer a rank-based consensus "
                      "(mean rank, Borda, Copeland, Kemeny)", stacklevel=2)


def _recorded(args) -> list:
    """The benchmark file, task file and measure entry points, as sources recorded in the provenance."""
    from evalreport.cli.common import recorded_sources
    from evalreport.inputs.readers import hash_file
    from evalreport.inputs.runs import Source

    own = [Source("benchmark-file", str(args.benchmark_file), hash_file(args.benchmark_file), None)] \
        if getattr(args, "benchmark_file", None) else []
    return own + recorded_sources(args, plugins=False, gains=False)


def run_benchmark(args) -> int:
    from evalreport._atomic import check_outside
    from evalreport.cli.report import print_outputs, report_settings
    from evalreport.report.benchmark_build import build_benchmark_report

    settings = report_settings(args, missing_systems=args.missing)
    inputs = _inputs(args)
    check_outside(args.out, inputs)     # before any work: -o must not hold the inputs
    if not args.quiet:
        print("evalreport: reading the benchmark ...", file=sys.stderr, flush=True)
    benchmark = _read(args)
    check_tasks(benchmark, policy=settings.policy)
    warn_mixed_primaries(benchmark)
    title = args.title or (f"Benchmark of {counted(len(benchmark.systems), 'system')} "
                           f"on {counted(len(benchmark.tasks), 'task')}")
    paths = build_benchmark_report(benchmark, Path(args.out), settings.replace(title=title), inputs=inputs,
                                   plugins=args.plugin, extra_sources=_recorded(args),
                                   appendix=getattr(args, "appendix", False))
    print_outputs(paths)
    return 0


def run_benchmark_demo(args) -> int:
    """``evalreport demo --benchmark``: the benchmark demo (:func:`evalreport.examples.make_benchmark_demo`),
    its tasks folder copied into OUT/data."""
    import dataclasses
    import tempfile

    from evalreport.cli.report import print_outputs, report_settings
    from evalreport.examples import make_benchmark_demo
    from evalreport.inputs.benchmark import read_benchmark
    from evalreport.report.benchmark_build import build_benchmark_report
    from evalreport.report.build import start_runner

    settings = report_settings(args)
    # the report's kernel starts now: its start and imports overlap the training
    with start_runner() as runner, tempfile.TemporaryDirectory(prefix="evalreport-demo-") as tmp:
        if not args.quiet:
            print("evalreport: making the benchmark example (13 scikit-learn classifiers on 6 data sets) ...",
                  file=sys.stderr, flush=True)
        data = make_benchmark_demo(Path(tmp) / "data", seed=settings.seed)
        bench = read_benchmark(data, defaults={"primary": settings.primary})
        kept = Path(args.out) / "data"

        def moved(s):   # record the inputs where the report keeps them (OUT/data)
            return dataclasses.replace(s, path=str(kept / Path(s.path).relative_to(data)))

        bench = dataclasses.replace(bench, sources=tuple(map(moved, bench.sources)),
                                    task_sources={k: tuple(map(moved, v)) for k, v in bench.task_sources.items()})
        title = args.title or "evalreport demo: 13 classifiers on 6 data sets"
        paths = build_benchmark_report(
            bench, Path(args.out), settings.replace(title=title), include={"data": data}, plugins=args.plugin,
            extra_sources=_recorded(args), appendix=getattr(args, "appendix", False), runner=runner)
    print_outputs(paths)
    return 0
