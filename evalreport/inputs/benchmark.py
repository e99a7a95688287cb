"""Read a benchmark: several tasks, each with its own gold file, class set and runs.

A benchmark is a tuple of :class:`BenchmarkTask` (name, the task's data, its primary measure,
positive class, weight, measures and costs). :func:`read_benchmark` accepts three forms, which
give the same :class:`Benchmark` for the same data:

* a folder of tasks: ``TASKS_DIR/<task>/gold.<ext>`` and ``TASKS_DIR/<task>/runs/*`` (every
  non-hidden sub-folder is a task, its name the folder's name);
* task specs ``NAME=GOLD[:RUNS_DIR]`` (``RUNS_DIR`` defaults to ``runs/`` beside ``GOLD``), or
  ``(name, gold, runs_dir)`` tuples;
* one long gold table (``task, id, label``) and one long runs table (``task, system, id,
  label``), read in memory here; out of core (DuckDB, Spark) with
  :func:`evalreport.counts.bigdata_tasks.count_benchmark`.

Every task is read by :func:`evalreport.inputs.readers.read_runs` - each task has its own class
set - and systems are matched across tasks by name. Errors are :class:`~evalreport.errors.InputError`
naming the task and the file: a task without runs, a task folder without a gold file, two tasks
with one name, an empty benchmark, a system whose name differs only in case across tasks (both
spellings and their tasks are named), and every problem :func:`read_runs` finds (its message
prefixed with the task, its file, line and id kept). A system that is missing from some tasks
is not an error: :attr:`Benchmark.participation` names the gaps, and
:func:`evalreport.analyses.benchmark.compare_benchmark` says how each aggregation treats them
(``missing`` = drop | last | exclude).

Per-task settings (``settings={task: {...}}`` and ``defaults={...}``) take the keys of
:data:`TASK_KEYS`; an unknown key is an error, so a typo fails loudly.
"""
from __future__ import annotations

import re
import tempfile
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from evalreport.errors import InputError
from evalreport.inputs.checks import FORMATS, listing, natural_sorted
from evalreport.inputs.runs import Runs, Source

__all__ = ["Benchmark", "BenchmarkTask", "read_benchmark", "benchmark_from_data", "parse_task_spec",
           "TASK_KEYS", "MISSING_POLICIES", "WIDE_KEYS", "benchmark_wide", "task_error",
           "make_task", "settings_for", "unknown_tasks"]

#: Per-task settings: measure options of ``compare()`` and read options of ``read_runs()``.
TASK_KEYS = ("primary", "positive", "weight", "measures", "costs", "labels", "missing", "allow_unknown", "id_col",
             "label_col", "cluster_col", "slices", "slice_bins")

#: How a system missing from some tasks is treated (see :func:`compare_benchmark`).
MISSING_POLICIES = ("drop", "last", "exclude")

_DEFAULT_PRIMARY = "macro_f1"


@dataclass(frozen=True)
class BenchmarkTask:
    """One task of a benchmark.

    ``runs``: the task's data - :class:`~evalreport.inputs.Runs` (item level),
    :class:`~evalreport.counts.bigdata.PatternCounts` (counted out of core) or
    :class:`~evalreport.counts.Counts` (confusion matrices: no resampling). ``primary``: the
    task's official measure; ``positive``: its positive class (binary measures); ``weight``: its
    weight in weighted aggregations; ``measures``: the measure ids of its comparison (``None``:
    the default set); ``costs``: its cost matrix (K, K) or ``None``.
    """

    name: str
    runs: Any
    primary: str = _DEFAULT_PRIMARY
    positive: str | None = None
    weight: float = 1.0
    measures: tuple[str, ...] | None = None
    costs: Any = None

    @property
    def systems(self) -> tuple[str, ...]:
        """The task's systems: with several runs per system (a folder per system), the folders."""
        run_system = getattr(self.runs, "run_system", None)
        if run_system is not None:
            return tuple(dict.fromkeys(run_system))
        return tuple(self.runs.systems)

    @property
    def labels(self) -> tuple[str, ...]:
        return tuple(self.runs.labels)

    @property
    def class_set(self) -> tuple[str, ...]:
        """The task's own classes (labels that occur only in predictions left out)."""
        n = getattr(self.runs, "n_task", None)
        return self.labels if n is None else self.labels[:n]


@dataclass(frozen=True)
class Benchmark:
    """Tasks ranked together. ``sources``: every file read (role, path, SHA-256), the task's name
    in each source's ``system`` slot being the run's system; ``task_sources`` maps task -> its
    sources. ``missing``: the default policy for systems missing from some tasks. ``settings``:
    the benchmark-wide keys of a benchmark file (:data:`WIDE_KEYS`: title, seed, bootstrap, alpha,
    policy, plugins); the CLI makes them the defaults of its options, a caller of the API passes
    them to :func:`~evalreport.analyses.benchmark.compare_benchmark` itself."""

    tasks: tuple[BenchmarkTask, ...]
    sources: tuple[Source, ...] = ()
    missing: str = "drop"
    task_sources: Mapping[str, tuple[Source, ...]] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    settings: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self):
        if not self.tasks:
            raise InputError("empty benchmark: no tasks")
        seen: set[str] = set()
        for t in self.tasks:
            if t.name in seen:
                raise InputError(f"two tasks are named {t.name!r}")
            seen.add(t.name)
        if self.missing not in MISSING_POLICIES:
            raise InputError(f"missing must be one of {', '.join(MISSING_POLICIES)}; got {self.missing!r}")
        _check_system_case(self.tasks, self.task_sources)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(t.name for t in self.tasks)

    @property
    def systems(self) -> tuple[str, ...]:
        """Every system of any task, in natural order."""
        return tuple(natural_sorted({s for t in self.tasks for s in t.systems}))

    def task(self, name: str) -> BenchmarkTask:
        for t in self.tasks:
            if t.name == name:
                return t
        raise KeyError(name)

    @property
    def participation(self):
        """Tidy ``task, system, present``: one row per task x system of the benchmark."""
        import pandas as pd

        systems = self.systems
        rows = [(t.name, s, s in set(t.systems)) for t in self.tasks for s in systems]
        return pd.DataFrame(rows, columns=["task", "system", "present"])

    @property
    def missing_systems(self) -> dict[str, tuple[str, ...]]:
        """system -> the tasks it is missing from (only systems missing somewhere)."""
        out = {}
        for s in self.systems:
            gone = tuple(t.name for t in self.tasks if s not in set(t.systems))
            if gone:
                out[s] = gone
        return out

    @property
    def complete_systems(self) -> tuple[str, ...]:
        """The systems present in every task."""
        gone = self.missing_systems
        return tuple(s for s in self.systems if s not in gone)


# ----------------------------------------------------------------------------- checks


def task_error(task: str, exc: InputError) -> InputError:
    """``exc`` with the task named first, its file, line and item kept."""
    prefix = f"task {task!r}: "
    problem = exc.problem if exc.problem.startswith(prefix) else prefix + exc.problem
    return InputError(problem, path=exc.path, line=exc.line, item=exc.item)


def _check_system_case(tasks, task_sources) -> None:
    """A system name spelled differently (only in case) in two tasks is an error, not two systems."""
    spellings: dict[str, dict[str, list[str]]] = {}
    for t in tasks:
        for s in t.systems:
            spellings.setdefault(s.casefold(), {}).setdefault(s, []).append(t.name)
    for found in spellings.values():
        if len(found) > 1:
            (a, ta), (b, tb) = list(found.items())[:2]
            path = next((src.path for src in task_sources.get(tb[0], ()) if src.system == b), None)
            raise InputError(f"system {a!r} (task(s) {listing(ta)}) and {b!r} (task(s) {listing(tb)}) differ only "
                             "in case; systems are matched across tasks by name: rename one so that they match "
                             "or differ", path=path)


def settings_for(name: str, settings: Mapping | None, defaults: Mapping | None) -> dict:
    merged: dict = {}
    for where, table in (("defaults", defaults), (f"settings of task {name!r}", (settings or {}).get(name))):
        if table is None:
            continue
        unknown = [k for k in table if k not in TASK_KEYS]
        if unknown:
            raise InputError(f"{where}: unknown key(s) {listing(unknown)}; the keys are {', '.join(TASK_KEYS)}")
        merged.update(table)
    return merged


def unknown_tasks(names, settings) -> None:
    extra = [k for k in (settings or {}) if k not in set(names)]
    if extra:
        raise InputError(f"settings name task(s) {listing(extra)} that the benchmark does not have "
                         f"(its tasks: {listing(list(names))})")


def make_task(name: str, data, opts: dict) -> BenchmarkTask:
    measures = opts.get("measures")
    if isinstance(measures, str):
        measures = tuple(m.strip() for m in measures.split(",") if m.strip())
    weight = opts.get("weight", 1.0)
    try:
        weight = float(weight)
    except (TypeError, ValueError):
        weight = float("nan")
    if not np.isfinite(weight) or weight < 0:
        raise InputError(f"task {name!r}: weight must be a finite number >= 0; got {opts.get('weight')!r}")
    costs = opts.get("costs")
    if isinstance(costs, (str, Path)):
        from evalreport.inputs.costs import read_costs

        try:
            costs = read_costs(costs, list(data.labels[:data.n_task] if getattr(data, "n_task", None) else data.labels))
        except InputError as exc:
            raise task_error(name, exc) from None
    positive = opts.get("positive")
    return BenchmarkTask(name=name, runs=data, primary=str(opts.get("primary") or _DEFAULT_PRIMARY),
                         positive=None if positive is None else str(positive), weight=weight,
                         measures=None if measures is None else tuple(measures), costs=costs)


# ----------------------------------------------------------------------------- reading


def parse_task_spec(spec) -> tuple[str, Path, Path]:
    """``NAME=GOLD[:RUNS_DIR]`` (or a ``(name, gold[, runs_dir])`` tuple) -> (name, gold, runs_dir).

    ``RUNS_DIR`` defaults to ``runs`` beside the gold file. A gold path holding ``:`` is taken
    whole when it names an existing file."""
    if isinstance(spec, (tuple, list)):
        if len(spec) not in (2, 3):
            raise InputError(f"a task is (name, gold[, runs_dir]); got {spec!r}")
        name, gold = str(spec[0]), Path(spec[1])
        runs_dir = Path(spec[2]) if len(spec) == 3 and spec[2] is not None else gold.parent / "runs"
        return name, gold, runs_dir
    text = str(spec)
    name, sep, rest = text.partition("=")
    if not sep or not name.strip() or not rest.strip():
        raise InputError(f"a task spec is NAME=GOLD[:RUNS_DIR]; got {text!r}")
    if ":" in rest and not Path(rest).is_file():
        gold_text, _, runs_text = rest.rpartition(":")
        gold, runs_dir = Path(gold_text), Path(runs_text)
    else:
        gold = Path(rest)
        runs_dir = gold.parent / "runs"
    return name.strip(), gold, runs_dir


def _gold_in(folder: Path, task: str) -> Path:
    found = [p for p in folder.iterdir() if p.is_file() and p.stem == "gold" and p.suffix.lower() in FORMATS]
    if not found:
        raise InputError(f"task {task!r}: no gold file (gold{', gold'.join(FORMATS)}) in the task folder",
                         path=folder)
    if len(found) > 1:
        raise InputError(f"task {task!r}: {len(found)} gold files ({listing(sorted(p.name for p in found))}); "
                         "keep one", path=folder)
    return found[0]


def _folder_tasks(tasks_dir) -> list[tuple[str, Path, Path]]:
    root = Path(tasks_dir)
    if not root.is_dir():
        raise InputError("tasks folder not found" if not root.exists() else "tasks path is not a folder", path=root)
    entries = [p for p in root.iterdir() if not p.name.startswith(".")]
    folders = [root / n for n in natural_sorted(p.name for p in entries if p.is_dir())]
    others = natural_sorted(p.name for p in entries if not p.is_dir())
    if others:
        warnings.warn(f"{root}: {len(others)} entr{'y' if len(others) == 1 else 'ies'} of the tasks folder "
                      f"{'is' if len(others) == 1 else 'are'} not a task folder and not read: {listing(others)}",
                      stacklevel=3)
    if not folders:
        raise InputError("empty benchmark: the tasks folder holds no task folders (TASKS_DIR/<task>/gold.* and "
                         "TASKS_DIR/<task>/runs/)", path=root)
    return [(f.name, _gold_in(f, f.name), f / "runs") for f in folders]


def _read_task(name: str, gold: Path, runs_dir, opts: dict) -> Runs:
    """Read one task; ``runs_dir`` is a folder of run files or a tuple of run files."""
    files = tuple(runs_dir) if isinstance(runs_dir, (tuple, list)) else ()
    if not Path(gold).is_file():       # the gold file first: its runs folder is found beside it
        raise InputError(f"task {name!r}: gold file {'not found' if not Path(gold).exists() else 'is not a file'}",
                         path=gold)
    if not files and not Path(runs_dir).is_dir():
        raise InputError(f"task {name!r}: no runs (expected a folder of run files)", path=runs_dir)
    labels = opts.get("labels")
    if isinstance(labels, str):
        labels = [x.strip() for x in labels.split(",")]
    from evalreport.inputs.readers import read_runs

    try:
        runs = read_runs(gold, files, runs_dir=None if files else runs_dir, labels=labels,
                         missing=opts.get("missing") or "error", allow_unknown=bool(opts.get("allow_unknown", False)),
                         **{k: opts[k] for k in ("id_col", "label_col", "cluster_col") if opts.get(k)},
                         slice_cols=_slice_cols(opts.get("slices")), slice_bins=opts.get("slice_bins"))
        return runs
    except InputError as exc:
        if "no run files" in exc.problem:
            raise InputError(f"task {name!r}: no runs ({exc.problem})", path=exc.path) from None
        raise task_error(name, exc) from None


def read_benchmark(tasks_dir=None, *, tasks: Sequence = (), long_gold=None, long_runs=None, benchmark_file=None,
                   settings: Mapping[str, Mapping] | None = None, defaults: Mapping | None = None,
                   missing: str | None = None, task_col: str = "task", system_col: str = "system",
                   id_col: str = "id", label_col: str = "label") -> Benchmark:
    """Read a benchmark from a folder of tasks, task specs, a long gold and runs table, or a
    benchmark file.

    Exactly one form: ``tasks_dir``, ``tasks``, ``long_gold`` + ``long_runs`` or
    ``benchmark_file``. Tasks come in natural order of their names (the folder form) or in the
    order given.

    Parameters
    ----------
    tasks_dir : path, optional
        A folder of task folders (``<task>/gold.*``, ``<task>/runs/*``).
    tasks : sequence
        ``NAME=GOLD[:RUNS_DIR]`` strings or tuples.
    long_gold, long_runs : path, optional
        Files with a ``task_col`` column; the runs table also ``system_col``.
    benchmark_file : path, optional
        TOML/YAML (:func:`evalreport.inputs.taskfile.load_benchmark_file`): its tasks, settings,
        weights and ``missing_systems``.
    settings : mapping, optional
        Task name -> its settings (:data:`TASK_KEYS`), over ``defaults`` (and over a benchmark file's).
    defaults : mapping, optional
        The settings of every task.
    missing : {"drop", "last", "exclude"}, optional
        The benchmark's default policy for systems missing from some tasks (default: the file's,
        else drop).
    task_col, system_col, id_col, label_col : str
        The column names of the long tables and of the task files.

    Returns
    -------
    Benchmark
        The tasks, each with its runs (or counts), primary measure, positive class and weight.

    Examples
    --------
    >>> from evalreport import read_benchmark
    >>> bench = read_benchmark("tasks/")                                  # doctest: +SKIP
    """
    forms = [tasks_dir is not None, bool(tasks), long_gold is not None or long_runs is not None,
             benchmark_file is not None]
    if sum(forms) != 1:
        raise InputError("give exactly one of: a tasks folder, task specs (NAME=GOLD[:RUNS_DIR]), a long gold "
                         "and runs table, or a benchmark file")
    if forms[3]:
        return _from_file(benchmark_file, settings=settings, defaults=defaults, missing=missing)
    missing = missing or "drop"
    if forms[2]:
        if long_gold is None or long_runs is None:
            raise InputError("the long form needs both a gold table (task, id, label) and a runs table "
                             "(task, system, id, label)")
        return _read_long(long_gold, long_runs, settings=settings, defaults=defaults, missing=missing,
                          task_col=task_col, system_col=system_col, id_col=id_col, label_col=label_col)
    specs = _folder_tasks(tasks_dir) if tasks_dir is not None else [parse_task_spec(s) for s in tasks]
    _check_unique_names([(n, str(g)) for n, g, _ in specs])
    unknown_tasks([n for n, _, _ in specs], settings)
    built, task_sources = [], {}
    for name, gold, runs_dir in specs:
        opts = settings_for(name, settings, defaults)
        runs = _read_task(name, gold, runs_dir, opts)
        built.append(make_task(name, runs, opts))
        task_sources[name] = runs.sources
    return Benchmark(tasks=tuple(built), sources=tuple(s for n in task_sources for s in task_sources[n]),
                     missing=missing, task_sources=task_sources)


#: Benchmark-file keys that hold for the whole benchmark (one value for every task): honoured at the
#: file's top level (by the CLI, as the defaults of its options; see :func:`benchmark_wide`).
WIDE_KEYS = ("title", "seed", "bootstrap", "alpha", "policy", "plugins")
#: Task keys that a benchmark has no use for: refused wherever they stand in a benchmark file.
_UNSUPPORTED = {"order": "give the task a cost matrix (costs = FILE) instead",
                "gains": "gain measures need a single-task report (evalreport report --gains)",
                "what_if": "what-if class distributions are drawn in single-task reports (evalreport report)",
                "bootstrap_strata": "stratified resampling is offered by report, compare and codabench"}


def benchmark_wide(spec) -> dict:
    """The benchmark-wide keys set at the top level of a loaded benchmark file
    (:func:`evalreport.inputs.taskfile.load_benchmark_file`), by key: ``title``, ``seed``,
    ``bootstrap``, ``alpha``, ``policy`` and ``plugins`` (every plugin file of the file, top level
    and tasks, in order, once each)."""
    top = spec.defaults.given()
    out = {k: top[k] for k in WIDE_KEYS if k in top and k != "plugins"}
    plugins = [p for t in spec.tasks for p in t.spec.given().get("plugins", [])]
    plugins = list(dict.fromkeys(top.get("plugins", []) + plugins))
    if plugins:
        out["plugins"] = plugins
    return out


def _check_file_keys(spec) -> None:
    """Refuse a key the benchmark cannot honour (a benchmark-wide key differing per task, or an unused key)."""
    top = spec.defaults.given()
    for key, why in _UNSUPPORTED.items():
        if key in top:
            raise InputError(f"key {key!r} is not supported in a benchmark file ({why})", path=spec.path)
    for t in spec.tasks:
        given = t.spec.given()
        for key, why in _UNSUPPORTED.items():
            if key in given:
                raise InputError(f"task {t.name!r}: key {key!r} is not supported in a benchmark file ({why})",
                                 path=spec.path)
        for key in WIDE_KEYS:
            if key != "plugins" and key in given and given[key] != top.get(key):
                raise InputError(f"task {t.name!r}: key {key!r} holds for the whole benchmark (one title, seed, "
                                 "bootstrap, alpha and 0/0 policy for every task); set it once at the top level of "
                                 "the benchmark file", path=spec.path)


def _from_file(path, *, settings, defaults, missing) -> Benchmark:
    from evalreport.inputs.taskfile import load_benchmark_file

    spec = load_benchmark_file(path)
    _check_file_keys(spec)
    keys = ("primary", "positive", "measures", "costs", "labels", "missing", "allow_unknown", "id_col", "label_col",
            "cluster_col", "slices", "slice_bins")
    specs, file_settings = [], {}
    for t in spec.tasks:
        own = {k: getattr(t.spec, k, None) for k in keys}
        file_settings[t.name] = {"weight": t.weight, **{k: v for k, v in own.items() if v is not None}}
        file_settings[t.name].update((settings or {}).get(t.name, {}))
        specs.append((t.name, t.gold, t.runs))
    if not specs:
        raise InputError("empty benchmark: the benchmark file declares no tasks", path=spec.path)
    _check_unique_names([(n, str(g)) for n, g, _ in specs])
    unknown_tasks([n for n, _, _ in specs], settings)
    built, task_sources = [], {}
    for name, gold, runs in specs:
        opts = dict(defaults or {})
        opts.update(settings_for(name, {name: file_settings[name]}, None))
        data = _read_task(name, Path(gold), runs, opts)
        built.append(make_task(name, data, opts))
        task_sources[name] = data.sources
    return Benchmark(tasks=tuple(built), sources=tuple(s for n in task_sources for s in task_sources[n]),
                     missing=missing or spec.missing_systems or "drop", task_sources=task_sources,
                     settings=benchmark_wide(spec))


def benchmark_from_data(data: Mapping[str, Any], *, settings: Mapping[str, Mapping] | None = None,
                        defaults: Mapping | None = None, missing: str = "drop") -> Benchmark:
    """A benchmark from data already in memory: task name -> Runs, PatternCounts or Counts."""
    names = list(data)
    unknown_tasks(names, settings)
    built = []
    for name in names:
        opts = settings_for(name, settings, defaults)
        for key in ("labels", "missing", "allow_unknown", "cluster_col", "slices", "slice_bins"):
            if key in opts:
                raise InputError(f"task {name!r}: {key!r} is a read option; the data is read already")
        built.append(make_task(str(name), data[name], opts))
    sources = {str(n): tuple(getattr(data[n], "sources", ())) for n in names}
    return Benchmark(tasks=tuple(built), sources=tuple(s for n in sources for s in sources[n]), missing=missing,
                     task_sources=sources)


def _check_unique_names(pairs) -> None:
    seen: dict[str, str] = {}
    for name, where in pairs:
        if name in seen:
            raise InputError(f"two tasks are named {name!r} ({seen[name]} and {where})", path=where)
        seen[name] = where


# ----------------------------------------------------------------------------- long tables

_ROW = re.compile(r"^row (\d+): ")


def _read_long(long_gold, long_runs, *, settings, defaults, missing, task_col, system_col, id_col,
               label_col) -> Benchmark:
    """Read each task of the long tables with ``read_runs`` via temporary Parquet files, errors mapped back."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from evalreport.inputs.readers import hash_file
    from evalreport.inputs.tables import read_table

    g, gold_path = read_table(long_gold, "gold", id_col=id_col)
    r, runs_path = read_table(long_runs, "run", id_col=id_col)
    g.require(task_col, id_col, label_col)
    r.require(task_col, system_col, id_col, label_col)
    g_task, g_names = g.labels(task_col, what="task")
    r_task, r_names = r.labels(task_col, what="task")
    r_sys, sys_names = r.labels(system_col, what="system")
    names = natural_sorted(g_names)
    no_gold = [t for t in r_names if t not in set(g_names)]
    if no_gold:
        row = int(np.flatnonzero(r_task == r_names.index(no_gold[0]))[0])
        raise r.error(f"task(s) {listing(no_gold)} have runs but no gold labels in {gold_path}", row=row)
    unknown_tasks(names, settings)
    g_keep = [c for c in g.columns if c != task_col]
    r_keep = [c for c in r.columns if c not in (task_col, system_col)]
    built: list[BenchmarkTask] = []
    task_sources = {}
    run_source = Source("run", str(runs_path), hash_file(runs_path), r.n_rows)
    gold_source = Source("gold", str(gold_path), hash_file(gold_path), g.n_rows)
    with tempfile.TemporaryDirectory(prefix="evalreport-benchmark-") as tmp:
        for name in names:
            opts = settings_for(name, settings, defaults)
            if opts.get("cluster_col"):
                raise InputError(f"task {name!r}: cluster_col needs a gold file per task, not the long gold table",
                                 path=gold_path)
            g_rows = np.flatnonzero(g_task == g_names.index(name))
            r_rows = (np.flatnonzero(r_task == r_names.index(name)) if name in r_names
                      else np.empty(0, dtype=np.int64))
            if r_rows.size == 0:
                raise InputError(f"task {name!r}: no runs (no rows of this task in the runs table)", path=runs_path)
            folder = Path(tmp) / f"t{len(built)}"
            (folder / "runs").mkdir(parents=True)
            rows_of: dict[Path, tuple[Any, np.ndarray]] = {}
            gold_file = folder / "gold.parquet"
            pq.write_table(pa.table({c: g.column(c).take(pa.array(g_rows)) for c in g_keep}), gold_file)
            rows_of[gold_file] = (g, g_rows)
            systems = natural_sorted({sys_names[k] for k in np.unique(r_sys[r_rows])})
            files = []
            for k, system in enumerate(systems):
                rows = r_rows[r_sys[r_rows] == sys_names.index(system)]
                path = folder / "runs" / f"s{k}.parquet"
                pq.write_table(pa.table({c: r.column(c).take(pa.array(rows)) for c in r_keep}), path)
                rows_of[path] = (r, rows)
                files.append(path)
            from evalreport.inputs.readers import read_runs

            labels = opts.get("labels")
            try:
                runs = read_runs(gold_file, files, names=systems, labels=labels, missing=opts.get("missing", "error"),
                                 allow_unknown=bool(opts.get("allow_unknown", False)),
                                 slice_cols=_slice_cols(opts.get("slices")), slice_bins=opts.get("slice_bins"))
            except InputError as exc:
                raise _mapped(name, exc, rows_of, tmp) from None
            runs = Runs(gold=runs.gold, pred=runs.pred, labels=runs.labels, systems=runs.systems, ids=runs.ids,
                        folds=runs.folds, fold_names=runs.fold_names, scores=runs.scores,
                        sources=(gold_source, run_source), abstain=runs.abstain, score_labels=runs.score_labels,
                        n_task=runs.n_task, slices=runs.slices, slice_names=runs.slice_names)
            built.append(make_task(name, runs, opts))
            task_sources[name] = tuple(Source("run", str(runs_path), run_source.sha256, None, system=s)
                                       for s in runs.systems)
    return Benchmark(tasks=tuple(built), sources=(gold_source, run_source), missing=missing,
                     task_sources=task_sources)


def _slice_cols(value) -> tuple[str, ...]:
    """A task's slice columns: a list, or text of comma-separated names (an option's value)."""
    if not value:
        return ()
    if isinstance(value, str):
        return tuple(x.strip() for x in value.split(",") if x.strip())
    return tuple(str(x) for x in value)


def _mapped(task: str, exc: InputError, rows_of: Mapping, tmp: str) -> InputError:
    """An error of a temporary per-task file, told about the long file, its line and the task."""
    problem = exc.problem
    for path, (table, rows) in rows_of.items():
        if exc.path is not None and Path(exc.path) == path:
            line = None
            match = _ROW.match(problem)
            if match:
                problem = problem[match.end():]
                original = int(rows[int(match.group(1)) - 1])
                line = table.line(original)
                if line is None:
                    problem = f"row {original + 1}: {problem}"
            for other, (t, _) in rows_of.items():
                problem = problem.replace(str(other), str(t.path))
            problem = problem.replace(tmp, "<temporary>")
            return InputError(f"task {task!r}: {problem}", path=table.path, line=line, item=exc.item)
    return task_error(task, InputError(problem.replace(tmp, "<temporary>"), path=exc.path, line=exc.line,
                                       item=exc.item))
