"""The comparison engine: one implementation of the resampling analyses for every kind of counts.

Whatever is counted, a comparison asks how uncertain each score is (percentile intervals of a
paired bootstrap), how likely each rank is (``P(rank = k)``, ``P(best)``), which pairs of systems
differ (paired tests, Holm and Benjamini-Hochberg corrections) and which systems the chosen test
separates (groups and letters). This module answers them once; how items are counted, resampled
and swapped is a :class:`Design`: :class:`evalreport.analyses.resampling.ConfusionDesign` (single
labels) and :class:`evalreport.analyses.multilabel.LabelSetDesign` (label sets). The tests of the
``pairwise`` table (columns :data:`PAIRWISE_COLUMNS`) are defined in
:mod:`evalreport.analyses.significance`: the paired bootstrap test, approximate randomisation
(Noreen 1989; pairs drawn in the order of their sorted system names, so that reordering or
renaming systems changes no number) and McNemar's test (McNemar 1947; Edwards 1948).
"""
from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np
import pandas as pd

from evalreport.analyses.clusters import clustered_mcnemar
from evalreport.analyses.equivalence import corrected_equivalence, verdicts
from evalreport.analyses.resampling_patterns import DRAW_BUDGET
from evalreport.analyses.significance import (
    ROUND_DECIMALS,
    benjamini_hochberg,
    bootstrap_p,
    centred_p,
    groups,
    holm,
    mcnemar,
)

__all__ = ["Design", "PAIRWISE_COLUMNS", "TESTS", "RANDOMIZATION_MAX_PAIRS", "intervals", "pairwise_tests",
           "randomization_p", "resampled", "Resampled"]

Progress = Callable[[int, int], None] | None

TESTS = ("bootstrap", "randomization", "mcnemar")

PAIRWISE_COLUMNS = ["system_a", "system_b", "measure", "test", "statistic", "difference", "p_value", "p_holm",
                    "p_bh", "n_resamples", "detail", "p_equivalence", "verdict"]

#: Approximate randomisation (a cross-check beside the bootstrap test) costs rounds x pairs
#: measure evaluations: it runs for at most this many pairs unless it is the test the letters use.
RANDOMIZATION_MAX_PAIRS = 300


class Design(Protocol):
    """What the engine needs to know about one kind of counts.

    A design holds the item-level data of S systems (or a lossless summary, such as item patterns
    with counts) and measures it; the engine never looks at items. A new kind of counts (scores
    for ROC AUC, clustered items, ...) is a new class with these members and no engine change.
    Its obligations: arrays in the order of :attr:`systems` and of the ``measures`` passed in;
    :meth:`resample` draws the SAME items for every system (paired); :meth:`swap_differences`
    exchanges two systems' outputs per resampling unit (item, or cluster) with probability 1/2
    (exchangeability under the null hypothesis); random numbers only from the generators of
    :meth:`streams`, so that a seed fixes every number. Optional members: ``cluster_right()``, the
    ``(S, C)`` items of each cluster each system gets right, or None (clustered items: McNemar's test
    becomes the clustered test of Durkalski et al. 2003), ``swap_unit``, what the randomisation test
    swaps in words (default ``"discordant item"``), and ``pair_test(measure, a, b)``, the paired bootstrap
    test's own ``(B, P)`` differences and ``(P,)`` degrees of freedom, or None (several runs per system:
    :meth:`evalreport.analyses.seeds.SeedsDesign.pair_test`).

    Attributes
    ----------
    kind : str
        ``"single"``, ``"multilabel"``, or a new design's name.
    systems : tuple of str
        The systems, in the order of every array.
    n_items : int
        Items (the denominator of McNemar's ``difference``).
    mcnemar_measure : str
        The measure whose per-item correctness :meth:`correct` returns.
    interval_columns : mapping
        Extra constant columns of the intervals table, known after :meth:`resample`.
    """

    kind: str
    systems: tuple[str, ...]
    n_items: int
    mcnemar_measure: str

    @property
    def interval_columns(self) -> Mapping[str, object]:
        """Extra constant columns of the intervals table, known after :meth:`resample`."""

    def streams(self, seed: int) -> tuple[np.random.Generator, np.random.Generator]:
        """The generators of the bootstrap and of the randomisation test."""

    def direction(self, measure) -> bool:
        """Whether higher values of ``measure`` are better."""

    def point(self, measures: Sequence) -> np.ndarray:
        """``(S, M)`` values on all items."""

    def resample(self, measures: Sequence, n_resamples: int, rng: np.random.Generator,
                 progress: Progress = None) -> np.ndarray:
        """``(B, S, M)`` values on B paired bootstrap resamples; ``progress(done, B)``."""

    def swap_differences(self, measure, first: np.ndarray, second: np.ndarray, rounds: int,
                         rng: np.random.Generator, progress: Progress = None) -> np.ndarray:
        """``(R, P)`` oriented differences (> 0: ``first[p]`` better) after each of R rounds of
        random exchanges, pairs in the order given (it fixes the draws); ``progress(pairs, P)``."""

    def correct(self) -> tuple[np.ndarray, np.ndarray]:
        """``(S, U)`` per unit (item or pattern) whether each system is right, and ``(U,)`` unit weights."""


# ----------------------------------------------------------------------------- intervals and ranks


def _rank_key(values: np.ndarray, higher_is_better: bool) -> np.ndarray:
    """Values turned so that larger is better, NaN lowest, rounded for tie detection."""
    v = np.round(np.asarray(values, dtype=float), ROUND_DECIMALS)
    v = v if higher_is_better else -v
    return np.where(np.isnan(v), -np.inf, v)


def _rank_probabilities(values: np.ndarray, higher_is_better: bool) -> np.ndarray:
    """``(S, S)`` with ``[s, k]`` = P(system s has rank k+1) over the rows of ``values`` (B, S).

    Within each resample systems are ranked in the measure's direction, an undefined (NaN) value
    below every defined one; a tie of t systems over positions r..r+t-1 gives each probability 1/t
    at each of them (the expected rank is the average rank; each system's probabilities sum to 1).
    Values are compared at 12 decimals, so equal values reached by other float paths still tie."""
    B, S = values.shape
    acc = np.zeros(S * (S + 1), dtype=float)
    step = max(1, DRAW_BUDGET // (S * S))
    for start in range(0, B, step):
        y = _rank_key(values[start:start + step], higher_is_better)       # (b, S)
        above = (y[:, None, :] > y[:, :, None]).sum(axis=-1)             # systems strictly better than s
        tied = (y[:, None, :] == y[:, :, None]).sum(axis=-1)             # tied with s, itself included
        base = np.arange(S) * (S + 1)
        w = 1.0 / tied
        acc += np.bincount((base + above).ravel(), weights=w.ravel(), minlength=S * (S + 1))
        acc -= np.bincount((base + above + tied).ravel(), weights=w.ravel(), minlength=S * (S + 1))
    return np.cumsum(acc.reshape(S, S + 1), axis=1)[:, :S] / B


def intervals(samples: np.ndarray, point: np.ndarray, systems: Sequence[str], ids: Sequence[str],
              directions: Sequence[bool], *, level: float,
              columns: Mapping[str, object] | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Percentile intervals and rank distributions of paired bootstrap values, for any design.

    Parameters
    ----------
    samples : ndarray
        ``(B, S, M)`` values on B resamples (NaN where undefined).
    point : ndarray
        ``(S, M)`` values on all items.
    systems, ids : sequence of str
        The S systems and M measure ids, in the order of the arrays.
    directions : sequence of bool
        Per measure, whether higher is better (ranks).
    level : float
        Interval level (0.95: the 2.5% and 97.5% percentiles).
    columns : mapping, optional
        Extra constant columns of the intervals table.

    Returns
    -------
    intervals : DataFrame
        system, measure, value, lo, hi, se (standard deviation of the defined resampled values),
        nan_fraction (share of resamples where the value is undefined), then ``columns``;
        measure-major rows.
    rank_distribution : DataFrame
        system, measure, rank (1..S), probability; a tie over t positions gives 1/t to each.
    """
    B, S, M = samples.shape
    half = (1.0 - float(level)) / 2.0
    nan = np.isnan(samples)
    defined = (~nan).sum(axis=0)
    with np.errstate(all="ignore"), warnings.catch_warnings():     # all-NaN columns: NaN, not a warning
        warnings.simplefilter("ignore", RuntimeWarning)
        lo, hi = np.nanquantile(samples, [half, 1.0 - half], axis=0)
        se = np.nanstd(samples, axis=0, ddof=1) if B > 1 else np.full((S, M), np.nan)
    se = np.where(defined > 1, se, np.nan)
    names = np.asarray(systems, dtype=object)
    id_array = np.asarray(list(ids), dtype=object)
    table = pd.DataFrame({"system": np.tile(names, M), "measure": np.repeat(id_array, S), "value": point.T.ravel(),
                          "lo": lo.T.ravel(), "hi": hi.T.ravel(), "se": se.T.ravel(),
                          "nan_fraction": (nan.sum(axis=0) / B).T.ravel(), **dict(columns or {})})
    probs = np.stack([_rank_probabilities(samples[:, :, j], bool(h)) for j, h in enumerate(directions)])
    ranks = pd.DataFrame({"system": np.tile(np.repeat(names, S), M), "measure": np.repeat(id_array, S * S),
                          "rank": np.tile(np.arange(1, S + 1), S * M), "probability": probs.ravel()})
    return table, ranks


# ----------------------------------------------------------------------------- pairwise tests


def randomization_p(differences: np.ndarray, observed: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The approximate randomisation test's two-sided p-values (Noreen 1989), per pair.

    Parameters
    ----------
    differences : ndarray
        ``(R, P)`` oriented differences after each round of random exchanges (NaN: undefined).
    observed : ndarray
        ``(P,)`` observed oriented differences.

    Returns
    -------
    p : ndarray
        ``(1 + #{r : |d_r| >= |d|}) / (1 + R_defined)``, values compared at 12 decimals; NaN for
        a NaN observed difference.
    n : ndarray
        ``R_defined``, the rounds with a defined difference.
    """
    return centred_p(np.asarray(differences, dtype=float), np.asarray(observed, dtype=float), centre=False)


def _canonical_pairs(systems: Sequence[str] | np.ndarray, a: np.ndarray,
                     b: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(first, second, flip, order)``: each pair oriented and ordered by sorted system names
    (so the randomisation draws do not depend on the order or the labels of the systems)."""
    names = np.asarray(systems, dtype=object).astype(str)
    S = names.shape[0]
    rank = np.empty(S, dtype=np.int64)
    rank[np.lexsort((np.arange(S), names))] = np.arange(S)
    flip = rank[a] > rank[b]
    first = np.where(flip, b, a)
    second = np.where(flip, a, b)
    order = np.lexsort((rank[second], rank[first]))
    return first[order], second[order], order


def _bootstrap_rows(design: Design, measure, samples: np.ndarray | None, a: np.ndarray, b: np.ndarray, sign: float,
                    observed: np.ndarray) -> tuple[tuple[np.ndarray, np.ndarray, np.ndarray] | None, str | list[str]]:
    """The paired bootstrap test's ``(p, n, se)`` and its detail: on ``samples`` with the normal approximation,
    or on what the design's optional ``pair_test(measure, a, b)`` gives, ``(B, P)`` differences ``a - b``
    and ``(P,)`` degrees of freedom of their variance (Student's t where finite; several runs per system)."""
    if samples is None:
        return None, ""
    hook = getattr(design, "pair_test", None)
    pair = None if hook is None else hook(measure, a, b)
    if pair is not None and np.shape(pair[0])[0] != samples.shape[0]:     # not the resamples given: ignore
        pair = None
    if pair is None:
        return bootstrap_p(sign * (samples[:, a] - samples[:, b]), observed), "paired bootstrap, normal approximation"
    diffs, df = pair
    df = np.asarray(df, dtype=float)
    detail = ["paired bootstrap, normal approximation" if not np.isfinite(x)
              else f"paired bootstrap, t with {x:.1f} df (Welch-Satterthwaite)" for x in df]
    return bootstrap_p(sign * np.asarray(diffs, dtype=float), observed, df=df), detail


def pairwise_tests(design: Design, measure, value: np.ndarray, *, tests: Sequence[str] = TESTS,
                   samples: np.ndarray | None = None, rounds: int = 0, rng: np.random.Generator | None = None,
                   progress: Progress = None, margin: float | None = None, alpha: float = 0.05) -> pd.DataFrame:
    """Every pair of systems (a before b in system order) under each test: the ``pairwise`` table.

    Parameters
    ----------
    design : Design
        The counts.
    measure : Measure or str
        The measure of the bootstrap and randomisation tests.
    value : ndarray
        ``(S,)`` its values on all items.
    tests : sequence of str
        Among :data:`TESTS`.
    samples : ndarray, optional
        ``(B, S)`` its values on the paired bootstrap resamples (needed for ``bootstrap``).
    rounds : int
        R, the rounds of the randomisation test (0: no randomisation rows).
    rng : Generator, optional
        The randomisation test's generator.
    progress : callable, optional
        ``progress(done, total)`` over the randomisation rounds x pairs.
    margin : float, optional
        The equivalence margin D in the measure's units (None: ``verdict`` empty, no equivalence
        claims; :mod:`evalreport.analyses.equivalence`).
    alpha : float
        The level of the verdicts.

    Returns
    -------
    DataFrame
        :data:`PAIRWISE_COLUMNS`; Holm and Benjamini-Hochberg corrections across the pairs of each
        test; with a margin, ``p_equivalence`` and ``verdict`` on the rows of ``measure``.
    """
    S = len(design.systems)
    a, b = np.triu_indices(S, 1)
    names = np.asarray(design.systems, dtype=object)
    sign = 1.0 if design.direction(measure) else -1.0
    observed = sign * (value[a] - value[b])
    mid = getattr(measure, "id", measure)

    boot, boot_detail = _bootstrap_rows(design, measure, samples, a, b, sign, observed)
    se = None if boot is None else boot[2]
    if margin is not None and samples is not None and not isinstance(boot_detail, str):
        # the design's own test (a detail per pair): the equivalence test keeps the se of the samples given
        se = bootstrap_p(sign * (samples[:, a] - samples[:, b]), observed)[2]
    p_equiv = (np.full(a.shape, np.nan) if margin is None or se is None
               else corrected_equivalence(observed, se, margin))

    def frame(test, meas, stat, diff, p, n, detail):
        p = np.asarray(p, dtype=float)
        on_measure = margin is not None and meas == mid
        return pd.DataFrame({
            "system_a": names[a], "system_b": names[b], "measure": meas, "test": test,
            "statistic": np.asarray(stat, dtype=float), "difference": np.asarray(diff, dtype=float),
            "p_value": p, "p_holm": holm(p), "p_bh": benjamini_hochberg(p),
            "n_resamples": np.asarray(n, dtype=np.int64), "detail": detail,
            "p_equivalence": p_equiv if on_measure else np.nan,
            "verdict": verdicts(holm(p), p_equiv, alpha) if on_measure else ""}, columns=PAIRWISE_COLUMNS)

    frames = []
    for test in tests:
        if test == "bootstrap":
            if boot is None:
                raise ValueError("the paired bootstrap test needs the bootstrap values (samples)")
            p, n, _ = boot
            frames.append(frame(test, mid, observed, observed, p, n, boot_detail))
        elif test == "randomization" and rounds > 0:
            if rng is None:
                raise ValueError("the randomisation test needs a generator (rng)")
            first, second, order = _canonical_pairs(names, a, b)
            d = design.swap_differences(measure, first, second, rounds, rng, progress)       # (R, P) canonical
            p_c, n_c = randomization_p(d, np.abs(observed[order]))
            p, n = np.empty_like(p_c), np.empty_like(n_c)
            p[order], n[order] = p_c, n_c
            frames.append(frame(test, mid, observed, observed, p, n,
                                f"approximate randomisation, swap per {getattr(design, 'swap_unit', 'discordant item')} "
                                "with prob. 1/2"))
        elif test == "mcnemar":
            correct, weight = design.correct()
            correct = np.asarray(correct, dtype=float)
            both = (correct * weight) @ correct.T                                # right on both
            right = correct @ weight
            nb = np.rint(right[a] - both[a, b]).astype(np.int64)                # a right, b wrong
            nc = np.rint(right[b] - both[a, b]).astype(np.int64)                # a wrong, b right
            per_cluster = getattr(design, "cluster_right", None)
            right_k = per_cluster() if per_cluster is not None else None
            if right_k is not None:        # clustered items: Durkalski et al. (2003), not McNemar's
                stat, p = clustered_mcnemar(right_k, a, b)
                detail = [f"clustered McNemar (Durkalski et al. 2003), {right_k.shape[1]} clusters, b={x}, c={y}"
                          for x, y in zip(nb, nc)]
            else:
                stat, p, exact = mcnemar(nb, nc)
                detail = [f"{'exact binomial' if e else 'chi2 with continuity correction'}, b={x}, c={y}"
                          for e, x, y in zip(exact, nb, nc)]
            diff = (nb - nc) / design.n_items if design.n_items else np.full(nb.shape, np.nan)
            frames.append(frame(test, design.mcnemar_measure, stat, diff, p, 0, detail))
    if not frames:
        return pd.DataFrame(columns=PAIRWISE_COLUMNS)
    return pd.concat(frames, ignore_index=True)


# ----------------------------------------------------------------------------- one comparison


@dataclass(frozen=True, eq=False)
class Resampled:
    """The resampling tables of one comparison (empty with their columns when not computed), the
    ``(B, S, M)`` bootstrap values and the notes for the manifest."""

    intervals: pd.DataFrame
    rank_distribution: pd.DataFrame
    pairwise: pd.DataFrame
    groups: pd.DataFrame
    samples: np.ndarray
    notes: list[str]


def resampled(design: Design, measures: Sequence, point: np.ndarray, *, bootstrap: int, seed: int, alpha: float,
              rounds: int, pairwise_test: str, order: Sequence[str], progress: Progress = None,
              margin: float | None = None, tests: Sequence[str] | None = None) -> Resampled:
    """Intervals, rank distributions, pairwise tests and groups of one comparison, for any design.

    Parameters
    ----------
    design : Design
        The counts.
    measures : sequence
        Measure records, the primary first (the tests are on it).
    point : ndarray
        ``(S, M)`` values on all items.
    bootstrap : int
        B, paired bootstrap resamples (> 0).
    seed : int
        Seed of :meth:`Design.streams`.
    alpha : float
        Test level; intervals at ``1 - alpha``.
    rounds : int
        R, randomisation rounds (0: none).
    pairwise_test : str
        The test whose Holm-corrected p-values make the groups and letters.
    order : sequence of str
        The systems best first under the primary measure (the letters' order).
    progress : callable, optional
        ``progress(done, total)``: over the bootstrap resamples, then the randomisation rounds.
    margin : float, optional
        The equivalence margin of the primary measure (:func:`pairwise_tests`).
    tests : sequence of str
        The pairwise tests to run, among :data:`TESTS` (default: the design's ``tests``, else all).

    Returns
    -------
    Resampled
    """
    systems = design.systems
    S = len(systems)
    boot_rng, rand_rng = design.streams(seed)
    if hasattr(design, "interval_level"):      # a design whose resamples are calibrated at the interval level
        design.interval_level = 1.0 - alpha
    samples = design.resample(measures, bootstrap, boot_rng, progress)
    directions = [design.direction(m) for m in measures]
    table, ranks = intervals(samples, point, systems, [m.id for m in measures], directions, level=1 - alpha,
                             columns=design.interval_columns)
    notes: list[str] = []
    pair_table = pd.DataFrame(columns=PAIRWISE_COLUMNS)
    group_table = pd.DataFrame(columns=["system", "group", "leader", "letters"])
    if S > 1:
        n_pairs = S * (S - 1) // 2
        run_tests = tuple(tests if tests is not None else getattr(design, "tests", TESTS))   # a design may offer fewer
        if rounds > 0 and n_pairs > RANDOMIZATION_MAX_PAIRS and pairwise_test != "randomization":
            run_tests = tuple(t for t in run_tests if t != "randomization")
            notes.append(f"approximate randomisation, a cross-check of the bootstrap test, is run for at most "
                         f"{RANDOMIZATION_MAX_PAIRS} pairs of systems; these {S} systems have "
                         f"{n_pairs:,} pairs, so the pairwise table holds the paired bootstrap and McNemar tests")
        step = None if progress is None else (lambda k, n: progress(rounds * k // max(n, 1), rounds))
        pair_table = pairwise_tests(design, measures[0], point[:, 0], tests=run_tests, samples=samples[:, :, 0],
                                    rounds=rounds, rng=rand_rng, progress=step, margin=margin, alpha=alpha)
        if (pair_table["test"] == pairwise_test).any():
            group_table = groups(pair_table, alpha=alpha, test=pairwise_test, order=order)
    return Resampled(table, ranks, pair_table, group_table, samples, notes)
