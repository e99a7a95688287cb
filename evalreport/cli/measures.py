"""``evalreport measures [PATTERN]``: the catalogue with its metadata.

An id is what a user types, so the table never cuts one (nor an alias): on a terminal, or wherever
``COLUMNS`` gives a width, the ids and aliases keep their full width and the other columns wrap to
fit it; when stdout is not a terminal and no width is given (a pipe, a file) the table is plain
text, one line per measure, nothing cut.
"""
from __future__ import annotations

import fnmatch
import sys

from evalreport.cli.common import add_format_option, add_task_options
from evalreport.cli.output import emit
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
        from evalreport.cli.terminal import terminal_width

        out = sys.stdout
        terminal = bool(getattr(out, "isatty", lambda: False)())
        print_table(frame, cols, file=out, terminal=terminal, width=terminal_width(out))
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
    """The catalogue within ``width`` cells (``COLUMNS``, else the terminal's width): a rich table when
    it fits (ids and aliases at full width, other columns wrapped), else one block per measure (the id
    and label, then one wrapped ``column: value`` line each); with no width known (a pipe, a file) plain
    aligned text, one line per measure. Nothing is cut, no id is broken; colour codes on a terminal only."""
    show = frame[["id", *cols]].fillna("").astype(str)
    if not terminal and width is None:
        file.write(plain_table(show))
        return
    if width is None:
        import shutil

        width = shutil.get_terminal_size().columns
    if _table_width(show) > width:
        file.write(blocks(show, width))
        return
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    table = Table(title="evalreport measures", show_lines=False)
    for c in show.columns:
        if c in ID_COLUMNS:
            table.add_column(c, no_wrap=True, style="bold" if c == "id" else None)
        else:
            table.add_column(c, overflow="fold")
    for row in show.itertuples(index=False):
        # one alias per line: a long list wraps between ids, never inside one; text never read as markup
        table.add_row(*[Text(v.replace(", ", "\n") if c == "aliases" else v) for c, v in zip(show.columns, row)])
    Console(file=file, width=width, force_terminal=terminal, no_color=not terminal).print(table)


def _table_width(show) -> int:
    """Cells the rich table needs with every cell on one line (aliases one per line)."""
    from rich.cells import cell_len

    def cell(c, v):
        return max((cell_len(a.strip()) for a in v.split(",")), default=0) if c == "aliases" else cell_len(v)

    return sum(max([cell_len(c)] + [cell(c, v) for v in show[c]]) + 3 for c in show.columns) + 1


#: Values up to this long share one line of a block (direction, range, chance, ...).
_SHORT = 16


def blocks(show, width: int) -> str:
    """One block per measure within ``width`` characters: ``id  label`` on the first line, the short
    values on one ``column: value; ...`` line, then each longer one (and the aliases) on a line of its
    own, wrapped between words (an id or an alias is never broken; a word longer than the line stays
    whole). Blocks are separated by a blank line; a plugin's text prints inert (no control characters)."""
    import textwrap

    from evalreport.escape import printable

    out = []
    for row in show.itertuples(index=False):
        values = dict(zip(show.columns, (" ".join(printable(v).split()) for v in row)))
        ident, label = values.pop("id"), values.pop("label", "")
        brief = {c: v for c, v in values.items() if v and len(v) <= _SHORT and c not in ID_COLUMNS}
        short = "; ".join(f"{c}: {v}" for c, v in brief.items())
        fields = [f"{c}: {v}" for c, v in values.items() if v and c not in brief]
        lines = textwrap.wrap(f"{ident}  {label}".rstrip(), width=width, subsequent_indent="    ",
                              break_long_words=False, break_on_hyphens=False)
        for text in [short, *fields] if short else fields:
            lines += textwrap.wrap(text, width=width, initial_indent="  ", subsequent_indent="    ",
                                   break_long_words=False, break_on_hyphens=False)
        out.append("\n".join(lines))
    return "\n\n".join(out) + "\n"


def plain_table(frame) -> str:
    """Columns aligned with two spaces, a header line, one line per row; cells never cut (a line
    break inside a cell becomes a space)."""
    cells = [[str(c) for c in frame.columns]] + [[" ".join(str(v).split()) for v in row]
                                                  for row in frame.itertuples(index=False)]
    widths = [max(len(r[i]) for r in cells) for i in range(len(cells[0]))]
    lines = ["  ".join(v.ljust(w) for v, w in zip(r, widths)).rstrip() for r in cells]
    return "\n".join(lines) + "\n"
