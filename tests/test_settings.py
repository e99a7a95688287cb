"""One frozen Settings object: validated once, merged with a task file, handed down unchanged from
the command line to compare, the report builders and the benchmark."""
from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from evalreport.cli import main
from evalreport.errors import InputError
from evalreport.inputs.settings import Settings, SettingsError
from evalreport.inputs.taskfile import load_task_file

ROOT = Path(__file__).resolve().parents[1]
STANCE = ROOT / "examples" / "stance"


def test_settings_are_frozen_and_replace_makes_a_validated_copy():
    s = Settings(primary="mcc", bootstrap=200)
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.seed = 3        # type: ignore[misc]
    t = s.replace(seed=3)
    assert (s.seed, t.seed, t.primary, t.bootstrap) == (0, 3, "mcc", 200)
    with pytest.raises(SettingsError, match="seed must be an integer >= 0; got -1"):
        s.replace(seed=-1)
    with pytest.raises(TypeError, match="unknown setting"):
        s.replace(bootstrapp=3)


@pytest.mark.parametrize("field,value,words", [
    ("alpha", 1.5, "alpha must be a number strictly between 0 and 1; got 1.5"),
    ("bootstrap", -5, "bootstrap must be an integer >= 0; got -5"),
    ("bootstrap", True, "bootstrap must be an integer >= 0; got True"),
    ("policy", "maybe", "policy must be one of nan, zero, one, convention"),
    ("pairwise_test", "t", "pairwise_test must be one of bootstrap, randomization"),
    ("formats", ("html", "docx"), "formats must be a list of html, pdf"),
    ("missing_systems", "ignore", "missing_systems must be one of drop, last, exclude"),
    ("calibration_reference", 1.0, "calibration_reference must be uniform, mean or a prevalence"),
])
def test_a_bad_value_is_refused_with_the_task_files_words(field, value, words):
    with pytest.raises(SettingsError) as info:
        Settings(**{field: value})
    assert words in str(info.value)
    assert [name for name, _, _ in info.value.problems] == [field]


def test_every_bad_field_is_named_at_once():
    with pytest.raises(SettingsError) as info:
        Settings(alpha=0, seed=-1)
    assert sorted(name for name, _, _ in info.value.problems) == ["alpha", "seed"]


def test_values_are_normalised_once():
    import numpy as np

    s = Settings(measures=["mcc", "k"], formats="html", bootstrap=np.int64(5), bootstrap_strata="none")
    assert s.measures == ("mcc", "k") and s.formats == ("html",) and s.bootstrap_strata is None
    assert type(s.bootstrap) is int
    assert json.loads(json.dumps(s.record()))["measures"] == ["mcc", "k"]


def test_coerce_takes_settings_or_nothing_and_shorthands():
    base = Settings(seed=4)
    assert Settings.coerce(base) is base
    assert Settings.coerce(None) == Settings()
    assert Settings.coerce(base, bootstrap=0) == Settings(seed=4, bootstrap=0)
    with pytest.raises(TypeError, match="must be a Settings"):
        Settings.coerce({"seed": 4})


def test_from_task_merges_the_file_under_the_options(tmp_path):
    task = tmp_path / "task.toml"
    task.write_text('primary = "mcc"\nseed = 9\nbootstrap = 50\nbootstrap_strata = "gold"\nid_col = "item"\n'
                    'labels = ["a", "b"]\n', encoding="utf-8")
    spec = load_task_file(task)
    s = Settings.from_task(spec, bootstrap=20)
    assert (s.primary, s.seed, s.bootstrap, s.bootstrap_strata) == ("mcc", 9, 20, "gold")
    with pytest.raises(SettingsError, match="alpha"):
        Settings.from_task(spec, alpha=2.0)


def test_unset_fields_take_the_defaults_of_the_data():
    from conftest import make_runs, multilabel_runs

    from evalreport.analyses.compare import compare

    single = compare(make_runs(list("aabbc"), {"x": list("abbbc"), "y": list("aabcc")}, ("a", "b", "c")),
                     bootstrap=0)
    gold = [[1, 0], [0, 1], [1, 1], [0, 0]]
    flipped = [[0, 1], [1, 0], [0, 0], [1, 1]]
    sets = compare(multilabel_runs(gold, [gold, flipped], ("p", "q"), ("x", "y")), bootstrap=0, audit=False)
    assert (single.primary, single.settings["baseline_samples"]) == ("macro_f1", 2000)
    assert (sets.primary, sets.settings["baseline_samples"]) == ("f1_macro", 200)


# ----------------------------------------------------------------------------- handed down


def test_analyse_under_settings_writes_what_its_keywords_write(tmp_path):
    from evalreport.inputs import read_runs
    from evalreport.report.build import analyse

    runs = read_runs(STANCE / "gold.tsv", runs_dir=STANCE / "runs")
    analyse(runs, tmp_path / "a", Settings(primary="k", bootstrap=30, seed=2, audit=False))
    analyse(runs, tmp_path / "b", primary="k", bootstrap=30, seed=2, audit=False)
    files = sorted(p.name for p in (tmp_path / "a").iterdir())
    assert "leaderboard.csv" in files and files == sorted(p.name for p in (tmp_path / "b").iterdir())
    for name in ("leaderboard.csv", "scores.csv", "pairwise.csv", "what_if.csv"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes(), name


def test_compare_benchmark_applies_each_tasks_own_settings(tmp_path):
    from evalreport.analyses.benchmark import compare_benchmark
    from evalreport.inputs import read_runs
    from evalreport.inputs.benchmark import benchmark_from_data

    runs = read_runs(STANCE / "gold.tsv", runs_dir=STANCE / "runs")
    bench = benchmark_from_data({"one": runs, "two": runs}, settings={"two": {"primary": "mcc"}})
    result = compare_benchmark(bench, Settings(primary="accuracy", bootstrap=0))
    assert {t: c.primary for t, c in result.comparisons.items()} == {"one": "macro_f1", "two": "mcc"}
    assert result.settings["bootstrap"] == 0 and result.settings["baseline_samples"] == 2000


# ----------------------------------------------------------------------------- the command line


@pytest.mark.parametrize("bad,words", [
    (["--alpha", "2"], "--alpha must be a number strictly between 0 and 1; got 2"),
    (["--bootstrap", "-5"], "--bootstrap must be an integer >= 0; got -5"),
    (["--seed", "-1", "--alpha", "0"], "--seed must be an integer >= 0; got -1; "
                                       "--alpha must be a number strictly between 0 and 1; got 0"),
])
def test_a_bad_option_is_one_line_naming_it(tmp_path, capsys, bad, words):
    out = tmp_path / "out"
    code = main(["compare", str(STANCE / "gold.tsv"), "--runs-dir", str(STANCE / "runs"), "--out", str(out), *bad])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and err[0].startswith("evalreport: error: ") and words in err[0]
    assert not out.exists()


def test_a_bad_task_file_value_that_the_schema_admits_is_named_by_its_option(tmp_path, capsys):
    task = tmp_path / "task.toml"
    task.write_text("bootstrap = 10\n", encoding="utf-8")
    code = main(["report", str(STANCE / "gold.tsv"), "--runs-dir", str(STANCE / "runs"), "--task-file", str(task),
                 "-o", str(tmp_path / "r"), "--formats", "docx"])
    assert code == 2 and "--formats" in capsys.readouterr().err


def test_the_command_line_makes_one_settings_object(monkeypatch, tmp_path):
    """compare: the task file's keys under the options, the matrices it read, handed to the comparison."""
    import evalreport.analyses.compare as comparing

    seen = []
    real = comparing.compare

    def spy(data, settings=None, *, progress=None, **changes):
        seen.append(settings)
        return real(data, settings, progress=progress, **changes)

    monkeypatch.setattr(comparing, "compare", spy)
    task = tmp_path / "task.toml"
    task.write_text('primary = "mcc"\nseed = 5\nbootstrap = 40\n', encoding="utf-8")
    assert main(["compare", str(STANCE / "gold.tsv"), "--runs-dir", str(STANCE / "runs"), "--task-file", str(task),
                 "--bootstrap", "20", "--no-progress", "--format", "csv"]) == 0
    (s,) = seen
    assert isinstance(s, Settings) and (s.primary, s.seed, s.bootstrap, s.progress) == ("mcc", 5, 20, False)


def test_the_scorers_bad_settings_are_the_organisers(tmp_path, capsys):
    (tmp_path / "in" / "ref").mkdir(parents=True)
    (tmp_path / "in" / "res").mkdir()
    code = main(["codabench", str(tmp_path / "in"), str(tmp_path / "out"), "--alpha", "1.5"])
    err = capsys.readouterr().err
    assert code == 3 and "--alpha must be" in err and "task configuration error" in err


def test_input_error_is_the_base():
    assert issubclass(SettingsError, InputError)
