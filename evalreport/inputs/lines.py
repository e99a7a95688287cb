"""Line checks of TSV/CSV files: one record per line (TSV), quotes that close (CSV), the line of a
row or of a bad record (error paths). Used by :mod:`evalreport.inputs.tables`.

The common case is decided without looking at every line: :func:`scan_lines` reads the file once in
blocks (constant memory) for a ``"``, the line count and the last line, and when there are as many
lines as records each record has a line of its own (:func:`last_line_if_one_per_line`); only
otherwise are the line numbers of every row computed (:func:`data_line_numbers`, vectorised) or the
file re-read record by record to name the line of the problem.
"""
from __future__ import annotations

import csv
from contextlib import contextmanager
from pathlib import Path
from typing import NamedTuple

import numpy as np

from evalreport.errors import InputError
from evalreport.inputs.checks import SCAN_CHUNK


def first_line(handle, limit: int, *, blank: bool = True) -> str | None:
    """The first (``blank``: non-blank) line of a text stream, or None when it is not whole within
    ``limit`` characters (a quick look at a header leaves a longer line to the full reader)."""
    read = 0
    while read < limit:
        line = handle.readline(limit - read)
        if not line:
            return None
        read += len(line)
        if not line.endswith(("\n", "\r")) and handle.read(1):
            return None                     # cut at the limit
        if line.strip() or not blank:
            return line
    return None


def _max_line_bytes() -> int:
    from evalreport.inputs import tables  # the limit is read where it is defined (tests patch it there)

    return tables.MAX_LINE_BYTES


def data_line_numbers(path: Path, fmt: str, header: bool, n_rows: int) -> np.ndarray | None:
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


@contextmanager
def csv_field_limit():
    """Python's csv module refuses fields over 128 KiB; lines are bounded by _max_line_bytes() instead."""
    old = csv.field_size_limit()
    csv.field_size_limit(max(old, _max_line_bytes()))
    try:
        yield
    finally:
        csv.field_size_limit(old)


def check_tsv_records(path: Path, n_rows: int, header: bool) -> None:
    """TSV is read with CSV quoting (what pandas and R write), so a stray ``"`` at the start of a
    field would swallow the following lines and silently shift ids and labels: one record per
    line is required, and the first record that spans lines is an error."""
    scan = scan_lines(path)
    if not scan.quote:
        return
    last = last_line_if_one_per_line(scan, n_rows, header)
    lines = np.array([last]) if last is not None else data_line_numbers(path, "tsv", header, n_rows)
    if lines is not None:
        # one record per line; only the last can hold a quote that never closes (it runs to the end of
        # the file, where the CSV reader would drop the quote and keep the text)
        if lines.size:
            last_text = scan.last.decode("utf-8", errors="replace")
            try:
                list(csv.reader([last_text], delimiter="\t", strict=True))
            except csv.Error:
                raise InputError("a field starting with a double quote is never closed: TSV fields may be quoted "
                                 "(\"...\") but the quote must close on the same line; remove the stray quote or "
                                 "quote the field", path=path, line=int(lines[-1])) from None
        return
    with open(path, newline="", encoding="utf-8-sig") as handle, csv_field_limit():
        reader = csv.reader(handle, delimiter="\t")
        previous = 0
        for _ in reader:
            if reader.line_num - previous > 1:
                start = previous + 1
                raise InputError(f"a field starting with a double quote runs from this line to line {reader.line_num}: "
                                 "TSV fields may be quoted (\"...\") but one item must stay on one line; remove the "
                                 "stray quote or quote the field", path=path, line=start)
            previous = reader.line_num


class Scan(NamedTuple):
    quote: bool          # the file holds a double quote
    n_lines: int         # physical lines (a last line without a line feed counts)
    last: bytes          # the last line that is not empty (without its line break)


def scan_lines(path: Path) -> Scan:
    """One pass over a text file in blocks (constant memory, memchr speed): whether it holds a ``"``,
    its line count and its last non-empty line."""
    quote, n_feeds, last_block = False, 0, b""
    with open(path, "rb") as handle:
        while block := handle.read(16 * SCAN_CHUNK):
            quote = quote or b'"' in block
            n_feeds += block.count(b"\n")
            last_block = block
        size = handle.tell()
        ends_open = size > 0 and not last_block.endswith(b"\n")
        del last_block
        # the last non-empty line, read back from the end (a line is at most _max_line_bytes() long)
        span = 2 ** 16
        while True:
            start = max(0, size - span)
            handle.seek(start)
            stripped = handle.read(size - start).rstrip(b"\r\n")
            if b"\n" in stripped or start == 0 or span > _max_line_bytes() + 2:
                break
            span *= 4
    return Scan(quote, n_feeds + int(ends_open), stripped.rsplit(b"\n", 1)[-1])


def last_line_if_one_per_line(scan: Scan | bytes, n_rows: int, header: bool) -> int | None:
    """The line number of the last record when the file's line count alone proves one record per
    line and no blank line (the common case: a record takes at least one line of its own, so as
    many lines as records means one each); None when that does not settle it (blank lines, or a
    record spanning lines: see data_line_numbers). ``scan``: a :func:`scan_lines` result or the bytes."""
    if not n_rows:
        return None
    if isinstance(scan, bytes):
        n_lines = scan.count(b"\n") + (0 if scan.endswith(b"\n") or not scan else 1)
    else:
        n_lines = scan.n_lines
    return n_lines if n_lines == n_rows + int(header) else None


def check_csv_quotes(path: Path, n_rows: int, header: bool, delimiter: str = ",") -> None:
    """A quoted CSV field may span lines, but a quote that never closes runs to the end of the file,
    where the reader drops it and keeps the text (``3,"NONE`` would read as ``NONE``): an error."""
    scan = scan_lines(path)
    if not scan.quote:
        return
    last = last_line_if_one_per_line(scan, n_rows, header)
    lines = np.array([last]) if last is not None else data_line_numbers(path, "csv", header, n_rows)
    with csv_field_limit():
        if lines is not None:          # one record per line: only the last can be open at the end
            if not lines.size:
                return
            text, line = scan.last.decode("utf-8", errors="replace"), int(lines[-1])
            try:
                list(csv.reader([text], delimiter=delimiter, strict=True))
                return
            except csv.Error:
                pass
        else:
            with open(path, newline="", encoding="utf-8-sig") as handle:
                reader = csv.reader(handle, delimiter=delimiter, strict=True)
                start = 1
                try:
                    for _ in reader:
                        start = reader.line_num + 1
                    return
                except csv.Error:
                    line = start
    raise InputError("a field starting with a double quote is never closed (it runs to the end of the file): "
                     "close the quote or remove it", path=path, line=line)


def line_with_field_count(path: Path, delimiter: str, expected: int, skip: int) -> int | None:
    """Line of the first record whose field count differs from ``expected`` (error path)."""
    with open(path, encoding="utf-8-sig", errors="replace", newline="") as handle, csv_field_limit():
        reader = csv.reader(handle, delimiter=delimiter)
        for index, fields in enumerate(reader):
            if index < skip or not fields:
                continue
            if len(fields) != expected:
                return reader.line_num
    return None
