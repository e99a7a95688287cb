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
  oriented score ``s = value`` for higher-is-better measures and ``s = -value`` otherwise (Gösgens
  et al. 2021, section 3: all properties are invariant under such a linear transformation).
* Ties: two values are equal when they differ by at most 1e-9 (relative to max(1, |value|)).
* Smallest counterexample: the space is sorted by n, then lexicographically; a check reports
  the first violation in that order, then (only if none) the first found by a seeded random
  search over larger n.

This module holds the shared machinery and the properties of Sebastiani (2015); those of Opitz
(2022) are in :mod:`.properties_opitz`, those of Gösgens et al. (2021) in
:mod:`.properties_goesgens` (the audit finds each check by its name, ``check_<id>``, in the three).
"""
from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from evalreport.analyses.audit import batches as _b
from evalreport.analyses.audit.batches import RELATIONS
from evalreport.analyses.audit.space import Space, fmt_matrix
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
    def domain(self) -> np.ndarray | None:
        """The matrices of the space the case is about (None: all); a restricted case
        (:class:`.conditions.ConditionedCase`) sets the others aside."""
        return None

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
    costs |i - j| of the class order 0..K-1 (ordinal classification, Sebastiani 2015, eq. 7); a class-subset
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


def num(x, spec: str = ".6g", *, snap: bool = True) -> str:
    """A number as every verdict prints it (format ``spec``), ``undefined`` for None or NaN; never
    ``-0`` (a negated zero, e.g. confusion entropy's -sum 0 log 0). With ``snap`` a value within the
    audit's tie tolerance (:data:`TOL`) of 0 prints as ``0`` (not float noise such as 1.1e-16);
    without, only a zero that rounds to ``-0`` does (for a difference whose size is the point)."""
    if x is None:
        return "undefined"
    x = float(x)
    if math.isnan(x):
        return "undefined"
    if snap and abs(x) <= TOL:
        return "0"
    text = format(x, spec)
    return "0" if text.lstrip("-") and float(text) == 0 else text


# ---------------------------------------------------------------------- relations over steps


def _relation(case: Case, kinds, ok: Callable, *, src_ok: Callable | None = None,
              pair_ok: Callable | None = None, what: str) -> Verdict:
    """Check ``ok`` over every step of the given kinds: exhaustively up to ``max_n``, then on random matrices."""
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
                              lambda src=src, dst=dst, flagged=flagged: flagged[0](space.mats[src], space.mats[dst]))
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
            also = (f"; also where every class occurs in gold and predictions: C={fmt_matrix(Fs)} ({num(fs)}) -> "
                    f"C'={fmt_matrix(Fd)} ({num(fd)}): {ft}")
        return Verdict(VIOLATED, f"C={fmt_matrix(Cs)} ({num(vs)}) -> C'={fmt_matrix(Cd)} ({num(vd)}): {st}",
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
            return Verdict(VIOLATED, f"C={fmt_matrix(Cs[j])} ({num(vs[j])}) -> C'={fmt_matrix(Cd[j])} ({num(vd[j])}): "
                                     f"{step[j]}",
                           f"{what}; none among {scope}, found by random search beyond n = {case.max_n}")
    if checked + rchecked == 0:
        return Verdict(NA, "", f"no step where the measure is defined on both sides ({what})")
    return Verdict(SATISFIED, "", f"{what}: holds on all {scope} and {rchecked} random steps up to n = {3 * case.max_n}")


def by_spec(case: Case, pid: str, ok: Callable, *, what: str) -> Verdict:
    """:func:`_relation` over the steps :data:`.batches.RELATIONS` declares for property ``pid``."""
    kinds, src_ok, pair_ok = RELATIONS[pid]
    return _relation(case, kinds, ok, src_ok=src_ok, pair_ok=pair_ok, what=what)


def gt(vs, vd, *_):
    return vd > vs + TOL * np.maximum(1.0, np.abs(vs))


def eq(vs, vd, *_):
    return close(vs, vd)


# ---------------------------------------------------------------------- Sebastiani (2015)


def check_MON(case: Case) -> Verdict:
    """Axiom 1: correcting one wrong prediction strictly increases the measure."""
    return by_spec(case, "MON", gt, what="a wrong prediction made correct must strictly increase the score")


def check_SDE(case: Case) -> Verdict:
    """Axiom 3: defined for every test set and every classifier."""
    und = ~case.defined
    total = len(und)
    if case.domain is not None:       # a restricted case: only the matrices it is about
        und &= case.domain
        total = int(case.domain.sum())
    if und.any():
        i = int(np.nonzero(und)[0][0])
        return Verdict(VIOLATED, f"C={fmt_matrix(case.space.mats[i])} is undefined",
                       f"undefined on {int(und.sum())} of {total} matrices with n <= {case.max_n} "
                       f"(policy {case.policy})")
    if total == 0:
        return Verdict(NA, "", "no matrix to check")
    return Verdict(SATISFIED, "", f"defined on all {total} matrices with n <= {case.max_n} (policy {case.policy})")


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
                                 f"({num(case.values[ok])}) but C'={fmt_matrix(case.space.mats[no])} (undefined)",
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
        return Verdict(VIOLATED, f"gold sizes {tuple(int(x) for x in uniq[k])}: values range over [{num(lo[k])}, "
                                 f"{num(hi[k])}], not [{num(alpha)}, {num(beta)}]",
                       f"range differs on {int(off.sum())} of {int(has.sum())} test sets with a defined value "
                       f"(n <= {case.max_n})")
    return Verdict(SATISFIED, "", f"range [{num(alpha)}, {num(beta)}] on every one of {int(has.sum())} test sets "
                                  f"(n <= {case.max_n}; {int((~has).sum())} test sets where it is never defined)")


def expectations(case: Case, prob: str, group: str, rows: np.ndarray, rows_key: str):
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


def constant(case, uniq, e, skipped, *, label: Callable, what: str, expected=None, full=None) -> Verdict:
    """All defined entries of ``e`` equal? ``full`` marks the groups in which every class occurs
    (used to say whether a violation needs an absent class)."""
    has = ~np.isnan(e)
    if full is not None:
        v = constant(case, uniq[full], e[full], skipped[full], label=label, what=what, expected=expected)
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
        return Verdict(VIOLATED, f"{label(uniq[ref])}: {num(e[ref])}; {label(uniq[k])}: {num(e[k])}",
                       f"{what} differs between {len(off) + 1}+ of {int(has.sum())} groups (n <= {case.max_n}){note}")
    extra = ""
    if expected is not None and not close(e[ref], expected):
        extra = f"; NB the registry's chance value is {num(expected)}"
    return Verdict(SATISFIED, "", f"{what} = {num(e[ref])} on all {int(has.sum())} groups (n <= {case.max_n}){note}{extra}")


def chance(case: Case):
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
    uniq, e, skipped = expectations(case, "random_classifier_prob", "a", np.arange(len(space)), "all")
    return constant(case, uniq, e, skipped, label=lambda a: f"E on gold sizes {tuple(int(x) for x in a)}",
                     what="expected value of the uniformly random classifier", expected=chance(case))


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
            return Verdict(VIOLATED, f"{name}: C={fmt_matrix(space.mats[r[0]])} ({num(case.values[r[0]])}) vs "
                                     f"C'={fmt_matrix(space.mats[k])} ({num(case.values[k])})",
                           f"the score of a trivial classifier depends on the test set (n <= {case.max_n})")
    vals = ", ".join(f"k_{c}={num(case.values[rows[(j == c) & d][0]])}" for c in range(case.K) if ((j == c) & d).any())
    und = int((~d).sum())
    return Verdict(SATISFIED, "", f"constant on all test sets with every class present: {vals}"
                                  + (f" ({und} trivial cases undefined)" if und else ""))


def check_SYM(case: Case) -> Verdict:
    """Axiom 8: invariant under swapping the class and its complement (both axes reversed)."""
    return by_spec(case, "SYM", eq, what="the value must not change when the classes are swapped")


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
        problems.append((pos, f"no finite limit at C={fmt_matrix(B[pos])} ({num(f0[pos])}): the value grows without "
                              f"bound when mass of gold class {i} moves from predicted {j} to {k}"))
    for pos in np.nonzero(jump.any(axis=0))[0][:1]:
        di = int(np.nonzero(jump[:, pos])[0][0])
        i, j, k = dirs[di]
        problems.append((pos, f"jump at C={fmt_matrix(B[pos])}: value {num(f0[pos])}, limit {num(L[di, pos])} "
                              f"when mass of gold class {i} moves from predicted {j} to {k}"))
    for pos in np.nonzero(nolim)[0][:1]:
        ds = [di for di in range(len(dirs)) if not np.isnan(L[di, pos])]
        hi = max(ds, key=lambda di: L[di, pos])
        lo = min(ds, key=lambda di: L[di, pos])
        problems.append((pos, f"C={fmt_matrix(B[pos])} is undefined and the limits disagree: {num(L[hi, pos])} "
                              f"moving gold {dirs[hi][0]} from {dirs[hi][1]} to {dirs[hi][2]}, {num(L[lo, pos])} moving "
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
        problems.append((pos, f"unbounded derivative at C={fmt_matrix(B[pos])} (value {num(base[pos])}) moving "
                              f"gold {d[0]} from predicted {d[1]} to {d[2]}: difference quotients "
                              f"{num(Q0[di, pos], '.4g')} at h=1e-4, {num(Q1[di, pos], '.4g')} at h=1e-6"))
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
        problems.append((pos, f"kink at C={fmt_matrix(B[pos])} (value {num(base[pos])}): directional "
                              f"derivatives {num(D1[e], '.4g')} (gold {d1[0]}: {d1[1]}->{d1[2]}) and "
                              f"{num(D2[e], '.4g')} (gold {d2[0]}: {d2[1]}->{d2[2]}) but {num(q12[e], '.4g')} for "
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
