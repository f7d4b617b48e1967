"""The tabular classification and regression templates' declarations (no torch, no LightGBM here:
the web process imports them)."""

from __future__ import annotations

from workers.templates.declaration import DataRequirements, Param, Preset, SearchDimension, TaskTemplate

MODELS = ("gbdt", "mlp")

PARAMS = (
    Param(
        "model",
        "choice",
        "Model",
        "gbdt",
        choices=MODELS,
        help="gbdt: gradient-boosted trees (LightGBM); mlp: a multi-layer perceptron in torch.",
    ),
    Param("n_estimators", "int", "Trees", 300, low=10, high=5000, help="gbdt: boosting rounds."),
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
        help="gbdt: fewest training rows a leaf may hold (larger: smoother, less overfitting).",
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
    Param("epochs", "int", "Epochs", 100, low=1, high=2000, help="mlp: passes over the training split."),
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
        "100 gradient-boosted trees: seconds on a CPU.",
        {"model": "gbdt", "n_estimators": 100, "learning_rate": 0.1, "num_leaves": 15},
    ),
    Preset(
        "balanced",
        "Balanced",
        "400 gradient-boosted trees at a lower learning rate.",
        {"model": "gbdt", "n_estimators": 400, "learning_rate": 0.05, "num_leaves": 31},
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
    )


CLASSIFICATION = _template(
    "tabular_classification",
    "Tabular classification",
    "Predict a class from a table row's columns. Gradient-boosted trees (LightGBM) or an MLP; serves with "
    "ONNX Runtime.",
    regression=False,
)
REGRESSION = _template(
    "tabular_regression",
    "Tabular regression",
    "Predict a number from a table row's columns. Gradient-boosted trees (LightGBM) or an MLP; serves with "
    "ONNX Runtime.",
    regression=True,
)
