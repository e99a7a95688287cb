"""A Codabench submission with several faults gets all of them in one run: each kind counted, with its
first lines, in the participant's words (no organiser option named), exit status 2 and no scores. A
participant pays a submission per attempt, so one that fixes what the log says must score."""
from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from evalreport.cli import main
from evalreport.inputs.submission import EXAMPLES, faults_error, submission_faults

LABELS = ["FAVOR", "AGAINST", "NONE"]
N = 60
GOLD = np.random.default_rng(3).choice(LABELS, size=N)


@pytest.fixture
def platform(tmp_path):
    ref, res = tmp_path / "input" / "ref", tmp_path / "input" / "res"
    ref.mkdir(parents=True)
    res.mkdir()
    pd.DataFrame({"id": [f"t{i}" for i in range(N)], "label": GOLD}).to_csv(ref / "gold.tsv", sep="\t", index=False)
    return tmp_path


def _submit(root, rows, name="predictions.tsv"):
    path = root / "input" / "res" / name
    path.write_text("id\tlabel\n" + "".join(f"{i}\t{lab}\n" for i, lab in rows), encoding="utf-8")
    return path


def _score(root, capsys, *extra):
    out = root / "output"
    code = main(["codabench", str(root / "input"), str(out), "--bootstrap", "0", *extra])
    captured = capsys.readouterr()
    return code, captured.err.strip().splitlines(), out


def _faulty():
    """Five faults: an unknown label (twice), a repeated id, missing ids,
    an id that is no test item and an empty prediction. Lines: header 1, row k at line k + 2."""
    rows = [(f"t{i}", GOLD[i]) for i in range(N - 3)]      # t57, t58, t59 missing
    rows[4] = ("t4", "MAYBE")                                # line 6
    rows[9] = ("t9", "favour")                               # line 11
    rows.insert(12, ("t2", "NONE"))                          # line 14 repeats t2 (line 4)
    rows.append(("x1", "NONE"))                              # the last line: no test item
    rows[20] = (rows[20][0], "nan")                          # line 22: a missing-value marker
    return rows


def test_every_fault_of_a_submission_is_reported_in_one_run(platform, capsys):
    path = _submit(platform, _faulty())
    code, lines, out = _score(platform, capsys)
    assert code == 2 and len(lines) == 1 and not (out / "scores.json").exists() and not (out / "scores.txt").exists()
    line = lines[0]
    assert line.startswith(f"evalreport: error: {path}: submission error: 5 problems")
    assert "1 empty prediction" in line and "line 22 ('nan')" in line
    assert "2 predictions with a label that is not a class: line 6 ('MAYBE'), line 11 ('favour')" in line
    assert "the classes are 'AGAINST', 'FAVOR', 'NONE'" in line
    assert "1 row repeating an id of an earlier row (one prediction per item): line 14 ('t2', as line 4)" in line
    assert f"1 row whose id is not a test item: line {N} ('x1')" in line
    assert f"3 of {N} test items have no prediction (ids 't57', 't58', 't59')" in line
    # the participant's words: no option of the organiser's, no Python parameter
    assert "--" not in line and "allow" not in line and "abstain" not in line and "Python" not in line


def test_fixing_what_the_message_says_gives_a_score(platform, capsys):
    _submit(platform, [(f"t{i}", GOLD[i]) for i in range(N)])
    code, lines, out = _score(platform, capsys)
    assert code == 0 and (out / "scores.json").exists()


@pytest.mark.parametrize("fault, expected, where", [
    ("unknown", "1 prediction with a label that is not a class: line 6 ('MAYBE')", ", line 6, id 't4': "),
    ("missing", f"1 of {N} test items has no prediction (ids 't59')", ", id 't59': "),
    ("repeat", "1 row repeating an id of an earlier row (one prediction per item): line 62 ('t0', as line 2)",
     ", line 62, id 't0': "),
    ("extra", "1 row whose id is not a test item: line 62 ('zz')", ", line 62, id 'zz': "),
    ("empty", "1 empty prediction (an empty label or a missing-value marker such as 'nan'): line 3 ('')",
     ", line 3, id 't1': "),
])
def test_one_fault_of_one_row_names_its_line_as_every_error_does(platform, capsys, fault, expected, where):
    rows = [(f"t{i}", GOLD[i]) for i in range(N)]
    if fault == "unknown":
        rows[4] = ("t4", "MAYBE")
    elif fault == "missing":
        rows = rows[:-1]
    elif fault == "repeat":
        rows.append(("t0", GOLD[0]))
    elif fault == "extra":
        rows.append(("zz", "NONE"))
    elif fault == "empty":
        rows[1] = ("t1", "")
    path = _submit(platform, rows)
    code, lines, _ = _score(platform, capsys)
    assert code == 2 and len(lines) == 1, lines
    assert f"{path}{where}submission error: {expected}" in lines[0], lines[0]
    assert "--" not in lines[0] and "Python" not in lines[0]


def test_many_faults_of_one_kind_show_the_first_few_and_the_count(platform, capsys):
    rows = [(f"t{i}", "maybe" if i % 2 else GOLD[i]) for i in range(N)]
    _submit(platform, rows)
    code, lines, _ = _score(platform, capsys)
    shown = re.findall(r"line \d+ \('maybe'\)", lines[0])
    assert code == 2 and f"{N // 2} predictions with a label that is not a class" in lines[0]
    assert len(shown) == EXAMPLES and shown[0] == "line 3 ('maybe')" and ", ..." in lines[0]


def test_the_organisers_settings_decide_what_is_a_fault(platform, capsys):
    """--allow-unknown and --missing abstain (the organiser's) make unknown labels and missing items
    wrong predictions, not faults; the repeated id is still one, and named alone."""
    rows = [(f"t{i}", GOLD[i]) for i in range(N - 2)]
    rows[4] = ("t4", "MAYBE")
    rows.append(("t0", GOLD[0]))
    path = _submit(platform, rows)
    code, lines, _ = _score(platform, capsys, "--allow-unknown", "--missing", "abstain")
    assert code == 2 and f"{path}, line {N}, id 't0': submission error: 1 row repeating" in lines[0]
    assert "not a class" not in lines[0] and "no prediction" not in lines[0]
    _submit(platform, rows[:-1])
    code, _, out = _score(platform, capsys, "--allow-unknown", "--missing", "abstain")
    assert code == 0 and (out / "scores.json").exists()


def test_a_file_that_cannot_be_checked_keeps_its_one_error(platform, capsys):
    path = platform / "input" / "res" / "predictions.tsv"
    path.write_text("id\tprediction\nt0\tNONE\n", encoding="utf-8")
    code, lines, _ = _score(platform, capsys)
    assert code == 2 and len(lines) == 1 and "missing column 'label'" in lines[0] and "submission error" in lines[0]


def test_submission_faults_in_other_formats_and_empty_ids(tmp_path):
    gold = tmp_path / "gold.csv"
    pd.DataFrame({"id": ["a", "b", "c", "d"], "label": ["x", "y", "x", "y"]}).to_csv(gold, index=False)
    run = tmp_path / "run.parquet"
    pd.DataFrame({"id": ["a", "", "c", "c"], "label": ["x", "y", "q", "x"]}).to_parquet(run)
    faults = submission_faults(gold, run, ["x", "y"])
    assert [f.kind for f in faults] == ["empty id", "unknown label", "repeated id", "missing item"]
    assert [f.count for f in faults] == [1, 1, 1, 2]
    assert "row 2" in faults[0].text and "row 4 ('c', as row 3)" in faults[2].text      # Parquet: rows
    message = str(faults_error(faults, run))
    assert message.startswith(f"{run}: 4 problems") and "\n" not in message
    assert submission_faults(gold, gold, ["x", "y"]) == []
