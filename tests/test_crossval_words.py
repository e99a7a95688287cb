"""The words of the cross-validation section (evalreport/analyses/crossval_words.py).

Forman & Scholz (2010), "Apples-to-apples in cross-validation studies", recommend: F_tp,fp for F-measure (section 4.3 and section 5 (a)), AUC_avg for AUC
(section 5); accuracy is the same either way (section 2.4); nothing for other measures.
"""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st

from evalreport.analyses.crossval import cross_validate, f_estimators
from evalreport.analyses.crossval_words import F_ESTIMATORS, estimate_spread, recommendation
from evalreport.counts import Counts
from evalreport.inputs import Runs

LABELS = ("neg", "pos")
#: Forman & Scholz (2010), as stored with the specification (the file name is the store's, not a citation).
FORMAN_SCHOLZ_2010 = sorted(Path("/work/shared/papers").glob("001_*.txt"))


def _runs(folds_spec, systems=("table2", "majority"), scores=None):
    """Runs from per-fold (positives, negatives, per-system (tp, fp)) counts."""
    gold, folds, preds = [], [], [[] for _ in systems]
    for f, (pos, neg, per_system) in enumerate(folds_spec):
        gold += [1] * pos + [0] * neg
        folds += [f] * (pos + neg)
        for s, (tp, fp) in enumerate(per_system):
            preds[s] += [1] * tp + [0] * (pos - tp) + [1] * fp + [0] * (neg - fp)
    return Runs(gold=np.array(gold), pred=np.array(preds), labels=LABELS, systems=tuple(systems),
                folds=np.array(folds), fold_names=tuple(str(f + 1) for f in range(len(folds_spec))),
                scores=scores)


# Forman & Scholz (2010), Table 2: four folds of 4 positives and 372 negatives; TP = 2, 0, 4, 4 and FP = 0
# (fold 2 predicts no positive: precision undefined); "majority" predicts no positive in any fold
TABLE_2 = [(4, 372, [(2, 0), (0, 0)]), (4, 372, [(0, 0), (0, 0)]), (4, 372, [(4, 0), (0, 0)]),
           (4, 372, [(4, 0), (0, 0)])]


def test_table_2_estimates_and_the_system_that_differs_most():
    """Forman & Scholz (2010), Table 2: F_tp,fp = 77%, F~_avg = 89% (the docstring of crossval.py); the system whose
    estimates 'differ most' is Table 2's, never the majority baseline whose spread would come only from its
    undefined F~ estimates (review item 5)."""
    res = cross_validate(_runs(TABLE_2), ["f1"], positive="pos")
    t2 = res.f_table.set_index("system").loc["table2"]
    assert t2["F_tp,fp"] == pytest.approx(20 / 26) and round(t2["F_tp,fp"], 2) == 0.77
    assert t2["F~_avg"] == pytest.approx((2 / 3 + 1 + 1) / 3) and round(t2["F~_avg"], 2) == 0.89
    text = res.recommendation
    assert "The F estimates differ most for table2 (from 0.6667, F_avg, to 0.9091, F~_pr,re" in text
    assert "majority: 2 of the 5 F estimates are undefined (F~_avg, F~_pr,re: all 4 folds have V(i) = 0" in text
    assert "its 3 defined estimates agree (0.0000)" in text
    assert "table2: 1 of 4 (1 without a predicted positive); majority: 4 of 4 (4 without a predicted positive)" \
        in text
    assert "disagree most" not in text and "the same holds" not in text


def test_every_system_agrees():
    """No sentence claims a disagreement that the numbers do not show: perfect predictions in every fold."""
    spec = [(3, 5, [(3, 0), (3, 0)]), (2, 6, [(2, 0), (2, 0)])]
    text = cross_validate(_runs(spec, systems=("a", "b")), ["f1"], positive="pos").recommendation
    assert "Every system's defined F estimates agree to 4 decimals" in text
    assert "differ most" not in text and "Folds with undefined precision or recall" not in text


def test_one_fold():
    """One fold: the five estimators coincide where defined (nothing to aggregate), and the text says so."""
    spec = [(3, 5, [(2, 1), (1, 0)])]
    res = cross_validate(_runs(spec, systems=("a", "b")), ["f1"], positive="pos")
    assert "With one fold there is nothing to aggregate." in res.recommendation
    values = res.f_table[list(F_ESTIMATORS)].to_numpy()
    assert np.allclose(values, values[:, :1])


def test_a_class_absent_from_a_fold_and_a_system_with_undefined_pooled_f():
    """A fold without gold positives has undefined recall for every system (V(i) = 0, Forman & Scholz 2010, section 2.3:
    "Recall can be undefined only if a fold does not contain any positives"). A system that predicts no positive
    where there is none has F_tp,fp = 0/0 as well: three undefined estimates, named, never a spread."""
    spec = [(0, 8, [(0, 1), (0, 0)]), (2, 6, [(1, 1), (0, 0)])]
    runs = _runs(spec, systems=("some", "never"))
    res = cross_validate(runs, ["f1"], positive="pos")
    text = res.recommendation
    assert "some: 1 of 2 (1 without a gold positive)" in text
    assert "never: 2 of 2 (2 without a predicted positive, 1 without a gold positive)" in text
    # now a gold set with no positive at all: F_tp,fp of "never" is 0/0
    none = _runs([(0, 8, [(0, 1), (0, 0)]), (0, 8, [(0, 2), (0, 0)])], systems=("some", "never"))
    spread = estimate_spread(f_estimators(Counts.from_runs(none, per_fold=True), positive="pos")).set_index("system")
    assert spread.loc["never", "undefined"] == "F_tp,fp, F~_avg, F~_pr,re" and spread.loc["never", "n_defined"] == 2


def test_auc_words_follow_the_columns_present():
    """With scores: publish AUC_avg (Forman & Scholz 2010, section 5); without: no AUC column, and the text says so."""
    runs = _runs(TABLE_2)
    rng = np.random.default_rng(0)
    scored = _runs(TABLE_2, scores=rng.random((2, len(runs.gold))))
    with_s = cross_validate(scored, ["f1"], positive="pos")
    without = cross_validate(runs, ["f1"], positive="pos")
    assert "AUC: publish AUC_avg" in with_s.recommendation and "AUC_avg" in with_s.summary.columns
    assert "no AUC is computed here" in without.recommendation and "AUC_avg" not in without.summary.columns


def test_policy_words():
    """Under policy zero/one the one-class folds of AUC and the V(i) = 0 folds are counted, not skipped."""
    invalid = pd.DataFrame({"system": ["s"], "fold": ["1"], "precision_defined": [False], "recall_defined": [True]})
    sf = pd.DataFrame({"system": ["s"], "fold": ["2"], "measure": ["auc"], "undefined": [True],
                       "reason": ["no gold positives in the fold"]})
    one = recommendation(None, invalid_folds=invalid, score_folds=sf, has_scores=True, policy="one", n_folds=3)
    assert "AUC_avg counts them as 1 (policy one" in one and "(an undefined F, precision or recall as 1)" in one
    nan = recommendation(None, invalid_folds=invalid, score_folds=sf, has_scores=True, policy="nan", n_folds=3)
    assert "AUC_avg averages the other folds only (policy nan" in nan and "s: 1 of 3" in nan


def test_without_a_positive_class_the_words_do_not_attribute_the_pooled_rule_to_the_paper():
    text = recommendation(has_positive=False)
    assert text.startswith("Publish the pooled value") and "evalreport's choice" in text
    assert "F_tp,fp" in text and "AUC_avg" in text and "--positive" in text


@pytest.mark.skipif(not FORMAN_SCHOLZ_2010, reason="the paper texts are not on this machine")
def test_every_quotation_is_in_forman_and_scholz_2010():
    """Each double-quoted passage of the recommendation occurs in Forman & Scholz (2010) (whitespace aside)."""
    paper = re.sub(r"\s+", "", FORMAN_SCHOLZ_2010[0].read_text(encoding="utf-8"))
    text = cross_validate(_runs(TABLE_2, scores=np.random.default_rng(1).random((2, 1504))), ["f1"],
                          positive="pos").recommendation
    quotes = re.findall(r'"([^"]+)"', text)
    assert len(quotes) >= 4
    for q in quotes:
        assert re.sub(r"\s+", "", q) in paper, q


finite = st.floats(0, 1, allow_nan=False)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.one_of(finite, st.just(np.nan)), min_size=5, max_size=5), min_size=1, max_size=6))
def test_spread_is_over_defined_estimates_only(rows):
    """Invariant: a system's spread is max - min of its defined estimates, and the system named as differing
    most has at least two defined estimates and the largest such spread."""
    table = pd.DataFrame(rows, columns=list(F_ESTIMATORS)).assign(system=[f"s{i}" for i in range(len(rows))])
    sp = estimate_spread(table)
    for r, row in zip(sp.itertuples(index=False), rows):
        defined = [v for v in row if not np.isnan(v)]
        assert r.n_defined == len(defined)
        assert (np.isnan(r.spread) if not defined else r.spread == pytest.approx(max(defined) - min(defined)))
    text = recommendation(None, f_table=table, n_folds=5)
    named = re.search(r"differ most(?:, and equally,)? for (s\d+)", text)
    if named:
        best = sp.set_index("system").loc[named.group(1)]
        assert best.n_defined >= 2
        others = sp[sp["n_defined"] >= 2]["spread"].round(4)
        assert round(best.spread, 4) == others.max() > 0


def _section(tmp_path, res):
    from evalreport.report.sections import open_report

    tables = tmp_path / "tables"
    tables.mkdir(parents=True)
    res.summary.to_csv(tables / "cv_summary.csv", index=False)
    res.estimates.to_csv(tables / "cv_estimates.csv", index=False)
    return open_report(tables)


def test_summary_caption_names_only_the_columns_present_and_each_undefined_cell_its_reason(tmp_path):
    """The caption promises AUC only where the runs have scores. Forman & Scholz (2010), section 2.3,
    define the five F estimators, section 2.4 AUC_avg and AUC_merge."""
    without = _section(tmp_path / "a", cross_validate(_runs(TABLE_2), ["f1"], positive="pos")).cv_table()
    assert "AUC" not in without.caption and "section 2.3" in without.caption
    assert "listed in the last column" in without.caption
    why = dict(zip(without.df.columns, without.reasons.loc[without.df["system"] == "majority"].iloc[0]))
    assert why["F~_avg"] == "undefined in every fold (1, 2, 3, 4)" and why["F_tp,fp"] == ""
    scored = _runs(TABLE_2, scores=np.random.default_rng(2).random((2, 1504)))
    with_s = _section(tmp_path / "b", cross_validate(scored, ["f1"], positive="pos")).cv_table()
    assert "AUC_avg is the mean of the per-fold AUCs" in with_s.caption and "AUC_avg" in with_s.df.columns
    only_auc = _section(tmp_path / "c", cross_validate(scored, ["accuracy"], positive="pos"))
    table = only_auc.cv_table()
    assert "F_tp,fp" not in table.df.columns and not table.caption.startswith("The five")
    est = only_auc.table("cv_estimates")
    assert only_auc._named_estimators(est) == (" AUC is in the summary above. Average precision (AP_avg, AP_merge) "
                                               "is in cv_estimates.csv.")
    assert without_words(tmp_path) == " F is in the summary above."


def without_words(tmp_path):
    rep = _section(tmp_path / "d", cross_validate(_runs(TABLE_2), ["f1", "accuracy"], positive="pos"))
    return rep._named_estimators(rep.table("cv_estimates"))
