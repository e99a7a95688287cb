"""``evalreport compare`` and ``report`` with ``--cluster-col`` and a folder of runs per system: runs, then
whole clusters (clustered items, several runs per system), end to end; a test the design cannot run is one
line and exit status 2, with nothing written."""
import json
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from conftest import write_rows

from evalreport.cli import main

LABELS = ("pos", "neg", "<b>x&amp;</b>")
DOCS, PER_DOC = 30, 6


def _task(root, runs_per_system: dict[str, int], seed: int = 0):
    """gold.tsv with a ``doc`` column and runs/<system>/seed<k>.tsv; each system's skill varies by document."""
    rng = np.random.default_rng(seed)
    n = DOCS * PER_DOC
    gold = rng.integers(0, len(LABELS), n)
    ids = [f"i{k}" for k in range(n)]
    root.mkdir(parents=True, exist_ok=True)
    write_rows(root / "gold.tsv", [(i, LABELS[g], f"doc {k // PER_DOC}") for k, (i, g) in enumerate(zip(ids, gold))],
               header=("id", "label", "doc"))
    for s, (system, runs) in enumerate(runs_per_system.items()):
        (root / "runs" / system).mkdir(parents=True)
        skill = np.repeat(rng.normal(0.6 + 0.08 * s, 0.25, DOCS), PER_DOC)
        for r in range(runs):
            right = rng.random(n) < np.clip(skill + rng.normal(0, 0.03), 0, 1)
            pred = np.where(right, gold, rng.integers(0, len(LABELS), n))
            write_rows(root / "runs" / system / f"seed{r + 1}.tsv", [(i, LABELS[p]) for i, p in zip(ids, pred)],
                       header=("id", "label"))
    return root / "gold.tsv", root / "runs"


@pytest.fixture(scope="module")
def task(tmp_path_factory):
    return _task(tmp_path_factory.mktemp("seedclu"), {"bert": 3, "svm": 4, "rule": 3})


def test_compare_resamples_runs_then_clusters(task, tmp_path):
    gold, runs = task
    out = tmp_path / "cmp"
    assert main(["compare", str(gold), "--runs-dir", str(runs), "--cluster-col", "doc", "--bootstrap", "200",
                 "--primary", "accuracy", "--out", str(out), "--quiet"]) == 0
    board = pd.read_csv(out / "leaderboard.csv").set_index("system")
    per_run = pd.read_csv(out / "runs.csv")
    mean = per_run[per_run["measure"] == "accuracy"].groupby("system")["value"].mean()
    np.testing.assert_allclose(board.loc[mean.index, "value"], mean, atol=1e-12)
    assert (board["lo"] <= board["value"]).all() and (board["value"] <= board["hi"]).all()
    pairwise = pd.read_csv(out / "pairwise.csv")
    assert set(pairwise["test"]) == {"bootstrap"} and len(pairwise) == 3
    design = pd.read_csv(out / "design.csv")
    assert sorted(design["system"]) == ["bert", "rule", "svm"] and set(design["n_clusters"]) == {DOCS}
    spread = pd.read_csv(out / "seed_spread.csv")
    acc = spread[spread["measure"] == "accuracy"].set_index("system")
    np.testing.assert_allclose(acc.loc[design["system"], "item_se"], design["se_cluster"], rtol=1e-9)
    assert len(pd.read_csv(out / "aso.csv")) == 6
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["settings"]["cluster_col"] == "doc" and manifest["settings"]["n_clusters"] == DOCS
    assert manifest["settings"]["runs_per_system"] == {"bert": 3, "svm": 4, "rule": 3}
    assert manifest["notes"][0].startswith("clustered items, several runs per system: two-level bootstrap")


def test_report_names_the_design(task, tmp_path):
    gold, runs = task
    out = tmp_path / "rep"
    assert main(["report", str(gold), "--runs-dir", str(runs), "--cluster-col", "doc", "--bootstrap", "200",
                 "--primary", "accuracy", "-o", str(out), "--formats", "html", "--engine", "builtin", "--no-audit",
                 "--appendix", "--quiet"]) == 0
    html = (out / "report.html").read_text(encoding="utf-8")
    assert "(clustered items, several runs per system)" in html
    assert "two-level bootstrap (runs, then clusters)" in html and "runs, then items" not in html
    assert "the same clusters for every run of every system" in html and "Several runs per system" in html
    assert "two-level bootstrap over runs and clusters" in html          # the seed strip chart's subtitle
    assert "<b>x&amp;</b>" not in html                          # a class name is text, never markup
    methods = (out / "appendix" / "methods.md").read_text(encoding="utf-8")
    assert "then the clusters above" in methods and "@owen2007pigeonhole" in methods


def test_one_cluster_is_one_line_and_exit_2(tmp_path):
    """The command line offers no test the design cannot run (the letters' test is a Python setting, refused
    there); a clustering the cluster bootstrap cannot resample is still refused with several runs."""
    gold, runs = _task(tmp_path / "in", {"bert": 2, "svm": 2})
    frame = pd.read_csv(gold, sep="\t")
    frame["doc"] = "the only document"
    frame.to_csv(gold, sep="\t", index=False)
    out = tmp_path / "out"
    proc = subprocess.run([sys.executable, "-m", "evalreport", "compare", str(gold), "--runs-dir", str(runs),
                           "--cluster-col", "doc", "--out", str(out)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2, proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "the items fall in 1 cluster ('the only document')" in lines[0], lines
    assert not out.exists()
