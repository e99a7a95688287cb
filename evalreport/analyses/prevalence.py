"""Prevalence scaling and calibration of confusion tensors (Opitz 2022, eq. 5-6, 26-27).

Orientation. Opitz writes ``m_ij`` = predictions ``i`` of gold class ``j`` (rows = predicted)
and scales with a diagonal matrix on the right, ``m' = m lambda`` (eq. 5): his COLUMNS are gold
classes. Our tensors have rows = gold (see :mod:`evalreport.counts`), so the same operation
scales our ROWS: ``C'[i, :] = lambda_i C[i, :]``. Scaling a gold class keeps the proportions of
its errors (the row's shape) and changes only how much of that class the data holds.

Targets. ``scale(C, target)`` takes a class distribution ``target`` (K shares, normalised to
sum 1) and chooses ``lambda_i = target_i n / a_i`` so that row sums become ``target * n`` while
the total ``n`` is kept. Prevalence calibration (eq. 6, ``lambda_ii = 1 / (K prevalence(i))``)
is the uniform target.

Classes absent from the gold labels (``a_i = 0``) have no errors to scale: their rows stay
zero. Their target share cannot be placed, so the target is renormalised over the classes that
are present (the total stays ``n``), and a :class:`PrevalenceWarning` names them; use
:func:`absent_classes` to get the mask.
"""
from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from evalreport.counts import Counts
from evalreport.measures import evaluate

__all__ = ["scale", "calibrate", "what_if", "estimate_precision", "predicted_rate", "absent_classes",
           "PrevalenceWarning"]


class PrevalenceWarning(UserWarning):
    """A class absent from the gold labels could not be scaled (its row stays zero)."""


def _target_vector(target, K: int, labels=None) -> np.ndarray:
    """A class distribution from a sequence of K shares or a {label: share} mapping."""
    if isinstance(target, Mapping):
        if labels is None:
            raise ValueError("a prevalence given as {label: share} needs the class labels")
        unknown = set(map(str, target)) - set(map(str, labels))
        if unknown:
            raise ValueError(f"prevalence names unknown classes: {', '.join(sorted(unknown))}")
        shares = {str(k): float(v) for k, v in target.items()}
        t = np.array([shares.get(str(lab), 0.0) for lab in labels], dtype=float)
    else:
        t = np.asarray(target, dtype=float)
    if t.shape[-1:] != (K,):
        raise ValueError(f"prevalence must have one share per class ({K}); got shape {t.shape}")
    if not np.all(np.isfinite(t)) or np.any(t < 0):
        raise ValueError("prevalence shares must be finite and non-negative")
    total = t.sum(axis=-1, keepdims=True)
    if np.any(total <= 0):
        raise ValueError("prevalence shares must not all be zero")
    return t / total


def absent_classes(C) -> np.ndarray:
    """Boolean mask ``(..., K)``: classes with no gold items (a zero row) in each matrix."""
    t = np.asarray(C.tensor if isinstance(C, Counts) else C, dtype=float)
    return t.sum(axis=-1) == 0


def scale(C, target, *, total=None, labels=None):
    """Prevalence scaling (Opitz 2022, eq. 5) of every matrix in ``C`` to the class distribution ``target``.

    ``C``: :class:`~evalreport.counts.Counts` (returns Counts with a float tensor) or an array
    ``(..., K, K)`` (returns a float array). ``target``: K non-negative shares (or a
    ``{label: share}`` mapping), normalised to sum 1; it may also have leading axes that
    broadcast against ``C.shape[:-2]``. Each row i (gold class i) is multiplied by
    ``target_i n / a_i``, so the gold distribution becomes ``target`` and the total stays ``n``
    (or becomes ``total`` if given); within a row the error proportions are kept.

    >>> scale([[15, 10], [5, 10]], [25, 30], total=55)   # Opitz (2022), Tables 2-4 (transposed)
    array([[15., 10.],
           [10., 20.]])
    """
    is_counts = isinstance(C, Counts)
    t = np.asarray(C.tensor if is_counts else C, dtype=float)
    if t.ndim < 2 or t.shape[-1] != t.shape[-2]:
        raise ValueError(f"a confusion tensor must end in (K, K); got shape {t.shape}")
    K = t.shape[-1]
    labels = C.labels if is_counts else labels
    p = _target_vector(target, K, labels)
    a = t.sum(axis=-1)                                   # gold class sizes (row sums)
    n = a.sum(axis=-1, keepdims=True) if total is None else np.asarray(total, dtype=float)[..., None]
    present = a > 0
    p = np.where(present, p, 0.0)                        # an absent class cannot be scaled
    mass = p.sum(axis=-1, keepdims=True)
    p = np.divide(p, mass, out=np.zeros(np.broadcast_shapes(p.shape, mass.shape)), where=mass > 0)
    factor = np.divide(p * n, a, out=np.zeros(np.broadcast_shapes(p.shape, a.shape)), where=present)
    out = t * factor[..., :, None]
    missing = ~present & (np.broadcast_to(_target_vector(target, K, labels), a.shape) > 0)
    if missing.any():
        names = labels if labels is not None else [str(k) for k in range(K)]
        classes = sorted({names[k] for k in np.nonzero(missing.reshape(-1, K))[1]})
        warnings.warn(PrevalenceWarning(
            f"class(es) {', '.join(classes)} have no gold items: their rows stay zero and the target "
            f"prevalence is renormalised over the classes present"), stacklevel=2)
    return C.with_tensor(out) if is_counts else out


def calibrate(C):
    """Prevalence calibration (Opitz 2022, eq. 6): every gold class gets the same share, n / K.

    Equal to ``scale(C, np.ones(K))``. Idempotent. Macro recall is unchanged (property IV);
    accuracy of the calibrated matrix is the macro recall of the original (eq. 14-16).
    """
    t = C.tensor if isinstance(C, Counts) else np.asarray(C)
    K = t.shape[-1]
    return scale(C, np.ones(K))


def what_if(counts, measures=None, prevalence=None, *, positive=None, policy: str = "nan", costs=None,
            include_observed: bool = True) -> pd.DataFrame:
    """Scores under other class prevalences: every measure on the prevalence-scaled tensor.

    ``prevalence``: one distribution (K shares or ``{label: share}``) or a mapping
    ``{scenario name: distribution}``. The name ``"calibrated"`` may be given as the string
    ``"uniform"``. Returns the :func:`~evalreport.measures.evaluate` frame with a leading
    ``scenario`` column; ``include_observed`` adds the unscaled scores as scenario
    ``"observed"``, so a report can show how the leaderboard would move.
    """
    if not isinstance(counts, Counts):
        from evalreport.inputs.runs import Runs

        if isinstance(counts, Runs):
            counts = Counts.from_runs(counts)
        else:
            arr = np.asarray(counts)
            arr = arr[None] if arr.ndim == 2 else arr
            counts = Counts(arr, tuple(str(k) for k in range(arr.shape[-1])),
                            tuple(f"system_{i + 1}" for i in range(arr.shape[0])))
    counts = counts.pooled()
    K = len(counts.labels)
    if prevalence is None:
        raise ValueError("what_if needs a prevalence: K shares, {label: share}, or {scenario: shares}")
    scenarios: dict[Any, Any]                     # scenario name -> shares, {label: share} or a name
    if isinstance(prevalence, str):
        scenarios = {prevalence: prevalence}
    elif isinstance(prevalence, Mapping) and prevalence and all(
            isinstance(v, (str, Mapping, list, tuple, np.ndarray)) for v in prevalence.values()):
        scenarios = dict(prevalence)
    else:
        scenarios = {"what-if": prevalence}
    frames = []
    if include_observed:
        frames.append(evaluate(counts, measures, positive=positive, policy=policy, costs=costs)
                      .assign(scenario="observed"))
    for name, target in scenarios.items():
        if isinstance(target, str):
            if target not in ("uniform", "calibrated"):
                raise ValueError(f"unknown prevalence {target!r}; give shares or 'uniform'")
            target = np.ones(K)
        scaled = scale(counts, target)
        frames.append(evaluate(scaled, measures, positive=positive, policy=policy, costs=costs)
                      .assign(scenario=str(name)))
    out = pd.concat(frames, ignore_index=True)
    return out[["scenario", *[c for c in out.columns if c != "scenario"]]]


def estimate_precision(recalls, prevalence, predicted_rate) -> np.ndarray:
    """Precision of each class under another prevalence, from class recalls (Opitz 2022, eq. 26-27).

    ``P*(class = i | f -> i) = R_i * P(class = i) / P(f -> i)``: ``recalls`` (..., K) are the
    class recalls measured on labelled data, ``prevalence`` (..., K) the class distribution
    expected on the new data, ``predicted_rate`` (..., K) the share of new items the classifier
    assigns to each class (estimated by running it on unlabelled data). Shares are normalised to
    sum 1. A class never predicted (rate 0) has an undefined precision: NaN.
    """
    r = np.asarray(recalls, dtype=float)
    K = r.shape[-1]
    p = _target_vector(prevalence, K)
    q = np.asarray(predicted_rate, dtype=float)
    if q.shape[-1:] != (K,) or np.any(q < 0) or not np.all(np.isfinite(q)):
        raise ValueError(f"predicted_rate must hold K = {K} finite non-negative shares")
    q = q / q.sum(axis=-1, keepdims=True)
    num = r * p
    num, q = np.broadcast_arrays(num, q)
    return np.divide(num, q, out=np.full(num.shape, np.nan), where=q > 0)


def predicted_rate(C, prevalence) -> np.ndarray:
    """The share of items predicted as each class once the gold distribution is ``prevalence``.

    ``sum_i prevalence_i * C[i, j] / a_i``: the column sums of the scaled tensor over n. Fed to
    :func:`estimate_precision`, it reproduces the precision of :func:`scale` ``(C, prevalence)``.
    """
    t = np.asarray(C.tensor if isinstance(C, Counts) else C, dtype=float)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrevalenceWarning)
        s = scale(t, prevalence)
    n = s.sum(axis=(-2, -1))[..., None]
    col = s.sum(axis=-2)
    return np.divide(col, n, out=np.full(col.shape, np.nan), where=n > 0)


def what_if_ranks(counts, measure, scenarios, *, positive=None, policy: str = "nan", costs=None) -> pd.DataFrame:
    """How the leaderboard under ``measure`` moves when the class distribution changes.

    ``scenarios``: ``{name: distribution}`` as for :func:`what_if` (``"uniform"`` = calibrated).
    Returns (scenario, system, measure, value, rank) with the observed prevalence as scenario
    ``"observed"`` first; ranks respect the measure's direction (average ranks for ties).
    """
    from evalreport.analyses.ranking import rank

    scores = what_if(counts, [measure], dict(scenarios), positive=positive, policy=policy, costs=costs)
    frames = []
    for name in dict.fromkeys(scores["scenario"]):   # a handful of scenarios
        one = scores[scores["scenario"] == name]
        ranked = rank(one[["system", "measure", "value"]])
        frames.append(ranked[["system", "measure", "value", "rank"]].assign(scenario=name))
    return pd.concat(frames, ignore_index=True)[["scenario", "system", "measure", "value", "rank"]]


def reversed_prevalence(counts: Counts) -> np.ndarray:
    """The observed gold class shares reversed by size: the rarest class gets the largest share.

    A stress scenario for :func:`what_if_ranks`: a leaderboard that survives it does not hinge on
    which classes happen to be frequent in this test set. Classes absent from the gold labels
    (listed with ``--labels``) stay absent: only the present classes trade shares.
    """
    a = np.asarray(counts.pooled().tensor, dtype=float)[0].sum(axis=1)
    present = np.flatnonzero(a > 0)
    order = present[np.argsort(a[present], kind="stable")]
    out = np.zeros_like(a)
    out[order] = a[order[::-1]]
    return out / out.sum()
