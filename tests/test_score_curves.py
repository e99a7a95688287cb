"""The report's score curves: ROC, precision-recall and reliability charts (charts/curves.py) and the
report section that shows them with the score-based measures (report/sections/scores.py), on
tables folders made by tests/scored_tables.py from scikit-learn's curves."""
from __future__ import annotations

import io

import nbformat
import numpy as np
import pandas as pd
import pytest
from altair.utils.schemapi import validate_jsonschema
from altair.vegalite.v6.schema.core import load_schema
from scored_tables import STUB_PLUGIN, add_score_tables, score_frames, scored_runs, write_scored_tables
from sklearn.metrics import brier_score_loss, log_loss

from evalreport.charts.curves import (
    MAX_LINES,
    MAX_PANELS,
    TOLERANCE,
    pr_chart,
    reliability_chart,
    roc_chart,
    thin_curves,
)
from evalreport.charts.simplify import segment_distance
from evalreport.measures.plugins import load_plugins
from evalreport.report.display import Chart, Heading, Note, Table
from evalreport.report.resources import notebooks_dir
from evalreport.report.sections import open_report

LONG = [f"UniversityOfSomewhere-NLP-run{i}-bert-large-finetuned-ensemble" for i in range(30)]
SCORE_CELLS = ("scores_heading", "scores_intro", "score_measures_table", "roc_chart", "pr_chart",
               "reliability_chart", "calibration_words")


@pytest.fixture(scope="module", autouse=True)
def _stub_measures():
    load_plugins([STUB_PLUGIN], entry_points=False)


def _rows(spec: dict) -> list[dict]:
    """The rows of a curve chart's inline data (one CSV text with its column types declared)."""
    data = spec["datasets"][spec["data"]["name"]]
    assert spec["data"]["format"]["parse"]["system"] == "string"
    return pd.read_csv(io.StringIO(data), dtype={"system": str, "class": str}).to_dict("records")


def _valid(chart) -> dict:
    spec = chart.to_dict(validate=True)
    validate_jsonschema(spec, load_schema())
    return spec


@pytest.fixture(scope="module")
def binary():
    return scored_runs(1, 300, ["a", "b", "c"], ["neg", "pos"])


@pytest.fixture(scope="module")
def three():
    return scored_runs(2, 400, [f"s{i}" for i in range(5)], ["FAVOR", "AGAINST", "NONE"])


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    """Tables folders: binary with a hostile name, three classes with a system without scores, 30
    long names, and one without scores at all."""
    root = tmp_path_factory.mktemp("scored")
    return {
        "binary": write_scored_tables(root / "binary", seed=1, n_items=300, systems=["a", "b", "<b>x</b> *y*"],
                                      labels=["neg", "pos"]),
        "three": write_scored_tables(root / "three", seed=2, n_items=400, systems=[f"s{i}" for i in range(5)],
                                     labels=["FAVOR", "AGAINST", "NONE"], without=["s4"]),
        "many": write_scored_tables(root / "many", seed=3, n_items=200, systems=LONG, labels=["neg", "pos"]),
    }


# ----------------------------------------------------------------------------- charts


@pytest.mark.parametrize("case", ["binary", "three"])
def test_every_curve_chart_validates(case, binary, three):
    runs, probs = binary if case == "binary" else three
    frames = score_frames(runs, probs)
    prevalence = {c: float(np.mean(runs.gold == k)) for k, c in enumerate(runs.labels)}
    roc = _valid(roc_chart(frames["roc_curve"], systems=list(runs.systems)))
    _valid(pr_chart(frames["pr_curve"], prevalence=prevalence))
    _valid(reliability_chart(frames["reliability"], ece={"s0": 0.1}))
    # binary: one panel; three classes: a panel per class (small multiples, no selector)
    assert ("facet" in roc) == (case == "three")


def test_thinned_curves_keep_their_ends_and_shape():
    rng = np.random.default_rng(0)
    x = np.sort(rng.random(5000))
    curve = pd.DataFrame({"system": "s", "class": "c", "x": np.r_[0, x, 1], "y": np.r_[0, np.sqrt(x), 1]})
    thin = thin_curves(curve, "x", "y", ["system", "class"], 300)
    assert len(thin) <= 300 and thin["step"].tolist() == list(range(len(thin)))
    assert thin[["x", "y"]].iloc[0].tolist() == [0, 0] and thin[["x", "y"]].iloc[-1].tolist() == [1, 1]
    # every original point lies within the tolerance (0.002, half a pixel of a 240 px panel) of the drawn line
    a, b = curve[["x", "y"]].to_numpy(), thin[["x", "y"]].to_numpy()
    n, m = len(a), len(b) - 1
    d = segment_distance(np.repeat(a, m, axis=0), np.tile(b[:-1], (n, 1)), np.tile(b[1:], (n, 1)))
    assert d.reshape(n, m).min(axis=1).max() <= TOLERANCE
    # a curve whose every corner is farther than the tolerance from its neighbours' chord stays whole
    zigzag = pd.DataFrame({"system": "s", "class": "c", "x": np.linspace(0, 1, 50), "y": np.resize([0.4, 0.6], 50)})
    assert len(thin_curves(zigzag, "x", "y", ["system", "class"], 300)) == 50


def test_many_systems_colour_the_leaders_and_grey_the_rest():
    runs, probs = scored_runs(3, 200, LONG, ["neg", "pos"])
    roc = score_frames(runs, probs)["roc_curve"]
    order = LONG[::-1]
    spec = _valid(roc_chart(roc, systems=order))
    colour = next(layer["encoding"]["color"] for layer in spec["layer"] if "color" in layer.get("encoding", {}))
    assert colour["scale"]["domain"] == order[:MAX_LINES]
    assert any(f"first {MAX_LINES} of 30" in line for line in spec["title"]["subtitle"])
    assert "labelExpr" in colour["legend"]                              # long names shortened in the legend
    kinds = {row["kind"] for row in _rows(spec)}
    assert kinds == {"curve", "rest", "chance"}


def test_the_precision_recall_chance_line_is_the_prevalence(binary):
    runs, probs = binary
    frames = score_frames(runs, probs)
    share = float(np.mean(runs.gold == 1))
    spec = _valid(pr_chart(frames["pr_curve"], prevalence={"pos": share, "neg": 1 - share}))
    chance = [r for r in _rows(spec) if r["kind"] == "chance"]
    assert [r["precision"] for r in chance] == [share, share] and [r["recall"] for r in chance] == [0.0, 1.0]


def test_more_classes_than_panels_say_how_many_are_drawn():
    classes = [f"class-with-a-very-long-name-{k}" for k in range(MAX_PANELS + 3)]
    roc = pd.concat([pd.DataFrame({"system": "a", "class": c, "fpr": [0, 0.5, 1], "tpr": [0, 0.8, 1],
                                   "threshold": [np.inf, 0.5, 0]}) for c in classes])
    spec = _valid(roc_chart(roc))
    assert spec["facet"]["sort"] == classes[:MAX_PANELS]
    assert f"the first {MAX_PANELS} of {len(classes)} classes" in spec["title"]["subtitle"]
    assert "labelExpr" in spec["facet"]["header"]                       # long class names shortened


def test_reliability_skips_empty_bins_and_draws_the_histogram_of_every_bin(binary):
    runs, probs = binary
    rel = score_frames(runs, probs)["reliability"]
    one = rel[rel["system"] == "a"]
    assert (one["count"] == 0).any()                                    # the test needs an empty bin
    spec = _valid(reliability_chart(one))
    top, hist = spec["concat"][0]["vconcat"]
    drawn = spec["datasets"][top["layer"][1]["data"]["name"]]
    assert len(drawn) == int((one["count"] > 0).sum())
    assert len(spec["datasets"][hist["data"]["name"]]) == len(one)


def test_names_longer_than_a_chart_carries_still_find_their_rows():
    """A name beyond MAX_TEXT characters is shortened in the chart's data; the order, the prevalence and
    the ECE given by full name still reach it."""
    system, positive = "s" * 200, "p" * 200
    runs, probs = scored_runs(6, 150, [system, "b"], ["n", positive])
    frames = score_frames(runs, probs)
    rel = _valid(reliability_chart(frames["reliability"], systems=[system], ece={system: 0.123}))
    assert len(rel["concat"]) == 1 and rel["concat"][0]["vconcat"][0]["title"]["subtitle"] == ["ECE 0.123"]
    pr = _valid(pr_chart(frames["pr_curve"], prevalence={positive: 0.4}))
    assert [r["precision"] for r in _rows(pr) if r["kind"] == "chance"] == [0.4, 0.4]


def test_a_chart_of_nothing_is_an_error():
    with pytest.raises(ValueError, match="missing column"):
        roc_chart(pd.DataFrame({"system": ["a"], "fpr": [0.0]}))


# ----------------------------------------------------------------------------- the section


def test_the_section_is_absent_without_scores(tmp_path, binary):
    from evalreport.report.build import analyse

    runs, _ = binary
    analyse(runs, tmp_path / "tables", bootstrap=20, seed=0, audit=False)
    rep = open_report(tmp_path / "tables")
    assert all(getattr(rep, cell)() is None for cell in SCORE_CELLS)
    # and the notebook's cells are exactly these calls (so a report without scores shows nothing of them)
    calls = [c.source.splitlines()[-1] for c in nbformat.read(notebooks_dir() / "report.ipynb", 4).cells
             if c.cell_type == "code"]
    assert all(f"rep.{cell}()" in calls for cell in SCORE_CELLS)


def test_the_curve_captions_state_the_drawn_curves_tolerance(folders):
    rep = open_report(folders["three"])
    for cell, table in (("roc_chart", "roc_curve"), ("pr_chart", "pr_curve")):
        caption = getattr(rep, cell)().caption
        assert "simplified to the points that keep it within 0.5 px of the exact curve" in caption
        assert "rounded to 4 decimals" in caption and f"{table}.csv keeps every point" in caption
        assert "grey" not in caption                                    # 5 systems: every one in colour
    assert "as average precision sums them" in rep.pr_chart().caption
    assert "(a grey one within 1 px)" in open_report(folders["many"]).roc_chart().caption


def test_the_section_shows_curves_measures_and_words(folders):
    rep = open_report(folders["three"])
    assert isinstance(rep.scores_heading(), Heading)
    assert "Opitz 2022" in rep.scores_intro().text                      # where prevalence calibration does not apply
    for cell in ("roc_chart", "pr_chart", "reliability_chart"):
        shown = getattr(rep, cell)()
        assert isinstance(shown, Chart)
        validate_jsonschema(shown.spec, load_schema())
    table = rep.score_measures_table()
    assert isinstance(table, Table) and list(table.df.index[:4]) == rep.board_order[:4]
    # s4 has no score columns: no row of dashes, the caption says it is left out and the words give the reason
    assert "s4" not in table.df.index and "Left out: 1 system without any score-based value" in table.caption
    words = rep.calibration_words().text
    ece = rep.table("scores").query("measure == 'ece'").dropna(subset=["value"]).set_index("system")["value"]
    assert f"**{ece.idxmin()}** is the best calibrated" in words and f"**{ece.idxmax()}** the worst" in words
    assert "s4 (the run file has no score columns)" in words


def test_in_a_benchmark_task_section_the_heading_moves_down_and_chart_names_are_the_tasks(folders):
    from evalreport.report.task_sections import TaskReport

    rep = TaskReport(open_report(folders["three"]), "task-t1")
    assert rep.scores_heading().level == 3 and rep.roc_chart().name == "task-t1-roc"


def test_prevalence_forecast_equals_scikit_learn(folders):
    """The chance baselines of the score table: the Brier score and log loss of the forecast that gives
    every item the class shares, against scikit-learn on that constant forecast."""
    for case, K in (("binary", 2), ("three", 3)):
        rep = open_report(folders[case])
        prev = rep.table("prevalence")
        shares = prev["share"].to_numpy(float)
        y = np.repeat(np.arange(K), prev["count"].to_numpy(int))
        forecast = np.tile(shares, (len(y), 1))
        assert rep.prevalence_forecast("log_loss") == pytest.approx(log_loss(y, forecast), abs=1e-12)
        brier = (brier_score_loss(y == K - 1, forecast[:, -1]) if K == 2
                 else float(((np.eye(K)[y] - forecast) ** 2).sum(axis=1).mean()))
        assert rep.prevalence_forecast("brier") == pytest.approx(brier, abs=1e-12)
        assert rep.prevalence_forecast("roc_auc") == 0.5
        # always naming the largest class with confidence its share: right on exactly that share of items
        top = shares.max()
        assert rep.prevalence_forecast("ece") == 0.0
        assert float(np.mean(y == shares.argmax())) == pytest.approx(top, abs=1e-12)


def test_prevalence_forecast_pr_auc_equals_scikit_learn_on_a_constant_score(folders):
    """The forecast's PR AUC by trapezoids is the area under scikit-learn's precision-recall curve of a
    constant score, (1 + share) / 2 per class, averaged over classes for several; its average precision
    is the share (Davis & Goadrich 2006: the trapezoid overstates a constant ranking)."""
    from sklearn.metrics import auc, average_precision_score, precision_recall_curve

    for case, K in (("binary", 2), ("three", 3)):
        rep = open_report(folders[case])
        prev = rep.table("prevalence")
        y = np.repeat(np.arange(K), prev["count"].to_numpy(int))
        names = prev["class"].astype(str).tolist() if "class" in prev else prev.iloc[:, 0].astype(str).tolist()
        roc_classes = sorted(set(rep.table("roc_curve")["class"].astype(str)))
        ks = [names.index(roc_classes[0])] if K == 2 else range(K)
        trapezoid, ap = [], []
        for k in ks:
            precision, recall, _ = precision_recall_curve(y == k, np.zeros(len(y)))
            trapezoid.append(auc(recall, precision))
            ap.append(average_precision_score(y == k, np.zeros(len(y))))
        assert rep.prevalence_forecast("pr_auc") == pytest.approx(float(np.mean(trapezoid)), abs=1e-12)
        assert rep.prevalence_forecast("average_precision") == pytest.approx(float(np.mean(ap)), abs=1e-12)


def test_names_from_the_data_are_escaped(folders):
    rep = open_report(folders["binary"])
    note = rep.calibration_words()
    html = note._repr_mimebundle_()["text/html"]
    assert "<b>x</b>" not in html and "&lt;b&gt;x&lt;/b&gt;" in html
    assert "*y*" not in note.text                                        # no emphasis from a system's name
    table = rep.score_measures_table()._repr_mimebundle_()["text/html"]
    assert "<b>x</b>" not in table


def test_many_systems_show_leaders_and_calibration_extremes(folders):
    rep = open_report(folders["many"])
    shown = rep.reliability_chart()
    panels = [p["vconcat"][0]["title"]["text"] for p in shown.spec["concat"]]
    assert 6 <= len(panels) <= 8
    assert "first 6 of 30" in shown.caption
    assert isinstance(rep.calibration_words(), Note)


def test_the_notebook_executes_on_a_scored_tables_folder(tmp_path):
    """The report built on runs, then the score tables added and the notebooks executed again: the
    HTML page carries the three charts and the section; the PDF has them too."""
    from evalreport.report.build import build_report
    from evalreport.report.project import rerender

    runs, probs = scored_runs(5, 200, ["a", "b", "c"], ["x", "y", "z"])
    out = tmp_path / "report"
    build_report(runs, out, bootstrap=20, seed=0, audit=False, plugins=[STUB_PLUGIN], formats=("html",))
    before = (out / "report.html").read_text(encoding="utf-8")
    assert "Scores and calibration" not in before and 'id="chart-roc"' not in before
    add_score_tables(out / "tables", runs, probs, without=["c"])
    rerender(out, execute_all=True)
    page = (out / "report.html").read_text(encoding="utf-8")
    assert "Scores and calibration" in page
    for name in ("roc", "precision-recall", "reliability"):
        assert f'id="chart-{name}"' in page


def test_the_appendix_draws_the_curves_as_vector_figures_at_both_widths(folders, tmp_path):
    from evalreport.report.appendix.curves import curve_figures
    from evalreport.report.appendix.figures import FIGURE_SIZES, pdf_width_pt, write_charts
    from evalreport.report.appendix.writer import AppendixData

    items = curve_figures(AppendixData(folders["three"]))
    assert [(name, size) for name, _, _, size in items] == [("roc", "page"), ("precision-recall", "page"),
                                                           ("reliability", "page")]
    binary = {name: size for name, _, _, size in curve_figures(AppendixData(folders["binary"]))}
    assert binary["roc"] == binary["precision-recall"] == "column"
    figures = write_charts(items[:1], tmp_path)
    for size, inches in FIGURE_SIZES.items():
        pdf = figures[0].files[size]["pdf"].read_bytes()
        assert pdf_width_pt(pdf) == pytest.approx(inches * 72, abs=1)
        assert "<svg" in figures[0].files[size]["svg"].read_text(encoding="utf-8")


def test_the_appendix_has_no_curves_without_scores(tmp_path, binary):
    from evalreport.report.appendix.curves import curve_figures
    from evalreport.report.appendix.writer import AppendixData
    from evalreport.report.build import analyse

    analyse(binary[0], tmp_path / "tables", bootstrap=10, seed=0, audit=False)
    assert curve_figures(AppendixData(tmp_path / "tables")) == []


def test_the_codabench_page_draws_a_scored_submission_offline(tmp_path):
    """The participant page with curves: inline SVG (nothing fetched, no script), names escaped; without
    curves the page has none."""
    import dataclasses
    import re

    from evalreport.report.codabench import score_submission
    from evalreport.report.codabench_page import detail_page

    evil = "<i>pos</i>&"
    runs, probs = scored_runs(4, 120, ["team <b>1</b>"], ["neg", evil])
    ref, res = tmp_path / "in" / "ref", tmp_path / "in" / "res"
    ref.mkdir(parents=True)
    res.mkdir()
    labels = np.asarray(runs.labels)
    pd.DataFrame({"id": range(120), "label": labels[runs.gold]}).to_csv(ref / "gold.csv", index=False)
    pd.DataFrame({"id": range(120), "label": labels[runs.pred[0]]}).to_csv(res / "sub.csv", index=False)
    scored = score_submission(tmp_path / "in", bootstrap=0)
    assert "<svg" not in detail_page(scored) and "Curves of your scores" not in detail_page(scored)
    frames = score_frames(runs, probs)
    page = detail_page(dataclasses.replace(scored, curves={k: frames[k] for k in ("roc_curve", "pr_curve",
                                                                                     "reliability")}))
    assert page.count("<svg") == 3 and "Curves of your scores" in page
    assert "<script" not in page and not re.search(r"(src|href)\s*=|@import|url\(", page)
    assert "<b>1</b>" not in page and "<i>pos</i>" not in page and "&lt;i&gt;pos&lt;/i&gt;" in page


def test_the_codabench_page_without_altair_says_why_it_has_no_curves(tmp_path, monkeypatch):
    """A scorer installed without the report extra (no altair, no vl-convert) still writes the page: a
    note says why the curves are missing, instead of the scorer failing with ModuleNotFoundError."""
    import dataclasses
    import importlib.util

    from evalreport.report import codabench_page
    from evalreport.report.codabench import score_submission

    runs, probs = scored_runs(4, 120, ["team"], ["neg", "pos"])
    ref, res = tmp_path / "in" / "ref", tmp_path / "in" / "res"
    ref.mkdir(parents=True)
    res.mkdir()
    labels = np.asarray(runs.labels)
    pd.DataFrame({"id": range(120), "label": labels[runs.gold]}).to_csv(ref / "gold.csv", index=False)
    pd.DataFrame({"id": range(120), "label": labels[runs.pred[0]]}).to_csv(res / "sub.csv", index=False)
    scored = dataclasses.replace(score_submission(tmp_path / "in", bootstrap=0),
                                 curves={k: v for k, v in score_frames(runs, probs).items() if k == "roc_curve"})
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "altair" else real(name, *a))
    page = codabench_page.detail_page(scored)
    assert "<svg" not in page and "lacks altair and vl-convert-python" in page
    monkeypatch.undo()
    assert "<svg" in codabench_page.detail_page(scored)


def test_reliability_diagram_leaves_out_scores_that_are_not_probabilities(folders):
    """A system whose top-label confidences fall outside [0, 1] (a linear SVM's decision values) has no
    reliability diagram; the caption says one system was left out and why."""
    rep = open_report(folders["three"])
    rel = rep.table("reliability").copy()
    first = rep.in_board_order(rel["system"])[0]
    rel.loc[(rel["system"] == first) & rel["confidence"].notna(), "confidence"] += 1.5
    chosen, words = rep.reliability_systems(rel)
    assert first not in chosen and chosen and "1 other system left out" in words
    assert "not probabilities" in words
    kept, plain = rep.reliability_systems(rep.table("reliability"))
    assert first in kept and "left out" not in plain


def test_the_intro_names_the_probability_measures_only_where_they_were_computed(folders, tmp_path):
    """The chance Brier score and log loss are promised only where the scores.csv holds them."""
    import shutil

    assert "Brier score and log loss of the prevalence forecast" in open_report(folders["three"]).scores_intro().text
    copy = tmp_path / "tables"
    shutil.copytree(folders["three"], copy)
    scores = pd.read_csv(copy / "scores.csv")
    scores[~scores["measure"].isin(["brier", "log_loss", "ece", "mce"])].to_csv(copy / "scores.csv", index=False)
    text = open_report(copy).scores_intro().text
    assert "prevalence forecast" not in text and "are not computed" in text
