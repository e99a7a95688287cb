"""The audit's verdicts against the papers, under conditions on the data and under policies.

* ``agrees_with_paper`` compares a verdict with what the paper states (its table cell in
  ``paper_source``), ``as_expected`` with the registry's recorded expectation; docs/audit.md's
  count of the differences is computed here.
* A ✗ that fails only where a class is absent from the gold (or predicted) labels is marked, and
  a report answers ``--needs`` under the condition its data meets (docs/audit.md#conditions).
* A report's audit is computed under the report's 0/0 policy and the papers' own
  (docs/audit.md#policies); Opitz's random classifiers include the constant ones
  (Opitz 2022, Property V and Appendix C.5; docs/audit.md#pv-constant).
* Printed numbers never read ``-0``; ``audit --consistency`` prints the "9-10: —" of Gösgens et al. (2021), Table 3.

Matrices are rows = gold, columns = predicted.
"""
from __future__ import annotations

import io
import json
import re
from contextlib import redirect_stdout
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import precision_score

from evalreport.analyses.audit import PROPERTIES, audit, audit_for_report, claims_frame
from evalreport.analyses.audit.conditions import (
    COLUMNS,
    EXISTENTIAL,
    ConditionedCase,
    condition_for,
    footnotes,
    mark,
    meets,
)
from evalreport.analyses.audit.properties import num
from evalreport.analyses.audit.space import space_for
from evalreport.cli import main
from evalreport.measures import compute, get

DOC = Path(__file__).resolve().parents[1] / "docs" / "audit.md"
GOLD, EVERY = COLUMNS["gold"], COLUMNS["every"]


def one(frame, measure, prop, setting="multiclass"):
    row = frame[(frame.measure == measure) & (frame.property == prop) & (frame.setting == setting)]
    assert len(row) == 1, (measure, prop, setting)
    return row.iloc[0]


@pytest.fixture(scope="module")
def claimed():
    """The audit of every single-label measure with a claim, as docs/audit.md counts it (max_n = 8)."""
    measures = sorted(set(claims_frame().measure))
    return audit(measures)


# ------------------------------------------------------------------ the verdict, the paper, the expectation


def test_agrees_with_paper_is_false_exactly_for_the_documented_differences(claimed):
    rows = claimed[claimed.as_expected.notna()]
    assert rows.as_expected.astype(bool).all()                      # the registry's expectations are met
    differ = ~rows.agrees_with_paper.astype(bool)
    # False exactly where the registry records a difference from the paper, each with its docs section
    assert (differ == (rows.paper_claim != rows.expected)).all()
    assert (rows.why[differ].str.startswith("docs/audit.md#")).all() and (rows.why[~differ] == "").all()
    anchors = set(rows.why[differ].str.split("#").str[1])
    doc = DOC.read_text(encoding="utf-8")
    assert all(f'<a id="{a}"></a>' in doc for a in anchors), anchors
    # docs/audit.md's numbers are these
    total, n_differ = len(rows), int(differ.sum())
    text = " ".join(doc.split())
    assert (f"Of the {total} (claim, setting) verdicts, {total - n_differ} agree with the paper outright and "
            f"{n_differ} differ from it (`agrees_with_paper` is False exactly for those {n_differ};") in text
    # rows without a claim: no comparison at all
    free = claimed[claimed.paper_claim == ""]
    assert free.agrees_with_paper.isna().all() and free.as_expected.isna().all() and (free.paper_source == "").all()


@pytest.mark.parametrize("measure,prop,setting,source", [
    # Gösgens et al. (2021), Table 2: the row of the measure, the column of the property
    ("balanced_accuracy", "CB", "multiclass", "Gösgens et al. (2021), Table 2, row BA, column CB"),
    ("confusion_entropy", "Max", "binary", "Gösgens et al. (2021), Table 2, row CE, column Max"),
    # ... and a derived claim of an average: the averaging row and the binary measure's row
    ("mcc_macro", "Mon", "multiclass", "Gösgens et al. (2021), Table 2, averaging row Macro, column Mon, with row CC"),
    # Opitz (2022), Table 5
    ("macro_precision", "PV_strict", "multiclass",
     "Opitz (2022), Table 5, row macro Prec., column PV (chance correct): 'strict'"),
    # Sebastiani (2015): the numbered statement
    ("f1", "MON", "binary", "Sebastiani (2015), Property 4.1"),
    ("asp", "SDE", "binary", "Sebastiani (2015), Property 4.8"),
    ("k", "SYM", "binary", "Sebastiani (2015), Property 5.8"),
])
def test_paper_source_names_the_cell(claimed, measure, prop, setting, source):
    assert one(claimed, measure, prop, setting).paper_source.startswith(source)


def test_a_documented_difference_is_a_disagreement_with_the_paper(claimed):
    """Balanced accuracy's Mon (Gösgens et al. 2021, Table 2: ✓) is violated for three
    classes (docs/audit.md#ba-mon): agrees_with_paper False, as_expected True, why says where."""
    row = one(claimed, "balanced_accuracy", "Mon")
    assert (row.verdict, row.paper_claim, row.expected) == ("violated", "satisfied", "violated")
    assert row.agrees_with_paper is False or row.agrees_with_paper == False  # noqa: E712 (numpy bool)
    assert bool(row.as_expected) and row.why == "docs/audit.md#ba-mon"


# ------------------------------------------------------------------ conditions on the data


def test_meets():
    C = np.array([[[1, 0], [0, 1]], [[0, 0], [1, 1]], [[1, 0], [1, 0]]])
    assert meets(C, "gold").tolist() == [True, False, True]
    assert meets(C, "every").tolist() == [True, False, False]


@pytest.fixture(scope="module")
def three():
    return audit(["balanced_accuracy", "k", "sba", "confusion_entropy", "f1", "kappa", "mcc_macro"], max_n=6)


@pytest.mark.parametrize("measure,prop,gold,every", [
    # Gösgens et al. (2021), Table 2, give BA CB and ACB; they fail only where a class is absent from gold
    # (#absent-classes)
    ("balanced_accuracy", "CB", "satisfied", "satisfied"),
    ("balanced_accuracy", "ACB", "satisfied", "satisfied"),
    # K (Sebastiani 2015, eq. 10): its xi_j counts the classes present in gold
    ("k", "CB", "satisfied", "satisfied"),
    ("k", "PIII", "satisfied", "satisfied"),
    # SBA (Gösgens et al. 2021, Statement 3): the precision half needs every class predicted
    ("sba", "CB", "violated", "satisfied"),
    # CE (Gösgens et al. 2021, Table 2: Max ✓): its counterexamples are unary matrices with a class absent from gold
    ("confusion_entropy", "Max", "satisfied", "satisfied"),
    # mcc_macro: a class undefined in the average (#avg-max-skipped) -- absent from gold or predictions
    ("mcc_macro", "Max", "satisfied", "satisfied"),
    # balanced accuracy's Mon also fails where every class occurs (#ba-mon): no qualification
    ("balanced_accuracy", "Mon", "violated", "violated"),
])
def test_restricted_verdicts(three, measure, prop, gold, every):
    row = one(three, measure, prop)
    assert row.verdict == "violated"
    assert (row[GOLD], row[EVERY]) == (gold, every)


def test_f1_is_strongly_definite_where_the_positive_class_occurs():
    """Sebastiani (2015), section 3.2: F1 is undefined when TP = FP = FN = 0 (SDE fails); a test set with a
    positive item has AP > 0, so the restricted SDE counts only the matrices inside it."""
    row = one(audit(["f1"], ["SDE"], classes=(2,), max_n=6), "f1", "SDE", "binary")
    assert (row.verdict, row[GOLD]) == ("violated", "satisfied")


def test_marks_and_footnotes():
    assert mark("violated", "satisfied", "satisfied") == "✗¹"
    assert mark("violated", "violated", "satisfied") == "✗²"
    assert mark("violated", "violated", "violated") == "✗" and mark("satisfied") == "✓" and mark("n/a") == "n/a"
    notes = footnotes(["✓", "✗²"])
    assert len(notes) == 1 and notes[0].startswith("✗²: fails only where a class is absent from the gold or")


def test_satisfied_carries_over_to_the_restricted_checks():
    """The audit checks a satisfied verdict again under a condition only for the existential PII:
    a statement about every matrix holds on every subset. Here every check runs restricted."""
    measures = ["macro_f1", "kappa", "sba", "accuracy", "k"]
    f = audit(measures, max_n=5, classes=(3,))
    space = space_for(3, 5)
    for m in measures:
        rec = get(m)
        for cond in ("gold", "every"):
            cases = {}
            for prop in PROPERTIES.values():
                row = one(f, m, prop.id)
                if row.verdict != "satisfied" or prop.id in EXISTENTIAL:
                    continue
                c = condition_for(prop.id, cond)
                pol = row.policy
                case = cases.get((c, pol)) or cases.setdefault(
                    (c, pol), ConditionedCase(rec, 3, "multiclass", pol, space, condition=c, pv_values={}))
                assert prop.check(case).verdict in ("satisfied", "n/a"), (m, prop.id, cond)


def test_cli_table_marks_a_verdict_that_fails_only_with_an_absent_class():
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(["audit", "--measures", "balanced_accuracy,sba", "--properties", "CB,Mon", "--classes", "3",
                     "--max-n", "5", "--format", "markdown"]) == 0
    text = out.getvalue()
    lines = {ln.split("|")[1].strip().replace("\\", ""): ln for ln in text.splitlines()
             if ln.startswith("| ") and "---" not in ln}
    assert "✗¹" in lines["balanced_accuracy"] and "✗²" in lines["sba"]
    assert "✗¹: fails only where a class is absent from the gold labels" in text      # the footnotes follow
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(["audit", "--measures", "balanced_accuracy", "--properties", "CB", "--classes", "3",
                     "--max-n", "5", "--format", "csv"]) == 0
    frame = pd.read_csv(io.StringIO(out.getvalue()), keep_default_na=False)
    assert {GOLD, EVERY, "paper_claim", "paper_source", "agrees_with_paper", "as_expected", "why"} <= set(frame.columns)
    assert frame[GOLD].tolist() == ["satisfied"]


# ------------------------------------------------------------------ policies (Opitz 2022, Property V)


def test_a_constant_classifier_is_one_of_opitz_random_classifiers():
    """Opitz (2022), Property V and Appendix C.5 (z in [0, 1]^n). Prevalences (1, 1, 7)/9, everything
    predicted as the majority class: macro precision is 7/27 with the paper's P_i = 0 for 0/0 (after
    eq. 18; scikit-learn zero_division=0 agrees) and 7/9 when the never-predicted classes are skipped
    (policy nan; scikit-learn zero_division=nan agrees)."""
    gold = [0, 1] + [2] * 7
    pred = [2] * 9
    C = np.zeros((1, 3, 3))
    for g, p in zip(gold, pred):
        C[0, g, p] += 1
    zero = compute(get("macro_precision"), C, policy="zero").value[0]
    nan = compute(get("macro_precision"), C, policy="nan").value[0]
    assert zero == pytest.approx(precision_score(gold, pred, average="macro", zero_division=0)) == pytest.approx(7 / 27)
    assert nan == pytest.approx(precision_score(gold, pred, average="macro", zero_division=np.nan)) == pytest.approx(7 / 9)
    f = audit(["macro_precision"], ["PV", "PV_strict"], classes=(3,), max_n=4)
    pv, strict = one(f, "macro_precision", "PV"), one(f, "macro_precision", "PV_strict")
    assert (pv.policy, pv.verdict, strict.verdict) == ("zero", "satisfied", "violated")     # best 1/n, not strict
    assert "0.037037 and 0.333333" in strict.counterexample                                  # z = e_0: (1/9)/3
    assert strict[EVERY] == "satisfied"            # every class predicted: strict, as Table 5 says
    f = audit(["macro_precision"], ["PV"], classes=(3,), max_n=4, policy="nan")
    row = one(f, "macro_precision", "PV")
    assert row.verdict == "violated" and "best random score 0.777778" in row.counterexample


def test_audit_for_report_adds_the_report_policy_where_it_differs():
    f = audit_for_report(["macro_precision"], policy="nan", max_n=4, classes=(3,))
    opitz = f[f.paper == "opitz"]
    assert set(opitz.policy_of) == {"paper", "report"} and set(f[f.paper != "opitz"].policy_of) == {"paper, report"}
    assert dict(zip(opitz[opitz.property == "PV"].policy_of, opitz[opitz.property == "PV"].verdict)) == {
        "paper": "satisfied", "report": "violated"}
    z = audit_for_report(["macro_precision"], policy="zero", max_n=4, classes=(3,))
    assert set(z[z.paper == "opitz"].policy_of) == {"paper, report"}
    assert set(z[z.paper == "goesgens"].policy_of) == {"paper", "report"}


# ------------------------------------------------------------------ the report: condition, policy, --needs


def _report(tmp_path, *, counts, predicted, needs=("goesgens.CB", "goesgens.Max"), policy="nan"):
    from evalreport.report.sections import open_report

    measures = ["macro_recall", "k", "sba", "kappa", "macro_precision"]
    tables = tmp_path / "tables"
    tables.mkdir(parents=True, exist_ok=True)
    audit_for_report(measures, policy=policy, max_n=5).to_csv(tables / "audit.csv", index=False)
    classes = ["a", "b", "c"]
    pd.DataFrame({"class": classes, "count": counts, "share": np.asarray(counts) / max(sum(counts), 1)}).to_csv(
        tables / "prevalence.csv", index=False)
    rows = [{"system": s, "gold": g, "predicted": p, "count": 1, "rate": 1.0}
            for s, preds in predicted.items() for g in classes for p in preds]
    pd.DataFrame(rows).to_csv(tables / "confusion.csv", index=False)
    (tables / "report.json").write_text(json.dumps({"needs": list(needs), "n_classes": 3, "primary": "macro_recall",
                                                    "policy": policy}))
    (tables / "manifest.json").write_text(json.dumps({"primary": "macro_recall", "measures": measures}))
    return open_report(tables)


def test_needs_is_answered_under_the_condition_the_data_meets(tmp_path):
    """Every class in the gold labels, one system that predicts only 'a' (a majority baseline): CB
    holds for macro recall and K there (Gösgens et al. 2021, Table 2 / the constant of Sebastiani 2015,
    Property 5.6), not
    for SBA, which also needs every class predicted."""
    rep = _report(tmp_path, counts=[5, 3, 1], predicted={"s1": ["a", "b", "c"], "majority": ["a"]})
    text = rep.audit_fit().text
    assert "where every class occurs in the gold labels, as in this data" in text
    names = text.split(": ", 1)[1]
    assert "`macro_recall`" in names and "`k`" in names and "`kappa`" in names and "`sba`" not in names
    assert "would not qualify on data where a class is absent" in text
    # every class predicted by every system too: SBA qualifies
    rep = _report(tmp_path / "2", counts=[5, 3, 1], predicted={"s1": ["a", "b", "c"]})
    assert "`sba`" in rep.audit_fit().text.split(": ", 1)[1]
    # a class absent from the gold labels: the verdicts on every matrix
    rep = _report(tmp_path / "3", counts=[5, 3, 0], predicted={"s1": ["a", "b", "c"]})
    text = rep.audit_fit().text
    assert "verdicts on every confusion matrix" in text and "`macro_recall`" not in text


def test_report_matrix_shows_the_condition_and_both_policies(tmp_path):
    rep = _report(tmp_path, counts=[5, 3, 1], predicted={"s1": ["a", "b", "c"], "majority": ["a"]})
    table = rep.audit_table()
    df = table.df
    recall = df.loc[[i for i in df.index if i.startswith(get("macro_recall").label)][0]]
    precision = df.loc[[i for i in df.index if i.startswith(get("macro_precision").label)][0]]
    assert recall["CB"] == "✗¹"
    assert precision["PV"] == "✗² (✓)"          # nan: the majority predictor scores its prevalence; zero: ✓
    caption = " ".join(table.caption.split())
    assert "✗¹: fails only where a class is absent from the gold labels" in caption
    assert "policy (nan)" in caption and "zero for opitz.*" in caption
    assert "In this data every class occurs in the gold labels" in caption


def test_data_condition():
    from evalreport.report.audit_section import data_condition

    prev = pd.DataFrame({"class": ["a", "b"], "count": [2, 1]})
    conf = pd.DataFrame({"system": ["s", "s", "t"], "predicted": ["a", "b", "a"], "count": [1, 2, 3]})
    assert data_condition(prev, conf) == "gold"
    assert data_condition(prev, conf[conf.system == "s"]) == "every"
    assert data_condition(prev.assign(count=[2, 0]), conf) is None
    assert data_condition(pd.DataFrame(), conf) is None


# ------------------------------------------------------------------ printed numbers and Table 3


def test_num_never_prints_minus_zero():
    assert [num(x) for x in (-0.0, 0.0, -1e-17, 1.1e-16)] == ["0"] * 4
    assert num(-0.5) == "-0.5" and num(float("nan")) == "undefined" and num(None) == "undefined"
    assert num(-1e-5, ".2f", snap=False) == "0" and num(-3e-9, ".4g", snap=False) == "-3e-09"


def test_no_minus_zero_in_any_verdict():
    """Confusion entropy (lower is better, -sum p log p) is negated for orientation: no verdict prints '-0'."""
    f = audit(max_n=4, n_random=40)
    text = "\n".join(f.counterexample.tolist() + f.detail.tolist())
    assert not re.search(r"(?<![\w.])-0(?![.\d])", text)
    ce = one(f, "confusion_entropy", "Max", "binary")
    assert "scores 0, <= the diagonal value 0" in ce.counterexample


def test_cli_consistency_prints_table_3s_empty_rows():
    """Gösgens et al. (2021), Table 3: n = 9-10: '—' (no two of the eight measures are indistinguishable)."""
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(["audit", "--consistency", "--format", "markdown"]) == 0
    rows = {ln.split("|")[1].strip(): ln.split("|")[2].strip().replace("\\", "") for ln in out.getvalue().splitlines()
            if re.match(r"^\| *\d+ *\|", ln)}
    assert rows["9"] == "—" and rows["10"] == "—" and rows["8"] == "mcc, sba"
    assert list(rows) == [str(n) for n in range(2, 11)]


def test_the_expectation_is_the_paper_policys():
    """The registry records what the audit gives under the paper's own policy; a row under another
    policy still compares with the paper, but has no recorded expectation."""
    f = audit_for_report(["macro_precision"], policy="nan", max_n=4, classes=(3,))
    pv = f[(f.property == "PV")].set_index("policy_of")
    assert bool(pv.loc["paper", "as_expected"]) and pv.loc["paper", "expected"] == "satisfied"
    assert pd.isna(pv.loc["report", "as_expected"]) and pv.loc["report", "expected"] == ""
    assert not bool(pv.loc["report", "agrees_with_paper"])    # nan: contradicts Table 5's PV ✓
