"""Short, distinct names for display: a name from the data (a system, class, label or task) that is
too long for the room a chart (or a terminal table) gives it is shortened by keeping its beginning
and its end around an ellipsis, and two different names never look the same once shortened.

Participants' runs often share long beginnings and endings ("UniversityOfSomewhere-NLP-run1-bert-large",
"...-run2-..."; "Polytechnic-of-Southland-IR-run2-..." vs "...-IRx-run2-..."): cutting the end, as
a plain label limit does, makes them identical. :func:`shorten_names` shortens all the names of one
chart together:

1. a name that fits its budget is shown whole;
2. a longer one keeps about half the budget at its beginning and half at its end
   (``"Polytechn…e-ensemble"``);
3. names that would still look alike keep more of the part where they differ: a longer beginning
   (each keeps the first character where it differs from its nearest neighbour, so any two differ
   at the same place), a longer end (the same from the end), or a window from the word where they
   first differ between a short beginning and a short end (``"Poly…IRx-run2…emble"``), whichever
   tells most apart and keeps most of both ends;
4. any name still alike another takes the first other abbreviation of it that no name has taken.

A shown name is always a faithful abbreviation: the original, or its pieces in their order with
each gap replaced by one ``…`` (the first piece a prefix and the last a suffix of the name; at most
two gaps). Widths are counted in narrow-character units (a wide East Asian character counts 2, the
ellipsis 1). Guarantees (tested with hypothesis): the shown names are distinct; each is within the
budget whenever no name contains ``…`` and there are at most ``(m + 1)(m + 2) / 2`` names, where
``m = (budget - 1) // 2`` (45 names for a budget of 17, 120 for 30), because every long name then
has at least that many abbreviations within the budget; beyond that a name with no free
abbreviation left is shown whole (never as another name's text). The result depends only on the
set of names and the budget, not on their order.
"""
from __future__ import annotations

import json
import unicodedata
from collections import defaultdict
from collections.abc import Iterable
from functools import lru_cache

ELLIPSIS = "…"
#: Smallest budget (units): below it a shortened name says too little to be worth showing.
MIN_BUDGET = 5
#: Characters after which a name may be broken into words (the window of step 3 starts at one).
SEPARATORS = frozenset(" -_./:+|,;")
#: Width (px) of one narrow character of an 11 px label, generous (Liberation Sans averages ~6).
CHAR_WIDTH = 6.5

# Advance widths (1/1000 em) of Liberation Sans, metric-compatible with Arial/Helvetica: the
# theme's font (what Vega measures when it applies a label limit).
_WIDTHS = {**dict.fromkeys("ijl'|", 222), **dict.fromkeys("ftI.,:;!/\\[] ", 278), **dict.fromkeys("r-()`", 333),
           **dict.fromkeys("cksvxyzJ*", 500), **dict.fromkeys("abdeghnopqu0123456789_$#?L", 556),
           **dict.fromkeys("FTZ", 611), **dict.fromkeys("ABEKPSVXY&", 667), **dict.fromkeys("CDHNRUw", 722),
           **dict.fromkeys("GOQ", 778), **dict.fromkeys("mM", 833), "W": 944, "%": 889, "@": 1015, ELLIPSIS: 1000}


@lru_cache(maxsize=4096)
def char_units(c: str) -> int:
    """Width of one character in narrow units: 2 for a wide or fullwidth East Asian character."""
    return 2 if unicodedata.east_asian_width(c) in ("W", "F") else 1


def text_units(text: str) -> int:
    """Width of ``text`` in narrow-character units (see :func:`char_units`)."""
    return len(text) if text.isascii() else sum(map(char_units, text))


def text_px(text: str, size: float = 11) -> float:
    """Width (px) of ``text`` in the theme's font (Liberation Sans = Arial metrics) at ``size``;
    a character without a known width counts as a digit (or two, if wide)."""
    return sum(_WIDTHS.get(c, 556 * char_units(c)) for c in text) * size / 1000


def budget_for(px: float, names: Iterable[str] = (), *, size: float = 11) -> int:
    """The budget (units) of names drawn within ``px`` pixels at font ``size``: ``px`` over the
    widest average character of any of ``names`` (each name's width over its units, from the
    font's metrics, plus 5% for rendering), or over :data:`CHAR_WIDTH` without names, after room for
    two ellipses (an em each); never below :data:`MIN_BUDGET`. So a shortened name fits ``px`` as
    drawn and is never cut again."""
    names = [str(n) for n in names if str(n)]
    if names:
        per_unit = max(text_px(n, size) / text_units(n) for n in names) * 1.05
    else:
        per_unit = CHAR_WIDTH * size / 11
    # the ellipsis is a whole em wide but counts one unit: room for the two a name may get
    extra = 2 * max(0.0, text_px(ELLIPSIS, size) * 1.05 - per_unit)
    return max(MIN_BUDGET, int((px - extra) // per_unit))


def _head(name: str, units: int) -> int:
    """Number of leading characters of ``name`` within ``units``."""
    if name.isascii():
        return max(0, min(len(name), units))
    total = 0
    for i, c in enumerate(name):
        total += char_units(c)
        if total > units:
            return i
    return len(name)


def _tail(name: str, units: int) -> int:
    """Number of trailing characters of ``name`` within ``units``."""
    return _head(name[::-1], units)


def _join(*pieces: str) -> str:
    return ELLIPSIS.join(pieces)


def _default(name: str, budget: int) -> str:
    """Beginning and end around one ellipsis, the beginning the smaller half; blanks at the cut dropped."""
    head = _head(name, (budget - 1) // 2)
    tail = _tail(name, budget - 1 - text_units(name[:head]))
    return _join(name[:head].rstrip(), name[len(name) - tail:].lstrip())


def _common_prefix(a: str, b: str) -> int:
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i] == b[i]:
        i += 1
    return i


def _token_end(name: str, i: int) -> int:
    """End of the word that contains position ``i`` (the next separator, or the end of the name)."""
    while i < len(name) and name[i] not in SEPARATORS:
        i += 1
    return i


def _by_prefix(group: list[str], budget: int) -> dict | None:
    """Names of ``group`` with a beginning long enough to tell them apart, and an end; None when no room."""
    group = sorted(group)     # the nearest neighbour of a name (longest common beginning) is next to it
    near = [_common_prefix(a, b) for a, b in zip(group, group[1:])]
    out = {}
    for i, n in enumerate(group):
        need = max(near[max(i - 1, 0):i + 1]) + 1
        if need > len(n) or text_units(n[:need]) + 1 > budget:
            return None
        room = _head(n, budget - 1 - max(3, (budget - 1) // 4))  # keep a few units for the end
        keep = max(need, min(_token_end(n, need), room))   # through the word after the difference
        tail = _tail(n[keep:], budget - 1 - text_units(n[:keep]))
        if keep + tail >= len(n):
            return None
        out[n] = (n[:keep], n[len(n) - tail:])
    return out


def _by_suffix(group: list[str], budget: int) -> dict | None:
    """:func:`_by_prefix` from the end: each name keeps the last character where it differs."""
    rev = _by_prefix([n[::-1] for n in group], budget)
    return None if rev is None else {n[::-1]: (t[::-1], h[::-1]) for n, (h, t) in rev.items()}


def _by_window(group: list[str], budget: int) -> dict | None:
    """A short beginning, a window from where the names of ``group`` first differ, and a short end."""
    edge = max(1, (budget - 2) // 5)
    group = sorted(group)
    first = _common_prefix(group[0], group[-1])     # where the sorted group first differs
    out = {}
    for n in group:
        head = min(_head(n, edge), max(first - 1, 0))
        start = first
        while start > head + 1 and n[start - 1] not in SEPARATORS and first - start < 6:
            start -= 1
        if start <= head:
            return None
        tail = _tail(n[start + 1:], edge)
        end = start + _head(n[start:len(n) - tail], budget - 2 - text_units(n[:head]) - text_units(n[len(n) - tail:]))
        if start <= head or end <= start or end >= len(n) - tail:
            return None
        out[n] = (n[:head], n[start:end], n[len(n) - tail:])
    return out


def _refine(group: list[str], budget: int) -> dict | None:
    """The best of :func:`_by_prefix`, :func:`_by_suffix` and :func:`_by_window` for ``group``."""
    best, best_key = None, None
    for method in (_by_prefix, _by_suffix, _by_window):
        found = method(group, budget)
        if found is None:
            continue
        texts = {n: _join(*pieces) for n, pieces in found.items()}
        key = (len(set(texts.values())), min(min(text_units(p[0]), text_units(p[-1])) for p in found.values()))
        if key[0] > 1 and (best_key is None or key > best_key):
            best, best_key = texts, key
    return best


def _alternatives(name: str, budget: int):
    """Every one-ellipsis abbreviation of ``name`` within ``budget``, longest first."""
    for kept in range(budget - 1, 0, -1):
        for head in sorted(range(kept + 1), key=lambda h: (abs(2 * h - kept), h)):
            tail = kept - head
            if head + tail >= len(name):
                continue
            text = _join(name[:head], name[len(name) - tail:] if tail else "")
            if text_units(text) <= budget:
                yield text


def _collisions(shown: dict, taken: set) -> list[list[str]]:
    groups = defaultdict(list)
    for n, s in shown.items():
        groups[s].append(n)
    return [sorted(g) for s, g in groups.items() if len(g) > 1 or s in taken]


def shorten_names(names: Iterable, budget: int) -> dict[str, str]:
    """``{name: shown}`` for the distinct ``names`` (as strings): each name shortened to at most
    ``budget`` units, the shown names distinct (see the module's docstring for the method and its
    guarantees). ``budget`` must be at least :data:`MIN_BUDGET`."""
    budget = int(budget)
    if budget < MIN_BUDGET:
        raise ValueError(f"shorten_names: budget must be at least {MIN_BUDGET} units; got {budget}")
    return dict(_shorten(tuple(sorted(set(map(str, names)))), budget))


@lru_cache(maxsize=64)     # a report draws the same systems at the same few widths many times
def _shorten(names: tuple, budget: int) -> tuple:
    whole = {n for n in names if text_units(n) <= budget}
    shown = {n: _default(n, budget) for n in names if n not in whole}
    for _ in range(8):    # each round splits the groups of the last one; a few suffice
        groups = _collisions(shown, whole)
        if not groups:
            break
        for group in groups:
            if len(group) < 2:
                continue
            found = _refine(group, budget)
            if found is not None:
                shown.update(found)
    used = set(whole)
    out = {n: n for n in whole}
    for n in names:
        if n in whole:
            continue
        s = shown[n]
        if s in used:
            s = next((a for a in _alternatives(n, budget) if a not in used), n)
        used.add(s)
        out[n] = s
    return tuple(out.items())


def middle_ellipsis(names, limit: int) -> dict:
    """``{name: shown}`` by :func:`shorten_names` with a budget of ``limit`` characters (the name
    this helper had in :mod:`evalreport.charts.multilabel`, where it started)."""
    return shorten_names(names, max(int(limit), MIN_BUDGET))


def label_expr(shown: dict) -> str | None:
    """A Vega expression that draws an axis or header label through ``shown`` (``{value: text}``;
    values not in it keep their label), or None when no value changes. Two arrays and
    ``indexof``: an object lookup would find inherited keys such as ``constructor``."""
    changed = {k: v for k, v in shown.items() if k != v}
    if not changed:
        return None
    keys, texts = json.dumps(list(changed)), json.dumps(list(changed.values()))
    return f"indexof({keys}, datum.value) < 0 ? datum.label : {texts}[indexof({keys}, datum.value)]"
