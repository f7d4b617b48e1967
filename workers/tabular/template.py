"""The tabular classification and regression templates' declarations (no torch, no LightGBM here:
the web process imports them), and their data-aware defaults (:func:`adapt`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from workers.contracts.templates import DataProfile, HardwareProfile, ParamValue
from workers.templates.declaration import (
    DataRequirements,
    Param,
    Preset,
    Reason,
    SearchDimension,
    TaskTemplate,
    validation_params,
)

MODELS = ("gbdt", "mlp", "linear", "ensemble")
ENSEMBLE_MEMBERS = ("gbdt+linear", "gbdt+linear+mlp")
# below this many rows (train + val) validation "auto" cross-validates
CROSS_VALIDATION_ROWS = 5000

PARAMS = (
    Param(
        "model",
        "choice",
        "Model",
        "gbdt",
        choices=MODELS,
        help=(
            "gbdt: gradient-boosted trees (LightGBM); mlp: a multi-layer perceptron in torch; linear: "
            "ridge or logistic regression, its regularisation chosen by cross-validation; ensemble: "
            "the members below, weighted by their out-of-fold (or validation) predictions, served as "
            "one ONNX graph."
        ),
    ),
    Param(
        "ensemble_members",
        "choice",
        "Ensemble members",
        "gbdt+linear",
        choices=ENSEMBLE_MEMBERS,
        help=(
            "ensemble: the models the weights are fitted over (a member the weights do not need is left out)."
        ),
    ),
    Param(
        "bagging",
        "bool",
        "Bag the fold models",
        False,
        help=(
            "ensemble with cross-validation: LightGBM serves as the average of its k fold models instead "
            "of one model refitted on every row (steadier, k times the trees)."
        ),
    ),
    *validation_params(threshold=CROSS_VALIDATION_ROWS, unit="rows"),
    Param(
        "n_estimators",
        "int",
        "Trees (at most)",
        1000,
        low=10,
        high=5000,
        help="gbdt: the most boosting rounds; early stopping on the folds (or the val split) picks how many.",
    ),
    Param(
        "learning_rate",
        "float",
        "Learning rate",
        0.05,
        low=1e-5,
        high=1.0,
        log=True,
        help="gbdt: shrinkage per tree; mlp: peak learning rate of AdamW.",
    ),
    Param("num_leaves", "int", "Leaves per tree", 31, low=4, high=1024, help="gbdt: the trees' size."),
    Param(
        "min_child_samples",
        "int",
        "Rows per leaf",
        10,
        low=1,
        high=500,
        help=(
            "gbdt: fewest training rows a leaf may hold (larger: smoother, less overfitting); "
            "fitted to the rows unless you set it."
        ),
    ),
    Param(
        "hidden_size",
        "int",
        "Hidden units",
        128,
        low=8,
        high=2048,
        help="mlp: width of the two hidden layers.",
    ),
    Param(
        "epochs",
        "int",
        "Epochs (at most)",
        100,
        low=1,
        high=2000,
        help="mlp: passes over the training rows; the folds (or the val split) pick the best epoch.",
    ),
    Param("batch_size", "int", "Batch size", 64, low=4, high=8192, help="mlp: rows per optimizer step."),
    Param(
        "dropout", "float", "Dropout", 0.1, low=0.0, high=0.8, help="mlp: dropout after each hidden layer."
    ),
    Param(
        "weight_decay", "float", "Weight decay", 1e-4, low=0.0, high=1.0, help="mlp: AdamW's weight decay."
    ),
    Param("seed", "int", "Random seed", 0, low=0, high=2**31 - 1),
)

PRESETS = (
    Preset(
        "fast",
        "Fast",
        "At most 100 gradient-boosted trees stopped on the val split: no cross-validation and no linear "
        "model, so a few seconds on a CPU (several times quicker than balanced) for a little accuracy: "
        "measured, as good on wine, 1-2 points lower on iris and breast cancer, R² 0.44 against 0.52 on "
        "diabetes.",
        {
            "model": "gbdt",
            "n_estimators": 100,
            "learning_rate": 0.1,
            "num_leaves": 15,
            "validation": "holdout",
        },
    ),
    Preset(
        "balanced",
        "Balanced",
        "Gradient-boosted trees and a linear model, stopped and weighted by 5-fold cross-validation "
        "below 5,000 rows (by the val split above): the linear model carries small or smooth data.",
        {
            "model": "ensemble",
            "ensemble_members": "gbdt+linear",
            "n_estimators": 1000,
            "learning_rate": 0.05,
            "num_leaves": 31,
        },
    ),
    Preset(
        "accurate",
        "Accurate",
        "An ensemble of bagged gradient-boosted trees (the fold models), an MLP and a linear model, "
        "weighted by their out-of-fold predictions and served as one ONNX graph: several times "
        "balanced's training time.",
        {
            "model": "ensemble",
            "ensemble_members": "gbdt+linear+mlp",
            "bagging": True,
            "n_estimators": 2000,
            "learning_rate": 0.03,
            "num_leaves": 31,
            "hidden_size": 128,
            "epochs": 100,
            "dropout": 0.1,
        },
    ),
    Preset(
        "neural",
        "Neural network",
        "A two-layer MLP in torch on standardised, one-hot encoded features.",
        {"model": "mlp", "learning_rate": 3e-3, "epochs": 150, "hidden_size": 128, "dropout": 0.1},
    ),
)

SEARCH_SPACE = (
    SearchDimension("n_estimators", "int", low=50, high=800, log=True),
    SearchDimension("learning_rate", "float", low=0.01, high=0.3, log=True),
    SearchDimension("num_leaves", "int", low=8, high=128, log=True),
    SearchDimension("min_child_samples", "int", low=2, high=50, log=True),
)


def _uses(values: Mapping[str, Any], member: str) -> bool:
    model = values.get("model")
    if model == "ensemble":
        return member in str(values.get("ensemble_members", "")).split("+")
    return bool(model == member)


def _adapt(
    values: Mapping[str, Any], data: DataProfile, hardware: HardwareProfile, *, regression: bool
) -> dict[str, tuple[ParamValue, str | Reason]]:
    """Data-aware defaults: LightGBM's leaf size and tree size, the MLP's batch size and epochs, and
    the folds, from the number of training rows (LightGBM and the MLP train on CPUs; GPUs do not
    change them)."""
    rows = int(data["train_samples"])
    changes: dict[str, tuple[ParamValue, str | Reason]] = {}
    if _uses(values, "gbdt"):
        # a leaf must hold enough rows to average out noise: regression targets need more than labels
        leaf = max(5, min(100, rows // 12)) if regression else max(3, min(50, rows // 40))
        if leaf != values["min_child_samples"]:
            kind = "a regression target's noise" if regression else "noisy labels"
            changes["min_child_samples"] = (
                leaf,
                Reason(
                    "rows_leaf_size_regression" if regression else "rows_leaf_size",
                    f"{rows:,} training rows: leaves of at least {leaf} rows, so trees do not fit {kind}",
                    {"count": rows, "leaf": leaf},
                ),
            )
        if rows < 1000 and values["num_leaves"] > 15:
            changes["num_leaves"] = (
                15,
                Reason(
                    "rows_smaller_trees",
                    f"{rows:,} training rows: smaller trees (15 leaves) generalise better",
                    {"count": rows},
                ),
            )
    if _uses(values, "mlp"):
        batch = 32 if rows < 1000 else 64 if rows < 20_000 else 256 if rows < 200_000 else 1024
        if batch != values["batch_size"]:
            changes["batch_size"] = (
                batch,
                Reason(
                    "rows_batch",
                    f"{rows:,} training rows: batches of {batch} rows",
                    {"count": rows, "batch": batch},
                ),
            )
        if rows >= 100_000 and values["epochs"] > 30:
            changes["epochs"] = (
                30,
                Reason("rows_fewer_epochs", f"{rows:,} training rows: 30 passes are plenty", {"count": rows}),
            )
    if values.get("validation") != "holdout" and 2000 <= rows < CROSS_VALIDATION_ROWS and values["folds"] > 3:
        changes["folds"] = (
            3,
            Reason(
                "rows_fewer_folds",
                f"{rows:,} training rows: 3 folds hold enough rows each and cost less",
                {"count": rows},
            ),
        )
    return changes


def adapt_classification(
    values: Mapping[str, Any], data: DataProfile, hardware: HardwareProfile
) -> dict[str, tuple[ParamValue, str | Reason]]:
    return _adapt(values, data, hardware, regression=False)


def adapt_regression(
    values: Mapping[str, Any], data: DataProfile, hardware: HardwareProfile
) -> dict[str, tuple[ParamValue, str | Reason]]:
    return _adapt(values, data, hardware, regression=True)


def _template(name: str, title: str, description: str, regression: bool) -> TaskTemplate:
    return TaskTemplate(
        name=name,
        title=title,
        description=description,
        data_kind="tabular",
        label_kind="numeric_target" if regression else "single_label",
        params=PARAMS,
        presets=PRESETS,
        default_preset="balanced",
        search_space=SEARCH_SPACE,
        objective={"metric": "val_rmse", "direction": "minimize"}
        if regression
        else {"metric": "val_acc", "direction": "maximize"},
        metrics=("val_rmse", "val_mae", "val_r2") if regression else ("val_loss", "val_acc"),
        data=DataRequirements(
            min_classes=0 if regression else 2,
            min_samples_per_class=1 if regression else 2,
            required_splits=("train",),
        ),
        train="workers.tabular.trainer:train",
        evaluate="workers.tabular.evaluation:evaluate",
        export="workers.tabular.trainer:export_onnx",
        check_data="workers.tabular.trainer:check_manifest",
        adapt=adapt_regression if regression else adapt_classification,
    )


CLASSIFICATION = _template(
    "tabular_classification",
    "Tabular classification",
    "Predict a class from a table row's columns. Gradient-boosted trees (LightGBM), an MLP, a linear model "
    "or an ensemble of them, cross-validated on small data; serves with ONNX Runtime.",
    regression=False,
)
REGRESSION = _template(
    "tabular_regression",
    "Tabular regression",
    "Predict a number from a table row's columns. Gradient-boosted trees (LightGBM), an MLP, a linear model "
    "or an ensemble of them, cross-validated on small data; serves with ONNX Runtime.",
    regression=True,
)
