"""The chart builders' shortcuts give Altair's own result: ``with_properties`` (properties set on a chart
just built, where Altair's ``properties`` rebuilds it and deep-copies every layer) writes the
same spec, key order included, as ``chart.properties``; the union-find of ``identical_rankings``
finds the connected components scipy finds; ``_shorten`` shortens the cells the per-cell rule
shortens. Every builder of tests/test_charts.py is checked."""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st

alt = pytest.importorskip("altair")

from evalreport.charts import _common, benchmark, critical_difference, crossval, heatmaps, multilabel, points
from evalreport.charts._common import MAX_TEXT, _shorten, display_text
from tests.test_charts import CASES

_MODULES = (_common, benchmark, critical_difference, crossval, heatmaps, multilabel, points)


def _altair_properties(chart, **properties):
    return chart.properties(**properties)


@pytest.mark.parametrize("name", sorted(CASES))
def test_with_writes_the_spec_altair_properties_writes(name, monkeypatch):
    make, call = CASES[name]
    fast = json.dumps(call(make()).to_dict())
    for module in _MODULES:
        monkeypatch.setattr(module, "with_properties", _altair_properties)
    slow = json.dumps(call(make()).to_dict())
    assert fast == slow      # the JSON text: values and key order


def test_with_sets_every_property_on_the_chart_itself():
    layered = alt.layer(alt.Chart().mark_point(), data=pd.DataFrame({"a": [1]}))
    same = _common.with_properties(layered, width=alt.Step(20), title=alt.TitleParams("T", subtitle=["s"]))
    assert same is layered
    assert json.dumps(same.to_dict()) == json.dumps(
        alt.layer(alt.Chart().mark_point(), data=pd.DataFrame({"a": [1]}))
        .properties(width=alt.Step(20), title=alt.TitleParams("T", subtitle=["s"])).to_dict())


def _scipy_groups(frame, method, order):
    """identical_rankings as written with scipy's connected components (the reference)."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    df, measures = heatmaps._correlation_frame(frame, method, order, "test")
    same = df[df["value"] >= 1 - 1e-9]
    where = {m: i for i, m in enumerate(measures)}
    edges = coo_matrix((np.ones(len(same)), (same["measure_a"].map(where), same["measure_b"].map(where))),
                       shape=(len(measures), len(measures)))
    _, component = connected_components(edges, directed=False)
    groups: dict = {}
    for m, c in zip(measures, component):
        groups.setdefault(c, []).append(m)
    return list(groups.values())


@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 9), data=st.data())
def test_identical_rankings_match_scipy_connected_components(n, data):
    measures = [f"m{i}" for i in range(n)]
    rows = []
    for i in range(n):
        for j in range(i, n):
            value = data.draw(st.sampled_from([1.0, 1.0, 0.5, -1.0, float("nan")])) if i != j else 1.0
            rows.append((measures[i], measures[j], "spearman", value))
    frame = pd.DataFrame(rows, columns=["measure_a", "measure_b", "method", "value"])
    order = data.draw(st.permutations(measures))
    assert heatmaps.identical_rankings(frame, order=order) == _scipy_groups(frame, "spearman", order)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.one_of(st.text(max_size=MAX_TEXT + 20), st.none(), st.integers()), min_size=1, max_size=12))
def test_shorten_replaces_exactly_the_long_texts(values):
    frame = pd.DataFrame({"name": pd.Series(values, dtype=object), "n": range(len(values))})
    out = _shorten(frame.copy())
    expected = [display_text(v) if isinstance(v, str) else v for v in values]
    assert out["name"].tolist() == expected
    assert out["n"].tolist() == list(range(len(values)))


def test_benchmark_charts_with_write_the_spec_altair_properties_writes(monkeypatch):
    from tests.test_benchmark_charts import SHAPES, all_charts

    for shape in sorted(SHAPES):
        fast = {k: json.dumps(c.to_dict()) for k, c in all_charts(shape).items()}
        with monkeypatch.context() as m:
            for module in _MODULES:
                m.setattr(module, "with_properties", _altair_properties)
            slow = {k: json.dumps(c.to_dict()) for k, c in all_charts(shape).items()}
        assert fast == slow, shape
