"""How many items each example-based measure left out, and what scikit-learn would report instead.

An example-based measure (example precision, recall, F1, Jaccard: :mod:`evalreport.measures.multilabel`)
is a mean over items of a per-item ratio that is 0/0 on some items (precision: an empty predicted
set; recall: an empty gold set; F1 and Jaccard: both empty). The 0/0 policy decides those items
after summing: ``nan`` leaves them out of the mean, ``zero`` / ``one`` count them as 0 / 1,
``convention`` as the record's convention. scikit-learn's ``precision_score``, ``recall_score``,
``f1_score`` and ``jaccard_score`` with ``average="samples"`` make the same choice through
``zero_division``: ``0`` and ``1`` count them as 0 and 1, the default ``"warn"`` counts them as 0
(and warns), and ``np.nan`` (not accepted by ``jaccard_score``) leaves them out. The same value can therefore differ between two
tools by the number of such items; :func:`example_skips` counts them and computes the value under
each reading, through the registry (:func:`~evalreport.measures.multilabel.example_based`).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from evalreport.counts.multilabel import STAT
from evalreport.measures import get
from evalreport.measures.multilabel import example_based

__all__ = ["SKIP_COLUMNS", "example_skips", "undefined_stat"]

SKIP_COLUMNS = ["system", "measure", "items", "zero_division_items", "policy", "value", "zero_division_nan",
                "zero_division_0", "zero_division_1", "equals"]

#: scikit-learn's zero_division setting -> the policy that reproduces it
_SKLEARN = (("nan", "nan"), ("0", "zero"), ("1", "one"))


def undefined_stat(measure) -> str | None:
    """The column of :data:`~evalreport.counts.multilabel.STATS` that counts the items where the
    example-based ``measure`` is 0/0 (None for measures without such items: subset accuracy,
    Hamming loss)."""
    m = get(measure)
    name = f"{m.id.removeprefix('example_')}_undef"
    return name if m.kind == "example" and name in STAT else None


def example_skips(counts, measures, *, policy: str = "nan") -> pd.DataFrame:
    """One row per (system, example-based measure with per-item 0/0): how many items were 0/0.

    ``counts``: :class:`~evalreport.counts.multilabel.MultiLabelCounts`; ``measures``: ids or
    records (others are ignored). Columns :data:`SKIP_COLUMNS`: ``items`` (N),
    ``zero_division_items`` (items where the measure is 0/0: left out of ``value`` under policy
    ``nan``), ``value`` (under ``policy``), ``zero_division_nan`` / ``_0`` / ``_1`` (the value as
    scikit-learn computes it with that ``zero_division``; its default ``"warn"`` gives ``_0``;
    ``jaccard_score`` has no ``np.nan``, so there ``_nan`` is the mean over the defined items) and
    ``equals`` (the zero_division settings whose value equals ``value``, e.g. ``"nan"``; ``""``
    for none).
    """
    stats = np.asarray(counts.example_stats, dtype=float)
    systems = list(counts.systems)
    frames = []
    for spec in measures:
        m = get(spec)
        col = undefined_stat(m)
        if col is None:
            continue
        own = np.asarray(example_based(m, stats, policy=policy, explain=False).value, dtype=float)
        readings = {zd: np.asarray(example_based(m, stats, policy=p, explain=False).value, dtype=float)
                    for zd, p in _SKLEARN}
        same = [", ".join(zd for zd, _ in _SKLEARN if (np.isnan(own[s]) and np.isnan(readings[zd][s]))
                          or abs(own[s] - readings[zd][s]) <= 1e-12) for s in range(len(systems))]
        frames.append(pd.DataFrame({
            "system": systems, "measure": m.id, "items": int(counts.n_items),
            "zero_division_items": stats[:, STAT[col]].astype(np.int64), "policy": policy, "value": own,
            **{f"zero_division_{zd}": v for zd, v in readings.items()}, "equals": same}))
    if not frames:
        return pd.DataFrame(columns=SKIP_COLUMNS)
    return pd.concat(frames, ignore_index=True)[SKIP_COLUMNS]
