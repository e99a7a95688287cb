"""The size limits of the other formats, applied to a Parquet file from its metadata before any data is read.

A text file's line may be up to :data:`~evalreport.inputs.tables.MAX_LINE_BYTES` long (a longer one is
refused in one line), and a workbook's part may not expand like a decompression bomb
(:data:`~evalreport.inputs.workbooks.BOMB_BYTES` at more than :data:`~evalreport.inputs.workbooks.MAX_RATIO`
times its compressed size). A Parquet file states, per row group and column, how many rows it holds and
how many bytes its data takes before and after compression; from these alone:

* a row group whose columns (those to be read) take more than ``MAX_LINE_BYTES`` per row holds a row longer
  than the limit (the mean bounds the largest from below), and is refused as a text file's long line is;
* a column chunk that expands beyond ``BOMB_BYTES`` at more than ``MAX_RATIO`` times its stored size is
  refused unread as a workbook's part is (one 300 MB label compresses to a few hundred bytes).

The largest single value of a row group with many rows is not in the metadata: such a value is caught by
the second rule when it is compressed, and otherwise costs no more memory than the file's own size.
"""
from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from evalreport.errors import InputError
from evalreport.inputs.checks import short

__all__ = ["check_parquet_sizes"]


def check_parquet_sizes(metadata, path: Path, wanted: Callable[[str], bool] | None = None) -> None:
    """Refuse, in one line, a Parquet file whose metadata shows a row or a column chunk over the limits.

    Parameters
    ----------
    metadata : pyarrow.parquet.FileMetaData
        The file's metadata (no data page is read).
    path : Path
        The file, for the message.
    wanted : callable, optional
        Column name -> whether it is read; None: every column.

    Raises
    ------
    InputError
        Naming the rows (or the column and row group) and the limit.
    """
    from evalreport.inputs import tables, workbooks  # the limits are read where they are defined

    line_cap, bomb, ratio_cap = tables.MAX_LINE_BYTES, workbooks.BOMB_BYTES, workbooks.MAX_RATIO
    roots = _roots(metadata)
    first = 0
    for g in range(metadata.num_row_groups):
        group = metadata.row_group(g)
        raw = 0
        for c in range(group.num_columns):
            chunk = group.column(c)
            name = roots(chunk.path_in_schema)
            if wanted is not None and not wanted(name):
                continue
            size, packed = int(chunk.total_uncompressed_size), int(chunk.total_compressed_size)
            raw += size
            times = size / max(packed, 1)
            if size > bomb and times > ratio_cap:
                raise InputError(f"column {short(name)} (rows {first + 1:,} to {first + group.num_rows:,}) expands "
                                 f"from {packed:,} to {size:,} bytes ({times:,.0f} times; a table compresses about 5 "
                                 "to 20 times): refused unread as a decompression bomb", path=path)
        if group.num_rows and raw / group.num_rows > line_cap:
            where = (f"row {first + 1:,}" if group.num_rows == 1 else
                     f"rows {first + 1:,} to {first + group.num_rows:,} ({raw:,} bytes in {group.num_rows:,} rows)")
            raise InputError(f"{where}: a row is longer than {line_cap // 2 ** 20} MiB", path=path)
        first += group.num_rows


def _roots(metadata) -> Callable[[str], str]:
    """A leaf column's dotted path -> its top-level column (the longest column name that prefixes it)."""
    names = set(metadata.schema.to_arrow_schema().names)

    def root(path: str) -> str:
        parts = path.split(".")
        return next((c for c in (".".join(parts[:k]) for k in range(len(parts), 0, -1)) if c in names), parts[0])

    return root
