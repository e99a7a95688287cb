"""The appendix's tables fit the paper's text width: a table with a column per system (every measure, per-class
F1, slices, the ASO matrix) comes in several forms, the page of a two-column paper (6.9 in), the default
``article`` class's text (345 pt, 4.8 in) and one column (3.0 in: ACL's 3.03 in), and appendix.tex / appendix.typ set the
widest form the text holds, as they already did for the leaderboard. With 5 systems the page-wide measures
table ran 41.5 pt, and with 6-7 systems 95-149 pt, into the margin of the default article class.

These are source-level checks: appendix.tex's ``\\ifdim`` chains and appendix.typ's ``#context`` choices are
evaluated here at a given text width, and the tables they set are measured by their own header line
(``% NAME: W in wide``). tests/test_appendix_compile.py compiles the article and the default Typst page."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from test_appendix_many import _names

from evalreport.report.appendix.tables import (
    ARTICLE_IN,
    COLUMN_IN,
    MIN_PART_ROWS,
    PAGE_IN,
    Cell,
    Column,
    TableSpec,
    even_chunks,
    table_parts,
)

#: Text widths (in) to evaluate the choices at: a page, the article's text, a column, and between them.
WIDTHS = (PAGE_IN, 6.3, 5.5, ARTICLE_IN, 4.0, COLUMN_IN)


@pytest.fixture(scope="module", params=[3, 5, 8])
def bundle(request, tmp_path_factory) -> tuple[Path, int]:
    """An appendix of ``n`` systems with 60-character names, 3 runs each (the ASO matrix), without figures."""
    from test_appendix_seeds import _seed_task

    from evalreport.inputs import read_runs
    from evalreport.report.appendix import build_appendix, writer

    n = request.param
    tmp = tmp_path_factory.mktemp(f"width{n}")
    gold, runs = _seed_task(tmp / "in", _names(n), 3, n_items=90)
    with pytest.MonkeyPatch.context() as mp:          # the figures play no part in the tables' widths
        mp.setattr(writer, "write_figures", lambda *a, **k: [])
        build_appendix(read_runs(gold, runs_dir=runs), tmp / "out", audit=False, progress=False, bootstrap=50, seed=1,
                       primary="macro_f1")
    return tmp / "out", n


_TEX_TOKEN = re.compile(r"\\ifdim\\textwidth<([\d.]+)in\\relax|\\else|\\fi|\\input\{\\evalreportdir tables/([^}]+)\}")


def _tex_chosen(line: str, width_in: float) -> list[str]:
    """The tables an appendix.tex line inputs where ``\\textwidth`` is ``width_in`` inches."""
    tokens = list(_TEX_TOKEN.finditer(line))

    def run(i: int, live: bool) -> tuple[list[str], int]:
        out: list[str] = []
        while i < len(tokens) and tokens[i].group(0) not in (r"\else", r"\fi"):
            t = tokens[i]
            if t.group(2):
                out += [t.group(2)] * live
                i += 1
                continue
            narrower = width_in < float(t.group(1))
            then, i = run(i + 1, live and narrower)
            assert tokens[i].group(0) == r"\else", line
            other, i = run(i + 1, live and not narrower)
            assert tokens[i].group(0) == r"\fi", line
            out += then + other
            i += 1
        return out, i

    chosen, end = run(0, True)
    assert end == len(tokens), line
    return chosen


_TYP_TOKEN = re.compile(r'if evalreport-text-width\(\) < ([\d.]+)in|else|include "tables/([^"]+)\.typ"|\{|\}')


def _typ_chosen(line: str, width_in: float) -> list[str]:
    """The tables an appendix.typ line includes where the page's text is ``width_in`` inches wide."""
    if line.startswith('#include "tables/'):
        return [re.match(r'#include "tables/([^"]+)\.typ"', line).group(1)]
    tokens = [t for t in _TYP_TOKEN.finditer(line)]

    def block(i: int, live: bool) -> tuple[list[str], int]:
        assert tokens[i].group(0) == "{", line
        out: list[str] = []
        i += 1
        while tokens[i].group(0) != "}":
            t = tokens[i]
            if t.group(2):
                out += [t.group(2)] * live
                i += 1
                continue
            assert t.group(1), line
            narrower = width_in < float(t.group(1))
            then, i = block(i + 1, live and narrower)
            assert tokens[i].group(0) == "else", line
            other, i = block(i + 1, live and not narrower)
            out += then + other
        return out, i + 1

    chosen, end = block(0, True)
    assert end == len(tokens), line
    return chosen


def _table_width(out: Path, name: str) -> float:
    head = (out / "tables" / f"{name}.tex").read_text(encoding="utf-8").splitlines()[0]
    return float(re.match(rf"% {re.escape(name)}: ([\d.]+) in wide", head).group(1))


def _table_lines(text: str, prefix: str) -> list[str]:
    return [ln for ln in text.splitlines() if ln.startswith(prefix) and "tables/" in ln]


def test_latex_sets_at_every_text_width_tables_that_fit_it(bundle):
    """At 6.9, 6.3, 5.5, 4.8 (article), 4.0 and 3.0 in of text every table appendix.tex inputs is at most as
    wide as the text, and the measures and per-class tables show every system once."""
    out, n = bundle
    lines = _table_lines((out / "appendix.tex").read_text(encoding="utf-8"), "\\")
    for width in WIDTHS:
        chosen = [name for ln in lines for name in _tex_chosen(ln, width)]
        too_wide = [(name, _table_width(out, name)) for name in chosen if _table_width(out, name) > width + 0.005]
        assert not too_wide, (width, too_wide)
        for family in ("measures", "per-class-f1"):
            shown = [c for name in chosen if re.fullmatch(rf"{family}(-text|-column)?(-\d+)?", name)
                     for c in _header(out, name)[1:]]
            assert len(shown) == n and len(set(shown)) == n, (width, family, shown)
        assert sum(name.startswith("aso") for name in chosen) == 1, (width, chosen)
    # the widest text takes the page form, with the names it always had
    page = [name for ln in lines for name in _tex_chosen(ln, PAGE_IN)]
    assert "measures" in page or "measures-1" in page


def _header(out: Path, name: str) -> list[str]:
    """The header cells of a table's .tex file (the system columns' titles as written)."""
    tex = (out / "tables" / f"{name}.tex").read_text(encoding="utf-8")
    head = tex.split("\\toprule\n", 1)[1].split(" \\\\\n", 1)[0]
    return head.split(" & ")


def test_typst_makes_the_same_choice_as_latex(bundle):
    """appendix.typ chooses among the same tables at the same widths (by the page's text width in a context)."""
    out, _ = bundle
    tex = _table_lines((out / "appendix.tex").read_text(encoding="utf-8"), "\\")
    typ_text = (out / "appendix.typ").read_text(encoding="utf-8")
    assert "#let evalreport-text-width()" in typ_text
    typ = [ln.removeprefix("#context ") for ln in _table_lines(typ_text, "#") if "leaderboard" not in ln]
    for width in WIDTHS:
        in_tex = [name for ln in tex for name in _tex_chosen(ln, width) if "leaderboard" not in name]
        in_typ = [name for ln in typ for name in _typ_chosen(ln, width)]
        assert in_typ == in_tex, width


def test_the_article_takes_narrower_tables_from_five_systems(bundle):
    """The page form is set where the text holds it: from 5 systems it is wider than the article's 345 pt."""
    out, n = bundle
    lines = _table_lines((out / "appendix.tex").read_text(encoding="utf-8"), "\\")
    measures = next(ln for ln in lines if "tables/measures" in ln)
    page = _tex_chosen(measures, PAGE_IN)
    assert (max(_table_width(out, name) for name in page) > ARTICLE_IN) == (n in (5, 6, 7))
    assert (_tex_chosen(measures, ARTICLE_IN) != page) == (n in (5, 6, 7))


# ----------------------------------------------------------------------------- splitting rows and systems
@pytest.mark.parametrize("n, size", [(25, 4), (25, 7), (8, 7), (13, 2), (4, 7), (1, 3)])
def test_even_chunks_differ_by_at_most_one(n, size):
    """25 systems 4 to a table are 4+4+4+4+3+3+3, not six of 4 and a lone one."""
    parts = even_chunks(list(range(n)), size)
    assert [x for p in parts for x in p] == list(range(n))
    assert len(parts) == -(-n // size) and max(map(len, parts)) - min(map(len, parts)) <= 1
    assert max(map(len, parts)) <= size


def _rows_table(n: int, lines: int = 1) -> TableSpec:
    name = " ".join(["word"] * 6 * lines)
    return TableSpec("t", "A caption.", [Column("Name", 1.0, "l"), Column("Value", 0.6)],
                     [[Cell(f"{name} {i}", kind="text"), Cell("0.5")] for i in range(n)], width="page")


@pytest.mark.parametrize("lines", [1, 3])
def test_no_part_of_a_long_table_holds_a_lone_row(lines):
    """A table a little taller than a page continued with its last row alone; now every part holds at least
    MIN_PART_ROWS rows, every row once, each part within the page."""
    one = len(table_parts(_rows_table(400, lines))[0][1])        # rows of a full first part
    for n in range(one - 2, one + 2 * MIN_PART_ROWS + 2):
        parts = table_parts(_rows_table(n, lines))
        assert [r for _, p in parts for r in p] == _rows_table(n, lines).rows
        if len(parts) > 1:
            assert min(len(p) for _, p in parts) >= MIN_PART_ROWS, (n, [len(p) for _, p in parts])


def test_typst_tables_in_the_text_glue_their_first_and_last_rows():
    """A column table (in the text, where it breaks) has a zero-width last column whose unbreakable cells span
    its first and its last MIN_PART_ROWS rows; a page table (a float, split by table_parts) has none."""
    from evalreport.report.appendix import typst

    spec = _rows_table(10)
    spec.width = "column"
    src = typst.table(spec)
    assert src.count(f"table.cell(rowspan: {MIN_PART_ROWS}, breakable: false, inset: 0pt)[]") == 2
    assert "0pt,)" in src
    short = _rows_table(4)
    short.width = "column"
    assert "table.cell(rowspan: 4, breakable: false" in typst.table(short)      # a short table stays whole
    assert "rowspan" not in typst.table(_rows_table(10))


def test_slices_come_in_every_form_in_the_appendix(tmp_path):
    """The slices table (rows: slices; columns: systems) has the forms of the measures table in the appendix
    (build_all asks for them); each form shows every system once and fits its text."""
    from slices_view_frames import slice_frames, write_tables

    from evalreport.report.appendix.slices import slices_tables
    from evalreport.report.appendix.tables import FORMS
    from evalreport.report.appendix.writer import AppendixData

    data = AppendixData(write_tables(tmp_path / "many", slice_frames(20, 4, long=True)))
    specs = slices_tables(data, forms=True)
    assert [s for s in specs if s.form == "page"] and {s.family for s in specs} == {"slices"}
    for form, width in FORMS:
        part = [s for s in specs if s.form == form]
        assert sum(len(s.columns) - 1 for s in part) == 20, form
        assert all(s.total_width() <= width + 1e-9 for s in part), form
    assert [s.name for s in slices_tables(data)] == [s.name for s in specs if s.form == "page"]
