"""What an organiser publishing a leaderboard and an author attaching an appendix would trip on:
counts said of the whole data when a chart draws only part of it, and sentences that name a test
where none was made."""
from __future__ import annotations

import re

import pandas as pd
import pytest

from evalreport import charts
from evalreport.examples import shared_task_data


def _subtitle(spec: dict) -> str:
    sub = spec["title"]["subtitle"]
    return sub if isinstance(sub, str) else " ".join(sub)


def test_prevalence_subtitle_counts_every_class_when_only_some_are_drawn():
    counts = list(range(100, 60, -1))                             # 40 classes, 3,220 items
    whole = pd.DataFrame({"class": [f"c{i:02d}" for i in range(40)], "count": counts})
    whole["share"] = whole["count"] / whole["count"].sum()
    drawn = pd.concat([whole.head(12), whole.tail(12)])
    text = _subtitle(charts.prevalence_bar(drawn, whole=whole).to_dict())
    assert text == "40 classes (24 shown), 3,220 items; largest / smallest = 1.6"
    assert _subtitle(charts.prevalence_bar(whole).to_dict()) == "40 classes, 3,220 items; largest / smallest = 1.6"


def test_a_right_to_left_name_is_isolated_from_the_sentence_around_it():
    from evalreport.escape import markdown

    name = "001_\u0646\u0638\u0627\u0645"                   # an Arabic system name
    assert markdown(name) == "\u2066001\\_\u0646\u0638\u0627\u0645\u2069"
    assert markdown("002_Syst\u00e8me") == "002\\_Syst\u00e8me"       # left-to-right text stays as it was
    # a name's own isolate controls are still shown as U+FFFD: only the escaper adds them
    assert markdown("a\u2066b\u0646") == "\u2066a\ufffdb\u0646\u2069"


def test_methods_paragraph_does_not_call_the_detectable_difference_a_standard_error(tmp_path):
    from evalreport.inputs import read_runs
    from evalreport.report.appendix import write_appendix
    from evalreport.report.build import analyse

    files = shared_task_data(n_systems=3, n_items=200, seed=1).write(tmp_path / "in")
    runs = read_runs(files["gold"], runs_dir=files["runs_dir"])
    analyse(runs, tmp_path / "tables", bootstrap=100, seed=0, audit=False)
    write_appendix(tmp_path / "tables", tmp_path / "out", figures=False)
    text = " ".join((tmp_path / "out" / "methods.tex").read_text(encoding="utf-8").split())
    said = re.search(r"with 80\\% power is ([0-9.]+) \(([^)]*)\)", text)
    assert said is not None
    assert not said.group(2).startswith("the paired bootstrap standard error")
    assert "computed from the paired bootstrap standard error of their difference" in said.group(2)


def test_pair_counts_in_the_findings_have_thousands_separators(tmp_path):
    import evalreport
    from evalreport import Settings
    from evalreport.analyses.findings import findings

    files = shared_task_data(n_systems=46, n_items=120, seed=1).write(tmp_path / "in")     # 46 x 45 / 2 = 1,035 pairs
    runs = evalreport.read_runs(files["gold"], runs_dir=files["runs_dir"])
    rows = findings(evalreport.compare(runs, Settings(bootstrap=50, seed=0, measures=("macro_f1",))),
                    fragility_count=False).findings.set_index("finding")["detail"]
    assert rows["separated_pairs"] == "of 1,035"          # "2,750 of 1035 are separated" read badly
    assert "Holm-corrected over all 1,035 pairs" in rows["separable_count"]


def test_a_long_system_name_turned_upright_is_shortened_in_the_pdf_and_html_tables():
    from evalreport.charts.names import text_units
    from evalreport.report.display import Table
    from evalreport.report.typst_table import UPRIGHT_UNITS

    long_a = "000_system_" + "x" * 54                          # 65 characters, as a shared task's file stems
    long_b = "001_system_" + "x" * 54
    measures = [f"Measure number {i} (\u2191)" for i in range(20)]
    df = pd.DataFrame({"measure": measures, long_a: 0.5, long_b: 0.25, "short": 0.125}).set_index("measure")
    bundle = Table(df, caption="Every measure.")._repr_mimebundle_()
    typst = bundle["application/vnd.evalreport.typst+json"]["typst"]
    assert "rotate(-90deg" in typst and long_a not in typst and long_b not in typst
    heads = re.findall(r'rotate\(-90deg, reflow: true\)\[#"([^"]*)"\]', typst)
    assert len(set(heads)) == len(heads) and all(text_units(h) <= UPRIGHT_UNITS for h in heads)
    assert any(h.startswith("000_system_") and "\u2026" in h for h in heads)
    html = bundle["text/html"]
    assert f'title="{long_a}"' in html and f'title="{long_b}"' in html     # the whole name on hover


MEASURES = ["accuracy", "macro_f1", "macro_recall", "macro_precision", "kappa", "mcc", "k", "jaccard_macro", "ece"]


def test_a_winner_clear_under_nearly_every_measure_is_said_by_what_it_leaves_out():
    from evalreport.report.summary import findings_note

    rows = [("leader", "A", "accuracy", 0.9, "sole")]
    for m in MEASURES:
        winner, p = ("B", 0.4) if m == "ece" else ("A", 0.001)
        rows += [("winner", winner, m, 0.8, ""), ("winner_margin", "C", m, 0.05, ""),
                 ("winner_noise", "C", m, p, "beyond noise" if p < 0.05 else "within noise")]
    note = findings_note(pd.DataFrame(rows, columns=["finding", "system", "measure", "value", "detail"]),
                         primary="accuracy")
    head = next(t for t in note.text.splitlines() if "Leads beyond the bootstrap noise" in t)
    # eight names in the headline were a paragraph; what A does not win clearly is one name
    assert head.endswith("**A** under 8 of the 9 measures, all but Expected calibration error.")


def test_details_say_every_one_when_every_measures_lead_is_within_the_noise():
    from evalreport.report.summary import findings_note

    rows = [("leader", "A", "accuracy", 0.9, "sole")]
    for m in MEASURES:
        rows += [("winner", "A", m, 0.8, ""), ("winner_margin", "B", m, 0.01, ""),
                 ("winner_noise", "B", m, 0.9, "within noise")]
    note = findings_note(pd.DataFrame(rows, columns=["finding", "system", "measure", "value", "detail"]),
                         primary="accuracy")
    line = next(t for t in note.details.splitlines() if "**Every measure** (9)" in t)
    assert "under every one its lead over the runner-up is within the bootstrap noise" in line
    assert "Macro recall" not in line                   # not the nine names again


def test_a_small_slice_is_not_said_to_have_too_few_items_when_it_lacks_a_gold_class():
    # 675 items without the rarest of 40 gold classes is "small" (no interval for a class average):
    # "too few items" alone misled the reader of a 2,000-item, 3-domain report
    from slices_view_frames import slice_frames

    from evalreport.charts.slices import slice_heatmap, slice_leaderboards

    df = slice_frames(3, 2, small=(0, 1))["slices"]
    for chart in (slice_heatmap(df, measure="macro_f1"), slice_leaderboards(df, measure="macro_f1")):
        subtitle = _subtitle(chart.to_dict())
        assert "too few items or a gold class missing" in subtitle


def test_no_appendix_figure_is_taller_than_the_page_can_hold(tmp_path, monkeypatch):
    # Typst shows a figure at its own size: the reliability diagrams of 8 systems (9.7 in tall at page
    # width) ran off a US-letter page, caption and all
    import altair as alt

    from evalreport.report.appendix import figures

    monkeypatch.setattr(figures, "charts_for", lambda data: [])
    tall = alt.Chart(pd.DataFrame({"x": [0, 1], "y": [0, 1]})).mark_point().encode(x="x:Q", y="y:Q").properties(
        width=400, height=1000)
    made = figures.write_figures(None, tmp_path, extra={"tall": tall})
    for size, files in made[0].files.items():
        svg = files["svg"].read_text(encoding="utf-8")
        height = float(re.search(r'<svg[^>]*?\sheight="([\d.]+)pt"', svg).group(1))
        assert height <= figures.MAX_HEIGHT_IN * 72 + 0.5, (size, height)
    # ... and appendix.typ shows it at its own, narrower width, not stretched back to the page's
    from evalreport.report.appendix.writer import write_bundle

    made[0].size = "page"
    write_bundle(tmp_path, [], made, [], "", fixed_width=True)
    typ = (tmp_path / "appendix.typ").read_text(encoding="utf-8")
    # its own width, at most the text's and a share of the page height (calc.min(own, size.width, ...))
    shown = float(re.search(r'image\("figures/tall-page\.pdf", width: calc\.min\(([\d.]+)in, size\.width', typ).group(1))
    assert shown == pytest.approx(figures.pdf_width_pt(made[0].files["page"]["pdf"].read_bytes()) / 72, abs=0.01)
    assert shown < 6.9


def test_calibration_chart_counts_only_measures_with_a_calibrated_value(tmp_path):
    # with score columns, 9 of 25 measures are score-based and have no calibrated value: "12 of 25
    # measures" said the chart left out 13 when it could only leave out 4
    import numpy as np

    from evalreport.inputs import read_runs
    from evalreport.report.build import analyse
    from evalreport.report.sections import ReportData

    rng = np.random.default_rng(0)
    classes = ["neg", "neu", "pos"]
    gold = rng.choice(3, size=300, p=[0.5, 0.3, 0.2])
    (tmp_path / "runs").mkdir()
    pd.DataFrame({"id": range(300), "label": [classes[g] for g in gold]}).to_csv(tmp_path / "gold.tsv", sep="\t",
                                                                                 index=False)
    for s, skill in enumerate((0.9, 0.8, 0.7)):
        pred = np.where(rng.random(300) < skill, gold, rng.integers(0, 3, 300))
        z = rng.normal(0, 1, (300, 3))
        z[np.arange(300), pred] += 2
        prob = np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)
        frame = pd.DataFrame({"id": range(300), "label": [classes[p] for p in pred]})
        for k, c in enumerate(classes):
            frame[f"score_{c}"] = prob[:, k]
        frame.to_csv(tmp_path / "runs" / f"sys{s}.tsv", sep="\t", index=False)
    runs = read_runs(tmp_path / "gold.tsv", runs_dir=tmp_path / "runs")
    analyse(runs, tmp_path / "tables", bootstrap=50, seed=0, audit=False)
    caption = ReportData(tmp_path / "tables").calibration_chart().caption
    scores = pd.read_csv(tmp_path / "tables" / "scores.csv")
    n_calibrated = scores.loc[scores["calibrated"].astype(bool), "measure"].nunique()
    assert n_calibrated < scores["measure"].nunique()               # the score-based measures have none
    assert f"12 of the {n_calibrated} measures with a calibrated value" in caption
