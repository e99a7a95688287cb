"""A measure of one's own, as a plugin: the official measure of SemEval-2016 Task 6 (stance detection).

F_avg is the mean F1 of FAVOR and AGAINST, NONE left out (Mohammad et al., 2016, section 4). Load it
with ``--plugin examples/stance/stance.py`` (or ``plugins = ["stance.py"]`` in a task file) and give the
classes in the order FAVOR, AGAINST, NONE (``--labels`` or the task file's ``labels``), so that the
first two classes are the stances. The built-in ``macro_f1(classes=FAVOR|AGAINST)`` computes the same
number; the plugin shows how a measure evalreport does not declare is added (docs/plugins.md).
"""
import numpy as np

from evalreport.measures import Measure, register


def favor_against_f1(C, ctx):
    """Mean F1 of the first two classes (FAVOR, AGAINST) of C (..., K, K), rows = gold."""
    tp = np.diagonal(C, axis1=-2, axis2=-1)[..., :2]     # c_ii
    gold = C.sum(axis=-1)[..., :2]                       # a_i
    predicted = C.sum(axis=-2)[..., :2]                  # b_i
    f1 = ctx.div(2 * tp, gold + predicted, "no gold and no predicted items")
    return ctx.mean(f1)


register(Measure(
    id="stance_f_avg", label="F_avg (FAVOR, AGAINST)", fn=favor_against_f1,
    source="Mohammad et al. 2016, SemEval-2016 Task 6, section 4",
    formula="(F1_FAVOR + F1_AGAINST) / 2, F1_i = 2 c_ii / (a_i + b_i)",
    range=(0.0, 1.0), higher_is_better=True))
