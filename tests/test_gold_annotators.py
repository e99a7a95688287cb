"""A gold file of several annotators as the gold itself (``label_1``, ``label_2``, ...): the majority
label per item, the tie rule, the agreement tables equal to those of ``--annotators``, bad input."""
from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from evalreport.cli import main
from evalreport.errors import InputError
from evalreport.inputs.annotators import read_annotations
from evalreport.inputs.readers import read_runs

STANCE = Path(__file__).resolve().parent.parent / "examples" / "stance"


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def _tiny(tmp: Path) -> tuple[Path, Path, Path]:
    """Five items, three annotators, worked by hand: majority and the tie rule."""
    gold = _write(tmp / "gold.tsv", "id\tlabel_2\tlabel_1\tlabel_3\n"
                  "a\tx\tx\ty\n"     # x twice: x
                  "b\ty\tx\t\n"      # x : y tie, annotator 1 (x) is the lowest number: x
                  "c\tz\ty\tz\n"     # z twice: z
                  "d\t\t\ty\n"       # only annotator 3: y
                  "e\tz\ty\tx\n")    # three-way tie: annotator 1's y
    r1 = _write(tmp / "r1.tsv", "id\tlabel\na\tx\nb\tx\nc\tz\nd\ty\ne\ty\n")
    r2 = _write(tmp / "r2.tsv", "id\tlabel\na\ty\nb\ty\nc\tz\nd\tx\ne\tz\n")
    return gold, r1, r2


def test_majority_and_tie_rule_by_hand(tmp_path):
    gold, r1, r2 = _tiny(tmp_path)
    with pytest.warns(UserWarning, match=r"gold: majority of 3 annotators .*; ties: 2 items, broken by annotator "
                                         r"order"):
        runs = read_runs(gold, [r1, r2])
    assert runs.labels == ("x", "y", "z")
    assert [runs.labels[k] for k in runs.gold] == ["x", "x", "z", "y", "y"]
    assert runs.annotations.annotators == ("2", "1", "3")       # file order, as --annotators reads it
    assert runs.annotations.values[2, 3] == "y" and runs.annotations.values[0, 3] is None


def test_a_label_only_a_minority_gave_is_a_class(tmp_path):
    gold = _write(tmp_path / "gold.tsv", "id\tlabel_1\tlabel_2\tlabel_3\na\tx\tx\tw\nb\ty\ty\tx\n")
    run = _write(tmp_path / "r.tsv", "id\tlabel\na\tx\nb\ty\n")
    with pytest.warns(UserWarning, match="ties: 0 items"):
        runs = read_runs(gold, [run])
    assert runs.labels == ("w", "x", "y")


def test_plain_gold_is_unchanged(tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        runs = read_runs(STANCE / "gold.tsv", runs_dir=STANCE / "runs")
    assert runs.annotations is None


def _wide_stance(tmp: Path) -> Path:
    gold = pd.read_csv(STANCE / "gold.tsv", sep="\t")
    rng = np.random.default_rng(1)
    labels = np.array(["AGAINST", "FAVOR", "NONE"])
    wide = pd.DataFrame({"id": gold["id"]})
    for a, keep in ((1, 0.9), (2, 0.8), (3, 0.7)):
        wide[f"label_{a}"] = np.where(rng.random(len(gold)) < keep, gold["label"],
                                      labels[rng.integers(0, 3, len(gold))])
    wide.loc[5, "label_2"] = ""
    wide.to_csv(tmp / "wide.tsv", sep="\t", index=False)
    # the same gold as one label per item: the majority, worked here independently of the reader
    votes = wide[["label_1", "label_2", "label_3"]].replace("", np.nan)
    major = []
    for _, row in votes.iterrows():
        counts = row.dropna().value_counts()
        tied = set(counts[counts == counts.max()].index)
        major.append(next(v for v in row if v in tied))
    pd.DataFrame({"id": gold["id"], "label": major}).to_csv(tmp / "major.tsv", sep="\t", index=False)
    return tmp / "wide.tsv"


def test_compare_tables_equal_those_of_annotators_option(tmp_path):
    wide = _wide_stance(tmp_path)
    a, b = tmp_path / "a", tmp_path / "b"
    common = ["--runs-dir", str(STANCE / "runs"), "--bootstrap", "0", "--primary", "accuracy", "--no-progress"]
    assert main(["compare", str(wide), *common, "--out", str(a)]) == 0
    assert main(["compare", str(tmp_path / "major.tsv"), *common, "--annotators", str(wide), "--out", str(b)]) == 0
    for name in ("agreement.csv", "annotators.csv", "scores.csv"):
        pd.testing.assert_frame_equal(pd.read_csv(a / name), pd.read_csv(b / name))
    assert read_annotations(wide).annotators == ("1", "2", "3")
    manifest = (a / "manifest.json").read_text(encoding="utf-8")
    assert "gold: majority of 3 annotators" in json.loads(manifest)["settings"]["gold_majority"]


def test_report_shows_the_ceiling(tmp_path):
    wide = _wide_stance(tmp_path)
    out = tmp_path / "rep"
    assert main(["report", str(wide), "--runs-dir", str(STANCE / "runs"), "--bootstrap", "0", "--no-audit",
                 "--formats", "html", "--quiet", "-o", str(out)]) == 0
    agree = pd.read_csv(out / "tables" / "agreement.csv").iloc[0]
    assert agree["annotators"] == 3 and agree["items"] == 300
    assert set(pd.read_csv(out / "tables" / "annotators.csv")["annotator"].astype(str)) == {"1", "2", "3"}
    html = "\n".join(p.read_text(encoding="utf-8") for p in out.rglob("*.html"))
    assert "3 annotators on 300 items" in html and "vs 1" in html


@pytest.mark.parametrize("text, words", [
    ("id\tlabel_1\tlabel_2\nx\tA\tB\ny\t\t\n", r"gold.tsv, line 3, id 'y': no label from any annotator"),
    ("id\tlabel_1\nx\tA\n", "one annotator column"),
    ("id\tannotator\tlabel_x\nx\ta\tA\n", "--annotators"),
    ("id\tlabel_1\tlabel_2\nx\tA\tB\nx\tA\tA\n", r"line 3.*duplicate id 'x'"),
])
def test_bad_gold_files(tmp_path, text, words):
    gold = _write(tmp_path / "gold.tsv", text)
    run = _write(tmp_path / "r.tsv", "id\tlabel\nx\tA\ny\tB\n")
    with pytest.raises(InputError, match=words), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        read_runs(gold, [run])


def test_cli_bad_gold_one_line_exit_2(tmp_path, capsys):
    gold = _write(tmp_path / "gold.tsv", "id\tlabel_1\tlabel_2\nx\tA\tB\ny\t\t\n")
    run = _write(tmp_path / "r.tsv", "id\tlabel\nx\tA\ny\tB\n")
    run2 = _write(tmp_path / "s.tsv", "id\tlabel\nx\tB\ny\tB\n")
    capsys.readouterr()
    rc = main(["compare", str(gold), str(run), str(run2), "--bootstrap", "0", "--out", str(tmp_path / "o")])
    err = capsys.readouterr().err
    assert rc == 2 and not (tmp_path / "o").exists()
    assert str(gold) in err and "line 3" in err and len(err.strip().splitlines()) == 1


def test_parquet_gold_and_other_label_column_name(tmp_path):
    pd.DataFrame({"id": ["a", "b", "c"], "stance_1": ["x", "y", "y"], "stance_2": ["x", "x", None],
                  "stance_3": ["y", "y", "x"]}).to_parquet(tmp_path / "gold.parquet")
    pd.DataFrame({"id": ["a", "b", "c"], "stance": ["x", "y", "x"]}).to_parquet(tmp_path / "run.parquet")
    with pytest.warns(UserWarning, match="ties: 1 item,"):
        runs = read_runs(tmp_path / "gold.parquet", [tmp_path / "run.parquet"], label_col="stance")
    assert [runs.labels[k] for k in runs.gold] == ["x", "y", "y"]     # c: y (annotator 1) against x (annotator 3)
    assert runs.annotations.annotators == ("1", "2", "3")


def test_cli_says_so_once(tmp_path, capsys):
    gold, r1, r2 = _tiny(tmp_path)
    capsys.readouterr()
    assert main(["compare", str(gold), str(r1), str(r2), "--bootstrap", "0", "--no-progress"]) == 0
    err = capsys.readouterr().err
    assert err.count("gold: majority of 3 annotators") == 1 and "ties: 2 items" in err
