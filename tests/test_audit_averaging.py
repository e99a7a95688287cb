"""Gösgens et al. (2021), Table 2, its rows "Preserving properties by various averaging
types": the claims of the one-vs-rest averages are derived from those rows, the audit
agrees with every derived claim, and every cell of the rows is reproduced on the registered
measures or its difference is documented in docs/audit.md#averaging.

Matrices are rows = gold, columns = predicted; a binary measure takes class 1 as positive.
"""
from __future__ import annotations

from fractions import Fraction as Fr
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from evalreport.analyses.audit import (
    AVERAGING_PRESERVES,
    AVERAGINGS,
    audit,
    average_claims,
    preservation,
    table_2_averaging,
)
from evalreport.analyses.audit.batches import not_unary
from evalreport.analyses.audit.properties import Case, _relation, gt
from evalreport.analyses.audit.space import Space
from evalreport.errors import MeasureError
from evalreport.measures import REGISTRY, Measure, compute, get
from evalreport.measures.binary import AVERAGING_AUDIT_DIFFERS, BINARY, TABLE_2_PROPERTIES, _averaged, positive_counts

DOC = (Path(__file__).resolve().parents[1] / "docs" / "audit.md").read_text()
AVERAGES = [m for m in REGISTRY.values() if m.averaging]


@pytest.fixture(scope="module")
def pres():
    return preservation(max_n=6)


@pytest.fixture(scope="module")
def table(pres):
    return table_2_averaging(pres).set_index(["averaging", "property"])


def value(measure, C, **kw):
    return float(compute(measure, np.array(C), **kw).value)


# ------------------------------------------------------------------ the declaration and the rule


def test_rows_are_table_2_as_printed():
    """Gösgens et al. (2021), Table 2, last three rows, columns Max Min CSym Sym Dist Mon SMon CB ACB."""
    printed = {"micro": "✓✗✓✓✓✓✗✗✗", "macro": "✓✗✓✓✓✓✗✓✓", "weighted": "✓✗✓✗✗✓✗✓✓"}
    assert TABLE_2_PROPERTIES == ("Max", "Min", "CSym", "Sym", "Dist", "Mon", "SMon", "CB", "ACB")
    assert AVERAGINGS == ("micro", "macro", "weighted")
    for avg, row in printed.items():
        assert [AVERAGING_PRESERVES[avg][p] for p in TABLE_2_PROPERTIES] == [c == "✓" for c in row], avg


def test_rule_claims_a_property_only_where_the_binary_measure_has_it_and_it_is_preserved():
    claims = {"goesgens.Max": True, "goesgens.Min": True, "goesgens.SMon": True, "goesgens.Sym": False,
              "goesgens.CSym": "n/a", "goesgens.ACB": True}
    # Min and SMon are ✗ for every averaging: "some measure loses them" says nothing about this one
    assert average_claims(claims, "micro") == {"goesgens.Max.multiclass": True}
    assert average_claims(claims, "macro") == {"goesgens.Max.multiclass": True, "goesgens.ACB.multiclass": True}
    # a binary-setting claim wins over the general one; the paper's value counts, not the audit's
    assert average_claims({"goesgens.Mon": False, "goesgens.Mon.binary": True}, "weighted") == \
        {"goesgens.Mon.multiclass": True}
    assert average_claims({"goesgens.Mon": {"paper": True, "audit": False, "why": "x"}}, "micro") == \
        {"goesgens.Mon.multiclass": True}
    assert average_claims({"goesgens.Mon": {"paper": False, "audit": True, "why": "x"}}, "micro") == {}
    assert average_claims({"sebastiani.MON": True, "opitz.PI": True}, "macro") == {}


def test_rule_theorem_1_denies_distance_to_averages_with_mon_and_cb():
    """Gösgens et al. (2021), Theorem 1: no measure is monotone, a distance and has a constant baseline."""
    mon_cb = {"goesgens.Mon": True, "goesgens.CB": True}
    assert average_claims(mon_cb, "macro") == {"goesgens.Dist.multiclass": False, "goesgens.Mon.multiclass": True,
                                               "goesgens.CB.multiclass": True}
    assert average_claims(mon_cb, "micro") == {"goesgens.Mon.multiclass": True}   # CB is not kept: nothing follows
    with pytest.raises(MeasureError, match="Theorem 1"):
        average_claims({**mon_cb, "goesgens.Dist": True}, "macro")
    with pytest.raises(MeasureError, match="unknown averaging"):
        average_claims(mon_cb, "median")


def test_registry_averages_carry_the_derived_claims():
    # mcc's binary claims live on the multi-class record `mcc` (equal to the binary MCC for K = 2)
    mcc_macro = get("mcc_macro").claims
    assert mcc_macro["goesgens.CB.multiclass"] is True and mcc_macro["goesgens.Dist.multiclass"] is False
    assert mcc_macro["goesgens.Max.multiclass"] == {"paper": True, "audit": False,
                                                    "why": "docs/audit.md#avg-max-skipped"}
    assert "goesgens.Sym.multiclass" in get("gm1_macro").claims
    assert "goesgens.Sym.multiclass" not in get("gm1_weighted").claims           # weighted: Sym ✗
    assert "goesgens.CB.multiclass" not in get("gm1_micro").claims               # micro: CB ✗
    assert get("f1_macro").claims["goesgens.Mon.multiclass"] is True             # F1 has Mon in the paper
    assert "goesgens.CSym.multiclass" not in get("f1_macro").claims              # F1 lacks CSym (binary)
    # precision_macro is macro_precision (one record): the claims of Opitz (2022), none from Gösgens et al. (2021)
    assert get("precision_macro").alias_of == "macro_precision"
    assert not [k for k in get("precision_macro").claims if k.startswith("goesgens.")]
    claimed = [m for m in AVERAGES if len(m.claims)]
    # f1's three averages are records of their own (macro_f1, accuracy, weighted_f1) that carry them
    assert {m.base for m in claimed} == {"accuracy", "jaccard", "balanced_accuracy", "mcc", "kappa", "gm", "gm1"}
    assert get("weighted_f1").claims["goesgens.Mon.multiclass"] == get("f1_weighted").claims["goesgens.Mon.multiclass"]
    for m in AVERAGES:
        assert all(k.startswith("goesgens.") and k.endswith(".multiclass") for k in m.claims), m.id
    # the derived claims also drive the declared chance value: kept where CB is preserved
    assert get("mcc_macro").chance == get("mcc_weighted").chance == 0.0 and get("mcc_micro").chance is None


def test_documented_differences_are_used_and_explained():
    for (avg, prop), (bases, anchor) in AVERAGING_AUDIT_DIFFERS.items():
        assert f'<a id="{anchor}"></a>' in DOC, anchor
        for b in bases:
            claim = get(f"{b}_{avg}").claims[f"goesgens.{prop}.multiclass"]
            assert isinstance(claim, dict) and claim["why"].endswith(anchor), (b, avg, prop)
    assert '<a id="averaging-rule"></a>' in DOC and '<a id="averaging"></a>' in DOC


def test_audit_agrees_with_every_derived_claim():
    claimed = [m.id for m in AVERAGES if len(m.claims)]
    f = audit(claimed, "goesgens", classes=(3,), max_n=8)   # jaccard_weighted's Mon counterexample has n = 8
    rows = f[f.as_expected.notna()]
    assert len(rows) == sum(len(get(m).claims) for m in claimed) >= 100
    bad = rows[~rows.as_expected.astype(bool)]
    assert bad.empty, bad[["measure", "property", "paper_claim", "verdict", "counterexample"]].to_string()


# ------------------------------------------------------------------ Table 2's rows on the registered measures

#: the binary measures (with the property) whose average loses it, where Table 2 has ✓: docs/audit.md#averaging
LOST_DESPITE_CHECK = {
    ("macro", "Max"): "mcc, asp",
    ("weighted", "Max"): "markedness, mcc, asp",
    ("macro", "Mon"): "informedness, markedness, balanced_accuracy, mcc, kappa, gm, gm1",
    ("weighted", "Mon"): "accuracy, error_rate, k, informedness, markedness, balanced_accuracy, mcc, kappa, gm, gm1",
}
#: one named witness for each ✗ (checked by hand below); None: no registered measure is one
WITNESS = {("micro", "Min"): None, ("micro", "SMon"): None, ("micro", "CB"): "mcc", ("micro", "ACB"): "mcc",
           ("macro", "Min"): "gm1", ("macro", "SMon"): "gm1", ("weighted", "Min"): "accuracy",
           ("weighted", "Sym"): "accuracy", ("weighted", "Dist"): "accuracy", ("weighted", "SMon"): "accuracy"}
CELLS = [(avg, p) for avg in AVERAGINGS for p in TABLE_2_PROPERTIES]


def test_every_cell_is_covered():
    for avg, p in CELLS:
        assert ((avg, p) in WITNESS) == (not AVERAGING_PRESERVES[avg][p]), (avg, p)
    assert set(LOST_DESPITE_CHECK) <= {c for c in CELLS if AVERAGING_PRESERVES[c[0]][c[1]]}


@pytest.mark.parametrize("avg,prop", CELLS)
def test_table_2_averaging_cell(table, pres, avg, prop):
    row = table.loc[(avg, prop)]
    assert row.paper == ("✓" if AVERAGING_PRESERVES[avg][prop] else "✗")
    assert row.with_property >= 3                      # several binary measures have every property
    if AVERAGING_PRESERVES[avg][prop]:
        # ✓: the average of every binary measure with the property has it (or the difference is documented)
        assert row.lost == LOST_DESPITE_CHECK.get((avg, prop), ""), row.lost
        assert row.kept == row.with_property - len([b for b in row.lost.split(", ") if b])
        assert row.agrees_with_paper == ((avg, prop) not in LOST_DESPITE_CHECK)
    else:
        # ✗: some binary measure with the property has an average without it (the named witness)
        witness = WITNESS[(avg, prop)]
        if witness is None:
            assert row.lost == "" and row.audit == "✓" and not row.agrees_with_paper   # docs/audit.md#avg-micro-witness
            return
        assert witness in row.lost.split(", ") and row.audit == "✗" and row.agrees_with_paper
        hit = pres[(pres.averaging == avg) & (pres.property == prop) & (pres.base == witness)].iloc[0]
        assert hit.binary == "satisfied" and hit.verdict == "violated" and hit.counterexample


def test_witnesses_by_hand():
    """The ✗ witnesses on matrices where every class occurs in gold and predictions, with values
    computed by hand from the definitions of the averages in Gösgens et al. (2021), section 2."""
    cyclic = [[0, 1, 0], [0, 0, 1], [1, 0, 0]]
    skew = [[0, 2, 0], [0, 0, 1], [1, 0, 0]]
    # Min, macro (gm1): both zero-diagonal; per class (n c_ii - a_i b_i) / ((a_i(n-a_i) + b_i(n-b_i)) / 2)
    assert value("gm1_macro", cyclic) == pytest.approx(-1 / 2)                         # -1/2 for each class
    assert value("gm1_macro", skew) == pytest.approx(float((Fr(-4, 7) * 2 + Fr(-1, 3)) / 3))  # -31/63
    # Min, weighted (accuracy): per-class accuracy (n - FP_i - FN_i)/n weighted by a_i
    assert value("accuracy_weighted", cyclic) == pytest.approx(1 / 3)
    assert value("accuracy_weighted", skew) == pytest.approx(5 / 16)     # (2 * 1/4 + 1/4 + 1/2) / 4
    # CB and ACB, micro (mcc): TP = tr, FP = FN = n - tr, TN = n + tr gives MCC = (3 Acc - 1) / 2 for K = 3;
    # at the expected matrix c_ij = a_i b_j / n, Acc = sum a_i b_i / n^2: 0 for a = b = (1,1,1), 1/16 for (1,1,2)
    for a, want in [((1, 1, 1), 0.0), ((1, 1, 2), 1 / 16)]:
        a = np.array(a, dtype=float)
        assert value("mcc_micro", np.outer(a, a) / a.sum()) == pytest.approx(want)
    # SMon, macro (gm1): one error fewer (gold 2 predicted 0) lowers it from -19/90 to -2/9
    assert value("gm1_macro", [[0, 0, 1], [1, 1, 0], [1, 1, 0]]) == pytest.approx(-19 / 90)
    assert value("gm1_macro", [[0, 0, 1], [1, 1, 0], [0, 1, 0]]) == pytest.approx(-2 / 9)
    # SMon, weighted (accuracy): one error fewer (gold 1 predicted 2) lowers it from 9/16 to 5/9
    assert value("accuracy_weighted", [[0, 0, 1], [0, 1, 1], [1, 0, 0]]) == pytest.approx(9 / 16)
    assert value("accuracy_weighted", [[0, 0, 1], [0, 1, 0], [1, 0, 0]]) == pytest.approx(5 / 9)
    # Sym (hence Dist, Definition 5), weighted (accuracy): the weights a_i become b_i under C -> C^T
    C = np.array([[0, 0, 1], [0, 1, 0], [1, 1, 0]])
    assert value("accuracy_weighted", C) == pytest.approx(7 / 16)
    assert value("accuracy_weighted", C.T) == pytest.approx(9 / 16)


# ------------------------------------------------------------------ the documented differences


def _count_measure(name, f):
    """A binary measure of raw counts and its micro average, not registered."""
    binary = Measure(id=name, label=name, fn=lambda C, ctx: f(*positive_counts(C, ctx.positive), ctx),
                     kind="binary", needs=("positive",), range=(-np.inf, np.inf))
    micro = Measure(id=f"{name}_micro", label=name, fn=_averaged(f, "micro", name), averaging="micro",
                    range=(-np.inf, np.inf))
    return binary, micro


def test_micro_min_and_smon_witnesses_need_a_measure_of_counts():
    """docs/audit.md#avg-micro-witness: every registered binary measure depends on proportions only,
    and then the micro average is a function of accuracy, which keeps Min and SMon. Table 2's ✗ is
    right for measures of raw counts."""
    agreements, agreements_micro = _count_measure("agreements", lambda tp, fp, fn, tn, ctx: tp + tn)
    assert audit([agreements], "goesgens.Min", classes=(2,), max_n=6).verdict.item() == "satisfied"
    v = audit([agreements_micro], "goesgens.Min", classes=(3,), max_n=6).iloc[0]
    assert v.verdict == "violated" and "[[0,0,0],[0,0,0],[0,1,0]] (1)" in v.counterexample   # TN = (m-2) n = n
    net, net_micro = _count_measure("net", lambda tp, fp, fn, tn, ctx: tp + tn - fp - fn)
    assert audit([net], "goesgens.SMon", classes=(2,), max_n=6).verdict.item() == "satisfied"
    v = audit([net_micro], "goesgens.SMon", classes=(3, 4), max_n=4)
    # micro: TP + TN - FP - FN = 4 tr + (m - 4) n, so one error fewer is a strict gain only while m < 4
    assert v.verdict.tolist() == ["satisfied", "violated"]
    # every registered binary measure is homogeneous of degree 0 in the counts
    C = np.random.default_rng(5).integers(1, 9, size=(50, 3, 3)).astype(float)
    for b in BINARY:
        m = get(f"{b}_micro")
        assert np.allclose(compute(m, C).value, compute(m, 7 * C).value, equal_nan=True), b


def test_macro_max_is_lost_only_through_skipped_classes():
    """docs/audit.md#avg-max-skipped: MCC, ASP (and markedness, weighted) are undefined for a class absent
    from the predictions; the nan policy skips it, and the classes left can all be perfect."""
    C = [[0, 0, 0], [0, 1, 0], [1, 0, 0]]
    for m in ("mcc_macro", "mcc_weighted", "asp_macro", "asp_weighted", "markedness_weighted"):
        r = compute(m, np.array(C))
        assert float(r.value) == 1.0 and "skipped" in r.reason.item(), m
    # with every class in gold and predictions every one-vs-rest value is defined: the maximum 1 is
    # reached exactly by the diagonal matrices
    space = Space(3, 6)
    full = space.mats[space.full]
    diag = (full * (1 - np.eye(3))).sum(axis=(1, 2)) == 0
    for m in ("mcc_macro", "mcc_weighted", "asp_macro", "asp_weighted", "markedness_weighted"):
        v = compute(m, full).value
        assert not np.isnan(v).any() and np.array_equal(np.isclose(v, 1.0), diag), m


def test_macro_mon_is_lost_only_through_skipped_classes(pres):
    """docs/audit.md#avg-mon-skipped: no violation where every class occurs in both matrices, and
    none with the policy that counts an undefined class as 0."""
    lost = LOST_DESPITE_CHECK[("macro", "Mon")].split(", ")
    rows = pres[(pres.averaging == "macro") & (pres.property == "Mon") & pres.base.isin(lost)]
    assert (rows.detail.str.contains("none among the steps where every class occurs")).all()
    zero = audit([f"{b}_macro" for b in lost], "goesgens.Mon", classes=(3,), max_n=6, policy="zero")
    assert (zero.verdict == "satisfied").all(), zero[zero.verdict != "satisfied"].counterexample.tolist()


def test_weighted_mon_is_lost_by_relabelling():
    """docs/audit.md#weighted-mon: Definition 6 also resolves a disagreement by changing the gold label
    (c_ab - 1, c_bb + 1); that moves weight between classes. Correcting the prediction keeps it."""
    C = [[0, 0, 1], [1, 1, 0], [2, 0, 0]]      # the item of gold 1 predicted 0 gets gold label 0
    C2 = [[1, 0, 1], [0, 1, 0], [2, 0, 0]]
    assert value("accuracy", C) == pytest.approx(1 / 5) and value("accuracy", C2) == pytest.approx(2 / 5)
    assert value("accuracy_weighted", C) == pytest.approx(0.52)    # (1 * 1/5 + 2 * 4/5 + 2 * 2/5) / 5
    assert value("accuracy_weighted", C2) == pytest.approx(0.52)   # (2 * 2/5 + 1 * 1 + 2 * 2/5) / 5
    space = Space(3, 6)
    for b in ("accuracy", "f1", "kappa", "gm1", "balanced_accuracy"):
        case = Case(get(f"{b}_weighted"), 3, "multiclass", "nan", space)
        assert _relation(case, ["correct"], gt, src_ok=not_unary, what="").verdict == "satisfied", b
        assert _relation(case, ["relabel"], gt, src_ok=not_unary, what="").verdict == "violated", b


def test_csym_of_every_average_and_sym_of_every_micro_average(pres):
    """Stronger than Table 2: permuting classes permutes the one-vs-rest problems, so every average is
    class-symmetric whatever the binary measure; the micro matrix has FP = FN, so every micro average
    is symmetric."""
    csym = pres[pres.property == "CSym"]
    assert (csym.verdict == "satisfied").all() and (csym.binary == "violated").any()
    sym = pres[(pres.property == "Sym") & (pres.averaging == "micro")]
    assert (sym.verdict == "satisfied").all() and (sym.binary == "violated").any()


def test_preservation_frame_is_tidy_and_validated(pres):
    assert len(pres) == len(AVERAGINGS) * len(TABLE_2_PROPERTIES) * len(BINARY)
    assert set(pres.verdict) <= {"satisfied", "violated", "n/a"} and set(pres.binary) <= {"satisfied", "violated",
                                                                                         "n/a"}
    small = preservation(["f1", "mcc"], ["Max", "CB"], max_n=4)
    assert len(small) == 3 * 2 * 2 and isinstance(table_2_averaging(small), pd.DataFrame)
    with pytest.raises(MeasureError, match="not binary"):
        preservation(["macro_f1"])
    with pytest.raises(MeasureError, match="Table 2 has no property"):
        preservation(properties=["MON"])
