"""Which fonts typst may use for the PDF: its bundled ones, and the machine's only for characters they lack.

typst (PyPI) bundles Libertinus Serif, New Computer Modern and DejaVu Sans Mono: Latin, Greek and
Cyrillic scripts, punctuation and mathematical symbols. Compiling with the bundled fonts alone makes
the PDF the same on every machine, so that is the default. A name or label in another script (CJK,
Arabic, Devanagari, ...) would print as empty boxes, and typst says nothing about a missing glyph; for
such text the machine's fonts are allowed as fallbacks (typst picks, per character, the first font
that has it), and where fontconfig is present (``fc-list``) a character no installed font covers is
named in a warning instead of vanishing silently from the PDF.

Charts come as SVG images whose text Typst sets itself (vl-convert writes ``<text>`` elements in the
charts' font, Liberation Sans, :data:`evalreport.charts.theme.FONT`, and lays them out with that
font's metrics). Typst is given the machine's Liberation Sans files, and only those
(:func:`chart_font_dir`), so the PDF depends on no other installed font; where the machine has no
Liberation Sans the charts are drawn as PNG images with their text baked in
(:func:`evalreport.report.display.chart_image_mime`).
"""
from __future__ import annotations

import functools
import os
import shutil
import subprocess
from pathlib import Path

__all__ = ["BUNDLED_RANGES", "beyond_bundled_fonts", "uncovered_by_system_fonts", "liberation_sans_files",
           "chart_font_dir"]

#: Where distributions install Liberation Sans (Debian/Ubuntu, Fedora, Arch, Homebrew, ...).
LIBERATION_DIRS: tuple[str, ...] = (
    "/usr/share/fonts/truetype/liberation", "/usr/share/fonts/truetype/liberation2",
    "/usr/share/fonts/liberation-sans", "/usr/share/fonts/liberation", "/usr/share/fonts/TTF",
    "/usr/local/share/fonts", "/opt/homebrew/share/fonts",
)
#: The four faces of the charts' font.
LIBERATION_FACES: tuple[str, ...] = ("LiberationSans-Regular.ttf", "LiberationSans-Bold.ttf",
                                     "LiberationSans-Italic.ttf", "LiberationSans-BoldItalic.ttf")

#: Code point ranges (inclusive) the bundled fonts cover: a conservative list, so a character
#: outside it only costs a search of the machine's fonts (tens of milliseconds), never a box.
BUNDLED_RANGES: tuple[tuple[int, int], ...] = (
    (0x0000, 0x024F),   # Basic Latin, Latin-1, Latin Extended-A and -B
    (0x0250, 0x02FF),   # IPA extensions, spacing modifier letters
    (0x0300, 0x036F),   # combining diacritical marks
    (0x0370, 0x03FF),   # Greek and Coptic
    (0x0400, 0x04FF),   # Cyrillic
    (0x1E00, 0x1EFF),   # Latin Extended Additional
    (0x2000, 0x206F),   # general punctuation
    (0x20A0, 0x20BF),   # currency symbols
    (0x2100, 0x214F),   # letterlike symbols
    (0x2190, 0x21FF),   # arrows
    (0x2200, 0x22FF),   # mathematical operators
    (0x2713, 0x2713),   # check mark and ballot x, the report's own marks: New Computer Modern Math has them
    (0x2717, 0x2717),
)

#: At most this many characters are looked up with ``fc-list`` (one process each).
MAX_LOOKUPS = 12


def _bundled(cp: int) -> bool:
    return any(lo <= cp <= hi for lo, hi in BUNDLED_RANGES)


def beyond_bundled_fonts(text: str) -> list[str]:
    """The distinct printable characters of ``text`` outside :data:`BUNDLED_RANGES`, in order of code point."""
    return sorted({ch for ch in set(text) if not _bundled(ord(ch)) and ch.isprintable() and not ch.isspace()})


def uncovered_by_system_fonts(chars: list[str]) -> list[str] | None:
    """Of ``chars``, those no font installed on the machine covers, according to fontconfig (the first
    :data:`MAX_LOOKUPS` are checked); None where fontconfig is not available to ask."""
    fc_list = shutil.which("fc-list")
    if fc_list is None:
        return None
    missing = []
    for ch in chars[:MAX_LOOKUPS]:
        try:
            out = subprocess.run([fc_list, f":charset={ord(ch):x}", "family"], capture_output=True, text=True,
                                 timeout=10, check=False).stdout
        except (OSError, subprocess.SubprocessError):
            return None
        if not out.strip():
            missing.append(ch)
    return missing


@functools.cache
def liberation_sans_files() -> tuple[Path, ...]:
    """The machine's Liberation Sans files (regular first; the faces found in the first of
    :data:`LIBERATION_DIRS` that has the regular face), or () where it has none."""
    for folder in LIBERATION_DIRS:
        base = Path(folder)
        if (base / LIBERATION_FACES[0]).is_file():
            return tuple(base / face for face in LIBERATION_FACES if (base / face).is_file())
    return ()


def chart_font_dir(work: Path) -> Path | None:
    """A folder under ``work`` that holds (links to) the Liberation Sans files only, for typst's
    ``font_paths`` (typst takes folders, not files); None where the machine has no Liberation Sans."""
    files = liberation_sans_files()
    if not files:
        return None
    folder = Path(work) / "chart-fonts"
    folder.mkdir(parents=True, exist_ok=True)
    for src in files:
        dst = folder / src.name
        if not dst.exists():
            try:
                os.symlink(src, dst)
            except OSError:          # no symbolic links here (some file systems): a copy
                shutil.copyfile(src, dst)
    return folder
