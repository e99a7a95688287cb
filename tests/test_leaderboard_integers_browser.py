"""Integers on the interactive leaderboard page as the static tables print them (integer_text in
evalreport/report/display.py: thousands separators from 10,000 on), in a real browser (the system's Chromium driven
by Playwright, the page from file://): the confusion matrix of a system's drill-down and, on label sets, the gold
items and the added and dropped counts per label. Skipped like the other browser tests where Playwright or
Chromium is missing."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

import evalreport
from evalreport.counts import Counts
from evalreport.report.display import integer_text
from evalreport.report.leaderboard_data import page_data, tables_from_comparison
from evalreport.report.leaderboard_page import write_page

sys.path.insert(0, str(Path(__file__).resolve().parent))
import test_leaderboard_page_browser as single  # noqa: E402
from leaderboard_fixtures import label_set_runs, synthetic_runs  # noqa: E402

browser, page = single.browser, single.page
CHROMIUM, _open = single.CHROMIUM, single._open

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(CHROMIUM is None, reason="no chromium on PATH (Debian: apt-get install chromium)")]


def _drill(pg, path: Path, system: str):
    _open(pg, path)
    pg.locator(".lb-table tbody button", has_text=system).click()
    drill = pg.locator("[data-lb=drill]")
    assert drill.is_visible()
    return drill


def test_confusion_counts_have_thousands_separators_as_in_the_static_tables(tmp_path, page):
    runs = synthetic_runs(3, n_items=30000, n_classes=3, seed=2)
    comp = evalreport.compare(runs, evalreport.Settings(bootstrap=30, seed=1, progress=False))
    counts = Counts.from_runs(runs)
    path = write_page(page_data(tables_from_comparison(comp, counts), comp.manifest()), tmp_path / "lb.html",
                      bundle=None)
    name = runs.systems[2]
    matrix = counts.tensor[list(counts.systems).index(name)]
    assert matrix.max() >= 10_000 and (matrix < 10_000).any()          # both kinds of cells are on the page
    confusion = _drill(page, path, name).locator("table").last
    assert "Confusion matrix" in confusion.locator("caption").inner_text()
    rows = confusion.locator("tbody tr")
    for g in range(len(runs.labels)):
        cells = rows.nth(g).locator("th, td").all_inner_texts()
        assert cells[1:] == [integer_text(int(v)) for v in matrix[g]]
    assert any("," in integer_text(int(v)) for v in matrix.ravel())


def test_label_counts_have_thousands_separators_as_in_the_static_tables(tmp_path, page):
    runs = label_set_runs(2, n_items=24000, labels=("joy", "trust", "fear"))
    comp = evalreport.compare(runs, evalreport.Settings(bootstrap=30, seed=1, progress=False))
    tables = tables_from_comparison(comp)
    path = write_page(page_data(tables, comp.manifest()), tmp_path / "sets.html", bundle=None)
    name = comp.systems[1]
    per_label = _drill(page, path, name).locator("table").last
    errors = tables["label_errors"].set_index(["system", "label"])
    rows = per_label.locator("tbody tr")
    seen = []
    for k, label in enumerate(runs.labels):
        cells = rows.nth(k).locator("th, td").all_inner_texts()
        gold = int(runs.gold[:, k].sum())
        assert cells[1] == integer_text(gold)
        assert cells[5:] == [integer_text(int(errors.loc[(name, label), c])) for c in ("added", "dropped")]
        seen += [gold] + [int(errors.loc[(name, label), c]) for c in ("added", "dropped")]
    assert max(seen) >= 10_000 and min(seen) < 10_000
