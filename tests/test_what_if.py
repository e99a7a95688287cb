"""What-if prevalence: the leaderboard under other class distributions (Opitz 2022, eq. 5)."""
import numpy as np
import pandas as pd
import pytest

from evalreport.analyses.prevalence import reversed_prevalence, what_if_ranks
from evalreport.counts import Counts


def _counts():
    # gold: 90 items of class a, 10 of class b (rows = gold, columns = predicted).
    # A is right on 90 % of a and 50 % of b; B on 70 % of a and 90 % of b.
    A = [[81, 9], [5, 5]]
    B = [[63, 27], [1, 9]]
    return Counts(np.array([A, B]), ["a", "b"], ["A", "B"])


def test_accuracy_leaderboard_flips_when_the_rare_class_becomes_frequent():
    # observed: accuracy A = 0.86, B = 0.72. Rescaling rows to shares (0.1, 0.9) keeps each class's
    # error proportions: A = 0.1 * 0.9 + 0.9 * 0.5 = 0.54, B = 0.1 * 0.7 + 0.9 * 0.9 = 0.88.
    ranks = what_if_ranks(_counts(), "accuracy", {"reversed": reversed_prevalence(_counts())})
    wide = ranks.pivot(index="system", columns="scenario", values="value")
    assert wide.loc["A", "observed"] == pytest.approx(0.86) and wide.loc["B", "observed"] == pytest.approx(0.72)
    assert wide.loc["A", "reversed"] == pytest.approx(0.54) and wide.loc["B", "reversed"] == pytest.approx(0.88)
    r = ranks.pivot(index="system", columns="scenario", values="rank")
    assert list(r["observed"]) == [1.0, 2.0] and list(r["reversed"]) == [2.0, 1.0]


def test_macro_recall_ranking_does_not_depend_on_the_scenario():
    # Opitz (2022), Property IV: macro recall is prevalence invariant, so no scenario moves it
    ranks = what_if_ranks(_counts(), "macro_recall", {"equal": "uniform", "reversed": reversed_prevalence(_counts()),
                                                      "custom": {"a": 0.3, "b": 0.7}})
    values = ranks.pivot(index="system", columns="scenario", values="value")
    assert np.allclose(values.to_numpy(), values[["observed"]].to_numpy())


def test_reversed_prevalence_swaps_the_class_shares_by_size():
    C = Counts(np.array([[[5, 0, 0], [0, 20, 0], [0, 0, 75]]]), ["x", "y", "z"], ["s"])
    assert reversed_prevalence(C) == pytest.approx([0.75, 0.20, 0.05])


def test_lower_is_better_measures_rank_the_smallest_first():
    ranks = what_if_ranks(_counts(), "confusion_entropy", {"equal": "uniform"})
    for _, one in ranks.groupby("scenario"):
        best = one.sort_values("value").iloc[0]
        assert best["rank"] == 1.0
    assert isinstance(ranks, pd.DataFrame)


def test_reversed_prevalence_keeps_absent_classes_absent():
    """Classes listed with --labels but absent from the gold labels get no share: the present
    classes trade theirs (here a: 6, b: 3, c: 1 -> a: 1, b: 3, c: 6; d, e: 0)."""
    C = np.zeros((1, 5, 5), dtype=np.int64)
    C[0, 0, 0], C[0, 1, 1], C[0, 2, 2] = 6, 3, 1
    C[0, 0, 3] = 0
    shares = reversed_prevalence(Counts(C, list("abcde"), ["s"]))
    np.testing.assert_allclose(shares, [0.1, 0.3, 0.6, 0.0, 0.0])
