"""Where the scoring program finds its data: the one file of ``INPUT/ref/`` (the gold file) and of
``INPUT/res/`` (the submission), and the checks that keep a submission from reading anything outside
its own folder (links, special files, a path that resolves elsewhere). The layout is the platform's
(Codabench docs: "Submission Docker Container Layout"; see docs/codabench.md).
"""
from __future__ import annotations

import os
import stat
from pathlib import Path

from evalreport.errors import InputError

__all__ = ["data_file"]

#: Files in ``ref/`` or ``res/`` that are the platform's, not data (CodaLab bundles carry ``metadata``).
_IGNORED = ("metadata", "metadata.yaml")


def data_file(folder: Path, role: str) -> Path:
    """The one data file of ``folder`` (``ref`` or ``res``): the only supported file at its top
    level, or else the only one anywhere below it (a zip that held a folder). Anything else is an
    error naming the folder and what was found. In ``res/`` a symbolic link, or anything but a
    folder or a regular file, at any depth, is a submission error (:func:`_listing`)."""
    from evalreport.inputs.checks import SUPPORTED_EXTENSIONS

    folder = Path(folder)
    what = {"ref": "reference data (the gold file)", "res": "submission"}[role]
    if not folder.is_dir():
        raise InputError(f"no {role}/ folder: the platform puts the {what} there", path=folder)

    def usable(p: Path) -> bool:
        return not p.name.startswith(".") and p.name not in _IGNORED

    # a submission is walked whole before anything is chosen (a link anywhere in it is refused)
    listing = _listing(folder, links=role == "ref", deep=role == "res")
    top = [p for p in listing if p.parent == folder and usable(p)]
    data = [p for p in top if p.suffix.lower() in SUPPORTED_EXTENSIONS]
    if not data and not top:
        if role == "ref":
            listing = _listing(folder, links=True, deep=True)
        deep = [p for p in listing if usable(p) and not any(
            part.startswith(".") or part == "__MACOSX" for part in p.relative_to(folder).parts)]
        data = [p for p in deep if p.suffix.lower() in SUPPORTED_EXTENSIONS]
        top = deep
    if len(data) == 1:
        return data[0] if role == "ref" else _inside(data[0], folder)
    kinds = ", ".join(SUPPORTED_EXTENSIONS)
    if not data:
        found = ", ".join(p.name for p in top[:5]) or "nothing"
        raise InputError(f"the {what} must be one file of a supported format ({kinds}); found {found}", path=folder)
    raise InputError(f"the {what} must be one file; found {len(data)}: "
                     f"{', '.join(p.name for p in data[:5])}", path=folder)


def _listing(folder: Path, *, links: bool, deep: bool = True) -> list[Path]:
    """Every regular file below ``folder``, at any depth (``deep=False``: at its top level), sorted.
    The walk keeps its own stack (a submission nested thousands of folders deep is walked like a
    flat one) and never enters a linked folder. ``links=False`` (a submission, which arrives as a zip and may carry links): a symbolic
    link or a special file (FIFO, socket, device) anywhere is refused, naming it and never opening
    it, so that nothing outside ``res/`` (the gold file in ``ref/``, ``/etc/passwd``) is read
    through the submission. ``links=True`` (the organiser's ``ref/``): a link to a file counts as
    that file."""
    files, stack = [], [folder]
    while stack:
        here = stack.pop()
        with os.scandir(here) as entries:
            for entry in entries:
                path = here / entry.name
                if entry.is_symlink():
                    if links and entry.is_file():
                        files.append(path)
                    elif not links:
                        raise InputError(f"{path.relative_to(folder)} is a symbolic link; a submission holds "
                                         "regular files only (links are not followed)", path=folder)
                elif entry.is_dir(follow_symlinks=False):
                    if deep:
                        stack.append(path)
                elif entry.is_file(follow_symlinks=False):
                    files.append(path)
                elif not links:
                    raise InputError(f"{path.relative_to(folder)} is not a regular file (a FIFO, socket or "
                                     "device); a submission holds regular files only", path=folder)
    return sorted(files)


def _inside(path: Path, folder: Path) -> Path:
    """``path`` when it resolves to a regular file inside ``folder``; else a submission error naming it."""
    where = path.resolve()
    if not where.is_relative_to(folder.resolve()) or not stat.S_ISREG(os.lstat(where).st_mode):
        raise InputError(f"{path.relative_to(folder)} lies outside the submission folder; a submission holds "
                         "regular files only", path=folder)
    return path

