"""The fast input path gives what the exact path gives: the same Runs, the same message.

The fast path aligns ids with one hash index of the gold ids (:mod:`evalreport.inputs.align`),
reads Parquet/TSV label columns dictionary-encoded, skips trimming when no value has whitespace at
its ends and decides "one record per line" by counting line feeds. Each is compared here with the
path it replaces: ``pyarrow.compute.index_in``, ``dictionary_encode`` of the trimmed text,
``utf8_trim_whitespace`` and the line numbers of every row.
"""
from __future__ import annotations

import re
import string

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pa_csv
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from evalreport.errors import InputError
from evalreport.inputs import align, read_runs
from evalreport.inputs.align import IdIndex
from evalreport.inputs.lines import data_line_numbers, last_line_if_one_per_line
from evalreport.inputs.runs import ItemIds, Runs
from evalreport.inputs.tables import _may_need_trim, read_table, to_text

# ids of every length around the word boundaries, with non-ASCII letters and a NUL byte (Parquet holds any text)
ID_TEXT = st.text(alphabet=string.ascii_letters + string.digits + "_-é\u00a0中\x00", min_size=0, max_size=20)
LONG_ID = st.text(alphabet="xy", min_size=60, max_size=70)
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def exact_positions(ids: list[str], gold: list[str]):
    """What the exact path finds: gold position per id, or None when some id is no gold id."""
    pos = pc.index_in(pa.array(ids, pa.large_string()), value_set=pa.array(gold, pa.large_string()))
    return None if pos.null_count else pos.to_numpy(zero_copy_only=False)


# ----------------------------------------------------------------------------- IdIndex


@SETTINGS
@given(gold=st.lists(st.one_of(ID_TEXT, LONG_ID), min_size=1, max_size=300), data=st.data())
def test_index_agrees_with_index_in(gold, data):
    index = IdIndex.build(pa.array(gold, pa.large_string()))
    if len(set(gold)) < len(gold):
        assert index is None                       # a duplicate gold id never builds
        return
    if index is None:                              # only ids over 64 bytes turn the fast path off
        assert max(len(g.encode()) for g in gold) > 8 * align.MAX_WORDS
        return
    some = data.draw(st.lists(st.sampled_from(gold), max_size=400))           # repeats allowed
    extra = data.draw(st.lists(ID_TEXT, max_size=3))
    ids = data.draw(st.permutations(some + extra))
    got = index.positions(pa.array(ids, pa.large_string()))
    want = exact_positions(ids, gold)
    if want is None:
        assert got is None
    else:
        np.testing.assert_array_equal(got, want)


@SETTINGS
@given(gold=st.lists(ID_TEXT, min_size=1, max_size=60, unique=True), data=st.data())
def test_index_window_by_window_over_blocks_agrees_with_index_in(gold, data):
    """A run's ids in blocks (as a CSV/TSV reader gives them) are looked up a window at a time,
    never copied whole: windows that cut across blocks, a NUL in one window only, an unknown id in
    the last window give what index_in gives."""
    index = IdIndex.build(pa.array(gold, pa.large_string()))
    assert index is not None
    ids = data.draw(st.lists(st.one_of(st.sampled_from(gold), st.sampled_from([g + "\0" for g in gold]), ID_TEXT),
                             min_size=1, max_size=80))
    cuts = sorted(data.draw(st.lists(st.integers(0, len(ids)), max_size=6)))
    blocks = [ids[a:b] for a, b in zip([0, *cuts], [*cuts, len(ids)])]
    chunked = pa.chunked_array([pa.array(b, pa.large_string()) for b in blocks], pa.large_string())
    want = exact_positions(ids, gold)
    window = data.draw(st.integers(1, 9))
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(align, "_CHUNK", window)
        got = index.positions(chunked)
    if want is None:
        assert got is None
    else:
        np.testing.assert_array_equal(got, want)


def test_index_on_a_million_shuffled_ids():
    rng = np.random.default_rng(5)
    gold = pa.array(np.char.add("doc", np.arange(10 ** 6).astype("U7")).astype(object), pa.large_string())
    perm = rng.permutation(10 ** 6)
    index = IdIndex.build(gold)
    assert index is not None and len(index._levels) > 1      # shared slots reach the later levels
    np.testing.assert_array_equal(index.positions(gold.take(pa.array(perm))), perm)
    unknown = gold.take(pa.array(perm)).to_pylist()
    unknown[123_456] = "doc-1"
    assert index.positions(pa.array(unknown, pa.large_string())) is None


def test_weak_hash_costs_time_not_correctness(monkeypatch):
    """With a hash that only sees the length and first word, equal hashes abound: a run id that
    shares both with a gold id must still not be taken for it (the byte check refuses it)."""
    monkeypatch.setattr(align, "_hash", lambda lengths, words: words[:, 0] ^ lengths.astype(np.uint64))
    gold = [f"abcdefgh{k:04d}" for k in range(200)] + ["x"]
    assert IdIndex.build(pa.array(gold, pa.large_string())) is None     # equal hashes in the gold ids
    gold = [f"{k:08d}_tail" for k in range(500)]
    index = IdIndex.build(pa.array(gold, pa.large_string()))
    assert index is not None
    assert index.positions(pa.array(["00000007_tail", "00000007_TAIL"], pa.large_string())) is None
    np.testing.assert_array_equal(index.positions(pa.array(gold[::-1], pa.large_string())), np.arange(500)[::-1])


def test_index_accepts_string_and_chunked_arrays():
    gold = pa.chunked_array([pa.array(["a", "bb"]), pa.array(["ccc"])])
    index = IdIndex.build(gold)
    np.testing.assert_array_equal(index.positions(pa.array(["ccc", "a", "bb"])), [2, 0, 1])
    assert index.positions(pa.array(["a", "dddddddddd"])) is None          # longer than every gold id


# ----------------------------------------------------------------------------- read_runs: fast == exact


def _write(path, ids, labels, fmt, **parquet):
    """``ids`` and ``labels`` as a gold or run file; Parquet in row groups of 7 unless ``parquet``
    says otherwise (several row groups: several dictionaries)."""
    table = pa.table({"id": pa.array(ids, pa.string()), "label": labels})
    if fmt == "parquet":
        pq.write_table(table, path, **{"row_group_size": 7, **parquet})
    else:                                                 # pyarrow's default: header and strings quoted
        pa_csv.write_csv(table, path, pa_csv.WriteOptions(delimiter="\t" if fmt == "tsv" else ","))
    return path


def _outcome(gold, runs, **kw):
    """What read_runs gives (every field of the Runs, the sources included) or its one-line error."""
    try:
        r = read_runs(gold, runs, **kw)
    except InputError as exc:
        return "error", str(exc)
    return "runs", (r.gold.tolist(), r.pred.tolist(), r.labels, list(r.ids), r.abstain, r.n_task,
                    [(s.role, s.path, s.sha256, s.rows, s.system) for s in r.sources])


@SETTINGS
@pytest.mark.filterwarnings("ignore:.*occur only in predictions")
@given(n=st.integers(2, 40), fmt=st.sampled_from(["tsv", "csv", "parquet"]), data=st.data())
def test_fast_and_exact_paths_agree(tmp_path_factory, monkeypatch, n, fmt, data):
    """Random permutations with duplicates, missing and unknown ids: the same Runs or the same message."""
    folder = tmp_path_factory.mktemp("runs")
    rng = np.random.default_rng(data.draw(st.integers(0, 2 ** 32 - 1)))
    ids = [f"item{k}" for k in rng.permutation(n)]
    gold_labels = [" a", "b ", "c"] + [str(x) for x in rng.choice(["a", "b", "c"], n - 3 if n > 3 else 0)]
    gold_ids = list(ids)
    if data.draw(st.booleans()) and n > 3:
        gold_ids[3] = gold_ids[1]                          # a duplicate gold id
    gold = _write(folder / f"gold.{fmt}", gold_ids, gold_labels[:n], fmt)
    runs = []
    for s in range(2):
        perm = list(rng.permutation(n))
        rows = [ids[k] for k in perm]
        change = data.draw(st.sampled_from(["none", "none", "duplicate", "missing", "unknown"]))
        if change == "duplicate":
            rows[-1] = rows[0]
        elif change == "missing":
            rows = rows[:-1]
        elif change == "unknown":
            rows[len(rows) // 2] = "stranger"
        labels = [str(x) for x in rng.choice(["a", " b", "c "], len(rows))]
        runs.append(_write(folder / f"run{s}.{fmt}", rows, labels, fmt))
    missing = data.draw(st.sampled_from(["error", "abstain"]))
    fast = _outcome(gold, runs, missing=missing)
    monkeypatch.setattr(align.IdIndex, "build", classmethod(lambda cls, ids: None))
    exact = _outcome(gold, runs, missing=missing)
    monkeypatch.undo()
    assert fast == exact


def test_parquet_dictionary_labels_equal_text_labels(tmp_path):
    """Labels read as Parquet's dictionary: the codes and first-seen order of the decoded, trimmed text."""
    labels = ["b", " a", "a", "b ", "c", None, "a"][:-2] + ["c", "\u3000b"] * 3
    path = tmp_path / "x.parquet"
    pq.write_table(pa.table({"id": [str(k) for k in range(len(labels))], "label": labels}), path, row_group_size=3)
    as_dict, _ = read_table(path, "run", dictionary=("label",))
    plain, _ = read_table(path, "run")
    assert pa.types.is_dictionary(as_dict.column("label").type)
    codes_d, uniques_d = as_dict.labels("label")
    codes_p, uniques_p = plain.labels("label")
    assert uniques_d == uniques_p == ["b", "a", "c"]
    np.testing.assert_array_equal(codes_d, codes_p)


def test_dictionary_label_messages_unchanged(tmp_path):
    for value, problem in ((None, "missing label (null)"), ("NaN", "is a missing-value marker"), (" ", "empty label")):
        path = tmp_path / "x.parquet"
        pq.write_table(pa.table({"id": ["1", "2", "3"], "label": ["a", value, "b"]}), path)
        for dictionary in ((), ("label",)):
            table, _ = read_table(path, "gold", id_col="id", dictionary=dictionary)
            with pytest.raises(InputError, match=re.escape(problem)) as info:
                table.labels("label")
            assert "row 2" in str(info.value) and "'2'" in str(info.value)


# ----------------------------------------------------------------------------- trimming and line checks


@SETTINGS
@given(st.lists(st.one_of(st.none(), st.text(alphabet=" \t\x0b\x1c\x1f\u00a0\u3000\u2003ab\u00e9\x85", max_size=6)),
                max_size=30))
def test_trim_skipped_only_when_it_changes_nothing(values):
    """Every ASCII byte pyarrow trims is one the check looks for (0x1C-0x1F too)."""
    ascii_trimmed = [c for c in range(128) if pc.utf8_trim_whitespace(pa.array([chr(c) + "x"]))[0].as_py() == "x"]
    assert all(_may_need_trim(pa.array([chr(c) + "x"], pa.large_string())) for c in ascii_trimmed)
    col = pa.array(values, pa.large_string())
    trimmed = pc.utf8_trim_whitespace(col)
    if not _may_need_trim(col):
        assert trimmed.equals(col)
    assert to_text(col, "x", None).equals(trimmed)


@SETTINGS
@given(lines=st.lists(st.sampled_from(['"a"\t"b"', "a\tb", "", "\r", '"a\tb', 'c"\td', '"c\nd"\te']),
                      min_size=1, max_size=12), final=st.booleans())
def test_line_count_shortcut_agrees_with_line_numbers(tmp_path, lines, final):
    """Given the parser's record count, counting line feeds settles "one record per line" only when
    the line numbers of every record say so too, and names the same last line."""
    path = tmp_path / "x.tsv"
    data = ('"id"\t"label"\n' + "\n".join(lines) + ("\n" if final else "")).encode()
    path.write_bytes(data)
    try:
        n_rows = pa_csv.read_csv(path, parse_options=pa_csv.ParseOptions(delimiter="\t")).num_rows
    except pa.ArrowInvalid:
        return
    last = last_line_if_one_per_line(data, n_rows, True)
    if last is not None:
        numbers = data_line_numbers(path, "tsv", True, n_rows)
        assert numbers is not None and int(numbers[-1]) == last


def test_stray_quote_messages_with_quoted_header(tmp_path):
    """pyarrow and R quote the header: the line-count shortcut must not hide a stray quote."""
    gold = tmp_path / "gold.tsv"
    gold.write_text('"id"\t"text"\t"label"\n1\t"Great movie\tpos\n2\tok\tneg\n3\tfine"\tpos\n4\tx\tneg\n')
    run = tmp_path / "run.tsv"
    run.write_text('"id"\t"label"\n"1"\t"neg"\n"2"\t"neg"\n"3"\t"pos"\n"4"\t"neg"\n')
    with pytest.raises(InputError, match="runs from this line to line 4") as info:
        read_runs(gold, [run])
    assert info.value.line == 2
    good = tmp_path / "good.tsv"
    good.write_text('"id"\t"label"\n"1"\t"neg"\n"2"\t"neg"\n"3"\t"pos"\n"4"\t"neg"\n')
    for text in ('"id"\t"label"\n"1"\t"neg"\n"2"\t"neg"\n"3"\t"pos"\n"4"\t"neg\n',
                 '"id"\t"label"\n"1"\t"neg"\n"2"\t"neg"\n"3"\t"pos"\n"4"\t"neg'):
        run.write_text(text)
        with pytest.raises(InputError, match="never closed") as info:
            read_runs(good, [run])
        assert info.value.line == 5


# ----------------------------------------------------------------------------- ids in Arrow


def test_item_ids_behave_like_a_sequence_of_str():
    ids = ItemIds(pa.chunked_array([pa.array(["a", "b"]), pa.array(["c"])]))
    assert len(ids) == 3 and ids.shape == (3,)
    assert list(ids) == ["a", "b", "c"] and ids[1] == "b" and ids[np.int64(2)] == "c"
    assert list(ids[1:]) == ["b", "c"]
    np.testing.assert_array_equal(np.asarray(ids), np.array(["a", "b", "c"], dtype=object))
    assert list(ids[np.array([2, 0])]) == ["c", "a"]
    assert "3 ids" in repr(ids)
    runs = Runs(gold=[0, 1, 0], pred=[[0, 1, 1]], labels=("x", "y"), systems=("s",), ids=pa.array(["a", "b", "c"]))
    assert isinstance(runs.ids, ItemIds) and list(runs.select(["s"]).ids) == ["a", "b", "c"]


def test_read_runs_reports_stage_timings(tmp_path):
    gold = _write(tmp_path / "gold.parquet", ["1", "2", "3"], ["a", "b", "a"], "parquet")
    run = _write(tmp_path / "run.parquet", ["3", "1", "2"], ["a", "a", "b"], "parquet")
    timings = {}
    runs = read_runs(gold, [run], timings=timings)
    assert set(timings) == {"read", "align", "encode"} and all(v >= 0 for v in timings.values())
    assert isinstance(runs.ids, ItemIds) and list(runs.ids) == ["1", "2", "3"]
    assert runs.pred.tolist() == [[0, 1, 0]]
