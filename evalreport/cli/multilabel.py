"""Multi-label routing of ``evalreport score``, ``compare`` and ``report``.

A command goes the multi-label way when ``--multilabel``, ``--label-sep`` or ``--layout`` is given,
or when :func:`~evalreport.inputs.multilabel.detect_multilabel` finds sets in the gold file (a list
column, 0/1 indicator columns, or an id on several rows: the long form, which is said on stderr, since
a single-label gold file with a repeated id looks the same). A single-label gold file whose run
turns out to hold sets fails with one line naming which file is which. Options with no meaning for
sets are refused with one line. ``report`` and ``demo --multilabel`` write the multi-label report
(:mod:`evalreport.report.multilabel_build`).
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from evalreport.errors import InputError
from evalreport.words import counted

if TYPE_CHECKING:
    from evalreport.inputs.settings import Settings

# (option, argument name, its default, why it has no meaning for label sets)
_REFUSED: tuple[tuple[str, str, object, str], ...] = (
    ("--positive", "positive", None, "every label is a positive class of its own binary matrix"),
    ("--order", "order", None, "labels of a set have no order"),
    ("--costs", "costs", None, "cost matrices are K x K single-label matrices"),
    ("--gains", "gains", None, "gain matrices are K x K single-label matrices"),
    ("--confusion", "confusion", [], "label sets are read from gold and run files, not confusion matrices"),
    ("--gold-id-col", "gold_id_col", None, "give the gold file the runs' column names"),
    ("--gold-label-col", "gold_label_col", None, "give the gold file the runs' column names"),
)


def add_options(p) -> None:
    """``--multilabel``, ``--label-sep SEP`` and ``--layout`` (on score, compare and report)."""
    from evalreport.inputs.multilabel import LAYOUTS

    p.add_argument("--multilabel", action="store_true",
                   help="items have a set of labels (detected from the gold file when not given)")
    p.add_argument("--label-sep", metavar="SEP",
                   help="separator between the labels of one item inside the label field (multi-label)")
    p.add_argument("--layout", choices=LAYOUTS,
                   help="multi-label file layout: list (JSON/Parquet list), sep (--label-sep), long (one row per "
                        "id and label), wide (0/1 column per label); default: detected per file")


def wanted(args) -> bool:
    """Whether this command line is about label sets (reads the gold file to detect it)."""
    if getattr(args, "multilabel", False) or getattr(args, "label_sep", None) or getattr(args, "layout", None):
        return True
    if args.confusion or not args.gold or getattr(args, "backend", "memory") != "memory" \
            or getattr(args, "gold_id_col", None) or getattr(args, "gold_label_col", None):
        return False
    from evalreport.inputs.multilabel import detect_multilabel

    # a repeated id is far more often a mistake in a single-label file than an undeclared long form:
    # it is read as single-label, whose error names the duplicate (and points to --multilabel)
    return bool(detect_multilabel(args.gold, label_col=args.label_col, id_col=args.id_col, long_form=False))


def _form(path, args) -> str | None:
    from evalreport.inputs.label_sets import read_with_form

    return read_with_form(path, "gold", id_col=args.id_col, label_col=args.label_col, label_sep=args.label_sep)[1]


def _names_systems(path) -> bool:
    """Whether a run file has the system column (one system per value: its ids repeat by design)."""
    from evalreport.inputs.system_column import SYSTEM_COL, header_names

    return SYSTEM_COL in (header_names(path, [SYSTEM_COL]) or [])


def single_label_load(args):
    """:func:`evalreport.cli.common.load`, and where a run fails to read as single-label because it
    holds sets, one line naming the single-label gold file and the multi-label run."""
    from evalreport.cli.common import load

    try:
        return load(args)
    except InputError as err:
        if (err.path is not None and args.gold and not args.confusion and Path(err.path) == Path(args.gold)
                and "duplicate" in str(err).lower()):
            raise InputError(f"{err.problem}; if this is a multi-label task in the long form (one row per id and "
                             "label), give --multilabel", path=err.path, line=err.line, item=err.item) from None
        if err.path is None or not args.gold or Path(err.path) == Path(args.gold) or args.confusion:
            raise
        try:
            form = _form(err.path, args)
        except InputError:
            raise err from None
        if form == "long" and not _names_systems(err.path):
            # several rows for one id: a duplicated line as often as label sets, so the reader's own
            # line-exact error stays, with the multi-label reading offered after it (not for a file whose
            # system column explains the repeated ids)
            raise InputError(f"{err.problem}; if this run holds label sets (one row per id and label), the task is "
                             "multi-label: give --multilabel", path=err.path, line=err.line, item=err.item) from None
        if form in ("list", "wide"):
            words = {"list": "a list of labels per item", "wide": "0/1 indicator columns"}[form]
            raise InputError(f"gold file {args.gold} is single-label (one label per item) but run file {err.path} is "
                             f"multi-label ({words}); give every file in one kind (--multilabel reads the gold "
                             "file as sets too)", path=err.path) from None
        raise


def _refuse(args, command: str) -> None:
    for option, attr, default, why in _REFUSED:
        if getattr(args, attr, default) not in (default, None, [], ()):
            raise InputError(f"{option} has no meaning for multi-label data ({why}); `evalreport {command}` reads "
                             "these files as label sets")
    if getattr(args, "backend", "memory") != "memory":
        raise InputError("--backend duckdb|spark counts single-label tables; multi-label data is read in memory "
                         "(--backend memory)")
    if not args.gold:
        raise InputError("no gold file given")
    if not args.runs and not args.runs_dir:
        raise InputError("no run files given (RUN... or --runs-dir DIR)")


def read(args):
    """The :class:`~evalreport.inputs.multilabel.MultiLabelRuns` named on the command line."""
    from evalreport.inputs.multilabel import read_multilabel

    return read_multilabel(args.gold, args.runs, runs_dir=args.runs_dir, names=args.names, id_col=args.id_col,
                           label_col=args.label_col, labels=args.labels, label_sep=args.label_sep,
                           layout=args.layout, missing=args.missing, allow_unknown=args.allow_unknown,
                           slice_cols=tuple(getattr(args, "slice_col", None) or ()),
                           slice_bins=getattr(args, "slice_bins", None))


def read_checked(args, command: str):
    """The label sets named on the command line, after refusing the options with no meaning for sets
    (one line naming the option and ``evalreport COMMAND``).

    Parameters
    ----------
    args : argparse.Namespace
        The command's arguments.
    command : str
        The command's name, for the messages.

    Returns
    -------
    MultiLabelRuns
    """
    _refuse(args, command)
    return read(args)


def scores(runs, measures=None, *, policy: str = "nan"):
    """A tidy frame (system, measure, value, undefined, reason) of multi-label measures, as
    :func:`evalreport.measures.evaluate` gives for single-label data."""
    import numpy as np
    import pandas as pd

    from evalreport.counts.multilabel import count_multilabel
    from evalreport.measures import get
    from evalreport.measures.multilabel import compute_multilabel, label_record, multilabel_measures

    chosen = multilabel_measures() if measures is None else [get(m) for m in dict.fromkeys(measures)]
    for m in chosen:
        label_record(m)          # a measure with no meaning for sets: MeasureError naming why
    counts = count_multilabel(runs)
    results = [compute_multilabel(m, counts, policy=policy) for m in chosen]
    S = len(runs.systems)
    return pd.DataFrame({
        "system": np.tile(np.asarray(runs.systems, dtype=object), len(chosen)),
        "measure": np.repeat(np.asarray([m.id for m in chosen], dtype=object), S),
        "value": np.concatenate([r.value.ravel() for r in results]) if results else np.empty(0),
        "undefined": np.concatenate([r.undefined.ravel() for r in results]) if results else np.empty(0, bool),
        "reason": np.concatenate([r.reason.ravel() for r in results]) if results else np.empty(0, object),
    })


def run_score(args) -> int:
    from evalreport.cli.output import emit

    _refuse(args, "score")
    frame = scores(read(args), args.measures, policy=args.policy)
    wide = frame.pivot(index="system", columns="measure", values="value")
    wide = wide[list(dict.fromkeys(frame["measure"]))].loc[list(dict.fromkeys(frame["system"]))]
    emit(frame, args.format, wide=wide, title="evalreport score (multi-label)")
    return 0


def run_compare(args) -> int:
    from evalreport.cli.common import input_paths, print_note
    from evalreport.cli.compare import ProgressBar, checked_settings
    from evalreport.cli.output import emit

    _refuse(args, "compare")
    settings = checked_settings(args)
    if args.out:
        from evalreport._atomic import check_outside

        check_outside(args.out, input_paths(args))
    from evalreport.analyses.compare import compare

    runs = read(args)
    with ProgressBar(enabled=settings.bootstrap > 0 and settings.progress) as bar:
        result = compare(runs, settings, progress=bar)
    board = result.leaderboard
    emit(board, args.format, wide=_display(board), title=f"evalreport compare (multi-label): {result.primary}")
    for note in getattr(result, "notes", ()):
        print_note(note)
    if args.out:
        from evalreport.cli.compare import run_provenance
        from evalreport.report.write import write_comparison

        path = write_comparison(result, args.out, inputs=input_paths(args), provenance=run_provenance(args, runs))
        print(f"evalreport: wrote {len(result.tables())} tables to {path}", file=sys.stderr)
    return 0


def _display(board):
    """The leaderboard for table/markdown/latex: system as index, letters, columns with no value left out."""
    shown = board.set_index("system") if "system" in board.columns else board
    shown = shown.drop(columns=["group"], errors="ignore")      # tiers; the letters say which pairs differ
    return shown.loc[:, shown.notna().any(axis=0)]


def report(args: argparse.Namespace, settings: Settings) -> dict:
    """``evalreport report`` on label sets (:func:`~evalreport.report.multilabel_build.build_multilabel_report`);
    returns the paths written.
    Options with no meaning for sets are refused with one line before any file is read; a bad input
    file stops it with one line (exit 2) and nothing written."""
    from evalreport._atomic import check_outside
    from evalreport.cli.common import input_paths, recorded_sources
    from evalreport.report.multilabel_build import build_multilabel_report

    _refuse(args, "report")
    if getattr(args, "what_if", None):
        raise InputError("--what-if has no meaning for multi-label data (a class distribution is a single-label "
                         "notion); the report calibrates every label's prevalence instead")
    if getattr(args, "needs", None):
        raise InputError("--needs answers from the single-label measure audit; the multi-label report audits the "
                         "example-based measures on label sets")
    if getattr(args, "appendix", False):
        raise InputError("--appendix is written for single-label reports; the multi-label tables are in OUTDIR/tables")
    check_outside(args.out, input_paths(args))
    runs = read(args)
    extra = recorded_sources(args, plugins=False, gains=False)     # a task file, entry points
    sources = [*runs.sources, *extra] if extra else None
    title = args.title or f"Multi-label evaluation of {counted(len(runs.systems), 'system')}"
    return build_multilabel_report(runs, args.out, settings.replace(title=title), sources=sources,
                                   inputs=input_paths(args), plugins=args.plugin)


def build_demo(args: argparse.Namespace, settings: Settings) -> dict:
    """``evalreport demo --multilabel``: :func:`evalreport.examples.multilabel_demo_data` (10 systems, 20
    labels, 5,000 items) written as JSON Lines to a temporary folder, read back like user files, and its
    report written to ``args.out`` (the example's files as ``args.out/data``)."""
    import dataclasses
    import tempfile

    from evalreport.examples import multilabel_demo_data
    from evalreport.inputs.multilabel import read_multilabel
    from evalreport.report.multilabel_build import build_multilabel_report, start_runner

    if getattr(args, "appendix", False):
        raise InputError("--appendix is written for single-label reports; the multi-label tables are in OUTDIR/tables")
    # the report's kernel starts now: its start and imports overlap the training
    with start_runner() as runner, tempfile.TemporaryDirectory(prefix="evalreport-demo-") as tmp:
        if not args.quiet:
            print("evalreport: making the multi-label example (10 scikit-learn classifiers, 20 labels, 5,000 items) "
                  "...", file=sys.stderr, flush=True)
        data = Path(tmp) / "data"
        written = multilabel_demo_data(seed=settings.seed).write(data, layout="list")
        runs = read_multilabel(written["gold"], runs_dir=written["runs_dir"])
        kept = Path(args.out) / "data"        # record the inputs where the report keeps them
        runs = dataclasses.replace(runs, sources=tuple(
            dataclasses.replace(s, path=str(kept / Path(s.path).relative_to(data))) for s in runs.sources))
        title = args.title or "evalreport demo: ten classifiers on a multi-label task"
        return build_multilabel_report(runs, args.out, settings.replace(title=title), include={"data": data},
                                       plugins=args.plugin, runner=runner)
