"""Letters under every measure from the stacked paired bootstrap p-values
(evalreport.analyses.stacked_tests, evalreport.analyses.measure_letters) against the path they replace:
one ``pairwise_tests`` frame per measure, then ``groups`` and ``rank_intervals`` of that frame.

Differential: on seeded comparisons of 3, 25 and 120 systems, with tied (identical) systems, a constant
predictor (MCC undefined on every resample) and a system whose MCC is undefined on some resamples, the
p-values are the same to the last bit and the table (letters, tiers, rank intervals) is the same frame.
The batched sweep of the letter display is checked against Piepho's (2004) sweep taken one system at a time.
"""
from __future__ import annotations

import dataclasses
import warnings
from typing import cast

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st

import evalreport
from evalreport.analyses.engine import Design, pairwise_tests
from evalreport.analyses.letters import check_letters, letter_matrix
from evalreport.analyses.measure_letters import MEASURE_LETTER_COLUMNS, measure_letters
from evalreport.analyses.rank_intervals import rank_intervals
from evalreport.analyses.significance import bootstrap_p, groups
from evalreport.analyses.stacked_tests import rank_bounds, separated, stacked_bootstrap_p, tiers
from evalreport.inputs.runs import Runs

# ----------------------------------------------------------------------------- the path replaced


class _Directions:
    """What ``pairwise_tests`` asks of a design for the bootstrap test."""

    def __init__(self, systems):
        self.systems = tuple(systems)

    def direction(self, measure) -> bool:
        return bool(measure.higher_is_better)


def _raw_values(comp, mid: str) -> np.ndarray:
    raw = comp.scores[~comp.scores["calibrated"].astype(bool)]
    return raw[raw["measure"] == mid].set_index("system")["value"].reindex(list(comp.systems)).to_numpy(dtype=float)


def _reference_pairs(comp, mid: str, alpha: float) -> pd.DataFrame:
    """One measure's pairwise frame, as the comparison builds it."""
    j = comp.measures.index(mid)
    design = cast(Design, _Directions(comp.systems))
    return pairwise_tests(design, comp.record(mid), _raw_values(comp, mid), tests=("bootstrap",),
                          samples=comp.samples[:, :, j], alpha=alpha)


def _reference_rows(comp, mid: str, alpha: float) -> pd.DataFrame:
    """One measure's rows through the pairwise frame, ``groups`` and ``rank_intervals``."""
    systems = list(comp.systems)
    value = _raw_values(comp, mid)
    higher = comp.record(mid).higher_is_better
    pairs = _reference_pairs(comp, mid, alpha)
    key = np.where(np.isnan(value), np.inf, -value if higher else value)
    order = [systems[i] for i in np.argsort(key, kind="stable")]
    if not len(pairs) or pairs["p_holm"].isna().all():
        return pd.DataFrame({"system": systems, "measure": mid, "test": "bootstrap", "letters": "", "group": np.nan,
                             "rank_lo": pd.NA, "rank_hi": pd.NA})
    tier = groups(pairs, alpha=alpha, test="bootstrap", order=order)
    bounds = rank_intervals(pairs, order, alpha=alpha, test="bootstrap")
    out = pd.DataFrame({"system": systems}).merge(tier[["system", "letters", "group"]], on="system", how="left")
    out = out.merge(bounds, on="system", how="left")
    out["letters"] = out["letters"].fillna("")
    return out.assign(measure=mid, test="bootstrap")


def _reference_table(comp, table: pd.DataFrame, alpha: float = 0.05) -> pd.DataFrame:
    """The whole table through one pairwise frame per measure (the primary's rows, the comparison's own, from
    ``table``)."""
    frames = []
    for mid in comp.measures:
        if mid == comp.primary and len(comp.groups):
            frames.append(table[table["measure"] == mid])
        else:
            frames.append(_reference_rows(comp, mid, alpha))
    return pd.concat(frames, ignore_index=True)[MEASURE_LETTER_COLUMNS]


# ----------------------------------------------------------------------------- seeded comparisons


def _runs(n_systems: int, *, n_items: int = 300, seed: int = 0) -> Runs:
    """Systems of increasing skill on four imbalanced classes, with ties and undefined values."""
    rng = np.random.default_rng(seed)
    gold = rng.choice(4, size=n_items, p=[0.6, 0.3, 0.08, 0.02])
    pred = np.empty((n_systems, n_items), dtype=np.int64)
    for s in range(n_systems):
        right = rng.random(n_items) < 0.4 + 0.5 * s / max(n_systems - 1, 1)
        pred[s] = np.where(right, gold, rng.integers(0, 4, n_items))
    pred[0] = 0                                        # a constant predictor: MCC 0/0 on every resample
    if n_systems > 2:
        pred[2] = np.where(gold == 3, 3, 1)            # MCC undefined on the resamples without class 3
    if n_systems > 4:
        pred[4] = pred[3]                              # tied with system 3 on every resample
    return Runs(gold=gold, pred=pred, labels=("c0", "c1", "c2", "c3"),
                systems=tuple(f"sys {s:03d}" for s in range(n_systems)), ids=np.array([str(i) for i in range(n_items)]))


@pytest.fixture(scope="module", params=[3, 25, 120])
def comparison(request):
    runs = _runs(request.param, seed=request.param)
    return evalreport.compare(runs, evalreport.Settings(bootstrap=200, seed=7, progress=False))


@pytest.fixture(scope="module")
def table(comparison):
    return measure_letters(comparison)


def test_the_fixtures_hold_ties_and_undefined_values(comparison):
    """The cases the differential tests must cover are there: NaN on every resample and on some."""
    j = comparison.measures.index("mcc")
    nan = np.isnan(comparison.samples[:, :, j])
    assert nan[:, 0].all()
    if len(comparison.systems) > 2:
        assert nan[:, 2].any() and not nan[:, 2].all()
    if len(comparison.systems) > 4:
        assert np.array_equal(comparison.samples[:, 3], comparison.samples[:, 4], equal_nan=True)


def test_p_values_are_those_of_pairwise_tests_to_the_last_bit(comparison):
    systems = list(comparison.systems)
    a, b = np.triu_indices(len(systems), 1)
    values = np.column_stack([_raw_values(comparison, m) for m in comparison.measures])
    higher = np.array([comparison.record(m).higher_is_better for m in comparison.measures])
    p = stacked_bootstrap_p(comparison.samples, values, higher, a, b)
    for k, mid in enumerate(comparison.measures):
        ref = _reference_pairs(comparison, mid, 0.05)["p_value"].to_numpy(dtype=float)
        assert np.array_equal(np.isnan(p[:, k]), np.isnan(ref)), mid
        ok = ~np.isnan(ref)
        assert np.array_equal(p[ok, k].view(np.int64), ref[ok].view(np.int64)), mid


def test_the_table_is_the_one_the_pairwise_frames_give(comparison, table):
    pd.testing.assert_frame_equal(table, _reference_table(comparison, table))


def test_the_table_is_the_same_at_another_level(comparison):
    if len(comparison.systems) > 25:
        pytest.skip("one level is enough at 120 systems")
    other = measure_letters(comparison, alpha=0.2)
    pd.testing.assert_frame_equal(other, _reference_table(comparison, other, alpha=0.2))


def test_primary_letters_recomputed_equal_the_comparisons_own(comparison):
    """The primary measure through the stacked path (its groups dropped) gives the comparison's own letters,
    tiers and rank intervals (the comparison's test is the paired bootstrap)."""
    assert comparison.settings["pairwise_test"] == "bootstrap"
    again = measure_letters(dataclasses.replace(comparison, groups=comparison.groups.iloc[0:0]))
    mine = again[again["measure"] == comparison.primary].set_index("system")
    own = comparison.groups.set_index("system")
    board = comparison.leaderboard.set_index("system")
    for s in comparison.systems:
        assert mine.loc[s, "letters"] == own.loc[s, "letters"]
        assert mine.loc[s, "group"] == own.loc[s, "group"] or (np.isnan(mine.loc[s, "group"])
                                                                and np.isnan(own.loc[s, "group"]))
        assert int(mine.loc[s, "rank_lo"]) == int(board.loc[s, "rank_lo"])
        assert int(mine.loc[s, "rank_hi"]) == int(board.loc[s, "rank_hi"])


def test_letters_of_the_constant_predictor_are_empty_under_mcc(comparison, table):
    """A system whose MCC is undefined (0/0) has no test, so no letter, no tier."""
    rows = table
    row = rows[(rows["measure"] == "mcc") & (rows["system"] == comparison.systems[0])].iloc[0]
    assert row["letters"] == "" and pd.isna(row["group"])


# ----------------------------------------------------------------------------- stacked p-values on their own


def _synthetic(seed: int, B: int = 150, S: int = 9, M: int = 3) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Resamples with NaN here and there, an all-NaN system, identical systems and a constant offset."""
    rng = np.random.default_rng(seed)
    x = 0.5 + 0.1 * rng.standard_normal((B, S, M))
    x[:, 1] = x[:, 0]                                  # tied: d = 0 on every resample, p = 1
    x[:, 2] = x[:, 0] + 0.25                           # constant difference: se 0, the Monte-Carlo share
    x[rng.random((B, S, M)) < 0.02] = np.nan
    x[:, 3, 1] = np.nan                                # undefined on every resample under measure 1
    with warnings.catch_warnings():                    # the all-NaN column's mean is NaN, as wanted
        warnings.simplefilter("ignore", RuntimeWarning)
        values = np.nanmean(x, axis=0)
    values[3, 1] = np.nan
    values[1] = values[0]
    return x, values, np.array([True, False, True][:M])


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_stacked_p_values_equal_bootstrap_p_per_measure_with_nan_ties_and_flat_columns(seed):
    x, values, higher = _synthetic(seed)
    x[:, :, 2] = np.nan_to_num(x[:, :, 2], nan=0.5)    # one measure defined everywhere (the fast path) ...
    x[:, 1, 2] = x[:, 0, 2]
    x[:, 2, 2] = x[:, 0, 2] + 0.25                     # ... with a tie and a constant difference in it
    values[:, 2] = x[:, :, 2].mean(axis=0)
    B, S = x.shape[:2]
    a, b = np.triu_indices(S, 1)
    p = stacked_bootstrap_p(x, values, higher, a, b)
    for m in range(x.shape[2]):
        sign = 1.0 if higher[m] else -1.0
        ref = bootstrap_p(sign * (x[:, a, m] - x[:, b, m]), sign * (values[a, m] - values[b, m]))[0]
        assert np.array_equal(p[:, m], ref, equal_nan=True), m
    assert (p[0, :] == 1.0).all()                      # the tied pair (0, 1)
    assert p[1, 2] == 1.0 / (B + 1)                    # pair (0, 2): the d*_b do not vary
    assert np.isnan(p[(a == 3) | (b == 3), 1]).all()   # the undefined system


def test_stacked_p_values_do_not_depend_on_the_blocks():
    x, values, higher = _synthetic(4, S=14)
    a, b = np.triu_indices(14, 1)
    whole = stacked_bootstrap_p(x, values, higher, a, b)
    for block in (1, 150, 151 * 3, 10_000):
        assert np.array_equal(stacked_bootstrap_p(x, values, higher, a, b, block_values=block), whole, equal_nan=True)


def test_no_pairs_or_no_measures_give_an_empty_table():
    x, values, higher = _synthetic(5)
    assert stacked_bootstrap_p(x, values, higher, np.array([], dtype=int), np.array([], dtype=int)).shape == (0, 3)
    assert stacked_bootstrap_p(x[:, :, :0], values[:, :0], higher[:0], *np.triu_indices(9, 1)).shape == (36, 0)


def test_tiers_and_rank_bounds_equal_groups_and_rank_intervals():
    """On hand-made p-values: ranks 1-4, the first two inseparable, the last untested."""
    systems = ["w", "x", "y", "z"]
    a, b = np.triu_indices(4, 1)                       # (w,x) (w,y) (w,z) (x,y) (x,z) (y,z)
    p = np.array([0.3, 0.01, np.nan, 0.02, np.nan, np.nan])
    d = np.array([0.1, 0.2, np.nan, 0.1, np.nan, np.nan])
    frame = pd.DataFrame({"system_a": [systems[i] for i in a], "system_b": [systems[i] for i in b],
                          "measure": "m", "test": "bootstrap", "difference": d, "p_holm": p})
    sep, tested = separated(p, a, b, 4, 0.05)
    order = np.arange(4)
    assert tiers(sep, tested, order)[:3] == [1, 1, 2] and np.isnan(tiers(sep, tested, order)[3])
    assert list(groups(frame, order=systems)["group"].iloc[:3]) == [1, 1, 2]
    lo, hi = rank_bounds(p, d, a, b, 4, 0.05)
    ref = rank_intervals(frame, systems)
    assert list(lo) == list(ref["rank_lo"]) == [1, 1, 3, 1]
    assert list(hi) == list(ref["rank_hi"]) == [3, 3, 4, 4]


# ----------------------------------------------------------------------------- the letters' sweep


def _absorbed(cols: np.ndarray) -> np.ndarray:
    """Drop letters held only by holders of another (of equal letters the first stays), keeping the order."""
    c = cols.astype(int)
    inside = (c @ (1 - c).T) == 0
    np.fill_diagonal(inside, False)
    equal = inside & inside.T
    drop = (inside & ~equal).any(axis=1) | (equal & np.tril(np.ones_like(equal), -1)).any(axis=1)
    return cols[~drop]


def _maximal_cliques(sep: np.ndarray) -> np.ndarray:
    """Piepho's (2004) insert and absorb, one separated pair at a time: the letters before the sweep."""
    S = sep.shape[0]
    cols = np.ones((1, S), dtype=bool)
    for i, j in zip(*np.nonzero(np.triu(sep, 1))):
        both = cols[:, i] & cols[:, j]
        x, y = cols[both].copy(), cols[both].copy()
        x[:, i] = False
        y[:, j] = False
        cols = _absorbed(np.concatenate([cols[~both], x, y]))
    return cols


def _sorted(cols: np.ndarray) -> np.ndarray:
    key = [tuple(np.flatnonzero(c)) for c in cols]
    return cols[sorted(range(len(cols)), key=key.__getitem__)]


def _sweep_one_at_a_time(cols: np.ndarray) -> tuple[np.ndarray, bool]:
    """Piepho's sweep as written: one system of one letter at a time, the shared letters counted afresh."""
    cols = cols.copy()
    changed = False
    for c in range(len(cols)):
        for t in np.flatnonzero(cols[c]):
            shared = cols[:, t].astype(int) @ cols.astype(int)
            if shared[cols[c]].min() >= 2:
                cols[c, t] = False
                changed = True
    return cols, changed


def _reference_letters(sep: np.ndarray) -> np.ndarray:
    """Insert and absorb, the letters sorted by their holders, then sweep and absorb until nothing changes."""
    cols = _sorted(_maximal_cliques(sep))
    changed = True
    while changed:
        cols, changed = _sweep_one_at_a_time(cols)
        cols = _absorbed(cols[cols.any(axis=1)])
    return _sorted(cols)


@st.composite
def relations(draw, max_systems: int = 9):
    S = draw(st.integers(1, max_systems))
    bits = draw(st.lists(st.booleans(), min_size=S * (S - 1) // 2, max_size=S * (S - 1) // 2))
    m = np.zeros((S, S), dtype=bool)
    m[np.triu_indices(S, 1)] = bits
    return m | m.T


@settings(max_examples=300, deadline=None)
@given(relations())
def test_letter_matrix_equals_piepho_one_step_at_a_time(sep):
    assert np.array_equal(letter_matrix(sep), _reference_letters(sep))


@pytest.mark.parametrize("seed", range(4))
def test_letter_matrix_equals_piepho_one_step_at_a_time_on_interval_like_relations(seed):
    """Relations like those of a leaderboard's tests (close values inseparable), 30-45 systems."""
    rng = np.random.default_rng(seed)
    S = 30 + 5 * seed
    v = np.sort(rng.random(S))[::-1]
    se = rng.uniform(0.01, 0.05, S)
    sep = np.abs(v[:, None] - v[None, :]) / np.hypot(se[:, None], se[None, :]) > 2.5
    sep[rng.random((S, S)) < 0.02] = False             # a few inseparable pairs out of line
    sep &= sep.T
    np.fill_diagonal(sep, False)
    cols = letter_matrix(sep)
    assert np.array_equal(cols, _reference_letters(sep))
    assert not check_letters(sep, cols)
