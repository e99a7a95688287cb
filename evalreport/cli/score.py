"""``evalreport score``: every measure for every system."""
from __future__ import annotations

from evalreport.cli import multilabel
from evalreport.cli.common import add_scoring_command, emit, emit_columns, gain_matrix


def register(sub) -> None:
    p = add_scoring_command(sub, "score", help="compute measures for every system (a systems x measures table)",
                            description="Compute measures for every system. Without --measures, every measure that "
                                        "applies to the data (binary ones need --positive; their one-vs-rest "
                                        "averages are always computed).", func=run)
    # measures of labels only: an optional score column is not read; the files' hashes are not reported
    p.set_defaults(read_scores=False, hash_inputs=False)
    multilabel.add_options(p)


def run(args) -> int:
    from evalreport.measures.evaluate import evaluate_columns

    if multilabel.wanted(args):
        return multilabel.run_score(args)
    loaded = multilabel.single_label_load(args)
    columns = evaluate_columns(loaded.counts, args.measures, positive=args.positive, policy=args.policy,
                               costs=loaded.costs, gains=gain_matrix(args, loaded.counts.labels))
    if args.format in ("csv", "json"):     # the tidy table as it is: written without pandas
        emit_columns(columns, args.format)
        return 0
    import pandas as pd

    frame = pd.DataFrame(columns)
    wide = frame.pivot(index="system", columns="measure", values="value")
    wide = wide[list(dict.fromkeys(frame["measure"]))].loc[list(dict.fromkeys(frame["system"]))]
    if args.format in ("markdown", "latex"):
        emit(frame, args.format, wide=wide, title="evalreport score")
    else:   # the terminal table: names whole when it fits, else wrapped and shortened (no two alike)
        from evalreport.cli.terminal import print_table

        print_table(wide, title="evalreport score")
    return 0
