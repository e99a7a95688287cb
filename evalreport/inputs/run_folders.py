"""A runs folder holding one folder per system, with one run file per training run (seed) in each.

``runs/`` with files directly in it is one system per file (the usual layout). ``runs/bert/seed1.tsv``,
``runs/bert/seed2.tsv``, ``runs/svm/seed1.tsv`` makes two systems, ``bert`` with two runs and ``svm`` with
one; the runs are named ``system/run`` (folder name / file stem) and :attr:`evalreport.inputs.runs.Runs.run_system`
says which system each run belongs to. The two layouts may not be mixed in one folder.
"""
from __future__ import annotations

from pathlib import Path

from evalreport.errors import InputError
from evalreport.inputs.checks import FORMATS, natural_key, runs_in_folder

__all__ = ["system_folders", "RUN_SEPARATOR"]

#: Between a system's name and its run's name in the name of a run (``bert/seed1``).
RUN_SEPARATOR = "/"


def _hidden(name: str) -> bool:
    """A hidden entry, or a spreadsheet's lock file (as the flat layout skips them)."""
    return name.startswith((".", "~$"))


def _is_run(path: Path) -> bool:
    """A file the runs folder would read as a run."""
    return not _hidden(path.name) and path.is_file() and path.suffix.lower() in FORMATS


def system_folders(folder: Path, *, exclude: Path) -> list[tuple[Path, str, str]] | None:
    """The runs of a folder that holds one folder per system.

    Parameters
    ----------
    folder : Path
        The runs folder (``--runs-dir``).
    exclude : Path
        The gold file, never a run (it may lie in the folder).

    Returns
    -------
    list of (Path, str, str) or None
        ``(file, system, run)`` for every run file, systems and runs in natural order of their names;
        ``None`` for the flat layout (one file per system): no sub-folder, or run files beside sub-folders
        that hold none.

    Raises
    ------
    InputError
        Run files beside system folders (the layouts mixed), or a system folder without run files.
    """
    if not folder.is_dir():
        return None
    skip = exclude.resolve() if exclude.exists() else None
    entries = [p for p in folder.iterdir() if not _hidden(p.name)]
    dirs = sorted((p for p in entries if p.is_dir()), key=lambda p: natural_key(p.name))
    if not dirs:
        return None
    files = [p for p in entries if p.is_file() and p.suffix.lower() in FORMATS and p.resolve() != skip]
    if files:
        # beside run files, a folder without run files stays an entry the flat layout does not read (and names)
        dirs = [d for d in dirs if any(_is_run(p) for p in d.iterdir())]
        if not dirs:
            return None
        raise InputError(f"the runs folder holds run files ({files[0].name}) beside folders of runs "
                         f"({dirs[0].name}/): put each system's runs in a folder of its own (one file per run) "
                         "or every system in one file, not both", path=folder)
    found = []
    for d in dirs:
        for path in runs_in_folder(d, exclude=exclude):
            found.append((path, d.name, path.stem))
    return found
