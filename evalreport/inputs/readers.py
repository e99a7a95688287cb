"""Read gold labels and system runs into :class:`Runs` (confusion-matrix files: :mod:`evalreport.counts.files`).

:func:`read_runs` and what it needs beyond one table: the runs folder, system names, the class
list and its limit :data:`MAX_CLASSES` and id alignment; the cluster and fold columns are
:mod:`evalreport.inputs.cluster_folds`, the score columns :mod:`evalreport.inputs.run_scores`. Reading
one file is :mod:`evalreport.inputs.tables` (the ``Table`` and one reader per format); the
checks every file passes first and small helpers (hashing, natural sort, messages) are
:mod:`evalreport.inputs.checks`; each name is imported from the module that defines it, and a
limit is read there: :data:`MAX_CLASSES` here, :data:`~evalreport.inputs.tables.MAX_LINE_BYTES` in
``tables``.

Formats are chosen by file extension:

========================  ==================================================================
``.tsv``, ``.tab``        tab-separated text, header on line 1
``.csv``                  comma-separated text, header on line 1 (``"``-quoting as usual)
``.jsonl``, ``.ndjson``   one JSON object per line (blank lines are skipped)
``.parquet``, ``.pq``     Apache Parquet
``.xlsx``                 Excel workbook: its first sheet, header in row 1; a "line" is the
                          sheet's row number (:mod:`evalreport.inputs.workbooks`)
``.json``                 confusion files only: headerless ``gold<TAB>predicted<TAB>count``
                          lines (the ImageNet files of Gösgens et al.), detected by content
========================  ==================================================================

A ``.csv`` or ``.tsv`` file may use any of the separators ``,`` ``;`` TAB ``|``: the extension's is
kept when it splits the header, else the one that does, consistently over a sample of lines
(:mod:`evalreport.inputs.delimiters`; a spreadsheet's "CSV" export writes ``;`` in many locales). A
number written with a decimal comma (``0,75``) is refused with a message saying so.

Text must be UTF-8 (a byte-order mark is accepted) with LF or CRLF line endings; a text file
holding a NUL byte, a compressed file (gzip, bzip2, xz, zstd, zip) under a text extension, a
named pipe or device, and a file with classic Mac OS (CR-only) line endings are refused before
any parsing, and the check reads no further than the first NUL byte (a 2 GB file of NUL bytes
costs one small read). Limits: a line of a text file may be up to :data:`MAX_LINE_BYTES`
long, and so may a Parquet row, judged with the workbook's decompression-bomb rule from the file's
metadata before its data is read (:mod:`~evalreport.inputs.parquet_limits`); a task may have up to :data:`MAX_CLASSES` classes (evalreport counts dense K x K
confusion matrices: 8 K^2 bytes per system, 800 MB at 10,000 classes), more is refused with a
message. Every bad input raises
:class:`~evalreport.errors.InputError` naming the file, the 1-based line (header = line 1 for
TSV/CSV, physical line for JSON Lines; Parquet has rows, not lines, so the message says
``row k``) and/or the item id, and the problem. Line numbers assume that no quoted field spans
several lines; when that assumption fails the message names the id only.

Reading is vectorised: files are parsed by pyarrow (the next two run files are read, hashed and aligned
in two threads while the current one is encoded), a run whose id column equals the gold's as read is in gold
order (one Arrow comparison; a Parquet run that stores the gold's id column byte for byte is not even
decoded, :mod:`~evalreport.inputs.parquet_ids`), other ids are aligned with one hash index of the gold
ids built once and probed by every run (:class:`~evalreport.inputs.align.IdIndex`; every match verified
byte for byte), labels are dictionary-encoded (Parquet: read as the file's own dictionary) and mapped to
class codes through a lookup table of the dictionary's values, and the ids stay in Arrow
(:class:`~evalreport.inputs.runs.ItemIds`). No Python code runs per item on the happy
path. Whatever the fast path cannot settle (an unknown, missing or repeated id) is diagnosed by
the exact path (``pyarrow.compute.index_in``), whose messages name the file and line; Python loops
over lines happen only while locating an error.
"""
from __future__ import annotations

import time
import warnings
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from evalreport.errors import InputError
from evalreport.inputs.align import IdIndex
from evalreport.inputs.annotators import majority_gold
from evalreport.inputs.checks import as_paths, hash_file, listing, natural_sorted, near_miss, runs_in_folder, short
from evalreport.inputs.cluster_folds import check_folds, read_clusters
from evalreport.inputs.run_folders import RUN_SEPARATOR, system_folders
from evalreport.inputs.run_scores import ScoreCollector, ScoreSink
from evalreport.inputs.runs import Runs, Source, code_dtype
from evalreport.inputs.slices import read_slices
from evalreport.inputs.system_column import SYSTEM_COL, RunPiece, split_systems
from evalreport.inputs.tables import MISSING_LABELS, Table, first_true, read_table
from evalreport.words import counted

__all__ = ["read_runs", "hash_file", "natural_sorted", "ABSTAIN", "MISSING_LABELS", "MAX_CLASSES"]

#: Name of the synthetic class for gold items a run has no prediction for (``missing="abstain"``).
ABSTAIN = "<abstain>"

#: The most classes a task may have (gold labels, a labels list, a run's unknown labels, a
#: confusion file's classes); more is refused with a message. Confusion matrices are dense
#: (K, K) per system, 8 K^2 bytes each: 800 MB at 10,000 classes, 74.5 GiB at 100,000.
MAX_CLASSES = 10_000


# ----------------------------------------------------------------------------- class limit


def too_many_classes(n: int, what: str = "classes") -> str | None:
    """The problem text when ``n`` classes exceed :data:`MAX_CLASSES`, else None (shared with the
    confusion-file readers)."""
    if n <= MAX_CLASSES:
        return None
    size = 8 * n * n / 2 ** 30
    return (f"{n:,} {what}: more than the {MAX_CLASSES:,} classes evalreport handles (MAX_CLASSES in "
            f"evalreport.inputs.readers); its confusion matrices are dense, 8 K^2 bytes per system "
            f"({size:,.1f} GiB for K = {n:,}). Is the label column the right one (--label-col)?")


# ----------------------------------------------------------------------------- runs


def read_runs(gold, runs=(), *, runs_dir=None, names: Sequence[str] | None = None, id_col: str = "id",
              label_col: str = "label", fold_col: str | None = "fold", score_col: str | None = "score",
              labels: Sequence[str] | None = None, missing: str = "error",
              allow_unknown: bool = False, gold_id_col: str | None = None,
              gold_label_col: str | None = None, timings: dict | None = None, hash_files: bool = True,
              cluster_col: str | None = None, slice_cols: Sequence[str] = (), slice_bins=None,
              score_sink: ScoreSink | None = None, system_col: str | None = SYSTEM_COL) -> Runs:
    """Read a gold file and one prediction file per system into an encoded :class:`Runs`.

    Parameters
    ----------
    gold : path of the gold file (columns ``id_col``, ``label_col``, optionally ``fold_col``).
        Its row order is the item order of the result.
    runs : paths of run files (columns ``id_col``, ``label_col``, optionally scores and folds),
        one per system, in the order the systems should have.
    runs_dir : a folder; every file in it with a supported extension (sorted naturally by name,
        hidden files and the gold file excluded) is a run, appended after ``runs``.
    names : system names, one per system (default: each file's stem, or the values of ``system_col``).
    id_col, label_col : column names of the item id and the (gold or predicted) label.
    gold_id_col, gold_label_col : the gold file's names of these columns, where they differ from
        the runs' (default: ``id_col``, ``label_col``).
    fold_col : optional column of fold names in the gold file (``None``: ignore folds). A run
        file may repeat it; it must then agree with the gold file.
    score_col : column of a run's score for the positive class (float), or prefix of per-class
        score columns ``<score_col>_<label>`` (``None``: ignore scores).
    labels : the class list, in order. It may name classes absent from the gold file; a gold
        label missing from it is an error. Default: the sorted gold labels (natural order).
    missing : ``"error"`` (default) if a run lacks predictions for some gold ids, or
        ``"abstain"``: such items are predicted as the synthetic class ``"<abstain>"``
        (appended last, :attr:`Runs.abstain` holds its code; it has no gold items, so these
        predictions are always wrong). The class is added only when some item is missing.
    allow_unknown : if true, a predicted label outside the class set becomes an extra class
        (after the declared classes, sorted naturally, before ``"<abstain>"``) with no gold
        items, so those predictions count as errors; by default it is an error.
    timings : a dict that receives the seconds spent per stage, summed over the files: ``read``
        (waiting for the files: they are parsed and hashed in two threads beside the rest), ``align``
        (ids to gold positions), ``encode`` (labels to class codes) - for benchmarks.
    hash_files : record each file's SHA-256 in :attr:`Runs.sources` (default); False leaves it
        empty (``""``) and reads each file once less (``evalreport score``, which reports no hashes).
    cluster_col : optional column of the gold file naming each item's cluster (document, dialogue,
        patient, ...; ``None``: independent items). Every item needs a non-empty cluster, and with
        folds a cluster lies within one fold; a gold file without the column is an error.
    slice_cols : columns of the gold file that split the items into slices (domain, language, length;
        ``--slice-col``): :attr:`Runs.slices` (:mod:`evalreport.inputs.slices`). A column the gold file
        lacks, or one of more than 200 slices, is an error.
    slice_bins : None, an int (quantile bins of every numeric slice column, ``--slice-bins N``) or a
        mapping column -> int or bin edges.
    system_col : a run file with this column holds one system per value, named by it (the backends' long
        layout; ``label_<system>`` columns: the wide layout; :mod:`evalreport.inputs.system_column`).
    score_sink : optional; takes each run's checked scores as it is read
        (:class:`~evalreport.inputs.run_scores.ScoreSink`), and :attr:`Runs.scores` is then None: for a
        command that summarises each system's scores without holding every system's at once.

    Returns
    -------
    Runs
        ``gold`` (N,) and ``pred`` (S, N) codes of dtype :func:`code_dtype` (K), ``ids`` (the
        gold ids, an Arrow-backed :class:`~evalreport.inputs.runs.ItemIds`), ``folds``/``fold_names`` (natural order), ``scores`` and ``sources`` (each
        file's SHA-256 and row count).

    Scores: a run may have one column ``score`` (shape (S, N) in the result: the score of
    the positive class of a binary task; which class is positive is decided later, by the
    measure) or per-class columns ``score_<label>`` (shape (S, N, K'), with
    :attr:`Runs.score_labels` the K' classes in class order). Every run must have the same
    layout as the first; otherwise ``scores`` is ``None`` and a warning names the first run
    that differs. Items a run
    has no prediction for (``missing="abstain"``) have NaN scores; a NaN in a file is an error.

    Labels are text: surrounding whitespace is stripped and JSON/Parquet numbers are written
    in their shortest form (``1``, not ``1.0``). Empty labels, nulls, NaN and the markers in
    :data:`MISSING_LABELS` are errors.
    """
    if missing not in ("error", "abstain"):
        raise InputError(f"missing must be 'error' or 'abstain', not {missing!r}")
    run_system: list[str] = []
    gold_path, run_paths, systems = run_files(gold, runs, runs_dir, names, run_system=run_system, named_later=True)
    gold_id_col = gold_id_col or id_col
    gold_label_col = gold_label_col or label_col

    # ---- gold ---------------------------------------------------------------------------
    def wanted(name: str) -> bool:
        return name in (id_col, label_col, gold_id_col, gold_label_col, fold_col, score_col, cluster_col,
                        *slice_cols) or (
            score_col is not None and name.startswith(f"{score_col}_") or name.startswith(f"{gold_label_col}_")  # annotators: label_1, ...
        )

    clock = _Clock(timings)
    as_dict = tuple(c for c in (label_col, gold_label_col, fold_col, cluster_col)
                    if c is not None and c not in (id_col, gold_id_col))
    reading: list[Path | RunPiece] = list(run_paths)
    if not run_system:        # a system column names the systems of a run file (the backends' long layout)
        reading, named = split_systems(run_paths, names, system_col=system_col, id_col=id_col, label_col=label_col,
                                       wanted=wanted, as_dict=as_dict, hashed=hash_files)
        systems = named if named is not None else _system_names(run_paths, names)
    with ThreadPoolExecutor(max_workers=_READERS) as pool:
        runs = _read_runs(gold_path, reading, systems, pool, clock, wanted=wanted, as_dict=as_dict, id_col=id_col,
                          label_col=label_col, gold_id_col=gold_id_col, gold_label_col=gold_label_col,
                          fold_col=fold_col, score_col=score_col, labels=labels, missing=missing,
                          allow_unknown=allow_unknown, hash_files=hash_files, cluster_col=cluster_col,
                          slice_cols=tuple(slice_cols or ()), slice_bins=slice_bins, score_sink=score_sink)
    announce_prediction_only(runs.labels[runs.n_task:] if runs.n_task is not None else ())
    if run_system:            # a folder per system: which system each run belongs to
        runs = replace(runs, run_system=tuple(run_system))
    return runs


class _Clock:
    """Seconds per stage into ``timings`` (a no-op without it)."""

    def __init__(self, timings: dict | None):
        self.timings = timings
        self.t = time.perf_counter()

    def lap(self, stage: str) -> None:
        now = time.perf_counter()
        if self.timings is not None:
            self.timings[stage] = self.timings.get(stage, 0.0) + now - self.t
        self.t = now


#: Threads that read (and hash) run files ahead of the one being aligned and encoded: pyarrow's
#: parsers and hashlib release the GIL, so two files are read while the main thread works.
_READERS = 2
#: Gold files of up to this many items have their runs read while the index of their ids is built.
_SMALL = 2 ** 21


def _read_and_hash(path, role: str, id_col: str, wanted, as_dict, same_ids, hashed: bool,
                   prealign=None, index: int | None = None) -> tuple[Table, Path, str, tuple | None]:
    if isinstance(path, RunPiece):    # one system's rows of a file read and split already
        table, path, digest = path.table, path.path, path.sha256
    else:
        table, path = read_table(path, role, id_col=id_col, wanted=wanted, dictionary=as_dict, same_ids=same_ids)
        digest = hash_file(path) if hashed else ""
    aligned = None if prealign is None else prealign(table)
    if prealign is not None and index is not None:
        prealign.scores_in_gold_order(index, table)
    return table, path, digest, aligned


class _Prealign:
    """A run's ids aligned to the gold ids in the thread that read it (the kernels release the GIL)."""

    def __init__(self, id_col: str, gold_raw, gold_ids: pa.Array):
        self.id_col, self.gold_raw, self.gold_ids = id_col, gold_raw, gold_ids
        self.index: Future = Future()     # the gold ids' IdIndex (None: no fast path), set once
        self.scores: ScoreCollector | None = None     # the runs' collector, once the main thread has made it

    def scores_in_gold_order(self, s: int, table: Table) -> None:
        """Write run s's score columns into the collector's array in this thread when the run's ids are
        the gold's as read (in gold order): the copy is most of a scored run's reading
        (:meth:`~evalreport.inputs.run_scores.ScoreCollector.prefill` leaves anything unusual to the main
        thread)."""
        scores = self.scores
        if scores is None:
            return
        try:
            col = table.columns.get(self.id_col)
            if col is None or self.id_col in table.unusable or not _same_column(col, self.gold_raw):
                return
        except Exception:    # the main thread repeats the step and reports it
            return
        scores.prefill(s, table)

    def __call__(self, table: Table) -> tuple[np.ndarray, bool] | None:
        try:
            col = table.columns.get(self.id_col)
            if col is None or self.id_col in table.unusable or _same_column(col, self.gold_raw):
                return None
            ids = table.ids(self.id_col)
            index = self.index.result()
            if index is None or ids.equals(self.gold_ids):
                return None
            pos = index.positions(ids)
            if pos is None:
                return None
            # (the counts per gold item are not kept: a run with a missing or repeated id counts them again)
            return pos, len(pos) == len(self.gold_ids) and int(np.bincount(pos, minlength=len(pos)).max()) <= 1
        except Exception:   # the main thread repeats the step and reports it
            return None


def _read_runs(gold_path, run_paths, systems, pool, clock, *, wanted, as_dict, id_col, label_col, gold_id_col,
               gold_label_col, fold_col, score_col, labels, missing, allow_unknown, hash_files,
               cluster_col=None, slice_cols=(), slice_bins=None, score_sink=None) -> Runs:
    g, gold_path = read_table(gold_path, "gold", id_col=gold_id_col, wanted=wanted, dictionary=as_dict)
    gold_hash = pool.submit(hash_file, gold_path) if hash_files else None
    clock.lap("read")
    annotations = majority_gold(g, gold_id_col, gold_label_col)    # label_1, label_2, ...: their majority
    g.require(gold_id_col, gold_label_col)
    gold_ids = g.ids(gold_id_col)
    gold_raw = g.column(gold_id_col)             # as read: a run whose id column equals it is in gold order
    n_items = g.n_rows
    same_ids = None
    if g.fmt == "parquet":
        from evalreport.inputs.parquet_ids import GoldIdColumn

        same_ids = GoldIdColumn.of(gold_path, gold_id_col, gold_raw)

    prealign = _Prealign(id_col, gold_raw, gold_ids)

    def read_ahead(first: int, paths):
        return [pool.submit(_read_and_hash, p, "run", id_col, wanted, as_dict, same_ids, hash_files, prealign, i)
                for i, p in enumerate(paths, start=first)]

    # _READERS runs are read ahead: beside the gold's index for a small gold file, after it for a large
    # one (so that the peaks of memory of the index and of the runs do not add up)
    ahead = read_ahead(0, run_paths[:_READERS]) if n_items <= _SMALL else []
    index = None
    try:
        index = IdIndex.build(gold_ids)      # built: the gold ids are distinct
    finally:                                 # set even on an error: a reading thread may wait for it
        prealign.index.set_result(index)
    if index is None:
        first_at = pc.index_in(gold_ids, value_set=gold_ids).to_numpy(zero_copy_only=False)
        dup = first_at != np.arange(n_items)
        if dup.any():
            row = int(np.flatnonzero(dup)[0])
            item = gold_ids[row].as_py()
            raise g.error(f"duplicate id {item!r} (first at {g.where(int(first_at[row]))})", row=row, item=item)
    ahead = ahead or read_ahead(0, run_paths[:_READERS])
    clock.lap("align")
    gold_local, gold_uniques = g.labels(gold_label_col)
    classes = _class_list(labels, gold_uniques if annotations is None else annotations.label_set(), g)
    class_index = {c: k for k, c in enumerate(classes)}
    lut = np.array([class_index[u] for u in gold_uniques], dtype=np.int32)   # int32: codes < MAX_CLASSES
    gold_codes = lut[gold_local]

    folds = None
    fold_names: tuple[str, ...] = ()
    if fold_col is not None and fold_col in g.columns:
        fold_local, fold_uniques = g.labels(fold_col, what="fold")
        fold_names = tuple(natural_sorted(fold_uniques))
        fold_index = {f: k for k, f in enumerate(fold_names)}
        folds = np.array([fold_index[u] for u in fold_uniques], dtype=np.int64)[fold_local]
        folds = folds.astype(code_dtype(len(fold_names)))

    clusters, cluster_names = (None, ()) if cluster_col is None else read_clusters(g, cluster_col, folds, fold_names)
    slices, slice_order = read_slices(g, slice_cols, slice_bins) if slice_cols else (None, {})
    sources = [Source("gold", str(gold_path), gold_hash.result() if gold_hash is not None else "", n_items)]
    clock.lap("encode")

    # ---- runs ---------------------------------------------------------------------------
    n_known = len(classes)
    extras: list[str] = []           # unknown predicted labels (allow_unknown), in order met
    pred = np.empty((len(run_paths), n_items), dtype=code_dtype(n_known))  # -1 marks a missing item
    any_missing = False
    scores = ScoreCollector(len(run_paths), n_items, classes, score_col, present=set(gold_uniques), sink=score_sink,
                            buffers=_READERS + 4)
    if score_sink is not None and score_col is not None:
        score_sink.begin(gold_codes, list(classes))
    prealign.scores = scores         # reading threads write the scores of runs in gold order
    for s, (path, system) in enumerate(zip(run_paths, systems)):
        r, path, digest, aligned = ahead.pop(0).result()
        if s + _READERS < len(run_paths):
            ahead += read_ahead(s + _READERS, run_paths[s + _READERS:s + _READERS + 1])
        clock.lap("read")
        r.require(id_col, label_col)
        if _same_column(r.columns[id_col], gold_raw):
            # the gold's ids as read, hence the same after trimming: checked there, and in gold order
            r.share_column(id_col, gold_raw, gold_ids)
            ids, pos, once = gold_ids, None, True
        else:
            ids = r.ids(id_col)
            # pos None = same order as gold; once = every gold item has exactly one row (checked in the thread)
            pos, once = aligned if aligned is not None else (_align(r, ids, gold_ids, gold_path, index), False)
        complete = True
        covered: np.ndarray | None = None
        if pos is not None and not once:
            covered = np.bincount(pos, minlength=n_items)
            if covered.max() > 1:
                _raise_duplicate(r, ids, pos)
        clock.lap("align")
        values = r.codes(label_col, class_index, pred.dtype)   # every label a known class: nothing to report
        if values is None:
            values = _label_codes(r, label_col, class_index, classes, extras, labels, allow_unknown, ids)
            if code_dtype(n_known + len(extras)) != pred.dtype:
                pred = pred.astype(code_dtype(n_known + len(extras)))
        if pos is None:
            pred[s] = values
        else:
            if covered is not None and (covered == 0).any():
                gone = np.flatnonzero(covered == 0)
                if missing == "error":
                    first = int(gone[0])
                    item = gold_ids[first].as_py()
                    raise r.error(f"no prediction for gold id {item!r} (gold {g.where(first)}); "
                                  f"{gone.size} of {n_items} gold ids are missing from this run; "
                                  "use --missing abstain (Python: missing='abstain') to count them as wrong", item=item)
                any_missing, complete = True, False
                pred[s] = -1
            pred[s, pos] = values
        if fold_col is not None and fold_col in r.columns:
            check_folds(r, fold_col, folds, fold_names, pos, g)
        scores.add(s, r, pos, complete)
        sources.append(Source("run", str(path), digest, r.n_rows, system=system))
        del r, ids, pos, covered, values
        clock.lap("encode")

    # ---- final class list and codes ------------------------------------------------------
    final = list(classes) + natural_sorted(extras)
    abstain = None
    if any_missing:
        abstain = final.index(ABSTAIN) if ABSTAIN in final else len(final)
        if abstain == len(final):
            final.append(ABSTAIN)
    dtype = code_dtype(len(final))
    pred = pred.astype(dtype, copy=False)
    if final[n_known:n_known + len(extras)] != extras or any_missing:
        # one lookup table: -1 (missing) -> abstain, extras in meeting order -> sorted order
        remap = np.arange(-1, len(final), dtype=dtype)
        remap[0] = -1 if abstain is None else abstain
        for k, u in enumerate(extras):
            remap[n_known + k + 1] = final.index(u)
        for s in range(pred.shape[0]):   # per system, to keep the temporary small
            pred[s] = remap[pred[s].astype(np.intp) + 1]
    gold_codes = gold_codes.astype(dtype)
    score_array, score_labels = scores.result()
    return Runs(gold=gold_codes, pred=pred, labels=tuple(final), systems=tuple(systems),
                ids=gold_ids, folds=folds, fold_names=fold_names,
                scores=score_array, sources=tuple(sources), abstain=abstain, score_labels=score_labels,
                n_task=n_known if len(final) > n_known else None, clusters=clusters, cluster_names=cluster_names,
                cluster_col=cluster_col if clusters is not None else None,
                score_problems={systems[k]: v for k, v in scores.problems.items()}, annotations=annotations,
                slices=slices, slice_names=slice_order)


def _label_codes(r: Table, label_col: str, class_index: dict, classes: list[str], extras: list[str], labels,
                 allow_unknown: bool, ids) -> np.ndarray:
    """Class codes of a run's labels; an unknown label is an error, or with ``allow_unknown`` a new class."""
    n_known = len(classes)
    local, uniques = r.labels(label_col, what="predicted label")
    lut = np.empty(len(uniques), dtype=np.int32)
    unknown = []
    for k, u in enumerate(uniques):
        code = class_index.get(u)
        if code is None:
            unknown.append(k)
            if allow_unknown:
                code = class_index[u] = n_known + len(extras)
                extras.append(u)
        lut[k] = -1 if code is None else code
    if unknown and not allow_unknown:
        row = int(np.flatnonzero(np.isin(local, unknown))[0])
        names_unknown = [uniques[k] for k in unknown]
        first = uniques[int(local[row])]
        raise r.error(f"predicted label {short(first)} is not a class{near_miss(first, classes)} "
                      f"({'of the labels list' if labels is not None else 'in the gold file'}: "
                      f"{listing(classes)}); {len(names_unknown)} unknown label(s): {listing(names_unknown)}; "
                      "use --allow-unknown (Python: allow_unknown=True) to count them as wrong", row=row, item=ids[row].as_py())
    problem = too_many_classes(n_known + len(extras), "classes with this run's unknown labels")
    if problem:
        raise r.error(problem)
    return lut[local]


def run_files(gold, runs, runs_dir, names, *, run_system: list[str] | None = None,
              named_later: bool = False) -> tuple[Path, list[Path], list[str]]:
    """The gold path, the run files (given, then those of ``runs_dir`` but the gold file) and their
    system names; no run file is an error. A ``runs_dir`` holding a folder per system
    (:mod:`evalreport.inputs.run_folders`) is read only when ``run_system`` is a list: it receives the
    system of every run (a run given by name is a system of its own), and the runs are named ``system/run``.
    ``named_later``: flat run files are named by their stems here, ``names`` applied by the caller."""
    run_paths = as_paths(runs)
    gold_path = Path(gold)
    nested = None if runs_dir is None else system_folders(Path(runs_dir), exclude=gold_path)
    if nested is not None:
        if run_system is None:
            raise InputError("a folder per system (several runs per system) is read for single-label runs only; "
                             "put one run file per system in the runs folder", path=runs_dir)
        if names is not None:
            raise InputError("--names cannot rename runs in system folders: the folder names are the system names",
                             path=runs_dir)
        names = [p.stem for p in run_paths] + [f"{system}{RUN_SEPARATOR}{run}" for _, system, run in nested]
        run_system += [p.stem for p in run_paths] + [system for _, system, _ in nested]
        run_paths += [path for path, _, _ in nested]
    elif runs_dir is not None:
        run_paths += runs_in_folder(Path(runs_dir), exclude=gold_path)
    if not run_paths:
        raise InputError("no run files given (RUN... or --runs-dir DIR; Python: runs=[...] or runs_dir=...)")
    if named_later and nested is None:
        return gold_path, run_paths, [p.stem for p in run_paths]
    return gold_path, run_paths, _system_names(run_paths, names)


def announce_prediction_only(added) -> None:
    """Say how classes that occur only in predictions are scored (shared by the in-memory and the
    out-of-core readers)."""
    if added:
        warnings.warn(f"{len(added)} class(es) occur only in predictions ({listing(added)}: unknown labels "
                      "counted as wrong, or missing predictions as abstain). Each counts as a class only for the "
                      "systems that predict it (as in scikit-learn), so other systems' scores do not change; K's "
                      "class count |C|, the cost baselines and the chance baselines use the task's classes only.",
                      stacklevel=3)


def _system_names(paths: list[Path], names) -> list[str]:
    if names is not None:
        names = [str(n) for n in names]
        if len(names) != len(paths):
            raise InputError(f"{counted(len(names), 'system name')} for {counted(len(paths), 'run file')}")
    else:
        names = [p.stem for p in paths]
    seen: dict[str, int] = {}
    for k, name in enumerate(names):
        if name in seen:
            raise InputError(f"system name {name!r} is used twice ({paths[seen[name]]} and {paths[k]}); "
                             "use --names (Python: names=[...]) to tell them apart")
        seen[name] = k
    return names


def _class_list(labels, gold_uniques: list[str], g: Table) -> list[str]:
    """The class list: the explicit ``labels`` (checked) or the natural-sorted gold labels."""
    if labels is not None:
        if isinstance(labels, str):
            raise InputError("labels must be a list of class names, not a single string")
        classes = [str(x).strip() for x in labels]
        problem = too_many_classes(len(classes), "classes in the labels list")
        if problem:
            raise InputError(problem)
        for name in classes:
            if name in MISSING_LABELS:
                raise InputError(f"labels list holds an empty or missing-value class name {name!r}")
        dups = sorted({c for c in classes if classes.count(c) > 1})
        if dups:
            raise InputError(f"labels list names {listing(dups)} more than once")
        known = set(classes)
        extra = natural_sorted(u for u in gold_uniques if u not in known)
        if extra:
            raise g.error(f"gold label(s) {listing(extra)} are not in the labels list {listing(classes)}")
    else:
        problem = too_many_classes(len(gold_uniques), "distinct gold labels")
        if problem:
            raise g.error(problem)
        classes = natural_sorted(gold_uniques)
    if ABSTAIN in classes:
        raise g.error(f"{ABSTAIN!r} is reserved for predictions a run lacks; rename that class")
    if len(classes) < 2:
        raise g.error(f"the gold labels hold only one class ({listing(classes)}); measures need at "
                      "least two (--labels a,b,c; Python: labels=[...]) to declare the other classes")
    return classes


def _same_column(raw, gold_raw) -> bool:
    """Whether a run's id column as read equals the gold's (one comparison of the Arrow buffers)."""
    if raw is gold_raw:
        return True
    if len(raw) != len(gold_raw) or not raw.type.equals(gold_raw.type):
        return False
    if isinstance(raw, pa.ChunkedArray) or isinstance(gold_raw, pa.ChunkedArray):
        as_chunked = lambda a: a if isinstance(a, pa.ChunkedArray) else pa.chunked_array([a])  # noqa: E731
        return as_chunked(raw).equals(as_chunked(gold_raw))
    return raw.equals(gold_raw)


def _align(r: Table, ids: pa.Array, gold_ids: pa.Array, gold_path: Path, index: IdIndex | None = None):
    """Row -> gold position for every row of a run (None when the ids equal the gold ids)."""
    if ids.equals(gold_ids):
        return None
    if index is not None:
        pos = index.positions(ids)
        if pos is not None:
            return pos
    pos = pc.index_in(ids, value_set=gold_ids)
    if pos.null_count:
        unknown = pc.is_null(pos)
        row = first_true(unknown)
        item = ids[row].as_py()
        raise r.error(f"id {item!r} is not in the gold file {gold_path} "
                      f"({pos.null_count} id(s) of this run are not)", row=row, item=item)
    return pos.to_numpy(zero_copy_only=False).astype(np.int64, copy=False)


def _raise_duplicate(r: Table, ids: pa.Array, pos: np.ndarray):
    _, first = np.unique(pos, return_index=True)
    repeated = np.ones(pos.size, dtype=bool)
    repeated[first] = False
    row = int(np.flatnonzero(repeated)[0])
    earlier = int(np.flatnonzero(pos[:row] == pos[row])[0])
    item = ids[row].as_py()
    raise r.error(f"duplicate id {item!r} (first at {r.where(earlier)})", row=row, item=item)
