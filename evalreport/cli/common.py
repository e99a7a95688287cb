"""Options and helpers shared by every command: inputs, measure selection, output formats (printing a
table in them: :mod:`evalreport.cli.output`)."""
from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from evalreport.errors import EvalReportError, InputError
from evalreport.words import counted

if TYPE_CHECKING:     # numpy and pandas are imported where they are used: `--help` and parsing do without them
    import numpy as np

    from evalreport.counts import Counts
    from evalreport.counts.pattern_counts import PatternCounts
    from evalreport.inputs.runs import Runs
    from evalreport.inputs.settings import Settings

FORMATS = ("table", "csv", "json", "markdown", "latex")


def print_note(text) -> None:
    """One ``evalreport: note:`` line on stderr; a label from the data in it prints inert
    (:func:`evalreport.escape.one_line`: no terminal control sequence, no bidirectional override,
    no line break)."""
    from evalreport.escape import one_line

    print(f"evalreport: note: {one_line(text)}", file=sys.stderr)


def csv_list(text: str) -> list[str]:
    """Parse a comma-separated option value (``--measures a,b``)."""
    return [part.strip() for part in text.split(",") if part.strip()]


def add_input_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("gold", nargs="?", help="gold labels file (TSV, CSV, JSONL or Parquet; columns id, label)")
    p.add_argument("runs", nargs="*", help="one prediction file per system")
    p.add_argument("--runs-dir", help="a folder of run files (system name = file stem), or of one folder per system "
                                      "with one run file per seed (docs/seeds.md)")
    p.add_argument("--confusion", action="append", default=[], metavar="FILE",
                   help="confusion-matrix file(s) instead of GOLD and RUNs (square CSV with class header, "
                        "rows = gold; or long form system,gold,predicted,count)")
    p.add_argument("--names", type=csv_list, help="system names, comma-separated (override file stems)")
    p.add_argument("--id-col", default="id", help="item id column (default: id)")
    p.add_argument("--label-col", default="label", help="label column (default: label)")
    p.add_argument("--gold-id-col", metavar="NAME",
                   help="the gold file's item id column, where its name differs from the runs' (default: --id-col)")
    p.add_argument("--gold-label-col", metavar="NAME",
                   help="the gold file's label column, where its name differs from the runs' (default: --label-col)")
    p.add_argument("--labels", type=csv_list, help="class set and order, comma-separated (may list classes "
                   "absent from the gold labels)")
    p.add_argument("--missing", choices=("error", "abstain"), default="error",
                   help="gold ids missing from a run: error (default) or count as a wrong '<abstain>' prediction (a class "
                        "of that run's own in its class averages: docs/usage.md#inputs)")
    p.add_argument("--allow-unknown", action="store_true", help="accept predicted labels outside the class set")
    p.add_argument("--backend", choices=("memory", "duckdb", "spark"), default="memory",
                   help="memory (default: one run file per system, read into memory), or duckdb / spark: count "
                        "long run tables (columns system, id, label; files, a folder or a glob) where they lie, "
                        "for inputs larger than memory (compare/report resample the counted item patterns; no cv)")


def add_cluster_option(p: argparse.ArgumentParser) -> None:
    """``--cluster-col COL``: a gold column of item clusters; every resampling analysis takes whole clusters."""
    p.add_argument("--cluster-col", metavar="COL",
                   help="a column of the gold file naming each item's cluster (document, dialogue, patient): "
                        "intervals, P(best), ranks and tests resample and swap whole clusters (docs/usage.md)")
    add_slice_options(p)


def add_slice_options(p: argparse.ArgumentParser) -> None:
    """``--slice-col COL`` (repeatable) and ``--slice-bins N``: per-slice tables (docs/slices.md)."""
    p.add_argument("--slice-col", action="append", metavar="COL",
                   help="a column of the gold file that splits the items into slices (domain, language, length; "
                        "repeatable): per-slice leaderboards, gaps between slices and the worst slice "
                        "(slices.csv, slice_leaders.csv, slice_gaps.csv, slice_summary.csv; docs/slices.md)")
    p.add_argument("--slice-bins", type=int, metavar="N",
                   help="quantile bins of a numeric slice column (default: 4 for a column of more than 20 "
                        "distinct numbers)")


def add_measure_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--measures", type=csv_list,
                   help="measure ids, comma-separated (default: every measure that applies); "
                        "see `evalreport measures`")
    p.add_argument("--positive", help="positive class for binary measures (precision, f1, ...)")
    from evalreport.measures import POLICIES

    p.add_argument("--policy", choices=POLICIES, default="nan",
                   help="value of undefined (0/0) cases: nan (default; undefined classes are skipped in "
                        "averages), zero, one, or each measure's documented convention")
    p.add_argument("--order", type=csv_list, help="class order for ordinal measures, comma-separated")
    p.add_argument("--costs", help="cost matrix file for cost-sensitive measures (square CSV, rows = gold)")
    p.add_argument("--gains", help="gain matrix file for the gain measures gain_total, gain_mean, gain_relative "
                                   "(square CSV, rows = gold, like --costs; any finite gains)")


def add_gold_options(p: argparse.ArgumentParser) -> None:
    """``--label-noise RATES``, ``--noise-matrix FILE`` and ``--noise-draws N``: re-rank under simulated
    gold-label noise (:mod:`evalreport.analyses.label_noise`)."""
    p.add_argument("--label-noise", type=noise_rates, default=(), metavar="RATES",
                   help="re-rank under simulated gold-label noise at these rates (comma-separated, e.g. "
                        "0.01,0.05,0.1): label_noise.csv")
    p.add_argument("--noise-matrix", metavar="FILE",
                   help="re-rank under a class-to-class flip matrix (layout of --costs; rows = gold, each row "
                        "sums to 1)")
    p.add_argument("--noise-draws", dest="label_noise_draws", type=int, default=200, metavar="N",
                   help="draws per noise rate (default: 200)")
    p.add_argument("--annotators", metavar="FILE",
                   help="the gold labels of several annotators (columns id, label_1, label_2, ... or id, annotator, "
                        "label): their agreement and every system scored against each (annotators.csv)")


def noise_rates(text: str) -> tuple[float, ...]:
    """The rates of ``--label-noise`` (comma-separated numbers in [0, 1])."""
    try:
        rates = tuple(float(x) for x in text.split(",") if x.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated numbers, e.g. 0.01,0.05; got {text!r}") from None
    if not rates or any(not 0 <= r <= 1 for r in rates):
        raise argparse.ArgumentTypeError(f"noise rates lie in [0, 1]; got {text!r}")
    return rates


def gold_settings(args: argparse.Namespace, settings: Settings, labels, n_task: int | None = None) -> Settings:
    """``settings`` with the files of :func:`add_gold_options` read: the noise matrix, the annotators."""
    if getattr(args, "noise_matrix", None):
        settings = settings.replace(noise_matrix=noise_matrix(args, labels, n_task))
    if getattr(args, "annotators", None):
        from evalreport.inputs.annotators import read_annotations

        settings = settings.replace(annotations=read_annotations(args.annotators))
    return settings


def noise_matrix(args: argparse.Namespace, labels, n_task: int | None = None):
    """The flip matrix of ``--noise-matrix`` over the task's classes (rows of floats), or None."""
    path = getattr(args, "noise_matrix", None)
    if not path:
        return None
    from evalreport.inputs.noise import read_noise_matrix

    return read_noise_matrix(path, list(labels)[:n_task] if n_task else list(labels))


def add_task_options(p: argparse.ArgumentParser, *, plugins: bool = True, ignore: tuple[str, ...] = ()) -> None:
    """``--task-file FILE`` (the settings an organiser fixes once; options given here override it) and,
    for commands that compute measures, ``--plugin FILE.py`` (repeatable). Applied by :func:`prepare`.
    ``ignore``: task keys this command leaves alone although it has an option of that name (the
    audit's ``--policy`` and ``--seed`` mean something else than a task's)."""
    p.add_argument("--task-file", metavar="FILE",
                   help="a task file (TOML or YAML) with the task's settings: primary, measures, positive, labels, "
                        "costs, seed, ... (docs/plugins.md); options given on the command line override it")
    if plugins:
        p.add_argument("--plugin", action="append", default=[], metavar="FILE.py",
                       help="a Python file that registers measures of its own (repeatable; docs/plugins.md)")
    p.set_defaults(_command_parser=p, _task_ignore=tuple(ignore))


def prepare(parser: argparse.ArgumentParser, args, argv=None):
    """Before a command runs: apply its ``--task-file`` (the file's settings become the defaults of the
    command's options, and the command line is parsed again, so options given there win), then load
    the measures of installed ``evalreport.measures`` entry points and of the ``--plugin`` files."""
    try:
        return _prepare(parser, args, argv)
    except EvalReportError as exc:
        wrap = getattr(args, "_setup_error", None)     # a command that reports setup errors its own way
        if wrap is None:
            raise
        raise wrap(exc) from None


def _prepare(parser: argparse.ArgumentParser, args, argv=None):
    task_file = getattr(args, "task_file", None)
    if task_file:
        from evalreport.inputs.taskfile import apply_to_parser, load_task_file

        spec = load_task_file(task_file)
        apply_to_parser(args._command_parser, spec, ignore=args._task_ignore)
        args = parser.parse_args(argv)
        args._task_spec = spec
    more = getattr(args, "_file_defaults", None)     # a command's own settings file (benchmark --benchmark-file)
    if more is not None and (found := more(args)):
        args._command_parser.set_defaults(**found)
        args = parser.parse_args(argv)
    if hasattr(args, "plugin"):
        from evalreport.measures.plugins import load_plugins

        load_plugins(args.plugin)
    _check_measure_names(args)
    return args


def _check_measure_names(args) -> None:
    """Every unknown id of ``--primary`` and ``--measures`` in one error, each with its nearest valid id."""
    specs = [getattr(args, "primary", None), *(getattr(args, "measures", None) or ())]
    specs = [s for s in specs if isinstance(s, str) and s.strip()]
    if specs:
        from evalreport.measures import check_names

        check_names(specs, also=getattr(args, "_measure_extras", ()))


#: The Settings fields set by an option whose ``dest`` is the field's name (on the commands that have it).
_SETTING_OPTIONS = ("primary", "measures", "positive", "policy", "order", "bootstrap", "bootstrap_strata", "seed",
                    "alpha", "title", "engine", "needs", "margin", "cluster_col")
#: The options of :func:`add_gold_options` that are settings fields.
_GOLD_OPTIONS = ("label_noise", "label_noise_draws")
#: Settings field -> the option a message names, where it is not ``--`` and the field's name.
_OPTION_OF = {"audit": "--no-audit", "progress": "--quiet", "missing_systems": "--missing"}


def settings_from_args(args: argparse.Namespace, **read: Any) -> Settings:
    """The one :class:`~evalreport.inputs.settings.Settings` of a command: the task file's keys
    (``--task-file``) under the command's options, validated once.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed command line (:func:`prepare` has applied the task file).
    **read
        Fields the command has read or worked out itself (cost and gain matrices, what-if
        distributions, formats, the command line, ``audit``, ``progress``); they win over the
        options.

    Returns
    -------
    Settings
        The command's settings.

    Raises
    ------
    InputError
        One line naming each bad option and what it must be (exit status 2).
    """
    import dataclasses

    from evalreport.inputs.settings import Settings, SettingsError
    from evalreport.inputs.taskfile import DEST, TaskSpec

    # the task file's keys this command has options for (a key it has no option for, or ignores, is
    # not this command's setting: the demo takes no measures)
    spec = getattr(args, "_task_spec", None) or TaskSpec()
    ignored = set(getattr(args, "_task_ignore", ()))
    spec = TaskSpec(path=spec.path, **{f.name: getattr(spec, f.name) for f in dataclasses.fields(spec)
                                       if f.name != "path" and hasattr(args, DEST.get(f.name, f.name))
                                       and f.name not in ignored})
    options = {name: getattr(args, name) for name in _SETTING_OPTIONS if hasattr(args, name)}
    options.update({name: getattr(args, name) for name in _GOLD_OPTIONS if hasattr(args, name)})
    if hasattr(args, "no_audit"):
        options["audit"] = not args.no_audit
    for dest in ("quiet", "no_progress"):
        if hasattr(args, dest):
            options["progress"] = not getattr(args, dest)
    if getattr(args, "slice_col", None):
        options["slice_cols"] = tuple(args.slice_col)
    if getattr(args, "slice_bins", None) is not None:
        options["slice_bins"] = args.slice_bins
    options.update(read)
    try:
        return Settings.from_task(spec, **options)
    except SettingsError as exc:
        raise InputError("; ".join(f"{_OPTION_OF.get(name, '--' + name.replace('_', '-'))} must be {must_be}; "
                                   f"got {_shown(value)}" for name, must_be, value in exc.problems)) from None


def _shown(value: Any) -> str:
    """A bad option value as the user typed it (``-1``, ``1.5``, ``docx``)."""
    if isinstance(value, (tuple, list)):
        return ",".join(map(str, value))
    return f"{value:g}" if isinstance(value, float) else str(value)


def add_scoring_command(sub, name: str, *, help: str, description: str, func) -> argparse.ArgumentParser:
    """A command that reads inputs and computes measures: the shared input, measure and format options."""
    p = sub.add_parser(name, help=help, description=description)
    add_input_options(p)
    add_measure_options(p)
    add_format_option(p)
    add_task_options(p)
    p.set_defaults(func=func)
    return p


def add_margin_option(p: argparse.ArgumentParser) -> None:
    """``--margin D``: the equivalence margin of the pairwise verdicts (task-file key ``margin``)."""
    p.add_argument("--margin", type=float, default=None, metavar="D",
                   help="equivalence margin in the primary measure's units: each pair of systems gets a verdict "
                        "in pairwise.csv (different, equivalent by two one-sided tests, or inconclusive); "
                        "default: none (no equivalence claims)")


def add_format_option(p: argparse.ArgumentParser, default: str = "table") -> None:
    p.add_argument("--format", choices=FORMATS, default=default, help=f"output format (default: {default})")


@dataclass
class Loaded:
    """The inputs of a command line: the runs, their counts and the cost matrix."""

    runs: Runs | PatternCounts | None   # PatternCounts: --backend duckdb|spark with resampling; None: only counts
    counts: Counts
    costs: np.ndarray | None


def load(args) -> Loaded:
    """Read the inputs named on the command line (files or confusion matrices)."""
    from evalreport.counts import Counts, read_confusions
    from evalreport.inputs import readers

    if args.confusion:
        if args.gold or args.runs or args.runs_dir:
            raise InputError("give either --confusion or GOLD and RUNs, not both")
        unused = [opt for opt, given in (("--id-col", args.id_col != "id"), ("--label-col", args.label_col != "label"),
                                         ("--gold-id-col", bool(getattr(args, "gold_id_col", None))),
                                         ("--gold-label-col", bool(getattr(args, "gold_label_col", None))),
                                         ("--missing", args.missing != "error"),
                                         ("--allow-unknown", args.allow_unknown)) if given]
        if unused:
            raise InputError(f"{', '.join(unused)} apply to gold and run files, not to --confusion input")
        counts = _renamed(read_confusions(args.confusion, labels=args.labels), args.names)
        runs = None
    else:
        if not args.gold:
            raise InputError("no gold file given (or use --confusion FILE)")
        if not args.runs and not args.runs_dir:
            raise InputError("no run files given (RUN... or --runs-dir DIR)")
        backend = getattr(args, "backend", "memory")
        if backend != "memory":
            from evalreport.counts.bigdata import count_confusions, count_patterns

            tables = list(args.runs) + ([args.runs_dir] if args.runs_dir else [])
            from evalreport.inputs.run_folders import system_folders

            if args.runs_dir and Path(args.runs_dir).is_dir() and system_folders(Path(args.runs_dir),
                                                                                 exclude=Path(args.gold)):
                raise InputError("a folder per system (several runs per system) is read in memory only: drop "
                                 f"--backend {backend}", path=args.runs_dir)
            kw = dict(engine=backend, labels=args.labels, id_col=args.id_col, label_col=args.label_col,
                      missing=args.missing, allow_unknown=args.allow_unknown)
            if args.names:
                raise InputError("--names is not supported with --backend duckdb|spark: the system names come "
                                 "from the 'system' column of the run tables (without it: each file's stem)")
            if getattr(args, "gold_id_col", None) or getattr(args, "gold_label_col", None):
                raise InputError("--gold-id-col and --gold-label-col are not supported with --backend duckdb|spark: "
                                 "give the gold table the runs' column names (--id-col, --label-col)")
            if getattr(args, "slice_col", None):
                raise InputError("--slice-col is not supported with --backend duckdb|spark: slices are resampled "
                                 "from item-level runs (--backend memory)")
            if getattr(args, "cluster_col", None):
                raise InputError("--cluster-col is not supported with --backend duckdb|spark: clusters are resampled "
                                 "from item-level runs (--backend memory)")
            if getattr(args, "bootstrap", 0) > 0:
                # compare/report with resampling: the joint item patterns with counts, resampled as
                # they are (never expanded to items); the confusion tensors follow from them
                pats = count_patterns(args.gold, tables, **kw)
                counts = pats.confusion()
                return Loaded(pats, counts, cost_matrix(args, counts.labels))
            # score, cv, --bootstrap 0: the confusion tensors alone (one GROUP BY, no per-item pivot)
            counts = count_confusions(args.gold, tables, **kw)
            return Loaded(None, counts, cost_matrix(args, counts.labels))
        runs = readers.read_runs(args.gold, args.runs, runs_dir=args.runs_dir, names=args.names,
                                 id_col=args.id_col, label_col=args.label_col, labels=args.labels,
                                 missing=args.missing, allow_unknown=args.allow_unknown,
                                 score_col="score" if getattr(args, "read_scores", True) else None,
                                 hash_files=getattr(args, "hash_inputs", True),
                                 gold_id_col=getattr(args, "gold_id_col", None),
                                 gold_label_col=getattr(args, "gold_label_col", None),
                                 cluster_col=getattr(args, "cluster_col", None),
                                 slice_cols=tuple(getattr(args, "slice_col", None) or ()),
                                 slice_bins=getattr(args, "slice_bins", None),
                                 score_sink=getattr(args, "score_sink", None))
        counts = Counts.from_runs(runs)
    costs = cost_matrix(args, counts.labels)
    return Loaded(runs, counts, costs)


def input_paths(args) -> list:
    """Every input file or folder named on the command line (an output folder must not hold one)."""
    paths = [getattr(args, "gold", None), getattr(args, "runs_dir", None), getattr(args, "costs", None),
             getattr(args, "gains", None),
             getattr(args, "task_file", None)]
    for name in ("runs", "confusion", "plugin"):
        paths += list(getattr(args, name, None) or [])
    return [p for p in paths if p]


def recorded_sources(args, *, plugins: bool = True, gains: bool = True) -> list:
    """What decides the numbers besides the data files, as :class:`~evalreport.inputs.runs.Source`
    rows of a report's inputs (``inputs.csv``, ``report.json``): the task file (role ``task-file``),
    with ``plugins`` each plugin file (``plugin``, the SHA-256 of the code that ran), with ``gains``
    the gain matrix (``gains``), and each installed entry point that registered measures (role
    ``entry-point``, path ``DIST==VERSION (entry point NAME = VALUE)``, no hash: an installed
    distribution is named by its version). ``report`` records plugins and gains itself."""
    from evalreport.inputs.readers import hash_file
    from evalreport.inputs.runs import Source
    from evalreport.measures.plugins import LOADED, entry_point_sources

    out = []
    if getattr(args, "task_file", None):
        out.append(Source("task-file", str(args.task_file), hash_file(args.task_file), None))
    if plugins:
        for p in dict.fromkeys(str(p) for p in getattr(args, "plugin", None) or ()):
            key = str(Path(p).resolve())
            out.append(Source("plugin", p, LOADED[key][0] if key in LOADED else hash_file(p), None))
    if gains and getattr(args, "gains", None):
        out.append(Source("gains", str(args.gains), hash_file(args.gains), None))
    for ep in entry_point_sources():
        dist = f"{ep['distribution'] or 'unknown distribution'}=={ep['version'] or 'unknown version'}"
        out.append(Source("entry-point", f"{dist} (entry point {ep['name']} = {ep['value']})", "", None))
    return out


def _renamed(counts, names):
    """``--names`` for confusion-matrix input: the systems in file order get these names."""
    from evalreport.counts import Counts

    if not names:
        return counts
    if len(names) != len(counts.systems):
        raise InputError(f"--names gives {counted(len(names), 'name')} for {counted(len(counts.systems), 'system')} "
                         f"({', '.join(counts.systems)})")
    return Counts(counts.tensor, counts.labels, names, counts.fold_names)


def cost_matrix(args, labels) -> np.ndarray | None:
    """The cost matrix from ``--costs`` or ``--order`` (absolute error on the class order)."""
    order = getattr(args, "order", None)
    path = getattr(args, "costs", None)
    if order and path:
        raise InputError("give either --order or --costs, not both")
    if order:
        from evalreport.measures import ordinal

        return ordinal.costs_from_order(order, labels)
    if path:
        from evalreport.inputs.costs import read_costs

        return read_costs(path, labels)
    return None


def gain_matrix(args, labels) -> np.ndarray | None:
    """The gain matrix from ``--gains`` (same format and checks as ``--costs``), or None."""
    path = getattr(args, "gains", None)
    if not path:
        return None
    from evalreport.inputs.costs import read_gains

    return read_gains(path, labels)
