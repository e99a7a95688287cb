"""Scale and a new user's friction: 200-system charts (Altair's row limit),
errors that name a notebook the user can open, megabyte class labels, `measures` ids never cut and
filtered, `cv`'s default output, the README's `--needs` example, `report --formats`, the venv step."""
import csv
import io
import json
import re
import time
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from evalreport import charts
from evalreport.cli import build_parser, main

ROOT = Path(__file__).resolve().parents[1]
MEASURES = ["accuracy", "macro_f1", "macro_recall", "macro_precision", "mcc", "kappa", "k", "sba", "jaccard_macro",
            "weighted_f1", "gm1_macro", "mcc_macro", "confusion_entropy", "macro_f1_hm", "gmean_recall",
            "hmean_recall"]


def _run(argv):
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


# ------------------------------------------------------------------------------------------------
# (1) 200 systems: every chart carries its data (Altair's 5,000-row limit lifted by use_theme)


def _systems(n):
    return [f"system_{i:03d}" for i in range(n)]


def test_charts_of_200_systems_carry_all_their_rows():
    charts.use_theme()
    rng = np.random.default_rng(0)
    systems = _systems(200)
    from evalreport.measures import catalogue_frame

    measures = list(catalogue_frame()["id"][:36])         # 7,200 cells, as in a 200-system report
    scores = pd.DataFrame([(s, m, rng.random()) for s in systems for m in measures],
                          columns=["system", "measure", "value"])
    ranks = scores.assign(rank=scores.groupby("measure")["value"].rank(ascending=False))
    pairs = pd.DataFrame([(a, b, "macro_f1", "bootstrap", rng.random()) for i, a in enumerate(systems)
                          for b in systems[i + 1:]], columns=["system_a", "system_b", "measure", "test", "p_holm"])
    built = {
        "pvalue_heatmap": (charts.pvalue_heatmap(pairs, measure="macro_f1", test="bootstrap"), 200 * 199),
        "rank_heatmap": (charts.rank_heatmap(ranks), len(ranks)),
    }
    for name, (chart, rows) in built.items():
        assert rows > 5000
        spec = chart.to_dict()          # MaxRowsError here before the fix
        datasets = spec.get("datasets", {})
        assert max(len(v) for v in datasets.values()) == rows, name


def test_use_theme_lifts_the_row_limit_keeping_the_transformer():
    import altair as alt

    charts.use_theme()
    assert alt.data_transformers.active == "default" and alt.data_transformers.options.get("max_rows") is None
    alt.Chart(pd.DataFrame({"x": np.arange(7187)})).mark_point().encode(x="x:Q").to_dict()


def test_a_failing_notebook_is_named_where_the_user_can_open_it(tmp_path, monkeypatch):
    """A cell error of a report names a copy of the partly executed notebook (with the tables it read)
    beside the output: the staging folder it ran in is gone by the time the user reads the message.
    The message is one line even when the exception's text is not (MaxRowsError runs to ten)."""
    import nbformat

    from evalreport._atomic import atomic_dir
    from evalreport.report import build, resources
    from evalreport.report.build import Stages
    from evalreport.report.render import RenderError

    books = tmp_path / "books"
    books.mkdir()
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("tables = 'x'", metadata={"tags": ["parameters"]}),
                nbformat.v4.new_code_cell("raise ValueError('The number of rows (7187) is too many.\\n\\n"
                                          "Try enabling the VegaFusion data transformer')")]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, str(books / "boom.ipynb"))
    monkeypatch.setattr(resources, "notebooks_dir", lambda: books)
    out = tmp_path / "report"
    with pytest.raises(RenderError) as caught:
        with atomic_dir(out) as staging:
            (staging / "tables").mkdir()
            (staging / "tables" / "scores.csv").write_text("system,measure,value\n")
            build.execute_and_render(staging, ["boom"], title="t", formats=("html",), engine="builtin",
                                      stages=Stages(False), subtitle="")
    message = str(caught.value)
    assert "\n" not in message and "7187" in message and "VegaFusion" not in message
    named = Path(re.search(r"partly executed notebook: (.+?\.ipynb)\)", message).group(1))
    assert named.is_file() and named.parent.parent.name.startswith("report.failed-")
    assert named.parent.parent.parent == tmp_path                     # beside the output, visible
    assert (named.parent.parent / "tables" / "scores.csv").is_file()   # the notebook's ../tables
    assert not list(tmp_path.glob(".report.*.tmp")) and not out.exists()


# ------------------------------------------------------------------------------------------------
# (2) megabyte labels: charts carry a short display text (full text in the tables), and render fast


BIG = "L" + "x" * (1 << 20)
BIG2 = "L" + "x" * (1 << 20) + "y"          # the same beginning: must stay a different name


def test_display_text_is_short_unique_and_stable():
    a, b = charts.display_text(BIG), charts.display_text(BIG2)
    assert len(a) <= charts.MAX_TEXT and len(b) <= charts.MAX_TEXT and a != b
    assert a == charts.display_text(BIG) and a.startswith("Lxxx") and "…" in a
    assert charts.display_text("class_a") == "class_a" and charts.display_text(3) == 3


def test_charts_of_megabyte_labels_are_small_and_render_quickly():
    import vl_convert as vlc

    charts.use_theme()
    labels = ["a", BIG, BIG2]
    systems = ["s1", "s" + "y" * (1 << 20)]
    prevalence = pd.DataFrame({"class": labels, "count": [5, 3, 2], "share": [0.5, 0.3, 0.2]})
    per_class = pd.DataFrame([(s, c, m, 0.5) for s in systems for c in labels for m in ("recall", "precision", "f1")],
                             columns=["system", "class", "metric", "value"])
    confusion = pd.DataFrame([(s, g, p, 1, 0.3) for s in systems for g in labels for p in labels],
                             columns=["system", "gold", "predicted", "count", "rate"])
    intervals = pd.DataFrame({"system": systems, "measure": "macro_f1", "value": [0.4, 0.6], "lo": [0.3, 0.5],
                              "hi": [0.5, 0.7]})
    baselines = pd.DataFrame({"measure": "macro_f1", "baseline": ["constant:" + BIG, "majority"], "value": [0.1, 0.2]})
    built = [charts.prevalence_bar(prevalence), charts.per_class_heatmap(per_class),
             charts.confusion_grid(confusion, systems=systems),      # the full names select the panels
             charts.leaderboard_intervals(intervals, measure="macro_f1", baselines=baselines, show_baselines=None)]
    for chart in built:
        spec = chart.to_dict()
        text = json.dumps(spec)
        assert len(text) < 100_000 and "x" * 200 not in text
        started = time.perf_counter()
        vlc.vegalite_to_svg(spec)           # hung for minutes on the full labels
        assert time.perf_counter() - started < 20
    grid = json.dumps(built[2].to_dict(), ensure_ascii=False)
    assert charts.display_text(BIG) in grid and charts.display_text(BIG2) in grid


@pytest.mark.slow
def test_report_with_a_megabyte_label_finishes(tmp_path):
    """End to end (html): a class label of 1 MB hung the first notebook for over 300 s."""
    import subprocess
    import sys

    rng = np.random.default_rng(0)
    labels = ["a", "b", BIG]
    y = rng.integers(0, 3, 60)
    (tmp_path / "runs").mkdir()
    (tmp_path / "gold.tsv").write_text("id\tlabel\n" + "".join(f"{i}\t{labels[k]}\n" for i, k in enumerate(y)))
    for s in range(3):
        pred = np.where(rng.random(60) < 0.7, y, rng.integers(0, 3, 60))
        (tmp_path / "runs" / f"s{s}.tsv").write_text(
            "id\tlabel\n" + "".join(f"{i}\t{labels[k]}\n" for i, k in enumerate(pred)))
    out = tmp_path / "out"
    proc = subprocess.run([sys.executable, "-m", "evalreport", "report", str(tmp_path / "gold.tsv"), "--runs-dir",
                           str(tmp_path / "runs"), "-o", str(out), "--no-audit", "--bootstrap", "0", "--formats",
                           "html", "--engine", "builtin", "--quiet"], capture_output=True, text=True, timeout=150)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert BIG in set(pd.read_csv(out / "tables" / "prevalence.csv")["class"])      # the full text in the CSV
    assert (out / "report.html").stat().st_size < 5_000_000


# ------------------------------------------------------------------------------------------------
# (3) `evalreport measures`: ids never cut; PATTERN filters


def _ids():
    from evalreport.measures import catalogue_frame

    frame = catalogue_frame()
    aliases = [a.strip() for v in frame["aliases"].fillna("") for a in v.split(",") if a.strip()]
    return list(frame["id"]), aliases


def test_measures_in_a_pipe_is_plain_text_with_every_id_whole():
    code, out, _ = _run(["measures"])
    ids, aliases = _ids()
    lines = out.splitlines()
    assert code == 0 and "…" not in out and "┃" not in out and "│" not in out
    assert [line.split()[0] for line in lines[1:]] == ids           # one line per measure, id first
    for alias in aliases:
        assert re.search(rf"(^|[ ,]){re.escape(alias)}(,|$)", out, re.M), alias


@pytest.mark.parametrize("width", [80, 120])
def test_measures_on_a_terminal_never_cut_an_id(width):
    from evalreport.cli.measures import COLUMNS, print_table
    from evalreport.measures import catalogue_frame

    buf = io.StringIO()
    print_table(catalogue_frame(), list(COLUMNS), file=buf, terminal=True, width=width)
    text = re.sub(r"\x1b\[[0-9;]*m", "", buf.getvalue())
    ids, aliases = _ids()
    words = set(re.findall(r"[\w'~]+", text))
    assert "…" not in text
    assert not [i for i in ids + aliases if i not in words]


def test_measures_pattern_filters_by_id_alias_or_label():
    code, out, _ = _run(["measures", "macro", "--format", "csv"])
    rows = list(csv.DictReader(io.StringIO(out)))
    assert code == 0 and "macro_f1" in {r["id"] for r in rows} and "accuracy" not in {r["id"] for r in rows}
    assert all("macro" in (r["id"] + r["aliases"] + r["label"]).lower() for r in rows)
    code, out, _ = _run(["measures", "MICRO_F1", "--format", "csv"])       # an alias, any case
    assert code == 0 and [r["id"] for r in csv.DictReader(io.StringIO(out))] == ["accuracy"]
    code, out, _ = _run(["measures", "f1*"])                               # a glob on ids and aliases
    got = [line.split()[0] for line in out.splitlines()[1:]]
    assert code == 0 and {"f1", "accuracy", "macro_f1"} <= set(got) and "balanced_accuracy" not in got  # f1_macro
    code, out, err = _run(["measures", "no-such-measure"])
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1 and "no-such-measure" in err


# ------------------------------------------------------------------------------------------------
# (4) `cv`: the five F estimators (and AUC) by default, everything behind --all


@pytest.fixture()
def folds(tmp_path):
    rng = np.random.default_rng(1)
    n = 120
    gold = rng.choice(["neg", "pos", "mid"], size=n, p=[0.6, 0.25, 0.15])
    fold = np.arange(n) % 5
    (tmp_path / "gold.tsv").write_text("id\tlabel\tfold\n" + "".join(f"i{k}\t{gold[k]}\tf{fold[k]}\n" for k in range(n)))
    runs = []
    for name, noise in (("good", 0.3), ("fair", 0.8), ("poor", 1.6)):
        score = (gold == "pos") + rng.normal(scale=noise, size=n)
        pred = np.where(score > 0.5, "pos", np.where(rng.random(n) < 0.7, gold, "neg"))
        pred = np.where((gold == "pos") & (pred != "pos"), "neg", pred)
        p = tmp_path / f"{name}.tsv"
        p.write_text("id\tlabel\tscore\n" + "".join(f"i{k}\t{pred[k]}\t{score[k]:.5f}\n" for k in range(n)))
        runs.append(str(p))
    return [str(tmp_path / "gold.tsv"), *runs]


def test_cv_prints_the_f_estimators_and_auc_by_default(folds):
    code, out, _ = _run(["cv", *folds, "--positive", "pos"])
    assert code == 0 and len(out.splitlines()) < 40
    for column in ("F_tp,fp", "F_avg", "F~_avg", "F_pr,re", "F~_pr,re", "AUC_avg", "AUC_merge"):
        assert column in out
    assert "--all" in out and "Recommendation" in out and "macro_f1" not in out
    code, out, _ = _run(["cv", *folds, "--positive", "pos", "--format", "csv"])
    frame = pd.read_csv(io.StringIO(out))
    assert code == 0 and list(frame["system"]) == ["good", "fair", "poor"]
    assert {"F_tp,fp", "F~_pr,re", "AUC_avg", "AUC_merge"} <= set(frame.columns)


def test_cv_all_gives_every_measure_under_every_aggregation(folds):
    code, short, _ = _run(["cv", *folds, "--positive", "pos", "--format", "csv"])
    code_all, full, _ = _run(["cv", *folds, "--positive", "pos", "--all", "--format", "csv"])
    frame = pd.read_csv(io.StringIO(full))
    assert code == code_all == 0 and frame["measure"].nunique() > 30
    assert {"system", "measure", "aggregation", "value"} <= set(frame.columns)
    code, table, _ = _run(["cv", *folds, "--positive", "pos", "--all"])
    assert code == 0 and "macro_f1" in table and len(table.splitlines()) > 100


def test_cv_without_positive_shows_the_headline_measures_and_says_how_to_get_more(folds):
    code, out, _ = _run(["cv", *folds, "--format", "csv"])
    frame = pd.read_csv(io.StringIO(out))
    assert code == 0 and set(frame["measure"]) <= {"accuracy", "balanced_accuracy", "macro_f1", "mcc", "k"}
    code, out, _ = _run(["cv", *folds])
    assert code == 0 and "--positive" in out and "--all" in out and len(out.splitlines()) < 45


# ------------------------------------------------------------------------------------------------
# (5) the documented --needs example has an answer on the demo; CB + Mon has none, for a stated reason


def _needs_section():
    text = (ROOT / "docs" / "report.md").read_text(encoding="utf-8")
    start = text.index("## Which measures have the properties you need")
    return text[start:text.index("\n## ", start)]


def _fit(needs, tmp_path):
    """The report's answer to --needs, through the report's own code, on the audit of the measures a
    report of the demo's files (six classes, no --positive) has."""
    from evalreport.analyses.audit import audit
    from evalreport.analyses.compare import comparison_measures
    from evalreport.report.sections import open_report

    measures = comparison_measures(positive=None, costs=None, primary="mcc")
    tables = tmp_path / "tables"
    tables.mkdir(exist_ok=True)
    audit(measures, properties=list(needs), max_n=6, seed=0).to_csv(tables / "audit.csv", index=False)
    (tables / "report.json").write_text(json.dumps({"needs": list(needs), "n_classes": 6, "primary": "mcc"}))
    (tables / "manifest.json").write_text(json.dumps({"primary": "mcc", "measures": measures}))
    return open_report(tables).audit_fit().text


def test_readme_needs_example_names_measures(tmp_path):
    needs = re.search(r"--needs (\S+)", _needs_section().split("```bash")[1]).group(1).split(",")
    answer = _fit(needs, tmp_path)
    assert "none." not in answer
    for m in ("`kappa`", "`mcc`", "`gm1_macro`"):
        assert m in answer
    assert "Cohen's kappa, MCC and GM_1 (macro)" in " ".join(_needs_section().split())


def test_cb_and_mon_answer_none_because_a_class_can_be_absent(tmp_path):
    """No multi-class measure has both on every matrix: SBA (Gösgens et al. 2021: both) loses CB when a class is
    absent from the gold labels, MCC and kappa lose Mon; the README says so."""
    from evalreport.analyses.audit import audit

    assert "none." in _fit(["goesgens.CB", "goesgens.Mon"], tmp_path)
    au = audit(["sba", "mcc", "kappa"], properties=["goesgens.CB", "goesgens.Mon"], max_n=5, seed=0)
    multi = au[au["setting"] == "multiclass"].set_index(["measure", "property"])
    assert multi.loc[("sba", "CB"), "verdict"] == "violated" and "every class occurs" in multi.loc[("sba", "CB"), "detail"]
    assert multi.loc[("mcc", "Mon"), "verdict"] == multi.loc[("kappa", "Mon"), "verdict"] == "violated"
    # the documented sentence, both halves: every class in the gold labels (the demo) vs a class absent
    assert ('`--needs goesgens.CB,goesgens.Mon` answers MCC and GM_1 (macro) on the demo and none on data where a '
            'class is absent from the gold labels') in " ".join(_needs_section().split())
    tables = tmp_path / "tables"
    pd.DataFrame({"class": [f"c{k}" for k in range(6)], "count": [5] * 6}).to_csv(tables / "prevalence.csv",
                                                                                 index=False)
    from evalreport.report.sections import open_report

    demo_like = open_report(tables).audit_fit().text
    assert "`mcc`" in demo_like and "`gm1_macro`" in demo_like and "none." not in demo_like
    pd.DataFrame({"class": [f"c{k}" for k in range(6)], "count": [5] * 5 + [0]}).to_csv(tables / "prevalence.csv",
                                                                                      index=False)
    assert "none." in open_report(tables).audit_fit().text


# ------------------------------------------------------------------------------------------------
# (6) report --formats html,pdf; --format a hidden, deprecated alias


@pytest.mark.parametrize("command", [["report", "g.tsv"], ["demo"], ["simulate"]])
def test_report_formats_option_and_its_deprecated_alias(command, capsys):
    from evalreport.cli.report import _formats

    parser = build_parser()
    args = parser.parse_args([*command, "-o", "x", "--formats", "html"])
    assert _formats(args) == ["html"]
    args = parser.parse_args([*command, "-o", "x"])
    assert _formats(args) == ["html", "pdf"]
    args = parser.parse_args([*command, "-o", "x", "--format", "pdf"])
    assert _formats(args) == ["pdf"] and "--format is deprecated" in capsys.readouterr().err
    sub = next(a for a in parser._subparsers._group_actions[0].choices.items() if a[0] == command[0])[1]
    help_text = sub.format_help()
    assert "--formats" in help_text and not re.search(r"--format\b(?!s)", help_text)


def test_report_formats_errors_are_one_line_before_any_work(tmp_path):
    out = tmp_path / "rep"
    code, _, err = _run(["report", str(tmp_path / "missing.tsv"), "-o", str(out), "--formats", "docx"])
    assert code == 2 and "--formats takes html and/or pdf" in err and not out.exists()
    code, _, err = _run(["report", str(tmp_path / "missing.tsv"), "-o", str(out), "--formats", "html",
                         "--format", "pdf"])
    assert code == 2 and "--formats only" in err and not out.exists()


# ------------------------------------------------------------------------------------------------
# (7) the README's tour says to activate the virtual environment before its first `evalreport`


def test_readme_tour_activates_the_venv_first():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    start = text.index("## A tour")
    block = text[start:text.index("\n## ", start)].split("```bash")[1].split("```")[0]
    lines = [line.strip() for line in block.splitlines() if line.strip()]
    first = next(i for i, line in enumerate(lines) if line.startswith("evalreport "))
    assert any(line.startswith(". .venv/bin/activate") for line in lines[:first])
