"""Excel workbooks (``.xlsx``) as input tables: the first sheet, read with openpyxl (as pandas reads
them), held as text like a CSV file's columns.

Row 1 of the first sheet is the header of column names; every later row that holds a value is an
item, and a message names a row by its number in the sheet ("line 7" is the sheet's row 7), so a
user finds it in the spreadsheet. Cells become the text a CSV export would hold: numbers in their
shortest form (``1``, not ``1.0``), dates in ISO 8601 (``2024-01-02``; a time only when the cell has
one), booleans ``TRUE``/``FALSE``; empty cells are missing values (an error where a value is
needed). The workbook is read with its cached values, not its formulas (``data_only``): a formula
shows what the spreadsheet last computed (a formula never computed, as programs that do not calculate
save one, is refused naming its sheet and cell), and an error value (``#N/A``, ``#DIV/0!``, ...) is refused
naming its row, as is a value beyond the header's columns, an empty or repeated column name, and a
file that is not a workbook (``.xls``, the older binary format, is not read: save it as ``.xlsx`` or
CSV).
"""
from __future__ import annotations

import datetime as _dt
import zipfile
from pathlib import Path
from typing import cast

import numpy as np
import pyarrow as pa

from evalreport.errors import InputError
from evalreport.inputs.checks import short

__all__ = ["read_xlsx"]

#: Excel's error values as a cell holding one reads (openpyxl's ``ERROR_CODES``).
ERROR_VALUES = ("#NULL!", "#DIV/0!", "#VALUE!", "#REF!", "#NAME?", "#NUM!", "#N/A")

#: A part of the workbook that expands to more than this many bytes, at more than :data:`MAX_RATIO` times
#: its compressed size, is refused before openpyxl reads it: a spreadsheet's XML compresses about 5 to
#: 20 times, a decompression bomb a thousand times (a 0.3 MB file whose one cell holds 300 MB of text
#: took 2 GB of memory to read).
BOMB_BYTES = 32 * 2 ** 20
MAX_RATIO = 100
#: The first this many empty cells are looked at again for a formula never computed (a sheet with a mostly
#: empty optional column keeps the list small; a later such formula reads as an empty cell).
MAX_BLANKS_CHECKED = 100_000


def _check_expansion(path: Path) -> None:
    """Refuse a workbook with a part that expands like a decompression bomb (the sizes its zip directory
    declares: Python's zipfile never inflates a part beyond its declared size)."""
    try:
        with zipfile.ZipFile(path) as archive:
            parts = archive.infolist()
    except (zipfile.BadZipFile, OSError, ValueError):
        return                          # openpyxl names what is wrong with the file
    for part in parts:
        ratio = part.file_size / max(part.compress_size, 1)
        if part.file_size > BOMB_BYTES and ratio > MAX_RATIO:
            raise InputError(f"the workbook's part {short(part.filename)} expands from {part.compress_size:,} to "
                             f"{part.file_size:,} bytes ({ratio:,.0f} times; a spreadsheet compresses about 5 to 20 "
                             "times): refused unread as a decompression bomb; save the sheet as CSV", path=path)


def read_xlsx(path: Path, table_cls):
    """The first sheet of the workbook ``path`` as a ``table_cls`` (:class:`~evalreport.inputs.tables.Table`)
    of text columns whose rows know their sheet row numbers."""
    try:
        import openpyxl
    except ImportError:                  # a core dependency; an environment may still lack it
        raise InputError("reading an Excel workbook needs openpyxl (pip install openpyxl); or save the sheet "
                         "as CSV", path=path) from None
    _check_expansion(path)
    try:
        book = openpyxl.load_workbook(path, read_only=True, data_only=True)
    except (zipfile.BadZipFile, KeyError, ValueError, OSError, TypeError) as exc:
        raise InputError(f"cannot read as an Excel workbook (.xlsx): {_reason(exc)}; save it from the spreadsheet "
                         "as .xlsx or CSV", path=path) from None
    except Exception as exc:             # openpyxl's own exceptions (InvalidFileException, ...)
        raise InputError(f"cannot read as an Excel workbook (.xlsx): {_reason(exc)}", path=path) from None
    try:
        if not book.worksheets:
            raise InputError("the workbook has no worksheet", path=path)
        sheet = book.worksheets[0]
        sheet.reset_dimensions()         # a stored dimension can be wrong: read every row there is
        rows = sheet.iter_rows(values_only=True)
        header = _header(next(rows, ()), path)
        width = len(header)
        columns: list[list] = [[] for _ in header]
        lines = []
        blanks: dict[int, list[int]] = {}      # sheet row -> the columns of its empty cells
        n_blank = 0
        for number, row in enumerate(rows, start=2):
            if all(v is None or (isinstance(v, str) and not v.strip()) for v in row):
                continue                 # an empty row, as a blank line of a text file
            extra = next((j for j in range(width, len(row)) if row[j] is not None), None)
            if extra is not None:
                raise InputError(f"a value in column {_column_letter(extra)} beyond the header's {width} "
                                 f"column(s) ({short(row[extra])})", path=path, line=number)
            for j in range(width):
                value = row[j] if j < len(row) else None
                if value is None and n_blank < MAX_BLANKS_CHECKED:
                    blanks.setdefault(number, []).append(j)
                    n_blank += 1
                columns[j].append(_text(value, path, number, j))
            lines.append(number)
        title = sheet.title
    finally:
        book.close()
    if blanks:
        _refuse_uncomputed(path, title, blanks)
    arrays = {name: pa.array(values, type=pa.large_string()) for name, values in zip(header, columns)}
    table = table_cls(path, "xlsx", arrays, len(lines), header=True)
    table._lines = np.array(lines, dtype=np.int64)
    return table


def _refuse_uncomputed(path: Path, title: str, blanks: dict[int, list[int]]) -> None:
    """Refuse the first empty-looking cell that holds a formula with no cached value (a second read, of the
    formulas, only when the sheet has empty cells): programs that write workbooks without calculating them
    (openpyxl, pandas, many exporters) save the formula alone, and reading cached values sees nothing."""
    import openpyxl

    book = openpyxl.load_workbook(path, read_only=True, data_only=False)
    try:
        sheet = book.worksheets[0]
        sheet.reset_dimensions()
        last = max(blanks)
        for number, row in enumerate(sheet.iter_rows(min_row=2, max_row=last, values_only=True), start=2):
            for j in blanks.get(number, ()):
                value = row[j] if j < len(row) else None
                if value is not None and (not isinstance(value, str) or value.startswith("=")):
                    raise InputError(f"sheet {title!r}, cell {_column_letter(j)}{number} holds a formula whose value "
                                     "was never computed (the program that wrote the file saved the formula alone): "
                                     "open and save the file in Excel or LibreOffice, or export the sheet as CSV",
                                     path=path, line=number)
    finally:
        book.close()


def _reason(exc: Exception) -> str:
    return str(exc) or type(exc).__name__


def _header(row, path: Path) -> list[str]:
    """Row 1's column names (trailing empty cells dropped); an empty, repeated or missing name is an error."""
    names = [None if v is None else str(_text(v, path, 1)).strip() for v in row]
    while names and not names[-1]:
        names.pop()
    if not names:
        raise InputError("row 1 of the first sheet is empty; the header (column names) must be its first row",
                         path=path, line=1)
    seen = set()
    for j, name in enumerate(names):
        if not name:
            raise InputError(f"column {_column_letter(j)} of the header has no name", path=path, line=1)
        if name in seen:
            raise InputError(f"column {short(name)} appears twice in the header", path=path, line=1)
        seen.add(name)
    return cast(list[str], names)                   # every name was checked to be non-empty text above


def _text(value, path: Path, line: int, column: int = 0) -> str | None:
    """A cell as the text a CSV export would hold (None for an empty cell)."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() and abs(value) < 2 ** 53 else repr(value)
    if isinstance(value, _dt.datetime) and value.time() == _dt.time() and value.tzinfo is None:
        return value.date().isoformat()          # a date: Excel stores every date as a date-time
    if isinstance(value, (_dt.datetime, _dt.date, _dt.time)):
        return value.isoformat()
    if isinstance(value, _dt.timedelta):
        return str(value)
    text = str(value)
    if text.strip() in ERROR_VALUES:
        raise InputError(f"cell {_column_letter(column)}{line} holds the spreadsheet error {text.strip()!r}, not a "
                         "value (fix the formula, or remove the row)", path=path, line=line)
    return text


def _column_letter(index: int) -> str:
    """Excel's name of the 0-based column ``index``: A, B, ..., Z, AA, ..."""
    letters = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        letters = chr(65 + rest) + letters
    return letters
