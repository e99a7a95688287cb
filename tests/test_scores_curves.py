"""The curve frames of scored runs (evalreport/analyses/curves.py): equal to scikit-learn's curves,
and their areas equal to the measures (one sufficient statistic for both)."""
from __future__ import annotations

import numpy as np
import pytest
from sklearn import metrics as skm

from evalreport.analyses.curves import pr_curves, reliability, roc_curves
from evalreport.counts.scores import score_counts
from evalreport.inputs.runs import Runs
from evalreport.measures.scores import compute_scores


def _binary(seed=0, n=120, S=3, grid=20):
    rng = np.random.default_rng(seed)
    gold = rng.integers(0, 2, n)
    p = np.clip(np.round((gold * 0.3 + rng.uniform(0, 0.7, (S, n))) * grid) / grid, 0, 1)
    return Runs(gold=gold, pred=np.zeros((S, n), int), labels=("no", "yes"), systems=("a", "b", "c")[:S], scores=p)


def _multi(seed=1, n=150, K=3):
    rng = np.random.default_rng(seed)
    gold = rng.integers(0, K, n)
    p = np.round(rng.dirichlet(np.ones(K), size=(2, n)) * 10) / 10
    p[..., -1] = 1 - p[..., :-1].sum(-1)
    p = np.clip(p, 0, 1)
    p /= p.sum(-1, keepdims=True)
    labels = tuple("xyz"[:K])
    return Runs(gold=gold, pred=np.zeros((2, n), int), labels=labels, systems=("m1", "m2"), scores=p,
                score_labels=labels)


def test_roc_curve_equals_scikit_learn_and_its_area_is_roc_auc():
    runs = _binary()
    frame = roc_curves(runs, positive="yes")
    assert list(frame.columns) == ["system", "class", "fpr", "tpr", "threshold"]
    assert list(dict.fromkeys(frame["system"])) == ["a", "b", "c"] and set(frame["class"]) == {"yes"}
    auc = compute_scores("roc_auc", score_counts(runs, positive=1)).value
    for s, name in enumerate(runs.systems):
        part = frame[frame["system"] == name]
        fpr, tpr, thr = skm.roc_curve(runs.gold, runs.scores[s])
        np.testing.assert_allclose(part["fpr"], fpr, atol=1e-12)
        np.testing.assert_allclose(part["tpr"], tpr, atol=1e-12)
        np.testing.assert_allclose(part["threshold"][1:], thr[1:], atol=1e-12)
        assert np.trapezoid(part["tpr"], part["fpr"]) == pytest.approx(auc[s], abs=1e-12)


def test_pr_steps_sum_to_average_precision_and_trapezoids_to_pr_auc():
    runs = _multi()
    frame = pr_curves(runs)
    assert set(frame["class"]) == {"x", "y", "z"}
    sc = score_counts(runs)
    ap = compute_scores("average_precision", sc).value
    for s, name in enumerate(runs.systems):
        steps = []
        for k in "xyz":
            part = frame[(frame["system"] == name) & (frame["class"] == k)]
            steps.append((np.diff(part["recall"]) * part["precision"].to_numpy()[1:]).sum())
        assert np.mean(steps) == pytest.approx(ap[s], abs=1e-12)


def test_reliability_bins_give_the_ece():
    runs = _multi(n=200)
    sc = score_counts(runs)
    table = reliability(runs, bins=10)
    assert list(table.columns) == ["system", "bin", "lo", "hi", "confidence", "accuracy", "count"]
    ece = compute_scores("ece(bins=10)", sc).value
    for s, name in enumerate(runs.systems):
        part = table[(table["system"] == name) & (table["count"] > 0)]
        assert part["count"].sum() == 200
        got = (part["count"] / 200 * (part["accuracy"] - part["confidence"]).abs()).sum()
        assert got == pytest.approx(ece[s], abs=1e-12)


def test_a_system_without_scores_has_no_rows():
    runs = _binary(S=2)
    scores = np.array(runs.scores)
    scores[1] = np.nan
    runs = Runs(gold=runs.gold, pred=runs.pred, labels=runs.labels, systems=runs.systems, scores=scores)
    for frame in (roc_curves(runs, positive=1), pr_curves(runs, positive=1), reliability(runs, positive=1)):
        assert set(frame["system"]) == {"a"}
