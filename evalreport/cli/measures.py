"""``evalreport measures [PATTERN]``: the catalogue with its metadata.

An id is what a user types, so the table never cuts one (nor an alias): on a terminal the ids
and aliases keep their full width and the other columns wrap; when stdout is not a terminal
(a pipe, a file) the table is plain text, one line per measure, nothing cut.
"""
from __future__ import annotations

import fnmatch
import sys

from evalreport.cli.common import add_format_option, add_task_options, emit
from evalreport.errors import InputError

#: Columns of the default table (``--all-columns``: every metadata column).
COLUMNS = ("label", "direction", "range", "chance", "source", "aliases")
#: Columns that hold ids (never cut or wrapped inside a word).
ID_COLUMNS = ("id", "aliases", "alias_of")


def register(sub) -> None:
    p = sub.add_parser("measures", help="list the measure catalogue with its metadata",
                       description="List the measures: id (what --measures and --primary take), label, "
                                   "direction, range, chance value, source and aliases. PATTERN keeps the "
                                   "measures whose id, an alias or the label contains it (case-insensitive), "
                                   "or, with * ? [ ], whose id or an alias matches it as a glob (macro_*).")
    p.add_argument("pattern", nargs="?", metavar="PATTERN",
                   help="only measures whose id, alias or label contains PATTERN (or matches it as a glob)")
    add_format_option(p)
    p.add_argument("--all-columns", action="store_true", help="table format: show every metadata column")
    add_task_options(p)
    p.set_defaults(func=run)


def run(args) -> int:
    from evalreport.measures import catalogue_frame

    frame = catalogue_frame()
    if args.pattern is not None:
        frame = frame[[matches(args.pattern, row) for row in frame.itertuples(index=False)]]
        if frame.empty:
            raise InputError(f"no measure matches {args.pattern!r} (id, alias or label); "
                             "`evalreport measures` lists them all")
    cols = [c for c in frame.columns if c != "id"] if args.all_columns else list(COLUMNS)
    if args.format == "table":
        out = sys.stdout
        terminal = bool(getattr(out, "isatty", lambda: False)())
        print_table(frame, cols, file=out, terminal=terminal)
        return 0
    emit(frame, args.format, wide=frame.set_index("id")[cols], title="evalreport measures")
    return 0


def matches(pattern: str, row) -> bool:
    """Does a catalogue row match ``pattern``: a glob (``*?[``) on the id and the aliases, otherwise a
    case-insensitive substring of the id, an alias or the label."""
    pattern = pattern.strip().lower()
    ids = [str(row.id).lower()] + [a.strip().lower() for a in str(row.aliases or "").split(",") if a.strip()]
    if any(ch in pattern for ch in "*?["):
        return any(fnmatch.fnmatchcase(i, pattern) for i in ids)
    return any(pattern in i for i in ids) or pattern in str(row.label).lower()


def print_table(frame, cols, *, file, terminal: bool, width: int | None = None) -> None:
    """The catalogue as a table: rich on a terminal (ids and aliases at full width, other columns
    wrapped), plain aligned text otherwise. Nothing is cut in either."""
    show = frame[["id", *cols]].fillna("").astype(str)
    if not terminal:
        file.write(plain_table(show))
        return
    from rich.console import Console
    from rich.table import Table

    table = Table(title="evalreport measures", show_lines=False)
    for c in show.columns:
        if c in ID_COLUMNS:
            longest = max([len(c)] + [len(part.strip()) for v in show[c] for part in v.split(",")])
            table.add_column(c, no_wrap=True, min_width=longest, overflow="ignore",
                             style="bold" if c == "id" else None)
        else:
            table.add_column(c, overflow="fold")
    for row in show.itertuples(index=False):
        # one alias per line: a long list wraps between ids, never inside one
        table.add_row(*[v.replace(", ", "\n") if c == "aliases" else v for c, v in zip(show.columns, row)])
    Console(file=file, width=width, force_terminal=True).print(table)


def plain_table(frame) -> str:
    """Columns aligned with two spaces, a header line, one line per row; cells never cut (a line
    break inside a cell becomes a space)."""
    cells = [[str(c) for c in frame.columns]] + [[" ".join(str(v).split()) for v in row]
                                                  for row in frame.itertuples(index=False)]
    widths = [max(len(r[i]) for r in cells) for i in range(len(cells[0]))]
    lines = ["  ".join(v.ljust(w) for v, w in zip(r, widths)).rstrip() for r in cells]
    return "\n".join(lines) + "\n"
