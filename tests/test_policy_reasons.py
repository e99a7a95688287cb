"""The reason text of an undefined (0/0) value says what the policy did, measure by measure.

Reviewer's finding 4 (second wave): under ``--policy convention`` SBA kept its skipped-class value
(0.467 for a constant predictor) while the reason said "replaced by the measure's convention"; SBA
has no convention. A measure without one is left as the nan policy leaves it, and so is its reason.
"""
import math

import numpy as np
from hypothesis import given
from test_measures_properties import ALL, SETTINGS, confusion, kw

from evalreport import measures as M

NO_CONVENTION = [m for m in ALL if m.convention is None]
WITH_CONVENTION = [m for m in ALL if m.convention is not None]
NOTE = "the measure has no convention: left as under the nan policy"

# majority-class predictor on 3 classes (gold 6/3/1): classes never predicted, MCC 0/0, SBA skips
MAJORITY = np.array([[[6, 0, 0], [3, 0, 0], [1, 0, 0]]])


def test_both_groups_are_populated():
    assert {"sba", "npv"} <= {m.id for m in NO_CONVENTION}
    assert {"mcc", "macro_precision"} <= {m.id for m in WITH_CONVENTION}


def test_sba_of_a_constant_predictor_keeps_the_skip_reason():
    nan = M.compute("sba", MAJORITY, policy="nan")
    conv = M.compute("sba", MAJORITY, policy="convention")
    assert conv.value[0] == nan.value[0] and conv.undefined[0]
    assert "replaced" not in conv.reason[0]
    assert conv.reason[0] == f"{nan.reason[0]}; {NOTE}"
    assert "skipped" in conv.reason[0]


def test_mcc_of_a_constant_predictor_names_its_convention():
    conv = M.compute("mcc", MAJORITY, policy="convention")
    assert conv.value[0] == 0.0 and conv.reason[0].endswith("replaced by the measure's convention (0)")


@SETTINGS
@given(C=confusion(min_n=0))
def test_convention_reason_is_true_for_every_measure(C):
    """Every measure without a convention: under policy='convention' the value, the undefined mask
    and the reason are the nan policy's, plus one note that there is no convention (never
    'replaced'). Every measure with one: each undefined cell's reason names the convention value."""
    K = C.shape[-1]
    for m in NO_CONVENTION:
        nan = M.compute(m, C, policy="nan", **kw(m, K, K - 1))
        conv = M.compute(m, C, policy="convention", **kw(m, K, K - 1))
        np.testing.assert_array_equal(conv.value, nan.value, err_msg=m.id)
        assert np.array_equal(conv.undefined, nan.undefined), m.id
        for why_nan, why, und in zip(nan.reason.ravel(), conv.reason.ravel(), conv.undefined.ravel()):
            assert why == (f"{why_nan}; {NOTE}" if und else why_nan), (m.id, why)
            assert "replaced" not in why, (m.id, why)
    for m in WITH_CONVENTION:
        conv = M.compute(m, C, policy="convention", **kw(m, K, K - 1))
        note = f"replaced by the measure's convention ({m.convention:g})"
        for why, v in zip(conv.reason[conv.undefined], conv.value[conv.undefined]):
            assert ("still undefined under the convention policy" if np.isnan(v) else note) in why, (m.id, why)
            assert not (np.isnan(v) and "replaced" in why), (m.id, why)
        assert not math.isnan(m.convention)


@SETTINGS
@given(C=confusion(min_n=0))
def test_a_reason_never_says_replaced_where_the_value_is_still_undefined(C):
    """Under zero / one / convention a cell that stays NaN (e.g. a weighted mean over an empty matrix:
    every weight is 0, nothing to fill) says so; a cell that was filled says by what."""
    K = C.shape[-1]
    for m in ALL:
        for pol in ("zero", "one", "convention"):
            r = M.compute(m, C, policy=pol, **kw(m, K, K - 1))
            for why, v in zip(r.reason[r.undefined], r.value[r.undefined]):
                if np.isnan(v):
                    assert "replaced" not in why, (m.id, pol, why)
                    assert "still undefined" in why or "no convention" in why, (m.id, pol, why)
                else:
                    assert "replaced" in why or "no convention" in why, (m.id, pol, why)


def test_weighted_mean_of_an_empty_matrix_is_still_undefined_under_zero():
    r = M.compute("weighted_f1", np.zeros((1, 3, 3)), policy="zero")
    assert np.isnan(r.value[0]) and r.undefined[0]
    assert r.reason[0].endswith("still undefined under the zero policy: nothing to replace")
