"""What "no skill" scores: every measure for trivial predictors and under random-classifier models.

Predictors that need no model (values are exact):

``constant:<label>``
    predicts ``<label>`` for every item. In binary tasks with a positive class these are named
    as in Sebastiani (2015, section 2): ``trivial_acceptor`` (always the positive class)
    and ``trivial_rejector`` (always the other class).
``majority``
    the constant predictor of the largest gold class (ties: the first in class order).

Random classifiers, explicitly named because "the" random classifier does not exist (Sebastiani
2015, footnote 2; Opitz 2022, section V):

``uniform``
    each item gets a label drawn uniformly from the K classes, independently.
``prevalence``
    each item gets a label drawn with the gold class distribution a / n.
``fixed_sizes``
    a uniformly random labelling with fixed predicted class sizes b (default: the gold sizes
    a), i.e. a random permutation of a fixed multiset of predictions - the model of the
    constant-baseline property, Gösgens et al. 2021, Definition 8. Both margins are fixed, so
    E[c_ij] = a_i b_j / n.
``contingency``
    uniform over all contingency tables with the gold class sizes (row sums) fixed. With
    AN = 0 this is the random classifier of Sebastiani 2015, Property 4.3: E[F1] = 0.500 for
    |D| = 1 and 0.612 for |D| = 100.

How an expectation is computed, per measure and model (column ``method``):

``linear``
    the measure is affine in the cells over the model's support (tested numerically: its
    value at random convex mixtures of sampled tables equals the mixture of its values), so
    E[M(C)] = M(E[C]) exactly, with E[c_ij] = a_i b_j / n (fixed_sizes), a_i a_j / n
    (prevalence) or a_i / K (uniform, contingency).
``enumeration``
    exact: every table of the support, weighted by its probability, pushed through the
    measure as one stacked tensor (when the support has at most ``max_tables`` tables).
``monte_carlo``
    the mean over ``n_samples`` seeded random tables, with its standard error in ``se``.

Undefined outcomes (0/0 under the ``nan`` policy) are left out of the expectation and their
probability is reported in ``note``.
"""
from __future__ import annotations

import math
from functools import lru_cache
from typing import Literal

import numpy as np
import pandas as pd
from scipy.special import gammaln

from evalreport.counts import Counts
from evalreport.measures import bind, compute, default_measures, resolve_positive, shared_sums
from evalreport.measures.subsets import restrict

__all__ = ["baselines", "RANDOM_MODELS", "expected_table", "enumerate_tables", "sample_tables", "is_linear",
           "gold_sizes", "constant_tables"]

RANDOM_MODELS = ("uniform", "prevalence", "fixed_sizes", "contingency")

#: Memory budget of one stacked tensor of random tables (cells). With many classes the number of
#: Monte Carlo tables shrinks to fit (never below MIN_SAMPLES) and the note says how many were used.
MAX_CELLS = 2**23
MIN_SAMPLES = 8
#: Above this many classes only the majority and the smallest class get a constant-predictor row.
MAX_CONSTANT_PREDICTORS = 30
COLUMNS = ["measure", "baseline", "value", "se", "method", "note"]
#: Cells of one block when a measure runs over many large tables (e.g. 22 tables of 1,000 x 1,000
#: classes): a measure's temporaries then fit memory the allocator reuses, instead of fresh pages
#: for each of them. Each table's value does not depend on the others in its block.
BLOCK_CELLS = 2**20
#: Tables of at most this many cells are deduplicated before the linearity test.
DISTINCT_CELLS = 4096


# ----------------------------------------------------------------------------- inputs


def gold_sizes(data, labels=None):
    """Gold class sizes ``a`` (K,) and labels from Counts, Runs, a tensor or a size vector."""
    from evalreport.inputs.runs import Runs

    if isinstance(data, Runs):
        a = np.bincount(np.asarray(data.gold, dtype=np.int64), minlength=data.n_classes)
        return a.astype(np.int64), tuple(data.labels)
    if isinstance(data, Counts):
        t, labels = np.asarray(data.pooled().tensor, dtype=float), tuple(data.labels)
    else:
        t = np.asarray(data, dtype=float)
        if t.ndim == 1:
            K = t.shape[0]
            return _as_int(t), tuple(labels) if labels is not None else tuple(str(k) for k in range(K))
    if t.ndim == 2:
        t = t[None]
    rows = t.sum(axis=-1).reshape(-1, t.shape[-1])
    if not np.allclose(rows, rows[:1]):
        raise ValueError("the systems were evaluated on different gold labels (their confusion matrices have "
                         "different row sums); chance baselines need one gold class distribution")
    K = t.shape[-1]
    labels = tuple(labels) if labels is not None else tuple(str(k) for k in range(K))
    return _as_int(rows[0]), labels


def _as_int(a) -> np.ndarray:
    a = np.asarray(a, dtype=float)
    if np.any(a < 0) or not np.allclose(a, np.round(a)):
        raise ValueError("chance baselines need integer class sizes (item counts, not rates)")
    return np.round(a).astype(np.int64)


def _sizes(sizes, a, labels) -> np.ndarray:
    if sizes is None:
        return a.copy()
    if isinstance(sizes, dict):
        unknown = set(map(str, sizes)) - set(labels)
        if unknown:
            raise ValueError(f"predicted class sizes name unknown classes: {', '.join(sorted(unknown))}")
        sizes = [sizes.get(lab, 0) for lab in labels]
    b = _as_int(sizes)
    if b.shape != a.shape or b.sum() != a.sum():
        raise ValueError(f"predicted class sizes must be {len(a)} counts summing to n = {int(a.sum())}")
    return b


# ----------------------------------------------------------------------------- tables


def constant_tables(a) -> np.ndarray:
    """(K, K, K): table j predicts class j for every item (column j = a, the rest 0)."""
    a = np.asarray(a)
    K = a.shape[0]
    out = np.zeros((K, K, K))
    out[np.arange(K), :, np.arange(K)] = a[None, :]
    return out


def expected_table(a, model: str, sizes=None) -> np.ndarray:
    """E[C] under a random model: a_i b_j / n (fixed_sizes), a_i a_j / n (prevalence), a_i / K."""
    a = np.asarray(a, dtype=float)
    K, n = a.shape[0], a.sum()
    if model == "fixed_sizes":
        b = a if sizes is None else np.asarray(sizes, dtype=float)
        return np.outer(a, b) / n
    if model == "prevalence":
        return np.outer(a, a) / n
    if model in ("uniform", "contingency"):
        return np.repeat(a[:, None] / K, K, axis=1)
    raise ValueError(f"unknown random model {model!r}; choose from {', '.join(RANDOM_MODELS)}")


@lru_cache(maxsize=256)
def _compositions(total: int, K: int) -> np.ndarray:
    """All ways to split ``total`` items into K ordered non-negative parts: (C(total+K-1, K-1), K)."""
    if K == 1:
        return np.array([[total]], dtype=np.int64)
    blocks = []
    for first in range(total + 1):            # loop over values of one cell, bounded by max_tables
        rest = _compositions(total - first, K - 1)
        blocks.append(np.column_stack([np.full(len(rest), first, dtype=np.int64), rest]))
    return np.concatenate(blocks)


def _support_exceeds(a, limit: int) -> bool:
    """Whether the number of tables with row sums a, prod_i C(a_i + K - 1, K - 1), exceeds ``limit``."""
    K, size = len(a), 1
    for x in a:
        size *= math.comb(int(x) + K - 1, K - 1)
        if size > limit:
            return True
    return False


def _row_probability(model: str, a, K):
    """Per-item label probabilities of the multinomial models (None for the others)."""
    if model == "uniform":
        return np.full(K, 1.0 / K)
    if model == "prevalence":
        return np.asarray(a, dtype=float) / float(np.sum(a))
    return None


def enumerate_tables(a, model: str, sizes=None, *, max_tables: int = 20000):
    """Every table of the model's support with its probability, or ``None`` if there are too many.

    Returns ``(tables (T, K, K) float, weights (T,))`` with weights summing to 1.
    """
    a = np.asarray(a, dtype=np.int64)
    K = len(a)
    if _support_exceeds(a, max_tables):
        return None
    comps = [_compositions(int(x), K) for x in a]
    idx = np.indices([len(c) for c in comps]).reshape(K, -1).T          # (T, K)
    tables = np.stack([comps[i][idx[:, i]] for i in range(K)], axis=1)   # (T, K, K)
    logfact = gammaln(tables + 1.0).sum(axis=(1, 2))
    if model in ("uniform", "prevalence"):
        p = _row_probability(model, a, K)
        with np.errstate(divide="ignore"):
            logp = np.where(p > 0, np.log(np.where(p > 0, p, 1.0)), -np.inf)
        with np.errstate(invalid="ignore"):   # 0 * log 0 cells are masked out; no warning for them
            cell = np.where(tables > 0, tables * logp[None, None, :], 0.0).sum(axis=(1, 2))
        logw = gammaln(a + 1.0).sum() - logfact + cell
    elif model == "contingency":
        logw = np.zeros(len(tables))
    elif model == "fixed_sizes":
        b = a if sizes is None else np.asarray(sizes, dtype=np.int64)
        keep = np.all(tables.sum(axis=1) == b[None, :], axis=1)
        tables, logfact = tables[keep], logfact[keep]
        # multivariate hypergeometric table: prod a_i! prod b_j! / (n! prod c_ij!)
        logw = -logfact
    else:
        raise ValueError(f"unknown random model {model!r}; choose from {', '.join(RANDOM_MODELS)}")
    w = np.exp(logw - np.max(logw[np.isfinite(logw)]))
    w = np.where(np.isfinite(logw), w, 0.0)
    return tables.astype(float), w / w.sum()


def sample_tables(a, model: str, n_samples: int, rng, sizes=None) -> np.ndarray:
    """``n_samples`` random tables (R, K, K) from a model, vectorised over the samples."""
    a = np.asarray(a, dtype=np.int64)
    K = len(a)
    if model in ("uniform", "prevalence"):
        return _to_float(rng.multinomial(a, _row_probability(model, a, K), size=(n_samples, K)))
    if model == "contingency":
        # a Dirichlet(1, ..., 1) mixture of multinomials is uniform over the compositions of a_i
        p = rng.dirichlet(np.ones(K), size=(n_samples, K))
        return _to_float(rng.multinomial(a, p))
    if model == "fixed_sizes":
        b = a if sizes is None else np.asarray(sizes, dtype=np.int64)
        n = int(a.sum())
        if K * K > 4 * n:  # many classes: shuffle the n predictions instead of K*K hypergeometric draws
            gold = np.repeat(np.arange(K), a) * K
            pred = np.repeat(np.arange(K), b)
            perm = np.argsort(rng.random((n_samples, n)), axis=1)
            idx = (gold[None, :] + pred[perm]).ravel() + np.repeat(np.arange(n_samples) * K * K, n)
            return _to_float(np.bincount(idx, minlength=n_samples * K * K).reshape(n_samples, K, K))
        cols = np.broadcast_to(b, (n_samples, K)).copy()
        out = np.zeros((n_samples, K, K), dtype=np.int64)
        for i in range(K):                    # rows drawn one after the other without replacement,
            left = np.full(n_samples, a[i])   # each as sequential hypergeometric cells (loop over classes)
            for j in range(K - 1):
                rest = cols[:, j + 1:].sum(axis=1)
                draw = rng.hypergeometric(cols[:, j], rest, left)
                out[:, i, j] = draw
                left -= draw
                cols[:, j] -= draw
            out[:, i, K - 1] = left
            cols[:, K - 1] -= left
        return _to_float(out)
    raise ValueError(f"unknown random model {model!r}; choose from {', '.join(RANDOM_MODELS)}")


def _to_float(counts: np.ndarray) -> np.ndarray:
    """Integer tables as float64, converted in place (exact below 2**53; cheaper than a fresh array's page faults)."""
    flat = np.ascontiguousarray(counts, dtype=np.int64).reshape(-1)
    out = flat.view(np.float64)
    np.copyto(out, flat, casting="unsafe")     # numpy reads overlapping input as if copied first
    return out.reshape(counts.shape)


def is_linear(values_at, tables: np.ndarray, rng, *, n_mixtures: int = 6, rtol: float = 1e-9,
              at_tables=None) -> bool:
    """Whether a measure is affine on the convex hull of ``tables`` (tested numerically).

    ``values_at``: function from a stacked tensor (T, K, K) to values (T,). The test evaluates
    the measure at ``n_mixtures`` random convex mixtures of the distinct tables and compares
    with the same mixtures of its values; an affine function matches to rounding error, a
    non-linear one (almost surely) does not. ``at_tables``: ``values_at(tables)`` where the caller
    has it already (used for tables of more than :data:`DISTINCT_CELLS` cells, which are taken as
    they are; smaller ones are deduplicated first).
    """
    flat = tables.reshape(len(tables), -1)
    # duplicates only repeat a point; dropping them matters for small tables (few distinct ones)
    distinct = np.unique(flat, axis=0) if flat.shape[1] <= DISTINCT_CELLS else flat
    if len(distinct) < 2:
        return False
    W = rng.dirichlet(np.ones(len(distinct)), size=n_mixtures)
    points = distinct.reshape(-1, *tables.shape[1:])
    if points[0].size * (len(points) + n_mixtures) <= BLOCK_CELLS:
        v = values_at(np.concatenate([points, (W @ distinct).reshape(-1, *tables.shape[1:])]))
        at_points, at_mix = v[:len(points)], v[len(points):]
    else:      # large tables: no stacked copy; each table's value is its own, so stop at the first failure
        at_points = values_at(points) if at_tables is None or distinct is not flat else np.asarray(at_tables)
        if not np.all(np.isfinite(at_points)):
            return False
        mixtures = (W @ distinct).reshape(-1, *tables.shape[1:])
        expected = W @ at_points
        scale_ = max(1.0, float(np.max(np.abs(at_points))))
        for i in range(len(W)):
            at = values_at(mixtures[i:i + 1])
            if not (np.all(np.isfinite(at)) and np.allclose(at, expected[i:i + 1], rtol=rtol, atol=rtol * scale_)):
                return False
        return True
    if not (np.all(np.isfinite(at_points)) and np.all(np.isfinite(at_mix))):
        return False
    expected = W @ at_points
    scale_ = max(1.0, float(np.max(np.abs(at_points))))
    return bool(np.allclose(at_mix, expected, rtol=rtol, atol=rtol * scale_))


#: Mixture tables made by one matrix product in :func:`_linear_large` (the probe's own count, so no
#: more memory than the probe tables themselves).
MIX_ROWS = 16


def _linear_large(measures, values, tables: np.ndarray, rng, at_tables, *, n_mixtures: int = 6,
                  rtol: float = 1e-9) -> dict:
    """``{id: is_linear(...)}`` of every measure on large tables, the mixtures made MIX_ROWS at a time."""
    flat = tables.reshape(len(tables), -1)
    if len(flat) < 2:
        return {m.id: False for m in measures}
    draws = [rng.dirichlet(np.ones(len(flat)), size=n_mixtures) for _ in measures]
    verdict, alive = {}, []
    for m, W in zip(measures, draws):
        at_points = np.asarray(at_tables[m.id])
        verdict[m.id] = bool(np.all(np.isfinite(at_points)))
        if verdict[m.id]:
            alive.append((m, W @ at_points, max(1.0, float(np.max(np.abs(at_points)))), W))
    buffer = np.empty((MIX_ROWS, flat.shape[1]))       # reused: no fresh pages for each product
    # the first mixture of every measure, then the other mixtures of those that passed it (evaluating
    # a mixture after one that failed changes no verdict: a measure is linear when all of them pass)
    for rounds in (range(1), range(1, n_mixtures)):
        jobs = [(e, i) for e in alive if verdict[e[0].id] for i in rounds]
        for c in range(0, len(jobs), MIX_ROWS):
            part = jobs[c:c + MIX_ROWS]
            rows = np.stack([e[3][i] for e, i in part] * (2 if len(part) == 1 else 1))
            mixtures = np.matmul(rows, flat, out=buffer[:len(rows)]).reshape(-1, *tables.shape[1:])
            for j, ((m, expected, scale_, _), i) in enumerate(part):
                if not verdict[m.id]:
                    continue
                at = values(m, mixtures[j:j + 1])
                verdict[m.id] = bool(np.all(np.isfinite(at))
                                     and np.allclose(at, expected[i:i + 1], rtol=rtol, atol=rtol * scale_))
    return verdict


def blockwise(values_at, tables: np.ndarray) -> np.ndarray:
    """``values_at(tables)`` (one value per table) computed over blocks of at most
    :data:`BLOCK_CELLS` cells (and at least one table), concatenated."""
    per = max(1, BLOCK_CELLS // max(1, int(np.prod(tables.shape[1:]))))
    if len(tables) <= per:
        return values_at(tables)
    return np.concatenate([values_at(tables[i:i + per]) for i in range(0, len(tables), per)])


# ----------------------------------------------------------------------------- baselines


def baselines(data, measures=None, *, models=RANDOM_MODELS, sizes=None, positive=None, policy: str = "nan",
              costs=None, labels=None, n_samples: int = 2000, seed: int = 0, max_tables: int = 20000,
              predictors: bool = True) -> pd.DataFrame:
    """Every measure's value for trivial predictors and its expectation under random models.

    ``data``: Counts, Runs, a confusion tensor or the gold class sizes (K,). Only the gold
    class sizes matter. ``sizes``: predicted class sizes for ``fixed_sizes`` (default: the gold
    sizes). Returns a tidy frame ``measure``, ``baseline``, ``value``, ``se`` (0 where exact),
    ``method`` (``exact``, ``linear``, ``enumeration``, ``monte_carlo``) and ``note``.
    """
    a, labels = gold_sizes(data, labels)
    all_labels = list(labels)
    task = getattr(data, "n_task", None)
    if task is not None:   # a system with no skill predicts the task's classes, not another team's stray labels
        a, labels = a[:task], list(labels)[:task]
        costs = None if costs is None else np.asarray(costs, dtype=float)[:task, :task]
    K, n = len(a), int(a.sum())
    if n == 0:
        raise ValueError("no gold items: chance baselines are undefined")
    pos = resolve_positive(positive, labels, K) if positive is not None else None
    # measures bound to the task's classes (class subsets, gain matrix; measures/subsets.py)
    chosen = default_measures(positive=pos, costs=costs) if measures is None else [
        restrict(bind(m, all_labels), K) for m in measures]
    models = (models,) if isinstance(models, str) else tuple(models)
    for model in models:
        if model not in RANDOM_MODELS:
            raise ValueError(f"unknown random model {model!r}; choose from {', '.join(RANDOM_MODELS)}")
    b = _sizes(sizes, a, labels)
    rng = np.random.default_rng(seed)

    def values(m, tables):
        return blockwise(lambda t: compute(m, t, positive=pos, policy=policy, costs=costs, labels=labels,
                                           explain=False).value, tables)

    def values_of_all(ms, tables):
        """{id: values at ``tables``} of every measure, block by block: within a block the measures
        share its row and column sums (:func:`~evalreport.measures.shared_sums`)."""
        per = max(1, BLOCK_CELLS // max(1, int(np.prod(tables.shape[1:]))))
        parts = {m.id: [] for m in ms}
        for i in range(0, len(tables), per):
            block = np.asarray(tables[i:i + per], dtype=float)
            with shared_sums():
                for m in ms:
                    parts[m.id].append(compute(m, block, positive=pos, policy=policy, costs=costs, labels=labels,
                                               explain=False).value)
        return {k: np.concatenate(v) for k, v in parts.items()}

    rows: list[dict] = []
    if predictors:
        rows += _predictor_rows(chosen, a, labels, pos, values)
    for model in models:
        size = b if model == "fixed_sizes" else None
        probe = sample_tables(a, model, 16, np.random.default_rng([seed, 1, RANDOM_MODELS.index(model)]), sizes=size)
        expected = expected_table(a, model, sizes=size)
        # large tables: every measure's values at the probe tables in one pass over its blocks
        at_probe = values_of_all(chosen, probe) if probe[0].size > DISTINCT_CELLS else {}
        if at_probe and probe[0].size * (len(probe) + 6) > BLOCK_CELLS:
            # is_linear's large-table branch with the probe's values known: all measures at once
            linear = _linear_large(chosen, values, probe, rng, at_probe)
        else:
            linear = {m.id: is_linear(lambda t, m=m: values(m, t), probe, rng, at_tables=at_probe.get(m.id))
                      for m in chosen}
        del probe
        enumerated: tuple[np.ndarray, np.ndarray] | Literal[False] | None = None
        samples = None
        at_samples: dict[str, np.ndarray] = {}
        note_model = _model_note(model, b, labels)
        for m in chosen:
            if linear[m.id]:
                exact = float(values(m, expected[None])[0])
                rows.append(_row(m, model, exact, 0.0, "linear", note_model))
                continue
            if enumerated is None:
                enumerated = enumerate_tables(a, model, sizes=size, max_tables=max_tables) or False
            if enumerated:
                tables, w = enumerated
                v = values(m, tables)
                ok = np.isfinite(v)
                p_undef = float(w[~ok].sum())
                total = float(w[ok].sum())
                mean = float(np.sum(w[ok] * v[ok]) / total) if ok.any() and total > 0 else math.nan
                rows.append(_row(m, model, mean, 0.0, "enumeration", _join(note_model, _undef_note(p_undef))))
                continue
            if samples is None:
                n_eff = min(n_samples, max(MIN_SAMPLES, MAX_CELLS // (K * K)))
                samples = sample_tables(a, model, n_eff, np.random.default_rng([seed, 2, RANDOM_MODELS.index(model)]),
                                        sizes=size)
                # every measure still to come that needs them, in one pass over the blocks (the same
                # blocks and numbers as one measure at a time; the blocks' sums computed once)
                at_samples = values_of_all([x for x in chosen if not linear[x.id]], samples)
            v = at_samples[m.id]
            ok = np.isfinite(v)
            k = int(ok.sum())
            mean = float(v[ok].mean()) if k else math.nan
            se = float(v[ok].std(ddof=1) / math.sqrt(k)) if k > 1 else math.nan
            rows.append(_row(m, model, mean, se, "monte_carlo",
                             _join(note_model, f"{len(samples)} random tables, seed {seed}"
                                   + ("" if len(samples) == n_samples else f" (fewer than {n_samples} to fit memory "
                                                                          f"with {K} classes)"),
                                   _undef_note(1.0 - k / len(samples)))))
    return pd.DataFrame(rows, columns=COLUMNS)


def _predictor_rows(chosen, a, labels, pos, values) -> list[dict]:
    K = len(a)
    major = int(np.argmax(a))
    if K > MAX_CONSTANT_PREDICTORS:       # the largest and the smallest class stand for the K constants
        classes = sorted({major, int(np.argmin(a))})
        extra = f" (of the {K} constant predictors only the largest and the smallest class are listed)"
    else:
        classes, extra = list(range(K)), ""
    tables = constant_tables(a)[classes] if K <= MAX_CONSTANT_PREDICTORS else _constant_tables_of(a, classes)
    if K == 2 and pos is not None:
        names = {pos: "trivial_acceptor", 1 - pos: "trivial_rejector"}
    else:
        names = {j: f"constant:{labels[j]}" for j in classes}
    rows = []
    for m in chosen:
        v = dict(zip(classes, values(m, tables)))
        for j in classes:                     # loop over classes (rows of output)
            rows.append(_row(m, names[j], float(v[j]), 0.0, "exact", f"predicts {labels[j]} for every item"
                             + ("" if np.isfinite(v[j]) else "; undefined") + extra))
        rows.append(_row(m, "majority", float(v[major]), 0.0, "exact",
                         f"predicts the largest gold class, {labels[major]}"
                         + ("" if np.isfinite(v[major]) else "; undefined")))
    return rows


def _constant_tables_of(a, classes) -> np.ndarray:
    """Constant-predictor tables of the given classes only: (len(classes), K, K)."""
    a = np.asarray(a, dtype=float)
    out = np.zeros((len(classes), len(a), len(a)))
    for t, j in enumerate(classes):
        out[t, :, j] = a
    return out


def _model_note(model, b, labels) -> str:
    if model == "fixed_sizes":
        return "predicted class sizes " + ", ".join(f"{lab}={int(x)}" for lab, x in zip(labels, b))
    return ""


def _undef_note(p: float) -> str:
    if p <= 0:
        return ""
    return f"undefined in {100 * p:.3g}% of random tables; expectation over the defined ones"


def _join(*parts) -> str:
    return "; ".join(p for p in parts if p)


def _row(m, baseline, value, se, method, note) -> dict:
    return {"measure": m.id, "baseline": baseline, "value": value, "se": se, "method": method, "note": note}
