"""Sufficient statistics of multi-label runs: per-label 2 x 2 tensors and per-item sums.

Two summaries of ``gold (N, L)`` and ``pred (S, N, L)`` boolean indicator matrices (the fields of
:class:`~evalreport.inputs.multilabel.MultiLabelRuns`; any object with ``gold``, ``pred``,
``labels`` and ``systems`` will do):

``label_tensor`` ``(S, L, 2, 2)``
    per label a binary confusion matrix in evalreport's orientation (rows = gold negative /
    positive, columns = predicted negative / positive): ``TN = [..., 0, 0]``, ``FP = [..., 0, 1]``,
    ``FN = [..., 1, 0]``, ``TP = [..., 1, 1]``. scikit-learn's ``multilabel_confusion_matrix``
    has the same layout ([[TN, FP], [FN, TP]]). The label-based measures (Gösgens et al. 2021, section 2:
    micro / macro / weighted averages of a binary measure) need nothing else.
``example_stats`` ``(S, n_stats)``
    sums over items of the per-item quantities of the example-based measures (Godbole &
    Sarawagi 2004; Tsoumakas & Katakis 2007), columns named by :data:`STATS`. A per-item ratio
    whose denominator is zero (e.g. precision of an empty predicted set) adds nothing to its
    ``*_sum`` column and 1 to its ``*_undef`` column, so every 0/0 policy can be applied after
    summing (measures/multilabel.py).

Both are linear in the items, so a weighted count (item ``i`` counted ``w_i`` times) is one matrix
product: this is the resampling path (bootstrap weights ``(B, N)``; items stay the resampling unit).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from evalreport.errors import MeasureError

__all__ = ["STATS", "MultiLabelCounts", "count_multilabel", "count_swapped", "item_features", "item_stats"]

#: The columns of ``example_stats``; per item, with G the gold set, P the predicted set, L labels.
STATS = (
    "items",            # 1
    "labels",           # L, the task's labels (n_task: so that the sum is N L, the Hamming loss's denominator)
    "exact",            # 1 if G = P
    "symdiff",          # |G symmetric-difference P|
    "intersection",     # |G & P|
    "gold_size",        # |G|
    "pred_size",        # |P|
    "precision_sum", "precision_undef",   # |G & P| / |P|, undefined if P is empty
    "recall_sum", "recall_undef",         # |G & P| / |G|, undefined if G is empty
    "f1_sum", "f1_undef",                 # 2 |G & P| / (|G| + |P|), undefined if both are empty
    "jaccard_sum", "jaccard_undef",       # |G & P| / |G | P|, undefined if both are empty
)
STAT = {name: i for i, name in enumerate(STATS)}


@dataclass(frozen=True)
class MultiLabelCounts:
    """Counts of multi-label runs. ``label_tensor``: ``(S, L, 2, 2)`` (or ``(B, S, L, 2, 2)``
    batched); ``example_stats``: ``(S, n_stats)`` (``(B, S, n_stats)``); ``support``: ``(L,)``
    gold items per label; ``n_items``: N (unweighted); ``n_task``: the first ``n_task`` labels are
    the task's label set (the rest were only predicted: see :class:`~evalreport.inputs.multilabel.MultiLabelRuns`)."""

    labels: tuple[str, ...]
    systems: tuple[str, ...]
    label_tensor: np.ndarray
    example_stats: np.ndarray
    n_items: int
    support: np.ndarray
    n_task: int | None = None

    def __post_init__(self):
        if self.n_task is None:
            object.__setattr__(self, "n_task", len(self.labels))

    @property
    def n_labels(self) -> int:
        return len(self.labels)

    @property
    def n_systems(self) -> int:
        return len(self.systems)


def _arrays(runs) -> tuple[np.ndarray, np.ndarray]:
    gold = np.asarray(runs.gold, dtype=bool)
    pred = np.asarray(runs.pred, dtype=bool)
    if gold.ndim != 2 or pred.ndim != 3 or pred.shape[1:] != gold.shape:
        raise MeasureError(f"multi-label runs need gold (N, L) and pred (S, N, L); got {gold.shape} and {pred.shape}")
    return gold, pred


def item_stats(gold: np.ndarray, pred: np.ndarray, n_task: int | None = None) -> np.ndarray:
    """Per-item statistics ``(S, N, n_stats)`` (columns :data:`STATS`) of ``gold (N, L)`` and
    ``pred (S, N, L)`` boolean indicator matrices. ``n_task``: how many of the L labels are the
    task's (default L); the ``labels`` column counts those, so a label only some system predicts
    adds to that system's symmetric difference but not to every system's Hamming denominator."""
    S, N, L = pred.shape
    inter = (pred & gold).sum(axis=-1, dtype=np.int64).astype(float)
    g = np.broadcast_to(gold.sum(axis=-1, dtype=np.int64).astype(float), (S, N))
    p = pred.sum(axis=-1, dtype=np.int64).astype(float)
    union = g + p - inter
    out = np.zeros((S, N, len(STATS)))
    out[..., STAT["items"]] = 1.0
    out[..., STAT["labels"]] = L if n_task is None else n_task
    out[..., STAT["symdiff"]] = union - inter
    out[..., STAT["exact"]] = union == inter
    out[..., STAT["intersection"]] = inter
    out[..., STAT["gold_size"]] = g
    out[..., STAT["pred_size"]] = p
    for name, den, num in (("precision", p, inter), ("recall", g, inter), ("f1", g + p, 2 * inter),
                           ("jaccard", union, inter)):
        zero = den == 0
        np.divide(num, den, out=out[..., STAT[f"{name}_sum"]], where=~zero)
        out[..., STAT[f"{name}_undef"]] = zero
    return out


def count_multilabel(runs, weights=None, *, max_cells: int = 2**24) -> MultiLabelCounts:
    """Count multi-label runs; with ``weights (B, N)`` (item multiplicities, e.g. bootstrap
    draws) the tensors get a leading batch axis: ``(B, S, L, 2, 2)`` and ``(B, S, n_stats)``.

    Weighted counts are matrix products ``weights @ indicators`` (no loop over items); the batch
    is processed in chunks of at most ``max_cells`` output cells to bound memory.
    """
    gold, pred = _arrays(runs)
    S, N, L = pred.shape
    labels, systems, n_task = _names(runs, pred.shape)
    per_item = _item_cells(gold, pred)                       # (S, N, 3L)
    stats = item_stats(gold, pred, n_task)                   # (S, N, n_stats)
    support = gold.sum(axis=0).astype(float)
    if weights is None:
        cells = per_item.sum(axis=1).reshape(S, 3, L)
        total = np.full((S, 1), float(N))
        return MultiLabelCounts(labels, systems, _tensor(cells, total), stats.sum(axis=1), N, support, n_task)
    w = np.asarray(weights, dtype=float)
    if w.ndim != 2 or w.shape[1] != N:
        raise MeasureError(f"weights must have shape (B, {N}); got {w.shape}")
    B = w.shape[0]
    flat = np.concatenate([per_item, stats], axis=-1).transpose(1, 0, 2).reshape(N, -1)   # (N, S (3L + n))
    out = np.empty((B, flat.shape[1]))
    step = max(1, max_cells // max(flat.shape[1], 1))
    for b0 in range(0, B, step):
        np.matmul(w[b0:b0 + step], flat, out=out[b0:b0 + step])
    per_system = out.reshape(B, S, 3 * L + len(STATS))
    cells = per_system[..., :3 * L].reshape(B, S, 3, L)
    total = w.sum(axis=1)[:, None, None]                      # (B, 1, 1)
    return MultiLabelCounts(labels, systems, _tensor(cells, total), per_system[..., 3 * L:], N, support, n_task)


def _names(runs, shape):
    S, N, L = shape
    labels = tuple(str(x) for x in runs.labels)
    systems = tuple(str(x) for x in runs.systems)
    if len(labels) != L or len(systems) != S:
        raise MeasureError(f"{len(labels)} labels and {len(systems)} systems for pred of shape {shape}")
    n_task = getattr(runs, "n_task", None)
    return labels, systems, L if n_task is None else int(n_task)


def _item_cells(gold, pred):
    """Per-item TP / FP / FN indicators ``(S, N, 3L)`` (label j at columns j, L + j, 2L + j)."""
    return np.concatenate([pred & gold, pred & ~gold, ~pred & gold], axis=-1).astype(float)


def item_features(runs) -> np.ndarray:
    """Per-item counts ``(S, N, 3L + n_stats)``: TP / FP / FN indicators per label, then :data:`STATS`
    (what :func:`count_multilabel` sums; :func:`count_swapped` takes them precomputed)."""
    gold, pred = _arrays(runs)
    n_task = _names(runs, pred.shape)[2]
    return np.concatenate([_item_cells(gold, pred), item_stats(gold, pred, n_task)], axis=-1)


def count_swapped(runs, a: int, b: int, swaps, *, items=None, features=None, example: bool = True,
                  max_cells: int = 2**24) -> MultiLabelCounts:
    """Counts of systems ``a`` and ``b`` after exchanging their predicted SETS on some items:
    the resampling step of the approximate randomisation test (Noreen 1989; Yeh 2000).

    ``swaps`` ``(R, N)`` 0/1 (or ``(R, len(items))`` for the item indices ``items``): in round r,
    item i takes b's set for a and a's for b where ``swaps[r, i]`` is 1. Returns counts with a
    leading round axis and systems ``(a, b)``: ``label_tensor (R, 2, L, 2, 2)``,
    ``example_stats (R, 2, n_stats)`` (all NaN with ``example=False``: only label-based measures
    will be computed). Counts are linear in the items, so a's counts are its own plus
    ``swaps @ (X_b - X_a)`` (X: per-item indicators and statistics, :func:`item_features`, which
    ``features`` may pass precomputed), and b's are its own minus the same: one matrix product
    over the items (identical sets swap to themselves). Gold is fixed, so a change of TP is the
    opposite change of FN.
    """
    gold, pred = _arrays(runs)
    S, N, L = pred.shape
    labels, systems, n_task = _names(runs, pred.shape)
    feats = item_features(runs) if features is None else np.asarray(features, dtype=float)
    idx = np.arange(N) if items is None else np.asarray(items, dtype=np.int64)
    z = np.asarray(swaps)
    if z.ndim != 2 or z.shape[1] != len(idx):
        raise MeasureError(f"swaps must have shape (R, {len(idx)}); got {z.shape}")
    F = feats.shape[-1]
    used = np.ones(F, dtype=bool)
    used[2 * L:3 * L] = False                                   # FN: minus the TP change
    if not example:
        used[3 * L:] = False
    base = feats[[a, b]].sum(axis=1)                                                        # (2, F)
    diff = feats[b, idx] - feats[a, idx]                                                    # (D, F)
    R = z.shape[0]
    delta = np.zeros((R, F))
    # Integer-valued columns whose sums stay below 2^24 are summed exactly in float32 (half the
    # memory traffic of float64); the per-item ratios (*_sum of precision, recall, F1, Jaccard) in float64.
    ratio = np.zeros(F, dtype=bool)
    ratio[[3 * L + STAT[f"{k}_sum"] for k in ("precision", "recall", "f1", "jaccard")]] = True
    moving = np.abs(diff).sum(axis=0) * used
    if moving.max(initial=0.0) >= 2 ** 24:
        ratio[:] = True
    whole = np.flatnonzero((moving > 0) & ~ratio)
    frac = np.flatnonzero((moving > 0) & ratio)
    whole32 = diff[:, whole].astype(np.float32)
    step = max(1, max_cells // max(len(idx), 1))
    for r0 in range(0, R, step):
        zc = z[r0:r0 + step]
        if whole.size:
            delta[r0:r0 + step, whole] = zc.astype(np.float32) @ whole32
        if frac.size:
            delta[r0:r0 + step, frac] = zc.astype(float) @ diff[:, frac]
    delta[:, 2 * L:3 * L] = -delta[:, :L]
    out = np.stack([base[0] + delta, base[1] - delta], axis=1)                               # (R, 2, F)
    if not example:
        out[..., 3 * L:] = np.nan
    cells = out[..., :3 * L].reshape(R, 2, 3, L)
    total = np.full((R, 1, 1), float(N))
    return MultiLabelCounts(labels, (systems[a], systems[b]), _tensor(cells, total), out[..., 3 * L:], N,
                            gold.sum(axis=0).astype(float), n_task)


def _tensor(cells: np.ndarray, total: np.ndarray) -> np.ndarray:
    """``(..., 3, L)`` TP / FP / FN sums and the item total -> ``(..., L, 2, 2)``."""
    tp, fp, fn = cells[..., 0, :], cells[..., 1, :], cells[..., 2, :]
    tn = total - tp - fp - fn
    return np.stack([np.stack([tn, fp], axis=-1), np.stack([fn, tp], axis=-1)], axis=-2)
