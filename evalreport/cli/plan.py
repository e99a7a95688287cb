"""``evalreport plan``: how many items a test set needs to detect a difference between two systems,
from a pilot (:mod:`evalreport.analyses.plan`)."""
from __future__ import annotations

import argparse
import sys

from evalreport.cli.common import add_format_option, add_input_options, add_task_options
from evalreport.cli.output import emit
from evalreport.errors import InputError


def register(sub) -> None:
    p = sub.add_parser(
        "plan", help="how many items a test set needs to detect a difference between two systems (from a pilot)",
        description="From pilot runs: the number of items a test set needs for the paired bootstrap test to "
                    "detect a difference D between two systems (the best two under the measure, or --systems A B) "
                    "with the given power, and the smallest difference the pilot's own size detects. Test sets of "
                    "other sizes are drawn from the pilot's items, both systems' outputs kept together, so it "
                    "works for any measure; for accuracy the closed forms (paired proportions, Connor 1987) are "
                    "printed beside it. With --cluster-col COL the pilot's items come in clusters (questions of "
                    "one document): whole clusters are resampled, and the answer is the clusters needed (and the "
                    "items that means at the pilot's mean cluster size); for accuracy the closed form is "
                    "inflated by the design effect 1 + (m - 1) ICC (Donner & Klar 2000).")
    add_input_options(p)
    p.add_argument("--cluster-col", metavar="COL",
                   help="a column of the gold file naming each item's cluster (document, dialogue, patient): "
                        "test sets of other sizes are drawn as whole clusters and the answer counts clusters "
                        "(docs/report.md#ranks)")
    p.add_argument("--measure", required=True, help="the measure (an id of `evalreport measures`)")
    p.add_argument("--difference", required=True, type=float, metavar="D",
                   help="the difference to detect, in the measure's units (> 0)")
    p.add_argument("--power", type=float, default=0.8, help="target power (default: 0.8)")
    p.add_argument("--alpha", type=float, default=0.05, help="two-sided level of the test (default: 0.05)")
    p.add_argument("--systems", nargs=2, metavar=("A", "B"), help="the two systems (default: the best two)")
    p.add_argument("--positive", help="positive class for binary measures")
    p.add_argument("--resamples", type=int, default=2000, metavar="R",
                   help="test sets drawn per size (default: 2000)")
    p.add_argument("--seed", type=int, default=0, help="random seed (default: 0)")
    p.add_argument("--no-progress", "--quiet", "-q", dest="no_progress", action="store_true",
                   help="do not show a progress bar on stderr")
    add_format_option(p)
    add_task_options(p)
    p.set_defaults(func=run, read_scores=False, _task_ignore=("primary", "measures", "bootstrap", "title",
                                                              "what_if", "order", "costs", "gains", "policy",
                                                              "bootstrap_strata", "margin"))


def _checked(args: argparse.Namespace) -> None:
    """The options' errors, before any input is read."""
    from evalreport.measures import get

    get(args.measure)
    from evalreport.measures.scores import is_score_measure

    if is_score_measure(args.measure):        # plan resamples confusion matrices of predicted labels
        raise InputError(f"plan works on measures of predicted labels; {args.measure!r} is computed from scores "
                         "(`evalreport measures` lists the others)")
    if args.confusion:
        raise InputError("plan needs item-level predictions (GOLD and RUNs), not confusion matrices")
    if getattr(args, "backend", "memory") != "memory":
        raise InputError("plan reads the runs into memory: --backend duckdb|spark is not supported")
    if not args.difference > 0:
        raise InputError(f"--difference must be a number > 0; got {args.difference:g}")
    if not 0 < args.alpha < 1:
        raise InputError(f"--alpha must lie strictly between 0 and 1; got {args.alpha:g}")
    if not args.alpha < args.power < 1:
        raise InputError(f"--power must lie strictly between --alpha and 1; got {args.power:g}")
    if args.resamples < 2:
        raise InputError(f"--resamples must be at least 2; got {args.resamples}")
    if args.seed < 0:
        raise InputError(f"--seed must be an integer >= 0; got {args.seed}")


def run(args) -> int:
    from evalreport.analyses.clusters import FEW_CLUSTERS
    from evalreport.analyses.plan import plan
    from evalreport.cli.common import load
    from evalreport.cli.compare import ProgressBar
    from evalreport.inputs.runs import Runs
    from evalreport.measures import resolve_positive

    _checked(args)
    loaded = load(args)
    runs = loaded.runs
    if not isinstance(runs, Runs):
        raise InputError("plan needs item-level predictions (GOLD and RUNs)")
    pos = None if args.positive is None else resolve_positive(args.positive, runs.labels, runs.n_classes,
                                                              n_task=runs.n_task)
    with ProgressBar(enabled=not args.no_progress) as bar:
        result = plan(runs, args.measure, args.difference, power=args.power, alpha=args.alpha, systems=args.systems,
                      resamples=args.resamples, seed=args.seed, progress=bar, positive=pos)
    table = result.table()
    shown = table.assign(value=[v if isinstance(v, str) else f"{v:.6g}" for v in table["value"]])
    emit(table, args.format, wide=shown.set_index("quantity"), title=f"evalreport plan: {result.measure}, {result.systems[0]} vs {result.systems[1]}")
    if args.format in ("table", "markdown"):
        print(_summary(result), file=sys.stderr)
    if result.cluster_col is not None and result.n_clusters_pilot < FEW_CLUSTERS:
        print(f"evalreport: warning: the pilot has only {result.n_clusters_pilot} clusters (fewer than "
              f"{FEW_CLUSTERS}): its spread between clusters, and so the plan, is rough; a larger pilot plans "
              "better", file=sys.stderr)
    return 0


def _summary(result) -> str:
    """The answer in one sentence, for stderr."""
    if result.cluster_col is not None:
        return (f"evalreport: {result.clusters_needed:,} clusters ({result.n_needed:,} items at "
                f"{result.mean_cluster_size:.3g} items per cluster) detect a difference of {result.difference:g} "
                f"{result.measure} with {100 * result.power:g}% power at alpha = {result.alpha:g}; the pilot's "
                f"{result.n_clusters_pilot:,} clusters ({result.n_pilot:,} items) detect {result.detectable:.3g}")
    return (f"evalreport: {result.n_needed:,} items detect a difference of {result.difference:g} {result.measure} "
            f"with {100 * result.power:g}% power at alpha = {result.alpha:g}; the pilot's {result.n_pilot:,} "
            f"items detect {result.detectable:.3g}")
