"""The shortcuts taken for speed give the numbers of the general paths they skip: the
plain mean and the division without zeros of ``Context`` (evalreport/measures/_core.py), the sums
shared by every measure in ``evaluate``, the bootstrap resamples that ``compare`` hands on to the
pairwise tests, and the discordant cells of the randomisation test counted without a sort."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from conftest import random_runs
from hypothesis import given, settings, strategies as st
from hypothesis.extra.numpy import arrays

from evalreport.analyses import resampling
from evalreport.analyses.compare import compare
from evalreport.analyses.randomization import _pair_cells
from evalreport.analyses.resampling_patterns import patterns
from evalreport.measures import compute, default_measures, evaluate, shared_sums
from evalreport.measures._core import Context
from evalreport.measures.multiclass import marginals

VALUES = arrays(float, (3, 4), elements=st.one_of(st.floats(-5, 5), st.just(np.nan), st.just(0.0)))


@settings(max_examples=80, deadline=None)
@given(VALUES)
def test_plain_mean_is_the_weighted_mean_with_weights_one(values):
    fast, general = Context((3,)), Context((3,))
    a = fast.mean(values, what="x")
    b = general.mean(values, weights=np.ones_like(values), what="x")
    np.testing.assert_array_equal(a, b)
    assert [(t, m.tolist()) for t, m in fast.events] == [(t, m.tolist()) for t, m in general.events]


@settings(max_examples=80, deadline=None)
@given(VALUES, VALUES)
def test_division_without_zeros_is_the_division_with_the_fill(num, den):
    den = np.where(den == 0, 0.5, den)           # no zero: the short path
    out = Context((3,), policy="zero").div(num, den, "r")
    expect = np.full(num.shape, 0.0)
    np.divide(num, den, out=expect, where=den != 0)
    np.testing.assert_array_equal(out, expect)
    assert isinstance(Context(()).div(1.0, 2.0, "r"), np.ndarray)    # 0-d arrays stay arrays


@pytest.mark.parametrize("policy", ["nan", "zero", "one", "convention"])
def test_evaluate_with_shared_sums_is_compute_one_by_one(policy):
    rng = np.random.default_rng(1)
    C = rng.integers(0, 20, size=(4, 5, 5)).astype(float)
    C[1, 2, :] = 0                    # a class absent from the gold labels
    C[2, :, 3] = 0                    # a class never predicted
    frame = evaluate(C, policy=policy, positive=1)
    for m in default_measures(positive=1):
        r = compute(m, C, policy=policy, positive=1, labels=[str(k) for k in range(5)])
        got = frame[frame["measure"] == m.id]
        np.testing.assert_array_equal(got["value"].to_numpy(), r.value)
        assert got["reason"].tolist() == r.reason.tolist()


def test_shared_sums_are_computed_once_and_read_only():
    C = np.arange(18.0).reshape(2, 3, 3)
    with shared_sums():
        first = marginals(C)
        assert marginals(C) is first
        assert marginals(C.copy()) is not first          # another tensor: its own sums
        with pytest.raises(ValueError):
            first[1][0, 0] = 1.0
    assert marginals(C) is not first                     # outside the block: computed each time


def test_compare_pairwise_is_the_standalone_pairwise():
    """compare reuses its bootstrap resamples for the pairwise bootstrap test: the frame is the one
    pairwise() draws for itself."""
    runs = random_runs(0, accuracy=0.6, dtype=np.int8)
    comp = compare(runs, bootstrap=60, seed=4, primary="mcc")
    alone = resampling.pairwise(runs, comp.records[0], n_resamples=60, seed=4)
    pd.testing.assert_frame_equal(comp.pairwise.reset_index(drop=True), alone)


def test_discordant_cells_counted_without_a_sort_match_np_unique():
    runs = random_runs(2, n_items=900, n_systems=5, n_classes=3, accuracy=0.6, dtype=np.int8)
    pat = patterns(runs)
    first, second = np.triu_indices(5, 1)
    pair, g, pa, pb, n = _pair_cells(pat, first, second)
    K = 3
    key, weight = [], []
    for i, (x, y) in enumerate(zip(first, second)):
        a, b = pat.pred[x], pat.pred[y]
        hit = a != b
        key.append(((i * K + pat.gold[hit]) * K + a[hit]) * K + b[hit])
        weight.append(pat.counts[hit])
    u, inv = np.unique(np.concatenate(key), return_inverse=True)
    expect = np.bincount(inv, weights=np.concatenate(weight))
    np.testing.assert_array_equal(((pair * K + g) * K + pa) * K + pb, u)
    np.testing.assert_array_equal(n, expect.astype(np.int64))


@pytest.mark.parametrize("dtype", [np.uint8, np.uint64])
def test_random_bits_are_the_raw_stream(dtype):
    """The PCG64 shortcut draws the very words of ``random_raw`` (and leaves the stream where it would)."""
    from evalreport.analyses.randomization import random_bits

    fast, raw = np.random.default_rng(7), np.random.default_rng(7)
    got = random_bits(fast, 13, 11, dtype)
    words = -(-13 * 11 * np.dtype(dtype).itemsize // 8)
    np.testing.assert_array_equal(got, raw.bit_generator.random_raw(words).view(dtype)[:13 * 11].reshape(13, 11))
    assert fast.random() == raw.random()
