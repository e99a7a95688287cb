"""Multi-label counts and measures: differential tests against scikit-learn, hand-worked cases,
resampling weights and invariants.

Policy <-> scikit-learn ``zero_division`` (each test below states which it uses):
``policy="zero"`` = ``zero_division=0`` (and sklearn's default ``"warn"``), ``policy="one"`` =
``zero_division=1``, ``policy="nan"`` = ``zero_division=np.nan`` (undefined labels / items are
left out of the average).
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from conftest import multilabel_runs
from hypothesis import given, settings, strategies as st
from sklearn import metrics as skm

from evalreport.counts.multilabel import STAT, count_multilabel, item_stats
from evalreport.errors import MeasureError
from evalreport.measures import REGISTRY, applicable, compute, default_measures, get
from evalreport.measures.multilabel import (
    EXAMPLE_IDS,
    compute_multilabel,
    label_based,
    label_record,
    label_values,
    multilabel_measures,
)

Runs = multilabel_runs          # the real MultiLabelRuns, made in memory


def random_runs(seed, S=3, N=40, L=6, p=0.3):
    """Random indicator matrices with empty gold rows, empty predictions, a label never predicted
    and a label absent from gold."""
    rng = np.random.default_rng(seed)
    gold = rng.random((N, L)) < p
    pred = rng.random((S, N, L)) < p
    gold[:3] = False                 # empty gold sets
    pred[:, 2:5] = False             # empty predictions (item 2: both empty)
    gold[:, -1] = False              # a label no gold item has
    pred[:, :, 0] = False            # a label no system predicts
    gold[5:8, 0] = True
    return Runs(gold, pred, tuple(f"l{i}" for i in range(L)), tuple(f"s{i}" for i in range(S)))


POLICY_ZD = {"zero": 0, "one": 1, "nan": np.nan}


def ours(runs, measure, policy):
    return compute_multilabel(measure, count_multilabel(runs), policy=policy).value


@pytest.mark.parametrize("seed", range(4))
def test_multilabel_confusion_matrix_layout(seed):
    """label_tensor[s] is scikit-learn's multilabel_confusion_matrix: [[TN, FP], [FN, TP]] per label."""
    runs = random_runs(seed)
    c = count_multilabel(runs)
    for s in range(3):
        np.testing.assert_array_equal(c.label_tensor[s], skm.multilabel_confusion_matrix(runs.gold, runs.pred[s]))
    np.testing.assert_array_equal(c.support, runs.gold.sum(axis=0))


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("policy", ["zero", "one", "nan"])
@pytest.mark.parametrize("average", ["macro", "micro", "weighted", "samples"])
@pytest.mark.parametrize("name", ["f1", "precision", "recall"])
def test_prf_against_sklearn(seed, policy, average, name):
    """{f1,precision,recall}_score(average=...) with zero_division = the policy (module docstring);
    'samples' is example_<name>."""
    runs = random_runs(seed)
    fn = {"f1": skm.f1_score, "precision": skm.precision_score, "recall": skm.recall_score}[name]
    ident = f"example_{name}" if average == "samples" else f"{name}_{average}"
    got = ours(runs, ident, policy)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = [fn(runs.gold, runs.pred[s], average=average, zero_division=POLICY_ZD[policy]) for s in range(3)]
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("policy", ["zero", "one"])
def test_jaccard_samples_against_sklearn(seed, policy):
    """jaccard_score(average='samples', zero_division=0|1) = example_jaccard under zero|one
    (sklearn refuses zero_division=nan for jaccard)."""
    runs = random_runs(seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = [skm.jaccard_score(runs.gold, runs.pred[s], average="samples", zero_division=POLICY_ZD[policy])
                for s in range(3)]
    np.testing.assert_allclose(ours(runs, "example_jaccard", policy), want, rtol=1e-12)


@pytest.mark.parametrize("seed", range(4))
def test_hamming_and_subset_accuracy_against_sklearn(seed):
    """hamming_loss and accuracy_score (subset accuracy) on indicator matrices: never undefined."""
    runs = random_runs(seed)
    pred = runs.pred.copy()
    pred[1] = runs.gold                       # one perfect system, so exact matches occur
    runs = Runs(runs.gold, pred, runs.labels, runs.systems)
    for policy in ("nan", "zero"):
        np.testing.assert_allclose(ours(runs, "hamming_loss", policy),
                                   [skm.hamming_loss(runs.gold, p) for p in pred], rtol=1e-12)
        np.testing.assert_allclose(ours(runs, "subset_accuracy", policy),
                                   [skm.accuracy_score(runs.gold, p) for p in pred], rtol=1e-12)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("name", ["mcc", "specificity", "jaccard"])
def test_label_based_is_binary_measure_per_label(seed, name):
    """Sebastiani (2015), footnote 8: multi-label = binary classification per label. Macro of MCC /
    specificity / Jaccard = the mean of scikit-learn's binary value per label (labels whose value
    is undefined excluded, policy nan); micro = the binary value on all (item, label) cells."""
    runs = random_runs(seed, N=60, L=5)
    runs = Runs(runs.gold, runs.pred, runs.labels, runs.systems)
    c = count_multilabel(runs)
    for s in range(3):
        g, p = runs.gold, runs.pred[s]
        if name == "mcc":
            per = [skm.matthews_corrcoef(g[:, j], p[:, j]) if g[:, j].any() and p[:, j].any()
                   and not g[:, j].all() and not p[:, j].all() else np.nan for j in range(g.shape[1])]
            micro = skm.matthews_corrcoef(g.ravel(), p.ravel())
        elif name == "specificity":
            per = [skm.recall_score(~g[:, j], ~p[:, j], zero_division=np.nan) for j in range(g.shape[1])]
            micro = skm.recall_score(~g.ravel(), ~p.ravel())
        else:
            per = [skm.jaccard_score(g[:, j], p[:, j]) if (g[:, j] | p[:, j]).any() else np.nan
                   for j in range(g.shape[1])]
            micro = skm.jaccard_score(g.ravel(), p.ravel())
        vals, undefined = label_values(name, c.label_tensor[s])
        np.testing.assert_allclose(vals, per, rtol=1e-12)
        np.testing.assert_array_equal(undefined, np.isnan(per))
        macro = label_based(f"{name}_macro", c.label_tensor, policy="nan").value[s]
        np.testing.assert_allclose(macro, np.nanmean(per), rtol=1e-12)
        np.testing.assert_allclose(label_based(f"{name}_micro", c.label_tensor).value[s], micro, rtol=1e-12)


def test_hand_worked_three_items():
    """Three items, labels a, b, c; one system.

    item  gold     pred     |G&P| |G| |P|  exact  symdiff  P_i  R_i  F1_i  J_i
    1     {a, b}   {a}        1    2   1     0      1       1   1/2   2/3  1/2
    2     {}       {}         0    0   0     1      0       -    -     -    -   (undefined, both empty)
    3     {c}      {b, c}     1    1   2     0      1      1/2   1    2/3  1/2

    subset accuracy 1/3; Hamming loss (1 + 0 + 1) / (3 * 3) = 2/9.
    policy nan (item 2 skipped): P = (1 + 1/2)/2 = 3/4, R = (1/2 + 1)/2 = 3/4, F1 = 2/3, J = 1/2.
    policy one (item 2 counts 1): P = 5/6, R = 5/6, F1 = (2/3 + 1 + 2/3)/3 = 7/9, J = 2/3.
    Per label: a TP 1 FN 0 FP 0; b TP 0 FN 1 FP 1; c TP 1. Macro F1 (1 + 0 + 1)/3 = 2/3;
    micro F1 2*2 / (2*2 + 1 + 1) = 2/3; weighted F1 (support a 1, b 1, c 1) = 2/3.
    """
    gold = np.array([[1, 1, 0], [0, 0, 0], [0, 0, 1]], bool)
    pred = np.array([[[1, 0, 0], [0, 0, 0], [0, 1, 1]]], bool)
    c = count_multilabel(Runs(gold, pred, ("a", "b", "c"), ("x",)))
    want = {"nan": dict(subset_accuracy=1 / 3, hamming_loss=2 / 9, example_precision=3 / 4, example_recall=3 / 4,
                        example_f1=2 / 3, example_jaccard=1 / 2),
            "one": dict(example_precision=5 / 6, example_recall=5 / 6, example_f1=7 / 9, example_jaccard=2 / 3)}
    for policy, values in want.items():
        for ident, v in values.items():
            r = compute_multilabel(ident, c, policy=policy)
            assert r.value[0] == pytest.approx(v), (ident, policy)
    r = compute_multilabel("example_f1", c, policy="nan")
    assert r.undefined[0] and "empty gold and predicted" in r.reason[0]
    assert not compute_multilabel("subset_accuracy", c).undefined[0]
    for ident in ("f1_macro", "macro_f1", "f1_micro", "micro_f1", "f1_weighted", "weighted_f1"):
        assert compute_multilabel(ident, c).value[0] == pytest.approx(2 / 3), ident
    assert compute_multilabel("example_jaccard", c,
                              policy="convention").value[0] == pytest.approx(2 / 3)   # convention 1


def test_micro_f1_is_not_accuracy_for_sets():
    """Single-label micro F1 equals accuracy (registry alias); for label sets it is the F1 of the
    summed per-label matrices, which differs from subset accuracy."""
    runs = random_runs(0)
    c = count_multilabel(runs)
    assert label_record("f1_micro").averaging == "micro" and label_record("micro_f1").base == "f1"
    assert not np.allclose(compute_multilabel("f1_micro", c).value, compute_multilabel("subset_accuracy", c).value)


@pytest.mark.parametrize("ident", ["accuracy", "balanced_accuracy", "mcc", "kappa", "k", "f1", "mae",
                                   "macro_f1(classes=a|b)"])
def test_refused_records(ident):
    with pytest.raises(MeasureError, match="multi-label|label sets|positive class|not built"):
        label_record(ident)


def test_example_records_not_offered_for_single_label():
    for ident in EXAMPLE_IDS:
        m = REGISTRY[ident]
        assert m.kind == "example" and m.source and m.formula and m.undefined
        assert not applicable(m, positive=0)[0]
        with pytest.raises(MeasureError, match="example-based"):
            compute(ident, np.eye(3))
    assert not any(m.kind == "example" for m in default_measures(positive=0))
    ids = [m.id for m in multilabel_measures()]
    assert set(EXAMPLE_IDS) <= set(ids) and "f1_micro" in ids and "fbeta_macro" not in ids


@pytest.mark.parametrize("seed", range(3))
def test_weighted_counts_equal_resampled_items(seed):
    """Batched counts with weights (B, N) = the counts of the items repeated by their weights."""
    runs = random_runs(seed, N=30)
    rng = np.random.default_rng(seed)
    W = rng.multinomial(30, np.full(30, 1 / 30), size=5).astype(float)
    batched = count_multilabel(runs, W, max_cells=50)        # small chunks: the chunking is exercised
    assert batched.label_tensor.shape == (5, 3, 6, 2, 2) and batched.example_stats.shape[:2] == (5, 3)
    for b in range(5):
        idx = np.repeat(np.arange(30), W[b].astype(int))
        one = count_multilabel(Runs(runs.gold[idx], runs.pred[:, idx], runs.labels, runs.systems))
        np.testing.assert_allclose(batched.label_tensor[b], one.label_tensor)
        np.testing.assert_allclose(batched.example_stats[b], one.example_stats)


def test_item_stats_columns():
    gold = np.array([[1, 0], [0, 0]], bool)
    pred = np.array([[[1, 1], [0, 0]]], bool)
    st_ = item_stats(gold, pred)[0]
    assert st_[0, STAT["symdiff"]] == 1 and st_[1, STAT["exact"]] == 1 and st_[1, STAT["f1_undef"]] == 1
    assert st_[0, STAT["precision_sum"]] == 0.5 and st_[0, STAT["recall_sum"]] == 1


indicator = st.integers(0, 2**31 - 1)


@settings(max_examples=40, deadline=None)
@given(seed=indicator, N=st.integers(1, 25), L=st.integers(1, 6))
def test_invariants(seed, N, L):
    """Permuting items changes nothing; permuting labels leaves example-based and micro / macro /
    weighted values unchanged; a perfect system scores each measure's best (range end)."""
    rng = np.random.default_rng(seed)
    gold = rng.random((N, L)) < 0.4
    gold[0, 0] = True        # some gold label, so that a support-weighted mean has weight
    pred = rng.random((2, N, L)) < 0.4
    pred[1] = gold
    runs = Runs(gold, pred, tuple(map(str, range(L))), ("a", "perfect"))
    base = count_multilabel(runs)
    items = rng.permutation(N)
    labs = rng.permutation(L)
    by_items = count_multilabel(Runs(gold[items], pred[:, items], runs.labels, runs.systems))
    by_labels = count_multilabel(Runs(gold[:, labs], pred[:, :, labs], runs.labels, runs.systems))
    for ident in (*EXAMPLE_IDS, "f1_macro", "f1_micro", "f1_weighted", "mcc_macro", "precision_macro"):
        for policy in ("nan", "zero", "one"):
            v = compute_multilabel(ident, base, policy=policy).value
            np.testing.assert_allclose(compute_multilabel(ident, by_items, policy=policy).value, v, equal_nan=True)
            np.testing.assert_allclose(compute_multilabel(ident, by_labels, policy=policy).value, v,   # a mean in
                                       equal_nan=True, rtol=1e-12, atol=1e-15)    # another order: 0 vs 2.8e-17
    for ident in (*EXAMPLE_IDS, "f1_micro", "recall_weighted", "accuracy_macro"):
        m = get(ident)
        rec = label_record(m)
        best = rec.range[1] if rec.higher_is_better else rec.range[0]
        v = compute_multilabel(ident, base, policy="one").value[1]
        assert v == pytest.approx(best), ident


@pytest.mark.parametrize("average", ["macro", "micro", "weighted"])
def test_parametrised_average_against_sklearn(average):
    """fbeta_<average>(beta=2) = fbeta_score(beta=2, average=..., zero_division=0) under policy zero."""
    runs = random_runs(5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = [skm.fbeta_score(runs.gold, runs.pred[s], beta=2, average=average, zero_division=0) for s in range(3)]
    np.testing.assert_allclose(ours(runs, f"fbeta_{average}(beta=2)", "zero"), want, rtol=1e-12)


def test_evaluate_dispatches_multilabel_data():
    from evalreport.measures import evaluate

    runs = random_runs(1)
    frame = evaluate(runs, ["example_f1", "f1_micro", "hamming_loss"])
    assert list(frame.columns) == ["system", "measure", "value", "undefined", "reason"] and len(frame) == 9
    row = frame[(frame.system == "s2") & (frame.measure == "hamming_loss")]
    assert row.value.iloc[0] == pytest.approx(skm.hamming_loss(runs.gold, runs.pred[2]))
    assert set(evaluate(count_multilabel(runs)).measure) == {m.id for m in multilabel_measures()}
    with pytest.raises(MeasureError, match="positive class"):
        evaluate(runs, positive=0)
    with pytest.raises(MeasureError, match="single-label"):
        evaluate(runs, ["kappa"])
