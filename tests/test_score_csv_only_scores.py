"""``score --format csv`` when every measure asked for is score-based (the in-memory path's score stream gives the
reason column as fixed-width text): the tidy CSV, the same rows as ``--format json``, not a traceback."""
from __future__ import annotations

import csv
import io
import json
from contextlib import redirect_stderr, redirect_stdout

import numpy as np

from evalreport.cli import main
from evalreport.cli.output import emit_columns

CLASSES = ("ant", "bee", "cat")


def _cli(*argv) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        rc = main([str(a) for a in argv])
    return rc, out.getvalue(), err.getvalue()


def test_only_score_measures_as_csv(tmp_path):
    rng = np.random.default_rng(3)
    y = rng.integers(0, 3, 60)
    p = rng.dirichlet(np.ones(3), 60)
    (tmp_path / "gold.tsv").write_text("id\tlabel\n" + "".join(f"i{i}\t{CLASSES[g]}\n" for i, g in enumerate(y)))
    (tmp_path / "runs").mkdir()
    rows = "".join(f"i{i}\t{CLASSES[int(r.argmax())]}\t" + "\t".join(repr(float(x)) for x in r) + "\n"
                   for i, r in enumerate(p))
    (tmp_path / "runs" / "sys.tsv").write_text("id\tlabel\t" + "\t".join(f"score_{c}" for c in CLASSES) + "\n" + rows)
    args = ["score", tmp_path / "gold.tsv", "--runs-dir", tmp_path / "runs", "--measures", "brier,log_loss"]
    rc, out, err = _cli(*args, "--format", "csv")
    assert rc == 0, err
    table = list(csv.DictReader(io.StringIO(out)))
    rc, out_json, err = _cli(*args, "--format", "json")
    assert rc == 0, err
    want = json.loads(out_json)
    assert [r["measure"] for r in table] == [r["measure"] for r in want] == ["brier", "log_loss"]
    assert [float(r["value"]) for r in table] == [r["value"] for r in want]
    assert [r["reason"] for r in table] == [r["reason"] for r in want] == ["", ""]


def test_emit_columns_writes_fixed_width_text_as_text():
    out = io.StringIO()
    emit_columns({"system": np.array(["a", "b"]), "value": np.array([0.5, np.nan]),
                  "reason": np.array(["", "0/0, 1 class"])}, "csv", file=out)
    assert out.getvalue() == 'system,value,reason\na,0.5,\nb,,"0/0, 1 class"\n'
