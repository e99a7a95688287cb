"""What a Quarto render of a report must show for its tables, checked on Quarto's own output (where a
``quarto`` executable exists) and on pandoc's output for the Markdown Quarto writes (everywhere).

* Typst/PDF: every table is evalreport's (``typst_table.table_source``: column widths measured,
  ``fr``), none is pandoc's pipe table (columns in ``%`` from the dashes of the separator line, the
  layout that glued ``0.8830.710`` together), and no Typst source is left as text.
* HTML: every evalreport table is its own HTML (not re-parsed by Quarto), inside its scrolling box
  (``div.er-table-wrap``) and inside a cell that spans the body and the right margin
  (``.column-page-right``), so a wide table uses the empty margin and scrolls within its box.
"""
from __future__ import annotations

import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

#: pandoc's Typst writer sets a pipe table's columns in percent of the line.
PIPE_COLUMNS_RE = re.compile(r"columns:\s*\(\s*\d+(\.\d+)?%")
#: two numbers of neighbouring cells run together in the PDF's text (``0.8830.710``).
GLUED_RE = re.compile(r"\d\.\d{3}-?\d\.\d{3}")
_VOID = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
                   "track", "wbr"})


def typst_table_problems(typ: str, n_tables: int) -> list[str]:
    """What is wrong with the tables of a Typst document that should hold ``n_tables`` of evalreport's."""
    problems = []
    ours = typ.count("#figure(kind: table,")
    if ours != n_tables:
        problems.append(f"{ours} of evalreport's Typst tables, expected {n_tables}")
    pipe = [m.group(0) for m in PIPE_COLUMNS_RE.finditer(typ)]
    if pipe:
        problems.append(f"{len(pipe)} pipe tables (columns in percent: {pipe[0]}...)")
    if '"evalreport": "typst-table"' in typ:
        problems.append("the Typst source of a table is printed as text")
    return problems


def glued_numbers(pdf: Path) -> list[str] | None:
    """Numbers of neighbouring table cells run together in the PDF's text; None without pdftotext."""
    exe = shutil.which("pdftotext")
    if exe is None:
        return None
    text = subprocess.run([exe, str(pdf), "-"], capture_output=True, text=True, check=True).stdout
    return GLUED_RE.findall(text)


class _Tables(HTMLParser):
    """Each ``<table>``: its classes and the classes of its ancestors (innermost first)."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack: list[tuple[str, list[str]]] = []
        self.tables: list[tuple[list[str], list[tuple[str, list[str]]], dict]] = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        classes = (attrs.get("class") or "").split()
        if tag == "table":
            self.tables.append((classes, list(reversed(self.stack)), attrs))
        if tag not in _VOID:
            self.stack.append((tag, classes))

    def handle_startendtag(self, tag, attrs):
        if tag == "table":
            self.handle_starttag(tag, attrs)
            self.stack.pop()

    def handle_endtag(self, tag):
        for i in range(len(self.stack) - 1, -1, -1):      # tolerate unclosed inner elements
            if self.stack[i][0] == tag:
                del self.stack[i:]
                break


def html_table_problems(html: str, n_tables: int) -> list[str]:
    """What is wrong with the evalreport tables of an HTML page that should hold ``n_tables``."""
    parser = _Tables()
    parser.feed(html)
    ours = [t for t in parser.tables if "er-table" in t[0]]
    problems = [] if len(ours) == n_tables else [f"{len(ours)} evalreport tables, expected {n_tables}"]
    for k, (_, ancestors, attrs) in enumerate(ours, 1):
        if any(key.startswith("data-quarto") for key in attrs):
            problems.append(f"table {k} was re-parsed by Quarto ({sorted(attrs)})")
        if not any(tag == "div" and "er-table-wrap" in classes for tag, classes in ancestors):
            problems.append(f"table {k} is not in its scrolling box (div.er-table-wrap)")
        if not any("column-page-right" in classes for _, classes in ancestors):
            problems.append(f"table {k} is in the body column only (no .column-page-right around it)")
    return problems
