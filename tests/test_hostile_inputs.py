"""Hostile and unlucky inputs: each case either works or stops
with one line naming the file, the line (or id) and the problem, exit status 2, nothing written,
no traceback.

The library-level cases assert on the :class:`InputError` (file, line, problem) as
tests/test_inputs.py does; the CLI cases run ``evalreport.cli.main`` and assert on the exit
status and stderr. Large inputs are never written: the NUL-byte check is tested on small files
and on an endless stream (it must stop at the first NUL), the class limit with a small limit.
"""
from __future__ import annotations

import bz2
import gzip
import io
import lzma
import math
import os
import re
import warnings
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from conftest import raises, write, write_rows
from test_inputs import GOLD_ROWS

from evalreport.cli import main
from evalreport.counts import read_confusion, read_confusions
from evalreport.errors import MeasureError
from evalreport.inputs import Runs, checks, read_runs, readers
from evalreport.inputs.costs import read_costs
from evalreport.measures import REGISTRY, catalogue, compute, evaluate, get

VALID = b"id\tlabel\na\tx\nb\ty\nc\tx\nd\tz\n"


@pytest.fixture
def gold(tmp_path):
    return write_rows(tmp_path / "gold.tsv", GOLD_ROWS)


def _parquet_two_label_columns(path: Path) -> Path:
    table = pa.table([pa.array(["a", "b", "c", "d"]), pa.array(["x", "y", "x", "z"]), pa.array(["y", "x", "x", "z"])],
                     names=["id", "label", "label"])
    pq.write_table(table, path)
    return path


def _fifo(path: Path) -> Path:
    os.mkfifo(path)
    return path


# ----------------------------------------------------------------------------- hostile run files

#: (file name, content (bytes/str, or a function path -> path), problem, line named (None: no line))
HOSTILE_RUN_FILES = [
    pytest.param("r.tsv", b"id\tlabel\ra\tx\rb\ty\rc\tx\rd\tz\r", "carriage return only", 1, id="cr_only_line_endings"),
    pytest.param("r.tsv", b"\0" * 5000, "NUL byte (0x00) at byte 1", 1, id="nul_bytes_only"),
    pytest.param("r.tsv", VALID + b"\0" * 5000, "NUL byte (0x00) at byte 26", 6, id="valid_tsv_then_nul_bytes"),
    pytest.param("r.jsonl", b'{"id": "a", "label": "x"}\n{"id": "b", "la\0bel": "y"}\n', "NUL byte", 2, id="nul_in_jsonl"),
    pytest.param("r.tsv", gzip.compress(VALID), "gzip-compressed, not text: decompress it first (gzip -dc r.tsv >",
                 None, id="gzip_named_tsv"),
    pytest.param("r.csv", bz2.compress(VALID), "bzip2-compressed", None, id="bzip2_named_csv"),
    pytest.param("r.jsonl", lzma.compress(VALID), "xz-compressed", None, id="xz_named_jsonl"),
    pytest.param("r.tsv", "id\tlabel\na\tx\n".encode("utf-16"), "UTF-16 text (its byte-order mark says so)", 1,
                 id="utf16_with_bom"),
    pytest.param("r.tsv", "id\tlabel\na\tx\n".encode("utf-16-le"), "binary data or UTF-16 text", 1,
                 id="utf16_without_bom"),
    pytest.param("r.tsv", b"id\tlabel", "run file has no rows (only a header)", None, id="header_only_no_final_newline"),
    pytest.param("r.csv", b"id,label\r\n\r\n", "run file has no rows (only a header)", None, id="header_only_blank_lines"),
    pytest.param("r.jsonl", '{"id": "a", "label": "x", "label": "y"}\n{"id": "b", "label": "y"}\n',
                 "key 'label' appears twice in one JSON object", 1, id="jsonl_key_twice_first_row"),
    pytest.param("r.jsonl", '{"id": "a", "label": "x"}\n{"id": "b", "label": "y"}\n\n{"id": "c", "label": "x", "label": "z"}\n',
                 "key 'label' appears twice in one JSON object", 4, id="jsonl_key_twice_later_row"),
    pytest.param("r.parquet", _parquet_two_label_columns, "column 'label' appears twice in the Parquet schema",
                 None, id="parquet_two_label_columns"),
    pytest.param("r.tsv", _fifo, "named pipe (FIFO), not a regular file", None, id="fifo"),
]


@pytest.mark.parametrize("name,content,problem,line", HOSTILE_RUN_FILES)
def test_hostile_run_file(tmp_path, gold, name, content, problem, line):
    run = content(tmp_path / name) if callable(content) else write(tmp_path / name, content)
    with raises(problem, path=run, line=line) as info:
        read_runs(gold, [run])
    assert "\n" not in str(info.value) and len(str(info.value)) < 400


@pytest.mark.parametrize("name,content,problem,line", HOSTILE_RUN_FILES)
def test_hostile_run_file_cli(tmp_path, gold, capsys, name, content, problem, line):
    """The same files through the command line: exit 2, one line, no traceback, nothing written."""
    run = content(tmp_path / name) if callable(content) else write(tmp_path / name, content)
    before = sorted(p.name for p in tmp_path.iterdir())
    assert main(["score", str(gold), str(run), "--measures", "accuracy"]) == 2
    err = capsys.readouterr().err
    assert_one_error_line(err, problem, path=run)
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def assert_one_error_line(err: str, problem: str, path=None) -> None:
    lines = [ln for ln in err.splitlines() if not ln.startswith("evalreport: note:")]
    assert len(lines) == 1, err
    assert lines[0].startswith("evalreport: error: ") and problem in lines[0], err
    assert "Traceback" not in err
    if path is not None:
        assert str(path) in lines[0]


def _sparse_nul(path: Path) -> Path:
    """A 2 GB file of NUL bytes, sparse: no disk is used, and a reader that parses it stalls."""
    with open(path, "wb") as handle:
        handle.truncate(2 * 1024 ** 3)
    return path


#: Gold files that the multi-label detection of ``score``/``compare``/``report`` must not read
#: before the file checks have passed them: (file name, content, problem).
HOSTILE_GOLD_FILES = [
    pytest.param("gold.tsv", _fifo, "named pipe (FIFO), not a regular file", id="fifo"),
    pytest.param("gold.tsv", _sparse_nul, "NUL byte (0x00) at byte 1", id="2gb_of_nul_bytes"),
    pytest.param("gold.tsv", b"id\tlabel\n" + b"\0" * 300_000, "NUL byte (0x00) at byte 10", id="header_then_nul"),
    pytest.param("gold.parquet", _parquet_two_label_columns, "column 'label' appears twice in the Parquet schema",
                 id="parquet_two_label_columns"),
    pytest.param("gold.csv", gzip.compress(VALID), "gzip-compressed", id="gzip_named_csv"),
]


def _evalreport_in_child(*args: str, timeout: float = 60):
    """``python -m evalreport ARGS`` in a child process with 2 GB of address space and a time limit: an
    input that a regression reads without end fails the test instead of hanging it or filling the
    machine's memory."""
    import resource
    import subprocess
    import sys

    def cap():
        resource.setrlimit(resource.RLIMIT_AS, (2 * 1024 ** 3, 2 * 1024 ** 3))

    path = os.pathsep.join(filter(None, [str(Path(__file__).resolve().parents[1]), os.environ.get("PYTHONPATH")]))
    try:
        return subprocess.run([sys.executable, "-m", "evalreport", *args], capture_output=True, text=True,
                              timeout=timeout, preexec_fn=cap, env={**os.environ, "PYTHONPATH": path})
    except subprocess.TimeoutExpired:
        pytest.fail(f"evalreport {' '.join(args)} did not end within {timeout} s")


@pytest.mark.parametrize("name,content,problem", HOSTILE_GOLD_FILES)
def test_hostile_gold_file_is_checked_before_the_multilabel_detection_reads_it(tmp_path, name, content, problem):
    gold = content(tmp_path / name) if callable(content) else write(tmp_path / name, content)
    run = write_rows(tmp_path / "run.tsv", GOLD_ROWS)
    done = _evalreport_in_child("score", str(gold), str(run), "--measures", "accuracy")
    assert done.returncode == 2, done.stderr[-2000:]
    assert_one_error_line(done.stderr, problem, path=gold)


@pytest.mark.parametrize("command", [["score"], ["compare", "--no-progress"]])
def test_gold_link_to_an_endless_device_is_refused_at_once(tmp_path, command):
    """A gold .tsv that is a symbolic link to /dev/zero: refused as a device, never read (the
    multi-label detection read it without end, about 300 MB/s)."""
    if not Path("/dev/zero").exists():
        pytest.skip("no /dev/zero")
    gold = tmp_path / "gold.tsv"
    gold.symlink_to("/dev/zero")
    run = write_rows(tmp_path / "run.tsv", GOLD_ROWS)
    done = _evalreport_in_child(*command, str(gold), str(run), "--measures", "accuracy")
    assert done.returncode == 2, done.stderr[-2000:]
    assert_one_error_line(done.stderr, "gold file is a device, not a regular file", path=gold)


def test_gold_header_over_the_csv_field_limit_is_read(tmp_path, gold, capsys):
    """A gold header line over the csv module's 128 KiB field limit: the detection leaves it to the
    full reader, which reads it."""
    wide = write(tmp_path / "wide.tsv", "id\tlabel\t" + "h" * 200_000 + "\n"
                 + "".join(f"{i}\t{lab}\t1\n" for i, lab in GOLD_ROWS))
    run = write_rows(tmp_path / "run.tsv", GOLD_ROWS)
    assert main(["score", str(wide), str(run), "--measures", "accuracy", "--format", "csv"]) == 0
    assert "run,accuracy,1.0" in capsys.readouterr().out


def test_nul_check_reads_no_further_than_the_first_nul():
    """A 2 GB file of NUL bytes costs one read: the check stops at the first block holding a NUL
    (here an endless stream, which would never end if the check read on)."""
    class EndlessNul(io.RawIOBase):
        read_bytes = 0

        def readable(self):
            return True

        def readinto(self, buffer):
            buffer[:] = b"\0" * len(buffer)
            self.read_bytes += len(buffer)
            return len(buffer)

    stream = io.BufferedReader(EndlessNul(), buffer_size=4096)
    assert checks.first_nul(stream, chunk=4096) == (0, 1)
    assert stream.raw.read_bytes <= 2 * 4096
    # the offset and the line of a NUL after text, across block boundaries
    data = b"id\tlabel\n" + b"a\tx\n" * 3000 + b"\0"
    assert checks.first_nul(io.BytesIO(data), chunk=1000) == (len(data) - 1, 3002)
    assert checks.first_nul(io.BytesIO(b"id\tlabel\na\tx\n"), chunk=4) is None


def test_very_long_header_field_and_label_are_read(tmp_path, gold):
    """Python's csv module stops at 128 KiB fields and pyarrow at lines over its 1 MiB block: a 200 KiB
    column name and a 3 MB label are read (the label is then an unknown class, named in short)."""
    wide = write(tmp_path / "wide.tsv", "id\tlabel\t" + "h" * 200_000 + "\n" + "".join(f"{i}\t{lab}\t1\n" for i, lab in GOLD_ROWS))
    assert read_runs(gold, [wide]).pred.tolist() == [[0, 1, 0, 2]]
    long = write(tmp_path / "long.tsv", "id\tlabel\na\t" + "x" * 3_000_000 + "\nb\ty\nc\tx\nd\tz\n")
    with raises("(3000000 characters) is not a class", path=long, line=2, item="a") as info:
        read_runs(gold, [long])
    assert len(str(info.value)) < 600


def test_a_line_over_the_line_limit(tmp_path, gold, monkeypatch):
    monkeypatch.setattr("evalreport.inputs.tables.MAX_LINE_BYTES", 2 ** 20)   # read where it is defined
    long = write(tmp_path / "long.tsv", "id\tlabel\na\t" + "x" * 3_000_000 + "\nb\ty\n")
    with raises("a line is longer than 1 MiB", path=long):
        read_runs(gold, [long])
    header = write(tmp_path / "header.tsv", "id\tlabel\t" + "h" * 3_000_000 + "\na\tx\t1\n")
    with raises("line 1 is longer than 1 MiB", path=header, line=1):
        read_runs(gold, [header])


def test_bzip2_magic_needs_the_whole_signature(tmp_path):
    """A header that merely starts with 'BZh' is text."""
    gold = write(tmp_path / "g.tsv", "BZh9\tid\tlabel\n1\ta\tx\n2\tb\ty\n")
    assert read_runs(gold, [gold], id_col="id").n_items == 2


# ----------------------------------------------------------------------------- runs folders


def test_runs_folder_names_hidden_files_and_symlink_loops(tmp_path):
    gold = write(tmp_path / "g.tsv", "id\tlabel\n1\ta\n2\tb\n")
    folder = tmp_path / "runs"
    folder.mkdir()
    write(folder / "A.tsv", "id\tlabel\n1\ta\n2\tb\n")
    write(folder / ".late-team.tsv", "id\tlabel\n1\ta\n2\ta\n")
    (folder / "l1").symlink_to("l2")
    (folder / "l2").symlink_to("l1")
    with pytest.warns(UserWarning, match=r"3 entries .* not read: '.late-team.tsv \(hidden\)', "
                                         r"'l1 \(broken or looping symbolic link\)', 'l2 \(broken"):
        runs = read_runs(gold, runs_dir=folder)
    assert runs.systems == ("A",)
    with pytest.warns(UserWarning, match=r"1 entry of the runs folder is not a run file .* was not read"):
        (folder / "l1").unlink()
        (folder / "l2").unlink()
        read_runs(gold, runs_dir=folder)


def test_runs_folder_that_is_a_symlink_loop(tmp_path):
    gold = write(tmp_path / "g.tsv", "id\tlabel\n1\ta\n2\tb\n")
    loop = tmp_path / "loop"
    loop.symlink_to("loop")
    with raises("symbolic link loop", path=loop):
        read_runs(gold, runs_dir=loop)
    with raises("gold file is a broken symbolic link or a symbolic link loop", path=loop):
        read_runs(loop, [gold])


# ----------------------------------------------------------------------------- class limit


def test_too_many_distinct_labels_are_refused_with_the_size(tmp_path, monkeypatch):
    """100,000 distinct labels would need 74.5 GiB of confusion matrices: refused above MAX_CLASSES
    (here lowered to 5, so the test stays small)."""
    monkeypatch.setattr(readers, "MAX_CLASSES", 5)
    gold = write(tmp_path / "g.tsv", "id\tlabel\n" + "".join(f"{k}\tL{k}\n" for k in range(6)))
    with raises("6 distinct gold labels: more than the 5 classes evalreport handles", path=gold):
        read_runs(gold, [gold])
    with raises("6 classes in the labels list"):
        read_runs(gold, [gold], labels=[f"L{k}" for k in range(6)])
    small = write(tmp_path / "small.tsv", "id\tlabel\n" + "".join(f"{k}\tL{k % 4}\n" for k in range(6)))
    run = write(tmp_path / "r.tsv", "id\tlabel\n" + "".join(f"{k}\tnew{k}\n" for k in range(6)))
    with raises("classes with this run's unknown labels", path=run):
        read_runs(small, [run], allow_unknown=True)
    assert "74.5 GiB for K = 100,000" in readers.too_many_classes(100_000)


def test_too_many_classes_in_confusion_files(tmp_path, monkeypatch):
    monkeypatch.setattr(readers, "MAX_CLASSES", 3)
    square = write(tmp_path / "m.csv", ",a,b,c,d\na,1,0,0,0\nb,0,1,0,0\nc,0,0,1,0\nd,0,0,0,1\n")
    with raises("4 classes in the header: more than the 3 classes", path=square, line=1):
        read_confusion(square)
    long = write(tmp_path / "long.csv", "gold,predicted,count\na,b,1\nc,d,1\n")
    with raises("4 distinct class names", path=long):
        read_confusion(long)
    one = write(tmp_path / "one.csv", "gold,predicted,count\na,b,1\n")
    two = write(tmp_path / "two.csv", "gold,predicted,count\nc,d,1\n")
    with raises("4 classes in the files together"):
        read_confusions([one, two])


# ----------------------------------------------------------------------------- confusion files


BAD_CONFUSION = [
    pytest.param("m.csv", ",a,b\na,0,0\nb,0,0\n", "every count is 0", id="all_zero_square"),
    pytest.param("long.csv", "system,gold,predicted,count\nA,a,b,1\nB,a,a,0\n", "system 'B': every count is 0",
                 id="all_zero_one_system_of_a_long_file"),
    pytest.param("t.json", b"0\t0\t5\n1\t1\t3\n\0\0\0", "NUL byte", id="nul_in_triplets"),
    pytest.param("m.tsv", gzip.compress(b"a\tb\n1\t2\n3\t4\n"), "gzip-compressed", id="gzip_square"),
]


@pytest.mark.parametrize("name,content,problem", BAD_CONFUSION)
def test_bad_confusion_file(tmp_path, name, content, problem):
    path = write(tmp_path / name, content)
    with raises(problem, path=path):
        read_confusion(path)


def test_all_zero_confusion_in_report_cli(tmp_path, capsys):
    path = write(tmp_path / "m.csv", ",a,b\na,0,0\nb,0,0\n")
    out = tmp_path / "out"
    assert main(["report", "--confusion", str(path), "-o", str(out), "--quiet"]) == 2
    assert_one_error_line(capsys.readouterr().err, "every count is 0", path=path)
    assert not out.exists()


# ----------------------------------------------------------------------------- report arguments


@pytest.mark.parametrize("extra,problem", [
    pytest.param(["--seed", "-1"], "--seed must be an integer >= 0; got -1", id="negative_seed"),
    pytest.param(["--what-if", "x=nan"], "share of 'x' must be a finite number; got nan", id="what_if_nan"),
    pytest.param(["--what-if", "x=inf,y=1"], "share of 'x' must be a finite number; got inf", id="what_if_inf"),
])
def test_report_arguments(tmp_path, gold, capsys, extra, problem):
    out = tmp_path / "out"
    assert main(["report", str(gold), str(gold), "-o", str(out), "--quiet", *extra]) == 2
    assert_one_error_line(capsys.readouterr().err, problem)
    assert not out.exists()


def test_missing_report_extra_is_one_line(tmp_path, gold, capsys, monkeypatch):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "papermill" else real(name, *a))
    out = tmp_path / "out"
    assert main(["report", str(gold), str(gold), "-o", str(out), "--quiet"]) == 2
    assert_one_error_line(capsys.readouterr().err, "(missing: papermill); install evalreport[report]")
    assert not out.exists()


# ----------------------------------------------------------------------------- cost files


@pytest.mark.parametrize("content,problem", [
    pytest.param(b"gold,x,y,z\nx,0,1,1\ny,1,0,1\nz,1,1,0\n\0", "NUL byte", id="nul"),
    pytest.param(b"gold,x,y,z\rx,0,1,1\ry,1,0,1\rz,1,1,0\r", "carriage return only", id="cr_only"),
    pytest.param(b"gold,x,y,z\nx,0,1,1\ny,1,0,1\nz,1,1," + b"9" * 200_000 + b"\n", "cannot read as a cost matrix",
                 id="huge_field"),
])
def test_bad_cost_file(tmp_path, content, problem):
    path = write(tmp_path / "costs.csv", content)
    with raises(problem, path=path):
        read_costs(path, ["x", "y", "z"])


def test_cost_file_that_is_a_fifo(tmp_path):
    path = _fifo(tmp_path / "costs.csv")
    with raises("not a regular file", path=path):
        read_costs(path, ["x", "y"])


# ----------------------------------------------------------------------------- gold column names


def test_gold_with_other_column_names(tmp_path, capsys):
    gold = write(tmp_path / "gold.tsv", "item\tgold\na\tx\nb\ty\n")
    run = write(tmp_path / "sys.tsv", "id\tlabel\nb\ty\na\ty\n")
    runs = read_runs(gold, [run], gold_id_col="item", gold_label_col="gold")
    assert list(runs.ids) == ["a", "b"] and runs.pred.tolist() == [[1, 1]]
    assert main(["score", str(gold), str(run), "--gold-id-col", "item", "--gold-label-col", "gold",
                 "--measures", "accuracy", "--format", "csv"]) == 0
    assert "sys,accuracy,0.5" in capsys.readouterr().out
    with raises("missing column 'label'", path=gold, line=1):
        read_runs(gold, [run], gold_id_col="item")
    assert main(["score", "--confusion", str(gold), "--gold-label-col", "gold"]) == 2
    assert_one_error_line(capsys.readouterr().err, "--gold-label-col apply to gold and run files")


# ----------------------------------------------------------------------------- Runs


def test_runs_repr_is_a_summary():
    n = 5000
    runs = Runs(gold=np.zeros(n, int), pred=np.zeros((8, n), int), labels=["a", "b"],
                systems=[f"team-{k}" for k in range(8)], ids=np.array([f"item-{k}" for k in range(n)]))
    text = repr(runs)
    assert text.startswith("Runs(8 systems ['team-0',") and "5,000 items" in text and "2 classes ['a', 'b']" in text
    assert "item-" not in text and len(text) < 200


# ----------------------------------------------------------------------------- measures


@pytest.mark.parametrize("policy", ["nan", "zero", "one", "convention"])
@pytest.mark.parametrize("measure", ["k", "k_cost", "confusion_entropy"])
def test_one_class_matrix_is_flagged_not_a_crash(measure, policy):
    """evaluate(np.array([[3]]), labels=['a']) raised ZeroDivisionError in k and k_cost (K/(K-1));
    confusion_entropy returned 0 (a log base 2(K-1) = 0) without a flag."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")        # no numpy warning either
        frame = evaluate(np.array([[3]]), [measure], labels=["a"], costs=np.zeros((1, 1)), policy=policy)
    row = frame.iloc[0]
    assert bool(row["undefined"]) and "only one class" in row["reason"]
    expect = {"nan": math.nan, "zero": 0.0, "one": 1.0, "convention": math.nan}[policy]
    assert (math.isnan(row["value"]) and math.isnan(expect)) or row["value"] == expect


def test_one_class_matrix_default_measures_do_not_warn_or_raise():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        frame = evaluate(np.array([[3]]), labels=["a"])
    assert len(frame) > 50


def test_k_unchanged_on_two_or_more_classes(rng):
    """The one-ratio form (K mean_rho - 1) / (K - 1) is eq. 10's K/(K-1) mean_rho - 1/(K-1)."""
    C = rng.integers(1, 9, size=(20, 4, 4)).astype(float)
    rho = np.diagonal(C, axis1=1, axis2=2) / C.sum(axis=2)
    assert np.allclose(compute("k", C).value, 4 / 3 * rho.mean(axis=1) - 1 / 3)


@pytest.mark.parametrize("spec,problem", [
    pytest.param("fbeta(beta=nan)", "parameter beta must be a finite number >= 0; got nan", id="fbeta_nan"),
    pytest.param("fbeta(beta=inf)", "parameter beta must be a finite number >= 0; got inf", id="fbeta_inf"),
    pytest.param("fbeta(beta=-1)", "parameter beta must be a finite number >= 0; got -1", id="fbeta_negative"),
    pytest.param("fbeta_macro(beta=nan)", "parameter beta must be a finite number >= 0", id="fbeta_macro_nan"),
    pytest.param("gm(r=nan)", "parameter r must be a finite number; got nan", id="gm_nan"),
    pytest.param("k_cost(error=xx)", "unknown error 'xx'; choose one of ae, se", id="k_cost_error"),
])
def test_parameters_are_validated_by_their_declaration(spec, problem):
    with pytest.raises(MeasureError) as info:
        get(spec)
    assert problem in str(info.value)
    with pytest.raises(MeasureError):
        REGISTRY[spec.split("(")[0]].with_params(**{spec.split("(")[1].split("=")[0]: math.nan})


def test_valid_parameters_still_work():
    assert get("fbeta(beta=0)").params == {"beta": 0.0}
    assert get("gm(r=-2)").params == {"r": -2.0}
    assert get("k_cost(error=se)").params == {"error": "se"}


def test_bad_parameter_cli(tmp_path, gold, capsys):
    assert main(["score", str(gold), str(gold), "--positive", "x", "--measures", "fbeta(beta=nan)"]) == 2
    assert_one_error_line(capsys.readouterr().err, "parameter beta must be a finite number >= 0; got nan")


def test_formula_texts_share_one_notation():
    """N items and K classes everywhere: no formula, undefined-case or chance text writes n or m (Opitz
    2022 and Gösgens et al. 2021 use n for the classes and for the items respectively)."""
    symbol = re.compile(r"(?<![A-Za-z_'])[nm](?![A-Za-z_'(])")
    offenders = [(m.id, field, text) for m in catalogue() for field in ("formula", "undefined", "chance_note")
                 if symbol.search(text := getattr(m, field))]
    assert not offenders, offenders[:5]
    assert REGISTRY["accuracy"].formula == "sum_i c_ii / N"
    assert REGISTRY["macro_precision"].formula.startswith("(1/K) sum_i")
    assert REGISTRY["mcc"].formula.startswith("(N sum_i c_ii")


@pytest.mark.parametrize("command", ["compare", "simulate"])
def test_negative_seed_is_one_line_in_every_seeded_command(tmp_path, gold, capsys, command):
    out = tmp_path / "out"
    args = (["compare", str(gold), str(gold), "--out", str(out)] if command == "compare"
            else ["simulate", "-o", str(out), "--quiet"])
    assert main([*args, "--seed", "-1"]) == 2
    assert_one_error_line(capsys.readouterr().err, "--seed must be an integer >= 0; got -1")
    assert not out.exists()


def test_confusion_folder_names_what_it_did_not_read(tmp_path):
    folder = tmp_path / "matrices"
    folder.mkdir()
    write(folder / "A.csv", ",a,b\na,1,2\nb,3,4\n")
    write(folder / ".late.csv", ",a,b\na,1,2\nb,3,4\n")
    write(folder / "README.md", "notes")
    with pytest.warns(UserWarning, match=r"2 entries of the folder not read .*: '.late.csv \(hidden\)', 'README.md'"):
        counts = read_confusions(folder)
    assert counts.systems == ("A",)


def test_no_numpy_warning_reaches_the_user_on_a_one_item_input(tmp_path, capsys):
    """`compare` on one item: numpy's 'invalid value encountered in multiply' (chance baselines,
    enumeration with a zero-probability class) is not printed as a note."""
    g = write_rows(tmp_path / "g.tsv", [["1", "a"]])
    r1 = write_rows(tmp_path / "s1.tsv", [["1", "a"]])
    r2 = write_rows(tmp_path / "s2.tsv", [["1", "b"]])
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)     # a numpy warning anywhere fails the command
        assert main(["compare", str(g), str(r1), str(r2), "--labels", "a,b", "--bootstrap", "20"]) == 0
    err = capsys.readouterr().err
    assert "encountered" not in err and "RuntimeWarning" not in err


def test_the_quick_look_at_a_gold_file_reads_a_bounded_first_line(tmp_path, monkeypatch):
    """The multi-label detection looks at the first line alone, and not past its limit: a longer first
    line (one record of a file with no line breaks) is left to the full reader, with its own limits."""
    from evalreport.inputs import multilabel

    monkeypatch.setattr(multilabel, "_QUICK_CHARS", 64)
    short = write(tmp_path / "short.jsonl", '\n\n{"id": "a", "label": "x"}\n{"id": "b", "label": ["y"]}\n')
    long = write(tmp_path / "long.jsonl", '{"id": "a", "label": ["x"], "note": "' + "n" * 200 + '"}\n')
    header = write(tmp_path / "header.tsv", "id\tlabel\t" + "h" * 100 + "\na\tx\n")
    assert multilabel._label_column_kind(short, "label") == "scalar"
    assert multilabel._label_column_kind(long, "label") is None
    assert multilabel._label_column_kind(header, "label") is None
    assert multilabel._label_column_kind(write(tmp_path / "ok.tsv", "id\tlabel\na\tx\n"), "label") == "scalar"
    assert multilabel.detect_multilabel(long, long_form=False) is True      # the full reader sees the list
