"""The methods paragraph's sentences on several runs per system (the two-level bootstrap and
Almost Stochastic Order)."""
from __future__ import annotations

from evalreport.measures.references import METHODS

__all__ = ["seeds_segments"]


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
