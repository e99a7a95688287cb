"""Copies the report resources (notebooks/, templates/, _quarto.yml) into the wheel.

They live at the top of the repository (where Quarto and notebook authors expect them) and
ship inside the package as ``evalreport/_data/`` so that an installed wheel can render a
report outside the repository (see ``evalreport/report/resources.py``). Everything else about
the package is declared in pyproject.toml.
"""
import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
RESOURCES = ("notebooks", "templates", "_quarto.yml")


class BuildPyWithReportData(build_py):
    def run(self):
        super().run()
        target = Path(self.build_lib) / "evalreport" / "_data"
        for name in RESOURCES:
            src, dst = ROOT / name, target / name
            if not src.exists():
                raise FileNotFoundError(f"report resource missing from the source tree: {src}")
            if src.is_dir():
                shutil.copytree(src, dst, dirs_exist_ok=True,
                                ignore=shutil.ignore_patterns("__pycache__", ".ipynb_checkpoints"))
            else:
                dst.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(src, dst)


setup(cmdclass={"build_py": BuildPyWithReportData})
