"""Label sets in the comparison engine: :class:`LabelSetDesign` and :func:`compare_sets`.

:func:`evalreport.analyses.compare.compare` hands a
:class:`~evalreport.inputs.multilabel.MultiLabelRuns` to :func:`compare_sets`, which returns a
:class:`~evalreport.analyses.compare.Comparison` of ``kind = "multilabel"``: the common tables with
their single-label columns (``calibration_correlation`` empty: calibration is per label here), and
in ``extra``

``per_label``     system, label, support, precision, recall, f1, undefined (any of the three is 0/0)
``label_errors``  system, label, support, added (FP), dropped (FN), most first within each system
``cardinality``   source (gold or a system), role, items, cardinality (mean labels per item; Tsoumakas &
                  Katakis 2007), density (cardinality / n_task), empty (share of empty sets), distinct_sets
``calibration``, ``calibration_summary``  per-label prevalence calibration (Opitz 2022, eq. 5-6;
                  :mod:`evalreport.analyses.multilabel_calibration`); ``scores`` keeps only raw rows
``audit``         the set properties of the example-based measures among ``measures``
                  (:func:`evalreport.analyses.audit.multilabel.audit_multilabel`), EMPTY under ``policy``
``example_skips`` per system and example-based measure, the 0/0 items and scikit-learn's three
                  ``zero_division`` readings (:mod:`evalreport.analyses.multilabel_skips`)
``label_skips``   per system and label-based average, the 0/0 labels
                  (:mod:`evalreport.analyses.multilabel_label_skips`)

Resampling (:class:`LabelSetDesign`): a paired bootstrap over items counted as matrix products
(:func:`~evalreport.counts.multilabel.count_multilabel` with ``weights``); randomisation rounds swap
the two systems' predicted sets per item (:func:`~evalreport.counts.multilabel.count_swapped`);
McNemar's test counts exact matches. Intervals, ranks, tests and groups are the engine's.

Labels only a system predicts (``runs.n_task`` < L) are its false positives in the micro averages and
the example-based measures; macro and weighted averages run over the task's labels, and ``per_label``
marks them (``in_task`` False).

Chance baselines: ``label_frequency`` (each label drawn with its gold frequency; Monte Carlo mean over
``baseline_samples`` draws, ``se`` its standard error), ``empty_set`` and ``most_frequent_set`` (ties
to the first in NumPy's sorted order of the indicator rows), both exact.
"""
from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from evalreport.analyses import ranking
from evalreport.analyses.audit import COLUMNS as AUDIT_COLUMNS
from evalreport.analyses.audit.multilabel import audit_multilabel
from evalreport.analyses.compare import EMPTY_COLUMNS, TABLES, Comparison, leaderboard_table
from evalreport.analyses.engine import Progress, resampled
from evalreport.analyses.multilabel_calibration import calibration_tables
from evalreport.analyses.multilabel_label_skips import label_skips
from evalreport.analyses.multilabel_skips import example_skips
from evalreport.counts.multilabel import count_multilabel, count_swapped, item_features
from evalreport.inputs.settings import DEFAULT_BASELINE_SAMPLES, DEFAULT_PRIMARY, Settings
from evalreport.measures import get
from evalreport.measures.multilabel import compute_multilabel, label_record, label_values

__all__ = ["MULTILABEL_MEASURES", "EXTRA_TABLES", "ML_TABLES", "LabelSetDesign", "compare_sets"]

#: The default measures of a multi-label comparison: the example-based ones and the usual
#: label-based averages (Gösgens et al. 2021, section 2).
MULTILABEL_MEASURES = ("f1_macro", "f1_micro", "f1_weighted", "precision_macro", "recall_macro",
                       "precision_micro", "recall_micro", "jaccard_macro", "mcc_macro", "subset_accuracy",
                       "hamming_loss", "example_precision", "example_recall", "example_f1", "example_jaccard")

#: The tables only label sets have (:attr:`Comparison.extra`).
EXTRA_TABLES = ("per_label", "label_errors", "cardinality", "calibration", "calibration_summary", "audit",
                "example_skips", "label_skips")
#: Every table of a label-set comparison.
ML_TABLES = (*TABLES, *EXTRA_TABLES)


class LabelSetDesign:
    """Label sets for the comparison engine (:class:`evalreport.analyses.engine.Design`).

    Parameters
    ----------
    runs : MultiLabelRuns
        ``gold (N, L)`` and ``pred (S, N, L)`` indicator matrices with labels and systems.
    policy : str
        The 0/0 policy of the values.
    block : int
        Bootstrap resamples counted at once (the draws, so the results, do not depend on it).
    """

    kind = "multilabel"
    mcnemar_measure = "subset_accuracy"
    interval_columns: dict = {}

    def __init__(self, runs, *, policy: str = "nan", block: int = 100) -> None:
        self.runs = runs
        self.counts = count_multilabel(runs)
        self.systems = tuple(self.counts.systems)
        self.n_items = int(self.counts.n_items)
        self.policy = policy
        self.block = int(block)

    def streams(self, seed: int) -> tuple[np.random.Generator, np.random.Generator]:
        """``default_rng(seed)`` for the bootstrap, ``default_rng([seed, 2])`` for the randomisation test."""
        return np.random.default_rng(seed), np.random.default_rng([seed, 2])

    def direction(self, measure) -> bool:
        """Whether higher values are better, for label sets (:func:`~evalreport.measures.multilabel.label_record`)."""
        return label_record(get(measure)).higher_is_better

    def point(self, measures: Sequence) -> np.ndarray:
        """``(S, M)`` values on all items."""
        return np.stack([compute_multilabel(m, self.counts, policy=self.policy, explain=False).value
                         for m in measures], axis=-1)

    def resample(self, measures: Sequence, n_resamples: int, rng: np.random.Generator,
                 progress: Progress = None) -> np.ndarray:
        """``(B, S, M)`` values on B paired bootstrap resamples: multinomial item weights, counted
        as one matrix product per block of resamples."""
        N = self.n_items
        out = []
        done = 0
        while done < n_resamples:
            b = min(self.block, n_resamples - done)
            weights = rng.multinomial(N, np.full(N, 1.0 / N), size=b).astype(float)       # (b, N)
            counts = count_multilabel(self.runs, weights)
            out.append(np.stack([compute_multilabel(m, counts, policy=self.policy, explain=False).value
                                 for m in measures], axis=-1))
            done += b
            if progress is not None:
                progress(done, n_resamples)
        return np.concatenate(out, axis=0)

    def swap_differences(self, measure, first: np.ndarray, second: np.ndarray, rounds: int,
                         rng: np.random.Generator, progress: Progress = None) -> np.ndarray:
        """``(R, P)`` oriented differences after exchanging the two systems' predicted sets per item
        with probability 1/2 (one random bit per item whose sets differ: identical sets swap to
        themselves), counted by :func:`~evalreport.counts.multilabel.count_swapped`."""
        m = get(measure)
        sign = 1.0 if self.direction(m) else -1.0
        pred = np.asarray(self.runs.pred, dtype=bool)
        features = item_features(self.runs)
        out = np.empty((rounds, len(first)))
        for k, (i, j) in enumerate(zip(first, second)):
            items = np.flatnonzero((pred[i] != pred[j]).any(axis=-1))
            swaps = _coin_flips(rng, rounds, items.shape[0])
            counts = count_swapped(self.runs, int(i), int(j), swaps, items=items, features=features,
                                   example=m.kind == "example")
            v = compute_multilabel(m, counts, policy=self.policy, explain=False).value           # (R, 2)
            out[:, k] = sign * (v[:, 0] - v[:, 1])
            if progress is not None:
                progress(k + 1, len(first))
        return out

    def correct(self) -> tuple[np.ndarray, np.ndarray]:
        """``(S, N)`` exact matches (the predicted set is the gold set), each item counted once."""
        gold = np.asarray(self.runs.gold, dtype=bool)
        exact = (np.asarray(self.runs.pred, dtype=bool) == gold[None]).all(axis=-1)
        return exact, np.ones(exact.shape[1])


def _coin_flips(rng: np.random.Generator, rounds: int, n: int) -> np.ndarray:
    """``(rounds, n)`` fair 0/1 coins (uint8), one bit of the generator's raw 64-bit output each."""
    words = -(-rounds * n // 64)
    bits = np.unpackbits(rng.bit_generator.random_raw(words).view(np.uint8))
    return bits[:rounds * n].reshape(rounds, n)


def _chosen(measures, primary):
    """Records of the measures (primary first), one per quantity; refusals raise MeasureError."""
    ids = [primary, *(MULTILABEL_MEASURES if measures is None else measures)]
    out, seen, notes = [], {}, []
    for spec in ids:
        m = get(spec)
        rec = label_record(m)            # MeasureError with the reason for a record without a multi-label meaning
        key = rec.id
        if key in seen:
            if seen[key] != m.id and measures is not None:     # (the default list is no request to explain)
                notes.append(f"{m.id} is {seen[key]} for label sets (one quantity under two ids): computed once, "
                             f"as {seen[key]}")
            continue
        seen[key] = m.id
        out.append(m)
    return out, notes


def compare_sets(runs, settings: Settings | None = None, *, progress: Progress = None) -> Comparison:
    """Compare systems that predict label sets (what :func:`evalreport.analyses.compare.compare`
    does with a :class:`~evalreport.inputs.multilabel.MultiLabelRuns`).

    Parameters
    ----------
    runs : MultiLabelRuns
        Gold and predicted label sets.
    settings : Settings, optional
        ``primary`` defaults to ``f1_macro``, ``measures`` to :data:`MULTILABEL_MEASURES`,
        ``baseline_samples`` to 200 and ``randomization`` to ``bootstrap``;
        ``calibration_reference`` (:mod:`~evalreport.analyses.multilabel_calibration`) and
        ``audit`` (the set-property audit of the example-based measures) apply to label sets only.
    progress : callable, optional
        ``progress(done, total)`` after each block of resamples, then of randomisation pairs.

    Returns
    -------
    Comparison
        ``kind = "multilabel"``, the label-set tables in ``extra`` (module docstring).
    """
    s = Settings() if settings is None else settings
    policy, bootstrap, seed, alpha = s.policy, s.bootstrap, s.seed, s.alpha
    baseline_samples = DEFAULT_BASELINE_SAMPLES["multilabel"] if s.baseline_samples is None else s.baseline_samples
    rounds = bootstrap if s.randomization is None else s.randomization
    chosen, notes = _chosen(s.measures, s.primary or DEFAULT_PRIMARY["multilabel"])
    ids = [m.id for m in chosen]
    primary_id = ids[0]
    design = LabelSetDesign(runs, policy=policy)
    counts = design.counts
    systems, labels = design.systems, counts.labels
    S, N = len(systems), design.n_items
    results = [compute_multilabel(m, counts, policy=policy, explain=True) for m in chosen]
    scores = pd.DataFrame({
        "system": np.tile(np.asarray(systems, dtype=object), len(chosen)),
        "measure": np.repeat(np.asarray(ids, dtype=object), S),
        "value": np.concatenate([r.value for r in results]),
        "calibrated": False,
        "undefined": np.concatenate([r.undefined for r in results]),
        "reason": np.concatenate([r.reason for r in results]),
    })
    directions = {m.id: design.direction(m) for m in chosen}
    ranks = ranking.rank(scores, higher_is_better=directions)[
        ["system", "measure", "rank", "calibrated", "value", "tied", "nan_last"]]
    calibration, calibration_summary, pi = calibration_tables(counts, chosen, reference=s.calibration_reference,
                                                              policy=policy)
    notes.append(f"prevalence calibration per label (Opitz (2022), eq. 5-6 on each label's 2 x 2 matrix) to the "
                 f"reference prevalence {pi:.6g} ({s.calibration_reference}): tables calibration and "
                 "calibration_summary; scores holds raw values only")
    intervals = pd.DataFrame(columns=[*EMPTY_COLUMNS["intervals"], "se", "nan_fraction"])
    rank_dist = pd.DataFrame(columns=EMPTY_COLUMNS["rank_distribution"])
    pairwise = pd.DataFrame(columns=EMPTY_COLUMNS["pairwise"])
    groups = pd.DataFrame(columns=EMPTY_COLUMNS["groups"])
    samples = None
    if bootstrap == 0:
        notes.append("no resampling requested (bootstrap = 0): no intervals, rank distributions or significance tests")
    else:
        order = ranks[ranks["measure"] == primary_id].sort_values("rank", kind="stable")["system"].tolist()
        point = np.stack([r.value for r in results], axis=-1)                                # (S, M)
        boot = resampled(design, chosen, point, bootstrap=bootstrap, seed=seed, alpha=alpha, rounds=rounds,
                         pairwise_test=s.pairwise_test, order=order, progress=progress, margin=s.margin)
        intervals, rank_dist, pairwise, groups = boot.intervals, boot.rank_distribution, boot.pairwise, boot.groups
        samples = boot.samples
        notes += boot.notes
        notes.append(f"intervals: {bootstrap} paired bootstrap resamples over items, percentile "
                     f"{100 * (1 - alpha):g}% intervals, seed {seed}; pairwise: paired bootstrap and "
                     f"randomisation tests of {primary_id} ({rounds} rounds), McNemar's test on exact match")
    examples = [m for m in chosen if m.kind == "example"]
    per_label, label_errors = _per_label(counts, policy)
    extra = {"per_label": per_label, "label_errors": label_errors, "cardinality": _cardinality(runs),
             "calibration": calibration, "calibration_summary": calibration_summary,
             "audit": audit_multilabel(examples, empty_policy=policy) if s.audit and examples else
             pd.DataFrame(columns=AUDIT_COLUMNS),
             "example_skips": example_skips(counts, chosen, policy=policy),
             "label_skips": label_skips(None, ids, policy=policy, counts=counts)}
    record = {"primary": primary_id, "policy": policy, "bootstrap": bootstrap, "seed": seed, "alpha": alpha,
              "pairwise_test": s.pairwise_test, "baseline_samples": baseline_samples, "input": "multilabel runs",
              "items": N, "labels": len(labels), "n_task": counts.n_task,
              "calibration_reference": s.calibration_reference if isinstance(s.calibration_reference, str)
              else float(s.calibration_reference), "calibration_prevalence": pi, "randomization_rounds": rounds,
              "audit": bool(s.audit)}
    if s.slice_cols or runs.slices is not None:          # per-slice tables (analyses/slices.py)
        from evalreport.analyses.slices import label_set_slices

        slice_extra, slice_notes, slice_record = label_set_slices(runs, s, records=chosen, systems=systems,
                                                                  scores=scores)
        extra.update(slice_extra)
        notes += slice_notes
        record.update(slice_record)
    return Comparison(
        primary=primary_id, measures=tuple(ids), systems=tuple(systems), labels=tuple(labels), scores=scores,
        ranks=ranks, rank_correlation=ranking.rank_correlation(scores, higher_is_better=directions),
        calibration_correlation=pd.DataFrame(columns=["measure", "method", "value", "n_systems", "note"]),
        disagreements=ranking.disagreements(scores, calibrated=False, higher_is_better=directions),
        inconsistency=ranking.inconsistency(scores, calibrated=False, higher_is_better=directions),
        baselines=_baselines(runs, chosen, policy, seed, baseline_samples), intervals=intervals,
        rank_distribution=rank_dist, pairwise=pairwise, groups=groups,
        leaderboard=leaderboard_table(primary_id, ranks, intervals, rank_dist, groups, pairwise=pairwise,
                                      alpha=alpha, test=s.pairwise_test), notes=tuple(notes),
        settings=record, records=tuple(chosen), samples=samples, kind="multilabel", extra=extra)


def _baselines(runs, chosen, policy, seed, n_samples) -> pd.DataFrame:
    gold = np.asarray(runs.gold, dtype=bool)
    N, L = gold.shape
    labels = tuple(runs.labels)
    rows = []

    def score(pred, name):
        fake = _Runs(gold, pred, labels, tuple(f"{name}_{i}" for i in range(pred.shape[0])))
        c = count_multilabel(fake)
        return [compute_multilabel(m, c, policy=policy, explain=False).value for m in chosen]

    if n_samples > 0 and N > 0:
        rng = np.random.default_rng(seed)
        freq = gold.mean(axis=0)
        blocks = []
        step = max(1, 2**22 // max(N * L, 1))
        for s0 in range(0, n_samples, step):
            k = min(step, n_samples - s0)
            blocks.append(np.stack(score(rng.random((k, N, L)) < freq, "draw"), axis=-1))   # (k, M)
        vals = np.concatenate(blocks, axis=0)
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            mean = np.nanmean(vals, axis=0)
            se = np.nanstd(vals, axis=0, ddof=1) / np.sqrt(np.maximum((~np.isnan(vals)).sum(axis=0), 1))
        for j, m in enumerate(chosen):
            rows.append({"measure": m.id, "baseline": "label_frequency", "value": mean[j], "se": se[j],
                         "method": f"monte carlo ({n_samples} draws, seed {seed})",
                         "note": "each label predicted independently with its gold frequency"})
    empty = np.zeros((1, N, L), dtype=bool)
    for j, v in enumerate(score(empty, "empty")):
        rows.append({"measure": chosen[j].id, "baseline": "empty_set", "value": v[0], "se": 0.0, "method": "exact",
                     "note": "every item gets the empty set"})
    if N > 0:
        sets, freq = np.unique(gold, axis=0, return_counts=True)
        top = sets[int(np.argmax(freq))]
        named = "{" + ", ".join(str(labels[i]) for i in np.flatnonzero(top)) + "}"
        for j, v in enumerate(score(np.broadcast_to(top, (1, N, L)).copy(), "mfs")):
            rows.append({"measure": chosen[j].id, "baseline": "most_frequent_set", "value": v[0], "se": 0.0,
                         "method": "exact", "note": f"every item gets the most frequent gold set {named}"})
    return pd.DataFrame(rows, columns=EMPTY_COLUMNS["baselines"])


@dataclass(frozen=True)
class _Runs:
    gold: np.ndarray
    pred: np.ndarray
    labels: tuple
    systems: tuple


def _per_label(counts, policy):
    T = counts.label_tensor                      # (S, L, 2, 2)
    S, L = T.shape[:2]
    vals, undef = {}, np.zeros((S, L), dtype=bool)
    for name in ("precision", "recall", "f1"):
        vals[name], u = label_values(name, T, policy=policy)
        undef |= u
    sys_ = np.repeat(np.asarray(counts.systems, dtype=object), L)
    lab = np.tile(np.asarray(counts.labels, dtype=object), S)
    support = np.tile(counts.support, S)
    per_label = pd.DataFrame({"system": sys_, "label": lab, "support": support, **{k: v.ravel() for k, v in
                                                                                    vals.items()},
                              "undefined": undef.ravel(), "in_task": np.tile(np.arange(L) < counts.n_task, S)})
    errors = pd.DataFrame({"system": sys_, "label": lab, "support": support, "added": T[..., 0, 1].ravel(),
                           "dropped": T[..., 1, 0].ravel()})
    errors = errors.assign(_total=errors["added"] + errors["dropped"], _order=np.tile(np.arange(L), S))
    errors["system"] = pd.Categorical(errors["system"], categories=list(counts.systems), ordered=True)
    errors = errors.sort_values(["system", "_total", "_order"], ascending=[True, False, True], kind="stable")
    errors["system"] = errors["system"].astype(object)
    return per_label, errors.drop(columns=["_total", "_order"]).reset_index(drop=True)


def _cardinality(runs) -> pd.DataFrame:
    gold = np.asarray(runs.gold, dtype=bool)
    sets = np.concatenate([gold[None], np.asarray(runs.pred, dtype=bool)])       # (1 + S, N, L)
    N, L = gold.shape
    L = getattr(runs, "n_task", None) or L      # density over the task's labels, as the label averages
    sizes = sets.sum(axis=-1)
    distinct = [len(np.unique(x, axis=0)) if N else 0 for x in sets]
    with np.errstate(all="ignore"):
        mean = sizes.mean(axis=1) if N else np.full(len(sets), np.nan)
        empty = (sizes == 0).mean(axis=1) if N else np.full(len(sets), np.nan)
    return pd.DataFrame({"source": ["gold", *runs.systems], "role": ["gold"] + ["system"] * (len(sets) - 1),
                         "items": N, "cardinality": mean, "density": mean / L if L else np.nan, "empty": empty,
                         "distinct_sets": distinct})
