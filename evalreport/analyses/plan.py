"""How many items a test set needs: power of the paired comparison of two systems, from a pilot.

The test whose power is planned is the one the comparison uses (the paired bootstrap test,
:mod:`evalreport.analyses.significance`): ``z = d / se`` with ``se`` the standard deviation of the
paired difference of the two systems' values over test sets of n items, two-sided at alpha. When
the true difference is D, ``z`` is about normal with mean ``D / se_n`` and variance 1, so

    power(n) = Phi(D / se_n - z_{1 - alpha/2}) + Phi(-D / se_n - z_{1 - alpha/2}).

``se_n`` is measured, not assumed: test sets of n items are drawn from the pilot's items (with
replacement, the two systems' outputs kept together on each item, so the pairing and its
correlation are those of the pilot), and the measure is computed on each; this works for any
measure, including those that are no mean over items (macro F1, MCC). The items needed are the
smallest n with ``power(n) >= target``, with ``se_n = c / sqrt(n)`` and ``c`` the mean of
``se_n sqrt(n)`` at the last two resampled sizes (found by iterating from the pilot's own ``c``:
``se_n sqrt(n)`` is nearly constant, and taking it from sizes near the answer carries what does
change with n, such as a class-averaged measure's small-sample bias), and the smallest detectable
difference of the pilot's own size N is the D with ``power = target`` at ``se_N``.

For accuracy the same test has a closed form: the difference of two paired proportions has
variance ``(psi - delta^2) / n`` with ``psi = p10 + p01`` the share of discordant items, so
``n = (z_{1-alpha/2} + z_{power})^2 (psi - delta^2) / D^2`` (ignoring the far tail).
:func:`connor_items` gives Connor (1987)'s sample size for McNemar's test, whose variance under the
null is ``psi``: ``n = [z_{1-alpha/2} sqrt(psi) + z_{power} sqrt(psi - D^2)]^2 / D^2``; both are
within a few per cent of each other when D^2 is small beside psi.

Clustered pilots
----------------
When the pilot's items come in clusters (``Runs.clusters``, ``--cluster-col``), the comparison
resamples whole clusters (:mod:`evalreport.analyses.clusters`), so the plan does too: test sets of c
clusters are drawn from the pilot's clusters with replacement (each cluster with all its items and
both systems' outputs), ``se_c`` is measured on them, and the answer is the fewest clusters c with
``power(c) >= target``, by the same search with c in place of n; the items that means are c times the
pilot's mean cluster size. Planning items on a clustered pilot as if they were independent asks for
far too few (tested). For accuracy the closed form is the paired-proportions size inflated by the
design effect ``1 + (m - 1) ICC`` (Donner & Klar 2000, ch. 5; Obuchowski 1998), with ICC the one-way
ANOVA estimate of the intraclass correlation of the items' paired differences (right or wrong of the
first system minus that of the second) and ``m = sum_k m_k^2 / N`` (the common size when the clusters
are equal; the exact inflation of the variance of a mean over unequal clusters under a common ICC,
Kish 1965).
"""
from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from evalreport.analyses.resampling_patterns import patterns, resampled_confusions
from evalreport.errors import InputError
from evalreport.measures import compute, get

__all__ = ["Plan", "plan", "power_at", "detectable_difference", "connor_items", "wald_items", "best_two",
           "anova_icc", "cluster_design_effect"]

Progress = Callable[[int, int], None] | None

#: Resampled test sets per size (the standard error of se_n is about se_n / sqrt(2 R): 1.6 % at 2,000).
DEFAULT_RESAMPLES = 2000
#: Draws at one size are made this many test sets at a time (memory: block x patterns counts).
_BLOCK = 500
#: Cluster draws and counts made at once at most (block x max(clusters drawn, clusters); 32 MB each).
_CLUSTER_CELLS = 4_000_000
#: Sizes resampled at most (the pilot's own and the search's): the progress bar's total.
_STEPS = 6


def _z(q: float) -> float:
    """The standard normal quantile."""
    from scipy.special import ndtri

    return float(ndtri(q))


def _phi(x):
    """The standard normal distribution function."""
    from scipy.special import ndtr

    return ndtr(x)


def power_at(se: float, difference: float, alpha: float = 0.05) -> float:
    """Power of the two-sided Wald test at level alpha to detect ``difference`` when its estimate has
    standard error ``se``.

    Parameters
    ----------
    se : float
        Standard error of the paired difference (> 0).
    difference : float
        The true difference D.
    alpha : float
        The level.

    Returns
    -------
    float
        ``Phi(|D| / se - z) + Phi(-|D| / se - z)`` with ``z = z_{1 - alpha/2}``.
    """
    if not se > 0:
        return 1.0 if difference != 0 else float(alpha)
    z = _z(1 - alpha / 2)
    r = abs(float(difference)) / float(se)
    return float(_phi(r - z) + _phi(-r - z))


def detectable_difference(se: float, alpha: float = 0.05, power: float = 0.8) -> float:
    """The smallest difference the two-sided Wald test detects with the given power.

    Parameters
    ----------
    se : float
        Standard error of the paired difference.
    alpha, power : float
        Level and target power.

    Returns
    -------
    float
        The D > 0 with :func:`power_at` ``(se, D, alpha) = power`` (NaN when ``se`` is NaN).
    """
    if not np.isfinite(se):
        return float("nan")
    if se <= 0:
        return 0.0
    lo, hi = 0.0, (_z(1 - alpha / 2) + _z(power) + 1.0) * se
    for _ in range(80):                                   # bisection: power_at is increasing in D
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if power_at(se, mid, alpha) < power else (lo, mid)
    return hi


def connor_items(p10: float, p01: float, difference: float, *, alpha: float = 0.05, power: float = 0.8) -> float:
    """Connor (1987)'s sample size for two paired proportions (McNemar's test), unrounded.

    Parameters
    ----------
    p10, p01 : float
        Shares of discordant items (first system right and second wrong, and the reverse); their sum
        is psi.
    difference : float
        The difference D of the two proportions to detect.
    alpha, power : float
        Two-sided level and target power.

    Returns
    -------
    float
        ``[z_{1-alpha/2} sqrt(psi) + z_{power} sqrt(psi - D^2)]^2 / D^2``.
    """
    psi = float(p10) + float(p01)
    D = abs(float(difference))
    if not 0 < D * D < psi:
        raise InputError(f"the difference {difference:g} must be non-zero with D^2 below the discordant share "
                         f"{psi:g}")
    return (_z(1 - alpha / 2) * math.sqrt(psi) + _z(power) * math.sqrt(psi - D * D)) ** 2 / (D * D)


def wald_items(p10: float, p01: float, difference: float, *, alpha: float = 0.05, power: float = 0.8) -> float:
    """Items the paired Wald test of accuracy needs: ``(z_{1-alpha/2} + z_{power})^2 (psi - delta^2) / D^2``
    with ``delta = p10 - p01`` the pilot's difference (the resampled answer's closed form).

    Parameters
    ----------
    p10, p01 : float
        Shares of discordant items.
    difference : float
        D.
    alpha, power : float
        Two-sided level and target power.

    Returns
    -------
    float
        Unrounded.
    """
    psi, delta, D = float(p10) + float(p01), float(p10) - float(p01), float(difference)
    return (_z(1 - alpha / 2) + _z(power)) ** 2 * (psi - delta * delta) / (D * D)


@dataclass(frozen=True)
class Plan:
    """The answer of :func:`plan`.

    Attributes
    ----------
    measure : str
        The measure's id.
    systems : tuple of str
        The two systems compared.
    difference, power, alpha : float
        The difference to detect, the target power and the level.
    n_pilot : int
        Items in the pilot.
    n_needed : int
        The fewest items with ``power >= target`` (by resampling).
    detectable : float
        The smallest difference detectable at the pilot's size with the target power.
    se_pilot : float
        Standard error of the paired difference at the pilot's size.
    pilot_difference : float
        The two systems' difference on the pilot (first minus second, in the measure's direction).
    curve : DataFrame
        n, se, power: the resampled sizes.
    closed_form : dict
        For accuracy: ``connor`` (Connor 1987) and ``wald`` items, ``p10``, ``p01``; else empty.
    resamples, seed : int
        Test sets per size and the seed.
    cluster_col : str or None
        The gold column of the clusters (None: items are resampled one by one).
    n_clusters_pilot, clusters_needed : int
        With clusters: the pilot's clusters and the fewest clusters with ``power >= target``
        (``n_needed`` is then ``clusters_needed`` times the pilot's mean cluster size, rounded up).
    mean_cluster_size : float
        The pilot's items per cluster (NaN without clusters).
    """

    measure: str
    systems: tuple[str, str]
    difference: float
    power: float
    alpha: float
    n_pilot: int
    n_needed: int
    detectable: float
    se_pilot: float
    pilot_difference: float
    curve: pd.DataFrame
    closed_form: dict
    resamples: int
    seed: int
    cluster_col: str | None = None
    n_clusters_pilot: int = 0
    clusters_needed: int = 0
    mean_cluster_size: float = float("nan")

    def table(self) -> pd.DataFrame:
        """The answer as one row per quantity: quantity, value."""
        rows = [("measure", self.measure), ("system_a", self.systems[0]), ("system_b", self.systems[1]),
                ("pilot_items", self.n_pilot), ("pilot_difference", self.pilot_difference),
                ("difference", self.difference), ("power", self.power), ("alpha", self.alpha),
                ("items_needed", self.n_needed), ("detectable_difference", self.detectable),
                ("se_pilot", self.se_pilot), ("resamples", self.resamples), ("seed", self.seed)]
        if self.cluster_col is not None:
            rows += [("cluster_col", self.cluster_col), ("pilot_clusters", self.n_clusters_pilot),
                     ("mean_cluster_size", self.mean_cluster_size), ("clusters_needed", self.clusters_needed)]
        rows += [(f"closed_form_{k}", v) for k, v in self.closed_form.items()]
        return pd.DataFrame(rows, columns=["quantity", "value"])


def best_two(runs, measure, **kw) -> tuple[str, str]:
    """The two best systems of ``runs`` under ``measure`` (ties: in the order of the systems).

    Parameters
    ----------
    runs : Runs
        The pilot.
    measure : str or Measure
        The measure.
    **kw
        ``positive``, ``policy``, ``task`` of :func:`evalreport.measures.compute`.

    Returns
    -------
    tuple of str
    """
    if runs.n_systems < 2:
        raise InputError(f"plan needs at least two systems; got {runs.n_systems}")
    m = get(measure)
    values = compute(m, _confusion(runs), explain=False, **kw).value
    key = np.where(np.isnan(values), -np.inf, values if m.higher_is_better else -values)
    order = np.argsort(-key, kind="stable")
    return runs.systems[int(order[0])], runs.systems[int(order[1])]


class _Sizes:
    """Paired test sets of n items drawn from the pilot's item patterns of two systems; caches se_n."""

    def __init__(self, runs, measure, resamples: int, seed: int, kw: dict) -> None:
        self.pat = patterns(runs)
        self.A = self.pat.indicator()
        self.p = self.pat.counts / self.pat.counts.sum()
        self.m = measure
        self.R = resamples
        self.seed = seed
        self.kw = kw
        self.sign = 1.0 if measure.higher_is_better else -1.0
        self.cache: dict[int, float] = {}

    def block(self, n: int) -> int:
        """Test sets drawn at a time."""
        return _BLOCK

    def draw(self, rng: np.random.Generator, n: int, b: int) -> np.ndarray:
        """``(b, P)`` pattern counts of b test sets of n items."""
        return rng.multinomial(n, self.p, size=b)

    def se(self, n: int) -> float:
        """Standard deviation of the paired difference over R test sets of n units (seeded per n)."""
        if n not in self.cache:
            rng = np.random.default_rng([self.seed, n])
            diffs = []
            block = self.block(n)
            for start in range(0, self.R, block):
                b = min(block, self.R - start)
                W = self.draw(rng, n, b)
                T = resampled_confusions(self.pat, W, self.A)
                v = compute(self.m, T, explain=False, **self.kw).value          # (b, 2)
                diffs.append(self.sign * (v[:, 0] - v[:, 1]))
            d = np.concatenate(diffs)
            d = d[~np.isnan(d)]
            self.cache[n] = float(np.std(d, ddof=1)) if d.shape[0] > 1 else float("nan")
        return self.cache[n]


class _ClusterSizes(_Sizes):
    """Paired test sets of c whole clusters drawn with replacement from the pilot's clusters."""

    def __init__(self, runs, measure, resamples: int, seed: int, kw: dict) -> None:
        from evalreport.analyses.clusters import cluster_plan

        super().__init__(runs, measure, resamples, seed, kw)
        cp = cluster_plan(self.pat, runs.clusters, runs.cluster_names)
        self.MT = cp.matrix.T.tocsc()                     # (P, C): items of each pattern in each cluster
        self.n_clusters = cp.n_clusters

    def block(self, n: int) -> int:
        """Test sets drawn at a time: (block, n) draws and (block, C) counts stay within the budget."""
        return max(1, min(_BLOCK, _CLUSTER_CELLS // max(n, self.n_clusters)))

    def draw(self, rng: np.random.Generator, n: int, b: int) -> np.ndarray:
        """``(b, P)`` pattern counts of b test sets of n clusters."""
        C = self.n_clusters
        idx = rng.integers(0, C, size=(b, n)) + (np.arange(b, dtype=np.int64) * C)[:, None]
        counts = np.bincount(idx.ravel(), minlength=b * C).reshape(b, C).astype(float)   # (b, C)
        return np.asarray(self.MT @ counts.T).T


def plan(runs, measure, difference: float, *, power: float = 0.8, alpha: float = 0.05,
         systems: Sequence[str] | None = None, resamples: int = DEFAULT_RESAMPLES, seed: int = 0,
         progress: Progress = None, positive: int | None = None, policy: str = "nan") -> Plan:
    """Items a test set needs to detect ``difference`` between two systems, from a pilot (module docstring).

    Parameters
    ----------
    runs : Runs
        The pilot: gold labels and the systems' predictions.
    measure : str or Measure
        The measure (any that is computed from a confusion matrix).
    difference : float
        D > 0, in the measure's units.
    power : float
        Target power, strictly between alpha and 1.
    alpha : float
        Two-sided level.
    systems : sequence of two str, optional
        The pair (default: the two best under ``measure``).
    resamples : int
        Test sets drawn per size.
    seed : int
        Seed of the draws (each size has its own stream, so answers do not depend on the search path).
    progress : callable, optional
        ``progress(done, total)`` over the sizes resampled.
    positive : int, optional
        Index of the positive class (binary measures).
    policy : str
        The 0/0 policy (:func:`evalreport.measures.compute`); resampled test sets where the measure is
        undefined for either system are left out.

    Returns
    -------
    Plan
    """
    D = float(difference)
    if not (np.isfinite(D) and D > 0):
        raise InputError(f"--difference must be a number > 0; got {difference!r}")
    if not 0 < alpha < 1:
        raise InputError(f"--alpha must lie strictly between 0 and 1; got {alpha!r}")
    if not alpha < power < 1:
        raise InputError(f"--power must lie strictly between alpha ({alpha:g}) and 1; got {power!r}")
    if resamples < 2:
        raise InputError(f"--resamples must be at least 2; got {resamples!r}")
    m = get(measure)
    lo, hi = (float(v) for v in m.range)
    if np.isfinite(hi - lo) and D > hi - lo:
        raise InputError(f"--difference {D:g} is larger than the whole range of {m.id} ({lo:g} to {hi:g}): no two "
                         "systems can differ by it")
    kw: dict[str, Any] = {"positive": positive, "policy": policy, "task": getattr(runs, "n_task", None)}
    run_system = getattr(runs, "run_system", None)
    if systems is None and run_system is not None:
        # the best two runs would often be two seeds of one system; the planned test draws items of one run each
        first_runs: dict = {}
        for system, run in zip(run_system, runs.systems):
            first_runs.setdefault(system, run)
        named = list(first_runs.values())[:2]
        raise InputError("plan compares one run of each of two systems (the item bootstrap), not systems with "
                         "several runs (a folder per system, the two-level bootstrap): name two runs with "
                         f"--systems (e.g. --systems {' '.join(named)})")
    pair = tuple(systems) if systems is not None else best_two(runs, m, **kw)
    if len(pair) != 2 or pair[0] == pair[1]:
        raise InputError(f"--systems takes two different systems; got {' '.join(map(str, pair))}")
    unknown = [s for s in pair if s not in runs.systems]
    if unknown:
        raise InputError(f"--systems: no system named {unknown[0]!r}; the runs have {', '.join(runs.systems)}")
    sub = runs.select(list(pair))
    clustered = getattr(sub, "clusters", None) is not None
    N = sub.n_items
    sizes: _Sizes
    if clustered:
        sizes = _ClusterSizes(sub, m, resamples, seed, kw)
        units = sizes.n_clusters                      # the resampling unit: clusters
    else:
        sizes, units = _Sizes(sub, m, resamples, seed, kw), N
    se_N, n, curve = _search(sizes, units, D, alpha, power, progress)
    value = compute(m, _confusion(sub), explain=False, **kw).value
    pilot_d = float((1.0 if m.higher_is_better else -1.0) * (value[0] - value[1]))
    closed = _closed_form(sub, m.id, D, alpha, power)
    extra: dict[str, Any] = {}
    if clustered:
        size = N / units
        curve.insert(0, "clusters", curve["n"])
        curve["n"] = np.ceil(curve["clusters"] * size).astype(int)
        extra = {"cluster_col": sub.cluster_col or "cluster", "n_clusters_pilot": int(units),
                 "clusters_needed": int(n), "mean_cluster_size": float(size)}
        n = math.ceil(n * size - 1e-9)
    if progress is not None:
        progress(_STEPS, _STEPS)
    return Plan(measure=m.id, systems=(str(pair[0]), str(pair[1])), difference=D, power=float(power),
                alpha=float(alpha), n_pilot=N, n_needed=int(n), detectable=detectable_difference(se_N, alpha, power),
                se_pilot=se_N, pilot_difference=pilot_d, curve=curve, closed_form=closed, resamples=int(resamples),
                seed=int(seed), **extra)


def _search(sizes: _Sizes, N: int, D: float, alpha: float, power: float,
            progress: Progress) -> tuple[float, int, pd.DataFrame]:
    """se at the pilot's N units, the fewest units with the target power, and the resampled curve."""
    total = _STEPS
    done = 0

    def step() -> None:
        nonlocal done
        done += 1
        if progress is not None:
            progress(min(done, total), total)

    se_N = sizes.se(N)
    step()
    n = _items_for(se_N * math.sqrt(N), D, alpha, power)
    scaled = []                                       # se_n sqrt(n) at the sizes near the answer
    for _ in range(total - 2):
        se_n = sizes.se(n)
        step()
        if not np.isfinite(se_n) or se_n == 0:
            break
        scaled.append(se_n * math.sqrt(n))
        n_next = _items_for(float(np.mean(scaled[-2:])), D, alpha, power)
        if len(scaled) >= 2 and abs(n_next - n) <= 0.01 * n:
            n = n_next
            break
        n = n_next
    curve_n = sorted(set(sizes.cache))
    curve = pd.DataFrame({"n": curve_n, "se": [sizes.cache[k] for k in curve_n],
                          "power": [power_at(sizes.cache[k], D, alpha) for k in curve_n]})
    return se_N, n, curve


def _closed_form(sub, measure_id: str, D: float, alpha: float, power: float) -> dict:
    """For accuracy: the paired-proportions sizes (with clusters inflated by the design effect); else empty."""
    if measure_id != "accuracy":
        return {}
    right = np.asarray(sub.pred) == np.asarray(sub.gold)[None, :]
    p10 = float((right[0] & ~right[1]).mean())
    p01 = float((~right[0] & right[1]).mean())
    closed = {"p10": p10, "p01": p01, "wald": wald_items(p10, p01, D, alpha=alpha, power=power)}
    if 0 < D * D < p10 + p01:
        closed["connor"] = connor_items(p10, p01, D, alpha=alpha, power=power)
    clusters = getattr(sub, "clusters", None)
    if clusters is not None:
        icc, deff = cluster_design_effect(right[0].astype(float) - right[1], clusters)
        size = clusters.shape[0] / np.unique(clusters).shape[0]
        closed.update(icc=icc, design_effect=deff)
        for key in [k for k in ("wald", "connor") if k in closed]:
            closed[key] *= deff
            closed[f"{key}_clusters"] = closed[key] / size
    return closed


def anova_icc(values: np.ndarray, clusters: np.ndarray) -> float:
    """The one-way ANOVA estimate of the intraclass correlation (Donner & Klar 2000, section 5.2).

    Parameters
    ----------
    values : ndarray
        ``(N,)`` one value per item.
    clusters : ndarray
        ``(N,)`` each item's cluster code.

    Returns
    -------
    float
        ``(MSB - MSW) / (MSB + (m0 - 1) MSW)`` with ``m0 = (N - sum_k m_k^2 / N) / (k - 1)``; 0 when every
        cluster has one item or the values do not vary, NaN with fewer than two clusters.
    """
    y = np.asarray(values, dtype=float)
    codes = np.unique(np.asarray(clusters), return_inverse=True)[1].ravel()
    k, N = int(codes.max()) + 1 if codes.size else 0, y.shape[0]
    if k < 2:
        return float("nan")
    if N == k:
        return 0.0
    m = np.bincount(codes, minlength=k).astype(float)
    means = np.bincount(codes, weights=y, minlength=k) / m
    msb = float((m * (means - y.mean()) ** 2).sum()) / (k - 1)
    msw = float(((y - means[codes]) ** 2).sum()) / (N - k)
    m0 = (N - float((m ** 2).sum()) / N) / (k - 1)
    denom = msb + (m0 - 1) * msw
    return 0.0 if denom <= 0 else (msb - msw) / denom


def cluster_design_effect(values: np.ndarray, clusters: np.ndarray) -> tuple[float, float]:
    """The intraclass correlation of ``values`` and the design effect of their mean over the clusters.

    Parameters
    ----------
    values : ndarray
        ``(N,)`` one value per item (for accuracy: the paired difference of being right).
    clusters : ndarray
        ``(N,)`` each item's cluster code.

    Returns
    -------
    tuple of float
        ``(icc, 1 + (m - 1) icc)`` with ``m = sum_k m_k^2 / N`` (the cluster size when all are equal;
        Donner & Klar 2000; Kish 1965).
    """
    icc = anova_icc(values, clusters)
    counts = np.unique(np.asarray(clusters), return_counts=True)[1].astype(float)
    m = float((counts ** 2).sum() / counts.sum())
    return icc, 1.0 + (m - 1.0) * (icc if np.isfinite(icc) else 0.0)


def _confusion(runs) -> np.ndarray:
    """``(S, K, K)`` confusion tensor of the runs."""
    from evalreport.counts import Counts

    return Counts.from_runs(runs).tensor


def _items_for(scaled_se: float, D: float, alpha: float, power: float) -> int:
    """The fewest n with ``power_at(scaled_se / sqrt(n), D) >= power`` (``scaled_se = se_n sqrt(n)``)."""
    if not np.isfinite(scaled_se) or scaled_se <= 0:
        return 2
    n = max(2, math.ceil((scaled_se * _z(1 - alpha / 2) + scaled_se * _z(power)) ** 2 / D ** 2) - 1)
    while power_at(scaled_se / math.sqrt(n), D, alpha) < power:
        n += 1
    return n
