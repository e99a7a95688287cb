"""Paired tests on items for every pair of multi-label systems: approximate randomisation on the
primary measure and McNemar's test on exact match.

``randomization``
    approximate randomisation (Noreen 1989, *Computer-Intensive Methods for Testing Hypotheses*;
    Yeh 2000, "More accurate tests for the statistical significance of result differences",
    COLING, for NLP scores): in each of R rounds every item has the two systems' predicted SETS
    exchanged with probability 1/2 (a seeded generator of its own: ``default_rng([seed, 2])``),
    and ``p = (1 + #{r : |d_r| >= |d|}) / (1 + R_defined)`` with ``d`` the observed difference of
    the primary measure oriented by its direction (``d > 0``: a is better), as the single-label
    test (:mod:`evalreport.analyses.significance`). Rounds are counted with
    :func:`~evalreport.counts.multilabel.count_swapped` (one matrix product per pair).
    ``p_bootstrap`` repeats the paired bootstrap test's p of the same pair (``pairwise``).
``mcnemar``
    McNemar's test (McNemar 1947) on exact match (``measure = subset_accuracy``): ``n_ab`` items
    whose set a gets exactly right and b does not, ``n_ba`` the reverse. Conditional on
    ``n = n_ab + n_ba``, ``n_ab ~ Binomial(n, 1/2)`` under the null hypothesis. ``p_exact`` is the
    exact two-sided binomial test ``min(1, 2 P(X <= min(n_ab, n_ba)))`` (scipy's ``binomtest``);
    ``p`` is its mid-p form ``min(1, 2 P(X <= k) - P(X = k))`` with ``k = min(n_ab, n_ba)``,
    which Fagerland, Lydersen & Laake (2013, "The McNemar test for binary matched-pairs data:
    mid-p and asymptotic are better than exact conditional", BMC Medical Research Methodology 13:91)
    recommend over the exact test (it keeps the level in their evaluation and has more power).
    ``statistic`` = k; ``n = 0`` gives p = 1.

Columns: a, b (a before b in system order), test, measure, statistic, difference (oriented
difference of the measure: subset accuracy a - b for McNemar), p, p_holm (Holm across the pairs,
within each test), significant (``p_holm < alpha``), p_exact, p_bootstrap, n_ab, n_ba, discordant
(items whose sets differ; McNemar: n_ab + n_ba), rounds (defined randomisation rounds).
"""
from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats

from evalreport.analyses.significance import _centred_p, holm
from evalreport.counts.multilabel import count_swapped, item_features
from evalreport.measures import get
from evalreport.measures.multilabel import compute_multilabel, label_record

__all__ = ["TEST_COLUMNS", "paired_tests", "randomization_differences", "mcnemar_exact_match"]

TEST_COLUMNS = ["a", "b", "test", "measure", "statistic", "difference", "p", "p_holm", "significant", "p_exact",
                "p_bootstrap", "n_ab", "n_ba", "discordant", "rounds"]


def randomization_differences(runs, a: int, b: int, measure, swaps, *, policy: str = "nan", items=None,
                              features=None) -> np.ndarray:
    """``(R,)`` oriented differences ``m(a) - m(b)`` after exchanging the two systems' sets on the
    items where ``swaps (R, N)`` is 1 (the statistic of each randomisation round; ``items`` and
    ``features`` as :func:`~evalreport.counts.multilabel.count_swapped`)."""
    m = get(measure)
    sign = 1.0 if label_record(m).higher_is_better else -1.0
    counts = count_swapped(runs, a, b, swaps, items=items, features=features, example=m.kind == "example")
    v = compute_multilabel(m, counts, policy=policy, explain=False).value                     # (R, 2)
    return sign * (v[:, 0] - v[:, 1])


def _coin_flips(rng, rounds: int, n: int) -> np.ndarray:
    """``(rounds, n)`` fair 0/1 coins (uint8), one bit of the generator's raw 64-bit output each."""
    words = -(-rounds * n // 64)
    bits = np.unpackbits(rng.bit_generator.random_raw(words).view(np.uint8))
    return bits[:rounds * n].reshape(rounds, n)


def mcnemar_exact_match(gold, pred_a, pred_b):
    """``(n_ab, n_ba, statistic, p_mid, p_exact)`` of McNemar's test on exact match (module docstring)."""
    gold = np.asarray(gold, dtype=bool)
    ea = (np.asarray(pred_a, dtype=bool) == gold).all(axis=-1)
    eb = (np.asarray(pred_b, dtype=bool) == gold).all(axis=-1)
    n_ab, n_ba = int((ea & ~eb).sum()), int((~ea & eb).sum())
    n, k = n_ab + n_ba, min(n_ab, n_ba)
    if n == 0:
        return n_ab, n_ba, 0.0, 1.0, 1.0
    tail = 2.0 * stats.binom.cdf(k, n, 0.5)
    return n_ab, n_ba, float(k), float(min(1.0, tail - stats.binom.pmf(k, n, 0.5))), float(min(1.0, tail))


def paired_tests(runs, primary, point, *, rounds: int, seed: int, alpha: float, policy: str = "nan",
                 pairwise: pd.DataFrame | None = None, progress=None) -> pd.DataFrame:
    """The ``tests`` table (module docstring) for every pair of systems of ``runs``.

    ``point``: the primary measure's value per system (``(S,)``); ``rounds``: R (0 = no
    randomisation rows); ``pairwise``: the paired bootstrap table, whose p fills ``p_bootstrap``.
    """
    m = get(primary)
    sign = 1.0 if label_record(m).higher_is_better else -1.0
    S, N = len(runs.systems), runs.gold.shape[0]
    pairs = list(zip(*np.triu_indices(S, 1)))
    names = list(runs.systems)
    boot = {}
    if pairwise is not None and len(pairwise):
        boot = {(x, y): p for x, y, p in zip(pairwise["system_a"], pairwise["system_b"], pairwise["p_value"])}
    rows = []
    if rounds > 0:
        rng = np.random.default_rng([seed, 2])
        pred = np.asarray(runs.pred, dtype=bool)
        features = item_features(runs)
        for done, (i, j) in enumerate(pairs):
            observed = sign * (point[i] - point[j])
            differ = (pred[i] != pred[j]).any(axis=-1)
            items = np.flatnonzero(differ)            # identical sets swap to themselves
            swaps = _coin_flips(rng, rounds, items.shape[0])
            d = randomization_differences(runs, int(i), int(j), m, swaps, policy=policy, items=items,
                                          features=features)
            p, valid = _centred_p(d[:, None], np.array([observed]), centre=False)
            rows.append({"a": names[i], "b": names[j], "test": "randomization", "measure": m.id,
                         "statistic": observed, "difference": observed, "p": float(p[0]), "p_exact": np.nan,
                         "p_bootstrap": boot.get((names[i], names[j]), np.nan), "n_ab": pd.NA, "n_ba": pd.NA,
                         "discordant": int(differ.sum()), "rounds": int(valid[0])})
            if progress is not None:
                progress(done + 1, len(pairs))
    gold = np.asarray(runs.gold, dtype=bool)
    for i, j in pairs:
        n_ab, n_ba, k, p_mid, p_exact = mcnemar_exact_match(gold, runs.pred[i], runs.pred[j])
        rows.append({"a": names[i], "b": names[j], "test": "mcnemar", "measure": "subset_accuracy", "statistic": k,
                     "difference": (n_ab - n_ba) / N if N else np.nan, "p": p_mid, "p_exact": p_exact,
                     "p_bootstrap": np.nan, "n_ab": n_ab, "n_ba": n_ba, "discordant": n_ab + n_ba, "rounds": pd.NA})
    frame = pd.DataFrame(rows, columns=[c for c in TEST_COLUMNS if c not in ("p_holm", "significant")])
    frame.insert(7, "p_holm", np.nan)
    for test in ("randomization", "mcnemar"):
        at = (frame["test"] == test).to_numpy()
        frame.loc[at, "p_holm"] = holm(frame.loc[at, "p"].to_numpy(dtype=float))
    frame.insert(8, "significant", (frame["p_holm"] < alpha).to_numpy())
    for col in ("n_ab", "n_ba", "rounds"):
        frame[col] = frame[col].astype("Int64")
    frame["discordant"] = frame["discordant"].astype("int64")
    return frame[TEST_COLUMNS]
