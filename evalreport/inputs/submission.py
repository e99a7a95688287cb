"""Every fault of one prediction file at once, in a participant's words: what a scoring program
(``evalreport codabench``) tells a team whose submission it cannot score.

:func:`~evalreport.inputs.readers.read_runs` stops at the first fault and suggests the options an
organiser has (``--allow-unknown``, ``--missing abstain``). A participant pays a submission per
attempt and sets no options, so :func:`submission_faults` checks the whole file against the gold
ids and the class list and returns every kind of fault found - empty ids, empty or missing-value
predictions, labels that are no class, repeated ids, ids that are no test item, test items without
a prediction - each with its count and its first few lines (``row k`` for Parquet), and
:func:`faults_error` words them as one :class:`~evalreport.errors.InputError` line. It runs on the
error path only (after the reader refused the file), so the common case costs nothing.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from evalreport.errors import InputError
from evalreport.inputs.checks import listing, near_miss, short
from evalreport.inputs.tables import MISSING_LABELS, Table, read_table
from evalreport.words import counted

__all__ = ["Fault", "submission_faults", "faults_error", "EXAMPLES"]

#: Occurrences of each kind of fault shown (the count says how many there are in all).
EXAMPLES = 3


@dataclass(frozen=True)
class Fault:
    """One kind of fault: ``kind`` (a short name), how many rows or items have it, the sentence that
    says so with the first examples, and where the first one is (``line``/``item``, for a message
    about that one alone)."""

    kind: str
    count: int
    text: str
    line: int | None = None
    item: str | None = None


def submission_faults(gold, submission, classes: Sequence[str], *, id_col: str = "id", label_col: str = "label",
                      gold_id_col: str | None = None, unknown_labels: bool = True,
                      missing_items: bool = True) -> list[Fault]:
    """Every kind of fault of the prediction file ``submission`` against the gold file ``gold`` and
    the class list ``classes``, in a fixed order (empty list: none of these). ``unknown_labels`` /
    ``missing_items`` False: labels outside ``classes`` / gold items without a prediction are no
    fault (the organiser counts them as wrong). A file that cannot be read, or lacks the id or label
    column, raises its one error: nothing else can be checked then."""
    g, _ = read_table(gold, "gold", id_col=gold_id_col or id_col)
    s, _ = read_table(submission, "run", id_col=id_col)
    s.require(id_col, label_col)
    gold_ids = g.text(gold_id_col or id_col)
    ids = s.text(id_col)
    labels = s.text(label_col)
    faults = []

    no_id = _mask(pc.or_kleene(pc.is_null(ids), pc.equal(ids, "")))
    if no_id.any():
        faults.append(_rows(s, "empty id", no_id, f"{_count(no_id, 'row')} with an empty id"))
    no_label = _mask(pc.or_kleene(pc.is_null(labels), pc.is_in(labels, value_set=pa.array(MISSING_LABELS,
                                                                                             pa.large_string()))))
    if no_label.any():
        faults.append(_rows(s, "empty prediction", no_label, f"{_count(no_label, 'empty prediction')} (an empty "
                            "label or a missing-value marker such as 'nan')", values=labels))
    if unknown_labels:
        known = pa.array([str(c) for c in classes], pa.large_string())
        unknown = _mask(pc.invert(pc.is_in(labels, value_set=known))) & ~no_label
        if unknown.any():
            distinct = list(dict.fromkeys(labels.filter(pa.array(unknown)).to_pylist()))
            first = distinct[0]
            faults.append(_rows(s, "unknown label", unknown,
                                f"{_count(unknown, 'prediction')} with a label that is not a class", values=labels,
                                tail=f" ({counted(len(distinct), 'distinct label')}: {listing(distinct, EXAMPLES)}"
                                     f"{near_miss(first, classes)}; the classes are {listing(classes)})"))
    valid = pc.invert(pa.array(no_id))
    kept = ids.filter(valid)
    rows = np.flatnonzero(~no_id)
    if len(kept):
        codes = pc.dictionary_encode(kept).indices.to_numpy(zero_copy_only=False)
        _, first_at = np.unique(codes, return_index=True)
        earlier = np.arange(len(ids))                 # row -> the first row with its id
        earlier[rows] = rows[first_at[codes]]
        repeat = earlier != np.arange(len(ids))
        if repeat.any():
            faults.append(_rows(s, "repeated id", repeat, f"{_count(repeat, 'row')} repeating an id of an earlier row "
                                "(one prediction per item)", values=ids, earlier=earlier))
        extra = np.zeros(len(ids), dtype=bool)
        extra[rows] = _mask(pc.invert(pc.is_in(kept, value_set=gold_ids)))
        if extra.any():
            faults.append(_rows(s, "unknown id", extra, f"{_count(extra, 'row')} whose id is not a test item",
                                values=ids))
    if missing_items:
        absent = _mask(pc.invert(pc.is_in(gold_ids, value_set=kept)))
        if absent.any():
            gone = np.flatnonzero(absent)
            shown = ", ".join(short(gold_ids[int(k)].as_py()) for k in gone[:EXAMPLES])
            more = ", ..." if gone.size > EXAMPLES else ""
            faults.append(Fault("missing item", int(gone.size),
                                f"{gone.size:,} of {counted(len(gold_ids), 'test item')} "
                                f"{'has' if gone.size == 1 else 'have'} no prediction (ids {shown}{more})",
                                item=gold_ids[int(gone[0])].as_py()))
    return faults


def faults_error(faults: Sequence[Fault], path) -> InputError:
    """The faults as one error line: one fault of one row names its line (and id) as every error
    does; several are listed, each with its count and first lines, so one resubmission can fix them all."""
    if len(faults) == 1 and faults[0].count == 1:
        f = faults[0]
        return InputError(f.text, path=path, line=f.line, item=f.item)
    return InputError(f"{counted(len(faults), 'problem')} (fix them all before submitting again): "
                      + "; ".join(f.text for f in faults), path=Path(path))


def _mask(arr) -> np.ndarray:
    """A boolean Arrow array (nulls as false) as NumPy."""
    return np.asarray(pc.fill_null(arr, False).to_numpy(zero_copy_only=False), dtype=bool)


def _count(mask: np.ndarray, noun: str) -> str:
    return counted(int(mask.sum()), noun)


def _rows(s: Table, kind: str, mask: np.ndarray, text: str, *, values=None, earlier=None, tail: str = "") -> Fault:
    """A fault of the rows in ``mask``: ``text``, the first EXAMPLES rows with their lines, then ``tail``."""
    at = np.flatnonzero(mask)
    shown = []
    for row in at[:EXAMPLES]:
        row = int(row)
        what = []
        if values is not None:
            value = values[row].as_py()
            what.append(short(value if value is not None else ""))
        if earlier is not None:
            what.append(f"as {s.where(earlier[row])}")
        shown.append(s.where(row) + (f" ({', '.join(what)})" if what else ""))
    more = ", ..." if at.size > EXAMPLES else ""
    first = int(at[0])
    return Fault(kind, int(at.size), f"{text}: {', '.join(shown)}{more}{tail}", line=s.line(first),
                 item=s._item(first))
