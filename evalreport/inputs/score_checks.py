"""Checks of a run file's score columns (read by :class:`evalreport.inputs.readers` for every run).

A score must be a finite number (else an error naming the line). Whether the scores are probabilities
(each in [0, 1]; per-class scores summing to 1 within what rounding explains: 1e-6 per class, or half
a unit of the last decimal the file writes them with, per class (:func:`sum_tolerance`, also the rule of
the out-of-core check), so that probabilities printed with 4
or 2 decimals pass and scores that do not sum to 1 do not; scores written without decimals are a one-hot
row, which sums to exactly 1) matters only to
the measures that read them so (Brier score, log loss, calibration error): the problem is recorded as
one line naming the file, the first line and how many rows have it, and raised where such a measure
is computed (:meth:`evalreport.counts.scores.ScoreCounts.require`).
"""
from __future__ import annotations

import numpy as np

__all__ = ["finite_scores", "range_problem", "sum_problem", "sum_tolerance", "sum_message", "SUM_TOLERANCE"]

SUM_TOLERANCE = 1e-6          # per class: K rounded probabilities may sum to 1 +- K x 0.5e-6
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
    tolerance = sum_tolerance(len(columns), [v[np.flatnonzero(off)[:1000]] for v in values])
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
        Per column, the scores of some rows whose sum is off by more than ``SUM_TOLERANCE`` per class
        (the rows that need the rule; up to 1000 suffice).

    Returns
    -------
    float
        ``K x 0.5 x 10^-d`` (plus 1e-12 for the float sum) when the most decimals any sampled score is
        written with, d, is from 1 to 5: K values rounded to d decimals sum to 1 within it; else
        ``K x SUM_TOLERANCE`` (d = 0: scores without decimals are 0 and 1, a one-hot row, whose sum is
        exactly 1; no rounding explains "1, 1, 0").
    """
    d = _decimals(samples)
    if d is not None and 0 < d < 6:
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


def _decimals(samples: list) -> int | None:
    """The most decimals any of these scores is written with (its shortest repr), or None beyond 15."""
    most = 0
    for value in (float(x) for column in samples for x in column):
        text = repr(abs(value))
        mantissa, _, exponent = text.partition("e")
        places = len(mantissa.partition(".")[2].rstrip("0")) - (int(exponent) if exponent else 0)
        most = max(most, places)
    return most if most <= 15 else None
