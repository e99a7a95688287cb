"""Heatmaps of one row per system stay legible in print at 100 systems: the live chart (HTML) keeps every
system, the static image (PDF) the first MAX_PRINT_SYSTEMS of the leaderboard, and its caption says how
many are left out and which table holds them (evalreport.report.sections.many_systems)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from evalreport.examples import shared_task_data
from evalreport.inputs import read_runs
from evalreport.report.build import analyse
from evalreport.report.display import Chart
from evalreport.report.sections import open_report
from evalreport.report.sections.many_systems import MAX_PRINT_SYSTEMS, print_first, print_systems, shown_sentence


def _write(folder, n_systems: int):
    """A shared task of ``n_systems`` systems with a ``domain`` column, as files (gold.tsv, runs/)."""
    d = shared_task_data(n_systems=n_systems, n_items=400, seed=3)
    gold = d.gold.assign(domain=np.random.default_rng(3).choice(["news", "forum", "tweets"], size=len(d.gold)))
    (folder / "runs").mkdir(parents=True)
    gold.to_csv(folder / "gold.tsv", sep="\t", index=False)
    for name, run in d.runs.items():
        run.to_csv(folder / "runs" / f"{name}.tsv", sep="\t", index=False)
    return read_runs(folder / "gold.tsv", runs_dir=folder / "runs", slice_cols=("domain",))


def _report(folder, n_systems: int):
    runs = _write(folder, n_systems)
    tables = folder / "tables"
    analyse(runs, tables, primary="macro_f1", measures=["macro_f1", "accuracy", "mcc"], bootstrap=50, seed=1,
            audit=False, slice_cols=("domain",))
    return open_report(tables)


def _systems(spec: dict) -> set[str]:
    """The systems a chart's spec draws (its data sets' ``system`` values)."""
    return {row["system"] for rows in spec.get("datasets", {}).values() for row in rows if "system" in row}


@pytest.fixture(scope="module")
def hundred(tmp_path_factory):
    return _report(tmp_path_factory.mktemp("many"), 100)


@pytest.mark.parametrize("make, table", [(lambda r: r.rank_heatmap(), "ranks.csv"),
                                         (lambda r: r.rank_heatmap(calibrated=True), "ranks.csv"),
                                         (lambda r: r.what_if_chart(), "what_if.csv"),
                                         (lambda r: r.slice_heatmap_chart(), "slices.csv"),
                                         (lambda r: r.leaderboard_chart(), "leaderboard.csv")])
def test_printed_heatmaps_show_the_first_forty_and_say_so(hundred, make, table):
    chart = make(hundred)
    assert isinstance(chart, Chart)
    board = hundred.board_order
    assert len(board) == 100
    assert _systems(chart.spec) == set(board)                            # the live chart: every system
    assert _systems(chart.print_spec) == set(board[:MAX_PRINT_SYSTEMS])  # printed: the leaderboard's first 40
    assert "Printed: the first 40 systems of the leaderboard under Macro F1" in chart.print_caption
    assert f"60 more systems in the HTML report and in {table}" in chart.print_caption
    assert "Printed" not in (chart.caption or "")


def test_few_systems_print_as_they_are(tmp_path):
    rep = _report(tmp_path, 12)
    for chart in (rep.rank_heatmap(), rep.slice_heatmap_chart(), rep.what_if_chart(), rep.leaderboard_chart()):
        assert isinstance(chart, Chart)
        assert chart.print_spec is chart.spec and "Printed" not in (chart.print_caption or "")


def test_shown_sentence_names_the_csv():
    assert shown_sentence(40, 300, table="ranks.csv") == (" Shown: the first 40 systems of the leaderboard's 300; "
                                                          "every system is in ranks.csv.")
    assert shown_sentence(40, 1200, table="t.csv").endswith("leaderboard's 1,200; every system is in t.csv.")


def test_print_systems_and_keywords():
    names = [f"s{k}" for k in range(41)]
    assert print_systems(names[:40]) is None and print_systems(names) == names[:40]
    assert print_systems(names, limit=3) == ["s0", "s1", "s2"]
    assert print_first(None, lambda: pytest.fail("drawn without need"), "c", total=1, ranked_by="m", table="t") == {}
    kw = print_first(["s0"], lambda: "chart", "Rank. Hover a cell for more.", total=2, ranked_by="MCC", table="t.csv")
    assert kw["print_chart"] == "chart"
    assert kw["print_caption"] == "Rank. Printed: the first 1 system of the leaderboard under MCC (1 more system " \
                                  "in the HTML report and in t.csv)."


def test_the_static_image_is_drawn_from_the_printed_chart():
    """Chart(print_chart=...) keeps the live chart's spec for HTML and draws its image from the other."""
    import altair as alt

    frame = pd.DataFrame({"system": ["a", "b"], "v": [1, 2]})
    live, printed = alt.Chart(frame).mark_point().encode(y="system:N"), alt.Chart(frame.head(1)).mark_point()
    c = Chart(live, name="x", caption="c", print_chart=printed)
    assert c.spec != c.print_spec and c.print_spec["mark"]["type"] == "point"
    plain = Chart(live, name="y")
    assert plain.print_spec is plain.spec
