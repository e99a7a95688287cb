"""The interactive leaderboard at 100 systems, in a real browser (Chromium driven by Playwright, the page
opened from file://): letters written with ranges ("d,g\u2013o,qw") are sorted by the letters they hold and
explained on the page, and long names that share their beginning stay distinct on the chart's axis
(shortened in the middle, as the report's charts shorten them).

Skipped, with the reason, where Playwright or a system Chromium is missing."""
from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

import evalreport
from evalreport.analyses.letters import RANGE, letter_names, letter_set
from evalreport.counts import Counts
from evalreport.report.leaderboard_data import page_data, tables_from_comparison
from evalreport.report.leaderboard_page import NAME_LIMIT, write_page

sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright is not installed (pip install -e '.[test]')")
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(CHROMIUM is None, reason="no chromium on PATH (Debian: apt-get install chromium)")]

sys.path.insert(0, str(Path(__file__).resolve().parent))
from leaderboard_fixtures import synthetic_runs  # noqa: E402

#: 100 names that differ only in the middle: cut at their end, they would all read the same.
NAMES = [f"Polytechnic-of-Southland-NLP-group-shared-task-submission-{s:03d}-xlmr-large" for s in range(100)]


@pytest.fixture(scope="module")
def hundred(tmp_path_factory):
    from evalreport.report.render import vega_bundle

    runs = synthetic_runs(100, n_items=400, names=NAMES)
    comp = evalreport.compare(runs, evalreport.Settings(bootstrap=200, seed=1, primary="macro_f1",
                                                        measures=("accuracy",), progress=False))
    tables = tables_from_comparison(comp, Counts.from_runs(runs))
    path = tmp_path_factory.mktemp("lb100") / "results.html"
    write_page(page_data(tables, comp.manifest()), path, bundle=vega_bundle())
    return path, tables


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        pg = b.new_page()
        errors: list[str] = []
        pg.on("pageerror", lambda e: errors.append(str(e)))
        pg.errors = errors
        yield pg
        b.close()


def _open(pg, path: Path) -> None:
    pg.goto(path.as_uri())
    pg.wait_for_selector(".lb-root[data-lb-ready='1']", timeout=30000)
    pg.wait_for_selector(".lb-chart svg.marks", timeout=30000)


def _letters_column(pg) -> list[str]:
    return pg.eval_on_selector_all(".lb-table tbody tr:not([hidden])", "rows => rows.map(r => r.cells[4].textContent)")


def _key(text: str) -> list[int]:
    """A display string's letters as positions, in order: the order the page must sort by."""
    position = {n: k for k, n in enumerate(letter_names(400))}
    return sorted(position[n] for n in letter_set(text))


def test_letters_with_ranges_sort_by_the_letters_held_and_are_explained(hundred, page):
    path, tables = hundred
    _open(page, path)
    page.select_option("[data-lb=measure]", "accuracy")
    ml = tables["measure_letters"]
    want = ml[ml["measure"] == "accuracy"]["letters"]
    assert want.str.contains(RANGE).any() and not want.str.contains(r"\d").any()      # one-character letters
    page.locator("th[data-key=letters] button").click()
    shown = _letters_column(page)
    assert sorted(shown) == sorted(want)
    keys = [_key(t) for t in shown]
    assert keys == sorted(keys)           # by the first letter held, then the next: "a" < "ab" < "b–e" < "c"
    assert "every letter from C to F" in page.inner_text("[data-lb=scope]")
    assert page.errors == []


def test_the_comma_form_sorts_too(hundred, page):
    """Under macro F1 the letters run past 52 (names "a1", ...): the same order by the letters held."""
    path, tables = hundred
    _open(page, path)
    page.locator("th[data-key=letters] button").click()
    shown = _letters_column(page)
    assert any(any(c.isdigit() for c in t) for t in shown)
    keys = [_key(t) for t in shown]
    assert keys == sorted(keys)
    assert page.errors == []


def test_long_names_sharing_their_start_stay_distinct_on_the_chart(hundred, page):
    path, _ = hundred
    _open(page, path)
    labels = page.eval_on_selector_all(
        ".lb-chart svg .role-axis-label text",
        "ts => ts.map(t => [t.textContent, t.getComputedTextLength()])")
    names = [t for t, _ in labels if t.startswith("Poly")]
    assert len(names) == 100 and len(set(names)) == 100           # no two alike
    for text, width in labels:
        if not text.startswith("Poly"):
            continue
        assert width <= NAME_LIMIT + 0.5 and "\u2026" in text     # shortened in the middle, never cut at the end
        head, tail = text.split("\u2026")[0], text.split("\u2026")[-1]
        assert any(n.startswith(head) and n.endswith(tail) for n in NAMES), text
    assert page.errors == []
