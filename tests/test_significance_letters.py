"""The compact letter display of the significance tests (Piepho 2004, JCGS 13(2):456-466,
insert-and-absorb with sweeping): evalreport.analyses.letters and the ``letters`` column of
``groups``, and what the report, the appendix and the chart show from it.

The properties tested on every separability matrix (the definition of a letter display, Piepho
2004, section 2): separated systems share no letter; systems not separated share one; no letter
can be removed from any system without breaking the second (minimality, the purpose of Piepho's
sweeping step); letters follow the systems' order.
"""
from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st

from evalreport.analyses import resampling
from evalreport.analyses.letters import (
    check_letters,
    compact_letters,
    letter_matrix,
    letter_names,
    letter_set,
    letters_sentence,
    shares_letter,
)

# ----------------------------------------------------------------------------- helpers


def separated(S: int, pairs) -> np.ndarray:
    m = np.zeros((S, S), dtype=bool)
    for i, j in pairs:
        m[i, j] = m[j, i] = True
    return m


@st.composite
def separability(draw, max_systems=9):
    S = draw(st.integers(0, max_systems))
    bits = draw(st.lists(st.booleans(), min_size=S * (S - 1) // 2, max_size=S * (S - 1) // 2))
    m = np.zeros((S, S), dtype=bool)
    iu = np.triu_indices(S, 1)
    m[iu] = bits
    return m | m.T


def covered(cols: np.ndarray, sep: np.ndarray) -> bool:
    """Every pair not separated shares a letter, and every system has one (written out pair by pair,
    independently of the module's own checker)."""
    S = sep.shape[0]
    for i in range(S):
        if not cols[:, i].any():
            return False
        for j in range(i + 1, S):
            if not sep[i, j] and not (cols[:, i] & cols[:, j]).any():
                return False
    return True


# ----------------------------------------------------------------------------- the three properties


@settings(max_examples=300, deadline=None)
@given(separability())
def test_letters_separate_exactly_the_separated_pairs_and_are_minimal(sep):
    cols = letter_matrix(sep)
    S = sep.shape[0]
    for i, j in itertools.combinations(range(S), 2):
        share = bool((cols[:, i] & cols[:, j]).any())
        assert share == (not sep[i, j]), (i, j)
    assert covered(cols, sep)
    # minimality: removing any one letter from any one system breaks the display
    for L, t in zip(*np.nonzero(cols)):
        fewer = cols.copy()
        fewer[L, t] = False
        assert not covered(fewer, sep), f"letter {L} of system {t} is redundant"
    # hence no whole letter can go either, and no two letters are held by the same systems
    assert len({tuple(c) for c in cols}) == len(cols)
    assert check_letters(sep, cols) == []


@settings(max_examples=200, deadline=None)
@given(separability())
def test_letters_follow_the_order_of_the_systems(sep):
    cols = letter_matrix(sep)
    if not len(cols):
        return
    first = [int(np.flatnonzero(c)[0]) for c in cols]
    assert first == sorted(first)                     # letter k's best holder is not below letter k+1's
    assert cols[0, 0]                                 # the best system has 'a'
    shown = compact_letters(sep)
    assert shown[0].startswith("a")
    position = {n: k for k, n in enumerate(letter_names(len(cols)))}
    assert all(list(s) == sorted(s, key=position.__getitem__)     # each system's letters alphabetically
               for s in shown if "\u2013" not in s)


def test_checker_finds_each_violation():
    """check_letters can fail: each broken property is named."""
    sep = separated(3, [(0, 2)])
    good = np.array([[1, 1, 0], [0, 1, 1]], dtype=bool)            # a, ab, b
    assert check_letters(sep, good) == []
    assert check_letters(sep, np.ones((1, 3), dtype=bool)) == ["a separated pair shares a letter"]
    assert "a pair that is not separated shares no letter" in check_letters(sep, np.eye(3, dtype=bool))
    redundant = np.vstack([good, [[0, 1, 0]]])
    assert check_letters(sep, redundant) == ["letter 2 of system 1 is redundant"]


# ----------------------------------------------------------------------------- worked cases


def test_the_review_case_gives_ab():
    """The author review (item 1): LogReg is not separated from LogReg-balanced (Holm p 0.171),
    LogReg-balanced is separated from SVM-RBF (0.021); the old tiers printed LogReg 'a' and
    LogReg-balanced 'b'. The Holm-corrected bootstrap p-values of the review's run
    (/tmp/review/author/sl-report/tables/pairwise.csv, seed 0, 1,000 resamples)."""
    names = ["SVM-RBF", "RandomForest", "GradBoost", "LogReg", "LogReg-balanced", "Baseline-stratified",
             "Baseline-majority"]
    holm = {("GradBoost", "LogReg-balanced"): 0.2867, ("GradBoost", "LogReg"): 1.0,
            ("GradBoost", "RandomForest"): 1.0, ("GradBoost", "SVM-RBF"): 0.5794,
            ("LogReg-balanced", "LogReg"): 0.1708, ("LogReg-balanced", "RandomForest"): 0.1708,
            ("LogReg-balanced", "SVM-RBF"): 0.02098, ("LogReg", "RandomForest"): 1.0, ("LogReg", "SVM-RBF"): 0.2867,
            ("RandomForest", "SVM-RBF"): 1.0}
    rows = []
    for a, b in itertools.combinations(names, 2):
        p = holm.get((a, b), holm.get((b, a), 0.02098))           # every pair with a baseline: 0.021
        rows.append({"system_a": a, "system_b": b, "measure": "macro_f1", "test": "bootstrap",
                     "difference": names.index(b) - names.index(a), "p_value": p, "p_holm": p, "p_bh": p})
    g = resampling.groups(pd.DataFrame(rows), order=names).set_index("system")
    assert g["letters"].tolist() == ["a", "ab", "ab", "ab", "b", "c", "d"]
    assert g.loc["LogReg", "letters"] == "ab" and g.loc["LogReg-balanced", "letters"] == "b"
    assert g["group"].tolist() == [1, 1, 1, 1, 2, 3, 4]        # the tiers keep their documented meaning


def test_three_systems_one_separated_pair():
    """a-b not separated, b-c not separated, a-c separated: a, ab, b (Piepho 2004, the smallest case
    the display exists for: letters are not a partition)."""
    assert compact_letters(separated(3, [(0, 2)])) == ["a", "ab", "b"]


def test_gramm_et_al_fig2_instance():
    """Gramm, Guo, Hüffner, Niedermeier, Piepho & Schmid (2007), Algorithms for compact letter
    displays, Computational Statistics & Data Analysis, doi:10.1016/j.csda.2006.09.035, Fig. 2: n = 5
    treatments with significant differences H = {{1,5},{2,3},{2,5},{3,5}}. The pairs not separated
    are 12, 13, 14, 24, 34, 45; 12 and 13 need different letters (2-3 separated) and 45 a third
    (1-5), and the only three letters covering 24 and 34 as well are {1,2,4}, {1,3,4}, {4,5}."""
    sep = separated(5, [(0, 4), (1, 2), (1, 4), (2, 4)])
    assert compact_letters(sep) == ["ab", "a", "b", "abc", "c"]


def test_no_separation_one_letter_all_separated_one_each():
    assert compact_letters(np.zeros((4, 4), dtype=bool)) == ["a"] * 4
    assert compact_letters(~np.eye(4, dtype=bool)) == ["a", "b", "c", "d"]
    assert compact_letters(np.zeros((0, 0), dtype=bool)) == []


def test_untested_system_gets_no_letter_and_is_left_out():
    sep = separated(4, [(0, 3)])
    assert compact_letters(sep, tested=[True, True, False, True]) == ["a", "ab", "", "b"]


def test_many_letters_are_comma_separated_and_read_back():
    S = 60
    shown = compact_letters(~np.eye(S, dtype=bool))
    assert len(set(shown)) == S and shown[0] == "a" and shown[26] == "A" and shown[52] == "a1"
    assert letter_names(54)[-2:] == ["a1", "b1"]
    assert letter_set("a,a1") == {"a", "a1"} and letter_set("ab") == {"a", "b"} and letter_set(np.nan) == set()
    assert shares_letter("ab", "bc") and not shares_letter("a", "b") and not shares_letter("", "")


def test_many_letters_in_ranges_read_back_as_the_letter_matrix():
    """300 systems in overlapping tiers (separated when more than 40 places apart): the comma form
    writes runs of three or more letters as ranges ("K\u2013h1"); read back, every system's set is
    exactly the letters the matrix gives it, and sharing a letter is exactly not being separated."""
    S = 300
    i, j = np.indices((S, S))
    sep = np.abs(i - j) > 40
    cols = letter_matrix(sep)
    names = letter_names(len(cols))
    shown = compact_letters(sep)
    assert len(cols) > 52 and any("\u2013" in s for s in shown)
    assert max(len(s) for s in shown) < 40                    # ranges keep the strings short
    for k, text in enumerate(shown):
        assert letter_set(text) == {names[n] for n in np.flatnonzero(cols[:, k])}
    for a, b in [(0, 40), (0, 41), (120, 161), (150, 151), (299, 258), (299, 259)]:
        assert shares_letter(shown[a], shown[b]) == (not sep[a, b])
    assert letter_set("Y\u2013a1") == {"Y", "Z", "a1"}


def test_asymmetric_input_is_refused():
    with pytest.raises(ValueError, match="symmetric"):
        letter_matrix(np.array([[False, True], [False, False]]))


# ----------------------------------------------------------------------------- groups(): letters vs tiers


def _frame(p: dict, order):
    rows = [{"system_a": a, "system_b": b, "measure": "m", "test": "bootstrap", "difference": 1.0,
             "p_value": v, "p_holm": v, "p_bh": v} for (a, b), v in p.items()]
    return resampling.groups(pd.DataFrame(rows), order=order).set_index("system")


def test_letters_are_true_where_tiers_are_not():
    """A-B separated, A-C not, B-C not: the tiers put C with B (group 2) though C is not separated
    from the leader A; the letters say so (C 'ab')."""
    g = _frame({("A", "B"): 0.01, ("A", "C"): 0.2, ("B", "C"): 0.3}, ["A", "B", "C"])
    assert g["group"].tolist() == [1, 2, 2]
    assert g["letters"].tolist() == ["a", "b", "ab"]
    assert shares_letter(g.loc["A", "letters"], g.loc["C", "letters"])


def test_letters_use_the_corrected_p_against_alpha_and_nan_is_not_separated():
    p = {("A", "B"): 0.049, ("A", "C"): 0.05, ("B", "C"): np.nan}
    g = _frame(p, ["A", "B", "C"])
    assert g["letters"].tolist() == ["a", "b", "ab"]          # p = alpha does not separate (p < alpha does)
    assert _frame(p, ["A", "B", "C"]).equals(g)
    rows = [{"system_a": a, "system_b": b, "measure": "m", "test": "bootstrap", "difference": 1.0,
             "p_value": v, "p_holm": v, "p_bh": v} for (a, b), v in p.items()]
    loose = resampling.groups(pd.DataFrame(rows), order=["A", "B", "C"], alpha=0.01)
    assert loose["letters"].tolist() == ["a", "a", "a"]


def test_a_system_without_a_defined_test_has_no_letter():
    g = _frame({("x", "y"): 0.5, ("x", "z"): np.nan, ("y", "z"): np.nan}, ["x", "y", "z"])
    assert g["letters"].tolist() == ["a", "a", ""] and np.isnan(g.loc["z", "group"])


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 7), st.data())
def test_groups_letters_agree_with_every_pair(S, data):
    names = [f"s{i}" for i in range(S)]
    p = {pair: data.draw(st.sampled_from([0.001, 0.02, 0.05, 0.3, 1.0, np.nan]))
         for pair in itertools.combinations(names, 2)}
    g = _frame(p, names)
    tested = {s for pair, v in p.items() if not np.isnan(v) for s in pair}
    for (a, b), v in p.items():
        if a in tested and b in tested:
            assert shares_letter(g.loc[a, "letters"], g.loc[b, "letters"]) == (not v < 0.05), (a, b, v)
    assert all((g.loc[s, "letters"] == "") == (s not in tested) for s in names)


# ----------------------------------------------------------------------------- end to end


#: 300 binary gold labels, half of each class; a system = the gold labels with some items flipped.
GOLD_300 = np.repeat([0, 1], 150)


def _flipped(wrong) -> np.ndarray:
    p = GOLD_300.copy()
    p[list(wrong)] ^= 1
    return p


@pytest.fixture(scope="module")
def chain(tmp_path_factory):
    """Three systems on 300 items: A-C separated, A-B and B-C not (Holm, 400 resamples, seed 0)."""
    from evalreport.inputs import Runs
    from evalreport.report.build import analyse
    from evalreport.report.sections import open_report

    gold = GOLD_300
    system = _flipped

    runs = Runs(gold=gold, pred=np.stack([system(range(0, 20)),
                                          system([*range(10, 20), *range(100, 120)]),
                                          system([*range(100, 120), *range(200, 220)])]),
                labels=("n", "p"), systems=("A", "B", "C"))
    tables = tmp_path_factory.mktemp("chain") / "tables"
    analyse(runs, tables, primary="accuracy", measures=["accuracy", "macro_f1"], bootstrap=400, seed=0,
            audit=False)
    return open_report(tables), tables


def test_compare_tables_carry_letters_true_to_the_pairwise_table(chain):
    report, tables = chain
    pw = report.table("pairwise")
    pw = pw[pw["test"] == "bootstrap"]
    board = report.table("leaderboard").set_index("system")
    for _, r in pw.iterrows():
        share = shares_letter(board.loc[r["system_a"], "letters"], board.loc[r["system_b"], "letters"])
        assert share == (not r["p_holm"] < 0.05)
    assert board["letters"].tolist() == ["a", "ab", "b"]      # the case this fixture is built for
    assert list(pd.read_csv(tables / "groups.csv").columns) == ["system", "group", "leader", "letters"]


def test_report_leaderboard_shows_letters_and_says_what_they_mean(chain):
    report, _ = chain
    table = report.leaderboard_table()
    assert table.df["letters"].tolist() == ["a", "ab", "b"] and "group" not in table.df
    assert letters_sentence("bootstrap", 0.05) in table.caption
    assert ("Systems sharing a letter are not separated by the paired bootstrap test (Holm-corrected over all pairs, alpha = 0.05); "
            "systems with no letter in common are.") in table.caption
    chart = report.leaderboard_chart()
    spec = chart.spec
    colours = [v["encoding"]["color"] for v in _views(spec) if "color" in v.get("encoding", {})]
    assert colours and colours[0]["field"] == "letters" and colours[0]["title"] == "Significance letters"
    assert "Colour: the significance letters." in chart.caption


def test_appendix_table_prints_ab_and_its_caption_is_true(chain):
    from evalreport.report.appendix import AppendixData
    from evalreport.report.appendix.figures import charts_for
    from evalreport.report.appendix.tables import leaderboard

    _, tables = chain
    data = AppendixData(tables)
    narrow, page = leaderboard(data)
    sups = {row[1].text: row[2].sup for row in narrow.rows}
    assert sups == {"A": "a", "B": "ab", "C": "b"}
    assert "Superscript letters: systems sharing a letter are not separated by the paired bootstrap test " \
           "(Holm-corrected over all pairs, alpha = 0.05); systems with no letter in common are." in narrow.caption
    assert "significance group" not in narrow.caption and "significance group" not in page.caption
    caption = next(c for name, c, *_ in charts_for(data) if name == "leaderboard")
    assert "significance letters" in caption and "group" not in caption


def _views(spec):
    out = [spec]
    for key in ("layer", "hconcat", "vconcat", "concat"):
        for sub in spec.get(key, []):
            out += _views(sub)
    return out


def test_findings_name_a_system_inseparable_from_the_leader_behind_a_separable_one():
    """A-B separated (B's errors contain A's), A-C not (C errs elsewhere: a larger difference, more
    noise), B-C not. Tiers put C with B in group 2, which would have counted C as separated from the
    leader; the findings follow the letters (C shares 'a' with A)."""
    from evalreport.analyses.compare import compare
    from evalreport.analyses.findings import findings
    from evalreport.inputs import Runs

    gold = GOLD_300
    system = _flipped

    runs = Runs(gold=gold, pred=np.stack([system(range(0, 30)), system(range(0, 42)), system(range(50, 96))]),
                labels=("n", "p"), systems=("A", "B", "C"))
    comp = compare(runs, measures=["accuracy"], primary="accuracy", bootstrap=400, seed=0)
    pw = comp.pairwise[comp.pairwise["test"] == "bootstrap"].set_index(["system_a", "system_b"])["p_holm"]
    assert pw["A", "B"] < 0.05 <= pw["A", "C"] and pw["B", "C"] >= 0.05     # the case this test is about
    assert comp.groups["group"].tolist() == [1, 2, 2] and comp.groups["letters"].tolist() == ["a", "b", "ab"]
    rows = findings(comp, None, fragility_count=False).findings
    assert rows.loc[rows["finding"] == "inseparable", "system"].tolist() == ["C"]
    assert rows.loc[rows["finding"] == "separable_count", "value"].tolist() == [1]


# ----------------------------------------------------------------------------- insert-and-absorb, differentially


def _pairwise_insert_absorb(sep: np.ndarray) -> set:
    """Piepho (2004) literally: one separated pair at a time, every letter held by both split in two,
    then every letter within another absorbed (Python sets; a reference, not fast)."""
    S = sep.shape[0]
    letters = [frozenset(range(S))]
    for i, j in zip(*np.nonzero(np.triu(sep, 1))):
        out = []
        for col in letters:
            out += [col - {i}, col - {j}] if i in col and j in col else [col]
        out = list(dict.fromkeys(out))
        letters = [c for c in out if not any(c < d for d in out)]
    return {tuple(sorted(c)) for c in letters}


def _maximal_cliques(sep: np.ndarray) -> set:
    """Every maximal set of systems no two of which are separated, by enumerating all subsets."""
    S = sep.shape[0]
    ok = [c for r in range(1, S + 1) for c in itertools.combinations(range(S), r)
          if not any(sep[a, b] for a, b in itertools.combinations(c, 2))]
    sets = [set(c) for c in ok]
    return {c for c, s in zip(ok, sets) if not any(s < t for t in sets)}


@settings(max_examples=200, deadline=None)
@given(separability(max_systems=8))
def test_batched_inserts_give_piepho_pairwise_letters_the_maximal_cliques(sep):
    """The module inserts all pairs of one system at once; Piepho inserts pair by pair. Before the
    sweep both give the maximal sets of mutually non-separated systems."""
    from evalreport.analyses.letters import _insert_absorb

    mine = {tuple(np.flatnonzero(c)) for c in _insert_absorb(sep)} if sep.shape[0] else set()
    reference = _pairwise_insert_absorb(sep) if sep.shape[0] else set()
    assert mine == reference
    if sep.shape[0]:
        assert mine == _maximal_cliques(sep)


def test_letters_of_two_hundred_systems_in_a_chain():
    """200 systems, each separated from all but its three nearest neighbours on either side (a long
    leaderboard): one letter per window of four, and the properties hold."""
    idx = np.arange(200)
    sep = np.abs(idx[:, None] - idx[None, :]) >= 4
    cols = letter_matrix(sep)
    assert check_letters(sep, cols) == []
    assert len(cols) == 197


def test_chart_colours_by_letters_and_says_when_no_pair_is_separated():
    from evalreport import charts

    iv = pd.DataFrame({"system": ["A", "B", "C"], "measure": "accuracy", "value": [0.9, 0.8, 0.7],
                       "lo": [0.85, 0.75, 0.65], "hi": [0.95, 0.85, 0.75]})
    spec = charts.leaderboard_intervals(iv, measure="accuracy",
                                        groups=pd.DataFrame({"system": ["A", "B", "C"],
                                                             "letters": ["a", "ab", "b"]})).to_dict()
    colour = [v["encoding"]["color"] for v in _views(spec) if "color" in v.get("encoding", {})]
    assert colour and colour[0]["field"] == "letters"
    rows = [r for d in spec.get("datasets", {}).values() for r in d if "letters" in r]
    assert {r["system"]: r["letters"] for r in rows} == {"A": "a", "B": "ab", "C": "b"}
    one = charts.leaderboard_intervals(iv, measure="accuracy",
                                       groups=pd.DataFrame({"system": ["A", "B", "C"], "letters": "a"})).to_dict()
    assert not [v for v in _views(one) if "color" in v.get("encoding", {})]
    assert "every system shares one letter (no pair separated)" in str(one["title"])
