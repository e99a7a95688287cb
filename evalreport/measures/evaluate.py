"""Compute many measures for many systems -> one tidy DataFrame."""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from evalreport.errors import MeasureError
from evalreport.measures._core import Measure, aliases_of, catalogue, compute, get, resolve_positive, unique
from evalreport.measures._shared import quiet_errors, shared_sums
from evalreport.measures.subsets import bind

if TYPE_CHECKING:        # imported where a frame is built: the registry (and the CLI's start) does without pandas
    import pandas as pd


def _multiclass_forms(m) -> list[str]:
    """The registered macro, micro and weighted averages of a binary measure (canonical ids)."""
    forms = []
    for avg in ("macro", "micro", "weighted"):
        try:
            forms.append(get(f"{m.id}_{avg}").id)
        except MeasureError:
            pass
    return list(dict.fromkeys(forms))


def applicable(measure, *, positive=None, costs=None, gains=None) -> tuple[bool, str]:
    """Whether a measure can be computed with what was given, and if not, why."""
    m = get(measure)
    if m.kind == "example":
        return False, "example-based multi-label measure: needs multi-label runs"
    if m.kind == "scores":
        return False, "score-based measure: needs the systems' scores (score or score_<class> columns)"
    if "positive" in m.needs and positive is None:
        forms = _multiclass_forms(m)
        return False, ("binary measure: needs a positive class (--positive)"
                       + (f"; its multi-class forms: {', '.join(forms)}" if forms else ""))
    if "costs" in m.needs and costs is None:
        return False, "needs a class order (--order) or a cost matrix (--costs)"
    if "gains" in m.needs and gains is None and "gains" not in m.bound:
        return False, "needs a gain matrix (--gains)"
    return True, ""


def default_measures(*, positive=None, costs=None, gains=None) -> list[Measure]:
    """Every registered measure that applies to the data, except the open parametrised
    families (``fbeta``, ``gm``: ask for them by name, e.g. ``fbeta(beta=2)``). A measure whose
    parameters are all choices among names (``k_cost``, error=ae|se) is included at its default."""
    return [m for m in catalogue() if not any(not isinstance(v, str) for v in m.params.values())
            and applicable(m, positive=positive, costs=costs, gains=gains)[0]]


def evaluate(data, measures=None, *, positive=None, policy: str = "nan", costs=None, labels=None,
             systems=None, gains=None) -> pd.DataFrame:
    """Compute measures for every system.

    Parameters
    ----------
    data : Counts, Runs, multi-label runs or counts, or array
        :class:`~evalreport.counts.Counts`, :class:`~evalreport.inputs.Runs`, multi-label runs or
        counts (:func:`evalreport.measures.multilabel.evaluate_multilabel`), or an array
        ``(S, K, K)`` / ``(K, K)`` / ``(S, F, K, K)``.
    measures : sequence of str or Measure, optional
        Ids or records (default: :func:`default_measures`), bound to the data's classes.
    positive : str or int, optional
        The positive class of the binary measures.
    policy : {"nan", "zero", "one", "convention"}
        What an undefined (0/0) value becomes.
    costs, gains : array, optional
        (K, K) cost and gain matrices of the measures that need one.
    labels, systems : sequence of str, optional
        Names of an array's classes and systems.

    Returns
    -------
    pandas.DataFrame
        Tidy: ``system``, (``fold``), ``measure``, ``value``, ``undefined``, ``reason``.

    Examples
    --------
    >>> from evalreport import evaluate
    >>> evaluate([[5, 1], [2, 4]], ["accuracy"], labels=["a", "b"])["value"].round(3).tolist()
    [0.75]
    """
    from evalreport.measures.multilabel import evaluate_multilabel, is_multilabel

    if is_multilabel(data):          # MultiLabelRuns / MultiLabelCounts: example- and label-based measures
        if positive is not None or costs is not None or gains is not None:
            raise MeasureError("multi-label data has no positive class, cost or gain matrix")
        return evaluate_multilabel(data, measures, policy=policy)
    import pandas as pd

    return pd.DataFrame(evaluate_columns(data, measures, positive=positive, policy=policy, costs=costs, labels=labels,
                                         systems=systems, gains=gains))


def evaluate_columns(data, measures=None, *, positive=None, policy: str = "nan", costs=None, labels=None,
                     systems=None, gains=None) -> dict[str, np.ndarray]:
    """:func:`evaluate`'s frame of single-label data as its columns (name -> array), without pandas
    (``evaluate`` is ``pandas.DataFrame(evaluate_columns(...))``; ``evalreport score`` writes CSV and
    JSON from them)."""
    tensor, labels, systems, folds = _unpack(data, labels, systems)
    tensor = np.asarray(tensor, dtype=float)      # once, not in every measure's compute
    task = getattr(data, "n_task", None)          # Counts / Runs: classes only in predictions
    if positive is not None:
        positive = resolve_positive(positive, labels, tensor.shape[-1], n_task=task)
    chosen = default_measures(positive=positive, costs=costs, gains=gains) if measures is None else unique(measures)
    chosen = [bind(m, labels, gains=gains) for m in chosen]
    for m in chosen:
        ok, why = applicable(m, positive=positive, costs=costs)
        if not ok:
            raise MeasureError(f"measure {m.id!r}: {why}")
    with shared_sums(), quiet_errors():          # row, column and one-vs-rest sums once for every measure
        results = [compute(m, tensor, positive=positive, policy=policy, costs=costs, labels=labels, task=task)
                   for m in chosen]
    cells = int(np.prod(tensor.shape[:-2]))          # systems (x folds) per measure
    frame = {"system": np.tile(np.repeat(np.asarray(systems, dtype=object), cells // max(len(systems), 1)),
                               len(chosen))}
    if folds:
        frame["fold"] = np.tile(np.asarray(folds, dtype=object), len(systems) * len(chosen))
    frame["measure"] = np.repeat(np.asarray([m.id for m in chosen], dtype=object), cells)
    frame["value"] = np.concatenate([r.value.ravel() for r in results]) if results else np.empty(0)
    frame["undefined"] = np.concatenate([r.undefined.ravel() for r in results]) if results else np.empty(0, bool)
    frame["reason"] = np.concatenate([r.reason.ravel() for r in results]) if results else np.empty(0, object)
    return frame


def _unpack(data, labels, systems):
    from evalreport.counts import Counts
    from evalreport.inputs.runs import Runs

    if isinstance(data, Runs):
        data = Counts.from_runs(data)
    if isinstance(data, Counts):
        return np.asarray(data.tensor), list(data.labels), list(data.systems), list(data.fold_names)
    tensor = np.asarray(data)
    if tensor.ndim == 2:
        tensor = tensor[None]
    if tensor.ndim not in (3, 4):
        raise MeasureError(f"expected a confusion tensor (S, K, K) or (S, F, K, K); got shape {tensor.shape}")
    K = tensor.shape[-1]
    labels = list(labels) if labels is not None else [str(i) for i in range(K)]
    systems = list(systems) if systems is not None else [f"system_{i + 1}" for i in range(tensor.shape[0])]
    folds = [str(f) for f in range(tensor.shape[1])] if tensor.ndim == 4 else []
    return tensor, labels, systems, folds


def catalogue_frame(measures=None) -> pd.DataFrame:
    """The registry as a table: one row per measure with its declared metadata. Each quantity is
    listed once, under its canonical id, with its other ids in ``aliases`` (an alias asked for by
    name gets its own row, with ``alias_of`` set)."""
    import pandas as pd

    rows = []
    for m in (catalogue() if measures is None else [get(x) for x in measures]):
        rows.append({
            "id": m.id, "label": m.label, "kind": m.kind, "averaging": m.averaging or "",
            "direction": m.direction, "range": f"[{m.range[0]:g}, {m.range[1]:g}]",
            "chance": ("1/K" if callable(m.chance) else ("" if m.chance is None else f"{m.chance:g}")),
            "undefined": m.undefined, "convention": "" if m.convention is None else f"{m.convention:g}",
            "params": ", ".join(f"{k}={v:g}" if not isinstance(v, str) else f"{k}={v}" for k, v in m.params.items()), "formula": m.formula,
            "source": m.source, "aliases": ", ".join(aliases_of(m.alias_of or m.id)),
            "alias_of": m.alias_of or "",
        })
    return pd.DataFrame(rows)
