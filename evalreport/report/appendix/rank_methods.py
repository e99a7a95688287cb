"""The methods paragraph's sentences on rank intervals, the equivalence margin and the detectable
difference (appended to a ``methods._Segments``), and the methods they cite."""
from __future__ import annotations

import pandas as pd

from evalreport.measures.references import METHODS
from evalreport.report.appendix.seeds import design_test, interval_words

__all__ = ["rank_methods", "rank_segments"]


def _margin(data) -> float | None:
    """The equivalence margin the report was made with (None: no margin)."""
    settings = data.manifest.get("settings", {}) if isinstance(data.manifest, dict) else {}
    margin = settings.get("margin")
    return None if margin is None else float(margin)


def _has_rank_intervals(data) -> bool:
    board = data.table("leaderboard")
    return "rank_lo" in board and bool(board["rank_lo"].notna().any())


def rank_methods(data) -> list[str]:
    """The keys of :data:`~evalreport.measures.references.METHODS` these sentences cite."""
    used = ["rank_intervals"] if _has_rank_intervals(data) else []
    if _margin(data) is not None:
        used.append("equivalence")
    return used


def rank_segments(data, seg, test: str, alpha: float) -> None:
    """Rank intervals, the margin and the detectable difference, as sentences of ``seg``."""
    t, c = seg.text, seg.cite
    name = design_test(data, test)
    if _has_rank_intervals(data):
        t(f" Each system's rank interval is simultaneous at {100 * (1 - alpha):g}%: its best rank is one more than "
          f"the number of systems the Holm-corrected {name} test finds significantly better, its worst rank the "
          "number of systems minus those it finds significantly worse, so that all intervals hold together when "
          "no decision of the corrected family is wrong ")
        c(*METHODS["rank_intervals"])
        t(".")
    margin = _margin(data)
    if margin is not None:
        t(f" Equivalence was judged within a margin of \u00b1{margin:g} in the primary measure: a pair is "
          "equivalent when two one-sided tests ")
        c(*METHODS["equivalence"])
        t(f" (normal approximation with the {interval_words(data)} standard error, the larger of the two p-values "
          f"Holm-corrected over all pairs) reject at alpha = {alpha:g}, different when the corrected {name} test "
          "rejects equality, and inconclusive otherwise.")
    found = data.table("findings")
    if not found.empty and "finding" in found:
        row = found[found["finding"] == "detectable"]
        if len(row) and pd.notna(row["value"].iloc[0]):
            t(f" The smallest difference this test set detects between the two leading systems with 80% power is "
              f"{float(row['value'].iloc[0]):.3g} (a two-sided test at alpha = {alpha:g}, computed from the "
              f"{interval_words(data)} standard error of their difference).")

