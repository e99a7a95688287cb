"""Every matrix the audit evaluates a measure on, built once per space and stacked.

The checks of :mod:`.properties` read a measure's values on the space itself and on a few other
batches that do not depend on any measure: the real-valued perturbations of CON, the scaled
rows of PIV, the random classifiers of PV, the expected matrices of ACB, and the seeded random
matrices (and their steps) searched beyond ``max_n``. Each batch has a name (a tuple) and is
built by one function here, so the checks and the stacked evaluation read the same matrices.

:func:`stacked` concatenates the batches a list of properties needs into ONE float tensor per
space (memoised on the space), and :func:`evaluate_bank` computes one measure on it in a single
call and slices the values back by name. Inside :func:`evalreport.measures._shared.shared_sums`
the row, column and one-vs-rest sums of that tensor are computed once for every measure.
A measure is computed on each matrix independently of the rest of its batch, so the values are
the same numbers as batch-by-batch evaluation; a measure that fails on the stacked tensor is
evaluated batch by batch instead (its checks then fail or pass exactly as they do batch by batch).
"""
from __future__ import annotations

import functools
import zlib

import numpy as np

from evalreport.analyses.audit.space import Space, coded_steps, compositions, random_matrices

# ---------------------------------------------------------------------- filters of the step relations


def not_unary(C):
    n = C.sum(axis=(1, 2))[:, None]
    return ~((C.sum(axis=2) == n).any(axis=1) | (C.sum(axis=1) == n).any(axis=1))


def is_diag(C):
    return np.trace(C, axis1=1, axis2=2) == C.sum(axis=(1, 2))


def zero_diag(C):
    return np.trace(C, axis1=1, axis2=2) == 0


def only_diag_add(Cs, Cd):
    """The steps of Gösgens et al. (2021), Definition 7: C and C' not both diagonal or both zero-diagonal, and the
    step adds a diagonal item or removes an item."""
    added = Cd - Cs
    pair_ok = ~((is_diag(Cs) & is_diag(Cd)) | (zero_diag(Cs) & zero_diag(Cd)))
    return pair_ok & ((added.sum(axis=(1, 2)) < 0) | (np.trace(added, axis1=1, axis2=2) == 1))


def _not_unary_on(space: Space, src):
    return ~space.unary[src]


def _only_diag_add_on(space: Space, src, dst):
    diag, zero, n = space.is_diagonal, space.zero_diagonal, space.n
    trace = space.diag.sum(axis=1)
    pair_ok = ~((diag[src] & diag[dst]) | (zero[src] & zero[dst]))
    return pair_ok & ((n[dst] - n[src] < 0) | (trace[dst] - trace[src] == 1))


# the same filters read from the space's per-matrix arrays, for steps between matrices of the space
# (function attributes, which mypy does not model on a def)
not_unary.on_space = _not_unary_on  # type: ignore[attr-defined]
only_diag_add.on_space = _only_diag_add_on  # type: ignore[attr-defined]

#: property id -> (kinds of steps, src filter, pair filter) of the step relations
RELATIONS = {
    "MON": (("correct",), None, None),
    "SYM": (("reverse",), None, None),
    "PI": (("add",), None, None),
    "Sym": (("transpose",), None, None),
    "CSym": (("permute",), None, None),
    "Mon": (("correct", "relabel"), not_unary, None),
    "SMon": (("add", "remove_error"), not_unary, only_diag_add),
}

#: the salts of the random searches of Max and Min (see :func:`random_batch`)
EXTREME_SALT = {"max": 11, "min": 13}


def _name(f):
    return getattr(f, "__name__", None)


def relation_salt(kinds) -> int:
    return zlib.crc32(",".join(kinds).encode()) % 1000


# ---------------------------------------------------------------------- batches


def random_batch(space: Space, seed: int, salt: int, count: int) -> np.ndarray:
    """Seeded random matrices with max_n < n <= 3 max_n (the same for every measure)."""
    return space.memo(("random", seed, salt, count),
                      lambda: random_matrices(np.random.default_rng([seed, salt, space.K]), space.K, count,
                                              space.max_n + 1, 3 * space.max_n))


def random_steps(space: Space, seed: int, count: int, kinds, kind: str, src_ok=None, pair_ok=None):
    """``(Cs, Cd, step)``: the steps of one kind from the random matrices of a relation."""
    salt = relation_salt(kinds)
    R = random_batch(space, seed, salt, count)

    def make():
        src, Cd, step = coded_steps(kind, R)
        Cs = R[src]
        keep = np.ones(len(src), dtype=bool)
        if src_ok is not None:
            keep &= src_ok(Cs)
        if pair_ok is not None:
            keep &= pair_ok(Cs, Cd)
        return Cs[keep], Cd[keep], step[keep]

    return space.memo(("random steps", seed, salt, kind, _name(src_ok), _name(pair_ok), len(R)), make)


#: CON: the step sizes h of the directional limits and difference quotients
CON_H = (1e-4, 1e-6, 1e-10)


def con_cap(K: int, max_n: int) -> int:
    return min(max_n, 8 if K == 2 else 4)


def con_dirs(K: int):
    return [(i, j, k) for i in range(K) for j in range(K) for k in range(K) if j != k]


def con_unit(K: int, d) -> np.ndarray:
    """E = e_ik - e_ij: mass of gold class i moved from predicted j to k."""
    i, j, k = d
    e = np.zeros((K, K))
    e[i, k] += 1
    e[i, j] -= 1
    return e


def con_rows(space: Space) -> np.ndarray:
    return space.memo("CON rows", lambda: np.nonzero(space.n <= con_cap(space.K, space.max_n))[0])


def con_feasible(space: Space) -> np.ndarray:
    """(D, MB): direction d moves mass out of a non-empty cell of B (elsewhere CON reads no value)."""
    def make():
        B = space.mats[con_rows(space)]
        return np.stack([B[:, i, j] > 0 for i, j, _ in con_dirs(space.K)])
    return space.memo("CON feasible", make)


def con_batch(space: Space) -> np.ndarray:
    """B + h E for every direction E, step h and B where E is feasible (direction-major, then h,
    then B; see :func:`con_feasible`)."""
    def make():
        B = space.mats[con_rows(space)].astype(float)
        feas = con_feasible(space)
        return np.concatenate([B[feas[di]] + h * con_unit(space.K, d) for di, d in enumerate(con_dirs(space.K))
                               for h in CON_H])
    return space.memo("CON batch", make)


def con_scatter(space: Space) -> np.ndarray:
    """Where each matrix of :func:`con_batch` goes in a (D, H, MB) array, as flat indices."""
    def make():
        feas = con_feasible(space)
        D, MB = feas.shape
        grid = np.arange(D * len(CON_H) * MB).reshape(D, len(CON_H), MB)
        return np.concatenate([grid[di, hi, feas[di]] for di in range(D) for hi in range(len(CON_H))])
    return space.memo("CON scatter", make)


def con_kinks(space: Space):
    """For every pair of directions (x < y) that moves mass: the rows of B where the combined
    move keeps every cell >= 0 and ``B + 1e-6 (E_x + E_y)`` there; ``(pairs, mats)`` with
    ``pairs[(x, y)] = (feasible (MB,) bool, offset into mats)``."""
    def make():
        K = space.K
        B = space.mats[con_rows(space)].astype(float)
        dirs = con_dirs(K)
        pairs, mats, at = {}, [], 0
        for x in range(len(dirs)):
            for y in range(x + 1, len(dirs)):
                E12 = con_unit(K, dirs[x]) + con_unit(K, dirs[y])
                if not np.any(E12):
                    continue
                neg = E12 < 0
                feas = (B[:, neg] > 0).all(axis=1) if neg.any() else np.ones(len(B), dtype=bool)
                pairs[(x, y)] = (feas, at)
                mats.append(B[feas] + CON_H[1] * E12)
                at += int(feas.sum())
        return pairs, (np.concatenate(mats) if mats else np.zeros((0, K, K)))
    return space.memo("CON kinks", make)


def con_kink_entries(space: Space):
    """Every (pair of directions, row of B) the kink test reads, pair-major (the pairs x < y of
    :func:`con_dirs` in order), rows ascending: a pair that moves mass where its combined move
    is feasible, a pair whose moves cancel on every row. Returns ``(pair, x, y, row, value)``:
    the pair's number, its two directions, the row, and the position of the combined move in
    :func:`con_kinks`' batch (-1 for a cancelling pair: no move, the derivative is 0)."""
    def make():
        moves, _ = con_kinks(space)
        D, MB = len(con_dirs(space.K)), len(con_rows(space))
        X, Y = np.triu_indices(D, 1)
        pair, row, value = [], [], []
        for p, (x, y) in enumerate(zip(X.tolist(), Y.tolist())):
            if (x, y) in moves:
                feas, at = moves[(x, y)]
                r = np.nonzero(feas)[0]
                value.append(np.arange(at, at + len(r)))
            else:
                r = np.arange(MB)
                value.append(np.full(MB, -1))
            pair.append(np.full(len(r), p))
            row.append(r)
        pair = np.concatenate(pair) if pair else np.zeros(0, dtype=np.int64)
        row = np.concatenate(row) if row else np.zeros(0, dtype=np.int64)
        value = np.concatenate(value) if value else np.zeros(0, dtype=np.int64)
        return pair, X[pair], Y[pair], row, value
    return space.memo("CON kink entries", make)


#: PIV: the row scalings (gold classes rescaled) per K
PIV_LAMBDAS = {2: [(1.0, 2.0), (3.0, 1.0), (1.0, 0.25)], 3: [(1.0, 2.0, 3.0), (3.0, 1.0, 1.0), (1.0, 1.0, 0.2)]}


def piv_lambdas(K: int):
    return PIV_LAMBDAS.get(K) or [tuple(float(1 + (k % 3)) for k in range(K))]


def piv_rows(space: Space) -> np.ndarray:
    return space.memo("PIV rows", lambda: np.nonzero(space.n <= min(space.max_n, 6))[0])


def piv_batch(space: Space) -> list:
    """The matrices with n <= 6, rows scaled by each of :func:`piv_lambdas` (one batch each)."""
    def make():
        C = space.mats[piv_rows(space)].astype(float)
        return [C * np.asarray(lam)[None, :, None] for lam in piv_lambdas(space.K)]
    return space.memo("PIV batch", make)


# PV: the expected confusion matrix of a random classifier that predicts class j with
# probability z_j independently of the item is c_ij = a_i z_j (Opitz, Appendix B.5).
_PV_GRID = {2: 12, 3: 9, 4: 8}


@functools.lru_cache(maxsize=8)
def pv_batch(K: int):
    """``(A, mats, ai)``: prevalence vectors a (all classes present, a grid of N), and for each,
    the matrices a z^T / N for z on the grid of the whole simplex (z_j = 0 allowed: Opitz's
    z in [0, 1]^n, the constant classifiers included) plus z = a; ``ai`` the a of each matrix."""
    N = _PV_GRID.get(K, 8)
    A = compositions(N, K, positive=True).astype(float)
    Z = compositions(N, K).astype(float)
    mats, ai = [], []
    for k, a in enumerate(A):
        zs = np.concatenate([Z, a[None]])
        mats.append(a[None, :, None] * zs[:, None, :] / N)
        ai.append(np.full(len(zs), k))
    return A, np.concatenate(mats), np.concatenate(ai)


@functools.lru_cache(maxsize=8)
def acb_batch(K: int, max_n: int):
    """``(mats, labels)``: c_ij = a_i b_j / n for all sizes a and non-unary b, 2 <= n <= max_n;
    ``labels`` the (a, b) of each matrix."""
    mats, labels = [], []
    for n in range(2, max_n + 1):
        A = compositions(n, K)
        B = compositions(n, K)
        B = B[(B < n).all(axis=1)]
        m = A[:, None, :, None] * B[None, :, None, :] / n
        mats.append(m.reshape(-1, K, K))
        labels.append(np.concatenate([np.repeat(A, len(B), axis=0), np.tile(B, (len(A), 1))], axis=1))
    return np.concatenate(mats), np.concatenate(labels)


# ---------------------------------------------------------------------- what each property reads


def _relation_needs(pid: str):
    kinds, src_ok, pair_ok = RELATIONS[pid]
    return [("steps", kinds, kind, _name(src_ok), _name(pair_ok), end) for kind in kinds for end in ("src", "dst")]


def needs(pid: str) -> list:
    """The names of the batches (beyond the space) that property ``pid`` may read. (PIV's second
    and third scalings are left out: most measures fail on the first, and the check evaluates the
    others when it reaches them.)"""
    if pid in RELATIONS:
        return _relation_needs(pid)
    return {"CON": [("CON",), ("CON kinks",)], "PIV": [("PIV", 0)], "PV": [("PV",)], "PV_strict": [("PV",)],
            "PV_complete": [("PV",)], "ACB": [("ACB",)], "Max": [("random", EXTREME_SALT["max"])],
            "Min": [("random", EXTREME_SALT["min"])], "PIII": _relation_needs("CSym"),
            "Dist": [("random", EXTREME_SALT["max"])] + _relation_needs("Sym")}.get(pid, [])


def batch(space: Space, name, seed: int, count: int) -> np.ndarray:
    """The matrices of one named batch (see :func:`needs`)."""
    head = name[0]
    if head == "space":
        return space.mats
    if head == "CON":
        return con_batch(space)
    if head == "CON kinks":
        return con_kinks(space)[1]
    if head == "PIV":
        return piv_batch(space)[name[1]] if len(name) > 1 else np.concatenate(piv_batch(space))
    if head == "PV":
        return pv_batch(space.K)[1]
    if head == "ACB":
        return acb_batch(space.K, space.max_n)[0]
    if head == "random":
        return random_batch(space, seed, name[1], count)
    if head == "steps":
        _, kinds, kind, src_name, pair_name, end = name
        pid = next(p for p, (k, s, q) in RELATIONS.items() if k == kinds and _name(s) == src_name
                   and _name(q) == pair_name)
        _, src_ok, pair_ok = RELATIONS[pid]
        Cs, Cd, _ = random_steps(space, seed, count, kinds, kind, src_ok, pair_ok)
        return Cs if end == "src" else Cd
    raise ValueError(f"unknown batch {name!r}")


def stacked(space: Space, pids, seed: int, count: int):
    """``(U, inverse, slices)``: every batch the properties ``pids`` need, the space first,
    stacked; ``U`` the distinct matrices of the stack (float, bit for bit: a random step often
    leads back to a matrix of another batch), ``inverse`` the row of ``U`` of every stacked
    matrix, and the slice of each name in the stack (memoised on the space)."""
    names = [("space",)] + list(dict.fromkeys(n for p in pids for n in needs(p)))

    def make():
        parts, slices, at = [], {}, 0
        for name in names:
            m = batch(space, name, seed, count)
            parts.append(np.asarray(m, dtype=float).reshape(-1, space.K, space.K))
            slices[name] = slice(at, at + len(m))
            at += len(m)
        T = np.concatenate(parts)
        first, inverse = _distinct(T)
        return T[first], inverse, slices

    return space.memo(("stacked", tuple(names), seed, count), make)


def _distinct(T: np.ndarray):
    """``(first, inverse)`` of the distinct matrices of ``T``, bit for bit (``T[first][inverse]`` is ``T``)."""
    bits = np.ascontiguousarray(T).reshape(len(T), -1).view(np.uint64)
    # sorted by a hash of the bits (equal matrices end up next to each other; a collision only
    # keeps two equal matrices apart, so some value is computed twice)
    h = np.zeros(len(bits), dtype=np.uint64)
    for column in bits.T:                       # splitmix64's finaliser, column after column
        h ^= column
        h ^= h >> np.uint64(30)
        h *= np.uint64(0xBF58476D1CE4E5B9)
        h ^= h >> np.uint64(27)
        h *= np.uint64(0x94D049BB133111EB)
        h ^= h >> np.uint64(31)
    order = np.argsort(h, kind="stable")
    s = bits[order]
    new = np.ones(len(s), dtype=bool)
    new[1:] = (s[1:] != s[:-1]).any(axis=1)
    group = np.cumsum(new) - 1
    inverse = np.empty(len(T), dtype=np.int64)
    inverse[order] = group
    return order[new], inverse


def evaluate_bank(evaluate, U: np.ndarray, inverse: np.ndarray, slices: dict) -> dict | None:
    """One measure's values on the stack of :func:`stacked`, by batch name; None if it fails
    there. ``evaluate``: mats -> values (the measure under one policy)."""
    try:
        v = evaluate(U)
    except Exception:  # evaluated batch by batch instead, where the failing check says why
        return None
    if v.shape != (len(U),):
        return None
    v = v[inverse]
    return {name: v[s] for name, s in slices.items()}
