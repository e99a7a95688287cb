"""The one writer of evalreport's tables: every frame as ``<name>.csv`` and ``<name>.json``.

Analyses return frames; this module writes them, with one encoding for every output folder (a
comparison's, a multi-label or benchmark comparison's, a report's ``tables/``) and for the
command line's ``--format csv`` / ``--format json``:

==============  ===========================  ===========================================
cell            CSV                          JSON
==============  ===========================  ===========================================
NaN, missing    empty                        ``null``
+inf / -inf     ``inf`` / ``-inf``           ``"inf"`` / ``"-inf"`` (JSON has no infinity)
numpy scalar    as its Python value          as its Python value
list, tuple     a JSON array (one cell)      a JSON array
text            :func:`evalreport.escape.    raw (data, not a spreadsheet)
                csv_frame` (formula guard)
==============  ===========================  ===========================================

A JSON file is an array of records, one record per line (``[]`` when the frame has no rows);
non-ASCII text is written as ``\\u`` escapes. A CSV file has a header row, ``\\n`` line ends and
no index column. Names with ``/`` (``tasks/t1/scores``) are written in subfolders.
"""
from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import IO, Any

import numpy as np
import pandas as pd

from evalreport._atomic import atomic_dir
from evalreport.escape import CSV_TEXT_COLUMNS, csv_frame

__all__ = [
    "csv_ready",
    "json_records",
    "read_json_table",
    "write_comparison",
    "write_csv",
    "write_frames",
    "write_json",
    "write_manifest",
    "write_tables",
]

_SEQUENCES = (list, tuple, np.ndarray)


# ----------------------------------------------------------------------------- encoding


def _json_value(v: Any) -> Any:
    """One cell as JSON: NaN -> null, +-inf -> "inf"/"-inf", numpy scalars -> Python, arrays -> lists."""
    if isinstance(v, (float, np.floating)):
        return None if math.isnan(v) else (str(float(v)) if math.isinf(v) else float(v))
    if isinstance(v, np.integer):
        return int(v)
    if isinstance(v, np.bool_):
        return bool(v)
    if isinstance(v, _SEQUENCES):
        return [_json_value(x) for x in (v.tolist() if isinstance(v, np.ndarray) else v)]
    if v is None or v is pd.NA or v is pd.NaT:
        return None
    return v


def _json_column(col: pd.Series) -> list:
    """A column as JSON values (:func:`_json_value`), converted a column at a time where its type allows."""
    kind = col.dtype.kind
    if kind == "f":
        x = col.to_numpy(dtype=float, na_value=np.nan)
        out = x.tolist()
        for i in np.flatnonzero(~np.isfinite(x)):
            out[i] = None if np.isnan(x[i]) else str(float(x[i]))
        return out
    if kind in "iub" and not col.hasnans:          # nullable Int64 / boolean with NA: cell by cell
        return col.to_numpy().tolist()
    if kind == "O" and not col.hasnans and pd.api.types.infer_dtype(col, skipna=False) == "string":
        return col.tolist()                         # text only: nothing to convert
    return [_json_value(v) for v in col.tolist()]


def json_records(frame: pd.DataFrame) -> list[dict]:
    """The rows of ``frame`` as JSON-ready records (the module docstring's encoding).

    Parameters
    ----------
    frame : pandas.DataFrame
        Any table; column names become the keys (as text).

    Returns
    -------
    list of dict
        One dict per row, in row order, holding only JSON types.
    """
    keys = [str(k) for k in frame.columns]
    columns = [_json_column(frame.iloc[:, j]) for j in range(frame.shape[1])]
    return [dict(zip(keys, row)) for row in zip(*columns)] if keys else [{} for _ in range(len(frame))]


def csv_ready(frame: pd.DataFrame, text_columns: Iterable[str] = CSV_TEXT_COLUMNS) -> pd.DataFrame:
    """``frame`` as its CSV file holds it: list, tuple and array cells as JSON arrays, then every text
    cell through :func:`evalreport.escape.csv_frame` (a leading ``'`` where a spreadsheet would run a
    formula).

    Parameters
    ----------
    frame : pandas.DataFrame
        Any table.
    text_columns : iterable of str
        Columns of participant-derived text: a plain number there is guarded too.

    Returns
    -------
    pandas.DataFrame
        ``frame`` itself when nothing changes, else a changed copy.
    """
    listed = [c for c in frame.columns if frame[c].dtype.kind == "O"
              and pd.api.types.infer_dtype(frame[c], skipna=True) not in ("string", "empty")
              and any(isinstance(v, _SEQUENCES) for v in frame[c].tolist())]
    if listed:
        frame = frame.copy()
        for c in listed:
            frame[c] = [json.dumps(_json_value(v), ensure_ascii=False, allow_nan=False)
                        if isinstance(v, _SEQUENCES) else v for v in frame[c].tolist()]
    return csv_frame(frame, frozenset(text_columns))


# ----------------------------------------------------------------------------- one frame, one file


def write_csv(frame: pd.DataFrame, file: str | Path | IO[str], *,
              text_columns: Iterable[str] = CSV_TEXT_COLUMNS) -> None:
    """Write ``frame`` as CSV (:func:`csv_ready`; header row, no index, ``\\n`` line ends).

    Parameters
    ----------
    frame : pandas.DataFrame
        The table.
    file : path or text file
        Where to write.
    text_columns : iterable of str
        Columns of participant-derived text (see :func:`csv_ready`).

    Returns
    -------
    None
    """
    csv_ready(frame, text_columns).to_csv(file, index=False, lineterminator="\n")


def write_json(frame: pd.DataFrame, file: str | Path | IO[str]) -> None:
    """Write ``frame`` as a JSON array of :func:`json_records`, one record per line.

    Parameters
    ----------
    frame : pandas.DataFrame
        The table.
    file : path or text file
        Where to write (a path is written as UTF-8).

    Returns
    -------
    None
    """
    records = json_records(frame)
    # json's C encoder, one record at a time: ``indent`` would switch to the slower Python encoder
    encode = json.JSONEncoder(allow_nan=False, default=str).encode
    text = "[\n" + ",\n".join(map(encode, records)) + "\n]\n" if records else "[]\n"
    if isinstance(file, (str, Path)):
        Path(file).write_text(text, encoding="utf-8")
    else:
        file.write(text)


def write_manifest(path: str | Path, manifest: Mapping) -> None:
    """Write a manifest (settings, names, notes) as indented JSON; values JSON lacks are written as text.

    Parameters
    ----------
    path : path
        The file (its folder is made when missing).
    manifest : mapping
        JSON-ready values; NaN and infinity are refused (``ValueError``).

    Returns
    -------
    None
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(dict(manifest), indent=1, allow_nan=False, default=str) + "\n", encoding="utf-8")


def read_json_table(path: str | Path) -> pd.DataFrame:
    """A table back from its JSON file (:func:`write_json`): ``"inf"`` and ``"-inf"`` become floats
    again in a column whose other cells are numbers or null.

    Parameters
    ----------
    path : path
        The JSON file.

    Returns
    -------
    pandas.DataFrame
        The table (no columns when the file holds no rows).
    """
    rows = json.loads(Path(path).read_text(encoding="utf-8"))
    frame = pd.DataFrame(rows) if rows else pd.DataFrame()
    for c in frame.columns:
        cells = frame[c].tolist()
        if (frame[c].dtype.kind == "O" and any(v in _INFINITIES for v in cells if isinstance(v, str))
                and all(v is None or v in _INFINITIES or (isinstance(v, (int, float)) and not isinstance(v, bool))
                        for v in cells)):
            frame[c] = [math.nan if v is None else float(v) for v in cells]
    return frame


_INFINITIES = ("inf", "-inf")


# ----------------------------------------------------------------------------- folders


def write_frames(folder: str | Path, frames: Mapping[str, pd.DataFrame], *,
                 text_columns: Iterable[str] = CSV_TEXT_COLUMNS) -> None:
    """Write each frame as ``<name>.csv`` and ``<name>.json`` into an existing folder (a report's
    staging ``tables/``); a name with ``/`` is written in that subfolder, made when missing.

    Parameters
    ----------
    folder : path
        The folder; not replaced, files of the same names are overwritten.
    frames : mapping of str to pandas.DataFrame
        File stem -> table.
    text_columns : iterable of str
        Columns of participant-derived text (see :func:`csv_ready`).

    Returns
    -------
    None
    """
    folder = Path(folder)
    text = frozenset(text_columns)
    for name, frame in frames.items():
        stem = folder / name
        if "/" in name:
            stem.parent.mkdir(parents=True, exist_ok=True)
        write_csv(frame, stem.with_name(stem.name + ".csv"), text_columns=text)
        write_json(frame, stem.with_name(stem.name + ".json"))


def write_tables(path: str | Path, tables: Mapping[str, pd.DataFrame], manifest: Mapping, *,
                 overwrite: bool = True, inputs: Iterable = (),
                 text_columns: Iterable[str] = CSV_TEXT_COLUMNS,
                 manifests: Mapping[str, Mapping] | None = None) -> Path:
    """Every frame of ``tables`` (:func:`write_frames`) plus ``manifest.json``, in one atomic output folder.

    Everything is written to a staging folder beside ``path`` and swapped into place at the end
    (:func:`evalreport._atomic.atomic_dir`), so a failure never leaves a half-written folder.

    Parameters
    ----------
    path : path
        The output folder.
    tables : mapping of str to pandas.DataFrame
        File stem -> table (``/`` makes subfolders).
    manifest : mapping
        Written as ``manifest.json`` (:func:`write_manifest`).
    overwrite : bool
        Replace an existing evalreport output folder; False: an existing one is an error.
    inputs : iterable of path
        Files or folders of the run's inputs: ``path`` may not hold one of them.
    text_columns : iterable of str
        Columns of participant-derived text (see :func:`csv_ready`).
    manifests : mapping of str to mapping, optional
        Further manifests by relative file path (``tasks/t1/manifest.json``).

    Returns
    -------
    pathlib.Path
        ``path``.
    """
    target = Path(path)
    with atomic_dir(target, overwrite=overwrite, inputs=inputs) as tmp:
        write_frames(tmp, tables, text_columns=text_columns)
        for rel, extra in (manifests or {}).items():
            write_manifest(tmp / rel, extra)
        write_manifest(tmp / "manifest.json", manifest)
    return target


def write_comparison(comparison: Any, path: str | Path, *, overwrite: bool = True, inputs: Iterable = (),
                     text_columns: Iterable[str] = CSV_TEXT_COLUMNS, provenance: Mapping | None = None) -> Path:
    """Write a comparison's tables and manifest as one atomic output folder (:func:`write_tables`).

    Works for every comparison object that has ``tables()`` and ``manifest()``: a single-label
    :class:`~evalreport.analyses.compare.Comparison`, a multi-label comparison and a
    :class:`~evalreport.analyses.benchmark.BenchmarkComparison`, whose per-task tables go to
    ``tasks/<folder>/`` each with its ``manifest.json`` (the task's name added).

    Parameters
    ----------
    comparison : object
        The comparison.
    path : path
        The output folder.
    overwrite, inputs, text_columns
        As for :func:`write_tables`.
    provenance : mapping, optional
        Written as the manifest's ``provenance`` (:func:`evalreport.report.report_meta.provenance`:
        the command, time, versions and input hashes), which ``leaderboard --from-tables`` shows.

    Returns
    -------
    pathlib.Path
        ``path``.
    """
    manifests = {}
    if hasattr(comparison, "task_folders"):
        for task, folder in comparison.task_folders().items():
            manifests[f"tasks/{folder}/manifest.json"] = {"task": task, **comparison.comparisons[task].manifest()}
    manifest = comparison.manifest()
    if provenance is not None:
        manifest = {**manifest, "provenance": dict(provenance)}
    return write_tables(path, comparison.tables(), manifest, overwrite=overwrite, inputs=inputs,
                        text_columns=text_columns, manifests=manifests)
