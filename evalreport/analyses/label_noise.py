"""Re-ranking under simulated annotation noise (``label_noise.csv``): would the leaderboard survive
errors in the gold labels? Test-set label errors are known to reorder benchmarks (Northcutt et al.
2021); this simulates them.

A *noise model* is a class-to-class flip matrix ``M`` over the task's classes: an item of gold class
``g`` gets gold ``g'`` with probability ``M[g, g']`` (rows sum to 1). A noise *rate* ``r`` is the
uniform model: each item keeps its gold label with probability ``1 - r`` and otherwise takes one of
the other task classes, each equally likely. Each draw flips every item's gold code independently,
recounts every system's confusion matrix with :func:`evalreport.counts.confusion_from_codes` (the
draws are its folds, so one bincount pass counts a block of draws) and computes the measure through
the registry; the systems are ranked per draw as the leaderboard ranks them (tied systems share the
mean of their ranks; an undefined value ranks last). At rate 0 every draw is the observed data, so
the ranks are the observed ranks exactly.

Per model and system: ``p_first`` (share of draws where no system scores better: ties for first
count), ``mean_rank``, and ``rank_lo``/``rank_hi`` (the alpha/2 and 1 - alpha/2 quantiles of the
rank, lower interpolation: ranks that occur).
"""
from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats

from evalreport.analyses.significance import ROUND_DECIMALS
from evalreport.counts import confusion_from_codes
from evalreport.measures import compute, get

__all__ = ["label_noise", "uniform_noise", "noisy_gold", "noise_sentence", "LABEL_NOISE_COLUMNS", "DEFAULT_DRAWS"]

LABEL_NOISE_COLUMNS = ["noise_rate", "model", "system", "p_first", "mean_rank", "rank_lo", "rank_hi", "draws"]
#: Draws per noise model when none are given.
DEFAULT_DRAWS = 200
#: Items x draws per block of the recount (bounds the memory of the flipped codes).
BLOCK_CELLS = 4_000_000


def uniform_noise(rate: float, n_classes: int) -> np.ndarray:
    """The flip matrix of a noise rate: keep with ``1 - rate``, else any other class alike.

    Parameters
    ----------
    rate : float
        In [0, 1].
    n_classes : int
        The task's classes (at least 2).

    Returns
    -------
    numpy.ndarray
        (K, K), rows summing to 1.
    """
    K = int(n_classes)
    M = np.full((K, K), rate / (K - 1))
    np.fill_diagonal(M, 1.0 - rate)
    return M


def noisy_gold(gold: np.ndarray, M: np.ndarray, draws: int, rng) -> np.ndarray:
    """``draws`` noisy copies of ``gold`` (codes below ``len(M)``), shape (draws, N).

    Parameters
    ----------
    gold : (N,) codes.
    M : (t, t) flip matrix; codes at or above t are kept as they are.
    draws : int
    rng : numpy.random.Generator

    Returns
    -------
    numpy.ndarray
    """
    gold = np.asarray(gold, dtype=np.int64)
    t = len(M)
    cum = np.cumsum(np.asarray(M, dtype=float), axis=1)
    cum[:, -1] = 1.0                                     # rounding: the last class closes every row
    inside = gold < t
    u = rng.random((draws, len(gold)))
    out = np.broadcast_to(gold, (draws, len(gold))).copy()
    rows = cum[gold[inside]]                             # (n_inside, t)
    out[:, inside] = (u[:, inside, None] >= rows[None]).sum(axis=2)
    return out


def _ranks(values: np.ndarray, sign: float) -> tuple[np.ndarray, np.ndarray]:
    """Average ranks and first places per draw of (S, D) values (NaN last, 12 decimals)."""
    key = np.where(np.isnan(values), -np.inf, np.round(sign * values, ROUND_DECIMALS))
    ranks = stats.rankdata(-key, method="average", axis=0)
    first = key >= key.max(axis=0, keepdims=True)
    return ranks, first


def _model_rows(runs, rec, M: np.ndarray, *, draws: int, rng, alpha: float, kw: dict) -> pd.DataFrame:
    """The rows of one noise model."""
    K = len(runs.labels)
    S, N = runs.pred.shape
    sign = 1.0 if rec.higher_is_better else -1.0
    block = max(1, BLOCK_CELLS // max(N * S, 1))
    ranks, firsts = [], []
    for start in range(0, draws, block):
        d = min(block, draws - start)
        gold = noisy_gold(runs.gold, M, d, rng)
        folds = np.repeat(np.arange(d), N)
        tensor = confusion_from_codes(gold.ravel(), np.tile(runs.pred, (1, d)), K, folds=folds, n_folds=d)
        values = np.asarray(compute(rec, tensor.astype(float), explain=False, **kw).value, dtype=float)
        r, f = _ranks(values, sign)
        ranks.append(r)
        firsts.append(f)
    R, F = np.concatenate(ranks, axis=1), np.concatenate(firsts, axis=1)
    lo = np.quantile(R, alpha / 2, axis=1, method="lower")
    hi = np.quantile(R, 1 - alpha / 2, axis=1, method="higher")
    return pd.DataFrame({"system": list(runs.systems), "p_first": F.mean(axis=1), "mean_rank": R.mean(axis=1),
                         "rank_lo": lo, "rank_hi": hi, "draws": draws})


def label_noise(runs, measure, *, rates=(), matrix=None, draws: int = DEFAULT_DRAWS, seed: int = 0,
                alpha: float = 0.05, positive=None, policy: str = "nan", costs=None) -> pd.DataFrame:
    """The ranking under simulated gold-label noise (module docstring).

    Parameters
    ----------
    runs : Runs
        Item-level gold labels and predictions.
    measure : str or Measure
        The ranking measure (bound to the classes).
    rates : sequence of float
        Uniform noise rates in [0, 1].
    matrix : (t, t) array, optional
        A flip matrix over the task's classes (rows sum to 1): one more model, ``model = "matrix"``,
        its ``noise_rate`` the expected share of flipped items.
    draws : int
        Draws per model.
    seed : int
        Seed of the draws (one generator for all models, in the order rates, matrix).
    alpha : float
        The rank interval is the central 1 - alpha share of the draws.
    positive, policy, costs
        As for :func:`evalreport.measures.compute`.

    Returns
    -------
    pandas.DataFrame
        Columns noise_rate, model (``uniform`` or ``matrix``), system, p_first, mean_rank, rank_lo,
        rank_hi, draws.
    """
    rec = get(measure)
    t = runs.n_task or len(runs.labels)
    kw = dict(positive=positive, policy=policy, costs=costs, task=runs.n_task)
    rng = np.random.default_rng(seed)
    models = [(float(r), "uniform", uniform_noise(float(r), t)) for r in rates]
    if matrix is not None:
        M = np.asarray(matrix, dtype=float)
        prev = np.bincount(np.asarray(runs.gold)[np.asarray(runs.gold) < t], minlength=t) / max(len(runs.gold), 1)
        models.append((round(float(prev @ (1 - np.diag(M))), 12), "matrix", M))
    frames = [_model_rows(runs, rec, M, draws=draws, rng=rng, alpha=alpha, kw=kw).assign(noise_rate=r, model=name)
              for r, name, M in models]
    if not frames:
        return pd.DataFrame(columns=LABEL_NOISE_COLUMNS)
    return pd.concat(frames, ignore_index=True)[LABEL_NOISE_COLUMNS]


def noise_sentence(table: pd.DataFrame, leader: str) -> str | None:
    """One sentence: how often the leader keeps first place under the largest uniform noise rate.

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`label_noise`'s table.
    leader : str
        The observed leader.

    Returns
    -------
    str or None
        None without a noise rate above 0.
    """
    rows = table[(table["model"] == "uniform") & (table["noise_rate"] > 0) & (table["system"] == leader)]
    if rows.empty:
        rows = table[(table["model"] == "matrix") & (table["system"] == leader)]
        if rows.empty:
            return None
        row = rows.iloc[0]
        return (f"First place ({leader}) holds under the given noise matrix in {100 * row['p_first']:.0f} % of "
                f"{int(row['draws'])} draws.")
    row = rows.sort_values("noise_rate").iloc[-1]
    return (f"First place ({leader}) holds under {100 * row['noise_rate']:g} % label noise in "
            f"{100 * row['p_first']:.0f} % of {int(row['draws'])} draws.")
