"""The immutable result of reading inputs: gold codes, predictions of every system, labels.

Everything after the inputs stage works on this object (or on the confusion tensors built
from it); nothing downstream reads files.
"""
from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa


def code_dtype(n_classes: int) -> np.dtype:
    """The smallest signed integer dtype that holds class codes 0..n_classes-1 (and -1)."""
    if n_classes < 2**7:
        return np.dtype(np.int8)
    if n_classes < 2**15:
        return np.dtype(np.int16)
    return np.dtype(np.int32)


class ItemIds:
    """Item ids held as one Arrow string array: no Python string per id until one is asked for.

    A read-only sequence of ``str``: ``len``, indexing (an int gives a ``str``, a slice an
    ``ItemIds``), iteration, and ``numpy.asarray(ids)`` (an object array, built on demand).
    At 1e7 ids this holds the ~100 MB of the file's bytes
    where a NumPy object array of Python strings needs ~700 MB."""

    __slots__ = ("_array",)

    def __init__(self, array):
        if isinstance(array, pa.ChunkedArray):
            array = array.combine_chunks()
        self._array = array

    def __len__(self) -> int:
        return len(self._array)

    @property
    def shape(self) -> tuple[int]:
        return (len(self._array),)

    def __getitem__(self, key):
        if isinstance(key, slice):
            return ItemIds(self._array[key])
        if isinstance(key, (int, np.integer)):
            return self._array[int(key)].as_py()
        return np.asarray(self)[key]

    def __iter__(self) -> Iterator[str]:
        step = 2 ** 16
        for start in range(0, len(self._array), step):
            yield from self._array.slice(start, step).to_pylist()

    def __array__(self, dtype=None, copy=None):
        out = np.asarray(self._array.to_numpy(zero_copy_only=False), dtype=object)
        return out if dtype is None else out.astype(dtype)

    def __repr__(self) -> str:
        shown = ", ".join(repr(clip(x)) for x in self._array.slice(0, 3).to_pylist())
        return f"ItemIds([{shown}{', ...' if len(self) > 3 else ''}], {len(self):,} ids)"


@dataclass(frozen=True)
class Source:
    """One input file: its role (``gold``, ``run``, ``confusion``, ``costs``), path, hash, and
    its number of data rows (``None`` where it was not counted, e.g. read out of core)."""

    role: str
    path: str
    sha256: str
    rows: int | None
    system: str | None = None


@dataclass(frozen=True)
class Runs:
    """Gold labels and the predictions of S systems on the same N items, encoded once.

    Attributes
    ----------
    gold : (N,) integer codes into ``labels``.
    pred : (S, N) integer codes into ``labels``.
    labels : the K class names; code k means ``labels[k]``.
    systems : the S system names, in the order of ``pred``'s first axis.
    ids : (N,) item ids (strings), aligned with ``gold``: a NumPy array, or an :class:`ItemIds`
        (ids kept in Arrow; what :func:`~evalreport.inputs.readers.read_runs` gives). An Arrow
        array given here is wrapped in an :class:`ItemIds`.
    folds : (N,) fold codes into ``fold_names`` or ``None``.
    scores : ``None``, (S, N) scores for the positive class, or (S, N, K) per-class scores.
    sources : the files read, with SHA-256 hashes (recorded in every report).
    abstain : code of the synthetic "abstain" class (gold ids missing from a run, counted as
        wrong) or ``None``.
    n_task : the first ``n_task`` labels are the task's classes (gold labels and ``labels``);
        the rest occur only in predictions (unknown labels counted as wrong, ``abstain``) and are
        classes of a system only where it predicts them. ``None``: every label is a task class.
    clusters : (N,) cluster codes into ``cluster_names`` (a column of the gold file, ``--cluster-col``)
        or ``None``: items of one cluster (questions of one document, turns of one dialogue) are
        resampled and swapped together (:mod:`evalreport.analyses.clusters`).
    cluster_names : the cluster names, in order of first appearance in the gold file.
    cluster_col : the gold column the clusters were read from (``None`` without clusters).
    slices : ``None``, or per slice column of the gold file (``--slice-col``, in the order given) an
        ``(N,)`` object array of one slice name per item (:mod:`evalreport.inputs.slices`: numeric columns
        cut into bins, empty values the slice ``"(empty)"``).
    slice_names : per slice column, its slices in order (text naturally, bins by value, ``"(empty)"`` last).
    run_system : ``None`` (every row of ``pred`` is a system of its own), or per row of ``pred`` the
        name of the system it is a run of (several runs per system, e.g. training seeds: the rows are
        then runs named ``system/run``; :mod:`evalreport.inputs.run_folders`).
    """

    gold: np.ndarray
    pred: np.ndarray
    labels: tuple[str, ...]
    systems: tuple[str, ...]
    ids: np.ndarray | ItemIds | None = None
    folds: np.ndarray | None = None
    fold_names: tuple[str, ...] = ()
    scores: np.ndarray | None = None
    sources: tuple[Source, ...] = ()
    abstain: int | None = None
    score_labels: tuple[str, ...] = field(default=())
    n_task: int | None = None
    clusters: np.ndarray | None = None
    cluster_names: tuple[str, ...] = ()
    cluster_col: str | None = None
    run_system: tuple[str, ...] | None = None
    #: system -> {problem kind: one-line message naming the file and line} of scores that are no
    #: probabilities (``range``, ``sum``), raised where a measure needs probabilities (measures/scores.py)
    score_problems: dict = field(default_factory=dict, compare=False)
    #: the gold file's annotators when it held several (``label_1``, ``label_2``, ...; the gold is their
    #: majority): an :class:`~evalreport.inputs.annotators.Annotations`, else None
    annotations: object = field(default=None, compare=False)
    slices: Mapping[str, np.ndarray] | None = field(default=None, compare=False)
    slice_names: Mapping[str, tuple[str, ...]] = field(default_factory=dict, compare=False)

    def __post_init__(self):
        gold = np.asarray(self.gold)
        pred = np.asarray(self.pred)
        if pred.ndim == 1:
            pred = pred[None, :]
        if gold.ndim != 1 or pred.ndim != 2 or pred.shape[1] != gold.shape[0]:
            raise ValueError(f"gold must be (N,) and pred (S, N); got {gold.shape} and {pred.shape}")
        if pred.shape[0] != len(self.systems):
            raise ValueError(f"{pred.shape[0]} prediction rows but {len(self.systems)} system names")
        K = len(self.labels)
        for name, arr in (("gold", gold), ("pred", pred)):
            if arr.size and (arr.min() < 0 or arr.max() >= K):
                raise ValueError(f"{name} codes must lie in 0..{K - 1}")
        object.__setattr__(self, "gold", read_only(gold))
        object.__setattr__(self, "pred", read_only(pred))
        object.__setattr__(self, "labels", tuple(str(x) for x in self.labels))
        object.__setattr__(self, "systems", tuple(str(x) for x in self.systems))
        if self.run_system is not None:
            object.__setattr__(self, "run_system", tuple(str(x) for x in self.run_system))
            if len(self.run_system) != len(self.systems):
                raise ValueError(f"{len(self.run_system)} run systems for {len(self.systems)} runs")
        if isinstance(self.ids, (pa.Array, pa.ChunkedArray)):
            object.__setattr__(self, "ids", ItemIds(self.ids))
        if self.clusters is not None:
            clusters = np.asarray(self.clusters)
            if clusters.shape != gold.shape or (clusters.size and (clusters.min() < 0
                                                                   or clusters.max() >= len(self.cluster_names))):
                raise ValueError(f"clusters must be (N,) codes into the {len(self.cluster_names)} cluster names")
            object.__setattr__(self, "cluster_names", tuple(str(x) for x in self.cluster_names))
        if self.slices is not None:
            for col, names in self.slices.items():
                if np.shape(names) != gold.shape:
                    raise ValueError(f"slice column {col!r} must have one name per item ({gold.shape[0]})")
            object.__setattr__(self, "slices", {str(c): read_only(np.asarray(v, dtype=object))
                                                for c, v in self.slices.items()})
            order = dict(self.slice_names or {})
            for col, names in self.slices.items():
                if col not in order:
                    from evalreport.inputs.checks import natural_sorted

                    order[col] = tuple(natural_sorted(set(names.tolist())))
            object.__setattr__(self, "slice_names", order)
        for name in ("ids", "folds", "scores", "clusters"):
            value = getattr(self, name)
            if value is not None and not isinstance(value, ItemIds):
                object.__setattr__(self, name, read_only(np.asarray(value)))

    def __repr__(self) -> str:
        """A summary, not the arrays: a Runs of a shared task holds thousands of ids."""
        extra = []
        if self.folds is not None:
            extra.append(f"{self.n_folds} folds")
        if self.scores is not None:
            extra.append(f"scores {tuple(self.scores.shape)}")
        if self.abstain is not None:
            extra.append("abstain")
        if self.clusters is not None:
            extra.append(f"{self.n_clusters:,} clusters")
        return (f"Runs({self.n_systems} systems {some_names(self.systems)}, {self.n_items:,} items, "
                f"{self.n_classes} classes {some_names(self.labels)}" + "".join(f", {e}" for e in extra) + ")")

    @property
    def n_items(self) -> int:
        return int(self.gold.shape[0])

    @property
    def n_systems(self) -> int:
        return int(self.pred.shape[0])

    @property
    def n_classes(self) -> int:
        return len(self.labels)

    @property
    def n_clusters(self) -> int:
        return len(self.cluster_names) if self.clusters is not None else 0

    @property
    def n_folds(self) -> int:
        return len(self.fold_names) if self.folds is not None else 0

    def select(self, systems) -> Runs:
        """A Runs with only the named systems (in the given order)."""
        idx = [self.systems.index(s) for s in systems]
        scores = None if self.scores is None else self.scores[idx]
        return Runs(gold=self.gold, pred=self.pred[idx], labels=self.labels,
                    systems=tuple(self.systems[i] for i in idx), ids=self.ids, folds=self.folds,
                    fold_names=self.fold_names, scores=scores, sources=self.sources,
                    abstain=self.abstain, score_labels=self.score_labels, n_task=self.n_task,
                    clusters=self.clusters, cluster_names=self.cluster_names, cluster_col=self.cluster_col,
                    run_system=None if self.run_system is None else tuple(self.run_system[i] for i in idx),
                    score_problems={s: v for s, v in self.score_problems.items() if s in systems},
                    slices=self.slices, slice_names=self.slice_names)

    def subset(self, items) -> Runs:
        """A Runs of only the given items (positions or a boolean mask, in the order given): every
        system, and the items' folds, scores, clusters (renumbered) and slices.

        Parameters
        ----------
        items : array_like
            Item positions (int) or a boolean mask of length N.

        Returns
        -------
        Runs
            The same systems and classes on those items.
        """
        idx = np.asarray(items)
        idx = np.flatnonzero(idx) if idx.dtype == bool else idx.astype(np.int64)
        clusters, cluster_names = None, self.cluster_names
        if self.clusters is not None:
            present, clusters = np.unique(np.asarray(self.clusters)[idx], return_inverse=True)
            cluster_names = tuple(self.cluster_names[int(k)] for k in present)
        ids = None if self.ids is None else (self.ids[idx] if not isinstance(self.ids, ItemIds)
                                             else np.asarray(self.ids)[idx])
        return Runs(gold=self.gold[idx], pred=self.pred[:, idx], labels=self.labels, systems=self.systems,
                    ids=ids, folds=None if self.folds is None else self.folds[idx], fold_names=self.fold_names,
                    scores=None if self.scores is None else self.scores[:, idx], sources=self.sources,
                    abstain=self.abstain, score_labels=self.score_labels, n_task=self.n_task,
                    clusters=clusters, cluster_names=cluster_names, cluster_col=self.cluster_col,
                    run_system=self.run_system, score_problems=self.score_problems,
                    annotations=None,
                    slices=None if self.slices is None else {c: v[idx] for c, v in self.slices.items()},
                    slice_names=self.slice_names)


def clip(text: str, width: int = 40) -> str:
    return text if len(text) <= width else text[:width - 3] + "..."


def some_names(names, limit: int = 5) -> str:
    """The first ``limit`` names, clipped, as a list literal for a ``repr`` (``...`` when there are more)."""
    shown = ", ".join(repr(clip(n)) for n in names[:limit])
    return f"[{shown}{', ...' if len(names) > limit else ''}]"


def read_only(a: np.ndarray) -> np.ndarray:
    """A read-only view (no copy): Runs never changes after it is built."""
    view = np.asarray(a).view()
    view.flags.writeable = False
    return view
