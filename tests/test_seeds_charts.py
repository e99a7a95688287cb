"""The charts and words of several runs per system: specs validate, systems best first, names escaped."""
import pandas as pd
import pytest

from evalreport.charts import use_theme
from evalreport.charts.seeds import seed_spread_bars, seed_strip
from evalreport.report.sections.seeds import seed_spread_sentence

RUNS = pd.DataFrame({"system": ["a"] * 3 + ["b"] * 2, "run": ["s1", "s2", "s3", "s1", "s2"], "measure": "accuracy",
                     "value": [0.70, 0.72, 0.74, 0.80, 0.84]})
INTERVALS = pd.DataFrame({"system": ["a", "b"], "measure": "accuracy", "value": [0.72, 0.82], "lo": [0.66, 0.77],
                          "hi": [0.78, 0.87]})
SPREAD = pd.DataFrame({"system": ["a", "b"], "measure": "accuracy", "n_runs": [3, 2], "value": [0.72, 0.82],
                       "seed_sd": [0.02, 0.028], "item_se": [0.03, 0.02], "se": [0.03, 0.03]})


def _layers(spec):
    return spec.get("layer", [spec])


def test_seed_strip_validates_with_a_dot_per_run_and_the_best_on_top():
    use_theme()
    spec = seed_strip(RUNS, measure="accuracy", intervals=INTERVALS).to_dict()     # validates against the schema
    marks = [layer["mark"]["type"] if isinstance(layer["mark"], dict) else layer["mark"] for layer in _layers(spec)]
    assert marks == ["circle", "rule", "tick"]
    assert _layers(spec)[0]["encoding"]["y"]["sort"] == ["b", "a"]
    dots = spec["datasets"][_layers(spec)[0]["data"]["name"]]
    assert len(dots) == 5 and len({round(d["jitter"], 6) for d in dots if d["system"] == "a"}) == 3
    # the same frame draws the same chart (no random jitter)
    assert seed_strip(RUNS, measure="accuracy", intervals=INTERVALS).to_dict() == spec


def test_seed_strip_lower_is_better_puts_the_lowest_first_and_works_without_intervals():
    spec = seed_strip(RUNS.assign(measure="confusion_entropy"), measure="confusion_entropy").to_dict()
    assert [layer["mark"]["type"] for layer in _layers(spec)] == ["circle", "tick"]
    assert _layers(spec)[0]["encoding"]["y"]["sort"] == ["a", "b"]


def test_seed_charts_name_what_is_missing():
    with pytest.raises(ValueError, match="missing column"):
        seed_strip(RUNS.drop(columns=["run"]), measure="accuracy")
    with pytest.raises(ValueError):
        seed_strip(RUNS, measure="mcc")
    with pytest.raises(ValueError, match="no seed spread"):
        seed_spread_bars(SPREAD.assign(seed_sd=float("nan"), item_se=float("nan")), measure="accuracy")


def test_seed_spread_bars_draw_both_sources_per_system():
    spec = seed_spread_bars(SPREAD, measure="accuracy").to_dict()
    rows = pd.DataFrame(spec["datasets"][spec["data"]["name"]])
    assert len(rows) == 4 and rows["source"].nunique() == 2
    assert spec["encoding"]["y"]["sort"] == ["b", "a"]


def test_seed_spread_sentence_escapes_names():
    rows = pd.DataFrame({"finding": ["seed_spread"], "system": ["*x*"], "measure": ["accuracy"], "value": [0.01],
                         "detail": ["[y](z)|0.03"]})
    text = seed_spread_sentence(rows, "Accuracy")
    assert r"\*x\*" in text and r"\[y\]\(z\)" in text and "0.010" in text and "0.030" in text
    assert seed_spread_sentence(rows.iloc[:0], "Accuracy") == ""
