"""The one table writer (evalreport.report.write): the documented CSV and JSON encoding of NaN,
infinity, lists, numpy scalars and formula-like text; atomic output folders; a benchmark
comparison's folder written by that rule, table by table."""
from __future__ import annotations

import io
import json
import math

import numpy as np
import pandas as pd
import pytest

from evalreport._atomic import MARKER
from evalreport.analyses.benchmark import compare_benchmark
from evalreport.cli.output import emit
from evalreport.errors import OutputError
from evalreport.escape import csv_unquote
from evalreport.examples import shared_task_data
from evalreport.inputs.benchmark import benchmark_from_data
from evalreport.report.write import (
    json_records,
    read_json_table,
    write_comparison,
    write_csv,
    write_frames,
    write_json,
    write_tables,
)


def _frame() -> pd.DataFrame:
    return pd.DataFrame({
        "system": ["=cmd()", "-1", "plain"],                 # participant-derived text
        "note": ["+x", "-0.5", None],                        # other text: a plain number stays as it is
        "value": [np.nan, np.inf, -np.inf],
        "count": np.array([1, 2, 3], dtype=np.int64),
        "share": [0.5, 0.25, 1.0],
        "tasks": [["t1", "=t2"], ("t3",), ()],
        "flag": np.array([True, False, True]),
    })


CSV = (
    "system,note,value,count,share,tasks,flag\n"
    "'=cmd(),'+x,,1,0.5,\"[\"\"t1\"\", \"\"=t2\"\"]\",True\n"
    "'-1,-0.5,inf,2,0.25,\"[\"\"t3\"\"]\",False\n"
    "plain,,-inf,3,1.0,[],True\n"
)

RECORDS = [
    {"system": "=cmd()", "note": "+x", "value": None, "count": 1, "share": 0.5, "tasks": ["t1", "=t2"], "flag": True},
    {"system": "-1", "note": "-0.5", "value": "inf", "count": 2, "share": 0.25, "tasks": ["t3"], "flag": False},
    {"system": "plain", "note": None, "value": "-inf", "count": 3, "share": 1.0, "tasks": [], "flag": True},
]


def test_csv_encoding_is_the_documented_one():
    out = io.StringIO()
    write_csv(_frame(), out)
    assert out.getvalue() == CSV


def test_json_encoding_is_the_documented_one(tmp_path):
    assert json_records(_frame()) == RECORDS
    write_json(_frame(), tmp_path / "t.json")
    text = (tmp_path / "t.json").read_text(encoding="utf-8")
    lines = text.splitlines()
    assert lines[0] == "[" and lines[-1] == "]" and len(lines) == 2 + len(RECORDS)   # one record per line
    assert json.loads(text) == RECORDS
    assert all(type(r["count"]) is int and type(r["flag"]) is bool for r in json.loads(text))
    write_json(_frame().iloc[:0], tmp_path / "empty.json")
    assert (tmp_path / "empty.json").read_text(encoding="utf-8") == "[]\n"


def test_numpy_values_inside_lists_and_nullable_columns():
    frame = pd.DataFrame({"xs": [np.array([1, 2]), [np.float64(np.nan), np.inf]],
                          "n": pd.array([1, None], dtype="Int64")})
    assert json_records(frame) == [{"xs": [1, 2], "n": 1}, {"xs": [None, "inf"], "n": None}]
    out = io.StringIO()
    write_csv(frame, out)
    assert out.getvalue() == 'xs,n\n"[1, 2]",1\n"[null, ""inf""]",\n'


def test_the_json_file_reads_back_with_its_infinities(tmp_path):
    write_json(_frame(), tmp_path / "t.json")
    back = read_json_table(tmp_path / "t.json")
    assert back["value"].dtype.kind == "f"
    assert math.isnan(back["value"][0]) and back["value"][1] == math.inf and back["value"][2] == -math.inf
    assert back["note"][:2].tolist() == ["+x", "-0.5"] and pd.isna(back["note"][2])     # text stays text


def test_the_command_line_prints_the_same_encoding():
    out = io.StringIO()
    emit(_frame(), "csv", file=out)
    assert out.getvalue() == CSV
    out = io.StringIO()
    emit(_frame(), "json", file=out)
    assert json.loads(out.getvalue()) == RECORDS


def test_write_frames_makes_subfolders_in_an_existing_folder(tmp_path):
    write_frames(tmp_path, {"top": _frame(), "tasks/a b/inner": _frame().iloc[:1]})
    assert (tmp_path / "top.csv").read_text(encoding="utf-8") == CSV
    assert json.loads((tmp_path / "tasks" / "a b" / "inner.json").read_text(encoding="utf-8")) == RECORDS[:1]
    assert not (tmp_path / MARKER).exists()                       # not an output folder of its own


def test_write_tables_is_atomic(tmp_path):
    target = tmp_path / "out"
    with pytest.raises(AttributeError):                                 # a frame that is not one
        write_tables(target, {"good": _frame(), "bad": object()}, {"x": 1})
    assert not target.exists() and list(tmp_path.iterdir()) == []
    write_tables(target, {"good": _frame()}, {"x": 1})
    before = {p.name: p.read_bytes() for p in target.iterdir()}
    assert set(before) == {"good.csv", "good.json", "manifest.json", MARKER}
    assert json.loads(before["manifest.json"]) == {"x": 1}
    with pytest.raises(AttributeError):
        write_tables(target, {"good": _frame(), "bad": object()}, {"x": 2})
    assert {p.name: p.read_bytes() for p in target.iterdir()} == before    # the previous output, byte for byte
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]
    with pytest.raises(ValueError):                                     # a manifest with NaN is refused
        write_tables(tmp_path / "nan", {}, {"x": float("nan")})
    assert not (tmp_path / "nan").exists()
    with pytest.raises(OutputError):
        write_tables(target, {"good": _frame()}, {}, overwrite=False)


# ----------------------------------------------------------------------------- a benchmark comparison


@pytest.fixture(scope="module")
def bench(tmp_path_factory):
    from evalreport.inputs import read_runs

    root = tmp_path_factory.mktemp("bench")
    tasks = {}
    for k, (name, classes) in enumerate((("=t1", 3), ("t2", 4))):
        demo = shared_task_data(n_systems=4, n_classes=classes, n_items=60, seed=20 + k)
        paths = demo.write(root / f"data{k}")
        tasks[name] = read_runs(paths["gold"], runs_dir=paths["runs_dir"])
    return compare_benchmark(benchmark_from_data(tasks), bootstrap=20, seed=1)


def _expected_csv_cell(v, text: bool):
    """The CSV rule for one cell, as pandas reads it back with every column as text."""
    if isinstance(v, (list, tuple, np.ndarray)):
        return json.dumps([json_value(x) for x in v], ensure_ascii=False)
    if v is None or v is pd.NA or (isinstance(v, float) and math.isnan(v)):
        return None
    if isinstance(v, (bool, np.bool_)):
        return str(bool(v))
    if isinstance(v, (float, np.floating)):
        return "inf" if v == math.inf else "-inf" if v == -math.inf else repr(float(v))
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    s = str(v)
    guard = s.startswith(("=", "+", "-", "@", "\t", "\r", "'"))
    if guard and not text:
        try:
            float(s)
            guard = False
        except ValueError:
            pass
    return ("'" + s if guard else s) or None          # empty text and a missing value: both an empty cell


def json_value(v):
    if isinstance(v, (list, tuple, np.ndarray)):
        return [json_value(x) for x in v]
    if v is None or v is pd.NA or (isinstance(v, float) and math.isnan(v)):
        return None
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    if isinstance(v, (float, np.floating)):
        return "inf" if v == math.inf else "-inf" if v == -math.inf else float(v)
    if isinstance(v, (int, np.integer)):
        return int(v)
    return v


def test_a_benchmark_comparison_is_written_by_the_rule(bench, tmp_path):
    from evalreport.escape import CSV_TEXT_COLUMNS

    out = write_comparison(bench, tmp_path / "out")
    tables = bench.tables()
    assert any("/" in name for name in tables) and any(isinstance(v, tuple) for v in bench.wins.iloc[:, -1])
    for name, frame in tables.items():
        back = pd.read_csv(out / f"{name}.csv", dtype=str, keep_default_na=False, na_values=[""])
        assert list(back.columns) == [str(c) for c in frame.columns], name
        for c in frame.columns:
            want = [_expected_csv_cell(v, str(c) in CSV_TEXT_COLUMNS) for v in frame[c].tolist()]
            got = [None if isinstance(v, float) else v for v in back[str(c)].tolist()]
            assert got == want, (name, c)
        records = json.loads((out / f"{name}.json").read_text(encoding="utf-8"))
        assert records == [{str(c): json_value(v) for c, v in zip(frame.columns, row)}
                           for row in frame.itertuples(index=False, name=None)], name
    assert json.loads((out / "manifest.json").read_text(encoding="utf-8")) == json.loads(
        json.dumps(bench.manifest(), default=str))
    for task, folder in bench.task_folders().items():
        manifest = json.loads((out / "tasks" / folder / "manifest.json").read_text(encoding="utf-8"))
        assert manifest == json.loads(json.dumps({"task": task, **bench.comparisons[task].manifest()}, default=str))
    assert bench.task_folders()["=t1"] == "task_1"
    assert pd.read_csv(out / "tasks" / "index.csv")["task"].tolist() == ["'=t1", "t2"]
    written = {str(p.relative_to(out)) for p in out.rglob("*.*") if p.is_file() and p.name != MARKER}
    assert written == set(bench.manifest()["files"]) | {"manifest.json"} | {
        f"tasks/{f}/manifest.json" for f in bench.task_folders().values()}
    assert csv_unquote(pd.read_csv(out / "task_scores.csv"))["task"].tolist() == bench.task_scores["task"].tolist()
