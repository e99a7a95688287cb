"""Measures of one's own: plugin files (``--plugin FILE.py``) and installed entry points.

A plugin is Python code that adds records to the one registry with
:func:`evalreport.measures.register` (see docs/plugins.md for the contract and a complete
example). Two ways in:

``load_plugin(path)``
    runs a Python file once per process (loading it again is a no-op) and returns the ids it
    registered;
``load_entry_points()``
    imports every object of the ``evalreport.measures`` entry-point group of the installed
    distributions: a module (importing it registers), a :class:`Measure` (registered), or a
    callable taking no arguments (called; it may register itself, or return one :class:`Measure`
    or a list of them to register).

Whatever goes wrong is one :class:`~evalreport.errors.InputError` naming the file (and line): a
missing file, a syntax error, an exception at import, an id that is already registered (a
built-in measure or alias cannot be replaced). A failed plugin leaves the registry as it was.

Each registered function is wrapped once, at registration: an exception raised inside it
becomes a :class:`PluginError` naming the plugin and the measure id (the CLI prints that line
and exits with status 2). Built-in measures are not wrapped and pay nothing.
"""
from __future__ import annotations

import functools
import hashlib
import importlib.util
import sys
import traceback
from dataclasses import replace
from pathlib import Path

from evalreport.errors import EvalReportError, InputError, MeasureError
from evalreport.measures import _core

#: Entry-point group that installed packages use to add measures.
GROUP = "evalreport.measures"

#: Measure id -> where it came from (a plugin file's resolved path, or ``entry point NAME (VALUE)``).
ORIGINS: dict[str, str] = {}

#: Resolved plugin path -> (SHA-256 of the file as loaded, the ids it registered).
LOADED: dict[str, tuple[str, tuple[str, ...]]] = {}

_ENTRY_POINTS: dict[tuple[str, str], tuple[str, ...]] = {}

#: (entry point name, value) -> (distribution name, distribution version) of every entry point loaded.
_DISTRIBUTIONS: dict[tuple[str, str], tuple[str, str]] = {}


class PluginError(EvalReportError):
    """An exception raised inside a plugin's measure function (named with the plugin and the id).

    Not a :class:`~evalreport.errors.MeasureError`: code that treats a measure error as "does not
    apply" must not hide a failing plugin."""


def load_plugin(path) -> list[str]:
    """Run the plugin file ``path`` (once per process) and return the ids of the measures it registered."""
    file = Path(path).expanduser()
    key = str(file.resolve()) if file.exists() else str(file)
    if key in LOADED:
        return list(LOADED[key][1])
    if not file.is_file():
        raise InputError("plugin file not found" if not file.exists() else "plugin is not a file", path=path)
    data = file.read_bytes()
    try:
        code = compile(data, key, "exec")
    except SyntaxError as exc:
        raise InputError(f"syntax error in plugin: {exc.msg}", path=path, line=exc.lineno) from None
    except ValueError as exc:      # e.g. a NUL byte
        raise InputError(f"cannot read plugin: {exc}", path=path) from None
    name = "evalreport_plugin_" + hashlib.sha256(key.encode()).hexdigest()[:16]
    spec = importlib.util.spec_from_loader(name, loader=None, origin=key)
    module = importlib.util.module_from_spec(spec)
    module.__file__ = key

    def run():
        sys.modules[name] = module     # (dataclasses and pickling look the module up by name)
        try:
            exec(code, module.__dict__)
        except BaseException:
            sys.modules.pop(name, None)
            raise

    ids = _registering(run, origin=key, path=path, line_of=key)
    LOADED[key] = (hashlib.sha256(data).hexdigest(), tuple(ids))
    return ids


def load_plugins(paths=(), *, entry_points: bool = True) -> list[str]:
    """:func:`load_entry_points` (if asked) and :func:`load_plugin` for each path; the ids registered."""
    ids = load_entry_points() if entry_points else []
    for p in paths or ():
        ids += load_plugin(p)
    return ids


def load_entry_points() -> list[str]:
    """Load every ``evalreport.measures`` entry point not loaded yet; the ids they registered."""
    from importlib.metadata import entry_points

    out: list[str] = []
    for ep in entry_points(group=GROUP):
        key = (ep.name, ep.value)
        if key in _ENTRY_POINTS:
            out += _ENTRY_POINTS[key]
            continue
        dist = getattr(getattr(ep, "dist", None), "name", None)
        _DISTRIBUTIONS[key] = (dist or "", getattr(getattr(ep, "dist", None), "version", None) or "")
        origin = f"entry point {ep.name} ({ep.value}" + (f", distribution {dist})" if dist else ")")

        def run(ep=ep):
            obj = ep.load()
            if isinstance(obj, _core.Measure):
                _core.register(obj)
            elif callable(obj) and not isinstance(obj, type):
                made = obj()
                for m in ([made] if isinstance(made, _core.Measure) else list(made or ())):
                    _core.register(m)

        ids = _registering(run, origin=origin, path=origin, line_of=None)
        _ENTRY_POINTS[key] = tuple(ids)
        out += ids
    return out


def plugin_sources() -> list[tuple[str, str]]:
    """(path, SHA-256) of every plugin file loaded in this process, in load order."""
    return [(path, sha) for path, (sha, _) in LOADED.items()]


def entry_point_sources() -> list[dict]:
    """Every loaded entry point that registered measures, for a report's inputs: ``name``,
    ``value`` (``module:object``), ``distribution`` and ``version`` (of the installed distribution
    that declares it; ``""`` where the metadata has none) and ``ids``, in load order."""
    return [{"name": name, "value": value, "distribution": _DISTRIBUTIONS.get((name, value), ("", ""))[0],
             "version": _DISTRIBUTIONS.get((name, value), ("", ""))[1], "ids": ids}
            for (name, value), ids in _ENTRY_POINTS.items() if ids]


def _registering(run, *, origin: str, path, line_of: str | None) -> list[str]:
    """Call ``run`` (code that registers measures); wrap the new records' functions, or undo them all
    and raise one InputError naming ``path`` if anything fails."""
    before, before_aliases = set(_core.REGISTRY), set(_core.ALIASES)
    try:
        run()
    except EvalReportError as exc:
        _undo(before, before_aliases)
        raise InputError(f"plugin refused: {exc}" + _hint(exc), path=path) from None
    except BaseException as exc:           # (SystemExit too: a plugin must not end the process)
        _undo(before, before_aliases)
        if isinstance(exc, KeyboardInterrupt):
            raise
        line = _line_in(exc, line_of)
        raise InputError(f"plugin raised {type(exc).__name__} at import: {exc}", path=path, line=line) from None
    new = [i for i in _core.REGISTRY if i not in before]
    for ident in new:
        m = _core.REGISTRY[ident]
        _core.REGISTRY[ident] = replace(m, fn=_guarded(m.fn, origin, ident))
        ORIGINS[ident] = origin
    for alias in (a for a in _core.ALIASES if a not in before_aliases):
        ORIGINS[alias] = origin
    return new


def _hint(exc) -> str:
    if isinstance(exc, MeasureError) and "already registered" in str(exc):
        return " (a plugin adds measures; it cannot replace a built-in measure, an alias or another plugin's id)"
    return ""


def _undo(before: set, before_aliases: set) -> None:
    for ident in [i for i in _core.REGISTRY if i not in before]:
        del _core.REGISTRY[ident]
    for alias in [a for a in _core.ALIASES if a not in before_aliases]:
        del _core.ALIASES[alias]


def _line_in(exc: BaseException, filename: str | None) -> int | None:
    """The line of the plugin file where ``exc`` was raised (the innermost frame in that file)."""
    if filename is None:
        return None
    line = None
    for frame in traceback.extract_tb(exc.__traceback__):
        if frame.filename == filename:
            line = frame.lineno
    return line


def _guarded(fn, origin: str, ident: str):
    """``fn`` with any exception it raises turned into one PluginError naming the plugin and the measure."""
    @functools.wraps(fn)
    def measure(C, ctx):
        try:
            return fn(C, ctx)
        except (EvalReportError, KeyboardInterrupt, MemoryError):
            raise
        except Exception as exc:
            raise PluginError(f"plugin {origin}: measure {ident!r} failed: {type(exc).__name__}: {exc}") from exc

    measure.__evalreport_plugin__ = origin
    return measure
