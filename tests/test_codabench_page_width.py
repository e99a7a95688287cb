"""The Codabench participant page (``detailed_results.html``) fits the width of its frame: a
confusion matrix of 12 classes with long names scrolls inside its own box (and its cells are
compact), so the page itself is never wider than the window. Measured in headless chromium."""
from __future__ import annotations

import re
import shutil
import subprocess

import numpy as np
import pandas as pd
import pytest

from evalreport.cli import main

CLASSES = [f"intent-{name}" for name in ("book_flight", "cancel_booking", "change_seat", "baggage_policy",
                                          "refund_status", "loyalty_points", "special_assistance", "pet_travel",
                                          "upgrade_request", "lost_luggage", "check_in_help", "other_question")]


def _page(tmp_path) -> str:
    rng = np.random.default_rng(12)
    gold = rng.choice(CLASSES, 3000)
    pred = np.where(rng.random(3000) < 0.7, gold, rng.choice(CLASSES, 3000))
    ref, res = tmp_path / "in" / "ref", tmp_path / "in" / "res"
    ref.mkdir(parents=True)
    res.mkdir()
    pd.DataFrame({"id": range(3000), "label": gold}).to_csv(ref / "gold.tsv", sep="\t", index=False)
    pd.DataFrame({"id": range(3000), "label": pred}).to_csv(res / "predictions.tsv", sep="\t", index=False)
    assert main(["codabench", str(tmp_path / "in"), str(tmp_path / "out"), "--bootstrap", "0"]) == 0
    return (tmp_path / "out" / "detailed_results.html").read_text(encoding="utf-8")


def test_every_table_of_the_page_sits_in_a_box_that_scrolls_sideways(tmp_path):
    page = _page(tmp_path)
    assert re.search(r"\.scroll\{[^}]*overflow-x:auto", page)
    tables = re.findall(r"<div class=\"scroll\"><table", page)
    assert len(tables) == page.count("<table")
    assert '<table class="matrix">' in page


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("chromium") is None, reason="Debian's chromium is not installed (apt-get install chromium)")
@pytest.mark.parametrize("width", [800, 1200])
def test_the_page_with_a_matrix_of_12_classes_is_no_wider_than_the_window(tmp_path, width):
    page = _page(tmp_path)
    # (the page itself runs no script: this copy measures itself for the test)
    probe = ("<script>document.body.setAttribute('data-width', document.documentElement.scrollWidth + ' ' + "
             "window.innerWidth);</script></body>")
    copy = tmp_path / "probe.html"
    copy.write_text(page.replace("</body>", probe), encoding="utf-8")
    dom = subprocess.run([shutil.which("chromium"), "--headless", "--no-sandbox", "--disable-gpu",
                          "--disable-background-networking", "--no-first-run", f"--user-data-dir={tmp_path / 'p'}",
                          f"--window-size={width},900", "--dump-dom", copy.as_uri()],
                         capture_output=True, text=True, timeout=120).stdout
    scroll, inner = map(int, re.search(r'data-width="(\d+) (\d+)"', dom).groups())
    assert scroll <= inner, (scroll, inner)
