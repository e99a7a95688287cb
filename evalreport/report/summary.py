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

import math
import re
from collections.abc import Callable

import pandas as pd

from evalreport import escape as _escape
from evalreport.measures import get
from evalreport.report.display import Note
from evalreport.report.rank_summary import ranks_item, verdicts_item
from evalreport.words import counted

__all__ = ["findings_note", "escape"]

#: At most this many systems are named in one list (the CSV has every row).
MAX_NAMED = 6
#: The headline names at most this many systems the leader is not separated from.
NAMED_INSEPARABLE = 3
#: At most this many measures are listed as undefined.
MAX_UNDEFINED = 4

BASELINE_WORDS = {
    "majority": "always predicting the majority class",
    "uniform": "uniformly random labels",
    "prevalence": "random labels at the gold prevalence",
    "fixed_sizes": "randomly permuted gold labels",
    "contingency": "a random table",
    "trivial_acceptor": "always predicting the positive class",
    "trivial_rejector": "always predicting the negative class",
    "label_frequency": "each label at its gold frequency",
    "empty_set": "the empty set for every item",
    "most_frequent_set": "the most frequent gold set for every item",
    "random_scores": "scores independent of the gold class",
    "prevalence_forecast": "the gold class shares as every item's probabilities",
}


def escape(text) -> str:
    """Text from the data as literal Markdown (:func:`evalreport.escape.markdown`: every
    ASCII punctuation character backslash-escaped, whitespace runs made one space)."""
    return _escape.markdown(text)


def _label(measure_id: str) -> str:
    try:
        return get(str(measure_id)).label
    except Exception:
        return str(measure_id)


def _num(v, digits: int = 3) -> str:
    return "n/a" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{float(v):.{digits}f}"


def _p(p: float) -> str:
    return "p < 0.001" if p < 0.001 else f"p = {p:.3f}"


def _join(items, sep: str = ", ") -> str:
    """English: ``a``, ``a and b``, ``a, b and c`` (``sep`` between all but the last two)."""
    items = list(items)
    if len(items) <= 2:
        return " and ".join(items)
    return sep.join(items[:-1]) + (" and " if sep == ", " else f"{sep}and ") + items[-1]


def _names(systems, *, bold: bool = False) -> str:
    names = [escape(s) for s in systems]
    if bold:
        names = [f"**{n}**" for n in names]
    if len(names) > MAX_NAMED:
        names = names[:MAX_NAMED] + [f"{len(systems) - MAX_NAMED} more"]
    return _join(names)


def _differences(values, digits: int = 3) -> str:
    """``difference 0.012`` or ``differences 0.001 to 0.016``."""
    values = [float(v) for v in values]
    lo, hi = min(values), max(values)
    if len(values) == 1 or _num(lo, digits) == _num(hi, digits):
        return f"difference{'s' * (len(values) > 1)} {_num(lo, digits)}"
    return f"differences {_num(lo, digits)} to {_num(hi, digits)}"


def _p_range(ps) -> str:
    ps = [float(p) for p in ps]
    if len(ps) == 1:
        return _p(ps[0])
    lo, hi = min(ps), max(ps)
    return _p(lo) if _p(lo) == _p(hi) else f"p from {'below 0.001' if lo < 0.001 else f'{lo:.3f}'} to {hi:.3f}"


def _baseline(name: str) -> str:
    name = str(name)
    if name.startswith("constant:"):
        return f"always predicting {escape(name.split(':', 1)[1])}"
    return escape(BASELINE_WORDS.get(name, name))


def _short_reason(reason: str) -> str:
    """The first clause of a reason without its class list (``precision: class never predicted``): up to
    the first ``" (class "`` (:func:`evalreport.measures._core._summarise`) or ``;``."""
    text = str(reason)
    cut = text.find(" (class ")
    return (text if cut < 0 else text[:cut]).split(";")[0].strip()


def _winner_groups(rows: pd.DataFrame, key: str) -> list[tuple[tuple, list]]:
    """[(winning systems, [keys])] grouped by who wins, the largest group first."""
    if rows.empty:
        return []
    by_key = rows.groupby(key, sort=False)["system"].apply(lambda s: tuple(sorted(dict.fromkeys(s))))
    groups: dict[tuple, list] = {}
    for k, winners in by_key.items():
        groups.setdefault(winners, []).append(k)
    return sorted(groups.items(), key=lambda kv: -len(kv[1]))


def _crowns(groups, *, labels: bool, what: str = "measures", bold: bool = True) -> str:
    """``A under x and y; B under z; and C under the other 14 measures``: the smaller groups first."""
    parts = []
    ordered = sorted(groups, key=lambda kv: len(kv[1]))
    for i, (winners, keys) in enumerate(ordered):
        names = _join([escape(_label(k)) if labels else escape(k) for k in keys])
        if i == len(ordered) - 1 and len(ordered) > 1 and len(keys) > 2:
            names = f"the other {len(keys)} {what}"      # the complement of the lists before it
        parts.append(f"{_names(winners, bold=bold)} under {names}")
    return _join(parts, "; ")


def _winners_sentence(of: Callable[[str], pd.DataFrame], alpha: float, test: str = "paired bootstrap") -> str:
    """Who wins under each measure, for the details (rows ``winner``, ``winner_margin``,
    ``winner_noise``): the headline names the leads beyond the paired bootstrap noise, so this
    sentence starts at the near-ties, then the ties for first and the untested winners."""
    winners = of("winner")
    groups = _winner_groups(winners, "measure")
    if not groups:
        return ""
    noise = of("winner_noise").set_index("measure")
    margin = of("winner_margin").set_index("measure")
    n_measures = len(winners["measure"].unique())
    if noise.empty:              # no resampling: the winners as they are (the last bullet says why)
        if len(groups) == 1:
            return f"**Every measure** ({n_measures}) crowns {_names(groups[0][0], bold=True)}."
        return "**The winner depends on the measure:** " + _crowns(groups, labels=True) + "."
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
        t = f"**Every measure** ({n_measures}) crowns {_names(sorted(everyone), bold=True)}"
        if near:
            t += (f"; under {_join([escape(_label(m)) for m in near])} its lead over the runner-up is within the "
                  f"bootstrap noise ({_differences(margin.loc[near, 'value'])}; {rule}: "
                  f"{_p_range(noise.loc[near, 'value'])})")
        return t + "." + _primary_family_clause(of, near)
    t = ""
    if near:
        near_groups = _winner_groups(winners[winners["measure"].isin(near)], "measure")
        noise_words = (f"within the bootstrap noise ({_differences(margin.loc[near, 'value'])}; corrected "
                       f"{_p_range(noise.loc[near, 'value'])})")
        t += (f"**Near-ties** ({rule}): " + _crowns(near_groups, labels=True, bold=False, what="near-tied measures")
              + f"; each lead over the runner-up {noise_words}")
        t += ("; these measures do not separate their first two systems." if len(near) > 1 else
              "; this measure does not separate its first two systems.")
        t += _primary_family_clause(of, near)
    if tied:
        shown = _join([f"{_names(by_measure[m])} under {escape(_label(m))}" for m in tied], "; ")
        t += (" " if t else "") + f"Tied for first: {shown}."
    if untested:
        shown = _crowns(_winner_groups(winners[winners["measure"].isin(untested)], "measure"), labels=True,
                        bold=False, what="untested measures")
        t += ((" " if t else "") + "Not tested against a runner-up (no other system has a value, or no resample "
              f"defines both): {shown}.")
    return t


def _primary_family_clause(of, near) -> str:
    """Where the primary measure is a near-tie among the measures but the leaderboard's family (all pairs
    under the primary measure) separates the same two systems: why the two verdicts differ."""
    gap = of("gap_noise")
    if gap.empty or str(gap["detail"].iloc[0]) != "beyond noise" or gap["measure"].iloc[0] not in set(near):
        return ""
    return (f" Under {escape(_label(gap['measure'].iloc[0]))}, the primary measure, the leaderboard's tests (all pairs "
            "under that measure) do separate the first two: among every measure's winner test the same difference "
            "is corrected for more tests.")


def _degenerate_sentence(of) -> str:
    """A constant predictor among the systems that wins or leads a measure, or a chance baseline
    better than every system: a measure that rewards the degenerate prediction on this data."""
    out = []
    deg = of("degenerate_winner")
    if len(deg):
        always = of("constant_system").drop_duplicates("system").set_index("system")["detail"]
        for system, one in deg.groupby("system", sort=False):
            kinds = one["detail"].str.split(":").str[0]

            def measures(kind: str, one: pd.DataFrame = one, kinds: pd.Series = kinds) -> list[str]:
                return list(dict.fromkeys(escape(_label(m)) for m in one.loc[kinds == kind, "measure"]))

            where = []
            if (kinds == "leader").any():
                where.append(f"leads under the primary measure ({_join(measures('leader'))})")
            raw, cal = [m for m in measures("winner") if m not in measures("leader")], measures("winner_calibrated")
            both = [m for m in raw if m in cal]
            if both:
                where.append(f"wins under {_join(both)} before and after prevalence calibration")
            if [m for m in raw if m not in both]:
                where.append(f"wins under {_join([m for m in raw if m not in both])}")
            if [m for m in cal if m not in both]:
                where.append(f"wins under {_join([m for m in cal if m not in both])} after prevalence calibration")
            if (kinds == "winner_what_if").any():
                where.append("wins the primary measure under another class distribution ("
                             + _join(list(dict.fromkeys(escape(d.split(": ", 1)[-1]) for d in
                                                        one.loc[kinds == "winner_what_if", "detail"]))) + ")")
            how = always.get(system, "predicts one class for every item")
            many = one["measure"].nunique() > 1
            out.append(f"**A constant predictor wins:** {escape(system)}, which {escape(how)}, {_join(where)}: "
                       + ("these measures reward" if many else "this measure rewards")
                       + " the degenerate prediction on this data, so "
                       + ("their rankings say" if many else "its ranking says") + " little about skill here.")
    beats = of("baseline_beats_all")
    if len(beats):
        parts = [f"{escape(_label(r['measure']))} ({_baseline(r['system'])}: {_num(r['value'])})"
                 for _, r in beats.iterrows()]
        out.append(f"**A chance baseline beats every system** under {_join(parts)}: "
                   + ("this measure rewards" if len(beats) == 1 else "these measures reward")
                   + " a prediction without skill on this data.")
    return " ".join(out)


def _chance_sentence(of, alpha: float) -> str:
    """The strongest chance baseline and the systems below it, indistinguishable from it (their
    bootstrap interval holds it) or, without intervals, at or below it."""
    best = of("baseline_best")
    if best.empty:
        return ""
    best = best.iloc[0]
    exact = str(best["detail"]) == "exact"
    strongest = (f"{_baseline(best['system'])} ({_num(best['value'])}"
                 + (", exact" if exact else f", {escape(str(best['detail']))}") + ")")
    aside = of("baseline_set_aside")
    if len(aside):
        strongest += ("; " + _join([f"{_baseline(r['system'])} ({_num(r['value'])}, "
                                    f"{escape(str(r['detail']).split(':')[0].split(', ')[-1])})"
                                    for _, r in aside.iterrows()])
                      + (" is a Monte-Carlo estimate" if len(aside) == 1 else " are Monte-Carlo estimates")
                      + " within 2 standard errors of it, so not stronger")
    no_value = of("no_value")
    unvalued = (f" No value under the primary measure, so not compared: {_names(no_value['system'])}."
                if len(no_value) else "")
    lo = of("interval_lo").drop_duplicates("system").set_index("system")["value"]
    hi = of("interval_hi").drop_duplicates("system").set_index("system")["value"]
    level = f"{100 * (1 - alpha):g}%"

    def listed(rows, with_interval: bool) -> str:
        shown = [f"{escape(r['system'])} ({_num(r['value'])}"
                 + (f", interval {_num(lo[r['system']])} to {_num(hi[r['system']])}"
                    if with_interval and r["system"] in lo.index and r["system"] in hi.index else "") + ")"
                 for _, r in rows.head(MAX_NAMED).iterrows()]
        if len(rows) > MAX_NAMED:
            shown.append(f"{len(rows) - MAX_NAMED} more")
        return _join(shown, "; ")

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
    value = _num(lead["value"].iloc[0])
    if len(lead) > 1:
        return f"**Leader:** {_names(lead['system'], bold=True)} share first place under {plabel} ({value})."
    s = f"**Leader:** {_names(lead['system'], bold=True)} under {plabel}: {value}"
    lo, hi, pb = first("leader_lo"), first("leader_hi"), first("p_best")
    extra = []
    if lo is not None and hi is not None:
        extra.append(f"{100 * (1 - alpha):g}% bootstrap interval {_num(lo['value'])} to {_num(hi['value'])}")
    if pb is not None:
        extra.append(f"ranked first in {100 * float(pb['value']):.0f}% of the resamples, P(best)")
    return s + (f" ({'; '.join(extra)})" if extra else "") + "."


def _separation_item(of, first, alpha: float) -> str:
    """Who the corrected family of pairwise tests separates from the leader, across all pairs, and
    which family that is."""
    sep = first("separable_count")
    if sep is None:
        return ""
    lead, insep, untested, floor = of("leader"), of("inseparable"), of("untested"), first("p_floor")
    others = insep[~insep["system"].isin(lead["system"])]          # co-leaders are not "other systems"
    n_sep = int(sep["value"])
    who = "the leader" if len(lead) == 1 else "the leaders"
    s = "**Separated from " + who + ":** "
    shown = [f"{escape(r['system'])} ({_p(float(r['value']))})" if not pd.isna(r["value"])
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
        s += f"none of the other {len(others)} tested systems: not {_join(shown)}."
    else:
        if len(others) > NAMED_INSEPARABLE:
            shown.append(f"{len(others) - NAMED_INSEPARABLE} more (the leaderboard's letters)")
        s += f"{n_sep} of the other {n_sep + len(others)}; not {_join(shown)}."
    pairs, n_letters = first("separated_pairs"), first("letters")
    if pairs is not None and n_sep + len(others) > 1:
        s += (f" Of all pairs, {int(pairs['value']):,} {escape(pairs['detail'])} are separated"
              + (f" ({int(n_letters['value'])} letter groups on the leaderboard)" if n_letters is not None
                 and int(n_letters["value"]) > 1 else "") + ".")
    if str(sep["detail"]):
        s += f" Test: {escape(sep['detail'])}."
    if len(untested):
        s += f" Not tested (no value under the primary measure): {_names(untested['system'])}."
    if len(insep) and floor is not None and float(floor["value"]) >= alpha:
        need = first("resamples_needed")
        s += (f" With {escape(floor['detail'].split(':')[0])}, no corrected p-value can be below "
              f"{float(floor['value']):.3f}, so these tests cannot separate any pair at alpha {alpha:g}: "
              + (f"at least {int(need['value']):,} resamples would be needed." if need is not None
                 else "more resamples would be needed."))
    return s


def _runner_item(of, first, n_items, *, method: bool) -> str:
    """The runner-up's gap (with the letters' verdict on it) and the fragility count; ``method``:
    how the count was found (the details say it, the headline does not)."""
    lead, runner, noise, frag = of("leader"), first("runner_up"), first("gap_noise"), first("fragility")
    parts = []
    if runner is not None and len(lead) == 1 and not method:
        t = f"The runner-up, {escape(runner['system'])}, is {_num(runner['value'])} behind"
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
    groups = _winner_groups(winners, "measure")
    if len(groups) < 1:
        return ""
    n = winners["measure"].nunique()
    counts = ", ".join(("tied " if len(w) > 1 else "") + f"{_names(w, bold=True)} {len(ms)}" for w, ms in groups)
    one = len(groups) == 1
    t = (f"**Every measure** ({n}) crowns {_names(groups[0][0], bold=True)}" if one else
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
    clear_groups = _winner_groups(winners[winners["measure"].isin(clear["measure"])], "measure")
    return t + f". Leads beyond the bootstrap noise ({rule}): " + _crowns(clear_groups, labels=True) + "."


def _undefined_items(of) -> list[str]:
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
            shown = [escape(_label(m)) for m in ms[:MAX_NAMED]] + ([f"{len(ms) - MAX_NAMED} more"]
                                                                   if len(ms) > MAX_NAMED else [])
            reasons = list(dict.fromkeys(_short_reason(r) for r in und[und["measure"].isin(ms)]["detail"] if r))
            why = "; ".join(escape(r) for r in reasons[:3])
            if len(reasons) > 3:
                why += f"; {len(reasons) - 3} more reason{'s' * (len(reasons) > 4)}"
            parts.append(f"{', '.join(shown)} for {_names(systems)}" + (f" ({why})" if why else ""))
        more = f"; {len(groups) - MAX_UNDEFINED} more groups" if len(groups) > MAX_UNDEFINED else ""
        items.append(head + "; ".join(parts) + more + ".")
    if items:
        items[-1] += " Every case and its full reason: the table of undefined values and scores.csv."
    return items


def _skipped_head(of: Callable[[str], pd.DataFrame], measures: pd.Series) -> str:
    """Label sets: the heading of the values defined because 0/0 labels (label averages) or items
    (example-based measures) were left out, naming what was left out; "" for single labels, whose
    skipped cases are classes (the ``skipped_labels`` / ``skipped_items`` rows say which it is)."""
    labels, items = set(of("skipped_labels")["measure"]), set(of("skipped_items")["measure"])
    if not labels and not items:
        return ""
    own = set(measures)
    noun = "labels" if own <= labels else "items" if own <= items else "labels or items"
    return f"**Values that leave out their 0/0 {noun}:** "


def _calibration_sentence(of) -> str:
    """Who wins after prevalence calibration (of the whole matrix, or of each label's own 2 x 2
    matrix for label sets), how many systems it moves, and who wins under the what-if class
    distributions."""
    t = ""
    rows = of("winner_calibrated")
    cal = _winner_groups(rows, "measure")
    after = "After " + ("per-label " if (rows["detail"] == "per label").any() else "") + "prevalence calibration"
    if len(cal) == 1:
        t += f"{after} every measure crowns {_names(cal[0][0], bold=True)}."
    elif cal:
        t += f"{after}: " + _crowns(cal, labels=True) + "."
    for _, r in of("calibration_rank_changes").iterrows():
        k = int(r["value"])
        t += (f" Under {escape(_label(r['measure']))} {k} system{'s' * (k != 1)} change{'s' * (k == 1)} rank "
              f"({escape(r['detail'])}).")
    wi = _winner_groups(of("winner_what_if"), "detail")
    if wi:
        t += (" Under the primary measure with other class distributions: "
              + _crowns(wi, labels=False, what="distributions") + ".")
    return t.strip()


def _families_item(of: Callable[[str], pd.DataFrame]) -> str:
    """Label sets: the systems each family of measures (label-based, example-based: the winner rows'
    detail) crowns, and in how many of its measures."""
    winners = of("winner")
    winners = winners[winners["detail"] != ""]
    if winners.empty:
        return ""
    parts = []
    for family, own in winners.groupby("detail", sort=False):
        total = own["measure"].nunique()
        parts.append(f"the {escape(family)} measures crown " + _join(
            [f"{_names(w, bold=True)}{' tied' if len(w) > 1 else ''} ({len(ms)} of {total})"
             for w, ms in _winner_groups(own, "measure")]))
    one = winners["system"].nunique() == 1
    return (("**Every family of measures puts the same system first:** " if one else
             "**The families of measures:** ") + "; ".join(parts) + ".")


def _tests_item(of: Callable[[str], pd.DataFrame]) -> str:
    """The cross-check tests beside the letters' one: how many pairs each separates."""
    rows = of("separated_by_test")
    if rows.empty:
        return ""
    parts = []
    for _, r in rows.iterrows():
        name, _, how = str(r["detail"]).partition(", ")
        parts.append(f"the {escape(name)} separates {int(r['value'])} ({escape(_label(r['measure']))}; "
                     f"{escape(how)})")
    return "**Other paired tests over items:** " + _join(parts, "; ") + "."


def _skipping_item(of: Callable[[str], pd.DataFrame]) -> str:
    """Leaders and winners whose value rests on more skipped (or filled-in) 0/0 labels or items than
    another system's under the same measure."""
    rows = of("rests_on_skipping")
    if rows.empty:
        return ""
    skipping = rows["detail"].str.startswith("averages only").all()
    parts = [f"{escape(r['system'])}'s {escape(_label(r['measure']))} ({_num(r['value'])}) {escape(r['detail'])}"
             for _, r in rows.drop_duplicates(["system", "measure"]).iterrows()]
    cases = ("an empty predicted or gold set, a label never predicted or never in the gold sets - of which it "
             "has more than another system")
    return ("**Defined after skipping:** " if skipping else "**Defined with filled-in 0/0 cases:** ") + _join(
        parts, "; ") + f" (those are its 0/0 cases - {cases})."


def _skips_item(of: Callable[[str], pd.DataFrame]) -> str:
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
        parts.append(f"{escape(_label(measure))}: {_join(shown, '; ')}")
    return ("**0/0 labels and items:** " + "; ".join(parts)
            + ". Every case: label\\_skips.csv and example\\_skips.csv.")


def _not_computed_item(of: Callable[[str], pd.DataFrame]) -> str:
    """What this kind of input has no place for, and why."""
    rows = of("not_computed")
    if rows.empty:
        return ""
    return "**Not computed for this input:** " + "; ".join(escape(d) for d in rows["detail"]) + "."


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
    plabel = escape(_label(primary))

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
    undefined = _undefined_items(of)
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
    details = [_winners_sentence(of, alpha, test_name), _families_item(of), _tests_item(of),
               _calibration_sentence(of), _runner_item(of, first, n_items, method=True),
               chance if chance.startswith("**Chance:**") else "", *undefined, _skips_item(of),
               _not_computed_item(of)]
    if undefined:
        cases = counted(len(of('undefined')) + len(of('undefined_skipped')), "(measure, system) case")
        headline.append(f"**Undefined values:** {cases}, listed below.")
    listed = [f"- {i}" for i in details if i]
    return Note("\n".join(f"- {i}" for i in headline if i), details="\n".join(listed) if listed else None,
                summary="More findings: each measure's winner, calibration, undefined values")
