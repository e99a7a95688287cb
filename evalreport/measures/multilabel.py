"""Multi-label measures: example-based records (``kind="example"``) and the label-based use of
the one-vs-rest averages.

Label-based. Multi-label classification "corresponds to performing BC [binary classification]
independently for each of the classes" (Sebastiani 2015, footnote 8), so every binary measure applies
to each label's 2 x 2 matrix (:mod:`evalreport.counts.multilabel`), averaged as in Gösgens et al.
(2021), section 2: macro = mean over labels (undefined labels per the policy, :meth:`Context.mean`),
micro = the measure of the summed matrices, weighted = mean weighted by gold support. Nothing is
re-declared: :func:`label_record` maps a registry id to the generated one-vs-rest record. Accepted:
every ``<binary>_macro|_micro|_weighted`` id, their aliases (``f_star_macro``) and the hand-declared
records of the same averages (``macro_f1``, ``macro_precision``, ``macro_recall``, ``weighted_f1``,
``micro_f1``; ``f1_micro`` is NOT accuracy here). Refused, with the reason: single-label K-class
measures (``accuracy``, ``mcc``, ``kappa``, ...: a set of labels gives no K x K matrix of items with
one gold and one predicted class), binary measures of one positive class (use the per-label table),
ordinal / cost / gain measures, and class subsets (``classes=``).

Example-based. Declared here with ``kind="example"``: the function takes the summed per-item
statistics ``(..., n_stats)`` of :data:`evalreport.counts.multilabel.STATS` and a :class:`Context`. A
per-item ratio with a zero denominator is undefined for that item, decided by the policy after
summing: ``nan`` skips the item in the mean (scikit-learn's ``zero_division=np.nan``), ``zero`` /
``one`` count it as 0 / 1 (``zero_division=0`` / ``1``; scikit-learn's default ``"warn"`` acts as
0), ``convention`` uses the record's convention. The Hamming loss divides by N x ``n_task``: a label
only one system predicts is its error, not a larger denominator for every system (so it can exceed
1). Never offered for single-label data (``applicable`` is False, ``compute`` refuses them).

Claims. Each example-based record's ``claims`` are the verdicts its formula implies for the papers'
properties read for label sets (:mod:`evalreport.analyses.audit.multilabel`; e.g. ``goesgens.Max`` =
best exactly when every predicted set is right). No paper states them: they are this project's
analysis of each formula (a reason per claim below), and
:func:`~evalreport.analyses.audit.multilabel.audit_multilabel` must compute the same verdicts.
"""
from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from evalreport.counts.multilabel import STAT, STATS, MultiLabelCounts
from evalreport.errors import MeasureError
from evalreport.measures._core import (
    ALIASES,
    REGISTRY,
    SHADOWED,
    SUBSET_AS,
    Context,
    Measure,
    Result,
    get,
    register,
    result,
)

__all__ = ["EXAMPLE_SOURCE", "label_record", "label_based", "label_values", "example_based", "compute_multilabel",
           "multilabel_measures", "is_multilabel", "evaluate_multilabel"]

GODBOLE = "Godbole & Sarawagi 2004 (Discriminative methods for multi-labeled classification, PAKDD)"
TSOUMAKAS = "Tsoumakas & Katakis 2007 (Multi-label classification: an overview, IJDWM), evaluation measures"
EXAMPLE_SOURCE = f"{TSOUMAKAS}; {GODBOLE}"
_NOTE = ("example-based multi-label measure: computed only for multi-label runs; audited on label sets "
         "(evalreport.analyses.audit.multilabel)")

# Claims shared by every example-based record: a mean over items of a per-item quantity that
# treats labels alike (CSym) and never lowers when one label decision is made right (PI).
_SHARED = {"goesgens.CSym": True, "opitz.PI": True}


def _item_mean(stats, ctx: Context, name: str, what: str):
    """Mean over items of a per-item ratio whose 0/0 items the policy decides (see module doc)."""
    n = stats[..., STAT["items"]]
    total = stats[..., STAT[f"{name}_sum"]]
    undef = stats[..., STAT[f"{name}_undef"]]
    if math.isnan(ctx.fill):
        ctx.flag(undef > 0, f"{what}; such items skipped in the mean over items")
        return ctx.div(total, n - undef, f"{what} for every item")
    ctx.flag(undef > 0, what)
    return ctx.div(total + ctx.fill * undef, n, "no items")


def _example(id, label, *, formula, undefined, convention=None, convention_source="", higher=True, source=None,
             chance_note="", claims=None):
    def deco(f):
        register(Measure(id=id, label=label, fn=f, kind="example", source=source or EXAMPLE_SOURCE,
                         formula=formula, range=(0.0, 1.0), higher_is_better=higher, undefined=undefined,
                         convention=convention, convention_source=convention_source, notes=_NOTE,
                         chance_note=chance_note, claims={**_SHARED, **(claims or {})}))
        return f
    return deco


@_example("subset_accuracy", "Subset accuracy (exact match)", formula="(1/N) sum_i [G_i = P_i]",
          undefined="never (for N > 0)", source=f"{TSOUMAKAS}; scikit-learn accuracy_score on indicator matrices",
          # one of two missing labels added: the set is still wrong (MON fails); 1 iff every set is right
          claims={"sebastiani.MON": False, "sebastiani.SDE": True, "sebastiani.FIX": True, "goesgens.Max": True,
                  "goesgens.Sym": True})
def subset_accuracy(stats, ctx):
    return ctx.div(stats[..., STAT["exact"]], stats[..., STAT["items"]], "no items")


@_example("hamming_loss", "Hamming loss", formula="(1/(N L)) sum_i |G_i symmetric-difference P_i|",
          undefined="never (for N > 0 and L > 0)", higher=False,
          source=f"{TSOUMAKAS} (after Schapire & Singer 2000); scikit-learn hamming_loss",
          # every right decision removes one symmetric-difference element; the complement scores 1
          claims={"sebastiani.MON": True, "sebastiani.SDE": True, "sebastiani.FIX": True, "goesgens.Max": True,
                  "goesgens.Sym": True})
def hamming_loss(stats, ctx):
    return ctx.div(stats[..., STAT["symdiff"]], stats[..., STAT["labels"]], "no items or no labels")


@_example("example_precision", "Example-based precision", formula="(1/N) sum_i |G_i & P_i| / |P_i|",
          undefined="an item with an empty predicted set (|P_i| = 0)", convention=0.0,
          convention_source="scikit-learn precision_score(average='samples') with its default zero_division",
          # a subset of G scores 1 (Max); an empty gold set makes every defined value 0 (FIX); P and G
          # exchanged gives recall (Sym); a wrong label removed while |G & P| = 0 stays 0 (MON)
          claims={"sebastiani.MON": False, "sebastiani.SDE": False, "sebastiani.FIX": False, "goesgens.Max": False,
                  "goesgens.Sym": False})
def example_precision(stats, ctx):
    return _item_mean(stats, ctx, "precision", "example precision: an item with no predicted label (|P_i| = 0)")


@_example("example_recall", "Example-based recall", formula="(1/N) sum_i |G_i & P_i| / |G_i|",
          undefined="an item with an empty gold set (|G_i| = 0)", convention=0.0,
          convention_source="scikit-learn recall_score(average='samples') with its default zero_division",
          # a superset of G scores 1 (Max); removing a wrong label changes nothing (MON); every gold with a
          # label reaches 0 and 1 and an all-empty gold is undefined throughout (FIX holds where defined)
          claims={"sebastiani.MON": False, "sebastiani.SDE": False, "sebastiani.FIX": True, "goesgens.Max": False,
                  "goesgens.Sym": False})
def example_recall(stats, ctx):
    return _item_mean(stats, ctx, "recall", "example recall: an item with no gold label (|G_i| = 0)")


@_example("example_f1", "Example-based F1", formula="(1/N) sum_i 2 |G_i & P_i| / (|G_i| + |P_i|)",
          undefined="an item with empty gold and empty predicted sets (|G_i| + |P_i| = 0)", convention=1.0,
          convention_source="both sets empty: the prediction agrees exactly (as subset accuracy counts it); "
                            "scikit-learn f1_score(average='samples', zero_division=1)",
          # G = {a}, P = {b} -> P = {}: 0 -> 0 (MON); an all-empty gold: 0 or undefined, never 1 (FIX)
          claims={"sebastiani.MON": False, "sebastiani.SDE": False, "sebastiani.FIX": False, "goesgens.Max": True,
                  "goesgens.Sym": True})
def example_f1(stats, ctx):
    return _item_mean(stats, ctx, "f1", "example F1: an item with empty gold and predicted sets")


@_example("example_jaccard", "Example-based Jaccard (accuracy of Godbole & Sarawagi)",
          formula="(1/N) sum_i |G_i & P_i| / |G_i | P_i|",
          undefined="an item with empty gold and empty predicted sets (|G_i | P_i| = 0)", convention=1.0,
          convention_source="both sets empty: exact agreement; scikit-learn jaccard_score(average='samples', "
                            "zero_division=1)",
          # as example F1 (|G & P| / |G | P| is 0 or 1 exactly where 2|G & P| / (|G| + |P|) is)
          claims={"sebastiani.MON": False, "sebastiani.SDE": False, "sebastiani.FIX": False, "goesgens.Max": True,
                  "goesgens.Sym": True})
def example_jaccard(stats, ctx):
    return _item_mean(stats, ctx, "jaccard", "example Jaccard: an item with empty gold and predicted sets")


EXAMPLE_IDS = ("subset_accuracy", "hamming_loss", "example_precision", "example_recall", "example_f1",
               "example_jaccard")


# ------------------------------------------------------------------------------ label-based


def label_record(spec) -> Measure:
    """The one-vs-rest average record that computes ``spec`` over labels, or MeasureError saying
    why ``spec`` has no multi-label meaning. Example-based records are returned as they are."""
    m = get(spec)
    if m.kind == "example":
        return m
    if m.bound.get("subset") is not None or any(k in ("classes", "exclude") for k in m.bound):
        raise MeasureError(f"measure {m.id!r}: label subsets (classes=/exclude=) are not built for multi-label data")
    name = m.id.split("(")[0]
    if m.averaging and m.base:
        return m
    target = SUBSET_AS.get(name, name)
    if target in SHADOWED:       # f1_micro, precision_macro, ...: the generated average itself
        gen = SHADOWED[target]
        return gen.with_params(**m.params) if m.params else gen
    canon = m.alias_of or m.id
    same = [s for s, (of, _, _) in ALIASES.items()
            if of == canon and s in SHADOWED and (averaging := SHADOWED[s].averaging) is not None and averaging in name]
    if len(same) == 1:           # macro_f1 = f1_macro, weighted_f1 = f1_weighted, macro_recall = recall_macro
        return SHADOWED[same[0]]
    if m.kind == "binary":
        raise MeasureError(f"measure {m.id!r} is a binary measure for one positive class; for label sets ask for "
                           f"its average over labels ({name}_macro, {name}_micro, {name}_weighted) or see the "
                           "per-label table")
    if m.needs:
        raise MeasureError(f"measure {m.id!r} needs {', '.join(m.needs)}, which label sets do not have")
    raise MeasureError(f"measure {m.id!r} is a single-label measure of a K x K confusion matrix (one gold and one "
                       "predicted class per item); label sets have no such matrix, so it is not defined for "
                       "multi-label data (use subset_accuracy, the example-based measures or a per-label average)")


def _binary_fn(gen: Measure):
    from evalreport.measures.binary import BINARY

    assert gen.base is not None                   # a generated average names its binary measure
    # binary() keeps the function of (TP, FP, FN, TN) as the measure's fn.__wrapped__
    return BINARY[gen.base].fn.__wrapped__  # type: ignore[attr-defined]


def _cells(T):
    T = np.asarray(T, dtype=float)
    if T.ndim < 3 or T.shape[-2:] != (2, 2):
        raise MeasureError(f"a label tensor must end in (L, 2, 2); got shape {T.shape}")
    return T[..., 1, 1], T[..., 0, 1], T[..., 1, 0], T[..., 0, 0]


def label_values(base: str, label_tensor, *, policy: str = "nan", params=None) -> tuple[np.ndarray, np.ndarray]:
    """Per-label values ``(..., L)`` of the binary measure ``base`` and their undefined mask."""
    from evalreport.measures.binary import BINARY

    rec = BINARY[base]
    tp, fp, fn, tn = _cells(label_tensor)
    ctx = Context(tp.shape, policy=policy, convention=rec.convention, params={**rec.params, **(params or {})})
    with np.errstate(divide="ignore", invalid="ignore"):
        # binary() keeps the function of (TP, FP, FN, TN) as the measure's fn.__wrapped__
        value = np.asarray(rec.fn.__wrapped__(tp, fp, fn, tn, ctx), dtype=float)  # type: ignore[attr-defined, type-var]
    undefined = np.zeros(tp.shape, dtype=bool)
    for _, mask in ctx.events:
        undefined |= np.broadcast_to(mask, tp.shape)
    return np.broadcast_to(value, tp.shape).copy(), undefined


def label_based(measure, label_tensor, *, policy: str = "nan", labels=None, explain: bool = True,
                n_task: int | None = None) -> Result:
    """A label-based average (macro / micro / weighted over labels, Gösgens et al. 2021, section 2) of a
    binary measure, for every ``(..., L, 2, 2)`` label tensor. The result carries the id asked for.

    ``n_task``: the first ``n_task`` labels are the task's label set (default: all L). Macro and
    weighted averages run over them only: a label only some system predicted (read with
    ``allow_unknown=True``) is a false positive of that system in the micro average and the
    example-based measures, but under policy ``zero`` / ``one`` its 0/0 per-label value would
    otherwise enter every OTHER system's macro average. The micro average pools TP, FP and FN of
    every label and TN of the task's labels only (another system's TN on an invented label would
    otherwise raise its micro accuracy or specificity)."""
    asked = get(measure)
    gen = label_record(asked)
    if gen.kind == "example":
        raise MeasureError(f"measure {gen.id!r} is example-based: it needs the example statistics")
    f = _binary_fn(gen)
    tp, fp, fn, tn = _cells(label_tensor)
    L = tp.shape[-1]
    if n_task is not None and gen.averaging != "micro" and n_task < L:
        if not 0 <= n_task:
            raise MeasureError(f"n_task must be >= 0; got {n_task}")
        tp, fp, fn, tn = (x[..., :n_task] for x in (tp, fp, fn, tn))
        labels = None if labels is None else list(labels)[:n_task]
        L = n_task
    ctx = Context(tp.shape[:-1], policy=policy, convention=gen.convention, params=gen.params, n_classes=L)
    with np.errstate(divide="ignore", invalid="ignore"):
        if gen.averaging == "micro":     # an invented label adds its FPs, never TNs to the other systems
            value = f(tp.sum(-1), fp.sum(-1), fn.sum(-1), tn[..., :L if n_task is None else n_task].sum(-1), ctx)
        else:
            first = len(ctx.events)
            per_label = f(tp, fp, fn, tn, ctx)
            weights = None if gen.averaging == "macro" else tp + fn
            if weights is not None:     # a label no gold item has weighs 0: its 0/0 cannot matter
                ctx.events[first:] = [(t, mask & (weights > 0)) for t, mask in ctx.events[first:]]
            value = ctx.mean(per_label, weights=weights, what=f"per-label {gen.base}")
    named = replace(gen, id=asked.id, label=asked.label, source=asked.source, alias_of=asked.alias_of)
    return _result(named, ctx, value, labels if labels is not None else [str(i) for i in range(L)], explain)


def example_based(measure, example_stats, *, policy: str = "nan", explain: bool = True) -> Result:
    """An example-based measure for every ``(..., n_stats)`` statistics vector."""
    m = get(measure)
    if m.kind != "example":
        raise MeasureError(f"measure {m.id!r} is not example-based")
    S = np.asarray(example_stats, dtype=float)
    if S.shape[-1] != len(STATS):
        raise MeasureError(f"example statistics must end in {len(STATS)} columns; got shape {S.shape}")
    ctx = Context(S.shape[:-1], policy=policy, convention=m.convention, params=m.params)
    with np.errstate(divide="ignore", invalid="ignore"):
        value = m.fn(S, ctx)
    return _result(m, ctx, value, [], explain)


def _result(m: Measure, ctx: Context, value, labels, explain: bool) -> Result:
    return result(m, ctx, np.broadcast_to(np.asarray(value, dtype=float), ctx.batch).copy(), labels, explain=explain)


def compute_multilabel(measure, counts: MultiLabelCounts, *, policy: str = "nan", explain: bool = True) -> Result:
    """One measure (example- or label-based) for every system (and batch) of ``counts``."""
    m = get(measure)
    if m.kind == "example":
        return example_based(m, counts.example_stats, policy=policy, explain=explain)
    return label_based(m, counts.label_tensor, policy=policy, labels=list(counts.labels), explain=explain,
                       n_task=getattr(counts, "n_task", None))


def multilabel_measures() -> list[Measure]:
    """The default multi-label measures: the example-based records, then every label-based average
    of a binary measure without numeric parameters (``fbeta_macro(beta=2)`` is asked for by name),
    under the generated ids (``f1_macro``, ``f1_micro``, ...)."""
    from evalreport.measures.binary import BINARY

    out = [REGISTRY[i] for i in EXAMPLE_IDS]
    for base, rec in BINARY.items():
        if any(not isinstance(v, str) for v in rec.params.values()):
            continue
        for avg in ("macro", "micro", "weighted"):
            out.append(get(f"{base}_{avg}"))
    return out


def is_multilabel(data) -> bool:
    """Whether ``data`` is multi-label: :class:`MultiLabelCounts` or runs with gold ``(N, L)`` and pred ``(S, N, L)``."""
    if isinstance(data, MultiLabelCounts):
        return True
    gold, pred = getattr(data, "gold", None), getattr(data, "pred", None)
    return gold is not None and pred is not None and np.ndim(gold) == 2 and np.ndim(pred) == 3


def evaluate_multilabel(data, measures=None, *, policy: str = "nan"):
    """:func:`evalreport.measures.evaluate` for multi-label data (runs or :class:`MultiLabelCounts`):
    one tidy frame ``system, measure, value, undefined, reason`` (default :func:`multilabel_measures`)."""
    import pandas as pd

    from evalreport.counts.multilabel import count_multilabel

    counts = data if isinstance(data, MultiLabelCounts) else count_multilabel(data)
    chosen = multilabel_measures() if measures is None else [get(m) for m in measures]
    results = [compute_multilabel(m, counts, policy=policy) for m in chosen]
    S = len(counts.systems)
    cat = (lambda key: np.concatenate([getattr(r, key) for r in results])) if results else (lambda key: np.empty(0))
    return pd.DataFrame({"system": np.tile(np.asarray(counts.systems, dtype=object), len(chosen)),
                         "measure": np.repeat(np.asarray([m.id for m in chosen], dtype=object), S),
                         "value": cat("value"), "undefined": cat("undefined"), "reason": cat("reason")})
