"""Classes that occur only in predictions (``<abstain>`` for a missing prediction, unknown labels)
are not gold classes: the report's prevalence table and chart, its overview and the recommendation's
setting count the task's classes only (Runs.n_task), and so does the error for an unknown --positive."""
from __future__ import annotations

import json
import re

import pandas as pd
import pytest
from conftest import write_labels

from evalreport.cli import main
from evalreport.errors import MeasureError
from evalreport.measures import resolve_positive

#: 195, 100 and 5 gold items: the largest / smallest ratio of the task's classes is 39.
GOLD = ["positive"] * 195 + ["negative"] * 100 + ["neutral"] * 5


def _prevalence_subtitle(html: str) -> str:
    """The subtitle of the class-prevalence chart in the report's embedded Vega-Lite spec."""
    found = re.search(r'"title":\{"text":"Class prevalence","subtitle":\[("[^"]*")\]', html)
    assert found, "no class-prevalence chart in report.html"
    return str(json.loads(found.group(1)))


def test_abstain_is_not_a_gold_class_in_the_report(tmp_path):
    ids = list(range(len(GOLD)))
    gold = write_labels(tmp_path / "gold.csv", GOLD, ids=ids, sep=",")
    pred = list(GOLD)
    pred[1], pred[200] = "negative", "positive"
    full = write_labels(tmp_path / "full.csv", pred, ids=ids, sep=",")
    partial = write_labels(tmp_path / "partial.csv", pred[1:], ids=ids[1:], sep=",")      # item 0 has no prediction
    out = tmp_path / "report"
    rc = main(["report", str(gold), str(full), str(partial), "--missing", "abstain", "-o", str(out),
               "--formats", "html", "--bootstrap", "0", "--no-progress"])
    assert rc == 0
    prev = pd.read_csv(out / "tables" / "prevalence.csv")
    assert sorted(prev["class"]) == ["negative", "neutral", "positive"]
    assert prev["count"].sum() == len(GOLD) and abs(prev["share"].sum() - 1) < 1e-12
    meta = json.loads((out / "tables" / "report.json").read_text(encoding="utf-8"))
    assert meta["n_classes"] == 3 and meta["n_prediction_only"] == 1
    html = (out / "report.html").read_text(encoding="utf-8")
    assert _prevalence_subtitle(html) == "3 classes, 300 items; largest / smallest = 39.0"
    # the confusion matrices have a row per gold class (each sums to 100%) and a column for <abstain>
    assert '"predicted":"\\u003cabstain>"' in html and '"gold":"\\u003cabstain>"' not in html
    notes = pd.read_csv(out / "tables" / "recommend_notes.csv")["note"]
    assert notes.str.startswith("Setting: 3 classes (").any()
    assert not notes.str.contains("abstain").any()


def _abstain_files(tmp_path):
    """A gold file of classes positive/negative/neutral and a run with one item missing (``<abstain>``)."""
    ids = list(range(len(GOLD)))
    gold = write_labels(tmp_path / "gold.csv", GOLD, ids=ids, sep=",")
    partial = write_labels(tmp_path / "partial.csv", GOLD[1:], ids=ids[1:], sep=",")
    return gold, partial


@pytest.mark.parametrize("command", [["report", "-o"], ["compare", "--out"], ["score", None]])
def test_a_positive_class_that_differs_in_case_is_named_with_the_tasks_classes(tmp_path, capsys, command):
    gold, partial = _abstain_files(tmp_path)
    out = tmp_path / "out"
    args = [command[0], str(gold), str(partial), "--missing", "abstain", "--positive", "Positive"]
    rc = main(args + ([command[1], str(out), "--no-progress"] if command[1] else []))
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and not out.exists()
    error = [line for line in err if "error:" in line]
    assert len(error) == 1 and "abstain" not in error[0]
    assert "'negative', 'neutral', 'positive'" in error[0]
    assert "differs from class 'positive' only in upper and lower case" in error[0]


def test_resolve_positive_lists_only_the_task_classes():
    labels = ["a", "b", "<abstain>"]
    assert resolve_positive("b", labels, 3, n_task=2) == 1
    with pytest.raises(MeasureError, match=r"classes: 'a', 'b'$"):
        resolve_positive("c", labels, 3, n_task=2)
    with pytest.raises(MeasureError, match=r"classes: 'a', 'b', '<abstain>'$"):    # no task given: every class
        resolve_positive("c", labels, 3)
