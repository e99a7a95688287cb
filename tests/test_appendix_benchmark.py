"""The paper appendix of a benchmark report (``benchmark --appendix``, :func:`write_benchmark_appendix`).

Checks: the bundle's layout; booktabs tables within a column's or the page's width; the numbers
of the consensus, per-task and Friedman tables parsed back from the .tex files and compared with
the benchmark report's own CSV tables; the methods paragraph states the settings and the test
statistics actually used (k, N, alpha, CD, B, seed, missing-systems policy; another seed, another
text); references.bib holds the works of the methods used (Demšar 2006, Friedman 1937/1940, Iman &
Davenport 1980, Nemenyi 1963, Wilcoxon 1945, Holm 1979, Kemeny 1959, Young & Levenglick 1978) and
every cited key; hostile system and task names are escaped; compile tests (slow) run pdfLaTeX +
BibTeX and Typst and check that the names print as written and that the figures embed their fonts.
"""
from __future__ import annotations

import json
import re
import shutil
import subprocess
from dataclasses import replace
from pathlib import Path

import pandas as pd
import pytest

from evalreport.errors import InputError
from evalreport.report.appendix import write_benchmark_appendix
from evalreport.report.appendix.numbers import decimals, fmt
from evalreport.report.appendix.tables import COLUMN_IN, PAGE_IN

HOSTILE = ["a_b&c%", '#import "x.typ"', r"\input{x}", "$x$", "système–été"]
HOSTILE_TASK = "t&1_%"


def _benchmark(tmp: Path, *, seed: int = 0):
    from evalreport.examples import shared_benchmark_data, write_benchmark
    from evalreport.inputs.benchmark import read_benchmark
    from evalreport.report.benchmark_build import analyse_benchmark

    data = shared_benchmark_data(n_systems=7, n_tasks=4, n_items=300)
    names = HOSTILE + ["sys_0", "sys_1"]
    tasks = {}
    for k, (task, demo) in enumerate(data.items()):
        runs = {names[int(old.split("_")[1]) - 1]: fr for old, fr in demo.runs.items()}
        if k == 3:
            runs.pop("sys_1")          # missing from one task: the missing-systems policy applies
        tasks[HOSTILE_TASK if k == 0 else task] = replace(demo, runs=runs)
    write_benchmark(tasks, tmp / "in")
    tables = tmp / f"tables-{seed}"
    analyse_benchmark(read_benchmark(tmp / "in"), tables, bootstrap=50, seed=seed, audit=False)
    return tables


@pytest.fixture(scope="module")
def bundle(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("bench-appendix")
    tables = _benchmark(tmp)
    paths = write_benchmark_appendix(tables, tmp / "appendix")
    return tables, tmp / "appendix", paths


def _rows(tex: str) -> list[list[str]]:
    """The body rows of a booktabs table, cells with the number markup removed."""
    body = tex.split(r"\midrule", 1)[1].split(r"\bottomrule", 1)[0]
    rows = []
    for line in body.strip().splitlines():
        cells = [c.strip() for c in line.rstrip().removesuffix(r"\\").split(" & ")]
        rows.append([re.sub(r"\\textbf\{([^}]*)\}", r"\1", c).replace(r"\ensuremath{-}", "-") for c in cells])
    return rows


def _bold(tex: str) -> list[list[bool]]:
    body = tex.split(r"\midrule", 1)[1].split(r"\bottomrule", 1)[0]
    return [[c.strip().startswith(r"\textbf{") for c in line.rstrip().removesuffix(r"\\").split(" & ")]
            for line in body.strip().splitlines()]


def _json(tables: Path, name: str) -> pd.DataFrame:
    return pd.DataFrame(json.loads((tables / f"{name}.json").read_text(encoding="utf-8")))


def _mean_rank_order(tables: Path) -> list[str]:
    cons = _json(tables, "consensus")
    own = cons[cons["method"] == "mean_rank"].sort_values(["rank", "system"], kind="stable")
    return list(own["system"])


def test_bundle_layout(bundle):
    _, out, paths = bundle
    for name in ("appendix.tex", "main-example.tex", "appendix.typ", "main-example.typ", "methods.tex",
                 "methods.md", "methods.typ", "references.bib"):
        assert (out / name).is_file(), name
    stems = {p.stem for p in (out / "tables").glob("*.tex")}
    assert {"consensus-column", "consensus-page", "task-scores", "friedman"} <= stems
    for name in ("cd-diagram", "task-ranks"):
        for size in ("column", "page"):
            for ext in ("pdf", "svg"):
                assert (out / "figures" / f"{name}-{size}.{ext}").is_file()
    tex = (out / "appendix.tex").read_text(encoding="utf-8")
    for stem in stems:
        assert rf"\input{{\evalreportdir tables/{stem}}}" in tex
    assert "figures/cd-diagram-" in tex and "figures/task-ranks-" in tex
    assert paths["appendix"] == out / "appendix.tex"


def test_tables_are_booktabs_and_fit_their_width(bundle):
    from evalreport.report.appendix.benchmark import BenchmarkAppendixData, build_all

    tables, out, _ = bundle
    for spec in build_all(BenchmarkAppendixData(tables)):
        limit = COLUMN_IN if spec.width == "column" else PAGE_IN
        assert spec.total_width() <= limit + 1e-9, (spec.name, spec.total_width())
        tex = (out / "tables" / f"{spec.name}.tex").read_text(encoding="utf-8")
        assert tex.count(r"\toprule") == tex.count(r"\midrule") == tex.count(r"\bottomrule") == 1
        colspec = re.search(r"\\begin\{tabular\}\{(.*)\}\n", tex).group(1)
        assert "|" not in colspec and r"\resizebox" not in tex
        assert (r"\begin{table*}" in tex) == (spec.width == "page")


def test_consensus_tables_agree_with_the_report_tables(bundle):
    tables, out, _ = bundle
    cons = _json(tables, "consensus")
    order = _mean_rank_order(tables)
    own = cons[cons["method"] == "mean_rank"].set_index("system")
    pf = _json(tables, "consensus_p_first")
    pf = pf[pf["method"] == "mean_rank"].set_index("system")["probability"]
    rows = _rows((out / "tables" / "consensus-column.tex").read_text(encoding="utf-8"))
    assert len(rows) == len(order)
    for row, system in zip(rows, order):
        assert row[0] == f"{own.at[system, 'rank']:g}"
        assert row[2] == f"{own.at[system, 'aggregate']:.2f}"       # the report's consensus table: {:.2f}
        assert row[3] == f"{pf[system]:.2f}"
    page = (out / "tables" / "consensus-page.tex").read_text(encoding="utf-8")
    methods = list(dict.fromkeys(cons["method"]))
    rank = cons.pivot(index="system", columns="method", values="rank")
    for row, bold, system in zip(_rows(page), _bold(page), order):
        assert row[1] == f"{own.at[system, 'aggregate']:.2f}"
        for j, m in enumerate(methods, start=2):
            assert row[j] == f"{rank.at[system, m]:g}"
            assert bold[j] == (rank.at[system, m] == rank[m].min())


def test_task_scores_table_agrees_with_the_report_tables(bundle):
    tables, out, _ = bundle
    ts = _json(tables, "task_scores")
    tasks = json.loads((tables / "manifest.json").read_text(encoding="utf-8"))["tasks"]
    order = _mean_rank_order(tables)
    tex = (out / "tables" / "task-scores.tex").read_text(encoding="utf-8")
    rows, bold = _rows(tex), _bold(tex)
    assert len(rows) == len(order)
    for j, task in enumerate(tasks, start=1):
        sub = ts[ts["task"] == task].set_index("system")
        d = decimals(sub["lo"], sub["hi"])          # the rounding rule of numbers.py, per task
        for row, b, system in zip(rows, bold, order):
            if system in sub.index:
                assert row[j] == fmt(sub.at[system, "value"], d), (task, system)
                assert b[j] == (sub.at[system, "rank"] == sub["rank"].min())
            else:
                assert row[j] == "---"          # did not take part
    assert sum(r[4] == "---" for r in rows) == 1    # sys_1 left out of the fourth task


def test_friedman_table_and_methods_state_the_numbers_used(bundle):
    tables, out, _ = bundle
    fr = _json(tables, "friedman").iloc[0]
    meta = json.loads((tables / "report.json").read_text(encoding="utf-8"))
    rows = _rows((out / "tables" / "friedman.tex").read_text(encoding="utf-8"))
    values = [r[1] for r in rows]
    assert values[:2] == [str(int(fr["k"])), str(int(fr["N"]))]
    assert f"{fr['chi2_F']:.3f} (df {int(fr['df'])})" in values
    assert f"{fr['cd']:.3f} ranks" in values
    text = (out / "methods.md").read_text(encoding="utf-8")
    flat = " ".join(text.replace("\\", "").split())
    for needle in (f"k = {int(fr['k'])}", f"N = {int(fr['N'])}", f"{fr['chi2_F']:.3f}", f"{fr['F_F']:.3f}",
                   f"({int(fr['df1'])}, {int(fr['df2'])})", f"{fr['q_alpha']:.3f}", f"= {fr['cd']:.3f} ranks",
                   f"alpha = {meta['alpha']:g}", f"{meta['bootstrap']:,} joint bootstrap resamples",
                   f"seed {meta['seed']}", 'policy "drop"', "Wilcoxon", "Holm", "Kemeny-Young"):
        assert needle in flat, needle
    # CD = q_alpha sqrt(k (k + 1) / (6 N)) (Demšar 2006, JMLR 7, section 3.2.2, eq. for the Nemenyi test)
    k, n = int(fr["k"]), int(fr["N"])
    assert float(fr["cd"]) == pytest.approx(float(fr["q_alpha"]) * (k * (k + 1) / (6 * n)) ** 0.5)
    assert int(fr["k"]) == len(HOSTILE) + 1     # sys_1, missing from a task, is left out of the tests
    assert "sys_1" in flat


def test_methods_text_follows_the_seed(bundle, tmp_path):
    tables, out, _ = bundle
    other = _benchmark(tmp_path, seed=7)
    again = write_benchmark_appendix(other, tmp_path / "appendix", figures=False)
    a = (out / "methods.md").read_text(encoding="utf-8")
    b = Path(again["methods"]).with_suffix(".md").read_text(encoding="utf-8")
    assert a != b and "seed 7" in b and "seed 7" not in a


def test_references_hold_every_method_used_and_every_cited_key(bundle):
    _, out, _ = bundle
    bib = (out / "references.bib").read_text(encoding="utf-8")
    keys = set(re.findall(r"@\w+\{([^,]+),", bib))
    assert {"demsar2006statistical", "friedman1937use", "friedman1940comparison", "iman1980approximations",
            "nemenyi1963distribution", "wilcoxon1945individual", "holm1979simple", "kemeny1959mathematics",
            "young1978consistent", "efron1993introduction", "opitz2022bias", "borda1781memoire",
            "copeland1951reasonable"} <= keys
    methods = (out / "methods.tex").read_text(encoding="utf-8")
    cited = {k for group in re.findall(r"\\cite\{([^}]*)\}", methods) for k in group.split(",")}
    assert cited and cited <= keys
    # each consensus method is cited where the sentence names it (Borda 1781, Copeland 1951, Kemeny 1959)
    assert re.search(r"the Borda count \\cite\{borda1781memoire\}", methods)
    assert re.search(r"Copeland's pairwise-majority score \\cite\{copeland1951reasonable\}", methods)
    typ = (out / "methods.typ").read_text(encoding="utf-8")
    assert set(re.findall(r"#cite\(<([^>]+)>\)", typ)) <= keys


@pytest.mark.parametrize("key, doi", [
    # DOIs of the works as published (journal records)
    ("friedman1937use", "10.1080/01621459.1937.10503522"),       # JASA 32(200):675-701
    ("friedman1940comparison", "10.1214/aoms/1177731944"),       # Ann. Math. Statist. 11(1):86-92
    ("iman1980approximations", "10.1080/03610928008827904"),     # Comm. Statist. Theory Methods 9(6):571-595
    ("wilcoxon1945individual", "10.2307/3001968"),               # Biometrics Bulletin 1(6):80-83
    ("young1978consistent", "10.1137/0135023"),                  # SIAM J. Appl. Math. 35(2):285-300
])
def test_dois_of_the_benchmark_methods(key, doi):
    from evalreport.measures.references import bibtex, get_work

    assert get_work(key).fields["doi"] == doi
    assert f"doi = {{{doi}}}" in bibtex([get_work(key)])


def test_hostile_names_are_escaped(bundle):
    _, out, _ = bundle
    for tex in [*(out / "tables").glob("*.tex"), out / "appendix.tex", out / "methods.tex"]:
        text = tex.read_text(encoding="utf-8")
        assert r"\input{x}" not in text and "a_b&c%" not in text and "t&1_%" not in text, tex.name
    for typ in [*(out / "tables").glob("*.typ"), out / "appendix.typ", out / "methods.typ"]:
        for line in typ.read_text(encoding="utf-8").splitlines():
            assert not line.lstrip().startswith("#import"), typ.name
            # outside string literals no name from the data (a Typst string is "...", with \" inside)
            code = re.sub(r'"(?:[^"\\]|\\.)*"', '""', line)
            assert "$x$" not in code and "import" not in code, (typ.name, line)


def test_a_single_task_folder_is_refused(tmp_path):
    (tmp_path / "t").mkdir()
    (tmp_path / "t" / "report.json").write_text('{"primary": "macro_f1"}', encoding="utf-8")
    with pytest.raises(InputError, match="not a benchmark report"):
        write_benchmark_appendix(tmp_path / "t", tmp_path / "out")
    assert not (tmp_path / "out").exists()


# ---------------------------------------------------------------------------------------- slow: compile
def _need(*tools):
    for tool in tools:
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} not installed (Debian: texlive-latex-base, texlive-latex-recommended, "
                        "texlive-fonts-recommended, poppler-utils; .ci/run installs them where it can)")


def _text(pdf: Path) -> str:
    return subprocess.run(["pdftotext", "-enc", "UTF-8", str(pdf), "-"], capture_output=True, text=True,
                          check=True).stdout


@pytest.mark.slow
def test_main_example_compiles_with_pdflatex_and_bibtex(bundle):
    _need("pdflatex", "bibtex", "pdftotext", "pdffonts")
    _, out, _ = bundle
    for cmd in (["pdflatex"], ["bibtex"], ["pdflatex"], ["pdflatex"]):
        args = cmd + (["-interaction=nonstopmode", "-halt-on-error"] if cmd[0] == "pdflatex" else []) + [
            "main-example"]
        run = subprocess.run(args, cwd=out, capture_output=True, text=True)
        assert run.returncode == 0, run.stdout[-2000:]
    log = (out / "main-example.log").read_text(encoding="utf-8", errors="replace")
    assert "Citation" not in log or "undefined" not in log
    assert "Float too large" not in log
    flat = re.sub(r"\s+", "", _text(out / "main-example.pdf"))
    for name in ["a_b&c%", r"\input{x}", "$x$", "t&1_%", "Demšar"]:
        assert re.sub(r"\s+", "", name) in flat, name
    for pdf in (out / "figures").glob("*.pdf"):
        fonts = subprocess.run(["pdffonts", str(pdf)], capture_output=True, text=True, check=True).stdout
        rows = fonts.splitlines()[2:]
        assert rows and all(r.split()[-5] == "yes" for r in rows), (pdf.name, fonts)   # emb column


def test_wide_tables_come_in_forms_the_text_holds(bundle):
    """The consensus-page and task-scores page tables ran 116 and 153 pt into the default article's text (345 pt):
    they come in narrower forms too (columns in groups, each table repeating the system column), and at every
    text width appendix.tex sets tables that fit it, every task and every method once."""
    from test_appendix_width import WIDTHS, _table_width, _tex_chosen

    from evalreport.report.appendix.benchmark import BenchmarkAppendixData, build_all
    from evalreport.report.appendix.tables import FORMS

    tables, out, _ = bundle
    specs = build_all(BenchmarkAppendixData(tables))
    limits = dict(FORMS)
    for family in ("consensus-page", "task-scores"):
        forms = {s.form for s in specs if s.family == family}
        assert "page" in forms and len(forms) > 1, family
        for s in specs:
            if s.family == family:
                assert s.total_width() <= limits[s.form] + 1e-9, (s.name, s.total_width())
    lines = [ln for ln in (out / "appendix.tex").read_text(encoding="utf-8").splitlines() if "tables/" in ln]
    n_tasks = len(_json(tables, "task_scores")["task"].unique())
    for width in WIDTHS:
        chosen = [name for ln in lines for name in _tex_chosen(ln, width)]
        assert all(_table_width(out, name) <= width + 0.005 for name in chosen), (width, chosen)
        heads = [c for name in chosen if name.startswith("task-scores")
                 for c in (out / "tables" / f"{name}.tex").read_text(encoding="utf-8").split("\\toprule\n")[1]
                 .split(" \\\\\n")[0].split(" & ")[1:]]
        assert len(heads) == n_tasks, (width, heads)


@pytest.mark.slow
@pytest.mark.parametrize("layout", ["article", "acl"])
def test_main_example_fits_the_default_article_class(bundle, tmp_path, layout):
    """No table of the benchmark appendix is overfull by more than 1 pt in the default article class, nor on an
    ACL page (3.03 in columns), where the consensus, task-scores and Friedman column tables made for 3.3 in
    overflowed."""
    _need("pdflatex", "bibtex")
    from test_appendix_compile import _as_acl, _as_article, _overfull_pt, _pdflatex

    _, out, _ = bundle
    shutil.copytree(out, tmp_path / layout)
    (_as_article if layout == "article" else _as_acl)(tmp_path / layout)
    log = _pdflatex(tmp_path / layout)
    assert max(_overfull_pt(log), default=0) <= 1, re.findall(r"Overfull.*\n.*", log)
    assert "Float too large" not in log


@pytest.mark.slow
def test_main_example_compiles_with_typst(bundle):
    typst = pytest.importorskip("typst")
    _need("pdftotext")
    _, out, _ = bundle
    typst.compile(str(out / "main-example.typ"), output=str(out / "typst.pdf"), root=str(out))
    flat = re.sub(r"\s+", "", _text(out / "typst.pdf")).replace("\u200b", "")
    for name in ["a_b&c%", '#import"x.typ"', r"\input{x}", "$x$", "t&1_%"]:
        assert name in flat, name


@pytest.mark.slow
def test_benchmark_cli_writes_the_appendix(tmp_path):
    from evalreport.cli import main

    tables = _benchmark(tmp_path)      # the same benchmark's input folder, tmp_path/in
    rc = main(["benchmark", str(tmp_path / "in"), "-o", str(tmp_path / "out"), "--appendix", "--formats", "html",
               "--bootstrap", "50", "--no-audit", "--quiet"])
    assert rc == 0
    app = tmp_path / "out" / "appendix"
    assert (app / "appendix.tex").is_file() and (app / "figures" / "cd-diagram-page.pdf").is_file()
    # the same tables as the report's, so the same numbers
    ours = (app / "tables" / "consensus-page.tex").read_text(encoding="utf-8")
    direct = write_benchmark_appendix(tables, tmp_path / "direct", figures=False)
    assert ours == (Path(direct["tables"]) / "consensus-page.tex").read_text(encoding="utf-8")
    assert _json(tmp_path / "out" / "tables", "friedman").equals(_json(tables, "friedman"))


def test_without_bootstrap_the_appendix_says_so_and_keeps_three_decimals(tmp_path):
    from evalreport.examples import shared_benchmark_data, write_benchmark
    from evalreport.inputs.benchmark import read_benchmark
    from evalreport.report.benchmark_build import analyse_benchmark

    write_benchmark(shared_benchmark_data(n_systems=4, n_tasks=3, n_items=200), tmp_path / "in")
    analyse_benchmark(read_benchmark(tmp_path / "in"), tmp_path / "tables", bootstrap=0, audit=False)
    paths = write_benchmark_appendix(tmp_path / "tables", tmp_path / "appendix", figures=False)
    text = " ".join((tmp_path / "appendix" / "methods.md").read_text(encoding="utf-8").split())
    assert "No resampling was done (bootstrap \\= 0)" in text and "joint bootstrap" not in text
    ts = _json(tmp_path / "tables", "task_scores")
    rows = _rows((Path(paths["tables"]) / "task-scores.tex").read_text(encoding="utf-8"))
    order = _mean_rank_order(tmp_path / "tables")
    first = ts[ts["task"] == "task_1"].set_index("system")["value"]
    assert [r[1] for r in rows] == [f"{first[s]:.3f}" for s in order]     # the report's 3 decimals
    bib = (tmp_path / "appendix" / "references.bib").read_text(encoding="utf-8")
    assert "efron1993introduction" not in bib and "friedman1937use" in bib
    assert not (tmp_path / "appendix" / "tables" / "consensus-column.tex").read_text(
        encoding="utf-8").count("P(first)")


def test_without_a_friedman_test_no_cd_diagram_and_the_paragraph_says_why(tmp_path):
    from evalreport.examples import shared_benchmark_data, write_benchmark
    from evalreport.inputs.benchmark import read_benchmark
    from evalreport.report.benchmark_build import analyse_benchmark

    data = shared_benchmark_data(n_systems=3, n_tasks=2, n_items=200)
    data["task_2"] = replace(data["task_2"], runs=dict(list(data["task_2"].runs.items())[:1]))   # k = 1
    write_benchmark(data, tmp_path / "in")
    analyse_benchmark(read_benchmark(tmp_path / "in"), tmp_path / "tables", bootstrap=20, audit=False)
    write_benchmark_appendix(tmp_path / "tables", tmp_path / "appendix")
    out = tmp_path / "appendix"
    assert not (out / "tables" / "friedman.tex").exists() and not list(out.glob("figures/cd-diagram-*"))
    assert (out / "figures" / "task-ranks-column.pdf").is_file()
    assert "The Friedman test could not be run" in (out / "methods.md").read_text(encoding="utf-8")
    assert "friedman1937use" not in (out / "references.bib").read_text(encoding="utf-8")
