"""A Parquet input meets the limits of the other formats, judged from its metadata before any data is read
(evalreport.inputs.parquet_limits): a row longer than a text file's longest line (MAX_LINE_BYTES), and a column
that expands like a decompression bomb (the workbook rule: BOMB_BYTES at more than MAX_RATIO times)."""
from __future__ import annotations

import io
from contextlib import redirect_stderr, redirect_stdout

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from evalreport.cli import main


def cli(*argv) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        rc = main([str(a) for a in argv])
    return rc, out.getvalue(), err.getvalue()


@pytest.fixture
def gold(tmp_path):
    path = tmp_path / "gold.csv"
    path.write_text("id,label\na,x\nb,y\nc,x\n")
    return path


def _parquet(path, long_label: str, **options):
    pq.write_table(pa.table({"id": ["a", "b", "c"], "label": ["x", long_label, "x"]}), path, **options)
    return path


@pytest.fixture
def no_data_read(monkeypatch):
    """Reading any Parquet data fails the test: the refusals come from the metadata."""
    def refuse(*args, **kwargs):
        raise AssertionError("data read")
    monkeypatch.setattr(pq.ParquetFile, "read", refuse)


def test_a_row_over_the_line_limit_is_refused_like_a_text_line(tmp_path, gold, monkeypatch):
    monkeypatch.setattr("evalreport.inputs.tables.MAX_LINE_BYTES", 2 ** 20)     # read where it is defined
    label = "y" * (2 * 2 ** 20)
    csv = tmp_path / "run.csv"
    csv.write_text(f"id,label\na,x\nb,{label}\nc,x\n")
    rc, out, err = cli("score", gold, csv)
    assert rc == 2 and out == "" and err.strip().endswith("a line is longer than 1 MiB"), err
    run = _parquet(tmp_path / "run.parquet", label, row_group_size=1, compression="none")
    with monkeypatch.context() as m:
        m.setattr(pq.ParquetFile, "read", lambda *a, **k: pytest.fail("data read"))
        rc, out, err = cli("score", gold, run)
    assert rc == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert f"{run}: row 2: a row is longer than 1 MiB" in err, err
    several = _parquet(tmp_path / "group.parquet", label * 3, compression="none")     # one group of 3 rows
    rc, _, err = cli("score", gold, several)
    assert rc == 2 and "rows 1 to 3 (" in err and "a row is longer than 1 MiB" in err, err


def test_a_column_that_expands_like_a_bomb_is_refused_unread(tmp_path, gold, monkeypatch, no_data_read):
    monkeypatch.setattr("evalreport.inputs.workbooks.BOMB_BYTES", 2 ** 20)
    run = _parquet(tmp_path / "run.parquet", "y" * (3 * 2 ** 20), compression="zstd")
    rc, out, err = cli("score", gold, run)
    assert rc == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert f"{run}: column 'label' (rows 1 to 3) expands from " in err and "decompression bomb" in err, err


def test_parquet_within_the_limits_is_read(tmp_path, gold, monkeypatch):
    monkeypatch.setattr("evalreport.inputs.tables.MAX_LINE_BYTES", 2 ** 20)
    monkeypatch.setattr("evalreport.inputs.workbooks.BOMB_BYTES", 2 ** 20)
    run = _parquet(tmp_path / "run.parquet", "y", row_group_size=1)
    rc, out, err = cli("score", gold, run, "--measures", "accuracy", "--format", "csv")
    assert rc == 0 and "run,accuracy,1.0," in out, err


def test_a_column_name_with_a_dot_is_judged_as_itself(tmp_path, gold, monkeypatch):
    # Parquet joins a leaf's path with dots ("label.notes"): the column 'label.notes' (not read) is not the
    # column 'label' (read), so its expansion is not the run's problem
    monkeypatch.setattr("evalreport.inputs.workbooks.BOMB_BYTES", 2 ** 20)
    big = "y" * (3 * 2 ** 20)
    run = tmp_path / "run.parquet"
    pq.write_table(pa.table({"id": ["a", "b", "c"], "label": ["x", "y", "x"], "label.notes": ["", big, ""]}), run,
                   compression="zstd")
    rc, out, err = cli("score", gold, run, "--measures", "accuracy", "--format", "csv")
    assert rc == 0 and "run,accuracy,1.0," in out, err
    bomb = tmp_path / "bomb.parquet"
    pq.write_table(pa.table({"id": ["a", "b", "c"], "label.x": ["x", "y", "x"], "label": ["x", big, "x"]}), bomb,
                   compression="zstd")
    rc, out, err = cli("score", gold, bomb)
    assert rc == 2 and "column 'label' (rows 1 to 3) expands" in err, err
