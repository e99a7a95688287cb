"""Paired bootstrap, rank distributions, pairwise tests and groups (evalreport.analyses.resampling).

Small B everywhere: the statistical checks use tolerances several standard errors wide.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from conftest import correlated_runs
from hypothesis import given, settings, strategies as st
from scipy import stats

from evalreport import measures
from evalreport.analyses import resampling as rs
from evalreport.analyses.randomization import random_bits, swap_units
from evalreport.counts import confusion_from_codes, count
from evalreport.errors import InputError, MeasureError
from evalreport.inputs.runs import Runs

SOME = ["accuracy", "macro_f1", "mcc", "kappa", "confusion_entropy"]   # incl. non-decomposable, lower-is-better


def with_pred(runs: Runs, pred, systems=None) -> Runs:
    return Runs(gold=runs.gold, pred=pred, labels=runs.labels, systems=tuple(systems or runs.systems),
                folds=runs.folds, fold_names=runs.fold_names)


# ----------------------------------------------------------------------------- patterns and counts


def test_patterns_count_every_distinct_row(rng):
    runs = correlated_runs(rng, n_items=300, n_systems=3, n_classes=3, folds=2)
    pat = rs.patterns(runs)
    rows = np.column_stack([runs.folds, runs.gold, runs.pred.T])
    distinct, counts = np.unique(rows, axis=0, return_counts=True)
    assert pat.n_patterns == len(distinct)
    assert sorted(pat.counts.tolist()) == sorted(counts.tolist())
    # every item maps to a pattern with its own codes
    np.testing.assert_array_equal(pat.gold[pat.inverse], runs.gold)
    np.testing.assert_array_equal(pat.pred[:, pat.inverse], runs.pred)
    np.testing.assert_array_equal(pat.fold[pat.inverse], runs.folds)
    # numbered by first occurrence
    first = np.array([np.flatnonzero(pat.inverse == p)[0] for p in range(pat.n_patterns)])
    assert np.all(np.diff(first) > 0)


def test_patterns_without_a_radix_code_agree(rng):
    """41 systems x 5 classes do not fit an int64 code: the row-unique path gives the same patterns."""
    runs = correlated_runs(rng, n_items=400, n_systems=41, n_classes=5, accuracy=np.full(41, 0.97))
    pat = rs.patterns(runs)
    few = rs.patterns(runs.select(runs.systems[:3]))
    np.testing.assert_array_equal(pat.gold[pat.inverse], runs.gold)
    np.testing.assert_array_equal(pat.pred[:, pat.inverse], runs.pred)
    assert pat.counts.sum() == runs.n_items
    assert pat.n_patterns == len(np.unique(np.column_stack([runs.gold, runs.pred.T]), axis=0))
    assert few.n_patterns <= pat.n_patterns


def test_resampled_confusions_equal_the_expanded_items(rng):
    """A fixed multinomial draw of pattern counts gives the confusion tensor of the item list
    that repeats each pattern's representative item that many times."""
    runs = correlated_runs(rng, n_items=500, n_systems=5, n_classes=4)
    pat = rs.patterns(runs)
    W = rng.multinomial(runs.n_items, pat.counts / runs.n_items, size=3)
    T = rs.resampled_confusions(pat, W)
    for b in range(3):
        items = np.repeat(np.arange(pat.n_patterns), W[b])
        expected = confusion_from_codes(pat.gold[items], pat.pred[:, items], runs.n_classes)
        np.testing.assert_array_equal(T[b], expected)
    # the unresampled counts give the data's own tensor
    np.testing.assert_array_equal(rs.resampled_confusions(pat, pat.counts[None])[0], count(runs).tensor)


def test_draws_keep_fold_sizes_and_match_item_resampling_in_distribution(rng):
    runs = correlated_runs(rng, n_items=900, n_systems=3, n_classes=3, folds=3)
    pat = rs.patterns(runs)
    plan = rs.draw_plan(pat)
    W = rs.draw_weights(pat, np.random.default_rng(1), 4000, plan)
    sizes = np.bincount(runs.folds, minlength=3)
    for f in range(3):
        np.testing.assert_array_equal(W[:, pat.fold == f].sum(axis=1), np.full(4000, sizes[f]))
    # item-level bootstrap within folds: mean and variance of each pattern's count agree
    p_in_fold = pat.counts / sizes[pat.fold]
    mean, var = sizes[pat.fold] * p_in_fold, sizes[pat.fold] * p_in_fold * (1 - p_in_fold)
    z = (W.mean(axis=0) - mean) / np.sqrt(var / 4000)
    assert np.abs(z).max() < 5
    assert np.allclose(W.var(axis=0), var, rtol=0.25, atol=0.05)


@pytest.mark.parametrize("many_patterns", [False, True])
def test_bootstrap_matches_naive_item_resampling(rng, many_patterns):
    """Pattern-count bootstrap vs resampling item indices: same mean, sd and quantiles of
    accuracy and macro F1 (both regimes of the draw: few patterns / nearly one per item)."""
    S = 12 if many_patterns else 2
    runs = correlated_runs(rng, n_items=800, n_systems=S, n_classes=4 if many_patterns else 2)
    B = 1500
    res = rs.bootstrap(runs, ["accuracy", "macro_f1"], n_resamples=B, seed=3)
    gen = np.random.default_rng(99)
    naive = np.empty((B, S, 2))
    for b in range(B):
        idx = gen.integers(0, runs.n_items, runs.n_items)
        C = confusion_from_codes(runs.gold[idx], runs.pred[:, idx], runs.n_classes)
        naive[b, :, 0] = measures.compute("accuracy", C).value
        naive[b, :, 1] = measures.compute("macro_f1", C).value
    se = naive.std(axis=0)
    assert np.all(np.abs(res.samples.mean(axis=0) - naive.mean(axis=0)) < 4 * se / np.sqrt(B) * np.sqrt(2))
    assert np.allclose(res.samples.std(axis=0), se, rtol=0.12)
    for q in (0.05, 0.5, 0.95):
        assert np.all(np.abs(np.quantile(res.samples, q, axis=0) - np.quantile(naive, q, axis=0)) < 0.5 * se)


# ----------------------------------------------------------------------------- bootstrap


def test_point_values_are_the_evaluated_values_for_every_measure(rng):
    """Every registered measure (binary ones with a positive class, ordinal ones with costs,
    parametrised families at their defaults) runs through the resampled stack."""
    runs = correlated_runs(rng, n_items=300, n_systems=3, n_classes=3)
    costs = np.abs(np.subtract.outer(np.arange(3), np.arange(3))).astype(float)
    # (gain measures bound to a gain matrix, as compare and the CLI's --gains bind them)
    every = [measures.bind(m, runs.labels, gains=np.eye(3) + 0.5) if "gains" in m.needs else m.id
             for m in measures.catalogue() if m.kind not in ("example", "scores")]   # (example-based: multi-label runs only)
    res = rs.bootstrap(runs, every, n_resamples=20, positive="b", costs=costs)
    ref = measures.evaluate(runs, every, positive="b", costs=costs)
    np.testing.assert_allclose(res.intervals["value"], ref["value"], equal_nan=True)
    assert list(res.intervals["measure"]) == list(ref["measure"])
    assert res.samples.shape == (20, 3, len(every))
    assert res.intervals[["lo", "hi"]].notna().all().all()


def test_default_measures_and_result_shape(rng):
    runs = correlated_runs(rng, n_items=200, n_systems=3)
    res = rs.bootstrap(runs, n_resamples=10)
    ids = [m.id for m in measures.default_measures()]
    assert res.measures == tuple(ids) and res.systems == runs.systems
    assert list(res.intervals.columns) == ["system", "measure", "value", "lo", "hi", "se", "nan_fraction",
                                            "resamples_missing_class"]
    assert len(res.intervals) == 3 * len(ids)
    assert list(res.rank_distribution.columns) == ["system", "measure", "rank", "probability"]
    assert len(res.rank_distribution) == 3 * 3 * len(ids)
    assert list(res.p_best.columns) == ["system", "measure", "probability"]
    assert res.n_resamples == 10 and res.seed == 0 and res.level == 0.95


def test_same_seed_same_frames_other_seed_other_samples(rng):
    runs = correlated_runs(rng, n_items=400, n_systems=4, folds=2)
    a = rs.bootstrap(runs, SOME, n_resamples=60, seed=7)
    b = rs.bootstrap(runs, SOME, n_resamples=60, seed=7)
    c = rs.bootstrap(runs, SOME, n_resamples=60, seed=8)
    pd.testing.assert_frame_equal(a.intervals, b.intervals)
    pd.testing.assert_frame_equal(a.rank_distribution, b.rank_distribution)
    np.testing.assert_array_equal(a.samples, b.samples)
    assert not np.array_equal(a.samples, c.samples)
    pa = rs.pairwise(runs, "mcc", n_resamples=60, seed=7)
    pd.testing.assert_frame_equal(pa, rs.pairwise(runs, "mcc", n_resamples=60, seed=7))


def test_interval_contains_the_estimate_and_shrinks_with_n():
    widths = []
    for n in (300, 4800):
        runs = correlated_runs(np.random.default_rng(5), n_items=n, n_systems=3)
        res = rs.bootstrap(runs, SOME, n_resamples=300, seed=1)
        iv = res.intervals
        assert ((iv["lo"] <= iv["value"]) & (iv["value"] <= iv["hi"])).all()
        assert (iv["se"] > 0).all()
        widths.append((iv["hi"] - iv["lo"]).to_numpy())
    # 16 x the items: about a quarter of the width (1/sqrt(16)); allow a wide margin
    assert np.all(widths[1] < 0.5 * widths[0])


def test_level_orders_the_intervals(rng):
    runs = correlated_runs(rng, n_items=500, n_systems=2)
    w = {lev: rs.bootstrap(runs, ["accuracy"], n_resamples=400, level=lev).intervals for lev in (0.5, 0.9)}
    assert np.all(w[0.5]["lo"] >= w[0.9]["lo"]) and np.all(w[0.5]["hi"] <= w[0.9]["hi"])


def test_rank_distribution_sums_to_one_both_ways(rng):
    runs = correlated_runs(rng, n_items=150, n_systems=5, accuracy=[0.8, 0.79, 0.78, 0.7, 0.7])
    rd = rs.bootstrap(runs, SOME, n_resamples=80).rank_distribution
    assert np.allclose(rd.groupby(["system", "measure"])["probability"].sum(), 1.0)
    assert np.allclose(rd.groupby(["measure", "rank"])["probability"].sum(), 1.0)   # every position is filled
    assert (rd["probability"] >= -1e-12).all()
    assert set(rd["rank"]) == set(range(1, 6))


def test_identical_systems_tie_and_are_not_separable(rng):
    base = correlated_runs(rng, n_items=300, n_systems=2)
    runs = with_pred(base, np.stack([base.pred[0], base.pred[0], base.pred[1]]), ["x", "twin", "other"])
    res = rs.bootstrap(runs, SOME, n_resamples=100)
    rd = res.rank_distribution
    for m in SOME:
        mine = rd[(rd.measure == m) & (rd.system == "x")]["probability"].to_numpy()
        np.testing.assert_allclose(mine, rd[(rd.measure == m) & (rd.system == "twin")]["probability"].to_numpy())
        assert mine[2] == 0 or mine[0] == 0        # the twins move together: never split by the third
    np.testing.assert_array_equal(res.samples[:, 0], res.samples[:, 1])
    pw = rs.pairwise(runs, "macro_f1", n_resamples=100)
    twin = pw[(pw.system_a == "x") & (pw.system_b == "twin")]
    assert len(twin) == 3
    assert (twin["p_value"] == 1.0).all() and (twin["difference"] == 0.0).all()


def test_a_tie_splits_the_positions():
    """Two identical perfect systems: each is first in half and second in half of the mass
    (expected rank 1.5 = the average rank), the third system is always third."""
    gold = np.tile([0, 1, 0, 1, 1, 0, 1, 0], 8)
    bad = np.tile([1, 1, 0, 0, 1, 1, 0, 0], 8)          # right on half: never perfect in 64 draws
    runs = Runs(gold=gold, pred=np.stack([gold, bad, gold]), labels=("n", "p"), systems=("a", "b", "c"))
    res = rs.bootstrap(runs, ["accuracy"], n_resamples=50)
    rd = res.rank_distribution.pivot(index="system", columns="rank", values="probability")
    np.testing.assert_allclose(rd.loc["a"], [0.5, 0.5, 0.0])
    np.testing.assert_allclose(rd.loc["c"], [0.5, 0.5, 0.0])
    np.testing.assert_allclose(rd.loc["b"], [0.0, 0.0, 1.0])
    np.testing.assert_allclose(res.p_best.set_index("system")["probability"], [0.5, 0.0, 0.5])


def test_dominating_system_is_best_and_significantly_better(rng):
    """A system correct on a superset of another's items (and on many more) ranks first under
    every monotone measure and every test separates them."""
    base = correlated_runs(rng, n_items=800, n_systems=2, n_classes=3, accuracy=[0.6, 0.6])
    strong = np.where(rng.random(800) < 0.6, base.gold, base.pred[0])      # fixes 60 % of s0's errors
    runs = with_pred(base, np.stack([base.pred[0], strong, base.pred[1]]), ["weak", "strong", "other"])
    assert np.all((runs.pred[0] == runs.gold) <= (runs.pred[1] == runs.gold))
    res = rs.bootstrap(runs, SOME, n_resamples=200)
    pb = res.p_best.set_index(["measure", "system"])["probability"]
    for m in SOME:
        assert pb.loc[(m, "strong")] > 0.99
    for m in ("accuracy", "macro_f1", "kappa", "confusion_entropy"):
        pw = rs.pairwise(runs, m, n_resamples=200)
        pair = pw[(pw.system_a == "weak") & (pw.system_b == "strong")]
        assert (pair["p_value"] < 0.01).all(), pair
        assert (pair.loc[pair.test != "mcnemar", "statistic"] < 0).all()       # a = weak is worse
    g = rs.groups(rs.pairwise(runs, "accuracy", n_resamples=200))
    assert g.set_index("system").loc["strong", "group"] == 1
    assert g["system"].iloc[0] == "strong"


def test_lower_is_better_measure_ranks_low_values_first(rng):
    runs = correlated_runs(rng, n_items=600, n_systems=3, accuracy=[0.95, 0.75, 0.55])
    res = rs.bootstrap(runs, ["confusion_entropy", "accuracy"], n_resamples=100)
    pb = res.p_best.set_index(["measure", "system"])["probability"]
    assert pb.loc[("confusion_entropy", "s0")] == pytest.approx(1.0)
    assert pb.loc[("accuracy", "s0")] == pytest.approx(1.0)
    pw = rs.pairwise(runs, "confusion_entropy", n_resamples=50, tests=("bootstrap",))
    assert (pw["statistic"] > 0).all()          # s0 better than s1 better than s2: a - b in the good direction


def test_undefined_values_do_not_crash_and_rank_last(rng):
    """A constant predictor has MCC 0/0 on every resample: NaN interval, counted in
    nan_fraction, ranked below the defined systems; its tests give NaN p-values, left out of
    the corrections."""
    base = correlated_runs(rng, n_items=200, n_systems=2)
    runs = with_pred(base, np.stack([base.pred[0], np.zeros(200, dtype=int), base.pred[1]]), ["s0", "const", "s1"])
    res = rs.bootstrap(runs, ["mcc", "accuracy"], n_resamples=50)
    iv = res.intervals.set_index(["measure", "system"])
    assert iv.loc[("mcc", "const"), "nan_fraction"] == 1.0
    assert np.isnan(iv.loc[("mcc", "const"), ["value", "lo", "hi", "se"]].astype(float)).all()
    assert iv.loc[("mcc", "s0"), "nan_fraction"] == 0.0
    rd = res.rank_distribution.set_index(["measure", "system", "rank"])["probability"]
    assert rd.loc[("mcc", "const", 3)] == pytest.approx(1.0)
    pw = rs.pairwise(runs, "mcc", n_resamples=50, tests=("bootstrap", "randomization"))
    undefined = pw[(pw.system_a == "const") | (pw.system_b == "const")]
    assert undefined["p_value"].isna().all() and undefined["p_holm"].isna().all()
    defined = pw.drop(undefined.index)
    assert defined["p_value"].notna().all()
    np.testing.assert_allclose(defined["p_holm"], defined["p_value"])   # one defined pair per test


def test_folds_resample_within_folds(rng):
    """With folds the value is the pooled one (the counts pooling of Forman & Scholz 2010) and the resamples
    keep every fold's size; a fold made of one class keeps that class's count fixed."""
    K = 2
    n = 400
    gold = np.r_[np.zeros(150, int), rng.integers(0, K, n - 150)]
    folds = np.r_[np.zeros(150, int), np.ones(n - 150, int)]
    pred = np.where(rng.random((2, n)) < 0.8, gold, 1 - gold)
    runs = Runs(gold=gold, pred=pred, labels=("a", "b"), systems=("x", "y"), folds=folds, fold_names=("f0", "f1"))
    pat = rs.patterns(runs)
    W = rs.draw_weights(pat, np.random.default_rng(0), 200, rs.draw_plan(pat))
    T = rs.resampled_confusions(pat, W)
    a = T.sum(axis=-1)                       # gold class sizes per resample
    gold_b_in_f1 = int((gold[folds == 1] == 1).sum())
    assert np.all(a[:, :, 0] >= 150)         # the 150 class-a items of fold 0 are always 150 items
    assert np.all(T.sum(axis=(-2, -1)) == n)
    assert np.all(W[:, pat.fold == 0].sum(axis=1) == 150)
    res = rs.bootstrap(runs, ["accuracy"], n_resamples=30)
    ref = measures.evaluate(runs, ["accuracy"])
    np.testing.assert_allclose(res.intervals["value"], ref["value"])
    assert gold_b_in_f1 > 0


def test_progress_is_reported(rng):
    runs = correlated_runs(rng, n_items=200, n_systems=3)
    calls = []
    rs.bootstrap(runs, ["accuracy"], n_resamples=40, progress=lambda d, t: calls.append((d, t)))
    assert calls and calls[-1] == (40, 40) and all(t == 40 for _, t in calls)
    calls.clear()
    rs.pairwise(runs, "accuracy", n_resamples=40, progress=lambda d, t: calls.append((d, t)))
    assert calls[-1] == (80, 80) and [d for d, _ in calls] == sorted(d for d, _ in calls)


def test_bad_arguments_are_input_errors(rng):
    runs = correlated_runs(rng, n_items=50, n_systems=2)
    with pytest.raises(InputError, match="Runs"):
        rs.bootstrap(count(runs), ["accuracy"])
    with pytest.raises(InputError, match="n_resamples"):
        rs.bootstrap(runs, ["accuracy"], n_resamples=0)
    with pytest.raises(InputError, match="level"):
        rs.bootstrap(runs, ["accuracy"], level=1.5)
    with pytest.raises(InputError, match="unknown test"):
        rs.pairwise(runs, "accuracy", tests=("t-test",))
    with pytest.raises(MeasureError):
        rs.bootstrap(runs, ["f1"])                              # binary measure without a positive class


# ----------------------------------------------------------------------------- relabelling invariance


@settings(max_examples=5, deadline=None)
@given(perm_seed=st.integers(0, 10_000))
def test_reordering_systems_permutes_every_output(perm_seed):
    runs = correlated_runs(np.random.default_rng(11), n_items=120, n_systems=4, n_classes=3, folds=2,
                           systems=["d", "b", "a", "c"])
    perm = np.random.default_rng(perm_seed).permutation(4)
    other = with_pred(runs, runs.pred[perm], [runs.systems[i] for i in perm])
    r1 = rs.bootstrap(runs, ["macro_f1", "mcc"], n_resamples=30, seed=2)
    r2 = rs.bootstrap(other, ["macro_f1", "mcc"], n_resamples=30, seed=2)
    key = ["measure", "system"]
    pd.testing.assert_frame_equal(r1.intervals.sort_values(key).reset_index(drop=True),
                                  r2.intervals.sort_values(key).reset_index(drop=True))
    key = ["measure", "system", "rank"]
    pd.testing.assert_frame_equal(r1.rank_distribution.sort_values(key).reset_index(drop=True),
                                  r2.rank_distribution.sort_values(key).reset_index(drop=True))
    np.testing.assert_array_equal(r1.samples[:, perm], r2.samples)

    def canon(df):
        flip = df["system_a"] > df["system_b"]
        out = df.copy()
        out.loc[flip, ["system_a", "system_b"]] = df.loc[flip, ["system_b", "system_a"]].to_numpy()
        signed = flip & (df["test"] != "mcnemar")
        out.loc[signed, "statistic"] = -df.loc[signed, "statistic"]
        out.loc[flip, "difference"] = -df.loc[flip, "difference"]
        out["detail"] = np.where(df["test"] == "mcnemar", "", out["detail"])   # b and c swap with the pair
        return out.sort_values(["test", "system_a", "system_b"]).reset_index(drop=True)

    p1 = rs.pairwise(runs, "kappa", n_resamples=40, seed=4)
    p2 = rs.pairwise(other, "kappa", n_resamples=40, seed=4)
    pd.testing.assert_frame_equal(canon(p1), canon(p2), check_exact=False, atol=1e-12)


# ----------------------------------------------------------------------------- tests and corrections


def test_mcnemar_hand_checked():
    # b = 10, c = 2: exact two-sided p = 2 * (1 + 12 + 66) / 2^12 = 158 / 4096 = 0.0386
    stat, p, exact = rs.mcnemar([10], [2])
    assert exact[0] and stat[0] == 2
    assert p[0] == pytest.approx(158 / 4096) and round(p[0], 4) == 0.0386
    assert p[0] == pytest.approx(stats.binomtest(10, 12, 0.5).pvalue)
    # b = 30, c = 10: chi2 with continuity correction (|30 - 10| - 1)^2 / 40 = 9.025
    stat, p, exact = rs.mcnemar([30], [10])
    assert not exact[0] and stat[0] == pytest.approx(9.025)
    assert p[0] == pytest.approx(stats.chi2.sf(9.025, 1))
    # no discordant items, and a balanced split
    stat, p, _ = rs.mcnemar([0, 7], [0, 7])
    assert p.tolist() == [1.0, 1.0] and stat[0] == 0


def test_mcnemar_rows_count_the_discordant_items():
    gold = np.zeros(40, dtype=int)
    a = np.r_[np.zeros(10), np.ones(2), np.zeros(20), np.ones(8)].astype(int)    # 30 right
    b = np.r_[np.ones(10), np.zeros(2), np.zeros(20), np.ones(8)].astype(int)    # 22 right
    runs = Runs(gold=gold, pred=np.stack([a, b]), labels=("n", "p"), systems=("a", "b"))
    row = rs.pairwise(runs, "accuracy", tests=("mcnemar",)).iloc[0]
    assert row["detail"] == "exact binomial, b=10, c=2"
    assert row["p_value"] == pytest.approx(158 / 4096)
    assert row["difference"] == pytest.approx(8 / 40) and row["measure"] == "accuracy"


def test_randomization_matches_the_exact_permutation_p():
    """b = 5 items only system a gets right, c = 1 only b gets right, 14 agreeing items.
    Swapping each discordant item with prob. 1/2 makes the accuracy difference a sum of 6
    Rademacher steps of 1/20: P(|sum| >= 4) = (2 * 6 + 2) / 64 = 0.21875 exactly."""
    gold = np.zeros(20, dtype=int)
    a = np.r_[np.zeros(5), np.ones(1), np.zeros(10), np.ones(4)].astype(int)
    b = np.r_[np.ones(5), np.zeros(1), np.zeros(10), np.ones(4)].astype(int)
    runs = Runs(gold=gold, pred=np.stack([a, b]), labels=("n", "p"), systems=("a", "b"))
    R = 20000
    row = rs.pairwise(runs, "accuracy", n_resamples=R, tests=("randomization",)).iloc[0]
    assert row["statistic"] == pytest.approx(4 / 20)
    assert abs(row["p_value"] - 0.21875) < 4 * np.sqrt(0.21875 * 0.78125 / R)


def test_randomization_and_bootstrap_agree_with_mcnemar_on_accuracy(rng):
    runs = correlated_runs(rng, n_items=1000, n_systems=3, accuracy=[0.8, 0.78, 0.7])
    pw = rs.pairwise(runs, "accuracy", n_resamples=400).pivot(index=["system_a", "system_b"], columns="test",
                                                              values="p_value")
    # the clear pairs are significant in all three, the close pair in none or with larger p
    assert (pw.loc[("s0", "s2")] < 0.01).all() and (pw.loc[("s1", "s2")] < 0.01).all()
    assert (pw.loc[("s0", "s1")] > pw.loc[("s0", "s2")]).all()


def test_holm_and_bh_on_known_vectors():
    p = np.array([0.01, 0.04, 0.03, 0.005])
    # Holm: sorted 0.005*4, 0.01*3, 0.03*2, 0.04*1 -> 0.02, 0.03, 0.06, max(0.06, 0.04)
    np.testing.assert_allclose(rs.holm(p), [0.03, 0.06, 0.06, 0.02])
    # BH: sorted p*4/rank = 0.02, 0.02, 0.04, 0.04, then running minimum from the top
    np.testing.assert_allclose(rs.benjamini_hochberg(p), [0.02, 0.04, 0.04, 0.02])
    np.testing.assert_allclose(rs.holm([0.5, 0.9]), [1.0, 1.0])
    out = rs.holm([np.nan, 0.01, 0.02])
    assert np.isnan(out[0]) and np.allclose(out[1:], [0.02, 0.02])
    assert np.isnan(rs.benjamini_hochberg([np.nan])).all()


def test_corrections_are_per_measure_and_test(rng):
    runs = correlated_runs(rng, n_items=300, n_systems=4)
    pw = rs.pairwise(runs, "macro_f1", n_resamples=60)
    for _, part in pw.groupby(["measure", "test"]):
        np.testing.assert_allclose(part["p_holm"], rs.holm(part["p_value"]))
        np.testing.assert_allclose(part["p_bh"], rs.benjamini_hochberg(part["p_value"]))
    assert len(pw) == 3 * 6
    # the bootstrap test uses the resamples of bootstrap() with the same seed
    samples = rs.bootstrap(runs, ["macro_f1"], n_resamples=60).samples[..., 0]
    d = samples[:, 0] - samples[:, 1]
    row = pw[(pw.test == "bootstrap") & (pw.system_a == "s0") & (pw.system_b == "s1")].iloc[0]
    # the normal approximation of the paired bootstrap distribution: p = 2 Phi(-|d| / sd(d*))
    assert row["p_value"] == pytest.approx(2 * stats.norm.sf(abs(row["statistic"]) / d.std(ddof=1)))


# ----------------------------------------------------------------------------- groups


def _pairwise_frame(pairs, values):
    rows = [{"system_a": a, "system_b": b, "measure": "m", "test": "bootstrap", "statistic": values[a] - values[b],
             "difference": values[a] - values[b], "p_value": p, "p_holm": p, "p_bh": p} for a, b, p in pairs]
    return pd.DataFrame(rows)


def test_groups_connected_to_the_leader():
    values = {"A": 0.9, "B": 0.85, "C": 0.8, "D": 0.5, "E": 0.49}
    pairs = [("A", "B", 0.3), ("A", "C", 0.01), ("A", "D", 0.001), ("A", "E", 0.001),
             ("B", "C", 0.4), ("B", "D", 0.001), ("B", "E", 0.001), ("C", "D", 0.001), ("C", "E", 0.001),
             ("D", "E", 0.8)]
    g = rs.groups(_pairwise_frame(pairs, values))
    assert g["system"].tolist() == ["A", "B", "C", "D", "E"]
    assert g["group"].tolist() == [1, 1, 2, 3, 3]
    assert g["leader"].tolist() == ["A", "A", "C", "D", "D"]
    # alpha below every p: nothing is separable
    assert rs.groups(_pairwise_frame(pairs, values), alpha=0.0005)["group"].tolist() == [1] * 5
    # an explicit order
    g = rs.groups(_pairwise_frame(pairs, values), order=["E", "D", "C", "B", "A"])
    assert g["group"].tolist() == [1, 1, 2, 2, 3]


def test_groups_reject_mixed_or_missing_input():
    values = {"A": 1.0, "B": 0.0}
    df = _pairwise_frame([("A", "B", 0.01)], values)
    with pytest.raises(InputError, match="no rows"):
        rs.groups(df, test="randomization")
    with pytest.raises(InputError, match="correction"):
        rs.groups(df, correction="bonferroni")
    with pytest.raises(InputError, match="order"):
        rs.groups(df, order=["A"])
    two = pd.concat([df, df.assign(measure="other")])
    with pytest.raises(InputError, match="several measures"):
        rs.groups(two)


def test_groups_identical_systems_share_a_group(rng):
    base = correlated_runs(rng, n_items=400, n_systems=2, accuracy=[0.9, 0.5])
    runs = with_pred(base, np.stack([base.pred[0], base.pred[0], base.pred[1]]), ["a", "a2", "b"])
    g = rs.groups(rs.pairwise(runs, "accuracy", n_resamples=100, tests=("randomization",)), test="randomization")
    grp = g.set_index("system")["group"]
    assert grp["a"] == grp["a2"] == 1 and grp["b"] == 2


def test_swap_units_draw_one_bit_per_item():
    n = np.array([1, 8, 9, 64, 65, 130, 2048, 2049, 50_000])
    cell, kind, mask = swap_units(n)
    bits = np.bitwise_count(mask).astype(int)
    drawn = kind < 2
    per_cell = np.bincount(cell[drawn], weights=bits[drawn], minlength=n.size)
    np.testing.assert_array_equal(per_cell[n <= 2048], n[n <= 2048])       # every item one bit, no more
    assert kind[cell <= 1].tolist() == [0, 0] and (mask[kind == 0] < 256).all()   # bytes
    assert np.bincount(cell[kind == 1]).tolist()[2:6] == [1, 1, 2, 3]                # 64-bit words
    assert kind[cell >= 7].tolist() == [2, 2]                                       # one binomial each
    # the popcount of masked random bits is Binomial(n, 1/2)
    rng = np.random.default_rng(0)
    byte = np.bitwise_count(random_bits(rng, 1, 40_000, np.uint8) & np.uint8(0b11111))
    assert abs(byte.mean() - 2.5) < 0.03 and abs(byte.var() - 1.25) < 0.05


def test_randomization_on_accuracy_is_mcnemar_with_large_cells():
    """On accuracy the randomisation test is the sign test on the discordant items, i.e. McNemar:
    b = 2600 items only a gets right, c = 2450 only b (cells above the bit-draw size)."""
    gold = np.zeros(6000, dtype=int)
    a = np.r_[np.zeros(2600), np.ones(2450), np.zeros(950)].astype(int)
    b = np.r_[np.ones(2600), np.zeros(2450), np.zeros(950)].astype(int)
    runs = Runs(gold=gold, pred=np.stack([a, b]), labels=("n", "p"), systems=("a", "b"))
    pw = rs.pairwise(runs, "accuracy", n_resamples=4000, tests=("randomization", "mcnemar")).set_index("test")
    assert pw.loc["mcnemar", "p_value"] == pytest.approx(stats.binomtest(2600, 5050).pvalue, abs=2e-3)
    assert abs(pw.loc["randomization", "p_value"] - pw.loc["mcnemar", "p_value"]) < 0.012
