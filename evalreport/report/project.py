"""A report folder is a project its reader can edit and render again.

After ``evalreport report`` (or ``demo``, ``simulate``) the folder holds, next to
``report.html``/``report.pdf``, ``tables/`` and ``notebooks/``:

* ``_quarto.yml``, ``templates/`` (every template either engine reads; the Quarto header
  include already carries the Vega bundle) and ``report.ipynb``, the executed notebooks joined
  behind their front matter: ``quarto render`` in the folder rebuilds ``report.html`` and
  ``report.pdf`` from ``report.ipynb`` without executing anything;
* ``notebooks/_evalreport.json``, the manifest :func:`rerender` reads: the notebooks in
  order, the title, the parameters (common ones, and ``notebook_parameters``: a notebook's own,
  e.g. a benchmark task's ``tables`` folder; manifests without it stay readable) and a hash of
  each notebook's code.

:func:`rerender` (``evalreport render DIR``) renders the folder again from
``notebooks/*.ipynb`` and ``templates/``: a notebook whose code changed is executed again
with papermill against the folder's ``tables/`` (all of them with ``execute_all``; one kernel for
all, :class:`~evalreport.report.kernel.NotebookRunner`); a
notebook whose markdown alone changed is only re-rendered. The analyses never run again.
When a file of ``tables/`` changed since the notebooks ran (a hash of the tables is in the
manifest), every notebook is executed again, so the report shows what the tables say. The
folder is replaced atomically; ``tables/`` is copied into the staging folder, so a notebook that
writes there (or fails half-way) never changes the original tables.
"""
from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from evalreport._atomic import MARKER, atomic_dir
from evalreport.errors import InputError

__all__ = ["MANIFEST", "write_project", "read_manifest", "code_hash", "rerender"]

#: The manifest of a report folder (relative to it); Quarto ignores names starting with "_".
MANIFEST = "notebooks/_evalreport.json"
_VERSION = 1


def code_hash(notebook: Path) -> str:
    """SHA-256 of a notebook's code (cell sources in order; papermill's injected parameters left out)."""
    import nbformat

    nb = nbformat.read(str(notebook), as_version=4)
    h = hashlib.sha256()
    for cell in nb.cells:
        if cell.cell_type != "code" or "injected-parameters" in cell.metadata.get("tags", []):
            continue
        h.update(cell.source.encode("utf-8") + b"\0")
    return h.hexdigest()


#: Written after the notebooks ran (not read by them): left out of the tables' hash.
_UNHASHED = ("timings.json",)


def tables_hash(tables: Path) -> str:
    """SHA-256 over the names and contents of the files in ``tables/`` the notebooks read."""
    h = hashlib.sha256()
    for path in sorted(Path(tables).rglob("*")):
        if path.is_file() and path.name not in _UNHASHED:
            h.update(path.relative_to(tables).as_posix().encode("utf-8") + b"\0")
            with open(path, "rb") as fh:
                for block in iter(lambda: fh.read(1 << 20), b""):
                    h.update(block)
            h.update(b"\0")
    return h.hexdigest()


def write_project(folder: Path, executed: Sequence[Path], *, title: str, metadata: Mapping[str, Any] | None = None,
                  parameters: Mapping[str, Any], formats: Sequence[str],
                  notebook_parameters: Mapping[str, Mapping[str, Any]] | None = None) -> None:
    """Make ``folder`` (a report being built) a Quarto project and write its manifest.

    ``templates/`` and ``_quarto.yml`` are copied from evalreport unless the folder has them
    already (a re-render keeps the user's edits)."""
    from evalreport.report.quarto import quarto_project
    from evalreport.report.render import check_metadata, load_executed
    from evalreport.report.resources import quarto_config, templates_dir

    folder = Path(folder)
    if not (folder / "templates").is_dir():
        shutil.copytree(templates_dir(), folder / "templates",
                        ignore=shutil.ignore_patterns("__pycache__", ".*"))
    if not (folder / "_quarto.yml").is_file():
        shutil.copyfile(quarto_config(), folder / "_quarto.yml")
    meta = check_metadata(title, metadata)
    # static chart images only for a PDF (rerender draws them when a PDF is asked for later)
    notebooks = [(Path(p).stem, load_executed(Path(p), images="pdf" in formats)) for p in executed]
    quarto_project(notebooks, folder, meta, config_path=folder / "_quarto.yml", templates_root=folder)
    manifest = {
        "evalreport_project": _VERSION,
        "title": title,
        "metadata": {k: v for k, v in dict(metadata or {}).items() if v is not None},
        "notebooks": [Path(p).stem for p in executed],
        "parameters": dict(parameters),
        "notebook_parameters": {k: dict(v) for k, v in dict(notebook_parameters or {}).items() if v},
        "formats": list(formats),
        "code": {Path(p).stem: code_hash(Path(p)) for p in executed},
        "tables": tables_hash(folder / "tables") if (folder / "tables").is_dir() else None,
    }
    (folder / MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")


def read_manifest(folder: Path) -> dict:
    """The manifest of a report folder; an :class:`InputError` (one line) if it is not one."""
    folder = Path(folder)
    what = f"{folder} is not an evalreport report folder"
    if not folder.is_dir():
        raise InputError(f"{folder}: no such folder")
    path = folder / MANIFEST
    if not (folder / MARKER).is_file() or not path.is_file():
        raise InputError(f"{what} (no {MANIFEST}); make one with `evalreport report` or `evalreport demo`")
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise InputError(f"{what}: {MANIFEST} is unreadable ({exc})") from None
    if manifest.get("evalreport_project") != _VERSION or not manifest.get("notebooks"):
        raise InputError(f"{what}: {MANIFEST} is of an unknown version")
    missing = [n for n in manifest["notebooks"] if not (folder / "notebooks" / f"{n}.ipynb").is_file()]
    if missing:
        raise InputError(f"{folder}/notebooks lacks {', '.join(m + '.ipynb' for m in missing)}")
    if not (folder / "tables").is_dir():
        raise InputError(f"{what} (no tables/)")
    return manifest


def _copy_report(src: Path, dst: Path) -> None:
    """Everything of ``src`` copied into the empty staging folder ``dst`` (the originals stay untouched)."""
    for entry in src.iterdir():
        if entry.name == MARKER or entry.name.startswith(".evalreport-render-"):
            continue
        target = dst / entry.name
        if entry.is_dir() and not entry.is_symlink():
            shutil.copytree(entry, target, symlinks=True, copy_function=shutil.copy2)
        else:
            shutil.copy2(entry, target, follow_symlinks=False)


def rerender(folder: Path, *, engine: str = "auto", formats: Sequence[str] | None = None, execute_all: bool = False,
             stages=None) -> dict[str, Path]:
    """Render the report in ``folder`` again from its notebooks and templates (see the module doc)."""
    from evalreport.report.build import Stages
    from evalreport.report.kernel import NotebookRunner
    from evalreport.report.render import FORMATS, render

    folder = Path(folder)
    manifest = read_manifest(folder)
    stages = stages or Stages(False)
    formats = tuple(formats or manifest.get("formats") or FORMATS)
    names = manifest["notebooks"]
    # the notebooks executed again share one kernel (started at the first one; none if none is)
    with atomic_dir(folder) as staging, NotebookRunner(staging / "notebooks") as runner:
        _copy_report(folder, staging)
        nb_dir = staging / "notebooks"
        executed = []
        tables_changed = manifest.get("tables") is not None and tables_hash(folder / "tables") != manifest["tables"]
        for i, name in enumerate(names, 1):
            src, out = folder / "notebooks" / f"{name}.ipynb", nb_dir / f"{name}.ipynb"
            changed = code_hash(src) != manifest.get("code", {}).get(name)
            if execute_all or changed or tables_changed:
                why = "code changed" if changed else "tables changed" if tables_changed else "--execute"
                with stages.stage(f"executing notebook {i}/{len(names)}: {name}.ipynb ({why})"):
                    runner.execute(src, out, {**manifest.get("parameters", {}),
                                              **manifest.get("notebook_parameters", {}).get(name, {})})
            executed.append(out)
        resources = staging if (staging / "templates").is_dir() else None
        with stages.stage(f"rendering {', '.join(formats)} ({engine} engine)"):
            paths = render(executed, staging, title=manifest["title"], formats=formats, engine=engine,
                           metadata=manifest.get("metadata"), resources=resources)
        write_project(staging, executed, title=manifest["title"], metadata=manifest.get("metadata"),
                      parameters=manifest.get("parameters", {}),
                      notebook_parameters=manifest.get("notebook_parameters"), formats=sorted(set(formats) | set(
                          f for f in manifest.get("formats", ()) if (folder / f"report.{f}").is_file())))
    outputs = {fmt: folder / Path(p).name for fmt, p in paths.items()}
    outputs.update(notebooks=folder / "notebooks")
    return outputs
