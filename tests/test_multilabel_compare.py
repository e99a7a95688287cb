"""compare on label sets: bootstrap values against scikit-learn on the resampled items, intervals,
pairwise tests and groups, chance baselines for sets, per-label tables, files.

scikit-learn's ``zero_division=np.nan`` is evalreport's default policy ``nan`` (undefined labels
skipped in the average), used throughout unless a test says otherwise.
"""
from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd
import pytest
from conftest import multilabel_runs
from sklearn import metrics as skm

from evalreport.analyses.compare import compare
from evalreport.analyses.multilabel import ML_TABLES, LabelSetDesign
from evalreport.errors import MeasureError
from evalreport.measures import get
from evalreport.report.write import write_comparison

Runs = multilabel_runs          # the real MultiLabelRuns, made in memory


def make_runs(seed=0, S=4, N=120, L=5, noise=(0.05, 0.15, 0.3, 0.3)):
    """System s flips each (item, label) cell with probability noise[s]: systems 0 < 1 < 2 ~ 3."""
    rng = np.random.default_rng(seed)
    gold = rng.random((N, L)) < 0.3
    gold[:4] = False
    pred = np.stack([np.where(rng.random((N, L)) < noise[s], ~gold, gold) for s in range(S)])
    return Runs(gold, pred, tuple(f"l{i}" for i in range(L)), tuple(f"sys{s}" for s in range(S)))


MEASURES = ["f1_macro", "f1_micro", "example_f1", "hamming_loss", "subset_accuracy"]


@pytest.fixture(scope="module")
def comp():
    return compare(make_runs(), measures=MEASURES, bootstrap=200, seed=3)


def test_point_scores_match_sklearn(comp):
    runs = make_runs()
    sk = {"f1_macro": lambda g, p: skm.f1_score(g, p, average="macro", zero_division=np.nan),
          "f1_micro": lambda g, p: skm.f1_score(g, p, average="micro", zero_division=np.nan),
          "example_f1": lambda g, p: skm.f1_score(g, p, average="samples", zero_division=np.nan),
          "hamming_loss": skm.hamming_loss, "subset_accuracy": skm.accuracy_score}
    for m, f in sk.items():
        got = comp.scores[comp.scores.measure == m].set_index("system")["value"]
        want = [f(runs.gold, runs.pred[s]) for s in range(4)]
        np.testing.assert_allclose(got.loc[list(runs.systems)].to_numpy(), want, rtol=1e-12)


def test_bootstrap_values_are_the_measures_of_the_resampled_items():
    """Resample b's value = scikit-learn on the items drawn (np.repeat by the multinomial weights the
    comparison draws: the same generator, seed and block)."""
    runs = make_runs(N=60)
    c = compare(runs, measures=["f1_macro", "example_jaccard"], bootstrap=5, seed=11)
    rng = np.random.default_rng(11)
    W = np.concatenate([rng.multinomial(60, np.full(60, 1 / 60), size=b) for b in (2, 2, 1)])
    for b in range(5):
        idx = np.repeat(np.arange(60), W[b])
        for s in range(4):
            g, p = runs.gold[idx], runs.pred[s][idx]
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                assert c.samples[b, s, 0] == pytest.approx(skm.f1_score(g, p, average="macro", zero_division=np.nan))
            # example_jaccard, policy nan: items with both sets empty are left out of the mean
            keep = (g | p).any(axis=1)
            assert c.samples[b, s, 1] == pytest.approx(skm.jaccard_score(g[keep], p[keep], average="samples"))


def test_bootstrap_reproducible_with_seed():
    runs = make_runs()
    a = compare(runs, measures=MEASURES, bootstrap=50, seed=7)
    b = compare(runs, measures=MEASURES, bootstrap=50, seed=7)
    c = compare(runs, measures=MEASURES, bootstrap=50, seed=8)
    pd.testing.assert_frame_equal(a.intervals, b.intervals)
    pd.testing.assert_frame_equal(a.pairwise, b.pairwise)
    assert not np.allclose(a.samples, c.samples)
    # the draws do not depend on how many resamples are counted at once
    design = LabelSetDesign(runs, block=13)
    again = design.resample([get(m) for m in MEASURES], 50, design.streams(7)[0])
    np.testing.assert_allclose(again, a.samples, rtol=1e-12)        # the same draws (matrix products in other blocks)


def test_intervals_and_rank_distribution(comp):
    iv = comp.intervals
    assert len(iv) == 4 * len(MEASURES)
    assert (iv.lo <= iv.value + 1e-12).mean() > 0.9 and (iv.value <= iv.hi + 1e-12).mean() > 0.9
    assert (iv.lo <= iv.hi).all()
    sums = comp.rank_distribution.groupby(["system", "measure"])["probability"].sum()
    np.testing.assert_allclose(sums, 1.0)
    # lower is better for the Hamming loss: the least noisy system is ranked first
    hl = comp.ranks[comp.ranks.measure == "hamming_loss"].set_index("system")["rank"]
    assert hl["sys0"] == 1 and hl["sys1"] == 2


def test_pairwise_and_groups_consistent(comp):
    pw = comp.pairwise[comp.pairwise.test == "bootstrap"]
    assert set(comp.pairwise.test) == {"bootstrap", "randomization", "mcnemar"}
    assert len(pw) == 6 and set(pw.measure) == {"f1_macro"} and (pw.p_holm >= pw.p_value - 1e-15).all()
    val = comp.scores[comp.scores.measure == "f1_macro"].set_index("system")["value"]
    np.testing.assert_allclose(pw.difference, val.loc[pw.system_a].to_numpy() - val.loc[pw.system_b].to_numpy())
    grp = comp.groups.set_index("system")["group"]
    assert grp["sys0"] == 1 and grp["sys0"] != grp["sys1"]     # clearly different noise levels are separated
    # two systems in one group are not separable from that group's leader at alpha
    for s, row in comp.groups.set_index("system").iterrows():
        if row.leader and row.leader != s:
            pair = pw[((pw.system_a == s) & (pw.system_b == row.leader)) | ((pw.system_b == s) & (pw.system_a == row.leader))]
            assert (pair.p_holm >= 0.05).all()
    board = comp.leaderboard
    assert list(board["rank"]) == sorted(board["rank"]) and board.system.iloc[0] == "sys0"
    assert set(board.columns) >= {"rank", "system", "measure", "value", "lo", "hi", "group", "p_best"}


def test_baselines(comp):
    runs = make_runs()
    base = comp.baselines.set_index(["baseline", "measure"])["value"]
    empty = np.zeros_like(runs.gold)
    assert base["empty_set", "hamming_loss"] == pytest.approx(skm.hamming_loss(runs.gold, empty))
    assert base["empty_set", "subset_accuracy"] == pytest.approx(skm.accuracy_score(runs.gold, empty))
    sets, freq = np.unique(runs.gold, axis=0, return_counts=True)
    top = np.broadcast_to(sets[np.argmax(freq)], runs.gold.shape)
    assert base["most_frequent_set", "f1_micro"] == pytest.approx(skm.f1_score(runs.gold, top, average="micro"))
    # each label at its gold frequency q_l: E[Hamming loss] = mean_l 2 q_l (1 - q_l) exactly (linear in cells)
    q = runs.gold.mean(axis=0)
    row = comp.baselines.set_index(["baseline", "measure"]).loc[("label_frequency", "hamming_loss")]
    assert abs(row.value - np.mean(2 * q * (1 - q))) < 5 * row.se


def test_per_label_and_label_errors(comp):
    runs = make_runs()
    pl = comp.per_label
    for s, name in enumerate(runs.systems):
        part = pl[pl.system == name]
        for col, f in (("precision", skm.precision_score), ("recall", skm.recall_score), ("f1", skm.f1_score)):
            want = f(runs.gold, runs.pred[s], average=None, zero_division=np.nan)
            np.testing.assert_allclose(part[col].to_numpy(), want, equal_nan=True)
        mcm = skm.multilabel_confusion_matrix(runs.gold, runs.pred[s])
        err = comp.label_errors[comp.label_errors.system == name].set_index("label")
        np.testing.assert_array_equal(err.loc[list(runs.labels), "added"], mcm[:, 0, 1])
        np.testing.assert_array_equal(err.loc[list(runs.labels), "dropped"], mcm[:, 1, 0])
        total = (err["added"] + err["dropped"]).to_numpy()
        assert (np.diff(total) <= 0).all()                      # worst label first


def test_refused_measure_and_duplicates():
    runs = make_runs()
    with pytest.raises(MeasureError, match="single-label"):
        compare(runs, measures=["accuracy"], bootstrap=0)
    c = compare(runs, primary="macro_f1", measures=["f1_macro", "micro_f1", "f1_micro"], bootstrap=0)
    assert c.measures == ("macro_f1", "micro_f1")
    assert any("one quantity" in n for n in c.notes) and any("bootstrap = 0" in n for n in c.notes)
    assert c.intervals.empty and c.pairwise.empty and c.groups.empty


def test_permuting_systems_permutes_outputs():
    runs = make_runs()
    order = [2, 0, 3, 1]
    perm = Runs(runs.gold, runs.pred[order], runs.labels, tuple(runs.systems[i] for i in order))
    a = compare(runs, measures=MEASURES, bootstrap=30, seed=1)
    b = compare(perm, measures=MEASURES, bootstrap=30, seed=1)
    key = ["measure", "system"]
    for name in ("scores", "intervals"):
        pd.testing.assert_frame_equal(a.tables()[name].sort_values(key).reset_index(drop=True),
                                      b.tables()[name].sort_values(key).reset_index(drop=True))


def test_write_comparison_writes_every_table(tmp_path, comp):
    out = write_comparison(comp, tmp_path / "ml")
    for name in ML_TABLES:
        frame = pd.read_csv(out / f"{name}.csv")
        assert list(frame.columns) == list(comp.tables()[name].columns)
        assert len(json.loads((out / f"{name}.json").read_text())) == len(comp.tables()[name])
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["task"] == "multilabel" and manifest["primary"] == "f1_macro" and manifest["notes"]


def test_cardinality(comp):
    """Label cardinality (Tsoumakas & Katakis 2007): mean |set| per item; density = cardinality / L."""
    runs = make_runs()
    card = comp.cardinality.set_index("source")
    assert card.loc["gold", "cardinality"] == pytest.approx(runs.gold.sum() / 120)
    assert card.loc["gold", "empty"] == pytest.approx((~runs.gold.any(axis=1)).mean())
    assert card.loc["sys2", "density"] == pytest.approx(runs.pred[2].mean())
    assert card.loc["sys0", "distinct_sets"] == len({tuple(r) for r in runs.pred[0]})
    assert list(card.role) == ["gold"] + ["system"] * 4


@pytest.mark.parametrize("policy", ["zero", "one"])
def test_an_invented_label_changes_only_its_systems_scores(policy):
    """sys0 predicts a label outside the label set (n_task = 5 of 6 labels): the other systems'
    scores under every label-based macro / weighted average are those without that label, and
    per_label marks it; sys0's micro precision drops (the invented label is its false positive)."""
    from dataclasses import replace

    runs = make_runs(S=3, noise=(0.05, 0.15, 0.3))
    N = runs.gold.shape[0]
    extra = np.zeros((3, N, 1), dtype=bool)
    extra[0, ::7] = True
    wider = replace(Runs(np.concatenate([runs.gold, np.zeros((N, 1), bool)], 1), np.concatenate([runs.pred, extra], 2),
                         (*runs.labels, "zz"), runs.systems), n_task=5)
    ms = ["f1_macro", "precision_macro", "f1_weighted", "precision_micro", "accuracy_micro", "specificity_micro",
          "example_precision", "hamming_loss", "subset_accuracy"]
    kw = dict(measures=ms, policy=policy, bootstrap=0, randomization=0, audit=False)
    a = compare(runs, **kw).scores.set_index(["system", "measure"]).value
    b = compare(wider, **kw)
    bv = b.scores.set_index(["system", "measure"]).value
    for m in ms:
        for s in ("sys1", "sys2"):
            assert bv[(s, m)] == pytest.approx(a[(s, m)], nan_ok=True), (s, m)
    assert bv[("sys0", "precision_micro")] < a[("sys0", "precision_micro")]
    assert bv[("sys0", "hamming_loss")] == pytest.approx(a[("sys0", "hamming_loss")] + extra.sum() / (N * 5))
    assert bv[("sys0", "f1_macro")] == pytest.approx(a[("sys0", "f1_macro")])      # FP outside the task's labels
    assert b.per_label[~b.per_label.in_task].label.unique().tolist() == ["zz"]
    assert b.settings["n_task"] == 5 and b.settings["labels"] == 6
