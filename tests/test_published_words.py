"""What a published report says about its own charts and options, checked against what it shows.

A shared task's report at scale: with more letter sets than colours the leaderboard chart writes
the letters beside the intervals, so its caption must not say that colour shows them; an option
named in a note must reach the PDF as typed (in Typst markup a bare ``--`` is an en dash).
"""
from __future__ import annotations

import json
import subprocess

import numpy as np
import pytest

from evalreport.charts.points import MAX_COLOURED_GROUPS, letters_shown_as


def _views(spec: dict) -> list[dict]:
    """Every view of a (layered) Vega-Lite spec."""
    out = [spec]
    for key in ("layer", "hconcat", "vconcat", "concat"):
        for sub in spec.get(key, []):
            out += _views(sub)
    return out


def _report(tmp_path_factory, n_systems: int, step: int):
    """``n_systems`` systems on 2,000 items, system i wrong on the first ``step * i`` items."""
    from evalreport.inputs import Runs
    from evalreport.report.build import analyse
    from evalreport.report.sections import open_report

    n = 2000
    gold = np.arange(n) % 2
    pred = np.stack([np.where(np.arange(n) < step * i, 1 - gold, gold) for i in range(n_systems)])
    runs = Runs(gold=gold, pred=pred, labels=("n", "p"), systems=tuple(f"s{i:02d}" for i in range(n_systems)))
    tables = tmp_path_factory.mktemp(f"board{n_systems}") / "tables"
    analyse(runs, tables, primary="accuracy", measures=["accuracy"], bootstrap=200, seed=0, audit=False)
    return open_report(tables)


def test_letters_shown_as_follows_the_number_of_letter_sets():
    import pandas as pd

    few = pd.DataFrame({"system": ["a", "b", "c"], "letters": ["a", "ab", "b"]})
    assert letters_shown_as(few, ["a", "b", "c"]) == "colour"
    assert letters_shown_as(few, ["a"]) == "none"
    assert letters_shown_as(None, ["a"]) == "none"
    n = MAX_COLOURED_GROUPS + 1
    many = pd.DataFrame({"system": [f"s{i}" for i in range(n)], "letters": [chr(97 + i) for i in range(n)]})
    assert letters_shown_as(many, many["system"].tolist()) == "written"


def test_caption_says_letters_are_written_when_the_chart_writes_them(tmp_path_factory):
    report = _report(tmp_path_factory, MAX_COLOURED_GROUPS + 4, 60)
    assert report.table("leaderboard")["letters"].nunique() > MAX_COLOURED_GROUPS   # the case built for
    chart = report.leaderboard_chart()
    coloured = [v for v in _views(chart.spec) if "color" in v.get("encoding", {})]
    texts = [v for v in _views(chart.spec) if v.get("mark", {}).get("type") == "text"
             and v.get("encoding", {}).get("text", {}).get("field") == "letters"]
    assert not coloured and texts
    assert "Colour: the significance letters." not in chart.caption
    assert "Beside each interval: its significance letters." in chart.caption


def test_printed_chart_of_the_first_systems_says_how_it_shows_their_letters(tmp_path_factory):
    # 45 systems: the PDF draws the first 40, whose letters still outnumber the colours; with
    # 5 items between neighbours only some pairs are separated, so the first 40 hold few letter sets
    report = _report(tmp_path_factory, 45, 60)
    chart = report.leaderboard_chart()
    assert chart.print_caption is not None
    assert "Colour: the significance letters." not in chart.print_caption
    assert "Beside each interval: its significance letters." in chart.print_caption


def _pdf_typst(note) -> str:
    """The Typst the PDF renderer makes of a :class:`Note` shown by a cell (its filter, its pandoc)."""
    from evalreport.report.render import pandoc_path
    from evalreport.report.resources import templates_dir

    data = {k: v for k, v in note._repr_mimebundle_().items() if k != "text/html"}
    nb = {"cells": [{"cell_type": "code", "metadata": {}, "source": "x", "execution_count": 1,
                     "outputs": [{"output_type": "display_data", "metadata": {}, "data": data}]}],
          "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    lua = templates_dir() / "typst" / "select-output.lua"
    return subprocess.run([pandoc_path(), "--from=ipynb", "--to=typst", "--ipynb-output=all", f"--lua-filter={lua}"],
                          input=json.dumps(nb), text=True, capture_output=True, check=True).stdout


def _notes() -> dict[str, str]:
    """The notes of the report that name an option, by name."""
    from evalreport.report.sections.ranks import RankSections
    from evalreport.report.sections.supplements import NO_ORDINAL_NOTE, NO_POSITIVE_NOTE

    class Board:
        primary = "accuracy"

    return {"plan": RankSections._plan_pointer(Board(), "clusters"),  # type: ignore[arg-type]
            "folds": NO_POSITIVE_NOTE, "ordinal": NO_ORDINAL_NOTE}


@pytest.mark.parametrize("name", ["plan", "folds", "ordinal"])
def test_options_named_in_notes_reach_the_pdf_as_typed(name):
    from evalreport.report.display import Note

    text = _notes()[name]
    options = [w.strip("().,`") for w in text.split() if w.strip("(`").startswith("--")]
    assert options
    typst = _pdf_typst(Note(text))
    # in Typst markup a bare "--" is an en dash: the option must be raw text or escaped (-\-x)
    for option in options:
        assert f"`{option}`" in typst or option.replace("--", "-\\-") in typst, typst


def test_rank_chart_of_many_systems_says_what_its_unlabelled_axis_holds():
    import pandas as pd

    from evalreport import charts
    from evalreport.charts.ranks import MAX_NAMED

    S = MAX_NAMED + 30
    systems = [f"team_{k:03d}" for k in range(S)]
    rd = pd.DataFrame({"system": systems, "measure": "accuracy", "rank": np.arange(1, S + 1), "probability": 1.0})
    board = pd.DataFrame({"system": systems, "rank": np.arange(1, S + 1), "rank_lo": np.arange(1, S + 1),
                          "rank_hi": np.arange(1, S + 1)})
    spec = charts.rank_blob(rd, board, measure="accuracy").to_dict(validate=True)
    x = spec["layer"][1]["encoding"]["x"]
    assert x["axis"]["labels"] is False                      # too many names to print
    # the axis title (which Vega-Lite takes over the encoding's) says what the columns are
    assert x["axis"].get("title", x.get("title")) == "systems, in leaderboard order"


def test_a_system_without_a_value_has_no_rank_on_the_leaderboard_page():
    """The stance example's majority baseline has no MCC (0/0): the page and its downloads give it no
    rank, rank interval, tier or P(best) under MCC (a tied last rank such as 75.5 reads as a placing)."""
    import sys
    from pathlib import Path

    import evalreport
    from evalreport.report.leaderboard_data import page_csv, page_data, tables_from_comparison

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from leaderboard_fixtures import stance_runs

    comp = evalreport.compare(stance_runs(), evalreport.Settings(bootstrap=200, seed=3, progress=False))
    data = page_data(tables_from_comparison(comp), comp.manifest())
    i = data["systems"].index("majority")
    mcc = data["raw"]["mcc"]
    assert mcc["value"][i] is None and mcc["reason"][i]                      # the case built for
    assert [mcc[k][i] for k in ("rank", "rank_lo", "rank_hi", "tier", "p_best") if k in mcc] == [None] * sum(
        k in mcc for k in ("rank", "rank_lo", "rank_hi", "tier", "p_best"))
    assert {"rank_lo", "p_best"} <= set(mcc)
    assert mcc["letters"][i] == ""
    defined = [r for j, r in enumerate(mcc["rank"]) if j != i]
    assert sorted(defined) == list(range(1, len(defined) + 1))              # the others keep their ranks
    import io

    import pandas as pd

    rows = pd.read_csv(io.StringIO(page_csv(data)))
    row = rows[(rows["system"] == "majority") & (rows["measure"] == "mcc") & ~rows["calibrated"]]
    assert row[["rank", "rank_lo", "rank_hi", "p_best"]].isna().all(axis=None)


def test_codabench_page_names_the_resampled_unit_once(tmp_path):
    """With a cluster column the participant's page says the intervals resample clusters, and does not
    also say they resample the test items."""
    import html
    from contextlib import redirect_stderr, redirect_stdout
    from io import StringIO

    import pandas as pd

    from evalreport.cli import main

    rng = np.random.default_rng(3)
    ref, res = tmp_path / "input" / "ref", tmp_path / "input" / "res"
    ref.mkdir(parents=True)
    res.mkdir()
    docs = np.repeat(np.arange(30), 8)
    gold = rng.integers(0, 2, size=docs.size)
    pred = np.where(rng.random(docs.size) < 0.8, gold, 1 - gold)
    pd.DataFrame({"id": range(docs.size), "label": gold, "doc": docs}).to_csv(ref / "gold.tsv", sep="\t", index=False)
    pd.DataFrame({"id": range(docs.size), "label": pred}).to_csv(res / "pred.tsv", sep="\t", index=False)
    pages = {}
    for name, extra in (("items", ""), ("clusters", 'cluster_col = "doc"\n')):
        task = tmp_path / f"{name}.toml"
        task.write_text('primary = "accuracy"\nbootstrap = 200\n' + extra, encoding="utf-8")
        err = StringIO()
        with redirect_stderr(err), redirect_stdout(StringIO()):
            assert main(["codabench", str(tmp_path / "input"), str(tmp_path / name), "--task-file", str(task)]) == 0
        pages[name] = html.unescape((tmp_path / name / "detailed_results.html").read_text(encoding="utf-8"))
        assert ("resample whole clusters (30 clusters" in err.getvalue()) == (name == "clusters")   # the log
    assert "Intervals: 200 bootstrap resamples over the test items" in pages["items"]
    clustered = pages["clusters"]
    assert "Intervals: 200 bootstrap resamples over whole clusters (30 clusters of the gold column 'doc')" in clustered
    assert "over the test items" not in clustered and clustered.count("30 clusters") == 1


def test_printed_per_class_heatmap_of_many_systems_shows_the_first_at_a_legible_size(tmp_path_factory):
    """45 systems: the PDF's per-class F1 heatmap holds the first 40 (as the rank heatmaps do), not all 45
    squeezed onto the page; the live chart keeps every system."""
    from evalreport.report.sections.many_systems import MAX_PRINT_SYSTEMS

    report = _report(tmp_path_factory, 45, 60)
    chart = report.per_class_chart()

    def systems(spec: dict) -> set[str]:
        return {r["system"] for rows in spec.get("datasets", {}).values() for r in rows if "system" in r}

    assert len(systems(chart.spec)) == 45
    assert len(systems(chart.print_spec)) == MAX_PRINT_SYSTEMS
    assert f"first {MAX_PRINT_SYSTEMS} systems" in chart.print_caption


def test_printed_rank_distribution_of_many_systems_shows_the_first(tmp_path_factory):
    """The PDF's P(rank = k) chart of 45 systems holds the first 40 and the ranks they reach."""
    from evalreport.report.sections.many_systems import MAX_PRINT_SYSTEMS

    report = _report(tmp_path_factory, 45, 60)
    chart = report.rank_distribution_chart()

    def systems(spec: dict) -> set[str]:
        return {r["system"] for rows in spec.get("datasets", {}).values() for r in rows if "system" in r}

    assert len(systems(chart.spec)) == 45
    assert len(systems(chart.print_spec)) == MAX_PRINT_SYSTEMS
    assert f"first {MAX_PRINT_SYSTEMS} systems" in chart.print_caption


def test_systems_without_scores_are_grouped_by_reason_in_the_calibration_words():
    """50 systems without score columns: the reason is said once and at most 10 names are listed, not 50
    names each followed by the same reason (a page of repeated words in the PDF)."""
    import pandas as pd

    from evalreport.escape import markdown
    from evalreport.report.sections.scores import MAX_NAMED_MISSING, _without_value

    reason = "no score columns in the system's run"
    missing = pd.DataFrame({"system": [f"team{i:02d}" for i in range(50)] + ["x*y*"],
                            "reason": [reason] * 50 + ["MCC: 0/0"]})
    text = _without_value(missing)
    assert text.count(markdown(reason)) == 1
    assert "team00, team01" in text and f"team{MAX_NAMED_MISSING:02d}" not in text
    assert f"and {50 - MAX_NAMED_MISSING} more ({markdown(reason)}; all 50 in scores.csv)" in text
    assert f"{markdown('x*y*')} ({markdown('MCC: 0/0')})" in text       # a name from the data stays text


def test_a_clustered_report_names_its_test_alike_in_every_caption(tmp_path):
    """With --cluster-col the letters, rank intervals and p-value captions name the paired cluster
    bootstrap test, as the pairwise table and the detectable-difference note do."""
    from evalreport.inputs import Runs
    from evalreport.report.build import analyse
    from evalreport.report.sections import open_report

    rng = np.random.default_rng(5)
    n = 600
    gold = rng.integers(0, 2, n)
    pred = np.stack([np.where(rng.random(n) < q, gold, 1 - gold) for q in (0.9, 0.8, 0.7)])
    clusters = np.repeat(np.arange(n // 6), 6)
    runs = Runs(gold=gold, pred=pred, labels=("n", "p"), systems=("a", "b", "c"), clusters=clusters,
                cluster_names=tuple(f"d{i}" for i in range(n // 6)), cluster_col="doc")
    analyse(runs, tmp_path / "t", primary="accuracy", measures=["accuracy"], bootstrap=200, seed=0, audit=False)
    report = open_report(tmp_path / "t")
    assert report._resampled() == "clusters"                                  # the case built for
    captions = [report.leaderboard_chart().caption, report.leaderboard_table().caption]
    captions += [c.caption for c in (report.rank_interval_chart(), report.pvalue_chart()) if c is not None]
    for caption in captions:
        assert "paired cluster bootstrap test" in caption and "paired bootstrap test" not in caption, caption
    title = report.pvalue_chart().spec["title"]["text"]
    assert title == "Pairwise differences under Accuracy: paired cluster bootstrap test"
    found = report.table("findings").set_index("finding")
    assert found.loc["separable_count", "detail"].startswith("paired cluster bootstrap, Holm-corrected")


def test_leaderboard_page_chart_of_many_systems_has_its_value_axis_on_top_too():
    """100 rows of 16 px put the bottom axis two screens below the first system: the chart repeats it on top.
    A short chart keeps one axis."""
    import vl_convert as vlc

    from evalreport.report.leaderboard_page import TOP_AXIS_SYSTEMS, chart_spec

    def orients(n: int) -> list[str]:
        spec = chart_spec([f"s{i}" for i in range(n)])
        spec["data"] = {"values": [{"system": f"s{i}", "pos": i, "value": 0.9 - i / 200, "lo": 0.88 - i / 200,
                                    "hi": 0.92 - i / 200, "tier": "separated from the first"} for i in range(n)]}
        vega = vlc.vegalite_to_vega(spec)            # compiled as the page's vega-embed compiles it
        return sorted(a["orient"] for a in vega["axes"] if a.get("scale") == "x" and a.get("labels", True)
                      and not a.get("grid"))

    assert orients(TOP_AXIS_SYSTEMS + 60) == ["bottom", "top"]
    assert orients(5) == ["bottom"]


def test_printed_calibration_chart_of_many_systems_shows_the_first(tmp_path_factory):
    """Raw vs calibrated values of 45 systems under several measures: the PDF stacks at most 80 system rows."""
    from evalreport.inputs import Runs
    from evalreport.report.build import analyse
    from evalreport.report.sections import open_report
    from evalreport.report.sections.robustness import PRINT_PANEL_ROWS

    rng = np.random.default_rng(2)
    n, S = 1200, 45
    gold = rng.choice(3, n, p=[0.6, 0.3, 0.1])
    pred = np.stack([np.where(rng.random(n) < 0.5 + 0.01 * s, gold, rng.integers(0, 3, n)) for s in range(S)])
    runs = Runs(gold=gold, pred=pred, labels=("a", "b", "c"), systems=tuple(f"s{i:02d}" for i in range(S)))
    tables = tmp_path_factory.mktemp("cal") / "tables"
    analyse(runs, tables, primary="macro_f1", measures=["macro_f1", "accuracy", "mcc", "weighted_f1"],
            bootstrap=50, seed=0, audit=False)
    chart = open_report(tables).calibration_chart()

    def systems(spec: dict) -> set[str]:
        return {r["system"] for rows in spec.get("datasets", {}).values() for r in rows if "system" in r}

    measures = {r["measure"] for rows in chart.spec["datasets"].values() for r in rows if "measure" in r}
    assert len(systems(chart.spec)) == S
    shown = len(systems(chart.print_spec))
    assert shown * -(-len(measures) // 2) <= PRINT_PANEL_ROWS and shown < S
    assert f"first {shown} systems" in chart.print_caption


@pytest.mark.parametrize("letters, n", [
    (["a", "ab", "b–e"], 5),                              # a range stands for its letters, its dash for none
    (["a,b", "a1,b1", "K–h1,m1"], 27),   # a, b, K to Z, a1 to h1, m1: two-character names beyond 52 letters
])
def test_findings_count_letters_not_characters(letters, n):
    """The findings' "N letter groups on the leaderboard" counts the letters the display uses, read as
    evalreport.analyses.letters.letter_set reads them (100 teams gave 48 for 47 letters, 55 for 56)."""
    import pandas as pd

    from evalreport.analyses.findings import _n_letters
    from evalreport.analyses.letters import letter_set

    assert _n_letters(pd.Series(letters)) == len(set().union(*(letter_set(x) for x in letters))) == n


@pytest.mark.slow
def test_leaderboard_page_says_how_many_systems_have_no_value(tmp_path):
    """Under MCC the stance example's majority baseline has no value: the status line says so."""
    import shutil
    import sys
    from pathlib import Path

    sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright is not installed")
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        pytest.skip("no chromium on PATH")
    import evalreport
    from evalreport.report.leaderboard_data import page_data, tables_from_comparison
    from evalreport.report.leaderboard_page import write_page

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from leaderboard_fixtures import stance_runs

    comp = evalreport.compare(stance_runs(), evalreport.Settings(bootstrap=100, seed=3, progress=False))
    path = tmp_path / "results.html"
    write_page(page_data(tables_from_comparison(comp), comp.manifest()), path, bundle=None)
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=["--no-sandbox", "--disable-gpu"])
        page = browser.new_page()
        page.goto(path.as_uri())
        page.wait_for_selector(".lb-root[data-lb-ready='1']", timeout=15000)
        assert "without a value" not in page.inner_text("[data-lb=status]")        # macro F1: every system
        page.select_option("[data-lb=measure]", "mcc")
        status = page.inner_text("[data-lb=status]")
        browser.close()
    assert "1 without a value under it (a dash; no rank), listed last." in status


@pytest.mark.parametrize("n_moved", [0, 8, 20])
def test_what_if_table_shows_the_systems_whose_rank_moves(tmp_path, n_moved):
    """25 systems of which ``n_moved`` change rank under another class distribution: the table lists
    those (at most 15), and its caption counts what it shows, not 15 'moving most' of which some never move."""
    import json

    import pandas as pd

    from evalreport.report.sections import open_report
    from evalreport.report.sections._core import MAX_ROWS

    systems = [f"s{i:02d}" for i in range(25)]
    rows = []
    for scenario in ("observed", "equal prevalence"):
        rank = list(range(1, 26))
        if scenario != "observed":           # the last n_moved systems swap places in pairs
            movers = rank[25 - n_moved:]
            rank[25 - n_moved:] = [r + (1 if k % 2 == 0 else -1) for k, r in enumerate(movers)]
        rows += [{"system": s, "scenario": scenario, "measure": "macro_f1", "value": 1 - r / 100, "rank": r}
                 for s, r in zip(systems, rank)]
    folder = tmp_path / "t"
    folder.mkdir()
    pd.DataFrame(rows).to_csv(folder / "what_if.csv", index=False)
    (folder / "manifest.json").write_text(json.dumps({"primary": "macro_f1", "systems": systems}), encoding="utf-8")
    table = open_report(folder).what_if_table()
    shown = list(table.df.index)
    assert len(shown) == min(MAX_ROWS, n_moved or MAX_ROWS)
    if n_moved:
        assert set(shown) <= set(systems[25 - n_moved:])              # only systems that move
    said = {0: "The first 15 of 25 systems (no rank moves", 8: "The 8 of 25 systems whose rank moves",
            20: "The 15 systems whose rank moves most between scenarios (20 of 25 move at all)"}[n_moved]
    assert said in table.caption and "what_if.csv" in table.caption
