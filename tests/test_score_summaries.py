"""Per-column summaries of the score measures (evalreport.measures.scores.ScoreStats) against plain loops.

:class:`ScoreStats` builds every threshold-free value of a score column from one vector: Hand & Till's
(2001, eq. 3 and 7) A(i|j) for every j and the one-vs-rest AUC as sums of cnt_gj (TP_g - pos_g / 2).
These tests compare those values, unweighted and under bootstrap weights, for binary runs and for 3 and
5 classes, with ties (scores on a coarse grid) and with a class absent from the gold labels, against the
Mann-Whitney statistic counted pair by pair (Hanley & McNeil 1982) and against scikit-learn's
``roc_auc_score`` / ``average_precision_score`` with ``sample_weight``; and they check that one shared
:class:`ScoreStats` (as ``evalreport score`` uses it) gives the values of a fresh one per measure."""
from __future__ import annotations

import numpy as np
from hypothesis import given, settings, strategies as st
from sklearn import metrics as skm

from evalreport.counts.scores import score_counts, tie_groups
from evalreport.inputs.runs import Runs
from evalreport.measures.scores import SCORE_MEASURES, ScoreStats, compute_scores, summaries_of

THRESHOLD_FREE = ("roc_auc", "roc_auc_weighted", "roc_auc_ovo", "roc_auc_ovo_weighted", "average_precision",
                  "pr_auc")


def _runs(gold: np.ndarray, scores: np.ndarray, labels: tuple[str, ...], score_labels=()) -> Runs:
    S = scores.shape[0]
    return Runs(gold=gold, pred=np.zeros((S, gold.shape[0]), dtype=int), labels=labels,
                systems=tuple(f"s{i}" for i in range(S)), scores=scores, score_labels=score_labels)


def _scores(rng: np.random.Generator, S: int, n: int, K: int, grid: int) -> np.ndarray:
    raw = np.round(rng.dirichlet(np.ones(K), size=(S, n)) * grid) / grid           # ties
    raw[..., -1] = np.clip(1.0 - raw[..., :-1].sum(-1), 0, 1)
    return raw / raw.sum(-1, keepdims=True)


def _pair_auc(x: np.ndarray, wx: np.ndarray, y: np.ndarray, wy: np.ndarray) -> float:
    """P(score of an x item > score of a y item) + P(tie) / 2 over weighted pairs, pair by pair."""
    above = (x[:, None] > y[None, :]) + 0.5 * (x[:, None] == y[None, :])
    den = wx.sum() * wy.sum()
    return float(wx @ above @ wy / den) if den > 0 else np.nan


def _reference(gold: np.ndarray, p: np.ndarray, w: np.ndarray, K: int) -> dict[str, float]:
    """Macro and weighted one-vs-rest and one-vs-one AUC of one system under item weights ``w``, undefined
    classes and pairs skipped in the averages (the ``nan`` policy)."""
    prev = np.array([w[gold == k].sum() for k in range(K)])
    ovr = np.array([_pair_auc(p[gold == k, k], w[gold == k], p[gold != k, k], w[gold != k]) for k in range(K)])
    pairs = [(i, j) for i in range(K) for j in range(i + 1, K)]
    ovo = np.array([(_pair_auc(p[gold == i, i], w[gold == i], p[gold == j, i], w[gold == j])
                     + _pair_auc(p[gold == j, j], w[gold == j], p[gold == i, j], w[gold == i])) / 2 for i, j in pairs])
    pw = np.array([prev[i] + prev[j] for i, j in pairs])
    ok, pok = ~np.isnan(ovr), ~np.isnan(ovo)
    return {"roc_auc": ovr[ok].mean(), "roc_auc_weighted": (ovr[ok] * prev[ok]).sum() / prev[ok].sum(),
            "roc_auc_ovo": ovo[pok].mean(), "roc_auc_ovo_weighted": (ovo[pok] * pw[pok]).sum() / pw[pok].sum()}


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(10, 60), K=st.sampled_from([3, 5]),
       grid=st.sampled_from([3, 10, 1000]), absent=st.booleans())
def test_auc_summaries_equal_pairs_counted_one_by_one(seed: int, n: int, K: int, grid: int, absent: bool) -> None:
    rng = np.random.default_rng(seed)
    gold = np.concatenate([np.arange(K), rng.integers(0, K, n - K)])
    if absent:
        gold[gold == 1] = 0                                          # class 1 has no gold items
    p = _scores(rng, 2, n, K, grid)
    labels = tuple(f"c{k}" for k in range(K))
    sc = score_counts(_runs(gold, p, labels, labels))
    weights = np.vstack([np.ones(n), np.bincount(rng.integers(0, n, n), minlength=n)]).astype(float)
    for mid in ("roc_auc", "roc_auc_weighted", "roc_auc_ovo", "roc_auc_ovo_weighted"):
        got = compute_scores(mid, sc, weights=weights).value
        for b in range(2):
            for s in range(2):
                if (weights[b][:, None] * (gold[:, None] == np.arange(K))).sum(0).astype(bool).sum() < 2:
                    continue
                want = _reference(gold, p[s], weights[b], K)[mid]
                np.testing.assert_allclose(got[b, s], want, rtol=0, atol=1e-9, err_msg=f"{mid} b={b} s={s}")


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(6, 60), grid=st.sampled_from([3, 10, 1000]))
def test_binary_summaries_equal_scikit_learn_with_sample_weights(seed: int, n: int, grid: int) -> None:
    rng = np.random.default_rng(seed)
    gold = np.concatenate([[0, 1], rng.integers(0, 2, n - 2)])
    p = np.round(rng.uniform(0, 1, (2, n)) * grid) / grid
    sc = score_counts(_runs(gold, p, ("neg", "pos")), positive=1)
    w = np.bincount(rng.integers(0, n, n), minlength=n).astype(float)[None, :]
    y = gold == 1
    if not (w[0] * y).sum() or not (w[0] * ~y).sum():
        return
    for mid, ref in (("roc_auc", skm.roc_auc_score), ("average_precision", skm.average_precision_score)):
        got = compute_scores(mid, sc, weights=w).value[0]
        want = [ref(y, p[s], sample_weight=w[0]) for s in range(2)]
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-9, err_msg=mid)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(10, 50), K=st.sampled_from([2, 3, 5]),
       absent=st.booleans())
def test_shared_stats_equal_one_stats_per_measure(seed: int, n: int, K: int, absent: bool) -> None:
    """``evalreport score`` shares one ScoreStats over every measure; a bootstrap asks only for the
    summaries its measures read: both give the values of a fresh ScoreStats per measure."""
    rng = np.random.default_rng(seed)
    gold = np.concatenate([np.arange(K), rng.integers(0, K, n - K)])
    if absent and K > 2:
        gold[gold == K - 1] = 0
    p = _scores(rng, 3, n, K, 10)
    labels = tuple(f"c{k}" for k in range(K))
    sc = score_counts(_runs(gold, p, labels, labels), positive=K - 1 if K == 2 else None)
    ids = [m for m in SCORE_MEASURES if K == 2 or m != "best_threshold_f1"]
    for weights in (None, np.bincount(rng.integers(0, n, (2, n)).ravel() % n + n * np.repeat([0, 1], n),
                                      minlength=2 * n).reshape(2, n).astype(float)):
        shared = ScoreStats(sc, weights)
        for mid in ids:
            alone = compute_scores(mid, sc, weights=weights)
            together = compute_scores(mid, sc, weights=weights, stats=shared)
            subset = compute_scores(mid, sc, weights=weights,
                                    stats=ScoreStats(sc, weights, wanted=summaries_of([mid])))
            for other in (together, subset):
                np.testing.assert_array_equal(other.value, alone.value, err_msg=mid)
                np.testing.assert_array_equal(other.undefined, alone.undefined, err_msg=mid)


def test_summaries_of_names_what_each_measure_reads() -> None:
    assert summaries_of(["roc_auc_ovo"]) == {"auc", "ovo"}
    assert summaries_of(["roc_auc_weighted", "pr_auc"]) == {"auc", "gold", "trap"}
    assert summaries_of(["brier", "ece"]) == set()
    assert set(summaries_of(THRESHOLD_FREE + ("best_threshold_f1",))) == {"auc", "gold", "ovo", "ap", "trap", "f1"}


@settings(max_examples=50, deadline=None)
@given(values=st.lists(st.sampled_from([0.0, -0.0, 0.25, 0.5, 1.0, -1.0, 1e-300, -1e-300, np.inf, -np.inf]) |
                       st.floats(allow_nan=False), max_size=40))
def test_tie_groups_equal_numpy_unique(values: list[float]) -> None:
    """One argsort gives the groups of ``np.unique`` (highest score first; -0.0 ties with 0.0)."""
    v = np.asarray(values, dtype=float)
    group, distinct = tie_groups(v)
    neg_distinct, inverse = np.unique(-v, return_inverse=True)
    np.testing.assert_array_equal(group, inverse.reshape(-1))
    np.testing.assert_array_equal(distinct, -neg_distinct)
