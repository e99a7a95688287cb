"""The leaderboard page's drill-down with many classes: the classes it keeps are the most and the least
frequent in the gold labels, and when the tables carry no frequencies its note says what it kept instead."""
import numpy as np
from test_leaderboard_page import synthetic_runs

import evalreport
from evalreport.counts import Counts
from evalreport.report.leaderboard_data import page_data, tables_from_comparison
from evalreport.report.leaderboard_sets import hidden_note


def _page(with_confusion: bool):
    runs = synthetic_runs(2, n_items=2000, n_classes=45)
    comp = evalreport.compare(runs, evalreport.Settings(bootstrap=0, progress=False))
    tables = tables_from_comparison(comp, Counts.from_runs(runs))
    if not with_confusion:
        tables = {k: v for k, v in tables.items() if k != "confusion"}
    return runs, page_data(tables, comp.manifest())


def test_the_kept_classes_are_the_most_and_least_frequent_gold_classes():
    runs, data = _page(True)
    labels, shown = data["labels"], data["drill"]["shown"]
    gold = np.bincount(runs.gold, minlength=len(runs.labels))
    freq = np.array([gold[list(runs.labels).index(c)] for c in labels])
    kept = freq[shown]
    others = np.delete(freq, shown)
    assert kept[:20].min() >= others.max() and kept[20:].max() <= others.min()
    assert "the 20 most and the 20 least frequent in the gold labels" in data["drill"]["hidden_note"]


def test_without_frequencies_the_note_says_class_order_not_frequency():
    _, data = _page(False)
    assert data["drill"]["shown"] == list(range(20)) + list(range(25, 45))
    note = data["drill"]["hidden_note"]
    assert "most" not in note and "the first 20 and the last 20 in class order" in note, note


def test_one_left_out_is_singular():
    assert hidden_note(41, 40, "labels", "the gold sets", "per_label.csv", by_frequency=True).endswith(
        "the other 1 is in per_label.csv.")
