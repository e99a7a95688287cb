"""The appendix compiles: main-example.tex with pdfLaTeX + BibTeX and main-example.typ with Typst, for
the demo and for a 25-system shared task with hostile, long names; the figures are vector PDF/SVG of
the stated widths with embedded fonts; ``report --appendix`` agrees with report.html to the digit.

pdfLaTeX comes from Debian's texlive packages (.ci/run installs them); without them those tests skip.
"""
from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from evalreport.examples import Demo, shared_task_data
from evalreport.report.appendix.latex import CHAR_MACRO

pytestmark = pytest.mark.slow

HOSTILE = ["a_b&c%", '#import "x.typ"', r"\input{/etc/passwd}", "$x$", "{", "~", "^", "système–été", "日本語",
           "--x''", "a very long system name with spaces and more words",
           "team07_averyveryverylongunbrokenidentifier_run3.v2"]


def _need(*tools):
    for tool in tools:
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} not installed (Debian: texlive-latex-base, texlive-latex-recommended, "
                        "texlive-fonts-recommended, poppler-utils; .ci/run installs them where it can)")
    if shutil.which("kpsewhich") and subprocess.run(["kpsewhich", "booktabs.sty"], capture_output=True).returncode:
        pytest.skip("booktabs.sty not found (Debian: texlive-latex-recommended)")


def _write_task(folder: Path, n_systems: int) -> tuple[Path, list[str]]:
    d = shared_task_data(n_systems=n_systems, long_names=True)
    names = (HOSTILE + list(d.runs))[:n_systems]
    demo = Demo(gold=d.gold, runs={f"s{i:02d}": fr for i, fr in enumerate(d.runs.values())}, labels=d.labels)
    demo.write(folder)
    return folder, names


@pytest.fixture(scope="module")
def shared25(tmp_path_factory):
    from evalreport.cli import main

    tmp = tmp_path_factory.mktemp("st25")
    src, names = _write_task(tmp / "in", 25)
    runs = sorted((src / "runs").glob("*.tsv"))
    assert not any("," in n for n in names)          # --names is comma-separated
    rc = main(["appendix", str(src / "gold.tsv"), *map(str, runs), "--names", ",".join(names),
               "-o", str(tmp / "out"), "--no-audit", "--quiet"])
    assert rc == 0
    return tmp / "out", names


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    from evalreport.examples import load_demo
    from evalreport.report.appendix import build_appendix

    tmp = tmp_path_factory.mktemp("demo")
    build_appendix(load_demo(), tmp / "out", positive="nine", audit=False, progress=False)
    return tmp / "out"


def _pdflatex(folder: Path) -> str:
    for step in (["pdflatex"], ["bibtex"], ["pdflatex"], ["pdflatex"]):
        cmd = step + (["-interaction=nonstopmode", "-halt-on-error", "main-example"] if step == ["pdflatex"]
                      else ["main-example"])
        run = subprocess.run(cmd, cwd=folder, capture_output=True, text=True, errors="replace")
        assert run.returncode == 0, (step, run.stdout[-3000:])
    return (folder / "main-example.log").read_text(encoding="latin-1")


def _text(pdf: Path) -> str:
    return subprocess.run(["pdftotext", "-enc", "UTF-8", str(pdf), "-"], capture_output=True, text=True,
                          check=True).stdout


@pytest.mark.parametrize("which", ["demo", "shared25"])
def test_main_example_compiles_with_pdflatex(which, request):
    _need("pdflatex", "bibtex", "pdftotext")
    fixture = request.getfixturevalue(which)
    folder = fixture[0] if isinstance(fixture, tuple) else fixture
    log = _pdflatex(folder)
    assert "Overfull \\hbox" not in log            # every table and figure fits its column or page
    assert not re.search(r"Citation `[^']+' .*undefined", log)
    assert "There were undefined references" not in log
    text = _text(folder / "main-example.pdf")
    assert "Evaluation details" in text and "References" in text
    if which == "shared25":
        flat = re.sub(r"\s+", "", text)
        for name in ("a_b&c%", '#import"x.typ"', r"\input{/etc/passwd}", "$x$", "système–été", "--x''",
                     "[U+65E5][U+672C][U+8A9E]"):
            assert name in flat, name


@pytest.mark.parametrize("which", ["demo", "shared25"])
def test_main_example_compiles_with_typst(which, request):
    typst = pytest.importorskip("typst")
    fixture = request.getfixturevalue(which)
    folder = fixture[0] if isinstance(fixture, tuple) else fixture
    typst.compile(str(folder / "main-example.typ"), output=str(folder / "typst.pdf"), root=str(folder),
                  ignore_system_fonts=True)
    if shutil.which("pdftotext"):
        flat = re.sub(r"\s+", "", _text(folder / "typst.pdf")).replace("\u200b", "")
        assert "Evaluationdetails" in flat
        if which == "shared25":
            for name in ("a_b&c%", '#import"x.typ"', r"\input{/etc/passwd}", "$x$", "système–été"):
                assert name in flat, name


@pytest.fixture(scope="module")
def five(tmp_path_factory):
    """5 systems x 3 runs, 40 classes, 60-character system and class names: the measures, per-class and ASO
    tables are 5.4 in wide across the page, wider than the default article's text."""
    from test_appendix_many import _names

    from evalreport.cli import main

    tmp = tmp_path_factory.mktemp("five")
    d = shared_task_data(n_systems=5, n_classes=40, n_items=400, long_names=True, seed=3)
    classes = {c: (f"class {k:02d} of a long inventory of categories, here and there" if k % 2 else
                   f"Category{k:02d}_WithCamelCaseNamesAndDigits123_unbrokenxxxxxxxxx")[:60]
               for k, c in enumerate(d.labels)}
    gold = d.gold.assign(label=d.gold["label"].map(classes))
    rng = np.random.default_rng(5)
    for name, run in zip(_names(5), d.runs.values()):
        (tmp / "in" / "runs" / name).mkdir(parents=True)
        for k in range(3):
            label = run["label"].map(classes).where(rng.random(len(run)) > 0.05, rng.choice(list(classes.values())))
            run.assign(label=label).to_csv(tmp / "in" / "runs" / name / f"seed{k + 1}.tsv", sep="\t", index=False)
    gold.to_csv(tmp / "in" / "gold.tsv", sep="\t", index=False)
    assert main(["appendix", str(tmp / "in" / "gold.tsv"), "--runs-dir", str(tmp / "in" / "runs"), "-o",
                 str(tmp / "out"), "--no-audit", "--bootstrap", "50", "--seed", "1", "--quiet"]) == 0
    return tmp / "out"


@pytest.mark.parametrize("which", ["shared25", "five"])
def test_the_appendix_fits_the_default_article_class(which, request, tmp_path):
    """In the default article class (345 pt of text) the page-wide measures and per-class tables ran 41.5 pt (5
    systems) to 149 pt (25 systems) into the margin, and the ASO matrix of 5 systems 41.5 pt: appendix.tex now
    sets the form of each table that the text holds. No overfull box over 1 pt, no float too large, and the
    names of the systems and classes are all there."""
    _need("pdflatex", "bibtex", "pdftotext")
    fixture = request.getfixturevalue(which)
    folder = tmp_path / which
    shutil.copytree(fixture[0] if isinstance(fixture, tuple) else fixture, folder)
    _as_article(folder)
    log = _pdflatex(folder)
    assert max(_overfull_pt(log), default=0) <= 1, re.findall(r"Overfull.*\n.*", log)
    assert "Float too large" not in log
    text = re.sub(r"\s+", "", _text(folder / "main-example.pdf")).replace("-", "")
    tex = (folder / "appendix.tex").read_text(encoding="utf-8")
    assert r"\ifdim\textwidth<" in tex.split("tables/measures", 1)[0].rsplit("\n", 1)[-1]
    if which == "five":
        assert "Category38_WithCamelCaseNamesAndDigits123_unbrokenxxxxxxxxx" in text
        assert "(systems1" in text        # the measures table in parts of fewer systems ("systems 1-3 of 5")


@pytest.mark.parametrize("which", ["shared25", "five"])
def test_the_typst_appendix_fits_the_default_typst_page(which, request, tmp_path):
    """main-example.typ without its page settings: Typst's default A4 page, margins 2.5/21 of its width (6.3 in
    of text, one column). The page-wide tables and figures (6.9 in) ran into the margin; appendix.typ now sets
    the form each table's text holds (evalreport-text-width) and a figure at most as wide as the text."""
    typst = pytest.importorskip("typst")
    _need("pdftotext")
    from test_appendix_many import _words_outside

    fixture = request.getfixturevalue(which)
    folder = tmp_path / which
    shutil.copytree(fixture[0] if isinstance(fixture, tuple) else fixture, folder)
    source = (folder / "main-example.typ").read_text(encoding="utf-8")
    page = '#set page(paper: "us-letter", margin: 0.8in, columns: 2)'
    assert page in source
    (folder / "main-example.typ").write_text(source.replace(page, "").replace("#set columns(gutter: 0.3in)", ""),
                                              encoding="utf-8")
    typst.compile(str(folder / "main-example.typ"), output=str(folder / "typst.pdf"), root=str(folder))
    assert _words_outside(folder / "typst.pdf", 2.5 / 21 * 210 / 25.4) == []


def _header_pieces(folder: Path) -> dict[tuple[str, float], str]:
    """Every piece of a header cell that cannot break (between the break points breakable() gives it) with
    its column's width (in), from every table of a bundle: piece (as LaTeX, bold where the header is) -> file."""
    out = {}
    for tex_file in sorted((folder / "tables").glob("*.tex")):
        tex = tex_file.read_text(encoding="utf-8")
        for spec, head in re.findall(r"\\begin\{tabular\}\{(.*)\}\n\\toprule\n(.*) \\\\\n", tex):
            widths = [float(w) for w in re.findall(r"p\{([\d.]+)in\}", spec)]
            for width, cell in zip(widths, head.split(" & ")):
                bold = re.fullmatch(r"\\textbf\{(.*)\}", cell)
                # \evalreportchar (a character pdfLaTeX lacks, printed as [U+XXXX]) may break after itself
                text = re.sub(r"(\\evalreportchar\{\w+\}\{[^}]*\})", r"\1\\allowbreak{}", bold.group(1) if bold else cell)
                for piece in re.split(r"\\allowbreak\{\}|\\-| ", text):
                    if piece:
                        out[(rf"\textbf{{{piece}}}" if bold else piece, width)] = tex_file.stem
    return out


@pytest.mark.parametrize("which", ["demo", "shared25", "five", "seeds"])
def test_every_header_fits_its_column_where_it_cannot_break(which, request, tmp_path):
    """A header piece that cannot break is measured in the appendix's fonts (lmodern, 8 pt): "Runs" in bold (21.8
    pt) overfilled its 0.3 in column, the ASO pairs' math headers (40.2 pt) their 0.55 in, the cross-validation
    estimators' AUC_merge (38.2 pt) a 0.5 in one; now every piece fits, in every form of every table."""
    _need("pdflatex")
    fixture = request.getfixturevalue(which)
    pieces = _header_pieces(fixture[0] if isinstance(fixture, tuple) else fixture)
    assert pieces
    lines = [r"\documentclass{article}\usepackage[T1]{fontenc}\usepackage{lmodern}", CHAR_MACRO,
             r"\begin{document}\footnotesize\newlength\w"]
    for k, (piece, width) in enumerate(pieces):
        lines.append(rf"\settowidth\w{{{piece}}}\ifdim\w>{width}in\typeout{{WIDE {k} \the\w}}\fi")
    (tmp_path / "h.tex").write_text("\n".join(lines + [r"\end{document}"]) + "\n", encoding="utf-8")
    run = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "h"], cwd=tmp_path,
                         capture_output=True, text=True, errors="replace")
    assert run.returncode == 0, run.stdout[-2000:]
    keys = list(pieces)
    wide = [(keys[int(k)], pieces[keys[int(k)]], w) for k, w in re.findall(r"WIDE (\d+) ([\d.]+pt)", run.stdout)]
    assert not wide, wide


def test_figures_are_vector_with_embedded_fonts_at_column_and_page_width(demo):
    _need("pdffonts")
    from evalreport.report.appendix.figures import MAX_HEIGHT_IN, pdf_width_pt

    figures = demo / "figures"
    names = {p.stem.rsplit("-", 1)[0] for p in figures.glob("*.pdf")}
    assert {"leaderboard", "ranks", "correlation-spearman", "correlation-kendall"} <= names
    for name in names:
        for size, width in (("column", 3.3 * 72), ("page", 6.9 * 72)):
            pdf = figures / f"{name}-{size}.pdf"
            svg = (figures / f"{name}-{size}.svg").read_text(encoding="utf-8")
            height = float(re.search(r'<svg[^>]*? height="([\d.]+)pt"', svg).group(1))
            if height == pytest.approx(MAX_HEIGHT_IN * 72, abs=0.5):      # a tall drawing: narrower, not taller
                width = pdf_width_pt(pdf.read_bytes())
                assert width < (3.3 if size == "column" else 6.9) * 72
            assert pdf_width_pt(pdf.read_bytes()) == pytest.approx(width, abs=0.5)
            fonts = subprocess.run(["pdffonts", str(pdf)], capture_output=True, text=True, check=True).stdout
            rows = fonts.splitlines()[2:]
            assert rows, f"{pdf.name}: no fonts (text drawn as paths?)"
            assert all(r.split()[-5] == "yes" for r in rows), fonts    # the 'emb' column
            assert re.search(rf'<svg[^>]* width="{width:.2f}pt"', svg), svg[:300]
            assert "<image" not in svg                                  # vector, no raster inside


def test_extra_figures_enter_the_appendix(tmp_path, demo):
    """A benchmark's CD diagram (or any chart) enters through ``extra_figures``."""
    import altair as alt

    from evalreport.report.appendix import write_appendix

    chart = alt.Chart(pd.DataFrame({"x": [1, 2], "y": ["a", "b"]})).mark_point().encode(x="x", y="y")
    write_appendix(demo / "data", tmp_path / "out", extra_figures={"cd-diagram": (chart, "Critical difference.")},
                   benchmark=True)
    tex = (tmp_path / "out" / "appendix.tex").read_text(encoding="utf-8")
    assert "figures/cd-diagram-page.pdf" in tex and "Critical difference." in tex
    assert "demsar2006statistical" in (tmp_path / "out" / "references.bib").read_text(encoding="utf-8")
    assert "Friedman" in (tmp_path / "out" / "methods.tex").read_text(encoding="utf-8")


def test_report_appendix_agrees_with_report_html(tmp_path):
    from evalreport.cli import main

    src, _ = _write_task(tmp_path / "in", 5)
    out = tmp_path / "rep"
    rc = main(["report", str(src / "gold.tsv"), "--runs-dir", str(src / "runs"), "-o", str(out), "--formats", "html",
               "--engine", "builtin", "--no-audit", "--bootstrap", "300", "--appendix", "--quiet"])
    assert rc == 0
    html = (out / "report.html").read_text(encoding="utf-8")
    board = pd.read_csv(out / "tables" / "leaderboard.csv")
    tex = (out / "appendix" / "tables" / "leaderboard-column.tex").read_text(encoding="utf-8")
    shown = re.findall(r"(?:\\textbf\{)?(\d\.\d+)\}?(?:\\textsuperscript\{[^}]*\}(?:\\allowbreak\{\})?)* "
                       r"\{\\scriptsize \[(\d\.\d+),~(\d\.\d+)\]\}", tex)
    assert len(shown) == len(board)
    d = len(shown[0][0].split(".")[1])
    for (v, lo, hi), row in zip(shown, board.itertuples()):
        for text, exact in ((v, row.value), (lo, row.lo), (hi, row.hi)):
            in_report = f"{exact:.3f}"
            assert in_report in html                                  # the report shows it to 3 decimals
            assert abs(float(text) - float(in_report)) <= 0.5 * 10 ** -d + 0.5e-3 + 1e-12
            assert text == f"{exact:.{d}f}"


#: Class names that Typst, LaTeX and HTML would each take for markup if they were not escaped.
ODD_CLASSES = ['<b>"cls"</b>', "#set x", "]", "a very long class name with many words inside", "$", "[", "*bold*"]


@pytest.mark.parametrize("n_systems, n_classes", [(5, 3), (5, 4), (2, 3)])
def test_typst_appendix_compiles_with_pdf_tags_wherever_the_pages_break(tmp_path, n_systems, n_classes):
    """Typst's tagged PDF export fails ("internal error: tags weren't properly closed", or "parent
    group") when a column float meets a page break beside page-wide floats: a matter of where the
    pages break, so each table shape is compiled on page heights from 14 to 28 cm and text sizes from
    8 to 11 pt, with PDF tags on (the default)."""
    typst = pytest.importorskip("typst")
    from evalreport.cli import main

    d = shared_task_data(n_systems=n_systems, n_classes=n_classes, n_items=300, long_names=True)
    rename = dict(zip(d.labels, ODD_CLASSES))
    runs = {f"s{i:02d}": fr.assign(label=fr["label"].map(rename)) for i, fr in enumerate(d.runs.values())}
    Demo(gold=d.gold.assign(label=d.gold["label"].map(rename)), runs=runs,
         labels=tuple(rename.values())).write(tmp_path / "in")
    out = tmp_path / "out"
    assert main(["appendix", str(tmp_path / "in" / "gold.tsv"), *map(str, sorted((tmp_path / "in" / "runs").glob("*"))),
                 "--names", ",".join(HOSTILE[:n_systems]), "-o", str(out), "--no-audit", "--bootstrap", "100",
                 "--quiet"]) == 0
    source = (out / "main-example.typ").read_text(encoding="utf-8")
    page = 'margin: 0.8in, columns: 2)'
    assert page in source and "#set text(size: 10pt)" in source
    failed = []
    for height in range(14, 30, 2):
        for size in (8, 9, 10, 11):
            (out / "shape.typ").write_text(source.replace(page, f"height: {height}cm, {page}").replace(
                "#set text(size: 10pt)", f"#set text(size: {size}pt)"), encoding="utf-8")
            try:
                typst.compile(str(out / "shape.typ"), output=str(out / "shape.pdf"), root=str(out),
                              ignore_system_fonts=True)
            except Exception as exc:        # (typst raises its own error types)
                failed.append(f"{height} cm, {size} pt: {str(exc).splitlines()[0][:80]}")
    assert not failed, failed


# ----------------------------------------------------------------------------- several runs per system
@pytest.fixture(scope="module")
def seeds(tmp_path_factory):
    """4 systems x 3 seeds (names with LaTeX and Typst specials), the whole bundle with figures."""
    from test_appendix_seeds import SYSTEMS, _seed_task

    from evalreport.cli import main

    tmp = tmp_path_factory.mktemp("seeds")
    gold, runs = _seed_task(tmp / "in", SYSTEMS, 3)
    assert main(["appendix", str(gold), "--runs-dir", str(runs), "-o", str(tmp / "out"), "--bootstrap", "100",
                 "--primary", "macro_f1", "--no-audit", "--quiet"]) == 0
    return tmp / "out"


def _overfull_pt(log: str) -> list[float]:
    return [float(x) for x in re.findall(r"Overfull \\hbox \(([\d.]+)pt too wide\)", log)]


#: main-example.tex as the default one-column article class (4.8 in, 345 pt of text).
def _as_article(folder: Path) -> None:
    src = (folder / "main-example.tex").read_text(encoding="utf-8")
    src = src.replace("[letterpaper,twocolumn,10pt]{article}", "{article}")
    (folder / "main-example.tex").write_text(re.sub(r"\\usepackage\[margin[^\n]*geometry\}\n", "", src),
                                             encoding="utf-8")


@pytest.mark.parametrize("layout", ["two-column", "article"])
def test_seeds_appendix_compiles_with_pdflatex_within_the_text(seeds, layout, tmp_path):
    """The seed-spread and ASO tables print the CSVs' values; no table is more than 1 pt too wide, in the
    two-column example and in the default article class, where the page-wide leaderboard ran 121 pt into
    the margin and appendix.tex now takes the one-column version."""
    _need("pdflatex", "bibtex", "pdftotext")
    folder = tmp_path / layout
    shutil.copytree(seeds, folder)
    if layout == "article":
        _as_article(folder)
        assert "twocolumn" not in (folder / "main-example.tex").read_text(encoding="utf-8")
    log = _pdflatex(folder)
    assert max(_overfull_pt(log), default=0) <= 1, re.findall(r"Overfull.*\n.*", log)
    text = re.sub(r"\s+", " ", _text(folder / "main-example.pdf"))
    assert "Seed spread under Macro F1" in text and "Almost Stochastic Order of the runs" in text
    assert "two-level bootstrap (runs, then items) percentile interval" in text
    assert "paired bootstrap" not in text.replace("paired across", "")
    for name in ("svm&tfidf", "#rule$", "BERT-base", "CNN_small"):
        assert name in text, name
    spread = pd.read_csv(seeds / "data" / "seed_spread.csv", keep_default_na=False)
    for sd in spread[spread["measure"] == "macro_f1"]["seed_sd"]:
        assert f"{sd:.3f}" in text
    # the page leaderboard adds P(best): there in two columns (6.9 in of text), not in the article (4.8 in)
    assert ("P(best)" in text) == (layout == "two-column")


def test_seeds_appendix_compiles_with_typst(seeds, tmp_path):
    typst = pytest.importorskip("typst")
    _need("pdftotext")
    folder = tmp_path / "typ"
    shutil.copytree(seeds, folder)
    typst.compile(str(folder / "main-example.typ"), output=str(folder / "typst.pdf"), root=str(folder),
                  ignore_system_fonts=True)
    text = re.sub(r"\s+", " ", _text(folder / "typst.pdf")).replace("\u200b", "").replace("\u00ad", "")
    assert "Seed spread under Macro F1" in text and "Almost Stochastic Order of the runs" in text
    assert "two-level bootstrap (runs, then items)" in text
    for name in ("svm&tfidf", "#rule$", "BERT-base", "CNN_small"):
        assert name in text, name
    aso = pd.read_csv(seeds / "data" / "aso.csv", keep_default_na=False)
    for eps in aso[aso["measure"] == "macro_f1"]["eps_min"]:
        assert f"{eps:.2f}" in text


# ----------------------------------------------------------------------------- an ACL paper's narrower columns
#: acl.sty's page (ACL, EMNLP, NAACL, SemEval): A4, 16 cm of text in two columns with a 0.6 cm gutter, so a
#: column is 7.7 cm (218.6 pt, 3.03 in), narrower than the 3.3 in of main-example.tex. The papers are set at
#: 11 pt (the tables' \footnotesize is 9 pt there, 8 pt at 10 pt), in Times; the test keeps Latin Modern,
#: wider than Times, so a header word that fits here fits there.
ACL_GEOMETRY = r"\usepackage[a4paper,textwidth=16cm,textheight=24.7cm,columnsep=0.6cm,centering]{geometry}"


def _as_acl(folder: Path) -> None:
    """main-example.tex on an ACL-like page (:data:`ACL_GEOMETRY`, 11 pt), the column's width written to the log."""
    src = (folder / "main-example.tex").read_text(encoding="utf-8")
    src = src.replace("[letterpaper,twocolumn,10pt]{article}", "[a4paper,twocolumn,11pt]{article}")
    src = re.sub(r"\\usepackage\[margin[^\n]*geometry\}", lambda _: ACL_GEOMETRY, src)
    src = src.replace(r"\begin{document}", r"\begin{document}\typeout{evalreport-columnwidth=\the\columnwidth}")
    (folder / "main-example.tex").write_text(src, encoding="utf-8")


@pytest.fixture(scope="module", params=[3, 8, 25, "demo"])
def acl_bundle(request, tmp_path_factory) -> tuple[Path, int]:
    """The appendix of ``n`` systems: 3 and 8 with 3 runs each (the seed-spread and ASO tables) and
    60-character names; 25 the shared task with hostile names (:func:`shared25`); the demo's 8 systems with
    cross-validation folds and scores (the estimators' tables, :func:`demo`), given as 0 systems."""
    n = request.param
    if n == 25:
        return request.getfixturevalue("shared25")[0], n
    if n == "demo":
        return request.getfixturevalue("demo"), 0
    from test_appendix_many import _names
    from test_appendix_seeds import _seed_task

    from evalreport.inputs import read_runs
    from evalreport.report.appendix import build_appendix

    tmp = tmp_path_factory.mktemp(f"acl{n}")
    gold, runs = _seed_task(tmp / "in", _names(n), 3, n_items=90)
    build_appendix(read_runs(gold, runs_dir=runs), tmp / "out", audit=False, progress=False, bootstrap=50, seed=1,
                   primary="macro_f1")
    return tmp / "out", n


def test_the_appendix_fits_an_acl_papers_columns(acl_bundle, tmp_path):
    """In acl.sty's 3.03 in columns the one-column tables made for 3.3 in (leaderboard 3.2 in, seed spread 3.29,
    ASO pairs 3.25, baselines 3.2) ran 12-19 pt into the gutter; they are made for 3.0 in now. No overfull box
    over 1 pt at 3, 8 and 25 systems (the 3.3 in column figures are shrunk to the column), every table there."""
    _need("pdflatex", "bibtex", "pdftotext")
    out, n = acl_bundle
    folder = tmp_path / "acl"
    shutil.copytree(out, folder)
    _as_acl(folder)
    log = _pdflatex(folder)
    column_pt = float(re.search(r"evalreport-columnwidth=([\d.]+)pt", log).group(1))
    assert abs(column_pt - 7.7 / 2.54 * 72.27) < 0.1                  # the layout is ACL's: 7.7 cm columns
    assert max(_overfull_pt(log), default=0) <= 1, re.findall(r"Overfull.*\n.*", log)
    assert "Float too large" not in log
    text = re.sub(r"\s+", " ", _text(folder / "main-example.pdf"))
    assert "Leaderboard under" in text and "Chance baselines under" in text
    if n in (3, 8):
        assert "Seed spread under Macro F1" in text and "Almost Stochastic Order of the runs" in text
    if n == 0:
        assert "cross-validation folds, computed in the five ways" in text
