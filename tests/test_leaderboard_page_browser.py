"""The interactive leaderboard in a real browser: Chromium driven by Playwright, the page opened from file://.

Skipped, with the reason, where Playwright (the ``test`` extra) or a system Chromium is missing; Playwright's own
browser download is never used (``executable_path`` points at the system's chromium)."""
from __future__ import annotations

import shutil
import sys
from pathlib import Path

import numpy as np
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
from leaderboard_fixtures import stance_runs, synthetic_runs  # noqa: E402

HOSTILE = "<script>alert(1)</script>"


@pytest.fixture(scope="module")
def stance(tmp_path_factory):
    from evalreport.report.render import vega_bundle

    runs = stance_runs()
    comp = evalreport.compare(runs, evalreport.Settings(bootstrap=300, seed=3, progress=False))
    tables = tables_from_comparison(comp, Counts.from_runs(runs))
    path = tmp_path_factory.mktemp("lb") / "results.html"
    write_page(page_data(tables, comp.manifest()), path, bundle=vega_bundle())
    return path, comp, tables


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        yield b
        b.close()


@pytest.fixture
def page(browser):
    """A page whose every network request fails the test: only file:, data: and blob: URLs may load."""
    context = browser.new_context()
    remote: list[str] = []
    errors: list[str] = []

    def route(r):
        url = r.request.url
        if url.startswith(("file:", "data:", "blob:")):
            r.continue_()
        else:
            remote.append(url)
            r.abort()

    context.route("**/*", route)
    pg = context.new_page()
    pg.on("request", lambda req: None if req.url.startswith(("file:", "data:", "blob:")) else remote.append(req.url))
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.remote, pg.errors = remote, errors
    yield pg
    assert remote == [], f"the page asked the network for {remote}"
    assert errors == [], errors
    context.close()


def _open(pg, path: Path):
    pg.goto(path.as_uri())
    pg.wait_for_selector(".lb-root[data-lb-ready='1']", timeout=15000)


def _order(pg) -> list[str]:
    return pg.eval_on_selector_all(".lb-table tbody tr:not([hidden])", "rows => rows.map(r => r.dataset.system)")


def _column(pg, n: int) -> list[str]:
    return pg.eval_on_selector_all(".lb-table tbody tr:not([hidden])",
                                   f"rows => rows.map(r => r.cells[{n}].textContent.trim())")


def _best_first(comp, measure: str, calibrated: bool = False) -> list[str]:
    r = comp.ranks[(comp.ranks["measure"] == measure) & (comp.ranks["calibrated"].astype(bool) == calibrated)]
    return list(r.sort_values(["rank", "system"], kind="stable")["system"])


def test_choosing_mcc_reranks_with_its_intervals_and_letters(stance, page):
    path, comp, tables = stance
    _open(page, path)
    assert _order(page) == _best_first(comp, comp.primary)
    page.select_option("[data-lb=measure]", "mcc")
    order = _order(page)
    assert order == _best_first(comp, "mcc") and order[0] == "svm"       # bert leads macro F1, svm MCC
    iv = comp.intervals[comp.intervals["measure"] == "mcc"].set_index("system")
    shown = _column(page, 3)
    for system, text in zip(order, shown):
        lo, hi = iv.loc[system, "lo"], iv.loc[system, "hi"]
        assert text == ("" if np.isnan(lo) else f"[{lo:.3f}, {hi:.3f}]"), system
    letters = tables["measure_letters"]
    want = letters[letters["measure"] == "mcc"].set_index("system")["letters"]
    assert _column(page, 4) == [want[s] for s in order]
    assert "MCC" in page.inner_text("[data-lb=status]") or "Matthews" in page.inner_text("[data-lb=status]")
    assert page.locator(".lb-chart svg.marks").count() == 1                 # the chart was drawn again


def test_sorting_by_a_column_and_aria_sort(stance, page):
    path, comp, _ = stance
    _open(page, path)
    head = page.locator("th[data-key=system]")
    head.locator("button").focus()
    page.keyboard.press("Enter")                                            # keyboard operable
    assert head.get_attribute("aria-sort") == "ascending"
    assert _order(page) == sorted(comp.systems)
    head.locator("button").click()
    assert head.get_attribute("aria-sort") == "descending"
    assert _order(page) == sorted(comp.systems, reverse=True)
    page.locator("th[data-key=value] button").click()                       # values: best first
    values = [float(v) for v in _column(page, 2) if v not in ("", "\u2014")]
    assert values == sorted(values, reverse=True)


def test_calibrated_toggle_shows_calibrated_ranks_and_values(stance, page):
    path, comp, _ = stance
    _open(page, path)
    page.check("[data-lb=calibrated]")
    order = _order(page)
    assert order == _best_first(comp, comp.primary, calibrated=True)
    s = comp.scores[(comp.scores["measure"] == comp.primary) & comp.scores["calibrated"].astype(bool)]
    want = s.set_index("system")["value"]
    assert _column(page, 2) == [f"{want[x]:.3f}" for x in order]
    assert _column(page, 4) == [""] * len(order)                           # letters are for the raw scores
    assert "raw scores" in page.inner_text("[data-lb=scope]")


def test_name_filter_and_drill_down(stance, page):
    path, comp, _ = stance
    _open(page, path)
    page.fill("[data-lb=filter]", "SV")
    assert _order(page) == ["svm"]
    page.fill("[data-lb=filter]", "")
    assert len(_order(page)) == len(comp.systems)
    page.locator(".lb-table tbody button", has_text="lexicon").click()
    drill = page.locator("[data-lb=drill]")
    assert drill.is_visible()
    assert page.evaluate("document.activeElement.textContent") == "System: lexicon"
    tables = drill.locator("table")
    assert tables.count() == 3                                  # chance baselines, per-class scores, confusion
    confusion = tables.nth(2)
    assert confusion.locator("tbody tr").count() == len(comp.labels)
    page.keyboard.press("Escape")
    assert not drill.is_visible()


def test_definition_is_one_click_away(stance, page):
    path, _, _ = stance
    _open(page, path)
    page.select_option("[data-lb=measure]", "mcc")
    page.click("[data-lb=define]")
    text = page.inner_text("[data-lb=definition]")
    assert "mcc" in text and "Source" in text
    assert page.get_attribute("[data-lb=define]", "aria-expanded") == "true"


def test_participant_text_shows_as_text(tmp_path, page):
    runs = synthetic_runs(3, names=[HOSTILE, "<img src=x onerror=alert(2)>", "plain"])
    comp = evalreport.compare(runs, evalreport.Settings(bootstrap=50, progress=False))
    path = write_page(page_data(tables_from_comparison(comp, Counts.from_runs(runs)), comp.manifest(), title=HOSTILE),
                      tmp_path / "hostile.html", bundle=None)
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    _open(page, path)
    assert dialogs == []
    assert set(_order(page)) == {HOSTILE, "<img src=x onerror=alert(2)>", "plain"}
    assert page.locator(".lb-table img").count() == 0
    assert HOSTILE in page.inner_text(".lb-table") and page.title() == HOSTILE


def test_inside_the_report_choosing_mcc_reranks(stance, page, tmp_path):
    """The report's HTML leaderboard section (the component from a tables folder, beside the report's charts)."""
    from evalreport.report.display import Table
    from evalreport.report.leaderboard_page import InteractiveTable, report_component
    from evalreport.report.render import vega_bundle
    from evalreport.report.write import write_comparison, write_frames

    _, comp, tables = stance
    folder = tmp_path / "tables"
    write_comparison(comp, folder)
    write_frames(folder, {k: tables[k] for k in ("measure_letters", "per_class", "confusion")})
    section = InteractiveTable(comp.leaderboard[["rank", "system", "value"]], component=report_component(folder))
    html = (f"<!DOCTYPE html><html><head><meta charset='utf-8'></head><body><script>{vega_bundle()}</script>"
            f"{Table(comp.scores.head(3))._html()}{section._html()}</body></html>")
    path = tmp_path / "report.html"
    path.write_text(html, encoding="utf-8")
    _open(page, path)
    page.select_option("[data-lb=measure]", "mcc")
    assert _order(page) == _best_first(comp, "mcc")
    letters = tables["measure_letters"]
    want = letters[letters["measure"] == "mcc"].set_index("system")["letters"]
    assert _column(page, 4) == [want[s] for s in _order(page)]


def test_benchmark_page_switches_to_a_task_and_reranks(tmp_path, page):
    from evalreport.analyses.benchmark import compare_benchmark
    from evalreport.examples import shared_benchmark_data, write_benchmark
    from evalreport.inputs.benchmark import read_benchmark
    from evalreport.report.leaderboard_benchmark import benchmark_page_html
    from evalreport.report.leaderboard_page import write_html
    from evalreport.report.render import vega_bundle
    from evalreport.report.write import write_comparison

    write_benchmark(shared_benchmark_data(n_systems=4, n_tasks=2, n_items=300), tmp_path / "in")
    result = compare_benchmark(read_benchmark(tmp_path / "in"), bootstrap=60, seed=0)
    write_comparison(result, tmp_path / "out")
    path = write_html(benchmark_page_html(tmp_path / "out", bundle=vega_bundle()), tmp_path / "bench.html")
    page.goto(path.as_uri())
    page.wait_for_selector("#lb-task-2[data-lb-ready='1']", state="attached", timeout=15000)
    assert page.locator("[data-lb-view=consensus]").is_visible()
    assert not page.locator("#lb-task-2").is_visible()
    page.select_option("[data-lb-views]", "task-2")
    assert page.locator("#lb-task-2").is_visible() and not page.locator("[data-lb-view=consensus]").is_visible()
    page.select_option("#lb-task-2 [data-lb=measure]", "mcc")
    order = page.eval_on_selector_all("#lb-task-2 .lb-table tbody tr", "rows => rows.map(r => r.dataset.system)")
    task = result.tasks[1]
    assert order == _best_first(result.comparisons[task], "mcc")


def test_downloads_are_the_embedded_csv_and_json(stance, page):
    import json

    path, comp, _ = stance
    _open(page, path)
    assert page.get_attribute("[data-lb=csv-link]", "href") == "#"        # no data in an attribute until asked
    with page.expect_download() as got:
        page.click("[data-lb=csv-link]")
    csv = Path(got.value.path()).read_text(encoding="utf-8")
    assert csv.splitlines()[0].startswith("system,measure,calibrated,value,rank,lo,hi,letters")
    assert len(csv.splitlines()) == 1 + 2 * len(comp.systems) * len(comp.measures)
    with page.expect_download() as got:
        page.click("[data-lb=json-link]")
    data = json.loads(Path(got.value.path()).read_text(encoding="utf-8"))
    assert data["systems"] == list(comp.systems) and data["primary"] == comp.primary
