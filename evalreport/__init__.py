"""evalreport: rank classification systems under every measure in the literature.

Data flows one way: inputs -> counts -> measures -> analyses -> charts -> report -> cli.
"""
__version__ = "0.1.0"

__all__ = ["Counts", "Runs", "confusion_matrix", "evaluate", "read_benchmark", "compare_benchmark", "__version__"]

#: Imported on first use (PEP 562: ``import evalreport`` or the CLI's ``--help`` does not pay
#: for pyarrow, pandas and the measures' registry): name -> module.
_LAZY = {"Counts": "evalreport.counts", "confusion_matrix": "evalreport.counts", "Runs": "evalreport.inputs",
         "evaluate": "evalreport.measures", "read_benchmark": "evalreport.inputs.benchmark",
         "compare_benchmark": "evalreport.analyses.benchmark"}


def __getattr__(name):
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'evalreport' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(__all__))
