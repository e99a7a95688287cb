"""``evalreport appendix GOLD RUNS... -o DIR``: the paper appendix (LaTeX and Typst), with every option of ``report``.

A thin wrapper: the inputs are read as ``report`` reads them, the analysis is the report's
(:func:`evalreport.report.build.analyse`), and :func:`evalreport.report.appendix.build_appendix`
writes DIR atomically. ``report --appendix`` adds the same bundle to a report as OUTDIR/appendix.
"""
from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from evalreport.cli import common
from evalreport.cli.common import add_input_options, add_measure_options, input_paths

if TYPE_CHECKING:
    from evalreport.counts import Counts
    from evalreport.counts.pattern_counts import PatternCounts
    from evalreport.inputs.runs import Runs


def register(sub) -> None:
    from evalreport.cli import report as rep

    p = sub.add_parser("appendix", help="a paper appendix: booktabs tables, vector figures, methods paragraph, "
                                        "references.bib (LaTeX and Typst)",
                       description="Analyse the runs as `report` does and write DIR/appendix.tex (with "
                                   "main-example.tex, which compiles it alone), DIR/appendix.typ, tables/*.tex and "
                                   "*.typ, figures/*.pdf and *.svg (3.3 in and 6.9 in wide), methods.tex/.md and "
                                   "references.bib; the analysis tables go to DIR/data. Takes every option of "
                                   "`report` (--formats and --engine are accepted and unused: no HTML/PDF report "
                                   "is rendered).")
    add_input_options(p)
    common.add_cluster_option(p)
    add_measure_options(p)
    rep.add_report_options(p)
    for action in p._actions:      # the report's --appendix: this command writes nothing else
        if "--appendix" in action.option_strings:
            action.help = argparse.SUPPRESS
    p.add_argument("--what-if", action="append", default=[], metavar="CLASS=SHARE,...",
                   help="a class distribution to re-rank the systems under (repeatable), as for `report`")
    common.add_task_options(p)
    p.set_defaults(func=run_appendix)


def run_appendix(args) -> int:
    from evalreport._atomic import check_outside
    from evalreport.cli import report as rep
    from evalreport.report.appendix import build_appendix

    settings = rep.report_settings(args)
    check_outside(args.out, input_paths(args))
    from evalreport.cli import multilabel
    from evalreport.errors import InputError

    if multilabel.wanted(args):     # said plainly, not as the single-label reader's complaint about lists
        raise InputError("a multi-label gold file (items with a set of labels): the paper appendix is written for "
                         "single-label reports only (there is no multi-label appendix yet); `evalreport report` "
                         "makes the multi-label report", path=args.gold)
    loaded = common.load(args)
    data: Runs | PatternCounts | Counts | None = loaded.runs
    sources = None
    if data is None or args.backend != "memory":
        from evalreport.inputs.readers import hash_file
        from evalreport.inputs.runs import Source

        data = loaded.counts if data is None else data
        if args.confusion:
            sources = [Source("confusion", str(p), hash_file(p), None) for p in rep.confusion_files(args.confusion)]
        else:
            sources = [Source("gold", str(args.gold), hash_file(args.gold), None)] + [
                Source("runs", str(p), hash_file(p), None)
                for p in rep.confusion_files(list(args.runs) + ([args.runs_dir] if args.runs_dir else []))]
    extra = common.recorded_sources(args)   # the task file, plugins, gains and entry points among the inputs
    if extra:
        sources = [*(sources if sources is not None else getattr(data, "sources", ())), *extra]
    labels = list(loaded.counts.labels)
    settings = settings.replace(costs=loaded.costs, gains=common.gain_matrix(args, labels),
                                what_if=rep.what_if_specs(args.what_if, labels))
    paths = build_appendix(data, Path(args.out), settings, inputs=input_paths(args), sources=sources)
    for key in ("appendix", "typst", "tables", "figures"):
        print(f"{key}: {paths[key]}")
    return 0


def add_to_report(out_dir) -> Path:
    """``report --appendix``: write OUTDIR/appendix from the report's OUTDIR/tables (atomically)."""
    from evalreport._atomic import atomic_dir
    from evalreport.report.appendix import write_appendix

    out_dir = Path(out_dir)
    with atomic_dir(out_dir / "appendix") as staging:
        write_appendix(out_dir / "tables", staging)
    return out_dir / "appendix"
