"""``evalreport compare``: a leaderboard with intervals, ranks and significance letters, and every
table of the comparison written to ``--out DIR`` (see :mod:`evalreport.analyses.compare`)."""
from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from evalreport.cli import multilabel
from evalreport.cli.common import (
    add_cluster_option,
    add_format_option,
    add_gold_options,
    add_input_options,
    add_margin_option,
    add_measure_options,
    add_task_options,
    gain_matrix,
    gold_settings,
    input_paths,
    print_note,
    recorded_sources,
    settings_from_args,
)
from evalreport.cli.output import emit, format_value
from evalreport.errors import InputError

if TYPE_CHECKING:
    from evalreport.inputs.settings import Settings


def register(sub) -> None:
    p = sub.add_parser(
        "compare", help="rank systems under every measure, with intervals, significance letters, rank "
                        "correlation, prevalence calibration and chance baselines",
        description="Compare systems: a leaderboard under the primary measure (with bootstrap intervals, ranks "
                    "and significance letters: systems sharing a letter are not separated by the Holm-corrected "
                    "tests) and, with --out, every table of the comparison as CSV + JSON "
                    "(scores, ranks, rank_correlation, intervals, rank_distribution, pairwise, baselines, "
                    "disagreements, ...). Scores and ranks hold raw and prevalence-calibrated rows.")
    add_input_options(p)
    add_cluster_option(p)
    add_measure_options(p)
    add_gold_options(p)
    p.add_argument("--primary", default="macro_f1", help="measure of the leaderboard (default: macro_f1)")
    p.add_argument("--bootstrap", type=int, default=1000, metavar="N",
                   help="paired bootstrap resamples for intervals and significance (default: 1000; 0 = none)")
    p.add_argument("--seed", type=int, default=0, help="random seed (default: 0)")
    p.add_argument("--bootstrap-strata", choices=("none", "gold"), default="none",
                   help="resample items within each gold class (gold), so that no resample loses a class and "
                        "class-averaged measures keep their definition; default: none (items, within folds)")
    p.add_argument("--alpha", type=float, default=0.05,
                   help="significance level for groups; intervals are 1 - alpha (default: 0.05)")
    p.add_argument("--out", metavar="DIR", help="write every table (CSV + JSON) to this folder")
    p.add_argument("--no-progress", "--quiet", "-q", dest="no_progress", action="store_true",
                   help="do not show a progress bar on stderr")
    add_format_option(p)
    add_margin_option(p)
    add_task_options(p)
    multilabel.add_options(p)
    p.set_defaults(func=run, read_scores=True)     # score columns, when present, give the score-based measures


def checked_settings(args: argparse.Namespace) -> Settings:
    """The command's settings, its argument errors raised before any input is read or output written.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed command line.

    Returns
    -------
    Settings
        From :func:`~evalreport.cli.common.settings_from_args`.
    """
    from evalreport.measures import get

    settings = settings_from_args(args)
    if args.out and Path(args.out).exists() and not Path(args.out).is_dir():
        raise InputError("exists and is not a folder", path=args.out)
    get(args.primary)
    for m in args.measures or ():
        get(m)
    return settings


class ProgressBar:
    """A rich progress bar on stderr, called as ``progress(done, total)`` (or ``progress(step)``)."""

    def __init__(self, enabled: bool):
        self.enabled = enabled
        self.bar = None
        self.task = None

    def __enter__(self):
        if self.enabled:
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

            console = Console(stderr=True)
            if console.is_terminal:
                self.bar = Progress(TextColumn("resampling"), BarColumn(), MofNCompleteColumn(),
                                    TimeRemainingColumn(), console=console, transient=True)
                self.bar.start()
                self.task = self.bar.add_task("resampling", total=None)
        return self

    def __call__(self, done=None, total=None, **_):
        if self.bar is None:
            return
        if total is not None:
            self.bar.update(self.task, completed=done, total=total)
        elif done is not None:
            self.bar.advance(self.task, done)

    def __exit__(self, *exc):
        if self.bar is not None:
            self.bar.stop()
        return False


def _display(board, alpha: float):
    """The leaderboard for table/markdown/latex: ranks as 1 or 1.5, the interval as one column."""
    import math

    import pandas as pd

    def num(v, fmt="{:g}"):
        return "" if v is None or (isinstance(v, float) and math.isnan(v)) else fmt.format(v)

    level = f"{100 * (1 - alpha):g}% interval"
    wide = pd.DataFrame({
        "rank": [num(v) for v in board["rank"]],
        "value": board["value"].to_numpy(dtype=float),
        level: ["" if math.isnan(lo) else f"[{format_value(lo)}, {format_value(hi)}]"
                for lo, hi in zip(board["lo"].astype(float), board["hi"].astype(float))],
        "letters": [v if isinstance(v, str) else "" for v in board["letters"]],   # compact letter display
        "P(best)": [num(v, "{:.3f}") for v in board["p_best"].astype(float)],
        "calibrated": board["value_calibrated"].to_numpy(dtype=float),
        "rank (calibrated)": [num(v) for v in board["rank_calibrated"]],
    }, index=pd.Index(board["system"], name="system"))
    if "rank_lo" in board and board["rank_lo"].notna().any():      # simultaneous rank intervals
        wide["rank interval"] = [f"{int(lo)}" if lo == hi else f"{int(lo)}-{int(hi)}"
                                 for lo, hi in zip(board["rank_lo"], board["rank_hi"])]
    return wide


def command_line() -> str:
    """The command as typed (``evalreport ARG...``, each argument shell-quoted)."""
    return "evalreport " + shlex.join(sys.argv[1:])


def run_provenance(args: argparse.Namespace, runs=None) -> dict:
    """The provenance of a comparison made from the command line (the report's record,
    :func:`evalreport.report.report_meta.provenance`): the command, the time, the versions and the
    inputs with their SHA-256 hashes (the data files read, else the confusion-matrix files or the files
    counted out of core, then the task file, plugins, gains and entry points).

    Parameters
    ----------
    args : argparse.Namespace
        The command's arguments.
    runs : Runs or MultiLabelRuns, optional
        The items read (their ``sources``); None when the data are counts.

    Returns
    -------
    dict
        ``command``, ``created``, ``versions`` and ``inputs`` (role, path, sha256, rows).
    """
    from evalreport.report.report_meta import provenance

    sources = list(getattr(runs, "sources", ()) or ())
    if (not sources or getattr(args, "backend", "memory") != "memory") and (getattr(args, "confusion", None)
                                                                            or args.gold):
        from evalreport.cli.report import counted_sources

        sources = counted_sources(args)
    return provenance(command_line(), [*sources, *recorded_sources(args)])


def compare_single_label(args: argparse.Namespace, settings: Settings):
    """Read the single-label inputs of the command line and compare them (with a progress bar).

    Parameters
    ----------
    args : argparse.Namespace
        The command's arguments (``read_scores`` is set from the measures asked for).
    settings : Settings
        From :func:`checked_settings`.

    Returns
    -------
    tuple
        The loaded inputs, the settings completed from them (costs, gains, gold) and the comparison.
    """
    from evalreport.analyses.compare import compare
    from evalreport.cli.score import wants_scores

    args.read_scores = wants_scores(args.measures, args.primary)     # measures of labels: no score column read
    loaded = multilabel.single_label_load(args)
    settings = settings.replace(costs=loaded.costs, gains=gain_matrix(args, loaded.counts.labels))
    settings = gold_settings(args, settings, loaded.counts.labels, getattr(loaded.runs, "n_task", None))
    with ProgressBar(enabled=settings.bootstrap > 0 and settings.progress and loaded.runs is not None) as bar:
        result = compare(loaded.runs if loaded.runs is not None else loaded.counts, settings, progress=bar)
    return loaded, settings, result


def run(args) -> int:
    if multilabel.wanted(args):
        return multilabel.run_compare(args)
    settings = checked_settings(args)
    if args.out:                       # before any work: -o must not be the folder of the inputs
        from evalreport._atomic import check_outside

        check_outside(args.out, input_paths(args))
    loaded, settings, result = compare_single_label(args, settings)
    board = result.leaderboard
    emit(board, args.format, wide=_display(board, result.settings.get("alpha", settings.alpha)),
         title=f"evalreport compare: {result.primary}")
    for note in result.notes:
        print_note(note)
    if args.out:
        from evalreport.report.write import write_comparison

        path = write_comparison(result, args.out, inputs=input_paths(args),
                                provenance=run_provenance(args, loaded.runs))
        print(f"evalreport: wrote {len(result.tables())} tables to {path}", file=sys.stderr)
    return 0
