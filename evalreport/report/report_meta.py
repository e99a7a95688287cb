"""What a report records about itself (``tables/report.json``): its title, the data's facts, its settings
and its provenance (the command, the time, the versions of the packages that made it and the input files
with their hashes). The report's sections, the appendix and ``evalreport render`` read it back.
"""
from __future__ import annotations

import datetime as _dt
import json
import platform
from collections.abc import Mapping, Sequence
from importlib import metadata
from pathlib import Path
from typing import Any

from evalreport.inputs.settings import Settings

__all__ = ["versions", "write_report_meta", "provenance", "report_plugin_sources"]

#: The packages whose versions the provenance records.
_VERSIONED = ("evalreport", "numpy", "pandas", "scipy", "altair", "vl-convert-python", "papermill", "nbconvert",
              "typst", "pypandoc-binary", "scikit-learn")


def versions() -> dict[str, str]:
    """The versions of Python and of the packages that make a report (those installed)."""
    out = {"python": platform.python_version()}
    for name in _VERSIONED:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            pass
    return out


def write_report_meta(tables: Path, result: dict, settings: Settings | None = None, *,
                      extra: Mapping[str, Any] | None = None, **changes: Any) -> dict:
    """Write ``tables/report.json`` (title, the data's facts, settings, provenance) for what
    :func:`analyse` returned, and return it. The one place that builds a report's metadata.

    Parameters
    ----------
    tables : Path
        The report's tables folder.
    result : dict
        What :func:`analyse` returned.
    settings : Settings, optional
        The report's settings (title, policy, bootstrap, seed, alpha, needs, order, command);
        ``changes`` are keyword shorthands for its fields.
    extra : mapping, optional
        Keys added to the metadata (a benchmark task's name and weight).

    Returns
    -------
    dict
        The metadata written.
    """
    settings = Settings.coerce(settings, **changes)
    comp, facts = result["comparison"], result["facts"]
    # the task's classes; labels that occur only in predictions (--allow-unknown, abstain) are counted apart
    n_task = getattr(facts["counts"], "n_task", None) or facts["n_classes"]
    meta = {
        "title": settings.title or "Evaluation report", "primary": comp.primary, "n_items": facts["n_items"],
        "n_classes": n_task, "n_prediction_only": facts["n_classes"] - n_task,
        "n_systems": facts["n_systems"], "positive": comp.settings.get("positive"), "policy": settings.policy,
        "bootstrap": settings.bootstrap if comp.settings.get("input") in ("runs", "patterns") else 0,
        "seed": settings.seed, "alpha": settings.alpha,
        "folds": facts["n_folds"], "input": comp.settings.get("input"),
        "pairwise_test": comp.settings.get("pairwise_test", "bootstrap"), "needs": list(settings.needs or []),
        "order": list(settings.order) if settings.order else None,
        "provenance": provenance(settings.command, facts["sources"]),
        **dict(extra or {}),
    }
    (Path(tables) / "report.json").write_text(json.dumps(meta, indent=1, default=str) + "\n", encoding="utf-8")
    return meta


def created() -> str:
    """When the output was made, to the minute in UTC; ``SOURCE_DATE_EPOCH`` (the reproducible-builds
    convention, seconds since 1970) fixes it, so two runs of one command can be compared byte for byte.

    Returns
    -------
    str
        ``YYYY-MM-DD HH:MM UTC``.

    Raises
    ------
    InputError
        ``SOURCE_DATE_EPOCH`` set to something other than a whole number of seconds (the convention asks
        a malformed value to stop the build rather than fall back to the clock).
    """
    import os

    from evalreport.errors import InputError

    fixed = os.environ.get("SOURCE_DATE_EPOCH", "").strip()
    if not fixed:
        return _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    try:
        if not (fixed.isascii() and fixed.isdigit()):
            raise ValueError(fixed)
        when = _dt.datetime.fromtimestamp(int(fixed), _dt.UTC)
    except (ValueError, OverflowError, OSError):
        raise InputError(f"SOURCE_DATE_EPOCH={fixed[:40]!r}: not a time (a whole number of seconds since "
                         "1970-01-01 UTC, up to the year 9999); set it so or unset it") from None
    return when.strftime("%Y-%m-%d %H:%M UTC")


def provenance(command: str | None, sources) -> dict:
    """The command, the time, the versions and the input files (role, path, SHA-256, rows)."""
    return {"command": command or "", "created": created(), "versions": versions(),
            "inputs": [{"role": s.role, "path": s.path, "sha256": s.sha256, "rows": s.rows} for s in sources]}


def report_plugin_sources(plugins: Sequence[str | Path]) -> list:
    """The plugin files as inputs of the report.

    Parameters
    ----------
    plugins : sequence of str or Path
        The plugins loaded for the report.

    Returns
    -------
    list of Source
        One input of role ``plugin`` per plugin file, with the SHA-256 of the code that was run.
    """
    from evalreport.inputs.readers import hash_file
    from evalreport.inputs.runs import Source
    from evalreport.measures.plugins import LOADED

    out = []
    for p in dict.fromkeys(str(p) for p in plugins):       # (a task file's plugin given again: one row)
        key = str(Path(p).resolve())
        out.append(Source("plugin", str(p), LOADED[key][0] if key in LOADED else hash_file(p), None))
    return out
