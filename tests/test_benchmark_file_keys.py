"""Benchmark-file keys are honoured or refused, never ignored (organiser review, item 3).

docs/plugins.md: a benchmark file "takes any task key at its top level as a default of every
task". The keys that hold for the whole benchmark (title, seed, bootstrap, alpha, policy,
plugins) become the defaults of the command's options (the command line still wins); such a
key set differently for one task, and keys a benchmark has no use for (order, gains, what_if),
are one error line naming the task and the key, exit status 2, nothing written.
"""
from __future__ import annotations

import json

import numpy as np
import pytest
from conftest import write_run_files

from evalreport.cli import main
from evalreport.errors import InputError
from evalreport.inputs.benchmark import read_benchmark


def _task(folder, name, seed, n=30, systems=("a", "b", "c")):
    rng = np.random.default_rng(seed)
    labels = np.array(["x", "y", "z"])
    gold = labels[rng.integers(0, 3, n)]
    preds = {s: np.where(rng.random(n) < 0.5 + 0.1 * j, gold, labels[rng.integers(0, 3, n)])
             for j, s in enumerate(systems)}
    write_run_files(folder / name, gold, preds, runs_dir="runs")


@pytest.fixture()
def tasks(tmp_path):
    for k, name in enumerate(("one", "two")):
        _task(tmp_path, name, k)
    return tmp_path


def _file(tasks, top: str, per_task: str = "") -> str:
    text = top + "".join(f'[tasks.{n}]\ngold = "{n}/gold.tsv"\nruns = "{n}/runs"\n' + (per_task if n == "two" else "")
                         for n in ("one", "two"))
    (tasks / "bench.toml").write_text(text)
    return str(tasks / "bench.toml")


def test_top_level_benchmark_keys_are_read_into_settings(tasks):
    path = _file(tasks, 'title = "Shared task <2026>"\nseed = 5\nbootstrap = 20\nalpha = 0.1\npolicy = "zero"\n')
    b = read_benchmark(benchmark_file=path)
    assert b.settings == {"title": "Shared task <2026>", "seed": 5, "bootstrap": 20, "alpha": 0.1, "policy": "zero"}
    assert b.notes == ()


@pytest.mark.parametrize("per_task, key", [("seed = 3\n", "seed"), ("bootstrap = 10\n", "bootstrap"),
                                           ('title = "x"\n', "title"), ('policy = "one"\n', "policy")])
def test_a_benchmark_wide_key_set_for_one_task_is_refused_naming_the_task(tasks, per_task, key):
    path = _file(tasks, "seed = 5\n", per_task)
    with pytest.raises(InputError, match=f"task 'two': key '{key}' holds for the whole benchmark"):
        read_benchmark(benchmark_file=path)


@pytest.mark.parametrize("key, value", [("order", '["x", "y", "z"]'), ("what_if", '["x=1"]'), ("gains", '"g.csv"')])
def test_keys_a_benchmark_cannot_use_are_refused(tasks, key, value):
    with pytest.raises(InputError, match=f"key '{key}' is not supported in a benchmark file"):
        read_benchmark(benchmark_file=_file(tasks, f"{key} = {value}\n"))
    with pytest.raises(InputError, match=f"task 'two': key '{key}' is not supported"):
        read_benchmark(benchmark_file=_file(tasks, "", f"{key} = {value}\n"))


def test_the_cli_honours_top_level_title_seed_bootstrap_and_the_command_line_wins(tasks, capsys):
    path = _file(tasks, 'title = "SharedTask <2026> & $x$"\nseed = 5\nbootstrap = 20\nalpha = 0.1\n')
    out = tasks / "out"
    assert main(["benchmark", "--benchmark-file", path, "-o", str(out), "--formats", "html", "--quiet",
                 "--no-audit", "--engine", "builtin"]) == 0
    meta = json.loads((out / "tables" / "report.json").read_text())
    assert (meta["title"], meta["seed"], meta["bootstrap"], meta["alpha"]) == ("SharedTask <2026> & $x$", 5, 20, 0.1)
    out2 = tasks / "out2"
    assert main(["benchmark", "--benchmark-file", path, "-o", str(out2), "--formats", "html", "--quiet",
                 "--no-audit", "--engine", "builtin", "--seed", "7", "--title", "Mine"]) == 0
    meta = json.loads((out2 / "tables" / "report.json").read_text())
    assert (meta["title"], meta["seed"], meta["bootstrap"]) == ("Mine", 7, 20)


def test_the_cli_refuses_a_per_task_seed_with_status_2_and_writes_nothing(tasks, capsys):
    path = _file(tasks, "", "seed = 3\n")
    out = tasks / "out"
    assert main(["benchmark", "--benchmark-file", path, "-o", str(out), "--quiet"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "task 'two': key 'seed' holds for the whole benchmark" in err[0]
    assert not out.exists()


def test_every_benchmark_measure_error_names_its_task(tasks, capsys):
    """Organiser review, item 9: an unknown class of a class-subset primary, a binary measure
    without its positive class and an ordinal one without an order name the task; nothing is
    computed first (the check is a dry run on each task's class set)."""
    _task(tasks, "three", 9)
    (tasks / "three" / "gold.tsv").write_text((tasks / "three" / "gold.tsv").read_text().replace("\tz", "\tw"))
    for r in (tasks / "three" / "runs").iterdir():
        r.write_text(r.read_text().replace("\tz", "\tw"))
    for primary, words in (("macro_f1(classes=x|z)", "unknown class 'z'"), ("fbeta(beta=2)", "positive class"),
                           ("mae", "order")):
        code = main(["benchmark", str(tasks), "--primary", primary, "-o", str(tasks / "o"), "--quiet"])
        err = capsys.readouterr().err
        assert code == 2 and "task '" in err and words in err, err
        if primary.startswith("macro_f1"):
            assert "task 'three'" in err
    assert not (tasks / "o").exists()


def test_compare_benchmark_names_the_task_of_a_measure_error(tasks):
    from evalreport.analyses.benchmark import compare_benchmark

    b = read_benchmark(tasks, defaults={"primary": "fbeta(beta=2)"})
    with pytest.raises(Exception, match="task 'one': .*positive"):
        compare_benchmark(b, bootstrap=0)


def test_plugins_of_a_task_table_are_loaded_once_with_the_command_line_s(tasks, clean_registry):
    """docs/plugins.md's benchmark example puts `plugins` in a task's table: loaded for the whole
    benchmark (and recorded), in order, each file once."""
    from evalreport.cli import build_parser
    from evalreport.cli.common import prepare
    from evalreport.measures import get

    plugin = tasks / "bench_plugin_measure.py"
    plugin.write_text(
        "from evalreport.measures import Measure, register\n"
        "def fn(C, ctx):\n    import numpy as np\n"
        "    return ctx.div(np.trace(C, axis1=-2, axis2=-1), C.sum(axis=(-2, -1)), 'no items')\n"
        "register(Measure(id='bench_file_plugin_acc', label='Plugin accuracy', fn=fn, source='test',\n"
        "                 formula='sum c_ii / n', range=(0.0, 1.0), higher_is_better=True))\n")
    path = _file(tasks, "seed = 5\n", 'plugins = ["bench_plugin_measure.py"]\nprimary = "bench_file_plugin_acc"\n')
    argv = ["benchmark", "--benchmark-file", path, "-o", str(tasks / "o")]
    parser = build_parser(argv)
    args = prepare(parser, parser.parse_args(argv), argv)
    assert [str(p) for p in args.plugin] == [str(plugin)] and args.seed == 5
    assert get("bench_file_plugin_acc").label == "Plugin accuracy"
    b = read_benchmark(benchmark_file=path)
    assert b.task("two").primary == "bench_file_plugin_acc" and b.settings["plugins"] == [str(plugin)]
