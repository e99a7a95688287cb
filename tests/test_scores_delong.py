"""DeLong's test (evalreport/analyses/delong.py): the fast algorithm of Sun & Xu (2014) equals the
placement values of DeLong et al. (1988) written plainly (O(N^2)), and its type-I error on null data is
near alpha (seeded simulation)."""
from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import norm
from sklearn.metrics import roc_auc_score

from evalreport.analyses.delong import delong_covariance, delong_pairs, delong_table

# DeLong et al. (1988): 43 patients with ovarian cancer and intestinal obstruction (albumin, total
# protein, 10 - the K-G score; outcome: benefit from surgery), as listed in SAS/STAT's PROC LOGISTIC
# documentation, Example "Comparing Receiver Operating Characteristic Curves".
OVARIAN = np.array([
    [3.0, 5.8, 10, 0], [3.2, 6.3, 5, 1], [3.9, 6.8, 3, 1], [2.8, 4.8, 6, 0], [3.2, 5.8, 3, 1], [0.9, 4.0, 5, 0],
    [2.5, 5.7, 8, 0], [1.6, 5.6, 5, 1], [3.8, 5.7, 5, 1], [3.7, 6.7, 6, 1], [3.2, 5.4, 4, 1], [3.8, 6.6, 6, 1],
    [4.1, 6.6, 5, 1], [3.6, 5.7, 5, 1], [4.3, 7.0, 4, 1], [3.6, 6.7, 4, 0], [2.3, 4.4, 6, 1], [4.2, 7.6, 4, 0],
    [4.0, 6.6, 6, 0], [3.5, 5.8, 6, 1], [3.8, 6.8, 7, 1], [3.0, 4.7, 8, 0], [4.5, 7.4, 5, 1], [3.7, 7.4, 5, 1],
    [3.1, 6.6, 6, 1], [4.1, 8.2, 6, 1], [4.3, 7.0, 5, 1], [4.3, 6.5, 4, 1], [3.2, 5.1, 5, 1], [2.6, 4.7, 6, 1],
    [3.3, 6.8, 6, 0], [1.7, 4.0, 7, 0], [3.7, 6.1, 5, 1], [3.3, 6.3, 7, 1], [4.2, 7.7, 6, 1], [3.5, 6.2, 5, 1],
    [2.9, 5.7, 9, 0], [2.1, 4.8, 7, 1], [2.8, 6.2, 8, 0], [4.0, 7.0, 7, 1], [3.3, 5.7, 6, 1], [3.7, 6.9, 5, 1],
    [3.6, 6.6, 5, 1]])


def _slow(scores, positive):
    """DeLong et al. (1988), section 2: placements psi summed over every positive-negative pair."""
    X = [scores[:, i] for i in np.flatnonzero(positive)]
    Y = [scores[:, j] for j in np.flatnonzero(~positive)]
    m, n, S = len(X), len(Y), scores.shape[0]
    psi = lambda x, y: 1.0 if x > y else 0.5 if x == y else 0.0   # noqa: E731
    v10 = np.array([[sum(psi(X[i][k], Y[j][k]) for j in range(n)) / n for i in range(m)] for k in range(S)])
    v01 = np.array([[sum(psi(X[i][k], Y[j][k]) for i in range(m)) / m for j in range(n)] for k in range(S)])
    auc = v10.mean(1)
    s10 = np.array([[((v10[a] - auc[a]) * (v10[b] - auc[b])).sum() / (m - 1) for b in range(S)] for a in range(S)])
    s01 = np.array([[((v01[a] - auc[a]) * (v01[b] - auc[b])).sum() / (n - 1) for b in range(S)] for a in range(S)])
    return auc, s10 / m + s01 / n


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_fast_covariance_equals_the_placements_written_plainly(seed):
    rng = np.random.default_rng(seed)
    positive = rng.random(60) < 0.4
    scores = np.round(rng.normal(size=(4, 60)) + positive, 1)       # ties
    auc, cov = delong_covariance(scores, positive)
    want_auc, want_cov = _slow(scores, positive)
    np.testing.assert_allclose(auc, want_auc, atol=1e-12)
    np.testing.assert_allclose(cov, want_cov, atol=1e-12)
    np.testing.assert_allclose(auc, [roc_auc_score(positive, s) for s in scores], atol=1e-12)
    z, diff, p = delong_pairs(scores, positive, [0, 1], [2, 3])
    for k, (a, b) in enumerate([(0, 2), (1, 3)]):
        want_z = (want_auc[a] - want_auc[b]) / np.sqrt(want_cov[a, a] + want_cov[b, b] - 2 * want_cov[a, b])
        assert z[k] == pytest.approx(want_z, abs=1e-9)
        assert p[k] == pytest.approx(2 * norm.sf(abs(want_z)), abs=1e-12)


def test_ovarian_data_of_delong_et_al():
    """The three tests of DeLong et al. (1988) on their data: fast = slow, AUC = scikit-learn's."""
    scores = np.stack([OVARIAN[:, 0], OVARIAN[:, 1], 10 - OVARIAN[:, 2]])
    positive = OVARIAN[:, 3] == 1
    auc, cov = delong_covariance(scores, positive)
    want_auc, want_cov = _slow(scores, positive)
    np.testing.assert_allclose(cov, want_cov, atol=1e-12)
    np.testing.assert_allclose(auc, [roc_auc_score(positive, s) for s in scores], atol=1e-12)
    table = delong_table(scores, positive, ["alb", "tp", "kg"], "roc_auc")
    assert list(table["test"]) == ["delong"] * 3 and (table["p_holm"] >= table["p_value"]).all()


def test_type_one_error_is_near_alpha():
    """Two systems of equal skill (same signal, independent noise): P(p < 0.05) near 0.05 (seeded)."""
    rng = np.random.default_rng(2024)
    hits = 0
    runs = 600
    for _ in range(runs):
        positive = rng.random(120) < 0.5
        signal = positive * 1.0
        scores = np.stack([signal + rng.normal(size=120), signal + rng.normal(size=120)])
        hits += delong_pairs(scores, positive, [0], [1])[2][0] < 0.05
    assert 0.03 <= hits / runs <= 0.075


def test_identical_systems_and_one_class():
    positive = np.array([True, False, True, False])
    s = np.array([[0.9, 0.1, 0.4, 0.5], [0.9, 0.1, 0.4, 0.5]])
    z, diff, p = delong_pairs(s, positive, [0], [1])
    assert z[0] == 0 and p[0] == 1
    auc, cov = delong_covariance(s, np.ones(4, dtype=bool))
    assert np.isnan(auc).all() and np.isnan(cov).all()
