"""The shortcuts of the display objects change no output: a chart spec is scanned once for the
characters :func:`evalreport.escape.printable` replaces (and walked only when one may be there),
a Table works out its cells once for its three representations, and text widths are memoised."""
from __future__ import annotations

import json
import sys

import pytest
from hypothesis import given, settings, strategies as st

pd = pytest.importorskip("pandas")

from evalreport import escape
from evalreport.report import display, typst_table
from evalreport.report.display import _JSON_CONTROL, Table, _printable_walk, printable_spec


def _replaced_by_printable():
    return [chr(c) for c in range(sys.maxunicode + 1)
            if not 0xD800 <= c < 0xE000 and escape.printable(chr(c)) != chr(c)]


def test_the_json_scan_sees_every_character_printable_replaces():
    chars = _replaced_by_printable()
    assert len(chars) > 60          # C0 (less tab, newline, CR), DEL, C1, the bidi controls
    for ch in chars:
        for spec in ({"title": f"a{ch}b"}, {f"k{ch}": 1}, {"data": [{"x": [ch]}]}):
            assert _JSON_CONTROL.search(json.dumps(spec, ensure_ascii=False)), repr(ch)
            assert printable_spec(spec) == _printable_walk(spec)


def test_a_clean_spec_is_returned_as_it_is():
    spec = {"mark": "rect", "title": {"text": "Rank of every system\n(raw)", "subtitle": ["tab\there", "é ü 漢"]},
            "datasets": {"d": [{"name": "back\\slash b", "v": 1.5, "ok": True, "none": None}]}}
    assert printable_spec(spec) is spec
    assert _printable_walk(spec) == spec


@settings(max_examples=200, deadline=None)
@given(st.recursive(st.one_of(st.text(), st.integers(), st.floats(allow_nan=False), st.booleans(), st.none()),
                    lambda inner: st.one_of(st.lists(inner, max_size=4),
                                            st.dictionaries(st.text(max_size=6), inner, max_size=4)),
                    max_leaves=12))
def test_printable_spec_equals_the_walk_of_every_string(spec):
    assert printable_spec(spec) == _printable_walk(spec)


def test_a_spec_that_is_not_json_is_walked():
    spec = {"t": ("a\x07", b"x")}          # a tuple of bytes: json.dumps refuses it
    assert printable_spec(spec) == {"t": ("a\x07", b"x")}
    assert printable_spec({"t": ["a\x07"], "b": b"\x07"}) == {"t": ["a\ufffd"], "b": b"\x07"}


def _table():
    df = pd.DataFrame({"system": ["a<b>", "c|d", "e"], "value": [0.5, float("nan"), 0.25], "rank": [1.0, 2.5, 4.0]})
    undefined = pd.DataFrame({"value": [False, True, False]}, index=df.index)
    reasons = pd.DataFrame({"value": ["", "0/0: no positives", ""]}, index=df.index)
    return Table(df, undefined=undefined, reasons=reasons, caption="Scores *of* systems")


def test_a_table_computes_its_cells_once_and_every_representation_is_unchanged(monkeypatch):
    table = _table()
    calls = []
    make = Table._make_cells
    monkeypatch.setattr(Table, "_make_cells", lambda self: calls.append(1) or make(self))
    bundle = table._repr_mimebundle_()
    assert len(calls) == 1
    # each representation alone (a fresh table each) is what the bundle holds
    assert _table()._html() == bundle["text/html"]
    assert _table()._markdown() == bundle["text/markdown"]
    assert _table()._typst() == bundle[typst_table.MIME_TYPST]["typst"]
    assert table._repr_mimebundle_() == bundle


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=120), st.booleans())
def test_text_width_is_the_sum_of_its_glyph_widths(text, bold):
    import unicodedata

    table = typst_table._WIDTHS[bold]
    expected = 0.0
    for ch in text:
        w = table.get(ch)
        expected += (1.0 if unicodedata.east_asian_width(ch) in "WF" else 0.6) if w is None else w
    expected *= 1.04 if bold else 1.0
    assert typst_table.text_width(text, bold=bold) == expected
    assert typst_table.text_width(text, bold=bold) == expected      # and again, from the memo


def test_chart_keeps_validating_outside_the_report_kernel(monkeypatch):
    alt = pytest.importorskip("altair")
    monkeypatch.delenv(display.VALIDATE_ENV, raising=False)
    bad = alt.Chart(pd.DataFrame({"a": [1]})).mark_point().encode(x="a:Q")
    bad.width = "wide"
    with pytest.raises(alt.utils.schemapi.SchemaValidationError):
        display.Chart(bad, name="bad")
