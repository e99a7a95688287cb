"""What a paper's author, a reviewer and a shared-task participant tripped on, from the README and ``--help`` only."""
import json

import numpy as np
import pytest

from evalreport.cli import main

CLASSES = ("pos", "neg", "neu")


def _scored_task(root, *, seeds: int, clusters: bool, n_items: int = 90, seed: int = 0):
    """gold.tsv (with a ``doc`` column) and runs with ``score_<class>`` columns: a folder per system when
    ``seeds`` > 1, one file per system otherwise."""
    rng = np.random.default_rng(seed)
    gold = rng.integers(0, len(CLASSES), n_items)
    root.mkdir(parents=True, exist_ok=True)
    lines = ["id\tlabel\tdoc"] + [f"i{i}\t{CLASSES[g]}\td{i // 6}" for i, g in enumerate(gold)]
    (root / "gold.tsv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    for s, system in enumerate(("bert", "svm", "rule")):
        for k in range(seeds):
            logits = rng.normal(size=(n_items, len(CLASSES))) + (1.5 - 0.5 * s) * np.eye(len(CLASSES))[gold]
            p = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
            rows = ["id\tlabel\t" + "\t".join(f"score_{c}" for c in CLASSES)]
            rows += [f"i{i}\t{CLASSES[int(np.argmax(p[i]))]}\t" + "\t".join(repr(float(v)) for v in p[i])
                     for i in range(n_items)]
            path = root / "runs" / system / f"seed{k + 1}.tsv" if seeds > 1 else root / "runs" / f"{system}.tsv"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return root / "gold.tsv", root / "runs"


@pytest.mark.parametrize("seeds, clusters", [(3, False), (1, True)])
def test_appendix_of_scored_runs_by_seed_or_cluster_resamples_the_score_measures_in_that_design(tmp_path, seeds,
                                                                                                clusters):
    # the author asked for no measure: the default set holds the score-based measures, resampled as the design
    # says (whole clusters, or runs then items), and the notes say so
    gold, runs = _scored_task(tmp_path / "in", seeds=seeds, clusters=clusters)
    out = tmp_path / "app"
    args = ["appendix", str(gold), "--runs-dir", str(runs), "--bootstrap", "40", "-o", str(out), "--quiet"]
    rc = main(args + (["--cluster-col", "doc"] if clusters else []))
    assert rc == 0
    manifest = json.loads((out / "data" / "manifest.json").read_text(encoding="utf-8"))
    assert {"roc_auc", "brier", "log_loss", "ece"} <= set(manifest["measures"])
    assert not any(n.startswith("score-based measures left out") for n in manifest["notes"])
    how = "the same cluster bootstrap" if clusters else "the same two-level bootstrap"
    assert any(n.startswith("score-based measures (") and how in n for n in manifest["notes"])


def test_typst_example_compiles_without_tags_where_typst_tagging_fails(tmp_path):
    # six systems, one name that wraps in the header of the every-measure table: Typst 0.15's tagged-PDF
    # export stops with "internal error: parent group" on this layout (typst issue 8487); the example names
    # the way out, and that way compiles
    typst = pytest.importorskip("typst")
    rng = np.random.default_rng(3)
    root = tmp_path / "in"
    (root / "runs").mkdir(parents=True)
    gold = rng.integers(0, 4, 200)
    classes = "ABCD"

    def write(path, labels):
        path.write_text("id\tlabel\n" + "".join(f"i{i}\t{classes[k]}\n" for i, k in enumerate(labels)),
                        encoding="utf-8")

    write(root / "gold.tsv", gold)
    for k, name in enumerate(["sys0", "sys1", "sys2", "sys3", "sys4", "bert large cased v2"]):
        write(root / "runs" / f"{name}.tsv", np.where(rng.random(200) < 0.5 + 0.07 * k, gold, rng.integers(0, 4, 200)))
    out = tmp_path / "app"
    assert main(["appendix", str(root / "gold.tsv"), "--runs-dir", str(root / "runs"), "--bootstrap", "100",
                 "-o", str(out), "--quiet"]) == 0
    example = (out / "main-example.typ").read_text(encoding="utf-8")
    assert "typst compile --no-pdf-tags main-example.typ" in example
    typst.compile(str(out / "main-example.typ"), output=str(out / "paper.pdf"), root=str(out), pdf_tags=False)
    assert (out / "paper.pdf").read_bytes().startswith(b"%PDF")


def test_what_if_caption_with_several_runs_says_observed_is_the_mean_confusion_matrix(tmp_path):
    # the what-if table's "observed" column (of the mean counts) and the leaderboard (mean of the runs' values)
    # differ in the third decimal: the caption says why, so a reviewer does not read it as an error
    from evalreport.report.sections import open_report

    gold, runs = _scored_task(tmp_path / "in", seeds=3, clusters=False)
    out = tmp_path / "app"
    assert main(["appendix", str(gold), "--runs-dir", str(runs), "--bootstrap", "40", "-o", str(out), "--quiet"]) == 0
    report = open_report(out / "data")
    table = report.what_if_table()
    board = report.table("leaderboard").set_index("system")["value"]
    observed = table.df["observed"]
    assert not np.allclose(observed[board.index], board, rtol=0, atol=1e-9)     # the two values differ
    assert "averaged over its runs" in table.caption


def test_findings_count_one_undefined_case_in_the_singular(tmp_path):
    # the stance example's majority baseline has one undefined value (MCC, 0/0)
    from pathlib import Path

    from evalreport.report.sections import open_report

    root = Path(__file__).resolve().parents[1] / "examples" / "stance"
    out = tmp_path / "rep"
    assert main(["appendix", str(root / "gold.tsv"), "--runs-dir", str(root / "runs"), "--task-file",
                 str(root / "task.toml"), "--bootstrap", "40", "-o", str(out), "--quiet"]) == 0
    text = open_report(out / "data").findings().text
    assert "**Undefined values:** 1 (measure, system) case, listed below." in text


def _findings(tmp_path, preds: dict, gold) -> str:
    """The findings' headline of an appendix run on ``gold`` and the systems' predicted labels."""
    from evalreport.report.sections import open_report

    root = tmp_path / "in"
    (root / "runs").mkdir(parents=True)

    def write(path, labels):
        path.write_text("id\tlabel\n" + "".join(f"i{i}\t{'abc'[k]}\n" for i, k in enumerate(labels)),
                        encoding="utf-8")

    write(root / "gold.tsv", gold)
    for name, labels in preds.items():
        write(root / "runs" / f"{name}.tsv", labels)
    out = tmp_path / "app"
    assert main(["appendix", str(root / "gold.tsv"), "--runs-dir", str(root / "runs"), "--bootstrap", "100",
                 "-o", str(out), "--quiet"]) == 0
    return open_report(out / "data").findings().text


def test_findings_when_every_system_shares_first_place_name_no_empty_list(tmp_path):
    # two constant predictors tie under macro F1: no other system is left to separate from the leaders
    gold = np.random.default_rng(1).integers(0, 3, 120)
    text = _findings(tmp_path, {"c1": np.zeros(120, int), "c2": np.ones(120, int)}, gold)
    line = next(t for t in text.splitlines() if "Separated from" in t)
    assert "not ." not in line and "other 0" not in line
    assert "no other system (every system shares first place)" in line
    assert "over the one pair" in line.replace("\\", "") and "all 1 pairs" not in line


def test_findings_when_two_perfect_systems_lead_say_every_other_system_is_separated(tmp_path):
    rng = np.random.default_rng(1)
    gold = rng.integers(0, 3, 120)
    text = _findings(tmp_path, {"p1": gold, "p2": gold, "other": np.where(rng.random(120) < 0.6, gold, 0)}, gold)
    line = next(t for t in text.splitlines() if "Separated from" in t)
    assert "**Separated from the leaders:** every other system." in line


def _rows(gap_detail: str):
    """Findings of two systems under two measures: each measure's lead is a near-tie in the family of every
    measure's winner test; under the primary measure the leaderboard's family says ``gap_detail``."""
    import pandas as pd

    rows = [("leader", "A", "macro_f1", 0.8, ""), ("winner", "A", "macro_f1", 0.8, ""),
            ("winner", "A", "accuracy", 0.81, ""),
            ("winner_margin", "B", "macro_f1", 0.05, "lead"), ("winner_noise", "B", "macro_f1", 0.09, "within noise"),
            ("winner_margin", "B", "accuracy", 0.04, "lead"), ("winner_noise", "B", "accuracy", 0.09, "within noise"),
            ("runner_up", "B", "macro_f1", 0.05, ""), ("gap_noise", "B", "macro_f1", 0.01, gap_detail)]
    return pd.DataFrame(rows, columns=["finding", "system", "measure", "value", "detail"])


def test_near_tie_of_the_primary_measure_says_why_the_leaderboard_separates_the_same_pair():
    # the leaderboard's family (all pairs under the primary measure, p 0.01) separates A and B, the family of
    # every measure's winner test (p 0.09 after Holm) does not: the findings say why both verdicts stand
    from evalreport.report.summary import findings_note

    note = findings_note(_rows("beyond noise"), primary="macro_f1")
    words = note.text + (note.details or "")
    assert "within the bootstrap noise" in words
    assert "the leaderboard's tests (all pairs under that measure) do separate the first two" in words
    quiet = findings_note(_rows("below noise"), primary="macro_f1")
    assert "do separate the first two" not in quiet.text + (quiet.details or "")


def test_plan_with_several_runs_per_system_does_not_pick_two_seeds_of_one_system(tmp_path, capsys):
    # the best two runs were two seeds of the best system: planned as if they were two systems
    gold, runs = _scored_task(tmp_path / "in", seeds=3, clusters=False)
    rc = main(["plan", str(gold), "--runs-dir", str(runs), "--measure", "macro_f1", "--difference", "0.05",
               "--resamples", "50", "--no-progress"])
    assert rc == 2
    err = capsys.readouterr().err
    assert "--systems bert/seed1 rule/seed1" in err         # one run of each of two systems, as an example
    rc = main(["plan", str(gold), "--runs-dir", str(runs), "--measure", "macro_f1", "--difference", "0.05",
               "--resamples", "50", "--no-progress", "--systems", "bert/seed1", "svm/seed1", "--format", "csv"])
    assert rc == 0
    assert "bert/seed1" in capsys.readouterr().out


def test_compare_with_several_runs_per_system_says_the_intervals_resample_runs_then_items(tmp_path):
    gold, runs = _scored_task(tmp_path / "in", seeds=3, clusters=False)
    out = tmp_path / "cmp"
    assert main(["compare", str(gold), "--runs-dir", str(runs), "--bootstrap", "40", "--measures", "accuracy",
                 "--out", str(out), "--quiet"]) == 0
    notes = json.loads((out / "manifest.json").read_text(encoding="utf-8"))["notes"]
    assert any(n.startswith("intervals: 40 paired bootstrap resamples over runs, then items") for n in notes)
    assert not any("resamples over items" in n for n in notes)


def test_latex_prints_greek_letters_and_the_minus_sign_under_pdflatex():
    # the methods paragraph's "p = 2Φ(−|z|)" printed as "2[U+03A6]([U+2212]|z|)" under pdfLaTeX; maths
    # commands print the same under every engine
    from evalreport import escape

    assert escape.latex_portable("p = 2Φ(−|z|)") == r"p = 2\ensuremath{\Phi}(\ensuremath{-}\textbar{}z\textbar{})"
    assert escape.latex_portable("β-VAE") == r"\ensuremath{\beta}-{}VAE"
    assert escape.latex_portable("λ ω ξ Σ") == r"\ensuremath{\lambda} \ensuremath{\omega} \ensuremath{\xi} \ensuremath{\Sigma}"
    assert escape.latex_portable("日") == r"\evalreportchar{65E5}{日}"             # no maths glyph: the macro
    assert escape.latex_portable("\\alpha β") == r"\textbackslash{}alpha \ensuremath{\beta}"   # data stays inert


def test_appendix_methods_in_latex_have_no_code_point_placeholders(tmp_path):
    from pathlib import Path

    root = Path(__file__).resolve().parents[1] / "examples" / "stance"
    out = tmp_path / "app"
    assert main(["appendix", str(root / "gold.tsv"), "--runs-dir", str(root / "runs"), "--bootstrap", "40",
                 "-o", str(out), "--quiet"]) == 0
    methods = (out / "methods.tex").read_text(encoding="utf-8")
    assert r"2\ensuremath{\Phi}(\ensuremath{-}" in methods
    assert "evalreportchar" not in methods


def test_leaderboard_page_with_several_runs_per_system_names_the_two_level_bootstrap(tmp_path):
    from evalreport.report.leaderboard_data import TWO_LEVEL_TEST, page_data, read_tables

    gold, runs = _scored_task(tmp_path / "in", seeds=3, clusters=False)
    out = tmp_path / "app"
    assert main(["appendix", str(gold), "--runs-dir", str(runs), "--bootstrap", "40", "--measures", "accuracy",
                 "-o", str(out), "--quiet"]) == 0
    tables, manifest, provenance = read_tables(out / "data")       # the tables `leaderboard --from-tables` reads
    data = page_data(tables, manifest, provenance=provenance)
    assert data["raw"]["macro_f1"]["test"] == TWO_LEVEL_TEST
    assert data["settings"]["pairwise_test"] == TWO_LEVEL_TEST


def test_json_lines_nested_thousands_deep_are_one_error_line_not_a_crash(tmp_path):
    # pyarrow's JSON reader ended the scorer with a segmentation fault on this submission (exit -11, no
    # message); in a subprocess, so that a crash fails this test instead of ending the test run
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[1] / "examples" / "codabench" / "input"
    inp = tmp_path / "input"
    (inp / "ref").mkdir(parents=True)
    (inp / "res").mkdir()
    (inp / "ref" / "gold.tsv").write_bytes((root / "ref" / "gold.tsv").read_bytes())
    depth = 30_000
    (inp / "res" / "predictions.jsonl").write_text('{"id": "t0001", "label": ' + "[" * depth + "]" * depth + "}\n",
                                                   encoding="utf-8")
    proc = subprocess.run([sys.executable, "-m", "evalreport", "codabench", str(inp), str(tmp_path / "out"),
                           "--bootstrap", "20"], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 2, proc.stderr[-500:]
    assert proc.stderr.count("\n") == 1 and "line 1: submission error: JSON nested too deeply" in proc.stderr
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("chunk", [3, 7, 1 << 24])
def test_max_line_depth_counts_within_each_line_across_chunks(tmp_path, chunk):
    from evalreport.inputs.json_depth import max_line_depth

    path = tmp_path / "x.jsonl"
    path.write_bytes(b'{"a": [1, [2]]}\n{"b": "]]]"}\n' + b"[" * 40 + b"]" * 40 + b"\n{}\n")
    assert max_line_depth(path, chunk=chunk) == 40
    path.write_bytes(b'{"a": "[[["}\n' * 50)                  # unclosed brackets in strings: each line from 0
    assert max_line_depth(path, chunk=chunk) == 4
    path.write_bytes(b"")
    assert max_line_depth(path, chunk=chunk) == 0


def test_a_workbook_that_expands_a_thousandfold_is_refused_unread(tmp_path):
    # a 40 KB submission whose one cell holds 40 MB of text (300 MB took 2 GB of memory and 17 s to read)
    import zipfile

    openpyxl = pytest.importorskip("openpyxl")
    from evalreport.errors import InputError
    from evalreport.inputs.tables import read_table

    book = openpyxl.Workbook()
    book.active.append(["id", "label"])
    book.active.append(["t0001", "PLACEHOLDER"])
    book.save(tmp_path / "base.xlsx")
    bomb = tmp_path / "bomb.xlsx"
    with zipfile.ZipFile(tmp_path / "base.xlsx") as src, zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as out:
        for part in src.infolist():
            out.writestr(part, src.read(part.filename).replace(b"PLACEHOLDER", b"A" * 40_000_000),
                         compress_type=zipfile.ZIP_DEFLATED)
    assert bomb.stat().st_size < 100_000
    with pytest.raises(InputError, match="refused unread as a decompression bomb"):
        read_table(bomb, "run")


def test_compare_on_three_clusters_warns_that_the_cluster_bootstrap_is_rough(tmp_path):
    # --cluster-col label: three clusters; the bootstrap test separated every pair (p near 1e-5) where the
    # randomisation test over clusters cannot go below 0.25; the command line and manifest said nothing
    gold, runs = _scored_task(tmp_path / "in", seeds=1, clusters=True)
    out = tmp_path / "cmp"
    assert main(["compare", str(gold), "--runs-dir", str(runs), "--bootstrap", "60", "--measures", "accuracy",
                 "--cluster-col", "label", "--out", str(out), "--quiet"]) == 0
    notes = json.loads((out / "manifest.json").read_text(encoding="utf-8"))["notes"]
    assert any("warning: with only 3 clusters the cluster bootstrap is unreliable" in n for n in notes)
    out2 = tmp_path / "cmp2"
    assert main(["compare", str(gold), "--runs-dir", str(runs), "--bootstrap", "60", "--measures", "accuracy",
                 "--cluster-col", "doc", "--out", str(out2), "--quiet"]) == 0      # 15 clusters: still few
    notes = json.loads((out2 / "manifest.json").read_text(encoding="utf-8"))["notes"]
    assert any("with only 15 clusters" in n for n in notes)


def test_compare_with_a_handful_of_resamples_warns(tmp_path):
    # --bootstrap 1 gave the "95% interval" [0.8351, 0.8351] around a value of 0.8316, with no word
    gold, runs = _scored_task(tmp_path / "in", seeds=1, clusters=False)
    out = tmp_path / "cmp"
    assert main(["compare", str(gold), "--runs-dir", str(runs), "--bootstrap", "1", "--measures", "accuracy",
                 "--out", str(out), "--quiet"]) == 0
    notes = json.loads((out / "manifest.json").read_text(encoding="utf-8"))["notes"]
    assert "warning: only 1 bootstrap resample, too few for 95% intervals" in " ".join(notes)
    assert main(["compare", str(gold), "--runs-dir", str(runs), "--bootstrap", "100", "--measures", "accuracy",
                 "--out", str(out), "--quiet"]) == 0
    notes = json.loads((out / "manifest.json").read_text(encoding="utf-8"))["notes"]
    assert "too few" not in " ".join(notes)


@pytest.mark.parametrize("args, words", [
    (["--classes", "9", "--max-n", "3"], "9 classes with --max-n 3: the 81 cells of a matrix cannot be keyed"),
    (["--max-n", "100000", "--measures", "accuracy", "--properties", "MON", "--classes", "2"],
     "2 classes with --max-n 100000: 4,167,083,347,916,875,000 confusion matrices to enumerate"),
])
def test_audit_refuses_an_enumeration_it_cannot_hold(args, words, capsys):
    # nine classes ended in an AssertionError (keys overflowing int64); --max-n 100000 in the kernel's OOM kill
    assert main(["audit", *args]) == 2
    assert words in capsys.readouterr().err


def test_plan_refuses_a_difference_beyond_the_measures_range(tmp_path, capsys):
    # "2 items detect a difference of 5 macro_f1 with 80% power"
    gold, runs = _scored_task(tmp_path / "in", seeds=1, clusters=False)
    rc = main(["plan", str(gold), "--runs-dir", str(runs), "--measure", "macro_f1", "--difference", "5",
               "--resamples", "20", "--no-progress"])
    assert rc == 2
    assert "--difference 5 is larger than the whole range of macro_f1 (0 to 1)" in capsys.readouterr().err
