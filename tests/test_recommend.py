"""`evalreport recommend`: requirements answered from the audit in the data's setting and from the
gold class counts; every output format; bad input (exit 2, one line); plugin measures."""
import csv
import io
import json
from contextlib import redirect_stdout
from pathlib import Path

import numpy as np
import pytest
from conftest import write
from hypothesis import assume, given, settings, strategies as st

from evalreport.analyses.audit import audit
from evalreport.analyses.recommend import REQUIREMENTS, recommend, resolve_requirements
from evalreport.analyses.recommend_data import DataSetting, setting_from_prevalence
from evalreport.cli import main
from evalreport.errors import InputError

STANCE = Path(__file__).resolve().parents[1] / "examples" / "stance"


def _run(argv):
    out = io.StringIO()
    with redirect_stdout(out):
        code = main(argv)
    return code, out.getvalue()


def _row(rec, measure):
    t = rec.table.set_index("measure")
    return t.loc[measure]


# ------------------------------------------------------------------ chance correction


def test_chance_corrected_rules_accuracy_out_and_offers_mcc_and_k_with_the_audits_reasons():
    """Gösgens et al. (2021), Definition 8 (constant baseline) and Opitz (2022), Property V (chance
    correction): accuracy has neither (Gösgens et al. 2021, Table 2, row Acc, column CB: ✗); MCC has
    both; Sebastiani's K has CB where every class occurs in the gold labels (docs/audit.md#absent-classes)."""
    data = DataSetting(("a", "b", "c"), (50.0, 30.0, 3.0))
    rec = recommend(data, ["chance-corrected"], ["accuracy", "mcc", "k", "macro_f1"])
    assert set(rec.fitting()) == {"mcc", "k"}
    acc = _row(rec, "accuracy")
    assert not acc["fits"] and acc["failed"] == 1
    # the reason is the audit's own counterexample, in this data's setting (3 classes, every class in gold)
    au = audit(["accuracy"], ["goesgens.CB"], classes=(3,), max_n=6)
    assert au["verdict_every_class_in_gold"].iloc[0] == "violated"
    given = au["detail"].iloc[0].split("also when every class occurs: ")[1]
    assert given in acc["chance-corrected"] and acc["chance-corrected"].startswith("violated: without skill")
    assert "goesgens.CB (constant baseline) fails" in acc["chance-corrected"]
    assert "opitz.PV" in acc["chance-corrected"]
    # ... and what no-skill systems score on these prevalences: a majority predictor 50/83, random ones sum p^2
    p = np.array([50, 30, 3]) / 83
    assert f"scores {50 / 83:.3g} (majority predictor)" in acc["reason"]
    assert f"{(p ** 2).sum():.3g} (random with the gold shares)" in acc["reason"]
    assert _row(rec, "mcc")["chance-corrected"].startswith("satisfied")
    assert "every class occurs in the gold labels" in _row(rec, "k")["chance-corrected"]
    assert rec.table["measure"].tolist()[:2] == ["mcc", "k"]        # the fitting measures first


def test_k_fails_chance_correction_where_a_class_is_absent_from_the_gold_labels():
    """K's CB holds only with every class in the gold labels (✗¹): data with an empty class loses it."""
    rec = recommend(DataSetting(("a", "b", "c"), (5.0, 3.0, 0.0)), ["chance-corrected"], ["k", "mcc"])
    assert rec.fitting() == ["mcc"]
    assert "goesgens.CB" in _row(rec, "k")["reason"]


def test_the_audit_runs_with_the_datas_number_of_classes():
    rec = recommend(DataSetting(("x", "y"), (7.0, 3.0)), ["symmetric"], ["accuracy"])
    assert "every 2-class confusion matrix up to n = 8" in rec.notes[0]
    rec = recommend(setting_from_prevalence(5, None), ["symmetric"], ["accuracy"])
    assert "every 4-class confusion matrix" in rec.notes[0] and "stand for your 5" in rec.notes[0]


# ------------------------------------------------------------------ defined, ordinal, cost-sensitive


def test_defined_names_the_prediction_that_makes_precision_undefined():
    """Binary precision TP / (TP + FP) is 0/0 when the positive class is never predicted; macro precision
    under the nan policy skips that class and keeps a value."""
    rec = recommend(DataSetting(("neg", "pos"), (5.0, 3.0)), ["defined"], ["precision", "macro_precision", "mcc"])
    prec = _row(rec, "precision")
    assert not prec["fits"]
    assert "0/0 when class 'pos' is never predicted" in prec["reason"] and "C=[[5,0],[3,0]]" in prec["reason"]
    assert "your rarest class 'pos' has 3 items (38 %)" in prec["pitfalls"]
    # a bootstrap resample misses the 3 items with probability (1 - 3/8)^8
    assert f"{100 * (5 / 8) ** 8:.2g} %" in prec["pitfalls"]
    assert _row(rec, "macro_precision")["fits"]
    assert "constant predictor" in _row(rec, "mcc")["pitfalls"]


def test_defined_fails_even_for_a_perfect_prediction_when_the_positive_class_has_no_items():
    rec = recommend(DataSetting(("neg", "pos"), (5.0, 0.0)), ["defined"], ["precision", "recall", "accuracy"])
    assert rec.fitting() == ["accuracy"]
    for m in ("precision", "recall"):
        assert _row(rec, m)["pitfalls"] == "undefined even for a perfect prediction: 'pos' has no items"


def test_ordinal_and_cost_sensitive_are_computed():
    rec = recommend(DataSetting(("low", "mid", "high"), (4.0, 4.0, 4.0)), ["ordinal", "cost-sensitive"],
                    ["accuracy", "mae", "kappa_quadratic", "expected_cost", "gain_mean", "macro_f1"])
    assert set(rec.fitting()) == {"mae", "kappa_quadratic", "expected_cost"}
    assert "predicted as its neighbour 'mid'" in _row(rec, "accuracy")["ordinal"]
    assert _row(rec, "gain_mean")["cost-sensitive"].startswith("satisfied")
    two = recommend(DataSetting(("a", "b"), (4.0, 4.0)), ["ordinal"], ["accuracy"])
    assert two.fitting() == ["accuracy"]        # two classes: every error is between neighbours


def test_requirements_no_measure_meets_are_said_with_the_closest_measures():
    data = DataSetting(("a", "b", "c"), (50.0, 30.0, 3.0))
    rec = recommend(data, ["chance-corrected", "strictly-monotone"], ["accuracy", "mcc", "k", "balanced_accuracy"])
    assert rec.fitting() == []
    text = " ".join(rec.notes)
    assert "No measure meets all of chance-corrected, strictly-monotone" in text
    assert "Closest (1 failed requirement)" in text and "K (Sebastiani) (k), fails strictly-monotone" in text
    assert "No measure is strictly-monotone here" not in text     # accuracy has it
    rec = recommend(data, ["distance", "chance-corrected"], ["mcc", "k"])
    assert "No measure is distance here" in " ".join(rec.notes)


def test_binary_measures_are_not_applicable_to_more_classes():
    rec = recommend(DataSetting(("a", "b", "c"), (1.0, 1.0, 1.0)), ["defined"], ["precision", "accuracy"])
    prec = _row(rec, "precision")
    assert not prec["applicable"] and "_macro" in prec["reason"]
    assert rec.table["measure"].tolist() == ["accuracy", "precision"]


def test_every_requirement_is_documented():
    doc = (Path(__file__).resolve().parents[1] / "docs" / "recommend.md").read_text()
    import evalreport.analyses.recommend as module

    assert "docs/recommend.md" in (module.__doc__ or "")          # the module points to the page checked here
    for name, requirement in REQUIREMENTS.items():
        assert f"`{name}`" in doc
        assert requirement.words and (requirement.source or requirement.check is not None), name
    assert [r.name for r in resolve_requirements("Chance_Corrected,defined")] == ["chance-corrected", "defined"]


@pytest.mark.parametrize(("n", "p", "problem"), [
    (3, [0.5, 0.4], "gives 2 shares for 3 classes"),
    (2, [0.5, 0.6], "sum to 1.1, not 1"),
    (2, [1.2, -0.2], "must be a number >= 0"),
    (1, None, "at least 2"),
])
def test_bad_prevalences(n, p, problem):
    with pytest.raises(InputError, match=problem):
        setting_from_prevalence(n, p)


# ------------------------------------------------------------------ the command


def test_cli_unknown_requirement_lists_the_known_ones(capsys):
    code, out = _run(["recommend", "--classes", "3", "--must", "chance-corrected,fast"])
    err = capsys.readouterr().err
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "unknown requirement 'fast'" in err
    assert all(name in err for name in REQUIREMENTS)


@pytest.mark.parametrize("argv", [
    ["--classes", "3", "--prevalence", "0.5,0.5"],
    ["--classes", "2", "--prevalence", "0.5,0.6"],
    ["--prevalence", "a,b"],
    [],
    ["{gold}", "--classes", "3"],
    ["{gold}", "--labels", "AGAINST,FAVOR"],
    ["{gold}", "--label-col", "nope"],
    ["{missing}"],
])
def test_cli_bad_input_is_one_line_and_exit_2(argv, capsys, tmp_path):
    argv = [a.format(gold=STANCE / "gold.tsv", missing=tmp_path / "none.tsv") for a in argv]
    code, out = _run(["recommend", *argv, "--measures", "accuracy"])
    err = capsys.readouterr().err
    assert code == 2 and out == "" and err.count("\n") == 1 and err.startswith("evalreport: error:")


def test_cli_gold_label_outside_labels_names_the_file_and_line(capsys, tmp_path):
    gold = write(tmp_path / "g.csv", "id,label\n1,a\n2,b\n3,c\n")
    code, _ = _run(["recommend", str(gold), "--labels", "a,b", "--measures", "accuracy"])
    err = capsys.readouterr().err
    assert code == 2 and "g.csv" in err and "line 4" in err and "'c'" in err


def _gold_with_hostile_names(tmp_path):
    rows = ["id,label"] + [f"{i},{lab}" for i, lab in enumerate(["=cmd|x"] * 5 + ["a|*b*"] * 3 + ["<i>c</i>"] * 2)]
    return write(tmp_path / "gold.csv", "\n".join(rows) + "\n")


def test_cli_csv_and_json(tmp_path, capsys):
    gold = _gold_with_hostile_names(tmp_path)
    code, out = _run(["recommend", str(gold), "--must", "chance-corrected,defined", "--measures",
                      "accuracy,mcc,k", "--format", "csv"])
    assert code == 0
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [r["measure"] for r in rows][:1] == ["k"]
    assert {"measure", "label", "fits", "reason", "pitfalls", "chance-corrected", "defined"} <= set(rows[0])
    mcc = next(r for r in rows if r["measure"] == "mcc")
    assert mcc["fits"] == "False" and "constant predictor" in mcc["defined"]
    # a class name that a spreadsheet would run is quoted in the cells that quote it
    assert "'=cmd|x'" in mcc["reason"] and not any(v.startswith("=") for r in rows for v in r.values())
    assert "evalreport: note: Setting: 3 classes" in capsys.readouterr().err
    code, out = _run(["recommend", str(gold), "--must", "defined", "--measures", "accuracy,mcc", "--format", "json"])
    records = json.loads(out)
    assert code == 0 and {r["measure"]: r["fits"] for r in records} == {"accuracy": True, "mcc": False}


def test_cli_markdown_escapes_class_names(tmp_path):
    gold = _gold_with_hostile_names(tmp_path)
    code, out = _run(["recommend", str(gold), "--must", "defined", "--measures", "mcc,accuracy",
                      "--format", "markdown"])
    assert code == 0
    assert out.startswith("| label | measure | fits | reason | pitfalls |")
    assert "a|*b*" not in out and r"a\|\*b\*" in out and "<i>" not in out
    for line in out.splitlines():
        if line.startswith("| Matthews"):
            assert line.count(" | ") == 4          # no cell broken by a | from a class name


def test_cli_table(tmp_path):
    code, out = _run(["recommend", str(STANCE / "gold.tsv"), "--must", "chance-corrected", "--measures",
                      "accuracy,mcc,k,macro_f1"])
    assert code == 0
    assert "evalreport recommend: chance-corrected" in out
    assert "2 of 4 measures meet chance-corrected: Matthews correlation coefficient (mcc), K (Sebastiani) (k)" in out
    assert "AGAINST 0.467" in out


def test_cli_prevalence_setting():
    code, out = _run(["recommend", "--classes", "3", "--prevalence", "0.7,0.2,0.1", "--must", "defined",
                      "--measures", "mcc,accuracy", "--format", "json"])
    records = {r["measure"]: r for r in json.loads(out)}
    assert code == 0 and records["accuracy"]["fits"] and not records["mcc"]["fits"]
    assert records["mcc"]["pitfalls"] == "undefined for a constant predictor (a majority baseline)"
    assert "its a share of 10 %" not in records["mcc"]["reason"]


def test_cli_plugin_measures_appear(clean_registry):
    code, out = _run(["recommend", str(STANCE / "gold.tsv"), "--plugin", str(STANCE / "stance.py"),
                      "--must", "chance-corrected,defined", "--format", "json"])
    assert code == 0
    records = {r["measure"]: r for r in json.loads(out)}
    plugin = records["stance_f_avg"]
    assert plugin["applicable"] and plugin["chance-corrected"].startswith("violated:")
    assert "goesgens.CB (constant baseline) fails" in plugin["chance-corrected"]
    assert len(records) > 80           # the whole registry


def test_measures_that_need_costs_or_gains_say_what_they_were_judged_with():
    rec = recommend(DataSetting(("a", "b", "c"), (4.0, 4.0, 4.0)), ["symmetric"], ["mae", "gain_mean", "accuracy"])
    assert "distance costs |i - j|" in _row(rec, "mae")["pitfalls"]
    assert "identity gains" in _row(rec, "gain_mean")["pitfalls"]
    assert _row(rec, "accuracy")["pitfalls"] == ""


# ------------------------------------------------------------------ the report's section


def _section(tmp_path, labels, sizes, audit_frame, primary="accuracy"):
    from evalreport.analyses.recommend import recommend_for_report
    from evalreport.report.sections import open_report

    tables = tmp_path / "tables"
    tables.mkdir()
    frames = recommend_for_report(labels, sizes, ["accuracy", "mcc", "k"], audit_frame)
    for name, frame in frames.items():
        frame.to_csv(tables / f"{name}.csv", index=False)
    (tables / "manifest.json").write_text(json.dumps({"primary": primary, "measures": ["accuracy", "mcc", "k"]}))
    return open_report(tables)


def test_report_section_reads_the_reports_audit_and_escapes_class_names(tmp_path):
    from evalreport.analyses.audit import audit_for_report

    au = audit_for_report(["accuracy", "mcc", "k"], max_n=6)
    rep = _section(tmp_path, ["<b>x</b>", "a|*b*", "c"], [50, 30, 3], au)
    table = rep.recommend_table()
    shown = table.df.set_index("measure")
    assert shown.loc["K (Sebastiani)", "fits"] == "yes"
    assert shown.loc["Accuracy — primary", "chance-corrected"] == "✗"
    assert "0.602 (majority predictor)" in shown.loc["Accuracy — primary", "why not; pitfalls"]
    assert shown.loc["Matthews correlation coefficient", "defined"] == "✗"
    html = table._html()
    assert "<b>x</b>" not in html and "&lt;b&gt;x&lt;/b&gt;" in html
    note = rep.recommend_note()._repr_mimebundle_()["text/html"]    # the sentences' Markdown, rendered: names shown as written
    assert "verdicts of the report&#x27;s audit (multi-class setting)" in note or \
        "verdicts of the report's audit (multi-class setting)" in note
    assert "a|*b*" in note and "<em>" not in note and "&lt;b&gt;x&lt;/b&gt;" in note


def test_report_section_without_the_audit_answers_defined_only(tmp_path):
    rep = _section(tmp_path, ["neg", "pos"], [5, 3], None)
    shown = rep.recommend_table().df
    assert [c for c in shown.columns if c in REQUIREMENTS] == ["defined"]
    assert rep.recommend_note().text.startswith("The measure audit was not run")
    assert dict(zip(shown["measure"], shown["fits"])) == {"Accuracy — primary": "yes", "K (Sebastiani)": "yes",
                                                          "Matthews correlation coefficient": "no"}


# ------------------------------------------------------------------ defined, against scikit-learn


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 9), st.integers(0, 9))
def test_defined_agrees_with_scikit_learn_on_which_binary_cases_are_0_over_0(neg, pos):
    """Each prediction `defined` tries on gold counts (neg, pos): precision, recall and F1 of the positive
    class have no value exactly where scikit-learn's (zero_division=nan) have none."""
    import warnings

    from sklearn.metrics import f1_score, precision_score, recall_score

    from evalreport.analyses.recommend_data import scenarios, values
    from evalreport.measures import get

    assume(neg + pos > 0)
    data = DataSetting(("neg", "pos"), (float(neg), float(pos)))
    for _, _, C in scenarios(data):
        y = np.repeat([0, 0, 1, 1], C.astype(int).ravel())
        yhat = np.repeat([0, 1, 0, 1], C.astype(int).ravel())
        for ours, theirs in (("precision", precision_score), ("recall", recall_score), ("f1", f1_score)):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                ref = theirs(y, yhat, pos_label=1, zero_division=np.nan)
            assert np.isnan(values(get(ours), C[None])[0]) == np.isnan(ref), (ours, C)


def test_defined_on_many_classes_tries_a_few_classes_of_each_kind():
    from evalreport.analyses.recommend_data import SCENARIO_CLASSES, scenarios

    counts = tuple(float(c) for c in np.arange(1, 301))
    data = DataSetting(tuple(f"c{k}" for k in range(300)), counts)
    kinds = [kind for kind, _, _ in scenarios(data)]
    assert kinds.count("never") == kinds.count("constant") == SCENARIO_CLASSES
    rec = recommend(data, ["defined"], ["accuracy", "mcc"])
    assert rec.fitting() == ["accuracy"]
    assert _row(rec, "mcc")["pitfalls"] == "undefined for a constant predictor (a majority baseline)"
