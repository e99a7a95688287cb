"""What an organiser publishing a leaderboard and an author attaching an appendix would trip on:
counts said of the whole data when a chart draws only part of it, and sentences that name a test
where none was made."""
from __future__ import annotations

import pandas as pd

from evalreport import charts


def _subtitle(spec: dict) -> str:
    sub = spec["title"]["subtitle"]
    return sub if isinstance(sub, str) else " ".join(sub)


def test_prevalence_subtitle_counts_every_class_when_only_some_are_drawn():
    counts = list(range(100, 60, -1))                             # 40 classes, 3,220 items
    whole = pd.DataFrame({"class": [f"c{i:02d}" for i in range(40)], "count": counts})
    whole["share"] = whole["count"] / whole["count"].sum()
    drawn = pd.concat([whole.head(12), whole.tail(12)])
    text = _subtitle(charts.prevalence_bar(drawn, whole=whole).to_dict())
    assert text == "40 classes (24 shown), 3,220 items; largest / smallest = 1.6"
    assert _subtitle(charts.prevalence_bar(whole).to_dict()) == "40 classes, 3,220 items; largest / smallest = 1.6"
