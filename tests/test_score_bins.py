"""The calibration errors counted once per item (bincount) equal the weighted path under unit weights.

ECE and MCE (Guo et al. 2017, eq. 3 and 5) sum confidence, correctness and items per bin; without resampling
weights the sums are one bincount each, with weights a product over items. Unit weights are the same items,
so both must give the same values.
"""
from __future__ import annotations

import numpy as np
import pytest

from evalreport.counts.scores import score_counts
from evalreport.inputs.runs import Runs
from evalreport.measures.scores import compute_scores


@pytest.mark.parametrize("mid", ["ece", "mce", "ece(bins=5,strategy=quantile)", "mce(bins=1)"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_unweighted_calibration_equals_unit_weights(mid, seed):
    rng = np.random.default_rng(seed)
    S, n, K = 3, 500, 4
    gold = rng.integers(0, K, n)
    p = rng.dirichlet(np.ones(K), size=(S, n))
    p = np.round(p * 20) / 20
    p[..., -1] = 1.0 - p[..., :-1].sum(-1)
    p = np.clip(p, 0, 1)
    p /= p.sum(-1, keepdims=True)
    labels = tuple(f"c{k}" for k in range(K))
    runs = Runs(gold=gold, pred=p.argmax(-1), labels=labels, systems=("a", "b", "c"), scores=p, score_labels=labels)
    sc = score_counts(runs)
    plain = compute_scores(mid, sc).value
    weighted = compute_scores(mid, sc, weights=np.ones((2, n))).value
    assert plain.shape == (S,) and weighted.shape == (2, S)
    np.testing.assert_allclose(weighted, np.broadcast_to(plain, (2, S)), rtol=1e-12, atol=1e-15)
    assert np.all(plain > 0)       # rounded Dirichlet scores are not calibrated: a value that can differ
