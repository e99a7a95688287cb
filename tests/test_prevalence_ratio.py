"""The prevalence chart's largest / smallest ratio: a declared class with no gold items makes it undefined,
and the subtitle names that class instead of dividing by 1."""
from __future__ import annotations

import pandas as pd
import pytest

from evalreport.charts.points import imbalance_text, prevalence_bar
from evalreport.cli import main


def _subtitle(chart) -> str:
    sub = chart.to_dict()["title"]["subtitle"]
    return sub if isinstance(sub, str) else " ".join(sub)


def _prevalence(counts: dict[str, int]) -> pd.DataFrame:
    frame = pd.DataFrame({"class": list(counts), "count": list(counts.values())})
    frame["share"] = frame["count"] / frame["count"].sum()
    return frame


def test_a_declared_class_without_gold_items_makes_the_ratio_undefined_and_is_named():
    prev = _prevalence({"pos": 30, "neg": 5, "neutral": 0})
    text = _subtitle(prevalence_bar(prev))
    assert text == "3 classes, 35 items; largest / smallest undefined: class 'neutral' has no gold items"
    assert "= 30.0" not in text and "= 6.0" not in text


def test_several_empty_classes_are_listed_and_the_ratio_of_full_classes_is_unchanged():
    assert imbalance_text(_prevalence({"a": 12, "b": 0, "c": 3, "d": 0})) == \
        "largest / smallest undefined: classes 'b', 'd' have no gold items"
    assert imbalance_text(_prevalence({"a": 12, "b": 3})) == "largest / smallest = 4.0"
    many = _prevalence({"a": 9, **{f"e{k}": 0 for k in range(5)}})
    assert imbalance_text(many).endswith("'e0', 'e1', 'e2', ... (5 in all) have no gold items")
    assert imbalance_text(many[["count"]]) == "largest / smallest undefined: 5 classes with no gold items"


def test_the_subtitle_judges_every_class_when_only_some_are_drawn():
    whole = _prevalence({"a": 50, "b": 20, "c": 10, "z": 0})
    text = _subtitle(prevalence_bar(whole.head(2), whole=whole))
    assert text == "4 classes (2 shown), 80 items; largest / smallest undefined: class 'z' has no gold items"


@pytest.mark.slow
def test_the_report_names_the_empty_declared_class(tmp_path):
    gold = tmp_path / "gold.tsv"
    gold.write_text("id\tlabel\n" + "".join(f"{i}\t{'ab'[i % 3 == 0]}\n" for i in range(30)))
    run = tmp_path / "sys.tsv"
    run.write_text("id\tlabel\n" + "".join(f"{i}\t{'ab'[i % 4 == 0]}\n" for i in range(30)))
    out = tmp_path / "report"
    assert main(["report", str(gold), str(run), "--labels", "a,b,rare", "--measures", "accuracy,macro_f1",
                 "--bootstrap", "20", "--formats", "html", "-o", str(out)]) == 0
    html = (out / "report.html").read_text()
    assert "largest / smallest undefined: class 'rare' has no gold items" in html
    assert "largest / smallest = " not in html
