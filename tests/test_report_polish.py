"""What a reader sees in reports of awkward inputs: wide tables that keep intervals on one line, the
ROC chart's chance diagonal on top, a prevalence axis that stops at 100 %, a score-based primary first
in the every-measure table, the two-level bootstrap named with several runs per system, the gold-label
checks saying which measure they used (or why they were skipped), `evalreport score` with the systems'
means over their runs, and input notes that name a file without its folder."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from altair.utils.schemapi import validate_jsonschema
from altair.vegalite.v6.schema.core import load_schema
from scored_tables import score_frames, scored_runs

from evalreport.charts.curves import CHANCE_LINE, pr_chart, roc_chart
from evalreport.charts.points import prevalence_bar
from evalreport.cli import main
from evalreport.report.build import analyse, write_report_meta
from evalreport.report.display import Note, Table
from evalreport.report.sections import open_report

LABELS = ("pos", "neg", "other")
TWO_LEVEL = "two-level bootstrap (runs, then items)"


def _valid(chart) -> dict:
    spec = chart.to_dict(validate=True)
    validate_jsonschema(spec, load_schema())
    return spec


def _write(path: Path, ids, labels, **columns) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    pd.DataFrame({"id": ids, "label": labels, **columns}).to_csv(path, sep="\t", index=False)
    return path


# ----------------------------------------------------------------------------- charts


@pytest.mark.parametrize("labels", [["neg", "pos"], ["a", "b", "c"]])
def test_the_roc_chance_diagonal_is_drawn_last_and_dashed(labels):
    """A system without skill runs along the diagonal: the dashed chance line goes on top of it."""
    runs, probs = scored_runs(4, 200, ["good", "prior"], labels)
    probs[1] = np.mean(np.eye(len(labels))[runs.gold], axis=0)       # the prior: the same scores for every item
    frames = score_frames(runs, probs)
    prevalence = {c: float(np.mean(runs.gold == k)) for k, c in enumerate(runs.labels)}
    for chart in (roc_chart(frames["roc_curve"]), pr_chart(frames["pr_curve"], prevalence=prevalence)):
        spec = _valid(chart)
        layers = spec["layer"] if "layer" in spec else spec["spec"]["layer"]
        last = layers[-1]
        assert last["transform"] == [{"filter": "datum.kind == 'chance'"}]
        assert last["mark"]["strokeDash"] and last["mark"]["color"] == CHANCE_LINE
        assert all("chance" not in str(layer.get("transform")) for layer in layers[:-1])


@pytest.mark.parametrize("share", [0.88, 0.6, 1.0])
def test_the_prevalence_axis_stops_at_one(share):
    counts = [round(400 * share), 400 - round(400 * share)]
    prev = pd.DataFrame({"class": ["no", "yes"], "count": counts, "share": [c / 400 for c in counts]})
    spec = _valid(prevalence_bar(prev))
    domain = spec["layer"][0]["encoding"]["x"]["scale"]["domain"]
    assert domain[0] == 0 and domain[1] <= 1.0
    assert domain[1] == pytest.approx(min(1.0, 1.25 * max(prev["share"])))
    rows = spec["datasets"][spec["data"]["name"]]
    inside = {r["class"]: r["inside"] for r in rows}
    # a bar that leaves no room to its right carries its label inside (white), every label is drawn once
    assert not inside["yes"] and (inside["no"] or share < 0.8)
    filters = [layer.get("transform", [{}])[0].get("filter") for layer in spec["layer"][1:]]
    assert "!datum.inside" in filters and (("datum.inside" in filters) == any(inside.values()))


# ----------------------------------------------------------------------------- HTML tables


def test_intervals_stay_on_one_line_and_long_names_keep_a_width():
    names = [f"transformer-large-finetuned-variant-{i:02d}-with-augmentation" for i in range(30)]
    frame = pd.DataFrame({"system": names, "value": np.linspace(0.9, 0.6, 30),
                          "interval": [f"[{v - 0.03:.3f}, {v + 0.03:.3f}]" for v in np.linspace(0.9, 0.6, 30)],
                          "rank interval": [f"{i + 1}–{i + 7}" for i in range(30)], "letters": ["ab cd"] * 30})
    html = Table(frame, index=False)._html()
    assert '<td class="er-nowrap">[0.870, 0.930]</td>' in html and '<td class="er-nowrap">1–7</td>' in html
    assert '<td class="er-nowrap">ab cd</td>' not in html                  # words may wrap
    marks = Table(pd.DataFrame({"measure": ["Macro F1 — primary"], "MON": ["✗¹ (✓)"]}), index=False)._html()
    assert '<td class="er-nowrap">✗¹ (✓)</td>' in marks and '<td>Macro F1 — primary</td>' in marks
    wide = Table(frame.set_index("system")[["value"]].T, index=True)._html()   # names as columns: no change
    assert "er-nowrap" not in wide
    rows = Table(frame.set_index("system")[["value", "interval"]])._html()
    # the index of long names gets a width: names break over a few lines, not one letter a line
    assert '<th scope="col" class="er-index" style="min-width:' in rows
    css = (Path(__file__).parents[1] / "templates" / "html" / "report.css").read_text(encoding="utf-8")
    assert ".er-table td.er-nowrap { white-space: nowrap; }" in css


# ----------------------------------------------------------------------------- report sections


def _binary(root: Path, n: int = 240) -> tuple[Path, list[Path]]:
    """A binary task with scores (prevalence 0.15) and a prior system whose scores are constant."""
    rng = np.random.default_rng(11)
    gold = (rng.random(n) < 0.15).astype(int)
    ids = [f"i{i}" for i in range(n)]
    g = _write(root / "gold.tsv", ids, [("no", "yes")[k] for k in gold])
    runs = []
    for s, skill in enumerate((2.5, 1.5, 0.8)):
        score = 1 / (1 + np.exp(-((2 * gold - 1) * skill + rng.normal(size=n) - 1.0)))
        runs.append(_write(root / "runs" / f"sys{s}.tsv", ids, [("no", "yes")[int(x > 0.5)] for x in score],
                           score=score.round(6)))
    runs.append(_write(root / "runs" / "prior.tsv", ids, ["no"] * n, score=[0.15] * n))
    return g, runs


@pytest.fixture(scope="module")
def binary_report(tmp_path_factory):
    from evalreport.inputs.readers import read_runs

    root = tmp_path_factory.mktemp("binary")
    gold, runs = _binary(root)
    data = read_runs(gold, runs)
    result = analyse(data, root / "tables", bootstrap=60, seed=0, audit=False, primary="roc_auc", positive="yes",
                     label_noise=(0.1,), label_noise_draws=20)
    write_report_meta(root / "tables", result, bootstrap=60, seed=0, primary="roc_auc", positive="yes")
    return open_report(root / "tables")


def test_a_score_based_primary_comes_first_in_the_every_measure_table(binary_report):
    table = binary_report.scores_table()
    first = table.df.index[0] if table.df.index.name == "measure" else table.df.columns[0]
    assert first.startswith("ROC AUC")


def test_the_gold_checks_say_which_measure_stands_in_for_a_score_based_primary(binary_report):
    table = binary_report.gold_fragility_table()
    assert isinstance(table, Table) and list(table.df.columns) == ["Accuracy"]
    assert table.caption.startswith("These checks rank by Accuracy, not by the primary measure: ROC AUC is "
                                    "computed from scores")


def test_the_label_noise_table_names_the_measure_it_ranked_by(binary_report):
    table = binary_report.label_noise_table()
    assert "under Accuracy;" in table.caption and "These checks rank by Accuracy" in table.caption
    finding = binary_report.table("findings").query("finding == 'label_noise'")
    assert finding["measure"].tolist() == ["accuracy"]


def test_notes_name_the_input_file_without_its_folder(tmp_path):
    """A run's scores that are not probabilities leave a note quoting the reader's message (which names
    the file with its folder, as an error must): the overview shows the file's name only."""
    from evalreport.inputs.readers import read_runs

    rng = np.random.default_rng(2)
    n, K = 150, 3
    gold = rng.integers(0, K, n)
    ids = [f"i{i}" for i in range(n)]
    g = _write(tmp_path / "deep" / "folder" / "gold.tsv", ids, [LABELS[k] for k in gold])
    runs = []
    for s in range(2):
        p = rng.dirichlet(np.ones(K), n)
        p[np.arange(n), gold] += 1.0 + s
        p /= p.sum(axis=1, keepdims=True)
        scores = {f"score_{c}": p[:, k] * (3 if s == 1 else 1) for k, c in enumerate(LABELS)}   # s1: margins
        runs.append(_write(tmp_path / "deep" / "folder" / "runs" / f"sys{s}.tsv", ids,
                           [LABELS[k] for k in p.argmax(axis=1)], **scores))
    result = analyse(read_runs(g, runs), tmp_path / "tables", bootstrap=0, seed=0, audit=False)
    write_report_meta(tmp_path / "tables", result, bootstrap=0, seed=0)
    rep = open_report(tmp_path / "tables")
    quoted = [note for note in rep.manifest["notes"] if "sys1.tsv" in note]
    assert quoted and str(tmp_path) in quoted[0]            # the manifest keeps the message as it was
    text = rep.overview().text.replace("\\", "")          # the Markdown escapes taken out
    assert "(sys1.tsv, line" in text and str(tmp_path) not in text and "deep/folder" not in text


def _seeds(root: Path, n: int = 150) -> tuple[Path, Path]:
    """gold.tsv and runs/<system>/seed<k>.tsv: three systems with three runs each."""
    rng = np.random.default_rng(5)
    gold = rng.integers(0, len(LABELS), n)
    ids = [f"i{i}" for i in range(n)]
    g = _write(root / "gold.tsv", ids, [LABELS[k] for k in gold])
    for s, system in enumerate(("bert", "svm", "rule")):
        for k in range(3):
            skill = 0.8 - 0.1 * s + 0.03 * rng.normal()
            pred = np.where(rng.random(n) < skill, gold, rng.integers(0, len(LABELS), n))
            _write(root / "runs" / system / f"seed{k}.tsv", ids, [LABELS[c] for c in pred])
    return g, root / "runs"


@pytest.fixture(scope="module")
def seeds_report(tmp_path_factory):
    from evalreport.inputs.readers import read_runs

    root = tmp_path_factory.mktemp("seeds")
    gold, runs = _seeds(root)
    result = analyse(read_runs(gold, runs_dir=runs), root / "tables", bootstrap=60, seed=0, audit=False,
                     primary="accuracy")
    write_report_meta(root / "tables", result, bootstrap=60, seed=0, primary="accuracy")
    return open_report(root / "tables")


def test_several_runs_name_the_two_level_bootstrap(seeds_report):
    rep = seeds_report
    captions = [rep.leaderboard_table().caption, rep.rank_interval_chart().caption, rep.overview().text,
                rep.pvalue_chart().caption, rep.detectable_note().text]
    for text in captions:
        assert TWO_LEVEL in text and "paired bootstrap" not in text
    assert f"p ({TWO_LEVEL}, Holm)" in rep.pairwise_table().df.columns
    findings = rep.findings().full
    assert "paired bootstrap" not in findings and TWO_LEVEL in findings


def test_one_run_per_system_keeps_the_paired_bootstrap(binary_report):
    assert "paired bootstrap test" in binary_report.leaderboard_table().caption
    assert TWO_LEVEL not in binary_report.overview().text


def test_the_gold_checks_say_they_are_skipped_for_several_runs(seeds_report):
    note = seeds_report.gold_fragility_table()
    assert isinstance(note, Note) and note.text.startswith("Skipped: with several runs per system")


# ----------------------------------------------------------------------------- evalreport score


@pytest.mark.parametrize("fmt", ["markdown", "table"])
def test_score_shows_the_systems_means_then_every_run(tmp_path, capsys, fmt):
    gold, runs = _seeds(tmp_path)
    assert main(["score", str(gold), "--runs-dir", str(runs), "--measures", "accuracy,macro_f1",
                 "--format", fmt]) == 0
    out = capsys.readouterr().out.replace("\\", "")          # markdown's escapes taken out
    first, _, rest = out.partition("every run" if fmt == "table" else "Every run")
    assert rest and "bert/seed0" in rest and "bert/seed0" not in first
    assert "3 runs each" in " ".join(first.split())       # a terminal title may wrap
    # the means are the mean over runs of the csv's per-run values
    assert main(["score", str(gold), "--runs-dir", str(runs), "--measures", "accuracy", "--format", "csv"]) == 0
    per_run = pd.read_csv(__import__("io").StringIO(capsys.readouterr().out))
    mean = per_run.assign(system=per_run["system"].str.split("/").str[0]).groupby("system")["value"].mean()
    for system in ("bert", "svm", "rule"):
        row = next(line for line in first.splitlines() if f" {system} " in line.replace("|", " "))
        assert f"{mean[system]:.4f}" in row
