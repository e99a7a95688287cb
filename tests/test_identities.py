"""Measures that are one quantity, or always rank systems alike: computed on seeded samples."""
from __future__ import annotations

import io
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

from evalreport import measures as M
from evalreport.analyses.audit import identities
from evalreport.analyses.audit.identities import sample
from evalreport.cli import main
from evalreport.measures import ALIASES, REGISTRY
from evalreport.measures._core import SHADOWED


@pytest.fixture(scope="module")
def every():
    """Every measure that applies without costs, aliases included (they must come out equal to their record)."""
    return identities(list(M.default_measures(positive=0)) + sorted(ALIASES))


def groups(frame, relation, scope="all"):
    f = frame[(frame.relation == relation) & (frame.scope == scope)]
    return {frozenset(g.split(", ")) for g in f.members}


def group_of(frame, measure, relation, scope="all"):
    return next((g for g in groups(frame, relation, scope) if measure in g), frozenset({measure}))


def test_each_absorbed_average_is_found_equal_to_the_record_it_became_an_alias_of():
    """Not circular: the generated one-vs-rest average keeps its own function (SHADOWED); the
    identity check must find it equal to the hand-declared record whose id it now resolves to."""
    generated = [replace(SHADOWED[a], id=f"{a}_generated") for a in SHADOWED]
    f = identities([*generated, *dict.fromkeys(ALIASES[a][0] for a in SHADOWED)])
    for a in SHADOWED:
        assert ALIASES[a][0] in group_of(f, f"{a}_generated", "equal"), a


def test_p003_eq_2_f1_and_jaccard_rank_alike_but_differ(every):
    """Hand, Christen & Kirielle (2021): F* = J = F / (2 - F), a monotone transform: same ranking, other values."""
    assert {"f1", "jaccard"} <= group_of(every, "f1", "same order")
    assert "jaccard" not in group_of(every, "f1", "equal")
    # F' = F / 2(1 - F) is monotone in F too, but undefined for error-free predictions where F = 1
    assert "f_prime" not in group_of(every, "f1", "same order")


def test_p000_eq_10_k_is_an_affine_function_of_macro_recall(every):
    assert {"k", "balanced_accuracy"} <= group_of(every, "k", "same order")
    assert "k" not in group_of(every, "balanced_accuracy", "equal")


def test_p002_appendix_a_and_micro_averages_that_coincide(every):
    assert {"accuracy", "micro_f1", "f1_micro", "recall_micro", "precision_micro"} <= group_of(every, "accuracy",
                                                                                                "equal")
    # not declared anywhere: the summed one-vs-rest matrix has FP = FN, so these micro averages coincide
    assert {"mcc_micro", "kappa_micro", "informedness_micro", "markedness_micro"} <= group_of(every, "mcc_micro",
                                                                                             "equal")


def test_measures_that_disagree_are_not_grouped(every):
    for a, b in (("mcc", "kappa"), ("accuracy", "balanced_accuracy"), ("macro_f1", "macro_f1_hm"),
                 ("mcc", "mcc_macro"), ("sba", "gm1_macro")):
        assert b not in group_of(every, a, "same order"), (a, b)


def test_binary_scope_lists_what_holds_for_two_classes_only(every):
    # on two classes, the macro average of MCC over both one-vs-rest matrices is MCC itself
    assert {"mcc", "mcc_macro"} <= group_of(every, "mcc", "equal", scope="binary")
    assert "mcc_macro" not in group_of(every, "mcc", "equal")
    assert not groups(every, "equal", "binary") & groups(every, "equal", "all")


def test_one_record_per_quantity_among_declared_measures(every):
    """A hand-declared record equal to another hand-declared record would store the quantity's facts
    twice: it must be an alias instead. (Generated averages may coincide by theorem.)"""
    for g in groups(every, "equal"):
        declared = [m for m in g if m in REGISTRY and REGISTRY[m].averaging is None]
        assert len(declared) <= 1, sorted(g)


def test_sample_holds_the_zero_division_cases():
    C = sample(3, n_random=300)
    a, b = C.sum(-1), C.sum(-2)
    assert ((a == 0).any(-1)).any() and ((b == 0).any(-1)).any()          # a class absent from gold / predictions
    assert (np.count_nonzero(C, axis=(-2, -1)) == 1).any()                 # one class only
    assert (C.sum((-2, -1)) > 0).all()


def test_seeded_and_deterministic():
    a = identities(["f1", "jaccard", "mcc", "correlation_distance"], seed=1)
    b = identities(["f1", "jaccard", "mcc", "correlation_distance"], seed=1)
    pd.testing.assert_frame_equal(a, b)
    assert list(a.columns) == ["scope", "relation", "group", "measure", "members"]


def test_cli_identities(capsys):
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(["audit", "--identities", "--measures", "f1,jaccard,mcc,correlation_distance", "--format",
                     "csv"]) == 0
    frame = pd.read_csv(io.StringIO(out.getvalue()))
    assert {"scope", "relation", "measure", "members"} <= set(frame.columns)
    assert set(frame[frame.relation == "same order"].members) >= {"f1, jaccard", "mcc, correlation_distance"}
    err = io.StringIO()
    with redirect_stderr(err):
        assert main(["audit", "--identities", "--consistency"]) == 2


def test_report_note_names_the_groups(tmp_path):
    from evalreport.report.sections import open_report

    identities(["f1", "jaccard", "mcc", "kappa"]).to_csv(tmp_path / "identities.csv", index=False)
    note = open_report(tmp_path).identities_note()
    assert "`f1`, `jaccard`: always rank systems alike" in note.text and "kappa" not in note.text
    identities(["mcc", "kappa"]).to_csv(tmp_path / "identities.csv", index=False)
    assert "No two measures" in open_report(tmp_path).identities_note().text


@pytest.mark.parametrize("argv", [["--identities", "--max-n", "5"], ["--identities", "--properties", "MON"],
                                  ["--consistency", "--classes", "3"], ["--consistency", "--properties", "MON"],
                                  ["--consistency", "--seed", "3"]])
def test_audit_options_that_do_not_apply_exit_2(argv):
    err = io.StringIO()
    with redirect_stderr(err):
        assert main(["audit", *argv]) == 2
    assert "do(es) not apply" in err.getvalue()


def test_duplicated_and_aliased_ids():
    f = identities(["f1", "F1", "jaccard"])
    assert set(f.members) == {"f1, jaccard"}
    with pytest.raises(Exception, match="class index below 3"):
        identities(["f1"], classes=(3, 4), positive=5)
