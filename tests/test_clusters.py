"""Clustered items: reading the gold's cluster column, the cluster bootstrap as pattern counts, cluster
swaps, the clustered McNemar test, the design effect, and ``--cluster-col`` end to end."""
import io
import json
from contextlib import redirect_stderr, redirect_stdout

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from evalreport.analyses.clusters import (
    FEW_CLUSTERS,
    clustered_mcnemar,
    design_sentence,
    draw_cluster_weights,
)
from evalreport.analyses.compare import compare
from evalreport.analyses.resampling import ConfusionDesign, bootstrap, draw_plan, draw_weights, resampled_confusions
from evalreport.cli import main
from evalreport.errors import InputError
from evalreport.inputs.readers import read_runs
from evalreport.inputs.runs import Runs
from evalreport.measures import compute, get

ACC = get("accuracy")


def clustered_runs(seed: int = 0, docs: int = 12, per_doc: int = 5, systems: int = 3, folds: bool = False) -> Runs:
    rng = np.random.default_rng(seed)
    n = docs * per_doc
    gold = rng.integers(0, 3, size=n)
    skill = np.repeat(rng.uniform(0.3, 0.95, size=(systems, docs)), per_doc, axis=1)
    pred = np.where(rng.random((systems, n)) < skill, gold, (gold + 1) % 3)
    fold = np.repeat(np.arange(docs) % 2, per_doc) if folds else None
    return Runs(gold=gold, pred=pred, labels=("a", "b", "c"), systems=tuple(f"s{i}" for i in range(systems)),
                folds=fold, fold_names=("f1", "f2") if folds else (),
                clusters=np.repeat(np.arange(docs), per_doc), cluster_names=tuple(f"d{i}" for i in range(docs)),
                cluster_col="doc")


def plain(runs: Runs) -> Runs:
    return Runs(gold=runs.gold, pred=runs.pred, labels=runs.labels, systems=runs.systems, folds=runs.folds,
                fold_names=runs.fold_names)


# ----------------------------------------------------------------------------- reading


def write(path, text: str):
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def files(tmp_path):
    gold = write(tmp_path / "gold.tsv", "id\tlabel\tdoc\tfold\na\tx\td1\tf1\nb\ty\td1\tf1\nc\tx\td2\tf2\nd\ty\td2\tf2\n")
    run = write(tmp_path / "r.tsv", "id\tlabel\na\tx\nb\tx\nc\ty\nd\ty\n")
    return tmp_path, gold, run


def test_read_cluster_column(files):
    _, gold, run = files
    runs = read_runs(gold, [run], cluster_col="doc")
    assert runs.cluster_names == ("d1", "d2") and runs.clusters.tolist() == [0, 0, 1, 1]
    assert runs.n_clusters == 2 and runs.cluster_col == "doc"
    assert runs.select(["r"]).clusters.tolist() == [0, 0, 1, 1]
    assert read_runs(gold, [run]).clusters is None          # no cluster column asked for: independent items


def test_missing_cluster_column_names_file_and_line(files):
    _, gold, run = files
    with pytest.raises(InputError) as err:
        read_runs(gold, [run], cluster_col="document")
    text = str(err.value)
    assert str(gold) in text and "line 1" in text and "'document'" in text and "'doc'" in text


def test_empty_cluster_names_its_line(tmp_path):
    gold = write(tmp_path / "gold.csv", "id,label,doc\na,x,d1\nb,y,\nc,x,d2\n")
    run = write(tmp_path / "r.csv", "id,label\na,x\nb,x\nc,y\n")
    with pytest.raises(InputError) as err:
        read_runs(gold, [run], cluster_col="doc")
    assert "line 3" in str(err.value) and "empty cluster" in str(err.value) and str(gold) in str(err.value)


def test_cluster_spanning_folds_is_an_error(tmp_path):
    gold = write(tmp_path / "gold.tsv", "id\tlabel\tdoc\tfold\na\tx\td1\tf1\nb\ty\td1\tf1\nc\tx\td2\tf2\nd\ty\td1\tf2\n")
    run = write(tmp_path / "r.tsv", "id\tlabel\na\tx\nb\tx\nc\ty\nd\ty\n")
    with pytest.raises(InputError) as err:
        read_runs(gold, [run], cluster_col="doc")
    text = str(err.value)
    assert "line 5" in text and "'d1' spans folds 'f1' (first at line 2) and 'f2'" in text


def test_cli_bad_cluster_column_one_line_exit_2_nothing_written(files):
    folder, gold, run = files
    out = folder / "out"
    err = io.StringIO()
    with redirect_stderr(err), redirect_stdout(io.StringIO()):
        code = main(["compare", str(gold), str(run), "--cluster-col", "dok", "--out", str(out), "--quiet"])
    assert code == 2 and not out.exists()
    lines = [line for line in err.getvalue().splitlines() if line.strip()]
    assert len(lines) == 1 and str(gold) in lines[0] and "line 1" in lines[0] and "'dok'" in lines[0]


# ----------------------------------------------------------------------------- draws


def test_cluster_draws_are_sums_of_whole_clusters_within_folds():
    runs = clustered_runs(folds=True)
    design = ConfusionDesign(runs)
    plan = design.clusters
    W = draw_cluster_weights(plan, np.random.default_rng(3), 50)
    M = plan.matrix.toarray()                                   # (C, P)
    for w in W:
        # w = d @ M for non-negative integer cluster counts d: solve and check
        d, *_ = np.linalg.lstsq(M.T, w, rcond=None)
        assert np.allclose(d, np.rint(d)) and (np.rint(d) >= 0).all()
        d = np.rint(d)
        for f in range(2):                                      # every fold keeps its number of clusters
            assert d[plan.fold == f].sum() == (plan.fold == f).sum()
    # the pattern counts of a cluster resample give the confusion tensors of the repeated items
    d = np.zeros(plan.n_clusters)
    d[[0, 0, 3]] = 1
    d[0] = 2
    items = np.concatenate([np.flatnonzero(runs.clusters == 0)] * 2 + [np.flatnonzero(runs.clusters == 3)])
    T = resampled_confusions(design.pat, (d @ M)[None])[0]
    for s in range(runs.n_systems):
        expected = np.zeros((3, 3))
        np.add.at(expected, (runs.gold[items], runs.pred[s, items]), 1)
        assert np.array_equal(T[s], expected)


def test_without_clusters_the_item_draws_are_unchanged():
    # the design without clusters draws exactly the item resamples of draw_plan/draw_weights, seed for seed
    runs = plain(clustered_runs(folds=True))
    design = ConfusionDesign(runs)
    assert design.clusters is None and design.cluster_right() is None and design.swap_unit == "discordant item"
    got = design.resample([ACC], 40, np.random.default_rng(9))[:, :, 0]
    rng = np.random.default_rng(9)
    W = draw_weights(design.pat, rng, 40, draw_plan(design.pat))
    expected = compute(ACC, resampled_confusions(design.pat, W), explain=False).value
    assert np.array_equal(got, expected)
    # and a bootstrap of the same runs read with clusters differs (whole clusters are drawn)
    other = bootstrap(clustered_runs(folds=True), ["accuracy"], n_resamples=40, seed=9).samples[:, :, 0]
    assert not np.array_equal(other, bootstrap(runs, ["accuracy"], n_resamples=40, seed=9).samples[:, :, 0])


def test_singleton_clusters_resample_like_items():
    runs = clustered_runs(docs=300, per_doc=1, systems=2)
    with_clusters = ConfusionDesign(runs).resample([ACC], 2000, np.random.default_rng(1))[:, :, 0]
    items = ConfusionDesign(plain(runs)).resample([ACC], 2000, np.random.default_rng(2))[:, :, 0]
    assert np.allclose(with_clusters.std(axis=0), items.std(axis=0), rtol=0.1)


def test_gold_strata_with_clusters_refused():
    with pytest.raises(InputError, match="bootstrap-strata gold cannot be combined with --cluster-col"):
        ConfusionDesign(clustered_runs(), strata="gold")


# ----------------------------------------------------------------------------- tests


def test_cluster_swaps_move_whole_clusters():
    # two clusters: every round's difference is one of the four swaps (none, either, both)
    gold = np.array([0, 0, 1, 1, 1])
    pred = np.array([[0, 0, 1, 0, 1], [1, 0, 0, 1, 1]])
    runs = Runs(gold=gold, pred=pred, labels=("a", "b"), systems=("x", "y"), clusters=np.array([0, 0, 1, 1, 1]),
                cluster_names=("c1", "c2"))
    design = ConfusionDesign(runs)
    d = design.swap_differences(ACC, np.array([0]), np.array([1]), 400, np.random.default_rng(0))[:, 0]
    # by hand: x is right on items 0, 1, 2, 4 and y on 1, 3, 4 (difference +1/5). Swapping c1 (items 0, 1;
    # x right on both, y on one) gives x 3, y 4: -1/5; swapping c2 (items 2-4; each right on two) keeps
    # +1/5; swapping both gives x y's items: -1/5
    assert set(np.round(d, 12)) == {0.2, -0.2}
    assert 0.35 < (d < 0).mean() < 0.65
    assert design.swap_unit == "cluster"


def test_clustered_mcnemar_by_hand():
    # clusters with (b_k, c_k) = (2, 0), (1, 1), (0, 1), (3, 1): d = 2, 0, -1, 2; (sum d)^2 / sum d^2 = 9 / 9 = 1
    # (Durkalski et al. 2003, eq. 3); built as per-cluster right counts of two systems on clusters of 4
    right = np.array([[2, 1, 0, 3], [0, 1, 1, 1]])
    stat, p = clustered_mcnemar(right, np.array([0]), np.array([1]))
    assert stat[0] == pytest.approx(1.0) and p[0] == pytest.approx(stats.chi2.sf(1.0, 1))
    same, p_same = clustered_mcnemar(np.array([[1, 2], [1, 2]]), np.array([0]), np.array([1]))
    assert same[0] == 0 and p_same[0] == 1


def test_clustered_mcnemar_with_singletons_is_mcnemar_without_correction():
    rng = np.random.default_rng(4)
    right = rng.integers(0, 2, size=(2, 200))
    b = int(((right[0] == 1) & (right[1] == 0)).sum())
    c = int(((right[0] == 0) & (right[1] == 1)).sum())
    stat, _ = clustered_mcnemar(right, np.array([0]), np.array([1]))
    assert stat[0] == pytest.approx((b - c) ** 2 / (b + c))


def test_compare_pairwise_uses_clustered_tests():
    c = compare(clustered_runs(), bootstrap=200, randomization=100, primary="accuracy")
    mc = c.pairwise[c.pairwise["test"] == "mcnemar"]
    assert mc["detail"].str.startswith("clustered McNemar (Durkalski et al. 2003), 12 clusters").all()
    rnd = c.pairwise[c.pairwise["test"] == "randomization"]
    assert rnd["detail"].str.contains("swap per cluster").all()


# ----------------------------------------------------------------------------- design effect


def test_design_table_and_sentence():
    runs = clustered_runs(docs=20, per_doc=6)
    c = compare(runs, bootstrap=300, primary="accuracy")
    table = c.design
    assert list(table["system"]) == list(runs.systems) and (table["measure"] == "accuracy").all()
    assert (table["n_clusters"] == 20).all() and (table["mean_cluster_size"] == 6).all()
    assert (table["n_resamples_item"] == 250).all() and (table["n_resamples_cluster"] == 300).all()
    assert np.allclose(table["design_effect"], (table["se_cluster"] / table["se_item"]) ** 2)
    # the cluster resamples are the intervals' resamples
    se = c.intervals[c.intervals["measure"] == "accuracy"].set_index("system")["se"]
    assert np.allclose(table.set_index("system")["se_cluster"], se[table["system"]])
    assert c.settings["cluster_col"] == "doc" and c.settings["n_clusters"] == 20
    text = design_sentence(table)
    assert "20 clusters of 6 items" in text and "Warning" in text and str(FEW_CLUSTERS) in text
    many = table.assign(n_clusters=60)
    assert "Warning" not in design_sentence(many)


def test_no_clusters_no_design_table_and_same_manifest():
    runs = plain(clustered_runs())
    c = compare(runs, bootstrap=50)
    assert "design" not in c.tables() and "cluster_col" not in c.settings


def test_settings_cluster_col_without_clusters_is_an_error():
    with pytest.raises(InputError, match="carry no clusters"):
        compare(plain(clustered_runs()), bootstrap=50, cluster_col="doc")


# ----------------------------------------------------------------------------- command line


def test_cli_compare_with_clusters_and_task_file(tmp_path):
    rng = np.random.default_rng(0)
    gold = rng.integers(0, 2, size=60)
    names = np.array(["no", "yes"])
    lines = ["id\tlabel\tdoc"] + [f"i{i}\t{names[g]}\tdoc{i // 4}" for i, g in enumerate(gold)]
    write(tmp_path / "gold.tsv", "\n".join(lines) + "\n")
    (tmp_path / "runs").mkdir()
    for s in ("p", "q"):
        pred = np.where(rng.random(60) < 0.7, gold, 1 - gold)
        write(tmp_path / "runs" / f"{s}.tsv", "id\tlabel\n" + "".join(f"i{i}\t{names[v]}\n" for i, v in enumerate(pred)))
    write(tmp_path / "task.toml", 'cluster_col = "doc"\nprimary = "accuracy"\n')
    out = tmp_path / "out"
    with redirect_stdout(io.StringIO()), redirect_stderr(io.StringIO()):
        code = main(["compare", str(tmp_path / "gold.tsv"), "--runs-dir", str(tmp_path / "runs"), "--task-file",
                     str(tmp_path / "task.toml"), "--bootstrap", "200", "--out", str(out), "--quiet"])
    assert code == 0
    design = pd.read_csv(out / "design.csv")
    assert (design["n_clusters"] == 15).all() and (design["cluster_col"] == "doc").all()
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["settings"]["cluster_col"] == "doc"
    assert any("over whole clusters" in n for n in manifest["notes"])


# ----------------------------------------------------------------------------- report and appendix


@pytest.fixture(scope="module")
def clustered_report(tmp_path_factory):
    from evalreport.report.build import analyse

    tables = tmp_path_factory.mktemp("clustered") / "tables"
    runs = clustered_runs(docs=20, per_doc=6)
    analyse(runs, tables, primary="accuracy", measures=["accuracy", "macro_f1"], bootstrap=100, seed=1, audit=False)
    return tables


def test_report_says_the_design_under_the_leaderboard(clustered_report):
    from evalreport.report.sections import open_report

    rep = open_report(clustered_report)
    note = rep.design_note()
    assert note is not None
    text = note.text
    assert "20 clusters of 6 items" in text and "Warning: with only 20 clusters" in text
    assert note.kind == "warning"


def test_appendix_methods_name_the_resampling_unit(clustered_report):
    from evalreport.report.appendix import AppendixData
    from evalreport.report.appendix.methods import cited_methods, methods_segments, render

    data = AppendixData(clustered_report)
    text = render(methods_segments(data), "markdown")
    assert "the resampling unit was the cluster" in text and "20 clusters of 6 items" in text
    assert "swapping the two systems' predictions on every cluster" in text
    assert "design effect of the primary measure" in text
    used = cited_methods(data)
    assert "cluster_bootstrap" in used and "clustered_mcnemar" in used and "mcnemar" not in used


def test_no_design_note_without_clusters(tmp_path):
    from evalreport.report.build import analyse
    from evalreport.report.sections import open_report

    analyse(plain(clustered_runs()), tmp_path, primary="accuracy", measures=["accuracy"], bootstrap=50, audit=False)
    assert open_report(tmp_path).design_note() is None


def test_benchmark_tasks_with_clusters(tmp_path):
    from evalreport.analyses.benchmark import compare_benchmark
    from evalreport.inputs.benchmark import read_benchmark

    rng = np.random.default_rng(1)
    names = np.array(["no", "yes"])
    for task in ("t1", "t2"):
        folder = tmp_path / task
        (folder / "runs").mkdir(parents=True)
        gold = rng.integers(0, 2, size=40)
        write(folder / "gold.tsv", "id\tlabel\tdoc\n" + "".join(f"i{i}\t{names[g]}\td{i // 5}\n" for i, g in enumerate(gold)))
        for s in ("p", "q"):
            pred = np.where(rng.random(40) < 0.7, gold, 1 - gold)
            write(folder / "runs" / f"{s}.tsv", "id\tlabel\n" + "".join(f"i{i}\t{names[v]}\n" for i, v in enumerate(pred)))
    bench = read_benchmark(tmp_path, defaults={"cluster_col": "doc", "primary": "accuracy"})
    assert all(t.runs.n_clusters == 8 for t in bench.tasks)
    result = compare_benchmark(bench, bootstrap=50)
    assert all((c.design["n_clusters"] == 8).all() for c in result.comparisons.values())
    assert any("draw whole clusters" in n for n in result.notes)


def test_label_sets_with_clusters_refused():
    from evalreport.inputs.multilabel import MultiLabelRuns

    rng = np.random.default_rng(0)
    gold = rng.random((20, 3)) < 0.4
    runs = MultiLabelRuns(gold, np.stack([gold, ~gold]), ("l0", "l1", "l2"), ("a", "b"), [f"i{k}" for k in range(20)])
    with pytest.raises(InputError, match="label sets .* cannot be resampled by clusters"):
        compare(runs, bootstrap=20, cluster_col="doc")


def test_design_sentence_escapes_the_column_name():
    from evalreport.escape import markdown

    runs = clustered_runs(docs=40, per_doc=2)
    table = compare(runs, bootstrap=50, primary="accuracy").design.assign(cluster_col="*doc* <b>")
    text = design_sentence(table, quote=markdown)
    assert "*doc* <b>" not in text and markdown("*doc* <b>") in text


def test_codabench_scorer_resamples_clusters(tmp_path):
    rng = np.random.default_rng(3)
    ref, res = tmp_path / "input" / "ref", tmp_path / "input" / "res"
    ref.mkdir(parents=True)
    res.mkdir()
    docs = np.repeat(np.arange(30), 8)
    gold = rng.integers(0, 2, size=docs.size)
    right = rng.random(docs.size) < np.repeat(rng.uniform(0.3, 1.0, size=30), 8)      # skill varies by document
    pred = np.where(right, gold, 1 - gold)
    pd.DataFrame({"id": range(docs.size), "label": gold, "doc": docs}).to_csv(ref / "gold.tsv", sep="\t", index=False)
    pd.DataFrame({"id": range(docs.size), "label": pred}).to_csv(res / "pred.tsv", sep="\t", index=False)
    task = write(tmp_path / "task.toml", 'primary = "accuracy"\nbootstrap = 300\n')
    widths = {}
    for name, extra in (("items", ""), ("clusters", 'cluster_col = "doc"\n')):
        task.write_text('primary = "accuracy"\nbootstrap = 300\n' + extra, encoding="utf-8")
        err = io.StringIO()
        with redirect_stderr(err), redirect_stdout(io.StringIO()):
            assert main(["codabench", str(tmp_path / "input"), str(tmp_path / name), "--task-file", str(task)]) == 0
        scores = json.loads((tmp_path / name / "scores.json").read_text())
        widths[name] = scores["accuracy_hi"] - scores["accuracy_lo"]
        assert ("resample whole clusters (30 clusters" in err.getvalue()) == (name == "clusters")
    assert widths["clusters"] > 1.2 * widths["items"]
    task.write_text('primary = "accuracy"\ncluster_col = "document"\n', encoding="utf-8")
    with redirect_stderr(io.StringIO()), redirect_stdout(io.StringIO()):
        assert main(["codabench", str(tmp_path / "input"), str(tmp_path / "bad"), "--task-file", str(task)]) == 3


def test_codabench_scorer_resamples_clusters_for_score_based_measures_too(tmp_path):
    """A ROC AUC's interval in scores.json resamples whole documents as the labels' does (Field & Welsh 2007):
    wider than the item bootstrap's when a document's items share its difficulty, and exactly the one engine's
    clustered ScoreDesign (same seed, same resamples)."""
    rng = np.random.default_rng(5)
    ref, res = tmp_path / "input" / "ref", tmp_path / "input" / "res"
    ref.mkdir(parents=True)
    res.mkdir()
    docs = np.repeat(np.arange(40), 10)
    gold = rng.integers(0, 2, size=docs.size)
    sep = np.repeat(rng.uniform(-1.0, 4.0, size=40), 10)     # how well the scores separate varies by document
    score = 1 / (1 + np.exp(-(sep * (gold - 0.5) + rng.normal(0, 0.7, docs.size))))
    pd.DataFrame({"id": range(docs.size), "label": gold, "doc": docs}).to_csv(ref / "gold.tsv", sep="\t", index=False)
    pd.DataFrame({"id": range(docs.size), "label": (score > 0.5).astype(int), "score": score}).to_csv(
        res / "pred.tsv", sep="\t", index=False)
    widths = {}
    for name, extra in (("items", ""), ("clusters", 'cluster_col = "doc"\n')):
        task = write(tmp_path / f"task_{name}.toml",
                     'primary = "roc_auc"\nmeasures = ["accuracy"]\npositive = "1"\nbootstrap = 400\nseed = 3\n' + extra)
        err = io.StringIO()
        with redirect_stderr(err), redirect_stdout(io.StringIO()):
            assert main(["codabench", str(tmp_path / "input"), str(tmp_path / name), "--task-file", str(task)]) == 0, \
                err.getvalue()
        scores = json.loads((tmp_path / name / "scores.json").read_text())
        widths[name] = scores["roc_auc_hi"] - scores["roc_auc_lo"]
        assert "score-based measures resample items" not in err.getvalue()
    assert widths["clusters"] > 1.3 * widths["items"]
    # the same numbers as the engine's clustered design of these runs
    from evalreport.analyses.score_clusters import item_clusters
    from evalreport.analyses.score_design import ScoreDesign
    from evalreport.counts.scores import score_counts
    from evalreport.inputs.readers import read_runs
    from evalreport.measures import get

    runs = read_runs(ref / "gold.tsv", [res / "pred.tsv"], cluster_col="doc")
    design = ScoreDesign(score_counts(runs, positive=1), clusters=item_clusters(runs))
    samples = design.resample([get("roc_auc")], 400, design.streams(3)[0])[:, 0, 0]
    lo, hi = np.nanquantile(samples, [0.025, 0.975])
    scores = json.loads((tmp_path / "clusters" / "scores.json").read_text())
    assert (scores["roc_auc_lo"], scores["roc_auc_hi"]) == pytest.approx((lo, hi), abs=1e-12)
