"""Score-based measures out of core: DuckDB bins the scores (evalreport.counts.bigdata_scores) and the same
measure functions run on the histogram (evalreport.measures.score_histogram). The histogram values lie within
their stated bound of the exact in-memory values, and equal them where the scores have few distinct values."""
from __future__ import annotations

import io
import json
from contextlib import redirect_stderr, redirect_stdout

import numpy as np
import pandas as pd
import pytest

from evalreport.cli import main
from evalreport.counts.bigdata_scores import histogram_scores
from evalreport.counts.scores import score_counts
from evalreport.errors import InputError
from evalreport.inputs import read_runs
from evalreport.measures.score_histogram import HISTOGRAM_MEASURES, histogram_bound, histogram_columns
from evalreport.measures.scores import compute_scores

pytest.importorskip("duckdb")


def cli(*argv) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        rc = main([str(a) for a in argv])
    return rc, out.getvalue(), err.getvalue()


def make_files(tmp, *, seed: int, n: int = 1500):
    """Gold, one long run table with a ``score`` column, and the same runs as one file per system.

    Systems: a continuous score (every value distinct), a rounded score (ties, 101 values), a score of
    five values (heavy ties) and one whose scores barely depend on the gold class."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    ids = np.array([f"it{k:05d}" for k in rng.permutation(n)], dtype=object)
    labels = np.where(y == 1, "yes", "no")
    smooth = np.clip(0.35 * y + 0.65 * rng.beta(2, 2, n), 0, 1)
    scores = {"smooth": smooth, "rounded": np.round(smooth, 2), "five": rng.integers(0, 5, n) / 4.0,
              "noise": np.clip(0.02 * y + rng.random(n) * 0.98, 0, 1)}
    pd.DataFrame({"id": ids, "label": labels}).to_csv(tmp / "gold.csv", index=False)
    long, files = [], []
    for name, s in scores.items():
        frame = pd.DataFrame({"system": name, "id": ids, "label": np.where(s >= 0.5, "yes", "no"), "score": s})
        long.append(frame)
        path = tmp / f"{name}.tsv"
        frame.drop(columns="system").sample(frac=1.0, random_state=seed).to_csv(path, sep="\t", index=False,
                                                                                float_format="%.17g")
        files.append(path)
    pd.concat(long).sample(frac=1.0, random_state=seed).to_csv(tmp / "runs.csv", index=False, float_format="%.17g")
    return tmp / "gold.csv", tmp / "runs.csv", files, list(scores)


def exact_values(gold, files, names):
    """The in-memory values of every histogram measure: {(system, measure): value}."""
    runs = read_runs(gold, files, names=names, score_col="score")
    sc = score_counts(runs, positive=list(runs.labels).index("yes"))
    out = {}
    for m in HISTOGRAM_MEASURES:
        res = compute_scores(m, sc)
        for system, value in zip(sc.systems, res.value):
            out[system, m] = float(value)
    return out


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("bins", [64, 1024])
def test_histogram_within_bound_of_exact(tmp_path, seed, bins):
    gold, runs, files, names = make_files(tmp_path, seed=seed)
    exact = exact_values(gold, files, names)
    hist = histogram_scores(gold, runs, positive="yes", bins=bins)
    cols = histogram_columns(hist)
    assert list(dict.fromkeys(cols["measure"])) == list(HISTOGRAM_MEASURES)
    for system, m, value, bound in zip(cols["system"], cols["measure"], cols["value"], cols["bound"]):
        assert np.isfinite(bound) and bound >= 0
        assert abs(value - exact[system, m]) <= bound + 1e-12, (system, m, value, exact[system, m], bound)
        if system == "five":             # five distinct values: binned by them, exact
            assert bound == 0 and value == pytest.approx(exact[system, m], abs=1e-12)
    by = {(s, m): b for s, m, b in zip(cols["system"], cols["measure"], cols["bound"])}
    # the continuous system is binned (more distinct values than bins): its AUC loses the order inside a bin
    assert by["smooth", "roc_auc"] > 0
    assert dict(zip(hist.systems, hist.exact)) == {"smooth": False, "rounded": bins >= 101, "five": True,
                                                   "noise": False}


def test_few_distinct_values_are_exact(tmp_path):
    gold, runs, files, names = make_files(tmp_path, seed=4)
    exact = exact_values(gold, files, names)
    cols = histogram_columns(histogram_scores(gold, runs, positive="yes"))     # 2^14 bins: every system exact
    for system, m, value, bound in zip(cols["system"], cols["measure"], cols["value"], cols["bound"]):
        assert bound == 0
        assert value == pytest.approx(exact[system, m], abs=1e-12)


def test_bound_shrinks_with_finer_bins(tmp_path):
    gold, runs, _, _ = make_files(tmp_path, seed=5)
    coarse, fine = (histogram_scores(gold, runs, positive="yes", bins=b) for b in (32, 4096))
    s = coarse.systems.index("smooth")
    for m in HISTOGRAM_MEASURES:
        assert histogram_bound(m, fine, s) < histogram_bound(m, coarse, s), m


def test_auc_bound_is_the_tied_pair_mass():
    """Two bins by hand: bin 1 (highest) holds 2 positives and 1 negative at different scores, bin 2
    1 positive and 2 negatives at one score. Pairs sharing a bin with differing scores: 2 x 1 of the
    3 x 3 = 9 pairs, each counted 1/2: bound = 2 / (2 x 9) = 1/9."""
    from evalreport.counts.bigdata_scores import assemble_cells

    cells = {"sys": np.zeros(4), "gold": np.array([1, 0, 1, 0]), "bin": np.array([1.0, 1.0, 0.0, 0.0]),
             "n": np.array([2.0, 1.0, 1.0, 2.0]), "total": np.array([1.7, 0.8, 0.3, 0.6]),
             "low": np.array([0.8, 0.8, 0.3, 0.3]), "high": np.array([0.9, 0.8, 0.3, 0.3])}
    hist = assemble_cells(cells, ("s",), ("no", "yes"), 1, np.array([False]), np.array([0.5]), 6, {}, "runs.csv")
    assert histogram_bound("roc_auc", hist, 0) == pytest.approx(1 / 9)
    # AUC: bin 1 positives beat bin 2 negatives (2 x 2 = 4), tie with bin 1's negative (2 x 1/2 = 1), bin 2's
    # positive beats none and ties with its 2 negatives (2 x 1/2 = 1): (4 + 1 + 1) / 9
    cols = histogram_columns(hist, ["roc_auc"])
    assert cols["value"][0] == pytest.approx(6 / 9)


def test_bad_scores_and_layouts(tmp_path):
    gold, runs, _, _ = make_files(tmp_path, seed=6, n=50)
    table = pd.read_csv(runs)
    table.loc[7, "score"] = np.nan
    table.to_csv(tmp_path / "nan.csv", index=False)
    with pytest.raises(InputError, match="not a finite number"):
        histogram_scores(gold, tmp_path / "nan.csv", positive="yes")
    table = pd.read_csv(runs).rename(columns={"score": "score_yes"})
    table.to_csv(tmp_path / "per_class.csv", index=False)
    with pytest.raises(InputError, match="for every class; missing: 'score_no'"):
        histogram_scores(gold, tmp_path / "per_class.csv", positive="yes")
    with pytest.raises(InputError, match="DuckDB only"):
        histogram_scores(gold, runs, positive="yes", engine="spark")
    with pytest.raises(InputError, match="positive class"):
        histogram_scores(gold, runs, positive=None)


def test_scores_outside_unit_interval_keep_the_ranking_measures(tmp_path):
    gold, runs, _, _ = make_files(tmp_path, seed=8, n=80)
    table = pd.read_csv(runs)
    table["score"] = table["score"] * 10 - 3
    table.to_csv(tmp_path / "logits.csv", index=False)
    hist = histogram_scores(gold, tmp_path / "logits.csv", positive="yes")
    assert set(histogram_columns(hist)["measure"]) == {"roc_auc", "average_precision"}
    with pytest.raises(InputError, match=r"outside \[0, 1\]"):
        histogram_columns(hist, ["brier"])


def test_cli_score_duckdb_prints_values_and_bounds(tmp_path):
    gold, runs, files, names = make_files(tmp_path, seed=9, n=400)
    exact = exact_values(gold, files, names)
    rc, out, err = cli("score", gold, runs, "--backend", "duckdb", "--positive", "yes",
                       "--measures", "accuracy,roc_auc,log_loss", "--format", "json")
    assert rc == 0, err
    rows = json.loads(out)
    got = {(r["system"], r["measure"]): r for r in rows}
    assert got["five", "accuracy"]["bound"] == 0
    for system in names:
        for m in ("roc_auc", "log_loss"):
            row = got[system, m]
            assert abs(row["value"] - exact[system, m]) <= row["bound"] + 1e-12
    rc, out, err = cli("score", gold, runs, "--backend", "duckdb", "--positive", "yes")
    assert rc == 0, err
    assert "roc_auc" in out and "error bound of the score histogram" in out
    rc, out, err = cli("score", gold, runs, "--backend", "spark", "--positive", "yes", "--measures", "roc_auc")
    assert rc == 2 and "DuckDB only" in err
