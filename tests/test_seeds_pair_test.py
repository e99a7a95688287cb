"""The paired test of two systems with several runs each: resamples whose run-level deviations are rescaled by
sqrt(R / (R - 1)) only, and |d| / se referred to Student's t with Welch-Satterthwaite degrees of freedom
(Satterthwaite 1946; Welch 1947) through the design's ``pair_test`` hook. Every other design, and a
SeedsDesign of one run per system, gives the pairwise table it gave before, bit for bit; intervals keep the
widened resamples. The simulated error rates are in tests/test_seeds_coverage.py."""
import dataclasses

import numpy as np
import pandas as pd
import pytest
from conftest import correlated_runs, multilabel_runs
from scipy import stats
from seed_sim import ACC, error_rates

from evalreport.analyses.engine import pairwise_tests, resampled
from evalreport.analyses.multilabel import LabelSetDesign
from evalreport.analyses.resampling import ConfusionDesign
from evalreport.analyses.score_design import ScoreDesign
from evalreport.analyses.seeds import SeedsDesign, paired_draws
from evalreport.analyses.significance import bootstrap_p, welch_df
from evalreport.counts.scores import score_counts
from evalreport.inputs.runs import Runs
from evalreport.measures import get

# ----------------------------------------------------------------------------- Welch-Satterthwaite


def test_welch_df_by_hand():
    """df = V^2 / sum(v_i^2 / df_i): V = 1.0 with parts 0.3 (2 df) and 0.2 (4 df) gives 1 / (0.045 + 0.01)
    = 18.18; no part (one run each) gives inf; a part larger than V counts as V, and df never falls below the
    smallest df of a part left in."""
    df = welch_df(np.array([1.0, 1.0, 0.5, np.nan]), np.array([[0.3, 0.0, 0.9, 0.1], [0.2, 0.0, 0.0, 0.1]]),
                  np.array([[2.0, 2.0, 3.0, 2.0], [4.0, 0.0, 3.0, 2.0]]))
    assert df[0] == pytest.approx(1 / (0.09 / 2 + 0.04 / 4), rel=1e-12)
    assert np.isinf(df[1])
    assert df[2] == pytest.approx(3.0)
    assert np.isnan(df[3])


def test_welch_df_without_an_item_part_is_welchs_two_sample_df():
    """Two independent means and nothing else: the df is that of Welch's unequal-variance t test (Welch 1947),
    as scipy's ttest_ind(equal_var=False) computes it."""
    rng = np.random.default_rng(3)
    x, y = rng.normal(0, 1, 4), rng.normal(0, 3, 6)
    va, vb = x.var(ddof=1) / x.size, y.var(ddof=1) / y.size
    df = welch_df(np.array([va + vb]), np.array([[va], [vb]]), np.array([[x.size - 1], [y.size - 1]]))
    assert df[0] == pytest.approx(stats.ttest_ind(x, y, equal_var=False).df, rel=1e-12)


def test_bootstrap_p_refers_to_student_t_where_df_is_finite():
    rng = np.random.default_rng(0)
    diffs = rng.normal(0.02, 0.01, (400, 3))
    observed = np.array([0.02, -0.015, 0.03])
    p_normal, n, se = bootstrap_p(diffs, observed)
    p_t, _, se_t = bootstrap_p(diffs, observed, df=np.array([4.3, np.inf, 2.0]))
    np.testing.assert_array_equal(se, se_t)
    z = np.abs(np.round(observed, 12)) / se
    assert p_t[0] == pytest.approx(2 * stats.t.sf(z[0], 4.3), rel=1e-12)
    assert p_t[1] == p_normal[1]                       # infinite df: the normal approximation, bit for bit
    assert p_t[2] == pytest.approx(2 * stats.t.sf(z[2], 2.0), rel=1e-12)
    assert p_t[0] > p_normal[0] and p_t[2] > p_normal[2]    # finite df, heavier tails


# ----------------------------------------------------------------------------- every other design is unchanged


def _scored_runs(seed: int = 4) -> Runs:
    """Four binary systems with scores (logit = separation (2 gold - 1) + noise)."""
    rng = np.random.default_rng(seed)
    gold = (rng.random(300) < 0.4).astype(np.int64)
    z = np.array([0.5, 0.8, 1.0, 1.1])[:, None] * (2 * gold - 1)[None] + rng.standard_normal((4, 300))
    return Runs(gold=gold, pred=(z > 0).astype(np.int64), labels=("neg", "pos"),
                systems=("s0", "s1", "s2", "s3"), scores=1 / (1 + np.exp(-z)))


def _designs() -> dict:
    """The designs of the engine other than several runs per system, on demo-like data (600 items, 4 systems
    of accuracy 0.9 down to 0.6 whose errors share an item difficulty)."""
    runs = correlated_runs(7)
    docs = np.repeat(np.arange(100), 6)
    clustered = dataclasses.replace(runs, clusters=docs, cluster_names=tuple(f"d{i}" for i in range(100)),
                                    cluster_col="doc")
    rng = np.random.default_rng(2)
    gold = rng.random((200, 4)) < 0.3
    pred = np.stack([np.where(rng.random(gold.shape) < p, gold, ~gold) for p in (0.9, 0.8, 0.75)])
    return {"single": (ConfusionDesign(runs), get("macro_f1")),
            "clustered": (ConfusionDesign(clustered), get("macro_f1")),
            "scores": (ScoreDesign(score_counts(_scored_runs(), positive=1)), get("roc_auc")),
            "label sets": (LabelSetDesign(multilabel_runs(gold, pred, "wxyz", ("m0", "m1", "m2"))), get("micro_f1"))}


@pytest.mark.parametrize("name", ["single", "clustered", "scores", "label sets"])
def test_other_designs_keep_the_normal_approximation_bit_for_bit(name):
    """Designs without a ``pair_test`` hook: the bootstrap rows are bootstrap_p of the resampled differences
    with the normal approximation, exactly as before the hook existed."""
    design, measure = _designs()[name]
    assert not hasattr(design, "pair_test")
    point = np.asarray(design.point([measure]), dtype=float)
    out = resampled(design, [measure], point, bootstrap=200, seed=11, alpha=0.05, rounds=0,
                    pairwise_test="bootstrap", order=design.systems, tests=("bootstrap",))
    a, b = np.triu_indices(len(design.systems), 1)
    sign = 1.0 if design.direction(measure) else -1.0
    samples = out.samples[:, :, 0]
    p, n, _ = bootstrap_p(sign * (samples[:, a] - samples[:, b]), sign * (point[a, 0] - point[b, 0]))
    rows = out.pairwise[out.pairwise["test"] == "bootstrap"]
    np.testing.assert_array_equal(rows["p_value"].to_numpy(dtype=float), p)
    np.testing.assert_array_equal(rows["n_resamples"].to_numpy(), n)
    assert set(rows["detail"]) == {"paired bootstrap, normal approximation"}


@pytest.mark.parametrize("clusters", [False, True])
def test_one_run_per_system_gives_the_wrapped_designs_pairwise_table(clusters):
    runs = correlated_runs(8)
    if clusters:
        runs = dataclasses.replace(runs, clusters=np.repeat(np.arange(100), 6),
                                   cluster_names=tuple(f"d{i}" for i in range(100)), cluster_col="doc")
    tables = []
    for design in (ConfusionDesign(runs), SeedsDesign(ConfusionDesign(runs), runs.systems)):
        point = np.asarray(design.point([ACC]), dtype=float)
        tables.append(resampled(design, [ACC], point, bootstrap=200, seed=5, alpha=0.05, rounds=50,
                                pairwise_test="bootstrap", order=design.systems).pairwise)
    pd.testing.assert_frame_equal(tables[0], tables[1], check_exact=True)


# ----------------------------------------------------------------------------- several runs per system


def _seeded(n_runs=(3, 3, 1, 1), seed: int = 1) -> Runs:
    """Binary runs of four systems (the given numbers of runs), skill varying by seed."""
    rng = np.random.default_rng(seed)
    gold = rng.integers(0, 2, 200)
    preds, systems, run_system = [], [], []
    for s, k in enumerate(n_runs):
        for r in range(k):
            skill = 0.7 + 0.02 * s + rng.normal(0, 0.08)
            preds.append(np.where(rng.random(200) < skill, gold, 1 - gold))
            systems.append(f"s{s}/seed{r}")
            run_system.append(f"s{s}")
    return Runs(gold=gold, pred=np.stack(preds), labels=("a", "b"), systems=tuple(systems),
                run_system=tuple(run_system))


def test_several_runs_name_the_t_reference_and_keep_the_widened_intervals():
    runs = _seeded()
    out = {}
    for paired_t in (True, False):
        design = SeedsDesign(ConfusionDesign(runs), runs.run_system, paired_t=paired_t)
        point = design.point([ACC])
        out[paired_t] = resampled(design, [ACC], point, bootstrap=300, seed=2, alpha=0.05, rounds=0,
                                  pairwise_test="bootstrap", order=design.systems)
    # intervals, P(best) and ranks come from the same widened resamples either way
    np.testing.assert_array_equal(out[True].samples, out[False].samples)
    pd.testing.assert_frame_equal(out[True].intervals, out[False].intervals, check_exact=True)
    pd.testing.assert_frame_equal(out[True].rank_distribution, out[False].rank_distribution, check_exact=True)
    detail = out[True].pairwise.set_index(["system_a", "system_b"])["detail"]
    assert detail[("s2", "s3")] == "paired bootstrap, normal approximation"          # one run each: no seed part
    for pair in [("s0", "s1"), ("s0", "s2"), ("s1", "s3")]:
        assert detail[pair].startswith("paired bootstrap, t with ") and detail[pair].endswith(
            " df (Welch-Satterthwaite)"), detail[pair]
    assert set(out[False].pairwise["detail"]) == {"paired bootstrap, normal approximation"}
    # the pair of one-run systems: its resamples are the same either way, and so is its p-value
    one = out[True].pairwise.set_index(["system_a", "system_b"])["p_value"]
    assert one[("s2", "s3")] == out[False].pairwise.set_index(["system_a", "system_b"])["p_value"][("s2", "s3")]


def _drawn(values, rng):
    """``(B, 1, 1)`` the means of R runs drawn with replacement from ``values`` ``(B, R, 1)``."""
    B, R, _ = values.shape
    weights = rng.multinomial(R, np.full(R, 1 / R), size=B)
    return ((weights * values[:, :, 0]).sum(axis=1) / R)[:, None, None]


def test_pair_test_draws_hold_the_seed_variance_once():
    """Runs that differ by the seed alone (offsets -0.05, 0, 0.05 on every resample): the test's drawn
    deviations have exactly the seed's variance of the mean of 3 runs, 0.05^2 / 3 (the variance between the
    runs over R, all of it the seed's); runs that differ by run-by-item noise alone keep no drawn deviation,
    since the item resamples already hold that noise (Owen 2007), but their variance between runs still
    counts, with R - 1 degrees of freedom."""
    rng = np.random.default_rng(5)
    B, R = 4000, 3
    values = (0.5 + np.array([-0.05, 0.0, 0.05])[None] + rng.normal(0, 0.01, (B, 1)))[:, :, None]
    drawn = _drawn(values, rng)
    out, run_var = paired_draws(drawn, values, [np.arange(R)], ranges=[(0.0, 1.0)])
    centre = values[:, :, 0].mean(axis=1)
    assert np.var(out[:, 0, 0] - centre, ddof=1) == pytest.approx(0.05 ** 2 / 3, rel=1e-9)
    assert run_var[0, 0] == pytest.approx(0.05 ** 2 / 3, rel=1e-9)
    moved = np.abs(drawn[:, 0, 0] - centre) > 1e-12
    ratio = (out[moved, 0, 0] - centre[moved]) / (drawn[moved, 0, 0] - centre[moved])
    assert np.ptp(ratio) < 1e-9                              # one factor for every resample

    noise = (0.5 + rng.normal(0, 0.02, (B, R)))[:, :, None]
    out, run_var = paired_draws(_drawn(noise, rng), noise, [np.arange(R)], ranges=[(0.0, 1.0)])
    np.testing.assert_allclose(out[:, 0, 0], noise[:, :, 0].mean(axis=1), atol=1e-12)
    assert run_var[0, 0] > 0


def test_the_hook_is_off_without_the_rescaling_or_for_another_measure():
    runs = _seeded((3, 2))
    plain = SeedsDesign(ConfusionDesign(runs), runs.run_system, adjust=False)
    plain.point([ACC])
    samples = plain.resample([ACC], 100, np.random.default_rng(0))[:, :, 0]
    assert plain.pair_test(ACC, np.array([0]), np.array([1])) is None
    table = pairwise_tests(plain, ACC, plain.point([ACC])[:, 0], tests=("bootstrap",), samples=samples)
    assert table["detail"].iloc[0] == "paired bootstrap, normal approximation"
    design = SeedsDesign(ConfusionDesign(runs), runs.run_system)
    design.point([ACC])
    design.resample([ACC], 100, np.random.default_rng(0))
    assert design.pair_test(get("macro_f1"), np.array([0]), np.array([1])) is None
    diffs, df = design.pair_test(ACC, np.array([0]), np.array([1]))
    assert diffs.shape == (100, 1) and 1.0 <= df[0]


def test_power_rises_where_the_widened_test_was_conservative():
    """A true difference (the second system's logits raised by 0.5; items model of tests/seed_sim.py, 3 runs,
    seed sd 0.3, 300 test sets): the t test rejects more often than the normal approximation on the widened
    resamples did, on the same draws (a 0.3 shift on 1,000 sets per row: docs/seeds.md)."""
    rates = error_rates("items", 3, 0.3, n_sets=300, seed=77, modes=("adjusted", "widened"), shift=0.5)
    assert rates["adjusted"][0] > rates["widened"][0] + 0.05, rates


def test_the_equivalence_test_keeps_the_widened_standard_error():
    """With a margin, the equivalence test (two one-sided tests on the normal approximation) takes its standard
    error from the widened resamples, as before the t test: only the difference test changes its reference."""
    runs = _seeded()
    rows = {}
    for paired_t in (True, False):
        design = SeedsDesign(ConfusionDesign(runs), runs.run_system, paired_t=paired_t)
        point = design.point([ACC])[:, 0]
        samples = design.resample([ACC], 300, np.random.default_rng(9))[:, :, 0]
        rows[paired_t] = pairwise_tests(design, ACC, point, tests=("bootstrap",), samples=samples, margin=0.05)
    np.testing.assert_array_equal(rows[True]["p_equivalence"], rows[False]["p_equivalence"])
    assert not np.array_equal(rows[True]["p_value"], rows[False]["p_value"])
