"""The compare verb (analyses.compare) and ``evalreport compare`` end to end on tiny files."""
import dataclasses
import io
import json
from contextlib import redirect_stdout

import pandas as pd
import pytest
from conftest import make_runs, write_labels, write_run_files

from evalreport.analyses.compare import COMPARE_MEASURES, TABLES, Comparison, compare
from evalreport.cli import main
from evalreport.counts import count
from evalreport.measures import REGISTRY, get
from evalreport.report.write import write_comparison

try:
    from evalreport.analyses import resampling  # noqa: F401
    HAVE_RESAMPLING = True
except ImportError:
    HAVE_RESAMPLING = False

# the columns every file in --out DIR has at least (part of the interface, see the README)
REQUIRED = {
    "scores": ["system", "measure", "value", "calibrated"],
    "ranks": ["system", "measure", "rank", "calibrated"],
    "rank_correlation": ["measure_a", "measure_b", "method", "value"],
    "intervals": ["system", "measure", "value", "lo", "hi"],
    "rank_distribution": ["system", "measure", "rank", "probability"],
    "pairwise": ["system_a", "system_b", "measure", "test", "p_value", "p_holm", "p_bh"],
    "baselines": ["measure", "baseline", "value"],
    "disagreements": ["measure_a", "measure_b", "system_a", "system_b"],
}

LABELS = ("a", "b", "c")
GOLD = list("aabbccabcaab")
PREDS = {"strong": list("aabbccabcaaa"), "weak": list("abbacbabcbab"), "twin": list("aabbccabcaaa")}


def test_default_measures_exist_in_registry():
    measures = [get(m) for m in COMPARE_MEASURES]
    assert all(m.alias_of in (None, *REGISTRY) for m in measures)
    # one id per quantity: balanced_accuracy is macro_recall (Opitz 2022, eq. 14-16), micro_f1 is accuracy
    assert len({m.alias_of or m.id for m in measures}) == len(COMPARE_MEASURES)


def test_compare_without_resampling_tables_and_columns():
    c = compare(make_runs(GOLD, PREDS, LABELS), bootstrap=0)
    assert isinstance(c, Comparison)
    for name, cols in REQUIRED.items():
        assert set(cols) <= set(getattr(c, name).columns), name
    assert c.primary == "macro_f1" and c.measures[0] == "macro_f1"
    assert set(c.scores["calibrated"]) == {True, False} and set(c.ranks["calibrated"]) == {True, False}
    assert len(c.scores) == 2 * 3 * len(c.measures)
    # the identical systems tie under every measure, raw and calibrated
    r = c.ranks.set_index(["measure", "calibrated", "system"])["rank"]
    for m in c.measures:
        for cal in (False, True):
            assert r[(m, cal, "strong")] == r[(m, cal, "twin")]
    board = c.leaderboard
    assert board["system"].tolist()[:2] in (["strong", "twin"], ["twin", "strong"])
    assert (board["rank"].iloc[:2] == 1.5).all() and board["system"].iloc[2] == "weak"
    assert any("bootstrap = 0" in n for n in c.notes)
    assert c.intervals.empty and list(c.intervals.columns) == REQUIRED["intervals"]
    # twins never disagree with each other and are never discordant
    assert not ((c.disagreements.system_a == "strong") & (c.disagreements.system_b == "twin")).any()


def test_compare_confusion_input_says_intervals_unavailable():
    counts = count(make_runs(GOLD, PREDS, LABELS))
    c = compare(counts, bootstrap=100)
    assert c.intervals.empty and c.pairwise.empty
    assert any("confusion-matrix input" in n for n in c.notes)
    assert not c.baselines.empty


@pytest.mark.skipif(not HAVE_RESAMPLING, reason="evalreport.analyses.resampling not available")
def test_compare_with_resampling_identical_systems_p_is_one():
    c = compare(make_runs(GOLD, PREDS, LABELS), bootstrap=200, seed=1)
    pw = c.pairwise
    twins = pw[((pw.system_a == "strong") & (pw.system_b == "twin")) | ((pw.system_a == "twin") &
                                                                         (pw.system_b == "strong"))]
    assert len(twins) and (twins["p_value"] == 1).all()
    g = c.groups.set_index("system")["group"]
    assert g["strong"] == g["twin"]
    iv = c.intervals[c.intervals.measure == "macro_f1"].set_index("system")
    assert (iv["lo"] <= iv["value"]).all() and (iv["value"] <= iv["hi"]).all()
    board = c.leaderboard.set_index("system")
    assert board.loc["strong", "lo"] == iv.loc["strong", "lo"]
    assert board["p_best"].sum() == pytest.approx(1.0)


def test_relabelling_systems_permutes_compare():
    a = compare(make_runs(GOLD, PREDS, LABELS), bootstrap=0)
    b = compare(make_runs(GOLD, {s: PREDS[s] for s in ("twin", "weak", "strong")}, LABELS), bootstrap=0)
    for name in ("scores", "ranks"):
        fa = getattr(a, name).sort_values(["measure", "calibrated", "system"]).reset_index(drop=True)
        fb = getattr(b, name).sort_values(["measure", "calibrated", "system"]).reset_index(drop=True)
        pd.testing.assert_frame_equal(fa, fb)
    pd.testing.assert_frame_equal(a.rank_correlation, b.rank_correlation)
    pd.testing.assert_frame_equal(a.inconsistency, b.inconsistency)
    pd.testing.assert_frame_equal(a.baselines, b.baselines)


def test_write_comparison_writes_csv_and_json_atomically(tmp_path):
    c = compare(make_runs(GOLD, PREDS, LABELS), bootstrap=0)
    out = write_comparison(c, tmp_path / "cmp")
    for name in TABLES:
        csv = pd.read_csv(out / f"{name}.csv")
        with open(out / f"{name}.json") as fh:
            records = json.load(fh)
        assert len(records) == len(getattr(c, name)) == len(csv)
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["primary"] == "macro_f1" and manifest["notes"] == list(c.notes)
    # overwrite an existing folder
    (out / "stale.txt").write_text("old")
    write_comparison(c, out)
    assert not (out / "stale.txt").exists()
    # a failure while writing leaves nothing behind
    broken = dataclasses.replace(c, leaderboard=object())
    with pytest.raises(Exception):  # noqa: B017  (any failure: what matters is that nothing is left behind)
        write_comparison(broken, tmp_path / "never")
    assert not (tmp_path / "never").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cmp"]


# ----------------------------------------------------------------------------- CLI


@pytest.fixture
def files(tmp_path):
    gold, runs = write_run_files(tmp_path, GOLD, PREDS)
    return tmp_path, gold, runs


def test_cli_end_to_end_writes_tables(files, capsys):
    tmp, gold, runs = files
    out = tmp / "out"
    rc = main(["compare", str(gold), *map(str, runs), "--bootstrap", "100", "--seed", "3", "--out", str(out),
               "--format", "csv", "--no-progress"])
    assert rc == 0
    printed = capsys.readouterr()
    board = pd.read_csv(pd.io.common.StringIO(printed.out))
    assert {"rank", "system", "value", "lo", "hi", "group"} <= set(board.columns)
    assert set(board["system"]) == {"strong", "weak", "twin"}
    for name, cols in REQUIRED.items():
        frame = pd.read_csv(out / f"{name}.csv")
        assert set(cols) <= set(frame.columns), name
        assert (out / f"{name}.json").exists()
    scores = pd.read_csv(out / "scores.csv")
    assert set(scores["calibrated"]) == {True, False}
    if HAVE_RESAMPLING:
        assert len(pd.read_csv(out / "intervals.csv")) > 0


def test_cli_table_format_and_primary(files, capsys):
    tmp, gold, runs = files
    rc = main(["compare", str(gold), *map(str, runs), "--bootstrap", "0", "--primary", "mcc",
               "--measures", "accuracy,kappa"])
    assert rc == 0
    out = capsys.readouterr()
    assert "evalreport compare: mcc" in out.out and "weak" in out.out
    assert "bootstrap = 0" in out.err


def test_cli_confusion_input_notes_no_intervals(tmp_path, capsys):
    conf = tmp_path / "sys1.csv"
    conf.write_text("gold,a,b\na,5,1\nb,2,4\n")
    conf2 = tmp_path / "sys2.csv"
    conf2.write_text("gold,a,b\na,3,3\nb,1,5\n")
    rc = main(["compare", "--confusion", str(conf), "--confusion", str(conf2), "--out", str(tmp_path / "o"),
               "--format", "json"])
    assert rc == 0
    captured = capsys.readouterr()
    assert len(json.loads(captured.out)) == 2
    assert "not available" in captured.err
    assert pd.read_csv(tmp_path / "o" / "intervals.csv").empty


@pytest.mark.parametrize("extra", [["--primary", "no_such_measure"], ["--bootstrap", "-1"], ["--alpha", "1.5"],
                                   ["--measures", "accuracy,nonsense"]])
def test_cli_bad_arguments_exit_2_without_output(files, extra, capsys):
    tmp, gold, runs = files
    rc = main(["compare", str(gold), *map(str, runs), "--out", str(tmp / "out"), *extra])
    assert rc == 2
    assert "error" in capsys.readouterr().err
    assert not (tmp / "out").exists()


def test_cli_bad_input_exit_2_without_output(files, capsys):
    tmp, gold, runs = files
    bad = write_labels(tmp / "bad.tsv", GOLD[:-2])                    # items missing from the run
    rc = main(["compare", str(gold), str(bad), str(runs[0]), "--out", str(tmp / "out")])
    assert rc == 2
    assert "error" in capsys.readouterr().err
    assert not (tmp / "out").exists()
    rc = main(["compare", str(gold), str(tmp / "missing.tsv"), "--out", str(tmp / "out")])
    assert rc == 2 and not (tmp / "out").exists()


def test_cli_binary_primary_needs_positive(files, capsys):
    tmp, gold, runs = files
    rc = main(["compare", str(gold), *map(str, runs), "--primary", "f1", "--bootstrap", "0",
               "--out", str(tmp / "out")])
    assert rc == 2 and not (tmp / "out").exists()
    rc = main(["compare", str(gold), *map(str, runs), "--primary", "f1", "--positive", "a", "--bootstrap", "0",
               "--format", "csv"])
    assert rc == 0
    assert "f1" in capsys.readouterr().out


def test_an_id_given_twice_or_an_alias_beside_its_record_is_one_measure():
    """f1_macro is macro_f1: two columns of one quantity would be counted twice in the rank
    correlations and inconsistency rates, so compare keeps the first id and says so."""
    comp = compare(make_runs(GOLD, PREDS, LABELS), measures=["macro_f1", "mcc", "MCC", "f1_macro"], primary="f1_macro",
                   bootstrap=0)
    assert comp.measures == ("f1_macro", "mcc")
    assert any("macro_f1 is f1_macro" in n for n in comp.notes)
    assert set(comp.rank_correlation.measure_a) <= {"f1_macro", "mcc", "f1_macro_c", "mcc_c"}   # _c: calibrated


def test_score_with_a_repeated_id(tmp_path):
    gold, run = tmp_path / "g.tsv", tmp_path / "s.tsv"
    gold.write_text("id\tlabel\n1\ta\n2\tb\n3\tb\n")
    run.write_text("id\tlabel\n1\ta\n2\tb\n3\ta\n")
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(["score", str(gold), str(run), "--measures", "mcc,MCC,macro_recall,balanced_accuracy",
                     "--format", "csv"]) == 0
    rows = pd.read_csv(io.StringIO(out.getvalue()))
    # the same id once; an alias asked for beside its record keeps both names (what the user asked)
    assert list(rows.measure) == ["mcc", "macro_recall", "balanced_accuracy"]
