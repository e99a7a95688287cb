"""The report's opening findings block: the rows of ``findings.csv`` turned into one Note.

Every sentence is made from those rows (see :mod:`evalreport.analyses.findings` for what each
row means), so the report and the CSV cannot disagree; nothing here is written for a particular
data set. Names from the data (systems, classes, baselines) and measure labels go through
:func:`escape` before they enter the Markdown, so a system named ``*x*``, ``[a](http://e.x)`` or
```#x`{=typst}`` shows as written in HTML and in the PDF.
"""
from __future__ import annotations

import math
import re

import pandas as pd

from evalreport.measures import get
from evalreport import escape as _escape
from evalreport.report.display import Note

__all__ = ["findings_note", "escape"]

#: At most this many systems are named in one list (the CSV has every row).
MAX_NAMED = 6
#: At most this many measures are listed as undefined.
MAX_UNDEFINED = 4

BASELINE_WORDS = {
    "majority": "always predicting the majority class",
    "uniform": "uniformly random labels",
    "prevalence": "random labels drawn with the gold class shares",
    "fixed_sizes": "randomly permuted gold labels",
    "contingency": "a uniformly random confusion table",
    "trivial_acceptor": "always predicting the positive class",
    "trivial_rejector": "always predicting the negative class",
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


def _names(systems, *, bold: bool = False) -> str:
    names = [escape(s) for s in systems]
    if bold:
        names = [f"**{n}**" for n in names]
    if len(names) > MAX_NAMED:
        names = names[:MAX_NAMED] + [f"{len(systems) - MAX_NAMED} more"]
    if len(names) <= 2:
        return " and ".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


def _baseline(name: str) -> str:
    name = str(name)
    if name.startswith("constant:"):
        return f"always predicting {escape(name.split(':', 1)[1])}"
    return escape(BASELINE_WORDS.get(name, name))


def _short_reason(reason: str) -> str:
    """The first clause of a reason, without its list of classes: ``precision: class never predicted``.

    Structural, not a pattern over class names: a clause is ``text`` or ``text (class a, b)``
    (:func:`evalreport.measures._core._summarise`), so everything from the first ``" (class "``
    on is class names (which may hold ``)`` or ``;``) and the first clause ends before it or at
    the first ``;`` of the text."""
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


def _crowns(groups, *, labels: bool, what: str = "measures") -> str:
    """``A under x, y; B under the other 14 measures (z, ...)``: the smaller groups first."""
    parts = []
    ordered = sorted(groups, key=lambda kv: len(kv[1]))
    for i, (winners, keys) in enumerate(ordered):
        names = ", ".join(escape(_label(k)) if labels else escape(k) for k in keys)
        if i == len(ordered) - 1 and len(ordered) > 1 and len(keys) > 2:
            names = f"the other {len(keys)} {what}"      # the complement of the lists before it
        parts.append(f"{_names(winners, bold=True)} under {names}")
    return "; ".join(parts)


def findings_note(rows: pd.DataFrame, *, primary: str, alpha: float = 0.05, n_items: int | None = None) -> Note:
    """The findings block as one Note (Markdown list), from the rows of ``findings.csv``."""
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

    items: list[str] = []
    lead = of("leader")
    not_avail = first("not_available")
    if lead.empty:
        return Note(escape(not_avail["detail"]) if not_avail is not None else "No system has a defined "
                    f"value under {plabel}.")

    # 1. the leader, how sure, who it cannot be separated from
    value = _num(lead["value"].iloc[0])
    if len(lead) > 1:
        s = f"**Leader:** {_names(lead['system'], bold=True)} share first place under {plabel} ({value})."
    else:
        s = f"**Leader:** {_names(lead['system'], bold=True)} under {plabel}: {value}"
        lo, hi = first("leader_lo"), first("leader_hi")
        if lo is not None and hi is not None:
            s += f" ({100 * (1 - alpha):g}% bootstrap interval {_num(lo['value'])} to {_num(hi['value'])})"
        pb = first("p_best")
        if pb is not None:
            s += f", ranked first in {100 * float(pb['value']):.0f}% of the bootstrap resamples (P(best))"
        s += "."
    insep = of("inseparable")
    sep = first("separable_count")
    if sep is not None:
        floor = first("p_floor")
        untested = of("untested")
        others = insep[~insep["system"].isin(lead["system"])]          # co-leaders are not "other systems"
        if len(insep) and int(sep["value"]) == 0 and len(others) > 2:
            ps = insep["value"].dropna()
            s += (f" The Holm-corrected pairwise tests (alpha {alpha:g}) cannot separate "
                  + ("it" if len(lead) == 1 else f"{_names(lead['system'])} from each other or")
                  + f" from any of the other {len(others)} tested systems"
                  + (f" (corrected p from {ps.min():.3f} to {ps.max():.3f})" if len(ps) else "") + ".")
        elif len(insep):
            pairs = [f"{escape(r['system'])} ({_p(float(r['value']))})" if not pd.isna(r["value"])
                     else escape(r["system"]) for _, r in insep.iterrows()]
            shown = pairs if len(pairs) <= MAX_NAMED else pairs[:MAX_NAMED] + [f"{len(pairs) - MAX_NAMED} more"]
            s += (f" The Holm-corrected pairwise tests (alpha {alpha:g}) cannot separate it from "
                  + (" and ".join(shown) if len(shown) <= 2 else ", ".join(shown[:-1]) + " and " + shown[-1]) + ".")
        else:
            s += (f" The Holm-corrected pairwise tests (alpha {alpha:g}) separate it from every other "
                  + ("tested " if len(untested) else "") + "system.")
        if len(untested):
            s += (f" Not tested (no defined value or no significance group, so neither separated nor inseparable): "
                  f"{_names(untested['system'])}.")
        if len(insep) and floor is not None and float(floor["value"]) >= alpha:
            need = first("resamples_needed")
            s += (f" With {escape(floor['detail'].split(':')[0])}, no corrected p-value can be below "
                  f"{float(floor['value']):.3f}, so these tests cannot separate any pair at alpha {alpha:g}: "
                  + (f"at least {int(need['value']):,} resamples would be needed." if need is not None
                     else "more resamples would be needed."))
    items.append(s)

    # 2. how fragile the top position is, and the gap against the noise
    runner, noise, frag = first("runner_up"), first("gap_noise"), first("fragility")
    parts = []
    if runner is not None and len(lead) == 1:
        t = f"The runner-up, {escape(runner['system'])}, is {_num(runner['value'])} behind"
        if noise is not None:
            below = noise["detail"] == "below noise"
            t += (", a gap within the bootstrap noise" if below else ", a gap larger than the bootstrap noise")
            t += f" (paired bootstrap test, {_p(float(noise['value']))}, uncorrected)"
        parts.append(t + ".")
    if frag is not None and not pd.isna(frag["value"]):
        k = int(frag["value"])
        detail = str(frag["detail"])
        exact = detail.startswith("exact")
        rival = ("the runner-up" if runner is not None and frag["system"] == runner["system"]
                 else escape(frag["system"]))
        if k == 0:
            parts.append("**Fragility: 0** (the first place is shared).")
        else:
            # a change is one item's prediction in one system: one item changed in both systems counts twice
            t = f"**Fragility: {k if exact else f'at most {k}'} changed prediction{'s' * (k > 1)}**"
            if n_items:
                t += f" ({n_items:,} test items)"
            split = re.search(r"leader changes (\d+), challenger changes (\d+)", detail)
            who = [f"{k} predictions"]
            if split:
                a, b = int(split.group(1)), int(split.group(2))
                who = ([f"{a} of the leader's predictions"] if a else []) + ([f"{b} of {rival}'s"] if b else [])
            # the whole "how" (e.g. "...; exhaustive search ... finds no shorter one", which makes it exact)
            method = (detail.split(":", 1)[1] if ":" in detail else detail).split("; leader changes")[0].strip()
            t += (f": changing {' and '.join(who)} would bring {rival} level with the leader "
                  f"({'exact' if exact else 'an upper bound'}; {escape(method)}).")
            parts.append(t)
    if parts:
        items.append(" ".join(parts))

    # 3. does the winner depend on the measure, the calibration, the class distribution?
    winners = of("winner")
    groups = _winner_groups(winners, "measure")
    if groups:
        if len(groups) == 1:
            t = f"**Every measure** ({len(winners['measure'].unique())}) crowns {_names(groups[0][0], bold=True)}."
        else:
            t = "**The winner depends on the measure:** " + _crowns(groups, labels=True) + "."
        cal = _winner_groups(of("winner_calibrated"), "measure")
        if cal:
            if len(cal) == 1:
                t += f" After prevalence calibration every measure crowns {_names(cal[0][0], bold=True)}."
            else:
                t += " After prevalence calibration: " + _crowns(cal, labels=True) + "."
        wi = _winner_groups(of("winner_what_if"), "detail")
        if wi:
            t += (" Under the primary measure with other class distributions: "
                  + _crowns(wi, labels=False, what="distributions") + ".")
        items.append(t)

    # 4. chance baselines
    best = first("baseline_best")
    below = of("at_or_below_baseline")
    if best is not None:
        strongest = f"{_baseline(best['system'])} ({_num(best['value'])})"
        no_value = of("no_value")
        unvalued = (f" No value under the primary measure, so not compared: {_names(no_value['system'])}."
                    if len(no_value) else "")
        if below.empty:
            items.append(f"**Chance:** every system {'with a value ' if len(no_value) else ''}beats the strongest "
                         f"chance baseline under the primary measure, {strongest}." + unvalued)
        else:
            # the baseline's name (detail) and value (its own "baseline" row) are separate fields
            values = of("baseline").drop_duplicates("system").set_index("system")["value"]
            lst = []
            for _, r in below.head(MAX_NAMED).iterrows():
                name = str(r["detail"])
                val = f": {_num(values[name])}" if name in values.index else ""
                lst.append(f"{escape(r['system'])} ({_num(r['value'])}, no better than {_baseline(name)}{val})")
            more = f" and {len(below) - MAX_NAMED} more" if len(below) > MAX_NAMED else ""
            items.append("**At or below chance** under the primary measure: " + "; ".join(lst) + more
                         + f". The strongest chance baseline is {strongest}." + unvalued)

    # 5. undefined values: grouped by the systems concerned, with the short form of each reason
    # (no value at all vs a class average that has a value because undefined classes were skipped)
    for kind, head in (("undefined", "**No value (0/0):** "),
                       ("undefined_skipped", "**Defined after skipping undefined classes:** ")):
        und = of(kind)
        if not len(und):
            continue
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
        items.append(head + "; ".join(parts) + more
                     + ". Every case and its full reason: the table of undefined values and scores.csv.")

    # 6. what this input cannot tell
    if not_avail is not None:
        detail = escape(not_avail["detail"])
        items.append(f"**Not available:** {detail[:1].upper() + detail[1:]}.")
    return Note("\n".join(f"- {i}" for i in items))
