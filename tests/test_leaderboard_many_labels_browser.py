"""The label-set leaderboard page with 500 labels, made by `evalreport leaderboard` and opened in a real browser
(Chromium driven by Playwright, as tests/test_leaderboard_sets_browser.py): a system's drill-down shows the 20 most
and the 20 least frequent labels, says how many more per_label.csv holds, and the page stays small."""
from __future__ import annotations

import io
import json
import re
import sys
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import numpy as np
import pytest

from evalreport.cli import main

sys.path.insert(0, str(Path(__file__).resolve().parent))
import test_leaderboard_page_browser as single  # noqa: E402
from leaderboard_fixtures import label_set_runs, write_label_sets  # noqa: E402

browser, page = single.browser, single.page
CHROMIUM, _open = single.CHROMIUM, single._open

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(CHROMIUM is None, reason="no chromium on PATH (Debian: apt-get install chromium)")]

N_LABELS = 500


@pytest.fixture(scope="module")
def many(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("many_labels")
    names = tuple(f"label {k:03d}" for k in range(N_LABELS))
    runs = label_set_runs(3, n_items=200, labels=names, names=["a", "b", "c"], seed=3)
    gold, runs_dir = write_label_sets(runs, tmp / "data")
    path = tmp / "page.html"
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        rc = main(["leaderboard", str(gold), "--runs-dir", str(runs_dir), "--bootstrap", "30", "--no-chart",
                   "--measures", "example_f1", "-o", str(path)])
    assert rc == 0, err.getvalue()
    return path, runs


def test_the_drill_down_of_500_labels_shows_40_and_says_how_many_are_hidden(many, page):
    path, runs = many
    _open(page, path)
    page.locator(".lb-table tbody button", has_text="b").first.click()
    drill = page.locator("[data-lb=drill]")
    assert drill.is_visible()
    table = drill.locator("table").last
    assert "Per-label scores" in table.locator("caption").inner_text()
    shown = table.locator("tbody th").all_inner_texts()
    assert len(shown) == 40
    support = runs.gold.sum(axis=0)
    order = np.argsort(-support, kind="stable")
    want = [runs.labels[k] for k in np.concatenate([order[:20], order[-20:]])]
    assert shown == want                                    # the most frequent first, then the least frequent
    counts = [int(c) for c in table.locator("tbody tr td:nth-of-type(1)").all_inner_texts()]
    assert counts == sorted(counts, reverse=True) and counts[0] == support.max() and counts[-1] == support.min()
    assert ("500 labels: the 20 most and the 20 least frequent in the gold sets are shown; the other 460 are in "
            "per_label.csv.") in drill.inner_text()


def test_the_page_holds_the_values_of_the_shown_labels_only(many):
    """The page's data carries 40 labels' values per system and metric, not 500 (which would double the page)."""
    path, runs = many
    text = path.read_text(encoding="utf-8")
    data = json.loads(re.search(r'data-lb="data">(.*?)</script>', text, re.S).group(1))
    drill = data["drill"]
    assert len(drill["shown"]) == 40 and len(drill["support"]) == 40
    assert {len(metric) for system in drill["per_label"] for metric in system} == {40}
    assert {len(row) for row in drill["added"] + drill["dropped"]} == {40}
    assert [int(runs.gold[:, k].sum()) for k in drill["shown"]] == drill["support"]


@pytest.fixture(scope="module")
def many_classes(tmp_path_factory):
    """A single-label task of 60 classes (skewed prevalence), 3 systems, its leaderboard page."""
    from conftest import write_run_files

    tmp = tmp_path_factory.mktemp("many_classes")
    rng = np.random.default_rng(5)
    names = [f"class {k:02d}" for k in range(60)]
    share = np.linspace(3.0, 0.2, len(names))
    gold = rng.choice(names, 3000, p=share / share.sum())
    preds = {s: np.where(rng.random(gold.size) < q, gold, rng.choice(names, gold.size))
             for s, q in (("a", 0.8), ("b", 0.6), ("c", 0.4))}
    gold_path, run_paths = write_run_files(tmp / "data", gold, preds)
    path = tmp / "page.html"
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        rc = main(["leaderboard", str(gold_path), *map(str, run_paths), "--bootstrap", "30", "--no-chart",
                   "--measures", "accuracy", "-o", str(path)])
    assert rc == 0, err.getvalue()
    return path, gold


def test_the_per_class_drill_down_of_60_classes_shows_40_and_says_how_many_are_hidden(many_classes, page):
    """As for label sets: the 20 most and the 20 least frequent gold classes, most frequent first; the page's
    data holds those 40 classes' values only."""
    path, gold = many_classes
    _open(page, path)
    page.locator(".lb-table tbody button", has_text="b").first.click()
    drill = page.locator("[data-lb=drill]")
    table = drill.locator("table", has=page.locator("caption", has_text="Per-class scores"))
    shown = table.locator("tbody th").all_inner_texts()
    names, counts = np.unique(gold, return_counts=True)
    order = np.argsort(-counts, kind="stable")
    assert shown == [str(names[k]) for k in np.concatenate([order[:20], order[-20:]])]
    assert ("60 classes: the 20 most and the 20 least frequent in the gold labels are shown; the other 20 are in "
            "per_class.csv.") in drill.inner_text()
    data = json.loads(re.search(r'data-lb="data">(.*?)</script>', path.read_text(encoding="utf-8"), re.S).group(1))
    assert {len(metric) for system in data["drill"]["per_class"] for metric in system} == {40}
