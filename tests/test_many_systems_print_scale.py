"""Printed heatmaps of many systems (evalreport.report.sections.many_systems) show the leaderboard's first 40
systems with the colour scale of the whole table: a colour means the same rank (or value) in the PDF as in the
HTML chart of every system, checked on the charts' specs."""
from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd
import pytest

from evalreport.charts.heatmaps import rank_heatmap, worst_rank
from evalreport.charts.slices import slice_heatmap, slice_value_domain

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_many_systems_print import _report, _systems  # noqa: E402


def _fill_domains(spec) -> list[list[float]]:
    """The domain of every ``fill`` colour scale in a chart's spec (a dict, or a list of them)."""
    found = []
    if isinstance(spec, dict):
        fill = (spec.get("encoding") or {}).get("fill") if isinstance(spec.get("encoding"), dict) else None
        if isinstance(fill, dict) and isinstance(fill.get("scale"), dict) and "domain" in fill["scale"]:
            found.append(fill["scale"]["domain"])
        for value in spec.values():
            found += _fill_domains(value)
    elif isinstance(spec, list):
        for value in spec:
            found += _fill_domains(value)
    return found


@pytest.fixture(scope="module")
def hundred(tmp_path_factory):
    return _report(tmp_path_factory.mktemp("scale"), 100)


@pytest.mark.parametrize("make, table, calibrated", [(lambda r: r.rank_heatmap(), "ranks", False),
                                                     (lambda r: r.rank_heatmap(calibrated=True), "ranks", True),
                                                     (lambda r: r.what_if_chart(), "what_if", None),
                                                     (lambda r: r.slice_heatmap_chart(), "slices", None)])
def test_the_printed_chart_keeps_the_whole_tables_colour_scale(hundred, make, table, calibrated):
    chart = make(hundred)
    top = hundred.board_order[:40]
    assert _systems(chart.print_spec) == set(top)                     # printed: the first 40 only
    live, printed = _fill_domains(chart.spec), _fill_domains(chart.print_spec)
    assert live and printed == live
    rows = hundred.table(table)
    if calibrated is not None:
        rows = rows[rows["calibrated"].astype(bool) == calibrated]
    column = "value" if table == "slices" else "rank"
    if table == "slices":
        rows = rows[rows["measure"] == hundred.primary]
    values = pd.to_numeric(rows[column])
    shown = pd.to_numeric(rows[rows["system"].astype(str).isin(top)][column])
    assert (live[0][0], live[0][-1]) == pytest.approx((1.0 if column == "rank" else values.min(), values.max()))
    assert (shown.min(), shown.max()) != pytest.approx((live[0][0], live[0][-1]))   # the case the fix is for


def test_the_scale_keywords_default_to_the_values_shown():
    ranks = pd.DataFrame({"system": ["a", "a", "b", "b"], "measure": ["m", "n", "m", "n"], "rank": [1, 2, 2, 1]})
    assert worst_rank(ranks) == 2.0
    assert _fill_domains(rank_heatmap(ranks).to_dict()) == [[1, 1.5, 2]]
    assert _fill_domains(rank_heatmap(ranks, worst=9).to_dict()) == [[1, 5, 9]]
    slices = pd.DataFrame({"system": ["a", "b"], "slice_col": "d", "slice": ["x", "x"], "measure": "accuracy",
                           "value": [0.2, 0.6], "n": [10, 10], "best": [False, True], "small": [False, False]})
    assert slice_value_domain(slices, measure="accuracy") == (0.2, 0.6)
    assert _fill_domains(slice_heatmap(slices, measure="accuracy").to_dict()) == [[0.2, 0.4, 0.6]]
    assert _fill_domains(slice_heatmap(slices, measure="accuracy", domain=(0.0, 1.0)).to_dict()) == [[0.0, 0.5, 1.0]]
