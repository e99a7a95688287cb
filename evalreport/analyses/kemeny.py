"""Kemeny-Young consensus orders: exact dynamic programming over subsets, and a local search.

The input is a pairwise cost tensor ``cost`` of shape (N, S, S) (N independent instances,
e.g. bootstrap replicates): ``cost[n, i, j]`` is the total (task-weighted) disagreement incurred
by putting system i before system j - the weight of the tasks that rank j ahead of i, plus half
the weight of the tasks that tie them (the Kendall distance with ties counted 1/2). A
consensus order minimises the sum of ``cost[i, j]`` over the pairs it puts i before j
(Kemeny 1959; Young & Levenglick 1978).

Exact (``kemeny_exact``): the optimal cost of placing a set M of systems in the first |M|
positions is ``f(M) = min over v in M of f(M - v) + sum_{u in M - v} cost[u, v]`` (v last
among M), computed layer by layer over the 2^S subsets by popcount; time and memory grow as
S 2^S. Heuristic (``kemeny_local``): start from the cheaper of two given orders (the callers
pass the mean-rank/Borda and Copeland orders) and repeatedly apply the best single insertion
move (take one system out and put it back at another position) while it lowers the cost; the
result is never worse than the start and is a local optimum under insertion moves.

Ties between optimal orders are broken deterministically: among the orders within a relative
tolerance of the optimum, the one with the fewest pairs inverted with respect to a strict
reference order ``ref`` (position 0 first; the callers use the mean-rank order with ties by
column index) is chosen; the exact search compares (cost, inversions) lexicographically.
"""
from __future__ import annotations

import numpy as np

__all__ = ["order_cost", "kemeny_exact", "kemeny_local", "KEMENY_EXACT_MAX", "KEMENY_EXACT_MAX_BATCH"]

# Largest S solved exactly by default, measured on the project machine: one instance takes
# 0.05 s at S = 16, 0.3 s at S = 18 and 1.6 s at S = 20.
KEMENY_EXACT_MAX = 18
# The same for 1,000 bootstrap replicates at once: 0.12 s at S = 8, 0.55 s at S = 10, 2.6 s at S = 12.
KEMENY_EXACT_MAX_BATCH = 8
_CHUNK_ELEMENTS = 1 << 22


def _tolerance(cost: np.ndarray) -> np.ndarray:
    """Per-instance absolute tolerance for comparing costs: 1e-9 of the total pairwise weight."""
    return 1e-9 * np.maximum(1.0, cost.sum(axis=(-2, -1)))


def order_cost(cost: np.ndarray, order: np.ndarray) -> np.ndarray:
    """Total cost of ``order`` (N, S) (system indices, first = best) under ``cost`` (N, S, S)."""
    pos = np.argsort(order, axis=-1)
    before = pos[..., :, None] < pos[..., None, :]
    return (cost * before).sum(axis=(-2, -1))


def _inversion_matrix(ref: np.ndarray) -> np.ndarray:
    """G[n, u, v] = 1 if u comes after v in the reference order ``ref`` (N, S)."""
    pos = np.argsort(ref, axis=-1)
    return (pos[..., :, None] > pos[..., None, :]).astype(float)


def kemeny_exact(cost: np.ndarray, ref: np.ndarray) -> np.ndarray:
    """Optimal orders (N, S) by dynamic programming over subsets (see the module doc)."""
    cost = np.asarray(cost, dtype=float)
    N, S, _ = cost.shape
    if S <= 1:
        return np.zeros((N, S), dtype=np.int64)
    chunk = max(1, _CHUNK_ELEMENTS // ((1 << S) * S))
    return np.concatenate([_exact_chunk(cost[a:a + chunk], ref[a:a + chunk]) for a in range(0, N, chunk)])


def _exact_chunk(cost: np.ndarray, ref: np.ndarray) -> np.ndarray:
    N, S, _ = cost.shape
    inv = _inversion_matrix(ref)
    tol = _tolerance(cost)[:, None, None]
    full = (1 << S) - 1
    masks = np.arange(1 << S, dtype=np.int64)
    popcount = np.bitwise_count(masks)
    f = np.zeros((N, 1 << S))
    g = np.zeros((N, 1 << S))
    last = np.zeros((N, 1 << S), dtype=np.int8)
    singles = 1 << np.arange(S)
    last[:, singles] = np.arange(S, dtype=np.int8)
    shifts = np.arange(S)
    for k in range(2, S + 1):
        layer = masks[popcount == k]
        bits = ((layer[:, None] >> shifts) & 1).astype(bool)              # (n, S)
        prev = layer[:, None] ^ singles                                     # (n, S): mask without v
        prev = np.where(bits, prev, 0)
        # sum_{u in mask - v} cost[u, v] = (bits @ cost)[v] since cost[v, v] = 0
        add_c = np.einsum("ns,bsv->bnv", bits.astype(float), cost)
        add_g = np.einsum("ns,bsv->bnv", bits.astype(float), inv)
        cand = np.where(bits, f[:, prev] + add_c, np.inf)
        cand_g = g[:, prev] + add_g
        best = cand.min(axis=-1, keepdims=True)
        cand_g = np.where(cand <= best + tol, cand_g, np.inf)
        choice = np.argmin(cand_g, axis=-1)                                  # lowest v among equals
        f[:, layer] = np.take_along_axis(cand, choice[..., None], -1)[..., 0]
        g[:, layer] = np.take_along_axis(cand_g, choice[..., None], -1)[..., 0]
        last[:, layer] = choice.astype(np.int8)
    order = np.empty((N, S), dtype=np.int64)
    mask = np.full(N, full, dtype=np.int64)
    rows = np.arange(N)
    for position in range(S - 1, -1, -1):
        v = last[rows, mask].astype(np.int64)
        order[:, position] = v
        mask = mask ^ (np.int64(1) << v)
    return order


def _insertion_deltas(m: np.ndarray) -> np.ndarray:
    """delta[p, q]: cost change of moving the system at position p to position q, where
    ``m`` is the cost matrix permuted into the current order."""
    S = m.shape[0]
    d = m - m.T                                   # d[p, r]: cost(p before r) - cost(r before p)
    cs = np.concatenate([np.zeros((S, 1)), np.cumsum(d, axis=1)], axis=1)   # cs[p, r] = sum_{r'<r} d[p, r']
    p = np.arange(S)[:, None]
    q = np.arange(S)[None, :]
    diag = cs[np.arange(S), np.arange(S)][:, None]                          # cs[p, p]
    diag1 = cs[np.arange(S), np.arange(S) + 1][:, None]                     # cs[p, p + 1]
    up = diag - cs[np.arange(S)[:, None], np.broadcast_to(q, (S, S))]       # q < p: passes r = q..p-1
    down = -(cs[np.arange(S)[:, None], np.minimum(q + 1, S)] - diag1)       # q > p: passes r = p+1..q
    return np.where(q < p, up, np.where(q > p, down, 0.0))


def kemeny_local(cost: np.ndarray, starts: list[np.ndarray], *, max_moves: int | None = None):
    """Insertion local search from the cheapest of ``starts`` (each (N, S)). Returns
    ``(orders (N, S), converged (N,) bool)``; ``converged`` is False only where ``max_moves``
    (default 50 S) stopped the search before a local optimum."""
    cost = np.asarray(cost, dtype=float)
    N, S, _ = cost.shape
    tol = _tolerance(cost)
    start_costs = np.stack([order_cost(cost, s) for s in starts])          # (K, N)
    pick = np.argmin(start_costs, axis=0)
    orders = np.stack(starts)[pick, np.arange(N)].copy()
    converged = np.ones(N, dtype=bool)
    limit = 50 * S if max_moves is None else max_moves
    for n in range(N):                            # instances are independent; moves are sequential
        order = list(orders[n])
        for _ in range(limit + 1):
            o = np.asarray(order)
            delta = _insertion_deltas(cost[n][np.ix_(o, o)])
            p, q = np.unravel_index(np.argmin(delta), delta.shape)
            if delta[p, q] >= -tol[n]:
                break
            order.insert(q, order.pop(p))
        else:
            converged[n] = False
        orders[n] = order
    return orders, converged
