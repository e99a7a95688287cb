"""Sufficient statistics: confusion tensors.

Orientation (everywhere in evalreport): ``C[..., i, j]`` counts items whose GOLD label is class
``i`` and whose PREDICTED label is class ``j`` - rows = gold, columns = predicted, as in
scikit-learn's ``confusion_matrix`` and in Gösgens et al. (2021, section 2: "c_ij denotes
the number of elements with true label i and predicted label j").

Opitz (2022, section 2) uses the transpose: ``m_ij`` counts predictions ``i`` of gold class
``j``; his "bias" is our column sum and his "prevalence" our row sum. :func:`to_opitz` and
:func:`from_opitz` convert; prevalence scaling by a diagonal matrix on the right in his paper
(``m' = m lambda``, eq. 5) scales our ROWS.

Shapes: ``(S, K, K)`` for S systems, ``(S, F, K, K)`` per fold. Every measure accepts any
number of leading axes.

Three ways in: :func:`count` (the item-level :class:`~evalreport.inputs.Runs` of the inputs
stage, by bincount), :mod:`.files` (confusion-matrix files: already counted) and :mod:`.bigdata`
(tables too big for memory, counted where they lie by DuckDB or Spark, and the joint-pattern
counts that paired resampling needs).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from evalreport.counts.encode import distinct

__all__ = ["Counts", "count", "confusion_from_codes", "confusion_matrix", "to_opitz", "from_opitz",
           "read_confusion", "read_confusions"]


def confusion_from_codes(gold, pred, n_classes: int, *, folds=None, n_folds: int | None = None,
                         max_block: int = 2**16) -> np.ndarray:
    """Confusion tensor from integer codes by bincount.

    gold : (N,) codes in 0..K-1.  pred : (N,) or (S, N) codes.  folds : optional (N,) codes in
    0..F-1.  Returns int64 ``(S, K, K)`` or ``(S, F, K, K)`` (``(K, K)`` / ``(F, K, K)`` for 1-D
    ``pred``). There is no per-item Python.

    How it is fast: the flat cell index ``((s * F + fold) * K + gold) * K + pred`` is built in
    the smallest integer type that holds it (int16 for one system and K <= 181), in place, for
    a block of items of all systems at once, and counted by one ``np.bincount`` per block. A
    block holds about ``max_block`` items x systems (but at least 4 x the number of cells, so
    that large K does not pay for many long count vectors): its temporaries stay in the CPU
    cache, which makes this faster than one bincount over an int64 code array built from the
    whole input (benchmarks/bench.py, scenario A).
    """
    gold = np.asarray(gold)
    pred = np.asarray(pred)
    squeeze = pred.ndim == 1
    if squeeze:
        pred = pred[None, :]
    S, N = pred.shape
    K = int(n_classes)
    F = 1 if folds is None else int(n_folds if n_folds is not None else (int(np.max(folds)) + 1 if len(folds) else 0))
    cells = F * K * K
    total = S * cells
    itype: type[np.signedinteger] = next(t for t in (np.int16, np.int32, np.int64) if total <= np.iinfo(t).max)
    fold_codes = None if folds is None else np.asarray(folds)
    offsets = (np.arange(S, dtype=itype) * cells)[:, None] if S > 1 else None
    out = None
    step = max(1, max(int(max_block), 4 * total) // max(S, 1))
    for i0 in range(0, N, step):   # blocks of items; every system at once
        i1 = min(N, i0 + step)
        base = gold[i0:i1].astype(itype)          # fold * K*K + gold * K
        base *= K
        if fold_codes is not None:
            part = fold_codes[i0:i1].astype(itype)
            part *= K * K
            base += part
        idx = pred[:, i0:i1].astype(itype)        # (S, b): a fresh array, updated in place
        idx += base
        if offsets is not None:
            idx += offsets
        counted = np.bincount(idx.ravel(), minlength=total)
        if out is None:
            out = counted.astype(np.int64, copy=False)
        else:
            out += counted
    if out is None:      # no items
        out = np.zeros(total, dtype=np.int64)
    shape = (S, K, K) if folds is None else (S, F, K, K)
    out = out.reshape(shape)
    return out[0] if squeeze else out


def confusion_matrix(y_true, y_pred, labels=None):
    """A confusion matrix from two label arrays: ``(C, labels)`` with ``C`` of shape (K, K).

    ``labels`` fixes the class order (and may list classes absent from both arrays); by
    default the sorted union of the labels seen (``np.unique`` of the two arrays joined). A
    label outside ``labels`` is a ValueError naming the first such item's label.

    How it is fast: the items are hashed to codes (:mod:`evalreport.counts.encode`), only the
    distinct labels are sorted or looked up, and the codes are counted by
    :func:`confusion_from_codes`; arrays without an exact hash path (NaN, None, mixed types) take
    a per-item dictionary lookup with the same result.
    """
    y_true = np.asarray(y_true)
    y_pred = np.asarray(y_pred)
    if y_true.shape != y_pred.shape or y_true.ndim != 1:
        raise ValueError(f"y_true and y_pred must be 1-D of the same length; got {y_true.shape} and {y_pred.shape}")
    if labels is None:
        encoded = (distinct(y_true), distinct(y_pred)) if _same_kind(y_true, y_pred) else (None, None)
        if encoded[0] is not None and encoded[1] is not None:
            (g, seen_g), (p, seen_p) = encoded
            # the sorted union of the distinct labels is np.unique of the two arrays joined
            labels, rank = np.unique(np.concatenate([seen_g, seen_p]), return_inverse=True)
            rank = rank.reshape(-1)
            return (confusion_from_codes(rank[: len(seen_g)][g], rank[len(seen_g):][p], len(labels)),
                    tuple(labels.tolist()))
        labels = np.unique(np.concatenate([y_true, y_pred]))
    labels = np.asarray(labels)
    lookup = {v: i for i, v in enumerate(labels.tolist())}
    g = _codes(y_true, lookup)
    p = _codes(y_pred, lookup)
    return confusion_from_codes(g, p, len(labels)), tuple(labels.tolist())


def _same_kind(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether joining ``a`` and ``b`` keeps every value as it is (``np.concatenate`` would convert otherwise)."""
    return a.dtype == b.dtype or (a.dtype.kind == b.dtype.kind and a.dtype.kind in "Ui")


def _codes(y: np.ndarray, lookup: dict) -> np.ndarray:
    """Indices of ``y``'s labels in ``lookup``; a ValueError names the first missing label."""
    encoded = distinct(y)
    values = encoded[1].tolist() if encoded is not None else y.tolist()
    try:
        idx = np.fromiter((lookup[v] for v in values), dtype=np.int64, count=len(values))
    except KeyError as exc:  # a label outside the given class list
        raise ValueError(f"label {exc.args[0]!r} is not in labels") from None
    return idx if encoded is None else idx[encoded[0]]


def to_opitz(C: np.ndarray) -> np.ndarray:
    """Our orientation (rows = gold) to Opitz's (rows = predicted): the transpose of the last two axes."""
    return np.swapaxes(C, -1, -2)


from_opitz = to_opitz  # the transpose is its own inverse


@dataclass(frozen=True)
class Counts:
    """Confusion tensors with their names: the input of every measure and analysis.

    ``tensor`` is ``(S, K, K)`` (or ``(S, F, K, K)`` when ``fold_names`` is non-empty), rows =
    gold, columns = predicted; it may hold floats after prevalence scaling.
    """

    tensor: np.ndarray
    labels: tuple[str, ...]
    systems: tuple[str, ...]
    fold_names: tuple[str, ...] = ()
    n_task: int | None = None          # as Runs.n_task: leading task classes; the rest prediction-only

    def __post_init__(self):
        t = np.asarray(self.tensor)
        expect = 4 if self.fold_names else 3
        if t.ndim != expect or t.shape[-1] != t.shape[-2]:
            raise ValueError(f"confusion tensor must be {'(S, F, K, K)' if expect == 4 else '(S, K, K)'}; got {t.shape}")
        if t.shape[0] != len(self.systems) or t.shape[-1] != len(self.labels):
            raise ValueError(f"tensor {t.shape} does not match {len(self.systems)} systems x {len(self.labels)} labels")
        if self.fold_names and t.shape[1] != len(self.fold_names):
            raise ValueError(f"tensor {t.shape} does not match {len(self.fold_names)} folds")
        view = t.view()
        view.flags.writeable = False
        object.__setattr__(self, "tensor", view)
        object.__setattr__(self, "labels", tuple(map(str, self.labels)))
        object.__setattr__(self, "systems", tuple(map(str, self.systems)))
        object.__setattr__(self, "fold_names", tuple(map(str, self.fold_names)))

    @classmethod
    def from_runs(cls, runs, *, per_fold: bool = False) -> Counts:
        if per_fold and runs.folds is None:
            raise ValueError("these runs have no folds")
        tensor = confusion_from_codes(runs.gold, runs.pred, runs.n_classes,
                                      folds=runs.folds if per_fold else None,
                                      n_folds=runs.n_folds if per_fold else None)
        return cls(tensor, runs.labels, runs.systems, runs.fold_names if per_fold else (),
                   getattr(runs, "n_task", None))

    @property
    def per_fold(self) -> bool:
        return bool(self.fold_names)

    def pooled(self) -> Counts:
        """Sum over folds (the pooled matrix behind F_tp,fp of Forman & Scholz 2010)."""
        if not self.per_fold:
            return self
        return Counts(self.tensor.sum(axis=1), self.labels, self.systems, n_task=self.n_task)

    def with_tensor(self, tensor) -> Counts:
        return Counts(tensor, self.labels, self.systems, self.fold_names, self.n_task)

    def select(self, systems) -> Counts:
        idx = [self.systems.index(s) for s in systems]
        return Counts(self.tensor[idx], self.labels, tuple(self.systems[i] for i in idx), self.fold_names,
                      self.n_task)


def count(runs, *, per_fold: bool = False) -> Counts:
    """The counting stage: confusion tensors ``(S, K, K)`` of every system of a
    :class:`~evalreport.inputs.Runs` (``(S, F, K, K)`` with ``per_fold``), in one bincount pass."""
    return Counts.from_runs(runs, per_fold=per_fold)


def __getattr__(name):
    # confusion-matrix files: imported on first use (they bring the file toolkit of the inputs stage)
    if name in ("read_confusion", "read_confusions"):
        from evalreport.counts import files

        return getattr(files, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
