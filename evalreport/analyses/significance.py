"""Significance from the pairwise tests' outcomes: resampling p-values, McNemar's test, Holm and
Benjamini-Hochberg corrections, the smallest p-value a resampling test can give, and which
systems the tests separate, as a compact letter display (Piepho 2004) and as tiers
(:func:`evalreport.analyses.engine.pairwise_tests` runs the tests for single labels and label
sets alike; :mod:`evalreport.analyses.resampling` re-exports every name here).

Pairwise tests
--------------
``statistic`` of the bootstrap and randomisation rows is the observed difference
``d = m(a) - m(b)`` oriented by the measure's direction (negated for lower-is-better
measures, so ``d > 0`` always means "a is better").

bootstrap
    the paired bootstrap test with the normal approximation of the bootstrap distribution: with
    the bootstrap differences ``d*_b`` (the same resamples as
    :func:`~evalreport.analyses.resampling.bootstrap` with the same seed) and their standard
    deviation ``se*`` over the resamples where ``d*_b`` is defined, ``z = d / se*`` and
    ``p = 2 Phi(-|z|)``, two-sided (Efron & Tibshirani 1993, ch. 16: the bootstrap estimate of
    the standard error in a Wald test). Unlike the Monte-Carlo share
    ``(1 + #{b : |d*_b - d| >= |d|}) / (1 + B)``, which cannot go below ``1 / (1 + B)``, this
    p-value keeps its resolution in the far tail, so Holm's correction over the
    ``S (S - 1) / 2`` pairs of a shared task (300 pairs at 25 systems) can still separate
    systems with 1,000 resamples. When every ``d*_b`` equals ``d`` (``se* = 0``) the Monte-Carlo
    share is used (``1 / (1 + B)`` for ``d != 0``, 1 for ``d = 0``).
randomization
    approximate randomisation (Noreen 1989): in each of R rounds, every item on which the two
    systems disagree has their two outputs swapped with probability 1/2, and
    ``p = (1 + #{r : |d_r| >= |d|}) / (1 + R)`` (:func:`evalreport.analyses.engine.randomization_p`);
    how the swaps are drawn: :mod:`evalreport.analyses.randomization` (single labels),
    :class:`evalreport.analyses.multilabel.LabelSetDesign` (label sets).
mcnemar
    McNemar's test (McNemar 1947) on the discordant items of the pair: ``b`` = items a gets
    right and b wrong, ``c`` the reverse, with "right" meaning the predicted label is the gold
    one (``measure = "accuracy"``) or, for label sets, the predicted set is the gold set
    (``measure = "subset_accuracy"``). When ``b + c < 25`` the exact two-sided binomial test
    (``statistic = min(b, c)``), otherwise the chi-square test with continuity correction
    (Edwards 1948; ``statistic = (|b - c| - 1)^2 / (b + c)``, 1 degree of freedom); the
    ``detail`` column says which.

Degenerate cases have defined answers: identical systems give ``d = 0`` and p = 1 in every
test; no discordant items give McNemar p = 1. A NaN observed difference (the measure is
undefined for one of the systems) gives a NaN p-value, which the corrections leave out.
"""
from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

from evalreport.analyses.letters import compact_letters
from evalreport.errors import InputError

__all__ = ["holm", "benjamini_hochberg", "bootstrap_p", "mcnemar", "p_floor", "resamples_needed", "groups", "CORRECTIONS",
           "MCNEMAR_EXACT_BELOW", "ROUND_DECIMALS", "centred_p", "welch_df"]

CORRECTIONS = {"holm": "p_holm", "bh": "p_bh", "none": "p_value"}
MCNEMAR_EXACT_BELOW = 25          # exact binomial McNemar when b + c is below this
ROUND_DECIMALS = 12                       # decimals kept when comparing values for ranks and tests


# ----------------------------------------------------------------------------- corrections and McNemar


def holm(p_values) -> np.ndarray:
    """Holm's step-down adjusted p-values (NaN entries are left out and stay NaN)."""
    p = np.asarray(p_values, dtype=float)
    out = np.full(p.shape, np.nan)
    ok = ~np.isnan(p)
    q = p[ok]
    m = q.shape[0]
    if m:
        order = np.argsort(q, kind="stable")
        adj = np.minimum(1.0, np.maximum.accumulate((m - np.arange(m)) * q[order]))
        res = np.empty(m)
        res[order] = adj
        out[ok] = res
    return out


def p_floor(pairwise: pd.DataFrame, test: str = "bootstrap") -> dict | None:
    """The smallest p-value a resampling test can give, raw and after Holm's correction.

    The randomisation p-values are ``(1 + count) / (1 + B)`` with B the number of defined rounds
    (:func:`centred_p`), so no raw p is below ``1 / (B + 1)``; Holm multiplies
    the smallest of the m *defined* p-values by m (:func:`holm` leaves undefined ones out), so no
    Holm-corrected p is below ``min(1, m / (B + 1))``. None for a test without such a floor (McNemar; the bootstrap test, whose
    p-values come from the normal approximation, :func:`bootstrap_p`)
    or without a defined p-value.
    """
    if pairwise.empty or "n_resamples" not in pairwise:
        return None
    sub = pairwise[(pairwise["test"] == test) & pairwise["p_value"].notna()]
    if sub.empty or test in ("mcnemar", "bootstrap"):
        return None
    B = int(pd.to_numeric(sub["n_resamples"], errors="coerce").max())
    if B <= 0:
        return None
    m = len(sub)
    raw = 1.0 / (B + 1)
    return {"test": test, "B": B, "pairs": m, "raw": raw, "holm": min(1.0, m * raw),
            "at_floor": int((sub["p_value"] <= raw * (1 + 1e-9)).sum())}


def resamples_needed(pairs: int, alpha: float) -> int:
    """The fewest resamples B with a Holm floor ``pairs / (B + 1)`` below ``alpha`` (p < alpha is
    significant): the smallest integer B > pairs / alpha - 1."""
    B = max(0, math.floor(pairs / alpha) - 1)
    while pairs / (B + 1) >= alpha:
        B += 1
    while B > 0 and pairs / B < alpha:
        B -= 1
    return B


def benjamini_hochberg(p_values) -> np.ndarray:
    """Benjamini-Hochberg adjusted p-values (scipy's ``false_discovery_control``; NaN left out)."""
    p = np.asarray(p_values, dtype=float)
    out = np.full(p.shape, np.nan)
    ok = ~np.isnan(p)
    if ok.any():
        # here, not at the top: the report's kernel imports this module, not scipy.stats (1.5 s)
        from scipy import stats

        out[ok] = stats.false_discovery_control(p[ok], method="bh")
    return out


def mcnemar(b, c):
    """McNemar's test on discordant counts ``b`` and ``c`` (arrays): ``(statistic, p_value, exact)``.

    Exact two-sided binomial test (``statistic = min(b, c)``, ``p = min(1, 2 P(X <= min(b, c)))``
    with ``X ~ Bin(b + c, 1/2)``, which is scipy's ``binomtest`` for p = 1/2) when
    ``b + c < MCNEMAR_EXACT_BELOW``; otherwise chi-square with continuity correction. ``b + c = 0``
    gives statistic 0 and p = 1.
    """
    from scipy import stats  # here, not at the top: see benjamini_hochberg

    b = np.asarray(b, dtype=np.int64)
    c = np.asarray(c, dtype=np.int64)
    n = b + c
    exact = n < MCNEMAR_EXACT_BELOW
    small = np.minimum(b, c)
    p_exact = np.minimum(1.0, 2.0 * stats.binom.cdf(small, n, 0.5))
    with np.errstate(divide="ignore", invalid="ignore"):
        chi = np.where(n > 0, np.maximum(np.abs(b - c) - 1, 0) ** 2 / np.where(n > 0, n, 1), 0.0)
    p_chi = stats.chi2.sf(chi, 1)
    stat = np.where(exact, small.astype(float), chi)
    p = np.where(n == 0, 1.0, np.where(exact, p_exact, p_chi))
    return stat, p, exact


# ----------------------------------------------------------------------------- pairwise


def bootstrap_p(diffs: np.ndarray, observed: np.ndarray,
                df: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The paired bootstrap test's two-sided p-values per column: ``(p, n, se)``.

    ``diffs``: ``(B, r)`` bootstrap differences (NaN where undefined); ``observed``: ``(r,)``.
    ``se`` is the standard deviation of the defined ``d*_b`` and ``p = 2 Phi(-|d| / se)``
    (``erfc(|z| / sqrt 2)``); a column whose ``d*_b`` do not vary falls back to the Monte-Carlo
    share :func:`centred_p`; a NaN ``d`` or fewer than two defined resamples give NaN.
    ``df``: ``(r,)`` degrees of freedom of each column's ``se`` (None: all infinite); where finite,
    ``p = 2 P(T > |d| / se)`` with T Student's t with ``df`` degrees of freedom (several runs per
    system, :func:`welch_df`).
    """
    diffs = np.asarray(diffs, dtype=float)
    obs = np.round(np.asarray(observed, dtype=float), ROUND_DECIMALS)
    dof = None if df is None else np.asarray(df, dtype=float)
    r = diffs.shape[1] if diffs.ndim == 2 else 0
    if diffs.ndim != 2 or r <= _P_BLOCK:
        return _bootstrap_p_block(diffs, obs, dof)
    # columns are independent: blocks of pairs keep the (B, block) temporaries small (300 systems
    # have 44,850 pairs; one (1000, 44850) float array is 360 MB)
    parts = [_bootstrap_p_block(diffs[:, s:s + _P_BLOCK], obs[s:s + _P_BLOCK],
                                None if dof is None else dof[s:s + _P_BLOCK]) for s in range(0, r, _P_BLOCK)]
    return tuple(np.concatenate(k) for k in zip(*parts))          # type: ignore[return-value]


def welch_df(variance: np.ndarray, parts: np.ndarray, dfs: np.ndarray) -> np.ndarray:
    """The Welch-Satterthwaite degrees of freedom of a variance estimate (Satterthwaite 1946; Welch 1947).

    A variance that is a sum of independent parts, part i known with ``df_i`` degrees of freedom and the
    rest (here: the items' part) with infinitely many, has about
    ``variance^2 / sum_i(part_i^2 / df_i)`` degrees of freedom.

    Parameters
    ----------
    variance : ndarray
        ``(P,)`` the whole variance.
    parts : ndarray
        ``(k, P)`` the parts known with few degrees of freedom (each at most ``variance``).
    dfs : ndarray
        ``(k, P)`` their degrees of freedom (a part with 0 or fewer is left out: a system of one run).

    Returns
    -------
    ndarray
        ``(P,)``, at least the smallest ``df_i`` of a part left in; inf where no part is left in or all
        are 0; NaN where ``variance`` is NaN.
    """
    variance = np.asarray(variance, dtype=float)
    parts = np.minimum(np.asarray(parts, dtype=float), variance)
    dfs = np.asarray(dfs, dtype=float)
    used = (dfs > 0) & (parts > 0)
    with np.errstate(all="ignore"):
        den = np.where(used, parts ** 2 / np.where(used, dfs, 1.0), 0.0).sum(axis=0)
        df = np.where(den > 0, variance ** 2 / np.where(den > 0, den, 1.0), np.inf)
    floor = np.where(used, dfs, np.inf).min(axis=0)
    return np.where(np.isnan(variance), np.nan, np.maximum(df, np.where(np.isfinite(floor), floor, 0.0)))


#: Pairs per block of :func:`bootstrap_p`.
_P_BLOCK = 2048


def _bootstrap_p_block(diffs: np.ndarray, obs: np.ndarray,
                       df: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`bootstrap_p` of some columns, ``obs`` already rounded."""
    from scipy.special import erfc  # here, not at the top: see benjamini_hochberg

    d = np.round(diffs, ROUND_DECIMALS)
    valid = ~np.isnan(d)
    n = valid.sum(axis=0)
    with np.errstate(all="ignore"):
        mean = np.where(valid, d, 0.0).sum(axis=0) / np.maximum(n, 1)
        var = np.where(valid, (d - mean) ** 2, 0.0).sum(axis=0) / np.maximum(n - 1, 1)
        se = np.where(n > 1, np.sqrt(var), np.nan)
        z = np.abs(obs) / se
    flat = np.round(se, ROUND_DECIMALS) == 0
    p = np.array(erfc(z / np.sqrt(2.0)), dtype=float)
    if df is not None:
        p = _student_p(p, z, df)
    if flat.any():           # the Monte-Carlo share only where the d*_b do not vary
        p[flat] = centred_p(d[:, flat], obs[flat], centre=True)[0]
    p = np.where(obs == 0, 1.0, p)
    p = np.where(np.isnan(obs) | (n < 2), np.nan, p)
    return p, n, se


def _student_p(p: np.ndarray, z: np.ndarray, df: np.ndarray) -> np.ndarray:
    """``p`` with ``2 P(T_df > z)`` where ``df`` is finite (Student's t; infinite df keep the normal ``p``)."""
    from scipy.stats import t as student  # here, not at the top: see benjamini_hochberg

    finite = np.isfinite(df) & (df > 0)
    if not finite.any():
        return p
    out = p.copy()
    with np.errstate(all="ignore"):
        out[finite] = 2.0 * student.sf(z[finite], df[finite])
    return out


def centred_p(diffs: np.ndarray, observed: np.ndarray, *, centre: bool) -> tuple[np.ndarray, np.ndarray]:
    """Two-sided resampling p-values ``(1 + #{|d_r (- d)| >= |d|}) / (1 + valid)`` per column."""
    d = np.round(diffs, ROUND_DECIMALS)
    obs = np.round(observed, ROUND_DECIMALS)
    valid = ~np.isnan(d)
    dev = np.abs(d - obs) if centre else np.abs(d)
    hits = ((dev >= np.abs(obs) - 10.0 ** -ROUND_DECIMALS) & valid).sum(axis=0)
    n = valid.sum(axis=0)
    p = (1.0 + hits) / (1.0 + n)
    return np.where(np.isnan(obs), np.nan, p), n


# ----------------------------------------------------------------------------- groups


def groups(pairwise_df: pd.DataFrame, *, alpha: float = 0.05, test: str = "bootstrap", correction: str = "holm",
           order: Sequence[str] | None = None) -> pd.DataFrame:
    """Which systems the chosen test separates at ``alpha``: system, group, leader, letters.

    ``letters`` is the compact letter display of Piepho (2004) (:mod:`evalreport.analyses.letters`):
    two systems share a letter exactly when the ``test`` does not separate them (corrected p-value
    >= ``alpha``, or NaN), no letter is redundant, and letters follow ``order`` (the best system has
    'a'). It is what a reader is shown: it is true of every pair.

    ``group`` and ``leader`` are contiguous tiers ("connected to the leader"), kept for the tables
    that carry them: walk the systems from best to worst; a group starts at the first system not
    yet in a group (its leader) and takes the following systems, in order, as long as each is not
    separable from the leader; the first separable system starts the next group. Group 1 is the
    best system and the systems after it up to the first one separable from it. Tiers say nothing
    about pairs without the leader: two systems in different groups may well be inseparable (the
    letters show that), and a system after a later tier's start may be inseparable from the first
    leader.

    ``order`` lists the systems best first; by default they are ordered by their mean ``difference``
    against all others (for the bootstrap and randomisation tests that is the measure's value minus
    the mean value, so the order of the scores). ``correction``: ``holm``, ``bh`` or ``none``. A
    system with no defined p-value at all (its measure value is undefined, so no test could run)
    is in no group and has no letter: ``group`` NaN, ``leader`` and ``letters`` empty.
    """
    if correction not in CORRECTIONS:
        raise InputError(f"unknown correction {correction!r}; choose from {', '.join(CORRECTIONS)}")
    if not 0.0 < float(alpha) < 1.0:
        raise InputError(f"alpha must lie strictly between 0 and 1; got {alpha!r}")
    df = pairwise_df[pairwise_df["test"] == test]
    if df.empty:
        raise InputError(f"the pairwise table has no rows for test {test!r}")
    if df["measure"].nunique() != 1:
        raise InputError(f"the pairwise table holds several measures for test {test!r} "
                         f"({', '.join(map(str, df['measure'].unique()))}); select one first")
    systems = list(dict.fromkeys(list(df["system_a"]) + list(df["system_b"])))
    pos = {s: i for i, s in enumerate(systems)}
    S = len(systems)
    ia = df["system_a"].map(pos).to_numpy()
    ib = df["system_b"].map(pos).to_numpy()
    p = df[CORRECTIONS[correction]].to_numpy(dtype=float)
    separable = np.zeros((S, S), dtype=bool)
    separable[ia, ib] = separable[ib, ia] = p < alpha                        # NaN -> not separable
    tested = np.zeros(S, dtype=bool)
    tested[ia[~np.isnan(p)]] = tested[ib[~np.isnan(p)]] = True
    if order is None:
        diff = df["difference"].to_numpy(dtype=float)
        score = np.bincount(ia, weights=np.nan_to_num(diff), minlength=S) - np.bincount(
            ib, weights=np.nan_to_num(diff), minlength=S)
        seq = [systems[i] for i in np.argsort(-score, kind="stable")]
    else:
        seq = [str(s) for s in order]
        missing = set(systems) - set(seq)
        extra = [s for s in seq if s not in pos]
        if missing or extra or len(seq) != len(set(seq)):
            raise InputError("order must list every system of the pairwise table exactly once")
    group, leader = {}, {}
    g = 0
    current = None
    for s in seq:  # a walk over S systems, not a hot path
        if not tested[pos[s]]:
            group[s], leader[s] = np.nan, ""
            continue
        if current is None or separable[pos[current], pos[s]]:
            g += 1
            current = s
        group[s], leader[s] = g, current
    at = np.array([pos[s] for s in seq], dtype=np.int64)
    letters = compact_letters(separable[np.ix_(at, at)], tested=tested[at])
    return pd.DataFrame({"system": seq, "group": [group[s] for s in seq], "leader": [leader[s] for s in seq],
                         "letters": letters})
