"""Classes, systems and folds of one counting job of :mod:`evalreport.counts.bigdata`: the raw
values the engine returns (distinct values only) mapped to codes, as the in-memory reader reads
them, and the results built from the engine's groups (confusion tensors, pattern counts).
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING, cast

import numpy as np

from evalreport.counts import Counts
from evalreport.counts.pattern_counts import PatternCounts
from evalreport.errors import InputError
from evalreport.inputs.readers import ABSTAIN, MISSING_LABELS, announce_prediction_only, natural_sorted
from evalreport.inputs.runs import code_dtype

if TYPE_CHECKING:
    from evalreport.counts.bigdata_job import Job

_MAX_LISTED = 10


def raw_text(value) -> str | None:
    """A raw label/system value as the in-memory reader sees it (None = missing)."""
    if value is None:
        return None
    if isinstance(value, (bytes, bytearray)):
        value = value.decode("utf-8", "replace")
    if isinstance(value, (float, np.floating)):
        if math.isnan(value):
            return None
        if math.isfinite(value) and float(value).is_integer() and abs(float(value)) < 2 ** 53:
            return str(int(value))
        return repr(float(value))
    if isinstance(value, (bool, np.bool_)):
        return "true" if value else "false"
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    text = str(value).strip()
    return None if text in MISSING_LABELS else text


def _checked_text(value) -> str:
    """:func:`raw_text` of a value already checked not to be missing."""
    return cast(str, raw_text(value))


def _listing(names, limit: int = _MAX_LISTED) -> str:
    names = list(names)
    shown = ", ".join(repr(str(n)) for n in names[:limit])
    return shown + (f", ... ({len(names)} in all)" if len(names) > limit else "")



class Plan:
    """Classes, systems and folds of one job, and the raw -> code maps."""

    def __init__(self, job: Job, gold_groups: dict, labels, missing: str, n_items: int):
        self.job = job
        self.missing = missing
        self.n_items = n_items
        raw_labels = np.asarray(gold_groups["label"], dtype=object)
        texts = [raw_text(v) for v in raw_labels]
        if any(t is None for t in texts):
            k = next(i for i, t in enumerate(texts) if t is None)
            raise InputError(f"{int(np.asarray(gold_groups['n'])[[t is None for t in texts]].sum())} gold row(s) "
                             f"have an empty or missing label ({raw_labels[k]!r})", path=job.gold_label)
        found = sorted(set(cast(list[str], texts)))      # none is missing (checked above)
        if labels is not None:
            if isinstance(labels, str):
                raise InputError("labels must be a list of class names, not a single string")
            classes = [str(x).strip() for x in labels]
            if len(set(classes)) != len(classes):
                raise InputError("labels list names a class more than once")
            extra = natural_sorted(t for t in found if t not in set(classes))
            if extra:
                raise InputError(f"gold label(s) {_listing(extra)} are not in the labels list {_listing(classes)}",
                                 path=job.gold_label)
        else:
            classes = natural_sorted(found)
        if ABSTAIN in classes:
            raise InputError(f"{ABSTAIN!r} is reserved for predictions a run lacks; rename that class",
                             path=job.gold_label)
        if len(classes) < 2:
            raise InputError(f"the gold labels hold only one class ({_listing(classes)}); measures need at least "
                             "two (--labels a,b,c; Python: labels=[...]) to declare the other classes", path=job.gold_label)
        self.classes = list(classes)
        self.n_known = len(classes)
        index = {c: k for k, c in enumerate(classes)}
        # distinct raw gold values -> class code
        uniq_raw = unique_raw(raw_labels)
        self.gold_raw = uniq_raw
        self.gold_codes = np.array([index[_checked_text(v)] for v in uniq_raw], dtype=np.int64)
        self._gold_lookup = dict(zip(keys(uniq_raw), self.gold_codes.tolist()))
        # folds
        raw_folds = np.asarray(gold_groups["fold"], dtype=object)
        if job.has_folds:
            fold_texts = [raw_text(v) for v in raw_folds]
            if any(t is None for t in fold_texts):
                raise InputError("gold rows with an empty fold", path=job.gold_label)
            self.fold_names = tuple(natural_sorted(set(cast(list[str], fold_texts))))
            findex = {f: k for k, f in enumerate(self.fold_names)}
            self._fold_lookup = {key: findex[_checked_text(v)] for key, v in zip(keys(raw_folds), raw_folds)}
        else:
            self.fold_names = ()
            self._fold_lookup = {key: 0 for key in keys(raw_folds)}
        # gold class totals per fold (for the abstain column)
        F = max(len(self.fold_names), 1)
        totals = np.zeros((F, self.n_known), dtype=np.int64)
        f_codes = np.array([self._fold_lookup[k] for k in keys(raw_folds)], dtype=np.int64)
        g_codes = np.array([self._gold_lookup[k] for k in keys(raw_labels)], dtype=np.int64)
        np.add.at(totals, (f_codes, g_codes), np.asarray(gold_groups["n"], dtype=np.int64))
        self.gold_totals = totals
        self.missing_rows: dict[int, int] = {}
        self.extras: list[str] = []
        self.rows: dict = {}          # the run table's columns, set by the job that scans it

    def set_systems(self, raw_systems, wanted) -> None:
        raw = np.asarray(raw_systems, dtype=object)
        names = [raw_text(v) for v in raw]
        if any(n is None for n in names):
            raise InputError("run rows with an empty system name", path=self.job.runs_label)
        by_name: dict[str, object] = {}
        for n, v in zip(cast(list[str], names), raw):       # none is missing (checked above)
            if n in by_name:
                raise InputError(f"system name {n!r} is written in two ways in the run table", path=self.job.runs_label)
            by_name[n] = v
        if wanted is not None:
            order = [str(s) for s in wanted]
            unknown = [s for s in order if s not in by_name]
            if unknown:
                raise InputError(f"system(s) {_listing(unknown)} are not in the run table (systems: "
                                 f"{_listing(natural_sorted(by_name))})", path=self.job.runs_label)
            if len(set(order)) != len(order):
                raise InputError("systems list names a system more than once")
        else:
            order = natural_sorted(by_name)
        self.systems = tuple(order)
        self.system_index = {s: k for k, s in enumerate(order)}
        self.system_raw = np.array([by_name[s] for s in order], dtype=object)
        self._sys_lookup = {key: self.system_index.get(_checked_text(v), -1) for key, v in zip(keys(raw), raw)}

    def resolve_predictions(self, raw_preds, *, allow_unknown: bool, job: Job) -> None:
        """Map the distinct raw predicted labels to codes; unknown ones are an error or extra classes."""
        uniq = unique_raw(np.asarray(raw_preds, dtype=object))
        index = {c: k for k, c in enumerate(self.classes)}
        maybe_texts = [raw_text(v) for v in uniq]
        if any(t is None for t in maybe_texts):
            raise InputError("run rows with an empty or missing predicted label", path=job.runs_label)
        texts = cast(list[str], maybe_texts)
        unknown = natural_sorted({t for t in texts if t not in index})
        if unknown and not allow_unknown:
            raw = uniq[texts.index(unknown[0])]
            lit = job.table("unknown", {"raw": [raw]})
            row = job.example(f"SELECT r.{job.rsys}, r.{job.rid} FROM {job.runs_view} r JOIN {lit} o "
                              f"ON r.{job.rlab} = o.raw")
            where = "" if row is None else f"; e.g. system {raw_text(row[0])!r}, id {row[1]!r}"
            raise InputError(f"{len(unknown)} predicted label(s) are not classes "
                             f"(classes: {_listing(self.classes)}): {_listing(unknown)}{where}; use "
                             "--allow-unknown (Python: allow_unknown=True) to count them as wrong", path=job.runs_label,
                             item=None if row is None else row[1])
        self.extras = unknown
        final = list(self.classes) + unknown
        abstain = None
        if self.missing_rows:
            abstain = len(final)
            final.append(ABSTAIN)
        self.labels = tuple(final)
        self.abstain = abstain
        announce_prediction_only(final[self.n_known:])
        full = {c: k for k, c in enumerate(final)}
        self.pred_raw = uniq
        self.pred_codes = np.array([full[t] for t in texts], dtype=np.int64)
        self._pred_lookup = dict(zip(keys(uniq), self.pred_codes.tolist()))

    # -- results -----------------------------------------------------------------------------
    def tensor(self, rows: dict, *, per_fold: bool) -> Counts:
        S, K = len(self.systems), len(self.labels)
        F = len(self.fold_names) if per_fold else 1
        s = np.array([self._sys_lookup[k] for k in keys(rows["sys"])], dtype=np.int64)
        f = np.array([self._fold_lookup[k] for k in keys(rows["fold"])], dtype=np.int64) if per_fold \
            else np.zeros(s.shape[0], dtype=np.int64)
        g = np.array([self._gold_lookup[k] for k in keys(rows["gold"])], dtype=np.int64)
        p = np.array([self._pred_lookup[k] for k in keys(rows["pred"])], dtype=np.int64)
        n = np.asarray(rows["n"], dtype=np.int64)
        keep = s >= 0                                   # systems not selected are dropped
        tensor = np.zeros((S, F, K, K), dtype=np.int64)
        np.add.at(tensor, (s[keep], f[keep], g[keep], p[keep]), n[keep])
        if self.abstain is not None:
            totals = self.gold_totals if per_fold else self.gold_totals.sum(axis=0, keepdims=True)
            counted = tensor[..., :self.n_known, :].sum(axis=-1)                  # (S, F, K_known)
            tensor[..., :self.n_known, self.abstain] = totals[None] - counted
        tensor = tensor if per_fold else tensor[:, 0]
        return Counts(tensor, self.labels, self.systems, self.fold_names if per_fold else (), self.n_task)

    @property
    def n_task(self) -> int | None:
        """Leading task classes (as Runs.n_task); None when every class is one."""
        return self.n_known if len(self.labels) > self.n_known else None

    def patterns(self, frame: dict, S: int) -> PatternCounts:
        n = np.asarray(frame["n"], dtype=np.int64)
        P = n.shape[0]
        cols = [frame["gold"]] + [frame[f"p{k}"] for k in range(S)]
        codes = np.empty((P, 1 + S), dtype=np.int64)
        for j, col in enumerate(cols):       # a loop over the S + 1 columns, vectorised over patterns
            col = np.asarray(col)
            if col.dtype == object:
                null = np.array([v is None or (isinstance(v, float) and math.isnan(v)) for v in col.tolist()],
                                dtype=bool)
            elif col.dtype.kind == "f":
                null = np.isnan(col)
            else:
                null = np.zeros(P, dtype=bool)
            if null.any():
                if self.abstain is None:   # cannot happen after validation; kept as a guard
                    raise InputError(f"system {self.systems[j - 1]!r} lacks predictions", path=self.job.runs_label)
                col = np.where(null, self.abstain, col)
            codes[:, j] = col.astype(np.int64)
        fold = np.array([self._fold_lookup[k] for k in keys(frame["fold"])], dtype=np.int64)
        order = np.lexsort(tuple(codes[:, j] for j in range(S, -1, -1)) + (fold,))
        dtype = code_dtype(len(self.labels))
        folds = fold[order].astype(code_dtype(max(len(self.fold_names), 1))) if self.fold_names else None
        return PatternCounts(patterns=codes[order].astype(dtype), counts=n[order], labels=self.labels,
                             systems=self.systems, folds=folds, fold_names=self.fold_names, abstain=self.abstain,
                             n_task=self.n_task)


def keys(values) -> list:
    """Hashable keys of raw values (numpy scalars as Python ones, NaN as None)."""
    out = []
    for v in np.asarray(values, dtype=object).tolist():
        if isinstance(v, float) and math.isnan(v):
            v = None
        out.append(v)
    return out


def unique_raw(values: np.ndarray) -> np.ndarray:
    """The distinct raw values (one per key of :func:`keys`), in first-seen order."""
    seen: dict = {}
    for key, v in zip(keys(values), np.asarray(values, dtype=object).tolist()):
        seen.setdefault(key, v)
    return np.array(list(seen.values()), dtype=object)
