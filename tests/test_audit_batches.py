"""The audit's stacked evaluation (analyses/audit/batches.py): one call per measure, setting and
policy on every matrix the checks read must give the verdicts of batch-by-batch evaluation."""
from __future__ import annotations

import numpy as np
import pytest

from evalreport.analyses.audit import PAPER_POLICY, PROPERTIES, audit, batches as B
from evalreport.analyses.audit.identities import _profile, sample
from evalreport.analyses.audit.properties import Case, evaluate_measure
from evalreport.analyses.audit.space import Space, coded_steps, space_for, steps
from evalreport.measures import compute, get
from evalreport.measures._core import Measure
from evalreport.measures._shared import quiet_errors, shared_sums

# measures whose checks take every path: undefined cells, kinks, jumps, chance correction, binary
MEASURES = ["macro_f1", "accuracy", "kappa", "mcc", "confusion_entropy", "balanced_accuracy", "sba", "f1"]


def _banked(m, K, policy, space, pids):
    U, inverse, slices = B.stacked(space, pids, 0, 400)
    with shared_sums(), quiet_errors():
        return B.evaluate_bank(lambda mats: evaluate_measure(m, mats, policy=policy), U, inverse, slices)


@pytest.mark.parametrize("mid", MEASURES)
@pytest.mark.parametrize("K", [2, 3])
def test_banked_checks_equal_batch_by_batch(mid, K):
    m = get(mid)
    if "positive" in m.needs and K != 2:
        pytest.skip("a binary measure is audited for two classes")
    space = Space(K, 5)
    for policy in ("nan", "zero"):
        pids = [p.id for p in PROPERTIES.values() if PAPER_POLICY[p.paper] == policy]
        bank = _banked(m, K, policy, space, pids)
        assert bank is not None
        with_bank = Case(m, K, "s", policy, space, bank=bank)
        without = Case(m, K, "s", policy, Space(K, 5))
        np.testing.assert_array_equal(with_bank.values, without.values)
        for pid in pids:
            assert PROPERTIES[pid].check(with_bank) == PROPERTIES[pid].check(without), (mid, K, policy, pid)


def test_stack_holds_every_batch_bit_for_bit():
    space = Space(3, 5)
    U, inverse, slices = B.stacked(space, list(PROPERTIES), 7, 50)
    assert len(np.unique(U.reshape(len(U), -1), axis=0)) == len(U) < len(inverse)
    for name, sl in slices.items():
        want = np.asarray(B.batch(space, name, 7, 50), dtype=float).reshape(-1, 3, 3)
        got = U[inverse[sl]]
        assert got.tobytes() == want.tobytes(), name


def test_a_measure_failing_on_the_stack_is_evaluated_batch_by_batch():
    space = Space(2, 4)
    U, inverse, slices = B.stacked(space, ["MON"], 0, 20)

    def fails(mats):
        raise ValueError("no")

    assert B.evaluate_bank(fails, U, inverse, slices) is None
    assert B.evaluate_bank(lambda mats: np.zeros(3), U, inverse, slices) is None     # wrong shape

    # a measure that fails exactly on the stacked tensors: audited batch by batch, same frame as its twin
    stacked_sizes = {len(B.stacked(space_for(2, 4), [p.id for p in PROPERTIES.values() if PAPER_POLICY[p.paper] == pol],
                                   0, 400)[0]) for pol in ("nan", "zero")}

    def tp_share(C, ctx):
        return C[..., 1, 1] / C.sum(axis=(-2, -1))

    raised = []

    def picky(C, ctx):
        if C.shape[0] in stacked_sizes:
            raised.append(C.shape[0])
            raise ValueError("not this batch")
        return tp_share(C, ctx)

    twin = audit([Measure(id="tp_share", label="TP share", fn=tp_share)], max_n=4, classes=(2,))
    fallback = audit([Measure(id="tp_share", label="TP share", fn=picky)], max_n=4, classes=(2,))
    assert not twin["detail"].str.contains("check failed").any()
    assert sorted(set(raised)) == sorted(stacked_sizes)      # the fallback was taken, for both policies
    assert twin.equals(fallback)


def test_spaces_are_built_once_per_process():
    assert space_for(2, 5) is space_for(2, 5)
    assert space_for(3, 4) is not space_for(3, 5)
    for n in range(3, 9):
        space_for(2, n)
    assert space_for(2, 8) is space_for(2, 8)


@pytest.mark.parametrize("kind", ["correct", "relabel", "add", "remove_error", "transpose", "reverse", "permute"])
def test_coded_step_labels_are_the_texts(kind):
    mats = Space(3, 3).mats
    src, dst, labels = steps(kind, mats)
    src2, dst2, coded = coded_steps(kind, mats)
    np.testing.assert_array_equal(src, src2)
    np.testing.assert_array_equal(dst, dst2)
    assert list(np.asarray(coded)) == list(labels)
    keep = np.arange(len(src)) % 3 == 0
    assert [coded[keep][i] for i in range(int(keep.sum()))] == list(labels[keep])


def test_identities_profile_equals_one_measure_at_a_time():
    C = sample(3, n_random=300, seed=1)
    ms = [get(m) for m in MEASURES if "positive" not in get(m).needs] + [get("f1")]
    prof = _profile(ms, C, 0, "nan")
    for m, p in zip(ms, prof):
        r = compute(m, C, positive=0 if "positive" in m.needs else None, policy="nan", explain=False)
        assert np.asarray(r.value).tobytes() == p["value"].tobytes(), m.id
        np.testing.assert_array_equal(r.undefined, p["undefined"])
