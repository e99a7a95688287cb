"""The appendix reads like a paper: cross-validation stated and cited (Forman and Scholz 2010),
formulas as math, whose equation a number is, one citation per source, no claim about tables the
appendix lacks, names hyphenated not cut, figures that fit a smaller paper, and multi-label input
refused plainly."""
from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pandas as pd
import pytest

from evalreport.examples import Demo, load_demo, shared_task_data
from evalreport.measures import get
from evalreport.report.appendix import build_appendix, write_appendix
from evalreport.report.appendix.crossval import AUC_RECOMMENDATION, RECOMMENDATION
from evalreport.report.appendix.sources import author_year, paper_label, source_refs
from evalreport.report.build import analyse

#: Forman & Scholz (2010), as stored with the specification (its file name is the store's, not a citation).
FORMAN_SCHOLZ_2010 = next(Path("/work/shared/papers").glob("001_*.txt"), None)


def _need(*tools):
    for tool in tools:
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} is not installed")


@pytest.fixture(scope="module")
def folds(tmp_path_factory):
    """The demo (5 folds, scores) with a positive class: a bundle with the cross-validation table."""
    tmp = tmp_path_factory.mktemp("folds")
    build_appendix(load_demo(), tmp / "out", positive="nine", bootstrap=200, audit=False, progress=False)
    return tmp / "out"


@pytest.fixture(scope="module")
def nofolds(tmp_path_factory):
    from evalreport.inputs.readers import read_runs

    tmp = tmp_path_factory.mktemp("nofolds")
    d = shared_task_data(n_systems=3, n_items=200, seed=1)
    p = Demo(gold=d.gold, runs=d.runs, labels=d.labels).write(tmp / "in")
    runs = read_runs(p["gold"], [p["runs"][k] for k in sorted(p["runs"])])
    analyse(runs, tmp / "tables", bootstrap=100, seed=0, audit=False)
    write_appendix(tmp / "tables", tmp / "out", figures=False)
    return tmp / "out"


def _read(folder: Path, name: str) -> str:
    return (folder / name).read_text(encoding="utf-8")


# ----------------------------------------------------------------------------- cross-validation
def _norm(text: str) -> str:
    return " ".join(text.replace("-\n", "").split())


def test_the_quoted_recommendations_are_word_for_word_in_forman_and_scholz_2010():
    """Forman and Scholz (2010), section 5: '(a) Ftp,fp is the by far most unbiased method and should be
    used for computing F-measure' and 'we urge the research community to consistently use Ftp,fp and
    AUCavg' (the copy writes the subscripts inline)."""
    if FORMAN_SCHOLZ_2010 is None:
        pytest.skip("the papers are not here")
    paper = _norm(FORMAN_SCHOLZ_2010.read_text(encoding="utf-8"))
    assert f"Ftp,fp {RECOMMENDATION}" in paper
    assert f"{AUC_RECOMMENDATION[0]} Ftp,fp {AUC_RECOMMENDATION[1]} AU Cavg" in paper


def test_methods_say_values_are_pooled_over_folds_and_cite_forman_and_scholz(folds):
    tex = _read(folds, "methods.tex")
    assert "The items come in 5 cross-validation folds" in tex
    assert "computed from the counts pooled over the folds" in tex
    assert r"\cite{forman2010apples}" in tex and f"\u201c{RECOMMENDATION}\u201d (section~5)" in tex
    assert AUC_RECOMMENDATION[0] in tex                       # the demo has scores: the AUC advice too
    assert r"Table~\ref{tab:evalreport-cv-estimators}" in tex
    assert "@tab:evalreport-cv-estimators" in _read(folds, "methods.typ")
    assert "@article{forman2010apples," in _read(folds, "references.bib")
    # the five papers of the specification are all cited now
    bib = _read(folds, "references.bib")
    for key in ("sebastiani2015axiomatically", "forman2010apples", "opitz2022bias", "gosgens2021good"):
        assert f"{{{key}," in bib


def test_the_pooled_claim_holds_every_score_is_the_pooled_cross_validation_value(folds):
    """The paragraph says every value is computed from pooled counts: the report's scores equal its
    cross-validation table's 'pooled' aggregation for every system and measure."""
    scores = pd.read_csv(folds / "data" / "scores.csv")
    scores = scores[~scores["calibrated"].astype(bool)].set_index(["system", "measure"])["value"]
    est = pd.read_csv(folds / "data" / "cv_estimates.csv")
    pooled = est[(est["aggregation"] == "pooled") & est["measure"].isin(scores.index.get_level_values(1))]
    assert len(pooled) > 50
    got = scores.reindex(list(zip(pooled["system"], pooled["measure"]))).to_numpy()
    assert pd.Series(got).fillna(-1).round(12).tolist() == pooled["value"].fillna(-1).round(12).tolist()


def _table_rows(tex: str) -> list[list[str]]:
    body = tex.split(r"\midrule", 1)[1].split(r"\bottomrule", 1)[0]
    return [[c.strip().replace(r"\allowbreak{}", "").replace(r"\-", "").replace("-{}", "-")
             .replace(r"\_", "_") for c in line.split("&")]
            for line in body.strip().split(r"\\") if line.strip()]


def test_cv_table_shows_the_reports_numbers_not_a_recomputation(folds):
    tex = _read(folds, "tables/cv-estimators.tex")
    assert r"$F_{\mathrm{tp,fp}}$" in tex and r"$\tilde{F}_{\mathrm{avg}}$" in tex and "AUC" in tex
    summary = pd.read_csv(folds / "data" / "cv_summary.csv").set_index("system")
    cols = [c for c in ("F_tp,fp", "F_avg", "F~_avg", "F_pr,re", "F~_pr,re", "AUC_avg", "AUC_merge")
            if c in summary]
    rows = _table_rows(tex)
    assert sorted(r[0] for r in rows) == sorted(summary.index)
    for row in rows:
        want = ["---" if pd.isna(v) else f"{v:.3f}" for v in summary.loc[row[0], cols]]
        assert row[1:] == want, row
    # F_tp,fp is the binary F1 the other tables report (the pooled counts)
    scores = pd.read_csv(folds / "data" / "scores.csv")
    f1 = scores[(scores["measure"] == "f1") & ~scores["calibrated"].astype(bool)].set_index("system")["value"]
    assert (summary["F_tp,fp"] - f1.reindex(summary.index)).abs().max() < 1e-12


def test_cv_table_narrower_forms_hold_the_same_numbers_and_the_label(folds):
    """The estimators' page table (6.9 in, 7 estimators) ran 151 pt into the default article's text: its
    narrower forms split the estimators into groups, each table repeating the system column; every form holds
    every value once, the first table of each carries the label the methods paragraph refers to, and
    appendix.tex sets the widest form the text holds."""
    from evalreport.report.appendix.tables import ARTICLE_IN, COLUMN_IN, PAGE_IN

    forms: dict[str, list[str]] = {}
    for tex_file in sorted((folds / "tables").glob("cv-estimators*.tex")):
        m = re.fullmatch(r"cv-estimators(?:-(text|column))?(?:-\d+)?", tex_file.stem)
        forms.setdefault(m.group(1) or "page", []).append(tex_file.stem)
    assert set(forms) == {"page", "text", "column"}
    reference = {tuple(r) for r in _table_rows(_read(folds, "tables/cv-estimators.tex"))}
    for form, width in (("page", PAGE_IN), ("text", ARTICLE_IN), ("column", COLUMN_IN)):
        names = sorted(forms[form], key=lambda n: int(n.rsplit("-", 1)[1]) if n[-1].isdigit() else 0)
        texts = [_read(folds, f"tables/{n}.tex") for n in names]
        assert all(float(re.match(r"% \S+: ([\d.]+) in wide", t).group(1)) <= width for t in texts), form
        assert r"\label{tab:evalreport-cv-estimators}" in texts[0]
        rows = [_table_rows(t) for t in texts]
        joined = {tuple([r[0][0]] + [c for part in r for c in part[1:]]) for r in zip(*rows)}
        assert joined == reference, form
    line = next(ln for ln in _read(folds, "appendix.tex").splitlines() if "tables/cv-estimators" in ln)
    assert line.startswith(r"\ifdim\textwidth<6.8") and line.count(r"\ifdim") == 2


def test_without_folds_nothing_is_said_about_cross_validation(nofolds):
    tex = _read(nofolds, "methods.tex")
    assert "cross-validation" not in tex and "forman2010apples" not in tex
    assert not (nofolds / "tables" / "cv-estimators.tex").exists()
    assert "forman2010apples" not in _read(nofolds, "references.bib")


def test_folds_without_a_positive_class_still_state_the_pooling(tmp_path):
    build_appendix(load_demo(), tmp_path / "out", bootstrap=0, audit=False, progress=False)
    tex = _read(tmp_path / "out", "methods.tex")
    assert "pooled over the folds" in tex and r"\cite{forman2010apples}" in tex
    assert "need a positive class (--positive)" in tex
    assert not (tmp_path / "out" / "tables" / "cv-estimators.tex").exists()


# ----------------------------------------------------------------------------- formulas and sources
def test_the_primary_formula_is_math_with_one_citation_naming_whose_equation(nofolds):
    tex = _read(nofolds, "methods.tex")
    first = tex.split("\n\n")[0]
    # Opitz (2022), eq. 18-19: macro F1, the default primary measure
    assert r"defined as $(1/K)\sum_{i}2P_{i}R_{i}/(P_{i}+R_{i})=(2/K)\sum_{i}c_{ii}/(a_{i}+b_{i})$" in first
    assert "(Opitz (2022), eq.~18\u201319 \\cite{opitz2022bias})" in first     # a tie, an en dash
    assert first.count(r"\cite{opitz2022bias}") == 1 and "[Opitz" not in first
    assert "sum_i" not in tex and "sum\\_i" not in tex
    md, typ = _read(nofolds, "methods.md"), _read(nofolds, "methods.typ")
    assert r"$(1/K)\sum_{i}" in md and "[@opitz2022bias]" in md
    assert r"$( 1 \/ K ) sum_(i)" in typ and "#cite(<opitz2022bias>)" in typ


def test_an_equation_number_always_says_whose(nofolds):
    """A bare 'eq. 18' would read as eq. 18 of the reader's paper: labels carry none (the definitions do),
    and every equation number the appendix prints follows its author and year."""
    assert paper_label("macro_f1") == "Macro F1" and paper_label("accuracy") == "Accuracy"
    texts = [p.read_text(encoding="utf-8") for p in [*nofolds.glob("*.tex"), *(nofolds / "tables").glob("*.tex"),
                                                      *nofolds.glob("*.typ"), *(nofolds / "tables").glob("*.typ")]]
    for text in texts:
        for m in re.finditer(r"eqs?\.[ ~\u00a0]?\d", text):
            assert re.search(r"\(\d{4}\),(\{\})? $", text[max(0, m.start() - 10):m.start()]), \
                text[m.start() - 60:m.end()]


@pytest.mark.parametrize("ident, who, where", [
    ("macro_f1", "Opitz (2022)", "eq.\u00a018\u201319"),       # a no-break space, an en dash
    ("f_star", "Hand et al. (2021)", "eq.\u00a02 (F* = F/(2-F) = TP / (n - TN))"),
    ("markedness", "Powers (2011)", ""),
    ("confusion_entropy", "Gösgens et al. (2021)", "Table\u00a01 (Wei et al. 2010)"),
])
def test_source_refs(ident, who, where):
    ref = source_refs(get(ident).source)[0]
    assert (ref.who, ref.where) == (who, where)


def test_the_second_work_of_a_source_keeps_its_place():
    """accuracy's source names two works, the first with its year in brackets, the second without."""
    refs = [(r.who, r.where, r.keys) for r in source_refs(get("accuracy").source)]
    assert refs == [("Opitz (2022)", "eq.\u00a07", ("opitz2022bias",)),
                    ("Gösgens et al. (2021)", "Table\u00a01", ("gosgens2021good",))]


def test_markedness_cites_powers_alone():
    """Powers (2011) defines markedness (PPV + NPV - 1). Gösgens et al. (2021) cite Powers only in their
    introduction, among works on how measures differ (their ref. [21]): markedness is in none of their
    tables, so citing them for it would credit them with something they do not say. The text and the
    bibliography name Powers alone."""
    from evalreport.measures.references import works_for_measures

    assert [r.keys for r in source_refs(get("markedness").source) if r.keys] == [("powers2011evaluation",)]
    assert [w.key for w in works_for_measures(["markedness"])] == ["powers2011evaluation"]


def test_author_year_of_two_authors():
    from evalreport.measures.references import get_work

    assert author_year(get_work("forman2010apples")) == "Forman and Scholz (2010)"


def test_no_claim_about_adjusted_p_values_in_the_appendix_tables(nofolds):
    tex = _read(nofolds, "methods.tex")
    assert "are in the tables" not in tex
    assert "pairwise.csv, also gives Benjamini-Hochberg adjusted p-values" in tex


def test_the_opitz_entry_can_be_found():
    from evalreport.measures.references import bibtex, get_work

    entry = bibtex([get_work("opitz2022bias")])
    assert "arXiv:2404.16958" in entry and "10.1162/tacl" in entry


# ----------------------------------------------------------------------------- the reader's own paper
_AUTHOR_MAIN = r"""\documentclass[twocolumn]{article}
\usepackage[T1]{fontenc}
%FONT%
\usepackage{booktabs,graphicx,array}
\newcommand\evalreportdir{appendix/}
\begin{document}
Details in Appendix~\ref{sec:evalreport}.
\appendix
\input{appendix/appendix}
\end{document}
"""


def test_page_figures_fit_the_default_article_and_lmodern_gives_no_type3_fonts(folds, tmp_path):
    """An author's main.tex (default article, two columns): no 'Float too large' from the page-wide
    heatmaps (7 in tall against 7.3 in of text); with lmodern, as docs/appendix.md says, only vector fonts."""
    _need("pdflatex", "pdffonts")
    shutil.copytree(folds, tmp_path / "appendix")
    (tmp_path / "main.tex").write_text(_AUTHOR_MAIN.replace("%FONT%", r"\usepackage{lmodern}"), encoding="utf-8")
    for _ in range(2):
        run = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "main"], cwd=tmp_path,
                             capture_output=True, text=True, errors="replace")
        assert run.returncode == 0, run.stdout[-3000:]
    log = (tmp_path / "main.log").read_text(encoding="latin-1")
    assert "Float too large" not in log, [line for line in log.splitlines() if "Float too large" in line]
    fonts = subprocess.run(["pdffonts", "main.pdf"], cwd=tmp_path, capture_output=True, text=True).stdout
    assert "Type 3" not in fonts, fonts


# ----------------------------------------------------------------------------- multi-label
def test_appendix_of_a_multilabel_gold_file_is_refused_plainly(tmp_path, capsys):
    from evalreport.cli import main

    gold = tmp_path / "gold.jsonl"
    gold.write_text('{"id": 1, "label": ["a", "b"]}\n{"id": 2, "label": ["b"]}\n', encoding="utf-8")
    run = tmp_path / "sys.jsonl"
    run.write_text('{"id": 1, "label": ["a"]}\n{"id": 2, "label": []}\n', encoding="utf-8")
    rc = main(["appendix", str(gold), str(run), "-o", str(tmp_path / "out"), "--quiet"])
    err = capsys.readouterr().err
    assert rc == 2 and "multi-label" in err and "no multi-label appendix yet" in err and str(gold) in err
    assert not (tmp_path / "out").exists()


def test_cli_appendix_honours_bootstrap_strata(tmp_path):
    """`evalreport appendix` takes every option of `report`: --bootstrap-strata reaches the analysis and
    the methods paragraph says how items were resampled."""
    from evalreport.cli import main
    from evalreport.examples import make_demo

    paths = make_demo(tmp_path / "in")
    gold, runs_dir = Path(paths["gold"]), Path(paths["runs_dir"])
    rc = main(["appendix", str(gold), "--runs-dir", str(runs_dir), "-o", str(tmp_path / "out"), "--bootstrap", "50",
               "--bootstrap-strata", "gold", "--no-audit", "--quiet"])
    assert rc == 0
    assert '"bootstrap_strata": "gold"' in _read(tmp_path / "out", "data/manifest.json")
    assert "and within each gold class, so that no resample loses a class" in _read(tmp_path / "out", "methods.tex")
