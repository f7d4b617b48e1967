"""The linear tabular model: ridge regression or multinomial logistic regression on the encoded
feature matrix (``workers.tabular.encoding``: numeric and date columns standardised, categories
one-hot), its regularisation chosen by cross-validation on the rows it is given, and its export to
the tabular ONNX contract (input ``features`` float32 [batch, width]; output ``probabilities``
[batch, classes] or ``value`` [batch, 1]).

A member of the tabular ensemble (``workers.tabular.ensemble``) and a model of its own: on small
or nearly linear data it is often as good as trees or a network, and it is the cheapest to run.
NumPy and scikit-learn for fitting, ``onnx.helper`` for the export (no torch).
"""

from __future__ import annotations

import json
import os
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import numpy as np

ONNX_OPSET = 18  # the torch MLP's opset: members of an ensemble then need no conversion
ONNX_IR_VERSION = 10
# The grids the internal cross-validation chooses from (features are standardised or one-hot).
RIDGE_ALPHAS = tuple(float(a) for a in np.logspace(-3, 4, 15))
LOGISTIC_CS = tuple(float(c) for c in np.logspace(-3, 2, 6))
MAX_FOLDS = 5
# Logit given to a class absent from the rows fitted on, below the lowest learned one: the model
# never predicts it but still has a column for it, so [n, classes] lines up with the other members.
ABSENT_CLASS_MARGIN = 20.0


class LinearDataError(ValueError):
    """The rows cannot be fitted; the message says why."""


@dataclass(frozen=True)
class LinearModel:
    """``features @ coef + intercept``; softmax of it for classification.

    ``coef`` is [width, outputs] (outputs: classes, or 1 for regression), ``intercept`` [outputs];
    ``strength`` is the regularisation the cross-validation chose (ridge alpha, or logistic C) and
    ``selection`` says how it was chosen.
    """

    coef: np.ndarray
    intercept: np.ndarray
    regression: bool
    strength: float
    selection: str

    @property
    def width(self) -> int:
        return int(self.coef.shape[0])

    @property
    def classes(self) -> int:
        return 0 if self.regression else int(self.coef.shape[1])

    def decision(self, x: np.ndarray) -> np.ndarray:
        x = _matrix(x, self.width)
        return np.asarray(x @ self.coef + self.intercept, dtype=np.float64)

    def predict(self, x: np.ndarray) -> np.ndarray:
        """Probabilities [n, classes] (classification) or values [n] (regression)."""
        scores = self.decision(x)
        if self.regression:
            return np.asarray(scores[:, 0])
        scores -= scores.max(axis=1, keepdims=True)
        exp = np.exp(scores)
        return np.asarray(exp / exp.sum(axis=1, keepdims=True))

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the model as JSON (the trainer's ``model`` file)."""
        payload = {
            "kind": "linear",
            "regression": self.regression,
            "strength": self.strength,
            "selection": self.selection,
            "coef": self.coef.tolist(),
            "intercept": self.intercept.tolist(),
        }
        Path(path).write_text(json.dumps(payload))


def load_linear(path: str | os.PathLike[str]) -> LinearModel:
    """Read a model written by :meth:`LinearModel.save`."""
    payload = json.loads(Path(path).read_text())
    if payload.get("kind") != "linear":
        raise LinearDataError(f"{os.fspath(path)} is not a saved linear model")
    return LinearModel(
        coef=np.asarray(payload["coef"], dtype=np.float64),
        intercept=np.asarray(payload["intercept"], dtype=np.float64),
        regression=bool(payload["regression"]),
        strength=float(payload["strength"]),
        selection=str(payload["selection"]),
    )


def _matrix(x: np.ndarray, width: int | None = None) -> np.ndarray:
    x = np.asarray(x, dtype=np.float64)
    if x.ndim != 2:
        raise LinearDataError(f"features must be a 2-D matrix [rows, width], got shape {x.shape}")
    if width is not None and x.shape[1] != width:
        raise LinearDataError(f"features have width {x.shape[1]}, the model expects {width}")
    if not np.isfinite(x).all():
        raise LinearDataError("features hold NaN or infinite values (encode the rows first)")
    return x


def fit_linear(
    x: np.ndarray,
    y: np.ndarray,
    *,
    regression: bool,
    seed: int,
    classes: int | None = None,
) -> LinearModel:
    """Fit ridge (``regression``) or multinomial logistic regression on the encoded rows ``x``.

    The regularisation is chosen by cross-validation on these rows only: ridge by efficient
    leave-one-out over :data:`RIDGE_ALPHAS`, logistic regression by stratified k-fold (k <= 5,
    seeded) log loss over :data:`LOGISTIC_CS`. ``y``: values, or class indices 0..classes-1
    (``classes`` defaults to max(y) + 1; a class absent from ``y`` gets a column that is never
    predicted). Example::

        model = fit_linear(x_train, y_train, regression=False, seed=0, classes=3)
        probabilities = model.predict(x_val)  # [n, 3]
    """
    x = _matrix(x)
    y = np.asarray(y)
    if y.ndim != 1 or len(y) != len(x):
        raise LinearDataError(f"y must be 1-D with one entry per row ({len(x)}), got shape {y.shape}")
    if len(x) < 2:
        raise LinearDataError(f"a linear model needs at least 2 rows, got {len(x)}")
    from threadpoolctl import threadpool_limits  # type: ignore[import-untyped]

    # These matrices are small: BLAS threads only contend with the worker's other processes (a
    # loaded 2-core machine took 8 s instead of 0.2 s for one logistic fit of digits with them).
    with threadpool_limits(limits=1):
        if regression:
            return _fit_ridge(x, y.astype(np.float64))
        return _fit_logistic(x, y, seed=seed, classes=classes)


def _fit_ridge(x: np.ndarray, y: np.ndarray) -> LinearModel:
    from sklearn.linear_model import RidgeCV  # type: ignore[import-untyped]

    if not np.isfinite(y).all():
        raise LinearDataError("the target holds NaN or infinite values")
    if np.ptp(y) == 0:
        raise LinearDataError("the target has the same value in every row")
    model = RidgeCV(alphas=RIDGE_ALPHAS).fit(x, y)
    return LinearModel(
        coef=np.asarray(model.coef_, dtype=np.float64).reshape(-1, 1),
        intercept=np.asarray([model.intercept_], dtype=np.float64),
        regression=True,
        strength=float(model.alpha_),
        selection=f"ridge alpha by leave-one-out over {len(RIDGE_ALPHAS)} values",
    )


def _fit_logistic(x: np.ndarray, y: np.ndarray, *, seed: int, classes: int | None) -> LinearModel:
    from sklearn.linear_model import LogisticRegression, LogisticRegressionCV
    from sklearn.model_selection import StratifiedKFold  # type: ignore[import-untyped]

    if not np.issubdtype(y.dtype, np.integer):
        if not np.all(np.equal(np.mod(y, 1), 0)):
            raise LinearDataError("class labels must be integer indices 0..classes-1")
        y = y.astype(np.int64)
    if y.min() < 0:
        raise LinearDataError(f"class labels must be indices 0..classes-1, got {int(y.min())}")
    total = int(y.max()) + 1 if classes is None else classes
    if y.max() >= total:
        raise LinearDataError(f"class label {int(y.max())} is out of range for {total} classes")
    present, counts = np.unique(y, return_counts=True)
    if len(present) < 2:
        raise LinearDataError("classification needs at least 2 classes in the rows, got 1")
    folds = min(MAX_FOLDS, int(counts.min()))
    with warnings.catch_warnings():
        # lbfgs may stop at max_iter on a weakly regularised grid point; the chosen C still stands.
        warnings.simplefilter("ignore")
        if folds >= 2:
            search = LogisticRegressionCV(
                Cs=list(LOGISTIC_CS),
                l1_ratios=(0.0,),
                cv=StratifiedKFold(folds, shuffle=True, random_state=seed),
                scoring="neg_log_loss",
                max_iter=500,
                random_state=seed,
                use_legacy_attributes=False,
            ).fit(x, y)
            coef, intercept = search.coef_, search.intercept_
            strength = float(np.ravel(search.C_)[0])
            selection = f"logistic C by {folds}-fold log loss over {len(LOGISTIC_CS)} values"
        else:
            # A class with a single row: no stratified fold can hold it out; keep the default C.
            fitted = LogisticRegression(C=1.0, max_iter=500, random_state=seed).fit(x, y)
            coef, intercept = fitted.coef_, fitted.intercept_
            strength, selection = 1.0, "logistic C = 1 (a class has one row: too few to cross-validate)"
    coef = np.asarray(coef, dtype=np.float64)
    intercept = np.asarray(intercept, dtype=np.float64).ravel()
    if len(present) == 2 and coef.shape[0] == 1:
        # Binary: one logit z for the second class; softmax([0, z]) is the sigmoid scikit-learn uses.
        coef = np.vstack([np.zeros_like(coef), coef])
        intercept = np.asarray([0.0, intercept[0]])
    full_coef = np.zeros((x.shape[1], total))
    full_intercept = np.full(total, float(intercept.min()) - ABSENT_CLASS_MARGIN)
    full_coef[:, present] = coef.T
    full_intercept[present] = intercept
    return LinearModel(
        coef=full_coef,
        intercept=full_intercept,
        regression=False,
        strength=strength,
        selection=selection,
    )


def linear_to_onnx(
    model: LinearModel,
    path: str | os.PathLike[str],
    *,
    width: int,
    output: Literal["probabilities", "value"],
) -> None:
    """Export ``model`` to a self-contained ONNX file: ``features`` float32 [batch, width] ->
    ``output`` (``probabilities`` [batch, classes] through Softmax, or ``value`` [batch, 1])."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    if width != model.width:
        raise LinearDataError(f"width {width} does not match the model's {model.width} features")
    expected = "value" if model.regression else "probabilities"
    if output != expected:
        raise LinearDataError(
            f"a {'regression' if model.regression else 'classification'} model's output is "
            f"{expected!r}, not {output!r}"
        )
    outputs = model.coef.shape[1]
    initializers = [
        numpy_helper.from_array(model.coef.astype(np.float32), "linear_coef"),
        numpy_helper.from_array(model.intercept.astype(np.float32), "linear_intercept"),
    ]
    nodes = [
        helper.make_node("MatMul", ["features", "linear_coef"], ["linear_product"], name="linear_matmul"),
        helper.make_node(
            "Add",
            ["linear_product", "linear_intercept"],
            ["value" if model.regression else "linear_logits"],
            name="linear_add",
        ),
    ]
    if not model.regression:
        nodes.append(
            helper.make_node("Softmax", ["linear_logits"], ["probabilities"], axis=1, name="linear_softmax")
        )
    graph = helper.make_graph(
        nodes,
        "sampan_tabular_linear",
        [helper.make_tensor_value_info("features", TensorProto.FLOAT, ["batch", width])],
        [helper.make_tensor_value_info(output, TensorProto.FLOAT, ["batch", outputs])],
        initializer=initializers,
    )
    proto = helper.make_model(
        graph,
        opset_imports=[helper.make_opsetid("", ONNX_OPSET)],
        ir_version=ONNX_IR_VERSION,
        producer_name="sampan",
    )
    onnx.checker.check_model(proto, full_check=True)
    temp = Path(path).with_name(f".tmp-{Path(path).name}.{os.getpid()}")
    onnx.save(proto, str(temp))
    os.replace(temp, path)
