"""The same predictions give the same systems and scores whatever the layout and the backend.

A run file with a ``system`` column (the long layout ``system, id, label``) names its systems by that
column in memory as the out-of-core backends do, a wide file (``id, label_<system>, ...``) by its column
names (:mod:`evalreport.inputs.system_column`); a folder of one file per system names them by the file
stems. ``score``, ``compare`` and ``report`` read the runs
in memory and must give the table ``score --backend duckdb`` gives on the long file.
"""
from __future__ import annotations

import io
import os
import shutil
from contextlib import redirect_stdout
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from evalreport.cli import main
from evalreport.errors import InputError
from evalreport.inputs import read_runs

CLASSES = ("neg", "neu", "pos")
SYSTEMS = ("sys10", "sys2", "alpha")       # natural order: alpha, sys2, sys10
MEASURES = "accuracy,macro_f1,mcc,k"


def _data(n: int = 90, seed: int = 11) -> tuple[list[str], list[str], dict[str, list[str]]]:
    """Ids, gold labels and each system's predictions (seeded)."""
    rng = np.random.default_rng(seed)
    gold = rng.integers(0, 3, n)
    preds = {}
    for k, name in enumerate(SYSTEMS):
        right = rng.random(n) < 0.5 + 0.15 * k
        preds[name] = [CLASSES[int(v)] for v in np.where(right, gold, rng.integers(0, 3, n))]
    return [f"d{i}" for i in range(n)], [CLASSES[int(v)] for v in gold], preds


def _write(tmp: Path) -> dict[str, Path]:
    """The gold file and the same runs as one long TSV, one long Parquet, one file per system and
    per-system files that carry the system column (named unlike their system)."""
    ids, gold, preds = _data()
    out = {"gold": tmp / "gold.tsv", "long": tmp / "long.tsv", "long_parquet": tmp / "long.parquet",
           "folder": tmp / "per_system", "parts": tmp / "parts", "wide": tmp / "wide.csv",
           "wide_parquet": tmp / "wide.parquet"}
    out["gold"].write_text("id\tlabel\n" + "".join(f"{i}\t{g}\n" for i, g in zip(ids, gold)))
    rows = [(s, i, p) for s in SYSTEMS for i, p in zip(ids, preds[s])]
    out["long"].write_text("id\tsystem\tlabel\n" + "".join(f"{i}\t{s}\t{p}\n" for s, i, p in rows))
    pq.write_table(pa.table({"system": [r[0] for r in rows], "id": [r[1] for r in rows],
                             "label": [r[2] for r in rows]}), out["long_parquet"])
    out["wide"].write_text("id," + ",".join(f"label_{s}" for s in SYSTEMS) + "\n" + "".join(
        f"{i}," + ",".join(preds[s][k] for s in SYSTEMS) + "\n" for k, i in enumerate(ids)))
    pq.write_table(pa.table({"id": ids, **{f"label_{s}": preds[s] for s in SYSTEMS}}), out["wide_parquet"])
    out["folder"].mkdir()
    out["parts"].mkdir()
    for k, s in enumerate(SYSTEMS):
        (out["folder"] / f"{s}.tsv").write_text("id\tlabel\n" + "".join(f"{i}\t{p}\n" for i, p in zip(ids, preds[s])))
        (out["parts"] / f"part{k}.tsv").write_text(
            "system\tid\tlabel\n" + "".join(f"{s}\t{i}\t{p}\n" for i, p in zip(ids, preds[s])))
    return out


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, Path]:
    return _write(tmp_path_factory.mktemp("system_column"))


def _score(*argv: str) -> pd.DataFrame:
    """``evalreport score ... --format csv`` as a frame (exit status 0 checked)."""
    buf = io.StringIO()
    with redirect_stdout(buf):
        rc = main(["score", *argv, "--measures", MEASURES, "--format", "csv"])
    assert rc == 0, buf.getvalue()
    return pd.read_csv(io.StringIO(buf.getvalue()))


def test_long_file_names_systems_by_its_column_in_memory_as_duckdb_does(files):
    g = str(files["gold"])
    duck = _score(g, str(files["long"]), "--backend", "duckdb")
    assert list(dict.fromkeys(duck["system"])) == ["alpha", "sys2", "sys10"]
    layouts = {"long tsv": _score(g, str(files["long"])),
               "long parquet": _score(g, str(files["long_parquet"])),
               "wide csv": _score(g, str(files["wide"])),
               "wide parquet": _score(g, str(files["wide_parquet"])),
               "per-system folder": _score(g, "--runs-dir", str(files["folder"])),
               "parts with a system column": _score(g, "--runs-dir", str(files["parts"])),
               "parts, duckdb": _score(g, "--runs-dir", str(files["parts"]), "--backend", "duckdb")}
    for name, got in layouts.items():
        pd.testing.assert_frame_equal(got, duck, check_exact=True, obj=name)


def _spark_unavailable() -> str | None:
    try:
        import pyspark  # noqa: F401
    except ImportError:
        return "pyspark is not installed"
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        return "Java is not on this machine (Spark needs a JVM)"
    return None


@pytest.mark.slow
@pytest.mark.skipif(_spark_unavailable() is not None, reason=str(_spark_unavailable()))
def test_spark_names_the_systems_of_the_long_file_as_memory_does(files):
    g = str(files["gold"])
    pd.testing.assert_frame_equal(_score(g, str(files["long"]), "--backend", "spark"), _score(g, str(files["long"])),
                                  check_exact=True)
    pd.testing.assert_frame_equal(_score(g, "--runs-dir", str(files["folder"]), "--backend", "spark"),
                                  _score(g, "--runs-dir", str(files["folder"])), check_exact=True)


def test_read_runs_splits_a_long_file_and_keeps_the_file_in_the_sources(files):
    long = read_runs(files["gold"], [files["long"]])
    folder = read_runs(files["gold"], runs_dir=files["folder"])
    assert long.systems == ("alpha", "sys2", "sys10")
    order = [folder.systems.index(s) for s in long.systems]
    np.testing.assert_array_equal(long.pred, folder.pred[order])
    runs = [s for s in long.sources if s.role == "run"]
    assert [s.system for s in runs] == list(long.systems)
    assert {s.path for s in runs} == {str(files["long"])} and all(s.rows == 90 for s in runs)
    renamed = read_runs(files["gold"], [files["long"]], names=["a", "b", "c"])
    assert renamed.systems == ("a", "b", "c")
    with pytest.raises(InputError, match=r"2 system name\(s\) for 3 systems \('alpha', 'sys2', 'sys10'"):
        read_runs(files["gold"], [files["long"]], names=["a", "b"])
    ignored = read_runs(files["gold"], runs_dir=files["parts"], system_col=None)
    assert ignored.systems == ("part0", "part1", "part2")


def test_a_workbook_in_the_long_layout_is_split_as_a_text_file(files, tmp_path):
    openpyxl = pytest.importorskip("openpyxl")
    book = openpyxl.Workbook()
    sheet = book.active
    for line in files["long"].read_text().splitlines():
        sheet.append(line.split("\t"))
    book.save(tmp_path / "long.xlsx")
    got = read_runs(files["gold"], [tmp_path / "long.xlsx"])
    text = read_runs(files["gold"], [files["long"]])
    assert got.systems == text.systems
    np.testing.assert_array_equal(got.pred, text.pred)


def test_messages_about_a_long_file_name_its_line_and_the_system(tmp_path, capsys):
    gold = tmp_path / "gold.tsv"
    gold.write_text("id\tlabel\n1\ta\n2\tb\n3\ta\n")
    runs = tmp_path / "runs.tsv"
    runs.write_text("system\tid\tlabel\nA\t1\ta\nA\t2\tb\nA\t3\ta\nB\t1\ta\nB\t2\tzebra\nB\t3\ta\n")
    rc = main(["score", str(gold), str(runs)])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and len(err) == 1
    assert f"{runs}, line 6, id '2': system 'B': predicted label 'zebra' is not a class" in err[0]
    runs.write_text("system\tid\tlabel\nA\t1\ta\nA\t2\tb\nA\t3\ta\nB\t1\ta\nB\t3\ta\n")
    rc = main(["score", str(gold), str(runs)])
    err = capsys.readouterr().err
    assert rc == 2 and "system 'B': no prediction for gold id '2'" in err
    other = tmp_path / "other.tsv"
    other.write_text("system\tid\tlabel\nB\t1\ta\nB\t2\tb\nB\t3\ta\n")
    runs.write_text("system\tid\tlabel\nB\t1\ta\nB\t2\tb\nB\t3\ta\n")
    rc = main(["score", str(gold), str(runs), str(other)])
    err = capsys.readouterr().err
    assert rc == 2 and "system name 'B' is used twice" in err and str(other) in err


def _values(frame: pd.DataFrame) -> pd.DataFrame:
    """A score table's uncalibrated values, one row per (system, measure), sorted."""
    if "calibrated" in frame:
        frame = frame[~frame["calibrated"].astype(bool)]
    cols = ["system", "measure", "value", "undefined"]
    return frame[cols].sort_values(["system", "measure"], kind="stable").reset_index(drop=True)


@pytest.mark.slow
def test_score_compare_and_report_give_one_score_table_for_every_layout(files, tmp_path):
    g = str(files["gold"])
    expected = _values(_score(g, str(files["long"]), "--backend", "duckdb"))
    layouts = {"long": [str(files["long"])], "wide": [str(files["wide"])], "folder": ["--runs-dir", str(files["folder"])]}
    for name, runs in layouts.items():
        pd.testing.assert_frame_equal(_values(_score(g, *runs)), expected, check_exact=True, obj=f"score, {name}")
        out = tmp_path / f"compare-{name}"
        assert main(["compare", g, *runs, "--measures", MEASURES, "--bootstrap", "50", "--seed", "4",
                     "--out", str(out)]) == 0
        pd.testing.assert_frame_equal(_values(pd.read_csv(out / "scores.csv")), expected, check_exact=True,
                                      obj=f"compare, {name}")
        report = tmp_path / f"report-{name}"
        assert main(["report", g, *runs, "--measures", MEASURES, "--bootstrap", "30", "--seed", "4",
                     "--formats", "html", "-o", str(report)]) == 0
        assert (report / "report.html").is_file()
        pd.testing.assert_frame_equal(_values(pd.read_csv(report / "tables" / "scores.csv")), expected,
                                      check_exact=True, obj=f"report, {name}")
        inputs = pd.read_csv(report / "tables" / "inputs.csv")
        assert sorted(inputs.loc[inputs["role"] == "run", "system"]) == sorted(SYSTEMS)


def test_a_wide_file_names_the_column_in_its_messages_and_refuses_scores(tmp_path, capsys):
    gold = tmp_path / "gold.tsv"
    gold.write_text("id\tlabel\n1\ta\n2\tb\n3\ta\n")
    wide = tmp_path / "wide.tsv"
    wide.write_text("id\tlabel_A\tlabel_B\n1\ta\ta\n2\tb\tzebra\n3\ta\ta\n")
    rc = main(["score", str(gold), str(wide)])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and len(err) == 1
    assert f"{wide}, line 3, id '2': system 'B' (column 'label_B'): predicted label 'zebra' is not a class" in err[0]
    wide.write_text("id\tlabel_A\tlabel_B\tscore\n1\ta\ta\t0.1\n2\tb\tb\t0.2\n3\ta\ta\t0.3\n")
    rc = main(["score", str(gold), str(wide)])
    err = capsys.readouterr().err
    assert rc == 2 and "a wide run file (label_<system> columns) cannot carry score columns ('score')" in err
    wide.write_text("id\tlabel_A\tlabel_B\n1\ta\ta\n2\tb\tb\n3\ta\ta\n")
    assert read_runs(gold, [wide]).systems == ("A", "B")


def test_duckdb_says_which_layouts_it_reads_when_a_run_table_has_neither_system_nor_label(files, capsys):
    rc = main(["score", str(files["gold"]), str(files["wide"]), "--backend", "duckdb"])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and len(err) == 1
    assert "missing columns 'system', 'label'" in err[0]
    assert "the out-of-core backends read the long layout (system, id, label) or one file per system" in err[0]
    assert "a wide file (label_<system> columns) is read in memory (--backend memory)" in err[0]


def test_duckdb_names_files_without_a_system_column_by_their_stems_as_memory_does(files, tmp_path):
    g = str(files["gold"])
    memory = _score(g, "--runs-dir", str(files["folder"]))
    pd.testing.assert_frame_equal(_score(g, "--runs-dir", str(files["folder"]), "--backend", "duckdb"), memory,
                                  check_exact=True)
    given = [str(files["folder"] / f"{s}.tsv") for s in ("sys2", "alpha", "sys10")]   # the order given is kept
    got = _score(g, *given, "--backend", "duckdb")
    assert list(dict.fromkeys(got["system"])) == ["sys2", "alpha", "sys10"]
    pd.testing.assert_frame_equal(got, _score(g, *given), check_exact=True)
    beside = tmp_path / "beside"              # the gold file in the runs folder is no run, as in memory
    shutil.copytree(files["folder"], beside)
    shutil.copy(files["gold"], beside / "gold.tsv")
    pd.testing.assert_frame_equal(_score(str(beside / "gold.tsv"), "--runs-dir", str(beside), "--backend", "duckdb"),
                                  memory, check_exact=True)
    pd.testing.assert_frame_equal(_score(str(beside / "gold.tsv"), "--runs-dir", str(beside)), memory, check_exact=True)
    twice = tmp_path / "other"
    twice.mkdir()
    (twice / "alpha.tsv").write_text((files["folder"] / "alpha.tsv").read_text())
    with pytest.raises(InputError, match=r"system name 'alpha' is used twice"):
        from evalreport.counts.bigdata import count_confusions

        count_confusions(files["gold"], [files["folder"] / "alpha.tsv", twice / "alpha.tsv"])


def test_an_unknown_id_in_a_long_file_is_not_offered_the_multi_label_reading(tmp_path, capsys):
    files = _write(tmp_path)
    lines = files["long"].read_text().splitlines()
    lines[3] = "zz9\t" + lines[3].split("\t", 1)[1]            # line 4: an id the gold file does not have
    files["long"].write_text("\n".join(lines) + "\n")
    assert main(["score", str(files["gold"]), str(files["long"]), "--measures", "accuracy"]) == 2
    err = capsys.readouterr().err
    assert "line 4" in err and "'zz9' is not in the gold file" in err
    assert "--multilabel" not in err        # the repeated ids are the system column's, not label sets
