"""The bias simulation of Forman & Scholz (2010, section 4): which cross-validated F is unbiased?

Setting (section 4.2): a data set of ``n`` = 1000 cases, ``positives`` of them positive (1% to
25%); 10-fold cross-validation, folds of 100 test cases, built either *stratified* (positives and
negatives spread over the folds as evenly as possible, +-1) or *unstratified* (a random partition
into equal folds, so the positives per fold are multivariate hypergeometric). The classifier has
a known ground-truth F-measure ``f`` with precision = recall = f: each positive becomes a true
positive with probability f (recall), each negative a false positive with probability
pi (1 - f) / (1 - pi) (pi = positives / n), which makes the expected precision f as well. Within
each fold TP and FP are binomial draws. No items are generated: the simulation draws the fold
confusion counts directly and hands the (R, 10, 2, 2) tensor of R repetitions to
:func:`evalreport.analyses.crossval.aggregate_arrays`, i.e. the same code that serves real data
and the registry's F1, precision and recall.

For each estimator (the paper's F_tp,fp, F_avg, F~_avg, F_pr,re, F~_pr,re; ids ``pooled``,
``mean``, ``mean_defined``, ``pr_re``, ``pr_re_defined``) the result gives the relative bias
(E[estimate] - f) / f and the relative standard deviation sd(estimate) / f over the repetitions.

The paper ran a million repetitions per setting; :func:`run` defaults to 100,000 (the relative
standard error of a bias estimate is then about rel_sd / 316). Repetitions are processed in
chunks; each setting has its own seed derived from ``seed`` and the setting, so results do not
depend on the grid they were run in.

Figures (:func:`figure_frames`): ``figure5`` relative bias against the share of positives (1% to
5%) for f = 0.8; ``figure6`` / ``figure7`` relative bias against f (0.6 to 0.95) in three panels
(1%, 5%, 25% positives), stratified / unstratified; ``figure8`` relative standard deviation in the
same panels, stratified. The extracted text of the paper captions Figure 5 "unstratified" while
section 4.3 describes it as stratified; ``figure5`` therefore holds both (column ``stratified``).
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from evalreport.analyses.crossval import ESTIMATOR_NAMES, F_AGGREGATIONS, aggregate_arrays, f_validity

__all__ = ["PREVALENCES", "F_VALUES", "PANELS", "fold_counts", "simulate", "run", "figure_frames"]

#: Default grid: the shares of positives and ground-truth F of section 4 (1%-25%, 0.60-0.95).
PREVALENCES = (0.01, 0.02, 0.03, 0.04, 0.05, 0.10, 0.15, 0.20, 0.25)
F_VALUES = (0.60, 0.65, 0.70, 0.75, 0.80, 0.85, 0.90, 0.95)
#: The three panels of Figures 6-8 (shares of positives).
PANELS = (0.01, 0.05, 0.25)
FIG5_PREVALENCES = (0.01, 0.02, 0.03, 0.04, 0.05)
FIG5_F = 0.80


def _split(total: int, parts: int) -> np.ndarray:
    """``total`` spread over ``parts`` as evenly as possible (+-1), the extras in the first parts."""
    base, extra = divmod(total, parts)
    out = np.full(parts, base, dtype=np.int64)
    out[:extra] += 1
    return out


def fold_counts(rng, *, n: int, positives: int, folds: int, stratified: bool, repetitions: int):
    """Positives and negatives per fold, each (R, folds) int64.

    Stratified: fixed, positives +-1 per fold with the extras in the first folds and the
    negatives' extras in the last ones, so every fold has n / folds cases (+-1). Unstratified:
    a random partition of the n cases into folds of those sizes.
    """
    sizes = _split(n, folds)
    if stratified:
        pos = _split(positives, folds)
        neg = sizes - pos            # the negatives' extras land in the folds without a positive extra
        pos = np.broadcast_to(pos, (repetitions, folds))
        neg = np.broadcast_to(neg, (repetitions, folds))
    else:
        pos = rng.multivariate_hypergeometric(sizes, positives, size=repetitions)
        neg = sizes[None, :] - pos
    return pos, neg


def simulate(*, f: float, positives: int, n: int = 1000, folds: int = 10, stratified: bool = True,
             repetitions: int = 1000, seed=0, chunk: int = 20_000) -> dict:
    """One setting: summary statistics of the five F estimators over ``repetitions`` CV runs.

    Returns ``{aggregation id: (mean, sd, n_valid)}`` plus ``"invalid_rate"`` (share of
    repetitions with a fold of undefined precision or recall, V(i) = 0) and ``"undefined_rate"``
    per estimator (share of repetitions where the estimate itself is NaN, e.g. F~_avg when every
    fold is invalid; those repetitions are left out of its mean and sd).
    """
    if not 0 < positives < n:
        raise ValueError(f"positives must lie in 1..{n - 1}; got {positives}")
    rng = np.random.default_rng(seed)
    pi = positives / n
    fpr = pi * (1.0 - f) / (1.0 - pi)
    s1 = {k: 0.0 for k in F_AGGREGATIONS}
    s2 = {k: 0.0 for k in F_AGGREGATIONS}
    cnt = {k: 0 for k in F_AGGREGATIONS}
    invalid = 0
    done = 0
    while done < repetitions:
        r = min(chunk, repetitions - done)
        pos, neg = fold_counts(rng, n=n, positives=positives, folds=folds, stratified=stratified, repetitions=r)
        tp = rng.binomial(pos, f)
        fp = rng.binomial(neg, fpr)
        C = np.empty((r, folds, 2, 2))
        C[..., 0, 0] = neg - fp
        C[..., 0, 1] = fp
        C[..., 1, 0] = pos - tp
        C[..., 1, 1] = tp
        validity = f_validity(C, 1)
        invalid += int((~(validity[0] & validity[1])).any(axis=-1).sum())
        aggs = aggregate_arrays("f1", C, positive=1, validity=validity)
        for k in F_AGGREGATIONS:
            v = aggs[k].value
            ok = ~np.isnan(v)
            s1[k] += float(v[ok].sum())
            s2[k] += float((v[ok] ** 2).sum())
            cnt[k] += int(ok.sum())
        done += r
    out: dict[str, Any] = {}
    for k in F_AGGREGATIONS:
        m = s1[k] / cnt[k] if cnt[k] else np.nan
        var = (s2[k] / cnt[k] - m * m) * cnt[k] / (cnt[k] - 1) if cnt[k] > 1 else np.nan
        out[k] = (m, float(np.sqrt(max(var, 0.0))) if cnt[k] > 1 else np.nan, cnt[k])
    out["invalid_rate"] = invalid / repetitions
    return out


def _setting_seed(seed: int, stratified: bool, positives: int, f: float) -> np.random.SeedSequence:
    return np.random.SeedSequence([int(seed), int(stratified), int(positives), int(round(f * 10_000))])


def run(*, prevalences=PREVALENCES, f_values=F_VALUES, stratified=(True, False), repetitions: int = 100_000,
        n: int = 1000, folds: int = 10, seed: int = 0, chunk: int = 20_000) -> pd.DataFrame:
    """The simulation over a grid of settings, as one tidy frame.

    Columns: ``stratified, prevalence, positives, f_true, estimator`` (aggregation id),
    ``label`` (the paper's name), ``mean, sd, rel_bias, rel_sd, invalid_rate``
    (share of repetitions with a fold of undefined precision or recall), ``undefined_rate``
    (share of repetitions where this estimator had no value), ``repetitions``.
    """
    rows = []
    for strat in (stratified if isinstance(stratified, (tuple, list)) else (stratified,)):
        for prev in prevalences:
            positives = int(round(prev * n))
            for f in f_values:
                res = simulate(f=f, positives=positives, n=n, folds=folds, stratified=bool(strat),
                               repetitions=repetitions, seed=_setting_seed(seed, bool(strat), positives, f),
                               chunk=chunk)
                for k in F_AGGREGATIONS:
                    mean, sd, cnt = res[k]
                    rows.append({"stratified": bool(strat), "prevalence": float(prev), "positives": positives,
                                 "f_true": float(f), "estimator": k, "label": ESTIMATOR_NAMES[("f", k)],
                                 "mean": mean, "sd": sd, "rel_bias": (mean - f) / f, "rel_sd": sd / f,
                                 # Monte Carlo standard error of rel_bias: tells a bias from noise
                                 "rel_bias_se": sd / f / math.sqrt(max(cnt, 1)),
                                 "invalid_rate": res["invalid_rate"], "undefined_rate": 1.0 - cnt / repetitions,
                                 "repetitions": repetitions})
    return pd.DataFrame(rows)


def figure_frames(results: pd.DataFrame | None = None, *, repetitions: int = 100_000, seed: int = 0) -> dict:
    """The tidy frames the paper's Figures 5-8 plot (see the module docstring for which is which).

    ``results``: a frame from :func:`run` that covers the settings (it is filtered); without it
    the needed grid is simulated. Each frame has columns ``stratified, prevalence, f_true,
    estimator, label, value`` (``value`` = ``rel_bias`` for Figures 5-7, ``rel_sd`` for Figure 8),
    ``panel`` (e.g. "1% positives") for Figures 6-8, and ``metric``.
    """
    if results is None:
        results = pd.concat([
            run(prevalences=FIG5_PREVALENCES, f_values=(FIG5_F,), repetitions=repetitions, seed=seed),
            run(prevalences=PANELS, f_values=F_VALUES, repetitions=repetitions, seed=seed),
        ], ignore_index=True).drop_duplicates(["stratified", "prevalence", "f_true", "estimator"])

    def pick(*, prevs, fs, strat, metric):
        sel = results[results["prevalence"].round(6).isin([round(p, 6) for p in prevs])
                      & results["f_true"].round(6).isin([round(x, 6) for x in fs])
                      & results["stratified"].isin(strat)]
        missing = {(s, round(p, 6), round(x, 6)) for s in strat for p in prevs for x in fs} - set(
            zip(sel["stratified"], sel["prevalence"].round(6), sel["f_true"].round(6)))
        if missing:
            raise ValueError(f"the results lack {len(missing)} setting(s) needed, e.g. {sorted(missing)[0]} "
                             "(stratified, prevalence, f_true)")
        out = sel[["stratified", "prevalence", "f_true", "estimator", "label", metric]].rename(
            columns={metric: "value"}).assign(metric=metric)
        out["panel"] = (out["prevalence"] * 100).round().astype(int).astype(str) + "% positives"
        return out.reset_index(drop=True)

    return {
        "figure5": pick(prevs=FIG5_PREVALENCES, fs=(FIG5_F,), strat=(True, False), metric="rel_bias"),
        "figure6": pick(prevs=PANELS, fs=F_VALUES, strat=(True,), metric="rel_bias"),
        "figure7": pick(prevs=PANELS, fs=F_VALUES, strat=(False,), metric="rel_bias"),
        "figure8": pick(prevs=PANELS, fs=F_VALUES, strat=(True,), metric="rel_sd"),
    }
