"""The benchmark report: one report folder for several tasks ranked together.

Fast tests: the analyses written as tables (:func:`analyse_benchmark`) - the per-task tables are the
single-task ones (no second comparison), the benchmark tables round-trip with names that look
like formulas or markup, the overview's sentences are made from the tables, the task notebooks
are prepared as task sections. Slow tests (marked ``slow``, like tests/test_report.py): the demo
benchmark (6 tasks) and a 13-system x 2-task benchmark rendered to HTML and PDF with every part,
offline; ``evalreport render DIR`` re-renders a benchmark folder; the CLI's bad input exits 2
and writes nothing.
"""
from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import nbformat
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st

from evalreport.analyses.benchmark import BENCHMARK_TABLES
from evalreport.inputs.benchmark import benchmark_from_data
from evalreport.report.benchmark_build import analyse_benchmark
from evalreport.report.display import Chart, Note, Table
from evalreport.report.resources import notebooks_dir
from evalreport.report.sections import open_report

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

#: The overview's headings (benchmark.ipynb) and chart ids.
OVERVIEW = ("Benchmark findings", "Consensus leaderboard", "Critical-difference diagram", "Ranks per task",
            "Uncertainty of the consensus", "Pairwise tests and wins", "Participation and notes")
OVERVIEW_CHARTS = ("chart-consensus-methods", "chart-cd-diagram", "chart-task-ranks", "chart-rank-frequency",
                   "chart-consensus-distribution")


def _bench(systems=("alpha", "beta", "gamma", "delta"), tasks=("t1", "t2", "t3"), n=300, seed=0, drop=None):
    """A small in-memory benchmark of 3-class tasks: system s is right with a probability drawn per
    task, else says a random label; ``drop`` = (task, system) leaves a system out of a task."""
    from evalreport.inputs.runs import Runs

    rng = np.random.default_rng(seed)
    data = {}
    for t in tasks:
        gold = rng.integers(0, 3, n)
        skill = rng.uniform(0.4, 0.9, len(systems))
        pred = np.where(rng.random((len(systems), n)) < skill[:, None], gold, rng.integers(0, 3, (len(systems), n)))
        keep = [k for k, s in enumerate(systems) if not (drop and drop == (t, s))]
        data[t] = Runs(gold=gold, pred=pred[keep], labels=("a", "b", "c"), systems=tuple(systems[k] for k in keep),
                       ids=np.asarray([f"i{k}" for k in range(n)], dtype=object))
    return benchmark_from_data(data)


@pytest.fixture(scope="module")
def analysed(tmp_path_factory):
    tables = tmp_path_factory.mktemp("bench") / "tables"
    bench = _bench(drop=("t2", "delta"))
    done = analyse_benchmark(bench, tables, bootstrap=60, seed=3, audit=True)
    return bench, tables, done


def test_tables_are_written_once_each(analysed):
    bench, tables, done = analysed
    for name in BENCHMARK_TABLES:
        assert (tables / f"{name}.csv").is_file() and (tables / f"{name}.json").is_file(), name
    for name in ("report.json", "manifest.json", "measures.csv", "audit.csv"):
        assert (tables / name).is_file(), name
    for task, folder in done["comparison"].task_folders().items():
        sub = tables / "tasks" / folder
        for name in ("leaderboard.csv", "scores.json", "findings.csv", "prevalence.csv", "report.json"):
            assert (sub / name).is_file(), (task, name)
        assert json.loads((sub / "report.json").read_text())["task"] == task
        assert not (sub / "audit.csv").exists()      # one audit, at the top, for the union of the measures
    measures = json.loads((tables / "manifest.json").read_text())["measures"]
    audited = set(pd.read_csv(tables / "audit.csv")["measure"])
    assert set(measures) <= audited


def test_task_tables_are_the_single_task_comparison(analysed):
    """No second implementation: a task's tables equal compare() of that task alone (same seed)."""
    from evalreport.analyses.compare import compare

    bench, tables, done = analysed
    task = bench.task("t1")
    alone = compare(task.runs, measures=task.measures, primary=task.primary, bootstrap=60, seed=3)
    written = pd.read_csv(tables / "tasks" / "t1" / "leaderboard.csv", dtype={"system": str})
    assert list(written["system"]) == list(alone.leaderboard["system"])
    np.testing.assert_allclose(written["value"], alone.leaderboard["value"].astype(float))
    np.testing.assert_allclose(written["lo"], alone.leaderboard["lo"].astype(float))


def test_analyse_takes_the_computed_comparison(tmp_path, monkeypatch):
    """analyse(comparison=...) writes the given comparison and never compares again."""
    import importlib

    from evalreport.report.build import analyse

    compare_module = importlib.import_module("evalreport.analyses.compare")

    bench = _bench(tasks=("t1",))
    comp = compare_module.compare(bench.task("t1").runs, bootstrap=20, seed=0)

    def refuse(*a, **k):
        raise AssertionError("compare() called again")

    monkeypatch.setattr(compare_module, "compare", refuse)
    result = analyse(bench.task("t1").runs, tmp_path / "tables", bootstrap=20, seed=0, audit=False, comparison=comp)
    assert result["comparison"] is comp
    assert (tmp_path / "tables" / "leaderboard.csv").is_file()


def test_missing_system_is_named(analysed):
    bench, tables, done = analysed
    rep = open_report(tables)
    text = rep.benchmark_findings().text
    assert "delta" in text and "t2" in text and "drop" in text
    part = rep.participation_table()
    assert isinstance(part, Table) and list(part.df.index) == ["delta"]


def test_excluded_systems_leave_every_table(tmp_path):
    """missing="exclude": a system missing from one task is gone from every task's tables too."""
    bench = _bench(drop=("t2", "delta"))
    done = analyse_benchmark(bench, tmp_path / "tables", bootstrap=20, seed=0, missing_systems="exclude", audit=False)
    for folder in done["comparison"].task_folders().values():
        board = pd.read_csv(tmp_path / "tables" / "tasks" / folder / "leaderboard.csv", dtype={"system": str})
        assert set(board["system"]) == {"alpha", "beta", "gamma"}
        confusion = pd.read_csv(tmp_path / "tables" / "tasks" / folder / "confusion.csv", dtype={"system": str})
        assert set(confusion["system"]) == {"alpha", "beta", "gamma"}
    assert "exclude" in open_report(tmp_path / "tables").benchmark_findings().text


def test_findings_are_made_from_the_tables(analysed):
    bench, tables, done = analysed
    rep = open_report(tables)
    text = rep.benchmark_findings().text
    cons = pd.read_json(tables / "consensus.json", dtype=False)
    own = cons[cons["method"] == "mean_rank"].sort_values("rank")
    leader = own["system"].iloc[0]
    pf = pd.read_json(tables / "consensus_p_first.json", dtype=False)
    p = pf[(pf["method"] == "mean_rank") & (pf["system"] == leader)]["probability"].iloc[0]
    assert f"**{leader}** leads" in text and f"**{p:.2f}**" in text
    fr = pd.read_json(tables / "friedman.json", dtype=False).iloc[0]
    assert f"chi2_F = {fr['chi2_F']:.2f}" in text and f"F_F = {fr['F_F']:.2f}" in text


def test_every_overview_call_returns_one_display_object(analysed):
    bench, tables, done = analysed
    rep = open_report(tables)
    calls = [c.source.splitlines()[-1] for c in nbformat.read(notebooks_dir() / "benchmark.ipynb", 4).cells
             if c.cell_type == "code" and c.source.startswith("#| label:")]
    assert len(calls) >= 15
    for call in calls:
        shown = eval(call, {"rep": rep})      # the notebook's own calls, one per cell
        assert isinstance(shown, (Chart, Table, Note)), call
        if isinstance(shown, Chart):
            assert shown.spec                 # validated against the Vega-Lite schema when made


def test_consensus_table_lists_every_method_best_first(analysed):
    bench, tables, done = analysed
    table = open_report(tables).consensus_table().df
    assert {"Mean score", "Mean rank", "Median rank", "Borda", "Copeland", "Kemeny"} <= set(table.columns)
    assert list(table["Mean rank"]) == sorted(table["Mean rank"])
    assert set(table.index) == {"alpha", "beta", "gamma", "delta"}


def test_hostile_names_are_guarded_and_escaped(tmp_path):
    """Task and system names from the data: a formula start gets the CSV guard, the report shows
    them as written (JSON is raw) and the Markdown escapes them."""
    bench = _bench(systems=("=cmd|' /C calc'!A0", "*bold*", "<b>x</b>"), tasks=("=SUM(A1)", "[t](http://e.x)"),
                   n=200)
    done = analyse_benchmark(bench, tmp_path / "tables", bootstrap=20, seed=0, audit=False)
    csv = (tmp_path / "tables" / "task_ranks.csv").read_text()
    assert "'=SUM(A1)" in csv and "'=cmd" in csv
    rows = json.loads((tmp_path / "tables" / "task_ranks.json").read_text())
    assert {r["task"] for r in rows} == {"=SUM(A1)", "[t](http://e.x)"}
    rep = open_report(tmp_path / "tables")
    text = rep.benchmark_findings().text + rep.benchmark_notes().text
    assert r"\*bold\*" in text
    assert "*bold*" not in text.replace(r"\*bold\*", "") and "<b>" not in text and "](http" not in text
    assert set(rep.consensus_table().df.index) == set(bench.systems)
    assert done["comparison"].task_folders() == {"=SUM(A1)": "task_1", "[t](http://e.x)": "task_2"}


def test_wins_list_columns_round_trip(analysed):
    bench, tables, done = analysed
    csv = pd.read_csv(tables / "wins.csv", dtype={"system": str})
    for cell, won in zip(csv["tasks_won"], done["comparison"].wins["tasks_won"]):
        assert json.loads(cell) == list(won)


def test_task_notebook_is_prepared_as_a_section():
    from evalreport.report.task_sections import TaskReport, prepare_task_notebook

    src = nbformat.read(notebooks_dir() / "report.ipynb", 4)
    nb = prepare_task_notebook(src, task="en *x*", folder="en", intro="intro")
    assert nb.cells[0].source.startswith("## Task\\: en \\*x\\*")
    params = next(c for c in nb.cells if "parameters" in c.metadata.get("tags", []))
    assert 'tables = "../tables/tasks/en"' in params.source
    labels = re.findall(r"^#\| label: (\S+)$", "\n".join(c.source for c in nb.cells if c.cell_type == "code"), re.M)
    original = re.findall(r"^#\| label: (\S+)$", "\n".join(c.source for c in src.cells if c.cell_type == "code"), re.M)
    assert labels == [f"{x}-en" for x in original]
    headings = [line for c in nb.cells if c.cell_type == "markdown" for line in c.source.splitlines()
                if line.startswith("#")]
    assert headings[0].startswith("## ") and all(h.startswith("###") for h in headings[1:])
    assert src.cells[0].source.startswith('tables = "tables"')     # the source is left as it was

    class Fake:
        def chart(self):
            import altair as alt

            return Chart(alt.Chart(pd.DataFrame({"x": [1]})).mark_point(), name="leaderboard")

    assert TaskReport(Fake(), "task-en").chart().name == "task-en-leaderboard"


@given(st.lists(st.from_regex(r"[A-Za-z0-9][A-Za-z0-9._-]{0,30}", fullmatch=True), min_size=2, max_size=6,
                unique=True))
@settings(max_examples=200, deadline=None)
def test_task_prefixes_are_valid_and_distinct(folders):
    """Distinct task folders (bc.task_folders: safe file names) get distinct chart prefixes that make
    valid chart names ("a.b" and "a-b" included)."""
    from evalreport.report.display import _check_name
    from evalreport.report.task_sections import chart_prefixes

    prefixes = list(chart_prefixes(folders).values())
    assert len(set(prefixes)) == len(prefixes)
    for p in prefixes:
        _check_name(f"{p}-leaderboard")
    assert chart_prefixes(["a.b", "a-b", "a-b-2"]) == {"a.b": "task-a-b", "a-b": "task-a-b-2", "a-b-2": "task-a-b-2-2"}


# ----------------------------------------------------------------------------- rendered (slow)


class _Html(HTMLParser):
    def __init__(self):
        super().__init__()
        self.charts, self.headings, self._h = [], [], None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "div" and "vega-chart" in (a.get("class") or ""):
            self.charts.append(a.get("id"))
        if tag in ("h1", "h2", "h3"):
            self._h = ""

    def handle_data(self, data):
        if self._h is not None:
            self._h += data

    def handle_endtag(self, tag):
        if tag in ("h1", "h2", "h3") and self._h is not None:
            self.headings.append(" ".join(self._h.replace("¶", "").split()))    # (less its anchor link)
            self._h = None


def _cli(*args, timeout=1200):
    return subprocess.run([sys.executable, "-m", "evalreport", *map(str, args)], capture_output=True, text=True,
                          timeout=timeout)


@pytest.fixture(scope="module")
def report13x2(tmp_path_factory):
    """13 systems x 2 tasks (the benchmark demo's digits and wine), HTML + PDF, by the CLI."""
    from evalreport.examples import benchmark_demo_data, write_benchmark

    base = tmp_path_factory.mktemp("b13x2")
    tasks = write_benchmark(benchmark_demo_data(tasks=("digits", "wine")), base / "tasks")
    proc = _cli("benchmark", tasks, "-o", base / "report", "--bootstrap", "100", "--title", "13 x 2")
    assert proc.returncode == 0, proc.stderr[-3000:]
    return base / "report", proc


@pytest.fixture(scope="module")
def demo_report(tmp_path_factory):
    out = tmp_path_factory.mktemp("bdemo") / "report"
    proc = _cli("demo", "--benchmark", "-o", out, "--bootstrap", "50")
    assert proc.returncode == 0, proc.stderr[-3000:]
    return out, proc


def _check_report(out: Path, tasks, n_systems: int):
    from evalreport.report.output import check_offline

    html = (out / "report.html").read_text(encoding="utf-8")
    check_offline(html)                       # nothing loaded from the network or from beside the file
    parsed = _Html()
    parsed.feed(html)
    for heading in (*OVERVIEW, "Measure audit", "Appendix: definitions and provenance"):
        assert heading in parsed.headings, heading
    assert parsed.headings.index("Benchmark findings") < parsed.headings.index(f"Task: {tasks[0]}")
    for chart in OVERVIEW_CHARTS:
        assert chart in parsed.charts, chart
    assert len(parsed.charts) == len(set(parsed.charts))       # unique without renaming
    for task in tasks:
        assert f"Task: {task}" in parsed.headings
        assert f"chart-task-{task}-leaderboard" in parsed.charts
    manifest = json.loads((out / "notebooks" / "_evalreport.json").read_text())
    assert manifest["notebooks"][0] == "benchmark" and manifest["notebooks"][-1] == "appendix"
    assert manifest["notebook_parameters"][f"task-{tasks[0]}"] == {"tables": f"../tables/tasks/{tasks[0]}"}
    info = subprocess.run(["pdfinfo", str(out / "report.pdf")], capture_output=True, text=True).stdout
    pages = int(re.search(r"Pages:\s+(\d+)", info).group(1))
    assert pages >= 10 * len(tasks) // 2
    timings = json.loads((out / "tables" / "timings.json").read_text())
    assert any(k.startswith("comparing") for k in timings) and any(k.startswith("rendering") for k in timings)
    assert len(pd.read_json(out / "tables" / "consensus.json", dtype=False)["system"].unique()) == n_systems


@pytest.mark.slow
def test_13x2_renders_every_part(report13x2):
    out, proc = report13x2
    _check_report(out, ["digits", "wine"], 13)
    assert "comparing 13 systems on 2 tasks" in proc.stderr and "rendering" in proc.stderr
    assert not [p for p in out.parent.iterdir() if p.name.startswith(".")]


@pytest.mark.slow
def test_demo_benchmark_renders_every_part(demo_report):
    out, proc = demo_report
    _check_report(out, ["breast_cancer", "digits", "iris", "synthetic_easy", "synthetic_hard", "wine"], 13)
    assert (out / "data" / "digits" / "gold.tsv").is_file()
    inputs = json.loads((out / "tables" / "report.json").read_text())["provenance"]["inputs"]
    assert inputs and all(str(out / "data") in i["path"] for i in inputs)
    # the six tasks have different class sets: no pooled score, and the report says why
    pooled = open_report(out / "tables").pooled_table()
    assert isinstance(pooled, Note) and "different class sets" in pooled.text


@pytest.mark.slow
def test_render_rerenders_a_benchmark_folder(report13x2, tmp_path):
    out, _ = report13x2
    copy = tmp_path / "report"
    shutil.copytree(out, copy)
    before = json.loads((copy / "tables" / "consensus.json").read_text())
    proc = _cli("render", copy, "--execute", "--formats", "html")
    assert proc.returncode == 0, proc.stderr[-3000:]
    parsed = _Html()
    parsed.feed((copy / "report.html").read_text(encoding="utf-8"))
    assert "chart-task-digits-leaderboard" in parsed.charts and "chart-cd-diagram" in parsed.charts
    assert "Task: wine" in parsed.headings
    assert json.loads((copy / "tables" / "consensus.json").read_text()) == before     # the analyses did not run


def _tasks_folder(root: Path, spec: dict) -> Path:
    """task -> {system: labels}; gold labels a,b,a,b,..."""
    for task, runs in spec.items():
        (root / task / "runs").mkdir(parents=True)
        n = len(next(iter(runs.values())))
        gold = pd.DataFrame({"id": [f"i{k}" for k in range(n)], "label": ["a", "b"] * (n // 2)})
        gold.to_csv(root / task / "gold.tsv", sep="\t", index=False)
        for system, labels in runs.items():
            pd.DataFrame({"id": gold["id"], "label": labels}).to_csv(root / task / "runs" / f"{system}.tsv",
                                                                    sep="\t", index=False)
    return root


def test_cli_reads_a_benchmark_file_and_records_it(tmp_path):
    """--benchmark-file: per-task primary measure and weight from the file, options as defaults of
    every task; the file is recorded (with its SHA-256) among the report's sources."""
    import hashlib

    from evalreport.cli import build_parser
    from evalreport.cli.benchmark import _read, _recorded

    runs = {"A": ["a", "b", "a", "b"], "B": ["a", "a", "a", "b"]}
    _tasks_folder(tmp_path, {"t1": runs, "t2": runs})
    bench_file = tmp_path / "bench.toml"
    bench_file.write_text('[tasks.t1]\ngold = "t1/gold.tsv"\nruns = "t1/runs"\nprimary = "accuracy"\nweight = 2\n'
                          '[tasks.t2]\ngold = "t2/gold.tsv"\nruns = "t2/runs"\n', encoding="utf-8")
    args = build_parser().parse_args(["benchmark", "--benchmark-file", str(bench_file), "--primary", "mcc",
                                      "-o", str(tmp_path / "out")])
    bench = _read(args)
    assert [(t.name, t.primary, t.weight) for t in bench.tasks] == [("t1", "accuracy", 2.0), ("t2", "mcc", 1.0)]
    recorded = [s for s in _recorded(args) if s.role == "benchmark-file"]
    assert [s.sha256 for s in recorded] == [hashlib.sha256(bench_file.read_bytes()).hexdigest()]


@pytest.mark.parametrize("case, expected", [
    ("no_input", "give exactly one of"),
    ("no_runs", "t2"),
    ("case", "differ only in case"),
    ("inside", "holds"),
])
def test_cli_bad_input_exits_2_and_writes_nothing(tmp_path, case, expected):
    runs = {"A": ["a", "b", "a", "b"], "B": ["a", "a", "a", "b"]}
    root = _tasks_folder(tmp_path / "tasks", {"t1": runs, "t2": runs})
    out = tmp_path / "out"
    args = ["benchmark", root, "-o", out, "--bootstrap", "0", "--no-audit"]
    if case == "no_input":
        args = ["benchmark", "-o", out]
    elif case == "no_runs":
        shutil.rmtree(root / "t2" / "runs")
    elif case == "case":
        (root / "t2" / "runs" / "A.tsv").rename(root / "t2" / "runs" / "a.tsv")
    elif case == "inside":
        out = root
        args = ["benchmark", root, "-o", out, "--bootstrap", "0"]
    before = sorted(p.name for p in tmp_path.rglob("*"))
    proc = _cli(*args, timeout=300)
    assert proc.returncode == 2, proc.stderr
    errors = [line for line in proc.stderr.splitlines() if line.startswith("evalreport: error:")]
    assert len(errors) == 1 and expected in errors[0], proc.stderr
    assert "Traceback" not in proc.stderr
    assert sorted(p.name for p in tmp_path.rglob("*")) == before     # nothing written


@pytest.mark.parametrize("shape", ["one system in common", "one task", "two systems"])
def test_every_overview_call_survives_degenerate_benchmarks(tmp_path, shape):
    """No Friedman test (fewer than two systems in every task, or one task), or the smallest case:
    every section still returns one display object (a Note saying why, where a test cannot run)."""
    from evalreport.inputs.benchmark import benchmark_from_data
    from evalreport.inputs.runs import Runs

    rng = np.random.default_rng(1)
    if shape == "one system in common":
        spec = {"t1": ("alpha", "beta"), "t2": ("alpha", "gamma")}
    elif shape == "one task":
        spec = {"t1": ("alpha", "beta", "gamma")}
    else:
        spec = {"t1": ("alpha", "beta"), "t2": ("alpha", "beta")}
    data = {}
    for t, systems in spec.items():
        gold = rng.integers(0, 3, 120)
        pred = np.where(rng.random((len(systems), 120)) < 0.7, gold, rng.integers(0, 3, (len(systems), 120)))
        data[t] = Runs(gold=gold, pred=pred, labels=("a", "b", "c"), systems=systems,
                       ids=np.asarray([f"i{k}" for k in range(120)], dtype=object))
    tables = tmp_path / "tables"
    analyse_benchmark(benchmark_from_data(data), tables, bootstrap=30, seed=0, audit=False)
    rep = open_report(tables)
    calls = [c.source.splitlines()[-1] for c in nbformat.read(notebooks_dir() / "benchmark.ipynb", 4).cells
             if c.cell_type == "code" and c.source.startswith("#| label:")]
    for call in calls:
        assert isinstance(eval(call, {"rep": rep}), (Chart, Table, Note)), call
