"""Chart builders (evalreport.charts: points, heatmaps, crossval): every spec validates against the Vega-Lite
schema (``to_dict()``), shows what it must (marks, encodings, sort orders, printed values),
and handles empty, NaN and mis-specified inputs with a clear ValueError or a marked cell.
Rendering to SVG is tested separately (marked slow)."""
from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

alt = pytest.importorskip("altair")

from evalreport import charts as b
from evalreport.charts import _common as c

SYSTEMS = ["alpha", "beta", "gamma", "delta"]
MEASURES = ["accuracy", "macro_f1", "mcc", "confusion_entropy"]
CLASSES = ["big", "mid", "rare"]


# --------------------------------------------------------------------------------------------
# small synthetic frames in the analyses' column contracts


def prevalence():
    return pd.DataFrame({"class": ["mid", "big", "rare"], "count": [30, 60, 10], "share": [0.3, 0.6, 0.1]})


def intervals():
    return pd.DataFrame({"system": SYSTEMS, "measure": "accuracy", "value": [0.71, 0.83, 0.64, 0.80],
                         "lo": [0.66, 0.79, 0.58, 0.75], "hi": [0.76, 0.87, 0.70, 0.85]})


def baselines():
    return pd.DataFrame({"measure": ["accuracy", "accuracy", "mcc"], "baseline": ["majority", "uniform", "zero"],
                         "value": [0.6, 1 / 3, 0.0]})


def groups():
    return pd.DataFrame({"system": ["beta", "delta", "delta", "alpha", "gamma"], "group": ["a", "a", "b", "b", "c"]})


def scores():
    rng = np.random.default_rng(1)
    rows = []
    for calibrated in (False, True):
        for m in MEASURES:
            for s in SYSTEMS:
                v = float(rng.uniform(0.3, 0.9))
                rows.append((s, m, v, False, "", calibrated))
    df = pd.DataFrame(rows, columns=["system", "measure", "value", "undefined", "reason", "calibrated"])
    hole = (df["system"] == "gamma") & (df["measure"] == "mcc")
    df.loc[hole, ["value", "undefined", "reason"]] = [np.nan, True, "0/0: constant prediction"]
    return df


def ranks():
    df = scores()
    df["rank"] = df.groupby(["measure", "calibrated"])["value"].rank(ascending=False)
    return df[["system", "measure", "rank", "calibrated"]]


def rank_correlation():
    rows = []
    for i, a in enumerate(MEASURES):
        for j, other in enumerate(MEASURES):
            if i <= j:  # upper triangle only: the builder mirrors
                v = 1.0 if i == j else round(0.9 - 0.35 * (j - i), 2)
                rows += [(a, other, "spearman", v), (a, other, "kendall", v - 0.1 if i != j else 1.0)]
    return pd.DataFrame(rows, columns=["measure_a", "measure_b", "method", "value"])


def rank_distribution():
    p = np.array([[0.7, 0.3, 0, 0], [0.3, 0.6, 0.1, 0], [0, 0.1, 0.5, 0.4], [0, 0, 0.4, 0.6]])
    rows = [(s, "accuracy", k + 1, p[i, k]) for i, s in enumerate(["beta", "delta", "alpha", "gamma"])
            for k in range(4)]
    return pd.DataFrame(rows, columns=["system", "measure", "rank", "probability"])


def rank_board():
    return pd.DataFrame({"system": ["beta", "delta", "alpha", "gamma"], "rank": [1, 2, 3, 4], "rank_lo": [1, 1, 2, 3],
                         "rank_hi": [2, 3, 4, 4]})


def pairwise():
    rows, ps = [], iter([0.0004, 0.03, 0.2, 0.5, 0.01, 0.9])
    for i, a in enumerate(SYSTEMS):
        for other in SYSTEMS[i + 1:]:
            p = next(ps)
            rows.append((a, other, "accuracy", "mcnemar", p, min(1, 3 * p), min(1, 2 * p)))
    return pd.DataFrame(rows, columns=["system_a", "system_b", "measure", "test", "p_value", "p_holm", "p_bh"])


def per_class():
    rng = np.random.default_rng(2)
    rows = [(s, c, m, float(rng.uniform(0, 1))) for m in ("recall", "precision", "f1") for s in SYSTEMS
            for c in CLASSES]
    df = pd.DataFrame(rows, columns=["system", "class", "metric", "value"])
    df.loc[(df["system"] == "gamma") & (df["class"] == "rare") & (df["metric"] != "recall"), "value"] = np.nan
    return df


def confusion():
    C = np.array([[[50, 8, 2], [5, 22, 3], [4, 1, 5]], [[58, 2, 0], [10, 20, 0], [10, 0, 0]]])
    rows = []
    for i, s in enumerate(SYSTEMS[:2]):
        for g, gc in enumerate(CLASSES):
            for p, pc in enumerate(CLASSES):
                rows.append((s, gc, pc, int(C[i, g, p]), C[i, g, p] / C[i, g].sum()))
    return pd.DataFrame(rows, columns=["system", "gold", "predicted", "count", "rate"])


ESTIMATORS = ["F_avg", "F~_avg", "F_pr,re", "F~_pr,re", "F_tp,fp"]


def cv():
    rows = [(s, "f1", e, 0.5 + 0.1 * i + 0.01 * j) for i, s in enumerate(SYSTEMS[:3]) for j, e in enumerate(ESTIMATORS)]
    df = pd.DataFrame(rows, columns=["system", "measure", "aggregation", "value"])
    df.loc[(df["system"] == "alpha") & (df["aggregation"] == "F~_avg"), "value"] = np.nan
    return df


def simulation():
    rows = []
    for stratified in (True, False):
        for true_f in (0.6, 0.8):
            for pos in (0.01, 0.05, 0.25):
                for j, e in enumerate(ESTIMATORS):
                    rows.append((pos, true_f, stratified, e, (j - 2) * 0.01 / pos / 100, 0.1 / (1 + pos * 10)))
    return pd.DataFrame(rows, columns=["positives", "true_f", "stratified", "estimator", "rel_bias", "rel_sd"])


#: every builder with a valid call on the frames above: name -> (frame factory, call)
CASES = {
    "prevalence_bar": (prevalence, lambda df: b.prevalence_bar(df)),
    "leaderboard_intervals": (intervals, lambda df: b.leaderboard_intervals(
        df, measure="accuracy", baselines=baselines(), groups=groups())),
    "rank_heatmap": (ranks, lambda df: b.rank_heatmap(df)),
    "correlation_heatmap": (rank_correlation, lambda df: b.correlation_heatmap(df, method="spearman")),
    "calibration_dumbbell": (scores, lambda df: b.calibration_dumbbell(df)),
    "rank_distribution_chart": (rank_distribution, lambda df: b.rank_distribution_chart(df, measure="accuracy")),
    "rank_blob": (rank_distribution, lambda df: b.rank_blob(df, rank_board(), measure="accuracy")),
    "pvalue_heatmap": (pairwise, lambda df: b.pvalue_heatmap(df, measure="accuracy", test="mcnemar")),
    "per_class_heatmap": (per_class, lambda df: b.per_class_heatmap(df)),
    "confusion_grid": (confusion, lambda df: b.confusion_grid(df)),
    "cv_estimates": (cv, lambda df: b.cv_estimates(df)),
    "simulation_bias": (simulation, lambda df: b.simulation_bias(df[df["stratified"]])),
    "simulation_sd": (simulation, lambda df: b.simulation_sd(df[df["true_f"] == 0.8], column="stratified")),
}


# --------------------------------------------------------------------------------------------
# spec helpers


def views(spec):
    """Every unit view (a dict with a ``mark``) in a Vega-Lite spec, depth first."""
    if isinstance(spec, dict):
        if "mark" in spec:
            yield spec
        for key in ("layer", "hconcat", "vconcat", "concat"):
            for child in spec.get(key, []):
                yield from views(child)
        if "spec" in spec:
            yield from views(spec["spec"])


def mark_type(view):
    m = view["mark"]
    return m if isinstance(m, str) else m["type"]


def rows(spec, name=None):
    """The records of the spec's datasets (all of them concatenated, or the one named)."""
    sets = spec.get("datasets", {})
    if name is not None:
        return pd.DataFrame(sets[name])
    return pd.concat([pd.DataFrame(v) for v in sets.values()], ignore_index=True)


def view_rows(spec, view):
    """The records a unit view draws (its own data, or the nearest enclosing data)."""
    def find(node, inherited):
        data = node.get("data", {}).get("name", inherited) if isinstance(node, dict) else inherited
        if node is view:
            return data
        for key in ("layer", "hconcat", "vconcat", "concat"):
            for child in node.get(key, []):
                got = find(child, data)
                if got is not None:
                    return got
        if "spec" in node:
            return find(node["spec"], data)
        return None
    return rows(spec, find(spec, None))


def title_text(spec):
    t = spec.get("title", {})
    sub = t.get("subtitle", [])
    return t.get("text", ""), [sub] if isinstance(sub, str) else list(sub)


def text_views(spec):
    return [v for v in views(spec) if mark_type(v) == "text"]


# --------------------------------------------------------------------------------------------
# every builder


@pytest.mark.parametrize("name", sorted(CASES))
def test_builder_spec_validates_and_is_titled(name):
    make, call = CASES[name]
    chart = call(make())
    spec = chart.to_dict()  # validates against the Vega-Lite schema
    assert spec["$schema"].startswith("https://vega.github.io/schema/vega-lite/")
    assert title_text(spec)[0], f"{name} has no title"
    assert list(views(spec)), f"{name} draws nothing"
    for view in views(spec):
        enc = view.get("encoding", {})
        # every drawn view has positional encodings, and every data view a tooltip or text
        assert enc, f"{name}: a view without encodings"


@pytest.mark.parametrize("name", sorted(CASES))
def test_builder_does_not_mutate_its_input(name):
    make, call = CASES[name]
    df = make()
    before = df.copy()
    call(df)
    pd.testing.assert_frame_equal(df, before)


@pytest.mark.parametrize("name", sorted(CASES))
def test_empty_frame_is_a_clear_error(name):
    make, call = CASES[name]
    with pytest.raises(ValueError, match="no rows"):
        call(make().iloc[:0])


@pytest.mark.parametrize("name", sorted(CASES))
def test_missing_column_is_a_clear_error(name):
    make, call = CASES[name]
    df = make()
    col = "estimator" if make is simulation else df.columns[1]  # a column every call needs
    with pytest.raises(ValueError, match="missing column"):
        call(df.drop(columns=[col]))


def test_not_a_frame_is_a_type_error():
    with pytest.raises(TypeError, match="DataFrame"):
        b.prevalence_bar({"class": ["a"], "count": [1], "share": [1.0]})


def test_public_names_exported():
    from evalreport.charts import (
        benchmark,  # its builders are tested in test_benchmark_charts.py
        crossval,
        curves,  # its builders are tested in test_score_curves.py
        heatmaps,
        points,
        ranks,
    )

    builders = set(b.__all__) - {"THEME_NAME", "use_theme", "measure_label", "short_measure_label",
                                 "identical_rankings"} - set(benchmark.__all__) - set(curves.__all__)
    assert set(CASES) == builders
    for name in builders:
        assert any(getattr(m, name, None) is getattr(b, name) for m in (points, heatmaps, crossval, ranks))


# --------------------------------------------------------------------------------------------
# what each chart shows


def test_prevalence_bar_sorted_largest_first_with_counts_printed():
    spec = b.prevalence_bar(prevalence()).to_dict()
    bar = next(v for v in views(spec) if mark_type(v) == "bar")
    assert bar["encoding"]["y"]["sort"] == ["big", "mid", "rare"]
    assert bar["encoding"]["x"]["field"] == "share"
    data = rows(spec)
    assert data.set_index("class")["label"]["big"] == "60 (60.0%)"
    assert "largest / smallest = 6.0" in title_text(spec)[1][0]


def test_leaderboard_sorts_systems_by_value_and_draws_baselines_and_groups():
    spec = b.leaderboard_intervals(intervals(), measure="accuracy", baselines=baselines(),
                                   groups=groups()).to_dict()
    points = [v for v in views(spec) if mark_type(v) == "point"]
    assert len(points) == 1
    assert points[0]["encoding"]["y"]["sort"] == ["beta", "delta", "alpha", "gamma"]
    assert points[0]["encoding"]["color"]["field"] == "group"
    # error bars: a rule from lo to hi
    bars = [v for v in views(spec) if mark_type(v) == "rule" and v["encoding"].get("x2")]
    assert bars and bars[0]["encoding"]["x"]["field"] == "lo" and bars[0]["encoding"]["x2"]["field"] == "hi"
    # dashed baseline rules, one per baseline of this measure, with their names written
    dashed = [v for v in views(spec) if mark_type(v) == "rule" and v["mark"].get("strokeDash")]
    assert len(dashed) == 1 and len(view_rows(spec, dashed[0])) == 2
    texts = pd.concat([view_rows(spec, v) for v in text_views(spec)])
    assert sorted(texts["text"]) == ["majority = 0.600", "uniform = 0.333"]
    # a system in two significance groups gets both letters
    data = rows(spec).dropna(subset=["system"]).drop_duplicates("system").set_index("system")
    assert data.loc["delta", "group"] == "a,b" and data.loc["gamma", "group"] == "c"
    # the x domain includes the lowest baseline
    assert points[0]["encoding"]["x"]["scale"]["domain"][0] < 1 / 3


def test_leaderboard_shows_chosen_baselines_on_separate_lines():
    many = pd.DataFrame({"measure": "accuracy",
                         "baseline": ["constant:a", "majority", "uniform", "prevalence", "contingency"],
                         "value": [0.05, 0.60, 0.333, 0.34, 0.338]})
    spec = b.leaderboard_intervals(intervals(), measure="accuracy", baselines=many).to_dict()
    dashed = next(v for v in views(spec) if mark_type(v) == "rule" and v["mark"].get("strokeDash"))
    assert sorted(view_rows(spec, dashed)["baseline"]) == ["majority", "prevalence", "uniform"]
    labels = pd.concat([view_rows(spec, v) for v in text_views(spec)])
    assert sorted(labels["text"]) == ["majority = 0.600", "prevalence = 0.340", "uniform = 0.333"]
    # uniform and prevalence are 0.007 apart: their labels go on different lines above the plot
    y = labels.set_index("text")["y"]
    assert y["uniform = 0.333"] != y["prevalence = 0.340"] and (y < 0).all()
    spec = b.leaderboard_intervals(intervals(), measure="accuracy", baselines=many, show_baselines=None).to_dict()
    dashed = next(v for v in views(spec) if mark_type(v) == "rule" and v["mark"].get("strokeDash"))
    assert len(view_rows(spec, dashed)) == 5
    # none of the chosen names present: all baselines of the measure are drawn
    other = many.assign(baseline=["p", "q", "r", "s", "t"])
    spec = b.leaderboard_intervals(intervals(), measure="accuracy", baselines=other).to_dict()
    dashed = next(v for v in views(spec) if mark_type(v) == "rule" and v["mark"].get("strokeDash"))
    assert len(view_rows(spec, dashed)) == 5


def test_leaderboard_lower_is_better_measure_sorts_ascending():
    df = intervals().assign(measure="confusion_entropy")
    spec = b.leaderboard_intervals(df, measure="confusion_entropy").to_dict()
    point = next(v for v in views(spec) if mark_type(v) == "point")
    assert point["encoding"]["y"]["sort"] == ["gamma", "alpha", "delta", "beta"]
    assert "lower is better" in point["encoding"]["x"]["title"]
    # explicit override wins over the registry
    spec = b.leaderboard_intervals(df, measure="confusion_entropy", higher_is_better=True).to_dict()
    assert next(v for v in views(spec) if mark_type(v) == "point")["encoding"]["y"]["sort"][0] == "beta"


def test_leaderboard_undefined_systems_are_named_not_drawn():
    df = intervals()
    df.loc[df["system"] == "gamma", ["value", "lo", "hi"]] = np.nan
    spec = b.leaderboard_intervals(df, measure="accuracy").to_dict()
    assert "gamma" not in set(rows(spec)["system"])
    assert any("undefined (not drawn): gamma" in s for s in title_text(spec)[1])
    df[["value", "lo", "hi"]] = np.nan
    with pytest.raises(ValueError, match="undefined for every system"):
        b.leaderboard_intervals(df, measure="accuracy")


def test_leaderboard_unknown_measure_lists_the_available_ones():
    with pytest.raises(ValueError, match="available: accuracy"):
        b.leaderboard_intervals(intervals(), measure="mcc")


def _heatmap_layers(spec):
    marks = [mark_type(v) for v in views(spec)]
    assert marks.count("rect") >= 2 and "text" in marks, marks
    text = text_views(spec)[0]
    assert text["encoding"]["text"]["field"] == "label"
    return marks


def test_rank_heatmap_prints_ranks_and_orders_systems_by_mean_rank():
    df = ranks()
    spec = b.rank_heatmap(df).to_dict()
    _heatmap_layers(spec)
    data = rows(spec)
    assert set(data.columns) >= {"system", "measure", "label", "fill", "ink"}
    raw = df[~df["calibrated"]]
    assert len(data) == len(raw)  # only the raw rows by default
    expected = raw.groupby("system")["rank"].mean().sort_values(kind="stable").index.tolist()
    rect = next(v for v in views(spec) if mark_type(v) == "rect" and "fill" in v["encoding"])
    axes = {rect["encoding"][c]["field"]: rect["encoding"][c]["sort"] for c in ("x", "y")}
    assert axes["system"] == expected
    # the printed label is the rank
    row = data[(data["system"] == "alpha") & (data["measure"] == "accuracy")].iloc[0]
    assert row["label"] == f"{row['fill']:.0f}"
    # rank 1 is dark (reversed colour scale), and its text white
    assert rect["encoding"]["fill"]["scale"]["domain"][0] == 1
    assert set(data.loc[data["fill"] == 1, "ink"]) == {c.DARK_INK}


def test_rank_heatmap_calibrated_rows_and_nan_ranks():
    df = ranks()
    df.loc[(df["system"] == "gamma") & (df["measure"] == "mcc") & df["calibrated"], "rank"] = np.nan
    data = rows(b.rank_heatmap(df, calibrated=True).to_dict())
    assert len(data) == int(df["calibrated"].sum())
    cell = data[(data["system"] == "gamma") & (data["measure"] == "mcc")].iloc[0]
    assert cell["label"] == c.UNDEFINED_TEXT and not cell["defined"]
    with pytest.raises(ValueError, match="'calibrated' column"):
        b.rank_heatmap(df.drop(columns="calibrated"), calibrated=True)


def test_heatmap_orientation_puts_the_longer_list_on_rows():
    many = pd.DataFrame([(s, f"measure_{i}", 1.0 + j) for i in range(10) for j, s in enumerate(SYSTEMS)],
                        columns=["system", "measure", "rank"])
    rect = next(v for v in views(b.rank_heatmap(many).to_dict()) if mark_type(v) == "rect")
    assert rect["encoding"]["y"]["field"] == "measure_name"
    rect = next(v for v in views(b.rank_heatmap(many, orient="systems_rows").to_dict()) if mark_type(v) == "rect")
    assert rect["encoding"]["y"]["field"] == "system"
    with pytest.raises(ValueError, match="orient"):
        b.rank_heatmap(many, orient="diagonal")


def test_correlation_heatmap_fixed_diverging_scale_values_printed_and_mirrored():
    spec = b.correlation_heatmap(rank_correlation(), method="kendall").to_dict()
    _heatmap_layers(spec)
    rect = next(v for v in views(spec) if mark_type(v) == "rect" and "fill" in v["encoding"])
    scale = rect["encoding"]["fill"]["scale"]
    assert scale["domain"] == [-1, 1] and scale["domainMid"] == 0
    data = rows(spec)
    n = len(MEASURES)
    assert len(data) == n * n  # upper triangle given, full matrix drawn
    pair = data[(data["measure_a"] == "mcc") & (data["measure_b"] == "accuracy")].iloc[0]
    assert pair["label"] == f"{0.9 - 0.35 * 2 - 0.1:.2f}".replace("0.", ".", 1)  # ".10": no leading zero
    # measures shown by their short registry labels, in the given order
    assert rect["encoding"]["x"]["sort"] == ["Accuracy", "Macro F1", "MCC", "Confusion entropy"]
    with pytest.raises(ValueError, match="available: spearman, kendall"):
        b.correlation_heatmap(rank_correlation(), method="pearson")


def test_correlation_heatmap_drops_text_when_cells_are_too_small():
    names = [f"m{i}" for i in range(40)]
    df = pd.DataFrame([(a, c, "spearman", 0.5) for a in names for c in names],
                      columns=["measure_a", "measure_b", "method", "value"])
    spec = b.correlation_heatmap(df).to_dict()
    assert not text_views(spec)
    assert [mark_type(v) for v in views(spec)] == ["rect", "rect"]  # undefined + coloured cells


def test_calibration_dumbbell_facets_by_measure_with_raw_and_calibrated():
    spec = b.calibration_dumbbell(scores(), measures=["mcc", "accuracy"]).to_dict()
    # panels headed by the measures' short labels, in the order asked for
    assert spec["facet"]["field"] == "measure_name" and spec["facet"]["sort"] == ["MCC", "Accuracy"]
    assert spec["resolve"]["scale"]["x"] == "independent"
    marks = [mark_type(v) for v in views(spec)]
    assert "rule" in marks and "circle" in marks
    data = rows(spec)
    assert set(data["version"]) == {"raw", "calibrated"}
    # gamma's mcc is undefined raw AND calibrated: no dumbbell for it
    assert not ((data["system"] == "gamma") & (data["measure"] == "mcc")).any()
    with pytest.raises(ValueError, match="both raw"):
        b.calibration_dumbbell(scores()[~scores()["calibrated"]])
    with pytest.raises(ValueError, match="no rows for measure"):
        b.calibration_dumbbell(scores(), measures=["kappa"])


def test_rank_distribution_orders_by_expected_rank_and_sizes_by_probability():
    df = rank_distribution()
    spec = b.rank_distribution_chart(df, measure="accuracy").to_dict()
    circle = next(v for v in views(spec) if mark_type(v) == "circle")
    assert circle["encoding"]["y"]["sort"] == ["beta", "delta", "alpha", "gamma"]
    assert circle["encoding"]["size"]["field"] == "probability"
    assert circle["encoding"]["size"]["scale"]["domain"] == [0, 1]
    data = rows(spec)
    assert (data["probability"] > 0).all()  # zero-probability ranks are not drawn
    assert data.loc[(data["system"] == "beta") & (data["rank"] == 1), "text"].item() == "70%"


def test_pvalue_heatmap_mirrors_pairs_and_outlines_significant_cells():
    spec = b.pvalue_heatmap(pairwise(), measure="accuracy", test="mcnemar", column="p_value").to_dict()
    _heatmap_layers(spec)
    data = rows(spec)
    assert len(data) == 4 * 3  # both orders of the 6 pairs, no diagonal
    assert (data["system_a"] != data["system_b"]).all()
    cell = data[(data["system_a"] == "beta") & (data["system_b"] == "alpha")].iloc[0]
    assert cell["label"] == "<.001" and cell["significant"]
    assert data.loc[data["p"] == 0.2, "label"].iloc[0] == ".200"
    outline = [v for v in views(spec) if mark_type(v) == "rect" and v["mark"].get("stroke") == "#D55E00"]
    assert outline and outline[0]["transform"] == [{"filter": "datum.significant"}]
    assert int(data["significant"].sum()) == 2 * 3  # p = .0004, .03, .01 < .05
    holm = rows(b.pvalue_heatmap(pairwise(), measure="accuracy", test="mcnemar").to_dict())
    assert int(holm["significant"].sum()) == 2 * 2  # Holm-adjusted .0012, .03; .09 is out
    with pytest.raises(ValueError, match="column must be"):
        b.pvalue_heatmap(pairwise(), measure="accuracy", test="mcnemar", column="q")
    with pytest.raises(ValueError, match="available: mcnemar"):
        b.pvalue_heatmap(pairwise(), measure="accuracy", test="bootstrap")


def test_per_class_heatmap_one_panel_per_metric_with_undefined_marked():
    spec = b.per_class_heatmap(per_class()).to_dict()
    assert spec["facet"]["row"]["field"] == "metric"
    assert spec["facet"]["row"]["sort"] == ["recall", "precision", "f1"]
    _heatmap_layers(spec)
    data = rows(spec)
    assert (data.loc[data["value"].isna(), "label"] == c.UNDEFINED_TEXT).all()
    assert data["value"].isna().sum() == 2
    only = rows(b.per_class_heatmap(per_class(), metrics=("f1",)).to_dict())
    assert set(only["metric"]) == {"f1"}
    with pytest.raises(ValueError, match="no rows for metrics"):
        b.per_class_heatmap(per_class(), metrics=("fallout",))


def test_confusion_grid_facets_by_system_and_prints_row_percentages():
    spec = b.confusion_grid(confusion()).to_dict()
    assert spec["facet"]["field"] == "system"
    marks = [mark_type(v) for v in views(spec)]
    assert marks == ["rect", "text"]
    data = rows(spec)
    assert np.allclose(data.groupby(["system", "gold"])["rate"].sum(), 1)
    beta = data[data["system"] == "beta"].set_index(["gold", "predicted"])
    assert beta.loc[("big", "big"), "label"] == "97"  # 58 / 60
    assert beta.loc[("rare", "rare"), "label"] == ""  # zero cells stay blank
    one = rows(b.confusion_grid(confusion(), systems=["beta"]).to_dict())
    assert set(one["system"]) == {"beta"}
    with pytest.raises(ValueError, match="no rows for system"):
        b.confusion_grid(confusion(), systems=["omega"])


def test_confusion_grid_many_classes_drops_text():
    k = 30
    labels = [f"c{i}" for i in range(k)]
    df = pd.DataFrame([("s", g, p, 1, 1 / k) for g in labels for p in labels],
                      columns=["system", "gold", "predicted", "count", "rate"])
    spec = b.confusion_grid(df).to_dict()
    assert [mark_type(v) for v in views(spec)] == ["rect"]


def test_cv_estimates_one_mark_per_estimator_and_undefined_named():
    spec = b.cv_estimates(cv()).to_dict()
    point = next(v for v in views(spec) if mark_type(v) == "point")
    assert point["encoding"]["color"]["field"] == "aggregation"
    assert point["encoding"]["color"]["scale"]["domain"] == ESTIMATORS
    assert point["encoding"]["shape"]["field"] == "aggregation"
    assert point["encoding"]["y"]["sort"] == ["gamma", "beta", "alpha"]  # by mean estimate
    assert any("alpha (F~_avg)" in s for s in title_text(spec)[1])
    two = pd.concat([cv(), cv().assign(measure="auc")])
    with pytest.raises(ValueError, match="several measures"):
        b.cv_estimates(two)
    assert b.cv_estimates(two, measure="auc").to_dict()


def test_simulation_bias_lines_per_estimator_faceted_like_forman_and_scholz_2010():
    sim = simulation()
    spec = b.simulation_bias(sim[sim["stratified"]]).to_dict()
    assert spec["facet"]["column"]["field"] == "true_f"
    marks = [mark_type(v) for v in views(spec)]
    assert marks.count("line") == 1 and "rule" in marks  # the zero line: unbiased
    line = next(v for v in views(spec) if mark_type(v) == "line")
    assert line["encoding"]["color"]["field"] == "estimator"
    assert line["encoding"]["x"]["axis"]["format"] == "%"  # positives as a fraction -> percent
    assert line["encoding"]["y"]["field"] == "rel_bias"
    sd = b.simulation_sd(sim[sim["true_f"] == 0.8], column="stratified", row=None).to_dict()
    assert "rule" not in [mark_type(v) for v in views(sd)]
    assert next(v for v in views(sd) if mark_type(v) == "line")["encoding"]["y"]["field"] == "rel_sd"
    both = b.simulation_bias(sim, column="true_f", row="stratified").to_dict()
    assert both["facet"]["row"]["field"] == "stratified"


def figure_frame(metric="rel_bias"):
    """A frame shaped like analyses.simulation.figure_frames()["figure6"] (Forman & Scholz 2010, Figure 6)."""
    names = dict(zip(["pooled", "mean", "mean_defined", "pr_re", "pr_re_defined"], ESTIMATORS))
    rows = [(True, prev, f, est, name, (j - 2) * 0.01 * (1 - f), metric, f"{prev:.0%} positives")
            for prev in (0.01, 0.05, 0.25) for f in (0.6, 0.8, 0.95) for j, (est, name) in enumerate(names.items())]
    return pd.DataFrame(rows, columns=["stratified", "prevalence", "f_true", "estimator", "label", "value", "metric",
                                       "panel"])


def test_simulation_accepts_the_figure_frames_of_the_analysis():
    spec = b.simulation_bias(figure_frame(), x="f_true").to_dict()
    assert spec["facet"]["column"]["field"] == "panel"  # auto: the varying panel column
    assert spec["facet"]["column"]["sort"] == ["1% positives", "5% positives", "25% positives"]
    line = next(v for v in views(spec) if mark_type(v) == "line")
    assert line["encoding"]["color"]["field"] == "label"  # the paper's names, not the ids
    assert line["encoding"]["color"]["scale"]["domain"] == ESTIMATORS
    assert line["encoding"]["y"]["field"] == "value"
    assert line["encoding"]["x"]["axis"]["format"] == "~g"  # true F is not a share of items
    sd = b.simulation_sd(figure_frame("rel_sd"), x="f_true").to_dict()
    assert next(v for v in views(sd) if mark_type(v) == "line")["encoding"]["y"]["field"] == "value"
    with pytest.raises(ValueError, match=r"plots rel_bias; the frame holds metric \['rel_sd'\]"):
        b.simulation_bias(figure_frame("rel_sd"), x="f_true")
    # default x is the share of positives: then f_true is an unplaced setting and must be named
    with pytest.raises(ValueError, match="f_true"):
        b.simulation_bias(figure_frame(), column="stratified")


def test_cv_estimates_uses_the_paper_names_when_present():
    df = cv().rename(columns={"aggregation": "estimator"})
    ids = dict(zip(ESTIMATORS, ["mean", "mean_defined", "pr_re", "pr_re_defined", "pooled"]))
    df["aggregation"] = df["estimator"].map(ids)
    point = next(v for v in views(b.cv_estimates(df).to_dict()) if mark_type(v) == "point")
    assert point["encoding"]["color"]["scale"]["domain"] == ESTIMATORS
    point = next(v for v in views(b.cv_estimates(df, by="aggregation").to_dict()) if mark_type(v) == "point")
    assert point["encoding"]["color"]["scale"]["domain"][0] == "mean"
    df.loc[0, "estimator"] = ""  # e.g. AUC rows: no paper name for every row -> the ids
    point = next(v for v in views(b.cv_estimates(df).to_dict()) if mark_type(v) == "point")
    assert point["encoding"]["color"]["scale"]["domain"][0] == "mean"


def test_simulation_refuses_to_mix_settings_in_one_line():
    with pytest.raises(ValueError, match=r"several rows per point.*stratified"):
        b.simulation_bias(simulation())
    with pytest.raises(ValueError, match="missing column"):
        b.simulation_sd(simulation(), column="folds")


# --------------------------------------------------------------------------------------------
# rendering (slow): every builder to SVG, within the page width


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(CASES))
def test_builder_renders_to_svg_within_a4_width(name):
    vl_convert = pytest.importorskip("vl_convert")
    from evalreport.charts import use_theme

    use_theme()
    try:
        make, call = CASES[name]
        svg = vl_convert.vegalite_to_svg(call(make()).to_dict())
    finally:
        alt.theme.enable("default")
    assert svg.lstrip().startswith("<svg") and len(svg) > 1000
    assert "<text" in svg and ("<path" in svg or "<rect" in svg)
    width = float(re.search(r'<svg[^>]*\swidth="([\d.]+)"', svg).group(1))
    assert 150 < width <= 530, f"{name} is {width:.0f} px wide"


def test_prevalence_bar_counts_have_thousands_separators():
    """A count printed at a bar reads as the report's tables write integers ("15,280", not "15280")."""
    frame = pd.DataFrame({"class": ["big", "small"], "count": [15280, 720], "share": [15280 / 16000, 720 / 16000]})
    data = rows(b.prevalence_bar(frame).to_dict())
    assert data.set_index("class")["label"].to_dict() == {"big": "15,280 (95.5%)", "small": "720 (4.5%)"}
