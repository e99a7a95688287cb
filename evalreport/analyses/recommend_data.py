"""The requirements of :mod:`evalreport.analyses.recommend` that are computed on the user's data
rather than read from the audit: ``defined`` (no 0/0 on confusion matrices these gold class counts
allow), ``ordinal`` (a near miss scores better than a far one) and ``cost-sensitive`` (the value
follows the cost or gain matrix).

Each check evaluates the measure on a few confusion matrices built from the data's gold class
counts (rows = gold, columns = predicted), all in one stacked call per measure, and returns a
:class:`Check`: whether the requirement holds, the reason in words with the matrix that decides it,
and pitfalls (situations on this data where the measure has no value).
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from evalreport.analyses.audit.properties import num
from evalreport.analyses.audit.space import fmt_matrix
from evalreport.errors import InputError
from evalreport.measures import compute
from evalreport.measures._core import Measure
from evalreport.measures._shared import quiet_errors
from evalreport.measures.subsets import for_synthetic


def percent(x: float) -> str:
    """A share as a percentage with two significant digits: ``0.5 %``, ``12 %``.

    Parameters
    ----------
    x : float
        A share in [0, 1].

    Returns
    -------
    str
    """
    return f"{100 * x:.2g} %" if x < 0.995 else f"{100 * x:.0f} %"


#: items per class of the synthetic matrices of the ordinal and cost checks
BASE_ITEMS = 4


@dataclass(frozen=True)
class DataSetting:
    """The data a recommendation is for: class names (in their order) and gold class counts.

    ``counts`` are items per class; ``known_counts`` is False when only prevalences were given
    (the counts are then the prevalences times :data:`PER_PREVALENCE` items, and the pitfalls speak
    of shares, not of items)."""

    labels: tuple[str, ...]
    counts: tuple[float, ...]
    known_counts: bool = True

    @property
    def K(self) -> int:
        return len(self.labels)

    @property
    def n(self) -> float:
        return float(sum(self.counts))

    @property
    def prevalence(self) -> tuple[float, ...]:
        return tuple(c / self.n for c in self.counts)

    def rarest(self) -> int:
        """Index of the rarest class that has items (the first of equals)."""
        present = [k for k in range(self.K) if self.counts[k] > 0]
        return min(present, key=lambda k: self.counts[k])

    def size_words(self, k: int) -> str:
        """``3 items (0.5 %)`` or, from prevalences only, ``a share of 0.5 %``."""
        share = percent(self.prevalence[k])
        if not self.known_counts:
            return f"a share of {share}"
        c = self.counts[k]
        return f"{c:g} item{'s' if c != 1 else ''} ({share})"


#: classes tried as never predicted (the rarest) and as a constant prediction (the most frequent): a
#: measure's 0/0 cases depend on which cells are empty, not on which class it is, and with a thousand
#: classes one matrix per class would not fit in memory
SCENARIO_CLASSES = 3

#: items behind a setting given by prevalences only
PER_PREVALENCE = 1000


def setting_from_prevalence(n_classes: int | None, prevalence, labels=None) -> DataSetting:
    """A :class:`DataSetting` from a class count and prevalences (``None``: equal prevalences).

    Parameters
    ----------
    n_classes : int or None
        Number of classes (``--classes``); None takes the number of prevalences or labels.
    prevalence : sequence of float or None
        One share per class, non-negative, summing to 1 (within 0.001; then normalised).
    labels : sequence of str, optional
        Class names (default ``class_1`` ...).

    Returns
    -------
    DataSetting
    """
    sizes = [len(x) for x in (prevalence, labels) if x is not None]
    K = n_classes if n_classes is not None else (sizes[0] if sizes else None)
    if K is None:
        raise InputError("give a gold file, or --classes N (and --prevalence p1,p2,...)")
    if K < 2:
        raise InputError(f"--classes must be at least 2, got {K}")
    if labels is not None and len(labels) != K:
        raise InputError(f"--labels names {len(labels)} classes but --classes is {K}")
    if labels is not None and len(set(labels)) != len(labels):
        raise InputError("--labels names a class twice")
    if prevalence is None:
        p = np.full(K, 1.0 / K)
    else:
        p = np.asarray(prevalence, dtype=float)
        if len(p) != K:
            raise InputError(f"--prevalence gives {len(p)} shares for {K} classes: give one per class")
        if not np.isfinite(p).all() or (p < 0).any():
            raise InputError("--prevalence: every share must be a number >= 0")
        if abs(p.sum() - 1.0) > 1e-3:
            raise InputError(f"--prevalence: the shares sum to {p.sum():.6g}, not 1")
        if (p > 0).sum() < 1:
            raise InputError("--prevalence: at least one class needs a share above 0")
        p = p / p.sum()
    names = tuple(str(x) for x in labels) if labels is not None else tuple(f"class_{k + 1}" for k in range(K))
    return DataSetting(names, tuple(float(x) for x in p * PER_PREVALENCE), known_counts=False)


@dataclass
class Check:
    """One computed requirement for one measure: holds (True/False, None = cannot say), the reason,
    the pitfalls on this data."""

    holds: bool | None
    reason: str
    pitfalls: list[str] = field(default_factory=list)


def values(m: Measure, mats, *, policy: str = "nan", costs=None, gains=None) -> np.ndarray:
    """The measure on a stack of K x K matrices as the audit computes it (a binary measure takes the
    last class as positive, a cost measure the distance costs |i - j| unless ``costs`` are given).

    Parameters
    ----------
    m : Measure
        The measure.
    mats : array-like, shape (N, K, K)
        Confusion matrices, rows = gold.
    policy : str
        The 0/0 policy.
    costs, gains : array-like of shape (K, K), optional
        A cost matrix (read by cost measures) and a gain matrix (read by gain measures).

    Returns
    -------
    numpy.ndarray
        One value per matrix, NaN where undefined.
    """
    mats = np.asarray(mats, dtype=float)
    K = mats.shape[-1]
    if costs is None and "costs" in m.needs:
        costs = np.abs(np.subtract.outer(np.arange(K), np.arange(K))).astype(float)
    positive = K - 1 if "positive" in m.needs else None
    rec = for_synthetic(m, K)
    if gains is not None and "gains" in m.needs:     # (for_synthetic binds the identity gains)
        rec = replace(rec, bound={**rec.bound, "gains": np.asarray(gains, dtype=float)})
    with quiet_errors():
        res = compute(rec, mats, positive=positive, policy=policy, costs=costs, explain=False)
    return np.asarray(res.value, dtype=float)


def scenarios(data: DataSetting) -> list[tuple[str, str, np.ndarray]]:
    """Predictions a system could make on this data: (kind, words, confusion matrix), the likeliest
    to meet in practice first. Kinds: ``never`` (a class never predicted), ``constant``, ``wrong``,
    ``perfect``.

    Parameters
    ----------
    data : DataSetting
        The classes and gold class counts.

    Returns
    -------
    list of (str, str, numpy.ndarray)
    """
    a = np.asarray(data.counts, dtype=float)
    K, names = data.K, data.labels
    out: list[tuple[str, str, np.ndarray]] = []
    order = sorted((k for k in range(K) if a[k] > 0), key=lambda k: a[k])[:SCENARIO_CLASSES]
    biggest = int(np.argmax(a))
    for k in order:       # the rarest class first: the likeliest to go unpredicted
        C = np.diag(a)
        to = biggest if biggest != k else next(j for j in np.argsort(-a) if j != k)
        C[k, k], C[k, to] = 0, a[k]
        its = f"its {data.size_words(k)}" if data.known_counts else f"its items, {percent(data.prevalence[k])}"
        out.append(("never", f"class {names[k]!r} is never predicted ({its}, predicted as {names[to]!r})", C))
    for j in np.argsort(-a, kind="stable")[:SCENARIO_CLASSES]:
        C = np.zeros((K, K))
        C[:, j] = a
        out.append(("constant", f"every item is predicted as {names[j]!r} (a constant predictor)", C))
    C = np.zeros((K, K))
    for k in range(K):
        C[k, (k + 1) % K] = a[k]
    out.append(("wrong", "every item is predicted wrong", C))
    out.append(("perfect", "every item is predicted right", np.diag(a)))
    return out


def check_defined(m: Measure, data: DataSetting, *, policy: str = "nan") -> Check:
    """``defined``: no 0/0 on the predictions :func:`scenarios` lists for these gold class counts
    (under ``policy``); pitfalls name each situation that leaves the measure without a value, and
    a bootstrap resample that misses the rarest class.

    Parameters
    ----------
    m : Measure
        The measure.
    data : DataSetting
        The classes and gold class counts.
    policy : str
        The 0/0 policy.

    Returns
    -------
    Check
    """
    sc = scenarios(data)
    v = values(m, np.stack([c for _, _, c in sc]), policy=policy)
    bad = [i for i in range(len(sc)) if np.isnan(v[i])]
    pitfalls = []
    seen: set[str] = set()
    r = data.rarest()
    if any(sc[i][0] == "perfect" for i in bad):      # undefined even when all is right: that says it all
        bad_kinds = [i for i in bad if sc[i][0] == "perfect"]
    else:
        bad_kinds = bad
    for i in bad_kinds:
        kind, words, _ = sc[i]
        if kind in seen:
            continue
        seen.add(kind)
        if kind == "never":
            k = int(np.argmax(np.diag(sc[i][2]) < np.asarray(data.counts)))    # the class left unpredicted
            who = f"your rarest class {data.labels[k]!r}" if k == r else f"class {data.labels[k]!r}"
            pitfalls.append(f"undefined when a class is never predicted: {who} has {data.size_words(k)}")
        elif kind == "constant":
            pitfalls.append("undefined for a constant predictor (a majority baseline)")
        elif kind == "wrong":
            pitfalls.append("undefined when every item is predicted wrong")
        else:
            absent = (np.asarray(data.counts) == 0).any()
            pitfalls.append("undefined even for a perfect prediction" + (f": {_absent_words(data)}" if absent else ""))
    pitfalls += _resample_pitfall(m, data, policy)
    if bad:
        first = next((i for i in bad if sc[i][0] == "perfect"), bad[0])     # undefined even when all is right
        kind, words, C = sc[first]
        return Check(False, f"0/0 when {words}: C={fmt_matrix(C)} (policy {policy})", pitfalls)
    return Check(True, f"a value on each of {len(sc)} predictions these class counts allow (a rare class never "
                       f"predicted, a constant prediction, all wrong, all right; policy {policy})", pitfalls)


def _absent_words(data: DataSetting) -> str:
    absent = [data.labels[k] for k in range(data.K) if data.counts[k] == 0]
    return ", ".join(repr(x) for x in absent) + (" has" if len(absent) == 1 else " have") + " no items"


def _resample_pitfall(m: Measure, data: DataSetting, policy: str) -> list[str]:
    """A bootstrap resample of the items misses the rarest class with probability (1 - c/n)^n."""
    if not data.known_counts or data.K < 2:
        return []
    r = data.rarest()
    a = np.asarray(data.counts, dtype=float)
    if (a > 0).sum() < 2:
        return []
    C = np.diag(a)
    C[r, r] = 0
    if not np.isnan(values(m, C[None], policy=policy)[0]):
        return []
    p = (1.0 - a[r] / a.sum()) ** a.sum()
    return [f"undefined on a resample without class {data.labels[r]!r}: a bootstrap resample misses its "
            f"{data.size_words(r)} with probability {percent(p)}"]


def check_ordinal(m: Measure, data: DataSetting) -> Check:
    """``ordinal``: with classes in the data's order, an error between neighbours (first class
    predicted as the second; last as the one before it) scores strictly better than one across the
    scale (first as last; last as first), from a diagonal of :data:`BASE_ITEMS` items per class.

    Parameters
    ----------
    m : Measure
        The measure.
    data : DataSetting
        The classes, in their order.

    Returns
    -------
    Check
    """
    K, names = data.K, data.labels
    if K == 2:
        return Check(True, "two classes: every error is between neighbours")
    base = np.eye(K) * BASE_ITEMS
    mats = []
    for g, near, far in ((0, 1, K - 1), (K - 1, K - 2, 0)):
        for j in (near, far):
            C = base.copy()
            C[g, j] += 1
            mats.append(C)
    v = values(m, np.stack(mats))
    sign = 1.0 if m.higher_is_better else -1.0
    for i, (g, near, far) in enumerate(((0, 1, K - 1), (K - 1, K - 2, 0))):
        a, b = v[2 * i], v[2 * i + 1]
        if np.isnan(a) or np.isnan(b) or not sign * (a - b) > 1e-12:
            return Check(False, f"gold {names[g]!r} predicted as its neighbour {names[near]!r} scores {num(a)}, "
                                f"predicted as {names[far]!r} at the other end {num(b)}: C={fmt_matrix(mats[2 * i])} "
                                f"vs C'={fmt_matrix(mats[2 * i + 1])}")
    return Check(True, f"a near miss scores better than a far one ({num(v[0])} vs {num(v[1])}, classes in the order "
                       "given; distance costs |i - j|)")


def check_cost_sensitive(m: Measure, data: DataSetting) -> Check:
    """``cost-sensitive``: the value on one confusion matrix changes when one cost (or gain) of the
    matrix the measure is given changes.

    Parameters
    ----------
    m : Measure
        The measure.
    data : DataSetting
        The classes.

    Returns
    -------
    Check
    """
    K = data.K
    C = np.eye(K) * BASE_ITEMS
    C[0, 1] += 1
    C[K - 1, 0] += 2
    costs_a = np.abs(np.subtract.outer(np.arange(K), np.arange(K))).astype(float)
    costs_b = costs_a.copy()
    costs_b[0, 1] = 3.0
    gains_a = np.eye(K)
    gains_b = gains_a.copy()
    gains_b[0, 1] = 0.5
    try:
        a = values(m, C[None], costs=costs_a, gains=gains_a if "gains" in m.needs else None)[0]
        b = values(m, C[None], costs=costs_b, gains=gains_b if "gains" in m.needs else None)[0]
    except Exception as exc:    # a plugin may refuse a cost matrix it does not read
        return Check(None, f"could not be computed: {type(exc).__name__}: {exc}")
    what = "gain" if "gains" in m.needs else "cost"
    if np.isnan(a) or np.isnan(b) or abs(a - b) <= 1e-12 * max(1.0, abs(a)):
        return Check(False, f"the same value ({num(a)}) at C={fmt_matrix(C)} whatever the {what} of an error")
    return Check(True, f"the value follows the {what} matrix: {num(a)} vs {num(b)} at C={fmt_matrix(C)} when the "
                       f"{what} of predicting class 2 for class 1 changes")
