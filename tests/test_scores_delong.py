"""DeLong's test (evalreport/analyses/delong.py): the fast algorithm of Sun & Xu (2014) equals the
placement values of DeLong et al. (1988) written plainly (O(N^2)), reproduces the published values of pROC's
roc.test on its aSAH data (Robin et al. 2011), and its type-I error on null data is near alpha (seeded
simulation)."""
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


# The aSAH data of pROC (Robin et al. 2011; Turck et al. 2010): 113 patients after an aneurysmal subarachnoid
# haemorrhage, in pROC's row order; outcome G(ood) / P(oor) (the positive class: Poor), the WFNS grade and the
# s100b and ndka levels.
ASAH_OUTCOME = (
    "GGGGPPGPGGPGPPGGPGPPPGPGGGGGGGGGPGGPPGPPGGGGGGGGGPPGGGPGGGPG"
    "PGGPPPGPPGPPPPGGGPPGPGGGGGGPGGGGGGGGGGGGPPPPPPGGGPGGG"
)
ASAH_WFNS = "".join((
    "111132541252551252252111121211342145414255112411255212512221",
    "51125214524414121421232421451154221113125225552445111",
))
ASAH_S100B = [
    0.13, 0.14, 0.1, 0.04, 0.13, 0.1, 0.47, 0.16, 0.18, 0.1, 0.12, 0.1, 0.44, 0.71, 0.04, 0.08, 0.49, 0.04,
    0.07, 0.33, 0.09, 0.09, 0.07, 0.11, 0.07, 0.17, 0.07, 0.11, 0.13, 0.19, 0.05, 0.16, 0.41, 0.14, 0.34,
    0.35, 0.48, 0.09, 0.96, 0.25, 0.5, 0.46, 0.16, 0.07, 0.43, 0.45, 0.11, 0.08, 0.09, 0.86, 0.52, 0.08, 0.06,
    0.13, 2.07, 0.1, 0.14, 0.15, 0.07, 0.06, 0.77, 0.05, 0.09, 0.3, 0.03, 0.09, 0.04, 0.23, 0.7, 0.09, 0.27,
    0.71, 0.08, 0.26, 0.08, 0.16, 0.09, 0.13, 0.1, 0.08, 0.11, 0.33, 0.11, 0.28, 0.07, 0.1, 0.32, 0.22, 0.07,
    0.05, 0.24, 0.38, 0.1, 0.15, 0.08, 0.14, 0.1, 0.07, 0.04, 0.19, 0.56, 0.14, 0.58, 0.32, 0.82, 0.74, 0.15,
    0.47, 0.17, 0.44, 0.15, 0.5, 0.48,
]
ASAH_NDKA = [
    3.01, 8.54, 8.09, 10.42, 17.4, 12.75, 6.0, 13.2, 15.54, 6.01, 15.96, 17.86, 5.18, 8.9, 13.41, 20.75, 11.6,
    16.11, 32.37, 54.82, 32.41, 49.94, 40.34, 9.47, 6.29, 12.53, 6.54, 6.3, 80.3, 12.8, 9.8, 9.81, 9.85,
    18.21, 5.03, 14.04, 21.93, 8.02, 7.42, 8.38, 6.59, 9.63, 13.12, 7.96, 14.34, 41.43, 7.63, 7.06, 12.59,
    13.56, 3.87, 9.44, 7.66, 12.98, 419.19, 27.19, 22.27, 9.95, 21.22, 11.73, 10.4, 58.83, 6.39, 11.09, 12.22,
    13.67, 17.21, 22.63, 12.9, 9.7, 21.57, 8.23, 72.57, 15.54, 10.51, 10.6, 14.57, 5.19, 9.63, 4.61, 21.48,
    17.3, 12.71, 9.44, 11.07, 19.46, 10.83, 5.37, 11.97, 7.75, 9.83, 10.55, 28.49, 8.53, 12.57, 12.9, 46.83,
    11.68, 12.67, 9.01, 9.57, 34.06, 11.72, 14.26, 47.61, 11.67, 24.58, 10.33, 13.87, 15.89, 22.43, 6.79,
    13.45,
]


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


def test_asah_worked_example_of_proc():
    """pROC (Robin et al. 2011) on its aSAH data (Turck et al. 2010; 41 Poor, 72 Good outcomes): the AUCs and
    DeLong variances of ``auc`` / ``var`` (pROC's tests/testthat/test-var.R) and Z and p of the paired DeLong
    test of ``roc.test`` for the three pairs of markers (tests/testthat/test-roc.test.R: wfns vs s100b
    Z = 2.20898359144091, p = 0.0271757822291882), to the digits pROC's tests state."""
    positive = np.array([c == "P" for c in ASAH_OUTCOME])
    assert len(positive) == 113 and positive.sum() == 41
    scores = np.stack([np.array([float(c) for c in ASAH_WFNS]), np.array(ASAH_S100B), np.array(ASAH_NDKA)])
    auc, cov = delong_covariance(scores, positive)
    np.testing.assert_allclose(auc[[0, 2]], [0.823678861788618, 0.611957994579946], rtol=1e-12)
    np.testing.assert_allclose(np.diag(cov), [0.00146991470882363, 0.00266868245717244, 0.0031908105493913],
                               rtol=1e-10)
    z, diff, p = delong_pairs(scores, positive, [0, 0, 2], [1, 2, 1])     # wfns-s100b, wfns-ndka, ndka-s100b
    np.testing.assert_allclose(z, [2.20898359144091, 2.79777591868904, -1.39077002573558], rtol=1e-10)
    np.testing.assert_allclose(p, [0.0271757822291882, 0.00514557970691098, 0.164295175223054], rtol=1e-10)
    # the pairwise table of the comparison: the same test, Holm over the three pairs
    table = delong_table(scores, positive, ["wfns", "s100b", "ndka"], "roc_auc")
    got = {(a, b): q for a, b, q in zip(table["system_a"], table["system_b"], table["p_value"])}
    assert got["wfns", "s100b"] == pytest.approx(0.0271757822291882, rel=1e-10)
    assert got["s100b", "ndka"] == pytest.approx(0.164295175223054, rel=1e-10)


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
