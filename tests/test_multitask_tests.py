"""Friedman / Iman-Davenport, Nemenyi, critical-difference groups, Wilcoxon-Holm and wins.

Published numbers: Demšar (2006), "Statistical comparisons of classifiers over multiple data
sets", JMLR 7, section 3.2.2 (k = 4 classifiers, N = 14 data sets, average ranks 3.143,
2.000, 2.893, 1.964: chi2_F = 9.28, F_F = 3.69, CD = 1.25 at alpha = 0.05 with
q_0.05 = 2.569) and Table 5 (q_alpha for k = 2..10). Differential references:
scipy.stats.friedmanchisquare and scipy.stats.wilcoxon.
"""
from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from evalreport.analyses.multitask_tests import (
    cd_cliques,
    friedman,
    friedman_from_ranks,
    nemenyi,
    nemenyi_q,
    wilcoxon_holm,
    wins,
)
from evalreport.analyses.resampling import holm

DEMSAR_RANKS = {"C4.5": 3.143, "C4.5+m": 2.000, "C4.5+cf": 2.893, "C4.5+m+cf": 1.964}

# Demšar (2006) Table 5: critical values q_alpha of the two-tailed Nemenyi test, k = 2..10.
Q_005 = [1.960, 2.343, 2.569, 2.728, 2.850, 2.949, 3.031, 3.102, 3.164]
Q_010 = [1.645, 2.052, 2.291, 2.459, 2.589, 2.693, 2.780, 2.855, 2.920]


def _frame(table: np.ndarray, systems=None, tasks=None) -> pd.DataFrame:
    T, S = table.shape
    systems = systems or [f"s{j}" for j in range(S)]
    tasks = tasks or [f"t{i}" for i in range(T)]
    return pd.DataFrame({"task": np.repeat(tasks, S), "system": np.tile(systems, T), "value": table.ravel()})


def _demsar_table() -> pd.DataFrame:
    """A 14 x 4 table whose per-task ranks average to Demšar's 3.143, 2.000, 2.893, 1.964
    (rank sums 44, 28, 40.5, 27.5; one task ties C4.5+cf and C4.5+m+cf). Scores = 5 - rank."""
    ranks = [(4, 1, 3, 2), (1, 4, 3, 2), (1, 2, 4, 3), (4, 1, 2, 3), (3, 1, 4, 2), (4, 2, 3, 1), (3, 1, 4, 2),
             (3, 4, 2, 1), (4, 1, 3, 2), (1, 3, 4, 2), (4, 3, 2, 1), (4, 1, 3, 2), (4, 3, 1, 2), (4, 1, 2.5, 2.5)]
    return _frame(5.0 - np.array(ranks, dtype=float), systems=list(DEMSAR_RANKS))


# ----------------------------------------------------------------------------- Demšar (2006)


def test_demsar_friedman_from_published_average_ranks():
    """Demšar 2006, section 3.2.2: chi2_F = 9.28, F_F = 3.69 (k = 4, N = 14)."""
    res = friedman_from_ranks(DEMSAR_RANKS, 14)
    assert res["chi2_F"] == pytest.approx(9.28, abs=0.005)
    assert res["F_F"] == pytest.approx(3.69, abs=0.005)
    assert (res["k"], res["N"], res["df"], res["df1"], res["df2"]) == (4, 14, 3, 3, 39)
    assert res["p_chi2"] == pytest.approx(stats.chi2.sf(res["chi2_F"], 3))
    # Demšar: F(3, 39) critical value at alpha = 0.05 is 2.85, so the null hypothesis is rejected
    assert stats.f.ppf(0.95, 3, 39) == pytest.approx(2.85, abs=0.005)
    assert res["p_F"] < 0.05


def test_demsar_frame_path_gives_the_published_numbers():
    """The same example from a score table: average ranks 3.143 ... and chi2_F = 9.28 without the
    tie correction (Demšar's formula), F_F = 3.69."""
    res = friedman(_demsar_table(), tie_correction=False)
    assert res["average_ranks"] == pytest.approx(DEMSAR_RANKS, abs=0.0005)
    assert res["chi2_F"] == pytest.approx(9.28, abs=0.005)
    assert res["F_F"] == pytest.approx(3.69, abs=0.005)
    exact = friedman_from_ranks(res["average_ranks"], 14)
    assert res["chi2_F"] == pytest.approx(exact["chi2_F"])


def test_demsar_frame_with_tie_correction_equals_scipy():
    table = _demsar_table().pivot(index="task", columns="system", values="value")
    ref = stats.friedmanchisquare(*[table[c].to_numpy() for c in table.columns])
    res = friedman(_demsar_table())
    assert res["tie_correction"] < 1
    assert res["chi2_F"] == pytest.approx(ref.statistic, rel=1e-12)
    assert res["p_chi2"] == pytest.approx(ref.pvalue, rel=1e-9)
    assert res["chi2_F"] > 9.28


def test_demsar_nemenyi_critical_difference():
    """Demšar 2006, section 3.2.2: q_0.05 = 2.569 and CD = 1.25 for k = 4, N = 14."""
    cd, q, pairs = nemenyi(DEMSAR_RANKS, 14, alpha=0.05)
    assert q == pytest.approx(2.569, abs=0.0005)
    assert cd == pytest.approx(1.25, abs=0.005)
    assert len(pairs) == 6
    # the largest difference, C4.5 vs C4.5+m+cf, is 1.179 < 1.25: nothing significant at 0.05
    assert not pairs["significant"].any()
    assert (pairs["p"] > 0.05).all()
    top = pairs.loc[pairs["difference"].idxmax()]
    assert {top["system_a"], top["system_b"]} == {"C4.5", "C4.5+m+cf"}
    # at alpha = 0.10 (q = 2.291, Table 5) CD = 2.291 * sqrt(20 / 84) = 1.118 < 1.143 < 1.179: C4.5 is
    # separated from C4.5+m and from C4.5+m+cf, and nothing else
    cd10, _, pairs10 = nemenyi(DEMSAR_RANKS, 14, alpha=0.10)
    assert cd10 == pytest.approx(2.291 * np.sqrt(20 / 84), abs=0.001)
    sig = pairs10[pairs10["significant"]]
    assert {frozenset(x) for x in zip(sig["system_a"], sig["system_b"])} == {
        frozenset(("C4.5", "C4.5+m")), frozenset(("C4.5", "C4.5+m+cf"))}
    assert (sig["p"] < 0.10).all() and (pairs10.loc[~pairs10["significant"], "p"] > 0.10).all()


@pytest.mark.parametrize("k", range(2, 11))
def test_q_table_of_demsar(k):
    """Demšar 2006, Table 5, both rows. The table divides a three-decimal studentized range table
    by sqrt 2, so it agrees with the exact quantile / sqrt 2 to within 0.001 (k = 3: 2.3437 vs
    2.343), and exactly once the studentized range is first rounded to three decimals."""
    for alpha, table in ((0.05, Q_005), (0.10, Q_010)):
        q = nemenyi_q(k, alpha)
        assert q == pytest.approx(table[k - 2], abs=0.001)
        assert round(round(q * np.sqrt(2), 3) / np.sqrt(2), 3) == table[k - 2]


def test_nemenyi_p_and_cd_are_consistent():
    """p < alpha exactly when the difference exceeds CD (the p-value is the sf at the same scale)."""
    ranks = {"a": 1.0, "b": 2.0, "c": 3.4, "d": 3.6}
    cd, q, pairs = nemenyi(ranks, 10, alpha=0.05)
    assert ((pairs["p"] < 0.05) == (pairs["difference"] >= cd)).all()
    at_cd = stats.studentized_range.sf(np.sqrt(2) * q, 4, np.inf)
    assert at_cd == pytest.approx(0.05, abs=1e-6)


# ----------------------------------------------------------------------------- CD cliques


def test_cd_cliques_demsar_example():
    # ranks sorted: 1.964, 2.000, 2.893, 3.143; the range 1.179 < CD = 1.25: one group of all four
    cd, _, _ = nemenyi(DEMSAR_RANKS, 14)
    assert cd_cliques(DEMSAR_RANKS, cd) == [("C4.5+m+cf", "C4.5+m", "C4.5+cf", "C4.5")]
    # alpha = 0.10, CD = 1.118: C4.5 is more than CD from C4.5+m (1.143), within it of C4.5+cf (0.25)
    cd10, _, _ = nemenyi(DEMSAR_RANKS, 14, alpha=0.10)
    assert cd_cliques(DEMSAR_RANKS, cd10) == [("C4.5+m+cf", "C4.5+m", "C4.5+cf"), ("C4.5+cf", "C4.5")]


def test_cd_cliques_are_maximal_and_within_cd():
    rng = np.random.default_rng(5)
    for _ in range(200):
        k = int(rng.integers(1, 9))
        ranks = dict(zip("abcdefgh"[:k], np.round(rng.uniform(1, k, k), 1)))
        cd = float(rng.uniform(0.1, 3))
        groups = cd_cliques(ranks, cd)
        covered = set().union(*groups) if groups else set()
        assert covered == set(ranks)
        for g in groups:
            vals = [ranks[s] for s in g]
            assert max(vals) - min(vals) < cd
            outside = [s for s in ranks if s not in g]
            # maximal: no other system fits within cd of every member
            assert not any(max(vals + [ranks[s]]) - min(vals + [ranks[s]]) < cd for s in outside)
        assert not any(set(a) < set(b) or (a != b and set(a) == set(b)) for a, b in itertools.permutations(groups, 2))


# ----------------------------------------------------------------------------- Friedman vs scipy


@pytest.mark.parametrize("seed", range(12))
def test_friedman_equals_scipy_on_random_tables_with_ties(seed):
    rng = np.random.default_rng(seed)
    T, S = int(rng.integers(3, 15)), int(rng.integers(3, 8))
    table = rng.integers(0, 4, (T, S)).astype(float)          # few levels: many ties
    res = friedman(_frame(table))
    ref = stats.friedmanchisquare(*table.T)
    assert res["chi2_F"] == pytest.approx(ref.statistic, rel=1e-10)
    assert res["p_chi2"] == pytest.approx(ref.pvalue, rel=1e-8, abs=1e-300)
    k, N = S, T
    assert res["F_F"] == pytest.approx((N - 1) * ref.statistic / (N * (k - 1) - ref.statistic), rel=1e-10)
    assert res["p_F"] == pytest.approx(stats.f.sf(res["F_F"], k - 1, (k - 1) * (N - 1)), rel=1e-8)


def test_friedman_direction_and_complete_blocks():
    rng = np.random.default_rng(1)
    table = rng.random((8, 4))
    hi = friedman(_frame(table))
    lo = friedman(_frame(-table), higher_is_better=False)
    assert hi["average_ranks"] == pytest.approx(lo["average_ranks"])
    frame = pd.concat([_frame(table), pd.DataFrame({"task": ["t0"], "system": ["late"], "value": [0.5]})])
    res = friedman(frame)
    assert res["excluded_systems"] == ("late",) and res["k"] == 4
    assert any("late" in n for n in res["notes"])
    assert res["chi2_F"] == pytest.approx(hi["chi2_F"])


# ----------------------------------------------------------------------------- Wilcoxon + Holm


@pytest.mark.parametrize("seed", range(6))
def test_wilcoxon_equals_scipy_and_holm_is_the_projects(seed):
    rng = np.random.default_rng(seed)
    T, S = int(rng.integers(6, 20)), 4
    table = np.round(rng.normal(size=(T, S)) + np.arange(S) * 0.3, 1)    # rounding: zeros and ties
    out = wilcoxon_holm(_frame(table))
    assert len(out) == 6
    for row in out.itertuples():
        a, b = int(row.system_a[1:]), int(row.system_b[1:])
        ref = stats.wilcoxon(table[:, a], table[:, b], zero_method="zsplit", method="auto")
        assert row.statistic == pytest.approx(ref.statistic)
        assert row.p == pytest.approx(ref.pvalue)
        assert row.n_tasks == T
    assert out["p_holm"].to_numpy() == pytest.approx(holm(out["p"].to_numpy()))
    assert (out["significant"] == (out["p_holm"] < 0.05)).all()


def test_wilcoxon_direction_better_and_small_n_note():
    table = np.array([[0.9, 0.1], [0.8, 0.2], [0.7, 0.3], [0.95, 0.5], [0.6, 0.55]])
    out = wilcoxon_holm(_frame(table))
    assert out["better"].iloc[0] == "s0"
    assert out["method"].iloc[0] == "exact"
    # N = 5: the smallest two-sided exact p is 2/32 = 0.0625 > 0.05, and the note says so
    assert out["p"].iloc[0] == pytest.approx(0.0625)
    assert not out["significant"].any()
    assert any("N = 5" in n for n in out.attrs["notes"])
    flipped = wilcoxon_holm(_frame(-table), higher_is_better=False)
    assert flipped["better"].iloc[0] == "s0" and flipped["p"].iloc[0] == pytest.approx(0.0625)


# ----------------------------------------------------------------------------- wins


def test_wins_shared_and_significant():
    table = np.array([[0.9, 0.5, 0.4],       # t0: s0 wins
                      [0.7, 0.7, 0.1],       # t1: s0 and s1 share the win
                      [0.2, 0.3, 0.8]])      # t2: s2 wins
    frame = _frame(table)
    pv = pd.DataFrame([("t0", "s0", "s1", 0.001), ("t0", "s2", "s0", 0.002),
                       ("t2", "s2", "s0", 0.001), ("t2", "s1", "s2", 0.04)],
                      columns=["task", "system_a", "system_b", "p"])
    out = wins(frame, pv).set_index("system")
    assert out.loc["s0", "wins"] == pytest.approx(1.5)
    assert out.loc["s1", "wins"] == pytest.approx(0.5)
    assert out.loc["s0", "tasks_won"] == ("t0", "t1")
    # Holm by hand over the 4 winner comparisons, sorted 0.001, 0.001, 0.002, 0.04: 4 * 0.001, max(0.004, 3 * 0.001),
    # max(0.004, 2 * 0.002), 0.04 = 0.004, 0.004, 0.004, 0.04 -> all below 0.05
    assert out.loc["s0", "significant_wins"] == 1 and out.loc["s0", "tasks_won_significantly"] == ("t0",)
    assert out.loc["s2", "significant_wins"] == 1
    weaker = pv.assign(p=[0.001, 0.002, 0.001, 0.2])
    out2 = wins(frame, weaker).set_index("system")
    assert out2.loc["s2", "significant_wins"] == 0 and out2.loc["s0", "significant_wins"] == 1
    plain = wins(frame).set_index("system")
    assert np.isnan(plain.loc["s0", "significant_wins"]) and plain.loc["s0", "tasks_won_significantly"] is None


def test_wins_missing_comparison_and_direction():
    frame = _frame(np.array([[0.1, 0.5, 0.4]]))
    out = wins(frame, pd.DataFrame([("t0", "s0", "s1", 1e-6)], columns=["task", "system_a", "system_b", "p"]),
               higher_is_better=False).set_index("system")
    assert out.loc["s0", "wins"] == 1 and out.loc["s0", "significant_wins"] == 0      # s0 vs s2 has no p
    assert any("no p-value" in n for n in wins(frame, pd.DataFrame(columns=["task", "system_a", "system_b", "p"]),
                                               higher_is_better=False).attrs["notes"])
