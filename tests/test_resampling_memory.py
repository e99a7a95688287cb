"""Resampling in blocks sized to memory: the values do not depend on the block size, and a
large K does not allocate every resample's (S, K, K) tensor at once."""
import numpy as np
import pytest
from conftest import random_runs

from evalreport.analyses import resampling
from evalreport.measures import REGISTRY, applicable, get


@pytest.mark.parametrize("rows", [1, 3, 17])
def test_the_values_are_bit_identical_whatever_the_block(monkeypatch, rows):
    runs = random_runs(5, n_items=300, n_systems=4, n_classes=6, accuracy=0.6, folds=3, fold_names=())
    measures = [m for m in REGISTRY if applicable(get(m), positive=None, costs=None)[0]]
    base = resampling.bootstrap(runs, measures, n_resamples=120, seed=7)
    pair = resampling.pairwise(runs, "macro_f1", n_resamples=120, seed=7, tests=("bootstrap",))
    monkeypatch.setattr(resampling, "_rows_in_memory", lambda cells: rows)
    chunked = resampling.bootstrap(runs, measures, n_resamples=120, seed=7)
    assert np.array_equal(base.samples, chunked.samples, equal_nan=True)
    assert base.intervals.equals(chunked.intervals) and base.rank_distribution.equals(chunked.rank_distribution)
    assert pair.equals(resampling.pairwise(runs, "macro_f1", n_resamples=120, seed=7, tests=("bootstrap",)))


def test_no_tensor_block_is_larger_than_the_budget(monkeypatch):
    """K = 60, 4 systems: the old code made one (b, 4, 60, 60) block of every resample drawn at once."""
    runs = random_runs(5, n_items=2000, n_systems=4, n_classes=60, accuracy=0.6, folds=3, fold_names=())
    cells = 4 * 60 * 60
    monkeypatch.setattr(resampling, "_available_memory", lambda: 32 * 8 * 5 * cells)   # room for 5 resamples
    assert resampling._rows_in_memory(cells) == 5
    seen = []
    real = resampling.resampled_confusions

    def spy(pat, weights, indicator=None):
        T = real(pat, weights, indicator)
        seen.append(T.shape[0])
        return T

    monkeypatch.setattr(resampling, "resampled_confusions", spy)
    result = resampling.bootstrap(runs, ["accuracy", "macro_f1"], n_resamples=200, seed=1)
    assert max(seen[1:]) <= 5 and sum(seen[1:]) == 200        # seen[0]: the point estimate
    monkeypatch.setattr(resampling, "resampled_confusions", real)
    monkeypatch.setattr(resampling, "_available_memory", lambda: 2 ** 40)
    assert np.array_equal(result.samples, resampling.bootstrap(runs, ["accuracy", "macro_f1"], n_resamples=200,
                                                               seed=1).samples, equal_nan=True)


def test_available_memory_is_read():
    assert resampling._available_memory() > 0
    assert resampling._rows_in_memory(10 ** 12) == 1
