"""The shortcuts of the comparison stage give the numbers of the code they replace: the
linearity test of the chance baselines run for every measure at once, the in-place conversion of
random tables, the early stop of the support size, the bootstrap draws into reused buffers, the
indicator product by column and the discordant cells counted without a mask."""
from __future__ import annotations

import importlib
import math

import numpy as np
import pytest
from conftest import random_runs

from evalreport.analyses import resampling as rs
from evalreport.analyses.randomization import _pair_cells
from evalreport.inputs.runs import Runs
from evalreport.measures import bind, compute

B = importlib.import_module("evalreport.analyses.baselines")

MEASURES = ["accuracy", "macro_recall", "macro_f1", "kappa", "mcc", "weighted_f1", "confusion_entropy", "sba"]


def _values(m, t):
    return B.blockwise(lambda x: compute(m, x, explain=False).value, t)


@pytest.mark.parametrize("model", B.RANDOM_MODELS)
@pytest.mark.parametrize("n_measures", [len(MEASURES), 17])   # 17: a last product of one row (padded)
def test_linearity_of_all_measures_at_once_is_is_linear_one_by_one(model, n_measures):
    K = 240                                           # 57,600 cells: is_linear's large-table branch
    a = np.random.default_rng(3).integers(0, 6, K)
    a[:3] = 0                                         # absent classes: undefined values at some tables
    labels = [str(k) for k in range(K)]
    ms = [bind(MEASURES[i % len(MEASURES)], labels) for i in range(n_measures)]
    probe = B.sample_tables(a, model, 16, np.random.default_rng(1))
    assert probe[0].size * (len(probe) + 6) > B.BLOCK_CELLS
    at = {m.id: _values(m, probe) for m in ms}
    one, all_ = np.random.default_rng(9), np.random.default_rng(9)
    expect = [B.is_linear(lambda t, m=m: _values(m, t), probe, one, at_tables=at[m.id]) for m in ms]
    got = B._linear_large(ms, _values, probe, all_, at)
    assert [got[m.id] for m in ms] == expect
    assert any(expect) and not all(expect)            # both verdicts occur
    assert one.random() == all_.random()              # the same draws were taken from the stream


def test_tables_converted_in_place_are_astype_float():
    x = np.random.default_rng(0).integers(0, 2 ** 40, size=(3, 7, 7))
    expect = x.astype(float)
    got = B._to_float(x.copy())
    assert got.dtype == np.float64 and got.shape == x.shape
    np.testing.assert_array_equal(got, expect)


@pytest.mark.parametrize("a", [[3, 0, 2], [1, 1, 1, 1], [5, 5, 5, 5, 5, 5], [50] * 30])
@pytest.mark.parametrize("limit", [1, 10, 20000, 10 ** 9])
def test_support_size_stops_early_with_the_same_answer(a, limit):
    assert B._support_exceeds(np.asarray(a), limit) == (math.prod(math.comb(x + len(a) - 1, len(a) - 1) for x in a) > limit)


@pytest.mark.parametrize("case", [dict(n_items=700), dict(n_items=700, folds=3),
                                  dict(n_items=60, n_classes=2, n_systems=2)])
def test_draws_into_reused_buffers_are_the_fresh_draws(case):
    runs = random_runs(np.random.default_rng(4), **case)
    pat = rs.patterns(runs)
    plan = rs.draw_plan(pat)
    work = rs.draw_work(pat, 50)
    fresh, reused = np.random.default_rng(7), np.random.default_rng(7)
    for b in (50, 13, 50):                            # a short block between full ones: stale rows must not leak
        W = rs.draw_weights(pat, fresh, b, plan)
        V = rs.draw_weights(pat, reused, b, plan, work)
        assert V.shape == (b, pat.n_patterns)
        np.testing.assert_array_equal(V, W)
        np.testing.assert_array_equal(rs.resampled_confusions(pat, V), rs.resampled_confusions(pat, W))


def test_bootstrap_with_heavy_patterns_is_unchanged_by_the_buffers():
    # few classes and systems: most items share a pattern, so the draw has a multinomial (heavy) part
    runs = random_runs(np.random.default_rng(5), n_items=3000, n_systems=2, n_classes=2)
    pat = rs.patterns(runs)
    plan = rs.draw_plan(pat)
    assert len(plan[0][0]) > 0
    work = rs.draw_work(pat, 40)
    one, two = np.random.default_rng(2), np.random.default_rng(2)
    np.testing.assert_array_equal(rs.draw_weights(pat, one, 40, plan, work), rs.draw_weights(pat, two, 40, plan))


def test_discordant_cells_of_distinct_items_match_np_unique():
    # every item its own pattern (counts of 1): the unweighted count
    rng = np.random.default_rng(6)
    runs = Runs(gold=rng.integers(0, 4, 400), pred=rng.integers(0, 4, (12, 400)), labels=tuple("abcd"),
                systems=tuple(f"s{i}" for i in range(12)))
    pat = rs.patterns(runs)
    assert int(pat.counts.max()) == 1
    first, second = np.triu_indices(12, 1)
    pair, g, pa, pb, n = _pair_cells(pat, first, second)
    K = 4
    key = []
    for i, (x, y) in enumerate(zip(first, second)):
        hit = pat.pred[x] != pat.pred[y]
        key.append(((i * K + pat.gold[hit]) * K + pat.pred[x][hit]) * K + pat.pred[y][hit])
    u, counts = np.unique(np.concatenate(key), return_counts=True)
    np.testing.assert_array_equal(((pair * K + g) * K + pa) * K + pb, u)
    np.testing.assert_array_equal(n, counts)
    assert not np.any(pa == pb)
    assert math.isclose(n.sum(), sum(int((pat.pred[x] != pat.pred[y]).sum()) for x, y in zip(first, second)))
