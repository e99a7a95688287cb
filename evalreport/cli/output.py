"""Print a result table on the terminal or to a file: csv, json, a rich table, markdown or LaTeX, every
cell escaped for its target."""

from __future__ import annotations

import json
import math
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:     # numpy and pandas are imported where they are used: `--help` and parsing do without them
    import pandas as pd

__all__ = ["emit", "emit_columns", "format_value", "integer_columns"]


def emit(frame: pd.DataFrame, fmt: str, *, wide: pd.DataFrame | None = None, title: str | None = None,
         file=None) -> None:
    """Print a tidy frame as csv/json, or its wide view (``wide``) as a table/markdown/latex."""
    from evalreport.report.write import json_records, write_csv

    file = file or sys.stdout
    if fmt == "csv":   # names a spreadsheet would run as formulas get a leading ' (docs/report.md#files)
        write_csv(frame, file)
    elif fmt == "json":
        json.dump(json_records(frame), file, indent=1, allow_nan=False)
        file.write("\n")
    else:
        show = wide if wide is not None else frame
        if fmt == "markdown":
            file.write(_markdown(show))
            file.write("\n")
        elif fmt == "latex":   # every cell as the table shows it, LaTeX's specials escaped (_ % & # $ ...)
            file.write(_latex(show))
        else:
            _rich_table(show, title=title, file=file)


def emit_columns(columns: dict, fmt: str, *, file=None) -> None:
    """A tidy table given as its columns (name -> 1-D array, e.g.
    :func:`~evalreport.measures.evaluate.evaluate_columns`) as csv or json: byte for byte what
    :func:`emit` writes for ``pandas.DataFrame(columns)``, without importing pandas. The CSV cells are
    pandas' (``DataFrame.to_csv``): floats as NumPy's ``astype(str)`` (shortest round-trip text), NaN and
    None empty, booleans ``True``/``False``, written by :mod:`csv` with minimal quoting."""
    import csv

    import numpy as np

    from evalreport import escape

    file = file or sys.stdout
    names = list(columns)
    arrays = [np.asarray(columns[n]) for n in names]
    # fixed-width text (e.g. a reason column built from a list of str) is text, as an object column is
    arrays = [a.astype(object) if a.dtype.kind == "U" else a for a in arrays]
    if fmt == "json":
        rows = zip(*(a.tolist() for a in arrays))
        records = [{n: (None if isinstance(v, float) and math.isnan(v) else
                        str(v) if isinstance(v, float) and math.isinf(v) else v) for n, v in zip(names, row)}
                   for row in rows]
        json.dump(records, file, indent=1, allow_nan=False)
        file.write("\n")
        return
    if fmt != "csv":
        raise ValueError(f"emit_columns writes csv or json, not {fmt!r}")
    cells = []
    for name, a in zip(names, arrays):
        if a.dtype.kind == "f":
            text = a.astype(str).astype(object)
            text[np.isnan(a)] = ""
        elif a.dtype.kind == "b":
            text = np.where(a, "True", "False").astype(object)
        elif a.dtype.kind == "O":
            text = np.array([_csv_text(v) for v in a.tolist()], dtype=object)
            own = name not in escape.CSV_TEXT_COLUMNS       # as escape.csv_frame guards a text column
            text = np.array([escape.csv_cell(v, numbers=own) for v in text.tolist()], dtype=object)
        else:
            raise ValueError(f"column {name!r}: emit_columns writes float, bool and text columns, not {a.dtype}")
        cells.append(text.tolist())
    writer = csv.writer(file, lineterminator="\n", quoting=csv.QUOTE_MINIMAL)
    writer.writerow(names)
    writer.writerows(zip(*cells))


def _csv_text(value):
    """A cell of a text (object) column as pandas writes it: missing values (None, NaN) empty."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    return value


def format_value(v: object, integer: bool = False) -> str:
    """A value as a terminal table prints it.

    Parameters
    ----------
    v : object
        The value; numbers with 4 decimals, NaN as ``undefined``.
    integer : bool
        Print a whole number without decimals.

    Returns
    -------
    str
        The text of the cell.
    """
    import numpy as np

    if isinstance(v, (float, np.floating)):
        x = float(v)
        if math.isnan(x):
            return "undefined"
        x = 0.0 if abs(x) < 5e-5 else x  # no "-0.0000"
        return f"{x:.0f}" if integer and x.is_integer() else f"{x:.4f}"
    return str(v)


def integer_columns(df: pd.DataFrame) -> list[bool]:
    """Which columns print without decimals: those whose values are all whole numbers (ranks, counts).

    Parameters
    ----------
    df : pandas.DataFrame
        A table about to be printed.

    Returns
    -------
    list of bool
        One flag per column.
    """
    import numpy as np
    import pandas as pd

    out = []
    for c in df.columns:
        col = df[c]
        whole = pd.api.types.is_integer_dtype(col) or (
            pd.api.types.is_float_dtype(col) and bool(np.all(np.isnan(col) | (np.mod(col.fillna(0), 1) == 0)))
            and str(c).lower().startswith(("rank", "n_", "count", "discordant")))
        out.append(bool(whole))
    return out


def _formatted(df: pd.DataFrame) -> pd.DataFrame:
    """Every cell as text, as the table and markdown show it (4 decimals, ``undefined`` for NaN)."""
    import pandas as pd

    out = pd.DataFrame(index=df.index)
    for (name, col), whole in zip(df.items(), integer_columns(df)):
        out[name] = [format_value(v, whole) for v in col.tolist()]
    return out


def _text_cells(df: pd.DataFrame, esc) -> pd.DataFrame:
    """:func:`_formatted` with ``esc`` applied to the text cells, the header and the index."""
    text = _formatted(df)
    for j in range(len(df.columns)):
        raw = df.iloc[:, j].tolist()
        text.iloc[:, j] = [esc(t) if isinstance(v, str) else t for v, t in zip(raw, text.iloc[:, j].tolist())]
    text.columns = [esc(_column_text(c)) for c in df.columns]
    text.index = [esc(_column_text(i)) for i in df.index]
    text.index.name = esc(df.index.name) if df.index.name is not None else None
    return text


def _column_text(col) -> str:
    return " / ".join(str(c) for c in col if str(c) != "") if isinstance(col, tuple) else str(col)


def _markdown(df: pd.DataFrame) -> str:
    """A pipe table; text from the data is literal Markdown (:func:`evalreport.escape.markdown`)."""
    from evalreport import escape

    text = _text_cells(df, escape.markdown)
    cols = [text.index.name or ""] + list(text.columns)
    lines = ["| " + " | ".join(cols) + " |", "|" + "|".join("---" for _ in cols) + "|"]
    for idx, row in text.iterrows():
        lines.append("| " + " | ".join(str(v) for v in [idx, *row.tolist()]) + " |")
    return "\n".join(lines)


def _latex(df: pd.DataFrame) -> str:
    """A booktabs tabular to paste into a paper, text from the data printed as written (``latex_literal``)."""
    import pandas as pd

    from evalreport import escape

    text = _text_cells(df, escape.latex_literal)
    has_index = not isinstance(df.index, pd.RangeIndex) or df.index.name is not None
    numeric = ["r" if df.iloc[:, j].dtype.kind in "iufc" else "l" for j in range(df.shape[1])]
    head = ([text.index.name or ""] if has_index else []) + [str(c) for c in text.columns]
    rows = [" & ".join(([str(i)] if has_index else []) + [str(v) for v in row]) + r" \\"
            for i, row in zip(text.index, text.itertuples(index=False, name=None))]
    body = "\n".join([r"\toprule", " & ".join(head) + r" \\", r"\midrule", *rows, r"\bottomrule"])
    needs = [r"\usepackage{booktabs}"] + ([r"\usepackage[T1]{fontenc}"] if r"\textquotedbl" in body else [])
    return (f"% evalreport: needs {' and '.join(needs)}\n"
            f"\\begin{{tabular}}{{{('l' if has_index else '') + ''.join(numeric)}}}\n{body}\n\\end{{tabular}}\n")


def _rich_table(df: pd.DataFrame, *, title=None, file=None) -> None:
    import pandas as pd
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    from evalreport.escape import printable

    def plain(v) -> Text:   # never console markup ([link=...]) nor terminal control sequences
        return Text(printable(v))

    table = Table(title=plain(title) if title else None, show_lines=False)
    # names fold onto further lines rather than end in "…": two long names alike but for their end stay apart
    table.add_column(plain(df.index.name or ""), style="bold", overflow="fold")
    for c in df.columns:
        numeric = pd.api.types.is_numeric_dtype(df[c])
        table.add_column(plain(c), justify="right" if numeric else "left")
    ints = integer_columns(df)
    for idx, row in df.iterrows():
        table.add_row(plain(idx), *[plain(format_value(v, i)) for v, i in zip(row.tolist(), ints)])
    Console(file=file, width=max(100, 14 * (len(df.columns) + 1))).print(table)
