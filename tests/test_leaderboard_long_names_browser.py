"""The interactive leaderboard's table with 60-character names, in a real browser (Chromium driven by
Playwright, the page opened from file://), as wide as the HTML report's main column (about 970 px): the
name wraps over at most three lines in a column of at least 14rem, and every column, P(best) last, stays
inside the table's box (no sideways scrolling hides one), at 8 and at 100 systems.

Skipped, with the reason, where Playwright or a system Chromium is missing."""
from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

import evalreport
from evalreport.counts import Counts
from evalreport.report.leaderboard_data import page_data, tables_from_comparison
from evalreport.report.leaderboard_page import write_page

sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright is not installed (pip install -e '.[test]')")
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(CHROMIUM is None, reason="no chromium on PATH (Debian: apt-get install chromium)")]

sys.path.insert(0, str(Path(__file__).resolve().parent))
from leaderboard_fixtures import synthetic_runs  # noqa: E402

#: Windows whose standalone page is as wide as the report's main column at a 1280 px window (976 px: 1280 -
#: 240 table of contents - 64 padding) and at 1000 px (968 px, the table of contents above the text): the
#: page's own padding (20 px a side) and the scroll bar (15 px) added.
WIDTHS = (976 + 40 + 15, 968 + 40 + 15)


def _names(n: int) -> list[str]:
    """``n`` distinct names of exactly 60 characters, without spaces (the hardest to wrap)."""
    names = [f"team{s:03d}_multilingual_transformer_ensemble_contrastive_run{s % 3}_" for s in range(n)]
    return [(name + "v" * 60)[:60] for name in names]


def _page(tmp_path_factory, n: int) -> Path:
    from evalreport.report.render import vega_bundle

    runs = synthetic_runs(n, n_items=300, names=_names(n))
    comp = evalreport.compare(runs, evalreport.Settings(bootstrap=100, seed=1, primary="macro_f1",
                                                        measures=("accuracy",), progress=False))
    path = tmp_path_factory.mktemp(f"lb{n}") / "results.html"
    write_page(page_data(tables_from_comparison(comp, Counts.from_runs(runs)), comp.manifest()), path,
               bundle=vega_bundle())
    return path


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    return {n: _page(tmp_path_factory, n) for n in (8, 100)}


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        yield b
        b.close()


_MEASURE = """() => {
  const t = document.querySelector('.lb-table'), wrap = t.closest('.lb-wrap');
  const right = wrap.getBoundingClientRect().right;
  const heads = [...t.querySelectorAll('thead th')].map(h => ({key: h.dataset.key || h.textContent.trim(),
      width: h.getBoundingClientRect().width, right: h.getBoundingClientRect().right}));
  const name = t.querySelector('tbody .lb-name');
  const line = parseFloat(getComputedStyle(name).lineHeight);
  const rem = parseFloat(getComputedStyle(document.documentElement).fontSize);
  const names = [...t.querySelectorAll('tbody .lb-name')].slice(0, 20).map(n => n.getBoundingClientRect().height);
  return {scroll: t.scrollWidth, box: wrap.clientWidth, right, heads, line, rem, names};
}"""


@pytest.mark.parametrize("n", [8, 100])
@pytest.mark.parametrize("width", WIDTHS)
def test_long_names_wrap_and_every_column_stays_in_view(pages, browser, n, width):
    page = browser.new_page(viewport={"width": width, "height": 900})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(pages[n].as_uri())
    page.wait_for_selector(".lb-root[data-lb-ready='1']", timeout=30000)
    got = page.evaluate(_MEASURE)
    page.close()
    assert errors == []
    assert got["scroll"] <= got["box"] + 1, [(h["key"], round(h["width"])) for h in got["heads"]]  # nothing to scroll to: every column shown
    heads = {h["key"]: h for h in got["heads"]}
    last = got["heads"][-1]
    assert last["right"] <= got["right"] + 1, got["heads"]       # the last column (P(best)) inside the box
    assert any("best" in k.lower() for k in heads), list(heads)
    system = next(h for k, h in heads.items() if k in ("system", "System"))
    assert system["width"] >= 14 * got["rem"] - 1                  # a name column of at least 14rem
    assert max(got["names"]) <= 3.5 * got["line"], got["names"]   # a 60-character name: at most 3 lines
