"""Class-subset averages and the binding of a measure to one task's classes (and gain matrix).

Official measures of shared tasks often average over some of the classes only: the mean F1 of
FAVOR and AGAINST (SemEval-2016 Task 6), F1^PN (SemEval-2016 Task 4 A), macro F1 without "Other"
(SemEval-2010 Task 8), micro F1 without the majority "O" class. Every record that declares how it
averages over classes (:attr:`Measure.class_average`: the generated one-vs-rest averages and the
hand-declared macro_f1, macro_precision, balanced_accuracy / macro_recall, weighted_f1) takes

``classes=A|B``  average over these classes only, or
``exclude=O``    average over every class but these

(names separated by ``|``, since ``--measures`` is comma-separated; a name cannot contain ``,``,
``|`` or ``)``). Per-class values still come from the whole K x K matrix (a FAVOR item predicted
NONE is a false negative of FAVOR); only the average runs over the subset, through the class mask
that :meth:`Context.mean` and :meth:`Context.class_sum` honour. A micro average over a subset pools
TP, FP, FN of the subset's classes (so micro F1 without "O" is not accuracy; an alias such as
micro_f1 computes over a subset by the one-vs-rest record it names, :data:`SUBSET_AS`).

Identity: the id lists the names sorted (``macro_f1(classes=AGAINST|FAVOR)``), so two spellings of
one subset are one id, the same for every task; the label lists them in the same order ("Macro F1
... over AGAINST, FAVOR", "... without O").

Binding: :func:`bind` resolves the names against a task's class list (an unknown name is a
MeasureError naming it and listing the classes) and attaches a gain matrix to the gain measures;
the result is a new record (:attr:`Measure.bound`), so two tasks with different class sets in one
process never share state. :func:`~evalreport.measures.compute` binds a subset record itself
when it is given ``labels``; the analyses bind their measures to their data's classes on entry.

The audit (synthetic K x K matrices without class names) audits a subset average as the average
over every class but the last (the first K - 1 classes), whatever the names: leaving one class
out is what the official subsets do (2 of 3 for stance and F1^PN, all but "Other" or "O"), and it
is a proper subset for every K >= 2. A gain measure is audited with its bound gain matrix where
that has K classes, else with the 0/1 gain matrix (gain 1 for a correct item; then the relative
gain is accuracy). See :func:`for_synthetic`.
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np

from evalreport.errors import MeasureError
from evalreport.measures._core import REGISTRY, SHADOWED, SUBSET_AS, Measure, fmt

__all__ = ["with_subset", "is_subset", "bind", "restrict", "for_synthetic", "subset_mask", "bound_gains",
           "subset_names"]

SEP = "|"


def is_subset(m: Measure) -> bool:
    """Whether ``m`` averages over a class subset (``classes=`` or ``exclude=``)."""
    return "classes" in m.params or "exclude" in m.params


def subset_names(m: Measure) -> tuple[str, tuple[str, ...]]:
    """``("classes" | "exclude", names)`` of a subset record."""
    key = "classes" if "classes" in m.params else "exclude"
    return key, tuple(str(m.params[key]).split(SEP))


def _averaging_record(measure: Measure, name: str) -> Measure:
    """The record whose function averages with the class mask, for the id ``name`` as written."""
    if name in SUBSET_AS:
        gen = SUBSET_AS[name]
        return REGISTRY[gen] if gen in REGISTRY else SHADOWED[gen]
    if name in SHADOWED and not measure.params:
        return SHADOWED[name]
    return measure


def with_subset(measure: Measure, name: str, subset: dict) -> Measure:
    """The class-subset record of ``measure`` (as looked up under ``name``); ``subset`` holds
    ``classes`` or ``exclude`` as written (``"FAVOR|AGAINST"``)."""
    if len(subset) != 1:
        raise MeasureError(f"measure {name!r}: give classes= or exclude=, not both")
    (key, text), = subset.items()
    names = [part.strip().strip("'\"") for part in str(text).split(SEP)]
    if not any(names):
        raise MeasureError(f"measure {name!r}: {key}= names no class; write {key}=A|B")
    if not all(names):
        raise MeasureError(f"measure {name!r}: {key}={text!r} has an empty class name")
    base = _averaging_record(measure, name)
    if base.class_average is None:
        able = sorted({m.id for m in REGISTRY.values() if m.class_average} | set(SUBSET_AS))
        raise MeasureError(f"measure {name!r} is not an average over classes, so it takes no {key}=; "
                           f"class averages: {', '.join(able)}")
    if is_subset(measure):
        raise MeasureError(f"measure {measure.id!r} already averages over a class subset")
    names = sorted(set(names))
    fam = measure.family or name
    params = {**measure.params, key: SEP.join(names)}
    ident = f"{fam}(" + ",".join(f"{k}={fmt(v)}" for k, v in params.items()) + ")"
    label = measure.label + (f" over {', '.join(names)}" if key == "classes" else f" without {', '.join(names)}")
    scope = (f"averaged over the classes {', '.join(names)} only" if key == "classes"
             else f"averaged over every class but {', '.join(names)}")
    return replace(base, id=ident, label=label, params=params, family=fam, alias_of=None, bound={},
                   source=measure.source, formula=f"{base.formula}; {scope} (per-class values from the whole matrix)",
                   undefined=f"{base.undefined}; only the subset's classes count",
                   # a subset average keeps the function, not the paper's verdicts: the audit computes them
                   claims={}, chance=None, chance_note="")


def bind(measure, labels=None, *, gains=None) -> Measure:
    """``measure`` bound to a task: subset names resolved to indices of ``labels``, ``gains`` (a
    (K, K) matrix in the order of ``labels``) attached to a gain measure. A record that needs
    neither is returned as it is; so is one already bound."""
    from evalreport.measures._core import get

    m = get(measure)
    if not is_subset(m) and "gains" not in m.needs:     # nothing to bind (most records)
        return m
    bound = dict(m.bound)
    changed = False
    if is_subset(m) and "subset" not in bound:
        if labels is None:
            raise MeasureError(f"measure {m.id!r} averages over named classes: it needs the class labels")
        labels = [str(x) for x in labels]
        key, names = subset_names(m)
        unknown = [n for n in names if n not in labels]
        if unknown:
            raise MeasureError(f"measure {m.id!r}: unknown class{'es' if len(unknown) > 1 else ''} "
                               f"{', '.join(map(repr, unknown))}; the classes are {', '.join(labels)}")
        chosen = set(names)
        idx = tuple(i for i, lab in enumerate(labels) if (lab in chosen) == (key == "classes"))
        if not idx:
            raise MeasureError(f"measure {m.id!r}: the subset is empty (exclude= names every class)")
        bound.update(subset=idx, n_classes=len(labels))
        changed = True
    if "gains" in m.needs and gains is not None and "gains" not in bound:
        G = np.asarray(gains, dtype=float)
        K = len(labels) if labels is not None else (G.shape[0] if G.ndim == 2 else -1)
        if G.shape != (K, K):
            raise MeasureError(f"measure {m.id!r}: gain matrix has shape {G.shape}; expected ({K}, {K})")
        if not np.all(np.isfinite(G)):
            raise MeasureError(f"measure {m.id!r}: gain matrix has a missing or infinite entry")
        G = G.copy()
        G.setflags(write=False)
        bound["gains"] = G
        changed = True
    return replace(m, bound=bound) if changed else m


def for_synthetic(measure, K: int) -> Measure:
    """The record as the audit computes it on synthetic K x K matrices (see the module docstring)."""
    from evalreport.measures._core import get

    m = get(measure)
    bound = dict(m.bound)
    if is_subset(m):
        bound.update(subset=tuple(range(max(K - 1, 1))), n_classes=K)
    if "gains" in m.needs:
        G = bound.get("gains")
        if G is None or np.shape(G) != (K, K):
            bound["gains"] = np.eye(K)
    return replace(m, bound=bound) if bound else m


def subset_mask(m: Measure, K: int) -> np.ndarray | None:
    """The (K,) mask of the classes a subset record averages over; None for any other record."""
    if not is_subset(m):
        return None
    idx = m.bound.get("subset")
    if idx is None:
        raise MeasureError(f"measure {m.id!r} averages over named classes: it needs the class labels")
    if max(idx) >= K:
        raise MeasureError(f"measure {m.id!r} was bound to {m.bound.get('n_classes')} classes; "
                           f"this confusion matrix has {K}")
    mask = np.zeros(K, dtype=bool)
    mask[list(idx)] = True
    return mask


def bound_gains(m: Measure, K: int) -> np.ndarray | None:
    """The gain matrix of a gain measure (MeasureError if none is bound); None for other records."""
    if "gains" not in m.needs:
        return None
    G = m.bound.get("gains")
    if G is None:
        raise MeasureError(f"measure {m.id!r} needs a gain matrix (--gains FILE)")
    if np.shape(G) != (K, K):
        raise MeasureError(f"measure {m.id!r}: gain matrix has shape {np.shape(G)}; expected ({K}, {K})")
    return G


def restrict(measure, K: int) -> Measure:
    """A bound record on the first ``K`` classes of its task only (the task's own classes, without
    labels that occur only in predictions): subset indices from K on dropped, the gain matrix cut."""
    from evalreport.measures._core import get

    m = get(measure)
    bound = dict(m.bound)
    if "subset" in bound:
        idx = tuple(i for i in bound["subset"] if i < K)
        if not idx:
            raise MeasureError(f"measure {m.id!r}: none of its classes is one of the task's {K} classes")
        bound.update(subset=idx, n_classes=K)
    if "gains" in bound and np.shape(bound["gains"]) != (K, K):
        bound["gains"] = bound["gains"][:K, :K]
    return replace(m, bound=bound) if bound else m
