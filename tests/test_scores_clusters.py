"""Score-based measures on clustered items and with several runs per system (ScoreDesign with clusters,
SeedsDesign around it), checked against scikit-learn and by seeded simulation.

The simulated test sets: 60 documents x 10 items, binary gold labels; each system's separation of the
classes varies by document (a shared document effect plus the system's own, on the logit scale), so the
items of a document are correlated and the AUC difference of two exchangeable systems has a document-level
variance that an item bootstrap misses. The cluster bootstrap (Field & Welsh 2007; Davison & Hinkley 1997,
section 3.8) resamples whole documents; its tests and intervals are checked for their error rates.
"""
import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

from evalreport.analyses.designs import choose_design
from evalreport.analyses.engine import pairwise_tests, resampled
from evalreport.analyses.score_clusters import item_clusters
from evalreport.analyses.score_design import ScoreDesign
from evalreport.analyses.seeds import SeedsDesign
from evalreport.counts.scores import score_counts
from evalreport.inputs.runs import Runs
from evalreport.inputs.settings import Settings
from evalreport.measures import get

DOCS, PER_DOC = 60, 10
AUC = get("roc_auc")
BRIER = get("brier")


def simulated_scores(rng: np.random.Generator, docs: int, per_doc: int, n_systems: int):
    """Gold (N,) and probabilities (S, N): logit = gold + (2 gold - 1)(0.8 shared_doc + own_doc) + N(0, 1)."""
    shared = rng.standard_normal(docs)
    own = rng.standard_normal((n_systems, docs))
    gold = (rng.random(docs * per_doc) < 0.4).astype(np.int64)
    effect = np.repeat(0.8 * shared[None] + own, per_doc, axis=1)
    z = gold + (2 * gold - 1) * effect + rng.standard_normal((n_systems, docs * per_doc))
    return gold, 1.0 / (1.0 + np.exp(-z))


def simulated_runs(rng: np.random.Generator, n_systems: int = 2, docs: int = DOCS, folds: bool = False) -> Runs:
    """One clustered test set of exchangeable systems (binary layout: one ``score`` column)."""
    gold, scores = simulated_scores(rng, docs, PER_DOC, n_systems)
    clusters = np.repeat(np.arange(docs), PER_DOC)
    fold = (clusters % 2) if folds else None
    return Runs(gold=gold, pred=(scores > 0.5).astype(np.int64), labels=("neg", "pos"),
                systems=tuple(f"s{i}" for i in range(n_systems)), scores=scores, clusters=clusters,
                cluster_names=tuple(f"d{i}" for i in range(docs)), cluster_col="doc",
                folds=fold, fold_names=("f0", "f1") if folds else ())


def population_auc() -> float:
    """The AUC of one system over the population of documents (50,000 documents: Monte Carlo +-0.002)."""
    gold, scores = simulated_scores(np.random.default_rng(5), 50_000, PER_DOC, 1)
    return float(roc_auc_score(gold, scores[0]))


def clustered_design(runs: Runs) -> ScoreDesign:
    return ScoreDesign(score_counts(runs, positive=1), clusters=item_clusters(runs))


# ----------------------------------------------------------------------------- exact properties


def test_point_values_are_the_item_level_ones():
    runs = simulated_runs(np.random.default_rng(1), n_systems=3)
    point = clustered_design(runs).point([AUC, BRIER])
    for s in range(3):
        assert point[s, 0] == pytest.approx(roc_auc_score(runs.gold, runs.scores[s]), abs=1e-12)
        assert point[s, 1] == pytest.approx(np.mean((runs.scores[s] - runs.gold) ** 2), abs=1e-12)
    np.testing.assert_array_equal(point, ScoreDesign(score_counts(runs, positive=1)).point([AUC, BRIER]))


def test_cluster_weights_are_whole_clusters_drawn_within_folds():
    runs = simulated_runs(np.random.default_rng(2), folds=True)
    clusters = item_clusters(runs)
    w = clusters.weights(np.random.default_rng(0), 50)                     # (50, N)
    codes = np.asarray(runs.clusters)
    for row in w:
        per_cluster = np.bincount(codes, weights=row) / PER_DOC          # each cluster's draw count
        np.testing.assert_array_equal(row, per_cluster[codes])            # every item weighs its cluster's count
        assert np.allclose(per_cluster, np.rint(per_cluster))
        for f in (0, 1):                                                   # each fold keeps its 30 clusters
            assert per_cluster[np.arange(DOCS) % 2 == f].sum() == DOCS // 2


def test_a_resample_is_the_measure_on_the_items_repeated_by_their_cluster_counts():
    # the weighted evaluation on the once-ranked scores equals scikit-learn on the resampled test set
    runs = simulated_runs(np.random.default_rng(3))
    design = clustered_design(runs)
    boot, _ = design.streams(9)
    samples = design.resample([AUC], 5, boot)
    again, _ = design.streams(9)
    weights = item_clusters(runs).weights(again, 5)
    for b in range(5):
        for s in range(2):
            want = roc_auc_score(runs.gold, runs.scores[s], sample_weight=weights[b])
            assert samples[b, s, 0] == pytest.approx(want, abs=1e-12)


def test_randomisation_swaps_whole_clusters():
    runs = simulated_runs(np.random.default_rng(4))
    clusters = item_clusters(runs)
    rng = np.random.default_rng(0)
    masks = np.stack([clusters.swap_mask(rng) for _ in range(400)])
    by_doc = masks.reshape(400, DOCS, PER_DOC)
    assert (by_doc == by_doc[:, :, :1]).all()                              # a cluster is swapped whole
    assert 0.45 < masks.mean() < 0.55
    design = clustered_design(runs)
    table = pairwise_tests(design, AUC, design.point([AUC])[:, 0], tests=("randomization",), rounds=20,
                           rng=np.random.default_rng(1))
    assert "swap per cluster" in table["detail"].iloc[0]


def test_clustered_mcnemar_counts_the_top_label_per_cluster():
    runs = simulated_runs(np.random.default_rng(6))
    design = clustered_design(runs)
    right = (runs.scores >= 0.5) == (runs.gold == 1)[None]
    np.testing.assert_array_equal(design.cluster_right(), right.reshape(2, DOCS, PER_DOC).sum(axis=-1))
    table = pairwise_tests(design, AUC, design.point([AUC])[:, 0], tests=("mcnemar",))
    assert table["detail"].iloc[0].startswith("clustered McNemar (Durkalski et al. 2003), 60 clusters")


def test_choose_design_builds_the_score_design_of_the_comparison():
    runs = simulated_runs(np.random.default_rng(7))
    choice = choose_design(runs, Settings(cluster_col="doc"))
    design = choice.build_scores(score_counts(runs, positive=1), policy="nan")
    assert isinstance(design, ScoreDesign) and design.clusters is not None and design.clusters.n_clusters == DOCS
    plain = Runs(gold=runs.gold, pred=runs.pred, labels=runs.labels, systems=runs.systems, scores=runs.scores)
    items = choose_design(plain, Settings()).build_scores(score_counts(plain, positive=1), policy="nan")
    assert items.clusters is None


# ----------------------------------------------------------------------------- several runs per system


def seeded_runs(rng: np.random.Generator, runs_per_system: dict[str, int]) -> Runs:
    """Runs of several systems, each run its own draw of scores on the same 200 items."""
    n = 200
    gold = (rng.random(n) < 0.4).astype(np.int64)
    rows, names, owner = [], [], []
    for k, (system, count) in enumerate(runs_per_system.items()):
        for r in range(count):
            z = (0.8 + 0.4 * k + 0.2 * rng.standard_normal()) * (2 * gold - 1) + rng.standard_normal(n)
            rows.append(1.0 / (1.0 + np.exp(-z)))
            names.append(f"{system}/seed{r + 1}")
            owner.append(system)
    scores = np.stack(rows)
    return Runs(gold=gold, pred=(scores > 0.5).astype(np.int64), labels=("neg", "pos"), systems=tuple(names),
                scores=scores, run_system=tuple(owner))


def test_seeds_point_is_the_mean_over_runs_of_the_item_level_auc():
    runs = seeded_runs(np.random.default_rng(8), {"a": 3, "b": 2})
    design = choose_design(runs, Settings()).build_scores(score_counts(runs, positive=1), policy="nan")
    assert isinstance(design, SeedsDesign) and design.systems == ("a", "b")
    point = design.point([AUC])
    per_run = [roc_auc_score(runs.gold, runs.scores[i]) for i in range(5)]
    assert point[0, 0] == pytest.approx(np.mean(per_run[:3]), abs=1e-12)
    assert point[1, 0] == pytest.approx(np.mean(per_run[3:]), abs=1e-12)


def test_seeds_with_one_run_each_give_the_item_design_digit_for_digit():
    runs = seeded_runs(np.random.default_rng(9), {"a": 1, "b": 1, "c": 1})
    sc = score_counts(runs, positive=1)
    seeds = SeedsDesign(ScoreDesign(sc), runs.run_system)
    plain = ScoreDesign(sc)
    kw = dict(bootstrap=200, seed=3, alpha=0.05, rounds=0, pairwise_test="bootstrap")
    got = resampled(seeds, [AUC], seeds.point([AUC]), order=["c", "b", "a"], **kw)
    want = resampled(plain, [AUC], plain.point([AUC]), order=["c/seed1", "b/seed1", "a/seed1"], **kw)
    np.testing.assert_array_equal(got.samples, want.samples)
    np.testing.assert_array_equal(got.pairwise["p_value"], want.pairwise["p_value"])


def test_two_level_bootstrap_adds_the_seed_spread():
    # runs that differ a lot from seed to seed: the two-level interval of the mean is wider than the item
    # bootstrap of the mean (runs held fixed), and its resamples average runs drawn with replacement
    runs = seeded_runs(np.random.default_rng(10), {"a": 4, "b": 4})
    sc = score_counts(runs, positive=1)
    seeds = SeedsDesign(ScoreDesign(sc), runs.run_system)
    seeds.point([AUC])
    boot, _ = seeds.streams(1)
    two_level = seeds.resample([AUC], 400, boot)[:, :, 0]
    assert seeds.run_samples is not None
    items_only = np.stack([seeds.run_samples[:, :4, 0].mean(axis=1), seeds.run_samples[:, 4:, 0].mean(axis=1)], 1)
    assert (two_level.std(axis=0) > items_only.std(axis=0)).all()


# ----------------------------------------------------------------------------- error rates by simulation


@pytest.fixture(scope="module")
def bootstrap_rates():
    """300 clustered test sets of two exchangeable systems, 200 resamples each: the paired bootstrap test's
    rejections at alpha 0.05 and the 95% percentile intervals' coverage of the population AUC, by cluster
    and by item resampling."""
    truth = population_auc()
    rng = np.random.default_rng(11)
    n = 300
    reject = {"cluster": 0, "item": 0}
    cover = {"cluster": 0, "item": 0}
    for k in range(n):
        runs = simulated_runs(rng)
        sc = score_counts(runs, positive=1)
        for name, clusters in (("cluster", item_clusters(runs)), ("item", None)):
            design = ScoreDesign(sc, clusters=clusters)
            boot, _ = design.streams(k)
            samples = design.resample([AUC], 200, boot)
            table = pairwise_tests(design, AUC, design.point([AUC])[:, 0], tests=("bootstrap",),
                                   samples=samples[:, :, 0])
            reject[name] += bool(table["p_value"].iloc[0] < 0.05)
            lo, hi = np.quantile(samples[:, 0, 0], [0.025, 0.975])
            cover[name] += bool(lo <= truth <= hi)
    return {k: v / n for k, v in reject.items()}, {k: v / n for k, v in cover.items()}


def test_cluster_bootstrap_test_holds_its_level_where_the_item_bootstrap_does_not(bootstrap_rates):
    # measured (seed 11, 300 test sets): cluster 0.047, item 0.41 (Field & Welsh 2007: resample the unit
    # that was sampled)
    reject, _ = bootstrap_rates
    assert 0.02 <= reject["cluster"] <= 0.09
    assert reject["item"] >= 0.2


def test_cluster_bootstrap_auc_interval_covers_near_nominal(bootstrap_rates):
    # measured (seed 11, 300 test sets): cluster 0.95, item 0.57 of nominal 0.95 (Davison & Hinkley 1997,
    # section 3.8: the cluster bootstrap's percentile intervals)
    _, cover = bootstrap_rates
    assert 0.91 <= cover["cluster"] <= 0.98
    assert cover["item"] <= 0.8


def test_cluster_randomisation_test_holds_its_level():
    # 300 null test sets, 99 rounds each: swapping whole clusters is exact under exchangeable systems;
    # measured (seed 7): cluster swaps 0.05, item swaps 0.37
    rng = np.random.default_rng(7)
    n = 300
    reject = {"cluster": 0, "item": 0}
    for k in range(n):
        runs = simulated_runs(rng)
        sc = score_counts(runs, positive=1)
        for name, clusters in (("cluster", item_clusters(runs)), ("item", None)):
            design = ScoreDesign(sc, clusters=clusters)
            _, rand = design.streams(k)
            table = pairwise_tests(design, AUC, design.point([AUC])[:, 0], tests=("randomization",), rounds=99,
                                   rng=rand)
            reject[name] += bool(table["p_value"].iloc[0] < 0.05)
    assert 0.02 <= reject["cluster"] / n <= 0.09
    assert reject["item"] / n >= 0.2


def test_two_level_bootstrap_auc_interval_covers_the_mean_over_seeds():
    """Runs whose separation of the classes varies by seed (separation 0.8 + 0.15 Z per run, 5 runs, 200
    items; logit = separation (2 gold - 1) + N(0, 1)): the nominal 95 % interval of the mean AUC over runs
    covers the population value E[Phi(sqrt(2) separation)] (binormal AUC) in 92-97.5 % of 600 simulated
    test sets (measured 0.948, seed 21); the item bootstrap alone (runs held fixed) does not (0.66)."""
    from scipy.stats import norm

    n_sets, n_runs, n_items = 600, 5, 200
    x, w = np.polynomial.hermite_e.hermegauss(80)
    truth = float((w * norm.cdf(np.sqrt(2) * (0.8 + 0.15 * x))).sum() / w.sum())
    rng = np.random.default_rng(21)
    hits = np.zeros(2)
    for k in range(n_sets):
        gold = (rng.random(n_items) < 0.4).astype(np.int64)
        separation = 0.8 + 0.15 * rng.standard_normal(n_runs)
        z = separation[:, None] * (2 * gold - 1)[None] + rng.standard_normal((n_runs, n_items))
        runs = Runs(gold=gold, pred=(z > 0).astype(np.int64), labels=("neg", "pos"),
                    systems=tuple(f"a/s{r}" for r in range(n_runs)), scores=1 / (1 + np.exp(-z)),
                    run_system=("a",) * n_runs)
        design = SeedsDesign(ScoreDesign(score_counts(runs, positive=1)), runs.run_system)
        design.point([AUC])
        boot, _ = design.streams(k)
        two_level = design.resample([AUC], 200, boot)[:, 0, 0]
        assert design.run_samples is not None
        items_only = design.run_samples[:, :, 0].mean(axis=1)
        for j, values in enumerate((two_level, items_only)):
            lo, hi = np.quantile(values, [0.025, 0.975])
            hits[j] += lo <= truth <= hi
    coverage = hits / n_sets
    assert 0.92 <= coverage[0] <= 0.975, coverage
    assert coverage[1] < 0.85, coverage


# ----------------------------------------------------------------------------- items within folds


def test_item_weights_within_folds_keep_every_fold_size():
    """With cross-validation folds the score measures' item bootstrap draws each fold's items from that fold, as
    the confusion measures' does (every resample keeps the fold sizes: the pooled counts of Forman & Scholz 2010,
    section 3); without folds, or with one, the draws are the plain bootstrap's, number for number."""
    from evalreport.analyses.score_design import bootstrap_weights

    folds = np.repeat([2, 0, 1], [7, 11, 5])[np.random.default_rng(0).permutation(23)]
    w = bootstrap_weights(np.random.default_rng(4), 500, 23, folds)
    for f in (0, 1, 2):
        assert (w[:, folds == f].sum(axis=1) == (folds == f).sum()).all()
    assert (w[:, folds == 1] > 0).any(axis=0).all() and w.max() > 1        # every item drawn somewhere, repeats too
    plain = bootstrap_weights(np.random.default_rng(4), 500, 23)
    assert not (plain[:, folds == 1].sum(axis=1) == 5).all()               # the plain bootstrap moves fold sizes
    np.testing.assert_array_equal(bootstrap_weights(np.random.default_rng(4), 500, 23, np.zeros(23, int)), plain)
    np.testing.assert_array_equal(bootstrap_weights(np.random.default_rng(4), 500, 23, None), plain)


def test_the_comparisons_score_design_resamples_items_within_folds():
    """compare's score design (DesignChoice.build_scores) carries the runs' folds when items are independent."""
    import dataclasses

    runs = dataclasses.replace(simulated_runs(np.random.default_rng(7), folds=True), clusters=None,
                               cluster_names=(), cluster_col=None)
    design = choose_design(runs, Settings()).build_scores(score_counts(runs, positive=1), policy="nan")
    assert design.clusters is None and design.folds is not None
    w = design._weights(np.random.default_rng(1), 200)
    assert (w[:, runs.folds == 0].sum(axis=1) == (runs.folds == 0).sum()).all()
