"""Findings of a label-set comparison: the rows of findings.csv that a single-label comparison has
(leader, the letters' family, runner-up gap, winners, chance baselines, undefined values), the rows of
label sets (cross-check tests, per-label calibration, skipped labels and items, what needs one
confusion matrix), and the multi-label report's findings block made from those rows by the
single-label sentence builder. The label counts are checked against scikit-learn."""
from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest

from evalreport.analyses.compare import compare
from evalreport.analyses.findings import COLUMNS, findings
from evalreport.analyses.multilabel_label_skips import label_skips
from evalreport.inputs.multilabel import MultiLabelRuns
from evalreport.report.multilabel_build import analyse_multilabel
from evalreport.report.sections.multilabel import open_multilabel_report
from evalreport.report.summary import findings_note

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

LABELS = ("a", "b", "c", "d", "e", "f")
N = 400





def _runs():
    """'good' (noisy copy of the gold sets), 'sparse' (predicts a label only where it is sure: few
    predictions, high precision, never labels e and f), 'empty' (the empty set for every item)."""
    rng = np.random.default_rng(21)
    gold = rng.random((N, len(LABELS))) < np.array([0.4, 0.3, 0.2, 0.1, 0.08, 0.05])
    good = np.where(rng.random(gold.shape) < 0.85, gold, ~gold)
    sparse = gold & (rng.random(gold.shape) < 0.3)
    sparse[:, 4:] = False
    empty = np.zeros_like(gold)
    return MultiLabelRuns(gold=gold, pred=np.stack([good, sparse, empty]), labels=LABELS,
                          systems=("good", "sparse", "empty"), ids=np.array([f"i{k}" for k in range(N)]))


def _noisy(keep, seed: int = 5, n: int = N) -> MultiLabelRuns:
    """One system per entry of ``keep``: the gold sets with each label decision kept with that
    probability (flipped otherwise)."""
    rng = np.random.default_rng(seed)
    gold = rng.random((n, len(LABELS))) < 0.3
    pred = np.stack([np.where(rng.random(gold.shape) < k, gold, ~gold) for k in keep])
    return MultiLabelRuns(gold=gold, pred=pred, labels=LABELS, systems=tuple(f"s{i}" for i in range(len(keep))),
                          ids=np.array([f"i{k}" for k in range(n)]))


def _rows(found, kind: str) -> pd.DataFrame:
    return found.findings[found.findings["finding"] == kind]


def _plain(text: str) -> str:
    return text.replace("\\", "")


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    runs = _runs()
    folder = tmp_path_factory.mktemp("mlfind") / "tables"
    analyse_multilabel(runs, folder, bootstrap=200, audit=False)
    return runs, folder


def test_a_clearly_separated_leader():
    """Three systems far apart: the leader is separated from both others by the letters' family (Holm
    over all pairs of the bootstrap test), so are all pairs, and the runner-up gap is beyond noise; the
    cross-check tests count their separations; what needs one confusion matrix is said not computed."""
    comp = compare(_noisy((0.95, 0.8, 0.6)), bootstrap=200, audit=False)
    found = findings(comp)
    assert list(found.findings.columns) == COLUMNS
    assert _rows(found, "leader")[["system", "detail"]].values.tolist() == [["s0", "sole"]]
    assert int(_rows(found, "separable_count")["value"].iloc[0]) == 2
    assert _rows(found, "separated_pairs")[["value", "detail"]].values.tolist() == [[3, "of 3"]]
    assert _rows(found, "inseparable").empty and int(_rows(found, "letters")["value"].iloc[0]) == 3
    runner = _rows(found, "runner_up").iloc[0]
    board = comp.leaderboard.set_index("system")["value"]
    assert runner["system"] == "s1" and runner["value"] == pytest.approx(board["s0"] - board["s1"])
    assert _rows(found, "gap_noise")["detail"].tolist() == ["beyond noise"]
    by_test = _rows(found, "separated_by_test").set_index("measure")
    assert set(by_test.index) == {comp.primary, "subset_accuracy"}
    checks = comp.pairwise[comp.pairwise["test"] != "bootstrap"]
    expected = checks.groupby("measure")["p_holm"].apply(lambda p: int((p < 0.05).sum()))
    assert by_test["value"].astype(int).to_dict() == expected.to_dict()
    assert {d.split(":")[0] for d in _rows(found, "not_computed")["detail"]} == {"fragility", "whole-matrix calibration"}
    assert _rows(found, "fragility").empty
    # every measure's winner, with its family, and the leads tested against the runner-up
    winners = _rows(found, "winner")
    assert set(winners["measure"]) == set(comp.measures)
    assert set(winners["detail"]) == {"label-based", "example-based"}
    assert set(_rows(found, "winner_noise")["measure"]) <= set(winners["measure"])
    text = _plain(findings_note(found.findings, primary=comp.primary).text)
    assert "**Leader:** **s0**" in text and "**Separated from the leader:** every other system." in text


def test_no_pair_is_separated_in_the_null_case():
    """Three systems of the same skill on few items: no pair is separated, the leader shares its letter
    with both others (named inseparable, with their corrected p), the runner-up gap is below noise."""
    comp = compare(_noisy((0.8, 0.8, 0.8), seed=2, n=60), bootstrap=200, audit=False)
    found = findings(comp)
    assert _rows(found, "separated_pairs")["value"].tolist() == [0]
    assert int(_rows(found, "separable_count")["value"].iloc[0]) == 0
    insep = _rows(found, "inseparable")
    leader = _rows(found, "leader")["system"].iloc[0]
    assert sorted(insep["system"]) == sorted(set(comp.systems) - {leader})
    assert (insep["value"] >= 0.05).all() and int(_rows(found, "letters")["value"].iloc[0]) == 1
    assert _rows(found, "gap_noise")["detail"].tolist() == ["below noise"]
    text = _plain(findings_note(found.findings, primary=comp.primary).text)
    assert "**Separated from the leader:** none of the other 2 tested systems" in text


def test_the_report_says_the_findings_rows(report):
    """The multi-label report's findings block is findings.csv through findings_note: a changed row
    changes the sentence."""
    _, folder = report
    rep = open_multilabel_report(folder)
    rows = rep.table("findings")
    assert rep.findings().text == findings_note(rows, primary=rep.primary, alpha=0.05, n_items=N).text
    leader = rows[rows["finding"] == "leader"].iloc[0]
    assert f"**{leader['system']}** under" in rep.findings().text
    changed = rows.copy()
    changed.loc[changed["finding"] == "leader", "value"] = 0.123456
    changed.to_csv(folder / "findings.csv", index=False)
    try:
        text = open_multilabel_report(folder).findings().text
        assert ": 0.123 (" in text and f": {leader['value']:.3f} (" not in text
    finally:
        rows.to_csv(folder / "findings.csv", index=False)


def test_label_skips_match_scikit_learn_undefined_labels():
    """A label whose precision is 0/0 (never predicted) is the label scikit-learn's
    precision_score(average=None, zero_division=np.nan) gives NaN; recall likewise (no gold item)."""
    from sklearn.metrics import precision_score, recall_score

    runs = _runs()
    got = label_skips(runs, ["precision_macro", "recall_macro", "f1_micro", "example_precision"])
    assert set(got["measure"]) <= {"precision_macro", "recall_macro"}     # micro and example-based: none
    for s, system in enumerate(runs.systems):
        p = precision_score(runs.gold, runs.pred[s], average=None, zero_division=np.nan)
        row = got[(got["system"] == system) & (got["measure"] == "precision_macro")]
        assert (int(row["skipped"].iloc[0]) if len(row) else 0) == int(np.isnan(p).sum())
        r = recall_score(runs.gold, runs.pred[s], average=None, zero_division=np.nan)
        row = got[(got["system"] == system) & (got["measure"] == "recall_macro")]
        assert (int(row["skipped"].iloc[0]) if len(row) else 0) == int(np.isnan(r).sum())
    assert (got["total"] == len(LABELS)).all() and (got["policy"] == "nan").all()


def test_a_win_that_rests_on_skipped_items_says_so(report):
    """'sparse' wins precision by predicting little: its example-based precision averages only the
    items where it predicts a label, and its macro precision only the labels it predicts."""
    runs, folder = report
    rep = open_multilabel_report(folder)
    rows = rep.table("findings")
    scores = rep.table("scores").set_index(["system", "measure"])["value"]
    used = int((runs.pred[1].sum(axis=1) > 0).sum())
    rests = rows[rows["finding"] == "rests_on_skipping"].set_index("measure")
    assert rests.loc["example_precision", "system"] == "sparse"
    assert rests.loc["example_precision", "detail"] == f"averages only {used:,} of the {N:,} items"
    assert rests.loc["precision_macro", "detail"] == "averages only 4 of the 6 labels"
    text = _plain(rep.findings().text)
    assert (f"**Defined after skipping:** sparse's Precision (PPV) (macro) "
            f"({scores[('sparse', 'precision_macro')]:.3f}) averages only 4 of the 6 labels") in text
    labels = rows[(rows["finding"] == "skipped_labels") & (rows["system"] == "sparse")]
    assert set(labels["detail"]) == {"averages only 4 of the 6 labels"}
    details = _plain(rep.findings().details)
    assert f"sparse averages only {used} of the 400 items (" in details and "left out" in details


@pytest.mark.parametrize("policy", ["nan", "one", "zero"])
def test_skip_words_follow_the_policy(policy):
    """Under nan a 0/0 case is left out ("averages only k of n"); under one it is filled in ("counts k
    of n as the one policy's value"), never called skipped; under zero a filled 0 lowers the value, so
    it favours nobody and no winner is flagged."""
    comp = compare(_runs(), policy=policy, bootstrap=0, randomization=0, audit=False)
    found = findings(comp)
    rests = _rows(found, "rests_on_skipping")
    if policy == "zero":
        assert rests.empty
        return
    assert len(rests)
    if policy == "nan":
        assert rests["detail"].str.startswith("averages only").all()
    else:
        assert rests["detail"].str.contains("as the one policy's value").all()
        assert "skipping" not in findings_note(found.findings, primary=comp.primary).text


def test_undefined_values_name_their_system():
    found = findings(compare(_runs(), bootstrap=0, randomization=0, audit=False))
    und = _rows(found, "undefined")
    assert "empty" in set(und[und["measure"] == "example_precision"]["system"])


def test_a_constant_winner_and_a_baseline_better_than_every_system_are_flagged():
    """Rare labels: the empty set for every item has a lower Hamming loss (the gold density, about
    0.05) than a system that gets 15% of the label decisions wrong. A constant predictor that wins
    is flagged; so is a chance baseline better than every system."""
    rng = np.random.default_rng(4)
    gold = rng.random((N, len(LABELS))) < 0.05
    noisy = np.where(rng.random(gold.shape) < 0.85, gold, ~gold)
    runs = MultiLabelRuns(gold=gold, pred=np.stack([noisy, np.zeros_like(gold)]), labels=LABELS,
                          systems=("noisy", "empty"), ids=np.array([f"i{k}" for k in range(N)]))
    comp = compare(runs, bootstrap=0, randomization=0, audit=False)
    found = findings(comp)
    assert _rows(found, "constant_system")[["system", "detail"]].values.tolist() == [
        ["empty", "predicts the same label set for every item"]]
    degenerate = _rows(found, "degenerate_winner")
    assert "hamming_loss" in set(degenerate[degenerate["system"] == "empty"]["measure"])
    text = _plain(findings_note(found.findings, primary=comp.primary).text)
    assert "**A constant predictor wins:** empty, which predicts the same label set for every item" in text
    assert _rows(found, "baseline_beats_all").empty         # empty_set only ties the empty system
    best = float(comp.scores[comp.scores["measure"] == "subset_accuracy"]["value"].max())
    base = pd.concat([comp.baselines, pd.DataFrame([{"measure": "subset_accuracy", "baseline": "most_frequent_set",
                                                      "value": best + 0.01, "se": 0.0}])], ignore_index=True)
    found = findings(dataclasses.replace(comp, baselines=base))
    beats = _rows(found, "baseline_beats_all")
    assert beats[["system", "measure"]].values.tolist() == [["most_frequent_set", "subset_accuracy"]]
    text = _plain(findings_note(found.findings, primary=comp.primary).text)
    assert (f"**A chance baseline beats every system** under Subset accuracy (exact match) (the most frequent gold "
            f"set for every item: {best + 0.01:.3f})") in text


def test_near_ties_come_from_the_paired_differences(report):
    """Every sole winner with a paired verdict has a winner_noise row from paired_differences (the winner
    family, Holm-corrected), and the report names its near-ties."""
    _, folder = report
    rep = open_multilabel_report(folder)
    rows, pdiff = rep.table("findings"), rep.table("paired_differences")
    noise = rows[rows["finding"] == "winner_noise"].set_index("measure")
    winners = pdiff[pdiff["family"] == "winner"].set_index("measure")
    assert set(noise.index) == set(winners.index)
    assert (noise["detail"] == winners.loc[noise.index, "noise"]).all()
    assert np.allclose(noise["value"].astype(float), winners.loc[noise.index, "p_holm"].astype(float))
    if (noise["detail"] == "within noise").any():
        assert "**Near-ties**" in rep.findings().details


def test_chance_level_uses_intervals_and_the_exact_baseline():
    """Baselines where a Monte-Carlo estimate beats the exact one only within 2 standard errors: the
    exact one is the strongest; a system whose interval holds it is indistinguishable from chance."""
    comp = compare(_runs(), bootstrap=200, randomization=0, audit=False)
    board = comp.leaderboard.set_index("system")
    mid = float(board.loc["sparse", "value"])
    base = pd.DataFrame({"measure": comp.primary, "baseline": ["empty_set", "label_frequency"],
                         "value": [mid, mid + 0.001], "se": [0.0, 0.001]})
    found = findings(dataclasses.replace(comp, baselines=base))
    assert _rows(found, "baseline_best")[["system", "detail"]].values.tolist() == [["empty_set", "exact"]]
    assert _rows(found, "baseline_set_aside")["system"].tolist() == ["label_frequency"]
    assert "sparse" in set(_rows(found, "chance_level")["system"])
    text = _plain(findings_note(found.findings, primary=comp.primary).text)
    assert "**Indistinguishable from chance**" in text and f"sparse ({mid:.3f}, interval" in text


def test_per_label_calibration_findings():
    """The first system after per-label calibration comes from calibration_summary, and the count of
    systems whose primary rank it changes."""
    comp = compare(_runs(), bootstrap=0, randomization=0, audit=False)
    found = findings(comp)
    cs = comp.calibration_summary
    own = cs[cs["measure"] == comp.primary]
    first = set(own.loc[own["rank_calibrated"] == own["rank_calibrated"].min(), "system"])
    cal = _rows(found, "winner_calibrated")
    assert set(cal[cal["measure"] == comp.primary]["system"]) == first
    assert set(cal["measure"]) == set(cs["measure"])
    moved = _rows(found, "calibration_rank_changes")
    assert moved["value"].tolist() == [int((own["rank"] != own["rank_calibrated"]).sum())]
    details = _plain(findings_note(found.findings, primary=comp.primary).details)
    assert "After per-label prevalence calibration" in details


def test_skip_lists_name_the_worst_system_first_in_correct_plurals():
    """Per measure the systems that skip most come first (the worst is always named, whatever its
    name), the rest counted as "1 more system" / "2 more systems"; the values defined by skipping are
    said once as "Defined after skipping", the details naming labels or items, never classes."""
    from evalreport.report.summary import findings_note

    names = ["a", "b", "c", "d", "e", "f", "g", "z_worst"]
    rows = [{"finding": "leader", "system": "a", "measure": "macro_f1", "value": 0.9, "detail": ""},
            {"finding": "rests_on_skipping", "system": "a", "measure": "precision_macro", "value": 0.8,
             "detail": "averages only 19 of the 20 labels"}]
    rows += [{"finding": "skipped_labels", "system": s, "measure": "precision_macro", "value": k,
              "detail": f"averages only {20 - k} of the 20 labels"} for s, k in zip(names, [1, 2, 2, 3, 1, 1, 1, 12])]
    rows += [{"finding": "skipped_items", "system": s, "measure": "example_precision", "value": k,
              "detail": f"averages only {500 - k} of the 500 items"} for s, k in zip(names[:7], [5, 9, 7, 1, 2, 3, 4])]
    rows += [{"finding": "undefined_skipped", "system": s, "measure": "precision_macro", "value": 0.5,
              "detail": "precision: no predicted positives"} for s in names]
    note = findings_note(pd.DataFrame(rows), primary="macro_f1")
    details = _plain(note.details)
    labels = details[details.index("Precision (PPV) (macro): "):]
    assert labels.startswith("Precision (PPV) (macro): z_worst averages only 8 of the 20 labels; d averages only "
                             "17 of the 20 labels; b averages only 18 of the 20 labels; c averages only 18 ")
    assert "; and 2 more systems;" in labels
    items = details[details.index("Example-based precision: "):]
    assert items.startswith("Example-based precision: b averages only 491 of the 500 items; c averages only 493")
    assert "and 1 more system." in items and "1 more systems" not in details
    assert "Defined after skipping" not in details and "classes" not in details
    assert "**Values that leave out their 0/0 labels:** Precision (PPV) (macro) for" in details
    assert _plain(note.text).count("Defined after skipping") == 1
