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
and exits with status 2; the Codabench scorer with 3, the organiser's). So does a result that is
not one finite number (or NaN) per confusion matrix within the record's declared range; a NaN for
which the function recorded no undefined case (``ctx.div``, ``ctx.flag``) becomes an undefined
value with the reason :data:`NO_VALUE`. What a plugin prints, at import or inside its functions,
goes to stderr: stdout carries the machine-readable tables. Built-in measures are not wrapped and
pay nothing.
"""
from __future__ import annotations

import contextlib
import functools
import hashlib
import importlib.util
import math
import sys
import traceback
from dataclasses import replace
from pathlib import Path

import numpy as np

from evalreport.errors import EvalReportError, InputError, MeasureError
from evalreport.escape import one_line
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
    apply" must not hide a failing plugin. Its text is one line (:func:`~evalreport.escape.one_line`),
    whatever the plugin's path or its exception's message hold."""

    def __init__(self, message: str):
        super().__init__(one_line(message))


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
    assert spec is not None                       # with no loader to ask, a spec is always built
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


def entry_point_sources() -> list[dict]:
    """Every loaded entry point that registered measures, for a report's inputs: ``name``,
    ``value`` (``module:object``), ``distribution`` and ``version`` (of the installed distribution
    that declares it; ``""`` where the metadata has none) and ``ids``, in load order."""
    return [{"name": name, "value": value, "distribution": _DISTRIBUTIONS.get((name, value), ("", ""))[0],
             "version": _DISTRIBUTIONS.get((name, value), ("", ""))[1], "ids": ids}
            for (name, value), ids in _ENTRY_POINTS.items() if ids]


def _registering(run, *, origin: str, path, line_of: str | None) -> list[str]:
    """Call ``run`` (which registers measures); wrap the new records, or undo them and raise an InputError."""
    before, before_aliases = set(_core.REGISTRY), set(_core.ALIASES)
    try:
        with contextlib.redirect_stdout(sys.stderr):      # (a print at import stays off the tables' stream)
            run()
            for ident in (i for i in _core.REGISTRY if i not in before):
                _range(_core.REGISTRY[ident])
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
        _core.REGISTRY[ident] = replace(m, fn=_guarded(m.fn, origin, ident, _range(m)))
        ORIGINS[ident] = origin
    for alias in (a for a in _core.ALIASES if a not in before_aliases):
        ORIGINS[alias] = origin
    return new


def _range(m) -> tuple[float, float]:
    """A plugin record's declared range as two numbers, low <= high, or a MeasureError."""
    try:
        lo, hi = (float(x) for x in m.range)
    except (TypeError, ValueError):
        raise MeasureError(f"measure {m.id!r} declares range={m.range!r}; give two numbers (low, high)") from None
    if not lo <= hi:
        raise MeasureError(f"measure {m.id!r} declares range={m.range!r}; give two numbers with low <= high")
    return lo, hi


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


def _guarded(fn, origin: str, ident: str, value_range=(-math.inf, math.inf)):
    """``fn`` with its exceptions made PluginErrors, its result checked and its prints sent to stderr."""
    @functools.wraps(fn)
    def measure(C, ctx):
        try:
            with contextlib.redirect_stdout(sys.stderr):
                raw = fn(C, ctx)
        except (PluginError, KeyboardInterrupt, MemoryError):
            raise
        except Exception as exc:
            raise PluginError(f"plugin {origin}: measure {ident!r} failed: {type(exc).__name__}: {exc}") from exc
        return _checked(raw, ctx, origin, ident, value_range)

    measure.__evalreport_plugin__ = origin  # type: ignore[attr-defined]  # a function attribute
    return measure


#: The reason given to a NaN that a plugin returned without recording a 0/0 case (Context.div/flag).
NO_VALUE = "the plugin returned no value"


def _checked(raw, ctx, origin: str, ident: str, value_range) -> np.ndarray:
    """A plugin's result as the float array of the batch's shape, or a PluginError naming the plugin and the measure."""
    def refuse(problem: str):
        return PluginError(f"plugin {origin}: measure {ident!r} {problem}")

    what = type(raw).__name__
    try:
        value = np.asarray(raw)
    except Exception as exc:       # (a ragged list, an object whose __array__ raises)
        raise refuse(f"returned a {what} that is no array of numbers ({type(exc).__name__})") from None
    if value.dtype.kind not in "biuf":
        raise refuse(f"returned {_kind(raw, value)}, not numbers: a measure function returns one float per "
                     f"confusion matrix, an array of shape {_shape(ctx.batch)}")
    if value.shape != ctx.batch:
        got = "one number" if value.ndim == 0 else f"an array of shape {_shape(value.shape)}"
        raise refuse(f"returned {got}; a measure function returns one value per confusion matrix, an array "
                     f"of shape {_shape(ctx.batch)} (C.shape[:-2])")
    value = value.astype(float)
    nan = np.isnan(value)
    if np.isinf(value).any():
        raise refuse(f"returned {value[np.isinf(value)].flat[0]:g}; values must be finite numbers (NaN, with "
                     "ctx.div or ctx.flag naming why, for an undefined case)")
    lo, hi = value_range
    slack = 1e-9 * max(1.0, *(abs(b) for b in (lo, hi) if math.isfinite(b)))
    outside = ~nan & ((value < lo - slack) | (value > hi + slack))
    if outside.any():
        raise refuse(f"returned {value[outside].flat[0]:.6g}, outside its declared range [{lo:g}, {hi:g}]")
    if nan.any():
        explained = np.zeros(ctx.batch, dtype=bool)
        for _, mask in ctx.events:
            extra = tuple(range(len(ctx.batch), mask.ndim))
            explained |= np.broadcast_to(mask.any(axis=extra) if extra else mask, ctx.batch)
        if (nan & ~explained).any():
            ctx.flag(nan & ~explained, NO_VALUE)
    return value


def _kind(raw, value) -> str:
    if raw is None:
        return "None"
    if isinstance(raw, str):
        return f"the text {raw[:40]!r}"
    name = type(raw).__name__
    article = "an" if name[:1].lower() in "aeiou" or name.startswith("nd") else "a"
    what = {"U": " of texts", "S": " of bytes", "O": ""}.get(value.dtype.kind, f" of {value.dtype}")
    return f"{article} {name}{what}"


def _shape(shape) -> str:
    return "(" + ", ".join(str(n) for n in shape) + (",)" if len(shape) == 1 else ")")
