"""File checks and small helpers shared by the input readers and the confusion-file readers.

What every input file passes before any parser sees it (:func:`check_file`: present, a regular
file - never a named pipe, socket or device -, a known extension, not empty; text files also
:func:`check_text`: not compressed, not UTF-16/32, no NUL byte, no CR-only line endings), the
UTF-8 check that names the line (:func:`utf8_error`), file hashing (:func:`hash_file`),
natural sorting (:func:`natural_sorted`) and the helpers that keep messages short
(:func:`short`, :func:`listing`, :func:`near_miss`). The formats and rules are described in
:mod:`evalreport.inputs.readers`.
"""
from __future__ import annotations

import hashlib
import os
import re
import shlex
import stat
import warnings
from collections.abc import Iterable, Sequence
from pathlib import Path

from evalreport.errors import InputError

__all__ = ["hash_file", "natural_sorted", "SUPPORTED_EXTENSIONS", "FORMATS", "INTEGER", "SCAN_CHUNK", "as_paths",
           "check_file", "check_text", "first_nul", "listing", "natural_key", "near_miss", "runs_in_folder", "short",
           "utf8_error"]

FORMATS = {".tsv": "tsv", ".tab": "tsv", ".csv": "csv", ".jsonl": "jsonl", ".ndjson": "jsonl",
            ".parquet": "parquet", ".pq": "parquet", ".xlsx": "xlsx"}
#: Spreadsheet formats that are not read, and what to do instead.
_OTHER_SPREADSHEETS = {".xls": "the older binary Excel format", ".xlsm": "a macro-enabled workbook",
                       ".xlsb": "a binary Excel workbook", ".ods": "an OpenDocument spreadsheet",
                       ".numbers": "a Numbers spreadsheet"}
#: Extensions :func:`read_runs` accepts (``.json`` is accepted by the confusion readers only).
SUPPORTED_EXTENSIONS = tuple(FORMATS)
_NUMERIC = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
INTEGER = re.compile(r"[+-]?\d+")
_MAX_LISTED = 10

SCAN_CHUNK = 2 ** 20            # bytes read at a time while looking for NUL bytes
_TEXT_FORMATS = ("tsv", "csv", "jsonl", "triplets")
#: Magic bytes of compressed files: (prefix, name, how to decompress)
_COMPRESSED = ((b"\x1f\x8b", "gzip", "gzip -dc"), (b"BZh", "bzip2", "bzip2 -dc"), (b"\xfd7zXZ\x00", "xz", "xz -dc"),
               (b"\x28\xb5\x2f\xfd", "zstd", "zstd -dc"), (b"PK\x03\x04", "zip", "unzip -p"))


# ----------------------------------------------------------------------------- small helpers


def hash_file(path) -> str:
    """SHA-256 of a file's bytes as a hex string, read in chunks (constant memory)."""
    with open(path, "rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def natural_key(text: str):
    if _NUMERIC.fullmatch(text):
        return (0, float(text), text)
    parts = tuple((0, int(p), p) if p.isdigit() else (1, 0, p) for p in re.split(r"(\d+)", text) if p)
    return (1, parts, text)


def natural_sorted(names: Iterable[str]) -> list[str]:
    """Sort names naturally: numeric-looking names by value ("2" < "10" < "a"), digit runs
    inside other names by value ("class2" < "class10")."""
    return sorted(names, key=natural_key)


def short(text, width: int = 60) -> str:
    """A value for a message: at most ``width`` characters (a 5,000-character label is not repeated)."""
    text = str(text)
    return repr(text) if len(text) <= width else repr(text[:width]) + f"... ({len(text)} characters)"


def listing(names: Sequence[str], limit: int = _MAX_LISTED) -> str:
    shown = ", ".join(short(n) for n in list(names)[:limit])
    return shown + (f", ... ({len(names)} in all)" if len(names) > limit else "")


def near_miss(label: str, classes: Sequence[str]) -> str:
    """A hint when an unknown label equals a class after Unicode (NFC) or number normalisation, or but for case."""
    import unicodedata

    def number(text):
        try:
            value = float(text)
        except ValueError:
            return None
        return value if value == value else None     # NaN is no number here

    nfc = unicodedata.normalize("NFC", label)
    for c in classes:
        if c != label and unicodedata.normalize("NFC", c) == nfc:
            return (f" (it equals class {short(c)} after Unicode normalisation: the two files write "
                    "accented letters differently, NFC vs NFD)")
        if number(label) is not None and number(c) == number(label):
            return (f" (it equals class {short(c)} as a number: JSON Lines and Parquet numbers are written in their "
                    "shortest form, text files as written)")
    for c in classes:
        if c != label and c.casefold() == label.casefold():
            return f" (it differs from class {short(c)} only in upper and lower case: labels are case-sensitive)"
    return ""


def case_hint(missing: Sequence[str], found: Sequence[str]) -> str:
    """A hint naming each found column that differs from a missing one only in case (``ID`` for ``id``)."""
    pairs = [(m, f) for m in missing for f in found if f != m and f.casefold() == m.casefold()]
    if not pairs:
        return ""
    named = ", ".join(f"{f!r} for {m!r}" for m, f in pairs)
    return f" ({named}: column names are case-sensitive; rename the column)"


def as_paths(value) -> list[Path]:
    if value is None:
        return []
    if isinstance(value, (str, os.PathLike)):
        return [Path(value)]
    return [Path(v) for v in value]


# ----------------------------------------------------------------------------- run folders


def runs_in_folder(folder: Path, *, exclude: Path) -> list[Path]:
    if not folder.exists():
        if folder.is_symlink():
            raise InputError("runs folder is a broken symbolic link or a symbolic link loop", path=folder)
        raise InputError("runs folder not found", path=folder)
    if not folder.is_dir():
        raise InputError("runs_dir is not a folder", path=folder)
    skip = _resolved(exclude)
    entries = [p for p in folder.iterdir() if skip is None or _resolved(p) != skip]
    found = [p for p in entries if not _hidden(p.name) and p.is_file() and p.suffix.lower() in FORMATS]
    if not found:
        raise InputError(f"no run files ({', '.join(FORMATS)}) in the runs folder", path=folder)
    ignored = natural_sorted(_entry_name(p) for p in entries if p not in found)
    if ignored:   # an organiser must not lose a team's run without noticing (a hidden file neither)
        one = len(ignored) == 1
        warnings.warn(f"{folder}: {len(ignored)} {'entry' if one else 'entries'} of the runs folder "
                      f"{'is not a run file' if one else 'are not run files'} ({', '.join(FORMATS)}; hidden files "
                      f"are skipped) and {'was' if one else 'were'} not read: {listing(ignored)}", stacklevel=2)
    return sorted(found, key=lambda p: natural_key(p.name))


def _hidden(name: str) -> bool:
    """A hidden file, or the lock file (``~$book.xlsx``) a spreadsheet program keeps beside an open workbook."""
    return name.startswith((".", "~$"))


def _resolved(path: Path) -> Path | None:
    """The real path, or None for a symbolic link loop or a path that cannot be resolved."""
    try:
        return path.resolve() if path.exists() else None
    except (OSError, RuntimeError):   # RuntimeError: Python < 3.13's symlink loop
        return None


def _entry_name(path: Path) -> str:
    """A folder entry as a listing shows it: ``sub/``, ``.hidden.tsv (hidden)``, ``loop (broken or looping link)``."""
    if path.is_symlink() and not path.exists():
        return f"{path.name} (broken or looping symbolic link)"
    if _hidden(path.name) and path.is_file() and path.suffix.lower() in FORMATS:
        return f"{path.name} (hidden)" if path.name.startswith(".") else f"{path.name} (a spreadsheet's lock file)"
    return path.name + ("/" if path.is_dir() else "")


def check_file(path, role: str, formats=FORMATS) -> tuple[Path, str]:
    """The path and its format, or an InputError for a missing/odd file.

    Text formats are also checked for what no parser should see: compression, NUL bytes
    (see :func:`first_nul`) and CR-only line endings."""
    path = Path(path)
    if not path.exists():
        if path.is_symlink():
            raise InputError(f"{role} file is a broken symbolic link or a symbolic link loop", path=path)
        raise InputError(f"{role} file not found", path=path)
    if path.is_dir():
        raise InputError(f"{role} file is a directory, not a file"
                         + (" (--runs-dir DIR, Python: runs_dir=..., reads every run file in a folder)" if role == "run" else ""),
                         path=path)
    if not path.is_file():    # never open these: a named pipe blocks, a device never ends
        kind = ("a named pipe (FIFO)" if stat.S_ISFIFO(path.stat().st_mode) else
                "a socket" if stat.S_ISSOCK(path.stat().st_mode) else "a device")
        raise InputError(f"{role} file is {kind}, not a regular file; save the data to a file first", path=path)
    fmt = formats.get(path.suffix.lower())
    if fmt is None:
        other = _OTHER_SPREADSHEETS.get(path.suffix.lower())
        hint = f" ({other}: save the sheet as .xlsx or CSV)" if other else ""
        raise InputError(f"unsupported file type {path.suffix or '(no extension)'!r} for a {role} file{hint}; "
                         f"use one of {', '.join(formats)}", path=path)
    if path.stat().st_size == 0:
        raise InputError(f"{role} file is empty (no rows)", path=path)
    if fmt in _TEXT_FORMATS:
        check_text(path)
    return path, fmt


def check_text(path: Path) -> None:
    """Refuse compressed files, NUL bytes and CR-only line endings in a text file, naming the line."""
    with open(path, "rb") as handle:
        head = handle.read(16)
        for magic, name, tool in _COMPRESSED:
            if head.startswith(magic) and (name != "bzip2" or head[4:10] == b"1AY&SY"):
                plain = shlex.quote(f"{path.stem}-decompressed{path.suffix}")
                raise InputError(f"the file is {name}-compressed, not text: decompress it first "
                                 f"({tool} {shlex.quote(path.name)} > {plain}) and give the decompressed file",
                                 path=path)
        for bom, name in ((b"\xff\xfe\x00\x00", "UTF-32"), (b"\x00\x00\xfe\xff", "UTF-32"),
                          (b"\xff\xfe", "UTF-16"), (b"\xfe\xff", "UTF-16")):
            if head.startswith(bom):
                raise InputError(f"the file is {name} text (its byte-order mark says so); save it as UTF-8",
                                 path=path, line=1)
        handle.seek(0)
        nul = first_nul(handle)
    if nul is not None:
        offset, line = nul
        raise InputError(f"NUL byte (0x00) at byte {offset + 1}: binary data or UTF-16 text, not UTF-8 text (a "
                         "file padded or cut short by a crash, or not a text file)", path=path, line=line)
    with open(path, "rb") as handle:
        first = handle.readline(SCAN_CHUNK)
    if b"\r" in first.rstrip(b"\r\n"):
        raise InputError("lines end in a carriage return only (classic Mac OS line endings); save the file "
                         "with LF or CRLF line endings", path=path, line=1)


def first_nul(handle, chunk: int | None = None) -> tuple[int, int] | None:
    """(0-based byte offset, 1-based line) of the first NUL byte read from a binary stream, or None.

    Bounded work: reads ``chunk`` bytes at a time and stops at the first chunk holding a NUL,
    so a file of NUL bytes costs one read whatever its size; a valid file costs one pass at
    memchr speed (about what hashing it costs)."""
    chunk = chunk or SCAN_CHUNK
    seekable = handle.seekable()
    begin = handle.tell() if seekable else 0
    offset = lines = 0
    while True:
        block = handle.read(chunk)
        if not block:
            return None
        at = block.find(b"\0")
        if at >= 0:
            if seekable:         # lines are counted only now, on the error path
                handle.seek(begin)
                remaining = offset
                while remaining > 0 and (part := handle.read(min(chunk, remaining))):
                    lines += part.count(b"\n")
                    remaining -= len(part)
            return offset + at, lines + block.count(b"\n", 0, at) + 1
        offset += len(block)
        if not seekable:
            lines += block.count(b"\n")


def utf8_error(path: Path) -> InputError | None:
    """An error naming the line of the first byte that is not UTF-8 (None if all is UTF-8)."""
    data = path.read_bytes()
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        return InputError(f"not valid UTF-8 text (byte 0x{data[exc.start]:02x} at column {column}); "
                          "save the file as UTF-8", path=path, line=line)
    return None
