"""``evalreport measures``: the catalogue with its metadata."""
from __future__ import annotations

from evalreport.cli.common import add_format_option, emit


def register(sub) -> None:
    p = sub.add_parser("measures", help="list the measure catalogue with its metadata")
    add_format_option(p)
    p.add_argument("--all-columns", action="store_true", help="table format: show every metadata column")
    p.set_defaults(func=run)


def run(args) -> int:
    from evalreport.measures import catalogue_frame

    frame = catalogue_frame()
    cols = ([c for c in frame.columns if c != "id"] if args.all_columns
            else ["label", "direction", "range", "chance", "source", "aliases"])
    emit(frame, args.format, wide=frame.set_index("id")[cols], title="evalreport measures")
    return 0
