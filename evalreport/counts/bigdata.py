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

The pieces: :mod:`.pattern_counts` (the result type),
:mod:`.bigdata_engines` (DuckDB and Spark), :mod:`.bigdata_job` (files, views and the
validation pass) and :mod:`.bigdata_plan` (raw values to codes, and the results). The engines
and the checks are described there.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from evalreport.counts import Counts
from evalreport.counts.bigdata_engines import ENGINES
from evalreport.counts.bigdata_job import Job
from evalreport.counts.pattern_counts import PatternCounts

__all__ = ["count_confusions", "count_patterns", "PatternCounts", "ENGINES"]


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
    with Job(gold, runs, engine=engine, id_col=id_col, label_col=label_col, system_col=system_col,
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
    with Job(gold, runs, engine=engine, id_col=id_col, label_col=label_col, system_col=system_col,
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
