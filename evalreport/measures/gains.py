"""Gain-matrix measures: each (gold, predicted) cell earns a gain G_ij (``--gains FILE``).

G is a (K, K) matrix of finite numbers, rows = gold, in the class order of the task (read by
:func:`evalreport.inputs.costs.read_gains`); it reaches the measure function bound to the record
(:func:`evalreport.measures.subsets.bind`, ``Context.gains``). Three measures:

``gain_total``     sum_ij c_ij G_ij, the raw total gain;
``gain_mean``      the total per item, sum_ij c_ij G_ij / N;
``gain_relative``  the total over the best attainable total sum_i a_i max_j G_ij (every item given
                   its row's best gain): the relative score of the Fake News Challenge FNC-1
                   (Pomerleau & Rao 2017, whose scorer divides a submission's score by the score of
                   the gold labels themselves; with G_ii = max_j G_ij the two denominators agree).

The papers of this repository define no gain measures; the FNC-1 gain matrix (0.25 for telling
related from unrelated, 0.75 more for the right related class) is one instance, tested in
tests/test_official_measures.py.
"""
from __future__ import annotations

import math

import numpy as np

from evalreport.measures._core import Measure, register

FNC1 = "Pomerleau & Rao 2017, Fake News Challenge FNC-1 scorer"

_COMMON = dict(kind="multiclass", needs=("gains",), chance=None,
               chance_note="depends on the gain matrix; see the chance baselines of a comparison")


def _total(C, ctx):
    return (C * ctx.gains).sum(axis=(-2, -1))


def _reg(id, label, fn, **meta):
    register(Measure(id=id, label=label, fn=fn, **_COMMON, **meta))


_reg("gain_total", "Total gain", _total, source=FNC1 + " (the unnormalised score)",
     formula="sum_ij c_ij G_ij", range=(-math.inf, math.inf), undefined="never",
     notes="Grows with the number of items: compare systems on one test set only.")


def _mean(C, ctx):
    return ctx.div(_total(C, ctx), C.sum(axis=(-2, -1)), "empty confusion matrix (N = 0)")


_reg("gain_mean", "Mean gain per item", _mean, source=FNC1 + " (the score per item)",
     formula="sum_ij c_ij G_ij / N", range=(-math.inf, math.inf), undefined="N = 0")


def _relative(C, ctx):
    best = (C.sum(axis=-1) * ctx.gains.max(axis=-1)).sum(axis=-1)     # sum_i a_i max_j G_ij
    return ctx.div(_total(C, ctx), np.where(best > 0, best, 0.0),
                   "relative gain: the best attainable total gain sum_i a_i max_j G_ij is not > 0")


_reg("gain_relative", "Relative gain (share of the best attainable; FNC-1 relative score)", _relative,
     source=FNC1 + " (relative score: the score over the score of the gold labels)",
     formula="sum_ij c_ij G_ij / sum_i a_i max_j G_ij", range=(-math.inf, 1.0),
     undefined="the best attainable total sum_i a_i max_j G_ij is <= 0 (e.g. N = 0, or no positive gain "
               "in the rows of the gold classes present)",
     notes="1 for a system that earns every item its row's best gain; below 0 only with negative gains.")
