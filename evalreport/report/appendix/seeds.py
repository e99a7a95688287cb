"""Several runs per system (training seeds): the design the comparison used, the methods paragraph's
sentences on it (the two-level bootstrap and Almost Stochastic Order), and the seed-spread and ASO tables."""
from __future__ import annotations

from evalreport.analyses.letters import TEST_NAMES, TWO_LEVEL_CLUSTER_TEST, TWO_LEVEL_TEST
from evalreport.measures.references import METHODS

__all__ = ["seeds_segments", "resampled", "design_test", "interval_words"]


def _settings(data) -> dict:
    """The comparison's settings as its manifest records them."""
    manifest = data.manifest if isinstance(data.manifest, dict) else {}
    return manifest.get("settings", {}) or {}


def resampled(data) -> str:
    """What each bootstrap resample drew, read from the comparison's manifest as the HTML report reads it.

    Parameters
    ----------
    data
        The report's tables (``manifest.json``'s settings: ``runs_per_system``, ``cluster_col``).

    Returns
    -------
    str
        ``"items"``, ``"clusters"``, ``"runs and items"`` or ``"runs and clusters"``.
    """
    settings = _settings(data)
    if settings.get("cluster_col"):
        return "runs and clusters" if settings.get("runs_per_system") else "clusters"
    return "runs and items" if settings.get("runs_per_system") else "items"


def design_test(data, test: str | None = None) -> str:
    """The reader's name of the pairwise test: with several runs per system the bootstrap test draws
    runs, then items (or clusters), so it is the two-level one, not the paired (items only) one.

    Parameters
    ----------
    data
        The report's tables.
    test : str, optional
        The test's key (default: the comparison's ``pairwise_test``).

    Returns
    -------
    str
        E.g. ``"paired bootstrap"`` or ``"two-level bootstrap (runs, then items)"``.
    """
    test = test or data.settings.get("pairwise_test", "bootstrap")
    if test == "bootstrap":
        two = {"runs and items": TWO_LEVEL_TEST, "runs and clusters": TWO_LEVEL_CLUSTER_TEST}.get(resampled(data))
        if two:
            return two
    return TEST_NAMES.get(test, test)


def interval_words(data) -> str:
    """The bootstrap behind the intervals, in words: ``"paired bootstrap"``, ``"paired cluster bootstrap"``
    or the two-level design.

    Parameters
    ----------
    data
        The report's tables.

    Returns
    -------
    str
        The words that stand before "percentile interval".
    """
    return {"runs and items": TWO_LEVEL_TEST, "runs and clusters": TWO_LEVEL_CLUSTER_TEST,
            "clusters": "paired cluster bootstrap"}.get(resampled(data), "paired bootstrap")


def seeds_segments(data, seg, runs_per_system: dict, n_resamples: int, *, clusters: bool = False) -> None:
    """Append the design of several runs per system to the methods paragraph ``seg``.

    Parameters
    ----------
    data
        The report's tables (``aso``).
    seg
        The paragraph's segments (``text`` and ``cite``).
    runs_per_system : dict
        System -> its number of runs (the manifest's ``runs_per_system``).
    n_resamples : int
        The bootstrap resamples.
    clusters : bool
        Clustered items: each resample drew the runs, then whole clusters (and the design effect is one run's).
    """
    counts = sorted(set(int(n) for n in runs_per_system.values()))
    runs = f"{counts[0]} runs" if len(counts) == 1 else f"{counts[0]} to {counts[-1]} runs"
    seg.text(f" Each system was trained with several random seeds ({runs} per system); a system's value is the "
             "mean of the measure over its runs, and each bootstrap resample first drew every system's runs with "
             f"replacement, then the {'clusters above' if clusters else 'items'}, paired across all runs, so that "
             "the intervals and tests hold the variation between seeds as well as between test sets"
             + ("; the design effect is that of one run" if clusters else "") + " ")
    seg.cite(*METHODS["seeds"])
    seg.text("; for the intervals, each resample's deviation of the drawn runs from the mean of all R runs of a "
             "system was rescaled "
             "by at least \u221a(R/(R\u22121)), which restores the variance between runs that drawing R of them with "
             "replacement loses, and more where the seeds' share of it needs Student's t with R\u22121 degrees of "
             "freedom ")
    seg.cite(*METHODS["seeds_few_runs"])
    seg.text(f". The {design_test(data, 'bootstrap')} test of two systems took its standard error from resamples "
             "that hold each system's seed variance once (the drawn runs' deviations rescaled to the seeds' own standard error) "
             "and referred the difference over it to Student's t with Welch-Satterthwaite degrees of freedom, each "
             "system's variance between runs counting with R\u22121 of them and the items' part with infinitely many ")
    seg.cite(*METHODS["seeds_pair_test"])
    seg.text(".")
    aso = data.table("aso")
    if not aso.empty and aso["eps_min"].notna().any():
        alpha = float(aso["alpha"].iloc[0])
        seg.text(" Between every pair of systems, the runs' values were compared by Almost Stochastic Order "
                 "(eps_min, an upper confidence bound on the violation ratio, from "
                 f"{n_resamples:,} resamples of the runs; level {alpha:.3g} per pair, Bonferroni-corrected over the "
                 "pairs) ")
        seg.cite(*METHODS["aso"])
        seg.text(".")
