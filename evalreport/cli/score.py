"""``evalreport score``: every measure for every system."""
from __future__ import annotations

import sys

import numpy as np

from evalreport.cli import multilabel
from evalreport.cli.common import add_scoring_command, gain_matrix
from evalreport.cli.output import emit, emit_columns


def register(sub) -> None:
    p = add_scoring_command(sub, "score", help="compute measures for every system (a systems x measures table)",
                            description="Compute measures for every system. Without --measures, every measure that "
                                        "applies to the data (binary ones need --positive; their one-vs-rest "
                                        "averages are always computed), and the score-based measures (ROC AUC, "
                                        "average precision, Brier score, log loss, calibration error, ...) when "
                                        "the runs carry score or score_<class> columns.", func=run)
    # the files' hashes are not reported; score columns are read when score-based measures are wanted
    p.set_defaults(read_scores=True, hash_inputs=False)
    multilabel.add_options(p)


def wants_scores(measures, primary=None) -> bool:
    """Whether a command reads the runs' score columns: without ``--measures`` (every measure that applies),
    or when a score-based measure is asked for (measures of labels alone never stop at a blank score)."""
    from evalreport.measures.scores import is_score_measure

    return measures is None or any(is_score_measure(m) for m in [*measures, *([primary] if primary else [])])


def score_columns(runs, measures, *, positive, policy: str) -> dict[str, np.ndarray] | None:
    """The tidy columns (system, measure, value, undefined, reason) of the score-based measures: those
    asked for in ``measures``, or every default one when ``measures`` is None and the runs carry scores.

    Parameters
    ----------
    runs : Runs or None
        The runs (None: confusion-matrix input).
    measures : sequence of str or None
        The measures asked for.
    positive : str or int or None
        The positive class (one ``score`` column needs it).
    policy : str
        The undefined-value policy.

    Returns
    -------
    dict or None
        None when no score-based measure is computed.
    """
    from evalreport.errors import MeasureError
    from evalreport.measures.scores import is_score_measure

    if getattr(runs, "scores", None) is None:      # (no pandas, no analyses: `score` of labels stays light)
        asked = [str(m) for m in measures or () if is_score_measure(m)]
        if asked:
            raise MeasureError(f"score-based measure(s) {', '.join(asked)}: the runs carry no scores (score or "
                               "score_<class> columns)")
        return None
    from evalreport.analyses.score_compare import score_plan
    from evalreport.measures import resolve_positive
    from evalreport.measures.scores import compute_scores

    pos = None
    if positive is not None and runs is not None:
        pos = resolve_positive(positive, list(runs.labels), len(runs.labels))
    has_runs = runs is not None and hasattr(runs, "gold")
    plan = score_plan(runs if has_runs else None, None, measures, pos)
    if plan is None:
        return None
    from evalreport.measures.scores import ScoreStats, summaries_of

    # each system's columns summarised once, side by side, for every measure
    stats = ScoreStats(plan.sc, wanted=summaries_of(plan.records))
    stats.prefetch()
    results = [compute_scores(m, plan.sc, policy=policy, stats=stats) for m in plan.records]
    S = len(plan.sc.systems)
    return {"system": np.tile(np.asarray(plan.sc.systems, dtype=object), len(results)),
            "measure": np.repeat(np.asarray(plan.ids, dtype=object), S),
            "value": np.concatenate([r.value for r in results]),
            "undefined": np.concatenate([r.undefined for r in results]),
            "reason": np.concatenate([r.reason for r in results])}


def run(args) -> int:
    from evalreport.measures.evaluate import evaluate_columns
    from evalreport.measures.scores import is_score_measure

    if multilabel.wanted(args):
        return multilabel.run_score(args)
    args.read_scores = wants_scores(args.measures)
    if getattr(args, "backend", "memory") == "spark" and any(is_score_measure(m) for m in args.measures or ()):
        from evalreport.counts.bigdata_scores import check_engine

        check_engine(args.backend)      # before Spark starts
    stream = args.score_sink = _stream(args)
    try:
        loaded = multilabel.single_label_load(args)
    except BaseException:
        if stream is not None:
            stream.close(cancel=True)
        raise
    if stream is not None:
        stream.close()
    label_measures = args.measures
    if args.measures is not None:
        label_measures = [m for m in args.measures if not is_score_measure(m)]
    if getattr(args, "backend", "memory") != "memory" and args.read_scores:
        extra = histogram_score_columns(args)
    elif stream is not None:
        extra = stream.columns(loaded.runs)
    else:
        extra = score_columns(loaded.runs, args.measures, positive=args.positive, policy=args.policy)
    if label_measures is not None and not label_measures and extra is not None:
        columns = extra
    else:
        columns = evaluate_columns(loaded.counts, label_measures, positive=args.positive, policy=args.policy,
                                   costs=loaded.costs, gains=gain_matrix(args, loaded.counts.labels))
        if extra is not None:
            if "bound" in extra:     # measures of label counts are exact
                columns = {**columns, "bound": np.zeros(len(columns["value"]))}
            columns = {k: np.concatenate([np.asarray(columns[k]), np.asarray(extra[k], dtype=np.asarray(
                columns[k]).dtype)]) for k in columns}
    if args.format in ("csv", "json"):     # the tidy table as it is: written without pandas
        emit_columns(columns, args.format)
        return 0
    import pandas as pd

    frame = pd.DataFrame(columns)
    wide = _wide(frame)
    run_system = getattr(loaded.runs, "run_system", None)
    if run_system is not None:       # several runs per system: the systems' means first, then every run
        _emit_runs(frame, wide, dict(zip(loaded.runs.systems, run_system)), args.format)
    elif args.format in ("markdown", "latex"):
        emit(frame, args.format, wide=wide, title="evalreport score")
    else:   # the terminal table: names whole when it fits, else wrapped and shortened (no two alike)
        from evalreport.cli.terminal import print_table

        print_table(wide, title="evalreport score")
        if "bound" in columns:
            print_table(_bounds(frame), title="error bound of the score histogram: |value - exact value| <= bound")
    return 0


def _stream(args):
    """The score sink that summarises each run's scores as it is read (item-level runs in memory), else None."""
    if not args.read_scores or getattr(args, "backend", "memory") != "memory" or args.confusion:
        return None
    from evalreport.cli.score_stream import ScoreStream

    return ScoreStream(args.measures, args.positive, args.policy)


def _wide(frame):
    """The systems x measures table of a tidy frame, in the frame's orders."""
    wide = frame.pivot(index="system", columns="measure", values="value")
    return wide[list(dict.fromkeys(frame["measure"]))].loc[list(dict.fromkeys(frame["system"]))]


def _emit_runs(frame, runs_wide, run_system: dict[str, str], fmt: str) -> None:
    """Several runs per system: a table of each system's mean over its runs, then one of every run."""
    import pandas as pd

    from evalreport.analyses.seeds import system_scores

    systems = list(dict.fromkeys(run_system.values()))
    means = _wide(system_scores(frame, run_system, systems))
    n_runs = pd.Series(list(run_system.values())).value_counts()
    words = _runs_words(n_runs[systems].tolist())
    if fmt in ("markdown", "latex"):
        if fmt == "markdown":
            sys.stdout.write(f"System means over runs ({words}):\n\n")
        emit(means, fmt, wide=means)
        if fmt == "markdown":
            sys.stdout.write("\nEvery run (system/run):\n\n")
        emit(runs_wide, fmt, wide=runs_wide)
        return
    from evalreport.cli.terminal import print_table

    print_table(means, title=f"system means over runs ({words})")
    print_table(runs_wide, title="every run (system/run)")


def _runs_words(counts: list[int]) -> str:
    """How many runs the systems have, in words: "4 runs each" or "2 to 5 runs"."""
    return f"{counts[0]} runs each" if len(set(counts)) == 1 else f"{min(counts)} to {max(counts)} runs"


def _bounds(frame):
    """The systems x measures table of the histogram's error bounds (score-based measures only)."""
    from evalreport.measures.scores import is_score_measure

    scored = frame[[is_score_measure(m) for m in frame["measure"]]]
    wide = scored.pivot(index="system", columns="measure", values="bound")
    return wide[list(dict.fromkeys(scored["measure"]))].loc[list(dict.fromkeys(scored["system"]))]


def histogram_score_columns(args) -> dict[str, np.ndarray] | None:
    """With ``--backend duckdb``: the score-based measures from a fine histogram of the scores, each with its
    error bound (:mod:`evalreport.measures.score_histogram`); None when none is asked for and the run table
    has no score columns, or a binary ``score`` column and no positive class."""
    from evalreport.counts.bigdata_scores import has_score_column, histogram_scores
    from evalreport.measures.score_histogram import histogram_columns
    from evalreport.measures.scores import is_score_measure

    tables = list(args.runs) + ([args.runs_dir] if args.runs_dir else [])
    asked = None if args.measures is None else [m for m in args.measures if is_score_measure(m)]
    names = dict(id_col=args.id_col, label_col=args.label_col)
    if asked == []:
        return None
    if asked is None:
        if args.backend != "duckdb" or not has_score_column(args.gold, tables, per_class=True, **names):
            return None
        if args.positive is None and has_score_column(args.gold, tables, **names):   # binary 'score' needs it
            return None
    hist = histogram_scores(args.gold, tables, positive=args.positive, engine=args.backend, labels=args.labels,
                            **names)
    return histogram_columns(hist, asked, policy=args.policy)
