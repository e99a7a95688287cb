"""Chart specs and the Vega-Lite schema: a :class:`~evalreport.report.display.Chart`
validates its spec unless the report's own kernel says not to (``VALIDATE_ENV=0``, about 1 s of
the demo report), and the spec is the same dict either way. That every chart of every report
validates is checked where the reports are built: tests/test_report.py,
test_multilabel_report.py and test_benchmark_report.py call each notebook's chart cells with
validation on (:func:`assert_every_chart_validates`)."""
from __future__ import annotations

import altair as alt
import jsonschema
import nbformat
import pandas as pd
import pytest
from altair.utils.schemapi import validate_jsonschema
from altair.vegalite.v6.schema.core import load_schema

from evalreport import charts
from evalreport.report.display import VALIDATE_ENV, Chart
from evalreport.report.resources import notebooks_dir


def assert_every_chart_validates(rep, notebook: str) -> int:
    """Run the labelled cells of ``notebook`` (the report's own calls) on ``rep``, and check that
    every chart's spec validates against the Vega-Lite schema; returns how many charts there were."""
    n = 0
    for cell in nbformat.read(notebooks_dir() / f"{notebook}.ipynb", 4).cells:
        if cell.cell_type != "code" or not cell.source.startswith("#| label:"):
            continue
        shown = eval(cell.source.splitlines()[-1], {"rep": rep})
        if isinstance(shown, Chart):
            validate_jsonschema(shown.spec, load_schema())
            n += 1
    return n


def _bad_chart():
    """A chart whose spec breaks the schema (an unknown mark type)."""
    chart = alt.Chart(pd.DataFrame({"a": [1, 2]})).mark_point().encode(x="a:Q")
    chart.mark = "no-such-mark"     # attributes are checked when the spec is made, not when set
    return chart


def test_a_chart_validates_by_default(monkeypatch):
    monkeypatch.delenv(VALIDATE_ENV, raising=False)
    with pytest.raises(jsonschema.ValidationError):
        Chart(_bad_chart(), name="bad")
    with pytest.raises(jsonschema.ValidationError):
        Chart(_bad_chart(), name="bad", validate=True)


def test_the_report_kernel_skips_validation_and_the_spec_is_the_same(monkeypatch):
    frame = pd.DataFrame({"class": ["x", "y", "z"], "count": [5, 3, 2], "share": [0.5, 0.3, 0.2]})
    monkeypatch.delenv(VALIDATE_ENV, raising=False)
    validated = Chart(charts.prevalence_bar(frame), name="p").spec
    monkeypatch.setenv(VALIDATE_ENV, "0")
    assert Chart(charts.prevalence_bar(frame), name="p").spec == validated
    Chart(_bad_chart(), name="bad")                     # not validated in the report's kernel
    with pytest.raises(jsonschema.ValidationError):
        Chart(_bad_chart(), name="bad", validate=True)  # unless asked
