"""``compare_multilabel``: the comparison of multi-label systems, table by table.

The tables and their columns are those of :class:`evalreport.analyses.compare.Comparison` where
they apply (scores, ranks, rank_correlation, disagreements, inconsistency, baselines, intervals,
rank_distribution, pairwise, groups, leaderboard; notes and settings in the manifest), plus

``per_label``     system, label, support, precision, recall, f1, undefined (any of the three is 0/0)
``label_errors``  system, label, support, added (FP: predicted, not gold), dropped (FN: gold, not
                  predicted), best-first by added + dropped within each system
``cardinality``   source (gold or a system), role, items, cardinality (mean labels per item; Tsoumakas &
                  Katakis 2007's label cardinality), density (cardinality / the task's labels n_task: a
                  label only a system predicts is not in the denominator), empty (share of items with
                  the empty set), distinct_sets (distinct label sets): ranking-free statistics

Measures: example-based records and label-based averages (:mod:`evalreport.measures.multilabel`).
Resampling: a paired bootstrap over items (the same multinomial item weights for every system),
counted as matrix products (:func:`~evalreport.counts.multilabel.count_multilabel` with
``weights``); percentile intervals, rank distributions (the single-label helper
``_rank_probabilities``), paired bootstrap tests of the primary measure with Holm and
Benjamini-Hochberg corrections, and significance groups (:func:`~evalreport.analyses.significance.groups`).
``calibration``, ``calibration_summary``  prevalence calibration per label (Opitz 2022, eq. 5-6 on each
                  label's 2 x 2 matrix; :mod:`evalreport.analyses.multilabel_calibration` says what
                  it means for sets and which reference prevalence); ``scores`` keeps only raw rows
``tests``         approximate randomisation on the primary measure and McNemar's mid-p test on exact
                  match for every pair, Holm within each test (:mod:`evalreport.analyses.multilabel_tests`)
``audit``         the set properties of the example-based measures among ``measures``
                  (:func:`evalreport.analyses.audit.multilabel.audit_multilabel`; empty with ``audit=False``);
                  its EMPTY verdict is computed under ``policy``, the policy of the values
``example_skips`` per system and example-based measure, the items where it is 0/0 (left out under
                  policy ``nan``) and its value under scikit-learn's three ``zero_division`` readings
                  (:func:`evalreport.analyses.multilabel_skips.example_skips`)
``label_skips``   per system and label-based (macro, weighted) average, the labels where the per-label
                  value is 0/0 (:func:`evalreport.analyses.multilabel_label_skips.label_skips`)

Labels only predicted (``runs.n_task`` < L, read with ``allow_unknown=True``) are false positives
of the system that predicts them in the micro averages and the example-based measures; macro and
weighted averages run over the task's labels (:func:`~evalreport.measures.multilabel.label_based`),
and ``per_label`` marks them (``in_task`` False).

Chance baselines for sets (``baselines``): ``label_frequency`` (each label predicted independently
with its gold frequency: Monte Carlo mean over ``baseline_samples`` draws with ``seed``; ``se`` is
the Monte Carlo standard error), ``empty_set`` (every item gets the empty set: exact) and
``most_frequent_set`` (every item gets the most frequent gold label set, ties to the first in
NumPy's sorted order of the indicator rows: exact).
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import Mapping

import numpy as np
import pandas as pd

from evalreport.analyses import ranking
from evalreport.analyses.audit import COLUMNS as AUDIT_COLUMNS
from evalreport.analyses.audit.multilabel import audit_multilabel
from evalreport.analyses.compare import _EMPTY, _leaderboard
from evalreport.analyses.multilabel_calibration import calibration_tables
from evalreport.analyses.multilabel_label_skips import label_skips
from evalreport.analyses.multilabel_skips import example_skips
from evalreport.analyses.multilabel_tests import TEST_COLUMNS, paired_tests
from evalreport.analyses.resampling import _rank_probabilities
from evalreport.analyses.significance import benjamini_hochberg, bootstrap_p, groups as significance_groups, holm
from evalreport.counts.multilabel import count_multilabel
from evalreport.measures import get
from evalreport.measures.multilabel import compute_multilabel, label_record, label_values

__all__ = ["MULTILABEL_MEASURES", "ML_TABLES", "MultiLabelComparison", "compare_multilabel"]

#: The default measures of a multi-label comparison: the example-based ones and the usual
#: label-based averages (Gösgens et al. 2021, section 2).
MULTILABEL_MEASURES = ("f1_macro", "f1_micro", "f1_weighted", "precision_macro", "recall_macro",
                       "precision_micro", "recall_micro", "jaccard_macro", "mcc_macro", "subset_accuracy",
                       "hamming_loss", "example_precision", "example_recall", "example_f1", "example_jaccard")

ML_TABLES = ("scores", "ranks", "rank_correlation", "disagreements", "inconsistency", "baselines", "intervals",
             "rank_distribution", "pairwise", "groups", "leaderboard", "per_label", "label_errors", "cardinality",
             "calibration", "calibration_summary", "tests", "audit", "example_skips", "label_skips")


@dataclass(frozen=True)
class MultiLabelComparison:
    """All tables of one multi-label comparison (module docstring)."""

    primary: str
    measures: tuple[str, ...]
    systems: tuple[str, ...]
    labels: tuple[str, ...]
    scores: pd.DataFrame
    ranks: pd.DataFrame
    rank_correlation: pd.DataFrame
    disagreements: pd.DataFrame
    inconsistency: pd.DataFrame
    baselines: pd.DataFrame
    intervals: pd.DataFrame
    rank_distribution: pd.DataFrame
    pairwise: pd.DataFrame
    groups: pd.DataFrame
    leaderboard: pd.DataFrame
    per_label: pd.DataFrame
    label_errors: pd.DataFrame
    cardinality: pd.DataFrame
    calibration: pd.DataFrame
    calibration_summary: pd.DataFrame
    tests: pd.DataFrame
    audit: pd.DataFrame
    example_skips: pd.DataFrame
    label_skips: pd.DataFrame
    notes: tuple[str, ...] = ()
    settings: Mapping = field(default_factory=dict)
    samples: np.ndarray | None = field(default=None, repr=False, compare=False)   # (B, S, M) bootstrap values

    def tables(self) -> dict[str, pd.DataFrame]:
        return {name: getattr(self, name) for name in ML_TABLES}

    def manifest(self) -> dict:
        return {"task": "multilabel", "primary": self.primary, "measures": list(self.measures),
                "systems": list(self.systems), "labels": list(self.labels), "settings": dict(self.settings),
                "notes": list(self.notes),
                "files": [f"{n}.csv" for n in ML_TABLES] + [f"{n}.json" for n in ML_TABLES]}


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


def _values(measures, counts, policy, explain):
    return [compute_multilabel(m, counts, policy=policy, explain=explain) for m in measures]


def _direction(m) -> bool:
    return label_record(m).higher_is_better


def compare_multilabel(runs, *, measures=None, primary: str = "f1_macro", policy: str = "nan", bootstrap: int = 1000,
                       seed: int = 0, alpha: float = 0.05, progress=None, baseline_samples: int = 200,
                       block: int = 100, calibration_reference="uniform", randomization: int = 1000,
                       audit: bool = True) -> MultiLabelComparison:
    """Compare multi-label systems (``runs``: a :class:`~evalreport.inputs.multilabel.MultiLabelRuns`).

    ``measures``: ids (default :data:`MULTILABEL_MEASURES`); ``primary`` is always included and
    heads the leaderboard. ``bootstrap``: paired resamples over items (0 = none); ``block``:
    resamples counted at once; ``progress``: ``callable(done, total)`` after each block (bootstrap
    blocks, then randomisation pairs). ``calibration_reference``: ``"uniform"`` (0.5), ``"mean"``
    or a prevalence in (0, 1) (:mod:`~evalreport.analyses.multilabel_calibration`);
    ``randomization``: rounds R of the approximate randomisation test (0 = no randomisation
    rows; McNemar rows are always there); ``audit``: run the set-property audit of the
    example-based measures (``False``: an empty ``audit`` table).
    """
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must lie in (0, 1); got {alpha}")
    if bootstrap < 0:
        raise ValueError(f"bootstrap must be >= 0; got {bootstrap}")
    if randomization < 0:
        raise ValueError(f"randomization must be >= 0; got {randomization}")
    chosen, notes = _chosen(measures, primary)
    ids = [m.id for m in chosen]
    primary_id = ids[0]
    counts = count_multilabel(runs)
    systems, labels = counts.systems, counts.labels
    S, N = len(systems), counts.n_items
    results = _values(chosen, counts, policy, True)
    scores = pd.DataFrame({
        "system": np.tile(np.asarray(systems, dtype=object), len(chosen)),
        "measure": np.repeat(np.asarray(ids, dtype=object), S),
        "value": np.concatenate([r.value for r in results]),
        "calibrated": False,
        "undefined": np.concatenate([r.undefined for r in results]),
        "reason": np.concatenate([r.reason for r in results]),
    })
    directions = {m.id: _direction(m) for m in chosen}
    ranks = ranking.rank(scores, higher_is_better=directions)[
        ["system", "measure", "rank", "calibrated", "value", "tied", "nan_last"]]
    corr = ranking.rank_correlation(scores, higher_is_better=directions)
    disagree = ranking.disagreements(scores, calibrated=False, higher_is_better=directions)
    incons = ranking.inconsistency(scores, calibrated=False, higher_is_better=directions)
    calibration, calibration_summary, pi = calibration_tables(counts, chosen, reference=calibration_reference,
                                                              policy=policy)
    notes.append(f"prevalence calibration per label (Opitz (2022), eq. 5-6 on each label's 2 x 2 matrix) to the reference "
                 f"prevalence {pi:.6g} ({calibration_reference}): tables calibration and calibration_summary; "
                 "scores holds raw values only")

    intervals = pd.DataFrame(columns=[*_EMPTY["intervals"], "se", "nan_fraction"])
    rank_dist = pd.DataFrame(columns=_EMPTY["rank_distribution"])
    pairwise = pd.DataFrame(columns=[*_EMPTY["pairwise"], "difference", "n_resamples", "detail"])
    groups = pd.DataFrame(columns=_EMPTY["groups"])
    samples = None
    if bootstrap == 0:
        notes.append("no bootstrap requested (bootstrap = 0): no intervals, rank distributions or bootstrap tests")
    else:
        samples = _bootstrap(runs, chosen, bootstrap, seed, policy, N, block, progress)      # (B, S, M)
        point = np.stack([r.value for r in results], axis=-1)                                # (S, M)
        intervals, rank_dist = _intervals(samples, point, systems, chosen, alpha)
        if S > 1:
            pairwise = _pairwise(samples[..., 0], point[:, 0], systems, primary_id, directions[primary_id])
            order = ranks[ranks["measure"] == primary_id].sort_values("rank", kind="stable")["system"].tolist()
            groups = significance_groups(pairwise, alpha=alpha, test="bootstrap", order=order)
        notes.append(f"intervals: {bootstrap} paired bootstrap resamples over items, percentile "
                     f"{100 * (1 - alpha):g}% intervals, seed {seed}; pairwise: paired bootstrap test of "
                     f"{primary_id} (the randomisation and McNemar tests: table tests)")
    point_primary = results[0].value
    tests = paired_tests(runs, chosen[0], point_primary, rounds=randomization, seed=seed, alpha=alpha, policy=policy,
                         pairwise=pairwise) if S > 1 else pd.DataFrame(columns=TEST_COLUMNS)
    examples = [m for m in chosen if m.kind == "example"]
    audit_table = audit_multilabel(examples, empty_policy=policy) if audit and examples else \
        pd.DataFrame(columns=AUDIT_COLUMNS)
    board = _leaderboard(primary_id, ranks, intervals, rank_dist, groups)
    base = _baselines(runs, chosen, policy, seed, baseline_samples)
    per_label, label_errors = _per_label(counts, policy)
    settings = {"primary": primary_id, "policy": policy, "bootstrap": bootstrap, "seed": seed, "alpha": alpha,
                "pairwise_test": "bootstrap", "baseline_samples": baseline_samples, "input": "multilabel runs",
                "items": N, "labels": len(labels), "n_task": counts.n_task,
                "calibration_reference": calibration_reference if isinstance(calibration_reference, str)
                else float(calibration_reference), "calibration_prevalence": pi, "randomization_rounds": randomization,
                "audit": bool(audit)}
    return MultiLabelComparison(
        primary=primary_id, measures=tuple(ids), systems=tuple(systems), labels=tuple(labels), scores=scores,
        ranks=ranks, rank_correlation=corr, disagreements=disagree, inconsistency=incons, baselines=base,
        intervals=intervals, rank_distribution=rank_dist, pairwise=pairwise, groups=groups, leaderboard=board,
        per_label=per_label, label_errors=label_errors, cardinality=_cardinality(runs), calibration=calibration,
        calibration_summary=calibration_summary, tests=tests, audit=audit_table,
        example_skips=example_skips(counts, chosen, policy=policy),
        label_skips=label_skips(None, ids, policy=policy, counts=counts), notes=tuple(notes), settings=settings,
        samples=samples)


def _bootstrap(runs, chosen, B, seed, policy, N, block, progress) -> np.ndarray:
    """``(B, S, M)`` measure values on B paired bootstrap resamples of the items."""
    rng = np.random.default_rng(seed)
    out = []
    done = 0
    while done < B:
        b = min(block, B - done)
        weights = rng.multinomial(N, np.full(N, 1.0 / N), size=b).astype(float)       # (b, N)
        counts = count_multilabel(runs, weights)
        out.append(np.stack([r.value for r in _values(chosen, counts, policy, False)], axis=-1))
        done += b
        if progress is not None:
            progress(done, B)
    return np.concatenate(out, axis=0)


def _intervals(samples, point, systems, chosen, alpha):
    B, S, M = samples.shape
    nan = np.isnan(samples)
    defined = (~nan).sum(axis=0)
    with np.errstate(all="ignore"), warnings.catch_warnings():     # all-NaN columns: NaN, not a warning
        warnings.simplefilter("ignore", RuntimeWarning)
        lo, hi = np.nanquantile(samples, [alpha / 2, 1 - alpha / 2], axis=0)
        se = np.nanstd(samples, axis=0, ddof=1) if B > 1 else np.full((S, M), np.nan)
    se = np.where(defined > 1, se, np.nan)
    sys_ = np.asarray(systems, dtype=object)
    ids = np.asarray([m.id for m in chosen], dtype=object)
    intervals = pd.DataFrame({"system": np.tile(sys_, M), "measure": np.repeat(ids, S), "value": point.T.ravel(),
                              "lo": lo.T.ravel(), "hi": hi.T.ravel(), "se": se.T.ravel(),
                              "nan_fraction": (nan.sum(axis=0) / B).T.ravel()})
    probs = np.stack([_rank_probabilities(samples[:, :, j], _direction(m)) for j, m in enumerate(chosen)])
    rank_dist = pd.DataFrame({"system": np.tile(np.repeat(sys_, S), M), "measure": np.repeat(ids, S * S),
                              "rank": np.tile(np.arange(1, S + 1), S * M), "probability": probs.ravel()})
    return intervals, rank_dist


def _pairwise(samples, value, systems, measure, higher) -> pd.DataFrame:
    """Paired bootstrap test of every pair (a before b in system order) on the primary measure:
    the two-sided p-value of :func:`evalreport.analyses.significance.bootstrap_p`, Holm and BH across pairs."""
    S = len(systems)
    a, b = np.triu_indices(S, 1)
    sign = 1.0 if higher else -1.0
    observed = sign * (value[a] - value[b])
    d = sign * (samples[:, a] - samples[:, b])
    p, n, _ = bootstrap_p(d, observed)
    names = np.asarray(systems, dtype=object)
    return pd.DataFrame({"system_a": names[a], "system_b": names[b], "measure": measure, "test": "bootstrap",
                         "statistic": observed, "difference": observed, "p_value": p, "p_holm": holm(p),
                         "p_bh": benjamini_hochberg(p), "n_resamples": n.astype(np.int64),
                         "detail": "paired bootstrap over items, normal approximation"})


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
        vals = []
        step = max(1, 2**22 // max(N * L, 1))
        for s0 in range(0, n_samples, step):
            k = min(step, n_samples - s0)
            vals.append(np.stack(score(rng.random((k, N, L)) < freq, "draw"), axis=-1))   # (k, M)
        vals = np.concatenate(vals, axis=0)
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
    return pd.DataFrame(rows, columns=_EMPTY["baselines"])


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
