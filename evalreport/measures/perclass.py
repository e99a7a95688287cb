"""Per-class values of binary measures: every class in turn as the positive class.

One call over the one-vs-rest counts of all classes at once (no loop over classes), through
the same declared functions and the same division helper as everything else.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from evalreport.measures._core import ALIASES, Context
from evalreport.measures.binary import BINARY, ovr_counts


def per_class(C, measure: str, *, policy: str = "nan"):
    """Values of binary measure ``measure`` with each class as positive: ``(values, undefined)``
    of shape ``C.shape[:-2] + (K,)``. An alias of a binary measure (``f_star``) gives its values."""
    measure = ALIASES.get(measure, (measure,))[0]
    if measure not in BINARY:
        raise KeyError(f"{measure!r} is not a binary measure; per-class values exist for: {', '.join(BINARY)}")
    base = BINARY[measure]
    C = np.asarray(C, dtype=float)
    tp, fp, fn, tn = ovr_counts(C)
    ctx = Context(tp.shape, policy=policy, convention=base.convention, params=base.params)
    with np.errstate(divide="ignore", invalid="ignore"):
        # binary() keeps the function of (TP, FP, FN, TN) as the measure's fn.__wrapped__
        values = np.asarray(base.fn.__wrapped__(tp, fp, fn, tn, ctx), dtype=float)  # type: ignore[attr-defined, type-var]
    undefined = np.zeros(tp.shape, dtype=bool)
    for _, mask in ctx.events:
        undefined |= np.broadcast_to(mask, tp.shape)
    return values, undefined


def per_class_frame(counts, measures=("recall", "precision", "f1"), *, policy: str = "nan") -> pd.DataFrame:
    """Tidy per-class values: (system, class, metric, value, undefined)."""
    tensor = np.asarray(counts.tensor)
    frames = []
    S, K = tensor.shape[0], tensor.shape[-1]
    for m in measures:
        values, undefined = per_class(tensor, m, policy=policy)
        frames.append(pd.DataFrame({
            "system": np.repeat(np.asarray(counts.systems, dtype=object), K),
            "class": np.tile(np.asarray(counts.labels, dtype=object), S),
            "metric": m, "value": values.reshape(-1), "undefined": undefined.reshape(-1)}))
    return pd.concat(frames, ignore_index=True)
