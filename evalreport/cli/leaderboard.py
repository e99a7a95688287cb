"""``evalreport leaderboard``: the interactive leaderboard as one offline HTML page.

``evalreport leaderboard GOLD RUNS... -o results.html`` compares the systems as ``compare`` does (the same
inputs and options, one :class:`~evalreport.inputs.settings.Settings`) and writes the page
(:mod:`evalreport.report.leaderboard_page`); ``--from-tables DIR`` builds it from a report's ``tables/`` or
``compare --out``'s folder without reading the inputs again.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from evalreport.cli import multilabel
from evalreport.cli.common import (
    add_cluster_option,
    add_gold_options,
    add_input_options,
    add_margin_option,
    add_measure_options,
    add_task_options,
    input_paths,
    print_note,
)
from evalreport.errors import InputError


def register(sub) -> None:
    p = sub.add_parser(
        "leaderboard", help="write an interactive, offline leaderboard page (HTML) where the reader picks the measure",
        description="Write one self-contained HTML page: the leaderboard under every measure of the comparison "
                    "(choose the measure, raw or prevalence-calibrated, sort, filter by name), with bootstrap "
                    "intervals, significance letters, tie tiers and rank intervals, a drill-down per system and "
                    "the numbers as CSV/JSON downloads. The inputs and options are those of compare; "
                    "--from-tables DIR reads a report's tables/ or compare --out's folder instead (a benchmark's folder gives "
                    "a page with the consensus view and one view per task).")
    add_input_options(p)
    add_cluster_option(p)
    add_measure_options(p)
    add_gold_options(p)
    p.add_argument("--primary", default="macro_f1", help="measure shown first (default: macro_f1)")
    p.add_argument("--bootstrap", type=int, default=1000, metavar="N",
                   help="paired bootstrap resamples for intervals and significance (default: 1000; 0 = none)")
    p.add_argument("--seed", type=int, default=0, help="random seed (default: 0)")
    p.add_argument("--bootstrap-strata", choices=("none", "gold"), default="none",
                   help="resample items within each gold class (default: none)")
    p.add_argument("--alpha", type=float, default=0.05,
                   help="significance level for the letters; intervals are 1 - alpha (default: 0.05)")
    add_margin_option(p)
    add_task_options(p)
    p.add_argument("-o", "--output", required=True, metavar="FILE", help="the HTML page to write")
    p.add_argument("--from-tables", metavar="DIR",
                   help="build the page from a report's tables/ (or the report folder) or compare --out's folder")
    p.add_argument("--title", default="Leaderboard", help="the page's title (default: Leaderboard)")
    p.add_argument("--no-chart", action="store_true",
                   help="leave out the chart and its Vega JavaScript (a smaller page; the table works alone)")
    p.add_argument("--no-progress", "--quiet", "-q", dest="no_progress", action="store_true",
                   help="do not show a progress bar on stderr")
    multilabel.add_options(p)
    p.set_defaults(func=run, read_scores=True, format="table")


def _bundle(no_chart: bool) -> str | None:
    """The Vega bundle for the chart, or None (asked for none, or the report extra is not installed)."""
    if no_chart:
        return None
    try:
        from evalreport.report.render import vega_bundle

        return vega_bundle()
    except ImportError:
        print_note("the chart needs the report extra (vl-convert-python): the page has the table only")
        return None


def _from_inputs(args: argparse.Namespace):
    """Compare the systems named on the command line; the page's tables, manifest and provenance."""
    from evalreport.analyses.compare import compare
    from evalreport.cli.compare import ProgressBar, checked_settings, compare_single_label, run_provenance
    from evalreport.report.leaderboard_data import tables_from_comparison

    args.out = None
    settings = checked_settings(args)
    if multilabel.wanted(args):          # label sets: the multi-label comparison, per-label drill-down
        runs = multilabel.read_checked(args, "leaderboard")
        with ProgressBar(enabled=settings.bootstrap > 0 and settings.progress) as bar:
            sets = compare(runs, settings, progress=bar)
        for note in sets.notes:
            print_note(note)
        return tables_from_comparison(sets), sets.manifest(), run_provenance(args, runs)
    loaded, settings, result = compare_single_label(args, settings)
    for note in result.notes:
        print_note(note)
    counts = loaded.counts
    if getattr(loaded.runs, "run_system", None) is not None:      # several runs per system: no single matrix
        counts = None
    tables = tables_from_comparison(result, counts, policy=settings.policy)
    return tables, result.manifest(), run_provenance(args, loaded.runs)


def run(args: argparse.Namespace) -> int:
    from evalreport._atomic import check_outside
    from evalreport.report.leaderboard_data import page_data, read_tables
    from evalreport.report.leaderboard_page import write_html, write_page

    out = Path(args.output)
    if out.suffix.lower() not in (".html", ".htm"):
        raise InputError("the page is HTML: give a file name ending in .html", path=str(out))
    if args.from_tables:
        if args.gold or args.runs or args.runs_dir or args.confusion:
            raise InputError("--from-tables reads the tables only: give either it or the inputs, not both")
        check_outside(out, [args.from_tables])
        from evalreport.report.leaderboard_benchmark import benchmark_folder, benchmark_page_html

        bench = benchmark_folder(args.from_tables)
        if bench is not None:           # a benchmark of several tasks: the consensus view and one view per task
            text = benchmark_page_html(bench, title=args.title, bundle=_bundle(args.no_chart))
            path = write_html(text, out)
            print(f"evalreport: wrote {path} ({path.stat().st_size / 1e6:.2f} MB; a benchmark page)", file=sys.stderr)
            return 0
        tables, manifest, prov = read_tables(args.from_tables)
    else:
        check_outside(out, input_paths(args))
        tables, manifest, prov = _from_inputs(args)
    data = page_data(tables, manifest, provenance=prov, title=args.title)
    path = write_page(data, out, bundle=_bundle(args.no_chart))
    size = path.stat().st_size
    print(f"evalreport: wrote {path} ({size / 1e6:.2f} MB; {len(data['systems'])} systems, "
          f"{len(data['measures'])} measures)", file=sys.stderr)
    return 0
