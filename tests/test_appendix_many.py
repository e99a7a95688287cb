"""The paper appendix stays on the page at many systems with long names: the figures and the measures x
systems and per-class tables show the first MAX_TABLE_SYSTEMS systems of the leaderboard (their captions
say so and name the CSV file with every system), and a table taller than a page continues in further
floats, each within the page, its header repeated (LaTeX: several table* floats, as longtable fails in a
two-column paper; Typst: several page floats, a column table breaking in the text).

The compiled checks (pdfLaTeX, Typst) read the PDFs' word boxes: no word lies beyond the text area."""
from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from evalreport.examples import shared_task_data
from evalreport.inputs import read_runs
from evalreport.report.appendix import latex, typst
from evalreport.report.appendix.tables import (
    MAX_TABLE_SYSTEMS,
    PART_HEIGHT_IN,
    Cell,
    Column,
    TableSpec,
    _caption_pt,
    _row_pt,
    table_parts,
    text_lines,
)


def _names(n: int) -> list[str]:
    """``n`` distinct names of 60 characters; every third begins with LaTeX and Typst specials."""
    d = shared_task_data(n_systems=n, long_names=True, n_items=60, seed=2)
    out = []
    for i, name in enumerate(d.runs):
        base = f"Team & Co. #{i} $draft$ {name} " if i % 3 == 0 else f"{name}_{'x' * 60}"
        out.append(base[:60])
    return out


# ----------------------------------------------------------------------------- the height model
def test_text_lines_counts_lines_filled_at_break_points():
    # 2.0 in at 4.6 pt a character: 31 characters a line
    assert text_lines("a" * 31, 2.0) == 1 and text_lines("a" * 32, 2.0) == 2
    assert text_lines("", 1.0) == 1
    # pieces end after "_": 16 + 16 characters do not share a 31-character line
    assert text_lines("abcdefghijklmno_abcdefghijklmno_", 2.0) == 2
    # words: "0.712 (23)" is 10 characters, a 0.66 in column holds 10
    assert text_lines("0.712 (23)", 0.66) == 1
    assert text_lines("team23_contrastive_ensemble_prompted_run2_v3.2_xxxxxxxxxxxxx", 2.0) == 3


def _board(n: int) -> TableSpec:
    cols = [Column("Rank", 0.35), Column("System", 2.0, "l"), Column("Macro F1", 1.5), Column("P(best)", 0.6)]
    rows = [[Cell(str(i + 1)), Cell(name, kind="text"), Cell("0.71", interval=("0.66", "0.75"), sup="a,b"),
             Cell("0.00")] for i, name in enumerate(_names(n))]
    return TableSpec("leaderboard-page", "Leaderboard " * 40, cols, rows, width="page", row_noun="system")


@pytest.mark.parametrize("n", [5, 25, 100, 300])
def test_table_parts_hold_every_row_once_and_each_fits_the_page(n):
    spec = _board(n)
    parts = table_parts(spec)
    assert [r for _, part in parts for r in part] == spec.rows               # every row once, in order
    assert [first for first, _ in parts] == [sum(len(p) for _, p in parts[:k]) for k in range(len(parts))]
    header = _row_pt([Cell(c.title, kind="text") for c in spec.columns], spec.columns)
    for k, (_, rows) in enumerate(parts):
        caption = _caption_pt(spec) if k == 0 else 0
        assert caption + header + sum(_row_pt(r, spec.columns) for r in rows) <= PART_HEIGHT_IN * 72
    assert (len(parts) == 1) == (n <= 5)
    # a 60-character name takes 2 or 3 lines of 2 in: at most 20 rows a part
    assert all(len(rows) <= 20 for _, rows in parts)


def test_latex_writes_a_float_per_part_with_the_header_and_one_caption():
    spec = _board(100)
    parts = table_parts(spec)
    tex = latex.table(spec)
    assert tex.count(r"\begin{table*}") == len(parts) == tex.count(r"\toprule") > 1
    assert tex.count(r"\caption{") == 1 and tex.count(r"\label{tab:evalreport-leaderboard-page}") == 1
    continued = re.findall(r"Table~\\ref\{tab:evalreport-leaderboard-page\},\{\} continued: systems (\d+)–(\d+) of 100",
                           tex)
    assert [(int(a), int(b)) for a, b in continued] == [(f + 1, f + len(r)) for f, r in parts[1:]]
    # the letters break after a comma (each a superscript box); an interval stays on one line
    assert r"\textsuperscript{a,{}}\allowbreak{}\textsuperscript{b}" in tex and "[0.66,~0.75]" in tex
    assert r"Team \& Co. \#0 \$draft\$" in tex


def test_typst_splits_page_tables_and_lets_column_tables_break():
    spec = _board(100)
    parts = table_parts(spec)
    typ = typst.table(spec)
    assert typ.count("#figure(") == len(parts) > 1
    assert typ.count("<tab:evalreport-leaderboard-page>") == len(parts)     # the label, then a query per part
    assert typ.count("numbering: none") == len(parts) - 1
    column = TableSpec("leaderboard-column", "c", spec.columns[:3], [r[:3] for r in spec.rows], row_noun="system")
    assert typst.table(column).count("#figure(") == 1                          # in the text: it breaks there
    assert "[0.66,\u00a00.75]" in typ


# ----------------------------------------------------------------------------- a 100-system appendix
@pytest.fixture(scope="module")
def hundred(tmp_path_factory):
    from evalreport.examples import Demo
    from evalreport.report.appendix import build_appendix

    tmp = tmp_path_factory.mktemp("app100")
    d = shared_task_data(n_systems=100, long_names=True, n_items=300, seed=2)
    names = _names(100)
    Demo(gold=d.gold, runs={f"s{i:03d}": fr for i, fr in enumerate(d.runs.values())}, labels=d.labels).write(tmp / "in")
    runs = read_runs(tmp / "in" / "gold.tsv", runs=sorted((tmp / "in" / "runs").glob("*.tsv")), labels=d.labels,
                     names=names)
    build_appendix(runs, tmp / "out", audit=False, progress=False, bootstrap=30, seed=1,
                   measures=["macro_f1", "accuracy", "mcc", "k"])
    return tmp / "out", names


def _data(out: Path):
    from evalreport.report.appendix.writer import AppendixData

    return AppendixData(out / "data")


def test_system_tables_show_the_first_systems_and_name_the_csv(hundred):
    from evalreport.report.appendix.tables import measures_tables, per_class_tables

    out, names = hundred
    data = _data(out)
    board = list(data.table("leaderboard").sort_values("rank", kind="stable")["system"])
    for tables, csv in ((measures_tables(data), "scores.csv"), (per_class_tables(data), "per_class.csv")):
        assert {t.form for t in tables} == {"page", "text", "column"}
        for form in ("page", "text", "column"):       # each form shows the same systems, in fewer a table
            shown = [c.title for t in tables if t.form == form for c in t.columns[1:]]
            assert shown == board[:MAX_TABLE_SYSTEMS], form
        assert all(f"the first {MAX_TABLE_SYSTEMS} systems of the leaderboard's 100" in t.caption and csv in t.caption
                   for t in tables)


def test_figures_show_the_first_systems_and_say_so(hundred):
    from evalreport.report.appendix.figures import charts_for

    out, _ = hundred
    data = _data(out)
    board = list(data.table("leaderboard").sort_values("rank", kind="stable")["system"].astype(str))
    figures = {name: (caption, chart) for name, caption, chart, _ in charts_for(data)}
    for name, csv in (("leaderboard", "leaderboard.csv"), ("ranks", "ranks.csv")):
        caption, chart = figures[name]
        spec = chart.to_dict()
        drawn = {row["system"] for rows in spec.get("datasets", {}).values() for row in rows if "system" in row}
        assert drawn == set(board[:MAX_TABLE_SYSTEMS]), name
        assert f"first {MAX_TABLE_SYSTEMS} systems" in caption and csv in caption


def test_the_leaderboard_tables_hold_every_system(hundred):
    out, names = hundred
    tex = (out / "tables" / "leaderboard-page.tex").read_text(encoding="utf-8")
    rows = [line for line in tex.splitlines() if re.match(r"\d+ & ", line)]
    assert len(rows) == 100
    assert tex.count(r"\begin{table*}") > 1
    typ = (out / "tables" / "leaderboard-column.typ").read_text(encoding="utf-8")
    assert typ.count("#figure(") == 1                     # in the text of the Typst appendix: it breaks there


def _words_outside(pdf: Path, margin_in: float) -> list[str]:
    """Words of ``pdf`` whose box leaves the text area (the page less ``margin_in`` a side; 2 pt of slack, 6 pt
    at the top and 5 pt at the bottom, where a first line's accents and a last line's descenders reach past
    the text area: the word boxes span the font's whole ascent and descent); page numbers in the bottom
    margin are allowed."""
    html = subprocess.run(["pdftotext", "-bbox", str(pdf), "-"], capture_output=True, text=True, check=True).stdout
    out = []
    for page in re.findall(r'<page width="([\d.]+)" height="([\d.]+)">(.*?)</page>', html, flags=re.S):
        w, h, body = float(page[0]), float(page[1]), page[2]
        lo, right, bottom = margin_in * 72 - 2, w - margin_in * 72 + 2, h - margin_in * 72 + 5
        for x0, y0, x1, y1, word in re.findall(
                r'<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">(.*?)</word>', body):
            if float(x0) < lo or float(x1) > right or float(y0) < lo - 4 or (float(y1) > bottom and not word.isdigit()):
                out.append(f"{word} ({float(x0):.0f}, {float(y0):.0f}, {float(x1):.0f}, {float(y1):.0f})")
    return out


@pytest.mark.slow
def test_the_typst_appendix_stays_within_the_page(hundred, tmp_path):
    typst_mod = pytest.importorskip("typst")
    if shutil.which("pdftotext") is None:
        pytest.skip("pdftotext not installed (Debian: poppler-utils)")
    out, _ = hundred
    folder = tmp_path / "typ"
    shutil.copytree(out, folder)
    typst_mod.compile(str(folder / "main-example.typ"), output=str(folder / "main.pdf"))
    assert _words_outside(folder / "main.pdf", 0.8) == []
    text = subprocess.run(["pdftotext", str(folder / "main.pdf"), "-"], capture_output=True, text=True).stdout
    assert "continued: classes" not in text and "Team & Co. #0 $draft$" in text


@pytest.mark.slow
def test_the_latex_appendix_stays_within_the_page(hundred, tmp_path):
    for tool in ("pdflatex", "bibtex", "pdftotext"):
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} not installed (Debian: texlive-latex-recommended, poppler-utils)")
    out, _ = hundred
    folder = tmp_path / "tex"
    shutil.copytree(out, folder)
    for step in (["pdflatex"], ["bibtex"], ["pdflatex"], ["pdflatex"]):
        cmd = step + (["-interaction=nonstopmode", "-halt-on-error", "main-example"] if step == ["pdflatex"]
                      else ["main-example"])
        run = subprocess.run(cmd, cwd=folder, capture_output=True, text=True, errors="replace")
        assert run.returncode == 0, run.stdout[-2000:]
    log = (folder / "main-example.log").read_text(encoding="latin-1")
    assert "Float too large" not in log and "Overfull" not in log
    assert _words_outside(folder / "main-example.pdf", 0.8) == []
    text = subprocess.run(["pdftotext", str(folder / "main-example.pdf"), "-"], capture_output=True, text=True).stdout
    assert "Table 1, continued: systems" in text


def test_typst_column_tables_after_page_tables_wait_for_them():
    """A column table in the text after page-wide tables starts once they are placed (#place.flush): in the
    strips page floats leave at the foot of pages it was dealt out a row (or a lone header) per column."""
    from evalreport.report.appendix.writer import _appendix_typ

    page = TableSpec("measures", "m", [Column("M", 1.0, "l")], [[Cell("x", kind="text")]], width="page")
    column = TableSpec("baselines", "b", [Column("B", 1.0, "l")], [[Cell("y", kind="text")]])
    lines = _appendix_typ([column, page, page, column], []).splitlines()
    includes = [line for line in lines if line.startswith(("#include \"tables", "#place.flush"))]
    assert includes == ['#include "tables/baselines.typ"', '#include "tables/measures.typ"',
                        '#include "tables/measures.typ"', "#place.flush()", '#include "tables/baselines.typ"']


# ----------------------------------------------------------------------------- seed tables at many systems
def _seed_specs(n: int):
    """The seed-spread and ASO tables of ``n`` systems with 50-character names, 3 runs each."""
    from test_appendix_seeds import _many

    from evalreport.report.appendix.seed_tables import seed_tables

    data, names = _many(n)
    return seed_tables(data), names


@pytest.mark.slow
@pytest.mark.parametrize("n", [6, 45])
def test_seed_tables_stay_within_the_page_at_many_systems(n, tmp_path):
    """The seed-spread and ASO tables of 6 systems (ASO: a page matrix) and of 45 (the first 40 shown, ASO
    against the next system) compile in the two-column example with pdfLaTeX and Typst, every word within the
    text area and no overfull box; a long table continues in further floats (LaTeX) or breaks (Typst)."""
    for tool in ("pdflatex", "pdftotext"):
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} not installed (Debian: texlive-latex-recommended, poppler-utils)")
    from evalreport.report.appendix.writer import MAIN_EXAMPLE, MAIN_EXAMPLE_TYP, write_tables

    specs, names = _seed_specs(n)
    # 6 systems: the ASO matrix across the page, with its narrower forms (all of them compiled here)
    assert [s.name for s in specs] == (["seed-spread", "aso", "aso-text", "aso-column"] if n == 6
                                       else ["seed-spread", "aso"])
    write_tables(specs, tmp_path)
    inputs = "\n".join(rf"\input{{tables/{s.name}}}" for s in specs)
    main_tex = MAIN_EXAMPLE.replace(r"\input{appendix}", inputs).replace(r"\bibliographystyle{plain}", "").replace(
        r"\bibliography{references}", "")
    (tmp_path / "main-example.tex").write_text(main_tex, encoding="utf-8")
    for _ in range(2):
        run = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "main-example"], cwd=tmp_path,
                             capture_output=True, text=True, errors="replace")
        assert run.returncode == 0, run.stdout[-2000:]
    log = (tmp_path / "main-example.log").read_text(encoding="latin-1")
    assert "Float too large" not in log and "Overfull" not in log
    assert _words_outside(tmp_path / "main-example.pdf", 0.8) == []
    text = subprocess.run(["pdftotext", str(tmp_path / "main-example.pdf"), "-"], capture_output=True,
                          text=True).stdout
    assert "Seed spread under" in text and "Almost Stochastic Order" in text
    if n > 40:
        assert "Table 1, continued: systems" in text and "of 40." in text
    typst_mod = pytest.importorskip("typst")
    show = ("#show figure.where(kind: table): set figure.caption(position: top)\n"
            "#show figure.where(kind: table): set block(breakable: true)\n")
    body = show + "".join(f'#include "tables/{s.name}.typ"\n' for s in specs)
    (tmp_path / "appendix.typ").write_text(body, encoding="utf-8")
    (tmp_path / "main-example.typ").write_text(MAIN_EXAMPLE_TYP.replace('#bibliography("references.bib")', ""),
                                               encoding="utf-8")
    typst_mod.compile(str(tmp_path / "main-example.typ"), output=str(tmp_path / "typst.pdf"), root=str(tmp_path))
    assert _words_outside(tmp_path / "typst.pdf", 0.8) == []
    flat = re.sub(r"\s+", "", subprocess.run(["pdftotext", str(tmp_path / "typst.pdf"), "-"], capture_output=True,
                                             text=True).stdout).replace("\u200b", "").replace("\u00ad", "")
    assert re.sub(r"\s+", "", names[0])[:20] in flat


@pytest.mark.slow
def test_a_typst_table_in_the_text_leaves_no_lone_row_at_a_break(tmp_path):
    """A column table breaking across columns kept 1 or 2 rows alone at the foot of a column (or the head of
    the next) for some amounts of text before it; with its first and last rows glued (typst._glue) every
    column holds at least MIN_PART_ROWS of its rows, for each of 16 amounts of text."""
    typst_mod = pytest.importorskip("typst")
    if shutil.which("pdftotext") is None:
        pytest.skip("pdftotext not installed (Debian: poppler-utils)")
    from evalreport.report.appendix.tables import MIN_PART_ROWS

    spec = TableSpec("t", "A table.", [Column("Row", 0.5, "l"), Column("Value", 0.6)],
                     [[Cell(f"R{i:02d}", kind="text"), Cell(f"0.{i:02d}")] for i in range(1, 13)], width="column")
    head = ('#set page(paper: "us-letter", margin: 0.8in, columns: 2)\n#set text(size: 10pt)\n'
            "#show figure.where(kind: table): set figure.caption(position: top)\n"
            "#show figure.where(kind: table): set block(breakable: true)\n")
    counts = []
    for words in range(380, 508, 8):
        (tmp_path / "d.typ").write_text(head + "word " * words + "\n\n" + typst.table(spec), encoding="utf-8")
        typst_mod.compile(str(tmp_path / "d.typ"), output=str(tmp_path / "d.pdf"))
        html = subprocess.run(["pdftotext", "-bbox", str(tmp_path / "d.pdf"), "-"], capture_output=True, text=True,
                              check=True).stdout
        where: dict[tuple[int, bool], int] = {}
        for p, page in enumerate(re.findall(r"<page.*?</page>", html, flags=re.S)):
            for x0 in re.findall(r'<word xMin="([\d.]+)"[^>]*>R\d\d</word>', page):
                key = (p, float(x0) > 306)           # the page and its column (US letter: 612 pt wide)
                where[key] = where.get(key, 0) + 1
        assert sum(where.values()) == 12
        counts.append(sorted(where.values()))
    assert any(len(c) > 1 for c in counts)           # the table does break at some of these amounts
    assert all(min(c) >= MIN_PART_ROWS for c in counts), counts
