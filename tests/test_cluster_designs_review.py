"""Edge cases of the clustered and several-runs designs found in review: a clustering that leaves nothing to
resample (one cluster, or one cluster in a fold), the score-based design effect's item reference (within
folds, as the cluster draws and the confusion measures' reference), and the curves of a system whose first
run has no scores."""
import dataclasses
import io
from contextlib import redirect_stderr, redirect_stdout

import numpy as np
import pytest
from test_scores_clusters import seeded_runs, simulated_runs

from evalreport import Settings, compare
from evalreport.analyses.score_compare import first_runs
from evalreport.cli import main
from evalreport.counts.scores import score_counts
from evalreport.errors import InputError
from evalreport.inputs.runs import Runs


def _one_cluster(runs: Runs) -> Runs:
    return dataclasses.replace(runs, clusters=np.zeros(runs.gold.shape[0], dtype=np.int64), cluster_names=("only",))


@pytest.mark.parametrize("primary", ["accuracy", "roc_auc"])
def test_one_cluster_is_refused_before_resampling(primary):
    # one cluster drawn with replacement is the whole test set every time: intervals of no width and a
    # paired bootstrap p-value at its floor for every pair (every system "significantly" apart)
    runs = _one_cluster(simulated_runs(np.random.default_rng(1), n_systems=3))
    with pytest.raises(InputError, match=r"--cluster-col doc: the items fall in 1 cluster \('only'\)"):
        compare(runs, Settings(primary=primary, bootstrap=50, cluster_col="doc", positive="pos"))
    # without resampling the point values stand
    cmp = compare(runs, Settings(primary=primary, bootstrap=0, cluster_col="doc", positive="pos"))
    assert len(cmp.leaderboard) == 3


def test_a_fold_with_one_cluster_is_refused():
    # clusters are drawn within folds: a fold of one cluster is the same in every resample
    runs = simulated_runs(np.random.default_rng(2), n_systems=2, folds=True)
    folds = np.where(np.asarray(runs.clusters) == 0, 1, 0)          # fold f1 holds cluster d0 alone
    runs = dataclasses.replace(runs, folds=folds)
    with pytest.raises(InputError, match=r"fold 'f1' holds 1 cluster \('d0'\)"):
        compare(runs, Settings(primary="roc_auc", bootstrap=50, cluster_col="doc", positive="pos"))


def test_cli_one_cluster_is_one_line_exit_2(tmp_path):
    gold = tmp_path / "gold.tsv"
    gold.write_text("id\tlabel\tdoc\n" + "".join(f"i{i}\t{'xy'[i % 2]}\tD\n" for i in range(20)), encoding="utf-8")
    runs = tmp_path / "runs"
    runs.mkdir()
    for name in ("a", "b"):
        (runs / f"{name}.tsv").write_text("id\tlabel\n" + "".join(f"i{i}\t{'xy'[(i // 3) % 2]}\n" for i in range(20)),
                                         encoding="utf-8")
    err = io.StringIO()
    with redirect_stdout(io.StringIO()), redirect_stderr(err):
        rc = main(["compare", str(gold), "--runs-dir", str(runs), "--cluster-col", "doc", "--bootstrap", "50",
                   "--out", str(tmp_path / "out")])
    assert rc == 2 and len(err.getvalue().strip().splitlines()) == 1, err.getvalue()
    assert "the items fall in 1 cluster ('D')" in err.getvalue()
    assert not (tmp_path / "out").exists()


def test_score_design_effect_item_reference_resamples_within_folds():
    # every item its own cluster, two folds whose Brier scores differ (0 in one, 0.25 in the other) and are
    # constant inside each: a resample within folds always gives the same Brier score, so both the cluster
    # bootstrap and its item reference (the design effect's denominator) have no spread. An item bootstrap
    # across folds would move items between folds and give the reference a spread of about 0.005.
    n = 200
    gold = np.tile([0, 1], n // 2)
    folds = (np.arange(n) >= n // 2).astype(np.int64)
    score = np.where(folds == 0, gold.astype(float), 0.5)
    runs = Runs(gold=gold, pred=np.stack([gold, gold]), labels=("neg", "pos"), systems=("a", "b"),
                scores=np.stack([score, score]), folds=folds, fold_names=("f0", "f1"),
                clusters=np.arange(n), cluster_names=tuple(f"c{i}" for i in range(n)), cluster_col="item")
    cmp = compare(runs, Settings(primary="brier", bootstrap=60, cluster_col="item", positive="pos"))
    design = cmp.extra["design"]
    assert set(design["measure"]) == {"brier"}
    assert np.allclose(design["se_cluster"], 0.0, atol=1e-12)
    assert np.allclose(design["se_item"], 0.0, atol=1e-12), design[["se_cluster", "se_item"]]


def test_curves_of_a_system_come_from_its_first_run_with_scores():
    runs = seeded_runs(np.random.default_rng(3), {"a": 2, "b": 2})
    scores = np.asarray(runs.scores, dtype=float).copy()
    scores[2] = np.nan                                                # b/seed1 carries no scores
    runs = dataclasses.replace(runs, scores=scores)
    sc = first_runs(score_counts(runs, positive=1), runs.run_system)
    assert sc.systems == ("a", "b") and bool(np.asarray(sc.has).all())
    np.testing.assert_array_equal(sc.scores[1], score_counts(runs, positive=1).scores[3])


def test_item_reference_without_folds_is_the_item_bootstrap_draw_for_draw():
    from evalreport.analyses.score_clusters import item_clusters
    from evalreport.analyses.score_design import ScoreDesign
    from evalreport.measures import get

    runs = simulated_runs(np.random.default_rng(4), n_systems=2)
    sc = score_counts(runs, positive=1)
    auc = get("roc_auc")
    within = ScoreDesign(sc, clusters=item_clusters(runs).items()).resample([auc], 30, np.random.default_rng(5))
    plain = ScoreDesign(sc).resample([auc], 30, np.random.default_rng(5))
    np.testing.assert_allclose(within, plain, rtol=0, atol=1e-12)


@pytest.mark.parametrize("primary", ["accuracy", "roc_auc"])
def test_a_slice_of_one_cluster_is_small_not_separated(primary):
    # a slice whose items are one document: the cluster bootstrap within it draws that document every time,
    # so it would report intervals of no width and "separate" the leader from everyone on 10 items
    runs = simulated_runs(np.random.default_rng(1), n_systems=3)
    domain = np.where(np.asarray(runs.clusters) == 0, "lonely", "rest").astype(object)
    runs = dataclasses.replace(runs, slices={"domain": domain}, slice_names={"domain": ("lonely", "rest")})
    cmp = compare(runs, Settings(primary=primary, bootstrap=100, cluster_col="doc", positive="pos",
                                 slice_cols=("domain",)))
    table = cmp.extra["slices"]
    lonely = table[(table["slice"] == "lonely") & (table["measure"] == primary)]
    rest = table[(table["slice"] == "rest") & (table["measure"] == primary)]
    assert lonely["small"].all() and lonely["lo"].isna().all() and lonely["value"].notna().all()
    assert not rest["small"].any() and (rest["hi"] > rest["lo"]).all()
    leaders = cmp.extra["slice_leaders"].set_index("slice")
    assert leaders.at["lonely", "separated"] == ""
    assert any("one cluster (in a fold)" in n for n in cmp.notes)


def test_codabench_reference_of_one_cluster_is_the_organisers_error(tmp_path):
    ref, res = tmp_path / "input" / "ref", tmp_path / "input" / "res"
    ref.mkdir(parents=True)
    res.mkdir()
    (ref / "gold.tsv").write_text("id\tlabel\tdoc\n" + "".join(f"{i}\t{i % 2}\tD\n" for i in range(40)), encoding="utf-8")
    (res / "pred.tsv").write_text("id\tlabel\n" + "".join(f"{i}\t{(i // 3) % 2}\n" for i in range(40)), encoding="utf-8")
    task = tmp_path / "task.toml"
    task.write_text('primary = "accuracy"\nbootstrap = 100\ncluster_col = "doc"\n', encoding="utf-8")
    err = io.StringIO()
    with redirect_stderr(err), redirect_stdout(io.StringIO()):
        rc = main(["codabench", str(tmp_path / "input"), str(tmp_path / "out"), "--task-file", str(task)])
    assert rc == 3 and len(err.getvalue().strip().splitlines()) == 1, err.getvalue()
    assert "the items fall in 1 cluster ('D')" in err.getvalue()
    assert not (tmp_path / "out" / "scores.json").exists()
    task.write_text('primary = "accuracy"\nbootstrap = 0\ncluster_col = "doc"\n', encoding="utf-8")
    with redirect_stderr(io.StringIO()), redirect_stdout(io.StringIO()):
        assert main(["codabench", str(tmp_path / "input"), str(tmp_path / "out0"), "--task-file", str(task)]) == 0
