"""Files as spreadsheets write them: a "CSV" separated by ``;`` (Excel's export wherever the decimal
mark is a comma), ``|`` or TAB under any text extension, numbers with a decimal comma (refused, with
a message saying so), and Excel workbooks (``.xlsx``, the first sheet; a "line" is its row number)."""
from __future__ import annotations

import csv
import io
import string
from contextlib import redirect_stderr, redirect_stdout

import numpy as np
import pytest
from conftest import raises, write
from hypothesis import given, settings, strategies as st

from evalreport.cli import main
from evalreport.counts import read_confusion
from evalreport.inputs import read_runs
from evalreport.inputs.costs import read_costs
from evalreport.inputs.delimiters import sniff_delimiter

openpyxl = pytest.importorskip("openpyxl")

GOLD = [("a", "x"), ("b", "y"), ("c", "x"), ("d", "z"), ("e", "y")]
PRED = [("a", "x"), ("b", "x"), ("c", "x"), ("d", "z"), ("e", "y")]


def text_file(path, rows, sep, header=("id", "label")):
    return write(path, "".join(sep.join(map(str, r)) + "\n" for r in [header, *rows]))


def xlsx(path, rows, header=("id", "label"), *, gaps=(), sheet_first=None):
    """A workbook written by openpyxl: ``header`` in row 1, ``rows`` below, an empty row before each
    data row whose index is in ``gaps``; ``sheet_first``: rows of another sheet put before it."""
    book = openpyxl.Workbook()
    sheet = book.active
    if sheet_first is not None:
        sheet.title = "notes"
        for row in sheet_first:
            sheet.append(list(row))
        sheet = book.create_sheet("data", 0)           # the first sheet is the one read
    sheet.append(list(header))
    for k, row in enumerate(rows):
        if k in gaps:
            sheet.append([])
        sheet.append(list(row))
    book.save(path)
    return path


def _same(runs, reference):
    assert runs.labels == reference.labels and list(runs.ids) == list(reference.ids)
    assert np.array_equal(runs.gold, reference.gold) and np.array_equal(runs.pred, reference.pred)


@pytest.fixture
def reference(tmp_path):
    g = text_file(tmp_path / "ref_gold.csv", GOLD, ",")
    r = text_file(tmp_path / "ref_run.csv", PRED, ",")
    return read_runs(g, [r])


# ----------------------------------------------------------------------------- separators


@pytest.mark.parametrize("sep, ext", [(";", "csv"), ("|", "csv"), ("\t", "csv"), (",", "tsv"), (";", "tsv")])
def test_a_file_reads_whatever_its_separator(tmp_path, reference, sep, ext):
    g = text_file(tmp_path / f"gold.{ext}", GOLD, sep)
    r = text_file(tmp_path / f"run.{ext}", PRED, sep)
    _same(read_runs(g, [r]), reference)


def test_the_extensions_separator_is_kept_when_it_splits_the_header(tmp_path):
    """Labels holding ';' in a comma CSV stay whole: the file reads as it is named."""
    g = text_file(tmp_path / "gold.csv", [("a", "x;1"), ("b", "y;2"), ("c", "x;1")], ",")
    assert sniff_delimiter(g, ",") == ","
    assert read_runs(g, [g]).labels == ("x;1", "y;2")


def test_an_inconsistent_line_names_its_line_and_the_separator_found(tmp_path):
    g = text_file(tmp_path / "gold.csv", GOLD, ";")
    r = write(tmp_path / "run.csv", "id;label\na;x\nb;x\nc;x;extra\nd;z\ne;y\n")
    with raises("line has 3 fields but the header has 2 (separator ';')", path=r, line=4):
        read_runs(g, [r])


def test_a_header_no_separator_splits_keeps_the_missing_column_message(tmp_path):
    g = write(tmp_path / "gold.csv", "id label\na x\nb y\n")
    with raises("missing columns 'id', 'label'; the columns found are: 'id label' (one column: none of the "
                "separators TAB, ',', ';', '|' splits the header)", path=g, line=1):
        read_runs(g, [g])


@settings(max_examples=60, deadline=None)
@given(sep=st.sampled_from([",", ";", "\t", "|"]), ext=st.sampled_from(["csv", "tsv"]),
       labels=st.lists(st.text(alphabet=string.ascii_letters + ",;|\t \"'", min_size=1, max_size=6)
                       .filter(lambda s: s.strip() and s.strip() not in ("nan", "NaN", "NAN", "null", "NULL", "Null")),
                       min_size=2, max_size=8))
def test_any_separator_with_quoted_labels_holding_the_others_round_trips(tmp_path_factory, sep, ext, labels):
    """What Python's csv writer (as Excel, quoting where needed) writes with any of the four separators
    is read back with the same labels, whatever other separators the labels hold."""
    path = tmp_path_factory.mktemp("sep") / f"gold.{ext}"
    buf = io.StringIO()
    writer = csv.writer(buf, delimiter=sep, lineterminator="\n")
    writer.writerow(["id", "label", "fold"])
    rows = [(f"i{k}", label, f"f{k % 2}") for k, label in enumerate(labels)]
    writer.writerows(rows)
    path.write_text(buf.getvalue(), encoding="utf-8")
    if len({label.strip() for label in labels}) < 2:
        return
    runs = read_runs(path, [path])
    assert sniff_delimiter(path, "," if ext == "csv" else "\t") == sep
    assert [runs.labels[c] for c in runs.gold] == [label.strip() for label in labels]


def test_a_decimal_comma_score_is_refused_naming_its_line(tmp_path):
    g = text_file(tmp_path / "gold.csv", [("a", "pos"), ("b", "neg"), ("c", "pos")], ";")
    r = text_file(tmp_path / "run.csv", [("a", "pos", "0.9"), ("b", "neg", "0,25"), ("c", "pos", "1")], ";",
                  header=("id", "label", "score"))
    with raises("score '0,25' in column 'score' is not a number: write the decimal point as '.' (0.25), "
                "not a decimal comma", path=r, line=3):
        read_runs(g, [r])
    # without the bad value the same file reads, scores and all
    text_file(r, [("a", "pos", "0.9"), ("b", "neg", "0.25"), ("c", "pos", "1")], ";", header=("id", "label", "score"))
    assert read_runs(g, [r]).scores.tolist() == [[0.9, 0.25, 1.0]]


def test_confusion_and_cost_files_separated_by_semicolons(tmp_path):
    square = write(tmp_path / "sys.csv", "gold;a;b\na;5;1\nb;2;4\n")
    assert read_confusion(square).tensor.tolist() == [[[5, 1], [2, 4]]]
    long = write(tmp_path / "long.csv", "gold;predicted;count\na;a;5\na;b;1\nb;a;2\nb;b;4\n")
    assert read_confusion(long).tensor.tolist() == [[[5, 1], [2, 4]]]
    decimal = write(tmp_path / "dec.csv", "gold;a;b\na;5,5;1\nb;2;4\n")
    with raises("count '5,5' in column 'a' is not a number: write the decimal point as '.' (5.5)", path=decimal,
                line=2):
        read_confusion(decimal)
    costs = write(tmp_path / "costs.csv", "gold;a;b\na;0;1\nb;2;0\n")
    assert read_costs(costs, ["a", "b"]).tolist() == [[0, 1], [2, 0]]
    bad = write(tmp_path / "bad_costs.csv", "gold;a;b\na;0;1,5\nb;2;0\n")
    with raises("cost '1,5' is not a number: write the decimal point as '.' (1.5)", path=bad, line=2):
        read_costs(bad, ["a", "b"])


def _cli(argv):
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


def test_the_cli_scores_a_semicolon_csv_as_the_comma_one(tmp_path):
    rows = [(f"i{k}", "abc"[k % 3]) for k in range(30)]
    preds = [(i, "abc"[(k * 7) % 3]) for k, (i, _) in enumerate(rows)]
    results = []
    for sep, name in ((",", "comma"), (";", "semi")):
        g = text_file(tmp_path / f"{name}_gold.csv", rows, sep)
        r = text_file(tmp_path / f"{name}_run.csv", preds, sep)
        code, out, err = _cli(["score", str(g), str(r), "--format", "csv", "--measures", "accuracy,macro_f1"])
        assert code == 0, err
        results.append(out.replace(f"{name}_run", "run"))
    assert results[0] == results[1]


def test_the_duckdb_backend_reads_a_semicolon_csv(tmp_path):
    pytest.importorskip("duckdb")
    from evalreport.counts.bigdata import count_confusions

    g = text_file(tmp_path / "gold.csv", GOLD, ";")
    r = text_file(tmp_path / "runs.csv", [("s", i, lab) for i, lab in PRED], ";", header=("system", "id", "label"))
    counts = count_confusions(g, [r], engine="duckdb")
    assert counts.tensor.sum() == len(GOLD) and list(counts.labels) == ["x", "y", "z"]


# ----------------------------------------------------------------------------- Excel workbooks


def test_xlsx_gold_and_run_read_as_the_csv_files(tmp_path, reference):
    g = xlsx(tmp_path / "gold.xlsx", GOLD, sheet_first=[("a note", "not data")])
    r = xlsx(tmp_path / "run.xlsx", PRED, gaps=(2,))                 # an empty row is skipped
    _same(read_runs(g, [r]), reference)
    mixed = read_runs(text_file(tmp_path / "gold.csv", GOLD, ";"), [r])  # a workbook against a CSV gold file
    _same(mixed, reference)


def test_xlsx_numbers_dates_and_scores_become_text_and_floats(tmp_path):
    import datetime

    g = xlsx(tmp_path / "gold.xlsx", [(1, 0, "f1"), (2.0, 1, "f1"), (3, 1, "f2"), (4, 0, "f2")],
             header=("id", "label", "fold"))
    r = xlsx(tmp_path / "run.xlsx", [(1, 0, 0.25), (2, 1, 0.75), (3, 0, 1), (4, 0, 0.5)],
             header=("id", "label", "score"))
    runs = read_runs(g, [r])
    assert list(runs.ids) == ["1", "2", "3", "4"] and runs.labels == ("0", "1")
    assert runs.scores.tolist() == [[0.25, 0.75, 1.0, 0.5]] and runs.fold_names == ("f1", "f2")
    d = xlsx(tmp_path / "dates.xlsx", [(datetime.date(2024, 1, 2), "x"), (True, "y")])
    assert list(read_runs(d, [d]).ids) == ["2024-01-02", "TRUE"]


def test_xlsx_errors_name_the_sheet_row(tmp_path):
    g = xlsx(tmp_path / "gold.xlsx", GOLD)
    r = xlsx(tmp_path / "run.xlsx", [("a", "x"), ("b", "x"), ("c", "MAYBE"), ("d", "z"), ("e", "y")], gaps=(1,))
    # row 1 header, a (2), empty (3), b (4), c (5)
    with raises("predicted label 'MAYBE' is not a class", path=r, line=5, item="c"):
        read_runs(g, [r])
    cols = xlsx(tmp_path / "cols.xlsx", PRED, header=("id", "prediction"))
    with raises("missing column 'label'; the columns found are: 'id', 'prediction'", path=cols, line=1):
        read_runs(g, [cols])
    na = xlsx(tmp_path / "na.xlsx", [("a", "x"), ("b", "#N/A")])
    with raises("cell B3 holds the spreadsheet error '#N/A'", path=na, line=3):
        read_runs(g, [na])
    wide = xlsx(tmp_path / "wide.xlsx", [("a", "x"), ("b", "y", None, "stray")])
    with raises("a value in column D beyond the header's 2 column(s) ('stray')", path=wide, line=3):
        read_runs(g, [wide])
    dup = xlsx(tmp_path / "dup.xlsx", [("a", "x", "y")], header=("id", "label", "label"))
    with raises("column 'label' appears twice in the header", path=dup, line=1):
        read_runs(g, [dup])
    empty = xlsx(tmp_path / "empty.xlsx", [], header=("id", "label"))
    with raises("run file has no rows (only a header)", path=empty):
        read_runs(g, [empty])
    fake = write(tmp_path / "fake.xlsx", "id,label\na,x\n")
    with raises("cannot read as an Excel workbook (.xlsx)", path=fake):
        read_runs(g, [fake])


def test_xlsx_in_a_runs_folder_and_the_lock_file_beside_it(tmp_path, reference):
    folder = tmp_path / "runs"
    folder.mkdir()
    xlsx(folder / "run.xlsx", PRED)
    write(folder / "~$run.xlsx", "lock")            # what Excel leaves beside an open workbook
    g = text_file(tmp_path / "gold.csv", GOLD, ",")
    with pytest.warns(UserWarning, match=r"~\$run.xlsx \(a spreadsheet's lock file\)"):
        runs = read_runs(g, runs_dir=folder)
    assert runs.systems == ("run",)
    _same(runs, reference)


def test_an_xlsx_confusion_matrix_and_cli_errors_exit_2(tmp_path):
    m = xlsx(tmp_path / "sys.xlsx", [("a", 5, 1), ("b", 2, 4)], header=("gold", "a", "b"))
    assert read_confusion(m).tensor.tolist() == [[[5, 1], [2, 4]]]
    g = xlsx(tmp_path / "gold.xlsx", GOLD)
    r = xlsx(tmp_path / "run.xlsx", [("a", "x"), ("b", "x"), ("c", "MAYBE")])
    code, out, err = _cli(["score", str(g), str(r)])
    lines = err.strip().splitlines()
    assert code == 2 and out == "" and len(lines) == 1 and f"{r}, line 4, id 'c'" in lines[0]


def test_a_formula_never_computed_is_named_not_called_an_empty_prediction(tmp_path):
    """openpyxl (like pandas' writer) saves a formula without its value; the reader reads cached values, so
    the cell looks empty. The message says what it is: the sheet, the cell and how to compute it."""
    g = xlsx(tmp_path / "gold.xlsx", GOLD)
    r = xlsx(tmp_path / "run.xlsx", [("a", "x"), ("b", "x"), ("c", '=IF(1>0,"x","y")'), ("d", "z"), ("e", "y")])
    code, out, err = _cli(["score", str(g), str(r)])
    lines = err.strip().splitlines()
    assert code == 2 and out == "" and len(lines) == 1, err
    assert f"{r}, line 4: " in lines[0] and "sheet 'Sheet', cell B4" in lines[0]
    assert "formula whose value was never computed" in lines[0] and "LibreOffice" in lines[0]
    assert "empty" not in lines[0]
    blank = xlsx(tmp_path / "blank.xlsx", [("a", "x"), ("b", None)])       # a truly empty cell stays "empty"
    code, _, err = _cli(["score", str(g), str(blank)])
    assert code == 2 and "missing predicted label" in err and "never computed" not in err
