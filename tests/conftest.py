"""Shared fixtures and helpers: random confusion matrices, label arrays from counts, the published
data sets, runs made in memory (:func:`make_runs`, :func:`random_runs`, :func:`correlated_runs`) and
gold and run files written for the readers and the CLI (:func:`write_rows`, :func:`write_labels`,
:func:`write_run_files`, :func:`write_runs`). Test files import them with ``from conftest import ...``."""
from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pytest

from evalreport.errors import InputError

if TYPE_CHECKING:
    from evalreport.inputs import Runs
    from evalreport.inputs.multilabel import MultiLabelRuns

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


# ----------------------------------------------------------------------------- runs made in memory

def _class_names(K: int) -> tuple[str, ...]:
    """Default class names: ``a, b, c, ...``, or ``c0, c1, ...`` beyond 26 classes."""
    return tuple("abcdefghijklmnopqrstuvwxyz"[:K]) if K <= 26 else tuple(f"c{k}" for k in range(K))


def item_ids(n: int) -> np.ndarray:
    """Item ids ``i0, i1, ...``: the ids of the in-memory runs and of the files written below.

    Parameters
    ----------
    n : int
        Number of items.

    Returns
    -------
    np.ndarray
        ``(n,)`` object array of strings.
    """
    return np.asarray([f"i{k}" for k in range(n)], dtype=object)


def make_runs(gold: Sequence, preds: Mapping[str, Sequence] | Sequence[Sequence], labels: Sequence[str] | None = None,
              systems: Sequence[str] | None = None, **fields: Any) -> Runs:
    """A :class:`~evalreport.inputs.Runs` from gold labels and each system's predictions.

    Parameters
    ----------
    gold : sequence
        ``(N,)`` class codes, or class names (encoded by their position in ``labels``).
    preds : mapping or sequence
        One ``(N,)`` sequence per system, codes or names like ``gold``; a mapping names the systems.
    labels : sequence of str, optional
        The class names; default: the sorted names used (names given) or ``a, b, c, ...`` (codes given).
    systems : sequence of str, optional
        The system names; default: the mapping's keys, or ``s0, s1, ...``.
    **fields
        Further fields of ``Runs`` (``folds``, ``fold_names``, ``ids``, ``scores``, ``n_task``, ...).

    Returns
    -------
    Runs
    """
    from evalreport.inputs import Runs

    if isinstance(preds, Mapping):
        systems = tuple(preds) if systems is None else systems
        preds = list(preds.values())
    gold = np.asarray(gold)
    pred = np.stack([np.asarray(p) for p in preds]) if len(preds) else np.empty((0, len(gold)), dtype=int)
    if gold.dtype.kind in "US" or pred.dtype.kind in "US":
        labels = tuple(sorted(set(gold.tolist()) | set(pred.ravel().tolist()))) if labels is None else tuple(labels)
        code = {name: k for k, name in enumerate(labels)}
        gold = np.asarray([code[g] for g in gold.tolist()], dtype=np.int64)
        pred = np.asarray([[code[p] for p in row] for row in pred.tolist()], dtype=np.int64).reshape(pred.shape)
    elif labels is None:
        labels = _class_names(int(max(gold.max(initial=0), pred.max(initial=0))) + 1)
    systems = tuple(f"s{i}" for i in range(len(pred))) if systems is None else tuple(systems)
    return Runs(gold=gold, pred=pred, labels=tuple(labels), systems=systems, **fields)


def _fold_fields(rng: np.random.Generator, n_items: int, folds: int | None,
                 fold_names: Sequence[str] | None) -> dict[str, Any]:
    """``folds`` drawn uniformly (after the labels: the draws before it do not move) and their names."""
    if not folds:
        return {}
    names = tuple(f"f{i}" for i in range(folds)) if fold_names is None else tuple(fold_names)
    return {"folds": rng.integers(0, folds, n_items), "fold_names": names}


def random_runs(rng: np.random.Generator | int, n_items: int = 600, n_systems: int = 4, n_classes: int = 3, *,
                accuracy: float = 0.7, folds: int | None = None, fold_names: Sequence[str] | None = None,
                labels: Sequence[str] | None = None, systems: Sequence[str] | None = None,
                dtype: type | None = None) -> Runs:
    """Uniform gold labels and systems right on each item with probability ``accuracy`` (else a
    uniform label, which may be right too), independently of each other.

    Parameters
    ----------
    rng : np.random.Generator or int
        The generator, or a seed for one. Draws: gold, then which predictions keep gold, then the
        other predictions, then the folds.
    n_items, n_systems, n_classes : int
        N, S and K.
    accuracy : float
        Probability that a prediction copies gold.
    folds : int, optional
        Number of folds drawn uniformly per item; ``None``: no folds.
    fold_names : sequence of str, optional
        The folds' names; default ``f0, f1, ...``.
    labels, systems : sequence of str, optional
        Class and system names; default ``a, b, c, ...`` (:func:`_class_names`) and ``s0, s1, ...``.
    dtype : type, optional
        Integer type of the codes (e.g. ``np.int8``); default NumPy's.

    Returns
    -------
    Runs
    """
    from evalreport.inputs import Runs

    rng = np.random.default_rng(rng) if isinstance(rng, int) else rng
    gold = rng.integers(0, n_classes, n_items)
    pred = np.where(rng.random((n_systems, n_items)) < accuracy, gold, rng.integers(0, n_classes, (n_systems, n_items)))
    kw = _fold_fields(rng, n_items, folds, fold_names)
    if dtype is not None:
        gold, pred = gold.astype(dtype), pred.astype(dtype)
    return Runs(gold=gold, pred=pred, labels=tuple(labels or _class_names(n_classes)),
                systems=tuple(systems or [f"s{i}" for i in range(n_systems)]), **kw)


def correlated_runs(rng: np.random.Generator | int, n_items: int = 600, n_systems: int | None = None,
                    n_classes: int = 3, *, accuracy: Sequence[float] | None = None, shared: float = 0.5,
                    folds: int | None = None, systems: Sequence[str] | None = None) -> Runs:
    """Systems of given accuracies whose errors share an item difficulty: an item hard for one
    system is hard for the others, as in real shared tasks. A wrong prediction is never gold.

    Parameters
    ----------
    rng : np.random.Generator or int
        The generator, or a seed for one.
    n_items : int
        N.
    n_systems : int, optional
        S; default ``len(accuracy)``, or 4.
    n_classes : int
        K.
    accuracy : sequence of float, optional
        Each system's expected accuracy; default evenly from 0.9 down to 0.6.
    shared : float
        Weight of the shared item difficulty against each system's own noise (0: independent errors).
    folds : int, optional
        Number of folds (named ``f0, f1, ...``) drawn uniformly per item.
    systems : sequence of str, optional
        System names; default ``s0, s1, ...``.

    Returns
    -------
    Runs
    """
    from evalreport.inputs import Runs

    rng = np.random.default_rng(rng) if isinstance(rng, int) else rng
    if accuracy is None:
        accuracy = np.linspace(0.9, 0.6, 4 if n_systems is None else n_systems)
    acc = np.asarray(accuracy, dtype=float)
    S = len(acc)
    assert n_systems in (None, S), f"{n_systems} systems but {S} accuracies"
    gold = rng.integers(0, n_classes, n_items)
    hard = rng.random(n_items)
    right = (1 - shared) * rng.random((S, n_items)) + shared * hard[None, :] < acc[:, None]
    wrong = (gold[None, :] + rng.integers(1, n_classes, (S, n_items))) % n_classes
    pred = np.where(right, gold[None, :], wrong)
    kw = _fold_fields(rng, n_items, folds, None)
    return Runs(gold=gold, pred=pred, labels=_class_names(n_classes),
                systems=tuple(systems or [f"s{i}" for i in range(S)]), **kw)


def multilabel_runs(gold: Any, pred: Any, labels: Sequence[str], systems: Sequence[str]) -> MultiLabelRuns:
    """A :class:`~evalreport.inputs.multilabel.MultiLabelRuns` made in memory (item ids i0, i1, ...)."""
    from evalreport.inputs.multilabel import MultiLabelRuns

    gold = np.asarray(gold, dtype=bool)
    return MultiLabelRuns(gold=gold, pred=np.asarray(pred, dtype=bool), labels=tuple(labels), systems=tuple(systems),
                          ids=item_ids(gold.shape[0]))


# ----------------------------------------------------------------------------- files


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


def write_rows(path: Path, rows: Iterable[Sequence], header: Sequence[str] | None = ("id", "label"),
               sep: str = "\t") -> Path:
    """A delimited text file: the header, then one line per row (every line ends in a newline).

    Parameters
    ----------
    path : Path
        The file written (UTF-8, no newline translation).
    rows : iterable of sequences
        The rows; values are written with ``str``.
    header : sequence of str or None
        The first line; ``None``: no header.
    sep : str
        The delimiter.

    Returns
    -------
    Path
        ``path``.
    """
    lines = ([sep.join(header)] if header is not None else []) + [sep.join(str(v) for v in row) for row in rows]
    return write(path, "\n".join(lines) + "\n")


def write_labels(path: Path, labels: Iterable, ids: Iterable | None = None, *,
                 header: Sequence[str] = ("id", "label"), sep: str = "\t") -> Path:
    """A gold or run file: one ``id<TAB>label`` line per item.

    Parameters
    ----------
    path : Path
        The file written.
    labels : iterable
        The items' labels in order.
    ids : iterable, optional
        The items' ids; default ``i0, i1, ...``.
    header, sep
        As in :func:`write_rows`.

    Returns
    -------
    Path
        ``path``.
    """
    labels = list(labels)
    ids = item_ids(len(labels)) if ids is None else list(ids)
    return write_rows(path, zip(ids, labels, strict=True), header=header, sep=sep)


def write_run_files(folder: Path, gold: Iterable, preds: Mapping[str, Iterable], *, ids: Iterable | None = None,
                    fmt: str = "tsv", header: Sequence[str] = ("id", "label"),
                    runs_dir: str | None = None) -> tuple[Path, list[Path]]:
    """``gold.<fmt>`` and one ``<system>.<fmt>`` per system in ``folder`` (made if missing).

    Parameters
    ----------
    folder : Path
        Where the files go.
    gold : iterable
        The gold labels.
    preds : mapping
        System name -> its predicted labels; the name is the run file's stem.
    ids : iterable, optional
        The items' ids, the same in every file; default ``i0, i1, ...``.
    fmt : {"tsv", "csv"}
        Tab- or comma-separated.
    header : sequence of str
        The first line of every file.
    runs_dir : str, optional
        A subfolder of ``folder`` for the run files (``"runs"``); default: beside the gold file.

    Returns
    -------
    tuple[Path, list[Path]]
        The gold file and the run files, in the order of ``preds``.
    """
    sep = {"tsv": "\t", "csv": ","}[fmt]
    ids = None if ids is None else list(ids)
    runs_folder = folder / runs_dir if runs_dir else folder
    runs_folder.mkdir(parents=True, exist_ok=True)
    gold_path = write_labels(folder / f"gold.{fmt}", gold, ids, header=header, sep=sep)
    paths = [write_labels(runs_folder / f"{name}.{fmt}", labels, ids, header=header, sep=sep)
             for name, labels in preds.items()]
    return gold_path, paths


def write_runs(folder: Path, runs: Runs, **kw: Any) -> tuple[Path, list[Path]]:
    """The files a :class:`~evalreport.inputs.Runs` could have been read from: class names, not
    codes, and one run file per system (:func:`write_run_files`; ``kw`` goes to it).

    Parameters
    ----------
    folder : Path
        Where the files go.
    runs : Runs
        The gold labels and predictions written.
    **kw
        ``ids``, ``fmt``, ``header``, ``runs_dir`` of :func:`write_run_files`.

    Returns
    -------
    tuple[Path, list[Path]]
        The gold file and the run files, in the order of ``runs.systems``.
    """
    names = np.asarray(runs.labels, dtype=object)
    return write_run_files(folder, names[runs.gold], {s: names[p] for s, p in zip(runs.systems, runs.pred)}, **kw)
