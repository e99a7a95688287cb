"""Checks of a run file's score columns (read by :class:`evalreport.inputs.readers` for every run).

A score must be a finite number (else an error naming the line). Whether the scores are probabilities
(each in [0, 1]; per-class scores summing to 1 within what rounding explains: 1e-6 per class, or half
a unit of the last decimal the file writes them with, per class (:func:`sum_tolerance`, also the rule of
the out-of-core check; the decimals are the most of any row that needs the rule, so the answer does not
depend on the order of the rows), so that probabilities printed with 4
or 2 decimals pass and scores that do not sum to 1 do not; scores written without decimals are a one-hot
row, which sums to exactly 1) matters only to
the measures that read them so (Brier score, log loss, calibration error): the problem is recorded as
one line naming the file, the first line and how many rows have it, and raised where such a measure
is computed (:meth:`evalreport.counts.scores.ScoreCounts.require`).
"""
from __future__ import annotations

import numpy as np

__all__ = ["finite_scores", "range_problem", "sum_problem", "sum_tolerance", "sum_message", "SUM_TOLERANCE",
           "MANY_DECIMALS", "decimals", "decimal_tolerance"]

SUM_TOLERANCE = 1e-6          # per class: K rounded probabilities may sum to 1 +- K x 0.5e-6
#: From this many decimals on the rounding rule is no looser than ``SUM_TOLERANCE``: counting stops there.
MANY_DECIMALS = 6
_NEED = "log loss, Brier score and calibration error need probabilities"


def finite_scores(table, column: str, out: np.ndarray | None = None, bounds: list | None = None) -> np.ndarray:
    """A score column's numbers (``table.numbers``); an infinite score is an error naming its line.

    Parameters
    ----------
    table : Table
        The run file as read (:mod:`evalreport.inputs.tables`).
    column : str
        The score column.
    out : ndarray, optional
        Where to write the scores (``(n_rows,)``).
    bounds : list, optional
        Receives the scores' minimum and maximum.

    Returns
    -------
    ndarray
        The scores, float64 (``out`` when given).
    """
    bounds = [] if bounds is None else bounds
    values = table.numbers(column, "score", out, bounds)
    if not values.size or (np.isfinite(bounds[0]) and np.isfinite(bounds[1])):   # (NaN is refused by numbers)
        return values
    bad = ~np.isfinite(values)
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        more = f" ({int(bad.sum())} such scores in the file)" if bad.sum() > 1 else ""
        raise table.error(f"score {values[row]:g} in column {column!r} is not finite{more}", row=row,
                          item=table._item(row))
    return values


def range_problem(table, columns: dict, bounds: dict | None = None) -> str | None:
    """The one-line message of the first score outside [0, 1] among ``columns`` (name -> scores), or None
    (``bounds``: name -> (minimum, maximum), where known)."""
    for column, values in columns.items():
        if not values.size:
            continue
        lo, hi = bounds[column] if bounds and column in bounds else (values.min(), values.max())
        if lo >= 0 and hi <= 1:
            continue
        out = (values < 0) | (values > 1)
        if out.any():
            row = int(np.flatnonzero(out)[0])
            return str(table.error(f"score {values[row]:g} in column {column!r} is not a probability (outside "
                                   f"[0, 1]; {int(out.sum())} such scores in the file): {_NEED}", row=row,
                                   item=table._item(row)))
    return None


def sum_problem(table, columns: dict) -> str | None:
    """The one-line message of the first row whose per-class scores do not sum to 1, or None."""
    values = list(columns.values())
    total = values[0] - 1.0
    for v in values[1:]:                  # one running sum: no (C, N) stack
        total += v
    off = np.abs(total) > SUM_TOLERANCE * len(columns)
    if not off.any():
        return None
    rows = np.flatnonzero(off)
    tolerance = sum_tolerance(len(columns), [v[rows] for v in values])
    off = np.abs(total) > tolerance
    if not off.any():
        return None
    row = int(np.flatnonzero(off)[0])
    return str(table.error(sum_message(total[row] + 1.0, int(off.sum())), row=row, item=table._item(row)))


def sum_tolerance(n_classes: int, samples: list) -> float:
    """How far from 1 the per-class scores of one row may sum: what rounding explains.

    Parameters
    ----------
    n_classes : int
        K, the number of score columns.
    samples : list of array-like
        Per column, the scores of every row whose sum is off by more than ``SUM_TOLERANCE`` per class
        (the rows that need the rule: all of them, so that the rule does not depend on the rows' order).

    Returns
    -------
    float
        With d the most decimals any of these scores is written with (:func:`decimals`): for d = 0,
        ``K x SUM_TOLERANCE`` (scores without decimals are 0 and 1, a one-hot row, whose sum is exactly
        1: no rounding explains "1, 1, 0"); for 0 < d < 6, ``K x 0.5 x 10^-d`` (plus 1e-12 for the float
        sum): K values rounded to d decimals sum to 1 within it; else ``K x SUM_TOLERANCE``.
    """
    return decimal_tolerance(n_classes, decimals(samples))


def decimal_tolerance(n_classes: int, d: int) -> float:
    """:func:`sum_tolerance` for scores written with at most ``d`` decimals (:func:`decimals`).

    Parameters
    ----------
    n_classes : int
        K, the number of score columns.
    d : int
        The most decimals of the scores (``MANY_DECIMALS`` or more: many).

    Returns
    -------
    float
        ``K x SUM_TOLERANCE`` for d = 0 or d >= 6, else ``K x 0.5 x 10^-d + 1e-12``.
    """
    if 0 < d < MANY_DECIMALS:
        return n_classes * 0.5 * 10.0 ** -d + 1e-12
    return SUM_TOLERANCE * n_classes


def sum_message(total: float, n_rows: int) -> str:
    """The problem, in words, of per-class scores that sum to ``total`` (``n_rows`` such rows in the file).

    Parameters
    ----------
    total : float
        The first such row's sum.
    n_rows : int
        How many rows are off by more than :func:`sum_tolerance`.

    Returns
    -------
    str
    """
    return f"the per-class scores sum to {total:.9g}, not 1 ({n_rows} such rows in the file): {_NEED}"


def decimals(samples: list) -> int:
    """The most decimals any of these scores is written with, counted up to :data:`MANY_DECIMALS`.

    A score x has at most d decimals when rounding it to d decimals gives x back:
    ``rint(x * 10^d) / 10^d == x`` holds exactly when x is the double nearest to a number of d decimals
    (the product is within a unit in the last place of that number's integer numerator, and the division is
    correctly rounded), that is when its shortest written form has d decimals or fewer. The out-of-core
    check asks DuckDB the same question (``ROUND(x * 10^d) / 10^d = x``).

    Parameters
    ----------
    samples : list of array-like
        Scores, one array per column.

    Returns
    -------
    int
        From 0 to :data:`MANY_DECIMALS` (which also stands for more).
    """
    most = 0
    for column in samples:
        x = np.asarray(column, dtype=float).ravel()
        while most < MANY_DECIMALS and x.size:
            scale = 10.0 ** most
            with np.errstate(over="ignore", invalid="ignore"):
                x = x[np.rint(x * scale) / scale != x]          # the scores with more than `most` decimals
            if x.size:
                most += 1
    return most
