"""The multi-label findings' caveats (author review 4): values that exist only because 0/0 items or
labels were left out say how many; the systems with undefined values are named; a constant
predictor that wins is flagged; near-ties are told from leads beyond the paired bootstrap noise;
the strongest chance baseline sets Monte-Carlo noise aside and chance level is judged by the
interval. The label counts are checked against scikit-learn."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from evalreport.analyses.multilabel_label_skips import label_skips
from evalreport.inputs.multilabel import MultiLabelRuns
from evalreport.report.multilabel_build import analyse_multilabel
from evalreport.report.sections.multilabel import open_multilabel_report

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
    systems = ("good", "sparse", "empty")
    return MultiLabelRuns(gold=gold, pred=np.stack([good, sparse, empty]), labels=LABELS, systems=systems,
                          ids=np.array([f"i{k}" for k in range(N)]))


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    runs = _runs()
    folder = tmp_path_factory.mktemp("mlfind") / "tables"
    analyse_multilabel(runs, folder, bootstrap=200, audit=False)
    return runs, open_multilabel_report(folder)


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


def test_author_4_a_win_that_rests_on_skipped_items_says_so(report):
    """'sparse' wins precision by predicting little: its example-based precision averages only the
    items where it predicts a label, and its macro precision only the labels it predicts."""
    runs, rep = report
    scores = rep.table("scores").set_index(["system", "measure"])["value"]
    sparse = runs.pred[1]
    used = int((sparse.sum(axis=1) > 0).sum())
    assert scores[("sparse", "example_precision")] > scores[("good", "example_precision")]
    text = rep._families_sentence()
    assert "**Defined after skipping:**" in text
    assert (f"sparse's Example-based precision ({scores[('sparse', 'example_precision')]:.3f}) averages only "
            f"{used:,} of the {N:,} items").replace("-", "\\-").replace("(", "\\(").replace(")", "\\)") \
        .replace(".", "\\.").replace("'", "\\'").replace(",", "\\,") in text
    labels_line = rep._label_skips_sentence()
    assert "sparse 4 of 6" in labels_line.replace("\\", "")


def test_author_4_the_undefined_values_name_their_system(report):
    _, rep = report
    text = rep._undefined_sentence().replace("\\", "")
    assert "for empty" in text and "Example-based precision" in text


def test_a_constant_winner_is_flagged(tmp_path):
    """Rare labels: the empty set for every item has a lower Hamming loss (the gold density, about
    0.05) than a system that gets 15% of the label decisions wrong. A constant predictor that wins
    is flagged."""
    rng = np.random.default_rng(4)
    gold = rng.random((N, len(LABELS))) < 0.05
    noisy = np.where(rng.random(gold.shape) < 0.85, gold, ~gold)
    runs = MultiLabelRuns(gold=gold, pred=np.stack([noisy, np.zeros_like(gold)]), labels=LABELS,
                          systems=("noisy", "empty"), ids=np.array([f"i{k}" for k in range(N)]))
    analyse_multilabel(runs, tmp_path / "tables", bootstrap=0, audit=False)
    rep = open_multilabel_report(tmp_path / "tables")
    scores = rep.table("scores")
    hl = scores[scores["measure"] == "hamming_loss"].set_index("system")["value"]
    assert hl.idxmin() == "empty" and hl["empty"] == pytest.approx(gold.mean())
    text = rep._families_sentence().replace("\\", "")
    assert "**A constant predictor wins:** empty predicts the same label set for every item and still comes " \
           "first under" in text and "Hamming loss" in text.split("A constant predictor wins")[1]
    assert "A chance baseline beats every system" not in text       # empty_set only ties the empty system
    # a baseline better than every system is flagged (an exact value above the best system's)
    base = pd.read_csv(tmp_path / "tables" / "baselines.csv")
    best = float(scores[scores["measure"] == "subset_accuracy"]["value"].max())
    base = pd.concat([base, pd.DataFrame([{"measure": "subset_accuracy", "baseline": "most_frequent_set",
                                           "value": best + 0.01, "se": 0.0, "method": "exact", "note": ""}])])
    base.to_csv(tmp_path / "tables" / "baselines.csv", index=False)
    text = open_multilabel_report(tmp_path / "tables")._families_sentence().replace("\\", "")
    assert (f"**A chance baseline beats every system** under Subset accuracy (most frequent gold set: "
            f"{best + 0.01:.3f}): this measure rewards a prediction without skill") in text


def test_near_ties_come_from_the_paired_differences(report, monkeypatch):
    """Every sole winner is in exactly one of: beyond the noise (counted), a near-tie (named), not tested
    (named); a review found "Every winner leads ..." printed with a tied and an untested winner."""
    _, rep = report
    pdiff = rep.table("paired_differences")
    assert len(pdiff) and set(pdiff["noise"]) <= {"within noise", "beyond noise", "undefined"}
    label = rep._label
    wins = {"m1": ("A",), "m2": ("B",), "m3": ("C",), "m4": ("D", "E")}
    monkeypatch.setattr(rep, "_label", lambda m: {"m1": "M one", "m2": "M two", "m3": "M three"}.get(m, label(m)))

    def table(rows):
        frame = pd.DataFrame(rows, columns=["measure", "system_a", "system_b", "difference", "p_value", "noise"])
        frame = frame.assign(family="winner", p_holm=frame["p_value"])       # the winners' corrected family
        monkeypatch.setattr(rep, "table", lambda name: frame if name == "paired_differences" else pd.DataFrame())

    table([("m1", "A", "B", 0.2, 0.001, "beyond noise"), ("m2", "B", "A", 0.01, 0.4, "within noise"),
           ("m3", "C", "A", np.nan, np.nan, "undefined")])
    text = rep._noise_words(wins)
    assert "Every" not in text and "Near-ties" in text and "(difference 0.010, corrected p = 0.400;" in text
    assert "B under M two" in text and "Not tested against a runner-up" in text and "C under M three" in text
    table([("m1", "A", "B", 0.2, 0.001, "beyond noise")])
    text = rep._noise_words(wins)
    assert text.startswith("Every tested winner (1 of 4 measures) leads its runner-up beyond the bootstrap noise")
    assert "B under M two and C under M three" in text


def test_chance_sentence_uses_intervals_and_the_exact_baseline(tmp_path):
    """A table of baselines where a Monte-Carlo estimate beats the exact one only within 2 standard
    errors: the exact one is named; a system whose interval holds it is indistinguishable from chance."""
    runs = _runs()
    folder = tmp_path / "tables"
    analyse_multilabel(runs, folder, bootstrap=200, audit=False)
    rep = open_multilabel_report(folder)
    primary = rep.primary
    board = rep.table("leaderboard").set_index("system")
    mid = float(board.loc["sparse", "value"])
    lo, hi = float(board.loc["sparse", "lo"]), float(board.loc["sparse", "hi"])
    base = pd.DataFrame({"measure": primary, "baseline": ["empty_set", "label_frequency"],
                         "value": [mid, mid + 0.001], "se": [0.0, 0.001], "method": ["exact", "monte carlo"],
                         "note": ""})
    base.to_csv(folder / "baselines.csv", index=False)
    rep = open_multilabel_report(folder)
    text = rep._baseline_sentence().replace("\\", "")
    assert f"is empty set ({mid:.3f}, exact)" in text
    assert "each label at its gold frequency scores higher only within 2 Monte-Carlo standard errors" in text
    assert f"**indistinguishable from chance** (the bootstrap interval holds it): sparse ({mid:.3f}, interval " \
           f"{lo:.3f} to {hi:.3f})" in text


@pytest.mark.parametrize("policy", ["nan", "one", "zero"])
def test_skip_words_follow_the_policy(report, monkeypatch, policy):
    """Under nan a 0/0 case is left out ("averages only k of n"); under one/convention it is filled in
    ("counts k of n as the one policy's value"), never called skipped; under zero a filled 0 lowers the
    value, so it favours nobody and is not flagged (a fresh review found the nan wording under every policy)."""
    _, rep = report
    real = rep.table
    scores = pd.DataFrame({"system": ["A", "B"], "measure": ["m", "m"], "value": [0.9, 0.5]})
    labels = pd.DataFrame({"system": ["A", "B"], "measure": ["m", "m"], "skipped": [3, 0], "total": [12, 12],
                           "policy": [policy] * 2})
    tables = {"scores": scores, "label_skips": labels, "example_skips": pd.DataFrame()}
    monkeypatch.setattr(rep, "table", lambda name: tables.get(name, real(name)))
    monkeypatch.setattr(rep, "_has", lambda name: name in ("label_skips",))
    monkeypatch.setattr(rep, "_label", lambda m: "Macro M")
    words = rep._skipped_words([("A", "m")], winners=True).replace("\\", "")     # Markdown escapes off
    sentence = rep._label_skips_sentence().replace("\\", "")
    if policy == "nan":
        assert words == ("**Defined after skipping:** A's Macro M (0.900) averages only 9 of the 12 labels (the "
                         "others are its 0/0 cases - an empty predicted or gold set, a label never predicted or never "
                         "in the gold sets - of which it has more than another system).")
        assert sentence.startswith("**Label averages defined after skipping labels**") and "A 9 of 12" in sentence
    elif policy == "one":
        assert words.startswith("**Defined with filled-in 0/0 cases:** A's Macro M (0.900) counts 3 of the 12 "
                                "labels as the one policy's value (those are its 0/0 cases")
        assert sentence.startswith("**Label averages with filled-in labels**") and "A 3 of 12" in sentence
        assert "skipping" not in words + sentence
    else:
        assert words == "" and "skipping" not in sentence
