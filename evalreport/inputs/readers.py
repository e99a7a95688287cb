"""Read gold labels and system runs into :class:`Runs` (confusion-matrix files: :mod:`evalreport.counts.files`).

Formats are chosen by file extension:

========================  ==================================================================
``.tsv``, ``.tab``        tab-separated text, header on line 1
``.csv``                  comma-separated text, header on line 1 (``"``-quoting as usual)
``.jsonl``, ``.ndjson``   one JSON object per line (blank lines are skipped)
``.parquet``, ``.pq``     Apache Parquet
``.json``                 confusion files only: headerless ``gold<TAB>predicted<TAB>count``
                          lines (the ImageNet files of Gösgens et al.), detected by content
========================  ==================================================================

Text must be UTF-8 (a byte-order mark is accepted). Every bad input raises
:class:`~evalreport.errors.InputError` naming the file, the 1-based line (header = line 1 for
TSV/CSV, physical line for JSON Lines; Parquet has rows, not lines, so the message says
``row k``) and/or the item id, and the problem. Line numbers assume that no quoted field spans
several lines; when that assumption fails the message names the id only.

Reading is vectorised: files are parsed by pyarrow (multi-threaded), ids are aligned with a
hash lookup (``pyarrow.compute.index_in``), labels are dictionary-encoded and mapped to class
codes through a lookup table of the *distinct* labels. No Python code runs per item on the
happy path; Python loops over lines happen only while locating an error.
"""
from __future__ import annotations

import csv
import hashlib
import json
import os
import re
import warnings
from pathlib import Path
from typing import Iterable, Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pa_csv
import pyarrow.json as pa_json
import pyarrow.parquet as pq

from evalreport.errors import InputError
from evalreport.inputs.runs import Runs, Source, code_dtype

__all__ = ["read_runs", "hash_file", "natural_sorted",
           "ABSTAIN", "MISSING_LABELS", "SUPPORTED_EXTENSIONS"]

#: Name of the synthetic class for gold items a run has no prediction for (``missing="abstain"``).
ABSTAIN = "<abstain>"

#: Label texts read as "no label" (an error): besides these, null (JSON/Parquet) and NaN.
#: ``NA`` and ``None`` are deliberately *not* here: they are plausible class names.
MISSING_LABELS = ("", "nan", "NaN", "NAN", "null", "NULL", "Null", "<NA>")

_FORMATS = {".tsv": "tsv", ".tab": "tsv", ".csv": "csv", ".jsonl": "jsonl", ".ndjson": "jsonl",
            ".parquet": "parquet", ".pq": "parquet"}
#: Extensions :func:`read_runs` accepts (``.json`` is accepted by the confusion readers only).
SUPPORTED_EXTENSIONS = tuple(_FORMATS)
_DELIMITER = {"tsv": "\t", "csv": ","}
_NUMERIC = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
_INTEGER = re.compile(r"[+-]?\d+")
_MAX_LISTED = 10


# ----------------------------------------------------------------------------- small helpers


def hash_file(path) -> str:
    """SHA-256 of a file's bytes as a hex string, read in chunks (constant memory)."""
    with open(path, "rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def _natural_key(text: str):
    if _NUMERIC.fullmatch(text):
        return (0, float(text), text)
    parts = tuple((0, int(p), p) if p.isdigit() else (1, 0, p) for p in re.split(r"(\d+)", text) if p)
    return (1, parts, text)


def natural_sorted(names: Iterable[str]) -> list[str]:
    """Sort names naturally: numeric-looking names by value ("2" < "10" < "a"), digit runs
    inside other names by value ("class2" < "class10")."""
    return sorted(names, key=_natural_key)


def _short(text, width: int = 60) -> str:
    """A value for a message: at most ``width`` characters (a 5,000-character label is not repeated)."""
    text = str(text)
    return repr(text) if len(text) <= width else repr(text[:width]) + f"... ({len(text)} characters)"


def _listing(names: Sequence[str], limit: int = _MAX_LISTED) -> str:
    shown = ", ".join(_short(n) for n in list(names)[:limit])
    return shown + (f", ... ({len(names)} in all)" if len(names) > limit else "")


def _near_miss(label: str, classes: Sequence[str]) -> str:
    """A hint when an unknown label equals a class after Unicode (NFC) or number normalisation."""
    import unicodedata

    def number(text):
        try:
            value = float(text)
        except ValueError:
            return None
        return value if value == value else None     # NaN is no number here

    nfc = unicodedata.normalize("NFC", label)
    for c in classes:
        if c != label and unicodedata.normalize("NFC", c) == nfc:
            return (f" (it equals class {_short(c)} after Unicode normalisation: the two files write "
                    "accented letters differently, NFC vs NFD)")
        if number(label) is not None and number(c) == number(label):
            return (f" (it equals class {_short(c)} as a number: JSON Lines and Parquet numbers are written in their "
                    "shortest form, text files as written)")
    return ""


def _as_paths(value) -> list[Path]:
    if value is None:
        return []
    if isinstance(value, (str, os.PathLike)):
        return [Path(value)]
    return [Path(v) for v in value]


def _check_file(path, role: str, formats=_FORMATS) -> tuple[Path, str]:
    """The path and its format, or an InputError for a missing/odd file."""
    path = Path(path)
    if not path.exists():
        raise InputError(f"{role} file not found", path=path)
    if path.is_dir():
        raise InputError(f"{role} file is a directory, not a file"
                         + (" (--runs-dir DIR, Python: runs_dir=..., reads every run file in a folder)" if role == "run" else ""),
                         path=path)
    fmt = formats.get(path.suffix.lower())
    if fmt is None:
        raise InputError(f"unsupported file type {path.suffix or '(no extension)'!r} for a {role} file; "
                         f"use one of {', '.join(formats)}", path=path)
    if path.stat().st_size == 0:
        raise InputError(f"{role} file is empty (no rows)", path=path)
    return path, fmt


def _utf8_error(path: Path) -> InputError | None:
    """An error naming the line of the first byte that is not UTF-8 (None if all is UTF-8)."""
    data = path.read_bytes()
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        return InputError(f"not valid UTF-8 text (byte 0x{data[exc.start]:02x} at column {column}); "
                          "save the file as UTF-8", path=path, line=line)
    return None


# ----------------------------------------------------------------------------- tables


class _Table:
    """The columns of one input file (pyarrow arrays) plus what is needed to locate a row."""

    def __init__(self, path: Path, fmt: str, columns: dict[str, pa.Array | pa.ChunkedArray], n_rows: int,
                 *, header: bool = True, all_names: Sequence[str] | None = None):
        self.path = path
        self.fmt = fmt
        self.columns = columns            # the columns read (Parquet: only those asked for)
        self.all_names = list(all_names if all_names is not None else columns)
        self.n_rows = n_rows
        self.header = header
        self.id_col: str | None = None   # names items in messages, when set
        self.unusable: dict[str, InputError] = {}   # columns that hold values of no use, and why
        self._lines: np.ndarray | None | bool = False  # False = not computed yet
        self._text_cache: dict[str, pa.Array] = {}

    # -- locating rows -------------------------------------------------------------------
    def line(self, row: int | None) -> int | None:
        """1-based line in the file of data row ``row`` (0-based), or None if unknown."""
        if row is None or self.fmt == "parquet":
            return None
        if self._lines is False:
            self._lines = _data_line_numbers(self.path, self.fmt, self.header, self.n_rows)
        return None if self._lines is None else int(self._lines[row])

    def error(self, problem: str, *, row: int | None = None, item=None, line: int | None = None) -> InputError:
        if row is not None and self.fmt == "parquet":
            problem = f"row {row + 1}: {problem}"
        return InputError(problem, path=self.path, line=line if line is not None else self.line(row), item=item)

    def where(self, row: int) -> str:
        """``line k`` or ``row k`` for use inside a message."""
        line = self.line(row)
        return f"line {line}" if line is not None else f"row {row + 1}"

    # -- columns ---------------------------------------------------------------------------
    def require(self, *names: str) -> None:
        missing = [n for n in names if n not in self.columns]
        if missing:
            found = ", ".join(repr(c) for c in self.all_names) or "(none)"
            word = "column" if len(missing) == 1 else "columns"
            raise InputError(f"missing {word} {', '.join(repr(m) for m in missing)}; the columns found are: {found}",
                             path=self.path, line=1 if self.fmt in _DELIMITER and self.header else None)

    def column(self, name: str) -> pa.Array:
        """Column ``name`` as one contiguous array."""
        if name in self.unusable:
            raise self.unusable[name]
        col = self.columns[name]
        if isinstance(col, pa.ChunkedArray):
            col = self.columns[name] = col.combine_chunks()
        return col

    def text(self, name: str) -> pa.Array:
        """Column ``name`` as trimmed strings (numbers in their shortest form, ``1`` not ``1.0``)."""
        if name not in self._text_cache:
            self._text_cache[name] = _to_text(self.column(name), name, self)
        return self._text_cache[name]

    def ids(self, name: str) -> pa.Array:
        """Item ids: trimmed strings, none empty or null."""
        ids = self.text(name)
        bad = pc.or_kleene(pc.is_null(ids), pc.equal(ids, ""))
        if pc.any(bad).as_py():
            row = _first_true(bad)
            raise self.error(f"empty id in column {name!r}", row=row)
        return ids

    def labels(self, name: str, what: str = "label") -> tuple[np.ndarray, list[str]]:
        """Dictionary-encode a label column: (codes (n,) int32, distinct labels in first-seen order).

        Empty, null, NaN and the :data:`MISSING_LABELS` markers are errors.
        """
        encoded = pc.dictionary_encode(self.text(name))
        uniques = encoded.dictionary.to_pylist()
        codes = encoded.indices
        if codes.null_count:
            row = _first_true(pc.is_null(codes))
            raise self.error(f"missing {what} (null) in column {name!r}", row=row, item=self._item(row))
        codes = codes.to_numpy(zero_copy_only=False)
        bad = [k for k, u in enumerate(uniques) if u in MISSING_LABELS]
        if bad:
            row = int(np.flatnonzero(np.isin(codes, bad))[0])
            value = uniques[int(codes[row])]
            problem = f"empty {what} in column {name!r}" if value == "" else \
                f"{what} {value!r} in column {name!r} is a missing-value marker, not a {what}"
            raise self.error(problem, row=row, item=self._item(row))
        return codes, uniques

    def numbers(self, name: str, what: str) -> np.ndarray:
        """A numeric column as float64; empty, non-numeric and NaN values are errors."""
        col = self.column(name)
        if pa.types.is_dictionary(col.type):
            col = col.dictionary_decode()
        if pa.types.is_integer(col.type) or pa.types.is_floating(col.type) or pa.types.is_decimal(col.type):
            values = pc.cast(col, pa.float64())
        else:
            text = self.text(name)
            empty = pc.or_kleene(pc.is_null(text), pc.equal(text, ""))
            if pc.any(empty).as_py():
                row = _first_true(empty)
                raise self.error(f"empty {what} in column {name!r}", row=row, item=self._item(row))
            try:
                values = pc.cast(text, pa.float64())
            except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
                row, value = _first_non_number(text)
                raise self.error(f"{what} {value!r} in column {name!r} is not a number", row=row,
                                 item=self._item(row)) from None
        if values.null_count:
            row = _first_true(pc.is_null(values))
            raise self.error(f"empty {what} in column {name!r}", row=row, item=self._item(row))
        out = values.to_numpy(zero_copy_only=False).astype(np.float64, copy=False)
        nan = np.isnan(out)
        if nan.any():
            row = int(np.flatnonzero(nan)[0])
            raise self.error(f"{what} in column {name!r} is NaN", row=row, item=self._item(row))
        return out

    def _item(self, row: int):
        """The id of a row, when the table has an id column (for messages)."""
        if self.id_col is None or self.id_col not in self.columns:
            return None
        try:
            return self.text(self.id_col)[row].as_py()
        except InputError:
            return None


def _first_true(mask) -> int:
    """Index of the first true value of a boolean (pyarrow or numpy) array."""
    if isinstance(mask, (pa.Array, pa.ChunkedArray)):
        mask = pc.fill_null(mask, False).to_numpy(zero_copy_only=False)
    return int(np.flatnonzero(mask)[0])


def _first_non_number(text: pa.Array) -> tuple[int, str]:
    """Locate the first value pyarrow cannot read as a number (error path): bisect on slices,
    each cast vectorised, about 2n values cast in all."""
    lo, hi = 0, len(text)          # text[:lo] is known to cast; text[lo:hi] holds a bad value
    while hi - lo > 1:
        mid = (lo + hi) // 2
        try:
            pc.cast(text[lo:mid], pa.float64())
            lo = mid
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            hi = mid
    return lo, text[lo].as_py()


def _to_text(col: pa.Array, name: str, table: _Table) -> pa.Array:
    """Any scalar column as trimmed ``large_string``; integral floats lose their ``.0``."""
    t = col.type
    if pa.types.is_dictionary(t):
        col = col.dictionary_decode()
        t = col.type
    if pa.types.is_floating(t):
        col = pc.if_else(pc.is_nan(col), pa.scalar(None, t), col)
        integral = pc.and_(pc.is_finite(col), pc.and_(pc.equal(pc.floor(col), col),
                                                      pc.less(pc.abs(col), 2.0 ** 53)))
        as_int = pc.cast(pc.cast(pc.if_else(integral, col, 0.0), pa.int64()), pa.large_string())
        col = pc.if_else(integral, as_int, pc.cast(col, pa.large_string()))
    elif pa.types.is_nested(t):
        raise table.error(f"column {name!r} holds {t} values; expected text or numbers")
    elif not pa.types.is_large_string(t):
        try:
            col = pc.cast(col, pa.large_string())
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as exc:
            raise table.error(f"column {name!r} holds {t} values that cannot be read as text: {exc}") from None
    return pc.utf8_trim_whitespace(col)


def _data_line_numbers(path: Path, fmt: str, header: bool, n_rows: int) -> np.ndarray | None:
    """Physical line numbers (1-based) of the data rows of a text file, or None if they cannot
    be matched to the rows (e.g. a quoted field spanning lines). Vectorised over the bytes."""
    buf = np.frombuffer(path.read_bytes(), dtype=np.uint8)
    newlines = np.flatnonzero(buf == 10)
    starts = np.concatenate([[0], newlines + 1])
    ends = np.concatenate([newlines, [buf.size]])
    if fmt == "jsonl":   # whitespace-only lines are skipped
        ink = ~np.isin(buf, (9, 10, 13, 32))
        cum = np.concatenate([[0], np.cumsum(ink)])
        blank = cum[ends] - cum[starts] == 0
    else:                # only truly empty lines are skipped
        length = ends - starts
        first = buf[np.minimum(starts, max(buf.size - 1, 0))] if buf.size else np.zeros(0, np.uint8)
        blank = (length == 0) | ((length == 1) & (first == 13))
    lines = np.flatnonzero(~blank) + 1
    if header:
        lines = lines[1:]
    return lines if lines.size == n_rows else None


# ----------------------------------------------------------------------------- file readers


def _read_table(path, role: str, *, formats=_FORMATS, id_col: str | None = None,
                names: Sequence[str] | None = None, fmt: str | None = None, wanted=None) -> tuple[_Table, Path]:
    """Read one input file into a :class:`_Table` (text formats: every column as strings).

    ``names``: column names of a headerless text file. ``wanted`` (name -> bool): the
    columns needed, used to skip reading others where the format allows (Parquet)."""
    path, found = _check_file(path, role, formats)
    fmt = fmt or found
    if fmt in _DELIMITER:
        table = _read_delimited(path, fmt, names=names)
    elif fmt == "jsonl":
        table = _read_jsonl(path)
    else:
        table = _read_parquet(path, wanted)
    table.id_col = id_col
    if table.n_rows == 0:
        raise InputError(f"{role} file has no rows" + (" (only a header)" if fmt in _DELIMITER and names is None else ""),
                         path=path)
    return table, path


def _read_delimited(path: Path, fmt: str, *, names: Sequence[str] | None = None) -> _Table:
    """TSV/CSV with a header on line 1 (or headerless with the given column ``names``)."""
    delimiter = _DELIMITER[fmt]
    with open(path, "rb") as handle:
        first = handle.readline()
    try:
        first_text = first.decode("utf-8-sig").rstrip("\r\n")
    except UnicodeDecodeError:
        raise _utf8_error(path) from None
    if names is None:
        if not first_text.strip():
            raise InputError("line 1 is empty; the header (column names) must be the first line", path=path, line=1)
        header = [f.strip() for f in next(csv.reader([first_text], delimiter=delimiter))]
        seen = set()
        for field in header:
            if field in seen:
                raise InputError(f"column {field!r} appears twice in the header", path=path, line=1)
            seen.add(field)
        skip = 1
    else:
        header, skip = list(names), 0
    generated = [f"c{i}" for i in range(len(header))]
    bad_rows = []

    def on_bad_row(row):
        bad_rows.append(row)
        return "error"

    try:
        result = pa_csv.read_csv(
            path,
            read_options=pa_csv.ReadOptions(column_names=generated, skip_rows=skip),
            parse_options=pa_csv.ParseOptions(delimiter=delimiter, invalid_row_handler=on_bad_row),
            convert_options=pa_csv.ConvertOptions(column_types={g: pa.large_string() for g in generated}),
        )
    except pa.ArrowInvalid as exc:
        if bad_rows:
            row = bad_rows[0]
            line = _line_with_field_count(path, delimiter, len(header), skip)
            what = "the header has" if names is None else "expected"
            raise InputError(f"line has {row.actual_columns} fields but {what} {len(header)}"
                             f" (separator {'TAB' if delimiter == chr(9) else repr(delimiter)})",
                             path=path, line=line) from None
        utf8 = _utf8_error(path)
        if utf8 is not None:
            raise utf8 from None
        raise InputError(f"cannot read as {fmt.upper()}: {exc}", path=path) from None
    if fmt == "tsv":
        _check_tsv_records(path, result.num_rows, names is None)
    columns = {name: result.column(g) for name, g in zip(header, generated)}
    return _Table(path, fmt, columns, result.num_rows, header=names is None)


def _check_tsv_records(path: Path, n_rows: int, header: bool) -> None:
    """TSV is read with CSV quoting (what pandas and R write), so a stray ``"`` at the start of a
    field would swallow the following lines and silently shift ids and labels: one record per
    line is required, and the first record that spans lines is an error."""
    if b'"' not in path.read_bytes() or _data_line_numbers(path, "tsv", header, n_rows) is not None:
        return
    with open(path, newline="", encoding="utf-8-sig") as handle:
        reader = csv.reader(handle, delimiter="\t")
        previous = 0
        for _ in reader:
            if reader.line_num - previous > 1:
                start = previous + 1
                raise InputError(f"a field starting with a double quote runs from this line to line {reader.line_num}: "
                                 "TSV fields may be quoted (\"...\") but one item must stay on one line; remove the "
                                 "stray quote or quote the field", path=path, line=start)
            previous = reader.line_num


def _line_with_field_count(path: Path, delimiter: str, expected: int, skip: int) -> int | None:
    """Line of the first record whose field count differs from ``expected`` (error path)."""
    with open(path, encoding="utf-8-sig", errors="replace", newline="") as handle:
        reader = csv.reader(handle, delimiter=delimiter)
        for index, fields in enumerate(reader):
            if index < skip or not fields:
                continue
            if len(fields) != expected:
                return reader.line_num
    return None


def _read_jsonl(path: Path) -> _Table:
    """JSON Lines: pyarrow's reader, or (mixed types, syntax errors) a line-by-line reader that
    names the failing line."""
    try:
        result = pa_json.read_json(path)
        columns = {name: result.column(name) for name in result.column_names}
        for col in columns.values():
            col.validate(full=True)   # invalid UTF-8 -> the slow reader, which names the line
        # pyarrow turns date-like strings ("2021-01-01") into timestamps: keep text as written
        if not any(pa.types.is_temporal(col.type) for col in columns.values()):
            return _Table(path, "jsonl", columns, result.num_rows, header=False)
    except pa.ArrowInvalid:
        pass
    return _read_jsonl_slow(path)


def _json_text(value):
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        if value != value:
            return None
        return str(int(value)) if value.is_integer() and abs(value) < 2 ** 53 else repr(value)
    if isinstance(value, int):
        return str(value)
    raise TypeError(type(value).__name__)


def _read_jsonl_slow(path: Path) -> _Table:
    columns: dict[str, list] = {}
    nested: dict[str, InputError] = {}   # first array/object value per field: an error if used
    n = 0
    with open(path, "rb") as handle:
        for line_no, raw in enumerate(handle, start=1):
            try:
                text = raw.decode("utf-8-sig" if line_no == 1 else "utf-8")
            except UnicodeDecodeError as exc:
                raise InputError(f"not valid UTF-8 text (byte 0x{raw[exc.start]:02x} at column {exc.start + 1}); "
                                 "save the file as UTF-8", path=path, line=line_no) from None
            if not text.strip():
                continue
            try:
                record = json.loads(text)
            except json.JSONDecodeError as exc:
                raise InputError(f"not valid JSON ({exc.msg} at column {exc.colno})", path=path, line=line_no) from None
            if not isinstance(record, dict):
                raise InputError(f"expected a JSON object per line, found {type(record).__name__}",
                                 path=path, line=line_no)
            for key, value in record.items():
                try:
                    value = _json_text(value)
                except TypeError as exc:
                    nested.setdefault(key, InputError(f"field {key!r} holds a JSON {exc.args[0]}; expected "
                                                      "text or a number", path=path, line=line_no))
                    value = None
                columns.setdefault(key, [None] * n).append(value)
            n += 1
            for values in columns.values():
                if len(values) < n:
                    values.append(None)
    arrays = {k: pa.array(v, type=pa.large_string()) for k, v in columns.items()}
    table = _Table(path, "jsonl", arrays, n, header=False)
    table.unusable = nested
    return table


def _read_parquet(path: Path, wanted=None) -> _Table:
    """A Parquet file; with ``wanted`` (name -> bool) only those columns are read."""
    try:
        names = pq.read_schema(path).names
        chosen = names if wanted is None else [n for n in names if wanted(n)]
        result = pq.read_table(path, columns=chosen)
    except (pa.ArrowException, OSError) as exc:
        raise InputError(f"cannot read as Parquet: {exc}", path=path) from None
    columns = {name: result.column(i) for i, name in enumerate(result.column_names)}
    return _Table(path, "parquet", columns, result.num_rows, header=False, all_names=names)


# ----------------------------------------------------------------------------- runs


def read_runs(gold, runs=(), *, runs_dir=None, names: Sequence[str] | None = None, id_col: str = "id",
              label_col: str = "label", fold_col: str | None = "fold", score_col: str | None = "score",
              labels: Sequence[str] | None = None, missing: str = "error",
              allow_unknown: bool = False) -> Runs:
    """Read a gold file and one prediction file per system into an encoded :class:`Runs`.

    Parameters
    ----------
    gold : path of the gold file (columns ``id_col``, ``label_col``, optionally ``fold_col``).
        Its row order is the item order of the result.
    runs : paths of run files (columns ``id_col``, ``label_col``, optionally scores and folds),
        one per system, in the order the systems should have.
    runs_dir : a folder; every file in it with a supported extension (sorted naturally by name,
        hidden files and the gold file excluded) is a run, appended after ``runs``.
    names : system names, one per run file (default: each file's stem).
    id_col, label_col : column names of the item id and the (gold or predicted) label.
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

    Returns
    -------
    Runs
        ``gold`` (N,) and ``pred`` (S, N) codes of dtype :func:`code_dtype` (K), ``ids`` (the
        gold ids), ``folds``/``fold_names`` (natural order), ``scores`` and ``sources`` (each
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
    run_paths = _as_paths(runs)
    gold_path = Path(gold)
    if runs_dir is not None:
        run_paths += _runs_in_folder(Path(runs_dir), exclude=gold_path)
    if not run_paths:
        raise InputError("no run files given (RUN... or --runs-dir DIR; Python: runs=[...] or runs_dir=...)")
    systems = _system_names(run_paths, names)

    # ---- gold ---------------------------------------------------------------------------
    def wanted(name: str) -> bool:
        return name in (id_col, label_col, fold_col, score_col) or (
            score_col is not None and name.startswith(f"{score_col}_"))

    g, gold_path = _read_table(gold_path, "gold", id_col=id_col, wanted=wanted)
    g.require(id_col, label_col)
    gold_ids = g.ids(id_col)
    n_items = g.n_rows
    first_at = pc.index_in(gold_ids, value_set=gold_ids).to_numpy(zero_copy_only=False)
    dup = first_at != np.arange(n_items)
    if dup.any():
        row = int(np.flatnonzero(dup)[0])
        item = gold_ids[row].as_py()
        raise g.error(f"duplicate id {item!r} (first at {g.where(int(first_at[row]))})", row=row, item=item)
    gold_local, gold_uniques = g.labels(label_col)
    classes = _class_list(labels, gold_uniques, g)
    class_index = {c: k for k, c in enumerate(classes)}
    lut = np.array([class_index[u] for u in gold_uniques], dtype=np.int64)
    gold_codes = lut[gold_local]

    folds = None
    fold_names: tuple[str, ...] = ()
    if fold_col is not None and fold_col in g.columns:
        fold_local, fold_uniques = g.labels(fold_col, what="fold")
        fold_names = tuple(natural_sorted(fold_uniques))
        fold_index = {f: k for k, f in enumerate(fold_names)}
        folds = np.array([fold_index[u] for u in fold_uniques], dtype=np.int64)[fold_local]
        folds = folds.astype(code_dtype(len(fold_names)))

    sources = [Source("gold", str(gold_path), hash_file(gold_path), n_items)]

    # ---- runs ---------------------------------------------------------------------------
    n_known = len(classes)
    extras: list[str] = []           # unknown predicted labels (allow_unknown), in order met
    pred = np.empty((len(run_paths), n_items), dtype=code_dtype(n_known))  # -1 marks a missing item
    any_missing = False
    scores = _ScoreCollector(len(run_paths), n_items, classes, score_col)
    for s, (path, system) in enumerate(zip(run_paths, systems)):
        r, path = _read_table(path, "run", id_col=id_col, wanted=wanted)
        r.require(id_col, label_col)
        ids = r.ids(id_col)
        pos = _align(r, ids, gold_ids, gold_path)   # None = same order as gold
        covered, complete = None, True
        if pos is not None:
            covered = np.bincount(pos, minlength=n_items)
            if covered.max() > 1:
                _raise_duplicate(r, ids, pos)
        local, uniques = r.labels(label_col, what="predicted label")
        lut = np.empty(len(uniques), dtype=np.int64)
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
            raise r.error(f"predicted label {_short(first)} is not a class{_near_miss(first, classes)} "
                          f"({'of the labels list' if labels is not None else 'in the gold file'}: "
                          f"{_listing(classes)}); {len(names_unknown)} unknown label(s): {_listing(names_unknown)}; "
                          "use --allow-unknown (Python: allow_unknown=True) to count them as wrong", row=row, item=ids[row].as_py())
        if code_dtype(n_known + len(extras)) != pred.dtype:
            pred = pred.astype(code_dtype(n_known + len(extras)))
        values = lut[local]
        if pos is None:
            pred[s] = values
        else:
            if (covered == 0).any():
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
            _check_folds(r, fold_col, folds, fold_names, pos, g)
        scores.add(s, r, pos, complete)
        sources.append(Source("run", str(path), hash_file(path), r.n_rows, system=system))

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
    announce_prediction_only(final[n_known:])
    return Runs(gold=gold_codes, pred=pred, labels=tuple(final), systems=tuple(systems),
                ids=np.asarray(gold_ids.to_numpy(zero_copy_only=False)), folds=folds, fold_names=fold_names,
                scores=score_array, sources=tuple(sources), abstain=abstain, score_labels=score_labels,
                n_task=n_known if len(final) > n_known else None)


def announce_prediction_only(added) -> None:
    """Say how classes that occur only in predictions are scored (shared by the in-memory and the
    out-of-core readers)."""
    if added:
        warnings.warn(f"{len(added)} class(es) occur only in predictions ({_listing(added)}: unknown labels "
                      "counted as wrong, or missing predictions as abstain). Each counts as a class only for the "
                      "systems that predict it (as in scikit-learn), so other systems' scores do not change; K's "
                      "class count |C|, the cost baselines and the chance baselines use the task's classes only.",
                      stacklevel=3)


def _runs_in_folder(folder: Path, *, exclude: Path) -> list[Path]:
    if not folder.exists():
        raise InputError("runs folder not found", path=folder)
    if not folder.is_dir():
        raise InputError("runs_dir is not a folder", path=folder)
    skip = exclude.resolve() if exclude.exists() else None
    entries = [p for p in folder.iterdir() if not p.name.startswith(".") and (skip is None or p.resolve() != skip)]
    found = [p for p in entries if p.is_file() and p.suffix.lower() in _FORMATS]
    if not found:
        raise InputError(f"no run files ({', '.join(_FORMATS)}) in the runs folder", path=folder)
    ignored = natural_sorted(p.name + ("/" if p.is_dir() else "") for p in entries if p not in found)
    if ignored:   # an organiser must not lose a team's run without noticing
        warnings.warn(f"{folder}: {len(ignored)} entr{'y' if len(ignored) == 1 else 'ies'} of the runs folder "
                      f"are not run files ({', '.join(_FORMATS)}) and were not read: {_listing(ignored)}",
                      stacklevel=2)
    return sorted(found, key=lambda p: _natural_key(p.name))


def _system_names(paths: list[Path], names) -> list[str]:
    if names is not None:
        names = [str(n) for n in names]
        if len(names) != len(paths):
            raise InputError(f"{len(names)} system names for {len(paths)} run files")
    else:
        names = [p.stem for p in paths]
    seen: dict[str, int] = {}
    for k, name in enumerate(names):
        if name in seen:
            raise InputError(f"system name {name!r} is used twice ({paths[seen[name]]} and {paths[k]}); "
                             "use --names (Python: names=[...]) to tell them apart")
        seen[name] = k
    return names


def _class_list(labels, gold_uniques: list[str], g: _Table) -> list[str]:
    """The class list: the explicit ``labels`` (checked) or the natural-sorted gold labels."""
    if labels is not None:
        if isinstance(labels, str):
            raise InputError("labels must be a list of class names, not a single string")
        classes = [str(x).strip() for x in labels]
        for name in classes:
            if name in MISSING_LABELS:
                raise InputError(f"labels list holds an empty or missing-value class name {name!r}")
        dups = sorted({c for c in classes if classes.count(c) > 1})
        if dups:
            raise InputError(f"labels list names {_listing(dups)} more than once")
        known = set(classes)
        extra = natural_sorted(u for u in gold_uniques if u not in known)
        if extra:
            raise g.error(f"gold label(s) {_listing(extra)} are not in the labels list {_listing(classes)}")
    else:
        classes = natural_sorted(gold_uniques)
    if ABSTAIN in classes:
        raise g.error(f"{ABSTAIN!r} is reserved for predictions a run lacks; rename that class")
    if len(classes) < 2:
        raise g.error(f"the gold labels hold only one class ({_listing(classes)}); measures need at "
                      "least two (--labels a,b,c; Python: labels=[...]) to declare the other classes")
    return classes


def _align(r: _Table, ids: pa.Array, gold_ids: pa.Array, gold_path: Path):
    """Row -> gold position for every row of a run (None when the ids equal the gold ids)."""
    if ids.equals(gold_ids):
        return None
    pos = pc.index_in(ids, value_set=gold_ids)
    if pos.null_count:
        unknown = pc.is_null(pos)
        row = _first_true(unknown)
        item = ids[row].as_py()
        raise r.error(f"id {item!r} is not in the gold file {gold_path} "
                      f"({pos.null_count} id(s) of this run are not)", row=row, item=item)
    return pos.to_numpy(zero_copy_only=False).astype(np.int64, copy=False)


def _raise_duplicate(r: _Table, ids: pa.Array, pos: np.ndarray):
    _, first = np.unique(pos, return_index=True)
    repeated = np.ones(pos.size, dtype=bool)
    repeated[first] = False
    row = int(np.flatnonzero(repeated)[0])
    earlier = int(np.flatnonzero(pos[:row] == pos[row])[0])
    item = ids[row].as_py()
    raise r.error(f"duplicate id {item!r} (first at {r.where(earlier)})", row=row, item=item)


def _check_folds(r: _Table, fold_col: str, folds, fold_names, pos, g: _Table):
    if folds is None:
        raise r.error(f"the run has a {fold_col!r} column but the gold file {g.path} has none; "
                      "folds are declared in the gold file", line=1 if r.fmt in _DELIMITER else None)
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


class _ScoreCollector:
    """Collect the scores of every run into one array, if all runs have the same layout."""

    def __init__(self, n_systems: int, n_items: int, classes: list[str], score_col: str | None):
        self.shape = (n_systems, n_items)
        self.classes = classes
        self.col = score_col
        self.layout = None        # None (no scores), "binary" or a tuple of (label, column)
        self.array = None
        self.warned = False

    def _layout_of(self, r: _Table):
        if self.col is None:
            return None
        prefix = f"{self.col}_"
        per_class = {c[len(prefix):]: c for c in r.columns if c.startswith(prefix) and len(c) > len(prefix)}
        if per_class:
            if self.col in r.columns:
                raise r.error(f"both a {self.col!r} column and per-class {prefix}<label> columns; keep one kind",
                              line=1 if r.fmt in _DELIMITER else None)
            unknown = [lab for lab in per_class if lab not in self.classes]
            if unknown:
                raise r.error(f"score column(s) {_listing([per_class[u] for u in unknown])} name no class "
                              f"(classes: {_listing(self.classes)})", line=1 if r.fmt in _DELIMITER else None)
            return tuple((c, per_class[c]) for c in self.classes if c in per_class)
        return "binary" if self.col in r.columns else None

    def add(self, s: int, r: _Table, pos, complete: bool):
        """Scores of run ``s`` (``pos``: row -> item, None = gold order; ``complete``: every
        item has a row, else the others get NaN)."""
        layout = self._layout_of(r)
        if s == 0:
            self.layout = layout
            if layout is not None:
                shape = self.shape if layout == "binary" else self.shape + (len(layout),)
                self.array = np.empty(shape)
        elif layout != self.layout and not self.warned:
            warnings.warn(f"{r.path}: scores ignored for all systems: this run's score columns "
                          f"({_describe(layout, self.col)}) differ from the first run's "
                          f"({_describe(self.layout, self.col)})", stacklevel=3)
            self.array, self.warned = None, True
        if self.array is None:
            return
        target = self.array[s]
        if not complete:
            target[...] = np.nan
        where = slice(None) if pos is None else pos
        if layout == "binary":
            target[where] = r.numbers(self.col, "score")
        else:
            for k, (_, column) in enumerate(layout):
                target[where, k] = r.numbers(column, "score")

    def result(self):
        if self.array is None:
            return None, ()
        labels = () if self.layout == "binary" else tuple(lab for lab, _ in self.layout)
        return self.array, labels


def _describe(layout, col) -> str:
    if layout is None:
        return "none"
    if layout == "binary":
        return repr(col)
    return ", ".join(c for _, c in layout)
