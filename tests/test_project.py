"""A report folder is a Quarto project and re-renders with `evalreport render`, and a
report's terminal output is progress and paths only.

Two small reports are built through the CLI (3 systems x 3 classes, 60 items, no bootstrap, no
audit): one with the builtin engine (re-rendered by the tests below), one with the quarto
engine against the fake Quarto of tests/fake_quarto.py.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
yaml = pytest.importorskip("yaml")

from evalreport.report import quarto as q
from evalreport.report.output import check_offline
from evalreport.report.project import MANIFEST

pytestmark = pytest.mark.slow
FAKE = Path(__file__).resolve().parent / "fake_quarto.py"
CLASSES = ("cat", "dog", "bird")


def _inputs(folder: Path) -> list[Path]:
    import numpy as np

    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(7)
    gold = rng.choice(CLASSES, size=60, p=[0.5, 0.3, 0.2])
    files = [folder / "gold.tsv"]
    files[0].write_text("id\tlabel\n" + "".join(f"i{i}\t{g}\n" for i, g in enumerate(gold)))
    for name, acc in (("alpha", 0.8), ("beta_*x*", 0.7), ("gamma", 0.5)):   # a name that is markdown
        pred = [g if rng.random() < acc else rng.choice(CLASSES) for g in gold]
        path = folder / f"{name}.tsv"
        path.write_text("id\tlabel\n" + "".join(f"i{i}\t{p}\n" for i, p in enumerate(pred)))
        files.append(path)
    return files


def _cli(*args, env=None, timeout=600) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "evalreport", *map(str, args)], capture_output=True, text=True,
                          timeout=timeout, env=env)


def _fake_env(tmp: Path, **extra) -> dict:
    bin_dir = tmp / "fakebin"
    bin_dir.mkdir(exist_ok=True)
    exe = bin_dir / "quarto"
    exe.write_text(f"#!{sys.executable}\n" + FAKE.read_text(encoding="utf-8"), encoding="utf-8")
    exe.chmod(exe.stat().st_mode | stat.S_IXUSR)
    env = {k: v for k, v in os.environ.items() if not k.startswith("FAKE_QUARTO")}
    env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"
    env["FAKE_QUARTO_LOG"] = str(tmp / "quarto-log.jsonl")
    env.update(extra)
    return env


def _digest(folder: Path) -> dict[str, tuple[str, int]]:
    return {str(p.relative_to(folder)): (hashlib.sha256(p.read_bytes()).hexdigest(), p.stat().st_mtime_ns)
            for p in sorted(folder.rglob("*")) if p.is_file()}


def _only_progress_and_paths(proc: subprocess.CompletedProcess, out: Path) -> None:
    """Section 5: nothing but progress lines on stderr and the final paths on stdout."""
    noise = [ln for ln in proc.stderr.splitlines() if not re.match(r"evalreport: [^\n]*(\.\.\.|done in [\d.]+ s)$", ln)]
    assert noise == [], noise
    assert all(re.match(rf"(html|pdf|tables|notebooks): {re.escape(str(out))}", ln)
               for ln in proc.stdout.splitlines()), proc.stdout


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("project")
    files = _inputs(tmp / "in")
    out = tmp / "report"
    proc = _cli("report", *files, "-o", out, "--bootstrap", "0", "--no-audit", "--engine", "builtin")
    assert proc.returncode == 0, proc.stderr[-3000:]
    return out, proc, tmp


def test_report_output_is_only_progress_and_paths(built):
    out, proc, _ = built
    _only_progress_and_paths(proc, out)
    assert "KeyboardInterrupt" not in proc.stderr


def test_report_folder_is_a_quarto_project(built):
    out, _, _ = built
    config = yaml.safe_load((out / "_quarto.yml").read_text(encoding="utf-8"))
    assert config["project"]["render"] == ["report.ipynb"]      # not notebooks/*.ipynb one by one
    for rel in q._quarto_files(config):
        assert (out / rel).is_file(), rel
    header = (out / config["format"]["html"]["include-in-header"]).read_text(encoding="utf-8")
    assert header.count("window.vegaEmbed=") == 1            # the bundle, ready for `quarto render`
    joined = nbformat.read(str(out / "report.ipynb"), as_version=4)
    front = yaml.safe_load(joined.cells[0].source.strip().strip("-"))
    assert front["format"] == config["format"] and front["title"] == "Evaluation of 3 systems"
    figs = [c for c in joined.cells if c.cell_type == "code" and re.search(r"^#\| label: fig-", c.source, re.M)]
    assert figs and all("#| fig-cap: " in c.source for c in figs)      # every figure of the report
    manifest = json.loads((out / MANIFEST).read_text(encoding="utf-8"))
    assert manifest["notebooks"] == ["report", "appendix"] and manifest["parameters"] == {"tables": "../tables"}
    for path in (out / "templates").rglob("*"):
        assert not path.name.startswith(".")


def test_render_after_editing_markdown_changes_html_and_leaves_tables(built):
    out, _, _ = built
    nb_path = out / "notebooks" / "report.ipynb"
    nb = nbformat.read(str(nb_path), as_version=4)
    md = next(c for c in nb.cells if c.cell_type == "markdown")
    md.source += "\n\nAn edited paragraph, EDIT-7f3a."
    nbformat.write(nb, str(nb_path))
    tables = _digest(out / "tables")
    proc = _cli("render", out, "--engine", "builtin")
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "executing" not in proc.stderr                     # text only: nothing re-executed
    _only_progress_and_paths(proc, out)
    assert "EDIT-7f3a" in (out / "report.html").read_text(encoding="utf-8")
    assert "EDIT-7f3a" in (out / "report.ipynb").read_text(encoding="utf-8")   # quarto render sees it too
    assert (out / "report.pdf").read_bytes().startswith(b"%PDF")
    assert _digest(out / "tables") == tables
    assert not [p for p in out.parent.iterdir() if p.name.startswith(".report")]      # no staging left


def test_render_reexecutes_a_notebook_whose_code_changed(built):
    out, _, _ = built
    nb_path = out / "notebooks" / "appendix.ipynb"
    nb = nbformat.read(str(nb_path), as_version=4)
    cell = nbformat.v4.new_code_cell("from evalreport.report.display import Note\n"
                                     "Note('Computed again: ' + str(6 * 7))")
    nb.cells.append(cell)
    nbformat.write(nb, str(nb_path))
    proc = _cli("render", out, "--engine", "builtin", "--formats", "html")
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "executing notebook 2/2: appendix.ipynb (code changed)" in proc.stderr
    assert "report.ipynb" not in proc.stderr.split("executing", 1)[-1].split("\n")[0]
    assert "Computed again: 42" in (out / "report.html").read_text(encoding="utf-8")
    executed = nbformat.read(str(nb_path), as_version=4)
    assert executed.cells[-1].outputs                          # the executed notebook replaced the edited one


def test_render_uses_the_folders_templates(built):
    out, _, _ = built
    css = out / "templates" / "html" / "report.css"
    css.write_text(css.read_text(encoding="utf-8") + "\n/* user style TPL-91c */\n", encoding="utf-8")
    proc = _cli("render", out, "--engine", "builtin", "--formats", "html", "--execute")
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "TPL-91c" in (out / "report.html").read_text(encoding="utf-8")
    assert "1/2: report.ipynb (--execute)" in proc.stderr and "2/2: appendix.ipynb (--execute)" in proc.stderr


def test_render_refuses_a_folder_that_is_not_a_report(tmp_path, built):
    out, _, _ = built
    for folder in (tmp_path, tmp_path / "missing", out / "tables"):
        proc = _cli("render", folder)
        assert proc.returncode == 2
        assert len(proc.stderr.strip().splitlines()) == 1 and proc.stderr.startswith("evalreport: error: ")
        assert proc.stdout == ""


def test_failed_rerender_leaves_the_folder_as_it_was(built):
    out, _, tmp = built
    nb_path = out / "notebooks" / "report.ipynb"
    nb = nbformat.read(str(nb_path), as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell("1 / 0"))
    nbformat.write(nb, str(nb_path))
    before = _digest(out)
    proc = _cli("render", out, "--engine", "builtin")
    assert proc.returncode == 2 and "ZeroDivisionError" in proc.stderr
    assert _digest(out) == before
    nb.cells.pop()
    nbformat.write(nb, str(nb_path))


def test_failed_rerender_that_wrote_to_tables_leaves_them_as_they_were(built):
    """A notebook that writes into ../tables and then fails changes nothing of the folder (review H2)."""
    out, _, _ = built
    nb_path = out / "notebooks" / "appendix.ipynb"
    original = nb_path.read_bytes()
    nb = nbformat.read(str(nb_path), as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell(
        "open('../tables/leaderboard.csv', 'a').write('tampered,1\\n')\nraise SystemError('boom')"))
    nbformat.write(nb, str(nb_path))
    before = _digest(out)
    try:
        proc = _cli("render", out, "--engine", "builtin", "--formats", "html")
        assert proc.returncode == 2 and "SystemError" in proc.stderr
        assert _digest(out) == before
        assert "tampered" not in (out / "tables" / "leaderboard.csv").read_text(encoding="utf-8")
    finally:
        nb_path.write_bytes(original)


def test_render_after_editing_a_table_executes_the_notebooks_again(built):
    """The report shows what tables/ says: an edited table makes every notebook run again (review M5)."""
    out, _, _ = built
    board = out / "tables" / "leaderboard.csv"
    original = board.read_text(encoding="utf-8")
    lines = original.splitlines()
    header = lines[0].split(",")
    first = lines[1].split(",")
    first[header.index("system")] = "EDITED-SYSTEM-5c1"
    board.write_text("\n".join([lines[0], ",".join(first), *lines[2:]]) + "\n", encoding="utf-8")
    try:
        proc = _cli("render", out, "--engine", "builtin", "--formats", "html")
        assert proc.returncode == 0, proc.stderr[-3000:]
        assert "(tables changed)" in proc.stderr
        assert "EDITED-SYSTEM-5c1" in (out / "report.html").read_text(encoding="utf-8")
        again = _cli("render", out, "--engine", "builtin", "--formats", "html")    # the manifest took the new hash
        assert again.returncode == 0 and "executing" not in again.stderr
    finally:   # the table as it was, and the manifest agreeing with it (for the tests that follow)
        from evalreport.report.project import tables_hash

        board.write_text(original, encoding="utf-8")
        manifest = json.loads((out / MANIFEST).read_text(encoding="utf-8"))
        manifest["tables"] = tables_hash(out / "tables")
        (out / MANIFEST).write_text(json.dumps(manifest), encoding="utf-8")


# --------------------------------------------------------------------------------------------
# The quarto engine end to end, against the fake Quarto
# --------------------------------------------------------------------------------------------
def test_report_with_quarto_engine_end_to_end(tmp_path):
    files = _inputs(tmp_path / "in")
    out = tmp_path / "report"
    env = _fake_env(tmp_path, FAKE_QUARTO_WARN="1")
    proc = _cli("report", *files, "-o", out, "--bootstrap", "0", "--no-audit", "--engine", "quarto", env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    runs = [json.loads(ln) for ln in (tmp_path / "quarto-log.jsonl").read_text().splitlines()]
    assert [r["to"] for r in runs] == ["html", "typst"]
    assert all(not r["hidden"] and r["project_config"] and r["options"] for r in runs)
    assert runs[1]["options"]["papersize"] == "a4"
    html = (out / "report.html").read_text(encoding="utf-8")
    check_offline(html)                                          # the CDN tags are gone
    assert html.count("window.vegaEmbed=") == 1
    figures = re.findall(r"<figcaption>(Figure \d+[^<]*)</figcaption>", html)
    assert figures and all(re.match(r"Figure \d+: \S", f) for f in figures), figures   # never a bare "Figure N"
    assert any("beta_*x*" in f for f in figures) or "beta_*x*" in html
    # the warnings reached the terminal, one line each; everything else is progress
    warned = [ln for ln in proc.stderr.splitlines() if "Could not fetch resource" in ln]
    assert len(warned) == 4 and all(ln.startswith("evalreport: note: quarto warned (") for ln in warned)
    rest = [ln for ln in proc.stderr.splitlines() if ln not in warned and not ln.startswith("evalreport: ")]
    assert rest == []
    # and re-rendering with the same engine works from the folder
    proc = _cli("render", out, "--engine", "quarto", "--formats", "html", env=_fake_env(tmp_path))
    assert proc.returncode == 0, proc.stderr[-3000:]
    check_offline((out / "report.html").read_text(encoding="utf-8"))


def test_failed_quarto_run_exits_2_and_writes_nothing(tmp_path):
    out = tmp_path / "sim"
    proc = _cli("simulate", "-o", out, "--repetitions", "20", "--engine", "quarto",
                env=_fake_env(tmp_path, FAKE_QUARTO_FAIL="1"))
    assert proc.returncode == 2
    assert "`quarto render report.ipynb --to html --no-execute` failed with exit status 3" in proc.stderr
    assert "unknown font family" in proc.stderr
    assert not out.exists() and [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []
    assert proc.stdout == ""


@pytest.mark.skipif(shutil.which("quarto") is None, reason="quarto executable not on PATH (pip install quarto-cli)")
def test_quarto_render_in_the_report_folder(built, tmp_path):
    out, _, _ = built
    copy = tmp_path / "copy"
    shutil.copytree(out, copy)
    (copy / "report.html").unlink()
    proc = subprocess.run(["quarto", "render", "-M", "keep-typ:true"], cwd=copy, capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    html = (copy / "report.html").read_text(encoding="utf-8")
    assert html.count("window.vegaEmbed=") == 1 and (copy / "report.pdf").is_file()
    assert _digest(copy / "tables") == _digest(out / "tables")
    # every table is evalreport's: its Typst table in the PDF (no pipe table, no glued numbers), its HTML
    # table in a scrolling box over the body and right margin of the page (tests/quarto_checks.py)
    from quarto_checks import glued_numbers, html_table_problems, typst_table_problems

    from evalreport.report.typst_table import MIME_TYPST

    joined = nbformat.read(str(copy / "report.ipynb"), as_version=4)
    n = sum(MIME_TYPST in o.get("data", {}) for c in joined.cells if c.cell_type == "code" for o in c.outputs)
    assert n and typst_table_problems((copy / "report.typ").read_text(encoding="utf-8"), n) == []
    assert not glued_numbers(copy / "report.pdf")
    assert html_table_problems(html, n) == []
