"""evalreport: rank classification systems under every measure in the literature.

Data flows one way: inputs -> counts -> measures -> analyses -> charts -> report -> cli.

The public API (every name is imported on first use, PEP 562, so ``import evalreport`` and the
command line's ``--help`` do not pay for pyarrow, pandas and the measures' registry):

=====================  ====================================================================
``read_runs``          gold and run files -> :class:`Runs` (single labels)
``read_multilabel``    gold and run files -> label sets (``MultiLabelRuns``)
``compare``            every table of a comparison (:class:`Comparison`), under a :class:`Settings`
``evaluate``           one tidy frame of measures (counts or a confusion matrix in)
``report``             a report folder (HTML, PDF, tables) for single labels or label sets
``read_benchmark``     several tasks -> a ``Benchmark``
``compare_benchmark``  every task compared, then the systems ranked across tasks
``benchmark_report``   the benchmark's report folder
``measures``           the registry module: ``catalogue()``, ``get(id)``, ``register(Measure(...))``
``Settings``           every setting of a comparison and its report: one frozen, validated object
``Comparison``         the tables of one comparison
``Runs``, ``Counts``   item-level predictions; confusion tensors
=====================  ====================================================================

>>> import evalreport
>>> runs = evalreport.read_runs("examples/stance/gold.tsv", runs_dir="examples/stance/runs")  # doctest: +SKIP
>>> cmp = evalreport.compare(runs, evalreport.Settings(bootstrap=200, primary="k"))            # doctest: +SKIP
"""
from __future__ import annotations

from typing import Any

__version__ = "0.1.0"

__all__ = ["read_runs", "read_multilabel", "compare", "evaluate", "report", "read_benchmark", "compare_benchmark",
           "benchmark_report", "measures", "Settings", "Comparison", "Runs", "Counts"]

#: Imported on first use: name -> (module, attribute; None: the module itself).
_LAZY: dict[str, tuple[str, str | None]] = {
    "read_runs": ("evalreport.inputs.readers", "read_runs"),
    "read_multilabel": ("evalreport.inputs.multilabel", "read_multilabel"),
    "compare": ("evalreport.analyses.compare", "compare"),
    "evaluate": ("evalreport.measures", "evaluate"),
    "report": ("evalreport.report", None),          # the package, callable (its __call__ builds a report)
    "read_benchmark": ("evalreport.inputs.benchmark", "read_benchmark"),
    "compare_benchmark": ("evalreport.analyses.benchmark", "compare_benchmark"),
    "benchmark_report": ("evalreport.report.benchmark_build", "build_benchmark_report"),
    "measures": ("evalreport.measures", None),
    "Settings": ("evalreport.inputs.settings", "Settings"),
    "Comparison": ("evalreport.analyses.compare", "Comparison"),
    "Runs": ("evalreport.inputs.runs", "Runs"),
    "Counts": ("evalreport.counts", "Counts"),
    "confusion_matrix": ("evalreport.counts", "confusion_matrix"),
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        module, attribute = _LAZY[name]
        found = importlib.import_module(module)
        return found if attribute is None else getattr(found, attribute)
    raise AttributeError(f"module 'evalreport' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
