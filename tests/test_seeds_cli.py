"""``evalreport compare`` and ``report`` on a runs folder with a folder per system (several seeds each)."""
import json
import subprocess
import sys

import numpy as np
import pandas as pd
from conftest import write_labels

from evalreport.cli import main

LABELS = ("pos", "neg", "<b>&amp;</b>")


def _task(root, runs_per_system, n_items=120, seed=0):
    """gold.tsv and runs/<system>/<run>.tsv: each run copies the gold label with its own skill."""
    rng = np.random.default_rng(seed)
    gold = rng.integers(0, len(LABELS), n_items)
    root.mkdir(parents=True, exist_ok=True)
    write_labels(root / "gold.tsv", [LABELS[k] for k in gold])
    for s, (system, n) in enumerate(runs_per_system.items()):
        (root / "runs" / system).mkdir(parents=True)
        for k in range(n):
            skill = 0.55 + 0.1 * s + 0.04 * rng.normal()
            pred = np.where(rng.random(n_items) < skill, gold, rng.integers(0, len(LABELS), n_items))
            write_labels(root / "runs" / system / f"seed{k + 1}.tsv", [LABELS[c] for c in pred])
    return root / "gold.tsv", root / "runs"


def test_compare_writes_runs_seed_spread_and_aso(tmp_path):
    gold, runs = _task(tmp_path / "in", {"bert": 5, "svm": 3, "*rule*": 4})
    out = tmp_path / "out"
    rc = main(["compare", str(gold), "--runs-dir", str(runs), "--bootstrap", "200", "--seed", "4", "--primary",
               "accuracy", "--out", str(out), "--quiet"])
    assert rc == 0
    board = pd.read_csv(out / "leaderboard.csv")
    assert sorted(board["system"]) == ["*rule*", "bert", "svm"]
    per_run = pd.read_csv(out / "runs.csv")
    assert list(per_run.columns) == ["system", "run", "measure", "value"]
    assert per_run[per_run["measure"] == "accuracy"].groupby("system").size().to_dict() == {
        "*rule*": 4, "bert": 5, "svm": 3}
    mean = per_run[per_run["measure"] == "accuracy"].groupby("system")["value"].mean()
    np.testing.assert_allclose(board.set_index("system")["value"][mean.index], mean, atol=1e-12)
    aso = pd.read_csv(out / "aso.csv")
    assert {"system_a", "system_b", "measure", "eps_min", "alpha"} <= set(aso.columns) and len(aso) == 6
    np.testing.assert_allclose(aso["alpha"], 0.05 / 3)
    spread = pd.read_csv(out / "seed_spread.csv")
    assert {"seed_sd", "item_se", "se"} <= set(spread.columns)
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["settings"]["runs_per_system"] == {"bert": 5, "svm": 3, "*rule*": 4}
    assert any("two-level bootstrap" in n for n in manifest["notes"])


def test_mixed_folder_exits_2_with_one_line(tmp_path):
    gold, runs = _task(tmp_path / "in", {"bert": 2})
    write_labels(runs / "svm.tsv", ["pos"] * 120)
    out = tmp_path / "out"
    proc = subprocess.run([sys.executable, "-m", "evalreport", "compare", str(gold), "--runs-dir", str(runs),
                           "--out", str(out)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and str(runs) in lines[0] and "beside folders of runs" in lines[0]
    assert not out.exists()


def test_report_on_five_seeds_shows_the_seeds_section(tmp_path):
    gold, runs = _task(tmp_path / "in", {"bert": 5, "svm": 5, "<b>lstm&amp;": 5})
    out = tmp_path / "rep"
    rc = main(["report", str(gold), "--runs-dir", str(runs), "-o", str(out), "--formats", "html", "--engine",
               "builtin", "--no-audit", "--bootstrap", "200", "--primary", "accuracy", "--appendix", "--quiet"])
    assert rc == 0
    methods = (out / "appendix" / "methods.md").read_text(encoding="utf-8")
    assert "5 runs per system" in methods and "Almost Stochastic Order" in methods and "@dror2019deep" in methods
    assert "@dror2019deep" in methods and "dror2019deep" in (out / "appendix" / "references.bib").read_text()
    html = (out / "report.html").read_text(encoding="utf-8")
    assert "Several runs per system" in html and "Almost Stochastic Order" in html
    assert "Evaluation of 3 systems" in html
    assert "chart-seed-strip" in html and "chart-seed-spread" in html
    assert "<b>lstm&amp;" not in html                        # a system's name is text, never markup
    for name in ("runs", "seed_spread", "aso"):
        assert (out / "tables" / f"{name}.csv").is_file()
    from test_chart_validation import assert_every_chart_validates

    from evalreport.report.sections import open_report

    assert assert_every_chart_validates(open_report(out / "tables"), "seeds") == 2      # strip and spread charts
    per_class = pd.read_csv(out / "tables" / "per_class.csv")
    assert sorted(per_class["system"].unique()) == sorted(["bert", "svm", "<b>lstm&amp;"])


def test_out_of_core_backend_refuses_system_folders_and_benchmark_reads_them(tmp_path, capsys):
    gold, runs = _task(tmp_path / "in", {"bert": 2, "svm": 2})
    rc = main(["compare", str(gold), "--runs-dir", str(runs), "--backend", "duckdb", "--out", str(tmp_path / "o")])
    assert rc == 2 and "read in memory only" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()
    rc = main(["benchmark", "--task", f"t={gold}:{runs}", "-o", str(tmp_path / "b"), "--bootstrap", "20",
               "--formats", "html", "--engine", "builtin", "--no-audit", "--quiet"])
    assert rc == 0       # a folder per system is one system per folder (tests/test_benchmark_seeds.py)
    scores = pd.read_csv(tmp_path / "b" / "tables" / "task_scores.csv")
    assert sorted(scores["system"]) == ["bert", "svm"]
