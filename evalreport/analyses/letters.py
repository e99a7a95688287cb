"""The compact letter display of all-pairwise comparisons (Piepho 2004).

Piepho, H.-P. (2004). An algorithm for a letter-based representation of all-pairwise comparisons.
Journal of Computational and Graphical Statistics 13(2), 456-466: the *insert-and-absorb*
algorithm, followed by its *sweeping* step.

A letter display of a symmetric "separated" relation over systems (here: a corrected pairwise
test rejects at alpha) gives each system a set of letters such that

1. two separated systems share no letter,
2. two systems that are not separated share at least one letter,
3. no letter is redundant: removing any letter from any system breaks 2 (or leaves a system
   without a letter).

Insert: start with one letter held by every system; for each separated pair (i, j), every
letter held by both is split into two: one without i, one without j. Absorb: drop every letter
whose holders are a subset of another letter's holders. Sweep: drop a system from a letter
when every pair the letter connects it to is connected by another letter as well; repeated with
absorption until nothing changes. Pairs are inserted and letters swept in the order of the
systems (best first), and letters are named a, b, ... in the order of their best holder, so
the best system has 'a'.
"""
from __future__ import annotations

import string
from collections.abc import Iterable, Sequence

import numpy as np

__all__ = ["letter_matrix", "letter_names", "compact_letters", "letter_set", "shares_letter", "check_letters",
           "letters_sentence", "TEST_NAMES", "RANGE", "has_range", "range_sentence"]


def _packed(cols: np.ndarray) -> np.ndarray:
    """Each letter's holders as bits, in 64-bit words: ``(letters, words)``."""
    bits = np.packbits(cols, axis=1)
    pad = -bits.shape[1] % 8
    if pad:
        bits = np.concatenate([bits, np.zeros((bits.shape[0], pad), dtype=np.uint8)], axis=1)
    return np.ascontiguousarray(bits).view(np.uint64)


def _within(inner: np.ndarray, outer: np.ndarray) -> np.ndarray:
    """``[p, q]``: the holders of letter ``inner[p]`` are all holders of ``outer[q]`` (exact, on bits)."""
    x, y = _packed(inner), _packed(outer)
    return ~(x[:, None, :] & ~y[None, :, :]).any(axis=2)


def _absorb(cols: np.ndarray) -> np.ndarray:
    """Drop every column (letter) whose holders are a subset of another column's."""
    if len(cols) < 2:
        return cols
    sub = _within(cols, cols)                        # sub[p, q]: holders(p) within holders(q)
    np.fill_diagonal(sub, False)
    equal = sub & sub.T
    below = np.tril(np.ones_like(sub), -1)            # of equal columns keep the first
    drop = (sub & ~equal).any(axis=1) | (equal & below).any(axis=1)
    return cols[~drop]


def _insert_absorb(sep: np.ndarray) -> np.ndarray:
    """Piepho's insert and absorb steps: the letters (letters x systems, bool) before sweeping.

    Piepho inserts one separated pair (i, j) at a time: every letter held by both splits into one
    without i and one without j, and a letter within another is absorbed. Here the pairs of one
    system i with every later j it is separated from (the set J) are inserted at once: a letter
    held by i and by a member of J splits into one without i and one without J. Both ways end with
    the same letters, for any order of the pairs: the maximal sets of systems no two of which are
    separated (each step turns the maximal such sets of the relation so far into those of the
    relation with the new pairs: a maximal set either lacks i, or holds i and no member of J). The
    letters before a split are an antichain (none within another), so only the new halves can be
    absorbed, by the other letters or by each other."""
    S = sep.shape[0]
    cols = np.ones((1, S), dtype=bool)
    for i in range(S):
        J = sep[i].copy()
        J[: i + 1] = False
        hit = cols[:, i] & (cols & J).any(axis=1)
        if not hit.any():
            continue
        without_i, without_J = cols[hit].copy(), cols[hit] & ~J
        without_i[:, i] = False
        rest, new = cols[~hit], np.concatenate([without_i, without_J])
        within = _within(new, np.concatenate([rest, new]))     # new letter p held only by holders of letter q
        R, m = len(rest), len(new)
        among = within[:, R:]
        np.fill_diagonal(among, False)
        first = np.tril(np.ones((m, m), dtype=bool), -1)              # of equal halves keep the first
        drop = within[:, :R].any(axis=1) | (among & ~among.T).any(axis=1) | (among & among.T & first).any(axis=1)
        cols = np.concatenate([rest, new[~drop]])
    return cols


def _ordered(cols: np.ndarray) -> np.ndarray:
    """Letters in the order of their holders (best holder first, then the next ones)."""
    key = [tuple(np.flatnonzero(col)) for col in cols]
    return cols[sorted(range(len(cols)), key=key.__getitem__)]


def _sweep(cols: np.ndarray) -> tuple[np.ndarray, bool]:
    """Remove, one at a time, a system from a letter when every system that letter links it to
    (itself included, which stands for "it keeps another letter") shares another letter with it.

    Within one letter the steps do not depend on each other, so each letter's are taken at once:
    ``shared[t, u]`` (the letters t and u both hold) changes only when t or u leaves the letter, and
    a holder u that shares no other letter with t (``shared[t, u] == 1``) cannot leave it before t's
    turn (t is such a holder for u), so t's test on the holders left at its turn has the outcome of
    its test on all the holders at the letter's start."""
    cols = cols.copy()
    counts = cols.astype(np.float32)        # exact: a count of letters is far below 2**24
    shared = np.rint(counts.T @ counts).astype(np.int64)
    changed = False
    for c in range(len(cols)):              # each step depends on the letters before it
        held = np.flatnonzero(cols[c])
        maybe = held[shared[held, held] >= 2]          # a system holding no other letter keeps this one
        if not len(maybe):
            continue
        drop = maybe[shared[maybe[:, None], held].min(axis=1) >= 2]
        if len(drop):
            cols[c, drop] = False
            kept = held[cols[c, held]]
            shared[drop[:, None], held] -= 1         # the pairs letter c no longer links, once each
            shared[kept[:, None], drop] -= 1
            changed = True
    return cols, changed


#: How a sentence names each pairwise test (:mod:`evalreport.analyses.significance`).
TEST_NAMES = {"bootstrap": "paired bootstrap", "randomization": "approximate randomisation", "mcnemar": "McNemar"}
#: The bootstrap test's name with several runs per system: each resample draws runs, then items
#: (:mod:`evalreport.analyses.seeds`).
TWO_LEVEL_TEST = "two-level bootstrap (runs, then items)"
#: The same with clustered items (``--cluster-col``): each resample draws runs, then whole clusters
#: (:mod:`evalreport.analyses.seed_clusters`).
TWO_LEVEL_CLUSTER_TEST = "two-level bootstrap (runs, then clusters)"
#: The bootstrap test's name with clustered items and one run per system: each resample draws whole clusters.
CLUSTER_TEST = "paired cluster bootstrap"
_CORRECTED = {"holm": "Holm-corrected", "bh": "Benjamini-Hochberg-adjusted", "none": "uncorrected"}


def letters_sentence(test: str = "bootstrap", alpha: float = 0.05, correction: str = "holm") -> str:
    """What the letters mean, in one sentence for a caption."""
    return (f"Systems sharing a letter are not separated by the {TEST_NAMES.get(test, test)} test "
            f"({_CORRECTED.get(correction, correction)}{' over all pairs' * (correction != 'none')}, "
            f"alpha = {float(alpha):g}); systems with no letter in "
            "common are.")


def letter_matrix(separated: np.ndarray) -> np.ndarray:
    """The letters of a compact letter display as a boolean matrix (letters x systems).

    ``separated``: a symmetric boolean (S, S) matrix, systems in display order (best first);
    the diagonal is ignored. Letters come in the order of their best holder (then the next ones),
    so the first system holds the first letter. Piepho (2004), insert, absorb and sweep.
    """
    sep = np.asarray(separated, dtype=bool)
    S = sep.shape[0]
    if sep.shape != (S, S) or not np.array_equal(sep, sep.T):
        raise ValueError("separated must be a symmetric square matrix")
    if S == 0:
        return np.zeros((0, 0), dtype=bool)
    cols = _ordered(_insert_absorb(sep))          # sorted first: the sweep's result depends on the order
    changed = True
    while changed:
        cols, changed = _sweep(cols)
        cols = _absorb(cols[cols.any(axis=1)])
    return _ordered(cols)


def letter_names(n: int) -> list[str]:
    """``n`` letter names: a-z, then A-Z, then a1, b1, ... (a name of more than one character is
    shown with commas between the letters, see :func:`compact_letters`)."""
    alphabet = string.ascii_lowercase + string.ascii_uppercase
    return [alphabet[k] if k < len(alphabet) else f"{alphabet[k % len(alphabet)]}{k // len(alphabet)}"
            for k in range(n)]


def compact_letters(separated: np.ndarray, *, tested: Sequence[bool] | np.ndarray | None = None) -> list[str]:
    """Each system's letters as a string ("a", "ab", ...), systems in the order of ``separated``.

    ``tested``: False for a system with no defined test; it gets no letter ("") and is left out
    of the display. With at most 52 letters (one character each) single letters are written run
    together and four or more consecutive letters as a range, the ranges set off by commas
    (``"ab,C\u2013T"``: a, b and every letter from C to T). With more letters the names have two
    characters, a system's letters are joined by commas, and three or more consecutive letters are
    written as a range (``K\u2013h1``: K to h1). :func:`letter_set` reads every form back.
    """
    sep = np.asarray(separated, dtype=bool)
    S = sep.shape[0]
    ok = np.ones(S, dtype=bool) if tested is None else np.asarray(tested, dtype=bool)
    idx = np.flatnonzero(ok)
    cols = letter_matrix(sep[np.ix_(idx, idx)])
    names = letter_names(len(cols))
    short = all(len(n) == 1 for n in names)
    out = [""] * S
    for k, i in enumerate(idx):
        held = np.flatnonzero(cols[:, k])
        out[i] = _short_form(held, names) if short else ",".join(_runs(held, names))
    return out


#: Joins the first and last letter of a run ("K–h1": every letter from K to h1; "C–T": C to T).
RANGE = "\u2013"
_ALPHABET = string.ascii_lowercase + string.ascii_uppercase
#: The shortest run of consecutive letters written as a range when letters are one character each
#: ("abc" is as short as "a–c"; "C–T" is much shorter than "CDEFGHIJKLMNOPQRST").
SHORT_RUN = 4


def _runs(held: np.ndarray, names: list[str], shortest: int = 3) -> list[str]:
    """Letter indices as names, ``shortest`` or more consecutive ones as one range ``first–last``."""
    out, start = [], 0
    for k in range(1, len(held) + 1):
        if k == len(held) or held[k] != held[k - 1] + 1:
            a, b = held[start], held[k - 1]
            out += [f"{names[a]}{RANGE}{names[b]}"] if b - a + 1 >= shortest else [names[j] for j in range(a, b + 1)]
            start = k
    return out


def _short_form(held: np.ndarray, names: list[str]) -> str:
    """One-character letters: single letters run together, ranges set off by commas ("ab,C–T,X")."""
    tokens: list[str] = []
    for t in _runs(held, names, SHORT_RUN):
        if RANGE in t or not tokens or RANGE in tokens[-1]:
            tokens.append(t)
        else:
            tokens[-1] += t
    return ",".join(tokens)


def has_range(letters: Iterable[object]) -> bool:
    """Whether any of the display strings ``letters`` writes a run of letters as a range ("C–T")."""
    return any(isinstance(t, str) and RANGE in t for t in letters)


def range_sentence(letters: Iterable[object]) -> str:
    """The sentence a caption adds when some of ``letters`` holds a range ("" when none does)."""
    if not has_range(letters):
        return ""
    return f" A range such as C{RANGE}F stands for every letter from C to F (C, D, E and F)."


def _letter_index(name: str) -> int:
    """The position of a name of :func:`letter_names` ("a" -> 0, "A" -> 26, "b1" -> 53)."""
    return _ALPHABET.index(name[0]) + len(_ALPHABET) * (int(name[1:]) if len(name) > 1 else 0)


def letter_set(text: object) -> set[str]:
    """The letters of one system's display string ("ab" -> {a, b}; "ab,C\u2013F" -> {a, b, C, D, E, F};
    "a,a1" -> {a, a1}; "Y\u2013a1" -> {Y, Z, a1}; "" or NaN -> {})."""
    if not isinstance(text, str) or not text:
        return set()
    out: set[str] = set()
    for token in text.split(","):
        if RANGE in token:
            first, last = (_letter_index(t) for t in token.split(RANGE))
            out.update(letter_names(last + 1)[first:])
        elif any(c.isdigit() for c in token):
            out.add(token)          # a two-character name of the comma form ("a1")
        else:
            out.update(token)       # one-character letters written run together ("ab")
    return out


def shares_letter(a: object, b: object) -> bool:
    """Whether two display strings share a letter: the two systems are not separated."""
    return bool(letter_set(a) & letter_set(b))


def check_letters(separated: np.ndarray, cols: np.ndarray) -> list[str]:
    """What is wrong with a letter matrix ``cols`` (letters x systems) for ``separated``: empty
    when the three properties of the module docstring hold."""
    sep = np.asarray(separated, dtype=bool)
    c = np.asarray(cols, dtype=np.int64)
    shared = c.T @ c
    S = sep.shape[0]
    off = ~np.eye(S, dtype=bool)
    problems = []
    if (sep & off & (shared > 0)).any():
        problems.append("a separated pair shares a letter")
    if (~sep & off & (shared == 0)).any():
        problems.append("a pair that is not separated shares no letter")
    if S and (np.diag(shared) == 0).any():
        problems.append("a system has no letter")
    for L, t in zip(*np.nonzero(c)):
        if shared[t, np.flatnonzero(c[L])].min() >= 2:
            problems.append(f"letter {L} of system {t} is redundant")
    return problems
