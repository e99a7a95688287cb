"""The audit of the example-based multi-label measures: properties of set predictions, computed
over every small multi-label test set.

The example-based measures (:mod:`evalreport.measures.multilabel`: subset accuracy, Hamming loss,
example precision, recall, F1, Jaccard) read label SETS, not a confusion matrix, so the
single-label space of matrices does not apply. Here a case is a test set of ``n`` items with L
labels: a gold set ``G_i`` and a predicted set ``P_i`` per item. The space holds every case with
``1 <= n <= max_n`` items (gold sets as a multiset, since the measures are means over items;
predicted sets in every arrangement) for each L in ``labels``, fewer items where the count
would pass ``max_cases`` (the setting names the bound). Values come from the measure's own
function on the summed per-item statistics (:func:`~evalreport.counts.multilabel.item_stats`),
under each paper's 0/0 policy (:data:`evalreport.analyses.audit.PAPER_POLICY`).

The properties are the papers' properties read for sets (paper, id, what it checks here):

=====  ======  =====================================================================
paper  id      on label sets
=====  ======  =====================================================================
000    MON     Axiom 1: one wrong label decision made right (a missing gold label added to P_i,
               or a wrong label removed from P_i) scores strictly better
000    SDE     Axiom 3: defined on every case
000    FIX     Axiom 5: for every gold, the best and worst values over all predictions are the
               ends of the declared range
002    PI      Property I (eq. 3): the same step never scores worse
004    Max     Definition 1: the best value of the range exactly when P_i = G_i for every item
004    CSym    Definition 4: unchanged when the labels are renamed (one permutation for gold and
               predicted sets)
004    Sym     Definition 3: unchanged when gold and predicted sets trade places
--     EMPTY   an item whose gold and predicted sets are both empty counts as an exactly right
               item: every case with such an item scores what it scores with that item
               replaced by a right non-empty one (G_i = P_i = {a}). No paper states it; it is
               checked under the 0/0 policy in use (``empty_policy``: a report passes its own),
               because that policy decides it: ``nan`` skips the item in the mean over items
               (an exactly right empty prediction then counts for nothing), ``zero`` / ``one``
               count it as 0 / 1, ``convention`` as the record's convention. The ``detail``
               says under which policies it holds, computed on the same cases.
=====  ======  =====================================================================

Verdicts and counterexamples (the first violation in the order of the space: fewer items first)
follow :func:`evalreport.analyses.audit.audit`; the records' ``claims`` keyed by the paper
property (e.g. ``goesgens.Max``) fill ``expected`` / ``as_expected`` (no paper states a verdict
for label sets, so ``paper_claim`` is empty), and the columns of the class conditions are empty.
"""
from __future__ import annotations

import functools
import itertools
import math

import numpy as np
import pandas as pd

from evalreport.analyses.audit import COLUMNS, PAPER_POLICY, claim_for, parse_claims
from evalreport.counts.multilabel import STATS, item_stats
from evalreport.errors import MeasureError
from evalreport.measures import POLICIES, get
from evalreport.measures.multilabel import EXAMPLE_IDS, example_based

__all__ = ["audit_multilabel", "ML_PROPERTIES", "SetSpace"]

SATISFIED, VIOLATED, NA = "satisfied", "violated", "n/a"
TOL = 1e-9

#: id -> (paper key or "", reference, title)
ML_PROPERTIES = {
    "MON": ("sebastiani", "Axiom 1", "strict monotonicity (one label decision made right)"),
    "SDE": ("sebastiani", "Axiom 3", "strong definiteness"),
    "FIX": ("sebastiani", "Axiom 5", "fixed range (every gold reaches both ends)"),
    "PI": ("opitz", "Property I, eq. 3", "monotonicity (one label decision made right never lowers)"),
    "Max": ("goesgens", "Definition 1", "maximal agreement (best iff every set is right)"),
    "CSym": ("goesgens", "Definition 4", "label symmetry (labels renamed)"),
    "Sym": ("goesgens", "Definition 3", "symmetry (gold and predicted sets exchanged)"),
    "EMPTY": ("", "no paper; under the 0/0 policy in use",
              "an item with empty gold and empty predicted sets counts as an exactly right item"),
}


class SetSpace:
    """Every test set of ``n`` items with ``L`` labels: gold multisets x predicted arrangements.

    Set codes are bit masks (label j in the set iff bit j is set). Case ``c`` has gold codes
    ``gold[c]`` (sorted) and predicted codes ``pred[c]`` (aligned with the gold items);
    ``c = gold_position * T**n + pred_number`` with T = 2**L and the predicted codes read as a
    base-T number (first item most significant).
    """

    def __init__(self, L: int, n: int):
        self.L, self.n, self.T = L, n, 2 ** L
        self.golds = np.array(list(itertools.combinations_with_replacement(range(self.T), n)), dtype=np.int64)
        self.preds = np.array(list(itertools.product(range(self.T), repeat=n)), dtype=np.int64)
        G, P = len(self.golds), len(self.preds)
        self.gold = np.repeat(self.golds, P, axis=0)
        self.pred = np.tile(self.preds, (G, 1))
        self.weights = self.T ** np.arange(n - 1, -1, -1)
        self.gold_keys = self.golds @ self.weights            # increasing (lexicographic order)
        bits = (np.arange(self.T)[:, None] >> np.arange(L)) & 1
        self.indicators = bits.astype(bool)                    # (T, L)
        g, p = np.meshgrid(np.arange(self.T), np.arange(self.T), indexing="ij")
        table = item_stats(self.indicators[g.ravel()], self.indicators[p.ravel()][None])[0]
        self.item_table = table.reshape(self.T, self.T, len(STATS))
        self.stats = self.item_table[self.gold, self.pred].sum(axis=1)          # (C, n_stats)
        self._memo: dict = {}

    def memo(self, key, make):
        """A value computed once per space (steps, transformed case indices): the same for every measure."""
        if key not in self._memo:
            self._memo[key] = make()
        return self._memo[key]

    def __len__(self) -> int:
        return self.gold.shape[0]

    def index(self, gold: np.ndarray, pred: np.ndarray) -> np.ndarray:
        """The case index of arbitrary (gold, pred) code rows (items in any order)."""
        order = np.argsort(gold, axis=1, kind="stable")
        g = np.take_along_axis(gold, order, axis=1)
        p = np.take_along_axis(pred, order, axis=1)
        pos = np.searchsorted(self.gold_keys, g @ self.weights)
        return pos * len(self.preds) + p @ self.weights

    def permuted(self, perm) -> np.ndarray:
        """Set codes with label j renamed ``perm[j]``."""
        return (self.indicators[:, np.argsort(perm)] * (1 << np.arange(self.L))).sum(axis=1)

    def describe(self, c: int, pred=None) -> str:
        names = "abcdefghijklmnopqrstuvwxyz"

        def fmt(codes):
            return "[" + ",".join("{" + ",".join(names[j] for j in range(self.L) if (k >> j) & 1) + "}"
                                  for k in codes) + "]"

        return f"G={fmt(self.gold[c])} P={fmt(self.pred[c] if pred is None else pred)}"


@functools.lru_cache(maxsize=4)
def _spaces(labels, max_n, max_cases):
    out = []
    for L in labels:
        for n in range(1, max_n + 1):
            T = 2 ** L
            if math.comb(T + n - 1, n) * T ** n > max_cases:
                break
            out.append(SetSpace(L, n))
    return tuple(out)


def _v(x) -> str:
    return "undefined" if math.isnan(x) else f"{float(x):.6g}"


class _Cases:
    """One measure under one policy on every space: values and oriented scores."""

    def __init__(self, m, policy, spaces):
        self.m, self.policy, self.spaces = m, policy, spaces
        self.sign = 1.0 if m.higher_is_better else -1.0
        self.values = [np.asarray(example_based(m, sp.stats, policy=policy, explain=False).value, dtype=float)
                       for sp in spaces]

    @property
    def best(self) -> float:
        lo, hi = self.m.range
        return hi if self.m.higher_is_better else lo


def _close(x, y):
    return np.abs(x - y) <= TOL * np.maximum(1.0, np.maximum(np.abs(x), np.abs(y)))


def _first(mask):
    hit = np.flatnonzero(mask)
    return int(hit[0]) if hit.size else None


def _steps(sp: SetSpace):
    """Every (src, dst, item, label) where dst makes one wrong label decision of src right."""
    src, dst = [], []
    cases = np.arange(len(sp))
    for k in range(sp.n):
        g, p = sp.gold[:, k], sp.pred[:, k]
        for j in range(sp.L):
            wrong = ((g ^ p) >> j) & 1 == 1
            src.append(cases[wrong])
            dst.append(cases[wrong] + ((p[wrong] ^ (1 << j)) - p[wrong]) * sp.weights[k])
    return np.concatenate(src), np.concatenate(dst)


def _monotone(cs: _Cases, strict: bool):
    checked = skipped = 0
    for sp, v in zip(cs.spaces, cs.values):
        s = cs.sign * v
        src, dst = sp.memo("steps", lambda sp=sp: _steps(sp))
        both = ~np.isnan(s[src]) & ~np.isnan(s[dst])
        skipped += int((~both).sum())
        checked += int(both.sum())
        ok = s[dst] > s[src] + TOL * np.maximum(1.0, np.abs(s[src])) if strict else s[dst] >= s[src] - TOL
        i = _first(both & ~ok)
        if i is not None:
            c, d = int(src[i]), int(dst[i])
            return VIOLATED, (f"{sp.describe(c)} ({_v(v[c])}) -> P'={sp.describe(d).split(' P=')[1]} "
                              f"({_v(v[d])})"), f"one label decision made right, L={sp.L}, n={sp.n}"
    return SATISFIED, "", f"{checked} steps checked, {skipped} with an undefined value skipped"


def check_MON(cs):
    return _monotone(cs, strict=True)


def check_PI(cs):
    return _monotone(cs, strict=False)


def check_SDE(cs):
    total = 0
    for sp, v in zip(cs.spaces, cs.values):
        i = _first(np.isnan(v))
        if i is not None:
            return VIOLATED, f"{sp.describe(i)} (undefined)", f"L={sp.L}, n={sp.n}"
        total += len(sp)
    return SATISFIED, "", f"defined on all {total} cases"


def check_FIX(cs):
    lo, hi = cs.m.range
    golds = 0
    for sp, v in zip(cs.spaces, cs.values):
        P = len(sp.preds)
        vals = v.reshape(len(sp.golds), P)
        defined = ~np.isnan(vals)
        with np.errstate(all="ignore"):
            vmin = np.where(defined, vals, np.inf).min(axis=1)
            vmax = np.where(defined, vals, -np.inf).max(axis=1)
        has = defined.any(axis=1)
        golds += int(has.sum())
        bad = has & ~(_close(vmin, lo) & _close(vmax, hi))
        i = _first(bad)
        if i is not None:
            gold = sp.describe(i * P).split(" P=")[0]
            return VIOLATED, (f"{gold}: values over every prediction lie in [{_v(vmin[i])}, {_v(vmax[i])}], "
                              f"not [{_v(lo)}, {_v(hi)}]"), f"L={sp.L}, n={sp.n}"
    return SATISFIED, "", f"{golds} gold test sets reach both ends of [{_v(lo)}, {_v(hi)}]"


def check_Max(cs):
    best = cs.best
    for sp, v in zip(cs.spaces, cs.values):
        perfect = (sp.gold == sp.pred).all(axis=1)
        defined = ~np.isnan(v)
        at_best = _close(v, best)
        i = _first(defined & (perfect != at_best))
        if i is not None:
            what = "a perfect prediction scores" if perfect[i] else "an imperfect prediction scores the best,"
            return VIOLATED, f"{sp.describe(i)} ({_v(v[i])})", f"{what} {_v(v[i])}; best {_v(best)}"
    return SATISFIED, "", "best value exactly at P_i = G_i (undefined cases skipped)"


def _invariant(cs, transform, what):
    checked = 0
    for sp, v in zip(cs.spaces, cs.values):
        for key, (gold, pred, name) in enumerate(transform(sp)):
            dst = sp.memo((what, key), lambda gold=gold, pred=pred, sp=sp: sp.index(gold, pred))
            a, b = v, v[dst]
            bad = (np.isnan(a) != np.isnan(b)) | (~np.isnan(a) & ~np.isnan(b) & ~_close(a, b))
            checked += len(sp)
            i = _first(bad)
            if i is not None:
                return VIOLATED, (f"{sp.describe(i)} ({_v(v[i])}) vs {name}: {sp.describe(int(dst[i]))} "
                                  f"({_v(v[dst[i]])})"), f"{what}, L={sp.L}, n={sp.n}"
    return SATISFIED, "", f"{checked} case pairs checked"


def check_CSym(cs):
    def perms(sp):
        for perm in itertools.permutations(range(sp.L)):
            if list(perm) != sorted(perm):
                code = sp.permuted(perm)
                yield code[sp.gold], code[sp.pred], f"labels renamed {perm}"
    return _invariant(cs, perms, "labels renamed")


def check_Sym(cs):
    return _invariant(cs, lambda sp: [(sp.pred, sp.gold, "gold and prediction exchanged")],
                      "gold and predicted sets exchanged")


def _empty_items(sp: SetSpace):
    """Every (case, item) with both sets empty: the case, and the case with that item's sets made {a}."""
    src, dst = [], []
    for k in range(sp.n):
        hit = np.flatnonzero((sp.gold[:, k] == 0) & (sp.pred[:, k] == 0))
        g, p = sp.gold[hit].copy(), sp.pred[hit].copy()
        g[:, k], p[:, k] = 1, 1
        src.append(hit)
        dst.append(sp.index(g, p))
    return np.concatenate(src), np.concatenate(dst)


def _empty_violation(m, spaces, policy: str):
    """The first (space, case, other case, values) where an empty-empty item is not a right item; None if none."""
    found = None
    for sp in spaces:
        src, dst = sp.memo("empty_items", lambda sp=sp: _empty_items(sp))
        if not src.size:
            continue
        a = np.asarray(example_based(m, sp.stats[src], policy=policy, explain=False).value, dtype=float)
        b = np.asarray(example_based(m, sp.stats[dst], policy=policy, explain=False).value, dtype=float)
        defined = ~np.isnan(a) & ~np.isnan(b)
        bad = ~(defined & _close(a, b))
        i = _first(bad & defined)
        if i is not None:
            return sp, int(src[i]), int(dst[i]), a[i], b[i]
        i = _first(bad)
        if i is not None and found is None:
            found = sp, int(src[i]), int(dst[i]), a[i], b[i]
    return found


def check_EMPTY(cs):
    hit = _empty_violation(cs.m, cs.spaces, cs.policy)
    holds = [p for p in POLICIES if (hit if p == cs.policy else _empty_violation(cs.m, cs.spaces, p)) is None]
    where = (f"holds under polic{'y' if len(holds) == 1 else 'ies'} {', '.join(holds)}" if holds
             else "holds under no 0/0 policy")
    one = example_based(cs.m, cs.spaces[0].item_table[0, 0], policy=cs.policy, explain=False).value \
        if cs.spaces else math.nan
    one = float(np.asarray(one, dtype=float))
    if hit is None:
        n = sum(len(sp.memo("empty_items", lambda sp=sp: _empty_items(sp))[0]) for sp in cs.spaces)
        return SATISFIED, "", f"policy {cs.policy}: {n} cases with such an item checked; {where}"
    sp, c, d, a, b = hit
    if math.isnan(one):
        how = ("an item with empty gold and predicted sets is undefined and skipped in the mean over items, so "
               "it does not count as right")
    else:
        how = f"an item with empty gold and predicted sets counts as {_v(one)}, not as a right item ({_v(cs.best)})"
    return (VIOLATED, f"{sp.describe(c)} ({_v(a)}) vs {sp.describe(d)} ({_v(b)})",
            f"policy {cs.policy}: {how}; {where}")


_CHECKS = {pid: globals()[f"check_{pid}"] for pid in ML_PROPERTIES}


class _Prop:                       # what audit's claim lookup reads
    def __init__(self, pid):
        self.id = pid


def audit_multilabel(measures=None, properties=None, *, max_n: int = 4, labels=(2, 3), policy: str | None = None,
                     max_cases: int = 200_000, empty_policy: str | None = None) -> pd.DataFrame:
    """Check the set properties (module docstring) for example-based measures.

    ``measures``: ids or :class:`~evalreport.measures.Measure` records with ``kind="example"``
    (default: the six of :data:`~evalreport.measures.multilabel.EXAMPLE_IDS`). ``properties``:
    ids of :data:`ML_PROPERTIES` (default all). ``max_n``: most items per test set; ``labels``:
    the label counts L; ``max_cases``: the most cases of one (L, n) space (larger n are left out
    and the setting says which n were covered). ``policy``: one 0/0 policy for every property
    instead of each paper's own. ``empty_policy``: the policy of the ``EMPTY`` check, which no paper
    defines (default: ``policy``, else ``nan``, the default of every command); a report passes the
    policy its values were computed with, so the verdict describes those values.

    Returns the columns of :func:`evalreport.analyses.audit.audit`; ``setting`` is
    ``multilabel (L=..., n<=...)``.
    """
    ms = [get(m) for m in (EXAMPLE_IDS if measures is None else
                           ([measures] if isinstance(measures, str) else measures))]
    for m in ms:
        if m.kind != "example":
            raise MeasureError(f"measure {m.id!r} is not example-based; the multi-label audit covers the "
                               "example-based measures (label-based averages are audited as averages)")
    props = list(ML_PROPERTIES) if properties is None else [str(p) for p in properties]
    unknown = [p for p in props if p not in ML_PROPERTIES]
    if unknown:
        raise MeasureError(f"unknown multi-label property {unknown[0]!r}; properties: {', '.join(ML_PROPERTIES)}")
    if max_n < 1:
        raise MeasureError("max_n must be at least 1")
    spaces = _spaces(tuple(int(L) for L in labels), int(max_n), int(max_cases))
    settings: dict[int, int] = {}               # label count -> the largest n checked
    for sp in spaces:
        settings[sp.L] = max(settings.get(sp.L, 0), sp.n)
    setting = "multilabel (" + "; ".join(f"L={L}, n<={n}" for L, n in settings.items()) + ")"
    rows = []
    for m in ms:
        claims = parse_claims(m)
        cases = {}
        for pid in props:
            paper, _, _ = ML_PROPERTIES[pid]
            pol = (empty_policy or policy or "nan") if pid == "EMPTY" else (policy or PAPER_POLICY[paper])
            if pol not in cases:
                cases[pol] = _Cases(m, pol, spaces)
            try:
                verdict, example, detail = _CHECKS[pid](cases[pol])
            except Exception as exc:   # a user's measure may fail on some inputs: report, don't crash
                verdict, example, detail = NA, "", f"check failed: {type(exc).__name__}: {exc}"
            hit = claim_for(claims, _Prop(pid), "multilabel") if paper else None
            # no paper states these verdicts for label sets: the records' claims are evalreport's
            # analysis of each formula (measures/multilabel.py), so they are the expected verdicts,
            # never a paper's claim
            rows.append({"measure": m.id, "property": pid, "paper": paper or "",
                         "setting": setting, "verdict": verdict, "counterexample": example, "detail": detail,
                         "policy": pol, "paper_claim": "", "paper_source": "", "agrees_with_paper": None,
                         "expected": hit["expected"] if hit else "",
                         "as_expected": None if hit is None else bool(verdict == hit["expected"]),
                         "why": (hit["why"] or "evalreport's reading of the formula for label sets "
                                 "(evalreport/measures/multilabel.py)") if hit else ""})
    return pd.DataFrame(rows, columns=COLUMNS)
