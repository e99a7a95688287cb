"""A section that opens with a heading, an introducing note box (Note) and a figure stays together in the
PDF: the note is made sticky like an introducing paragraph, so a page never ends with the heading and its
note while the figure starts the next (seen on the Slices section of a five-system report)."""
from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from evalreport.report.display import Heading, Note

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_display import _pages, _pdf, _Picture, _text  # noqa: E402

INTRO = "The test set cut by domain into 3 slices: each system's value on the items of each slice alone."


def _section(tmp_path: Path, lines: int) -> Path:
    """``lines`` one-line paragraphs, then the heading, the note and a 500 px tall chart."""
    filler = "\n\n".join(f"Filler paragraph {k}." for k in range(lines))
    return _pdf(tmp_path, [Heading("Section title", level=2), Note(INTRO), _Picture(400, 500)],
                markdown_cells=(f"# Start\n\n{filler}",))


def test_an_introducing_note_is_sticky_in_the_typst_source(tmp_path):
    _section(tmp_path, 0)
    typ = (tmp_path / "report.typ").read_text(encoding="utf-8")
    # the whole note box inside one sticky (so unbreakable) block, right after the heading
    assert re.search(r"== Section title\s*(<[^>]*>\s*)?#block\(sticky: true\)\[\s*#block\(width: 100%[^\n]*"
                     r"breakable: true\)\[\s*The test set cut by domain", typ), typ[-2000:]


@pytest.mark.parametrize("lines", [16, 26, 36, 46])
def test_the_heading_never_ends_a_page_without_its_figure(tmp_path, lines):
    pdf = _section(tmp_path, lines)
    pages = [_text(pdf, page=p) for p in range(1, _pages(pdf) + 1)]
    with_heading = [t for t in pages if re.search(r"^\s*Section title\s*$", t, re.M)]
    assert len(with_heading) == 1
    page = with_heading[0]
    assert "The test set cut by domain" in page and "A picture." in page, page
