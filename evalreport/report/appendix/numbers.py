"""How the appendix rounds: no digits beyond what the intervals resolve.

Rule (stated in methods.tex and docs/appendix.md). A value is printed with ``d`` decimals, where ``d``
is the decimal position of the first significant digit of the half-width ``w = (hi - lo) / 2``
of its bootstrap interval: ``d = -floor(log10(w))``, so that ``w`` rounded to ``d`` decimals is at
least one unit in the last digit (``w = 0.023`` gives ``d = 2``, ``w = 0.006`` gives
``d = 3``). It is the convention of stating an uncertainty to its first significant digit and the
value to the same decimal place (JCGM 100:2008, the GUM, section 7.2.6, with one significant digit).
One ``d`` serves a whole column of a table (one measure), so that the values line up: the
``d`` of the column's median half-width, clamped to ``[1, 4]``. Where there is no interval (no
bootstrap, confusion-matrix input, per-class values) the report's own 3 decimals are kept.

Both the report and the appendix format with Python's ``format`` (round half to even on the
binary value), so a number shown by both agrees to the appendix's last digit.
"""
from __future__ import annotations

import math

import numpy as np

__all__ = ["REPORT_DIGITS", "MIN_DIGITS", "MAX_DIGITS", "decimals", "fmt"]

#: Decimals of the HTML/PDF report's values (:mod:`evalreport.report.display`), used where no interval exists.
REPORT_DIGITS = 3
MIN_DIGITS, MAX_DIGITS = 1, 4


def decimals(lo, hi, *, default: int = REPORT_DIGITS) -> int:
    """The decimals of one column from its intervals' bounds (arrays; NaN where there is none)."""
    lo, hi = np.asarray(lo, dtype=float), np.asarray(hi, dtype=float)
    half = (hi - lo) / 2
    half = half[np.isfinite(half) & (half > 0)]
    if not half.size:
        return default
    d = -math.floor(math.log10(float(np.median(half))))
    return int(min(MAX_DIGITS, max(MIN_DIGITS, d)))


def fmt(value, d: int) -> str:
    """``value`` with ``d`` decimals; an empty string for NaN (the tables mark it); no ``-0.00``."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    v = float(value)
    if math.isnan(v):
        return ""
    text = f"{v:.{d}f}"
    return text[1:] if text.startswith("-") and float(text) == 0 else text
