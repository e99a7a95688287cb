"""The comparison engine: one implementation of intervals, ranks and pairwise tests over two designs.

Invariants of :mod:`evalreport.analyses.engine`:

* the intervals and rank distributions of single labels and of label sets come from the one
  design-independent function :func:`~evalreport.analyses.engine.intervals`;
* label sets that hold exactly one label per item are single labels: given the same resampled
  items, the label-set path's subset accuracy and the single-label path's accuracy give the same
  intervals and the same paired bootstrap p-values, and McNemar's test the same rows. The two
  designs draw their resamples differently (single labels: pattern counts from
  ``SeedSequence(seed).spawn``; label sets: multinomial item weights from ``default_rng(seed)``),
  so the test gives both designs the same item weights;
* one pairwise schema for both kinds.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from conftest import multilabel_runs

from evalreport.analyses import engine
from evalreport.analyses.compare import compare
from evalreport.analyses.multilabel import LabelSetDesign
from evalreport.analyses.resampling import ConfusionDesign
from evalreport.analyses.resampling_patterns import resampled_confusions
from evalreport.counts.multilabel import count_multilabel
from evalreport.inputs.runs import Runs
from evalreport.measures import compute, get
from evalreport.measures.multilabel import compute_multilabel

LABELS = ("a", "b", "c")


def _single(seed: int = 0, n: int = 150, S: int = 4) -> Runs:
    rng = np.random.default_rng(seed)
    gold = rng.integers(0, 3, n)
    acc = np.linspace(0.85, 0.55, S)
    pred = np.where(rng.random((S, n)) < acc[:, None], gold[None, :], rng.integers(0, 3, (S, n)))
    return Runs(gold=gold, pred=pred, labels=LABELS, systems=tuple(f"s{k}" for k in range(S)))


def _as_sets(runs: Runs):
    """The same runs as label sets: item i holds exactly the label it has."""
    eye = np.eye(len(LABELS), dtype=bool)
    return multilabel_runs(eye[runs.gold], eye[runs.pred], LABELS, runs.systems)


class _SingleWeights(ConfusionDesign):
    """Single labels resampled by given item weights (the test's shared draws)."""

    weights: np.ndarray

    def resample(self, measures, n_resamples, rng, progress=None):
        W = np.stack([np.bincount(self.pat.inverse, weights=w, minlength=self.pat.n_patterns) for w in self.weights])
        T = resampled_confusions(self.pat, W, self.A)
        return np.stack([compute(m, T, explain=False).value for m in measures], axis=-1)


class _SetWeights(LabelSetDesign):
    """Label sets resampled by given item weights."""

    weights: np.ndarray

    def resample(self, measures, n_resamples, rng, progress=None):
        counts = count_multilabel(self.runs, self.weights)
        return np.stack([compute_multilabel(m, counts, policy=self.policy, explain=False).value for m in measures],
                        axis=-1)


def test_one_function_makes_the_intervals_of_both_kinds(monkeypatch):
    calls = []
    real = engine.intervals

    def spy(*args, **kwargs):
        calls.append(len(args[1]))
        return real(*args, **kwargs)

    monkeypatch.setattr(engine, "intervals", spy)
    runs = _single()
    single = compare(runs, measures=["accuracy"], primary="accuracy", bootstrap=40, seed=2)
    sets = compare(_as_sets(runs), measures=["subset_accuracy"], primary="subset_accuracy", bootstrap=40, seed=2)
    assert calls == [4, 4] and single.kind == "single" and sets.kind == "multilabel"
    # and the tables are what that function makes of each comparison's resamples
    for c in (single, sets):
        point = c.intervals.pivot(index="system", columns="measure", values="value").loc[list(c.systems),
                                                                                          list(c.measures)]
        again, ranks = real(c.samples, point.to_numpy(), c.systems, c.measures,
                            [get(m).higher_is_better for m in c.measures], level=0.95)
        pd.testing.assert_frame_equal(c.intervals[again.columns], again)
        pd.testing.assert_frame_equal(c.rank_distribution, ranks)


def test_label_sets_of_one_label_each_test_as_single_labels():
    runs = _single(seed=5)
    B = 200
    weights = np.random.default_rng(9).multinomial(runs.gold.shape[0], np.full(runs.gold.shape[0],
                                                                                1 / runs.gold.shape[0]), size=B)
    one = _SingleWeights(runs)
    many = _SetWeights(_as_sets(runs))
    one.weights = many.weights = weights.astype(float)
    order = list(runs.systems)
    out = {}
    for design, measure in ((one, get("accuracy")), (many, get("subset_accuracy"))):
        point = design.point([measure])
        out[design.kind] = engine.resampled(design, [measure], point, bootstrap=B, seed=0, alpha=0.05, rounds=0,
                                            pairwise_test="bootstrap", order=order)
    a, b = out["single"], out["multilabel"]
    np.testing.assert_allclose(a.samples, b.samples, rtol=1e-12)
    cols = ["value", "lo", "hi", "se"]
    np.testing.assert_allclose(a.intervals[cols].to_numpy(float), b.intervals[cols].to_numpy(float), rtol=1e-12)
    for test in ("bootstrap", "mcnemar"):
        x, y = a.pairwise[a.pairwise.test == test], b.pairwise[b.pairwise.test == test]
        assert len(x) == len(y) == 6
        np.testing.assert_allclose(x.p_value.to_numpy(float), y.p_value.to_numpy(float), rtol=1e-9)
        np.testing.assert_allclose(x.difference.to_numpy(float), y.difference.to_numpy(float), rtol=1e-12)
    assert set(a.pairwise.measure) == {"accuracy"} and set(b.pairwise.measure) == {"subset_accuracy"}
    pd.testing.assert_frame_equal(a.groups, b.groups)


def test_both_kinds_write_one_pairwise_schema():
    runs = _single(seed=3, S=3)
    single = compare(runs, bootstrap=30, seed=1)
    sets = compare(_as_sets(runs), bootstrap=30, seed=1)
    assert list(single.pairwise.columns) == list(sets.pairwise.columns) == engine.PAIRWISE_COLUMNS
    assert set(single.pairwise.test) == set(sets.pairwise.test) == set(engine.TESTS)
    # McNemar needs no draws: accuracy and exact match count the same discordant items
    m1 = single.pairwise[single.pairwise.test == "mcnemar"].reset_index(drop=True)
    m2 = sets.pairwise[sets.pairwise.test == "mcnemar"].reset_index(drop=True)
    pd.testing.assert_frame_equal(m1.drop(columns="measure"), m2.drop(columns="measure"))
    common = [t for t in single.tables() if t not in single.extra]     # single labels add gold_fragility
    assert list(sets.tables())[:len(common)] == common
    assert single.calibration_correlation.columns.tolist() == sets.calibration_correlation.columns.tolist()


@pytest.mark.parametrize("observed, d, want", [(0.2, [0.3, -0.25, 0.1, np.nan], (1 + 2) / (1 + 3)),
                                               (0.0, [0.0, 0.1], 1.0), (np.nan, [0.1], np.nan)])
def test_randomization_p(observed, d, want):
    """(1 + #{|d_r| >= |d|}) / (1 + R_defined) (Noreen 1989)."""
    p, n = engine.randomization_p(np.array(d)[:, None], np.array([observed]))
    assert p[0] == pytest.approx(want, nan_ok=True)


def test_randomization_draws_do_not_depend_on_the_order_of_the_systems():
    runs = _single(seed=8, S=3)
    perm = Runs(gold=runs.gold, pred=runs.pred[[2, 0, 1]], labels=LABELS, systems=("s2", "s0", "s1"))
    for data in ((runs, perm), (_as_sets(runs), _as_sets(perm))):
        a, b = (compare(x, bootstrap=20, seed=4).pairwise for x in data)
        a, b = (t[t.test == "randomization"] for t in (a, b))
        key = {frozenset(k): p for k, p in zip(zip(a.system_a, a.system_b), a.p_value)}
        assert all(key[frozenset(k)] == p for k, p in zip(zip(b.system_a, b.system_b), b.p_value))
