"""Display objects as the PDF shows them: Typst tables (layout, escaping, repeated headers),
sticky headings and captions, whole numbers, and a PDF poppler reads without complaint.

The PDF tests build a PDF the way the builtin engine does (pandoc reads a notebook through
templates/typst/select-output.lua, writes Typst with templates/typst/report.typ, typst compiles)
from hand-made outputs, so no kernel is started.
"""
from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

pd = pytest.importorskip("pandas")
nbformat = pytest.importorskip("nbformat")
pypandoc = pytest.importorskip("pypandoc")
typst = pytest.importorskip("typst")

from evalreport import escape
from evalreport.report.display import Heading, Note, Table
from evalreport.report.resources import templates_dir
from evalreport.report.typst_pdf import drop_false_suspects
from evalreport.report.typst_table import (
    LANDSCAPE_PT,
    MIME_TYPST,
    PORTRAIT_PT,
    choose_layout,
    text_width,
)

HOSTILE = [
    '#("TYPST"+"PWN")',
    '`#read("/etc/passwd")`{=typst}',
    "a_b*c* $x^2$ @ref <lbl> [link] // not a comment \\ back\\slash `tick`",
    '"quoted" #set text(red) = heading',
]


def _needs(tool: str):
    if not shutil.which(tool):
        pytest.skip(f"{tool} (poppler-utils) not installed")


def _pdf(tmp_path: Path, outputs: list, *, markdown_cells: tuple[str, ...] = ()) -> Path:
    """A PDF made like the builtin engine's from display objects (and Markdown cells before them)."""
    nb = nbformat.v4.new_notebook()
    cells = [nbformat.v4.new_markdown_cell(text) for text in markdown_cells]
    code = nbformat.v4.new_code_cell("pass")
    for obj in outputs:
        data = obj._repr_mimebundle_()
        data, meta = data if isinstance(data, tuple) else (data, {})
        code.outputs.append(nbformat.v4.new_output("display_data", data=data, metadata=meta))
    cells.append(code)
    nb.cells = cells
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    src = tmp_path / "nb.ipynb"
    nbformat.write(nb, str(src))
    tdir = templates_dir() / "typst"
    pandoc = pypandoc.get_pandoc_path()
    doc = subprocess.run([pandoc, str(src), "--from=ipynb", "--to=json", "--ipynb-output=all",
                          f"--lua-filter={tdir / 'select-output.lua'}", "--extract-media=media"],
                         capture_output=True, text=True, check=True, cwd=tmp_path).stdout
    subprocess.run([pandoc, "--from=json", "--to=typst", "--standalone", f"--template={tdir / 'report.typ'}",
                    "--metadata=title:Display test", "--output=report.typ"],
                   input=doc, capture_output=True, text=True, check=True, cwd=tmp_path)
    pdf = tmp_path / "report.pdf"
    typst.compile(str(tmp_path / "report.typ"), output=str(pdf), root=str(tmp_path), ignore_system_fonts=True)
    drop_false_suspects(pdf)
    return pdf


def _text(pdf: Path, *, page: int | None = None) -> str:
    _needs("pdftotext")
    pages = ["-f", str(page), "-l", str(page)] if page else []
    proc = subprocess.run(["pdftotext", "-layout", *pages, str(pdf), "-"], capture_output=True, text=True, check=True)
    assert proc.stderr.strip() == "", proc.stderr
    return proc.stdout


def _pages(pdf: Path) -> int:
    _needs("pdfinfo")
    proc = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True, check=True)
    assert proc.stderr.strip() == "", proc.stderr    # no "Suspects object is wrong type"
    return int(re.search(r"^Pages:\s+(\d+)", proc.stdout, re.M).group(1))


def _typst_of(table: Table) -> str:
    return table._repr_mimebundle_()[MIME_TYPST]["typst"]


# --------------------------------------------------------------------------------------------
# Escaping: text from the data prints as written
# --------------------------------------------------------------------------------------------
def test_typst_string_is_a_literal():
    assert escape.typst('a"b\\c') == '"a\\"b\\\\c"'
    assert escape.typst("x\ny\x07") == '"x\\ny\\u{7}"'


def test_hostile_labels_print_as_written(tmp_path):
    df = pd.DataFrame({"label": HOSTILE, HOSTILE[0]: [0.5, 0.25, None, 1.0]})
    und = pd.DataFrame({HOSTILE[0]: [False, False, True, False]}, index=df.index)
    why = pd.DataFrame({HOSTILE[0]: ["", "", "0/0 because #strong[x] $y$", ""]}, index=df.index)
    table = Table(df, caption="Caption " + HOSTILE[1], undefined=und, reasons=why, index=False)
    pdf = _pdf(tmp_path, [table, Heading(HOSTILE[0], level=2)])
    text = _text(pdf)
    lines = [" ".join(line.split()) for line in text.splitlines()]
    for label in HOSTILE:
        assert any(line.startswith(label) for line in lines), label
    assert f"Caption {HOSTILE[1]}" in " ".join(text.split())
    assert "0/0 because #strong[x] $y$" in text
    # the heading (and its contents entry): prose, so Typst may curl its quotes, but no code runs
    plain = text.replace("\u201c", '"').replace("\u201d", '"')
    assert plain.count(HOSTILE[0]) >= 4
    assert "TYPSTPWN" not in text and "root:" not in text


# --------------------------------------------------------------------------------------------
# Layout decisions
# --------------------------------------------------------------------------------------------
def test_metrics_match_typst():
    """The width estimates are the report font's (measured by Typst itself)."""
    samples = ["macro_recall", "constant: eight", "0.123", "P(best)", "team03_contrastive_augmented_run1_v1"]
    src = ("#set text(font: (\"Libertinus Serif\",), size: 100pt, number-type: \"lining\", "
           "number-width: \"tabular\")\n#context [#metadata(("
           + ", ".join(f"measure(text({escape.typst(s)})).width.pt() / 100" for s in samples) + ",)) <m>]\n")
    measured = json.loads(typst.query(src.encode(), "<m>", ignore_system_fonts=True))[0]["value"]
    for s, w in zip(samples, measured):
        assert text_width(s) == pytest.approx(w, rel=0.03), s


def test_small_table_keeps_natural_widths():
    layout = choose_layout(["system", "score"], [["a", "0.5"], ["b", "0.25"]])
    assert layout.widths is None and not layout.landscape and not any(layout.rotated)
    assert layout.size >= 8


def _assert_no_overlap(layout, header, rows):
    """Every column is at least as wide as its longest word; a table at natural widths fits."""
    assert layout.fits
    room = LANDSCAPE_PT if layout.landscape else PORTRAIT_PT
    upright = 1.25 * layout.size
    if layout.widths is None:           # Typst's auto widths: nothing wraps, so the whole texts count
        widths = [max([text_width(r[j]) * layout.size for r in rows]
                      + [upright if layout.rotated[j] else text_width(header[j], bold=True) * layout.size])
                  + 2 * layout.inset_x for j in range(len(header))]
        assert sum(widths) <= room
        return
    widths = layout.widths
    assert sum(widths) == pytest.approx(room, rel=1e-6)
    for j, w in enumerate(widths):
        longest = max([text_width(t) for r in rows for t in r[j].split()]
                      + [0 if layout.rotated[j] else max(text_width(t, bold=True) for t in header[j].split())])
        assert w >= max(longest * layout.size, upright if layout.rotated[j] else 0) + 2 * layout.inset_x, j


def test_wide_headers_wrap_at_words_without_collisions():
    """The chance-baseline shape: many columns headed 'constant: <class>'."""
    header = ["measure"] + [f"constant: {c}" for c in ("eight", "four", "nine", "one", "seven", "zero")] + [
        "majority", "uniform", "prevalence", "contingency"]
    rows = [[m] + ["0.123"] * 10 for m in ("macro_f1", "accuracy", "confusion_entropy")]
    layout = choose_layout(header, rows)
    assert not layout.landscape and not any(layout.rotated)
    _assert_no_overlap(layout, header, rows)


def test_short_cells_do_not_wrap_prose_does():
    """The 25-system leaderboard: long names and intervals stay on one line; a long header wraps."""
    header = ["rank", "system", "Macro F1 (mean of class F1, eq. 18)", "interval", "P(best)", "rank (calibrated)"]
    rows = [[str(i), f"team{i:02d}_prompted_finetuned_distilled_run2_v2.1", "0.826", "[0.808, 0.844]", "0.642",
             str(i)] for i in range(25)]
    layout = choose_layout(header, rows)
    assert layout.widths is not None and not layout.landscape
    for j in (1, 3):
        assert layout.widths[j] >= text_width(rows[0][j]) * layout.size + 2 * layout.inset_x
    prose = [["accuracy", "The share of items whose predicted class is the gold class; " * 4]]
    layout = choose_layout(["measure", "definition"], prose)
    assert layout.widths is not None and layout.widths[1] < text_width(prose[0][1]) * layout.size
    _assert_no_overlap(layout, ["measure", "definition"], prose)


def test_many_narrow_columns_turn_headers_upright():
    """The audit shape: 24 check-mark columns with one-word headers, then many systems."""
    header = ["measure"] + [f"property_{i:02d}_long" for i in range(24)]
    rows = [["macro_recall"] + ["✓"] * 24 for _ in range(5)]
    layout = choose_layout(header, rows)
    assert not layout.landscape and all(layout.rotated[1:]) and not layout.rotated[0]
    _assert_no_overlap(layout, header, rows)


def test_too_wide_for_portrait_goes_landscape():
    names = [f"team{i:02d}_contrastive_augmented_multilingual_run1_v1" for i in range(25)]
    rows = [["gm1_macro (↑)"] + ["0.123"] * 25 for _ in range(3)]
    layout = choose_layout(["measure"] + names, rows)
    assert layout.landscape and layout.fits
    _assert_no_overlap(layout, ["measure"] + names, rows)
    src = _typst_of(Table(pd.DataFrame([[0.123] * 25] * 3, columns=names, index=["a", "b", "c"])))
    assert src.startswith("#page(flipped: true)[") and "rotate(-90deg, reflow: true)" in src


def test_landscape_table_gets_a_landscape_page(tmp_path):
    names = [f"team{i:02d}_contrastive_augmented_multilingual_run1_v1" for i in range(25)]
    df = pd.DataFrame([[0.123] * 25] * 3, columns=names, index=["Macro F1 (↑)", "Accuracy (↑)", "MCC (↑)"])
    pdf = _pdf(tmp_path, [Table(df, caption="Every measure for every system.")],
               markdown_cells=("## Before\n\nText before the table.",))
    n = _pages(pdf)
    sizes = subprocess.run(["pdfinfo", "-f", "1", "-l", str(n), str(pdf)], capture_output=True, text=True).stdout
    landscape = [m for m in re.findall(r"size:\s+([\d.]+) x ([\d.]+)", sizes) if float(m[0]) > float(m[1])]
    assert len(landscape) == 1 and n <= 3                # portrait, landscape, portrait (the colophon)
    page = 1 + [float(a) > float(b) for a, b in re.findall(r"size:\s+([\d.]+) x ([\d.]+)", sizes)].index(True)
    text = _text(pdf, page=page)
    assert "Every measure for every system." in text and "team24_contrastive" in text
    # the heading and its sentence go with the table onto the landscape page (never orphaned)
    assert "Before" in text and "Text before the table." in text


def test_long_table_repeats_its_header(tmp_path):
    df = pd.DataFrame({"system": [f"sys{i:03d}" for i in range(150)], "value": [i / 7 for i in range(150)]})
    table = Table(df, caption="A long table", index=False)
    assert "table.header(repeat: true," in _typst_of(table)
    whole = "#show figure: set block(breakable: false)"
    assert whole not in _typst_of(table)
    assert whole in _typst_of(Table(df.head(10), index=False))     # short: never split
    pdf = _pdf(tmp_path, [table])
    n = _pages(pdf)
    assert 2 <= n <= 4
    for page in range(2, n + 1):
        assert re.search(r"^\s*system\s+value\s*$", _text(pdf, page=page), re.M), page


# --------------------------------------------------------------------------------------------
# Headings and captions stay with what follows
# --------------------------------------------------------------------------------------------
def test_captions_and_intro_paragraphs_are_sticky(tmp_path):
    template = (templates_dir() / "typst" / "report.typ").read_text(encoding="utf-8")
    assert "$tables()$" in template     # the table styles both engines use (templates/typst/tables.typ)
    tables = (templates_dir() / "typst" / "tables.typ").read_text(encoding="utf-8")
    assert "figure.caption.where(kind: table): it => block(sticky: true" in tables
    assert re.search(r"show heading: set block\([^)]*sticky: true", template)
    df = pd.DataFrame({"system": [f"s{i}" for i in range(60)], "v": [0.5] * 60})
    filler = "\n\n".join(["Filler text to push the section to the bottom of the page. " * 12] * 9)
    pdf = _pdf(tmp_path, [Table(df, caption="The table under the heading.", index=False)],
               markdown_cells=(f"# Start\n\n{filler}", "## Section title\n\nThe sentence that introduces the table."))
    typ = (tmp_path / "report.typ").read_text(encoding="utf-8")
    assert re.search(r"#block\(sticky: true\)\[\s*The sentence that introduces the table\.\s*\]", typ)
    # Wherever the page breaks, the heading, its sentence, the caption and the first rows share a page.
    for page in range(1, _pages(pdf) + 1):
        text = _text(pdf, page=page)
        if re.search(r"^\s*Section title\s*$", text, re.M):
            assert "introduces the table" in text and "The table under the heading" in text and " s0 " in f" {text} "


# --------------------------------------------------------------------------------------------
# Numbers, notes, headings
# --------------------------------------------------------------------------------------------
def test_whole_number_columns_print_without_decimals():
    df = pd.DataFrame({"rank": [1.0, 2.0, 3.0], "rank_tied": [1.5, 1.5, 3.0], "count": [10.0, float("nan"), 3.0],
                       "score": [1.0, 0.0, 1.0], "value": [0.5, 0.25, 2.0], "half": [0.5, 1.0, 2.0]})
    lines = Table(df, index=False)._markdown().splitlines()
    assert lines[2] == "| 1 | 1.5 | 10 | 1.000 | 0.500 | 0.500 |", lines[2]
    assert lines[3] == "| 2 | 1.5 |  | 0.000 | 0.250 | 1.000 |", lines[3]
    assert lines[4] == "| 3 | 3 | 3 | 1.000 | 2.000 | 2.000 |", lines[4]


def test_degenerate_frames_still_compile(tmp_path):
    tables = [Table(pd.DataFrame()), Table(pd.DataFrame({"a": []})), Table(pd.DataFrame(index=["x"]))]
    assert _pages(_pdf(tmp_path, tables)) == 1


def test_heading_text_is_not_markup():
    md = Heading('`#read("/etc/passwd")`{=typst} *x*', level=2)._repr_mimebundle_()["text/markdown"]
    assert md.startswith("## ") and "\\`" in md and "\\*x\\*" in md


def test_note_still_renders_markdown(tmp_path):
    pdf = _pdf(tmp_path, [Note("**Bold** finding with `code`.")])
    assert "Bold finding with code." in " ".join(_text(pdf).split())


def test_markdown_outputs_print_options_and_quotes_as_typed(tmp_path):
    """A Markdown output is read without pandoc's smart punctuation, as Markdown cells are: an option
    written in prose (--cluster-col) keeps both hyphens, not an en dash."""
    pdf = _pdf(tmp_path, [Note('Give --cluster-col for "documents".')])
    text = " ".join(_text(pdf).split())
    assert "--cluster-col" in text and "\u2013" not in text, text


# --------------------------------------------------------------------------------------------
# The PDF file itself
# --------------------------------------------------------------------------------------------
def test_poppler_reads_the_pdf_without_errors(tmp_path):
    _needs("pdfinfo")
    src = tmp_path / "t.typ"
    src.write_text("= Title\n\nText.\n", encoding="utf-8")
    raw = typst.compile(str(src), format="pdf", ignore_system_fonts=True)
    pdf = tmp_path / "t.pdf"
    pdf.write_bytes(drop_false_suspects(raw))
    assert len(pdf.read_bytes()) == len(raw)          # byte for byte: the xref offsets hold
    for cmd in (["pdfinfo", str(pdf)], ["pdftotext", str(pdf), "-"]):
        proc = subprocess.run(cmd, capture_output=True, text=True, check=True)
        assert proc.stderr.strip() == "", proc.stderr
    assert "Tagged:          yes" in subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True).stdout


# --------------------------------------------------------------------------------------------
# HTML: the caption does not scroll with a wide table; headers wrap or stand upright
# --------------------------------------------------------------------------------------------
def test_html_caption_outside_the_scrolling_box():
    html = Table(pd.DataFrame({"a b c": [1.5]}), caption="A <long> caption")._html()
    assert html.index("<figcaption>A &lt;long&gt; caption</figcaption>") < html.index('<div class="er-table-wrap">')
    assert "<caption>" not in html


def test_html_upright_headers_and_label_widths():
    names = [f"team{i:02d}_contrastive_augmented_run1" for i in range(25)]
    df = pd.DataFrame([[0.5] * 25] * 2, columns=names, index=["Macro F1 (mean of class F1) (↑)", "Accuracy (↑)"])
    html = Table(df)._html()
    assert html.count('class="num er-upright"><span>') == 25
    assert re.search(r'<th scope="col" class="er-index" style="min-width:\d+\.\d+em">', html)
    small = Table(pd.DataFrame({"system": ["a"], "score": [0.5]}), index=False)._html()
    assert "er-upright" not in small


def test_css_lets_headers_wrap_and_numbers_stay_whole():
    css = (templates_dir() / "html" / "report.css").read_text(encoding="utf-8")
    head = re.search(r"\.er-table thead th, table\.dataframe thead th \{([^}]*)\}", css).group(1)
    assert "white-space: normal" in head
    assert ".er-table td.num { white-space: nowrap; }" in css
    assert "writing-mode: vertical-rl" in css


class _Picture:
    """A chart-like output: a PNG with its size in CSS pixels (as Chart writes it)."""

    def __init__(self, width: int, height: int):
        self.width, self.height = width, height

    def _repr_mimebundle_(self, include=None, exclude=None):
        import base64
        import struct
        import zlib

        raw = b"\x00\xff\xff\xff"
        png = (b"\x89PNG\r\n\x1a\n" + self._chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0))
               + self._chunk(b"IDAT", zlib.compress(raw)) + self._chunk(b"IEND", b""))
        meta = {"image/png": {"width": self.width, "height": self.height, "caption": "A picture."}}
        return {"image/png": base64.b64encode(png).decode(), "text/plain": "<picture>"}, meta

    @staticmethod
    def _chunk(kind: bytes, data: bytes) -> bytes:
        import struct
        import zlib

        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


@pytest.mark.parametrize("height, width_in, sticky", [(500, 400 / 96, True), (800, 400 * 670 / 800 / 96, True),
                                                      (2000, 400 * 670 / 2000 / 96, True)])
def test_tall_charts_are_scaled_to_share_a_page_with_their_heading(tmp_path, height, width_in, sticky):
    _pdf(tmp_path, [_Picture(400, height)], markdown_cells=("## Chart section\n\nThe sentence before the chart.",))
    typ = (tmp_path / "report.typ").read_text(encoding="utf-8")
    got = float(re.search(r'image\("[^"]+", width: ([\d.]+)in\)', typ).group(1))
    assert got == pytest.approx(width_in, abs=0.02)
    assert bool(re.search(r"#block\(sticky: true\)\[\s*The sentence before", typ)) is sticky
    assert "er-height" not in typ
