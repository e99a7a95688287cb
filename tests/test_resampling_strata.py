"""Gold classes lost in bootstrap resamples, and the stratified bootstrap (``strata="gold"``).

Reviewer's finding 8 (second wave): on a 12-item test set with one gamma item, resamples without
beta or gamma scored the majority predictor 1.0 on macro-F1 (the empty classes skipped), so its
interval lay above its own value, silently. The count of such resamples is now kept, and
``strata="gold"`` resamples within each gold class.
"""
from __future__ import annotations

import itertools
import math
from collections import Counter

import numpy as np
import pandas as pd
import pytest
from conftest import random_runs, write_runs
from scipy import stats

from evalreport.analyses import resampling as rs
from evalreport.analyses.compare import compare
from evalreport.analyses.resampling_patterns import draw_plan, draw_weights
from evalreport.errors import InputError
from evalreport.inputs.runs import Runs
from evalreport.report.write import write_comparison

LABELS = ("alpha", "beta", "gamma")


def tiny() -> Runs:
    """A rare-class shape: 8 alpha, 3 beta, 1 gamma; a majority predictor and a fair system."""
    gold = np.array([0] * 8 + [1] * 3 + [2])
    majority = np.zeros(12, dtype=int)
    fair = np.array([0, 0, 0, 0, 0, 0, 1, 2, 1, 1, 0, 2])
    return Runs(gold=gold, pred=np.vstack([majority, fair]), labels=LABELS, systems=("majority", "fair"))


def test_lost_classes_are_counted_exactly():
    """Per class, the resamples without it are exactly those where its recall is undefined
    (AP = 0, the same resamples for every measure of one seed); a resample lacks some class exactly
    when one of those recalls is undefined."""
    runs = tiny()
    B = 400
    boot = rs.bootstrap(runs, ["macro_f1"], n_resamples=B, seed=3)
    absent = np.stack([np.isnan(rs.bootstrap(runs, ["recall"], positive=k, n_resamples=B, seed=3).samples[:, 0, 0])
                       for k in range(3)], axis=1)                            # (B, K)
    assert dict(boot.class_absent) == {LABELS[k]: int(absent[:, k].sum()) for k in range(3) if absent[:, k].any()}
    assert boot.n_missing_class == int(absent.any(axis=1).sum()) > 0
    assert "alpha" not in dict(boot.class_absent)              # 8 of 12 items: P(lost) = (1/3)^12
    assert (boot.intervals["resamples_missing_class"] == boot.n_missing_class).all()
    # why it matters: without beta and gamma the majority predictor's macro-F1 is 1.0
    only_alpha = absent[:, 1] & absent[:, 2]
    assert only_alpha.any()
    np.testing.assert_array_equal(boot.samples[only_alpha, 0, 0], 1.0)


def test_expected_number_of_lost_resamples():
    """P(class with n_k of n items absent from a resample) = (1 - n_k/n)^n: gamma (1 of 12)
    0.352, beta (3 of 12) 0.0317. Binomial tolerance of 5 standard errors over B = 4000."""
    B = 4000
    boot = rs.bootstrap(tiny(), ["accuracy"], n_resamples=B, seed=0)
    lost = dict(boot.class_absent)
    for label, n_k in (("gamma", 1), ("beta", 3)):
        p = (1 - n_k / 12) ** 12
        assert abs(lost[label] - B * p) < 5 * math.sqrt(B * p * (1 - p)), (label, lost[label], B * p)


def test_stratified_bootstrap_keeps_every_class_and_fixes_the_constant_predictor():
    runs = tiny()
    boot = rs.bootstrap(runs, ["macro_f1", "sba"], n_resamples=300, seed=1, strata="gold")
    assert boot.class_absent == () and boot.n_missing_class == 0 and boot.strata == "gold"
    iv = boot.intervals.set_index(["system", "measure"])
    # a constant predictor's confusion matrix is fixed by the class sizes, which every resample keeps
    for m in ("macro_f1", "sba"):
        row = iv.loc[("majority", m)]
        assert row["lo"] == pytest.approx(row["value"]) and row["hi"] == pytest.approx(row["value"])
    np.testing.assert_allclose(boot.samples[:, 0, 0], iv.loc[("majority", "macro_f1"), "value"])


def test_stratified_draws_keep_every_fold_and_class_size(rng):
    runs = random_runs(rng, n_items=90, n_systems=2, folds=2, labels=LABELS)
    pat = rs.patterns(runs)
    plan = draw_plan(pat, "gold")
    W = draw_weights(pat, np.random.default_rng(5), 200, plan)                 # (b, P)
    cell = pat.fold * pat.n_classes + pat.gold
    want = np.bincount(cell, weights=pat.counts, minlength=pat.n_folds * pat.n_classes)
    got = np.stack([np.bincount(cell, weights=w, minlength=pat.n_folds * pat.n_classes) for w in W])
    np.testing.assert_array_equal(got, np.broadcast_to(want, got.shape))
    # the confusion tensors keep the gold class sizes too
    T = rs.resampled_confusions(pat, W)
    np.testing.assert_array_equal(T[:, 0].sum(axis=-1), np.broadcast_to(np.bincount(runs.gold, minlength=3),
                                                                        (200, 3)))


def test_stratified_distribution_equals_direct_per_class_resampling():
    """Exact reference: resampling each gold class's items with replacement, directly. On 2 + 3
    items (each its own pattern) every per-class draw is enumerated: the multiset of drawn items has
    a known probability; the implementation's frequencies over B = 20000 draws must fit it
    (chi-square goodness of fit, seeded)."""
    gold = np.array([0, 0, 1, 1, 1])
    pred = np.array([[0, 1, 1, 0, 2], [1, 0, 2, 1, 1]])      # every item its own pattern
    runs = Runs(gold=gold, pred=pred, labels=LABELS, systems=("a", "b"))
    pat = rs.patterns(runs)
    assert pat.n_patterns == 5
    exact = Counter()
    for draw0 in itertools.product([0, 1], repeat=2):           # class 0: 2 items drawn from its 2
        for draw1 in itertools.product([2, 3, 4], repeat=3):    # class 1: 3 items drawn from its 3
            w = np.bincount(pat.inverse[list(draw0 + draw1)], minlength=5)
            exact[tuple(w)] += 1 / (2 ** 2 * 3 ** 3)
    B = 20000
    W = draw_weights(pat, np.random.default_rng(11), B, draw_plan(pat, "gold")).astype(int)
    seen = Counter(map(tuple, W))
    assert set(seen) <= set(exact)
    keys = sorted(exact)
    observed = np.array([seen[k] for k in keys], dtype=float)
    expected = np.array([exact[k] for k in keys]) * B
    assert stats.chisquare(observed, expected).pvalue > 1e-3


def test_stratified_intervals_match_direct_per_class_resampling(rng):
    """The stratified bootstrap's distribution of macro-F1 equals, within Monte-Carlo error, that of
    resampling each class's items directly (numpy, item by item; macro-F1 = mean of 2TP / (2TP + FP
    + FN), checked against scikit-learn on the first resamples)."""
    from sklearn.metrics import f1_score

    runs = random_runs(rng, n_items=120, n_systems=2, folds=1, labels=LABELS)
    runs = Runs(gold=runs.gold, pred=runs.pred, labels=runs.labels, systems=runs.systems)
    B = 3000
    boot = rs.bootstrap(runs, ["macro_f1"], n_resamples=B, seed=2, strata="gold")
    direct_rng = np.random.default_rng(99)
    members = [np.flatnonzero(runs.gold == k) for k in range(3)]
    idx = np.concatenate([m[direct_rng.integers(0, len(m), (B, len(m)))] for m in members], axis=1)   # (B, n)
    g, p = runs.gold[idx], runs.pred[0, idx]
    tp = np.stack([((g == k) & (p == k)).sum(1) for k in range(3)], 1)
    fp = np.stack([((g != k) & (p == k)).sum(1) for k in range(3)], 1)
    fn = np.stack([((g == k) & (p != k)).sum(1) for k in range(3)], 1)
    vals = (2 * tp / (2 * tp + fp + fn)).mean(1)
    for b in range(5):
        assert vals[b] == pytest.approx(f1_score(g[b], p[b], average="macro", labels=[0, 1, 2]))
    ours = boot.samples[:, 0, 0]
    assert stats.ks_2samp(ours, vals).pvalue > 1e-3
    assert np.quantile(ours, 0.5) == pytest.approx(np.quantile(vals, 0.5), abs=0.02)
    # not the unstratified bootstrap's: the class proportions do not vary
    free = rs.bootstrap(runs, ["macro_f1"], n_resamples=B, seed=2).samples[:, 0, 0]
    assert np.std(free) > np.std(ours)


def test_default_draws_are_unchanged_by_the_strata_option(rng):
    runs = random_runs(rng, n_items=90, n_systems=2, folds=2, labels=LABELS)
    a = rs.bootstrap(runs, ["accuracy", "macro_f1"], n_resamples=50, seed=4)
    b = rs.bootstrap(runs, ["accuracy", "macro_f1"], n_resamples=50, seed=4, strata=None)
    np.testing.assert_array_equal(a.samples, b.samples)
    c = rs.bootstrap(runs, ["accuracy", "macro_f1"], n_resamples=50, seed=4, strata="gold")
    assert not np.array_equal(a.samples, c.samples)


def test_unknown_strata_is_an_input_error():
    with pytest.raises(InputError, match="strata"):
        rs.bootstrap(tiny(), ["accuracy"], n_resamples=5, strata="fold")
    with pytest.raises(InputError, match="strata"):
        rs.pairwise(tiny(), "accuracy", n_resamples=5, strata="class")


def test_compare_says_which_classes_were_lost():
    comp = compare(tiny(), measures=["accuracy"], primary="macro_f1", bootstrap=200, seed=0)
    lost = comp.settings["bootstrap_class_absent"]
    assert set(lost) == {"beta", "gamma"} and comp.settings["bootstrap_missing_class"] > 0
    sentence = [n for n in comp.notes if "gold class was absent" in n]
    assert len(sentence) == 1 and f"without gamma: {lost['gamma']:,}" in sentence[0]
    assert "bootstrap_strata" not in comp.settings
    strat = compare(tiny(), measures=["accuracy"], primary="macro_f1", bootstrap=200, seed=0,
                    bootstrap_strata="gold")
    assert strat.settings["bootstrap_strata"] == "gold" and "bootstrap_class_absent" not in strat.settings
    assert not any("gold class was absent" in n for n in strat.notes)
    # the pairwise bootstrap test uses the same stratified resamples as the intervals
    again = rs.pairwise(tiny(), "macro_f1", n_resamples=200, seed=0, tests="bootstrap", strata="gold")
    mine = strat.pairwise[strat.pairwise["test"] == "bootstrap"].reset_index(drop=True)
    np.testing.assert_array_equal(mine["p_value"].to_numpy(), again["p_value"].to_numpy())


def test_lost_classes_sentence():
    assert rs.lost_classes_sentence({}, 0, 1000) == ""
    text = rs.lost_classes_sentence({"beta": 39, "gamma": 323}, 357, 1000)
    assert text.startswith("In 357 of the 1,000 bootstrap resamples")
    assert text.index("without gamma: 323") < text.index("without beta: 39")
    assert "class-averaged" in text


def test_cli_bootstrap_strata(tmp_path, capsys):
    import json

    from evalreport.cli import main

    gold_path, run_paths = write_runs(tmp_path, tiny())
    gold, runs = str(gold_path), [str(p) for p in run_paths]
    assert main(["compare", gold, *runs, "--bootstrap", "100", "--out", str(tmp_path / "items"), "--no-progress"]) == 0
    assert "gold class was absent" in capsys.readouterr().err
    manifest = json.loads((tmp_path / "items" / "manifest.json").read_text())
    assert set(manifest["settings"]["bootstrap_class_absent"]) == {"beta", "gamma"}
    assert main(["compare", gold, *runs, "--bootstrap", "100", "--bootstrap-strata", "gold",
                 "--out", str(tmp_path / "gold"), "--no-progress"]) == 0
    err = capsys.readouterr().err
    assert "within gold classes (stratified)" in err and "gold class was absent" not in err
    iv = pd.read_csv(tmp_path / "gold" / "intervals.csv")
    assert (iv["resamples_missing_class"] == 0).all()
    with pytest.raises(SystemExit) as exit_info:            # argparse: one line naming the choices, status 2
        main(["compare", gold, *runs, "--bootstrap-strata", "class"])
    assert exit_info.value.code == 2 and "invalid choice" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_report_says_it_next_to_the_intervals_and_in_the_agreement_captions(tmp_path):
    """The leaderboard's caption names the lost classes; the inconsistency table counts comparable
    pairs and says how an undefined value is handled (MCC is 0/0 for the majority predictor)."""
    from evalreport.report.sections import ReportData

    base = tiny()
    third = np.array([0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 0])        # ahead on accuracy, behind on macro-F1
    # a fourth system, right on every item (first under every measure, so it adds no disagreement): the
    # report compares rankings between measures from 4 systems on
    runs = Runs(gold=base.gold, pred=np.vstack([base.pred, third, base.gold]), labels=LABELS,
                systems=(*base.systems, "third", "oracle"))
    comp = compare(runs, measures=["accuracy", "mcc"], primary="macro_f1", bootstrap=100, seed=0)
    write_comparison(comp, tmp_path / "t")
    data = ReportData(tmp_path / "t")
    caption = data.leaderboard_table().caption
    assert "bootstrap resamples at least one gold class was absent" in caption and "without gamma" in caption
    table = data.inconsistency_table()
    shown = table.df.set_index(["measure", "other measure"])
    assert "neither an agreement nor a disagreement" in table.caption
    # of 6 system pairs the 3 without the majority predictor have an MCC value on both sides; (fair, third) flips
    row = shown.loc[(data._label("macro_f1"), data._label("mcc"))]
    assert (row["comparable system pairs"], row["system pairs ordered differently"]) == (3, 1)
    assert shown.loc[(data._label("macro_f1"), data._label("accuracy")), "comparable system pairs"] == 6
