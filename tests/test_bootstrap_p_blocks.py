"""The paired bootstrap test's p-values are computed in blocks of pairs (memory at 300 systems): the
blocks give the whole array's values to the last bit in every column, the flat (Monte-Carlo fallback),
undefined and zero-difference ones included."""
from __future__ import annotations

import numpy as np

from evalreport.analyses import significance
from evalreport.analyses.significance import bootstrap_p


def test_blocks_equal_the_whole_array_at_once(monkeypatch):
    rng = np.random.default_rng(5)
    block = significance._P_BLOCK
    P = block * 2 + 7
    d = rng.normal(size=(200, P))
    obs = rng.normal(size=P)
    d[:, 3], obs[3] = 0.25, 0.25                                   # flat, observed at the flat value
    d[:, P - 2], obs[P - 2] = 0.0, 0.1                             # flat across a later block
    d[::4, 10] = np.nan                                            # some resamples undefined
    d[:, 11] = np.nan                                              # every resample undefined
    obs[12] = np.nan
    obs[13] = 0.0
    p, n, se = bootstrap_p(d, obs)
    monkeypatch.setattr(significance, "_P_BLOCK", P)              # one block: every column at once
    whole = bootstrap_p(d, obs)
    for got, want in zip((p, n, se), whole):
        assert np.array_equal(got, want, equal_nan=True)
    # and near a single column's own values (the sums of one column may round in another order)
    for j in [0, 3, 10, block * 2 - 1, P - 2]:
        pj = bootstrap_p(d[:, [j]], obs[[j]])[0]
        assert np.allclose(p[[j]], pj, rtol=1e-9, atol=0), j
    assert p[13] == 1.0 and np.isnan(p[11]) and np.isnan(p[12])
    # where d* is flat, the Monte-Carlo share (1 + #{|d* - d| >= |d|}) / (1 + B): none of the 200 centred
    # resamples reach |d| in column 3 (d* = d), all of them in the later block's column (d* = 0, d = 0.1)
    assert p[3] == 1 / 201 and p[P - 2] == 1.0
