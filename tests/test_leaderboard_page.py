"""The interactive leaderboard's data and page without a browser: per-measure letters against the
comparison's own, the JSON against the comparison's tables, the folder reader, escaping, size, the command."""
from __future__ import annotations

import dataclasses
import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import evalreport
from evalreport.analyses.measure_letters import MEASURE_LETTER_COLUMNS, measure_letters
from evalreport.analyses.significance import bootstrap_p, holm
from evalreport.counts import Counts
from evalreport.report.leaderboard_data import page_csv, page_data, read_tables, tables_from_comparison
from evalreport.report.leaderboard_page import CSP, chart_spec, page_html, write_page
from evalreport.report.write import write_comparison

sys.path.insert(0, str(Path(__file__).resolve().parent))
from leaderboard_fixtures import STANCE, stance_runs, synthetic_runs, thirty_measure_comparison  # noqa: E402

HOSTILE = "<script>alert(1)</script>"


@pytest.fixture(scope="module")
def stance():
    runs = stance_runs()
    comp = evalreport.compare(runs, evalreport.Settings(bootstrap=300, seed=3, progress=False))
    return runs, comp


def _raw(frame: pd.DataFrame, measure: str) -> pd.DataFrame:
    return frame[(frame["measure"] == measure) & ~frame["calibrated"].astype(bool)].set_index("system")


# ----------------------------------------------------------------------------- letters under every measure


def test_primary_letters_through_the_bootstrap_path_equal_the_comparisons_own(stance):
    """Differential: the primary measure recomputed from the same resamples (groups dropped, so the
    bootstrap path runs) gives the comparison's own letters, tiers and rank intervals."""
    _, comp = stance
    assert comp.settings["pairwise_test"] == "bootstrap"
    again = measure_letters(dataclasses.replace(comp, groups=comp.groups.iloc[0:0]))
    mine = again[again["measure"] == comp.primary].set_index("system")
    own = comp.groups.set_index("system")
    board = comp.leaderboard.set_index("system")
    for s in comp.systems:
        assert mine.loc[s, "letters"] == own.loc[s, "letters"]
        assert mine.loc[s, "group"] == own.loc[s, "group"]
        assert int(mine.loc[s, "rank_lo"]) == int(board.loc[s, "rank_lo"])
        assert int(mine.loc[s, "rank_hi"]) == int(board.loc[s, "rank_hi"])


def test_mcc_letters_share_a_letter_exactly_when_holm_does_not_separate(stance):
    """Under MCC (not the primary), two systems share a letter iff the Holm-corrected paired bootstrap
    p-value over the same resamples is at least alpha (the compact letter display, Piepho 2004)."""
    _, comp = stance
    table = measure_letters(comp)
    assert list(table.columns) == MEASURE_LETTER_COLUMNS
    assert set(table["measure"]) == set(comp.measures)
    j = comp.measures.index("mcc")
    value = _raw(comp.scores, "mcc")["value"].reindex(comp.systems).to_numpy(dtype=float)
    a, b = np.triu_indices(len(comp.systems), 1)
    p, _, _ = bootstrap_p(comp.samples[:, a, j] - comp.samples[:, b, j], value[a] - value[b])
    p_holm = holm(p)
    letters = table[table["measure"] == "mcc"].set_index("system")["letters"]
    assert (table[table["measure"] == "mcc"]["test"] == "bootstrap").all()
    for x, y, q in zip(a, b, p_holm):
        shared = bool(set(letters[comp.systems[x]]) & set(letters[comp.systems[y]]))
        assert shared == (q >= 0.05), (comp.systems[x], comp.systems[y], q)


def test_no_resamples_no_letters(stance):
    runs, _ = stance
    comp = evalreport.compare(runs, evalreport.Settings(bootstrap=0, progress=False))
    assert measure_letters(comp).empty
    data = page_data(tables_from_comparison(comp), comp.manifest())
    assert data["letters_scope"] == "none"
    assert "lo" not in data["raw"]["mcc"]


# ----------------------------------------------------------------------------- the page's data


def test_page_data_holds_every_measure_in_the_comparisons_numbers(stance):
    runs, comp = stance
    data = page_data(tables_from_comparison(comp, Counts.from_runs(runs)), comp.manifest())
    assert data["systems"] == list(comp.systems)
    assert [m["id"] for m in data["measures"]] == list(comp.measures)
    assert data["primary"] == comp.primary and data["letters_scope"] == "every"
    ranks, intervals = comp.ranks, comp.intervals
    for mid in comp.measures:
        block = data["raw"][mid]
        r = _raw(ranks, mid)
        # a system without a value has no rank on the page (the table ranks it last, tied)
        assert block["rank"] == [None if block["value"][i] is None else r.loc[s, "rank"]
                                 for i, s in enumerate(comp.systems)]
        iv = intervals[intervals["measure"] == mid].set_index("system")
        for end in ("lo", "hi"):          # None in the JSON where the value is undefined (NaN in the table)
            np.testing.assert_allclose(np.array(block[end], dtype=float), iv.loc[list(comp.systems), end], rtol=1e-5)
        cal = ranks[(ranks["measure"] == mid) & ranks["calibrated"].astype(bool)].set_index("system")
        assert data["calibrated"][mid]["rank"] == [None if data["calibrated"][mid]["value"][i] is None
                                                   else cal.loc[s, "rank"] for i, s in enumerate(comp.systems)]
    # MCC and macro F1 crown different systems on the stance task (the README's tour)
    best = {mid: comp.systems[data["raw"][mid]["rank"].index(1)] for mid in ("mcc", "macro_f1")}
    assert best == {"mcc": "svm", "macro_f1": "bert"}
    # the drill-down: the confusion matrices are the counts, per-class recall is their diagonal share
    tensor = np.asarray(Counts.from_runs(runs).tensor)
    assert np.array_equal(np.asarray(data["drill"]["confusion"]), tensor)
    recall = np.asarray(data["drill"]["per_class"], dtype=float)[:, 0, :]
    np.testing.assert_allclose(recall, np.diagonal(tensor, axis1=1, axis2=2) / tensor.sum(axis=2), rtol=1e-5)
    groups = {m["id"]: m["group"] for m in data["measures"]}
    assert groups["macro_f1"] == "Class averages (macro)" and groups["mcc"] == "Whole confusion matrix"


def test_compare_out_folder_gives_the_same_page_with_letters_for_the_primary_only(stance, tmp_path):
    _, comp = stance
    write_comparison(comp, tmp_path / "cmp")
    tables, manifest, _ = read_tables(tmp_path / "cmp")
    from_disk = page_data(tables, manifest)
    live = page_data(tables_from_comparison(comp), comp.manifest())
    assert from_disk["letters_scope"] == "primary"
    assert "letters" in from_disk["raw"][comp.primary] and "letters" not in from_disk["raw"]["mcc"]
    for key in ("value", "rank", "lo", "hi", "letters", "rank_lo", "rank_hi", "p_best"):
        assert from_disk["raw"][comp.primary][key] == live["raw"][comp.primary][key], key
    assert from_disk["drill"]["confusion"] is None


def test_read_tables_refuses_a_folder_that_is_no_output(tmp_path):
    with pytest.raises(evalreport.errors.InputError, match="manifest.json"):
        read_tables(tmp_path)


# ----------------------------------------------------------------------------- the page


def test_participant_text_is_escaped_in_the_page(tmp_path):
    runs = synthetic_runs(4, names=[HOSTILE, "=cmd|' /C calc'!A0", "a & b", "RTL\u202eevil"])
    comp = evalreport.compare(runs, evalreport.Settings(bootstrap=50, progress=False))
    data = page_data(tables_from_comparison(comp, Counts.from_runs(runs)), comp.manifest(), title=HOSTILE)
    html = page_html(data, bundle=None)
    assert HOSTILE not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html            # the title
    assert html.count("<script") == html.count("</script>")
    for block in re.findall(r'<script type="application/json"[^>]*>(.*?)</script>', html, re.DOTALL):
        json.loads(block)                                              # each data block is whole JSON
    assert "RTL\ufffdevil" in data["systems"]                          # a bidi override cannot reorder the page
    csv = page_csv(data)
    assert "\n'=cmd|" in csv                                           # the spreadsheet formula guard


def test_the_page_names_no_remote_resource_and_forbids_requests(stance):
    runs, comp = stance
    html = page_html(page_data(tables_from_comparison(comp, Counts.from_runs(runs)), comp.manifest()), bundle=None)
    assert "default-src 'none'" in CSP and CSP in html
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", html)
    assert chart_spec()["params"][0]["name"] == "q"


def test_fifty_systems_by_thirty_measures_fit_in_two_megabytes():
    from evalreport.report.render import vega_bundle

    runs, comp = thirty_measure_comparison(50, bootstrap=100)
    assert len(comp.measures) == 30
    data = page_data(tables_from_comparison(comp, Counts.from_runs(runs)), comp.manifest())
    size = len(page_html(data, bundle=vega_bundle()).encode("utf-8"))
    assert size < 2_000_000, size


def test_write_page_leaves_nothing_behind_on_a_missing_folder(stance, tmp_path):
    _, comp = stance
    data = page_data(tables_from_comparison(comp), comp.manifest())
    with pytest.raises(evalreport.errors.InputError, match="folder does not exist"):
        write_page(data, tmp_path / "nope" / "page.html")
    path = write_page(data, tmp_path / "page.html")
    assert path.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["page.html"]


# ----------------------------------------------------------------------------- the command


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", "from evalreport.cli import run; run()",
                           *args], capture_output=True, text=True, cwd=cwd, timeout=300)


def test_command_writes_the_page_and_reads_tables(tmp_path):
    out = tmp_path / "results.html"
    done = _cli("leaderboard", str(STANCE / "gold.tsv"), "--runs-dir", str(STANCE / "runs"), "--bootstrap", "100",
                "--no-chart", "-o", str(out), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    html = out.read_text(encoding="utf-8")
    data = json.loads(re.search(r'data-lb="data">(.*?)</script>', html, re.DOTALL).group(1))
    assert data["letters_scope"] == "every" and data["systems"] == ["bert", "lexicon", "majority", "svm"]
    assert [i["role"] for i in data["provenance"]["inputs"]][:1] == ["gold"]
    assert all(len(i["sha256"]) == 64 for i in data["provenance"]["inputs"])
    cmp_dir = tmp_path / "cmp"
    done = _cli("compare", str(STANCE / "gold.tsv"), "--runs-dir", str(STANCE / "runs"), "--bootstrap", "100",
                "--out", str(cmp_dir), "--quiet", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    page2 = tmp_path / "from_tables.html"
    done = _cli("leaderboard", "--from-tables", str(cmp_dir), "--no-chart", "-o", str(page2), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "letters_scope\":\"primary" in page2.read_text(encoding="utf-8")


def test_command_bad_input_one_line_status_2_no_page(tmp_path):
    bad = tmp_path / "gold.tsv"
    bad.write_text("id\tlabel\n1\tA\n1\tB\n", encoding="utf-8")
    out = tmp_path / "results.html"
    done = _cli("leaderboard", str(bad), str(STANCE / "runs" / "svm.tsv"), "-o", str(out), cwd=tmp_path)
    assert done.returncode == 2
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "gold.tsv" in lines[0]
    assert not out.exists()
    done = _cli("leaderboard", "--from-tables", str(tmp_path), "-o", str(tmp_path / "x.txt"), cwd=tmp_path)
    assert done.returncode == 2 and ".html" in done.stderr


# ----------------------------------------------------------------------------- the report's leaderboard section


def _report_tables(comp, runs, folder: Path) -> Path:
    """A report-like tables folder: the comparison's tables plus those the report's build adds for the page."""
    from evalreport.report.write import write_frames

    write_comparison(comp, folder)
    extra = tables_from_comparison(comp, Counts.from_runs(runs))
    write_frames(folder, {k: extra[k] for k in ("measure_letters", "per_class", "confusion")})
    return folder


def test_report_section_html_is_the_component_and_the_pdf_keeps_the_static_table(stance, tmp_path):
    from evalreport.report.display import Table
    from evalreport.report.leaderboard_page import InteractiveTable, report_component

    runs, comp = stance
    folder = _report_tables(comp, runs, tmp_path / "tables")
    component = report_component(folder)
    assert component is not None and 'id="lb-report"' in component and "<footer" not in component
    frame = comp.leaderboard[["rank", "system", "value"]]
    plain, interactive = Table(frame, caption="c"), InteractiveTable(frame, caption="c", component=component)
    a, b = plain._repr_mimebundle_(), interactive._repr_mimebundle_()
    assert b["text/html"].startswith(component) and plain._html() in b["text/html"]
    assert {k: v for k, v in a.items() if k != "text/html"} == {k: v for k, v in b.items() if k != "text/html"}
    (tmp_path / "empty").mkdir()
    assert report_component(tmp_path / "empty") is None     # no tables: the static table stands alone


# ----------------------------------------------------------------------------- a benchmark of several tasks


@pytest.fixture(scope="module")
def bench_folder(tmp_path_factory):
    from evalreport.analyses.benchmark import compare_benchmark
    from evalreport.examples import shared_benchmark_data, write_benchmark
    from evalreport.inputs.benchmark import read_benchmark

    tmp = tmp_path_factory.mktemp("bench")
    write_benchmark(shared_benchmark_data(n_systems=4, n_tasks=2, n_items=300), tmp / "in")
    result = compare_benchmark(read_benchmark(tmp / "in"), bootstrap=60, seed=0)
    write_comparison(result, tmp / "out")
    return tmp / "out", result


def test_benchmark_page_has_the_consensus_view_and_one_view_per_task(bench_folder):
    from evalreport.report.leaderboard_benchmark import benchmark_folder, benchmark_page_html

    folder, result = bench_folder
    assert benchmark_folder(folder) == folder and benchmark_folder(folder / "tasks") is None
    html = benchmark_page_html(folder, title=HOSTILE)
    assert HOSTILE not in html
    assert html.count('class="lb-root"') == len(result.tasks)
    assert html.count("<style>") == 1 and html.count("function init(root)") == 1      # assets once
    views = re.findall(r'data-lb-view="([^"]+)"', html)
    assert views == ["consensus"] + [f"task-{k}" for k in range(1, len(result.tasks) + 1)]
    cons = result.consensus[result.consensus["method"] == "mean_rank"].sort_values(["rank", "system"])
    body = html.split('data-lb-view="consensus"')[1].split("</table>")[0]
    shown = re.findall(r'<th scope="row" class="lb-name">([^<]+)</th>', body)
    assert shown == list(cons["system"])


def test_many_classes_leave_the_confusion_matrices_out_and_say_so():
    from evalreport.report.leaderboard_data import MAX_CONFUSION_CLASSES

    runs = synthetic_runs(2, n_items=2000, n_classes=MAX_CONFUSION_CLASSES + 5)
    comp = evalreport.compare(runs, evalreport.Settings(bootstrap=0, progress=False))
    data = page_data(tables_from_comparison(comp, Counts.from_runs(runs)), comp.manifest())
    assert data["drill"]["confusion"] is None and "45 classes" in data["drill"]["confusion_note"]
    # the per-class scores of the 20 most and 20 least frequent classes; the other 5 are named as left out
    assert len(data["drill"]["per_class"][0][0]) == len(data["drill"]["shown"]) == 40
    assert "the other 5 are in per_class.csv" in data["drill"]["hidden_note"]
