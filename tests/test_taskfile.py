"""Task files and benchmark files (evalreport.inputs.taskfile, ``--task-file``): reading, paths,
the declared schema, every error message, and command-line options overriding the file."""
from __future__ import annotations

import io
import textwrap
from pathlib import Path

import pandas as pd
import pytest
from conftest import write_run_files

from evalreport.cli import main
from evalreport.errors import InputError
from evalreport.inputs.taskfile import (
    BENCHMARK_SCHEMA,
    TASK_KEYS,
    TASK_SCHEMA,
    TaskSpec,
    load_benchmark_file,
    load_task_file,
)

FULL_TOML = '''
title = "Stance detection"
primary = "macro_f1"
measures = ["accuracy", "macro_f1", "mcc"]
positive = "FAVOR"
labels = ["FAVOR", "AGAINST", "NONE"]
costs = "matrices/costs.csv"
gains = "matrices/gains.csv"
seed = 7
bootstrap = 200
alpha = 0.1
policy = "zero"
plugins = ["plugins/stance.py"]
what_if = ["FAVOR=0.5,AGAINST=0.5", {FAVOR = 1, AGAINST = 1, NONE = 2}]
id_col = "tweet"
label_col = "stance"
missing = "abstain"
allow_unknown = true
'''


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def test_every_key_of_a_toml_task_file_is_read_with_paths_resolved(tmp_path):
    spec = load_task_file(write(tmp_path / "task", "task.toml", FULL_TOML))
    assert spec == TaskSpec(
        path=tmp_path / "task" / "task.toml", title="Stance detection", primary="macro_f1",
        measures=("accuracy", "macro_f1", "mcc"), positive="FAVOR", labels=("FAVOR", "AGAINST", "NONE"),
        costs=tmp_path / "task" / "matrices" / "costs.csv", gains=tmp_path / "task" / "matrices" / "gains.csv",
        seed=7, bootstrap=200, alpha=0.1, policy="zero", plugins=(tmp_path / "task" / "plugins" / "stance.py",),
        what_if=("FAVOR=0.5,AGAINST=0.5", "FAVOR=1,AGAINST=1,NONE=2"), id_col="tweet", label_col="stance",
        missing="abstain", allow_unknown=True)
    # the schema declares exactly the documented keys
    assert set(TASK_SCHEMA["properties"]) == set(TASK_KEYS) == {f for f in TaskSpec.__dataclass_fields__} - {"path"}


def test_yaml_and_toml_give_the_same_spec(tmp_path):
    yaml_text = '''
    primary: macro_f1
    measures: [accuracy, macro_f1]
    labels: [1, 2, 3]
    positive: 2
    seed: 3
    costs: /abs/costs.csv
    '''
    toml_text = '''
    primary = "macro_f1"
    measures = ["accuracy", "macro_f1"]
    labels = [1, 2, 3]
    positive = 2
    seed = 3
    costs = "/abs/costs.csv"
    '''
    a = load_task_file(write(tmp_path, "t.yaml", yaml_text))
    b = load_task_file(write(tmp_path, "t.toml", toml_text))
    assert a.given() == b.given() == {"primary": "macro_f1", "measures": ["accuracy", "macro_f1"],
                                      "labels": ["1", "2", "3"], "positive": "2", "seed": 3,
                                      "costs": "/abs/costs.csv"}
    assert load_task_file(write(tmp_path, "empty.yml", "")) == TaskSpec(path=tmp_path / "empty.yml")


@pytest.mark.parametrize("name, text, message, line", [
    ("t.toml", 'primay = "macro_f1"\n', "unknown key 'primay'; did you mean 'primary'?", None),
    ("t.yaml", "primary: macro_f1\nmeasure: [accuracy]\n", "unknown key 'measure'; did you mean 'measures'?", None),
    ("t.toml", 'zzzz = 1\n', "unknown key 'zzzz'; valid keys: primary, measures,", None),
    ("t.toml", 'seed = "seven"\n', "key 'seed' must be an integer >= 0; got 'seven'", None),
    ("t.toml", "seed = -1\n", "key 'seed' must be an integer >= 0; got -1", None),
    ("t.toml", "alpha = 1.5\n", "key 'alpha' must be a number strictly between 0 and 1; got 1.5", None),
    ("t.toml", 'measures = "macro_f1"\n', "key 'measures' must be a list of measure ids", None),
    ("t.yaml", "labels: [yes, no]\n", "key 'labels.0' must be a list of class labels; got True", None),
    ("t.toml", 'policy = "never"\n', "key 'policy' must be one of nan, zero, one, convention; got 'never'", None),
    ("t.toml", 'allow_unknown = "yes"\n', "key 'allow_unknown' must be true or false; got 'yes'", None),
    ("t.toml", "what_if = [{a = -1}]\n", "key 'what_if.0' must be a list of class distributions", None),
    ("t.toml", 'seed = 1\nprimary = \n', "TOML syntax error: Invalid value", 2),
    ("t.toml", 'seed = 1\n\n[oops\n', "TOML syntax error", 3),
    ("t.yaml", "seed: 1\nmeasures: [a, b\n", "YAML syntax error", 3),
    ("t.yaml", "- a\n- b\n", "a task file holds a table of keys (key = value); found list", None),
    ("t.json", "{}", "unknown task-file format '.json': name it .toml, .yaml or .yml", None),
])
def test_each_error_names_the_file_and_the_problem(tmp_path, name, text, message, line):
    path = write(tmp_path, name, text)
    with pytest.raises(InputError) as err:
        load_task_file(path)
    assert err.value.path == str(path) and message in err.value.problem and err.value.line == line


def test_a_missing_task_file_is_an_error(tmp_path):
    with pytest.raises(InputError, match="task file not found"):
        load_task_file(tmp_path / "nope.toml")


@pytest.fixture
def files(tmp_path):
    write_run_files(tmp_path, "aabbccab", {"one": "aabbcaab", "two": "abbacbac"}, ids=range(8), header=("item", "y"),
                    runs_dir="runs")
    return tmp_path


def _score(args, capsys) -> pd.DataFrame:
    assert main(["score", *args, "--format", "csv"]) == 0, capsys.readouterr().err
    return pd.read_csv(io.StringIO(capsys.readouterr().out))


def test_the_file_sets_options_and_the_command_line_overrides_them(files, capsys):
    task = write(files / "conf", "task.toml", '''
        measures = ["accuracy", "f1"]
        positive = "b"
        id_col = "item"
        label_col = "y"
        ''')
    base = [str(files / "gold.tsv"), "--runs-dir", str(files / "runs"), "--task-file", str(task)]
    frame = _score(base, capsys)
    assert list(dict.fromkeys(frame["measure"])) == ["accuracy", "f1"]
    f1_b = frame.query("measure == 'f1' and system == 'one'")["value"].item()
    assert f1_b == pytest.approx(2 * 3 / (3 + 3))       # class b: TP 3, gold 3, predicted 3
    # the command line wins: another positive class and measure list
    frame = _score([*base, "--positive", "a", "--measures", "f1"], capsys)
    assert frame["measure"].tolist() == ["f1", "f1"]
    assert frame.query("system == 'one'")["value"].item() == pytest.approx(2 * 3 / (3 + 4))   # a: TP 3, gold 3, pred 4
    # an explicit value equal to argparse's default still overrides the file
    task2 = write(files / "conf", "task2.toml", 'id_col = "item"\nlabel_col = "y"\npolicy = "zero"\n')
    frame = _score([str(files / "gold.tsv"), "--runs-dir", str(files / "runs"), "--task-file", str(task2),
                    "--measures", "macro_precision", "--labels", "a,b,c,d"], capsys)
    assert frame["reason"].fillna("").str.contains("replaced by 0").any()
    frame = _score([str(files / "gold.tsv"), "--runs-dir", str(files / "runs"), "--task-file", str(task2),
                    "--measures", "macro_precision", "--labels", "a,b,c,d", "--policy", "nan"], capsys)
    assert not frame["reason"].fillna("").str.contains("replaced by 0").any()


def test_compare_takes_primary_seed_and_bootstrap_from_the_file(files, tmp_path, capsys):
    task = write(files, "task.yaml", '''
        primary: accuracy
        bootstrap: 30
        seed: 5
        alpha: 0.2
        id_col: item
        label_col: y
        ''')
    out = tmp_path / "cmp"
    assert main(["compare", str(files / "gold.tsv"), "--runs-dir", str(files / "runs"), "--task-file", str(task),
                 "--out", str(out), "--no-progress", "--format", "csv"]) == 0
    import json

    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["primary"] == "accuracy"
    settings = manifest["settings"]
    assert settings["bootstrap"] == 30 and settings["seed"] == 5 and settings["alpha"] == 0.2


def test_a_bad_task_file_is_exit_2_with_one_line(files, capsys):
    task = write(files, "task.toml", 'primry = "accuracy"\n')
    assert main(["score", str(files / "gold.tsv"), "--runs-dir", str(files / "runs"), "--task-file", str(task)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"evalreport: error: {task}: unknown key 'primry'; did you mean 'primary'?"]


BENCHMARK = '''
primary = "macro_f1"
seed = 4
missing_systems = "last"

[tasks.stance]
gold = "stance/gold.tsv"
runs = "stance/runs"
primary = "accuracy"
weight = 2

[tasks.sentiment]
gold = "/data/sentiment/gold.tsv"
runs = ["sentiment/a.tsv", "sentiment/b.tsv"]
labels = ["positive", "negative", "neutral"]
'''


def test_a_benchmark_file_merges_defaults_into_each_task_in_file_order(tmp_path):
    path = write(tmp_path / "bench", "bench.toml", BENCHMARK)
    spec = load_benchmark_file(path)
    assert spec.missing_systems == "last" and spec.defaults.primary == "macro_f1"
    assert [t.name for t in spec.tasks] == ["stance", "sentiment"]
    stance, sentiment = spec.tasks
    assert stance.spec.primary == "accuracy" and stance.spec.seed == 4 and stance.weight == 2.0
    assert stance.gold == tmp_path / "bench" / "stance" / "gold.tsv"
    assert stance.runs == tmp_path / "bench" / "stance" / "runs"
    assert sentiment.spec.primary == "macro_f1" and sentiment.weight == 1.0
    assert sentiment.spec.labels == ("positive", "negative", "neutral")
    assert sentiment.gold == Path("/data/sentiment/gold.tsv")
    assert sentiment.runs == (tmp_path / "bench" / "sentiment" / "a.tsv", tmp_path / "bench" / "sentiment" / "b.tsv")
    assert "tasks" in BENCHMARK_SCHEMA["required"]


@pytest.mark.parametrize("text, message", [
    ('primary = "x"\n', "the file lacks the key 'tasks'"),
    ('[tasks.a]\ngold = "g.tsv"\n', "[tasks.a] lacks the key 'runs'"),
    ('[tasks.a]\ngold = "g.tsv"\nruns = "r"\nwieght = 2\n', "unknown key 'wieght' in [tasks.a]; did you mean 'weight'?"),
    ('[tasks.a]\ngold = "g.tsv"\nruns = "r"\nweight = 0\n', "key 'tasks.a.weight' must be a number > 0; got 0"),
    ('[tasks.a]\ngold = "g.tsv"\nruns = []\n', "key 'tasks.a.runs' must be a folder (text) or a list of run-file"),
    ('missing_systems = "ignore"\n[tasks.a]\ngold = "g"\nruns = "r"\n',
     "key 'missing_systems' must be one of drop, last, exclude; got 'ignore'"),
    ('seed = 1.5\n[tasks.a]\ngold = "g"\nruns = "r"\n', "key 'seed' must be an integer >= 0; got 1.5"),
])
def test_benchmark_file_errors(tmp_path, text, message):
    path = write(tmp_path, "bench.toml", text)
    with pytest.raises(InputError) as err:
        load_benchmark_file(path)
    assert err.value.path == str(path) and message in err.value.problem


def test_a_command_leaves_alone_the_keys_it_has_no_option_for(tmp_path, capsys):
    task = write(tmp_path, "task.toml", 'title = "T"\npositive = "a"\npolicy = "zero"\nseed = 9\n'
                                         'measures = ["mcc"]\n')
    assert main(["measures", "--task-file", str(task), "mcc", "--format", "csv"]) == 0
    assert "mcc" in capsys.readouterr().out
    # the audit takes the measures, but not the task's policy nor its seed (they mean other things there)
    assert main(["audit", "--task-file", str(task), "--consistency", "--max-n", "3", "--format", "csv"]) == 0
    capsys.readouterr()          # (a task seed would be refused by --consistency: it is not applied)
    assert main(["audit", "--task-file", str(task), "--max-n", "3", "--classes", "2", "--format", "csv"]) == 0
    frame = pd.read_csv(io.StringIO(capsys.readouterr().out))
    assert set(frame["measure"]) == {"mcc"}
    assert main(["audit", "--measures", "mcc", "--max-n", "3", "--classes", "2", "--format", "csv"]) == 0
    pd.testing.assert_frame_equal(frame, pd.read_csv(io.StringIO(capsys.readouterr().out)))   # each paper's policy


def test_cost_and_gain_paths_are_relative_to_the_task_file(files, capsys):
    """gold aabbccab, system one predicts aabbcaab: gain 1 per correct item, 0.25 per error
    (a made-up matrix); gain_total = 7 x 1 + 1 x 0.25."""
    write(files / "conf" / "m", "gains.csv", "gold,a,b,c\na,1,0.25,0.25\nb,0.25,1,0.25\nc,0.25,0.25,1\n")
    task = write(files / "conf", "task.toml", 'gains = "m/gains.csv"\nmeasures = ["gain_total"]\n'
                                               'id_col = "item"\nlabel_col = "y"\n')
    frame = _score([str(files / "gold.tsv"), "--runs-dir", str(files / "runs"), "--task-file", str(task)], capsys)
    assert frame.query("system == 'one'")["value"].item() == pytest.approx(7.25)


def test_whole_floats_are_integers_where_an_integer_is_due(tmp_path):
    spec = load_task_file(write(tmp_path, "t.toml", "seed = 3.0\nbootstrap = 100.0\n"))
    assert spec.seed == 3 and type(spec.seed) is int and type(spec.bootstrap) is int


@pytest.mark.slow
def test_a_report_records_its_task_file_with_its_sha256(files, tmp_path, capsys):
    """A report records the task file among its inputs (tables/inputs.csv and report.json's
    provenance), as it records the data files: role ``task-file``, path, SHA-256."""
    import hashlib
    import json

    task = write(files / "conf", "task.toml", 'id_col = "item"\nlabel_col = "y"\nprimary = "accuracy"\n'
                                              'bootstrap = 20\ntitle = "Task of the test"\n')
    out = tmp_path / "rep"
    code = main(["report", str(files / "gold.tsv"), "--runs-dir", str(files / "runs"), "--task-file", str(task),
                 "--no-audit", "--formats", "html", "--quiet", "-o", str(out)])
    assert code == 0, capsys.readouterr().err
    inputs = pd.read_csv(out / "tables" / "inputs.csv", keep_default_na=False)
    row = inputs[inputs["role"] == "task-file"]
    assert row["path"].tolist() == [str(task)]
    assert row["sha256"].item() == hashlib.sha256(task.read_bytes()).hexdigest()
    assert set(inputs["role"]) == {"gold", "run", "task-file"}
    meta = json.loads((out / "tables" / "report.json").read_text(encoding="utf-8"))
    assert {"role": "task-file", "path": str(task), "sha256": row["sha256"].item(), "rows": None} \
        in meta["provenance"]["inputs"]
    assert meta["title"] == "Task of the test"
