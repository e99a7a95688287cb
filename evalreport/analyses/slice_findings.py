"""The findings rows of slices: who leads on each slice of the test set, and whether the overall
leader's lead depends on the slice.

Rows (``finding, system, measure, value, detail``, as :mod:`evalreport.analyses.findings`), all under the
primary measure, from the ``slice_leaders`` table of :mod:`evalreport.analyses.slices`:

``slice_leader``      one per slice whose best system is not the overall leader: system = the slice's
                      best, value = its value there, detail = ``"<slice column>|<slice>|<verdict>"`` with
                      verdict ``separated`` (the Holm-corrected paired tests within the slice separate the
                      overall leader from the slice's best: the corrected evidence that the lead depends on
                      the slice), ``not separated`` (the tests do not: exploratory) or ``small`` (too few
                      items for an interval or a test)
``slice_leads``       the overall leader: value = the number of slices it leads, detail =
                      ``"<slice column>|<number of slices>|<of those, slices whose lead it shares>"`` (a
                      shared lead: other systems have the same value there); one per slice column
``slice_dependence``  the overall leader when the corrected tests separate it from the best of at least
                      one slice: value = how many such slices, detail = the slice column

No rows when the comparison has no slices, when the overall leader is tied or undefined, or when it is
the best of every slice (no ``slice_leader`` rows then: the lead does not depend on the slice).
"""
from __future__ import annotations

import pandas as pd

__all__ = ["slice_findings", "SEPARATED", "NOT_SEPARATED", "SMALL"]

SEPARATED, NOT_SEPARATED, SMALL = "separated", "not separated", "small"


def _flag(v) -> bool:
    """A boolean from a value written as bool or read back as text."""
    return str(v).strip().lower() in ("true", "1", "1.0")


def _names(joined) -> set[str]:
    """The systems of a ``"; "``-joined cell (empty or NaN: none)."""
    if not isinstance(joined, str) or not joined:
        return set()
    return {s.strip() for s in joined.split("; ") if s.strip()}


def _verdict(row, leader: str) -> str:
    """How the slice's best relates to the overall leader: separated by the corrected tests, or not."""
    if leader in _names(row["separated"]):
        return SEPARATED
    return SMALL if _flag(row["small"]) else NOT_SEPARATED


def slice_findings(board: pd.DataFrame, leaders: pd.DataFrame | None, primary: str) -> list[dict]:
    """The rows named in the module docstring.

    Parameters
    ----------
    board : DataFrame
        The overall leaderboard (rank, system, value), best first.
    leaders : DataFrame or None
        The ``slice_leaders`` table (slice_col, slice, measure, n, best, value, separated, tied, small).
    primary : str
        The primary measure.

    Returns
    -------
    list of dict
        finding, system, measure, value, detail.
    """
    if leaders is None or leaders.empty or board.empty:
        return []
    defined = board[board["value"].notna()]
    if defined.empty or (defined["rank"] == defined["rank"].iloc[0]).sum() > 1:
        return []                       # no sole overall leader to compare the slices' best with
    leader = str(defined["system"].iloc[0])
    own = leaders[leaders["measure"].astype(str) == primary]
    rows: list[dict] = []

    def add(finding: str, system: str, value: float, detail: str) -> None:
        rows.append({"finding": finding, "system": system, "measure": primary, "value": value, "detail": detail})

    for col, part in own.groupby(own["slice_col"].astype(str), sort=False):
        part = part[part["best"].notna() & (part["best"].astype(str) != "")]
        others = part[part["best"].astype(str) != leader]
        if others.empty:
            continue        # the leader is the best of every slice of this column: nothing to say
        mine = part[part["best"].astype(str) == leader]
        shared = int(sum(bool(_names(s)) for s in mine["shared"])) if "shared" in mine else 0
        add("slice_leads", leader, float(len(mine)), f"{col}|{len(part)}|{shared}")
        separated = 0
        for _, r in others.iterrows():
            verdict = _verdict(r, leader)
            separated += verdict == SEPARATED
            add("slice_leader", str(r["best"]), float(r["value"]), f"{col}|{r['slice']}|{verdict}")
        if separated:
            add("slice_dependence", leader, float(separated), str(col))
    return rows
