"""The sum rule of per-class probabilities (evalreport.inputs.score_checks.sum_tolerance), in memory and out of core
(evalreport.counts.bigdata_score_classes) alike, through the command line where the user meets it.

K probabilities rounded to d decimals sum to 1 within K x 0.5 x 10^-d. Scores written without decimals are 0 and 1:
a one-hot row, whose sum must be exactly 1. The decimals are the most of every row that needs the rule, so that
both paths give the same answer whatever the order of the rows (out of core, no sample of the rows decides it).
"""
from __future__ import annotations

import io
import json
import re
from contextlib import redirect_stderr, redirect_stdout

import numpy as np
import pytest

from evalreport.cli import main

pytest.importorskip("duckdb")

CLASSES = ("ant", "bee", "cat")


def cli(*argv) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        rc = main([str(a) for a in argv])
    return rc, out.getvalue(), err.getvalue()


def _write(tmp, rows: list[list[str]], y: np.ndarray):
    """Gold and one long run table (system ``sys``) whose score columns hold ``rows`` as written."""
    n = len(rows)
    (tmp / "gold.csv").write_text("id,label\n" + "".join(f"i{i},{CLASSES[int(y[i])]}\n" for i in range(n)))
    body = "".join(f"sys,i{i},{CLASSES[int(np.argmax([float(x) for x in r]))]},{','.join(r)}\n"
                   for i, r in enumerate(rows))
    (tmp / "runs.csv").write_text("system,id,label," + ",".join(f"score_{c}" for c in CLASSES) + "\n" + body)
    return tmp / "gold.csv", tmp / "runs.csv"


def _both(gold, runs, measures: str = "brier,log_loss"):
    """(in memory, out of core): each the exit status, standard output and error of ``score``."""
    memory = cli("score", gold, runs, "--measures", measures, "--format", "json")
    duck = cli("score", gold, runs, "--backend", "duckdb", "--measures", measures, "--format", "json")
    return memory, duck


def _values(out: str) -> dict[str, float]:
    """Measure -> value of the one system ``score --format json`` printed."""
    return {r["measure"]: r["value"] for r in json.loads(out)}


def _rows_off(err: str) -> int:
    """How many rows the one-line refusal counts."""
    found = re.search(r"\((\d+) such rows in the file\)", err)
    assert found, err
    return int(found.group(1))


def _one_hot(n: int, seed: int) -> tuple[list[list[str]], np.ndarray]:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    top = np.where(rng.random(n) < 0.7, y, rng.integers(0, 3, n))
    return [["1" if k == t else "0" for k in range(3)] for t in top], y


def test_decimals_and_the_tolerance_they_give():
    from evalreport.inputs.score_checks import decimal_tolerance, decimals, sum_tolerance

    assert decimals([[1.0, 0.0], [0.0]]) == 0
    assert decimals([[0.5, 0.25], [0.125]]) == 3
    assert decimals([[0.1 + 0.2]]) == 6 and decimals([[1e-7]]) == 6        # many
    assert decimal_tolerance(3, 0) == pytest.approx(3e-6)                   # a one-hot row: exactly 1
    assert decimal_tolerance(3, 2) == pytest.approx(0.015)
    assert sum_tolerance(3, [[0.1234], [0.5]]) == pytest.approx(1.5e-4)
    assert sum_tolerance(3, [[1.0], [1.0]]) == pytest.approx(3e-6)


def test_one_hot_scores_are_probabilities_in_both_paths(tmp_path):
    rows, y = _one_hot(200, 1)
    (rc_m, out_m, err_m), (rc_d, out_d, err_d) = _both(*_write(tmp_path, rows, y))
    assert rc_m == 0 and rc_d == 0, (err_m, err_d)
    assert _values(out_d) == pytest.approx(_values(out_m), abs=1e-12)


def test_a_one_hot_row_summing_to_two_is_refused_in_both_paths(tmp_path):
    """"1,1,0" written without decimals: no rounding explains a sum of 2 (before, the tolerance at 0 decimals was
    K x 0.5 = 1.5 and let it pass)."""
    rows, y = _one_hot(200, 2)
    rows[17] = ["1", "1", "0"]
    (rc_m, _, err_m), (rc_d, _, err_d) = _both(*_write(tmp_path, rows, y))
    assert rc_m == 2 and rc_d == 2
    for err in (err_m, err_d):
        assert len(err.strip().splitlines()) == 1 and "runs.csv" in err and "i17" in err
        assert "the per-class scores sum to 2, not 1 (1 such rows in the file)" in err
    assert _rows_off(err_m) == _rows_off(err_d) == 1


def _mixed(n_coarse: int, n_fine: int, *, coarse_first: bool, seed: int = 4):
    """Rows of one decimal (sums off by up to 0.15 that rounding explains), then rows of four decimals whose
    first column is scaled by 0.96 (sums off by up to 0.04, which four decimals do not explain); or the other way
    round."""
    rng = np.random.default_rng(seed)
    p = rng.dirichlet(np.ones(3), n_coarse + n_fine)
    coarse = [[f"{x:.1f}" for x in r] for r in p[:n_coarse]]
    fine = [[f"{x:.4f}" for x in r * np.array([0.96, 1.0, 1.0])] for r in p[n_coarse:]]
    return (coarse + fine if coarse_first else fine + coarse), rng.integers(0, 3, n_coarse + n_fine)


@pytest.mark.parametrize("coarse_first", [True, False])
def test_both_paths_refuse_the_same_file_whatever_the_order_of_its_rows(tmp_path, coarse_first):
    """The decimals come from every row off 1, not from the first (or an unordered sample of) 1000: a file whose
    first 1000 such rows show one decimal and later ones four is refused, as the same rows in the other order."""
    rows, y = _mixed(5000, 300, coarse_first=coarse_first)
    first_off = [r for r in rows if abs(sum(float(x) for x in r) - 1) > 3e-6][:1000]
    if coarse_first:
        assert all(len(x) == 3 for r in first_off for x in r)              # the first 1000 rows off: one decimal
    (rc_m, _, err_m), (rc_d, _, err_d) = _both(*_write(tmp_path, rows, y))
    assert rc_m == 2 and rc_d == 2, (err_m, err_d)
    want = sum(abs(sum(float(x) for x in r) - 1) > 1.5e-4 + 1e-12 for r in rows)
    assert _rows_off(err_m) == _rows_off(err_d) == want


def test_both_paths_accept_rows_of_one_decimal(tmp_path):
    rows, y = _mixed(1500, 0, coarse_first=True)
    assert max(abs(sum(float(x) for x in r) - 1) for r in rows) > 0.05       # rounding explains it: 3 x 0.05
    (rc_m, out_m, err_m), (rc_d, out_d, err_d) = _both(*_write(tmp_path, rows, y))
    assert rc_m == 0 and rc_d == 0, (err_m, err_d)
