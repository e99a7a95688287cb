"""Slices end to end: gold files with a slice column through the analysis, the findings, the report
section, the appendix and the Codabench scorer (a system best on one domain and poor on another is
described so in the findings)."""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import f1_score

from evalreport.cli import main
from evalreport.inputs.readers import read_runs
from evalreport.inputs.settings import Settings
from evalreport.report.appendix import latex, typst
from evalreport.report.appendix.slices import slices_tables
from evalreport.report.appendix.writer import AppendixData
from evalreport.report.build import analyse
from evalreport.report.codabench import score_submission
from evalreport.report.sections import ReportData

LABELS = np.array(["pos", "neg", "neu"])
DOMAINS = np.array(["news & blogs", "tweets_<short>", "forums"])


def _write(tmp_path, accuracy: dict[str, list[float]], n: int = 900, seed: int = 4):
    """gold.tsv (id, label, domain) and one run per system whose accuracy on domain d is accuracy[s][d]."""
    rng = np.random.default_rng(seed)
    gold = rng.choice(3, n, p=[0.3, 0.5, 0.2])
    domain = rng.choice(3, n, p=[0.5, 0.35, 0.15])
    pd.DataFrame({"id": [f"i{i}" for i in range(n)], "label": LABELS[gold], "domain": DOMAINS[domain]}).to_csv(
        tmp_path / "gold.tsv", sep="\t", index=False)
    runs = tmp_path / "runs"
    runs.mkdir()
    preds = {}
    for s, acc in accuracy.items():
        ok = rng.random(n) < np.asarray(acc)[domain]
        preds[s] = np.where(ok, gold, (gold + rng.integers(1, 3, n)) % 3)
        pd.DataFrame({"id": [f"i{i}" for i in range(n)], "label": LABELS[preds[s]]}).to_csv(
            runs / f"{s}.tsv", sep="\t", index=False)
    return tmp_path / "gold.tsv", runs, gold, domain, preds


@pytest.fixture(scope="module")
def changing(tmp_path_factory):
    """alpha leads overall; beta is far better on tweets and far worse on news."""
    tmp = tmp_path_factory.mktemp("changing")
    gold, runs_dir, *rest = _write(tmp, {"alpha": [0.92, 0.55, 0.85], "beta": [0.6, 0.95, 0.7],
                                        "gamma": [0.75, 0.7, 0.72]})
    runs = read_runs(gold, runs_dir=runs_dir, slice_cols=("domain",))
    analyse(runs, tmp / "tables", Settings(slice_cols=("domain",), bootstrap=300, seed=1, audit=False))
    return tmp, gold, runs_dir, rest


def test_a_leader_beaten_on_one_domain_is_described_so(changing):
    tmp, *_ = changing
    rep = ReportData(tmp / "tables")
    text = rep.findings().text
    assert "**Slices:** under Macro F1, **alpha** leads on 2 of 3 slices of domain; the best elsewhere: **beta** on tweets\\_\\<short\\>" \
        in text
    assert "**alpha**'s lead depends on the slice" in text
    leaders = rep.slice_leaders_table().df.set_index("slice")
    assert leaders.loc["tweets_<short>", "best"] == "beta" and leaders.loc["news & blogs", "best"] == "alpha"
    assert rep.slices_heading() is not None and rep.slice_summary_table() is not None
    assert rep.slice_heatmap_chart() is not None and rep.slice_multiples_chart() is not None


def test_the_slice_values_shown_equal_scikit_learn_on_each_domain(changing):
    tmp, _, _, (gold, domain, preds) = changing
    spec = slices_tables(AppendixData(tmp / "tables"))[0]
    systems = [c.title for c in spec.columns[1:]]
    for row in spec.rows:
        name = row[0].text.rsplit(" (", 1)[0]
        m = domain == list(DOMAINS).index(name)
        for s, cell in zip(systems, row[1:]):
            assert float(cell.text) == pytest.approx(f1_score(gold[m], preds[s][m], average="macro"), abs=6e-4)
    assert "tweets\\_\\textless{}short\\textgreater{}" in latex.table(spec)
    assert '"tweets_<short> (' in typst.table(spec)


def test_no_slice_sentence_when_the_leader_wins_every_domain(tmp_path):
    gold, runs_dir, *_ = _write(tmp_path, {"alpha": [0.95, 0.95, 0.95], "beta": [0.6, 0.6, 0.6],
                                           "gamma": [0.5, 0.5, 0.5]})
    runs = read_runs(gold, runs_dir=runs_dir, slice_cols=("domain",))
    analyse(runs, tmp_path / "tables", Settings(slice_cols=("domain",), bootstrap=100, seed=1, audit=False))
    rep = ReportData(tmp_path / "tables")
    assert "Slices" not in rep.findings().text
    assert rep.slices_heading() is not None          # the section is there, the sentence is not


def test_codabench_writes_per_slice_keys_beside_the_keys(changing, tmp_path):
    _, gold, runs_dir, (g, domain, preds) = changing
    (tmp_path / "in" / "ref").mkdir(parents=True)
    (tmp_path / "in" / "res").mkdir()
    (tmp_path / "in" / "ref" / "gold.tsv").write_bytes(gold.read_bytes())
    (tmp_path / "in" / "res" / "pred.tsv").write_bytes((runs_dir / "beta.tsv").read_bytes())
    scored = score_submission(tmp_path / "in", Settings(slice_cols=("domain",), measures=("accuracy",)))
    keys = scored.scores
    assert {"macro_f1", "macro_f1__news_blogs", "macro_f1__tweets_short", "macro_f1__forums",
            "accuracy__forums"} <= set(keys)
    m = domain == 1
    assert keys["macro_f1__tweets_short"] == pytest.approx(f1_score(g[m], preds["beta"][m], average="macro"))
    assert main(["codabench", str(tmp_path / "in"), str(tmp_path / "out"), "--slice-col", "domain"]) == 0
    written = json.loads((tmp_path / "out" / "scores.json").read_text(encoding="utf-8"))
    assert "macro_f1__tweets_short" in written and "macro_f1" in written
    page = (tmp_path / "out" / "detailed_results.html").read_text(encoding="utf-8")
    assert "By slice of the test set" in page and "tweets_&lt;short&gt;" in page and "<short>" not in page
