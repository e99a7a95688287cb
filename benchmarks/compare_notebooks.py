"""Compare two report output folders: the executed notebooks' cell outputs and the tables.

    python benchmarks/compare_notebooks.py BEFORE_DIR AFTER_DIR

Each folder is the ``-o`` folder of ``evalreport report`` or ``evalreport demo``. For every
notebook in ``notebooks/`` the ``outputs`` of each code cell must be equal (papermill's timing
metadata and ``execution_count`` are ignored; chart specs are compared as JSON values, HTML,
Markdown and Typst as text). Every file in ``tables/`` must be byte-identical, except
``timings.json`` and the version/time fields of ``manifest.json``. The report's creation time
(``YYYY-MM-DD HH:MM UTC``, in report.json and the appendix) is masked everywhere. Run both reports
with the same ``-o`` folder (rename the first one before the second run): the folder's path is in
the tables and the appendix, and its length changes the tables' layout. Prints each difference
and exits with status 1 if there is one, 0 otherwise.
"""
from __future__ import annotations

import json
import re
import sys
from pathlib import Path

#: manifest.json fields that change from run to run (or with the code's version).
VOLATILE_MANIFEST = {"version", "evalreport_version", "created", "time", "timestamp", "generated", "versions",
                     "elapsed", "duration", "timings"}


#: the creation time, also as escaped Markdown in the notebook JSON: 2026\\-11\\-24 05\\:28 UTC
_CREATED = re.compile(r"\d{4}\\*-\d\d\\*-\d\d \d\d\\*:\d\d UTC")


def _mask(text: str) -> str:
    return _CREATED.sub("YYYY-MM-DD HH:MM UTC", text)


def _outputs(nb_path: Path) -> list:
    nb = json.loads(_mask(nb_path.read_text(encoding="utf-8")))
    cells = []
    for cell in nb["cells"]:
        if cell["cell_type"] != "code":
            continue
        outs = []
        for out in cell.get("outputs", []):
            out = dict(out)
            out.pop("execution_count", None)
            outs.append(out)
        cells.append(("".join(cell["source"]), outs))
    return cells


def _diff_value(a, b, where: str, found: list, limit: int = 3) -> None:
    """Record where the JSON values ``a`` and ``b`` first differ (at most ``limit`` places)."""
    if len(found) >= limit:
        return
    if type(a) is not type(b):
        found.append(f"{where}: type {type(a).__name__} vs {type(b).__name__}")
    elif isinstance(a, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                found.append(f"{where}.{k}: only in {'after' if k in b else 'before'}")
            else:
                _diff_value(a[k], b[k], f"{where}.{k}", found, limit)
    elif isinstance(a, list):
        if len(a) != len(b):
            found.append(f"{where}: length {len(a)} vs {len(b)}")
        for i, (x, y) in enumerate(zip(a, b)):
            _diff_value(x, y, f"{where}[{i}]", found, limit)
    elif a != b:
        text_a, text_b = str(a), str(b)
        i = next((i for i, (x, y) in enumerate(zip(text_a, text_b)) if x != y), min(len(text_a), len(text_b)))
        found.append(f"{where}: differs at char {i}: {text_a[max(0, i - 60):i + 60]!r} vs "
                     f"{text_b[max(0, i - 60):i + 60]!r}")


def compare_notebooks(before: Path, after: Path) -> list[str]:
    problems = []
    names = sorted({p.name for p in (before / "notebooks").glob("*.ipynb")}
                   | {p.name for p in (after / "notebooks").glob("*.ipynb")})
    for name in names:
        a, b = before / "notebooks" / name, after / "notebooks" / name
        if not (a.exists() and b.exists()):
            problems.append(f"notebooks/{name}: only in {'after' if b.exists() else 'before'}")
            continue
        cells_a, cells_b = _outputs(a), _outputs(b)
        if len(cells_a) != len(cells_b):
            problems.append(f"notebooks/{name}: {len(cells_a)} vs {len(cells_b)} code cells")
        for i, ((src, out_a), (_, out_b)) in enumerate(zip(cells_a, cells_b)):
            if out_a != out_b:
                found: list = []
                _diff_value(out_a, out_b, "outputs", found)
                last = src.strip().splitlines()[-1] if src.strip() else ""
                problems.append(f"notebooks/{name} cell {i} ({last[:60]}): " + "; ".join(found))
    return problems


def compare_tables(before: Path, after: Path) -> list[str]:
    problems = []
    ta, tb = before / "tables", after / "tables"
    names = sorted({p.relative_to(ta).as_posix() for p in ta.rglob("*") if p.is_file()}
                   | {p.relative_to(tb).as_posix() for p in tb.rglob("*") if p.is_file()})
    for name in names:
        if name == "timings.json":
            continue
        a, b = ta / name, tb / name
        if not (a.exists() and b.exists()):
            problems.append(f"tables/{name}: only in {'after' if b.exists() else 'before'}")
        elif name == "manifest.json":
            ma, mb = (json.loads(p.read_text(encoding="utf-8")) for p in (a, b))
            for m in (ma, mb):
                for key in VOLATILE_MANIFEST:
                    m.pop(key, None)
            if ma != mb:
                found: list = []
                _diff_value(ma, mb, "manifest", found)
                problems.append(f"tables/{name}: " + "; ".join(found))
        elif name.rsplit("/", 1)[-1] == "report.json":
            if _mask(a.read_text(encoding="utf-8")) != _mask(b.read_text(encoding="utf-8")):
                problems.append(f"tables/{name}: differs (creation time masked)")
        elif a.read_bytes() != b.read_bytes():
            problems.append(f"tables/{name}: bytes differ")
    return problems


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    before, after = map(Path, argv)
    problems = compare_notebooks(before, after) + compare_tables(before, after)
    for p in problems:
        print(p)
    n_nb = len(list((before / "notebooks").glob("*.ipynb")))
    print(f"{'DIFFERENT' if problems else 'identical'}: {n_nb} notebooks, tables of {before} vs {after}"
          f" ({len(problems)} difference(s))")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
