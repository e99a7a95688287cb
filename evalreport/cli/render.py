"""``evalreport render DIR``: render a report folder again from its (edited) notebooks and templates."""
from __future__ import annotations

from pathlib import Path

from evalreport.cli.common import csv_list
from evalreport.errors import InputError


def register(sub) -> None:
    p = sub.add_parser(
        "render", help="render a report folder again after editing its notebooks or templates",
        description="Render DIR/report.html and DIR/report.pdf again from DIR/notebooks/*.ipynb and DIR/templates "
                    "(a folder written by `evalreport report`, `demo` or `simulate`). A notebook whose code changed is "
                    "executed again against DIR/tables (every notebook with --execute); one whose text alone changed "
                    "is only rendered. The analyses are not run again; DIR/tables is left as it is. The folder is "
                    "replaced atomically.")
    p.add_argument("dir", metavar="DIR", help="a report folder")
    p.add_argument("--engine", choices=("auto", "quarto", "builtin"), default="auto",
                   help="renderer: quarto when a quarto executable is found (auto), or builtin (nbconvert + typst)")
    p.add_argument("--formats", "--format", dest="formats", type=csv_list, default=None,
                   help="html,pdf (default: the formats the report was made with; a format not asked for keeps "
                        "its previous file)")
    p.add_argument("--execute", action="store_true", help="execute every notebook again, changed or not")
    p.add_argument("--quiet", "-q", "--no-progress", dest="quiet", action="store_true",
                   help="no progress lines on stderr")
    p.set_defaults(func=run)


def run(args) -> int:
    from evalreport.report.build import Stages
    from evalreport.report.project import rerender

    formats = None
    if args.formats is not None:
        bad = [f for f in args.formats if f not in ("html", "pdf")]
        if bad or not args.formats:
            raise InputError(f"--formats takes html and/or pdf; got {','.join(args.formats) or 'nothing'}")
        formats = tuple(dict.fromkeys(args.formats))
    paths = rerender(Path(args.dir), engine=args.engine, formats=formats, execute_all=args.execute,
                     stages=Stages(not args.quiet))
    for key in ("html", "pdf", "notebooks"):
        if key in paths:
            print(f"{key}: {paths[key]}")
    return 0
