"""Shared fixtures: random confusion matrices, label arrays from counts, the published data sets."""
from __future__ import annotations

import os
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pytest

from evalreport.errors import InputError

# Data published with Gösgens et al. 2021; see its README. Never copied into the repo:
# it lies in shared/data beside the checkout, or where EVALREPORT_GOSGENS_DATA points.
GOSGENS_DIR = Path(os.environ.get("EVALREPORT_GOSGENS_DATA")
                   or Path(__file__).resolve().parents[2] / "shared" / "data" / "gosgens2021")


def make_confusions(rng: np.random.Generator, K: int, S: int, *, high: int = 7, p_zero: float = 0.3,
                    p_empty_row: float = 0.2, p_empty_col: float = 0.2) -> np.ndarray:
    """``(S, K, K)`` int64 confusion matrices with many zero cells and some empty gold rows and/or
    predicted columns; every matrix has n >= 1."""
    C = rng.integers(0, high, size=(S, K, K))
    C = np.where(rng.random((S, K, K)) < p_zero, 0, C)
    C = np.where((rng.random((S, K)) < p_empty_row)[:, :, None], 0, C)
    C = np.where((rng.random((S, K)) < p_empty_col)[:, None, :], 0, C)
    empty = C.sum(axis=(1, 2)) == 0
    C[empty, K - 1, 0] = 1 + rng.integers(0, high, size=int(empty.sum()))
    return C.astype(np.int64)


def labels_from_confusion(C) -> tuple[np.ndarray, np.ndarray]:
    """Gold and predicted code arrays whose confusion matrix (rows = gold) is ``C``."""
    C = np.asarray(C, dtype=np.int64)
    K = C.shape[-1]
    cell = np.repeat(np.arange(K * K), C.ravel())
    return cell // K, cell % K


@pytest.fixture
def clean_registry():
    """The test starts and ends with the built-in registry: plugins it loads must not leak into other tests
    (a leaked plugin measure breaks every test that walks the catalogue)."""
    import sys

    from evalreport.measures import _core, plugins

    saved = (dict(_core.REGISTRY), dict(_core.ALIASES), dict(plugins.ORIGINS), dict(plugins.LOADED),
             dict(plugins._ENTRY_POINTS), dict(plugins._DISTRIBUTIONS), set(sys.modules))
    yield
    for target, old in zip((_core.REGISTRY, _core.ALIASES, plugins.ORIGINS, plugins.LOADED, plugins._ENTRY_POINTS,
                            plugins._DISTRIBUTIONS), saved):
        target.clear()
        target.update(old)
    for name in set(sys.modules) - saved[-1]:
        if name.startswith(("evalreport_plugin_", "evr_plugin_")):
            del sys.modules[name]


@pytest.fixture
def rng():
    return np.random.default_rng(20240611)


@pytest.fixture(scope="session")
def gosgens_dir():
    """Directory of the Gösgens et al. data; skips the test when it is absent."""
    if not GOSGENS_DIR.is_dir():
        pytest.skip(f"Gösgens et al. 2021 data not found at {GOSGENS_DIR} (set EVALREPORT_GOSGENS_DATA to its "
                    "folder; the tests of its Tables 5 and 6 need it)")
    return GOSGENS_DIR


def multilabel_runs(gold, pred, labels, systems):
    """A :class:`~evalreport.inputs.multilabel.MultiLabelRuns` made in memory (item ids i0, i1, ...)."""
    from evalreport.inputs.multilabel import MultiLabelRuns

    gold = np.asarray(gold, dtype=bool)
    return MultiLabelRuns(gold=gold, pred=np.asarray(pred, dtype=bool), labels=tuple(labels), systems=tuple(systems),
                          ids=np.asarray([f"i{k}" for k in range(gold.shape[0])], dtype=object))


def write(path: Path, text: str | bytes) -> Path:
    """Write a file exactly as given (text is encoded as UTF-8, no newline translation)."""
    data = text.encode("utf-8") if isinstance(text, str) else text
    path.write_bytes(data)
    return path


@contextmanager
def raises(match: str, **where):
    """Assert an InputError whose problem contains ``match`` and whose path/line/item equal the
    given values (and appear in the message)."""
    with pytest.raises(InputError) as info:
        yield info
    err = info.value
    assert match in err.problem, f"{match!r} not in {err.problem!r}"
    for key, value in where.items():
        expect = str(value) if key == "path" else value
        assert getattr(err, key) == expect, f"{key}: expected {expect!r}, got {getattr(err, key)!r} ({err})"
    if "path" in where:
        assert str(where["path"]) in str(err)
    if where.get("line") is not None:
        assert f"line {where['line']}" in str(err)
    if where.get("item") is not None:
        assert repr(where["item"]) in str(err)
    assert "\n" not in str(err)                 # one line
