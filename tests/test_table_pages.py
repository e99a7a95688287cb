"""Tables across pages in the PDF, and integers in display tables.

A long table keeps its caption, header and first rows on one page and its last rows together
(typst_table: unbreakable cells spanning them in a zero-width last column), so no page holds a
table's first or last row or two alone. The page tests sweep where the table starts (filler
paragraphs before it) and how long it is, render each case like the builtin engine and count the
rows per page in the PDF's text; each also checks that the same sweep, with the rows NOT kept
together, does show the fault (so the test can fail).

Integers from 10,000 on print with thousands separators in the HTML, Markdown and Typst tables
(not the CSV and JSON files, not seeds or ids).
"""
from __future__ import annotations

import io
import re

import pytest

pd = pytest.importorskip("pandas")
pytest.importorskip("typst")

from test_display import _pages, _pdf, _text  # noqa: E402  (the builtin engine's PDF path)

from evalreport.report import typst_table  # noqa: E402
from evalreport.report.display import GROUP_DIGITS_FROM, Table, integer_text  # noqa: E402
from evalreport.report.typst_table import MIME_TYPST, Layout, kept_rows, row_lines  # noqa: E402
from evalreport.report.write import write_csv, write_json  # noqa: E402

ROW_RE = re.compile(r"^\s*s(\d\d)\s+\d", re.M)
FILLER = "A sentence of filler text that takes one line of the page before the table begins here."


def _typst(table: Table) -> str:
    return table._repr_mimebundle_()[MIME_TYPST]["typst"]


def _rows_per_page(pdf) -> list[list[int]]:
    """The table rows (s00, s01, ...) on each page, in order."""
    return [[int(m) for m in ROW_RE.findall(_text(pdf, page=p))] for p in range(1, _pages(pdf) + 1)]


def _render(tmp_path, name: str, n_rows: int, n_filler: int):
    df = pd.DataFrame({"system": [f"s{i:02d}" for i in range(n_rows)], "value": [i / 7 for i in range(n_rows)]})
    folder = tmp_path / name
    folder.mkdir()
    filler = "\n\n".join([FILLER] * n_filler)
    pdf = _pdf(folder, [Table(df, caption="The table of the test.", index=False)],
               markdown_cells=(f"# Start\n\n{filler}",))
    return _rows_per_page(pdf), _caption_page(pdf)


def _caption_page(pdf) -> int:
    return next(p for p in range(1, _pages(pdf) + 1) if "The table of the test." in _text(pdf, page=p))


def _no_glue(monkeypatch):
    """Rows not kept together (the layout before the rule)."""
    monkeypatch.setattr(typst_table, "HEAD_ROWS", 1)
    monkeypatch.setattr(typst_table, "TAIL_ROWS", 1)
    monkeypatch.setattr(typst_table, "ROW_LINES", 0)


# Filler paragraphs that move the table's start through the foot of the page after the contents
# (one paragraph is about one and a half table rows high; 43 fill it), and table lengths that move
# its end through the next page break (66 rows fill a page).
START_SWEEP = range(37, 44)
END_SWEEP = range(65, 71)
END_FILLER = 43
HEAD, TAIL = typst_table.HEAD_ROWS, typst_table.TAIL_ROWS     # the rule (before any monkeypatch)


def _start_faults(tmp_path, tag: str) -> list[str]:
    faults = []
    for k in START_SWEEP:
        pages, caption = _render(tmp_path, f"{tag}-start-{k}", 60, k)
        first = pages[caption - 1]
        if first[:HEAD] != list(range(HEAD)):
            faults.append(f"{k} filler paragraphs: caption on page {caption} with rows {first}")
    return faults


def _end_faults(tmp_path, tag: str) -> list[str]:
    faults = []
    for n in END_SWEEP:
        pages, _ = _render(tmp_path, f"{tag}-end-{n}", n, END_FILLER)
        rows = [r for r in pages if r]
        if sorted(sum(rows, [])) != list(range(n)):
            faults.append(f"{n} rows: rows lost or repeated: {rows}")
        elif len(rows) > 1 and len(rows[-1]) < TAIL:
            faults.append(f"{n} rows: the last page holds rows {rows[-1]} alone")
    return faults


def test_a_long_table_never_starts_with_a_row_or_two_at_the_foot_of_a_page(tmp_path, monkeypatch):
    assert _start_faults(tmp_path, "kept") == []
    _no_glue(monkeypatch)
    assert _start_faults(tmp_path, "loose") != []          # the sweep does reach the fault


def test_no_page_holds_only_the_last_row_or_two_of_a_table(tmp_path, monkeypatch):
    assert _end_faults(tmp_path, "kept") == []
    _no_glue(monkeypatch)
    assert _end_faults(tmp_path, "loose") != []


def test_typst_source_spans_the_first_and_last_rows():
    df = pd.DataFrame({"system": [f"s{i:02d}" for i in range(30)], "value": [0.5] * 30})
    src = _typst(Table(df, index=False))
    assert "columns: (auto, auto, 0pt,)" in src and "align: (left, right, left,)" in src
    rows = [line for line in src.splitlines() if line.strip().startswith('"s')]
    assert len(rows) == 30
    assert rows[0].endswith("table.cell(rowspan: 4, breakable: false, inset: 0pt)[],")
    assert rows[27].endswith("table.cell(rowspan: 3, breakable: false, inset: 0pt)[],")
    assert all(r.endswith('", []' + ",") or r.endswith('.500", []' + ",") for r in rows[4:27])
    assert all(r.endswith('"0.500",') for r in rows[1:4] + rows[28:])   # spanned: no cell of their own
    short = _typst(Table(df.head(12), index=False))
    assert "#show figure: set block(breakable: false)" in short and "0pt" not in short and "rowspan" not in short


def test_a_short_table_of_tall_rows_may_break():
    """Twelve rows of prose are taller than a page: not kept whole (it would run off the page)."""
    df = pd.DataFrame({"measure": [f"m{i}" for i in range(12)], "why": ["a long explanation of the measure " * 12] * 12})
    src = _typst(Table(df, index=False))
    assert "#show figure: set block(breakable: false)" not in src
    # each row of a few lines is kept whole (never cut by a page break)
    rows = [line for line in src.splitlines() if line.strip().startswith('"m')]
    assert len(rows) == 12 and src.count("rowspan") == 2 and not any(r.endswith(", [],") for r in rows)
    assert src.count("table.cell(breakable: false, inset: 0pt)[]") >= 4


def test_row_lines_and_kept_rows():
    auto = Layout(size=8.5)
    assert row_lines([["a", "b"], ["x\ny", "z"]], auto) == [1, 2]
    # a 100 pt column at 8.5 pt: 200 characters of about half an em wrap over several lines
    narrow = Layout(size=8.5, widths=[100.0, typst_table.PORTRAIT_PT - 100.0])
    lines = row_lines([["word " * 40, "x"], ["short", "y"]], narrow)
    assert lines[1] == 1 and 8 <= lines[0] <= 14
    assert kept_rows([1] * 10, 4, 24) == 4
    assert kept_rows([9, 9, 9, 9], 4, 24) == 2
    assert kept_rows([30, 1], 4, 24) == 1
    assert kept_rows([1, 1], 4, 24) == 2
    assert kept_rows([], 4, 24) == 0


# --------------------------------------------------------------------------------------------
# Integers with thousands separators in display tables only
# --------------------------------------------------------------------------------------------
def test_integer_text():
    assert GROUP_DIGITS_FROM == 10_000
    assert integer_text(9999) == "9999" and integer_text(10_000) == "10,000"
    assert integer_text(1_234_567) == "1,234,567" and integer_text(-25_000) == "-25,000"
    assert integer_text(123_456, "seed") == "123456" and integer_text(20_250, "item_id") == "20250"
    assert integer_text(12_000, ("gold", "items")) == "12,000"


def _frame():
    return pd.DataFrame({"class": ["a", "b"], "items": [12_000, 950], "support": [10_000.0, float("nan")],
                         "seed": [123_456, 7], "F1": [0.5, 0.25]})


def test_counts_have_separators_in_every_display_representation():
    table = Table(_frame(), index=False)
    html, md, typ = table._html(), table._markdown(), _typst(table)
    assert "<td class=\"num\">12,000</td>" in html and "<td class=\"num\">10,000</td>" in html
    assert "| a | 12,000 | 10,000 | 123456 | 0.500 |" in md
    assert "| b | 950 |  | 7 | 0.250 |" in md
    assert '"12,000"' in typ and '"10,000"' in typ and '"123456"' in typ


def test_an_all_number_frame_keeps_its_integers_whole():
    """Cells are read column by column: a row of ints and floats would make the ints floats."""
    md = Table(pd.DataFrame({"n": [12_000, 3], "v": [0.5, 0.25]}), index=False)._markdown()
    assert "| 12,000 | 0.500 |" in md and "| 3 | 0.250 |" in md


def test_data_files_keep_plain_numbers():
    frame = _frame()
    out = io.StringIO()
    write_csv(frame, out)
    assert "12000" in out.getvalue() and "12,000" not in out.getvalue()
    out = io.StringIO()
    write_json(frame, out)
    assert "12000" in out.getvalue() and "12,000" not in out.getvalue()


def test_codabench_page_counts_have_separators():
    from evalreport.report.codabench_page import table_html

    frame = pd.DataFrame({"a": [12_000, 3], "b": [950, 100_000]}, index=pd.Index(["a", "b"], name="gold"))
    html = table_html(frame, "Confusion matrix", shade=True)
    assert ">12,000</td>" in html and ">100,000</td>" in html and ">950</td>" in html
