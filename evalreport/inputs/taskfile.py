"""Task files and benchmark files: what an organiser fixes once (TOML or YAML).

A **task file** (``--task-file FILE``) holds the settings of one shared task: the official
measure (``primary``), the measures to report, the positive class, the class set and order, the
ordinal order or cost / gain matrices, the report title, the seed and resampling settings, plugin
files, what-if class distributions, and the input conventions (``id_col``, ``label_col``,
``missing``, ``allow_unknown``). Every key is optional; paths are relative to the file's folder.
Options given on the command line override the file (``plugins`` and ``what_if`` add to it).

A **benchmark file** (:func:`load_benchmark_file`) holds several tasks ranked together: any task
key at the top level is a default of every task; each ``[tasks.NAME]`` table holds task keys
plus ``gold`` (a path), ``runs`` (a folder or a list of paths) and ``weight`` (a number > 0,
default 1); ``missing_systems`` (``drop``, ``last`` or ``exclude``) says what happens to a
system absent from some task.

Both are validated against a declared JSON Schema (:data:`TASK_SCHEMA`,
:data:`BENCHMARK_SCHEMA`, checked with ``jsonschema``): an unknown key is an error naming it, the
file and the nearest valid key (a typo fails loudly, as quartodoc's config models do); a value
of the wrong type names the key and what it must be; a TOML or YAML syntax error names the file
and the line.
"""
from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from evalreport.errors import InputError

_TEXT = {"type": ["string", "number"], "not": {"type": "boolean"}}
_TEXTS = {"type": "array", "items": _TEXT}
_PATH = {"type": "string", "minLength": 1}

#: The task keys: JSON Schema of each, and what the error message says it must be.
TASK_KEYS: dict[str, tuple[dict, str]] = {
    "primary": ({"type": "string", "minLength": 1}, "a measure id (text), e.g. \"macro_f1\""),
    "measures": ({"type": "array", "items": {"type": "string", "minLength": 1}},
                 "a list of measure ids, e.g. [\"accuracy\", \"macro_f1\"]"),
    "positive": (_TEXT, "a class label (text or number)"),
    "labels": (_TEXTS, "a list of class labels"),
    "order": (_TEXTS, "a list of class labels (the ordinal order)"),
    "costs": (_PATH, "a path to a cost-matrix file (text)"),
    "gains": (_PATH, "a path to a gain-matrix file (text)"),
    "title": ({"type": "string"}, "a text"),
    "seed": ({"type": "integer", "minimum": 0}, "an integer >= 0"),
    "bootstrap": ({"type": "integer", "minimum": 0}, "an integer >= 0"),
    "bootstrap_strata": ({"enum": ["none", "gold"]}, "one of none, gold"),
    "alpha": ({"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1},
              "a number strictly between 0 and 1"),
    "policy": ({"enum": ["nan", "zero", "one", "convention"]}, "one of nan, zero, one, convention"),
    "plugins": ({"type": "array", "items": _PATH}, "a list of paths to plugin files"),
    "what_if": ({"type": "array", "items": {"anyOf": [
        {"type": "string", "minLength": 1},
        {"type": "object", "additionalProperties": {"type": "number", "minimum": 0}, "minProperties": 1}]}},
        "a list of class distributions, each \"a=0.5,b=0.5\" or a table {a = 0.5, b = 0.5}"),
    "id_col": ({"type": "string", "minLength": 1}, "a column name (text)"),
    "label_col": ({"type": "string", "minLength": 1}, "a column name (text)"),
    "missing": ({"enum": ["error", "abstain"]}, "one of error, abstain"),
    "allow_unknown": ({"type": "boolean"}, "true or false"),
    "margin": ({"type": "number", "exclusiveMinimum": 0, "not": {"type": "boolean"}},
               "a number > 0 (the equivalence margin, in the primary measure's units)"),
    "cluster_col": ({"type": "string", "minLength": 1}, "a column name of the gold file (text)"),
    "slices": ({"type": "array", "items": {"type": "string", "minLength": 1}, "minItems": 1},
               "a list of column names of the gold file, e.g. [\"domain\", \"length\"]"),
    "slice_bins": ({"anyOf": [{"type": "integer", "minimum": 1}, {"type": "object", "minProperties": 1,
                   "additionalProperties": {"anyOf": [{"type": "integer", "minimum": 1},
                                                      {"type": "array", "items": {"type": "number"}, "minItems": 2}]}}]},
                   "an integer >= 1 or a table column -> bins (integer) or edges (list of numbers)"),
    "label_noise": ({"type": "array", "items": {"type": "number", "minimum": 0, "maximum": 1}, "minItems": 1},
                    "a list of noise rates between 0 and 1, e.g. [0.01, 0.05]"),
    "annotators": (_PATH, "a path to a gold file of several annotators (text)"),
}

#: The keys of a task inside a benchmark file, beyond the task keys.
BENCHMARK_TASK_KEYS: dict[str, tuple[dict, str]] = {
    "gold": (_PATH, "a path to the gold file (text)"),
    "runs": ({"anyOf": [_PATH, {"type": "array", "items": _PATH, "minItems": 1}]},
             "a folder (text) or a list of run-file paths"),
    "weight": ({"type": "number", "exclusiveMinimum": 0}, "a number > 0"),
}

MISSING_SYSTEMS = ("drop", "last", "exclude")

TASK_SCHEMA: dict = {"type": "object", "additionalProperties": False,
                     "properties": {k: s for k, (s, _) in TASK_KEYS.items()}}

BENCHMARK_SCHEMA: dict = {
    "type": "object", "additionalProperties": False, "required": ["tasks"],
    "properties": {
        **TASK_SCHEMA["properties"],
        "missing_systems": {"enum": list(MISSING_SYSTEMS)},
        "tasks": {"type": "object", "minProperties": 1, "additionalProperties": {
            "type": "object", "additionalProperties": False, "required": ["gold", "runs"],
            "properties": {**TASK_SCHEMA["properties"], **{k: s for k, (s, _) in BENCHMARK_TASK_KEYS.items()}}}},
    },
}

_MUST_BE = {**{k: w for k, (_, w) in TASK_KEYS.items()}, **{k: w for k, (_, w) in BENCHMARK_TASK_KEYS.items()},
            "missing_systems": "one of " + ", ".join(MISSING_SYSTEMS), "tasks": "a table of tasks ([tasks.NAME])"}

#: Task key -> the command-line option's ``dest`` it sets.
DEST = {"plugins": "plugin", "slices": "slice_col"}
_PATH_KEYS = ("costs", "gains", "annotators")


@dataclass(frozen=True)
class TaskSpec:
    """The settings of a task file; ``None`` (or empty) where the file does not set a key. Paths are
    resolved against the file's folder."""

    path: Path | None = None
    primary: str | None = None
    measures: tuple[str, ...] | None = None
    positive: str | None = None
    labels: tuple[str, ...] | None = None
    order: tuple[str, ...] | None = None
    costs: Path | None = None
    gains: Path | None = None
    title: str | None = None
    seed: int | None = None
    bootstrap: int | None = None
    bootstrap_strata: str | None = None
    alpha: float | None = None
    policy: str | None = None
    plugins: tuple[Path, ...] = ()
    what_if: tuple[str, ...] = ()
    id_col: str | None = None
    label_col: str | None = None
    missing: str | None = None
    allow_unknown: bool | None = None
    margin: float | None = None
    cluster_col: str | None = None
    slices: tuple[str, ...] | None = None
    slice_bins: Any = None
    label_noise: str | None = None        # the rates as --label-noise takes them: "0.01,0.05"
    annotators: Path | None = None

    def given(self) -> dict[str, Any]:
        """The keys the file sets, with their values (paths as text, lists as lists)."""
        out = {}
        for f in fields(self):
            v = getattr(self, f.name)
            if f.name == "path" or v is None or v == ():
                continue
            out[f.name] = [str(x) for x in v] if isinstance(v, tuple) else (str(v) if isinstance(v, Path) else v)
        return out

    def option_defaults(self) -> dict[str, Any]:
        """The settings as argparse defaults: ``{dest: value}`` (see :func:`apply_to_parser`)."""
        return {DEST.get(k, k): v for k, v in self.given().items()}


@dataclass(frozen=True)
class BenchmarkTask:
    """One task of a benchmark: its settings (the file's defaults merged with its own keys), gold
    file, runs (a folder, or a tuple of files) and weight."""

    name: str
    spec: TaskSpec
    gold: Path
    runs: Path | tuple[Path, ...]
    weight: float = 1.0


@dataclass(frozen=True)
class BenchmarkSpec:
    path: Path
    defaults: TaskSpec
    tasks: tuple[BenchmarkTask, ...] = field(default_factory=tuple)
    missing_systems: str = "drop"


def load_task_file(path) -> TaskSpec:
    """Read and validate a task file (``.toml``, ``.yaml`` or ``.yml``)."""
    path = Path(path)
    data = _read(path)
    _validate(data, TASK_SCHEMA, path)
    return _spec(data, path)


def load_benchmark_file(path) -> BenchmarkSpec:
    """Read and validate a benchmark file; each task's settings are the top-level defaults updated
    with its own keys (tasks in file order)."""
    path = Path(path)
    data = _read(path)
    _validate(data, BENCHMARK_SCHEMA, path)
    top = {k: v for k, v in data.items() if k in TASK_KEYS}
    tasks = []
    for name, table in data["tasks"].items():
        own = {k: v for k, v in table.items() if k in TASK_KEYS}
        runs = table["runs"]
        tasks.append(BenchmarkTask(
            name=str(name), spec=_spec({**top, **own}, path), gold=_resolve(path, table["gold"]),
            runs=_resolve(path, runs) if isinstance(runs, str) else tuple(_resolve(path, r) for r in runs),
            weight=float(table.get("weight", 1.0))))
    return BenchmarkSpec(path=path, defaults=_spec(top, path), tasks=tuple(tasks),
                         missing_systems=data.get("missing_systems", "drop"))


def apply_to_parser(parser, spec: TaskSpec, *, ignore=()) -> list[str]:
    """Make the file's settings the defaults of ``parser`` (one command's parser), so that the
    options given on the command line still win when it parses again. Keys the command has no
    option for, and those in ``ignore``, are left out; returns them. ``plugin`` and ``what_if`` are appended to (argparse
    appends to a list default)."""
    dests = {a.dest for a in parser._actions}
    defaults, unused = {}, []
    for key, value in spec.option_defaults().items():
        if key in dests and key not in ignore:
            defaults[key] = list(value) if isinstance(value, list) else value
        else:
            unused.append(key)
    parser.set_defaults(**defaults)
    return unused


# ----------------------------------------------------------------------------- reading


#: How deep tables and lists may nest in a task or benchmark file (a benchmark file needs 5:
#: tasks.NAME.what_if[i].CLASS); a deeper file is refused before the schema check walks it.
MAX_DEPTH = 16
_TOO_DEEP = f"tables or lists nested more than {MAX_DEPTH} levels deep (a task file needs at most 5)"


def _read(path: Path) -> dict:
    try:
        data = _parse(path)
    except RecursionError:        # the TOML and YAML parsers recurse once per nesting level
        raise InputError(_TOO_DEEP, path=path) from None
    _check_depth(data, path)
    return data


def _check_depth(data, path: Path) -> None:
    """Refuse ``data`` nested more than :data:`MAX_DEPTH` levels deep (walked with a stack of its own)."""
    stack = [(data, 0)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, (dict, list)):
            if depth >= MAX_DEPTH:
                raise InputError(_TOO_DEEP, path=path)
            stack.extend((v, depth + 1) for v in (value.values() if isinstance(value, dict) else value))


def _parse(path: Path) -> dict:
    if not path.is_file():
        raise InputError("task file not found" if not path.exists() else "task file is not a file", path=path)
    suffix = path.suffix.lower()
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"not UTF-8 text (byte {exc.start})", path=path) from None
    if suffix == ".toml":
        import tomllib

        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            msg = str(exc)
            m = re.search(r"\(at line (\d+), column \d+\)|\(at end of document\)", msg)
            line = int(m.group(1)) if m and m.group(1) else (text.count("\n") + 1 if m else None)
            problem = msg[:m.start()].strip() if m else msg
            raise InputError(f"TOML syntax error: {problem}", path=path, line=line) from None
    elif suffix in (".yaml", ".yml"):
        import yaml

        try:
            data = yaml.load(text, Loader=_loader())          # noqa: S506 (a SafeLoader without aliases)
        except _AliasRefused as exc:
            raise InputError(f"YAML {exc.what} ({exc.name}) in a task file: write the value out where it is used "
                             "(anchors and aliases are refused, so that a short file cannot expand to a huge "
                             "one)", path=path, line=exc.line) from None
        except yaml.MarkedYAMLError as exc:
            mark = exc.problem_mark or exc.context_mark
            problem = " ".join(p for p in (exc.context, exc.problem) if p)
            raise InputError(f"YAML syntax error: {problem}", path=path,
                             line=None if mark is None else mark.line + 1) from None
        except yaml.YAMLError as exc:
            raise InputError(f"YAML syntax error: {exc}", path=path) from None
        if data is None:
            data = {}
    else:
        raise InputError(f"unknown task-file format {suffix or '(no suffix)'!r}: name it .toml, .yaml or .yml",
                         path=path)
    if not isinstance(data, dict):
        raise InputError(f"a task file holds a table of keys (key = value); found {type(data).__name__}", path=path)
    return data


class _AliasRefused(Exception):
    def __init__(self, what: str, name: str, line: int):
        super().__init__(what)
        self.what, self.name, self.line = what, name, line


def _loader():
    """``yaml.SafeLoader`` that refuses anchors (``&name``) and aliases (``*name``) as it meets them,
    before any node is built: a "billion laughs" document (aliases of aliases) would expand to
    billions of values, and the schema check would take minutes over them."""
    import yaml

    class NoAliases(yaml.SafeLoader):
        def compose_node(self, parent, index):
            event = self.peek_event()
            if isinstance(event, yaml.AliasEvent):
                raise _AliasRefused("alias", f"*{event.anchor}", event.start_mark.line + 1)
            if getattr(event, "anchor", None) is not None:
                raise _AliasRefused("anchor", f"&{event.anchor}", event.start_mark.line + 1)
            return super().compose_node(parent, index)

    return NoAliases


def _validate(data: dict, schema: dict, path: Path) -> None:
    from jsonschema import Draft202012Validator

    errors = sorted(Draft202012Validator(schema).iter_errors(data),
                    key=lambda e: (len(e.absolute_path), [str(p) for p in e.absolute_path]))
    if not errors:
        return
    err = errors[0]
    where = [str(p) for p in err.absolute_path]
    if err.validator == "additionalProperties":
        known = list(err.schema.get("properties", {}))
        extra = [k for k in err.instance if k not in known]
        scope = "" if not where else f" in [{'.'.join(where)}]"
        if known:       # a key outside the declared ones
            key = str(extra[0])
            close = difflib.get_close_matches(key, known, n=1, cutoff=0.6)
            hint = f"; did you mean {close[0]!r}?" if close else f"; valid keys: {', '.join(known)}"
            raise InputError(f"unknown key {key!r}{scope}{hint}", path=path)
        # a value inside a what-if table
        return _bad_value(where, err, path)
    if err.validator == "required":
        missing = [k for k in err.validator_value if k not in err.instance]
        scope = f"[{'.'.join(where)}]" if where else "the file"
        raise InputError(f"{scope} lacks the key {missing[0]!r} ({_MUST_BE.get(missing[0], 'required')})", path=path)
    _bad_value(where, err, path)


def _bad_value(where: list[str], err, path: Path) -> None:
    # the key a message names: the innermost named key of the path (tasks.NAME.seed -> seed)
    keys = [w for w in where if not w.isdigit()]
    key = next((k for k in reversed(keys) if k in _MUST_BE), keys[-1] if keys else "")
    dotted = ".".join(where) if where else "(top level)"
    shown = repr(err.instance)
    if len(shown) > 60:         # a long value is named by its start
        shown = shown[:57] + "..."
    raise InputError(f"key {dotted!r} must be {_MUST_BE.get(key, err.message)}; got {shown}", path=path)


def _resolve(base: Path, text: str) -> Path:
    p = Path(text).expanduser()
    return p if p.is_absolute() else base.parent / p


def _label(v) -> str:
    return f"{v:g}" if isinstance(v, float) else str(v)


def _what_if(v) -> str:
    return v if isinstance(v, str) else ",".join(f"{k}={_label(s)}" for k, s in v.items())


def _spec(data: dict, path: Path) -> TaskSpec:
    kw: dict[str, Any] = {}
    for key, value in data.items():
        if key not in TASK_KEYS:
            continue
        if key in ("labels", "order"):
            value = tuple(_label(v) for v in value)
        elif key in ("measures", "slices"):
            value = tuple(value)
        elif key == "positive":
            value = _label(value)
        elif key in _PATH_KEYS:
            value = _resolve(path, value)
        elif key == "plugins":
            value = tuple(_resolve(path, v) for v in value)
        elif key == "what_if":
            value = tuple(_what_if(v) for v in value)
        elif key in ("alpha", "margin"):
            value = float(value)
        elif key == "label_noise":
            value = ",".join(_label(float(v)) for v in value)
        elif key in ("seed", "bootstrap"):
            value = int(value)          # (the schema's "integer" also admits 3.0)
        kw[key] = value
    return TaskSpec(path=path, **kw)
