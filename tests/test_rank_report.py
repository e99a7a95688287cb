"""The report's rank intervals, equivalence verdicts and detectable difference: leaderboard columns,
the blob chart (2 to 300 systems), the findings' words, the sections and the methods paragraph."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from evalreport import charts
from evalreport.analyses.compare import compare
from evalreport.analyses.findings import findings
from evalreport.examples import shared_task_data
from evalreport.inputs.runs import Runs
from evalreport.report.summary import findings_note


def _runs(n_systems: int, n_items: int = 400, seed: int = 1) -> Runs:
    d = shared_task_data(n_systems=n_systems, n_items=n_items, seed=seed)
    labels = list(d.labels)
    code = {x: i for i, x in enumerate(labels)}
    gold = d.gold["label"].map(code).to_numpy()
    pred = np.stack([fr["label"].map(code).to_numpy() for fr in d.runs.values()])
    return Runs(gold=gold, pred=pred, labels=tuple(labels), systems=tuple(d.runs))


@pytest.fixture(scope="module")
def five():
    return compare(_runs(5), measures=("accuracy",), bootstrap=300, seed=0, margin=0.03)


def test_leaderboard_has_rank_intervals(five):
    board = five.leaderboard
    assert list(board.columns[-2:]) == ["rank_lo", "rank_hi"]
    assert (board["rank_lo"] <= board["rank"]).all() and (board["rank"] <= board["rank_hi"]).all()
    # they are the Holm-corrected bootstrap decisions: a system's best rank counts who beats it
    pw = five.pairwise[(five.pairwise["test"] == "bootstrap")]
    for _, r in board.iterrows():
        s = r["system"]
        beaten_by = ((pw["system_b"] == s) & (pw["difference"] > 0) & (pw["p_holm"] < 0.05)).sum() + (
            (pw["system_a"] == s) & (pw["difference"] < 0) & (pw["p_holm"] < 0.05)).sum()
        assert r["rank_lo"] == 1 + beaten_by
    assert five.settings["margin"] == 0.03


def test_no_resampling_no_rank_intervals():
    cmp = compare(_runs(3), measures=("accuracy",), bootstrap=0)
    assert cmp.leaderboard["rank_lo"].isna().all()
    assert "verdict" in cmp.pairwise.columns


def test_findings_name_the_tied_and_the_verdicts(five):
    rows = findings(five, fragility_count=False).findings
    tied = rows[rows["finding"] == "tied_first"]
    board = five.leaderboard
    assert list(tied["system"]) == list(board.loc[board["rank_lo"] == 1, "system"])
    v = rows[rows["finding"] == "verdicts"]
    assert set(v["detail"]) == {"different", "equivalent", "inconclusive"} and v["value"].sum() == 10
    det = rows[rows["finding"] == "detectable"]
    assert len(det) == 1 and 0 < det["value"].iloc[0] < 1
    text = findings_note(rows, primary=five.primary).text
    assert ("Tied for first:" in text) or ("First without a tie:" in text)
    assert "Equivalence (margin 0.03):" in text


def test_detectable_is_the_plan_formula(five):
    from evalreport.analyses.plan import detectable_difference, power_at

    rows = findings(five, fragility_count=False).findings
    det = rows[rows["finding"] == "detectable"].iloc[0]
    a, b = det["system"].split(" vs ")
    i, j = five.systems.index(a), five.systems.index(b)
    se = float(np.std(five.samples[:, i, 0] - five.samples[:, j, 0], ddof=1))
    assert det["value"] == pytest.approx(detectable_difference(se, 0.05, 0.8))
    assert power_at(se, det["value"], 0.05) == pytest.approx(0.8, abs=1e-6)


@pytest.mark.parametrize("S", [2, 5, 60, 100, 300])
def test_blob_chart_at_every_size(S):
    charts.use_theme()                 # as the report does: its charts carry all their rows
    rng = np.random.default_rng(S)
    systems = [f"team_{k:03d}" for k in range(S)]
    p = rng.dirichlet(np.ones(S) * 0.3, size=S)
    rd = pd.DataFrame({"system": np.repeat(systems, S), "measure": "accuracy",
                       "rank": np.tile(np.arange(1, S + 1), S), "probability": p.ravel()})
    lo = np.maximum(1, np.arange(1, S + 1) - 3)
    board = pd.DataFrame({"system": systems, "rank": np.arange(1, S + 1), "rank_lo": lo,
                          "rank_hi": np.minimum(S, np.arange(1, S + 1) + 3)})
    spec = charts.rank_blob(rd, board, measure="accuracy").to_dict(validate=True)
    assert spec["layer"][0]["mark"]["type"] == "bar"          # the interval under the circles
    x = spec["layer"][1]["encoding"]["x"]
    assert x["scale"]["domain"] == systems                   # leaderboard order
    assert x["axis"].get("labels", True) is (S <= charts.ranks.MAX_NAMED)


def test_blob_chart_refuses_nothing():
    with pytest.raises(ValueError):
        charts.rank_blob(pd.DataFrame(columns=["system", "measure", "rank", "probability"]),
                         pd.DataFrame({"system": ["a"], "rank": [1], "rank_lo": [1], "rank_hi": [1]}),
                         measure="accuracy")


def test_report_sections_and_methods(tmp_path):
    from evalreport.report.appendix import write_appendix
    from evalreport.report.build import analyse
    from evalreport.report.sections import ReportData

    analyse(_runs(5, 300), tmp_path / "t", bootstrap=200, seed=0, audit=False, margin=0.02)
    rep = ReportData(tmp_path / "t")
    table = rep.leaderboard_table()
    assert "rank interval" in table.df.columns
    assert all(t == "—" or t.replace("–", "").isdigit() for t in table.df["rank interval"])
    assert "simultaneous" in table.caption
    chart = rep.rank_interval_chart()
    assert chart.name == "rank-intervals" and chart.spec["layer"]
    assert "What this test set can detect" in rep.detectable_note().text
    verdicts = rep.verdicts_table()
    assert set(verdicts.df["verdict"]) <= {"different", "equivalent", "inconclusive"}
    write_appendix(tmp_path / "t", tmp_path / "out", figures=False)
    tex = (tmp_path / "out" / "methods.tex").read_text(encoding="utf-8")
    assert "rank interval is simultaneous at 95" in tex and "almohamad2022simultaneous" in tex
    assert "margin of \\textpm{}0.02" in tex or "0.02 in the primary measure" in tex
    assert "schuirmann1987comparison" in (tmp_path / "out" / "references.bib").read_text(encoding="utf-8")


def test_without_margin_no_verdicts_section(tmp_path):
    from evalreport.report.build import analyse
    from evalreport.report.sections import ReportData

    analyse(_runs(3, 200), tmp_path / "t", bootstrap=100, seed=0, audit=False)
    rep = ReportData(tmp_path / "t")
    assert rep.verdicts_table() is None
    verdict = rep.table("pairwise")["verdict"]
    assert (verdict.isna() | (verdict.astype(str) == "")).all()
