"""Shared core of the benchmark statistics: a tidy scores frame as arrays, and ranks within tasks.

A benchmark's scores frame has one row per (task, system) that took part: columns ``task``,
``system``, ``value`` (the task's primary measure; NaN = undefined). Directions are per task
(``higher_is_better``: one bool or a mapping task -> bool).

Ranks are average ranks (1 = best; tied systems share the mean of their positions) within a
task, in three tiers: systems with a defined value first (by value, direction-aware), then the
systems whose value is undefined (tied), then - only with ``missing="last"`` - the systems that
did not take part (tied). With ``missing="drop"`` an absent system has no rank (NaN) in that
task. Used by :mod:`evalreport.analyses.consensus` and :mod:`evalreport.analyses.multitask_tests`.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from evalreport.errors import InputError

MISSING = ("drop", "last")
_BIG = np.finfo(float).max


@dataclass(frozen=True)
class Wide:
    """A scores frame as arrays: ``values`` (T, S) with NaN where undefined or absent."""

    tasks: tuple[str, ...]
    systems: tuple[str, ...]
    values: np.ndarray
    present: np.ndarray          # (T, S) bool: the system took part in the task
    higher_is_better: np.ndarray  # (T,) bool


def check_missing(missing: str) -> None:
    if missing not in MISSING:
        raise ValueError(f"missing must be one of {', '.join(MISSING)} (\"exclude\" is done by the caller); "
                         f"got {missing!r}")


def directions(tasks, higher_is_better) -> np.ndarray:
    """Per-task directions as a (T,) bool array; a mapping must name every task."""
    if isinstance(higher_is_better, Mapping):
        absent = [t for t in tasks if t not in higher_is_better]
        if absent:
            raise InputError(f"higher_is_better gives no direction for task(s) {', '.join(map(repr, absent))}")
        return np.array([bool(higher_is_better[t]) for t in tasks], dtype=bool)
    return np.full(len(tasks), bool(higher_is_better), dtype=bool)


def task_weights(tasks, weights) -> np.ndarray | None:
    """Per-task weights as a (T,) float array (None stays None); finite, >= 0, not all 0."""
    if weights is None:
        return None
    absent = [t for t in tasks if t not in weights]
    if absent:
        raise InputError(f"weights gives no weight for task(s) {', '.join(map(repr, absent))}")
    w = np.array([float(weights[t]) for t in tasks])
    if not np.all(np.isfinite(w)) or np.any(w < 0) or not np.any(w > 0):
        raise InputError("task weights must be finite, non-negative and not all zero")
    return w


def wide(scores: pd.DataFrame, higher_is_better=True) -> Wide:
    """The frame as arrays. Tasks keep their order of first appearance; systems are sorted by
    name (so results never depend on row order)."""
    needed = [c for c in ("task", "system", "value") if c not in scores.columns]
    if needed:
        raise InputError(f"the scores frame needs columns task, system, value; missing {', '.join(needed)}")
    if scores.empty:
        raise InputError("the scores frame has no rows: no task has a scored system")
    frame = scores.assign(task=scores["task"].astype(str), system=scores["system"].astype(str))
    dup = frame.duplicated(["task", "system"], keep=False)
    if dup.any():
        t, s = frame.loc[dup, ["task", "system"]].iloc[0]
        raise InputError(f"more than one value for task {t!r}, system {s!r}")
    tasks = tuple(dict.fromkeys(frame["task"]))
    systems = tuple(sorted(set(frame["system"])))
    ti = pd.Index(tasks).get_indexer(frame["task"])
    si = pd.Index(systems).get_indexer(frame["system"])
    values = np.full((len(tasks), len(systems)), np.nan)
    present = np.zeros(values.shape, dtype=bool)
    values[ti, si] = pd.to_numeric(frame["value"], errors="coerce").to_numpy(dtype=float)
    present[ti, si] = True
    return Wide(tasks, systems, values, present, directions(tasks, higher_is_better))


def oriented(values: np.ndarray, higher_is_better: np.ndarray) -> np.ndarray:
    """Values with lower-is-better tasks negated (larger = better), shape (..., T, S)."""
    sign = np.where(np.asarray(higher_is_better, dtype=bool), 1.0, -1.0)[:, None]
    return values * sign


def tier_ranks(key: np.ndarray, tier: np.ndarray) -> np.ndarray:
    """Average ranks (1 = best) along the last axis: lower tier first, larger key first within a
    tier; ``tier < 0`` = not ranked (NaN). Keys within a tier must not be NaN."""
    key = np.clip(np.nan_to_num(key, nan=0.0), -_BIG, _BIG)
    out = np.full(key.shape, np.nan)
    offset = np.zeros(key.shape[:-1] + (1,))
    for t in range(int(tier.max(initial=-1)) + 1):
        member = tier == t
        if not member.any():
            continue
        r = stats.rankdata(-np.where(member, key, -np.inf), method="average", axis=-1)
        out = np.where(member, r + offset, out)
        offset = offset + member.sum(axis=-1, keepdims=True)
    return out


def rank_in_tasks(values: np.ndarray, higher_is_better: np.ndarray, present: np.ndarray | None,
                  missing: str = "drop") -> np.ndarray:
    """Average ranks within each task, shape (..., T, S) like ``values`` (see the module doc)."""
    check_missing(missing)
    values = np.asarray(values, dtype=float)
    present = np.ones(values.shape[-2:], dtype=bool) if present is None else np.asarray(present, dtype=bool)
    present = np.broadcast_to(present, values.shape)
    defined = present & ~np.isnan(values)
    tier = np.where(defined, 0, np.where(present, 1, 2 if missing == "last" else -1))
    return tier_ranks(oriented(values, higher_is_better), tier)
