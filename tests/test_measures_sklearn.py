"""Differential tests: the registry against scikit-learn on many random confusion matrices.

Matrices come from a seeded generator (K = 2..6, many zero cells, empty gold rows and empty
predicted columns); label arrays are rebuilt from each matrix with ``np.repeat`` and handed to
scikit-learn with ``labels=range(K)`` where it accepts them. Our ``policy`` is compared with
scikit-learn's ``zero_division``: ``"zero"`` with 0, ``"one"`` with 1, ``"nan"`` with ``np.nan``
(NaN classes skipped in averages on both sides). Where scikit-learn and our documented choice
differ, the difference itself is asserted.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from conftest import labels_from_confusion, make_confusions
from sklearn import metrics as skm

from evalreport import measures as M
from evalreport.measures.binary import ovr_counts

KS = (2, 3, 4, 5, 6)
PER_K = 10
POLICY_TO_ZD = {"zero": 0.0, "one": 1.0, "nan": np.nan}


@pytest.fixture(scope="module")
def stacks():
    rng = np.random.default_rng(7)
    out = {}
    for K in KS:
        C = make_confusions(rng, K, PER_K)
        C[0] = np.diag(rng.integers(1, 5, K))            # a perfect classifier
        C[1] = 0
        C[1, :, 0] = rng.integers(1, 5, K)               # everything predicted as class 0
        C[2] = 0
        C[2, 0, 0] = 3                                   # one class in gold and predictions only
        out[K] = C
    return out


def _labels(C):
    return labels_from_confusion(C)


def _sk(fn, *args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kw)


def _ours(measure, C, **kw):
    return M.compute(measure, C, **kw).value


def _same(a, b):
    """Equal values, NaN where the other is NaN."""
    np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12, equal_nan=True)


# --------------------------------------------------------------------------- simple multi-class


@pytest.mark.parametrize("K", KS)
def test_accuracy_matches_sklearn(stacks, K):
    C = stacks[K]
    want = [_sk(skm.accuracy_score, *_labels(c)) for c in C]
    _same(_ours("accuracy", C), want)
    # Opitz (2022), Appendix A: micro F1 (and micro P, micro R) = accuracy
    _same(_ours("micro_f1", C), want)


@pytest.mark.parametrize("K", KS)
def test_balanced_accuracy_matches_sklearn_with_nan_policy(stacks, K):
    """sklearn drops classes absent from y_true (with a warning); our nan policy skips them too."""
    C = stacks[K]
    want = [_sk(skm.balanced_accuracy_score, *_labels(c), adjusted=False) for c in C]
    _same(_ours("balanced_accuracy", C, policy="nan"), want)
    _same(_ours("macro_recall", C, policy="nan"), want)


@pytest.mark.parametrize("K", KS)
def test_balanced_accuracy_zero_policy_differs_from_sklearn_exactly_on_empty_gold_classes(stacks, K):
    """Documented difference: with policy 'zero' a class absent from the gold labels counts as recall 0
    over all K classes; sklearn has no such option and always drops it."""
    C = stacks[K].astype(float)
    d, a = np.diagonal(C, axis1=-2, axis2=-1), C.sum(-1)
    sk = np.array([_sk(skm.balanced_accuracy_score, *_labels(c)) for c in C])
    ours = _ours("balanced_accuracy", C, policy="zero")
    empty_gold = (a == 0).any(-1)
    assert empty_gold.any() and (~empty_gold).any()
    _same(ours[~empty_gold], sk[~empty_gold])
    rec = np.divide(d, a, out=np.zeros_like(d), where=a > 0)
    _same(ours, rec.mean(-1))
    assert np.all(ours[empty_gold] < sk[empty_gold] + 1e-15)
    assert np.any(ours[empty_gold] < sk[empty_gold] - 1e-9)


@pytest.mark.parametrize("K", KS)
def test_mcc_matches_sklearn_convention(stacks, K):
    """sklearn's matthews_corrcoef returns 0 where MCC is 0/0; that is our declared convention."""
    C = stacks[K]
    want = np.array([_sk(skm.matthews_corrcoef, *_labels(c)) for c in C])
    r = M.compute("mcc", C, policy="nan")
    assert r.undefined.any()
    _same(r.value[~r.undefined], want[~r.undefined])
    assert np.isnan(r.value[r.undefined]).all()
    assert np.all(want[r.undefined] == 0.0)
    _same(_ours("mcc", C, policy="convention"), want)
    assert M.get("mcc").convention == 0.0


@pytest.mark.parametrize("K", KS)
@pytest.mark.parametrize("policy,replace", [("nan", np.nan), ("one", 1.0)])
def test_kappa_matches_sklearn(stacks, K, policy, replace):
    C = stacks[K]
    want = [_sk(skm.cohen_kappa_score, *_labels(c), labels=list(range(K)), replace_undefined_by=replace)
            for c in C]
    r = M.compute("kappa", C, policy=policy)
    assert r.undefined.any()       # the one-class matrix
    _same(r.value, want)


# --------------------------------------------------------------------------- P / R / F / J


def _prf_table(C, beta, zd, average):
    """sklearn precision, recall, F-beta for one matrix under one averaging."""
    y, p = _labels(C)
    K = C.shape[-1]
    return _sk(skm.precision_recall_fscore_support, y, p, beta=beta, labels=list(range(K)), average=average,
               zero_division=zd)[:3]


def _ids(beta):
    if beta == 1.0:
        return "precision", "recall", "f1"
    return "precision", "recall", f"fbeta(beta={beta:g})"


def _avg_id(base, avg):
    if "(" in base:  # fbeta(beta=2) -> fbeta_macro(beta=2)
        fam, args = base.split("(", 1)
        return f"{fam}_{avg}({args}"
    return f"{base}_{avg}"


# multi-class records that are the same number as a one-vs-rest average
ALIASES = {("precision", "macro"): "macro_precision", ("recall", "macro"): "macro_recall",
           ("f1", "macro"): "macro_f1", ("f1", "micro"): "micro_f1", ("f1", "weighted"): "weighted_f1"}


def _nan_policy_weighted_fallback(values, weights):
    """Where sklearn and we differ (nan policy, weighted): every defined class has weight 0.
    sklearn then falls back to the unweighted mean of the defined classes; we return NaN."""
    defined = ~np.isnan(values)
    return defined.any() and weights[defined].sum() == 0


@pytest.mark.parametrize("K", KS)
@pytest.mark.parametrize("policy", ["zero", "one", "nan"])
@pytest.mark.parametrize("beta", [1.0, 0.5, 2.0])
@pytest.mark.parametrize("average", ["macro", "micro", "weighted"])
def test_precision_recall_fbeta_averages_match_sklearn(stacks, K, policy, beta, average):
    C = stacks[K]
    zd = POLICY_TO_ZD[policy]
    want = np.array([_prf_table(c, beta, zd, average) for c in C])          # (S, 3)
    if policy == "nan" and average == "weighted":
        per_class = np.array([_prf_table(c, beta, zd, None) for c in C])    # (S, 3, K)
    a = C.sum(-1)
    for col, base in enumerate(_ids(beta)):
        ours = _ours(_avg_id(base, average), C, policy=policy)
        expected = want[:, col].copy()
        if policy == "nan" and average == "weighted":
            odd = np.array([_nan_policy_weighted_fallback(per_class[s, col], a[s]) for s in range(len(C))])
            assert np.isnan(ours[odd]).all()
            expected[odd] = np.nan
        _same(ours, expected)
        alias = ALIASES.get((base, average))
        if alias:
            _same(_ours(alias, C, policy=policy), expected)


@pytest.mark.parametrize("K", KS)
@pytest.mark.parametrize("policy", ["zero", "one", "nan"])
@pytest.mark.parametrize("beta", [1.0, 0.5, 2.0])
def test_positive_class_precision_recall_fbeta_match_sklearn_per_class(stacks, K, policy, beta):
    """The binary measures at positive class p = sklearn's per-class (average=None) value of label p."""
    C = stacks[K]
    zd = POLICY_TO_ZD[policy]
    per_class = np.array([_prf_table(c, beta, zd, None) for c in C])        # (S, 3, K)
    for col, base in enumerate(_ids(beta)):
        for p in range(K):
            _same(_ours(base, C, positive=p, policy=policy), per_class[:, col, p])


@pytest.mark.parametrize("policy", ["zero", "one", "nan"])
@pytest.mark.parametrize("pos", [0, 1])
def test_binary_average_with_pos_label_matches_sklearn(stacks, policy, pos):
    C = stacks[2]
    zd = POLICY_TO_ZD[policy]
    for c in C:
        y, p = _labels(c)
        for sk_fn, ours_id, kw in [(skm.precision_score, "precision", {}), (skm.recall_score, "recall", {}),
                                   (skm.f1_score, "f1", {}), (skm.fbeta_score, "fbeta(beta=2)", {"beta": 2.0}),
                                   (skm.fbeta_score, "fbeta(beta=0.5)", {"beta": 0.5}),
                                   (skm.jaccard_score, "jaccard", {})]:
            if sk_fn is skm.jaccard_score and policy == "nan":
                continue  # jaccard_score has no zero_division=nan (see the documented-difference test)
            want = _sk(sk_fn, y, p, labels=[0, 1], pos_label=pos, average="binary", zero_division=zd, **kw)
            _same(_ours(ours_id, c, positive=pos, policy=policy), want)
        # specificity and NPV are recall and precision of the other class
        for sk_fn, ours_id in [(skm.recall_score, "specificity"), (skm.precision_score, "npv")]:
            want = _sk(sk_fn, y, p, labels=[0, 1], pos_label=1 - pos, average="binary", zero_division=zd)
            _same(_ours(ours_id, c, positive=pos, policy=policy), want)


@pytest.mark.parametrize("K", KS)
@pytest.mark.parametrize("policy", ["zero", "one"])
@pytest.mark.parametrize("average", [None, "macro", "micro", "weighted"])
def test_jaccard_matches_sklearn(stacks, K, policy, average):
    C = stacks[K]
    zd = POLICY_TO_ZD[policy]
    want = np.array([_sk(skm.jaccard_score, *_labels(c), labels=list(range(K)), average=average, zero_division=zd)
                     for c in C])
    if average is None:
        for p in range(K):
            _same(_ours("jaccard", C, positive=p, policy=policy), want[:, p])
    else:
        _same(_ours(f"jaccard_{average}", C, policy=policy), want)


@pytest.mark.parametrize("K", KS)
def test_jaccard_nan_policy_documented_difference(stacks, K):
    """Documented difference: sklearn's jaccard_score has no zero_division=nan (only 0 or 1), and it
    averages with a plain mean. Our nan policy skips the undefined classes (TP = FP = FN = 0, i.e. a
    class neither in gold nor predicted), as sklearn's precision/recall/F do with zero_division=nan.
    So ours = sklearn's per-class values (any zero_division) averaged over the defined classes."""
    C = stacks[K]
    a, b = C.sum(-1), C.sum(-2)
    undefined = (a + b) == 0
    assert undefined.any(-1).any()
    per_class = np.array([_sk(skm.jaccard_score, *_labels(c), labels=list(range(K)), average=None, zero_division=0)
                          for c in C])
    per_class[undefined] = np.nan
    _same(_ours("jaccard_macro", C, policy="nan"), np.nanmean(per_class, axis=-1))
    w = np.where(undefined, 0, a)
    _same(_ours("jaccard_weighted", C, policy="nan"),
          (np.nan_to_num(per_class) * w).sum(-1) / w.sum(-1))
    with pytest.raises(ValueError):
        skm.jaccard_score(*_labels(C[3]), labels=list(range(K)), average="macro", zero_division=np.nan)


def test_weighted_nan_policy_when_only_zero_weight_classes_are_defined():
    """Documented difference. Gold = [0, 0], predicted = [1, 1]: precision of class 0 is 0/0 (weight
    a_0 = 2), precision of class 1 is 0/2 = 0 (weight a_1 = 0). sklearn's weighted average with
    zero_division=nan drops class 0 and, all remaining weights being 0, falls back to the plain
    mean (0.0); we report NaN: no class with positive weight has a defined precision."""
    C = np.array([[0, 2], [0, 0]])
    sk = _sk(skm.precision_score, [0, 0], [1, 1], labels=[0, 1], average="weighted", zero_division=np.nan)
    assert sk == 0.0
    r = M.compute("precision_weighted", C, policy="nan")
    assert np.isnan(r.value) and r.undefined
    assert "no defined" in r.reason.item()


def test_generated_matrices_cover_the_edge_cases(stacks):
    """The differential tests above are only as good as their inputs."""
    for K, C in stacks.items():
        a, b = C.sum(-1), C.sum(-2)
        assert (a == 0).any(-1).sum() >= 3, K            # empty gold rows
        assert (b == 0).any(-1).sum() >= 3, K            # empty predicted columns
        assert ((a == 0) & (b == 0)).any(), K            # a class neither in gold nor predicted
        tp, fp, fn, tn = ovr_counts(C)
        assert ((tp + fp == 0) & (fn > 0)).any(), K      # precision 0/0 with recall defined
