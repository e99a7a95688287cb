"""What the report's tables and notes say: labels rather than ids, integer ranks, order flips split
by the bootstrap noise, the floor of resampled p-values, a bounded cross-validation table, an audit
whose property names are the CLI's, and a p-value heatmap that stays readable with many systems."""
from __future__ import annotations

import re
import warnings

import numpy as np
import pandas as pd
import pytest

from evalreport.analyses import resampling
from evalreport.analyses.audit import audit, resolve_properties
from evalreport.inputs import Runs
from evalreport.measures import get
from evalreport.report import audit_section
from evalreport.report.build import analyse
from evalreport.report.section_tables import MAX_CV_MEASURES, MAX_FLIPS, NOISE_SE, p_floor
from evalreport.report.sections import open_report
from evalreport.report.sections._core import MAX_ROWS

GOLD = np.array([0, 0, 0, 1, 1, 1, 2, 2, 2, 0, 1, 2] * 3)
GOOD = np.array([0, 0, 1, 1, 1, 2, 2, 2, 0, 0, 1, 2] * 3)
OTHER = np.array([0, 1, 1, 1, 0, 2, 2, 1, 0, 0, 1, 1] * 3)
WORSE = np.array([0, 1, 2, 1, 0, 2, 0, 1, 0, 0, 2, 1] * 3)


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    runs = Runs(gold=GOLD, pred=np.stack([GOOD, OTHER, WORSE]), labels=("a", "b", "c"),
                systems=("good", "other", "worse"))
    tables = tmp_path_factory.mktemp("report") / "tables"
    analyse(runs, tables, primary="macro_f1", measures=["macro_f1", "mcc", "accuracy", "kappa", "sba"],
            bootstrap=50, seed=1, audit=False)
    return open_report(tables)


def _tables(tmp_path, **frames):
    folder = tmp_path / "tables"
    folder.mkdir(parents=True, exist_ok=True)
    for name, df in frames.items():
        df.to_csv(folder / f"{name}.csv", index=False)
    return open_report(folder)


# ------------------------------------------------------------------ labels, ranks, warnings
def test_tables_name_measures_by_label_not_id(report):
    scores = report.scores_table().df
    assert f"{get('mcc').label} (↑)" in scores.index and f"{get('sba').label} (↑)" in scores.index
    assert not any(i.startswith(("mcc ", "sba ")) for i in scores.index)
    board = report.leaderboard_table().df
    assert get("macro_f1").label in board.columns and "macro_f1" not in board.columns
    base = report.baselines_table().df
    assert f"{get('kappa').label} (↑)" in base.index
    inc = report.inconsistency_table()
    if hasattr(inc, "df"):
        labels = set(inc.df["measure"]) | set(inc.df["other measure"])
        assert labels and not labels & {"mcc", "sba", "kappa", "accuracy", "macro_f1"}


def test_ranks_are_integers_without_ties(report):
    board = report.leaderboard_table()
    assert board.df["rank"].dtype.kind == "i" and list(board.df["rank"]) == [1, 2, 3]
    first = board._markdown().split("\n")[2].split("|")
    assert first[1].strip() == "1" and first[-2].strip() in {"1", "2", "3"}     # rank and calibrated rank


def test_no_future_warning_from_empty_text_columns(tmp_path):
    """An all-empty reason column is read as float; filling it with "" warned (an error in pandas 4)."""
    scores = pd.DataFrame({"system": ["s", "t"], "measure": "accuracy", "value": [0.5, 0.6], "undefined": False,
                           "reason": [np.nan, np.nan], "calibrated": False})
    rep = _tables(tmp_path, scores=scores, measures=pd.DataFrame({
        "id": ["accuracy"], "label": ["Accuracy"], "direction": ["higher"], "range": ["[0, 1]"], "chance": [np.nan],
        "undefined": ["n = 0"], "convention": [np.nan], "formula": ["sum_i c_ii / n"], "source": ["Opitz (2022), eq. 7"]}))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        rep.scores_table()._markdown()
        rep.undefined_table()
        rep.definitions_table()._markdown()


# ------------------------------------------------------------------ order flips and noise
def test_flips_larger_than_the_noise_are_separated_from_the_rest(tmp_path):
    dis = pd.DataFrame({
        "measure_a": "macro_f1", "measure_b": ["accuracy", "kappa"], "system_a": ["x", "x"], "system_b": ["y", "y"],
        # accuracy: 0.80 vs 0.60 reversed clearly; kappa: 0.693 vs 0.6931, a noise-level flip
        "value_a1": [0.70, 0.70], "value_a2": [0.50, 0.50], "value_b1": [0.60, 0.6930], "value_b2": [0.80, 0.6931],
        "prefers_a": ["x", "x"], "prefers_b": ["y", "y"]})
    iv = pd.DataFrame({"system": ["x", "y"] * 3, "measure": ["macro_f1"] * 2 + ["accuracy"] * 2 + ["kappa"] * 2,
                       "value": [0.7, 0.5, 0.6, 0.8, 0.693, 0.6931], "lo": np.nan, "hi": np.nan,
                       "se": [0.02, 0.02, 0.02, 0.02, 0.02, 0.02]})
    table = _tables(tmp_path, disagreements=dis, intervals=iv).flips_table()
    assert list(table.df["other measure"]) == [get("accuracy").label]         # the kappa flip is noise
    assert "The 1 flip larger than the noise" in table.caption and "other 1 flip is within the noise" in table.caption
    assert f"{NOISE_SE:g} standard errors" in table.caption and "intervals.csv" in table.caption
    assert table.df.iloc[0]["A"] == "x"                                      # A: the primary measure's winner


def test_only_noise_level_flips_give_a_sentence_and_without_se_nothing_is_claimed(tmp_path):
    dis = pd.DataFrame({"measure_a": "macro_f1", "measure_b": ["kappa"], "system_a": ["x"], "system_b": ["y"],
                        "value_a1": [0.70], "value_a2": [0.69], "value_b1": [0.693], "value_b2": [0.6931],
                        "prefers_a": ["x"], "prefers_b": ["y"]})
    iv = pd.DataFrame({"system": ["x", "y"] * 2, "measure": ["macro_f1"] * 2 + ["kappa"] * 2,
                       "value": [0.7, 0.69, 0.693, 0.6931], "lo": np.nan, "hi": np.nan, "se": 0.02})
    note = _tables(tmp_path, disagreements=dis, intervals=iv).flips_table()
    assert "within the bootstrap noise" in note.text
    table = _tables(tmp_path / "no-se", disagreements=dis).flips_table()
    assert "cannot be told" in table.caption and len(table.df) == 1


def test_flips_table_is_bounded(tmp_path):
    n = 40
    dis = pd.DataFrame({"measure_a": "macro_f1", "measure_b": "accuracy", "system_a": [f"s{i}" for i in range(n)],
                        "system_b": [f"t{i}" for i in range(n)], "value_a1": 0.9, "value_a2": 0.1,
                        "value_b1": 0.1, "value_b2": 0.9, "prefers_a": [f"s{i}" for i in range(n)],
                        "prefers_b": [f"t{i}" for i in range(n)]})
    systems = [f"s{i}" for i in range(n)] + [f"t{i}" for i in range(n)]
    iv = pd.DataFrame({"system": systems * 2, "measure": ["macro_f1"] * 2 * n + ["accuracy"] * 2 * n,
                       "value": 0.5, "lo": np.nan, "hi": np.nan, "se": 0.01})
    table = _tables(tmp_path, disagreements=dis, intervals=iv).flips_table()
    assert len(table.df) == MAX_FLIPS and "disagreements.csv" in table.caption


# ------------------------------------------------------------------ p-value floor
def test_p_floor_is_what_randomisation_can_give():
    """(1 + count) / (B + 1): a difference never reached in B resamples has p = 1/(B + 1); Holm
    multiplies the smallest of m p-values by m."""
    gold = np.repeat([0, 1], 40)
    perfect = gold.copy()
    bad = 1 - gold
    half = np.where(np.arange(80) % 2 == 0, gold, 1 - gold)
    runs = Runs(gold=gold, pred=np.stack([perfect, bad, half]), labels=("a", "b"), systems=("p", "b", "h"))
    B = 99
    pw = resampling.pairwise(runs, "accuracy", n_resamples=B, seed=0, tests=("randomization",))
    floor = p_floor(pw, "randomization")
    assert floor["raw"] == pytest.approx(1 / (B + 1)) and pw["p_value"].min() == pytest.approx(1 / (B + 1))
    assert floor["holm"] == pytest.approx(3 / (B + 1)) and pw["p_holm"].min() == pytest.approx(floor["holm"])
    # the bootstrap test's p-values (normal approximation) have no such floor
    boot = resampling.pairwise(runs, "accuracy", n_resamples=B, seed=0, tests=("bootstrap",))
    assert p_floor(boot, "bootstrap") is None and boot["p_value"].min() < 1e-6


def _all_pairs_at_the_floor(S: int, B: int = 1000) -> pd.DataFrame:
    """Pairwise randomisation rows for S systems, every raw p at its floor 1/(B + 1)."""
    a, b = np.triu_indices(S, 1)
    names = np.array([f"s{i}" for i in range(S)])
    p = np.full(len(a), 1 / (B + 1))
    return pd.DataFrame({"system_a": names[a], "system_b": names[b], "measure": "macro_f1", "test": "randomization",
                         "statistic": 0.1, "difference": 0.1, "p_value": p, "p_holm": resampling.holm(p),
                         "p_bh": p, "n_resamples": B, "detail": ""})


def test_pairwise_caption_states_the_floor(tmp_path):
    pw = _all_pairs_at_the_floor(8)
    rep = _tables(tmp_path, pairwise=pw)
    rep.meta = {"alpha": 0.05, "pairwise_test": "randomization"}
    caption = rep.pairwise_table().caption
    assert "28/1,001 = 0.028" in caption and "1/(1,000 + 1)" in caption
    assert round(pw["p_holm"].min(), 3) == 0.028
    # 25 systems: 300 pairs put the floor above alpha; the caption says so and how many resamples would do
    pw = _all_pairs_at_the_floor(25)
    rep = _tables(tmp_path / "many", pairwise=pw)
    rep.meta = {"alpha": 0.05, "pairwise_test": "randomization"}
    table = rep.pairwise_table()
    assert "300/1,001 = 0.3" in table.caption and "6,000 resamples" in table.caption  # 300/6,001 < 0.05
    # the leader against each of the other 24, and each system against the next one: 24 + 23 pairs
    pairs = list(zip(table.df["system A"], table.df["system B"]))
    assert "The leader against every other system" in table.caption and "47 of the 300 pairs" in table.caption
    assert pairs == [("s0", f"s{i}") for i in range(1, 25)] + [(f"s{i}", f"s{i + 1}") for i in range(1, 24)]


def test_pairwise_table_shows_the_leader_and_neighbours_of_the_first_places(tmp_path):
    """With many systems the leader's rows and the neighbours' rows stop at the same place, within
    the row limit, and the caption says which places are shown."""
    rep = _tables(tmp_path, pairwise=_all_pairs_at_the_floor(40))
    rep.meta = {"alpha": 0.05, "pairwise_test": "randomization"}
    table = rep.pairwise_table()
    pairs = list(zip(table.df["system A"], table.df["system B"]))
    assert len(pairs) <= rep.MAX_NEIGHBOUR_PAIRS
    last = max(int(b[1:]) for _, b in pairs)
    assert pairs == [("s0", f"s{i}") for i in range(1, last + 1)] + [(f"s{i}", f"s{i + 1}") for i in range(1, last)]
    assert f"the first {last + 1} places: {len(pairs)} of these 77 pairs" in table.caption


def test_pairwise_table_prints_small_p_values_and_names_tests_in_words(tmp_path):
    """A p-value below 0.001 prints as "<0.001", not "0.000"; the headers name the tests in words,
    with the British spelling, while pairwise.csv keeps the ids."""
    from evalreport.report.sections.common import p_value_text

    pw = _all_pairs_at_the_floor(4, B=99_999)
    rep = _tables(tmp_path, pairwise=pw)
    rep.meta = {"alpha": 0.05, "pairwise_test": "randomization"}
    table = rep.pairwise_table()
    assert list(table.df.columns) == ["system A", "system B", "difference A - B",
                                      "p (approximate randomisation, Holm)"]
    bundle = table._repr_mimebundle_()
    for shown in (bundle["text/markdown"], bundle["application/vnd.evalreport.typst+json"]["typst"]):
        assert "<0.001" in shown and "0.000" not in shown        # PDF (Typst) and HTML (Markdown) alike
    assert "&lt;0.001" in bundle["text/html"] and "0.000" not in bundle["text/html"]
    assert "randomisation" in table.caption and "randomization" not in table.caption
    assert [p_value_text(p) for p in (0.0004, 0.0012, float("nan"))] == ["<0.001", "0.001", ""]


# ------------------------------------------------------------------ cross-validation
def test_cv_aggregates_table_shows_what_differs_and_stays_small(tmp_path):
    measures = ["accuracy", "macro_f1", "mcc", "kappa", "sba", "macro_recall", "macro_precision", "weighted_f1",
                "gmean_recall", "hmean_recall"]
    rows = []
    rng = np.random.default_rng(0)
    for i, m in enumerate(measures):
        for s in ("s1", "s2", "s3", "s4"):
            base = rng.uniform(0.5, 0.9)
            for agg in ("pooled", "mean", "mean_defined"):
                differs = i >= 2 and agg != "pooled"
                rows.append({"system": s, "measure": m, "aggregation": agg, "estimator": np.nan,
                             "value": base - (0.01 * i if differs else 0.0), "undefined": False, "n_folds": 5,
                             "reason": np.nan})
        for agg in ("avg", "merge"):   # estimators of other measures: never a row of this table
            rows.append({"system": "s1", "measure": m, "aggregation": agg, "estimator": np.nan, "value": np.nan,
                         "undefined": True, "n_folds": 5, "reason": "n/a"})
    est = pd.DataFrame(rows)
    est = est[~est["aggregation"].isin(["avg", "merge"])]
    table = _tables(tmp_path, cv_estimates=est).cv_aggregates_table()
    shown = [m for m in table.df["measure"] if m]
    assert len(shown) == MAX_CV_MEASURES and len(table.df) == 2 * MAX_CV_MEASURES   # mean = mean_defined: 1 row
    assert shown[0].startswith(get("hmean_recall").label)                            # the largest difference first
    assert get("accuracy").label in table.caption and "cv_estimates.csv" in table.caption
    assert "mean of folds = mean of folds where defined" in set(table.df["aggregation"])


# ------------------------------------------------------------------ audit
@pytest.fixture(scope="module")
def audited(tmp_path_factory):
    frame = audit(["macro_f1", "mcc", "accuracy", "f1"], max_n=4, n_random=20)
    folder = tmp_path_factory.mktemp("audit") / "tables"
    folder.mkdir()
    frame.to_csv(folder / "audit.csv", index=False)
    rep = open_report(folder)
    rep.meta = {"n_classes": 3}
    rep.manifest = {"primary": "macro_f1", "measures": ["macro_f1", "mcc", "accuracy", "f1"]}
    return rep


def test_audit_properties_are_named_as_the_cli_names_them(audited):
    table = audited.audit_table()
    legend = audited.audit_legend()
    for pid in table.df.columns:
        (prop,) = resolve_properties(pid)               # the header is an id the CLI accepts
        qualified = f"{prop.paper}.{prop.id}"
        assert qualified in set(legend.df["property"]) and resolve_properties(qualified) == [prop]
    row = legend.df.set_index("property").loc["goesgens.CB"]
    assert row["name"] == "constant baseline (Definition 8)" and "goesgens: Gösgens et al. (2021)" in legend.caption
    assert row["definition"].startswith("for every gold labeling")
    assert not any(re.match(r"^\d{3} ", str(c)) for c in table.df.columns)   # no "004 CB"
    # every header links to a legend row that exists
    html_t, html_l = table._html(), legend._html()
    targets = re.findall(r'<a href="#([^"]+)">', html_t)
    assert len(targets) == table.df.shape[1]
    assert all(f'id="{t}"' in html_l for t in targets)


def test_audit_matrix_has_no_na_rows_and_binary_measures_use_their_setting(audited):
    df = audited.audit_table().df
    assert not (df == "n/a").all(axis=1).any() and not (df == "n/a").all(axis=0).any()
    assert any(i.startswith(get("f1").label) and "binary" in i for i in df.index)
    assert df.index[0].startswith(get("macro_f1").label)                     # the primary first


def test_audit_counterexamples_one_per_property_primary_first(audited):
    table = audited.audit_counterexamples()
    df = table.df
    assert len(df) <= MAX_ROWS and df["property"].is_unique
    assert df.iloc[0]["measure"] == get("macro_f1").label
    assert not df["counterexample"].str.contains(r"\[\[").any()            # matrices written row by row
    assert audit_section.readable("C=[[0,1],[2,3]]") == "C=[0 1; 2 3]"


def test_pvalue_heatmap_of_many_systems_shows_the_best_ones(tmp_path):
    """At scale, 60 systems and 1,770 pairs: the chart keeps the 40 best, every pair stays in the CSV."""
    from evalreport.report.sections.common import MAX_PVALUE_SYSTEMS

    S = MAX_PVALUE_SYSTEMS + 20
    pw = _all_pairs_at_the_floor(S)
    board = pd.DataFrame({"rank": np.arange(1, S + 1), "system": [f"s{S - 1 - i}" for i in range(S)],
                          "value": np.linspace(0.9, 0.3, S)})
    rep = _tables(tmp_path, pairwise=pw, leaderboard=board)
    rep.meta = {"alpha": 0.05, "pairwise_test": "randomization"}
    chart = rep.pvalue_chart()
    shown = {v for row in chart.spec["datasets"].values() for r in row for k, v in r.items()
             if k in ("system_a", "system_b", "A", "B") and isinstance(v, str)}
    best = {f"s{S - 1 - i}" for i in range(MAX_PVALUE_SYSTEMS)}
    assert shown and shown <= best
    assert f"the {MAX_PVALUE_SYSTEMS} best systems" in chart.caption and f"of {S}" in chart.caption
