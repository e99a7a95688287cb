"""The bias simulation of Forman & Scholz (2010), section 4, with few repetitions (seeded)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from evalreport.analyses import simulation as sim
from evalreport.analyses.crossval import F_AGGREGATIONS


def test_fold_counts_stratified_and_unstratified():
    """Section 2.1 / 4.2: stratified folds hold the same number of each class (+-1); folds have 100 cases."""
    rng = np.random.default_rng(0)
    pos, neg = sim.fold_counts(rng, n=1000, positives=15, folds=10, stratified=True, repetitions=3)
    assert (pos + neg == 100).all() and (pos.sum(axis=1) == 15).all() and pos.max() - pos.min() == 1
    assert neg.max() - neg.min() <= 1
    pos, neg = sim.fold_counts(rng, n=1000, positives=15, folds=10, stratified=False, repetitions=2000)
    assert (pos + neg == 100).all() and (pos.sum(axis=1) == 15).all()
    assert pos.max() > 2                                          # unstratified: uneven folds occur
    # P(a fold without positives) > 0 with 10 positives in 10 folds (Figure 9's point)
    pos10, _ = sim.fold_counts(rng, n=1000, positives=10, folds=10, stratified=False, repetitions=500)
    assert (pos10 == 0).any(axis=1).mean() > 0.9


def test_ground_truth_precision_equals_recall():
    """The simulated classifier has precision = recall = f (section 4.2): pooled over many runs the
    counts give both (checked on a large run, independent of the estimators)."""
    rng = np.random.default_rng(1)
    f, positives, n = 0.7, 50, 1000
    fpr = positives / n * (1 - f) / (1 - positives / n)
    tp = rng.binomial(positives, f, size=200_000).sum()
    fp = rng.binomial(n - positives, fpr, size=200_000).sum()
    assert tp / (200_000 * positives) == pytest.approx(f, rel=2e-3)      # recall
    assert tp / (tp + fp) == pytest.approx(f, rel=2e-3)                  # precision


@pytest.fixture(scope="module")
def results():
    return sim.run(prevalences=(0.01, 0.05, 0.25), f_values=(0.8,), repetitions=4000, seed=7)


def _bias(results, *, stratified, prevalence):
    sel = results[(results["stratified"] == stratified) & np.isclose(results["prevalence"], prevalence)]
    return sel.set_index("estimator")["rel_bias"]


def test_result_is_tidy(results):
    assert {"stratified", "prevalence", "positives", "f_true", "estimator", "label", "rel_bias", "rel_sd"} <= set(
        results.columns)
    assert len(results) == 2 * 3 * 5 and set(results["estimator"]) == set(F_AGGREGATIONS)
    assert set(results["label"]) == {"F_tp,fp", "F_avg", "F~_avg", "F_pr,re", "F~_pr,re"}


def test_f_tpfp_nearly_unbiased_and_least_biased(results):
    """Section 4.3 and 5: only F_tp,fp is almost perfectly unbiased, in every setting."""
    for (strat, prev), sel in results.groupby(["stratified", "prevalence"]):
        bias = sel.set_index("estimator")["rel_bias"].abs()
        assert bias["pooled"] < 0.005, (strat, prev)
        assert bias["pooled"] <= bias.min() + 1e-12 or bias["pooled"] < 0.001, (strat, prev)


def test_bias_directions_at_1_percent(results):
    """Section 4.3, Figure 5 left: with folds of undefined precision, the zero-substituting F_avg and F_pr,re
    are biased down, the fold-skipping F~_avg and F~_pr,re up."""
    for strat in (True, False):
        b = _bias(results, stratified=strat, prevalence=0.01)
        assert b["mean"] < -0.02 and b["pr_re"] < -0.02
        assert b["mean_defined"] > 0.02 and b["pr_re_defined"] > 0.02


def test_bias_directions_at_5_percent_stratified(results):
    """Section 4.3, Figure 5 right: F_pr,re has a relative bias above +1%, F_avg a smaller negative one."""
    b = _bias(results, stratified=True, prevalence=0.05)
    assert b["pr_re"] > 0.01
    assert -0.01 < b["mean"] < 0 and abs(b["mean"]) < b["pr_re"]


def test_unstratified_5_percent_zero_substitution_biased_down(results):
    """Figure 7: already at 5% positives, unstratified, F_avg and F_pr,re have a substantial negative bias
    (compared with the stratified case)."""
    un = _bias(results, stratified=False, prevalence=0.05)
    st = _bias(results, stratified=True, prevalence=0.05)
    assert un["mean"] < -0.01 and un["mean"] < st["mean"] and un["pr_re"] < st["pr_re"]


def test_unstratified_25_percent_pr_re_overlays_tpfp(results):
    """Section 4.3: at 25% positives, unstratified, F_pr,re and F~_pr,re lie on top of F_tp,fp."""
    b = _bias(results, stratified=False, prevalence=0.25)
    assert abs(b["pr_re"] - b["pooled"]) < 0.002 and b["pr_re"] == pytest.approx(b["pr_re_defined"])


def test_relative_sd_pooled_beats_fold_average(results):
    """Figure 8: from 5% positives up F_tp,fp varies less than F_avg."""
    for prev in (0.05, 0.25):
        sel = results[results["stratified"] & np.isclose(results["prevalence"], prev)].set_index("estimator")
        assert sel.loc["pooled", "rel_sd"] < sel.loc["mean", "rel_sd"]


def test_seeded_and_grid_independent():
    a = sim.run(prevalences=(0.02,), f_values=(0.7,), stratified=(True,), repetitions=300, seed=3)
    b = sim.run(prevalences=(0.02, 0.03), f_values=(0.6, 0.7), stratified=(True,), repetitions=300, seed=3)
    b = b[np.isclose(b["prevalence"], 0.02) & np.isclose(b["f_true"], 0.7)].reset_index(drop=True)
    pd.testing.assert_frame_equal(a, b)


def test_figure_frames():
    small = sim.run(prevalences=sim.FIG5_PREVALENCES + (0.25,), f_values=sim.F_VALUES, repetitions=30, seed=0,
                    chunk=15)
    frames = sim.figure_frames(small)
    assert set(frames) == {"figure5", "figure6", "figure7", "figure8"}
    f5 = frames["figure5"]
    assert sorted(f5["prevalence"].unique()) == list(sim.FIG5_PREVALENCES) and set(f5["f_true"]) == {0.8}
    f6, f7, f8 = frames["figure6"], frames["figure7"], frames["figure8"]
    assert f6["stratified"].all() and not f7["stratified"].any() and f8["stratified"].all()
    assert set(f6["panel"]) == {"1% positives", "5% positives", "25% positives"}
    assert (f8["metric"] == "rel_sd").all() and (f6["metric"] == "rel_bias").all()
    assert len(f6) == 3 * len(sim.F_VALUES) * 5
    with pytest.raises(ValueError, match="lack"):
        sim.figure_frames(small[small["prevalence"] < 0.2])


def test_monte_carlo_standard_error_of_the_bias(results):
    """rel_bias_se = sd / f / sqrt(defined repetitions): a bias of a few SE is noise, not bias."""
    defined = results["repetitions"] * (1 - results["undefined_rate"])
    np.testing.assert_allclose(results["rel_bias_se"], results["rel_sd"] / np.sqrt(defined), rtol=1e-9)
    pooled = results[results["estimator"] == "pooled"]
    assert (pooled["rel_bias"].abs() < 5 * pooled["rel_bias_se"] + 0.01).all()
