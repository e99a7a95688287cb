"""The paper appendix: booktabs structure, widths, the rounding rule, agreement with the
report's tables, the methods paragraph from the settings, atomic output and the CLI."""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from evalreport.examples import Demo, shared_task_data
from evalreport.report.appendix import AppendixData, write_appendix
from evalreport.report.appendix.numbers import decimals, fmt
from evalreport.report.appendix.tables import COLUMN_IN, PAGE_IN, build_all
from evalreport.report.build import analyse

HOSTILE = ["a_b&c%", '#import "x.typ"', r"\input{/etc/passwd}", "$x$", "{", "~", "^", "système–été", "日本語"]


def _runs(tmp: Path, *, n_systems=12, n_items=400, seed=0):
    from evalreport.inputs.readers import read_runs

    d = shared_task_data(n_systems=n_systems, n_items=n_items, seed=seed)
    names = (HOSTILE + [f"sys{i}" for i in range(n_systems)])[:n_systems]
    cmap = dict(zip(d.labels, ["c&1 %x", "#b", "{k}"]))
    demo = Demo(gold=d.gold.assign(label=d.gold["label"].map(cmap)),
                runs={f"s{i:02d}": fr.assign(label=fr["label"].map(cmap)) for i, fr in enumerate(d.runs.values())},
                labels=tuple(cmap.values()))
    p = demo.write(tmp / "in")
    return read_runs(p["gold"], [p["runs"][k] for k in sorted(p["runs"])], names=names, labels=list(cmap.values()))


@pytest.fixture(scope="module")
def bundle(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("appendix")
    runs = _runs(tmp)
    analyse(runs, tmp / "tables", bootstrap=300, seed=0, audit=False)
    write_appendix(tmp / "tables", tmp / "out", figures=False)
    return tmp


def _methods(tmp: Path, name: str, runs, **kw) -> str:
    analyse(runs, tmp / name, audit=False, **{"bootstrap": 100, "seed": 0, **kw})
    write_appendix(tmp / name, tmp / f"{name}-out", figures=False)
    return (tmp / f"{name}-out" / "methods.tex").read_text(encoding="utf-8")


# ----------------------------------------------------------------------------- rounding rule
@pytest.mark.parametrize("half, d", [(0.023, 2), (0.006, 3), (0.0999, 2), (0.1, 1), (0.00042, 4), (0.5, 1),
                                     (3e-6, 4)])
def test_decimals_first_significant_digit_of_the_half_width(half, d):
    """JCGM 100:2008 (GUM), 7.2.6: the value to the decimal place of the uncertainty's first significant
    digit (clamped to [1, 4])."""
    assert decimals([0.5 - half], [0.5 + half]) == d


def test_decimals_per_column_is_the_median_and_defaults_without_intervals():
    assert decimals([0.5 - 0.03, 0.5 - 0.004, 0.5 - 0.02], [0.5 + 0.03, 0.5 + 0.004, 0.5 + 0.02]) == 2
    assert decimals([np.nan], [np.nan]) == 3
    assert decimals([], []) == 3


def test_fmt():
    assert fmt(0.81249, 2) == "0.81"
    assert fmt(-0.0001, 2) == "0.00"
    assert fmt(float("nan"), 2) == ""


# ----------------------------------------------------------------------------- structure
def _tex_tables(bundle) -> dict[str, str]:
    return {p.stem: p.read_text(encoding="utf-8") for p in sorted((bundle / "out" / "tables").glob("*.tex"))}


def test_bundle_files(bundle):
    out = bundle / "out"
    for name in ("appendix.tex", "main-example.tex", "appendix.typ", "main-example.typ", "methods.tex", "methods.md",
                 "methods.typ", "references.bib"):
        assert (out / name).is_file(), name
    tex = (out / "appendix.tex").read_text(encoding="utf-8")
    for stem in _tex_tables(bundle):
        # every table is included; the leaderboard once, its version chosen by the text width (see
        # test_leaderboard_version_is_chosen_by_the_text_width)
        assert tex.count(rf"\input{{\evalreportdir tables/{stem}}}") == 1, stem
        assert (out / "tables" / f"{stem}.typ").is_file()
    assert tex.index("methods") < tex.index("tables/leaderboard-page}") < tex.index("measures")
    assert r"\input{appendix}" in (out / "main-example.tex").read_text(encoding="utf-8")


def test_leaderboard_version_is_chosen_by_the_text_width(bundle):
    """The page-wide leaderboard ran 121 pt into the margin of the default article class (4.8 in of text):
    appendix.tex inputs it where the text is as wide as the table, else the one-column version."""
    out = bundle / "out"
    tex = (out / "appendix.tex").read_text(encoding="utf-8")
    page = (out / "tables" / "leaderboard-page.tex").read_text(encoding="utf-8")
    width = float(re.match(r"% leaderboard-page: ([\d.]+) in wide", page).group(1))
    line = next(ln for ln in tex.splitlines() if "tables/leaderboard-page}" in ln)
    m = re.match(r"\\ifdim\\textwidth<([\d.]+)in\\relax\\input\{\\evalreportdir tables/leaderboard-column\}"
                 r"\\else\\input\{\\evalreportdir tables/leaderboard-page\}\\fi", line)
    assert m, line
    assert width - 0.005 <= float(m.group(1)) <= width + 0.02     # (the header rounds the width to 2 decimals)
    assert 345 / 72.27 < width < 6.9          # the article's text is narrower than the table, a 6.9 in page not


def test_booktabs_structure_no_vertical_rules_no_resizebox(bundle):
    tables = _tex_tables(bundle)
    assert {"leaderboard-column", "leaderboard-page", "baselines"} <= set(tables)
    for name, tex in tables.items():
        assert tex.count(r"\toprule") == tex.count(r"\midrule") == tex.count(r"\bottomrule") == 1, name
        assert tex.index(r"\toprule") < tex.index(r"\midrule") < tex.index(r"\bottomrule")
        assert r"\hline" not in tex and r"\resizebox" not in tex and r"\scalebox" not in tex
        spec = re.search(r"\\begin\{tabular\}\{(.*)\}\n\\toprule", tex).group(1)
        assert "|" not in spec, name


def _spec_width_in(tex: str) -> float:
    """Inches of a tabular: its p{} columns plus 3 pt on each side of every column."""
    widths = [float(w) for w in re.findall(r"p\{([\d.]+)in\}", tex)]
    return sum(widths) + 2 * len(widths) * 3 / 72.27


def test_widths_fit_a_column_and_a_page(bundle):
    data = AppendixData(bundle / "tables")
    for spec in build_all(data):
        limit = COLUMN_IN if spec.width == "column" else PAGE_IN
        assert spec.total_width() <= limit + 1e-9, (spec.name, spec.total_width())
    for name, tex in _tex_tables(bundle).items():
        env = "table" if re.search(r"\\begin\{table\}", tex) else "table*"
        assert _spec_width_in(tex) <= (COLUMN_IN if env == "table" else PAGE_IN) + 1e-9, name


def test_wide_tables_are_split_not_scaled(bundle):
    """12 systems do not fit one page-wide table: the measures table is split in balanced parts, in each form
    (the page: 7 systems a table; the default article's text: 4; a column: 2)."""
    tables = _tex_tables(bundle)
    for form, counts in (("", [6, 6]), ("text-", [4, 4, 4]), ("column-", [2] * 6)):
        parts = [t for n, t in tables.items() if re.fullmatch(rf"measures-{form}\d+", n)]
        assert [len(re.findall(r"p\{0\.66in\}", t)) for t in parts] == counts, form


def test_hostile_names_are_escaped_in_tables(bundle):
    tex = "\n".join(_tex_tables(bundle).values())
    assert r"a\_b\&c\%" in tex
    assert r"\textbackslash{}input\{/etc/passwd\}" in tex
    assert r"\$x\$" in tex and r"\#import" in tex
    assert r"\evalreportchar{65E5}{日}" in tex
    assert r"\input{/etc" not in tex
    typ = "\n".join(p.read_text(encoding="utf-8") for p in (bundle / "out" / "tables").glob("*.typ"))
    assert '"\\#import' not in typ and '[#"#import \\"x.typ\\""]' in typ.replace("\u200b", "")


# ----------------------------------------------------------------------------- agreement with the report
def _appendix_leaderboard(bundle) -> pd.DataFrame:
    tex = _tex_tables(bundle)["leaderboard-column"]
    body = tex.split(r"\midrule")[1].split(r"\bottomrule")[0].strip().splitlines()
    rows = []
    for line in body:
        rank, _, value = line.rstrip("\\ ").split(" & ")
        value = value.replace(r"\ensuremath{-}", "-")
        v, lo, hi = re.fullmatch(r"(?:\\textbf\{)?([-\d.]+)\}?(?:\\textsuperscript\{[^}]*\}(?:\\allowbreak\{\})?)* "
                                 r"\{\\scriptsize \[([-\d.]+),~([-\d.]+)\]\}", value).groups()
        rows.append({"rank": float(rank), "value": v, "lo": lo, "hi": hi})
    return pd.DataFrame(rows)


def _report_leaderboard(tables: Path) -> pd.DataFrame:
    """The report's own leaderboard table (the object the HTML and PDF show), its cells as text."""
    from evalreport.report.sections import ReportData

    table = ReportData(tables).leaderboard_table()
    md = table._markdown()
    lines = [line for line in md.splitlines() if line.startswith("|")][2:]
    rows = []
    for line in lines:       # cells split on unescaped pipes, then the Markdown escapes removed
        cells = [re.sub(r"\\(.)", r"\1", c).strip() for c in re.split(r"(?<!\\)\|", line.strip("|"))]
        interval = re.fullmatch(r"\[([-\d.]+), ([-\d.]+)\]", cells[3]).groups()
        rows.append({"rank": float(cells[0]), "value": cells[2], "lo": interval[0], "hi": interval[1]})
    return pd.DataFrame(rows)


def test_leaderboard_agrees_with_the_report_to_the_digit(bundle):
    """Each appendix number is the report's number with fewer (or as many) decimals: they agree to
    the appendix's last digit, and both are the CSV value rounded."""
    app, rep = _appendix_leaderboard(bundle), _report_leaderboard(bundle / "tables")
    csv = pd.read_csv(bundle / "tables" / "leaderboard.csv")
    assert len(app) == len(rep) == len(csv)
    d = len(app["value"].iloc[0].split(".")[1])
    for col in ("value", "lo", "hi"):
        a = app[col].astype(float).to_numpy()
        r = rep[col].astype(float).to_numpy()
        assert np.all(np.abs(a - r) <= 0.5 * 10 ** -d + 0.5e-3 + 1e-12), col
        assert list(app[col]) == [f"{v:.{d}f}" for v in csv[col]], col
        assert list(rep[col]) == [f"{v:.3f}" for v in csv[col]], col
    assert list(app["rank"]) == list(rep["rank"])


def test_measures_table_values_and_ranks_come_from_the_report_tables(bundle):
    scores = pd.read_csv(bundle / "tables" / "scores.csv", keep_default_na=False, na_values=[""])
    acc = scores[(scores["measure"] == "accuracy") & ~scores["calibrated"]]["value"]
    iv = pd.read_csv(bundle / "tables" / "intervals.csv")
    iv = iv[iv["measure"] == "accuracy"]
    d = decimals(iv["lo"], iv["hi"])
    for form in ("", "-text", "-column"):     # every form of the table shows every value to the same digit
        tex = "\n".join(t for n, t in _tex_tables(bundle).items() if re.fullmatch(rf"measures{form}(-\d+)?", n))
        line = "".join(re.findall(r"Accuracy ↑ & (.*)", tex))
        shown = re.findall(r"([-\d]+\.\d+)\}? \{\\scriptsize \(", line)
        assert sorted(shown) == sorted(f"{v:.{d}f}" for v in acc), form


# ----------------------------------------------------------------------------- methods paragraph
@pytest.fixture(scope="module")
def small_runs(tmp_path_factory):
    return _runs(tmp_path_factory.mktemp("small"), n_systems=4, n_items=150)


def test_methods_states_the_settings_used(tmp_path, small_runs):
    base = _methods(tmp_path, "base", small_runs)
    assert "100 paired bootstrap resamples over items" in base and "random seed 0" in base
    assert "Macro F1" in base and r"\cite{opitz2022bias}" in base
    assert "left undefined" in base and "95\\% percentile intervals" in base
    assert r"\cite{holm1979simple}" in base and r"\cite{efron1993introduction}" in base

    seed = _methods(tmp_path, "seed", small_runs, seed=7)
    assert "random seed 7" in seed and "random seed 0" not in seed
    b = _methods(tmp_path, "b", small_runs, bootstrap=150)
    assert "150 paired bootstrap resamples" in b and "100 paired" not in b
    primary = _methods(tmp_path, "primary", small_runs, primary="mcc")
    assert "The primary measure, which orders the leaderboard (higher is better), is Matthews" in primary
    # whose equation, cited once (Opitz 2022, eq. 23; Gösgens et al. 2021, Table 1), the formula as math
    assert "(Opitz (2022), eq.~23 \\cite{opitz2022bias}; G" in primary, primary[:800]
    assert r"\sqrt{" in primary and "sqrt(" not in primary
    policy = _methods(tmp_path, "policy", small_runs, policy="zero")
    assert "were set to 0 (policy" in policy and "left undefined" not in policy
    alpha = _methods(tmp_path, "alpha", small_runs, alpha=0.1)
    assert "90\\% percentile intervals" in alpha and "alpha = 0.1" in alpha
    convention = _methods(tmp_path, "convention", small_runs, policy="convention")
    assert "documented convention" in convention and "pedregosa2011scikit" in convention
    assert "pedregosa2011scikit" in (tmp_path / "convention-out" / "references.bib").read_text(encoding="utf-8")
    assert "pedregosa2011scikit" not in base
    none = _methods(tmp_path, "none", small_runs, bootstrap=0)
    assert "No resampling was done" in none and "efron" not in none


def test_every_citation_is_in_the_bib_and_every_measure_source_is_cited(bundle):
    out = bundle / "out"
    methods = (out / "methods.tex").read_text(encoding="utf-8")
    bib = (out / "references.bib").read_text(encoding="utf-8")
    cited = {k for group in re.findall(r"\\cite\{([^}]*)\}", methods) for k in group.split(",")}
    in_bib = set(re.findall(r"^@\w+\{([^,]+),", bib, flags=re.M))
    assert cited == in_bib
    from evalreport.measures.references import works_for_measures

    data = AppendixData(bundle / "tables")
    assert {w.key for w in works_for_measures(data.measures, conventions=False)} <= in_bib
    md = (out / "methods.md").read_text(encoding="utf-8")
    assert {k for k in re.findall(r"@([a-z0-9]+)", md)} == in_bib
    typ = (out / "methods.typ").read_text(encoding="utf-8")
    assert set(re.findall(r"#cite\(<([a-z0-9]+)>\)", typ)) == in_bib


def test_references_are_stable_across_runs(bundle, tmp_path):
    write_appendix(bundle / "tables", tmp_path / "again", figures=False)
    for name in ("references.bib", "methods.tex", "appendix.tex"):
        assert (tmp_path / "again" / name).read_bytes() == (bundle / "out" / name).read_bytes(), name


# ----------------------------------------------------------------------------- CLI and atomic output
def test_cli_appendix_writes_atomically_and_fails_with_status_2(tmp_path, small_runs):
    from evalreport.cli import main

    src = Path(small_runs.sources[0].path).parent
    out = tmp_path / "app"
    rc = main(["appendix", str(src / "gold.tsv"), "--runs-dir", str(src / "runs"), "-o", str(out), "--bootstrap",
               "50", "--seed", "3", "--no-audit", "--quiet", "--primary", "accuracy"])
    assert rc == 0
    assert (out / "appendix.tex").is_file() and (out / "data" / "leaderboard.csv").is_file()
    assert "random seed 3" in (out / "methods.tex").read_text(encoding="utf-8")
    assert "Accuracy" in (out / "tables" / "leaderboard-column.tex").read_text(encoding="utf-8")
    before = sorted(p.relative_to(out) for p in out.rglob("*"))
    bad = tmp_path / "bad.tsv"
    bad.write_text("id\tlabel\nx1\n", encoding="utf-8")
    rc = main(["appendix", str(bad), "--runs-dir", str(src / "runs"), "-o", str(out), "--quiet"])
    assert rc == 2
    assert sorted(p.relative_to(out) for p in out.rglob("*")) == before      # nothing half-written
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
