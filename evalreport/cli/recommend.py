"""``evalreport recommend``: which measure to rank by, from requirements in plain words, answered on
the data's classes and gold class counts (:mod:`evalreport.analyses.recommend`)."""
from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from evalreport.cli.common import add_task_options, csv_list, print_note
from evalreport.cli.output import emit
from evalreport.errors import InputError

#: what the command writes (the reasons are sentences: no LaTeX table)
FORMATS = ("table", "csv", "json", "markdown")

if TYPE_CHECKING:
    from evalreport.analyses.recommend_data import DataSetting


def register(sub) -> None:
    from evalreport.analyses.recommend import DEFAULT_MUST, REQUIREMENTS

    p = sub.add_parser(
        "recommend",
        help="which measures meet your requirements (chance-corrected, monotone, defined, ...) on your data's "
             "classes, with the audit's counterexamples",
        description="For every measure of the registry (plugins included): whether it meets every requirement "
                    "of --must on data with these classes and class counts (a gold file, or --classes and "
                    "--prevalence), with the reason for each requirement (the audit's verdict in this setting, "
                    "with its counterexample) and the pitfalls on this data. Requirements: "
                    + ", ".join(REQUIREMENTS) + " (docs/recommend.md).")
    p.add_argument("gold", nargs="?", help="gold labels file (TSV, CSV, JSONL or Parquet; column --label-col): "
                                           "its classes and class counts")
    p.add_argument("--label-col", default="label", help="label column of the gold file (default: label)")
    p.add_argument("--labels", type=csv_list, help="class set and order, comma-separated (may list classes absent "
                                                   "from the gold labels; the order is the one `ordinal` reads)")
    p.add_argument("--classes", type=int, help="number of classes, without a gold file")
    p.add_argument("--prevalence", type=csv_list, help="class shares p1,p2,... summing to 1, without a gold file "
                                                       "(default: equal shares)")
    p.add_argument("--must", type=csv_list, help="requirements, comma-separated (default: "
                                                 + ",".join(DEFAULT_MUST) + ")")
    p.add_argument("--measures", type=csv_list, help="measure ids, comma-separated (default: every measure)")
    from evalreport.measures import POLICIES

    p.add_argument("--policy", choices=POLICIES, default="nan",
                   help="0/0 policy of the `defined` check (default: nan; the audit's properties are read "
                        "under each paper's own)")
    p.add_argument("--max-n", type=int, default=None,
                   help="exhaustive bound of the audit (default: 8 for 2 classes, 6 for 3, 5 for more)")
    p.add_argument("--seed", type=int, default=0, help="seed of the audit's random search (default: 0)")
    p.add_argument("--format", choices=FORMATS, default="table", help="output format (default: table)")
    add_task_options(p, ignore=("seed",))      # a task's seed is its bootstrap's, not the audit's search
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from evalreport.analyses.recommend import recommend, resolve_requirements

    must = resolve_requirements(args.must)       # unknown names first: nothing is read or computed
    if args.max_n is not None and args.max_n < 3:
        raise InputError("--max-n must be at least 3")
    data = _data(args)
    rec = recommend(data, [r.name for r in must], args.measures, policy=args.policy, max_n=args.max_n,
                    seed=args.seed)
    frame = rec.table
    if args.format in ("csv", "json"):
        emit(frame, args.format)
        for note in rec.notes:          # stdout stays one table; the sentences go to stderr
            print_note(note)
        return 0
    wide = frame[frame["applicable"]].set_index("label")[["measure", "fits", "reason", "pitfalls"]]
    wide = wide.assign(fits=wide["fits"].map({True: "yes", False: "no"}))
    left = int((~frame["applicable"]).sum())
    emit(frame, args.format, wide=wide, title=f"evalreport recommend: {', '.join(rec.must)}")
    from evalreport import escape

    esc = escape.markdown if args.format == "markdown" else escape.printable
    lines = [esc(n) for n in rec.notes]
    if left:
        lines.append(esc(f"{left} binary measures need a positive class: not shown (their averages are)."))
    sys.stdout.write("\n" + "\n\n".join(lines) + "\n")
    return 0


def _data(args: argparse.Namespace) -> DataSetting:
    """The data setting: a gold file's classes and counts, or --classes and --prevalence."""
    from evalreport.analyses.recommend_data import setting_from_prevalence

    if args.gold:
        if args.classes is not None or args.prevalence is not None:
            raise InputError("give a gold file or --classes/--prevalence, not both")
        return _from_gold(args.gold, args.label_col, args.labels)
    prevalence = None
    if args.prevalence is not None:
        try:
            prevalence = [float(x) for x in args.prevalence]
        except ValueError:
            raise InputError(f"--prevalence must be numbers, got {','.join(args.prevalence)}") from None
    if args.classes is None and prevalence is None and args.labels is None:
        raise InputError("give a gold file, or --classes N (and --prevalence p1,p2,...)")
    return setting_from_prevalence(args.classes, prevalence, args.labels)


def _from_gold(path, label_col: str, labels) -> DataSetting:
    import numpy as np

    from evalreport.analyses.recommend_data import DataSetting
    from evalreport.inputs.tables import read_table

    table, where = read_table(path, "gold")
    if label_col not in table.columns:
        raise InputError(f"no column {label_col!r} (columns: {', '.join(table.columns)}); use --label-col",
                         path=where)
    codes, uniques = table.labels(label_col)
    counts = np.bincount(codes, minlength=len(uniques))
    if labels is None:
        order = sorted(range(len(uniques)), key=lambda k: uniques[k])
        names, sizes = [uniques[k] for k in order], [float(counts[k]) for k in order]
    else:
        if len(set(labels)) != len(labels):
            raise InputError("--labels names a class twice")
        extra = [u for u in uniques if u not in set(labels)]
        if extra:
            row = int(np.flatnonzero(codes == uniques.index(extra[0]))[0])
            raise table.error(f"gold label {extra[0]!r} is not in --labels", row=row)
        by = dict(zip(uniques, counts.tolist()))
        names, sizes = list(labels), [float(by.get(x, 0)) for x in labels]
    if len(names) < 2:
        raise InputError(f"the gold labels hold one class ({names[0]!r}): give --labels with the others",
                         path=where)
    return DataSetting(tuple(names), tuple(sizes))
