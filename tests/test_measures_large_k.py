"""Paths taken with many classes: confusion entropy computed on the non-zero off-diagonal cells
only (evalreport/measures/multiclass.py) and the chance baselines' block-wise evaluation and early
stop of the linearity test (evalreport/analyses/baselines.py). Each must give the same numbers,
bit for bit, as the dense computation it replaces."""
from __future__ import annotations

import importlib

import numpy as np
import pytest

from evalreport.measures import compute

baselines_mod = importlib.import_module("evalreport.analyses.baselines")


def _dense_confusion_entropy(C):
    """Gösgens et al. (2021), Table 1 (Wei et al. 2010), written over every cell as a dense array."""
    C = np.asarray(C, dtype=float)
    K = C.shape[-1]
    a, b, n = C.sum(-1), C.sum(-2), C.sum((-2, -1))
    off = C * (1 - np.eye(K))
    s = a + b
    with np.errstate(divide="ignore", invalid="ignore"):
        row = np.where(s[..., :, None] != 0, off / s[..., :, None], np.nan)
        col = np.where(s[..., None, :] != 0, off / s[..., None, :], np.nan)
        t = np.where(off > 0, off * np.log(np.where(off > 0, row, 1.0)), 0.0).sum((-2, -1)) \
            + np.where(off > 0, off * np.log(np.where(off > 0, col, 1.0)), 0.0).sum((-2, -1))
        return -(t / (2 * n)) / np.log(2 * (K - 1))


@pytest.mark.parametrize("K, density", [(3, 1.0), (7, 0.5), (60, 0.05)])
def test_confusion_entropy_is_the_dense_formula_bit_for_bit(K, density):
    rng = np.random.default_rng(K)
    C = rng.integers(0, 9, size=(4, 2, K, K)) * (rng.random((4, 2, K, K)) < density)
    C = C + np.eye(K, dtype=np.int64) * 3                       # every class present
    np.testing.assert_array_equal(compute("confusion_entropy", C).value, _dense_confusion_entropy(C))
    scaled = C * rng.random((4, 2, K, 1))                        # float cells (prevalence scaling)
    np.testing.assert_array_equal(compute("confusion_entropy", scaled).value, _dense_confusion_entropy(scaled))


def test_baselines_do_not_depend_on_the_block_size(monkeypatch):
    """Blocks of one table and the early stop of the linearity test (small BLOCK_CELLS) give the same
    frame as one stacked evaluation (large BLOCK_CELLS)."""
    a = np.array([30, 12, 5, 40, 9, 22, 3, 17])
    measures = ["accuracy", "macro_f1", "kappa", "mcc", "confusion_entropy", "k", "sba"]
    monkeypatch.setattr(baselines_mod, "BLOCK_CELLS", 2**30)
    stacked = baselines_mod.baselines(a, measures, n_samples=64, max_tables=10)
    monkeypatch.setattr(baselines_mod, "BLOCK_CELLS", 1)
    blocked = baselines_mod.baselines(a, measures, n_samples=64, max_tables=10)
    assert set(stacked["method"]) >= {"linear", "monte_carlo"}
    assert stacked.equals(blocked)
