"""Quarto shows evalreport's tables: its Typst table in the PDF, its HTML table in a
scrolling cell over the body and right margin of the page.

Quarto cannot run here: the tests run pandoc on the Markdown Quarto's Jupyter engine writes from the
notebook evalreport hands to it (tests/fake_quarto.py: quarto_markdown), with the filters its front
matter names, and check the result with tests/quarto_checks.py; where a ``quarto`` executable exists,
the same checks run on Quarto's own output.
"""
from __future__ import annotations

import importlib
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
yaml = pytest.importorskip("yaml")
pytest.importorskip("altair")
pytest.importorskip("vl_convert")

from fake_quarto import quarto_markdown
from quarto_checks import glued_numbers, html_table_problems, typst_table_problems
from test_quarto import executed_notebook, fake_quarto  # noqa: F401  (a notebook; the fake's fixture)

from evalreport.report import quarto as q
from evalreport.report.typst_table import MIME_TYPST

render_mod = importlib.import_module("evalreport.report.render")


WIDE = 24           # columns that send a table to a landscape page (typst_table.choose_layout)


def tables_notebook(path: Path) -> tuple[Path, int]:
    """An executed-looking notebook with a heading, a note, a chart and three tables: a wide one
    (landscape in the PDF), one whose caption and names are Markdown, Typst and backticks, one with
    undefined cells and their legend. Returns the path and the number of tables."""
    import numpy as np
    import pandas as pd

    from evalreport.report.display import Note, Table

    rng = np.random.default_rng(3)
    systems = [f"sys_{j:02d}" for j in range(WIDE)]
    wide = pd.DataFrame(rng.random((5, WIDE)), columns=systems,
                        index=pd.Index([f"measure {i}" for i in range(5)], name="measure"))
    odd = pd.DataFrame({"system": ["`a``b`", "*x* #y $z$", "{{< pagebreak >}}"], "score": [0.883, 0.71, 0.5],
                        "rank": [1, 2, 3]})
    holes = pd.DataFrame({"a": [0.5, 0.25], "b": [0.125, 0.75]}, index=["p", "q"])
    undefined = pd.DataFrame({"a": [False, True], "b": [False, False]}, index=["p", "q"])
    nb = nbformat.read(str(executed_notebook(path)), as_version=4)
    tables = [("#| label: tbl-every-measure\nrep.every()", Table(wide, caption="Every measure, every system.")),
              ("#| label: tbl-odd\nrep.odd()", Table(odd, caption="Names with ``` and *stars* @ref #x", index=False)),
              ("rep.holes()", Table(holes, undefined=undefined, caption="With a 0/0 cell."))]
    for n, (source, table) in enumerate(tables, 10):
        cell = nbformat.v4.new_code_cell(source)
        cell.outputs = [nbformat.v4.new_output("display_data", data=table._repr_mimebundle_())]
        cell.execution_count = n
        nb.cells.append(nbformat.v4.new_markdown_cell(f"## Table {n}\n\nWhat the next table shows."))
        nb.cells.append(cell)
    nb.cells.append(nbformat.v4.new_code_cell("rep.note()"))
    nb.cells[-1].outputs = [nbformat.v4.new_output("display_data", data=Note("A closing note.")._repr_mimebundle_())]
    nbformat.write(nb, str(path))
    return path, len(tables)


@pytest.fixture(scope="module")
def tables_project(tmp_path_factory):
    """The Quarto project evalreport hands to Quarto for :func:`tables_notebook`."""
    tmp = tmp_path_factory.mktemp("tables")
    path, n = tables_notebook(tmp / "nb.ipynb")
    nb = nbformat.read(str(path), as_version=4)
    project = q.quarto_project([("report", nb)], tmp / "project", {"title": "Tables", "lang": "en"})
    return project, n


def _pandoc_as_quarto(project: Path, to: str) -> str:
    """Quarto's run, as far as the tables go: the notebook as Quarto's Jupyter engine writes it, read
    by pandoc, the filters of its front matter applied, written as ``to`` (typst: standalone, with the
    typst format's options and header includes)."""
    nb = json.loads(project.read_text(encoding="utf-8"))
    front = yaml.safe_load("".join(nb["cells"][0]["source"]).strip().strip("-"))
    filters = front["filters"]
    # the filter runs before Quarto's own AST processing: on pandoc's reading of this very Markdown
    assert filters and all(f["at"] == "pre-ast" for f in filters), filters
    (project.parent / "report.md").write_text(quarto_markdown(nb, to, project.parent), encoding="utf-8")
    cmd = [render_mod.pandoc_path(), "report.md", "--from", "markdown", "--to", "typst" if to == "typst" else "html5"]
    cmd += [f"--lua-filter={f['path']}" for f in filters]
    if to == "typst":
        options = dict(front["format"]["typst"])
        for header in [options.pop("include-in-header")]:
            cmd.append(f"--include-in-header={header}")
        (project.parent / "typst-options.yaml").write_text(yaml.safe_dump(options), encoding="utf-8")
        cmd += ["--standalone", "--metadata-file=typst-options.yaml", "--output=report.typ"]
    else:
        cmd += ["--output=report.html"]
    proc = subprocess.run(cmd, cwd=project.parent, capture_output=True, text=True)
    assert proc.returncode == 0 and not proc.stderr.strip(), proc.stderr
    return (project.parent / ("report.typ" if to == "typst" else "report.html")).read_text(encoding="utf-8")


def test_table_cells_carry_their_typst_source_and_options(tables_project):
    project, n = tables_project
    _, config = q._load_config()
    merged = nbformat.read(str(project), as_version=4)
    cells = [c for c in merged.cells if c.cell_type == "code" and any(MIME_TYPST in o.get("data", {}) for o in c.outputs)]
    assert len(cells) == n
    for cell in cells:
        opts = {k: v for line in cell.source.splitlines() if line.startswith("#|")
                for k, v in yaml.safe_load(line[2:]).items()}
        assert opts["classes"] == [q.TABLE_CLASS] and opts["html-table-processing"] == "none"
        assert not str(opts.get("label", "")).startswith("tbl-")
        (out,) = cell.outputs
        md = out["data"]["text/markdown"]
        fence = re.match(r"(`{3,})json\n(.*)\n\1\n", md)
        assert fence and json.loads(fence.group(2)) == out["data"][MIME_TYPST]   # the very Typst output
        assert "{{<" not in fence.group(0)                                        # no Quarto shortcode
        assert "|" in md[fence.end():]                                            # the pipe table after it
    labels = re.findall(r"^#\| label: (\S+)$", "\n".join(c.source for c in cells), re.M)
    assert labels == ["table-every-measure", "table-odd"]
    odd = next(c for c in cells if "table-odd" in c.source).outputs[0]["data"]["text/markdown"]
    assert odd.startswith("````json\n")          # longer than the ``` inside
    # a configuration without the filter (a report folder's older _quarto.yml) leaves the tables to Quarto
    nb = nbformat.read(str(tables_notebook(project.parent / "plain.ipynb")[0]), as_version=4)
    plain = q.joined_notebook([("x", nb)], {"title": "T"}, {k: v for k, v in config.items() if k != "evalreport-quarto"})
    assert not [c for c in plain.cells if q.TABLE_CLASS in c.source or "table-" in c.source]
    # joining the joined notebook again adds nothing
    again = q.joined_notebook([("x", merged)], {"title": "T"}, config)
    assert [c.source for c in again.cells if c.cell_type == "code"] == [c.source for c in merged.cells
                                                                        if c.cell_type == "code"]
    assert [c.outputs for c in again.cells if c.cell_type == "code"] == [c.outputs for c in merged.cells
                                                                         if c.cell_type == "code"]


def test_table_cell_keeps_a_cells_own_classes():
    import pandas as pd

    from evalreport.report.display import Table

    data = Table(pd.DataFrame({"a": [1]}))._repr_mimebundle_()
    for option, expected in (("#| classes: wide", ["wide", q.TABLE_CLASS]),
                             ("#| classes: [a, b]", ["a", "b", q.TABLE_CLASS]),
                             (f"#| classes: [{q.TABLE_CLASS}]", [q.TABLE_CLASS])):
        cell = nbformat.v4.new_code_cell(f"{option}\n#| html-table-processing: none\nrep.t()")
        cell.outputs = [nbformat.v4.new_output("display_data", data=data)]
        q.table_cell(cell)
        opts = [yaml.safe_load(line[2:]) for line in cell.source.splitlines() if line.startswith("#|")]
        assert opts == [{"classes": expected}, {"html-table-processing": "none"}]     # each key once
    cell.source = "#| classes: [a,\nrep.t()"        # broken YAML is Quarto's to report: left as it is
    q.table_cell(cell)
    assert cell.source == "#| classes: [a,\nrep.t()"


def test_quarto_typst_sets_every_table_as_evalreport_lays_it_out(tables_project):
    import typst

    project, n = tables_project
    typ = _pandoc_as_quarto(project, "typst")
    assert typst_table_problems(typ, n) == []
    assert typ.count("#page(flipped: true)[") == 1          # the wide table, on its landscape page ...
    assert '"{{< pagebreak >}}"' in typ                      # data as a Typst string literal
    pdf = project.parent / "report.pdf"
    typst.compile(str(project.parent / "report.typ"), output=str(pdf))   # ... not inside a #block (an error)
    assert "stroke: (bottom: 0.9pt + black)" in typ        # tables.typ, the builtin PDF's table styles
    assert "fill: rgb(\"#eef6fb\")" in typ                 # the note's box
    glued = glued_numbers(pdf)
    assert not glued, glued
    # without the filter Quarto's PDF had pandoc's pipe tables: the check sees them
    plain = subprocess.run([render_mod.pandoc_path(), "report.md", "--from", "markdown", "--to", "typst"],
                           cwd=project.parent, capture_output=True, text=True, check=True).stdout
    assert any("pipe tables" in p for p in typst_table_problems(plain, n))


def test_quarto_html_shows_each_table_in_a_wide_scrolling_cell(tables_project):
    project, n = tables_project
    html = _pandoc_as_quarto(project, "html")
    assert html_table_problems(html, n) == []
    assert html.count("er-upright") >= WIDE                 # evalreport's upright headers, as in the builtin page
    assert "typst-table" not in html and "column-page-right" not in html.split("er-table-cell")[0]
    plain = subprocess.run([render_mod.pandoc_path(), "report.md", "--from", "markdown", "--to", "html5"],
                           cwd=project.parent, capture_output=True, text=True, check=True).stdout
    assert any("body column only" in p for p in html_table_problems(plain, n))


def test_other_quarto_formats_keep_the_pipe_table_without_the_typst_source(tables_project):
    project, n = tables_project
    nb = json.loads(project.read_text(encoding="utf-8"))
    md = quarto_markdown(nb, "typst", project.parent)      # what Quarto picks for a format without HTML
    out = subprocess.run([render_mod.pandoc_path(), "--from", "markdown", "--to", "gfm",
                          "--lua-filter=templates/typst/select-output.lua"], input=md, cwd=project.parent,
                         capture_output=True, text=True, check=True).stdout
    assert "typst-table" not in out and "sys_23" in out
    assert len(re.findall(r"^\|[-:| ]+\|$", out, re.M)) == n


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("quarto") is None, reason="quarto executable not on PATH (pip install quarto-cli)")
def test_real_quarto_tables_in_pdf_and_html(tables_project, tmp_path):
    """A real Quarto on the same project: its Typst has evalreport's tables only, its PDF no glued
    numbers, its HTML each table in a scrolling box over the body and right margin."""
    project, n = tables_project
    folder = tmp_path / "project"
    shutil.copytree(project.parent, folder)
    for args in (["--to", "typst", "-M", "keep-typ:true"], ["--to", "html"]):
        proc = subprocess.run(["quarto", "render", project.name, *args, "--no-execute"], cwd=folder,
                              capture_output=True, text=True, timeout=600)
        assert proc.returncode == 0, proc.stderr[-3000:]
    assert typst_table_problems((folder / "report.typ").read_text(encoding="utf-8"), n) == []
    assert not glued_numbers(folder / "report.pdf")
    assert html_table_problems((folder / "report.html").read_text(encoding="utf-8"), n) == []


def test_quarto_engine_hands_quarto_what_sets_the_tables(tmp_path, fake_quarto, monkeypatch):  # noqa: F811
    """render(engine="quarto") end to end with the fake rendering like Quarto through pandoc: the staged
    project carries the filter and the Typst table styles, the PDF compiles (landscape page included),
    the HTML shows every table in its wide scrolling cell."""
    monkeypatch.setenv("FAKE_QUARTO_PANDOC", "1")
    path, n = tables_notebook(tmp_path / "nb.ipynb")
    result = render_mod.render([path], tmp_path / "out", title="Tables", engine="quarto")
    assert html_table_problems(result["html"].read_text(encoding="utf-8"), n) == []
    assert result["pdf"].read_bytes().startswith(b"%PDF")
    assert not glued_numbers(result["pdf"])
