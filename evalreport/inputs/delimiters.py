"""Which separator a delimited text file uses: ``,`` ``;`` TAB or ``|``, decided by its header line
and a sample of the lines after it.

A spreadsheet's "CSV" export writes ``;`` in every locale whose decimal mark is a comma (Excel in
German, French, Spanish, ...), and a ``.tsv`` file is sometimes comma-separated. The extension's
separator (``,`` for ``.csv``, TAB for ``.tsv``/``.tab``) is kept whenever it splits the header into
two or more columns, so a file that reads as it is named is never second-guessed. Otherwise, among
the candidates that split the header into two or more columns, one whose sampled lines all have the
header's field count wins over one whose lines do not, then the one giving more columns, then the
order ``;`` TAB ``,`` ``|``. When none splits the header, the extension's separator stays (and the
missing-column message shows the one column found). An inconsistent line under the chosen separator
is reported by the reader, naming its line and the separator.
Fields are split as the CSV reader splits them (``"``-quoting), and the sample is bounded: at most
:data:`SAMPLE_LINES` lines within the first :data:`SAMPLE_BYTES` bytes.
"""
from __future__ import annotations

import csv
import io
import re
from pathlib import Path

__all__ = ["sniff_delimiter", "CANDIDATES", "DECIMAL_COMMA", "SAMPLE_LINES", "SAMPLE_BYTES"]

#: Separators tried, in the order that breaks ties.
CANDIDATES = (";", "\t", ",", "|")
#: Lines after the header that are compared with it.
SAMPLE_LINES = 50
#: Bytes read at most for the sample (a header longer than this is judged alone).
SAMPLE_BYTES = 2 ** 20
#: A number written with a decimal comma (``0,75``), as spreadsheets in many locales export them: refused
#: with a message saying so (``1,000`` could be a thousand or one, so it is never read as a number).
DECIMAL_COMMA = re.compile(r"[+-]?\d*,\d+")
#: A separator as a message names it.
NAMES = {"\t": "TAB", ",": "','", ";": "';'", "|": "'|'"}


def sniff_delimiter(path, default: str) -> str:
    """The separator of the delimited text file ``path`` (``default``: the extension's)."""
    with open(Path(path), "rb") as handle:
        data = handle.read(SAMPLE_BYTES)
        complete = not handle.read(1)
    if not complete and b"\n" in data:             # the sample ends at a line's end
        data = data[:data.rindex(b"\n") + 1]
    text = data.decode("utf-8-sig", errors="replace")
    records = {d: _records(text, d) for d in dict.fromkeys((default, *CANDIDATES))}
    if not records[default] or len(records[default][0]) >= 2:
        return default
    best, best_key = default, None
    for rank, d in enumerate(CANDIDATES):
        rows = records[d]
        if d == default or not rows or len(rows[0]) < 2:
            continue
        consistent = all(len(r) == len(rows[0]) for r in rows[1:])
        key = (consistent, len(rows[0]), -rank)
        if best_key is None or key > best_key:
            best, best_key = d, key
    return best


def _records(text: str, delimiter: str) -> list[list[str]]:
    """The header and up to SAMPLE_LINES non-empty records of ``text`` split at ``delimiter``."""
    rows = []
    try:
        for row in csv.reader(io.StringIO(text, newline=""), delimiter=delimiter):
            if row and any(f.strip() for f in row):
                rows.append(row)
                if len(rows) > SAMPLE_LINES:
                    break
    except csv.Error:       # a field over the csv module's limit: judge by what was read
        pass
    return rows
