"""Slices: reading slice columns (text, numeric bins, given edges, empty values), bad input (one line,
exit status 2, nothing written), the settings and task-file keys, and ``compare --slice-col`` end to end."""
import io
import json
from contextlib import redirect_stderr, redirect_stdout

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st
from sklearn import metrics

from evalreport.cli import main
from evalreport.errors import InputError
from evalreport.inputs.multilabel import read_multilabel
from evalreport.inputs.readers import read_runs
from evalreport.inputs.settings import Settings
from evalreport.inputs.slices import EMPTY, MAX_SLICES, check_bins, slice_names


def write_task(tmp_path, n: int = 240, seed: int = 0, extra_cols=None):
    """A gold file with columns domain (text, some empty) and length (numeric), and three runs."""
    rng = np.random.default_rng(seed)
    gold = rng.choice(["pos", "neg", "neu"], size=n)
    domain = rng.choice(["news", "web", "chat"], size=n)
    domain[::37] = ""
    length = rng.integers(1, 500, size=n)
    cols = {"id": [f"i{i}" for i in range(n)], "label": gold, "domain": domain, "length": length}
    cols.update(extra_cols or {})
    pd.DataFrame(cols).to_csv(tmp_path / "gold.tsv", sep="\t", index=False)
    (tmp_path / "runs").mkdir(exist_ok=True)
    preds = {}
    for s, acc in (("alpha", 0.8), ("beta", 0.6), ("gamma", 0.7)):
        pred = np.where(rng.random(n) < acc, gold, rng.choice(["pos", "neg", "neu"], size=n))
        pd.DataFrame({"id": cols["id"], "label": pred}).to_csv(tmp_path / "runs" / f"{s}.tsv", sep="\t", index=False)
        preds[s] = pred
    return tmp_path / "gold.tsv", tmp_path / "runs", gold, domain, length, preds


def run_cli(argv):
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


# ----------------------------------------------------------------------------- reading


def test_text_and_numeric_slice_columns_are_read_in_item_order(tmp_path):
    gold, runs_dir, _, domain, length, _ = write_task(tmp_path)
    runs = read_runs(gold, runs_dir=runs_dir, slice_cols=("domain", "length"))
    assert list(runs.slices) == ["domain", "length"]
    expected = np.where(domain == "", EMPTY, domain)
    assert runs.slices["domain"].tolist() == expected.tolist()
    assert runs.slice_names["domain"] == ("chat", "news", "web", EMPTY)
    # more than 20 distinct numbers: 4 quantile bins, ordered by value, each about a quarter of the items
    bins = runs.slice_names["length"]
    assert len(bins) == 4 and bins[0].startswith("[1, ") and bins[-1].endswith("]")
    counts = pd.Series(runs.slices["length"]).value_counts()
    assert counts.min() >= 0.2 * runs.n_items
    lo = [float(b[1:].split(",")[0]) for b in bins]
    assert lo == sorted(lo)
    for name in bins:
        first, last = (float(x) for x in name[1:-1].split(", "))
        inside = length[runs.slices["length"] == name]
        assert inside.min() >= first and (inside.max() < last or name.endswith("]") and inside.max() <= last)


def test_slice_bins_int_and_given_edges(tmp_path):
    gold, runs_dir, *_ = write_task(tmp_path)
    runs = read_runs(gold, runs_dir=runs_dir, slice_cols=("length",), slice_bins=3)
    assert len(runs.slice_names["length"]) == 3
    runs = read_runs(gold, runs_dir=runs_dir, slice_cols=("length",), slice_bins={"length": [0, 100, 250]})
    assert runs.slice_names["length"][:2] == ("[0, 100)", "[100, 250)")
    assert runs.slice_names["length"][-1].startswith("[250, ")


def test_few_distinct_numbers_stay_slices_of_their_own_in_numeric_order():
    names, order = slice_names(["10", "2", "2", "", None, "1"], "stars")
    assert order == ("1", "2", "10", EMPTY)
    assert names.tolist() == ["10", "2", "2", EMPTY, EMPTY, "1"]


def test_subset_and_select_keep_the_slices(tmp_path):
    gold, runs_dir, *_ = write_task(tmp_path)
    runs = read_runs(gold, runs_dir=runs_dir, slice_cols=("domain",))
    web = runs.subset(runs.slices["domain"] == "web")
    assert set(web.slices["domain"]) == {"web"} and web.n_items == int((runs.slices["domain"] == "web").sum())
    assert runs.select(["gamma"]).slices["domain"].tolist() == runs.slices["domain"].tolist()


def test_label_sets_carry_slices_in_a_wide_gold_file(tmp_path):
    gold = tmp_path / "gold.csv"
    gold.write_text("id,x,y,domain\na,1,0,news\nb,0,1,web\nc,1,1,news\n", encoding="utf-8")
    (tmp_path / "r.csv").write_text("id,x,y\na,1,0\nb,1,1\nc,0,1\n", encoding="utf-8")
    runs = read_multilabel(gold, [tmp_path / "r.csv"], slice_cols=("domain",))
    assert runs.labels == ("x", "y") and runs.slices["domain"].tolist() == ["news", "web", "news"]
    assert runs.subset([0, 2]).slices["domain"].tolist() == ["news", "news"]


# ----------------------------------------------------------------------------- bad input


def test_a_missing_slice_column_names_the_file_line_and_the_columns(tmp_path):
    gold, runs_dir, *_ = write_task(tmp_path)
    with pytest.raises(InputError) as err:
        read_runs(gold, runs_dir=runs_dir, slice_cols=("domian",))
    text = str(err.value)
    assert str(gold) in text and "line 1" in text and "'domain'" in text and "'length'" in text


def test_cli_bad_slice_column_one_line_exit_2_nothing_written(tmp_path):
    gold, runs_dir, *_ = write_task(tmp_path)
    out = tmp_path / "out"
    code, _, err = run_cli(["compare", str(gold), "--runs-dir", str(runs_dir), "--slice-col", "lang",
                            "--bootstrap", "10", "--out", str(out), "--quiet"])
    assert code == 2 and not out.exists()
    lines = [x for x in err.splitlines() if x.strip()]
    assert len(lines) == 1 and "no slice column 'lang'" in lines[0] and "gold.tsv, line 1" in lines[0]


def test_too_many_slices_is_an_error_that_suggests_bins(tmp_path):
    n = MAX_SLICES + 50
    gold, runs_dir, *_ = write_task(tmp_path, n=n, extra_cols={"user": [f"u{i}" for i in range(n)],
                                                               "score": np.arange(n) / 7})
    with pytest.raises(InputError, match=f"'user' has {n} slices, more than the {MAX_SLICES}"):
        read_runs(gold, runs_dir=runs_dir, slice_cols=("user",))
    with pytest.raises(InputError, match="--slice-bins"):
        read_runs(gold, runs_dir=runs_dir, slice_cols=("score",), slice_bins=MAX_SLICES + 10)


def test_bins_on_a_text_column_and_bad_bins_are_errors(tmp_path):
    gold, runs_dir, *_ = write_task(tmp_path)
    with pytest.raises(InputError, match="'domain' is not numeric"):
        read_runs(gold, runs_dir=runs_dir, slice_cols=("domain",), slice_bins=3)
    with pytest.raises(InputError, match="increasing"):
        check_bins({"length": [5, 1]}, ["length"])
    code, _, err = run_cli(["compare", str(gold), "--runs-dir", str(runs_dir), "--slice-col", "length",
                            "--slice-bins", "0", "--quiet"])
    assert code == 2 and "--slice-bins must be an integer >= 1" in err


def test_a_slice_of_one_item_is_flagged_small_not_an_error(tmp_path):
    rng = np.random.default_rng(0)
    domain = rng.choice(["news", "web"], size=240).astype(object)
    domain[5] = "lonely"
    gold, runs_dir, *_ = write_task(tmp_path, extra_cols={"source": domain})
    out = tmp_path / "out"
    code, _, err = run_cli(["compare", str(gold), "--runs-dir", str(runs_dir), "--slice-col", "source",
                            "--bootstrap", "20", "--out", str(out), "--no-progress"])
    assert code == 0
    leaders = pd.read_csv(out / "slice_leaders.csv").set_index("slice")
    assert bool(leaders.loc["lonely", "small"]) and leaders.loc["lonely", "n"] == 1
    assert "flagged small" in err
    assert "slices with fewer than" in err and "slice(s)" not in err


# ----------------------------------------------------------------------------- settings, task file, CLI


def test_settings_fields_and_task_file_keys(tmp_path):
    s = Settings(slice_cols=["domain", "length"], slice_bins=3)
    assert s.slice_cols == ("domain", "length") and s.record()["slice_cols"] == ["domain", "length"]
    with pytest.raises(InputError, match="slice_bins"):
        Settings(slice_bins=0)
    gold, runs_dir, *_ = write_task(tmp_path)
    task = tmp_path / "task.toml"
    task.write_text('slices = ["domain", "length"]\n[slice_bins]\nlength = [0, 250]\n', encoding="utf-8")
    out = tmp_path / "out"
    code, _, err = run_cli(["compare", str(gold), "--runs-dir", str(runs_dir), "--task-file", str(task),
                            "--bootstrap", "20", "--out", str(out), "--no-progress"])
    assert code == 0, err
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["settings"]["slice_cols"] == ["domain", "length"]
    assert set(pd.read_csv(out / "slices.csv")["slice"]) >= {"[0, 250)", "news", EMPTY}
    bad = tmp_path / "bad.toml"
    bad.write_text('slices = "domain"\n', encoding="utf-8")
    code, _, err = run_cli(["compare", str(gold), "--runs-dir", str(runs_dir), "--task-file", str(bad), "--quiet"])
    assert code == 2 and "slices" in err


def test_cli_compare_slice_col_writes_the_tables_with_sklearn_values(tmp_path):
    gold, runs_dir, gold_labels, domain, _, preds = write_task(tmp_path, n=400)
    out = tmp_path / "out"
    code, _, err = run_cli(["compare", str(gold), "--runs-dir", str(runs_dir), "--slice-col", "domain",
                            "--slice-col", "length", "--bootstrap", "50", "--out", str(out), "--no-progress"])
    assert code == 0, err
    for name in ("slices", "slice_leaders", "slice_gaps", "slice_summary"):
        assert (out / f"{name}.csv").exists() and (out / f"{name}.json").exists()
    table = pd.read_csv(out / "slices.csv", keep_default_na=False, na_values=[""])
    rows = table[(table["slice_col"] == "domain") & (table["measure"] == "macro_f1")]
    assert len(rows) == 3 * 4
    for row in rows.itertuples():
        items = (domain == "") if row.slice == EMPTY else (domain == row.slice)
        expected = metrics.f1_score(gold_labels[items], preds[row.system][items], average="macro",
                                    labels=np.unique(gold_labels[items]))
        assert row.value == pytest.approx(expected)
    gaps = pd.read_csv(out / "slice_gaps.csv")
    assert set(gaps["slice_col"]) == {"domain", "length"}
    manifest = json.loads((out / "manifest.json").read_text())
    assert any(note.startswith("slices (domain, length)") for note in manifest["notes"])


def test_a_benchmark_task_may_name_slices(tmp_path):
    from evalreport.analyses.benchmark import compare_benchmark
    from evalreport.inputs.benchmark import read_benchmark

    for name in ("one", "two"):
        (tmp_path / name).mkdir()
        write_task(tmp_path / name, n=120, seed=len(name))
    spec = tmp_path / "bench.toml"
    spec.write_text('[tasks.one]\ngold = "one/gold.tsv"\nruns = "one/runs"\nslices = ["domain"]\n'
                    '[tasks.two]\ngold = "two/gold.tsv"\nruns = "two/runs"\n', encoding="utf-8")
    bench = read_benchmark(benchmark_file=spec)
    tasks = {t.name: t for t in bench.tasks}
    assert list(tasks["one"].runs.slices) == ["domain"] and tasks["two"].runs.slices is None
    result = compare_benchmark(bench, Settings(bootstrap=20))
    comparisons = result.comparisons
    assert "slices" in comparisons["one"].extra and "slices" not in comparisons["two"].extra


def test_cli_compare_multilabel_slice_col(tmp_path):
    rows = [("a", ["x"], "news"), ("b", ["y"], "web"), ("c", ["x", "y"], "news"), ("d", [], "web")] * 5
    gold = tmp_path / "gold.jsonl"
    gold.write_text("".join(json.dumps({"id": f"{i}{k}", "label": lab, "domain": dom}) + "\n"
                            for k, (i, lab, dom) in enumerate(rows)), encoding="utf-8")
    (tmp_path / "runs").mkdir()
    (tmp_path / "runs" / "r1.jsonl").write_text("".join(json.dumps({"id": f"{i}{k}", "label": ["x"]}) + "\n"
                                                        for k, (i, _, _) in enumerate(rows)), encoding="utf-8")
    out = tmp_path / "out"
    code, _, err = run_cli(["compare", str(gold), "--runs-dir", str(tmp_path / "runs"), "--multilabel",
                            "--slice-col", "domain", "--bootstrap", "20", "--out", str(out), "--no-progress"])
    assert code == 0, err
    table = pd.read_csv(out / "slices.csv")
    assert set(table["slice"]) == {"news", "web"} and set(table["n"]) == {10}



@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(-1000, 1000), min_size=1, max_size=300), st.integers(1, 8))
def test_quantile_bins_partition_the_items_in_order(values, n_bins):
    names, order = slice_names([str(v) for v in values], "x", n_bins)
    assert 1 <= len(order) <= n_bins and set(names.tolist()) == set(order)
    bounds = [tuple(float(x) for x in name[1:-1].split(", ")) for name in order]
    assert [b[0] for b in bounds] == sorted(b[0] for b in bounds)
    for v, name in zip(values, names):
        lo, hi = bounds[order.index(name)]
        assert lo <= v <= hi and (v < hi or name.endswith("]"))
