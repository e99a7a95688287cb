"""Significance letters, tiers and rank intervals under every measure of a comparison.

:func:`evalreport.analyses.compare.compare` runs the pairwise tests (and so the letters and rank
intervals) on the primary measure only. A page where the reader picks the measure needs them under
each measure; this module derives them from the comparison's own paired bootstrap resamples
(:attr:`~evalreport.analyses.compare.Comparison.samples`): the same resamples, the same paired
bootstrap test (:func:`evalreport.analyses.engine.pairwise_tests`), Holm-corrected over the pairs of
each measure, the compact letter display of Piepho (2004) and the simultaneous rank intervals of
:func:`evalreport.analyses.rank_intervals.rank_intervals`. Nothing is resampled again.

The primary measure keeps the comparison's own rows (its letters come from the test the user chose,
``pairwise_test``, which may be the randomisation test or McNemar's); every other measure uses the
paired bootstrap test, and the ``test`` column says which.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import cast

import numpy as np
import pandas as pd

from evalreport.analyses.engine import Design, pairwise_tests
from evalreport.analyses.rank_intervals import rank_intervals
from evalreport.analyses.significance import groups

__all__ = ["MEASURE_LETTER_COLUMNS", "measure_letters"]

#: The columns of the ``measure_letters`` table.
MEASURE_LETTER_COLUMNS = ["system", "measure", "test", "letters", "group", "rank_lo", "rank_hi"]


class _Directions:
    """The two facts :func:`pairwise_tests` asks of a design for the bootstrap test: systems and directions."""

    def __init__(self, systems: Sequence[str]):
        self.systems = tuple(systems)

    def direction(self, measure) -> bool:
        """Whether higher values of ``measure`` are better."""
        return bool(measure.higher_is_better)


def measure_letters(comparison, *, alpha: float | None = None) -> pd.DataFrame:
    """Letters, tier and rank interval of every system under every measure (raw scores).

    Parameters
    ----------
    comparison : Comparison
        A comparison of single-label or label-set runs; without bootstrap resamples
        (``samples`` None: confusion-matrix input or ``bootstrap = 0``) the table is empty.
    alpha : float, optional
        The level (default: the comparison's).

    Returns
    -------
    DataFrame
        :data:`MEASURE_LETTER_COLUMNS`, one row per system and measure; ``group`` 1 is the tier of the
        systems the test cannot separate from the first (the leader's tier), NaN for a system with an
        undefined value.
    """
    samples = comparison.samples
    if samples is None or len(comparison.systems) < 2:
        return pd.DataFrame(columns=MEASURE_LETTER_COLUMNS)
    level = float(comparison.settings.get("alpha", 0.05) if alpha is None else alpha)
    systems = list(comparison.systems)
    raw = comparison.scores[~comparison.scores["calibrated"].astype(bool)]
    design = cast(Design, _Directions(systems))      # only systems and direction() are asked of it
    frames = []
    for j, mid in enumerate(comparison.measures):
        if mid == comparison.primary and len(comparison.groups):
            frames.append(_primary_rows(comparison, level))
            continue
        record = comparison.record(mid)
        value = raw[raw["measure"] == mid].set_index("system")["value"].reindex(systems).to_numpy(dtype=float)
        pairs = pairwise_tests(design, record, value, tests=("bootstrap",), samples=samples[:, :, j], alpha=level)
        frames.append(_rows(pairs, systems, mid, value, record.higher_is_better, level, "bootstrap"))
    return pd.concat(frames, ignore_index=True)[MEASURE_LETTER_COLUMNS]


def _order(systems: list[str], value: np.ndarray, higher: bool) -> list[str]:
    """The systems best first under one measure (undefined values last, ties in system order)."""
    key = np.where(np.isnan(value), np.inf, -value if higher else value)
    return [systems[i] for i in np.argsort(key, kind="stable")]


def _rows(pairs: pd.DataFrame, systems: list[str], mid: str, value: np.ndarray, higher: bool, alpha: float,
          test: str) -> pd.DataFrame:
    """One measure's rows from its pairwise table."""
    order = _order(systems, value, higher)
    if not len(pairs) or pairs["p_holm"].isna().all():
        return pd.DataFrame({"system": systems, "measure": mid, "test": test, "letters": "", "group": np.nan,
                             "rank_lo": pd.NA, "rank_hi": pd.NA})
    tiers = groups(pairs, alpha=alpha, test=test, order=order)
    bounds = rank_intervals(pairs, order, alpha=alpha, test=test)
    out = pd.DataFrame({"system": systems}).merge(tiers[["system", "letters", "group"]], on="system", how="left")
    out = out.merge(bounds, on="system", how="left")
    out["letters"] = out["letters"].fillna("")
    return out.assign(measure=mid, test=test)


def _primary_rows(comparison, alpha: float) -> pd.DataFrame:
    """The primary measure's rows: the comparison's own letters, tiers and rank intervals."""
    board = comparison.leaderboard.set_index("system")
    test = str(comparison.settings.get("pairwise_test", "bootstrap"))
    g = comparison.groups.set_index("system")
    systems = list(comparison.systems)
    return pd.DataFrame({
        "system": systems, "measure": comparison.primary, "test": test,
        "letters": [str(g["letters"].get(s, "") or "") if s in g.index else "" for s in systems],
        "group": [g["group"].get(s, np.nan) if s in g.index else np.nan for s in systems],
        "rank_lo": [board["rank_lo"].get(s, pd.NA) for s in systems],
        "rank_hi": [board["rank_hi"].get(s, pd.NA) for s in systems]})
