"""Clustered items with several runs per system: the two-level bootstrap over runs, then whole clusters
(SeedsDesign around the clustered ConfusionDesign; Owen 2007's two-factor bootstrap with clusters, Field &
Welsh 2007, in the place of items). It reduces to the clustered design with one run per system (digit for
digit) and to the runs-then-items design with clusters of one item (in distribution); tests it cannot run
are refused in one line; the seed tables and the design effect keep working."""
import dataclasses

import numpy as np
import pandas as pd
import pytest
from conftest import raises
from scipy import sparse

from evalreport import Settings
from evalreport.analyses.clusters import ClusterPlan
from evalreport.analyses.compare import compare
from evalreport.analyses.designs import choose_design
from evalreport.analyses.resampling import ConfusionDesign
from evalreport.analyses.seed_clusters import system_design_effect
from evalreport.analyses.seeds import SeedsDesign
from evalreport.inputs.runs import Runs
from evalreport.measures import get

ACC = get("accuracy")
LABELS = ("a", "b", "c")


def _runs(runs_per_system: dict[str, int], *, docs: int = 30, per_doc: int = 6, seed: int = 0,
          clusters: bool = True, singletons: bool = False) -> Runs:
    """Three-class runs; each system's skill varies by document (items of a document correlated)."""
    rng = np.random.default_rng(seed)
    n = docs * per_doc
    gold = rng.integers(0, 3, n)
    preds, systems, run_system = [], [], []
    for s, (system, k) in enumerate(runs_per_system.items()):
        doc_skill = np.repeat(rng.normal(0.6 + 0.05 * s, 0.25, docs), per_doc)
        for r in range(k):
            right = rng.random(n) < np.clip(doc_skill + rng.normal(0, 0.03), 0, 1)
            preds.append(np.where(right, gold, rng.integers(0, 3, n)))
            systems.append(system if k == 1 else f"{system}/seed{r + 1}")
            run_system.append(system)
    codes = np.arange(n) if singletons else np.repeat(np.arange(docs), per_doc)
    kw = dict(clusters=codes, cluster_names=tuple(f"d{i}" for i in range(codes.max() + 1)),
              cluster_col="doc") if clusters else {}
    return Runs(gold=gold, pred=np.stack(preds), labels=LABELS, systems=tuple(systems), run_system=tuple(run_system),
                **kw)


def _without_run_systems(runs: Runs) -> Runs:
    return dataclasses.replace(runs, run_system=None)


def test_the_refusal_is_gone_and_the_design_is_named():
    runs = _runs({"x": 3, "y": 2})
    choice = choose_design(runs, Settings(cluster_col="doc"))
    assert choice.clustered and choice.run_system == ("x",) * 3 + ("y",) * 2
    assert choice.name == "clustered items, several runs per system"
    _, used = choice.build(positive=None, policy="nan", costs=None, strata=None)
    assert isinstance(used, SeedsDesign) and used.inner.clusters is not None and used.tests == ("bootstrap",)


def test_one_run_per_system_is_the_clustered_design_digit_for_digit():
    runs = _runs({"x": 1, "y": 1, "z": 1})
    assert runs.run_system == ("x", "y", "z")
    settings = Settings(bootstrap=200, seed=3, primary="accuracy", cluster_col="doc")
    seeds, clustered = compare(runs, settings), compare(_without_run_systems(runs), settings)
    for name in ("intervals", "rank_distribution", "pairwise", "groups", "leaderboard"):
        pd.testing.assert_frame_equal(getattr(seeds, name).reset_index(drop=True),
                                      getattr(clustered, name).reset_index(drop=True), check_exact=True, obj=name)
    pd.testing.assert_frame_equal(seeds.extra["design"], clustered.extra["design"], check_exact=True)
    # every test of the clustered design, McNemar's as Durkalski et al. (2003)'s clustered test
    assert set(seeds.pairwise["test"]) == {"bootstrap", "randomization", "mcnemar"}
    mc = seeds.pairwise[seeds.pairwise["test"] == "mcnemar"]["detail"]
    assert mc.str.startswith("clustered McNemar (Durkalski et al. 2003), 30 clusters").all()
    rand = seeds.pairwise[seeds.pairwise["test"] == "randomization"]["detail"]
    assert rand.str.contains("swap per cluster").all()
    assert "runs" in seeds.extra and "seed_spread" in seeds.extra


def test_clusters_of_one_item_give_the_runs_then_items_design_in_distribution():
    """Clusters of one item drawn within the one fold are items drawn with replacement: the two designs
    draw with different calls, so they agree within Monte-Carlo error (4,000 resamples each: the relative
    error of a standard deviation is about 1.1 %, of a difference of two about 1.6 %)."""
    singles = _runs({"x": 3, "y": 4}, singletons=True, seed=5)
    items = _runs({"x": 3, "y": 4}, clusters=False, seed=5)
    B = 4000
    out = []
    for runs in (singles, items):
        design = SeedsDesign(ConfusionDesign(runs), runs.run_system)
        point = design.point([ACC])
        samples = design.resample([ACC], B, np.random.default_rng(9))[:, :, 0]
        out.append((point, samples))
    (p1, s1), (p2, s2) = out
    np.testing.assert_array_equal(p1, p2)
    np.testing.assert_allclose(s1.std(axis=0, ddof=1), s2.std(axis=0, ddof=1), rtol=0.05)
    d1, d2 = s1[:, 0] - s1[:, 1], s2[:, 0] - s2[:, 1]
    assert d1.std(ddof=1) == pytest.approx(d2.std(ddof=1), rel=0.05)
    assert d1.mean() == pytest.approx(d2.mean(), abs=3 * d2.std() / np.sqrt(B) * np.sqrt(2))


def test_every_run_of_every_system_sees_the_same_clusters():
    """Runs that are copies of one prediction: their values agree in every resample only if every run is
    measured on the same drawn clusters (paired)."""
    base = _runs({"x": 1}, seed=2)
    pred = np.repeat(base.pred, 5, axis=0)
    runs = Runs(gold=base.gold, pred=pred, labels=LABELS, systems=("x/1", "x/2", "y/1", "y/2", "y/3"),
                run_system=("x", "x", "y", "y", "y"), clusters=base.clusters, cluster_names=base.cluster_names,
                cluster_col="doc")
    design = SeedsDesign(ConfusionDesign(runs), runs.run_system)
    samples = design.resample([ACC], 300, np.random.default_rng(1))
    run = design.run_samples[:, :, 0]
    assert np.ptp(run, axis=1).max() == 0 and np.ptp(run, axis=0).max() > 0       # clusters drawn, the same
    np.testing.assert_allclose(samples[:, 0, 0], samples[:, 1, 0], rtol=1e-12)


def test_runs_are_drawn_on_top_of_the_clusters():
    """The two-level standard error of a system's mean exceeds the cluster bootstrap's of that mean with
    its runs held fixed, when the runs differ (seed variance)."""
    runs = _runs({"x": 4, "y": 4}, seed=8)
    design = SeedsDesign(ConfusionDesign(runs), runs.run_system)
    two_level = design.resample([ACC], 2000, np.random.default_rng(4))[:, 0, 0]
    fixed_runs = design.run_samples[:, :4, 0].mean(axis=1)
    assert two_level.std() > 1.05 * fixed_runs.std()


@pytest.mark.parametrize("change, words", [({"pairwise_test": "randomization"}, "pairwise_test = 'randomization'"),
                                           ({"randomization": 500}, "randomization = 500")])
def test_tests_that_compare_one_prediction_per_item_are_refused(change, words):
    runs = _runs({"x": 2, "y": 2})
    with raises(words) as info:
        compare(runs, Settings(bootstrap=50, cluster_col="doc", **change))
    assert "only the paired bootstrap test is valid" in str(info.value) and "\n" not in str(info.value)
    # one run per system: the clustered design's randomisation test is valid and runs
    one = compare(_runs({"x": 1, "y": 1}), Settings(bootstrap=50, cluster_col="doc", **change))
    assert "randomization" in set(one.pairwise["test"])


def test_one_cluster_is_still_refused_with_several_runs():
    runs = _runs({"x": 2, "y": 2}, docs=1, per_doc=40)
    with raises("the items fall in 1 cluster"):
        compare(runs, Settings(bootstrap=50, cluster_col="doc"))


def test_comparison_tables_with_runs_and_clusters():
    runs = _runs({"x": 3, "y": 2, "z": 4}, seed=4)
    c = compare(runs, Settings(bootstrap=300, seed=1, primary="accuracy", cluster_col="doc"))
    assert list(c.leaderboard["system"]) and set(c.leaderboard["system"]) == {"x", "y", "z"}
    assert set(c.pairwise["test"]) == {"bootstrap"} and len(c.pairwise) == 3
    assert c.settings["runs_per_system"] == {"x": 3, "y": 2, "z": 4}
    assert c.settings["cluster_col"] == "doc" and c.settings["n_clusters"] == 30
    assert c.notes[0].startswith("clustered items, several runs per system: two-level bootstrap")
    spread = c.extra["seed_spread"].set_index(["system", "measure"])
    assert (spread["item_se"] > 0).all() and (spread["n_runs"].loc[["x", "y", "z"], "accuracy"] == [3, 2, 4]).all()
    design = c.extra["design"].set_index("system")
    assert list(design.index) == ["x", "y", "z"] and set(design["measure"]) == {"accuracy"}
    assert (design["design_effect"] > 1).all()           # the documents' correlation widens one run's interval
    # item_se is the cluster-bootstrap standard error of one run: the design effect's numerator
    for system in ("x", "y", "z"):
        assert design.loc[system, "se_cluster"] == pytest.approx(spread.loc[(system, "accuracy"), "item_se"], rel=1e-9)
    assert {"runs", "aso"} <= set(c.extra)


def test_system_design_effect_averages_the_runs_variances():
    rng = np.random.default_rng(0)
    cluster = rng.normal(0, [1.0, 2.0, 3.0], size=(5000, 3))
    item = rng.normal(0, [0.5, 1.0, 1.0], size=(5000, 3))
    plan = ClusterPlan(matrix=sparse.csr_array(np.eye(4)), fold=np.zeros(4, dtype=np.int64),
                       sizes=np.ones(4, dtype=np.int64), names=("a", "b", "c", "d"), n_folds=1)
    table = system_design_effect(cluster, item, ["s/1", "s/2", "t/1"], ["s", "s", "t"], "accuracy", plan, "doc")
    assert list(table["system"]) == ["s", "t"]
    sd_c, sd_i = cluster.std(axis=0, ddof=1), item.std(axis=0, ddof=1)
    assert table.loc[0, "se_cluster"] == pytest.approx(np.sqrt((sd_c[0] ** 2 + sd_c[1] ** 2) / 2))
    assert table.loc[0, "se_item"] == pytest.approx(np.sqrt((sd_i[0] ** 2 + sd_i[1] ** 2) / 2))
    assert table.loc[1, "design_effect"] == pytest.approx((sd_c[2] / sd_i[2]) ** 2)
    assert table.loc[0, "cluster_col"] == "doc" and table.loc[0, "n_clusters"] == 4


def _scored(runs_per_system: dict[str, int], seed: int = 0) -> Runs:
    """Binary runs with a ``score`` column whose separation of the classes varies by document and seed."""
    rng = np.random.default_rng(seed)
    docs, per_doc = 30, 6
    n = docs * per_doc
    gold = (rng.random(n) < 0.4).astype(np.int64)
    rows, names, owner = [], [], []
    for k, (system, count) in enumerate(runs_per_system.items()):
        doc = np.repeat(rng.normal(1.0 + 0.2 * k, 0.6, docs), per_doc)
        for r in range(count):
            z = (doc + 0.2 * rng.standard_normal()) * (2 * gold - 1) + rng.standard_normal(n)
            rows.append(1.0 / (1.0 + np.exp(-z)))
            names.append(system if count == 1 else f"{system}/seed{r + 1}")
            owner.append(system)
    scores = np.stack(rows)
    return Runs(gold=gold, pred=(scores > 0.5).astype(np.int64), labels=("neg", "pos"), systems=tuple(names),
                scores=scores, run_system=tuple(owner), clusters=np.repeat(np.arange(docs), per_doc),
                cluster_names=tuple(f"d{i}" for i in range(docs)), cluster_col="doc")


def test_a_score_primary_with_one_run_each_is_the_clustered_design_digit_for_digit():
    runs = _scored({"a": 1, "b": 1, "c": 1})
    settings = Settings(bootstrap=150, seed=2, primary="roc_auc", positive="pos", cluster_col="doc")
    seeds, clustered = compare(runs, settings), compare(_without_run_systems(runs), settings)
    for name in ("intervals", "pairwise", "groups", "leaderboard"):
        pd.testing.assert_frame_equal(getattr(seeds, name).reset_index(drop=True),
                                      getattr(clustered, name).reset_index(drop=True), check_exact=True, obj=name)
    pd.testing.assert_frame_equal(seeds.extra["design"], clustered.extra["design"], check_exact=True)


def test_a_score_primary_with_several_runs_resamples_runs_then_clusters():
    runs = _scored({"a": 3, "b": 4}, seed=1)
    c = compare(runs, Settings(bootstrap=200, seed=2, primary="roc_auc", positive="pos", cluster_col="doc"))
    assert c.primary == "roc_auc" and set(c.pairwise["test"]) == {"bootstrap"}
    design = c.extra["design"].set_index("system")
    assert list(design.index) == ["a", "b"] and set(design["measure"]) == {"roc_auc"}
    spread = c.extra["seed_spread"].set_index(["system", "measure"])
    for system in ("a", "b"):        # one run's cluster-bootstrap standard error, as item_se
        assert design.loc[system, "se_cluster"] == pytest.approx(spread.loc[(system, "roc_auc"), "item_se"], rel=1e-9)
    assert any("then whole clusters" in n and "score-based measures" in n for n in c.notes)
