"""The registry's text formulas as math (evalreport/report/appendix/formula.py): every registered formula
compiles under pdfLaTeX (no package beyond the kernel) and Typst and prints no ASCII notation; the
primary measures of the papers read as the papers print them."""
from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from evalreport.measures import REGISTRY, get
from evalreport.report.appendix.formula import to_latex, to_typst, tokens

FORMULAS = sorted({m.formula for m in REGISTRY.values() if m.formula})


def _need(tool: str):
    if shutil.which(tool) is None:
        pytest.skip(f"{tool} is not installed")


def _pdftotext(pdf) -> str:
    _need("pdftotext")
    return subprocess.run(["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True,
                          check=True).stdout


def test_every_registered_formula_is_read():
    for f in FORMULAS:
        assert to_latex(f) and to_typst(f), f


def test_unknown_characters_are_refused():
    with pytest.raises(ValueError, match="cannot read"):
        tokens("TP ~ FP")


@pytest.mark.parametrize("ident, latex", [
    # Opitz (2022), eq. 18-19: macro F1 as the mean of the class F1, and in counts
    ("macro_f1", r"(1/K)\sum_{i}2P_{i}R_{i}/(P_{i}+R_{i})=(2/K)\sum_{i}c_{ii}/(a_{i}+b_{i})"),
    # Opitz (2022), eq. 20: the harmonic mean of macro precision and macro recall
    ("macro_f1_hm", r"2\mathrm{macP}\,\mathrm{macR}/(\mathrm{macP}+\mathrm{macR})"),
    # Opitz (2022), eq. 23 (multi-class MCC) in the registry's gold-rows notation
    ("mcc", r"(N\sum_{i}c_{ii}-\sum_{i}a_{i}b_{i})/\sqrt{(N^{2}-\sum_{i}b_{i}^{2})(N^{2}-\sum_{i}a_{i}^{2})}"),
    # Sebastiani (2015), Table 2: F1 in counts
    ("f1", r"2\mathrm{TP}/(2\mathrm{TP}+\mathrm{FP}+\mathrm{FN})"),
    # Gösgens et al. (2021), Table 1: MCC of one binary matrix
    ("mcc_macro", r"\textrm{macro-average over the }K\textrm{ one-vs-rest matrices of: }"
                  r"(\mathrm{TP}\,\mathrm{TN}-\mathrm{FP}\,\mathrm{FN})/\sqrt{\mathrm{AP}\,\mathrm{AN}\,\mathrm{PP}\,\mathrm{PN}}"),
    # Sebastiani (2015), eq. 10: K for single-label multi-class
    ("k", r"K/(K-1)\cdot(\sum_{j:\mathrm{AP}_{j}>0}\rho_{j})/(\sum_{j}\xi_{j})-1/(K-1)"),
    ("example_jaccard", r"(1/N)\sum_{i}|G_{i}\cap P_{i}|/|G_{i}\cup P_{i}|"),
])
def test_formulas_read_as_the_papers_print_them(ident, latex):
    assert to_latex(get(ident).formula) == latex


def test_typst_keeps_slashes_and_separates_indices():
    t = to_typst(get("macro_f1").formula)
    assert t == r"( 1 \/ K ) sum_(i) 2 P_(i) R_(i) \/ ( P_(i) + R_(i) ) = ( 2 \/ K ) sum_(i) c_(i i) \/ ( a_(i) + b_(i) )"
    assert '"TP" thin "TN"' in to_typst(get("mcc_macro").formula)


#: ASCII notation that must not survive into the printed math.
_ASCII = re.compile(r"sum_|prod_|sqrt\(|_\{|\^\(|\\[a-z]|\bbeta\b|\brho\b|\bsigma\b|!=|\*")


def test_every_formula_compiles_with_pdflatex_and_prints_as_math(tmp_path):
    _need("pdflatex")
    body = "\n\n".join(f"F{n}: ${to_latex(f)}$" for n, f in enumerate(FORMULAS))
    (tmp_path / "f.tex").write_text("\\documentclass{article}\n\\usepackage[T1]{fontenc}\n\\usepackage{lmodern}\n"
                                    "\\begin{document}\n" + body + "\n\\end{document}\n", encoding="utf-8")
    run = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "f.tex"], cwd=tmp_path,
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stdout[-2000:]
    text = _pdftotext(tmp_path / "f.pdf")
    assert len(re.findall(r"F\d+:", text)) == len(FORMULAS)
    assert not _ASCII.search(text), _ASCII.search(text)


def test_every_formula_compiles_with_typst_and_prints_as_math(tmp_path):
    typst = pytest.importorskip("typst")
    body = "\n\n".join(f"F{n}: ${to_typst(f)}$" for n, f in enumerate(FORMULAS))
    (tmp_path / "f.typ").write_text(body + "\n", encoding="utf-8")
    typst.compile(str(tmp_path / "f.typ"), output=str(tmp_path / "f.pdf"))
    text = _pdftotext(tmp_path / "f.pdf")
    assert len(re.findall(r"F\d+:", text)) == len(FORMULAS)
    assert not _ASCII.search(text), _ASCII.search(text)
