"""Chance baselines: trivial predictors and random-classifier expectations (analyses.baselines)."""
import itertools

import numpy as np
import pytest

from evalreport.analyses.baselines import RANDOM_MODELS, baselines, enumerate_tables, expected_table, sample_tables
from evalreport.counts import Counts, confusion_from_codes
from evalreport.measures import REGISTRY, compute


def table(frame):
    return frame.set_index(["measure", "baseline"])


def test_paper000_random_f1_depends_on_test_set():
    # Sebastiani (2015), Property 4.3: with AN = 0, E[F1(h_rand)] = 0.500 for |D| = 1 and ~0.612 for |D| = 100.
    # The paper's random classifier is the 'contingency' model: every contingency table equally likely.
    one = table(baselines(np.array([1, 0]), ["f1"], positive="0", models="contingency"))
    assert one.loc[("f1", "contingency"), "value"] == pytest.approx(0.5)
    hundred = table(baselines(np.array([100, 0]), ["f1"], positive="0", models="contingency"))
    row = hundred.loc[("f1", "contingency")]
    assert row["method"] == "enumeration" and row["se"] == 0
    assert row["value"] == pytest.approx(0.612, abs=1e-3)          # the paper prints "≈ 0.612" (0.61257 exactly)
    assert row["value"] == pytest.approx(sum(2 * t / (t + 100) for t in range(101)) / 101, rel=1e-12)


def test_paper000_trivial_acceptor_and_rejector():
    AP, AN = 30, 70
    b = table(baselines(np.array([AP, AN]), ["f1", "k", "accuracy"], positive="0", models=()))
    # Property 4.4: F1(h_acc) = 2AP / (2AP + AN)
    assert b.loc[("f1", "trivial_acceptor"), "value"] == pytest.approx(2 * AP / (2 * AP + AN))
    assert b.loc[("f1", "trivial_rejector"), "value"] == 0.0
    # section 8: the trivial acceptor and rejector both obtain K = 0
    assert b.loc[("k", "trivial_acceptor"), "value"] == 0.0
    assert b.loc[("k", "trivial_rejector"), "value"] == 0.0
    # Property 4.10: accuracy of the trivial acceptor is AP / |D|
    assert b.loc[("accuracy", "trivial_acceptor"), "value"] == pytest.approx(AP / (AP + AN))
    assert b.loc[("accuracy", "majority"), "value"] == pytest.approx(AN / (AP + AN))
    assert (b["method"] == "exact").all()


def test_constant_and_majority_predictors_multiclass():
    a = np.array([20, 50, 30])
    b = table(baselines(a, ["accuracy", "macro_recall", "k"], labels=["x", "y", "z"], models=()))
    for lab, size in zip("xyz", a):
        assert b.loc[("accuracy", f"constant:{lab}"), "value"] == pytest.approx(size / 100)
        assert b.loc[("macro_recall", f"constant:{lab}"), "value"] == pytest.approx(1 / 3)
        assert b.loc[("k", f"constant:{lab}"), "value"] == pytest.approx(0.0, abs=1e-12)
    assert b.loc[("accuracy", "majority"), "value"] == pytest.approx(0.5)
    assert "y" in b.loc[("accuracy", "majority"), "note"]


def test_hand_checkable_expectations():
    a = np.array([30, 50, 20])
    b = table(baselines(a, ["macro_recall", "k", "accuracy", "mcc", "kappa"], predictors=False))
    for model in RANDOM_MODELS:
        # macro recall's chance value is 1/K (Opitz 2022, Appendix B.5); K's is 0 (Sebastiani 2015, Property 5.6)
        assert b.loc[("macro_recall", model), "value"] == pytest.approx(1 / 3)
        assert b.loc[("k", model), "value"] == pytest.approx(0.0, abs=1e-12)
        assert b.loc[("macro_recall", model), "method"] == "linear"
    # accuracy: sum_i a_i^2 / n^2 under prevalence-random and fixed sizes, 1/K under uniform
    assert b.loc[("accuracy", "prevalence"), "value"] == pytest.approx(0.3**2 + 0.5**2 + 0.2**2)
    assert b.loc[("accuracy", "fixed_sizes"), "value"] == pytest.approx(0.3**2 + 0.5**2 + 0.2**2)
    assert b.loc[("accuracy", "uniform"), "value"] == pytest.approx(1 / 3)
    # MCC and kappa are linear only once both margins are fixed (Gösgens et al. 2021, section 3.5)
    assert b.loc[("mcc", "fixed_sizes"), "method"] == "linear"
    assert b.loc[("mcc", "fixed_sizes"), "value"] == pytest.approx(0.0, abs=1e-12)
    assert b.loc[("mcc", "uniform"), "method"] == "monte_carlo"
    assert b.loc[("mcc", "uniform"), "se"] > 0
    assert abs(b.loc[("mcc", "uniform"), "value"]) < 4 * b.loc[("mcc", "uniform"), "se"] + 1e-3


def test_linearity_is_decided_per_model():
    b = table(baselines(np.array([40, 60]), ["macro_precision", "accuracy"], predictors=False))
    assert b.loc[("macro_precision", "fixed_sizes"), "method"] == "linear"
    assert b.loc[("macro_precision", "uniform"), "method"] != "linear"
    assert (b.xs("accuracy", level="measure")["method"] == "linear").all()


@pytest.mark.parametrize("sizes", [None, [10, 25, 15]])
def test_declared_chance_matches_fixed_sizes_expectation(sizes):
    # Gösgens et al. (2021), Definition 8: a measure with a constant baseline has E over random labellings with
    # fixed (non-unary) predicted sizes equal to c_base(K). Cross-check the registry's chance values.
    a = np.array([20, 20, 10])
    K = len(a)
    declared = [m for m in REGISTRY.values() if m.chance is not None and m.kind == "multiclass" and not m.params]
    b = table(baselines(a, [m.id for m in declared], models="fixed_sizes", sizes=sizes, predictors=False))
    checked = 0
    for m in declared:
        row = b.loc[(m.id, "fixed_sizes")]
        if row["method"] == "linear":
            assert row["value"] == pytest.approx(m.chance_value(K), abs=1e-12), m.id
            checked += 1
    assert checked >= 5


def brute_force(gold, K, model, measure, sizes=None):
    """Expectation by listing every labelling of the items (tiny n only)."""
    n = len(gold)
    if model == "fixed_sizes":
        pool = np.repeat(np.arange(K), sizes)
        labellings = np.array(list(itertools.permutations(pool)))
        weights = np.full(len(labellings), 1 / len(labellings))
    else:
        labellings = np.array(list(itertools.product(range(K), repeat=n)))
        p = np.full(K, 1 / K) if model == "uniform" else np.bincount(gold, minlength=K) / n
        weights = np.prod(p[labellings], axis=1)
    C = confusion_from_codes(np.asarray(gold), labellings, K)
    v = compute(measure, C).value
    ok = np.isfinite(v)
    return float(np.sum(weights[ok] * v[ok]) / weights[ok].sum())


@pytest.mark.parametrize("model", ["uniform", "prevalence", "fixed_sizes"])
@pytest.mark.parametrize("measure", ["macro_f1_hm", "confusion_entropy", "mcc"])
def test_enumeration_matches_brute_force(model, measure):
    gold = np.array([0, 0, 0, 1, 1, 2])
    a = np.bincount(gold, minlength=3)
    b = table(baselines(a, [measure], models=model, predictors=False))
    row = b.loc[(measure, model)]
    assert row["method"] in ("enumeration", "linear")
    assert row["value"] == pytest.approx(brute_force(gold, 3, model, measure, sizes=a), rel=1e-10, abs=1e-12)


def test_monte_carlo_agrees_with_enumeration_and_is_seeded():
    a = np.array([4, 3, 3])
    exact = table(baselines(a, ["macro_f1", "sba"], predictors=False))
    mc = table(baselines(a, ["macro_f1", "sba"], predictors=False, max_tables=0, n_samples=4000, seed=7))
    again = table(baselines(a, ["macro_f1", "sba"], predictors=False, max_tables=0, n_samples=4000, seed=7))
    for key in mc.index:
        if mc.loc[key, "method"] == "monte_carlo":
            assert exact.loc[key, "method"] == "enumeration"
            assert abs(mc.loc[key, "value"] - exact.loc[key, "value"]) < 5 * mc.loc[key, "se"]
            assert mc.loc[key, "value"] == again.loc[key, "value"]


def test_samplers_respect_margins_and_means():
    rng = np.random.default_rng(0)
    a = np.array([7, 2, 5])
    for model in RANDOM_MODELS:
        X = sample_tables(a, model, 3000, rng)
        np.testing.assert_array_equal(X.sum(axis=2), np.broadcast_to(a, (3000, 3)))
        if model == "fixed_sizes":
            np.testing.assert_array_equal(X.sum(axis=1), np.broadcast_to(a, (3000, 3)))
        np.testing.assert_allclose(X.mean(axis=0), expected_table(a, model), atol=0.15)
        tables, w = enumerate_tables(a, model)
        np.testing.assert_allclose(np.tensordot(w, tables, axes=1), expected_table(a, model), atol=1e-12)


def test_inputs_and_errors():
    counts = Counts(np.array([[[3, 1], [2, 4]], [[4, 0], [1, 5]]]), ["a", "b"], ["s1", "s2"])
    b = baselines(counts, ["accuracy"], models="uniform")
    assert list(b.columns) == ["measure", "baseline", "value", "se", "method", "note"]
    assert set(b["baseline"]) == {"constant:a", "constant:b", "majority", "uniform"}
    other = Counts(np.array([[[3, 1], [2, 4]], [[4, 0], [1, 1]]]), ["a", "b"], ["s1", "s2"])
    with pytest.raises(ValueError, match="different gold"):
        baselines(other, ["accuracy"])
    with pytest.raises(ValueError, match="random model"):
        baselines(counts, ["accuracy"], models="coin")
    with pytest.raises(ValueError, match="sizes"):
        baselines(counts, ["accuracy"], models="fixed_sizes", sizes=[1, 1])
