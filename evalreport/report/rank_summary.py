"""The findings block's sentences on ranks and equivalence: who is tied for first (simultaneous
rank intervals) and, with a margin, the pairs' verdicts; made from the rows of
:mod:`evalreport.analyses.rank_findings` only."""
from __future__ import annotations

from collections.abc import Callable

import pandas as pd

from evalreport.escape import markdown

__all__ = ["ranks_item", "verdicts_item"]

#: Systems named in the tied-for-first sentence; more are counted.
MAX_TIED_NAMED = 6


def _names(systems) -> str:
    """English list of escaped, bold names, the tail counted."""
    names = [f"**{markdown(str(s))}**" for s in systems]
    if len(names) > MAX_TIED_NAMED:
        names = names[:MAX_TIED_NAMED] + [f"{len(systems) - MAX_TIED_NAMED} more"]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def ranks_item(of: Callable[[str], pd.DataFrame]) -> str:
    """Who is tied for first: the systems whose simultaneous rank interval starts at 1 ("" if none)."""
    tied = of("tied_first")
    if tied.empty:
        return ""
    level = str(tied["detail"].iloc[0]).replace("simultaneous ", "")
    if len(tied) == 1:
        return (f"**First without a tie:** {_names(tied['system'])} is significantly better than every other "
                f"system (its simultaneous {level} is 1 to 1).")
    return (f"**Tied for first:** {_names(tied['system'])}: no system is significantly better than any of these "
            f"{len(tied)} (their simultaneous {level}s start at 1), so the test set does not say which is best.")


def verdicts_item(of: Callable[[str], pd.DataFrame]) -> str:
    """With a margin: how many pairs are different, equivalent or inconclusive, and the leader's pair."""
    counts = of("verdicts")
    if counts.empty:
        return ""
    n = {str(r["detail"]): int(r["value"]) for _, r in counts.iterrows()}
    margin = f"{float(counts['system'].iloc[0]):g}"       # a number the settings hold, not text from the data
    s = (f"**Equivalence (margin {margin}):** of {sum(n.values()):,} pairs, {n.get('different', 0):,} "
         f"differ, {n.get('equivalent', 0):,} are equivalent within ±{margin} and "
         f"{n.get('inconclusive', 0):,} are inconclusive (the test set cannot tell).")
    lead = of("leader_verdict")
    if len(lead):
        verdict = str(lead["detail"].iloc[0])
        s += f" The leader and the runner-up ({markdown(str(lead['system'].iloc[0]))}): {verdict}."
    return s
