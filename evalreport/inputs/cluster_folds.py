"""The cluster and fold columns of single-label input: cluster codes read from the gold file (each cluster
within one fold), and each run's fold column checked against the gold file's folds."""

from __future__ import annotations

import numpy as np

from evalreport.inputs.checks import listing, near_miss, short
from evalreport.inputs.tables import HEADED, Table

__all__ = ["read_clusters", "check_folds"]


def read_clusters(g: Table, cluster_col: str, folds, fold_names) -> tuple[np.ndarray, tuple[str, ...]]:
    """Cluster codes (first-appearance order) and names of the gold file's ``cluster_col``.

    The column must exist, every value be non-empty, and with folds every cluster lie within one fold;
    else an :class:`~evalreport.errors.InputError` names the line.

    Parameters
    ----------
    g : Table
        The gold file.
    cluster_col : str
        The cluster column's name.
    folds : numpy.ndarray or None
        The fold code of every gold row, or None without folds.
    fold_names : sequence of str
        The fold names, indexed by fold code.

    Returns
    -------
    tuple of (numpy.ndarray, tuple of str)
        The int32 cluster code of every gold row and the cluster names.
    """
    if cluster_col not in g.columns:
        raise g.error(f"no cluster column {cluster_col!r} (--cluster-col); the gold file's columns are "
                      f"{listing(list(g.all_names))}{near_miss(cluster_col, list(g.all_names))}",
                      line=1 if g.fmt in HEADED else None)
    local, uniques = g.labels(cluster_col, what="cluster")
    codes = np.asarray(local, dtype=np.int64)
    if folds is not None and codes.size:
        fold_codes = np.asarray(folds, dtype=np.int64)
        first_row = np.zeros(len(uniques), dtype=np.int64)                # each cluster's first row
        present, at = np.unique(codes, return_index=True)
        first_row[present] = at
        home = fold_codes[first_row[codes]]
        away = np.flatnonzero(home != fold_codes)
        if away.size:
            row = int(away[0])
            name = uniques[int(codes[row])]
            raise g.error(f"cluster {short(name)} spans folds {fold_names[int(home[row])]!r} (first at "
                          f"{g.where(int(first_row[codes[row]]))}) and {fold_names[int(fold_codes[row])]!r}; "
                          "a cluster must lie within one fold (resampling keeps the folds and the clusters whole)",
                          row=row, item=g._item(row))
    return codes.astype(np.int32), tuple(str(u) for u in uniques)


def check_folds(r: Table, fold_col: str, folds, fold_names, pos, g: Table) -> None:
    """Check a run's fold column against the gold file's folds; a disagreement names the run's line.

    Parameters
    ----------
    r : Table
        The run file (it has a ``fold_col`` column).
    fold_col : str
        The fold column's name.
    folds : numpy.ndarray or None
        The gold file's fold code per item; None (the gold file has no folds) is an error.
    fold_names : sequence of str
        The fold names, indexed by fold code.
    pos : numpy.ndarray or None
        The gold position of each run row; None when the run is in gold order.
    g : Table
        The gold file, for messages.
    """
    if folds is None:
        raise r.error(f"the run has a {fold_col!r} column but the gold file {g.path} has none; "
                      "folds are declared in the gold file", line=1 if r.fmt in HEADED else None)
    local, uniques = r.labels(fold_col, what="fold")
    index = {f: k for k, f in enumerate(fold_names)}
    lut = np.array([index.get(u, -1) for u in uniques], dtype=np.int64)
    run_folds = lut[local]
    expected = folds.astype(np.int64) if pos is None else folds.astype(np.int64)[pos]
    wrong = run_folds != expected
    if wrong.any():
        row = int(np.flatnonzero(wrong)[0])
        raise r.error(f"fold {uniques[int(local[row])]!r} disagrees with the gold file's fold "
                      f"{fold_names[int(expected[row])]!r}", row=row, item=r._item(row))
