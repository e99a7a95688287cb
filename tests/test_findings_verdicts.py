"""The findings' verdicts (second review round): who wins beyond the paired bootstrap noise and
who only by a near-tie, constant predictors and chance baselines that win a measure, the strongest
chance baseline with Monte-Carlo noise set aside, chance level judged by the interval, English
lists, the paired flip check and the baseline the leaderboard chart draws.

Each test builds a case whose answer is known; the reviews' own cases are reproduced
(author review items 3 and 12, reviewer review items 2, 6, 9 and 10).
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from conftest import make_runs

from evalreport.analyses.compare import compare
from evalreport.analyses.findings import MC_SE, findings, strongest_baseline
from evalreport.analyses.paired import paired_differences
from evalreport.counts import Counts
from evalreport.report.summary import findings_note
from evalreport.report.summary_words import crowns, join_words

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def _rows(F, kind):
    return F.findings[F.findings["finding"] == kind]


# ----------------------------------------------------------------------------- paired differences


def _overlap_runs(n=1000, shared=800, extra=30, seed=3):
    """A and B right on the same ``shared`` items; A also right on ``extra`` more (B wrong there):
    accuracy A - B = extra / n, with the two systems' errors almost perfectly correlated."""
    rng = np.random.default_rng(seed)
    gold = rng.integers(0, 2, n)
    right_a = np.zeros(n, bool)
    right_a[:shared + extra] = True
    right_b = np.zeros(n, bool)
    right_b[:shared] = True
    perm = rng.permutation(n)
    right_a, right_b = right_a[perm], right_b[perm]
    a = np.where(right_a, gold, 1 - gold)
    b = np.where(right_b, gold, 1 - gold)
    return make_runs(gold, [a, b], ["x", "y"], ["A", "B"])


def test_paired_p_is_the_pairwise_bootstrap_p_and_se_is_the_sd_of_paired_differences():
    """The primary measure's paired p-value is the comparison's own bootstrap test p (one rule), and
    se is the standard deviation of d*_r = v*_A,r - v*_B,r recomputed here from the resamples."""
    runs = _overlap_runs()
    comp = compare(runs, primary="accuracy", bootstrap=300, seed=1)
    F = findings(comp, Counts.from_runs(runs))
    row = F.paired[(F.paired["measure"] == "accuracy")].iloc[0]
    pw = comp.pairwise[comp.pairwise["test"] == "bootstrap"].iloc[0]
    assert row["p_value"] == pytest.approx(float(pw["p_value"]))
    j = list(comp.measures).index("accuracy")
    d = comp.samples[:, 0, j] - comp.samples[:, 1, j]
    assert {row["system_a"], row["system_b"]} == {"A", "B"}
    assert row["se"] == pytest.approx(np.std(d, ddof=1))
    assert row["difference"] == pytest.approx(0.03)
    lo, hi = np.quantile(d, [0.025, 0.975])
    assert (row["lo"], row["hi"]) == (pytest.approx(lo), pytest.approx(hi))


def test_reviewer_9_paired_test_separates_what_the_unpaired_rule_calls_noise():
    """The unpaired sqrt(se_A^2 + se_B^2) ignores that both systems are scored on the same
    items. Here A - B = 0.03 in accuracy: the unpaired z is below 2, the paired test separates them."""
    from evalreport.report.section_tables import flips

    runs = _overlap_runs()
    comp = compare(runs, primary="accuracy", bootstrap=400, seed=2)
    iv = comp.intervals[comp.intervals["measure"] == "accuracy"].set_index("system")["se"]
    unpaired_z = 0.03 / np.hypot(iv["A"], iv["B"])
    F = findings(comp, Counts.from_runs(runs))
    row = F.paired[F.paired["measure"] == "accuracy"].iloc[0]
    assert unpaired_z < 2 < row["difference"] / row["se"]
    assert row["p_value"] < 0.05 and row["noise"] == "beyond noise"
    # the flip table's rule: one flip, the same pair, under accuracy and a second measure
    dis = pd.DataFrame([{"measure_a": "accuracy", "measure_b": "other", "system_a": "A", "system_b": "B",
                         "value_a1": 0.83, "value_a2": 0.80, "value_b1": 0.40, "value_b2": 0.50,
                         "prefers_a": "A", "prefers_b": "B"}])
    intervals = pd.DataFrame({"system": ["A", "B", "A", "B"], "measure": ["accuracy", "accuracy", "other", "other"],
                              "se": [iv["A"], iv["B"], 0.01, 0.01]})
    paired = pd.DataFrame([{"measure": "accuracy", "system_a": "A", "system_b": "B", "se": row["se"],
                            "p_value": row["p_value"]},
                           {"measure": "other", "system_a": "B", "system_b": "A", "se": 0.01, "p_value": 0.001}])
    unpaired = flips(dis, intervals, "accuracy")
    assert not bool(unpaired["beyond_noise"].iloc[0])
    fl = flips(dis, intervals, "accuracy", paired=paired, alpha=0.05)
    assert bool(fl["beyond_noise"].iloc[0]) and fl["p_primary"].iloc[0] == pytest.approx(row["p_value"])
    assert fl["z_primary"].iloc[0] == pytest.approx(0.03 / row["se"])
    # within the noise under the other measure: not beyond
    fl = flips(dis, intervals, "accuracy", paired=paired.assign(p_value=[row["p_value"], 0.4]), alpha=0.05)
    assert not bool(fl["beyond_noise"].iloc[0])


def test_paired_differences_orientation_and_undefined():
    samples = np.array([[[0.5, 0.2], [0.4, 0.3]], [[0.6, np.nan], [0.5, 0.1]], [[0.7, 0.3], [0.4, 0.2]]])
    point = np.array([[0.6, 0.25], [0.45, 0.2]])
    out = paired_differences(samples, point, ["s", "t"], ["up", "down"], [True, False],
                             [("up", "s", "t"), ("down", "s", "t"), ("up", "s", "t")])
    assert len(out) == 2                                           # duplicates once
    up, down = out.iloc[0], out.iloc[1]
    assert up["difference"] == pytest.approx(0.15)
    assert down["difference"] == pytest.approx(-0.05)              # lower is better: s is worse
    assert down["n_resamples"] == 2                                # the NaN resample is left out
    assert up["se"] == pytest.approx(np.std([0.1, 0.1, 0.3], ddof=1))


# ----------------------------------------------------------------------------- winners and near-ties


def _close_runs():
    """900 items, 2 classes; 'one' and 'two' differ by one item in accuracy; 'far' is much worse."""
    rng = np.random.default_rng(5)
    n = 900
    gold = rng.integers(0, 2, n)
    right = rng.random(n) < 0.84
    one = np.where(right, gold, 1 - gold)
    two = one.copy()
    k = np.flatnonzero(one == gold)[0]
    two[k] = 1 - gold[k]                                            # one item worse
    far = np.where(rng.random(n) < 0.6, gold, 1 - gold)
    return make_runs(gold, [one, two, far], ["p", "q"], ["one", "two", "far"])


def test_author_3_a_one_item_lead_is_a_near_tie_not_a_crown():
    """Author review 3: a lead of 1 item of 900 is within the noise; the words say so instead of
    crowning the winner, and name the differences and paired p-values."""
    runs = _close_runs()
    comp = compare(runs, primary="accuracy", measures=["accuracy", "macro_recall"], bootstrap=300, seed=4)
    F = findings(comp, Counts.from_runs(runs))
    margin = _rows(F, "winner_margin").set_index("measure")
    noise = _rows(F, "winner_noise").set_index("measure")
    assert margin.loc["accuracy", "value"] == pytest.approx(1 / 900)
    assert margin.loc["accuracy", "system"] == "two"
    assert noise.loc["accuracy", "detail"] == "within noise" and noise.loc["accuracy", "value"] >= 0.05
    text = findings_note(F.findings, primary="accuracy").details
    words = next(line for line in text.splitlines() if "Every measure" in line or "winner" in line.lower())
    assert "within the bootstrap noise" in words and "difference" in words and "0.001" in words


def test_clear_winners_and_near_ties_are_told_apart():
    """Rows say which leads are beyond the noise; the sentence puts the near-ties apart."""
    rows = pd.DataFrame([
        ("leader", "A", "accuracy", 0.84, "sole"),
        ("winner", "A", "accuracy", 0.8422, ""), ("winner", "B", "kappa", 0.712, ""),
        ("winner", "C", "f1", 0.609, ""), ("winner", "D", "recall", 0.75, ""), ("winner", "D", "hmean_recall", 0.7, ""),
        ("winner_margin", "B", "accuracy", 0.0011, ""), ("winner_noise", "B", "accuracy", 0.95, "within noise"),
        ("winner_margin", "C", "kappa", 0.0027, ""), ("winner_noise", "C", "kappa", 0.88, "within noise"),
        ("winner_margin", "A", "f1", 0.016, ""), ("winner_noise", "A", "f1", 0.75, "within noise"),
        ("winner_margin", "A", "recall", 0.23, ""), ("winner_noise", "A", "recall", 0.001, "beyond noise"),
        ("winner_margin", "A", "hmean_recall", 0.09, ""), ("winner_noise", "A", "hmean_recall", 0.012, "beyond noise"),
    ], columns=["finding", "system", "measure", "value", "detail"])
    note = findings_note(rows, primary="accuracy")
    # the clear leads in the headline, the near-ties one click away
    head = next(t for t in note.text.splitlines() if "Leads beyond the bootstrap noise" in t)
    assert "**D** under Recall" in head and "HmacR" in head and "Accuracy" not in head.split("noise (")[1]
    near = next(t for t in note.details.splitlines() if "Near-ties" in t)
    assert "A under Accuracy" in near and "B under Cohen\\'s kappa" in near and "C under F1" in near
    assert "(differences 0.001 to 0.016; corrected p from 0.750 to 0.950)" in near and "Recall" not in near


def test_every_measure_crowns_one_system_but_says_where_it_is_within_noise():
    rows = pd.DataFrame([
        ("leader", "A", "accuracy", 0.9, "sole"),
        ("winner", "A", "accuracy", 0.9, ""), ("winner", "A", "kappa", 0.8, ""),
        ("winner_margin", "B", "accuracy", 0.2, ""), ("winner_noise", "B", "accuracy", 0.001, "beyond noise"),
        ("winner_margin", "B", "kappa", 0.01, ""), ("winner_noise", "B", "kappa", 0.4, "within noise"),
    ], columns=["finding", "system", "measure", "value", "detail"])
    text = findings_note(rows, primary="accuracy").full
    assert "**Every measure** (2) crowns **A**; under Cohen\\'s kappa its lead over the runner-up is within" in text
    assert "difference 0.010" in text and "p = 0.400" in text


def test_a_winner_without_a_paired_verdict_is_still_named():
    """A fresh review found winners dropped: one whose paired test is undefined (no resample defines both
    values) and one with no runner-up row at all. Every measure's winner is in the sentence."""
    rows = pd.DataFrame([
        ("leader", "A", "accuracy", 0.9, "sole"),
        ("winner", "A", "accuracy", 0.9, ""), ("winner", "B", "kappa", 0.8, ""),
        ("winner", "C", "mcc", 0.5, ""), ("winner", "D", "f1", 0.4, ""),
        ("winner_margin", "B", "accuracy", 0.2, ""), ("winner_noise", "B", "accuracy", 0.001, "beyond noise"),
        ("winner_margin", "A", "kappa", 0.01, ""), ("winner_noise", "A", "kappa", 0.4, "within noise"),
        ("winner_margin", "A", "mcc", np.nan, ""), ("winner_noise", "A", "mcc", np.nan, "undefined"),
    ], columns=["finding", "system", "measure", "value", "detail"])
    note = findings_note(rows, primary="accuracy")
    line = next(t for t in note.details.splitlines() if "Near-ties" in t)
    tail = line.split("Not tested against a runner-up")[1]
    assert "C under Matthews correlation coefficient" in tail and "D under F1" in tail
    assert "B under Cohen" in line
    assert "Leads beyond the bootstrap noise" in note.text and "**A** under Accuracy" in note.text


# ----------------------------------------------------------------------------- degenerate winners


REVIEWER = {"sysA": [[140, 25, 15], [10, 75, 5], [2, 3, 25]],
            "sysB": [[178, 2, 0], [25, 63, 2], [18, 4, 8]],
            "chance": [[60, 60, 60], [30, 30, 30], [10, 10, 10]],
            "majority": [[180, 0, 0], [90, 0, 0], [30, 0, 0]]}


def _reviewer_counts():
    return Counts(np.array(list(REVIEWER.values()), dtype=float), ["alpha", "beta", "gamma"], list(REVIEWER))


def test_reviewer_6_a_constant_predictor_leading_confusion_entropy_is_flagged():
    """With confusion entropy as primary the constant 'majority' leads (CE 0.281 against sysB's
    0.293; formula of Gösgens et al. 2021, Table 1), and always predicting beta (0.260) beats every
    system: the findings flag it."""
    counts = _reviewer_counts()
    comp = compare(counts, primary="confusion_entropy", measures=["confusion_entropy", "accuracy"])
    F = findings(comp, counts)
    assert _rows(F, "constant_system").set_index("system")["detail"].to_dict() == {
        "majority": "predicts alpha for every item"}
    deg = _rows(F, "degenerate_winner")
    assert set(deg["detail"]) >= {"leader", "winner"} and set(deg["system"]) == {"majority"}
    beats = _rows(F, "baseline_beats_all").set_index("measure")
    assert beats.loc["confusion_entropy", "system"] == "constant:beta"
    assert beats.loc["confusion_entropy", "value"] == pytest.approx(0.2601, abs=5e-4)
    assert "accuracy" not in beats.index                  # sysB's 0.830 beats the majority's 0.600
    text = findings_note(F.findings, primary="confusion_entropy").full
    assert "**A constant predictor wins:** majority, which predicts alpha for every item, leads under the primary " \
           "measure (Confusion entropy)" in text
    assert "rewards the degenerate prediction on this data" in text
    assert "**A chance baseline beats every system** under Confusion entropy (always predicting beta: 0.260)" in text


def test_trivial_acceptor_beats_every_system_under_recall():
    """Sebastiani (2015, section 2): the trivial acceptor has recall 1, above any real system."""
    A = [[70, 10], [5, 15]]
    B = [[75, 5], [8, 12]]
    counts = Counts(np.array([A, B], dtype=float), ["neg", "pos"], ["A", "B"])
    comp = compare(counts, primary="accuracy", measures=["accuracy", "recall"], positive="pos")
    F = findings(comp, counts)
    beats = _rows(F, "baseline_beats_all").set_index("measure")
    assert beats.loc["recall", "value"] == pytest.approx(1.0) and "accuracy" not in beats.index


# ----------------------------------------------------------------------------- chance baselines


def _base(rows):
    return pd.DataFrame(rows, columns=["measure", "baseline", "value", "se", "method"])


def test_reviewer_2_monte_carlo_noise_is_not_the_strongest_baseline():
    """Kappa's exact chance value is 0; 'contingency' estimates 0.003 +- 0.004 by Monte Carlo.
    Within MC_SE standard errors of the exact value, it is not stronger."""
    b = _base([("kappa", "constant:alpha", 0.0, 0.0, "exact"), ("kappa", "majority", 0.0, 0.0, "exact"),
               ("kappa", "uniform", 0.00093, 0.00081, "monte_carlo"), ("kappa", "fixed_sizes", 0.0, 0.0, "linear"),
               ("kappa", "contingency", 0.003046, 0.004355, "monte_carlo")])
    assert strongest_baseline(b)["baseline"] == "majority"           # a named one before constant:alpha
    # an estimate better by more than MC_SE of its standard errors is stronger
    far = b.assign(value=np.where(b["baseline"] == "contingency", MC_SE * 0.004355 + 0.001, b["value"]))
    assert strongest_baseline(far)["baseline"] == "contingency"
    # only estimates: the best one; lower is better: the smallest
    mc = b[b["se"] > 0]
    assert strongest_baseline(mc)["baseline"] == "contingency"
    assert strongest_baseline(mc, higher_is_better=False)["baseline"] == "uniform"
    assert strongest_baseline(b.iloc[:0]) is None


def test_reviewer_2_end_to_end_kappa_names_the_exact_baseline():
    counts = _reviewer_counts()
    F = findings(compare(counts, primary="kappa", measures=["kappa"]), counts)
    best = _rows(F, "baseline_best").iloc[0]
    assert best["value"] == pytest.approx(0.0, abs=1e-12) and best["detail"] == "exact"
    text = findings_note(F.findings, primary="kappa").full
    assert "The strongest chance baseline is always predicting the majority class (0.000, exact)" in text


def _strat_runs():
    """The author's Baseline-stratified case in small: a system predicting at random with the gold
    shares scores about the chance value, and its interval holds it; a constant predictor of the
    majority class scores macro recall 1/K exactly."""
    rng = np.random.default_rng(11)
    n = 900
    gold = rng.choice(4, n, p=[0.58, 0.25, 0.1, 0.07])
    good = np.where(rng.random(n) < 0.85, gold, rng.integers(0, 4, n))
    strat = rng.choice(4, n, p=[0.58, 0.25, 0.1, 0.07])
    worse = np.where(rng.random(n) < 0.8, (gold + 1) % 4, gold)       # mostly wrong on purpose
    return make_runs(gold, [good, strat, worse], ["a", "b", "c", "d"], ["good", "stratified", "worse"])


def test_author_12_chance_level_is_judged_by_the_interval():
    """Author review 12: an interval that holds the chance value is 'indistinguishable from chance',
    'below' only when the whole interval is below it (macro recall's exact chance value is 1/K = 0.25
    for every constant predictor: the strongest baseline here)."""
    runs = _strat_runs()
    comp = compare(runs, primary="macro_recall", measures=["macro_recall"], bootstrap=300, seed=0)
    F = findings(comp, Counts.from_runs(runs))
    best = _rows(F, "baseline_best").iloc[0]
    assert best["value"] == pytest.approx(0.25) and best["detail"] == "exact"
    board = comp.leaderboard.set_index("system")
    level = _rows(F, "chance_level")
    below = _rows(F, "below_baseline")
    assert level["system"].tolist() == ["stratified"] and below["system"].tolist() == ["worse"]
    assert board.loc["stratified", "lo"] <= 0.25 <= board.loc["stratified", "hi"]
    assert board.loc["worse", "hi"] < 0.25
    lo = _rows(F, "interval_lo").set_index("system")["value"]
    assert lo["stratified"] == pytest.approx(board.loc["stratified", "lo"])
    text = findings_note(F.findings, primary="macro_recall").full
    assert "**Indistinguishable from chance** under the primary measure" in text
    assert (f"stratified ({board.loc['stratified', 'value']:.3f}, interval {board.loc['stratified', 'lo']:.3f} to "
            f"{board.loc['stratified', 'hi']:.3f})") in text
    assert "**Below chance** under the primary measure" in text and "good (" not in text.split("**Below")[1]


def test_without_intervals_point_values_decide_and_say_so():
    good = [[78, 2], [4, 16]]
    weak = [[60, 20], [10, 10]]
    counts = Counts(np.array([good, weak], dtype=float), ["neg", "pos"], ["good", "weak"])
    F = findings(compare(counts, primary="accuracy"), counts)
    assert _rows(F, "at_or_below_baseline")["system"].tolist() == ["weak"]
    assert _rows(F, "chance_level").empty and _rows(F, "below_baseline").empty
    text = findings_note(F.findings, primary="accuracy").full
    assert "**At or below chance** under the primary measure (point values; there are no intervals): weak (0.700)" \
        in text


# ----------------------------------------------------------------------------- English


def test_lists_read_as_english():
    """Author review 12: 'under equal prevalence, reversed prevalence' lacked its 'and'."""
    assert join_words(["a"]) == "a" and join_words(["a", "b"]) == "a and b" and join_words(["a", "b", "c"]) == "a, b and c"
    assert join_words(["a", "b", "c"], "; ") == "a; b; and c"
    groups = [(("X",), ["equal prevalence", "reversed prevalence"])]
    assert crowns(groups, labels=False) == "**X** under equal prevalence and reversed prevalence"
    three = [(("X",), ["m1"]), (("Y",), ["m2", "m3"]), (("Z",), ["m4", "m5", "m6"])]
    assert crowns(three, labels=False, what="distributions") == \
        "**X** under m1; **Y** under m2 and m3; and **Z** under the other 3 distributions"


# ----------------------------------------------------------------------------- the chart's baseline


def test_reviewer_10_the_chart_draws_the_strongest_baseline():
    """The baseline the findings name the strongest (here 'randomly permuted gold labels', fixed_sizes,
    0.333) is drawn on the chart, not only majority, uniform and prevalence."""
    from evalreport.charts.points import DEFAULT_BASELINES, leaderboard_intervals

    iv = pd.DataFrame({"system": ["A", "B"], "measure": "macro_recall", "value": [0.8, 0.7], "lo": [0.75, 0.65],
                       "hi": [0.85, 0.75]})
    base = pd.DataFrame({"measure": "macro_recall", "baseline": ["majority", "uniform", "prevalence", "fixed_sizes"],
                         "value": [0.25, 0.332, 0.300, 0.3333], "se": [0, 0.001, 0.001, 0]})
    assert "fixed_sizes" not in DEFAULT_BASELINES
    assert strongest_baseline(base)["baseline"] == "fixed_sizes"
    spec = leaderboard_intervals(iv, measure="macro_recall", baselines=base, strongest="fixed_sizes").to_dict()
    drawn = {row["baseline"] for data in spec["datasets"].values() for row in data if "baseline" in row}
    assert "fixed_sizes (strongest)" in drawn
    texts = [row["text"] for data in spec["datasets"].values() for row in data if "text" in row]
    # within 3 px of uniform (0.332): one shared label names both
    assert any("fixed_sizes (strongest)" in t for t in texts)
    # without the name, as before: the default three
    spec = leaderboard_intervals(iv, measure="macro_recall", baselines=base).to_dict()
    drawn = {row["baseline"] for data in spec["datasets"].values() for row in data if "baseline" in row}
    assert not any(d.startswith("fixed_sizes") for d in drawn)
