"""Which measures are the same quantity, and which always rank systems alike: computed.

Two relations over a seeded sample of confusion matrices (random ones, plus matrices with an
empty gold class, a never-predicted class, one class only, and perfect and all-wrong
predictions, where the 0/0 cases live):

``equal``
    the same value (within a relative 1e-9) and the same undefined cells on every matrix,
    e.g. micro F1 and accuracy (Opitz 2022, Appendix A), or ``mcc_micro`` and ``kappa_micro``
    (the summed one-vs-rest matrix has FP = FN).
``same order``
    one is a strictly increasing function of the other (after each measure's direction): they
    order every pair of matrices alike, so they rank any set of systems identically and their
    rank correlation is 1, e.g. F1 and Jaccard (Hand, Christen & Kirielle 2021: J = F / (2 - F)) or MCC and the
    correlation distance. ``equal`` implies ``same order``.

Like the audit's PIII, a relation found here is "no counterexample in the sample" (a sample can
only refute one); declared aliases (``macro_recall`` -> ``balanced_accuracy``) are identities
the registry already knows, and a test checks each of them under every policy.

The check is one vectorised call per measure on one stacked tensor per class count; grouping
is by hashing each measure's dense ranks (undefined cells set apart, floating noise counted as a
tie), so there is no loop over pairs of measures; measures with equal ranks are then compared
value by value for ``equal``.
"""
from __future__ import annotations

import hashlib

import numpy as np
import pandas as pd

from evalreport.errors import MeasureError
from evalreport.measures import compute, for_synthetic
from evalreport.measures._core import unique
from evalreport.measures._shared import quiet_errors, shared_sums
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

    ``measures``: ids or records (default: every measure that applies without a cost matrix).
    Binary measures take class ``positive`` of the sampled matrices as the positive class (an
    index below every class count; the samples treat every class alike, so 0 stands for any). ``classes``: the class counts; a relation
    must hold for all of them (scope ``"all"``); relations that hold only for K = 2 are listed
    with scope ``"binary"``. Returns a tidy frame with columns ``scope``, ``relation``
    (``equal``, ``same order``), ``group`` (the first member, in the order given), ``measure``
    and ``members`` (the whole group, comma-separated); only groups with two or more members.
    """
    classes = tuple(sorted({int(k) for k in classes}))
    if not classes or classes[0] < 2:
        raise MeasureError(f"class counts must be integers >= 2; got {classes}")
    if not (isinstance(positive, (int, np.integer)) and 0 <= positive < classes[0]):
        raise MeasureError(f"positive must be a class index below {classes[0]} (the smallest class count sampled); "
                           f"got {positive!r}")
    chosen = default_measures(positive=positive) if measures is None else unique(measures)
    # (measures of a cost or gain matrix: the sampled matrices have none of theirs)
    chosen = [m for m in chosen if "costs" not in m.needs and "gains" not in m.needs]
    ids = [m.id for m in chosen]
    per_k = {K: _profile(chosen, sample(K, n_random=n_random, seed=seed), positive, policy) for K in classes}
    rows = []
    scopes = [("all", classes)] + ([("binary", (2,))] if 2 in classes and len(classes) > 1 else [])
    found_all = {}
    for scope, ks in scopes:
        for relation in ("equal", "same order"):
            found = _groups(ids, [per_k[K] for K in ks], relation)
            if scope == "all":
                found_all[relation] = {frozenset(g) for g in found}
            else:                       # only what is new for K = 2
                found = [g for g in found if frozenset(g) not in found_all[relation]]
            for g in found:
                rows += [{"scope": scope, "relation": relation, "group": g[0], "measure": m,
                          "members": ", ".join(g)} for m in g]
    return pd.DataFrame(rows, columns=COLUMNS)


#: Relative tolerance under which two values of one measure count as tied (floating noise).
TIE = 1e-9


def _profile(measures, C, positive, policy):
    """Per measure: values, undefined cells and hashes of its dense ranks (oriented, undefined set apart)."""
    out = []
    C = np.asarray(C, dtype=float)
    with shared_sums(), quiet_errors():
        # (a class subset or a gain matrix as the audit reads it on K synthetic classes)
        results = [compute(for_synthetic(m, C.shape[-1]), C, positive=positive if "positive" in m.needs else None,
                           policy=policy, explain=False) for m in measures]
    for m, r in zip(measures, results):
        v = np.asarray(r.value, dtype=float)
        nan = np.isnan(v)
        ranks = _dense(v, nan)
        oriented = ranks if m.higher_is_better else np.where(nan, -1, ranks.max(initial=0) - ranks)
        out.append({"value": v, "undefined": np.asarray(r.undefined), "nan": nan,
                    "rank": _digest(nan, ranks, r.undefined), "order": _digest(nan, oriented)})
    return out


def _dense(v, nan):
    """Dense ranks of the defined values (ties within :data:`TIE`, relative), -1 where undefined."""
    ranks = np.full(v.shape, -1, dtype=np.int64)
    defined = np.flatnonzero(~nan)
    if len(defined):
        order = defined[np.argsort(v[defined], kind="stable")]
        x = v[order]
        with np.errstate(invalid="ignore"):   # inf - inf: a tie
            new = np.diff(x) > TIE * np.maximum(1.0, np.abs(x[1:]))
        ranks[order] = np.concatenate([[0], np.cumsum(new)])
    return ranks


def _groups(ids, profiles, relation):
    """Groups (2+ members, in the order given) of measures related on every profiled class count."""
    if relation == "same order":
        return _group(ids, [tuple(p[i]["order"] for p in profiles) for i in range(len(ids))])
    # equal: the same ranks and undefined cells (hashed), then the same values within tolerance
    out = []
    for candidates in _group(ids, [tuple(p[i]["rank"] for p in profiles) for i in range(len(ids))]):
        index = [ids.index(c) for c in candidates]
        while index:
            first, rest = index[0], index[1:]
            same = [j for j in rest if all(np.allclose(p[first]["value"], p[j]["value"], rtol=TIE, atol=TIE,
                                                       equal_nan=True) for p in profiles)]
            if same:
                out.append([ids[first]] + [ids[j] for j in same])
            index = [j for j in rest if j not in same]
    return out


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
