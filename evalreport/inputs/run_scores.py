"""The score columns of single-label runs, collected into one array while the runs are read: one column
``score`` (binary) or one ``score_<label>`` column per class, the same layout in every run.

With a ``sink`` the runs' scores are not kept: each run's scores are written into one of a few reused
buffers, checked, and handed to the sink, which gives the buffer back when it is done with it. A
command that only summarises each system's scores (``evalreport score``) then holds a few runs' scores
in memory, not every system's (:class:`ScoreSink`)."""

from __future__ import annotations

import threading
import warnings
from typing import Protocol

import numpy as np
import pyarrow as pa

from evalreport.inputs.checks import listing
from evalreport.inputs.score_checks import finite_scores, range_problem, sum_problem
from evalreport.inputs.tables import HEADED, Table, float_values

__all__ = ["ScoreCollector", "ScoreSink"]


class ScoreSink(Protocol):
    """What takes each run's scores as they are read (:class:`ScoreCollector` with ``sink``)."""

    def begin(self, gold: np.ndarray, classes: list[str]) -> None:
        """Before the first run: the gold class codes (in item order) and the class list of the scores."""

    def take(self, s: int, scores: np.ndarray, layout, problems: dict[str, str], release) -> None:
        """Run ``s``'s checked scores: ``(N,)`` (one ``score`` column) or ``(C, N)`` (per-class columns,
        ``layout`` the (label, column) pairs); ``problems`` as :attr:`ScoreCollector.problems`. The buffer
        is the sink's until it calls ``release()``."""

    def drop(self) -> None:
        """The runs' score columns differ: every score taken so far is void, and no more come."""


class _Buffers:
    """At most ``cap`` reused arrays of one shape: :meth:`take` waits for a free one when all are out."""

    def __init__(self, shape: tuple[int, ...], cap: int) -> None:
        self.shape, self.cap = shape, cap
        self.free: list[np.ndarray] = []
        self.made = 0
        self.cond = threading.Condition()

    def take(self, wait: bool = True) -> np.ndarray | None:
        with self.cond:
            while not self.free and self.made >= self.cap:
                if not wait:
                    return None
                self.cond.wait()
            if self.free:
                return self.free.pop()
            self.made += 1
        return np.empty(self.shape)

    def give(self, array: np.ndarray) -> None:
        with self.cond:
            self.free.append(array)
            self.cond.notify()


class ScoreCollector:
    """Collect the scores of every run into one array, if all runs have the same layout.

    A run whose score columns differ from the first run's drops the scores of every system (with a
    warning); scores that are no probabilities are recorded in ``problems``, not raised here.

    Parameters
    ----------
    n_systems, n_items : int
        The shape of the score array (a third axis per class for per-class scores).
    classes : list of str
        The class list; a ``score_<label>`` column must name one of them.
    score_col : str or None
        The score column name (or prefix of the per-class columns); None reads no scores.
    present : set of str, optional
        The classes the gold file has; a per-class column naming another is an error.
    sink : ScoreSink, optional
        Takes each run's scores instead of the array (:meth:`result` then gives no array).
    buffers : int
        With a sink, at most this many runs' scores are in memory at once (at least 2).
    """

    def __init__(self, n_systems: int, n_items: int, classes: list[str], score_col: str | None, present=None,
                 sink: ScoreSink | None = None, buffers: int = 6):
        self.shape = (n_systems, n_items)
        self.classes = classes
        self.col = score_col
        self.layout = None        # None (no scores), "binary" or a tuple of (label, column)
        self.array: np.ndarray | None = None
        self.warned = False
        self.present = present    # the classes the gold file has (None: not checked)
        #: run index -> {problem kind: one-line message}: scores that are no probabilities ("range": outside
        #: [0, 1]; "sum": per-class scores not summing to 1), raised only where a measure needs probabilities
        self.problems: dict[int, dict[str, str]] = {}
        self.filled: set[int] = set()   # the runs whose scores are in the array
        #: run index -> column -> (minimum, maximum): runs whose scores a reading thread already wrote
        self.prefilled: dict[int, dict[str, tuple[float, float]]] = {}
        self.sink = sink
        self._cap = max(2, buffers)
        self._buffers: _Buffers | None = None      # with a sink: the reused per-run arrays
        self._rows: dict[int, np.ndarray] = {}     # run -> its buffer, until handed to the sink

    def _row(self, s: int, wait: bool = True) -> np.ndarray | None:
        """Where run ``s``'s scores go: its row, or a sink's buffer (None when ``wait`` is False and none is free)."""
        if self.sink is None:
            return None if self.array is None else self.array[s]
        row = self._rows.get(s)
        if row is None and self._buffers is not None:
            row = self._buffers.take(wait)
            if row is not None:
                self._rows[s] = row
        return row

    def prefill(self, s: int, r: Table) -> None:
        """In the reading thread that read run ``s``, when it is in gold order: write its score columns into
        the array, so that the main thread only checks them (:meth:`add`). Only the plain case is done here:
        the array exists (a first run set the layout), this run has that layout and one row per item, and
        every score is a finite float64; anything else is left to :meth:`add`, which names the problem."""
        try:
            layout = self.layout
            if layout is None or self.warned or r.n_rows != self.shape[1] or self._layout_of(r) != layout:
                return
            row = self._row(s, wait=False)
            if row is None:
                return
            names = [str(self.col)] if layout == "binary" else [column for _, column in layout]
            bounds: dict[str, tuple[float, float]] = {}
            for k, column in enumerate(names):
                raw = r.columns.get(column)
                if raw is None or column in r.unusable or not pa.types.is_float64(raw.type) or raw.null_count:
                    return
                values = float_values(raw, row if layout == "binary" else row[k])
                lo, hi = (float(values.min()), float(values.max())) if values.size else (0.0, 0.0)
                if not (np.isfinite(lo) and np.isfinite(hi)):
                    return
                bounds[column] = (lo, hi)
            self.prefilled[s] = bounds
        except Exception:    # the main thread repeats the step and reports it
            return

    def _layout_of(self, r: Table):
        if self.col is None:
            return None
        prefix = f"{self.col}_"
        per_class = {c[len(prefix):]: c for c in r.columns if c.startswith(prefix) and len(c) > len(prefix)}
        if per_class:
            if self.col in r.columns:
                raise r.error(f"both a {self.col!r} column and per-class {prefix}<label> columns; keep one kind",
                              line=1 if r.fmt in HEADED else None)
            unknown = [lab for lab in per_class if lab not in self.classes]
            if unknown:
                raise r.error(f"score column(s) {listing([per_class[u] for u in unknown])} name no class "
                              f"(classes: {listing(self.classes)})", line=1 if r.fmt in HEADED else None)
            absent = [lab for lab in per_class if self.present is not None and lab not in self.present]
            if absent:
                raise r.error(f"score column(s) {listing([per_class[u] for u in absent])} name a class the gold "
                              "file does not have", line=1 if r.fmt in HEADED else None)
            return tuple((c, per_class[c]) for c in self.classes if c in per_class)
        return "binary" if self.col in r.columns else None

    def add(self, s: int, r: Table, pos, complete: bool):
        """Add the scores of one run.

        Parameters
        ----------
        s : int
            The run's index.
        r : Table
            The run file.
        pos : numpy.ndarray or None
            Row -> item position; None when the run is in gold order.
        complete : bool
            Whether every item has a row (else the others get NaN).
        """
        layout = self._layout_of(r)
        if layout is None and not self.warned:
            return                # a run without score columns: NaN scores, its score measures undefined
        if self.layout is None and not self.warned:
            self.layout = layout  # the first run with scores sets the layout; runs before it have none
            # per-class scores are kept class-major, (S, C, N): each column is written and later sorted as
            # one contiguous block; result() gives the (S, N, C) view. Rows are filled as runs arrive
            # (np.empty: no pass over the whole array), a run without scores gets NaN in result().
            shape = self.shape if layout == "binary" else (self.shape[0], len(layout), self.shape[1])
            if self.sink is None:
                self.array = np.empty(shape)
            else:
                self._buffers = _Buffers(shape[1:], self._cap)
        elif layout != self.layout and not self.warned:
            warnings.warn(f"{r.path}: scores ignored for all systems: this run's score columns "
                          f"({_describe(layout, self.col)}) differ from the first run's "
                          f"({_describe(self.layout, self.col)})", stacklevel=4)
            self.array, self.warned = None, True
            if self.sink is not None:
                self.sink.drop()
        if self.warned:
            return
        target = self._row(s)
        if target is None:
            return
        if not complete:
            target[...] = np.nan
        self.filled.add(s)
        where = slice(None) if pos is None else pos
        direct = pos is None and complete and r.n_rows == self.shape[1]    # rows in item order: read in place
        done = self.prefilled.pop(s, None) if direct else None
        if done is not None:                      # written by the reading thread: only the checks are left
            names = [str(self.col)] if layout == "binary" else [column for _, column in layout]
            columns = {column: (target if layout == "binary" else target[k]) for k, column in enumerate(names)}
            self._check(s, r, layout, columns, done)
            self._hand_over(s, target, layout)
            return
        bounds: dict[str, list] = {}
        if layout == "binary":
            assert self.col is not None           # the "binary" layout is the score column's
            bounds[self.col] = []
            columns = {self.col: finite_scores(r, self.col, target if direct else None, bounds[self.col])}
            if not direct:
                target[where] = columns[self.col]
        else:
            columns = {}
            for k, (_, column) in enumerate(layout):
                bounds[column] = []
                columns[column] = finite_scores(r, column, target[k] if direct else None, bounds[column])
                if not direct:
                    target[k, where] = columns[column]
        self._check(s, r, layout, columns, {k: (v[0], v[1]) for k, v in bounds.items() if v})
        self._hand_over(s, target, layout)

    def _hand_over(self, s: int, target: np.ndarray, layout) -> None:
        """With a sink: run ``s``'s checked scores are the sink's until it gives the buffer back."""
        if self.sink is None:
            return
        buffers = self._buffers
        assert buffers is not None
        del self._rows[s]
        self.sink.take(s, target, layout, dict(self.problems.get(s, {})), lambda: buffers.give(target))

    def _check(self, s: int, r: Table, layout, columns: dict, bounds: dict) -> None:
        """Record whether run s's scores are probabilities (raised by the measures that need them)."""
        # probabilities: recorded here, raised by the measures that need them (inputs/score_checks.py)
        problems = {"range": range_problem(r, columns, bounds),
                    "sum": sum_problem(r, columns) if layout != "binary" and len(layout) == len(self.classes) else None}
        if any(problems.values()):
            self.problems[s] = {k: v for k, v in problems.items() if v}

    def result(self):
        """The collected scores.

        Returns
        -------
        tuple of (numpy.ndarray or None, tuple of str)
            The (S, N) or (S, N, C) scores (the latter a view of class-major memory: each
            ``[s, :, c]`` is contiguous), or None without scores; the labels of the per-class columns
            (empty for binary scores).
        """
        if self.array is None:
            return None, ()      # (with a sink: the scores went there)
        for s in range(self.shape[0]):
            if s not in self.filled:
                self.array[s] = np.nan
        if self.layout == "binary":
            return self.array, ()
        return self.array.transpose(0, 2, 1), tuple(lab for lab, _ in self.layout)


def _describe(layout, col) -> str:
    if layout is None:
        return "none"
    if layout == "binary":
        return repr(col)
    return ", ".join(c for _, c in layout)
