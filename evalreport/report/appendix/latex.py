"""LaTeX rendering of the appendix: booktabs tables, ``appendix.tex`` and ``main-example.tex``.

Tables use ``\\toprule``/``\\midrule``/``\\bottomrule`` and no vertical rule; every column has a
fixed width (``p{...}``), so the table is exactly as wide as :meth:`TableSpec.total_width` says
and never needs ``\\resizebox``. Every text from the data (system and class names) and every
caption go through :func:`evalreport.escape.latex_literal`; long names get break points
(``\\allowbreak``) so they wrap inside their column instead of running over the page.

Under pdfLaTeX a character outside Latin-1 and Latin Extended-A (Greek, CJK, emoji, U+FFFD)
has no glyph in the default fonts: it is written ``\\evalreportchar{65E5}{...}``
(:func:`evalreport.escape.latex_portable`), which prints its code point, ``[U+65E5]``, under
pdfLaTeX instead of stopping the run, and the character itself under LuaLaTeX and XeLaTeX (with
a font that has it).
"""
from __future__ import annotations

import re

from evalreport.escape import latex_portable as latex_literal
from evalreport.report.appendix.tables import Cell, TableSpec, continued_text, table_parts

__all__ = ["table", "breakable", "caption", "CHAR_MACRO", "PACKAGES", "latex_literal"]

#: What the appendix needs in the paper's preamble.
PACKAGES = ("booktabs", "graphicx", "array")
#: A word longer than this gets break points, at most every ``_RUN`` characters.
_LONG, _RUN = 14, 10
#: Width of a wide character (bold, 8 pt) in points: how many characters fit a column.
_CHAR_PT = 6.0


def breakable(text: str, esc=latex_literal, mark: str = r"\allowbreak{}", width_in: float | None = None,
              hyphen: str = r"\-") -> str:
    """``text`` escaped by ``esc``; a word (no space) longer than fits a column ``width_in`` wide
    (default: 14 characters) gets break points so that it wraps in its column: ``mark`` (a plain break)
    after every ``_``, ``-``, ``.`` and ``/``, and ``hyphen`` (a discretionary hyphen: printed only where
    the line breaks) at a change of case (``Random|Forest``) or between letters and digits, and, in a
    run still longer than the column, between syllables by :func:`_syllable_points`. Never a break
    inside a word without a hyphen (nothing is added to what is printed on one line)."""
    run = _RUN if width_in is None else max(4, int(width_in * 72 / _CHAR_PT))
    longest = _LONG if width_in is None else max(run, 8)
    return " ".join("".join(_pieces(word, esc, mark, hyphen, run, longest)) for word in str(text).split(" "))


def _pieces(word: str, esc, mark: str, hyphen: str, size: int, longest: int):
    if len(word) <= longest:
        yield esc(word)
        return
    for part in re.findall(r"[^_\-./]+[_\-./]*|[_\-./]+", word):
        stem = part.rstrip("_-./")
        cuts = _points(stem, size)
        for a, b in zip([0, *cuts], [*cuts, len(stem)]):
            yield esc(stem[a:b])
            if b < len(stem):
                yield hyphen
        if len(part) > len(stem):
            yield esc(part[len(stem):])
            yield mark


def _points(stem: str, size: int) -> list[int]:
    """Where a hyphen may break ``stem`` (a run without ``_-./``): changes of case and letter/digit
    boundaries, then syllable points in what is still longer than ``size``; no piece under 3 characters."""
    cuts = [i for i in range(1, len(stem)) if (stem[i - 1].islower() and stem[i].isupper())
            or (stem[i - 1].isalpha() != stem[i].isalpha() and (stem[i - 1].isdigit() or stem[i].isdigit()))]
    out, start = [], 0
    for end in [*cuts, len(stem)]:
        out += [start + p for p in _syllable_points(stem[start:end], size)]
        if end < len(stem):
            out.append(end)
        start = end
    kept, last = [], 0
    for c in out:                       # no fragment of fewer than 3 characters
        if c - last >= 3 and len(stem) - c >= 3:
            kept.append(c)
            last = c
    return kept


_VOWELS = set("aeiouyAEIOUYäöüéèàáíóú")
#: Consonant pairs that begin an English syllable (the boundary goes before them: "Cali-brated").
_ONSETS = {"bl", "br", "ch", "cl", "cr", "dr", "fl", "fr", "gl", "gr", "ph", "pl", "pr", "sc", "sh", "sk", "sl",
           "sm", "sn", "sp", "st", "sw", "th", "tr", "tw", "wh", "wr"}


def _syllable_points(piece: str, size: int) -> list[int]:
    """Points that cut ``piece`` into parts of at most ``size`` characters at syllable boundaries:
    before the consonant(s) that begin the next syllable (V-CV, VC-CV, V-CCV for an onset such as
    "br"); a piece with no such boundary (no vowels, CJK) is cut every ``size`` characters."""
    if len(piece) <= size:
        return []
    low = piece.lower()
    bounds = []
    i = 0
    while i < len(low):
        if low[i] in _VOWELS:
            j = i + 1
            while j < len(low) and low[j] not in _VOWELS and low[j].isalpha():
                j += 1
            if j < len(low) and low[j] in _VOWELS and j > i + 1:      # a consonant cluster between vowels
                cluster = low[i + 1:j]
                cut = j - 2 if len(cluster) >= 2 and cluster[-2:] in _ONSETS else j - 1
                bounds.append(cut)
            i = j
        else:
            i += 1
    out, start = [], 0
    while len(piece) - start > size:
        fit = [b for b in bounds if start + 3 <= b <= start + size and len(piece) - b >= 3]
        cut = fit[-1] if fit else start + size
        if cut >= len(piece) - 1:
            break
        out.append(cut)
        start = cut
    return out


def _cell(c: Cell, width: float | None = None) -> str:
    if c.kind == "text":
        # after "\\" (a row's end) or "\midrule" a leading "*" or "[" would be read as their
        # star or optional argument (a class "*y*" printed "y*"): "{}" ends their look-ahead
        text = breakable(c.text, width_in=width)
        return "{}" + text if text.startswith(("*", "[")) else text
    text = c.text.replace("-", r"\ensuremath{-}") if c.text != "\u2014" else "---"
    if c.bold:
        text = rf"\textbf{{{text}}}"
    if c.sup:
        # many systems hold long letter lists ("h1,k1,m1-o1,..."): they may break after a comma (a
        # superscript is a box, so each piece is one)
        pieces = c.sup.split(",")
        text += r"\allowbreak{}".join(rf"\textsuperscript{{{latex_literal(part + ',' * (k < len(pieces) - 1))}}}"
                                      for k, part in enumerate(pieces))
    if c.interval:
        lo, hi = (t.replace("-", r"\ensuremath{-}") for t in c.interval)
        text += rf" {{\scriptsize [{lo},~{hi}]}}"   # the interval on one line
    if c.rank:
        text += rf" {{\scriptsize ({c.rank})}}"
    return text


def _colspec(spec: TableSpec) -> str:
    parts = []
    for col in spec.columns:
        just = r"\raggedright" if col.align == "l" else r"\raggedleft"
        parts.append(rf">{{{just}\arraybackslash}}p{{{col.width:.2f}in}}")
    return "".join(parts)


def table(spec: TableSpec) -> str:
    """One table (``table`` for a column, ``table*`` for the page) as LaTeX source; a table taller than
    a page is written as several floats (:func:`~.tables.table_parts`), each with the header, the
    continued ones with a caption line that names the table and its rows (LaTeX's ``longtable`` would
    break it, but not in a two-column paper)."""
    env = "table" if spec.width == "column" else "table*"
    head = " & ".join(rf"${c.math[0]}$" if c.math else rf"\textbf{{{breakable(c.title, width_in=c.width)}}}"
                      for c in spec.columns) + r" \\"
    label = spec.ref_label()
    out = [f"% {spec.name}: {spec.total_width():.2f} in wide (fixed column widths; booktabs, no vertical rules)"]
    parts = table_parts(spec)
    for first, rows in parts:
        body = "\n".join(" & ".join(_cell(c, col.width) for c, col in zip(row, spec.columns)) + r" \\"
                         for row in rows)
        if first == 0:
            title = rf"\caption{{{caption(spec.caption)}}}\label{{{label}}}"
        else:   # no second number: a line that names the table
            title = (rf"{{Table~\ref{{{label}}}{latex_literal(continued_text(spec, first, len(rows)))}}}"
                     r"\par\smallskip")
        out += [
            rf"\begin{{{env}}}[tbp]",
            r"\centering\footnotesize\setlength{\tabcolsep}{3pt}",
            title,
            rf"\begin{{tabular}}{{@{{\hspace{{3pt}}}}{_colspec(spec)}@{{\hspace{{3pt}}}}}}",
            r"\toprule",
            head,
            r"\midrule",
            body,
            r"\bottomrule",
            r"\end{tabular}",
            rf"\end{{{env}}}",
        ]
    return "\n".join(out) + "\n"


def caption(value) -> str:
    """A table's caption: plain text, or segments (:func:`.methods.render`) with math and names."""
    if isinstance(value, str):     # our no-break spaces ("eq. 5") as ties: the escape folds white space
        return "~".join(latex_literal(part) for part in value.split("\u00a0"))
    from evalreport.report.appendix.methods import render

    return render(value, "latex").strip()


#: Defines the macro of :func:`evalreport.escape.latex_portable` (in appendix.tex, before any text).
CHAR_MACRO = (r"\providecommand\evalreportchar[2]{\ifdefined\XeTeXversion#2\else\ifdefined\directlua#2\else"
              r"\textsf{\scriptsize[U+#1]}\allowbreak{}\fi\fi}")
