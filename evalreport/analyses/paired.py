"""Paired bootstrap differences between two systems under one measure, from the resamples the
comparison drew already (``samples``, ``(B, S, M)``: the same resampled items for every system).

For a pair (a, b) and a measure with direction ``sign`` (+1 higher is better, -1 lower), the
observed difference is ``d = sign * (v_a - v_b)`` (a better: d > 0) and its bootstrap distribution
``d*_r = sign * (v*_a,r - v*_b,r)``, both values on the SAME resample r. Per pair (:data:`COLUMNS`):

``difference``  d
``se``          the standard deviation of the d*_r: the paired standard error, which keeps the
                covariance that ``sqrt(se_a^2 + se_b^2)`` drops (smaller for systems right on
                mostly the same items)
``lo``, ``hi``  the percentile interval of the d*_r at level ``1 - alpha``
``p_value``     two-sided, ``2 Phi(-|d| / se)`` over the B' resamples where both values are defined
                (:func:`evalreport.analyses.significance.bootstrap_p`: for the primary measure the
                pairwise table's uncorrected ``p_value``)
``n_resamples`` B'
``family``      the family of tests of the row (below)
``p_holm``      ``p_value`` after Holm's correction within its family
``noise``       ``"beyond noise"`` when ``p_holm < alpha``, ``"within noise"`` otherwise,
                ``"undefined"`` without a defined difference

Every verdict is corrected within its family, so no sentence built on ``noise`` claims more than the
corrected tests support. :func:`comparison_pairs` makes two families: ``winner`` (each measure's
winner against its runner-up) and ``flip`` (both measures of every pair of systems whose order flips
between the primary measure and another); a pair in both families has a row in each.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from evalreport.analyses.significance import bootstrap_p, holm

__all__ = ["COLUMNS", "FAMILIES", "paired_differences", "winner_pairs", "flip_pairs", "comparison_pairs"]

COLUMNS = ["measure", "system_a", "system_b", "difference", "se", "lo", "hi", "p_value", "n_resamples", "family",
           "p_holm", "noise"]
#: The families of :func:`comparison_pairs`, in the order of their rows.
FAMILIES = ("winner", "flip")

#: Pairs whose ``(B, pairs)`` differences are computed at once (memory: 8 B x B x this).
_BLOCK = 2048


def paired_differences(samples: np.ndarray, point: np.ndarray, systems, measures, higher, pairs, *,
                       alpha: float = 0.05, family: str = "") -> pd.DataFrame:
    """One row per ``(measure, system_a, system_b)`` of ``pairs`` (see the module docstring).

    ``samples``: ``(B, S, M)`` resampled values; ``point``: ``(S, M)`` values on all items;
    ``systems`` / ``measures``: the names along S and M; ``higher``: per measure, True when
    higher is better; ``pairs``: iterable of ``(measure, system_a, system_b)`` (duplicates kept
    once, in first-seen order), one family: Holm's correction runs over these rows.
    """
    pairs = list(dict.fromkeys((str(m), str(a), str(b)) for m, a, b in pairs))
    if not pairs:
        return pd.DataFrame(columns=COLUMNS)
    samples = np.asarray(samples, dtype=float)
    point = np.asarray(point, dtype=float)
    s_at = {str(s): i for i, s in enumerate(systems)}
    m_at = {str(m): j for j, m in enumerate(measures)}
    jm = np.array([m_at[m] for m, _, _ in pairs])
    ia = np.array([s_at[a] for _, a, _ in pairs])
    ib = np.array([s_at[b] for _, _, b in pairs])
    sign = np.where(np.asarray([bool(h) for h in higher])[jm], 1.0, -1.0)
    d = sign * (point[ia, jm] - point[ib, jm])
    R = len(pairs)
    se, lo, hi, p, n = (np.full(R, np.nan) for _ in range(5))
    with np.errstate(all="ignore"):
        import warnings

        with warnings.catch_warnings():      # all-NaN columns (never defined) give NaN, silently
            warnings.simplefilter("ignore", RuntimeWarning)
            for start in range(0, R, _BLOCK):
                sl = slice(start, min(R, start + _BLOCK))
                dstar = sign[sl] * (samples[:, ia[sl], jm[sl]] - samples[:, ib[sl], jm[sl]])     # (B, r)
                q = np.nanquantile(dstar, [alpha / 2, 1 - alpha / 2], axis=0)
                lo[sl], hi[sl] = q[0], q[1]
                p[sl], n[sl], se[sl] = bootstrap_p(dstar, d[sl])
    p_holm = holm(p)
    noise = np.where(np.isnan(p), "undefined", np.where(p_holm < alpha, "beyond noise", "within noise"))
    return pd.DataFrame({"measure": [m for m, _, _ in pairs], "system_a": [a for _, a, _ in pairs],
                         "system_b": [b for _, _, b in pairs], "difference": d, "se": se, "lo": lo, "hi": hi,
                         "p_value": p, "n_resamples": n.astype(np.int64), "family": family, "p_holm": p_holm,
                         "noise": noise}, columns=COLUMNS)


def winner_pairs(ranks: pd.DataFrame) -> list[tuple[str, str, str]]:
    """(measure, winner, runner-up) of every measure of ``ranks`` (raw rows of ranks.csv) with one
    winner and a runner-up with a value (a tie for first has no lead to test; among systems tied
    for second the first in table order is the runner-up)."""
    r = ranks[ranks["value"].notna() & ranks["rank"].notna()]
    if r.empty:
        return []
    codes, names = pd.factorize(r["measure"])
    rank = r["rank"].to_numpy(float)
    system = r["system"].to_numpy(object)
    order = np.lexsort((rank, codes))                      # stable: table order among equal ranks
    codes, rank, system = codes[order], rank[order], system[order]
    starts = np.flatnonzero(np.r_[True, codes[1:] != codes[:-1]])
    ends = np.r_[starts[1:], len(codes)]
    out = []
    for s, e in zip(starts, ends):
        if e - s < 2 or rank[s + 1] == rank[s]:
            continue
        out.append((str(names[codes[s]]), str(system[s]), str(system[s + 1])))
    return out


def flip_pairs(disagreements: pd.DataFrame, primary: str) -> list[tuple[str, str, str]]:
    """(measure, a, b) under the primary and under the other measure of every pair of systems whose
    order flips between the two (the rows of disagreements.csv with ``measure_a`` = primary)."""
    if disagreements is None or not len(disagreements):
        return []
    d = disagreements[disagreements["measure_a"] == primary]
    out = []
    for a, b, mb in zip(d["system_a"], d["system_b"], d["measure_b"]):
        out += [(primary, str(a), str(b)), (str(mb), str(a), str(b))]
    return out


def comparison_pairs(comp, higher, *, alpha: float = 0.05) -> tuple[list[tuple[str, str, str]], pd.DataFrame]:
    """The paired differences a comparison's words need, from its resamples (``comp.samples``):
    each measure's winner against its runner-up, and both measures of every flip of the primary
    measure's order. ``comp``: a single-label or multi-label comparison (``scores``, ``ranks``,
    ``disagreements``, ``systems``, ``measures``, ``primary``, ``samples``); ``higher``: measure ->
    True when higher is better. Returns ``(winner pairs, frame)``; the frame is empty without
    resamples or with fewer than two systems."""
    if getattr(comp, "samples", None) is None or len(comp.systems) < 2:
        return [], pd.DataFrame(columns=COLUMNS)
    calibrated = comp.ranks["calibrated"].astype(bool) if "calibrated" in comp.ranks else False
    raw_ranks = comp.ranks[~calibrated] if "calibrated" in comp.ranks else comp.ranks
    margins = winner_pairs(raw_ranks)
    scores = comp.scores[~comp.scores["calibrated"].astype(bool)] if "calibrated" in comp.scores else comp.scores
    point = scores.drop_duplicates(["system", "measure"]).set_index(["system", "measure"])["value"].unstack()
    point = point.reindex(index=list(comp.systems), columns=list(comp.measures)).to_numpy(float)
    known = set(comp.measures)
    margins = [p for p in margins if p[0] in known]
    directions = [higher[m] for m in comp.measures]
    frames = [paired_differences(comp.samples, point, comp.systems, comp.measures, directions,
                                 [p for p in pairs if p[0] in known], alpha=alpha, family=family)
              for family, pairs in zip(FAMILIES, (margins, flip_pairs(comp.disagreements, comp.primary)))]
    frames = [f for f in frames if len(f)]
    frame = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=COLUMNS)
    return margins, frame
