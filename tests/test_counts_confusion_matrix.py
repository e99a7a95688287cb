"""The public ``confusion_matrix(y_true, y_pred, labels=None)`` (evalreport/counts) and its hash
encoding (evalreport/counts/encode.py), differentially against scikit-learn's
``sklearn.metrics.confusion_matrix`` (same orientation: rows = gold, columns = predicted) and
against a per-item dictionary lookup (the general path the hash path must agree with)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from sklearn.metrics import confusion_matrix as sk_confusion_matrix

from evalreport.counts import confusion_matrix
from evalreport.counts.encode import distinct


def _by_lookup(y_true, y_pred, labels=None):
    """The definition: sorted union of labels (or ``labels``), then one dictionary lookup per item."""
    y_true, y_pred = np.asarray(y_true), np.asarray(y_pred)
    labels = np.unique(np.concatenate([y_true, y_pred])) if labels is None else np.asarray(labels)
    index = {v: i for i, v in enumerate(labels.tolist())}
    C = np.zeros((len(labels), len(labels)), dtype=np.int64)
    for g, p in zip(y_true.tolist(), y_pred.tolist()):
        C[index[g], index[p]] += 1
    return C, tuple(labels.tolist())


TEXT = st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=6)


@pytest.mark.filterwarnings("ignore:A single label was found")
@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(TEXT, TEXT), max_size=60))
def test_strings_match_sklearn_and_the_lookup(pairs):
    gold = np.array([g for g, _ in pairs], dtype=str)
    pred = np.array([p for _, p in pairs], dtype=str)
    C, labels = confusion_matrix(gold, pred)
    expect, expect_labels = _by_lookup(gold, pred)
    assert labels == expect_labels
    np.testing.assert_array_equal(C, expect)
    if len(pairs):
        np.testing.assert_array_equal(C, sk_confusion_matrix(gold, pred, labels=list(labels)))


@pytest.mark.filterwarnings("ignore:A single label was found")
@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(-5, 2**40), st.integers(-5, 2**40)), min_size=1, max_size=60))
def test_integers_match_sklearn(pairs):
    gold = np.array([g for g, _ in pairs])
    pred = np.array([p for _, p in pairs])
    C, labels = confusion_matrix(gold, pred)
    assert labels == tuple(np.unique(np.concatenate([gold, pred])).tolist())
    assert all(type(x) is int for x in labels)
    np.testing.assert_array_equal(C, sk_confusion_matrix(gold, pred, labels=list(labels)))


def test_large_string_arrays_match_sklearn():
    rng = np.random.default_rng(0)
    names = np.array(["cat", "dog", "émeu", "ant", "a", "zebra-crossing"])
    gold, pred = names[rng.integers(0, 6, 20_000)], names[rng.integers(0, 5, 20_000)]
    C, labels = confusion_matrix(gold, pred)
    assert labels == tuple(sorted(names.tolist()))
    np.testing.assert_array_equal(C, sk_confusion_matrix(gold, pred, labels=list(labels)))
    # object arrays (a pandas column) and the same labels as a list give the same matrix
    C2, labels2 = confusion_matrix(gold.astype(object), pred.astype(object))
    assert labels2 == labels
    np.testing.assert_array_equal(C2, C)


def test_labels_fix_the_order_and_may_list_absent_classes():
    C, labels = confusion_matrix(np.array(["a", "b", "b"]), np.array(["b", "b", "a"]), labels=["c", "b", "a"])
    assert labels == ("c", "b", "a")
    np.testing.assert_array_equal(C, [[0, 0, 0], [0, 1, 1], [0, 1, 0]])


def test_a_label_outside_labels_names_the_first_such_item():
    with pytest.raises(ValueError, match="label 'q' is not in labels"):
        confusion_matrix(np.array(["a", "q", "z"]), np.array(["a", "a", "a"]), labels=["a", "z"])
    with pytest.raises(ValueError, match="label 7 is not in labels"):
        confusion_matrix([1, 1], [1, 7], labels=[1, 2])


@pytest.mark.parametrize("gold, pred, labels", [
    ([1, 2, 3], ["1", "2", "x"], None),                      # joined as text: 1 is not the label '1'
    ([1.0, np.nan], [1.0, 1.0], None),                       # NaN is no label
    (np.array([1, 2], dtype=np.int64), np.array([2, 3], dtype=np.uint64), None),
    (np.array(["a", None], dtype=object), np.array(["a", "a"], dtype=object), ["a"]),
    ([0.0, -0.0, 1.5], [0.0, 1.5, 1.5], None),
    ([True, False], [True, True], None),
    ([], [], None),
])
def test_the_general_path_and_the_hash_path_agree(gold, pred, labels):
    """Inputs without an exact hash path (NaN, None, mixed types, signed zeros) keep the lookup's answer,
    error included."""
    try:
        expect = _by_lookup(gold, pred, labels)
    except (KeyError, TypeError):
        with pytest.raises((ValueError, TypeError)):
            confusion_matrix(gold, pred, labels=labels)
        return
    C, got = confusion_matrix(gold, pred, labels=labels)
    assert got == expect[1]
    np.testing.assert_array_equal(C, expect[0])


def test_distinct_finds_first_occurrences_and_refuses_what_it_cannot_encode():
    codes, values = distinct(np.array(["b", "a", "b", "c", "a"]))
    assert values.tolist() == ["b", "a", "c"] and codes.tolist() == [0, 1, 0, 2, 1]
    codes, values = distinct(np.array([5, 3, 5]))
    assert values.tolist() == [5, 3] and codes.tolist() == [0, 1, 0]
    assert distinct(np.array([1.0, np.nan])) is None
    assert distinct(np.array(["a", 1], dtype=object)) is None
    assert distinct(np.array([b"a"])) is None


def test_a_hash_collision_is_caught_not_counted(monkeypatch):
    """With a hash that sends every text to one value the check finds the collision and the general
    path answers."""
    import evalreport.counts.encode as encode

    monkeypatch.setattr(encode, "_PRIME", np.uint64(0))
    gold, pred = np.array(["x", "y", "x"]), np.array(["y", "y", "z"])
    assert distinct(gold) is None
    C, labels = confusion_matrix(gold, pred)
    assert labels == ("x", "y", "z")
    np.testing.assert_array_equal(C, [[0, 1, 1], [0, 1, 0], [0, 0, 0]])


def test_shape_errors():
    with pytest.raises(ValueError, match="1-D of the same length"):
        confusion_matrix(["a", "b"], ["a"])


# ----------------------------------------------------------------------------- long confusion files


@pytest.mark.parametrize("kind", ["integers", "fractions", "huge"])
def test_long_file_sums_as_float_bincount(tmp_path, kind):
    """Repeated (system, gold, predicted) rows are summed in int64 when every count is a whole number
    and the float sums would be exact; the tensor (values and dtype) is the float bincount's, rounded
    as before (``_finish``), in each case."""
    from evalreport.counts import read_confusion
    from evalreport.counts.files import _finish

    rng = np.random.default_rng(7)
    n, K = 400, 6
    sys_, g, p = rng.integers(0, 2, n), rng.integers(0, K, n), rng.integers(0, K, n)
    counts = rng.integers(0, 50, n).astype(float)
    if kind == "fractions":
        counts[::7] += 0.5
    elif kind == "huge":
        counts[0] = 2.0 ** 53
    path = tmp_path / "long.csv"
    path.write_text("system,gold,predicted,count\n" + "".join(
        f"s{a},c{b},c{c},{repr(float(v)) if kind == 'fractions' else int(v)}\n" for a, b, c, v in zip(sys_, g, p, counts)))
    got = read_confusion(path)
    order = {name: k for k, name in enumerate(got.labels)}
    remap = np.array([order[f"c{k}"] for k in range(K)])
    rows = np.array([list(got.systems).index(f"s{a}") for a in sys_])
    flat = (rows * K + remap[g]) * K + remap[p]
    expected = _finish(np.bincount(flat, weights=counts, minlength=2 * K * K).reshape(2, K, K))
    assert got.tensor.dtype == expected.dtype
    np.testing.assert_array_equal(got.tensor, expected)
