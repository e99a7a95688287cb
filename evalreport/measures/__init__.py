"""Stage 3 - measures: one registry of declared measures over confusion tensors.

>>> from evalreport import measures
>>> measures.get("recall").source
'Sebastiani 2015, Table 1'
"""
from evalreport.measures import (
                                       binary as _binary,  # noqa: F401  (registers)
                                       gains as _gains,  # noqa: F401  (registers)
                                       multiclass as _multiclass,  # noqa: F401  (registers)
                                       multilabel as _multilabel,  # noqa: F401  (registers)
                                       ordinal as _ordinal,  # noqa: F401  (registers)
                                       scores as _scores,  # noqa: F401  (registers)
)
from evalreport.measures._core import (
                                       ALIASES,
                                       POLICIES,
                                       REGISTRY,
                                       Context,
                                       Measure,
                                       Result,
                                       aliases_of,
                                       catalogue,
                                       check_names,
                                       compute,
                                       get,
                                       register,
                                       register_alias,
                                       resolve_positive,
)
from evalreport.measures._shared import shared_sums
from evalreport.measures.evaluate import applicable, catalogue_frame, default_measures, evaluate
from evalreport.measures.subsets import bind, for_synthetic

__all__ = ["ALIASES", "POLICIES", "REGISTRY", "Context", "Measure", "Result", "aliases_of", "catalogue", "check_names",
           "compute",
           "get", "register", "register_alias", "bind", "for_synthetic",
           "resolve_positive", "shared_sums", "evaluate", "applicable", "default_measures", "catalogue_frame"]
