"""Reading and checking a cost matrix (``--costs FILE``) for cost-sensitive measures, and a gain
matrix (``--gains FILE``) for the gain measures (evalreport/measures/gains.py).

File format: a square table with a header row of class names and one row per gold class,
whose first cell is that class's name (the header's first cell is free, e.g. ``gold``)::

    gold,low,mid,high
    low,0,1,4
    mid,1,0,1
    high,4,1,0

Entry (row i, column j) is the cost of predicting class j for an item of gold class i (rows =
gold, as everywhere in evalreport; Sebastiani 2015 writes Delta(c_j, c_i) for it). Comma-separated
(``.csv``) or tab-separated (``.tsv``, ``.tab``, ``.txt``); a file separated by ``;`` (a spreadsheet's
export in many locales) or ``|`` is read too (:mod:`evalreport.inputs.delimiters`). Rows and columns
may come in any order; they are reordered to the class list. Sebastiani (2015, section 6) requires Delta(c, c) = 0 and
Delta >= 0.

A gain matrix has the same format and goes through the same reader with the same errors (file
not found, not a regular file, wrong shape, unknown / missing class, duplicate row, non-numeric,
NaN or infinite entries); a gain may be any finite number, and the diagonal is free.
"""
from __future__ import annotations

import csv
from pathlib import Path

import numpy as np

from evalreport.errors import InputError
from evalreport.inputs.delimiters import DECIMAL_COMMA, sniff_delimiter

__all__ = ["read_costs", "validate_costs", "read_gains"]


def validate_costs(costs, labels=None, *, path=None) -> np.ndarray:
    """Check a cost matrix: square (K, K) matching ``labels``, finite, >= 0, zero diagonal."""
    C = np.asarray(costs, dtype=float)
    K = len(labels) if labels is not None else (C.shape[0] if C.ndim == 2 else 0)
    if C.shape != (K, K):
        raise InputError(f"cost matrix has shape {C.shape}; expected ({K}, {K}) for the classes "
                         f"{', '.join(map(str, labels or []))}", path=path)
    if not np.all(np.isfinite(C)):
        raise InputError("cost matrix has a missing or infinite entry", path=path)
    if (C < 0).any():
        raise InputError("cost matrix has a negative cost (Sebastiani 2015, section 6: Delta >= 0)", path=path)
    if np.any(np.diagonal(C) != 0):
        raise InputError("cost matrix must be 0 on the diagonal (Sebastiani 2015, section 6: Delta(c, c) = 0)",
                         path=path)
    return C


def read_costs(path, labels) -> np.ndarray:
    """Read a square cost-matrix file and return it as (K, K) floats in the order of ``labels``."""
    def check(value, text, where, same, line):
        if not np.isfinite(value) or value < 0:
            raise InputError(f"{where} is {text}; costs must be finite and >= 0", path=path, line=line)
        if same and value != 0:
            raise InputError(f"{where} is {text}: the diagonal must be 0 (Sebastiani 2015, section 6: "
                             "Delta(c, c) = 0)", path=path, line=line)

    return validate_costs(_read_square(path, labels, "cost", check), labels, path=path)


def read_gains(path, labels) -> np.ndarray:
    """Read a square gain-matrix file (``--gains``; rows = gold, any finite numbers) and return it
    as (K, K) floats in the order of ``labels``."""
    def check(value, text, where, same, line):
        if not np.isfinite(value):
            raise InputError(f"{where} is {text}; gains must be finite numbers", path=path, line=line)

    return _read_square(path, labels, "gain", check)


def _read_square(path, labels, what: str, check) -> np.ndarray:
    """The matrix of a square class x class file; ``check(value, text, where, on_diagonal, line)`` raises."""
    path = Path(path)
    if not path.exists():
        raise InputError(f"{what} matrix file not found", path=path)
    if not path.is_file():     # a folder, or a named pipe / device that would block or never end
        raise InputError(f"{what} matrix file is not a regular file", path=path)
    from evalreport.inputs.checks import check_text

    check_text(path)          # compressed, NUL bytes, CR-only line endings
    delimiter = sniff_delimiter(path, "," if path.suffix.lower() == ".csv" else "\t")   # ';' from a spreadsheet too
    try:
        with path.open(newline="", encoding="utf-8") as fh:
            rows = [(n, r) for n, r in enumerate(csv.reader(fh, delimiter=delimiter), start=1)
                    if any(cell.strip() for cell in r)]
    except UnicodeDecodeError:
        raise InputError("not a UTF-8 text file", path=path) from None
    except csv.Error as exc:   # e.g. a field over 128 KiB: no cost matrix looks like that
        raise InputError(f"cannot read as a {what} matrix: {exc}", path=path) from None
    if not rows:
        raise InputError(f"empty {what} matrix file", path=path)
    header = [c.strip() for c in rows[0][1][1:]]
    labels = [str(x) for x in labels]
    _same_classes(header, labels, path, line=rows[0][0], what="header")
    body = {}
    for line, row in rows[1:]:
        if len(row) != len(header) + 1:
            raise InputError(f"expected {len(header) + 1} fields (a class name and {len(header)} {what}s), "
                             f"found {len(row)}", path=path, line=line)
        name = row[0].strip()
        if name in body:
            raise InputError(f"gold class {name!r} has two rows", path=path, line=line)
        try:
            body[name] = [float(c) for c in row[1:]]
        except ValueError:
            bad = next(c for c in row[1:] if not _is_number(c)).strip()
            hint = ""
            if DECIMAL_COMMA.fullmatch(bad):
                hint = f": write the decimal point as '.' ({bad.replace(',', '.')}), not a decimal comma"
            raise InputError(f"{what} {bad!r} is not a number{hint}", path=path, line=line) from None
        for j, value in enumerate(body[name]):     # (validate_costs's checks, with the line)
            check(value, row[j + 1].strip(), f"{what} of predicting {header[j]!r} for gold {name!r}",
                  header[j] == name, line)
    _same_classes(list(body), labels, path, line=None, what="row names")
    col = [header.index(x) for x in labels]
    return np.array([[body[x][j] for j in col] for x in labels], dtype=float)


def _is_number(text: str) -> bool:
    try:
        float(text)
        return True
    except ValueError:
        return False


def _same_classes(found, labels, path, *, line, what):
    dup = sorted({x for x in found if found.count(x) > 1})
    if dup:
        raise InputError(f"the {what} repeat(s) {', '.join(map(repr, dup))}", path=path, line=line)
    missing = [x for x in labels if x not in found]
    extra = [x for x in found if x not in labels]
    if missing or extra:
        parts = ([f"missing {', '.join(map(repr, missing))}"] if missing else []) + (
            [f"unknown {', '.join(map(repr, extra))}"] if extra else [])
        raise InputError(f"the {what} must name every class ({', '.join(labels)}) once: " + "; ".join(parts),
                         path=path, line=line)
