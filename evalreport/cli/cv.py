"""``evalreport cv``: every measure under every aggregation over cross-validation folds (Forman & Scholz 2010)."""
from __future__ import annotations

import sys

from evalreport.cli.common import add_scoring_command, load
from evalreport.cli.output import emit
from evalreport.errors import InputError

ORDER = ("pooled", "mean", "mean_defined", "pr_re", "pr_re_defined", "avg", "merge")


#: Shown without --positive (no F estimators then): the pooled and fold-averaged values of these.
HEADLINE = ("accuracy", "balanced_accuracy", "macro_f1", "mcc", "k")


def register(sub) -> None:
    p = add_scoring_command(
        sub, "cv", help="cross-validation: pooled vs fold-averaged estimates (F_tp,fp, F_avg, ..., AUC_avg, AUC_merge)",
        description="For data from k-fold cross-validation (a 'fold' column in the gold file), compute every "
                    "measure under each aggregation over folds: pooled (sum the fold matrices, then compute), "
                    "mean (every fold counts; undefined folds count with the policy's value, by default the "
                    "measure's convention), mean_defined (undefined folds skipped); for F-measures of the "
                    "--positive class also pr_re and pr_re_defined (harmonic mean of fold-averaged precision "
                    "and recall), and with scores AUC / average precision avg and merge. Forman & Scholz "
                    "(2010) recommend publishing F_tp,fp (pooled) and AUC_avg. By default the output is the "
                    "five F estimators of the --positive class per system (and AUC_avg, AUC_merge where the runs "
                    "carry scores); --all (or --measures) gives every measure under every aggregation.",
        func=run)
    # the score measures cv takes besides the registry's ids (evalreport.analyses.crossval.SCORE_MEASURES,
    # not imported here: parsing the command line stays light)
    p.set_defaults(_measure_extras=("auc", "average_precision"))
    p.add_argument("--all", dest="all_measures", action="store_true",
                   help="every measure under every aggregation (default: the five F estimators of --positive, "
                        "and AUC where the runs carry scores; the measures of --measures when given)")


def run(args) -> int:
    from evalreport.analyses.crossval import SCORE_MEASURES, cross_validate
    from evalreport.inputs.runs import Runs

    loaded = load(args)
    if not isinstance(loaded.runs, Runs):    # counts only, or item patterns counted out of core
        raise InputError("cv needs per-item gold and run files with a fold column (--backend memory); "
                         "confusion-matrix input (--confusion) has no folds, and --backend duckdb|spark counts "
                         "pooled matrices only")
    if loaded.runs.folds is None:
        raise InputError("the gold file has no fold column: cv needs the fold of every item (column 'fold', "
                         "the fold whose model predicted the item)", path=args.gold)
    from evalreport.cli.common import gain_matrix
    from evalreport.measures import bind

    gains = gain_matrix(args, loaded.counts.labels)     # bound to the measures, with the class subsets
    measures = None if args.measures is None else [
        m if m.strip() in SCORE_MEASURES else bind(m, loaded.counts.labels, gains=gains) for m in args.measures]
    result = cross_validate(loaded.runs, measures, positive=args.positive, policy=args.policy,
                            costs=loaded.costs)
    out = sys.stdout
    title = f"evalreport cv ({loaded.runs.n_folds} folds)"
    full = args.all_measures or args.measures is not None
    if not full and result.summary is not None:
        # what Forman & Scholz (2010) compare: the five F estimators (and AUC) per system, one row each
        summary = result.summary
        if args.format in ("csv", "json"):
            emit(summary, args.format)
            return 0
        emit(summary, args.format, wide=summary.set_index("system"),
             title=title + f": F estimators of {args.positive!r}"
                   + (", AUC" if "AUC_avg" in summary.columns else ""))
        if args.format == "table":
            out.write("\nEvery measure under every aggregation: --all (or --measures a,b,...).\n")
    else:
        frame = result.estimates
        if not full:     # no positive class: no F estimators; the headline measures, not all of them
            frame = frame[frame["measure"].isin(HEADLINE)]
        if args.format in ("csv", "json"):
            emit(frame, args.format)
            return 0
        emit(frame, args.format, wide=_wide(frame), title=title)
        if not full and args.format == "table":
            out.write("\nThe five F estimators of Forman & Scholz (2010) need the positive class (--positive "
                      "CLASS); every measure under every aggregation: --all.\n")
    if full and result.invalid_folds is not None and len(result.invalid_folds):   # (else: a column of the summary)
        emit(result.invalid_folds.set_index("system"), args.format,
             wide=result.invalid_folds.set_index("system"),
             title="folds with undefined precision or recall (Forman & Scholz 2010: V(i) = 0)")
    if result.score_folds is not None:
        bad = result.score_folds[result.score_folds["undefined"]]
        if len(bad):
            emit(bad.set_index("system"), args.format, wide=bad.set_index("system"),
                 title="folds with only one class (AUC undefined)")
    if args.positive is None and loaded.runs.scores is not None:
        out.write("\nAUC and average precision need the positive class (--positive).\n")
    from evalreport import escape

    # the recommendation quotes system names: data, so escaped for the target
    if args.format == "table":
        out.write("\nRecommendation\n" + "\n".join(escape.printable(line)
                                                     for line in result.recommendation.splitlines()) + "\n")
    elif args.format == "markdown":
        out.write("\n**Recommendation.** " + "\n\n".join(escape.markdown(line)
                                                         for line in result.recommendation.splitlines()) + "\n")
    return 0


def _wide(frame):
    """One row per (system, measure), one column per aggregation; blank where it does not apply."""
    import pandas as pd

    systems = list(dict.fromkeys(frame["system"]))
    measures = list(dict.fromkeys(frame["measure"]))
    aggs = [a for a in ORDER if a in set(frame["aggregation"])]
    cells = {(r.system, r.measure, r.aggregation): r.value for r in frame.itertuples(index=False)}
    rows = []
    for s in systems:
        for m in measures:
            if any((s, m, a) in cells for a in aggs):
                rows.append([s, m] + [cells.get((s, m, a), "") for a in aggs])
    return pd.DataFrame(rows, columns=["system", "measure"] + aggs).set_index("system")
