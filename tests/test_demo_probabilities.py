"""The demo's runs all forecast probabilities: the linear SVM's decision values are turned into
probabilities by temperature scaling (Guo et al. 2017), which keeps its predicted labels, so a
user's first report computes the Brier score, log loss and calibration errors for every system
and says nothing of scores that are not probabilities."""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from evalreport import examples
from evalreport.cli import main


def test_every_demo_run_scores_are_probabilities():
    demo = examples.demo_data()
    for name, run in demo.runs.items():
        p = run[[f"score_{c}" for c in demo.labels]].to_numpy()
        assert (p >= 0).all() and (p <= 1).all(), name
        np.testing.assert_allclose(p.sum(axis=1), 1, atol=1e-9, err_msg=name)


def test_temperature_scaling_keeps_the_models_own_predictions():
    """One T > 0 divides every decision value: each item's top class is the model's own, so the
    demo's confusion-matrix numbers are those of the SVM's decision values."""
    from sklearn.datasets import make_classification
    from sklearn.model_selection import PredefinedSplit, cross_val_predict

    X, y = make_classification(n_samples=300, n_features=8, n_informative=5, n_classes=4, random_state=3)
    folds = np.arange(len(y)) % 5
    model = examples._systems(0, multiclass=True)["linear_svm"]
    p = examples._temperature_scaled(model, X, y, folds)
    own = cross_val_predict(model, X, y, cv=PredefinedSplit(folds), method="decision_function")
    assert (p.argmax(axis=1) == own.argmax(axis=1)).all()
    np.testing.assert_allclose(p.sum(axis=1), 1, atol=1e-12)


@pytest.mark.parametrize("temperature", [0.5, 2.0])
def test_the_fitted_temperature_is_the_one_the_labels_were_drawn_with(temperature):
    """Labels drawn from softmax(z / T): the log-loss fit finds T (seeded; 20,000 items)."""
    rng = np.random.default_rng(7)
    z = rng.normal(scale=3.0, size=(20_000, 4))
    p = examples._softmax(z / temperature)
    y = (p.cumsum(axis=1) < rng.random((len(z), 1))).sum(axis=1)
    assert examples._fit_temperature(z, y) == pytest.approx(temperature, rel=0.05)


def test_the_demo_report_has_calibration_measures_for_every_system_and_no_warning(tmp_path):
    out = tmp_path / "demo"
    assert main(["demo", "-o", str(out), "--formats", "html", "--bootstrap", "0", "--no-audit", "--quiet"]) == 0
    notes = json.loads((out / "tables" / "manifest.json").read_text(encoding="utf-8"))["notes"]
    assert not any("not probabilities" in n or "not a probability" in n for n in notes)
    scores = pd.read_csv(out / "tables" / "scores.csv")
    scores = scores[~scores["calibrated"]]
    wide = scores.pivot(index="system", columns="measure", values="value")
    for measure in ("brier", "log_loss", "ece"):
        assert wide[measure].notna().all(), measure
    # the temperature-scaled SVM is about as well calibrated as the logistic regressions (ECE < 0.1)
    assert wide.loc["linear_svm", "ece"] < 0.1
