"""Read multi-label gold and runs (a *set* of labels per item) into an immutable :class:`MultiLabelRuns`.

Layouts (chosen per file, or for every file with ``layout=``):

==========  ========================================================================================
``list``    JSON Lines or Parquet whose label column holds a list (``{"id": "7", "label": ["joy",
            "trust"]}``; ``[]`` is the empty set). List elements are text or numbers (numbers are
            written in their shortest form, ``1`` not ``1.0``).
``sep``     any format whose label column holds text with ``label_sep`` between labels
            (``joy,trust``); an empty field is the empty set, an empty label between two
            separators is an error. Chosen whenever ``label_sep`` is given and the column is text.
``long``    one row per (id, label) pair. An id's set is the labels of its rows; a row with an empty
            label (or JSON null) says "this id has the empty set" and may not stand beside rows
            with labels for the same id. An id with no row at all is *missing* (``missing=``), not
            the empty set: a truncated file must not read as "predicted nothing".
``wide``    one 0/1 indicator column per label: every column but the id column is a label (values
            ``0``/``1``, ``true``/``false`` or booleans). Chosen when the file has no label column.
==========  ========================================================================================

Detection (``layout=None``): a list-typed label column is ``list``; no label column but two or more
0/1 columns is ``wide`` (one is more likely a misnamed binary label column); text with ``label_sep``
is ``sep``; text with an id on several rows is ``long``; text with one row per id is single-label,
read as the long form only when no other file of the task is ``list``, ``sep`` or ``wide`` (beside
one that is, an error naming both files). ``layout="long"`` reads it as the long form regardless.

Rules as for single-label input (:mod:`evalreport.inputs.readers`), each error an
:class:`~evalreport.errors.InputError` naming the file, line (Parquet: row) and id: duplicate ids
(long form: (id, label) pairs), run ids not in gold, gold ids missing from a run (``missing="error"``;
``"abstain"``: the empty set, so every gold label of it is a false negative), empty ids, labels
outside the label set (``labels`` in that order, or the distinct gold labels sorted naturally).
Items with an empty gold set are valid (``allow_empty_gold=True``) or an error.

``allow_unknown=True`` keeps a label a run predicts outside the label set as an extra label (after
the label set, gold all false) and warns: dropping it would raise that system's precision for wrong
predictions. ``MultiLabelRuns.n_task`` counts the task's labels; label-based macro and weighted
averages run over those only, so a label one system invents cannot change another's average.

Limits: predictions are dense (S, N, L) booleans, at most :data:`MAX_INDICATOR_CELLS` (4 GiB), and
at most ``MAX_CLASSES`` labels. Reading is vectorised (pyarrow list kernels, one scatter per file).
"""
from __future__ import annotations

import json
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from evalreport.errors import InputError
from evalreport.inputs.checks import hash_file, listing, natural_sorted, near_miss, short
from evalreport.inputs.label_sets import LabelSets, describe_form, detect_form, parse_sets, read_with_form
from evalreport.inputs.lines import first_line
from evalreport.inputs.readers import run_files, too_many_classes
from evalreport.inputs.runs import Source, read_only, some_names
from evalreport.inputs.slices import read_slices, take_columns
from evalreport.inputs.tables import DELIMITER, HEADED, first_true

__all__ = ["MultiLabelRuns", "read_multilabel", "detect_multilabel", "LAYOUTS", "MAX_INDICATOR_CELLS"]

#: The multi-label file layouts (see the module docstring).
LAYOUTS = ("list", "sep", "long", "wide")
#: The most (system, item, label) indicator cells read at once: predictions are dense booleans.
MAX_INDICATOR_CELLS = 4 * 2 ** 30


@dataclass(frozen=True)
class MultiLabelRuns:
    """Gold label sets and the predicted sets of S systems on the same N items, as indicators.

    Attributes
    ----------
    gold : (N, L) bool, ``gold[i, j]``: item i has label ``labels[j]``.
    pred : (S, N, L) bool, the predicted sets of each system.
    labels : the L labels (the label set, then any unknown predicted labels: see the module).
    systems : the S system names, in the order of ``pred``'s first axis.
    ids : (N,) item ids (strings) in gold file order.
    sources : the files read, with SHA-256 hashes.
    n_task : how many of ``labels`` are the task's label set (the first ``n_task``; default all).
        Labels after them were only predicted (kept with ``allow_unknown=True``): no gold item has
        them. Label averages (macro / weighted) run over the first ``n_task`` labels only.
    slices, slice_names : as :class:`~evalreport.inputs.runs.Runs` (gold columns that split the items).
    """

    gold: np.ndarray
    pred: np.ndarray
    labels: tuple[str, ...]
    systems: tuple[str, ...]
    ids: np.ndarray
    sources: tuple[Source, ...] = ()
    n_task: int | None = None
    slices: Mapping[str, np.ndarray] | None = field(default=None, compare=False)
    slice_names: Mapping[str, tuple[str, ...]] = field(default_factory=dict, compare=False)

    def __post_init__(self):
        gold = np.asarray(self.gold)
        pred = np.asarray(self.pred)
        if pred.ndim == 2:
            pred = pred[None]
        if gold.ndim != 2 or pred.ndim != 3 or pred.shape[1:] != gold.shape:
            raise ValueError(f"gold must be (N, L) and pred (S, N, L); got {gold.shape} and {pred.shape}")
        if gold.dtype != bool or pred.dtype != bool:
            raise ValueError(f"gold and pred must be boolean indicators; got {gold.dtype} and {pred.dtype}")
        if pred.shape[0] != len(self.systems):
            raise ValueError(f"{pred.shape[0]} prediction blocks but {len(self.systems)} system names")
        if gold.shape[1] != len(self.labels):
            raise ValueError(f"{gold.shape[1]} label columns but {len(self.labels)} labels")
        ids = np.asarray(self.ids, dtype=object)
        if ids.shape != (gold.shape[0],):
            raise ValueError(f"ids must be (N,) = ({gold.shape[0]},); got {ids.shape}")
        object.__setattr__(self, "gold", read_only(gold))
        object.__setattr__(self, "pred", read_only(pred))
        object.__setattr__(self, "ids", read_only(ids))
        object.__setattr__(self, "labels", tuple(str(x) for x in self.labels))
        object.__setattr__(self, "systems", tuple(str(x) for x in self.systems))
        object.__setattr__(self, "sources", tuple(self.sources))
        L = gold.shape[1]
        n_task = L if self.n_task is None else int(self.n_task)
        if not 0 <= n_task <= L:
            raise ValueError(f"n_task must lie in [0, {L}]; got {self.n_task}")
        if gold[:, n_task:].any():
            raise ValueError(f"labels after the first n_task = {n_task} are predicted-only: no gold item may have them")
        object.__setattr__(self, "n_task", n_task)
        if self.slices is not None:
            object.__setattr__(self, "slices", {str(c): read_only(np.asarray(v, dtype=object))
                                                for c, v in self.slices.items()})
            if any(v.shape != ids.shape for v in self.slices.values()):
                raise ValueError(f"every slice column must have one name per item ({ids.shape[0]})")

    def __repr__(self) -> str:
        return (f"MultiLabelRuns({self.n_systems} systems {some_names(self.systems)}, {self.n_items:,} items, "
                f"{self.n_labels} labels {some_names(self.labels)})")

    @property
    def n_items(self) -> int:
        return int(self.gold.shape[0])

    @property
    def n_systems(self) -> int:
        return int(self.pred.shape[0])

    @property
    def n_labels(self) -> int:
        return len(self.labels)

    def select(self, systems) -> MultiLabelRuns:
        """A MultiLabelRuns with only the named systems (in the given order)."""
        idx = [self.systems.index(s) for s in systems]
        return MultiLabelRuns(gold=self.gold, pred=self.pred[idx], labels=self.labels,
                              systems=tuple(self.systems[i] for i in idx), ids=self.ids, sources=self.sources,
                              n_task=self.n_task, slices=self.slices, slice_names=self.slice_names)

    def subset(self, items) -> MultiLabelRuns:
        """A MultiLabelRuns of only the given items (positions or a boolean mask), with their slices.

        Parameters
        ----------
        items : array_like
            Item positions (int) or a boolean mask of length N.

        Returns
        -------
        MultiLabelRuns
        """
        idx = np.asarray(items)
        idx = np.flatnonzero(idx) if idx.dtype == bool else idx.astype(np.int64)
        return MultiLabelRuns(gold=self.gold[idx], pred=self.pred[:, idx], labels=self.labels, systems=self.systems,
                              ids=self.ids[idx], sources=self.sources, n_task=self.n_task,
                              slices=None if self.slices is None else {c: v[idx] for c, v in self.slices.items()},
                              slice_names=self.slice_names)


# ----------------------------------------------------------------------------- public


def _label_column_kind(path, label_col: str) -> str | None:
    """"list" or "scalar" from the file's schema, header or first record alone (no full read), or None
    where that does not tell (no such column, an unknown format, a file the full reader must judge).
    The file passes the input checks first (:func:`~evalreport.inputs.checks.check_file`: a device,
    a named pipe or a file of NUL bytes is refused before a byte of it is parsed)."""
    import csv

    from evalreport.inputs.checks import FORMATS, check_file

    path = Path(path)
    fmt = FORMATS.get(path.suffix.lower())
    if fmt is None:
        return None
    check_file(path, "gold")
    try:
        if fmt == "parquet":
            import pyarrow.parquet as pq

            schema = pq.read_schema(path)
            if label_col not in schema.names:
                return None
            if schema.names.count(label_col) != 1:
                return None          # (two columns of that name: the full reader names the problem)
            kind = schema.field(label_col).type
            return "list" if pa.types.is_list(kind) or pa.types.is_large_list(kind) else "scalar"
        with open(path, encoding="utf-8-sig", newline="") as handle:
            if fmt == "jsonl":
                first = first_line(handle, _QUICK_CHARS, blank=True)
                record = json.loads(first) if first is not None else None
                if not isinstance(record, dict) or label_col not in record:
                    return None
                return "list" if isinstance(record[label_col], list) else "scalar"
            if fmt in DELIMITER:
                from evalreport.inputs.delimiters import sniff_delimiter

                first = first_line(handle, _QUICK_CHARS, blank=False)
                if first is None:
                    return None
                header = next(csv.reader([first], delimiter=sniff_delimiter(path, DELIMITER[fmt])), [])
                return "scalar" if label_col in [h.strip() for h in header] else None
    except (OSError, ValueError, UnicodeDecodeError, StopIteration, pa.ArrowException, csv.Error):
        return None          # (csv.Error: e.g. a header field over the csv module's field limit)
    return None


#: The most characters the quick look of :func:`_label_column_kind` reads (a longer first line is left
#: to the full reader, which has its own limits).
_QUICK_CHARS = 2 ** 20


def detect_multilabel(path, *, label_col: str = "label", label_sep: str | None = None,
                      id_col: str = "id", long_form: bool = True) -> bool | None:
    """Whether a gold (or run) file holds multi-label data.

    True: the label column holds lists, ``label_sep`` occurs in it, an id has several rows (the
    long form; with ``long_form=False`` repeated ids are not taken as sets), or there is no label
    column but 0/1 indicator columns (wide). False: one label per id and no separator. None: cannot
    tell (no label column and no 0/1 columns; or ``label_sep`` given but occurring nowhere, which
    reads as single-label and multi-label alike). Raises :class:`~evalreport.errors.InputError` for
    a file that cannot be read. Without ``label_sep`` and the long form, the schema, header or first
    record decides where it can, so that single-label files are not read twice.
    """
    if label_sep is None and not long_form:
        kind = _label_column_kind(path, label_col)
        if kind is not None:
            return kind == "list"
    t, form = read_with_form(path, "gold", id_col=id_col, label_col=label_col, label_sep=label_sep)
    if form == "long" and not long_form:
        return False
    if form == "sep":
        text = pc.fill_null(t.text(label_col), "")
        if pc.any(pc.match_substring(text, label_sep)).as_py():
            return True
        ids = t.text(id_col) if id_col in t.columns else None
        if ids is not None and pc.count_distinct(ids).as_py() < len(ids):
            return True
        return None
    if form is None:
        return None
    return form != "single"


def read_multilabel(gold, runs=(), *, runs_dir=None, names: Sequence[str] | None = None, id_col: str = "id",
                    label_col: str = "label", labels: Sequence[str] | None = None, label_sep: str | None = None,
                    layout: str | None = None, missing: str = "error", allow_unknown: bool = False,
                    allow_empty_gold: bool = True, slice_cols: Sequence[str] = (), slice_bins=None) -> MultiLabelRuns:
    """Read a multi-label gold file and one run file per system into a :class:`MultiLabelRuns`.

    The layouts, detection and rules are described in the module docstring.

    Parameters
    ----------
    gold, runs, runs_dir, names, id_col, label_col, labels
        As :func:`evalreport.inputs.read_runs`.
    label_sep : str, optional
        The separator of the ``sep`` layout.
    layout : str, optional
        One of :data:`LAYOUTS` for every file (None: detected per file).
    missing : {"error", "abstain"}
        A gold id with no prediction: an error, or the empty set.
    allow_unknown : bool
        Unknown predicted labels become extra labels with no gold items, with a warning.
    allow_empty_gold : bool
        False: an item with no gold label is an error.
    slice_cols, slice_bins
        Gold columns that split the items into slices, as :func:`evalreport.inputs.read_runs` (the value of
        an item's first row).

    Returns
    -------
    MultiLabelRuns
        Gold and predicted sets as (N, L) and (S, N, L) indicator arrays, aligned by id.

    Examples
    --------
    >>> from evalreport import read_multilabel
    >>> runs = read_multilabel("gold.jsonl", runs_dir="runs/")          # doctest: +SKIP
    """
    if missing not in ("error", "abstain"):
        raise InputError(f"missing must be 'error' or 'abstain', not {missing!r}")
    if layout is not None and layout not in LAYOUTS:
        raise InputError(f"layout must be one of {', '.join(LAYOUTS)}, not {layout!r}")
    if label_sep == "":
        raise InputError("label_sep (--label-sep) must not be empty")
    gold_path, run_paths, systems = run_files(gold, runs, runs_dir, names)

    files = [read_with_form(gold_path, "gold", id_col=id_col, label_col=label_col, label_sep=label_sep)]
    held = None
    if slice_cols:             # the slice columns are no label columns (of a wide file): set aside
        held = take_columns(files[0][0], slice_cols)
        files[0] = (files[0][0], detect_form(files[0][0], id_col=id_col, label_col=label_col, label_sep=label_sep))
    files += [read_with_form(p, "run", id_col=id_col, label_col=label_col, label_sep=label_sep) for p in run_paths]
    layouts = _choose_layouts([f for _, f in files], [t for t, _ in files], layout, label_col)
    sets = [parse_sets(t, lay, id_col=id_col, label_col=label_col, label_sep=label_sep)
            for (t, _), lay in zip(files, layouts)]

    # ---- gold ---------------------------------------------------------------------------
    g = sets[0]
    gold_ids = g.ids
    n_items = len(gold_ids)
    gold_names = list(g.columns) if g.layout == "wide" else [g.uniques[k] for k in np.unique(g.pair_label)]
    if labels is not None:
        label_set = [str(x).strip() for x in labels]
        twice = [x for k, x in enumerate(label_set) if x in label_set[:k]]
        if twice:
            raise InputError(f"label {short(twice[0])} appears twice in the labels list")
        outside = [u for u in gold_names if u not in label_set]
        if outside:
            at = _first_pair_with(g, outside[0])
            raise g.table.error(f"gold label {short(outside[0])} is not in the labels list {listing(label_set)}"
                                f"{near_miss(outside[0], label_set)}", row=at,
                                item=None if at is None else g.table._item(at),
                                line=1 if at is None and g.table.fmt in HEADED else None)
    else:
        label_set = natural_sorted(gold_names)
    if not label_set:
        raise g.table.error("the gold file holds no label at all; give the label set (--labels a,b,c; "
                            "Python: labels=[...])")
    problem = too_many_classes(len(label_set), "labels")
    if problem:
        raise g.table.error(problem)
    index = {u: k for k, u in enumerate(label_set)}
    extras: list[str] = []
    gold_matrix = np.zeros((n_items, len(label_set)), dtype=bool)
    lut = np.array([index.get(u, -1) for u in g.uniques], dtype=np.int64)
    gold_matrix[g.pair_item, lut[g.pair_label]] = True
    if not allow_empty_gold:
        empty = ~gold_matrix.any(axis=1)
        if empty.any():
            i = int(np.flatnonzero(empty)[0])
            raise g.table.error(f"item has no gold label (the empty set); {int(empty.sum())} of {n_items} items "
                                "have none", row=int(g.row[i]), item=gold_ids[i].as_py())
    sources = [Source("gold", str(g.table.path), hash_file(g.table.path), g.table.n_rows)]

    # ---- runs ---------------------------------------------------------------------------
    placed = []    # per run: (gold item of each pair, label code of each pair)
    for s, r in enumerate(sets[1:]):
        pos = pc.index_in(r.ids, value_set=gold_ids)
        if pos.null_count:
            k = first_true(pc.is_null(pos))
            item = r.ids[k].as_py()
            raise r.table.error(f"id {item!r} is not in the gold file {g.table.path} ({pos.null_count} id(s) of "
                                "this run are not)", row=int(r.row[k]), item=item)
        pos = pos.to_numpy(zero_copy_only=False).astype(np.int64)
        if len(pos) < n_items and missing == "error":
            covered = np.zeros(n_items, dtype=bool)
            covered[pos] = True
            first = int(np.flatnonzero(~covered)[0])
            item = gold_ids[first].as_py()
            raise InputError(f"no prediction for gold id {item!r} (gold {g.table.where(int(g.row[first]))}); "
                             f"{n_items - len(pos)} of {n_items} gold ids are missing from this run; use "
                             "--missing abstain (Python: missing='abstain') to give them the empty set",
                             path=r.table.path, item=item)
        codes = np.empty(len(r.uniques), dtype=np.int64)
        used = np.ones(len(r.uniques), dtype=bool) if r.layout == "wide" else \
            np.bincount(r.pair_label, minlength=len(r.uniques)) > 0
        unknown = []
        for k, u in enumerate(r.uniques):
            code = index.get(u)
            if code is None and used[k]:
                unknown.append(u)
                if allow_unknown:
                    code = index[u] = len(label_set) + len(extras)
                    extras.append(u)
            codes[k] = -1 if code is None else code
        if unknown and not allow_unknown:
            first_unknown = unknown[0]
            at = _first_pair_with(r, first_unknown)
            raise r.table.error(
                f"predicted label {short(first_unknown)} is not in the label set{near_miss(first_unknown, label_set)} "
                f"({'the labels list' if labels is not None else 'the gold labels'}: {listing(label_set)}); "
                f"{len(unknown)} unknown label(s): {listing(unknown)}; use --allow-unknown (Python: "
                "allow_unknown=True) to keep them as false positives", row=at,
                line=1 if at is None and r.table.fmt in HEADED else None)
        placed.append((pos[r.pair_item], codes[r.pair_label]))
        sources.append(Source("run", str(r.table.path), hash_file(r.table.path), r.table.n_rows, system=systems[s]))

    final = list(label_set) + natural_sorted(extras)
    cells = len(placed) * n_items * len(final)
    if cells > MAX_INDICATOR_CELLS:
        raise InputError(f"{len(placed)} systems x {n_items:,} items x {len(final):,} labels = {cells:,} indicator "
                         f"cells: more than the {MAX_INDICATOR_CELLS:,} (one byte each) evalreport holds in memory "
                         "for multi-label runs (MAX_INDICATOR_CELLS in evalreport.inputs.multilabel)")
    if extras:
        warnings.warn(f"{len(extras)} predicted label(s) are not in the label set ({listing(natural_sorted(extras))}); "
                      "each is kept as an extra label that no gold item has, so its predictions count as false "
                      "positives", stacklevel=2)
    remap = np.array([final.index(u) for u in list(label_set) + extras], dtype=np.int64)
    gold_full = np.zeros((n_items, len(final)), dtype=bool)
    gold_full[:, :len(label_set)] = gold_matrix
    pred = np.zeros((len(placed), n_items, len(final)), dtype=bool)
    for s, (items, codes) in enumerate(placed):
        pred[s, items, remap[codes]] = True
    slices, slice_order = read_slices(held.rows(g.row), slice_cols, slice_bins) if held is not None else (None, {})
    return MultiLabelRuns(gold=gold_full, pred=pred, labels=tuple(final), systems=tuple(systems),
                          ids=np.asarray(gold_ids.to_pylist(), dtype=object), sources=tuple(sources),
                          n_task=len(label_set), slices=slices, slice_names=slice_order)


def _first_pair_with(sets: LabelSets, label: str) -> int | None:
    """The row of the first pair with this label (None for a wide file: the label is a column)."""
    if sets.layout == "wide":
        return None
    k = sets.uniques.index(label)
    return int(sets.pair_row[np.flatnonzero(sets.pair_label == k)[0]])


def _choose_layouts(forms, tables, layout, label_col) -> list[str]:
    if layout is not None:
        return [layout] * len(forms)
    for t, f in zip(tables, forms):
        if f is None:
            raise t.error(f"no label column {label_col!r} and not a wide file of 0/1 indicator columns; the columns "
                          f"found are: {', '.join(repr(c) for c in t.all_names)}", line=1 if t.fmt in HEADED else None)
    multi = [(t, f) for t, f in zip(tables, forms) if f in ("list", "sep", "wide")]
    if multi:
        for t, f in zip(tables, forms):
            if f == "single":
                other, of = multi[0]
                which = lambda x: "gold file" if x is tables[0] else "run file"  # noqa: E731
                raise InputError(
                    f"{which(t)} {t.path} holds one label per item (single-label data) but {which(other)} "
                    f"{other.path} is multi-label ({describe_form(of)}); give every file as multi-label, or "
                    "--layout long (Python: layout='long') if this file is the long form with one label per item",
                    path=t.path)
    return ["long" if f == "single" else f for f in forms]
