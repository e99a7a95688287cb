"""Gold fragility: the fewest changed gold labels that bring a challenger level with the leader.

Checked against the literal definition (every relabelling of a few items, by brute force), for
accuracy against ceil(gap / 2) on hand-made cases and by hypothesis, and end to end in compare.
"""
from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from evalreport.analyses.compare import compare
from evalreport.analyses.fragility_moves import Oriented, at_least_level
from evalreport.analyses.gold_fragility import (
    accuracy_gold_changes,
    gold_fragility,
    joint_table,
    pair_gold_fragility,
)
from evalreport.counts import confusion_from_codes
from evalreport.inputs.runs import Runs

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def _brute(measure: str, gold, a, b, K: int) -> int | None:
    """Every gold labelling, by the number of changed items: the first that makes b level."""
    f = Oriented(measure)
    gold = np.asarray(gold)
    every = np.array(list(itertools.product(range(K), repeat=len(gold))))
    dist = (every != gold).sum(axis=1)
    for k in range(len(gold) + 1):
        for g in every[dist == k]:
            v = f(confusion_from_codes(g, np.stack([a, b]), K).astype(float))
            if at_least_level(v[1:], v[:1])[0]:
                return k
    return None


def test_accuracy_hand_made():
    # gold, leader, challenger: the leader has 5 right, the challenger 1: gap 4 -> 2 changes
    gold = [0, 0, 1, 1, 2, 2]
    lead = [0, 0, 1, 1, 2, 0]
    chal = [1, 2, 0, 1, 0, 1]
    T = joint_table(gold, lead, chal, 3)
    assert accuracy_gold_changes(T) == 2
    assert pair_gold_fragility("accuracy", T).changes == 2
    assert _brute("accuracy", gold, np.array(lead), np.array(chal), 3) == 2


def test_accuracy_without_double_swings():
    # only abstentions (code 2, not a task class) separate them: every change swings the gap by 1 at most
    gold = [0, 0, 1, 1]
    lead = [0, 0, 1, 0]
    chal = [2, 2, 2, 0]
    T = joint_table(gold, lead, chal, 3)
    # gap 3; no item where the leader is right and the challenger's label a task class: m2 = 0;
    # the both-wrong item (1, 0, 0) agrees, so no single swings either
    assert accuracy_gold_changes(T, n_task=2) is None
    assert accuracy_gold_changes(T) == 2


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(2, 4), st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3), st.integers(0, 3)),
                                   min_size=1, max_size=40))
def test_accuracy_is_ceil_half_gap(K, items):
    g, a, b = (np.array([x[i] % K for x in items]) for i in range(3))
    T = joint_table(g, a, b, K)
    gap = int((a == g).sum() - (b == g).sum())
    assert accuracy_gold_changes(T) == (0 if gap <= 0 else math.ceil(gap / 2))
    res = pair_gold_fragility("accuracy", T)
    assert res.exact and res.changes == max(0, math.ceil(gap / 2))
    # the count is achieved: relabel ceil(gap/2) items the leader has right and the challenger wrong
    if gap > 0:
        idx = np.flatnonzero((a == g) & (b != g))[:math.ceil(gap / 2)]
        g2 = g.copy()
        g2[idx] = b[idx]
        assert (b == g2).sum() >= (a == g2).sum()


@pytest.mark.parametrize("measure", ["accuracy", "macro_f1", "mcc", "balanced_accuracy", "k"])
def test_against_brute_force(measure):
    rng = np.random.default_rng(7)
    for _ in range(12):
        K, N = 3, 6
        g = rng.integers(0, K, N)
        a = np.where(rng.random(N) < 0.85, g, rng.integers(0, K, N))
        b = np.where(rng.random(N) < 0.4, g, rng.integers(0, K, N))
        res = pair_gold_fragility(measure, joint_table(g, a, b, K))
        truth = _brute(measure, g, a, b, K)
        if res.exact:
            assert res.changes == truth
        elif res.changes is not None:     # a checked upper bound
            assert truth is not None and truth <= res.changes and res.at_least <= truth


def test_linear_measure_is_exact():
    # the mean cost under 0-1 costs is the error rate, affine in the cells
    rng = np.random.default_rng(3)
    g = rng.integers(0, 3, 40)
    a = np.where(rng.random(40) < 0.8, g, rng.integers(0, 3, 40))
    b = np.where(rng.random(40) < 0.5, g, rng.integers(0, 3, 40))
    T = joint_table(g, a, b, 3)
    costs = 1.0 - np.eye(3)
    res = pair_gold_fragility("mae", T, costs=costs)
    assert res.exact and "linear" in res.method
    assert res.changes == accuracy_gold_changes(T)


def test_table_and_compare():
    rng = np.random.default_rng(0)
    g = rng.integers(0, 3, 120)
    pred = np.stack([np.where(rng.random(120) < p, g, rng.integers(0, 3, 120)) for p in (0.9, 0.7, 0.5)])
    runs = Runs(gold=g, pred=pred, labels=("a", "b", "c"), systems=("s1", "s2", "s3"))
    table = gold_fragility(runs, ["accuracy"], leaders={"accuracy": "s1"})
    assert list(table["system"]) == ["s2", "s3"]
    acc = (pred == g).sum(axis=1)
    assert list(table["changes"]) == [math.ceil((acc[0] - acc[i]) / 2) for i in (1, 2)]
    comp = compare(runs, bootstrap=0)
    gf = comp.tables()["gold_fragility"]
    assert set(gf["measure"]) == {"macro_f1", "accuracy"}
    assert (gf["changes"].dropna() >= gf["at_least"].dropna()).all()
