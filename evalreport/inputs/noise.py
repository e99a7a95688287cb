"""The class-to-class flip matrix of ``--noise-matrix FILE`` (simulated gold-label noise,
:mod:`evalreport.analyses.label_noise`): the same square layout as a cost matrix (a header of class
names, one row per gold class: the probability that an item of that class is labelled as each
class), over the task's classes; every entry in [0, 1] and every row summing to 1.
"""
from __future__ import annotations

import numpy as np

from evalreport.errors import InputError
from evalreport.inputs.costs import read_gains

__all__ = ["read_noise_matrix", "ROW_SUM_TOLERANCE"]

#: A row may miss 1 by this much (probabilities written with a few decimals).
ROW_SUM_TOLERANCE = 1e-6


def read_noise_matrix(path, labels) -> tuple[tuple[float, ...], ...]:
    """Read a flip-matrix file and return its rows in the order of ``labels``.

    Parameters
    ----------
    path : str or Path
        The file (CSV or TSV; a header of class names, one row per gold class).
    labels : sequence of str
        The task's classes: the header and the row names must name each once.

    Returns
    -------
    tuple of tuple of float
        (K, K) probabilities, rows = gold.

    Raises
    ------
    InputError
        Not square over the classes, an entry outside [0, 1], or a row not summing to 1.
    """
    try:                                         # the square layout, class names and numbers checked
        M = read_gains(path, labels)
    except InputError as exc:
        problem = (exc.problem.replace("gain matrix", "noise matrix").replace("gains", "probabilities")
                   .replace("gain", "probability"))
        problem = problem if "noise matrix" in problem else "noise matrix: " + problem
        raise InputError(problem, path=exc.path, line=exc.line, item=exc.item) from None
    labels = [str(x) for x in labels]
    bad = np.argwhere((M < 0) | (M > 1))
    if len(bad):
        g, p = bad[0]
        raise InputError(f"noise matrix: the probability of labelling gold {labels[g]!r} as {labels[p]!r} is "
                         f"{M[g, p]:g}; probabilities lie in [0, 1]", path=path, line=_line(path, labels[g]))
    sums = M.sum(axis=1)
    off = np.flatnonzero(np.abs(sums - 1) > ROW_SUM_TOLERANCE)
    if len(off):
        g = int(off[0])
        raise InputError(f"noise matrix: the row of gold {labels[g]!r} sums to {sums[g]:g}; each row must sum "
                         "to 1", path=path, line=_line(path, labels[g]))
    return tuple(tuple(float(x) for x in row) for row in M)


def _line(path, name: str) -> int | None:
    """The 1-based line of the row named ``name`` (its first field), if found."""
    import csv
    from pathlib import Path

    with Path(path).open(newline="", encoding="utf-8") as fh:
        sample = fh.read(4096)
        fh.seek(0)
        delimiter = "\t" if "\t" in sample else ";" if ";" in sample and "," not in sample else ","
        for n, row in enumerate(csv.reader(fh, delimiter=delimiter), start=1):
            if n > 1 and row and row[0].strip() == name:
                return n
    return None
