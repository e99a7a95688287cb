"""How many labels each label-based multi-label average left out (or filled in) because of a 0/0 case.

A macro or weighted average over labels (:func:`evalreport.measures.multilabel.label_based`) meets
0/0 cases: a label a system never predicts has no precision, a label no gold item carries has no
recall, and so on. Under the ``nan`` policy those labels are skipped, so the value is a mean over
the rest (scikit-learn's ``zero_division=np.nan``); under ``zero`` / ``one`` / ``convention`` they
are counted with that value. Either way a reader must know how many there were: a macro precision
of 0.966 over 9 of 12 labels says something other than one over all of them. (The items an
example-based measure leaves out are counted in ``example_skips``:
:mod:`evalreport.analyses.multilabel_skips`.)

:func:`label_skips` returns one row per (system, label-based average) with at least one such label:

``system``, ``measure``
``unit``     ``"labels"``
``skipped``  how many of the task's labels had the 0/0 case (for a weighted average only labels
             with gold items count: a label of weight 0 cannot change the value)
``total``    the task's labels
``policy``   the 0/0 policy: ``nan`` means those labels were left out of the mean
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from evalreport.counts.multilabel import count_multilabel
from evalreport.errors import MeasureError
from evalreport.measures import get
from evalreport.measures.multilabel import label_record, label_values

__all__ = ["COLUMNS", "label_skips"]

COLUMNS = ["system", "measure", "unit", "skipped", "total", "policy"]


def label_skips(runs, measures, *, policy: str = "nan", counts=None) -> pd.DataFrame:
    """The 0/0 labels inside each label-based average (module docstring). ``runs``: a
    :class:`~evalreport.inputs.multilabel.MultiLabelRuns` (or give its ``counts``); ``measures``:
    ids (example-based ones and micro averages have no such labels and are passed over)."""
    counts = count_multilabel(runs) if counts is None else counts
    systems = [str(s) for s in counts.systems]
    n_task = int(getattr(counts, "n_task", None) or counts.label_tensor.shape[-3])
    rows = []
    for mid in measures:
        m = get(mid)
        if m.kind == "example":
            continue
        try:
            gen = label_record(m)
        except MeasureError:      # no label-based meaning: nothing is averaged over labels
            continue
        if gen.averaging not in ("macro", "weighted") or not gen.base:
            continue
        T = np.asarray(counts.label_tensor, dtype=float)[..., :n_task, :, :]
        _, undef = label_values(gen.base, T, policy="nan", params=gen.params)
        if gen.averaging == "weighted":
            support = T[..., 1, 1] + T[..., 1, 0]          # tp + fn: gold items of the label
            undef = undef & (support > 0)
        n = undef.sum(axis=-1)
        rows += [(s, mid, "labels", int(k), n_task) for s, k in zip(systems, n) if k > 0]
    out = pd.DataFrame(rows, columns=COLUMNS[:-1])
    out["policy"] = policy
    return out[COLUMNS]
