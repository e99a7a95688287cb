"""Rankings of systems under every measure, rank correlation between measures, disagreements.

The input of every function here is a tidy scores frame as :func:`evalreport.measures.evaluate`
returns it (columns ``system``, ``measure``, ``value``; optionally ``calibrated`` and ``fold``),
or, for the correlation functions, the ranks frame :func:`rank` returns.

Direction. A measure's direction comes from the registry (``Measure.higher_is_better``); a
name the registry does not know (e.g. a column copied from a paper's table) counts as "higher
is better" unless ``higher_is_better={name: False}`` says otherwise.

Undefined scores (0/0). In a leaderboard (:func:`rank`) a NaN score ranks last, tied with the
other NaN scores of that measure, and is flagged in the ``nan_last`` column: every system needs a
place on a board. Nothing that compares the *orders of two measures* uses that place, because it
is no order the measure gives: a pair of systems where either value is undefined under a measure
is not comparable under it. :func:`disagreements` lists only pairs comparable under both
measures, :func:`inconsistency` counts its rate over those pairs (``n_comparable``), and
:func:`rank_correlation` correlates over the systems with a value under both measures
(``n_systems``), NaN with a note where fewer than three remain. An undefined value is thus
neither an agreement nor a disagreement (Gösgens et al. 2021, section 5.1, define consistency on triples
where both measures take values).

Calibrated rows. When the frame has a ``calibrated`` column (scores on the prevalence-calibrated
confusion tensor, Opitz 2022, eq. 6), the correlation and disagreement functions treat the
calibrated version of measure ``m`` as a measure of its own named ``m_c`` - Opitz's
``metric_c`` (Opitz 2022, Appendix G, Figure 2).

Pairs of systems are compared through sign matrices ``sign(key_i - key_j)`` of shape
``(measures, pairs)``; Kendall's tau-b, the inconsistency counts and the disagreement lists are
matrix products and masks over them, never Python loops over system pairs.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping

import numpy as np
import pandas as pd
from scipy import stats

from evalreport.errors import MeasureError
from evalreport.measures import ALIASES, REGISTRY, get

__all__ = ["rank", "rank_table", "rank_correlation", "calibration_correlation", "disagreements",
           "inconsistency", "CALIBRATED_SUFFIX", "METHODS"]

CALIBRATED_SUFFIX = "_c"          # Opitz's metric_c (Opitz 2022, Figure 2)
METHODS = ("spearman", "kendall")
RANK_METHODS = ("average", "min")


# ----------------------------------------------------------------------------- helpers


def _direction(name: str, overrides: Mapping[str, bool] | None) -> bool:
    """True if higher values are better for measure ``name`` (``m_c`` names resolve to ``m``)."""
    if overrides and name in overrides:
        return bool(overrides[name])
    base = name[:-len(CALIBRATED_SUFFIX)] if name.endswith(CALIBRATED_SUFFIX) else name
    if overrides and base in overrides:
        return bool(overrides[base])
    for candidate in (name, base):
        if not _registered(candidate.split("(", 1)[0].strip().lower()):
            continue             # (get() would fail too, after looking for a spelling to suggest)
        try:
            return get(candidate).higher_is_better
        except MeasureError:
            continue
    return True


def _registered(ident: str) -> bool:
    """Whether ``ident`` is a registered measure id or alias (now: plugins register late)."""
    return ident in REGISTRY or ident in ALIASES


def _check_columns(frame: pd.DataFrame, needed: Iterable[str], what: str) -> None:
    missing = [c for c in needed if c not in frame.columns]
    if missing:
        raise ValueError(f"{what} needs columns {', '.join(missing)}; got {', '.join(map(str, frame.columns))}")


def _named(frame: pd.DataFrame, calibrated: bool | None) -> pd.DataFrame:
    """Rows filtered by ``calibrated`` (None = all) with a ``_name`` column (``m`` or ``m_c``)."""
    out = frame
    if "calibrated" in out.columns:
        if calibrated is not None:
            out = out[out["calibrated"].astype(bool) == bool(calibrated)]
        names = np.where(out["calibrated"].astype(bool).to_numpy(),
                         out["measure"].astype(str).to_numpy() + CALIBRATED_SUFFIX, out["measure"].astype(str).to_numpy())
    elif calibrated:
        raise ValueError("calibrated=True but the frame has no 'calibrated' column")
    else:
        names = out["measure"].astype(str).to_numpy()
    out = out.assign(_name=names)
    if "fold" in out.columns and out["fold"].nunique() > 1:
        raise ValueError("per-fold scores: rank each fold separately (or pool the folds) before comparing measures")
    return out


def _wide(frame: pd.DataFrame, column: str, calibrated: bool | None):
    """(names, systems, matrix (M, S)) from a tidy frame; the order of first appearance is kept."""
    _check_columns(frame, ("system", "measure", column), "this analysis")
    named = _named(frame, calibrated)
    if named.duplicated(["_name", "system"]).any():
        dup = named[named.duplicated(["_name", "system"], keep=False)][["_name", "system"]].iloc[0].tolist()
        raise ValueError(f"more than one value for measure {dup[0]!r}, system {dup[1]!r}")
    names = list(dict.fromkeys(named["_name"]))
    systems = list(dict.fromkeys(named["system"].astype(str)))
    table = named.pivot(index="_name", columns="system", values=column)
    table.columns = table.columns.astype(str)
    matrix = table.reindex(index=names, columns=systems).to_numpy(dtype=float)
    return names, systems, matrix


def _keys(names, matrix, column: str, overrides) -> np.ndarray:
    """Orientation keys: larger is better, NaN -> -inf (ranks last). For ranks: key = -rank."""
    if column == "rank":
        key = -matrix
    else:
        sign = np.array([1.0 if _direction(n, overrides) else -1.0 for n in names])[:, None]
        key = matrix * sign
    return np.where(np.isnan(key), -np.inf, key)


def _average_ranks(key: np.ndarray) -> np.ndarray:
    """Average ranks (1 = best) along the last axis of an orientation key matrix."""
    return stats.rankdata(-key, method="average", axis=-1)


def _pair_signs(key: np.ndarray):
    """Sign matrix (M, P) over the P = S(S-1)/2 system pairs (i < j): +1 if i is better than j."""
    S = key.shape[-1]
    i, j = np.triu_indices(S, 1)
    r = _average_ranks(key)                  # finite even where key is -inf
    return np.sign(r[:, j] - r[:, i]).astype(np.int8), i, j


def _value_relations(scores: pd.DataFrame, calibrated: bool | None, higher_is_better: Mapping[str, bool] | None
                     ) -> tuple[list, list, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The (measures, systems) values of ``scores`` (raw rows unless it has ``calibrated``) and each pair's signs."""
    if calibrated is False and "calibrated" not in scores.columns:
        calibrated = None
    names, systems, matrix = _wide(scores, "value", calibrated)
    D, i, j = _pair_signs(_keys(names, matrix, "value", higher_is_better))
    return names, systems, matrix, D, i, j


def _comparable(defined: np.ndarray, i: np.ndarray, j: np.ndarray) -> np.ndarray:
    """(M, P) bool: both systems of pair p have a (non-NaN) value under the measure."""
    return defined[:, i] & defined[:, j]


def _source_column(frame: pd.DataFrame) -> str:
    return "rank" if "rank" in frame.columns and "value" not in frame.columns else "value"


# ----------------------------------------------------------------------------- rank


def rank(scores: pd.DataFrame, *, method: str = "average", measures=None,
         higher_is_better: Mapping[str, bool] | None = None) -> pd.DataFrame:
    """Rank the systems under every measure (1 = best), respecting each measure's direction.

    ``scores``: tidy frame with ``system``, ``measure``, ``value`` (and optionally
    ``calibrated`` and ``fold``: rankings are made within each (measure, calibrated, fold)
    group). ``method``: ``"average"`` (tied systems share the mean of their ranks, e.g. 1.5) or
    ``"min"`` (competition ranking, e.g. 1, 1, 3). Returns ``system``, ``measure``,
    [``calibrated``], [``fold``], ``value``, ``rank``, ``tied`` (another system has the same
    score), ``nan_last`` (the score is undefined and ranked last).
    """
    if method not in RANK_METHODS:
        raise ValueError(f"rank method must be one of {', '.join(RANK_METHODS)}; got {method!r}")
    _check_columns(scores, ("system", "measure", "value"), "rank()")
    frame = scores
    if measures is not None:
        wanted = [get(m).id if not isinstance(m, str) else m for m in measures]
        frame = frame[frame["measure"].isin(wanted)]
    groups = [c for c in ("measure", "calibrated", "fold") if c in frame.columns]
    if frame.empty:
        return pd.DataFrame(columns=["system", *groups, "value", "rank", "tied", "nan_last"])
    frame = frame.assign(system=frame["system"].astype(str))
    if frame.duplicated(["system", *groups]).any():
        raise ValueError("more than one score per system within a (" + ", ".join(groups) + ") group")
    systems = list(dict.fromkeys(frame["system"]))
    table = frame.pivot_table(index=groups, columns="system", values="value", aggfunc="first", dropna=False,
                              sort=False)
    table = table.reindex(columns=systems)
    index = table.index.to_frame(index=False)
    values = table.to_numpy(dtype=float)                                  # (G, S)
    measure_names = index["measure"].astype(str).to_numpy()
    sign = np.array([1.0 if _direction(m, higher_is_better) else -1.0 for m in measure_names])[:, None]
    key = np.where(np.isnan(values), -np.inf, values * sign)
    ranks = stats.rankdata(-key, method=method, axis=1)
    counts = (key[:, :, None] == key[:, None, :]).sum(axis=2)           # systems sharing each score
    G, S = values.shape
    out = index.loc[np.repeat(np.arange(G), S)].reset_index(drop=True)
    out.insert(0, "system", np.tile(np.asarray(systems, dtype=object), G))
    out["value"] = values.ravel()
    out["rank"] = ranks.ravel().astype(float)
    out["tied"] = (counts > 1).ravel()
    out["nan_last"] = np.isnan(values).ravel()
    # keep only (system, group) combinations that were in the input
    present = frame[["system", *groups]].assign(_in=True)
    out = out.merge(present, on=["system", *groups], how="left", sort=False)
    out = out[out["_in"].fillna(False).astype(bool)].drop(columns="_in").reset_index(drop=True)
    return out[["system", *groups, "value", "rank", "tied", "nan_last"]]


def rank_table(ranks: pd.DataFrame) -> pd.DataFrame:
    """The systems x measures rank table (Opitz 2022, Table 8; Gösgens et al. 2021, Table 6).

    Calibrated rankings appear as columns ``<measure>_c``. Rows are ordered by the first
    column's rank.
    """
    _check_columns(ranks, ("system", "measure", "rank"), "rank_table()")
    named = _named(ranks, None)
    names = list(dict.fromkeys(named["_name"]))
    systems = list(dict.fromkeys(named["system"].astype(str)))
    wide = named.pivot(index="system", columns="_name", values="rank").reindex(index=systems, columns=names)
    wide.columns.name = "measure"
    if names:
        wide = wide.sort_values(names[0], kind="stable")
    return wide


# ----------------------------------------------------------------------------- correlation


def rank_correlation(data: pd.DataFrame, method=METHODS, *, calibrated: bool | None = None,
                     higher_is_better: Mapping[str, bool] | None = None) -> pd.DataFrame:
    """Rank correlation between every pair of measures across the systems.

    ``data``: a scores frame (``value``) or a ranks frame from :func:`rank` (``rank``). Methods:
    ``"spearman"`` (rho: the Pearson correlation of the average ranks, equal to
    :func:`scipy.stats.spearmanr`) and ``"kendall"``
    (tau-b, computed for all pairs at once from the pairwise sign matrices; it equals
    :func:`scipy.stats.kendalltau` with its default ``variant='b'``). Correlations are between
    *rankings*, so a lower-is-better measure that orders systems the same way as a
    higher-is-better one correlates at +1.

    Undefined (NaN) values: the correlation of two measures is over the systems that have a value
    under both (``n_systems`` counts them), ranked afresh among themselves; an undefined value is
    no rank, not the last one. Fewer than three such systems give NaN with a note (two systems
    always correlate at +1 or -1: that is one pair's order, see :func:`inconsistency`).

    Returns every ordered pair including the diagonal (a heatmap's cells): ``measure_a``,
    ``measure_b``, ``method``, ``value``, ``n_systems``, ``note``. A measure that gives every
    system the same score has no ranking: its correlations are NaN with a note, not an error.
    """
    methods = (method,) if isinstance(method, str) else tuple(method)
    for m in methods:
        if m not in METHODS:
            raise ValueError(f"unknown correlation method {m!r}; choose from {', '.join(METHODS)}")
    column = _source_column(data)
    names, systems, matrix = _wide(data, column, calibrated)
    key = _keys(names, matrix, column, higher_is_better)
    M, S = key.shape
    defined = ~np.isnan(matrix)
    n_both = defined.astype(np.int64) @ defined.T.astype(np.int64)         # systems defined under a and b
    D, i, j = _pair_signs(key)
    if defined.all():                                # every pair comparable: no masks, no extra products
        Dz = D.astype(float)
        untied_a = np.broadcast_to(np.abs(Dz).sum(axis=1)[:, None], (M, M))
    else:
        E = _comparable(defined, i, j)
        Dz = np.where(E, D, 0).astype(float)
        untied_a = np.abs(Dz) @ E.T.astype(float)    # a's untied pairs among the systems defined under both
    untied_b = untied_a.T
    few = n_both < 3
    constant_a = (untied_a == 0) & ~few              # a gives every system defined under both one score
    constant_b = (untied_b == 0) & ~few
    frames = []
    for meth in methods:
        if S < 2:
            corr = np.full((M, M), np.nan)
        elif meth == "spearman":
            corr = _spearman_defined(key, defined)
        else:
            corr = _kendall_b(Dz, untied_a, untied_b)
        corr = np.where(few | constant_a | constant_b, np.nan, corr)
        note = np.full((M, M), "", dtype=object)
        if S < 2:
            note[:] = "fewer than two systems: no ranking to correlate"
        else:
            both = constant_a & constant_b
            note[constant_a & ~both] = "measure_a gives every system the same score: no ranking"
            note[constant_b & ~both] = "measure_b gives every system the same score: no ranking"
            note[both] = "both measures give every system the same score: no ranking"
            note[few] = "fewer than three systems have a value under both measures: no rank correlation"
        frames.append(pd.DataFrame({
            "measure_a": np.repeat(np.asarray(names, dtype=object), M),
            "measure_b": np.tile(np.asarray(names, dtype=object), M),
            "method": meth, "value": corr.ravel(), "n_systems": n_both.ravel(), "note": note.ravel()}))
    return pd.concat(frames, ignore_index=True)


def _spearman(key: np.ndarray) -> np.ndarray:
    """Spearman's rho between the rows of ``key`` (M, S), as an (M, M) matrix.

    The Pearson correlation of the average ranks (ranked with :func:`scipy.stats.rankdata`),
    which is what :func:`scipy.stats.spearmanr` computes - done here for all pairs at once,
    because ``spearmanr`` returns a single NaN for the whole matrix as soon as one row is
    constant. Constant rows give NaN rows.
    """
    centred = _centred_ranks(key)
    norm = np.sqrt((centred * centred).sum(axis=1))
    den = norm[:, None] * norm[None, :]
    rho = np.divide(centred @ centred.T, den, out=np.full(den.shape, np.nan), where=den > 0)
    return np.clip(rho, -1.0, 1.0)


def _centred_ranks(key: np.ndarray) -> np.ndarray:
    ranks = _average_ranks(key)
    return ranks - ranks.mean(axis=1, keepdims=True)


def _spearman_defined(key: np.ndarray, defined: np.ndarray) -> np.ndarray:
    """Spearman's rho of every pair of rows over the columns defined in both (``defined`` (M, S)).

    Measures are grouped by their pattern of defined systems (usually one or two patterns), and
    each pair of patterns is correlated over the systems the two share, ranked afresh there.
    Entries over fewer than two shared systems are NaN (the caller masks below three).
    """
    M = key.shape[0]
    patterns, group = np.unique(defined, axis=0, return_inverse=True)
    group = np.ravel(group)
    if len(patterns) == 1 and patterns[0].all():
        return _spearman(key)                     # nothing undefined: one product over every system
    rho = np.full((M, M), np.nan)
    members = [np.flatnonzero(group == g) for g in range(len(patterns))]
    for g in range(len(patterns)):                # a loop over patterns of undefined values only
        for h in range(g, len(patterns)):
            cols = patterns[g] & patterns[h]
            if cols.sum() < 2:
                continue
            a, b = members[g], members[h]
            if g == h:
                rho[np.ix_(a, a)] = _spearman(key[np.ix_(a, cols)])
                continue
            ca, cb = _centred_ranks(key[np.ix_(a, cols)]), _centred_ranks(key[np.ix_(b, cols)])
            den = np.sqrt((ca * ca).sum(axis=1))[:, None] * np.sqrt((cb * cb).sum(axis=1))[None, :]
            block = np.clip(np.divide(ca @ cb.T, den, out=np.full(den.shape, np.nan), where=den > 0), -1.0, 1.0)
            rho[np.ix_(a, b)] = block
            rho[np.ix_(b, a)] = block.T
    return rho


def _kendall_b(Dz: np.ndarray, untied_a: np.ndarray, untied_b: np.ndarray) -> np.ndarray:
    """Kendall's tau-b between the rows of the sign matrix: (n_c - n_d) / sqrt((n0 - n1)(n0 - n2)).

    ``Dz`` (M, P): the pair signs, 0 where a pair is not comparable under the measure; so
    n_c - n_d = Dz @ Dz.T counts only pairs comparable under both, and ``untied_a`` / ``untied_b``
    are each measure's untied pairs among those.
    """
    num = Dz @ Dz.T
    den = np.sqrt(untied_a * untied_b)
    return np.divide(num, den, out=np.full(num.shape, np.nan), where=den > 0)


def calibration_correlation(data: pd.DataFrame, method=METHODS, *,
                            higher_is_better: Mapping[str, bool] | None = None) -> pd.DataFrame:
    """Correlation of each measure's ranking with its prevalence-calibrated self (``m`` vs ``m_c``).

    Opitz (2022, Appendix G, Figure 2): only the recall-based measures keep their team
    ranking after calibration. ``data`` must have a ``calibrated`` column. Returns ``measure``,
    ``method``, ``value``, ``n_systems``, ``note``.
    """
    _check_columns(data, ("calibrated",), "calibration_correlation()")
    corr = rank_correlation(data, method, higher_is_better=higher_is_better)
    pairs = corr[corr["measure_b"] == corr["measure_a"] + CALIBRATED_SUFFIX]
    pairs = pairs[~pairs["measure_a"].str.endswith(CALIBRATED_SUFFIX) | pairs["measure_a"].isin(
        data.loc[~data["calibrated"].astype(bool), "measure"])]
    out = pairs.rename(columns={"measure_a": "measure"}).drop(columns="measure_b")
    return out.reset_index(drop=True)[["measure", "method", "value", "n_systems", "note"]]


# ----------------------------------------------------------------------------- disagreement


def _relation_labels(signs: np.ndarray, a: np.ndarray, b: np.ndarray, systems) -> np.ndarray:
    names = np.asarray(systems, dtype=object)
    return np.where(signs > 0, names[a], np.where(signs < 0, names[b], "tie"))


def disagreements(scores: pd.DataFrame, *, calibrated: bool | None = False,
                  higher_is_better: Mapping[str, bool] | None = None) -> pd.DataFrame:
    """Every pair of measures with every pair of systems they order differently.

    Gösgens et al. (2021), section 5.1: measures M1 and M2 are consistent on (A, B1, B2) if
    M1(A, B1) * M1(A, B2) implies M2(A, B1) * M2(A, B2) for * in {<, >, =}; here B1, B2 are two
    systems evaluated on the same gold labels A. Orders are preferences (direction-aware), so a
    tie under one measure and a strict preference under the other is a disagreement too. A pair
    of systems where either value is undefined (NaN) under either measure is not listed: such a
    measure gives that pair no order to disagree with (it is not ranked last here).

    Returns ``measure_a``, ``measure_b`` (``measure_a`` before ``measure_b`` in input order),
    ``system_a``, ``system_b``, ``value_a1`` = measure_a(system_a), ``value_a2`` =
    measure_a(system_b), ``value_b1``, ``value_b2``, ``prefers_a`` and ``prefers_b`` (the
    preferred system, or ``"tie"``). ``calibrated``: False (default) uses the raw scores only,
    True the calibrated ones, None both (calibrated measures named ``m_c``).
    """
    cols = ["measure_a", "measure_b", "system_a", "system_b", "value_a1", "value_a2", "value_b1", "value_b2",
            "prefers_a", "prefers_b"]
    names, systems, matrix, D, i, j = _value_relations(scores, calibrated, higher_is_better)
    M = len(names)
    E = _comparable(~np.isnan(matrix), i, j)
    names_arr = np.asarray(names, dtype=object)
    frames = []
    for a in range(M - 1):                    # loop over measures only; system pairs are vectorised
        diff = (D[a + 1:] != D[a]) & E[a + 1:] & E[a]      # (M - a - 1, P), comparable under both
        bs, ps = np.nonzero(diff)
        if not len(ps):
            continue
        bs = bs + a + 1
        frames.append(pd.DataFrame({
            "measure_a": names_arr[np.full(len(ps), a)], "measure_b": names_arr[bs],
            "system_a": np.asarray(systems, dtype=object)[i[ps]], "system_b": np.asarray(systems, dtype=object)[j[ps]],
            "value_a1": matrix[a, i[ps]], "value_a2": matrix[a, j[ps]],
            "value_b1": matrix[bs, i[ps]], "value_b2": matrix[bs, j[ps]],
            "prefers_a": _relation_labels(D[a, ps], i[ps], j[ps], systems),
            "prefers_b": _relation_labels(D[bs, ps], i[ps], j[ps], systems)}))
    if not frames:
        return pd.DataFrame({c: pd.Series(dtype=float if c.startswith("value") else object) for c in cols})
    return pd.concat(frames, ignore_index=True)[cols]


def inconsistency(scores: pd.DataFrame, *, calibrated: bool | None = False, by=None,
                  higher_is_better: Mapping[str, bool] | None = None) -> pd.DataFrame:
    """Fraction of system pairs that two measures order differently (Gösgens et al. 2021, Tables 4-6).

    Gösgens et al. (2021), section 5.1, define the inconsistency of two measures over pairs
    of systems that both measures order (<, > or =). A pair where either system's value is
    undefined (NaN, 0/0) under either measure is not comparable: it is neither concordant nor
    discordant, and it is left out of the rate's denominator (it is not ranked last here, as it
    is on a leaderboard).

    Returns every ordered pair of measures including the diagonal: ``measure_a``,
    ``measure_b``, ``n_pairs`` (S(S-1)/2), ``n_comparable`` (the system pairs with a value under
    both measures), ``discordant`` (comparable pairs ordered differently, ties included as in
    the definition of Gösgens et al. 2021) and ``rate`` = discordant / n_comparable (NaN when no pair is
    comparable, e.g. with fewer than two systems).

    ``by``: column(s) naming separate data sets (e.g. day and horizon in the rain experiment
    of Gösgens et al. 2021, Table 4): system pairs are formed within each data set and the counts summed
    over them.
    """
    if by is not None:
        keys = [by] if isinstance(by, str) else list(by)
        parts = [inconsistency(g.drop(columns=keys), calibrated=calibrated, higher_is_better=higher_is_better)
                 for _, g in scores.groupby(keys, sort=False)]          # loop over data sets
        if not parts:
            return inconsistency(scores.drop(columns=keys).iloc[:0], calibrated=calibrated)
        first = parts[0]
        n_pairs = sum(p["n_pairs"].to_numpy() for p in parts)
        n_comparable = sum(p["n_comparable"].to_numpy() for p in parts)
        discordant = sum(p["discordant"].to_numpy() for p in parts)
        rate = np.divide(discordant, n_comparable, out=np.full(discordant.shape, np.nan), where=n_comparable > 0)
        return first.assign(n_pairs=n_pairs, n_comparable=n_comparable, discordant=discordant, rate=rate)
    names, systems, matrix, D, i, j = _value_relations(scores, calibrated, higher_is_better)
    P = D.shape[1]
    defined = ~np.isnan(matrix)
    if defined.all():
        comparable = None
        n_comparable = np.full((len(names), len(names)), P, dtype=np.int64)
    else:
        comparable = _comparable(defined, i, j)
        C = comparable.astype(float)
        n_comparable = np.rint(C @ C.T).astype(np.int64)
    agree = np.zeros((len(names), len(names)))
    for v in (-1, 0, 1):                      # agreement = same relation, counted by matrix products
        E = ((D == v) if comparable is None else ((D == v) & comparable)).astype(float)
        agree += E @ E.T
    discordant = (n_comparable - agree).astype(np.int64)
    M = len(names)
    rate = np.divide(discordant, n_comparable, out=np.full(discordant.shape, np.nan), where=n_comparable > 0)
    return pd.DataFrame({
        "measure_a": np.repeat(np.asarray(names, dtype=object), M),
        "measure_b": np.tile(np.asarray(names, dtype=object), M),
        "n_pairs": P, "n_comparable": n_comparable.ravel(), "discordant": discordant.ravel(),
        "rate": rate.ravel()})
