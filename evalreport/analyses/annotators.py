"""Agreement between the annotators of the gold labels, and each system scored against each
annotator (``agreement.csv``, ``annotators.csv``).

* Krippendorff's alpha for nominal data (Krippendorff 2011, "Computing Krippendorff's
  Alpha-Reliability", section C): from the coincidence matrix ``o[c, k] = sum over items u of
  (pairs of values c, k in u) / (m_u - 1)`` over the items with at least two values (``m_u``),
  ``alpha = 1 - (n - 1) sum_{c != k} o[c, k] / sum_{c != k} n_c n_k``, with ``n_c`` the row sums
  of ``o`` and ``n`` their total. Missing values are allowed.
* Fleiss' kappa (Fleiss 1971, eq. 1-9) over the items every annotator labelled (the statistic
  needs the same number of ratings per item): ``kappa = (P_bar - P_e) / (1 - P_e)``, with
  ``P_i = (sum_j n_ij^2 - m) / (m (m - 1))`` and ``P_e = sum_j p_j^2``.
* mean pairwise agreement: the share of items two annotators label alike, averaged over pairs.

``annotators.csv`` scores every system against every annotator (the items that annotator
labelled) under the primary measure, and every annotator against every other one (system
``annotator <name>``): the human ceiling beside the systems.
"""
from __future__ import annotations

import itertools

import numpy as np
import pandas as pd

from evalreport.counts import confusion_from_codes
from evalreport.measures import compute, get

__all__ = ["krippendorff_alpha", "fleiss_kappa", "pairwise_agreement", "agreement_table", "annotator_scores",
           "AGREEMENT_COLUMNS", "ANNOTATOR_COLUMNS"]

AGREEMENT_COLUMNS = ["annotators", "items", "krippendorff_alpha", "fleiss_kappa", "fleiss_items", "pairwise_agreement"]
ANNOTATOR_COLUMNS = ["system", "annotator", "measure", "value", "items"]


def _counts(codes: np.ndarray, K: int) -> np.ndarray:
    """(N, K): how many annotators gave each item each value (missing: -1, not counted)."""
    codes = np.asarray(codes)
    out = np.zeros((codes.shape[1], K), dtype=np.int64)
    for row in codes:
        ok = row >= 0
        np.add.at(out, (np.flatnonzero(ok), row[ok]), 1)
    return out


def krippendorff_alpha(codes: np.ndarray, n_values: int | None = None) -> float:
    """Krippendorff's alpha for nominal data (module docstring).

    Parameters
    ----------
    codes : (A, N) integer codes, -1 where an annotator gave no value.
    n_values : int, optional
        The number of values (default: the largest code + 1).

    Returns
    -------
    float
        NaN when fewer than two pairable values or a single value occurs.
    """
    codes = np.asarray(codes)
    K = int(n_values if n_values is not None else codes.max() + 1)
    n_uc = _counts(codes, K)
    m = n_uc.sum(axis=1)
    n_uc = n_uc[m >= 2]
    m = m[m >= 2]
    if not len(m):
        return float("nan")
    # o[c, k] = sum_u n_uc n_uk / (m_u - 1) for c != k; o[c, c] = sum_u n_uc (n_uc - 1) / (m_u - 1)
    w = 1.0 / (m - 1)
    o = (n_uc * w[:, None]).T @ n_uc
    o[np.diag_indices(K)] -= (n_uc * w[:, None]).sum(axis=0)
    n_c = o.sum(axis=1)
    n = n_c.sum()
    disagree_obs = o.sum() - np.trace(o)
    disagree_exp = n_c.sum() ** 2 - (n_c ** 2).sum()
    if disagree_exp == 0:
        return float("nan")
    return float(1.0 - (n - 1) * disagree_obs / disagree_exp)


def fleiss_kappa(codes: np.ndarray, n_values: int | None = None) -> tuple[float, int]:
    """Fleiss' kappa over the items every annotator labelled (module docstring).

    Parameters
    ----------
    codes : (A, N) integer codes, -1 where missing.
    n_values : int, optional
        The number of values.

    Returns
    -------
    (float, int)
        Kappa (NaN when undefined: no complete item or a single value) and the items used.
    """
    codes = np.asarray(codes)
    full = codes[:, (codes >= 0).all(axis=0)]
    A, N = full.shape
    if N == 0 or A < 2:
        return float("nan"), int(N)
    K = int(n_values if n_values is not None else codes.max() + 1)
    n_ij = _counts(full, K).astype(float)
    p_j = n_ij.sum(axis=0) / (N * A)
    P_i = ((n_ij ** 2).sum(axis=1) - A) / (A * (A - 1))
    P_e = float((p_j ** 2).sum())
    if P_e == 1:
        return float("nan"), int(N)
    return float((P_i.mean() - P_e) / (1 - P_e)), int(N)


def pairwise_agreement(codes: np.ndarray) -> float:
    """Mean over annotator pairs of the share of their common items labelled alike (NaN: none)."""
    codes = np.asarray(codes)
    shares = []
    for i, j in itertools.combinations(range(codes.shape[0]), 2):
        both = (codes[i] >= 0) & (codes[j] >= 0)
        if both.any():
            shares.append(float((codes[i][both] == codes[j][both]).mean()))
    return float(np.mean(shares)) if shares else float("nan")


def agreement_table(codes: np.ndarray, n_values: int) -> pd.DataFrame:
    """One row: annotators, items, krippendorff_alpha, fleiss_kappa, fleiss_items, pairwise_agreement.

    Parameters
    ----------
    codes : (A, N) integer codes, -1 where missing.
    n_values : int
        The number of classes.

    Returns
    -------
    pandas.DataFrame
    """
    kappa, used = fleiss_kappa(codes, n_values)
    return pd.DataFrame([{"annotators": codes.shape[0], "items": codes.shape[1],
                          "krippendorff_alpha": krippendorff_alpha(codes, n_values), "fleiss_kappa": kappa,
                          "fleiss_items": used, "pairwise_agreement": pairwise_agreement(codes)}],
                        columns=AGREEMENT_COLUMNS)


def annotator_scores(pred: np.ndarray, systems, codes: np.ndarray, annotators, measure, *, n_classes: int,
                     positive=None, policy: str = "nan", costs=None, task=None) -> pd.DataFrame:
    """Every system, and every other annotator, scored against each annotator's labels.

    Parameters
    ----------
    pred : (S, N) the systems' codes on the annotated items (in the order of ``codes``' columns).
    systems : the S system names.
    codes : (A, N) annotator codes, -1 where missing.
    annotators : the A annotator names.
    measure : str or Measure
        Bound to the classes.
    n_classes : int
        K (the codes of ``pred`` and ``codes``).
    positive, policy, costs, task
        As for :func:`evalreport.measures.compute`.

    Returns
    -------
    pandas.DataFrame
        Columns system, annotator, measure, value, items.
    """
    rec = get(measure)
    rows = []
    for a, name in enumerate(annotators):
        keep = codes[a] >= 0
        if not keep.any():
            continue
        C = confusion_from_codes(codes[a][keep], np.asarray(pred)[:, keep], n_classes)
        v = compute(rec, C.astype(float), positive=positive, policy=policy, costs=costs, task=task, explain=False)
        rows += [{"system": s, "annotator": name, "measure": rec.id, "value": float(x), "items": int(keep.sum())}
                 for s, x in zip(systems, np.atleast_1d(v.value))]
        for b, other in enumerate(annotators):
            both = keep & (codes[b] >= 0)
            if b == a or not both.any():
                continue
            C = confusion_from_codes(codes[a][both], codes[b][both], n_classes)
            v = compute(rec, C[None].astype(float), positive=positive, policy=policy, costs=costs, task=task,
                        explain=False)
            rows.append({"system": f"annotator {other}", "annotator": name, "measure": rec.id,
                         "value": float(np.atleast_1d(v.value)[0]), "items": int(both.sum())})
    return pd.DataFrame(rows, columns=ANNOTATOR_COLUMNS)
