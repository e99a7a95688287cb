"""The report end to end: `evalreport demo` with the builtin engine, offline HTML + PDF.

The demo report is built once per test session (about 30 s on 2 cores) and inspected by the
tests below: offline HTML (no http(s) script/stylesheet/image), every chart's spec present and
the Vega bundle inlined once, every section there, a PDF with pages and images, the tables
behind the report as CSV and JSON, and (where Debian's chromium is installed) every chart drawn
in a headless browser.
"""
from __future__ import annotations

import ast
import hashlib
import json
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pandas as pd
import pytest

from evalreport.report.resources import notebooks_dir
from evalreport.report.write import write_comparison

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

SECTIONS = ("Overview", "Leaderboard", "Every measure", "Agreement between measures",
            "Prevalence-calibrated comparison", "Per-class view", "Chance baselines", "Rank uncertainty",
            "Measure audit", "Cross-validation", "Appendix: definitions and provenance")


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    out = tmp_path_factory.mktemp("demo") / "report"
    proc = subprocess.run([sys.executable, "-m", "evalreport", "demo", "-o", str(out), "--bootstrap", "200"],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return out, proc


class _Refs(HTMLParser):
    def __init__(self):
        super().__init__()
        self.remote, self.charts, self.headings, self.scripts = [], [], [], 0
        self._in_h = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        for key in ("src", "href"):
            v = a.get(key) or ""
            if tag in ("script", "link", "img", "iframe") and v.startswith(("http://", "https://", "//")):
                self.remote.append((tag, v))
        if tag == "div" and "vega-chart" in (a.get("class") or ""):
            self.charts.append(a.get("id"))
        if tag == "script":
            self.scripts += 1
        if tag in ("h1", "h2"):
            self._in_h = ""

    def handle_data(self, data):
        if self._in_h is not None:
            self._in_h += data

    def handle_endtag(self, tag):
        if tag in ("h1", "h2") and self._in_h is not None:
            self.headings.append(self._in_h.strip())
            self._in_h = None


def test_demo_writes_every_output(demo):
    out, proc = demo
    for name in ("report.html", "report.pdf", "notebooks/report.ipynb", "notebooks/appendix.ipynb",
                 "tables/scores.csv", "tables/scores.json", "tables/report.json", "data/gold.tsv"):
        assert (out / name).exists(), name
    # progress was shown on stderr, stage by stage
    assert "comparing 8 systems" in proc.stderr and "rendering" in proc.stderr
    # no staging folder left next to the output
    assert not [p for p in out.parent.iterdir() if p.name.startswith(".")]


def test_html_is_offline_and_complete(demo):
    out, _ = demo
    text = (out / "report.html").read_text(encoding="utf-8")
    refs = _Refs()
    refs.feed(text)
    assert refs.remote == []
    assert len(refs.charts) >= 10
    # every chart's spec is in the page, and the Vega bundle is inlined exactly once
    assert text.count('"$schema": "https://vega.github.io/schema/vega-lite') + text.count(
        '"$schema":"https://vega.github.io/schema/vega-lite') >= len(refs.charts)
    assert text.count("vegaEmbed=") + text.count("vegaEmbed =") <= 2
    for section in SECTIONS:
        assert any(h.startswith(section) for h in refs.headings), (section, refs.headings)


def test_pdf_has_pages_and_images(demo):
    out, _ = demo
    pdf = (out / "report.pdf").read_bytes()
    assert pdf.startswith(b"%PDF")
    if shutil.which("pdfinfo") is None or shutil.which("pdfimages") is None:
        assert pdf.count(b"/Subtype /Image") + pdf.count(b"/Subtype/Image") >= 5
        pytest.skip("poppler-utils not installed: checked the PDF bytes only")
    info = subprocess.run(["pdfinfo", str(out / "report.pdf")], capture_output=True, text=True).stdout
    pages = int(next(line.split()[-1] for line in info.splitlines() if line.startswith("Pages:")))
    assert pages >= 8
    images = subprocess.run(["pdfimages", "-list", str(out / "report.pdf")], capture_output=True, text=True).stdout
    charts = len(images.strip().splitlines()) - 2
    if charts == 0 and shutil.which("pdftotext") and shutil.which("pdffonts"):
        # SVG charts are text and paths, no image: count the captioned figures (a figure is made only
        # around a chart's image) and see the charts' font in the PDF
        import re

        text = subprocess.run(["pdftotext", str(out / "report.pdf"), "-"], capture_output=True, text=True).stdout
        charts = len(set(re.findall(r"^Figure (\d+):", text, re.MULTILINE)))
        used = subprocess.run(["pdffonts", str(out / "report.pdf")], capture_output=True, text=True).stdout
        assert "LiberationSans" in used
    assert charts >= 10


def test_tables_behind_the_report(demo):
    out, _ = demo
    t = out / "tables"
    scores = pd.read_csv(t / "scores.csv")
    assert {"system", "measure", "value", "calibrated"} <= set(scores.columns)
    assert set(scores["calibrated"]) == {True, False}
    ranks = pd.read_csv(t / "ranks.csv")
    assert {"system", "measure", "rank", "calibrated"} <= set(ranks.columns)
    assert {"measure_a", "measure_b", "method", "value"} <= set(pd.read_csv(t / "rank_correlation.csv").columns)
    assert {"system", "measure", "value", "lo", "hi"} <= set(pd.read_csv(t / "intervals.csv").columns)
    audit = pd.read_csv(t / "audit.csv", keep_default_na=False)
    assert set(audit["verdict"]) <= {"satisfied", "violated", "n/a"} and len(audit) > 0
    meta = json.loads((t / "report.json").read_text())
    assert meta["seed"] == 0 and meta["bootstrap"] == 200
    assert meta["provenance"]["versions"]["numpy"]
    hashes = {Path(i["path"]).name: i["sha256"] for i in meta["provenance"]["inputs"]}
    # the demo's inputs are recorded where the report keeps them (OUT/data), with their hashes
    for i in meta["provenance"]["inputs"]:
        assert Path(i["path"]).resolve().is_relative_to((out / "data").resolve()), i["path"]
        assert hashlib.sha256(Path(i["path"]).read_bytes()).hexdigest() == i["sha256"]
    assert "gold.tsv" in hashes and all(len(h) == 64 for h in hashes.values())
    # the demo's positive class is the rarest (3 items per fold): the estimators of Forman & Scholz (2010)
    # part ways, the ones that drop undefined folds (F~) above the pooled F_tp,fp for a system with such folds
    cv = pd.read_csv(t / "cv_summary.csv").set_index("system")
    assert {"F_tp,fp", "F_avg", "F~_avg", "F_pr,re", "F~_pr,re", "AUC_avg", "AUC_merge"} <= set(cv.columns)
    assert (cv["F~_avg"] > cv["F_tp,fp"] + 0.1).any()
    # macro recall and K (Sebastiani 2015, eq. 10: an affine function of it) rank alike by construction
    ident = pd.read_csv(t / "identities.csv")
    assert {"macro_recall", "k"} <= set(ident[ident.relation == "same order"].measure)
    # the demo shows measures disagreeing: some pair of measures orders some systems differently
    assert (pd.read_csv(t / "inconsistency.csv")["discordant"] > 0).any()


def test_same_inputs_and_seed_give_the_same_numbers(tmp_path):
    from evalreport.examples import load_demo
    from evalreport.report.build import analyse

    runs = load_demo(tmp_path / "data")
    a, b = tmp_path / "a", tmp_path / "b"
    for target in (a, b):
        target.mkdir()
        analyse(runs, target / "tables", bootstrap=60, seed=3, audit=False)
    for name in ("scores", "intervals", "rank_distribution", "pairwise", "baselines"):
        pd.testing.assert_frame_equal(pd.read_csv(a / "tables" / f"{name}.csv"),
                                      pd.read_csv(b / "tables" / f"{name}.csv"))


def test_failure_leaves_no_half_written_report(tmp_path):
    from evalreport.errors import MeasureError
    from evalreport.examples import load_demo
    from evalreport.report.build import build_report

    runs = load_demo(tmp_path / "data")
    out = tmp_path / "out"
    with pytest.raises(MeasureError):
        build_report(runs, out, primary="no_such_measure", bootstrap=0, progress=False)
    assert not out.exists()
    assert [p.name for p in tmp_path.iterdir()] == ["data"]


def test_report_cli_bad_input_exits_2_without_output(tmp_path):
    gold = tmp_path / "gold.tsv"
    gold.write_text("id\tlabel\n1\ta\n2\tb\n")
    run = tmp_path / "sys.tsv"
    run.write_text("id\tlabel\n1\ta\n3\tb\n")  # id 3 is not in gold
    out = tmp_path / "out"
    proc = subprocess.run([sys.executable, "-m", "evalreport", "report", str(gold), str(run), "-o", str(out)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    assert "sys.tsv" in proc.stderr and "line 3" in proc.stderr
    assert not out.exists()


def test_notebooks_are_thin():
    """A notebook holds a parameters cell and single-call cells: no definitions, loops or branches."""
    for path in sorted(notebooks_dir().glob("*.ipynb")):
        book = json.loads(path.read_text(encoding="utf-8"))
        code = [c for c in book["cells"] if c["cell_type"] == "code"]
        assert "parameters" in code[0]["metadata"].get("tags", []), path.name
        for cell in code[1:]:
            tree = ast.parse("".join(cell["source"]))
            for node in ast.walk(tree):
                assert not isinstance(node, (ast.FunctionDef, ast.ClassDef, ast.For, ast.While, ast.If, ast.With,
                                             ast.ListComp, ast.Lambda)), (path.name, cell["source"])
            assert len(tree.body) <= 2, (path.name, cell["source"])


@pytest.mark.slow
def test_every_chart_draws_in_a_browser(demo, tmp_path):
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        pytest.skip("Debian's chromium is not installed (apt-get install chromium); .ci/run installs it")
    out, _ = demo
    dom = subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                          "--disable-component-update", "--disable-sync", "--no-first-run",
                          f"--user-data-dir={tmp_path / 'profile'}", "--virtual-time-budget=20000", "--dump-dom",
                          (out / "report.html").as_uri()], capture_output=True, text=True, timeout=180).stdout
    refs = _Refs()
    refs.feed((out / "report.html").read_text(encoding="utf-8"))
    # each chart container of the page holds a drawn Vega view (svg or canvas with class marks)
    chunks = dom.split('class="vega-chart')[1:]
    assert len(chunks) == len(refs.charts)
    drawn = [("marks" in chunk.split('class="vega-chart')[0][:200000]) for chunk in chunks]
    assert all(drawn), f"{drawn.count(False)} of {len(drawn)} charts did not draw"


def _cli(*argv, timeout=300):
    return subprocess.run([sys.executable, "-m", "evalreport", *map(str, argv)], capture_output=True, text=True,
                          timeout=timeout)


def test_report_with_a_positive_class_and_stated_needs(tmp_path):
    """--positive adds the binary measures; --needs goesgens.CB (the README's form) names the
    measures whose audit verdict is 'satisfied' for CB in the data's setting."""
    from evalreport.examples import load_demo

    load_demo(tmp_path / "data")
    out = tmp_path / "out"
    proc = _cli("report", tmp_path / "data" / "gold.tsv", "--runs-dir", tmp_path / "data" / "runs", "-o", out,
                "--positive", "one", "--needs", "goesgens.CB", "--measures", "mcc,kappa,macro_f1,f1",
                "--bootstrap", "0", "--format", "html", "--quiet")
    assert proc.returncode == 0, proc.stderr[-2000:]
    audit = pd.read_csv(out / "tables" / "audit.csv")
    cb = audit[(audit.property == "CB") & (audit.setting == "multiclass")].set_index("measure").verdict
    assert cb["mcc"] == cb["kappa"] == "satisfied" and cb["macro_f1"] == "violated"
    html = (out / "report.html").read_text(encoding="utf-8")
    fit = html[html.index("satisfy every stated need"):][:400]
    assert "goesgens.CB" in fit and "<code>mcc</code>" in fit and "<code>kappa</code>" in fit
    assert "macro_f1" not in fit and "none." not in fit
    assert "f1" in set(pd.read_csv(out / "tables" / "scores.csv").measure)


def test_unknown_needs_and_needs_without_audit_exit_2(tmp_path):
    from evalreport.examples import load_demo

    load_demo(tmp_path / "data")
    args = ["report", tmp_path / "data" / "gold.tsv", "--runs-dir", tmp_path / "data" / "runs", "-o", tmp_path / "o"]
    bad = _cli(*args, "--needs", "goesgens.XYZ")
    assert bad.returncode == 2 and "'goesgens.XYZ' is unknown" in bad.stderr
    off = _cli(*args, "--needs", "CB", "--no-audit")
    assert off.returncode == 2 and "--no-audit" in off.stderr
    assert not (tmp_path / "o").exists()


def test_an_output_folder_holding_the_inputs_is_refused(tmp_path):
    """`evalreport demo` writes its inputs inside its own output: pointing compare/report at that
    folder must not delete them (it used to: the folder carries evalreport's marker)."""
    from evalreport._atomic import MARKER
    from evalreport.analyses.compare import compare
    from evalreport.errors import OutputError
    from evalreport.examples import load_demo
    from evalreport.report.build import build_report

    out = tmp_path / "out"
    runs = load_demo(out / "data")
    (out / MARKER).write_text("")
    before = sorted(p.relative_to(out) for p in out.rglob("*"))
    gold, runs_dir = out / "data" / "gold.tsv", out / "data" / "runs"
    for command in (["compare", gold, "--runs-dir", runs_dir, "--out", out],
                    ["report", gold, "--runs-dir", runs_dir, "-o", out]):
        proc = _cli(*command, "--bootstrap", "0")
        assert proc.returncode == 2 and "holds the input" in proc.stderr, proc.stderr[-2000:]
    with pytest.raises(OutputError, match="holds the input"):
        build_report(runs, out, bootstrap=0, progress=False)
    with pytest.raises(OutputError, match="holds the input"):
        write_comparison(compare(runs, bootstrap=0), out, inputs=[gold])
    assert sorted(p.relative_to(out) for p in out.rglob("*")) == before


def test_every_chart_of_the_report_validates(demo):
    """The report's kernel does not validate charts (it saves about 1 s); here every chart cell of every
    notebook of the demo report is called with its tables and its spec checked against the schema."""
    from evalreport.report.sections import open_report
    from tests.test_chart_validation import assert_every_chart_validates

    out, _ = demo
    rep = open_report(out / "tables")
    n = sum(assert_every_chart_validates(rep, nb) for nb in ("report", "audit", "crossval", "appendix"))
    assert n >= 12
