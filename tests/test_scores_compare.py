"""Scores through the comparison engine (analyses/score_design.py, score_compare.py) and the command
line: intervals and tests of score-based measures, DeLong rows, curves, bad input; a seeded simulation
of the bootstrap interval's coverage of a known AUC."""
from __future__ import annotations

import io
from contextlib import redirect_stdout
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy.stats import norm

from evalreport.analyses.compare import compare
from evalreport.analyses.engine import resampled
from evalreport.analyses.score_design import ScoreDesign
from evalreport.cli import main
from evalreport.counts.scores import score_counts
from evalreport.inputs.runs import Runs
from evalreport.measures import get


def _scored(seed=0, n=240, K=3, S=3, missing=False):
    rng = np.random.default_rng(seed)
    gold = rng.integers(0, K, n)
    p = rng.dirichlet(np.ones(K), size=(S, n))
    p[:, np.arange(n), gold] += np.linspace(0.1, 1.0, S)[:, None]
    p /= p.sum(-1, keepdims=True)
    if missing:
        p[-1] = np.nan
    labels = tuple("abcde"[:K])
    return Runs(gold=gold, pred=np.nan_to_num(p).argmax(-1), labels=labels,
                systems=tuple(f"s{i}" for i in range(S)), scores=p, score_labels=labels)


def test_a_score_primary_heads_the_leaderboard_with_its_own_tests():
    runs = _scored()
    c = compare(runs, bootstrap=150, primary="log_loss", seed=3)
    assert c.primary == "log_loss" and c.measures[0] == "log_loss"
    assert list(c.leaderboard["system"]) == ["s2", "s1", "s0"]          # lower log loss is better
    assert set(c.pairwise["measure"]) == {"log_loss"} and set(c.pairwise["test"]) == {"bootstrap"}
    assert c.samples.shape == (150, 3, len(c.measures))
    iv = c.intervals[c.intervals["measure"] == "roc_auc"]
    assert len(iv) == 3 and (iv["lo"] <= iv["value"]).all() and (iv["value"] <= iv["hi"]).all()
    assert {"roc_curve", "pr_curve", "reliability"} <= set(c.tables())
    assert not c.scores[c.scores["measure"] == "ece"]["calibrated"].any()


def test_same_seed_same_numbers_and_a_confusion_primary_keeps_its_tests():
    runs = _scored(seed=4)
    a = compare(runs, bootstrap=60, seed=9)
    b = compare(runs, bootstrap=60, seed=9)
    pd.testing.assert_frame_equal(a.intervals, b.intervals)
    assert a.primary == "macro_f1" and "roc_auc" in a.measures
    assert a.measures[0] == "macro_f1" and len(set(a.measures)) == len(a.measures)    # the primary kept, first
    j = a.measures.index("roc_auc")           # the resampled values follow the order of the measures
    iv = a.intervals[a.intervals["measure"] == "roc_auc"].set_index("system").loc[list(a.systems)]
    np.testing.assert_allclose(np.nanquantile(a.samples[:, :, j], 0.975, axis=0), iv["hi"].to_numpy())
    assert set(a.pairwise["measure"]) == {"macro_f1", "accuracy"}     # bootstrap/randomisation, McNemar


def test_delong_rows_for_a_binary_auc_primary_and_undefined_without_scores():
    runs = _scored(seed=5, K=2, S=3, missing=True)
    c = compare(runs, bootstrap=80, primary="roc_auc", positive="b")
    dl = c.pairwise[c.pairwise["test"] == "delong"]
    assert len(dl) == 3 and dl["detail"].str.contains("DeLong").all()
    assert dl.set_index(["system_a", "system_b"])["p_value"].isna().to_dict() == {
        ("s0", "s1"): False, ("s0", "s2"): True, ("s1", "s2"): True}
    row = c.scores[(c.scores["system"] == "s2") & (c.scores["measure"] == "brier")].iloc[0]
    assert np.isnan(row["value"]) and "no score columns" in row["reason"]
    # two classes: the weighted and one-vs-one ROC AUC would repeat the binary one
    assert "roc_auc" in c.measures and not {"roc_auc_weighted", "roc_auc_ovo"} & set(c.measures)


def test_score_design_resamples_equal_the_measure_on_the_drawn_items():
    runs = _scored(seed=6, n=80)
    design = ScoreDesign(score_counts(runs))
    ms = [get("roc_auc"), get("brier")]
    got = design.resample(ms, 5, np.random.default_rng(1))
    rng = np.random.default_rng(1)
    draws = rng.integers(0, 80, size=(5, 80))
    for b in range(5):
        sub = Runs(gold=runs.gold[draws[b]], pred=runs.pred[:, draws[b]], labels=runs.labels, systems=runs.systems,
                   scores=runs.scores[:, draws[b]], score_labels=runs.score_labels)
        if len(set(sub.gold)) < 3:
            continue
        np.testing.assert_allclose(got[b], ScoreDesign(score_counts(sub)).point(ms), atol=1e-12)


def test_bootstrap_interval_of_auc_covers_the_true_auc():
    """Binormal scores (positives N(d, 1), negatives N(0, 1)): AUC = Phi(d / sqrt 2) (Hanley & McNeil 1982).
    The 95% percentile interval covers it in about 95% of 150 seeded data sets."""
    rng = np.random.default_rng(7)
    d = 1.0
    true = norm.cdf(d / np.sqrt(2))
    covered = 0
    trials = 150
    for _ in range(trials):
        gold = rng.integers(0, 2, 150)
        score = rng.normal(size=(1, 150)) + d * gold
        runs = Runs(gold=gold, pred=(score > 0.5).astype(int), labels=("n", "p"), systems=("x",), scores=score)
        design = ScoreDesign(score_counts(runs, positive=1))
        res = resampled(design, [get("roc_auc")], design.point([get("roc_auc")]), bootstrap=300,
                        seed=int(rng.integers(1 << 30)), alpha=0.05, rounds=0, pairwise_test="bootstrap", order=["x"])
        lo, hi = res.intervals.loc[0, ["lo", "hi"]]
        covered += lo <= true <= hi
    assert 0.89 <= covered / trials <= 0.99


def _files(tmp_path: Path, *, bad_sum=False) -> tuple[Path, Path]:
    runs = _scored(seed=8, n=40)
    gold = tmp_path / "gold.tsv"
    gold.write_text("id\tlabel\n" + "".join(f"i{i}\t{runs.labels[g]}\n" for i, g in enumerate(runs.gold)))
    folder = tmp_path / "runs"
    folder.mkdir()
    for s, name in enumerate(runs.systems):
        p = np.round(runs.scores[s], 6)
        p[:, -1] = 1 - p[:, :-1].sum(-1)
        if bad_sum and s == 1:
            p[3, 0] += 0.5
        rows = "".join(f"i{i}\t{runs.labels[int(p[i].argmax())]}\t" + "\t".join(f"{v:.6f}" for v in p[i]) + "\n"
                       for i in range(40))
        (folder / f"{name}.tsv").write_text("id\tlabel\t" + "\t".join(f"score_{k}" for k in runs.labels) + "\n" + rows)
    return gold, folder


def test_cli_score_and_compare_write_the_score_measures(tmp_path, capsys):
    gold, folder = _files(tmp_path)
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(["score", str(gold), "--runs-dir", str(folder), "--format", "csv"]) == 0
    frame = pd.read_csv(io.StringIO(out.getvalue()))
    assert {"roc_auc", "log_loss", "ece", "macro_f1"} <= set(frame["measure"])
    assert main(["compare", str(gold), "--runs-dir", str(folder), "--primary", "roc_auc", "--bootstrap", "40",
                 "--out", str(tmp_path / "out"), "--no-progress"]) == 0
    for name in ("roc_curve", "pr_curve", "reliability"):
        assert (tmp_path / "out" / f"{name}.csv").is_file()


def test_cli_probabilities_checked_only_where_needed(tmp_path, capsys):
    gold, folder = _files(tmp_path, bad_sum=True)
    assert main(["score", str(gold), "--runs-dir", str(folder), "--measures", "roc_auc,macro_f1"]) == 0
    capsys.readouterr()
    assert main(["score", str(gold), "--runs-dir", str(folder), "--measures", "brier"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "s1.tsv, line 5, id 'i3': the per-class scores sum to" in err[0]


@pytest.mark.parametrize("measures", ["roc_auc", "log_loss"])
def test_score_measures_without_scores_are_one_error(tmp_path, capsys, measures):
    gold = tmp_path / "gold.tsv"
    gold.write_text("id\tlabel\na\tx\nb\ty\n")
    run = tmp_path / "r.tsv"
    run.write_text("id\tlabel\na\tx\nb\tx\n")
    assert main(["score", str(gold), str(run), "--measures", measures]) == 2
    assert "carry no scores" in capsys.readouterr().err


def test_codabench_scores_a_score_based_primary(tmp_path, capsys):
    gold, folder = _files(tmp_path)
    (tmp_path / "in" / "ref").mkdir(parents=True)
    (tmp_path / "in" / "res").mkdir()
    (tmp_path / "in" / "ref" / "gold.tsv").write_text(gold.read_text())
    (tmp_path / "in" / "res" / "pred.tsv").write_text((folder / "s2.tsv").read_text())
    assert main(["codabench", str(tmp_path / "in"), str(tmp_path / "out"), "--primary", "roc_auc",
                 "--measures", "macro_f1,brier", "--bootstrap", "30"]) == 0
    import json

    scores = json.loads((tmp_path / "out" / "scores.json").read_text())
    assert scores["score"] == scores["roc_auc"] and {"roc_auc_lo", "brier", "macro_f1"} <= set(scores)
    assert scores["roc_auc_lo"] <= scores["roc_auc"] <= scores["roc_auc_hi"]


def test_appendix_methods_name_delongs_test_for_an_auc_primary(tmp_path):
    """The methods paragraph names every test of pairwise.csv: DeLong et al. (1988) with Sun & Xu (2014)."""
    runs = _scored(seed=8, n=80, K=2)
    (tmp_path / "gold.tsv").write_text("id\tlabel\n" + "".join(f"i{i}\t{runs.labels[g]}\n"
                                                                 for i, g in enumerate(runs.gold)))
    (tmp_path / "runs").mkdir()
    for s, name in enumerate(runs.systems):
        p = runs.scores[s]
        rows = "".join(f"i{i}\t{runs.labels[int(p[i].argmax())]}\t{p[i, 1]:.6f}\n" for i in range(80))
        (tmp_path / "runs" / f"{name}.tsv").write_text("id\tlabel\tscore\n" + rows)
    out = tmp_path / "out"
    assert main(["appendix", str(tmp_path / "gold.tsv"), "--runs-dir", str(tmp_path / "runs"), "--primary", "roc_auc",
                 "--positive", "b", "--bootstrap", "50", "-o", str(out), "--quiet", "--no-audit"]) == 0
    assert "delong" in set(pd.read_csv(out / "data" / "pairwise.csv")["test"])
    assert "DeLong's test" in (out / "methods.md").read_text()
    bib = (out / "references.bib").read_text()
    assert "delong1988comparing" in bib and "sun2014fast" in bib
