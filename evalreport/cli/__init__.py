"""Stage 7 - cli: ``evalreport <command> ...``.

Each command is a module in this package with a ``register(subparsers)`` function that adds
its parser and sets ``func``; commands are discovered, so adding one is adding a module.
Bad input exits with status 2 and a one-line message naming the file, line and problem.
"""
from __future__ import annotations

import argparse
import importlib
import os
import pkgutil
import re
import sys
from typing import NoReturn

from evalreport.errors import EvalReportError


def build_parser(argv=None) -> argparse.ArgumentParser:
    """The ``evalreport`` parser with every command; given the command line ``argv``, only the command
    it names where a module of that name registers it (``score`` imports ``cli/score.py`` and what it
    needs, not the report's modules). The parser parses ``argv`` exactly as the full one would: a
    command's options, help and errors are its own module's."""
    names = [info.name for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name)
             if not info.name.startswith("_") and info.name != "common"]
    command = _command_in(argv) if argv is not None else None
    if command in names:
        parser, sub = _empty_parser()
        _register(sub, command)
        if command in sub.choices:
            return parser
    parser, sub = _empty_parser()
    for name in names:
        _register(sub, name)
    return parser


class _Parser(argparse.ArgumentParser):
    """The parser of ``evalreport`` and of each command: it knows the commands' parsers (an unknown option
    is reported in the usage of the command it was given to), and an option named like one of the
    command's positional arguments (``--gold`` where the gold file is the first argument) is told how
    that argument is given."""

    commands: dict[str, argparse.ArgumentParser]

    def error(self, message: str) -> NoReturn:
        positional = {a.dest.replace("_", "-"): a.metavar or a.dest for a in self._actions
                      if not a.option_strings and a.dest not in ("help", "command")}
        first = re.search(r"(?:arguments|option): --([\w-]+)", message)
        if first and first.group(1) in positional:
            names = " ".join(str(m).upper() for m in positional.values())
            message += f" ({first.group(1)} takes no option name: {self.prog} {names} [options])"
        super().error(message)


def _empty_parser():
    from evalreport import __version__

    parser = _Parser(
        prog="evalreport",
        description="Rank classification systems under every measure, with uncertainty, prevalence "
                    "calibration and a measure audit.")
    parser.add_argument("--version", action="version", version=f"evalreport {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    parser.commands = sub.choices
    return parser, sub


def _register(sub, name: str) -> None:
    module = importlib.import_module(f"{__name__}.{name}")
    if hasattr(module, "register"):
        module.register(sub)


def _command_in(argv) -> str | None:
    """The command of a command line: its first word that is not an option."""
    return next((a for a in argv if not a.startswith("-")), None)


def _unknown_arguments(parser: argparse.ArgumentParser, args: argparse.Namespace, extra: list[str]) -> None:
    """Exit 2 naming the arguments no option takes, in the usage of the command they were given to."""
    own = getattr(parser, "commands", {}).get(getattr(args, "command", None) or "", parser)
    own.error(f"unrecognized arguments: {' '.join(extra)}")


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(argv)
    args, extra = parser.parse_known_args(argv)
    if extra:
        _unknown_arguments(parser, args, extra)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    import warnings

    def note(message, category, filename, lineno, file=None, line=None):
        # the library's warnings are notes to the user: one line, no Python source location
        from evalreport.cli.common import print_note

        print_note(message)

    import signal

    stopped: list[int] = []

    def stop(signum, frame):
        # Ctrl-C, timeout(1), kill, a closed terminal: end the notebook kernels at once, then unwind like
        # Ctrl-C (kernels shut down, staging folder removed); a second signal exits without unwinding
        _stop_kernels()
        if stopped:
            os._exit(128 + signum)
        stopped.append(signum)
        raise KeyboardInterrupt

    _log_warnings_as_notes()
    previous = {}
    for name in ("SIGINT", "SIGTERM", "SIGHUP"):
        signum = getattr(signal, name, None)
        try:
            if signum is not None and signal.getsignal(signum) is not signal.SIG_IGN:
                previous[signum] = signal.signal(signum, stop)
        except ValueError:      # not the main thread: leave signals alone
            break
    try:
        with warnings.catch_warnings():
            warnings.showwarning = note
            from evalreport.cli.common import prepare

            if os.environ.get("SOURCE_DATE_EPOCH", "").strip():
                # a malformed value: one line now, before a library read at import (numpy's f2py) fails on it
                from evalreport.report.report_meta import created

                created()
            args = prepare(parser, args, argv)     # --task-file, plugins
            return int(args.func(args) or 0)
    except EvalReportError as exc:
        if stopped:
            return _interrupted(stopped)
        print(f"evalreport: error: {_error_text(exc)}", file=sys.stderr)
        return getattr(exc, "exit_status", 2)        # 3: an organiser's configuration (errors.ConfigError)
    except BrokenPipeError:  # e.g. `evalreport measures | head`
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except KeyboardInterrupt:
        return _interrupted(stopped or [getattr(signal, "SIGINT", 2)])
    except OSError as exc:      # a file-system error no check foresaw: one line, not a traceback
        if stopped:
            return _interrupted(stopped)
        from evalreport.escape import one_line

        where = " -> ".join(os.fsdecode(f) for f in (exc.filename, exc.filename2) if f is not None)
        reason = exc.strerror or str(exc) or type(exc).__name__
        print(f"evalreport: error: {one_line(where + ': ' if where else '')}{one_line(reason)}", file=sys.stderr)
        return 2
    except MemoryError:
        _stop_kernels()
        print("evalreport: error: out of memory (fewer resamples, --bootstrap, or fewer classes or systems "
              "need less)", file=sys.stderr)
        return 2
    finally:
        for signum, handler in previous.items():
            if handler is not None:     # None: a handler not set from Python, which cannot be put back
                signal.signal(signum, handler)


def _error_text(exc: EvalReportError) -> str:
    """The text of an error line, inert (:func:`evalreport.escape.one_line`)."""
    from evalreport.errors import InputError, MeasureError, OutputError
    from evalreport.escape import one_line

    text = str(exc)
    if isinstance(exc, (InputError, MeasureError, OutputError)):
        return one_line(text)
    first, *rest = text.split("\n")
    return "\n".join([one_line(first), *(f"  {one_line(line)}" for line in rest)])


def run() -> None:
    """The ``evalreport`` executable: :func:`main`, then leave without the interpreter's teardown.

    Everything evalreport writes is complete and closed when :func:`main` returns (outputs are
    swapped in atomically, kernels are shut down). The teardown after that only runs native
    destructors, and pyarrow's thread pool has been seen to abort there at random ("terminate
    called without an active exception", exit status -6 instead of 2, about once in 50 runs), so
    the process ends with ``os._exit`` once the standard streams are flushed.
    """
    _keep_freed_memory()
    _no_blas_threads(sys.argv[1:2])
    code = main()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):       # a closed pipe (`evalreport measures | head`)
            pass
    os._exit(code)


def _no_blas_threads(command: list[str]) -> None:
    """One OpenBLAS thread for ``score``, which computes no matrix product (more threads would only spin)."""
    if command == ["score"]:
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")      # read when numpy is imported, later


def _keep_freed_memory() -> None:
    """Let glibc's allocator keep freed memory for the process's next arrays, without huge pages (Linux).

    By default an array above the allocator's threshold (at most 32 MB) is mapped fresh and returned
    to the system when freed, so every temporary of a pass over a million-item column costs its pages
    again in page faults: ``evalreport score`` on 20 systems x 1e6 items with per-class scores took
    1.6 million minor faults and 2.4 s of system time, against 0.12 million and 0.45 s with these
    settings (the same as ``GLIBC_TUNABLES=glibc.malloc.mmap_threshold=...:glibc.malloc.trim_threshold=...``
    plus ``MALLOC_ARENA_MAX=1``).
    Only the command's own process is changed; the library, when imported, leaves the allocator alone.
    """
    if not sys.platform.startswith("linux"):
        return
    # numpy asks for transparent huge pages for large arrays; where the kernel compacts memory to find them
    # (defrag "madvise", a common default) that cost 1.2-1.5 s of system time against 0.65 s without
    os.environ.setdefault("NUMPY_MADVISE_HUGEPAGE", "0")       # read when numpy is imported, below
    try:
        import ctypes

        libc = ctypes.CDLL(None)
        mallopt = libc.mallopt
    except (OSError, AttributeError):       # not glibc (musl has no mallopt)
        return
    m_trim_threshold, m_mmap_threshold, m_arena_max = -1, -3, -8          # glibc's <malloc.h>
    mallopt(m_mmap_threshold, 256 << 20)    # up to 256 MB from the heap, reused when freed
    mallopt(m_trim_threshold, 1 << 30)      # and kept up to 1 GB of free memory at the heap's top
    # one arena for every thread: a thread's own arena grows in heaps of at most 64 MB, and a heap that
    # empties is unmapped whatever the thresholds, so a worker whose temporaries span two heaps faulted
    # its pages in again for every column (0.13 to 0.33 million faults a run of the command above, by
    # how the threads met their arenas; 0.12 million with one). The large allocations are few, so
    # threads seldom wait for the arena's lock.
    mallopt(m_arena_max, 1)


def _log_warnings_as_notes() -> None:
    """Print the ``evalreport`` logger's warnings (e.g. Quarto's) as one-line notes; debug and info stay quiet."""
    import logging

    logger = logging.getLogger("evalreport")
    if any(getattr(h, "_evalreport_cli", False) for h in logger.handlers):
        return

    class NoteHandler(logging.StreamHandler):
        _evalreport_cli = True      # the mark by which a second call finds this handler installed

    handler = NoteHandler(sys.stderr)
    handler.setLevel(logging.WARNING)
    from evalreport.escape import one_line

    class Inert(logging.Formatter):        # a note line prints inert, as print_note prints one
        def format(self, record):
            return one_line(super().format(record))

    handler.setFormatter(Inert("evalreport: note: %(message)s"))
    logger.addHandler(handler)     # (with a handler here, Python's last-resort handler stays silent)


def _interrupted(stopped) -> int:
    import signal

    _stop_kernels()
    try:
        name = signal.Signals(stopped[0]).name
    except ValueError:
        name = str(stopped[0])
    print("evalreport: interrupted" if name == "SIGINT" else f"evalreport: stopped ({name})", file=sys.stderr)
    return 128 + int(stopped[0])


def _stop_kernels() -> None:
    """Kill the notebook kernels this process started that still run (Linux; elsewhere they end by themselves)."""
    import signal

    me = str(os.getpid())
    try:
        entries = os.listdir("/proc")
    except OSError:
        return
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as fh:
                ppid = fh.read().rsplit(b")", 1)[1].split()[1].decode()
            if ppid != me:
                continue
            with open(f"/proc/{entry}/cmdline", "rb") as fh:
                if b"ipykernel_launcher" not in fh.read():
                    continue
            pid = int(entry)
            # a kernel leads its own process group (jupyter_client starts it in a new session)
            if os.getpgid(pid) == pid:
                os.killpg(pid, signal.SIGKILL)
            else:
                os.kill(pid, signal.SIGKILL)
        except (OSError, IndexError, ValueError):
            continue


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
