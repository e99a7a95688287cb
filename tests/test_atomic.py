"""Output folders are written atomically and never replace a folder evalreport did not write."""
import os

import pytest

from evalreport._atomic import MARKER, atomic_dir
from evalreport.errors import OutputError


def test_a_folder_not_written_by_evalreport_is_never_replaced(tmp_path):
    target = tmp_path / "thesis"
    target.mkdir()
    (target / "thesis.tex").write_text("precious")
    with pytest.raises(OutputError, match="not written by evalreport"):
        with atomic_dir(target) as tmp:
            (tmp / "x.csv").write_text("1")
    assert (target / "thesis.tex").read_text() == "precious"
    assert [p.name for p in tmp_path.iterdir()] == ["thesis"]


def test_previous_output_is_replaced_and_a_failure_keeps_it(tmp_path):
    target = tmp_path / "out"
    with atomic_dir(target) as tmp:
        (tmp / "a.txt").write_text("first")
    assert (target / MARKER).exists() and (target / "a.txt").read_text() == "first"
    with pytest.raises(RuntimeError):
        with atomic_dir(target) as tmp:
            (tmp / "a.txt").write_text("second")
            raise RuntimeError("boom")
    assert (target / "a.txt").read_text() == "first"
    with atomic_dir(target) as tmp:
        (tmp / "a.txt").write_text("third")
    assert (target / "a.txt").read_text() == "third"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_a_failed_final_rename_puts_the_previous_output_back(tmp_path, monkeypatch):
    target = tmp_path / "out"
    with atomic_dir(target) as tmp:
        (tmp / "a.txt").write_text("first")
    real = os.replace
    calls = []

    def flaky(src, dst):
        calls.append(dst)
        if len(calls) == 2:          # the second rename: staging -> target
            raise OSError("simulated failure")
        return real(src, dst)

    monkeypatch.setattr(os, "replace", flaky)
    with pytest.raises(OSError):
        with atomic_dir(target) as tmp:
            (tmp / "a.txt").write_text("second")
    monkeypatch.setattr(os, "replace", real)
    assert (target / "a.txt").read_text() == "first"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_an_empty_existing_folder_may_be_used(tmp_path):
    target = tmp_path / "empty"
    target.mkdir()
    with atomic_dir(target) as tmp:
        (tmp / "a.txt").write_text("x")
    assert (target / "a.txt").exists()
