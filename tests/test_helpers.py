"""The shared test helpers of conftest.py: runs made in memory equal the runs read back from the
files the helpers write, and the random runs have the shape and the accuracy asked for."""
from __future__ import annotations

import numpy as np
import pytest
from conftest import (
    correlated_runs,
    make_runs,
    random_runs,
    write_labels,
    write_run_files,
    write_runs,
)

from evalreport.inputs import read_runs


def test_names_and_codes_make_the_same_runs():
    by_name = make_runs(list("abca"), {"x": list("abbb"), "y": list("cccc")}, ("a", "b", "c"))
    by_code = make_runs([0, 1, 2, 0], [[0, 1, 1, 1], [2, 2, 2, 2]], systems=("x", "y"))
    assert by_name.labels == by_code.labels == ("a", "b", "c") and by_name.systems == ("x", "y")
    np.testing.assert_array_equal(by_name.gold, by_code.gold)
    np.testing.assert_array_equal(by_name.pred, by_code.pred)


@pytest.mark.parametrize("fmt", ["tsv", "csv"])
def test_written_runs_read_back_as_the_same_runs(tmp_path, fmt):
    runs = random_runs(3, n_items=40, n_systems=3, n_classes=4)
    gold, paths = write_runs(tmp_path, runs, fmt=fmt, runs_dir="runs")
    assert gold.name == f"gold.{fmt}" and [p.name for p in paths] == [f"s{i}.{fmt}" for i in range(3)]
    back = read_runs(gold, paths)
    assert back.systems == runs.systems and set(back.labels) == set(runs.labels)
    names = np.asarray(runs.labels)
    np.testing.assert_array_equal(np.asarray(back.labels)[back.gold], names[runs.gold])
    np.testing.assert_array_equal(np.asarray(back.labels)[back.pred], names[runs.pred])


def test_file_text_is_exact(tmp_path):
    assert write_labels(tmp_path / "a.tsv", "xy").read_bytes() == b"id\tlabel\ni0\tx\ni1\ty\n"
    gold, (run,) = write_run_files(tmp_path / "b", "xy", {"r": "yy"}, ids=[7, 8], fmt="csv", header=("item", "y"))
    assert gold.read_bytes() == b"item,y\n7,x\n8,y\n" and run.read_bytes() == b"item,y\n7,y\n8,y\n"


def test_random_runs_have_the_shape_folds_and_accuracy_asked_for():
    runs = random_runs(0, n_items=4000, n_systems=2, n_classes=3, accuracy=0.6, folds=4, dtype=np.int8)
    assert runs.pred.shape == (2, 4000) and runs.gold.dtype == np.int8 and runs.fold_names == ("f0", "f1", "f2", "f3")
    # right with probability 0.6, plus 1/3 of the other 0.4 by chance
    assert np.allclose((runs.pred == runs.gold).mean(axis=1), 0.6 + 0.4 / 3, atol=0.03)


def test_correlated_runs_share_their_errors_and_keep_their_accuracies():
    runs = correlated_runs(1, n_items=5000, accuracy=[0.8, 0.8], shared=0.9)
    right = runs.pred == runs.gold
    assert np.allclose(right.mean(axis=1), 0.8, atol=0.03)
    both_wrong = (~right[0] & ~right[1]).mean()
    assert both_wrong > 0.2 ** 2 + 0.05          # errors on the same items: far above independent errors
    independent = correlated_runs(1, n_items=5000, accuracy=[0.8, 0.8], shared=0.0)
    wrong = independent.pred != independent.gold
    assert abs((wrong[0] & wrong[1]).mean() - 0.2 ** 2) < 0.02
