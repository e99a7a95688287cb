"""The query engines of :mod:`evalreport.counts.bigdata`: one small class per engine with the same
methods (register a file view or a small table, run SQL to rows or arrays, sum hashes, close).

Engines
-------
``engine="duckdb"`` (embedded, the default) reads Parquet and CSV directly and runs joins and
aggregations out of core: it keeps within ``memory_limit`` and spills to ``temp_directory``.
``engine="spark"`` runs the same queries on Apache Spark (pyspark): a local session
(``local[2]``) unless an existing ``spark`` session - e.g. on a cluster - is passed.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from evalreport.errors import InputError

__all__ = ["ENGINES", "DuckDB", "Spark", "sql_string"]

#: Query engines: ``duckdb`` (embedded, out of core; the default) and ``spark`` (pyspark).
ENGINES = ("duckdb", "spark")



def _separator(paths, fmt: str) -> str:
    """The separator of a view's text files: the first file's (sniffed) if plain and local, else the extension's."""
    default = "\t" if fmt == "tsv" else ","
    first = Path(str(paths[0])) if paths else None
    if first is None or first.suffix.lower() not in (".csv", ".tsv", ".tab") or not first.is_file():
        return default
    from evalreport.inputs.delimiters import sniff_delimiter

    return sniff_delimiter(first, default)

class DuckDB:
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
        self.con.execute(f"CREATE TEMP VIEW {name} AS SELECT * FROM {self._source(paths, fmt)}")

    def view_named(self, name: str, paths: list[str], fmt: str, column: str, values: list[str]) -> None:
        """A view of the files with a text column ``column`` holding each file's value (its system)."""
        q = self.quote
        col = q + column.replace(q, q + q) + q
        parts = [f"SELECT {sql_string(v)} AS {col}, * FROM {self._source([p], fmt)}" for p, v in zip(paths, values)]
        self.con.execute(f"CREATE OR REPLACE TEMP VIEW {name} AS " + " UNION ALL BY NAME ".join(parts))

    @staticmethod
    def _source(paths: list[str], fmt: str) -> str:
        files = "[" + ", ".join(sql_string(p) for p in paths) + "]"
        if fmt == "parquet":
            return f"read_parquet({files})"
        delim = sql_string(_separator(paths, fmt))
        return f"read_csv({files}, header = true, delim = {delim}, quote = '\"', all_varchar = true)"

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


class Spark:
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
        self._frame(paths, fmt).createOrReplaceTempView(name)
        self._views.append(name)

    def view_named(self, name: str, paths: list[str], fmt: str, column: str, values: list[str]) -> None:
        """A view of the files with a text column ``column`` holding each file's value (its system)."""
        from functools import reduce

        from pyspark.sql import functions as F

        frames = [self._frame([p], fmt).withColumn(column, F.lit(v)) for p, v in zip(paths, values)]
        reduce(lambda a, b: a.unionByName(b, allowMissingColumns=True), frames).createOrReplaceTempView(name)
        if name not in self._views:
            self._views.append(name)

    def _frame(self, paths: list[str], fmt: str):
        reader = self.spark.read
        if fmt == "parquet":
            return reader.parquet(*paths)
        return reader.csv(paths, header=True, sep=_separator(paths, fmt), inferSchema=False, quote='"', escape='"')

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


def sql_string(text: str) -> str:
    return "'" + str(text).replace("'", "''") + "'"
