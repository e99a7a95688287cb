"""The multi-label analyses: prevalence calibration per label (Opitz 2022, eq. 5-6), the paired
tests (approximate randomisation: Noreen 1989, Yeh 2000; McNemar 1947 on exact match, with Edwards
1948's continuity correction), the set-property audit of the example-based measures, and labels only
predicted (``n_task``)."""
from __future__ import annotations

import itertools
import warnings
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest
from conftest import multilabel_runs as Runs, write
from hypothesis import given, settings, strategies as st
from scipy import stats

from evalreport.analyses import prevalence
from evalreport.analyses.audit.multilabel import ML_PROPERTIES, SetSpace, audit_multilabel
from evalreport.analyses.compare import TABLES, compare
from evalreport.analyses.engine import PAIRWISE_COLUMNS, pairwise_tests
from evalreport.analyses.multilabel import ML_TABLES, LabelSetDesign
from evalreport.analyses.multilabel_calibration import (
    calibrate_labels,
    calibration_tables,
    prevalence_dependent,
    reference_prevalence,
)
from evalreport.analyses.significance import MCNEMAR_EXACT_BELOW, holm, mcnemar
from evalreport.counts.multilabel import STAT, count_multilabel, count_swapped
from evalreport.measures import get
from evalreport.measures.binary import BINARY
from evalreport.measures.multilabel import EXAMPLE_IDS, compute_multilabel, label_values
from evalreport.report.write import write_comparison


def _random_runs(seed, N=40, L=4, S=3, p=0.35):
    rng = np.random.default_rng(seed)
    gold = rng.random((N, L)) < p
    pred = rng.random((S, N, L)) < p
    pred[0] = np.where(rng.random((N, L)) < 0.7, gold, pred[0])       # one better system
    return Runs(gold, pred, [f"l{j}" for j in range(L)], [f"s{k}" for k in range(S)])


# ------------------------------------------------------------------------------ calibration


def test_per_label_calibration_is_single_label_calibrate_on_each_2x2():
    """Reference 'uniform' = Opitz (2022), eq. 6 with K = 2: prevalence.calibrate of the label's matrix."""
    counts = count_multilabel(_random_runs(1))
    T = counts.label_tensor
    cal = calibrate_labels(T, reference_prevalence("uniform", T, counts.n_task))
    for s in range(T.shape[0]):
        for j in range(T.shape[1]):
            np.testing.assert_allclose(cal[s, j], prevalence.calibrate(T[s, j]), rtol=1e-12)
    np.testing.assert_allclose(cal[..., 1, :].sum(-1), counts.n_items / 2)      # gold positives = N / 2


def test_hand_worked_calibrated_precision():
    """TP 10, FN 10, FP 5, TN 75 (prevalence 0.2) scaled to 0.5: the positive row x 2.5, the
    negative row x 0.625 (Opitz 2022, eq. 5): TP 25, FP 3.125, precision 25 / 28.125 = 0.8889."""
    T = np.array([[[[75.0, 5.0], [10.0, 10.0]]]])
    cal = calibrate_labels(T, 0.5)
    np.testing.assert_allclose(cal[0, 0], [[46.875, 3.125], [25.0, 25.0]])
    value, _ = label_values("precision", cal)
    assert value[0, 0] == pytest.approx(25 / 28.125)
    cal_03 = calibrate_labels(T, 0.3)      # any reference: the positive row sums to 0.3 N
    assert cal_03[0, 0, 1].sum() == pytest.approx(30.0) and cal_03[0, 0].sum() == pytest.approx(100.0)


def test_prevalence_dependence_is_computed():
    assert prevalence_dependent("precision") and prevalence_dependent("f1") and prevalence_dependent("mcc")
    assert not prevalence_dependent("recall") and not prevalence_dependent("specificity")


def test_calibration_tables():
    runs = _random_runs(2, N=60, L=5)
    gold = runs.gold.copy()
    gold[:, 4] = False                           # a label no gold item has: cannot be calibrated
    runs = Runs(gold, runs.pred, runs.labels, runs.systems)
    counts = count_multilabel(runs)
    chosen = [get(m) for m in ("f1_macro", "recall_macro", "precision_micro", "example_f1")]
    table, summary, pi = calibration_tables(counts, chosen, reference="uniform", policy="zero")
    assert pi == 0.5
    assert set(table.measure) == {"precision", "f1"}          # recall is prevalence-free; example-based: none
    assert list(table.columns[:6]) == ["system", "label", "prevalence", "measure", "value", "calibrated"]
    absent = table[table.label == "l4"]
    assert not absent.calibrable.any() and np.allclose(absent.value, absent.calibrated, equal_nan=True)
    one = table[(table.system == "s0") & (table.label == "l1") & (table.measure == "f1")].iloc[0]
    assert one.prevalence == pytest.approx(gold[:, 1].mean())
    f1_cal = table[(table.measure == "f1")].groupby("system", sort=False)["calibrated"].mean()
    macro = summary[summary.measure == "f1_macro"].set_index("system")["calibrated"]
    np.testing.assert_allclose(macro.loc[f1_cal.index], f1_cal.to_numpy())     # macro = mean of per-label calibrated
    rec = summary[summary.measure == "recall_macro"]
    np.testing.assert_allclose(rec.value, rec.calibrated)                       # property IV: recall unchanged
    assert set(summary.measure) == {"f1_macro", "recall_macro", "precision_micro"}
    best = summary[summary.measure == "f1_macro"].sort_values("calibrated", ascending=False).iloc[0]
    assert best.rank_calibrated == 1
    _, _, mean_pi = calibration_tables(counts, chosen, reference="mean")
    assert mean_pi == pytest.approx(gold[:, :5].mean())
    with pytest.raises(ValueError, match="between 0 and 1"):
        calibration_tables(counts, chosen, reference=1.5)


# ------------------------------------------------------------------------------ McNemar


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**31), N=st.integers(1, 60))
def test_mcnemar_counts_exact_matches(seed, N):
    """The McNemar row of a pair of label-set systems counts b = items whose set a gets exactly
    right and b does not, c the reverse (McNemar 1947 on exact match), and tests them with the one
    McNemar of :func:`evalreport.analyses.significance.mcnemar`."""
    rng = np.random.default_rng(seed)
    gold = rng.random((N, 2)) < 0.5
    a = np.where(rng.random((N, 1)) < 0.6, gold, rng.random((N, 2)) < 0.5)
    b = np.where(rng.random((N, 1)) < 0.4, gold, rng.random((N, 2)) < 0.5)
    runs = Runs(gold, np.stack([a, b]), ["x", "y"], ["a", "b"])
    design = LabelSetDesign(runs)
    row = pairwise_tests(design, "f1_macro", design.point([get("f1_macro")])[:, 0], tests=("mcnemar",)).iloc[0]
    ea, eb = (a == gold).all(1), (b == gold).all(1)
    n_ab, n_ba = int((ea & ~eb).sum()), int((~ea & eb).sum())
    assert row.measure == "subset_accuracy" and row.detail.endswith(f"b={n_ab}, c={n_ba}")
    assert row.difference == pytest.approx((n_ab - n_ba) / N)
    assert row.p_value == mcnemar([n_ab], [n_ba])[1][0]


@pytest.mark.parametrize("b, c", [(0, 5), (3, 9), (12, 12), (0, 0), (20, 4), (30, 12), (100, 70), (3, 40)])
def test_the_one_mcnemar_against_scipy(b, c):
    """Exact binomial (scipy.stats.binomtest, McNemar 1947) below MCNEMAR_EXACT_BELOW discordant
    items, else chi-square with continuity correction (Edwards 1948) from scipy.stats.chi2."""
    stat, p, exact = mcnemar(np.array([b]), np.array([c]))
    n = b + c
    if n == 0:
        assert p[0] == 1.0 and stat[0] == 0
    elif n < MCNEMAR_EXACT_BELOW:
        assert exact[0] and stat[0] == min(b, c)
        assert p[0] == pytest.approx(stats.binomtest(b, n, 0.5).pvalue, rel=1e-10)
    else:
        chi = (abs(b - c) - 1) ** 2 / n
        assert not exact[0] and stat[0] == pytest.approx(chi)
        assert p[0] == pytest.approx(stats.chi2.sf(chi, 1), rel=1e-10)


def test_mcnemar_worked_numbers():
    """b = 0, c = 5: exact p = 2 / 32 = 0.0625 (every discordant item goes one way)."""
    gold = np.ones((5, 1), dtype=bool)
    runs = Runs(gold, np.stack([~gold, gold]), ["x"], ["a", "b"])
    design = LabelSetDesign(runs)
    row = pairwise_tests(design, "f1_macro", np.zeros(2), tests=("mcnemar",)).iloc[0]
    assert row.p_value == pytest.approx(2 / 32) and row.statistic == 0 and row.difference == -1.0


# ------------------------------------------------------------------------------ randomisation


def _swapped_by_hand(runs, z):
    pred = runs.pred.copy()
    pred[0, z], pred[1, z] = runs.pred[1, z], runs.pred[0, z]
    return Runs(runs.gold, pred, runs.labels, runs.systems)


def _swap_differences(runs, measure, swaps, policy="nan"):
    """Oriented differences of systems 0 and 1 after the given swaps (one row per round)."""
    m = get(measure)
    v = compute_multilabel(m, count_swapped(runs, 0, 1, swaps, example=m.kind == "example"), policy=policy).value
    return (1.0 if m.higher_is_better else -1.0) * (v[:, 0] - v[:, 1])


@pytest.mark.parametrize("measure", ["f1_macro", "example_f1", "hamming_loss", "precision_micro"])
def test_randomization_rounds_equal_swapping_the_sets_by_hand(measure):
    runs = _random_runs(3, N=7, L=3, S=2)
    allz = np.array(list(itertools.product([0, 1], repeat=7)), dtype=np.uint8)      # all 2^7 swaps
    d = _swap_differences(runs, measure, allz, policy="zero")
    sign = 1.0 if get(measure).higher_is_better else -1.0
    for z, got in zip(allz, d):
        v = compute_multilabel(measure, count_multilabel(_swapped_by_hand(runs, z.astype(bool))), policy="zero").value
        assert got == pytest.approx(sign * (v[0] - v[1]), abs=1e-12)
    counts = count_swapped(runs, 0, 1, allz[[5]])
    assert counts.label_tensor.shape == (1, 2, 3, 2, 2) and counts.example_stats[0, 0, STAT["items"]] == 7


def test_randomization_p_approaches_the_full_enumeration():
    """With few items every one of the 2^n swaps can be enumerated: the exact permutation p is
    #{|d_z| >= |d|} / 2^n; the approximate test (R rounds) estimates it (Noreen 1989, ch. 2)."""
    runs = _random_runs(4, N=10, L=3, S=2)
    point = compute_multilabel("f1_macro", count_multilabel(runs)).value
    observed = point[0] - point[1]
    allz = np.array(list(itertools.product([0, 1], repeat=10)), dtype=np.uint8)
    d = _swap_differences(runs, "f1_macro", allz)
    exact = np.mean(np.abs(d) >= abs(observed) - 1e-12)
    R = 20000
    table = pairwise_tests(LabelSetDesign(runs), get("f1_macro"), point, tests=("randomization",), rounds=R,
                           rng=np.random.default_rng(7))
    row = table.iloc[0]
    assert row.n_resamples == R and row.test == "randomization"
    assert abs(row.p_value - exact) < 4 * np.sqrt(exact * (1 - exact) / R) + 1 / R
    assert 0 < exact < 1


def test_identical_systems_give_p_one():
    runs = _random_runs(5, N=20, S=2)
    same = Runs(runs.gold, np.stack([runs.pred[0], runs.pred[0]]), runs.labels, runs.systems)
    point = compute_multilabel("f1_macro", count_multilabel(same)).value
    t = pairwise_tests(LabelSetDesign(same), get("f1_macro"), point, tests=("randomization", "mcnemar"), rounds=50,
                       rng=np.random.default_rng(0))
    assert len(t) == 2 and (t.p_value == 1.0).all() and (t.difference == 0).all()


# ------------------------------------------------------------------------------ the comparison


def test_compare_builds_the_label_set_tables():
    runs = _random_runs(6, N=80, L=4, S=4)
    c = compare(runs, bootstrap=50, randomization=99, seed=3)
    assert c.kind == "multilabel" and c.manifest()["kind"] == "multilabel"
    for name in ("calibration", "calibration_summary", "audit"):
        assert name in ML_TABLES and name in c.tables() and name in c.extra
    assert "tests" not in c.tables() and list(c.tables())[:len(TABLES)] == list(TABLES)
    t = c.pairwise
    assert list(t.columns) == PAIRWISE_COLUMNS
    for test, measure in (("bootstrap", "f1_macro"), ("randomization", "f1_macro"), ("mcnemar", "subset_accuracy")):
        rows = t[t.test == test]
        assert len(rows) == 6 and set(rows.measure) == {measure}
        np.testing.assert_allclose(rows.p_holm, holm(rows.p_value.to_numpy()))
    rnd = t[t.test == "randomization"]
    assert (rnd.p_value >= 1 / 100).all() and (rnd.n_resamples == 99).all()
    assert set(c.audit.measure) == set(EXAMPLE_IDS) and c.audit.as_expected.dropna().all()
    for key in ("calibration_reference", "randomization_rounds", "seed", "n_task"):
        assert key in c.settings
    again = compare(runs, bootstrap=50, randomization=99, seed=3)
    pd.testing.assert_frame_equal(c.pairwise, again.pairwise)
    off = compare(runs, bootstrap=0, randomization=0, audit=False, calibration_reference=0.25)
    assert off.pairwise.empty and off.audit.empty and list(off.pairwise.columns) == PAIRWISE_COLUMNS
    assert off.settings["calibration_prevalence"] == 0.25


def test_write_comparison_writes_the_label_set_tables(tmp_path):
    c = compare(_random_runs(7, N=30, S=3), bootstrap=20, randomization=20)
    out = write_comparison(c, tmp_path / "t")
    for name in ("calibration", "calibration_summary", "pairwise", "audit"):
        back = pd.read_csv(out / f"{name}.csv")
        assert len(back) == len(c.tables()[name]) > 0
        assert (out / f"{name}.json").exists()


# ------------------------------------------------------------------------------ n_task


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**31), policy=st.sampled_from(["zero", "one", "nan"]))
def test_a_label_one_system_invents_leaves_the_others_macro_unchanged(seed, policy):
    """System s0 predicts a label outside the label set (kept with allow_unknown=True): it is a false
    positive of s0 (micro, example-based), and no other system's macro / weighted average moves."""
    runs = _random_runs(seed, N=25, L=3, S=3)
    extra = np.zeros((3, 25, 1), dtype=bool)
    extra[0, :5] = True
    with_extra = Runs(np.concatenate([runs.gold, np.zeros((25, 1), bool)], 1), np.concatenate([runs.pred, extra], 2),
                      [*runs.labels, "invented"], runs.systems)
    with_extra = replace(with_extra, n_task=3)
    before, after = count_multilabel(runs), count_multilabel(with_extra)
    assert after.n_task == 3
    for m in ("f1_macro", "precision_macro", "mcc_macro", "f1_weighted", "accuracy_macro"):
        v0 = compute_multilabel(m, before, policy=policy).value
        v1 = compute_multilabel(m, after, policy=policy).value
        np.testing.assert_allclose(v1, v0, equal_nan=True)
    for m in ("precision_micro", "accuracy_micro", "specificity_micro", "hamming_loss", "example_f1"):
        v0 = compute_multilabel(m, before, policy=policy).value
        np.testing.assert_allclose(compute_multilabel(m, after, policy=policy).value[1:], v0[1:], equal_nan=True)
    micro0 = compute_multilabel("precision_micro", before, policy=policy).value
    micro1 = compute_multilabel("precision_micro", after, policy=policy).value
    np.testing.assert_allclose(micro1[1:], micro0[1:], equal_nan=True)
    fp = after.label_tensor[0, 3, 0, 1]
    assert fp == 5 and (np.isnan(micro0[0]) or micro1[0] < micro0[0])
    # without n_task the invented label's 0/0 would enter s1's macro F1 under policy one
    all_labels = replace(with_extra, n_task=None)
    assert all_labels.n_task == 4


def test_n_task_from_the_reader(tmp_path):
    from evalreport.inputs.multilabel import read_multilabel

    gold = write(tmp_path / "gold.jsonl", '{"id": "1", "label": ["a"]}\n{"id": "2", "label": ["b"]}\n')
    run = write(tmp_path / "r.jsonl", '{"id": "1", "label": ["a", "zz"]}\n{"id": "2", "label": []}\n')
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        runs = read_multilabel(gold, [run], allow_unknown=True)
    assert runs.labels == ("a", "b", "zz") and runs.n_task == 2
    c = compare(runs, bootstrap=0, randomization=0, audit=False)
    marked = c.per_label.set_index("label").in_task
    assert marked.to_dict() == {"a": True, "b": True, "zz": False}
    # label density is over the task's two labels, as the label averages (not over "zz" too)
    card = c.cardinality.set_index("source")
    assert card.loc["gold", "density"] == pytest.approx(1 / 2)
    assert card.loc["r", "density"] == pytest.approx((2 + 0) / 2 / 2)
    with pytest.raises(ValueError, match="predicted-only"):
        replace(Runs(np.ones((2, 3), bool), np.ones((1, 2, 3), bool), ["a", "b", "c"], ["s"]), n_task=2)


# ------------------------------------------------------------------------------ the audit


def test_audit_verdicts_agree_with_the_claims():
    f = audit_multilabel()
    assert set(f.property) == set(ML_PROPERTIES) and len(f) == len(EXAMPLE_IDS) * len(ML_PROPERTIES)
    claimed = f[f.as_expected.notna()]
    assert len(claimed) == len(EXAMPLE_IDS) * 7                      # every paper property has a claim
    assert claimed.as_expected.all(), claimed[~claimed.as_expected.astype(bool)].to_string()
    assert (f.paper_claim == "").all() and f.agrees_with_paper.isna().all()   # no paper states them for sets
    assert (f[f.verdict == "violated"].counterexample.str.len() > 0).all()
    row = f[(f.measure == "example_precision") & (f.property == "Max")].iloc[0]
    assert row.verdict == "violated" and row.counterexample == "G=[{a,b}] P=[{a}] (1)"   # a subset scores 1
    empty = f[f.property == "EMPTY"].set_index("measure")
    assert (empty.policy == "nan").all()          # no policy given: the default of every command, not the convention
    assert empty.loc["example_f1", "verdict"] == "violated"   # the empty item is skipped: it counts for nothing
    assert empty.loc["subset_accuracy", "verdict"] == "satisfied"


def test_set_space_indexes_every_case():
    sp = SetSpace(2, 3)
    np.testing.assert_array_equal(sp.index(sp.gold, sp.pred), np.arange(len(sp)))
    order = np.array([2, 0, 1])                  # items in another order: a case with the same statistics
    moved = sp.index(sp.gold[:, order], sp.pred[:, order])
    np.testing.assert_array_equal(sp.stats[moved], sp.stats)
    assert len(sp) == 20 * 4 ** 3                # C(4 + 3 - 1, 3) gold multisets x 4^3 predictions


def _example_fn(name):
    return get(name).fn


def test_a_broken_measure_flips_the_verdicts():
    """The audit computes: example F1 scaled by 0.99 never reaches 1 (Max, FIX fail), and example
    F1 with |G| in place of |G| + |P| (a recall) loses gold/prediction symmetry."""
    f1 = get("example_f1")

    def scaled(stats, ctx):
        return 0.99 * _example_fn("example_f1")(stats, ctx)

    def lopsided(stats, ctx):
        return _example_fn("example_recall")(stats, ctx)

    broken = [replace(f1, id="f1_scaled", fn=scaled), replace(f1, id="f1_lopsided", fn=lopsided)]
    f = audit_multilabel([f1, *broken], ["Max", "FIX", "Sym"]).set_index(["measure", "property"])
    assert f.loc[("example_f1", "Max")].verdict == "satisfied" and f.loc[("f1_scaled", "Max")].verdict == "violated"
    assert not f.loc[("f1_scaled", "Max")].as_expected      # it kept example F1's claims: now they disagree
    assert f.loc[("example_f1", "Sym")].verdict == "satisfied" and f.loc[("f1_lopsided", "Sym")].verdict == "violated"
    assert f.loc[("f1_scaled", "FIX")].verdict == "violated"


def test_audit_refuses_label_based_measures():
    from evalreport.errors import MeasureError

    with pytest.raises(MeasureError, match="not example-based"):
        audit_multilabel(["f1_macro"])
    assert "f1" in BINARY       # the label-based averages are audited by the single-label audit
