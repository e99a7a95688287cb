"""Which measures are the same quantity, and which always rank systems alike: computed.

Two relations over a seeded sample of confusion matrices (random ones, plus matrices with an
empty gold class, a never-predicted class, one class only, and perfect and all-wrong
predictions, where the 0/0 cases live):

``equal``
    the same value (to 10 decimals) and the same undefined cells on every matrix,
    e.g. micro F1 and accuracy (paper 002, Appendix A), or ``mcc_micro`` and ``kappa_micro``
    (the summed one-vs-rest matrix has FP = FN).
``same order``
    one is a strictly increasing function of the other (after each measure's direction): they
    order every pair of matrices alike, so they rank any set of systems identically and their
    rank correlation is 1, e.g. F1 and Jaccard (paper 003: J = F / (2 - F)) or MCC and the
    correlation distance. ``equal`` implies ``same order``.

Like the audit's PIII, a relation found here is "no counterexample in the sample" (a sample can
only refute one); declared aliases (``macro_recall`` -> ``balanced_accuracy``) are identities
the registry already knows, and a test checks each of them under every policy.

The check is one vectorised call per measure on one stacked tensor per class count; grouping
is by hashing each measure's values (``equal``) and its dense ranks (``same order``), so there
is no loop over pairs of measures.
"""
from __future__ import annotations

import hashlib

import numpy as np
import pandas as pd
from scipy.stats import rankdata

from evalreport.measures import compute, get
from evalreport.measures.evaluate import default_measures

COLUMNS = ["scope", "relation", "group", "measure", "members"]


def sample(K: int, *, n_random: int = 3000, seed: int = 0, max_count: int = 6) -> np.ndarray:
    """The seeded matrices the relations are checked on: ``(M, K, K)`` float counts."""
    rng = np.random.default_rng([seed, K])
    C = rng.integers(0, max_count + 1, (n_random, K, K)).astype(float)
    sparse = rng.random((n_random, K, K)) < 0.5         # many zero cells, so small classes and 0/0 occur
    C[n_random // 2:] *= sparse[n_random // 2:]
    m = n_random // 10
    C[:m, 0, :] = 0                                      # class 0 absent from the gold labels
    C[m:2 * m, :, K - 1] = 0                             # class K-1 never predicted
    eye = np.eye(K)
    special = [eye * rng.integers(1, 5, K), np.roll(eye, 1, axis=1) * rng.integers(1, 5, K)]  # perfect, all wrong
    one = np.zeros((K, K))
    one[0, 0] = 3                                        # one class only, all right
    special += [one, one[:, ::-1].copy()]                # ... and all wrong
    return np.concatenate([C, np.stack(special)])


def identities(measures=None, *, classes=(2, 3, 4), n_random: int = 3000, seed: int = 0, positive: int = 0,
               policy: str = "nan") -> pd.DataFrame:
    """Groups of measures that are equal, or order-equivalent, on every sampled matrix.

    ``measures``: ids or records (default: every measure that applies without a cost matrix,
    binary ones with class ``positive`` as positive). ``classes``: the class counts; a relation
    must hold for all of them (scope ``"all"``); relations that hold only for K = 2 are listed
    with scope ``"binary"``. Returns a tidy frame with columns ``scope``, ``relation``
    (``equal``, ``same order``), ``group`` (the first member, in the order given), ``measure``
    and ``members`` (the whole group, comma-separated); only groups with two or more members.
    """
    chosen = default_measures(positive=positive) if measures is None else [get(m) for m in measures]
    chosen = [m for m in chosen if "costs" not in m.needs]
    ids = [m.id for m in chosen]
    classes = tuple(sorted({int(k) for k in classes}))
    keys = {K: _keys(chosen, sample(K, n_random=n_random, seed=seed), positive, policy) for K in classes}
    rows = []
    scopes = [("all", classes)] + ([("binary", (2,))] if 2 in classes and len(classes) > 1 else [])
    for scope, ks in scopes:
        for relation in ("equal", "same order"):
            found = _group(ids, [tuple(keys[K][relation][i] for K in ks) for i in range(len(ids))])
            if scope == "binary":   # only what is new for K = 2
                everywhere = {frozenset(g) for g in _group(ids, [tuple(keys[K][relation][i] for K in classes)
                                                                 for i in range(len(ids))])}
                found = [g for g in found if frozenset(g) not in everywhere]
            for g in found:
                rows += [{"scope": scope, "relation": relation, "group": g[0], "measure": m,
                          "members": ", ".join(g)} for m in g]
    return pd.DataFrame(rows, columns=COLUMNS)


def _keys(measures, C, positive, policy):
    """Per measure: a hash of its values + undefined cells, and a hash of its direction-aware dense ranks."""
    equal, order = [], []
    for m in measures:
        r = compute(m, C, positive=positive if "positive" in m.needs else None, policy=policy, explain=False)
        v = np.asarray(r.value, dtype=float)
        nan = np.isnan(v)
        rounded = np.where(nan, 0.0, np.round(v, 10))      # floating noise is not a difference
        equal.append(_digest(rounded, nan, r.undefined))
        oriented = np.where(nan, 0.0, rounded if m.higher_is_better else -rounded)
        ranks = rankdata(oriented, method="dense").astype(np.int64)
        order.append(_digest(np.where(nan, -1, ranks), nan))
    return {"equal": equal, "same order": order}


def _digest(*arrays) -> str:
    h = hashlib.sha256()
    for a in arrays:
        h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()


def _group(ids, keys):
    groups: dict = {}
    for i, key in zip(ids, keys):
        groups.setdefault(key, []).append(i)
    return [g for g in groups.values() if len(g) > 1]
