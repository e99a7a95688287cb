"""Reading one input table: the :class:`Table` of a file's columns and the TSV/CSV, JSON Lines
and Parquet readers that fill it (:func:`read_table` picks one by extension).

A :class:`Table` holds pyarrow columns plus what is needed to name the line of a row in a
message; it turns columns into ids, dictionary-encoded labels and numbers, refusing empty,
missing-value and non-numeric values. Also here: the limit :data:`MAX_LINE_BYTES`, the
missing-value markers :data:`MISSING_LABELS`; the line checks of TSV/CSV files and the
line-locating helpers of the error paths are :mod:`evalreport.inputs.lines`. The formats and
the rules they follow are described in :mod:`evalreport.inputs.readers`.
"""
from __future__ import annotations

import csv
import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pa_csv
import pyarrow.json as pa_json
import pyarrow.parquet as pq

from evalreport.errors import InputError
from evalreport.inputs.checks import FORMATS, SCAN_CHUNK, case_hint, check_file, short, utf8_error
from evalreport.inputs.delimiters import DECIMAL_COMMA, NAMES, sniff_delimiter
from evalreport.inputs.lines import (
    check_csv_quotes,
    check_tsv_records,
    csv_field_limit,
    data_line_numbers,
    line_with_field_count,
)
from evalreport.inputs.parquet_limits import check_parquet_sizes
from evalreport.words import counted

__all__ = ["MISSING_LABELS", "MAX_LINE_BYTES", "DELIMITER", "HEADED", "JsonObjectValue", "Table", "first_true",
           "float_values", "read_table", "to_text"]

#: Label texts read as "no label" (an error): besides these, null (JSON/Parquet) and NaN.
#: ``NA`` and ``None`` are deliberately *not* here: they are plausible class names.
MISSING_LABELS = ("", "nan", "NaN", "NAN", "null", "NULL", "Null", "<NA>")

#: The separator each text format's extension implies (a file's own is found by
#: :func:`~evalreport.inputs.delimiters.sniff_delimiter`).
DELIMITER = {"tsv": "\t", "csv": ","}
#: Formats whose header of column names is line 1 (a spreadsheet's row 1).
HEADED = ("tsv", "csv", "xlsx")
_DICTIONARY = pa.dictionary(pa.int32(), pa.large_string())

#: The longest line of a TSV/CSV file (header or data), in bytes.
MAX_LINE_BYTES = 64 * 2 ** 20


# ----------------------------------------------------------------------------- tables


class JsonObjectValue(InputError):
    """A JSON Lines field holding an object (``{"label": {"x": 1}}``) where a value is read: an object is
    neither a label nor a list of labels (a label set), so no reader takes it for either."""


class Table:
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
            self._lines = data_line_numbers(self.path, self.fmt, self.header, self.n_rows)
        return int(self._lines[row]) if isinstance(self._lines, np.ndarray) else None

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
            if len(self.all_names) == 1 and self.fmt in DELIMITER and self.header:
                found += f" (one column: none of the separators {', '.join(NAMES.values())} splits the header)"
            found += case_hint(missing, self.all_names)
            raise InputError(f"missing {word} {', '.join(repr(m) for m in missing)}; the columns found are: {found}",
                             path=self.path, line=1 if self.fmt in HEADED and self.header else None)

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
            self._text_cache[name] = to_text(self.column(name), name, self)
        return self._text_cache[name]

    def share_column(self, name: str, raw, text) -> None:
        """Hold another table's column ``name``: ``raw`` as read and ``text`` as :meth:`text` makes it
        (a run whose ids equal the gold's as read keeps the gold's arrays, not a second copy)."""
        self.columns[name], self._text_cache[name] = raw, text

    def ids(self, name: str) -> pa.Array:
        """Item ids: trimmed strings, none empty or null."""
        ids = self.text(name)
        if not ids.null_count and not (_text_lengths(ids) == 0).any():
            return ids
        bad = pc.or_kleene(pc.is_null(ids), pc.equal(ids, ""))
        if pc.any(bad).as_py():
            row = first_true(bad)
            raise self.error(f"empty id in column {name!r}", row=row)
        return ids

    def labels(self, name: str, what: str = "label") -> tuple[np.ndarray, list[str]]:
        """Dictionary-encode a label column: (codes (n,) int32, distinct labels in first-seen order).

        Empty, null, NaN and the :data:`MISSING_LABELS` markers are errors.
        """
        col = self.column(name) if name not in self._text_cache else None
        if col is not None and pa.types.is_dictionary(col.type) and not col.null_count \
                and not col.dictionary.null_count:
            codes, uniques = _dictionary_labels(col, name, self)
        else:
            encoded = pc.dictionary_encode(self.text(name))
            uniques = encoded.dictionary.to_pylist()
            codes = encoded.indices
        if isinstance(codes, pa.Array) and codes.null_count:
            row = first_true(pc.is_null(codes))
            raise self.error(f"missing {what} (null) in column {name!r}", row=row, item=self._item(row))
        if isinstance(codes, pa.Array):
            codes = _int_values(codes)
        bad = [k for k, u in enumerate(uniques) if u in MISSING_LABELS]
        if bad:
            row = int(np.flatnonzero(np.isin(codes, bad))[0])
            value = uniques[int(codes[row])]
            problem = f"empty {what} in column {name!r}" if value == "" else \
                f"{what} {value!r} in column {name!r} is a missing-value marker, not a {what}"
            raise self.error(problem, row=row, item=self._item(row))
        return codes, uniques

    def codes(self, name: str, class_index: dict[str, int], dtype) -> np.ndarray | None:
        """Class codes (``dtype``) of a dictionary-encoded label column, straight from its dictionary
        indices: ``class_index[label]`` for every row, the same as :meth:`labels` mapped through
        ``class_index``. None when that needs :meth:`labels` (a column not dictionary-encoded, a null,
        or a dictionary value that is not a key of ``class_index``: an unknown label or a
        missing-value marker, which :meth:`labels` reports); then nothing was checked."""
        col = self.columns.get(name)
        if name in self.unusable or name in self._text_cache or col is None or not pa.types.is_dictionary(col.type):
            return None
        chunks = col.chunks if isinstance(col, pa.ChunkedArray) else [col]
        out = np.empty(self.n_rows, dtype=dtype)
        at = 0
        for chunk in chunks:
            if chunk.null_count or chunk.dictionary.null_count:
                return None
            lut = np.array([class_index.get(v, -1) for v in to_text(chunk.dictionary, name, self).to_pylist()],
                           dtype=dtype)
            if (lut < 0).any():
                return None
            n = len(chunk)
            np.take(lut, _int_values(chunk.indices), out=out[at:at + n])
            at += n
        return out if at == self.n_rows else None

    def numbers(self, name: str, what: str, out: np.ndarray | None = None,
                bounds: list | None = None) -> np.ndarray:
        """A numeric column as float64 (written into ``out`` when given: ``(n_rows,)``, e.g. a row of a
        larger array, so the values are copied once); empty, non-numeric and NaN values are errors.
        ``bounds``: a list that receives the column's minimum and maximum (NaN-free)."""
        raw = self.columns.get(name)
        if name not in self.unusable and raw is not None and pa.types.is_float64(raw.type) and not raw.null_count:
            out = float_values(raw, out)     # the chunks as read, copied once (no combined copy first)
            lo = out.min() if out.size else 0.0
            if not np.isnan(lo):              # (the minimum is NaN iff a value is)
                if bounds is not None:
                    bounds[:] = [float(lo), float(out.max()) if out.size else 0.0]
                return out
        col = self.column(name)
        if pa.types.is_dictionary(col.type):
            col = col.dictionary_decode()
        if pa.types.is_integer(col.type) or pa.types.is_floating(col.type) or pa.types.is_decimal(col.type):
            values = pc.cast(col, pa.float64())
        else:
            text = self.text(name)
            if text.null_count or not _text_lengths(text).all():      # (numpy: a "" scalar imports pandas)
                empty = pc.or_kleene(pc.is_null(text), pc.equal(text, ""))
                row = first_true(empty)
                raise self.error(f"empty {what} in column {name!r}", row=row, item=self._item(row))
            try:
                values = pc.cast(text, pa.float64())
            except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
                row, value = _first_non_number(text)
                hint = ""
                if DECIMAL_COMMA.fullmatch(value):
                    hint = (f": write the decimal point as '.' ({value.replace(',', '.')}), not a decimal comma "
                            "(a spreadsheet's export in many locales)")
                raise self.error(f"{what} {value!r} in column {name!r} is not a number{hint}", row=row,
                                 item=self._item(row)) from None
        if values.null_count:
            row = first_true(pc.is_null(values))
            raise self.error(f"empty {what} in column {name!r}", row=row, item=self._item(row))
        out = float_values(values, out)
        nan = np.isnan(out)
        if nan.any():
            row = int(np.flatnonzero(nan)[0])
            raise self.error(f"{what} in column {name!r} is NaN", row=row, item=self._item(row))
        if bounds is not None:
            bounds[:] = [float(out.min()), float(out.max())] if out.size else [0.0, 0.0]
        return out

    def _item(self, row: int):
        """The id of a row, when the table has an id column (for messages)."""
        if self.id_col is None or self.id_col not in self.columns:
            return None
        try:
            return self.text(self.id_col)[row].as_py()
        except InputError:
            return None


def _int_values(arr: pa.Array) -> np.ndarray:
    """An integer Arrow array as NumPy, a view when it has no nulls (``to_numpy`` would import pandas)."""
    if arr.null_count == 0 and pa.types.is_integer(arr.type):
        dtype = np.dtype(f"{'i' if pa.types.is_signed_integer(arr.type) else 'u'}{arr.type.bit_width // 8}")
        if len(arr) == 0:
            return np.empty(0, dtype=dtype)
        return np.frombuffer(arr.buffers()[1], dtype=dtype, count=len(arr), offset=arr.offset * dtype.itemsize)
    return arr.to_numpy(zero_copy_only=False)


def float_values(values, out: np.ndarray | None = None) -> np.ndarray:
    """A float64 Arrow array or chunked array without nulls as NumPy, chunk by chunk into ``out`` (a new
    array when None; pyarrow's ``ChunkedArray.to_numpy`` imports pandas and copies the chunks once more)."""
    chunks = values.chunks if isinstance(values, pa.ChunkedArray) else [values]
    if out is None:
        if len(chunks) == 1:
            return _float_view(chunks[0])
        out = np.empty(len(values))
    at = 0
    for chunk in chunks:
        out[at:at + len(chunk)] = _float_view(chunk)
        at += len(chunk)
    return out


def _float_view(arr: pa.Array) -> np.ndarray:
    """A float64 Arrow array without nulls as a NumPy view of its buffer (``to_numpy`` may import pandas)."""
    if not len(arr):
        return np.empty(0)
    return np.frombuffer(arr.buffers()[1], dtype=np.float64, count=len(arr), offset=arr.offset * 8)


def _text_lengths(arr: pa.Array) -> np.ndarray:
    """Byte length of every value of a string array (from its offsets; 0 for a null)."""
    wide = pa.types.is_large_string(arr.type) or pa.types.is_large_binary(arr.type)
    otype = np.dtype(np.int64 if wide else np.int32)
    if len(arr) == 0:
        return np.empty(0, dtype=otype)
    return np.diff(np.frombuffer(arr.buffers()[1], dtype=otype, count=len(arr) + 1, offset=arr.offset * otype.itemsize))


def first_true(mask) -> int:
    """Index of the first true value of a boolean (pyarrow or numpy) array."""
    if isinstance(mask, (pa.Array, pa.ChunkedArray)):
        mask = pc.fill_null(mask, False).to_numpy(zero_copy_only=False)
    return int(np.flatnonzero(mask)[0])


def _dictionary_labels(col: pa.DictionaryArray, name: str, table: Table) -> tuple[np.ndarray, list[str]]:
    """What ``dictionary_encode`` of the column's text gives (codes int32, distinct trimmed labels in
    first-seen order), computed from a dictionary-encoded column (Parquet's own dictionary) without
    decoding it: only the few dictionary values are trimmed, then merged where trimming made them equal."""
    merged = pc.dictionary_encode(to_text(col.dictionary, name, table))     # dictionary entry -> merged code
    values = merged.dictionary.to_pylist()
    codes = _int_values(merged.indices).astype(np.int32)[_int_values(col.indices)]
    first = _first_seen(codes, len(values))
    seen = np.flatnonzero(first < codes.size)
    order = seen[np.argsort(first[seen], kind="stable")]
    rank = np.zeros(len(values), dtype=np.int32)
    rank[order] = np.arange(order.size, dtype=np.int32)
    return rank[codes], [values[k] for k in order]


def _first_seen(codes: np.ndarray, k: int) -> np.ndarray:
    """Row of the first occurrence of each code 0..k-1 (``codes.size`` if none), by doubling prefixes."""
    n = codes.size
    first = np.full(k, n, dtype=np.int64)
    present = np.bincount(codes, minlength=k) > 0
    lo, size = 0, 1024
    while lo < n and (first[present] == n).any():
        hi = min(n, lo + size)
        found, at = np.unique(codes[lo:hi], return_index=True)
        new = first[found] == n
        first[found[new]] = lo + at[new]
        lo, size = hi, 2 * size
    return first


def _first_non_number(text: pa.Array) -> tuple[int, str]:
    """Locate the first value pyarrow cannot read as a number, by bisection (error path)."""
    lo, hi = 0, len(text)          # text[:lo] is known to cast; text[lo:hi] holds a bad value
    while hi - lo > 1:
        mid = (lo + hi) // 2
        try:
            pc.cast(text[lo:mid], pa.float64())
            lo = mid
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            hi = mid
    return lo, text[lo].as_py()


def to_text(col: pa.Array, name: str, table: Table) -> pa.Array:
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
    return pc.utf8_trim_whitespace(col) if _may_need_trim(col) else col


#: First or last bytes of a value that ``utf8_trim_whitespace`` may remove: ASCII whitespace (TAB to CR,
#: the separators 0x1C-0x1F, space) and every non-ASCII byte (Unicode spaces; checked, not decoded).
_EDGE = np.zeros(256, dtype=bool)
_EDGE[[9, 10, 11, 12, 13, 28, 29, 30, 31, 32]] = True
_EDGE[0x80:] = True


def _may_need_trim(col) -> bool:
    """False when no value starts or ends with whitespace, so trimming would copy the column for
    nothing: the first and last byte of every value are ASCII and not whitespace (a value with a
    non-ASCII first or last byte is trimmed, whatever it holds)."""
    if not isinstance(col, pa.Array) or not pa.types.is_large_string(col.type):
        return True
    buffers = col.buffers()
    if buffers[2] is None or len(col) == 0:
        return False
    offsets = np.frombuffer(buffers[1], dtype=np.int64, count=len(col) + 1, offset=col.offset * 8)
    data = np.frombuffer(buffers[2], dtype=np.uint8)
    starts, ends = offsets[:-1], offsets[1:]
    full = ends > starts
    if not full.all():
        starts, ends = starts[full], ends[full]
    return bool(_EDGE[data[starts]].any() or _EDGE[data[ends - 1]].any())


# ----------------------------------------------------------------------------- file readers


def read_table(path, role: str, *, formats=FORMATS, id_col: str | None = None,
                names: Sequence[str] | None = None, fmt: str | None = None, wanted=None,
                dictionary: Sequence[str] = (), same_ids=None) -> tuple[Table, Path]:
    """Read one input file into a :class:`Table` (text formats: every column as strings).

    ``names``: column names of a headerless text file. ``wanted`` (name -> bool): the
    columns needed, used to skip reading others where the format allows (Parquet).
    ``dictionary``: text columns of few distinct values (labels, folds) that Parquet may hand over
    dictionary-encoded, as stored (:meth:`Table.labels` gives the same codes either way).
    ``same_ids``: the gold file's :class:`~evalreport.inputs.parquet_ids.GoldIdColumn`; a Parquet file
    that stores column ``id_col`` byte for byte as the gold stores its ids gets the gold's array for it
    (the same values) instead of decoding its own."""
    path, found = check_file(path, role, formats)
    fmt = fmt or found
    if fmt in DELIMITER:
        table = _read_delimited(path, fmt, names=names, dictionary=dictionary)
    elif fmt == "xlsx":
        from evalreport.inputs.workbooks import read_xlsx

        table = read_xlsx(path, Table)
    elif fmt == "jsonl":
        table = _read_jsonl(path)
    else:
        table = _read_parquet(path, wanted, dictionary, same_ids=same_ids, id_col=id_col)
    table.id_col = id_col
    if table.n_rows == 0:
        raise InputError(f"{role} file has no rows" + (" (only a header)" if fmt in HEADED and names is None else ""),
                         path=path)
    return table, path


def _read_delimited(path: Path, fmt: str, *, names: Sequence[str] | None = None,
                    dictionary: Sequence[str] = ()) -> Table:
    """TSV/CSV with a header (or the given ``names``), its own separator, ``dictionary`` columns encoded."""
    delimiter = DELIMITER[fmt] if names is not None else sniff_delimiter(path, DELIMITER[fmt])
    with open(path, "rb") as handle:
        first = handle.readline(MAX_LINE_BYTES + 1)
    if len(first) > MAX_LINE_BYTES:
        raise InputError(f"line 1 is longer than {MAX_LINE_BYTES // 2 ** 20} MiB; not a header of column names",
                         path=path, line=1)
    try:
        first_text = first.decode("utf-8-sig").rstrip("\r\n")
    except UnicodeDecodeError:
        error = utf8_error(path)
        assert error is not None                  # line 1 is not UTF-8, so neither is the file
        raise error from None
    if names is None:
        if not first_text.strip():
            raise InputError("line 1 is empty; the header (column names) must be the first line", path=path, line=1)
        with csv_field_limit():
            header = [f.strip() for f in next(csv.reader([first_text], delimiter=delimiter))]
        seen = set()
        for field in header:
            if field in seen:
                raise InputError(f"column {short(field)} appears twice in the header", path=path, line=1)
            seen.add(field)
        skip = 1
        if _only_blank_after(path, len(first)):
            # only a header (with or without a final newline): pyarrow cannot skip a line that does not end
            empty = pa.array([], type=pa.large_string())
            return Table(path, fmt, {name: empty for name in header}, 0, header=True)
    else:
        header, skip = list(names), 0
    generated = [f"c{i}" for i in range(len(header))]
    bad_rows = []

    def on_bad_row(row):
        bad_rows.append(row)
        return "error"

    block = max(2 ** 20, 2 * len(first))       # pyarrow: a line (the header too) must fit in one block
    while True:
        try:
            result = pa_csv.read_csv(
                path,
                read_options=pa_csv.ReadOptions(column_names=generated, skip_rows=skip, block_size=block),
                parse_options=pa_csv.ParseOptions(delimiter=delimiter, invalid_row_handler=on_bad_row),
                convert_options=pa_csv.ConvertOptions(column_types={
                    g: _DICTIONARY if name in dictionary and header.count(name) == 1 else pa.large_string()
                    for g, name in zip(generated, header)}),
            )
            break
        except pa.ArrowInvalid as exc:
            if "straddl" in str(exc) and not bad_rows and block < MAX_LINE_BYTES:
                block = min(4 * block, MAX_LINE_BYTES)     # a very long line: a larger block, up to the limit
                continue
            if bad_rows:
                row = bad_rows[0]
                line = line_with_field_count(path, delimiter, len(header), skip)
                what = "the header has" if names is None else "expected"
                raise InputError(f"line has {counted(row.actual_columns, 'field')} but {what} {len(header)}"
                                 f" (separator {NAMES[delimiter]})",
                                 path=path, line=line) from None
            utf8 = utf8_error(path)
            if utf8 is not None:
                raise utf8 from None
            if "straddl" in str(exc):
                raise InputError(f"a line is longer than {MAX_LINE_BYTES // 2 ** 20} MiB", path=path) from None
            raise InputError(f"cannot read as {fmt.upper()}: {exc}", path=path) from None
    if delimiter == "\t":
        check_tsv_records(path, result.num_rows, names is None)
    else:
        check_csv_quotes(path, result.num_rows, names is None, delimiter)
    columns = {name: result.column(g) for name, g in zip(header, generated)}
    return Table(path, fmt, columns, result.num_rows, header=names is None)


def _only_blank_after(path: Path, start: int) -> bool:
    """Whether the file holds nothing but line breaks after byte ``start`` (reads no further than the first other byte)."""
    with open(path, "rb") as handle:
        handle.seek(start)
        while block := handle.read(SCAN_CHUNK):
            if block.strip(b"\r\n"):
                return False
    return True


def _read_jsonl(path: Path) -> Table:
    """JSON Lines: pyarrow's reader, else a line-by-line reader that names the failing line."""
    from evalreport.inputs.json_depth import JSON_DEPTH_LIMIT, max_line_depth

    if max_line_depth(path) > JSON_DEPTH_LIMIT:       # pyarrow's reader would crash the process on it
        return _read_jsonl_slow(path)
    try:
        result = pa_json.read_json(path)
        columns = {name: result.column(name) for name in result.column_names}
        for col in columns.values():
            col.validate(full=True)   # invalid UTF-8 -> the slow reader, which names the line
        # pyarrow turns date-like strings ("2021-01-01") into timestamps: keep text as written; a field of
        # objects (a struct column) goes to the slow reader too, which names the line of the first
        if not any(pa.types.is_temporal(col.type) or pa.types.is_struct(col.type) for col in columns.values()):
            return Table(path, "jsonl", columns, result.num_rows, header=False)
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


class _DuplicateKey(Exception):
    pass


def _unique_keys(pairs) -> dict:
    """``object_pairs_hook`` for json.loads: a key given twice is an error, not "the later value wins"."""
    out = dict(pairs)
    if len(out) != len(pairs):
        seen = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKey(key)
            seen.add(key)
    return out


def _read_jsonl_slow(path: Path) -> Table:
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
                record = json.loads(text, object_pairs_hook=_unique_keys)
            except json.JSONDecodeError as exc:
                raise InputError(f"not valid JSON ({exc.msg} at column {exc.colno})", path=path, line=line_no) from None
            except _DuplicateKey as exc:
                raise InputError(f"key {short(exc.args[0])} appears twice in one JSON object (which value counts "
                                 "would be a guess); keep one", path=path, line=line_no) from None
            except RecursionError:
                raise InputError("JSON nested too deeply (arrays or objects hundreds of levels deep); a record "
                                 "holds an id and a label or a list of labels", path=path, line=line_no) from None
            if not isinstance(record, dict):
                raise InputError(f"expected a JSON object per line, found {type(record).__name__}",
                                 path=path, line=line_no)
            for key, value in record.items():
                try:
                    value = _json_text(value)
                except TypeError as exc:
                    if isinstance(value, dict):          # an object anywhere outranks a list seen before
                        if not isinstance(nested.get(key), JsonObjectValue):
                            nested[key] = _object_error(key, value, path, line_no)
                    else:
                        nested.setdefault(key, InputError(f"field {key!r} holds a JSON {exc.args[0]}; expected "
                                                          "text or a number", path=path, line=line_no))
                    value = None
                columns.setdefault(key, [None] * n).append(value)
            n += 1
            for values in columns.values():
                if len(values) < n:
                    values.append(None)
    arrays = {k: pa.array(v, type=pa.large_string()) for k, v in columns.items()}
    table = Table(path, "jsonl", arrays, n, header=False)
    table.unusable = nested
    return table


def _object_error(key: str, value: dict, path: Path, line: int) -> JsonObjectValue:
    """The one-line refusal of a JSON object in field ``key``."""
    return JsonObjectValue(f"field {key!r} holds a JSON object ({short(json.dumps(value, ensure_ascii=False))}): not a "
                           "label nor an id (text or a number), nor a label set (a list of labels)", path=path,
                           line=line)


def _read_parquet(path: Path, wanted=None, dictionary: Sequence[str] = (), *, same_ids=None,
                  id_col: str | None = None) -> Table:
    """A Parquet file: only the ``wanted`` columns, ``dictionary`` ones encoded, same ids not decoded."""
    try:
        schema = pq.read_schema(path)
        names = schema.names
    except (pa.ArrowException, OSError) as exc:
        raise InputError(f"cannot read as Parquet: {exc}", path=path) from None
    twice = [n for k, n in enumerate(names) if n in names[:k]]
    if twice:
        raise InputError(f"column {short(twice[0])} appears twice in the Parquet schema; rename one of them",
                         path=path)
    try:
        chosen = names if wanted is None else [n for n in names if wanted(n)]
        as_dict = [n for n in dictionary if n in chosen and (pa.types.is_string(schema.field(n).type)
                                                             or pa.types.is_large_string(schema.field(n).type))]
        shared = same_ids is not None and id_col in chosen and len(chosen) > 1 and same_ids.stored_in(path, id_col)
        # ParquetFile, not pq.read_table: one file needs no dataset layer (which imports pandas: 0.3 s)
        read = [n for n in chosen if not shared or n != id_col]
        with pq.ParquetFile(path, read_dictionary=as_dict or None) as handle:
            check_parquet_sizes(handle.metadata, path, read.__contains__)   # the other formats' limits
            result = handle.read(columns=read)
    except (pa.ArrowException, OSError) as exc:
        raise InputError(f"cannot read as Parquet: {exc}", path=path) from None
    columns = {name: result.column(i) for i, name in enumerate(result.column_names)}
    if shared:
        columns = {n: same_ids.array if n == id_col else columns[n] for n in chosen}
    return Table(path, "parquet", columns, result.num_rows, header=False, all_names=names)
