"""Faults while writing an output folder.

A real ``evalreport compare ... --out`` process (a fork of this one running ``cli.main``, so no
start-up cost) is killed with SIGKILL at every step of writing and swapping its output, and at
timed instants; the previous output must be intact byte for byte (or the new one complete, once
the swap is made), and the next run must put a parked output back and remove every leftover.
Two writers of one folder, file-system errors (one line, exit 2) and stopping by signal (kernels
ended, staging removed) are tested here too.
"""
from __future__ import annotations

import errno
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest
from conftest import write_run_files

from evalreport import _atomic
from evalreport.cli import main

pytestmark = pytest.mark.skipif(not hasattr(os, "fork") or not sys.platform.startswith("linux"),
                                reason="fork and /proc (Linux)")

GOLD = list("aabbccabcaab")
PREDS = {"strong": list("aabbccabcaaa"), "weak": list("abbacbabcbab"), "twin": list("aabbccabcaba")}


@pytest.fixture(scope="module", autouse=True)
def fixed_time():
    """The outputs record when they were made, to the minute: the time is fixed, so outputs written
    in different minutes (a slow machine, a run across a minute's end) still compare byte for byte."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("SOURCE_DATE_EPOCH", "1700000000")
        yield


@pytest.fixture(scope="module")
def command(tmp_path_factory):
    """``command(seed, out)``: the arguments of ``evalreport compare`` on three tiny runs."""
    inp = tmp_path_factory.mktemp("inputs")
    gold, runs = write_run_files(inp, GOLD, PREDS)

    def args(seed, out):
        return ["compare", str(gold), *map(str, runs), "--bootstrap", "20", "--seed", str(seed), "--out", str(out),
                "--format", "csv", "--no-progress"]
    return args


@pytest.fixture
def work(tmp_path, command):
    """(tmp, args): outputs go under tmp/res."""
    (tmp_path / "res").mkdir()
    return tmp_path, command


def snapshot(folder: Path) -> dict:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def quiet_main(argv) -> int:
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    return main(argv)


def die():
    os.kill(os.getpid(), signal.SIGKILL)


def fork(fn, *, then=None) -> int:
    """Run ``fn()`` in a forked child (its return value is the exit status); ``then(pid)`` runs in the
    parent meanwhile. Returns the child's wait status."""
    pid = os.fork()
    if pid == 0:                                     # pragma: no cover - the child
        code = 70
        try:
            code = int(fn() or 0)
        except BaseException:
            code = 71
        finally:
            os._exit(code)
    try:
        if then is not None:
            then(pid)
    finally:
        _, status = os.waitpid(pid, 0)
    return status


def previous(references, target):
    """Make ``target`` the previous output (seed 1), as ``compare --out`` wrote it."""
    import shutil

    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(references["dir1"], target)


def killed(status) -> bool:
    return os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL


@pytest.fixture(scope="module")
def references(command, tmp_path_factory):
    """The outputs of seed 1 (the previous output) and seed 2 (what the killed run writes)."""
    tmp, args = tmp_path_factory.mktemp("references"), command
    refs = {}
    for seed in (1, 2):
        out = tmp / f"ref{seed}"
        assert main(args(seed, out)) == 0
        refs[seed] = snapshot(out)
        refs[f"dir{seed}"] = out
    assert main(args(2, tmp / "ref2b")) == 0
    assert snapshot(tmp / "ref2b") == refs[2], "compare --out must be deterministic for these tests"
    assert refs[1] != refs[2]
    return refs


# ----------------------------------------------------------------------------- kill -9 at every step


def _hook(step, target):
    """In the child: make the process SIGKILL itself at ``step``."""
    real_mkdtemp, real_to_csv = _atomic.tempfile.mkdtemp, pd.DataFrame.to_csv
    real_exchange, real_replace = _atomic._exchange, os.replace
    count = [0]
    if step == "staging made":
        def mkdtemp(*a, **k):
            path = real_mkdtemp(*a, **k)
            if path.endswith(".tmp"):
                die()
            return path
        _atomic.tempfile.mkdtemp = mkdtemp
    elif step == "tables half written":
        def to_csv(self, *a, **k):
            count[0] += 1
            if count[0] == 6:
                die()
            return real_to_csv(self, *a, **k)
        pd.DataFrame.to_csv = to_csv
    elif step == "marker written":
        _atomic._usual_mode = lambda folder: die()
    elif step == "locked, before the swap":
        _atomic._swap = lambda staging, target: die()
    elif step == "exchanged":
        def exchange(a, b):
            done = real_exchange(a, b)
            assert done
            die()
        _atomic._exchange = exchange
    elif step in ("deleting the previous output", "deleting the parked output"):
        def remove(path):
            files = [p for p in path.rglob("*") if p.is_file()]
            assert len(files) > 3
            for p in files[:3]:
                p.unlink()
            die()
        _atomic._remove = remove
    elif step in ("parked", "renamed"):
        def replace(src, dst):
            real_replace(src, dst)
            if (step == "parked" and Path(dst).name == "previous") or (step == "renamed" and Path(dst) == target):
                die()
        os.replace = replace
    else:
        raise AssertionError(step)


EXCHANGE_STEPS = ["staging made", "tables half written", "marker written", "locked, before the swap", "exchanged",
                  "deleting the previous output"]
FALLBACK_STEPS = ["staging made", "tables half written", "locked, before the swap", "parked", "renamed",
                  "deleting the parked output"]
COMMITTED = {"exchanged", "deleting the previous output", "renamed", "deleting the parked output"}


@pytest.mark.parametrize("mode,step", [("exchange", s) for s in EXCHANGE_STEPS]
                         + [("two renames", s) for s in FALLBACK_STEPS])
def test_kill_at_every_step_keeps_the_previous_output(work, references, mode, step):
    if mode == "exchange" and _atomic._RENAMEAT2 is None:
        pytest.skip("no renameat2 here")
    tmp, args = work
    res = tmp / "res"
    target = res / "out"
    previous(references, target)

    def child():
        if mode == "two renames":
            _atomic._RENAMEAT2 = None
        _hook(step, target)
        return quiet_main(args(2, target))

    assert killed(fork(child))
    left = sorted(p.name for p in res.iterdir())
    if step in COMMITTED:
        assert snapshot(target) == references[2]          # the swap was made: the new output, complete
    elif step == "parked":                                # between the two renames: parked, not lost
        assert "out" not in left
        (parked,) = [p for p in res.iterdir() if p.name.endswith(".old")]
        assert snapshot(parked / "previous") == references[1]
    else:
        assert snapshot(target) == references[1]          # byte for byte
    assert len(left) > 1                                  # the killed run left something behind ...
    # ... which the next run puts back (a failing run too) and removes
    with pytest.raises(RuntimeError):
        with _atomic.atomic_dir(target):
            raise RuntimeError("the next run fails")
    assert snapshot(target) == (references[2] if step in COMMITTED else references[1])
    assert sorted(p.name for p in res.iterdir()) == ["out"]
    assert main(args(2, target)) == 0
    assert snapshot(target) == references[2]
    assert sorted(p.name for p in res.iterdir()) == ["out"]


@pytest.mark.parametrize("mode", ["exchange", "two renames"])
def test_kill_at_timed_instants(work, references, mode):
    """SIGKILL from outside at instants spread over a run: the previous output or the new one,
    complete, never anything else; the next run leaves only the output."""
    if mode == "exchange" and _atomic._RENAMEAT2 is None:
        pytest.skip("no renameat2 here")
    tmp, args = work
    res = tmp / "res"
    target = res / "out"
    previous(references, target)
    started = time.perf_counter()
    assert fork(lambda: quiet_main(args(2, target))) == 0
    full = time.perf_counter() - started
    seen = set()
    for fraction in (0.2, 0.7, 0.9, 0.97):
        previous(references, target)

        def child():
            if mode == "two renames":
                _atomic._RENAMEAT2 = None
            return quiet_main(args(2, target))

        status = fork(child, then=lambda pid, fraction=fraction: (time.sleep(fraction * full), os.kill(pid, signal.SIGKILL)))
        if (target / _atomic.MARKER).exists():
            now = snapshot(target)
            assert now in (references[1], references[2]), fraction
            seen.add(1 if now == references[1] else 2)
        else:                                          # two renames, killed in between: parked
            assert mode == "two renames"
            seen.add("parked")
        with pytest.raises(RuntimeError):              # the next run (failing here) recovers and cleans
            with _atomic.atomic_dir(target):
                raise RuntimeError
        assert sorted(p.name for p in res.iterdir()) == ["out"], (fraction, status)
        assert snapshot(target) in (references[1], references[2])
    assert 1 in seen


def test_kill_of_a_started_evalreport_command(work, references):
    """The console script itself (a fresh interpreter), killed as soon as its staging folder appears."""
    tmp, args = work
    res = tmp / "res"
    target = res / "out"
    previous(references, target)
    exe = Path(sys.executable).with_name("evalreport")
    command = [str(exe)] if exe.exists() else [sys.executable, "-m", "evalreport.cli"]
    proc = subprocess.Popen(command + args(2, target), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.time() + 60
        while time.time() < deadline and proc.poll() is None:
            if any(p.name.endswith(".tmp") for p in res.iterdir()):
                break
            time.sleep(0.005)
        proc.kill()
    finally:
        proc.wait()
    assert snapshot(target) in (references[1], references[2])
    assert main(args(2, target)) == 0
    assert sorted(p.name for p in res.iterdir()) == ["out"]


# ----------------------------------------------------------------------------- two writers of one folder


@pytest.mark.parametrize("mode", ["exchange", "two renames"])
def test_a_second_writer_inside_the_first_ones_swap_window(work, references, mode):
    if mode == "exchange" and _atomic._RENAMEAT2 is None:
        pytest.skip("no renameat2 here")
    tmp, args = work
    res = tmp / "res"
    target = res / "out"
    previous(references, target)
    inside = tmp / "inside"

    def first():
        if mode == "two renames":
            _atomic._RENAMEAT2 = None
            real = os.replace

            def replace(src, dst):              # pause between the two renames: the window
                real(src, dst)
                if Path(dst).name == "previous":
                    inside.touch()
                    time.sleep(0.6)
            os.replace = replace
        else:
            real_swap = _atomic._swap

            def swap(staging, tgt):             # pause inside the locked swap
                inside.touch()
                time.sleep(0.6)
                return real_swap(staging, tgt)
            _atomic._swap = swap
        return quiet_main(args(1, target))

    def second_when_inside(pid):
        deadline = time.time() + 30
        while not inside.exists() and time.time() < deadline:
            time.sleep(0.002)
        assert inside.exists()

        def second():
            if mode == "two renames":
                _atomic._RENAMEAT2 = None
            return quiet_main(args(2, target))
        results.append(fork(second))

    results = []
    status = fork(first, then=second_when_inside)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
    assert os.WIFEXITED(results[0]) and os.WEXITSTATUS(results[0]) == 0
    assert snapshot(target) == references[2]            # the second writer swapped last
    assert sorted(p.name for p in res.iterdir()) == ["out"]


# ----------------------------------------------------------------------------- one line, exit 2


def one_line_error(capsys) -> str:
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if not line.startswith("evalreport: note:")]
    assert len(lines) == 1 and lines[0].startswith("evalreport: error: "), err
    assert "Traceback" not in err
    return lines[0]


def test_out_below_a_file(work, capsys):
    tmp, args = work
    (tmp / "res" / "notes.txt").write_text("x")
    assert main(args(1, tmp / "res" / "notes.txt" / "out")) == 2
    assert "notes.txt is a file" in one_line_error(capsys)
    assert sorted(p.name for p in (tmp / "res").iterdir()) == ["notes.txt"]


@pytest.mark.parametrize("code", [errno.EROFS, errno.EACCES])
def test_out_in_a_read_only_folder(work, capsys, monkeypatch, code):
    tmp, args = work

    def refuse(*a, **k):
        raise OSError(code, os.strerror(code), str(tmp / "res"))

    monkeypatch.setattr(_atomic.tempfile, "mkdtemp", refuse)
    assert main(args(1, tmp / "res" / "out")) == 2
    assert os.strerror(code) in one_line_error(capsys)
    assert list((tmp / "res").iterdir()) == []


def test_out_is_a_mount_point(work, capsys, monkeypatch):
    tmp, args = work
    target = tmp / "res" / "mnt"
    target.mkdir()
    monkeypatch.setattr(_atomic.os.path, "ismount", lambda p: Path(p) == target)
    assert main(args(1, target)) == 2
    assert "mount point" in one_line_error(capsys)


def test_busy_at_the_swap_keeps_the_previous_output(work, references, capsys, monkeypatch):
    tmp, args = work
    target = tmp / "res" / "out"
    previous(references, target)
    capsys.readouterr()

    def busy(a, b):
        raise OSError(errno.EBUSY, os.strerror(errno.EBUSY), str(b))

    monkeypatch.setattr(_atomic, "_exchange", busy)
    assert main(args(2, target)) == 2
    assert "busy" in one_line_error(capsys)
    assert snapshot(target) == references[1]
    assert sorted(p.name for p in (tmp / "res").iterdir()) == ["out"]


def test_out_dot_from_inside_an_earlier_output(work, references, capsys, monkeypatch):
    tmp, args = work
    target = tmp / "res" / "out"
    previous(references, target)
    capsys.readouterr()
    monkeypatch.chdir(target)
    assert main(args(2, ".")) == 2
    assert "current folder" in one_line_error(capsys)
    assert snapshot(target) == references[1]


@pytest.mark.parametrize("code", [errno.ENOSPC, errno.EDQUOT])
def test_disk_full_keeps_the_previous_output(work, references, capsys, monkeypatch, code):
    tmp, args = work
    target = tmp / "res" / "out"
    previous(references, target)
    capsys.readouterr()
    real = pd.DataFrame.to_csv
    calls = []

    def full(self, path=None, *a, **k):
        calls.append(path)
        if len(calls) == 4:
            real(self, path, *a, **k)
            raise OSError(code, os.strerror(code), str(path))
        return real(self, path, *a, **k)

    monkeypatch.setattr(pd.DataFrame, "to_csv", full)
    assert main(args(2, target)) == 2
    line = one_line_error(capsys)
    assert os.strerror(code) in line and "previous output is unchanged" in line
    assert snapshot(target) == references[1]
    assert sorted(p.name for p in (tmp / "res").iterdir()) == ["out"]


def test_an_unforeseen_os_error_is_one_line(work, capsys, monkeypatch):
    tmp, args = work

    def broken(*a, **k):
        raise OSError(errno.EIO, os.strerror(errno.EIO), "/dev/sdz")

    monkeypatch.setattr(pd.DataFrame, "to_csv", broken)
    assert main(args(1, tmp / "res" / "out")) == 2
    assert "/dev/sdz: Input/output error" in one_line_error(capsys)
    assert list((tmp / "res").iterdir()) == []


def test_out_of_memory_is_one_line(work, capsys, monkeypatch):
    tmp, args = work
    from evalreport.analyses import resampling

    def huge(*a, **k):
        raise MemoryError()

    monkeypatch.setattr(resampling, "_resample_values", huge)
    assert main(args(1, tmp / "res" / "out")) == 2
    assert "out of memory" in one_line_error(capsys)
    assert list((tmp / "res").iterdir()) == []


# ----------------------------------------------------------------------------- stopping by signal


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.parametrize("signame", ["SIGTERM", "SIGINT", "SIGHUP"])
def test_a_signal_ends_the_kernels_and_removes_the_staging_folder(tmp_path, signame, monkeypatch):
    """A command that started a (stand-in) notebook kernel and is writing its output is stopped: the
    kernel is ended before the process exits, the staging folder is removed, the previous output is
    kept, and the exit status is 128 + the signal's number."""
    import argparse

    import evalreport.cli as cli

    target = tmp_path / "out"
    with _atomic.atomic_dir(target) as staging:
        (staging / "a.txt").write_text("previous")
    ready = tmp_path / "ready" / "kernel.pid"
    ready.parent.mkdir()

    def command(args):
        kernel = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)", "ipykernel_launcher"],
                                  start_new_session=True)
        with _atomic.atomic_dir(target) as staging:
            (staging / "a.txt").write_text("new")
            ready.write_text(str(kernel.pid))
            time.sleep(30)
        return 0

    def parser(argv=None):
        p = argparse.ArgumentParser()
        sub = p.add_subparsers()
        sub.add_parser("fake").set_defaults(func=command)
        return p

    def child():
        signal.signal(signal.SIGINT, signal.default_int_handler)     # as in a terminal
        signal.signal(signal.SIGHUP, signal.SIG_DFL)     # (a suite run under nohup ignores it; the CLI then does)
        cli.build_parser = parser
        return quiet_main(["fake"])

    kernel = []

    def stop(pid):
        deadline = time.time() + 30
        while not ready.exists() and time.time() < deadline:
            time.sleep(0.005)
        time.sleep(0.05)
        kernel.append(int(ready.read_text()))
        assert _alive(kernel[0])
        os.kill(pid, getattr(signal, signame))

    started = time.time()
    status = fork(child, then=stop)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 128 + getattr(signal, signame)
    assert time.time() - started < 20
    deadline = time.time() + 2                          # the kernel was killed; its zombie is reaped by init
    while _alive(kernel[0]) and time.time() < deadline:
        time.sleep(0.01)
    assert not _alive(kernel[0])
    assert (target / "a.txt").read_text() == "previous"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out", "ready"]
