"""Which resampling design a comparison of single labels uses, chosen in one place.

A comparison of single-label data resamples one of a few designs: items (the paired bootstrap of
:class:`~evalreport.analyses.resampling.ConfusionDesign`), whole clusters (the same design with
``Runs.clusters``), several runs per system (:class:`~evalreport.analyses.seeds.SeedsDesign` around
the runs' design), or both (clustered items with several runs per system: the SeedsDesign around the
clustered design, so that each resample draws every system's runs, then whole clusters within folds, the
same clusters for every run of every system), optionally within gold classes, with score-based measures
resampled beside it (:mod:`evalreport.analyses.score_compare`) in the same design
(:meth:`DesignChoice.build_scores`: items, whole clusters, runs then items, or runs then clusters). :func:`choose_design` checks that the data and the
settings make one of them, and returns a :class:`DesignChoice`; :meth:`DesignChoice.build` makes the
engine's design for all items or for a subset (a slice, :mod:`evalreport.analyses.slices`), so that
slices are one more column of the design, not another branch.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from evalreport.errors import InputError
from evalreport.inputs.settings import Settings

__all__ = ["DesignChoice", "choose_design", "check_clusters", "check_seed_tests", "lone_cluster", "SEEDS_CLUSTERS"]


@dataclass(frozen=True)
class DesignChoice:
    """The design of one comparison of single labels.

    Attributes
    ----------
    runs : Runs, PatternCounts or None
        The item-level data (None: confusion matrices, no resampling).
    clustered : bool
        Whether items are resampled by whole clusters (``Runs.clusters``).
    run_system : tuple of str or None
        Per run, its system (several runs per system), else None.
    name : str
        The design in words (for notes and errors).
    notes : list of str
        Notes the choice makes for the manifest.
    """

    runs: object
    clustered: bool
    run_system: tuple[str, ...] | None
    name: str
    notes: list[str] = field(default_factory=list)

    def build(self, *, positive: int | None, policy: str, costs, strata: str | None, runs: object = None):
        """The engine's designs for ``runs`` (default: all items): ``(confusion design, design used)``.

        Parameters
        ----------
        positive, policy, costs, strata
            As :class:`~evalreport.analyses.resampling.ConfusionDesign`.
        runs : Runs, optional
            A subset of the items (a slice) with the same columns; default the comparison's runs.

        Returns
        -------
        tuple
            The :class:`~evalreport.analyses.resampling.ConfusionDesign` and the design the engine
            resamples (the same, or a :class:`~evalreport.analyses.seeds.SeedsDesign` around it).
        """
        from evalreport.analyses.resampling import ConfusionDesign

        data = self.runs if runs is None else runs
        design = ConfusionDesign(data, positive=positive, policy=policy, costs=costs, strata=strata)
        if self.run_system is None:
            return design, design
        from evalreport.analyses.seeds import SeedsDesign

        return design, SeedsDesign(design, self.run_system)

    def build_scores(self, sc, *, policy: str, runs: object = None):
        """The engine's design of the score-based measures of ``runs`` (default: all items).

        Parameters
        ----------
        sc : ScoreCounts
            The scores of ``runs`` (one "system" per run).
        policy : str
            The undefined-value policy.
        runs : Runs, optional
            A subset of the items (a slice); default the comparison's runs.

        Returns
        -------
        Design
            A :class:`~evalreport.analyses.score_design.ScoreDesign` over items or whole clusters, or a
            :class:`~evalreport.analyses.seeds.SeedsDesign` around it (several runs per system).
        """
        from evalreport.analyses.score_clusters import item_clusters
        from evalreport.analyses.score_design import ScoreDesign

        data = self.runs if runs is None else runs
        design = ScoreDesign(sc, policy=policy, clusters=item_clusters(data) if self.clustered else None,
                             folds=getattr(data, "folds", None))
        run_system = getattr(data, "run_system", None)
        if self.run_system is None or run_system is None:
            return design
        from evalreport.analyses.seeds import SeedsDesign

        return SeedsDesign(design, run_system)


def choose_design(data, settings: Settings) -> DesignChoice:
    """The resampling design of single-label ``data`` under ``settings``, checked once.

    Parameters
    ----------
    data : Runs, PatternCounts, Counts or array
        What :func:`evalreport.analyses.compare.compare` was given.
    settings : Settings
        The comparison's settings (``cluster_col``).

    Returns
    -------
    DesignChoice

    Raises
    ------
    InputError
        ``--cluster-col`` without clusters in the runs, a test that clusters with several runs per system
        cannot run (:func:`check_seed_tests`), or (when resampling) a fold with fewer than two clusters.
    """
    from evalreport.counts.bigdata import PatternCounts
    from evalreport.inputs.runs import Runs

    runs = data if isinstance(data, (Runs, PatternCounts)) else None     # item level: resampling possible
    clustered = isinstance(runs, Runs) and runs.clusters is not None
    if settings.cluster_col and not clustered:
        raise InputError(f"--cluster-col {settings.cluster_col}: the runs carry no clusters; read them with that "
                         f"column (read_runs(..., cluster_col={settings.cluster_col!r})) from item-level gold and "
                         "run files")
    run_system = getattr(runs, "run_system", None) if isinstance(runs, Runs) else None    # several runs per system
    if clustered and settings.bootstrap:
        check_clusters(runs)
    if clustered and run_system is not None:
        check_seed_tests(run_system, settings)
        name = SEEDS_CLUSTERS
    else:
        name = "clustered items" if clustered else "several runs per system" if run_system is not None else "items"
    return DesignChoice(runs=runs, clustered=clustered, run_system=run_system, name=name)


#: The name of the design of clustered items with several runs per system (notes, slices, the report).
SEEDS_CLUSTERS = "clustered items, several runs per system"


def check_seed_tests(run_system, settings: Settings) -> None:
    """Refuse a pairwise test that clustered items with several runs per system cannot run.

    The two-level bootstrap (each system's runs with replacement, then whole clusters) gives the paired
    bootstrap test of the system means. Approximate randomisation swaps one prediction per cluster
    between two systems, and McNemar's test counts one prediction per item: a system of several runs
    has neither, and running them on one run each would test runs, not systems, ignoring the seeds.
    With one run per system every test of the clustered design is valid.

    Parameters
    ----------
    run_system : sequence of str
        Per run, its system.
    settings : Settings
        ``pairwise_test`` and ``randomization`` (rounds asked for).

    Raises
    ------
    InputError
        One line: the test asked for and the test to use instead.
    """
    names = list(run_system)
    if len(set(names)) == len(names):           # one run per system: the clustered design's tests
        return
    asked = []                                  # settings of a task file or of Python (no command-line option)
    if settings.pairwise_test != "bootstrap":
        asked.append(f"pairwise_test = {settings.pairwise_test!r}")
    if settings.randomization:
        asked.append(f"randomization = {settings.randomization}")
    if asked:
        raise InputError(f"{' and '.join(asked)}: with --cluster-col and several runs per system only the paired "
                         "bootstrap test is valid (runs, then whole clusters, are resampled; approximate "
                         "randomisation and McNemar's test compare one prediction per item); drop the setting or "
                         "use one run per system")


def check_clusters(runs) -> None:
    """Refuse a clustering that the cluster bootstrap cannot resample: a fold (or the whole test set) with
    fewer than two clusters.

    Clusters are drawn with replacement within each fold: a fold of one cluster is the same in every
    resample, so its share of the variance is lost; with one cluster in all the intervals have no width
    and every paired difference sits at the bootstrap test's p floor.

    Parameters
    ----------
    runs : Runs
        Item-level runs with ``clusters`` (and optionally ``folds``).

    Raises
    ------
    InputError
        One line naming the cluster column, the fold and its one cluster.
    """
    found = lone_cluster(runs)
    if found is None:
        return
    fold, code, n_folds = found
    cluster = str(runs.cluster_names[code])
    why = ("resampling whole clusters draws it every time, so the intervals would have no width and every "
           "difference would look significant")
    col = runs.cluster_col or "(clusters)"
    if runs.folds is None or n_folds == 1:
        raise InputError(f"--cluster-col {col}: the items fall in 1 cluster ({cluster!r}): {why}; use a column "
                         "with many clusters, or resample items (no --cluster-col)")
    name = str(runs.fold_names[fold]) if fold < len(runs.fold_names) else str(fold)
    raise InputError(f"--cluster-col {col}: fold {name!r} holds 1 cluster ({cluster!r}): clusters are resampled "
                     f"within folds, so its items would be the same in every resample; use a column with "
                     "several clusters in every fold")


def lone_cluster(runs, items=None) -> tuple[int, int, int] | None:
    """The first fold of ``items`` (default: all) that holds a single cluster, or None.

    Parameters
    ----------
    runs : Runs
        Item-level runs with ``clusters`` (and optionally ``folds``).
    items : array_like of int, optional
        Item positions (a slice); default every item.

    Returns
    -------
    tuple of int or None
        (fold code, that cluster's code, folds among the items); None when every fold holds two or more
        clusters.
    """
    import numpy as np

    codes = np.asarray(runs.clusters, dtype=np.int64)
    folds = np.zeros_like(codes) if runs.folds is None else np.asarray(runs.folds, dtype=np.int64)
    if items is not None:
        codes, folds = codes[np.asarray(items)], folds[np.asarray(items)]
    if not codes.size:
        return None
    pairs = np.unique(np.stack([folds, codes], axis=1), axis=0)
    fold_ids, start, per_fold = np.unique(pairs[:, 0], return_index=True, return_counts=True)
    lone = np.flatnonzero(per_fold < 2)
    if not lone.size:
        return None
    k = int(lone[0])
    return int(fold_ids[k]), int(pairs[start[k], 1]), int(fold_ids.size)
