"""Post-processing of the PDF that Typst writes.

Typst (0.14 and later; 0.15.1 in the typst Python binding 0.15.2) writes a tagged PDF whose
catalog says ``/MarkInfo<</Marked true/Suspects false>>``. That is valid PDF, but poppler
(pdfinfo, pdftotext, pdftoppm, Evince, ... up to at least 22.12) accepts ``/Suspects`` only
when it is ``true`` and prints "Syntax Error: Suspects object is wrong type (boolean)" for every
file. ``/Suspects false`` is the default, so the entry can go: it is overwritten with spaces,
byte for byte, so every cross-reference offset stays right and the tags (accessibility, the
outline) are kept. (``typst.compile(..., pdf_tags=False)`` also silences poppler, but drops
the tags.)
"""
from __future__ import annotations

from pathlib import Path

__all__ = ["drop_false_suspects"]

_SUSPECTS = b"/MarkInfo<</Marked true/Suspects false>>"
_BLANKED = b"/MarkInfo<</Marked true" + b" " * len(b"/Suspects false") + b">>"


def drop_false_suspects(pdf: bytes | str | Path) -> bytes | None:
    """Remove the default ``/Suspects false`` from the catalog's MarkInfo.

    Given bytes, returns the fixed bytes; given a path, rewrites the file in place (only when
    there is something to fix) and returns None.
    """
    if isinstance(pdf, (bytes, bytearray)):
        return bytes(pdf).replace(_SUSPECTS, _BLANKED, 1)
    path = Path(pdf)
    data = path.read_bytes()
    fixed = data.replace(_SUSPECTS, _BLANKED, 1)
    if fixed != data:
        path.write_bytes(fixed)
    return None
