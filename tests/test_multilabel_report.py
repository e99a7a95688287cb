"""The rendered multi-label report: ``evalreport report`` on label
sets and ``evalreport demo --multilabel`` write report.html, report.pdf, every table and the executed
notebooks; names from the data are shown as written in HTML and PDF; the frames behind the overview
charts count what they claim; a part whose table is absent is left out."""
from __future__ import annotations

import io
import json
import shutil
import subprocess
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from evalreport.analyses.multilabel import ML_TABLES
from evalreport.cli import main
from evalreport.examples import write_multilabel
from evalreport.inputs.multilabel import read_multilabel
from evalreport.inputs.readers import hash_file
from evalreport.report.multilabel_build import label_frequency_frame, set_size_frame

HOSTILE_SYSTEM = '<b>&#$*_"sys'
HOSTILE_LABEL = '<i>&#$*_"lab'
LABELS = (HOSTILE_LABEL, "joy", "trust", "fear")
SYSTEMS = (HOSTILE_SYSTEM, "fair", "weak")
N = 200
#: Headings of the parts every multi-label report has (the optional parts: OPTIONAL).
HEADINGS = ("Findings", "Overview", "Leaderboard", "Every measure", "Agreement between measures", "Per label",
            "Label errors", "Pairwise tests", "Chance baselines", "Appendix: definitions and provenance")
OPTIONAL = {"calibration_summary": "Prevalence calibration per label", "audit": "Audit of the example-based measures"}
EXTRA_TABLES = ("label_frequency", "set_sizes", "measures", "inputs")


def _data():
    rng = np.random.default_rng(13)
    gold = rng.random((N, len(LABELS))) < np.array([0.5, 0.35, 0.2, 0.08])
    runs = {name: np.where(rng.random(gold.shape) < keep, gold, ~gold)
            for name, keep in zip(SYSTEMS, (0.9, 0.8, 0.65))}
    return gold, runs


def cli(*argv) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        rc = main([str(a) for a in argv])
    return rc, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """One small report (3 systems x 4 labels x 200 items, 200 resamples), HTML and PDF, with a
    system and a label named with characters that mean something in HTML, Markdown and Typst."""
    tmp = tmp_path_factory.mktemp("mlreport")
    gold, runs = _data()
    paths = write_multilabel(gold, runs, LABELS, np.array([f"i{k}" for k in range(N)], dtype=object),
                             tmp / "data", layout="list")
    rc, out, err = cli("report", paths["gold"], "--runs-dir", paths["runs_dir"], "-o", tmp / "rep",
                       "--bootstrap", "200", "--quiet")
    assert rc == 0, err
    return {"dir": tmp / "rep", "paths": paths, "stdout": out, "html": (tmp / "rep" / "report.html").read_text()}


def test_report_writes_html_pdf_tables_and_notebooks(built):
    d = built["dir"]
    assert (d / "report.pdf").read_bytes()[:5] == b"%PDF-"
    for nb in ("multilabel", "appendix"):
        cells = json.loads((d / "notebooks" / f"{nb}.ipynb").read_text())["cells"]
        errors = [o for c in cells for o in c.get("outputs", []) if o.get("output_type") == "error"]
        assert not errors
    assert f"html: {d / 'report.html'}" in built["stdout"]


def test_every_section_heading_and_the_label_heatmap(built):
    html = built["html"]
    for heading in HEADINGS:
        assert _heading(heading) in html, heading
    for table, heading in OPTIONAL.items():      # a part is there exactly when its table is
        assert (_heading(heading) in html) == (built["dir"] / "tables" / f"{table}.csv").exists(), heading
    for chart in ("per-label-f1", "label-errors", "label-frequency", "set-sizes", "leaderboard", "pvalues"):
        assert f'id="chart-{chart}"' in html, chart


def _heading(text: str) -> str:
    """How the page writes a level-2 heading (its id is the text with '-' for spaces)."""
    return f'<h2 id="{text.replace(" ", "-")}">{text}<'


def test_tables_folder_holds_every_table_and_the_provenance(built):
    tables = built["dir"] / "tables"
    for name in (*ML_TABLES, *EXTRA_TABLES):
        assert (tables / f"{name}.csv").is_file() and (tables / f"{name}.json").is_file(), name
    meta = json.loads((tables / "report.json").read_text())
    assert meta["task"] == "multilabel" and meta["seed"] == 0 and meta["bootstrap"] == 200
    hashes = {Path(s["path"]).name: s["sha256"] for s in meta["provenance"]["inputs"]}
    for path in [built["paths"]["gold"], *built["paths"]["runs"].values()]:
        assert hashes[path.name] == hash_file(path)
    assert set(meta["provenance"]["versions"]) >= {"evalreport", "numpy", "pandas"}
    assert json.loads((tables / "timings.json").read_text())


def test_the_report_tables_are_those_of_compare(built, tmp_path):
    """The report writes the comparison's tables as `compare --out` does, byte for byte (same options)."""
    rc, _, err = cli("compare", built["paths"]["gold"], "--runs-dir", built["paths"]["runs_dir"], "--bootstrap", "200",
                     "--out", tmp_path / "cmp", "--format", "csv")
    assert rc == 0, err
    files = sorted(p.name for p in (tmp_path / "cmp").iterdir() if not p.name.startswith("."))
    assert "leaderboard.csv" in files and "manifest.json" in files
    for name in files:
        if name == "manifest.json":     # compare --out records its own command and time (the report: report.json)
            ours = json.loads((tmp_path / "cmp" / name).read_text(encoding="utf-8"))
            assert ours.pop("provenance")["inputs"]
            assert ours == json.loads((built["dir"] / "tables" / name).read_text(encoding="utf-8"))
            continue
        assert (tmp_path / "cmp" / name).read_bytes() == (built["dir"] / "tables" / name).read_bytes(), name


def test_hostile_names_are_escaped_in_the_html(built):
    html = built["html"]
    for raw in (HOSTILE_SYSTEM, HOSTILE_LABEL):
        assert raw not in html                  # never raw: not as markup, not inside a script
        shown = raw.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        # in table cells; '"' is harmless in text content (the page's serialiser writes it bare)
        assert shown in html or shown.replace('"', "&quot;") in html
    # the findings (Markdown made into HTML) name the leader as written: no <em> from its * and _
    findings = html.split('class="er-note er-note-note"', 1)[1].split("</div>", 1)[0]
    assert '&lt;b&gt;&amp;#$*_"sys' in findings and "<em>" not in findings and "<strong>&lt;b" in findings


def test_hostile_names_are_literal_in_the_pdf_text(built):
    if shutil.which("pdftotext") is None:
        pytest.skip("pdftotext (poppler-utils) is not installed")
    text = subprocess.run(["pdftotext", "-layout", str(built["dir"] / "report.pdf"), "-"], capture_output=True,
                          text=True, check=True).stdout
    assert HOSTILE_SYSTEM in text and HOSTILE_LABEL in text


def test_a_part_whose_table_is_absent_is_left_out(built, tmp_path):
    from evalreport.report.sections.multilabel import open_multilabel_report

    tables = shutil.copytree(built["dir"] / "tables", tmp_path / "tables")
    for name in ("pairwise", "calibration", "calibration_summary", "audit"):
        for ext in ("csv", "json"):
            (tables / f"{name}.{ext}").unlink(missing_ok=True)
    rep = open_multilabel_report(tables)
    assert rep.part_heading("calibration") is None and rep.part_heading("audit") is None
    assert rep.pairwise_table() is None and rep.tests_chart("mcnemar") is None and rep.calibration_chart() is None
    assert rep.ml_audit_table() is None


def test_the_families_sentence_accounts_for_every_measure():
    """Every measure's winner is in the families sentence of the findings, counted within its family
    (a review found the demo's 'crown a (2 of 6); b (2 of 6); c (1 of 6)', one example-based measure
    unaccounted for)."""
    from evalreport.report.summary import findings_note

    example = ["ex_f1", "ex_p", "ex_r", "ex_j", "subset", "hamming"]

    def details(wins):
        rows = [{"finding": "leader", "system": "a", "measure": "ex_f1", "value": 0.9, "detail": "sole"}]
        rows += [{"finding": "winner", "system": w, "measure": m, "value": 0.5, "detail": "example-based"}
                 for m, ws in wins.items() for w in ws]
        return findings_note(pd.DataFrame(rows), primary="ex_f1").details.replace("\\", "")

    wins = dict(zip(example, [("a",), ("a",), ("b",), ("b",), ("c",), ("d",)]))
    assert ("**The families of measures:** the example-based measures crown **a** (2 of 6), **b** (2 of 6), "
            "**c** (1 of 6) and **d** (1 of 6).") in details(wins)
    wins.update(hamming=("d", "e"), subset=("f",), ex_r=("g",))
    assert "**d** and **e** tied (1 of 6)" in details(wins)
    assert ("**Every family of measures puts the same system first:** the example-based measures crown **a** "
            "(6 of 6).") in details({m: ("a",) for m in example})


def test_a_label_found_only_in_predictions_comes_last_and_marked(tmp_path):
    from evalreport.inputs.multilabel import MultiLabelRuns
    from evalreport.report.multilabel_build import analyse_multilabel
    from evalreport.report.sections.multilabel import open_multilabel_report

    gold, runs = _data()
    pred = np.stack(list(runs.values()))
    invented = np.zeros((len(SYSTEMS), N, 1), dtype=bool)
    invented[0, :5] = True                                  # the first system invents a label on 5 items
    r = MultiLabelRuns(gold=np.c_[gold, np.zeros((N, 1), dtype=bool)], pred=np.concatenate([pred, invented], -1),
                       labels=(*LABELS, "zzz"), systems=SYSTEMS, ids=np.array([f"i{k}" for k in range(N)]),
                       n_task=len(LABELS))
    analyse_multilabel(r, tmp_path / "tables", bootstrap=0, audit=False)
    rep = open_multilabel_report(tmp_path / "tables")
    assert rep.extra_labels == ["zzz"] and rep.label_order[-1] == "zzz"
    assert sorted(rep.label_order) == sorted([*LABELS, "zzz"])          # each label once
    assert rep.per_label_table().df.index.tolist() == rep.label_order
    rows = rep.per_label_chart().spec["datasets"]
    names = {row["name"] for data in rows.values() for row in data if "name" in row}
    assert "zzz *" in names and "zzz" not in names
    assert "1 label(s) found only in predictions" in rep.ml_overview().text


def test_overview_frames_count_what_they_claim():
    gold, runs = _data()
    from tests.conftest import multilabel_runs

    r = multilabel_runs(gold, np.stack(list(runs.values())), LABELS, SYSTEMS)
    freq = label_frequency_frame(r)
    own = freq[freq["source"] == HOSTILE_SYSTEM].set_index("label")
    assert own.loc[list(LABELS), "count"].tolist() == runs[HOSTILE_SYSTEM].sum(axis=0).tolist()
    assert freq[freq["role"] == "gold"]["count"].tolist() == gold.sum(axis=0).tolist()
    assert np.allclose(freq["share"], freq["count"] / N)
    sizes = set_size_frame(r)
    for source, matrix in [("gold", gold), *runs.items()]:
        rows = sizes[sizes["source"] == source]
        assert rows["size"].tolist() == list(range(len(LABELS) + 1)) or rows["size"].max() == sizes["size"].max()
        assert rows["items"].sum() == N and np.isclose(rows["share"].sum(), 1.0)
        want = np.bincount(matrix.sum(axis=1), minlength=len(rows))
        assert rows["items"].tolist() == want.tolist()


def test_charts_validate_and_refuse_empty_frames():
    from evalreport.charts import multilabel as ml

    gold, runs = _data()
    from tests.conftest import multilabel_runs

    many = {f"s{k}": runs["fair"] for k in range(12)}          # beyond the coloured systems: one colour
    r = multilabel_runs(gold, np.stack(list(many.values())), LABELS, list(many))
    freq = label_frequency_frame(r)
    spec = ml.label_frequency(freq).to_dict()
    ticks = [layer for layer in spec["layer"] if layer["mark"]["type"] == "tick"][0]
    assert "value" in ticks["encoding"]["color"]
    ml.set_size_heatmap(set_size_frame(r)).to_dict()
    per = pd.DataFrame({"system": np.repeat(list(many), 4), "label": np.tile(LABELS, 12),
                        "f1": np.r_[np.nan, np.linspace(0, 1, 47)], "support": 10, "added": 3, "dropped": 5})
    ml.label_heatmap(per, value="f1", marked=["fear"]).to_dict()
    ml.label_error_heatmap(per).to_dict()
    with pytest.raises(ValueError, match="no rows"):
        ml.label_heatmap(per.iloc[:0], value="f1")
    with pytest.raises(ValueError, match="missing column"):
        ml.label_error_heatmap(per.drop(columns="added"))


@pytest.mark.slow
def test_demo_multilabel_builds(tmp_path):
    """The demo of the README (fewer resamples and HTML only, to keep the test short)."""
    out = tmp_path / "demo"
    rc, stdout, err = cli("demo", "--multilabel", "-o", out, "--bootstrap", "20", "--formats", "html", "--quiet")
    assert rc == 0, err
    meta = json.loads((out / "tables" / "report.json").read_text())
    assert (meta["n_systems"], meta["n_labels"], meta["n_items"]) == (10, 20, 5000)
    assert (out / "data" / "gold.jsonl").is_file() and len(list((out / "data" / "runs").iterdir())) == 10
    recorded = {Path(s["path"]).parent for s in meta["provenance"]["inputs"]}
    assert recorded <= {out / "data", out / "data" / "runs"}
    assert 'id="chart-per-label-f1"' in (out / "report.html").read_text()
    runs = read_multilabel(out / "data" / "gold.jsonl", runs_dir=out / "data" / "runs")
    assert len(runs.systems) == 10


def test_every_chart_of_the_report_validates(built):
    """The report's kernel does not validate charts (it saves time); every chart cell is checked here."""
    from evalreport.report.sections.multilabel import open_multilabel_report
    from tests.test_chart_validation import assert_every_chart_validates

    rep = open_multilabel_report(built["dir"] / "tables")
    assert assert_every_chart_validates(rep, "multilabel") >= 4


def test_pairwise_table_of_label_sets_names_the_tests_in_words(built, tmp_path):
    """The pairwise table of label sets heads its columns with the tests' words (McNemar on exact
    match, approximate randomisation), prints tiny p-values as "<0.001", and with many systems
    shows the leader against every other system beside each system and the next one."""
    from evalreport.report.sections.multilabel import open_multilabel_report

    rep = open_multilabel_report(built["dir"] / "tables")
    table = rep.pairwise_table()
    assert [c for c in table.df.columns if c.startswith("p (")] == [
        "p (paired bootstrap, Holm)", "p (McNemar (exact match), Holm)", "p (approximate randomisation, Holm)"]
    assert "randomization" not in table.caption
    assert "(systems in leaderboard order)" in rep.pvalue_chart().caption
    # ten systems: 45 pairs, of which the leader's 9 and the 8 further neighbours are shown
    tables = shutil.copytree(built["dir"] / "tables", tmp_path / "tables")
    names = [f"s{i}" for i in range(10)]
    a, b = np.triu_indices(10, 1)
    rows = [pd.DataFrame({"system_a": np.array(names)[a], "system_b": np.array(names)[b], "measure": m, "test": t,
                          "statistic": 0.1, "difference": 0.1, "p_value": 1e-5, "p_holm": 1e-4, "p_bh": 1e-4,
                          "n_resamples": 200, "detail": ""})
            for m, t in ((rep.primary, "bootstrap"), ("subset_accuracy", "mcnemar"))]
    pd.concat(rows).to_csv(tables / "pairwise.csv", index=False)
    (tables / "pairwise.json").unlink(missing_ok=True)
    many = open_multilabel_report(tables)
    many.board_order = names
    shown = many.pairwise_table()
    pairs = list(zip(shown.df["system A"], shown.df["system B"]))
    assert pairs == [("s0", s) for s in names[1:]] + list(zip(names[1:-1], names[2:]))
    assert "The leader against every other system" in shown.caption
    assert "<0.001" in shown._repr_mimebundle_()["text/markdown"]
