"""``plan``: items a test set needs (paired proportions, Connor 1987) and the smallest detectable
difference, by resampling a pilot; the closed forms, a hand-worked number and the command line."""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from evalreport.analyses.plan import (
    best_two,
    connor_items,
    detectable_difference,
    plan,
    power_at,
)
from evalreport.cli import main
from evalreport.errors import InputError
from evalreport.inputs.runs import Runs


def _pilot(n: int, p_a: float, p_b: float, seed: int = 0, classes: int = 2) -> Runs:
    rng = np.random.default_rng(seed)
    gold = rng.integers(0, classes, n)
    right = rng.random((2, n)) < np.array([p_a, p_b])[:, None]
    wrong = (gold + 1 + rng.integers(0, classes - 1, (2, n))) % classes
    pred = np.where(right, gold, wrong)
    return Runs(gold=gold, pred=pred, labels=tuple(str(k) for k in range(classes)), systems=("a", "b"))


def test_connor_hand_worked():
    # Connor (1987), eq. for paired proportions: psi = p10 + p01 = 0.3, D = 0.1, alpha 0.05, power 0.8:
    # [1.959964 sqrt(0.3) + 0.841621 sqrt(0.29)]^2 / 0.01 = (1.073516 + 0.453227)^2 / 0.01 = 233.09 -> 234 items
    assert connor_items(0.2, 0.1, 0.1) == pytest.approx(233.09, abs=0.01)
    assert math.ceil(connor_items(0.2, 0.1, 0.1)) == 234
    with pytest.raises(InputError):
        connor_items(0.01, 0.0, 0.2)                  # D^2 beyond the discordant share


def test_power_and_detectable_difference():
    # D = (z_0.975 + z_0.8) se = 2.8016 se, less a hair for the far tail
    dd = detectable_difference(0.01, 0.05, 0.8)
    assert power_at(0.01, dd, 0.05) == pytest.approx(0.8, abs=1e-9)
    assert dd == pytest.approx(0.028016, abs=2e-5)
    assert power_at(0.01, 0.0, 0.05) == pytest.approx(0.05)


@pytest.mark.parametrize("p_a,p_b", [(0.80, 0.76), (0.70, 0.70), (0.90, 0.84)])
def test_accuracy_agrees_with_the_closed_forms(p_a, p_b):
    """For accuracy the resampled answer is the paired-proportions formula of the same Wald test (to
    Monte-Carlo error) and within 6 % of Connor (1987)'s McNemar sample size."""
    pilot = _pilot(2000, p_a, p_b, seed=1)
    got = plan(pilot, "accuracy", 0.03, systems=("a", "b"), resamples=8000, seed=2)
    cf = got.closed_form
    assert got.n_needed == pytest.approx(cf["wald"], rel=0.04)
    assert got.n_needed == pytest.approx(cf["connor"], rel=0.06)
    assert cf["p10"] - cf["p01"] == pytest.approx(got.pilot_difference)
    # the pilot's own size: se = sqrt((psi - delta^2) / N)
    psi, delta = cf["p10"] + cf["p01"], cf["p10"] - cf["p01"]
    assert got.se_pilot == pytest.approx(math.sqrt((psi - delta ** 2) / 2000), rel=0.04)


def test_any_measure_and_seeded():
    pilot = _pilot(600, 0.75, 0.7, seed=3, classes=4)
    one = plan(pilot, "macro_f1", 0.05, seed=5)
    two = plan(pilot, "macro_f1", 0.05, seed=5)
    assert one.n_needed == two.n_needed and one.detectable == two.detectable
    assert one.n_needed > 0 and 0 < one.detectable < 1
    assert set(one.curve.columns) == {"n", "se", "power"}
    # the size it names reaches the power at the resampled se there, to Monte-Carlo error
    row = one.curve.iloc[(one.curve["n"] - one.n_needed).abs().argmin()]
    assert row["power"] == pytest.approx(0.8, abs=0.05)
    # larger differences need fewer items
    assert plan(pilot, "macro_f1", 0.10, seed=5).n_needed < one.n_needed / 3


def test_simulated_power_matches():
    """Test sets of the planned size, drawn from the population the pilot came from, reject in about the
    planned share of cases (the paired Wald test on the difference of accuracies, 400 seeded sets)."""
    from scipy.stats import norm

    p_a, p_b = 0.80, 0.76
    got = plan(_pilot(4000, p_a, p_b, seed=4), "accuracy", 0.04, systems=("a", "b"), resamples=4000, seed=0)
    n = got.n_needed
    rng = np.random.default_rng(9)
    rejected = 0
    for _ in range(400):
        right = rng.random((2, n)) < np.array([p_a, p_b])[:, None]
        d = right[0].mean() - right[1].mean()
        se = np.std(right[0].astype(float) - right[1], ddof=1) / math.sqrt(n)
        rejected += 2 * norm.sf(abs(d) / se) < 0.05
    assert rejected / 400 == pytest.approx(0.8, abs=0.07)


def test_best_two_and_errors():
    runs = _pilot(300, 0.6, 0.9, seed=0)
    assert best_two(runs, "accuracy") == ("b", "a")
    with pytest.raises(InputError, match="difference"):
        plan(runs, "accuracy", 0.0)
    with pytest.raises(InputError, match="power"):
        plan(runs, "accuracy", 0.05, power=0.01)
    with pytest.raises(InputError, match="no system named"):
        plan(runs, "accuracy", 0.05, systems=("a", "zz"))


def test_cli(capsys):
    E = str(Path(__file__).resolve().parents[1] / "examples" / "stance")
    assert main(["plan", f"{E}/gold.tsv", "--runs-dir", f"{E}/runs", "--measure", "accuracy",
                 "--difference", "0.05", "--format", "csv", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "items_needed," in out and "closed_form_connor," in out
    assert main(["plan", f"{E}/gold.tsv", "--runs-dir", f"{E}/runs", "--measure", "accuracy",
                 "--difference", "0", "--quiet"]) == 2
    assert "--difference must be a number > 0" in capsys.readouterr().err


def test_cli_refuses_a_score_based_measure_in_one_line(capsys):
    """plan resamples confusion matrices: a measure of scores is one error line, exit status 2."""
    E = str(Path(__file__).resolve().parents[1] / "examples" / "stance")
    assert main(["plan", f"{E}/gold.tsv", "--runs-dir", f"{E}/runs", "--measure", "roc_auc",
                 "--difference", "0.05", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "'roc_auc' is computed from scores" in err and "evalreport.measures" not in err
    assert len(err.strip().splitlines()) == 1
