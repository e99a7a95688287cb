"""Slices as a shared task's organiser uses them: ``--slice-bins N`` beside a text slice column, and the
Codabench per-slice keys in the slices' own order."""
from __future__ import annotations

import numpy as np
import pytest

import evalreport
from evalreport.errors import InputError


def _files(tmp_path, n: int = 120):
    """A gold file with a text (domain) and a numeric (length) slice column and two runs."""
    rng = np.random.default_rng(7)
    gold = rng.choice(["x", "y"], n)
    domain = rng.choice(["web", "news", "blogs"], n)
    length = rng.integers(1, 500, n)
    lines = ["id\tlabel\tdomain\tlength"] + [f"i{i}\t{g}\t{d}\t{k}" for i, (g, d, k) in
                                               enumerate(zip(gold, domain, length))]
    (tmp_path / "gold.tsv").write_text("\n".join(lines) + "\n")
    runs = tmp_path / "runs"
    runs.mkdir()
    for s in ("a", "b"):
        pred = np.where(rng.random(n) < 0.8, gold, rng.choice(["x", "y"], n))
        (runs / f"{s}.tsv").write_text("id\tlabel\n" + "".join(f"i{i}\t{p}\n" for i, p in enumerate(pred)))
    return tmp_path / "gold.tsv", runs, domain, length


def test_slice_bins_cuts_the_numeric_column_and_keeps_the_text_column(tmp_path):
    gold, runs, domain, length = _files(tmp_path)
    got = evalreport.read_runs(str(gold), runs_dir=str(runs), slice_cols=("domain", "length"), slice_bins=3)
    assert got.slice_names["domain"] == ("blogs", "news", "web")
    assert len(got.slice_names["length"]) == 3
    assert list(got.slices["domain"]) == list(domain)


def test_slice_bins_with_only_text_columns_is_still_refused(tmp_path):
    gold, runs, *_ = _files(tmp_path)
    with pytest.raises(InputError, match="not numeric"):
        evalreport.read_runs(str(gold), runs_dir=str(runs), slice_cols=("domain",), slice_bins=3)


def test_codabench_slice_keys_follow_the_slices_order_not_the_rows_order():
    from evalreport.counts import Counts
    from evalreport.inputs.runs import Runs
    from evalreport.measures import evaluate, get
    from evalreport.report.codabench_slices import slice_rows

    # the first row is of the empty slice, then "B-2", then "b 2" (both safe names "b_2"): the keys and the
    # _2 of a repeat follow the column's order (docs/codabench.md), which the slices' tables also use
    domain = np.array(["(empty)", "B-2", "b 2", "a", "B-2", "a", "b 2", "(empty)"], dtype=object)
    gold = np.array([0, 1, 0, 1, 0, 1, 1, 0])
    runs = Runs(gold=gold, pred=gold[None, :].copy(), labels=("x", "y"), systems=("submission",),
                slices={"domain": domain}, slice_names={"domain": ("a", "b 2", "B-2", "(empty)")})

    def values(sub):
        return evaluate(Counts.from_runs(sub), [get("accuracy")])["value"].astype(float).tolist()

    rows = slice_rows(runs, runs.slices, [get("accuracy")], ["accuracy"], evaluate_subset=values)
    assert list(rows["slice"]) == ["a", "b 2", "B-2", "(empty)"]
    assert list(rows["key"]) == ["accuracy__a", "accuracy__b_2", "accuracy__b_2_2", "accuracy__empty"]
    assert list(rows["n"]) == [2, 2, 2, 2]


def test_leaderboard_page_records_a_command_that_the_shell_runs_again(tmp_path):
    import json
    import re
    import shlex
    import subprocess
    import sys
    from pathlib import Path

    stance = Path(__file__).resolve().parent.parent / "examples" / "stance"
    out = tmp_path / "page.html"
    names = 'bert,lexicon,majority,<b>x</b> & "y"'
    args = ["leaderboard", str(stance / "gold.tsv"), "--runs-dir", str(stance / "runs"), "--names", names,
            "--bootstrap", "20", "--no-chart", "--quiet", "-o", str(out)]
    done = subprocess.run([sys.executable, "-c", "from evalreport.cli import run; run()",
                           *args], capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert done.returncode == 0, done.stderr
    data = json.loads(re.search(r'data-lb="data">(.*?)</script>', out.read_text(encoding="utf-8"), re.DOTALL).group(1))
    command = data["provenance"]["command"]
    assert shlex.split(command) == ["evalreport", *args]


def test_benchmark_slice_col_beside_a_task_that_names_its_own_slices(tmp_path):
    """A task's own ``slices`` override ``--slice-col`` for that task (as every task key overrides the
    defaults, docs/plugins.md); each task is sliced by the columns it was read with."""
    from evalreport.analyses.benchmark import compare_benchmark
    from evalreport.inputs.benchmark import read_benchmark
    from evalreport.inputs.settings import Settings

    for name in ("one", "two"):
        (tmp_path / name).mkdir()
        _files(tmp_path / name)
    spec = tmp_path / "bench.toml"
    spec.write_text('[tasks.one]\ngold = "one/gold.tsv"\nruns = "one/runs"\nslices = ["domain"]\n'
                    '[tasks.two]\ngold = "two/gold.tsv"\nruns = "two/runs"\n', encoding="utf-8")
    bench = read_benchmark(benchmark_file=spec, defaults={"slices": ("length",)})     # benchmark --slice-col length
    result = compare_benchmark(bench, Settings(bootstrap=20, slice_cols=("length",)))
    one, two = (result.comparisons[t].extra["slices"] for t in ("one", "two"))
    assert set(one["slice_col"]) == {"domain"} and set(two["slice_col"]) == {"length"}


def test_a_shared_lead_goes_to_the_overall_better_system_and_names_the_others():
    from evalreport.analyses.slice_findings import slice_findings
    from evalreport.inputs.runs import Runs

    # slice "s": "early" and "late" are both perfect there (a shared lead); "late" is better on all items,
    # so it is the slice's best whatever the systems' order, and "early" is named as sharing the lead
    rng = np.random.default_rng(3)
    n = 200
    gold = rng.integers(0, 2, n)
    dom = np.where(np.arange(n) < 100, "s", "t").astype(object)
    early = gold.copy()
    early[100:160] = 1 - gold[100:160]              # wrong on 60 items of "t"
    late = gold.copy()
    late[100:120] = 1 - gold[100:120]               # wrong on 20 items of "t"
    runs = Runs(gold=gold, pred=np.stack([early, late]), labels=("x", "y"), systems=("early", "late"),
                slices={"dom": dom}, slice_names={"dom": ("s", "t")})
    cmp = evalreport.compare(runs, evalreport.Settings(bootstrap=100, primary="accuracy", seed=1))
    lead = cmp.extra["slice_leaders"].set_index("slice")
    assert lead.loc["s", "best"] == "late" and lead.loc["s", "shared"] == "early"
    assert lead.loc["t", "best"] == "late" and lead.loc["t", "shared"] == ""
    # the overall leader leads both slices, one of them shared: no slice where another system leads
    rows = slice_findings(cmp.leaderboard, cmp.extra["slice_leaders"], "accuracy")
    assert rows == []
    # with the order of the systems reversed the table is the same
    back = Runs(gold=gold, pred=np.stack([late, early]), labels=("x", "y"), systems=("late", "early"),
                slices={"dom": dom}, slice_names={"dom": ("s", "t")})
    lead2 = evalreport.compare(back, evalreport.Settings(bootstrap=100, primary="accuracy", seed=1))
    assert lead2.extra["slice_leaders"].set_index("slice").loc["s", "best"] == "late"


def test_the_leads_sentence_counts_shared_leads():
    import pandas as pd

    from evalreport.report.sections.slices import slice_sentence

    rows = pd.DataFrame([
        {"finding": "slice_leads", "system": "late", "measure": "accuracy", "value": 3.0, "detail": "dom|4|2"},
        {"finding": "slice_leader", "system": "other", "measure": "accuracy", "value": 0.9,
         "detail": "dom|u|not separated"}])
    text = slice_sentence(rows, "Accuracy")
    assert "leads on 3 of 4 slices of dom (2 of them shared" in text
