"""compare_benchmark: each task's tables equal compare() on that task alone, the
cross-task tables are those of the consensus functions on the per-task scores (and agree with
scipy / scikit-learn where those apply), the missing-system policies, the consensus bootstrap
and the output folder."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st
from scipy import stats

from evalreport.analyses import consensus as cons, multitask_tests as tests_across
from evalreport.analyses.benchmark import BENCHMARK_TABLES, compare_benchmark, rank_distribution_of
from evalreport.analyses.compare import compare
from evalreport.analyses.resampling import bootstrap as resample
from evalreport.errors import OutputError
from evalreport.examples import shared_task_data, write_benchmark
from evalreport.inputs.benchmark import benchmark_from_data, read_benchmark
from evalreport.report.write import write_comparison

B = 60


def tasks_of(*, drop=None, classes=(3, 3, 4), systems=5, items=(90, 70, 80)):
    out = {f"t{k + 1}": shared_task_data(n_systems=systems, n_classes=c, n_items=n, seed=10 + k)
           for k, (c, n) in enumerate(zip(classes, items))}
    for task, gone in (drop or {}).items():
        for s in gone:
            del out[task].runs[s]
    return out


@pytest.fixture(scope="module")
def bench(tmp_path_factory):
    folder = write_benchmark(tasks_of(), tmp_path_factory.mktemp("bench") / "tasks")
    return read_benchmark(folder, settings={"t2": {"primary": "mcc"}, "t3": {"primary": "confusion_entropy"}})


@pytest.fixture(scope="module")
def result(bench):
    return compare_benchmark(bench, bootstrap=B, seed=3)


def test_each_task_equals_compare_alone(bench, result):
    for t in bench.tasks:
        alone = compare(t.runs, primary=t.primary, positive=t.positive, measures=t.measures, costs=t.costs,
                        bootstrap=B, seed=3)
        got = result.comparisons[t.name]
        assert got.primary == t.primary and got.notes == alone.notes
        for name, frame in alone.tables().items():
            pd.testing.assert_frame_equal(got.tables()[name], frame, check_exact=True, obj=f"{t.name}/{name}")


def test_task_scores_are_the_leaderboards(bench, result):
    ts = result.task_scores
    assert list(ts.columns) == ["task", "system", "measure", "value", "lo", "hi", "rank", "group", "p_best"]
    for t in bench.tasks:
        board = result.comparisons[t.name].leaderboard
        mine = ts[ts["task"] == t.name].reset_index(drop=True)
        np.testing.assert_array_equal(mine["value"], board["value"])
        assert (mine["measure"] == t.primary).all() and list(mine["system"]) == list(board["system"])


def test_cross_task_tables_are_the_consensus_functions(result):
    scores = result.task_scores[["task", "system", "value"]]
    hib = {"t1": True, "t2": True, "t3": False}          # confusion_entropy: lower is better
    expected = cons.consensus(scores, higher_is_better=hib, seed=3)
    pd.testing.assert_frame_equal(result.consensus, expected.table)
    pd.testing.assert_frame_equal(result.agreement, expected.agreement)
    fr = tests_across.friedman(scores, higher_is_better=hib)
    row = result.friedman.iloc[0]
    assert row["chi2_F"] == pytest.approx(fr["chi2_F"]) and row["F_F"] == pytest.approx(fr["F_F"])
    cd, q, pairs = tests_across.nemenyi(fr["average_ranks"], fr["N"])
    assert result.critical_difference == pytest.approx(cd) and row["q_alpha"] == pytest.approx(q)
    pd.testing.assert_frame_equal(result.nemenyi, pairs)
    assert sorted(map(tuple, result.cd_cliques.groupby("clique")["system"].apply(tuple))) == \
        sorted(tests_across.cd_cliques(fr["average_ranks"], cd))
    pd.testing.assert_frame_equal(result.wilcoxon, tests_across.wilcoxon_holm(scores, higher_is_better=hib))
    pd.testing.assert_frame_equal(result.task_ranks, cons.task_ranks(scores, higher_is_better=hib))


def test_friedman_statistic_equals_scipy(result):
    """Differential: scipy.stats.friedmanchisquare on the per-task primary scores (oriented)."""
    wide = result.task_scores.pivot(index="task", columns="system", values="value")
    wide.loc["t3"] = -wide.loc["t3"]
    assert result.friedman.iloc[0]["chi2_F"] == pytest.approx(stats.friedmanchisquare(*wide.T.to_numpy()).statistic)


def test_wins_use_each_tasks_uncorrected_bootstrap_p_of_the_primary(result):
    scores = result.task_scores[["task", "system", "value"]]
    hib = {"t1": True, "t2": True, "t3": False}
    rows = []
    for task, c in result.comparisons.items():
        pw = c.pairwise[(c.pairwise["test"] == "bootstrap") & (c.pairwise["measure"] == c.primary)]
        rows.append(pd.DataFrame({"task": task, "system_a": pw["system_a"], "system_b": pw["system_b"],
                                  "p": pw["p_value"]}))
    expected = tests_across.wins(scores, pd.concat(rows, ignore_index=True), higher_is_better=hib)
    pd.testing.assert_frame_equal(result.wins, expected)
    assert result.wins["wins"].sum() == pytest.approx(3.0)


def test_pooled_score_is_the_primary_of_the_concatenated_items(tmp_path):
    """Tasks sharing a class set: pooled macro F1 = scikit-learn's macro F1 over all items at once."""
    from sklearn.metrics import f1_score

    tasks = tasks_of(classes=(3, 3, 3))
    b = read_benchmark(write_benchmark(tasks, tmp_path / "tasks"))
    r = compare_benchmark(b, bootstrap=0)
    gold = np.concatenate([d.gold["label"].to_numpy() for d in tasks.values()])
    for system, value in r.pooled.itertuples(index=False):
        pred = np.concatenate([d.runs[system]["label"].to_numpy() for d in tasks.values()])
        assert value == pytest.approx(f1_score(gold, pred, average="macro"))
    assert "pooled" in set(r.consensus["method"])
    # different class sets: absent, and the notes say why
    assert result_notes_say(compare_benchmark(read_benchmark(write_benchmark(tasks_of(), tmp_path / "x")),
                                              bootstrap=0), "pooled (micro) score absent: tasks 't1' and 't3'")


def result_notes_say(result, text) -> bool:
    return any(text in n for n in result.notes)


def test_consensus_bootstrap_distribution(result, bench):
    d = result.consensus_rank_distribution
    assert list(d.columns) == ["method", "system", "rank", "probability"]
    sums = d.groupby(["method", "system"])["probability"].sum()
    np.testing.assert_allclose(sums, 1.0)
    assert set(d["method"]) == set(cons.METHODS) and (d["probability"] >= 0).all()
    first = d[d["rank"] == 1].reset_index(drop=True)
    np.testing.assert_allclose(result.consensus_p_first["probability"], first["probability"])
    seeds = result.settings["consensus_bootstrap_seeds"]
    children = np.random.SeedSequence(3).spawn(3)
    assert list(seeds.values()) == [int(c.generate_state(1, dtype=np.uint64)[0]) for c in children]
    assert len(set(seeds.values())) == 3


def test_consensus_bootstrap_is_reproducible_and_seeded(bench, result):
    again = compare_benchmark(bench, bootstrap=B, seed=3)
    pd.testing.assert_frame_equal(again.consensus_rank_distribution, result.consensus_rank_distribution)
    other = compare_benchmark(bench, bootstrap=B, seed=4)
    assert not other.consensus_rank_distribution["probability"].equals(result.consensus_rank_distribution["probability"])


def test_one_task_bootstrap_is_that_tasks_rank_distribution(tmp_path):
    """With one task the mean-score consensus is the task's ranking: its distribution is the
    single-task bootstrap's rank distribution under the recorded stream seed."""
    data = tasks_of(classes=(3,), items=(120,))
    b = read_benchmark(write_benchmark(data, tmp_path / "one"))
    r = compare_benchmark(b, bootstrap=80, seed=11)
    seed = r.settings["consensus_bootstrap_seeds"]["t1"]
    single = resample(b.tasks[0].runs, ["macro_f1"], n_resamples=80, seed=seed).rank_distribution
    mine = r.consensus_rank_distribution.query("method == 'mean_score'").reset_index(drop=True)
    np.testing.assert_allclose(mine["probability"], single["probability"].to_numpy(), atol=1e-12)


def test_rank_distribution_of_shares_ties():
    ranks = np.array([[1.5, 1.5, 3.0], [1.0, 2.0, 3.0], [2.0, 2.0, 2.0]])
    got = rank_distribution_of(ranks)
    expected = np.array([[0.5 / 3 + 1 / 3 + 1 / 9, 0.5 / 3 + 1 / 9, 1 / 9],
                         [0.5 / 3 + 1 / 9, 0.5 / 3 + 1 / 3 + 1 / 9, 1 / 9],
                         [1 / 9, 1 / 9, 2 / 3 + 1 / 9]])
    np.testing.assert_allclose(got, expected)
    np.testing.assert_allclose(got.sum(axis=1), 1.0)


# ----------------------------------------------------------------------------- missing systems


@pytest.fixture(scope="module")
def gappy(tmp_path_factory):
    folder = write_benchmark(tasks_of(drop={"t2": ["system_05"], "t3": ["system_05", "system_02"]}),
                             tmp_path_factory.mktemp("gappy") / "tasks")
    return read_benchmark(folder)


def test_missing_drop(gappy):
    r = compare_benchmark(gappy, bootstrap=0, missing_systems="drop")
    assert set(r.systems) == {f"system_0{k}" for k in range(1, 6)}
    assert result_notes_say(r, "system 'system_05' is missing from task(s) 't2', 't3'")
    assert result_notes_say(r, "missing = drop")
    assert result_notes_say(r, "friedman: complete blocks only")
    assert set(r.average_ranks["system"]) == {"system_01", "system_03", "system_04"}
    tr = r.task_ranks.set_index(["task", "system"])
    assert np.isnan(tr.loc[("t3", "system_05"), "rank"])
    assert not r.participation.set_index(["task", "system"]).loc[("t3", "system_02"), "present"]


def test_missing_last_ranks_absent_systems_last(gappy):
    r = compare_benchmark(gappy, bootstrap=20, missing_systems="last")
    tr = r.task_ranks.set_index(["task", "system"])["rank"]
    assert tr[("t3", "system_05")] == tr[("t3", "system_02")] == 4.5
    assert result_notes_say(r, "missing = last")
    np.testing.assert_allclose(r.consensus_rank_distribution.groupby(["method", "system"])["probability"].sum(), 1)


def test_missing_exclude_removes_the_systems_everywhere(gappy):
    r = compare_benchmark(gappy, bootstrap=20, missing_systems="exclude")
    assert r.systems == ("system_01", "system_03", "system_04")
    assert all(c.systems == r.systems for c in r.comparisons.values())
    assert set(r.consensus["system"]) == set(r.systems) == set(r.consensus_rank_distribution["system"])
    alone = compare(gappy.task("t1").runs.select(r.systems), bootstrap=20, seed=0)
    pd.testing.assert_frame_equal(r.comparisons["t1"].leaderboard, alone.leaderboard)


def test_weights_give_a_weighted_mean(bench):
    r = compare_benchmark(benchmark_from_data({t.name: t.runs for t in bench.tasks},
                                              settings={"t1": {"weight": 3}}), bootstrap=20)
    assert "weighted_mean_score" in set(r.consensus["method"]) and "mean_score" not in set(r.consensus["method"])
    assert "weighted_mean_score" in set(r.consensus_rank_distribution["method"])


def test_duckdb_pattern_counts_give_the_same_scores(tmp_path):
    pytest.importorskip("duckdb")
    from evalreport.counts.bigdata_tasks import count_benchmark

    data = tasks_of()
    gold = pd.concat([d.gold[["id", "label"]].assign(task=t) for t, d in data.items()])
    runs = pd.concat([f[["id", "label"]].assign(task=t, system=s) for t, d in data.items() for s, f in d.runs.items()])
    gold.to_csv(tmp_path / "gold.csv", index=False)
    runs.to_csv(tmp_path / "runs.csv", index=False)
    memory = compare_benchmark(read_benchmark(long_gold=tmp_path / "gold.csv", long_runs=tmp_path / "runs.csv"),
                               bootstrap=0)
    counted = compare_benchmark(count_benchmark(tmp_path / "gold.csv", tmp_path / "runs.csv"), bootstrap=30)
    np.testing.assert_allclose(memory.task_scores["value"], counted.task_scores["value"])
    pd.testing.assert_frame_equal(memory.consensus, counted.consensus)


# ----------------------------------------------------------------------------- output


def test_write_comparison_writes_every_table_as_csv_and_json(result, tmp_path):
    out = write_comparison(result, tmp_path / "out")
    tables = result.tables()
    assert set(BENCHMARK_TABLES) <= set(tables)
    for name, frame in tables.items():
        assert (out / f"{name}.csv").is_file() and (out / f"{name}.json").is_file(), name
        assert len(json.loads((out / f"{name}.json").read_text())) == len(frame)
    assert (out / "tasks" / "t2" / "leaderboard.csv").is_file() and (out / "tasks" / "t2" / "manifest.json").is_file()
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["tasks"] == ["t1", "t2", "t3"] and manifest["settings"]["seed"] == 3
    back = pd.read_csv(out / "consensus_rank_distribution.csv")
    np.testing.assert_allclose(back["probability"], result.consensus_rank_distribution["probability"])


def test_write_comparison_is_atomic(result, tmp_path, monkeypatch):
    import evalreport.report.write as write

    calls = {"n": 0}
    real = write.csv_frame

    def failing(frame, *a, **k):
        calls["n"] += 1
        if calls["n"] == 5:
            raise RuntimeError("disk full")
        return real(frame, *a, **k)

    target = tmp_path / "out"
    monkeypatch.setattr(write, "csv_frame", failing)
    with pytest.raises(RuntimeError, match="disk full"):
        write_comparison(result, target)
    assert not target.exists() and list(tmp_path.iterdir()) == []
    (tmp_path / "keep").mkdir()
    (tmp_path / "keep" / "mine.txt").write_text("not evalreport's")
    monkeypatch.setattr(write, "csv_frame", real)
    with pytest.raises(OutputError):
        write_comparison(result, tmp_path / "keep")
    assert (tmp_path / "keep" / "mine.txt").read_text() == "not evalreport's"


def test_unsafe_task_names_get_safe_folders(tmp_path):
    data = tasks_of(classes=(3, 3), items=(60, 60))
    b = benchmark_from_data({"../evil": _runs(data["t1"], tmp_path / "a"), "ok": _runs(data["t2"], tmp_path / "b")})
    r = compare_benchmark(b, bootstrap=0)
    out = write_comparison(r, tmp_path / "out")
    assert r.task_folders() == {"../evil": "task_1", "ok": "ok"}
    assert (out / "tasks" / "task_1" / "scores.csv").is_file() and not (tmp_path / "evil").exists()


def _runs(demo, folder: Path):
    from evalreport.inputs import read_runs

    paths = demo.write(folder)
    return read_runs(paths["gold"], runs_dir=paths["runs_dir"])


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 6), st.integers(1, 7), st.integers(0, 2 ** 32 - 1))
def test_rank_distribution_invariants(B_, S, seed):
    """Average ranks with ties -> each row a distribution whose mean position is the mean rank."""
    rng = np.random.default_rng(seed)
    scores = rng.integers(0, 3, size=(B_, S)).astype(float)          # few values: many ties
    ranks = stats.rankdata(-scores, axis=1)                          # average ranks, 1 = best
    dist = rank_distribution_of(ranks)
    np.testing.assert_allclose(dist.sum(axis=1), 1.0)
    np.testing.assert_allclose(dist @ np.arange(1, S + 1), ranks.mean(axis=0))
    np.testing.assert_allclose(dist.sum(axis=0), 1.0)                # every position is someone's


def test_task_names_from_data_are_guarded_in_csv(tmp_path):
    data = tasks_of(classes=(3, 3), items=(50, 50))
    b = benchmark_from_data({"=cmd()": _runs(data["t1"], tmp_path / "a"), "t2": _runs(data["t2"], tmp_path / "b")})
    r = compare_benchmark(b, bootstrap=0)
    out = write_comparison(r, tmp_path / "out")
    cells = pd.read_csv(out / "task_scores.csv")["task"]
    assert set(cells) == {"'=cmd()", "t2"}
    assert {row["task"] for row in json.loads((out / "task_scores.json").read_text())} == {"=cmd()", "t2"}
