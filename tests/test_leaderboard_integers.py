"""Integers on the interactive leaderboard page follow the static tables' rule (integer_text in
evalreport/report/display.py), without a browser: the script's threshold is the tables' one, and the footer prints
the number of resamples with thousands separators (the seed, a code, as it is). The browser checks are in
test_leaderboard_integers_browser.py."""
from __future__ import annotations

import re
import sys
from pathlib import Path

import evalreport
from evalreport.report.display import GROUP_DIGITS_FROM
from evalreport.report.leaderboard_data import page_data, tables_from_comparison
from evalreport.report.leaderboard_page import page_html

sys.path.insert(0, str(Path(__file__).resolve().parent))
from leaderboard_fixtures import synthetic_runs  # noqa: E402

SCRIPT = Path(evalreport.__file__).resolve().parent / "_data" / "leaderboard" / "leaderboard.js"


def test_the_scripts_threshold_is_the_static_tables_one():
    found = re.search(r"var GROUP_DIGITS_FROM = (\d+)", SCRIPT.read_text(encoding="utf-8"))
    assert found and int(found.group(1)) == GROUP_DIGITS_FROM
    assert "Intl.NumberFormat('en-US'" in SCRIPT.read_text(encoding="utf-8")


def test_the_footer_prints_ten_thousand_resamples_with_a_separator_and_the_seed_as_it_is():
    runs = synthetic_runs(3, n_items=200)
    comp = evalreport.compare(runs, evalreport.Settings(bootstrap=20, seed=12345, progress=False))
    manifest = comp.manifest()
    manifest["settings"] = {**manifest["settings"], "bootstrap": 10_000}
    html = page_html(page_data(tables_from_comparison(comp), manifest), bundle=None)
    assert "bootstrap resamples 10,000" in html and "seed 12345" in html
