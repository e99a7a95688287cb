"""evalreport: rank classification systems under every measure in the literature.

Data flows one way: inputs -> counts -> measures -> analyses -> charts -> report -> cli.
"""
__version__ = "0.1.0"

from evalreport.counts import Counts, confusion_matrix  # noqa: E402
from evalreport.inputs import Runs  # noqa: E402
from evalreport.measures import evaluate  # noqa: E402

__all__ = ["Counts", "Runs", "confusion_matrix", "evaluate", "__version__"]
