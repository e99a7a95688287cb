"""``evalreport codabench INPUT OUTPUT``: the scoring program of a Codabench / CodaLab competition
(:mod:`evalreport.report.codabench`; the competition bundle lines are in docs/codabench.md)."""
from __future__ import annotations

import sys

from evalreport.cli.common import add_cluster_option, add_measure_options, add_task_options, csv_list, print_note
from evalreport.errors import InputError

#: The most bootstrap resamples the scorer takes; more is refused before anything is allocated. A
#: million resamples of a 1,000-item, 3-class submission take about 6 s and 230 MB (100 classes and
#: 5,000 items: about 60 s per 100,000); 1,000 to 10,000 give stable bounds.
MAX_BOOTSTRAP = 1_000_000


def register(sub) -> None:
    p = sub.add_parser(
        "codabench", help="score one submission as a Codabench/CodaLab scoring program (scores.json)",
        description="Score the submission in INPUT/res against the gold file in INPUT/ref (the layout Codabench "
                    "and CodaLab give a scoring program) and write OUTPUT/scores.json (a flat JSON object of "
                    "numbers: the official measure, the chosen measures and their bootstrap interval bounds "
                    "KEY_lo, KEY_hi), OUTPUT/scores.txt and OUTPUT/detailed_results.html. The settings come "
                    "from --task-file (primary = the official measure); options given here override it. A "
                    "malformed submission is one error line on stderr naming every fault found (each kind "
                    "counted, with its first lines), exit status 2, and no scores; an error "
                    "of the organiser's setup (task file, reference data, plugins, measures) exits with 3.")
    p.add_argument("input", metavar="INPUT", help="the input folder (holds ref/ and res/)")
    p.add_argument("output", metavar="OUTPUT", help="the output folder (scores.json is written there)")
    add_measure_options(p)
    p.add_argument("--primary", default="macro_f1", help="the official measure (default: macro_f1)")
    p.add_argument("--labels", type=csv_list, help="class set and order, comma-separated")
    p.add_argument("--id-col", default="id", help="item id column (default: id)")
    p.add_argument("--label-col", default="label", help="label column (default: label)")
    p.add_argument("--missing", choices=("error", "abstain"), default="error",
                   help="gold ids missing from the submission: error (default) or a wrong '<abstain>' prediction (a class "
                        "of the submission's own in its class averages: docs/usage.md#inputs)")
    p.add_argument("--allow-unknown", action="store_true", help="accept predicted labels outside the class set")
    p.add_argument("--bootstrap", type=int, default=1000, metavar="N",
                   help="bootstrap resamples for the interval bounds (default: 1000; 0 = no bounds)")
    p.add_argument("--bootstrap-strata", choices=("none", "gold"), default="none",
                   help="resample items within each gold class (gold), so no resample loses a class; "
                        "default none: over all items")
    add_cluster_option(p)
    p.add_argument("--seed", type=int, default=0, help="random seed (default: 0)")
    p.add_argument("--alpha", type=float, default=0.05, help="intervals are 1 - alpha (default: 0.05)")
    p.add_argument("--title", default=None, help="heading of the detail page")
    p.add_argument("--no-html", action="store_true", help="do not write detailed_results.html")
    add_task_options(p)
    p.set_defaults(func=run, _setup_error=_organiser_error)


def _organiser_error(exc):
    """An error of the task file or a plugin (read before the command runs): the organiser's, exit 3."""
    from evalreport.report.codabench import organiser_error

    return organiser_error(exc)


def run(args) -> int:
    from evalreport.cli.common import settings_from_args
    from evalreport.report.codabench import organiser_error, score_submission, write_outputs

    try:        # the settings are the organiser's: a bad one exits with 3
        settings = settings_from_args(args, costs=args.costs, gains=getattr(args, "gains", None))
    except InputError as exc:
        raise organiser_error(exc) from None
    if settings.bootstrap > MAX_BOOTSTRAP:
        raise organiser_error(InputError(f"--bootstrap (task-file key bootstrap) must be at most {MAX_BOOTSTRAP:,} "
                                         f"in a scoring program, which resamples every submission; got "
                                         f"{settings.bootstrap:,}"))
    scored = score_submission(args.input, settings, labels=args.labels, id_col=args.id_col,
                              label_col=args.label_col, missing=args.missing, allow_unknown=args.allow_unknown)
    paths = write_outputs(scored, args.output, settings, html=not args.no_html)
    for note in scored.notes:
        print_note(note)
    for key, value in scored.scores.items():
        print(f"{key}: {value:.6g}")
    print(f"evalreport: wrote {paths['json']}", file=sys.stderr)
    return 0
