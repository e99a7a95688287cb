"""One counting job of :mod:`evalreport.counts.bigdata`: the input files found and registered as
views of the engine, the columns checked, and the validation pass that counts.

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
import os
import uuid
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from evalreport.counts.bigdata_engines import ENGINES, DuckDB, Spark
from evalreport.counts.bigdata_plan import Plan, keys, raw_text, unique_raw
from evalreport.errors import InputError

_FORMATS = {".parquet": "parquet", ".pq": "parquet", ".csv": "csv", ".tsv": "tsv", ".tab": "tsv"}
_COMPRESSED = (".gz", ".zst", ".gzip")


def paths(value, role: str, *, exclude: Sequence[str] = ()) -> tuple[list[str], str]:
    """Files named by a path, a list of paths, a folder or a glob, and their common format; a folder's
    files in natural order of their names, without those of ``exclude`` (the gold file in the runs
    folder, as the in-memory reader leaves it out)."""
    skip = {str(Path(f).resolve()) for f in exclude}
    items = [value] if isinstance(value, (str, os.PathLike)) else list(value)
    if not items:
        raise InputError(f"no {role} files given")
    files: list[str] = []
    for item in items:
        text = str(item)
        path = Path(text)
        if path.is_dir():
            from evalreport.inputs.checks import natural_key  # the in-memory reader's order of a folder

            found = [str(p) for p in sorted((p for p in path.iterdir() if p.is_file() and not p.name.startswith(".")
                                             and _format(p.name) is not None and str(p.resolve()) not in skip),
                                            key=lambda p: natural_key(p.name))]
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
    named = {_format(Path(f).name) for f in files}
    if None in named:
        bad = next(f for f in files if _format(Path(f).name) is None)
        raise InputError(f"unsupported file type for a {role} file; use one of {', '.join(_FORMATS)}", path=bad)
    formats = {f for f in named if f is not None}
    if len(formats) > 1:
        raise InputError(f"the {role} files mix formats ({', '.join(sorted(formats))}); use one")
    return files, formats.pop()


def _format(name: str) -> str | None:
    name = name.lower()
    for ext in _COMPRESSED:
        if name.endswith(ext):
            name = name[: -len(ext)]
    return _FORMATS.get(Path(name).suffix)



class Job:
    """The engine with the gold and runs tables registered as views, and the validation."""

    def __init__(self, gold, runs, *, engine, id_col, label_col, system_col, fold_col, memory_limit,
                 temp_directory, threads, spark):
        if engine not in ENGINES:
            raise InputError(f"engine must be one of {', '.join(ENGINES)}; got {engine!r}")
        self.gold_files, gold_fmt = paths(gold, "gold")
        self.run_files, run_fmt = paths(runs, "run", exclude=self.gold_files)
        self.gold_label = self.gold_files[0] if len(self.gold_files) == 1 else f"{self.gold_files[0]} (+{len(self.gold_files) - 1})"
        self.runs_label = self.run_files[0] if len(self.run_files) == 1 else f"{self.run_files[0]} (+{len(self.run_files) - 1})"
        self.engine = (DuckDB(memory_limit=memory_limit, temp_directory=temp_directory, threads=threads)
                       if engine == "duckdb" else Spark(session=spark))
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
            self.file_systems: list[str] | None = None
            if system_col not in run_cols and label_col in run_cols:
                run_cols = self._systems_by_file(run_fmt, system_col)
        except InputError:
            self.engine.close()
            raise
        except Exception as exc:
            self.engine.close()
            raise InputError(f"cannot read the inputs with {engine}: {str(exc).splitlines()[0]}",
                             path=self.gold_label) from None
        self._require(gold_cols, (id_col, label_col), self.gold_label)
        self._require(run_cols, (system_col, id_col, label_col), self.runs_label,
                      hint=(f"; the out-of-core backends read the long layout ({system_col}, {id_col}, {label_col}) "
                            f"or one file per system ({id_col}, {label_col}): a wide file ({label_col}_<system> "
                            "columns) is read in memory (--backend memory)") if system_col not in run_cols else "")
        self.has_folds = fold_col is not None and fold_col in gold_cols
        self.rid, self.rlab, self.rsys = self.q(id_col), self.q(label_col), self.q(system_col)
        self.gid, self.glab = self.q(id_col), self.q(label_col)
        self.gfold = self.q(fold_col) if self.has_folds else None
        self.id_col, self.label_col, self.system_col = id_col, label_col, system_col
        # ids joined as stored when both sides have the same type, else as text
        self._ids_as_text = gold_cols[id_col] != run_cols[id_col]

    def _systems_by_file(self, fmt: str, system_col: str) -> dict[str, str]:
        """Run files without the system column: one system per file, named by the file's stem, in the
        files' order, as the in-memory reader names them (a gold file among them is no run)."""
        files = self.run_files
        stems = [Path(f).stem for f in files]
        seen: dict[str, str] = {}
        for f, stem in zip(files, stems):
            if stem in seen:
                raise InputError(f"system name {stem!r} is used twice ({seen[stem]} and {f}): each run file without "
                                 f"a {system_col!r} column is the system its name says")
            seen[stem] = f
        self.run_files, self.file_systems = files, stems
        self.engine.view_named(self.runs_view, files, fmt, system_col, stems)
        return self.engine.columns(self.runs_view)

    def _require(self, found: dict, needed, where, *, hint: str = "") -> None:
        missing = [c for c in needed if c not in found]
        if missing:
            self.engine.close()
            word = "column" if len(missing) == 1 else "columns"
            raise InputError(f"missing {word} {', '.join(repr(m) for m in missing)}; the columns found are: "
                             f"{', '.join(repr(c) for c in found) or '(none)'}{hint}", path=where)

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
    def validate(self, *, labels, systems, missing, check_duplicates, per_fold) -> Plan:
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
        plan = Plan(self, gold_groups, labels, missing, n_rows)

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
                             f"{raw_text(raw_sys[k])!r})", path=self.runs_label)
        plan.set_systems(unique_raw(raw_sys), systems if systems is not None else self.file_systems)
        s_code = np.array([plan._sys_lookup[k] for k in keys(raw_sys)], dtype=np.int64)
        keep = s_code >= 0
        if (known < n)[keep].any():
            total = int((n - known)[keep].sum())
            row = self.example(f"SELECT r.{self.rsys}, r.{self.rid} FROM {r} r LEFT JOIN {g} g "
                               f"ON {self.join_on('r', 'g')} WHERE g.{self.gid} IS NULL")
            raise InputError(f"{total} run row(s) have ids that are not in the gold table {self.gold_label}; "
                             f"e.g. system {raw_text(row[0])!r}, id {row[1]!r}", path=self.runs_label, item=row[1])
        pred_null = np.array([v is None for v in keys(rows["pred"])], dtype=bool)
        if (pred_null & keep).any():
            k = int(np.flatnonzero(pred_null & keep)[0])
            raise InputError(f"{int(n[pred_null & keep].sum())} run row(s) have an empty predicted label "
                             f"(e.g. system {raw_text(raw_sys[k])!r})", path=self.runs_label)
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
                                 f"{raw_text(row[0])!r}, id {row[1]!r} appears {row[2]} times",
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
