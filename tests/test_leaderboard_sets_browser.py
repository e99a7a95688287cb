"""The interactive leaderboard on label sets in a real browser (the system's Chromium driven by Playwright,
the page from file://): re-ranking under an example-based measure, the per-label calibrated view, and a
system's drill-down with per-label scores in place of a confusion matrix. Skipped like the single-label
page's browser tests where Playwright or Chromium is missing."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import evalreport
from evalreport.report.leaderboard_data import page_data, tables_from_comparison
from evalreport.report.leaderboard_page import write_page

sys.path.insert(0, str(Path(__file__).resolve().parent))
import test_leaderboard_page_browser as single  # noqa: E402
from leaderboard_fixtures import label_set_runs  # noqa: E402

# the single-label page's browser and page fixtures (network requests and page errors fail a test), and helpers
browser, page = single.browser, single.page
CHROMIUM, _column, _open, _order = single.CHROMIUM, single._column, single._open, single._order

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(CHROMIUM is None, reason="no chromium on PATH (Debian: apt-get install chromium)")]

HOSTILE = "<img src=x onerror=alert(3)>"


@pytest.fixture(scope="module")
def sets(tmp_path_factory):
    from evalreport.report.render import vega_bundle

    runs = label_set_runs(4, labels=("joy", "trust", "fear", HOSTILE))
    comp = evalreport.compare(runs, evalreport.Settings(bootstrap=200, seed=5, progress=False))
    tables = tables_from_comparison(comp)
    path = tmp_path_factory.mktemp("lbsets") / "sets.html"
    write_page(page_data(tables, comp.manifest()), path, bundle=vega_bundle())
    return path, runs, comp, tables


def _best_first(frame, measure: str, rank: str = "rank") -> list[str]:
    rows = frame[frame["measure"] == measure]
    return list(rows.sort_values([rank, "system"], kind="stable")["system"])


def test_choosing_an_example_based_measure_reranks_with_its_intervals_and_letters(sets, page):
    path, _, comp, tables = sets
    _open(page, path)
    assert _order(page) == _best_first(comp.ranks, comp.primary)
    groups = page.eval_on_selector_all("[data-lb=measure] optgroup", "gs => gs.map(g => g.label)")
    assert "Example-based (per item)" in groups and any(g.startswith("Label-based") for g in groups)
    page.select_option("[data-lb=measure]", "hamming_loss")                # lower is better
    order = _order(page)
    assert order == _best_first(comp.ranks, "hamming_loss")
    iv = comp.intervals[comp.intervals["measure"] == "hamming_loss"].set_index("system")
    assert _column(page, 3) == [f"[{iv.loc[s, 'lo']:.3f}, {iv.loc[s, 'hi']:.3f}]" for s in order]
    letters = tables["measure_letters"]
    want = letters[letters["measure"] == "hamming_loss"].set_index("system")["letters"]
    assert _column(page, 4) == [want[s] for s in order]
    assert "lower is better" in page.inner_text("[data-lb=status]")
    assert page.locator(".lb-chart svg.marks").count() == 1


def test_the_calibrated_view_is_per_label(sets, page):
    path, _, comp, tables = sets
    _open(page, path)
    page.check("[data-lb=calibrated]")
    summary = tables["calibration_summary"]
    order = _order(page)
    assert order == _best_first(summary, comp.primary, rank="rank_calibrated")
    want = summary[summary["measure"] == comp.primary].set_index("system")["calibrated"]
    assert _column(page, 2) == [f"{want[s]:.3f}" for s in order]
    assert "per-label prevalence calibration" in page.inner_text("[data-lb=scope]")


def test_the_drill_down_shows_per_label_scores_not_a_confusion_matrix(sets, page):
    path, runs, comp, tables = sets
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    _open(page, path)
    name = comp.systems[1]
    page.locator(".lb-table tbody button", has_text=name).click()
    drill = page.locator("[data-lb=drill]")
    assert drill.is_visible() and page.evaluate("document.activeElement.textContent") == f"System: {name}"
    assert "confusion" not in drill.inner_text().lower()
    per_label = drill.locator("table").last
    assert "Per-label scores" in per_label.locator("caption").inner_text()
    head = per_label.locator("thead th").all_inner_texts()
    assert head == ["label", "gold items", "recall", "precision", "f1", "added", "dropped"]
    rows = per_label.locator("tbody tr")
    assert rows.count() == len(runs.labels)
    pl = tables["per_label"].set_index(["system", "label"])
    errors = tables["label_errors"].set_index(["system", "label"])
    for k, label in enumerate(runs.labels):
        cells = rows.nth(k).locator("th, td").all_inner_texts()
        assert cells[0] == label                                    # the hostile label is text, not an image
        assert cells[1] == str(int(runs.gold[:, k].sum()))
        assert cells[2:5] == [f"{pl.loc[(name, label), m]:.3f}" for m in ("recall", "precision", "f1")]
        assert cells[5:] == [str(int(errors.loc[(name, label), c])) for c in ("added", "dropped")]
    s = comp.systems.index(name)
    mean = runs.pred[s].sum(axis=1).mean()
    assert f"Labels per item: {mean:.2f}" in drill.inner_text()
    assert page.locator("[data-lb=drill] img").count() == 0 and dialogs == []
    page.keyboard.press("Escape")
    assert not drill.is_visible()
    np.testing.assert_equal(len(_order(page)), len(comp.systems))


def test_an_example_based_measure_in_the_calibrated_view_says_it_shows_raw_values(sets, page):
    path, _, comp, tables = sets
    _open(page, path)
    page.check("[data-lb=calibrated]")
    page.select_option("[data-lb=measure]", "example_f1")
    order = _order(page)
    assert order == _best_first(comp.ranks, "example_f1")                   # raw ranks, raw letters
    letters = tables["measure_letters"]
    want = letters[letters["measure"] == "example_f1"].set_index("system")["letters"]
    assert _column(page, 4) == [want[s] for s in order]
    assert "prevalence-calibrated)" not in page.inner_text("[data-lb=status]")
    assert "has no prevalence-calibrated form" in page.inner_text("[data-lb=scope]")
