"""The measure registry itself: declarations, stable ids, parameter specs, chance values, vectorised over stacks."""
from __future__ import annotations

import itertools
import math
import re
import sys
from collections.abc import Callable

import numpy as np
import pytest

from evalreport import measures as M
from evalreport.counts import confusion_from_codes
from evalreport.errors import MeasureError
from evalreport.measures import ALIASES, REGISTRY
from evalreport.measures._core import SHADOWED
from evalreport.measures.binary import BINARY

# The stable ids the report, the CLI and users rely on: renaming one breaks their scripts.
STABLE_IDS = (
    "accuracy", "balanced_accuracy", "macro_precision", "macro_recall", "macro_f1", "macro_f1_hm", "micro_f1",
    "weighted_f1", "gmean_recall", "hmean_recall", "mcc", "kappa", "sba", "gm1", "k", "informedness",
    "markedness", "f1", "precision", "recall", "specificity", "jaccard", "f_star", "dor", "confusion_entropy",
    "correlation_distance",
)
STABLE_BINARY = ("gm1", "informedness", "markedness", "f1", "precision", "recall", "specificity", "jaccard",
                 "f_star", "dor", "mcc", "kappa", "accuracy", "balanced_accuracy", "k")

#: Every record over a (..., K, K) confusion tensor; the example-based multi-label records take per-item
#: statistics instead and are checked in tests/test_multilabel_measures.py.
ALL = [m for m in M.catalogue() if m.kind not in ("example", "scores")]


def _kw(m, K, positive=0):
    """What a measure needs besides the matrix: a positive class, or costs (|i - j| on the class order)."""
    kw = {}
    if "positive" in m.needs:
        kw["positive"] = positive
    if "costs" in m.needs:
        kw["costs"] = np.abs(np.subtract.outer(np.arange(K), np.arange(K))).astype(float)
    if "gains" in m.needs:     # (gain measures: the 0/1 gains, 1 for a correct item)
        kw["gains"] = np.eye(K)
    return kw


# --------------------------------------------------------------------------- declarations


@pytest.mark.parametrize("m", ALL, ids=lambda m: m.id)
def test_every_measure_is_fully_declared(m):
    for attr in ("label", "source", "formula", "undefined"):
        assert str(getattr(m, attr)).strip(), f"{m.id}: empty {attr}"
    lo, hi = m.range
    assert lo < hi and not math.isnan(lo) and not math.isnan(hi), m.id
    assert m.direction in ("higher", "lower") and isinstance(m.higher_is_better, bool)
    assert m.kind in ("multiclass", "binary", "ordinal")
    assert set(m.needs) <= {"positive", "costs", "order", "gains"}
    assert ("positive" in m.needs) == (m.kind == "binary"), m.id
    if m.averaging:
        assert m.averaging in ("macro", "micro", "weighted") and m.base in BINARY
        assert m.id == f"{m.base}_{m.averaging}"
    if m.convention is not None:
        assert lo <= m.convention <= hi and m.convention_source.strip(), m.id
    if m.chance is not None:
        for K in (2, 3, 7):
            assert lo <= m.chance_value(K) <= hi, m.id
    assert REGISTRY[m.id] is m and M.get(m.id) is m


def test_ids_are_unique_and_registration_refuses_duplicates():
    ids = [m.id for m in M.catalogue()]
    assert len(ids) == len(set(ids)) == len(REGISTRY)
    before = dict(REGISTRY)
    with pytest.raises(MeasureError, match="already registered"):
        M.register(M.Measure(id="accuracy", label="again", fn=lambda C, ctx: C.sum((-2, -1))))
    with pytest.raises(MeasureError, match="lower-case"):
        M.register(M.Measure(id="Bad-Id", label="bad", fn=lambda C, ctx: C.sum((-2, -1))))
    assert REGISTRY == before


def test_stable_ids_are_registered():
    missing = [i for i in STABLE_IDS if i not in REGISTRY and i not in ALIASES]
    assert not missing
    for base in STABLE_BINARY:
        assert base in BINARY or ALIASES[base][0] in BINARY, base
        for avg in ("macro", "micro", "weighted"):
            m = M.get(f"{base}_{avg}")
            assert m.id == f"{base}_{avg}" and m.kind == "multiclass"
            if m.alias_of is None:
                assert m.averaging == avg and m.base == base
    # every binary declaration has its three averages (registered, or an alias of the same quantity)
    for base in BINARY:
        assert all(f"{base}_{avg}" in REGISTRY or f"{base}_{avg}" in ALIASES for avg in ("macro", "micro", "weighted"))


# --------------------------------------------------------------------------- aliases: one record per quantity


def test_an_alias_is_the_canonical_record_under_its_own_name():
    m = M.get("macro_recall")
    assert (m.id, m.label, m.alias_of) == ("macro_recall", "Macro recall", "balanced_accuracy")
    assert "Opitz (2022)" in m.source and "eq. 8" in m.source
    canon = REGISTRY["balanced_accuracy"]
    for attr in ("fn", "range", "higher_is_better", "chance", "undefined", "convention", "claims", "kind", "needs"):
        assert getattr(m, attr) == getattr(canon, attr), attr
    assert "macro_recall" in M.aliases_of("balanced_accuracy") and "recall_macro" in M.aliases_of("balanced_accuracy")
    assert M.get("MACRO_RECALL").id == "macro_recall"                       # case-insensitive like every id
    assert {a for a in ALIASES if ALIASES[a][0] == "jaccard"} == {"f_star"}
    assert M.get("f_star_macro").alias_of == "jaccard_macro"
    # an alias cannot be declared twice nor shadow a record
    with pytest.raises(MeasureError, match="already registered"):
        M.register_alias("macro_recall", "accuracy")
    with pytest.raises(MeasureError, match="already registered"):
        M.register_alias("accuracy", "macro_f1")
    with pytest.raises(MeasureError, match="no registered measure"):
        M.register_alias("brand_new", "no_such_measure")
    assert "brand_new" not in ALIASES


def test_results_carry_the_id_that_was_asked_for():
    C = np.array([[[3, 1, 0], [1, 2, 2], [0, 1, 4]]])
    f = M.evaluate(C, ["balanced_accuracy", "macro_recall", "recall_macro"])
    assert list(f.measure) == ["balanced_accuracy", "macro_recall", "recall_macro"]
    assert f.value.nunique() == 1
    assert set(M.catalogue_frame().id).isdisjoint(ALIASES)                  # the catalogue lists quantities once
    row = M.catalogue_frame().set_index("id").loc["balanced_accuracy"]
    assert row.aliases == "recall_macro, macro_recall"       # declaration order


@pytest.mark.parametrize("alias", sorted(SHADOWED))
@pytest.mark.parametrize("policy", ["nan", "zero", "one"])
def test_every_generated_average_replaced_by_a_record_equals_it(alias, policy, rng):
    """precision_macro = macro_precision, f1_micro = accuracy, recall_weighted = accuracy, ...: each
    identity that made a generated one-vs-rest average an alias is checked on random matrices with
    empty rows and columns, values and undefined cells, under every policy."""
    C = rng.integers(0, 4, (400, 4, 4)).astype(float)
    C[:60, 1, :] = 0
    C[60:120, :, 2] = 0
    C[120:130] = 0
    C[130:140, :, :] = 0
    C[130:140, 3, 3] = 5                                    # one class only, predicted perfectly
    generated = M.compute(SHADOWED[alias], C, policy=policy)
    canonical = M.compute(alias, C, policy=policy)
    np.testing.assert_array_equal(generated.value, canonical.value)
    if policy == "nan":
        np.testing.assert_array_equal(generated.undefined, canonical.undefined)


def test_catalogue_order_and_frame():
    groups = [4 if m.kind == "scores" else 3 if m.kind == "example" else 2 if m.averaging else (1 if m.kind == "binary" else 0)
              for m in M.catalogue()]
    assert groups == sorted(groups)
    frame = M.catalogue_frame()
    assert list(frame["id"]) == [m.id for m in M.catalogue()]
    assert not frame[["label", "source", "formula", "undefined"]].eq("").any().any()
    # what a reader sees cites works by author and year, never evalreport's own file numbers
    assert not frame[["source", "undefined"]].apply(lambda c: c.str.contains(r"\bpapers? \d{3}")).any().any()
    assert frame.loc[frame["id"] == "macro_f1", "source"].item() == "Opitz (2022), eq. 18-19"


@pytest.mark.parametrize("ident", [*M.REGISTRY, *M.ALIASES])
def test_a_label_is_a_name_without_equation_or_paper_number(ident):
    """The label heads table columns and axes; the equation and source are the definitions' (formula,
    source), shown in the appendix and tooltips."""
    label = M.get(ident).label
    assert not re.search(r"\beqs?\.\s*\d|\bpaper\b|\bEq\.", label), label


@pytest.mark.parametrize("ident", [*M.REGISTRY, *M.ALIASES])
def test_texts_cite_authors_and_years_not_file_numbers(ident):
    """Every text of a record (shown in the definitions, tooltips and the appendix, or resolved into the
    bibliography) names a work by its authors and year; the numbers of the files in /work/shared/papers
    (000 to 004) mean nothing to a reader."""
    m = M.get(ident)
    for name in ("source", "undefined", "convention_source", "chance_note", "notes", "formula", "label"):
        text = str(getattr(m, name, "") or "")
        assert not re.search(r"\b[Pp]apers? \d{3}\b", text), (name, text)


# --------------------------------------------------------------------------- specs


def test_parametrised_spec_fbeta():
    m = M.get("fbeta(beta=2)")
    assert m.id == "fbeta(beta=2)" and m.params == {"beta": 2.0} and m.family == "fbeta"
    assert M.get(" fbeta( beta = 2 ) ").id == m.id
    assert "beta=2" in m.label
    # (1 + 4) TP / (5 TP + 4 FN + FP) with TP = 3, FN = 2, FP = 1 -> 15 / 24
    C = np.array([[10, 1], [2, 3]])
    assert M.compute(m, C, positive=1).value == pytest.approx(15 / 24, abs=1e-15)
    assert M.compute("fbeta_macro(beta=0.5)", C).value == pytest.approx(
        np.mean([M.compute("fbeta(beta=0.5)", C, positive=p).value for p in (0, 1)]), abs=1e-15)
    assert M.get("gm(r=-1)").params == {"r": -1.0}
    assert M.get("fbeta") is REGISTRY["fbeta"]


@pytest.mark.parametrize("spec,words", [
    ("acuracy", ["unknown measure 'acuracy'", "did you mean", "'accuracy'"]),
    ("zzzz", ["unknown measure 'zzzz'", "evalreport measures"]),
    ("fbeta(2)", ["parameters are written name=value"]),
    ("fbeta(gamma=2)", ["has no parameter", "gamma", "beta"]),
    ("fbeta(beta=two)", ["parameter beta must be a number"]),
    ("accuracy(beta=2)", ["has no parameter", "none"]),
    ("f1(beta=2", ["cannot parse", "fbeta(beta=2)"]),
    ("", ["cannot parse"]),
])
def test_bad_specs_raise_helpful_measure_errors(spec, words):
    with pytest.raises(MeasureError) as err:
        M.get(spec)
    for w in words:
        assert w in str(err.value), (spec, str(err.value))


def test_compute_input_errors():
    with pytest.raises(MeasureError, match="positive class"):
        M.compute("f1", np.eye(3))
    with pytest.raises(MeasureError, match="outside"):
        M.compute("f1", np.eye(3), positive=3)
    with pytest.raises(MeasureError, match="not one of the classes"):
        M.compute("f1", np.eye(2), positive="c", labels=["a", "b"])
    with pytest.raises(MeasureError, match=r"\(K, K\)"):
        M.compute("accuracy", np.ones((2, 3)))
    with pytest.raises(MeasureError, match="policy"):
        M.compute("accuracy", np.eye(2), policy="ignore")
    assert M.compute("f1", np.array([[3, 1], [2, 4]]), positive="b", labels=["a", "b"]).value == pytest.approx(8 / 11)


# --------------------------------------------------------------------------- chance values


CHANCE = [m for m in ALL if m.chance is not None]


def _approximate(m):
    """Declared chance that is only an approximate constant baseline (Gösgens et al. 2021, Definition 9)."""
    return "approximate" in m.chance_note.lower()


@pytest.mark.parametrize("m", CHANCE, ids=lambda m: m.id)
def test_chance_equals_value_on_expected_matrix(m, rng):
    """Gösgens et al. (2021), Definition 9: M(C-bar) = c_base(m) with c-bar_ij = a_i b_j / n, for any
    class sizes a and non-unary b (here random, positive and real-valued)."""
    for K in (2, 3, 5):
        a = rng.uniform(0.5, 30, size=(20, K))
        b = rng.uniform(0.5, 30, size=(20, K))
        b *= a.sum(-1, keepdims=True) / b.sum(-1, keepdims=True)
        Cbar = a[:, :, None] * b[:, None, :] / a.sum(-1)[:, None, None]
        for p in (0, K - 1):
            r = M.compute(m, Cbar, **_kw(m, K, p))
            assert not r.undefined.any(), m.id
            np.testing.assert_allclose(r.value, m.chance_value(K), atol=1e-12, err_msg=m.id)


def _all_labelings(sizes):
    """Every distinct labeling with these class sizes: the support of U(b_1, ..., b_m) (Gösgens et al.
    2021, Def. 8)."""
    base = np.repeat(np.arange(len(sizes)), sizes)
    return np.unique(np.array(list(itertools.permutations(base))), axis=0)


# (gold class sizes a, predicted class sizes b), n = 7: exact enumeration of E_{B ~ U(b)}[M(A, B)]
BASELINE_CASES = [((3, 4), (2, 5)), ((1, 2, 4), (3, 3, 1)), ((2, 2, 2, 1), (1, 2, 1, 3))]


@pytest.fixture(scope="module")
def random_tensors():
    out = []
    for a, b in BASELINE_CASES:
        gold = np.repeat(np.arange(len(a)), a)
        preds = _all_labelings(b)
        out.append(confusion_from_codes(gold, preds, len(a)).astype(float))
    return out


@pytest.mark.parametrize("m", CHANCE, ids=lambda m: m.id)
def test_chance_is_the_exact_expectation_of_a_random_classifier(m, random_tensors):
    """Gösgens et al. (2021), Definition 8 (constant baseline): E_{B ~ U(b)} M(A, B) = c_base(m),
    computed exactly by enumerating every labeling with the given class sizes. Measures linear in the
    cells for fixed marginals meet it exactly; a declared chance that is only approximate (Definition 9 only) must say
    so in ``chance_note`` - and then the enumeration shows that it is not exact."""
    gaps = []
    for C in random_tensors:
        K = C.shape[-1]
        for p in (0, K - 1):
            r = M.compute(m, C, **_kw(m, K, p))
            if r.undefined.any():   # no exact expectation where some labelings give 0/0
                assert _approximate(m), f"{m.id}: undefined on some labelings: {set(r.reason[r.undefined])}"
            gaps.append(abs(np.nanmean(r.value) - m.chance_value(K)))
    if _approximate(m):
        assert max(gaps) > 1e-6, f"{m.id}: flagged approximate but the baseline is exact"
    else:
        assert max(gaps) < 1e-12, f"{m.id}: declared chance is not the expected value (gap {max(gaps):.3g}); " \
                                  "flag it as approximate in chance_note"


def _verdict(claim):
    return claim.get("audit", claim.get("paper")) if isinstance(claim, dict) else bool(claim)


def test_constant_baseline_claims_agree_with_declared_chance():
    """Registry claims of Gösgens et al.'s (2021) CB / ACB (read by the audit) agree with the chance
    declarations the tests above check: an exact constant baseline is a declared, non-approximate chance value; an
    approximate-only one is declared and flagged approximate."""
    for m in ALL:
        cb, acb = m.claims.get("goesgens.CB"), m.claims.get("goesgens.ACB")
        if cb is not None and _verdict(cb) and m.kind != "ordinal":
            assert m.chance is not None and not _approximate(m), m.id
        if cb is not None and not _verdict(cb) and acb is not None and _verdict(acb) and m.chance is not None:
            assert _approximate(m), m.id


def test_enumeration_is_complete():
    assert len(_all_labelings((3, 3, 1))) == math.factorial(7) // (6 * 6)
    assert len(_all_labelings((1, 2, 1, 3))) == math.factorial(7) // (2 * 6)


# --------------------------------------------------------------------------- speed


def _work(fn: Callable[..., object], *args: object, **kw: object) -> int:
    """The Python lines, calls and returns (NumPy's C functions included) that ``fn(*args, **kw)`` runs: a
    count of work that does not depend on the machine, unlike a time."""
    events = 0

    def count(frame, event, arg):
        nonlocal events
        events += 1
        return count

    old_trace, old_profile = sys.gettrace(), sys.getprofile()
    sys.settrace(count)
    sys.setprofile(count)
    try:
        fn(*args, **kw)
    finally:
        sys.settrace(old_trace)
        sys.setprofile(old_profile)
    return events


def _not_vectorised(measures: list[M.Measure], C: np.ndarray) -> list[str]:
    """The measures whose work grows with the number of matrices: a measure computed over the whole
    stack at once runs the same lines and NumPy calls whatever the number of matrices; a Python loop
    over the matrices runs its body (at least one step) once per matrix, so ten copies of the stack
    ``C`` cost it at least one step per added matrix. A few steps more or less (the interpreter's
    own bookkeeping, garbage collection on a loaded machine) are not a loop."""
    tiled = np.tile(C, (10, 1, 1))
    slow = []
    K = C.shape[-1]
    for m in measures:
        r = M.compute(m, tiled, **_kw(m, K))        # first call: one-time work (imports, caches) is not counted
        assert r.value.shape == (len(tiled),) and r.undefined.shape == (len(tiled),), m.id
        one = _work(M.compute, m, C, **_kw(m, K))
        ten = _work(M.compute, m, tiled, **_kw(m, K))
        if ten - one >= len(tiled) - len(C):
            slow.append(f"{m.id}: {one} steps for {len(C)} matrices, {ten} for {len(tiled)}")
    return slow


def test_every_measure_computes_a_stack_of_matrices_at_once(rng):
    """Every measure is vectorised over the stack of confusion matrices (resampling computes
    thousands): its work does not grow with the number of matrices. Speed itself is measured in
    benchmarks/, as ratios."""
    C = rng.integers(0, 40, size=(5, 5, 5))
    assert not _not_vectorised(ALL, C)


def test_a_measure_that_loops_over_the_matrices_is_found(rng, tmp_path, clean_registry):
    """The check above can fail: a plugin measure computing one matrix at a time is reported."""
    plugin = tmp_path / "looping.py"
    plugin.write_text(
        "import numpy as np\n"
        "from evalreport.measures import Measure, register\n"
        "def one_at_a_time(C, ctx):\n"
        "    flat = C.reshape(-1, *C.shape[-2:])\n"
        "    out = np.array([np.trace(c) / c.sum() for c in flat])\n"
        "    return out.reshape(C.shape[:-2])\n"
        "register(Measure(id='looping_accuracy', label='Accuracy, one matrix at a time', fn=one_at_a_time,\n"
        "                 source='test', formula='sum_i c_ii / n', range=(0.0, 1.0), higher_is_better=True))\n",
        encoding="utf-8")
    from evalreport.measures.plugins import load_plugin

    assert load_plugin(plugin) == ["looping_accuracy"]
    C = rng.integers(1, 40, size=(5, 5, 5))
    found = _not_vectorised([M.get("accuracy"), M.get("looping_accuracy")], C)
    assert [line.split(":")[0] for line in found] == ["looping_accuracy"]
    assert np.allclose(M.compute("looping_accuracy", C).value, M.compute("accuracy", C).value)


def test_a_binary_measure_without_a_positive_class_names_its_multiclass_forms():
    """`--measures gm1` on a multi-class task: the refusal names gm1's macro/micro/weighted forms (the
    README writes "GM_1 (macro)", so a reader types gm1); each form named is a registered multi-class measure."""
    from evalreport.measures import catalogue, get
    from evalreport.measures.evaluate import applicable

    ok, why = applicable("gm1")
    assert not ok and why.startswith("binary measure: needs a positive class (--positive); its multi-class forms: ")
    assert "gm1_macro" in why
    for m in catalogue():
        if "positive" in m.needs:
            ok, why = applicable(m.id)
            forms = why.split("its multi-class forms: ")[1].split(", ") if "forms: " in why else []
            for f in forms:
                assert "positive" not in get(f).needs and get(f).kind == "multiclass", (m.id, f)
