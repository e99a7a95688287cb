"""Stage 7 - cli: ``evalreport <command> ...``.

Each command is a module in this package with a ``register(subparsers)`` function that adds
its parser and sets ``func``; commands are discovered, so adding one is adding a module.
Bad input exits with status 2 and a one-line message naming the file, line and problem.
"""
from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys

from evalreport.errors import EvalReportError


def build_parser() -> argparse.ArgumentParser:
    from evalreport import __version__

    parser = argparse.ArgumentParser(
        prog="evalreport",
        description="Rank classification systems under every measure, with uncertainty, prevalence "
                    "calibration and a measure audit.")
    parser.add_argument("--version", action="version", version=f"evalreport {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name):
        if info.name.startswith("_") or info.name == "common":
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        if hasattr(module, "register"):
            module.register(sub)
    return parser


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    import warnings

    def note(message, category, filename, lineno, file=None, line=None):
        # the library's warnings are notes to the user: one line, no Python source location
        print(f"evalreport: note: {message}", file=sys.stderr)

    try:
        with warnings.catch_warnings():
            warnings.showwarning = note
            return int(args.func(args) or 0)
    except EvalReportError as exc:
        print(f"evalreport: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # e.g. `evalreport measures | head`
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except KeyboardInterrupt:
        print("evalreport: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
