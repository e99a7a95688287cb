"""Simultaneous rank intervals (Holm 1979; after Al Mohamad et al. 2022) and equivalence verdicts
(two one-sided tests, Schuirmann 1987): hand-worked cases and seeded simulations of their error rates."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from evalreport.analyses.engine import resampled
from evalreport.analyses.equivalence import equivalence_p, verdicts
from evalreport.analyses.rank_intervals import rank_intervals, tied_first, true_rank_range
from evalreport.analyses.resampling import ConfusionDesign
from evalreport.inputs.runs import Runs
from evalreport.measures import get


def _pairs(rows) -> pd.DataFrame:
    return pd.DataFrame([{"system_a": a, "system_b": b, "measure": "accuracy", "test": "bootstrap", "difference": d,
                          "p_holm": p, "p_value": p, "p_bh": p} for a, b, d, p in rows])


def test_hand_worked_three_systems():
    # A beats B and C significantly; B and C are not separated: A is first alone, B and C share 2-3
    pw = _pairs([("A", "B", 0.10, 0.001), ("A", "C", 0.12, 0.002), ("B", "C", 0.02, 0.40)])
    got = rank_intervals(pw, ["A", "B", "C"], alpha=0.05)
    assert got.to_dict("list") == {"system": ["A", "B", "C"], "rank_lo": [1, 2, 2], "rank_hi": [1, 3, 3]}


def test_hand_worked_direction_and_untested():
    # a negative difference means system_b is better; a NaN p-value decides nothing; D has no test row
    pw = _pairs([("A", "B", -0.2, 0.01), ("A", "C", 0.1, np.nan), ("B", "C", 0.3, 0.049)])
    got = rank_intervals(pw, ["B", "A", "C", "D"], alpha=0.05).set_index("system")
    assert got.loc["B"].tolist() == [1, 2]       # better than A and C, D unknown
    assert got.loc["A"].tolist() == [2, 4]       # B better; C undecided
    assert got.loc["C"].tolist() == [2, 4]
    assert got.loc["D"].tolist() == [1, 4]
    assert tied_first(got.reset_index()) == ["B", "D"]


def test_alpha_decides():
    pw = _pairs([("A", "B", 0.1, 0.03)])
    assert rank_intervals(pw, ["A", "B"], alpha=0.05)["rank_hi"].tolist() == [1, 2]
    assert rank_intervals(pw, ["A", "B"], alpha=0.01)["rank_hi"].tolist() == [2, 2]


def test_true_rank_range_of_ties():
    lo, hi = true_rank_range([0.7, 0.8, 0.7, 0.6])
    assert lo.tolist() == [2, 1, 2, 4] and hi.tolist() == [3, 1, 3, 4]
    lo, hi = true_rank_range([0.7, 0.8], higher_is_better=False)
    assert lo.tolist() == [1, 2] and hi.tolist() == [1, 2]


def _simulated(p_correct, n, rng) -> Runs:
    """Binary gold; system s is right on each item with probability p_correct[s], independently."""
    gold = rng.integers(0, 2, n)
    right = rng.random((len(p_correct), n)) < np.asarray(p_correct)[:, None]
    pred = np.where(right, gold, 1 - gold)
    return Runs(gold=gold, pred=pred, labels=("0", "1"), systems=tuple(f"s{k}" for k in range(len(p_correct))))


def _one(runs, alpha, seed, margin=None, bootstrap=200):
    m = get("accuracy")
    design = ConfusionDesign(runs)
    return resampled(design, [m], design.point([m]), bootstrap=bootstrap, seed=seed, alpha=alpha, rounds=0,
                     pairwise_test="bootstrap", order=list(runs.systems), margin=margin)


@pytest.mark.parametrize("truth", [(0.7,) * 5, (0.6, 0.65, 0.7, 0.7, 0.8)], ids=["null", "non-null"])
def test_simultaneous_coverage(truth):
    """All true rank ranges lie inside their intervals together in at least 1 - alpha of seeded
    simulated test sets (Monte-Carlo slack: two standard errors of the rate over 200 sets)."""
    rng = np.random.default_rng(24)
    alpha, R = 0.05, 200
    lo_true, hi_true = true_rank_range(truth)
    covered, covered_raw = 0, 0
    for r in range(R):
        runs = _simulated(truth, 400, rng)
        pw = _one(runs, alpha, seed=r).pairwise
        for correction in ("holm", "none"):
            got = rank_intervals(pw, runs.systems, alpha=alpha, correction=correction)
            ok = bool(((got["rank_lo"] <= lo_true) & (got["rank_hi"] >= hi_true)).all())
            if correction == "holm":
                covered += ok
            else:
                covered_raw += ok
    slack = 2 * np.sqrt(alpha * (1 - alpha) / R)
    assert covered / R >= 1 - alpha - slack
    if truth[0] == truth[-1]:
        # uncorrected decisions over the 10 pairs do not hold together: the correction is needed
        assert covered_raw / R < 1 - alpha - slack


def test_equivalence_error_rate_at_the_margin():
    """Pairs whose true accuracy difference equals the margin D are called equivalent in at most
    alpha of seeded simulated test sets (Monte-Carlo slack as above)."""
    rng = np.random.default_rng(7)
    alpha, D, R = 0.05, 0.05, 300
    claims = 0
    for r in range(R):
        runs = _simulated((0.80, 0.80 - D), 600, rng)
        pw = _one(runs, alpha, seed=r, margin=D).pairwise
        claims += int((pw.loc[pw["test"] == "bootstrap", "verdict"] == "equivalent").any())
    assert claims / R <= alpha + 2 * np.sqrt(alpha * (1 - alpha) / R)


def test_equivalence_found_when_true():
    """Equal systems on many items are called equivalent (the simulation above can fail the other way)."""
    rng = np.random.default_rng(3)
    runs = _simulated((0.8, 0.8, 0.8), 4000, rng)
    pw = _one(runs, 0.05, seed=0, margin=0.05).pairwise
    boot = pw[pw["test"] == "bootstrap"]
    assert (boot["verdict"] == "equivalent").all()
    assert boot["p_equivalence"].lt(0.05).all()


def test_no_margin_no_claims():
    runs = _simulated((0.8, 0.6), 300, np.random.default_rng(0))
    pw = _one(runs, 0.05, seed=0).pairwise
    assert (pw["verdict"] == "").all() and pw["p_equivalence"].isna().all()


def test_tost_hand_worked():
    # d = 0.01, se = 0.02, D = 0.05: p_low = Phi(-(0.06)/0.02) = Phi(-3), p_high = Phi(-0.04/0.02) = Phi(-2)
    from scipy.stats import norm

    p = equivalence_p(np.array([0.01, -0.01, 0.0, 0.07]), np.array([0.02, 0.02, 0.0, 0.0]), 0.05)
    assert p[0] == pytest.approx(norm.cdf(-2.0)) and p[1] == pytest.approx(norm.cdf(-2.0))
    assert p[2] == 0.0 and p[3] == 1.0
    v = verdicts(np.array([0.01, 0.5, 0.5]), np.array([0.2, 0.01, 0.2]), 0.05)
    assert v.tolist() == ["different", "equivalent", "inconclusive"]
