"""Re-ranking under simulated gold-label noise: rate 0 is the observed ranking exactly, the flips
happen at the rate asked (seeded simulation), and a clear leader stays first under little noise."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from evalreport.analyses.compare import compare
from evalreport.analyses.gold import noise_finding
from evalreport.analyses.label_noise import label_noise, noise_sentence, noisy_gold, uniform_noise
from evalreport.inputs.runs import Runs

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def _runs(seed: int = 0, n: int = 200, rates=(0.9, 0.75, 0.6, 0.6), K: int = 3) -> Runs:
    rng = np.random.default_rng(seed)
    g = rng.integers(0, K, n)
    pred = np.stack([np.where(rng.random(n) < p, g, rng.integers(0, K, n)) for p in rates])
    return Runs(gold=g, pred=pred, labels=tuple("abcdefgh"[:K]), systems=tuple(f"s{i}" for i in range(len(rates))))


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10_000), st.sampled_from(["macro_f1", "accuracy", "mcc", "k"]))
def test_rate_zero_is_the_observed_ranking(seed, measure):
    runs = _runs(seed, n=60)
    comp = compare(runs, bootstrap=0, primary=measure)
    raw = comp.ranks[(comp.ranks["measure"] == measure) & ~comp.ranks["calibrated"].astype(bool)]
    observed = dict(zip(raw["system"], raw["rank"]))
    table = label_noise(runs, measure, rates=[0.0], draws=5, seed=seed)
    for row in table.itertuples():
        assert row.mean_rank == observed[row.system] == row.rank_lo == row.rank_hi


def test_flip_rate_matches_the_model():
    rng = np.random.default_rng(1)
    gold = rng.integers(0, 4, 2000)
    for rate in (0.05, 0.2):
        noisy = noisy_gold(gold, uniform_noise(rate, 4), 50, rng)
        share = (noisy != gold).mean()
        se = np.sqrt(rate * (1 - rate) / noisy.size)
        assert abs(share - rate) < 4 * se
        # flips go to the other classes alike
        flipped = noisy[noisy != gold]
        assert abs(np.bincount(flipped, minlength=4) / len(flipped) - 0.25).max() < 0.03


def test_matrix_model_and_classes_kept():
    rng = np.random.default_rng(2)
    gold = np.array([0] * 500 + [1] * 500 + [2] * 10)      # code 2: not a task class, never flipped
    M = np.array([[0.9, 0.1], [0.0, 1.0]])
    noisy = noisy_gold(gold, M, 40, rng)
    assert (noisy[:, 500:] == gold[500:]).all()
    assert abs((noisy[:, :500] == 1).mean() - 0.1) < 0.02


def test_clear_leader_and_sentence():
    runs = _runs(4, n=400, rates=(0.95, 0.6, 0.5))
    table = label_noise(runs, "accuracy", rates=[0.05, 0.3], draws=100, seed=1)
    lead = table[(table["system"] == "s0")]
    assert (lead["p_first"] == 1).all()
    assert (table.groupby("noise_rate")["p_first"].sum() >= 1).all()
    assert noise_sentence(table, "s0") == "First place (s0) holds under 30 % label noise in 100 % of 100 draws."
    # seeded: the same table again
    again = label_noise(runs, "accuracy", rates=[0.05, 0.3], draws=100, seed=1)
    assert table.equals(again)


def test_close_race_moves_under_noise():
    runs = _runs(5, n=300, rates=(0.7, 0.69, 0.4))
    table = label_noise(runs, "accuracy", rates=[0.2], draws=200, seed=0)
    p = dict(zip(table["system"], table["p_first"]))
    assert 0 < p["s0"] < 1 and p["s2"] == 0


def test_in_compare_and_finding():
    runs = _runs(6)
    comp = compare(runs, bootstrap=0, primary="accuracy", label_noise=(0.0, 0.1), label_noise_draws=30)
    table = comp.tables()["label_noise"]
    assert sorted(set(table["noise_rate"])) == [0.0, 0.1] and (table["draws"] == 30).all()
    row = noise_finding(comp)
    assert row is not None and row["finding"] == "label_noise" and "10 % label noise" in row["detail"]
    assert "label_noise" not in compare(runs, bootstrap=0).tables()
