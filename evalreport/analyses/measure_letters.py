"""Significance letters, tiers and rank intervals under every measure of a comparison.

:func:`evalreport.analyses.compare.compare` runs the pairwise tests (and so the letters and rank
intervals) on the primary measure only. A page where the reader picks the measure needs them under
each measure; this module derives them from the comparison's own paired bootstrap resamples
(:attr:`~evalreport.analyses.compare.Comparison.samples`): the same resamples, the p-values of the
same paired bootstrap test (those of :func:`evalreport.analyses.engine.pairwise_tests`, bit for bit,
computed for all measures at once by :func:`evalreport.analyses.stacked_tests.stacked_bootstrap_p`),
Holm-corrected over the pairs of each measure, the compact letter display of Piepho (2004), the tiers
of :func:`evalreport.analyses.significance.groups` and the simultaneous rank intervals of
:func:`evalreport.analyses.rank_intervals.rank_intervals`. Nothing is resampled again, and no frame
of every pair is built.

The primary measure keeps the comparison's own rows (its letters come from the test the user chose,
``pairwise_test``, which may be the randomisation test or McNemar's); every other measure uses the
paired bootstrap test, and the ``test`` column says which.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from evalreport.analyses.letters import compact_letters
from evalreport.analyses.significance import bootstrap_p, holm
from evalreport.analyses.stacked_tests import rank_bounds, separated, stacked_bootstrap_p, tiers
from evalreport.errors import InputError

__all__ = ["MEASURE_LETTER_COLUMNS", "measure_letters"]

#: The columns of the ``measure_letters`` table.
MEASURE_LETTER_COLUMNS = ["system", "measure", "test", "letters", "group", "rank_lo", "rank_hi"]


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
    if not 0.0 < level < 1.0:
        raise InputError(f"alpha must lie strictly between 0 and 1; got {level!r}")
    systems = list(comparison.systems)
    raw = comparison.scores[~comparison.scores["calibrated"].astype(bool)]
    own = [mid == comparison.primary and len(comparison.groups) > 0 for mid in comparison.measures]
    tested = [j for j, keep in enumerate(own) if not keep]
    values = np.empty((len(systems), len(tested)))
    for k, j in enumerate(tested):
        values[:, k] = raw[raw["measure"] == comparison.measures[j]].set_index("system")["value"].reindex(
            systems).to_numpy(dtype=float)
    higher = np.array([bool(comparison.record(comparison.measures[j]).higher_is_better) for j in tested], dtype=bool)
    a, b = np.triu_indices(len(systems), 1)
    p = stacked_bootstrap_p(samples[:, :, tested], values, higher, a, b)       # (pairs, tested measures)
    hook = getattr(comparison, "pair_test", None)
    if hook is not None:            # several runs per system: the primary's test (t with Welch-Satterthwaite df)
        for k, j in enumerate(tested):
            found = hook(comparison.measures[j], a, b)
            if found is not None:
                sign = 1.0 if higher[k] else -1.0
                p[:, k] = bootstrap_p(sign * found[0], sign * (values[a, k] - values[b, k]), df=found[1])[0]
    frames = []
    for j, mid in enumerate(comparison.measures):
        if own[j]:
            frames.append(_primary_rows(comparison))
            continue
        k = tested.index(j)
        sign = 1.0 if higher[k] else -1.0
        difference = sign * (values[a, k] - values[b, k])
        frames.append(_rows(holm(p[:, k]), difference, a, b, systems, mid, values[:, k], bool(higher[k]), level))
    return pd.concat(frames, ignore_index=True)[MEASURE_LETTER_COLUMNS]


def _order(value: np.ndarray, higher: bool) -> np.ndarray:
    """The systems' indices best first under one measure (undefined values last, ties in system order)."""
    key = np.where(np.isnan(value), np.inf, -value if higher else value)
    return np.argsort(key, kind="stable")


def _rows(p_holm: np.ndarray, difference: np.ndarray, a: np.ndarray, b: np.ndarray, systems: list[str], mid: str,
          value: np.ndarray, higher: bool, alpha: float) -> pd.DataFrame:
    """One measure's rows from its Holm-corrected paired bootstrap p-values."""
    test = "bootstrap"
    if not len(p_holm) or np.isnan(p_holm).all():
        return pd.DataFrame({"system": systems, "measure": mid, "test": test, "letters": "", "group": np.nan,
                             "rank_lo": pd.NA, "rank_hi": pd.NA})
    S = len(systems)
    order = _order(value, higher)
    sep, tested = separated(p_holm, a, b, S, alpha)
    names = [systems[i] for i in order]
    letters = compact_letters(sep[np.ix_(order, order)], tested=tested[order])
    tier = pd.DataFrame({"system": names, "group": tiers(sep, tested, order), "letters": letters})
    lo, hi = rank_bounds(p_holm, difference, a, b, S, alpha)
    bounds = pd.DataFrame({"system": names, "rank_lo": lo[order], "rank_hi": hi[order]})
    out = pd.DataFrame({"system": systems}).merge(tier[["system", "letters", "group"]], on="system", how="left")
    out = out.merge(bounds, on="system", how="left")
    out["letters"] = out["letters"].fillna("")
    return out.assign(measure=mid, test=test)


def _primary_rows(comparison) -> pd.DataFrame:
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
