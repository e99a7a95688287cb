"""Gold labels end to end: ``compare --label-noise/--noise-matrix --out`` writes gold_fragility.csv and
label_noise.csv; a bad noise matrix is one line and exit status 2 with nothing written; the report's
"Gold labels" cells show the tables (and escape system names)."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from evalreport.analyses.compare import compare
from evalreport.cli import main
from evalreport.inputs.runs import Runs
from evalreport.report.display import Note, Table
from evalreport.report.sections import open_report
from evalreport.report.write import write_comparison

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

STANCE = Path(__file__).resolve().parent.parent / "examples" / "stance"
CLASSES = ("AGAINST", "FAVOR", "NONE")


def _matrix(path: Path, rows) -> Path:
    lines = ["gold\t" + "\t".join(CLASSES)] + [f"{c}\t" + "\t".join(map(str, r)) for c, r in zip(CLASSES, rows)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_compare_writes_gold_tables(tmp_path):
    noise = _matrix(tmp_path / "noise.tsv", [[0.9, 0.05, 0.05], [0.1, 0.9, 0], [0.1, 0.1, 0.8]])
    out = tmp_path / "out"
    rc = main(["compare", str(STANCE / "gold.tsv"), "--runs-dir", str(STANCE / "runs"), "--bootstrap", "0",
               "--label-noise", "0,0.05", "--noise-matrix", str(noise), "--noise-draws", "40", "--out", str(out),
               "--no-progress"])
    assert rc == 0
    gf = pd.read_csv(out / "gold_fragility.csv")
    assert set(gf["measure"]) == {"macro_f1", "accuracy"}
    ln = pd.read_csv(out / "label_noise.csv")
    assert list(ln.columns[:7]) == ["noise_rate", "model", "system", "p_first", "mean_rank", "rank_lo", "rank_hi"]
    assert set(ln["model"]) == {"uniform", "matrix"} and (ln["draws"] == 40).all()
    zero = ln[ln["noise_rate"] == 0].set_index("system")["mean_rank"]
    assert zero.to_dict() == {"bert": 1.0, "svm": 2.0, "lexicon": 3.0, "majority": 4.0}
    recorded = json.loads((out / "manifest.json").read_text(encoding="utf-8"))["settings"]
    assert recorded["label_noise"] == [0.0, 0.05] and recorded["noise_matrix"] is True


@pytest.mark.parametrize("rows, words", [
    ([[0.9, 0.1, 0], [0.1, 0.8, 0], [0, 0, 1]], "line 3: noise matrix: the row of gold 'FAVOR' sums to 0.9"),
    ([[1.1, -0.1, 0], [0, 1, 0], [0, 0, 1]], "line 2: noise matrix: the probability of labelling gold 'AGAINST'"),
    ([[1, 0], [0, 1]], "noise matrix"),
])
def test_bad_noise_matrix_is_one_line_exit_2(tmp_path, capsys, rows, words):
    bad = tmp_path / "bad.tsv"
    if len(rows) == 2:      # not square over the classes
        bad.write_text("gold\tAGAINST\tFAVOR\nAGAINST\t1\t0\nFAVOR\t0\t1\n", encoding="utf-8")
    else:
        _matrix(bad, rows)
    out = tmp_path / "out"
    rc = main(["compare", str(STANCE / "gold.tsv"), "--runs-dir", str(STANCE / "runs"), "--bootstrap", "0",
               "--noise-matrix", str(bad), "--out", str(out)])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and not out.exists()
    assert len([e for e in err if "error" in e]) == 1 and words in err[-1] and str(bad) in err[-1]


def test_bad_rates_exit_2(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["compare", str(STANCE / "gold.tsv"), "--runs-dir", str(STANCE / "runs"), "--label-noise", "0.1,2"])
    assert exc.value.code == 2 and "noise rates lie in [0, 1]" in capsys.readouterr().err


def test_report_cells(tmp_path):
    rng = np.random.default_rng(0)
    g = rng.integers(0, 3, 150)
    pred = np.stack([np.where(rng.random(150) < p, g, rng.integers(0, 3, 150)) for p in (0.9, 0.6, 0.5)])
    runs = Runs(gold=g, pred=pred, labels=("a", "b", "c"), systems=("<b>one</b>", "two|2", "three"))
    comp = compare(runs, bootstrap=0, label_noise=(0.1,), label_noise_draws=20)
    write_comparison(comp, tmp_path / "t")
    rep = open_report(tmp_path / "t")
    table = rep.gold_fragility_table()
    assert isinstance(table, Table)
    html = table._repr_mimebundle_()["text/html"]
    assert "<b>one</b>" not in html and "leader" in html
    noise = rep.label_noise_table()
    assert isinstance(noise, Table) and list(noise.df.columns) == ["10 %"]
    assert rep.agreement_note() is None and rep.annotators_table() is None
    plain = compare(runs, bootstrap=0)
    write_comparison(plain, tmp_path / "u")
    assert open_report(tmp_path / "u").label_noise_table() is None
    counts_only = compare(runs.pred[:, None, None, :].sum() * 0 + np.ones((2, 3, 3)), bootstrap=0)
    write_comparison(counts_only, tmp_path / "v")
    assert isinstance(open_report(tmp_path / "v").gold_fragility_table(), Note)


def test_task_file_keys(tmp_path):
    (tmp_path / "task.toml").write_text('primary = "accuracy"\nlabel_noise = [0.02, 0.1]\n', encoding="utf-8")
    out = tmp_path / "out"
    rc = main(["compare", str(STANCE / "gold.tsv"), "--runs-dir", str(STANCE / "runs"), "--bootstrap", "0",
               "--task-file", str(tmp_path / "task.toml"), "--noise-draws", "10", "--out", str(out), "--no-progress"])
    assert rc == 0
    assert sorted(set(pd.read_csv(out / "label_noise.csv")["noise_rate"])) == [0.02, 0.1]
    (tmp_path / "bad.toml").write_text("label_noise = [0.5, 3]\n", encoding="utf-8")
    rc = main(["compare", str(STANCE / "gold.tsv"), "--runs-dir", str(STANCE / "runs"), "--bootstrap", "0",
               "--task-file", str(tmp_path / "bad.toml"), "--out", str(tmp_path / "o2")])
    assert rc == 2 and not (tmp_path / "o2").exists()
