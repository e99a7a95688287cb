"""Atomic output folders: build next to the target, rename into place, never leave half a result."""
from __future__ import annotations

import os
import shutil
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from evalreport.errors import OutputError


@contextmanager
def atomic_dir(target, *, overwrite: bool = True) -> Iterator[Path]:
    """Yield an empty staging folder beside ``target``; when the block succeeds the staging
    folder replaces ``target`` (an existing folder is swapped out in one rename, then deleted);
    when it fails the staging folder is removed and ``target`` is left as it was."""
    target = Path(target)
    if target.exists() and not target.is_dir():
        raise OutputError(f"{target} exists and is not a folder")
    if target.exists() and not overwrite:
        raise OutputError(f"{target} exists (overwrite=False)")
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent))
    try:
        yield staging
        _usual_mode(staging)
        if target.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".old", dir=target.parent))
            os.replace(target, old / "previous")
            os.replace(staging, target)
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.replace(staging, target)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


def _usual_mode(folder: Path) -> None:
    """mkdtemp makes folders 0700; give the results the user's usual permissions (umask)."""
    mask = os.umask(0)
    os.umask(mask)
    for path in [folder, *(p for p in folder.rglob("*") if p.is_dir())]:
        os.chmod(path, 0o777 & ~mask)
