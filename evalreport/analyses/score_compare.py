"""The score-based part of a comparison of single-label runs that carry scores.

:func:`evalreport.analyses.compare.compare` asks :func:`score_plan` which measures are score-based
(the default set :data:`~evalreport.measures.scores.SCORE_MEASURES`, when the runs carry scores, or
those among ``--measures``), computes them here (:meth:`ScorePlan.score_rows`), resamples them with a
:class:`~evalreport.analyses.score_design.ScoreDesign` beside the confusion design
(:meth:`ScorePlan.resample`: intervals and rank distributions are per measure, so two designs side by
side are sound; the pairwise tests and letters are those of the primary measure's design) and adds
DeLong's test to the pairwise table when the primary measure is a binary ROC AUC. Prevalence
calibration (Opitz 2022) rescales confusion matrices: it does not apply to score-based measures,
which have no calibrated rows (a note says so).

The design follows the comparison's (:meth:`evalreport.analyses.designs.DesignChoice.build_scores`):
items; whole clusters (``--cluster-col``: cluster weights on the once-ranked scores, Field & Welsh 2007);
or several runs per system (the two-level bootstrap of
:class:`~evalreport.analyses.seeds.SeedsDesign` around the runs' score design: a system's value is the
mean over its runs, as for the confusion measures). With ``bootstrap_strata = "gold"`` the items are
drawn within gold classes, as the confusion measures' (:func:`~evalreport.analyses.score_design.with_strata`).
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from evalreport.counts.scores import ScoreCounts, score_counts
from evalreport.errors import MeasureError
from evalreport.measures import Measure, get
from evalreport.measures.scores import PROBABILITY, SCORE_MEASURES, check_scores, compute_scores, is_score_measure

if TYPE_CHECKING:
    import pandas as pd

# pandas, the engine and scipy (through the engine's cluster resampling) are imported where they are used:
# `evalreport score` needs only score_plan, and their imports would be most of its start-up time

__all__ = ["ScorePlan", "score_plan", "AUC_IDS", "default_score_ids", "design_notes", "with_score_seeds", "first_runs"]

#: Measures whose pairwise table gets DeLong's test (when binary).
AUC_IDS = ("roc_auc", "roc_auc_weighted", "roc_auc_ovo", "roc_auc_ovo_weighted")

CALIBRATION_NOTE = ("prevalence calibration (Opitz 2022) rescales confusion matrices: the score-based measures "
                    "({}) have no calibrated values")


@dataclass
class ScorePlan:
    """What a comparison computes from scores: the counts, the records, and whether one is the primary."""

    sc: ScoreCounts
    records: list[Measure]
    primary: Measure | None
    notes: list[str] = field(default_factory=list)
    #: The engine's design of the last :meth:`resample` (its point values and resamples), or None.
    design: object = None

    @property
    def ids(self) -> list[str]:
        return [m.id for m in self.records]

    def score_rows(self, policy: str) -> pd.DataFrame:
        """The raw ``scores`` rows (system, measure, value, calibrated, undefined, reason)."""
        import pandas as pd

        from evalreport.measures.scores import ScoreStats, summaries_of

        stats = ScoreStats(self.sc, wanted=summaries_of(self.records))     # each column summarised once
        stats.prefetch()
        frames = []
        for m in self.records:
            r = compute_scores(m, self.sc, policy=policy, stats=stats)
            frames.append(pd.DataFrame({"system": list(self.sc.systems), "measure": m.id, "value": r.value,
                                        "calibrated": False, "undefined": r.undefined, "reason": r.reason}))
        return pd.concat(frames, ignore_index=True)

    def baselines(self) -> pd.DataFrame:
        """Chance baselines: AUC 0.5 (scores independent of the gold class); the prevalence forecast's
        Brier score and log loss (every item gets the gold class shares), exact."""
        import pandas as pd

        sc = self.sc
        share = np.bincount(sc.gold, minlength=sc.n_classes) / max(sc.n_items, 1)
        rows = []
        for m in self.records:
            name = m.family or m.id
            if name in AUC_IDS:
                rows.append((m.id, "random_scores", 0.5, "exact", "scores independent of the gold class"))
            elif name in ("brier", "log_loss"):
                if sc.layout == "binary" or sc.n_classes == 2:
                    k = sc.columns[0] if sc.layout == "binary" else (sc.positive if sc.positive is not None else 1)
                    pi = share[k]
                    value = pi * (1 - pi) if name == "brier" else -(
                        (pi * np.log(pi) if pi > 0 else 0.0) + ((1 - pi) * np.log(1 - pi) if pi < 1 else 0.0))
                else:
                    nz = share[share > 0]
                    value = 1.0 - (share ** 2).sum() if name == "brier" else float(-(nz * np.log(nz)).sum())
                rows.append((m.id, "prevalence_forecast", float(value), "exact",
                             "every item gets the gold class shares as its probabilities"))
        return pd.DataFrame(rows, columns=["measure", "baseline", "value", "method", "note"]).assign(se=0.0)

    def resample(self, *, bootstrap: int, seed: int, alpha: float, rounds: int, pairwise_test: str,
                 order: Sequence[str], policy: str, margin: float | None = None, design=None):
        """Intervals, rank distributions and (for a score primary) pairwise tests and groups.

        ``design``: the engine's design of the scores (default: a
        :class:`~evalreport.analyses.score_design.ScoreDesign` over items); kept as :attr:`design`.
        Returns the engine's :class:`~evalreport.analyses.engine.Resampled` (measures in :attr:`records`
        order, the primary first when it is score-based) and notes."""
        from evalreport.analyses.engine import TESTS, resampled
        from evalreport.analyses.score_design import ScoreDesign

        design = ScoreDesign(self.sc, policy=policy) if design is None else design
        self.design = design
        offered = tuple(getattr(design, "tests", TESTS))        # several runs per system: the bootstrap test only
        records = self.records
        notes: list[str] = []
        tests: tuple[str, ...] = ("bootstrap",)
        if self.primary is not None and pairwise_test == "randomization":
            tests += ("randomization",)
        elif self.primary is not None and rounds:
            notes.append("approximate randomisation on score-based measures ranks the exchanged scores again in "
                         "every round: it runs only when it is the letters' test (Python: "
                         "Settings(pairwise_test=\"randomization\"); no task-file key or option sets it)")
        if self.primary is not None and pairwise_test == "mcnemar":
            tests += ("mcnemar",)
        tests = tuple(t for t in tests if t in offered)
        test = pairwise_test if pairwise_test in tests else "bootstrap"
        if self.primary is not None and test != pairwise_test:
            notes.append(f"the letters use the paired bootstrap test: {pairwise_test} is not run on the score-based "
                         f"primary measure {self.primary.id}")
        boot = resampled(design, records, design.point(records), bootstrap=bootstrap, seed=seed, alpha=alpha,
                         rounds=rounds if "randomization" in tests else 0, pairwise_test=test, order=order,
                         tests=tests, margin=margin if self.primary is not None else None)
        return boot, notes

    def delong(self) -> pd.DataFrame | None:
        """DeLong's rows when the primary measure is an AUC of the binary form, else None."""
        from evalreport.analyses.delong import delong_table
        from evalreport.analyses.significance import benjamini_hochberg, holm

        p = self.primary
        sc = self.sc
        c = sc.pos_column
        if p is None or (p.family or p.id) not in AUC_IDS or not sc.binary or c is None:
            return None
        positive = np.asarray(sc.gold == sc.columns[c])
        table = delong_table(np.nan_to_num(sc.scores[:, :, c]), positive, sc.systems, p.id)
        without = {name for name, has in zip(sc.systems, sc.has) if not has}
        if without:                  # a system without scores has no AUC: its pairs have no p-value
            gone = table["system_a"].isin(without) | table["system_b"].isin(without)
            table.loc[gone, ["statistic", "difference", "p_value"]] = np.nan
            table["p_holm"], table["p_bh"] = holm(table["p_value"]), benjamini_hochberg(table["p_value"])
        return table

    def curves(self, run_system: Sequence[str] | None = None) -> dict[str, pd.DataFrame]:
        """The curve frames for :attr:`Comparison.extra`; with several runs per system (``run_system``, per
        run its system) the curves of each system's first run with scores, under the system's name."""
        from evalreport.analyses.curves import pr_curves, reliability, roc_curves

        sc = self.sc if run_system is None else first_runs(self.sc, run_system)
        return {"roc_curve": roc_curves(sc), "pr_curve": pr_curves(sc), "reliability": reliability(sc)}

    def design_effect(self, samples: np.ndarray, *, bootstrap: int, seed: int, policy: str) -> pd.DataFrame | None:
        """The ``design`` table of the score-based primary measure on clustered items: its ``(B, S)`` values
        on the cluster resamples of the last :meth:`resample` (``samples``) against an item bootstrap (within
        folds) of at most :data:`~evalreport.analyses.clusters.ITEM_RESAMPLES` resamples; None (no score primary, no
        clusters)."""
        from evalreport.analyses.clusters import ITEM_RESAMPLES, design_effect, item_stream
        from evalreport.analyses.score_design import ScoreDesign

        design = self.design
        clusters = getattr(design, "clusters", None)
        if self.primary is None or clusters is None:
            return None
        n_item = min(bootstrap, ITEM_RESAMPLES)
        # the items resampled within folds, as the clusters are (the confusion measures' reference too)
        reference = ScoreDesign(self.sc, policy=policy, clusters=clusters.items())
        items = reference.resample([self.primary], n_item, item_stream(seed))[:, :, 0]
        return design_effect(samples, items, self.sc.systems, self.primary.id, clusters.plan, clusters.column)

    def seed_tables(self, run_rows: pd.DataFrame, intervals: pd.DataFrame, *, run_system: Sequence[str],
                    alpha: float, bootstrap: int, seed: int | None, policy: str) -> dict[str, pd.DataFrame]:
        """The score measures' rows of ``runs`` and ``seed_spread``, and (score-based primary) ``aso``.

        Parameters
        ----------
        run_rows : DataFrame
            :meth:`score_rows` of the runs (system = the run's name).
        intervals : DataFrame
            The score measures' intervals (empty without resampling).
        run_system : sequence of str
            Per run (in the order of :attr:`sc`), its system.
        alpha, bootstrap, seed, policy
            As the comparison's (``bootstrap``: the ASO resamples; 0 none).

        Returns
        -------
        dict of str to DataFrame
            :func:`evalreport.analyses.seeds.seed_tables` of the score measures (``aso`` only with a
            score-based primary, else empty).
        """
        from evalreport.analyses.score_design import ScoreDesign
        from evalreport.analyses.seeds import SeedsDesign, seed_tables

        design = self.design
        if not isinstance(design, SeedsDesign) or design.run_point is None:
            design = SeedsDesign(ScoreDesign(self.sc, policy=policy), run_system)
            design.point(self.records)
        return seed_tables(design, run_rows, self.records, intervals, alpha=alpha,
                           n_bootstrap=bootstrap if self.primary is not None else 0, seed=seed)


def first_runs(sc: ScoreCounts, run_system: Sequence[str]) -> ScoreCounts:
    """The scores of each system's first run with scores (else its first run), named by the system (several
    runs per system): a system whose first run carries no scores still gets curves.

    Parameters
    ----------
    sc : ScoreCounts
        The scores of every run.
    run_system : sequence of str
        Per run, its system.

    Returns
    -------
    ScoreCounts
        One system per distinct ``run_system`` (first-appearance order), ranked again on first use.
    """
    import dataclasses

    names = [str(x) for x in run_system]
    systems = tuple(dict.fromkeys(names))
    has = np.asarray(sc.has, dtype=bool)
    first = [next((i for i, n in enumerate(names) if n == system and has[i]), names.index(system))
             for system in systems]
    run = {sc.systems[i]: system for i, system in zip(first, systems)}
    return dataclasses.replace(sc, systems=systems, scores=sc.scores[first], has=np.asarray(sc.has)[first],
                               group=None, thresholds=None,
                               sources={run[k]: v for k, v in sc.sources.items() if k in run},
                               problems={run[k]: v for k, v in sc.problems.items() if k in run})


def design_notes(choice, ids: list[str]) -> list[str]:
    """How the score-based measures were resampled, when not over independent items.

    Parameters
    ----------
    choice : DesignChoice
        The comparison's design.
    ids : list of str
        The score-based measures.

    Returns
    -------
    list of str
        One note for clustered items or several runs per system, else none.
    """
    if choice.clustered and choice.run_system is not None:
        return [f"score-based measures ({', '.join(ids)}): the same two-level bootstrap (each system's runs with "
                "replacement, then whole clusters, each item weighted by its cluster's draws); a system's value is "
                "the mean over its runs; DeLong's test is not run; the curves are those of each system's first run "
                "(with scores)"]
    if choice.clustered:
        return [f"score-based measures ({', '.join(ids)}): the same cluster bootstrap (each item weighted by the "
                "number of times its cluster is drawn, the same clusters for every system); the randomisation "
                "test swaps the two systems' scores per cluster; DeLong's test is not run (it assumes "
                "independent items)"]
    if choice.run_system is not None:
        return [f"score-based measures ({', '.join(ids)}): the same two-level bootstrap (each system's runs with "
                "replacement, then the items); a system's value is the mean over its runs; DeLong's test is not "
                "run (it compares one score per item); the curves are those of each system's first run (with scores)"]
    return []


def with_score_seeds(extra: dict[str, pd.DataFrame], plan, run_rows: pd.DataFrame, intervals: pd.DataFrame,
                     run_system: Sequence[str], s) -> dict[str, pd.DataFrame]:
    """The seed tables of a comparison with the score-based measures' rows added.

    Parameters
    ----------
    extra : dict
        The comparison's extra tables (``runs``, ``seed_spread``, ``aso`` of the confusion measures).
    plan : ScorePlan
        The score plan, after :meth:`ScorePlan.resample` when the comparison resampled.
    run_rows : DataFrame
        :meth:`ScorePlan.score_rows` of the runs.
    intervals : DataFrame
        The comparison's intervals (the score measures' rows are used).
    run_system : sequence of str
        Per run, its system.
    s : Settings
        alpha, bootstrap, seed, policy.

    Returns
    -------
    dict of str to DataFrame
        ``extra`` with the score measures' rows in ``runs`` and ``seed_spread``, and ``aso`` of the
        score-based primary measure when it leads the comparison.
    """
    import pandas as pd

    score_iv = intervals[intervals["measure"].isin(plan.ids)] if len(intervals) else intervals
    more = plan.seed_tables(run_rows, score_iv, run_system=run_system, alpha=s.alpha, bootstrap=s.bootstrap,
                            seed=s.seed, policy=s.policy)
    out = dict(extra)
    for name in ("runs", "seed_spread"):
        out[name] = pd.concat([extra[name], more[name]], ignore_index=True) if name in extra else more[name]
    if plan.primary is not None:
        out["aso"] = more["aso"]
    return out


def default_score_ids(runs, positive) -> list[str]:
    """The default score-based measures for these runs: :data:`SCORE_MEASURES` when they carry scores
    that the measures can read (per-class columns, or one ``score`` column and a positive class), else none.

    Parameters
    ----------
    runs : Runs or other data
        The data of a comparison.
    positive : str or int or None
        The positive class.

    Returns
    -------
    list of str
    """
    scores = getattr(runs, "scores", None)
    if scores is None or not hasattr(runs, "gold") or (np.ndim(scores) == 2 and positive is None):
        return []
    kinds = {k for found in (getattr(runs, "score_problems", None) or {}).values() for k in found}
    ids = list(SCORE_MEASURES)
    if positive is None and len(getattr(runs, "labels", ())) > 2:
        # the best-threshold F1 needs a positive class: without one it would be undefined for every system
        ids = [m for m in ids if m != "best_threshold_f1"]
    if len(getattr(runs, "labels", ())) == 2:
        # two classes: the weighted and one-vs-one averages are the binary ROC AUC again
        ids = [m for m in ids if m not in ("roc_auc_weighted", "roc_auc_ovo")]
    if kinds & {"range", "sum"}:      # scores that are no probabilities: the other measures still apply
        return [m for m in ids if m not in PROBABILITY]
    return ids


def score_plan(runs, primary: str | None, measures: Sequence | None, positive: int | None) -> ScorePlan | None:
    """Which score-based measures a comparison computes, or None (no scores and none asked for).

    Parameters
    ----------
    runs : Runs or None
        Item-level runs (None: confusion matrices or patterns, which carry no scores).
    primary : str or None
        The primary measure.
    measures : sequence or None
        The measures asked for (None: the default set).
    positive : int or None
        The positive class code.

    Returns
    -------
    ScorePlan or None
    """
    asked = [m for m in (measures or []) if is_score_measure(m)]
    primary_score = primary is not None and is_score_measure(primary)
    sc = score_counts(runs, positive=positive) if runs is not None and getattr(runs, "scores", None) is not None \
        and (positive is not None or np.ndim(runs.scores) == 3) else None
    if sc is None:
        wanted = ([primary] if primary_score else []) + asked
        if wanted:
            why = ("the runs carry no scores (score or score_<class> columns)" if runs is None or
                   getattr(runs, "scores", None) is None else "one 'score' column needs the positive class (--positive)")
            raise MeasureError(f"score-based measure(s) {', '.join(str(w) for w in wanted)}: {why}")
        return None
    if measures is None:
        ids = default_score_ids(runs, positive)
    else:
        ids = [get(m).id for m in asked]
    prim = get(primary) if primary_score and primary is not None else None
    if prim is not None:
        ids = [prim.id] + [i for i in ids if i != prim.id]
    records = [get(i) for i in dict.fromkeys(ids)]
    if not records:
        return None
    for m in records:
        check_scores(m, sc)          # raises the runs' recorded score problems (InputError)
    plan = ScorePlan(sc=sc, records=records, primary=prim)
    plan.notes.append(CALIBRATION_NOTE.format(", ".join(plan.ids)))
    plan.notes.append("the measure audit's properties are defined on confusion matrices: the score-based measures "
                      "are not audited")
    found = [msg for system in sc.systems for kind, msg in sc.problems.get(system, {}).items()
             if kind in ("range", "sum")]
    if found and not any((m.family or m.id) in PROBABILITY for m in records):
        plan.notes.append(f"the Brier score, log loss and calibration errors are not computed: some scores are not "
                          f"probabilities ({found[0]})")
    return plan
