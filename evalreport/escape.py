"""One escaping function per output target, for text that comes from the data.

In a shared task the system names (file stems), predicted labels (``--allow-unknown``), class
names, ``--positive`` and file names come from participants: they are data, never markup or
code. Every place where such text enters a target language goes through the function for that
target, and nowhere else is text escaped by hand:

===========  ===========================================================================
target       function
===========  ===========================================================================
Markdown     :func:`markdown` -- notes, headings, captions, pipe-table cells. Every ASCII
             punctuation character is backslash-escaped (CommonMark and pandoc's Markdown
             both take ``\\`` before any of them), so no link, image, emphasis, code span,
             raw attribute (```x`{=typst}``), raw HTML, citation (``@x``), maths (``$``),
             fenced div (``:::``) or heading attribute (``{#x}``) can be formed. Text with
             right-to-left letters is isolated (U+2066 ... U+2069) from the sentence around it.
HTML         :func:`html` -- ``&``, ``<``, ``>``, ``"`` and ``'`` as entities.
Typst        :func:`typst` -- a Typst string literal (``"..."``), shown exactly as written.
LaTeX        :func:`latex` -- the ten special characters as commands.
YAML         :func:`yaml` -- a double-quoted scalar (JSON's string syntax, a subset of YAML).
CSV          :func:`csv_cell` / :func:`csv_frame` -- OWASP's advice against spreadsheet
             formulas: a text cell, in any column, that begins with ``=``, ``+``, ``-``,
             ``@``, a tab or a carriage return gets a leading ``'``; so does one that begins
             with ``'`` itself, which makes the rule reversible (:func:`csv_unquote`: the
             report reads its CSV files back and shows the text as written). Number cells
             are never changed, and neither is text that is a plain number (``-0.5``, which a
             spreadsheet reads as that number), except in a participant-derived column
             (:data:`CSV_TEXT_COLUMNS`: a system named ``-1`` stays a name). JSON is data,
             not a spreadsheet, and stays raw.
===========  ===========================================================================

Control characters (C0 but tab/newline/CR, DEL, C1) cannot be shown and some break tools
downstream (vl-convert panics on them), and bidirectional overrides let a name reorder the text
around it; the display targets (Markdown, HTML, LaTeX, chart specs) show each of them as U+FFFD
(:func:`printable`; the CSV and JSON files keep the raw text), and Markdown folds runs of white
space into one space (a name is one line). The command line's error and note lines on stderr go
through :func:`one_line`, which also shows line breaks as U+FFFD. Typst string literals and YAML
keep every character, written as an escape sequence where needed.
"""
from __future__ import annotations

import html as _html
import json
import re
import unicodedata
from typing import Any

__all__ = ["markdown", "html", "typst", "latex", "yaml", "printable", "one_line", "csv_cell", "csv_frame", "CSV_TEXT_COLUMNS",
           "FORMULA_START", "csv_unquote"]

_PUNCT = re.compile(r"([!-/:-@\[-`{-~])")          # every ASCII punctuation character
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")   # C0, DEL, C1, bidi

#: Cells beginning with one of these are read as formulas by spreadsheet programs (OWASP).
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")

#: Columns of evalreport's CSV files that hold participant-derived text (names, labels, paths).
CSV_TEXT_COLUMNS = frozenset({
    "system", "system_a", "system_b", "A", "B", "class", "gold", "predicted", "label", "path", "file",
    "members", "fold", "folds", "baseline", "prefers_a", "prefers_b", "name", "positive",
    # a benchmark's tables: task names come from folder names or data
    "task", "systems", "tasks", "excluded_systems",
})


def printable(text: Any) -> str:
    """``text`` as a string whose control characters (other than white space) and bidirectional
    embedding, override and isolate controls (U+202A-U+202E, U+2066-U+2069) show as U+FFFD: a
    right-to-left override in a name could otherwise reorder the sentence around it."""
    return _CONTROL.sub("\ufffd", str(text))


_LINE_BREAK = re.compile(r"[\n\r\u2028\u2029]")


def one_line(text: Any) -> str:
    """:func:`printable`, and every line break (newline, carriage return, U+2028, U+2029) also shown
    as U+FFFD: a message line on a terminal or in a platform's log (``evalreport: error: ...``) that
    quotes a name from the data stays one line, and no name can forge a line of its own after it."""
    return _LINE_BREAK.sub("\ufffd", printable(text))


def _isolated(text: str) -> str:
    """``text`` in a left-to-right isolate when it holds right-to-left letters, so the sentence keeps its order."""
    if any(unicodedata.bidirectional(ch) in ("R", "AL") and unicodedata.category(ch)[0] in "LN" for ch in text):
        return "\u2066" + text + "\u2069"
    return text


def markdown(text: Any) -> str:
    """Literal Markdown (CommonMark, pandoc, Quarto): shown exactly as written, on one line; text with
    right-to-left letters is isolated from the sentence around it (:func:`_isolated`)."""
    return _isolated(_PUNCT.sub(r"\\\1", " ".join(printable(text).split())))


def html(text: Any, *, quote: bool = True) -> str:
    """Literal HTML text or attribute value."""
    return _html.escape(printable(text), quote=quote)


def typst(text: Any) -> str:
    """``text`` as a Typst string literal: shown exactly as written, whatever it contains."""
    out = ['"']
    for ch in str(text):
        if ch == "\\":
            out.append("\\\\")
        elif ch == '"':
            out.append('\\"')
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif ch == "\r":
            out.append("\\r")
        elif unicodedata.category(ch) in ("Cc", "Cs") or ch in "\u2028\u2029":
            out.append(f"\\u{{{ord(ch):x}}}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


_LATEX = {"\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "$": r"\$", "&": r"\&", "#": r"\#", "%": r"\%",
          "_": r"\_", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}
_LATEX_RE = re.compile(r"[\\{}$&#%_~^]")


def latex(text: Any) -> str:
    """Literal LaTeX text (no command, group, maths, comment or alignment can be formed)."""
    return _LATEX_RE.sub(lambda m: _LATEX[m.group(0)], " ".join(printable(text).split()))


def yaml(text: Any) -> str:
    """A YAML double-quoted scalar holding ``text`` exactly (tags, anchors, ``#`` comments inert)."""
    return json.dumps(str(text), ensure_ascii=False)


_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")


def csv_cell(value: Any, *, numbers: bool = False) -> Any:
    """``value`` with a leading ``'`` when it is text a spreadsheet would read as a formula (or text
    that begins with ``'``). ``numbers=True``: text that is a plain number (``-0.5``, ``+3``,
    ``-1e-3``) stays as it is, as a spreadsheet reads it as that number and evaluates nothing."""
    if isinstance(value, str) and value.startswith((*FORMULA_START, "'")):
        if numbers and _NUMBER.fullmatch(value):
            return value
        return "'" + value
    return value


def _text_columns(frame) -> list:
    return [c for c in frame.columns if frame[c].dtype.kind not in "iufcbmM"]


def csv_frame(frame, columns=CSV_TEXT_COLUMNS):
    """``frame`` for a CSV file: every text cell through :func:`csv_cell`; in a column outside
    ``columns`` (participant-derived text) a plain number is kept. Number columns are unchanged.
    Returns a copy when it changes."""
    names = _text_columns(frame)
    if not names:
        return frame
    out = frame.copy()
    for c in names:
        out[c] = out[c].map(csv_cell) if str(c) in columns else out[c].map(lambda v: csv_cell(v, numbers=True))
    return out


def csv_unquote(frame):
    """The inverse of :func:`csv_frame` for a frame read from one of evalreport's CSV files: the
    leading ``'`` of every text cell goes (in place; returns ``frame``)."""
    for c in _text_columns(frame):
        frame[c] = frame[c].map(lambda v: v[1:] if isinstance(v, str) and v.startswith("'") else v)
    return frame


# ----------------------------------------------------------------------------- LaTeX, literally
# latex() makes every special character inert; latex_literal() also undoes what LaTeX's fonts would
# change in print: the ligatures -- and --- (dashes), `` and '' (curly quotes), ,, and !` ?`
# (T1 fonts), and < > | " which OT1 fonts print as other glyphs.
_LATEX_LITERAL = {"-": "-{}", "`": r"\textasciigrave{}", "'": r"\textquotesingle{}", "<": r"\textless{}",
                  ">": r"\textgreater{}", "|": r"\textbar{}", '"': r"\textquotedbl{}", ",": ",{}",
                  "!": "!{}", "?": "?{}"}
_LATEX_LITERAL_RE = re.compile(r"[-`'<>|\",!?]")


def latex_literal(text: Any) -> str:
    """Literal LaTeX text that also *prints* as written: :func:`latex` plus no ligature (``--``,
    ``''``, ``,,``) and no OT1 substitute glyph (``<``, ``>``, ``|``, ``"``). Needs ``\\textquotedbl``
    (T1 font encoding, as ``main-example.tex`` loads)."""
    escaped = latex(text)
    # the specials are escaped first; the ligature characters never occur inside an escape
    return _LATEX_LITERAL_RE.sub(lambda m: _LATEX_LITERAL[m.group(0)], escaped)


def latex_unsupported(text: Any) -> set[str]:
    """Characters of ``text`` (after :func:`printable`) that pdfLaTeX's default fonts cannot print:
    everything beyond Latin-1 and Latin Extended-A except a few common typographic marks."""
    return {ch for ch in printable(text)
            if ord(ch) > 0x17F and ch not in "\u2013\u2014\u2018\u2019\u201c\u201d\u2026\u20ac\u2191\u2193"}


_GREEK_LOWER = ("alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi o pi rho varsigma sigma tau "
                "upsilon phi chi psi omega").split()                    # U+03B1 to U+03C9 in order
_GREEK_UPPER = {"\u0393": "Gamma", "\u0394": "Delta", "\u0398": "Theta", "\u039b": "Lambda", "\u039e": "Xi",
                "\u03a0": "Pi", "\u03a3": "Sigma", "\u03a5": "Upsilon", "\u03a6": "Phi", "\u03a8": "Psi",
                "\u03a9": "Omega"}                                      # the capitals unlike Latin ones
#: Characters beyond pdfLaTeX's default fonts that its maths fonts print: the Greek letters (the
#: capitals that differ from Latin ones) and a few operators, as fixed maths commands that every
#: engine prints alike (methods text such as "p = 2Φ(−|z|)", system names such as "β-VAE").
LATEX_MATH_CHARS = {
    **{chr(0x3B1 + i): name if name == "o" else "\\" + name for i, name in enumerate(_GREEK_LOWER)},
    **{ch: "\\" + name for ch, name in _GREEK_UPPER.items()},
    "\u2212": "-", "\u2264": "\\le", "\u2265": "\\ge", "\u2260": "\\neq", "\u2248": "\\approx", "\u221e": "\\infty",
    "\u221a": "\\surd", "\u2211": "\\sum", "\u2208": "\\in", "\u2192": "\\rightarrow", "\u2190": "\\leftarrow",
}


#: The LaTeX macro :func:`latex_portable` writes for a character pdfLaTeX cannot print; whoever
#: includes such text defines it (evalreport's appendix.tex does, with ``\providecommand``).
LATEX_CHAR_MACRO = "evalreportchar"


def latex_portable(text: Any, *, literal: bool = True) -> str:
    """:func:`latex_literal` (or :func:`latex` with ``literal=False``) in which every character of
    :func:`latex_unsupported` is written ``\\evalreportchar{HEX}{c}``: the macro can print the
    character itself under XeLaTeX/LuaLaTeX and its code point under pdfLaTeX, instead of the run
    stopping at an undeclared Unicode character."""
    out = (latex_literal if literal else latex)(text)
    for ch in sorted(latex_unsupported(out)):
        if ch in LATEX_MATH_CHARS:
            out = out.replace(ch, f"\\ensuremath{{{LATEX_MATH_CHARS[ch]}}}")
    for ch in sorted(latex_unsupported(out)):
        out = out.replace(ch, f"\\{LATEX_CHAR_MACRO}{{{ord(ch):04X}}}{{{ch}}}")
    return out
