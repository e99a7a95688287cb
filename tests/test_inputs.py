"""Tests of the inputs stage: evalreport.inputs.read_runs / read_confusion(s) / hash_file.

Every bad input has a test asserting that the error names the file, the line (or id) and the
problem; every format has a happy-path test.
"""
from __future__ import annotations

import hashlib
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import GOSGENS_DIR, raises, write, write_rows

from evalreport.counts import count, read_confusion, read_confusions
from evalreport.errors import InputError
from evalreport.inputs import ABSTAIN, Runs, hash_file, natural_sorted, read_runs

IMAGENET = GOSGENS_DIR / "imagenet"


# ----------------------------------------------------------------------------- helpers


GOLD_ROWS = [["a", "x"], ["b", "y"], ["c", "x"], ["d", "z"]]


@pytest.fixture
def gold(tmp_path):
    return write_rows(tmp_path / "gold.tsv", GOLD_ROWS)


def brute_force_confusion(runs: Runs) -> np.ndarray:
    K = runs.n_classes
    out = np.zeros((runs.n_systems, K, K), dtype=np.int64)
    for s in range(runs.n_systems):
        for i in range(runs.n_items):
            out[s, runs.gold[i], runs.pred[s, i]] += 1
    return out


# ----------------------------------------------------------------------------- happy paths


def test_tsv_gold_and_runs(tmp_path, gold):
    r1 = write_rows(tmp_path / "sys1.tsv", [["a", "x"], ["b", "x"], ["c", "x"], ["d", "z"]])
    r2 = write_rows(tmp_path / "sys2.tsv", [["d", "y"], ["c", "x"], ["b", "y"], ["a", "z"]])  # shuffled
    runs = read_runs(gold, [r1, r2])
    assert runs.labels == ("x", "y", "z")
    assert runs.systems == ("sys1", "sys2")
    assert list(runs.ids) == ["a", "b", "c", "d"]
    assert runs.gold.tolist() == [0, 1, 0, 2]
    assert runs.pred.tolist() == [[0, 0, 0, 2], [2, 1, 0, 1]]
    assert runs.gold.dtype == np.int8 and runs.pred.dtype == np.int8
    assert runs.folds is None and runs.scores is None and runs.abstain is None
    roles = [(s.role, Path(s.path).name, s.rows, s.system) for s in runs.sources]
    assert roles == [("gold", "gold.tsv", 4, None), ("run", "sys1.tsv", 4, "sys1"), ("run", "sys2.tsv", 4, "sys2")]
    assert runs.sources[1].sha256 == hashlib.sha256(r1.read_bytes()).hexdigest()


def test_confusion_equals_brute_force(tmp_path):
    rng = np.random.default_rng(7)
    names = ["neg", "neu", "pos", "mixed"]
    n = 300
    ids = [f"i{k}" for k in range(n)]
    g = rng.choice(names[:3], n)  # "mixed" appears only in predictions... declared via labels
    pd.DataFrame({"id": ids, "label": g}).to_csv(tmp_path / "gold.csv", index=False)
    files = []
    for s in range(3):
        order = rng.permutation(n)
        p = rng.choice(names, n)
        pd.DataFrame({"id": np.array(ids)[order], "label": p[order]}).to_csv(tmp_path / f"s{s}.csv", index=False)
        files.append(tmp_path / f"s{s}.csv")
    runs = read_runs(tmp_path / "gold.csv", files, labels=names)
    tensor = count(runs).tensor
    assert np.array_equal(tensor, brute_force_confusion(runs))
    # and against the raw strings, independent of the encoding
    for s, f in enumerate(files):
        df = pd.read_csv(f).set_index("id").loc[ids]
        for i, gi in enumerate(names):
            for j, pj in enumerate(names):
                assert tensor[s, i, j] == int(((g == gi) & (df["label"].to_numpy() == pj)).sum())


def test_csv_quoting_whitespace_crlf_bom(tmp_path):
    gold = write(tmp_path / "gold.csv", '\ufeffid,label\r\n 1 ,"a, b"\r\n2, c \r\n')
    run = write(tmp_path / "run.csv", 'label,id,extra\r\nc,1,x\r\n"a, b",2,y\r\n')
    runs = read_runs(gold, [run])
    assert runs.labels == ("a, b", "c")
    assert list(runs.ids) == ["1", "2"]
    assert runs.pred.tolist() == [[1, 0]]


def test_jsonl_numbers_are_text(tmp_path):
    gold = write(tmp_path / "gold.jsonl", '{"id": 1, "label": 1}\n\n{"id": 2, "label": 10}\n{"id": 3, "label": 2}\n')
    run = write(tmp_path / "run.ndjson", '{"id": 3, "label": 2.0}\n{"id": 1, "label": 10}\n{"id": 2, "label": 10}\n')
    runs = read_runs(gold, [run])
    assert runs.labels == ("1", "2", "10")  # natural order, "1" not "1.0"
    assert list(runs.ids) == ["1", "2", "3"]
    assert runs.gold.tolist() == [0, 2, 1]
    assert runs.pred.tolist() == [[2, 2, 1]]


def test_jsonl_mixed_types(tmp_path):
    gold = write(tmp_path / "gold.jsonl", '{"id": 1, "label": "cat"}\n{"id": "b2", "label": 3}\n')
    run = write(tmp_path / "run.jsonl", '{"id": "b2", "label": "cat"}\n{"id": 1, "label": 3.0}\n')
    runs = read_runs(gold, [run])
    assert runs.labels == ("3", "cat")
    assert runs.gold.tolist() == [1, 0] and runs.pred.tolist() == [[0, 1]]


def test_parquet(tmp_path):
    gold = tmp_path / "gold.parquet"
    pd.DataFrame({"id": [10, 11, 12], "label": pd.Categorical(["b", "a", "b"])}).to_parquet(gold)
    run = tmp_path / "m.parquet"
    pd.DataFrame({"id": [12, 10, 11], "label": ["a", "b", "a"], "score_a": [0.1, 0.2, 0.9],
                  "score_b": [0.9, 0.8, 0.1]}).to_parquet(run)
    runs = read_runs(gold, [run])
    assert runs.labels == ("a", "b") and list(runs.ids) == ["10", "11", "12"]
    assert runs.pred.tolist() == [[1, 0, 0]]
    assert runs.score_labels == ("a", "b")
    assert runs.scores.shape == (1, 3, 2)
    assert runs.scores[0].tolist() == [[0.2, 0.8], [0.9, 0.1], [0.1, 0.9]]


def test_parquet_float_labels_lose_point_zero(tmp_path):
    gold = tmp_path / "gold.parquet"
    pd.DataFrame({"id": ["a", "b"], "label": [1.0, 2.0]}).to_parquet(gold)
    run = tmp_path / "run.parquet"
    pd.DataFrame({"id": ["a", "b"], "label": [2, 1]}).to_parquet(run)
    runs = read_runs(gold, [run])
    assert runs.labels == ("1", "2") and runs.pred.tolist() == [[1, 0]]


def test_runs_dir_and_names(tmp_path):
    folder = tmp_path / "runs"
    folder.mkdir()
    gold = write_rows(folder / "gold.tsv", GOLD_ROWS)  # inside the folder: not read as a run
    for name in ["m10", "m2", "m1"]:
        write_rows(folder / f"{name}.tsv", GOLD_ROWS)
    write(folder / ".hidden.tsv", "junk")
    write(folder / "notes.txt", "not a run")
    with pytest.warns(UserWarning, match=r"not read: '.hidden.tsv \(hidden\)', 'notes.txt'"):
        runs = read_runs(gold, runs_dir=folder)
    assert runs.systems == ("m1", "m2", "m10")
    with pytest.warns(UserWarning, match="not read"):
        named = read_runs(gold, runs_dir=folder, names=["A", "B", "C"])
    assert named.systems == ("A", "B", "C")
    assert [s.system for s in named.sources[1:]] == ["A", "B", "C"]
    # given files first, then the folder
    extra = write_rows(tmp_path / "z0.tsv", GOLD_ROWS)
    with pytest.warns(UserWarning, match="not read"):
        assert read_runs(gold, [extra], runs_dir=folder).systems == ("z0", "m1", "m2", "m10")


def test_explicit_labels_order_and_absent_class(tmp_path, gold):
    run = write_rows(tmp_path / "r.tsv", [["a", "w"], ["b", "y"], ["c", "x"], ["d", "z"]])
    runs = read_runs(gold, [run], labels=["z", "y", "x", "w"])
    assert runs.labels == ("z", "y", "x", "w")
    assert runs.gold.tolist() == [2, 1, 2, 0]
    assert runs.pred.tolist() == [[3, 1, 2, 0]]
    assert count(runs).tensor[0, :, 3].tolist() == [0, 0, 1, 0]  # "w" has no gold items


def test_natural_label_sort():
    assert natural_sorted(["10", "2", "1", "b", "a10", "a9", "-1", "0.5"]) == ["-1", "0.5", "1", "2", "10",
                                                                              "a9", "a10", "b"]


def test_single_gold_class_ok_with_labels(tmp_path):
    gold = write_rows(tmp_path / "gold.tsv", [["a", "pos"], ["b", "pos"]])
    run = write_rows(tmp_path / "r.tsv", [["a", "pos"], ["b", "neg"]])
    runs = read_runs(gold, [run], labels=["neg", "pos"])
    assert runs.labels == ("neg", "pos") and runs.pred.tolist() == [[1, 0]]


def test_folds(tmp_path):
    gold = write_rows(tmp_path / "gold.tsv", [["a", "x", "f10"], ["b", "y", "f2"], ["c", "x", "f2"], ["d", "y", "f10"]],
               header=("id", "label", "fold"))
    run = write_rows(tmp_path / "r.tsv", [["c", "x", "f2"], ["a", "y", "f10"], ["b", "y", "f2"], ["d", "y", "f10"]],
              header=("id", "label", "fold"))
    plain = write_rows(tmp_path / "p.tsv", GOLD_ROWS[:0] + [["a", "x"], ["b", "x"], ["c", "x"], ["d", "x"]])
    runs = read_runs(gold, [run, plain])
    assert runs.fold_names == ("f2", "f10")
    assert runs.folds.tolist() == [1, 0, 0, 1]
    per_fold = count(runs, per_fold=True).tensor
    assert per_fold.shape == (2, 2, 2, 2)
    assert per_fold.sum(axis=1).tolist() == count(runs).tensor.tolist()
    assert read_runs(gold, [run], fold_col=None).folds is None


def test_binary_scores(tmp_path, gold):
    r1 = write_rows(tmp_path / "r1.tsv", [["b", "y", 0.5], ["a", "x", "1e-3"], ["c", "x", -2], ["d", "z", "7"]],
             header=("id", "label", "score"))
    r2 = write_rows(tmp_path / "r2.tsv", [["a", "x", 1], ["b", "y", 2], ["c", "x", 3], ["d", "z", 4]],
             header=("id", "label", "score"))
    runs = read_runs(gold, [r1, r2])
    assert runs.scores.shape == (2, 4) and runs.scores.dtype == np.float64
    assert runs.scores.tolist() == [[0.001, 0.5, -2.0, 7.0], [1, 2, 3, 4]]
    assert runs.score_labels == ()
    assert read_runs(gold, [r1], score_col=None).scores is None
    # a score outside [0, 1] is recorded (raised only by the measures that need probabilities)
    assert "line 4" in runs.score_problems["r1"]["range"] and "outside [0, 1]" in runs.score_problems["r1"]["range"]
    bad = write_rows(tmp_path / "bad.tsv", [["b", "y", 0.5], ["a", "x", "inf"], ["c", "x", 1], ["d", "z", 0]],
                     header=("id", "label", "score"))
    with pytest.raises(InputError, match=r"bad.tsv, line 3, id 'a': score inf in column 'score' is not finite"):
        read_runs(gold, [bad])


def test_per_class_scores(tmp_path, gold):
    header = ("id", "label", "score_z", "score_x", "score_y")
    run = write_rows(tmp_path / "r.tsv", [["a", "x", 0.1, 0.7, 0.2], ["b", "y", 0, 0, 1], ["c", "x", 0, 1, 0],
                                   ["d", "z", 1, 0, 0]], header=header)
    runs = read_runs(gold, [run])
    assert runs.score_labels == ("x", "y", "z")  # class order, not column order
    assert runs.scores.shape == (1, 4, 3)
    assert runs.scores[0, 0].tolist() == [0.7, 0.2, 0.1]


def test_scores_only_in_some_runs(tmp_path, gold):
    scored = write_rows(tmp_path / "r1.tsv", [["a", "x", 1], ["b", "y", 2], ["c", "x", 3], ["d", "z", 4]],
                 header=("id", "label", "score"))
    plain = write_rows(tmp_path / "r2.tsv", GOLD_ROWS)
    with warnings.catch_warnings():     # a run without score columns has NaN scores (its score measures undefined)
        warnings.simplefilter("error")
        runs = read_runs(gold, [scored, plain])
        assert runs.scores[0].tolist() == [1, 2, 3, 4] and np.isnan(runs.scores[1]).all()
        other = read_runs(gold, [plain, scored])
        assert np.isnan(other.scores[0]).all() and other.scores[1].tolist() == [1, 2, 3, 4]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert read_runs(gold, [plain, plain], names=["p", "q"]).scores is None  # none anywhere: silent


def test_missing_abstain(tmp_path, gold):
    full = write_rows(tmp_path / "full.tsv", GOLD_ROWS)
    part = write_rows(tmp_path / "part.tsv", [["c", "x", 0.3], ["a", "x", 0.9]], header=("id", "label", "score"))
    full_scored = write_rows(tmp_path / "fs.tsv", [r + [0.5] for r in GOLD_ROWS], header=("id", "label", "score"))
    runs = read_runs(gold, [full_scored, part], missing="abstain")
    assert runs.labels == ("x", "y", "z", ABSTAIN)
    assert runs.abstain == 3
    assert runs.pred.tolist() == [[0, 1, 0, 2], [0, 3, 0, 3]]
    assert np.isnan(runs.scores[1, [1, 3]]).all() and runs.scores[1, [0, 2]].tolist() == [0.9, 0.3]
    C = count(runs).tensor
    assert C[1].trace() == 2 and C[1, :, 3].sum() == 2 and C[1, 3].sum() == 0
    # nothing missing: no synthetic class
    assert read_runs(gold, [full], missing="abstain").labels == ("x", "y", "z")


def test_allow_unknown_adds_classes(tmp_path, gold):
    run = write_rows(tmp_path / "r.tsv", [["a", "q2"], ["b", "y"], ["c", "q10"], ["d", "q2"]])
    runs = read_runs(gold, [run], allow_unknown=True)
    assert runs.labels == ("x", "y", "z", "q2", "q10")
    assert runs.pred.tolist() == [[3, 1, 4, 3]]
    C = count(runs).tensor[0]
    assert C[3:].sum() == 0 and C.trace() == 1  # extra classes have no gold items: always wrong


def test_allow_unknown_with_abstain(tmp_path, gold):
    r1 = write_rows(tmp_path / "r1.tsv", [["a", "new"], ["b", "y"]])
    r2 = write_rows(tmp_path / "r2.tsv", [["a", "alpha"], ["b", "y"], ["c", "x"], ["d", "z"]])
    runs = read_runs(gold, [r1, r2], allow_unknown=True, missing="abstain")
    assert runs.labels == ("x", "y", "z", "alpha", "new", ABSTAIN)
    assert runs.pred.tolist() == [[4, 1, 5, 5], [3, 1, 0, 2]]


def test_many_classes_dtype(tmp_path):
    n = 200
    gold = write_rows(tmp_path / "gold.tsv", [[f"i{k}", f"c{k}"] for k in range(n)])
    run = write_rows(tmp_path / "r.tsv", [[f"i{k}", f"c{(k + 1) % n}"] for k in range(n)])
    runs = read_runs(gold, [run])
    assert runs.n_classes == n and runs.gold.dtype == np.int16
    assert runs.labels[:3] == ("c0", "c1", "c2")
    assert np.array_equal(count(runs).tensor, brute_force_confusion(runs))


def test_hash_file(tmp_path):
    p = write(tmp_path / "f.bin", bytes(range(256)) * 5000)
    assert hash_file(p) == hashlib.sha256(p.read_bytes()).hexdigest()


# ----------------------------------------------------------------------------- bad runs inputs


def test_missing_gold_file(tmp_path):
    with raises("not found", path=tmp_path / "nope.tsv"):
        read_runs(tmp_path / "nope.tsv", [tmp_path / "r.tsv"])


def test_missing_run_file(tmp_path, gold):
    with raises("run file not found", path=tmp_path / "r.tsv"):
        read_runs(gold, [tmp_path / "r.tsv"])


def test_empty_file(tmp_path, gold):
    empty = write(tmp_path / "r.tsv", "")
    with raises("empty", path=empty):
        read_runs(gold, [empty])


def test_header_only(tmp_path, gold):
    header = write(tmp_path / "r.tsv", "id\tlabel\n")
    with raises("no rows", path=header):
        read_runs(gold, [header])


def test_empty_jsonl(tmp_path, gold):
    blank = write(tmp_path / "r.jsonl", "\n\n")
    with raises("no rows", path=blank):
        read_runs(gold, [blank])


def test_missing_column(tmp_path, gold):
    run = write_rows(tmp_path / "r.tsv", [["a", "x"]], header=("id", "pred"))
    with raises("missing column 'label'", path=run, line=1) as info:
        read_runs(gold, [run])
    assert "'id', 'pred'" in info.value.problem


def test_duplicate_header_column(tmp_path, gold):
    run = write_rows(tmp_path / "r.tsv", [["a", "x", "y"]], header=("id", "label", "label"))
    with raises("appears twice", path=run, line=1):
        read_runs(gold, [run])


def test_duplicate_gold_id(tmp_path):
    gold = write_rows(tmp_path / "gold.tsv", [["a", "x"], ["b", "y"], ["c", "x"], ["b", "x"]])
    with raises("duplicate id 'b' (first at line 3)", path=gold, line=5, item="b"):
        read_runs(gold, [gold])


def test_duplicate_run_id(tmp_path, gold):
    run = write_rows(tmp_path / "r.tsv", [["a", "x"], ["c", "x"], ["d", "x"], ["c", "y"], ["b", "y"]])
    with raises("duplicate id 'c' (first at line 3)", path=run, line=5, item="c"):
        read_runs(gold, [run])


def test_duplicate_id_in_parquet_names_rows(tmp_path, gold):
    run = tmp_path / "r.parquet"
    pd.DataFrame({"id": ["a", "b", "a", "c", "d"], "label": ["x"] * 5}).to_parquet(run)
    with raises("row 3: duplicate id 'a' (first at row 1)", path=run, item="a"):
        read_runs(gold, [run])


def test_unknown_id_in_run(tmp_path, gold):
    run = write_rows(tmp_path / "r.tsv", [["a", "x"], ["b", "x"], ["zz", "x"], ["c", "x"], ["d", "x"]])
    with raises("not in the gold file", path=run, line=4, item="zz"):
        read_runs(gold, [run])


def test_gold_id_missing_from_run(tmp_path, gold):
    run = write_rows(tmp_path / "r.tsv", [["a", "x"], ["d", "x"]])
    with raises("no prediction for gold id 'b' (gold line 3); 2 of 4", path=run, item="b") as info:
        read_runs(gold, [run])
    assert "missing='abstain'" in info.value.problem


def test_unknown_predicted_label(tmp_path, gold):
    run = write_rows(tmp_path / "r.tsv", [["a", "x"], ["b", "y"], ["c", "cat"], ["d", "z"]])
    with raises("predicted label 'cat' is not a class", path=run, line=4, item="c") as info:
        read_runs(gold, [run])
    assert "allow_unknown" in info.value.problem


def test_empty_gold_label(tmp_path):
    gold = write(tmp_path / "gold.tsv", "id\tlabel\na\tx\nb\t  \nc\ty\n")
    with raises("empty label", path=gold, line=3, item="b"):
        read_runs(gold, [gold])


@pytest.mark.parametrize("marker", ["NaN", "null", "nan"])
def test_missing_marker_label(tmp_path, gold, marker):
    run = write_rows(tmp_path / "r.tsv", [["a", "x"], ["b", marker], ["c", "x"], ["d", "x"]])
    with raises("missing-value marker", path=run, line=3, item="b"):
        read_runs(gold, [run])


def test_null_label_jsonl(tmp_path, gold):
    run = write(tmp_path / "r.jsonl", '{"id": "a", "label": "x"}\n\n{"id": "b", "label": null}\n')
    with raises("missing predicted label (null)", path=run, line=3, item="b"):
        read_runs(gold, [run])


def test_nan_label_parquet(tmp_path, gold):
    run = tmp_path / "r.parquet"
    pd.DataFrame({"id": ["a", "b", "c", "d"], "label": [1.0, np.nan, 2.0, 1.0]}).to_parquet(run)
    with raises("row 2: missing predicted label (null)", path=run, item="b"):
        read_runs(gold, [run])


#: One bad run file each: (file name, content, message, line named in the error or None).
BAD_RUN_FILES = [
    pytest.param("r.tsv", "id\tlabel\na\tx\n\ty\n", "empty id", 3, id="empty_id"),
    pytest.param("r.tsv", b"id\tlabel\na\tx\nb\t" + "caf\u00e9".encode("latin-1") + b"\n", "not valid UTF-8", 3, id="not_utf8"),
    pytest.param("r.csv", b"id,lab\xe9l\na,x\n", "not valid UTF-8", 1, id="not_utf8_header"),
    pytest.param("r.jsonl", b'{"id": "a", "label": "x"}\n{"id": "b", "label": "\xff"}\n', "not valid UTF-8", 2, id="not_utf8_jsonl"),
    pytest.param("r.tsv", "id\tlabel\na\tx\n\nb\ty\textra\nc\tx\n", "has 3 fields but the header has 2", 4, id="too_many_fields"),
    pytest.param("r.csv", "id,label\na,x\nb,y\nc\n", "has 1 field but the header has 2", 4, id="too_few_fields"),
    pytest.param("r.xls", "whatever", "unsupported file type '.xls' for a run file (the older binary Excel format: "
                 "save the sheet as .xlsx or CSV)", None, id="unsupported_extension"),
    pytest.param("r.xlsx", "whatever", "cannot read as an Excel workbook (.xlsx)", None, id="not_a_workbook"),
    pytest.param("r.parquet", b"PAR1 this is not parquet at all", "cannot read as Parquet", None, id="bad_parquet"),
    pytest.param("r.jsonl", '{"id": "a", "label": "x"}\n\n{"id": "b", label: "y"}\n', "not valid JSON", 3, id="bad_jsonl_line"),
    pytest.param("r.jsonl", '{"id": "a", "label": "x"}\n["b", "y"]\n', "expected a JSON object", 2, id="jsonl_not_object"),
]


@pytest.mark.parametrize("name,content,message,line", BAD_RUN_FILES)
def test_bad_run_file(tmp_path, gold, name, content, message, line):
    run = write(tmp_path / name, content)
    with raises(message, path=run, line=line):
        read_runs(gold, [run])


def test_line_numbers_after_blank_lines(tmp_path, gold):
    run = write(tmp_path / "r.tsv", "id\tlabel\n\na\tx\n\n\nb\tnope\n")
    with raises("'nope' is not a class", path=run, line=6, item="b"):
        read_runs(gold, [run])


def test_one_gold_class(tmp_path):
    gold = write_rows(tmp_path / "gold.tsv", [["a", "x"], ["b", "x"]])
    with raises("only one class ('x')", path=gold):
        read_runs(gold, [gold])


def test_gold_label_not_in_labels_list(tmp_path, gold):
    with raises("gold label(s) 'y', 'z' are not in the labels list", path=gold):
        read_runs(gold, [gold], labels=["x", "w"])


def test_labels_list_duplicates(tmp_path, gold):
    with raises("more than once"):
        read_runs(gold, [gold], labels=["x", "y", "z", "x"])


def test_run_is_directory(tmp_path, gold):
    folder = tmp_path / "runs.tsv"
    folder.mkdir()
    with raises("is a directory", path=folder):
        read_runs(gold, [folder])


def test_fold_disagrees(tmp_path):
    gold = write_rows(tmp_path / "gold.tsv", [["a", "x", "1"], ["b", "y", "2"]], header=("id", "label", "fold"))
    run = write_rows(tmp_path / "r.tsv", [["b", "y", "2"], ["a", "x", "2"]], header=("id", "label", "fold"))
    with raises("fold '2' disagrees with the gold file's fold '1'", path=run, line=3, item="a"):
        read_runs(gold, [run])


def test_fold_only_in_run(tmp_path, gold):
    run = write_rows(tmp_path / "r.tsv", [r + ["1"] for r in GOLD_ROWS], header=("id", "label", "fold"))
    with raises("gold file", path=run, line=1):
        read_runs(gold, [run])


def test_empty_fold_in_gold(tmp_path):
    gold = write(tmp_path / "gold.tsv", "id\tlabel\tfold\na\tx\t1\nb\ty\t\n")
    with raises("empty fold", path=gold, line=3, item="b"):
        read_runs(gold, [gold])


def test_nan_score(tmp_path, gold):
    run = write_rows(tmp_path / "r.tsv", [["a", "x", 1], ["b", "y", "NaN"], ["c", "x", 1], ["d", "z", 1]],
              header=("id", "label", "score"))
    with raises("score in column 'score' is NaN", path=run, line=3, item="b"):
        read_runs(gold, [run])


def test_non_numeric_score(tmp_path, gold):
    run = write_rows(tmp_path / "r.tsv", [["a", "x", 1], ["b", "y", 2], ["c", "x", "high"], ["d", "z", 1]],
              header=("id", "label", "score"))
    with raises("score 'high' in column 'score' is not a number", path=run, line=4, item="c"):
        read_runs(gold, [run])


def test_empty_score(tmp_path, gold):
    run = write(tmp_path / "r.csv", "id,label,score\na,x,1\nb,y,\nc,x,1\nd,z,1\n")
    with raises("empty score", path=run, line=3, item="b"):
        read_runs(gold, [run])


def test_score_column_for_unknown_class(tmp_path, gold):
    run = write_rows(tmp_path / "r.tsv", [r + [1] for r in GOLD_ROWS], header=("id", "label", "score_w"))
    with raises("'score_w' name no class", path=run, line=1):
        read_runs(gold, [run])


def test_bad_arguments(tmp_path, gold):
    with raises("missing must be"):
        read_runs(gold, [gold], missing="skip")
    with raises("no run files given"):
        read_runs(gold)
    with raises("2 system names for 1 run file"):
        read_runs(gold, [gold], names=["a", "b"])
    other = tmp_path / "x"
    other.mkdir()
    write_rows(other / "gold.tsv", GOLD_ROWS)
    with raises("system name 'gold' is used twice"):
        read_runs(gold, [gold, other / "gold.tsv"])
    with raises("no run files", path=tmp_path / "empty"):
        (tmp_path / "empty").mkdir()
        read_runs(gold, runs_dir=tmp_path / "empty")
    with raises("reserved"):
        read_runs(write_rows(tmp_path / "g2.tsv", [["a", ABSTAIN], ["b", "x"]]), [gold])


# ----------------------------------------------------------------------------- confusion files


def test_square_with_row_names(tmp_path):
    path = write(tmp_path / "m.csv", "gold\\pred,cat,dog,owl\ndog,1,7,0\ncat,5,2,1\nowl,0,0,4\n")
    counts = read_confusion(path)
    assert counts.labels == ("cat", "dog", "owl") and counts.systems == ("m",)
    assert counts.tensor.dtype == np.int64
    assert counts.tensor[0].tolist() == [[5, 2, 1], [1, 7, 0], [0, 0, 4]]


def test_square_header_only_tsv(tmp_path):
    path = write(tmp_path / "m.tsv", "b\ta\n3\t1\n2\t4\n")
    counts = read_confusion(path, system="mine")
    assert counts.labels == ("b", "a") and counts.systems == ("mine",)
    assert counts.tensor[0].tolist() == [[3, 1], [2, 4]]
    reordered = read_confusion(path, labels=["a", "b", "c"])
    assert reordered.tensor[0].tolist() == [[4, 2, 0], [1, 3, 0], [0, 0, 0]]


def test_square_float_counts(tmp_path):
    path = write(tmp_path / "m.csv", ",a,b\na,1.5,0\nb,0.25,2\n")
    counts = read_confusion(path)
    assert counts.tensor.dtype == np.float64 and counts.tensor[0].tolist() == [[1.5, 0], [0.25, 2]]


def test_long_form_with_systems_sums_repeats(tmp_path):
    path = write(tmp_path / "long.tsv", "system\tgold\tpredicted\tcount\n"
                                       "A\t10\t2\t3\nA\t2\t2\t5\nB\t2\t10\t1\nA\t10\t2\t4\n")
    counts = read_confusion(path)
    assert counts.systems == ("A", "B") and counts.labels == ("2", "10")
    assert counts.tensor.tolist() == [[[5, 0], [7, 0]], [[0, 1], [0, 0]]]
    only_b = read_confusion(path, system="B")
    assert only_b.systems == ("B",) and only_b.tensor.tolist() == [[[0, 1], [0, 0]]]


def test_long_form_parquet_no_system(tmp_path):
    path = tmp_path / "sysx.parquet"
    pd.DataFrame({"gold": ["a", "a", "b"], "predicted": ["a", "b", "b"], "count": [3, 1, 6]}).to_parquet(path)
    counts = read_confusion(path)
    assert counts.systems == ("sysx",) and counts.tensor[0].tolist() == [[3, 1], [0, 6]]


def test_triplet_json(tmp_path):
    path = write(tmp_path / "net.apex.json", "0\t0\t5\n0\t2\t1\n2\t2\t4\n1\t1\t3\n0\t0\t1\n")
    counts = read_confusion(path)
    assert counts.systems == ("net.apex",) and counts.labels == ("0", "1", "2")
    assert counts.tensor[0].tolist() == [[6, 0, 1], [0, 3, 0], [0, 0, 4]]


def test_read_confusions_union(tmp_path):
    a = write(tmp_path / "a.csv", ",x,y\nx,1,2\ny,3,4\n")
    b = write(tmp_path / "b.csv", "gold,predicted,count\nz,x,5\nx,x,1\n")
    counts = read_confusions([a, b])
    assert counts.systems == ("a", "b") and counts.labels == ("x", "y", "z")
    assert counts.tensor.tolist() == [[[1, 2, 0], [3, 4, 0], [0, 0, 0]], [[1, 0, 0], [0, 0, 0], [5, 0, 0]]]
    with raises("system 'a' appears in"):
        read_confusions([a, a])


def test_imagenet_files():
    if not IMAGENET.is_dir():
        pytest.skip(f"ImageNet confusion files of Gösgens et al. 2021 not present at {IMAGENET}")
    files = [IMAGENET / name for name in natural_sorted(f.name for f in IMAGENET.glob("*.json"))]
    counts = read_confusions(IMAGENET)
    assert counts.tensor.shape == (len(files), 1000, 1000)
    assert counts.labels == tuple(str(k) for k in range(1000))
    assert counts.systems == tuple(f.stem for f in files)
    # ImageNet validation set: 50 images per class, 50 000 in all
    assert (counts.tensor.sum(axis=2) == 50).all()
    # cross-check one file against a plain pandas count
    raw = pd.read_csv(files[0], sep="\t", header=None, names=["g", "p", "n"])
    dense = np.zeros((1000, 1000), dtype=np.int64)
    np.add.at(dense, (raw["g"].to_numpy(), raw["p"].to_numpy()), raw["n"].to_numpy())
    assert np.array_equal(counts.tensor[0], dense)


# bad confusion-matrix files: (file name, content, problem, line (None: not checked), reader kwargs)
BAD_CONFUSION = [
    ("m.csv", ",a,b\na,1,2\nb,-3,4\n", "negative count -3 in column 'a'", 3, {}),
    ("long.csv", "gold,predicted,count\na,a,1\na,b,two\n", "count 'two' in column 'count' is not a number", 3, {}),
    ("t.json", "0\t0\t5\n\n1\t1\t-2\n", "negative count -2", 3, {}),
    ("m.csv", "a,b,c\n1,2,3\n", "not a square confusion matrix", None, {}),
    ("m.csv", ",a,b\na,1,2\nc,3,4\n", "gold class 'c' is not in the header", 3, {}),
    ("m.json", '{"labels": ["a", "b"]}\n', "gold<TAB>predicted<TAB>count", 1, {}),
    ("m.csv", ",a,b\na,1,2\nb,3,4\n", "'b' are not in the labels list", None, {"labels": ["a", "c"]}),
]


@pytest.mark.parametrize("name, content, problem, line, kwargs", BAD_CONFUSION,
                         ids=[case[2][:30] for case in BAD_CONFUSION])
def test_bad_confusion_file(tmp_path, name, content, problem, line, kwargs):
    path = write(tmp_path / name, content)
    where = {"path": path} if line is None else {"path": path, "line": line}
    with raises(problem, **where):
        read_confusion(path, **kwargs)


def test_confusion_duplicate_row(tmp_path):
    path = write(tmp_path / "m.tsv", "\ta\tb\na\t1\t2\na\t3\t4\n")
    with raises("gold class 'a' has two rows (first at line 2)", path=path, line=3):
        read_confusion(path)


def test_large_file_many_blocks(tmp_path):
    """Files larger than pyarrow's read block: alignment and line numbers stay right."""
    n = 120_000
    rng = np.random.default_rng(3)
    ids = np.array([f"item-{k:06d}" for k in range(n)])
    gold_labels = rng.choice(["a", "b", "c"], n)
    pd.DataFrame({"id": ids, "label": gold_labels}).to_csv(tmp_path / "gold.tsv", sep="\t", index=False)
    order = rng.permutation(n)
    pred_labels = rng.choice(["a", "b", "c"], n)
    frame = pd.DataFrame({"id": ids[order], "label": pred_labels[order]})
    frame.to_csv(tmp_path / "shuffled.tsv", sep="\t", index=False)
    pd.DataFrame({"id": ids, "label": pred_labels}).to_csv(tmp_path / "same.tsv", sep="\t", index=False)
    runs = read_runs(tmp_path / "gold.tsv", [tmp_path / "shuffled.tsv", tmp_path / "same.tsv"])
    assert np.array_equal(runs.pred[0], runs.pred[1])
    assert np.array_equal(np.array(runs.labels)[runs.pred[0]], pred_labels)
    assert np.array_equal(np.array(runs.labels)[runs.gold], gold_labels)
    frame.loc[100_000, "label"] = "zzz"
    frame.to_csv(tmp_path / "bad.tsv", sep="\t", index=False)
    with raises("'zzz' is not a class", path=tmp_path / "bad.tsv", line=100_002, item=frame.loc[100_000, "id"]):
        read_runs(tmp_path / "gold.tsv", [tmp_path / "bad.tsv"])


def test_jsonl_nested_values(tmp_path, gold):
    # an unused nested field is fine, in both the fast and the line-by-line (mixed types) reader
    fast = write(tmp_path / "fast.jsonl", "".join(f'{{"id": "{i}", "label": "{lab}", "tok": [1, 2]}}\n'
                                                  for i, lab in GOLD_ROWS))
    mixed = write(tmp_path / "mixed.jsonl", '{"id": "a", "label": "x", "tok": [1]}\n{"id": "b", "label": 5}\n'
                                            '{"id": "c", "label": "x"}\n{"id": "d", "label": "z"}\n')
    runs = read_runs(gold, [fast, mixed], allow_unknown=True)
    assert runs.pred.tolist() == [[0, 1, 0, 2], [0, 3, 0, 2]] and runs.labels[3] == "5"
    bad = write(tmp_path / "bad.jsonl", '{"id": "a", "label": 1}\n{"id": "b", "label": ["y"]}\n')
    with raises("field 'label' holds a JSON list", path=bad, line=2):
        read_runs(gold, [bad])


def test_tsv_with_a_stray_quote_is_an_error_not_shifted_items(tmp_path):
    """A text column holding '"Great movie' made pyarrow's CSV quoting swallow lines 2-4 into one
    item: accuracy 1.0 over 5 items instead of 5/6. One item per line is now required."""
    gold = write(tmp_path / "g.tsv", 'id\ttext\tlabel\n1\t"Great movie\tpos\n2\tok\tneg\n3\tfine"\tpos\n4\tx\tneg\n')
    run = write(tmp_path / "r.tsv", "id\tlabel\n1\tneg\n2\tneg\n3\tpos\n4\tneg\n")
    with raises("runs from this line to line 4", path=gold, line=2):
        read_runs(gold, [run])
    # a quoted field on one line is fine (pandas and R quote fields that hold tabs or quotes)
    ok = write(tmp_path / "ok.tsv", 'id\ttext\tlabel\n1\t"a\tb"\tpos\n2\t"say ""hi"""\tneg\n')
    assert read_runs(ok, [write(tmp_path / "r2.tsv", "id\tlabel\n1\tpos\n2\tpos\n")]).n_items == 2


def test_a_quote_that_never_closes_on_the_last_line_is_an_error(tmp_path):
    """'3<TAB>"NONE' on the last line: the CSV reader runs the field to the end of the file, drops the
    quote and keeps 'NONE', so the stray quote went unseen (TSV and CSV; a CSV field may span lines,
    but it must close)."""
    gold = write(tmp_path / "g.tsv", "id\tlabel\n1\tFAVOR\n2\tAGAINST\n3\tNONE\n")
    for name, text, line in (("r.tsv", 'id\tlabel\n1\tFAVOR\n2\tAGAINST\n3\t"NONE\n', 4),
                             ("r2.tsv", 'id\tlabel\n1\tFAVOR\n2\tAGAINST\n3\t"NONE', 4),
                             ("r.csv", 'id,label\n1,FAVOR\n2,AGAINST\n3,"NONE\n', 4),
                             ("r2.csv", 'id,label\n1,"FAV\nOR"\n2,AGAINST\n3,"NONE\n', 5)):
        run = write(tmp_path / name, text)
        with raises("never closed", path=run, line=line):
            read_runs(gold, [run], allow_unknown=True)
    # quoted fields that close, also across lines in CSV, stay fine
    ok = write(tmp_path / "ok.csv", 'id,label\n1,"FAVOR"\n2,"AGAINST"\n3,"NONE"\n')
    assert read_runs(gold, [ok]).pred.tolist() == [read_runs(gold, [ok]).gold.tolist()]


def test_jsonl_date_like_text_stays_text(tmp_path):
    gold = write(tmp_path / "g.tsv", "id\tlabel\n2021-01-01\ta\n2021-01-02\tb\n")
    run = write(tmp_path / "r.jsonl", '{"id": "2021-01-01", "label": "a"}\n{"id": "2021-01-02", "label": "b"}\n')
    runs = read_runs(gold, [run])
    assert list(runs.ids) == ["2021-01-01", "2021-01-02"] and (runs.pred[0] == runs.gold).all()


def test_runs_folder_names_what_it_did_not_read(tmp_path):
    gold = write(tmp_path / "g.tsv", "id\tlabel\n1\ta\n2\tb\n")
    folder = tmp_path / "runs"
    (folder / "sub").mkdir(parents=True)
    write(folder / "A.tsv", "id\tlabel\n1\ta\n2\tb\n")
    write(folder / "B.txt", "id\tlabel\n1\ta\n2\tb\n")
    with pytest.warns(UserWarning, match=r"2 entries .* not read: 'B.txt', 'sub/'"):
        runs = read_runs(gold, runs_dir=folder)
    assert runs.systems == ("A",)


def test_prediction_only_classes_are_announced(tmp_path):
    """One team's unknown labels are classes of its own matrix only (tests/test_task_classes.py): the
    reader says how they are scored."""
    gold = write(tmp_path / "g.tsv", "id\tlabel\n1\ta\n2\tb\n")
    good = write(tmp_path / "good.tsv", "id\tlabel\n1\ta\n2\tb\n")
    odd = write(tmp_path / "odd.tsv", "id\tlabel\n1\tfoo\n2\tb\n")
    with pytest.warns(UserWarning, match=r"1 class\(es\) occur only in predictions \('foo'"):
        runs = read_runs(gold, [good, odd], allow_unknown=True)
    assert runs.labels == ("a", "b", "foo")


@pytest.mark.parametrize("gold_label,run_text,hint", [
    ("caf\u00e9", "id\tlabel\n1\tcafe\u0301\n2\tb\n", "after Unicode normalisation"),          # NFC vs NFD
    ("1.0", '{"id": "1", "label": 1.0}\n{"id": "2", "label": "b"}\n', "as a number"),       # 1.0 vs 1
])
def test_unknown_label_that_nearly_matches_gets_a_hint(tmp_path, gold_label, run_text, hint):
    gold = write(tmp_path / "g.tsv", f"id\tlabel\n1\t{gold_label}\n2\tb\n")
    run = write(tmp_path / ("r.jsonl" if run_text.startswith("{") else "r.tsv"), run_text)
    with raises(hint, path=run):
        read_runs(gold, [run])


def test_a_very_long_label_is_shortened_in_messages(tmp_path):
    gold = write(tmp_path / "g.tsv", "id\tlabel\n1\t" + "x" * 5000 + "\n2\tb\n")
    run = write(tmp_path / "r.tsv", "id\tlabel\n1\ty\n2\tb\n")
    with pytest.raises(InputError) as info:
        read_runs(gold, [run])
    assert len(str(info.value)) < 500 and "(5000 characters)" in str(info.value)
