"""Score histograms out of core for per-class ``score_<class>`` columns (one column for every class).

Per score column k, DuckDB bins the column by gold class exactly as the binary path bins ``score``
(:func:`evalreport.counts.bigdata_scores.bin_cells`): a :class:`ScoreHistogram` whose positive class is k,
from which the one-vs-rest ranking measures of class k follow. The calibration measures need the item's
whole score vector and are aggregated in the same query pass instead:

* Brier score and log loss: per-item quantities, ``sum_k (p_k - y_k)^2`` and ``-ln p_gold`` (clipped to
  [eps, 1 - eps] as the measure clips), summed exactly per system.
* ECE: a histogram of the top-label confidence ``GREATEST`` over the columns, split by whether the top
  label (ties: the first column in class order, as ``argmax`` in memory) is the gold class.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from evalreport.counts.bigdata_job import Job
from evalreport.counts.bigdata_plan import raw_text
from evalreport.counts.bigdata_scores import ScoreHistogram, assemble_cells, bin_cells
from evalreport.counts.scores import ScoreCounts, tie_groups
from evalreport.errors import InputError
from evalreport.inputs.score_checks import MANY_DECIMALS, SUM_TOLERANCE, decimal_tolerance, sum_message

__all__ = ["ClassHistogram", "histogram_classes"]

#: The clipping of probabilities in the log loss (as evalreport.measures.scores.EPS).
_EPS = float(np.finfo(float).eps)


@dataclass(frozen=True, eq=False)
class ClassHistogram:
    """The binned per-class scores of S systems.

    Attributes
    ----------
    systems, labels : tuple of str
        The systems and classes.
    per_class : tuple of ScoreHistogram
        Per class k, the histogram of column ``score_<k>`` by gold class (positive class k).
    confidence : ScoreHistogram
        The top-label confidence by correctness: per system a ``"classes"`` ScoreCounts whose items are
        the cells, column 0 the cell's mean confidence, gold 0 where the top label is right, 1 where not.
    brier_sum, log_sum : ndarray
        ``(S,)`` exact sums over items of the per-item Brier score and log loss.
    problems : dict
        System -> {kind: message} (``range``: a score outside [0, 1]; ``sum``: scores not summing to 1).
    n_items : int
        Items per system.
    """

    systems: tuple[str, ...]
    labels: tuple[str, ...]
    per_class: tuple[ScoreHistogram, ...]
    confidence: ScoreHistogram
    brier_sum: np.ndarray
    log_sum: np.ndarray
    n_items: int
    problems: dict = field(default_factory=dict)


def _columns(job: Job, classes: Sequence[str], score_col: str) -> list[str]:
    """The quoted ``score_<class>`` column of every class, or a one-line refusal naming the missing ones."""
    found = job.engine.columns(job.runs_view)
    missing = [c for c in classes if f"{score_col}_{c}" not in found]
    if missing:
        raise InputError(f"the out-of-core histogram needs a '{score_col}_<class>' column for every class; missing: "
                         f"{', '.join(repr(f'{score_col}_{c}') for c in missing)}", path=job.runs_label)
    return [job.q(f"{score_col}_{c}") for c in classes]


def _check_finite(job: Job, sys_map: str, cols: list[str], values: list[str]) -> None:
    """Refuse, in one line, the first row with a missing or non-finite score."""
    for col, value in zip(cols, values):
        bad = job.example(f"SELECT r.{job.rsys}, r.{job.rid}, r.{col} FROM {job.runs_view} r JOIN {sys_map} s "
                          f"ON r.{job.rsys} = s.raw WHERE {value} IS NULL OR NOT isfinite({value})")
        if bad is not None:
            raise InputError(f"system {raw_text(bad[0])!r}, id {bad[1]!r}: the score {bad[2]!r} in column {col} is "
                             "not a finite number", path=job.runs_label, item=bad[1])


def _sums(job: Job, sys_map: str, gold_map: str, values: list[str]) -> dict[str, np.ndarray]:
    """Per system: the Brier and log-loss sums, the score range and the largest |sum over classes - 1|."""
    K = len(values)
    gold_p = "CASE gm.code " + " ".join(f"WHEN {k} THEN {v}" for k, v in enumerate(values)) + " END"
    brier = " + ".join(f"POWER({v} - CASE WHEN gm.code = {k} THEN 1.0 ELSE 0.0 END, 2)" for k, v in enumerate(values))
    if K == 2:
        brier = f"({brier}) / 2.0"             # two classes: the binary Brier score, as in memory
    rows = job.engine.arrays(
        f"SELECT s.code AS code, SUM({brier}) AS brier, SUM(-LN(LEAST(GREATEST({gold_p}, {_EPS!r}), {1 - _EPS!r}))) "
        f"AS logl, MIN(LEAST({', '.join(values)})) AS lo, MAX(GREATEST({', '.join(values)})) AS hi, "
        f"MAX(ABS({' + '.join(values)} - 1.0)) AS off "
        f"FROM {job.runs_view} r JOIN {sys_map} s ON r.{job.rsys} = s.raw "
        f"JOIN {job.gold_view} g ON {job.join_on('r', 'g')} JOIN {gold_map} gm ON g.{job.glab} = gm.raw "
        f"GROUP BY s.code")
    order = np.argsort(np.asarray(rows["code"], dtype=np.int64))
    return {k: np.asarray(rows[k], dtype=float)[order] for k in ("brier", "logl", "lo", "hi", "off")}


def _problems(job: Job, sys_map: str, values: list[str], systems: Sequence[str], sums: dict) -> dict:
    """System -> {kind: message} for scores that are not probabilities."""
    out: dict = {}
    for s, name in enumerate(systems):
        mine = {}
        if sums["lo"][s] < 0.0 or sums["hi"][s] > 1.0:
            mine["range"] = (f"{job.runs_label}: system {name!r} has scores outside [0, 1] (from {sums['lo'][s]:g} "
                             f"to {sums['hi'][s]:g}): the Brier score, log loss and calibration error read "
                             "probabilities")
        elif sums["off"][s] > SUM_TOLERANCE * len(values):
            problem = _sum_problem(job, sys_map, values, s, name)
            if problem is not None:
                mine["sum"] = problem
        if mine:
            out[name] = mine
    return out


def _sum_problem(job: Job, sys_map: str, values: list[str], code: int, name: str) -> str | None:
    """The in-memory rule and message for a system whose per-class scores stray from summing to 1."""
    K = len(values)
    total = f"({' + '.join(values)})"
    rows = (f"FROM {job.runs_view} r JOIN {sys_map} s ON r.{job.rsys} = s.raw WHERE s.code = {code} "
            f"AND ABS({total} - 1.0) > ")
    most = job.engine.rows(f"SELECT MAX(GREATEST({', '.join(_decimals_sql(v) for v in values)})) "
                           f"{rows}{SUM_TOLERANCE * K!r}")[0][0]
    tolerance = decimal_tolerance(K, MANY_DECIMALS if most is None else int(most))
    first = job.example(f"SELECT r.{job.rid}, {total} {rows}{tolerance!r}")
    if first is None:
        return None
    n_rows = int(job.engine.rows(f"SELECT COUNT(*) {rows}{tolerance!r}")[0][0])
    return str(InputError(f"system {name!r}: {sum_message(float(first[1]), n_rows)}", path=job.runs_label,
                          item=first[0]))


def _decimals_sql(value: str) -> str:
    """SQL for the decimals a score is written with, up to MANY_DECIMALS (as ``score_checks.decimals`` counts)."""
    tests = " ".join(f"WHEN ROUND({value} * {10.0 ** d!r}) / {10.0 ** d!r} = {value} THEN {d}"
                     for d in range(MANY_DECIMALS))
    return f"CASE {tests} ELSE {MANY_DECIMALS} END"


def _confidence_counts(hist: ScoreHistogram, K: int) -> ScoreHistogram:
    """The confidence histogram recast: per system a ``"classes"`` ScoreCounts (column 0 the confidence)."""
    parts = []
    for sc in hist.counts:
        R = sc.gold.shape[0]
        scores = np.zeros((1, R, K))
        scores[0, :, 0] = sc.scores[0, :, 0]
        group = np.zeros((1, K, R), dtype=np.int64)
        thresholds = []
        for c in range(K):
            group[0, c], distinct = tie_groups(scores[0, :, c])
            thresholds.append(distinct)
        parts.append(ScoreCounts(systems=sc.systems, labels=sc.labels, gold=sc.gold, layout="classes",
                                 columns=tuple(range(K)), scores=scores, has=np.ones(1, dtype=bool), positive=None,
                                 group=group, thresholds=(tuple(thresholds),), sources=sc.sources))
    return ScoreHistogram(systems=hist.systems, labels=hist.labels, positive=0, counts=tuple(parts),
                          weights=hist.weights, low=hist.low, high=hist.high, exact=hist.exact, width=hist.width,
                          n_items=hist.n_items)


def histogram_classes(job: Job, *, labels: Sequence[str] | None, systems: Sequence[str] | None, bins: int,
                      score_col: str = "score") -> ClassHistogram:
    """Bin every per-class score column, and the top-label confidence, in an open :class:`Job`.

    Parameters
    ----------
    job : Job
        The open DuckDB job over the gold and long run tables.
    labels, systems : sequence of str, optional
        The classes and systems in order.
    bins : int
        Equal-width bins per system and column when it has more distinct scores than this.
    score_col : str
        The prefix of the per-class columns (``score_col_<class>``).

    Returns
    -------
    ClassHistogram
    """
    plan = job.validate(labels=labels, systems=systems, missing="error", check_duplicates=True, per_fold=False)
    classes = tuple(plan.classes)
    cols = _columns(job, classes, score_col)
    values = [f"TRY_CAST(r.{c} AS DOUBLE)" for c in cols]
    S, K = len(plan.systems), len(classes)
    sys_map = job.table("csys", {"raw": plan.system_raw, "code": np.arange(S)})
    _check_finite(job, sys_map, cols, values)
    gold_map = job.table("cgold", {"raw": plan.gold_raw, "code": plan.gold_codes})
    sources = {name: job.runs_label for name in plan.systems}
    n_items = int(plan.n_items)
    per_class = []
    for k, value in enumerate(values):
        cells, exact, width = bin_cells(job, sys_map, gold_map, value, S, bins, name=f"cbin{k}")
        per_class.append(assemble_cells(cells, plan.systems, classes, k, exact, width, n_items, sources,
                                        job.runs_label))
    conf = f"GREATEST({', '.join(values)})"
    top = "CASE " + " ".join(f"WHEN {v} = {conf} THEN {k}" for k, v in enumerate(values)) + " END"
    cells, exact, width = bin_cells(job, sys_map, gold_map, conf, S, bins, name="cconf",
                                    group=f"CASE WHEN {top} = gm.code THEN 0 ELSE 1 END")
    confidence = _confidence_counts(assemble_cells(cells, plan.systems, classes, 0, exact, width, n_items, sources,
                                              job.runs_label), K)
    sums = _sums(job, sys_map, gold_map, values)
    return ClassHistogram(systems=tuple(plan.systems), labels=classes, per_class=tuple(per_class),
                          confidence=confidence, brier_sum=sums["brier"], log_sum=sums["logl"], n_items=n_items,
                          problems=_problems(job, sys_map, values, plan.systems, sums))
