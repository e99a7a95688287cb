"""A submission and a task file are data, never a key to anything else.

* The Codabench scorer reads nothing outside ``res/`` through a submission: a symbolic link (to
  the gold file in ``ref/``, to ``/etc/passwd``), a hard link to the gold file and a special file
  (FIFO) are submission errors that name the file and quote none of its content.
* A YAML task file with anchors and aliases ("billion laughs") is refused at once, and a file
  nested thousands of levels deep is one error line, not a RecursionError.
* Error and note lines on stderr print a file name, label or column from the data inert: no
  terminal control sequence, no line break that could forge a line of its own.
* Every CSV cell a spreadsheet would evaluate begins with ``'`` (the report reads it back as written).
"""
from __future__ import annotations

import logging
import os
import re
import textwrap
import time
from pathlib import Path

import pandas as pd
import pytest

from evalreport import escape
from evalreport.cli import main
from evalreport.errors import InputError
from evalreport.inputs.taskfile import load_benchmark_file, load_task_file

LABELS = ["FAVOR", "AGAINST", "NONE"]
GOLD = [LABELS[i % 3] for i in range(30)]
PRED = [LABELS[(i // 2) % 3] for i in range(30)]
SECRET = "SECRET-FIRST-LINE"


@pytest.fixture
def platform(tmp_path):
    """tmp_path/input/ref/gold.tsv, an empty tmp_path/input/res/ and a secret file outside both."""
    ref, res = tmp_path / "input" / "ref", tmp_path / "input" / "res"
    ref.mkdir(parents=True)
    res.mkdir()
    pd.DataFrame({"id": range(30), "label": GOLD}).to_csv(ref / "gold.tsv", sep="\t", index=False)
    (tmp_path / "secret.tsv").write_text(f"{SECRET}\tpassword\n", encoding="utf-8")
    return tmp_path


def _predictions(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    pd.DataFrame({"id": range(30), "label": PRED}).to_csv(path, sep="\t", index=False)
    return path


def _score(root: Path, capsys, *extra) -> tuple[int, str]:
    capsys.readouterr()
    code = main(["codabench", str(root / "input"), str(root / "output"), "--bootstrap", "0", *extra])
    return code, capsys.readouterr().err


def _one_error_line(err: str) -> str:
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("evalreport: error: "), err
    return lines[0]


# ----------------------------------------------------------------------------- links out of res/

@pytest.mark.parametrize("case", ["gold_relative", "gold_absolute", "secret", "linked_folder", "deep_link_beside_file"])
def test_a_link_in_the_submission_is_refused_and_nothing_it_points_to_is_read(platform, capsys, case):
    res = platform / "input" / "res"
    gold = platform / "input" / "ref" / "gold.tsv"
    if case == "gold_relative":
        (res / "pred.tsv").symlink_to("../ref/gold.tsv")
    elif case == "gold_absolute":
        (res / "pred.tsv").symlink_to(gold)
    elif case == "secret":
        (res / "pred.tsv").symlink_to(platform / "secret.tsv")
    elif case == "linked_folder":           # a zip that held a folder, the folder a link to ref/
        (res / "team").symlink_to(platform / "input" / "ref", target_is_directory=True)
    else:                                    # a real submission, and a link the scorer would never pick
        _predictions(res / "pred.tsv")
        (res / "extra").mkdir()
        (res / "extra" / "p.tsv").symlink_to(platform / "secret.tsv")
    code, err = _score(platform, capsys)
    line = _one_error_line(err)
    assert code == 2 and "submission error" in line and "is a symbolic link" in line
    assert SECRET not in line and "password" not in line and "FAVOR" not in line
    assert not (platform / "output" / "scores.json").exists()


def test_a_hard_link_to_the_gold_file_is_refused(platform, capsys):
    os.link(platform / "input" / "ref" / "gold.tsv", platform / "input" / "res" / "pred.tsv")
    code, err = _score(platform, capsys)
    line = _one_error_line(err)
    assert code == 2 and "submission error" in line and "the reference data itself" in line
    assert not (platform / "output" / "scores.json").exists()


def test_a_fifo_in_the_submission_is_refused_without_opening_it(platform, capsys):
    os.mkfifo(platform / "input" / "res" / "pred.tsv")        # opening it would block for ever
    code, err = _score(platform, capsys)
    line = _one_error_line(err)
    assert code == 2 and "pred.tsv is not a regular file" in line and "submission error" in line


def test_the_organisers_ref_folder_may_link_to_the_gold_file(platform, capsys):
    ref = platform / "input" / "ref"
    (ref / "gold.tsv").rename(platform / "gold.tsv")
    (ref / "gold.tsv").symlink_to(platform / "gold.tsv")
    _predictions(platform / "input" / "res" / "pred.tsv")
    code, err = _score(platform, capsys)
    assert code == 0, err


def test_a_submission_nested_1200_folders_deep_is_scored(platform, capsys):
    top = folder = platform / "input" / "res"
    levels = []
    try:
        for _ in range(1200):                   # (os.makedirs recurses once per level itself)
            folder = folder / "d"
            folder.mkdir()
            levels.append(folder)
        _predictions(folder / "pred.tsv")
        code, err = _score(platform, capsys)
        assert code == 0, err[-500:]
        assert (platform / "output" / "scores.json").exists()
    finally:
        # taken down level by level: pytest's recursive clean-up of old temporary folders (shutil.rmtree)
        # would overflow the stack on 1,200 levels at the end of a later session
        for f in (levels[-1].iterdir() if levels else ()):
            f.unlink()
        for d in reversed(levels):
            d.rmdir()
        assert not any(top.iterdir())


# ----------------------------------------------------------------------------- error lines print inert

FORGED = "\x1b[2J\x1b[31mp\nevalreport: wrote scores.json\r\u2028x.tsv"


def test_a_submission_file_name_with_control_characters_prints_inert(platform, capsys):
    (platform / "input" / "res" / FORGED).write_text("x\ty\n1\ta\n", encoding="utf-8")
    code, err = _score(platform, capsys)
    line = _one_error_line(err)                 # the newline in the name forges no line of its own
    assert code == 2 and "\x1b" not in err and "\r" not in err and "\u2028" not in err
    assert escape.one_line(FORGED) in line and "missing columns" in line


def test_a_gold_file_name_with_control_characters_prints_inert_in_score(tmp_path, capsys):
    gold = tmp_path / f"g{FORGED}"
    gold.write_text("id\tlabel\n1\ta\n", encoding="utf-8")
    run = tmp_path / "r.tsv"
    run.write_text("id\tlabel\n2\ta\n", encoding="utf-8")
    assert main(["score", str(gold), str(run)]) == 2
    err = capsys.readouterr().err
    assert "\x1b" not in err and "\r" not in err
    assert f"g{escape.one_line(FORGED)}: " in _one_error_line(err)


def test_a_note_with_a_line_break_prints_as_one_line(capsys):
    from evalreport.cli.common import print_note

    print_note("class 'a\nevalreport: wrote scores.json' was lost")
    err = capsys.readouterr().err
    assert err == "evalreport: note: class 'a\ufffdevalreport: wrote scores.json' was lost\n"


def test_a_logged_warning_prints_inert():
    from evalreport.cli import _log_warnings_as_notes

    _log_warnings_as_notes()
    handler = next(h for h in logging.getLogger("evalreport").handlers if getattr(h, "_evalreport_cli", False))
    record = logging.LogRecord("evalreport", logging.WARNING, __file__, 1, "label %s", ("x\x1b[31m\ny",), None)
    assert handler.format(record) == "evalreport: note: label x\ufffd[31m\ufffdy"


def test_a_renderer_error_keeps_its_lines_inert_and_indented():
    from evalreport.cli import _error_text
    from evalreport.report.output import RenderError

    text = _error_text(RenderError("typst failed (exit 1):\nevalreport: wrote report.pdf\n\x1b[31mred"))
    first, *rest = text.split("\n")
    assert first == "typst failed (exit 1):" and rest == ["  evalreport: wrote report.pdf", "  \ufffd[31mred"]
    assert _error_text(InputError("bad\nname", path="x\x1b.tsv")) == "x\ufffd.tsv: bad\ufffdname"


# ----------------------------------------------------------------------------- YAML aliases, deep nesting

def _laughs(key: str) -> str:
    """A "billion laughs" document: 9**8 copies of one value under ``key``, from a few hundred bytes."""
    lines = ['x0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for i in range(1, 8):
        lines.append(f"x{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]")
    lines.append(f"{key}: [{', '.join(['*a7'] * 9)}]")
    return "\n".join(lines) + "\n"


def _laughs_under_known_keys() -> str:
    """The same under known keys only (the anchors inside a list of ``what_if``)."""
    rows = ['  - &a0 {x: 1, y: 1, z: 1, w: 1, v: 1, u: 1, t: 1, s: 1, r: 1}']
    for i in range(1, 8):
        rows.append(f"  - &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]")
    return "what_if:\n" + "\n".join(rows) + f"\nseed: [{', '.join(['*a7'] * 9)}]\n"


@pytest.mark.parametrize("text", [_laughs("labels"), _laughs("measures"), _laughs_under_known_keys(),
                                  "base: &b {seed: 1}\n<<: *b\n", "labels: [&x a, *x]\n"],
                         ids=["labels", "measures", "known_keys_only", "merge_key", "one_alias"])
def test_yaml_anchors_and_aliases_are_refused_at_once(tmp_path, text):
    path = tmp_path / "task.yaml"
    path.write_text(text, encoding="utf-8")
    start = time.perf_counter()
    with pytest.raises(InputError) as info:
        load_task_file(path)
    assert time.perf_counter() - start < 1.0
    assert "anchors and aliases are refused" in info.value.problem and info.value.line is not None
    assert "\n" not in str(info.value)


def test_a_billion_laughs_task_file_is_the_scorers_configuration_error_within_a_second(platform, capsys):
    _predictions(platform / "input" / "res" / "pred.tsv")
    task = platform / "task.yaml"
    task.write_text(_laughs_under_known_keys(), encoding="utf-8")
    start = time.perf_counter()
    code, err = _score(platform, capsys, "--task-file", str(task))
    assert time.perf_counter() - start < 1.0
    line = _one_error_line(err)
    assert code == 3 and "task configuration error" in line and "anchor" in line
    assert not (platform / "output" / "scores.json").exists()


def _nested(fmt: str, depth: int) -> str:
    return ("labels = " if fmt == "toml" else "labels: ") + "[" * depth + "]" * depth + "\n"


@pytest.mark.parametrize("fmt", ["toml", "yaml"])
@pytest.mark.parametrize("depth", [17, 300, 5000])
def test_a_deeply_nested_task_file_is_one_error(tmp_path, fmt, depth):
    path = tmp_path / f"task.{fmt}"
    path.write_text(_nested(fmt, depth), encoding="utf-8")
    with pytest.raises(InputError, match="nested more than 16 levels deep"):
        load_task_file(path)


def test_a_deeply_nested_task_file_is_exit_2_in_score_and_3_in_the_scorer(platform, capsys):
    task = platform / "task.toml"
    task.write_text(_nested("toml", 5000), encoding="utf-8")
    gold = platform / "input" / "ref" / "gold.tsv"
    assert main(["score", str(gold), str(gold), "--task-file", str(task)]) == 2
    _one_error_line(capsys.readouterr().err)
    _predictions(platform / "input" / "res" / "pred.tsv")
    code, err = _score(platform, capsys, "--task-file", str(task))
    assert code == 3 and "task configuration error" in _one_error_line(err)


def test_a_benchmark_file_five_levels_deep_is_read(tmp_path):
    path = tmp_path / "bench.toml"
    path.write_text(textwrap.dedent('''
        [tasks.one]
        gold = "g.tsv"
        runs = "runs"
        what_if = [{a = 1, b = 2}]
        '''), encoding="utf-8")
    assert load_benchmark_file(path).tasks[0].spec.what_if == ("a=1,b=2",)


def test_a_long_bad_value_is_named_by_its_start(tmp_path):
    path = tmp_path / "task.toml"
    path.write_text(f'seed = "{"y" * 5000}"\n', encoding="utf-8")
    with pytest.raises(InputError) as info:
        load_task_file(path)
    assert len(str(info.value)) < 200 and "must be an integer >= 0; got 'yyy" in str(info.value)


# ----------------------------------------------------------------------------- the scorer's resamples

def test_a_huge_bootstrap_in_the_scorers_task_file_is_its_configuration_error(platform, capsys, monkeypatch):
    import evalreport.analyses.resampling as resampling

    def never(*args, **kwargs):
        raise AssertionError("resampling started")

    monkeypatch.setattr(resampling, "bootstrap", never)
    _predictions(platform / "input" / "res" / "pred.tsv")
    task = platform / "task.toml"
    task.write_text(f"bootstrap = {10 ** 12}\n", encoding="utf-8")
    capsys.readouterr()
    code = main(["codabench", str(platform / "input"), str(platform / "output"), "--task-file", str(task)])
    line = _one_error_line(capsys.readouterr().err)
    assert code == 3 and "must be at most 1,000,000" in line and "task configuration error" in line


# ----------------------------------------------------------------------------- CSV cells

@pytest.mark.parametrize("text, participant, expected", [
    ("-(1/2N) sum", False, "'-(1/2N) sum"),       # a measure formula of ours
    ("=1+1", False, "'=1+1"),
    ("'quoted", False, "''quoted"),
    ("-0.5", False, "-0.5"),                       # a plain number: a spreadsheet reads it as that number
    ("+1e-3", False, "+1e-3"),
    ("-0.5", True, "'-0.5"),                       # a participant's name stays a name
    ("-1+2", False, "'-1+2"),
    ("a-b", False, "a-b"),
])
def test_every_text_cell_a_spreadsheet_would_evaluate_is_guarded(text, participant, expected):
    column = "system" if participant else "formula"
    written = escape.csv_frame(pd.DataFrame({column: [text], "value": [-1.5]}))
    assert written[column].tolist() == [expected] and written["value"].tolist() == [-1.5]
    assert escape.csv_unquote(written.copy())[column].tolist() == [text]


def test_the_measures_listing_as_csv_guards_its_formulas(capsys):
    assert main(["measures", "--format", "csv"]) == 0
    import csv
    import io

    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    number = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
    cells = [v for r in rows for v in r.values() if v.startswith(("=", "+", "-", "@", "\t", "\r"))]
    assert rows and all(number.fullmatch(v) for v in cells), cells
    assert any(r["formula"].startswith("'-") for r in rows)
