"""Score-based measures (evalreport/measures/scores.py) against scikit-learn and plain loops.

Every value is compared with scikit-learn's function (roc_auc_score ovr/ovo, macro/weighted,
average_precision_score, brier_score_loss, log_loss, auc of precision_recall_curve) to 1e-9 on random
data WITH TIES (scores rounded to a coarse grid); the calibration errors with a loop written out
here from Guo et al. (2017, eq. 3) and Naeini et al. (2015)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from sklearn import metrics as skm

from evalreport.counts.scores import score_counts
from evalreport.inputs.runs import Runs
from evalreport.measures import get
from evalreport.measures.scores import compute_scores


def _runs(gold, scores, labels, score_labels=()):
    S = scores.shape[0]
    pred = np.zeros((S, gold.shape[0]), dtype=int)
    return Runs(gold=gold, pred=pred, labels=labels, systems=tuple(f"s{i}" for i in range(S)), scores=scores,
                score_labels=score_labels)


def _multi(seed: int, n: int, K: int, grid: int, S: int = 2):
    rng = np.random.default_rng(seed)
    gold = np.concatenate([np.arange(K), rng.integers(0, K, n - K)])       # every class present
    raw = rng.dirichlet(np.ones(K), size=(S, n))
    raw = np.round(raw * grid) / grid                                      # ties
    raw[..., -1] = 1.0 - raw[..., :-1].sum(-1)
    raw = np.clip(raw, 0, 1)
    raw /= raw.sum(-1, keepdims=True)
    labels = tuple(f"c{k}" for k in range(K))
    return gold, raw, labels


def _value(mid, runs, positive=None):
    return compute_scores(mid, score_counts(runs, positive=positive)).value


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(6, 80), grid=st.sampled_from([3, 5, 10, 1000]))
def test_binary_measures_equal_scikit_learn(seed, n, grid):
    rng = np.random.default_rng(seed)
    gold = np.concatenate([[0, 1], rng.integers(0, 2, n - 2)])
    p = np.round(rng.uniform(0, 1, (3, n)) * grid) / grid
    runs = _runs(gold, p, ("neg", "pos"))
    y = gold == 1
    for mid, ref in (("roc_auc", skm.roc_auc_score), ("average_precision", skm.average_precision_score),
                     ("brier", skm.brier_score_loss), ("log_loss", lambda a, b: skm.log_loss(a, b, labels=[0, 1]))):
        got = _value(mid, runs, positive=1)
        want = [ref(y.astype(int), p[s]) for s in range(3)]
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-9, err_msg=mid)
    pr = []
    f1 = []
    for s in range(3):
        prec, rec, thr = skm.precision_recall_curve(y, p[s])
        pr.append(skm.auc(rec, prec))
        f1.append(max(skm.f1_score(y, p[s] >= t) for t in thr))
    np.testing.assert_allclose(_value("pr_auc", runs, positive=1), pr, atol=1e-9)
    np.testing.assert_allclose(_value("best_threshold_f1", runs, positive=1), f1, atol=1e-9)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(8, 90), K=st.integers(3, 5), grid=st.sampled_from([4, 10, 1000]))
def test_multiclass_measures_equal_scikit_learn(seed, n, K, grid):
    gold, p, labels = _multi(seed, n, K, grid)
    runs = _runs(gold, p, labels, labels)
    cases = {
        "roc_auc": lambda q: skm.roc_auc_score(gold, q, multi_class="ovr", average="macro"),
        "roc_auc_weighted": lambda q: skm.roc_auc_score(gold, q, multi_class="ovr", average="weighted"),
        "roc_auc_ovo": lambda q: skm.roc_auc_score(gold, q, multi_class="ovo", average="macro"),
        "roc_auc_ovo_weighted": lambda q: skm.roc_auc_score(gold, q, multi_class="ovo", average="weighted"),
        "average_precision": lambda q: skm.average_precision_score(np.eye(K)[gold], q, average="macro"),
        "brier": lambda q: skm.brier_score_loss(gold, q),
        "log_loss": lambda q: skm.log_loss(gold, q, labels=list(range(K))),
    }
    for mid, ref in cases.items():
        np.testing.assert_allclose(_value(mid, runs), [ref(p[s]) for s in range(p.shape[0])], atol=1e-9, err_msg=mid)


def test_two_classes_with_per_class_columns_are_the_binary_measures():
    gold, p, labels = _multi(3, 60, 2, 10)
    runs = _runs(gold, p, labels, labels)
    for mid, ref in (("roc_auc", skm.roc_auc_score), ("brier", skm.brier_score_loss)):
        want = [ref(gold, p[s, :, 1]) for s in range(2)]
        np.testing.assert_allclose(_value(mid, runs, positive=1), want, atol=1e-12)
        np.testing.assert_allclose(_value(mid, runs), want, atol=1e-12)


def _plain_ece(conf, right, bins, edges=None):
    """Guo et al. (2017, eq. 3) written out: bins ((m-1)/M, m/M], 0 in the first."""
    edges = np.linspace(0, 1, bins + 1) if edges is None else edges
    total, worst, n = 0.0, 0.0, len(conf)
    for m in range(bins):
        lo, hi = edges[m], edges[m + 1]
        members = [i for i in range(n) if (lo < conf[i] <= hi) or (m == 0 and conf[i] <= lo)]
        if not members:
            continue
        acc = sum(right[i] for i in members) / len(members)
        avg = sum(conf[i] for i in members) / len(members)
        total += len(members) / n * abs(acc - avg)
        worst = max(worst, abs(acc - avg))
    return total, worst


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(5, 60), K=st.integers(2, 4), bins=st.sampled_from([1, 5, 15]))
def test_calibration_errors_equal_a_plain_loop(seed, n, K, bins):
    gold, p, labels = _multi(seed, n, K, 20)
    runs = _runs(gold, p, labels, labels)
    ece = _value(f"ece(bins={bins})", runs)
    mce = _value(f"mce(bins={bins})", runs)
    for s in range(p.shape[0]):
        top = p[s].argmax(-1)
        conf = p[s].max(-1)
        want_e, want_m = _plain_ece(conf, top == gold, bins)
        assert ece[s] == pytest.approx(want_e, abs=1e-12)
        assert mce[s] == pytest.approx(want_m, abs=1e-12)
        edges = np.quantile(conf, np.linspace(0, 1, bins + 1))
        edges[0], edges[-1] = 0.0, 1.0
        got_q = _value(f"ece(bins={bins},strategy=quantile)", runs)[s]
        assert got_q == pytest.approx(_plain_ece(conf, top == gold, bins, edges)[0], abs=1e-12)


def test_guo_binning_puts_an_edge_value_in_the_lower_bin():
    """Guo et al. (2017), section 2: I_m = ((m-1)/M, m/M]; 0.2 with M = 5 is in the first bin."""
    from evalreport.measures.score_items import calibration_bins

    which, _ = calibration_bins(np.array([0.0, 0.2, 0.2000001, 1.0]), 5)
    assert which.tolist() == [0, 0, 1, 4]


def test_undefined_cases_are_named():
    gold = np.array([0, 0, 0, 0])
    runs = _runs(gold, np.array([[0.1, 0.4, 0.3, 0.9]]), ("neg", "pos"))
    r = compute_scores("roc_auc", score_counts(runs, positive=1))
    assert np.isnan(r.value[0]) and r.undefined[0] and "no gold positives" in r.reason[0]
    scores = np.array([[0.1, 0.4, 0.3, 0.9], [np.nan] * 4])
    runs = _runs(np.array([0, 1, 0, 1]), scores, ("neg", "pos"))
    r = compute_scores("brier", score_counts(runs, positive=1))
    assert np.isfinite(r.value[0]) and np.isnan(r.value[1]) and "no score columns" in r.reason[1]


def test_registry_records_declare_scores():
    for mid in ("roc_auc", "roc_auc_ovo", "average_precision", "pr_auc", "brier", "log_loss", "ece", "mce",
                "best_threshold_f1", "roc_auc_weighted"):
        m = get(mid)
        assert m.kind == "scores" and m.source and m.formula and m.undefined
    assert get("roc_auc").chance == 0.5 and get("brier").higher_is_better is False


def test_resampled_weights_equal_measures_on_the_repeated_items():
    """A bootstrap resample as weights gives the value of the measure on the resampled items."""
    gold, p, labels = _multi(11, 50, 3, 10)
    runs = _runs(gold, p, labels, labels)
    sc = score_counts(runs)
    rng = np.random.default_rng(0)
    idx = rng.integers(0, 50, (4, 50))
    w = np.stack([np.bincount(i, minlength=50) for i in idx]).astype(float)
    for mid in ("roc_auc", "roc_auc_ovo", "average_precision", "brier", "log_loss", "ece", "pr_auc"):
        got = compute_scores(mid, sc, weights=w).value
        for b in range(4):
            sub = _runs(gold[idx[b]], p[:, idx[b]], labels, labels)
            if len(set(gold[idx[b]])) < 3:
                continue
            np.testing.assert_allclose(got[b], _value(mid, sub), atol=1e-9, err_msg=mid)
