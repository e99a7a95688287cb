"""Atomic output folders: build next to the target, swap into place, never leave half a result.

Every folder written this way carries a marker file (:data:`MARKER`). An existing target is
replaced only if it is empty or carries the marker, i.e. was written by evalreport, and never if
it holds one of the run's inputs (e.g. the ``data/`` that ``evalreport demo`` writes inside its
own output): ``-o`` / ``--out`` pointed at the wrong folder is an error, never a loss.

Faults and concurrency
----------------------
The output is built in a staging folder ``.NAME.PID-XXXXXXXX.tmp`` beside ``NAME`` (PID: the
writing process). The swap is one ``renameat2(RENAME_EXCHANGE)`` on Linux: at every instant
``NAME`` is either the complete previous output or the complete new one, so a process killed
(even with ``kill -9``) at any moment leaves the previous output byte for byte, or the new one
once the exchange is made. Where the exchange is not available (another OS, a file system
without it) the swap is two renames, the previous output parked in ``.NAME.PID-XXXXXXXX.old``
in between; a run killed in that window leaves it there and the next run puts it back.

The swap and that recovery happen under an exclusive lock (``flock`` on ``.NAME.lock`` beside
the target, removed afterwards), so two commands writing the same folder each swap in a
complete output in turn (the last one wins) instead of failing halfway. Each run first removes
the staging and parked folders that processes no longer running left beside its target.

Errors of the file system (the parent is a file, a read-only folder, a mount point, the current
folder, a full disk) are :class:`OutputError` s with one line naming the folder and the problem;
the previous output is then unchanged.
"""
from __future__ import annotations

import errno
import hashlib
import os
import re
import shutil
import sys
import tempfile
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from evalreport.errors import OutputError

try:
    import fcntl
except ImportError:                                   # not a POSIX system: no lock (the swap is still atomic)
    fcntl = None  # type: ignore[assignment]  # mypy types the name as the module; None marks it absent

MARKER = ".evalreport-output"

_AT_FDCWD = -100
_RENAME_EXCHANGE = 2
_exchange_unsupported: set[int | None] = set()  # st_dev of file systems that refused RENAME_EXCHANGE
_NOT_SUPPORTED = {errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP, getattr(errno, "ENOTSUP", errno.EOPNOTSUPP)}
_SPACE = {errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC), errno.EFBIG}


@contextmanager
def atomic_dir(target, *, overwrite: bool = True, inputs=()) -> Iterator[Path]:
    """Yield an empty staging folder beside ``target``; when the block succeeds the staging
    folder replaces ``target`` in one atomic exchange (the previous evalreport output is then
    deleted); when it fails the staging folder is removed and ``target`` is left as it was.
    ``inputs``: files or folders that must survive, so ``target`` may not contain them."""
    target = _absolute(target)
    check_outside(target, inputs)
    _check_target(target, overwrite)
    parent = target.parent
    try:
        parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise _output_error(target, exc) from None
    try:
        with _locked(target):
            _recover(target)
        staging = Path(tempfile.mkdtemp(prefix=f"{_prefix(target)}.{os.getpid()}-", suffix=".tmp", dir=parent))
    except OSError as exc:
        raise _output_error(target, exc) from None
    try:
        yield staging
        (staging / MARKER).write_text("written by evalreport; this folder is replaced by the next run\n",
                                      encoding="utf-8")
        _usual_mode(staging)
    except BaseException as exc:
        _remove(staging)
        if isinstance(exc, OSError) and not isinstance(exc, OutputError):
            error = _output_error(target, exc, staging=staging, inside=True)
            if error is not None:
                raise error from None
        raise
    try:
        with _locked(target):
            _recover(target)
            _check_target(target, overwrite)        # again: another process may have written it meanwhile
            leftover = _swap(staging, target)
    except BaseException as exc:
        _remove(staging)
        if isinstance(exc, OSError) and not isinstance(exc, OutputError):
            raise _output_error(target, exc) from None
        raise
    if leftover is not None:
        _remove(leftover)                           # the previous output (killed here: removed by the next run)


def check_target(target, *, overwrite: bool = True) -> None:
    """The checks :func:`atomic_dir` makes of ``target`` before it writes, alone: for a command that
    works a while before it writes (a demo trains its classifiers first), so that a target it could
    never replace fails at once."""
    _check_target(_absolute(target), overwrite)


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


# ----------------------------------------------------------------------------- checks and messages


def _absolute(target) -> Path:
    """``target`` as an absolute path with a real last component (``.`` and ``x/..`` resolved)."""
    try:
        path = Path(os.path.abspath(os.fspath(target)))
    except OSError as exc:                            # the current folder was deleted
        raise OutputError(f"{target}: cannot use it as the output folder: {_reason(exc)} "
                          "(nothing was written)") from None
    if not path.name:
        raise OutputError(f"{target}: the root folder cannot be an output folder (nothing was written)")
    if path.is_symlink() and path.is_dir():
        # a link to an output folder: replace the folder it points to and keep the link (replacing the
        # link itself would leave a real folder here and the stale report behind the link)
        path = path.resolve()
    return path


def _check_target(target: Path, overwrite: bool) -> None:
    if not target.exists():
        if target.is_symlink():
            raise OutputError(f"{target} is a broken symbolic link; remove it or choose another output folder "
                              "(nothing was written)")
        return
    if not target.is_dir():
        raise OutputError(f"{target} exists and is not a folder (nothing was written)")
    if not overwrite:
        raise OutputError(f"{target} exists (overwrite=False)")
    try:
        foreign = any(target.iterdir()) and not (target / MARKER).exists()
    except OSError as exc:
        raise _output_error(target, exc) from None
    if foreign:
        raise OutputError(f"{target} exists and was not written by evalreport; remove it or choose another "
                          "output folder (nothing was written)")
    if os.path.ismount(target):
        raise OutputError(f"{target} is a mount point, which cannot be replaced: write the output to a folder "
                          "inside it (nothing was written)")
    try:
        here = Path.cwd().resolve()
    except OSError:
        return
    real = target.resolve()
    if here == real or real in here.parents:
        raise OutputError(f"{target} is the current folder (or holds it), which cannot be replaced while you are "
                          "in it: run from another folder, e.g. cd .. (nothing was written)")


def _reason(exc: OSError) -> str:
    return exc.strerror or (os.strerror(exc.errno) if exc.errno else str(exc)) or type(exc).__name__


def _output_error(target: Path, exc: OSError, *, staging: Path | None = None, inside: bool = False):
    """One line for an OSError met while writing ``target``."""
    reason = _reason(exc)
    name = exc.filename
    if inside:
        where: Path | None = None
        if name is not None and staging is not None:
            try:
                where = Path(os.fsdecode(name)).resolve().relative_to(staging.resolve())
            except (ValueError, OSError, TypeError):
                where = None
        if exc.errno in _SPACE:
            what = f" ({where})" if where is not None and str(where) != "." else ""
            return OutputError(f"{target}: {reason} while writing the output{what}; the previous output is "
                               "unchanged (nothing was written)")
        if where is None:
            return None
        return OutputError(f"{target}: {reason} while writing {where}; the previous output is unchanged "
                           "(nothing was written)")
    if exc.errno in (errno.EEXIST, errno.ENOTDIR):
        blocker = _file_ancestor(target)
        if blocker is not None:
            return OutputError(f"{target}: {blocker} is a file, not a folder, so the output folder cannot be "
                               "created there (nothing was written)")
    if exc.errno == errno.EBUSY:
        return OutputError(f"{target}: {reason} (a mount point, or a folder in use, cannot be replaced): write "
                           "the output to another folder (nothing was written)")
    path = None if name is None else Path(os.fsdecode(name))
    if path is None or path in (target, target.parent) or (path.parent == target.parent
                                                            and path.name.startswith(_prefix(target) + ".")):
        place = f"in {target.parent}"                 # the folder itself, or our staging or lock file beside it
    else:
        place = f"({path})"
    return OutputError(f"{target}: cannot write the output folder {place}: {reason} (nothing was written)")


def _file_ancestor(path: Path) -> Path | None:
    for p in [path, *path.parents]:
        if os.path.lexists(p) and not p.is_dir():
            return p
    return None


# ----------------------------------------------------------------------------- the swap


def _swap(staging: Path, target: Path) -> Path | None:
    """Put ``staging`` at ``target``; return the folder now holding the previous output (to delete), if any."""
    if not os.path.lexists(target):
        os.rename(staging, target)
        return None
    if _exchange(staging, target):
        return staging                                # the exchange left the previous output at staging's name
    # two renames; a kill in between leaves the previous output parked for _recover
    old = Path(tempfile.mkdtemp(prefix=f"{_prefix(target)}.{os.getpid()}-", suffix=".old", dir=target.parent))
    os.replace(target, old / "previous")
    try:
        os.replace(staging, target)
    except BaseException:
        os.replace(old / "previous", target)          # put the previous output back
        _remove(old)
        raise
    return old


def _renameat2():
    if not sys.platform.startswith("linux"):
        return None
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        func = libc.renameat2
    except (OSError, AttributeError):                 # no renameat2 in this C library
        return None
    func.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    func.restype = ctypes.c_int
    return func


_RENAMEAT2 = _renameat2()


def _exchange(a: Path, b: Path) -> bool:
    """Exchange ``a`` and ``b`` atomically (Linux ``renameat2(RENAME_EXCHANGE)``); False when not available."""
    if _RENAMEAT2 is None:
        return False
    try:
        dev = os.stat(a.parent).st_dev
    except OSError:
        dev = None
    if dev in _exchange_unsupported:
        return False
    import ctypes

    if _RENAMEAT2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    err = ctypes.get_errno()
    if err in _NOT_SUPPORTED:
        _exchange_unsupported.add(dev)
        return False
    raise OSError(err, os.strerror(err), os.fspath(b))


@contextmanager
def _locked(target: Path):
    """Hold an exclusive ``flock`` on ``.NAME.lock`` beside ``target`` (removed on release; none where unsupported)."""
    path = target.parent / f"{_prefix(target)}.lock"
    fd = None
    while fcntl is not None:
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o644)
        except OSError as exc:
            if exc.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
                raise
            fd = None
            break
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
        except OSError:                                # e.g. a file system without locks
            os.close(fd)
            fd = None
            break
        try:                                           # the holder before us may have removed the file
            same = os.stat(path).st_ino == os.fstat(fd).st_ino
        except FileNotFoundError:
            same = False
        if same:
            break
        os.close(fd)
    try:
        yield
    finally:
        if fd is not None:
            try:
                os.unlink(path)
            except OSError:
                pass
            os.close(fd)


# ----------------------------------------------------------------------------- leftovers of killed runs


def _prefix(target: Path) -> str:
    """``.NAME``, shortened with a hash for very long names (the file name limit is 255 bytes)."""
    name = target.name
    if len(os.fsencode(name)) <= 120:
        return f".{name}"
    digest = hashlib.sha1(os.fsencode(name)).hexdigest()[:12]
    return f".{name[:60]}~{digest}"


def _leftovers(target: Path) -> list[tuple[Path, str, int]]:
    """``(path, kind, pid)`` of the staging (``tmp``) and parked (``old``) folders beside ``target``."""
    prefix = _prefix(target) + "."
    pattern = re.compile(r"(\d+)-[a-z0-9_]{8}\.(tmp|old)")
    try:
        entries = list(os.scandir(target.parent))
    except OSError:
        return []
    out = []
    for entry in entries:
        if not entry.name.startswith(prefix):
            continue
        m = pattern.fullmatch(entry.name[len(prefix):])
        if m is None:
            continue
        out.append((Path(entry.path), m.group(2), int(m.group(1))))
    return out


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:                                    # e.g. another user's process
        return True
    return True


def _recover(target: Path) -> None:
    """Under the lock: restore an output left parked by a killed run; remove dead processes' staging folders."""
    found = _leftovers(target)
    if not os.path.lexists(target):
        parked = [(p, pid) for p, kind, pid in found if kind == "old" and (p / "previous").is_dir()
                  and not _alive(pid)]
        if parked:
            path, _ = max(parked, key=lambda item: item[0].lstat().st_mtime)
            os.rename(path / "previous", target)
            warnings.warn(f"{target}: put back the previous output, which an interrupted run had left in "
                          f"{path.name}", RuntimeWarning, stacklevel=2)
    for path, _kind, pid in found:
        if not _alive(pid):
            _remove(path)


def _remove(path: Path) -> None:
    if path.is_symlink():
        try:
            path.unlink()
        except OSError:
            pass
    else:
        shutil.rmtree(path, ignore_errors=True)


def _usual_mode(folder: Path) -> None:
    """mkdtemp makes folders 0700; give the results the user's usual permissions (umask)."""
    mask = os.umask(0)
    os.umask(mask)
    for path in [folder, *(p for p in folder.rglob("*") if p.is_dir())]:
        os.chmod(path, 0o777 & ~mask)
