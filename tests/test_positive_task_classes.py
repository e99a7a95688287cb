"""A bad ``--positive`` is one line that lists the task's classes only, with the case hint, at every entry
point: ``cv``, ``plan``, ``benchmark`` and ``codabench`` as ``score`` and ``compare`` do. A class that
occurs only in predictions (an unknown label admitted by ``--allow-unknown``, ``<abstain>``) is no class
of the task and is never offered as the positive class (``resolve_positive(..., n_task=...)``)."""
from __future__ import annotations

from pathlib import Path

import pytest

from evalreport.cli import main

N = 40
IDS = [f"x{i}" for i in range(N)]
GOLD = ["Yes" if i % 3 else "No" for i in range(N)]
EXPECTED = ("positive class 'yes' is not one of the classes: 'No', 'Yes' (it differs from class 'Yes' only in "
            "upper and lower case")


def _run(path: Path, flip: int) -> None:
    """A run that predicts the stray label 'Maybe' for the first item and flips every ``flip``-th."""
    pred = ["Maybe"] + [("No" if g == "Yes" else "Yes") if i % flip == 0 else g for i, g in enumerate(GOLD)][1:]
    path.write_text("id\tlabel\n" + "".join(f"{i}\t{p}\n" for i, p in zip(IDS, pred)))


@pytest.fixture
def task(tmp_path) -> Path:
    """gold.tsv (with folds) and runs/a.tsv, runs/b.tsv, both predicting the stray label 'Maybe'."""
    (tmp_path / "runs").mkdir()
    (tmp_path / "gold.tsv").write_text("id\tlabel\tfold\n" + "".join(
        f"{i}\t{g}\tf{k % 4}\n" for k, (i, g) in enumerate(zip(IDS, GOLD))))
    _run(tmp_path / "runs" / "a.tsv", 4)
    _run(tmp_path / "runs" / "b.tsv", 5)
    return tmp_path


def _one_error(capsys, rc: int, status: int = 2) -> str:
    """The one stderr line of an error (notes aside), after checking the exit status."""
    err = [line for line in capsys.readouterr().err.splitlines() if not line.startswith("evalreport: note")
           and not line.startswith("evalreport: reading")]
    assert rc == status, err
    assert len(err) == 1, err
    assert "'Maybe'" not in err[0] and "<abstain>" not in err[0]
    return err[0]


def test_cv_lists_the_task_classes_only(task, capsys):
    rc = main(["cv", str(task / "gold.tsv"), "--runs-dir", str(task / "runs"), "--allow-unknown", "--positive", "yes"])
    assert EXPECTED in _one_error(capsys, rc)


def test_cv_with_abstain_lists_the_task_classes_only(task, capsys):
    lines = (task / "runs" / "b.tsv").read_text().splitlines()
    (task / "runs" / "b.tsv").write_text("\n".join(lines[:1] + lines[2:]) + "\n")    # x0 missing: <abstain>
    rc = main(["cv", str(task / "gold.tsv"), "--runs-dir", str(task / "runs"), "--allow-unknown",
               "--missing", "abstain", "--positive", "yes"])
    assert EXPECTED in _one_error(capsys, rc)


def test_plan_lists_the_task_classes_only(task, capsys):
    rc = main(["plan", str(task / "gold.tsv"), "--runs-dir", str(task / "runs"), "--allow-unknown", "--positive",
               "yes", "--measure", "f1", "--difference", "0.05", "--no-progress"])
    assert EXPECTED in _one_error(capsys, rc)


def test_benchmark_lists_the_task_classes_only(task, capsys, tmp_path):
    spec = tmp_path / "bench.toml"
    spec.write_text(f'allow_unknown = true\npositive = "yes"\nprimary = "f1"\n\n[tasks.t1]\ngold = "{task / "gold.tsv"}"\n'
                    f'runs = "{task / "runs"}"\n\n[tasks.t2]\ngold = "{task / "gold.tsv"}"\nruns = "{task / "runs"}"\n')
    rc = main(["benchmark", "--benchmark-file", str(spec), "-o", str(tmp_path / "out"), "--bootstrap", "20"])
    line = _one_error(capsys, rc)
    assert "task 't1': " + EXPECTED in line
    assert not (tmp_path / "out").exists()


def test_codabench_lists_the_task_classes_only(task, capsys, tmp_path):
    root = tmp_path / "input"
    (root / "ref").mkdir(parents=True)
    (root / "res").mkdir()
    (root / "ref" / "gold.tsv").write_text((task / "gold.tsv").read_text())
    (root / "res" / "predictions.tsv").write_text((task / "runs" / "a.tsv").read_text())
    rc = main(["codabench", str(root), str(tmp_path / "out"), "--allow-unknown", "--positive", "yes",
               "--measures", "f1"])
    # the organiser's setup is at fault: status 3 (docs/codabench.md, "Exit status: whose fault")
    line = _one_error(capsys, rc, status=3)
    assert EXPECTED in line and "task configuration error" in line
    assert not (tmp_path / "out" / "scores.json").exists()
