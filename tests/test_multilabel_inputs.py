"""Tests of multi-label input: evalreport.inputs.multilabel.read_multilabel / detect_multilabel
and the writer evalreport.examples.write_multilabel.

Every layout must give the same MultiLabelRuns; every bad input names the file and the line (or the
row of a Parquet file) and the id; mixing single- and multi-label files names which file is which.
"""
from __future__ import annotations

import string
import warnings

import numpy as np
import pandas as pd
import pytest
from conftest import raises, write
from hypothesis import HealthCheck, given, settings, strategies as st

from evalreport.examples import write_multilabel
from evalreport.inputs.multilabel import LAYOUTS, MultiLabelRuns, detect_multilabel, read_multilabel

LABELS = ("anger", "joy", "trust")
IDS = np.array(["a", "b", "c", "d"], dtype=object)
GOLD = np.array([[0, 1, 1], [1, 0, 0], [0, 0, 0], [1, 1, 1]], dtype=bool)
RUN_1 = np.array([[0, 1, 0], [1, 0, 1], [0, 0, 0], [0, 0, 1]], dtype=bool)
RUN_2 = np.array([[0, 0, 0], [1, 0, 0], [1, 1, 0], [1, 1, 1]], dtype=bool)
# every (layout, format) pair the readers take
LAYOUT_FORMATS = [("list", "jsonl"), ("list", "parquet"), ("sep", "tsv"), ("sep", "csv"), ("sep", "jsonl"),
                  ("long", "tsv"), ("long", "csv"), ("long", "jsonl"), ("long", "parquet"),
                  ("wide", "csv"), ("wide", "tsv"), ("wide", "jsonl"), ("wide", "parquet")]


def written(tmp_path, layout, fmt, runs=None, gold=GOLD, labels=LABELS, ids=IDS):
    runs = {"one": RUN_1, "two": RUN_2} if runs is None else runs
    return write_multilabel(gold, runs, labels, ids, tmp_path, layout=layout, fmt=fmt)


def read(paths, form=None, **kw):
    """Read written files; ``form`` only decides the separator (``layout=`` passes through)."""
    kw.setdefault("label_sep", "," if form == "sep" else None)
    return read_multilabel(paths["gold"], list(paths["runs"].values()), **kw)


# ----------------------------------------------------------------------------- happy paths


@pytest.mark.parametrize("layout,fmt", LAYOUT_FORMATS)
def test_every_layout_reads_the_same_sets(tmp_path, layout, fmt):
    paths = written(tmp_path, layout, fmt)
    runs = read(paths, layout)
    assert isinstance(runs, MultiLabelRuns)
    assert runs.labels == LABELS and runs.systems == ("one", "two")
    assert list(runs.ids) == list(IDS)
    np.testing.assert_array_equal(runs.gold, GOLD)
    np.testing.assert_array_equal(runs.pred, np.stack([RUN_1, RUN_2]))
    assert (runs.n_items, runs.n_systems, runs.n_labels) == (4, 2, 3)
    assert [s.role for s in runs.sources] == ["gold", "run", "run"] and all(len(s.sha256) == 64 for s in runs.sources)
    # the layout given explicitly reads the same
    np.testing.assert_array_equal(read(paths, layout, layout=layout).pred, runs.pred)


def test_arrays_are_read_only(tmp_path):
    runs = read(written(tmp_path, "list", "jsonl"))
    with pytest.raises(ValueError):
        runs.pred[0, 0, 0] = True
    assert runs.select(["two"]).systems == ("two",)
    np.testing.assert_array_equal(runs.select(["two"]).pred[0], RUN_2)


def test_hand_written_files(tmp_path):
    """Run rows in another order than gold, numbers as labels, spaces around labels, empty sets."""
    gold = write(tmp_path / "gold.jsonl", '{"id": "a", "label": [2, "x"]}\n{"id": "b", "label": []}\n'
                                          '{"id": 3, "label": ["10"]}\n')
    run = write(tmp_path / "r.tsv", "id\tlabel\n3\t 10 | x\nb\t\na\t2\n")
    got = read_multilabel(gold, [run], label_sep="|")
    assert got.labels == ("2", "10", "x")              # natural order
    assert list(got.ids) == ["a", "b", "3"]
    np.testing.assert_array_equal(got.gold, [[1, 0, 1], [0, 0, 0], [0, 1, 0]])
    np.testing.assert_array_equal(got.pred[0], [[1, 0, 0], [0, 0, 0], [0, 1, 1]])


def test_labels_list_orders_and_extends_the_label_set(tmp_path):
    paths = written(tmp_path, "list", "jsonl")
    got = read(paths, labels=["trust", "joy", "anger", "fear"])
    assert got.labels == ("trust", "joy", "anger", "fear")
    np.testing.assert_array_equal(got.gold[:, :3], GOLD[:, ::-1])
    assert not got.gold[:, 3].any()


def test_missing_abstain_is_the_empty_set(tmp_path):
    gold = write(tmp_path / "gold.jsonl", '{"id": "a", "label": ["x"]}\n{"id": "b", "label": ["y"]}\n')
    run = write(tmp_path / "r.jsonl", '{"id": "b", "label": ["y", "x"]}\n')
    with raises("no prediction for gold id 'a' (gold line 1)", path=run, item="a"):
        read_multilabel(gold, [run])
    got = read_multilabel(gold, [run], missing="abstain")
    np.testing.assert_array_equal(got.pred[0], [[0, 0], [1, 1]])


def test_long_form_missing_id_is_not_the_empty_set(tmp_path):
    """An id with no row in a long-form run is missing (a cut file must not read as 'predicted nothing')."""
    gold = write(tmp_path / "gold.tsv", "id\tlabel\na\tx\na\ty\nb\t\n")
    run = write(tmp_path / "r.tsv", "id\tlabel\na\tx\n")
    with raises("no prediction for gold id 'b' (gold line 4)", path=run, item="b"):
        read_multilabel(gold, [run])
    ok = write(tmp_path / "ok.tsv", "id\tlabel\na\tx\nb\t\n")
    got = read_multilabel(gold, [ok])
    np.testing.assert_array_equal(got.gold, [[1, 1], [0, 0]])
    np.testing.assert_array_equal(got.pred[0], [[1, 0], [0, 0]])


def test_unknown_labels_are_extra_false_positive_labels(tmp_path):
    gold = write(tmp_path / "gold.jsonl", '{"id": "a", "label": ["x"]}\n{"id": "b", "label": ["y"]}\n')
    run = write(tmp_path / "r.jsonl", '{"id": "a", "label": ["x", "zz"]}\n{"id": "b", "label": ["y"]}\n')
    with raises("predicted label 'zz' is not in the label set", path=run, line=1):
        read_multilabel(gold, [run])
    with pytest.warns(UserWarning, match="1 predicted label.*'zz'.*false positives"):
        got = read_multilabel(gold, [run], allow_unknown=True)
    assert got.labels == ("x", "y", "zz")
    np.testing.assert_array_equal(got.gold[:, 2], [False, False])
    np.testing.assert_array_equal(got.pred[0], [[1, 0, 1], [0, 1, 0]])


def test_unknown_wide_column_is_named(tmp_path):
    gold = write(tmp_path / "gold.csv", "id,x,y\na,1,0\nb,0,1\n")
    run = write(tmp_path / "r.csv", "id,x,y,w\na,1,0,0\nb,0,1,1\n")
    with raises("predicted label 'w' is not in the label set", path=run, line=1):
        read_multilabel(gold, [run])


def test_empty_gold_sets(tmp_path):
    gold = write(tmp_path / "gold.jsonl", '{"id": "a", "label": ["x", "y"]}\n{"id": "b", "label": []}\n')
    run = write(tmp_path / "r.jsonl", '{"id": "a", "label": []}\n{"id": "b", "label": []}\n')
    assert not read_multilabel(gold, [run]).gold[1].any()
    with raises("item has no gold label", path=gold, line=2, item="b"):
        read_multilabel(gold, [run], allow_empty_gold=False)


# ----------------------------------------------------------------------------- errors


def test_duplicate_id_list_layout(tmp_path):
    gold = write(tmp_path / "gold.jsonl", '{"id": "a", "label": ["x"]}\n{"id": "b", "label": ["y"]}\n'
                                          '{"id": "a", "label": ["y"]}\n')
    run = write(tmp_path / "r.jsonl", '{"id": "a", "label": ["x"]}\n')
    with raises("duplicate id 'a' (first at line 1)", path=gold, line=3, item="a"):
        read_multilabel(gold, [run])


def test_duplicate_pair_long_form(tmp_path):
    gold = write(tmp_path / "gold.tsv", "id\tlabel\na\tx\nb\ty\na\ty\n")
    run = write(tmp_path / "r.tsv", "id\tlabel\na\tx\nb\ty\nb\tx\na\tx\n")
    with raises("duplicate (id, label) pair ('a', 'x') (first at line 2)", path=run, line=5, item="a"):
        read_multilabel(gold, [run])


def test_long_form_empty_row_beside_labels(tmp_path):
    gold = write(tmp_path / "gold.tsv", "id\tlabel\na\tx\na\t\nb\ty\n")
    run = write(tmp_path / "r.tsv", "id\tlabel\na\tx\nb\ty\n")
    with raises("empty label (the empty set) for an id that has labels", path=gold, line=3, item="a"):
        read_multilabel(gold, [run])


def test_run_id_not_in_gold(tmp_path):
    paths = written(tmp_path, "long", "tsv")
    bad = write(tmp_path / "bad.tsv", "id\tlabel\na\tjoy\nb\tanger\nc\t\nd\tjoy\nq\tjoy\n")
    with raises("id 'q' is not in the gold file", path=bad, line=6, item="q"):
        read_multilabel(paths["gold"], [bad])


def test_gold_label_outside_labels_list(tmp_path):
    paths = written(tmp_path, "sep", "tsv")
    with raises("gold label 'trust' is not in the labels list", path=paths["gold"], line=2, item="a"):
        read(paths, "sep", labels=["anger", "joy"])


def test_empty_label_between_separators(tmp_path):
    gold = write(tmp_path / "gold.csv", 'id,label\na,"x,y"\nb,"x,,y"\n')
    run = write(tmp_path / "r.csv", 'id,label\na,x\nb,y\n')
    with raises("empty label between separators", path=gold, line=3, item="b"):
        read_multilabel(gold, [run], label_sep=",")


def test_null_list_and_marker_labels(tmp_path):
    gold = write(tmp_path / "gold.jsonl", '{"id": "a", "label": ["x"]}\n{"id": "b", "label": null}\n')
    run = write(tmp_path / "r.jsonl", '{"id": "a", "label": ["x"]}\n')
    with raises("missing label list (null)", path=gold, line=2, item="b"):
        read_multilabel(gold, [run])
    gold2 = write(tmp_path / "gold2.jsonl", '{"id": "a", "label": ["x"]}\n{"id": "b", "label": ["NaN"]}\n')
    with raises("'NaN' is a missing-value marker", path=gold2, line=2, item="b"):
        read_multilabel(gold2, [run])


def test_wide_bad_value(tmp_path):
    gold = write(tmp_path / "gold.csv", "id,x,y\na,1,0\nb,0,2\n")
    run = write(tmp_path / "r.csv", "id,x,y\na,1,0\nb,0,1\n")
    with raises("value '2' in label column 'y'", path=gold, line=3, item="b"):
        read_multilabel(gold, [run], layout="wide")


def test_parquet_errors_name_the_row(tmp_path):
    pd.DataFrame({"id": ["a", "b"], "label": [["x"], ["y"]]}).to_parquet(tmp_path / "gold.parquet")
    pd.DataFrame({"id": ["a", "b", "b"], "label": [["x"], [], ["y"]]}).to_parquet(tmp_path / "r.parquet")
    with raises("row 3: duplicate id 'b' (first at row 2)", path=tmp_path / "r.parquet", item="b"):
        read_multilabel(tmp_path / "gold.parquet", [tmp_path / "r.parquet"])


def test_mixed_rows_in_one_jsonl_file(tmp_path):
    gold = write(tmp_path / "gold.jsonl", '{"id": "a", "label": ["x"]}\n{"id": "b", "label": "y"}\n')
    run = write(tmp_path / "r.jsonl", '{"id": "a", "label": ["x"]}\n')
    with raises("holds a list of labels on line 1 but a single label on line 2", path=gold, line=2):
        read_multilabel(gold, [run])


def test_single_label_run_beside_multilabel_gold_names_both(tmp_path):
    gold = write(tmp_path / "gold.jsonl", '{"id": "a", "label": ["x", "y"]}\n{"id": "b", "label": ["y"]}\n')
    run = write(tmp_path / "single.tsv", "id\tlabel\na\tx\nb\ty\n")
    with raises("run file", path=run) as info:
        read_multilabel(gold, [run])
    message = str(info.value)
    assert f"run file {run} holds one label per item (single-label data)" in message
    assert f"gold file {gold} is multi-label (a list of labels per item)" in message
    # beside long-form gold, the same file is the long form with one label per item
    long_gold = write(tmp_path / "gold.tsv", "id\tlabel\na\tx\na\ty\nb\ty\n")
    got = read_multilabel(long_gold, [run])
    np.testing.assert_array_equal(got.pred[0], [[1, 0], [0, 1]])
    np.testing.assert_array_equal(read_multilabel(long_gold, [run], layout="long").pred, got.pred)


def test_single_label_gold_beside_multilabel_run_names_both(tmp_path):
    gold = write(tmp_path / "gold.tsv", "id\tlabel\na\tx\nb\ty\n")
    run = write(tmp_path / "r.csv", "id,x,y\na,1,1\nb,0,1\n")
    with raises("gold file", path=gold) as info:
        read_multilabel(gold, [run])
    assert f"run file {run} is multi-label (0/1 indicator columns)" in str(info.value)


def test_list_layout_refuses_text(tmp_path):
    gold = write(tmp_path / "gold.jsonl", '{"id": "a", "label": "x"}\n{"id": "b", "label": "y"}\n')
    with raises("holds single labels", path=gold):
        read_multilabel(gold, [gold], layout="list")


def test_bad_arguments():
    with raises("missing must be"):
        read_multilabel("g.tsv", ["r.tsv"], missing="skip")
    with raises("layout must be one of list, sep, long, wide"):
        read_multilabel("g.tsv", ["r.tsv"], layout="rows")
    with raises("no run files"):
        read_multilabel("g.tsv")


# ----------------------------------------------------------------------------- detection


@pytest.mark.parametrize("layout,fmt", LAYOUT_FORMATS)
def test_detect_every_layout(tmp_path, layout, fmt):
    paths = written(tmp_path, layout, fmt)
    assert detect_multilabel(paths["gold"], label_sep="," if layout == "sep" else None) is True


def test_detect_single_label_and_undecidable(tmp_path):
    single = write(tmp_path / "single.tsv", "id\tlabel\na\tx\nb\ty\n")
    assert detect_multilabel(single) is False
    assert detect_multilabel(single, label_sep=",") is None      # a set of one reads the same
    other = write(tmp_path / "other.tsv", "id\tclass\na\tx\n")
    assert detect_multilabel(other) is None
    numbers = write(tmp_path / "scores.csv", "id,score\na,0.3\n")
    assert detect_multilabel(numbers) is None
    with raises("gold file not found"):
        detect_multilabel(tmp_path / "nope.tsv")


# ----------------------------------------------------------------------------- round trip


label_names = st.lists(st.text(alphabet=string.ascii_letters + string.digits + "_- é", min_size=1, max_size=8)
                       .map(str.strip).filter(lambda s: s and s not in ("nan", "NaN", "NAN", "null", "NULL", "Null")),
                       min_size=1, max_size=5, unique=True)


@st.composite
def tasks(draw):
    labels = draw(label_names)
    n = draw(st.integers(1, 8))
    s = draw(st.integers(1, 3))
    cells = st.lists(st.booleans(), min_size=n * len(labels), max_size=n * len(labels))
    gold = np.array(draw(cells), dtype=bool).reshape(n, len(labels))
    runs = {f"sys{k}": np.array(draw(cells), dtype=bool).reshape(n, len(labels)) for k in range(s)}
    return labels, gold, runs


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(task=tasks())
def test_round_trip_every_layout(tmp_path_factory, task):
    labels, gold, runs = task
    ids = np.array([f"i{k}" for k in range(gold.shape[0])], dtype=object)
    # a wide header holds the id column beside one column per label: the id column takes a name no label has
    id_col = next(name for name in ("id", "item", "item_id", "doc", "key", "row_id") if name not in labels)
    for layout, fmt in LAYOUT_FORMATS:
        folder = tmp_path_factory.mktemp(f"{layout}-{fmt}")
        paths = write_multilabel(gold, runs, labels, ids, folder, layout=layout, fmt=fmt, sep="|", id_col=id_col)
        got = read_multilabel(paths["gold"], list(paths["runs"].values()), labels=labels, layout=layout,
                              label_sep="|" if layout == "sep" else None, id_col=id_col)
        assert got.labels == tuple(labels), (layout, fmt)
        np.testing.assert_array_equal(got.gold, gold, err_msg=f"{layout} {fmt}")
        np.testing.assert_array_equal(got.pred, np.stack(list(runs.values())), err_msg=f"{layout} {fmt}")


def test_label_named_like_the_id_column(tmp_path):
    """A label called ``id``: every layout but ``wide`` holds it as a value; a wide header cannot hold it beside
    an id column of the same name, so the writer refuses and the reader names the header line; with the id
    column named otherwise it reads back (the case hypothesis found in CI)."""
    labels, gold, runs = ["id", "x"], np.array([[True, False], [False, True]]), {"s": np.array([[True, True],
                                                                                                [False, False]])}
    ids = np.array(["a", "b"], dtype=object)
    for layout in ("list", "sep", "long"):
        paths = write_multilabel(gold, runs, labels, ids, tmp_path / layout, layout=layout)
        got = read_multilabel(paths["gold"], list(paths["runs"].values()), labels=labels, layout=layout,
                              label_sep="," if layout == "sep" else None)
        np.testing.assert_array_equal(got.gold, gold)
    with pytest.raises(ValueError, match="named 'id' like the id column"):
        write_multilabel(gold, runs, labels, ids, tmp_path / "wide", layout="wide")
    bad = write(tmp_path / "bad.csv", "id,id,x\na,1,0\nb,0,1\n")
    with raises("column 'id' appears twice in the header", path=bad, line=1):
        read_multilabel(bad, [bad], labels=labels)
    paths = write_multilabel(gold, runs, labels, ids, tmp_path / "wide", layout="wide", id_col="item")
    got = read_multilabel(paths["gold"], list(paths["runs"].values()), labels=labels, id_col="item")
    np.testing.assert_array_equal(got.gold, gold)
    np.testing.assert_array_equal(got.pred[0], runs["s"])


def test_demo_data_is_deterministic_and_reads_back(tmp_path):
    from evalreport.examples import multilabel_demo_data

    demo = multilabel_demo_data(n_systems=3, n_labels=5, n_items=300, seed=1)
    again = multilabel_demo_data(n_systems=3, n_labels=5, n_items=300, seed=1)
    assert demo.labels == again.labels and list(demo.runs) == list(again.runs)
    for name in demo.runs:
        np.testing.assert_array_equal(demo.runs[name], again.runs[name])
    assert demo.gold.shape == (300, 5) and demo.gold.dtype == bool
    assert 1.5 < demo.gold.sum(axis=1).mean() < 4.5          # make_multilabel_classification(n_labels=3)
    paths = demo.write(tmp_path, layout="long")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = read_multilabel(paths["gold"], runs_dir=paths["runs_dir"], labels=demo.labels)
    for name in demo.runs:
        np.testing.assert_array_equal(got.pred[got.systems.index(name)], demo.runs[name])
    assert set(LAYOUTS) == {"list", "sep", "long", "wide"}


def test_wide_gold_column_outside_labels_list_names_the_header(tmp_path):
    gold = write(tmp_path / "gold.csv", "id,x,y\na,1,0\nb,0,1\n")
    with raises("gold label 'y' is not in the labels list", path=gold, line=1):
        read_multilabel(gold, [gold], labels=["x"])


def test_too_many_indicator_cells(tmp_path, monkeypatch):
    import evalreport.inputs.multilabel as ml

    paths = written(tmp_path, "list", "jsonl")
    monkeypatch.setattr(ml, "MAX_INDICATOR_CELLS", 2 * 4 * 3 - 1)
    with raises("2 systems x 4 items x 3 labels = 24 indicator cells"):
        read(paths)


@pytest.mark.parametrize("layout,fmt", LAYOUT_FORMATS)
def test_quick_detection_agrees_with_reading_the_whole_file(tmp_path, layout, fmt):
    """Without --label-sep and the long form, the CLI decides from the schema, header or first record
    (single-label files are not read twice): the answer is the full reader's, the long form aside."""
    gold = written(tmp_path, layout, fmt)["gold"]
    full = detect_multilabel(gold, label_sep="," if layout == "sep" else None)
    quick = detect_multilabel(gold, long_form=False)
    if layout == "long":
        assert full is True and quick is False
    elif layout == "sep":
        assert full is True and quick is False        # a separator is only looked for when it is given
    else:
        assert quick is full is True


@pytest.mark.parametrize("suffix", [".tsv", ".csv", ".jsonl", ".parquet"])
def test_quick_detection_of_single_label_files(tmp_path, suffix):
    frame = pd.DataFrame({"id": ["a", "b", "a"], "label": ["x", "y", "x"]})
    path = tmp_path / f"gold{suffix}"
    if suffix == ".parquet":
        frame.to_parquet(path)
    elif suffix == ".jsonl":
        frame.to_json(path, orient="records", lines=True)
    else:
        frame.to_csv(path, sep="\t" if suffix == ".tsv" else ",", index=False)
    assert detect_multilabel(path, long_form=False) is False      # a repeated id is not taken as sets
    assert detect_multilabel(path) is True                          # ... unless the long form is allowed
