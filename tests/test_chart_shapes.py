"""The report's charts in the data shapes of benchmarks/report_shapes.py (3 systems x 3 classes;
25 systems with long names; 11 close ImageNet systems; 20 measures): what a reader would see as
overlapping, cut or unreadable text is tested on the chart specs - sizes, label limits and angles,
axis domains, which panels and layers exist, font sizes. Every spec validates (``to_dict()``)."""
from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

alt = pytest.importorskip("altair")

from evalreport import charts
from evalreport.charts import _common
from evalreport.charts.heatmaps import SYSTEM_ROW_LIMIT
from evalreport.report.display import Chart, Note
from evalreport.report.sections import ReportData

THREE = ["bert_large", "roberta_base", "tfidf_svm"]
IMAGENET = ["tf_efficientnet_l2_ns.apex", "tf_efficientnet_l2_ns_475.apex", "swin_large_patch4_window12_384.apex",
            "tf_efficientnet_b7_ns.apex", "tf_efficientnet_b6_ns.apex", "swin_base_patch4_window12_384.apex",
            "swin_large_patch4_window7_224.apex", "dm_nfnet_f6.apex", "tf_efficientnet_b5_ns.apex",
            "dm_nfnet_f5.apex", "xception41.apex"]
LONG = [f"team{i:02d}_contrastive_augmented_multilingual_run{i % 3 + 1}_v{i % 5}.{i % 7}" for i in range(1, 26)]
MEASURES20 = ["accuracy", "macro_recall", "macro_precision", "macro_f1", "macro_f1_hm", "weighted_f1",
              "gmean_recall", "hmean_recall", "kappa", "mcc", "mcc_macro", "sba", "gm1_macro", "jaccard_macro", "k",
              "confusion_entropy", "f1", "precision", "recall", "jaccard"]


# --------------------------------------------------------------------------------------------
# spec helpers


def views(spec):
    """Every unit view of a (layered / faceted / concatenated) spec."""
    stack = [spec]
    while stack:
        v = stack.pop()
        if "mark" in v:
            yield v
        for key in ("layer", "vconcat", "hconcat", "concat"):
            stack.extend(v.get(key, []))
        if "spec" in v:
            stack.append(v["spec"])


def mark(v):
    return v["mark"]["type"] if isinstance(v["mark"], dict) else v["mark"]


def data_of(spec, view=None):
    name = (view or {}).get("data", spec.get("data", {})).get("name")
    if name is None and view is not None and "values" in view.get("data", {}):
        return pd.DataFrame(view["data"]["values"])
    return pd.DataFrame(spec["datasets"][name or spec["data"]["name"]])


def texts_of(spec):
    return [v for v in views(spec) if mark(v) == "text"]


def subtitle(spec):
    sub = spec["title"].get("subtitle", [])
    return " | ".join([sub] if isinstance(sub, str) else sub)


def axis(view, channel):
    return view["encoding"][channel].get("axis", {})


def rect(spec):
    return next(v for v in views(spec) if mark(v) == "rect" and "fill" in v["encoding"])


def step(spec, key):
    """The band size (px) of a heatmap's width or height."""
    size = spec.get(key) or spec.get("spec", {}).get(key)
    return size["step"] if isinstance(size, dict) else size


# --------------------------------------------------------------------------------------------
# frames in the analyses' column contracts


def intervals(systems, values, width=0.04):
    values = np.asarray(values, dtype=float)
    return pd.DataFrame({"system": systems, "measure": "accuracy", "value": values, "lo": values - width / 2,
                         "hi": values + width / 2})


def chance(**values):
    return pd.DataFrame({"measure": "accuracy", "baseline": list(values), "value": list(values.values())})


def ranks(systems, measures, seed=0):
    rng = np.random.default_rng(seed)
    rows = []
    for m in measures:
        order = rng.permutation(len(systems)) + 1
        rows += [(s, m, float(r)) for s, r in zip(systems, order)]
    return pd.DataFrame(rows, columns=["system", "measure", "rank"])


def correlation(measures, value=lambda a, b: 1.0):
    return pd.DataFrame([(a, b, method, 1.0 if a == b else value(a, b)) for method in ("spearman", "kendall")
                         for i, a in enumerate(measures) for b in measures[i:]],
                        columns=["measure_a", "measure_b", "method", "value"])


def pairwise(systems, p=0.5):
    pairs = [(a, b) for i, a in enumerate(systems) for b in systems[i + 1:]]
    return pd.DataFrame({"system_a": [a for a, _ in pairs], "system_b": [b for _, b in pairs], "measure": "accuracy",
                         "test": "bootstrap", "p_value": p, "p_holm": p, "p_bh": p})


def confusion(systems, classes):
    rows = []
    for s in systems:
        for g in classes:
            for q in classes:
                count = 8 if g == q else 1
                rows.append((s, g, q, count, count / (8 + len(classes) - 1)))
    return pd.DataFrame(rows, columns=["system", "gold", "predicted", "count", "rate"])


# --------------------------------------------------------------------------------------------
# leaderboard


def test_leaderboard_baseline_labels_are_horizontal_above_the_plot_on_separate_lines():
    df = intervals(THREE, [0.641, 0.637, 0.593], width=0.12)
    spec = charts.leaderboard_intervals(df, measure="accuracy",
                                        baselines=chance(majority=0.228, uniform=0.317, prevalence=0.332)).to_dict()
    labels = pd.concat([data_of(spec, v) for v in texts_of(spec)])
    for v in texts_of(spec):
        assert v["mark"].get("angle", 0) == 0                  # never rotated into the tick labels
        assert v["encoding"]["y"]["scale"] is None             # placed in pixels, above the plot
    assert (labels["y"] < 0).all()
    y = labels.set_index("text")["y"]
    # uniform and prevalence are close: their labels are on different lines
    assert y["uniform = 0.317"] != y["prevalence = 0.332"]
    # every baseline is near enough to the systems to be drawn on the axis
    domain = spec["layer"][0]["encoding"]["x"]["scale"]["domain"]
    assert domain[0] < 0.228 and domain[1] > 0.70
    assert "off the axis" not in subtitle(spec)


def test_leaderboard_zooms_to_close_systems_and_names_far_baselines():
    values = [0.883, 0.882, 0.871, 0.868, 0.865, 0.864, 0.863, 0.863, 0.861, 0.857, 0.785]
    df = intervals(IMAGENET, values).assign(lo=np.nan, hi=np.nan)        # confusion-matrix input: no intervals
    spec = charts.leaderboard_intervals(df, measure="accuracy",
                                        baselines=chance(majority=0.001, uniform=0.001, prevalence=0.001)).to_dict()
    point = next(v for v in views(spec) if mark(v) == "point")
    lo, hi = point["encoding"]["x"]["scale"]["domain"]
    assert 0.75 < lo < 0.785 and 0.883 < hi < 0.9                      # the systems fill the axis
    assert "off the axis, far below every system: majority, uniform, prevalence = 0.001" in subtitle(spec)
    assert not [v for v in views(spec) if mark(v) == "rule"]           # no intervals, no baseline on the axis
    # the longest name fits: its label limit is at least its width, and the plot stays in the page
    limit = axis(point, "y")["labelLimit"]
    assert limit >= _common.text_width("swin_large_patch4_window12_384.apex") and limit <= _common.MAX_SYSTEM_LABEL
    assert spec["width"] + limit <= _common.WIDE_PAGE
    assert {"system"} <= {t["field"] for t in point["encoding"]["tooltip"]}
    assert point["encoding"]["x"]["title"].startswith("Accuracy")     # the label, not the id


def test_leaderboard_with_25_long_names_truncates_with_the_name_in_the_tooltip():
    df = intervals(LONG, np.linspace(0.83, 0.45, 25))
    spec = charts.leaderboard_intervals(df, measure="accuracy").to_dict()
    point = next(v for v in views(spec) if mark(v) == "point")
    assert axis(point, "y")["labelLimit"] == _common.MAX_SYSTEM_LABEL
    assert spec["width"] >= 260 and step(spec, "height") >= 16      # long names do not squeeze the plot
    assert spec["width"] + _common.MAX_SYSTEM_LABEL <= _common.WIDE_PAGE


# --------------------------------------------------------------------------------------------
# heatmaps: x labels that do not fit their column are angled; measures by their labels


@pytest.mark.parametrize("make", ["rank", "pvalue"])
def test_long_system_names_on_a_3_column_heatmap_are_angled(make):
    if make == "rank":
        spec = charts.rank_heatmap(ranks(THREE, MEASURES20[:8])).to_dict()
    else:
        spec = charts.pvalue_heatmap(pairwise(THREE), measure="accuracy", test="bootstrap").to_dict()
    x = axis(rect(spec), "x")
    assert x["labelAngle"] in (-40, -90) and x["labelAlign"] == "right" and x["labelLimit"] >= 110
    # short names fit their columns: horizontal
    short = ["a", "b", "c"]
    spec = (charts.rank_heatmap(ranks(short, MEASURES20[:8])) if make == "rank"
            else charts.pvalue_heatmap(pairwise(short), measure="accuracy", test="bootstrap")).to_dict()
    assert axis(rect(spec), "x")["labelAngle"] == 0


def test_heatmaps_show_measure_labels_with_the_id_in_the_tooltip():
    spec = charts.rank_heatmap(ranks(THREE, ["sba", "k", "gm1_macro", "macro_f1"])).to_dict()
    r = rect(spec)
    assert r["encoding"]["y"]["field"] == "measure_name"
    assert r["encoding"]["y"]["sort"] == ["Symmetric balanced accuracy", "K (Sebastiani)", "GM_1 (macro)",
                                          "Macro F1"]
    assert {"measure", "measure_label"} <= {t["field"] for t in r["encoding"]["tooltip"]}


def test_short_measure_labels():
    assert charts.short_measure_label("macro_f1") == "Macro F1"
    assert charts.short_measure_label("gmean_recall") == "GmacR"
    assert charts.short_measure_label("mcc_macro") == "MCC (macro)"
    assert charts.short_measure_label("sba") == "Symmetric balanced accuracy"
    assert charts.short_measure_label("not_a_measure") == "not_a_measure"
    assert charts.measure_label("sba") == "Symmetric balanced accuracy"


def test_what_if_heatmap_stays_small_and_keeps_scenario_names():
    wi = pd.DataFrame([(s, sc, float(r)) for sc in ("observed", "equal prevalence", "reversed prevalence")
                       for s, r in zip(THREE, (1, 2, 3))], columns=["system", "measure", "rank"])
    spec = charts.rank_heatmap(wi, measure_title="Class distribution", measure_labels=False).to_dict()
    assert step(spec, "width") <= 46 and step(spec, "height") <= 28     # a 3 x 3 chart is ~140 px, not 500
    assert rect(spec)["encoding"]["x"]["sort"] == ["observed", "equal prevalence", "reversed prevalence"]
    text = texts_of(spec)[0]
    assert text["mark"]["fontSize"] <= 11                               # never a "huge font"


def test_rank_legend_labels_do_not_run_together_with_25_systems():
    spec = charts.rank_heatmap(ranks(LONG, MEASURES20[:16])).to_dict()
    legend = rect(spec)["encoding"]["fill"]["legend"]
    assert legend["values"] == [1, 5, 10, 15, 20, 25]
    # systems on the rows: long names get a label limit that fits most of them
    assert axis(rect(spec), "y")["labelLimit"] == SYSTEM_ROW_LIMIT
    assert texts_of(spec) and texts_of(spec)[0]["mark"]["fontSize"] >= _common.MIN_TEXT_FONT


def test_pvalue_heatmap_25_systems_within_the_page_and_upright_labels():
    spec = charts.pvalue_heatmap(pairwise(LONG), measure="accuracy", test="bootstrap").to_dict()
    s = step(spec, "width")
    assert s * 25 + axis(rect(spec), "y")["labelLimit"] <= _common.WIDE_PAGE
    assert axis(rect(spec), "x")["labelAngle"] == -90 and axis(rect(spec), "x")["labelFontSize"] <= s
    assert not texts_of(spec)                                           # cells too small for ".500"


def test_pvalue_heatmap_colour_scale_starts_at_the_smallest_attainable_p():
    spec = charts.pvalue_heatmap(pairwise(LONG, p=0.3), measure="accuracy", test="bootstrap", floor=0.3).to_dict()
    fill = rect(spec)["encoding"]["fill"]
    assert fill["scale"]["domain"] == [0.3, 1] and fill["legend"]["values"][0] == 0.3
    assert "smallest attainable p = 0.3" in subtitle(spec) and "no pair can reach p < 0.05" in subtitle(spec)


# --------------------------------------------------------------------------------------------
# correlation: no 6 px text; identical rankings share a row


def test_correlation_20_measures_drops_the_printed_values():
    measures = MEASURES20
    corr = correlation(measures, lambda a, b: 0.9 - 0.02 * abs(measures.index(a) - measures.index(b)))
    spec = charts.correlation_heatmap(corr, order=measures).to_dict()
    assert not texts_of(spec)
    assert step(spec, "width") >= 14 and "too many measures to print the values" in subtitle(spec)


def test_correlation_merges_measures_with_identical_rankings():
    measures = ["accuracy", "macro_recall", "kappa", "macro_f1", "hmean_recall"]
    group = {"accuracy": 0, "macro_recall": 0, "kappa": 0, "macro_f1": 1, "hmean_recall": 1}
    corr = correlation(measures, lambda a, b: 1.0 if group[a] == group[b] else 0.5)
    assert charts.identical_rankings(corr, order=measures) == [["accuracy", "macro_recall", "kappa"],
                                                               ["macro_f1", "hmean_recall"]]
    spec = charts.correlation_heatmap(corr, order=measures).to_dict()
    data = data_of(spec)
    assert len(data) == 4                                               # 2 x 2, not 5 x 5
    assert rect(spec)["encoding"]["y"]["sort"] == ["Accuracy and 2 more", "Macro F1 and 1 more"]
    assert "Accuracy, Macro recall, Cohen's kappa" in set(data["members_a"])
    text = texts_of(spec)[0]
    assert set(data["label"]) == {"1.00", ".50"} and text["mark"]["fontSize"] >= 9


# --------------------------------------------------------------------------------------------
# small multiples: no empty panel with a lone axis, names that fit


@pytest.mark.parametrize("n, independent", [(8, True), (9, False), (3, False)])
def test_confusion_grid_has_no_lone_axis_in_an_empty_slot(n, independent):
    spec = charts.confusion_grid(confusion([f"s{i}" for i in range(n)], ["one", "two", "three", "four"])).to_dict()
    assert spec["columns"] == 3 or n < 3
    resolved = spec.get("resolve", {}).get("axis", {})
    assert (resolved == {"x": "independent", "y": "independent"}) == independent


def test_calibration_dumbbell_with_long_names_has_fewer_wider_panels():
    rows = [(s, m, v, c) for s in IMAGENET for m in ("accuracy", "macro_f1", "kappa")
            for c, v in ((False, 0.8), (True, 0.81))]
    df = pd.DataFrame(rows, columns=["system", "measure", "value", "calibrated"])
    spec = charts.calibration_dumbbell(df).to_dict()
    point = next(v for v in views(spec) if mark(v) == "circle")
    assert spec["columns"] == 2 and spec["spec"]["width"] >= 90
    assert axis(point, "y")["labelLimit"] >= _common.text_width("swin_large_patch4_window12_384.apex")
    assert spec["facet"]["sort"] == ["Accuracy", "Macro F1", "Cohen's kappa"]


def test_rank_distribution_with_25_ranks_fits_the_page():
    rows = [(s, "accuracy", r, p) for i, s in enumerate(LONG) for r, p in ((i + 1, 0.7), (min(i + 2, 25), 0.3))]
    df = pd.DataFrame(rows, columns=["system", "measure", "rank", "probability"])
    spec = charts.rank_distribution_chart(df, measure="accuracy").to_dict()
    bubble = next(v for v in views(spec) if mark(v) == "circle")
    # the widest a chart is shown at its natural size (the PDF's text width): names use what the ranks leave
    from evalreport.charts._common import WIDE_PAGE

    assert step(spec, "width") * 25 + axis(bubble, "y")["labelLimit"] <= WIDE_PAGE
    printed = data_of(spec)
    # only probabilities whose bubble can hold "NN%" are printed
    assert set(printed.loc[printed["text"] != "", "probability"]) <= {0.7}


# --------------------------------------------------------------------------------------------
# the report page: a chart is shown at its natural size


def test_css_never_scales_a_chart_up():
    css = (Path(__file__).resolve().parent.parent / "templates" / "html" / "report.css").read_text()
    rule = re.search(r"\.vega-chart > svg\.marks\s*\{([^}]*)\}", css).group(1)
    assert "max-width: 100%" in rule and not re.search(r"(?<!-)width:\s*100%", rule)


# --------------------------------------------------------------------------------------------
# the report sections: a sentence instead of a chart where the chart would say nothing


def _tables(tmp_path, meta=None, **frames) -> ReportData:
    for name, df in frames.items():
        df.to_csv(tmp_path / f"{name}.csv", index=False)
    (tmp_path / "report.json").write_text(json.dumps(meta or {}))
    (tmp_path / "manifest.json").write_text(json.dumps({"primary": "accuracy", "measures": MEASURES20[:5]}))
    return ReportData(tmp_path)


def test_all_measures_agree_is_one_note_not_two_charts(tmp_path):
    rep = _tables(tmp_path, rank_correlation=correlation(MEASURES20[:5]))
    note = rep.correlation_heatmap("spearman")
    assert isinstance(note, Note) and "same order" in note.text
    assert rep.correlation_heatmap("kendall") is None                  # said once


def test_partly_agreeing_measures_chart_names_the_merged_groups(tmp_path):
    measures = MEASURES20[:5]
    corr = correlation(measures, lambda a, b: 1.0 if "macro_f1" not in (a, b) else 0.5)
    rep = _tables(tmp_path, rank_correlation=corr)
    chart = rep.correlation_heatmap("spearman")
    assert isinstance(chart, Chart) and "share a row: Accuracy, Macro recall" in chart.caption
    assert "as in the Spearman chart" in rep.correlation_heatmap("kendall").caption


def test_confusion_input_says_once_that_resampling_needs_items(tmp_path):
    rep = _tables(tmp_path, meta={"input": "confusion matrices"})
    note = rep.rank_distribution_chart()
    assert isinstance(note, Note) and "pairwise tests" in note.text
    assert rep.pvalue_chart() is None


def test_balanced_test_set_calibration_is_a_note(tmp_path):
    rows = [(s, m, 0.8 + 0.01 * i, "", "", c) for i, s in enumerate(THREE) for m in MEASURES20[:5]
            for c in (False, True)]
    scores = pd.DataFrame(rows, columns=["system", "measure", "value", "undefined", "reason", "calibrated"])
    rk = scores.assign(rank=scores.groupby(["measure", "calibrated"])["value"].rank(ascending=False))
    rep = _tables(tmp_path, scores=scores, ranks=rk[["system", "measure", "rank", "calibrated"]])
    assert isinstance(rep.calibration_chart(), Note)
    assert rep.rank_heatmap(calibrated=True) is None
    assert isinstance(rep.rank_heatmap(), Chart)


def test_what_if_with_the_same_ranks_everywhere_is_a_note(tmp_path):
    wi = pd.DataFrame([(s, sc, 0.8 - 0.1 * r, r) for sc in ("observed", "equal prevalence")
                       for r, s in enumerate(THREE, 1)], columns=["system", "scenario", "value", "rank"])
    rep = _tables(tmp_path, what_if=wi)
    assert isinstance(rep.what_if_chart(), Note)
    wi.loc[(wi["scenario"] == "equal prevalence") & (wi["rank"] < 3), "rank"] = [2, 1]
    chart = _tables(tmp_path, what_if=wi).what_if_chart()
    assert isinstance(chart, Chart)
    x = next(v for v in views(chart.spec) if mark(v) == "rect" and "fill" in v["encoding"])["encoding"]["x"]
    assert x["sort"] == ["observed", "equal prevalence"]


def test_per_class_heatmap_of_one_metric_has_no_repeated_panel_header():
    rows = [(s, c, m, 0.5) for s in LONG for c in ("a", "b", "c", "d") for m in ("recall", "precision", "f1")]
    df = pd.DataFrame(rows, columns=["system", "class", "metric", "value"])
    spec = charts.per_class_heatmap(df, metrics=("f1",)).to_dict()
    assert "facet" not in spec and spec["title"]["text"] == "Per-class f1"
    assert set(data_of(spec)["metric"]) == {"f1"}
    assert "facet" in charts.per_class_heatmap(df).to_dict()


def test_leaderboard_with_one_significance_group_has_no_one_entry_legend():
    df = intervals(THREE, [0.641, 0.637, 0.593])
    one = pd.DataFrame({"system": THREE, "group": 1})
    spec = charts.leaderboard_intervals(df, measure="accuracy", groups=one).to_dict()
    assert not [v for v in views(spec) if "color" in v.get("encoding", {})]
    assert "every system in one significance group" in subtitle(spec)
    two = one.assign(group=[1, 1, 2])
    spec = charts.leaderboard_intervals(df, measure="accuracy", groups=two).to_dict()
    assert [v for v in views(spec) if "color" in v.get("encoding", {})]
