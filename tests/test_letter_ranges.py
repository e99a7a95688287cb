"""Runs of letters written as ranges in the compact letter display (evalreport.analyses.letters).

With up to 52 letters (one character each), a system in many overlapping groups would read
"CDEFGHIJKLMNOPQRST" at 100 systems; four or more consecutive letters are written as a range
("C\u2013T"), single letters stay run together and ranges are set off by commas ("ab,C\u2013T").
Whatever the form, :func:`letter_set` must give back exactly the letters of the matrix, and two
display strings share a letter exactly when the systems are not separated (Piepho 2004, the
definition of a letter display)."""
from __future__ import annotations

import numpy as np
from hypothesis import given, settings, strategies as st

from evalreport.analyses.letters import (
    RANGE,
    compact_letters,
    letter_matrix,
    letter_names,
    letter_set,
    range_sentence,
    shares_letter,
)


def tiers(S: int, width: int) -> np.ndarray:
    """Systems in overlapping tiers: separated when more than ``width`` places apart."""
    i, j = np.indices((S, S))
    return np.abs(i - j) > width


@st.composite
def separations(draw):
    """A separation matrix of 2-300 systems: separated when their (random, sorted) scores differ by
    more than a random threshold, with up to 12 pairs flipped at random: overlapping groups with
    long runs of letters, and some irregular ones."""
    S = draw(st.integers(2, 300))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    scores = np.sort(rng.random(S))[::-1]
    threshold = draw(st.floats(0.0, 0.6))
    sep = np.abs(scores[:, None] - scores[None, :]) > threshold
    for _ in range(draw(st.integers(0, 12))):
        a, b = rng.integers(0, S, size=2)
        if a != b:
            sep[a, b] = sep[b, a] = not sep[a, b]
    return sep


@settings(max_examples=60, deadline=None)
@given(separations())
def test_every_display_string_reads_back_as_the_letters_held(sep):
    cols = letter_matrix(sep)
    names = letter_names(len(cols))
    shown = compact_letters(sep)
    for k, text in enumerate(shown):
        assert letter_set(text) == {names[n] for n in np.flatnonzero(cols[:, k])}
    S = len(shown)
    together = np.array([[shares_letter(shown[a], shown[b]) for b in range(S)] for a in range(S)])
    off = ~np.eye(S, dtype=bool)
    assert np.array_equal(together[off], ~sep[off])


def test_a_system_in_many_groups_reads_as_a_range():
    """100 systems separated when more than 50 places apart: 50 letters (one character each); the
    system holding most letters holds a run of more than 40, written as one range ("b–X")
    instead of the letters run together, and no display string is longer than a range and a letter."""
    sep = tiers(100, 50)
    cols = letter_matrix(sep)
    shown = compact_letters(sep)
    names = letter_names(len(cols))
    assert len(cols) == 50
    most = int(cols.sum(axis=0).argmax())
    held = np.flatnonzero(cols[:, most])
    assert len(held) > 40 and np.all(np.diff(held) == 1)
    assert shown[most] == f"{names[held[0]]}{RANGE}{names[held[-1]]}"
    assert max(len(s) for s in shown) <= 5


def test_short_runs_stay_run_together_and_ranges_are_set_off_by_commas():
    """Runs of one to three letters stay as letters; a run of four is a range; the tokens are
    joined so that single letters run together and a comma stands before and after a range."""
    from evalreport.analyses import letters as mod

    names = letter_names(52)
    assert mod._short_form(np.array([0, 1, 2]), names) == "abc"
    assert mod._short_form(np.array([0, 1, 2, 3]), names) == f"a{RANGE}d"
    assert mod._short_form(np.array([0, 1, 28, 29, 30, 31, 45]), names) == f"ab,C{RANGE}F,T"
    assert mod._short_form(np.array([0, 2, 4, 5, 6, 7, 9, 10, 11, 12]), names) == f"ac,e{RANGE}h,j{RANGE}m"
    assert letter_set(f"ab,C{RANGE}F,T") == {"a", "b", "C", "D", "E", "F", "T"}
    assert letter_set(f"ac,e{RANGE}h,j{RANGE}m") == set("acefghjklm")
    assert letter_set(f"x{RANGE}B") == {"x", "y", "z", "A", "B"}       # a range across the two alphabets


def test_the_comma_form_keeps_ranges_of_three():
    """More than 52 letters: names of two characters, joined by commas, ranges from three letters."""
    shown = compact_letters(tiers(300, 40))
    assert any(RANGE in s for s in shown) and all("," in s or RANGE in s or len(s) <= 3 for s in shown)
    assert letter_set(f"Y{RANGE}a1") == {"Y", "Z", "a1"} and letter_set("a,a1") == {"a", "a1"}


def test_range_sentence_only_when_a_range_is_shown():
    assert range_sentence(["a", "ab", "b", float("nan")]) == ""
    text = range_sentence(["a", f"a{RANGE}d"])
    assert f"C{RANGE}F" in text and "every letter from C to F" in text
