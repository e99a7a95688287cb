"""Gain-matrix measures and ``--gains FILE``: reading, errors, properties, and the CLI
(score, compare, report) with a class-subset measure as the primary one."""
from __future__ import annotations

import json
import math
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from conftest import write, write_run_files
from hypothesis import given, settings, strategies as st
from hypothesis.extra.numpy import arrays

from evalreport import measures as M
from evalreport.cli import main
from evalreport.errors import InputError, MeasureError
from evalreport.inputs.costs import read_gains

CLASSES = ["FAVOR", "AGAINST", "NONE"]
GAINS = "gold,FAVOR,AGAINST,NONE\nFAVOR,1,0,0.25\nAGAINST,0,1,0.25\nNONE,-0.5,-0.5,0.5\n"


# --------------------------------------------------------------------------- reader


def test_read_gains_reorders_to_the_class_list(tmp_path):
    G = read_gains(write(tmp_path / "g.csv", GAINS), ["NONE", "FAVOR", "AGAINST"])
    np.testing.assert_array_equal(G, [[0.5, -0.5, -0.5], [0.25, 1, 0], [0.25, 0, 1]])
    tsv = write(tmp_path / "g.tsv", GAINS.replace(",", "\t"))
    np.testing.assert_array_equal(read_gains(tsv, CLASSES), read_gains(tmp_path / "g.csv", CLASSES))


@pytest.mark.parametrize("text, line, message", [
    ("gold,FAVOR,AGAINST\nFAVOR,1,0\nAGAINST,0,1\n", 1, "missing 'NONE'"),
    ("gold,FAVOR,AGAINST,NONE,OTHER\nFAVOR,1,0,0,0\n", 1, "unknown 'OTHER'"),
    ("gold,FAVOR,AGAINST,NONE\nFAVOR,1,0\n", 2, "expected 4 fields"),
    ("gold,FAVOR,AGAINST,NONE\nFAVOR,1,0,0\nFAVOR,1,0,0\n", 3, "two rows"),
    ("gold,FAVOR,AGAINST,NONE\nFAVOR,1,x,0\n", 2, "gain 'x' is not a number"),
    ("gold,FAVOR,AGAINST,NONE\nFAVOR,1,0,0\nAGAINST,nan,1,0\n", 3, "must be finite"),
    ("gold,FAVOR,AGAINST,NONE\nFAVOR,1,0,inf\n", 2, "must be finite"),
    ("gold,FAVOR,FAVOR,NONE\nFAVOR,1,0,0\n", 1, "repeat"),
])
def test_bad_gain_files_name_file_and_line(tmp_path, text, line, message):
    path = write(tmp_path / "gains.csv", text)
    with pytest.raises(InputError) as err:
        read_gains(path, CLASSES)
    assert err.value.path == str(path) and err.value.line == line and message in str(err.value)
    assert str(err.value).startswith(f"{path}, line {line}: ")


def test_missing_rows_missing_file_and_folder(tmp_path):
    path = write(tmp_path / "gains.csv", "gold,FAVOR,AGAINST,NONE\nFAVOR,1,0,0\n")
    with pytest.raises(InputError, match="row names must name every class.*missing 'AGAINST', 'NONE'"):
        read_gains(path, CLASSES)
    with pytest.raises(InputError, match="gain matrix file not found"):
        read_gains(tmp_path / "nope.csv", CLASSES)
    with pytest.raises(InputError, match="not a regular file"):
        read_gains(tmp_path, CLASSES)


def test_gains_may_be_negative_and_the_diagonal_is_free(tmp_path):
    """Unlike costs (Sebastiani 2015, section 6: Delta(c, c) = 0, Delta >= 0) a gain is any finite number."""
    G = read_gains(write(tmp_path / "g.csv", GAINS), CLASSES)
    assert G[2, 0] == -0.5 and G[2, 2] == 0.5


# --------------------------------------------------------------------------- the measures


def test_values_by_hand():
    """sum_ij c_ij G_ij, its mean per item, and its share of sum_i a_i max_j G_ij, worked out by hand."""
    C = np.array([[3, 1, 0], [0, 2, 2], [1, 0, 1.]])
    G = np.array([[1, 0, 0.25], [0, 1, 0.25], [-0.5, -0.5, 0.5]])
    # total: 3 + 2 + 2*0.25 - 0.5 + 0.5 = 5.5; best: 4*1 + 4*1 + 2*0.5 = 9
    assert float(M.compute("gain_total", C, gains=G).value) == pytest.approx(5.5)
    assert float(M.compute("gain_mean", C, gains=G).value) == pytest.approx(5.5 / 10)
    assert float(M.compute("gain_relative", C, gains=G).value) == pytest.approx(5.5 / 9)


def test_best_attainable_not_positive_is_undefined_with_a_reason():
    C = np.array([[2, 1], [0, 3.]])
    r = M.compute("gain_relative", C, gains=-np.ones((2, 2)))
    assert math.isnan(float(r.value)) and bool(r.undefined) and "best attainable" in str(r.reason)
    assert float(M.compute("gain_relative", C, gains=-np.ones((2, 2)), policy="zero").value) == 0.0
    r = M.compute("gain_mean", np.zeros((2, 2)), gains=np.eye(2))
    assert math.isnan(float(r.value)) and bool(r.undefined)


def test_a_gain_measure_without_gains_is_an_error():
    with pytest.raises(MeasureError, match="gain matrix"):
        M.compute("gain_relative", np.eye(2))
    ok, why = M.applicable("gain_total")
    assert not ok and "--gains" in why


@st.composite
def _case(draw):
    K = draw(st.integers(2, 5))
    C = draw(arrays(np.int64, (3, K, K), elements=st.integers(0, 8))).astype(float)
    G = draw(arrays(np.float64, (K, K), elements=st.floats(-2, 3, allow_nan=False).map(lambda x: round(x, 3))))
    perm = draw(st.permutations(range(K)))
    return C, G, np.asarray(perm)


@settings(max_examples=40, deadline=None)
@given(case=_case(), factor=st.integers(2, 5))
def test_gain_properties(case, factor):
    """Permuting the classes of C and G together changes nothing; scaling every count scales the
    total and leaves the mean and the relative gain alone; the relative gain is at most 1."""
    C, G, perm = case
    Cp, Gp = C[:, perm][:, :, perm], G[np.ix_(perm, perm)]
    for m in ("gain_total", "gain_mean", "gain_relative"):
        a = M.compute(m, C, gains=G).value
        np.testing.assert_allclose(M.compute(m, Cp, gains=Gp).value, a, rtol=1e-9, atol=1e-9, equal_nan=True)
        scaled = M.compute(m, factor * C, gains=G).value
        np.testing.assert_allclose(scaled, a * (factor if m == "gain_total" else 1), rtol=1e-9, atol=1e-9,
                                   equal_nan=True)
    rel = M.compute("gain_relative", C, gains=G).value
    assert np.all(np.isnan(rel) | (rel <= 1 + 1e-12))


def test_gain_measures_are_declared_once():
    for ident in ("gain_total", "gain_mean", "gain_relative"):
        m = M.get(ident)
        assert m.needs == ("gains",) and m.source and m.formula and m.undefined


def test_audit_of_subset_and_gain_measures_gives_computed_verdicts():
    """The audit has no class names: a subset average is audited over all classes but the last,
    a gain measure with the 0/1 gains where its own have another size (measures/subsets.py)."""
    from evalreport.analyses.audit import audit

    bound = M.bind("gain_relative", CLASSES, gains=np.eye(3) + 0.25)
    frame = audit(["macro_f1(classes=FAVOR|AGAINST)", "micro_f1(exclude=O)", bound], max_n=4)
    assert set(frame.measure) == {"macro_f1(classes=AGAINST|FAVOR)", "micro_f1(exclude=O)", "gain_relative"}
    assert frame.verdict.isin(["satisfied", "violated"]).all() and frame.verdict.eq("violated").any()
    # over two of three classes the subset average is not the plain one (K = 3: classes 0 and 1)
    C = np.array([[3, 1, 0], [0, 2, 2], [1, 0, 1.]])
    sub = M.compute(M.for_synthetic("macro_f1(classes=a|b)", 3), C).value
    assert float(sub) == pytest.approx(float(M.compute("macro_f1(classes=0|1)", C, labels=["0", "1", "2"]).value))


# --------------------------------------------------------------------------- CLI


@pytest.fixture
def stance(tmp_path):
    rng = np.random.default_rng(7)
    n = 120
    gold = rng.choice(CLASSES, size=n, p=[0.3, 0.5, 0.2])
    preds = {name: np.where(rng.random(n) < acc, gold, rng.choice(CLASSES, size=n))
             for name, acc in (("good", 0.8), ("fair", 0.6), ("poor", 0.4))}
    gold_path, runs = write_run_files(tmp_path, gold, preds, ids=[f"t{i}" for i in range(n)])
    return gold_path, runs, write(tmp_path / "gains.csv", GAINS), gold


def test_cli_score_with_a_subset_measure_and_gains(stance, capsys):
    from sklearn.metrics import f1_score

    gold_path, runs, gains, gold = stance
    code = main(["score", str(gold_path), *map(str, runs), "--measures",
                 "macro_f1(classes=FAVOR|AGAINST),gain_relative,gain_total", "--gains", str(gains), "--format", "json"])
    assert code == 0
    rows = json.loads(capsys.readouterr().out)
    got = {(r["system"], r["measure"]): r["value"] for r in rows}
    G = read_gains(gains, CLASSES)
    for run in runs:
        pred = pd.read_csv(run, sep="\t")["label"].to_numpy()
        want = f1_score(gold, pred, labels=["FAVOR", "AGAINST"], average="macro")
        assert got[(run.stem, "macro_f1(classes=AGAINST|FAVOR)")] == pytest.approx(want)
        idx = {c: i for i, c in enumerate(CLASSES)}
        total = sum(G[idx[g], idx[p]] for g, p in zip(gold, pred))
        best = sum(G[idx[g]].max() for g in gold)
        assert got[(run.stem, "gain_total")] == pytest.approx(total)
        assert got[(run.stem, "gain_relative")] == pytest.approx(total / best)


def test_cli_compare_bootstraps_a_subset_primary_with_gains(stance, tmp_path, capsys):
    gold_path, runs, gains, _ = stance
    out = tmp_path / "cmp"
    code = main(["compare", str(gold_path), *map(str, runs), "--primary", "macro_f1(classes=FAVOR|AGAINST)",
                 "--measures", "macro_f1,micro_f1(exclude=NONE),gain_relative", "--gains", str(gains),
                 "--bootstrap", "200", "--no-progress", "--format", "json", "--out", str(out)])
    assert code == 0, capsys.readouterr().err
    board = json.loads(capsys.readouterr().out)
    assert [r["system"] for r in board][0] == "good"
    assert all(r["measure"] == "macro_f1(classes=AGAINST|FAVOR)" and r["lo"] <= r["value"] <= r["hi"] for r in board)
    iv = pd.read_csv(out / "intervals.csv")
    assert {"macro_f1(classes=AGAINST|FAVOR)", "micro_f1(exclude=NONE)", "gain_relative"} <= set(iv.measure)
    assert (iv.lo <= iv.hi).all()
    pw = pd.read_csv(out / "pairwise.csv")
    assert len(pw) and pw.p_value.between(0, 1).all()
    base = pd.read_csv(out / "baselines.csv")
    assert base[base.measure == "gain_relative"].value.notna().any()
    assert base[base.measure == "macro_f1(classes=AGAINST|FAVOR)"].value.notna().any()
    scores = pd.read_csv(out / "scores.csv")
    assert scores[scores.calibrated & (scores.measure == "gain_relative")].value.notna().all()


@pytest.mark.parametrize("argv, message", [
    (["--measures", "macro_f1(classes=FAVOR|AGAINS)"], "'AGAINS'"),
    (["--measures", "gain_total"], "needs a gain matrix"),
])
def test_cli_bad_measures_exit_2(stance, capsys, argv, message):
    gold_path, runs, _, _ = stance
    assert main(["score", str(gold_path), *map(str, runs), *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


def test_cli_bad_gains_file_exits_2_naming_file_and_line(stance, tmp_path, capsys):
    gold_path, runs, _, _ = stance
    bad = write(tmp_path / "bad.csv", GAINS.replace("-0.5,-0.5", "-0.5,nan"))
    assert main(["score", str(gold_path), *map(str, runs), "--gains", str(bad), "--measures", "gain_mean"]) == 2
    assert f"{bad}, line 4:" in capsys.readouterr().err


@pytest.mark.slow
def test_report_with_a_subset_primary_and_gains(stance, tmp_path):
    gold_path, runs, gains, _ = stance
    out = tmp_path / "report"
    proc = subprocess.run([sys.executable, "-m", "evalreport", "report", str(gold_path), *map(str, runs), "-o", str(out),
                           "--primary", "macro_f1(classes=FAVOR|AGAINST)", "--gains", str(gains), "--formats", "html",
                           "--bootstrap", "100", "--quiet"], capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    html = (out / "report.html").read_text(encoding="utf-8")
    assert "over AGAINST, FAVOR" in html
    meta = json.loads((out / "tables" / "report.json").read_text())
    assert meta["primary"] == "macro_f1(classes=AGAINST|FAVOR)"
    recorded = {i["role"]: i for i in meta["provenance"]["inputs"]}
    assert recorded["gains"]["path"] == str(gains) and len(recorded["gains"]["sha256"]) == 64
    assert "gain_relative" in set(pd.read_csv(out / "tables" / "scores.csv").measure)


# --------------------------------------------------------------------------- analyses


def _runs(n_task=None, folds=False, seed=3):
    from evalreport.inputs import Runs

    rng = np.random.default_rng(seed)
    n = 90
    gold = rng.integers(0, 3, n)
    pred = np.stack([np.where(rng.random(n) < acc, gold, rng.integers(0, 3 if n_task is None else 4, n))
                     for acc in (0.8, 0.5)])
    labels = tuple(CLASSES) + (() if n_task is None else ("stray",))
    kw = dict(folds=np.arange(n) % 3, fold_names=("0", "1", "2")) if folds else {}
    return Runs(gold=gold, pred=pred, labels=labels, systems=("good", "poor"), n_task=n_task, **kw)


def test_cross_validation_of_subset_and_gain_measures():
    """Per-fold values of a bound subset / gain measure are its values on each fold's matrix."""
    from evalreport.analyses.crossval import cross_validate
    from evalreport.counts import Counts

    runs = _runs(folds=True)
    G = np.eye(3) + 0.25
    chosen = [M.bind("macro_f1(classes=FAVOR|AGAINST)", CLASSES), M.bind("gain_relative", CLASSES, gains=G)]
    est = cross_validate(runs, chosen).estimates
    T = np.asarray(Counts.from_runs(runs, per_fold=True).tensor)          # (S, F, K, K)
    for m in chosen:
        pooled = est[(est.measure == m.id) & (est.aggregation == "pooled")].set_index("system")["value"]
        want = M.compute(m, T.sum(axis=1)).value
        np.testing.assert_allclose(pooled.loc[["good", "poor"]].to_numpy(), want)
        mean = est[(est.measure == m.id) & (est.aggregation == "mean")].set_index("system")["value"]
        np.testing.assert_allclose(mean.loc[["good", "poor"]].to_numpy(), M.compute(m, T).value.mean(axis=1))


def test_fragility_and_baselines_of_a_subset_measure_with_a_prediction_only_class():
    """A class only in predictions (n_task = 3 of 4 labels): exclude= keeps it out of the chance
    baselines' task tables, and the fragility count runs on the subset measure."""
    from evalreport.analyses.baselines import baselines
    from evalreport.analyses.findings import fragility
    from evalreport.counts import Counts

    runs = _runs(n_task=3)
    counts = Counts.from_runs(runs)
    spec = "macro_f1(exclude=NONE)"
    base = baselines(counts, [spec], predictors=True)
    assert base.value.notna().all() and set(base.measure) == {"macro_f1(exclude=NONE)"}
    # the exact value of the trivial predictor that always says FAVOR: F1 of FAVOR, F1 of AGAINST = 0
    a = np.asarray(counts.tensor)[0].sum(axis=1)[:3]
    value = base.set_index("baseline")["value"]
    assert value["constant:FAVOR"] == pytest.approx((2 * a[0] / (a[0] + a.sum())) / 2)
    assert value["constant:NONE"] == 0.0          # NONE predicted always: no FAVOR or AGAINST item right
    frag = fragility(counts, spec, "good")
    assert list(frag.system) == ["poor"] and int(frag.moves.iloc[0]) >= 1


@pytest.mark.slow
def test_report_escapes_class_names_in_subset_labels(tmp_path):
    """Class names are data: in a subset measure's id and label the report escapes them (HTML)."""
    rng = np.random.default_rng(1)
    names, n = ["<b>FAV</b>", "A*G*", "NO_NE"], 90
    gold = rng.choice(names, size=n)
    ids = [f"t{i}" for i in range(n)]
    pd.DataFrame({"id": ids, "label": gold}).to_csv(tmp_path / "gold.tsv", sep="\t", index=False)
    for name, acc in (("s1", 0.8), ("s2", 0.5)):
        pred = np.where(rng.random(n) < acc, gold, rng.choice(names, size=n))
        pd.DataFrame({"id": ids, "label": pred}).to_csv(tmp_path / f"{name}.tsv", sep="\t", index=False)
    out = tmp_path / "report"
    proc = subprocess.run([sys.executable, "-m", "evalreport", "report", str(tmp_path / "gold.tsv"),
                           str(tmp_path / "s1.tsv"), str(tmp_path / "s2.tsv"), "-o", str(out), "--primary",
                           "macro_f1(classes=<b>FAV</b>|A*G*)", "--formats", "html", "--bootstrap", "50", "--quiet",
                           "--no-audit"], capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    html = (out / "report.html").read_text(encoding="utf-8")
    assert "over &lt;b&gt;FAV&lt;/b&gt;, A*G*" in html
    assert "<b>FAV" not in html and "A<em>G" not in html
