"""The properties of Gösgens et al. (2021): Max, Min, Sym, CSym, Dist, Mon, SMon, CB and ACB,
each a check over a :class:`~.properties.Case`.

The conventions shared by every check (undefined values, direction, ties, the smallest
counterexample) are in :mod:`.properties`; the audit finds a property's check by its name,
``check_<id>``, in that module and in this one and :mod:`.properties_opitz`.
"""
from __future__ import annotations

import numpy as np

from evalreport.analyses.audit import batches as _b
from evalreport.analyses.audit.batches import EXTREME_SALT, is_diag as _is_diag, zero_diag as _zero_diag
from evalreport.analyses.audit.properties import (
    NA,
    SATISFIED,
    TOL,
    VIOLATED,
    Case,
    Verdict,
    by_spec,
    chance,
    close,
    constant,
    eq,
    expectations,
    gt,
    num,
)
from evalreport.analyses.audit.space import Space, fmt_matrix, labelings


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
        return Verdict(VIOLATED, f"{name} C={fmt_matrix(space.mats[ref])} ({num(case.values[ref])}) and "
                                 f"C'={fmt_matrix(space.mats[k])} ({num(case.values[k])})",
                       f"the {name} matrices do not share one value")
    others = np.nonzero(~special & d)[0]
    reach = others[(sgn * (S[others] - c)) >= -TOL * max(1.0, abs(c))]
    if len(reach):
        k = reach[0]
        return Verdict(VIOLATED, f"C={fmt_matrix(space.mats[k])} is not {name} but scores {num(case.values[k])}, "
                                 f"{'>=' if case.sign * sgn > 0 else '<='} the {name} value {num(case.values[ref])}",
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
        return Verdict(VIOLATED, f"C={fmt_matrix(R[k])} scores {num(v[k])} vs the {name} value {num(case.values[ref])}",
                       f"found by random search beyond n = {case.max_n}")
    case.cache[which] = c
    return Verdict(SATISFIED, "", f"c_{which} = {num(case.values[ref])}, reached exactly by the {name} matrices "
                                  f"({int(d.sum())} defined matrices with n <= {case.max_n} and {int(ok.sum())} random)")


def check_Max(case: Case) -> Verdict:
    """Definition 1: M <= c_max with equality iff C is diagonal."""
    return _extreme(case, "max")


def check_Min(case: Case) -> Verdict:
    """Definition 2: M >= c_min with equality iff the diagonal of C is zero."""
    return _extreme(case, "min")


def check_Sym(case: Case) -> Verdict:
    """Definition 3: M(C) = M(C^T)."""
    return by_spec(case, "Sym", eq, what="the value must not change when gold and predicted labels swap")


def check_CSym(case: Case) -> Verdict:
    """Definition 4: invariant under every permutation of the classes."""
    return by_spec(case, "CSym", eq, what="the value must not change when the classes are renamed")


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
                s = lambda x, L=L: "".join(str(int(t)) for t in L[x])  # noqa: E731
                return Verdict(VIOLATED, f"labelings A={s(a)}, B={s(b)}, C={s(c)}: d(A,C)={num(D[a, c])} > "
                                         f"d(A,B)+d(B,C)={num(D[a, b])}+{num(D[b, c])}",
                               f"triangle inequality fails for d = c_max - M (c_max = {num(cmax)})")
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
    return by_spec(case, "Mon", gt,
                    what="resolving a disagreement must strictly increase the score (no unary labeling)")


def check_SMon(case: Case) -> Verdict:
    """Definition 7: one more diagonal item or one off-diagonal item fewer strictly increases M
    (C with no row or column sum equal to n; C and C' not both diagonal or both zero-diagonal)."""
    # (the docstring is the property's description in the report; the filters: batches.only_diag_add)
    return by_spec(case, "SMon", gt, what="one more correct item or one error fewer must strictly increase the score")


def check_CB(case: Case) -> Verdict:
    """Definition 8 (exact): for every gold labeling A and non-unary predicted sizes b,
    E over B ~ U(b) of M(A, B) = c_base(K), the same for every n. The probability of each
    confusion matrix given (a, b) is prod a_i! prod b_j! / (n! prod c_ij!)."""
    space = case.space
    rows = space.memo("non-unary b", lambda: np.nonzero(~(space.b == space.n[:, None]).any(axis=1))[0])
    uniq, e, skipped = expectations(case, "fixed_sizes_prob", "ab", rows, "non-unary b")
    K = case.K
    return constant(case, uniq, e, skipped,
                     label=lambda k: f"E over B with sizes b={tuple(int(x) for x in k[K:])} for gold sizes "
                                     f"a={tuple(int(x) for x in k[:K])}",
                     what="expected value over predictions with fixed class sizes", expected=chance(case),
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
            note = (f"; also when every class occurs: {lab(fr)}: {num(v[fr])}, {lab(int(np.nonzero(fb)[0][0]))}: "
                    f"{num(v[fb][0])}" if fb.any() else
                    f"; holds when every class occurs in a and b: c_base = {num(v[fr])}")
        return Verdict(VIOLATED, f"{lab(ref)}: {num(v[ref])}; {lab(k)}: C={fmt_matrix(mats[k])} -> {num(v[k])}",
                       "the value at the expected confusion matrix depends on the class sizes" + note)
    extra = ""
    ch = chance(case)
    if ch is not None and not close(v[ref], ch):
        extra = f"; NB the registry's chance value is {num(ch)}"
    return Verdict(SATISFIED, "", f"c_base = {num(v[ref])} at all {int(d.sum())} expected matrices (n <= {case.max_n})"
                                  + extra)
