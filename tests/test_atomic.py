"""Output folders are written atomically and never replace a folder evalreport did not write."""
import errno
import os

import pytest

from evalreport import _atomic
from evalreport._atomic import MARKER, atomic_dir
from evalreport.errors import OutputError


@pytest.fixture(params=["exchange", "two renames"])
def swap_mode(request, monkeypatch):
    """Run a test with the Linux rename exchange and with the portable two-rename fallback."""
    if request.param == "exchange":
        if _atomic._RENAMEAT2 is None:
            pytest.skip("no renameat2 on this system")
    else:
        monkeypatch.setattr(_atomic, "_RENAMEAT2", None)
    return request.param


def test_a_folder_not_written_by_evalreport_is_never_replaced(tmp_path):
    target = tmp_path / "thesis"
    target.mkdir()
    (target / "thesis.tex").write_text("precious")
    with pytest.raises(OutputError, match="not written by evalreport"):
        with atomic_dir(target) as tmp:
            (tmp / "x.csv").write_text("1")
    assert (target / "thesis.tex").read_text() == "precious"
    assert [p.name for p in tmp_path.iterdir()] == ["thesis"]


def test_previous_output_is_replaced_and_a_failure_keeps_it(tmp_path, swap_mode):
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


def test_the_swap_is_one_exchange_on_linux(tmp_path, monkeypatch):
    """No rename of the target at all: the exchange puts the new output in place in one step."""
    if _atomic._RENAMEAT2 is None:
        pytest.skip("no renameat2 on this system")
    target = tmp_path / "out"
    with atomic_dir(target) as tmp:
        (tmp / "a.txt").write_text("first")

    def forbidden(*args):
        raise AssertionError("the target was renamed away")

    monkeypatch.setattr(os, "replace", forbidden)
    monkeypatch.setattr(os, "rename", forbidden)
    with atomic_dir(target) as tmp:
        (tmp / "a.txt").write_text("second")
    assert (target / "a.txt").read_text() == "second"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_a_file_system_without_exchange_falls_back_to_two_renames(tmp_path, monkeypatch):
    target = tmp_path / "out"
    with atomic_dir(target) as tmp:
        (tmp / "a.txt").write_text("first")
    calls = []

    def refuse(*args):
        calls.append(args)
        import ctypes
        ctypes.set_errno(errno.EINVAL)
        return -1

    monkeypatch.setattr(_atomic, "_RENAMEAT2", refuse)
    monkeypatch.setattr(_atomic, "_exchange_unsupported", set())
    with atomic_dir(target) as tmp:
        (tmp / "a.txt").write_text("second")
    with atomic_dir(target) as tmp:
        (tmp / "a.txt").write_text("third")
    assert (target / "a.txt").read_text() == "third"
    assert len(calls) == 1                         # remembered per file system
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_a_failed_final_rename_puts_the_previous_output_back(tmp_path, monkeypatch):
    monkeypatch.setattr(_atomic, "_RENAMEAT2", None)
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


def test_an_empty_existing_folder_may_be_used(tmp_path, swap_mode):
    target = tmp_path / "empty"
    target.mkdir()
    with atomic_dir(target) as tmp:
        (tmp / "a.txt").write_text("x")
    assert (target / "a.txt").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["empty"]


def test_a_dot_target_is_its_folder_and_the_current_folder_is_refused(tmp_path, monkeypatch):
    target = tmp_path / "out"
    with atomic_dir(target) as tmp:
        (tmp / "a.txt").write_text("first")
    monkeypatch.chdir(target)
    with pytest.raises(OutputError, match="is the current folder.*cd \\.\\."):
        with atomic_dir(".") as tmp:
            (tmp / "a.txt").write_text("second")
    assert (target / "a.txt").read_text() == "first"
    monkeypatch.chdir(tmp_path)
    with atomic_dir("out/../out") as tmp:
        (tmp / "a.txt").write_text("second")
    assert (target / "a.txt").read_text() == "second"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_stale_staging_folders_of_dead_processes_are_removed(tmp_path):
    target = tmp_path / "out"
    with atomic_dir(target) as tmp:
        (tmp / "a.txt").write_text("first")
    dead = 2 ** 22 + 12345                         # above pid_max: no such process
    for name in (f".out.{dead}-abcdefgh.tmp", f".out.{dead}-abcdefgi.old"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "big.bin").write_bytes(b"x" * 1000)
    alive = tmp_path / f".out.{os.getppid()}-abcdefgj.tmp"     # a running process's staging folder
    alive.mkdir()
    other = tmp_path / f".other.{dead}-abcdefgh.tmp"           # another target's: not ours to judge
    other.mkdir()
    with atomic_dir(target) as tmp:
        (tmp / "a.txt").write_text("second")
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["out", alive.name, other.name])


def test_a_previous_output_left_parked_by_a_killed_run_is_put_back(tmp_path):
    target = tmp_path / "out"
    with atomic_dir(target) as tmp:
        (tmp / "a.txt").write_text("first")
    parked = tmp_path / f".out.{2 ** 22 + 1}-abcdefgh.old"
    parked.mkdir()
    os.rename(target, parked / "previous")        # what a kill between the two renames leaves
    with pytest.raises(RuntimeError):
        with pytest.warns(RuntimeWarning, match="put back the previous output"):
            with atomic_dir(target) as tmp:
                assert (target / "a.txt").read_text() == "first"     # back before any work is done
                raise RuntimeError("this run fails too")
    assert (target / "a.txt").read_text() == "first"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_the_lock_file_is_removed_and_excludes_a_second_holder(tmp_path):
    import fcntl
    import threading

    target = tmp_path / "out"
    order = []
    with _atomic._locked(target):
        lock = tmp_path / ".out.lock"
        assert lock.exists()
        fd = os.open(lock, os.O_RDWR)
        with pytest.raises(BlockingIOError):
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        os.close(fd)

        def second():
            with _atomic._locked(target):
                order.append("second")

        thread = threading.Thread(target=second)
        thread.start()
        thread.join(0.2)
        order.append("first")
    thread.join(5)
    assert order == ["first", "second"]
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("name", ["x" * 250, "ünïcödé out"])
def test_long_and_unicode_names(tmp_path, name):
    target = tmp_path / name
    for text in ("first", "second"):
        with atomic_dir(target) as tmp:
            (tmp / "a.txt").write_text(text)
    assert (target / "a.txt").read_text() == "second"
    assert [p.name for p in tmp_path.iterdir()] == [name]


# ----------------------------------------------------------------------------- errors: one line, nothing written


def _one_line(exc):
    text = str(exc.value)
    assert "\n" not in text and "Traceback" not in text
    return text


def test_below_a_file(tmp_path):
    (tmp_path / "notes.txt").write_text("x")
    for target in (tmp_path / "notes.txt" / "out", tmp_path / "notes.txt" / "a" / "b"):
        with pytest.raises(OutputError) as exc:
            with atomic_dir(target):
                pass
        assert "notes.txt is a file" in _one_line(exc)
    assert [p.name for p in tmp_path.iterdir()] == ["notes.txt"]


@pytest.mark.parametrize("code", [errno.EROFS, errno.EACCES])
def test_read_only_folder(tmp_path, monkeypatch, code):
    def refuse(*args, **kwargs):
        raise OSError(code, os.strerror(code), str(tmp_path))

    monkeypatch.setattr(_atomic.tempfile, "mkdtemp", refuse)
    monkeypatch.setattr(_atomic.os, "open", refuse)          # the lock file
    with pytest.raises(OutputError) as exc:
        with atomic_dir(tmp_path / "out"):
            raise AssertionError("no work may start")
    assert os.strerror(code) in _one_line(exc)


def test_mount_point(tmp_path, monkeypatch):
    target = tmp_path / "mnt"
    target.mkdir()
    monkeypatch.setattr(_atomic.os.path, "ismount", lambda p: str(p) == str(target))
    with pytest.raises(OutputError) as exc:
        with atomic_dir(target):
            raise AssertionError("no work may start")
    assert "mount point" in _one_line(exc)


def test_busy_at_the_swap(tmp_path, monkeypatch, swap_mode):
    target = tmp_path / "out"
    with atomic_dir(target) as tmp:
        (tmp / "a.txt").write_text("first")

    def busy(*args, **kwargs):
        raise OSError(errno.EBUSY, os.strerror(errno.EBUSY), str(target))

    monkeypatch.setattr(_atomic, "_swap", busy)
    with pytest.raises(OutputError) as exc:
        with atomic_dir(target) as tmp:
            (tmp / "a.txt").write_text("second")
    assert "busy" in _one_line(exc)
    assert (target / "a.txt").read_text() == "first"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


@pytest.mark.parametrize("code", [errno.ENOSPC, errno.EDQUOT])
def test_disk_full_while_writing(tmp_path, code):
    target = tmp_path / "out"
    with atomic_dir(target) as tmp:
        (tmp / "a.txt").write_text("first")
    with pytest.raises(OutputError) as exc:
        with atomic_dir(target) as tmp:
            (tmp / "tables").mkdir()
            raise OSError(code, os.strerror(code), str(tmp / "tables" / "scores.csv"))
    text = _one_line(exc)
    assert os.strerror(code) in text and "tables/scores.csv" in text and "previous output is unchanged" in text
    assert (target / "a.txt").read_text() == "first"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_other_os_errors_of_the_work_are_not_disguised(tmp_path):
    """An error reading an input inside the block stays what it is (the CLI prints it on one line)."""
    with pytest.raises(FileNotFoundError):
        with atomic_dir(tmp_path / "out"):
            open(tmp_path / "missing-input.tsv")
    assert list(tmp_path.iterdir()) == []


def test_a_symlinked_output_folder_is_replaced_behind_its_link(tmp_path):
    """The link stays a link and the folder it points to gets the new output."""
    real = tmp_path / "real"
    with atomic_dir(real) as staging:
        (staging / "a.txt").write_text("old", encoding="utf-8")
    link = tmp_path / "link"
    link.symlink_to(real, target_is_directory=True)
    with atomic_dir(link) as staging:
        (staging / "a.txt").write_text("new", encoding="utf-8")
    assert link.is_symlink() and (real / "a.txt").read_text(encoding="utf-8") == "new"
    assert (link / "a.txt").read_text(encoding="utf-8") == "new"
