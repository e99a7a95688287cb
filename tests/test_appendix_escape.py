"""Names from the data print as written in the appendix's LaTeX and Typst (evalreport/escape.py additions).

The round trips compile a document with pdfLaTeX and with Typst and read the text back with
pdftotext: what is printed must be the name, character for character (CJK under pdfLaTeX, whose
default fonts lack it, prints its code point; U+FFFD stands for a control character, as in every
display target of evalreport.escape).
"""
from __future__ import annotations

import re
import shutil
import subprocess
import unicodedata

import pytest
from hypothesis import given, settings, strategies as st

from evalreport import escape
from evalreport.report.appendix.latex import CHAR_MACRO, breakable
from evalreport.report.appendix.typst import text as typst_text

HOSTILE = ["a_b&c%", '#import "x.typ"', r"\input{/etc/passwd}", "$x$", "{", "}", "~", "^", "système–été",
           "--x''", '<b>|"q"', "``a'' ,,b !`c ?`d", "#set page(width: 1pt)", "@key <lbl> *b* _i_ `raw`", "= H",
           "// c", "/* c", "\\u{41}", "naïve Ωmega"]


def _need(tool: str):
    if shutil.which(tool) is None:
        pytest.skip(f"{tool} not installed (Debian: texlive-latex-base / poppler-utils; .ci/run installs them)")


def _pdftotext(pdf) -> list[str]:
    out = subprocess.run(["pdftotext", "-enc", "UTF-8", str(pdf), "-"], capture_output=True, text=True, check=True)
    # NFC: the maths fonts' Omega comes out as U+2126 OHM SIGN, canonically the Greek capital U+03A9
    return [unicodedata.normalize("NFC", line) for line in out.stdout.splitlines() if line.startswith("NAME:")]


def test_latex_literal_makes_every_special_inert():
    assert escape.latex_literal("a_b&c%") == r"a\_b\&c\%"
    assert escape.latex_literal(r"\input{x}") == r"\textbackslash{}input\{x\}"
    assert escape.latex_literal("--") == "-{}-{}"
    assert escape.latex_literal("''") == r"\textquotesingle{}\textquotesingle{}"
    assert escape.latex_literal("<|>") == r"\textless{}\textbar{}\textgreater{}"


def test_latex_portable_marks_characters_pdflatex_lacks():
    assert escape.latex_unsupported("日a€é") == {"日"}
    assert escape.latex_portable("日") == r"\evalreportchar{65E5}{日}"
    assert escape.latex_portable("a\x07") == r"a\evalreportchar{FFFD}{" + "\ufffd}"   # control -> U+FFFD
    assert escape.latex_portable("été") == "été"


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=40))
def test_latex_portable_leaves_no_active_character(s):
    """Whatever the text, the output has no unescaped special: every \\ starts one of our commands,
    every { } belongs to one, and no $ & # % _ ^ ~ stands alone."""
    out = escape.latex_portable(s)
    stripped = out
    for cmd in (r"\textbackslash{}", r"\textasciitilde{}", r"\textasciicircum{}", r"\textasciigrave{}",
                r"\textquotesingle{}", r"\textless{}", r"\textgreater{}", r"\textbar{}", r"\textquotedbl{}",
                r"\{", r"\}", r"\$", r"\&", r"\#", r"\%", r"\_", "-{}", ",{}", "!{}", "?{}"):
        stripped = stripped.replace(cmd, "")
    import re

    stripped = re.sub(r"\\evalreportchar\{[0-9A-F]{4,6}\}\{.\}", "", stripped, flags=re.S)
    assert not set(stripped) & set("\\{}$&#%_^~"), (s, out)


def test_breakable_adds_break_points_only_to_long_words():
    assert breakable("short name") == "short name"
    long = "team07_averyveryverylongunbrokenidentifier_run3"
    out = breakable(long, width_in=0.66)
    assert r"\allowbreak{}" in out
    assert out.replace(r"\allowbreak{}", "").replace(r"\-", "") == escape.latex_portable(long)


@pytest.mark.parametrize("name, width, expected", [
    # the review's mid-word breaks without a hyphen ("RandomF|orest", "Calibrate|d", "Baselin|e-|stratif|ied")
    ("RandomForest", 0.66, r"Random\-Forest"),
    ("Calibrated", 0.8, r"Calibra\-ted"),
    ("Baseline-stratified", 0.66, r"Base\-line-{}\allowbreak{}strati\-fied"),
    ("LogReg-balanced", 0.66, r"Log\-Reg-{}\allowbreak{}balan\-ced"),
    ("sys_a_b", 0.66, r"sys\_a\_b"),                      # short: no break point at all
    ("model2024v3large", 0.66, r"model\-2024\-v3large"),
])
def test_long_names_wrap_at_word_boundaries_or_with_a_hyphen(name, width, expected):
    assert breakable(name, width_in=width) == expected


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from("abcdefghijklmnopqrstuvwxyzABCDEFGHIJ0123456789_-./"), min_size=1,
               max_size=40))
def test_a_break_inside_a_word_is_always_a_hyphen(name):
    """Between two letters or digits there is only a discretionary hyphen (printed where the line
    breaks), never a bare break; pieces between hyphens are at least 3 characters."""
    out = breakable(name, esc=lambda ch: ch, mark="|", hyphen="~", width_in=0.66)
    assert out.replace("|", "").replace("~", "") == name
    for m in re.finditer(r"\|", out):
        assert out[m.start() - 1] in "_-./"
    for segment in out.split("|"):
        pieces = segment.split("~")
        assert len(pieces) == 1 or min(len(p.strip("_-./")) for p in pieces) >= 3, out


def test_typst_text_is_a_string_literal():
    assert typst_text('#import "x"') == '"#import \\"x\\""'
    assert typst_text("a\x07b") == '"a\ufffdb"'


def test_hostile_names_print_as_written_in_pdflatex(tmp_path):
    _need("pdflatex")
    _need("pdftotext")
    names = HOSTILE + ["日本語", "a\x07b"]
    body = "\n\n".join(f"NAME:{escape.latex_portable(n)}:END" for n in names)
    (tmp_path / "t.tex").write_text(
        "\\documentclass{article}\n\\usepackage[T1]{fontenc}\\usepackage[utf8]{inputenc}\\usepackage{lmodern}\n"
        f"\\begin{{document}}\n{CHAR_MACRO}\n{body}\n\\end{{document}}\n", encoding="utf-8")
    run = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "t.tex"], cwd=tmp_path,
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stdout[-2000:]
    def printed(n):   # what pdfLaTeX's text or maths fonts can show prints as written; the rest as code points
        return "".join(f"[U+{ord(c):04X}]" if c in escape.latex_unsupported(n) and c not in escape.LATEX_MATH_CHARS
                       else c for c in escape.printable(n))

    expected = [f"NAME:{printed(n)}:END" for n in HOSTILE] + ["NAME:[U+65E5][U+672C][U+8A9E]:END",
                                                              "NAME:a[U+FFFD]b:END"]
    assert "NAME:naïve Ωmega:END" in expected          # Omega from the maths fonts
    assert _pdftotext(tmp_path / "t.pdf") == expected


def test_hostile_names_print_as_written_in_typst(tmp_path):
    typst = pytest.importorskip("typst")
    _need("pdftotext")
    names = HOSTILE + ["a\x07b"]
    body = "\n\n".join(f"#{typst_text('NAME:' + n + ':END')}" for n in names)
    (tmp_path / "t.typ").write_text(f"#set page(width: 8in)\n{body}\n", encoding="utf-8")
    typst.compile(str(tmp_path / "t.typ"), output=str(tmp_path / "t.pdf"), root=str(tmp_path),
                  ignore_system_fonts=True)
    expected = [f"NAME:{n}:END" for n in HOSTILE] + ["NAME:a\ufffdb:END"]
    assert _pdftotext(tmp_path / "t.pdf") == expected
