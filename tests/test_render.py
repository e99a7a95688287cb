"""End-to-end tests of report execution and rendering (builtin engine), and static checks of
the Quarto configuration and templates."""
from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import time
from html.parser import HTMLParser
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
pytest.importorskip("papermill")
pytest.importorskip("altair")
pytest.importorskip("vl_convert")
yaml = pytest.importorskip("yaml")

import importlib

# evalreport.report re-exports the render() function under the module's name.
render_mod = importlib.import_module("evalreport.report.render")
from evalreport.report import quarto as quarto_mod
from evalreport.report.display import Chart, Heading, Note, Table
from evalreport.report.render import execute, render
from evalreport.report.resources import data_root, quarto_config, templates_dir

CHART_NAMES = ("scores-by-system", "prevalence-curve")

# --------------------------------------------------------------------------------------------
# A small report notebook, built programmatically
# --------------------------------------------------------------------------------------------
PARAMS = """\
n_items = 10
system_names = ["a", "b"]
"""

SETUP = """\
import sys
import altair as alt
import numpy as np
import pandas as pd
from evalreport.charts import use_theme
from evalreport.report.display import Chart, Heading, Note, Table
use_theme()
frame = pd.DataFrame({"system": system_names * 3,
                      "measure": ["accuracy"] * 2 + ["f1"] * 2 + ["mcc"] * 2,
                      "score": [0.91, 0.87, 0.72, 0.80, np.nan, 0.55]})
kernel_python = sys.executable
"""

TABLE = """\
wide = frame.pivot(index="system", columns="measure", values="score")
undefined = wide.isna()
reasons = undefined.replace({True: "MCC is 0/0: no positive predictions", False: ""})
Table(wide, caption="Scores by system", undefined=undefined, reasons=reasons)
"""

CHART1 = """\
bars = alt.Chart(frame.dropna()).mark_bar().encode(
    x=alt.X("score:Q", scale=alt.Scale(domain=[0, 1])), y="system:N", color="system:N",
    row="measure:N")
Chart(bars, name="scores-by-system", caption="Scores of each system </script> <b>safe</b>")
"""

CHART2 = """\
curve = pd.DataFrame({"prevalence": np.linspace(0.01, 0.5, 30)})
curve["precision"] = 0.9 * curve.prevalence / (0.9 * curve.prevalence + 0.1 * (1 - curve.prevalence))
line = alt.Chart(curve).mark_line().encode(x="prevalence:Q", y="precision:Q")
Chart(line, name="prevalence-curve")
"""

NOTE = """\
import warnings
warnings.warn("this stderr warning must not reach the report")
best = frame.loc[frame.score.idxmax()]
Note(f"System **{best.system}** has the best score, {best.score:.2f} ({best.measure}), "
     f"over {n_items} items.")
"""

HEADING = """\
Heading(f"Details for system {system_names[0]}", level=2)
"""


def build_notebook(path: Path, *, title: str = "Overview") -> Path:
    nb = nbformat.v4.new_notebook()
    params = nbformat.v4.new_code_cell(PARAMS)
    params.metadata["tags"] = ["parameters"]
    nb.cells = [
        nbformat.v4.new_markdown_cell(f"# {title}\n\nThis report compares *two* systems."),
        params,
        nbformat.v4.new_code_cell(SETUP),
        nbformat.v4.new_markdown_cell("## Scores"),
        nbformat.v4.new_code_cell(TABLE),
        nbformat.v4.new_code_cell(CHART1),
        nbformat.v4.new_markdown_cell("## Prevalence"),
        nbformat.v4.new_code_cell(CHART2),
        nbformat.v4.new_code_cell(NOTE),
        nbformat.v4.new_code_cell(HEADING),
        nbformat.v4.new_markdown_cell("Text under the computed heading."),
    ]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.metadata["language_info"] = {"name": "python"}
    nbformat.write(nb, str(path))
    return path


@pytest.fixture(scope="module")
def rendered(tmp_path_factory):
    """Execute the test notebook once and render it (builtin html + pdf); record timings."""
    work = tmp_path_factory.mktemp("report")
    src = build_notebook(work / "overview.ipynb")
    timings = {}
    t = time.perf_counter()
    executed = execute(src, work / "executed" / "overview.ipynb", {"n_items": 42}, progress=False)
    timings["execute"] = time.perf_counter() - t
    out_dir = work / "out"
    t = time.perf_counter()
    html_only = render([executed], out_dir, title="HTML only", formats=("html",), engine="builtin")
    timings["render_html"] = time.perf_counter() - t
    t = time.perf_counter()
    pdf_only = render([executed], out_dir, title="PDF only", formats=("pdf",), engine="builtin")
    timings["render_pdf"] = time.perf_counter() - t
    t = time.perf_counter()
    result = render(
        [executed],
        out_dir,
        title="Test report <&>",
        engine="builtin",
        metadata={"subtitle": "Two systems", "date": "2024-05-01"},
    )
    timings["render_both"] = time.perf_counter() - t
    print("timings:", json.dumps({k: round(v, 2) for k, v in timings.items()}))
    assert html_only["html"] == result["html"] and pdf_only["pdf"] == result["pdf"]
    return {"executed": executed, "result": result, "work": work, "timings": timings}


# --------------------------------------------------------------------------------------------
# Display objects (no kernel needed)
# --------------------------------------------------------------------------------------------
def test_chart_bundle_has_html_and_png_but_no_vegalite_mimetype():
    import altair as alt
    import pandas as pd

    chart = alt.Chart(pd.DataFrame({"x": [1, 2], "y": ["</script>", "b"]})).mark_bar().encode(x="x", y="y")
    from evalreport.report.display import chart_image_mime

    data, meta = Chart(chart, name="c1", caption="cap")._repr_mimebundle_()
    mime = chart_image_mime()        # SVG where typst has the charts' font, else PNG
    assert set(data) == {"text/html", mime, "text/plain"}
    assert not any(k.startswith("application/vnd.vegalite") for k in data)
    html = data["text/html"]
    assert 'class="vega-chart" id="chart-c1"' in html
    spec_json = re.search(r'<script[^>]*class="vega-spec"[^>]*>(.*?)</script>', html, re.S)
    assert spec_json and "</" not in spec_json.group(1)
    assert json.loads(spec_json.group(1))["mark"]["type"] == "bar"
    assert "vegaEmbed" in html and "<script src" not in html
    assert meta[mime]["width"] > 0


def test_chart_name_must_be_an_id():
    import altair as alt

    with pytest.raises(ValueError):
        Chart(alt.Chart().mark_point(), name="has space")


def test_table_marks_undefined_cells_in_both_representations():
    import pandas as pd

    df = pd.DataFrame({"p": [0.5, float("nan")], "name": ["x|y", "z"]}, index=["s1", "s2"])
    und = pd.DataFrame({"p": [False, True]}, index=df.index)
    why = pd.DataFrame({"p": ["", "0/0"]}, index=df.index)
    data = Table(df, caption="T", undefined=und, reasons=why)._repr_mimebundle_()
    assert 'title="0/0"' in data["text/html"] and "er-undefined" in data["text/html"]
    md = data["text/markdown"]
    assert "| s2 | \u2014^a^ | z |" in md and "x\\|y" in md and "^a^ \u2014 0\\/0" in md   # escaped: shows 0/0
    assert md.splitlines()[1] == "|:--|----:|:---|"  # alignment, dashes sized by the longest text
    with pytest.raises(ValueError):
        Table(df, undefined=pd.DataFrame({"q": [True]}, index=["s1"]))


def test_note_and_heading():
    data = Note("**bold** text")._repr_mimebundle_()
    assert "<strong>bold</strong>" in data["text/html"]
    assert data["text/markdown"] == "::: {.er-note .er-note-note}\n**bold** text\n:::\n"
    assert Heading("A  b", level=3)._repr_mimebundle_()["text/markdown"] == "### A b"


# --------------------------------------------------------------------------------------------
# Execution and builtin rendering
# --------------------------------------------------------------------------------------------
class _Refs(HTMLParser):
    def __init__(self):
        super().__init__()
        self.refs: list[tuple[str, str, str]] = []
        self.ids: list[str] = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        for attr in ("src", "href"):
            if attr in a and tag in ("script", "link", "img", "iframe", "source", "video", "audio"):
                self.refs.append((tag, attr, a[attr] or ""))
        if "id" in a:
            self.ids.append(a["id"])


def test_execute_uses_running_interpreter_and_injects_parameters(rendered):
    nb = nbformat.read(str(rendered["executed"]), as_version=4)
    injected = [c for c in nb.cells if "injected-parameters" in c.metadata.get("tags", [])]
    assert injected and "n_items = 42" in injected[0].source
    assert nb.metadata["kernelspec"]["name"] == "python3"


def test_execute_kernel_is_this_interpreter(tmp_path):
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("import sys; print(sys.executable)")]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, str(tmp_path / "k.ipynb"))
    out = execute(tmp_path / "k.ipynb", tmp_path / "k-out.ipynb", {}, progress=False)
    printed = nbformat.read(str(out), as_version=4).cells[0].outputs[0]["text"].strip()
    assert Path(printed).resolve() == Path(sys.executable).resolve()


def test_kernel_shutdown_sends_no_interrupt(tmp_path, monkeypatch):
    """jupyter_client interrupts (SIGINT) a kernel before shutting it down;
    landing inside a message handler, that made ipykernel print "KeyboardInterrupt caught in
    kernel." at random. execute() shuts the kernel down with the request alone."""
    import signal

    from jupyter_client.manager import KernelManager

    sent = []
    real = KernelManager._async_signal_kernel

    async def recording(self, signum):
        sent.append(signum)
        return await real(self, signum)

    monkeypatch.setattr(KernelManager, "_async_signal_kernel", recording)
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("x = 1")]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, str(tmp_path / "k.ipynb"))
    execute(tmp_path / "k.ipynb", tmp_path / "k-out.ipynb", {}, progress=False)
    assert signal.SIGINT not in sent
    # the control: papermill's default kernel manager does interrupt the kernel on shutdown
    import papermill as pm

    pm.execute_notebook(str(tmp_path / "k.ipynb"), str(tmp_path / "k-default.ipynb"), kernel_name="python3",
                        progress_bar=False)
    assert signal.SIGINT in sent


def test_execute_failure_names_the_cell(tmp_path):
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("1 / 0")]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, str(tmp_path / "bad.ipynb"))
    with pytest.raises(render_mod.RenderError, match="ZeroDivisionError"):
        execute(tmp_path / "bad.ipynb", tmp_path / "bad-out.ipynb", {}, progress=False)


def test_html_is_self_contained_with_one_bundle_and_every_spec(rendered):
    path = rendered["result"]["html"]
    assert path.name == "report.html" and path.parent.name == "out"
    html = path.read_text(encoding="utf-8")
    refs = _Refs()
    refs.feed(html)
    remote = [r for r in refs.refs if re.match(r"\s*(https?:)?//", r[2], re.I)]
    assert remote == [], remote
    assert not [r for r in refs.refs if r[0] in ("script", "link")], refs.refs  # all inline
    # The Vega bundle: exactly once. Its last statement is a unique fingerprint.
    assert html.count("window.vegaEmbed=") == 1
    assert html.count("}).call(window);") == 1
    for name in CHART_NAMES:
        assert html.count(f'id="chart-{name}"') == 1
    specs = re.findall(r'<script[^>]*class="vega-spec"[^>]*>(.*?)</script>', html, re.S)
    assert len(specs) == 2
    assert all("/vega-lite/" in json.loads(s)["$schema"] for s in specs)
    # Inputs are hidden, stderr dropped, title escaped, notes and tables present.
    assert "use_theme()" not in html and "stderr warning" not in html
    assert "Test report &lt;&amp;&gt;" in html
    assert 'class="er-note er-note-note"' in html and 'class="er-table"' in html
    assert "System <strong>a</strong> has the best score" in html
    # Table of contents links to unique heading ids.
    assert len(refs.ids) == len(set(refs.ids))
    toc = re.search(r'<nav id="TOC".*?</nav>', html, re.S).group(0)
    for target in re.findall(r'href="#([^"]+)"', toc):
        assert target in refs.ids
    assert "Details for system a" in toc and "Prevalence" in toc
    # Nothing left behind but the outputs.
    assert sorted(p.name for p in path.parent.iterdir()) == ["report.html", "report.pdf"]


def _pdf_images(pdf: Path) -> int:
    if shutil.which("pdfimages"):
        out = subprocess.run(["pdfimages", "-list", str(pdf)], capture_output=True, text=True, check=True)
        return len(out.stdout.strip().splitlines()) - 2  # two header lines
    try:
        import pypdf
    except ImportError:
        return len(re.findall(rb"/Subtype\s*/Image", pdf.read_bytes()))
    return sum(len(page.images) for page in pypdf.PdfReader(str(pdf)).pages)


#: Words only the charts print: their axis titles (a vector chart is text and paths, not an image).
CHART_AXIS_TITLES = ("score", "precision")


def _pdf_charts(pdf: Path) -> int:
    """Charts drawn in the PDF: raster images (PNG charts), or, when there are none, the charts' axis
    titles found in the PDF's text (SVG charts that typst drew as text and paths)."""
    images = _pdf_images(pdf)
    if images or not shutil.which("pdftotext"):
        return images
    text = subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True, text=True, check=True).stdout
    return sum(1 for title in CHART_AXIS_TITLES if re.search(rf"^{title}$", text, re.MULTILINE))


def _pdf_pages(pdf: Path) -> int:
    if shutil.which("pdfinfo"):
        out = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True, check=True).stdout
        return int(re.search(r"^Pages:\s+(\d+)", out, re.M).group(1))
    return len(re.findall(rb"/Type\s*/Page(?!s)", pdf.read_bytes()))


def test_pdf_has_pages_and_chart_images(rendered):
    pdf = rendered["result"]["pdf"]
    assert pdf.read_bytes().startswith(b"%PDF-")
    assert _pdf_pages(pdf) >= 1
    assert _pdf_charts(pdf) >= len(CHART_NAMES)


def test_rendered_pdf_reads_without_poppler_errors(rendered):
    """Typst writes /Suspects false; poppler calls it a syntax error: render() removes it."""
    if not shutil.which("pdfinfo"):
        pytest.skip("pdfinfo (poppler-utils) not installed")
    pdf = rendered["result"]["pdf"]
    assert b"/Suspects false" not in pdf.read_bytes()
    proc = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True, check=True)
    assert proc.stderr.strip() == "", proc.stderr


def test_pdf_text_has_table_note_and_headings(rendered):
    if not shutil.which("pdftotext"):
        pytest.skip("pdftotext (poppler-utils) not installed")
    text = subprocess.run(
        ["pdftotext", str(rendered["result"]["pdf"]), "-"], capture_output=True, text=True, check=True
    ).stdout
    for expected in ("Test report", "Scores by system", "accuracy", "0.910", "best score",
                     "Details for system a", "no positive predictions"):
        assert expected in text, expected
    assert "use_theme" not in text and "stderr warning" not in text


def test_failed_render_leaves_nothing(tmp_path, rendered, monkeypatch):
    out_dir = tmp_path / "out"

    def boom(*args, **kwargs):
        raise render_mod.RenderError("typst exploded")

    monkeypatch.setattr(render_mod, "_builtin_pdf", boom)
    with pytest.raises(render_mod.RenderError):
        render([rendered["executed"]], out_dir, title="x", engine="builtin")
    assert list(out_dir.iterdir()) == []  # no html either, no temp dir


def test_render_refuses_unexecuted_notebook(tmp_path):
    src = build_notebook(tmp_path / "raw.ipynb")
    with pytest.raises(render_mod.RenderError, match="not been executed"):
        render([src], tmp_path / "out", title="x", engine="builtin")


def test_render_validates_arguments(rendered, tmp_path):
    nb = rendered["executed"]
    with pytest.raises(ValueError, match="unknown metadata"):
        render([nb], tmp_path, title="x", engine="builtin", metadata={"autor": "typo"})
    with pytest.raises(ValueError):
        render([nb], tmp_path, title="x", engine="builtin", formats=("docx",))
    with pytest.raises(ValueError):
        render([nb], tmp_path, title="x", engine="latex")


def test_several_notebooks_make_one_page(rendered, tmp_path):
    second = tmp_path / "measures.ipynb"
    nb = nbformat.read(str(rendered["executed"]), as_version=4)
    nb.cells[0].source = "# Measures\n\nSecond notebook."
    nbformat.write(nb, str(second))
    result = render([rendered["executed"], second], tmp_path / "out", title="Two", engine="builtin",
                    formats=("html",))
    html = result["html"].read_text(encoding="utf-8")
    assert html.count('<section class="er-notebook"') == 2
    assert html.index("This report compares") < html.index("Second notebook.")
    assert html.count("window.vegaEmbed=") == 1
    refs = _Refs()
    refs.feed(html)
    assert len(refs.ids) == len(set(refs.ids))  # the repeated headings got distinct ids


def test_vega_bundle_is_cached(tmp_path, monkeypatch):
    monkeypatch.setenv("EVALREPORT_CACHE_DIR", str(tmp_path))
    first = render_mod.vega_bundle()
    cached = list(tmp_path.glob("vega-bundle-vlconvert-*.js"))
    assert len(cached) == 1 and cached[0].read_text(encoding="utf-8") == first
    t = time.perf_counter()
    assert render_mod.vega_bundle() == first
    assert time.perf_counter() - t < 0.5


# --------------------------------------------------------------------------------------------
# Quarto configuration and templates (static checks; running quarto needs the executable)
# --------------------------------------------------------------------------------------------
def test_quarto_config_parses_and_names_existing_files():
    cfg_path = quarto_config()
    config = yaml.safe_load(cfg_path.read_text(encoding="utf-8"))
    assert config["execute"]["enabled"] is False and config["execute"]["echo"] is False
    html = config["format"]["html"]
    assert html["embed-resources"] is True and html["html-math-method"] == "mathml"
    assert "typst" in config["format"]
    assert config["project"]["render"] == ["report.ipynb"]
    files = quarto_mod._quarto_files(config)
    assert "templates/html/report.css" in files
    for rel in files:
        assert (cfg_path.parent / rel).is_file(), rel
    header = (cfg_path.parent / html["include-in-header"]).read_text(encoding="utf-8")
    assert quarto_mod.BUNDLE_MARKER in header


def test_quarto_project_and_commands(rendered, tmp_path):
    nb = nbformat.read(str(rendered["executed"]), as_version=4)
    meta = render_mod.check_metadata("Q <title>", {"date": "2024"})
    path = render_mod.quarto_project([("overview", nb)], tmp_path / "proj", meta)
    project = path.parent
    config = yaml.safe_load((project / "_quarto.yml").read_text(encoding="utf-8"))
    for rel in quarto_mod._quarto_files(config):
        assert (project / rel).is_file(), rel
    header = (project / config["format"]["html"]["include-in-header"]).read_text(encoding="utf-8")
    assert header.count("window.vegaEmbed=") == 1 and quarto_mod.BUNDLE_MARKER not in header
    merged = nbformat.read(str(path), as_version=4)
    nbformat.validate(merged)
    front = merged.cells[0]
    assert front.cell_type == "raw"
    doc = yaml.safe_load(front.source.strip().strip("-"))
    assert doc == {"title": "Q <title>", "date": "2024", "lang": "en", "format": config["format"],
                   "execute": config["execute"], "filters": config["filters"], "evalreport-quarto": True}
    code = [c for c in merged.cells if c.cell_type == "code"]
    assert code and all(c.source.startswith("#| echo: false\n") for c in code)
    chart = next(c for c in code if "scores-by-system" in c.source)
    assert '#| fig-cap: "Scores of each system \\\\<\\\\/script\\\\> \\\\<b\\\\>safe\\\\<\\\\/b\\\\>"' in chart.source
    cmds = render_mod.quarto_commands("/bin/quarto", "report.ipynb", ("html", "pdf"))
    assert cmds == [
        ["/bin/quarto", "render", "report.ipynb", "--to", "html", "--no-execute"],
        ["/bin/quarto", "render", "report.ipynb", "--to", "typst", "--no-execute"],
    ]


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("quarto") is None, reason="quarto executable not on PATH (pip install quarto-cli)")
def test_quarto_engine_end_to_end(rendered, tmp_path):
    result = render([rendered["executed"]], tmp_path, title="Quarto", engine="quarto")
    html = result["html"].read_text(encoding="utf-8")
    assert html.count("window.vegaEmbed=") == 1
    refs = _Refs()
    refs.feed(html)
    assert not [r for r in refs.refs if re.match(r"\s*(https?:)?//", r[2], re.I)]
    assert _pdf_charts(result["pdf"]) >= len(CHART_NAMES)
    # the tables as evalreport lays them out (tests/quarto_checks.py): no glued numbers in the PDF, each
    # HTML table in its scrolling box over the body and right margin
    import nbformat
    from quarto_checks import glued_numbers, html_table_problems

    from evalreport.report.typst_table import MIME_TYPST

    nb = nbformat.read(str(rendered["executed"]), as_version=4)
    n = sum(MIME_TYPST in o.get("data", {}) for c in nb.cells if c.cell_type == "code" for o in c.outputs)
    assert not glued_numbers(result["pdf"]) and html_table_problems(html, n) == []


def test_templates_parse(tmp_path):
    import jinja2

    tdir = templates_dir()
    env = jinja2.Environment(loader=jinja2.FileSystemLoader([str(tdir / "html"), str(tdir / "html" / "cells")]))
    env.parse((tdir / "html" / "page.html.j2").read_text(encoding="utf-8"))
    env.parse((tdir / "html" / "cells" / "index.html.j2").read_text(encoding="utf-8"))
    json.loads((tdir / "html" / "cells" / "conf.json").read_text(encoding="utf-8"))
    # pandoc checks the Lua filter and the Typst template by using them on a tiny document.
    pandoc = render_mod.pandoc_path()
    doc = subprocess.run(
        [pandoc, "--from=markdown", "--to=typst", "--standalone",
         f"--template={tdir / 'typst' / 'report.typ'}", f"--lua-filter={tdir / 'typst' / 'select-output.lua'}",
         "--metadata=title:T"],
        input="# H\n\ntext\n", capture_output=True, text=True,
    )
    assert doc.returncode == 0, doc.stderr
    import typst

    src = tmp_path / "t.typ"
    src.write_text(doc.stdout, encoding="utf-8")
    assert typst.compile(str(src), format="pdf", ignore_system_fonts=True).startswith(b"%PDF")


def test_data_root_holds_templates_and_notebooks_dir():
    root = data_root()
    assert (root / "templates" / "html" / "report.css").is_file()
    assert (root / "templates" / "typst" / "report.typ").is_file()


# --------------------------------------------------------------------------------------------
# Browser (slow): charts actually draw offline
# --------------------------------------------------------------------------------------------
def _chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome", "chrome"):
        found = shutil.which(name)
        if found:
            return found
    return None


@pytest.mark.slow
@pytest.mark.skipif(_chromium() is None, reason="no chromium/chrome executable (apt-get install chromium)")
def test_charts_draw_in_headless_chromium(rendered, tmp_path):
    html = rendered["result"]["html"]
    cmd = [
        _chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run",
        f"--user-data-dir={tmp_path / 'profile'}", "--virtual-time-budget=10000",
    ]
    dom = subprocess.run(cmd + ["--dump-dom", html.as_uri()], capture_output=True, text=True, timeout=120).stdout
    containers = re.findall(r'<div[^>]*\sid="(chart-[^"]+)"(.*?)</figure>', dom, re.S)
    assert {c[0] for c in containers} == {f"chart-{n}" for n in CHART_NAMES}
    for chart_id, inner in containers:
        assert re.search(r'<(svg|canvas)[^>]*class="[^"]*marks', inner), f"{chart_id} was not drawn"
        assert ">Chart could not be drawn" not in inner
    # A screenshot is useful when a human looks at a failure; the drawing itself is asserted above.
    shot = tmp_path / "report.png"
    subprocess.run(cmd + [f"--screenshot={shot}", "--window-size=1280,2400", html.as_uri()],
                   capture_output=True, timeout=120)
    assert shot.is_file() and shot.stat().st_size > 10_000
