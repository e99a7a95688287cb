"""Typst source for a :class:`~evalreport.report.display.Table` (its PDF representation).

Pipe tables give pandoc/Typst no idea how wide a column must be, so headers collided and long
words ran into the next column. Here the table is laid out before Typst sees it:

* every text from the data is a Typst **string literal** (``"..."``), never markup, so ``#``,
  ``$``, ``*``, ``_``, ``@``, ``<``, ``[``, backticks, ``//`` ... print as written;
* column widths are estimated with the metrics of the report font (Libertinus Serif) and
  chosen like a browser's automatic table layout: a column never gets less than its longest
  unbreakable word (so nothing overlaps), the rest of the line is shared by how much each
  column would like to have; a table that fits as it is keeps Typst's ``auto`` widths;
* header cells wrap at word boundaries and repeat on every page a long table runs over;
* a short table stays on one page; a long one keeps its first rows with its caption and header and
  its last rows together (an unbreakable cell spanning them, in a zero-width last column), so no
  page holds a table's first or last row or two alone;
* a table that does not fit is set smaller, then with its column headers turned upright
  (rotated 90 degrees), then on a landscape page.

The caption is a figure caption (``Table N: ...``) that the template makes sticky, so it never
stays alone at the bottom of a page.
"""
from __future__ import annotations

import functools
import math
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field

from evalreport import escape
from evalreport.charts.names import shorten_names

__all__ = ["text_width", "Layout", "choose_layout", "table_source", "MIME_TYPST", "upright_texts", "UPRIGHT_UNITS",
           "row_lines", "kept_rows"]

#: Mime type of the Typst representation in a display bundle. pandoc's ipynb reader turns a
#: ``+json`` output into a ``json`` code block; ``templates/typst/select-output.lua`` decodes it
#: and keeps ``{"typst": source}`` as a raw Typst block. Front ends that do not know the type
#: (nbconvert HTML, JupyterLab, Quarto) ignore it.
MIME_TYPST = "application/vnd.evalreport.typst+json"

#: Text width of the report's pages in pt (A4, 2 x 2.0 cm side margins in templates/typst/report.typ).
PORTRAIT_PT = 595.28 - 2 * 56.69
LANDSCAPE_PT = 841.89 - 2 * 56.69

# Advance widths (em) of Libertinus Serif, ASCII 32..126, regular and bold, measured with Typst.
_ASCII = "".join(chr(c) for c in range(32, 127))
_REG = (
    "250 288 336 465 465 637 705 190 298 298 369 550 220 338 220 323 465 465 465 465 465 465 465 465 "
    "465 465 236 236 550 550 550 435 895 695 588 646 701 557 485 685 730 297 322 637 528 839 699 702 "
    "541 702 587 485 597 661 652 951 660 575 604 356 287 356 518 486 392 457 493 428 506 447 310 500 "
    "538 271 272 512 264 790 542 504 519 503 372 390 316 531 497 747 490 515 424 277 205 277 449"
)
_BOLD = (
    "250 266 376 514 514 637 729 215 315 315 433 537 244 358 244 316 514 514 514 514 514 514 514 514 "
    "514 514 256 256 512 551 512 430 988 740 654 706 734 609 545 732 817 367 373 736 577 899 740 730 "
    "614 730 716 504 652 732 700 1028 718 624 624 397 307 397 518 486 392 506 542 456 561 489 391 521 "
    "619 322 312 613 325 905 616 551 581 573 428 427 358 598 529 777 561 558 452 307 220 307 473"
)
_WIDTHS = {
    False: {ch: int(w) / 1000 for ch, w in zip(_ASCII, _REG.split())},
    True: {ch: int(w) / 1000 for ch, w in zip(_ASCII, _BOLD.split())},
}
for _bold in (False, True):
    _WIDTHS[_bold].update({"\u2014": 0.742, "\u2713": 0.833, "\u2717": 0.603, "\u2212": 0.55, "\u2013": 0.548,
                           "\u2191": 0.6, "\u2193": 0.6, "\u00b7": 0.25, "\u2026": 0.75})


def text_width(text: str, *, bold: bool = False) -> float:
    """Estimated width of ``text`` in em (Libertinus Serif; unknown glyphs 0.6 em, wide ones 1 em)."""
    # short texts memoised: a table's cells repeat ("0.500", names), and every layout attempt measures
    # them again; a long text (a name from the data can be megabytes) is not kept
    return _short_width(text, bold) if len(text) <= 80 else _width(text, bold)


@functools.lru_cache(maxsize=1 << 15)
def _short_width(text: str, bold: bool) -> float:
    return _width(text, bold)


def _width(text: str, bold: bool) -> float:
    table = _WIDTHS[bold]
    total = 0.0
    for ch in text:
        w = table.get(ch)
        if w is None:
            w = 1.0 if unicodedata.east_asian_width(ch) in "WF" else 0.6
        total += w
    return total * (1.04 if bold else 1.0)


def _longest_word(text: str, *, bold: bool = False) -> float:
    return max((text_width(w, bold=bold) for w in text.split()), default=0.0)


@dataclass
class Layout:
    """How a table is set: font size (pt), cell padding, orientation and column widths."""

    size: float
    landscape: bool = False
    rotated: list[bool] = field(default_factory=list)   # per column: header turned upright
    widths: list[float] | None = None                   # pt per column; None: Typst's auto widths
    fits: bool = True                                   # False: even the last resort is too wide

    @property
    def inset_x(self) -> float:
        return round(0.45 * self.size, 2)

    @property
    def inset_y(self) -> float:
        return round(0.28 * self.size, 2)


# Tried in order; the first that fits wins: (text size, upright headers, landscape, strict).
# Strict: no short cell text (a number, an interval, a name) wraps; otherwise any cell may wrap
# between words.
_ATTEMPTS: tuple[tuple[float, bool, bool, bool], ...] = (
    (8.5, False, False, True), (8.0, False, False, True), (7.5, False, False, True), (7.0, False, False, True),
    (8.0, True, False, True), (7.5, True, False, True), (7.0, True, False, True), (6.5, True, False, True),
    (8.0, False, False, False), (7.5, False, False, False), (7.5, True, False, False),
    (8.0, False, True, True), (7.5, False, True, True), (7.0, False, True, True),
    (7.0, True, True, True), (6.5, True, True, True), (7.0, True, True, False), (6.0, True, True, False),
)

#: A table with at most this many rows, and at most :data:`KEEP_WHOLE_LINES` lines as set, is kept
#: on one page; a longer one runs over pages with its header repeated.
KEEP_WHOLE_ROWS = 12
KEEP_WHOLE_LINES = 30
#: A table that runs over pages keeps its first rows (up to this many, and this many lines) with its
#: header and caption, so it never starts with a row or two at the foot of a page ...
HEAD_ROWS, HEAD_LINES = 4, 24
#: ... and its last rows together, so no page holds only a tail of one or two rows.
TAIL_ROWS, TAIL_LINES = 3, 18
#: A row of at most this many lines is never cut by a page break (a taller one may be).
ROW_LINES = 20

#: A cell text longer than this (em) is prose and may wrap; shorter texts keep their line
#: (in a strict layout).
PROSE_EM = 20.0


def choose_layout(header: Sequence[str], rows: Sequence[Sequence[str]], *,
                  portrait_pt: float = PORTRAIT_PT, landscape_pt: float = LANDSCAPE_PT,
                  attempts: Sequence[tuple[float, bool, bool, bool]] = _ATTEMPTS) -> Layout:
    """Pick the largest, least disruptive setting in which no column is narrower than its
    longest word (header words included, unless the header is turned upright) and no short
    cell text (a number, an interval, a name) wraps. ``attempts`` are (text size, upright
    headers, landscape, strict) tried in order; the last is used when none fits."""
    n = len(header)
    head_nat = [text_width(h, bold=True) for h in header]
    head_min = [_longest_word(h, bold=True) for h in header]
    body_nat = [0.0] * n
    body_min = [0.0] * n
    body_keep = [0.0] * n        # the widest short text: kept on one line in a strict layout
    for row in rows:
        for j, text in enumerate(row[:n]):
            w = text_width(text)
            body_nat[j] = max(body_nat[j], w)
            body_min[j] = max(body_min[j], _longest_word(text))
            if w <= PROSE_EM:
                body_keep[j] = max(body_keep[j], w)
    body_keep = [max(k, m) for k, m in zip(body_keep, body_min)]
    # A header may go upright where it, not the body, sets the column width (never the first column).
    can_rotate = [j > 0 and head_min[j] > body_nat[j] + 0.3 for j in range(n)]
    if any(can_rotate):   # then every narrow column alike (no upright header beside a level one)
        can_rotate = [r or (j > 0 and body_nat[j] <= 5.0) for j, r in enumerate(can_rotate)]
    attempt = None
    for size, rotate, landscape, strict in attempts:
        if rotate and not any(can_rotate):
            continue
        attempt = _try(size, rotate, landscape, strict, can_rotate, head_nat, head_min, body_nat, body_min,
                       body_keep, landscape_pt if landscape else portrait_pt)
        if attempt.fits:
            return attempt
    assert attempt is not None
    return attempt


def _try(size, rotate, landscape, strict, can_rotate, head_nat, head_min, body_nat, body_min, body_keep,
         width_pt) -> Layout:
    layout = Layout(size=size, landscape=landscape, rotated=[rotate and r for r in can_rotate])
    pad = 2 * layout.inset_x + 0.5
    line = 1.25   # an upright header is one line high, i.e. this wide (em)
    levels: list[list[float]] = [[], [], [], [], []]
    for j in range(len(head_nat)):
        if layout.rotated[j]:
            h_need = h_two = h_want = line
        else:
            h_need, h_want = head_min[j], head_nat[j]
            h_two = max(h_need, 0.55 * h_want)
        levels[0].append(max(body_min[j], h_need) * size + pad)    # nothing overlaps
        levels[1].append(max(body_keep[j], h_need) * size + pad)   # ... and short texts keep their line
        levels[2].append(max(body_keep[j], h_two) * size + pad)    # ... and headers take two lines at most
        levels[3].append(max(body_nat[j], h_two) * size + pad)     # ... and no cell wraps
        levels[4].append(max(body_nat[j], h_want) * size + pad)    # nothing wraps at all
    if sum(levels[4]) <= width_pt:
        return layout                                   # Typst's auto widths
    floor = 1 if strict else 0
    if sum(levels[floor]) > width_pt:
        layout.fits = False
        layout.widths = levels[floor]
        return layout
    # CSS-like automatic table layout: every column gets the highest level that fits for all,
    # the rest of the line is shared in proportion to how much the next level asks for.
    k = max(i for i in range(floor, 4) if sum(levels[i]) <= width_pt)
    low, high = levels[k], levels[k + 1]
    spare = width_pt - sum(low)
    extra = [h - lo for h, lo in zip(high, low)]
    total = sum(extra) or 1.0
    layout.widths = [lo + spare * e / total for lo, e in zip(low, extra)]
    return layout


#: An upright column header longer than this (narrow-character units) is shortened around an ellipsis,
#: distinct from the table's other upright headers: a 65-character system name turned upright takes
#: half a page, and pushes the table's rows onto the next one.
UPRIGHT_UNITS = 40


def upright_texts(header: Sequence[str], rotated: Sequence[bool]) -> list[str]:
    """The header texts as shown: the upright ones (``rotated``) shortened to :data:`UPRIGHT_UNITS`
    (:func:`evalreport.charts.names.shorten_names`), the others whole.

    Parameters
    ----------
    header : sequence of str
        The column headers.
    rotated : sequence of bool
        Per column: the header is turned upright (empty: none is).

    Returns
    -------
    list of str
        One text per column.
    """
    up = [str(h) for h, r in zip(header, rotated) if r]
    shown = shorten_names(up, UPRIGHT_UNITS) if up else {}
    return [shown.get(str(h), str(h)) if r else str(h) for h, r in zip(header, list(rotated) + [False] * len(header))]


def row_lines(rows: Sequence[Sequence[str]], layout: Layout) -> list[int]:
    """Estimated number of lines of each row as ``layout`` sets it: a cell wider than its column
    wraps (with a tenth lost at word breaks); with Typst's auto widths nothing wraps.

    Parameters
    ----------
    rows : sequence of sequences of str
        The cell texts, row by row (index column first when there is one).
    layout : Layout
        The table's setting (:func:`choose_layout`).

    Returns
    -------
    list of int
        Lines per row, at least 1.
    """
    if layout.widths is None:
        return [max([1] + [text.count("\n") + 1 for text in row]) for row in rows]
    room = LANDSCAPE_PT if layout.landscape else PORTRAIT_PT
    total = sum(layout.widths) or 1.0
    inner = [max(w / total * room - 2 * layout.inset_x, layout.size) for w in layout.widths]
    return [max([1] + [math.ceil(1.1 * text_width(text) * layout.size / w) for text, w in zip(row, inner)])
            for row in rows]


def kept_rows(lines: Sequence[int], most_rows: int, most_lines: int) -> int:
    """How many of the leading rows to keep on one page.

    Parameters
    ----------
    lines : sequence of int
        Lines per row (:func:`row_lines`), in the order the rows are taken.
    most_rows : int
        At most this many rows ...
    most_lines : int
        ... and fewer where they would be taller than this many lines together.

    Returns
    -------
    int
        The number of rows, at least one (zero for a table without rows).
    """
    k = min(most_rows, len(lines))
    while k > 1 and sum(lines[:k]) > most_lines:
        k -= 1
    return k


def _glue_cells(lines: Sequence[int], head: int, tail: int) -> list[str]:
    """Per row, the cell of the zero-width last column that keeps rows together in Typst."""
    n_rows = len(lines)
    cells = ["table.cell(breakable: false, inset: 0pt)[]" if 1 < n <= ROW_LINES else "[]" for n in lines]
    for start, span in ((0, head), (n_rows - tail, tail)):
        if span > 1:
            cells[start] = f"table.cell(rowspan: {span}, breakable: false, inset: 0pt)[]"
            for k in range(start + 1, start + span):
                cells[k] = ""
    return cells


def _cell(text: str, letter: str | None) -> str:
    if letter is None:
        return escape.typst(text)
    return f"[#{escape.typst(text)}#super[{letter}]]"


def table_source(
    header: Sequence[str],
    rows: Sequence[Sequence[tuple[str, str | None]]],
    numeric: Sequence[bool],
    *,
    caption: str | None = None,
    legend: Sequence[tuple[str, str]] = (),
    layout: Layout | None = None,
) -> str:
    """Typst code of one table: ``rows`` are lists of (text, note letter or None) per column,
    ``legend`` the (letter, reason) pairs listed under the table."""
    if not header:          # a frame without columns: an empty one-column table
        header, numeric, rows = [""], [False], [[("", None)] for _ in rows]
    texts = [[t for t, _ in r] for r in rows]
    if layout is None:
        layout = choose_layout(header, texts)
    n = len(header)
    if layout.widths is None:
        widths = ["auto"] * n
    else:
        total = sum(layout.widths)
        widths = [f"{w / total * 100:.2f}fr" for w in layout.widths]
    lines = row_lines(texts, layout)
    whole = len(rows) <= KEEP_WHOLE_ROWS and sum(lines) <= KEEP_WHOLE_LINES
    head = 0 if whole else kept_rows(lines, HEAD_ROWS, HEAD_LINES)
    tail = 0 if whole else min(kept_rows(lines[::-1], TAIL_ROWS, TAIL_LINES), len(rows) - head)
    keep = not whole and (max(head, tail) > 1 or any(n > 1 for n in lines))
    glue = _glue_cells(lines, head, tail) if keep else None
    if glue is not None:     # a zero-width column for the cells that keep rows together
        widths.append("0pt")
    cols = "(" + ", ".join(widths) + ",)"
    aligns = ", ".join(["right" if num else "left" for num in numeric] + ["left"] * (glue is not None))
    heads = []
    shown = upright_texts(header, layout.rotated or [])
    for j, text in enumerate(header):
        if layout.rotated and layout.rotated[j]:
            text = shown[j]
            heads.append(f"table.cell(align: bottom + center)[#rotate(-90deg, reflow: true)[#{escape.typst(text)}]]")
        else:
            side = "right" if numeric[j] else "left"
            heads.append(f"table.cell(align: bottom + {side})[#{escape.typst(text)}]")
    out = [
        "#[",
        f"#show table: set text(size: {layout.size}pt)",
        "#set smartquote(enabled: false)",
    ]
    if whole:     # a short table is not split (no 2-row remnant on a page)
        out.append("#show figure: set block(breakable: false)")
    out += [
        "#figure(kind: table,",
    ]
    if caption:
        out.append(f"  caption: figure.caption(position: top, {escape.typst(caption)}),")
    if glue is not None:
        heads.append("[]")
    out += [
        "  [#table(",
        f"    columns: {cols},",
        f"    inset: (x: {layout.inset_x}pt, y: {layout.inset_y}pt),",
        f"    align: ({aligns},),",
        "    table.header(repeat: true, " + ", ".join(heads) + "),",
    ]
    for i, row in enumerate(rows):
        cells = [_cell(text, letter) for text, letter in row]
        if glue is not None and glue[i]:
            cells.append(glue[i])
        out.append("    " + ", ".join(cells) + ",")
    out.append("  )")
    if legend:
        items = " #h(1em) ".join(
            f"#super[{letter}]\u00a0\u2014\u00a0#{escape.typst(reason)}" for letter, reason in legend
        )
        out.append(f"  #block(width: 100%, above: 0.5em)[#set align(left); #set text(size: "
                     f"{max(layout.size - 0.5, 6)}pt, fill: luma(70)); {items}]")
    out.append("  ])")
    out.append("]")
    src = "\n".join(out)
    if layout.landscape:
        src = "#page(flipped: true)[\n" + src + "\n]"
    return src + "\n"
