"""The measure audit: properties computed over confusion matrices, the registry's claims, the
consistency study of Gösgens et al. (2021), Table 3, and ``evalreport audit``.

Matrices are rows = gold, columns = predicted; for K = 2 class 1 is positive (TP = C[1, 1]).
"""
from __future__ import annotations

import io
import math
from contextlib import redirect_stdout

import numpy as np
import pandas as pd
import pytest
from scipy.special import comb
from scipy.stats import binom

from evalreport.analyses.audit import (
    GOESGENS_2021_TABLE_3,
    PROPERTIES,
    audit,
    claims_frame,
    consistency,
    indistinguishable_groups,
    resolve_properties,
)
from evalreport.analyses.audit.properties import Case
from evalreport.analyses.audit.properties_opitz import check_PIV
from evalreport.analyses.audit.space import Space, compositions, labelings, steps
from evalreport.cli import main
from evalreport.errors import MeasureError
from evalreport.measures import REGISTRY, Measure, compute, get, register

VERDICTS = {"satisfied", "violated", "n/a"}


def one(frame, measure, prop, setting="binary"):
    row = frame[(frame.measure == measure) & (frame.property == prop) & (frame.setting == setting)]
    assert len(row) == 1, (measure, prop, setting)
    return row.iloc[0]


# ------------------------------------------------------------------------------ the search space


@pytest.mark.parametrize("n,k", [(0, 3), (1, 4), (5, 4), (4, 9)])
def test_compositions_are_all_and_distinct(n, k):
    c = compositions(n, k)
    assert len(c) == comb(n + k - 1, k - 1, exact=True)
    assert (c.sum(axis=1) == n).all() and (c >= 0).all()
    assert len(np.unique(c, axis=0)) == len(c)


def test_space_index_roundtrip_and_transitions():
    s = Space(3, 5)
    assert len(s) == sum(comb(n + 8, 8, exact=True) for n in range(1, 6))
    assert (s.index(s.mats) == np.arange(len(s))).all()
    assert s.index(np.array([[[6, 0, 0], [0, 0, 0], [0, 0, 0]]]))[0] == -1   # n > max_n
    src, dst, _ = s.transition("correct")
    d = s.mats[dst] - s.mats[src]
    assert (d.sum(axis=(1, 2)) == 0).all() and (np.trace(d, axis1=1, axis2=2) == 1).all()
    assert (s.a[dst] == s.a[src]).all()              # gold labels unchanged: same test set


@pytest.mark.parametrize("K,max_n", [(2, 7), (3, 4)])
def test_exact_probabilities_sum_to_one_per_group(K, max_n):
    s = Space(K, max_n)
    g, _ = s.groups("a")
    assert np.allclose(np.bincount(g, s.random_classifier_prob), 1.0)
    g, _ = s.groups("ab")
    assert np.allclose(np.bincount(g, s.fixed_sizes_prob), 1.0)


def test_labelings_and_steps():
    assert labelings(3, 2).tolist()[:3] == [[0, 0, 0], [0, 0, 1], [0, 1, 0]]
    C = np.array([[[2, 1], [0, 3]]])
    _, out, _ = steps("reverse", C)
    assert out[0].tolist() == [[3, 0], [1, 2]]       # TP <-> TN, FP <-> FN (Sebastiani 2015, Axiom 8)


# ------------------------------------------------------------------------------ the registry's claims


def test_audit_agrees_with_every_claim():
    """Every claim declared in the registry (Sebastiani 2015, Opitz 2022, Gösgens et al. 2021) is
    reproduced, or the claim
    records the documented difference and the audit gives exactly that."""
    claimed = sorted(set(claims_frame().measure))
    assert {"f1", "k", "mcc", "kappa", "balanced_accuracy", "macro_f1_hm", "sba", "confusion_entropy"} <= set(claimed)
    frame = audit(claimed)
    rows = frame[frame.as_expected.notna()]
    assert len(rows) > 250
    bad = rows[~rows.as_expected.astype(bool)]
    assert bad.empty, bad[["measure", "property", "setting", "paper_claim", "verdict", "counterexample"]].to_string()


def test_documented_differences_point_to_the_docs():
    from pathlib import Path

    doc = (Path(__file__).resolve().parents[1] / "docs" / "audit.md").read_text()
    claims = claims_frame()
    differ = claims[claims.claim != claims.expected]
    assert len(differ) >= 8
    for why in differ.why:
        anchor = why.split("#", 1)[1]
        assert f'<a id="{anchor}"></a>' in doc, anchor


def test_claim_keys_are_validated():
    bad = Measure(id="bad_claims", label="x", fn=lambda C, ctx: C.sum((-2, -1)), claims={"goesgens.MON": True})
    from evalreport.analyses.audit import parse_claims

    with pytest.raises(MeasureError, match="names no property"):
        parse_claims(bad)


# ------------------------------------------------------------------------------ Sebastiani (2015)


def test_sebastiani_table_of_axioms_for_f1_and_k():
    """Sebastiani (2015): F1 fails MON, CHA, IMB, SYM (Properties 4.1, 4.3-4.5) and SDE/WDE (section
    3.2); K satisfies all eight (Properties 5.1-5.8), also in its multi-class form (eq. 10)."""
    f = audit(["f1", "k"], "sebastiani", max_n=6)
    for prop in ("MON", "CHA", "IMB", "SYM", "SDE", "WDE"):
        assert one(f, "f1", prop).verdict == "violated", prop
    assert set(f[f.measure == "k"].verdict) == {"satisfied"}
    # Property 4.1's counterexample is the smallest one: TP = 0, FN > 0, an FP turned into a TN
    mon = one(f, "f1", "MON")
    assert mon.counterexample.startswith("C=[[0,1],[1,0]] (0) -> C'=[[1,0],[1,0]] (0)")


def test_f1_con_depends_on_the_convention():
    """Sebastiani (2015), Property 4.2 takes F1 = 1 at TP = FP = FN = 0: the limit along FP -> 0 is 0,
    a jump. Undefined (or 0) there, F1 has a continuous extension (docs/audit.md#f1-con)."""
    assert one(audit(["f1"], ["CON"], max_n=5, classes=(2,)), "f1", "CON").verdict == "satisfied"
    con = one(audit(["f1"], ["CON"], max_n=5, classes=(2,), policy="one"), "f1", "CON")
    assert con.verdict == "violated"
    assert con.counterexample.startswith("jump at C=[[1,0],[0,0]]: value 1, limit 0")


def test_f1_random_classifier_expectations_property_4_3():
    """Sebastiani (2015), Property 4.3: with AN = 0, E[F1(random)] = 0.500 for |D| = 1, and ~0.612 for
    |D| = 100. The first is the audit's random classifier (each item positive with prob. 1/2);
    the second is reproduced by a classifier whose TP is uniform on 0..100, not by that one
    (docs/audit.md#f1-cha)."""
    s = Space(2, 1)
    rows = np.nonzero((s.a == [0, 1]).all(axis=1))[0]
    v = compute("f1", s.mats[rows], positive=1).value
    assert math.isclose((s.random_classifier_prob[rows] * v).sum(), 0.5)
    tp = np.arange(101)
    f1 = compute("f1", np.stack([np.stack([np.zeros(101), np.zeros(101)], -1),
                                 np.stack([100 - tp, tp], -1)], -2), positive=1).value
    assert round(f1.mean(), 3) == 0.613 and abs(f1.mean() - 0.612) < 0.001   # uniform TP
    assert round((binom.pmf(tp, 100, 0.5) * f1).sum(), 3) == 0.665             # item-wise coin flips


# ------------------------------------------------------------------------------ Opitz (2022)


def test_opitz_table_5():
    """Opitz (2022), Table 5: which metric has PI..PV (multi-class). The 'strict' of macro precision
    and macro F1' holds where every class is predicted; a constant classifier (z_j = 0, allowed by
    Appendix C.5) breaks it under the paper's P_i = 0 (docs/audit.md#pv-constant)."""
    table = {  # PI, PII, PIII, PIV, PV, strict
        "macro_recall": "YYYYYY", "macro_precision": "YYYxYY", "macro_f1": "YYYxYx", "macro_f1_hm": "YYxxYY",
        "kappa": "xYxxYY", "mcc": "xYxxYY", "accuracy": "Yxxxx-",
    }
    f = audit(list(table), "opitz", classes=(3,), max_n=7)
    every = "verdict_every_class_in_gold_and_predicted"
    for m, marks in table.items():
        for prop, mark in zip(["PI", "PII", "PIII", "PIV", "PV", "PV_strict"], marks):
            if mark != "-":
                want = "satisfied" if mark == "Y" else "violated"
                row = one(f, m, prop, "multiclass")
                if m in ("macro_precision", "macro_f1_hm") and prop == "PV_strict":
                    assert (row.verdict, row[every]) == ("violated", want), (m, prop)
                else:
                    assert row.verdict == want, (m, prop)
    for m in ("kappa", "mcc"):
        assert one(f, m, "PV_complete", "multiclass").verdict == "satisfied"
    assert "c(3) = 0.333333" in one(f, "macro_recall", "PV", "multiclass").detail


def test_opitz_appendix_c4_counterexample():
    """Opitz (2022), Appendix C.4 (Tables 2-4): macro precision 5/8 before and 19/30 after scaling
    gold class b by 2. Opitz's matrix is the transpose of ours."""
    opitz_t2 = np.array([[15, 5], [10, 10]])
    ours = opitz_t2.T
    scaled = ours * np.array([1, 2])[:, None]
    assert math.isclose(compute("macro_precision", ours).value, 5 / 8)
    assert math.isclose(compute("macro_precision", scaled).value, 19 / 30)
    case = Case(get("macro_precision"), 2, "binary", "zero", Space(2, 4))
    v = check_PIV(case)
    assert v.verdict == "violated" and "scaled by" in v.counterexample


def test_opitz_tables_6_7_mcc_rises_with_errors():
    """Opitz (2022), Tables 6-7: adding 10 errors raises MCC from 0.0 to 0.07."""
    t6 = np.array([[10, 43, 0], [1, 1, 0], [0, 0, 1]]).T
    t7 = np.array([[10, 43, 0], [1, 1, 0], [0, 10, 1]]).T
    assert round(float(compute("mcc", t6).value), 2) == 0.0
    assert round(float(compute("mcc", t7).value), 2) == 0.07
    pi = one(audit(["mcc"], ["PI"], classes=(3,), max_n=5), "mcc", "PI", "multiclass")
    assert pi.verdict == "violated" and "one more error" in pi.counterexample


def test_piii_finds_the_mean_and_its_power():
    f = audit(["macro_recall", "gmean_recall", "macro_f1_hm"], ["PIII"], classes=(3,), max_n=6)
    assert "p = 1" in one(f, "macro_recall", "PIII", "multiclass").detail
    assert "p = 0" in one(f, "gmean_recall", "PIII", "multiclass").detail       # geometric mean, eq. 25
    assert "interact" in one(f, "macro_f1_hm", "PIII", "multiclass").counterexample


# ------------------------------------------------------------------------------ Gösgens et al. (2021)


def test_goesgens_table_2_binary_row_for_cc_and_cd():
    """Gösgens et al. (2021), Table 2: CC and CD satisfy everything in the binary case except Dist (CC) /
    CB (CD); in the multi-class case Min, Mon and SMon fail."""
    f = audit(["mcc", "correlation_distance"], "goesgens", max_n=6)
    want = {"mcc": {"Dist"}, "correlation_distance": {"CB"}}
    for m, fails in want.items():
        b = f[(f.measure == m) & (f.setting == "binary")]
        assert set(b[b.verdict == "violated"].property) == fails, m
        mc = f[(f.measure == m) & (f.setting == "multiclass")]
        assert {"Min", "Mon", "SMon"} <= set(mc[mc.verdict == "violated"].property), m


def test_theorem_1_no_measure_has_mon_dist_and_cb():
    """Gösgens et al. (2021), Theorem 1: no binary measure is monotone, a distance and has a constant baseline."""
    f = audit(None, ["Mon", "Dist", "CB"], classes=(2,), max_n=6)
    wide = f.pivot(index="measure", columns="property", values="verdict")
    assert not ((wide == "satisfied").all(axis=1)).any()


def test_ce_max_fails_only_on_a_degenerate_matrix():
    mx = one(audit(["confusion_entropy"], ["Max"], max_n=4, classes=(2,)), "confusion_entropy", "Max")
    assert mx.verdict == "violated" and mx.counterexample.startswith("C=[[0,0],[1,0]]")


def test_consistency_reproduces_table_3():
    """Gösgens et al. (2021), Table 3: measures indistinguishable at each n (n = 2..10)."""
    labels = dict(zip(GOESGENS_2021_TABLE_3, ["Acc", "BA", "F1", "kappa", "CE", "GM1", "CC", "SBA"]))
    expected = {
        2: ["Acc", "BA", "F1", "kappa", "CE", "GM1", "CC", "SBA"],
        3: ["Acc", "BA", "kappa", "GM1", "CC", "SBA"],
        4: ["BA", "kappa", "GM1", "CC", "SBA"], 5: ["BA", "kappa", "GM1", "CC", "SBA"],
        6: ["GM1", "CC", "SBA"], 7: ["GM1", "CC", "SBA"], 8: ["CC", "SBA"],
    }
    frame = consistency()
    groups = indistinguishable_groups(frame=frame)
    got = {int(n): [labels[m] for m in g.iloc[0]] for n, g in groups.groupby("n")["measures"]}
    assert got == expected
    assert groups.groupby("n").size().max() == 1 and groups.clique.all()
    assert set(frame.n) == set(range(2, 11))
    assert not frame[frame.n >= 9].consistent.any()
    row = frame[(frame.n == 3) & (frame.measure_a == "accuracy") & (frame.measure_b == "f1")].iloc[0]
    assert not row.consistent and row.example.startswith("A=")


def test_consistency_triplets_match_brute_force_over_labelings():
    """Confusion matrices with multiplicities instead of labelings: same verdicts as the direct
    enumeration of all triplets of labelings for a small n."""
    n = 5
    L = labelings(n, 2)
    L = L[(L.min(axis=1) == 0) & (L.max(axis=1) == 1)]
    ms = ["accuracy", "f1", "kappa", "sba"]
    C = np.zeros((len(L), len(L), 2, 2))
    for g in (0, 1):
        for p in (0, 1):
            C[:, :, g, p] = ((L[:, None, :] == g) & (L[None, :, :] == p)).sum(-1)
    vals = {m: compute(m, C, positive=1).value for m in ms}
    brute = {}
    for i, a in enumerate(ms):
        for b in ms[i + 1:]:
            da = np.sign(np.round(vals[a][:, :, None] - vals[a][:, None, :], 9))
            db = np.sign(np.round(vals[b][:, :, None] - vals[b][:, None, :], 9))
            brute[(a, b)] = bool((da == db).all())
    fast = consistency(ms, [n])
    assert {(r.measure_a, r.measure_b): r.consistent for r in fast.itertuples()} == brute


# ------------------------------------------------------------------------------ a user's own measure


@pytest.fixture
def throwaway():
    """A user measure registered for the test and removed after: accuracy, written by hand."""
    def fn(C, ctx):
        return ctx.div(np.trace(C, axis1=-2, axis2=-1), C.sum(axis=(-2, -1)), "empty")

    m = register(Measure(id="throwaway_acc", label="my accuracy", fn=fn, claims={"goesgens.CB": False}))
    yield m
    del REGISTRY["throwaway_acc"]


def test_audit_of_a_user_registered_measure(throwaway):
    props = ["MON", "SYM", "PII", "CB", "Dist", "Max", "Min"]
    mine = audit(["throwaway_acc"], props, max_n=5)
    ref = audit(["accuracy"], props, max_n=5)
    assert mine.verdict.tolist() == ref.verdict.tolist()
    assert mine[mine.property == "CB"].as_expected.tolist() == [True, True]


# ------------------------------------------------------------------------------ API and CLI


def test_resolve_properties():
    assert [p.id for p in resolve_properties(["sebastiani.MON", "Mon"])] == ["MON", "Mon"]
    assert [p.id for p in resolve_properties(["piii"])] == ["PIII"]
    assert len(resolve_properties(["opitz"])) == 7
    with pytest.raises(MeasureError, match="ambiguous"):
        resolve_properties(["mon"])


def test_full_catalogue_runs_and_every_cell_is_a_verdict():
    f = audit(max_n=6)
    assert set(f.verdict) <= VERDICTS
    assert not f.detail.str.startswith("check failed").any()
    audited = [m for m in REGISTRY.values() if m.kind not in ("example", "scores")]   # example-based: not audited here
    assert len(f) == len(audited) * len(PROPERTIES) * 2
    violated = f[f.verdict == "violated"]
    assert (violated.counterexample.str.len() > 0).all()


def _run(argv):
    out = io.StringIO()
    with redirect_stdout(out):
        status = main(argv)
    return status, out.getvalue()


def test_cli_audit_csv_is_tidy():
    status, text = _run(["audit", "--measures", "mcc,f1", "--properties", "MON,Mon,CB", "--max-n", "5",
                         "--format", "csv"])
    assert status == 0
    frame = pd.read_csv(io.StringIO(text), keep_default_na=False)
    assert {"measure", "property", "verdict"} <= set(frame.columns)
    assert set(frame.verdict) <= VERDICTS and len(frame) == 2 * 3 * 2


def test_cli_consistency_csv():
    status, text = _run(["audit", "--consistency", "--max-n", "4", "--format", "csv"])
    assert status == 0
    frame = pd.read_csv(io.StringIO(text), dtype={"consistent": str})
    assert list(frame.columns[:4]) == ["n", "measure_a", "measure_b", "consistent"]
    assert set(frame.consistent) == {"true", "false"} and set(frame.n) == {2, 3, 4}


def test_cli_bad_property_exits_2(capsys):
    assert main(["audit", "--properties", "nosuch"]) == 2
    assert "unknown" in capsys.readouterr().err
