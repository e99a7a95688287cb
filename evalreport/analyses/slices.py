"""Slices: who wins on which part of the test set (domains, languages, lengths, groups).

A slice is a grouping of the same items, not a second comparison (fairlearn's ``MetricFrame``
gives by-group values, differences and ratios; here each comes with its uncertainty). For every
slice column of the runs (``Runs.slices``, :mod:`evalreport.inputs.slices`) and every slice, the
items of that slice go through the comparison's own design (:class:`~evalreport.analyses.designs.
DesignChoice`: items, whole clusters within the slice, several runs per system; score-based
measures through :class:`~evalreport.analyses.score_design.ScoreDesign`; label sets through
:class:`~evalreport.analyses.multilabel.LabelSetDesign`) and the engine
(:func:`~evalreport.analyses.engine.resampled`): a paired bootstrap within the slice (the same
resamples for every system), percentile intervals, and the Holm-corrected paired bootstrap tests of
the primary measure. Each slice has a seed of its own (derived from the comparison's seed, the
column and the slice), so the resamples of two slices are independent draws of disjoint items: the
gap between two slices of one system is tested on the difference of their resampled values (a
percentile interval, the normal-approximation p-value of the paired bootstrap test, Holm over every
system and pair of slices of one column and measure).

Four tables (:data:`COLUMNS`; docs/slices.md): ``slices``, ``slice_leaders``, ``slice_gaps`` and
``slice_summary``. A slice of fewer than :data:`MIN_ITEMS` items, or missing a gold class that a
class-averaged measure needs, is ``small``: its value is kept, its interval is not given, and it takes
no part in the gaps' tests.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from evalreport.analyses.engine import resampled
from evalreport.analyses.significance import bootstrap_p, holm

__all__ = ["slice_tables", "empty_tables", "COLUMNS", "MIN_ITEMS", "slice_measures", "SliceDesigns", "compare_slices",
           "single_label_designs", "single_label_slices", "label_set_slices"]

#: A slice of fewer items gets no interval (``small``).
MIN_ITEMS = 10

COLUMNS: dict[str, list[str]] = {
    "slices": ["system", "slice_col", "slice", "measure", "value", "lo", "hi", "n", "rank", "best", "small",
               "overall", "difference_to_overall", "ratio_to_overall"],
    "slice_leaders": ["slice_col", "slice", "measure", "n", "best", "value", "separated", "tied", "small", "shared"],
    "slice_gaps": ["system", "slice_col", "measure", "slice_a", "slice_b", "value_a", "value_b", "difference", "lo",
                   "hi", "p_value", "p_holm", "ratio"],
    "slice_summary": ["system", "slice_col", "measure", "worst_slice", "worst_value", "best_slice", "best_value",
                      "min_max_ratio", "max_difference", "robustness_rank"],
}


def empty_tables() -> dict[str, pd.DataFrame]:
    """The four slice tables, empty with their columns (no slices)."""
    return {name: pd.DataFrame(columns=cols) for name, cols in COLUMNS.items()}


@dataclass(frozen=True)
class SliceDesigns:
    """How a comparison's items are measured and resampled, for any subset of them.

    Attributes
    ----------
    make : callable
        ``make(items) -> design``: the engine's :class:`~evalreport.analyses.engine.Design` of the items at
        positions ``items`` (the comparison's design restricted to them).
    gold_classes : callable
        ``gold_classes(items) -> int``: how many of the task's gold classes the items hold.
    n_classes : int
        The task's gold classes present in all items.
    label : str
        The design in words (the manifest's note).
    unresampled : callable or None
        ``unresampled(items) -> bool``: whether the design has nothing to draw on these items (clustered
        items: a fold of the slice holds one cluster, the same in every resample); None: never.
    """

    make: Callable[[np.ndarray], Any]
    gold_classes: Callable[[np.ndarray], int]
    n_classes: int
    label: str
    unresampled: Callable[[np.ndarray], bool] | None = None


def slice_measures(records: Sequence, n_slices: int) -> list:
    """The measures of the slice tables: the primary (first) always, then the comparison's next measures
    while slices x measures stays within the comparison's own number of measures (so that the slices
    cost about one more comparison, whatever their number)."""
    keep = max(1, len(records) // max(n_slices, 1))
    return list(records[:keep])


def _slice_seed(seed: int, column: int, index: int) -> int:
    """A seed of one slice: independent of the other slices', fixed by the comparison's seed."""
    return int(np.random.SeedSequence([int(seed), 1 + column, index]).generate_state(1)[0])


def _needs_classes(m) -> bool:
    """Whether a measure averages over the gold classes (a class missing from a slice changes what it measures)."""
    return (getattr(m, "class_average", None) in ("macro", "weighted")
            or getattr(m, "averaging", None) in ("macro", "weighted") or getattr(m, "kind", "") == "binary")


def _ranks(values: np.ndarray, higher: bool) -> np.ndarray:
    """Ranks (1 = best, ties share the lowest rank; NaN last)."""
    key = np.round(np.where(np.isnan(values), -np.inf if higher else np.inf, values), 12)
    key = -key if higher else key
    return pd.Series(key).rank(method="min").to_numpy()


@dataclass
class _Slice:
    """One slice measured: its values on all its items, its resampled values and its primary measure's tests."""

    col: str
    name: str
    n: int
    point: np.ndarray            # (S, M)
    samples: np.ndarray | None   # (B, S, M)
    small: np.ndarray            # (M,) bool
    pairwise: pd.DataFrame | None


def _one_slice(designs: SliceDesigns, items: np.ndarray, records: Sequence, *, col: str, name: str, seed: int,
               bootstrap: int, alpha: float, systems: Sequence[str]) -> _Slice:
    """Point values, resamples and the primary measure's tests on the items of one slice."""
    design = designs.make(items)
    point = np.asarray(design.point(records), dtype=float)
    missing_class = designs.gold_classes(items) < designs.n_classes
    # one cluster (in a fold) is drawn every time: intervals of no width, every pair at the p floor
    fixed = designs.unresampled is not None and bool(designs.unresampled(items))
    small = np.array([items.size < MIN_ITEMS or fixed or (missing_class and _needs_classes(m)) for m in records])
    if bootstrap == 0 or items.size < MIN_ITEMS or fixed:
        return _Slice(col, name, int(items.size), point, None, small, None)
    directions = [design.direction(m) for m in records]
    order = [systems[k] for k in np.argsort(_ranks(point[:, 0], directions[0]), kind="stable")]
    boot = resampled(design, records, point, bootstrap=bootstrap, seed=seed, alpha=alpha, rounds=0,
                     pairwise_test="bootstrap", order=order, tests=("bootstrap",))
    return _Slice(col, name, int(items.size), point, boot.samples, small, boot.pairwise)


def slice_tables(slices: Mapping[str, np.ndarray], slice_order: Mapping[str, Sequence[str]],
                 designs: SliceDesigns, records: Sequence, systems: Sequence[str], overall: np.ndarray, *,
                 bootstrap: int, seed: int, alpha: float) -> dict[str, pd.DataFrame]:
    """The slice tables of one comparison.

    Parameters
    ----------
    slices : mapping
        Slice column -> ``(N,)`` slice name per item (``Runs.slices``).
    slice_order : mapping
        Slice column -> its slices in order (``Runs.slice_names``).
    designs : SliceDesigns
        The comparison's design for any subset of the items.
    records : sequence
        The measures (bound records), the primary first (:func:`slice_measures`).
    systems : sequence of str
        The systems, in the designs' order.
    overall : ndarray
        ``(S, M)`` every system's value on all items.
    bootstrap : int
        Resamples per slice (0: values and ranks only).
    seed : int
        The comparison's seed (each slice draws from a seed derived from it).
    alpha : float
        Test level; intervals at ``1 - alpha``.

    Returns
    -------
    dict
        ``slices``, ``slice_leaders``, ``slice_gaps``, ``slice_summary`` (:data:`COLUMNS`).
    """
    if not slices:
        return empty_tables()
    directions = [bool(getattr(m, "higher_is_better", True)) for m in records]
    rows, leaders, gaps, summary = [], [], [], []
    for c, (col, names) in enumerate(slices.items()):
        names = np.asarray(names, dtype=object)
        order = [v for v in slice_order.get(col, ()) if (names == v).any()] or sorted(set(names.tolist()))
        parts = [_one_slice(designs, np.flatnonzero(names == v), records, col=col, name=v,
                            seed=_slice_seed(seed, c, j), bootstrap=bootstrap, alpha=alpha, systems=systems)
                 for j, v in enumerate(order)]
        rows.append(_value_rows(parts, records, systems, overall, directions, alpha))
        leaders.append(_leader_rows(parts, records, systems, directions, alpha, overall[:, 0]))
        gaps.append(_gap_rows(parts, records, systems, alpha))
        summary.append(_summary_rows(parts, records, systems, directions))
    out = {"slices": rows, "slice_leaders": leaders, "slice_gaps": gaps, "slice_summary": summary}
    return {name: (pd.concat(frames, ignore_index=True)[COLUMNS[name]] if frames
                   else pd.DataFrame(columns=COLUMNS[name])) for name, frames in out.items()}


def _value_rows(parts: list[_Slice], records, systems, overall: np.ndarray, directions, alpha: float) -> pd.DataFrame:
    """The ``slices`` rows of one slice column."""
    S = len(systems)
    frames = []
    half = alpha / 2
    for p in parts:
        for j, m in enumerate(records):
            value = p.point[:, j]
            if p.samples is not None and not p.small[j]:
                with np.errstate(all="ignore"), _quiet():
                    lo, hi = np.nanquantile(p.samples[:, :, j], [half, 1 - half], axis=0)
            else:
                lo = hi = np.full(S, np.nan)
            rank = _ranks(value, directions[j]).astype(int)
            with np.errstate(all="ignore"):
                ratio = np.where(overall[:, j] != 0, value / overall[:, j], np.nan)
            frames.append(pd.DataFrame({
                "system": list(systems), "slice_col": p.col, "slice": p.name, "measure": m.id, "value": value,
                "lo": lo, "hi": hi, "n": p.n, "rank": rank, "best": rank == 1, "small": bool(p.small[j]),
                "overall": overall[:, j], "difference_to_overall": value - overall[:, j], "ratio_to_overall": ratio}))
    return pd.concat(frames, ignore_index=True)


def _leader_rows(parts: list[_Slice], records, systems, directions, alpha: float,
                 overall: np.ndarray) -> pd.DataFrame:
    """The ``slice_leaders`` rows of one slice column: the primary measure's best system per slice and
    the systems the Holm-corrected paired bootstrap tests within the slice separate from it.

    Several systems with the slice's best value share its lead: ``best`` is the one best on all items
    (``overall``, the primary's values; then the systems' order), ``shared`` names the others, so a
    shared lead is never credited to whichever system came first in the files."""
    m = records[0]
    rows = []
    overall_rank = _ranks(np.asarray(overall, dtype=float), directions[0])
    for p in parts:
        value = p.point[:, 0]
        rank = _ranks(value, directions[0])
        co = np.flatnonzero(rank == rank.min())
        best = int(co[np.argsort(overall_rank[co], kind="stable")[0]])
        shared = "; ".join(systems[k] for k in co if k != best) if np.isfinite(value[best]) else ""
        others = [systems[k] for k in np.argsort(rank, kind="stable") if k != best]
        separated: list[str] = []
        pw = p.pairwise
        if pw is not None and len(pw) and not p.small[0]:
            name = systems[best]
            mine = pw[(pw["test"] == "bootstrap") & ((pw["system_a"] == name) | (pw["system_b"] == name))]
            hit = set(mine.loc[mine["p_holm"] < alpha, ["system_a", "system_b"]].to_numpy().ravel().tolist())
            separated = [s for s in others if s in hit]
        tied = [s for s in others if s not in separated]
        rows.append((p.col, p.name, m.id, p.n, systems[best], float(value[best]), "; ".join(separated),
                     "; ".join(tied), bool(p.small[0]), shared))
    return pd.DataFrame(rows, columns=COLUMNS["slice_leaders"])


def _gap_rows(parts: list[_Slice], records, systems, alpha: float) -> pd.DataFrame:
    """The ``slice_gaps`` rows of one slice column: every pair of slices of every system, per measure."""
    frames = []
    half = alpha / 2
    S = len(systems)
    for j, m in enumerate(records):
        block = []
        for a in range(len(parts)):
            for b in range(a + 1, len(parts)):
                pa_, pb = parts[a], parts[b]
                va, vb = pa_.point[:, j], pb.point[:, j]
                diff = va - vb
                lo = hi = p = np.full(S, np.nan)
                if pa_.samples is not None and pb.samples is not None and not (pa_.small[j] or pb.small[j]):
                    d = pa_.samples[:, :, j] - pb.samples[:, :, j]          # independent draws of disjoint items
                    with np.errstate(all="ignore"), _quiet():
                        lo, hi = np.nanquantile(d, [half, 1 - half], axis=0)
                    p = bootstrap_p(d, diff)[0]
                with np.errstate(all="ignore"):
                    ratio = np.where(vb != 0, va / vb, np.nan)
                block.append(pd.DataFrame({
                    "system": list(systems), "slice_col": pa_.col, "measure": m.id, "slice_a": pa_.name,
                    "slice_b": pb.name, "value_a": va, "value_b": vb, "difference": diff, "lo": lo, "hi": hi,
                    "p_value": p, "ratio": ratio}))
        if block:
            frame = pd.concat(block, ignore_index=True)
            frame["p_holm"] = holm(frame["p_value"].to_numpy(dtype=float))      # the family: systems x pairs
            frames.append(frame)
    if not frames:
        return pd.DataFrame(columns=COLUMNS["slice_gaps"])
    return pd.concat(frames, ignore_index=True)[COLUMNS["slice_gaps"]]


def _summary_rows(parts: list[_Slice], records, systems, directions) -> pd.DataFrame:
    """The ``slice_summary`` rows of one slice column: worst and best slice, ratio, difference, robustness rank."""
    frames = []
    for j, m in enumerate(records):
        use = [p for p in parts if not p.small[j]] or parts
        values = np.stack([p.point[:, j] for p in use], axis=1)            # (S, slices)
        higher = directions[j]
        rows = []
        for s, name in enumerate(systems):
            v = values[s]
            ok = ~np.isnan(v)
            if not ok.any():
                rows.append((name, parts[0].col, m.id, "", np.nan, "", np.nan, np.nan, np.nan))
                continue
            k_lo, k_hi = np.nanargmin(v), np.nanargmax(v)
            worst, best = (k_lo, k_hi) if higher else (k_hi, k_lo)
            lo, hi = v[k_lo], v[k_hi]
            ratio = lo / hi if hi != 0 else np.nan
            rows.append((name, parts[0].col, m.id, use[worst].name, float(v[worst]), use[best].name, float(v[best]),
                         float(ratio), float(hi - lo)))
        frame = pd.DataFrame(rows, columns=COLUMNS["slice_summary"][:-1])
        frame["robustness_rank"] = _ranks(frame["worst_value"].to_numpy(dtype=float), higher).astype(int)
        frames.append(frame)
    return pd.concat(frames, ignore_index=True)


class _quiet:
    """Silence NumPy's all-NaN warnings (a column of NaN values gives NaN, not a warning)."""

    def __enter__(self):
        import warnings

        self._cm = warnings.catch_warnings()
        self._cm.__enter__()
        warnings.simplefilter("ignore", RuntimeWarning)

    def __exit__(self, *exc):
        return self._cm.__exit__(*exc)


# ----------------------------------------------------------------------------- in a comparison


def single_label_designs(choice, runs, *, positive: int | None, policy: str, costs, strata: str | None,
                         score_plan=None) -> SliceDesigns:
    """The :class:`SliceDesigns` of a comparison of single labels: its
    :class:`~evalreport.analyses.designs.DesignChoice` on the items of each slice, or with a score-based
    primary measure the :class:`~evalreport.analyses.score_design.ScoreDesign` of the slice's scores.

    Parameters
    ----------
    choice : DesignChoice
        The comparison's design (:func:`~evalreport.analyses.designs.choose_design`).
    runs : Runs
        All items.
    positive, policy, costs, strata
        As the comparison's.
    score_plan : ScorePlan, optional
        The comparison's score plan when its primary measure is score-based.

    Returns
    -------
    SliceDesigns
    """
    gold = np.asarray(runs.gold)
    n_classes = int(np.unique(gold).size)

    def gold_classes(items: np.ndarray) -> int:
        return int(np.unique(gold[items]).size)

    label = {"clustered items": "whole clusters within each slice",
             "several runs per system": "two-level bootstrap (runs, then the slice's items) within each slice",
             "clustered items, several runs per system": "two-level bootstrap (runs, then whole clusters) within "
                                                         "each slice"}
    unresampled = None
    if choice.clustered:
        from evalreport.analyses.designs import lone_cluster

        def unresampled(items: np.ndarray) -> bool:
            return lone_cluster(runs, items) is not None
    if score_plan is not None:
        from evalreport.counts.scores import score_counts

        def make_scores(items: np.ndarray):
            subset = runs.subset(items)
            sc = score_counts(subset, positive=positive)
            assert sc is not None                  # the runs carry scores: the comparison's plan has them
            from evalreport.analyses.score_design import with_strata

            # the comparison's design, on the slice (within gold classes when the comparison's is)
            return with_strata(choice.build_scores(sc, policy=policy, runs=subset), strata)

        return SliceDesigns(make_scores, gold_classes, n_classes,
                            "scores, " + label.get(choice.name, "paired bootstrap over the slice's items")
                            + (", within gold classes" if strata else ""),
                            unresampled)

    def make(items: np.ndarray):
        return choice.build(positive=positive, policy=policy, costs=costs, strata=strata, runs=runs.subset(items))[1]

    return SliceDesigns(make, gold_classes, n_classes,
                        label.get(choice.name, "paired bootstrap over the slice's items")
                        + (", within gold classes" if strata else ""), unresampled)


def compare_slices(runs, designs: SliceDesigns, records: Sequence, systems: Sequence[str], scores: pd.DataFrame,
                   settings) -> tuple[dict[str, pd.DataFrame], list[str], dict[str, Any]]:
    """The slice tables of a comparison, its notes and its manifest settings.

    Parameters
    ----------
    runs : Runs or MultiLabelRuns
        The items, with ``slices`` (None: empty tables).
    designs : SliceDesigns
        The comparison's design on subsets (:func:`single_label_designs`).
    records : sequence
        The comparison's measures, the primary first.
    systems : sequence of str
        The systems in the designs' order.
    scores : DataFrame
        The comparison's scores (system, measure, value, calibrated): the overall values.
    settings : Settings
        ``slice_cols`` (the columns, in order; default every column of the runs), ``bootstrap``,
        ``seed``, ``alpha``.

    Returns
    -------
    tables : dict
        ``slices``, ``slice_leaders``, ``slice_gaps``, ``slice_summary``.
    notes : list of str
    manifest : dict
        ``slice_cols``, ``slice_measures``, ``slice_resampling``.
    """
    from evalreport.errors import InputError

    carried = getattr(runs, "slices", None) or {}
    wanted = tuple(settings.slice_cols) or tuple(carried)
    lost = [c for c in wanted if c not in carried]
    if lost:
        raise InputError(f"--slice-col {', '.join(lost)}: the runs carry no such slices; read them with that column "
                         f"(read_runs(..., slice_cols={tuple(wanted)!r})) from item-level gold and run files")
    if not wanted:
        return empty_tables(), [], {}
    slices = {c: carried[c] for c in wanted}
    n_slices = sum(len(set(np.asarray(v).tolist())) for v in slices.values())
    chosen = slice_measures(records, n_slices)
    raw = scores[~scores["calibrated"].astype(bool)] if "calibrated" in scores else scores
    table = raw.pivot_table(index="system", columns="measure", values="value", aggfunc="first", dropna=False)
    overall = np.array([[table.at[s, m.id] if s in table.index and m.id in table.columns else np.nan
                         for m in chosen] for s in systems], dtype=float)
    tables = slice_tables(slices, getattr(runs, "slice_names", {}) or {}, designs, chosen, systems, overall,
                          bootstrap=settings.bootstrap, seed=settings.seed, alpha=settings.alpha)
    ids = ", ".join(m.id for m in chosen)
    small = tables["slices"]
    n_small = int(small.loc[small["small"].astype(bool), ["slice_col", "slice"]].drop_duplicates().shape[0])
    note = (f"slices ({', '.join(wanted)}): {settings.bootstrap} resamples per slice, {designs.label}, the same "
            f"resamples for every system, a seed per slice derived from seed {settings.seed}; measures {ids} "
            f"(the primary, plus the next measures while slices x measures stays within the comparison's own "
            f"count); leaders separated by Holm-corrected paired bootstrap tests within each slice; gaps between "
            f"slices tested on independent resamples, Holm over each column's systems x pairs")
    notes = [note]
    if n_small:
        one = n_small == 1
        notes.append(f"{n_small} slice{'' if one else 's'} with fewer than {MIN_ITEMS} items or without a gold class that "
                     "a class-averaged measure needs"
                     + (" or with one cluster (in a fold), which every resample draws whole,"
                        if designs.unresampled is not None else "")
                     + f" {'is' if one else 'are'} flagged small: values kept, no intervals or gap tests")
    manifest = {"slice_cols": list(wanted), "slice_measures": [m.id for m in chosen],
                "slice_resampling": designs.label}
    return tables, notes, manifest


def single_label_slices(choice, settings, *, records: Sequence, plan, systems: Sequence[str], scores: pd.DataFrame,
                        positive: int | None) -> tuple[dict[str, pd.DataFrame], list[str], dict[str, Any]]:
    """:func:`compare_slices` of a comparison of single labels (its design, its confusion records, or its
    score plan's records when the primary measure is score-based)."""
    from evalreport.errors import InputError
    from evalreport.inputs.runs import Runs

    runs = choice.runs
    if not isinstance(runs, Runs) or runs.slices is None:
        raise InputError(f"--slice-col {', '.join(settings.slice_cols)}: slices need item-level runs read with "
                         "those gold columns (read_runs(..., slice_cols=...)); confusion matrices and out-of-core "
                         "patterns carry no slices")
    score_primary = plan is not None and plan.primary is not None
    designs = single_label_designs(choice, runs, positive=positive, policy=settings.policy, costs=settings.costs,
                                   strata=settings.bootstrap_strata, score_plan=plan if score_primary else None)
    return compare_slices(runs, designs, plan.records if score_primary else records, systems, scores, settings)


def label_set_slices(runs, settings, *, records: Sequence, systems: Sequence[str],
                     scores: pd.DataFrame) -> tuple[dict[str, pd.DataFrame], list[str], dict[str, Any]]:
    """:func:`compare_slices` of a comparison of label sets: each slice's items through
    :class:`~evalreport.analyses.multilabel.LabelSetDesign` (a label without gold items in a slice makes
    the label-averaged measures ``small`` there)."""
    from evalreport.analyses.multilabel import LabelSetDesign

    gold = np.asarray(runs.gold)[:, :runs.n_task]
    n_labels = int(gold.any(axis=0).sum())

    def make(items: np.ndarray):
        return LabelSetDesign(runs.subset(items), policy=settings.policy)

    def gold_labels(items: np.ndarray) -> int:
        return int(gold[items].any(axis=0).sum())

    designs = SliceDesigns(make, gold_labels, n_labels, "paired bootstrap over the slice's items (label sets)")
    return compare_slices(runs, designs, records, systems, scores, settings)
