"""Typst rendering of the appendix tables: the same model as :mod:`.latex`, booktabs-style rules
(a heavier line above and below, a thin one under the header, no vertical lines), fixed column
widths. Every text from the data is a Typst string literal (:func:`evalreport.escape.typst`), so
a name such as ``#import "x.typ"`` or ``$x$`` prints as written and never runs; long names get
zero-width break points so that they wrap inside their column."""
from __future__ import annotations

from evalreport.escape import printable, typst as lit
from evalreport.report.appendix.tables import GAP_IN, MIN_PART_ROWS, Cell, TableSpec, continued_text, table_parts

__all__ = ["table", "text", "caption"]

_ZWSP = "\u200b"
#: A soft hyphen: Typst prints a hyphen there only where it breaks the line.
_SHY = "\u00ad"


def text(value) -> str:
    """``value`` as Typst content that prints exactly as written (a string literal in code)."""
    return lit(printable(value))


def caption(value) -> str:
    """A table's caption as Typst content: plain text, or segments (:func:`.methods.render`)."""
    if isinstance(value, str):
        return text(value)
    from evalreport.report.appendix.methods import render

    return "[" + render(value, "typst").strip() + "]"


def _breakable(value: str, width: float | None = None) -> str:
    from evalreport.report.appendix.latex import breakable

    return lit(breakable(printable(value), esc=lambda ch: ch, mark=_ZWSP, width_in=width, hyphen=_SHY))


def _cell(c: Cell, width: float | None = None) -> str:
    if c.kind == "text":
        return f"[#{_breakable(c.text, width)}]"
    parts = [lit(c.text.replace("-", "\u2212"))]
    if c.bold:
        parts = [f"strong({parts[0]})"]
    if c.sup:
        parts.append(f"super({lit(c.sup.replace(',', ',' + _ZWSP))})")   # long letter lists break after a comma
    if c.interval:
        lo, hi = (t.replace("-", "\u2212") for t in c.interval)
        interval = f" [{lo},\u00a0{hi}]"          # on one line
        parts.append(f"text(size: 0.8em, {lit(interval)})")
    if c.rank:
        parts.append(f"text(size: 0.8em, {lit(f' ({c.rank})')})")
    return "[#" + "#".join(parts) + "]" if len(parts) > 1 else f"[#{parts[0]}]"


def _glue(n_rows: int, keep: int = MIN_PART_ROWS) -> list[str]:
    """Per row, the cell of a zero-width last column that keeps rows of a table breaking in the text together:
    an unbreakable cell spanning the first ``keep`` rows and one spanning the last ``keep`` (Typst does not
    split the rows such a cell spans), so no column or page holds a lone first or last row; one spanning every
    row of a table of fewer than ``2 * keep`` rows. Empty strings where a spanning cell covers the row."""
    spans = [(0, n_rows)] if n_rows < 2 * keep else [(0, keep), (n_rows - keep, keep)]
    cells = ["[]"] * n_rows
    for start, span in spans:
        cells[start] = f"table.cell(rowspan: {span}, breakable: false, inset: 0pt)[]" if span > 1 else "[]"
        for k in range(start + 1, start + span):
            cells[k] = ""
    return cells


def table(spec: TableSpec) -> str:
    """One table as a Typst ``figure`` (placed across both columns for a page table). A page table
    taller than a page is written as several figures (:func:`~.tables.table_parts`: a float does not
    break), the continued ones unnumbered with a caption that names the table and its rows; a column
    table stays in the text, where it breaks across columns and pages."""
    # a Typst column's width includes the cell's inset (3 pt a side); LaTeX's p{} is the text alone
    widths = ", ".join(f"{c.width + 2 * GAP_IN:.3f}in" for c in spec.columns)
    aligns = ", ".join("left" if c.align == "l" else "right" for c in spec.columns)
    head = ", ".join(f"[${c.math[1]}$]" if c.math else f"[*#{_breakable(c.title, c.width)}*]" for c in spec.columns)
    # a table in the text breaks across columns and pages: a zero-width last column holds the cells that keep
    # its first rows and its last rows together (no lone row at a break)
    glue = _glue(len(spec.rows)) if spec.width != "page" and spec.rows else None
    if glue is not None:
        widths, aligns, head = widths + ", 0pt", aligns + ", left", head + ", []"
    # a page table floats across both columns, to the top of a page (see writer._appendix_typ); a column
    # table stays in the text, where it may break across columns (a float taller than the column would
    # run over the page)
    scope = ', placement: top, scope: "parent"' if spec.width == "page" else ""
    label = spec.ref_label()
    parts = table_parts(spec) if spec.width == "page" else [(0, spec.rows)]
    out = [f"// {spec.name}: {spec.total_width():.2f} in wide (fixed column widths; booktabs-style rules)"]
    for first, rows in parts:
        body = ",\n    ".join(", ".join([_cell(c, col.width) for c, col in zip(row, spec.columns)]
                                          + ([glue[first + i]] if glue is not None and glue[first + i] else []))
                                for i, row in enumerate(rows))
        if first == 0:
            title, tail = f"  caption: {caption(spec.caption)},", f") <{label}>"
        else:     # no second number: a caption that names the table (its number as text: a #ref link in a
            # float's caption stops Typst 0.15's tagged PDF export, "expected link ancestor")
            number = (f"#context {{ let f = query(<{label}>).first(); f.supplement + [ ] + "
                      "numbering(f.numbering, ..f.counter.at(f.location())) }")
            title = (f"  caption: [{number}#{lit(continued_text(spec, first, len(rows)))}], "
                     "numbering: none, outlined: false,")
            tail = ")"
        out += [
            "#figure(",
            "  text(size: 8pt, table(",
            f"    columns: ({widths},),",
            f"    align: ({aligns},),",
            "    stroke: none, inset: (x: 3pt, y: 3pt),",
            "    table.hline(stroke: 0.08em),",
            f"    table.header({head}),",
            "    table.hline(stroke: 0.05em),",
            f"    {body},",
            "    table.hline(stroke: 0.08em),",
            "  )),",
            title,
            f"  kind: table{scope},",
            tail,
        ]
    return "\n".join(out) + "\n"
