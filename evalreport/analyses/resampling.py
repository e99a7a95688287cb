"""Uncertainty by resampling: paired bootstrap intervals, rank distributions, pairwise tests.

Three public functions and one result type:

:func:`bootstrap`
    paired bootstrap over items (the same resample for every system; within folds when the
    runs have folds): percentile intervals for every system x measure, and the distribution of
    every system's rank under every measure (``P(rank = k)`` for k = 1..S, ``P(best)``).
:func:`pairwise`
    paired significance tests between every pair of systems for one measure: paired bootstrap,
    approximate randomisation, and McNemar's test on accuracy as a cross-check, with Holm and
    Benjamini-Hochberg corrections across the pairs of each (measure, test).
:func:`groups`
    groups of systems that the chosen test cannot separate at ``alpha``.

:class:`ConfusionDesign` is the single-label design of the comparison engine
(:mod:`evalreport.analyses.engine`, which computes the intervals, rank distributions and tests of
every kind of counts once). The pieces live in sibling modules, and the names the analyses use
are importable from here: :mod:`evalreport.analyses.resampling_patterns` (the items reduced to patterns, resamples
drawn as pattern counts, their confusion tensors), :mod:`evalreport.analyses.significance` (the
tests' p-values, Holm and Benjamini-Hochberg, p floors, :func:`groups`) and
:mod:`evalreport.analyses.randomization` (the approximate randomisation draws). This module
draws the bootstrap resamples, in blocks of resamples sized to memory.

Measures on resamples
---------------------
The ``(b, S, K, K)`` stack of a block of resamples (:func:`resampled_confusions`) goes through
:func:`evalreport.measures.compute` once per measure (``explain=False``), so every measure in
the registry works, including non-decomposable ones (F1, MCC, kappa, K). With folds the
measure is computed on the tensor pooled over folds (the counts-pooling F_tp,fp of
Forman & Scholz 2010, section 3); only the resampling is done within folds, so every
resample keeps the fold sizes.

Classes lost in a resample, and the stratified bootstrap
--------------------------------------------------------
Resampling items can leave a rare gold class out of a resample. A class-averaged measure (macro
F1, SBA, macro recall, ...) then averages over fewer classes there - under the nan policy the
empty class's 0/0 is skipped - so the resample measures another quantity (a constant predictor
of the majority class scores macro recall 1.0 on a resample holding only that class). The count
is kept: ``BootstrapResult.class_absent`` (per class, the resamples without it),
``n_missing_class`` (resamples without at least one class of the data) and the intervals'
column ``resamples_missing_class``. ``strata="gold"`` resamples within each gold class (within
each fold) instead: every resample keeps every class's size (the bootstrap conditional on the
class sizes; the draw is the same multinomial per stratum), so no class is lost; the intervals
then leave out the variation of the class proportions, which a test set drawn from the population
would have.

Reproducibility and invariance
------------------------------
Everything is seeded. Patterns are numbered by their first item, so the bootstrap resamples
do not depend on the order of the systems, and randomisation draws are made for the pairs in
the order of their (sorted) system names: reordering the systems permutes every output and
changes no number.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from evalreport.analyses.clusters import ClusterPlan, cluster_plan, cluster_swap_differences, draw_cluster_weights
from evalreport.analyses.engine import TESTS, Progress, intervals, pairwise_tests  # noqa: F401
from evalreport.analyses.randomization import randomization_differences
from evalreport.analyses.resampling_patterns import (  # noqa: F401
    DRAW_BUDGET,
    STRATA,
    TENSOR_BUDGET,
    Patterns,
    draw_plan,
    draw_weights,
    draw_work,
    patterns,
    resampled_confusions,
)
from evalreport.analyses.significance import (  # noqa: F401
    CORRECTIONS,
    MCNEMAR_EXACT_BELOW,
    benjamini_hochberg,
    groups,
    holm,
    mcnemar,
    p_floor,
    resamples_needed,
)
from evalreport.counts.pattern_counts import PatternCounts
from evalreport.errors import InputError, MeasureError
from evalreport.inputs.runs import Runs
from evalreport.measures import Measure, applicable, bind, compute, default_measures, resolve_positive

__all__ = ["bootstrap", "BootstrapResult", "ConfusionDesign", "pairwise", "groups", "holm", "benjamini_hochberg",
           "mcnemar", "Patterns", "patterns", "resampled_confusions", "TESTS", "CORRECTIONS", "STRATA",
           "lost_classes_sentence",
           "MCNEMAR_EXACT_BELOW", "p_floor", "resamples_needed"]

_TENSOR_CAP = 2 ** 24             # at most this many elements of (b, S, K, K) tensors at once (also memory-bound)


# ----------------------------------------------------------------------------- helpers


def _check_data(data) -> Runs | PatternCounts:
    if not isinstance(data, (Runs, PatternCounts)):
        raise InputError("resampling needs item-level predictions (a Runs) or the joint patterns of the items "
                         "with counts (a PatternCounts), not confusion matrices: the pairing of systems on the "
                         "same items is lost in a confusion matrix")
    if data.n_items == 0:
        raise InputError("no items to resample")
    return data


def _check_count(n, what: str) -> int:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise InputError(f"{what} must be a positive integer; got {n!r}")
    return int(n)


def _measures(measures, positive, costs, labels) -> list[Measure]:
    """The records, bound to the data's classes (class subsets; a gain measure comes bound)."""
    chosen = default_measures(positive=positive, costs=costs) if measures is None else [
        bind(m, labels) for m in ([measures] if isinstance(measures, (str, Measure)) else measures)]
    if not chosen:
        raise MeasureError("no measures to compute")
    for m in chosen:
        ok, why = applicable(m, positive=positive, costs=costs)
        if not ok:
            raise MeasureError(f"measure {m.id!r}: {why}")
    ids = [m.id for m in chosen]
    if len(set(ids)) != len(ids):
        raise MeasureError("a measure is listed twice")
    return chosen


def _streams(seed):
    """Independent generators for the bootstrap and the randomisation test."""
    boot, rand = np.random.SeedSequence(seed).spawn(2)
    return np.random.default_rng(boot), np.random.default_rng(rand)


def _point_values(pat: Patterns, measures, A, *, positive, policy, costs, task=None) -> np.ndarray:
    T0 = resampled_confusions(pat, pat.counts[None, :], A)[0]
    return np.stack([compute(m, T0, positive=positive, policy=policy, costs=costs, explain=False,
                             task=task).value for m in measures], axis=-1)            # (S, M)


def _resample_values(pat: Patterns, measures, n_resamples: int, rng, A, *, positive, policy, costs, task=None,
                     progress: Progress, total: int | None = None, strata: str | None = None,
                     gold_absent: np.ndarray | None = None, draw=None) -> np.ndarray:
    """``(B, S, M)`` values of every measure on B paired bootstrap resamples (drawn within the
    folds, or with ``strata="gold"`` within the gold classes of each fold). ``gold_absent``: a
    ``(B, K)`` bool array, filled with which gold classes each resample lacks. ``draw``: a callable
    ``draw(b) -> (b, P)`` pattern counts that replaces the item draw (whole clusters,
    :func:`evalreport.analyses.clusters.draw_cluster_weights`)."""
    S, K, P = pat.n_systems, pat.n_classes, pat.n_patterns
    B = n_resamples
    out = np.empty((B, S, len(measures)), dtype=float)
    if draw is None:
        plan = draw_plan(pat, strata)
    b_draw = max(1, min(B, DRAW_BUDGET // max(pat.n_items, P, 1)))
    # blocks of resamples handed to compute(): within the tensor budget, and at least ~10 blocks
    # so that progress is reported while a long run goes on
    b_tensor = max(b_draw, min(B, TENSOR_BUDGET // (S * K * K), -(-B // 10)))
    # the blocks above fix the order of the random draws (so the results of a seed); the tensors
    # themselves are made and measured at most `rows` resamples at a time, so that memory bounds
    # the block and a larger K costs time, not memory (every row is measured on its own: the
    # values do not depend on `rows`)
    rows = _rows_in_memory(S * K * K)
    kw = dict(positive=positive, policy=policy, costs=costs, explain=False, task=task)
    work = draw_work(pat, b_draw) if draw is None else None

    def weights(b: int) -> np.ndarray:
        return draw_weights(pat, rng, b, plan, work) if draw is None else draw(b)

    for start in range(0, B, b_tensor):
        stop = min(B, start + b_tensor)
        if stop - start <= rows:
            T = np.empty((stop - start, S, K, K), dtype=float)
            for s0 in range(start, stop, b_draw):
                s1 = min(stop, s0 + b_draw)
                T[s0 - start:s1 - start] = resampled_confusions(pat, weights(s1 - s0), A)
            if gold_absent is not None:
                gold_absent[start:stop] = T[:, 0].sum(axis=-1) == 0       # gold class sizes: any system's rows
            for j, m in enumerate(measures):
                out[start:stop, :, j] = compute(m, T, **kw).value
            del T
        else:
            for s0 in range(start, stop, b_draw):
                s1 = min(stop, s0 + b_draw)
                W = weights(s1 - s0)
                for r0 in range(s0, s1, rows):
                    r1 = min(s1, r0 + rows)
                    T = resampled_confusions(pat, W[r0 - s0:r1 - s0], A)
                    if gold_absent is not None:
                        gold_absent[r0:r1] = T[:, 0].sum(axis=-1) == 0
                    for j, m in enumerate(measures):
                        out[r0:r1, :, j] = compute(m, T, **kw).value
                    del T
        if progress is not None:
            progress(stop, B if total is None else total)
    return out


def _available_memory() -> int:
    """Bytes this process may still allocate (free memory, cgroup room, ``ulimit -v``); 2 GiB when unknown."""
    found = []
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    found.append(int(line.split()[1]) * 1024)
    except (OSError, ValueError, IndexError):
        pass
    for limit, usage in (("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.current"),
                         ("/sys/fs/cgroup/memory/memory.limit_in_bytes", "/sys/fs/cgroup/memory/memory.usage_in_bytes")):
        try:
            with open(limit) as fh:
                text = fh.read().strip()
            if text != "max" and int(text) < 2 ** 60:
                with open(usage) as fh:
                    found.append(int(text) - int(fh.read().strip()))
            break
        except (OSError, ValueError):
            continue
    try:
        import resource

        soft = resource.getrlimit(resource.RLIMIT_AS)[0]
        if soft != resource.RLIM_INFINITY:
            used = 0
            with open("/proc/self/status") as fh:
                for line in fh:
                    if line.startswith("VmSize:"):
                        used = int(line.split()[1]) * 1024
            found.append(soft - used)
    except (ImportError, OSError, ValueError):
        pass
    return max(0, min(found)) if found else 2 ** 31


def _rows_in_memory(cells: int) -> int:
    """Resamples measured at once: at most 1/32 of the available memory and ``_TENSOR_CAP`` elements; at least 1."""
    budget = min(_TENSOR_CAP, _available_memory() // (32 * 8))
    return max(1, budget // max(cells, 1))


# ----------------------------------------------------------------------------- bootstrap


@dataclass(frozen=True, eq=False)
class BootstrapResult:
    """What :func:`bootstrap` returns.

    ``intervals``: system, measure, value (on the full data), lo, hi (percentile interval at
    ``level``), se (standard deviation of the resampled values), nan_fraction (share of
    resamples where the measure was undefined; lo, hi and se ignore those),
    resamples_missing_class (resamples that lack at least one gold class of the data: the same
    on every row, since the resamples are paired). ``class_absent``: ``(label, resamples without
    that class)`` for every gold class of the data that some resample lacks; ``n_missing_class``:
    resamples lacking at least one; ``strata``: ``None`` (items resampled within folds) or
    ``"gold"`` (within gold classes, see the module docstring).
    ``rank_distribution``: system, measure, rank (1..S), probability - every rank, also those
    with probability 0. ``samples``: the raw values, ``(n_resamples, S, M)`` in the order of
    ``systems`` and ``measures`` (8 bytes per value: 14 MB for 1,000 x 20 x 88; the confusion
    tensors themselves are never kept).
    """

    intervals: pd.DataFrame
    rank_distribution: pd.DataFrame
    samples: np.ndarray | None
    n_resamples: int
    seed: int | None
    level: float
    systems: tuple[str, ...]
    measures: tuple[str, ...]
    class_absent: tuple[tuple[str, int], ...] = ()
    n_missing_class: int = 0
    strata: str | None = None

    @property
    def p_best(self) -> pd.DataFrame:
        """system, measure, probability: P(rank = 1) (a tie for first shares it)."""
        rd = self.rank_distribution
        return rd.loc[rd["rank"] == 1, ["system", "measure", "probability"]].reset_index(drop=True)


class ConfusionDesign:
    """Single-label runs for the comparison engine (:class:`evalreport.analyses.engine.Design`):
    confusion tensors counted from the item patterns of ``data`` (a Runs or PatternCounts).
    ``positive``, ``policy``, ``costs``: as :func:`evalreport.measures.compute`; ``strata``: as
    :func:`bootstrap`. After :meth:`resample`, ``class_absent`` and ``n_missing_class`` count the
    gold classes the resamples lost (module docstring). Runs with clusters (``Runs.clusters``) are
    resampled and swapped by whole clusters, within folds (:mod:`evalreport.analyses.clusters`);
    ``clusters`` is then their :class:`~evalreport.analyses.clusters.ClusterPlan`, else None."""

    kind = "single"
    mcnemar_measure = "accuracy"

    def __init__(self, data, *, positive: int | None = None, policy: str = "nan", costs=None,
                 strata: str | None = None) -> None:
        runs = _check_data(data)
        if strata not in STRATA:
            raise InputError(f"unknown bootstrap strata {strata!r}; choose 'gold' (or none)")
        self.data = runs
        self.pat = patterns(runs)
        self.A = self.pat.indicator()
        self.systems = tuple(runs.systems)
        self.labels = tuple(runs.labels)
        self.n_items = self.pat.n_items
        self.strata = strata
        self._kw = dict(positive=positive, policy=policy, costs=costs, task=getattr(runs, "n_task", None))
        self.class_absent: tuple[tuple[str, int], ...] = ()
        self.n_missing_class = 0
        self.clusters: ClusterPlan | None = None
        self.cluster_col: str | None = None
        codes = runs.clusters if isinstance(runs, Runs) else None
        if isinstance(runs, Runs) and codes is not None:
            if strata == "gold":
                raise InputError("--bootstrap-strata gold cannot be combined with --cluster-col: a cluster holds "
                                 "items of several gold classes, so whole clusters cannot be resampled within gold "
                                 "classes (clusters are resampled within folds); drop one of the two")
            self.clusters = cluster_plan(self.pat, codes, runs.cluster_names)
            self.cluster_col = runs.cluster_col
            self._cluster_t = self.clusters.matrix.T.tocsc()

    @property
    def swap_unit(self) -> str:
        """What the randomisation test swaps (the pairwise table's ``detail``)."""
        return "discordant item" if self.clusters is None else "cluster"

    @property
    def interval_columns(self) -> dict[str, int]:
        """The intervals' ``resamples_missing_class`` (one value: the resamples are paired)."""
        return {"resamples_missing_class": self.n_missing_class}

    def streams(self, seed: int | None) -> tuple[np.random.Generator, np.random.Generator]:
        """Independent generators for the bootstrap and the randomisation test."""
        return _streams(seed)

    def direction(self, measure: Measure) -> bool:
        """Whether higher values of ``measure`` are better."""
        return measure.higher_is_better

    def point(self, measures) -> np.ndarray:
        """``(S, M)`` values on all items."""
        return _point_values(self.pat, measures, self.A, **self._kw)

    def resample(self, measures, n_resamples: int, rng: np.random.Generator, progress: Progress = None) -> np.ndarray:
        """``(B, S, M)`` values on paired bootstrap resamples (:func:`_resample_values`); records the
        gold classes the resamples lost."""
        pat = self.pat
        gold_absent = np.zeros((n_resamples, pat.n_classes), dtype=bool)
        plan = self.clusters
        draw = None if plan is None else (lambda b: draw_cluster_weights(plan, rng, b, self._cluster_t))
        samples = _resample_values(pat, measures, n_resamples, rng, self.A, progress=progress, strata=self.strata,
                                   gold_absent=gold_absent, draw=draw, **self._kw)
        in_data = np.bincount(pat.gold, weights=pat.counts, minlength=pat.n_classes) > 0
        lost = gold_absent & in_data
        per_class = lost.sum(axis=0)
        self.class_absent = tuple((str(self.labels[k]), int(per_class[k])) for k in np.flatnonzero(per_class))
        self.n_missing_class = int(lost.any(axis=1).sum())
        return samples

    def swap_differences(self, measure: Measure, first: np.ndarray, second: np.ndarray, rounds: int,
                         rng: np.random.Generator, progress: Progress = None) -> np.ndarray:
        """``(R, P)`` oriented differences after swapping the pairs' predictions per discordant item
        with probability 1/2 (:func:`evalreport.analyses.randomization.randomization_differences`)."""
        C = resampled_confusions(self.pat, self.pat.counts[None, :], self.A)[0]
        if self.clusters is not None:
            return cluster_swap_differences(self.pat, self.clusters, measure, C, first, second, rounds, rng,
                                            progress=progress, **self._kw)
        return randomization_differences(self.pat, measure, C, first, second, rounds, rng, progress=progress, **self._kw)

    def correct(self) -> tuple[np.ndarray, np.ndarray]:
        """``(S, P)`` whether each system predicts each pattern's gold class, and the pattern counts."""
        return self.pat.pred == self.pat.gold[None, :], self.pat.counts

    def resample_items(self, measures, n_resamples: int, rng: np.random.Generator) -> np.ndarray:
        """``(B, S, M)`` values on item resamples (within folds) whatever the design: the reference of
        the design effect (:func:`evalreport.analyses.clusters.design_effect`)."""
        return _resample_values(self.pat, measures, n_resamples, rng, self.A, progress=None, **self._kw)

    def cluster_right(self) -> np.ndarray | None:
        """``(S, C)`` items of each cluster each system gets right (the clustered McNemar test), or None
        without clusters."""
        if self.clusters is None:
            return None
        correct = (self.pat.pred == self.pat.gold[None, :]).astype(float)       # (S, P)
        return np.asarray(self.clusters.matrix @ correct.T).T


def _design(data, positive, costs, policy, strata) -> tuple[ConfusionDesign, int | None]:
    runs = _check_data(data)
    if positive is not None:
        positive = resolve_positive(positive, runs.labels, len(runs.labels))
    return ConfusionDesign(runs, positive=positive, policy=policy, costs=costs, strata=strata), positive


def bootstrap(data, measures=None, *, n_resamples: int = 1000, seed: int | None = 0, positive=None,
              policy: str = "nan", costs=None, level: float = 0.95, progress: Progress = None,
              strata: str | None = None) -> BootstrapResult:
    """Paired bootstrap over items: intervals and rank distributions for every system x measure.

    ``data``: a :class:`~evalreport.inputs.Runs`, or a
    :class:`~evalreport.counts.bigdata.PatternCounts` (resampled as pattern counts, never expanded
    to items; see the module docstring). ``measures``: ids or records (default:
    :func:`evalreport.measures.default_measures`). Items are resampled with replacement - the
    same resample for every system; within folds when the runs have folds, and with
    ``strata="gold"`` within the gold classes too (no class is ever lost). ``progress``: an
    optional ``callable(done, total)`` called after each block of resamples.
    """
    _check_data(data)
    B = _check_count(n_resamples, "n_resamples")
    if not 0.0 < float(level) < 1.0:
        raise InputError(f"level must lie strictly between 0 and 1; got {level!r}")
    design, positive = _design(data, positive, costs, policy, strata)
    chosen = _measures(measures, positive, costs, design.labels)
    point = design.point(chosen)
    samples = design.resample(chosen, B, design.streams(seed)[0], progress)
    table, ranks = intervals(samples, point, design.systems, [m.id for m in chosen],
                             [m.higher_is_better for m in chosen], level=level, columns=design.interval_columns)
    return BootstrapResult(intervals=table, rank_distribution=ranks, samples=samples, n_resamples=B, seed=seed,
                           level=float(level), systems=design.systems, measures=tuple(m.id for m in chosen),
                           class_absent=design.class_absent, n_missing_class=design.n_missing_class, strata=strata)


def lost_classes_sentence(class_absent, n_missing: int, n_resamples: int) -> str:
    """The classes lost in bootstrap resamples, in words (empty when none was): how many of the B
    resamples lacked a gold class, which classes how often, and what that does to class averages.
    ``class_absent``: ``{label: resamples without it}`` (or ``(label, count)`` pairs)."""
    if not n_missing:
        return ""
    items = sorted(dict(class_absent).items(), key=lambda kv: -kv[1])
    which = "; ".join(f"without {label}: {n:,}" for label, n in items)
    return (f"In {n_missing:,} of the {n_resamples:,} bootstrap resamples at least one gold class was absent "
            f"(resamples {which}). In those resamples a class-averaged measure (macro averages, SBA, ...) "
            "skips the absent class (or counts it with the 0/0 policy's value): it measures another quantity "
            "there, so its interval mixes two definitions; --bootstrap-strata gold resamples within each gold "
            "class and keeps every class.")


# ----------------------------------------------------------------------------- pairwise


def pairwise(data, measure, *, n_resamples: int = 1000, seed: int | None = 0, tests=TESTS, positive=None,
             policy: str = "nan", costs=None, progress: Progress = None, strata: str | None = None) -> pd.DataFrame:
    """Paired significance tests between every pair of systems for one measure.

    Returns a tidy frame: system_a, system_b, measure, test, statistic, difference, p_value,
    p_holm, p_bh, n_resamples, detail - one row per pair (a before b in system order) and test
    (:func:`evalreport.analyses.engine.pairwise_tests`). ``difference`` is the oriented difference
    of the test's measure (a better: > 0); for the bootstrap and randomisation tests it is also the
    ``statistic``. ``n_resamples`` is B for the bootstrap and R for the randomisation test (the
    count of defined resamples). ``data``: a :class:`~evalreport.inputs.Runs` or a
    :class:`~evalreport.counts.bigdata.PatternCounts`. ``strata``: the bootstrap test's
    resamples, as for :func:`bootstrap`.
    """
    _check_data(data)
    R = _check_count(n_resamples, "n_resamples")
    tests = (tests,) if isinstance(tests, str) else tuple(tests)
    unknown = [t for t in tests if t not in TESTS]
    if unknown or not tests:
        raise InputError(f"unknown test(s) {', '.join(map(repr, unknown)) or '(none given)'}; "
                         f"choose from {', '.join(TESTS)}")
    design, positive = _design(data, positive, costs, policy, strata)
    (m,) = _measures([measure], positive, costs, design.labels)
    boot_rng, rand_rng = design.streams(seed)
    n_random = sum(t in ("bootstrap", "randomization") for t in tests)
    total = R * n_random
    value = design.point([m])[:, 0]
    samples = None
    done = 0
    if "bootstrap" in tests:
        tick = None if progress is None else (lambda d, _t: progress(d, total))
        samples = design.resample([m], R, boot_rng, tick)[..., 0]
        done = R
    tick = None if progress is None else (lambda k, n: progress(done + R * k // n, total))
    return pairwise_tests(design, m, value, tests=tests, samples=samples, rounds=R, rng=rand_rng,
                          progress=tick)
