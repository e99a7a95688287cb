"""Slices in the comparison engine: per-slice values against scikit-learn on the subset, the per-slice
leaders, the gaps between slices (type-I error near alpha on null data, coverage near nominal), the
summary, and every design (clusters, several runs per system, score-based measures, label sets)."""
import numpy as np
import pandas as pd
import pytest
from sklearn import metrics

from evalreport.analyses.compare import compare
from evalreport.analyses.designs import choose_design
from evalreport.analyses.slices import (
    COLUMNS,
    MIN_ITEMS,
    empty_tables,
    single_label_designs,
    slice_measures,
    slice_tables,
)
from evalreport.errors import InputError
from evalreport.inputs.multilabel import MultiLabelRuns
from evalreport.inputs.runs import Runs
from evalreport.inputs.settings import Settings
from evalreport.measures import bind

LABELS = ("a", "b", "c")


def sliced_runs(seed: int, n: int = 300, systems: int = 3, domains=("news", "web", "chat")) -> Runs:
    rng = np.random.default_rng(seed)
    gold = rng.integers(0, 3, size=n)
    skill = rng.uniform(0.4, 0.9, size=(systems, 1))
    pred = np.where(rng.random((systems, n)) < skill, gold, rng.integers(0, 3, size=(systems, n)))
    return Runs(gold=gold, pred=pred, labels=LABELS, systems=tuple(f"s{i}" for i in range(systems)),
                slices={"domain": rng.choice(np.asarray(domains, dtype=object), size=n)})


def tables_of(runs: Runs, ids, *, bootstrap: int = 0, seed: int = 0, settings: Settings | None = None):
    s = settings or Settings()
    records = [bind(m, runs.labels) for m in ids]
    designs = single_label_designs(choose_design(runs, s), runs, positive=None, policy="nan", costs=None,
                                   strata=None)
    full = designs.make(np.arange(runs.n_items))
    overall = full.point(records)
    return slice_tables(runs.slices, runs.slice_names, designs, records, full.systems, overall,
                        bootstrap=bootstrap, seed=seed, alpha=0.05)


SKLEARN = {
    "accuracy": metrics.accuracy_score,
    "macro_f1": lambda y, p: metrics.f1_score(y, p, average="macro", labels=np.unique(y)),
    "macro_recall": lambda y, p: metrics.recall_score(y, p, average="macro", labels=np.unique(y)),
    "mcc": metrics.matthews_corrcoef,
    "kappa": metrics.cohen_kappa_score,
    "weighted_f1": lambda y, p: metrics.f1_score(y, p, average="weighted", labels=np.unique(y)),
}


@pytest.mark.parametrize("seed", range(6))
def test_every_slice_value_equals_sklearn_on_the_subset(seed):
    runs = sliced_runs(seed, n=120 + 40 * seed)
    ids = list(SKLEARN)
    table = tables_of(runs, ids)["slices"]
    assert len(table) == runs.n_systems * len(runs.slice_names["domain"]) * len(ids)
    for row in table.itertuples():
        items = runs.slices["domain"] == row.slice
        s = runs.systems.index(row.system)
        expected = SKLEARN[row.measure](runs.gold[items], runs.pred[s, items])
        assert row.value == pytest.approx(expected, abs=1e-12), (row.system, row.slice, row.measure)
        assert row.n == items.sum()
        overall = SKLEARN[row.measure](runs.gold, runs.pred[s])
        assert row.overall == pytest.approx(overall, abs=1e-12)
        assert row.difference_to_overall == pytest.approx(expected - overall, abs=1e-12)


def test_ranks_best_and_intervals_within_a_slice():
    runs = sliced_runs(3, n=600)
    t = tables_of(runs, ["accuracy"], bootstrap=200)["slices"]
    for _, part in t.groupby("slice"):
        best = part.loc[part["value"].idxmax()]
        assert bool(best["best"]) and best["rank"] == 1
        assert (part["lo"] <= part["value"] + 1e-12).all() and (part["value"] <= part["hi"] + 1e-12).all()
    assert list(t.columns) == COLUMNS["slices"]


def test_same_seed_same_numbers_and_slices_are_independent_of_system_order():
    runs = sliced_runs(4)
    a = tables_of(runs, ["accuracy"], bootstrap=100, seed=5)
    b = tables_of(runs, ["accuracy"], bootstrap=100, seed=5)
    for name in COLUMNS:
        pd.testing.assert_frame_equal(a[name], b[name])
    flipped = tables_of(runs.select(runs.systems[::-1]), ["accuracy"], bootstrap=100, seed=5)["slices"]
    key = ["system", "slice", "measure"]
    pd.testing.assert_frame_equal(a["slices"].sort_values(key).reset_index(drop=True),
                                  flipped.sort_values(key).reset_index(drop=True))


def test_a_system_best_on_one_domain_and_poor_on_another_shows_in_slice_leaders():
    rng = np.random.default_rng(7)
    n = 800
    domain = np.where(np.arange(n) < n // 2, "legal", "medical").astype(object)
    gold = rng.integers(0, 3, size=n)
    skill = np.where(domain == "legal", 0.95, 0.45), np.where(domain == "legal", 0.55, 0.9)
    pred = np.stack([np.where(rng.random(n) < k, gold, (gold + 1) % 3) for k in skill])
    runs = Runs(gold=gold, pred=pred, labels=LABELS, systems=("lawyer", "doctor"), slices={"domain": domain})
    out = tables_of(runs, ["accuracy"], bootstrap=300)
    leaders = out["slice_leaders"].set_index("slice")
    assert leaders.loc["legal", "best"] == "lawyer" and leaders.loc["medical", "best"] == "doctor"
    assert leaders.loc["legal", "separated"] == "doctor" and leaders.loc["legal", "tied"] == ""
    summary = out["slice_summary"].set_index("system")
    assert summary.loc["lawyer", "worst_slice"] == "medical" and summary.loc["doctor", "worst_slice"] == "legal"
    assert summary.loc["lawyer", "max_difference"] == pytest.approx(
        abs(summary.loc["lawyer", "best_value"] - summary.loc["lawyer", "worst_value"]))
    gaps = out["slice_gaps"].set_index("system")
    assert gaps.loc["lawyer", "p_holm"] < 0.001 and gaps.loc["lawyer", "lo"] > 0.3


def test_summary_ratio_is_fairlearn_min_over_max_and_robustness_rank_follows_the_worst_slice():
    runs = sliced_runs(11, n=900, systems=4)
    out = tables_of(runs, ["accuracy"])
    values = out["slices"].pivot(index="system", columns="slice", values="value")
    summary = out["slice_summary"].set_index("system")
    for system, row in values.iterrows():
        assert summary.loc[system, "min_max_ratio"] == pytest.approx(row.min() / row.max())
        assert summary.loc[system, "worst_value"] == pytest.approx(row.min())
    order = summary.sort_values("robustness_rank").index.tolist()
    assert order == values.min(axis=1).sort_values(ascending=False).index.tolist()


def test_lower_is_better_measure_ranks_and_summarises_the_other_way():
    runs = sliced_runs(5, n=400)
    out = tables_of(runs, ["confusion_entropy"])
    t = out["slices"]
    for _, part in t.groupby("slice"):
        assert part.loc[part["value"].idxmin(), "rank"] == 1
    summary = out["slice_summary"]
    assert (summary["worst_value"] >= summary["best_value"]).all()


def null_gap(seed: int, n: int = 150, acc: float = 0.7, other: float = 0.7):
    rng = np.random.default_rng(seed)
    gold = rng.integers(0, 2, size=2 * n)
    p = np.r_[np.full(n, acc), np.full(n, other)]
    pred = np.where(rng.random(2 * n) < p, gold, 1 - gold)[None]
    runs = Runs(gold=gold, pred=pred, labels=("x", "y"), systems=("s",),
                slices={"half": np.repeat(np.array(["one", "two"], dtype=object), n)})
    return tables_of(runs, ["accuracy"], bootstrap=200, seed=seed)["slice_gaps"].iloc[0]


def test_slice_gap_type_one_error_near_alpha_on_null_data():
    # two slices with the same accuracy: the gap test rejects at about alpha (seeded simulation)
    rows = [null_gap(seed) for seed in range(300)]
    rejected = np.mean([r.p_value < 0.05 for r in rows])
    assert 0.02 <= rejected <= 0.09, rejected


def test_slice_gap_interval_covers_the_true_difference_near_nominal():
    rows = [null_gap(1000 + seed, acc=0.8, other=0.65) for seed in range(300)]
    covered = np.mean([r.lo <= 0.15 <= r.hi for r in rows])
    assert 0.90 <= covered <= 0.985, covered


def test_gap_holm_is_over_every_system_and_pair_of_one_column():
    runs = sliced_runs(2, n=600, systems=3, domains=("p", "q", "r", "s"))
    gaps = tables_of(runs, ["accuracy"], bootstrap=100)["slice_gaps"]
    assert len(gaps) == 3 * 6
    p = gaps["p_value"].to_numpy()
    order = np.argsort(p)
    expected = np.minimum(1, np.maximum.accumulate((len(p) - np.arange(len(p))) * p[order]))
    assert np.allclose(gaps["p_holm"].to_numpy()[order], expected)
    assert np.allclose(gaps["ratio"], gaps["value_a"] / gaps["value_b"])


def test_small_slices_keep_their_value_and_lose_interval_and_tests():
    runs = sliced_runs(8, n=200)
    names = np.array(runs.slices["domain"])
    names[:MIN_ITEMS - 1] = "tiny"
    runs = Runs(gold=runs.gold, pred=runs.pred, labels=runs.labels, systems=runs.systems, slices={"domain": names})
    out = tables_of(runs, ["accuracy"], bootstrap=50)
    tiny = out["slices"][out["slices"]["slice"] == "tiny"]
    assert tiny["small"].all() and tiny["lo"].isna().all() and tiny["value"].notna().all()
    assert out["slice_leaders"].set_index("slice").loc["tiny", "small"]
    gaps = out["slice_gaps"]
    touching = (gaps["slice_a"] == "tiny") | (gaps["slice_b"] == "tiny")
    assert gaps.loc[touching, "p_value"].isna().all() and gaps.loc[~touching, "p_value"].notna().all()


def test_a_gold_class_missing_from_a_slice_flags_class_averaged_measures_small():
    rng = np.random.default_rng(3)
    n = 300
    gold = rng.integers(0, 3, size=n)
    domain = np.where(gold == 2, "with_c", rng.choice(np.array(["with_c", "without_c"], dtype=object), size=n))
    pred = np.where(rng.random((2, n)) < 0.7, gold, (gold + 1) % 3)
    runs = Runs(gold=gold, pred=pred, labels=LABELS, systems=("s0", "s1"), slices={"domain": domain.astype(object)})
    t = tables_of(runs, ["accuracy", "macro_f1"], bootstrap=30)["slices"].set_index(["slice", "measure"])
    assert t.loc[("without_c", "macro_f1"), "small"].all()
    assert not t.loc[("without_c", "accuracy"), "small"].any()


def test_slice_measures_keep_the_primary_and_stay_within_the_comparisons_count():
    records = [bind(m, LABELS) for m in ("macro_f1", "accuracy", "mcc", "kappa", "macro_recall", "weighted_f1")]
    assert [m.id for m in slice_measures(records, 3)] == ["macro_f1", "accuracy"]
    assert [m.id for m in slice_measures(records, 30)] == ["macro_f1"]


def test_no_slices_give_empty_tables_with_their_columns():
    out = empty_tables()
    assert {k: list(v.columns) for k, v in out.items()} == COLUMNS
    assert all(len(v) == 0 for v in out.values())
    runs = sliced_runs(0)
    plain = Runs(gold=runs.gold, pred=runs.pred, labels=runs.labels, systems=runs.systems)
    assert "slices" not in compare(plain, Settings(bootstrap=0)).extra


# ----------------------------------------------------------------------------- in compare, every design


def test_compare_adds_the_four_tables_notes_and_manifest_settings():
    runs = sliced_runs(1)
    cmp = compare(runs, Settings(bootstrap=50))
    for name, cols in COLUMNS.items():
        assert list(cmp.extra[name].columns) == cols
    assert cmp.settings["slice_cols"] == ["domain"] and cmp.settings["slice_measures"][0] == "macro_f1"
    assert any(n.startswith("slices (domain)") for n in cmp.notes)
    assert set(cmp.manifest()["files"]) >= {"slices.csv", "slice_gaps.json"}


def test_compare_refuses_slice_cols_the_runs_do_not_carry():
    runs = sliced_runs(1)
    with pytest.raises(InputError, match="--slice-col lang"):
        compare(runs, Settings(bootstrap=0, slice_cols=("lang",)))
    plain = Runs(gold=runs.gold, pred=runs.pred, labels=runs.labels, systems=runs.systems)
    with pytest.raises(InputError, match="slices need item-level runs"):
        compare(plain, Settings(bootstrap=0, slice_cols=("domain",)))


def test_clusters_are_resampled_within_slices():
    rng = np.random.default_rng(2)
    docs, per = 40, 6
    n = docs * per
    gold = rng.integers(0, 3, size=n)
    pred = np.where(rng.random((2, n)) < 0.7, gold, (gold + 1) % 3)
    domain = np.repeat(np.where(np.arange(docs) < 20, "x", "y").astype(object), per)
    runs = Runs(gold=gold, pred=pred, labels=LABELS, systems=("s0", "s1"), clusters=np.repeat(np.arange(docs), per),
                cluster_names=tuple(f"d{i}" for i in range(docs)), cluster_col="doc", slices={"domain": domain})
    cmp = compare(runs, Settings(bootstrap=60, cluster_col="doc"))
    assert cmp.settings["slice_resampling"].startswith("whole clusters within each slice")
    sub = runs.subset(domain == "x")
    assert sub.n_clusters == 20 and sub.clusters.max() == 19
    t = cmp.extra["slices"]
    x = t[(t["slice"] == "x") & (t["measure"] == "macro_f1")].set_index("system")
    for k, system in enumerate(runs.systems):
        items = domain == "x"
        assert x.loc[system, "value"] == pytest.approx(
            metrics.f1_score(gold[items], pred[k, items], average="macro"))


def test_several_runs_per_system_give_slice_values_as_means_over_runs():
    runs = sliced_runs(6, n=240, systems=4)
    runs = Runs(gold=runs.gold, pred=runs.pred, labels=runs.labels, systems=("a/1", "a/2", "b/1", "b/2"),
                run_system=("a", "a", "b", "b"), slices=runs.slices)
    cmp = compare(runs, Settings(bootstrap=40, measures=("accuracy",), primary="accuracy"))
    t = cmp.extra["slices"]
    assert set(t["system"]) == {"a", "b"}
    row = t[(t["system"] == "a") & (t["slice"] == "web")].iloc[0]
    items = runs.slices["domain"] == "web"
    mean = np.mean([metrics.accuracy_score(runs.gold[items], runs.pred[k, items]) for k in (0, 1)])
    assert row["value"] == pytest.approx(mean) and np.isfinite(row["lo"])
    assert "two-level bootstrap" in cmp.settings["slice_resampling"]


def test_score_based_primary_slices_equal_sklearn_roc_auc_on_the_subset():
    rng = np.random.default_rng(9)
    n = 400
    gold = rng.integers(0, 2, size=n)
    scores = np.clip(gold[None] * 0.3 + rng.random((3, n)) * 0.8, 0, 1)
    pred = (scores > 0.5).astype(int)
    domain = rng.choice(np.array(["u", "v"], dtype=object), size=n)
    runs = Runs(gold=gold, pred=pred, labels=("neg", "pos"), systems=("s0", "s1", "s2"), scores=scores,
                slices={"domain": domain})
    cmp = compare(runs, Settings(bootstrap=40, primary="roc_auc", positive="pos"))
    t = cmp.extra["slices"]
    assert set(t["measure"]) <= set(cmp.measures) and t["measure"].iloc[0] == "roc_auc"
    for row in t[t["measure"] == "roc_auc"].itertuples():
        items = domain == row.slice
        k = runs.systems.index(row.system)
        assert row.value == pytest.approx(metrics.roc_auc_score(gold[items], scores[k, items]))
    assert cmp.extra["slice_leaders"]["measure"].eq("roc_auc").all()


def test_label_sets_slices_equal_sklearn_on_the_subset():
    rng = np.random.default_rng(4)
    n, L = 300, 4
    gold = rng.random((n, L)) < 0.4
    pred = np.stack([np.where(rng.random((n, L)) < q, gold, ~gold) for q in (0.9, 0.75)])
    domain = rng.choice(np.array(["a", "b", "c"], dtype=object), size=n)
    runs = MultiLabelRuns(gold=gold, pred=pred, labels=("w", "x", "y", "z"), systems=("s0", "s1"),
                          ids=np.array([f"i{i}" for i in range(n)], dtype=object), slices={"domain": domain})
    cmp = compare(runs, Settings(bootstrap=40))
    t = cmp.extra["slices"]
    for row in t[t["measure"] == "f1_macro"].itertuples():
        items = domain == row.slice
        k = runs.systems.index(row.system)
        assert row.value == pytest.approx(metrics.f1_score(gold[items], pred[k, items], average="macro"))
    assert set(cmp.extra["slice_leaders"]["best"]) == {"s0"}
