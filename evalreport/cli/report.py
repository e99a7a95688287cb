"""``evalreport report`` and ``evalreport demo``: the full report (HTML + PDF + tables)."""
from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from evalreport.cli import common, multilabel
from evalreport.cli.common import (
    add_input_options,
    add_margin_option,
    add_measure_options,
    add_task_options,
    csv_list,
    input_paths,
)
from evalreport.errors import InputError
from evalreport.words import counted

if TYPE_CHECKING:
    from evalreport.counts import Counts
    from evalreport.counts.pattern_counts import PatternCounts
    from evalreport.inputs.runs import Runs
    from evalreport.inputs.settings import Settings


def add_report_options(p: argparse.ArgumentParser) -> None:
    """Add the options of a report (output folder, title, formats, ...) to a command's parser.

    Parameters
    ----------
    p : argparse.ArgumentParser
        The parser of ``evalreport report``, ``appendix`` or ``benchmark``.
    """
    p.add_argument("-o", "--out", required=True, metavar="OUTDIR", help="output folder (replaced atomically)")
    p.add_argument("--title", default=None, help="report title")
    p.add_argument("--primary", default="macro_f1", help="primary measure of the leaderboard (default: macro_f1)")
    p.add_argument("--bootstrap", type=int, default=1000, help="bootstrap resamples (default 1000; 0 = none)")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument("--bootstrap-strata", choices=("none", "gold"), default="none",
                   help="resample items within each gold class (gold), so that no resample loses a class and "
                        "class-averaged measures keep their definition; default: none (items, within folds)")
    p.add_argument("--alpha", type=float, default=0.05, help="significance level (default 0.05)")
    _add_formats_option(p)
    p.add_argument("--engine", choices=("auto", "quarto", "builtin"), default="auto",
                   help="renderer: quarto when a quarto executable is found (auto), or builtin (nbconvert + typst)")
    p.add_argument("--no-audit", action="store_true", help="leave out the measure-audit section")
    p.add_argument("--needs", type=csv_list, default=None,
                   help="properties you need, e.g. goesgens.CB,opitz.PIV: the audit section names the measures "
                        "that have them all")
    p.add_argument("--quiet", "-q", "--no-progress", dest="quiet", action="store_true",
                   help="no progress lines on stderr")
    p.add_argument("--appendix", action="store_true",
                   help="also write OUTDIR/appendix: the paper appendix (LaTeX and Typst; see `evalreport appendix`); "
                        "single-label reports only (a multi-label report has no appendix yet)")


def _add_formats_option(p) -> None:
    """``--formats html,pdf``, with ``--format`` as its hidden, deprecated alias."""
    import argparse

    p.add_argument("--formats", dest="formats", type=csv_list, default=None, metavar="html,pdf",
                   help="output formats, comma-separated: html,pdf (default both)")
    p.add_argument("--format", dest="formats_deprecated", type=csv_list, default=None, help=argparse.SUPPRESS)


def _formats(args) -> list[str]:
    """The formats asked for, from --formats or its deprecated alias --format (with a note)."""
    old = getattr(args, "formats_deprecated", None)
    if old is not None:
        if args.formats is not None:
            raise InputError("give --formats only (--format is its deprecated old name)")
        if not getattr(args, "quiet", False):
            print(f"evalreport: note: --format is deprecated on {args.command}; use --formats {','.join(old)}",
                  file=sys.stderr)
        return old
    return args.formats if args.formats is not None else ["html", "pdf"]


def register(sub) -> None:
    p = sub.add_parser("report", help="the full report: HTML + PDF + every table as CSV/JSON",
                       description="Analyse the runs and write OUTDIR/report.html (one self-contained offline file), "
                                   "OUTDIR/report.pdf, the executed notebooks and every table behind the report.")
    add_input_options(p)
    common.add_cluster_option(p)
    add_measure_options(p)
    common.add_gold_options(p)
    add_report_options(p)
    p.add_argument("--what-if", action="append", default=[], metavar="CLASS=SHARE,...",
                   help="a class distribution to re-rank the systems under (repeatable), e.g. "
                        "--what-if pos=0.5,neg=0.5; shares are normalised")
    add_margin_option(p)
    add_task_options(p)
    multilabel.add_options(p)
    p.set_defaults(func=run_report)

    d = sub.add_parser("demo", help="the full report on a built-in example (scikit-learn classifiers on digits)",
                       description="Make the built-in example (eight scikit-learn classifiers, 5-fold cross-validated "
                                   "on an imbalanced 6-class subset of the digits data that ships with scikit-learn) "
                                   "and write its full report to OUTDIR; the example's files go to OUTDIR/data.")
    add_report_options(d)
    from evalreport.measures import POLICIES

    d.add_argument("--policy", choices=POLICIES, default="nan",
                   help="undefined-value policy (default nan)")
    d.add_argument("--positive", default="nine",
                   help="positive class of the binary measures and of the cross-validation section (default: "
                        "nine, the rarest class: 3 items per fold, where the five F estimators of Forman & Scholz "
                        "(2010) part ways)")
    d.add_argument("--benchmark", action="store_true",
                   help="the benchmark example instead: 13 classifiers on 6 data sets that ship with scikit-learn, "
                        "ranked together (see `evalreport benchmark`)")
    d.add_argument("--multilabel", action="store_true",
                   help="the multi-label example instead: 10 scikit-learn classifiers, 20 labels, 5,000 items (see "
                        "docs/multilabel.md)")
    add_task_options(d)
    d.set_defaults(func=run_demo)

    s = sub.add_parser("simulate", help="re-run the cross-validation bias simulation of Forman & Scholz (2010)",
                       description="Simulate 10-fold cross-validation of a 1,000-case data set (1%-25% positives, true "
                                   "F 0.6-0.95, stratified and unstratified) and report the relative bias and standard "
                                   "deviation of the five F estimators (Forman & Scholz 2010, section 4, Figures 5-8).")
    s.add_argument("-o", "--out", required=True, metavar="OUTDIR", help="output folder (replaced atomically)")
    s.add_argument("--repetitions", type=int, default=20_000,
                   help="repetitions per setting (default 20,000; the paper used 1,000,000)")
    s.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    _add_formats_option(s)
    s.add_argument("--engine", choices=("auto", "quarto", "builtin"), default="auto", help="renderer")
    s.add_argument("--quiet", "-q", "--no-progress", dest="quiet", action="store_true",
                   help="no progress lines on stderr")
    add_task_options(s, plugins=False)
    s.set_defaults(func=run_simulate)


def report_settings(args: argparse.Namespace, **read: Any) -> Settings:
    """The settings of a report command (report, demo, appendix, benchmark): its options and task
    file (:func:`evalreport.cli.common.settings_from_args`), the formats asked for and the command
    line; then a check that the report's optional packages are installed. Option errors come first,
    before any file is read."""
    from evalreport.cli.compare import command_line

    formats = _check_formats(_formats(args))
    settings = common.settings_from_args(args, formats=formats, command=command_line(), **read)
    _check_report_extra()
    return settings


def _check_report_extra() -> None:
    import importlib.util

    from evalreport.errors import EvalReportError

    # the report's packages are an optional extra: one line that says so, not an import traceback later
    needed = {"altair": "altair", "vl_convert": "vl-convert-python", "papermill": "papermill",
              "ipykernel": "ipykernel", "nbconvert": "nbconvert", "nbformat": "nbformat", "typst": "typst",
              "pypandoc": "pypandoc-binary", "sklearn": "scikit-learn"}
    missing = [pkg for module, pkg in needed.items() if importlib.util.find_spec(module) is None]
    if missing:
        raise EvalReportError(f"the report needs the optional packages of evalreport[report] (missing: "
                              f"{', '.join(missing)}); install evalreport[report], e.g. pip install 'evalreport[report]'")


def _check_formats(formats) -> tuple[str, ...]:
    bad = [f for f in formats if f not in ("html", "pdf")]
    if bad or not formats:
        raise InputError(f"--formats takes html and/or pdf; got {','.join(formats) or 'nothing'}")
    return tuple(dict.fromkeys(formats))


def what_if_specs(specs: Sequence[str], labels: Sequence[str]) -> dict[str, dict[str, float]]:
    """The class shares of ``--what-if`` options.

    Parameters
    ----------
    specs : sequence of str
        The options' values, ``"a=0.5,b=0.5"`` each.
    labels : sequence of str
        The task's classes; a class not named gets share 0.

    Returns
    -------
    dict of str to dict of str to float
        ``{"what-if: a=0.5,b=0.5": {"a": 0.5, "b": 0.5}, ...}``.
    """
    import math

    out = {}
    for spec in specs:
        shares = {}
        for part in csv_list(spec):
            label, sep, value = part.partition("=")
            label = label.strip()
            if not sep or label not in labels:
                raise InputError(f"--what-if {spec!r}: expected CLASS=SHARE with CLASS one of {', '.join(labels)}")
            try:
                shares[label] = float(value)
            except ValueError:
                raise InputError(f"--what-if {spec!r}: share of {label!r} must be a number") from None
            if not math.isfinite(shares[label]):
                raise InputError(f"--what-if {spec!r}: share of {label!r} must be a finite number; got {value.strip()}")
            if shares[label] < 0:
                raise InputError(f"--what-if {spec!r}: shares must not be negative")
        if sum(shares.values()) <= 0:
            raise InputError(f"--what-if {spec!r}: the shares add up to 0")
        out[f"what-if: {spec}"] = {lab: shares.get(lab, 0.0) for lab in labels}
    return out


def run_report(args) -> int:
    from evalreport._atomic import check_outside
    from evalreport.cli.common import gain_matrix, load
    from evalreport.report.build import build_report

    settings = report_settings(args)      # option errors first, before any file is read
    if multilabel.wanted(args):
        print_outputs(multilabel.report(args, settings))
        return 0
    check_outside(args.out, input_paths(args))      # before any work: -o must not hold the inputs
    from evalreport.report.build import prefetch_imports

    prefetch_imports()          # while the inputs are read
    loaded = load(args)
    data: Runs | PatternCounts | Counts | None = loaded.runs
    sources = None
    if data is None or args.backend != "memory":  # counts, or item patterns counted out of core
        data = loaded.counts if data is None else data
        sources = counted_sources(args)
    extra = common.recorded_sources(args, plugins=False, gains=False)   # build_report records those two
    if extra:   # the task file and entry points among the inputs, with the data files
        sources = [*(sources if sources is not None else getattr(data, "sources", ())), *extra]
    labels = list(loaded.counts.labels)
    run_system = getattr(loaded.runs, "run_system", None)          # several runs per system: count systems
    n_systems = len(loaded.counts.systems) if run_system is None else len(set(run_system))
    settings = settings.replace(title=args.title or f"Evaluation of {counted(n_systems, 'system')}",
                                costs=loaded.costs, gains=gain_matrix(args, labels),
                                what_if=what_if_specs(args.what_if, labels))
    settings = common.gold_settings(args, settings, labels, getattr(loaded.runs, "n_task", None))
    paths = build_report(data, Path(args.out), settings, sources=sources, inputs=input_paths(args),
                         plugins=args.plugin, gains_file=args.gains)
    if getattr(args, "appendix", False):
        from evalreport.cli.appendix import add_to_report

        paths["appendix"] = add_to_report(args.out)
    print_outputs(paths)
    return 0


def counted_sources(args: argparse.Namespace) -> list:
    """The input files of counts: the confusion-matrix files, else the gold and run files counted out of core.

    Parameters
    ----------
    args : argparse.Namespace
        The command's arguments (``confusion``, else ``gold``, ``runs`` and ``runs_dir``).

    Returns
    -------
    list of Source
        One per file, with its SHA-256 (no rows: they were not counted).
    """
    from evalreport.inputs.readers import hash_file
    from evalreport.inputs.runs import Source

    if getattr(args, "confusion", None):
        return [Source("confusion", str(p), hash_file(p), None) for p in confusion_files(args.confusion)]
    return [Source("gold", str(args.gold), hash_file(args.gold), None)] + [
        Source("runs", str(p), hash_file(p), None)
        for p in confusion_files(list(args.runs or ()) + ([args.runs_dir] if args.runs_dir else []))]


def confusion_files(paths: Iterable[str | Path]) -> list[Path]:
    """The files named by paths, folders and globs, as the readers and the DuckDB/Spark backends take them.

    Parameters
    ----------
    paths : iterable of str or Path
        Files, folders (their visible files) and glob patterns.

    Returns
    -------
    list of Path
        The files, each folder's and pattern's sorted.
    """
    import glob

    out = []
    for text in map(str, paths):
        p = Path(text)
        if p.is_dir():
            out += sorted(q for q in p.iterdir() if q.is_file() and not q.name.startswith("."))
        elif p.exists():
            out.append(p)
        else:
            matches = sorted(Path(m) for m in glob.glob(text))
            if not matches:
                raise InputError(f"{text}: no such file, folder or matching files")
            out += [m for m in matches if m.is_file()]
    return out


def run_demo(args) -> int:
    import dataclasses
    import tempfile

    from evalreport.examples import DEMO_CLASSES, make_demo
    from evalreport.inputs.readers import read_runs
    from evalreport.report.build import build_report

    if getattr(args, "benchmark", False) and getattr(args, "multilabel", False):
        raise InputError("give --benchmark or --multilabel, not both (two different examples)")
    from evalreport._atomic import check_target

    check_target(args.out)          # before the example is made (training takes seconds)
    if getattr(args, "benchmark", False):
        from evalreport.cli.benchmark import run_benchmark_demo

        return run_benchmark_demo(args)
    settings = report_settings(args)
    if getattr(args, "multilabel", False):
        print_outputs(multilabel.build_demo(args, settings))
        return 0
    from evalreport.report.build import prefetch_imports, start_runner

    # the report's kernel starts now: its start and imports overlap the training
    prefetch_imports()
    with start_runner() as runner, tempfile.TemporaryDirectory(prefix="evalreport-demo-") as tmp:
        if not args.quiet:
            print("evalreport: making the built-in example (scikit-learn classifiers on digits) ...", file=sys.stderr)
        paths = make_demo(Path(tmp) / "data", seed=settings.seed)
        runs = read_runs(paths["gold"], runs_dir=paths["runs_dir"], labels=[name for name, _, _ in DEMO_CLASSES])
        # record the inputs where the report keeps them (OUT/data), not in the temporary folder
        kept = Path(args.out) / "data"
        runs = dataclasses.replace(runs, sources=tuple(
            dataclasses.replace(s, path=str(kept / Path(s.path).relative_to(Path(tmp) / "data"))) for s in runs.sources))
        # the score problems quote a file too: name the kept copy, never the temporary folder
        runs = dataclasses.replace(runs, score_problems={
            system: {kind: msg.replace(str(Path(tmp) / "data"), str(kept)) for kind, msg in found.items()}
            for system, found in runs.score_problems.items()})
        extra = common.recorded_sources(args, plugins=False, gains=False)   # a task file, entry points
        title = args.title or "evalreport demo: eight classifiers on imbalanced digits"
        result = build_report(runs, Path(args.out), settings.replace(title=title),
                              sources=[*runs.sources, *extra] if extra else None,
                              include={"data": Path(tmp) / "data"}, plugins=args.plugin, runner=runner)
    if getattr(args, "appendix", False):
        from evalreport.cli.appendix import add_to_report

        result["appendix"] = add_to_report(args.out)
    print_outputs(result)
    return 0


def run_simulate(args) -> int:
    from evalreport.report.simulation_build import build_simulation_report

    if args.repetitions < 2:
        raise InputError("--repetitions must be at least 2")
    settings = report_settings(args)
    paths = build_simulation_report(Path(args.out), repetitions=args.repetitions, seed=settings.seed,
                                    formats=settings.formats, engine=settings.engine, command=settings.command,
                                    progress=settings.progress)
    print_outputs(paths)
    return 0


def print_outputs(paths: Mapping[str, Any]) -> None:
    """Print where a command wrote its outputs, one ``kind: path`` line each.

    Parameters
    ----------
    paths : mapping of str to path
        What was written, by kind (``html``, ``pdf``, ``tables``, ``notebooks``, ``appendix``).
    """
    for key in ("html", "pdf", "tables", "notebooks", "appendix"):
        if key in paths:
            print(f"{key}: {paths[key]}")

