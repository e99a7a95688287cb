"""Recognising a Parquet run file that stores the gold file's id column byte for byte, without decoding it.

A shared task's run files are often written by one tool from one list of ids, in the gold order. In
Parquet such files then hold the very same bytes for the id column: the same pages, compressed the
same way. Decoding is a function of those bytes and of the column's declared description (physical
and logical type, levels, codec, row-group sizes, and the Arrow type stored in the file's schema),
so when all of these are equal the run's id column *is* the gold's, and the run is read without it
(at 1e6 string ids the id column is about 85 % of the time pyarrow takes to read such a file). The
check compares the column chunks' byte ranges as pyarrow's reader computes them, block by block
(constant memory); anything it cannot vouch for (column chunks in other files, files written by
old parquet-mr, whose column-chunk sizes pyarrow's reader pads) answers "not the same", and the
file is read and compared as usual. No hashing: equal bytes, not equal digests.
"""
from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

__all__ = ["GoldIdColumn"]

_BLOCK = 2 ** 20


class GoldIdColumn:
    """The gold file's id column: where it is stored, and the array read from it."""

    def __init__(self, path: Path, name: str, array, stored):
        self.path = path
        self.name = name
        self.array = array           # as read (before trimming): what reading a run's equal column gives
        self._stored = stored        # (arrow type, column description, [(signature, start, length)])

    @classmethod
    def of(cls, path: Path, name: str, array) -> GoldIdColumn | None:
        """The gold Parquet file's column ``name`` (already read into ``array``), or None if its storage
        cannot be compared (see the module's docstring)."""
        stored = _stored(path, name)
        return None if stored is None else cls(path, name, array, stored)

    def stored_in(self, path: Path, name: str) -> bool:
        """Whether the Parquet file ``path`` stores its column ``name`` exactly as the gold file stores
        the id column (same description, same bytes): then that column reads as :attr:`array`."""
        try:
            other = _stored(path, name)
            if other is None or not _same_description(self._stored, other):
                return False
            return _same_bytes(self.path, path, [(s, n) for _, s, n in self._stored[2]],
                               [(s, n) for _, s, n in other[2]])
        except (OSError, pa.ArrowException):
            return False


def _stored(path: Path, name: str):
    try:
        meta = pq.read_metadata(path)
    except (OSError, pa.ArrowException):
        return None
    if meta.created_by is None or meta.created_by.startswith("parquet-mr"):
        return None
    schema = meta.schema
    found = [i for i in range(len(schema)) if schema.column(i).path == name]
    arrow = schema.to_arrow_schema()
    if len(found) != 1 or arrow.get_field_index(name) < 0:
        return None
    index = found[0]
    chunks = []
    for g in range(meta.num_row_groups):
        group = meta.row_group(g)
        col = group.column(index)
        if col.file_path:                        # the chunk lives in another file
            return None
        start = col.data_page_offset             # as pyarrow's reader computes the chunk's range
        if col.has_dictionary_page and col.dictionary_page_offset and col.dictionary_page_offset < start:
            start = col.dictionary_page_offset
        signature = (group.num_rows, col.num_values, col.physical_type, col.compression, col.encodings)
        chunks.append((signature, int(start), int(col.total_compressed_size)))
    c = schema.column(index)
    description = (c.physical_type, c.logical_type.to_json(), c.converted_type, c.max_definition_level,
                   c.max_repetition_level, c.length, c.precision, c.scale)    # all but its name
    return arrow.field(name).type, description, chunks


def _same_description(a, b) -> bool:
    (type_a, col_a, chunks_a), (type_b, col_b, chunks_b) = a, b
    return (type_a.equals(type_b) and col_a == col_b and len(chunks_a) == len(chunks_b)
            and all(x[0] == y[0] and x[2] == y[2] for x, y in zip(chunks_a, chunks_b)))


def _same_bytes(path_a: Path, path_b: Path, ranges_a, ranges_b) -> bool:
    with open(path_a, "rb") as fa, open(path_b, "rb") as fb:
        for (start_a, length), (start_b, _) in zip(ranges_a, ranges_b):
            fa.seek(start_a)
            fb.seek(start_b)
            left = length
            while left > 0:
                step = min(_BLOCK, left)
                block = fa.read(step)
                if len(block) != step or block != fb.read(step):
                    return False
                left -= step
    return True
