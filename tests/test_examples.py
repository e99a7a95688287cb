"""The built-in demo examples (evalreport.examples): shape, reproducibility, and - the reason
the demo exists - that the headline measures rank its systems differently."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("sklearn")

from evalreport.counts import confusion_from_codes
from evalreport.examples import DEMO_CLASSES, binary_demo_data, demo_data, make_binary_demo, make_demo
from evalreport.measures import evaluate

HEADLINE = ["accuracy", "macro_recall", "macro_f1", "mcc", "k"]


@pytest.fixture(scope="module")
def demo():
    return demo_data(seed=0)


@pytest.fixture(scope="module")
def binary():
    return binary_demo_data(seed=0)


def _counts(d):
    """Confusion tensor (S, K, K) of an in-memory demo, straight from its frames."""
    code = {c: i for i, c in enumerate(d.labels)}
    gold = d.gold["label"].map(code).to_numpy()
    pred = np.stack([d.runs[s]["label"].map(code).to_numpy() for s in d.runs])
    return confusion_from_codes(gold, pred, len(d.labels))


def _wide(d, measures, **kw):
    scores = evaluate(_counts(d), measures, labels=list(d.labels), systems=list(d.runs), **kw)
    return scores.pivot(index="system", columns="measure", values="value")


def test_demo_is_multiclass_imbalanced_with_stratified_folds(demo):
    sizes = demo.gold["label"].value_counts()
    assert sizes.to_dict() == {name: n for name, _, n in DEMO_CLASSES}
    assert sizes.max() / sizes.min() >= 10  # imbalanced: 180 vs 15
    assert sorted(demo.gold["fold"].unique()) == [1, 2, 3, 4, 5]
    # stratified: every class is spread over the folds as evenly as possible
    per_fold = pd.crosstab(demo.gold["label"], demo.gold["fold"])
    assert (per_fold.max(axis=1) - per_fold.min(axis=1)).max() <= 1
    assert demo.gold["id"].is_unique


def test_demo_runs_align_with_gold_and_predict_the_top_score(demo):
    assert 6 <= len(demo.runs) <= 8
    for name, run in demo.runs.items():
        assert run["id"].tolist() == demo.gold["id"].tolist(), name
        cols = [f"score_{c}" for c in demo.labels]
        assert list(run.columns) == ["id", "label", *cols]
        assert np.isfinite(run[cols].to_numpy()).all()
        top = np.asarray(demo.labels)[run[cols].to_numpy().argmax(axis=1)]
        assert (top == run["label"].to_numpy()).all(), name


def test_demo_systems_are_of_different_quality(demo):
    acc = _wide(demo, ["accuracy"])["accuracy"]
    # the prior-only dummy predicts the majority class: accuracy = 180 / 620
    assert acc["prior"] == pytest.approx(180 / 620)
    assert acc.drop("prior").min() > 0.6 and acc.max() < 0.99
    assert acc.nunique() == len(acc)  # no ties: every ranking is strict


def test_demo_headline_measures_disagree(demo):
    """The demo exists to show measures disagreeing. Computed here, not hard-coded."""
    wide = _wide(demo, HEADLINE)
    ranks = wide.rank(ascending=False)
    orders = {m: tuple(wide[m].dropna().sort_values(ascending=False).index) for m in HEADLINE}
    assert len(set(orders.values())) >= 2
    # accuracy and the class-balanced measures do not even agree on the winner ...
    leaders = {m: wide[m].idxmax() for m in HEADLINE}
    assert leaders["accuracy"] != leaders["macro_recall"]
    assert leaders["accuracy"] != leaders["k"]
    # ... and some system moves by at least two places between accuracy and macro recall
    assert (ranks["accuracy"] - ranks["macro_recall"]).abs().max() >= 2
    # the deliberately class-weighted model is the one that gains
    assert ranks.loc["logreg_balanced", "macro_recall"] < ranks.loc["logreg_balanced", "accuracy"]


def test_demo_has_an_undefined_measure_to_show(demo):
    """The majority-class dummy has a constant prediction: MCC is 0/0 (Opitz 2022, eq. 23)."""
    scores = evaluate(_counts(demo), ["mcc"], labels=list(demo.labels), systems=list(demo.runs))
    row = scores.set_index("system").loc["prior"]
    assert bool(row["undefined"]) and np.isnan(row["value"])


def test_demo_seed_changes_the_sample(demo):
    """(Same seed, same bytes: see test_make_demo_writes_the_reader_layout_fast.)"""
    other = demo_data(seed=1)
    assert other.gold["id"].tolist() != demo.gold["id"].tolist()
    assert other.gold["label"].value_counts().to_dict() == demo.gold["label"].value_counts().to_dict()


def test_make_demo_writes_the_reader_layout(tmp_path):
    paths = make_demo(tmp_path / "demo", seed=0)
    gold = pd.read_csv(paths["gold"], sep="\t")
    assert list(gold.columns) == ["id", "label", "fold"] and len(gold) == 620
    assert paths["runs_dir"] == paths["gold"].parent / "runs"
    assert sorted(p.name for p in paths["runs_dir"].iterdir()) == sorted(f"{s}.tsv" for s in paths["runs"])
    forest = pd.read_csv(paths["runs"]["forest"], sep="\t")
    assert forest.columns[2:].tolist() == [f"score_{c}" for c, _, _ in DEMO_CLASSES]
    # byte-identical on a second run with the same seed
    again = make_demo(tmp_path / "again", seed=0)
    for name, p in paths["runs"].items():
        assert p.read_bytes() == again["runs"][name].read_bytes()
    assert paths["gold"].read_bytes() == again["gold"].read_bytes()


def test_binary_demo_is_imbalanced_with_scores_and_ten_folds(binary):
    gold = binary.gold
    share = (gold["label"] == "malignant").mean()
    assert binary.positive == "malignant"
    assert 0.05 < share < 0.15
    assert sorted(gold["fold"].unique()) == list(range(1, 11))
    # stratified: every fold has 3 or 4 of the 36 positives (Forman & Scholz 2010, sec. 4)
    pos = gold.loc[gold["label"] == "malignant", "fold"].value_counts()
    assert len(pos) == 10 and pos.min() >= 3 and pos.max() <= 4
    for name, run in binary.runs.items():
        assert list(run.columns) == ["id", "label", "score"]
        assert run["score"].between(0, 1).all(), name
        # the label is the thresholded probability of the positive class
        assert ((run["score"] > 0.5) == (run["label"] == "malignant")).all(), name


def test_binary_demo_prior_system_has_undefined_precision(binary):
    """The dummy never predicts the positive class: TP + FP = 0, so precision is 0/0, while F1
    written in counts, 2TP / (2TP + FP + FN) = 0 / 36, is 0 - the value Forman & Scholz
    (2010, section 4.3) call correct for a fold with undefined precision."""
    wide = _wide(binary, ["f1", "precision", "recall"], positive="malignant")
    assert np.isnan(wide.loc["prior", "precision"])
    assert wide.loc["prior", "f1"] == 0 and wide.loc["prior", "recall"] == 0
    assert wide["f1"].drop("prior").between(0.5, 1).all()


def test_make_binary_demo_writes_files(tmp_path):
    paths = make_binary_demo(tmp_path, seed=3)
    runs = {p.stem for p in paths["runs_dir"].glob("*.tsv")}
    assert runs == set(paths["runs"]) and "prior" in runs
    gold = pd.read_csv(paths["gold"], sep="\t")
    assert (gold["label"] == "malignant").sum() == 36
    with pytest.raises(ValueError, match="positives"):
        make_binary_demo(tmp_path / "x", positives=0)


def test_load_demo_reads_back_as_runs(tmp_path):
    pytest.importorskip("evalreport.inputs.readers")
    from evalreport.examples import load_demo

    runs = load_demo(tmp_path, seed=0)
    assert runs.n_items == 620 and runs.n_classes == 6 and runs.n_folds == 5
    assert set(runs.systems) == {"logreg", "logreg_balanced", "naive_bayes", "knn", "tree", "forest",
                                 "linear_svm", "prior"}
    assert runs.scores is not None and runs.scores.shape == (runs.n_systems, 620, 6)
    binary = load_demo(binary=True)
    assert binary.n_classes == 2 and binary.n_folds == 10 and binary.scores.shape == (6, 393)
