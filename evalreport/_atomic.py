"""Atomic output folders: build next to the target, rename into place, never leave half a result.

Every folder written this way carries a marker file (:data:`MARKER`). An existing target is
replaced only if it is empty or carries the marker, i.e. was written by evalreport, and never if
it holds one of the run's inputs (e.g. the ``data/`` that ``evalreport demo`` writes inside its
own output): ``-o`` / ``--out`` pointed at the wrong folder is an error, never a loss.
"""
from __future__ import annotations

import os
import shutil
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from evalreport.errors import OutputError

MARKER = ".evalreport-output"


@contextmanager
def atomic_dir(target, *, overwrite: bool = True, inputs=()) -> Iterator[Path]:
    """Yield an empty staging folder beside ``target``; when the block succeeds the staging
    folder replaces ``target`` (a previous evalreport output is swapped out in one rename, then
    deleted); when it fails the staging folder is removed and ``target`` is left as it was.
    ``inputs``: files or folders that must survive, so ``target`` may not contain them."""
    target = Path(target)
    check_outside(target, inputs)
    if target.exists():
        if not target.is_dir():
            raise OutputError(f"{target} exists and is not a folder")
        if not overwrite:
            raise OutputError(f"{target} exists (overwrite=False)")
        if any(target.iterdir()) and not (target / MARKER).exists():
            raise OutputError(f"{target} exists and was not written by evalreport; remove it or choose another "
                              "output folder (nothing was written)")
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent))
    old = None
    try:
        yield staging
        (staging / MARKER).write_text("written by evalreport; this folder is replaced by the next run\n",
                                      encoding="utf-8")
        _usual_mode(staging)
        if target.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".old", dir=target.parent))
            os.replace(target, old / "previous")
        os.replace(staging, target)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        if old is not None and (old / "previous").exists() and not target.exists():
            os.replace(old / "previous", target)        # put the previous output back
        raise
    finally:
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)


def check_outside(target, inputs) -> None:
    """An :class:`OutputError` if writing ``target`` would replace one of ``inputs``."""
    where = Path(target).resolve()
    for item in inputs:
        if item is None or str(item) == "":
            continue
        path = Path(item).resolve()
        if path == where or where in path.parents:
            raise OutputError(f"{target} holds the input {item}: writing the output there would delete it; "
                              "choose another output folder (nothing was written)")


def _usual_mode(folder: Path) -> None:
    """mkdtemp makes folders 0700; give the results the user's usual permissions (umask)."""
    mask = os.umask(0)
    os.umask(mask)
    for path in [folder, *(p for p in folder.rglob("*") if p.is_dir())]:
        os.chmod(path, 0o777 & ~mask)
