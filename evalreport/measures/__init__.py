"""Stage 3 - measures: one registry of declared measures over confusion tensors.

>>> from evalreport import measures
>>> measures.get("recall").source
'Sebastiani 2015, Table 1'
"""
from evalreport.measures._core import (ALIASES, POLICIES, REGISTRY, Context, Measure, Result, aliases_of, catalogue,
                                       check_names, compute, get, register, register_alias, resolve_positive)
from evalreport.measures._shared import shared_sums
from evalreport.measures import binary as _binary  # noqa: F401  (registers)
from evalreport.measures import multiclass as _multiclass  # noqa: F401  (registers)
from evalreport.measures import ordinal as _ordinal  # noqa: F401  (registers)
from evalreport.measures import gains as _gains  # noqa: F401  (registers)
from evalreport.measures import multilabel as _multilabel  # noqa: F401  (registers)
from evalreport.measures.subsets import bind, for_synthetic
from evalreport.measures.evaluate import evaluate, applicable, default_measures, catalogue_frame

__all__ = ["ALIASES", "POLICIES", "REGISTRY", "Context", "Measure", "Result", "aliases_of", "catalogue", "check_names",
           "compute",
           "get", "register", "register_alias", "bind", "for_synthetic",
           "resolve_positive", "shared_sums", "evaluate", "applicable", "default_measures", "catalogue_frame"]
