"""The settings of a comparison and its report: one frozen object, validated once.

:class:`Settings` is what :func:`evalreport.compare`, :func:`evalreport.report`, the benchmark, the
Codabench scorer and the paper appendix take. The command line and the task file both produce one
(:meth:`Settings.from_task` merges a task file's keys with the options given); every later stage
reads it and none validates it again.

A field that a task file may set is validated with the task file's own JSON Schema entry
(:data:`evalreport.inputs.taskfile.TASK_KEYS`), so a value refused in a task file is refused here
with the same words; the other fields have their entries in :data:`SETTINGS_KEYS`.

``None`` means "the default of the data": the primary measure is ``macro_f1`` for single labels and
``f1_macro`` for label sets; ``baseline_samples`` is 2,000 draws for single labels and 200 for
label sets (whose draws are whole indicator matrices); the randomisation test of label sets runs
1,000 rounds.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from evalreport.errors import InputError
from evalreport.inputs.taskfile import TASK_KEYS, TaskSpec

__all__ = ["Settings", "SettingsError", "SETTINGS_KEYS", "AUDIT_MAX_N", "DEFAULT_PRIMARY", "DEFAULT_BASELINE_SAMPLES"]

#: Exhaustive audit of the measures' properties up to this many items (larger n: sampled).
AUDIT_MAX_N = 6

_COUNT = {"type": "integer", "minimum": 0}

#: The primary measure when none is given: by the kind of data.
DEFAULT_PRIMARY = {"single": "macro_f1", "multilabel": "f1_macro"}
#: Monte Carlo draws of the chance baselines when none are given: a draw of label sets is a whole
#: indicator matrix, hence fewer.
DEFAULT_BASELINE_SAMPLES = {"single": 2000, "multilabel": 200}


class SettingsError(InputError):
    """Settings that fail validation; ``problems`` holds ``(field, what it must be, value)`` for each
    bad field, so a caller can name its own option for the field (the command line names ``--seed``)."""

    def __init__(self, problems: list[tuple[str, str, Any]]):
        self.problems = list(problems)
        super().__init__("settings: " + "; ".join(f"{name} must be {must_be}; got {value!r}"
                                                  for name, must_be, value in self.problems))

#: The fields no task file sets: JSON Schema of each, and what it must be.
SETTINGS_KEYS: dict[str, tuple[dict, str]] = {
    "pairwise_test": ({"enum": ["bootstrap", "randomization"]}, "one of bootstrap, randomization"),
    "baseline_samples": ({"anyOf": [{"type": "null"}, _COUNT]}, "an integer >= 0"),
    "randomization": ({"anyOf": [{"type": "null"}, _COUNT]}, "an integer >= 0"),
    "calibration_reference": ({"anyOf": [{"enum": ["uniform", "mean"]},
                                         {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1}]},
                              "uniform, mean or a prevalence strictly between 0 and 1"),
    "audit": ({"type": "boolean"}, "true or false"),
    "slice_cols": ({"type": "array", "items": {"type": "string", "minLength": 1}}, "a list of column names"),
    "audit_max_n": ({"type": "integer", "minimum": 1}, "an integer >= 1"),
    "missing_systems": ({"anyOf": [{"type": "null"}, {"enum": ["drop", "last", "exclude"]}]},
                        "one of drop, last, exclude"),
    "formats": ({"type": "array", "items": {"enum": ["html", "pdf"]}}, "a list of html, pdf"),
    "engine": ({"enum": ["auto", "builtin", "quarto"]}, "one of auto, builtin, quarto"),
    "progress": ({"type": "boolean"}, "true or false"),
    "command": ({"anyOf": [{"type": "null"}, {"type": "string"}]}, "a text"),
    "label_noise": ({"type": "array", "items": {"type": "number", "minimum": 0, "maximum": 1}},
                    "a list of noise rates between 0 and 1"),
    "label_noise_draws": ({"type": "integer", "minimum": 1}, "an integer >= 1"),
}


@dataclass(frozen=True, kw_only=True)
class Settings:
    """Every setting of a comparison and its report (see the module docstring).

    Parameters
    ----------
    primary : str, optional
        The measure that heads the leaderboard and defines the significance letters.
    measures : tuple of str, optional
        The measures to compute (default: the comparison's default set for the data).
    positive : str or int, optional
        The positive class of a binary task (adds the binary measures).
    policy : {"nan", "zero", "one", "convention"}
        What an undefined value (0/0) becomes.
    costs, gains : array, optional
        A (K, K) cost or gain matrix, already read (the measures that need one use it).
    order : tuple of str, optional
        The ordinal order of the classes.
    what_if : mapping, optional
        Extra class distributions for the what-if table: name -> distribution.
    bootstrap : int
        Paired bootstrap resamples (0: no intervals, rank distributions or tests).
    bootstrap_strata : {None, "gold"}
        ``"gold"`` resamples within each gold class.
    cluster_col : str, optional
        The gold file's column of item clusters (``--cluster-col``): resampling and swaps take whole
        clusters (:mod:`evalreport.analyses.clusters`); the runs must have been read with it.
    slice_cols : tuple of str
        Gold columns that split the items into slices (``--slice-col``, task-file key ``slices``): the
        comparison's slice tables (:mod:`evalreport.analyses.slices`); the runs must have been read with them.
    slice_bins : int or mapping, optional
        Quantile bins of the numeric slice columns (``--slice-bins N``), or per column bins or edges.
    seed : int
        The seed of every random draw.
    alpha : float
        The level of the tests; intervals are at ``1 - alpha``.
    pairwise_test : {"bootstrap", "randomization"}
        The test whose Holm-corrected p-values make the significance letters.
    baseline_samples, randomization : int, optional
        Monte Carlo draws of the chance baselines; rounds of the randomisation test.
    calibration_reference : str or float
        The reference prevalence of the per-label calibration of label sets.
    audit : bool
        Whether the report audits the measures' properties; ``audit_max_n``: exhaustively up to
        this many items.
    missing_systems : {None, "drop", "last", "exclude"}
        A benchmark's rule for a system absent from a task (None: the benchmark file's).
    title, formats, engine, needs, command, progress
        The report: its title, output formats, rendering engine, the measure properties the
        reader needs, the command line that made it, and whether to show progress.
    margin : float, optional
        The equivalence margin D in the primary measure's units: each pair of systems gets a
        verdict (different, equivalent, inconclusive); None: no equivalence claims.
    label_noise, noise_matrix, label_noise_draws
        Gold-label noise to re-rank under (``label_noise.csv``): uniform flip rates in [0, 1], a
        class-to-class flip matrix over the task's classes (rows summing to 1) and draws per model.
    annotations : Annotations, optional
        The labels of several annotators (``agreement.csv``, ``annotators.csv``).

    Examples
    --------
    >>> from evalreport import Settings
    >>> s = Settings(primary="mcc", bootstrap=200)
    >>> s.replace(seed=7).seed, s.seed
    (7, 0)
    >>> Settings(alpha=1.5)
    Traceback (most recent call last):
    ...
    evalreport.inputs.settings.SettingsError: settings: alpha must be a number strictly between 0 and 1; got 1.5
    """

    primary: str | None = None
    measures: tuple[str, ...] | None = None
    positive: str | int | None = None
    policy: str = "nan"
    costs: Any = field(default=None, compare=False)
    gains: Any = field(default=None, compare=False)
    order: tuple[str, ...] | None = None
    what_if: Mapping[str, Any] = field(default_factory=dict)
    bootstrap: int = 1000
    bootstrap_strata: str | None = None
    cluster_col: str | None = None
    slice_cols: tuple[str, ...] = ()
    slice_bins: Any = field(default=None, compare=False)
    seed: int = 0
    alpha: float = 0.05
    pairwise_test: str = "bootstrap"
    baseline_samples: int | None = None
    randomization: int | None = None
    calibration_reference: str | float = "uniform"
    audit: bool = True
    audit_max_n: int = AUDIT_MAX_N
    missing_systems: str | None = None
    title: str | None = None
    formats: tuple[str, ...] = ("html", "pdf")
    engine: str = "auto"
    needs: tuple[str, ...] | None = None
    command: str | None = None
    progress: bool = True
    margin: float | None = None
    #: Gold-label noise rates to re-rank under (analyses/label_noise.py), a flip matrix over the task's
    #: classes (rows of floats; None: none) and the draws per noise model.
    label_noise: tuple[float, ...] = ()
    noise_matrix: tuple[tuple[float, ...], ...] | None = field(default=None, compare=False)
    label_noise_draws: int = 200
    #: A gold file of several annotators, read (:class:`evalreport.inputs.annotators.Annotations`; None: none).
    annotations: Any = field(default=None, compare=False)

    def __post_init__(self) -> None:
        if isinstance(self.label_noise, str):         # a task file's rates, as --label-noise takes them
            object.__setattr__(self, "label_noise", tuple(float(x) for x in self.label_noise.split(",") if x.strip()))
        for name in ("measures", "order", "formats", "needs", "label_noise"):
            value = getattr(self, name)
            if value is not None and not isinstance(value, tuple):
                if isinstance(value, str):
                    value = (value,)
                object.__setattr__(self, name, tuple(value))
        for name in ("bootstrap", "seed", "baseline_samples", "randomization", "audit_max_n", "alpha", "margin"):
            value = getattr(self, name)
            if hasattr(value, "item") and not isinstance(value, bool):       # numpy scalars as Python numbers
                object.__setattr__(self, name, value.item())
        if not isinstance(self.slice_cols, tuple):          # a task file's or an option's list
            value = (self.slice_cols,) if isinstance(self.slice_cols, str) else tuple(self.slice_cols or ())
            object.__setattr__(self, "slice_cols", value)
        if self.bootstrap_strata == "none":
            object.__setattr__(self, "bootstrap_strata", None)
        object.__setattr__(self, "what_if", dict(self.what_if or {}))
        self._validate()

    def _validate(self) -> None:
        import jsonschema

        problems: list[tuple[str, str, Any]] = []
        for name, (schema, must_be) in {**TASK_KEYS, **SETTINGS_KEYS}.items():
            if not hasattr(self, name) or name in ("what_if", "costs", "gains", "plugins"):
                continue
            value = getattr(self, name)
            if value is None and name not in SETTINGS_KEYS:
                continue
            value = list(value) if isinstance(value, tuple) else value
            if name == "bootstrap_strata" and value is None:
                continue
            if isinstance(value, bool) and schema.get("type") in ("integer", "number"):
                problems.append((name, must_be, value))
                continue
            try:
                jsonschema.validate(value, schema)
            except jsonschema.ValidationError:
                problems.append((name, must_be, getattr(self, name)))
        if problems:
            raise SettingsError(problems)

    # ------------------------------------------------------------------ making one

    def replace(self, **changes: Any) -> Settings:
        """A copy with ``changes``, validated again.

        Parameters
        ----------
        **changes
            New values of fields, by field name.

        Returns
        -------
        Settings
            The copy (``self`` is frozen and stays as it is).

        Raises
        ------
        TypeError
            A name that is no field.
        SettingsError
            A value a field does not take.
        """
        unknown = sorted(set(changes) - {f.name for f in dataclasses.fields(self)})
        if unknown:
            raise TypeError(f"unknown setting(s): {', '.join(unknown)}")
        return dataclasses.replace(self, **changes)

    @classmethod
    def coerce(cls, settings: Settings | None = None, **changes: Any) -> Settings:
        """``settings`` (or the defaults) with ``changes``: what a function that takes a settings
        object and keyword shorthands for its fields makes of them.

        Parameters
        ----------
        settings : Settings, optional
            The settings given (None: the defaults).
        **changes
            Keyword shorthands for fields, applied over ``settings``.

        Returns
        -------
        Settings
            ``settings`` itself when there are no changes, else a validated copy.
        """
        base = settings if settings is not None else cls()
        if not isinstance(base, Settings):
            raise TypeError(f"settings must be a Settings; got {type(base).__name__}")
        return base.replace(**changes) if changes else base

    @classmethod
    def from_task(cls, spec: TaskSpec, **options: Any) -> Settings:
        """The settings of a task file, with ``options`` taking precedence over the file's keys.

        Parameters
        ----------
        spec : TaskSpec
            A task file, read (:func:`~evalreport.inputs.taskfile.load_task_file`); its input
            conventions (labels, columns) and paths are not settings and are left out.
        **options
            Field values that win over the file's (the command line's, already read: cost and gain
            matrices, what-if distributions).

        Returns
        -------
        Settings
            Validated once.
        """
        names = {f.name for f in dataclasses.fields(cls)}
        given = {k: v for k, v in spec.given().items() if k in names and k not in ("costs", "gains", "what_if")}
        if spec.slices:                          # the task file's key for the field slice_cols
            given["slice_cols"] = tuple(spec.slices)
        return cls(**{**given, **options})

    # ------------------------------------------------------------------ reading one

    def record(self) -> dict[str, Any]:
        """The settings as JSON values, for manifests.

        Returns
        -------
        dict
            Field -> value; matrices become ``True``/``False`` (given or not), tuples lists.
        """
        out: dict[str, Any] = {}
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if f.name in ("costs", "gains"):
                value = value is not None
            elif f.name == "annotations":
                value = None if value is None else value.path
            elif isinstance(value, tuple):
                value = list(value)
            elif isinstance(value, Mapping):
                value = {str(k): v if isinstance(v, (str, int, float)) else str(v) for k, v in value.items()}
            out[f.name] = value
        return out
