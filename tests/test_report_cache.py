"""What the report sections share between cells gives what reading afresh gives: a table read once
per report (each call a copy), the audit's verdicts found through one index of audit.csv (the
same as one mask per measure), and Altair's debug mode off only in the report's own kernel."""
from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings, strategies as st

pd = pytest.importorskip("pandas")

from evalreport.report import audit_section
from evalreport.report.display import VALIDATE_ENV
from evalreport.report.sections import open_report
from evalreport.report.sections._core import _read


def test_a_table_is_read_once_and_every_call_gets_its_own_copy(tmp_path):
    (tmp_path / "scores.csv").write_text("system,measure,value,undefined,reason\n"
                                         "a,accuracy,0.5,False,\nb,accuracy,,True,0/0\n", encoding="utf-8")
    expected = _read(tmp_path / "scores.csv")
    rep = open_report(tmp_path)
    first = rep.table("scores")
    pd.testing.assert_frame_equal(first, expected)
    first.loc[0, "value"] = 99.0                   # a section changes what it got
    first["extra"] = 1
    (tmp_path / "scores.csv").unlink()             # read once: the file is not needed again
    pd.testing.assert_frame_equal(rep.table("scores"), expected)
    assert rep.table("missing").empty


def test_open_report_turns_altair_debug_mode_off_only_in_the_report_kernel(tmp_path, monkeypatch):
    from altair.utils import schemapi

    try:
        monkeypatch.delenv(VALIDATE_ENV, raising=False)
        schemapi.enable_debug_mode()
        open_report(tmp_path)
        assert schemapi.DEBUG_MODE is True
        monkeypatch.setenv(VALIDATE_ENV, "0")
        open_report(tmp_path)
        assert schemapi.DEBUG_MODE is False
    finally:
        schemapi.enable_debug_mode()


# ---------------------------------------------------------------------------- audit verdicts

def _verdicts_by_masks(au, setting, measures, primary):
    """audit_section.verdicts written with one boolean mask per measure (the reference)."""
    au = au.assign(name=[audit_section.cli_name(p, q) for p, q in zip(au["paper"].astype(str),
                                                                      au["property"].astype(str))])
    order = list(dict.fromkeys([primary] + [m for m in measures if m in set(au["measure"])]
                               + list(dict.fromkeys(au["measure"]))))
    order = [m for m in order if m in set(au["measure"])]
    rows, used = {}, {}
    for m in order:
        sub = au[(au["measure"] == m) & (au["setting"] == setting)]
        if (sub.empty or (sub["verdict"] == "n/a").all()) and setting != "binary" and audit_section._is_binary(m):
            alt = au[(au["measure"] == m) & (au["setting"] == "binary")]
            if not alt.empty:
                sub, used[m] = alt, "binary"
        used.setdefault(m, setting)
        rows[m] = sub.drop_duplicates("name").set_index("name")["verdict"]
    wide = pd.DataFrame(rows).T
    wide = wide.reindex(columns=audit_section._order_props(wide.columns)).fillna("n/a") if not wide.empty else wide
    return wide, used


MEASURES = ["accuracy", "f1", "mcc", "macro_f1", "k"]      # f1: binary, evaluated on the positive class
PROPERTIES = [("goesgens", "CB"), ("goesgens", "Max"), ("goesgens", "Mon"), ("opitz", "PIV"), ("sebastiani", "MON")]


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_verdicts_and_counterexamples_match_one_mask_per_measure(data):
    keys = list(itertools.product(MEASURES, ["binary", "multiclass"], PROPERTIES))
    picked = data.draw(st.lists(st.sampled_from(keys), min_size=1, max_size=40))      # repeats: first one wins
    rows = [(m, s, paper, prop, data.draw(st.sampled_from(["satisfied", "violated", "n/a"])),
             f"C=[[{i},1],[0,{i}]]") for i, (m, s, (paper, prop)) in enumerate(picked)]
    au = pd.DataFrame(rows, columns=["measure", "setting", "paper", "property", "verdict", "counterexample"])
    setting = data.draw(st.sampled_from(["binary", "multiclass"]))
    measures = data.draw(st.permutations(MEASURES))
    primary = data.draw(st.sampled_from(MEASURES))
    wide, used = audit_section.verdicts(au, setting, measures, primary)
    ref, ref_used = _verdicts_by_masks(au, setting, measures, primary)
    pd.testing.assert_frame_equal(wide, ref)
    assert used == ref_used
    got, n = audit_section.counterexamples(au, setting, measures, primary)
    if ref.empty:
        assert got.empty and n == 0
        return
    # the counterexample of each violated property: the first row of its measure, property and setting
    au_named = au.assign(name=[audit_section.cli_name(p, q) for p, q in zip(au["paper"], au["property"])])
    for _, row in got.iterrows():
        name = row["property"].split(":")[0]
        who = next(m for m in ref.index if audit_section._label(m) == row["measure"])
        hit = au_named[(au_named["measure"] == who) & (au_named["name"] == name)
                       & (au_named["setting"] == ref_used[who])]
        assert row["counterexample"] == audit_section.readable(hit["counterexample"].iloc[0])
