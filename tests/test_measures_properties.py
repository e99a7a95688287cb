"""Property tests (hypothesis) over every registered measure.

Which measures a property applies to is derived from the registry (kind, needs, range,
averaging), except the transpose symmetry, which Gösgens et al. (2021), Table 2, decide measure by measure.
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from hypothesis.extra.numpy import arrays

from evalreport import measures as M

# (gain measures are functions of their gain matrix too: tests/test_gains.py checks their properties)
# (example-based multi-label records take per-item statistics: tests/test_multilabel_measures.py)
ALL = [m for m in M.catalogue() if "gains" not in m.needs and m.kind not in ("example", "scores")]
# class-symmetric (Gösgens et al. 2021, Definition 4): every multi-class measure without a positive class,
# one-vs-rest averages included; ordinal measures are symmetric only with their cost matrix permuted
CLASS_SYMMETRIC = [m for m in ALL if m.kind == "multiclass" and not m.needs]
BINARY = [m for m in ALL if m.kind == "binary"]

# Transpose symmetry M(C) = M(C^T) (Gösgens et al. 2021, Definition 3; Table 2, column Sym: F1 (binary), J (binary),
# CC, Acc, kappa, CE, SBA, GM (binary), CD are symmetric, BA is not; micro and macro averaging preserve
# Sym, weighted averaging does not). Every measure is classified here, so a new one cannot slip in
# unclassified. Binary bases: transposing swaps FP and FN (and AP with PP); fbeta and gm at their
# registered defaults (beta = 1, r = 1). Micro averages are all symmetric: the summed one-vs-rest matrix
# has FP = FN. Weighted recall is accuracy, so it (and the weighted miss rate) is symmetric as well.
SYM_BASES = {"f1", "fbeta", "jaccard", "f_prime", "gm", "gm1", "mcc", "kappa", "accuracy",
             "error_rate", "dor", "lam", "asp"}
ASYM_BASES = {"recall", "precision", "miss_rate", "fdr", "fallout", "elusion", "specificity", "npv",
              "informedness", "markedness", "balanced_accuracy", "k"}
SYM_MULTICLASS = {"accuracy", "mcc", "kappa", "confusion_entropy", "sba", "correlation_distance", "macro_f1",
                  "macro_f1_hm"}
ASYM_MULTICLASS = {"balanced_accuracy", "macro_precision", "weighted_f1", "gmean_recall",
                   "hmean_recall", "k"}


def transpose_symmetric(m) -> bool:
    if m.alias_of:                      # an alias is classified as the quantity it names
        m = M.REGISTRY[m.alias_of]
    if m.averaging == "micro":
        return True
    if m.averaging == "weighted":
        return m.base in ("recall", "miss_rate")
    if m.averaging:
        return m.base in SYM_BASES
    if m.kind == "binary":
        return m.id in SYM_BASES
    return m.id in SYM_MULTICLASS


SYMMETRIC = [m for m in ALL if m.kind != "ordinal" and transpose_symmetric(m)] + [M.get(x) for x in (
    "gm(r=-1)", "gm(r=0.5)", "gm(r=2)", "gm_macro(r=-1)", "fbeta_micro(beta=2)")]
NOT_SYMMETRIC = [m for m in ALL if m.kind != "ordinal" and not transpose_symmetric(m)] + [M.get(x) for x in (
    "fbeta(beta=2)", "fbeta_macro(beta=0.5)")]


SETTINGS = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def confusion(draw, min_k=2, max_k=6, max_count=12, min_n=1, max_s=8):
    """A stack (S, K, K) of confusion matrices (one K per stack, so each measure is one vectorised call)."""
    K = draw(st.integers(min_k, max_k))
    S = draw(st.integers(1, max_s))
    C = draw(arrays(np.int64, (S, K, K), elements=st.integers(0, max_count)))
    small = C.sum((1, 2)) < min_n
    C[small, K - 1, 0] = 1
    return C


def costs_for(K):
    return np.abs(np.subtract.outer(np.arange(K), np.arange(K))).astype(float)


def kw(m, K, positive=0, costs=None):
    out = {}
    if "positive" in m.needs:
        out["positive"] = positive
    if "costs" in m.needs:
        out["costs"] = costs_for(K) if costs is None else costs
    return out


def same(a, b, what):
    np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12, equal_nan=True, err_msg=what)


# --------------------------------------------------------------------------- invariances


@SETTINGS
@given(C=confusion(), data=st.data())
def test_class_permutation_invariance(C, data):
    """Gösgens et al. (2021), Definition 4 (CSym): M(C) = M(P C P^T) for every multi-class measure; binary measures
    follow their positive class; ordinal measures are invariant when the costs are permuted too."""
    K = C.shape[-1]
    perm = np.array(data.draw(st.permutations(range(K))))
    Cp = C[:, perm][:, :, perm]
    p = data.draw(st.integers(0, K - 1))
    where = int(np.nonzero(perm == p)[0][0])          # the positive class in the permuted matrix
    rng_costs = np.array(data.draw(arrays(np.float64, (K, K), elements=st.floats(0.5, 3))))
    np.fill_diagonal(rng_costs, 0)
    for m in ALL:
        a = M.compute(m, C, **kw(m, K, p, rng_costs))
        b = M.compute(m, Cp, **kw(m, K, where, rng_costs[np.ix_(perm, perm)]))
        same(a.value, b.value, m.id)
        assert np.array_equal(a.undefined, b.undefined), m.id


def test_class_symmetric_list_is_derived_and_complete():
    ids = {m.id for m in CLASS_SYMMETRIC}
    assert {"accuracy", "balanced_accuracy", "macro_f1", "mcc", "kappa", "sba", "k", "confusion_entropy",
            "correlation_distance", "weighted_f1", "jaccard_macro"} <= ids
    assert not ids & {m.id for m in BINARY}
    assert len(CLASS_SYMMETRIC) + len(BINARY) + sum(m.kind == "ordinal" for m in ALL) == len(ALL)


@SETTINGS
@given(C=confusion(), factor=st.integers(2, 1000))
def test_scaling_all_counts_changes_nothing(C, factor):
    """Every measure is a function of proportions: multiplying all counts by an integer changes neither
    the value nor where it is undefined."""
    K = C.shape[-1]
    for m in ALL:
        for p in ({0, K - 1} if "positive" in m.needs else {0}):
            a = M.compute(m, C, **kw(m, K, p))
            b = M.compute(m, C * factor, **kw(m, K, p))
            same(a.value, b.value, m.id)
            assert np.array_equal(a.undefined, b.undefined), m.id


def test_transpose_classification_covers_every_measure():
    for m in ALL:
        if m.kind == "ordinal":
            continue
        if m.averaging or m.kind == "binary":
            assert (m.base in SYM_BASES) != (m.base in ASYM_BASES), f"classify {m.base} for transposition"
        else:
            assert (m.id in SYM_MULTICLASS) != (m.id in ASYM_MULTICLASS), f"classify {m.id} for transposition"
    # Table 2 itself
    for mid in ("f1", "jaccard", "mcc", "accuracy", "kappa", "confusion_entropy", "sba", "gm1",
                "correlation_distance", "f1_macro", "f1_micro", "jaccard_macro", "jaccard_micro"):
        assert transpose_symmetric(M.get(mid)), mid
    for mid in ("balanced_accuracy", "f1_weighted", "jaccard_weighted"):
        assert not transpose_symmetric(M.get(mid)), mid
    assert transpose_symmetric(M.get("recall_micro")) and transpose_symmetric(M.get("recall_weighted"))


@SETTINGS
@given(C=confusion())
def test_transpose_invariance_of_the_symmetric_measures(C):
    """Gösgens et al. (2021), Table 2 (Sym) and Definition 3: M(C) = M(C^T), undefined cells included."""
    K = C.shape[-1]
    T = np.swapaxes(C, -1, -2)
    for m in SYMMETRIC:
        for p in ({0, K - 1} if "positive" in m.needs else {0}):
            a, b = M.compute(m, C, **kw(m, K, p)), M.compute(m, T, **kw(m, K, p))
            same(a.value, b.value, m.id)
            assert np.array_equal(a.undefined, b.undefined), m.id


@pytest.mark.parametrize("m", NOT_SYMMETRIC, ids=lambda m: m.id)
def test_the_other_measures_are_not_transpose_invariant(m):
    """A demonstrated counter-example for every measure classified as not symmetric."""
    C = np.array([[8, 2, 1], [0, 2, 3], [1, 0, 5]])
    K = 3
    diffs = [abs(float(M.compute(m, C, **kw(m, K, p)).value) - float(M.compute(m, C.T, **kw(m, K, p)).value))
             for p in range(K)]
    assert max(diffs) > 1e-6, m.id


@pytest.mark.parametrize("mid", ["balanced_accuracy", "macro_recall", "f1_weighted", "informedness_macro"])
def test_demonstrated_transpose_non_invariance(mid):
    """Gösgens et al. (2021), Table 2: BA is not symmetric, nor is weighted averaging. C = [[8, 2], [0, 2]]
    (a = (10, 2), b = (8, 4)): BA(C) = (8/10 + 2/2) / 2 = 0.9 but BA(C^T) = (8/8 + 2/4) / 2 = 0.75;
    informedness (TPR + TNR - 1 = 0.8) becomes markedness (PPV + NPV - 1 = 0.5) under transposition."""
    C = np.array([[8, 2], [0, 2]])
    a, b = float(M.compute(mid, C).value), float(M.compute(mid, C.T).value)
    assert not np.isclose(a, b), (mid, a, b)
    if mid in ("balanced_accuracy", "macro_recall"):
        assert a == pytest.approx(0.9, abs=1e-15) and b == pytest.approx(0.75, abs=1e-15)
    if mid == "informedness_macro":
        assert a == pytest.approx(0.8, abs=1e-15) and b == pytest.approx(0.5, abs=1e-15)


# --------------------------------------------------------------------------- ranges and undefined cells


@SETTINGS
@given(C=confusion())
def test_values_lie_in_the_declared_range(C):
    K = C.shape[-1]
    for m in ALL:
        lo, hi = m.range
        for p in ({0, K - 1} if "positive" in m.needs else {0}):
            for policy in ("nan", "zero", "one"):
                v = M.compute(m, C, policy=policy, **kw(m, K, p)).value
                v = v[~np.isnan(v)]
                assert ((lo - 1e-12 <= v) & (v <= hi + 1e-12)).all(), (m.id, policy, v, m.range)


@SETTINGS
@given(C=confusion(min_n=0))
def test_undefined_flags_and_policy_fills(C):
    """The 0/0 record is honest: under the nan policy a NaN is always flagged undefined, and a finite
    value flagged undefined is an average that skipped undefined classes; the undefined mask does not
    depend on the policy; zero/one change values only in undefined cells, and a single-ratio
    measure's undefined cell holds exactly the fill value."""
    K = C.shape[-1]
    for m in ALL:
        for p in ({0, K - 1} if "positive" in m.needs else {0}):
            r = {pol: M.compute(m, C, policy=pol, **kw(m, K, p)) for pol in ("nan", "zero", "one")}
            nan = r["nan"]
            und = nan.undefined
            assert und[np.isnan(nan.value)].all(), (m.id, "silent NaN")
            for why in nan.reason[und & np.isfinite(nan.value)]:
                assert "skipped" in why, (m.id, why)         # a finite undefined value: an average that skipped
            assert (nan.reason[~und] == "").all(), m.id
            for pol, fill in (("zero", 0.0), ("one", 1.0)):
                assert np.array_equal(r[pol].undefined, und), (m.id, pol)
                same(r[pol].value[~und], nan.value[~und], m.id)
                for why, v in zip(r[pol].reason[und], r[pol].value[und]):     # NaN: nothing was replaced
                    assert (f"still undefined under the {pol} policy" if np.isnan(v) else f"replaced by {fill:g}") \
                        in why, (m.id, why)
                if m.id in SINGLE_RATIO:
                    assert (r[pol].value[und] == fill).all(), (m.id, pol)
            quiet = M.compute(m, C, policy="nan", explain=False, **kw(m, K, p))
            assert np.array_equal(quiet.undefined, und), m.id


# binary measures that are one division: their undefined value is the policy's fill itself
SINGLE_RATIO = ("recall", "precision", "miss_rate", "fdr", "fallout", "specificity", "npv", "elusion", "f1",
                "f_star", "f_prime", "jaccard", "dor", "lam", "asp", "gm1", "accuracy", "mcc", "kappa")


@SETTINGS
@given(C=confusion(min_k=2, max_k=5))
def test_one_vs_rest_averages_are_the_declared_means(C):
    """Gösgens et al. (2021), section 2: macro = mean of the K one-vs-rest values, weighted = mean weighted by a_i
    (over the defined classes with the nan policy), micro = the measure of the summed matrices."""
    K = C.shape[-1]
    a = C.sum(-1).astype(float)                                        # (S, K)
    n, tr = C.sum((-2, -1)), np.trace(C, axis1=-2, axis2=-1)
    micro = np.stack([np.stack([(K - 2) * n + tr, n - tr], -1), np.stack([n - tr, tr], -1)], -2).astype(float)
    for base in ("f1", "jaccard", "precision", "recall", "gm1", "informedness", "specificity"):
        per = np.stack([M.compute(base, C, positive=p).value for p in range(K)], -1)   # (S, K)
        ok = ~np.isnan(per)
        with np.errstate(invalid="ignore", divide="ignore"):
            macro = np.where(ok, per, 0).sum(-1) / ok.sum(-1)
            w = a * ok
            weighted = (np.where(ok, per, 0) * w).sum(-1) / w.sum(-1)
        same(M.compute(f"{base}_macro", C).value, macro, base)
        same(M.compute(f"{base}_weighted", C).value, weighted, base)
        same(M.compute(f"{base}_micro", C).value, M.compute(base, micro, positive=1).value, base)


@SETTINGS
@given(C=confusion(min_n=0))
def test_convention_policy_gives_the_declared_convention(C):
    """policy='convention' fills with the measure's own declared value: where the convention is 0 or 1
    it is the zero / one policy; where there is none it is the nan policy; a whole-matrix measure's
    undefined cell holds exactly the convention (correlation distance: 0.5 = arccos(0) / pi, its 0/0
    being MCC's)."""
    K = C.shape[-1]
    for m in ALL:
        p = K - 1
        conv = M.compute(m, C, policy="convention", **kw(m, K, p))
        like = {None: "nan", 0.0: "zero", 1.0: "one"}.get(m.convention, "zero")
        same(conv.value, M.compute(m, C, policy=like, **kw(m, K, p)).value, m.id)
        if m.convention is not None and (m.id in SINGLE_RATIO or m.id == "correlation_distance"):
            assert (conv.value[conv.undefined] == m.convention).all(), m.id


def _verdict(claim):
    """A registry claim is a bool, or {'paper': ..., 'audit': ...} when the audit disagrees with the paper."""
    return claim.get("audit", claim.get("paper")) if isinstance(claim, dict) else bool(claim)


def test_registry_symmetry_claims_agree_with_the_tests(rng):
    """The registry's claims (read by the audit) and the behaviour tested here must not drift apart:
    'goesgens.Sym' is the transpose classification above (tested by hypothesis); 'goesgens.CSym' on a
    binary measure is invariance under swapping the two classes (TP <-> TN, FP <-> FN)."""
    C = rng.integers(0, 30, size=(200, 2, 2))
    for m in ALL:
        if "goesgens.Sym" in m.claims and m.kind != "ordinal":
            assert _verdict(m.claims["goesgens.Sym"]) == transpose_symmetric(m), m.id
        if "goesgens.CSym" in m.claims:
            want = _verdict(m.claims["goesgens.CSym"])
            if m.kind == "binary":
                a = M.compute(m, C, positive=1).value
                b = M.compute(m, C[:, ::-1, ::-1], positive=1).value
                ok = ~(np.isnan(a) | np.isnan(b))
                assert np.allclose(a[ok], b[ok], rtol=1e-9, atol=1e-12) == want, m.id
            else:
                assert want == (m in CLASS_SYMMETRIC), m.id


def test_weighted_average_ignores_the_0_0_of_a_zero_weight_class():
    """Class c is listed but absent from gold and predictions: its F1 is 0/0. The macro average skips it
    (undefined, with the reason); the weighted average gives it weight a_c = 0, so its value is fully
    defined and not flagged (found by the transposition property: recall_weighted = accuracy)."""
    C = np.array([[3, 1, 0], [1, 2, 0], [0, 0, 0]])
    macro, weighted = M.compute("f1_macro", C), M.compute("f1_weighted", C)
    assert macro.undefined and "skipped" in macro.reason.item() and "class 2" in macro.reason.item()
    assert not weighted.undefined and weighted.reason.item() == ""
    f1 = np.array([6 / 8, 4 / 6])
    assert weighted.value == pytest.approx((4 * f1[0] + 3 * f1[1]) / 7, abs=1e-15)
    for pol in ("zero", "one"):
        assert M.compute("f1_weighted", C, policy=pol).value == weighted.value
    r = M.compute("recall_weighted", np.array([[1, 1], [0, 0]]))
    assert r.value == 0.5 and not r.undefined
