"""The report's opening findings block: the rows of ``findings.csv`` turned into one Note.

Every sentence is made from those rows (see :mod:`evalreport.analyses.findings` for what each
row means), so the report and the CSV cannot disagree; nothing here is written for a particular
data set. The verdicts are the rows', each from a stated family of Holm-corrected tests: the
leader's separations from the letters' family (all pairs under the primary measure); a measure's
winner is "beyond the bootstrap noise" only when its test against the runner-up holds in the family
of every measure's such test (``winner_noise``), the others are near-ties; a constant predictor that wins and a chance baseline that beats every system are
flagged as a measure rewarding a degenerate prediction; chance level is judged by each system's
interval against the strongest baseline (Monte-Carlo estimates within 2 standard errors of an
exact value set aside). The headline (``Note.text``) stays short; the rest (``Note.details``) is
one click away. Lists read as English (``a, b and c``). Names from the data (systems, classes, baselines) and measure labels go through
:func:`escape` before they enter the Markdown, so a system named ``*x*``, ``[a](http://e.x)`` or
```#x`{=typst}`` shows as written in HTML and in the PDF.
"""
from __future__ import annotations

import re
from collections.abc import Callable

import pandas as pd

from evalreport.report.display import Note
from evalreport.report.rank_summary import ranks_item, verdicts_item
from evalreport.report.summary_details import (
    calibration_sentence,
    families_item,
    not_computed_item,
    skips_item,
    tests_item,
    undefined_items,
    winners_sentence,
)
from evalreport.report.summary_words import (
    MAX_NAMED,
    baseline_text,
    crowns,
    escape,
    join_words,
    measure_label,
    name_list,
    num,
    p_text,
    winner_groups,
)
from evalreport.words import counted

__all__ = ["findings_note"]

#: The headline names at most this many systems the leader is not separated from.
NAMED_INSEPARABLE = 3


def _degenerate_sentence(of) -> str:
    """A constant predictor or chance baseline that wins a measure: the measure rewards a degenerate prediction."""
    out = []
    deg = of("degenerate_winner")
    if len(deg):
        always = of("constant_system").drop_duplicates("system").set_index("system")["detail"]
        for system, one in deg.groupby("system", sort=False):
            kinds = one["detail"].str.split(":").str[0]

            def measures(kind: str, one: pd.DataFrame = one, kinds: pd.Series = kinds) -> list[str]:
                return list(dict.fromkeys(escape(measure_label(m)) for m in one.loc[kinds == kind, "measure"]))

            where = []
            if (kinds == "leader").any():
                where.append(f"leads under the primary measure ({join_words(measures('leader'))})")
            raw, cal = [m for m in measures("winner") if m not in measures("leader")], measures("winner_calibrated")
            both = [m for m in raw if m in cal]
            if both:
                where.append(f"wins under {join_words(both)} before and after prevalence calibration")
            if [m for m in raw if m not in both]:
                where.append(f"wins under {join_words([m for m in raw if m not in both])}")
            if [m for m in cal if m not in both]:
                where.append(f"wins under {join_words([m for m in cal if m not in both])} after prevalence calibration")
            if (kinds == "winner_what_if").any():
                where.append("wins the primary measure under another class distribution ("
                             + join_words(list(dict.fromkeys(escape(d.split(": ", 1)[-1]) for d in
                                                        one.loc[kinds == "winner_what_if", "detail"]))) + ")")
            how = always.get(system, "predicts one class for every item")
            many = one["measure"].nunique() > 1
            out.append(f"**A constant predictor wins:** {escape(system)}, which {escape(how)}, {join_words(where)}: "
                       + ("these measures reward" if many else "this measure rewards")
                       + " the degenerate prediction on this data, so "
                       + ("their rankings say" if many else "its ranking says") + " little about skill here.")
    beats = of("baseline_beats_all")
    if len(beats):
        parts = [f"{escape(measure_label(r['measure']))} ({baseline_text(r['system'])}: {num(r['value'])})"
                 for _, r in beats.iterrows()]
        out.append(f"**A chance baseline beats every system** under {join_words(parts)}: "
                   + ("this measure rewards" if len(beats) == 1 else "these measures reward")
                   + " a prediction without skill on this data.")
    return " ".join(out)


def _chance_sentence(of, alpha: float) -> str:
    """The strongest chance baseline and the systems below it or indistinguishable from it."""
    best = of("baseline_best")
    if best.empty:
        return ""
    best = best.iloc[0]
    exact = str(best["detail"]) == "exact"
    strongest = (f"{baseline_text(best['system'])} ({num(best['value'])}"
                 + (", exact" if exact else f", {escape(str(best['detail']))}") + ")")
    aside = of("baseline_set_aside")
    if len(aside):
        strongest += ("; " + join_words([f"{baseline_text(r['system'])} ({num(r['value'])}, "
                                    f"{escape(str(r['detail']).split(':')[0].split(', ')[-1])})"
                                    for _, r in aside.iterrows()])
                      + (" is a Monte-Carlo estimate" if len(aside) == 1 else " are Monte-Carlo estimates")
                      + " within 2 standard errors of it, so not stronger")
    no_value = of("no_value")
    unvalued = (f" No value under the primary measure, so not compared: {name_list(no_value['system'])}."
                if len(no_value) else "")
    lo = of("interval_lo").drop_duplicates("system").set_index("system")["value"]
    hi = of("interval_hi").drop_duplicates("system").set_index("system")["value"]
    level = f"{100 * (1 - alpha):g}%"

    def listed(rows, with_interval: bool) -> str:
        shown = [f"{escape(r['system'])} ({num(r['value'])}"
                 + (f", interval {num(lo[r['system']])} to {num(hi[r['system']])}"
                    if with_interval and r["system"] in lo.index and r["system"] in hi.index else "") + ")"
                 for _, r in rows.head(MAX_NAMED).iterrows()]
        if len(rows) > MAX_NAMED:
            shown.append(f"{len(rows) - MAX_NAMED} more")
        return join_words(shown, "; ")

    below, level_rows, point = of("below_baseline"), of("chance_level"), of("at_or_below_baseline")
    parts = []
    if len(below):
        parts.append(f"**Below chance** under the primary measure (whole {level} interval below the strongest "
                     f"chance baseline): {listed(below, True)}.")
    if len(level_rows):
        parts.append(f"**Indistinguishable from chance** under the primary measure (the {level} bootstrap interval "
                     f"holds the strongest chance baseline): {listed(level_rows, True)}.")
    if len(point):
        parts.append("**At or below chance** under the primary measure (point values; there are no intervals): "
                     f"{listed(point, False)}.")
    if not parts:
        valued = "with a value " if len(no_value) else ""
        if len(of("leader_lo")):
            return (f"**Chance:** the bootstrap interval of every system {valued}lies above the strongest chance "
                    f"baseline under the primary measure, {strongest}." + unvalued)
        return (f"**Chance:** every system {valued}beats the strongest chance baseline under the primary measure, "
                f"{strongest}." + unvalued)
    return " ".join(parts) + f" The strongest chance baseline is {strongest}." + unvalued


def _leader_item(of, first, plabel: str, alpha: float) -> str:
    """The leader under the primary measure, its interval and P(best)."""
    lead = of("leader")
    value = num(lead["value"].iloc[0])
    if len(lead) > 1:
        return f"**Leader:** {name_list(lead['system'], bold=True)} share first place under {plabel} ({value})."
    s = f"**Leader:** {name_list(lead['system'], bold=True)} under {plabel}: {value}"
    lo, hi, pb = first("leader_lo"), first("leader_hi"), first("p_best")
    extra = []
    if lo is not None and hi is not None:
        extra.append(f"{100 * (1 - alpha):g}% bootstrap interval {num(lo['value'])} to {num(hi['value'])}")
    if pb is not None:
        extra.append(f"ranked first in {100 * float(pb['value']):.0f}% of the resamples, P(best)")
    return s + (f" ({'; '.join(extra)})" if extra else "") + "."


def _separation_item(of, first, alpha: float) -> str:
    """Who the corrected family of pairwise tests separates from the leader, and which family that is."""
    sep = first("separable_count")
    if sep is None:
        return ""
    lead, insep, untested, floor = of("leader"), of("inseparable"), of("untested"), first("p_floor")
    others = insep[~insep["system"].isin(lead["system"])]          # co-leaders are not "other systems"
    n_sep = int(sep["value"])
    who = "the leader" if len(lead) == 1 else "the leaders"
    s = "**Separated from " + who + ":** "
    shown = [f"{escape(r['system'])} ({p_text(float(r['value']))})" if not pd.isna(r["value"])
             else escape(r["system"]) for _, r in others.head(NAMED_INSEPARABLE).iterrows()]
    if len(others) == 0 and (len(insep) == 0 or n_sep > 0):
        s += f"every other {'tested ' if len(untested) else ''}system."
    elif len(others) == 0:          # every system shares first place: no other system to separate
        s += "no other system" + (" (every system shares first place)" if len(lead) > 1 else "") + "."
    elif n_sep == 0 and len(others) > NAMED_INSEPARABLE:
        ps = others["value"].dropna()
        s += (f"none of the other {len(others)} tested systems"
              + (f" (corrected p from {ps.min():.3f} to {ps.max():.3f})" if len(ps) > 1 else "") + ".")
    elif n_sep == 0:
        s += f"none of the other {len(others)} tested systems: not {join_words(shown)}."
    else:
        if len(others) > NAMED_INSEPARABLE:
            shown.append(f"{len(others) - NAMED_INSEPARABLE} more (the leaderboard's letters)")
        s += f"{n_sep} of the other {n_sep + len(others)}; not {join_words(shown)}."
    pairs, n_letters = first("separated_pairs"), first("letters")
    if pairs is not None and n_sep + len(others) > 1:
        s += (f" Of all pairs, {int(pairs['value']):,} {escape(pairs['detail'])} are separated"
              + (f" ({int(n_letters['value'])} letter groups on the leaderboard)" if n_letters is not None
                 and int(n_letters["value"]) > 1 else "") + ".")
    if str(sep["detail"]):
        s += f" Test: {escape(sep['detail'])}."
    if len(untested):
        s += f" Not tested (no value under the primary measure): {name_list(untested['system'])}."
    if len(insep) and floor is not None and float(floor["value"]) >= alpha:
        need = first("resamples_needed")
        s += (f" With {escape(floor['detail'].split(':')[0])}, no corrected p-value can be below "
              f"{float(floor['value']):.3f}, so these tests cannot separate any pair at alpha {alpha:g}: "
              + (f"at least {int(need['value']):,} resamples would be needed." if need is not None
                 else "more resamples would be needed."))
    return s


def _runner_item(of, first, n_items, *, method: bool) -> str:
    """The runner-up's gap (with the letters' verdict) and the fragility count, found by ``method``."""
    lead, runner, noise, frag = of("leader"), first("runner_up"), first("gap_noise"), first("fragility")
    parts = []
    if runner is not None and len(lead) == 1 and not method:
        t = f"The runner-up, {escape(runner['system'])}, is {num(runner['value'])} behind"
        if noise is not None:
            t += " (not separated)" if noise["detail"] == "below noise" else " (separated)"
        parts.append(t + ".")
    if frag is not None and not pd.isna(frag["value"]):
        k = int(frag["value"])
        detail = str(frag["detail"])
        exact = detail.startswith("exact")
        rival = ("the runner-up" if runner is not None and frag["system"] == runner["system"]
                 else escape(frag["system"]))
        if k == 0:
            return "" if method else " ".join(parts + ["**Fragility: 0** (the first place is shared)."])
        t = f"**Fragility: {k if exact else f'at most {k}'} changed prediction{'s' * (k > 1)}**"
        if n_items:
            t += f" of {n_items:,} test items"
        split = re.search(r"leader changes (\d+), challenger changes (\d+)", detail)
        who = [f"{k} predictions"]
        if split:
            a, b = int(split.group(1)), int(split.group(2))
            who = ([f"{a} of the leader's predictions"] if a else []) + ([f"{b} of {rival}'s"] if b else [])
        if method:
            # the whole "how" (e.g. "...; exhaustive search ... finds no shorter one", which makes it exact)
            how = (detail.split(":", 1)[1] if ":" in detail else detail).split("; leader changes")[0].strip()
            return (f"{t}: changing {' and '.join(who)} would bring {rival} level with the leader "
                    f"({'exact' if exact else 'an upper bound'}; {escape(how)}).")
        parts.append(f"{t} would bring {rival} level.")
    return " ".join(parts)


def _measures_item(of, alpha: float, test: str = "paired bootstrap") -> str:
    """Short: how many measures each system wins, and the leads that hold in their corrected family."""
    winners = of("winner")
    groups = winner_groups(winners, "measure")
    if len(groups) < 1:
        return ""
    n = winners["measure"].nunique()
    counts = ", ".join(("tied " if len(w) > 1 else "") + f"{name_list(w, bold=True)} {len(ms)}" for w, ms in groups)
    one = len(groups) == 1
    t = (f"**Every measure** ({n}) crowns {name_list(groups[0][0], bold=True)}" if one else
         f"**Winners of the {n} measures:** {counts}")
    noise = of("winner_noise")
    if noise.empty:
        return t + "."
    clear = noise[noise["detail"] == "beyond noise"]
    rule = (f"each winner against its runner-up: {test}, Holm-corrected over the {len(noise)} "
            f"measures with one winner, alpha {alpha:g}")
    if clear.empty:
        return t + (f"; its lead over the runner-up is within the bootstrap noise under every one ({rule})." if one
                    else f". No winner's lead is beyond the bootstrap noise ({rule}).")
    clear_groups = winner_groups(winners[winners["measure"].isin(clear["measure"])], "measure")
    every = list(dict.fromkeys(winners["measure"]))
    return t + f". Leads beyond the bootstrap noise ({rule}): " + crowns(clear_groups, labels=True, every=every) + "."


def _skipping_item(of: Callable[[str], pd.DataFrame]) -> str:
    """Leaders and winners resting on more skipped (or filled-in) 0/0 labels or items than another system."""
    rows = of("rests_on_skipping")
    if rows.empty:
        return ""
    skipping = rows["detail"].str.startswith("averages only").all()
    parts = [f"{escape(r['system'])}'s {escape(measure_label(r['measure']))} ({num(r['value'])}) {escape(r['detail'])}"
             for _, r in rows.drop_duplicates(["system", "measure"]).iterrows()]
    cases = ("an empty predicted or gold set, a label never predicted or never in the gold sets - of which it "
             "has more than another system")
    return ("**Defined after skipping:** " if skipping else "**Defined with filled-in 0/0 cases:** ") + join_words(
        parts, "; ") + f" (those are its 0/0 cases - {cases})."


def findings_note(rows: pd.DataFrame, *, primary: str, alpha: float = 0.05, n_items: int | None = None,
                  test_name: str = "paired bootstrap") -> Note:
    """The findings block as one Note, from the rows of ``findings.csv``: the headline (a Markdown
    list a reader takes in within a minute) as ``text``, and every other finding (each measure's
    winner and near-ties, calibration, undefined values, how the fragility count was found) as
    ``details``, shown one click away in HTML. ``test_name``: the reader's name of the bootstrap test
    behind the winners' leads (the two-level one with several runs per system)."""
    rows = rows.copy()
    if rows.empty:
        return Note("No findings were computed for this report.")
    rows["detail"] = rows["detail"].fillna("").astype(str) if "detail" in rows else ""
    plabel = escape(measure_label(primary))

    def of(kind):
        return rows[rows["finding"] == kind]

    def first(kind):
        r = of(kind)
        return None if r.empty else r.iloc[0]

    not_avail = first("not_available")
    if of("leader").empty:
        return Note(escape(not_avail["detail"]) if not_avail is not None else "No system has a defined "
                    f"value under {plabel}.")
    chance = _chance_sentence(of, alpha)
    undefined = undefined_items(of)
    from evalreport.report.sections.seeds import seed_spread_sentence
    from evalreport.report.sections.slices import slice_sentence

    headline = [_leader_item(of, first, plabel, alpha), ranks_item(of), _separation_item(of, first, alpha),
                verdicts_item(of),
                seed_spread_sentence(of("seed_spread"), plabel),
                slice_sentence(rows[rows["finding"].isin(["slice_leads", "slice_leader", "slice_dependence"])], plabel),
                _runner_item(of, first, n_items, method=False), _measures_item(of, alpha, test_name), _skipping_item(of),
                _degenerate_sentence(of), chance if not chance.startswith("**Chance:**") else ""]
    if not_avail is not None:
        detail = escape(not_avail["detail"])
        headline.append(f"**Not available:** {detail[:1].upper() + detail[1:]}.")
    noise = first("label_noise")
    if noise is not None:
        headline.append(f"**Label noise:** {escape(noise['detail'])}")
    details = [winners_sentence(of, alpha, test_name), families_item(of), tests_item(of),
               calibration_sentence(of), _runner_item(of, first, n_items, method=True),
               chance if chance.startswith("**Chance:**") else "", *undefined, skips_item(of),
               not_computed_item(of)]
    if undefined:
        cases = counted(len(of('undefined')) + len(of('undefined_skipped')), "(measure, system) case")
        headline.append(f"**Undefined values:** {cases}, listed below.")
    listed = [f"- {i}" for i in details if i]
    return Note("\n".join(f"- {i}" for i in headline if i), details="\n".join(listed) if listed else None,
                summary="More findings: each measure's winner, calibration, undefined values")
