"""The words of the findings block (:mod:`evalreport.report.summary`): names from the data escaped as
literal Markdown, numbers and p-values as text, lists read as English (``a, b and c``), chance
baselines in words, and the "who wins under which measures" phrase shared by the headline and
the details."""
from __future__ import annotations

import math

import pandas as pd

from evalreport import escape as _escape
from evalreport.measures import get

__all__ = ["BASELINE_WORDS", "MAX_NAMED", "baseline_text", "crowns", "differences", "escape", "join_words",
           "measure_label", "name_list", "num", "p_range", "p_text", "short_reason", "winner_groups"]


#: At most this many systems are named in one list (the CSV has every row).
MAX_NAMED = 6

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


def measure_label(measure_id: str) -> str:
    """A measure's label from the registry (the id itself when it has none)."""
    try:
        return get(str(measure_id)).label
    except Exception:
        return str(measure_id)


def num(v, digits: int = 3) -> str:
    """``v`` to ``digits`` decimals, ``n/a`` for None or NaN."""
    return "n/a" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{float(v):.{digits}f}"


def p_text(p: float) -> str:
    """``p = 0.012`` or ``p < 0.001``."""
    return "p < 0.001" if p < 0.001 else f"p = {p:.3f}"


def join_words(items, sep: str = ", ") -> str:
    """English: ``a``, ``a and b``, ``a, b and c`` (``sep`` between all but the last two)."""
    items = list(items)
    if len(items) <= 2:
        return " and ".join(items)
    return sep.join(items[:-1]) + (" and " if sep == ", " else f"{sep}and ") + items[-1]


def name_list(systems, *, bold: bool = False) -> str:
    """Escaped system names as an English list (``bold``: each in bold), the tail beyond ``MAX_NAMED`` counted."""
    names = [escape(s) for s in systems]
    if bold:
        names = [f"**{n}**" for n in names]
    if len(names) > MAX_NAMED:
        names = names[:MAX_NAMED] + [f"{len(systems) - MAX_NAMED} more"]
    return join_words(names)


def differences(values, digits: int = 3) -> str:
    """``difference 0.012`` or ``differences 0.001 to 0.016``."""
    values = [float(v) for v in values]
    lo, hi = min(values), max(values)
    if len(values) == 1 or num(lo, digits) == num(hi, digits):
        return f"difference{'s' * (len(values) > 1)} {num(lo, digits)}"
    return f"differences {num(lo, digits)} to {num(hi, digits)}"


def p_range(ps) -> str:
    """One p-value, or the range of several (``p from 0.002 to 0.040``)."""
    ps = [float(p) for p in ps]
    if len(ps) == 1:
        return p_text(ps[0])
    lo, hi = min(ps), max(ps)
    return p_text(lo) if p_text(lo) == p_text(hi) else f"p from {'below 0.001' if lo < 0.001 else f'{lo:.3f}'} to {hi:.3f}"


def baseline_text(name: str) -> str:
    """A chance baseline in words (``BASELINE_WORDS``; a constant predictor names its class), escaped."""
    name = str(name)
    if name.startswith("constant:"):
        return f"always predicting {escape(name.split(':', 1)[1])}"
    return escape(BASELINE_WORDS.get(name, name))


def short_reason(reason: str) -> str:
    """The first clause of a reason without its class list (``precision: class never predicted``): up to
    the first ``" (class "`` (:func:`evalreport.measures._core._summarise`) or ``;``."""
    text = str(reason)
    cut = text.find(" (class ")
    return (text if cut < 0 else text[:cut]).split(";")[0].strip()


def winner_groups(rows: pd.DataFrame, key: str) -> list[tuple[tuple, list]]:
    """[(winning systems, [keys])] grouped by who wins, the largest group first."""
    if rows.empty:
        return []
    by_key = rows.groupby(key, sort=False)["system"].apply(lambda s: tuple(sorted(dict.fromkeys(s))))
    groups: dict[tuple, list] = {}
    for k, winners in by_key.items():
        groups.setdefault(winners, []).append(k)
    return sorted(groups.items(), key=lambda kv: -len(kv[1]))


#: A group of more measures than MAX_NAMED is said by what it leaves out, when that is at most this many.
MAX_LEFT_OUT = 4


def crowns(groups, *, labels: bool, what: str = "measures", bold: bool = True, every=None) -> str:
    """``A under x and y; B under z; and C under the other 14 measures``: the smaller groups first.
    ``every``: all the keys the sentence is about; a group of more than :data:`MAX_NAMED` of them
    that leaves out at most :data:`MAX_LEFT_OUT` is said as ``every one of the 25 measures but p and q``."""
    parts = []
    ordered = sorted(groups, key=lambda kv: len(kv[1]))
    label = (lambda k: escape(measure_label(k))) if labels else escape
    for i, (winners, keys) in enumerate(ordered):
        names = join_words([label(k) for k in keys])
        left_out = [k for k in every if k not in set(keys)] if every is not None else None
        if i == len(ordered) - 1 and len(ordered) > 1 and len(keys) > 2:
            names = f"the other {len(keys)} {what}"      # the complement of the lists before it
        elif left_out is not None and len(keys) > MAX_NAMED and 0 < len(left_out) <= MAX_LEFT_OUT:
            names = (f"{len(keys)} of the {len(keys) + len(left_out)} {what}, all but "
                     + join_words([label(k) for k in left_out]))
        parts.append(f"{name_list(winners, bold=bold)} under {names}")
    return join_words(parts, "; ")
