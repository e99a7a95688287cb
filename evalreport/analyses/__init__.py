"""Stage 4 - analyses: tidy tables built from scores and confusion tensors.

``ranking``     ranks under every measure, rank correlation, disagreements (Opitz 2022,
                App. G; Gösgens et al. 2021, section 5)
``prevalence``  prevalence scaling, calibration, what-if prevalences (Opitz 2022, eq. 5-6, 26-27)
``baselines``   trivial predictors and random-classifier expectations (Sebastiani 2015;
                Gösgens et al. 2021, Def. 8)
``resampling``  paired bootstrap intervals, rank distributions, significance tests
``compare``     all of the above for one set of systems, as a :class:`Comparison`

The names below are imported on first use (PEP 562): ``from evalreport.analyses import rank``
works as before, but importing one submodule (the report's notebooks need few) does not pull in
every other one and scipy.stats with them (about 1.5 s).
"""
import importlib
import sys
import types

#: Public name -> the submodule that defines it.
_LAZY = {
    **dict.fromkeys(("calibration_correlation", "disagreements", "inconsistency", "rank", "rank_correlation",
                     "rank_table"), "ranking"),
    **dict.fromkeys(("PrevalenceWarning", "calibrate", "estimate_precision", "predicted_rate", "scale", "what_if"),
                    "prevalence"),
    **dict.fromkeys(("RANDOM_MODELS", "baselines"), "baselines"),
    **dict.fromkeys(("COMPARE_MEASURES", "Comparison", "compare", "comparison_measures"), "compare"),
}

__all__ = ["rank", "rank_table", "rank_correlation", "calibration_correlation", "disagreements", "inconsistency",
           "scale", "calibrate", "what_if", "estimate_precision", "predicted_rate", "PrevalenceWarning",
           "baselines", "RANDOM_MODELS", "compare", "Comparison", "COMPARE_MEASURES", "comparison_measures"]


def __getattr__(name):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'evalreport.analyses' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))


class _Package(types.ModuleType):
    """``compare`` and ``baselines`` name both a submodule and its function. Importing the
    submodule sets the package's attribute to the module; as when the package imported the
    functions eagerly, the attribute stays the function."""

    def __setattr__(self, name, value):
        if isinstance(value, types.ModuleType) and _LAZY.get(name) == name:
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package
