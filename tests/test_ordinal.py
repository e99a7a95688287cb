"""Ordinal and cost-sensitive measures (Sebastiani 2015, section 6) and their plumbing."""
from __future__ import annotations

import numpy as np
import pytest
from conftest import write_run_files
from hypothesis import given, settings, strategies as st
from sklearn.metrics import cohen_kappa_score, mean_absolute_error

from evalreport import measures as M
from evalreport.counts import confusion_from_codes
from evalreport.errors import InputError, MeasureError
from evalreport.inputs.costs import validate_costs
from evalreport.measures.ordinal import cost_recalls, costs_from_order

ORDINAL_IDS = ("k_cost", "mae", "macro_mae", "kappa_linear", "kappa_quadratic", "expected_cost")
FIVE = ["c1", "c2", "c3", "c4", "c5"]


def one(measure, C, costs, **kw) -> float:
    """The value of a measure on one (K, K) matrix (computed as a batch of one)."""
    r = M.compute(measure, np.asarray(C, dtype=float)[None], costs=costs, **kw)
    return float(r.value[0])


def items(pairs, K=5):
    """Confusion matrix from (gold, predicted) 1-based class numbers."""
    C = np.zeros((K, K))
    for g, p in pairs:
        C[g - 1, p - 1] += 1
    return C


# ----------------------------------------------------------------------------- Example 6.1

D = costs_from_order(FIVE, FIVE)  # Delta(c_i, c_i+1) = 1 for i in 1..4


@pytest.mark.parametrize("pair,cls,contribution", [
    ((3, 3), 3, 1.0),        # d1: correctly classified, contributes (1 - 0) = 1 to rho_3
    ((3, 2), 3, 0.5),        # d2: c3 -> c2, (1 - 1/2) = 1/2 (max error for c3 is 2)
    ((3, 1), 3, 0.0),        # d3: c3 -> c1, (1 - 2/2) = 0
    ((4, 3), 4, 2.0 / 3.0),  # d4: c4 -> c3, (1 - 1/3) = 2/3 (max error for c4 is 3)
])
def test_example_6_1_contributions(pair, cls, contribution):
    """Sebastiani (2015), Example 6.1: each item's contribution to its class recall (eq. 11, AE)."""
    rho = cost_recalls(items([pair]), D, error="ae")
    assert rho[cls - 1] == pytest.approx(contribution, abs=1e-12)


def test_example_6_1_class_recalls_and_k():
    """Sebastiani (2015), Example 6.1 all four items: rho_3 = (1 + 1/2 + 0)/3, rho_4 = 2/3; K by eq. 10."""
    C = items([(3, 3), (3, 2), (3, 1), (4, 3)])
    rho = cost_recalls(C, D)
    assert rho[2] == pytest.approx(0.5) and rho[3] == pytest.approx(2 / 3)
    assert np.isnan(rho[[0, 1, 4]]).all()                     # AP_j = 0: undefined (eq. 11)
    # eq. 10 with |C| = 5 and xi = (0, 0, 1, 1, 0)
    expected = 5 / 4 * ((0.5 + 2 / 3) / 2) - 1 / 4
    assert one("k_cost", C, D) == pytest.approx(expected)
    assert one("k_cost(error=ae)", C, D) == pytest.approx(expected)


def test_example_6_1_squared_error():
    """Section 6.2 with SE = Delta^2: d2 contributes 1 - 1/4, d4 contributes 1 - 1/9."""
    assert cost_recalls(items([(3, 2)]), D, error="se")[2] == pytest.approx(0.75)
    assert cost_recalls(items([(4, 3)]), D, error="se")[3] == pytest.approx(8 / 9)
    C = items([(3, 3), (3, 2), (3, 1), (4, 3)])
    rho3, rho4 = (1 + 0.75 + 0) / 3, 8 / 9
    assert one("k_cost(error=se)", C, D) == pytest.approx(5 / 4 * (rho3 + rho4) / 2 - 1 / 4)


def test_example_6_1_same_distance_different_severity():
    """Example 6.1's point: d2 and d4 both err by distance 1, but d2's error weighs more."""
    rho = cost_recalls(items([(3, 2), (4, 3)]), D)
    assert rho[2] < rho[3]


# ----------------------------------------------------------------------------- SLC reduces to eq. 9-10


@settings(max_examples=40, deadline=None)
@given(K=st.integers(2, 6), seed=st.integers(0, 10_000), error=st.sampled_from(["ae", "se"]))
def test_slc_costs_reduce_to_k(K, seed, error):
    """Sebastiani (2015), section 6.2: with Delta = 1 off the diagonal eq. 11 is eq. 9, so k_cost = k (eq. 10),
    also with classes absent from the gold labels (xi_j = 0)."""
    rng = np.random.default_rng(seed)
    C = rng.integers(0, 6, size=(4, K, K)).astype(float)
    C[rng.random((4, K)) < 0.25] = 0.0                         # some gold classes absent
    C[:, 0, 0] += 1                                            # never an empty matrix
    slc = 1.0 - np.eye(K)
    got = M.compute(f"k_cost(error={error})", C, costs=slc).value
    want = M.compute("k", C).value
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def test_k_cost_bounds():
    """rho_j is 1 iff all of c_j is correct and 0 iff all of c_j goes to the most distant class (section 6.2)."""
    perfect = np.diag([3.0, 1, 2, 4, 5])
    assert one("k_cost", perfect, D) == pytest.approx(1.0)
    worst = items([(1, 5), (2, 5), (3, 1), (4, 1), (5, 1)])    # every item at max(E_j)
    assert cost_recalls(worst, D) == pytest.approx(np.zeros(5))
    assert one("k_cost", worst, D) == pytest.approx(-1 / 4)


def test_k_cost_zero_cost_row_is_undefined_and_named():
    costs = D.copy()
    costs[1, :] = 0.0                                           # every prediction for gold c2 is free
    C = items([(2, 1), (3, 3)])
    r = M.compute("k_cost", C[None], costs=costs, labels=FIVE)
    assert np.isnan(r.value[0]) and r.undefined[0]
    assert "max(E_j) = 0" in r.reason[0] and "c2" in r.reason[0]


# ----------------------------------------------------------------------------- differential tests


def _codes(rng, K, n):
    gold = rng.integers(0, K, n)
    noise = rng.integers(-2, 3, n)
    pred = np.clip(gold + noise * (rng.random(n) < 0.5), 0, K - 1)
    return gold, pred


@settings(max_examples=30, deadline=None)
@given(K=st.integers(2, 7), n=st.integers(5, 60), seed=st.integers(0, 10_000), shuffle=st.booleans())
def test_weighted_kappa_matches_sklearn(K, n, seed, shuffle):
    """kappa_linear / kappa_quadratic against scikit-learn's cohen_kappa_score(weights=...); the class
    order may differ from the label list (``labels=order`` in scikit-learn)."""
    rng = np.random.default_rng(seed)
    gold, pred = _codes(rng, K, n)
    labels = [f"l{k}" for k in range(K)]
    order = list(rng.permutation(labels)) if shuffle else labels
    costs = costs_from_order(order, labels)
    C = confusion_from_codes(gold, pred, K)[None].astype(float)
    yg = np.array(labels)[gold]
    yp = np.array(labels)[pred]
    for mid, w in (("kappa_linear", "linear"), ("kappa_quadratic", "quadratic")):
        want = cohen_kappa_score(yg, yp, labels=order, weights=w)
        got = M.compute(mid, C, costs=costs).value[0]
        if np.isnan(want):
            assert np.isnan(got)
        else:
            assert got == pytest.approx(want, abs=1e-10)


@settings(max_examples=30, deadline=None)
@given(K=st.integers(2, 7), n=st.integers(1, 60), seed=st.integers(0, 10_000))
def test_mae_and_macro_mae_match_item_level(K, n, seed):
    """mae = scikit-learn's mean_absolute_error on the class positions; macro_mae = mean over the gold
    classes present of the per-class MAE (computed here from the items)."""
    rng = np.random.default_rng(seed)
    gold, pred = _codes(rng, K, n)
    C = confusion_from_codes(gold, pred, K)[None].astype(float)
    costs = costs_from_order([str(k) for k in range(K)], [str(k) for k in range(K)])
    assert M.compute("mae", C, costs=costs).value[0] == pytest.approx(mean_absolute_error(gold, pred))
    per_class = [np.abs(gold[gold == k] - pred[gold == k]).mean() for k in range(K) if (gold == k).any()]
    assert M.compute("macro_mae", C, costs=costs).value[0] == pytest.approx(np.mean(per_class))


def test_cost_orientation_rows_gold_columns_predicted():
    """costs[i, j] is the cost of predicting j for gold i (an asymmetric matrix tells them apart)."""
    costs = np.array([[0.0, 5.0], [1.0, 0.0]])     # predicting b for a costs 5, a for b costs 1
    C = np.array([[0.0, 1.0], [0.0, 0.0]])          # one item: gold a, predicted b
    assert one("mae", C, costs) == 5.0
    C2 = np.array([[0.0, 0.0], [1.0, 0.0]])         # gold b, predicted a
    assert one("mae", C2, costs) == 1.0


def test_expected_cost_normalisation():
    """expected_cost = total cost / cost of the best constant prediction on the same gold labels."""
    costs = costs_from_order(FIVE, FIVE)
    C = items([(1, 1), (1, 2), (3, 3), (5, 4), (5, 5)])
    gold_sizes = C.sum(axis=1)
    constant = [(gold_sizes * costs[:, k]).sum() for k in range(5)]   # always predict c_k
    assert constant == [10.0, 9.0, 8.0, 9.0, 10.0]                     # always c3 is cheapest: 2*2 + 0 + 2*2
    assert one("expected_cost", C, costs) == pytest.approx(2.0 / 8.0)  # two errors of distance 1
    assert one("expected_cost", np.diag(gold_sizes), costs) == 0.0
    best = np.zeros((5, 5))
    best[:, 2] = gold_sizes                                            # the best constant predictor itself
    assert one("expected_cost", best, costs) == pytest.approx(1.0)
    single = np.zeros((5, 5))
    single[2, 2] = 3.0                                                 # one gold class: nothing to normalise by
    r = M.compute("expected_cost", single[None], costs=costs)
    assert np.isnan(r.value[0]) and "best constant" in r.reason[0]


def test_weighted_kappa_chance_and_perfect():
    costs = costs_from_order(FIVE, FIVE)
    assert one("kappa_quadratic", np.diag([2.0, 3, 1, 4, 2]), costs) == pytest.approx(1.0)
    # predictions independent of gold with the product of the marginals: kappa = 0 (declared chance)
    a = np.array([2.0, 1, 3, 1, 3])
    b = np.array([1.0, 2, 2, 3, 2])
    C = np.outer(a, b)
    for mid in ("kappa_linear", "kappa_quadratic"):
        assert one(mid, C, costs) == pytest.approx(M.get(mid).chance_value(5), abs=1e-12)


# ----------------------------------------------------------------------------- costs, registry, CLI


def test_costs_from_order():
    c = costs_from_order(["low", "mid", "high"], ["high", "low", "mid"])
    np.testing.assert_array_equal(c, [[0, 2, 1], [2, 0, 1], [1, 1, 0]])
    with pytest.raises(InputError, match="missing: 'mid'"):
        costs_from_order(["low", "high"], ["low", "mid", "high"])
    with pytest.raises(InputError, match="not among the classes"):
        costs_from_order(["low", "mid", "hgih", "high"], ["low", "mid", "high"])
    with pytest.raises(InputError, match="more than once"):
        costs_from_order(["low", "mid", "low", "high"], ["low", "mid", "high"])


def test_validate_costs():
    assert validate_costs(D, FIVE) is not None
    for bad, msg in ((-D, "negative"), (D + np.eye(5), "diagonal"), (D[:4, :4], "shape")):
        with pytest.raises(InputError, match=msg):
            validate_costs(bad, FIVE)


def test_registry_records():
    for mid in ORDINAL_IDS:
        m = M.get(mid)
        assert m.kind == "ordinal" and m.needs == ("costs",) and m.source and m.formula
    assert M.get("k_cost(error=se)").id == "k_cost(error=se)"
    assert M.get("k_cost(error='SE')").params == {"error": "se"}
    assert not M.get("mae").higher_is_better and M.get("k_cost").higher_is_better
    with pytest.raises(MeasureError, match="unknown error"):
        M.compute("k_cost(error=xx)", D[None], costs=D)
    with pytest.raises(MeasureError, match="--order"):
        M.compute("mae", D[None])
    frame = M.catalogue_frame()
    assert frame.set_index("id").loc["k_cost", "params"] == "error=ae"


def test_default_measures_add_ordinal_only_with_costs():
    with_costs = {m.id for m in M.default_measures(costs=D)}
    without = {m.id for m in M.default_measures()}
    assert set(ORDINAL_IDS) <= with_costs
    assert not set(ORDINAL_IDS) & without
    assert "fbeta" not in with_costs                    # the open numeric families stay out


def test_evaluate_with_costs():
    C = np.stack([items([(1, 1), (2, 3), (3, 3)]), items([(1, 2), (2, 2), (3, 1)])])
    frame = M.evaluate(C, costs=costs_from_order(["0", "1", "2", "3", "4"], [str(k) for k in range(5)]))
    assert set(ORDINAL_IDS) <= set(frame["measure"])
    mae = frame[frame["measure"] == "mae"]["value"].to_numpy()
    np.testing.assert_allclose(mae, [1 / 3, (1 + 0 + 2) / 3])


def _write(tmp_path):
    gold, (run,) = write_run_files(tmp_path, ["low", "mid", "high", "mid", "low", "high"],
                                   {"sys": ["low", "high", "high", "low", "low", "mid"]})
    return gold, run


def test_cli_score_adds_ordinal_measures_with_order(tmp_path, capsys):
    from evalreport.cli import main

    gold, run = _write(tmp_path)
    assert main(["score", str(gold), str(run), "--order", "low,mid,high", "--format", "csv"]) == 0
    out = capsys.readouterr().out
    import io

    import pandas as pd

    frame = pd.read_csv(io.StringIO(out))
    assert set(ORDINAL_IDS) <= set(frame["measure"])
    # errors: mid->high 1, mid->low 1, high->mid 1 over 6 items
    assert frame.set_index("measure").loc["mae", "value"] == pytest.approx(3 / 6)


def test_cli_order_must_name_every_class(tmp_path, capsys):
    from evalreport.cli import main

    gold, run = _write(tmp_path)
    assert main(["score", str(gold), str(run), "--order", "low,high"]) == 2
    assert "missing: 'mid'" in capsys.readouterr().err


def test_read_costs_reorders_and_validates(tmp_path):
    from evalreport.inputs.costs import read_costs

    p = tmp_path / "costs.csv"
    p.write_text("gold,high,low,mid\nlow,4,0,1\nhigh,0,4,1\nmid,1,1,0\n")
    np.testing.assert_array_equal(read_costs(p, ["low", "mid", "high"]), [[0, 1, 4], [1, 0, 1], [4, 1, 0]])
    p.write_text("gold,low,mid\nlow,0,1\nmid,1,0\n")
    with pytest.raises(InputError, match="missing 'high'"):
        read_costs(p, ["low", "mid", "high"])
    p.write_text("gold,low,mid\nlow,0,x\nmid,1,0\n")
    with pytest.raises(InputError, match="line 2.*'x' is not a number"):
        read_costs(p, ["low", "mid"])
    p.write_text("gold,low,mid\nlow,1,1\nmid,1,0\n")
    with pytest.raises(InputError, match="diagonal"):
        read_costs(p, ["low", "mid"])


def test_cli_score_with_cost_file(tmp_path, capsys):
    """--costs FILE: an asymmetric cost matrix; mae is then the mean cost per item."""
    from evalreport.cli import main

    gold, run = _write(tmp_path)
    costs = tmp_path / "costs.csv"
    costs.write_text("gold,low,mid,high\nlow,0,1,2\nmid,3,0,1\nhigh,6,3,0\n")
    assert main(["score", str(gold), str(run), "--costs", str(costs), "--measures", "mae,k_cost",
                 "--format", "csv"]) == 0
    import io

    import pandas as pd

    frame = pd.read_csv(io.StringIO(capsys.readouterr().out)).set_index("measure")
    # errors: mid->high 1, mid->low 3, high->mid 3 over 6 items
    assert frame.loc["mae", "value"] == pytest.approx(7 / 6)


@pytest.mark.parametrize("body,line,what", [(",a,b\na,0,1\nb,-2,0\n", 3, "finite and >= 0"),
                                            (",a,b\na,0,inf\nb,1,0\n", 2, "finite and >= 0"),
                                            (",a,b\na,0,1\nb,1,3\n", 3, "diagonal must be 0")])
def test_cost_file_value_errors_name_the_line(tmp_path, body, line, what):
    from evalreport.errors import InputError
    from evalreport.inputs.costs import read_costs

    path = tmp_path / "costs.csv"
    path.write_text(body)
    with pytest.raises(InputError, match=f"line {line}: .*{what}"):
        read_costs(path, ["a", "b"])
