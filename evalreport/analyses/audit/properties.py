"""The properties, each a check over confusion matrices (see the package docstring for the list).

Every check takes a :class:`Case` (one measure in one setting: K classes, an undefined-value
policy, the values of the measure on every matrix of the :class:`~.space.Space`) and returns a
:class:`Verdict`. Nothing here knows any particular measure: a property is a computation over
the values the measure's own function returns.

Conventions shared by all checks
--------------------------------
* "Undefined" means the measure returned NaN (under the case's policy). A property that
  relates values (monotonicity, symmetry, constant baseline, ...) is checked where the values
  involved are defined; pairs or groups with an undefined member are skipped and counted in the
  detail. Definedness itself is the subject of SDE and WDE only.
* Direction: properties about "better" (MON, PI, Max, Min, Mon, SMon, PV, Dist) use the
  oriented score ``s = value`` for higher-is-better measures and ``s = -value`` otherwise (paper
  004, section 3: all properties are invariant under such a linear transformation).
* Ties: two values are equal when they differ by at most 1e-9 (relative to max(1, |value|)).
* Smallest counterexample: the space is sorted by n, then lexicographically; a check reports
  the first violation in that order, then (only if none) the first found by a seeded random
  search over larger n.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from evalreport.analyses.audit import batches as _b
from evalreport.analyses.audit.batches import EXTREME_SALT, RELATIONS, is_diag as _is_diag, zero_diag as _zero_diag
from evalreport.analyses.audit.space import Space, fmt_matrix, labelings
from evalreport.measures import compute, for_synthetic
from evalreport.measures._core import Measure

TOL = 1e-9
SATISFIED, VIOLATED, NA = "satisfied", "violated", "n/a"


@dataclass
class Verdict:
    verdict: str
    counterexample: str = ""
    detail: str = ""


@dataclass
class Case:
    """One measure in one setting, with its values on every matrix of the space."""

    measure: Measure
    K: int
    setting: str
    policy: str
    space: Space
    seed: int = 0
    n_random: int = 400
    #: the measure's values on the batches of :mod:`.batches`, by name, computed in one stacked
    #: call (:func:`.batches.evaluate_bank`); None: every batch is evaluated when a check reads it
    bank: dict | None = field(default=None, repr=False)
    #: the measure's raw values on :func:`.batches.pv_batch` by K, under this policy, shared by
    #: the measure's cases (PV_complete reads K = 2, 3, 4 in each setting)
    pv_values: dict | None = field(default=None, repr=False)
    values: np.ndarray = field(init=False, repr=False)
    cache: dict = field(default_factory=dict, repr=False)

    def __post_init__(self):
        self.values = self.values_of(("space",))

    @property
    def sign(self) -> float:
        return 1.0 if self.measure.higher_is_better else -1.0

    @property
    def S(self) -> np.ndarray:
        return self.sign * self.values

    @property
    def defined(self) -> np.ndarray:
        return ~np.isnan(self.values)

    @property
    def max_n(self) -> int:
        return self.space.max_n

    def rng(self, salt: int) -> np.random.Generator:
        return np.random.default_rng([self.seed, salt, self.K])

    def evaluate(self, mats) -> np.ndarray:
        """Raw values of the measure (NaN = undefined) for a batch of (possibly real) matrices."""
        return evaluate_measure(self.measure, mats, policy=self.policy)

    def values_of(self, name) -> np.ndarray:
        """Raw values on the named batch of :mod:`.batches` (from the bank when it has them)."""
        if self.bank is not None and name in self.bank:
            return self.bank[name]
        return self.evaluate(_b.batch(self.space, name, self.seed, self.n_random))

    def values_or(self, name, mats) -> np.ndarray:
        """Raw values on ``mats``, read from the bank under ``name`` when it has them."""
        if self.bank is not None and name in self.bank:
            return self.bank[name]
        return self.evaluate(mats)

    def random(self, salt: int, count: int | None = None) -> np.ndarray:
        """Seeded random matrices with max_n < n <= 3 max_n (the same for every measure)."""
        return _b.random_batch(self.space, self.seed, salt, self.n_random if count is None else count)


def evaluate_measure(measure: Measure, mats, *, policy: str) -> np.ndarray:
    """Values of ``measure`` on a batch of K x K matrices (NaN = undefined). A binary measure
    takes class 1 as the positive class; a measure that needs costs gets the absolute-distance
    costs |i - j| of the class order 0..K-1 (ordinal classification, paper 000 eq. 7); a class-subset
    or gain measure is computed as :func:`evalreport.measures.for_synthetic` defines for K classes."""
    mats = np.asarray(mats, dtype=float)
    if len(mats) == 0:
        return np.zeros(0)
    K = mats.shape[-1]
    positive = 1 if "positive" in measure.needs else None
    costs = np.abs(np.subtract.outer(np.arange(K), np.arange(K))).astype(float) if "costs" in measure.needs else None
    return np.asarray(compute(for_synthetic(measure, K), mats, positive=positive, policy=policy, costs=costs, explain=False).value,
                      dtype=float)


def close(x, y) -> np.ndarray:
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    return np.abs(x - y) <= TOL * np.maximum(1.0, np.maximum(np.abs(x), np.abs(y)))


def _v(x) -> str:
    return "undefined" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{float(x):.6g}"


# ---------------------------------------------------------------------- relations over steps


def _relation(case: Case, kinds, ok: Callable, *, src_ok: Callable | None = None,
              pair_ok: Callable | None = None, what: str, min_n_room: int = 0) -> Verdict:
    """Check ``ok(s_src, s_dst, C_src, C_dst)`` over every step of the given kinds.

    Exhaustive over the space (src matrices with n <= max_n - ``min_n_room`` so that the result
    is still in the space), then over random larger matrices. ``src_ok``/``pair_ok`` restrict
    the steps the property talks about. An ``ok`` without a ``needs_mats`` attribute ignores
    C_src and C_dst (they are passed as None).
    """
    space, S = case.space, case.S
    kinds = tuple(kinds)
    mats_too = getattr(ok, "needs_mats", False)
    best = best_full = None
    checked = skipped = 0
    full = space.full
    for kind in kinds:
        def make_kept(kind=kind):
            src, dst, step = space.transition(kind)
            keep = np.ones(len(src), dtype=bool)
            if src_ok is not None:
                on = getattr(src_ok, "on_space", None)
                keep &= on(space, src) if on is not None else src_ok(space.mats[src])
            if pair_ok is not None:
                on = getattr(pair_ok, "on_space", None)
                keep &= on(space, src, dst) if on is not None else pair_ok(space.mats[src], space.mats[dst])
            return src[keep], dst[keep], step[keep]

        # (only the steps the property talks about: filtered once per space)
        src, dst, step = space.memo(("kept", kind, getattr(src_ok, "__name__", None),
                                     getattr(pair_ok, "__name__", None)), make_kept)
        Ss, Sd = S[src], S[dst]
        both = ~np.isnan(Ss) & ~np.isnan(Sd)
        n_both = int(np.count_nonzero(both))
        skipped += len(src) - n_both
        checked += n_both
        flagged = getattr(ok, "step_flag", None)
        if flagged is not None:
            flag = space.memo(("step flag", kind, getattr(src_ok, "__name__", None),
                               getattr(pair_ok, "__name__", None), flagged[0].__name__),
                              lambda src=src, dst=dst: flagged[0](space.mats[src], space.mats[dst]))
            good = flagged[1](Ss[both], Sd[both], flag[both])
        else:
            sb, db = src[both], dst[both]
            good = ok(Ss[both], Sd[both], space.mats[sb] if mats_too else None,
                      space.mats[db] if mats_too else None)
        if not good.all():
            k = np.nonzero(both)[0][~good]
            j = k[np.lexsort((dst[k], src[k]))[0]]
            cand = (int(src[j]), space.mats[src[j]], space.mats[dst[j]], case.values[src[j]], case.values[dst[j]],
                    step[j])
            if best is None or cand[0] < best[0]:
                best = cand
            kf = k[full[src[k]] & full[dst[k]]]
            if len(kf):
                jf = kf[np.lexsort((dst[kf], src[kf]))[0]]
                cand = (int(src[jf]), space.mats[src[jf]], space.mats[dst[jf]], case.values[src[jf]],
                        case.values[dst[jf]], step[jf])
                if best_full is None or cand[0] < best_full[0]:
                    best_full = cand
    scope = f"{checked} steps between matrices with n <= {case.max_n}"
    if skipped:
        scope += f" ({skipped} skipped: a value undefined)"
    if best is not None:
        _, Cs, Cd, vs, vd, st = best
        if best_full is None:
            also = "; none among the steps where every class occurs in the gold and the predicted labels"
        elif best_full[0] == best[0]:
            also = ""
        else:
            _, Fs, Fd, fs, fd, ft = best_full
            also = (f"; also where every class occurs in gold and predictions: C={fmt_matrix(Fs)} ({_v(fs)}) -> "
                    f"C'={fmt_matrix(Fd)} ({_v(fd)}): {ft}")
        return Verdict(VIOLATED, f"C={fmt_matrix(Cs)} ({_v(vs)}) -> C'={fmt_matrix(Cd)} ({_v(vd)}): {st}",
                       f"{what}; first of the violations among {scope}{also}")
    # random search beyond the bound
    rchecked = 0
    src_name, pair_name = getattr(src_ok, "__name__", None), getattr(pair_ok, "__name__", None)
    for kind in kinds:
        Cs, Cd, step = _b.random_steps(space, case.seed, case.n_random, kinds, kind, src_ok, pair_ok)
        vs = case.values_or(("steps", kinds, kind, src_name, pair_name, "src"), Cs)
        vd = case.values_or(("steps", kinds, kind, src_name, pair_name, "dst"), Cd)
        both = ~np.isnan(vs) & ~np.isnan(vd)
        rchecked += int(both.sum())
        bad = both.copy()
        bad[both] = ~ok(case.sign * vs[both], case.sign * vd[both], Cs[both] if mats_too else None,
                        Cd[both] if mats_too else None)
        if bad.any():
            j = np.nonzero(bad)[0][np.argmin(Cs[bad].sum(axis=(1, 2)))]
            return Verdict(VIOLATED, f"C={fmt_matrix(Cs[j])} ({_v(vs[j])}) -> C'={fmt_matrix(Cd[j])} ({_v(vd[j])}): "
                                     f"{step[j]}",
                           f"{what}; none among {scope}, found by random search beyond n = {case.max_n}")
    if checked + rchecked == 0:
        return Verdict(NA, "", f"no step where the measure is defined on both sides ({what})")
    return Verdict(SATISFIED, "", f"{what}: holds on all {scope} and {rchecked} random steps up to n = {3 * case.max_n}")


def _by_spec(case: Case, pid: str, ok: Callable, *, what: str) -> Verdict:
    """:func:`_relation` over the steps :data:`.batches.RELATIONS` declares for property ``pid``."""
    kinds, src_ok, pair_ok = RELATIONS[pid]
    return _relation(case, kinds, ok, src_ok=src_ok, pair_ok=pair_ok, what=what)


def _gt(vs, vd, *_):
    return vd > vs + TOL * np.maximum(1.0, np.abs(vs))


def _eq(vs, vd, *_):
    return close(vs, vd)


_not_unary = _b.not_unary


# ---------------------------------------------------------------------- paper 000 (Sebastiani)


def check_MON(case: Case) -> Verdict:
    """Axiom 1: correcting one wrong prediction strictly increases the measure."""
    return _by_spec(case, "MON", _gt, what="a wrong prediction made correct must strictly increase the score")


def check_SDE(case: Case) -> Verdict:
    """Axiom 3: defined for every test set and every classifier."""
    und = ~case.defined
    if und.any():
        i = int(np.nonzero(und)[0][0])
        return Verdict(VIOLATED, f"C={fmt_matrix(case.space.mats[i])} is undefined",
                       f"undefined on {int(und.sum())} of {len(und)} matrices with n <= {case.max_n} "
                       f"(policy {case.policy})")
    return Verdict(SATISFIED, "", f"defined on all {len(und)} matrices with n <= {case.max_n} (policy {case.policy})")


def check_WDE(case: Case) -> Verdict:
    """Axiom 4: on a test set (gold class sizes) the measure is defined for all classifiers or none."""
    g, uniq = case.space.groups("a")
    d = case.defined
    some = np.bincount(g, d, minlength=len(uniq)) > 0
    all_ = np.bincount(g, d, minlength=len(uniq)) == np.bincount(g, minlength=len(uniq))
    mixed = some & ~all_
    if mixed.any():
        rows = np.nonzero(mixed[g])[0]
        first = rows[0]
        grp = g[first]
        members = np.nonzero(g == grp)[0]
        ok = members[d[members]][0]
        no = members[~d[members]][0]
        return Verdict(VIOLATED, f"gold sizes {tuple(int(x) for x in uniq[grp])}: C={fmt_matrix(case.space.mats[ok])} "
                                 f"({_v(case.values[ok])}) but C'={fmt_matrix(case.space.mats[no])} (undefined)",
                       f"defined for some classifiers and not others on {int(mixed.sum())} of {len(uniq)} test sets")
    return Verdict(SATISFIED, "", f"on each of {len(uniq)} test sets (n <= {case.max_n}) defined for all "
                                  f"classifiers or none")


def check_FIX(case: Case) -> Verdict:
    """Axiom 5: the range [alpha, beta] over all classifiers is the same on every test set."""
    g, uniq = case.space.groups("a")
    d = case.defined
    if not d.any():
        return Verdict(NA, "", "never defined")
    v = case.values
    lo = np.full(len(uniq), np.inf)
    hi = np.full(len(uniq), -np.inf)
    np.minimum.at(lo, g[d], v[d])
    np.maximum.at(hi, g[d], v[d])
    has = np.isfinite(lo)
    alpha, beta = lo[has].min(), hi[has].max()
    off = has & ~(close(lo, alpha) & close(hi, beta))
    if off.any():
        k = int(np.nonzero(off)[0][np.argmin(uniq[off].sum(axis=1))])
        return Verdict(VIOLATED, f"gold sizes {tuple(int(x) for x in uniq[k])}: values range over [{_v(lo[k])}, "
                                 f"{_v(hi[k])}], not [{_v(alpha)}, {_v(beta)}]",
                       f"range differs on {int(off.sum())} of {int(has.sum())} test sets with a defined value "
                       f"(n <= {case.max_n})")
    return Verdict(SATISFIED, "", f"range [{_v(alpha)}, {_v(beta)}] on every one of {int(has.sum())} test sets "
                                  f"(n <= {case.max_n}; {int((~has).sum())} test sets where it is never defined)")


def _expectations(case: Case, prob: str, group: str, rows: np.ndarray, rows_key: str):
    """Conditional expectation over the defined outcomes, per group (``space.groups(group)``)
    of the matrices ``rows`` (named ``rows_key``), with the probabilities ``space.<prob>``."""
    space = case.space

    def make():
        g_all, uniq_all = space.groups(group)
        used, g = np.unique(g_all[rows], return_inverse=True)
        uniq = uniq_all[used]
        p = getattr(space, prob)[rows]
        return g, uniq, p, np.bincount(g, p, minlength=len(uniq))

    g, uniq, p, total = space.memo(("expectations", prob, group, rows_key), make)
    v, d = case.values[rows], case.defined[rows]
    mass = np.bincount(g, np.where(d, p, 0.0), minlength=len(uniq))
    s = np.bincount(g, np.where(d, p * np.where(d, v, 0.0), 0.0), minlength=len(uniq))
    with np.errstate(invalid="ignore", divide="ignore"):
        e = np.where(mass > 0, s / np.where(mass > 0, mass, 1.0), np.nan)
    return uniq, e, 1.0 - mass / total


def _constant(case, uniq, e, skipped, *, label: Callable, what: str, expected=None, full=None) -> Verdict:
    """All defined entries of ``e`` equal? ``full`` marks the groups in which every class occurs
    (used to say whether a violation needs an absent class)."""
    has = ~np.isnan(e)
    if full is not None:
        v = _constant(case, uniq[full], e[full], skipped[full], label=label, what=what, expected=expected)
    else:
        v = None
    verdict = _constant_core(case, uniq, e, skipped, has, label=label, what=what, expected=expected)
    if verdict.verdict == VIOLATED and v is not None:
        if v.verdict == SATISFIED:
            verdict.detail += ("; holds when every class occurs in the gold and predicted sizes: "
                               + v.detail.split(" on all ")[0])
        elif v.verdict == VIOLATED:
            verdict.detail += f"; also when every class occurs: {v.counterexample}"
    return verdict


def _constant_core(case, uniq, e, skipped, has, *, label, what, expected) -> Verdict:
    if not has.any():
        return Verdict(NA, "", f"{what}: undefined on every group")
    order = np.argsort(uniq.sum(axis=1), kind="stable")
    order = order[has[order]]
    ref = order[0]
    off = order[~close(e[order], e[ref])]
    note = ""
    if skipped[has].max() > 0:
        note = f"; expectations over the defined outcomes (up to {skipped[has].max():.3g} of the probability skipped)"
    if len(off):
        k = off[0]
        return Verdict(VIOLATED, f"{label(uniq[ref])}: {_v(e[ref])}; {label(uniq[k])}: {_v(e[k])}",
                       f"{what} differs between {len(off) + 1}+ of {int(has.sum())} groups (n <= {case.max_n}){note}")
    extra = ""
    if expected is not None and not close(e[ref], expected):
        extra = f"; NB the registry's chance value is {_v(expected)}"
    return Verdict(SATISFIED, "", f"{what} = {_v(e[ref])} on all {int(has.sum())} groups (n <= {case.max_n}){note}{extra}")


def _chance(case: Case):
    try:
        return case.measure.chance_value(case.K)
    except Exception:  # a user's callable may not accept every K
        return None


def check_CHA(case: Case) -> Verdict:
    """Axiom 6: the expected value of the random classifier (each item labelled with one of the K
    classes uniformly and independently; for K = 2 positive with probability 1/2, as in the proof
    of Property 5.6) is the same on every test set. Exact: the probability of every confusion
    matrix given the gold sizes is multinomial."""
    space = case.space
    uniq, e, skipped = _expectations(case, "random_classifier_prob", "a", np.arange(len(space)), "all")
    return _constant(case, uniq, e, skipped, label=lambda a: f"E on gold sizes {tuple(int(x) for x in a)}",
                     what="expected value of the uniformly random classifier", expected=_chance(case))


def check_IMB(case: Case) -> Verdict:
    """Axiom 7: the trivial classifiers (everything predicted as class j; for K = 2 the trivial
    acceptor and rejector) score a constant k_j on every test set where all classes occur."""
    space = case.space
    full = (space.a > 0).all(axis=1)
    trivial = (space.b == space.n[:, None])
    rows = np.nonzero(full & trivial.any(axis=1))[0]
    j = trivial[rows].argmax(axis=1)
    d = case.defined[rows]
    if not d.any():
        return Verdict(NA, "", "undefined for every trivial classifier (so the axiom cannot be evaluated)")
    for cls in range(case.K):
        r = rows[(j == cls) & d]
        if len(r) == 0:
            continue
        off = r[~close(case.values[r], case.values[r[0]])]
        if len(off):
            k = off[0]
            name = {0: "trivial rejector (all predicted 0)", 1: "trivial acceptor (all predicted 1)"}.get(cls) \
                if case.K == 2 else f"trivial classifier predicting {cls}"
            return Verdict(VIOLATED, f"{name}: C={fmt_matrix(space.mats[r[0]])} ({_v(case.values[r[0]])}) vs "
                                     f"C'={fmt_matrix(space.mats[k])} ({_v(case.values[k])})",
                           f"the score of a trivial classifier depends on the test set (n <= {case.max_n})")
    vals = ", ".join(f"k_{c}={_v(case.values[rows[(j == c) & d][0]])}" for c in range(case.K) if ((j == c) & d).any())
    und = int((~d).sum())
    return Verdict(SATISFIED, "", f"constant on all test sets with every class present: {vals}"
                                  + (f" ({und} trivial cases undefined)" if und else ""))


def check_SYM(case: Case) -> Verdict:
    """Axiom 8: invariant under swapping the class and its complement (both axes reversed)."""
    return _by_spec(case, "SYM", _eq, what="the value must not change when the classes are swapped")


def check_CON(case: Case) -> Verdict:
    """Axiom 2: continuously differentiable in TP and TN for a fixed test set.

    Operationalisation. A test set fixes the gold sizes (row sums); a classifier moves mass
    within rows. At every integer matrix B with n <= 8 (K = 2) or n <= 4 (K = 3), for every
    direction E = e_ik - e_ij that keeps B + hE >= 0, the measure is evaluated at B + hE for
    h = 1e-4, 1e-6, 1e-10 (real-valued masses). Reported as violations:

    * a jump: the limit along E differs from the value at B (beyond 1e-4);
    * at an undefined B: limits along two directions differ, so no value makes it continuous;
    * an unbounded derivative: the difference quotients at 1e-4 and 1e-6 disagree (e.g. the
      sqrt of MCC's denominator, x log x of confusion entropy);
    * a kink: the directional derivatives are not additive, D(E1 + E2) != D(E1) + D(E2).

    An undefined B whose directional limits agree is not a violation of CON (a convention could
    fill it continuously); SDE and WDE report it.
    """
    space = case.space
    cap = _b.con_cap(case.K, case.max_n)
    rows = _b.con_rows(space)
    B = space.mats[rows].astype(float)
    f0 = case.values[rows]
    K = case.K
    dirs = _b.con_dirs(K)
    H = _b.CON_H

    ev = np.full((len(dirs), len(H), len(B)), np.nan)     # NaN where a direction is infeasible
    ev.ravel()[_b.con_scatter(space)] = case.values_of(("CON",))
    L = ev[:, 2]                                               # limits, (D, MB)
    defined0 = ~np.isnan(f0)
    tol = 1e-4
    # jumps at defined points
    jump = defined0[None, :] & ~np.isnan(L) & (np.abs(L - f0[None, :]) > tol * (1 + np.abs(f0[None, :])))
    # disagreeing limits at undefined points
    with np.errstate(all="ignore"):
        lmax, lmin = np.nanmax(np.where(np.isnan(L), -np.inf, L), axis=0), np.nanmin(np.where(np.isnan(L), np.inf, L), axis=0)
    nolim = ~defined0 & np.isfinite(lmax) & np.isfinite(lmin) & (lmax - lmin > tol)
    problems = []   # (row position, text)
    infinite = ~np.isnan(L) & (np.abs(L) > 1e8)
    for pos in np.nonzero(infinite.any(axis=0))[0][:1]:
        di = int(np.nonzero(infinite[:, pos])[0][0])
        i, j, k = dirs[di]
        problems.append((pos, f"no finite limit at C={fmt_matrix(B[pos])} ({_v(f0[pos])}): the value grows without "
                              f"bound when mass of gold class {i} moves from predicted {j} to {k}"))
    for pos in np.nonzero(jump.any(axis=0))[0][:1]:
        di = int(np.nonzero(jump[:, pos])[0][0])
        i, j, k = dirs[di]
        problems.append((pos, f"jump at C={fmt_matrix(B[pos])}: value {_v(f0[pos])}, limit {_v(L[di, pos])} "
                              f"when mass of gold class {i} moves from predicted {j} to {k}"))
    for pos in np.nonzero(nolim)[0][:1]:
        ds = [di for di in range(len(dirs)) if not np.isnan(L[di, pos])]
        hi = max(ds, key=lambda di: L[di, pos])
        lo = min(ds, key=lambda di: L[di, pos])
        problems.append((pos, f"C={fmt_matrix(B[pos])} is undefined and the limits disagree: {_v(L[hi, pos])} "
                              f"moving gold {dirs[hi][0]} from {dirs[hi][1]} to {dirs[hi][2]}, {_v(L[lo, pos])} moving "
                              f"gold {dirs[lo][0]} from {dirs[lo][1]} to {dirs[lo][2]}"))
    base = np.where(defined0, f0, np.where(nolim, np.nan, np.where(np.isfinite(lmax), lmax, np.nan)))
    with np.errstate(all="ignore"):
        Q0, Q1 = (ev[:, 0] - base[None, :]) / H[0], (ev[:, 1] - base[None, :]) / H[1]     # (D, MB)
        bad = ~np.isnan(Q0) & ~np.isnan(Q1) & (np.abs(Q1 - Q0) > 1e-2 * (1 + np.abs(Q0))) & ~jump
        SM = ~np.isnan(Q1) & (np.abs(Q1 - Q0) <= 1e-2 * (1 + np.abs(Q0)))
    hit = bad.any(axis=1)
    if hit.any():
        di = int(np.argmax(hit))
        d = dirs[di]
        pos = int(np.nonzero(bad[di])[0][0])
        problems.append((pos, f"unbounded derivative at C={fmt_matrix(B[pos])} (value {_v(base[pos])}) moving "
                              f"gold {d[0]} from predicted {d[1]} to {d[2]}: difference quotients "
                              f"{Q0[di, pos]:.4g} at h=1e-4, {Q1[di, pos]:.4g} at h=1e-6"))
    # kinks: additivity of directional derivatives, all pairs of directions in one evaluation
    # (every feasible combined move is evaluated once per measure, :func:`.batches.con_kinks`; the
    # entries are in the order of the pairs, so the first bad entry is the first pair's first row)
    pair, x, y, r, at = _b.con_kink_entries(space)
    moved_values = case.values_of(("CON kinks",))
    with np.errstate(all="ignore"):
        ok = SM[x, r] & SM[y, r] & ~np.isnan(base)[r]
        q12 = np.zeros(len(r))
        mv = at >= 0
        q12[mv] = (moved_values[at[mv]] - base[r[mv]]) / H[1]
        D1, D2 = Q1[x, r], Q1[y, r]
        bad = ok & ~np.isnan(q12) & (np.abs(q12 - D1 - D2) > 1e-3 * (1 + np.abs(D1) + np.abs(D2)))
    if bad.any():
        e = int(np.argmax(bad))
        pos = int(r[e])
        d1, d2 = dirs[int(x[e])], dirs[int(y[e])]
        problems.append((pos, f"kink at C={fmt_matrix(B[pos])} (value {_v(base[pos])}): directional "
                              f"derivatives {D1[e]:.4g} (gold {d1[0]}: {d1[1]}->{d1[2]}) and "
                              f"{D2[e]:.4g} (gold {d2[0]}: {d2[1]}->{d2[2]}) but {q12[e]:.4g} for "
                              f"both moves together"))
    if problems:
        pos, text = min(problems, key=lambda p: p[0])
        tags = {"jump": "jump", "no finite": "no finite limit", "unbounded": "unbounded derivative", "kink": "kink"}
        kinds = sorted({next((v for k, v in tags.items() if t.startswith(k)), "disagreeing limits")
                        for _, t in problems})
        return Verdict(VIOLATED, text, f"not continuously differentiable within a test set ({', '.join(kinds)} found; "
                                       f"matrices with n <= {cap})")
    n_undef = int((~defined0).sum())
    return Verdict(SATISFIED, "", f"no jump, kink or unbounded derivative at {len(B)} matrices with n <= {cap} "
                                  f"(real-valued masses moved within rows)"
                   + (f"; {n_undef} undefined points have a continuous extension" if n_undef else ""))


# ---------------------------------------------------------------------- paper 002 (Opitz)


def check_PI(case: Case) -> Verdict:
    """Property I, discrete eq. 3: one more correct item never lowers the score, one more error
    never raises it (non-strict)."""

    return _by_spec(case, "PI", _pi_ok, what="adding a correct item must not lower and adding an error must not raise "
                                             "the score")


def _diag_step(Cs, Cd):
    return np.trace(Cd - Cs, axis1=1, axis2=2) == 1


def _pi_rule(vs, vd, diag):
    tol = TOL * np.maximum(1.0, np.abs(vs))
    return np.where(diag, vd >= vs - tol, vd <= vs + tol)


def _pi_ok(vs, vd, Cs, Cd):
    return _pi_rule(vs, vd, _diag_step(Cs, Cd))


_pi_ok.needs_mats = True
_pi_ok.step_flag = (_diag_step, _pi_rule)   # on the space: the flag of each step computed once


def check_PII(case: Case) -> Verdict:
    """Property II (class sensitivity), discrete: some matrix where adding a correct item to
    class i and to class j (or an error to two different off-diagonal cells) changes the score
    differently. Existential: the verdict 'satisfied' comes with a witness in the detail."""
    space, S = case.space, case.S
    K = case.K

    def make():
        rows = np.nonzero(space.n <= case.max_n - 1)[0]
        idx = np.stack([space.index(space.mats[rows] + np.eye(K * K, dtype=np.int64)[c].reshape(K, K))
                        for c in range(K * K)], axis=1).reshape(len(rows), K, K)
        return rows, idx

    rows, idx = space.memo("PII", make)
    vals = np.where(idx >= 0, S[np.maximum(idx, 0)], np.nan)
    diag = np.diagonal(vals, axis1=1, axis2=2)
    off = vals[:, ~np.eye(K, dtype=bool)]
    for name, block in (("correct item", diag), ("error", off)):
        hi = np.nanmax(np.where(np.isnan(block), -np.inf, block), axis=1)
        lo = np.nanmin(np.where(np.isnan(block), np.inf, block), axis=1)
        diff = np.isfinite(hi) & np.isfinite(lo) & ~close(hi, lo)
        if diff.any():
            r = int(np.nonzero(diff)[0][0])
            C = space.mats[rows[r]]
            if name == "correct item":
                cells = [(i, i) for i in range(K)]
            else:
                cells = [(i, j) for i in range(K) for j in range(K) if i != j]
            shown = ", ".join(f"+1 at ({i},{j}): {_v(case.sign * vals[r, i, j])}" for i, j in cells)
            return Verdict(SATISFIED, "", f"class sensitive: at C={fmt_matrix(C)} ({_v(case.values[rows[r]])}) one more "
                                          f"{name} scores differently by cell: {shown}")
    return Verdict(VIOLATED, "no matrix found where the class of a correct item or error matters",
                   f"adding a correct item (or an error) changes the score the same way whatever its classes, on all "
                   f"{len(rows)} matrices with n <= {case.max_n - 1}: a 'micro' measure")


_PIII_P = (1.0, 0.0, -1.0)


def _transform(v, p):
    with np.errstate(all="ignore"):
        if p == 1.0:
            return v
        if p == 0.0:
            return np.where(v > 0, np.log(np.where(v > 0, v, 1.0)), np.nan)
        return np.where(v > 0, np.power(np.where(v > 0, v, 1.0), p), np.nan)


def check_PIII(case: Case) -> Verdict:
    """Property III (class decomposability, eq. 4): M = (1/K sum_i g(row_i, col_i)^p)^(1/p).

    Operationalisation. If M has this form, T(M) = M^p (log M for p = 0) is a sum of terms
    each of which depends only on the cross (row i and column i) of one class, so every cell
    affects the terms of at most two classes. Hence, for two cells x, y whose classes are
    disjoint (e.g. c_00 and c_11, or c_00 and c_12), the mixed difference
    T(C + e_x + e_y) - T(C + e_x) - T(C + e_y) + T(C) is exactly 0. This is tested on every
    matrix with n <= max_n - 2 for p in (1, 0, -1); and the same g for every class requires
    class symmetry. A non-zero mixed difference for every p is a proof that M is not of this
    form for those p; passing is a necessary condition only (a three-way interaction among
    cells of three different classes would go undetected).
    """
    space = case.space
    K = case.K
    rows = np.nonzero(space.n <= case.max_n - 2)[0]
    cells = [(i, j) for i in range(K) for j in range(K)]
    pairs = [(x, y) for a, x in enumerate(cells) for y in cells[a + 1:] if not ({x[0], x[1]} & {y[0], y[1]})]
    base = space.mats[rows]

    def unit(c):
        e = np.zeros((K, K), dtype=np.int64)
        e[c] = 1
        return e

    def make():     # (pairs, rows) index arrays of C + e_x, C + e_y, C + e_x + e_y
        if not pairs:
            return (np.zeros((0, len(rows)), dtype=np.int64),) * 3
        return tuple(np.stack(a) for a in zip(*[(space.index(base + unit(x)), space.index(base + unit(y)),
                                                  space.index(base + unit(x) + unit(y))) for x, y in pairs]))

    IX, IY, IXY = space.memo("PIII arrays", make)
    results = {}
    for p in _PIII_P:
        T = _transform(case.values, p)
        first = None
        t0, tx, ty, txy = np.broadcast_to(T[rows], IX.shape), T[IX], T[IY], T[IXY]
        fin = np.isfinite(t0) & np.isfinite(tx) & np.isfinite(ty) & np.isfinite(txy)
        tested = int(fin.sum())
        with np.errstate(all="ignore"):
            delta = txy - tx - ty + t0
            scale = np.maximum.reduce([np.ones_like(t0), np.abs(t0), np.abs(tx), np.abs(ty), np.abs(txy)])
            bad = fin & (np.abs(delta) > 1e-9 * scale)
        hit = bad.any(axis=1)
        if hit.any():
            # the smallest matrix first, then the first pair (rows are in the order of the space)
            r_of = np.where(hit, np.argmax(bad, axis=1), len(rows))
            k = int(np.argmin(r_of))
            r = int(r_of[k])
            x, y = pairs[k]
            first = (int(rows[r]), x, y, r, float(delta[k, r]))
        results[p] = (first, tested)
    passing = [p for p in _PIII_P if results[p][0] is None and results[p][1] >= 1]
    if passing:
        csym = case.cache.get("CSym") or check_CSym(case)
        case.cache["CSym"] = csym
        if csym.verdict == VIOLATED:
            return Verdict(VIOLATED, csym.counterexample, f"separable across classes (p = {passing[0]:g}) but not the "
                                                          f"same function for every class: not class-symmetric")
        return Verdict(SATISFIED, "", f"a generalised mean over classes with p = {passing[0]:g} passes the "
                                      f"mixed-difference test on {results[passing[0]][1]} cases (n <= {case.max_n}) "
                                      f"and the measure is class-symmetric (a necessary condition; see docs/audit.md)")
    first, tested = results[1.0]
    if first is None:
        return Verdict(NA, "", "too few cases where the transformed values are finite")
    src, x, y, r, delta = first
    C = space.mats[src]
    return Verdict(VIOLATED, f"C={fmt_matrix(C)}: adding one item at {x} and one at {y} (classes {sorted(set(x))} "
                             f"and {sorted(set(y))}) interact: mixed difference {delta:.4g} != 0",
                   f"not of the form mean_i g(row_i, col_i)^p for p in {_PIII_P}: cells of disjoint classes interact")


_LAMBDAS = _b.PIV_LAMBDAS


def check_PIV(case: Case) -> Verdict:
    """Property IV (prevalence invariance, eq. 5): scaling the gold classes (Opitz's columns,
    our rows) by any positive factors leaves the value unchanged."""
    space = case.space
    rows = _b.piv_rows(space)
    C = space.mats[rows].astype(float)
    lams = _b.piv_lambdas(case.K)
    v0 = case.values[rows]
    checked = 0
    for li, lam in enumerate(lams):
        v1 = case.values_of(("PIV", li))
        both = ~np.isnan(v0) & ~np.isnan(v1)
        checked += int(both.sum())
        bad = both & ~close(v0, v1)
        if bad.any():
            r = int(np.nonzero(bad)[0][0])
            return Verdict(VIOLATED, f"C={fmt_matrix(C[r])} ({_v(v0[r])}) with gold classes scaled by "
                                     f"{tuple(lam)}: C'={fmt_matrix(C[r] * np.asarray(lam)[:, None])} ({_v(v1[r])})",
                           "the value depends on the class prevalences")
    if checked == 0:
        return Verdict(NA, "", "never defined on both sides")
    return Verdict(SATISFIED, "", f"unchanged under {len(lams)} row scalings on {len(rows)} matrices (n <= "
                                  f"{min(case.max_n, 6)})")


def _pv_curve(case: Case, K: int):
    """For each prevalence vector a (all classes present): max and min over random classifiers z
    (interior of the simplex, plus z = a) of the oriented score at the matrix a z^T / n
    (the matrices: :func:`.batches.pv_batch`)."""
    A, mats, ai = _b.pv_batch(K)
    shared = case.pv_values if case.pv_values is not None else {}
    if K not in shared:
        shared[K] = case.values_of(("PV",)) if K == case.K else evaluate_measure(case.measure, mats,
                                                                                 policy=case.policy)
    raw = shared[K]
    s = case.sign * raw
    hi = np.full(len(A), -np.inf)
    lo = np.full(len(A), np.inf)
    d = ~np.isnan(s)
    np.maximum.at(hi, ai[d], s[d])
    np.minimum.at(lo, ai[d], s[d])
    return A, hi, lo


def _pv(case: Case):
    if "pv" not in case.cache:
        case.cache["pv"] = _pv_curve(case, case.K)
    return case.cache["pv"]


def check_PV(case: Case) -> Verdict:
    """Property V (chance correction): the best score of a random classifier, max over z of
    M(a z^T), is a function c(K) of the number of classes only, whatever the prevalences a."""
    A, hi, lo = _pv(case)
    has = np.isfinite(hi)
    if not has.any():
        return Verdict(NA, "", "undefined for every random classifier")
    k0 = int(np.nonzero(has)[0][0])
    off = has & ~close(hi, hi[k0])
    if off.any():
        k = int(np.nonzero(off)[0][0])
        return Verdict(VIOLATED, f"prevalences {_prev(A[k0])}: best random score {_v(case.sign * hi[k0])}; "
                                 f"prevalences {_prev(A[k])}: {_v(case.sign * hi[k])}",
                       "the best score of a random classifier depends on the prevalences")
    return Verdict(SATISFIED, "", f"c({case.K}) = {_v(case.sign * hi[k0])} for all {int(has.sum())} prevalence vectors "
                                  f"(random classifiers z on a grid of the simplex interior, plus z = a)")


def _prev(a) -> str:
    return "(" + ", ".join(f"{x / a.sum():.3g}" for x in a) + ")"


def check_PV_strict(case: Case) -> Verdict:
    """Property V, strict: every random classifier scores the same, max = min = c(K)."""
    A, hi, lo = _pv(case)
    has = np.isfinite(hi)
    if not has.any():
        return Verdict(NA, "", "undefined for every random classifier")
    spread = has & ~close(hi, lo)
    if spread.any():
        k = int(np.nonzero(spread)[0][0])
        return Verdict(VIOLATED, f"prevalences {_prev(A[k])}: random classifiers score between "
                                 f"{_v(min(case.sign * hi[k], case.sign * lo[k]))} and "
                                 f"{_v(max(case.sign * hi[k], case.sign * lo[k]))}",
                       "random classifiers with different prediction rates score differently")
    pv = check_PV(case)
    if pv.verdict != SATISFIED:
        return Verdict(VIOLATED, pv.counterexample, "constant per data set but not across prevalences")
    return Verdict(SATISFIED, "", f"every random classifier scores {_v(case.sign * hi[has][0])}")


def check_PV_complete(case: Case) -> Verdict:
    """Property V, complete: strict, with the same constant for every number of classes
    (compared for K = 2, 3, 4)."""
    if "positive" in case.measure.needs:
        return Verdict(NA, "", "a binary measure: defined for two classes only")
    strict = check_PV_strict(case)
    if strict.verdict != SATISFIED:
        return Verdict(VIOLATED, strict.counterexample, "not strictly chance corrected")
    consts = {}
    for K in (2, 3, 4):
        A, hi, lo = _pv_curve(case, K)
        has = np.isfinite(hi)
        if not has.any() or not close(hi[has], hi[has][0]).all() or not close(hi[has], lo[has]).all():
            return Verdict(VIOLATED, f"not strictly chance corrected for K = {K}", "")
        consts[K] = case.sign * hi[has][0]
    vals = list(consts.values())
    if not close(np.asarray(vals), vals[0]).all():
        return Verdict(VIOLATED, ", ".join(f"c({k}) = {_v(v)}" for k, v in consts.items()),
                       "the chance score depends on the number of classes")
    return Verdict(SATISFIED, "", f"c(K) = {_v(vals[0])} for K = 2, 3, 4")


# ---------------------------------------------------------------------- paper 004 (Gösgens et al.)


def _extreme(case: Case, which: str) -> Verdict:
    space, S = case.space, case.S
    special = space.is_diagonal if which == "max" else space.zero_diagonal
    sgn = 1.0 if which == "max" else -1.0
    d = case.defined
    sp = np.nonzero(special & d)[0]
    if len(sp) == 0:
        return Verdict(NA, "", f"undefined on every {'diagonal' if which == 'max' else 'zero-diagonal'} matrix")
    name = "diagonal" if which == "max" else "zero-diagonal"
    ref = sp[0]
    c = S[ref]
    off = sp[~close(S[sp], c)]
    if len(off):
        k = off[0]
        return Verdict(VIOLATED, f"{name} C={fmt_matrix(space.mats[ref])} ({_v(case.values[ref])}) and "
                                 f"C'={fmt_matrix(space.mats[k])} ({_v(case.values[k])})",
                       f"the {name} matrices do not share one value")
    others = np.nonzero(~special & d)[0]
    reach = others[(sgn * (S[others] - c)) >= -TOL * max(1.0, abs(c))]
    if len(reach):
        k = reach[0]
        return Verdict(VIOLATED, f"C={fmt_matrix(space.mats[k])} is not {name} but scores {_v(case.values[k])}, "
                                 f"{'>=' if case.sign * sgn > 0 else '<='} the {name} value {_v(case.values[ref])}",
                       f"the {'maximum' if which == 'max' else 'minimum'} is reached by a matrix that is not {name}")
    salt = EXTREME_SALT[which]
    R = case.random(salt)
    v = case.values_of(("random", salt))
    spec = _is_diag(R) if which == "max" else _zero_diag(R)
    s = case.sign * v
    ok = ~np.isnan(s)
    bad = ok & ((spec & ~close(s, c)) | (~spec & (sgn * (s - c) >= -TOL * max(1.0, abs(c)))))
    if bad.any():
        k = int(np.nonzero(bad)[0][0])
        return Verdict(VIOLATED, f"C={fmt_matrix(R[k])} scores {_v(v[k])} vs the {name} value {_v(case.values[ref])}",
                       f"found by random search beyond n = {case.max_n}")
    case.cache[which] = c
    return Verdict(SATISFIED, "", f"c_{which} = {_v(case.values[ref])}, reached exactly by the {name} matrices "
                                  f"({int(d.sum())} defined matrices with n <= {case.max_n} and {int(ok.sum())} random)")


def check_Max(case: Case) -> Verdict:
    """Definition 1: M <= c_max with equality iff C is diagonal."""
    return _extreme(case, "max")


def check_Min(case: Case) -> Verdict:
    """Definition 2: M >= c_min with equality iff the diagonal of C is zero."""
    return _extreme(case, "min")


def check_Sym(case: Case) -> Verdict:
    """Definition 3: M(C) = M(C^T)."""
    return _by_spec(case, "Sym", _eq, what="the value must not change when gold and predicted labels swap")


def check_CSym(case: Case) -> Verdict:
    """Definition 4: invariant under every permutation of the classes."""
    return _by_spec(case, "CSym", _eq, what="the value must not change when the classes are renamed")


def check_Dist(case: Case) -> Verdict:
    """Definition 5: c_max - M is a metric on labelings. Needs Sym and Max; the triangle
    inequality d(A, C) <= d(A, B) + d(B, C) is checked on all triples of labelings of n items
    (n <= 7 for K = 2, n <= 4 for K = 3)."""
    mx = case.cache.get("Max_verdict") or check_Max(case)
    case.cache["Max_verdict"] = mx
    if mx.verdict != SATISFIED:
        return Verdict(VIOLATED if mx.verdict == VIOLATED else NA, mx.counterexample,
                       "no maximal agreement, so c_max - M cannot be a distance")
    sym = case.cache.get("Sym_verdict") or check_Sym(case)
    case.cache["Sym_verdict"] = sym
    if sym.verdict == VIOLATED:
        return Verdict(VIOLATED, sym.counterexample, "not symmetric, so not a distance")
    cmax = case.cache["max"]
    space = case.space
    K = case.K
    cap = min(case.max_n, 7 if K == 2 else 4)
    checked = 0
    for n in range(1, cap + 1):
        L, idx = space.memo(("Dist", n), lambda n=n: _labeling_pairs(space, n))
        N = len(L)
        D = (cmax - case.S[idx]).reshape(N, N)
        finite = bool(np.isfinite(D).all())     # then every sum is a number: all triples count
        for start in range(0, N, 64):
            sl = slice(start, min(N, start + 64))
            lhs = D[sl, None, :]                                   # d(A, C): A in chunk, C all
            rhs = D[sl, :, None] + D[None, :, :]                   # d(A, B) + d(B, C)
            if finite:
                checked += rhs.size
            else:
                checked += int((~np.isnan(lhs) & ~np.isnan(rhs)).sum())
            # rhs + TOL * max(1, |rhs|), in place; a comparison with NaN is False, so undefined
            # triples are never violations
            thr = np.abs(rhs)
            np.maximum(thr, 1.0, out=thr)
            thr *= TOL
            thr += rhs
            bad = lhs > thr
            if bad.any():
                a, b, c = np.argwhere(bad)[0]
                a += start
                s = lambda x: "".join(str(int(t)) for t in L[x])  # noqa: E731
                return Verdict(VIOLATED, f"labelings A={s(a)}, B={s(b)}, C={s(c)}: d(A,C)={D[a, c]:.6g} > "
                                         f"d(A,B)+d(B,C)={D[a, b]:.6g}+{D[b, c]:.6g}",
                               f"triangle inequality fails for d = c_max - M (c_max = {_v(cmax)})")
    return Verdict(SATISFIED, "", f"symmetric, maximal agreement, and the triangle inequality holds on all "
                                  f"{checked} defined triples of labelings with n <= {cap}")


def _labeling_pairs(space: Space, n: int):
    """All labelings of n items and the space index of the confusion matrix of every pair."""
    K = space.K
    L = labelings(n, K)
    N = len(L)
    cells = (L[:, None, :] * K + L[None, :, :]).reshape(N * N, n)
    C = np.zeros((N * N, K * K), dtype=np.int64)
    np.add.at(C, (np.repeat(np.arange(N * N), n), cells.ravel()), 1)
    return L, space.index(C.reshape(N * N, K, K))


def check_Mon(case: Case) -> Verdict:
    """Definition 6: resolving one disagreement (c_ab -1 and c_aa or c_bb +1) strictly
    increases M, for C where no row or column sum equals n."""
    return _by_spec(case, "Mon", _gt,
                    what="resolving a disagreement must strictly increase the score (no unary labeling)")


def check_SMon(case: Case) -> Verdict:
    """Definition 7: one more diagonal item or one off-diagonal item fewer strictly increases M
    (C with no row or column sum equal to n; C and C' not both diagonal or both zero-diagonal)."""
    # (the docstring is the property's description in the report; the filters: batches.only_diag_add)
    return _by_spec(case, "SMon", _gt, what="one more correct item or one error fewer must strictly increase the score")


def check_CB(case: Case) -> Verdict:
    """Definition 8 (exact): for every gold labeling A and non-unary predicted sizes b,
    E over B ~ U(b) of M(A, B) = c_base(K), the same for every n. The probability of each
    confusion matrix given (a, b) is prod a_i! prod b_j! / (n! prod c_ij!)."""
    space = case.space
    rows = space.memo("non-unary b", lambda: np.nonzero(~(space.b == space.n[:, None]).any(axis=1))[0])
    uniq, e, skipped = _expectations(case, "fixed_sizes_prob", "ab", rows, "non-unary b")
    K = case.K
    return _constant(case, uniq, e, skipped,
                     label=lambda k: f"E over B with sizes b={tuple(int(x) for x in k[K:])} for gold sizes "
                                     f"a={tuple(int(x) for x in k[:K])}",
                     what="expected value over predictions with fixed class sizes", expected=_chance(case),
                     full=(uniq > 0).all(axis=1))


def check_ACB(case: Case) -> Verdict:
    """Definition 9: M at c_ij = a_i b_j / n is c_base(K) for all sizes a and non-unary b."""
    K = case.K
    mats, labels = _b.acb_batch(K, case.max_n)
    v = case.values_of(("ACB",))
    d = ~np.isnan(v)
    if not d.any():
        return Verdict(NA, "", "undefined at every expected matrix")
    ref = int(np.nonzero(d)[0][0])
    bad = d & ~close(v, v[ref])
    if bad.any():
        k = int(np.nonzero(bad)[0][0])
        lab = lambda x: f"a={tuple(int(t) for t in labels[x][:K])}, b={tuple(int(t) for t in labels[x][K:])}"  # noqa
        full = d & (labels > 0).all(axis=1)
        note = ""
        if full.any():
            fr = int(np.nonzero(full)[0][0])
            fb = full & ~close(v, v[fr])
            note = (f"; also when every class occurs: {lab(fr)}: {_v(v[fr])}, {lab(int(np.nonzero(fb)[0][0]))}: "
                    f"{_v(v[fb][0])}" if fb.any() else
                    f"; holds when every class occurs in a and b: c_base = {_v(v[fr])}")
        return Verdict(VIOLATED, f"{lab(ref)}: {_v(v[ref])}; {lab(k)}: C={fmt_matrix(mats[k])} -> {_v(v[k])}",
                       "the value at the expected confusion matrix depends on the class sizes" + note)
    extra = ""
    ch = _chance(case)
    if ch is not None and not close(v[ref], ch):
        extra = f"; NB the registry's chance value is {_v(ch)}"
    return Verdict(SATISFIED, "", f"c_base = {_v(v[ref])} at all {int(d.sum())} expected matrices (n <= {case.max_n})"
                                  + extra)
