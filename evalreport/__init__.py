"""evalreport: rank classification systems under every measure in the literature.

Data flows one way: inputs -> counts -> measures -> analyses -> charts -> report -> cli.
"""
__version__ = "0.1.0"

from evalreport.counts import Counts, confusion_matrix  # noqa: E402
from evalreport.inputs import Runs  # noqa: E402
from evalreport.measures import evaluate  # noqa: E402

__all__ = ["Counts", "Runs", "confusion_matrix", "evaluate", "read_benchmark", "compare_benchmark", "__version__"]

#: Imported on first use (the analyses pull in pandas and scipy): name -> module.
_LAZY = {"read_benchmark": "evalreport.inputs.benchmark", "compare_benchmark": "evalreport.analyses.benchmark"}


def __getattr__(name):
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'evalreport' has no attribute {name!r}")
