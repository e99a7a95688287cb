"""``compare`` and ``report`` on scored runs with ``--cluster-col`` or a folder of runs per system: a score-based
primary measure (ROC AUC) works end to end, resampled by whole clusters (Field & Welsh 2007) or by runs then
items, with point values equal to scikit-learn's on all items."""
import dataclasses
import json
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import roc_auc_score
from test_review_users import CLASSES, _scored_task
from test_scores_clusters import simulated_runs

from evalreport import Settings, compare, read_runs
from evalreport.cli import main


def _read_scores(path) -> np.ndarray:
    frame = pd.read_csv(path, sep="\t")
    return frame[[f"score_{c}" for c in CLASSES]].to_numpy(dtype=float)


def _gold(path) -> np.ndarray:
    return pd.read_csv(path, sep="\t")["label"].map({c: k for k, c in enumerate(CLASSES)}).to_numpy()


def _sklearn_auc(gold, scores) -> float:
    return float(roc_auc_score(gold, scores, multi_class="ovr", average="macro", labels=[0, 1, 2]))


@pytest.fixture(scope="module")
def clustered(tmp_path_factory):
    root = tmp_path_factory.mktemp("clustered")
    gold, runs = _scored_task(root / "in", seeds=1, clusters=True, n_items=240)
    return gold, runs, root


def test_compare_with_clusters_ranks_by_roc_auc(clustered):
    gold, runs, root = clustered
    out = root / "cmp"
    assert main(["compare", str(gold), "--runs-dir", str(runs), "--cluster-col", "doc", "--primary", "roc_auc",
                 "--bootstrap", "200", "--out", str(out), "--quiet"]) == 0
    board = pd.read_csv(out / "leaderboard.csv").set_index("system")
    assert set(board["measure"]) == {"roc_auc"}
    g = _gold(gold)
    for system in ("bert", "svm", "rule"):        # point values: all items, as scikit-learn
        assert board.at[system, "value"] == pytest.approx(_sklearn_auc(g, _read_scores(runs / f"{system}.tsv")),
                                                          abs=1e-12)
        assert board.at[system, "lo"] <= board.at[system, "value"] <= board.at[system, "hi"]
    design = pd.read_csv(out / "design.csv")
    assert set(design["measure"]) == {"roc_auc"} and set(design["n_clusters"]) == {40}
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["settings"]["n_clusters"] == 40
    assert any("score-based measures (roc_auc" in n and "the same cluster bootstrap" in n for n in manifest["notes"])
    assert not any("left out" in n for n in manifest["notes"])
    intervals = pd.read_csv(out / "intervals.csv")
    assert {"roc_auc", "brier", "log_loss", "ece"} <= set(intervals["measure"])


def test_letters_from_the_cluster_randomisation_test_on_scores(clustered):
    # the randomisation test (the letters' test here) exchanges two systems' scores on whole clusters
    gold, runs, _ = clustered
    data = read_runs(gold, runs_dir=runs, cluster_col="doc")
    cmp = compare(data, Settings(primary="roc_auc", bootstrap=50, randomization=30, pairwise_test="randomization"))
    rows = cmp.pairwise[cmp.pairwise["test"] == "randomization"]
    assert len(rows) == 3 and set(rows["measure"]) == {"roc_auc"}
    assert all("swap per cluster with prob. 1/2" in d for d in rows["detail"])
    assert (rows["n_resamples"] == 30).all() and len(cmp.groups) == 3


def test_compare_with_seeds_ranks_by_the_mean_roc_auc_over_runs(tmp_path):
    gold, runs = _scored_task(tmp_path / "in", seeds=3, clusters=False)
    out = tmp_path / "cmp"
    assert main(["compare", str(gold), "--runs-dir", str(runs), "--primary", "roc_auc", "--bootstrap", "200",
                 "--out", str(out), "--quiet"]) == 0
    board = pd.read_csv(out / "leaderboard.csv").set_index("system")
    per_run = pd.read_csv(out / "runs.csv")
    auc = per_run[per_run["measure"] == "roc_auc"]
    assert auc.groupby("system").size().to_dict() == {"bert": 3, "rule": 3, "svm": 3}
    g = _gold(gold)
    for row in auc.itertuples():
        want = _sklearn_auc(g, _read_scores(runs / row.system / f"{row.run}.tsv"))
        assert row.value == pytest.approx(want, abs=1e-12)
    mean = auc.groupby("system")["value"].mean()
    np.testing.assert_allclose(board.loc[mean.index, "value"], mean, atol=1e-12)
    assert set(pd.read_csv(out / "aso.csv")["measure"]) == {"roc_auc"}
    spread = pd.read_csv(out / "seed_spread.csv")
    assert (spread[spread["measure"] == "roc_auc"]["n_runs"] == 3).all()
    pairwise = pd.read_csv(out / "pairwise.csv")
    assert set(pairwise["test"]) == {"bootstrap"} and set(pairwise["measure"]) == {"roc_auc"}
    notes = json.loads((out / "manifest.json").read_text(encoding="utf-8"))["notes"]
    assert any("score-based measures (roc_auc" in n and "the same two-level bootstrap" in n for n in notes)
    curves = pd.read_csv(out / "roc_curve.csv")
    assert set(curves["system"]) == {"bert", "svm", "rule"}         # each system's first run, by its name


def test_report_with_clusters_and_a_roc_auc_primary(clustered):
    gold, runs, root = clustered
    out = root / "rep"
    assert main(["report", str(gold), "--runs-dir", str(runs), "--cluster-col", "doc", "--primary", "roc_auc",
                 "--bootstrap", "100", "-o", str(out), "--formats", "html", "--engine", "builtin", "--no-audit",
                 "--quiet"]) == 0
    html = (out / "report.html").read_text(encoding="utf-8")
    assert "Leaderboard: ROC AUC" in html
    assert "The design effect of ROC AUC" in html and "the same cluster bootstrap" in html
    # plan refuses score-based measures: the note does not send the reader there
    assert "What this test set can detect" in html and "evalreport plan</code> gives" not in html
    assert "plans measures of predicted labels" in html


def test_clusters_with_several_runs_and_a_score_primary_resample_runs_then_clusters(tmp_path):
    gold, runs = _scored_task(tmp_path / "in", seeds=2, clusters=True)
    proc = subprocess.run([sys.executable, "-m", "evalreport", "compare", str(gold), "--runs-dir", str(runs),
                           "--cluster-col", "doc", "--primary", "roc_auc", "--bootstrap", "100", "--out",
                           str(tmp_path / "out")], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    design = pd.read_csv(tmp_path / "out" / "design.csv")       # the score primary's design effect, per system
    assert set(design["measure"]) == {"roc_auc"} and list(design["system"]) == ["bert", "rule", "svm"]
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text(encoding="utf-8"))
    assert any(n.startswith("clustered items, several runs per system") for n in manifest["notes"])
    assert any("score-based measures (roc_auc" in n and "then whole clusters" in n for n in manifest["notes"])


@pytest.mark.parametrize("seeds, clusters, words", [(1, True, "scores, whole clusters within each slice"),
                                                    (3, False, "scores, two-level bootstrap")])
def test_slices_of_a_roc_auc_primary_take_the_comparison_design(tmp_path, seeds, clusters, words):
    gold, runs = _scored_task(tmp_path / "in", seeds=seeds, clusters=clusters, n_items=120)
    frame = pd.read_csv(gold, sep="\t")
    frame["dom"] = np.where(np.arange(len(frame)) % 2 == 1, "x", "y")
    frame.to_csv(gold, sep="\t", index=False)
    data = read_runs(gold, runs_dir=runs, cluster_col="doc" if clusters else None, slice_cols=["dom"])
    cmp = compare(data, Settings(primary="roc_auc", bootstrap=40, slice_cols=("dom",),
                                 cluster_col="doc" if clusters else None))
    assert any(n.startswith("slices (dom)") and words in n for n in cmp.notes)
    table = cmp.extra["slices"]
    row = table[(table["system"] == "bert") & (table["slice"] == "x") & (table["measure"] == "roc_auc")].iloc[0]
    x = np.arange(len(frame)) % 2 == 1
    files = [runs / "bert.tsv"] if seeds == 1 else [runs / "bert" / f"seed{k + 1}.tsv" for k in range(seeds)]
    want = np.mean([_sklearn_auc(_gold(gold)[x], _read_scores(f)[x]) for f in files])
    assert row["value"] == pytest.approx(want, abs=1e-12) and row["lo"] <= row["value"] <= row["hi"]


def test_delong_is_not_run_on_clusters():
    # DeLong's variance assumes independent items: a binary ROC AUC primary gets it without clusters only
    clustered = simulated_runs(np.random.default_rng(0))
    plain = dataclasses.replace(clustered, clusters=None, cluster_names=(), cluster_col=None)
    kw = dict(primary="roc_auc", bootstrap=30, positive="pos")
    assert "delong" in set(compare(plain, Settings(**kw)).pairwise["test"])
    cmp = compare(clustered, Settings(cluster_col="doc", **kw))
    assert set(cmp.pairwise["test"]) == {"bootstrap"}
    assert any("DeLong's test is not run (it assumes independent items)" in n for n in cmp.notes)


def test_benchmark_of_seeded_tasks_ranks_by_the_mean_roc_auc(tmp_path):
    # each task's folder of runs per system: its ROC AUC is the mean over runs (as compare gives), and the
    # consensus bootstrap draws runs then items for the score-based primary
    import shutil

    from evalreport.analyses.benchmark import compare_benchmark
    from evalreport.inputs.benchmark import read_benchmark

    for t in range(2):
        _scored_task(tmp_path / "tmp" / f"task{t + 1}", seeds=3, clusters=False, seed=t)
    shutil.move(str(tmp_path / "tmp"), str(tmp_path / "bench"))
    bench = read_benchmark(tmp_path / "bench", defaults={"primary": "roc_auc"})
    result = compare_benchmark(bench, bootstrap=60, seed=3)
    rows = result.task_scores[result.task_scores["task"] == "task1"].set_index("system")
    assert set(result.task_scores["measure"]) == {"roc_auc"}
    one = compare(read_runs(tmp_path / "bench" / "task1" / "gold.tsv", runs_dir=tmp_path / "bench" / "task1" / "runs"),
                  Settings(primary="roc_auc", bootstrap=0))
    want = one.leaderboard.set_index("system")["value"]
    np.testing.assert_allclose(rows.loc[want.index, "value"], want, atol=1e-12)
    assert (rows["lo"] <= rows["value"]).all() and (rows["value"] <= rows["hi"]).all()
