"""Several annotators: Krippendorff's alpha and Fleiss' kappa against the published worked examples,
reading the wide and long layouts (and their errors: one line, exit 2), and the per-annotator scores
end to end."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st

from evalreport.analyses.annotators import fleiss_kappa, krippendorff_alpha, pairwise_agreement
from evalreport.cli import main
from evalreport.errors import InputError
from evalreport.inputs.annotators import read_annotations
from evalreport.measures import compute

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

STANCE = Path(__file__).resolve().parent.parent / "examples" / "stance"
M = -1      # a missing value

# Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", section C: 4 observers, 12 units,
# values 1-5 with missing data; nominal alpha = 0.743
K2011_C = np.array([[1, 2, 3, 3, 2, 1, 4, 1, 2, M, M, M],
                    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, M, 3],
                    [M, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, M],
                    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, M]])
# Krippendorff (2011), section A: two observers, binary data, 10 units; alpha = 0.095
K2011_A = np.array([[0, 1, 0, 0, 0, 0, 0, 0, 1, 0],
                    [1, 1, 1, 0, 0, 1, 0, 0, 0, 0]])
# Fleiss (1971), Table 1: 30 patients, 6 psychiatrists, 5 diagnoses (1-5); kappa = 0.430
FLEISS_1971 = np.array([
    [4, 4, 4, 4, 4, 4], [2, 2, 2, 5, 5, 5], [2, 3, 3, 3, 3, 5], [5, 5, 5, 5, 5, 5], [2, 2, 2, 4, 4, 4],
    [1, 1, 3, 3, 3, 3], [3, 3, 3, 3, 5, 5], [1, 1, 3, 3, 3, 4], [1, 1, 4, 4, 4, 4], [5, 5, 5, 5, 5, 5],
    [1, 4, 4, 4, 4, 4], [1, 2, 4, 4, 4, 4], [2, 2, 2, 3, 3, 3], [1, 4, 4, 4, 4, 4], [2, 2, 4, 4, 4, 5],
    [3, 3, 3, 3, 3, 5], [1, 1, 1, 4, 5, 5], [1, 1, 1, 1, 1, 2], [2, 2, 4, 4, 4, 4], [1, 3, 3, 5, 5, 5],
    [5, 5, 5, 5, 5, 5], [2, 4, 4, 4, 4, 4], [2, 2, 4, 5, 5, 5], [1, 1, 4, 4, 4, 4], [1, 4, 4, 4, 4, 5],
    [2, 2, 2, 2, 2, 4], [1, 1, 1, 1, 5, 5], [2, 2, 4, 4, 4, 4], [1, 3, 3, 3, 3, 3], [5, 5, 5, 5, 5, 5]]).T


def test_krippendorff_2011_examples():
    codes = np.where(K2011_C > 0, K2011_C - 1, -1)
    assert round(krippendorff_alpha(codes, 5), 3) == 0.743
    assert round(krippendorff_alpha(K2011_A, 2), 3) == 0.095


def test_fleiss_1971_example():
    kappa, used = fleiss_kappa(FLEISS_1971 - 1, 5)
    assert used == 30 and round(kappa, 3) == 0.430


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 4), st.integers(0, 10_000))
def test_two_annotators_agree_with_known_statistics(K, seed):
    """Two complete annotators: Fleiss' kappa is Scott's pi (Fleiss 1971, section 2), and alpha follows
    from the coincidence matrix by hand (Krippendorff 2011, section A); full agreement gives 1 for both."""
    rng = np.random.default_rng(seed)
    N = int(rng.integers(4, 30))
    a = rng.integers(0, K, N)
    b = np.where(rng.random(N) < 0.6, a, rng.integers(0, K, N))
    codes = np.stack([a, b])
    # Scott's pi by hand
    p = np.bincount(np.concatenate([a, b]), minlength=K) / (2 * N)
    pe = (p ** 2).sum()
    po = (a == b).mean()
    kappa, _ = fleiss_kappa(codes, K)
    if pe < 1:
        assert np.isclose(kappa, (po - pe) / (1 - pe))
        # two coders, no missing values: D_o = 2N (1 - po), D_e = (2N)^2 - sum n_c^2
        n_c = p * 2 * N
        alpha = 1 - (2 * N - 1) * (1 - po) * 2 * N / ((2 * N) ** 2 - (n_c ** 2).sum())
        assert np.isclose(krippendorff_alpha(codes, K), alpha)
    same = np.stack([a, a, a])
    if len(set(a)) > 1:
        assert np.isclose(krippendorff_alpha(same, K), 1) and np.isclose(fleiss_kappa(same, K)[0], 1)
    assert pairwise_agreement(codes) == po


def _gold_files(tmp: Path) -> tuple[Path, Path]:
    gold = pd.read_csv(STANCE / "gold.tsv", sep="\t")
    rng = np.random.default_rng(0)
    labels = np.array(["AGAINST", "FAVOR", "NONE"])
    second = np.where(rng.random(len(gold)) < 0.8, gold["label"], labels[rng.integers(0, 3, len(gold))])
    third = np.where(rng.random(len(gold)) < 0.7, gold["label"], labels[rng.integers(0, 3, len(gold))])
    wide = pd.DataFrame({"id": gold["id"], "label_ann": gold["label"], "label_bo": second, "label_cy": third})
    wide.loc[3, "label_cy"] = ""
    wide.to_csv(tmp / "wide.tsv", sep="\t", index=False)
    long = wide.melt(id_vars="id", var_name="annotator", value_name="label")
    long["annotator"] = long["annotator"].str[len("label_"):]
    long = long[long["label"] != ""]
    long.to_csv(tmp / "long.csv", index=False)
    return tmp / "wide.tsv", tmp / "long.csv"


def test_wide_and_long_read_alike(tmp_path):
    wide, long = _gold_files(tmp_path)
    a, b = read_annotations(wide), read_annotations(long)
    assert a.annotators == b.annotators == ("ann", "bo", "cy")
    labels = ("AGAINST", "FAVOR", "NONE")
    order = [list(b.ids).index(i) for i in a.ids]
    assert (a.codes(labels) == b.codes(labels)[:, order]).all()
    assert a.codes(labels)[2, 3] == -1


@pytest.mark.parametrize("text, words", [
    ("id\tlabel_1\tlabel_2\nx\tA\tB\nx\tA\tA\n", "line 3: item 'x' has two rows"),
    ("id\tlabel_1\tlabel_2\nx\tA\tB\ny\t\t\n", "line 3: item 'y' has no label from any annotator"),
    ("id\tlabel_1\nx\tA\n", "one annotator column"),
    ("id,annotator,label\nx,a,A\nx,b,A\nx,a,B\n", "line 4: annotator 'a' labels item 'x' twice"),
    ("id\tlabel\nx\tA\n", "columns label_1, label_2"),
])
def test_bad_files(tmp_path, text, words):
    path = tmp_path / ("f.csv" if "," in text else "f.tsv")
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError, match=words.replace("(", r"\(")):
        read_annotations(path)


def test_cli_scores_every_annotator(tmp_path, capsys):
    wide, _ = _gold_files(tmp_path)
    out = tmp_path / "out"
    rc = main(["compare", str(STANCE / "gold.tsv"), "--runs-dir", str(STANCE / "runs"), "--bootstrap", "0",
               "--primary", "accuracy", "--annotators", str(wide), "--out", str(out), "--no-progress"])
    assert rc == 0
    agree = pd.read_csv(out / "agreement.csv").iloc[0]
    assert agree["annotators"] == 3 and agree["items"] == 300 and agree["fleiss_items"] == 299
    assert 0 < agree["krippendorff_alpha"] < 1
    scores = pd.read_csv(out / "annotators.csv")
    ann = scores[scores["annotator"] == "ann"].set_index("system")["value"]
    board = pd.read_csv(out / "scores.csv")
    acc = board[(board["measure"] == "accuracy") & ~board["calibrated"]].set_index("system")["value"]
    for system in acc.index:      # annotator "ann" is the gold file itself
        assert np.isclose(ann[system], acc[system])
    assert "annotator bo" in set(scores["system"])
    # an unknown label: one line, exit 2, nothing written
    bad = tmp_path / "bad.tsv"
    ids = pd.read_csv(STANCE / "gold.tsv", sep="\t")["id"][:3]
    bad.write_text("id\tlabel_1\tlabel_2\n" + "\n".join(f"{i}\tAGAINST\tMAYBE" for i in ids) + "\n")
    capsys.readouterr()
    rc = main(["compare", str(STANCE / "gold.tsv"), "--runs-dir", str(STANCE / "runs"), "--bootstrap", "0",
               "--annotators", str(bad), "--out", str(tmp_path / "o2")])
    err = capsys.readouterr().err
    assert rc == 2 and not (tmp_path / "o2").exists()
    assert "MAYBE" in err and str(bad) in err and len(err.strip().splitlines()) == 1


def test_accuracy_against_an_annotator_is_compute(tmp_path):
    wide, _ = _gold_files(tmp_path)
    ann = read_annotations(wide)
    codes = ann.codes(("AGAINST", "FAVOR", "NONE"))
    C = np.zeros((3, 3))
    np.add.at(C, (codes[0], codes[1]), 1)
    assert np.isclose(compute("accuracy", C).value, (codes[0] == codes[1]).mean())


def test_report_cells(tmp_path):
    from evalreport.analyses.compare import compare
    from evalreport.inputs.readers import read_runs
    from evalreport.report.display import Note, Table
    from evalreport.report.sections import open_report
    from evalreport.report.write import write_comparison

    wide, _ = _gold_files(tmp_path)
    runs = read_runs(STANCE / "gold.tsv", runs_dir=STANCE / "runs")
    comp = compare(runs, bootstrap=0, annotations=read_annotations(wide))
    write_comparison(comp, tmp_path / "t")
    rep = open_report(tmp_path / "t")
    note = rep.agreement_note()
    assert isinstance(note, Note) and "3 annotators on 300 items" in note.text
    table = rep.annotators_table()
    assert isinstance(table, Table) and list(table.df.columns) == ["vs ann", "vs bo", "vs cy"]
    assert list(table.df.index[:3]) == ["annotator ann", "annotator bo", "annotator cy"]
    assert np.isnan(table.df.loc["annotator bo", "vs bo"])
