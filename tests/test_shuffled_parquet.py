"""Run files whose ids come in another order than the gold's: the same counts as the files in gold order.

The shuffled path aligns ids in the reading threads (:class:`evalreport.inputs.readers._Prealign`, the
hash index of :mod:`evalreport.inputs.align`); the plain path is a run in the gold order. Both must give
the same codes, the same confusion tensors and the same messages for a bad run.
"""
from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from evalreport.counts import Counts
from evalreport.errors import InputError
from evalreport.inputs.readers import read_runs

N = 300_001          # more ids than one window of the index's probe (2 ** 18): several windows per run
K = 4


def _write(path, ids, labels, order):
    pq.write_table(pa.table({"id": ids.take(pa.array(order)), "label": labels.take(pa.array(order))}), path)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("shuffled")
    rng = np.random.default_rng(30)
    ids = pa.array([f"item-{k}" for k in range(N)])
    names = pa.array([f"c{k}" for k in range(K)])
    gold = rng.integers(0, K, N)
    out = {"plain": [], "shuffled": []}
    _write(tmp / "gold.parquet", ids, names.take(pa.array(gold)), np.arange(N))
    for s in range(5):
        pred = np.where(rng.random(N) < 0.6 + 0.05 * s, gold, rng.integers(0, K, N))
        labels = names.take(pa.array(pred))
        for kind, order in (("plain", np.arange(N)), ("shuffled", rng.permutation(N))):
            (tmp / kind).mkdir(exist_ok=True)
            path = tmp / kind / f"sys{s}.parquet"
            _write(path, ids, labels, order)
            out[kind].append(path)
    return tmp / "gold.parquet", out, gold


def test_shuffled_parquet_counts_equal_plain(files):
    gold_path, runs, gold = files
    plain = read_runs(gold_path, runs["plain"], hash_files=False)
    shuffled = read_runs(gold_path, runs["shuffled"], hash_files=False)
    np.testing.assert_array_equal(plain.gold, shuffled.gold)
    np.testing.assert_array_equal(plain.pred, shuffled.pred)
    a, b = Counts.from_runs(plain), Counts.from_runs(shuffled)
    np.testing.assert_array_equal(a.tensor, b.tensor)
    # and against a count written out by hand: the gold row sums are the gold labels' frequencies
    np.testing.assert_array_equal(b.tensor.sum(axis=2)[0], np.bincount(gold, minlength=K))


def test_shuffled_parquet_mixed_with_plain_runs(files):
    gold_path, runs, _ = files
    mixed = [runs["plain"][0], runs["shuffled"][1], runs["plain"][2], runs["shuffled"][3]]
    got = read_runs(gold_path, mixed, hash_files=False, names=["a", "b", "c", "d"])
    want = read_runs(gold_path, [runs["plain"][k] for k in range(4)], hash_files=False, names=["a", "b", "c", "d"])
    np.testing.assert_array_equal(got.pred, want.pred)


def test_shuffled_run_with_a_repeated_id_is_refused_as_before(files, tmp_path):
    gold_path, runs, _ = files
    table = pq.read_table(runs["shuffled"][0])
    ids = table.column("id").to_pylist()
    ids[-1] = ids[0]                      # the last row repeats the first row's id; one gold id is gone
    bad = tmp_path / "bad.parquet"
    pq.write_table(table.set_column(0, "id", pa.array(ids)), bad)
    with pytest.raises(InputError, match=r"duplicate id .*first at row 1"):
        read_runs(gold_path, [runs["shuffled"][1], bad], hash_files=False)
