"""What the benchmark overview says about consensus ties, mixed measures, gaps and task folders
(organiser review, items 2, 10 and 12), from tables written by :func:`analyse_benchmark`."""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from conftest import item_ids, make_runs

from evalreport.inputs.benchmark import benchmark_from_data
from evalreport.report.benchmark_build import analyse_benchmark
from evalreport.report.sections import open_report

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

N = 120
LABELS = ("a", "b", "c")


def _noisy(gold, wrong: int, shift: int = 1):
    out = gold.copy()
    out[:wrong] = (gold[:wrong] + shift) % 3
    return out


@pytest.fixture(scope="module")
def split(tmp_path_factory):
    """The review's 2-task case: IR-run2 wins task 1, IRx-run2 wins task 2, a third system is
    behind both; a byte-identical copy of the third system is added."""
    gold = np.arange(N) % 3
    t1 = make_runs(gold, {"IR-run2": _noisy(gold, 5), "IRx-run2": _noisy(gold, 15), "other": _noisy(gold, 40),
                           "other-copy": _noisy(gold, 40)}, LABELS, ids=item_ids(len(gold)))
    t2 = make_runs(gold, {"IR-run2": _noisy(gold, 15), "IRx-run2": _noisy(gold, 4), "other": _noisy(gold, 45),
                           "other-copy": _noisy(gold, 45)}, LABELS, ids=item_ids(len(gold)))
    tables = tmp_path_factory.mktemp("split") / "tables"
    analyse_benchmark(benchmark_from_data({"../evil/<b>x</b>": t1, "Track A": t2}), tables, bootstrap=30, seed=0,
                      audit=False)
    return tables


def test_kemeny_ties_the_split_winners_and_the_identical_runs(split):
    cons = pd.read_csv(split / "consensus.csv")
    k = cons[cons["method"] == "kemeny"].set_index("system")["rank"]
    assert k["IR-run2"] == k["IRx-run2"] == 1.5
    for method, g in cons.groupby("method"):          # identical runs tie under every method
        r = g.set_index("system")["rank"]
        assert r["other"] == r["other-copy"], method


def test_findings_and_disagreements_call_a_kemeny_tie_a_tie(split):
    rep = open_report(split)
    text = rep.benchmark_findings().text
    text = text.replace("\\-", "-")                       # Markdown escapes of the names
    assert "Kemeny: IR-run2 and IRx-run2 (tied)" in text
    assert "Kemeny: IR-run2;" not in text and "Kemeny: IR-run2." not in text
    dis = rep.disagreements_table().df
    row = dis[(dis["system A"].isin(["IR-run2", "IRx-run2"])) & (dis["system B"].isin(["IR-run2", "IRx-run2"]))]
    if len(row):
        assert "Kemeny" not in row["A ahead by"].iloc[0] + row["B ahead by"].iloc[0]
        assert "Kemeny" in row["tied by"].iloc[0]


def test_task_folders_map_back_to_tasks(split):
    index = pd.read_csv(split / "tasks" / "index.csv")
    assert dict(zip(index["task"], index["folder"])) == {"../evil/<b>x</b>": "task_1", "Track A": "task_2"}
    assert json.loads((split / "tasks" / "index.json").read_text()) == [
        {"task": "../evil/<b>x</b>", "folder": "task_1"}, {"task": "Track A", "folder": "task_2"}]
    table = open_report(split).tasks_table()
    assert list(table.df["tables folder"]) == ["task_1", "task_2"] and "tasks/index.csv" in table.caption


@pytest.fixture(scope="module")
def mixed(tmp_path_factory):
    """Three tasks with two primary measures, one system missing from a task, policy last."""
    rng = np.random.default_rng(4)
    data = {}
    for t in ("A", "B", "C"):
        gold = rng.integers(0, 3, N)
        preds = {s: np.where(rng.random(N) < p, gold, rng.integers(0, 3, N))
                 for s, p in (("s1", 0.9), ("s2", 0.7), ("s3", 0.5))}
        if t == "C":
            preds.pop("s1")
        data[t] = make_runs(gold, preds, LABELS, ids=item_ids(len(gold)))
    bench = benchmark_from_data(data, settings={"B": {"primary": "mcc"}}, missing="last")
    tables = tmp_path_factory.mktemp("mixed") / "tables"
    analyse_benchmark(bench, tables, bootstrap=0, seed=0, audit=False)
    return tables


def test_mixed_primary_measures_are_warned_in_words(mixed):
    rep = open_report(mixed)
    text = rep.benchmark_findings().text
    text = text.replace("\\-", "-")
    assert "**Warning: the tasks have different primary measures**" in text
    assert "Matthews" in text and "in B" in text
    assert "different primary measures" in rep.consensus_table().caption


def test_the_last_policy_is_explained_where_the_rank_appears(mixed):
    rep = open_report(mixed)
    table = rep.consensus_table()
    assert table.df.loc["s1", "tasks"] == "2 of 3" and table.df.loc["s2", "tasks"] == "3 of 3"
    assert "policy last" in table.caption and "comes after every complete system" in table.caption
    cons = pd.read_csv(mixed / "consensus.csv")
    assert cons[(cons["method"] == "mean_score") & (cons["system"] == "s1")]["rank"].iloc[0] == 3


def test_one_measure_for_every_task_gives_no_warning(split):
    rep = open_report(split)
    assert "different primary measures" not in rep.benchmark_findings().text
    assert "different primary measures" not in rep.consensus_table().caption
