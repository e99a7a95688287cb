"""``compare_benchmark``: every task's comparison, and the tasks ranked together.

For each task, :func:`evalreport.analyses.compare.compare` runs as it does alone (the task's own
primary measure, positive class, measures and costs; the same ``seed``), so every per-task table
equals the single-task one. Across tasks, on the frame ``task, system, value`` of each task's
primary measure: the consensus rankings of :mod:`evalreport.analyses.consensus` with their agreement
and disagreements, and (:mod:`evalreport.analyses.multitask_tests`) Friedman with the Iman-Davenport
correction, Nemenyi's critical difference and its cliques, Holm-corrected Wilcoxon signed-rank tests
and task wins (Demšar 2006, JMLR 7, sections 3.2.2-3.2.4).

The pooled (micro) score is the primary measure of each system's summed confusion tensors (systems
present in every task), where all tasks share a class set (in the same order), the primary measure,
the positive class and the costs; otherwise the notes say why it is absent.

The consensus bootstrap: per task, B paired bootstrap resamples of its items
(:func:`evalreport.analyses.resampling.bootstrap`, the primary measure only) from an independent
stream (``np.random.SeedSequence(seed).spawn(T)``, each seed recorded in ``settings``), stacked to
``(B, T, S)`` and ranked by every consensus method at once (:func:`consensus_ranks`). Tied consensus
ranks share their positions, so each system's rank distribution sums to 1 per method.

A task with several runs per system (a folder per system, ``Runs.run_system``): its systems are the
folders, its comparison is ``compare``'s (system means over runs, the two-level bootstrap), its
consensus resamples come from the same :class:`~evalreport.analyses.seeds.SeedsDesign` around the
task's :class:`~evalreport.analyses.resampling.ConfusionDesign`, and its pooled-score matrices are
each system's mean over its runs. With one run per system every number equals the flat layout's.

Systems missing from some tasks (``missing``): ``drop``, each aggregation uses the tasks a system
took part in; ``last``, a missing system is ranked last (tied) in that task; ``exclude``, systems
missing from any task are removed before anything is computed (also from the per-task comparisons).
Friedman, Nemenyi and Wilcoxon need complete blocks whatever the policy (their notes say which
systems they use); the notes name every gap.
"""
from __future__ import annotations

import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import pandas as pd

from evalreport.analyses import consensus as consensus_methods, multitask_tests
from evalreport.analyses.compare import Comparison, compare
from evalreport.errors import InputError, MeasureError
from evalreport.inputs.benchmark import MISSING_POLICIES, Benchmark, BenchmarkTask, task_error
from evalreport.inputs.settings import DEFAULT_BASELINE_SAMPLES, Settings
from evalreport.words import counted

__all__ = ["compare_benchmark", "BenchmarkComparison", "BENCHMARK_TABLES", "rank_distribution_of"]

#: The benchmark-level tables, in the order of :meth:`BenchmarkComparison.tables` (file stems).
BENCHMARK_TABLES = ("participation", "task_scores", "task_ranks", "pooled", "consensus", "agreement",
                    "consensus_disagreements", "friedman", "average_ranks", "nemenyi", "cd_cliques", "wilcoxon",
                    "wins", "consensus_rank_distribution", "consensus_p_first")


@dataclass(frozen=True, eq=False)
class BenchmarkComparison:
    """Every table of a benchmark comparison (tidy frames) and the per-task comparisons.

    ``comparisons``: task -> :class:`~evalreport.analyses.compare.Comparison`.
    ``task_scores``: task, system, measure, value, lo, hi, rank, group, p_best (each task's
    leaderboard). ``critical_difference``: Nemenyi's CD at ``alpha`` (NaN when Friedman had
    fewer than two complete systems or tasks). See the module docstring for the rest.
    """

    tasks: tuple[str, ...]
    systems: tuple[str, ...]
    comparisons: Mapping[str, Comparison]
    participation: pd.DataFrame
    task_scores: pd.DataFrame
    task_ranks: pd.DataFrame
    pooled: pd.DataFrame
    consensus: pd.DataFrame
    agreement: pd.DataFrame
    consensus_disagreements: pd.DataFrame
    friedman: pd.DataFrame
    average_ranks: pd.DataFrame
    nemenyi: pd.DataFrame
    cd_cliques: pd.DataFrame
    wilcoxon: pd.DataFrame
    wins: pd.DataFrame
    consensus_rank_distribution: pd.DataFrame
    consensus_p_first: pd.DataFrame
    critical_difference: float = float("nan")
    notes: tuple[str, ...] = ()
    settings: Mapping = field(default_factory=dict)
    timings: Mapping = field(default_factory=dict)

    def task_folders(self) -> dict[str, str]:
        """task -> its folder under ``tasks/``: the name when it is a safe file name, else ``task_<k>``."""
        out: dict[str, str] = {}
        used: set[str] = set()
        for k, name in enumerate(self.tasks, start=1):
            safe = name if re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}", name) else f"task_{k}"
            while safe.casefold() in used:     # case-insensitive file systems
                safe = f"task_{k}_{len(used)}"
            used.add(safe.casefold())
            out[name] = safe
        return out

    def own_tables(self) -> dict[str, pd.DataFrame]:
        """The benchmark's tables by name, then ``tasks/index`` (task -> its folder under ``tasks/``: a
        task whose name is not a safe file name gets ``task_<k>``); not the tasks' own tables.

        Returns
        -------
        dict of str to pandas.DataFrame
            File stem -> table.
        """
        out = {name: getattr(self, name) for name in BENCHMARK_TABLES}
        folders = self.task_folders()
        out["tasks/index"] = pd.DataFrame({"task": list(folders), "folder": list(folders.values())})
        return out

    def tables(self) -> dict[str, pd.DataFrame]:
        """Every table by name: :meth:`own_tables`, then ``tasks/<folder>/<name>`` for each task's."""
        out = self.own_tables()
        for task, folder in self.task_folders().items():
            for name, frame in self.comparisons[task].tables().items():
                out[f"tasks/{folder}/{name}"] = frame
        return out

    def manifest(self) -> dict:
        return {"tasks": list(self.tasks), "systems": list(self.systems), "task_folders": self.task_folders(),
                "critical_difference": None if not np.isfinite(self.critical_difference) else self.critical_difference,
                "settings": dict(self.settings), "notes": list(self.notes), "timings": dict(self.timings),
                "files": [f"{name}.{ext}" for name in self.tables() for ext in ("csv", "json")]}


def _in_task(task: str, exc: Exception) -> Exception:
    """``exc`` with the task named first (its file, line and item kept)."""
    if isinstance(exc, InputError):
        return task_error(task, exc)
    text = str(exc)
    return type(exc)(text if text.startswith(f"task {task!r}: ") else f"task {task!r}: {text}")


# ----------------------------------------------------------------------------- helpers


def _counts(data):
    """The task's confusion tensors (S, K, K), folds summed."""
    from evalreport.analyses.compare import as_counts

    counts = as_counts(data).pooled()
    run_system = getattr(data, "run_system", None)
    if run_system is not None:          # several runs per system: each system's mean confusion over its runs
        from evalreport.analyses.seeds import system_counts

        return system_counts(counts, run_system)
    return counts


def select_systems(data, systems):
    """The task's data with only ``systems`` (in its order); patterns are regrouped."""
    from evalreport.counts.bigdata import PatternCounts

    run_system = getattr(data, "run_system", None)
    if run_system is not None:          # several runs per system: keep the runs of the systems kept
        runs = [r for r, s in zip(data.systems, run_system) if s in set(systems)]
        return data if len(runs) == len(data.systems) else data.select(runs)
    keep = [s for s in data.systems if s in set(systems)]
    if keep == list(data.systems):
        return data
    if not isinstance(data, PatternCounts):
        return data.select(keep)
    cols = [0] + [1 + data.systems.index(s) for s in keep]
    rows = data.patterns[:, cols]
    key = rows if data.folds is None else np.column_stack([data.folds, rows])
    uniq, inverse = np.unique(key, axis=0, return_inverse=True)
    counts = np.bincount(inverse.ravel(), weights=data.counts, minlength=len(uniq)).round().astype(np.int64)
    folds = None if data.folds is None else uniq[:, 0].astype(data.folds.dtype)
    patterns = (uniq if data.folds is None else uniq[:, 1:]).astype(data.patterns.dtype)
    return PatternCounts(patterns=patterns, counts=counts, labels=data.labels, systems=tuple(keep), folds=folds,
                         fold_names=data.fold_names, abstain=data.abstain, n_task=data.n_task)


def _primary_samples(t: BenchmarkTask, B: int, seed, policy: str) -> np.ndarray:
    """``(B, S)`` paired bootstrap values of a task's primary measure: by the confusion design, or for a
    score-based primary by :class:`~evalreport.analyses.score_design.ScoreDesign` (same stream seed)."""
    from evalreport.measures import get, resolve_positive
    from evalreport.measures.scores import is_score_measure

    run_system = getattr(t.runs, "run_system", None)
    if run_system is not None:
        return _seeds_samples(t, B, seed, policy, run_system)
    if not is_score_measure(t.primary):
        from evalreport.analyses.resampling import bootstrap as resample

        res = resample(t.runs, [t.primary], n_resamples=B, seed=seed, positive=t.positive, policy=policy,
                       costs=t.costs)
        assert res.samples is not None            # B > 0 here: the resamples are kept
        return res.samples[:, :, 0]
    from evalreport.analyses.score_clusters import item_clusters
    from evalreport.analyses.score_design import ScoreDesign
    from evalreport.counts.scores import score_counts

    pos = None if t.positive is None else resolve_positive(t.positive, list(t.runs.labels), len(t.runs.labels),
                                                           n_task=getattr(t.runs, "n_task", None))
    sc = score_counts(t.runs, positive=pos)
    if sc is None:
        raise MeasureError(f"task {t.name!r}: the primary measure {t.primary} needs scores; the runs carry none")
    # whole clusters or items within folds, as the labels'
    design = ScoreDesign(sc, policy=policy, clusters=item_clusters(t.runs), folds=getattr(t.runs, "folds", None))
    return design.resample([get(t.primary)], B, design.streams(seed)[0])[:, :, 0]


def _seeds_samples(t: BenchmarkTask, B: int, seed, policy: str, run_system) -> np.ndarray:
    """``(B, S)`` two-level bootstrap values of a task with several runs per system: the task's
    :class:`~evalreport.analyses.resampling.ConfusionDesign` of the runs wrapped in
    :class:`~evalreport.analyses.seeds.SeedsDesign`, as :func:`~evalreport.analyses.compare.compare` does
    (the items first, the same stream, so one run per system gives the item bootstrap's values)."""
    from evalreport.analyses.resampling import ConfusionDesign
    from evalreport.analyses.seeds import SeedsDesign
    from evalreport.measures import bind, resolve_positive
    from evalreport.measures.scores import is_score_measure

    labels = list(t.runs.labels)
    pos = None if t.positive is None else resolve_positive(t.positive, labels, len(labels),
                                                           n_task=getattr(t.runs, "n_task", None))
    if is_score_measure(t.primary):     # the runs' scores, the same two-level design
        from evalreport.analyses.score_design import ScoreDesign
        from evalreport.counts.scores import score_counts
        from evalreport.measures import get

        sc = score_counts(t.runs, positive=pos)
        if sc is None:
            raise MeasureError(f"task {t.name!r}: the primary measure {t.primary} needs scores; the runs carry none")
        from evalreport.analyses.score_clusters import item_clusters

        # whole clusters (a cluster column) or items, as the labels' design below
        design = SeedsDesign(ScoreDesign(sc, policy=policy, clusters=item_clusters(t.runs),
                                         folds=getattr(t.runs, "folds", None)), run_system)
        records = [get(t.primary)]
    else:
        design = SeedsDesign(ConfusionDesign(t.runs, positive=pos, policy=policy, costs=t.costs), run_system)
        records = [bind(t.primary, labels)]
    design.point(records)
    return design.resample(records, B, design.streams(seed)[0])[:, :, 0]


def _pooled(tasks: list[BenchmarkTask], systems: list[str], policy: str) -> tuple[pd.DataFrame | None, str]:
    """system, value of the primary measure on the summed confusion tensors, or (None, why not)."""
    from evalreport.counts import Counts
    from evalreport.measures import evaluate

    if len(tasks) < 2:
        return None, "one task only"
    first = tasks[0]
    from evalreport.measures.scores import is_score_measure

    if is_score_measure(first.primary):
        return None, f"the primary measure {first.primary} is score-based: summed confusion matrices do not give it"
    for t in tasks[1:]:
        if t.labels != first.labels or t.class_set != first.class_set:
            return None, f"tasks {first.name!r} and {t.name!r} have different class sets"
        if t.primary != first.primary:
            return None, f"tasks {first.name!r} and {t.name!r} have different primary measures"
        if t.positive != first.positive:
            return None, f"tasks {first.name!r} and {t.name!r} have different positive classes"
        if (t.costs is None) != (first.costs is None) or (
                t.costs is not None and not np.array_equal(np.asarray(t.costs), np.asarray(first.costs))):
            return None, f"tasks {first.name!r} and {t.name!r} have different costs"
    if not systems:
        return None, "no system takes part in every task"
    total = sum(_counts(t.runs).select(systems).tensor.astype(float) for t in tasks)
    n_task = getattr(first.runs, "n_task", None)
    frame = evaluate(Counts(total, first.labels, tuple(systems), n_task=n_task), [first.primary],
                     positive=first.positive, policy=policy, costs=first.costs)
    return frame[["system", "value"]].reset_index(drop=True), ""


def rank_distribution_of(ranks: np.ndarray) -> np.ndarray:
    """``(S, S)`` P(position k) per system from ``(B, S)`` average ranks (1 = best).

    A tie of g systems at average rank r occupies positions r - (g-1)/2 ... r + (g-1)/2: each
    gets 1/g of the replicate (as the single-task rank distribution shares a tie). Rows of
    replicates with a NaN rank are left out for that system."""
    B, S = ranks.shape
    defined = ~np.isnan(ranks)
    r = np.where(defined, ranks, -1.0)
    g = (np.abs(r[:, :, None] - r[:, None, :]) < 1e-9).sum(axis=2)        # (B, S) tie sizes
    pos = np.arange(1, S + 1, dtype=float)
    half = (g - 1) / 2.0
    inside = np.abs(pos[None, None, :] - r[:, :, None]) <= half[:, :, None] + 1e-9
    share = np.where(defined[:, :, None], inside / g[:, :, None], 0.0)
    n = defined.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return share.sum(axis=0) / n[:, None]


# ----------------------------------------------------------------------------- compare_benchmark


def compare_benchmark(benchmark: Benchmark, settings: Settings | None = None, *,
                      progress: Callable[[int, int], Any] | None = None, **changes: Any) -> BenchmarkComparison:
    """Compare the systems of every task, then rank them across tasks (see the module docstring).

    Parameters
    ----------
    benchmark : Benchmark
        The tasks (:func:`~evalreport.inputs.benchmark.read_benchmark`).
    settings : Settings, optional
        The settings of every task's comparison and of the consensus bootstrap (``bootstrap``: 0 =
        none; ``missing_systems``: drop | last | exclude, default the benchmark's); each task's own
        primary measure, measures, positive class and costs replace the settings' for its
        comparison. ``changes`` are keyword shorthands for its fields.
    progress : callable, optional
        ``progress(done, total)``, called after each task and after the consensus bootstrap.

    Returns
    -------
    BenchmarkComparison
        Every table of the benchmark and each task's :class:`~evalreport.analyses.compare.Comparison`.

    Examples
    --------
    >>> from evalreport import Settings, compare_benchmark, read_benchmark
    >>> bench = read_benchmark("tasks/")                                  # doctest: +SKIP
    >>> result = compare_benchmark(bench, Settings(bootstrap=200))        # doctest: +SKIP
    >>> result.consensus                                                  # doctest: +SKIP
    """
    if not isinstance(benchmark, Benchmark):
        raise TypeError(f"compare_benchmark takes a Benchmark (read_benchmark); got {type(benchmark).__name__}")
    settings = Settings.coerce(settings, **changes)
    bootstrap, seed, alpha, policy = settings.bootstrap, settings.seed, settings.alpha, settings.policy
    missing = benchmark.missing if settings.missing_systems is None else settings.missing_systems
    if missing not in MISSING_POLICIES:
        raise InputError(f"missing must be one of {', '.join(MISSING_POLICIES)}; got {missing!r}")
    timings: dict[str, float] = {}
    notes: list[str] = list(benchmark.notes)
    participation = benchmark.participation
    gaps = benchmark.missing_systems
    for system, where in gaps.items():
        notes.append(f"system {system!r} is missing from task(s) {', '.join(map(repr, where))}")
    tasks = list(benchmark.tasks)
    if missing == "exclude" and gaps:
        keep = benchmark.complete_systems
        if len(keep) < 1:
            raise InputError("missing='exclude' leaves no system: none takes part in every task")
        tasks = [replace(t, runs=select_systems(t.runs, keep)) for t in tasks]
        notes.append(f"missing = exclude: {counted(len(gaps), 'system')} missing from some task removed from the benchmark "
                     f"({', '.join(map(repr, gaps))})")
    elif gaps:
        notes.append("missing = drop: each aggregation uses the tasks a system took part in; rank-based methods "
                     "rank the systems present in each task" if missing == "drop" else
                     "missing = last: a system missing from a task is ranked last there (tied with the others "
                     "missing); mean and weighted mean scores use the tasks it took part in")
    names = [t.name for t in tasks]
    systems = sorted({s for t in tasks for s in t.systems}, key=lambda s: benchmark.systems.index(s))
    complete = [s for s in systems if all(s in t.systems for t in tasks)]
    total_steps = len(tasks) + 1

    # ---- per task: compare() as alone --------------------------------------------------
    comparisons: dict[str, Comparison] = {}
    rows = []
    for k, t in enumerate(tasks):
        start = time.perf_counter()
        try:
            own = settings.replace(primary=t.primary, measures=t.measures, positive=t.positive, costs=t.costs)
            # each task is sliced by the columns it was read with (its own `slices` or --slice-col)
            own = own.replace(slice_cols=tuple(getattr(t.runs, "slices", None) or ()))
            cmp = compare(t.runs, own)
        except (InputError, MeasureError) as exc:       # every benchmark error names its task
            raise _in_task(t.name, exc) from None
        timings[f"compare:{t.name}"] = time.perf_counter() - start
        comparisons[t.name] = cmp
        board = cmp.leaderboard.assign(task=t.name)
        rows.append(board[["task", "system", "measure", "value", "lo", "hi", "rank", "group", "p_best"]])
        if progress is not None:
            progress(k + 1, total_steps)
    task_scores = pd.concat(rows, ignore_index=True)
    scores = task_scores[["task", "system", "value"]].astype({"value": float})
    from evalreport.measures import get

    hib = {t.name: bool(get(t.primary).higher_is_better) for t in tasks}
    weights = {t.name: t.weight for t in tasks}
    weighted = any(w != 1.0 for w in weights.values())
    a_missing = "last" if missing == "last" else "drop"
    start = time.perf_counter()

    # ---- across tasks ----------------------------------------------------------------
    pooled, why = _pooled(tasks, complete, policy)
    if pooled is None:
        notes.append(f"pooled (micro) score absent: {why}")
        pooled_table = pd.DataFrame(columns=["system", "value"])
    else:
        pooled_table = pooled
        notes.append(f"pooled (micro) score: {tasks[0].primary} of the confusion matrices summed over the "
                     f"{len(tasks)} tasks, for the {counted(len(complete), 'system')} present in every task; task weights "
                     "do not apply (each item counts once)")
    task_ranks = consensus_methods.task_ranks(scores, higher_is_better=hib, missing=a_missing)
    cons = consensus_methods.consensus(scores, higher_is_better=hib, weights=weights if weighted else None, missing=a_missing,
                              pooled=pooled, seed=seed)
    notes += list(cons.notes)
    friedman, average_ranks, cd, nemenyi, cliques, fr_notes = _friedman_part(scores, hib, alpha)
    notes += fr_notes
    wilcoxon = multitask_tests.wilcoxon_holm(scores, higher_is_better=hib, alpha=alpha)
    notes += list(getattr(wilcoxon, "attrs", {}).get("notes", []))
    pvalues = None
    pw = [c.pairwise.assign(task=n) for n, c in comparisons.items() if len(c.pairwise)]
    if pw:
        pw = pd.concat(pw, ignore_index=True)
        pw = pw[(pw["test"] == "bootstrap") & (pw["measure"] == pw["task"].map(
            {t.name: comparisons[t.name].primary for t in tasks}))]
        pvalues = pw[["task", "system_a", "system_b"]].assign(p=pw["p_value"].astype(float)).reset_index(drop=True)
        notes.append("wins: significant wins use each task's paired bootstrap p-values of its primary measure "
                     "(uncorrected, from its pairwise table), Holm-corrected across all winners' comparisons")
    else:
        notes.append("wins: no per-task paired tests (bootstrap = 0 or confusion-matrix input): no significant wins")
    wins = multitask_tests.wins(scores, pvalues, higher_is_better=hib, alpha=alpha)
    notes += list(getattr(wins, "attrs", {}).get("notes", []))
    timings["across_tasks"] = time.perf_counter() - start

    # ---- consensus bootstrap ----------------------------------------------------------
    start = time.perf_counter()
    dist, p_first, stream_seeds, boot_notes = _consensus_bootstrap(tasks, systems, hib, weights if weighted else None,
                                                                   a_missing, bootstrap, seed, policy)
    notes += boot_notes
    timings["consensus_bootstrap"] = time.perf_counter() - start
    if progress is not None:
        progress(total_steps, total_steps)

    record = {"bootstrap": bootstrap, "seed": seed, "alpha": alpha, "missing": missing, "policy": policy,
              "pairwise_test": settings.pairwise_test,
              "baseline_samples": (DEFAULT_BASELINE_SAMPLES["single"] if settings.baseline_samples is None
                                   else settings.baseline_samples),
              "primary": {t.name: t.primary for t in tasks}, "positive": {t.name: t.positive for t in tasks},
              "weights": weights, "consensus_bootstrap_seeds": stream_seeds}
    seeded = _runs_per_system(tasks)
    if seeded:
        record["runs_per_system"] = seeded
    return BenchmarkComparison(
        tasks=tuple(names), systems=tuple(systems), comparisons=comparisons, participation=participation,
        task_scores=task_scores, task_ranks=task_ranks, pooled=pooled_table, consensus=cons.table,
        agreement=cons.agreement, consensus_disagreements=cons.disagreements, friedman=friedman,
        average_ranks=average_ranks, nemenyi=nemenyi, cd_cliques=cliques, wilcoxon=wilcoxon, wins=wins,
        consensus_rank_distribution=dist, consensus_p_first=p_first, critical_difference=cd, notes=tuple(notes),
        settings=record, timings=timings)


def _runs_per_system(tasks: list[BenchmarkTask]) -> dict[str, dict[str, int]]:
    """task -> system -> its number of runs, for the tasks where some system has several runs."""
    out = {}
    for t in tasks:
        run_system = getattr(t.runs, "run_system", None)
        if run_system is not None and len(run_system) > len(set(run_system)):
            out[t.name] = {s: run_system.count(s) for s in dict.fromkeys(run_system)}
    return out


def _friedman_part(scores, hib, alpha):
    """Friedman (one row), average ranks, CD, Nemenyi pairs and CD cliques (tidy)."""
    notes: list[str] = []
    empty_pairs = pd.DataFrame(columns=["system_a", "system_b", "rank_a", "rank_b", "difference", "p", "significant"])
    try:
        fr = multitask_tests.friedman(scores, higher_is_better=hib)
    except (InputError, ValueError) as exc:
        notes.append(f"friedman: not computed ({exc})")
        return (pd.DataFrame(), pd.DataFrame(columns=["system", "rank"]), float("nan"), empty_pairs,
                pd.DataFrame(columns=["clique", "system"]), notes)
    fr = dict(fr.iloc[0]) if isinstance(fr, pd.DataFrame) else dict(fr)
    avg = fr.pop("average_ranks")
    avg = pd.Series(avg) if not isinstance(avg, pd.Series) else avg
    notes += list(fr.pop("notes", []))
    average_ranks = pd.DataFrame({"system": avg.index.astype(str), "rank": avg.to_numpy(dtype=float)})
    cd, q, pairs = multitask_tests.nemenyi(avg.to_dict(), int(fr["N"]), alpha=alpha)
    cliques = multitask_tests.cd_cliques(avg.to_dict(), cd)
    row = {k: (", ".join(map(str, v)) if isinstance(v, (list, tuple)) else v) for k, v in fr.items()}
    row.update(cd=float(cd), q_alpha=float(q), alpha=alpha)
    clique_rows = [(k, s) for k, members in enumerate(cliques, start=1) for s in members]
    return (pd.DataFrame([row]), average_ranks, float(cd), pairs,
            pd.DataFrame(clique_rows, columns=["clique", "system"]), notes)


def _consensus_bootstrap(tasks, systems, hib, weights, missing, B, seed, policy):
    """Rank distributions of every consensus method over B joint resamples of all tasks' items."""
    from evalreport.counts.bigdata import PatternCounts
    from evalreport.inputs.runs import Runs

    columns = ["method", "system", "rank", "probability"]
    children = np.random.SeedSequence(seed).spawn(len(tasks))
    stream_seeds = {t.name: int(c.generate_state(1, dtype=np.uint64)[0]) for t, c in zip(tasks, children)}
    empty = (pd.DataFrame(columns=columns), pd.DataFrame(columns=["method", "system", "probability"]))
    if B == 0:
        return (*empty, stream_seeds, ["consensus bootstrap: not run (bootstrap = 0)"])
    flat = [t.name for t in tasks if not isinstance(t.runs, (Runs, PatternCounts))]
    if flat:
        return (*empty, stream_seeds, [f"consensus bootstrap: not run: task(s) {', '.join(map(repr, flat))} have "
                                       "confusion matrices only (no items to resample)"])
    T, S = len(tasks), len(systems)
    values = np.full((B, T, S), np.nan)
    present = np.zeros((T, S), dtype=bool)
    col = {s: j for j, s in enumerate(systems)}
    for i, t in enumerate(tasks):
        idx = [col[s] for s in t.systems]
        values[:, i, idx] = _primary_samples(t, B, stream_seeds[t.name], policy)
        present[i, idx] = True
    w = None if weights is None else np.asarray([weights[t.name] for t in tasks], dtype=float)
    ranks = consensus_methods.consensus_ranks(values, higher_is_better=np.asarray([hib[t.name] for t in tasks]), weights=w,
                                     present=present, missing=missing)
    rows, first = [], []
    for method, r in ranks.items():
        probs = rank_distribution_of(np.asarray(r, dtype=float).reshape(B, S))
        rows.append(pd.DataFrame({"method": method, "system": np.repeat(systems, S),
                                  "rank": np.tile(np.arange(1, S + 1), S), "probability": probs.ravel()}))
        first.append(pd.DataFrame({"method": method, "system": systems, "probability": probs[:, 0]}))
    notes = [f"consensus bootstrap: {B} paired resamples of the items of every task at once, an independent "
             f"stream per task (SeedSequence({seed}).spawn({T}); seeds in settings); tied consensus ranks share "
             "their positions; the pooled score is not resampled"]
    clustered = [t.name for t in tasks if isinstance(t.runs, Runs) and t.runs.clusters is not None]
    if clustered:
        notes.append(f"consensus bootstrap: task(s) {', '.join(map(repr, clustered))} have a cluster column: their "
                     "resamples draw whole clusters (evalreport.analyses.clusters)")
    if "kemeny" in ranks:
        from evalreport.analyses.consensus import KEMENY_EXACT_MAX_BATCH, kemeny_note

        notes.append(f"consensus bootstrap: {kemeny_note(S, KEMENY_EXACT_MAX_BATCH)}")
    return pd.concat(rows, ignore_index=True), pd.concat(first, ignore_index=True), stream_seeds, notes
