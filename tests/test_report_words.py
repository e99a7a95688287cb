"""What a reader sees: systems in leaderboard order in every table and chart, names drawn whole where
they fit, static captions that do not ask to hover, one sentence instead of rank correlations over
too few systems, a leaderboard chart zoomed to the systems' intervals."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from conftest import make_runs

from evalreport import charts
from evalreport.charts._common import shown_names
from evalreport.report.build import analyse
from evalreport.report.display import Chart, print_text
from evalreport.report.section_tables import MIN_SYSTEMS_AGREEMENT
from evalreport.report.sections import open_report

GOLD = np.array([0, 0, 0, 1, 1, 1, 2, 2, 2, 0, 1, 2, 0, 1, 2, 0])


def _report(tmp_path_factory, preds: dict[str, np.ndarray]):
    runs = make_runs(GOLD, preds, ("a", "b", "c"))
    tables = tmp_path_factory.mktemp("report") / "tables"
    analyse(runs, tables, primary="accuracy", measures=["accuracy", "macro_f1", "macro_recall", "mcc"],
            bootstrap=40, seed=1, audit=False)
    return open_report(tables)


def _flip(k: int) -> np.ndarray:
    """The gold labels with ``k`` of them changed: fewer changes, higher accuracy."""
    pred = GOLD.copy()
    pred[:k] = (pred[:k] + 1) % 3
    return pred


@pytest.fixture(scope="module")
def few(tmp_path_factory):
    # names in the reverse of the leaderboard's order, so that order of appearance or of the alphabet shows
    return _report(tmp_path_factory, {"a_worst": _flip(6), "b_middle": _flip(3), "c_best": _flip(1)})


@pytest.fixture(scope="module")
def five(tmp_path_factory):
    return _report(tmp_path_factory, {f"s{i}": _flip(k) for i, k in enumerate((7, 5, 3, 2, 1))})


def _values(chart: Chart, field: str) -> list:
    """The sort order the chart's encoding gives ``field`` (wherever it is encoded)."""
    found = []

    def walk(node):
        if isinstance(node, dict):
            if node.get("field") == field and isinstance(node.get("sort"), list):
                found.append(node["sort"])
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(chart.spec)
    return found


def test_systems_are_in_leaderboard_order_in_tables_and_charts(few):
    board = ["c_best", "b_middle", "a_worst"]
    assert few.board_order == board
    assert list(few.scores_table().df.columns) == board
    for chart in (few.rank_heatmap(), few.per_class_chart(), few.confusion_chart()):
        orders = _values(chart, "system")
        assert orders and all(o == board for o in orders), (chart.name, orders)
    assert all(o == board for o in _values(few.pvalue_chart(), "system_a"))
    pairs = few.pairwise_table().df
    assert list(zip(pairs["system A"], pairs["system B"])) == [("c_best", "b_middle"), ("c_best", "a_worst"),
                                                               ("b_middle", "a_worst")]
    assert "leaderboard order" in few.rank_heatmap().spec["title"]["subtitle"][0]


def test_below_four_systems_one_sentence_replaces_the_rank_correlations(few, five):
    assert MIN_SYSTEMS_AGREEMENT == 4
    note = few.correlation_heatmap("spearman")
    assert "With 3 systems" in note.text and "3 pairs of systems" in note.text
    assert few.correlation_heatmap("kendall") is None and few.inconsistency_table() is None
    shown = five.correlation_heatmap("spearman")      # (these five happen to agree under every measure)
    assert isinstance(shown, Chart) or "With 5 systems" not in shown.text
    assert five.inconsistency_table() is not None


def test_names_that_fit_are_drawn_whole():
    names = ["system_01", "system_02", "system_03"]
    assert shown_names(names, 66) == {n: n for n in names}
    long = ["team02_prompted_finetuned_distilled_run2_v2.1", "team04_augmented_baseline_contrastive_run1_v4.3"]
    shown = shown_names(long, 120)
    assert all("…" in s for s in shown.values()) and len(set(shown.values())) == 2


def test_a_static_caption_does_not_ask_to_hover():
    text = ("Spearman rank correlation between every pair of measures (hover a cell for the value). Where a "
            "measure is undefined, fewer systems count; hover for the names. Measures share a row.")
    out = print_text(text)
    assert "hover" not in out.lower()
    assert out == ("Spearman rank correlation between every pair of measures. Where a measure is undefined, fewer "
                   "systems count. Measures share a row.")
    chart = Chart(charts.rank_heatmap(pd.DataFrame({"system": ["x", "y"], "measure": "accuracy", "rank": [1, 2]})),
                  name="r", caption=text)
    assert chart.caption == text and "hover" not in chart.print_caption.lower()


def test_chart_subtitles_say_nothing_of_hovering(five):
    measures = ["accuracy", "macro_f1", "mcc", "macro_recall"]
    value = {("accuracy", "macro_f1"): 1.0, ("accuracy", "mcc"): 0.4, ("accuracy", "macro_recall"): 0.2,
             ("macro_f1", "mcc"): 0.4, ("macro_f1", "macro_recall"): 0.2, ("mcc", "macro_recall"): -0.1}
    corr = pd.DataFrame([{"measure_a": a, "measure_b": b, "method": "spearman", "value": v}
                         for (a, b), v in value.items()] +
                        [{"measure_a": m, "measure_b": m, "method": "spearman", "value": 1.0} for m in measures])
    heat = charts.correlation_heatmap(corr, order=measures).to_dict()
    assert "Accuracy and 1 more" in str(heat) and "+1" not in str(heat)
    specs = [heat, five.rank_distribution_chart().spec, five.leaderboard_chart().spec]
    for spec in specs:
        assert "hover" not in " ".join(spec["title"].get("subtitle", [])).lower()


def test_leaderboard_axis_is_zoomed_to_25_systems_intervals():
    rng = np.random.default_rng(0)
    values = np.sort(rng.uniform(0.45, 0.83, 25))[::-1]
    iv = pd.DataFrame({"system": [f"team{i:02d}_a_rather_long_participant_run_name_v{i}" for i in range(25)],
                       "measure": "macro_f1", "value": values, "lo": values - 0.02, "hi": values + 0.02})
    base = pd.DataFrame({"measure": "macro_f1", "baseline": ["majority", "uniform", "prevalence"],
                         "value": [0.0, 0.16, 0.25]})
    spec = charts.leaderboard_intervals(iv, measure="macro_f1", baselines=base,
                                        baseline_names={"majority": "majority class"}).to_dict()
    domain = next(layer["encoding"]["x"]["scale"]["domain"] for layer in spec["layer"]
                  if layer["mark"]["type"] == "point")
    span = (values + 0.02).max() - (values - 0.02).min()
    assert domain[1] - domain[0] <= 2.2 * span              # the systems fill about half the axis or more
    assert domain[0] > 0.0                                  # not from zero
    sub = " ".join(spec["title"]["subtitle"])
    assert "majority class = 0.000" in sub                  # the far baseline is named, in words
    assert spec["width"] >= 260                             # long names do not squeeze the plot


def test_benchmark_notes_say_settings_in_words():
    from evalreport.analyses.consensus import kemeny_note
    from evalreport.report.sections.benchmark import plain_note

    notes = ["wilcoxon: zero_method='zsplit', scipy method='auto', two-sided; Holm over all pairs",
             "consensus bootstrap: 200 paired resamples, an independent stream per task (SeedSequence(0).spawn(3); "
             "seeds in settings)", kemeny_note(5, 12), kemeny_note(30, 12)]
    for note in map(plain_note, notes):
        assert not any(code in note for code in ("zero_method", "SeedSequence", "2^S", "S = ", "scipy")), note
    assert "3 streams drawn from seed 0" in plain_note(notes[1])
