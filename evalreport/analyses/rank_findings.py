"""The findings rows of the rank intervals, the equivalence verdicts and the detectable difference.

Rows (``finding, system, measure, value, detail``, as :mod:`evalreport.analyses.findings`):

``tied_first``         a system whose simultaneous rank interval starts at 1 (no system is
                       significantly better; :mod:`.rank_intervals`), one row each, in board order;
                       value = ``rank_hi``; detail = the interval's level
``verdicts``           with a margin: value = how many pairs got the verdict named in ``detail``
                       (different, equivalent, inconclusive); measure = the primary; system = the margin
``leader_verdict``     with a margin: the verdict on the leader and the runner-up (detail); system =
                       the runner-up
``detectable``         the smallest difference of the primary measure the test set detects with 80 %
                       power between the two leading systems (:func:`evalreport.analyses.plan.detectable_difference`
                       on the bootstrap standard error of their difference); system = ``"A vs B"``;
                       when the comparison resampled whole clusters (``--cluster-col``) the standard error
                       is the cluster bootstrap's and the detail names the clusters (the test set's size is
                       its number of clusters, not of items)
"""
from __future__ import annotations

import pandas as pd

from evalreport.analyses.equivalence import VERDICTS
from evalreport.analyses.rank_intervals import tied_first

__all__ = ["rank_findings", "detectable_pair"]


def detectable_pair(comp, power: float = 0.8) -> dict | None:
    """The detectable difference of the two leading systems under the primary measure.

    Parameters
    ----------
    comp : Comparison
        With bootstrap values (``samples``) and at least two systems with a value.
    power : float
        The power.

    Returns
    -------
    dict or None
        system_a, system_b, se, detectable, power, alpha, and with clusters n_clusters and cluster_col
        (None without resampling). ``comp.samples`` are the comparison's resamples: of whole clusters when
        it was clustered, so the standard error is then the cluster bootstrap's.
    """
    import numpy as np

    from evalreport.analyses.plan import detectable_difference

    if comp.samples is None or len(comp.systems) < 2:
        return None
    board = comp.leaderboard[comp.leaderboard["value"].notna()]
    if len(board) < 2:
        return None
    a, b = (str(s) for s in board["system"].iloc[:2])
    pos = {s: i for i, s in enumerate(comp.systems)}
    j = list(comp.measures).index(comp.primary)
    d = comp.samples[:, pos[a], j] - comp.samples[:, pos[b], j]
    d = d[~np.isnan(d)]
    if d.shape[0] < 2:
        return None
    alpha = float(comp.settings.get("alpha", 0.05))
    se = float(np.std(d, ddof=1))
    found = {"system_a": a, "system_b": b, "se": se, "detectable": detectable_difference(se, alpha, power),
             "power": power, "alpha": alpha}
    if comp.settings.get("cluster_col") and comp.settings.get("n_clusters"):
        found.update(n_clusters=int(comp.settings["n_clusters"]), cluster_col=str(comp.settings["cluster_col"]))
    return found


def rank_findings(comp, alpha: float) -> list[dict]:
    """The rows named in the module docstring, from a comparison.

    Parameters
    ----------
    comp : Comparison
        The comparison.
    alpha : float
        The level.

    Returns
    -------
    list of dict
    """
    rows: list[dict] = []
    primary = comp.primary

    def add(finding, system="", value=float("nan"), detail=""):
        rows.append({"finding": finding, "system": system, "measure": primary, "value": value, "detail": detail})

    board = comp.leaderboard
    first = tied_first(board)
    if first and len(comp.systems) > 1:
        hi = board.set_index("system")["rank_hi"]
        for s in first:
            add("tied_first", s, int(hi[s]), f"simultaneous {100 * (1 - alpha):g}% rank interval")
    margin = comp.settings.get("margin")
    pw = comp.pairwise
    if margin is not None and len(pw):
        test = comp.settings.get("pairwise_test", "bootstrap")
        own = pw[(pw["test"] == test) & (pw["measure"] == primary)]
        for v in VERDICTS:
            add("verdicts", f"{float(margin):g}", int((own["verdict"] == v).sum()), v)
        defined = board[board["value"].notna()]
        if len(defined) >= 2:
            a, b = (str(s) for s in defined["system"].iloc[:2])
            pair = own[((own["system_a"] == a) & (own["system_b"] == b)) | ((own["system_a"] == b)
                                                                            & (own["system_b"] == a))]
            if len(pair):
                add("leader_verdict", b, float(pair["p_equivalence"].iloc[0]), str(pair["verdict"].iloc[0]))
    found = detectable_pair(comp)
    if found is not None:
        se = (f"cluster bootstrap se {found['se']:.4g} over {found['n_clusters']:,} clusters"
              if "n_clusters" in found else f"bootstrap se {found['se']:.4g}")
        add("detectable", f"{found['system_a']} vs {found['system_b']}", found["detectable"],
            f"{100 * found['power']:g}% power, alpha {found['alpha']:g}, {se}")
    return rows


def frame(rows: list[dict]) -> pd.DataFrame:
    """The rows as a findings frame."""
    return pd.DataFrame(rows, columns=["finding", "system", "measure", "value", "detail"])
