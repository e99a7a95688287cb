"""Several runs per system: the folder layout, the two-level bootstrap design, its coverage, and the
reduction to the ordinary comparison with one run per system."""
import numpy as np
import pandas as pd
import pytest
from conftest import raises, write_labels
from scipy.special import expit

from evalreport import read_runs
from evalreport.analyses.compare import compare
from evalreport.analyses.resampling import ConfusionDesign
from evalreport.analyses.seeds import SeedsDesign, seed_findings, system_scores
from evalreport.inputs.runs import Runs
from evalreport.measures import get

LABELS = ("a", "b", "c")


def _predictions(rng, gold, skill):
    """Predictions that copy the gold label with probability ``skill``, else a random class."""
    other = rng.integers(0, len(LABELS), gold.size)
    return np.where(rng.random(gold.size) < skill, gold, other)


def _seeded_folder(tmp_path, runs_per_system, n_items=60, seed=0):
    """gold.tsv and runs/<system>/seed<k>.tsv; returns (gold path, runs folder)."""
    rng = np.random.default_rng(seed)
    gold = rng.integers(0, len(LABELS), n_items)
    gold_path = write_labels(tmp_path / "gold.tsv", [LABELS[k] for k in gold])
    folder = tmp_path / "runs"
    for s, (system, n) in enumerate(runs_per_system.items()):
        (folder / system).mkdir(parents=True)
        for k in range(n):
            pred = _predictions(rng, gold, 0.5 + 0.1 * s + 0.05 * rng.normal())
            write_labels(folder / system / f"seed{k + 1}.tsv", [LABELS[c] for c in pred])
    return gold_path, folder


# ----------------------------------------------------------------------------- inputs


def test_folder_per_system_makes_one_system_of_each_folder(tmp_path):
    gold, folder = _seeded_folder(tmp_path, {"bert": 3, "svm": 2, "rule": 1})
    runs = read_runs(gold, runs_dir=folder)
    assert runs.systems == ("bert/seed1", "bert/seed2", "bert/seed3", "rule/seed1", "svm/seed1", "svm/seed2")
    assert runs.run_system == ("bert", "bert", "bert", "rule", "svm", "svm")
    assert runs.select(["svm/seed2", "bert/seed1"]).run_system == ("svm", "bert")


def test_flat_folder_has_no_run_systems(tmp_path):
    gold = write_labels(tmp_path / "gold.tsv", list("abc"))
    (tmp_path / "runs").mkdir()
    write_labels(tmp_path / "runs" / "x.tsv", list("abc"))
    assert read_runs(gold, runs_dir=tmp_path / "runs").run_system is None


def test_mixed_layouts_are_one_clear_error(tmp_path):
    gold, folder = _seeded_folder(tmp_path, {"bert": 2})
    write_labels(folder / "svm.tsv", list("abc"))
    with raises("beside folders of runs", path=folder):
        read_runs(gold, runs_dir=folder)


def test_empty_system_folder_and_names_are_errors(tmp_path):
    gold, folder = _seeded_folder(tmp_path, {"bert": 2})
    (folder / "empty").mkdir()
    with raises("no run files", path=folder / "empty"):
        read_runs(gold, runs_dir=folder)
    (folder / "empty").rmdir()
    with raises("--names cannot rename runs in system folders", path=folder):
        read_runs(gold, runs_dir=folder, names=["x", "y"])


def test_label_sets_refuse_system_folders(tmp_path):
    from evalreport.inputs.multilabel import read_multilabel

    gold, folder = _seeded_folder(tmp_path, {"bert": 2})
    with raises("single-label runs only", path=folder):
        read_multilabel(gold, runs_dir=folder)


# ----------------------------------------------------------------------------- one run per system


def _tables_equal(a, b):
    for name in ("scores", "ranks", "intervals", "rank_distribution", "pairwise", "groups", "leaderboard",
                 "baselines"):
        left, right = getattr(a, name), getattr(b, name)
        pd.testing.assert_frame_equal(left.reset_index(drop=True), right.reset_index(drop=True), check_exact=True,
                                      obj=name)


def test_one_run_per_system_gives_the_ordinary_comparison_exactly(tmp_path):
    gold, folder = _seeded_folder(tmp_path, {"bert": 1, "svm": 1, "rule": 1}, n_items=80)
    nested = read_runs(gold, runs_dir=folder)
    flat = read_runs(gold, [folder / s / "seed1.tsv" for s in ("bert", "rule", "svm")], names=["bert", "rule", "svm"])
    assert nested.run_system == ("bert", "rule", "svm")
    seeds = compare(nested, bootstrap=200, seed=7, primary="accuracy")
    ordinary = compare(flat, bootstrap=200, seed=7, primary="accuracy")
    assert seeds.systems == ordinary.systems == ("bert", "rule", "svm")
    _tables_equal(seeds, ordinary)
    assert set(seeds.pairwise["test"]) == {"bootstrap", "randomization", "mcnemar"}
    assert "runs" in seeds.extra and "runs" not in ordinary.extra


# ----------------------------------------------------------------------------- several runs


def test_several_runs_leaderboard_is_the_mean_over_runs(tmp_path):
    gold, folder = _seeded_folder(tmp_path, {"bert": 4, "svm": 2, "rule": 3})
    runs = read_runs(gold, runs_dir=folder)
    c = compare(runs, bootstrap=100, seed=1, primary="accuracy")
    assert sorted(c.leaderboard["system"]) == ["bert", "rule", "svm"]        # one row per system
    per_run = c.extra["runs"]
    assert len(per_run) == 9 * len(c.measures)
    means = per_run.groupby(["system", "measure"])["value"].mean()
    board = c.leaderboard.set_index("system")["value"]
    for system in ("bert", "svm", "rule"):
        assert board[system] == pytest.approx(means[(system, "accuracy")], abs=1e-12)
    # the pairwise table holds the bootstrap test only: runs have no one prediction per item
    assert set(c.pairwise["test"]) == {"bootstrap"} and len(c.pairwise) == 3
    spread = c.extra["seed_spread"].set_index(["system", "measure"])
    assert spread.loc[("bert", "accuracy"), "n_runs"] == 4
    sd = per_run[(per_run["system"] == "bert") & (per_run["measure"] == "accuracy")]["value"].std(ddof=1)
    assert spread.loc[("bert", "accuracy"), "seed_sd"] == pytest.approx(sd)
    assert (spread["item_se"].dropna() > 0).all()
    aso = c.extra["aso"]
    assert len(aso) == 6 and np.allclose(aso["alpha"], 0.05 / 3)
    assert c.settings["runs_per_system"] == {"bert": 4, "rule": 3, "svm": 2}


def test_system_scores_mean_over_defined_runs():
    scores = pd.DataFrame({"system": ["a/1", "a/2", "b/1"], "measure": "mcc", "value": [0.2, np.nan, np.nan],
                           "calibrated": False, "undefined": [False, True, True], "reason": ["", "0/0", "0/0"]})
    out = system_scores(scores, {"a/1": "a", "a/2": "a", "b/1": "b"}, ["a", "b"]).set_index("system")
    assert out.loc["a", "value"] == 0.2 and not out.loc["a", "undefined"] and out.loc["a", "reason"] == ""
    assert np.isnan(out.loc["b", "value"]) and out.loc["b", "undefined"] and out.loc["b", "reason"] == "0/0"


def test_seed_findings_name_pairs_closer_than_the_seed_spread():
    board = pd.DataFrame({"rank": [1, 2, 3], "system": ["a", "b", "c"], "value": [0.80, 0.79, 0.60]})
    spread = pd.DataFrame({"system": ["a", "b", "c"], "measure": "accuracy", "seed_sd": [0.02, 0.005, 0.01]})
    rows = seed_findings(board, spread, "accuracy")
    assert [(r["system"], r["detail"].split("|")[0]) for r in rows] == [("a", "b")]
    assert rows[0]["value"] == pytest.approx(0.01)


# ----------------------------------------------------------------------------- coverage


def _true_accuracy(mu: float, sd: float) -> float:
    """E[expit(mu + sd Z)], Z standard normal (Gauss-Hermite quadrature)."""
    x, w = np.polynomial.hermite_e.hermegauss(80)
    return float((w * expit(mu + sd * x)).sum() / w.sum())


def test_two_level_bootstrap_covers_the_mean_over_seeds():
    """Items of random difficulty and seeds of random skill (a crossed design): the nominal 95 %
    interval of the mean accuracy over 5 seeds covers the population value (over items and seeds) in
    92-97.5 % of 600 simulated test sets; the item bootstrap alone (no run draws) does not (~75 %)."""
    rng = np.random.default_rng(11)
    n_sets, n_runs, n_items, sd_item, sd_seed, B = 600, 5, 200, 1.0, 0.3, 200
    truth = _true_accuracy(0.5, float(np.hypot(sd_item, sd_seed)))
    acc = [get("accuracy")]
    hits = np.zeros(2)
    for k in range(n_sets):
        d = rng.normal(0, sd_item, n_items)
        u = rng.normal(0, sd_seed, n_runs)
        correct = rng.random((n_runs, n_items)) < expit(0.5 + d[None] + u[:, None])
        runs = Runs(gold=np.zeros(n_items, dtype=np.int8), pred=(~correct).astype(np.int8), labels=("a", "b"),
                    systems=tuple(f"s/{r}" for r in range(n_runs)), run_system=("s",) * n_runs)
        design = SeedsDesign(ConfusionDesign(runs), runs.run_system)
        two_level = design.resample(acc, B, np.random.default_rng([11, k]))[:, 0, 0]
        items_only = design.run_samples[:, :, 0].mean(axis=1)
        for j, values in enumerate((two_level, items_only)):
            lo, hi = np.quantile(values, [0.025, 0.975])
            hits[j] += lo <= truth <= hi
    coverage = hits / n_sets
    assert 0.92 <= coverage[0] <= 0.975, coverage
    assert coverage[1] < 0.85, coverage


def test_unequal_runs_resample_each_system_with_its_own_count():
    rng = np.random.default_rng(3)
    gold = rng.integers(0, 2, 50)
    pred = np.stack([_predictions(rng, gold, 0.6) % 2 for _ in range(5)])
    runs = Runs(gold=gold, pred=pred, labels=("a", "b"), systems=("x/1", "x/2", "x/3", "y/1", "y/2"),
                run_system=("x", "x", "x", "y", "y"))
    design = SeedsDesign(ConfusionDesign(runs), runs.run_system)
    point = design.point([get("accuracy")])
    per_run = (pred == gold).mean(axis=1)
    np.testing.assert_allclose(point[:, 0], [per_run[:3].mean(), per_run[3:].mean()])
    plain = SeedsDesign(ConfusionDesign(runs), runs.run_system, adjust=False)
    drawn = plain.resample([get("accuracy")], 300, np.random.default_rng(0))
    samples = design.resample([get("accuracy")], 300, np.random.default_rng(0))
    assert samples.shape == drawn.shape == (300, 2, 1)
    # without the rescaling every resampled mean is a weighted mean of that resample's run values
    run = design.run_samples[:, :, 0]
    np.testing.assert_array_equal(run, plain.run_samples[:, :, 0])
    for s, idx in enumerate(design.index):
        assert np.all(drawn[:, s, 0] >= run[:, idx].min(axis=1) - 1e-12)
        assert np.all(drawn[:, s, 0] <= run[:, idx].max(axis=1) + 1e-12)
        # with it, the deviation from the plain mean of the runs is stretched by one factor >= sqrt(R / (R - 1)),
        # then clipped to accuracy's range
        centre = run[:, idx].mean(axis=1)
        inside = (samples[:, s, 0] > 0) & (samples[:, s, 0] < 1)
        assert inside.mean() > 0.9 and np.all((samples >= 0) & (samples <= 1))
        moved = (np.abs(drawn[:, s, 0] - centre) > 1e-9) & inside
        ratio = (samples[moved, s, 0] - centre[moved]) / (drawn[moved, s, 0] - centre[moved])
        assert np.ptp(ratio) < 1e-9 and ratio[0] >= np.sqrt(idx.size / (idx.size - 1)) - 1e-12, ratio
    with raises("need one run per system"):
        design.correct()


def test_findings_say_when_the_seed_spread_exceeds_the_gap():
    from evalreport.analyses.findings import findings

    rng = np.random.default_rng(8)
    gold = rng.integers(0, 2, 400)
    skills = {"a": [0.60, 0.80, 0.70], "b": [0.66, 0.72, 0.69]}       # a: wide seed spread, means 0.70 vs 0.69
    pred, names, owner = [], [], []
    for system, runs_skill in skills.items():
        for k, skill in enumerate(runs_skill):
            pred.append(np.where(rng.random(400) < skill, gold, 1 - gold))
            names.append(f"{system}/{k}")
            owner.append(system)
    runs = Runs(gold=gold, pred=np.stack(pred), labels=("x", "y"), systems=tuple(names), run_system=tuple(owner))
    comp = compare(runs, bootstrap=100, seed=0, primary="accuracy")
    rows = findings(comp).findings
    seed_rows = rows[rows["finding"] == "seed_spread"]
    assert len(seed_rows) == 1
    spread = comp.extra["seed_spread"].set_index(["system", "measure"])["seed_sd"]
    assert float(seed_rows["value"].iloc[0]) < spread[(seed_rows["system"].iloc[0], "accuracy")] + 1e-12


def test_without_resampling_the_runs_and_seed_spread_remain(tmp_path):
    gold, folder = _seeded_folder(tmp_path, {"bert": 3, "svm": 2})
    c = compare(read_runs(gold, runs_dir=folder), bootstrap=0, primary="accuracy")
    assert len(c.leaderboard) == 2 and c.intervals.empty and c.extra["aso"].empty
    spread = c.extra["seed_spread"]
    assert spread["seed_sd"].notna().all() and spread["item_se"].isna().all()
    assert len(c.extra["runs"]) == 5 * len(c.measures)


def test_other_measures_letters_use_the_primarys_test_with_several_runs(tmp_path):
    """With several runs per system the letters of every measure come from the paired test with Welch-
    Satterthwaite df (SeedsDesign.pair_test), not only the primary's: the letters measure_letters gives a
    measure equal those of a comparison with that measure as primary (same seed, same resamples); the
    widened resamples' normal approximation gives other letters here."""
    import dataclasses

    from evalreport.analyses.measure_letters import measure_letters

    gold, folder = _seeded_folder(tmp_path, {f"s{k}": 3 for k in range(6)}, n_items=150, seed=3)
    runs = read_runs(gold, runs_dir=folder)
    first = compare(runs, bootstrap=300, seed=5, primary="accuracy", measures=["accuracy", "macro_f1"])
    other = compare(runs, bootstrap=300, seed=5, primary="macro_f1", measures=["accuracy", "macro_f1"])
    assert other.pairwise[other.pairwise["test"] == "bootstrap"]["detail"].str.contains("Welch-Satterthwaite").all()
    own = other.groups.set_index("system")["letters"]

    def letters(comparison):
        table = measure_letters(comparison)
        return table[table["measure"] == "macro_f1"].set_index("system")["letters"].reindex(list(own.index)).tolist()

    assert letters(first) == own.tolist()
    assert letters(dataclasses.replace(first, pair_test=None)) != own.tolist()
