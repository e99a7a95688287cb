"""Plugin measures (``--plugin FILE.py``) and the ``evalreport.measures`` entry-point group.

The plugin of these tests declares the official measure of SemEval-2016 Task 6 (stance
detection): F_avg = (F1_FAVOR + F1_AGAINST) / 2, the mean F1 of the two stance classes, NONE left
out (Mohammad et al., 2016, "SemEval-2016 Task 6: Detecting Stance in Tweets", section 4,
"Evaluation"); checked against scikit-learn's ``f1_score(labels=[FAVOR, AGAINST], average="macro")``.
The entry point declares the balanced error rate, 1 - balanced accuracy (checked against
``sklearn.metrics.balanced_accuracy_score``).
"""
from __future__ import annotations

import hashlib
import json
import textwrap
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import balanced_accuracy_score, f1_score

from evalreport.cli import main
from evalreport.errors import InputError
from evalreport.measures import _core, get, plugins

STANCE_PLUGIN = '''
import numpy as np
from evalreport.measures import Measure, register


def favor_against_f1(C, ctx):
    """Mean F1 of the classes FAVOR and AGAINST (the first two of the class order)."""
    tp = np.diagonal(C, axis1=-2, axis2=-1)[..., :2]
    gold = C.sum(axis=-1)[..., :2]
    predicted = C.sum(axis=-2)[..., :2]
    f1 = ctx.div(2 * tp, gold + predicted, "no gold and no predicted items")
    return ctx.mean(f1)


register(Measure(id="stance_f_avg", label="F_avg (FAVOR, AGAINST)", fn=favor_against_f1,
                 source="Mohammad et al. 2016, SemEval-2016 Task 6, section 4",
                 formula="(F1_FAVOR + F1_AGAINST) / 2", range=(0.0, 1.0), higher_is_better=True))
'''

ENTRY_MODULE = '''
from evalreport.measures import Measure


def _ber(C, ctx):
    recall = ctx.div(C.diagonal(axis1=-2, axis2=-1), C.sum(axis=-1), "no gold items")
    return 1.0 - ctx.mean(recall)


def register():
    return Measure(id="ber_plugin", label="Balanced error rate", fn=_ber, source="1 - balanced accuracy",
                   formula="1 - (1/K) sum_i c_ii / a_i", range=(0.0, 1.0), higher_is_better=False)
'''

LABELS = ["FAVOR", "AGAINST", "NONE"]
RNG = np.random.default_rng(12)
GOLD = RNG.choice(LABELS, size=60, p=[0.3, 0.5, 0.2])
PREDS = {"alpha": np.where(RNG.random(60) < 0.7, GOLD, RNG.choice(LABELS, size=60)),
         "beta": np.where(RNG.random(60) < 0.4, GOLD, RNG.choice(LABELS, size=60))}


@pytest.fixture(autouse=True)
def _builtin_registry_only(clean_registry):
    """Each test starts and ends with the built-in registry (conftest's ``clean_registry``)."""
    yield


@pytest.fixture
def data(tmp_path):
    (tmp_path / "runs").mkdir()
    pd.DataFrame({"id": range(60), "label": GOLD}).to_csv(tmp_path / "gold.tsv", sep="\t", index=False)
    for name, pred in PREDS.items():
        pd.DataFrame({"id": range(60), "label": pred}).to_csv(tmp_path / "runs" / f"{name}.tsv", sep="\t", index=False)
    plugin = tmp_path / "stance.py"
    plugin.write_text(STANCE_PLUGIN, encoding="utf-8")
    return tmp_path, plugin


@pytest.fixture
def entry_point(tmp_path, monkeypatch):
    """A tiny installed distribution: a .dist-info folder with entry_points.txt on sys.path (and on
    PYTHONPATH, for the report's notebook kernels)."""
    site = tmp_path / "site"
    dist = site / "evr_plugin_demo-1.0.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: evr-plugin-demo\nVersion: 1.0\n", encoding="utf-8")
    (dist / "entry_points.txt").write_text("[evalreport.measures]\nber = evr_plugin_demo:register\n",
                                           encoding="utf-8")
    (site / "evr_plugin_demo.py").write_text(ENTRY_MODULE, encoding="utf-8")
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.setenv("PYTHONPATH", str(site))
    return site


def _base(folder):
    return [str(folder / "gold.tsv"), "--runs-dir", str(folder / "runs"), "--labels", ",".join(LABELS)]


def _csv(capsys) -> pd.DataFrame:
    import io

    return pd.read_csv(io.StringIO(capsys.readouterr().out))


def test_plugin_measure_scores_like_scikit_learn(data, capsys):
    folder, plugin = data
    assert main(["score", *_base(folder), "--plugin", str(plugin), "--measures", "stance_f_avg",
                 "--format", "csv"]) == 0
    frame = _csv(capsys).set_index("system")
    for name, pred in PREDS.items():
        expected = f1_score(GOLD, pred, labels=["FAVOR", "AGAINST"], average="macro")
        assert frame.loc[name, "value"] == pytest.approx(expected, abs=1e-12)


def test_plugin_measure_is_ranked_bootstrapped_calibrated_and_baselined(data, tmp_path, capsys):
    folder, plugin = data
    out = tmp_path / "cmp"
    assert main(["compare", *_base(folder), "--plugin", str(plugin), "--primary", "stance_f_avg",
                 "--measures", "stance_f_avg,accuracy", "--bootstrap", "200", "--out", str(out),
                 "--no-progress", "--format", "csv"]) == 0
    board = pd.read_csv(out / "leaderboard.csv")
    assert set(board["measure"]) == {"stance_f_avg"} and list(board["system"]) == ["alpha", "beta"]
    intervals = pd.read_csv(out / "intervals.csv").query("measure == 'stance_f_avg'")
    assert len(intervals) == 2 and np.isfinite(intervals[["lo", "hi"]].to_numpy()).all()
    assert (intervals["lo"] <= intervals["value"]).all() and (intervals["value"] <= intervals["hi"]).all()
    scores = pd.read_csv(out / "scores.csv").query("measure == 'stance_f_avg'")
    assert set(scores["calibrated"]) == {True, False}
    assert "stance_f_avg" in set(pd.read_csv(out / "baselines.csv")["measure"])


def test_plugin_measure_is_audited_and_listed(data, capsys):
    folder, plugin = data
    assert main(["audit", "--plugin", str(plugin), "--measures", "stance_f_avg", "--max-n", "4",
                 "--classes", "3", "--format", "csv"]) == 0
    audit = _csv(capsys)
    assert set(audit["measure"]) == {"stance_f_avg"} and len(audit) > 5
    assert set(audit["verdict"]) <= {"satisfied", "violated", "n/a"} and "satisfied" in set(audit["verdict"])
    assert main(["measures", "stance_*", "--plugin", str(plugin), "--format", "csv"]) == 0
    catalogue = _csv(capsys)
    assert list(catalogue["id"]) == ["stance_f_avg"]
    assert catalogue.loc[0, "source"].startswith("Mohammad et al. 2016")


def test_loading_twice_is_harmless(data):
    _, plugin = data
    assert plugins.load_plugin(plugin) == ["stance_f_avg"]
    first = _core.REGISTRY["stance_f_avg"]
    assert plugins.load_plugin(plugin) == ["stance_f_avg"]
    assert plugins.load_plugin(str(plugin.parent / "." / plugin.name)) == ["stance_f_avg"]
    assert _core.REGISTRY["stance_f_avg"] is first
    assert plugins.LOADED[str(plugin.resolve())][0] == hashlib.sha256(plugin.read_bytes()).hexdigest()


def test_builtin_measures_are_not_wrapped(data):
    _, plugin = data
    plugins.load_plugin(plugin)
    assert get("stance_f_avg").fn.__evalreport_plugin__ == str(plugin.resolve())
    assert not any(hasattr(m.fn, "__evalreport_plugin__") for i, m in _core.REGISTRY.items() if i != "stance_f_avg")


@pytest.mark.parametrize("source, line, problem", [
    (None, None, "plugin file not found"),
    ("import numpy\n\ndef f(:\n    pass\n", 3, "syntax error in plugin"),
    ("x = 1\nraise RuntimeError('broken on purpose')\n", 2, "plugin raised RuntimeError at import: broken on purpose"),
    ("import sys\nsys.exit(3)\n", 2, "plugin raised SystemExit at import"),
])
def test_a_bad_plugin_file_is_one_error_naming_file_and_line(tmp_path, capsys, source, line, problem):
    path = tmp_path / "bad_plugin.py"
    if source is not None:
        path.write_text(source, encoding="utf-8")
    with pytest.raises(InputError) as err:
        plugins.load_plugin(path)
    assert err.value.path == str(path) and err.value.line == line and problem in err.value.problem
    assert main(["measures", "--plugin", str(path)]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"evalreport: error: {path}") and problem in lines[0]


@pytest.mark.parametrize("ident", ["macro_f1", "f1_macro", "MCC"])
def test_a_plugin_cannot_replace_a_builtin_or_alias_id(tmp_path, ident):
    path = tmp_path / "evil.py"
    path.write_text(textwrap.dedent(f'''
        from evalreport.measures import Measure, register
        register(Measure(id="evil_first", label="x", fn=lambda C, ctx: C.sum(axis=(-2, -1))))
        register(Measure(id={ident.lower()!r}, label="x", fn=lambda C, ctx: C.sum(axis=(-2, -1))))
        '''), encoding="utf-8")
    before = dict(_core.REGISTRY)
    with pytest.raises(InputError) as err:
        plugins.load_plugin(path)
    assert err.value.path == str(path)
    assert f"{ident.lower()!r} is already registered" in err.value.problem and "cannot replace" in err.value.problem
    # nothing half-registered: the first, valid, measure of the failed file is gone too
    assert _core.REGISTRY == before and "evil_first" not in _core.REGISTRY


def test_an_exception_inside_a_measure_names_plugin_and_measure(data, tmp_path, capsys):
    folder, _ = data
    path = tmp_path / "crash.py"
    path.write_text(textwrap.dedent('''
        from evalreport.measures import Measure, register

        def boom(C, ctx):
            raise ZeroDivisionError("my own bug")

        register(Measure(id="crashes", label="Crashes", fn=boom))
        '''), encoding="utf-8")
    assert main(["score", *_base(folder), "--plugin", str(path), "--measures", "crashes"]) == 2
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and captured.out == ""
    assert str(path.resolve()) in lines[0] and "'crashes'" in lines[0] and "ZeroDivisionError: my own bug" in lines[0]


def test_entry_point_measure_flows_through_score_and_compare(data, entry_point, tmp_path, capsys):
    folder, _ = data
    assert main(["score", *_base(folder), "--measures", "ber_plugin", "--format", "csv"]) == 0
    frame = _csv(capsys).set_index("system")
    for name, pred in PREDS.items():
        assert frame.loc[name, "value"] == pytest.approx(1 - balanced_accuracy_score(GOLD, pred), abs=1e-12)
    assert plugins.ORIGINS["ber_plugin"].startswith("entry point ber (evr_plugin_demo:register")
    assert plugins.load_entry_points() == ["ber_plugin"]          # loading again: the same, no error
    out = tmp_path / "cmp"
    assert main(["compare", *_base(folder), "--primary", "ber_plugin", "--bootstrap", "100", "--out", str(out),
                 "--no-progress", "--format", "csv"]) == 0
    board = pd.read_csv(out / "leaderboard.csv")
    # lower is better: the better system (lower error) ranks first
    assert board.loc[board["rank"] == 1, "system"].item() == "alpha"
    assert board.set_index("system").loc["alpha", "value"] < board.set_index("system").loc["beta", "value"]


@pytest.mark.slow
def test_report_with_a_plugin_primary_measure_renders(data, entry_point, tmp_path, capsys):
    """The notebook kernels load the plugin (a notebook parameter) and the entry point, so the
    sections that look measures up by id know them; the plugin is an input with its SHA-256."""
    folder, plugin = data
    out = tmp_path / "rep"
    code = main(["report", *_base(folder), "--plugin", str(plugin), "--primary", "stance_f_avg",
                 "--measures", "stance_f_avg,ber_plugin,accuracy,macro_f1", "--bootstrap", "50", "--no-audit",
                 "--formats", "html", "--quiet", "-o", str(out)])
    assert code == 0, capsys.readouterr().err
    html = (out / "report.html").read_text(encoding="utf-8")
    assert "F_avg (FAVOR, AGAINST)" in html
    inputs = pd.read_csv(out / "tables" / "inputs.csv")
    row = inputs[inputs["role"] == "plugin"]
    assert row["path"].tolist() == [str(plugin)]
    assert row["sha256"].item() == hashlib.sha256(plugin.read_bytes()).hexdigest()
    definitions = pd.read_csv(out / "tables" / "measures.csv").set_index("id")
    assert definitions.loc["stance_f_avg", "formula"] == "(F1_FAVOR + F1_AGAINST) / 2"
    assert "ber_plugin" in definitions.index
    assert pd.read_csv(out / "tables" / "leaderboard.csv")["measure"].unique().tolist() == ["stance_f_avg"]
    meta = json.loads((out / "tables" / "report.json").read_text(encoding="utf-8"))
    assert meta["primary"] == "stance_f_avg"
    assert any(i["role"] == "plugin" for i in meta["provenance"]["inputs"])
    # the installed entry point: by distribution name and version (no file, no hash)
    assert inputs.loc[inputs["role"] == "entry-point", "path"].tolist() == [ENTRY_POINT_ROW]
    assert "evr-plugin-demo==1.0" in html
    notebook = json.loads((out / "notebooks" / "report.ipynb").read_text(encoding="utf-8"))
    injected = [c for c in notebook["cells"] if "injected-parameters" in c["metadata"].get("tags", [])]
    assert str(plugin.resolve()) in "".join(injected[0]["source"])


ENTRY_POINT_ROW = "evr-plugin-demo==1.0 (entry point ber = evr_plugin_demo:register)"


def test_appendix_records_task_file_plugin_and_entry_point_among_its_inputs(data, entry_point, tmp_path, capsys):
    """``appendix`` records what decides its numbers besides the data, as ``report`` does: the task
    file and the plugin file with their SHA-256, the entry point by distribution name and version."""
    folder, plugin = data
    task = folder / "task.toml"
    task.write_text('primary = "stance_f_avg"\nmeasures = ["stance_f_avg", "ber_plugin", "accuracy"]\n'
                    'labels = ["FAVOR", "AGAINST", "NONE"]\nplugins = ["stance.py"]\nbootstrap = 40\n',
                    encoding="utf-8")
    out = tmp_path / "app"
    code = main(["appendix", str(folder / "gold.tsv"), "--runs-dir", str(folder / "runs"), "--task-file", str(task),
                 "--no-audit", "--quiet", "-o", str(out)])
    assert code == 0, capsys.readouterr().err
    inputs = pd.read_csv(out / "data" / "inputs.csv", keep_default_na=False).set_index("role")
    assert inputs.loc["task-file", "sha256"] == hashlib.sha256(task.read_bytes()).hexdigest()
    assert Path(inputs.loc["plugin", "path"]).resolve() == plugin.resolve()
    assert inputs.loc["plugin", "sha256"] == hashlib.sha256(plugin.read_bytes()).hexdigest()
    assert inputs.loc["entry-point", "path"] == ENTRY_POINT_ROW and inputs.loc["entry-point", "sha256"] == ""
    assert {"gold", "run"} <= set(inputs.index)
    assert "F\\_avg (FAVOR, AGAINST)" in (out / "methods.tex").read_text(encoding="utf-8")


def test_an_entry_point_that_registers_nothing_is_not_an_input(tmp_path, monkeypatch):
    """Only entry points that added measures are recorded (an empty callable decides no number)."""
    site = tmp_path / "site"
    dist = site / "evr_plugin_empty-2.0.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: evr-plugin-empty\nVersion: 2.0\n", encoding="utf-8")
    (dist / "entry_points.txt").write_text("[evalreport.measures]\nnone = evr_plugin_empty:nothing\n",
                                           encoding="utf-8")
    (site / "evr_plugin_empty.py").write_text("def nothing():\n    return []\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(site))
    assert plugins.load_entry_points() == []
    assert plugins.entry_point_sources() == []


# ----------------------------------------------------------------------------- what a plugin returns

def _plugin(tmp_path, body: str, *, ident: str = "odd", value_range=(0.0, 1.0), before: str = "") -> Path:
    path = tmp_path / f"{ident}.py"
    path.write_text(textwrap.dedent(f'''
        import numpy as np
        from evalreport.measures import Measure, register
        {before}
        def fn(C, ctx):
            {body}

        register(Measure(id={ident!r}, label="Odd", fn=fn, range={value_range!r}))
        '''), encoding="utf-8")
    return path


@pytest.mark.parametrize("body, problem", [
    ("return np.zeros(3)", "returned an array of shape (3,); a measure function returns one value per confusion "
                           "matrix, an array of shape (2,)"),
    ("return [0.5] * 7", "returned an array of shape (7,)"),
    ("return 0.5", "returned one number; a measure function returns one value per confusion matrix"),
    ("return 'hello'", "returned the text 'hello', not numbers"),
    ("return None", "returned None, not numbers"),
    ("return np.full(C.shape[:-2], 'x', dtype=object)", "returned an ndarray, not numbers"),
    ("return np.full(C.shape[:-2], np.inf)", "returned inf; values must be finite numbers"),
    ("return np.array([0.5, -np.inf])[:C.shape[0]]", "returned -inf; values must be finite numbers"),
    ("return np.full(C.shape[:-2], 1.5)", "returned 1.5, outside its declared range [0, 1]"),
    ("return np.full(C.shape[:-2], -0.25)", "returned -0.25, outside its declared range [0, 1]"),
    ("raise ValueError('first line\\nevalreport: forged line')", "failed: ValueError: first line\ufffdevalreport: forged"),
])
def test_a_bad_result_is_one_error_naming_plugin_and_measure(data, tmp_path, capsys, body, problem):
    folder, _ = data
    path = _plugin(tmp_path, body)
    assert main(["score", *_base(folder), "--plugin", str(path), "--measures", "odd", "--format", "csv"]) == 2
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert captured.out == "" and len(lines) == 1 and "Traceback" not in captured.err
    assert lines[0].startswith(f"evalreport: error: plugin {path.resolve()}: measure 'odd' ") and problem in lines[0]


def test_a_result_on_the_edge_of_its_range_up_to_rounding_is_kept(data, tmp_path, capsys):
    folder, _ = data
    path = _plugin(tmp_path, "return np.full(C.shape[:-2], 1.0 + 1e-13)")
    assert main(["score", *_base(folder), "--plugin", str(path), "--measures", "odd", "--format", "csv"]) == 0
    assert (_csv(capsys)["value"] == 1.0 + 1e-13).all()


def test_nan_without_a_recorded_case_is_undefined_with_a_reason(data, tmp_path, capsys):
    """A NaN the plugin returned without the division helper is an undefined value whose reason says
    so; a NaN that ctx.div recorded keeps the reason the plugin gave."""
    folder, _ = data
    silent = _plugin(tmp_path, "return np.where(np.arange(C.shape[-3]) == 0, np.nan, 0.5)", ident="silent")
    told = _plugin(tmp_path, "return ctx.div(np.zeros(C.shape[:-2]), np.zeros(C.shape[:-2]), 'nothing to divide')",
                   ident="told")
    assert main(["score", *_base(folder), "--plugin", str(silent), "--plugin", str(told), "--measures",
                 "silent,told", "--format", "csv"]) == 0
    frame = _csv(capsys).set_index(["measure", "system"])
    assert frame.loc[("silent", "alpha"), "undefined"] and np.isnan(frame.loc[("silent", "alpha"), "value"])
    assert frame.loc[("silent", "alpha"), "reason"] == plugins.NO_VALUE == "the plugin returned no value"
    assert not frame.loc[("silent", "beta"), "undefined"] and frame.loc[("silent", "beta"), "value"] == 0.5
    assert frame.loc["told", "undefined"].all() and set(frame.loc["told", "reason"]) == {"nothing to divide"}


def test_nan_in_a_resampling_batch_is_undefined_too(tmp_path):
    """The same check on a batch of bootstrap resamples (shape (B, S)): only the NaN cells are flagged."""
    from evalreport.measures import compute

    plugins.load_plugin(_plugin(tmp_path, "return np.where(C[..., 0, 0] > 1, 0.5, np.nan)", ident="batchy"))
    C = np.zeros((4, 2, 3, 3))
    C[..., 1, 1] = 3
    C[1, 0, 0, 0] = C[3, 1, 0, 0] = 2
    res = compute("batchy", C)
    assert res.value.shape == (4, 2) and (res.undefined == np.isnan(res.value)).all()
    assert res.undefined.sum() == 6 and set(res.reason[res.undefined]) == {plugins.NO_VALUE}


def test_a_range_that_is_no_two_numbers_is_refused_when_the_plugin_loads(tmp_path):
    path = _plugin(tmp_path, "return np.zeros(C.shape[:-2])", value_range=(0.0, "high"))
    with pytest.raises(InputError) as err:
        plugins.load_plugin(path)
    assert err.value.path == str(path) and "measure 'odd' declares range=(0.0, 'high')" in err.value.problem
    assert "odd" not in _core.REGISTRY


def test_a_plugin_that_prints_leaves_the_csv_on_stdout_clean(data, tmp_path, capsys):
    """Prints at import and inside the measure go to stderr: stdout is the table alone."""
    folder, _ = data
    path = _plugin(tmp_path, "print('computing', C.shape)\n            return np.full(C.shape[:-2], 0.5)",
                   ident="chatty", before="print('loading the chatty plugin')")
    assert main(["score", *_base(folder), "--plugin", str(path), "--measures", "chatty", "--format", "csv"]) == 0
    captured = capsys.readouterr()
    assert captured.out.splitlines() == ["system,measure,value,undefined,reason", "alpha,chatty,0.5,False,",
                                         "beta,chatty,0.5,False,"]
    assert "loading the chatty plugin" in captured.err and "computing (2, 3, 3)" in captured.err
    assert main(["score", *_base(folder), "--plugin", str(path), "--measures", "chatty", "--format", "json"]) == 0
    assert [r["value"] for r in json.loads(capsys.readouterr().out)] == [0.5, 0.5]


# ----------------------------------------------------------------------------- in the Codabench scorer

def _platform(root: Path, pred) -> Path:
    ref, res = root / "input" / "ref", root / "input" / "res"
    ref.mkdir(parents=True)
    res.mkdir()
    pd.DataFrame({"id": range(60), "label": GOLD}).to_csv(ref / "gold.tsv", sep="\t", index=False)
    pd.DataFrame({"id": range(60), "label": pred}).to_csv(res / "predictions.tsv", sep="\t", index=False)
    return root / "input"


@pytest.mark.parametrize("body, problem", [
    # scoring the reference against itself works (no errors); the submission's first error raises
    ("if (C.sum(axis=(-2, -1)) - np.trace(C, axis1=-2, axis2=-1) > 0).any():\n"
     "                raise KeyError('NONE')\n"
     "            return np.full(C.shape[:-2], 0.5)", "measure 'odd' failed: KeyError: 'NONE'"),
    ("return np.zeros(3)", "measure 'odd' returned an array of shape (3,)"),
    ("return 'bad'", "measure 'odd' returned the text 'bad', not numbers"),
    ("return np.full(C.shape[:-2], 7.0)", "measure 'odd' returned 7, outside its declared range [0, 1]"),
])
def test_a_failing_plugin_measure_in_the_scorer_is_the_organisers_error(tmp_path, capsys, body, problem):
    """Exit status 3 with the plugin and the measure named, whether the plugin fails on the reference
    or only on a submission: never blamed on the participant (exit 2, "submission error")."""
    from evalreport.report.codabench import ORGANISER

    path = _plugin(tmp_path, body)
    folder = _platform(tmp_path, PREDS["alpha"])
    out = tmp_path / "out"
    assert main(["codabench", str(folder), str(out), "--plugin", str(path), "--primary", "odd",
                 "--labels", ",".join(LABELS), "--bootstrap", "20"]) == 3
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in captured.err and "submission error" not in lines[0]
    assert lines[0].startswith(f"evalreport: error: {ORGANISER}: plugin {path.resolve()}: ") and problem in lines[0]
    assert not (out / "scores.json").exists()
