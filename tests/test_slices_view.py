"""The slices' presentation: the heatmap and small multiples (specs: order, facets, small-slice marks), the
report section with 3 and with 30 slices, and the findings' sentence on who leads where."""
from __future__ import annotations

import pandas as pd
import pytest

from evalreport.analyses.slice_findings import NOT_SEPARATED, SEPARATED, SMALL, slice_findings
from evalreport.charts import use_theme
from evalreport.charts.slices import FEW_PANEL_SYSTEMS, SMALL_MARK, slice_heatmap, slice_leaderboards
from evalreport.report.display import DEFER_ENV
from evalreport.report.sections import ReportData
from evalreport.report.sections.slices import slice_sentence
from evalreport.report.summary import findings_note
from tests.slices_view_frames import slice_frames, system_names, write_tables


@pytest.fixture(autouse=True)
def _theme():
    use_theme()


def _layers(spec: dict) -> list[dict]:
    return spec["layer"] if "layer" in spec else spec["spec"]["layer"]


def test_heatmap_rows_in_leaderboard_order_columns_in_slice_order_and_small_marked():
    frames = slice_frames(5, 4, small=(2,), seed=1)
    order = system_names(5)[::-1]                       # an order the table does not have
    spec = slice_heatmap(frames["slices"], measure="macro_f1", systems=order).to_dict(validate=True)
    enc = _layers(spec)[0]["encoding"]
    assert enc["y"]["sort"] == order
    assert enc["x"]["sort"] == ["slice0 (n=100)", "slice1 (n=100)", "slice2 (n=5)" + SMALL_MARK, "slice3 (n=100)"]
    filters = [layer.get("transform", [{}])[0].get("filter") for layer in _layers(spec)]
    assert "datum.small" in filters and "datum.best" in filters          # dashed small cells, outlined best
    data = pd.DataFrame(spec["datasets"][spec["data"]["name"]])
    assert int(data["best"].sum()) == 4 and int(data["small"].sum()) == 5   # one best per slice; 5 systems small
    assert any("small slice" in s for s in spec["title"]["subtitle"])


def test_heatmap_lower_is_better_measure_reverses_the_colours():
    frames = slice_frames(3, 3, measure="error_rate")
    spec = slice_heatmap(frames["slices"], measure="error_rate", higher_is_better=False).to_dict()
    scale = next(layer["encoding"]["fill"]["scale"] for layer in _layers(spec) if "fill" in layer.get("encoding", {}))
    assert scale["range"][0] == "#08306b"          # the lowest error is darkest


def test_heatmap_needs_its_columns_and_measure():
    frames = slice_frames(3, 3)
    with pytest.raises(ValueError, match="slice_heatmap"):
        slice_heatmap(frames["slices"].drop(columns="small"), measure="macro_f1")
    with pytest.raises(ValueError):
        slice_heatmap(frames["slices"], measure="accuracy")


def test_small_multiples_facet_per_slice_wrapped_and_few_systems_with_many_slices():
    few = slice_leaderboards(slice_frames(4, 3, small=(1,))["slices"], measure="macro_f1",
                             systems=system_names(4)).to_dict(validate=True)
    assert few["facet"]["field"] == "slice_label" and few["columns"] == 3
    assert few["facet"]["sort"][1].endswith(SMALL_MARK)
    many = slice_leaderboards(slice_frames(30, 30, long=True)["slices"], measure="macro_f1",
                              systems=system_names(30, True)).to_dict(validate=True)
    data = pd.DataFrame(many["datasets"][many["data"]["name"]])
    assert data["system"].nunique() == FEW_PANEL_SYSTEMS and data["slice"].nunique() == 30
    assert 2 <= many["columns"] <= 6
    assert any(f"first {FEW_PANEL_SYSTEMS} of 30 systems" in s for s in many["title"]["subtitle"])
    y = many["spec"]["layer"][0]["encoding"]["y"]
    assert y["sort"] == system_names(30, True)[:FEW_PANEL_SYSTEMS] and "labelExpr" in y["axis"]   # long names cut


def _render(obj) -> dict:
    return obj._repr_mimebundle_()[0] if isinstance(obj._repr_mimebundle_(), tuple) else obj._repr_mimebundle_()


@pytest.mark.parametrize("n_systems,n_slices,long", [(4, 3, False), (30, 30, True)])
def test_section_renders_with_few_and_many_slices(tmp_path, monkeypatch, n_systems, n_slices, long):
    monkeypatch.setenv(DEFER_ENV, "1")            # the spec, not the PNG: the image is drawn by the executor
    frames = slice_frames(n_systems, n_slices, long=long, small=(1,))
    rep = ReportData(write_tables(tmp_path / "tables", frames))
    assert rep.slices_heading().text == "Slices"
    assert f"{n_slices} slices" in rep.slices_intro().text
    for chart in (rep.slice_heatmap_chart(), rep.slice_multiples_chart()):
        bundle = chart._repr_mimebundle_()
        assert "text/html" in (bundle[0] if isinstance(bundle, tuple) else bundle)
    leaders = rep.slice_leaders_table()
    assert len(leaders.df) == n_slices
    assert leaders.df["slice"].iloc[1].endswith(SMALL_MARK) and "small slice" in leaders.caption   # flagged, kept
    summary = rep.slice_summary_table()
    assert list(summary.df["system"]) == list(frames["slice_summary"].sort_values("robustness_rank")["system"])
    assert "slice of" not in summary.df                     # one slice column: not repeated on every row
    html = leaders._repr_mimebundle_()["text/html"]
    assert "slice1" in html


def test_section_with_two_slice_columns_stacks_the_charts_and_names_the_column(tmp_path, monkeypatch):
    monkeypatch.setenv(DEFER_ENV, "1")
    a = slice_frames(4, 3, seed=2)
    b = slice_frames(4, 2, seed=3, column="length", names=["[0, 12)", "[12, 40)"])
    frames = {k: pd.concat([a[k], b[k]], ignore_index=True) for k in ("slices", "slice_leaders", "slice_summary")}
    rep = ReportData(write_tables(tmp_path / "tables", {**frames, "leaderboard": a["leaderboard"]}))
    assert "`domain`, `length` into 5 slices" in rep.slices_intro().text
    spec = rep.slice_heatmap_chart().spec
    assert len(spec["vconcat"]) == 2
    leaders = rep.slice_leaders_table().df
    assert list(leaders["slice of"]) == ["domain"] * 3 + ["length"] * 2
    assert set(rep.slice_summary_table().df["slice of"]) == {"domain", "length"}


def test_section_absent_without_slices(tmp_path):
    rep = ReportData(write_tables(tmp_path / "tables", {"leaderboard": slice_frames(3, 3)["leaderboard"]}))
    assert rep.slices_heading() is None and rep.slices_intro() is None
    assert rep.slice_heatmap_chart() is None and rep.slice_leaders_table() is None
    assert rep.slice_summary_table() is None


def _leaders(best: list[str], separated: list[str], small: list[bool] | None = None) -> pd.DataFrame:
    n = len(best)
    return pd.DataFrame({"slice_col": "domain", "slice": [f"d{i}" for i in range(n)], "measure": "macro_f1",
                         "n": 100, "best": best, "value": 0.9, "separated": separated, "tied": "",
                         "small": small or [False] * n})


BOARD = pd.DataFrame({"rank": [1, 2, 3], "system": ["A", "B", "C"], "value": [0.8, 0.7, 0.6]})


def test_findings_leader_changes_by_slice_with_a_corrected_test():
    rows = pd.DataFrame(slice_findings(BOARD, _leaders(["A", "B", "B", "C"], ["C", "A; C", "", "A"]), "macro_f1"))
    verdicts = dict(zip(rows.loc[rows["finding"] == "slice_leader", "detail"],
                        rows.loc[rows["finding"] == "slice_leader", "system"]))
    assert verdicts == {f"domain|d1|{SEPARATED}": "B", f"domain|d2|{NOT_SEPARATED}": "B", f"domain|d3|{SEPARATED}": "C"}
    dep = rows[rows["finding"] == "slice_dependence"]
    assert list(dep["system"]) == ["A"] and float(dep["value"].iloc[0]) == 2
    text = slice_sentence(rows, "Macro F1")
    assert text == ("**Slices:** under Macro F1, **A** leads on 1 of 4 slices of domain; the best elsewhere: **B** on d1 and d2; **C** on "
                    "d3. The paired tests, Holm-corrected within each slice, separate the slice's best from **A** on d1 "
                    "and d3: **A**'s lead depends on the slice; on d2 the difference is exploratory (not separated, or too small for "
                    "the tests).")


def test_findings_sentence_stays_short_with_many_slices():
    best = ["A"] + ["B"] * 12 + ["C"] * 8 + [s for s in "DEFG" for _ in range(2)] + ["A"]
    rows = pd.DataFrame(slice_findings(BOARD, _leaders(best, ["A"] * len(best)), "macro_f1"))
    text = slice_sentence(rows, "Macro F1")
    assert "**B** on d1, d2, d3 and 9 more; **C** on d13, d14, d15 and 5 more; **D** on d21 and d22; 3 other systems" \
           " elsewhere" in text
    assert "on d1, d2, d3 and 25 more: **A**'s lead depends on the slice" in text and len(text) < 500


def test_findings_leader_differs_only_without_a_corrected_test_is_exploratory():
    rows = pd.DataFrame(slice_findings(BOARD, _leaders(["A", "B", "C"], ["", "", ""], [False, False, True]),
                                       "macro_f1"))
    assert rows[rows["finding"] == "slice_dependence"].empty
    assert f"domain|d2|{SMALL}" in set(rows["detail"])
    text = slice_sentence(rows, "Macro F1")
    assert "separate none of these from **A** (d2: too small for the tests): the differences by slice are exploratory" \
        in text
    assert "depends on the slice" not in text


def test_findings_say_no_test_was_made_when_every_other_leaders_slice_is_small():
    rows = pd.DataFrame(slice_findings(BOARD, _leaders(["A", "B", "C"], ["", "", ""], [True, True, True]),
                                       "macro_f1"))
    text = slice_sentence(rows, "Macro F1")
    assert "These slices are too small for the paired tests" in text
    assert "the paired tests" not in text.lower().replace("too small for the paired tests", "")


def test_no_slice_sentence_when_the_leader_wins_every_slice():
    rows = slice_findings(BOARD, _leaders(["A", "A", "A"], ["B", "C", "B; C"]), "macro_f1")
    assert rows == []
    base = pd.DataFrame([{"finding": "leader", "system": "A", "measure": "macro_f1", "value": 0.8, "detail": "sole"}])
    assert "Slices" not in findings_note(base, primary="macro_f1").text


def test_findings_note_carries_the_slice_sentence():
    rows = slice_findings(BOARD, _leaders(["A", "B"], ["", "A"]), "macro_f1")
    base = [{"finding": "leader", "system": "A", "measure": "macro_f1", "value": 0.8, "detail": "sole"}]
    note = findings_note(pd.DataFrame(base + rows), primary="macro_f1")
    assert "**Slices:**" in note.text and "depends on the slice" in note.text


def test_no_rows_without_slices_or_with_a_tied_leader():
    assert slice_findings(BOARD, None, "macro_f1") == []
    tied = BOARD.assign(rank=[1, 1, 3])
    assert slice_findings(tied, _leaders(["A", "B"], ["", "A"]), "macro_f1") == []


def test_slice_names_with_markup_are_escaped_in_the_sentence():
    rows = pd.DataFrame(slice_findings(BOARD, _leaders(["A", "B"], ["", "A"]).assign(
        slice=["x", "a_b & <c>|d"]), "macro_f1"))
    text = slice_sentence(rows, "Macro F1")
    assert r"**B** on a\_b \& \<c\>\|d." in text     # the markup escaped, its "|" kept apart


def test_charts_draw_undefined_values_and_slices_without_intervals():
    frames = slice_frames(3, 2, small=(0, 1))                  # no slice has an interval
    df = frames["slices"]
    df.loc[0, "value"] = float("nan")                          # one undefined value (0/0)
    heat = slice_heatmap(df, measure="macro_f1").to_dict(validate=True)
    data = pd.DataFrame(heat["datasets"][heat["data"]["name"]])
    assert data.loc[data["system"] == "sys0", "label"].iloc[0] == "—"
    panels = slice_leaderboards(df, measure="macro_f1").to_dict(validate=True)
    rows = pd.DataFrame(panels["datasets"][panels["data"]["name"]])
    assert rows["interval"].eq("").all() and len(rows) == 6
