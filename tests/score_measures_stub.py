"""Registry records for the score-based measure ids that a scored tables folder holds, for a tree
whose registry does not declare them (the score measures are computed from scores, not from the
confusion matrices these records see: their function returns NaN). An id the registry already
declares is left alone, so the real records win wherever they exist. Loaded as a plugin by the
tests of the score curves (tests/scored_tables.py), in the test process and in the report's kernel."""
import numpy as np

from evalreport.measures import Measure, get, register

_STUBS = {
    "roc_auc": ("Area under the ROC curve", True),
    "average_precision": ("Average precision", True),
    "brier": ("Brier score", False),
    "log_loss": ("Log loss", False),
    "ece": ("Expected calibration error", False),
}


def _not_from_counts(C, ctx):
    """NaN for every matrix: a score-based measure has no value on a confusion matrix."""
    return np.full(np.shape(C)[:-2], np.nan)


for _id, (_label, _higher) in _STUBS.items():
    try:
        get(_id)
    except Exception:
        register(Measure(id=_id, label=_label, fn=_not_from_counts, source="test stub of a score-based measure",
                         range=(0.0, float("inf")), higher_is_better=_higher))
