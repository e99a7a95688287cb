"""Whose equation: a registry source and a measure's label in a paper's words.

A registry source reads ``"Opitz (2022), eq. 18-19"`` or ``"Powers 2011; PPV + NPV - 1"``; a bare
``eq. 18`` in a label (a plug-in's ``"My F1 (eq. 18)"``) reads as an equation of the paper the
appendix is pasted into. :func:`source_refs` splits a source into its works, each with the
author-year text of its BibTeX entry (``Opitz (2022)``,
``Forman and Scholz (2010)``, ``Gösgens et al. (2021)``), the place in it (``eq. 18-19``) and its
key, so that the text says whose equation it is and cites it once. :func:`paper_label` puts the
author and year before an equation number in a label.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from evalreport.measures import get
from evalreport.measures.references import author_year, works_for_source

__all__ = ["SourceRef", "author_year", "source_refs", "paper_label", "tie"]

#: a work's year, bare ("Powers 2011") or in brackets ("Opitz (2022)")
_YEAR = re.compile(r"\((?:1[5-9]|20)\d\d\)|\b(?:1[5-9]|20)\d\d\b")


@dataclass(frozen=True)
class SourceRef:
    """One work a source names: ``who`` (``"Opitz (2022)"``), ``where`` (``"eq. 18-19"``, may be
    empty), ``keys`` (the BibTeX keys to cite) and, for a part that names no work, ``text``."""

    who: str
    where: str
    keys: tuple[str, ...]
    text: str = ""


def source_refs(source: str) -> list[SourceRef]:
    """The works of a registry ``source`` (parts separated by ``;``) in the order it names them."""
    out = []
    for part in (p.strip() for p in str(source or "").split(";")):
        if not part:
            continue
        works = works_for_source(part)
        if not works:
            out.append(SourceRef("", "", (), text=part))
            continue
        # the place in the work follows its year ("Hand, Christen & Kirielle 2021, eq. 2")
        year = _YEAR.search(part)
        plain = part[year.end():] if year else part.split(",", 1)[-1] if "," in part else ""
        where = plain.strip().lstrip(",").strip()
        out.append(SourceRef(author_year(works[0]), tie(where), tuple(w.key for w in works)))
    return out


_EQ = re.compile(r"\b(eqs?\.\s*\d)")
_PLACE = re.compile(r"\b(eqs?\.|Eqs?\.|Table|Tables|section|Section|Definition|Statement|Example|Appendix) (?=[\dA-Z])")


def tie(text: str) -> str:
    """A place in a paper as a paper prints it: a no-break space after ``eq.``, ``Table``, ... (no line
    break there, and no sentence space after "eq." in LaTeX) and an en dash in a range (``18\u201319``)."""
    return re.sub(r"(?<=\d)-(?=\d)", "\u2013", _PLACE.sub("\\1\u00a0", text))


def paper_label(measure_id: str) -> str:
    """The report's label of a measure, an equation number in it preceded by whose it is:
    ``My F1 (Opitz (2022), eq. 18)``. The registry's own labels carry no equation number."""
    from evalreport.report.section_tables import label

    text = label(measure_id)
    if not _EQ.search(text):
        return text
    try:
        refs = [r for r in source_refs(get(measure_id).source) if r.who]
    except Exception:
        return text
    return tie(_EQ.sub(lambda m: f"{refs[0].who}, {m.group(1)}", text, count=1)) if refs else text
