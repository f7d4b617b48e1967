"""The tabular linear model (workers/tabular/linear.py): ridge and multinomial logistic regression
whose regularisation is chosen by cross-validation on the rows given, exported to the tabular ONNX
contract; on scikit-learn's offline wine and diabetes data."""

from __future__ import annotations

import numpy as np
import onnx
import onnxruntime
import pytest
from sklearn.datasets import load_diabetes, load_wine
from sklearn.model_selection import KFold, StratifiedKFold

from workers.shared.onnx_model import check_onnx_self_contained
from workers.tabular.linear import (
    LOGISTIC_CS,
    RIDGE_ALPHAS,
    LinearDataError,
    fit_linear,
    linear_to_onnx,
    load_linear,
)


def standardised(x: np.ndarray) -> np.ndarray:
    """What workers.tabular.encoding does to numeric columns."""
    return ((x - x.mean(axis=0)) / x.std(axis=0)).astype(np.float32)


def onnx_output(path, x: np.ndarray) -> np.ndarray:
    session = onnxruntime.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    return session.run(None, {"features": x.astype(np.float32)})[0]


def test_ridge_explains_diabetes_out_of_fold_and_its_onnx_gives_the_same_values(tmp_path):
    x, y = load_diabetes(return_X_y=True)
    x = standardised(x)
    r2 = []
    for train, test in KFold(5, shuffle=True, random_state=0).split(x):
        model = fit_linear(x[train], y[train], regression=True, seed=0)
        residual = model.predict(x[test]) - y[test]
        r2.append(1 - np.mean(residual**2) / np.var(y[test]))
    assert np.mean(r2) > 0.4, r2
    assert model.regression and model.classes == 0 and model.strength in RIDGE_ALPHAS
    assert "leave-one-out" in model.selection

    path = tmp_path / "ridge.onnx"
    linear_to_onnx(model, path, width=x.shape[1], output="value")
    check_onnx_self_contained(path)
    proto = onnx.load(str(path))
    onnx.checker.check_model(proto, full_check=True)
    assert [o.name for o in proto.graph.output] == ["value"]
    rng = np.random.default_rng(1)
    for rows in (1, 257):
        batch = rng.normal(size=(rows, x.shape[1])).astype(np.float32)
        values = onnx_output(path, batch)
        assert values.shape == (rows, 1) and values.dtype == np.float32
        np.testing.assert_allclose(values[:, 0], model.predict(batch), rtol=1e-5, atol=1e-3)


def test_logistic_regression_classifies_held_out_wine_with_probabilities_like_its_onnx(tmp_path):
    x, y = load_wine(return_X_y=True)
    x = standardised(x)
    train, test = next(StratifiedKFold(4, shuffle=True, random_state=0).split(x, y))
    model = fit_linear(x[train], y[train], regression=False, seed=0, classes=3)
    probabilities = model.predict(x[test])
    assert probabilities.shape == (len(test), 3)
    np.testing.assert_allclose(probabilities.sum(axis=1), 1.0, atol=1e-9)
    assert np.mean(probabilities.argmax(axis=1) == y[test]) >= 0.93
    assert model.strength in LOGISTIC_CS and "5-fold log loss" in model.selection

    path = tmp_path / "logistic.onnx"
    linear_to_onnx(model, path, width=x.shape[1], output="probabilities")
    onnx.checker.check_model(onnx.load(str(path)), full_check=True)
    for rows in (1, 257):
        batch = np.random.default_rng(rows).normal(size=(rows, x.shape[1])).astype(np.float32)
        got = onnx_output(path, batch)
        assert got.shape == (rows, 3)
        np.testing.assert_allclose(got, model.predict(batch), atol=1e-5)

    saved = tmp_path / "model.linear.json"
    model.save(saved)
    np.testing.assert_array_equal(load_linear(saved).predict(x[test]), probabilities)


def test_the_cross_validation_regularises_noise_more_than_signal():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(120, 30))
    signal = x @ rng.normal(size=30) + 0.1 * rng.normal(size=120)
    noise = rng.normal(size=120)
    clean, random = (fit_linear(x, t, regression=True, seed=0).strength for t in (signal, noise))
    assert clean <= 0.1 and random >= 100 * clean, (clean, random)

    labels = (x[:, 0] > 0).astype(int)
    coin = rng.integers(0, 2, size=120)
    separable, guess = (fit_linear(x, t, regression=False, seed=0).strength for t in (labels, coin))
    assert guess < separable, (separable, guess)


def test_binary_and_absent_classes_keep_one_column_per_class():
    x, y = load_wine(return_X_y=True)
    x = standardised(x)
    two = y < 2
    binary = fit_linear(x[two], y[two], regression=False, seed=0)
    assert binary.predict(x[two]).shape == (int(two.sum()), 2)
    assert np.mean(binary.predict(x[two]).argmax(axis=1) == y[two]) > 0.95

    # A cross-validation fold may lack a class: the model still answers [n, 3], that class ~0.
    model = fit_linear(x[two], y[two], regression=False, seed=0, classes=3)
    probabilities = model.predict(x)
    assert probabilities.shape == (len(x), 3) and probabilities[:, 2].max() < 1e-6
    np.testing.assert_allclose(probabilities[:, :2], binary.predict(x), atol=1e-6)

    # One row of a class: too few to stratify folds, the default regularisation is said.
    few = np.concatenate(
        [np.flatnonzero(y == 0)[:10], np.flatnonzero(y == 1)[:10], np.flatnonzero(y == 2)[:1]]
    )
    single = fit_linear(x[few], y[few], regression=False, seed=0)
    assert single.strength == 1.0 and "one row" in single.selection


@pytest.mark.parametrize(
    ("x", "y", "options", "message"),
    [
        (np.array([[1.0, np.nan], [0.0, 1.0]]), np.array([0, 1]), {}, "NaN or infinite"),
        (np.ones(4), np.array([0, 1, 0, 1]), {}, "2-D matrix"),
        (np.eye(3), np.array([0, 1]), {}, "one entry per row"),
        (np.eye(3), np.array([1, 1, 1]), {}, "at least 2 classes"),
        (np.eye(3), np.array([0, 1, 2]), {"classes": 2}, "out of range for 2 classes"),
        (np.eye(3), np.array([0, -1, 1]), {}, "indices 0..classes-1"),
        (np.eye(3), np.array([0.5, 1.0, 2.0]), {}, "integer indices"),
        (np.eye(3), np.array([2.0, 2.0, 2.0]), {"regression": True}, "same value in every row"),
        (np.eye(1), np.array([1.0]), {"regression": True}, "at least 2 rows"),
    ],
)
def test_bad_rows_are_refused_by_name(x, y, options, message):
    with pytest.raises(LinearDataError, match=message):
        fit_linear(x, y, regression=options.pop("regression", False), seed=0, **options)


def test_the_export_refuses_a_width_or_output_that_does_not_fit(tmp_path):
    x, y = load_diabetes(return_X_y=True)
    model = fit_linear(standardised(x), y, regression=True, seed=0)
    with pytest.raises(LinearDataError, match="width 9 does not match the model's 10"):
        linear_to_onnx(model, tmp_path / "m.onnx", width=9, output="value")
    with pytest.raises(LinearDataError, match="output is 'value', not 'probabilities'"):
        linear_to_onnx(model, tmp_path / "m.onnx", width=10, output="probabilities")
    with pytest.raises(LinearDataError, match="width 3, the model expects 10"):
        model.predict(np.zeros((2, 3)))
    assert not (tmp_path / "m.onnx").exists()
