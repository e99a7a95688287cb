"""``--bootstrap-strata gold`` with score-based measures (evalreport.analyses.score_design): the score bootstrap
draws the items within each gold class (within each fold), as the confusion measures' bootstrap does, so every
resample keeps the class counts; whole clusters cannot be drawn within a class and are refused in one line.

The command-line check: a system that gives every item the same probabilities has a Brier score and log loss that
depend on the class shares only, so within gold classes every resample has the same value (an interval of no
width), while the item bootstrap moves it."""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from evalreport.analyses.score_clusters import item_clusters
from evalreport.analyses.score_design import ScoreDesign, bootstrap_weights, with_strata
from evalreport.analyses.seeds import SeedsDesign
from evalreport.cli import main
from evalreport.counts.scores import score_counts
from evalreport.errors import InputError
from evalreport.inputs.runs import Runs

LABELS = ("a", "b", "c")


def _runs(seed: int = 0, n: int = 150, folds: bool = False) -> Runs:
    """Two systems' probabilities on three imbalanced classes (the first gives every item the same ones)."""
    rng = np.random.default_rng(seed)
    gold = rng.choice(3, n, p=[0.6, 0.3, 0.1])
    p = np.empty((2, n, 3))
    p[0] = [0.5, 0.3, 0.2]
    p[1] = rng.dirichlet(np.ones(3), n)
    p[1, np.arange(n), gold] += 1.0
    p[1] /= p[1].sum(-1, keepdims=True)
    kw = {"folds": np.arange(n) % 3} if folds else {}
    return Runs(gold=gold, pred=p.argmax(-1), labels=LABELS, systems=("constant", "model"), scores=p,
                score_labels=LABELS, **kw)


@pytest.mark.parametrize("folds", [False, True])
def test_every_resample_keeps_the_class_counts(folds):
    runs = _runs(1, folds=folds)
    design = ScoreDesign(score_counts(runs), folds=getattr(runs, "folds", None), strata="gold")
    weights = design._weights(np.random.default_rng(2), 300)
    gold = np.asarray(runs.gold)
    cells = gold if not folds else np.asarray(runs.folds) * 3 + gold
    for cell in np.unique(cells):
        assert np.all(weights[:, cells == cell].sum(axis=1) == np.sum(cells == cell))
    unstratified = ScoreDesign(score_counts(runs), folds=getattr(runs, "folds", None))._weights(
        np.random.default_rng(2), 300)
    assert np.ptp(unstratified[:, gold == 2].sum(axis=1)) > 0          # the item bootstrap moves them


def test_without_strata_the_draws_are_unchanged():
    runs = _runs(3)
    a = ScoreDesign(score_counts(runs))._weights(np.random.default_rng(5), 40)
    np.testing.assert_array_equal(a, bootstrap_weights(np.random.default_rng(5), 40, runs.n_items))


def test_with_strata_reaches_the_score_design_inside_the_two_level_design():
    sc = score_counts(_runs(4))
    inner = ScoreDesign(sc)
    seeds = SeedsDesign(inner, ("x", "x"))
    assert with_strata(seeds, "gold") is seeds and inner.strata == "gold"
    assert with_strata(ScoreDesign(sc), None).strata is None
    with pytest.raises(InputError, match="unknown bootstrap strata"):
        ScoreDesign(sc, strata="fold")


def test_gold_strata_with_whole_clusters_is_one_line():
    runs = _runs(5)
    runs = Runs(gold=runs.gold, pred=runs.pred, labels=runs.labels, systems=runs.systems, scores=runs.scores,
                score_labels=runs.score_labels, clusters=np.arange(runs.n_items) // 5,
                cluster_names=tuple(f"c{k}" for k in range(runs.n_items // 5)))
    with pytest.raises(InputError, match="cannot be combined with --cluster-col") as err:
        ScoreDesign(score_counts(runs), clusters=item_clusters(runs), strata="gold")
    assert "\n" not in str(err.value)


def _files(tmp, runs: Runs):
    gold = tmp / "gold.tsv"
    gold.write_text("id\tlabel\n" + "".join(f"i{i}\t{LABELS[g]}\n" for i, g in enumerate(runs.gold)))
    folder = tmp / "runs"
    folder.mkdir()
    for s, name in enumerate(runs.systems):
        p = runs.scores[s]
        rows = "".join(f"i{i}\t{LABELS[int(p[i].argmax())]}\t" + "\t".join(repr(float(v)) for v in p[i]) + "\n"
                       for i in range(runs.n_items))
        (folder / f"{name}.tsv").write_text("id\tlabel\t" + "\t".join(f"score_{k}" for k in LABELS) + "\n" + rows)
    return gold, folder


@pytest.mark.parametrize("strata", ["none", "gold"])
def test_cli_compare_resamples_score_measures_within_gold_classes(tmp_path, strata):
    gold, folder = _files(tmp_path, _runs(6))
    out = tmp_path / strata
    assert main(["compare", str(gold), "--runs-dir", str(folder), "--primary", "brier", "--measures",
                 "log_loss,macro_f1", "--bootstrap", "200", "--seed", "1", "--bootstrap-strata", strata,
                 "--out", str(out), "--no-progress"]) == 0
    iv = pd.read_csv(out / "intervals.csv").set_index(["system", "measure"])
    for m in ("brier", "log_loss"):
        width = iv.loc[("constant", m), "hi"] - iv.loc[("constant", m), "lo"]
        if strata == "gold":          # the class counts fixed: the constant forecast's value never moves
            assert width == pytest.approx(0, abs=1e-12), m
        else:
            assert width > 0.01, m
        assert iv.loc[("model", m), "hi"] > iv.loc[("model", m), "lo"]
    manifest = json.loads((out / "manifest.json").read_text())
    said = [n for n in manifest["notes"] if n.startswith("intervals:")]
    assert len(said) == 1 and ("within gold classes" in said[0]) == (strata == "gold")


def test_cli_codabench_score_interval_within_gold_classes(tmp_path, capsys):
    gold, folder = _files(tmp_path, _runs(7))
    (tmp_path / "in" / "ref").mkdir(parents=True)
    (tmp_path / "in" / "res").mkdir()
    (tmp_path / "in" / "ref" / "gold.tsv").write_text(gold.read_text())
    (tmp_path / "in" / "res" / "pred.tsv").write_text((folder / "constant.tsv").read_text())
    assert main(["codabench", str(tmp_path / "in"), str(tmp_path / "out"), "--primary", "brier",
                 "--bootstrap", "100", "--bootstrap-strata", "gold"]) == 0
    scores = json.loads((tmp_path / "out" / "scores.json").read_text())
    assert scores["brier_lo"] == pytest.approx(scores["brier"], abs=1e-12)
    assert scores["brier_hi"] == pytest.approx(scores["brier"], abs=1e-12)


def test_slices_of_a_score_primary_are_resampled_within_gold_classes():
    """Each slice's interval of the constant forecast has no width within gold classes (its Brier score depends
    on the slice's class counts only); the slices' design says so."""
    from evalreport.analyses.compare import compare
    from evalreport.inputs.settings import Settings

    base = _runs(8, n=300)
    domain = np.random.default_rng(8).choice(np.array(["u", "v"], dtype=object), size=base.n_items)
    runs = Runs(gold=base.gold, pred=base.pred, labels=LABELS, systems=base.systems, scores=base.scores,
                score_labels=LABELS, slices={"domain": domain})
    cmp = compare(runs, Settings(bootstrap=100, seed=2, primary="brier", bootstrap_strata="gold", progress=False))
    rows = cmp.extra["slices"]
    constant = rows[(rows["system"] == "constant") & (rows["measure"] == "brier")]
    assert len(constant) == 2 and np.allclose(constant["hi"] - constant["lo"], 0, atol=1e-12)
    model = rows[(rows["system"] == "model") & (rows["measure"] == "brier")]
    assert (model["hi"] - model["lo"] > 0).all()
    assert "within gold classes" in cmp.settings["slice_resampling"]
