"""Classes that occur only in predictions (``<abstain>`` for a missing prediction, unknown labels)
are not gold classes: the report's prevalence table and chart, its overview and the recommendation's
setting count the task's classes only (Runs.n_task)."""
from __future__ import annotations

import json
import re

import pandas as pd
from conftest import write_labels

from evalreport.cli import main

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
    notes = pd.read_csv(out / "tables" / "recommend_notes.csv")["note"]
    assert notes.str.startswith("Setting: 3 classes (").any()
    assert not notes.str.contains("abstain").any()
