"""Count inputs that do not fit in memory where they lie: SQL on DuckDB (default) or Spark.

The in-memory reader (:func:`evalreport.inputs.read_runs`) loads every label into an array of
codes. For prediction tables larger than memory - say 1e9 rows of Parquet - this module asks a
query engine for the *sufficient statistics* instead, and everything after counting works on
them alone:

* :func:`count_confusions` - ``GROUP BY (system, fold, gold, predicted) COUNT(*)`` after joining
  the predictions to the gold labels on the item id: the confusion tensors as
  :class:`evalreport.counts.Counts`, exactly those of ``count(read_runs(...))``.
* :func:`count_patterns` - ``GROUP BY (fold, gold, prediction of system 1, ..., system S)``:
  the distinct joint patterns of an item with their counts (:class:`PatternCounts`), the
  sufficient statistics of a *paired* resampling of items (see
  :mod:`evalreport.analyses.resampling`, which works on the same patterns).

Inputs
------
``gold``: a table with columns ``id``, ``label`` and optionally ``fold``. ``runs``: a *long*
table, one row per (system, item), with columns ``system``, ``id``, ``label`` (the predicted
label). Either may be one file, a list of files, or a glob (``parts/*.parquet``); the format
comes from the extension: ``.parquet``/``.pq``, ``.csv``, ``.tsv``/``.tab`` (optionally
compressed, e.g. ``.csv.gz``). Text files need a header line; every text column is read as
text, like the in-memory reader.

Engines
-------
``engine="duckdb"`` (embedded, the default) reads Parquet and CSV directly and runs joins and
aggregations out of core: it keeps within ``memory_limit`` and spills to ``temp_directory``.
``engine="spark"`` runs the same queries on Apache Spark (pyspark): a local session
(``local[2]``) unless an existing ``spark`` session - e.g. on a cluster - is passed.

Validation
----------
The same checks as the in-memory reader, done with SQL aggregates over the data rather than by
loading rows; an :class:`~evalreport.errors.InputError` says how many rows are affected and
names an example: duplicate or empty gold ids, empty labels, run ids not in the gold table,
the same (system, id) twice, gold ids a system has no prediction for (unless
``missing="abstain"``), and predicted labels outside the class set (unless
``allow_unknown=True``). Labels are compared as text, trimmed, with integral floats written
without ``.0`` (as the in-memory reader does); the normalisation runs on the *distinct* values
only. Ids are joined as stored; when the gold and run id columns have different types both
are compared as text.
"""
from __future__ import annotations

import glob as _glob
import math
import os
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np

from evalreport.counts import Counts
from evalreport.errors import InputError
from evalreport.inputs.readers import ABSTAIN, MISSING_LABELS, announce_prediction_only, natural_sorted
from evalreport.inputs.runs import Runs, code_dtype

__all__ = ["count_confusions", "count_patterns", "PatternCounts", "ENGINES"]

#: Query engines: ``duckdb`` (embedded, out of core; the default) and ``spark`` (pyspark).
ENGINES = ("duckdb", "spark")

_FORMATS = {".parquet": "parquet", ".pq": "parquet", ".csv": "csv", ".tsv": "tsv", ".tab": "tsv"}
_COMPRESSED = (".gz", ".zst", ".gzip")
_MAX_LISTED = 10


# ----------------------------------------------------------------------------- result type


@dataclass(frozen=True, eq=False)
class PatternCounts:
    """The distinct joint patterns of the items, with counts.

    ``patterns`` (P, 1 + S) integer codes into ``labels``: column 0 the gold class, column
    1 + s the prediction of ``systems[s]``. ``counts`` (P,) int64 items per pattern (they sum
    to the number of gold items). ``folds`` (P,) fold codes into ``fold_names``, or ``None``.
    Rows are sorted lexicographically by (fold, gold, predictions), so the result does not
    depend on the engine or on the row order of the files.
    """

    patterns: np.ndarray
    counts: np.ndarray
    labels: tuple[str, ...]
    systems: tuple[str, ...]
    folds: np.ndarray | None = None
    fold_names: tuple[str, ...] = ()
    abstain: int | None = None
    n_task: int | None = None          # as Runs.n_task

    @property
    def gold(self) -> np.ndarray:
        """(P,) gold class of each pattern."""
        return self.patterns[:, 0]

    @property
    def pred(self) -> np.ndarray:
        """(S, P) prediction of each system in each pattern."""
        return self.patterns[:, 1:].T

    @property
    def scores(self) -> None:
        """Always ``None``: patterns hold labels, not scores (as :attr:`Runs.scores` without scores)."""
        return None

    @property
    def n_items(self) -> int:
        return int(self.counts.sum())

    @property
    def n_patterns(self) -> int:
        return int(self.counts.shape[0])

    def confusion(self, *, per_fold: bool = False) -> Counts:
        """Confusion tensors (the same as :func:`count_confusions`), from the patterns alone."""
        if per_fold and self.folds is None:
            raise ValueError("these patterns have no folds")
        S, K = len(self.systems), len(self.labels)
        F = len(self.fold_names) if per_fold else 1
        fold = self.folds.astype(np.int64) if per_fold else np.zeros(self.n_patterns, dtype=np.int64)
        cell = (fold * K + self.gold.astype(np.int64)) * K                     # (P,)
        flat = (np.arange(S, dtype=np.int64)[:, None] * (F * K * K) + cell[None, :]
                + self.pred.astype(np.int64)).ravel()
        weights = np.broadcast_to(self.counts, (S, self.n_patterns)).ravel()
        tensor = np.bincount(flat, weights=weights, minlength=S * F * K * K).round().astype(np.int64)
        tensor = tensor.reshape((S, F, K, K) if per_fold else (S, K, K))
        return Counts(tensor, self.labels, self.systems, self.fold_names if per_fold else (), self.n_task)

    def to_runs(self) -> Runs:
        """Expand to item level: pattern p repeated ``counts[p]`` times (memory N x (S + 1) codes).

        Item order and ids are synthetic (the ids are not kept by the GROUP BY); every
        item-level analysis that depends only on the joint distribution of (fold, gold,
        predictions) - the paired bootstrap, randomisation tests - gives the same answer as on
        the original items.
        """
        dtype = code_dtype(len(self.labels))
        rows = np.repeat(self.patterns.astype(dtype), self.counts, axis=0)
        folds = None if self.folds is None else np.repeat(self.folds, self.counts)
        return Runs(gold=rows[:, 0], pred=np.ascontiguousarray(rows[:, 1:].T), labels=self.labels,
                    systems=self.systems, folds=folds, fold_names=self.fold_names if folds is not None else (),
                    abstain=self.abstain, n_task=self.n_task)


# ----------------------------------------------------------------------------- public API


def count_confusions(gold, runs, *, engine: str = "duckdb", labels: Sequence[str] | None = None,
                     systems: Sequence[str] | None = None, per_fold: bool = False,
                     id_col: str = "id", label_col: str = "label", system_col: str = "system",
                     fold_col: str | None = "fold", missing: str = "error", allow_unknown: bool = False,
                     check_duplicates: bool = True, memory_limit: str = "1GB", temp_directory=None,
                     threads: int | None = None, spark=None) -> Counts:
    """Confusion tensors of every system, counted by the query engine where the files lie.

    ``gold``: file(s) with ``id_col``, ``label_col`` (and ``fold_col`` if the data has
    folds). ``runs``: long file(s), one row per (system, item), columns ``system_col``,
    ``id_col``, ``label_col``. ``labels``: the class list in order (default: the gold labels,
    natural order). ``systems``: the systems to keep, in order (default: every system, natural
    order). ``per_fold``: an ``(S, F, K, K)`` tensor per fold (needs ``fold_col`` in the gold
    table). ``missing``/``allow_unknown``: as in :func:`~evalreport.inputs.read_runs`.
    ``check_duplicates``: check that no (system, id) repeats (one ``COUNT(DISTINCT)`` pass;
    switch off only for data known to be clean). ``memory_limit``/``temp_directory``/``threads``:
    DuckDB settings. ``spark``: an existing SparkSession for ``engine="spark"``.

    The result equals ``count(read_runs(gold, <one file per system>))`` exactly.
    """
    with _Job(gold, runs, engine=engine, id_col=id_col, label_col=label_col, system_col=system_col,
              fold_col=fold_col, memory_limit=memory_limit, temp_directory=temp_directory, threads=threads,
              spark=spark) as job:
        plan = job.validate(labels=labels, systems=systems, missing=missing, check_duplicates=check_duplicates,
                            per_fold=per_fold)
        rows = plan.rows
        plan.resolve_predictions(rows["pred"], allow_unknown=allow_unknown, job=job)
        return plan.tensor(rows, per_fold=per_fold)


def count_patterns(gold, runs, *, engine: str = "duckdb", labels: Sequence[str] | None = None,
                   systems: Sequence[str] | None = None, id_col: str = "id", label_col: str = "label",
                   system_col: str = "system", fold_col: str | None = "fold", missing: str = "error",
                   allow_unknown: bool = False, check_duplicates: bool = True, memory_limit: str = "1GB",
                   temp_directory=None, threads: int | None = None, spark=None) -> PatternCounts:
    """The distinct joint patterns ``(fold, gold, pred_1, ..., pred_S)`` of the items with counts.

    One ``GROUP BY id`` turns the long table into one row per item (a pivot: one column per
    system), joined to the gold labels, then ``GROUP BY`` the pattern ``COUNT(*)``. The result
    has P rows (P <= number of items; for S systems and K classes at most K^(S+1) per fold), so
    it fits in memory whenever the patterns do; its size is independent of the file size.
    Arguments as in :func:`count_confusions`. With ``missing="abstain"`` a prediction a system
    lacks is the ``"<abstain>"`` class.
    """
    with _Job(gold, runs, engine=engine, id_col=id_col, label_col=label_col, system_col=system_col,
              fold_col=fold_col, memory_limit=memory_limit, temp_directory=temp_directory, threads=threads,
              spark=spark) as job:
        plan = job.validate(labels=labels, systems=systems, missing=missing, check_duplicates=check_duplicates,
                            per_fold=False)
        plan.resolve_predictions(plan.rows["pred"], allow_unknown=allow_unknown, job=job)
        # small mapping tables: raw value -> code (joins, not string literals, so any name is safe)
        sys_map = job.table("sys", {"raw": plan.system_raw, "code": np.arange(len(plan.system_raw))})
        pred_map = job.table("pred", {"raw": plan.pred_raw, "code": plan.pred_codes})
        gold_map = job.table("gold", {"raw": plan.gold_raw, "code": plan.gold_codes})
        S = len(plan.systems)
        pivot = ", ".join(f"MAX(CASE WHEN s.code = {k} THEN m.code END) AS p{k}" for k in range(S))
        cols = ", ".join(f"w.p{k}" for k in range(S))
        fold = job.fold_expr("g")
        frame = job.engine.arrays(
            f"WITH w AS (SELECT r.{job.rid} AS id, {pivot} FROM {job.runs_view} r "
            f"JOIN {sys_map} s ON r.{job.rsys} = s.raw JOIN {pred_map} m ON r.{job.rlab} = m.raw "
            f"GROUP BY r.{job.rid}) "
            f"SELECT {fold} AS fold, gm.code AS gold, {cols}, COUNT(*) AS n "
            f"FROM {job.gold_view} g JOIN {gold_map} gm ON g.{job.glab} = gm.raw "
            f"LEFT JOIN w ON {job.join_on('w', 'g', left_id='id')} "
            f"GROUP BY gm.code, {cols}{job.fold_group('g')}")
        return plan.patterns(frame, S)


# ----------------------------------------------------------------------------- engines


class _DuckDB:
    """DuckDB in this process: out of core within ``memory_limit``, spilling to ``temp_directory``."""

    quote = '"'

    def __init__(self, *, memory_limit, temp_directory, threads):
        try:
            import duckdb
        except ImportError:  # pragma: no cover - duckdb is a declared dependency of the 'big' extra
            raise InputError("engine 'duckdb' needs the duckdb package (pip install 'evalreport[big]')") from None
        config = {"memory_limit": str(memory_limit), "preserve_insertion_order": False}
        if threads is not None:
            config["threads"] = int(threads)
        if temp_directory is not None:
            config["temp_directory"] = str(temp_directory)
        self.con = duckdb.connect(config=config)
        self._registered: list[str] = []

    def view(self, name: str, paths: list[str], fmt: str) -> None:
        files = "[" + ", ".join(_sql_string(p) for p in paths) + "]"
        if fmt == "parquet":
            source = f"read_parquet({files})"
        else:
            delim = _sql_string("\t" if fmt == "tsv" else ",")
            source = f"read_csv({files}, header = true, delim = {delim}, quote = '\"', all_varchar = true)"
        self.con.execute(f"CREATE TEMP VIEW {name} AS SELECT * FROM {source}")

    def columns(self, name: str) -> dict[str, str]:
        return {row[0]: str(row[1]).upper() for row in self.con.execute(f"DESCRIBE {name}").fetchall()}

    def table(self, name: str, columns: dict) -> str:
        import pyarrow as pa

        self.con.register(name, pa.table({k: _arrow_column(v) for k, v in columns.items()}))
        self._registered.append(name)
        return name

    def rows(self, sql: str) -> list[tuple]:
        return self.con.execute(sql).fetchall()

    def arrays(self, sql: str) -> dict[str, np.ndarray]:
        table = self.con.sql(sql).to_arrow_table()
        return {name: table.column(name).to_numpy(zero_copy_only=False) for name in table.column_names}

    @staticmethod
    def hash_sum(expr: str) -> str:
        return f"SUM(hash({expr}))"            # UBIGINT hashes summed exactly (HUGEINT)

    def close(self) -> None:
        self.con.close()


class _Spark:
    """The same queries on Apache Spark (pyspark): a local session unless one is given."""

    quote = "`"

    def __init__(self, *, session=None):
        try:
            from pyspark.sql import SparkSession
        except ImportError:
            raise InputError("engine 'spark' needs pyspark (pip install 'evalreport[spark]') and Java") from None
        if session is None:
            session = (SparkSession.builder.master("local[2]").appName("evalreport")
                       .config("spark.ui.enabled", "false")
                       .config("spark.sql.shuffle.partitions", "4")
                       .getOrCreate())
        self.spark = session
        self._views: list[str] = []

    def view(self, name: str, paths: list[str], fmt: str) -> None:
        reader = self.spark.read
        if fmt == "parquet":
            frame = reader.parquet(*paths)
        else:
            frame = reader.csv(paths, header=True, sep="\t" if fmt == "tsv" else ",", inferSchema=False,
                               quote='"', escape='"')
        frame.createOrReplaceTempView(name)
        self._views.append(name)

    def columns(self, name: str) -> dict[str, str]:
        return {f.name: f.dataType.simpleString().upper() for f in self.spark.table(name).schema.fields}

    def table(self, name: str, columns: dict) -> str:
        names = list(columns)
        rows = list(zip(*(np.asarray(v, dtype=object).tolist() for v in columns.values())))
        if not rows:
            raise InputError("nothing to count (no rows)")
        rows = [tuple(int(x) if isinstance(x, np.integer) else x for x in row) for row in rows]
        self.spark.createDataFrame(rows, schema=names).createOrReplaceTempView(name)
        self._views.append(name)
        return name

    def rows(self, sql: str) -> list[tuple]:
        return [tuple(row) for row in self.spark.sql(sql).collect()]

    def arrays(self, sql: str) -> dict[str, np.ndarray]:
        frame = self.spark.sql(sql)
        names = frame.columns
        rows = frame.collect()
        return {name: np.array([row[k] for row in rows], dtype=object) for k, name in enumerate(names)}

    @staticmethod
    def hash_sum(expr: str) -> str:
        return f"SUM(CAST(xxhash64({expr}) AS DECIMAL(38, 0)))"   # no overflow under ANSI mode

    def close(self) -> None:
        for name in self._views:
            self.spark.catalog.dropTempView(name)


def _arrow_column(values):
    """A pyarrow array of raw values: strings stay strings, numbers keep their type."""
    import pyarrow as pa

    arr = np.asarray(values)
    if arr.dtype.kind in "OUS":
        return pa.array(list(arr), from_pandas=True)
    return pa.array(arr)


def _sql_string(text: str) -> str:
    return "'" + str(text).replace("'", "''") + "'"


# ----------------------------------------------------------------------------- one job


def _paths(value, role: str) -> tuple[list[str], str]:
    """Files named by a path, a list of paths, a folder or a glob, and their common format."""
    items = [value] if isinstance(value, (str, os.PathLike)) else list(value)
    if not items:
        raise InputError(f"no {role} files given")
    files: list[str] = []
    for item in items:
        text = str(item)
        path = Path(text)
        if path.is_dir():
            found = sorted(str(p) for p in path.iterdir() if p.is_file() and not p.name.startswith(".")
                           and _format(p.name) is not None)
            if not found:
                raise InputError(f"no {role} files ({', '.join(_FORMATS)}) in the folder", path=path)
            files += found
        elif any(ch in text for ch in "*?["):
            found = sorted(_glob.glob(text))
            if not found:
                raise InputError(f"no {role} files match the pattern", path=text)
            files += found
        else:
            if not path.exists():
                raise InputError(f"{role} file not found", path=path)
            files.append(text)
    formats = {_format(Path(f).name) for f in files}
    if None in formats:
        bad = next(f for f in files if _format(Path(f).name) is None)
        raise InputError(f"unsupported file type for a {role} file; use one of {', '.join(_FORMATS)}", path=bad)
    if len(formats) > 1:
        raise InputError(f"the {role} files mix formats ({', '.join(sorted(formats))}); use one")
    return files, formats.pop()


def _format(name: str) -> str | None:
    name = name.lower()
    for ext in _COMPRESSED:
        if name.endswith(ext):
            name = name[: -len(ext)]
    return _FORMATS.get(Path(name).suffix)


def _text(value) -> str | None:
    """A raw label/system value as the in-memory reader sees it (None = missing)."""
    if value is None:
        return None
    if isinstance(value, (bytes, bytearray)):
        value = value.decode("utf-8", "replace")
    if isinstance(value, (float, np.floating)):
        if math.isnan(value):
            return None
        if math.isfinite(value) and float(value).is_integer() and abs(value) < 2 ** 53:
            return str(int(value))
        return repr(float(value))
    if isinstance(value, (bool, np.bool_)):
        return "true" if value else "false"
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    text = str(value).strip()
    return None if text in MISSING_LABELS else text


def _listing(names, limit: int = _MAX_LISTED) -> str:
    names = list(names)
    shown = ", ".join(repr(str(n)) for n in names[:limit])
    return shown + (f", ... ({len(names)} in all)" if len(names) > limit else "")


class _Job:
    """The engine with the gold and runs tables registered as views, and the validation."""

    def __init__(self, gold, runs, *, engine, id_col, label_col, system_col, fold_col, memory_limit,
                 temp_directory, threads, spark):
        if engine not in ENGINES:
            raise InputError(f"engine must be one of {', '.join(ENGINES)}; got {engine!r}")
        self.gold_files, gold_fmt = _paths(gold, "gold")
        self.run_files, run_fmt = _paths(runs, "run")
        self.gold_label = self.gold_files[0] if len(self.gold_files) == 1 else f"{self.gold_files[0]} (+{len(self.gold_files) - 1})"
        self.runs_label = self.run_files[0] if len(self.run_files) == 1 else f"{self.run_files[0]} (+{len(self.run_files) - 1})"
        self.engine = (_DuckDB(memory_limit=memory_limit, temp_directory=temp_directory, threads=threads)
                       if engine == "duckdb" else _Spark(session=spark))
        tag = uuid.uuid4().hex[:12]
        self.gold_view, self.runs_view = f"er_gold_{tag}", f"er_runs_{tag}"
        self._tag = tag
        q = self.engine.quote
        self.q = lambda name: f"{q}{name.replace(q, q + q)}{q}"
        try:
            self.engine.view(self.gold_view, self.gold_files, gold_fmt)
            self.engine.view(self.runs_view, self.run_files, run_fmt)
            gold_cols = self.engine.columns(self.gold_view)
            run_cols = self.engine.columns(self.runs_view)
        except InputError:
            self.engine.close()
            raise
        except Exception as exc:
            self.engine.close()
            raise InputError(f"cannot read the inputs with {engine}: {str(exc).splitlines()[0]}",
                             path=self.gold_label) from None
        self._require(gold_cols, (id_col, label_col), self.gold_label)
        self._require(run_cols, (system_col, id_col, label_col), self.runs_label)
        self.has_folds = fold_col is not None and fold_col in gold_cols
        self.rid, self.rlab, self.rsys = self.q(id_col), self.q(label_col), self.q(system_col)
        self.gid, self.glab = self.q(id_col), self.q(label_col)
        self.gfold = self.q(fold_col) if self.has_folds else None
        self.id_col, self.label_col, self.system_col = id_col, label_col, system_col
        # ids joined as stored when both sides have the same type, else as text
        self._ids_as_text = gold_cols[id_col] != run_cols[id_col]

    def _require(self, found: dict, needed, where) -> None:
        missing = [c for c in needed if c not in found]
        if missing:
            self.engine.close()
            word = "column" if len(missing) == 1 else "columns"
            raise InputError(f"missing {word} {', '.join(repr(m) for m in missing)}; the columns found are: "
                             f"{', '.join(repr(c) for c in found) or '(none)'}", path=where)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.engine.close()
        return False

    # -- SQL pieces ------------------------------------------------------------------------
    def fold_group(self, alias: str) -> str:
        """``, alias.fold`` for a GROUP BY list, or nothing (a constant is no grouping key: a bare
        ``0`` there would be read as a column position)."""
        return f", {alias}.{self.gfold}" if self.gfold else ""

    def fold_expr(self, alias: str) -> str:
        return f"{alias}.{self.gfold}" if self.gfold else "0"

    def id_key(self, alias: str) -> str:
        """The id of a row as joined (as stored, or as trimmed text when the two id types differ)."""
        col = f"{alias}.{self.rid}"
        return f"TRIM(CAST({col} AS STRING))" if self._ids_as_text else col

    def join_on(self, run_alias: str, gold_alias: str, *, left_id: str | None = None) -> str:
        left = f"{run_alias}.{self.q(left_id) if left_id else self.rid}"
        right = f"{gold_alias}.{self.gid}"
        if self._ids_as_text:
            return f"TRIM(CAST({left} AS STRING)) = TRIM(CAST({right} AS STRING))"
        return f"{left} = {right}"

    def table(self, name: str, columns: dict) -> str:
        """Register a small table (raw value -> code maps) under a name unique to this job."""
        return self.engine.table(f"er_map_{name}_{self._tag}", columns)

    def example(self, sql: str):
        rows = self.engine.rows(sql + " LIMIT 1")
        return rows[0] if rows else None

    # -- validation ------------------------------------------------------------------------
    def validate(self, *, labels, systems, missing, check_duplicates, per_fold) -> "_Plan":
        """Check the inputs and count: ONE pass over the run table (joined to gold) on the happy path.

        The pass groups by (system, fold, gold label, predicted label) over a LEFT JOIN, so ids
        not in the gold table show up as a group with a NULL gold label, and each group carries
        ``SUM(hash(id))``. A system is complete and free of duplicates when its known rows
        number N and their id-hash sum equals the gold ids' (a duplicate that replaces a missing
        id changes the sum; a false pass needs a 64-bit hash collision). Only a system that
        fails this is examined further, by exact queries (``check_duplicates``).
        """
        if missing not in ("error", "abstain"):
            raise InputError(f"missing must be 'error' or 'abstain', not {missing!r}")
        if per_fold and not self.has_folds:
            raise InputError("per_fold needs a fold column in the gold table", path=self.gold_label)
        e, g, r = self.engine, self.gold_view, self.runs_view
        n_rows, n_ids, n_nonnull, gold_hash = e.rows(
            f"SELECT COUNT(*), COUNT(DISTINCT g.{self.gid}), COUNT(g.{self.gid}), {e.hash_sum(self.id_key('g'))} "
            f"FROM {g} g")[0]
        if n_rows == 0:
            raise InputError("gold table has no rows", path=self.gold_label)
        if n_nonnull < n_rows:
            raise InputError(f"{n_rows - n_nonnull} gold row(s) have an empty id", path=self.gold_label)
        if n_ids < n_nonnull:
            item, times = self.example(f"SELECT {self.gid}, COUNT(*) FROM {g} GROUP BY {self.gid} HAVING COUNT(*) > 1")
            raise InputError(f"{n_nonnull - n_ids} duplicate gold row(s); e.g. id {item!r} appears {times} times",
                             path=self.gold_label, item=item)
        fold = self.fold_expr("g")
        gold_groups = e.arrays(f"SELECT g.{self.glab} AS label, {fold} AS fold, COUNT(*) AS n FROM {g} g "
                               f"GROUP BY g.{self.glab}{self.fold_group('g')}")
        plan = _Plan(self, gold_groups, labels, missing, n_rows)

        rows = e.arrays(
            f"SELECT r.{self.rsys} AS sys, {fold} AS fold, g.{self.glab} AS gold, r.{self.rlab} AS pred, "
            f"COUNT(*) AS n, COUNT(r.{self.rid}) AS with_id, COUNT(g.{self.gid}) AS known, "
            f"{e.hash_sum(self.id_key('r'))} AS h "
            f"FROM {r} r LEFT JOIN {g} g ON {self.join_on('r', 'g')} "
            f"GROUP BY r.{self.rsys}{self.fold_group('g')}, g.{self.glab}, r.{self.rlab}")
        if len(rows["sys"]) == 0:
            raise InputError("run table has no rows", path=self.runs_label)
        n = np.asarray(rows["n"], dtype=np.int64)
        with_id = np.asarray(rows["with_id"], dtype=np.int64)
        known = np.asarray(rows["known"], dtype=np.int64)
        raw_sys = np.asarray(rows["sys"], dtype=object)
        if (with_id < n).any():
            k = int(np.flatnonzero(with_id < n)[0])
            raise InputError(f"{int((n - with_id).sum())} run row(s) have an empty id (e.g. system "
                             f"{_text(raw_sys[k])!r})", path=self.runs_label)
        plan.set_systems(_unique_raw(raw_sys), systems)
        s_code = np.array([plan._sys_lookup[k] for k in _keys(raw_sys)], dtype=np.int64)
        keep = s_code >= 0
        if (known < n)[keep].any():
            total = int((n - known)[keep].sum())
            row = self.example(f"SELECT r.{self.rsys}, r.{self.rid} FROM {r} r LEFT JOIN {g} g "
                               f"ON {self.join_on('r', 'g')} WHERE g.{self.gid} IS NULL")
            raise InputError(f"{total} run row(s) have ids that are not in the gold table {self.gold_label}; "
                             f"e.g. system {_text(row[0])!r}, id {row[1]!r}", path=self.runs_label, item=row[1])
        pred_null = np.array([v is None for v in _keys(rows["pred"])], dtype=bool)
        if (pred_null & keep).any():
            k = int(np.flatnonzero(pred_null & keep)[0])
            raise InputError(f"{int(n[pred_null & keep].sum())} run row(s) have an empty predicted label "
                             f"(e.g. system {_text(raw_sys[k])!r})", path=self.runs_label)
        S = len(plan.systems)
        per_system = np.bincount(s_code[keep], weights=known[keep], minlength=S).round().astype(np.int64)
        hashes = [0] * S
        for code, h in zip(s_code[keep].tolist(), np.asarray(rows["h"], dtype=object)[keep].tolist()):
            hashes[code] += int(h)            # exact integer sums (a loop over groups, not items)
        suspect = [s for s in range(S) if per_system[s] != n_rows or hashes[s] != int(gold_hash)]
        if suspect and check_duplicates:
            lit = self.table("suspect", {"raw": plan.system_raw[suspect]})
            row = self.example(f"SELECT r.{self.rsys}, r.{self.rid}, COUNT(*) FROM {r} r JOIN {lit} o "
                               f"ON r.{self.rsys} = o.raw GROUP BY r.{self.rsys}, r.{self.rid} HAVING COUNT(*) > 1")
            if row is not None:
                raise InputError(f"duplicate run rows (the same system and id twice); e.g. system "
                                 f"{_text(row[0])!r}, id {row[1]!r} appears {row[2]} times",
                                 path=self.runs_label, item=row[1])
        plan.missing_rows = {s: int(n_rows - per_system[s]) for s in suspect if per_system[s] < n_rows}
        if plan.missing_rows and missing == "error":
            s = min(plan.missing_rows)
            lit = self.table("one", {"raw": [plan.system_raw[s]]})
            row = self.example(f"SELECT g.{self.gid} FROM {g} g LEFT JOIN (SELECT r.{self.rid} AS id FROM {r} r "
                               f"JOIN {lit} o ON r.{self.rsys} = o.raw) w ON {self.join_on('w', 'g', left_id='id')} "
                               f"WHERE w.{self.q('id')} IS NULL")
            item = None if row is None else row[0]
            raise InputError(f"system {plan.systems[s]!r} has no prediction for gold id {item!r}; "
                             f"{plan.missing_rows[s]} of {n_rows} gold ids are missing from it "
                             f"({len(plan.missing_rows)} system(s) incomplete); use --missing abstain (Python: missing='abstain') "
                             "to count them as wrong", path=self.runs_label, item=item)
        if not check_duplicates and any(per_system[s] > n_rows for s in suspect):
            raise InputError("some system has more rows than there are gold items (duplicate rows)",
                             path=self.runs_label)
        plan.rows = {k: np.asarray(v)[keep] if isinstance(v, np.ndarray) else v for k, v in rows.items()}
        return plan


class _Plan:
    """Classes, systems and folds of one job, and the raw -> code maps."""

    def __init__(self, job: _Job, gold_groups: dict, labels, missing: str, n_items: int):
        self.job = job
        self.missing = missing
        self.n_items = n_items
        raw_labels = np.asarray(gold_groups["label"], dtype=object)
        texts = [_text(v) for v in raw_labels]
        if any(t is None for t in texts):
            k = next(i for i, t in enumerate(texts) if t is None)
            raise InputError(f"{int(np.asarray(gold_groups['n'])[[t is None for t in texts]].sum())} gold row(s) "
                             f"have an empty or missing label ({raw_labels[k]!r})", path=job.gold_label)
        found = sorted(set(texts))
        if labels is not None:
            if isinstance(labels, str):
                raise InputError("labels must be a list of class names, not a single string")
            classes = [str(x).strip() for x in labels]
            if len(set(classes)) != len(classes):
                raise InputError("labels list names a class more than once")
            extra = natural_sorted(t for t in found if t not in set(classes))
            if extra:
                raise InputError(f"gold label(s) {_listing(extra)} are not in the labels list {_listing(classes)}",
                                 path=job.gold_label)
        else:
            classes = natural_sorted(found)
        if ABSTAIN in classes:
            raise InputError(f"{ABSTAIN!r} is reserved for predictions a run lacks; rename that class",
                             path=job.gold_label)
        if len(classes) < 2:
            raise InputError(f"the gold labels hold only one class ({_listing(classes)}); measures need at least "
                             "two (--labels a,b,c; Python: labels=[...]) to declare the other classes", path=job.gold_label)
        self.classes = list(classes)
        self.n_known = len(classes)
        index = {c: k for k, c in enumerate(classes)}
        # distinct raw gold values -> class code
        uniq_raw = _unique_raw(raw_labels)
        self.gold_raw = uniq_raw
        self.gold_codes = np.array([index[_text(v)] for v in uniq_raw], dtype=np.int64)
        self._gold_lookup = dict(zip(_keys(uniq_raw), self.gold_codes.tolist()))
        # folds
        raw_folds = np.asarray(gold_groups["fold"], dtype=object)
        if job.has_folds:
            fold_texts = [_text(v) for v in raw_folds]
            if any(t is None for t in fold_texts):
                raise InputError("gold rows with an empty fold", path=job.gold_label)
            self.fold_names = tuple(natural_sorted(set(fold_texts)))
            findex = {f: k for k, f in enumerate(self.fold_names)}
            self._fold_lookup = {key: findex[_text(v)] for key, v in zip(_keys(raw_folds), raw_folds)}
        else:
            self.fold_names = ()
            self._fold_lookup = {key: 0 for key in _keys(raw_folds)}
        # gold class totals per fold (for the abstain column)
        F = max(len(self.fold_names), 1)
        totals = np.zeros((F, self.n_known), dtype=np.int64)
        f_codes = np.array([self._fold_lookup[k] for k in _keys(raw_folds)], dtype=np.int64)
        g_codes = np.array([self._gold_lookup[k] for k in _keys(raw_labels)], dtype=np.int64)
        np.add.at(totals, (f_codes, g_codes), np.asarray(gold_groups["n"], dtype=np.int64))
        self.gold_totals = totals
        self.missing_rows: dict[int, int] = {}
        self.extras: list[str] = []

    def set_systems(self, raw_systems, wanted) -> None:
        raw = np.asarray(raw_systems, dtype=object)
        names = [_text(v) for v in raw]
        if any(n is None for n in names):
            raise InputError("run rows with an empty system name", path=self.job.runs_label)
        by_name: dict[str, object] = {}
        for n, v in zip(names, raw):
            if n in by_name:
                raise InputError(f"system name {n!r} is written in two ways in the run table", path=self.job.runs_label)
            by_name[n] = v
        if wanted is not None:
            order = [str(s) for s in wanted]
            unknown = [s for s in order if s not in by_name]
            if unknown:
                raise InputError(f"system(s) {_listing(unknown)} are not in the run table (systems: "
                                 f"{_listing(natural_sorted(by_name))})", path=self.job.runs_label)
            if len(set(order)) != len(order):
                raise InputError("systems list names a system more than once")
        else:
            order = natural_sorted(by_name)
        self.systems = tuple(order)
        self.system_index = {s: k for k, s in enumerate(order)}
        self.system_raw = np.array([by_name[s] for s in order], dtype=object)
        self._sys_lookup = {key: self.system_index.get(_text(v), -1) for key, v in zip(_keys(raw), raw)}

    def resolve_predictions(self, raw_preds, *, allow_unknown: bool, job: _Job) -> None:
        """Map the distinct raw predicted labels to codes; unknown ones are an error or extra classes."""
        uniq = _unique_raw(np.asarray(raw_preds, dtype=object))
        index = {c: k for k, c in enumerate(self.classes)}
        texts = [_text(v) for v in uniq]
        if any(t is None for t in texts):
            raise InputError("run rows with an empty or missing predicted label", path=job.runs_label)
        unknown = natural_sorted({t for t in texts if t not in index})
        if unknown and not allow_unknown:
            raw = uniq[texts.index(unknown[0])]
            lit = job.table("unknown", {"raw": [raw]})
            row = job.example(f"SELECT r.{job.rsys}, r.{job.rid} FROM {job.runs_view} r JOIN {lit} o "
                              f"ON r.{job.rlab} = o.raw")
            where = "" if row is None else f"; e.g. system {_text(row[0])!r}, id {row[1]!r}"
            raise InputError(f"{len(unknown)} predicted label(s) are not classes "
                             f"(classes: {_listing(self.classes)}): {_listing(unknown)}{where}; use "
                             "--allow-unknown (Python: allow_unknown=True) to count them as wrong", path=job.runs_label,
                             item=None if row is None else row[1])
        self.extras = unknown
        final = list(self.classes) + unknown
        abstain = None
        if self.missing_rows:
            abstain = len(final)
            final.append(ABSTAIN)
        self.labels = tuple(final)
        self.abstain = abstain
        announce_prediction_only(final[self.n_known:])
        full = {c: k for k, c in enumerate(final)}
        self.pred_raw = uniq
        self.pred_codes = np.array([full[t] for t in texts], dtype=np.int64)
        self._pred_lookup = dict(zip(_keys(uniq), self.pred_codes.tolist()))

    # -- results -----------------------------------------------------------------------------
    def tensor(self, rows: dict, *, per_fold: bool) -> Counts:
        S, K = len(self.systems), len(self.labels)
        F = len(self.fold_names) if per_fold else 1
        s = np.array([self._sys_lookup[k] for k in _keys(rows["sys"])], dtype=np.int64)
        f = np.array([self._fold_lookup[k] for k in _keys(rows["fold"])], dtype=np.int64) if per_fold \
            else np.zeros(s.shape[0], dtype=np.int64)
        g = np.array([self._gold_lookup[k] for k in _keys(rows["gold"])], dtype=np.int64)
        p = np.array([self._pred_lookup[k] for k in _keys(rows["pred"])], dtype=np.int64)
        n = np.asarray(rows["n"], dtype=np.int64)
        keep = s >= 0                                   # systems not selected are dropped
        tensor = np.zeros((S, F, K, K), dtype=np.int64)
        np.add.at(tensor, (s[keep], f[keep], g[keep], p[keep]), n[keep])
        if self.abstain is not None:
            totals = self.gold_totals if per_fold else self.gold_totals.sum(axis=0, keepdims=True)
            counted = tensor[..., :self.n_known, :].sum(axis=-1)                  # (S, F, K_known)
            tensor[..., :self.n_known, self.abstain] = totals[None] - counted
        tensor = tensor if per_fold else tensor[:, 0]
        return Counts(tensor, self.labels, self.systems, self.fold_names if per_fold else (), self.n_task)

    @property
    def n_task(self) -> int | None:
        """Leading task classes (as Runs.n_task); None when every class is one."""
        return self.n_known if len(self.labels) > self.n_known else None

    def patterns(self, frame: dict, S: int) -> PatternCounts:
        n = np.asarray(frame["n"], dtype=np.int64)
        P = n.shape[0]
        cols = [frame["gold"]] + [frame[f"p{k}"] for k in range(S)]
        codes = np.empty((P, 1 + S), dtype=np.int64)
        for j, col in enumerate(cols):       # a loop over the S + 1 columns, vectorised over patterns
            col = np.asarray(col)
            if col.dtype == object:
                null = np.array([v is None or (isinstance(v, float) and math.isnan(v)) for v in col.tolist()],
                                dtype=bool)
            elif col.dtype.kind == "f":
                null = np.isnan(col)
            else:
                null = np.zeros(P, dtype=bool)
            if null.any():
                if self.abstain is None:   # cannot happen after validation; kept as a guard
                    raise InputError(f"system {self.systems[j - 1]!r} lacks predictions", path=self.job.runs_label)
                col = np.where(null, self.abstain, col)
            codes[:, j] = col.astype(np.int64)
        fold = np.array([self._fold_lookup[k] for k in _keys(frame["fold"])], dtype=np.int64)
        order = np.lexsort(tuple(codes[:, j] for j in range(S, -1, -1)) + (fold,))
        dtype = code_dtype(len(self.labels))
        folds = fold[order].astype(code_dtype(max(len(self.fold_names), 1))) if self.fold_names else None
        return PatternCounts(patterns=codes[order].astype(dtype), counts=n[order], labels=self.labels,
                             systems=self.systems, folds=folds, fold_names=self.fold_names, abstain=self.abstain,
                             n_task=self.n_task)


def _keys(values) -> list:
    """Hashable keys of raw values (numpy scalars as Python ones, NaN as None)."""
    out = []
    for v in np.asarray(values, dtype=object).tolist():
        if isinstance(v, float) and math.isnan(v):
            v = None
        out.append(v)
    return out


def _unique_raw(values: np.ndarray) -> np.ndarray:
    """The distinct raw values (one per key of :func:`_keys`), in first-seen order."""
    seen: dict = {}
    for key, v in zip(_keys(values), np.asarray(values, dtype=object).tolist()):
        seen.setdefault(key, v)
    return np.array(list(seen.values()), dtype=object)
