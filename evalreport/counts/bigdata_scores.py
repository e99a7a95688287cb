"""Score histograms out of core: each system's ``score`` column binned by the query engine.

The in-memory :class:`~evalreport.counts.scores.ScoreCounts` keeps every item's score. For run tables
larger than memory, :func:`histogram_scores` asks DuckDB for a fine histogram instead: per system and
gold class, the items of each score bin with their count, sum, minimum and maximum score. A system
with at most ``bins`` distinct scores is binned by its exact values (the histogram is then the tie
grouping itself and every measure is exact); otherwise ``bins`` equal-width bins over [min, max].

A histogram is a tie-grouped score count: one :class:`ScoreCounts` per system whose "items" are the
(bin, gold class) cells, weighted by their counts, the bins its tie groups (highest first) and the
cell's mean score its score. The score measures then run unchanged on it
(:func:`evalreport.measures.score_histogram.histogram_columns`), which also states each value's
error bound from the cells' score ranges.

Inputs: the long run table of :mod:`evalreport.counts.bigdata` with a ``score`` column (the positive
class's score, binary form), or one ``score_<class>`` column per class
(:mod:`evalreport.counts.bigdata_score_classes`).
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from evalreport.counts.bigdata_job import Job
from evalreport.counts.bigdata_plan import raw_text
from evalreport.counts.scores import ScoreCounts
from evalreport.errors import InputError

__all__ = ["ScoreHistogram", "histogram_scores", "has_score_column", "check_engine", "DEFAULT_BINS", "bin_cells",
           "assemble_cells"]

#: Equal-width bins per system when its scores have more distinct values than this.
DEFAULT_BINS = 2 ** 14


@dataclass(frozen=True, eq=False)
class ScoreHistogram:
    """The binned scores of S systems (one :class:`ScoreCounts` per system, its items the cells).

    Attributes
    ----------
    systems, labels : tuple of str
        The systems and classes.
    positive : int
        The positive class code (the ``score`` column is its score).
    counts : tuple of ScoreCounts
        Per system: one item per (bin, gold class) cell, ``scores`` the cell means, ``group`` the bins.
    weights : tuple of ndarray
        Per system, ``(R,)`` items per cell.
    low, high : tuple of ndarray
        Per system, ``(R,)`` the smallest and largest score in each cell.
    exact : ndarray
        ``(S,)`` whether the system was binned by its exact values.
    width : ndarray
        ``(S,)`` bin width (0 where exact).
    n_items : int
        Items per system.
    """

    systems: tuple[str, ...]
    labels: tuple[str, ...]
    positive: int
    counts: tuple[ScoreCounts, ...]
    weights: tuple[np.ndarray, ...]
    low: tuple[np.ndarray, ...]
    high: tuple[np.ndarray, ...]
    exact: np.ndarray
    width: np.ndarray
    n_items: int


def _positive_code(positive, classes: Sequence[str]) -> int:
    """The positive class's code from its name (or code)."""
    if positive is None:
        raise InputError("one 'score' column holds the positive class's score: give the positive class (--positive)")
    text = str(positive).strip()
    if text in classes:
        return list(classes).index(text)
    if isinstance(positive, (int, np.integer)) and 0 <= int(positive) < len(classes):
        return int(positive)
    raise InputError(f"positive class {text!r} is not a class (classes: {', '.join(classes)})")


def _score_column(job: Job, score_col: str) -> str:
    """The quoted score column of the run table, "" for per-class columns, or a one-line refusal."""
    columns = job.engine.columns(job.runs_view)
    if score_col in columns:
        return job.q(score_col)
    if any(c.startswith(f"{score_col}_") for c in columns):
        return ""                       # per-class columns: histogram_classes
    raise InputError(f"the run table has no '{score_col}' column; the columns found are: "
                     f"{', '.join(repr(c) for c in columns)}", path=job.runs_label)


def check_engine(engine: str) -> None:
    """Refuse, in one line, an engine the histogram query is not written for (Spark)."""
    if engine != "duckdb":
        raise InputError(f"the score histogram runs on DuckDB only (--backend duckdb); engine {engine!r} counts "
                         "labels alone: drop the score-based measures or use --backend duckdb")


def histogram_scores(gold, runs, *, positive, engine: str = "duckdb", labels: Sequence[str] | None = None,
                     systems: Sequence[str] | None = None, bins: int = DEFAULT_BINS, score_col: str = "score",
                     id_col: str = "id", label_col: str = "label", system_col: str = "system",
                     memory_limit: str = "1GB", temp_directory=None, threads: int | None = None):
    """Bin every system's scores by gold class, out of core (module docstring).

    Parameters
    ----------
    gold, runs
        The gold and long run files, as :func:`evalreport.counts.bigdata.count_confusions` takes them.
    positive : str or int
        The positive class (the ``score`` column holds its score); not read with per-class
        ``score_<class>`` columns (one for every class), which give a
        :class:`~evalreport.counts.bigdata_score_classes.ClassHistogram`.
    engine : str
        ``"duckdb"``; Spark is refused (the histogram query is written for DuckDB).
    labels, systems : sequence of str, optional
        The classes and systems in order (default: as found, natural order).
    bins : int
        Equal-width bins per system when it has more distinct scores than this.
    score_col, id_col, label_col, system_col : str
        Column names.
    memory_limit, temp_directory, threads
        DuckDB settings.

    Returns
    -------
    ScoreHistogram or ClassHistogram
    """
    check_engine(engine)
    bins = int(bins)
    if bins < 2:
        raise InputError(f"bins must be at least 2, not {bins}")
    with Job(gold, runs, engine=engine, id_col=id_col, label_col=label_col, system_col=system_col, fold_col=None,
             memory_limit=memory_limit, temp_directory=temp_directory, threads=threads, spark=None) as job:
        score = _score_column(job, score_col)
        if not score:
            from evalreport.counts.bigdata_score_classes import histogram_classes

            return histogram_classes(job, labels=labels, systems=systems, bins=bins, score_col=score_col)
        plan = job.validate(labels=labels, systems=systems, missing="error", check_duplicates=True, per_fold=False)
        classes = tuple(plan.classes)
        pos = _positive_code(positive, classes)
        sys_map = job.table("ssys", {"raw": plan.system_raw, "code": np.arange(len(plan.systems))})
        value = f"TRY_CAST(r.{score} AS DOUBLE)"
        bad = job.example(f"SELECT r.{job.rsys}, r.{job.rid}, r.{score} FROM {job.runs_view} r JOIN {sys_map} s "
                          f"ON r.{job.rsys} = s.raw WHERE {value} IS NULL OR NOT isfinite({value})")
        if bad is not None:
            raise InputError(f"system {raw_text(bad[0])!r}, id {bad[1]!r}: the score {bad[2]!r} is not a finite "
                             "number", path=job.runs_label, item=bad[1])
        S = len(plan.systems)
        gold_map = job.table("sgold", {"raw": plan.gold_raw, "code": plan.gold_codes})
        cells, exact, width = bin_cells(job, sys_map, gold_map, value, S, bins, name="sbin")
        sources = {name: job.runs_label for name in plan.systems}
        runs_label = job.runs_label
    return assemble_cells(cells, plan.systems, classes, pos, exact, width, int(plan.n_items), sources, runs_label)


def bin_cells(job: Job, sys_map: str, gold_map: str, value: str, n_systems: int, bins: int, *, name: str,
              group: str = "gm.code") -> tuple[dict, np.ndarray, np.ndarray]:
    """The (system, ``group``, bin) cells of the score expression ``value``: count, sum, minimum, maximum.

    A system with at most ``bins`` distinct values is binned by them (exact), otherwise by ``bins``
    equal-width bins over its [min, max].

    Parameters
    ----------
    job : Job
        The open job over the gold and run tables.
    sys_map, gold_map : str
        The registered system and gold-label code tables (columns raw, code).
    value : str
        The SQL expression binned (over the run alias ``r``).
    n_systems, bins : int
        Systems, and equal-width bins per system when it has more distinct values.
    name : str
        A name for the binning table, unique in the job.
    group : str
        The SQL expression of the second cell key (default: the gold class code ``gm.code``).

    Returns
    -------
    tuple of (dict of ndarray, ndarray, ndarray)
        The cell columns (sys, gold, bin, n, total, low, high), ``(S,)`` exact and ``(S,)`` width.
    """
    stats = job.engine.arrays(
        f"SELECT s.code AS code, COUNT(DISTINCT {value}) AS distinct_n, MIN({value}) AS lo, MAX({value}) AS hi "
        f"FROM {job.runs_view} r JOIN {sys_map} s ON r.{job.rsys} = s.raw GROUP BY s.code")
    order = np.argsort(np.asarray(stats["code"], dtype=np.int64))
    distinct = np.asarray(stats["distinct_n"], dtype=np.int64)[order]
    lo = np.asarray(stats["lo"], dtype=float)[order]
    hi = np.asarray(stats["hi"], dtype=float)[order]
    exact = distinct <= bins
    width = np.where(exact, 0.0, (hi - lo) / bins)
    binning = job.table(name, {"code": np.arange(n_systems), "exact": exact.astype(np.int64), "lo": lo,
                               "width": np.where(exact, 1.0, width)})
    key = f"CASE WHEN b.exact = 1 THEN {value} ELSE LEAST(FLOOR(({value} - b.lo) / b.width), {bins - 1}) END"
    cells = job.engine.arrays(
        f"SELECT s.code AS sys, {group} AS gold, {key} AS bin, COUNT(*) AS n, SUM({value}) AS total, "
        f"MIN({value}) AS low, MAX({value}) AS high "
        f"FROM {job.runs_view} r JOIN {sys_map} s ON r.{job.rsys} = s.raw JOIN {binning} b ON s.code = b.code "
        f"JOIN {job.gold_view} g ON {job.join_on('r', 'g')} JOIN {gold_map} gm ON g.{job.glab} = gm.raw "
        f"GROUP BY s.code, {group}, {key}")
    return cells, exact, width


def assemble_cells(cells: dict, systems: tuple[str, ...], classes: tuple[str, ...], pos: int, exact: np.ndarray,
                   width: np.ndarray, n_items: int, sources: dict, runs_label: str) -> ScoreHistogram:
    """One :class:`ScoreCounts` per system from the cell rows of the histogram query.

    Parameters
    ----------
    cells : dict of ndarray
        The cell columns of :func:`bin_cells` (sys, gold, bin, n, total, low, high).
    systems, classes : tuple of str
        The systems and classes.
    pos : int
        The positive class code (the binned column holds its score).
    exact, width : ndarray
        ``(S,)`` whether each system was binned by its exact values, and the bin width.
    n_items : int
        Items per system.
    sources : dict
        System -> run file (for messages).
    runs_label : str
        The run table's name (for messages).

    Returns
    -------
    ScoreHistogram
    """
    sys_code = np.asarray(cells["sys"], dtype=np.int64)
    parts: list[ScoreCounts] = []
    weights, lows, highs = [], [], []
    for s, name in enumerate(systems):
        mine = sys_code == s
        gold = np.asarray(cells["gold"], dtype=np.int64)[mine]
        key = np.asarray(cells["bin"], dtype=float)[mine]
        n = np.asarray(cells["n"], dtype=float)[mine]
        low = np.asarray(cells["low"], dtype=float)[mine]
        high = np.asarray(cells["high"], dtype=float)[mine]
        mean = np.clip(np.asarray(cells["total"], dtype=float)[mine] / n, low, high)
        distinct, inverse = np.unique(-key, return_inverse=True)          # bins, highest score first
        group = inverse.astype(np.int64).reshape(-1)
        problems = {}
        if low.size and (low.min() < 0.0 or high.max() > 1.0):
            problems["range"] = (f"{runs_label}: system {name!r} has scores outside [0, 1] (from {low.min():g} to "
                                 f"{high.max():g}): the Brier score, log loss and calibration error read probabilities")
        parts.append(ScoreCounts(systems=(name,), labels=classes, gold=gold, layout="binary", columns=(pos,),
                                 scores=mean[None, :, None], has=np.ones(1, dtype=bool), positive=pos,
                                 group=group[None, None, :], thresholds=((-distinct,),), sources=sources,
                                 problems={name: problems} if problems else {}))
        weights.append(n)
        lows.append(low)
        highs.append(high)
    return ScoreHistogram(systems=tuple(systems), labels=classes, positive=pos, counts=tuple(parts),
                          weights=tuple(weights), low=tuple(lows), high=tuple(highs), exact=np.asarray(exact),
                          width=np.asarray(width), n_items=n_items)


def has_score_column(gold, runs, *, score_col: str = "score", id_col: str = "id", label_col: str = "label",
                     system_col: str = "system", per_class: bool = False) -> bool:
    """Whether the long run table has the ``score_col`` column (with ``per_class``: or ``score_col_<class>``
    columns); a look at the schema, no pass over the data."""
    with Job(gold, runs, engine="duckdb", id_col=id_col, label_col=label_col, system_col=system_col, fold_col=None,
             memory_limit="1GB", temp_directory=None, threads=None, spark=None) as job:
        columns = job.engine.columns(job.runs_view)
        return score_col in columns or (per_class and any(c.startswith(f"{score_col}_") for c in columns))
