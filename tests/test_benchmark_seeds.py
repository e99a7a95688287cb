"""Several runs per system in a benchmark: a task's runs folder holding a folder per system.

Each task's systems are its folders; per task the values are the means over runs (as ``compare``
gives), and the per-task intervals and the consensus bootstrap use the two-level design
(:class:`evalreport.analyses.seeds.SeedsDesign`). With one run per system the benchmark equals the
one of one file per system digit for digit.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from conftest import write_labels
from scipy.stats import rankdata

from evalreport.analyses.benchmark import compare_benchmark, rank_distribution_of, select_systems
from evalreport.analyses.compare import compare
from evalreport.cli import main
from evalreport.inputs.benchmark import read_benchmark

LABELS = ("a", "b", "c")
SYSTEMS = ("alpha", "beta", "gamma")


def _tasks(root, runs_per_system: dict[str, int], *, flat: bool = False, n_items: int = 50, seed: int = 0,
           n_tasks: int = 2, step: float = 0.12):
    """``root/<task>/gold.tsv`` and ``runs/<system>/seed<k>.tsv`` (``flat``: ``runs/<system>.tsv``,
    one run each); the same predictions for the same seed whatever the layout."""
    rng = np.random.default_rng(seed)
    for t in range(n_tasks):
        task = root / f"task{t + 1}"
        task.mkdir(parents=True)
        gold = rng.integers(0, len(LABELS), n_items)
        write_labels(task / "gold.tsv", [LABELS[k] for k in gold])
        for s, (system, n) in enumerate(runs_per_system.items()):
            for k in range(n):
                skill = 0.45 + step * s + 0.05 * rng.normal()
                pred = np.where(rng.random(n_items) < skill, gold, rng.integers(0, len(LABELS), n_items))
                path = (task / "runs" / f"{system}.tsv" if flat else task / "runs" / system / f"seed{k + 1}.tsv")
                path.parent.mkdir(parents=True, exist_ok=True)
                write_labels(path, [LABELS[c] for c in pred])
    return root


@pytest.fixture(scope="module")
def seeded(tmp_path_factory):
    root = _tasks(tmp_path_factory.mktemp("seeded"), {s: 3 for s in SYSTEMS})
    bench = read_benchmark(root)
    return root, bench, compare_benchmark(bench, bootstrap=200, seed=3)


def test_each_tasks_systems_are_its_folders(seeded):
    _, bench, result = seeded
    for t in bench.tasks:
        assert t.systems == SYSTEMS
        assert len(t.runs.systems) == 9                   # the runs themselves: system/run
    assert result.systems == SYSTEMS
    assert set(result.task_scores["system"]) == set(SYSTEMS)


def test_task_leaderboards_equal_compare_on_the_task(seeded):
    _, bench, result = seeded
    for t in bench.tasks:
        alone = compare(t.runs, bootstrap=200, seed=3, primary=t.primary)
        board = result.task_scores[result.task_scores["task"] == t.name].reset_index(drop=True)
        pd.testing.assert_frame_equal(board[["system", "value", "lo", "hi", "rank", "p_best"]],
                                      alone.leaderboard[["system", "value", "lo", "hi", "rank", "p_best"]]
                                      .reset_index(drop=True), check_dtype=False)
        # the value is the mean over the system's runs of the primary measure
        runs = alone.extra["runs"]
        mean = runs[runs["measure"] == t.primary].groupby("system", sort=False)["value"].mean()
        np.testing.assert_allclose(board.set_index("system")["value"].loc[list(SYSTEMS)], mean.loc[list(SYSTEMS)])


def test_consensus_bootstrap_is_the_two_level_design_of_compare(tmp_path):
    """With one task the mean-score consensus is the task's ranking: its distribution is ``compare``'s
    rank distribution under the recorded stream seed, which draws runs as well as items."""
    bench = read_benchmark(_tasks(tmp_path / "one", {s: 3 for s in SYSTEMS}, n_tasks=1, step=0.02))
    result = compare_benchmark(bench, bootstrap=120, seed=5)
    seed = result.settings["consensus_bootstrap_seeds"]["task1"]
    t = bench.tasks[0]
    alone = compare(t.runs, bootstrap=120, seed=seed, primary=t.primary).rank_distribution
    alone = alone[(alone["measure"] == t.primary) & ~alone["calibrated"].astype(bool)] if "calibrated" in alone \
        else alone[alone["measure"] == t.primary]
    mine = result.consensus_rank_distribution.query("method == 'mean_score'")
    expected = alone.set_index(["system", "rank"])["probability"]
    got = mine.set_index(["system", "rank"])["probability"]
    np.testing.assert_allclose(got.to_numpy(dtype=float), expected.loc[got.index].to_numpy(dtype=float), atol=1e-12)
    # the item bootstrap of the same runs (no run draws) gives another distribution
    from evalreport.analyses.resampling import bootstrap as resample

    items = resample(t.runs, [t.primary], n_resamples=120, seed=seed).samples[:, :, 0]
    means = np.stack([items[:, [i for i, s in enumerate(t.runs.run_system) if s == name]].mean(axis=1)
                      for name in SYSTEMS], axis=1)
    item_dist = rank_distribution_of(rankdata(-means, axis=1))[:, 0]
    two_level = mine[mine["rank"] == 1].set_index("system")["probability"].loc[list(SYSTEMS)].to_numpy(dtype=float)
    assert np.abs(item_dist - two_level).max() > 0.02, (item_dist, two_level)


def test_one_run_per_system_equals_todays_benchmark(tmp_path):
    folders = read_benchmark(_tasks(tmp_path / "folders", {s: 1 for s in SYSTEMS}))
    files = read_benchmark(_tasks(tmp_path / "files", {s: 1 for s in SYSTEMS}, flat=True))
    assert folders.tasks[0].runs.run_system is not None and files.tasks[0].runs.run_system is None
    a = compare_benchmark(folders, bootstrap=150, seed=11)
    b = compare_benchmark(files, bootstrap=150, seed=11)
    assert a.systems == b.systems
    for name, frame in b.own_tables().items():
        pd.testing.assert_frame_equal(a.own_tables()[name], frame, check_dtype=False, obj=name)
    assert a.settings == b.settings


def test_a_system_missing_from_a_task_is_a_gap_and_exclude_drops_its_runs(tmp_path):
    root = _tasks(tmp_path, {s: 2 for s in SYSTEMS})
    for f in (root / "task2" / "runs" / "gamma").iterdir():
        f.unlink()
    (root / "task2" / "runs" / "gamma").rmdir()
    bench = read_benchmark(root)
    assert bench.missing_systems == {"gamma": ("task2",)}
    kept = select_systems(bench.tasks[0].runs, ["alpha", "beta"])
    assert kept.run_system == ("alpha", "alpha", "beta", "beta")
    result = compare_benchmark(bench, bootstrap=50, seed=0, missing_systems="exclude")
    assert result.systems == ("alpha", "beta")
    assert set(result.task_scores["system"]) == {"alpha", "beta"}


def test_pooled_score_is_of_the_mean_confusion_over_runs(seeded):
    from sklearn.metrics import confusion_matrix

    from evalreport.counts import Counts
    from evalreport.measures import evaluate

    _, bench, result = seeded
    total = np.zeros((len(SYSTEMS), len(LABELS), len(LABELS)))
    for t in bench.tasks:          # per system the mean over its runs of the runs' confusion matrices, summed over tasks
        for r, system in enumerate(t.runs.run_system):
            cm = confusion_matrix(t.runs.gold, t.runs.pred[r], labels=range(len(LABELS)))
            total[SYSTEMS.index(system)] += cm / t.runs.run_system.count(system)
    labels = bench.tasks[0].labels
    expected = evaluate(Counts(total, labels, SYSTEMS), [bench.tasks[0].primary])
    np.testing.assert_allclose(result.pooled.set_index("system")["value"].loc[list(SYSTEMS)].to_numpy(dtype=float),
                               expected.set_index("system")["value"].loc[list(SYSTEMS)].to_numpy(dtype=float))


def test_cli_benchmark_of_seeded_tasks_end_to_end(seeded, tmp_path):
    root, _, _ = seeded
    out = tmp_path / "out"
    assert main(["benchmark", str(root), "-o", str(out), "--bootstrap", "60", "--seed", "1", "--formats", "html",
                 "--engine", "builtin", "--no-audit", "--quiet"]) == 0
    tables = out / "tables"
    scores = pd.read_csv(tables / "task_scores.csv")
    assert sorted(set(scores["system"])) == sorted(SYSTEMS) and set(scores["task"]) == {"task1", "task2"}
    consensus = pd.read_csv(tables / "consensus.csv")
    assert set(consensus["system"]) == set(SYSTEMS)
    runs = pd.read_csv(tables / "tasks" / "task1" / "runs.csv")
    assert len(runs[runs["measure"] == runs["measure"].iloc[0]]) == 9       # every run's own value
    assert (out / "report.html").is_file()


def test_settings_and_methods_paragraph_name_the_two_level_design(tmp_path):
    root = _tasks(tmp_path / "in", {"alpha": 3, "beta": 2, "gamma": 1})
    (root / "task2").rename(root / "task_$2&<x>")
    result = compare_benchmark(read_benchmark(root), bootstrap=20, seed=0)
    assert result.settings["runs_per_system"]["task1"] == {"alpha": 3, "beta": 2, "gamma": 1}
    out = tmp_path / "out"
    assert main(["benchmark", str(root), "-o", str(out), "--bootstrap", "20", "--formats", "html",
                 "--engine", "builtin", "--no-audit", "--appendix", "--quiet"]) == 0
    tex = (out / "appendix" / "methods.tex").read_text()
    assert "In tasks task1, task\\_\\$2\\&\\textless{}x\\textgreater{} the systems were trained with several random " \
           "seeds (1 to 3 runs per system)" in tex
    bib = (out / "appendix" / "references.bib").read_text()
    assert "bouthillier2021accounting" in bib
    # the rescaled run draws and the paired test's t reference are said and cited (as in a single task's appendix)
    assert "Welch-Satterthwaite degrees of freedom" in tex and "rescaled for few runs" in tex
    for key in ("davison1997bootstrap", "hesterberg2015what", "satterthwaite1946approximate", "welch1947generalization"):
        assert key in bib and key in tex, key
