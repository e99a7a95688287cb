"""The Quarto engine without Quarto: what evalreport hands to quarto and what
it does with quarto's output, plus the offline check both engines pass through.

A fake ``quarto`` (tests/fake_quarto.py, put first on PATH) behaves like Quarto 1.7/1.10 where
evalreport depends on it: it ignores ``_quarto.yml`` under a hidden path, honours the
notebook's front matter, adds the CDN require.js/jQuery tags, prints "Figure N" for a figure
without ``fig-cap``, fails or warns when asked to.
"""
from __future__ import annotations

import importlib
import json
import logging
import os
import re
import stat
import subprocess
import sys
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
yaml = pytest.importorskip("yaml")
pytest.importorskip("altair")
pytest.importorskip("vl_convert")

from evalreport.report import quarto as q
from evalreport.report.display import chart_image_mime
from evalreport.report.output import RenderError, check_offline, remote_loads
from evalreport.report.resources import quarto_config

render_mod = importlib.import_module("evalreport.report.render")

FAKE = Path(__file__).resolve().parent / "fake_quarto.py"

# What Quarto 1.10.18 wrote into the demo's <head> (shared notes, toolchain.md; the hashes are elided there),
# and the same tags from cdnjs as Quarto 1.7 writes them.
HEAD_1_10 = """<meta charset="utf-8">
<script src="https://cdn.jsdelivr.net/npm/jquery@3.5.1/dist/jquery.min.js" integrity="sha384-..." crossorigin="anonymous"></script>
<script src="https://cdn.jsdelivr.net/npm/requirejs@2.3.6/require.min.js" integrity="sha384-..." crossorigin="anonymous"></script>
<script type="application/javascript">define('jquery', [],function() {return window.jQuery;})</script>
<style>body { color: black; }</style>"""
HEAD_1_7 = """<meta charset="utf-8">
<script src="https://cdnjs.cloudflare.com/ajax/libs/require.js/2.3.6/require.min.js" integrity="sha512-..." crossorigin="anonymous"></script>
<script src="https://cdnjs.cloudflare.com/ajax/libs/jquery/3.5.1/jquery.min.js" integrity="sha512-..." crossorigin="anonymous" data-relocate-top="true"></script>
<script type="application/javascript">define('jquery', [],function() {return window.jQuery;})</script>
<style>body { color: black; }</style>"""

NASTY = ["*x* and _y_", "[a](http://x) <b>bold</b>", "`#x`{=typst} $x^2$ @fig-a", 'quote " and \\ backslash',
         "per-class F1: sys_a vs. sys_b (n = 12) #1 ~ok~ |a|"]


# --------------------------------------------------------------------------------------------
# A notebook that looks executed (outputs made by the display objects, no kernel needed)
# --------------------------------------------------------------------------------------------
def executed_notebook(path: Path, *, caption: str = "Scores of *each* system [a](http://x)") -> Path:
    import altair as alt
    import pandas as pd

    from evalreport.report.display import Chart, Note

    frame = pd.DataFrame({"system": ["a", "b"], "score": [0.9, 0.8]})
    chart = alt.Chart(frame).mark_bar().encode(x="score:Q", y="system:N")
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}

    def code(source, mimebundle, n):
        cell = nbformat.v4.new_code_cell(source)
        data, meta = mimebundle if isinstance(mimebundle, tuple) else (mimebundle, {})
        cell.outputs = [nbformat.v4.new_output("display_data", data=data, metadata=meta)]
        cell.execution_count = n
        return cell

    nb.cells = [
        nbformat.v4.new_markdown_cell("## Scores\n\nThe systems compared."),
        code("#| label: fig-scores\nrep.chart()", Chart(chart, name="scores", caption=caption)._repr_mimebundle_(), 1),
        code("#| label: fig-nocap\nrep.other()", Chart(chart, name="other")._repr_mimebundle_(), 2),
        code("rep.note()", Note("System **a** leads.")._repr_mimebundle_(), 3),
    ]
    nbformat.write(nb, str(path))
    return path


@pytest.fixture
def fake_quarto(tmp_path, monkeypatch):
    """``quarto`` on PATH is the fake; returns the path of its JSON-lines log."""
    bin_dir = tmp_path / "fakebin"
    bin_dir.mkdir()
    exe = bin_dir / "quarto"
    exe.write_text(f"#!{sys.executable}\n" + FAKE.read_text(encoding="utf-8"), encoding="utf-8")
    exe.chmod(exe.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")
    log = tmp_path / "quarto-log.jsonl"
    monkeypatch.setenv("FAKE_QUARTO_LOG", str(log))
    for var in ("FAKE_QUARTO_FAIL", "FAKE_QUARTO_WARN", "FAKE_QUARTO_REMOTE", "FAKE_QUARTO_VERSION"):
        monkeypatch.delenv(var, raising=False)
    return log


def _runs(log: Path) -> list[dict]:
    return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]


# --------------------------------------------------------------------------------------------
# Where the project is staged
# --------------------------------------------------------------------------------------------
def test_hidden_component_checks_every_resolved_component(tmp_path):
    assert q.hidden_component(tmp_path / "a" / "b") is None
    assert q.hidden_component(tmp_path / ".out.x1.tmp" / "quarto") == ".out.x1.tmp"
    link = tmp_path / "visible"
    (tmp_path / ".hidden").mkdir()
    link.symlink_to(tmp_path / ".hidden")
    assert q.hidden_component(link) == ".hidden"   # resolved: a symlink does not hide it


def test_render_folder_skips_hidden_candidates(tmp_path, monkeypatch):
    hidden, visible = tmp_path / ".cache" / "tmp", tmp_path / "tmp"
    hidden.mkdir(parents=True)
    visible.mkdir()
    assert q.render_folder(candidates=[hidden, visible]) == visible.resolve()
    assert q.render_folder(candidates=[hidden, tmp_path / "missing"]) is None
    # by default: never a folder with a hidden component, even when the system temp folder is one
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(hidden))
    assert tempfile.gettempdir() == str(hidden)
    base = q.render_folder(near=tmp_path / ".out.x.tmp" / "stage")
    assert base is not None and q.hidden_component(base) is None
    monkeypatch.setattr(q.os, "access", lambda path, mode: Path(path) == tmp_path.resolve())
    assert q.render_folder(near=tmp_path / ".out.x.tmp" / "stage") == tmp_path.resolve()   # beside the output


# --------------------------------------------------------------------------------------------
# The project: front matter, captions
# --------------------------------------------------------------------------------------------
def test_notebook_carries_format_and_execute_options_with_valid_paths(tmp_path):
    nb = nbformat.read(str(executed_notebook(tmp_path / "nb.ipynb")), as_version=4)
    meta = render_mod.check_metadata("Q: <title> & 'x'", {"subtitle": "3 systems", "date": "2024"})
    path = q.quarto_project([("overview", nb)], tmp_path / "proj", meta)
    _, config = q._load_config()
    merged = nbformat.read(str(path), as_version=4)
    nbformat.validate(merged)
    front = merged.cells[0]
    assert front.cell_type == "raw" and front.source.startswith("---\n") and front.source.endswith("\n---")
    doc = yaml.safe_load(front.source.strip().strip("-"))
    assert doc["title"] == "Q: <title> & 'x'" and doc["subtitle"] == "3 systems" and doc["lang"] == "en"
    assert doc["format"] == config["format"] and doc["execute"] == config["execute"]
    html = doc["format"]["html"]
    assert html["embed-resources"] is True and html["html-math-method"] == "mathml"
    assert doc["format"]["typst"]["papersize"] == "a4" and doc["format"]["typst"]["toc"] is True
    for rel in q._quarto_files(doc):   # every file the front matter names exists relative to the notebook
        assert (path.parent / rel).is_file(), rel
    header = (path.parent / html["include-in-header"]).read_text(encoding="utf-8")
    assert header.count("window.vegaEmbed=") == 1 and q.BUNDLE_MARKER not in header
    code = [c for c in merged.cells if c.cell_type == "code"]
    assert code and all(c.source.startswith("#| echo: false\n") for c in code)
    assert len({c["id"] for c in merged.cells}) == len(merged.cells)


def test_every_captioned_figure_cell_gets_its_caption_once(tmp_path):
    nb = nbformat.read(str(executed_notebook(tmp_path / "nb.ipynb")), as_version=4)
    merged = q.joined_notebook([("x", nb)], {"title": "T"}, {})
    mime = chart_image_mime()
    captioned, plain = [c for c in merged.cells if c.cell_type == "code" and mime in str(c.outputs)]
    lines = captioned.source.splitlines()
    opts = [ln for ln in lines if ln.startswith("#|")]
    assert lines[:len(opts)] == opts                      # options stay one block at the top ...
    assert [ln for ln in opts if ln.startswith("#| fig-cap:")] == [opts[-1]]   # ... with one fig-cap
    assert opts[:2] == ["#| echo: false", "#| label: fig-scores"]
    value = yaml.safe_load(opts[-1][2:])["fig-cap"]
    assert re.sub(r"\\(.)", r"\1", value) == captioned.outputs[0]["metadata"][mime]["caption"]
    assert "<figcaption>" not in captioned.outputs[0]["data"]["text/html"]   # Quarto prints the caption
    # a chart made without a caption has nothing to say: no fig-cap, its HTML untouched
    assert "fig-cap" not in plain.source and plain.outputs == nb.cells[2].outputs
    # joining twice does not stack captions
    again = q.joined_notebook([("x", merged)], {"title": "T"}, {})
    assert sum(c.source.count("#| fig-cap:") for c in again.cells if c.cell_type == "code") == 1


def test_figure_cell_without_an_image_is_not_framed_as_a_figure(tmp_path):
    """A section may say in a sentence what a chart would show (three systems that all agree):
    Quarto must not caption that sentence "Figure N"."""
    from evalreport.report.display import Note

    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("#| label: fig-kendall\nrep.correlation_heatmap('kendall')")
    cell.outputs = [nbformat.v4.new_output("execute_result", data=Note("All measures agree.")._repr_mimebundle_(),
                                           execution_count=1)]
    empty = nbformat.v4.new_code_cell("#| label: fig-empty\nrep.nothing()")
    nb.cells = [cell, empty]
    merged = q.joined_notebook([("x", nb)], {"title": "T"}, {})
    sources = [c.source for c in merged.cells if c.cell_type == "code"]
    assert sources == ["#| echo: false\n#| label: kendall\nrep.correlation_heatmap('kendall')",
                       "#| echo: false\n#| label: empty\nrep.nothing()"]


@pytest.mark.parametrize("caption", NASTY)
def test_caption_stays_literal_through_yaml_and_pandoc_markdown(caption):
    line = q.caption_option(caption)
    assert line.startswith("#| fig-cap: ") and "\n" not in line
    value = yaml.safe_load(line[2:])["fig-cap"]
    # Quarto parses the caption as (pandoc) markdown: it must come out as the very text
    pandoc = render_mod.pandoc_path()
    out = subprocess.run([pandoc, "-f", "markdown", "-t", "json"], input=value, capture_output=True, text=True,
                         check=True).stdout
    inlines = json.loads(out)["blocks"][0]["c"]
    kinds = {i["t"] for i in inlines}
    assert kinds <= {"Str", "Space", "SoftBreak"}, kinds   # no Emph, Link, Code, RawInline, Math, Cite
    text = "".join(i["c"] if i["t"] == "Str" else " " for i in inlines)
    assert text == " ".join(caption.split())


def test_caption_option_joins_lines():
    assert yaml.safe_load(q.caption_option("a\nb")[2:])["fig-cap"] == "a b"


# --------------------------------------------------------------------------------------------
# Quarto's HTML: clean-up and the offline check
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("head", [HEAD_1_10, HEAD_1_7], ids=["quarto-1.10.18", "quarto-1.7"])
def test_cdn_tags_and_define_stub_are_removed(head):
    page = f"<!DOCTYPE html><html><head>{head}</head><body><p>x</p></body></html>"
    with pytest.raises(RenderError, match="network"):
        check_offline(page)
    cleaned = q.clean_html(page)
    assert "<script src" not in cleaned and "define('jquery'" not in cleaned
    assert '<meta charset="utf-8">' in cleaned and "<style>body { color: black; }</style>" in cleaned
    assert remote_loads(cleaned) == []
    check_offline(cleaned)
    assert q.clean_html(cleaned) == cleaned


@pytest.mark.parametrize("tag, removed", [
    ('<SCRIPT SRC="https://cdn.jsdelivr.net/npm/jquery@3.5.1/dist/jquery.min.js"></SCRIPT>', True),
    ("<script src='//cdnjs.cloudflare.com/ajax/libs/require.js/2.3.6/require.min.js'></script>", True),
    ('<script src="http://x.org/require.js" crossorigin="anonymous">\n</script>', True),
    ('<script src="https://x.org/jquery.min.js">window.x = 1;</script>', False),     # a body: not Quarto's tag
    ('<script src="https://x.org/app.min.js"></script>', False),                     # not require.js/jQuery
    ('<script src="lib/jquery.min.js"></script>', False),                            # a local file
    ('<script type="module">import("https://x.org/jquery.min.js")</script>', False),
])
def test_only_remote_require_and_jquery_tags_are_removed(tag, removed):
    page = f"<head>\n  <meta charset=\"utf-8\">\n  {tag}\n  <style>p {{}}</style>\n</head>"
    cleaned = q.clean_html(page)
    assert cleaned == (page.replace(f"  {tag}\n", "") if removed else page)


def test_quarto_runs_the_post_render_script_over_its_outputs(tmp_path):
    """_quarto.yml's post-render script, run as Quarto runs a .lua project script (src/core/run/lua.ts:
    `pandoc --from markdown --to plain --lua-filter SCRIPT` on an empty document, in the project folder,
    QUARTO_PROJECT_OUTPUT_FILES relative to it, or the list in the file QUARTO_USE_FILE_FOR_PROJECT_OUTPUT_FILES
    names): the HTML outputs are cleaned in place, the PDF untouched, a missing file only said on stderr."""
    config = yaml.safe_load(quarto_config().read_text(encoding="utf-8"))
    (script,) = config["project"]["post-render"]
    script = quarto_config().parent / script
    page = f"<!DOCTYPE html><html><head>{HEAD_1_10}</head><body><p>x</p></body></html>"
    (tmp_path / "report.html").write_text(page, encoding="utf-8")
    (tmp_path / "report.pdf").write_bytes(b"%PDF-1.7 <script src=\"https://x.org/jquery.min.js\"></script>")
    pandoc = render_mod.pandoc_path()
    for env in ({"QUARTO_PROJECT_OUTPUT_FILES": "report.html\nreport.pdf\nmissing.html"},
                {"QUARTO_USE_FILE_FOR_PROJECT_OUTPUT_FILES": str(tmp_path / "list.txt")}):
        (tmp_path / "list.txt").write_text("report.html\nreport.pdf\n", encoding="utf-8")
        proc = subprocess.run([pandoc, "--from", "markdown", "--to", "plain", "--lua-filter", str(script)], input="",
                              capture_output=True, text=True, cwd=tmp_path, check=False,
                              env={k: v for k, v in os.environ.items() if not k.startswith("QUARTO_")} | env)
        assert proc.returncode == 0 and proc.stdout.strip() == ""
        assert proc.stderr == ("evalreport offline.lua: cannot read missing.html: missing.html: No such file or "
                               "directory\n" if "missing" in env.get("QUARTO_PROJECT_OUTPUT_FILES", "") else "")
        html = (tmp_path / "report.html").read_text(encoding="utf-8")
        assert html == q.clean_html(page) and remote_loads(html) == []
        assert (tmp_path / "report.pdf").read_bytes().startswith(b"%PDF-1.7 <script src=")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["list.txt", "report.html", "report.pdf"]


def test_define_stub_kept_when_require_is_not_removed():
    page = "<head><script>/* require.js inlined */</script>" + HEAD_1_10.splitlines()[3] + "</head>"
    assert q.clean_html(page) == page


@pytest.mark.parametrize("snippet", [
    '<script src="https://example.org/x.js"></script>',
    '<script src="//example.org/x.js"></script>',
    '<link rel="stylesheet" href="http://fonts.example.org/f.css">',
    '<link rel="preload" href="https://x.org/f.woff2" as="font">',
    '<img src="https://x.org/a.png" alt="">',
    '<img src="data:image/png;base64,AA" srcset="data:image/png;base64,AA 1x, https://x.org/a@2x.png 2x">',
    '<picture><source srcset="//x.org/a.webp"></picture>',
    '<iframe src="https://x.org/"></iframe>',
    '<video src="https://x.org/v.mp4" poster="data:,"></video>',
    '<video poster="https://x.org/p.png"></video>',
    '<audio src="http://x.org/a.ogg"></audio>',
    '<style>body { background: url("https://x.org/bg.png"); }</style>',
    "<style>@import 'https://x.org/more.css';</style>",
    '<style>@import url(//x.org/more.css);</style>',
    '<div style="background-image: url(http://x.org/a.png)"></div>',
    '<object data="https://x.org/a.svg"></object>',
    '<svg><image href="https://x.org/a.png"/></svg>',
    # found by review: refresh targets, background attributes, every SVG href, image-set()
    '<meta http-equiv="refresh" content="0;url=https://x.org/a">',
    '<table background="https://x.org/b.png"></table>',
    '<svg><use href="https://x.org/s.svg#a"/></svg>',
    '<svg><filter><feImage href="https://x.org/f.png"/></filter></svg>',
    '<svg><script xlink:href="https://x.org/s.js"></script></svg>',
    """<div style='background: image-set("https://x.org/i.png" 1x)'></div>""",
])
def test_offline_check_refuses_every_network_load(snippet):
    with pytest.raises(RenderError, match="network"):
        check_offline(f"<html><head></head><body>{snippet}</body></html>")


@pytest.mark.parametrize("snippet", [
    '<a href="https://doi.org/10.1000/x">a paper</a>',             # navigation, not a load
    '<link rel="canonical" href="https://example.org/report">',   # never fetched
    '<img src="data:image/png;base64,AAAA">',
    '<style>p { background: url(data:image/svg+xml;base64,AA); }</style>',
    '<script>var u = "https://vega.github.io/schema/vega-lite/v5.json";</script>',  # data inside a script
    '<a href="#scores">scores</a>',
    '<img srcset="data:image/png;base64,AAAA 2x" src="data:image/png;base64,AA">',   # commas inside data:
    '<svg><use href="#marker"/></svg>',
])
def test_offline_check_allows_links_data_uris_and_script_text(snippet):
    check_offline(f"<html><head></head><body>{snippet}</body></html>")


def test_offline_check_refuses_files_beside_the_page():
    with pytest.raises(RenderError, match="self-contained"):
        check_offline('<link href="report_files/libs/bootstrap/bootstrap.min.css" rel="stylesheet">')


# --------------------------------------------------------------------------------------------
# Running (a fake) Quarto through render()
# --------------------------------------------------------------------------------------------
def test_quarto_engine_stages_visible_project_and_cleans_html(tmp_path, fake_quarto):
    nb = executed_notebook(tmp_path / "nb.ipynb")
    out = tmp_path / ".report.abc.tmp"           # like build_report's atomic staging folder
    result = render_mod.render([nb], out, title="Fake", engine="quarto")
    runs = _runs(fake_quarto)
    assert [r["to"] for r in runs] == ["html", "typst"]
    for run in runs:
        assert not run["hidden"] and q.hidden_component(Path(run["cwd"])) is None
        assert run["project_config"] and run["front_matter_format"] == ["html", "typst"]
        assert not Path(run["cwd"]).exists()       # the temporary project is gone
    html = result["html"].read_text(encoding="utf-8")
    assert "cdn.jsdelivr.net" not in html and "define('jquery'" not in html
    assert html.count("window.vegaEmbed=") == 1   # the header include with the bundle
    assert "Figure 1: Scores of *each* system [a](http://x)" in html
    pdf = result["pdf"].read_text(encoding="utf-8")
    assert "papersize=a4" in pdf and "Figure 1: Scores of *each* system" in pdf
    assert sorted(p.name for p in out.iterdir()) == ["report.html", "report.pdf"]


def test_quarto_engine_without_a_visible_temp_folder_relies_on_front_matter(tmp_path, fake_quarto, monkeypatch):
    monkeypatch.setattr(q, "render_folder", lambda near=None, candidates=None: None)
    nb = executed_notebook(tmp_path / "nb.ipynb")
    out = tmp_path / ".report.abc.tmp"
    result = render_mod.render([nb], out, title="Hidden", engine="quarto", formats=("html",))
    (run,) = _runs(fake_quarto)
    assert run["hidden"] and not run["project_config"]          # Quarto skipped _quarto.yml ...
    assert run["options"]["embed-resources"] is True            # ... the front matter still counts
    html = result["html"].read_text(encoding="utf-8")
    assert html.count("window.vegaEmbed=") == 1 and "report_files/" not in html


def test_quarto_ignoring_its_options_is_refused_not_shipped(tmp_path, fake_quarto, monkeypatch):
    # as before this fix: no front matter and a hidden project -> report_files/ links
    monkeypatch.setattr(q, "render_folder", lambda near=None, candidates=None: None)
    monkeypatch.setattr(q, "front_matter", lambda meta, config: "---\ntitle: x\n---")
    out = tmp_path / "out"
    with pytest.raises(RenderError, match="report_files/libs"):
        render_mod.render([executed_notebook(tmp_path / "nb.ipynb")], out, title="x", engine="quarto")
    assert list(out.iterdir()) == []


def test_quarto_1_7_cdn_tags_are_cleaned_too(tmp_path, fake_quarto, monkeypatch):
    monkeypatch.setenv("FAKE_QUARTO_VERSION", "1.7")
    result = render_mod.render([executed_notebook(tmp_path / "nb.ipynb")], tmp_path / "out", title="x",
                               engine="quarto", formats=("html",))
    assert "cdnjs" not in result["html"].read_text(encoding="utf-8")


def test_failed_quarto_run_raises_with_command_status_and_stderr(tmp_path, fake_quarto, monkeypatch):
    monkeypatch.setenv("FAKE_QUARTO_FAIL", "1")
    out = tmp_path / "out"
    with pytest.raises(RenderError) as err:
        render_mod.render([executed_notebook(tmp_path / "nb.ipynb")], out, title="x", engine="quarto")
    message = str(err.value)
    assert "`quarto render report.ipynb --to html --no-execute` failed with exit status 3" in message
    assert "unknown font family: libertinus serif" in message and "render.ts:42" in message
    assert list(out.iterdir()) == []


def test_quarto_warnings_are_logged_one_line_each(tmp_path, fake_quarto, monkeypatch, caplog):
    monkeypatch.setenv("FAKE_QUARTO_WARN", "1")
    with caplog.at_level(logging.WARNING, logger="evalreport.report"):
        render_mod.render([executed_notebook(tmp_path / "nb.ipynb")], tmp_path / "out", title="x",
                          engine="quarto", formats=("html",))
    warned = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warned) == 2 and all("\n" not in w and "Could not fetch resource" in w for w in warned)
    assert not any("Output created" in w for w in warned)


def test_remaining_network_reference_refuses_the_report(tmp_path, fake_quarto, monkeypatch):
    monkeypatch.setenv("FAKE_QUARTO_REMOTE", "1")
    out = tmp_path / "out"
    with pytest.raises(RenderError, match="fonts.googleapis.com"):
        render_mod.render([executed_notebook(tmp_path / "nb.ipynb")], out, title="x", engine="quarto")
    assert list(out.iterdir()) == []


def test_quarto_reporting_success_without_output_is_an_error(tmp_path, monkeypatch):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "quarto").write_text("#!/bin/sh\nexit 0\n")
    (bin_dir / "quarto").chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    with pytest.raises(RenderError, match="wrote no report.html"):
        render_mod.render([executed_notebook(tmp_path / "nb.ipynb")], tmp_path / "out", title="x", engine="quarto")


def test_builtin_engine_output_passes_the_offline_check_and_is_refused_otherwise(tmp_path, monkeypatch):
    nb = executed_notebook(tmp_path / "nb.ipynb")
    result = render_mod.render([nb], tmp_path / "ok", title="x", engine="builtin", formats=("html",))
    check_offline(result["html"].read_text(encoding="utf-8"))
    real = render_mod._builtin_html

    def leaky(*args, **kwargs):
        path = real(*args, **kwargs)
        path.write_text(path.read_text(encoding="utf-8").replace(
            "</head>", '<script src="https://cdn.example.org/x.js"></script></head>'), encoding="utf-8")
        return path

    monkeypatch.setattr(render_mod, "_builtin_html", leaky)
    with pytest.raises(RenderError, match="cdn.example.org"):
        render_mod.render([nb], tmp_path / "bad", title="x", engine="builtin", formats=("html",))
    assert list((tmp_path / "bad").iterdir()) == []


def test_a_notebook_joined_twice_gets_unique_labels():
    """A benchmark shows report.ipynb once per task: Quarto needs every cross-reference label once,
    so the second copy's labels get -2 (the first keep theirs: links into a single-task report stay)."""
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("#| label: findings\nrep.findings()"),
                nbformat.v4.new_code_cell("#| label: tbl-leaderboard\nrep.leaderboard_table()"),
                nbformat.v4.new_code_cell("rep = open_report(tables)")]
    merged = q.joined_notebook([("a", nb), ("b", nb), ("c", nb)], {"title": "T"}, {})
    labels = [line.split(":", 1)[1].strip() for c in merged.cells if c.cell_type == "code"
              for line in c.source.splitlines() if line.startswith("#| label:")]
    assert labels == ["findings", "tbl-leaderboard", "findings-2", "tbl-leaderboard-2",
                      "findings-3", "tbl-leaderboard-3"]
    assert len(set(labels)) == len(labels)

