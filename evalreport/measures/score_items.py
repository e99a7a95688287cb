"""What the calibration measures read of each item: the gold class's probability, the squared error,
the top label and its confidence, and the confidence bins.

The Brier score, the log loss and the calibration errors of :mod:`evalreport.measures.scores` are means
over items (or over bins of items) of these quantities. Each is computed one system at a time from the
score columns (``sc.scores[s, :, c]``, contiguous when the runs were read from files: the readers keep
scores class-major), so no ``(S, N, C)`` temporary is built.
"""
from __future__ import annotations

import numpy as np

from evalreport.errors import MeasureError

__all__ = ["EPS", "gold_columns", "pick", "brier_items", "log_items", "item_means", "top_label", "confidence",
           "calibration_bins", "bin_sums"]

EPS = float(np.finfo(float).eps)


def gold_columns(sc) -> np.ndarray:
    """``(N,)`` the score column of each item's gold class (0 where the class has no column)."""
    where = np.asarray([list(sc.columns).index(g) if g in sc.columns else 0 for g in range(sc.n_classes)],
                       dtype=np.intp)
    return where[sc.gold]


def pick(x: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """``x[i, idx[i]]`` for every row i of ``x`` ``(N, C)``: one flat gather in the order ``x`` is stored."""
    n, c = x.shape
    if x.flags.c_contiguous:
        return x.ravel()[np.arange(n) * c + idx]
    if x.T.flags.c_contiguous:
        return x.T.ravel()[idx * n + np.arange(n)]
    return np.take_along_axis(x, idx[:, None], axis=-1)[:, 0]


def _gold_scores(sc, s: int, idx: np.ndarray) -> np.ndarray:
    return pick(sc.scores[s], idx)


def _map_systems(fn, S: int, n_items: int) -> list:
    """``[fn(s) for s in range(S)]``, in threads (at most 4) when the columns are long."""
    import os

    workers = min(os.cpu_count() or 1, 4, S)
    if workers < 2 or n_items < 50_000:
        return [fn(s) for s in range(S)]
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(workers) as pool:
        return list(pool.map(fn, range(S)))


def brier_items(sc) -> np.ndarray:
    """``(S, N)`` per-item squared error (binary: of the positive class; classes: summed over classes, as
    sum_c p_ic^2 - 2 p_i,gold + 1; two classes: halved)."""
    if sc.layout == "binary":
        y = (sc.gold == sc.columns[0]).astype(float)
        return (sc.scores[..., 0] - y) ** 2
    S, N = len(sc.scores), sc.n_items
    out = np.empty((S, N))
    idx = gold_columns(sc)
    for s in range(S):
        x = sc.scores[s]
        row = out[s]
        np.multiply(x[:, 0], x[:, 0], out=row)
        for c in range(1, x.shape[1]):
            row += x[:, c] * x[:, c]
        row -= 2.0 * _gold_scores(sc, s, idx)
        row += 1.0
    return out / 2.0 if sc.n_classes == 2 else out


def item_means(sc) -> dict[str, np.ndarray]:
    """``{"brier": (S,), "log_loss": (S,)}``: the means over items of :func:`brier_items` and :func:`log_items`,
    every item weighted 1, one system at a time from one gather of the gold class's probabilities (the Brier
    score from column totals: sum_c p_c . p_c - 2 sum_i p_i,gold + N)."""
    S, N = len(sc.scores), sc.n_items
    if sc.layout == "binary" or not N:
        nan = np.full(S, np.nan)
        return {"brier": brier_items(sc).mean(axis=1) if N else nan, "log_loss": log_items(sc).mean(axis=1) if N
                else nan}
    idx = gold_columns(sc)

    def one(s: int) -> tuple[float, float]:
        x = sc.scores[s]
        gold = _gold_scores(sc, s, idx)
        squares = sum(float(np.einsum("n,n->", x[:, c], x[:, c])) for c in range(x.shape[1]))
        brier = (squares - 2.0 * float(gold.sum()) + N) / N
        np.clip(gold, EPS, 1 - EPS, out=gold)
        return brier, -float(np.log(gold, out=gold).mean())

    found = np.asarray(_map_systems(one, S, N), dtype=float).reshape(S, 2)
    return {"brier": found[:, 0] / 2.0 if sc.n_classes == 2 else found[:, 0], "log_loss": found[:, 1]}


def log_items(sc) -> np.ndarray:
    """``(S, N)`` per-item log loss, probabilities clipped to [eps, 1 - eps] (as scikit-learn)."""
    if sc.layout == "binary":
        y = sc.gold == sc.columns[0]
        p = np.clip(sc.scores[..., 0], EPS, 1 - EPS)
        return -np.where(y, np.log(p), np.log1p(-p))
    S, N = len(sc.scores), sc.n_items
    out = np.empty((S, N))
    idx = gold_columns(sc)
    for s in range(S):
        row = out[s]
        np.clip(_gold_scores(sc, s, idx), EPS, 1 - EPS, out=row)
        np.log(row, out=row)
        np.negative(row, out=row)
    return out


def top_label(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(N,)`` column of each item's highest score (the first of equal ones; a NaN score never wins) and
    that score, for one system's ``(N, C)`` scores: a pass per column, faster than ``argmax`` over a short
    axis."""
    N, C = x.shape
    if 0 < C < 128:
        best = x[:, 0].copy()
        top = np.zeros(N, dtype=np.int8)
        better = np.empty(N, dtype=bool)
        for c in range(1, C):
            col = x[:, c]
            np.greater(col, best, out=better)
            flag = better.view(np.int8)                   # top = c where better (arithmetic: no masked copy)
            top += flag * np.int8(c) - flag * top
            np.maximum(best, col, out=best)
        if not np.isnan(best).any():           # a NaN anywhere in a row makes its maximum NaN
            return top.astype(np.intp), best
    top = np.argmax(np.nan_to_num(x, nan=-np.inf), axis=-1)
    return top, np.take_along_axis(x, top[:, None], axis=-1)[:, 0]


def _system_confidence(sc, s: int) -> tuple[np.ndarray, np.ndarray]:
    """``(N,)`` top-label confidence of system s and whether the top label is the gold class."""
    if sc.layout == "binary":
        p = sc.scores[s, :, 0]
        top_pos = p >= 0.5
        return np.where(top_pos, p, 1.0 - p), top_pos == (sc.gold == sc.columns[0])
    top, conf = top_label(sc.scores[s])
    if tuple(sc.columns) == tuple(range(len(sc.columns))):       # columns in class order: top is the class
        return conf, top == sc.gold
    return conf, np.asarray(sc.columns)[top] == sc.gold


def confidence(sc) -> tuple[np.ndarray, np.ndarray]:
    """``(S, N)`` top-label confidence and whether the top label is the gold class.

    One score column: the top label is the positive class iff p >= 1/2 (confidence max(p, 1 - p)).

    Parameters
    ----------
    sc : ScoreCounts
        The systems' scores.

    Returns
    -------
    tuple of ndarray
        Confidence ``(S, N)`` and correctness ``(S, N)`` bool.
    """
    S, N = len(sc.scores), sc.n_items
    conf, right = np.empty((S, N)), np.empty((S, N), dtype=bool)
    for s in range(S):
        conf[s], right[s] = _system_confidence(sc, s)
    return conf, right


def _uniform_bins(conf: np.ndarray, bins: int) -> np.ndarray:
    """``searchsorted(linspace(0, 1, bins + 1), conf, "left") - 1`` clipped to [0, bins - 1], by arithmetic."""
    edges = np.linspace(0.0, 1.0, bins + 1)
    scaled = conf * bins
    which = np.ceil(scaled)
    which -= 1.0
    np.clip(which, 0, bins - 1, out=which)
    out = which.astype(np.intp)
    # only a confidence within rounding of an edge can be off by one: check those against the edges
    near = np.flatnonzero(np.abs(scaled - np.rint(scaled)) <= 1e-9 * max(bins, 1))
    if near.size:
        c, b = conf[near], out[near]
        b -= (c <= edges[b]) & (b > 0)
        b += (c > edges[b + 1]) & (b < bins - 1)
        out[near] = b
    return out


def calibration_bins(conf: np.ndarray, bins: int = 15, strategy: str = "uniform") -> tuple[np.ndarray, np.ndarray]:
    """Bin of each confidence ``(..., N)`` and the edges ``(..., bins + 1)``.

    ``uniform``: equal-width bins ((m - 1)/M, m/M] (Guo et al. 2017, section 2; 0 joins the first);
    ``quantile``: equal-mass bins, edges at the M-quantiles of the confidences (per row).

    Parameters
    ----------
    conf : ndarray
        ``(..., N)`` confidences (no NaN).
    bins : int
        The number of bins M.
    strategy : str
        ``"uniform"`` or ``"quantile"``.

    Returns
    -------
    tuple of ndarray
        The bin of each confidence (0 .. M - 1) and the edges.
    """
    conf = np.asarray(conf, dtype=float)
    bins = int(bins)
    if strategy == "uniform":
        edges = np.broadcast_to(np.linspace(0.0, 1.0, bins + 1), conf.shape[:-1] + (bins + 1,))
        return _uniform_bins(conf, bins), edges
    if strategy != "quantile":
        raise MeasureError(f"unknown binning strategy {strategy!r}; choose uniform or quantile")
    edges = np.moveaxis(np.nanquantile(conf, np.linspace(0.0, 1.0, bins + 1), axis=-1), 0, -1).copy()
    edges[..., 0], edges[..., -1] = 0.0, 1.0
    flat_e = edges.reshape(-1, bins + 1)
    flat_c = conf.reshape(-1, conf.shape[-1])
    which = np.stack([np.searchsorted(e, c, side="left") - 1 for e, c in zip(flat_e, flat_c)])
    return np.clip(which, 0, bins - 1).reshape(conf.shape), edges


def bin_sums(sc, weights: np.ndarray | None, bins: int, strategy: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(B, S, M)`` weighted sums per confidence bin of the confidence, the correctness and the items.

    One system at a time (its ``(N,)`` confidences, or ``(B, N)`` weighted ones), one ``bincount`` per
    sum: no ``(S, N, bins)`` one-hot array. ``weights`` ``(B, N)`` item weights (None: B = 1, all ones).

    Parameters
    ----------
    sc : ScoreCounts
        The systems' scores.
    weights : ndarray or None
        Item weights.
    bins : int
        The number of bins.
    strategy : str
        ``"uniform"`` or ``"quantile"`` (:func:`calibration_bins`).

    Returns
    -------
    tuple of ndarray
        Sums of confidence, of correctness and of items per bin.
    """
    S = len(sc.scores)
    B = 1 if weights is None else int(weights.shape[0])
    out = np.zeros((3, B, S, bins))
    rows = (np.arange(B, dtype=np.int64) * bins)[:, None]

    def one(s: int) -> None:
        conf, right = _system_confidence(sc, s)
        if not sc.has[s]:              # (a system with scores has no NaN: a partial one was refused)
            conf = np.nan_to_num(conf)
        which, _ = calibration_bins(conf, bins, strategy)
        if weights is None:          # two bincounts over (bin, right or wrong) cells give all three sums
            cell = which * 2
            cell += right
            conf_sums = np.bincount(cell, weights=conf, minlength=2 * bins).reshape(bins, 2)
            counts = np.bincount(cell, minlength=2 * bins).reshape(bins, 2)
            out[0, 0, s] = conf_sums.sum(axis=1)
            out[1, 0, s] = counts[:, 1]
            out[2, 0, s] = counts.sum(axis=1)
            return
        flat = (rows + which[None, :]).ravel()
        for i, v in enumerate((weights * conf, weights * right, weights)):
            out[i, :, s] = np.bincount(flat, weights=v.ravel(), minlength=B * bins).reshape(B, bins)

    _map_systems(one, S, sc.n_items if weights is None else 0)    # (B, N) temporaries: one system at a time
    return out[0], out[1], out[2]
