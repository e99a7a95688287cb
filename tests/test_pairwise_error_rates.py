"""Error rates of the paired bootstrap test that makes the report's claims (normal approximation of
the paired bootstrap distribution, :func:`evalreport.analyses.significance.bootstrap_p`), measured
by seeded simulation: type-I error near alpha on null data, Holm's family-wise error at most alpha,
power close to McNemar's exact test (the reference test for paired accuracy; McNemar 1947) on
separated data, agreement with the closed-form Wald test for paired proportions (Agresti 2002,
sec. 10.1) and the separation of a shared task's 25 systems with 1,000 resamples."""
from __future__ import annotations

import numpy as np
import pytest
from conftest import correlated_runs
from scipy import stats

from evalreport.analyses import resampling as rs
from evalreport.analyses.significance import bootstrap_p

ALPHA = 0.05


def _bootstrap_rows(runs, measure, B=400, seed=0):
    return rs.pairwise(runs, measure, n_resamples=B, seed=seed, tests="bootstrap")


@pytest.mark.parametrize("measure", ["accuracy", "macro_f1"])
def test_type_one_error_near_alpha_on_null_data(measure):
    """Two equally skilled systems (same accuracy, correlated errors): the test rejects at alpha
    0.05 in 2.5-8 % of 300 simulated test sets (binomial sd at 300 sets: 1.3 %)."""
    rng = np.random.default_rng(20261128)
    rejected = [float(_bootstrap_rows(correlated_runs(rng, n_items=400, accuracy=[0.7, 0.7]), measure,
                                      seed=k)["p_value"].iloc[0]) < ALPHA for k in range(300)]
    rate = float(np.mean(rejected))
    assert 0.025 <= rate <= 0.08, rate


def test_holm_keeps_the_family_wise_error_at_alpha():
    """Eight equally skilled systems, 28 pairs: Holm-corrected, some pair is called different in
    at most 8 % of 150 simulated test sets (uncorrected, far more often)."""
    rng = np.random.default_rng(7)
    any_corrected, any_raw = [], []
    for k in range(150):
        pw = _bootstrap_rows(correlated_runs(rng, n_items=300, accuracy=[0.7] * 8), "accuracy", B=300, seed=k)
        any_corrected.append(bool((pw["p_holm"] < ALPHA).any()))
        any_raw.append(bool((pw["p_value"] < ALPHA).any()))
    assert np.mean(any_corrected) <= 0.08, np.mean(any_corrected)
    assert np.mean(any_raw) > 2 * np.mean(any_corrected) + 0.1


def test_power_close_to_mcnemar_exact_test():
    """Accuracy 0.70 against 0.74 on 500 items, 200 simulated test sets: the bootstrap test
    rejects about as often as McNemar's exact test on the discordant items (scipy's binomtest),
    within 8 percentage points, and never far less often."""
    rng = np.random.default_rng(11)
    boot, exact = [], []
    for k in range(200):
        runs = correlated_runs(rng, n_items=500, accuracy=[0.74, 0.70], shared=0.3)
        boot.append(float(_bootstrap_rows(runs, "accuracy", seed=k)["p_value"].iloc[0]) < ALPHA)
        right = runs.pred == runs.gold[None, :]
        b, c = int((right[0] & ~right[1]).sum()), int((~right[0] & right[1]).sum())
        exact.append(stats.binomtest(b, b + c, 0.5).pvalue < ALPHA)
    power_boot, power_exact = np.mean(boot), np.mean(exact)
    assert 0.3 < power_exact < 0.85          # a regime where power can differ
    assert abs(power_boot - power_exact) <= 0.08, (power_boot, power_exact)


def test_agrees_with_the_wald_test_for_paired_proportions():
    """For accuracy the bootstrap standard error of the paired difference estimates
    sqrt((b + c) / n^2 - (b - c)^2 / n^3) (Agresti 2002, sec. 10.1.1: the variance of the
    difference of dependent proportions), so z = d / se agrees with the Wald statistic
    (b - c) / sqrt(b + c - (b - c)^2 / n) within the Monte-Carlo error of 4,000 resamples."""
    rng = np.random.default_rng(3)
    runs = correlated_runs(rng, n_items=2000, accuracy=[0.80, 0.77], shared=0.4)
    pw = _bootstrap_rows(runs, "accuracy", B=4000)
    right = runs.pred == runs.gold[None, :]
    n = runs.gold.size
    b, c = int((right[0] & ~right[1]).sum()), int((~right[0] & right[1]).sum())
    z_wald = (b - c) / np.sqrt(b + c - (b - c) ** 2 / n)
    z_boot = stats.norm.isf(float(pw["p_value"].iloc[0]) / 2)
    assert z_boot == pytest.approx(abs(z_wald), rel=0.05)


def test_p_values_are_not_bounded_by_the_resample_count():
    """A clear difference gets a p-value far below 1 / (B + 1): Holm over many pairs can still
    separate systems with few resamples."""
    rng = np.random.default_rng(5)
    pw = _bootstrap_rows(correlated_runs(rng, n_items=2000, accuracy=[0.9, 0.6]), "accuracy", B=200)
    assert float(pw["p_value"].iloc[0]) < 1e-12


def test_degenerate_cases():
    """Identical systems: p = 1; a difference that no resample moves: the Monte-Carlo share; an
    undefined difference: NaN."""
    d = np.array([[0.0, 0.1, np.nan], [0.0, 0.1, np.nan], [0.0, 0.1, np.nan]])
    p, n, se = bootstrap_p(d, np.array([0.0, 0.1, np.nan]))
    assert p[0] == 1.0 and p[1] == pytest.approx(1 / 4) and np.isnan(p[2])
    assert n.tolist() == [3, 3, 0] and se[0] == 0


def test_shared_task_of_25_systems_gets_several_tiers():
    """The organiser's case: 25 systems, accuracy spread from 0.95 to 0.50 on 2,000 items, the
    defaults (1,000 resamples, Holm over all 300 pairs): the letters form several groups and the
    leader is separated from the last system."""
    rng = np.random.default_rng(2)
    runs = correlated_runs(rng, n_items=2000, accuracy=np.linspace(0.95, 0.50, 25), n_classes=5, shared=0.3)
    pw = rs.pairwise(runs, "macro_f1", n_resamples=1000, tests="bootstrap")
    groups = rs.groups(pw, alpha=ALPHA, order=list(runs.systems))
    letters = set("".join(groups["letters"]))
    assert len(letters) >= 6, groups
    first, last = groups["letters"].iloc[0], groups["letters"].iloc[-1]
    assert not set(first) & set(last)
