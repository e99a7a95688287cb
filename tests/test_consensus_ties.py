"""Consensus ranks never depend on system names (organiser review, item 2).

Every consensus method must give a renamed system the rank it had: Kemeny-Young (Kemeny 1959;
Young & Levenglick 1978) ties the systems that optimal orders put in different orders instead
of breaking the tie by name, and the other methods use average ranks for ties.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import given, settings, strategies as st

from evalreport.analyses.consensus import consensus

tables = st.integers(1, 5).flatmap(lambda T: st.integers(2, 7).flatmap(lambda S: st.lists(
    st.integers(0, 3), min_size=T * S, max_size=T * S).map(lambda v: np.array(v, float).reshape(T, S))))


def _frame(table, names):
    T, S = table.shape
    return pd.DataFrame({"task": np.repeat([f"t{i}" for i in range(T)], S), "system": np.tile(names, T),
                         "value": table.ravel()})


@settings(max_examples=60, deadline=None)
@given(tables, st.randoms(use_true_random=False), st.sampled_from(["drop", "last"]))
def test_renaming_systems_never_changes_a_consensus_rank(table, rnd, missing):
    T, S = table.shape
    names = [f"s{j}" for j in range(S)]
    new = [f"x{k}" for k in rnd.sample(range(S), S)]            # a new alphabetical order
    a = consensus(_frame(table, names), missing=missing).table
    b = consensus(_frame(table, new), missing=missing).table
    b = b.assign(system=b["system"].map(dict(zip(new, names))))
    key = ["method", "system"]
    pd.testing.assert_frame_equal(a.sort_values(key).reset_index(drop=True)[key + ["rank"]],
                                  b.sort_values(key).reset_index(drop=True)[key + ["rank"]])


def test_notes_say_kemeny_ties_are_shared_not_broken_by_name():
    c = consensus(_frame(np.array([[2.0, 1.0, 0.0], [1.0, 2.0, 0.0]]), ["a", "b", "c"]))
    note = next(n for n in c.notes if n.startswith("kemeny"))
    assert "tied" in note and "name" not in note
    k = c.table[c.table["method"] == "kemeny"].set_index("system")["rank"]
    assert k["a"] == k["b"] == 1.5
