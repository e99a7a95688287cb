"""Stage 4 - analyses: tidy tables built from scores and confusion tensors.

``ranking``     ranks under every measure, rank correlation, disagreements (Opitz 2022,
                App. G; Gösgens et al. 2021, section 5)
``prevalence``  prevalence scaling, calibration, what-if prevalences (Opitz 2022, eq. 5-6, 26-27)
``baselines``   trivial predictors and random-classifier expectations (Sebastiani 2015;
                Gösgens et al. 2021, Def. 8)
``resampling``  paired bootstrap intervals, rank distributions, significance tests
``compare``     all of the above for one set of systems, as a :class:`Comparison`

The names below are imported on first use (PEP 562): importing one submodule (the report's
notebooks need few) does not pull in every other one and scipy.stats with them (about 1.5 s).
``compare`` and ``baselines`` are submodules here; their functions of the same name are imported
from them: ``from evalreport.analyses.compare import compare``.
"""
import importlib

#: Public name -> the submodule that defines it.
_LAZY = {
    **dict.fromkeys(("calibration_correlation", "disagreements", "inconsistency", "rank", "rank_correlation",
                     "rank_table"), "ranking"),
    **dict.fromkeys(("PrevalenceWarning", "calibrate", "estimate_precision", "predicted_rate", "scale", "what_if"),
                    "prevalence"),
    "RANDOM_MODELS": "baselines",
    **dict.fromkeys(("COMPARE_MEASURES", "Comparison", "comparison_measures"), "compare"),
}

__all__ = ["rank", "rank_table", "rank_correlation", "calibration_correlation", "disagreements", "inconsistency",
           "scale", "calibrate", "what_if", "estimate_precision", "predicted_rate", "PrevalenceWarning",
           "RANDOM_MODELS", "Comparison", "COMPARE_MEASURES", "comparison_measures"]


def __getattr__(name: str) -> object:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'evalreport.analyses' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
