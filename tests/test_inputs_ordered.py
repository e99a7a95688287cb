"""Runs in gold order read the cheap way give what the general path gives: the same Runs,
the same message.

Three shortcuts of :func:`evalreport.inputs.read_runs` are compared with the path they skip: a run whose
id column equals the gold's as read (one Arrow comparison instead of trimming and aligning), a Parquet
run that stores the gold's id column byte for byte (not decoded at all,
:mod:`evalreport.inputs.parquet_ids`), and labels mapped to class codes straight from the column's
dictionary (:meth:`evalreport.inputs.tables.Table.codes`). Also here: ``hash_files=False``.
"""
from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from test_inputs_align import _outcome, _write as write_file  # the same writer and reader as the align tests

from evalreport.inputs import align, read_runs, readers, tables
from evalreport.inputs.checks import hash_file
from evalreport.inputs.parquet_ids import GoldIdColumn

SETTINGS = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def _write(path, ids, labels, fmt, **parquet):
    """test_inputs_align's writer, Parquet in pyarrow's default row groups unless ``parquet`` says otherwise."""
    return write_file(path, ids, labels, fmt, **{"row_group_size": None, **parquet})


def _general_path(monkeypatch):
    """Every shortcut off: ids trimmed and aligned by index_in, labels through their distinct values."""
    monkeypatch.setattr(readers, "_same_column", lambda raw, gold: False)
    monkeypatch.setattr(GoldIdColumn, "of", classmethod(lambda cls, *a: None))
    monkeypatch.setattr(tables.Table, "codes", lambda self, *a: None)
    monkeypatch.setattr(align.IdIndex, "build", classmethod(lambda cls, ids: None))


@SETTINGS
@pytest.mark.filterwarnings("ignore:.*occur only in predictions")
@given(n=st.integers(2, 30), fmt=st.sampled_from(["tsv", "csv", "parquet"]), data=st.data())
def test_ordered_shortcuts_agree_with_the_general_path(tmp_path_factory, monkeypatch, n, fmt, data):
    """Runs in gold order written alike or otherwise (other compression or row groups, ids with spaces
    around them), with unknown labels, missing-value markers and a duplicate or a shuffled run among
    them: the same Runs (hashes included) or the same message."""
    folder = tmp_path_factory.mktemp("ordered")
    rng = np.random.default_rng(data.draw(st.integers(0, 2 ** 32 - 1)))
    ids = [f"doc{k}" for k in rng.permutation(n)]
    gold_labels = ["a", "b"] + [str(x) for x in rng.choice(["a", "b", " c"], n - 2)]
    gold = _write(folder / f"gold.{fmt}", ids, gold_labels, fmt)
    runs = []
    for s in range(3):
        rows = list(ids)
        how = data.draw(st.sampled_from(["alike", "alike", "other writer", "spaces", "shuffled", "duplicate"]))
        parquet = {}
        if how == "other writer":
            parquet = {"compression": "gzip", "row_group_size": 4}
        elif how == "spaces" and fmt != "parquet":
            rows = [f" {i} " for i in rows]
        elif how == "spaces":
            parquet = {"use_dictionary": False}
        elif how == "shuffled":
            rows = [rows[k] for k in rng.permutation(n)]
        elif how == "duplicate":
            rows[-1] = rows[0]
        labels = [str(x) for x in rng.choice(["a", " b", "c ", "b"], n)]
        odd = data.draw(st.sampled_from([None, None, "stranger", "NaN", "", "c"]))
        if odd is not None:
            labels[int(rng.integers(n))] = odd
        runs.append(_write(folder / f"run{s}.{fmt}", rows, labels, fmt, **parquet))
    kw = dict(missing=data.draw(st.sampled_from(["error", "abstain"])), allow_unknown=data.draw(st.booleans()))
    fast = _outcome(gold, runs, **kw)
    _general_path(monkeypatch)
    general = _outcome(gold, runs, **kw)
    monkeypatch.undo()
    assert fast == general


def test_parquet_run_storing_the_gold_ids_is_not_decoded(tmp_path):
    ids = [f"doc{k}" for k in range(1000)]
    gold = _write(tmp_path / "gold.parquet", ids, ["a", "b"] * 500, "parquet", row_group_size=300)
    alike = _write(tmp_path / "alike.parquet", ids, ["b", "a"] * 500, "parquet", row_group_size=300)
    renamed = tmp_path / "renamed.parquet"
    pq.write_table(pa.table({"key": pa.array(ids, pa.string()), "label": ["a"] * 1000}), renamed, row_group_size=300)
    other = {"gzip": dict(compression="gzip", row_group_size=300), "groups": dict(row_group_size=400)}
    g, _ = tables.read_table(gold, "gold", id_col="id", dictionary=("label",))
    ref = GoldIdColumn.of(gold, "id", g.columns["id"])
    assert ref.stored_in(alike, "id") and ref.stored_in(renamed, "key") and ref.stored_in(gold, "id")
    for name, kw in other.items():
        assert not ref.stored_in(_write(tmp_path / f"{name}.parquet", ids, ["a"] * 1000, "parquet", **kw), "id")
    wide = tmp_path / "large.parquet"          # the same values as large_string: another Arrow type
    pq.write_table(pa.table({"id": pa.array(ids, pa.large_string()), "label": ["a"] * 1000}), wide, row_group_size=300)
    assert not ref.stored_in(wide, "id")
    changed = _write(tmp_path / "changed.parquet", ids[:-1] + ["doc9999"], ["a"] * 1000, "parquet", row_group_size=300)
    assert not ref.stored_in(changed, "id")
    run, _ = tables.read_table(alike, "run", id_col="id", dictionary=("label",), same_ids=ref)
    assert run.columns["id"] is ref.array and run.n_rows == 1000
    assert run.labels("label")[1] == ["b", "a"]


def test_codes_equal_labels_through_the_class_index(tmp_path):
    labels = [" b", "a", "c ", "a", "\u3000b"] * 4
    path = _write(tmp_path / "r.parquet", [str(k) for k in range(20)], labels, "parquet", row_group_size=3)
    table, _ = tables.read_table(path, "run", dictionary=("label",))
    index = {"a": 0, "b": 1, "c": 2}
    local, uniques = table.labels("label")
    expected = np.array([index[u] for u in uniques])[local]
    np.testing.assert_array_equal(table.codes("label", index, np.int8), expected)
    assert table.codes("label", {"a": 0, "b": 1}, np.int8) is None        # "c" is unknown: labels() says so
    plain, _ = tables.read_table(path, "run")
    assert plain.codes("label", index, np.int8) is None                   # not dictionary-encoded


def test_hash_files_false_leaves_the_hashes_empty(tmp_path):
    ids = [f"i{k}" for k in range(50)]
    gold = _write(tmp_path / "gold.tsv", ids, ["a", "b"] * 25, "tsv")
    run = _write(tmp_path / "r.tsv", ids, ["b", "a"] * 25, "tsv")
    hashed, plain = read_runs(gold, [run]), read_runs(gold, [run], hash_files=False)
    assert [s.sha256 for s in hashed.sources] == [hash_file(gold), hash_file(run)]
    assert [s.sha256 for s in plain.sources] == ["", ""]
    np.testing.assert_array_equal(hashed.pred, plain.pred)
