"""``evalreport codabench INPUT OUTPUT``: the scoring program, on folders laid out as Codabench lays
them out (INPUT/ref = the reference data, INPUT/res = one submission; Codabench docs, "Submission
Docker Container Layout") and read back as the platform reads them (scores.json: a flat JSON
object of numbers whose keys are leaderboard column keys; "Competition Bundle Structure")."""
from __future__ import annotations

import html
import io
import json
import math
import re
import textwrap

import numpy as np
import pandas as pd
import pytest
from hypothesis import assume, given, strategies as st

from evalreport.cli import main
from evalreport.report.codabench import leaderboard_key

LABELS = ["FAVOR", "AGAINST", "NONE"]
RNG = np.random.default_rng(5)
GOLD = RNG.choice(LABELS, size=80, p=[0.3, 0.45, 0.25])
PRED = np.where(RNG.random(80) < 0.65, GOLD, RNG.choice(LABELS, size=80))


@pytest.fixture
def platform(tmp_path):
    """tmp_path/input/ref/gold.tsv, tmp_path/input/res/predictions.tsv and a task file."""
    ref, res = tmp_path / "input" / "ref", tmp_path / "input" / "res"
    ref.mkdir(parents=True)
    res.mkdir()
    pd.DataFrame({"id": range(80), "label": GOLD}).to_csv(ref / "gold.tsv", sep="\t", index=False)
    pd.DataFrame({"id": range(80), "label": PRED}).to_csv(res / "predictions.tsv", sep="\t", index=False)
    task = tmp_path / "task.toml"
    task.write_text(textwrap.dedent('''
        primary = "macro_f1"
        measures = ["accuracy", "mcc", "k"]
        labels = ["FAVOR", "AGAINST", "NONE"]
        bootstrap = 200
        seed = 1
        '''), encoding="utf-8")
    return tmp_path, task


def _scores_json(path) -> dict:
    scores = json.loads(path.read_text(encoding="utf-8"))
    assert isinstance(scores, dict)
    for key, value in scores.items():       # what the leaderboard takes: keys [a-z0-9_], finite numbers
        assert re.fullmatch(r"[a-z0-9_]+", key), key
        assert isinstance(value, float) and math.isfinite(value), (key, value)
    return scores


def test_scores_json_is_flat_finite_and_equals_evalreport_score(platform, capsys):
    root, task = platform
    out = root / "output"
    assert main(["codabench", str(root / "input"), str(out), "--task-file", str(task)]) == 0
    scores = _scores_json(out / "scores.json")
    capsys.readouterr()
    assert main(["score", str(root / "input" / "ref" / "gold.tsv"), str(root / "input" / "res" / "predictions.tsv"),
                 "--task-file", str(task), "--measures", "macro_f1,accuracy,mcc,k", "--format", "csv"]) == 0
    expected = pd.read_csv(io.StringIO(capsys.readouterr().out)).set_index("measure")["value"]
    assert list(expected.index) == ["macro_f1", "accuracy", "mcc", "k"]
    for measure, value in expected.items():
        assert scores[measure] == pytest.approx(value, abs=1e-12)
        assert scores[f"{measure}_lo"] <= scores[measure] <= scores[f"{measure}_hi"]
    assert scores["score"] == scores["macro_f1"]          # the official measure, under the usual key too
    assert list(scores)[:4] == ["score", "macro_f1", "macro_f1_lo", "macro_f1_hi"]
    # scores.txt (CodaLab legacy): the same numbers as key: value lines
    lines = (out / "scores.txt").read_text(encoding="utf-8").splitlines()
    assert {k: float(v) for k, v in (line.split(": ") for line in lines)} == scores


def test_same_seed_same_bounds_and_no_bounds_without_bootstrap(platform):
    root, task = platform
    main(["codabench", str(root / "input"), str(root / "o1"), "--task-file", str(task)])
    main(["codabench", str(root / "input"), str(root / "o2"), "--task-file", str(task)])
    assert _scores_json(root / "o1" / "scores.json") == _scores_json(root / "o2" / "scores.json")
    assert main(["codabench", str(root / "input"), str(root / "o3"), "--task-file", str(task), "--bootstrap", "0",
                 "--measures", "accuracy"]) == 0
    assert set(_scores_json(root / "o3" / "scores.json")) == {"score", "macro_f1", "accuracy"}


def test_the_detail_page_is_offline_and_escapes_class_names(tmp_path):
    ref, res = tmp_path / "in" / "ref", tmp_path / "in" / "res"
    ref.mkdir(parents=True)
    (res / "team_folder").mkdir(parents=True)           # a zip that held a folder: the one file inside it
    evil = "<script>alert(1)</script>"
    gold = [evil, "b&c", evil, "b&c", evil]
    pd.DataFrame({"id": range(5), "label": gold}).to_csv(ref / "gold.csv", index=False)
    pd.DataFrame({"id": range(5), "label": [evil, evil, evil, "b&c", "b&c"]}).to_csv(
        res / "team_folder" / "sub.csv", index=False)
    assert main(["codabench", str(tmp_path / "in"), str(tmp_path / "out"), "--bootstrap", "20"]) == 0
    page = (tmp_path / "out" / "detailed_results.html").read_text(encoding="utf-8")
    assert "<script" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page and "b&amp;c" in page
    assert not re.search(r"(src|href)\s*=|@import|url\(", page)          # nothing to fetch
    assert "Confusion matrix" in page and "Per class" in page and "Macro F1" in page


@pytest.mark.parametrize("setup, message", [
    ("empty", "the submission must be one file of a supported format"),
    ("two", "the submission must be one file; found 2: a.tsv, b.tsv"),
    ("bad_label", "predictions.tsv, line 5"),
    ("missing_id", "predictions.tsv, id '79'"),
    ("no_scores", "predictions.tsv: submission error: the measure(s) roc_auc need scores"),
])
def test_a_malformed_submission_is_one_line_exit_2_and_no_scores(platform, capsys, setup, message):
    root, task = platform
    res = root / "input" / "res"
    sub = res / "predictions.tsv"
    if setup == "empty":
        sub.unlink()
        (res / "readme.txt").write_text("hello", encoding="utf-8")
    elif setup == "two":
        sub.rename(res / "a.tsv")
        (res / "b.tsv").write_text("id\tlabel\n", encoding="utf-8")
    elif setup == "bad_label":
        frame = pd.read_csv(sub, sep="\t")
        frame.loc[3, "label"] = "MAYBE"
        frame.to_csv(sub, sep="\t", index=False)
    elif setup == "missing_id":
        pd.read_csv(sub, sep="\t").iloc[:-1].to_csv(sub, sep="\t", index=False)
    elif setup == "no_scores":                   # the task lists a score-based measure; the file has labels only
        task.write_text(task.read_text(encoding="utf-8").replace('"k"]', '"k", "roc_auc"]'), encoding="utf-8")
    elif setup == "no_ref":
        import shutil

        shutil.rmtree(root / "input" / "ref")
    out = root / "output"
    assert main(["codabench", str(root / "input"), str(out), "--task-file", str(task)]) == 2
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("evalreport: error: ") and message in lines[0]
    assert "submission error" in lines[0]                       # the side at fault is named
    assert not (out / "scores.json").exists() and not (out / "scores.txt").exists()


def test_an_undefined_measure_is_written_as_its_convention_with_a_note(platform, capsys):
    """MCC of a constant prediction is 0/0 (policy nan). The column must be present (CodaLab needs
    the first leaderboard column) and must not sort above scored submissions (Codabench shows a
    missing value as n/a, reported at the top of leaderboards): it is written as MCC's convention, 0
    (chance level; a fresh review: -1 claimed perfect anti-correlation and ranked a constant prediction
    below a nearly inverted one), with no interval bounds, and a note says why."""
    root, task = platform
    sub = root / "input" / "res" / "predictions.tsv"
    pd.DataFrame({"id": range(80), "label": "NONE"}).to_csv(sub, sep="\t", index=False)
    assert main(["codabench", str(root / "input"), str(root / "out"), "--task-file", str(task)]) == 0
    scores = _scores_json(root / "out" / "scores.json")
    assert scores["mcc"] == 0.0 and "mcc_lo" not in scores and "mcc_hi" not in scores and "accuracy" in scores
    err = capsys.readouterr().err
    assert "mcc: undefined on this submission" in err and "the measure's convention for 0/0" in err
    page = html.unescape((root / "out" / "detailed_results.html").read_text(encoding="utf-8"))
    assert "the measure's convention for 0/0" in page


def test_an_undefined_official_measure_keeps_score_first():
    """The three rules in order: the convention, else a single chance value, else the worst end."""
    from evalreport.measures import catalogue, get
    from evalreport.report.codabench import undefined_value, worst_value

    assert undefined_value(get("mcc"))[0] == 0.0 and undefined_value(get("kappa")) == (
        0.0, "the measure's chance value (a 0/0 is the no-skill case)")
    assert undefined_value(get("accuracy"))[0] == worst_value(get("accuracy")) == 0.0
    lower = next(m for m in ("mae", "ce", "confusion_entropy") if _exists(m) and not get(m).higher_is_better)
    assert worst_value(get(lower)) == float(get(lower).range[1]) or math.isnan(worst_value(get(lower)))
    for m in catalogue():            # a number shown for "undefined" always lies in the measure's range
        v, _ = undefined_value(m)
        assert math.isnan(v) or float(m.range[0]) <= v <= float(m.range[1]), m.id


def _exists(measure_id) -> bool:
    from evalreport.measures import get

    try:
        get(measure_id)
        return True
    except Exception:
        return False


@pytest.mark.parametrize("task_text, message", [
    ('primary = "mae"\n', "needs a class order"),
    ('primary = "cohen_kappa"\n', "cohen_kappa"),
    ('primary = "fbeta(beta=2)"\n', "positive class"),
    ('primary = "macro_f1(classes=FAVOR|MAYBE)"\n', "unknown class 'MAYBE'"),
    ('primary = "macro_f1"\npositive = "MAYBE"\nmeasures = ["f1"]\n', "MAYBE"),
    ('primay = "macro_f1"\n', "did you mean 'primary'"),
    ('plugins = ["nowhere.py"]\n', "nowhere.py"),
])
def test_an_organiser_error_exits_3_says_so_and_writes_nothing(platform, capsys, task_text, message):
    """Organiser review, item 8: a mistake in task.toml must not be reported like a bad submission
    (status 2, which the participant's log blames on the submission): status 3, and the message says
    it is the organiser's setup."""
    root, task = platform
    task.write_text(task_text, encoding="utf-8")
    out = root / "output"
    assert main(["codabench", str(root / "input"), str(out), "--task-file", str(task)]) == 3
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and "task configuration error (the organiser's scoring setup, not the submission)" \
        in lines[0] and message in lines[0], lines
    assert not (out / "scores.json").exists()


def test_a_missing_reference_or_bad_gold_is_the_organisers_error(platform, capsys):
    import shutil

    root, task = platform
    gold = root / "input" / "ref" / "gold.tsv"
    gold.write_text(gold.read_text(encoding="utf-8") + "3\tNONE\n", encoding="utf-8")     # a repeated id
    assert main(["codabench", str(root / "input"), str(root / "o"), "--task-file", str(task)]) == 3
    assert "duplicate" in capsys.readouterr().err
    shutil.rmtree(root / "input" / "ref")
    assert main(["codabench", str(root / "input"), str(root / "o"), "--task-file", str(task)]) == 3
    assert "no ref/ folder" in capsys.readouterr().err


def test_the_detail_page_names_the_positive_class_of_a_binary_measure(platform):
    root, task = platform
    task.write_text('primary = "macro_f1"\nmeasures = ["fbeta(beta=2)"]\npositive = "AGAINST"\nbootstrap = 0\n',
                    encoding="utf-8")
    assert main(["codabench", str(root / "input"), str(root / "out"), "--task-file", str(task)]) == 0
    page = (root / "out" / "detailed_results.html").read_text(encoding="utf-8")
    assert re.search(r"<th>F[^<]*beta=2[^<]*\(positive class: AGAINST\)</th>", page), page[:2000]
    assert "Macro F1 (positive class" not in page


@pytest.mark.parametrize("ident, key", [
    ("macro_f1", "macro_f1"),
    ("macro_f1(classes=AGAINST|FAVOR)", "macro_f1_classes_against_favor"),
    ("fbeta(beta=2)", "fbeta_beta_2"),
    ("gm(r=-1)", "gm_r_1"),
    ("k_cost(error=se)", "k_cost_error_se"),
])
def test_leaderboard_keys_are_safe_and_stable(ident, key):
    assert leaderboard_key(ident) == key


def test_an_official_measure_of_ones_own_from_a_plugin_named_in_the_task_file(platform, clean_registry):
    """The official measure of SemEval-2016 Task 6, F_avg = (F1_FAVOR + F1_AGAINST) / 2 (Mohammad et
    al., 2016, section 4), from a plugin file the task file names (a path relative to the task file)."""
    from sklearn.metrics import f1_score

    root, _ = platform
    (root / "bundle").mkdir()
    (root / "bundle" / "stance.py").write_text(textwrap.dedent('''
        import numpy as np
        from evalreport.measures import Measure, register

        def favor_against_f1(C, ctx):
            tp = np.diagonal(C, axis1=-2, axis2=-1)[..., :2]
            f1 = ctx.div(2 * tp, C.sum(axis=-1)[..., :2] + C.sum(axis=-2)[..., :2], "no gold and no predicted items")
            return ctx.mean(f1)

        register(Measure(id="stance_f_avg", label="F_avg (FAVOR, AGAINST)", fn=favor_against_f1,
                         source="Mohammad et al. 2016, SemEval-2016 Task 6, section 4",
                         formula="(F1_FAVOR + F1_AGAINST) / 2", range=(0.0, 1.0)))
        '''), encoding="utf-8")
    task = root / "bundle" / "task.yaml"
    task.write_text("primary: stance_f_avg\nmeasures: [macro_f1]\nlabels: [FAVOR, AGAINST, NONE]\n"
                    "plugins: [stance.py]\nbootstrap: 100\n", encoding="utf-8")
    assert main(["codabench", str(root / "input"), str(root / "out"), "--task-file", str(task)]) == 0
    scores = _scores_json(root / "out" / "scores.json")
    assert list(scores)[:4] == ["score", "stance_f_avg", "stance_f_avg_lo", "stance_f_avg_hi"]
    assert scores["stance_f_avg"] == pytest.approx(f1_score(GOLD, PRED, labels=["FAVOR", "AGAINST"], average="macro"),
                                                   abs=1e-12)


@given(st.text(min_size=1, max_size=40))
def test_a_leaderboard_key_is_always_safe_and_a_fixed_point(text):
    assume(re.search(r"[a-z0-9]", text.lower()))
    key = leaderboard_key(text)
    assert re.fullmatch(r"[a-z0-9]+(_[a-z0-9]+)*", key) and leaderboard_key(key) == key


def test_class_subset_and_gain_measures_get_safe_keys_and_equal_score(platform, capsys):
    """A class-subset average (the SemEval-2016 Task 6 F_avg written macro_f1(classes=FAVOR|AGAINST))
    and a gain measure from --gains: the scorer binds them to the class set as `score` does."""
    from sklearn.metrics import f1_score

    root, _ = platform
    gains = root / "gains.csv"
    gains.write_text("gold,FAVOR,AGAINST,NONE\nFAVOR,1,0.25,0\nAGAINST,0.25,1,0\nNONE,0,0,1\n", encoding="utf-8")
    ids = "macro_f1(classes=FAVOR|AGAINST),gain_relative"
    assert main(["codabench", str(root / "input"), str(root / "out"), "--primary", "accuracy", "--measures", ids,
                 "--gains", str(gains), "--bootstrap", "50"]) == 0
    scores = _scores_json(root / "out" / "scores.json")
    # the key comes from the canonical id, whose class names are sorted: macro_f1(classes=AGAINST|FAVOR)
    assert scores["macro_f1_classes_against_favor"] == pytest.approx(
        f1_score(GOLD, PRED, labels=["FAVOR", "AGAINST"], average="macro"), abs=1e-12)
    capsys.readouterr()
    assert main(["score", str(root / "input" / "ref" / "gold.tsv"), str(root / "input" / "res" / "predictions.tsv"),
                 "--measures", ids, "--gains", str(gains), "--format", "csv"]) == 0
    expected = pd.read_csv(io.StringIO(capsys.readouterr().out)).set_index("measure")["value"]
    assert scores["gain_relative"] == pytest.approx(expected["gain_relative"], abs=1e-12)
    assert "gain_relative_lo" in scores and "macro_f1_classes_against_favor_hi" in scores


def _score_table_header(page: str) -> list[str]:
    table = re.search(r"<table><caption>Scores</caption><tr>(.*?)</tr>", page).group(1)
    return re.findall(r"<th>(.*?)</th>", table)


def test_the_detail_page_has_a_column_of_undefined_cases_only_when_there_is_one(platform):
    """A participant's page: intervals on one line, and the column of undefined cases only where a
    measure of this submission is undefined (MCC of a constant prediction: 0/0)."""
    root, task = platform
    assert main(["codabench", str(root / "input"), str(root / "ok"), "--task-file", str(task)]) == 0
    page = (root / "ok" / "detailed_results.html").read_text(encoding="utf-8")
    assert _score_table_header(page) == ["measure", "leaderboard key", "value", "95% interval"]
    assert "white-space:nowrap" in page
    pd.DataFrame({"id": range(80), "label": "NONE"}).to_csv(root / "input" / "res" / "predictions.tsv", sep="\t",
                                                            index=False)
    assert main(["codabench", str(root / "input"), str(root / "const"), "--task-file", str(task)]) == 0
    page = (root / "const" / "detailed_results.html").read_text(encoding="utf-8")
    assert _score_table_header(page)[-1] == "undefined cases"
    mcc_row = re.search(r"<tr><th>[^<]*</th><td><code>mcc</code></td>.*?</tr>", page).group(0)
    assert mcc_row.count("<td") == 4 and "undefined" in mcc_row


def test_bootstrap_strata_from_the_task_file_keeps_every_class(platform, capsys):
    """A gold class with one item is lost in about (1 - 1/N)^N = 37 % of the resamples: the participant's
    log says so; `bootstrap_strata = "gold"` in the task file resamples within each gold class, so no
    resample loses it, and the note goes (an option offered to organisers)."""
    root, task = platform
    gold = ["FAVOR", "AGAINST"] * 39 + ["NONE", "AGAINST"]            # NONE: one item
    pd.DataFrame({"id": range(80), "label": gold}).to_csv(root / "input" / "ref" / "gold.tsv", sep="\t",
                                                        index=False)
    pd.DataFrame({"id": range(80), "label": gold[::-1]}).to_csv(root / "input" / "res" / "predictions.tsv",
                                                              sep="\t", index=False)
    assert main(["codabench", str(root / "input"), str(root / "out"), "--task-file", str(task)]) == 0
    err = capsys.readouterr().err
    lost = re.search(r"In ([\d,]+) of the 200 bootstrap resamples at least one gold class was absent", err)
    assert lost and 40 <= int(lost.group(1).replace(",", "")) <= 110 and "without NONE" in err
    task.write_text(task.read_text(encoding="utf-8") + 'bootstrap_strata = "gold"\n', encoding="utf-8")
    assert main(["codabench", str(root / "input"), str(root / "out2"), "--task-file", str(task)]) == 0
    err = capsys.readouterr().err
    assert "gold class was absent" not in err
    scores = _scores_json(root / "out2" / "scores.json")
    assert scores["macro_f1_lo"] <= scores["macro_f1"] <= scores["macro_f1_hi"]


def test_a_benchmark_file_refuses_bootstrap_strata(tmp_path):
    """Every key of a benchmark file is honoured or refused, never ignored."""
    from evalreport.errors import InputError
    from evalreport.inputs.benchmark import read_benchmark

    (tmp_path / "t" / "runs").mkdir(parents=True)
    (tmp_path / "t" / "gold.tsv").write_text("id\tlabel\n1\ta\n2\tb\n", encoding="utf-8")
    (tmp_path / "t" / "runs" / "s.tsv").write_text("id\tlabel\n1\ta\n2\tb\n", encoding="utf-8")
    bench = tmp_path / "bench.toml"
    bench.write_text('bootstrap_strata = "gold"\n[tasks.t]\ngold = "t/gold.tsv"\nruns = "t/runs"\n', encoding="utf-8")
    with pytest.raises(InputError, match="key 'bootstrap_strata' is not supported in a benchmark file"):
        read_benchmark(benchmark_file=bench)
