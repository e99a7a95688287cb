"""Out-of-core counting (evalreport.counts.bigdata): DuckDB and Spark give exactly the counts of
the in-memory reader, validation errors name the problem, and a file larger than the memory a
process may use is counted through DuckDB."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
import time

import numpy as np
import pyarrow as pa
import pyarrow.compute  # noqa: F401  (pa.compute)
import pyarrow.csv as pa_csv
import pyarrow.parquet as pq
import pytest
from conftest import write_rows

from evalreport.counts import count
from evalreport.counts.bigdata import ENGINES, PatternCounts, count_confusions, count_patterns
from evalreport.errors import InputError
from evalreport.inputs import read_runs

duckdb = pytest.importorskip("duckdb")


# ----------------------------------------------------------------------------- data


def make_dataset(tmp, *, seed=7, n_items=600, n_systems=4, classes=("neg", "neu", "pos", "x10", "x2"),
                 n_folds=3, shuffle=True):
    """Gold + long runs (CSV and Parquet) and the same predictions as one TSV file per system."""
    rng = np.random.default_rng(seed)
    K = len(classes)
    ids = np.array([f"doc{i:05d}" for i in rng.permutation(n_items)], dtype=object)
    gold = rng.integers(0, K, n_items)
    folds = rng.integers(0, n_folds, n_items)
    systems = [f"sys{k}" for k in (1, 2, 10, 3, 7, 11)[:n_systems]]
    pred = np.where(rng.random((n_systems, n_items)) < 0.6, gold, rng.integers(0, K, (n_systems, n_items)))
    labels = np.array(classes, dtype=object)
    gold_table = pa.table({"id": ids, "label": labels[gold], "fold": np.array([f"f{f}" for f in folds], dtype=object)})
    long = pa.table({"system": np.repeat(np.array(systems, dtype=object), n_items),
                     "id": np.tile(ids, n_systems), "label": labels[pred].ravel()})
    if shuffle:
        long = long.take(rng.permutation(long.num_rows))
    paths = {"gold_csv": tmp / "gold.csv", "gold_parquet": tmp / "gold.parquet",
             "runs_csv": tmp / "runs.csv", "runs_parquet": tmp / "runs.parquet", "runs_dir": tmp / "per_system"}
    pa_csv.write_csv(gold_table, paths["gold_csv"])
    pq.write_table(gold_table, paths["gold_parquet"])
    pa_csv.write_csv(long, paths["runs_csv"])
    pq.write_table(long, paths["runs_parquet"])
    paths["runs_dir"].mkdir()
    for s, name in enumerate(systems):
        order = rng.permutation(n_items)
        one = pa.table({"id": ids[order], "label": labels[pred[s]][order]})
        pa_csv.write_csv(one, paths["runs_dir"] / f"{name}.tsv", pa_csv.WriteOptions(delimiter="\t"))
    paths["systems"] = systems
    paths["gold_codes"], paths["pred_codes"], paths["folds"] = gold, pred, folds
    return paths


def in_memory(paths, **kw):
    names = paths["systems"]
    files = [paths["runs_dir"] / f"{n}.tsv" for n in sorted(names, key=lambda n: int(n[3:]))]
    return read_runs(paths["gold_csv"], files, **kw)


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    return make_dataset(tmp_path_factory.mktemp("bigdata"))


# ----------------------------------------------------------------------------- DuckDB = in-memory


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_duckdb_counts_equal_in_memory_counts(data, fmt):
    expected = count(in_memory(data))
    got = count_confusions(data[f"gold_{fmt}"], data[f"runs_{fmt}"])
    assert got.labels == expected.labels
    assert got.systems == expected.systems == ("sys1", "sys2", "sys3", "sys10")   # natural order
    assert got.tensor.dtype == np.int64
    np.testing.assert_array_equal(got.tensor, expected.tensor)


def test_duckdb_per_fold_counts_equal_in_memory(data):
    expected = count(in_memory(data), per_fold=True)
    got = count_confusions(data["gold_parquet"], data["runs_csv"], per_fold=True)
    assert got.fold_names == expected.fold_names == ("f0", "f1", "f2")
    np.testing.assert_array_equal(got.tensor, expected.tensor)
    np.testing.assert_array_equal(got.pooled().tensor, expected.pooled().tensor)


def test_label_list_and_system_selection(data):
    labels = ["pos", "neg", "neu", "x2", "x10", "unused"]
    expected = count(in_memory(data, labels=labels)).select(["sys10", "sys1"])
    got = count_confusions(data["gold_csv"], data["runs_parquet"], labels=labels, systems=["sys10", "sys1"])
    assert got.labels == tuple(labels) and got.systems == ("sys10", "sys1")
    np.testing.assert_array_equal(got.tensor, expected.tensor)


def test_patterns_are_the_joint_distribution(data):
    pat = count_patterns(data["gold_parquet"], data["runs_parquet"])
    assert isinstance(pat, PatternCounts)
    assert pat.patterns.shape == (pat.n_patterns, 1 + len(data["systems"]))
    assert pat.n_items == len(data["gold_codes"])
    # independent reference: unique rows of (fold, gold, pred of sys1, sys2, sys3, sys7)
    order = [data["systems"].index(s) for s in pat.systems]
    rows = np.column_stack([data["folds"], data["gold_codes"], data["pred_codes"][order].T])
    uniq, counts = np.unique(rows, axis=0, return_counts=True)
    # class codes: the file labels are natural-sorted neg, neu, pos, x2, x10 (x10 after x2)
    remap = np.array([0, 1, 2, 4, 3])              # generator's index -> code in pat.labels
    assert pat.labels == ("neg", "neu", "pos", "x2", "x10")
    got = np.column_stack([pat.folds, pat.patterns])
    want = np.column_stack([uniq[:, 0], remap[uniq[:, 1:]]])
    key = np.lexsort(want.T[::-1])
    want, counts = want[key], counts[key]
    key = np.lexsort(got.T[::-1])
    np.testing.assert_array_equal(got[key], want)
    np.testing.assert_array_equal(pat.counts[key], counts)
    # the patterns reproduce the counts, and expand back into Runs with the same confusions
    np.testing.assert_array_equal(pat.confusion().tensor, count(in_memory(data)).tensor)
    np.testing.assert_array_equal(count(pat.to_runs(), per_fold=True).tensor,
                                  count(in_memory(data), per_fold=True).tensor)


def test_patterns_feed_the_paired_bootstrap(data):
    """The expanded patterns give the paired bootstrap the same joint distribution as the items."""
    resampling = pytest.importorskip("evalreport.analyses.resampling")
    pat = count_patterns(data["gold_csv"], data["runs_csv"])
    mine = resampling.patterns(pat.to_runs())
    theirs = resampling.patterns(in_memory(data))
    assert sorted(mine.counts.tolist()) == sorted(theirs.counts.tolist())
    a = resampling.bootstrap(pat.to_runs(), ["accuracy", "macro_f1"], n_resamples=30, seed=1).intervals
    b = resampling.bootstrap(in_memory(data), ["accuracy", "macro_f1"], n_resamples=30, seed=1).intervals
    np.testing.assert_allclose(a["value"].to_numpy(), b["value"].to_numpy())


# ----------------------------------------------------------------------------- validation

LONG = ("system", "id", "label")                 # the columns of a long runs table


@pytest.fixture
def small(tmp_path):
    gold = tmp_path / "gold.csv"
    gold.write_text("id,label\n1,a\n2,b\n3,a\n4,b\n")
    return tmp_path, gold


def test_missing_predictions_error_or_abstain(small):
    tmp, gold = small
    runs = write_rows(tmp / "runs.csv", [("A", 1, "a"), ("A", 2, "b"), ("A", 3, "b"), ("A", 4, "b"),
                                         ("B", 1, "a"), ("B", 3, "a")], LONG, sep=",")
    with pytest.raises(InputError, match=r"system 'B' has no prediction for gold id .*2 of 4 gold ids are missing"):
        count_confusions(gold, runs)
    got = count_confusions(gold, runs, missing="abstain")
    assert got.labels == ("a", "b", "<abstain>")
    np.testing.assert_array_equal(got.tensor[1], [[2, 0, 0], [0, 0, 2], [0, 0, 0]])
    np.testing.assert_array_equal(got.tensor[0], [[1, 1, 0], [0, 2, 0], [0, 0, 0]])
    pat = count_patterns(gold, runs, missing="abstain")
    np.testing.assert_array_equal(pat.confusion().tensor, got.tensor)
    assert pat.counts.sum() == 4


def test_unknown_ids_duplicates_and_unknown_labels(small):
    tmp, gold = small
    good = [("A", i, "a") for i in range(1, 5)]
    runs = write_rows(tmp / "u.csv", good + [("A", 9, "a")], LONG, sep=",")
    with pytest.raises(InputError, match=r"1 run row\(s\) have ids that are not in the gold table.*id '9'"):
        count_confusions(gold, runs)
    runs = write_rows(tmp / "d.csv", good + [("A", 2, "b")], LONG, sep=",")
    with pytest.raises(InputError, match=r"duplicate run rows.*system 'A', id '2' appears 2 times"):
        count_confusions(gold, runs)
    # as many rows as gold items, but id 2 twice and id 3 never: caught by the id-hash sum
    runs = write_rows(tmp / "h.csv", [("A", 1, "a"), ("A", 2, "a"), ("A", 2, "a"), ("A", 4, "b")], LONG, sep=",")
    with pytest.raises(InputError, match=r"duplicate run rows.*id '2' appears 2 times"):
        count_confusions(gold, runs, missing="abstain")
    runs = write_rows(tmp / "l.csv", good[:3] + [("A", 4, "zebra")], LONG, sep=",")
    with pytest.raises(InputError, match=r"predicted label\(s\) are not classes.*'zebra'.*id '4'"):
        count_patterns(gold, runs)
    got = count_confusions(gold, runs, allow_unknown=True)
    assert got.labels == ("a", "b", "zebra")
    assert got.tensor[0, 1, 2] == 1
    dup_gold = tmp / "g2.csv"
    dup_gold.write_text("id,label\n1,a\n1,b\n")
    with pytest.raises(InputError, match=r"duplicate gold row.*id '1' appears 2 times"):
        count_confusions(dup_gold, runs)
    no_label = write_rows(tmp / "n.csv", [(1, "a")], ("id", "guess"), sep=",")
    with pytest.raises(InputError, match=r"missing columns 'system', 'label'"):
        count_confusions(gold, no_label)
    with pytest.raises(InputError, match="engine must be one of"):
        count_confusions(gold, runs, engine="sqlite")
    with pytest.raises(InputError, match="not found"):
        count_confusions(tmp / "nope.parquet", runs)


def test_numeric_labels_and_ids_compare_as_text(tmp_path):
    """Parquet with integer ids / float labels in the runs and text in the gold table: labels are
    read as text (1.0 -> '1', as the in-memory reader does), ids joined as text."""
    gold = tmp_path / "gold.csv"
    gold.write_text("id,label\n1,0\n2,1\n3,1\n")
    pq.write_table(pa.table({"system": ["s", "s", "s"], "id": [3, 1, 2], "label": [1.0, 1.0, 0.0]}),
                   tmp_path / "runs.parquet")
    got = count_confusions(gold, tmp_path / "runs.parquet")
    assert got.labels == ("0", "1")
    np.testing.assert_array_equal(got.tensor[0], [[0, 1], [1, 1]])


# ----------------------------------------------------------------------------- Spark


def _spark_unavailable() -> str | None:
    try:
        import pyspark  # noqa: F401
    except ImportError:
        return "pyspark is not installed (pip install 'evalreport[spark]')"
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        return "Java is not on this machine (Spark needs a JVM)"
    return None


@pytest.mark.slow
@pytest.mark.skipif(_spark_unavailable() is not None, reason=str(_spark_unavailable()))
def test_spark_gives_the_same_counts_and_patterns(data):
    assert "spark" in ENGINES
    started = time.perf_counter()
    expected = in_memory(data)
    got = count_confusions(data["gold_parquet"], data["runs_csv"], engine="spark", per_fold=True)
    assert got.systems == expected.systems and got.labels == expected.labels
    np.testing.assert_array_equal(got.tensor, count(expected, per_fold=True).tensor)
    pat_spark = count_patterns(data["gold_csv"], data["runs_parquet"], engine="spark")
    pat_duck = count_patterns(data["gold_csv"], data["runs_parquet"])
    np.testing.assert_array_equal(pat_spark.patterns, pat_duck.patterns)
    np.testing.assert_array_equal(pat_spark.counts, pat_duck.counts)
    np.testing.assert_array_equal(pat_spark.folds, pat_duck.folds)
    print(f"spark path: {time.perf_counter() - started:.1f} s")


# ----------------------------------------------------------------------------- larger than memory

# The child imports everything first, then may map at most BUDGET more bytes of address space than
# it has at that point (so the limit does not depend on how much the libraries themselves map on a
# given machine); DuckDB gets a memory_limit of 300MB and spills to disk.
BUDGET = 1024 * 2**20
CHILD = textwrap.dedent("""
    import json, re, resource, sys
    import pyarrow, pyarrow.parquet, pandas as pd
    from evalreport.counts.bigdata import count_confusions
    pyarrow.set_cpu_count(2); pyarrow.set_io_thread_count(2)
    mapped = int(re.search(r"VmSize:\\s+(\\d+)", open("/proc/self/status").read()).group(1)) * 1024
    limit = mapped + {budget}
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    print(json.dumps({{"limited": True, "mapped_before": mapped}}), flush=True)
    mode, gold, runs = sys.argv[1:4]
    if mode == "pandas":
        try:
            frame = pd.read_parquet(runs)
            print(json.dumps({{"ok": True, "rows": len(frame)}}))
        except MemoryError as exc:
            print(json.dumps({{"ok": False, "error": type(exc).__name__}}))
        except Exception as exc:   # pyarrow's ArrowMemoryError / OSError on a failed allocation
            print(json.dumps({{"ok": False, "error": type(exc).__name__ + ": " + str(exc)[:200]}}))
    else:
        counts = count_confusions(gold, runs, memory_limit="300MB", threads=2, temp_directory=sys.argv[4])
        print(json.dumps({{"ok": True, "tensor": counts.tensor.tolist(), "systems": counts.systems,
                          "labels": counts.labels}}))
""").format(budget=BUDGET)
# Thread pools sized by the host's CPU count (not the container's), each thread with its own malloc
# arena, could reserve the budget alone: CI once died of "cannot allocate memory for thread-local data".
CHILD_THREADS = {name: "2" for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS",
                                        "MALLOC_ARENA_MAX")}


def test_file_larger_than_the_memory_limit_is_counted_through_duckdb(tmp_path):
    """A Parquet file whose decoded size exceeds the child's address-space limit: pandas fails in
    that child, DuckDB (memory_limit 300MB, spilling to disk) counts it exactly."""
    rng = np.random.default_rng(3)
    n_items, n_systems, K = 500_000, 44, 4
    prefix = "https://corpus.example.org/documents/2024/item-"    # realistic long ids (URLs)
    ids = pa.array(np.char.add(prefix, np.arange(n_items).astype("U7")).astype(object), pa.string())
    gold = rng.integers(0, K, n_items).astype(np.int8)
    pred = np.where(rng.random((n_systems, n_items)) < 0.7, gold, rng.integers(0, K, (n_systems, n_items))).astype(np.int8)
    names = pa.array([f"c{k}" for k in range(K)])
    systems = pa.array([f"system-{s:02d}" for s in range(n_systems)])
    gold_path, runs_path = tmp_path / "gold.parquet", tmp_path / "runs.parquet"
    pq.write_table(pa.table({"id": ids, "label": names.take(pa.array(gold))}), gold_path)
    with pq.ParquetWriter(runs_path, pa.schema([("system", pa.string()), ("id", pa.string()),
                                                ("label", pa.string())])) as writer:
        for s in range(n_systems):       # plain (not dictionary) string columns when read back
            writer.write_table(pa.table({"system": systems.take(pa.array(np.full(n_items, s))),
                                         "id": ids, "label": names.take(pa.array(pred[s]))}))
    # decoded in Arrow: the bytes of every string plus a 4-byte offset per value and column
    id_bytes = int(pa.compute.sum(pa.compute.binary_length(ids)).as_py())
    decoded = n_systems * (id_bytes + n_items * (len("system-00") + len("c0") + 3 * 4))
    assert decoded > BUDGET, "the test file must be larger than the child's memory budget"
    assert runs_path.stat().st_size < BUDGET / 8       # while the file on disk is small (~113 MB)

    env = {**os.environ, **CHILD_THREADS, "PYTHONPATH": os.pathsep.join(sys.path)}

    def child(mode):
        out = subprocess.run([sys.executable, "-c", CHILD, mode, str(gold_path), str(runs_path), str(tmp_path / "spill")],
                             capture_output=True, text=True, timeout=120, env=env)
        lines = [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]
        assert lines and lines[0].get("limited"), f"the child failed before the limit was set: {out.stderr[-2000:]}"
        return out, lines[1:]

    out, lines = child("pandas")
    # pandas fails under the budget: a caught allocation error, or the process dies of it
    assert (lines and lines[-1]["ok"] is False) or (out.returncode != 0 and "memory" in out.stderr.lower()), \
        "reading the file fully should not fit in the budget"
    out, lines = child("duckdb")
    assert out.returncode == 0 and lines, out.stderr[-2000:]
    result = lines[-1]
    assert result["ok"] and result["systems"] == [f"system-{s:02d}" for s in range(n_systems)]
    flat = (gold.astype(np.int64) * K)[None, :] + pred + (np.arange(n_systems) * K * K)[:, None]
    expected = np.bincount(flat.ravel(), minlength=n_systems * K * K).reshape(n_systems, K, K)
    np.testing.assert_array_equal(np.array(result["tensor"]), expected)
