"""Exhaustive consistency study of binary measures (Gösgens et al. 2021, section 5.1).

Two measures M1, M2 are consistent on a triplet of labelings (A, B1, B2) if
M1(A, B1) * M1(A, B2) implies M2(A, B1) * M2(A, B2) for * in {>, <, =}; a pair is
indistinguishable at n if it is consistent on every triplet of binary labelings of n items in
which every labeling contains both classes.

Vectorised over confusion matrices instead of labelings: the value M(A, B) depends on A and B
only through their confusion matrix, and for a gold labeling A with a1 positives every matrix
with TP in 0..a1, FP in 0..n-a1 is reached by some B (with multiplicity C(a1, TP) C(a0, FP),
which does not matter for "ever inconsistent"). So the triplets are all pairs of matrices with
the same gold sizes; B must contain both classes: 1 <= TP + FP <= n - 1.

Measures where lower is better (confusion entropy) are negated first (Gösgens et al. 2021, section 3:
"we may restrict to measures for which higher values indicate higher similarity"). Ties are
values within ``tol``; a triplet on which one of the two measures is undefined is skipped.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from evalreport.analyses.audit.properties import evaluate_measure
from evalreport.measures import get

#: The measures of Gösgens et al. (2021), Table 3, in its column order (Acc, BA, F1, kappa, CE, GM1, CC, SBA).
GOESGENS_2021_TABLE_3 = ("accuracy", "balanced_accuracy", "f1", "kappa", "confusion_entropy", "gm1", "mcc", "sba")


def binary_pairs_space(n: int):
    """All binary confusion matrices of n items with both classes in gold and in predictions,
    and their gold positive count a1: ``(mats (M, 2, 2), a1 (M,))``."""
    a1 = np.repeat(np.arange(1, n), [(a + 1) * (n - a + 1) for a in range(1, n)])
    tp = np.concatenate([np.repeat(np.arange(a + 1), n - a + 1) for a in range(1, n)])
    fp = np.concatenate([np.tile(np.arange(n - a + 1), a + 1) for a in range(1, n)])
    a0 = n - a1
    b1 = tp + fp
    keep = (b1 >= 1) & (b1 <= n - 1)
    a1, tp, fp, a0 = a1[keep], tp[keep], fp[keep], a0[keep]
    mats = np.stack([np.stack([a0 - fp, fp], -1), np.stack([a1 - tp, tp], -1)], -2)
    return mats, a1


def _labeling(n_neg, n_pos, tn, fp, fn, tp):
    gold = "0" * n_neg + "1" * n_pos
    pred = "0" * tn + "1" * fp + "0" * fn + "1" * tp
    return gold, pred


def consistency(measures=GOESGENS_2021_TABLE_3, n_range=range(2, 11), *, tol: float = 1e-9,
                policy: str = "nan") -> pd.DataFrame:
    """For every n and every pair of measures: were they consistent on every triplet?

    Returns a tidy frame ``(n, measure_a, measure_b, consistent, example)``; ``example`` is the
    first triplet ``A / B1 / B2`` (gold first) on which they disagree, '' if none.
    """
    ms = [get(m) for m in measures]
    ids = [m.id for m in ms]
    rows = []
    for n in n_range:
        mats, a1 = binary_pairs_space(int(n))
        V = np.stack([(1.0 if m.higher_is_better else -1.0) * evaluate_measure(m, mats, policy=policy) for m in ms])
        bad = np.zeros((len(ms), len(ms)), dtype=bool)
        example = {}
        for a in np.unique(a1):
            idx = np.nonzero(a1 == a)[0]
            v = V[:, idx]                                              # (m, G)
            diff = v[:, :, None] - v[:, None, :]                       # (m, G, G)
            scale = np.maximum(1.0, np.maximum(np.abs(v[:, :, None]), np.abs(v[:, None, :])))
            sign = np.where(np.abs(diff) <= tol * scale, 0, np.sign(diff))
            valid = ~np.isnan(diff)
            both = valid[:, None] & valid[None, :]                     # (m, m, G, G)
            differ = both & (sign[:, None] != sign[None, :])
            hit = differ.any(axis=(2, 3))
            for i, j in zip(*np.nonzero(hit & ~bad)):
                if i < j:
                    x, y = np.argwhere(differ[i, j])[0]
                    cx, cy = mats[idx[x]], mats[idx[y]]
                    gold, p1 = _labeling(int(n - a), int(a), cx[0, 0], cx[0, 1], cx[1, 0], cx[1, 1])
                    _, p2 = _labeling(int(n - a), int(a), cy[0, 0], cy[0, 1], cy[1, 0], cy[1, 1])
                    example[(i, j)] = (f"A={gold} B1={p1} B2={p2}: {ids[i]} {_cmp(sign[i, x, y])}, "
                                       f"{ids[j]} {_cmp(sign[j, x, y])}")
            bad |= hit
        for i in range(len(ms)):
            for j in range(i + 1, len(ms)):
                rows.append({"n": int(n), "measure_a": ids[i], "measure_b": ids[j], "consistent": not bad[i, j],
                             "example": example.get((i, j), "")})
    return pd.DataFrame(rows, columns=["n", "measure_a", "measure_b", "consistent", "example"])


def _cmp(s) -> str:
    return {1: "prefers B1", -1: "prefers B2", 0: "ties"}[int(s)]


def indistinguishable_groups(measures=GOESGENS_2021_TABLE_3, n_range=range(2, 11), *, frame: pd.DataFrame | None = None,
                             **kwargs) -> pd.DataFrame:
    """Groups of measures indistinguishable at each n (Gösgens et al. 2021, Table 3).

    A group is a connected component (size >= 2) of the graph whose edges are the pairs that
    are consistent on every triplet; ``clique`` says whether every pair inside it is consistent
    (indistinguishability need not be transitive). Returns ``(n, group, measures, size, clique)``
    with ``measures`` listed in the order given; an n without any group has no rows.
    """
    if frame is None:
        frame = consistency(measures, n_range, **kwargs)
    order = [get(m).id for m in measures]
    rows = []
    for n, sub in frame.groupby("n", sort=True):
        edges = sub[sub["consistent"]]
        parent = {m: m for m in order}

        def find(x, parent=parent):
            while parent[x] != x:
                parent[x] = parent[parent[x]]
                x = parent[x]
            return x

        for a, b in zip(edges["measure_a"], edges["measure_b"]):
            parent[find(a)] = find(b)
        comps: dict[str, list[str]] = {}
        for m in order:
            comps.setdefault(find(m), []).append(m)
        ok = set(zip(edges["measure_a"], edges["measure_b"]))
        g = 0
        for members in comps.values():
            if len(members) < 2:
                continue
            clique = all((a, b) in ok or (b, a) in ok for i, a in enumerate(members) for b in members[i + 1:])
            rows.append({"n": int(n), "group": g, "measures": members, "size": len(members), "clique": clique})
            g += 1
    return pd.DataFrame(rows, columns=["n", "group", "measures", "size", "clique"])
