"""What the report's sections show, on a small hand-made case: tied ranks, an undefined primary
value, undefined baselines, the appendix definitions, the cross-validation folds that the
fold-averaging estimators skip (Forman & Scholz 2010, section 2.4)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from evalreport.analyses import resampling
from evalreport.analyses.crossval import cross_validate
from evalreport.escape import markdown as escape_markdown
from evalreport.inputs import Runs
from evalreport.report.build import analyse
from evalreport.report.display import UNDEFINED_MARK
from evalreport.report.sections import open_report

GOLD = np.array([0, 0, 0, 1, 1, 1, 2, 2, 2, 0, 1, 2])
GOOD = np.array([0, 0, 1, 1, 1, 2, 2, 2, 0, 0, 1, 2])
OTHER = np.array([0, 1, 1, 1, 0, 2, 2, 1, 0, 0, 1, 1])


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    """A and its copy tie; `one` predicts class a only, so its MCC is undefined (0/0)."""
    runs = Runs(gold=GOLD, pred=np.stack([GOOD, GOOD, OTHER, np.zeros_like(GOLD)]), labels=("a", "b", "c"),
                systems=("A", "A_copy", "B", "one"))
    tables = tmp_path_factory.mktemp("report") / "tables"
    analyse(runs, tables, primary="mcc", measures=["mcc", "accuracy", "macro_f1"], bootstrap=60, seed=1,
            audit=False)
    return open_report(tables)


def test_tied_systems_show_the_mean_of_their_ranks(report):
    md = report.leaderboard_table()._markdown()
    rows = {line.split("|")[2].strip().replace("\\_", "_"): line.split("|")[1].strip()
            for line in md.splitlines()[2:] if line.startswith("|")}
    assert rows["A"] == rows["A_copy"] == "1.5" and rows["B"] == "3" and rows["one"] == "4"


def test_an_undefined_primary_value_is_marked_with_its_reason_and_in_no_group(report):
    table = report.leaderboard_table()
    md = table._markdown()
    line = next(line for line in md.splitlines() if "| one |" in line)
    assert UNDEFINED_MARK in line
    assert "MCC" in md.split(":::")[-2] or "one class" in md          # the lettered reason under the table
    board = report.table("leaderboard").set_index("system")
    assert np.isnan(board.loc["one", "group"]) and board.loc["A", "group"] == 1


def test_groups_leave_out_a_system_no_test_could_compare():
    pw = pd.DataFrame({"system_a": ["x", "x", "y"], "system_b": ["y", "z", "z"], "measure": "m",
                       "test": "bootstrap", "difference": [0.1, np.nan, np.nan],
                       "p_holm": [0.5, np.nan, np.nan]})
    g = resampling.groups(pw, order=["x", "y", "z"]).set_index("system")
    assert g.loc["x", "group"] == g.loc["y", "group"] == 1 and np.isnan(g.loc["z", "group"])
    assert g.loc["z", "leader"] == ""


def test_undefined_baselines_are_marked_not_blank(report):
    md = report.baselines_table()._markdown()
    mcc = next(line for line in md.splitlines() if line.startswith(r"| Matthews correlation coefficient \(↑\)"))
    assert UNDEFINED_MARK in mcc                                      # MCC of a constant predictor is 0/0


def test_appendix_keeps_the_undefined_text_and_escapes_markup(report):
    table = report.definitions_table()
    text = " ".join(table.df["undefined when"])
    assert "False" not in text and "a_i" in text                     # the text of measures.csv, not a flag
    assert escape_markdown("(b_i^2)(n^2)") == r"\(b\_i\^2\)\(n\^2\)"    # no superscripts in the PDF


def test_cv_recommendation_and_folds_with_one_class(tmp_path):
    """Forman & Scholz (2010), section 2.4: software must not skip single-class folds silently."""
    gold = np.array([1, 0, 0, 1, 0, 0, 0, 0, 0, 1, 1, 0])
    folds = np.repeat([0, 1, 2], 4)                                   # fold 2 (items 8-11) has positives,
    gold[4:8] = 0                                                     # fold 1 has none
    pred = np.stack([gold, 1 - gold])
    scores = np.stack([gold * 0.8 + 0.1, (1 - gold) * 0.8 + 0.1])
    runs = Runs(gold=gold, pred=pred, labels=("0", "1"), systems=("s", "t"), folds=folds,
                fold_names=("1", "2", "3"), scores=scores)
    cv = cross_validate(runs, ["f1"], positive="1")
    assert "fold 2 (no gold positives in the fold)" in cv.recommendation
    no_pos = cross_validate(runs, ["accuracy"])
    assert no_pos.recommendation.startswith("Publish the pooled value") and "--positive" in no_pos.recommendation
    tables = tmp_path / "tables"
    tables.mkdir()
    cv.score_folds.to_csv(tables / "cv_score_folds.csv", index=False)
    cv.invalid_folds.to_csv(tables / "cv_invalid_folds.csv", index=False)
    shown = open_report(tables).cv_folds_table().df
    assert {"AUC", "precision or recall (F)"} <= {w.split(" (")[0] if w.startswith("AUC") else w for w in shown["what"]}
    assert any("2" in folds.split(", ") for folds in shown["folds"].astype(str))


def test_prevalence_chart_with_many_classes(tmp_path):
    """1,000 bars made a 14,000-pixel chart (ImageNet): a balanced set gets a sentence, an
    unbalanced one its largest and smallest classes."""
    tables = tmp_path / "tables"
    tables.mkdir()
    K = 1000
    pd.DataFrame({"class": [f"c{k}" for k in range(K)], "count": 50, "share": 1 / K}).to_csv(
        tables / "prevalence.csv", index=False)
    note = open_report(tables).prevalence_chart()
    assert "All 1,000 classes" in note.text and "50 items each" in note.text
    counts = np.arange(1, K + 1)
    pd.DataFrame({"class": [f"c{k}" for k in range(K)], "count": counts, "share": counts / counts.sum()}).to_csv(
        tables / "prevalence.csv", index=False)
    chart = open_report(tables).prevalence_chart()
    shown = {d["class"] for d in chart.spec["datasets"][next(iter(chart.spec["datasets"]))]}
    assert len(shown) == 24 and {"c999", "c0"} <= shown and "1,000 classes" in chart.caption
