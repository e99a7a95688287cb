"""``compare``: every table of a comparison of systems, built once.

A :class:`Comparison` holds tidy frames (scores, ranks, correlations, disagreements, baselines,
intervals, rank distributions, pairwise tests, significance groups, leaderboard);
:func:`evalreport.report.write.write_comparison` writes them as CSV files plus JSON twins, whose
names and columns are part of the interface (docs/report.md#files lists them).

Intervals, rank distributions and pairwise tests come from the comparison engine
(:mod:`evalreport.analyses.engine`, with :class:`~evalreport.analyses.resampling.ConfusionDesign`)
and need item-level predictions (Runs) or the joint patterns of the items with counts
(:class:`~evalreport.counts.bigdata.PatternCounts`, resampled without expanding them to items); with
confusion-matrix input those files are written empty (with their columns) and the manifest's notes
say why. Label sets (:class:`~evalreport.inputs.multilabel.MultiLabelRuns`) give a
:class:`Comparison` of ``kind`` ``"multilabel"`` with the same tables plus its own in ``extra``
(:mod:`evalreport.analyses.multilabel`).
"""
from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from evalreport.analyses import ranking
from evalreport.analyses.baselines import baselines as chance_baselines
from evalreport.analyses.engine import PAIRWISE_COLUMNS, RANDOMIZATION_MAX_PAIRS, Progress, resampled  # noqa: F401
from evalreport.analyses.prevalence import PrevalenceWarning, calibrate
from evalreport.analyses.rank_intervals import rank_intervals
from evalreport.counts import Counts
from evalreport.errors import InputError, MeasureError
from evalreport.inputs.settings import DEFAULT_BASELINE_SAMPLES, DEFAULT_PRIMARY, Settings
from evalreport.measures import Measure, applicable, bind, catalogue, evaluate, get, resolve_positive
from evalreport.measures._core import unique
from evalreport.words import counted

__all__ = ["compare", "Comparison", "COMPARE_MEASURES", "comparison_measures", "TABLES",
           "EMPTY_COLUMNS", "as_counts", "leaderboard_table"]

#: The default measure set of a comparison: headline measures of the five papers, one per
#: distinct quantity (not every one-vs-rest average). balanced_accuracy is left out because it is
#: macro_recall (Opitz 2022, eq. 14-16) and micro_f1 because it is accuracy (Opitz 2022, App. A);
#: correlation_distance is a monotone transform of mcc, so it ranks identically (Gösgens et al. 2021, 5.1).
#: Sources: Opitz (2022), Gösgens et al. (2021), Sebastiani (2015).
COMPARE_MEASURES = (
    "accuracy",           # Opitz eq. 7, Gösgens et al. Table 1
    "macro_recall",       # Opitz eq. 8 (= balanced accuracy)
    "macro_precision",    # Opitz eq. 17
    "macro_f1",           # Opitz eq. 18 (scikit-learn's macro F1)
    "macro_f1_hm",        # Opitz eq. 20 (harmonic mean of macro P and macro R)
    "weighted_f1",        # Gösgens et al. section 2
    "gmean_recall",       # Opitz eq. 25
    "hmean_recall",       # Opitz Appendix G, Table 8
    "kappa",              # Opitz eq. 24
    "mcc",                # Opitz eq. 23
    "mcc_macro",          # Gösgens et al. Table 5 (CC macro)
    "sba",                # Gösgens et al. Table 1
    "gm1_macro",          # Gösgens et al. Table 6 (GM_1, macro-averaged)
    "jaccard_macro",      # Gösgens et al. Table 6 (J, macro-averaged)
    "k",                  # Sebastiani eq. 10
    "confusion_entropy",  # Gösgens et al. Table 1 (lower is better)
)

#: Binary measures added for the positive class when one is given.
POSITIVE_MEASURES = ("f1", "precision", "recall", "f_star")
#: Fewer paired bootstrap resamples than this get a warning note (the default is 1,000).
FEW_RESAMPLES = 100

TABLES = ("scores", "ranks", "rank_correlation", "calibration_correlation", "disagreements", "inconsistency",
          "baselines", "intervals", "rank_distribution", "pairwise", "groups", "leaderboard")

EMPTY_COLUMNS = {
    "intervals": ["system", "measure", "value", "lo", "hi"],
    "rank_distribution": ["system", "measure", "rank", "probability"],
    "pairwise": PAIRWISE_COLUMNS,
    "groups": ["system", "group", "leader", "letters"],
    "baselines": ["measure", "baseline", "value", "se", "method", "note"],
}


def comparison_measures(*, positive=None, costs=None, primary: str | None = None) -> list[str]:
    """The default measures of a comparison that apply to the data, with ``primary`` first."""
    ids = [m for m in COMPARE_MEASURES if applicable(m, positive=positive, costs=costs)[0]]
    if positive is not None:
        ids += list(POSITIVE_MEASURES)
    if primary is not None:
        p = get(primary).id
        ids = [p] + [m for m in ids if m != p]
    return ids


@dataclass(frozen=True)
class Comparison:
    """All tables of one comparison. Frames are tidy; see the module docstring for columns."""

    primary: str
    measures: tuple[str, ...]
    systems: tuple[str, ...]
    labels: tuple[str, ...]
    scores: pd.DataFrame
    ranks: pd.DataFrame
    rank_correlation: pd.DataFrame
    calibration_correlation: pd.DataFrame
    disagreements: pd.DataFrame
    inconsistency: pd.DataFrame
    baselines: pd.DataFrame
    intervals: pd.DataFrame
    rank_distribution: pd.DataFrame
    pairwise: pd.DataFrame
    groups: pd.DataFrame
    leaderboard: pd.DataFrame
    notes: tuple[str, ...] = ()
    settings: Mapping = field(default_factory=dict)
    #: The records of ``measures``, bound to the comparison's classes (class subsets) and gain matrix:
    #: analyses that follow (cross-validation, findings, the audit) take these, not the ids.
    records: tuple = ()
    #: The ``(B, S, M)`` values of the paired bootstrap resamples (systems and measures in the order of
    #: :attr:`systems` and :attr:`measures`; None without resampling): not a table, kept for the
    #: paired differences of the findings (:mod:`evalreport.analyses.findings`).
    samples: np.ndarray | None = field(default=None, repr=False, compare=False)
    #: ``"single"`` (single labels) or ``"multilabel"`` (label sets).
    kind: str = "single"
    #: Several runs per system: ``pair_test(measure, a, b)``, what the paired bootstrap test of a measure
    #: refers to (:meth:`evalreport.analyses.seeds.SeedsDesign.pair_test`), for the letters of the other
    #: measures (:mod:`evalreport.analyses.measure_letters`); None otherwise.
    pair_test: Callable | None = field(default=None, repr=False, compare=False)
    #: The tables only one kind of counts has, by name (label sets: per_label, label_errors,
    #: cardinality, calibration, calibration_summary, audit, example_skips, label_skips).
    extra: Mapping[str, pd.DataFrame] = field(default_factory=dict)

    def __getattr__(self, name: str):
        """An :attr:`extra` table read as an attribute (``comparison.per_label``)."""
        extra = self.__dict__.get("extra") or {}
        if name in extra:
            return extra[name]
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def record(self, measure_id: str):
        """The bound record of one of :attr:`measures`."""
        return next((m for m in self.records if m.id == measure_id), None) or get(measure_id)

    def tables(self) -> dict[str, pd.DataFrame]:
        """Every table by name (the file stems of its output folder): the common ones, then :attr:`extra`."""
        return {**{name: getattr(self, name) for name in TABLES}, **dict(self.extra)}

    def manifest(self) -> dict:
        """What the comparison is (kind, primary, measures, systems, labels, settings, notes) and its files."""
        names = list(self.tables())
        head = {"task": "multilabel"} if self.kind == "multilabel" else {}
        return {**head, "kind": self.kind, "primary": self.primary, "measures": list(self.measures),
                "systems": list(self.systems), "labels": list(self.labels), "settings": dict(self.settings),
                "notes": list(self.notes),
                "files": [f"{name}.csv" for name in names] + [f"{name}.json" for name in names]}




# ----------------------------------------------------------------------------- compare


def compare(data, settings: Settings | None = None, *, progress: Progress = None, **changes) -> Comparison:
    """Compare systems under every measure: scores, ranks, agreement and uncertainty as one object.

    Parameters
    ----------
    data : Runs, PatternCounts, Counts, array or MultiLabelRuns
        Item-level predictions (:class:`~evalreport.inputs.Runs`: everything, including intervals and
        tests), their patterns with counts (:class:`~evalreport.counts.bigdata.PatternCounts`: the
        same results without making the items), confusion matrices (:class:`~evalreport.counts.Counts`
        or a tensor: no resampling) or label sets (:func:`evalreport.analyses.multilabel.compare_sets`).
    settings : Settings, optional
        Every setting (:class:`~evalreport.inputs.settings.Settings`); ``**changes`` are shorthands
        for its fields (``bootstrap=300, seed=3``). ``primary`` (default ``macro_f1``) heads the
        leaderboard; ``measures`` default to :func:`comparison_measures`, bound to the data's classes
        and ``gains`` once (:func:`evalreport.measures.bind`); ``bootstrap = 0``: no resampling;
        ``randomization``: rounds of that test (default ``bootstrap``); ``pairwise_test``: the test
        whose Holm-corrected p-values make the letters; ``bootstrap_strata = "gold"``: resample within
        gold classes (resamples that lost a class are counted either way: a note,
        ``settings["bootstrap_class_absent"]``, the intervals' ``resamples_missing_class``).
    progress : callable, optional
        ``progress(done, total)`` after each block of resamples, then of randomisation rounds.

    Returns
    -------
    Comparison
        ``kind`` ``"single"`` or ``"multilabel"``.

    Examples
    --------
    >>> import evalreport
    >>> runs = evalreport.read_runs("examples/stance/gold.tsv", runs_dir="examples/stance/runs")
    >>> cmp = evalreport.compare(runs, evalreport.Settings(bootstrap=50, primary="k"))
    >>> list(cmp.leaderboard["system"])[:2]
    ['bert', 'svm']
    """
    from evalreport.inputs.multilabel import MultiLabelRuns

    settings = Settings.coerce(settings, **changes)
    if isinstance(data, MultiLabelRuns) and settings.cluster_col:
        raise InputError(f"--cluster-col {settings.cluster_col}: clustered resampling is built for single-label "
                         "runs; label sets (multi-label gold) cannot be resampled by clusters yet")
    if isinstance(data, MultiLabelRuns):
        from evalreport.analyses.multilabel import compare_sets

        return compare_sets(data, settings, progress=progress)
    from evalreport.analyses.gold import with_gold

    return with_gold(_compare_labels(data, settings, progress), data, settings)


def _compare_labels(data, s: Settings, progress: Progress) -> Comparison:
    """:func:`compare` of single-label data."""
    from evalreport.inputs.runs import Runs

    measures, policy, costs, gains, bootstrap, seed, alpha = (s.measures, s.policy, s.costs, s.gains, s.bootstrap,
                                                              s.seed, s.alpha)
    primary, positive, pairwise_test = s.primary or DEFAULT_PRIMARY["single"], s.positive, s.pairwise_test
    baseline_samples = DEFAULT_BASELINE_SAMPLES["single"] if s.baseline_samples is None else s.baseline_samples
    bootstrap_strata = s.bootstrap_strata
    from evalreport.analyses.designs import choose_design

    choice = choose_design(data, s)
    runs, run_system = choice.runs, choice.run_system
    counts = as_counts(data).pooled()
    labels, systems = counts.labels, counts.systems
    K = len(labels)
    pos = resolve_positive(positive, labels, K, n_task=getattr(counts, "n_task", None)) if positive is not None else None
    # score-based measures (analyses/score_compare.py): computed and resampled beside the confusion ones
    from evalreport.analyses.score_compare import design_notes, score_plan, with_score_seeds
    from evalreport.analyses.score_design import with_strata
    from evalreport.measures.scores import is_score_measure

    plan = score_plan(runs if isinstance(runs, Runs) else None, primary, measures, pos)
    if plan is not None and plan.primary is not None:
        primary = DEFAULT_PRIMARY["single"]          # the confusion measures' first; the leaderboard is plan's
    if measures is not None:
        measures = tuple(m for m in measures if not is_score_measure(m))
    primary_m = bind(primary, labels, gains=gains)
    ok, why = applicable(primary_m, positive=pos, costs=costs)
    if not ok:
        raise MeasureError(f"primary measure {primary_m.id!r}: {why}")
    if measures is None:
        chosen: list[str | Measure] = [primary_m, *comparison_measures(positive=pos, costs=costs,
                                                                        primary=primary_m.id)[1:]]
        if gains is not None:        # the gain measures of a gain matrix given
            chosen += [m.id for m in catalogue() if "gains" in m.needs and m.id != primary_m.id]
    else:
        chosen = [primary_m, *(bind(m, labels, gains=gains) for m in measures)]
    notes: list[str] = []
    # one column per quantity: an alias next to its record (f1_macro, macro_f1) would be counted
    # twice in the rank correlations and the inconsistency rates
    kept = unique(chosen, by_quantity=True)
    for m in unique(chosen):
        if m.id not in {k.id for k in kept}:
            same = next(k for k in kept if (k.alias_of or k.id) == (m.alias_of or m.id))
            notes.append(f"{m.id} is {same.id} (one quantity under two ids): computed once, as {same.id}")
    records = [bind(m, labels, gains=gains) for m in kept]
    ids = [m.id for m in kept]

    # scores, raw and prevalence-calibrated (Opitz 2022, eq. 6)
    raw = evaluate(counts, records, positive=pos, policy=policy, costs=costs).assign(calibrated=False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", PrevalenceWarning)
        calibrated_counts = calibrate(counts)
    notes += [f"prevalence calibration: {w.message}" for w in caught if issubclass(w.category, PrevalenceWarning)]
    cal = evaluate(calibrated_counts, records, positive=pos, policy=policy, costs=costs).assign(calibrated=True)
    scores = pd.concat([raw, cal], ignore_index=True)[
        ["system", "measure", "value", "calibrated", "undefined", "reason"]]
    run_scores = scores
    if run_system is not None:        # a system's value is the mean of the measure over its runs
        from evalreport.analyses.seeds import system_scores

        systems = tuple(dict.fromkeys(run_system))
        scores = system_scores(scores, dict(zip(counts.systems, run_system)), systems)
    score_run_rows = None
    if plan is not None:
        score_run_rows = plan.score_rows(policy)
        score_rows = score_run_rows
        if run_system is not None:        # as the confusion measures: the mean over the system's runs
            from evalreport.analyses.seeds import system_scores

            score_rows = system_scores(score_run_rows, dict(zip(plan.sc.systems, run_system)), systems)
        scores = pd.concat([scores, score_rows], ignore_index=True)
        notes += plan.notes

    ranks = ranking.rank(scores)[["system", "measure", "rank", "calibrated", "value", "tied", "nan_last"]]
    corr = ranking.rank_correlation(scores)
    cal_corr = ranking.calibration_correlation(scores)
    disagree = ranking.disagreements(scores, calibrated=False)
    incons = ranking.inconsistency(scores, calibrated=False)

    try:
        base = chance_baselines(counts, records, positive=pos, policy=policy, costs=costs, seed=seed,
                                    n_samples=baseline_samples)
    except ValueError as exc:
        base = pd.DataFrame(columns=EMPTY_COLUMNS["baselines"])
        notes.append(f"chance baselines not computed: {exc}")
    if plan is not None:
        base = pd.concat([base, plan.baselines()], ignore_index=True) if len(base) else plan.baselines()
    final_primary = plan.primary.id if plan is not None and plan.primary is not None else primary_m.id
    score_samples = None
    pair_tests: list[Callable] = []          # several runs: the designs' paired tests (labels, scores)

    extra: dict[str, pd.DataFrame] = {}
    intervals = pd.DataFrame(columns=EMPTY_COLUMNS["intervals"])
    rank_dist = pd.DataFrame(columns=EMPTY_COLUMNS["rank_distribution"])
    pairwise = pd.DataFrame(columns=EMPTY_COLUMNS["pairwise"])
    groups = pd.DataFrame(columns=EMPTY_COLUMNS["groups"])
    if bootstrap == 0:
        notes.append("no resampling requested (bootstrap = 0): no intervals, rank distributions or significance tests")
    elif runs is None:
        notes.append("confusion-matrix input: intervals, rank distributions and significance tests need item-level "
                     "predictions and are not available")
    else:
        from evalreport.analyses.resampling import lost_classes_sentence

        # several runs per system: the two-level design around the runs' design
        design, used = choice.build(positive=pos, policy=policy, costs=costs, strata=bootstrap_strata)
        seeds = used if run_system is not None else None
        if seeds is not None:
            if pairwise_test not in seeds.tests:
                notes.append(f"with several runs per system the letters come from the paired bootstrap test, "
                             f"not {pairwise_test} (it compares one prediction per item)")
                pairwise_test = "bootstrap"
        order = ranks[(ranks["measure"] == primary_m.id) & ~ranks["calibrated"].astype(bool)]
        order = order.sort_values("rank", kind="stable")["system"].tolist()
        rounds = bootstrap if s.randomization is None else s.randomization
        boot = resampled(used, records, used.point(records), bootstrap=bootstrap, seed=seed, alpha=alpha,
                         rounds=rounds, pairwise_test=pairwise_test, order=order, progress=progress,
                         margin=s.margin)
        if seeds is not None:
            pair_tests.append(seeds.kept_pair_test())
        intervals, rank_dist, pairwise, groups = boot.intervals, boot.rank_distribution, boot.pairwise, boot.groups
        if run_system is not None and design.clusters is not None:      # runs, then whole clusters
            from evalreport.analyses.seed_clusters import SEEDS_CLUSTERS_NOTE

            notes.append(SEEDS_CLUSTERS_NOTE)
        elif run_system is not None:
            notes.append("several runs per system: two-level bootstrap (each resample draws every system's runs "
                         "with replacement, then the items, paired across every run; the run draws rescaled for few "
                         "runs); values are means over runs")
        notes += boot.notes
        if design.clusters is not None and seeds is not None:       # the design effect of one run, per system
            from evalreport.analyses.seed_clusters import seeds_cluster_tables

            extra, cluster_note = seeds_cluster_tables(seeds, records[0], bootstrap, seed)
            notes.append(f"intervals: {bootstrap} two-level bootstrap resamples over runs, then whole clusters, "
                         f"percentile {100 * (1 - alpha):g}% intervals, seed {seed}; {cluster_note}")
        elif design.clusters is None:
            over = "runs, then items" if run_system is not None else "items"     # the two-level bootstrap
            notes.append(f"intervals: {bootstrap} paired bootstrap resamples over {over}, percentile "
                         f"{100 * (1 - alpha):g}% intervals, seed {seed}"
                         + (", within gold classes (stratified)" if bootstrap_strata else ""))
        else:
            extra, cluster_note = _cluster_tables(design, records[0], boot.samples[:, :, 0], bootstrap, seed)
            notes.append(f"intervals: {bootstrap} paired bootstrap resamples over whole clusters, percentile "
                         f"{100 * (1 - alpha):g}% intervals, seed {seed}; {cluster_note}")
        if bootstrap < FEW_RESAMPLES:
            # the ends of a 95% percentile interval are the 2.5% and 97.5% points of the resamples
            notes.append(f"warning: only {counted(bootstrap, 'bootstrap resample')}, too few for {100 * (1 - alpha):g}% "
                         "intervals, P(best) and p-values (their ends and probabilities move from seed to seed; 1,000 "
                         "or more are usual)")
        lost = lost_classes_sentence(design.class_absent, design.n_missing_class, bootstrap)
        if lost:
            notes.append(lost.rstrip("."))           # notes carry no final full stop
        if plan is not None:
            s_order = ranks[(ranks["measure"] == final_primary) & ~ranks["calibrated"].astype(bool)]
            s_order = s_order.sort_values("rank", kind="stable")["system"].tolist() or order
            sboot, snotes = plan.resample(bootstrap=bootstrap, seed=seed, alpha=alpha, rounds=rounds,
                                          pairwise_test=pairwise_test, order=s_order, policy=policy,
                                          margin=s.margin, design=with_strata(choice.build_scores(plan.sc, policy=policy),
                                                                            bootstrap_strata))
            snotes = design_notes(choice, plan.ids) + snotes
            if design.clusters is not None and seeds is not None:
                from evalreport.analyses.seed_clusters import seeds_score_design_effect

                score_design = seeds_score_design_effect(plan, bootstrap=bootstrap, seed=seed, policy=policy)
                if score_design is not None:
                    extra = {**extra, "design": score_design}
            elif design.clusters is not None:
                score_design = plan.design_effect(sboot.samples[:, :, 0], bootstrap=bootstrap, seed=seed,
                                                  policy=policy)
                if score_design is not None:      # the leaderboard's measure is score-based: its design effect
                    extra = {**extra, "design": score_design}
            intervals = pd.concat([intervals, sboot.intervals], ignore_index=True)
            rank_dist = pd.concat([rank_dist, sboot.rank_distribution], ignore_index=True)
            if plan.primary is not None:
                pairwise, groups = sboot.pairwise, sboot.groups
            # DeLong's test: one score per item and system, independent items
            delong = plan.delong() if run_system is None and not choice.clustered else None
            if delong is not None:
                pairwise = pd.concat([pairwise, delong], ignore_index=True)
            notes += sboot.notes + snotes
            score_samples = sboot.samples
            if run_system is not None and hasattr(plan.design, "kept_pair_test"):
                pair_tests.append(plan.design.kept_pair_test())
        if not isinstance(runs, Runs):
            notes.append("resampled from item patterns counted out of core: the same bootstrap distribution as "
                         "in memory, but the patterns come in another order, so for the same seed the intervals, "
                         "rank probabilities and p-values are another Monte-Carlo draw (they agree within "
                         "Monte-Carlo error, not digit for digit); point values and ranks are identical")

    board = leaderboard_table(final_primary, ranks, intervals, rank_dist, groups, pairwise=pairwise, alpha=alpha,
                              test=pairwise_test)
    settings: dict[str, object] = {
        "primary": final_primary, "positive": None if pos is None else labels[pos], "policy": policy,
        "bootstrap": bootstrap, "seed": seed, "alpha": alpha, "pairwise_test": pairwise_test,
        "baseline_samples": baseline_samples, "costs": costs is not None, "gains": gains is not None,
        "input": "confusion matrices" if runs is None else "runs" if isinstance(runs, Runs) else "patterns"}
    if bootstrap_strata:                      # only when given: manifests of earlier runs stay as they were
        settings["bootstrap_strata"] = bootstrap_strata
    if s.randomization is not None:
        settings["randomization"] = s.randomization
    if s.margin is not None:                  # only when given, as bootstrap_strata
        settings["margin"] = s.margin
    if len(intervals) and design.clusters is not None:          # only with clusters: other manifests stay
        settings["cluster_col"] = design.cluster_col
        settings["n_clusters"] = design.clusters.n_clusters
    if len(intervals) and design.n_missing_class:
        settings["bootstrap_class_absent"] = dict(design.class_absent)
        settings["bootstrap_missing_class"] = design.n_missing_class
    if run_system is not None:
        from evalreport.analyses.seeds import seeds_extra

        extra = {**extra, **seeds_extra(runs, run_scores, records, intervals,
                                        design=seeds if len(intervals) else None, settings=s, positive=pos)}
        settings["runs_per_system"] = {k: run_system.count(k) for k in systems}
        if plan is not None and score_run_rows is not None:
            extra = with_score_seeds(extra, plan, score_run_rows, intervals, run_system, s)
    if s.slice_cols or getattr(runs, "slices", None):        # per-slice tables (analyses/slices.py)
        from evalreport.analyses.slices import single_label_slices

        slice_extra, slice_notes, slice_settings = single_label_slices(choice, s, records=records, plan=plan,
                                                                       systems=systems, scores=scores, positive=pos)
        extra = {**extra, **slice_extra}
        notes += slice_notes
        settings.update(slice_settings)
    samples = boot.samples if len(intervals) else None
    if plan is not None:             # score ids after the confusion ids; a score primary first
        order_ids = ids + plan.ids
        ids = [final_primary] + [i for i in order_ids if i != final_primary]
        if samples is not None and score_samples is not None:
            both = np.concatenate([samples, score_samples], axis=-1)
            samples = both[:, :, [order_ids.index(i) for i in ids]]
        extra = {**extra, **plan.curves(run_system)}
    return Comparison(primary=final_primary, measures=tuple(ids), systems=tuple(systems), labels=tuple(labels),
                      scores=scores, ranks=ranks, rank_correlation=corr, calibration_correlation=cal_corr,
                      disagreements=disagree, inconsistency=incons, baselines=base, intervals=intervals,
                      rank_distribution=rank_dist, pairwise=pairwise, groups=groups, leaderboard=board,
                      notes=tuple(notes), settings=settings, records=tuple(records),
                      samples=samples, kind="single", extra=extra,
                      pair_test=_first_answer(pair_tests) if pair_tests else None)


def _cluster_tables(design, primary: Measure, values: np.ndarray, bootstrap: int,
                    seed: int) -> tuple[dict[str, pd.DataFrame], str]:
    """The ``design`` table of a clustered comparison (the primary measure's design effect) and its note."""
    from evalreport.analyses.clusters import ITEM_RESAMPLES, design_effect, few_clusters_warning, item_stream

    n_item = min(bootstrap, ITEM_RESAMPLES)
    items = design.resample_items([primary], n_item, item_stream(seed))[:, :, 0]
    table = design_effect(values, items, design.systems, primary.id, design.clusters, design.cluster_col)
    plan = design.clusters
    note = (f"{plan.n_clusters:,} clusters (gold column {design.cluster_col!r}, {plan.sizes.mean():.1f} items on "
            f"average) resampled within folds, the same clusters for every system; the randomisation test swaps "
            f"whole clusters and McNemar's test is the clustered test of Durkalski et al. (2003); design effects "
            f"(design.csv) against {n_item} item resamples")
    note += few_clusters_warning(plan.n_clusters)      # the report's overview says the same
    return {"design": table}, note


def as_counts(data: object) -> Counts:
    """The confusion counts of any input :func:`compare` accepts.

    Parameters
    ----------
    data : Runs, PatternCounts, Counts or array_like
        Item-level runs, pattern counts, counts, or a confusion tensor ``(S, K, K)`` (one matrix
        ``(K, K)`` is one system; classes and systems are then numbered).

    Returns
    -------
    Counts
        The confusion counts (one matrix per system).
    """
    from evalreport.counts.bigdata import PatternCounts
    from evalreport.inputs.runs import Runs

    if isinstance(data, Runs):
        return Counts.from_runs(data)
    if isinstance(data, PatternCounts):
        return data.confusion()
    if isinstance(data, Counts):
        return data
    arr = np.asarray(data)
    arr = arr[None] if arr.ndim == 2 else arr
    if arr.ndim != 3:
        raise ValueError(f"expected Runs, PatternCounts, Counts or a confusion tensor (S, K, K); "
                         f"got shape {arr.shape}")
    labels = tuple(str(k) for k in range(arr.shape[-1]))
    return Counts(arr, labels, tuple(f"system_{i + 1}" for i in range(arr.shape[0])))


def leaderboard_table(primary: str, ranks: pd.DataFrame, intervals: pd.DataFrame, rank_dist: pd.DataFrame,
                      groups: pd.DataFrame, *, pairwise: pd.DataFrame | None = None, alpha: float = 0.05,
                      test: str = "bootstrap") -> pd.DataFrame:
    """The leaderboard: one row per system under the primary measure, best first.

    Parameters
    ----------
    primary : str
        The primary measure's id.
    ranks, intervals, rank_dist, groups : DataFrame
        The comparison's tables of those names (empty when there was no resampling).
    pairwise : DataFrame, optional
        The pairwise tests: the rank intervals come from the Holm-corrected decisions of ``test``
        at ``alpha`` (:func:`evalreport.analyses.rank_intervals.rank_intervals`).
    alpha : float
        The level of the rank intervals.
    test : str
        The pairwise test that decides.

    Returns
    -------
    DataFrame
        rank, system, measure, value, lo, hi, group, letters, p_best, value_calibrated,
        rank_calibrated, rank_lo, rank_hi (simultaneous rank intervals; empty without tests).
    """
    raw = ranks[(ranks["measure"] == primary) & ~ranks["calibrated"].astype(bool)]
    cal = ranks[(ranks["measure"] == primary) & ranks["calibrated"].astype(bool)]
    board = raw[["system", "rank", "value"]].merge(
        cal[["system", "rank", "value"]].rename(columns={"rank": "rank_calibrated", "value": "value_calibrated"}),
        on="system", how="left")
    iv = intervals[intervals["measure"] == primary][["system", "lo", "hi"]] if len(intervals) else None
    board = board.merge(iv, on="system", how="left") if iv is not None else board.assign(lo=np.nan, hi=np.nan)
    if len(rank_dist):
        best = rank_dist[(rank_dist["measure"] == primary) & (rank_dist["rank"] == 1)][["system", "probability"]]
        board = board.merge(best.rename(columns={"probability": "p_best"}), on="system", how="left")
        board["p_best"] = board["p_best"].fillna(0.0)
    else:
        board["p_best"] = np.nan
    if len(groups):
        board = board.merge(groups[["system", "group", "letters"]], on="system", how="left")
        board["letters"] = board["letters"].fillna("")
    else:
        board["group"] = ""
        board["letters"] = ""
    board.insert(2, "measure", primary)
    board = board.sort_values(["rank", "system"], kind="stable").reset_index(drop=True)
    if pairwise is not None and bool((pairwise["test"] == test).any()):
        bounds = rank_intervals(pairwise[pairwise["measure"] == primary], list(board["system"]), alpha=alpha, test=test)
        board = board.merge(bounds, on="system", how="left")
    else:
        board["rank_lo"] = pd.array([pd.NA] * len(board), dtype="Int64")
        board["rank_hi"] = pd.array([pd.NA] * len(board), dtype="Int64")
    return board[["rank", "system", "measure", "value", "lo", "hi", "group", "letters", "p_best", "value_calibrated",
                  "rank_calibrated", "rank_lo", "rank_hi"]]


def _first_answer(hooks: list[Callable]) -> Callable:
    """One ``pair_test(measure, a, b)`` of several designs: the first that knows the measure answers."""
    def pair_test(measure, a, b):
        for hook in hooks:
            found = hook(measure, a, b)
            if found is not None:
                return found
        return None
    return pair_test
