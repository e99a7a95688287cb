"""Clustered items with several runs per system: the design effect and the notes of the combined design.

The design itself is :class:`~evalreport.analyses.seeds.SeedsDesign` around the clustered design
(:class:`~evalreport.analyses.resampling.ConfusionDesign` or
:class:`~evalreport.analyses.score_design.ScoreDesign` with clusters): each resample draws the clusters of
each fold with replacement (Field & Welsh 2007), the same clusters for every run of every system, and
every system's runs with replacement; a system's value is the mean over its runs. For runs crossed with
clusters this is the two-factor "pigeonhole" bootstrap of Owen (2007), with clusters in the place of
items. Nothing is resampled twice: the runs' cluster resamples are the wrapped design's, kept by the
SeedsDesign (``run_samples``).

The design effect (Kish 1965) of a system is then that of one run: the cluster-bootstrap variance of a
run over its item-bootstrap variance, each averaged over the system's runs (the ``item_se`` of the
``seed_spread`` table is the cluster-bootstrap standard error of one run, the numerator's root).
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from evalreport.analyses.clusters import (
    DESIGN_COLUMNS,
    ITEM_RESAMPLES,
    ClusterPlan,
    design_effect,
    few_clusters_warning,
    item_stream,
)

__all__ = ["system_design_effect", "seeds_cluster_tables", "seeds_score_design_effect", "SEEDS_CLUSTERS_NOTE"]

#: The manifest's note on the two levels of the combined design.
SEEDS_CLUSTERS_NOTE = ("clustered items, several runs per system: two-level bootstrap (each resample draws every "
                       "system's runs with replacement, then whole clusters within folds, the same clusters for every "
                       "run of every system; the run draws rescaled for few runs); values are means over runs; the "
                       "pairwise table holds the paired bootstrap test only, referred to Student's t with "
                       "Welch-Satterthwaite degrees of freedom")


def system_design_effect(cluster_values: np.ndarray, item_values: np.ndarray, runs: Sequence[str],
                         run_system: Sequence[str], measure: str, plan: ClusterPlan,
                         cluster_col: str | None) -> pd.DataFrame:
    """The ``design`` table per system from the runs' cluster and item resamples.

    Parameters
    ----------
    cluster_values, item_values : ndarray
        ``(B_c, R)`` and ``(B_i, R)`` the measure of every run on cluster and on item resamples.
    runs : sequence of str
        The R runs.
    run_system : sequence of str
        Per run, its system.
    measure : str
        The measure's id.
    plan : ClusterPlan
        The clusters (their number and sizes).
    cluster_col : str or None
        The gold column of the clusters.

    Returns
    -------
    DataFrame
        :data:`~evalreport.analyses.clusters.DESIGN_COLUMNS`, one row per system (first-appearance order):
        ``se_cluster`` and ``se_item`` the roots of the mean over the system's runs of each run's variance
        (the standard errors of one run), ``design_effect`` their squared ratio.
    """
    per_run = design_effect(cluster_values, item_values, list(runs), measure, plan, cluster_col)
    names = np.asarray([str(s) for s in run_system], dtype=object)
    systems = list(dict.fromkeys(names.tolist()))
    rows = []
    for system in systems:
        part = per_run[names == system]
        se_c = _root_mean_square(part["se_cluster"].to_numpy(dtype=float))
        se_i = _root_mean_square(part["se_item"].to_numpy(dtype=float))
        deff = (se_c / se_i) ** 2 if np.isfinite(se_i) and se_i > 0 and np.isfinite(se_c) else np.nan
        row = part.iloc[0].to_dict()
        row.update(system=system, se_cluster=se_c, se_item=se_i, design_effect=deff)
        rows.append(row)
    return pd.DataFrame(rows, columns=DESIGN_COLUMNS)


def _root_mean_square(se: np.ndarray) -> float:
    """The root of the mean of the defined squared standard errors (NaN when none is defined)."""
    se = se[~np.isnan(se)]
    return float(np.sqrt(np.mean(se ** 2))) if se.size else float("nan")


def seeds_cluster_tables(seeds, primary, bootstrap: int, seed: int) -> tuple[dict[str, pd.DataFrame], str]:
    """The ``design`` table of a comparison of clustered items with several runs per system, and its note.

    Parameters
    ----------
    seeds : SeedsDesign
        Around a clustered :class:`~evalreport.analyses.resampling.ConfusionDesign`, after
        :meth:`~evalreport.analyses.seeds.SeedsDesign.resample` (its ``run_samples``).
    primary : Measure
        The primary measure (the first of the resampled measures).
    bootstrap : int
        The comparison's resamples (the item bootstrap takes at most
        :data:`~evalreport.analyses.clusters.ITEM_RESAMPLES`).
    seed : int
        The comparison's seed (the item bootstrap has its own stream,
        :func:`~evalreport.analyses.clusters.item_stream`).

    Returns
    -------
    tuple
        ``{"design": table}`` and the note for the manifest.
    """
    inner = seeds.inner
    n_item = min(bootstrap, ITEM_RESAMPLES)
    items = inner.resample_items([primary], n_item, item_stream(seed))[:, :, 0]
    table = system_design_effect(seeds.run_samples[:, :, 0], items, seeds.runs, seeds.run_system, primary.id,
                                 inner.clusters, inner.cluster_col)
    plan = inner.clusters
    note = (f"{plan.n_clusters:,} clusters (gold column {inner.cluster_col!r}, {plan.sizes.mean():.1f} items on "
            f"average) resampled within folds, the same clusters for every run of every system; design effects of "
            f"one run (design.csv) against {n_item} item resamples")
    note += few_clusters_warning(plan.n_clusters)      # the report's overview says the same
    return {"design": table}, note


def seeds_score_design_effect(plan, *, bootstrap: int, seed: int, policy: str) -> pd.DataFrame | None:
    """The ``design`` table of a score-based primary measure on clustered items with several runs per system.

    Parameters
    ----------
    plan : ScorePlan
        After :meth:`~evalreport.analyses.score_compare.ScorePlan.resample` with a
        :class:`~evalreport.analyses.seeds.SeedsDesign` around a clustered score design.
    bootstrap, seed, policy
        The comparison's.

    Returns
    -------
    DataFrame or None
        As :func:`system_design_effect`; None without a score-based primary or without clusters.
    """
    from evalreport.analyses.score_design import ScoreDesign

    seeds = plan.design
    inner = getattr(seeds, "inner", None)
    clusters = getattr(inner, "clusters", None)
    if plan.primary is None or clusters is None or getattr(seeds, "run_samples", None) is None:
        return None
    n_item = min(bootstrap, ITEM_RESAMPLES)
    reference = ScoreDesign(plan.sc, policy=policy, clusters=clusters.items())
    items = reference.resample([plan.primary], n_item, item_stream(seed))[:, :, 0]
    return system_design_effect(seeds.run_samples[:, :, 0], items, seeds.runs, seeds.run_system, plan.primary.id,
                                clusters.plan, clusters.column)
