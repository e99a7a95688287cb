"""The PDF's fonts: typst's bundled fonts alone unless the text has characters they lack (an organiser's
review: a run named with 日本語 printed as empty boxes in the PDF, with no warning)."""
from __future__ import annotations

import logging
import shutil
import subprocess

import pytest

from evalreport.report import fonts

nbformat = pytest.importorskip("nbformat")


def test_latin_greek_cyrillic_and_the_reports_marks_need_no_system_font():
    assert fonts.beyond_bundled_fonts("Ωmega Évaluation Ünï ß ñ ž Ж ½ € → ≤ ✓ ✗ – “x” 0.5 <b>&amp;") == []


def test_other_scripts_are_named_once_each_in_code_point_order():
    assert fonts.beyond_bundled_fonts("run 日本語 日本 — 한국어 العربية\t\n") == sorted(set("日本語한국어العربية"))


def _executed(tmp_path, heading: str):
    from evalreport.report.render import execute

    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell(f"# {heading}\n\nText.")]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    tmp_path.mkdir(parents=True, exist_ok=True)
    src = tmp_path / "nb.ipynb"
    nbformat.write(nb, str(src))
    return execute(src, tmp_path / "executed" / "nb.ipynb", {}, progress=False)


def _pdf_fonts(pdf) -> str:
    return subprocess.run(["pdffonts", str(pdf)], capture_output=True, text=True, check=True).stdout


def _not_bundled(pdf) -> set[str]:
    """The PDF's embedded fonts that are not among typst's bundled families."""
    import typst

    bundled = {f.replace(" ", "") for f in typst.Fonts(include_system_fonts=False).families()}
    bundled |= {"NewCM"}     # New Computer Modern's PostScript names: NewCM10-Regular, NewCMMath-Regular
    names = {line.split()[0].split("+", 1)[-1] for line in _pdf_fonts(pdf).splitlines()[2:] if line.strip()}
    return {n for n in names if not any(n.startswith(b) for b in bundled)}


@pytest.mark.skipif(shutil.which("pdffonts") is None, reason="needs poppler's pdffonts")
def test_a_latin_report_uses_only_bundled_fonts_and_a_cjk_name_a_system_font_or_a_warning(tmp_path, caplog):
    from evalreport.report.render import render

    latin = render([_executed(tmp_path / "a", "Système Ωmega ✓")], tmp_path / "a" / "out", title="t",
                   engine="builtin", formats=("pdf",))["pdf"]
    assert "Libertinus" in _pdf_fonts(latin) and _not_bundled(latin) == set()
    with caplog.at_level(logging.WARNING, logger="evalreport"):
        cjk = render([_executed(tmp_path / "b", "Run 日本語")], tmp_path / "b" / "out", title="t",
                     engine="builtin", formats=("pdf",))["pdf"]
    missing = fonts.uncovered_by_system_fonts(["日"])
    if missing == []:        # an installed font has the characters: it is embedded, and nothing is said
        assert _not_bundled(cjk)
        assert not [r for r in caplog.records if "empty boxes" in r.getMessage()]
    elif missing:
        assert any("empty boxes for '日'" in r.getMessage() for r in caplog.records)


def test_an_uncovered_character_is_a_warning(tmp_path, caplog, monkeypatch):
    import importlib

    render_mod = importlib.import_module("evalreport.report.render")
    monkeypatch.setattr(render_mod, "uncovered_by_system_fonts", lambda chars: [c for c in chars if c == "語"])
    with caplog.at_level(logging.WARNING, logger="evalreport"):
        render_mod.render([_executed(tmp_path, "Run 日本語")], tmp_path / "out", title="t", engine="builtin",
                          formats=("pdf",))
    said = [r.getMessage() for r in caplog.records if "empty boxes" in r.getMessage()]
    assert said == ["the PDF shows empty boxes for '語': no installed font has it (install one that does, e.g. a "
                    "Noto font for the script; the HTML report shows them)"]
