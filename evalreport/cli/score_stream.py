"""``evalreport score``'s score-based measures, computed run by run while the runs are read.

The measures of one system's scores depend on that system's scores alone, so each run's scores are
summarised as soon as they are read and checked (:class:`ScoreStream`, the reader's
:class:`~evalreport.inputs.run_scores.ScoreSink`), in a few threads beside the reading, and dropped:
memory holds a few runs' scores instead of every system's ((S, C, N) floats: 0.8 GB for 20 systems x
1e6 items x 5 classes), and no page of that array is ever faulted in. Which measures are reported, and
which recorded score problem is raised, is decided once every run is read, as
:func:`evalreport.analyses.score_compare.score_plan` decides it from all the runs; the values are those
of the whole-array path (tests/test_score_stream.py compares the two).
"""
from __future__ import annotations

import os
from concurrent.futures import Future, ThreadPoolExecutor
from types import SimpleNamespace

import numpy as np

from evalreport.errors import InputError, MeasureError

__all__ = ["ScoreStream"]


class ScoreStream:
    """Takes each run's checked scores from the reader, computes the candidate score measures of that one
    system in a worker thread, and gives the buffer back.

    Parameters
    ----------
    measures : sequence of str or None
        The measures asked for (None: the default score measures that apply).
    positive : str or int or None
        The positive class as given (resolved against the gold's classes).
    policy : str
        The undefined-value policy.
    """

    def __init__(self, measures, positive, policy: str) -> None:
        self.measures, self.positive_given, self.policy = measures, positive, policy
        self.gold: np.ndarray | None = None
        self.classes: list[str] = []
        self.positive: int | None = None
        self.layout = None
        self.dropped = False
        self.done: dict[int, Future] = {}
        self.pool: ThreadPoolExecutor | None = None
        self._bad_positive: Exception | None = None

    # ---- the reader's side (ScoreSink) ------------------------------------------------------------
    def begin(self, gold: np.ndarray, classes: list[str]) -> None:
        """The gold codes and the class list, before the first run."""
        from evalreport.measures import resolve_positive

        self.gold, self.classes = np.asarray(gold).astype(np.int64), list(classes)
        if self.positive_given is not None:
            try:
                self.positive = resolve_positive(self.positive_given, self.classes, len(self.classes))
            except (InputError, MeasureError) as exc:     # raised where the measures need it
                self._bad_positive = exc
        self.pool = ThreadPoolExecutor(max(1, min(os.cpu_count() or 1, 4)))

    def take(self, s: int, scores: np.ndarray, layout, problems: dict[str, str], release) -> None:
        """Run ``s``'s scores: computed in a worker, the buffer released when done."""
        self.layout = layout
        if self.dropped or self.pool is None or self._bad_positive is not None:
            release()
            return

        def work():
            try:
                return self._one(s, scores, layout, problems)
            finally:
                release()

        self.done[s] = self.pool.submit(work)

    def drop(self) -> None:
        """The runs' score layouts differ: no score measure is reported (as without a sink)."""
        self.dropped = True

    def close(self, cancel: bool = False) -> None:
        """Wait for the workers to finish; ``cancel``: drop the runs not started (after an error)."""
        if self.pool is not None:
            self.pool.shutdown(wait=True, cancel_futures=cancel)

    # ---- one system ---------------------------------------------------------------------------------
    def _runs_like(self, s: int, scores: np.ndarray, layout, problems: dict[str, str]) -> SimpleNamespace:
        """What :func:`~evalreport.counts.scores.score_counts` reads of Runs, for system ``s`` alone."""
        view = scores[None, :] if layout == "binary" else scores.T[None, :, :]   # (1, N) or (1, N, C)
        name = _placeholder(s)
        return SimpleNamespace(scores=view, n_task=None, n_classes=len(self.classes), labels=tuple(self.classes),
                               score_labels=() if layout == "binary" else tuple(lab for lab, _ in layout),
                               score_problems={name: problems} if problems else {}, systems=(name,), sources=(),
                               gold=self.gold)

    def candidates(self, layout) -> list[str]:
        """Every score measure this layout may report (the final choice depends on all the runs)."""
        from evalreport.measures import get
        from evalreport.measures.scores import is_score_measure

        if self.measures is not None:
            return list(dict.fromkeys(get(m).id for m in self.measures if is_score_measure(m)))
        return _default_ids(layout, self.gold, self.classes, {}, self.positive)

    def _one(self, s: int, scores: np.ndarray, layout, problems: dict[str, str]) -> dict:
        """measure id -> Result (value, undefined, reason of this one system) or the error it raised."""
        from evalreport.counts.scores import score_counts
        from evalreport.measures import get
        from evalreport.measures.scores import ScoreStats, check_scores, compute_scores, summaries_of

        if layout == "binary" and self.positive is None:
            return {}
        sc = score_counts(self._runs_like(s, scores, layout, problems), positive=self.positive)
        assert sc is not None
        found: dict = {}
        fine = []
        for mid in self.candidates(layout):
            try:
                check_scores(mid, sc)
                fine.append(get(mid))
            except (InputError, MeasureError) as exc:
                found[mid] = exc
        stats = ScoreStats(sc, wanted=summaries_of(fine))
        stats.prefetch(threads=1)
        for m in fine:
            try:
                found[m.id] = compute_scores(m, sc, policy=self.policy, stats=stats)
            except (InputError, MeasureError) as exc:
                found[m.id] = exc
        return found

    # ---- after the reading ----------------------------------------------------------------------------
    def columns(self, runs) -> dict[str, np.ndarray] | None:
        """The tidy columns (system, measure, value, undefined, reason) of the score-based measures, as
        :func:`evalreport.cli.score.score_columns` gives them from the whole array; None when none is reported.

        Parameters
        ----------
        runs : Runs
            The runs as read with this sink (their scores went here).

        Returns
        -------
        dict or None
        """
        from evalreport.measures import get
        from evalreport.measures.scores import is_score_measure

        results = {s: f.result() for s, f in self.done.items()}     # a worker's own error is raised here
        asked = [m for m in (self.measures or []) if is_score_measure(m)]
        layout = None if self.dropped else self.layout
        if layout is None or (layout == "binary" and self.positive is None and self._bad_positive is None):
            if asked:
                why = ("the runs carry no scores (score or score_<class> columns)" if layout is None
                       else "one 'score' column needs the positive class (--positive)")
                raise MeasureError(f"score-based measure(s) {', '.join(str(w) for w in asked)}: {why}")
            return None
        if self._bad_positive is not None:
            raise self._bad_positive
        if self.measures is None:
            ids = _default_ids(layout, runs.gold, runs.labels, runs.score_problems, self.positive)
        else:
            ids = [get(m).id for m in asked]
        ids = list(dict.fromkeys(ids))
        if not ids:
            return None
        S = len(runs.systems)
        missing = [s for s in range(S) if s not in results]
        if missing:          # systems without scores: their values as the whole-array path gives them
            blank = np.full(self.gold.shape if layout == "binary" else (len(layout), len(self.gold)), np.nan)
            for s in missing:
                results[s] = self._one(s, blank, layout, {})
        for mid in ids:      # the first recorded problem a reported measure cannot take, in system order
            for s in range(S):
                got = results[s].get(mid)
                if isinstance(got, Exception):
                    raise _named(got, runs, s)
        return {"system": np.tile(np.asarray(runs.systems, dtype=object), len(ids)),
                "measure": np.repeat(np.asarray(ids, dtype=object), S),
                "value": np.concatenate([[results[s][m].value[0] for s in range(S)] for m in ids]),
                "undefined": np.concatenate([[results[s][m].undefined[0] for s in range(S)] for m in ids]),
                "reason": np.concatenate([[results[s][m].reason[0] for s in range(S)] for m in ids])}


def _default_ids(layout, gold, labels, problems, positive) -> list[str]:
    """:func:`~evalreport.analyses.score_compare.default_score_ids` of runs whose scores have this layout."""
    from evalreport.analyses.score_compare import default_score_ids

    shape = (0, 0) if layout == "binary" else (0, 0, 0)
    return default_score_ids(SimpleNamespace(scores=np.empty(shape), gold=gold, labels=labels,
                                             score_problems=problems), positive)


def _placeholder(s: int) -> str:
    """The name system ``s`` has while it is computed alone (replaced by its file in a message)."""
    return f"<system {s}>"


def _named(exc: Exception, runs, s: int) -> Exception:
    """``exc`` with the placeholder name of system ``s`` replaced by its run file (as the whole-array path names it)."""
    text = str(exc)
    placeholder = _placeholder(s)
    if placeholder not in text:
        return exc
    source = next((src.path for src in runs.sources if src.role == "run" and src.system == runs.systems[s]),
                  runs.systems[s])
    return type(exc)(text.replace(placeholder, source))
