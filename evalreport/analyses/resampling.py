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

The pieces live in sibling modules, and every name is importable from here:
:mod:`evalreport.analyses.resampling_patterns` (the items reduced to patterns, resamples drawn as
pattern counts, their confusion tensors), :mod:`evalreport.analyses.significance` (the tests'
p-values, Holm and Benjamini-Hochberg, p floors, :func:`groups`) and
:mod:`evalreport.analyses.randomization` (the approximate randomisation test). This module runs
the bootstrap and the pairwise tests, in blocks of resamples sized to memory.

Measures on resamples
---------------------
The ``(b, S, K, K)`` stack of a block of resamples (:func:`resampled_confusions`) goes through
:func:`evalreport.measures.compute` once per measure (``explain=False``), so every measure in
the registry works, including non-decomposable ones (F1, MCC, kappa, K). With folds the
measure is computed on the tensor pooled over folds (the counts-pooling F_tp,fp of
Forman & Scholz 2010, section 3); only the resampling is done within folds, so every
resample keeps the fold sizes.

Ranks
-----
Within each resample, systems are ranked per measure in the measure's direction
(``Measure.higher_is_better``); an undefined (NaN) value ranks below every defined value. A
tie of t systems over positions r..r+t-1 gives each of them probability 1/t at each of those
positions: the expected rank is then the average rank, and the probabilities over k = 1..S
sum to 1 for every system. Values are compared after rounding to 12 decimals, so that equal
values reached through different floating-point paths still tie.

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
from typing import Callable

import numpy as np
import pandas as pd

from evalreport.errors import InputError, MeasureError
from evalreport.counts.pattern_counts import PatternCounts
from evalreport.inputs.runs import Runs
from evalreport.measures import Measure, applicable, bind, compute, default_measures, resolve_positive
from evalreport.analyses.resampling_patterns import (_DRAW_BUDGET, _ITEM_DRAW_RATIO, _TENSOR_BUDGET,  # noqa: F401
                                                     STRATA, Patterns, _draw_plan, _draw_weights, _draw_work,
                                                     patterns, resampled_confusions)
from evalreport.analyses.significance import (_ROUND, CORRECTIONS, MCNEMAR_EXACT_BELOW, _centred_p,  # noqa: F401
                                              benjamini_hochberg, bootstrap_p, groups, holm, mcnemar, p_floor,
                                              resamples_needed)
from evalreport.analyses.randomization import _random_bits, _randomization, _swap_units  # noqa: F401

__all__ = ["bootstrap", "BootstrapResult", "pairwise", "groups", "holm", "benjamini_hochberg",
           "mcnemar", "Patterns", "patterns", "resampled_confusions", "TESTS", "CORRECTIONS", "STRATA",
           "lost_classes_sentence",
           "MCNEMAR_EXACT_BELOW", "p_floor", "resamples_needed"]

TESTS = ("bootstrap", "randomization", "mcnemar")
_TENSOR_CAP = 2 ** 24             # at most this many elements of (b, S, K, K) tensors at once (also memory-bound)

Progress = Callable[[int, int], None] | None


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
                     gold_absent: np.ndarray | None = None) -> np.ndarray:
    """``(B, S, M)`` values of every measure on B paired bootstrap resamples (drawn within the
    folds, or with ``strata="gold"`` within the gold classes of each fold). ``gold_absent``: a
    ``(B, K)`` bool array, filled with which gold classes each resample lacks."""
    S, K, P = pat.n_systems, pat.n_classes, pat.n_patterns
    B = n_resamples
    out = np.empty((B, S, len(measures)), dtype=float)
    plan = _draw_plan(pat, strata)
    b_draw = max(1, min(B, _DRAW_BUDGET // max(pat.n_items, P, 1)))
    # blocks of resamples handed to compute(): within the tensor budget, and at least ~10 blocks
    # so that progress is reported while a long run goes on
    b_tensor = max(b_draw, min(B, _TENSOR_BUDGET // (S * K * K), -(-B // 10)))
    # the blocks above fix the order of the random draws (so the results of a seed); the tensors
    # themselves are made and measured at most `rows` resamples at a time, so that memory bounds
    # the block and a larger K costs time, not memory (every row is measured on its own: the
    # values do not depend on `rows`)
    rows = _rows_in_memory(S * K * K)
    kw = dict(positive=positive, policy=policy, costs=costs, explain=False, task=task)
    work = _draw_work(pat, b_draw)
    for start in range(0, B, b_tensor):
        stop = min(B, start + b_tensor)
        if stop - start <= rows:
            T = np.empty((stop - start, S, K, K), dtype=float)
            for s0 in range(start, stop, b_draw):
                s1 = min(stop, s0 + b_draw)
                T[s0 - start:s1 - start] = resampled_confusions(pat, _draw_weights(pat, rng, s1 - s0, plan, work), A)
            if gold_absent is not None:
                gold_absent[start:stop] = T[:, 0].sum(axis=-1) == 0       # gold class sizes: any system's rows
            for j, m in enumerate(measures):
                out[start:stop, :, j] = compute(m, T, **kw).value
            del T
        else:
            for s0 in range(start, stop, b_draw):
                s1 = min(stop, s0 + b_draw)
                W = _draw_weights(pat, rng, s1 - s0, plan, work)
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
    """Bytes this process may still allocate: the least of the free memory, the cgroup's room and the
    address-space limit (``ulimit -v``) left; 2 GiB when none can be read."""
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
    """Resamples whose ``(b, S, K, K)`` tensors (``cells`` = S*K*K each) are made and measured at once:
    a block of at most 1/32 of the available memory (the measures make a few temporaries of its size)
    and of at most ``_TENSOR_CAP`` elements; at least one."""
    budget = min(_TENSOR_CAP, _available_memory() // (32 * 8))
    return max(1, budget // max(cells, 1))


def _rank_key(values: np.ndarray, higher_is_better: bool) -> np.ndarray:
    """Values turned so that larger is better, NaN lowest, rounded for tie detection."""
    v = np.round(np.asarray(values, dtype=float), _ROUND)
    v = v if higher_is_better else -v
    return np.where(np.isnan(v), -np.inf, v)


def _rank_probabilities(values: np.ndarray, higher_is_better: bool) -> np.ndarray:
    """``(S, S)`` with ``[s, k]`` = P(system s has rank k+1) over the rows of ``values`` (B, S);
    a tie over t positions spreads 1/t to each."""
    B, S = values.shape
    acc = np.zeros(S * (S + 1), dtype=float)
    step = max(1, _DRAW_BUDGET // (S * S))
    for start in range(0, B, step):
        y = _rank_key(values[start:start + step], higher_is_better)       # (b, S)
        above = (y[:, None, :] > y[:, :, None]).sum(axis=-1)             # systems strictly better than s
        tied = (y[:, None, :] == y[:, :, None]).sum(axis=-1)             # tied with s, itself included
        base = np.arange(S) * (S + 1)
        w = 1.0 / tied
        acc += np.bincount((base + above).ravel(), weights=w.ravel(), minlength=S * (S + 1))
        acc -= np.bincount((base + above + tied).ravel(), weights=w.ravel(), minlength=S * (S + 1))
    return np.cumsum(acc.reshape(S, S + 1), axis=1)[:, :S] / B


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
    return _bootstrap(data, measures, n_resamples=n_resamples, seed=seed, positive=positive, policy=policy,
                      costs=costs, level=level, progress=progress, strata=strata)[0]


def _bootstrap(data, measures=None, *, n_resamples: int = 1000, seed: int | None = 0, positive=None,
               policy: str = "nan", costs=None, level: float = 0.95, progress: Progress = None,
               strata: str | None = None):
    """:func:`bootstrap`, and the patterns and indicator it made (``(result, pat, A)``), which
    :func:`_pairwise` takes instead of making them again."""
    runs = _check_data(data)
    B = _check_count(n_resamples, "n_resamples")
    if not 0.0 < float(level) < 1.0:
        raise InputError(f"level must lie strictly between 0 and 1; got {level!r}")
    if strata not in STRATA:
        raise InputError(f"unknown bootstrap strata {strata!r}; choose 'gold' (or none)")
    if positive is not None:
        positive = resolve_positive(positive, runs.labels, len(runs.labels))
    chosen = _measures(measures, positive, costs, runs.labels)
    pat = patterns(runs)
    A = pat.indicator()
    kw = dict(positive=positive, policy=policy, costs=costs, task=getattr(runs, "n_task", None))
    point = _point_values(pat, chosen, A, **kw)                                   # (S, M)
    rng, _ = _streams(seed)
    gold_absent = np.zeros((B, pat.n_classes), dtype=bool)
    samples = _resample_values(pat, chosen, B, rng, A, progress=progress, strata=strata,
                               gold_absent=gold_absent, **kw)                     # (B, S, M)
    in_data = np.bincount(pat.gold, weights=pat.counts, minlength=pat.n_classes) > 0
    lost = gold_absent & in_data
    per_class = lost.sum(axis=0)
    class_absent = tuple((str(runs.labels[k]), int(per_class[k])) for k in np.flatnonzero(per_class))
    n_missing = int(lost.any(axis=1).sum())

    S, M = point.shape
    alpha = (1.0 - float(level)) / 2.0
    nan = np.isnan(samples)
    defined = (~nan).sum(axis=0)
    with np.errstate(all="ignore"), _quiet():
        lo, hi = np.nanquantile(samples, [alpha, 1.0 - alpha], axis=0)
        se = np.nanstd(samples, axis=0, ddof=1) if B > 1 else np.full((S, M), np.nan)
    se = np.where(defined > 1, se, np.nan)
    systems = np.asarray(runs.systems, dtype=object)
    ids = np.asarray([m.id for m in chosen], dtype=object)
    # measure-major rows: for each measure, every system
    intervals = pd.DataFrame({
        "system": np.tile(systems, M), "measure": np.repeat(ids, S),
        "value": point.T.ravel(), "lo": lo.T.ravel(), "hi": hi.T.ravel(), "se": se.T.ravel(),
        "nan_fraction": (nan.sum(axis=0) / B).T.ravel(), "resamples_missing_class": n_missing,
    })
    probs = np.stack([_rank_probabilities(samples[:, :, j], m.higher_is_better) for j, m in enumerate(chosen)])
    rank_distribution = pd.DataFrame({
        "system": np.tile(np.repeat(systems, S), M), "measure": np.repeat(ids, S * S),
        "rank": np.tile(np.arange(1, S + 1), S * M), "probability": probs.ravel(),
    })
    return BootstrapResult(intervals=intervals, rank_distribution=rank_distribution, samples=samples,
                           n_resamples=B, seed=seed, level=float(level), systems=tuple(runs.systems),
                           measures=tuple(ids.tolist()), class_absent=class_absent, n_missing_class=n_missing,
                           strata=strata), pat, A


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


class _quiet:
    """Silence the 'All-NaN slice' and 'degrees of freedom' warnings of nan-aware reductions."""

    def __enter__(self):
        import warnings

        self._ctx = warnings.catch_warnings()
        self._ctx.__enter__()
        warnings.simplefilter("ignore", RuntimeWarning)

    def __exit__(self, *exc):
        return self._ctx.__exit__(*exc)


# ----------------------------------------------------------------------------- pairwise



def pairwise(data, measure, *, n_resamples: int = 1000, seed: int | None = 0, tests=TESTS, positive=None,
             policy: str = "nan", costs=None, progress: Progress = None, strata: str | None = None) -> pd.DataFrame:
    """Paired significance tests between every pair of systems for one measure.

    Returns a tidy frame: system_a, system_b, measure, test, statistic, difference, p_value,
    p_holm, p_bh, n_resamples, detail - one row per pair (a before b in system order) and test.
    ``difference`` is the oriented difference of the test's measure (a better: > 0); for the
    bootstrap and randomisation tests it is also the ``statistic``. See the module docstring for
    the tests. ``n_resamples`` is B for the bootstrap and R for the randomisation test (the
    count of defined resamples is in the ``n_resamples`` column). ``data``: a
    :class:`~evalreport.inputs.Runs` or a :class:`~evalreport.counts.bigdata.PatternCounts`.
    ``strata``: the bootstrap test's resamples, as for :func:`bootstrap`.
    """
    return _pairwise(data, measure, n_resamples=n_resamples, seed=seed, tests=tests, positive=positive,
                     policy=policy, costs=costs, progress=progress, strata=strata)


def _pairwise(data, measure, *, n_resamples, seed, tests=TESTS, positive=None, policy="nan", costs=None,
              progress: Progress = None, samples=None, pat=None, A=None, strata: str | None = None) -> pd.DataFrame:
    """:func:`pairwise`; ``samples``: the measure's ``(B, S)`` values on the paired bootstrap
    resamples that :func:`bootstrap` drew from the same data, seed, count and settings (the
    bootstrap test's resamples are those: same stream, same blocks), used instead of drawing them
    again (:func:`evalreport.analyses.compare.compare` has them already); ``pat`` and ``A``: the
    patterns of ``data`` and their indicator, from :func:`_bootstrap` (made here when not given)."""
    runs = _check_data(data)
    R = _check_count(n_resamples, "n_resamples")
    if strata not in STRATA:
        raise InputError(f"unknown bootstrap strata {strata!r}; choose 'gold' (or none)")
    tests = (tests,) if isinstance(tests, str) else tuple(tests)
    unknown = [t for t in tests if t not in TESTS]
    if unknown or not tests:
        raise InputError(f"unknown test(s) {', '.join(map(repr, unknown)) or '(none given)'}; "
                         f"choose from {', '.join(TESTS)}")
    if positive is not None:
        positive = resolve_positive(positive, runs.labels, len(runs.labels))
    (m,) = _measures([measure], positive, costs, runs.labels)
    kw = dict(positive=positive, policy=policy, costs=costs, task=getattr(runs, "n_task", None))
    S = len(runs.systems)
    a_idx, b_idx = np.triu_indices(S, 1)
    names = np.asarray(runs.systems, dtype=object)
    if pat is None:
        pat = patterns(runs)
        A = pat.indicator()
    C = resampled_confusions(pat, pat.counts[None, :], A)[0]                      # (S, K, K) pooled
    value = compute(m, C, **kw).value
    sign = 1.0 if m.higher_is_better else -1.0
    observed = sign * (value[a_idx] - value[b_idx])
    boot_rng, rand_rng = _streams(seed)
    n_random = sum(t in ("bootstrap", "randomization") for t in tests)
    total = R * n_random
    frames = []

    def frame(test, meas, stat, diff, p, n, detail):
        p = np.asarray(p, dtype=float)
        return pd.DataFrame({
            "system_a": names[a_idx], "system_b": names[b_idx], "measure": meas, "test": test,
            "statistic": np.asarray(stat, dtype=float), "difference": np.asarray(diff, dtype=float),
            "p_value": p, "p_holm": holm(p), "p_bh": benjamini_hochberg(p),
            "n_resamples": np.asarray(n, dtype=np.int64), "detail": detail})

    done = 0
    for test in tests:
        if test == "bootstrap":
            if samples is None:
                samples = _resample_values(pat, [m], R, boot_rng, A, progress=progress, total=total, strata=strata,
                                           **kw)[..., 0]
            elif progress is not None:
                progress(R, total)
            done += R
            d = sign * (samples[:, a_idx] - samples[:, b_idx])
            p, n, _ = bootstrap_p(d, observed)
            frames.append(frame(test, m.id, observed, observed, p, n, "paired bootstrap, normal approximation"))
        elif test == "randomization":
            # canonical orientation and order of pairs (by system name): relabelling-invariant draws
            rank = np.empty(S, dtype=np.int64)
            rank[np.lexsort((np.arange(S), names.astype(str)))] = np.arange(S)
            flip = rank[a_idx] > rank[b_idx]
            first = np.where(flip, b_idx, a_idx)
            second = np.where(flip, a_idx, b_idx)
            order = np.lexsort((rank[second], rank[first]))
            obs_c = np.where(flip, -observed, observed)[order]
            p_c, n_c = _randomization(pat, m, C, first[order], second[order], obs_c, R, rand_rng,
                                      progress=progress, done=done, total=total, **kw)
            done += R
            p = np.empty_like(p_c)
            n = np.empty_like(n_c)
            p[order], n[order] = p_c, n_c
            frames.append(frame(test, m.id, observed, observed, p, n,
                                "approximate randomisation, swap per discordant item with prob. 1/2"))
        else:
            correct = (pat.pred == pat.gold[None, :]).astype(float)              # (S, P)
            both = (correct * pat.counts) @ correct.T                            # right on both
            right = correct @ pat.counts
            b = np.rint(right[a_idx] - both[a_idx, b_idx]).astype(np.int64)     # a right, b wrong
            c = np.rint(right[b_idx] - both[a_idx, b_idx]).astype(np.int64)     # a wrong, b right
            stat, p, exact = mcnemar(b, c)
            detail = [f"{'exact binomial' if e else 'chi2 with continuity correction'}, b={x}, c={y}"
                      for e, x, y in zip(exact, b, c)]
            frames.append(frame(test, "accuracy", stat, (b - c) / pat.n_items, p, 0, detail))
    return pd.concat(frames, ignore_index=True)
