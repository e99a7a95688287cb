"""A systems x measures table on a terminal that uses the terminal's width: names in full when the
table fits; otherwise the measure columns are wrapped into several tables one under the other (each
repeating the system names), and names longer than half the width are shortened by
:func:`evalreport.charts.names.shorten_names` (beginning and end kept, no two alike) with a note
saying so. Without a known width (output piped, no ``COLUMNS``) the table is as wide as it needs."""
from __future__ import annotations

import os
import shutil
import sys

import pandas as pd

#: Names keep up to half the width (at least this many cells); longer ones are shortened.
MIN_NAME_CELLS = 24


def terminal_width(file) -> int | None:
    """``COLUMNS`` when set, else the terminal's width when ``file`` is a terminal, else None."""
    columns = os.environ.get("COLUMNS", "")
    if columns.strip().isdigit() and int(columns) > 0:
        return int(columns)
    isatty = getattr(file, "isatty", None)
    if isatty is not None and isatty():
        return shutil.get_terminal_size().columns
    return None


def _span(widths) -> int:
    """Cells taken by columns of these widths in a rich table with its box."""
    return sum(w + 3 for w in widths) + 1


def layout(names: list[str], headers: list[str], cells: list[list[str]], width: int | None):
    """``(shown, chunks)``: the names as shown (``{name: text}``) and the measure columns (indices)
    of each table. Pure arithmetic on cell widths, so tests can check it without a terminal."""
    from rich.cells import cell_len

    from evalreport.charts.names import shorten_names

    col_w = [max([cell_len(h)] + [cell_len(c) for c in col]) for h, col in zip(headers, cells)]
    name_w = max([cell_len(n) for n in names] + [6])
    shown = {n: n for n in names}
    if width is None or _span([name_w, *col_w]) <= width:
        return shown, [list(range(len(headers)))]
    room = max(MIN_NAME_CELLS, width // 2)
    if name_w > room:
        shown = shorten_names(names, room)
        name_w = max([cell_len(s) for s in shown.values()] + [6])
    chunks: list[list[int]] = []
    for j, w in enumerate(col_w):
        if chunks and _span([name_w, *(col_w[i] for i in chunks[-1]), w]) <= width:
            chunks[-1].append(j)
        else:
            chunks.append([j])
    return shown, chunks


def print_table(df: pd.DataFrame, *, title: str | None = None, file=None, width: int | None = None) -> None:
    """``df`` (index: systems; columns: measures) as one or more rich tables on ``file`` (default
    stdout) within ``width`` cells (default :func:`terminal_width`). Cells as the other table
    formats write them (4 decimals, ``undefined`` for NaN); text never read as console markup."""
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    from evalreport.cli.output import format_value, integer_columns
    from evalreport.escape import printable

    file = file or sys.stdout
    width = width if width is not None else terminal_width(file)
    names = [printable(i) for i in df.index]
    headers = [printable(c) for c in df.columns]
    ints = integer_columns(df)
    cells = [[format_value(v, i) for v in df[c].tolist()] for c, i in zip(df.columns, ints)]
    shown, chunks = layout(names, headers, cells, width)
    numeric = [pd.api.types.is_numeric_dtype(df[c]) for c in df.columns]
    shortened = any(shown[n] != n for n in names)
    for k, chunk in enumerate(chunks):
        table = Table(title=Text(printable(title)) if title and k == 0 else None, show_lines=False)
        table.add_column(Text(printable(df.index.name or "")), style="bold", no_wrap=True)
        for j in chunk:
            table.add_column(Text(headers[j]), justify="right" if numeric[j] else "left", no_wrap=True)
        for r, name in enumerate(names):
            table.add_row(Text(shown[name]), *[Text(cells[j][r]) for j in chunk])
        if k == len(chunks) - 1 and (shortened or len(chunks) > 1):
            notes = []
            if len(chunks) > 1:
                notes.append(f"{len(headers)} measures in {len(chunks)} tables")
            if shortened:
                notes.append("long names shortened (… marks the cut; --format csv writes them whole)")
            table.caption = Text("; ".join(notes) + f" to fit {width} columns")
        # no known width: as wide as the table (rich does not pad a table that is not expanded)
        Console(file=file, width=width or 100_000).print(table)
