"""The findings block's details (shown one click away in HTML): each measure's winner and near-ties,
the families of measures, the cross-check tests, prevalence calibration, the undefined values and
the 0/0 labels and items skipped, made from the rows of ``findings.csv`` like the headline
(:mod:`evalreport.report.summary`)."""
from __future__ import annotations

from collections.abc import Callable

import pandas as pd

from evalreport.report.summary_words import (
    MAX_NAMED,
    crowns,
    differences,
    escape,
    join_words,
    measure_label,
    name_list,
    p_range,
    short_reason,
    winner_groups,
)
from evalreport.words import counted

__all__ = ["calibration_sentence", "families_item", "not_computed_item", "skips_item", "tests_item",
           "undefined_items", "winners_sentence"]


#: At most this many measures are listed as undefined.
MAX_UNDEFINED = 4


def winners_sentence(of: Callable[[str], pd.DataFrame], alpha: float, test: str = "paired bootstrap") -> str:
    """Who wins under each measure, for the details (rows ``winner``, ``winner_margin``,
    ``winner_noise``): the headline names the leads beyond the paired bootstrap noise, so this
    sentence starts at the near-ties, then the ties for first and the untested winners."""
    winners = of("winner")
    groups = winner_groups(winners, "measure")
    if not groups:
        return ""
    noise = of("winner_noise").set_index("measure")
    margin = of("winner_margin").set_index("measure")
    n_measures = len(winners["measure"].unique())
    if noise.empty:              # no resampling: the winners as they are (the last bullet says why)
        if len(groups) == 1:
            return f"**Every measure** ({n_measures}) crowns {name_list(groups[0][0], bold=True)}."
        return "**The winner depends on the measure:** " + crowns(groups, labels=True) + "."
    by_measure = winners.groupby("measure", sort=False)["system"].apply(lambda s: tuple(dict.fromkeys(s)))
    clear = [m for m in by_measure.index if m in noise.index and noise.loc[m, "detail"] == "beyond noise"]
    near = [m for m in by_measure.index if m in noise.index and noise.loc[m, "detail"] == "within noise"]
    tied = [m for m in by_measure.index if len(by_measure[m]) > 1]
    # a sole winner with no paired verdict: no runner-up has a value, or no resample defines both values
    untested = [m for m in by_measure.index if len(by_measure[m]) == 1 and m not in clear and m not in near]
    rule = (f"{test} test of the winner against the runner-up, Holm-corrected over the {len(noise)} "
            f"measures with one winner, alpha {alpha:g}")
    everyone = {w for ws in by_measure for w in ws}
    if len(everyone) == 1:
        t = f"**Every measure** ({n_measures}) crowns {name_list(sorted(everyone), bold=True)}"
        if near:
            where = ("every one" if len(near) == n_measures and n_measures > 2
                     else join_words([escape(measure_label(m)) for m in near]))
            t += (f"; under {where} its lead over the runner-up is within the "
                  f"bootstrap noise ({differences(margin.loc[near, 'value'])}; {rule}: "
                  f"{p_range(noise.loc[near, 'value'])})")
        return t + "." + primary_family_clause(of, near)
    t = ""
    if near:
        near_groups = winner_groups(winners[winners["measure"].isin(near)], "measure")
        noise_words = (f"within the bootstrap noise ({differences(margin.loc[near, 'value'])}; corrected "
                       f"{p_range(noise.loc[near, 'value'])})")
        t += (f"**Near-ties** ({rule}): " + crowns(near_groups, labels=True, bold=False, what="near-tied measures")
              + f"; each lead over the runner-up {noise_words}")
        t += ("; these measures do not separate their first two systems." if len(near) > 1 else
              "; this measure does not separate its first two systems.")
        t += primary_family_clause(of, near)
    if tied:
        shown = join_words([f"{name_list(by_measure[m])} under {escape(measure_label(m))}" for m in tied], "; ")
        t += (" " if t else "") + f"Tied for first: {shown}."
    if untested:
        shown = crowns(winner_groups(winners[winners["measure"].isin(untested)], "measure"), labels=True,
                        bold=False, what="untested measures")
        t += ((" " if t else "") + "Not tested against a runner-up (no other system has a value, or no resample "
              f"defines both): {shown}.")
    return t


def primary_family_clause(of: Callable[[str], pd.DataFrame], near: list) -> str:
    """Where the primary measure is a near-tie among the measures but the leaderboard's family (all pairs
    under the primary measure) separates the same two systems: why the two verdicts differ."""
    gap = of("gap_noise")
    if gap.empty or str(gap["detail"].iloc[0]) != "beyond noise" or gap["measure"].iloc[0] not in set(near):
        return ""
    return (f" Under {escape(measure_label(gap['measure'].iloc[0]))}, the primary measure, the leaderboard's tests "
            "(all pairs under that measure) do separate the first two: among every measure's winner test the same "
            "difference is corrected for more tests.")


def undefined_items(of) -> list[str]:
    """Undefined values, grouped by the systems concerned, with the short form of each reason
    (no value at all vs a class average that has a value because undefined classes were skipped)."""
    items = []
    for kind, head in (("undefined", "**No value (0/0):** "),
                       ("undefined_skipped", "**Defined after skipping undefined classes:** ")):
        und = of(kind)
        if not len(und):
            continue
        if kind == "undefined_skipped":
            head = _skipped_head(of, und["measure"]) or head
        groups: dict[tuple, list] = {}
        for m, one in und.groupby("measure", sort=False):
            groups.setdefault(tuple(dict.fromkeys(one["system"])), []).append(m)
        parts = []
        for systems, ms in list(groups.items())[:MAX_UNDEFINED]:
            shown = [escape(measure_label(m)) for m in ms[:MAX_NAMED]] + ([f"{len(ms) - MAX_NAMED} more"]
                                                                   if len(ms) > MAX_NAMED else [])
            reasons = list(dict.fromkeys(short_reason(r) for r in und[und["measure"].isin(ms)]["detail"] if r))
            why = "; ".join(escape(r) for r in reasons[:3])
            if len(reasons) > 3:
                why += f"; {len(reasons) - 3} more reason{'s' * (len(reasons) > 4)}"
            parts.append(f"{', '.join(shown)} for {name_list(systems)}" + (f" ({why})" if why else ""))
        more = f"; {len(groups) - MAX_UNDEFINED} more groups" if len(groups) > MAX_UNDEFINED else ""
        items.append(head + "; ".join(parts) + more + ".")
    if items:
        items[-1] += " Every case and its full reason: the table of undefined values and scores.csv."
    return items


def _skipped_head(of: Callable[[str], pd.DataFrame], measures: pd.Series) -> str:
    """The heading of the values defined by leaving out 0/0 labels or items (label sets); '' for single labels."""
    labels, items = set(of("skipped_labels")["measure"]), set(of("skipped_items")["measure"])
    if not labels and not items:
        return ""
    own = set(measures)
    noun = "labels" if own <= labels else "items" if own <= items else "labels or items"
    return f"**Values that leave out their 0/0 {noun}:** "


def calibration_sentence(of) -> str:
    """Who wins after prevalence calibration (of the whole matrix, or of each label's own 2 x 2
    matrix for label sets), how many systems it moves, and who wins under the what-if class
    distributions."""
    t = ""
    rows = of("winner_calibrated")
    cal = winner_groups(rows, "measure")
    after = "After " + ("per-label " if (rows["detail"] == "per label").any() else "") + "prevalence calibration"
    if len(cal) == 1:
        t += f"{after} every measure crowns {name_list(cal[0][0], bold=True)}."
    elif cal:
        t += f"{after}: " + crowns(cal, labels=True) + "."
    for _, r in of("calibration_rank_changes").iterrows():
        k = int(r["value"])
        t += (f" Under {escape(measure_label(r['measure']))} {k} system{'s' * (k != 1)} change{'s' * (k == 1)} rank "
              f"({escape(r['detail'])}).")
    wi = winner_groups(of("winner_what_if"), "detail")
    if wi:
        t += (" Under the primary measure with other class distributions: "
              + crowns(wi, labels=False, what="distributions") + ".")
    return t.strip()


def families_item(of: Callable[[str], pd.DataFrame]) -> str:
    """Label sets: the systems each family of measures (label-based, example-based: the winner rows'
    detail) crowns, and in how many of its measures."""
    winners = of("winner")
    winners = winners[winners["detail"] != ""]
    if winners.empty:
        return ""
    parts = []
    for family, own in winners.groupby("detail", sort=False):
        total = own["measure"].nunique()
        parts.append(f"the {escape(family)} measures crown " + join_words(
            [f"{name_list(w, bold=True)}{' tied' if len(w) > 1 else ''} ({len(ms)} of {total})"
             for w, ms in winner_groups(own, "measure")]))
    one = winners["system"].nunique() == 1
    return (("**Every family of measures puts the same system first:** " if one else
             "**The families of measures:** ") + "; ".join(parts) + ".")


def tests_item(of: Callable[[str], pd.DataFrame]) -> str:
    """The cross-check tests beside the letters' one: how many pairs each separates."""
    rows = of("separated_by_test")
    if rows.empty:
        return ""
    parts = []
    for _, r in rows.iterrows():
        name, _, how = str(r["detail"]).partition(", ")
        parts.append(f"the {escape(name)} separates {int(r['value'])} ({escape(measure_label(r['measure']))}; "
                     f"{escape(how)})")
    return "**Other paired tests over items:** " + join_words(parts, "; ") + "."


def skips_item(of: Callable[[str], pd.DataFrame]) -> str:
    """Every value with skipped (or filled-in) 0/0 labels or items, per measure."""
    rows = pd.concat([of("skipped_labels"), of("skipped_items")])
    if rows.empty:
        return ""
    parts = []
    for measure, own in rows.groupby("measure", sort=False):
        # the system that skips most first (ties in the rows' order): the worst case is always named
        own = own.assign(_k=pd.to_numeric(own["value"], errors="coerce")).sort_values(
            "_k", ascending=False, kind="stable", na_position="last")
        shown = []
        for _, r in own.head(MAX_NAMED).iterrows():
            used, _, readings = str(r["detail"]).partition("; ")      # the other readings of the 0/0 items
            shown.append(f"{escape(r['system'])} {escape(used)}" + (f" ({escape(readings)})" if readings else ""))
        if len(own) > MAX_NAMED:
            shown.append(counted(len(own) - MAX_NAMED, "more system"))
        parts.append(f"{escape(measure_label(measure))}: {join_words(shown, '; ')}")
    return ("**0/0 labels and items:** " + "; ".join(parts)
            + ". Every case: label\\_skips.csv and example\\_skips.csv.")


def not_computed_item(of: Callable[[str], pd.DataFrame]) -> str:
    """What this kind of input has no place for, and why."""
    rows = of("not_computed")
    if rows.empty:
        return ""
    return "**Not computed for this input:** " + "; ".join(escape(d) for d in rows["detail"]) + "."
