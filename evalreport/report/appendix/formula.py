"""The registry's text formulas as math: LaTeX (``$...$``, no package beyond the LaTeX kernel) and Typst.

The registry writes every formula once, as text in one notation (see :mod:`evalreport.measures._core`):
``(1/K) sum_i 2 P_i R_i / (P_i + R_i)``. A paper shows it as math, so :func:`to_latex` and
:func:`to_typst` read that notation and write it in each target's math syntax; nothing is written by
hand per measure, and ``tests/test_appendix_formula.py`` compiles every registered formula with
pdfLaTeX and Typst.

Reading of the notation (the conventions the registry's formulas follow):

- ``x_i``, ``c_ii``, ``sum_{j: AP_j > 0}``: subscripts (a run of letters and digits, or a braced group);
  ``x^2``, ``x^-1``, ``x^(1/r)``: superscripts (a parenthesised exponent loses its parentheses);
- ``sum``, ``prod`` with a subscript: big operators; ``sqrt(...)``: a root over the parenthesised
  argument; ``log``, ``arccos``, ``logit``, ``max``, ``min``: upright operator names;
- ``beta``, ``rho``, ``sigma``, ``xi``, ``pi``, ``Delta``: Greek letters; ``in``: set membership;
- a name of two or more letters with a capital (``TP``, ``AP``, ``macP``, ``BA``, ``MCC``, ``F1``,
  ``GM``): one upright symbol, as the papers print them; a single letter: an italic variable;
- other lower-case words and hyphenated words (``if``, ``and``, ``macro-average``, ``one-vs-rest``):
  upright text; ``symmetric-difference`` between two sets: the operator (a triangle);
- ``*``: a centred dot; ``!=``: not equal; ``&`` between two sets: intersection; ``|`` with a space
  on both sides: union, otherwise the bars of a cardinality or absolute value.

Division stays a slash: the formulas are set inline in a paragraph, where a stacked fraction would
spread the lines apart.
"""
from __future__ import annotations

import re

__all__ = ["to_latex", "to_typst", "tokens"]

_TOKEN = re.compile(r"""
    (?P<ws>\s+)
  | (?P<hyword>[a-z]+(?:-[a-z]+)+)
  | (?P<name>[A-Za-z][A-Za-z0-9]*)
  | (?P<num>\d+(?:\.\d+)?)
  | (?P<op>!=|>=|<=|[-+*/=<>,;:|&^_()\[\]{}'.])
""", re.VERBOSE)

_GREEK = {"alpha", "beta", "gamma", "delta", "rho", "sigma", "xi", "pi", "mu", "tau", "Delta", "Sigma"}
#: Operator names: LaTeX's own commands where it has one.
_OPS_LATEX = {"log": r"\log", "arccos": r"\arccos", "max": r"\max", "min": r"\min", "exp": r"\exp",
              "logit": r"\mathop{\mathrm{logit}}"}
_BIG = {"sum": (r"\sum", "sum"), "prod": (r"\prod", "product")}
_SYMBOLS = {  # op -> (LaTeX, Typst)
    "*": (r"\cdot", "dot.op"), "!=": (r"\neq", "!="), ">=": (r"\geq", ">="), "<=": (r"\leq", "<="),
    "&": (r"\cap", "inter"), "/": ("/", "\\/"), ",": (",", "\\,"), ";": (";", "\\;"), ":": (":", ":"),
    "{": (r"\{", "\\{"), "}": (r"\}", "\\}"), "[": ("[", "\\["), "]": ("]", "\\]"), "|": ("|", "|"),
    "=": ("=", "="), "<": ("<", "<"), ">": (">", ">"), "+": ("+", "+"), "-": ("-", "-"), "(": ("(", "("),
    ")": (")", ")"), "'": ("'", "'"), ".": (".", "."),
}


def tokens(formula: str) -> list[tuple[str, str]]:
    """``formula`` as (kind, text) tokens; kinds ``ws``, ``hyword``, ``name``, ``num``, ``op``.
    Raises ValueError on a character the notation does not use."""
    out: list[tuple[str, str]] = []
    pos = 0
    while pos < len(formula):
        m = _TOKEN.match(formula, pos)
        if not m:
            raise ValueError(f"formula {formula!r}: cannot read {formula[pos:pos + 10]!r} (position {pos})")
        # every alternative of _TOKEN is a named group: the one that matched names the kind
        out.append((m.lastgroup or "", m.group()))
        pos = m.end()
    return out


class _Writer:
    """One pass over the tokens for one target (``latex`` or ``typst``)."""

    def __init__(self, toks: list[tuple[str, str]], target: str):
        self.t = toks
        self.target = target

    # ---- helpers
    def _peek(self, i: int, skip_ws: bool = False):
        while skip_ws and i < len(self.t) and self.t[i][0] == "ws":
            i += 1
        return self.t[i] if i < len(self.t) else ("end", "")

    def _group_end(self, i: int, open_: str, close: str) -> int:
        """Index of the token that closes the group opened at ``i``."""
        depth = 0
        for j in range(i, len(self.t)):
            if self.t[j] == ("op", open_):
                depth += 1
            elif self.t[j] == ("op", close):
                depth -= 1
                if depth == 0:
                    return j
        raise ValueError(f"unbalanced {open_!r} in {''.join(v for _, v in self.t)!r}")

    def _sub(self, i: int, end: int) -> str:
        return _Writer(self.t[i:end], self.target).run()

    def _script(self, i: int) -> tuple[str, int]:
        """The sub- or superscript starting at token ``i`` (after ``_`` or ``^``): (rendered, next i)."""
        kind, text = self._peek(i)
        if (kind, text) in (("op", "{"), ("op", "(")):
            close = "}" if text == "{" else ")"
            end = self._group_end(i, text, close)
            return self._sub(i + 1, end), end + 1
        if (kind, text) == ("op", "-"):
            inner, nxt = self._script(i + 1)
            return "-" + inner, nxt
        if kind == "name" and text not in _GREEK and not (len(text) > 1 and any(ch.isupper() for ch in text)):
            # a run of index letters (c_ii, Delta_ij): one variable per letter
            return (text if self.target == "latex" else " ".join(text)), i + 1
        atom = self._atom(kind, text) if kind in ("name", "num") else None
        if atom is not None:        # (a lower-case word is read above, as index letters)
            return atom, i + 1
        raise ValueError(f"a sub- or superscript must follow _ or ^ in {''.join(v for _, v in self.t)!r}")

    def _atom(self, kind: str, text: str) -> str | None:
        latex = self.target == "latex"
        if kind == "num":
            return text
        if text in _GREEK:
            return "\\" + text if latex else text
        if text == "in":
            return r"\in" if latex else "in"
        if text in _OPS_LATEX:
            return _OPS_LATEX[text] if latex else (text if text != "logit" else 'op("logit")')
        if len(text) == 1:
            return text
        if any(ch.isupper() for ch in text) or any(ch.isdigit() for ch in text):
            return rf"\mathrm{{{text}}}" if latex else f'"{text}"'
        return None  # a word: text

    def run(self) -> str:
        latex = self.target == "latex"
        out: list[str] = []
        words: list[str] = []

        def flush():
            if words:
                # a space inside the text where the formula has one (none next to a bracket)
                before = " " if word_at and self.t[word_at - 1][0] == "ws" else ""
                after = " " if self.t[i - 1][0] == "ws" else ""
                text = before + " ".join(words) + after
                out.append(rf"\textrm{{{text}}}" if latex else f'"{text}"')
                words.clear()
                last[:] = [False, False]

        def spaced(atom: str, upright: bool) -> None:
            """``atom`` after the previous one; a thin space between two symbols that the formula
            separates by a space when one is an upright name (TP TN is not the name TPTN)."""
            prev = self.t[i - 1][0] == "ws" and out and last[0]
            if prev and (upright or last[1]) and not out[-1].isdigit():     # 2 TP is 2TP
                out.append(r"\," if latex else "thin")
            out.append(atom)
            last[:] = [True, upright]

        last = [False, False]     # the previous output was a symbol; it was an upright name
        word_at = 0

        i = 0
        while i < len(self.t):
            kind, text = self.t[i]
            if kind == "ws":
                i += 1
                continue
            if kind not in ("name", "num") and (kind, text) not in (("op", "_"), ("op", "^")):
                last[:] = [kind == "op" and text in ")]|", False]
            if kind == "hyword":
                if text == "symmetric-difference":
                    flush()
                    out.append(r"\mathbin{\triangle}" if latex else "triangle.stroked.t")
                else:
                    if not words:
                        word_at = i
                    words.append(text)
                i += 1
                continue
            if kind == "name" and text in _BIG:
                flush()
                out.append(_BIG[text][0 if latex else 1])
                i += 1
            elif kind == "name" and text == "sqrt" and self._peek(i + 1) == ("op", "("):
                flush()
                end = self._group_end(i + 1, "(", ")")
                inner = self._sub(i + 2, end)
                out.append(rf"\sqrt{{{inner}}}" if latex else f"sqrt({inner})")
                i = end + 1
            elif kind in ("name", "num"):
                atom = self._atom(kind, text)
                if atom is None:
                    if not words:
                        word_at = i
                    words.append(text)
                    i += 1
                    if self._peek(i) == ("op", ":"):     # "of:" ends a phrase
                        words[-1] += ":"
                        i += 1
                    continue
                flush()
                spaced(atom, kind == "name" and len(text) > 1 and text not in _GREEK and text not in _OPS_LATEX
                       and text != "in")
                i += 1
                continue
            elif kind == "op" and text in "_^" and out:
                inner, i = self._script(i + 1)
                out[-1] += f"{text}{{{inner}}}" if latex else f"{text}({inner})"
                continue
            elif kind == "op" and text == "|" and self.t[i - 1][0] == "ws" and self._peek(i + 1)[0] == "ws":
                flush()
                out.append(r"\cup" if latex else "union")
                i += 1
            elif kind == "op" and text in ",;" and self._peek(i + 1)[0] == "ws":
                flush()     # a comma or semicolon between two clauses: a quad after it
                out.append(text + r"\quad " if latex else f"\\{text} quad")
                i += 1
            elif kind == "op":
                flush()
                out.append(_SYMBOLS[text][0 if latex else 1])
                i += 1
            else:  # pragma: no cover - the token kinds are exhaustive
                raise ValueError(text)
        flush()
        if latex:
            return "".join(_join_latex(out))
        return " ".join(out)


def _join_latex(parts):
    """LaTeX pieces joined; a space only where a control word would run into a letter."""
    prev = ""
    for p in parts:
        if re.search(r"\\[A-Za-z]+$", prev) and re.match(r"[A-Za-z0-9]", p):
            yield " "
        yield p
        prev = p


def to_latex(formula: str) -> str:
    """``formula`` (registry notation) as LaTeX math, without the ``$`` delimiters."""
    return _Writer(tokens(formula), "latex").run()


def to_typst(formula: str) -> str:
    """``formula`` (registry notation) as Typst math, without the ``$`` delimiters."""
    return _Writer(tokens(formula), "typst").run()
