"""The unweighted fast path of the score measures against the general one.

Without resampling weights, a score column is summarised from one sort of a packed (score code, class)
key (:func:`evalreport.counts.score_order.ordered_classes`, :func:`ordered_summaries`) instead of the
per-item tie groups and the ``(G, K)`` counts that resampling uses (:func:`column_summaries`). The two
must give the same tie groups, class counts and summaries: the Mann-Whitney numerators of the ROC AUC
(Hanley & McNeil 1982) and of Hand & Till's (2001) A(k|j) are sums of integers and halves, so they agree
exactly; average precision, PR AUC and the best F1 to rounding. The calibration helpers of
:mod:`evalreport.measures.score_items` (bins by arithmetic, Brier totals, the top label) are checked
against ``searchsorted``, the per-item sums and ``argmax``.
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import example, given, settings, strategies as st
from hypothesis.extra import numpy as hnp

from evalreport.counts.score_order import ordered_classes
from evalreport.counts.scores import score_counts, tie_groups
from evalreport.inputs.runs import Runs
from evalreport.measures.score_items import brier_items, calibration_bins, item_means, log_items, pick, top_label
from evalreport.measures.score_stats import SUMMARIES, column_summaries, ordered_summaries


def _reference(values: np.ndarray, classes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Classes in ascending score order and where tie groups start, by a stable argsort."""
    order = np.argsort(values, kind="stable")
    ordered = values[order]
    new = np.ones(values.size, dtype=bool)
    new[1:] = ordered[1:] != ordered[:-1]
    return classes[order], new


def _group_counts(ordered: np.ndarray, new: np.ndarray, K: int) -> np.ndarray:
    gid = np.cumsum(new) - 1
    return np.bincount(gid * K + ordered.astype(np.int64), minlength=(int(gid[-1]) + 1) * K if gid.size else 0)


finite = st.floats(allow_nan=False, allow_infinity=False)
probability = st.one_of(st.floats(0.0, 1.0), st.sampled_from([0.0, -0.0, 1.0, 0.5, 1e-300, 5e-324]))


@settings(max_examples=200, deadline=None)
@given(data=st.data(), K=st.sampled_from([1, 2, 3, 5, 8, 9, 200, 300]),
       kind=st.sampled_from(["finite", "probability", "grid"]))
@example(data=None, K=5, kind="edge")
def test_ordered_classes_equal_an_argsort(data, K: int, kind: str) -> None:
    if kind == "edge":        # zeros of both signs beside values near 1: the exponent-rank code
        values = np.array([0.0, -0.0, 1.0, 0.999999, 1e-6, 0.0, 1.0])
        classes = np.array([0, 1, 2, 3, 4, 0, 4])
    else:
        n = data.draw(st.integers(0, 60))
        elements = {"finite": finite, "probability": probability,
                    "grid": st.integers(-3, 3).map(lambda i: i / 4)}[kind]
        values = data.draw(hnp.arrays(np.float64, n, elements=elements))
        classes = data.draw(hnp.arrays(np.int64, n, elements=st.integers(0, K - 1)))
    got, new = ordered_classes(values, classes, K)
    want, want_new = _reference(values + 0.0, classes)
    np.testing.assert_array_equal(new, want_new)
    if values.size:
        np.testing.assert_array_equal(_group_counts(got, new, K), _group_counts(want, want_new, K))


def test_every_path_of_the_key_is_taken() -> None:
    """Probabilities without zeros (the plain code), with zeros (the exponent rank), signed decision values
    over a wide range and many classes (the argsort)."""
    rng = np.random.default_rng(3)
    n = 2_000
    cases = {"plain": rng.random(n) * 0.5 + 0.25, "zeros": np.where(rng.random(n) < 0.1, 0.0, rng.random(n)),
             "signed": rng.normal(size=n) * 1e6 + np.where(rng.random(n) < 0.5, 1e-300, -1e300)}
    for K in (2, 5, 300):
        classes = rng.integers(0, K, n)
        for values in cases.values():
            got, new = ordered_classes(values, classes, K)
            want, want_new = _reference(values, classes)
            np.testing.assert_array_equal(new, want_new)
            np.testing.assert_array_equal(_group_counts(got, new, K), _group_counts(want, want_new, K))


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(1, 300), K=st.sampled_from([2, 3, 5]),
       grid=st.sampled_from([2, 5, 100, 0]))
def test_ordered_summaries_equal_the_grouped_counts(seed: int, n: int, K: int, grid: int) -> None:
    rng = np.random.default_rng(seed)
    values = rng.random(n) if not grid else np.round(rng.random(n) * grid) / grid
    gold = rng.integers(0, K, n)
    group, _ = tie_groups(values)
    G = int(group.max()) + 1
    counts = np.bincount(group * K + gold, minlength=G * K).astype(float).reshape(1, G, K)
    # every summary at once (the one-vs-rest AUC then sums the one-vs-one numerators), and alone
    for wanted in (set(SUMMARIES), {"auc"}, {"trap"}, {"ap", "f1"}):
        for k in range(K):
            want = column_summaries(counts, k, wanted)
            got = ordered_summaries(*ordered_classes(values, gold, K), k, K, wanted)
            assert got.keys() == want.keys()
            for key in {"auc", "ovo"} & wanted:       # sums of integers and halves: equal
                for g, w in zip(got[key], want[key]):
                    np.testing.assert_array_equal(g, w)
            if "gold" in wanted:
                np.testing.assert_array_equal(got["gold"], want["gold"])
            for key in {"ap", "trap", "f1"} & wanted:
                for g, w in zip(got[key], want[key]):
                    np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12)


def test_uniform_bins_equal_searchsorted_on_the_edges() -> None:
    """Confidences on every edge m/M, one ulp either side, 0, 1 and outside [0, 1] (Guo et al. 2017: bin
    m holds ((m - 1)/M, m/M], 0 joins the first)."""
    for bins in (1, 10, 15, 100):
        edges = np.linspace(0.0, 1.0, bins + 1)
        conf = np.concatenate([edges, np.nextafter(edges, 2.0), np.nextafter(edges, -1.0), [0.0, 1.0, -0.5, 1.5],
                               np.random.default_rng(bins).random(500)])
        which, _ = calibration_bins(conf, bins)
        want = np.clip(np.searchsorted(edges, conf, side="left") - 1, 0, bins - 1)
        np.testing.assert_array_equal(which, want)


def _scored(S: int, n: int, K: int, seed: int, class_major: bool) -> Runs:
    rng = np.random.default_rng(seed)
    p = rng.dirichlet(np.ones(K), size=(S, n))
    p = np.round(p, 2)
    p[..., 0] = 1.0 - p[..., 1:].sum(-1)
    if class_major:                        # the readers' layout: (S, C, N) memory seen as (S, N, C)
        p = np.ascontiguousarray(p.transpose(0, 2, 1)).transpose(0, 2, 1)
    labels = tuple(f"c{k}" for k in range(K))
    return Runs(gold=rng.integers(0, K, n), pred=np.zeros((S, n), dtype=int), labels=labels,
                systems=tuple(f"s{i}" for i in range(S)), scores=p, score_labels=labels)


@pytest.mark.parametrize("class_major", [False, True])
@pytest.mark.parametrize("K", [2, 3, 6])
def test_item_means_and_top_label_equal_the_item_values(class_major: bool, K: int) -> None:
    sc = score_counts(_scored(3, 400, K, K, class_major))
    means = item_means(sc)
    np.testing.assert_allclose(means["brier"], brier_items(sc).mean(axis=1), rtol=1e-12)
    np.testing.assert_allclose(means["log_loss"], log_items(sc).mean(axis=1), rtol=1e-12)
    for s in range(3):
        x = sc.scores[s]
        top, conf = top_label(x)
        np.testing.assert_array_equal(top, np.argmax(x, axis=-1))          # ties: the first column
        np.testing.assert_array_equal(conf, x.max(axis=-1))
        idx = np.random.default_rng(s).integers(0, K, x.shape[0])
        np.testing.assert_array_equal(pick(x, idx), x[np.arange(x.shape[0]), idx])
