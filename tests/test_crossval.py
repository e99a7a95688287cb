"""Cross-validation aggregation (Forman & Scholz 2010): estimators, AUC, the cv command."""
from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest
from conftest import write_rows
from hypothesis import example, given, settings, strategies as st
from sklearn.metrics import average_precision_score, roc_auc_score

from evalreport import measures as M
from evalreport.analyses import crossval as cv
from evalreport.counts import Counts
from evalreport.errors import InputError
from evalreport.inputs import Runs

LABELS = ("neg", "pos")


def fold(negatives, positives, tp, fp):
    """One fold's 2x2 matrix (rows gold neg/pos, columns predicted neg/pos) from Table 1/2's columns."""
    return [[negatives - fp, fp], [positives - tp, tp]]


# Forman & Scholz (2010), Table 1: 4-fold stratified CV, 1% positives out of 1504 rows
TABLE1 = Counts(np.array([[fold(373, 3, 3, 0), fold(372, 4, 4, 1), fold(372, 4, 4, 13), fold(372, 4, 3, 5)]]),
                LABELS, ("svm",), ("1", "2", "3", "4"))
# Forman & Scholz (2010), Table 2: the classifier predicts no positives in fold 2
TABLE2 = Counts(np.array([[fold(372, 4, 2, 0), fold(372, 4, 0, 0), fold(372, 4, 4, 0), fold(372, 4, 4, 0)]]),
                LABELS, ("svm",), ("1", "2", "3", "4"))


def pct(x) -> int:
    """A value as the whole percentage the paper prints."""
    return int(np.floor(100 * float(x) + 0.5))


def values(frame, measure):
    sel = frame[frame["measure"] == measure]
    return dict(zip(sel["aggregation"], sel["value"]))


# ----------------------------------------------------------------------------- Tables 1 and 2


def test_table1_per_fold_columns():
    """Forman & Scholz (2010), Table 1: per-fold precision 100/80/24/38%, recall 100/100/100/75%, F 100/89/38/50%."""
    per_fold = M.evaluate(TABLE1, ["precision", "recall", "f1"], positive="pos")
    got = {m: [pct(v) for v in per_fold[per_fold["measure"] == m]["value"]] for m in ("precision", "recall", "f1")}
    assert got == {"precision": [100, 80, 24, 38], "recall": [100, 100, 100, 75], "f1": [100, 89, 38, 50]}


def test_table1_estimators():
    """Forman & Scholz (2010), Table 1 and section 3.1: averages 60% precision and 94% recall, 69% F_avg, 73% F_pr,re
    (= 2 x 0.60 x 0.94 / (0.60 + 0.94)), 58% F_tp,fp (= 2 x 14 / (2 x 14 + 19 + 1)), F_pr,re = 1.26 x F_tp,fp.
    No fold has undefined precision or recall, so the tilde variants agree."""
    frame = cv.aggregate(TABLE1, ["f1", "precision", "recall"], positive="pos")
    f = values(frame, "f1")
    assert pct(values(frame, "precision")["mean"]) == 60
    assert pct(values(frame, "recall")["mean"]) == 94
    assert pct(f["mean"]) == 69 and pct(f["pr_re"]) == 73 and pct(f["pooled"]) == 58
    assert f["pooled"] == pytest.approx(2 * 14 / (2 * 14 + 19 + 1))
    assert round(f["pr_re"] / f["pooled"], 2) == 1.26
    assert f["mean_defined"] == f["mean"] and f["pr_re_defined"] == f["pr_re"]
    assert cv.undefined_folds(TABLE1, positive="pos").empty
    # the pooled counts are the Totals row: 14 TP, 19 FP
    pooled = TABLE1.pooled().tensor[0]
    assert pooled[1, 1] == 14 and pooled[0, 1] == 19 and pooled.sum(axis=1).tolist() == [1489, 15]


def test_table2_estimators():
    """Forman & Scholz (2010), Table 2: fold 2 has no predicted positives, precision set to 0 (†): averages 75% precision,
    63% recall; 77% F_tp,fp, 67% F_avg, 89% F~_avg, 68% F_pr,re, 91% F~_pr,re, and F~_pr,re = 1.34 x F_pr,re
    (section 3.1; 1.34 is the ratio of the printed percentages 91/68, the exact ratio is 4/3)."""
    frame = cv.aggregate(TABLE2, ["f1", "precision", "recall"], positive="pos")
    f = values(frame, "f1")
    assert pct(values(frame, "precision")["mean"]) == 75
    assert pct(values(frame, "recall")["mean"]) == 63
    assert {k: pct(v) for k, v in f.items()} == {"pooled": 77, "mean": 67, "mean_defined": 89, "pr_re": 68,
                                                  "pr_re_defined": 91}
    assert round(pct(f["pr_re_defined"]) / pct(f["pr_re"]), 2) == 1.34
    assert f["pr_re_defined"] / f["pr_re"] == pytest.approx(4 / 3)
    # the F-measure row of Table 2: 67%, 0%, 100%, 100%
    per_fold = M.evaluate(TABLE2, ["f1"], positive="pos")
    assert [pct(v) for v in per_fold["value"]] == [67, 0, 100, 100]


def test_table2_invalid_fold_listed():
    """The fold with V(i) = 0 is listed with its counts and why (Forman & Scholz 2010, section 2.3 'Exceptions')."""
    bad = cv.undefined_folds(TABLE2, positive="pos")
    assert bad[["system", "fold", "tp", "fp", "fn", "tn"]].values.tolist() == [["svm", "2", 0, 0, 4, 372]]
    assert not bad["precision_defined"].iloc[0] and bad["recall_defined"].iloc[0]
    assert "no predicted positives" in bad["reason"].iloc[0]
    frame = cv.aggregate(TABLE2, ["f1"], positive="pos").set_index("aggregation")
    assert "fold(s) 2, counted as 0" in frame.loc["mean", "reason"]
    assert "mean over 3 of 4 folds" in frame.loc["mean_defined", "reason"]
    assert frame.loc["mean_defined", "n_folds"] == 3 and frame.loc["pooled", "reason"] == ""


def test_five_f_estimators_side_by_side():
    wide = cv.f_estimators(TABLE2, positive="pos")
    assert list(wide.columns) == ["system", "F_tp,fp", "F_avg", "F~_avg", "F_pr,re", "F~_pr,re", "invalid_folds"]
    assert [pct(v) for v in wide.iloc[0, 1:6]] == [77, 67, 89, 68, 91]
    assert wide["invalid_folds"].tolist() == ["2"]


# ----------------------------------------------------------------------------- general aggregation rules


def test_pooled_is_the_measure_of_the_summed_matrices():
    rng = np.random.default_rng(3)
    T = rng.integers(0, 20, size=(3, 5, 3, 3))
    counts = Counts(T, ("a", "b", "c"), ("s1", "s2", "s3"), tuple("vwxyz"))
    frame = cv.aggregate(counts, ["macro_f1", "mcc", "accuracy"])
    for m in ("macro_f1", "mcc", "accuracy"):
        got = frame[(frame["measure"] == m) & (frame["aggregation"] == "pooled")]["value"].to_numpy()
        np.testing.assert_allclose(got, M.compute(m, T.sum(axis=1)).value)
        fold_vals = M.compute(m, T).value
        mean = frame[(frame["measure"] == m) & (frame["aggregation"] == "mean")]["value"].to_numpy()
        np.testing.assert_allclose(mean, fold_vals.mean(axis=1))
    assert set(frame["aggregation"]) == {"pooled", "mean", "mean_defined"}   # pr_re is for F-measures only


def test_accuracy_pooled_equals_mean_for_equal_folds():
    """Forman & Scholz (2010), section 2.4: accuracy is the same either way (for equal fold sizes)."""
    f = values(cv.aggregate(TABLE2, ["accuracy"]), "accuracy")
    assert f["pooled"] == pytest.approx(f["mean"])


def test_mean_policy_for_a_measure_without_convention():
    """An undefined fold counts with the policy's value; a measure with no convention (NPV) has no mean
    under the nan policy, and mean_defined skips the fold."""
    T = np.array([[fold(10, 2, 1, 1), fold(0, 4, 4, 0)]])      # fold 2: no negatives, all predicted positive
    counts = Counts(T, LABELS, ("s",), ("a", "b"))
    assert M.get("npv").convention is None
    nan = values(cv.aggregate(counts, ["npv"], positive="pos"), "npv")
    assert np.isnan(nan["mean"]) and nan["mean_defined"] == pytest.approx(9 / 10)
    zero = values(cv.aggregate(counts, ["npv"], positive="pos", policy="zero"), "npv")
    one = values(cv.aggregate(counts, ["npv"], positive="pos", policy="one"), "npv")
    assert zero["mean"] == pytest.approx(0.45) and one["mean"] == pytest.approx(0.95)
    frame = cv.aggregate(counts, ["npv"], positive="pos").set_index("aggregation")
    assert "no convention" in frame.loc["mean", "reason"] and frame.loc["mean", "undefined"]


def test_fbeta_pr_re_uses_the_weighted_harmonic_mean():
    frame = cv.aggregate(TABLE1, ["fbeta(beta=2)", "precision", "recall"], positive="pos")
    p, r = values(frame, "precision")["mean"], values(frame, "recall")["mean"]
    assert values(frame, "fbeta(beta=2)")["pr_re"] == pytest.approx(5 * p * r / (4 * p + r))
    assert values(frame, "fbeta(beta=2)")["pooled"] == pytest.approx(M.compute(
        "fbeta(beta=2)", TABLE1.pooled().tensor, positive=1).value[0])


def test_recall_undefined_fold_is_invalid_too():
    """V(i) = 0 also when a fold has no gold positives (unstratified CV)."""
    T = np.array([[fold(50, 3, 2, 1), fold(50, 0, 0, 2)]])
    counts = Counts(T, LABELS, ("s",), ("a", "b"))
    bad = cv.undefined_folds(counts, positive="pos")
    assert bad["fold"].tolist() == ["b"] and "recall undefined" in bad["reason"].iloc[0]
    f = values(cv.aggregate(counts, ["f1"], positive="pos"), "f1")
    assert f["mean"] == pytest.approx(2 / 3 / 2) and f["mean_defined"] == pytest.approx(2 / 3)  # F = 4 / 6


def test_needs_folds():
    with pytest.raises(InputError, match="fold"):
        cv.aggregate(TABLE1.pooled(), ["f1"], positive="pos")


# ----------------------------------------------------------------------------- AUC and AP by ranks


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(8, 80), F=st.integers(1, 4), ties=st.booleans())
@example(seed=1, n=8, F=4, ties=False)   # integer counts in a fold (precision must come out as floats)
def test_auc_and_ap_match_sklearn(seed, n, F, ties):
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.4
    folds = rng.integers(0, F, n)
    scores = rng.normal(size=(2, n)) + y
    if ties:
        scores = np.round(scores)
    auc = cv.roc_auc(y, scores, folds)
    ap = cv.average_precision(y, scores, folds)
    assert auc.shape == ap.shape == (2, folds.max() + 1)  # fold codes 0..max; an unused code is an empty fold
    for f in range(auc.shape[1]):
        sel = folds == f
        for s in range(2):
            if sel.any() and 0 < y[sel].sum() < sel.sum():
                assert auc[s, f] == pytest.approx(roc_auc_score(y[sel], scores[s, sel]))
                assert ap[s, f] == pytest.approx(average_precision_score(y[sel], scores[s, sel]))
            else:
                assert np.isnan(auc[s, f])
    if 0 < y.sum() < n:
        merged = cv.roc_auc(y, scores)
        assert merged[:, 0] == pytest.approx([roc_auc_score(y, sc) for sc in scores])
        assert cv.average_precision(y, scores)[:, 0] == pytest.approx(
            [average_precision_score(y, sc) for sc in scores])


def _fold_with_auc(pairs_won: int, offset: float):
    """10 positives and 10 negatives whose AUC is exactly pairs_won / 100."""
    neg = np.arange(10, dtype=float)
    q, r = divmod(pairs_won, 10)
    beats = [10] * q + ([r] if r else []) + [0] * (10 - q - (1 if r else 0))
    pos = np.array([b - 0.5 for b in beats])             # beats b negatives (scores 0..b-1)
    return np.concatenate([pos, neg]) + offset, np.r_[np.ones(10, bool), np.zeros(10, bool)]


def _auc_runs(offsets):
    parts = [_fold_with_auc(w, o) for w, o in zip((96, 91, 94, 87), offsets)]
    scores = np.concatenate([p[0] for p in parts])
    y = np.concatenate([p[1] for p in parts])
    folds = np.repeat(np.arange(4), 20)
    return Runs(gold=y.astype(np.int8), pred=(scores > 5).astype(np.int8)[None], labels=LABELS, systems=("svm",),
                folds=folds, fold_names=("1", "2", "3", "4"), scores=scores[None])


def test_auc_avg_of_section_3_2():
    """Forman & Scholz (2010), section 3.2: fold AUCs 96%, 91%, 94% and 87% average to 92% AUC_avg. Shifting the folds'
    scores (scores not calibrated across folds, Figure 3) changes AUC_merge but never AUC_avg. (The paper's
    80% AUC_merge depends on its unpublished scores.)"""
    calibrated, shifted = _auc_runs([0, 0, 0, 0]), _auc_runs([0, 6, -4, 9])
    per_fold = cv.score_folds(shifted, positive="pos")
    assert per_fold[per_fold["measure"] == "auc"]["value"].tolist() == pytest.approx([0.96, 0.91, 0.94, 0.87])
    a = cv.score_aggregates(calibrated, positive="pos").set_index(["measure", "aggregation"])["value"]
    b = cv.score_aggregates(shifted, positive="pos").set_index(["measure", "aggregation"])["value"]
    assert pct(a["auc", "avg"]) == 92 and a["auc", "avg"] == pytest.approx(0.92)
    assert b["auc", "avg"] == pytest.approx(0.92)
    assert b["auc", "merge"] < a["auc", "merge"] - 0.05
    y = np.asarray(shifted.gold) == 1
    assert b["auc", "merge"] == pytest.approx(roc_auc_score(y, shifted.scores[0]))


def test_one_class_fold_is_flagged_not_dropped_silently():
    scores = np.array([0.9, 0.1, 0.8, 0.3, 0.2, 0.4])
    gold = np.array([1, 0, 1, 0, 0, 0], dtype=np.int8)
    folds = np.array([0, 0, 0, 0, 1, 1])                  # fold 2 has no positives
    runs = Runs(gold=gold, pred=gold[None], labels=LABELS, systems=("s",), folds=folds, fold_names=("a", "b"),
                scores=scores[None])
    per_fold = cv.score_folds(runs, positive="pos").set_index(["measure", "fold"])
    assert per_fold.loc[("auc", "b"), "undefined"] and "no gold positives" in per_fold.loc[("auc", "b"), "reason"]
    agg = cv.score_aggregates(runs, positive="pos").set_index(["measure", "aggregation"])
    assert agg.loc[("auc", "avg"), "value"] == 1.0 and agg.loc[("auc", "avg"), "undefined"]
    assert "fold(s) b, skipped: mean over 1 of 2" in agg.loc[("auc", "avg"), "reason"]
    zero = cv.score_aggregates(runs, positive="pos", policy="zero").set_index(["measure", "aggregation"])
    assert zero.loc[("auc", "avg"), "value"] == 0.5 and "counted as 0" in zero.loc[("auc", "avg"), "reason"]


def test_cross_validate_everything():
    runs = _auc_runs([0, 6, -4, 9])
    res = cv.cross_validate(runs, ["f1", "accuracy"], positive="pos")
    aggs = res.estimates.groupby("measure")["aggregation"].apply(set).to_dict()
    assert aggs == {"f1": set(cv.F_AGGREGATIONS), "accuracy": set(cv.AGGREGATIONS),
                    "auc": {"avg", "merge"}, "average_precision": {"avg", "merge"}}
    assert res.f_table is not None and "F_tp,fp" in res.recommendation and "AUC_avg" in res.recommendation
    with pytest.raises(InputError, match="fold column"):
        cv.cross_validate(Runs(gold=runs.gold, pred=runs.pred, labels=LABELS, systems=("svm",)), ["f1"])


# ----------------------------------------------------------------------------- the cv command


def _write(tmp_path, *, with_folds=True):
    rng = np.random.default_rng(1)
    n = 60
    gold = np.where(rng.random(n) < 0.2, "pos", "neg")
    gold[:4] = "pos"
    folds = np.arange(n) % 3
    columns = ("id", "label", "fold") if with_folds else ("id", "label")
    rows = ((f"i{k}", g, f"f{folds[k]}")[:len(columns)] for k, g in enumerate(gold))
    gold_path = write_rows(tmp_path / "gold.tsv", rows, header=columns)
    paths = []
    for name, noise in (("good", 0.4), ("poor", 1.5)):
        score = (gold == "pos") + rng.normal(scale=noise, size=n)
        pred = np.where(score > 0.5, "pos", "neg")
        rows = ((f"i{k}", pred[k], f"{score[k]:.6f}") for k in range(n))
        paths.append(str(write_rows(tmp_path / f"{name}.tsv", rows, header=("id", "label", "score"))))
    return str(gold_path), paths


def test_cli_cv_csv_is_tidy(tmp_path, capsys):
    from evalreport.cli import main

    gold, runs = _write(tmp_path)
    assert main(["cv", gold, *runs, "--positive", "pos", "--measures", "f1,accuracy", "--format", "csv"]) == 0
    frame = pd.read_csv(io.StringIO(capsys.readouterr().out))
    assert {"system", "measure", "aggregation", "value"} <= set(frame.columns)
    got = frame.groupby("measure")["aggregation"].apply(set).to_dict()
    assert got["f1"] == {"pooled", "mean", "mean_defined", "pr_re", "pr_re_defined"}
    assert got["accuracy"] == {"pooled", "mean", "mean_defined"} and got["auc"] == {"avg", "merge"}
    assert set(frame["system"]) == {"good", "poor"}


def test_cli_cv_table_prints_recommendation(tmp_path, capsys):
    from evalreport.cli import main

    gold, runs = _write(tmp_path)
    assert main(["cv", gold, *runs, "--positive", "pos", "--measures", "f1"]) == 0
    out = capsys.readouterr().out
    assert "Recommendation" in out and "F_tp,fp" in out and "pr_re_defined" in out


def test_cli_cv_without_folds_is_an_input_error(tmp_path, capsys):
    from evalreport.cli import main

    gold, runs = _write(tmp_path, with_folds=False)
    assert main(["cv", gold, *runs, "--positive", "pos"]) == 2
    assert "no fold column" in capsys.readouterr().err


def test_summary_and_per_class_scores():
    """The report's table: five F estimators and both AUCs per system; per-class scores (S, N, K) pick the
    positive class's column."""
    base = _auc_runs([0, 6, -4, 9])
    per_class = np.stack([-base.scores, base.scores], axis=-1)          # columns neg, pos
    runs = Runs(gold=base.gold, pred=base.pred, labels=LABELS, systems=("svm",), folds=base.folds,
                fold_names=base.fold_names, scores=per_class, score_labels=LABELS)
    res = cv.cross_validate(runs, ["f1"], positive="pos")
    assert list(res.summary.columns) == ["system", "F_tp,fp", "F_avg", "F~_avg", "F_pr,re", "F~_pr,re", "AUC_avg",
                                         "AUC_merge", "invalid_folds"]
    assert res.summary["AUC_avg"].iloc[0] == pytest.approx(0.92)
    neg = cv.score_aggregates(runs, positive="neg").set_index(["measure", "aggregation"])["value"]
    assert neg["auc", "avg"] == pytest.approx(0.92)                      # the neg column ranks negatives up


def test_cli_cv_auc_needs_positive(tmp_path, capsys):
    from evalreport.cli import main

    gold, runs = _write(tmp_path)
    assert main(["cv", gold, *runs, "--measures", "accuracy,auc"]) == 2
    assert "--positive" in capsys.readouterr().err
    assert main(["cv", gold, *runs, "--measures", "auc", "--positive", "pos", "--format", "csv"]) == 0
    frame = pd.read_csv(io.StringIO(capsys.readouterr().out))
    assert set(zip(frame["measure"], frame["aggregation"])) == {
        ("auc", "avg"), ("auc", "merge"), ("average_precision", "avg"), ("average_precision", "merge")}


def test_average_precision_ranks_a_missing_score_last():
    # an abstaining system (--missing abstain gives NaN scores): the positive without a score is
    # found last, at precision 2/3, as scikit-learn computes for the same ranking with -1 for NaN
    ap = cv.average_precision(np.array([1, 0, 1], bool), np.array([0.9, 0.5, np.nan]))
    assert ap == pytest.approx(average_precision_score([1, 0, 1], [0.9, 0.5, -1.0]))
    auc = cv.roc_auc(np.array([1, 0, 1], bool), np.array([0.9, 0.5, np.nan]))
    assert auc == pytest.approx(roc_auc_score([1, 0, 1], [0.9, 0.5, -1.0]))


@pytest.mark.parametrize("policy", ["nan", "zero", "one", "convention"])
def test_f_avg_of_table_2_does_not_depend_on_the_policy(policy):
    # Forman & Scholz (2010), Table 2: fold 2 has TP = FP = 0 and FN = 4, so F = 0 by eq. 2 (defined; only precision
    # is 0/0). The policy fills 0/0 cases only, so F_avg is 67% whatever the policy.
    frame = cv.aggregate(TABLE2, ["f1"], positive="pos", policy=policy).set_index("aggregation")
    assert frame.loc["mean", "value"] == pytest.approx(2 / 3, abs=1e-9)
    assert frame.loc["pooled", "value"] == pytest.approx(10 / 13)
