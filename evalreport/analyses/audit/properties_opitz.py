"""The properties of Opitz (2022): PI to PV, each a check over a :class:`~.properties.Case`.

The conventions shared by every check (undefined values, direction, ties, the smallest
counterexample) are in :mod:`.properties`; the audit finds a property's check by its name,
``check_<id>``, in that module and in this one and :mod:`.properties_goesgens`.
"""
from __future__ import annotations

import numpy as np

from evalreport.analyses.audit import batches as _b
from evalreport.analyses.audit.properties import NA, SATISFIED, TOL, VIOLATED, Case, Verdict, by_spec, close, num
from evalreport.analyses.audit.properties_goesgens import check_CSym
from evalreport.analyses.audit.space import fmt_matrix


def check_PI(case: Case) -> Verdict:
    """Property I, discrete eq. 3: one more correct item never lowers the score, one more error
    never raises it (non-strict)."""

    return by_spec(case, "PI", _pi_ok, what="adding a correct item must not lower and adding an error must not raise "
                                             "the score")


def _diag_step(Cs, Cd):
    return np.trace(Cd - Cs, axis1=1, axis2=2) == 1


def _pi_rule(vs, vd, diag):
    tol = TOL * np.maximum(1.0, np.abs(vs))
    return np.where(diag, vd >= vs - tol, vd <= vs + tol)


def _pi_ok(vs, vd, Cs, Cd):
    return _pi_rule(vs, vd, _diag_step(Cs, Cd))


# function attributes (mypy does not model them on a def), read by the relation checks
_pi_ok.needs_mats = True  # type: ignore[attr-defined]
_pi_ok.step_flag = (_diag_step, _pi_rule)  # type: ignore[attr-defined]  # on the space: each step's flag once


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
            shown = ", ".join(f"+1 at ({i},{j}): {num(case.sign * vals[r, i, j])}" for i, j in cells)
            return Verdict(SATISFIED, "", f"class sensitive: at C={fmt_matrix(C)} ({num(case.values[rows[r]])}) one more "
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
                             f"and {sorted(set(y))}) interact: mixed difference {num(delta, '.4g', snap=False)} != 0",
                   f"not of the form mean_i g(row_i, col_i)^p for p in {_PIII_P}: cells of disjoint classes interact")


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
            return Verdict(VIOLATED, f"C={fmt_matrix(C[r])} ({num(v0[r])}) with gold classes scaled by "
                                     f"{tuple(lam)}: C'={fmt_matrix(C[r] * np.asarray(lam)[:, None])} ({num(v1[r])})",
                           "the value depends on the class prevalences")
    if checked == 0:
        return Verdict(NA, "", "never defined on both sides")
    return Verdict(SATISFIED, "", f"unchanged under {len(lams)} row scalings on {len(rows)} matrices (n <= "
                                  f"{min(case.max_n, 6)})")


def _pv_curve(case: Case, K: int):
    """Per prevalence vector a: max and min of the oriented score over random classifiers z (matrices a z^T / n)."""
    A, mats, ai = _b.pv_batch(K)
    shared = case.pv_values if case.pv_values is not None else {}
    if K not in shared:
        shared[K] = case.values_of(("PV",)) if K == case.K else case.evaluate(mats)
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
    M(a z^T), is a function c(K) of the number of classes only, whatever the prevalences a.

    Opitz's random classifiers predict class j with probability z_j, z in [0, 1]^n (Appendix
    B.5): z_j = 0 is allowed, so the classifiers that never predict some classes, the constant
    ones among them, are random classifiers too. Their precision of a never-predicted class is
    0/0; under his convention (P_i = 0, after eq. 18; policy ``zero``) it scores 0, under the nan
    policy the class is skipped and a constant classifier's macro precision is the prevalence of
    its class (docs/audit.md#pv-constant)."""
    A, hi, lo = _pv(case)
    has = np.isfinite(hi)
    if not has.any():
        return Verdict(NA, "", "undefined for every random classifier")
    k0 = int(np.nonzero(has)[0][0])
    off = has & ~close(hi, hi[k0])
    if off.any():
        k = int(np.nonzero(off)[0][0])
        return Verdict(VIOLATED, f"prevalences {_prev(A[k0])}: best random score {num(case.sign * hi[k0])}; "
                                 f"prevalences {_prev(A[k])}: {num(case.sign * hi[k])}",
                       "the best score of a random classifier depends on the prevalences")
    return Verdict(SATISFIED, "", f"c({case.K}) = {num(case.sign * hi[k0])} for all {int(has.sum())} prevalence vectors "
                                  f"(random classifiers z on a grid of the simplex, constant classifiers included, plus z = a)")


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
                                 f"{num(min(case.sign * hi[k], case.sign * lo[k]))} and "
                                 f"{num(max(case.sign * hi[k], case.sign * lo[k]))}",
                       "random classifiers with different prediction rates score differently")
    pv = check_PV(case)
    if pv.verdict != SATISFIED:
        return Verdict(VIOLATED, pv.counterexample, "constant per data set but not across prevalences")
    return Verdict(SATISFIED, "", f"every random classifier scores {num(case.sign * hi[has][0])}")


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
        return Verdict(VIOLATED, ", ".join(f"c({k}) = {num(v)}" for k, v in consts.items()),
                       "the chance score depends on the number of classes")
    return Verdict(SATISFIED, "", f"c(K) = {num(vals[0])} for K = 2, 3, 4")
