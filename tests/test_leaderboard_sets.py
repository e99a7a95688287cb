"""The interactive leaderboard on label sets, without a browser: the page's data against the multi-label
comparison's tables and against scikit-learn's multi-label metrics, the measures grouped label-based and
example-based, per-label calibration, and the command from inputs and from ``compare --out``'s folder."""
from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from sklearn import metrics

import evalreport
from evalreport.report.leaderboard_data import page_data, tables_from_comparison

sys.path.insert(0, str(Path(__file__).resolve().parent))
from leaderboard_fixtures import label_set_runs, write_label_sets  # noqa: E402


@pytest.fixture(scope="module")
def sets():
    runs = label_set_runs(3)
    comp = evalreport.compare(runs, evalreport.Settings(bootstrap=200, seed=2, progress=False))
    tables = tables_from_comparison(comp)
    return runs, comp, tables, page_data(tables, comp.manifest())


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", "from evalreport.cli import run; run()",
                           *args], capture_output=True, text=True, cwd=cwd, timeout=300)


def _data(page: Path) -> dict:
    return json.loads(re.search(r'data-lb="data">(.*?)</script>', page.read_text(encoding="utf-8"), re.S).group(1))


def test_the_drill_down_holds_per_label_scores_as_scikit_learn_computes_them(sets):
    """Differential: each system's per-label precision, recall and F1 (each label's own 2 x 2 matrix) are
    scikit-learn's ``average=None`` multi-label scores; added / dropped count false positives / negatives."""
    runs, _, _, data = sets
    drill = data["drill"]
    assert data["kind"] == "label_sets" and drill["kind"] == "labels"
    assert drill["confusion"] is None and drill["per_class"] is None
    assert drill["metrics"] == ["recall", "precision", "f1"]
    assert drill["support"] == runs.gold.sum(axis=0).tolist()
    for s in range(len(runs.systems)):
        gold, pred = runs.gold.astype(int), runs.pred[s].astype(int)
        want = [metrics.recall_score(gold, pred, average=None), metrics.precision_score(gold, pred, average=None),
                metrics.f1_score(gold, pred, average=None)]
        np.testing.assert_allclose(np.array(drill["per_label"][s], dtype=float), np.array(want), rtol=1e-5)
        assert drill["added"][s] == (pred & (1 - gold)).sum(axis=0).tolist()
        assert drill["dropped"][s] == ((1 - pred) & gold).sum(axis=0).tolist()
        card = drill["cardinality"]["systems"][s]
        assert card["cardinality"] == pytest.approx(pred.sum(axis=1).mean(), rel=1e-5)
        assert card["empty"] == pytest.approx((pred.sum(axis=1) == 0).mean(), rel=1e-5)
    assert drill["cardinality"]["gold"]["cardinality"] == pytest.approx(runs.gold.sum(axis=1).mean(), rel=1e-5)


def test_the_measures_values_intervals_and_letters_are_the_comparisons(sets):
    runs, comp, tables, data = sets
    groups = {m["id"]: m["group"] for m in data["measures"]}
    assert groups["example_f1"] == groups["subset_accuracy"] == "Example-based (per item)"
    assert groups["f1_micro"] == "Label-based (micro)" and groups[comp.primary].startswith("Label-based")
    assert data["letters_scope"] == "every" and data["labels"][-1] == "<b>x</b>"
    for mid in ("example_f1", "hamming_loss", "f1_micro"):
        block = data["raw"][mid]
        scores = comp.scores[comp.scores["measure"] == mid].set_index("system")["value"]
        np.testing.assert_allclose(block["value"], [scores[s] for s in comp.systems], rtol=1e-5)
        letters = tables["measure_letters"]
        rows = letters[letters["measure"] == mid].set_index("system")
        assert block["letters"] == [rows.loc[s, "letters"] for s in comp.systems]
        iv = comp.intervals[comp.intervals["measure"] == mid].set_index("system")
        np.testing.assert_allclose(block["lo"], [iv.loc[s, "lo"] for s in comp.systems], rtol=1e-5)
    # example-based F1 is scikit-learn's samples average; items with an empty gold and predicted set are 0/0,
    # left out under the default policy "nan" as scikit-learn's zero_division=nan leaves them out
    want = [metrics.f1_score(runs.gold.astype(int), runs.pred[s].astype(int), average="samples", zero_division=np.nan)
            for s in range(len(runs.systems))]
    np.testing.assert_allclose(data["raw"]["example_f1"]["value"], want, rtol=1e-5)


def test_the_calibrated_view_is_the_per_label_calibration_of_the_label_averages(sets):
    _, comp, tables, data = sets
    summary = tables["calibration_summary"]
    cal = data["calibrated"]
    assert set(cal) == set(summary["measure"]) and "example_f1" not in cal
    for mid, block in cal.items():
        rows = summary[summary["measure"] == mid].set_index("system")
        np.testing.assert_allclose(block["value"], [rows.loc[s, "calibrated"] for s in comp.systems], rtol=1e-5)
        assert block["rank"] == [rows.loc[s, "rank_calibrated"] for s in comp.systems]


def test_the_command_reads_label_sets_and_the_folder_of_compare_out(tmp_path):
    gold, runs_dir = write_label_sets(label_set_runs(3, names=["a", "b", "c"]), tmp_path / "data")
    page = tmp_path / "sets.html"
    done = _cli("leaderboard", str(gold), "--runs-dir", str(runs_dir), "--bootstrap", "60", "--no-chart", "-o",
                str(page), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    direct = _data(page)
    assert direct["kind"] == "label_sets" and direct["letters_scope"] == "every"
    assert [i["role"] for i in direct["provenance"]["inputs"]][:1] == ["gold"]
    out = tmp_path / "cmp"
    done = _cli("compare", str(gold), "--runs-dir", str(runs_dir), "--bootstrap", "60", "--out", str(out), "--quiet",
                cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    page2 = tmp_path / "from_tables.html"
    done = _cli("leaderboard", "--from-tables", str(out), "--no-chart", "-o", str(page2), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    folder = _data(page2)
    assert folder["kind"] == "label_sets" and folder["letters_scope"] == "primary"
    assert folder["drill"] == direct["drill"] and folder["calibrated"] == direct["calibrated"]
    assert {m: b["value"] for m, b in folder["raw"].items()} == {m: b["value"] for m, b in direct["raw"].items()}


def test_an_option_with_no_meaning_for_label_sets_is_one_line_and_no_page(tmp_path):
    gold, runs_dir = write_label_sets(label_set_runs(2), tmp_path / "data")
    page = tmp_path / "sets.html"
    done = _cli("leaderboard", str(gold), "--runs-dir", str(runs_dir), "--positive", "joy", "-o", str(page),
                cwd=tmp_path)
    lines = [x for x in done.stderr.splitlines() if x.strip()]
    assert done.returncode == 2 and len(lines) == 1 and "--positive" in lines[0] and "leaderboard" in lines[0]
    assert not page.exists()
