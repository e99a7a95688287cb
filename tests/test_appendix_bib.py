"""references.bib: every measure's source resolves to a work, keys are stable, the bib holds what is cited.

The bibliographic data of the five papers of the specification (/work/shared/papers/README.md)
are checked against their publishers' records: Sebastiani, ICTIR 2015, doi 10.1145/2808194.2809449;
Forman & Scholz, SIGKDD Explorations 12(1), doi 10.1145/1882471.1882479; Hand, Christen & Kirielle,
Machine Learning 110, doi 10.1007/s10994-021-05964-1; Gösgens et al., NeurIPS 34 (no DOI);
Opitz 2022 (preprint, revised in TACL 12, doi 10.1162/tacl_a_00675).
"""
from __future__ import annotations

import re

import pytest

from evalreport.measures import ALIASES, REGISTRY
from evalreport.measures.references import (
    METHODS,
    WORKS,
    bibtex,
    get_work,
    works_for_measures,
    works_for_methods,
    works_for_source,
)


@pytest.mark.parametrize("ident", sorted(REGISTRY))
def test_every_registered_measure_source_names_a_work(ident):
    """A measure registered without a bibliography entry fails here (one test per measure)."""
    m = REGISTRY[ident]
    assert m.source, f"{ident} has no source"
    assert works_for_source(m.source), f"{ident}: no work in evalreport/measures/references.py matches {m.source!r}"


def test_every_alias_source_names_a_work():
    missing = {a: src for a, (_, _, src) in ALIASES.items() if not works_for_source(src)}
    assert not missing


@pytest.mark.parametrize("source, key", [
    ("Opitz 2022, eq. 18-19", "opitz2022bias"),
    ("Sebastiani 2015, Table 2", "sebastiani2015axiomatically"),
    ("Hand, Christen & Kirielle 2021, section 2", "hand2021fstar"),
    ("Gösgens et al. 2021, Definition 10", "gosgens2021good"),
    ("Forman & Scholz 2010, section 3", "forman2010apples"),
    ("SemEval-2016 Task 6 (Mohammad et al. 2016), official F_avg", "mohammad2016semeval"),
    ("SemEval-2016 Task 4 (Nakov et al. 2016), subtask C", "nakov2016semeval"),
    ("SemEval-2010 Task 8 (Hendrickx et al. 2010), official score", "hendrickx2010semeval"),
    ("Fake News Challenge FNC-1 (Pomerleau & Rao 2017), weighted score", "pomerleau2017fnc"),
])
def test_sources_resolve_to_their_work(source, key):
    assert key in [w.key for w in works_for_source(source)]


def test_unrelated_text_resolves_to_nothing():
    assert works_for_source("on the other hand, a measure of my own") == []
    assert works_for_source("") == []


def test_keys_are_unique_and_derived_from_author_year_title():
    keys = [w.key for w in WORKS]
    assert len(keys) == len(set(keys))
    for w in WORKS:
        assert re.fullmatch(r"[a-z]+\d{4}[a-z]+", w.key), w.key
        assert w.fields["year"] in w.key
        first = re.sub(r"[^a-z]", "", w.fields["author"].split(",")[0].lower().replace('{\\"o}', "o")
                       .replace("{\\v{s}}", "s"))
        assert w.key.startswith(first) or w.key.startswith("jcgm"), (w.key, first)


@pytest.mark.parametrize("key, doi", [
    ("sebastiani2015axiomatically", "10.1145/2808194.2809449"),
    ("forman2010apples", "10.1145/1882471.1882479"),
    ("hand2021fstar", "10.1007/s10994-021-05964-1"),
    ("benjamini1995controlling", "10.1111/j.2517-6161.1995.tb02031.x"),
    ("mcnemar1947note", "10.1007/BF02295996"),
    ("efron1993introduction", "10.1007/978-1-4899-4541-9"),
])
def test_dois_of_the_cited_works(key, doi):
    assert get_work(key).fields["doi"] == doi
    assert f"doi = {{{doi}}}" in bibtex([get_work(key)])


def test_bibtex_is_the_same_whatever_the_order():
    works = list(WORKS)
    assert bibtex(works) == bibtex(works[::-1])
    text = bibtex(works)
    assert text.count("@") == len(WORKS)
    assert text.count("{") == text.count("}")


def test_works_for_measures_collects_sources_and_conventions():
    keys = {w.key for w in works_for_measures(["macro_f1", "confusion_entropy", "f_star"])}
    assert {"opitz2022bias", "gosgens2021good", "wei2010novel", "hand2021fstar"} <= keys


def test_methods_resolve():
    assert {w.key for w in works_for_methods(["holm", "bh", "bootstrap"])} == {
        "holm1979simple", "benjamini1995controlling", "efron1993introduction"}
    assert "demsar2006statistical" in {w.key for w in works_for_methods(["demsar"])}
    with pytest.raises(KeyError):
        works_for_methods(["no-such-method"])
    for keys in METHODS.values():
        for k in keys:
            get_work(k)
