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

from evalreport.escape import latex_portable as latex_literal
from evalreport.report.appendix.tables import Cell, TableSpec

__all__ = ["table", "breakable", "CHAR_MACRO", "PACKAGES", "latex_literal"]

#: What the appendix needs in the paper's preamble.
PACKAGES = ("booktabs", "graphicx", "array")
#: A word longer than this gets break points, at most every ``_RUN`` characters.
_LONG, _RUN = 14, 10
#: Width of a wide character (bold, 8 pt) in points: how many characters fit a column.
_CHAR_PT = 6.0


def breakable(text: str, esc=latex_literal, mark: str = r"\allowbreak{}", width_in: float | None = None) -> str:
    """``text`` escaped by ``esc``; in a word (no space) longer than fits a column ``width_in``
    wide (default: 14 characters), ``mark`` after every ``_``, ``-``, ``.``, ``/`` and every run
    that fills the column, so that a long name wraps in its column (nothing is added to what is
    printed on one line)."""
    run = _RUN if width_in is None else max(4, int(width_in * 72 / _CHAR_PT))
    longest = _LONG if width_in is None else max(run, 8)
    return " ".join("".join(_pieces(word, esc, mark, run, longest)) for word in str(text).split(" "))


def _pieces(word: str, esc, mark: str, size: int, longest: int):
    if len(word) <= longest:
        yield esc(word)
        return
    run = 0
    for ch in word:
        yield esc(ch)
        run += 1
        if ch in "_-./" or run >= size:
            yield mark
            run = 0


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
        text += rf"\textsuperscript{{{latex_literal(c.sup)}}}"
    if c.interval:
        lo, hi = (t.replace("-", r"\ensuremath{-}") for t in c.interval)
        text += rf" {{\scriptsize [{lo}, {hi}]}}"
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
    """One table (``table`` for a column, ``table*`` for the page) as LaTeX source."""
    env = "table" if spec.width == "column" else "table*"
    head = " & ".join(rf"\textbf{{{breakable(c.title, width_in=c.width)}}}" for c in spec.columns) + r" \\"
    body = "\n".join(" & ".join(_cell(c, col.width) for c, col in zip(row, spec.columns)) + r" \\"
                     for row in spec.rows)
    label = "tab:evalreport-" + spec.name
    return "\n".join([
        f"% {spec.name}: {spec.total_width():.2f} in wide (fixed column widths; booktabs, no vertical rules)",
        rf"\begin{{{env}}}[tbp]",
        r"\centering\footnotesize\setlength{\tabcolsep}{3pt}",
        rf"\caption{{{latex_literal(spec.caption)}}}\label{{{label}}}",
        rf"\begin{{tabular}}{{@{{\hspace{{3pt}}}}{_colspec(spec)}@{{\hspace{{3pt}}}}}}",
        r"\toprule",
        head,
        r"\midrule",
        body,
        r"\bottomrule",
        r"\end{tabular}",
        rf"\end{{{env}}}",
        "",
    ])


#: Defines the macro of :func:`evalreport.escape.latex_portable` (in appendix.tex, before any text).
CHAR_MACRO = (r"\providecommand\evalreportchar[2]{\ifdefined\XeTeXversion#2\else\ifdefined\directlua#2\else"
              r"\textsf{\scriptsize[U+#1]}\allowbreak{}\fi\fi}")
