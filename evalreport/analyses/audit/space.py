"""The search space of the audit: every K x K confusion matrix with 1 <= n <= max_n items.

All matrices are generated as ONE integer tensor (stars and bars, one ``itertools.combinations``
call per n), sorted by n and then lexicographically, so that the first violation found in a
sorted array is the smallest counterexample. Every matrix gets an integer key (its cells read
as digits in base ``max_n + 1``), so a transformed batch (transposes, moved items, added items)
is mapped back to row indices with one ``searchsorted``: a measure is computed once per matrix
and every property reads those values by index.

Orientation as everywhere in evalreport: rows = gold, columns = predicted (the ``c_ij`` of Gösgens et al. 2021;
the transpose of Opitz's ``m``). For K = 2 the positive class is class 1: TP = C[1, 1],
FN = C[1, 0], FP = C[0, 1], TN = C[0, 0] (their ``c_11, c_10, c_01, c_00``).
"""
from __future__ import annotations

import itertools
import math
from functools import cached_property

import numpy as np


def compositions(n: int, k: int, *, positive: bool = False) -> np.ndarray:
    """All ways to write ``n`` as an ordered sum of ``k`` parts >= 0 (>= 1 with ``positive``),
    as an ``(M, k)`` int64 array in lexicographic order."""
    if positive:
        if n < k:
            return np.zeros((0, k), dtype=np.int64)
        return compositions(n - k, k) + 1
    if k == 1:
        return np.array([[n]], dtype=np.int64)
    bars = np.array(list(itertools.combinations(range(n + k - 1), k - 1)), dtype=np.int64).reshape(-1, k - 1)
    edges = np.concatenate([np.full((len(bars), 1), -1), bars, np.full((len(bars), 1), n + k - 1)], axis=1)
    parts = np.diff(edges, axis=1) - 1
    return parts[np.lexsort(parts.T[::-1])]


def fmt_matrix(C) -> str:
    """``[[3,1],[0,2]]``: a matrix in the compact form used in counterexamples."""
    C = np.asarray(C)
    return "[" + ",".join("[" + ",".join(_num(x) for x in row) + "]" for row in C) + "]"


def _num(x) -> str:
    x = float(x) + 0.0          # -0.0 + 0.0 is 0.0: never "-0"
    return str(int(x)) if x == int(x) else f"{x:.4g}"


class Space:
    """Every K x K confusion matrix with 1 <= n <= max_n, with lookups and index transitions."""

    def __init__(self, K: int, max_n: int):
        self.K, self.max_n = int(K), int(max_n)
        self.mats = np.concatenate([compositions(n, K * K) for n in range(1, self.max_n + 1)]).reshape(-1, K, K)
        self.base = self.max_n + 1
        self.keys = self.encode(self.mats)
        assert np.all(np.diff(self.keys) != 0)
        self._order = np.argsort(self.keys)
        self._sorted = self.keys[self._order]

    def __len__(self) -> int:
        return len(self.mats)

    # ------------------------------------------------------------------ basic quantities
    @cached_property
    def n(self) -> np.ndarray:
        return self.mats.sum(axis=(1, 2))

    @cached_property
    def a(self) -> np.ndarray:
        """Gold class sizes (row sums), (M, K)."""
        return self.mats.sum(axis=2)

    @cached_property
    def b(self) -> np.ndarray:
        """Predicted class sizes (column sums), (M, K)."""
        return self.mats.sum(axis=1)

    @cached_property
    def diag(self) -> np.ndarray:
        return np.diagonal(self.mats, axis1=1, axis2=2)

    @cached_property
    def is_diagonal(self) -> np.ndarray:
        return self.diag.sum(axis=1) == self.n

    @cached_property
    def zero_diagonal(self) -> np.ndarray:
        return self.diag.sum(axis=1) == 0

    @cached_property
    def full(self) -> np.ndarray:
        """Every class occurs in the gold and in the predicted labels."""
        # all(axis=1) of a 2-D array is an array; numpy's stubs also allow a scalar
        return (self.a > 0).all(axis=1) & (self.b > 0).all(axis=1)  # type: ignore[return-value]

    @cached_property
    def unary(self) -> np.ndarray:
        """Some row sum or column sum equals n (one labeling puts every item in one class)."""
        return (self.a == self.n[:, None]).any(axis=1) | (self.b == self.n[:, None]).any(axis=1)

    # ------------------------------------------------------------------ lookups
    def encode(self, mats) -> np.ndarray:
        flat = np.asarray(mats, dtype=np.int64).reshape(len(mats), -1)
        weights = self.base ** np.arange(flat.shape[1] - 1, -1, -1, dtype=np.int64)
        return flat @ weights

    def index(self, mats) -> np.ndarray:
        """Row index of every matrix in ``mats`` (-1 where it is not in the space)."""
        mats = np.asarray(mats, dtype=np.int64)
        if len(mats) == 0:
            return np.zeros(0, dtype=np.int64)
        ok = (mats >= 0).all(axis=(1, 2)) & (mats.max(axis=(1, 2)) < self.base)
        ok &= (mats.sum(axis=(1, 2)) >= 1) & (mats.sum(axis=(1, 2)) <= self.max_n)
        keys = self.encode(np.where(ok[:, None, None], mats, 0))
        pos = np.clip(np.searchsorted(self._sorted, keys), 0, len(self._sorted) - 1)
        found = ok & (self._sorted[pos] == keys)
        return np.where(found, self._order[pos], -1)

    # ------------------------------------------------------------------ transitions
    def transition(self, kind: str):
        """(src, dst, step) index arrays for one kind of change, cached; see :func:`steps`."""
        cache = self.__dict__.setdefault("_transitions", {})
        if kind not in cache:
            src, dst_mats, step = coded_steps(kind, self.mats)
            dst = self.index(dst_mats)
            keep = dst >= 0
            cache[kind] = (src[keep], dst[keep], step[keep])
        return cache[kind]

    def memo(self, key, fn):
        """A measure-independent quantity computed once per space (filters, groupings)."""
        cache = self.__dict__.setdefault("_memo", {})
        if key not in cache:
            cache[key] = fn()
        return cache[key]

    def groups(self, what: str) -> tuple[np.ndarray, np.ndarray]:
        """Group ids and unique keys of the matrices by gold sizes (``"a"``) or by gold and
        predicted sizes (``"ab"``)."""
        def make():
            keys = self.a if what == "a" else np.concatenate([self.a, self.b], axis=1)
            uniq, inv = np.unique(keys, axis=0, return_inverse=True)
            return inv.ravel(), uniq
        return self.memo(("groups", what), make)

    # ------------------------------------------------------------------ exact probabilities
    @cached_property
    def log_cells_factorial(self) -> np.ndarray:
        return _lgamma1(self.mats).sum(axis=(1, 2))

    @cached_property
    def random_classifier_prob(self) -> np.ndarray:
        """P(C | gold sizes a) when each item is given one of the K classes uniformly at random
        (Sebastiani 2015, Property 5.6 for K = 2: each item positive with probability 1/2)."""
        logp = _lgamma1(self.a).sum(axis=1) - self.log_cells_factorial - self.n * math.log(self.K)
        return np.exp(logp)

    @cached_property
    def fixed_sizes_prob(self) -> np.ndarray:
        """P(C | a, b) when the predicted labeling is uniform among those with class sizes b
        (Gösgens et al. 2021, Definition 8): prod a_i! prod b_j! / (n! prod c_ij!)."""
        logp = (_lgamma1(self.a).sum(axis=1) + _lgamma1(self.b).sum(axis=1) - _lgamma1(self.n)
                - self.log_cells_factorial)
        return np.exp(logp)


_SPACES: dict = {}

#: The most confusion matrices one enumeration holds (K = 3 to n = 8: 24,309; K = 4: 735,470; K = 2 up to
#: n = 80, K = 3 up to n = 15): beyond, memory runs out before the audit ends (K = 2 to n = 100,000 was
#: ended by the kernel).
MAX_MATRICES = 2_000_000


def space_size(K: int, max_n: int) -> int:
    """How many K x K confusion matrices have 1 to ``max_n`` items: C(max_n + K^2, K^2) - 1."""
    return math.comb(int(max_n) + K * K, K * K) - 1


def space_for(K: int, max_n: int) -> Space:
    """The :class:`Space` of (K, max_n), built once per process: its enumeration, index
    transitions, batches and memoised filters are the same for every audit (the few most recent
    spaces are kept). A space of more than :data:`MAX_MATRICES` matrices, or one whose keys would not
    fit in 64 bits, is an :class:`~evalreport.errors.InputError`."""
    size, wide = space_size(K, max_n), (int(max_n) + 1) ** (K * K) >= 2 ** 63
    if size > MAX_MATRICES or wide:
        from evalreport.errors import InputError

        why = (f"{size:,} confusion matrices to enumerate (at most {MAX_MATRICES:,})" if size > MAX_MATRICES else
               f"the {K * K} cells of a matrix cannot be keyed in 64 bits")
        raise InputError(f"{K} classes with --max-n {max_n}: {why}; choose fewer classes or a smaller --max-n "
                         "(the random search covers larger matrices)")
    key = (int(K), int(max_n))
    space = _SPACES.pop(key, None) or Space(*key)
    _SPACES[key] = space
    while len(_SPACES) > 4:
        del _SPACES[next(iter(_SPACES))]
    return space


def _lgamma1(x) -> np.ndarray:
    """log(x!) elementwise."""
    from scipy.special import gammaln

    return gammaln(np.asarray(x, dtype=float) + 1.0)


# ---------------------------------------------------------------------- steps between matrices


def _unit(K: int, i: int, j: int) -> np.ndarray:
    e = np.zeros((K, K), dtype=np.int64)
    e[i, j] = 1
    return e


class StepLabels:
    """The texts of a batch of steps, stored as codes into a short list of texts: indexing by an
    integer gives the text, by a mask or an index array a smaller :class:`StepLabels`."""

    __slots__ = ("codes", "texts")

    def __init__(self, codes: np.ndarray, texts: list):
        self.codes, self.texts = codes, texts

    def __len__(self) -> int:
        return len(self.codes)

    def __getitem__(self, key):
        if isinstance(key, (int, np.integer)):
            return self.texts[int(self.codes[key])]
        return StepLabels(self.codes[key], self.texts)

    def __array__(self, dtype=None, copy=None):
        return np.asarray(self.texts, dtype=object)[self.codes]


def coded_steps(kind: str, mats: np.ndarray):
    """:func:`steps` with the texts as :class:`StepLabels` (no per-step string array)."""
    src, dst, (codes, texts) = _steps(kind, mats)
    return src, dst, StepLabels(codes, texts)


def steps(kind: str, mats: np.ndarray):
    """Apply one kind of change to every matrix of a batch where it is possible.

    Returns ``(src, dst_mats, step)``: the source row of each result, the changed matrices and a
    text naming the change. Kinds:

    ``correct``   an item of gold i predicted j (i != j) is predicted i: c_ij -1, c_ii +1
                  (Sebastiani 2015, Axiom 1; Gösgens et al. 2021, Definition 6, first case)
    ``relabel``   the same item's gold label becomes j: c_ij -1, c_jj +1 (Definition 6, second case)
    ``add``       one more item in cell (i, j) (Opitz 2022, eq. 3; Gösgens et al. 2021, Definition 7)
    ``remove_error``  one item fewer in an off-diagonal cell (Definition 7)
    ``transpose`` C^T (Gösgens et al. 2021, Definition 3)
    ``reverse``   both axes reversed: class k becomes class K-1-k; for K = 2 this swaps the class
                  and its complement, TP <-> TN and FP <-> FN (Sebastiani 2015, Axiom 8)
    ``permute``   every non-identity permutation of the classes (Gösgens et al. 2021, Definition 4)
    """
    src, dst, (codes, texts) = _steps(kind, mats)
    return src, dst, np.asarray(texts, dtype=object)[codes] if texts else np.zeros(0, dtype=object)


def _steps(kind: str, mats: np.ndarray):
    mats = np.asarray(mats)
    M, K = mats.shape[0], mats.shape[-1]
    srcs: list[np.ndarray] = []
    outs: list[np.ndarray] = []
    labels: list[np.ndarray] = []
    texts: list[str] = []

    def emit(mask, new, text):
        idx = np.nonzero(mask)[0]
        srcs.append(idx)
        outs.append(new[idx] if new.shape[0] == M else new)
        labels.append(np.full(len(idx), len(texts), dtype=np.int64))
        texts.append(text)

    if kind in ("correct", "relabel"):
        for i in range(K):
            for j in range(K):
                if i == j:
                    continue
                t = i if kind == "correct" else j
                new = mats - _unit(K, i, j) + _unit(K, t, t)
                what = (f"an item of gold class {i} predicted {j} is now predicted {i}" if kind == "correct"
                        else f"an item of gold class {i} predicted {j} now has gold class {j}")
                emit(mats[:, i, j] > 0, new, what)
    elif kind == "add":
        for i in range(K):
            for j in range(K):
                what = (f"one more correct item of class {i}" if i == j
                        else f"one more error: gold {i} predicted {j}")
                emit(np.ones(M, dtype=bool), mats + _unit(K, i, j), what)
    elif kind == "remove_error":
        for i in range(K):
            for j in range(K):
                if i != j:
                    emit(mats[:, i, j] > 0, mats - _unit(K, i, j), f"one error fewer: gold {i} predicted {j}")
    elif kind == "transpose":
        emit(np.ones(M, dtype=bool), np.swapaxes(mats, -1, -2), "gold and predicted labels swapped (C^T)")
    elif kind == "reverse":
        emit(np.ones(M, dtype=bool), mats[:, ::-1, ::-1], "class k renamed K-1-k (class and complement swapped)")
    elif kind == "permute":
        for perm in itertools.permutations(range(K)):
            if list(perm) == list(range(K)):
                continue
            p = np.asarray(perm)
            emit(np.ones(M, dtype=bool), mats[:, p][:, :, p], f"classes permuted by {tuple(int(x) for x in perm)}")
    else:
        raise ValueError(f"unknown step kind {kind!r}")
    if not srcs:
        return np.zeros(0, dtype=np.int64), np.zeros((0, K, K), dtype=mats.dtype), (np.zeros(0, dtype=np.int64), [])
    return np.concatenate(srcs), np.concatenate(outs), (np.concatenate(labels), texts)


def labelings(n: int, K: int) -> np.ndarray:
    """All K^n labelings of n items, (K^n, n), in lexicographic order."""
    grids = np.indices((K,) * n).reshape(n, -1).T
    return grids.astype(np.int64)


def random_matrices(rng: np.random.Generator, K: int, count: int, n_low: int, n_high: int) -> np.ndarray:
    """``count`` random K x K matrices with n in [n_low, n_high], many with zero cells (the
    boundary cases are where properties break)."""
    n = rng.integers(n_low, n_high + 1, size=count)
    w = rng.dirichlet(np.full(K * K, 0.7), size=count)
    w = np.where(rng.random((count, K * K)) < 0.25, 0.0, w)
    w[w.sum(axis=1) == 0, 0] = 1.0
    w = w / w.sum(axis=1, keepdims=True)
    cells = rng.multinomial(n, w) if count else np.zeros((0, K * K))
    return cells.reshape(count, K, K).astype(np.int64)
