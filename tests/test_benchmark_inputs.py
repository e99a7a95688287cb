"""Benchmark inputs: every input form gives the same Benchmark, every bad input one
clear InputError naming the task and the file, and the DuckDB long-table path counts what the
in-memory path reads."""
from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from evalreport.errors import InputError
from evalreport.examples import benchmark_demo_data, shared_task_data, write_benchmark
from evalreport.inputs.benchmark import Benchmark, parse_task_spec, read_benchmark

# ----------------------------------------------------------------------------- data


def small_tasks(*, drop: dict | None = None) -> dict:
    """Three tasks: two share a 3-class set, one has 4 classes; ``drop``: task -> systems left out."""
    tasks = {"alpha": shared_task_data(n_systems=4, n_classes=3, n_items=80, seed=1),
             "beta": shared_task_data(n_systems=4, n_classes=3, n_items=60, seed=2),
             "gamma": shared_task_data(n_systems=4, n_classes=4, n_items=70, seed=3)}
    for task, gone in (drop or {}).items():
        for s in gone:
            del tasks[task].runs[s]
    return tasks


def write_long(tasks: dict, folder, ext: str = "tsv"):
    """The tasks as one long gold table (task, id, label) and one long runs table (task, system, id, label)."""
    sep = "\t" if ext == "tsv" else ","
    gold = pd.concat([d.gold[["id", "label"]].assign(task=t) for t, d in tasks.items()], ignore_index=True)
    runs = pd.concat([f[["id", "label"]].assign(task=t, system=s) for t, d in tasks.items() for s, f in d.runs.items()],
                     ignore_index=True)
    folder.mkdir(parents=True, exist_ok=True)
    g, r = folder / f"gold.{ext}", folder / f"runs.{ext}"
    gold[["task", "id", "label"]].to_csv(g, sep=sep, index=False)
    runs[["task", "system", "id", "label"]].to_csv(r, sep=sep, index=False)
    return g, r


def same(a: Benchmark, b: Benchmark, *, items: bool = True):
    assert a.names == b.names and a.systems == b.systems
    for ta, tb in zip(a.tasks, b.tasks):
        assert (ta.name, ta.systems, ta.labels, ta.primary, ta.positive, ta.weight) == \
               (tb.name, tb.systems, tb.labels, tb.primary, tb.positive, tb.weight)
        if items:
            np.testing.assert_array_equal(ta.runs.gold, tb.runs.gold)
            np.testing.assert_array_equal(ta.runs.pred, tb.runs.pred)
            np.testing.assert_array_equal(ta.runs.ids, tb.runs.ids)


@pytest.fixture
def folder(tmp_path):
    return write_benchmark(small_tasks(), tmp_path / "tasks")


# ----------------------------------------------------------------------------- forms


def test_folder_reads_every_task_with_its_own_class_set(folder):
    b = read_benchmark(folder)
    assert b.names == ("alpha", "beta", "gamma")
    assert b.systems == ("system_01", "system_02", "system_03", "system_04")
    assert b.task("gamma").labels == ("class_a", "class_b", "class_c", "class_d")
    assert b.task("alpha").labels == ("class_a", "class_b", "class_c")
    assert b.task("alpha").runs.n_items == 80 and b.task("beta").runs.n_items == 60
    assert b.participation["present"].all() and len(b.participation) == 12
    assert {s.role for s in b.sources} == {"gold", "run"} and len(b.sources) == 3 * 5


def test_every_input_form_gives_the_same_benchmark(folder, tmp_path):
    by_folder = read_benchmark(folder)
    specs = [f"{n}={folder / n / 'gold.tsv'}:{folder / n / 'runs'}" for n in ("alpha", "beta", "gamma")]
    same(by_folder, read_benchmark(tasks=specs))
    same(by_folder, read_benchmark(tasks=[f"{n}={folder / n / 'gold.tsv'}" for n in ("alpha", "beta", "gamma")]))
    g, r = write_long(small_tasks(), tmp_path / "long")
    same(by_folder, read_benchmark(long_gold=g, long_runs=r))
    g2, r2 = write_long(small_tasks(), tmp_path / "long_csv", "csv")
    same(by_folder, read_benchmark(long_gold=g2, long_runs=r2))
    toml = tmp_path / "bench.toml"
    toml.write_text("".join(f'[tasks.{n}]\ngold = "{folder / n / "gold.tsv"}"\nruns = "{folder / n / "runs"}"\n'
                            for n in ("alpha", "beta", "gamma")))
    same(by_folder, read_benchmark(benchmark_file=toml))


def test_benchmark_file_settings_weights_and_missing_policy(folder, tmp_path):
    toml = tmp_path / "bench.toml"
    toml.write_text('primary = "mcc"\nmissing_systems = "last"\n'
                    f'[tasks.alpha]\ngold = "{folder / "alpha" / "gold.tsv"}"\nruns = "{folder / "alpha" / "runs"}"\n'
                    'weight = 2.5\nprimary = "accuracy"\n'
                    f'[tasks.gamma]\ngold = "{folder / "gamma" / "gold.tsv"}"\nruns = "{folder / "gamma" / "runs"}"\n'
                    'positive = "class_d"\n')
    b = read_benchmark(benchmark_file=toml)
    assert b.notes == () and b.settings == {}
    assert b.names == ("alpha", "gamma") and b.missing == "last"
    assert (b.task("alpha").primary, b.task("alpha").weight) == ("accuracy", 2.5)
    assert (b.task("gamma").primary, b.task("gamma").positive, b.task("gamma").weight) == ("mcc", "class_d", 1.0)


def test_settings_and_defaults_apply_per_task(folder):
    b = read_benchmark(folder, defaults={"primary": "kappa"},
                       settings={"beta": {"primary": "accuracy", "weight": 3, "measures": "accuracy,mcc"}})
    assert [t.primary for t in b.tasks] == ["kappa", "accuracy", "kappa"]
    assert b.task("beta").weight == 3.0 and b.task("beta").measures == ("accuracy", "mcc")


def test_task_spec_parsing(tmp_path):
    assert parse_task_spec("t1=/d/gold.tsv") == ("t1", tmp_path.__class__("/d/gold.tsv"),
                                                 tmp_path.__class__("/d/runs"))
    name, gold, runs = parse_task_spec("t1=/d/gold.tsv:/e/runs")
    assert (name, str(gold), str(runs)) == ("t1", "/d/gold.tsv", "/e/runs")
    with pytest.raises(InputError, match="NAME=GOLD"):
        parse_task_spec("no-equals-sign")


def test_missing_systems_are_named_in_participation(tmp_path):
    folder = write_benchmark(small_tasks(drop={"beta": ["system_02"], "gamma": ["system_02", "system_04"]}),
                             tmp_path / "tasks")
    b = read_benchmark(folder)
    assert b.systems == ("system_01", "system_02", "system_03", "system_04")
    assert b.missing_systems == {"system_02": ("beta", "gamma"), "system_04": ("gamma",)}
    assert b.complete_systems == ("system_01", "system_03")
    p = b.participation.set_index(["task", "system"])["present"]
    assert not p[("gamma", "system_04")] and p[("alpha", "system_04")] and p.sum() == 12 - 3


def test_demo_benchmark_is_deterministic(tmp_path):
    """(Its time is measured in benchmarks/, never asserted in a unit test.)"""
    first = benchmark_demo_data(seed=0)
    b = read_benchmark(write_benchmark(first, tmp_path / "demo"))
    assert set(b.names) == {"digits", "iris", "wine", "breast_cancer", "synthetic_easy", "synthetic_hard"}
    assert len(b.systems) == 13 and not b.missing_systems
    assert b.task("iris").labels == ("setosa", "versicolor", "virginica")
    assert b.task("synthetic_easy").labels == b.task("synthetic_hard").labels
    again = benchmark_demo_data(seed=0, tasks=("iris", "synthetic_hard"))
    for name in ("iris", "synthetic_hard"):
        pd.testing.assert_frame_equal(first[name].gold, again[name].gold)
        for s in first[name].runs:
            pd.testing.assert_frame_equal(first[name].runs[s], again[name].runs[s])


# ----------------------------------------------------------------------------- errors


def test_task_folder_without_gold(folder):
    (folder / "beta" / "gold.tsv").unlink()
    with pytest.raises(InputError, match=r"task 'beta': no gold file") as e:
        read_benchmark(folder)
    assert e.value.path == str(folder / "beta")


def test_task_without_runs(folder, tmp_path):
    for f in (folder / "gamma" / "runs").iterdir():
        f.unlink()
    with pytest.raises(InputError, match=r"task 'gamma': no runs") as e:
        read_benchmark(folder)
    assert e.value.path == str(folder / "gamma" / "runs")
    (folder / "gamma" / "runs").rmdir()
    with pytest.raises(InputError, match=r"task 'gamma': no runs"):
        read_benchmark(folder)
    g, r = write_long(small_tasks(), tmp_path / "long")
    runs = pd.read_csv(r, sep="\t")
    runs[runs["task"] != "beta"].to_csv(r, sep="\t", index=False)
    with pytest.raises(InputError, match=r"task 'beta': no runs") as e:
        read_benchmark(long_gold=g, long_runs=r)
    assert e.value.path == str(r)


def test_system_names_that_differ_only_in_case(folder):
    runs = folder / "gamma" / "runs"
    (runs / "system_03.tsv").rename(runs / "SYSTEM_03.tsv")
    with pytest.raises(InputError) as e:
        read_benchmark(folder)
    msg = str(e.value)
    assert "'system_03'" in msg and "'SYSTEM_03'" in msg and "'alpha', 'beta'" in msg and "'gamma'" in msg
    assert "differ only in case" in msg and e.value.path == str(runs / "SYSTEM_03.tsv")


def test_empty_benchmark(tmp_path):
    (tmp_path / "empty").mkdir()
    with pytest.raises(InputError, match="empty benchmark") as e:
        read_benchmark(tmp_path / "empty")
    assert e.value.path == str(tmp_path / "empty")
    with pytest.raises(InputError, match="empty benchmark"):
        Benchmark(tasks=())


def test_two_tasks_with_one_name(folder):
    with pytest.raises(InputError, match="two tasks are named 'alpha'"):
        read_benchmark(tasks=[f"alpha={folder / 'alpha' / 'gold.tsv'}", f"alpha={folder / 'beta' / 'gold.tsv'}"])


def test_a_tasks_class_problem_names_task_file_and_line(folder, tmp_path):
    run = folder / "beta" / "runs" / "system_03.tsv"
    frame = pd.read_csv(run, sep="\t", dtype=str)
    frame.loc[6, "label"] = "class_z"
    frame.to_csv(run, sep="\t", index=False)
    with pytest.raises(InputError) as e:
        read_benchmark(folder)
    assert e.value.path == str(run) and e.value.line == 8
    assert str(e.value).startswith(f"{run}, line 8") and "task 'beta': predicted label 'class_z' is not a class" in str(e.value)


def test_long_table_errors_name_the_long_file_and_its_line(tmp_path):
    g, r = write_long(small_tasks(), tmp_path / "long")
    runs = pd.read_csv(r, sep="\t", dtype=str)
    row = int(np.flatnonzero((runs["task"] == "gamma") & (runs["system"] == "system_02"))[5])
    runs.loc[row, "label"] = "class_q"
    runs.to_csv(r, sep="\t", index=False)
    with pytest.raises(InputError) as e:
        read_benchmark(long_gold=g, long_runs=r)
    assert e.value.path == str(r) and e.value.line == row + 2
    assert "task 'gamma'" in str(e.value) and "class_q" in str(e.value) and "evalreport-benchmark" not in str(e.value)


def test_unknown_setting_and_unknown_task_fail_loudly(folder):
    with pytest.raises(InputError, match=r"unknown key\(s\) 'primry'"):
        read_benchmark(folder, settings={"alpha": {"primry": "mcc"}})
    with pytest.raises(InputError, match=r"task\(s\) 'delta'"):
        read_benchmark(folder, settings={"delta": {"primary": "mcc"}})
    with pytest.raises(InputError, match="weight must be"):
        read_benchmark(folder, settings={"alpha": {"weight": -1}})


def test_exactly_one_form(folder):
    with pytest.raises(InputError, match="exactly one"):
        read_benchmark(folder, tasks=[f"a={folder / 'alpha' / 'gold.tsv'}"])
    with pytest.raises(InputError, match="exactly one"):
        read_benchmark()


# ----------------------------------------------------------------------------- DuckDB


def test_duckdb_long_table_equals_the_memory_path(tmp_path):
    pytest.importorskip("duckdb")
    from evalreport.counts import count
    from evalreport.counts.bigdata_tasks import count_benchmark

    tasks = small_tasks(drop={"gamma": ["system_04"]})
    g, r = write_long(tasks, tmp_path / "long")
    memory = read_benchmark(long_gold=g, long_runs=r, settings={"gamma": {"primary": "mcc"}})
    out_of_core = count_benchmark(g, r, settings={"gamma": {"primary": "mcc"}})
    same(memory, out_of_core, items=False)
    for tm, td in zip(memory.tasks, out_of_core.tasks):
        np.testing.assert_array_equal(count(tm.runs).tensor, td.runs.confusion().tensor)
        assert td.runs.n_items == tm.runs.n_items
    assert out_of_core.task("gamma").primary == "mcc"
    assert out_of_core.missing_systems == {"system_04": ("gamma",)}


def test_duckdb_errors_name_the_task_and_the_long_file(tmp_path):
    pytest.importorskip("duckdb")
    from evalreport.counts.bigdata_tasks import count_benchmark

    g, r = write_long(small_tasks(), tmp_path / "long")
    runs = pd.read_csv(r, sep="\t", dtype=str)
    runs.loc[(runs["task"] == "beta").to_numpy().nonzero()[0][3], "label"] = "class_q"
    runs.to_csv(r, sep="\t", index=False)
    with pytest.raises(InputError) as e:
        count_benchmark(g, r)
    assert "task 'beta'" in str(e.value) and "class_q" in str(e.value) and e.value.path == str(r)
    assert not re.search(r"evalreport-benchmark|\.parquet", str(e.value))


def test_task_spec_with_a_missing_gold_file_names_the_gold_file(tmp_path):
    """`--task a=GOLD` with no such GOLD: the gold file is named (before its runs/ folder beside it)."""
    gold = tmp_path / "nope" / "gold.tsv"
    with pytest.raises(InputError, match=r"task 'a': gold file not found") as e:
        read_benchmark(tasks=[f"a={gold}"])
    assert e.value.path == str(gold)
