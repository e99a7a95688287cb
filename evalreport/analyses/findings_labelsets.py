"""The findings that depend on the count type: what :func:`evalreport.analyses.findings.findings`
reads differently for a comparison of label sets (multi-label) than for one of single labels.

A label-set comparison has no confusion tensor: one 2 x 2 matrix per label and the items' set
statistics. So

- a measure's record is its label-set record (:func:`evalreport.measures.multilabel.label_record`);
- a constant predictor is a system with one distinct predicted set (``cardinality``);
- prevalence calibration acts on each label's own matrix (``calibration_summary``), which gives the
  ``winner_calibrated`` rows and ``calibration_rank_changes``;
- the cross-check tests of ``pairwise`` (approximate randomisation on the primary measure, McNemar
  on subset accuracy) give one ``separated_by_test`` row each;
- a value that exists only because 0/0 labels or items were skipped (``label_skips``,
  ``example_skips``) gives ``skipped_labels`` / ``skipped_items`` rows, and ``rests_on_skipping``
  for a leader or winner that skips more than another system under the same measure;
- what needs one confusion matrix of all classes (the fragility count, its prevalence calibration
  and the what-if class distributions) gives a ``not_computed`` row with the reason.

The rows (``finding, system, measure, value, detail``) are those of :data:`~.findings.COLUMNS`.
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd

from evalreport.analyses.letters import TEST_NAMES
from evalreport.measures import get

__all__ = ["is_label_sets", "table_of", "measure_record", "measure_families", "constant_sets", "label_set_rows",
           "rank_one"]

#: What the findings of label sets leave out, and why.
NOT_COMPUTED = {
    "fragility": "the fragility count moves items between the cells of one confusion matrix; label sets have one "
                 "2 x 2 matrix per label and no such moves",
    "whole-matrix calibration": "the prevalence calibration of one confusion matrix of all classes (Opitz 2022, "
                                "eq. 6) and its what-if class distributions reweigh that matrix's rows; label sets "
                                "are calibrated label by label instead (the per-label calibration findings; "
                                "calibration_summary.csv)",
}


def is_label_sets(comp) -> bool:
    """True for a comparison of label sets (``kind`` "multilabel", or a comparison made from
    multi-label runs).

    Parameters
    ----------
    comp
        A comparison (single-label or multi-label).

    Returns
    -------
    bool
    """
    kind = getattr(comp, "kind", None)
    if kind is not None:
        return kind == "multilabel"
    return dict(getattr(comp, "settings", {}) or {}).get("input") == "multilabel runs"


def table_of(comp, name: str) -> pd.DataFrame:
    """A table only one kind of comparison has: ``comp.extra[name]``, or the attribute ``name``;
    an empty frame when the comparison has neither.

    Parameters
    ----------
    comp
        A comparison.
    name
        The table's name (``calibration_summary``, ``cardinality``, ``label_skips``, ...).

    Returns
    -------
    pandas.DataFrame
    """
    extra = getattr(comp, "extra", None)
    table = extra.get(name) if isinstance(extra, dict) else getattr(comp, name, None)
    return table if isinstance(table, pd.DataFrame) else pd.DataFrame()


def measure_record(comp, measure: str):
    """The record that computed ``measure`` in ``comp`` (its label, direction).

    Parameters
    ----------
    comp
        A comparison.
    measure
        A measure id of the comparison.

    Returns
    -------
    evalreport.measures.Measure
    """
    if is_label_sets(comp):
        from evalreport.measures.multilabel import label_record

        return label_record(measure)
    return comp.record(measure)


def measure_families(comp) -> dict[str, str]:
    """Measure id -> ``"label-based"`` or ``"example-based"`` for label sets; empty for single labels
    (one family).

    Parameters
    ----------
    comp
        A comparison.

    Returns
    -------
    dict[str, str]
    """
    if not is_label_sets(comp):
        return {}
    return {m: ("example-based" if get(m).kind == "example" else "label-based") for m in comp.measures}


def rank_one(frame: pd.DataFrame, key: str) -> list[tuple]:
    """Every rank-1 system per value of ``key`` (a tie for first: several).

    Parameters
    ----------
    frame : DataFrame
        Rows with ``key``, system, value and rank; a row without a value wins nothing.
    key : str
        The column to group by (``"measure"``, ``"scenario"``).

    Returns
    -------
    list of tuple
        ``(key value, system, value)`` of every winner, groups in order of appearance.
    """
    out = []
    for k, one in frame[frame["value"].notna()].groupby(key, sort=False):     # undefined values win nothing
        best = one["rank"].min()
        if pd.isna(best):
            continue
        top = one[one["rank"] == best]
        # an average rank > 1 for the best means a tie for first: every tied system wins
        out += [(k, s, v) for s, v in zip(top["system"], top["value"])]
    return out


def constant_sets(comp) -> dict[str, str]:
    """System -> ``"the same label set"`` (what it predicts for every item, as the single-label
    rows name the one class) for every system with one distinct predicted set (``cardinality``).

    Parameters
    ----------
    comp
        A label-set comparison.

    Returns
    -------
    dict[str, str]
    """
    card = table_of(comp, "cardinality")
    if card.empty or "distinct_sets" not in card:
        return {}
    own = card[(card["role"] == "system") & (card["distinct_sets"] == 1)]
    return {str(s): "the same label set" for s in own["source"]}


def label_set_rows(comp, add: Callable[..., None], rows: list[dict], *, alpha: float, test: str) -> None:
    """Add the label-set rows of the module docstring through ``add(finding, system, measure, value,
    detail)``.

    Parameters
    ----------
    comp
        A label-set comparison.
    add
        Appends one findings row.
    rows
        The rows so far (the leader and winner rows the skipping caveat is about).
    alpha
        The significance level of the tests.
    test
        The test of the significance letters (its rows are counted by ``separated_pairs``).

    Returns
    -------
    None
    """
    _other_tests(comp.pairwise, add, alpha=alpha, test=test)
    _calibration(comp, add)
    _skips(comp, add, rows)
    for what in NOT_COMPUTED:
        add("not_computed", "", comp.primary, np.nan, f"{what}: {NOT_COMPUTED[what]}")


def _other_tests(pairwise: pd.DataFrame, add: Callable[..., None], *, alpha: float, test: str) -> None:
    """Per cross-check test of ``pairwise``: how many pairs it separates (Holm within the test)."""
    if pairwise is None or not len(pairwise) or "test" not in pairwise:
        return
    for name, own in pairwise[pairwise["test"] != test].groupby("test", sort=False):
        defined = own[own["p_value"].notna()]
        if defined.empty:
            continue
        add("separated_by_test", "", str(defined["measure"].iloc[0]), int((defined["p_holm"] < alpha).sum()),
            f"{TEST_NAMES.get(name, name)} test, Holm-corrected over {len(defined)} "
            f"pair{'s' * (len(defined) != 1)}")


def _calibration(comp, add: Callable[..., None]) -> None:
    """Per label-based measure the leader after per-label calibration, and the systems whose rank it changes."""
    cs = table_of(comp, "calibration_summary")
    if cs.empty or len(comp.systems) < 2:
        return
    settings = dict(comp.settings)
    pi, ref = settings.get("calibration_prevalence"), settings.get("calibration_reference")
    how = "per-label prevalence calibration" + (f" to the reference prevalence {float(pi):.3g}"
                                                 if isinstance(pi, (int, float)) else "") \
        + (f" ({ref})" if isinstance(ref, str) else "")
    calibrated = cs.assign(value=cs["calibrated"], rank=cs["rank_calibrated"])
    for meas, s, v in rank_one(calibrated, "measure"):
        add("winner_calibrated", s, meas, float(v) if pd.notna(v) else np.nan, "per label")
    own = cs[cs["measure"] == comp.primary]
    if len(own):
        add("calibration_rank_changes", "", comp.primary, int((own["rank"] != own["rank_calibrated"]).sum()), how)


def _skips(comp, add: Callable[..., None], rows: list[dict]) -> None:
    """Values that exist only because 0/0 labels or items were skipped, and leaders that skip more than others."""
    scores = comp.scores[comp.scores["value"].notna()]
    valued = set(zip(scores["system"], scores["measure"]))
    value = scores.set_index(["system", "measure"])["value"]
    counted: dict[tuple[str, str], tuple[int, int, str, str]] = {}
    ls = table_of(comp, "label_skips")
    for r in ls.itertuples(index=False):
        counted[(str(r.system), str(r.measure))] = (int(r.skipped), int(r.total), "labels", str(r.policy))
    es = table_of(comp, "example_skips")
    for r in es[es["zero_division_items"] > 0].itertuples(index=False) if len(es) else ():
        counted[(str(r.system), str(r.measure))] = (int(r.zero_division_items), int(r.items), "items", str(r.policy))
    extra = _sklearn_readings(es)
    for (s, meas), (k, n, unit, policy) in counted.items():
        if (s, meas) not in valued or k <= 0:
            continue
        add(f"skipped_{unit}", s, meas, k, _used(k, n, unit, policy) + extra.get((s, meas), ""))
    for r in [r for r in rows if r["finding"] in ("leader", "winner")]:
        key = (r["system"], r["measure"])
        if key not in counted or key not in valued or counted[key][3] == "zero":   # filled with 0: favours nobody
            continue
        k, n, unit, policy = counted[key]
        # a case every system meets alike (the gold sets' empty items for recall) favours nobody
        fewest = min(counted.get((o, r["measure"]), (0,))[0] for o, mm in valued if mm == r["measure"])
        if k > fewest:
            add("rests_on_skipping", r["system"], r["measure"], float(value[key]), _used(k, n, unit, policy))


def _used(k: int, n: int, unit: str, policy: str) -> str:
    """``"averages only 120 of the 400 items"`` or ``"counts 3 of the 6 labels as the one policy's value"``."""
    return (f"averages only {n - k:,} of the {n:,} {unit}" if policy == "nan" else
            f"counts {k:,} of the {n:,} {unit} as the {policy} policy's value")


def _sklearn_readings(es: pd.DataFrame) -> dict[tuple[str, str], str]:
    """(system, measure) -> how scikit-learn's three readings of a 0/0 item compare with the value."""
    words = {"nan": "left out", "0": "counted as 0", "1": "counted as 1"}
    out = {}
    for r in es.itertuples(index=False) if len(es) else ():
        same = [z for z in str(r.equals).split(", ") if z in words] if isinstance(r.equals, str) else []
        other = [f"{getattr(r, f'zero_division_{zd}'):.3f} if counted as {zd}" for zd in ("0", "1")
                 if zd not in same and pd.notna(getattr(r, f"zero_division_{zd}"))]
        text = (f"; {', '.join(other)}" if other else "") + (
            f"; equals scikit-learn's with those items {words[same[0]]}" if same else "")
        out[(str(r.system), str(r.measure))] = text
    return out
