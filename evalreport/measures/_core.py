"""The measure registry, the one division helper, and ``compute``.

Formula texts share one notation: K classes, N items (N = sum of the cells), c_ij the items of
gold class i predicted j, a_i / b_j the gold / predicted class sizes; binary measures use TP, FP,
FN, TN, AP, AN, PP, PN (Sebastiani 2015). No formula writes n or m (Opitz 2022 and Gösgens et al.
2021 use them for either count); tests/test_registry.py checks this.

A measure is declared once, as a :class:`Measure` record: its id, label, source, formula,
range, direction, chance value, undefined cases, convention for them, parameters and the
properties the papers claim for it. Its function takes a float confusion tensor ``C`` of shape
``(..., K, K)`` (rows = gold, columns = predicted) and a :class:`Context`, and returns an
array of shape ``C.shape[:-2]``. Everything else (docs, report labels, the audit, the tests,
``evalreport measures``) reads these records.

Undefined cases. Measure functions never divide with ``/``: they call :meth:`Context.div`,
which (like scikit-learn's single ``_prf_divide``) owns every 0/0 decision. Where a
denominator is zero it records the event (a reason and a mask) and returns the value the
policy asks for:

``nan`` (default)
    NaN. Averages over classes then *skip* the undefined classes (``np.nanmean``).
``zero`` / ``one``
    0 or 1 (averages then *count* the class with that value).
``convention``
    the measure's own documented convention (``Measure.convention``), NaN if it has none.

Every result carries a boolean ``undefined`` mask (some 0/0 occurred while computing that
cell) and a text ``reason`` naming the cases, e.g. ``"precision: no predicted items
(TP + FP = 0) for class b; skipped in the average"``.
"""
from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace

import numpy as np

from evalreport.errors import MeasureError
from evalreport.measures._shared import QUIET

POLICIES = ("nan", "zero", "one", "convention")


# ----------------------------------------------------------------------------- context


class Context:
    """Per-call state handed to a measure function: policy, parameters, 0/0 events.

    ``batch`` is the shape of the result (``C.shape[:-2]``). Event masks have that shape, or
    that shape plus a trailing class axis for per-class quantities.
    """

    def __init__(self, batch: tuple[int, ...], *, policy: str = "nan", convention: float | None = None,
                 params: Mapping | None = None, positive: int | None = None, costs=None, n_classes: int = 0,
                 classes=None, task: int | None = None, gains=None):
        if policy not in POLICIES:
            raise MeasureError(f"unknown undefined-value policy {policy!r}; choose one of {', '.join(POLICIES)}")
        self.batch = tuple(batch)
        self.policy = policy
        self.fill = {"nan": math.nan, "zero": 0.0, "one": 1.0,
                     "convention": math.nan if convention is None else float(convention)}[policy]
        self.params = dict(params or {})
        self.positive = positive
        self.costs = costs
        self.gains = gains                # (K, K) gain matrix of a bound gain measure (measures/gains.py)
        self.n_classes = n_classes
        #: ``batch + (K,)`` bool: which classes count for each matrix (None: all). A class that occurs
        #: only in predictions (Runs.n_task) counts only for the systems that predict it.
        self.classes = None if classes is None else np.asarray(classes, dtype=bool)
        self.task = task                  # the number of task classes (None: all K)
        self.events: list[tuple[str, np.ndarray]] = []

    def class_count(self, C) -> np.ndarray | int:
        """K, or per matrix the number of classes that count (see :attr:`classes`)."""
        return C.shape[-1] if self.classes is None else self.classes.sum(axis=-1)

    def task_count(self, C) -> int:
        """The number of the task's classes (|C| of Sebastiani 2015, eq. 10): prediction-only classes
        (unknown labels, abstain) are errors, not classes of the task."""
        return C.shape[-1] if self.task is None else min(self.task, C.shape[-1])

    def class_sum(self, values) -> np.ndarray:
        """Sum over the class axis of the classes that count."""
        values = np.asarray(values, dtype=float)
        return values.sum(axis=-1) if self.classes is None else np.where(self.classes, values, 0.0).sum(axis=-1)

    def _per_class(self, mask: np.ndarray) -> np.ndarray:
        """An event mask without the classes that do not count (their 0/0 is no case of this matrix)."""
        if self.classes is not None and mask.ndim == self.classes.ndim and mask.shape[-1] == self.classes.shape[-1]:
            return mask & self.classes
        return mask

    # the one division helper --------------------------------------------------------
    def div(self, num, den, reason: str | None):
        """``num / den`` where ``den != 0``; elsewhere the policy's fill value, recorded with ``reason``.

        ``reason=None`` is for a measure whose *definition* handles the zero case itself (e.g.
        K, eq. 5 of Sebastiani 2015, which falls back to specificity when AP = 0): the result is NaN
        there, no event is recorded and the policy does not apply.
        """
        num = np.asarray(num, dtype=float)
        den = np.asarray(den, dtype=float)
        zero = den == 0
        if not zero.any():                # the common case: nothing to fill or record
            return np.asarray(np.divide(num, den))
        num, den = np.broadcast_arrays(num, den)
        zero = np.broadcast_to(zero, den.shape)
        out = np.full(num.shape, math.nan if reason is None else self.fill, dtype=float)
        np.divide(num, den, out=out, where=~zero)
        if reason is not None and zero.any():
            self.events.append((reason, self._per_class(zero)))
        return out

    def flag(self, mask, reason: str):
        """Record an undefined case that is not a division (e.g. log of zero)."""
        mask = self._per_class(np.asarray(mask, dtype=bool))
        if mask.any():
            self.events.append((reason, mask))

    # averaging over a class axis ----------------------------------------------------
    def mean(self, values, *, weights=None, what: str = "class values"):
        """Mean over the last (class) axis, honouring the policy: NaN classes are skipped.

        With ``weights`` (e.g. gold class sizes) a weighted mean. If every class is NaN the
        result is NaN (and the reason says so).
        """
        values = np.asarray(values, dtype=float)
        nan = np.isnan(values)
        if weights is None and self.classes is None:     # plain mean: weights of 1 change no value
            if values.shape[-1] and not nan.any():
                return np.asarray(np.divide(values.sum(axis=-1), float(values.shape[-1])))
            total = (~nan).sum(axis=-1).astype(float)
            acc = np.where(nan, 0.0, values).sum(axis=-1)
            allnan = total == 0
            out = np.divide(acc, total, out=np.full(total.shape, np.nan), where=~allnan)
            if nan.any():
                self.events.append((f"undefined {what} skipped in the average", nan))
            if allnan.any():
                self.events.append((f"no defined {what} to average", allnan))
            return out
        if weights is None:
            weights = np.ones_like(values)
        weights = np.broadcast_to(np.asarray(weights, dtype=float), values.shape)
        if self.classes is not None and self.classes.shape == values.shape:
            weights = np.where(self.classes, weights, 0.0)      # classes that do not count weigh nothing
        w = np.where(nan, 0.0, weights)
        total = w.sum(axis=-1)
        acc = np.where(nan | (w == 0), 0.0, values * w).sum(axis=-1)   # (-inf x weight 0 is no NaN)
        allnan = total == 0
        out = np.divide(acc, total, out=np.full(total.shape, np.nan), where=~allnan)
        skipped = nan & (weights > 0)      # a NaN of weight 0 would not count anyway
        if skipped.any():
            self.events.append((f"undefined {what} skipped in the average", skipped))
        if allnan.any():
            self.events.append((f"no defined {what} to average", allnan))
        return out


# ----------------------------------------------------------------------------- records


@dataclass(frozen=True)
class Interval:
    """The numbers a parameter may take (declared in :attr:`Measure.domain`); always finite."""

    low: float = -math.inf
    high: float = math.inf
    low_closed: bool = True
    high_closed: bool = True

    def __contains__(self, value) -> bool:
        v = float(value)
        return (math.isfinite(v) and (v > self.low or (self.low_closed and v == self.low))
                and (v < self.high or (self.high_closed and v == self.high)))

    def __str__(self) -> str:
        parts = []
        if self.low > -math.inf:
            parts.append(f"{'>=' if self.low_closed else '>'} {self.low:g}")
        if self.high < math.inf:
            parts.append(f"{'<=' if self.high_closed else '<'} {self.high:g}")
        return "a finite number" + (" " + " and ".join(parts) if parts else "")


def check_params(ident: str, params: Mapping, domain: Mapping) -> None:
    """Raise MeasureError unless every parameter value lies in its declared domain: a number is
    finite (and in its :class:`Interval`, if declared), a text is one of its declared names."""
    for name, value in params.items():
        allowed = domain.get(name)
        if isinstance(value, str):
            if allowed is not None and value not in allowed:
                raise MeasureError(f"measure {ident!r}: unknown {name} {value!r}; choose one of {', '.join(allowed)}")
            continue
        rule = allowed if isinstance(allowed, Interval) else Interval()
        try:
            ok = value in rule
        except (TypeError, ValueError):
            ok = False
        if not ok:
            raise MeasureError(f"measure {ident!r}: parameter {name} must be {rule}; got {value!r}")


@dataclass(frozen=True)
class Measure:
    """One measure, declared once. See the module docstring for the function contract."""

    id: str
    label: str
    fn: Callable = field(repr=False, compare=False)
    source: str = ""
    formula: str = ""
    kind: str = "multiclass"          # "multiclass", "binary" (needs a positive class), "ordinal"
    range: tuple[float, float] = (0.0, 1.0)
    higher_is_better: bool = True
    chance: float | Callable[[int], float] | None = None
    chance_note: str = ""
    undefined: str = "never (for a non-empty confusion matrix)"
    convention: float | None = None
    convention_source: str = ""
    params: Mapping = field(default_factory=dict)
    #: What each parameter may take: an :class:`Interval` for a number (default: any finite
    #: number), a tuple of names for a text. Checked by :meth:`with_params`.
    domain: Mapping = field(default_factory=dict)
    family: str | None = None         # id of the parametrised family this instance belongs to
    averaging: str | None = None      # "macro", "micro", "weighted" for one-vs-rest averages
    base: str | None = None           # the binary measure an average is built from
    needs: tuple[str, ...] = ()       # "positive", "costs", "order", "gains"
    #: How the record averages over classes ("macro", "micro", "weighted"), declared where its function
    #: averages with :meth:`Context.mean` / :meth:`Context.class_sum` (so honours ``Context.classes``):
    #: such a record takes ``classes=`` / ``exclude=`` (measures/subsets.py). None: no class subset.
    class_average: str | None = None
    #: What :func:`~evalreport.measures.subsets.bind` resolved for one task: ``subset`` (class indices),
    #: ``n_classes`` (the task's K), ``gains`` (the (K, K) gain matrix). Empty: not bound.
    bound: Mapping = field(default_factory=dict, compare=False, repr=False)
    claims: Mapping[str, object] = field(default_factory=dict)  # property -> expected verdict (audit)
    notes: str = ""
    alias_of: str | None = None       # set on the record :func:`get` returns for an alias id

    def chance_value(self, n_classes: int) -> float | None:
        """The expected value of a random classifier where the papers show it is a constant."""
        if callable(self.chance):
            return float(self.chance(n_classes))
        return self.chance

    @property
    def direction(self) -> str:
        return "higher" if self.higher_is_better else "lower"

    def with_params(self, **params) -> Measure:
        """A new instance of a parametrised measure, e.g. ``fbeta`` with ``beta=2``."""
        unknown = set(params) - set(self.params)
        if unknown:
            raise MeasureError(f"measure {self.id!r} has no parameter(s) {', '.join(sorted(unknown))}; "
                               f"its parameters: {', '.join(self.params) or 'none'}")
        merged = {**self.params, **params}
        fam = self.family or self.id
        check_params(fam, params, self.domain)
        ident = f"{fam}(" + ",".join(f"{k}={fmt(v)}" for k, v in merged.items()) + ")"
        label = f"{REGISTRY[fam].label if fam in REGISTRY else self.label} (" + ", ".join(
            f"{k}={fmt(v)}" for k, v in merged.items()) + ")"
        return replace(self, id=ident, label=label, params=merged, family=fam)


def fmt(v) -> str:
    return f"{v:g}" if isinstance(v, float) else str(v)


REGISTRY: dict[str, Measure] = {}

#: Other ids of a registered quantity: alias id -> (canonical id, label, source of the name). An
#: alias has no record of its own: :func:`get` returns the canonical record under the alias's id,
#: label and source, so every fact about the quantity (function, range, chance, undefined cases,
#: convention, claims) is declared once.
ALIASES: dict[str, tuple[str, str, str]] = {}

#: Alias id -> the generated one-vs-rest record that computes it over a class subset, where the
#: alias names a quantity that only equals its canonical record on the full class set (micro F1
#: is accuracy, but micro F1 over a subset is not; declared with ``register_alias(subset_as=)``).
SUBSET_AS: dict[str, str] = {}

#: Generated one-vs-rest records that a hand-declared record replaced because they are the same
#: quantity (e.g. ``precision_macro`` = ``macro_precision``). Kept so that a test can check the
#: equality numerically under every policy: the alias is a theorem, not an assumption.
SHADOWED: dict[str, Measure] = {}


def _check_new_id(ident: str) -> None:
    if ident in REGISTRY or ident in ALIASES:
        raise MeasureError(f"measure id {ident!r} is already registered")
    if not re.fullmatch(r"[a-z][a-z0-9_]*", ident):
        raise MeasureError(f"measure id {ident!r} must be lower-case letters, digits and _")


def register(measure: Measure, *, same_as: tuple[str, ...] = ()) -> Measure:
    """Add a measure to the registry; a duplicate id is an error.

    ``same_as``: ids of already registered *generated* records (one-vs-rest averages) that are
    the same quantity as ``measure``. They become aliases of it, and their derived claims join
    its own; a claim on which the two disagree is an error.
    """
    _check_new_id(measure.id)
    claims = dict(measure.claims) if same_as else {}   # (generated claims are derived lazily: do not touch)
    for other in same_as:
        gen = REGISTRY.get(other)
        if gen is None or gen.averaging is None:
            raise MeasureError(f"{measure.id!r} same_as {other!r}: not a registered one-vs-rest average")
        for key, value in gen.claims.items():
            if key in claims and claims[key] != value:
                raise MeasureError(f"{measure.id!r} and {other!r} are one quantity but claim {key} differently: "
                                   f"{claims[key]!r} vs {value!r}")
            claims.setdefault(key, value)
    if same_as:
        measure = replace(measure, claims=claims)
    REGISTRY[measure.id] = measure
    for other in same_as:
        SHADOWED[other] = REGISTRY.pop(other)
        ALIASES[other] = (measure.id, SHADOWED[other].label, SHADOWED[other].source)
    return measure


def register_alias(alias: str, of: str, *, label: str = "", source: str = "", subset_as: str | None = None) -> None:
    """Declare ``alias`` as another id of the registered measure ``of`` (with its own label and
    the source that defines the quantity under that name). ``subset_as``: the generated average
    that computes the alias over a class subset (see :data:`SUBSET_AS`)."""
    _check_new_id(alias)
    if of not in REGISTRY:
        raise MeasureError(f"alias {alias!r}: no registered measure {of!r}")
    ALIASES[alias] = (of, label or REGISTRY[of].label, source or REGISTRY[of].source)
    if subset_as is not None:
        SUBSET_AS[alias] = subset_as


def aliases_of(ident: str) -> list[str]:
    """The alias ids of a registered measure, in declaration order."""
    return [a for a, (of, _, _) in ALIASES.items() if of == ident]


_CALL = re.compile(r"^\s*([a-z][a-z0-9_]*)\s*(?:\((.*)\))?\s*$")


def get(spec: str | Measure) -> Measure:
    """Look up a measure by id, or by ``family(param=value, ...)`` for a parametrised one.

    A class average also takes ``classes=A|B`` or ``exclude=O`` (class names separated by ``|``):
    see :mod:`evalreport.measures.subsets`."""
    if isinstance(spec, Measure):
        return spec
    text = str(spec).strip()
    head, sep, rest = text.partition("(")
    m = _CALL.match(head.strip().lower() + sep + rest)  # ids are lower case; "F1" means f1
    if not m:
        raise MeasureError(f"cannot parse measure {spec!r}; expected an id such as 'macro_f1' or 'fbeta(beta=2)'")
    name, args = m.group(1), m.group(2)
    if name in ALIASES:
        of, label, source = ALIASES[name]
        base = replace(REGISTRY[of], id=name, label=label, source=source, alias_of=of)
    elif name in REGISTRY:
        base = REGISTRY[name]
    else:
        close = _suggest(name)
        raise MeasureError(f"unknown measure {name!r}" + (f"; did you mean {close}?" if close else
                           "; `evalreport measures` lists them"))
    if args is None or not args.strip():
        return base
    params, subset = {}, {}
    for part in args.split(","):
        if "=" not in part:
            raise MeasureError(f"measure {spec!r}: parameters are written name=value")
        k, v = (s.strip() for s in part.split("=", 1))
        if k in ("classes", "exclude"):   # class names: case and spelling kept
            subset[k] = v
            continue
        default = base.params.get(k)
        if isinstance(default, str):  # a string parameter (e.g. k_cost's error=ae|se): taken as written
            params[k] = v.strip("'\"").lower()
            continue
        try:
            params[k] = type(default)(v) if default is not None else float(v)
        except ValueError:
            raise MeasureError(f"measure {spec!r}: parameter {k} must be a number") from None
    measure = base.with_params(**params) if params else base
    if subset:
        from evalreport.measures.subsets import with_subset

        measure = with_subset(measure, name, subset)
    return measure


def check_names(specs, *, also=()) -> None:
    """Raise one :class:`MeasureError` naming every unknown measure id among ``specs`` (ids, calls
    such as ``fbeta(beta=2)`` or records), each with its nearest valid id, instead of the first one
    alone: a participant who mistyped three names learns of all three in one run. ``also``: ids a
    command takes besides the registry's (``evalreport cv``'s score measures). Ids that cannot be
    parsed and bad parameters are left to :func:`get`."""
    unknown = []
    for spec in specs:
        if isinstance(spec, Measure) or str(spec).strip() in also:
            continue
        text = str(spec).strip()
        head, sep, rest = text.partition("(")
        m = _CALL.match(head.strip().lower() + sep + rest)
        if m and m.group(1) not in ALIASES and m.group(1) not in REGISTRY and m.group(1) not in unknown:
            unknown.append(m.group(1))
    if len(unknown) == 1:
        get(unknown[0])                 # the one-name message, with up to three suggestions
    if unknown:
        named = []
        for name in unknown:
            close = _suggest(name, n=1, cutoff=0.5)   # the nearest, a little further afield than the three
            named.append(f"{name!r} (did you mean {close}?)" if close else f"{name!r} (no id is close)")
        raise MeasureError(f"{len(unknown)} unknown measures: {', '.join(named)}; `evalreport measures` lists them")


def unique(measures, *, by_quantity: bool = False) -> list[Measure]:
    """The records of ``measures`` (ids or records) without repeats, first occurrence kept: an id
    given twice (``mcc,MCC``) is one measure; with ``by_quantity`` an alias and its record
    (``f1_macro``, ``macro_f1``) are one too. Every unknown id is named at once (:func:`check_names`)."""
    measures = list(measures)
    check_names(measures)
    out: dict[str, Measure] = {}
    for spec in measures:
        m = get(spec)
        out.setdefault((m.alias_of or m.id) if by_quantity else m.id, m)
    return list(out.values())


def _suggest(name: str, n: int = 3, cutoff: float = 0.6) -> str:
    import difflib

    hits = difflib.get_close_matches(name, [*REGISTRY, *ALIASES], n=n, cutoff=cutoff)
    return ", ".join(repr(h) for h in hits)


def catalogue() -> list[Measure]:
    """Every registered measure (one record per quantity; aliases are not repeated): multi-class
    measures first, then binary ones (for a positive class), then one-vs-rest averages, then the
    example-based multi-label ones (``kind="example"``); registration order within each group."""
    def group(m: Measure) -> int:
        if m.kind == "scores":        # score-based measures (measures/scores.py): after every other group
            return 4
        return 3 if m.kind == "example" else 2 if m.averaging else (1 if m.kind == "binary" else 0)

    return sorted(REGISTRY.values(), key=group)


# ----------------------------------------------------------------------------- compute


@dataclass(frozen=True)
class Result:
    """Values of one measure over a batch of confusion matrices, with the 0/0 record."""

    measure: Measure
    value: np.ndarray            # batch shape, float
    undefined: np.ndarray        # batch shape, bool: some 0/0 case occurred for this cell
    reason: np.ndarray           # batch shape, object: '' or the named cases


def compute(measure, C, *, positive=None, policy: str = "nan", costs=None, labels=None,
            explain: bool = True, task: int | None = None, gains=None) -> Result:
    """Compute one measure for every confusion matrix in ``C`` (shape ``(..., K, K)``).

    ``positive``: index (or label, with ``labels``) of the positive class for binary measures.
    ``costs``: (K, K) cost matrix, ``costs[i, j]`` = cost of predicting j for gold i.
    ``gains``: (K, K) gain matrix of the gain measures (measures/gains.py), unless bound to the
    record already. A class-subset record (``macro_f1(classes=A|B)``) resolves its class names
    against ``labels`` unless it is bound already (:func:`~evalreport.measures.subsets.bind`).
    ``labels``: class names, used to resolve ``positive`` and to name classes in reasons.
    ``explain``: build the ``reason`` texts (turn off inside resampling loops; ``undefined``
    is always computed). ``task``: the first ``task`` classes are the task's (``Runs.n_task``);
    a later class (only in predictions: unknown labels, abstain) counts for a matrix only where
    it is predicted, so one system's stray labels leave the others' values alone.
    """
    m = get(measure)
    if m.kind == "example":
        raise MeasureError(f"measure {m.id!r} is an example-based multi-label measure: it takes multi-label runs "
                           "(evalreport.measures.multilabel), not a confusion matrix")
    if m.kind == "scores":
        raise MeasureError(f"measure {m.id!r} is a score-based measure: it takes the systems' scores "
                           "(evalreport.measures.scores.compute_scores), not a confusion matrix")
    C = np.asarray(C, dtype=float)
    if C.ndim < 2 or C.shape[-1] != C.shape[-2]:
        raise MeasureError(f"a confusion tensor must end in (K, K); got shape {C.shape}")
    K = C.shape[-1]
    from evalreport.measures.subsets import bind, bound_gains, is_subset, subset_mask

    if (labels is not None and is_subset(m) and "subset" not in m.bound) or gains is not None:
        m = bind(m, labels, gains=gains)     # class names resolved against this call's class list
    pos = resolve_positive(positive, labels, K) if positive is not None else None
    if "positive" in m.needs and pos is None:
        raise MeasureError(f"measure {m.id!r} is a binary measure: give the positive class (--positive)")
    if "costs" in m.needs and costs is None:
        raise MeasureError(f"measure {m.id!r} needs a class order (--order) or a cost matrix (--costs)")
    if costs is not None:
        costs = np.asarray(costs, dtype=float)
        if costs.shape != (K, K):
            raise MeasureError(f"cost matrix has shape {costs.shape}; expected ({K}, {K})")
    classes = None
    if task is not None and task < K:
        classes = (np.arange(K) < task) | (C.sum(axis=-2) > 0)
    subset = subset_mask(m, K)
    if subset is not None:      # averages run over the subset; per-class values still use all of C
        classes = np.broadcast_to(subset, C.shape[:-2] + (K,)) if classes is None else classes & subset
    ctx = Context(C.shape[:-2], policy=policy, convention=m.convention, params=m.params,
                  positive=pos, costs=costs, n_classes=K, classes=classes, task=task, gains=bound_gains(m, K))
    if QUIET.get():              # inside quiet_errors(): the error state is set already
        value = np.asarray(m.fn(C, ctx), dtype=float)
    else:
        with np.errstate(divide="ignore", invalid="ignore"):
            value = np.asarray(m.fn(C, ctx), dtype=float)
    return result(m, ctx, value, labels if labels is not None else [str(k) for k in range(K)], explain=explain)


def result(m: Measure, ctx: Context, value, labels, *, explain: bool = True) -> Result:
    """The :class:`Result` of values computed under ``ctx``: the undefined mask from its 0/0 events,
    and with ``explain`` their reasons (classes named by ``labels``)."""
    value = np.asarray(value, dtype=float)
    if value.shape != ctx.batch:
        value = np.broadcast_to(value, ctx.batch).copy()
    if explain:
        undefined, reason = _summarise(ctx, labels, value)
    else:
        undefined = np.zeros(ctx.batch, dtype=bool)
        for _, mask in ctx.events:
            extra = tuple(range(len(ctx.batch), mask.ndim))
            undefined |= np.broadcast_to(mask.any(axis=extra) if extra else mask, ctx.batch)
        reason = np.full(ctx.batch, "", dtype=object)
    return Result(m, value, undefined, reason)


def resolve_positive(positive, labels, K: int, *, n_task: int | None = None) -> int:
    """The index of the positive class.

    Parameters
    ----------
    positive : int or str
        An index into ``labels`` or a class name.
    labels : sequence or None
        The class names.
    K : int
        The number of classes.
    n_task : int, optional
        The first ``n_task`` labels are the task's classes (``Runs.n_task``); the rest occur only in
        predictions (``<abstain>``, unknown labels) and are not listed when a name is not found.

    Returns
    -------
    int
    """
    if isinstance(positive, (int, np.integer)) and not isinstance(positive, bool):
        if not 0 <= positive < K:
            raise MeasureError(f"positive class index {positive} is outside 0..{K - 1}")
        return int(positive)
    if labels is None:
        raise MeasureError("a positive class given by name needs the class labels")
    labels = [str(x) for x in labels]
    if str(positive) not in labels:
        from evalreport.inputs.checks import listing, near_miss, short

        task = labels[:n_task] if n_task else labels
        raise MeasureError(f"positive class {short(str(positive))} is not one of the classes: {listing(task)}"
                           + near_miss(str(positive), task))
    return labels.index(str(positive))


def _summarise(ctx: Context, labels, value=None) -> tuple[np.ndarray, np.ndarray]:
    """The undefined mask and the reason texts of the 0/0 events in ``ctx``. Under a filling policy
    each undefined cell says what happened to it: replaced (by the fill), left as under the nan
    policy (policy 'convention', no convention), or still undefined where ``value`` is NaN (e.g. a
    weighted mean whose weights are all zero has nothing to fill)."""
    batch = ctx.batch
    undefined = np.zeros(batch, dtype=bool)
    reason = np.full(batch, "", dtype=object)
    nb = len(batch)
    for text, mask in ctx.events:
        mask = np.broadcast_to(mask, batch + mask.shape[nb:]) if mask.ndim >= nb else np.broadcast_to(mask, batch)
        if mask.ndim > nb:  # per-class event: name the classes
            flat = mask.reshape(batch + (-1,))
            cell: np.ndarray = flat.any(axis=-1)  # type: ignore[assignment]  # an array: flat has 2+ axes
            for idx in _cells(cell):
                classes = [labels[k] for k in np.nonzero(flat[idx])[0] if k < len(labels)]
                _append(reason, idx, f"{text} (class {', '.join(classes)})")
        else:
            cell = mask
            for idx in _cells(cell):
                _append(reason, idx, text)
        undefined |= cell
    if ctx.policy != "nan" and undefined.any():
        # a measure without a convention is filled with NaN: it stays as the nan policy leaves it
        note = {"zero": "replaced by 0", "one": "replaced by 1",
                "convention": f"replaced by the measure's convention ({ctx.fill:g})" if not math.isnan(ctx.fill) else
                "the measure has no convention: left as under the nan policy"}[ctx.policy]
        still = np.zeros(batch, dtype=bool) if value is None or math.isnan(ctx.fill) else np.isnan(value)
        for idx in _cells(undefined):
            _append(reason, idx, f"still undefined under the {ctx.policy} policy: nothing to replace"
                    if still[idx] else note)
    return undefined, reason


def _cells(mask: np.ndarray):
    """Index tuples of the True cells; also for a 0-d mask (a single matrix), where np.nonzero fails."""
    return (tuple(int(i) for i in row) for row in np.argwhere(mask))


def _append(reason: np.ndarray, idx, text: str) -> None:
    cur = reason[idx]
    if text not in cur.split("; "):
        reason[idx] = f"{cur}; {text}" if cur else text
