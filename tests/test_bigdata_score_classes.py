"""Score-based measures out of core for per-class ``score_<class>`` columns (three classes): DuckDB bins each
column by gold class and the top-label confidence by correctness (evalreport.counts.bigdata_score_classes);
the same measure functions run on the histograms (evalreport.measures.score_histogram_classes). Values lie
within their stated bound of the in-memory ones, equal them where the bound is 0, and the Brier score and log
loss are exact sums."""
from __future__ import annotations

import io
import json
from contextlib import redirect_stderr, redirect_stdout

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import log_loss, roc_auc_score

from evalreport.cli import main
from evalreport.counts.bigdata_scores import histogram_scores
from evalreport.counts.scores import score_counts
from evalreport.errors import InputError
from evalreport.inputs import read_runs
from evalreport.measures.score_histogram import histogram_columns
from evalreport.measures.score_histogram_classes import CLASS_HISTOGRAM_MEASURES, class_histogram_value
from evalreport.measures.scores import compute_scores

pytest.importorskip("duckdb")

CLASSES = ("ant", "bee", "cat")


def cli(*argv) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        rc = main([str(a) for a in argv])
    return rc, out.getvalue(), err.getvalue()


def _grid(p: np.ndarray, steps: int) -> np.ndarray:
    """Probabilities on a grid of 1/steps that still sum to 1 (the last class takes the rest)."""
    a = np.floor(p[:, 0] * steps)
    b = np.floor(p[:, 1] * steps)
    return np.stack([a, b, steps - a - b], axis=1) / steps


def make_files(tmp, *, seed: int, n: int = 1200):
    """Gold, one long run table with score_ant/score_bee/score_cat, and one file per system.

    Systems: softmax probabilities (every value distinct), the same on a grid of 1/100 (ties) and of 1/4
    (heavy ties, top-label ties such as (1/2, 1/2, 0))."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    ids = np.array([f"it{k:05d}" for k in rng.permutation(n)], dtype=object)
    pd.DataFrame({"id": ids, "label": np.asarray(CLASSES)[y]}).to_csv(tmp / "gold.csv", index=False)
    logit = rng.normal(size=(n, 3))
    logit[np.arange(n), y] += 1.2
    e = np.exp(logit - logit.max(axis=1, keepdims=True))
    smooth = e / e.sum(axis=1, keepdims=True)
    probs = {"smooth": smooth, "rounded": _grid(smooth, 100), "coarse": _grid(smooth, 4)}
    long, files = [], []
    for name, p in probs.items():
        frame = pd.DataFrame({"system": name, "id": ids, "label": np.asarray(CLASSES)[p.argmax(axis=1)],
                              **{f"score_{c}": p[:, k] for k, c in enumerate(CLASSES)}})
        long.append(frame)
        path = tmp / f"{name}.tsv"
        frame.drop(columns="system").to_csv(path, sep="\t", index=False, float_format="%.17g")
        files.append(path)
    pd.concat(long).sample(frac=1.0, random_state=seed).to_csv(tmp / "runs.csv", index=False, float_format="%.17g")
    return tmp / "gold.csv", tmp / "runs.csv", files, list(probs), y, probs


def exact_values(gold, files, names) -> dict:
    """The in-memory values of every measure: {(system, measure): value}."""
    sc = score_counts(read_runs(gold, files, names=names, score_col="score"))
    return {(system, m): float(v) for m in CLASS_HISTOGRAM_MEASURES
            for system, v in zip(sc.systems, compute_scores(m, sc).value)}


@pytest.mark.parametrize("seed", [1, 2])
@pytest.mark.parametrize("bins", [64, 1024])
def test_within_bound_of_in_memory(tmp_path, seed, bins):
    gold, runs, files, names, _, probs = make_files(tmp_path, seed=seed)
    assert (np.sort(probs["coarse"], axis=1)[:, -1] == np.sort(probs["coarse"], axis=1)[:, -2]).any()  # top ties
    exact = exact_values(gold, files, names)
    cols = histogram_columns(histogram_scores(gold, runs, positive=None, bins=bins))
    assert list(dict.fromkeys(cols["measure"])) == list(CLASS_HISTOGRAM_MEASURES)
    for system, m, value, bound in zip(cols["system"], cols["measure"], cols["value"], cols["bound"]):
        assert np.isfinite(bound) and bound >= 0, (system, m)
        assert abs(value - exact[system, m]) <= bound + 1e-12, (system, m, value, exact[system, m], bound)
        if bound == 0:
            assert value == pytest.approx(exact[system, m], abs=1e-12), (system, m)
        if m in ("brier", "log_loss") or system == "coarse":     # exact sums; 13 distinct values: exact bins
            assert bound == 0, (system, m)
    by = {(s, m): b for s, m, b in zip(cols["system"], cols["measure"], cols["bound"])}
    for m in ("roc_auc", "roc_auc_ovo", "average_precision"):     # continuous scores lose the order in a bin
        assert by["smooth", m] > 0, m
    if bins == 64:                   # wide bins: some cell straddles a calibration edge
        assert by["smooth", "ece"] > 0


def test_exact_bins_match_scikit_learn(tmp_path):
    """Every system binned by its exact values (2^14 bins): scikit-learn's roc_auc_score (ovr macro and
    weighted, ovo macro) and log_loss, to 1e-9."""
    gold, runs, _, names, y, probs = make_files(tmp_path, seed=3, n=900)
    hist = histogram_scores(gold, runs, positive=None)
    for s, name in enumerate(hist.systems):
        p = probs[name]
        expected = {"roc_auc": roc_auc_score(y, p, multi_class="ovr"),
                    "roc_auc_weighted": roc_auc_score(y, p, multi_class="ovr", average="weighted"),
                    "roc_auc_ovo": roc_auc_score(y, p, multi_class="ovo"), "log_loss": log_loss(y, p),
                    "brier": float(((p - np.eye(3)[y]) ** 2).sum(axis=1).mean())}
        for m, want in expected.items():
            value, bound, _ = class_histogram_value(m, hist, s)
            assert bound == 0 and value == pytest.approx(want, abs=1e-9), (name, m)


def test_ece_bound_shrinks_with_finer_bins(tmp_path):
    gold, runs, _, _, _, _ = make_files(tmp_path, seed=4)
    coarse, fine = (histogram_scores(gold, runs, positive=None, bins=b) for b in (32, 4096))
    s = coarse.systems.index("smooth")
    for m in ("roc_auc", "average_precision", "roc_auc_ovo", "ece"):
        assert class_histogram_value(m, fine, s)[1] < class_histogram_value(m, coarse, s)[1], m


def test_bad_per_class_scores(tmp_path):
    gold, runs, _, _, _, _ = make_files(tmp_path, seed=5, n=60)
    table = pd.read_csv(runs)
    table.drop(columns="score_cat").to_csv(tmp_path / "two.csv", index=False)
    with pytest.raises(InputError, match="for every class; missing: 'score_cat'"):
        histogram_scores(gold, tmp_path / "two.csv", positive=None)
    bad = table.copy()
    bad.loc[5, "score_bee"] = np.nan
    bad.to_csv(tmp_path / "nan.csv", index=False)
    with pytest.raises(InputError, match="not a finite number"):
        histogram_scores(gold, tmp_path / "nan.csv", positive=None)
    off = table.copy()
    off["score_ant"] = off["score_ant"] * 0.5
    off.to_csv(tmp_path / "off.csv", index=False)
    hist = histogram_scores(gold, tmp_path / "off.csv", positive=None)
    assert set(histogram_columns(hist)["measure"]) == {"roc_auc", "roc_auc_weighted", "roc_auc_ovo",
                                                       "average_precision"}
    with pytest.raises(InputError, match=r"per-class scores sum to 0\.\d+, not 1"):
        histogram_columns(hist, ["log_loss"])


def test_cli_score_duckdb_per_class(tmp_path):
    gold, runs, files, names, _, _ = make_files(tmp_path, seed=6, n=400)
    exact = exact_values(gold, files, names)
    rc, out, err = cli("score", gold, runs, "--backend", "duckdb", "--format", "json")
    assert rc == 0, err
    got = {(r["system"], r["measure"]): r for r in json.loads(out)}
    for system in names:
        assert got[system, "accuracy"]["bound"] == 0
        for m in CLASS_HISTOGRAM_MEASURES:
            row = got[system, m]
            assert abs(row["value"] - exact[system, m]) <= row["bound"] + 1e-12, (system, m)
    rc, out, err = cli("score", gold, runs, "--backend", "duckdb", "--measures", "macro_f1,log_loss,roc_auc_ovo")
    assert rc == 0, err
    assert "log_loss" in out and "roc_auc_ovo" in out and "error bound of the score histogram" in out


def test_pair_auc_bound_counts_only_the_two_classes():
    """Column 0's cells by hand: bin 1 (highest) holds 2 items of class 0 (scores 0.8 and 0.9) and 1 of class 1
    (0.8); bin 0 holds 1 of class 0 and 2 of class 1 at 0.3, and 1 of class 2 at 0.4. A(0|1) is the binary
    AUC of Hanley & McNeil (1982) over the 3 x 3 pairs of classes 0 and 1: (4 + 1 + 1) / 9; only bin 1 has
    differing scores among those two classes, so the bound is 2 x 1 / (2 x 9) = 1/9 (class 2's spread in
    bin 0 does not count)."""
    from evalreport.counts.bigdata_scores import assemble_cells
    from evalreport.measures.score_histogram_classes import _pair_auc

    cells = {"sys": np.zeros(5), "gold": np.array([0, 1, 0, 1, 2]), "bin": np.array([1.0, 1.0, 0.0, 0.0, 0.0]),
             "n": np.array([2.0, 1.0, 1.0, 2.0, 1.0]), "total": np.array([1.7, 0.8, 0.3, 0.6, 0.4]),
             "low": np.array([0.8, 0.8, 0.3, 0.3, 0.4]), "high": np.array([0.9, 0.8, 0.3, 0.3, 0.4])}
    hist = assemble_cells(cells, ("s",), CLASSES, 0, np.array([False]), np.array([0.5]), 7, {}, "runs.csv")
    value, bound = _pair_auc(hist, 0, 0, 1)
    assert value == pytest.approx(6 / 9) and bound == pytest.approx(1 / 9)


def _rounded_files(tmp, decimals: int, *, scale: float = 1.0, n: int = 300):
    """Gold and one long run table of three probabilities printed with ``decimals`` decimals (``scale``
    multiplies the first column: 0.98 makes scores that do not sum to 1)."""
    rng = np.random.default_rng(decimals)
    y = rng.integers(0, 3, n)
    p = rng.dirichlet(np.ones(3), n)
    p[:, 0] *= scale
    pd.DataFrame({"id": [f"i{i}" for i in range(n)], "label": np.asarray(CLASSES)[y]}).to_csv(tmp / "gold.csv",
                                                                                           index=False)
    rows = "".join(f"sys,i{i},{CLASSES[int(np.argmax(r))]}," + ",".join(f"{x:.{decimals}f}" for x in r) + "\n"
                   for i, r in enumerate(p))
    (tmp / "runs.csv").write_text("system,id,label," + ",".join(f"score_{c}" for c in CLASSES) + "\n" + rows)
    return tmp / "gold.csv", tmp / "runs.csv"


@pytest.mark.parametrize("decimals", [2, 4])
def test_cli_duckdb_accepts_probabilities_printed_with_few_decimals(tmp_path, decimals):
    """The rule of the in-memory check (evalreport.inputs.score_checks): three probabilities printed with d
    decimals sum to 1 within 3 x 0.5 x 10^-d, and out of core they are probabilities too."""
    gold, runs = _rounded_files(tmp_path, decimals)
    sums = pd.read_csv(runs)[[f"score_{c}" for c in CLASSES]].sum(axis=1)
    assert (sums - 1).abs().max() > 3e-6                     # beyond the 1e-6-per-class tolerance
    rc, out, err = cli("score", gold, runs, "--backend", "duckdb", "--measures", "log_loss,brier", "--format", "json")
    assert rc == 0, err
    memory = cli("score", gold, runs, "--measures", "log_loss,brier", "--format", "json")
    assert memory[0] == 0, memory[2]
    got = {r["measure"]: r["value"] for r in json.loads(out)}
    want = {r["measure"]: r["value"] for r in json.loads(memory[1])}
    assert got == pytest.approx(want, abs=1e-12)


def test_cli_duckdb_refuses_sums_off_1_as_in_memory(tmp_path):
    """Scores that do not sum to 1 are refused out of core with the in-memory message: the sum, how many rows."""
    gold, runs = _rounded_files(tmp_path, 4, scale=0.98)
    rc, _, err = cli("score", gold, runs, "--backend", "duckdb", "--measures", "log_loss")
    assert rc == 2
    rc_mem, _, err_mem = cli("score", gold, runs, "--measures", "log_loss")
    assert rc_mem == 2
    assert len(err.strip().splitlines()) == 1 and "runs.csv" in err and "id 'i" in err
    tail = err_mem.strip().partition(": the per-class scores sum to ")[2]
    assert tail and err.strip().endswith(tail.partition(", not 1")[2]), (err, err_mem)
    assert "the per-class scores sum to " in err
