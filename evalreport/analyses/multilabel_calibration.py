"""Prevalence calibration of multi-label systems, label by label (Opitz 2022, eq. 5-6).

Multi-label classification is one binary task per label (Sebastiani 2015, footnote 8), so the
calibration of :mod:`evalreport.analyses.prevalence` applies to each label's 2 x 2 matrix (rows = gold
negative / positive): the rows are rescaled so that the label's gold prevalence becomes the reference
``pi`` and N is kept, each row keeping its error proportions (recall and specificity do not move). A
calibrated precision or F1 is the label's *as if it occurred in a share pi of the items*: a rare label
is no longer punished for the false positives its rarity invites, a frequent one no longer helped.
Which labels come together on one item is not a property of the per-label matrices, so the
example-based measures have no calibrated form.

Reference ``pi`` (``calibration_reference``): ``"uniform"`` (default) = 0.5, both rows get N / 2,
exactly Opitz (2022) eq. 6 with K = 2 (:func:`evalreport.analyses.prevalence.calibrate`); ``"mean"``,
the mean gold prevalence of the task's labels (the gold label density); or a number in (0, 1). A label
whose gold items are all positive or all negative cannot be scaled: its calibrated matrix is its own
and ``calibrable`` is False.

Tables
------
``calibration``  system, label, prevalence (gold share), measure (each per-label binary measure whose
                 value depends on prevalence, found on scaled probe matrices: precision, f1, jaccard,
                 mcc, never recall), value, calibrated, in_task (False for labels only predicted),
                 calibrable
``calibration_summary``  system, measure (each label-based average of the comparison), value,
                 calibrated, rank, rank_calibrated (1 = best; macro and weighted over the task's
                 labels, micro over the pooled calibrated matrices; every calibrable label then has
                 support pi N, so weighted equals macro up to the labels that cannot be calibrated)
"""
from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from evalreport.analyses import ranking
from evalreport.analyses.prevalence import PrevalenceWarning, scale
from evalreport.measures.multilabel import label_based, label_record, label_values

__all__ = ["reference_prevalence", "calibrate_labels", "calibration_tables", "prevalence_dependent"]

#: per-label measures always shown (with every prevalence-dependent base of the comparison's averages)
PER_LABEL = ("precision", "f1")
_PROBES = np.array([[[50.0, 10.0], [5.0, 15.0]], [[3.0, 7.0], [2.0, 8.0]], [[9.0, 1.0], [4.0, 1.0]]])


def reference_prevalence(reference, label_tensor, n_task: int) -> float:
    """The reference prevalence pi of ``calibration_reference`` (module docstring)."""
    if isinstance(reference, str):
        if reference == "uniform":
            return 0.5
        if reference == "mean":
            T = np.asarray(label_tensor, dtype=float)
            T = T[0] if T.ndim == 4 else T
            support = T[:n_task, 1, :].sum(axis=-1)
            total = T[:n_task].sum(axis=(-2, -1))
            share = np.divide(support, total, out=np.zeros_like(support), where=total > 0)
            pi = float(share.mean()) if n_task else float("nan")
            if not 0.0 < pi < 1.0:
                raise ValueError(f"calibration_reference 'mean': the mean label prevalence is {pi}, not in (0, 1)")
            return pi
        raise ValueError(f"calibration_reference must be 'uniform', 'mean' or a number in (0, 1); got {reference!r}")
    pi = float(reference)
    if not 0.0 < pi < 1.0:
        raise ValueError(f"calibration_reference must lie strictly between 0 and 1; got {reference!r}")
    return pi


def calibrate_labels(label_tensor, pi: float) -> np.ndarray:
    """Every label's 2 x 2 matrix ``(..., L, 2, 2)`` scaled to gold prevalence ``pi`` (total kept);
    a label with an empty gold row is returned as it is."""
    T = np.asarray(label_tensor, dtype=float)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrevalenceWarning)
        return scale(T, np.array([1.0 - pi, pi]))


def prevalence_dependent(base: str, policy: str = "nan") -> bool:
    """Whether the binary measure ``base`` changes when a 2 x 2 matrix is prevalence-scaled:
    computed on fixed probe matrices and their calibrated forms."""
    raw, _ = label_values(base, _PROBES[None], policy=policy)
    cal, _ = label_values(base, calibrate_labels(_PROBES[None], 0.5), policy=policy)
    both = ~np.isnan(raw) & ~np.isnan(cal)
    return bool((np.abs(raw - cal)[both] > 1e-9).any() or (np.isnan(raw) != np.isnan(cal)).any())


def calibration_tables(counts, chosen, *, reference="uniform", policy: str = "nan"):
    """``(calibration, calibration_summary, pi)`` for a :class:`~evalreport.counts.multilabel.MultiLabelCounts`
    and the comparison's measure records ``chosen`` (example-based ones are left out)."""
    T = np.asarray(counts.label_tensor, dtype=float)              # (S, L, 2, 2)
    S, L = T.shape[:2]
    n_task = counts.n_task
    pi = reference_prevalence(reference, T, n_task)
    cal = calibrate_labels(T, pi)
    label_based_ms = [m for m in chosen if label_record(m).kind != "example"]
    named = list(PER_LABEL) + [label_record(m).base for m in label_based_ms]
    bases = [b for b in dict.fromkeys(named) if b is not None and prevalence_dependent(b, policy)]
    N = float(counts.n_items)
    gold_rows = T[0].sum(axis=-1) if S else np.zeros((L, 2))         # (L, 2): gold negatives, positives
    calibrable = (gold_rows > 0).all(axis=-1)
    prevalence = gold_rows[:, 1] / N if N else np.full(L, np.nan)
    frames = []
    for base in bases:
        raw, _ = label_values(base, T, policy=policy)
        new, _ = label_values(base, cal, policy=policy)
        frames.append(pd.DataFrame({
            "system": np.repeat(np.asarray(counts.systems, dtype=object), L),
            "label": np.tile(np.asarray(counts.labels, dtype=object), S),
            "prevalence": np.tile(prevalence, S), "measure": base, "value": raw.ravel(), "calibrated": new.ravel(),
            "in_task": np.tile(np.arange(L) < n_task, S), "calibrable": np.tile(calibrable, S)}))
    columns = ["system", "label", "prevalence", "measure", "value", "calibrated", "in_task", "calibrable"]
    calibration = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=columns)
    rows = []
    directions = {}
    for m in label_based_ms:
        before = label_based(m, T, policy=policy, n_task=n_task, explain=False).value
        after = label_based(m, cal, policy=policy, n_task=n_task, explain=False).value
        directions[m.id] = label_record(m).higher_is_better
        rows.append(pd.DataFrame({"system": list(counts.systems), "measure": m.id, "value": before,
                                  "calibrated": after}))
    cols = ["system", "measure", "value", "calibrated", "rank", "rank_calibrated"]
    if not rows:
        return calibration, pd.DataFrame(columns=cols), pi
    summary = pd.concat(rows, ignore_index=True)
    raw_rank = ranking.rank(summary[["system", "measure", "value"]], higher_is_better=directions)
    cal_rank = ranking.rank(summary[["system", "measure", "calibrated"]].rename(columns={"calibrated": "value"}),
                            higher_is_better=directions)
    key = ["system", "measure"]
    summary = summary.merge(raw_rank[[*key, "rank"]], on=key, how="left").merge(
        cal_rank[[*key, "rank"]].rename(columns={"rank": "rank_calibrated"}), on=key, how="left")
    return calibration, summary[cols], pi
