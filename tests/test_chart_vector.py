"""Charts' static images as SVG that typst sets itself, in the charts' font (Liberation Sans).

vl-convert lays the chart text out with Liberation Sans' metrics and writes it as ``<text>``; typst is
given the machine's Liberation Sans files only (:func:`evalreport.report.fonts.chart_font_dir`), so the
PDF's chart text is that font, selectable, and no other machine font enters a Latin report. Where the
machine has no Liberation Sans the image is a PNG with its text baked in.
"""
from __future__ import annotations

import base64
import shutil
import subprocess

import pytest

nbformat = pytest.importorskip("nbformat")
alt = pytest.importorskip("altair")
pytest.importorskip("vl_convert")

from evalreport.charts.theme import FONT  # noqa: E402
from evalreport.report import display, fonts  # noqa: E402

needs_liberation = pytest.mark.skipif(not fonts.liberation_sans_files(), reason="needs Liberation Sans installed")
needs_poppler = pytest.mark.skipif(shutil.which("pdffonts") is None or shutil.which("pdftotext") is None,
                                   reason="needs poppler's pdffonts and pdftotext")


def _spec(names: list[str]) -> dict:
    import pandas as pd

    from evalreport.charts.theme import use_theme

    use_theme()
    frame = pd.DataFrame({"system": names, "score": [0.8 - 0.1 * i for i in range(len(names))]})
    return alt.Chart(frame).mark_bar().encode(x=alt.X("score:Q", title="Macro F1 score"), y="system:N").to_dict()


def test_the_svg_has_the_pngs_size_in_css_pixels():
    spec = _spec(["alpha", "beta"])
    svg, w, h = display.chart_svg_output(spec)
    _png, pw, ph = display.chart_png_output(spec)
    assert svg.startswith("<svg") and (w, h) == (pw, ph)


def test_generic_sans_serif_text_gets_the_charts_font():
    bare = alt.Chart(alt.Data(values=[{"a": 1}])).mark_point().encode(x="a:Q").to_dict()
    svg, _w, _h = display.chart_svg_output(bare)
    assert 'font-family="sans-serif"' not in svg and f'font-family="{FONT}"' in svg


def test_the_environment_chooses_the_image_kind(monkeypatch):
    chart = display.Chart(alt.Chart(alt.Data(values=[{"a": 1}])).mark_point().encode(x="a:Q"), name="p")
    monkeypatch.setenv(display.CHART_IMAGES_ENV, "png")
    data, meta = chart._repr_mimebundle_()
    assert base64.b64decode(data["image/png"])[:4] == b"\x89PNG" and "image/svg+xml" not in data
    monkeypatch.setenv(display.CHART_IMAGES_ENV, "svg")
    data, meta = chart._repr_mimebundle_()
    assert data["image/svg+xml"].startswith("<svg") and "image/png" not in data
    assert meta["image/svg+xml"]["width"] > 0


def test_without_liberation_sans_the_images_are_png(monkeypatch):
    monkeypatch.delenv(display.CHART_IMAGES_ENV, raising=False)
    monkeypatch.setattr(fonts, "liberation_sans_files", lambda: ())
    assert display.chart_image_mime() == "image/png"
    mime, image, w, h = display.chart_image_output(_spec(["alpha"]))
    assert mime == "image/png" and base64.b64decode(image)[:4] == b"\x89PNG" and w > 0 and h > 0


@needs_liberation
def test_the_font_folder_holds_liberation_sans_only(tmp_path):
    folder = fonts.chart_font_dir(tmp_path)
    assert folder is not None
    names = sorted(p.name for p in folder.iterdir())
    assert names and all(n.startswith("LiberationSans-") and n.endswith(".ttf") for n in names)
    assert fonts.chart_font_dir(tmp_path) == folder          # a second call finds the links in place


def _chart_pdf(tmp_path, names: list[str]):
    from evalreport.report.render import execute, render

    code = ("import altair as alt, pandas as pd\nfrom evalreport.report.display import Chart\n"
            "from evalreport.charts.theme import use_theme\nuse_theme()\n"
            f"frame = pd.DataFrame({{'system': {names!r}, 'score': [0.8, 0.6][:{len(names)}]}})\n"
            "Chart(alt.Chart(frame).mark_bar().encode(x=alt.X('score:Q', title='Macro F1 score'), y='system:N'),"
            " name='bars', caption='Scores.')")
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("# Report\n\nText."), nbformat.v4.new_code_cell(code)]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    tmp_path.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, str(tmp_path / "nb.ipynb"))
    executed = execute(tmp_path / "nb.ipynb", tmp_path / "executed" / "nb.ipynb", {}, progress=False)
    return render([executed], tmp_path / "out", title="t", engine="builtin", formats=("pdf",))["pdf"]


def _fonts_and_text(pdf) -> tuple[str, str]:
    return (subprocess.run(["pdffonts", str(pdf)], capture_output=True, text=True, check=True).stdout,
            subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True, text=True, check=True).stdout)


@needs_liberation
@needs_poppler
def test_a_latin_chart_is_set_in_liberation_sans_and_no_other_machine_font(tmp_path, monkeypatch):
    monkeypatch.delenv(display.CHART_IMAGES_ENV, raising=False)
    used, text = _fonts_and_text(_chart_pdf(tmp_path, ["alpha", "beta"]))
    assert "LiberationSans" in used and "Libertinus" in used
    embedded = {line.split()[0].split("+", 1)[-1] for line in used.splitlines()[2:] if line.strip()}
    assert all(n.startswith(("LiberationSans", "Libertinus", "NewCM", "DejaVuSansMono")) for n in embedded), embedded
    assert "Macro F1 score" in text and "alpha" in text          # the chart's text is text, not pixels


@needs_liberation
@needs_poppler
def test_a_cjk_system_name_in_a_chart_is_printed(tmp_path, monkeypatch):
    """The chart's CJK name reaches typst's font check (the SVG's text counts): a machine font that
    has the characters sets them; without one, the PDF's warning names them."""
    monkeypatch.delenv(display.CHART_IMAGES_ENV, raising=False)
    if fonts.uncovered_by_system_fonts(["系"]) != []:
        pytest.skip("no installed font has CJK characters")
    used, text = _fonts_and_text(_chart_pdf(tmp_path, ["系统甲", "beta"]))
    assert "系统甲" in text and "LiberationSans" in used


@needs_liberation
def test_the_pdf_with_svg_charts_is_the_same_twice(tmp_path, monkeypatch):
    """The chart fonts' folder lies in each render's own scratch folder: its path leaves no trace."""
    import re

    monkeypatch.delenv(display.CHART_IMAGES_ENV, raising=False)
    first = _chart_pdf(tmp_path / "a", ["alpha", "beta"]).read_bytes()
    second = _chart_pdf(tmp_path / "b", ["alpha", "beta"]).read_bytes()
    assert b"chart-fonts" not in first

    def stable(pdf: bytes) -> bytes:   # typst stamps the creation time and a document id
        return re.sub(rb"/(CreationDate|ModDate) ?\([^)]*\)|/ID ?\[[^\]]*\]"
                      rb"|<xmp:\w+Date>[^<]*</xmp:\w+Date>|<xmpMM:\w+ID>[^<]*</xmpMM:\w+ID>", b"", pdf)

    assert stable(first) == stable(second)
