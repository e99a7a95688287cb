"""The README's tour runs from a fresh clone, and says what its commands show.

The tour's shell block is run verbatim by bash in a copy of the repository made of the files git
tracks (so an untracked file cannot help), after a stand-in for command 1's virtual environment:
`.venv/bin/activate` puts on PATH an `evalreport` that runs this interpreter on the copy's
package. Afterwards the copy's `git status` must be clean (every output of the tour is ignored, no
tracked file changed), and the tour's prose ("What you will see") is checked against the tables the
commands wrote.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")

def _section(heading: str) -> str:
    start = README.index(f"\n## {heading}\n")
    end = README.find("\n## ", start + 1)
    return README[start:end if end >= 0 else None]


def _blocks(section: str, language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", section, re.S)


def _git(args, cwd, **kw):
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, **kw)


@pytest.fixture(scope="module")
def clone(tmp_path_factory):
    """A copy of the tracked files, as a git repository of its own, with a stand-in `.venv`."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    listed = _git(["ls-files", "-z"], ROOT)
    if listed.returncode != 0:
        pytest.skip("not a git checkout: " + listed.stderr.strip())
    repo = tmp_path_factory.mktemp("clone") / "evalreport"
    for name in filter(None, listed.stdout.split("\0")):
        source = ROOT / name
        if source.is_file():                     # a tracked file deleted in the work tree is left out
            (repo / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, repo / name)
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t", GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@t")
    for step in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "clone"]):
        done = _git(step, repo, env=env)
        assert done.returncode == 0, done.stderr
    bin_dir = repo / ".venv" / "bin"
    bin_dir.mkdir(parents=True)
    (bin_dir / "activate").write_text(f'export PATH="{bin_dir}:$PATH"\n', encoding="utf-8")
    shim = bin_dir / "evalreport"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m evalreport "$@"\n', encoding="utf-8")
    shim.chmod(0o755)
    return repo


@pytest.fixture(scope="module")
def tour(clone):
    """Run the tour's shell block in the clone; the clone's path."""
    blocks = _blocks(_section("A tour"), "bash")
    assert len(blocks) == 1, "the tour is one bash block"
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env["PYTHONPATH"] = str(clone)               # the copy's package, in the CLI and in the notebook kernels
    done = subprocess.run(["bash", "-euxo", "pipefail", "-c", blocks[0]], cwd=clone, env=env,
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, f"the tour failed (exit {done.returncode}):\n{done.stderr[-4000:]}"
    return clone


@pytest.mark.slow
def test_tour_leaves_the_clone_clean(tour):
    status = _git(["status", "--porcelain", "--untracked-files=all"], tour)
    assert status.returncode == 0 and status.stdout == "", \
        "the tour wrote files git does not ignore, or changed tracked files:\n" + status.stdout
    for path in ("tour/report/report.html", "tour/report/report.pdf", "tour/compare/leaderboard.csv",
                 "tour/scores.csv", "tour/codabench/scores.json", "tour/codabench/detailed_results.html"):
        assert (tour / path).is_file(), path


@pytest.mark.slow
def test_what_the_tour_says_it_shows(tour):
    scores = pd.read_csv(tour / "tour" / "scores.csv")
    values = scores.pivot(index="system", columns="measure", values="value")
    # measures disagree: svm first under accuracy and MCC, bert under the official measure, macro F1 and K
    assert values["accuracy"].idxmax() == values["mcc"].idxmax() == "svm"
    assert values["stance_f_avg"].idxmax() == values["macro_f1"].idxmax() == values["k"].idxmax() == "bert"
    assert "`svm` finds fewer than half of the FAVOR items" in " ".join(_section("A tour").split())
    from evalreport import evaluate
    from evalreport.counts import count
    from evalreport.inputs import read_runs

    runs = read_runs(tour / "examples/stance/gold.tsv", runs_dir=tour / "examples/stance/runs")
    recall = evaluate(count(runs), ["recall"], positive="FAVOR").set_index("system")["value"]
    assert recall["svm"] < 0.5 < recall["bert"]
    leaderboard = pd.read_csv(tour / "tour" / "compare" / "leaderboard.csv").set_index("system")
    assert leaderboard.loc["bert", "rank"] == 1 and "a" in leaderboard.loc["svm", "letters"] \
        and "a" in leaderboard.loc["bert", "letters"]
    # the majority baseline: accuracy as the README prints it, K 0, MCC undefined with a reason
    majority = scores[scores["system"] == "majority"].set_index("measure")
    assert f"its accuracy is {majority.loc['accuracy', 'value']:.2f}," in " ".join(_section("A tour").split())
    assert majority.loc["k", "value"] == 0
    assert bool(majority.loc["mcc", "undefined"]) and isinstance(majority.loc["mcc", "reason"], str)
    findings = pd.read_csv(tour / "tour" / "report" / "tables" / "findings.csv")
    kind = findings.groupby("finding")
    assert set(kind.get_group("constant_system")["system"]) == {"majority"}
    assert set(kind.get_group("below_baseline")["system"]) == {"majority"}
    assert set(kind.get_group("winner_calibrated")["system"]) == {"bert"}
    assert set(kind.get_group("winner_noise")["detail"]) == {"within noise"}
    # the plugin's measure equals the built-in class-subset average the scoring program uses
    codabench = json.loads((tour / "tour" / "codabench" / "scores.json").read_text(encoding="utf-8"))
    assert codabench["score"] == pytest.approx(values.loc["bert", "stance_f_avg"], abs=1e-12)
    for key in ("macro_f1_classes_against_favor_lo", "macro_f1_classes_against_favor_hi", "accuracy", "mcc"):
        assert key in codabench
    # competition.yaml's columns are keys the scoring program writes
    competition = (tour / "examples" / "codabench" / "competition.yaml").read_text(encoding="utf-8")
    columns = re.findall(r"key: (\w+), index", competition)
    assert columns and set(columns) <= set(codabench)


@pytest.mark.slow
def test_readme_python_block_runs(clone):
    blocks = _blocks(_section("Python"), "python")
    assert len(blocks) == 1
    env = {**os.environ, "PYTHONPATH": str(clone)}
    done = subprocess.run([sys.executable, "-c", blocks[0]], cwd=clone, env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]


def test_every_output_the_readme_names_is_ignored(clone):
    """`-o X`, `--out X` and `> X` in the README's shell blocks, and `-o X` in its text, are outputs git ignores."""
    targets = set()
    for block in _blocks(README, "bash"):
        targets |= set(re.findall(r"(?:-o|--out|>)\s+([\w./-]+)", block))
    targets |= set(re.findall(r"-o ([a-z][\w.-]*)`", README))
    targets = {t for t in targets if t.upper() != t}          # not placeholders such as DIR
    assert {"demo-report", "tour/report", "tour/compare", "tour/scores.csv"} <= targets
    for target in sorted(targets):
        assert _git(["check-ignore", "-q", target + "/"], clone).returncode == 0 \
            or _git(["check-ignore", "-q", target], clone).returncode == 0, target


def test_example_files_are_what_their_script_writes(tmp_path):
    """examples/make_examples.py reproduces the committed example data byte for byte."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("make_examples", ROOT / "examples" / "make_examples.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.make(tmp_path)
    written = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*") if p.is_file())
    assert len(written) == 7
    for relative in written:
        assert (tmp_path / relative).read_bytes() == (ROOT / "examples" / relative).read_bytes(), relative


def _anchors(page: Path) -> set[str]:
    text = page.read_text(encoding="utf-8")
    explicit = set(re.findall(r'<a id="([\w-]+)"></a>', text))
    slugs = {re.sub(r"[^\w\- ]", "", heading.lower()).strip().replace(" ", "-")
             for heading in re.findall(r"(?m)^#+ (.+?)\s*(?:<a id=.*)?$", text)}
    return explicit | slugs


def test_every_docs_reference_exists():
    """Each `docs/PAGE.md` and `docs/PAGE.md#anchor` named in the README and in docs/ is there."""
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    named = set()
    for page in pages:
        named |= set(re.findall(r"docs/([\w-]+\.md)(?:#([\w-]+))?", page.read_text(encoding="utf-8")))
        # a page's links to its own anchors: (#anchor) and "#anchor" written alone, as docs/audit.md does
        named |= {(page.name, a) for a in re.findall(r"\(#([\w-]+)\)", page.read_text(encoding="utf-8"))
                  if page.parent.name == "docs"}
    assert named
    for name, anchor in sorted(named):
        target = ROOT / "docs" / name
        assert target.is_file(), f"docs/{name}"
        if anchor:
            assert anchor in _anchors(target), f"docs/{name}#{anchor}"
