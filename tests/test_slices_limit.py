"""More than MAX_SLICES slices in one column: one line naming the file, the column and the line where
the first slice beyond the limit appears; exit status 2 and nothing written (single labels and label
sets, whose slice columns are read in gold order after the layout is detected)."""
import io
import json
from contextlib import redirect_stderr, redirect_stdout

import numpy as np
import pandas as pd

from evalreport.cli import main
from evalreport.inputs.slices import MAX_SLICES


def run_cli(argv):
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


def users(n: int, repeats: int) -> list[str]:
    """``repeats`` rows of one user, then a new user on every row: the (MAX_SLICES + 1)-th distinct
    value is on data row ``repeats + MAX_SLICES - 1`` (0-based)."""
    return ["u0"] * repeats + [f"u{i}" for i in range(1, n - repeats + 1)]


def test_the_201st_slice_is_named_with_its_line_through_the_cli(tmp_path):
    n, repeats = MAX_SLICES + 60, 30
    rng = np.random.default_rng(0)
    gold = rng.choice(["pos", "neg"], size=n)
    ids = [f"i{i}" for i in range(n)]
    user = users(n, repeats)
    pd.DataFrame({"id": ids, "label": gold, "user": user}).to_csv(tmp_path / "gold.tsv", sep="\t", index=False)
    (tmp_path / "runs").mkdir()
    pd.DataFrame({"id": ids, "label": gold[::-1]}).to_csv(tmp_path / "runs" / "a.tsv", sep="\t", index=False)
    out = tmp_path / "out"
    code, _, err = run_cli(["compare", str(tmp_path / "gold.tsv"), "--runs-dir", str(tmp_path / "runs"),
                            "--slice-col", "user", "--bootstrap", "10", "--out", str(out), "--quiet"])
    assert code == 2 and not out.exists()
    lines = [x for x in err.splitlines() if x.strip()]
    row = repeats + MAX_SLICES - 1                    # 0-based data row; the header is line 1
    first = user[row]
    assert first not in user[:row] and len(set(user[:row])) == MAX_SLICES
    assert len(lines) == 1, err
    assert "gold.tsv" in lines[0] and f"line {row + 2}" in lines[0], lines[0]
    assert "'user'" in lines[0] and f"{first!r}" in lines[0] and f"more than the {MAX_SLICES}" in lines[0]


def test_label_sets_name_the_line_of_the_gold_file_not_of_the_items(tmp_path):
    n, repeats = MAX_SLICES + 20, 10
    user = users(n, repeats)
    # the run lists the items in another order: the line is still the gold file's
    gold = tmp_path / "gold.jsonl"
    gold.write_text("".join(json.dumps({"id": f"i{k}", "label": ["x"] if k % 2 else ["y"], "user": u}) + "\n"
                            for k, u in enumerate(user)), encoding="utf-8")
    (tmp_path / "runs").mkdir()
    (tmp_path / "runs" / "r1.jsonl").write_text(
        "".join(json.dumps({"id": f"i{k}", "label": ["x"]}) + "\n" for k in reversed(range(n))), encoding="utf-8")
    out = tmp_path / "out"
    code, _, err = run_cli(["compare", str(gold), "--runs-dir", str(tmp_path / "runs"), "--multilabel",
                            "--slice-col", "user", "--bootstrap", "10", "--out", str(out), "--quiet"])
    assert code == 2 and not out.exists()
    lines = [x for x in err.splitlines() if x.strip()]
    row = repeats + MAX_SLICES - 1                    # JSON Lines: no header, line = row + 1
    assert len(lines) == 1, err
    assert "gold.jsonl" in lines[0] and f"line {row + 1}" in lines[0] and repr(user[row]) in lines[0], lines[0]
