"""Stage 4 - analyses: tidy tables built from scores and confusion tensors.

``ranking``     ranks under every measure, rank correlation, disagreements (paper 002 App. G;
                paper 004 section 5)
``prevalence``  prevalence scaling, calibration, what-if prevalences (paper 002 eq. 5-6, 26-27)
``baselines``   trivial predictors and random-classifier expectations (paper 000; paper 004 Def. 8)
``resampling``  paired bootstrap intervals, rank distributions, significance tests
``compare``     all of the above for one set of systems, as a :class:`Comparison`
"""
from evalreport.analyses.ranking import (calibration_correlation, disagreements, inconsistency, rank,
                                         rank_correlation, rank_table)
from evalreport.analyses.prevalence import (PrevalenceWarning, calibrate, estimate_precision, predicted_rate,
                                            scale, what_if)
from evalreport.analyses.baselines import RANDOM_MODELS, baselines
from evalreport.analyses.compare import COMPARE_MEASURES, Comparison, compare, comparison_measures

__all__ = ["rank", "rank_table", "rank_correlation", "calibration_correlation", "disagreements", "inconsistency",
           "scale", "calibrate", "what_if", "estimate_precision", "predicted_rate", "PrevalenceWarning",
           "baselines", "RANDOM_MODELS", "compare", "Comparison", "COMPARE_MEASURES", "comparison_measures"]
