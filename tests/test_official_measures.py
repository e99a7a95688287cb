"""Official measures of shared tasks: class-subset averages reproduce the published
scorers' definitions on data built here, each checked against an independent computation
(scikit-learn, or the scorer's logic written out item by item)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra.numpy import arrays
from sklearn.metrics import accuracy_score, confusion_matrix, f1_score, precision_score, recall_score

from evalreport import measures as M
from evalreport.errors import MeasureError


def _data(classes, n, seed, p=None):
    """Gold and predicted labels: a noisy classifier (right with probability 0.6)."""
    rng = np.random.default_rng(seed)
    gold = rng.choice(classes, size=n, p=p)
    pred = np.where(rng.random(n) < 0.6, gold, rng.choice(classes, size=n))
    return gold, pred


def _value(spec, gold, pred, classes, **kw):
    C = confusion_matrix(gold, pred, labels=classes).astype(float)
    return float(M.compute(spec, C, labels=classes, **kw).value)


@pytest.mark.parametrize("seed", range(5))
def test_semeval_2016_task6_stance_f_avg(seed):
    """SemEval-2016 Task 6 (Mohammad et al. 2016, section on evaluation): the official score is
    F_avg = (F_FAVOR + F_AGAINST) / 2, each F the F1 of that class on the full 3-class matrix
    (FAVOR, AGAINST, NONE): NONE counts as a wrong prediction, not as a class of the average."""
    classes = ["FAVOR", "AGAINST", "NONE"]
    gold, pred = _data(classes, 300, seed, p=[0.3, 0.5, 0.2])
    want = f1_score(gold, pred, labels=["FAVOR", "AGAINST"], average="macro")
    per_class = f1_score(gold, pred, labels=classes, average=None)
    assert want == pytest.approx((per_class[0] + per_class[1]) / 2)
    got = _value("macro_f1(classes=FAVOR|AGAINST)", gold, pred, classes)
    assert got == pytest.approx(want, abs=1e-12)
    assert got != pytest.approx(f1_score(gold, pred, average="macro"))      # not the 3-class macro F1


@pytest.mark.parametrize("seed", range(5))
def test_semeval_2016_task4a_f1_pn(seed):
    """SemEval-2016 Task 4, subtask A (Nakov et al. 2016): F1^PN = (F1_positive + F1_negative) / 2
    on the 3-class (positive, negative, neutral) matrix."""
    classes = ["positive", "negative", "neutral"]
    gold, pred = _data(classes, 250, 100 + seed)
    want = f1_score(gold, pred, labels=["positive", "negative"], average="macro")
    assert _value("macro_f1(classes=positive|negative)", gold, pred, classes) == pytest.approx(want, abs=1e-12)
    assert _value("f1_macro(classes=negative|positive)", gold, pred, classes) == pytest.approx(want, abs=1e-12)


@pytest.mark.parametrize("seed", range(3))
def test_semeval_2010_task8_macro_f1_without_other(seed):
    """SemEval-2010 Task 8 (Hendrickx et al. 2010): macro-averaged F1 over the nine relations,
    "Other" left out of the average but kept as a class of the matrix. What is reproduced is the
    (9+1)-way macro F1 excluding Other; the official scorer's primary score also merges the two
    directions of each relation (18 directed labels into 9), which is a relabelling done before
    scoring, not part of the measure."""
    relations = ["Cause-Effect", "Component-Whole", "Content-Container", "Entity-Destination", "Entity-Origin",
                 "Instrument-Agency", "Member-Collection", "Message-Topic", "Product-Producer"]
    classes = relations + ["Other"]
    gold, pred = _data(classes, 600, 200 + seed)
    want = f1_score(gold, pred, labels=relations, average="macro")
    assert _value("macro_f1(exclude=Other)", gold, pred, classes) == pytest.approx(want, abs=1e-12)


@pytest.mark.parametrize("seed", range(3))
def test_micro_f1_without_the_majority_class(seed):
    """Micro F1 without the majority "O" / "none" class (the usual score of sequence labelling and
    relation extraction, e.g. TACRED): TP, FP, FN pooled over the other classes only, as
    scikit-learn's f1_score(average='micro', labels=[all but O]); it is not accuracy."""
    classes = ["O", "PER", "LOC", "ORG"]
    gold, pred = _data(classes, 400, 300 + seed, p=[0.7, 0.1, 0.1, 0.1])
    others = classes[1:]
    want = f1_score(gold, pred, labels=others, average="micro")
    got = _value("micro_f1(exclude=O)", gold, pred, classes)
    assert got == pytest.approx(want, abs=1e-12)
    assert got != pytest.approx(accuracy_score(gold, pred))
    assert _value("precision_micro(exclude=O)", gold, pred, classes) == pytest.approx(
        precision_score(gold, pred, labels=others, average="micro"), abs=1e-12)
    assert _value("recall_micro(exclude=O)", gold, pred, classes) == pytest.approx(
        recall_score(gold, pred, labels=others, average="micro"), abs=1e-12)
    assert _value("macro_recall(exclude=O)", gold, pred, classes) == pytest.approx(
        recall_score(gold, pred, labels=others, average="macro"), abs=1e-12)
    assert _value("weighted_f1(exclude=O)", gold, pred, classes) == pytest.approx(
        f1_score(gold, pred, labels=others, average="weighted"), abs=1e-12)


FNC_CLASSES = ["agree", "disagree", "discuss", "unrelated"]
FNC_RELATED = {"agree", "disagree", "discuss"}


def fnc1_gains():
    """The FNC-1 gain matrix (rows = gold): 0.25 for the right related/unrelated decision, 0.75 more
    for the exact class of a related item."""
    G = np.zeros((4, 4))
    G[:3, :3] = 0.25
    G[np.arange(3), np.arange(3)] = 1.0
    G[3, 3] = 0.25
    return G


def fnc1_score(gold, pred):
    """The FNC-1 scorer's logic, item by item (Pomerleau & Rao 2017, the challenge's scorer)."""
    score = 0.0
    for g, p in zip(gold, pred):
        if g == p:
            score += 0.25
            if g != "unrelated":
                score += 0.50
        if g in FNC_RELATED and p in FNC_RELATED:
            score += 0.25
    return score


@pytest.mark.parametrize("seed", range(5))
def test_fake_news_challenge_relative_score(seed):
    """Fake News Challenge FNC-1 (Pomerleau & Rao 2017): +0.25 for each item whose related /
    unrelated decision is right, +0.75 more where a related item's exact stance is right; the
    relative score is a submission's score over the score of the gold labels themselves."""
    gold, pred = _data(FNC_CLASSES, 500, 400 + seed, p=[0.07, 0.02, 0.18, 0.73])
    C = confusion_matrix(gold, pred, labels=FNC_CLASSES).astype(float)
    G = fnc1_gains()
    want = fnc1_score(gold, pred) / fnc1_score(gold, gold)
    assert float(M.compute("gain_relative", C, gains=G).value) == pytest.approx(want, abs=1e-12)
    assert float(M.compute("gain_total", C, gains=G).value) == pytest.approx(fnc1_score(gold, pred), abs=1e-9)
    assert float(M.compute("gain_mean", C, gains=G).value) == pytest.approx(fnc1_score(gold, pred) / len(gold))
    # a perfect submission scores 1
    P = confusion_matrix(gold, gold, labels=FNC_CLASSES).astype(float)
    assert float(M.compute("gain_relative", P, gains=G).value) == pytest.approx(1.0)


# --------------------------------------------------------------------------- invariants (hypothesis)

SUBSETTABLE = ["macro_f1", "macro_recall", "balanced_accuracy", "macro_precision", "weighted_f1", "f1_macro",
               "recall_macro", "jaccard_macro", "mcc_macro", "precision_weighted", "f1_micro", "micro_f1",
               "gm1_micro"]


@st.composite
def stacks(draw):
    K = draw(st.integers(2, 5))
    C = draw(arrays(np.int64, (draw(st.integers(1, 4)), K, K), elements=st.integers(0, 6))).astype(float)
    names = [f"c{k}" for k in range(K)]
    chosen = draw(st.lists(st.sampled_from(names), min_size=1, max_size=K, unique=True))
    return C, names, chosen


def _same(a, b):
    np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12, equal_nan=True)


@settings(max_examples=40, deadline=None)
@given(data=stacks(), policy=st.sampled_from(["nan", "zero", "one"]), measure=st.sampled_from(SUBSETTABLE))
def test_subset_invariants(data, policy, measure):
    """Over every class a subset average is the plain average; exclude= is classes= of the
    complement; the order of the names does not matter - under the nan, zero and one policies."""
    C, names, chosen = data
    plain = M.compute(measure, C, labels=names, policy=policy).value
    every = M.compute(f"{measure}(classes={'|'.join(reversed(names))})", C, labels=names, policy=policy).value
    _same(every, plain)
    sub = M.compute(f"{measure}(classes={'|'.join(chosen)})", C, labels=names, policy=policy).value
    _same(M.compute(f"{measure}(classes={'|'.join(reversed(chosen))})", C, labels=names, policy=policy).value, sub)
    rest = [n for n in names if n not in chosen]
    if rest:
        _same(M.compute(f"{measure}(exclude={'|'.join(rest)})", C, labels=names, policy=policy).value, sub)


def test_micro_f1_over_every_class_is_accuracy():
    """On the full class set micro F1 is accuracy (Opitz 2022, Appendix A): the subset record agrees."""
    C = np.array([[5, 2, 1], [1, 6, 2], [3, 1, 9.]])
    got = float(M.compute("micro_f1(classes=a|b|c)", C, labels=["a", "b", "c"]).value)
    assert got == pytest.approx(float(M.compute("accuracy", C).value))
    assert float(M.compute("micro_f1(exclude=c)", C, labels=["a", "b", "c"]).value) != pytest.approx(got)


# --------------------------------------------------------------------------- identity and errors


def test_two_spellings_are_one_id_and_the_label_names_the_classes():
    a, b = M.get("macro_f1(classes=FAVOR|AGAINST)"), M.get("Macro_F1( classes = AGAINST | FAVOR )")
    assert a.id == b.id == "macro_f1(classes=AGAINST|FAVOR)"
    assert M.get(a.id).id == a.id                               # the id parses back to itself
    assert "over AGAINST, FAVOR" in a.label and "without O" in M.get("micro_f1(exclude=O)").label
    frame = M.catalogue_frame([a.id])
    assert frame.loc[0, "params"] == "classes=AGAINST|FAVOR" and "AGAINST, FAVOR" in frame.loc[0, "label"]


def test_unknown_class_is_an_error_naming_it():
    C = np.eye(3)
    with pytest.raises(MeasureError, match=r"'AGAINS'.*FAVOR, AGAINST, NONE"):
        M.compute("macro_f1(classes=FAVOR|AGAINS)", C, labels=["FAVOR", "AGAINST", "NONE"])


@pytest.mark.parametrize("spec, message", [
    ("macro_f1(classes=a,exclude=b)", "not both"),
    ("macro_f1(classes=)", "names no class"),
    ("macro_f1(classes=a||b)", "empty class name"),
    ("accuracy(classes=a|b)", "not an average over classes"),
    ("mcc(exclude=a)", "not an average over classes"),
])
def test_bad_subsets(spec, message):
    with pytest.raises(MeasureError, match=message):
        M.get(spec)


def test_excluding_every_class_and_a_subset_without_labels_are_errors():
    with pytest.raises(MeasureError, match="empty"):
        M.compute("macro_f1(exclude=a|b)", np.eye(2), labels=["a", "b"])
    with pytest.raises(MeasureError, match="needs the class labels"):
        M.compute("macro_f1(classes=a)", np.eye(2))


def test_binding_is_per_task_not_global():
    """Two tasks with different class orders in one process: each bound record keeps its own indices."""
    one = M.bind("macro_f1(classes=x)", ["x", "y", "z"])
    two = M.bind("macro_f1(classes=x)", ["z", "y", "x"])
    assert one.id == two.id and one.bound["subset"] == (0,) and two.bound["subset"] == (2,)
    C = np.array([[4, 1, 0], [0, 3, 2], [1, 0, 5.]])
    f1 = f1_score([0] * 5 + [1] * 5 + [2] * 6, [0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 0, 2, 2, 2, 2, 2],
                  labels=[0, 2], average=None)
    assert float(M.compute(one, C).value) == pytest.approx(f1[0])
    assert float(M.compute(two, C).value) == pytest.approx(f1[1])
