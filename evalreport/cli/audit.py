"""``evalreport audit``: which properties each measure has, computed, with counterexamples."""
from __future__ import annotations

from evalreport.cli.common import add_format_option, add_task_options, csv_list
from evalreport.cli.output import emit

MARK = {"satisfied": "✓", "violated": "✗", "n/a": "n/a"}

def register(sub) -> None:
    p = sub.add_parser(
        "audit",
        help="check measures against the properties of Sebastiani (2015), Opitz (2022) and Gösgens et al. (2021) "
             "(with counterexamples)",
        description="Check every property (Sebastiani's axioms MON..SYM, Opitz's PI..PV, Gösgens et al.'s Max..ACB) "
                    "for every measure by exhaustive enumeration of confusion matrices up to --max-n items, a "
                    "seeded random search beyond, and exact expectations for the random-classifier properties. "
                    "With --consistency: the exhaustive consistency study of binary measures (Gösgens et al. "
                    "2021, section 5.1, Table 3). The table's columns are SETTING:PROPERTY (bin: two classes, "
                    "mc: three); what each property means: docs/audit.md#properties.")
    p.add_argument("--measures", type=csv_list, help="measure ids, comma-separated (default: the whole catalogue; "
                   "for --consistency: Acc, BA, F1, kappa, CE, GM1, CC, SBA as in Gösgens et al. 2021)")
    p.add_argument("--properties", type=csv_list,
                   help="property ids (MON, PIII, Mon, ...), paper.ID (sebastiani.MON) or a paper "
                        "(sebastiani, opitz, goesgens), comma-separated (default: all; each one in words: "
                        "docs/audit.md#properties)")
    p.add_argument("--max-n", type=int, default=None,
                   help="exhaustive bound on the number of items (default: 8; for --consistency: 10, "
                        "i.e. n = 2..10 as in Gösgens et al. 2021)")
    p.add_argument("--classes", type=csv_list, default=None,
                   help="numbers of classes to check, comma-separated; 2 is the binary setting (default: 2,3; "
                        "for --identities: 2,3,4)")
    from evalreport.measures import POLICIES

    p.add_argument("--policy", choices=POLICIES,
                   help="one undefined-value policy for all properties (default: each paper's own)")
    p.add_argument("--seed", type=int, default=0, help="seed of the random search (default: 0)")
    p.add_argument("--consistency", action="store_true", help="run the consistency study instead of the audit")
    p.add_argument("--multilabel", action="store_true",
                   help="audit the example-based multi-label measures (subset accuracy, Hamming loss, example-based "
                        "precision/recall/F1/Jaccard) over every set of label sets up to --max-n items (default 4) "
                        "with --classes labels (default 2,3)")
    p.add_argument("--identities", action="store_true",
                   help="list the measures that are the same quantity, or always rank systems alike, on seeded "
                        "samples of confusion matrices with --classes classes (default 2,3: scope 'all' holds for "
                        "every class count given, 'binary' only for 2)")
    add_format_option(p)
    add_task_options(p, ignore=("policy", "seed"))      # a task's 0/0 policy and seed are not the audit's
    p.set_defaults(func=run)


def run(args) -> int:
    from evalreport.analyses.audit import GOESGENS_2021_TABLE_3, audit, consistency, indistinguishable_groups
    from evalreport.errors import InputError

    chosen = [o for o, on in (("--identities", args.identities), ("--consistency", args.consistency),
                              ("--multilabel", args.multilabel)) if on]
    if len(chosen) > 1:
        raise InputError(f"{' and '.join(chosen)} are different studies: choose one")
    if args.multilabel:
        return _multilabel(args)
    study = "--identities" if args.identities else "--consistency" if args.consistency else None
    unused = [opt for opt, given, applies in (
        ("--properties", args.properties is not None, study is None),
        ("--max-n", args.max_n is not None, study != "--identities"),
        ("--classes", args.classes is not None, study != "--consistency"),
        ("--seed", args.seed != 0, study != "--consistency")) if given and not applies]
    if unused:
        raise InputError(f"{', '.join(unused)} do(es) not apply to {study} (nothing was computed)")
    if args.identities:
        from evalreport.analyses.audit.identities import identities

        frame = identities(args.measures, classes=_classes(args, ("2", "3", "4")), seed=args.seed,
                           policy=args.policy or "nan")
        wide = frame.drop_duplicates(["scope", "relation", "group"])[["scope", "relation", "members"]]
        wide.index = wide.pop("scope") + ": " + wide.pop("relation")
        emit(frame, args.format, wide=wide,
             title="measures that are one quantity or rank alike")
        return 0
    if args.consistency:
        max_n = 10 if args.max_n is None else args.max_n
        if max_n < 2:
            raise InputError("--max-n must be at least 2 for --consistency")
        measures = args.measures or list(GOESGENS_2021_TABLE_3)
        frame = consistency(measures, range(2, max_n + 1), policy=args.policy or "nan")
        groups = indistinguishable_groups(measures, frame=frame)
        wide = groups.assign(measures=groups["measures"].map(", ".join)).set_index("n")[["measures", "clique"]]
        # an n without any indistinguishable pair is a row too ("9-10: —" in Table 3 of Gösgens et al. 2021)
        empty = [n for n in range(2, max_n + 1) if n not in set(wide.index)]
        if empty:
            import pandas as pd

            none = pd.DataFrame({"measures": "—", "clique": ""}, index=pd.Index(empty, name="n"))
            wide = pd.concat([wide, none]).sort_index(kind="stable")
        if args.format == "csv":
            frame = frame.assign(consistent=frame["consistent"].map({True: "true", False: "false"}))
        emit(frame, args.format, wide=wide, title="indistinguishable measures (Gösgens et al. 2021, Table 3)")
        return 0
    classes = _classes(args)
    max_n = 8 if args.max_n is None else args.max_n
    if max_n < 3:
        raise InputError("--max-n must be at least 3")
    frame = audit(args.measures, args.properties, max_n=max_n, seed=args.seed, classes=classes,
                  policy=args.policy)
    from evalreport.analyses.audit.conditions import COLUMNS as CONDITION, footnotes, mark

    column = frame["setting"].map(lambda s: "bin" if s == "binary" else "mc" + s[len("multiclass"):]) + ":" \
        + frame["property"]
    marks = [mark(v, g, e) for v, g, e in zip(frame["verdict"], frame[CONDITION["gold"]], frame[CONDITION["every"]])]
    wide = frame.assign(mark=marks, column=column).pivot(index="measure", columns="column", values="mark")
    wide = wide[list(dict.fromkeys(column))]
    wide = wide.loc[list(dict.fromkeys(frame["measure"]))]
    notes = footnotes(marks)
    emit(frame, args.format, wide=wide, title="evalreport audit" + "".join(f"; {n}" for n in notes))
    if notes and args.format == "markdown":      # (the table format has them in its title)
        print("\n" + "\n".join(f"{n}  " for n in notes))
    return 0


def _multilabel(args) -> int:
    """The audit of the example-based measures (:func:`evalreport.analyses.audit.multilabel.audit_multilabel`)."""
    from evalreport.analyses.audit.multilabel import audit_multilabel
    from evalreport.errors import InputError

    if args.seed != 0:
        raise InputError("--seed does not apply to --multilabel (the set audit is exhaustive; nothing was computed)")
    max_n = 4 if args.max_n is None else args.max_n
    if max_n < 1:
        raise InputError("--max-n must be at least 1")
    frame = audit_multilabel(args.measures, args.properties, max_n=max_n, labels=_classes(args),
                             policy=args.policy)
    wide = frame.assign(mark=frame["verdict"].map(MARK)).pivot_table(
        index="measure", columns="property", values="mark", aggfunc=lambda v: "✗" if "✗" in set(v) else v.iloc[0])
    wide = wide[list(dict.fromkeys(frame["property"]))].loc[list(dict.fromkeys(frame["measure"]))]
    emit(frame, args.format, wide=wide, title="evalreport audit --multilabel")
    return 0


def _classes(args, default=("2", "3")) -> tuple[int, ...]:
    from evalreport.errors import InputError

    given = args.classes if args.classes is not None else default
    try:
        classes = tuple(int(k) for k in given)
    except ValueError:
        raise InputError(f"--classes must be integers >= 2, got {','.join(given)}") from None
    if any(k < 2 for k in classes):
        raise InputError("--classes must be integers >= 2")
    return classes
