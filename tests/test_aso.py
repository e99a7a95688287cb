"""Almost Stochastic Order (Dror et al. 2019; del Barrio et al. 2018) against deepsig, the reference
implementation (Ulmer et al. 2022), as the oracle."""
import numpy as np
import pytest

from evalreport.analyses.aso import aso_table, eps_min, violation_ratio

deepsig = pytest.importorskip("deepsig")

# (n_a, n_b, shift of A's mean): equal and unequal numbers of runs, from no difference to a clear one
CASES = [(5, 5, 0.0), (10, 7, 0.1), (20, 20, 0.15), (3, 8, 0.05), (8, 12, -0.05)]


def _scores(case, seed):
    n_a, n_b, shift = case
    rng = np.random.default_rng(seed)
    return rng.normal(0.6 + shift, 0.05, n_a), rng.normal(0.6, 0.05, n_b)


@pytest.mark.parametrize("k", range(len(CASES)))
def test_violation_ratio_equals_deepsig(k):
    """The violation ratio eps_W2 (Dror et al. 2019, eq. 4-5) has no randomness: equal to 1e-12."""
    from deepsig.aso import compute_violation_ratio

    a, b = _scores(CASES[k], k)
    assert violation_ratio(a, b) == pytest.approx(compute_violation_ratio(a, b, dt=0.005), abs=1e-12)
    assert violation_ratio(b, a) == pytest.approx(compute_violation_ratio(b, a, dt=0.005), abs=1e-12)


@pytest.mark.parametrize("k", range(len(CASES)))
def test_eps_min_agrees_with_deepsig_within_monte_carlo_error(k):
    """eps_min (Dror et al. 2019, eq. 8) agrees with deepsig.aso up to the Monte-Carlo error of both
    bootstraps: the mean over 10 of our seeds lies within 4 Monte-Carlo standard deviations (ours, one
    draw each side) of deepsig's value, or within 0.01 where both are clipped to [0, 1]."""
    a, b = _scores(CASES[k], 100 + k)
    theirs = deepsig.aso(a, b, confidence_level=0.95, num_bootstrap_iterations=400, seed=k, show_progress=False)
    ours = np.array([eps_min(a, b, alpha=0.05, n_bootstrap=400, rng=s) for s in range(10)])
    tolerance = max(4 * ours.std(ddof=1) * np.sqrt(1 + 1 / ours.size), 0.01)
    assert abs(ours.mean() - theirs) <= tolerance, (ours.mean(), theirs, tolerance)


def test_corrected_level_matches_deepsig_given_bonferronis_level():
    """aso.csv's bounds use Bonferroni's level alpha / m over the m unordered pairs; deepsig given that
    confidence level directly (1 - alpha / m, one comparison) gives the same bound."""
    rng = np.random.default_rng(5)
    scores = {"x": rng.normal(0.70, 0.02, 6), "y": rng.normal(0.68, 0.02, 6), "z": rng.normal(0.60, 0.03, 4)}
    table = aso_table(scores, measure="accuracy", alpha=0.05, n_bootstrap=600, rng=1)
    row = table[(table["system_a"] == "x") & (table["system_b"] == "y")].iloc[0]
    assert row["alpha"] == pytest.approx(0.05 / 3)
    theirs = deepsig.aso(scores["x"], scores["y"], confidence_level=1 - 0.05 / 3, num_bootstrap_iterations=600,
                         seed=3, show_progress=False)
    assert row["eps_min"] == pytest.approx(theirs, abs=0.05)
    # the reverse direction is a test of its own (nearly 1 minus the forward ratio: the grid's first
    # point is left out of the violation integral, as deepsig leaves it out)
    back = table[(table["system_a"] == "y") & (table["system_b"] == "x")].iloc[0]
    assert back["violation_ratio"] == pytest.approx(1 - row["violation_ratio"], abs=0.02)
    assert set(table.columns) >= {"system_a", "system_b", "measure", "eps_min", "alpha"}


def test_aso_is_seeded_and_orients_lower_is_better_measures():
    rng = np.random.default_rng(9)
    scores = {"good": rng.normal(0.2, 0.02, 5), "bad": rng.normal(0.4, 0.02, 5)}      # an error rate
    one = aso_table(scores, measure="error", higher_is_better=False, n_bootstrap=500, rng=4)
    two = aso_table(scores, measure="error", higher_is_better=False, n_bootstrap=500, rng=4)
    assert one.equals(two)
    first = one.set_index(["system_a", "system_b"])["eps_min"]
    assert first[("good", "bad")] < 0.1 and first[("bad", "good")] > 0.9


def test_one_run_gives_no_bound():
    table = aso_table({"a": [0.5], "b": [0.4, 0.6]}, measure="accuracy", n_bootstrap=100, rng=0)
    assert table["eps_min"].isna().all() and table["note"].str.contains("fewer than two runs").all()
