"""The slices in the appendix (LaTeX and Typst, escaped) and the Codabench per-slice keys (``KEY__SLICE``),
each value checked against scikit-learn on the slice's items."""
from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import accuracy_score, f1_score

from evalreport.counts import Counts
from evalreport.inputs.runs import Runs
from evalreport.measures import evaluate, get
from evalreport.report.appendix import latex, typst
from evalreport.report.appendix.slices import slices_tables
from evalreport.report.appendix.writer import AppendixData
from evalreport.report.codabench import undefined_value
from evalreport.report.codabench_slices import safe_name, slice_keys, slice_scores
from tests.slices_view_frames import slice_frames, write_tables

HOSTILE = "a_b & <c>"


def test_appendix_slice_table_escapes_slice_names_for_latex_and_typst(tmp_path):
    frames = slice_frames(3, 3, small=(1,), names=["x", HOSTILE, '#y $z "q"'])
    specs = slices_tables(AppendixData(write_tables(tmp_path / "t", frames)))
    assert [s.name for s in specs] == ["slices"]
    tex, typ = latex.table(specs[0]), typst.table(specs[0])
    assert r"a\_b \& \textless{}c\textgreater{} (5) *" in tex and r"\#y \$z" in tex
    assert HOSTILE not in tex
    assert '[#"a_b & <c> (5) *"]' in typ and r'[#"#y $z \"q\" (100)"]' in typ     # a Typst string: no markup
    assert "small slice" in specs[0].caption
    best = frames["slice_leaders"].set_index("slice")["best"]
    row = next(r for r in specs[0].rows if r[0].text.startswith("x "))
    bold = [c.bold for c in row[1:]]
    assert bold == [s == best["x"] for s in frames["leaderboard"]["system"]]      # the slice's best in bold


def test_appendix_slice_tables_split_many_systems_and_none_without_slices(tmp_path):
    specs = slices_tables(AppendixData(write_tables(tmp_path / "many", slice_frames(20, 4, long=True))))
    assert len(specs) > 1 and sum(len(s.columns) - 1 for s in specs) == 20
    assert all(s.total_width() <= 6.9 for s in specs)
    board = slice_frames(3, 3)["leaderboard"]
    assert slices_tables(AppendixData(write_tables(tmp_path / "none", {"leaderboard": board}))) == []


def test_safe_slice_keys_are_unique_and_documented_examples_hold():
    assert safe_name("News & Blogs") == "news_blogs" and safe_name("[0, 12)") == "0_12"
    assert safe_name("(empty)") == "empty" and safe_name("&&&") == "slice"
    assert slice_keys(["A-B", "a b", "a.b", "c"]) == {"A-B": "a_b", "a b": "a_b_2", "a.b": "a_b_3", "c": "c"}


def _runs(seed: int = 3, n: int = 400):
    rng = np.random.default_rng(seed)
    gold = rng.integers(0, 3, n)
    pred = np.where(rng.random(n) < 0.7, gold, rng.integers(0, 3, n))
    domain = rng.choice(np.array([HOSTILE, "News & Blogs", "(empty)"], dtype=object), n)
    length = rng.choice(np.array(["[0, 12)", "[12, 40)"], dtype=object), n)
    runs = Runs(gold=gold, pred=pred[None, :], labels=("x", "y", "z"), systems=("submission",))
    return runs, gold, pred, {"domain": domain, "length": length}


def _values(records):
    def values(sub):
        frame = evaluate(Counts.from_runs(sub), records)
        return frame.set_index("measure").loc[[m.id for m in records], "value"].astype(float).tolist()
    return values


@pytest.mark.parametrize("columns", [("domain",), ("domain", "length")])
def test_codabench_slice_keys_equal_scikit_learn_on_each_slice(columns):
    runs, gold, pred, slices = _runs()
    records = [get("accuracy"), get("macro_f1")]
    keys = ["accuracy", "macro_f1"]
    out = slice_scores(runs, {c: slices[c] for c in columns}, records, keys, evaluate_subset=_values(records),
                       stand_in=undefined_value)
    expected = {}
    for c in columns:
        for name in dict.fromkeys(slices[c]):
            m = slices[c] == name
            part = safe_name(name) if len(columns) == 1 else f"{safe_name(c)}__{safe_name(name)}"
            expected[f"accuracy__{part}"] = accuracy_score(gold[m], pred[m])
            expected[f"macro_f1__{part}"] = f1_score(gold[m], pred[m], average="macro", labels=[0, 1, 2])
    assert set(out) == set(expected)
    assert all(out[k] == pytest.approx(v, abs=1e-12) for k, v in expected.items())
    assert "accuracy__a_b_c" in out or "accuracy__domain__a_b_c" in out


def test_codabench_no_slice_keys_without_slices():
    runs, *_ = _runs()
    assert slice_scores(runs, None, [get("accuracy")], ["accuracy"], evaluate_subset=_values([get("accuracy")]),
                        stand_in=undefined_value) == {}


def test_codabench_detail_rows_and_page_table_escape_slice_names():
    from evalreport.report.codabench_page import table_html
    from evalreport.report.codabench_slices import detail_frame, slice_rows

    runs, gold, pred, slices = _runs()
    records = [get("accuracy")]
    rows = slice_rows(runs, {"domain": slices["domain"]}, records, ["accuracy"], evaluate_subset=_values(records))
    assert list(rows["key"]) == ["accuracy__" + safe_name(s) for s in dict.fromkeys(slices["domain"])]
    assert rows["n"].sum() == len(gold)
    page = table_html(detail_frame(rows, lambda m: get(m).label), "By slice of the test set")
    assert "a_b &amp; &lt;c&gt;" in page and HOSTILE not in page


def test_methods_paragraph_describes_the_slices_with_the_column_escaped(tmp_path):
    from evalreport.report.appendix import methods
    from evalreport.report.appendix.slices import slices_segments

    data = AppendixData(write_tables(tmp_path / "t", slice_frames(3, 3, small=(1,), column=HOSTILE)))
    seg = methods.methods_segments(data)
    tex = methods.render(seg, "latex")
    assert r"gold column a\_b \& \textless{}c\textgreater{} (3 slices)" in tex
    assert r"Holm-corrected within each slice \cite{holm1979simple}; a slice with too few items" in tex
    none = methods._Segments()  # noqa: PLC2701 (the paragraph's own segment list)
    slices_segments(AppendixData(write_tables(tmp_path / "none", {"leaderboard": slice_frames(3, 3)["leaderboard"]})),
                    none)
    assert list(none) == []
