"""The time-series forecasting template's declaration (no torch, no LightGBM, no statsmodels here:
the web process imports it). The contracts: ``workers.contracts.forecasting``."""

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
)

MODELS = ("auto", "lightgbm", "neural", "ets", "arima", "theta", "seasonal_naive", "naive")

PARAMS = (
    Param(
        "model",
        "choice",
        "Model",
        "auto",
        choices=MODELS,
        help="auto: every candidate is fitted and scored on the backtest windows, the best is kept (or the "
        "candidates are ensembled); or one model: lightgbm (a global gradient-boosted model on lags, "
        "rolling means and calendar features), neural (a small network trained across series), ets, "
        "arima, theta (statistical, per series), seasonal_naive, naive.",
    ),
    Param(
        "ensemble",
        "bool",
        "Ensemble",
        False,
        help="auto: combine the candidates with weights chosen on the backtest windows instead of keeping "
        "the best one.",
    ),
    Param(
        "neural",
        "bool",
        "Try the neural network",
        False,
        help="auto: also fit the neural network as a candidate (slower).",
    ),
    Param(
        "backtest_windows",
        "int",
        "Backtest windows",
        2,
        low=1,
        high=10,
        help="Rolling-origin validation windows of one horizon each, ending where the test window "
        "starts. When they would hold fewer than 100 points (one short series), at least 4 are scored.",
    ),
    Param(
        "context_length",
        "int",
        "Context length",
        0,
        low=0,
        high=2048,
        help="History points the learned models read; 0: chosen from the season length and the horizon.",
    ),
    Param(
        "strategy",
        "choice",
        "Multi-step strategy",
        "direct",
        choices=("direct", "recursive"),
        help="lightgbm: direct (the horizon step is a feature, every step forecast at once) or recursive "
        "(one step at a time, each forecast fed back as history).",
    ),
    Param("n_estimators", "int", "Trees", 300, low=10, high=5000, help="lightgbm: boosting rounds."),
    Param(
        "learning_rate",
        "float",
        "Learning rate",
        0.05,
        low=1e-5,
        high=1.0,
        log=True,
        help="lightgbm: shrinkage per tree; neural: peak learning rate of AdamW.",
    ),
    Param("num_leaves", "int", "Leaves per tree", 31, low=4, high=1024, help="lightgbm: the trees' size."),
    Param(
        "min_child_samples",
        "int",
        "Rows per leaf",
        20,
        low=1,
        high=500,
        help="lightgbm: fewest training rows a leaf may hold.",
    ),
    Param("hidden_size", "int", "Hidden units", 128, low=8, high=2048, help="neural: width of the layers."),
    Param("epochs", "int", "Epochs", 60, low=1, high=2000, help="neural: passes over the training windows."),
    Param(
        "interval_level",
        "float",
        "Interval level",
        0.8,
        low=0.5,
        high=0.99,
        help="The prediction interval's nominal coverage (0.8: the 10% and 90% quantiles).",
    ),
    Param("seed", "int", "Random seed", 0, low=0, high=2**31 - 1),
)

PRESETS = (
    Preset(
        "fast",
        "Fast",
        "Seasonal naive, ETS and a small LightGBM, scored on one backtest window; the best is kept.",
        {"model": "auto", "ensemble": False, "neural": False, "backtest_windows": 1, "n_estimators": 100},
    ),
    Preset(
        "balanced",
        "Balanced",
        "Statistical models (ETS, ARIMA, theta) and a global LightGBM scored on two backtest windows; the "
        "best is kept.",
        {"model": "auto", "ensemble": False, "neural": False, "backtest_windows": 2, "n_estimators": 300},
    ),
    Preset(
        "accurate",
        "Accurate",
        "Every candidate, the neural network included, on three backtest windows, ensembled with weights "
        "chosen on them.",
        {"model": "auto", "ensemble": True, "neural": True, "backtest_windows": 3, "n_estimators": 600},
    ),
)

SEARCH_SPACE = (
    SearchDimension("n_estimators", "int", low=50, high=1000, log=True),
    SearchDimension("learning_rate", "float", low=0.01, high=0.3, log=True),
    SearchDimension("num_leaves", "int", low=8, high=128, log=True),
    SearchDimension("min_child_samples", "int", low=5, high=100, log=True),
    SearchDimension("context_length", "int", low=0, high=256),
    SearchDimension("strategy", "categorical", choices=("direct", "recursive")),
)

# training observations (train + val points of every series) below which the neural candidate is left out
NEURAL_MIN_OBSERVATIONS = 1000


def adapt(
    values: Mapping[str, Any], data: DataProfile, hardware: HardwareProfile
) -> dict[str, tuple[ParamValue, str | Reason]]:
    """Data-aware defaults (workers.templates.recommend): the neural candidate only when there are
    enough observations to learn from (``data["train_samples"]`` counts points, not series)."""
    observations = data["train_samples"]
    if values["neural"] and values["model"] == "auto" and 0 < observations < NEURAL_MIN_OBSERVATIONS:
        return {
            "neural": (
                False,
                Reason(
                    "observations_no_neural",
                    f"{observations:,} training observations: too few for the neural network; the "
                    "statistical models and LightGBM are the candidates.",
                    {"count": observations},
                ),
            )
        }
    return {}


TEMPLATE = TaskTemplate(
    name="time_series_forecasting",
    title="Time-series forecasting",
    description="Forecast the next steps of one or many time series, with prediction intervals. Statistical "
    "baselines (seasonal naive, ETS, ARIMA) are always fitted; a global LightGBM and a neural network learn "
    "across series; the backtest windows pick the model. Learned models serve with ONNX Runtime.",
    data_kind="time_series",
    label_kind="numeric_series",
    params=PARAMS,
    presets=PRESETS,
    default_preset="balanced",
    search_space=SEARCH_SPACE,
    objective={"metric": "val_mase", "direction": "minimize"},
    metrics=("val_mase", "val_smape", "val_rmse", "val_coverage"),
    data=DataRequirements(min_classes=0, min_samples_per_class=1, required_splits=("train",)),
    train="workers.time_series.trainer:train",
    evaluate="workers.time_series.evaluation:evaluate",
    export="workers.time_series.trainer:export_onnx",
    check_data="workers.time_series.trainer:check_manifest",
    adapt=adapt,
)
