"""Prevalence scaling and calibration (Opitz 2022, eq. 5-6, 14-16, 26-27; Tables 2-5)."""
import warnings

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra.numpy import arrays

from evalreport.analyses.prevalence import (
    PrevalenceWarning,
    absent_classes,
    calibrate,
    estimate_precision,
    predicted_rate,
    scale,
    what_if,
)
from evalreport.counts import Counts, from_opitz
from evalreport.measures import compute

# Opitz (2022), Tables 2-4, written as Opitz prints them (rows = predicted f, columns = gold c).
TABLE2 = np.array([[15, 5], [10, 10]])          # b occurs 15 times
TABLE3_LAMBDA = (1, 2)
TABLE4 = np.array([[15, 10], [10, 20]])         # b occurs 30 times


def value(measure, C):
    return float(compute(measure, C).value)


def test_tables_2_to_4_reproduce():
    C = from_opitz(TABLE2)                      # ours: rows = gold
    assert C.sum(axis=1).tolist() == [25, 15]   # 'b occurs 15 times'
    # eq. 5 with lambda = (1, 2): our rows (his columns) scaled; same as the target (25, 30) with n = 55
    scaled = scale(C, [25 * TABLE3_LAMBDA[0], 15 * TABLE3_LAMBDA[1]], total=55)
    np.testing.assert_allclose(from_opitz(scaled), TABLE4)
    np.testing.assert_allclose(scaled, C * np.array(TABLE3_LAMBDA)[:, None])
    # default: the total n = 40 is kept, the distribution is 25:30
    kept = scale(C, [25, 30])
    assert kept.sum() == pytest.approx(40)
    np.testing.assert_allclose(kept.sum(axis=1) / 40, [25 / 55, 30 / 55])


def test_macro_precision_5_8_to_19_30():
    # Opitz (2022), Appendix C.4: macP = 5/8 != macP' = 19/30 after lambda = (1, 2)
    C = from_opitz(TABLE2)
    assert value("macro_precision", C) == pytest.approx(5 / 8)
    assert value("macro_precision", from_opitz(TABLE4)) == pytest.approx(19 / 30)
    assert value("macro_precision", scale(C, [25, 30])) == pytest.approx(19 / 30)
    # macro recall is prevalence invariant (Appendix B.4): R'_i = R_i
    assert value("macro_recall", scale(C, [25, 30])) == pytest.approx(value("macro_recall", C))


def test_table5_calibration_changes_precision_and_f1_not_recall():
    # Opitz (2022), Table 5: macro recall has PIV; macro precision and macro F1 do not (only after calibration)
    C = from_opitz(TABLE2)
    Cc = calibrate(C)
    np.testing.assert_allclose(Cc.sum(axis=1), [20, 20])
    assert value("macro_recall", Cc) == pytest.approx(value("macro_recall", C))
    assert value("macro_precision", Cc) != pytest.approx(value("macro_precision", C))
    assert value("macro_f1", Cc) != pytest.approx(value("macro_f1", C))
    # eq. 14-16: accuracy of the calibrated matrix is macro recall
    assert value("accuracy", Cc) == pytest.approx(value("macro_recall", C))


def confusion(K_max=4):
    return st.integers(2, K_max).flatmap(
        lambda K: arrays(np.int64, (K, K), elements=st.integers(0, 30)).filter(lambda c: (c.sum(axis=1) > 0).all()))


@settings(max_examples=60, deadline=None)
@given(confusion())
def test_calibration_idempotent(C):
    once = calibrate(C)
    np.testing.assert_allclose(calibrate(once), once, rtol=1e-12, atol=1e-9)
    K = C.shape[0]
    np.testing.assert_allclose(once.sum(axis=1), np.full(K, C.sum() / K))
    # intra-class error proportions are kept (each row is a multiple of the original row)
    np.testing.assert_allclose(once / once.sum(axis=1, keepdims=True), C / C.sum(axis=1, keepdims=True))


@settings(max_examples=60, deadline=None)
@given(confusion(), st.lists(st.floats(0.05, 1.0), min_size=4, max_size=4))
def test_macro_recall_prevalence_invariant(C, shares):
    K = C.shape[0]
    scaled = scale(C, shares[:K])
    assert value("macro_recall", scaled) == pytest.approx(value("macro_recall", C))
    assert value("macro_recall", calibrate(C)) == pytest.approx(value("macro_recall", C))
    np.testing.assert_allclose(scaled.sum(axis=1) / scaled.sum(), np.array(shares[:K]) / sum(shares[:K]))


@settings(max_examples=60, deadline=None)
@given(confusion())
def test_kappa_and_mcc_after_calibration(C):
    # Opitz (2022), section 4 ('Birds of a feather'): KAPPA(m lambda) = (c - 1/n) / (1 - 1/n) and
    # MCC(m lambda) = (c - 1/n) / (sqrt(1 - b'b) sqrt(1 - 1/n)), c = accuracy, b = predicted shares
    K = C.shape[0]
    Cc = calibrate(C)
    c = value("accuracy", Cc)
    assert value("kappa", Cc) == pytest.approx((c - 1 / K) / (1 - 1 / K), abs=1e-12)
    b = Cc.sum(axis=0) / Cc.sum()
    den = np.sqrt(1 - b @ b) * np.sqrt(1 - 1 / K)
    if den > 1e-12:
        assert value("mcc", Cc) == pytest.approx((c - 1 / K) / den, abs=1e-9)


def test_counts_in_counts_out_and_per_fold():
    t = np.array([[[[3, 1], [0, 2]], [[5, 0], [1, 1]]], [[[1, 3], [2, 0]], [[2, 2], [0, 4]]]])  # (S=2, F=2, 2, 2)
    counts = Counts(t, ["a", "b"], ["x", "y"], ["f1", "f2"])
    out = calibrate(counts)
    assert isinstance(out, Counts) and out.tensor.dtype == float
    assert out.systems == ("x", "y") and out.labels == ("a", "b") and out.fold_names == ("f1", "f2")
    rows = out.tensor.sum(axis=-1)
    np.testing.assert_allclose(rows[..., 0], rows[..., 1])        # every fold matrix calibrated on its own
    np.testing.assert_allclose(out.tensor.sum(axis=(-2, -1)), t.sum(axis=(-2, -1)))
    by_label = scale(counts, {"a": 3, "b": 1})
    np.testing.assert_allclose(by_label.tensor.sum(axis=-1)[..., 0] / by_label.tensor.sum(axis=(-2, -1)), 0.75)


def test_absent_gold_class_stays_zero_and_is_reported():
    C = np.array([[3, 1, 0], [0, 0, 0], [1, 1, 2]])
    assert absent_classes(C).tolist() == [False, True, False]
    with pytest.warns(PrevalenceWarning, match="1"):
        Cc = calibrate(C)
    assert Cc[1].tolist() == [0, 0, 0]
    assert Cc.sum() == pytest.approx(C.sum())                       # target renormalised over a, c
    np.testing.assert_allclose(Cc.sum(axis=1), [4, 0, 4])               # n = 8 shared by a and c
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        scale(C, [1, 0, 1])                                         # a zero target for the absent class: no warning


def test_bad_targets():
    C = np.eye(2)
    for bad in ([1, -1], [0, 0], [1, 2, 3], [np.nan, 1]):
        with pytest.raises(ValueError):
            scale(C, bad)
    with pytest.raises(ValueError):
        scale(np.ones(3), [1, 1, 1])


def test_estimate_precision_eq_27_by_hand():
    # Table 2: R_a = 15/25, R_b = 10/15. Under equal prevalence the predicted share of a is
    # 0.5 * 0.6 + 0.5 * 5/15 = 7/15, so P*_a = 0.6 * 0.5 / (7/15) = 9/14 (eq. 27).
    C = from_opitz(TABLE2)
    recalls = np.diag(C) / C.sum(axis=1)
    rate = predicted_rate(C, [1, 1])
    np.testing.assert_allclose(rate, [7 / 15, 8 / 15])
    est = estimate_precision(recalls, [0.5, 0.5], rate)
    np.testing.assert_allclose(est, [9 / 14, (10 / 15 * 0.5) / (8 / 15)])
    # equal to the class precisions of the calibrated matrix
    Cc = calibrate(C)
    np.testing.assert_allclose(est, np.diag(Cc) / Cc.sum(axis=0))
    assert np.isnan(estimate_precision([0.5, 0.5], [0.5, 0.5], [1.0, 0.0])[1])


@settings(max_examples=40, deadline=None)
@given(confusion(), st.lists(st.floats(0.05, 1.0), min_size=4, max_size=4))
def test_estimate_precision_matches_scaled_tensor(C, shares):
    K = C.shape[0]
    scaled = scale(C, shares[:K])
    recalls = np.diag(C) / C.sum(axis=1)
    est = estimate_precision(recalls, shares[:K], predicted_rate(C, shares[:K]))
    cols = scaled.sum(axis=0)
    expected = np.where(cols > 0, np.diag(scaled) / np.where(cols > 0, cols, 1), np.nan)
    np.testing.assert_allclose(est, expected, rtol=1e-9, atol=1e-12)


def test_what_if_scenarios():
    counts = Counts(np.stack([from_opitz(TABLE2), from_opitz(TABLE4)]), ["a", "b"], ["s1", "s2"])
    out = what_if(counts, ["macro_precision", "macro_recall"], {"equal": "uniform", "b-heavy": [1, 3]})
    assert list(out.columns[:3]) == ["scenario", "system", "measure"]
    assert set(out["scenario"]) == {"observed", "equal", "b-heavy"}
    v = out.set_index(["scenario", "system", "measure"])["value"]
    assert v[("observed", "s1", "macro_precision")] == pytest.approx(5 / 8)
    # s1 and s2 differ only in prevalence (Tables 2 and 4): the same under any common target
    for scen in ("equal", "b-heavy"):
        assert v[(scen, "s1", "macro_precision")] == pytest.approx(v[(scen, "s2", "macro_precision")])
        assert v[(scen, "s1", "macro_recall")] == pytest.approx(v[("observed", "s1", "macro_recall")])
    single = what_if(counts, ["macro_precision"], {"a": 0.5, "b": 0.5}, include_observed=False)
    assert set(single["scenario"]) == {"what-if"}
    assert single["value"].tolist() == pytest.approx(v.loc["equal"].xs("macro_precision", level="measure").tolist())
