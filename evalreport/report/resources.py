"""Where the report notebooks, templates and Quarto config live.

In a source checkout they are the repository's top-level ``notebooks/``, ``templates/`` and
``_quarto.yml``. In an installed wheel the build maps them into the package as
``evalreport/_data/notebooks``, ``evalreport/_data/templates`` and
``evalreport/_data/quarto/_quarto.yml`` (see ``[tool.setuptools]`` in pyproject.toml).
``EVALREPORT_DATA_DIR`` overrides both (a directory holding the same three entries).
"""
from __future__ import annotations

import os
from pathlib import Path

__all__ = ["notebooks_dir", "templates_dir", "quarto_config", "data_root"]

_PKG_DIR = Path(__file__).resolve().parent.parent  # .../evalreport


def _checkout_root() -> Path | None:
    root = _PKG_DIR.parent
    if (root / "pyproject.toml").is_file() and (root / "templates").is_dir():
        return root
    return None


def data_root() -> Path:
    """The directory holding ``notebooks/`` and ``templates/``."""
    env = os.environ.get("EVALREPORT_DATA_DIR")
    if env:
        return Path(env)
    root = _checkout_root()
    if root is not None:
        return root
    installed = _PKG_DIR / "_data"
    if (installed / "templates").is_dir():
        return installed
    raise FileNotFoundError(
        "evalreport's report templates were not found: neither a source checkout "
        f"({_PKG_DIR.parent}/templates) nor installed package data ({installed}/templates). "
        "Reinstall evalreport, or set EVALREPORT_DATA_DIR."
    )


def notebooks_dir() -> Path:
    """The report notebooks shipped with evalreport."""
    return data_root() / "notebooks"


def templates_dir() -> Path:
    """The HTML, Typst and Quarto templates shipped with evalreport."""
    return data_root() / "templates"


def quarto_config() -> Path:
    """The ``_quarto.yml`` used by the Quarto engine."""
    root = data_root()
    for candidate in (root / "_quarto.yml", root / "quarto" / "_quarto.yml"):
        if candidate.is_file():
            return candidate
    raise FileNotFoundError(f"_quarto.yml not found under {root}")
