"""The prediction request and answer of a deployed model, per task (workers.serving.protocol).

One wire format for the hosted API (``POST /api/v1/deployments/{id}/predict/``), the on-prem server
package and the SDKs. An answer names its ``kind`` (``classification_prediction``,
``regression_prediction`` or ``detection_prediction``) and ``version``; consumers switch on it.
Requests are what users send and carry no kind: the model's template (the deployment's
``template``) says which request it takes.

Requests: ``{"instances": [...], "top_k": 5}`` where each instance is an image
(:class:`ImageInstance`), a text (:class:`TextInstance`) or a table row (:data:`TableRow`, cells by
the model's column names). Image models also take multipart uploads and raw image bodies.

Answers: :class:`PredictionAnswer`. Each prediction's ``top_k`` lists classes with scores, most
likely first (classification, :class:`ClassScore`), or one predicted value (regression,
:class:`PredictedValue`); tabular models add ``imputed``. Detectors (template ``object_detection``)
take :class:`DetectionInstances` (``score_threshold``, ``max_detections``; ``top_k`` is ignored) and
answer one :class:`~workers.contracts.annotations.DetectionPrediction` per image: boxes in the
original image's pixels. Forecasters (template ``time_series_forecasting``) take
:class:`~workers.contracts.forecasting.ForecastInstances` (each series' recent history, ``horizon``,
``quantiles``) and answer one :class:`~workers.contracts.forecasting.ForecastPrediction` per series
(``kind`` ``forecast_prediction``).
"""

from __future__ import annotations

from typing import Literal, NotRequired, TypedDict

from workers.contracts.annotations import DetectionPrediction as DetectionPrediction
from workers.contracts.forecasting import ForecastInstances as ForecastInstances
from workers.contracts.forecasting import ForecastPrediction as ForecastPrediction

# A table cell as sent: a number, a string, a boolean, or null for a missing value.
TableCell = int | float | str | bool | None
TableRow = dict[str, int | float | str | bool | None]


class ImageInstance(TypedDict):
    """An image file, base64-encoded (a ``data:`` URL works too)."""

    image: str


class TextInstance(TypedDict):
    text: str


class ImageInstances(TypedDict):
    """A request to an image model (JSON; multipart uploads and raw image bodies work too): up to
    SAMPAN_DEPLOY_MAX_BATCH (32) instances, ``top_k`` from 1 to 1000 (default 5)."""

    instances: list[ImageInstance]
    top_k: NotRequired[int]


class DetectionInstances(TypedDict):
    """A request to a detector: images as for image models, plus ``score_threshold`` (0-1, default
    0.3: boxes scoring less are left out) and ``max_detections`` (1-1000, default 100, per image).
    Both may also be sent as query parameters (``?score_threshold=0.5``) or multipart fields; a
    value in the body wins. ``top_k`` is accepted and ignored."""

    instances: list[ImageInstance]
    score_threshold: NotRequired[float]
    max_detections: NotRequired[int]
    top_k: NotRequired[int]


class TextInstances(TypedDict):
    """A request to a text model."""

    instances: list[TextInstance]
    top_k: NotRequired[int]


class TableInstances(TypedDict):
    """A request to a tabular model: rows by column name. A column may be missing (absent, null,
    NaN, empty) only where the training data had gaps; the target column, if sent, is ignored."""

    instances: list[dict[str, int | float | str | bool | None]]
    top_k: NotRequired[int]


class ClassScore(TypedDict):
    """A class and the model's probability for it; ``index`` is its output position."""

    label: str
    index: int
    score: float


class PredictedValue(TypedDict):
    """A regression model's prediction for the row."""

    value: float


class ClassificationPrediction(TypedDict):
    """One instance's answer from a classifier (images, texts, table rows). ``imputed`` (tabular
    models only): the columns of the row that were missing (absent, null, NaN, empty) and filled by
    the model's missing-value rule, in the model's column order; empty when none. Only columns whose
    training data had gaps may be missing; any other is a 400."""

    top_k: list[ClassScore]
    imputed: NotRequired[list[str]]


class RegressionPrediction(TypedDict):
    """One row's answer from a regression model: ``top_k`` holds exactly one predicted value."""

    top_k: list[PredictedValue]
    imputed: NotRequired[list[str]]


Prediction = ClassificationPrediction | RegressionPrediction | DetectionPrediction | ForecastPrediction


class PredictionModelVersion(TypedDict):
    """The model version that answered (a deployment may switch versions between calls)."""

    id: int
    name: str
    template: str


PredictionKind = Literal[
    "classification_prediction", "regression_prediction", "detection_prediction", "forecast_prediction"
]
PREDICTION_ANSWER_VERSION = 1


class PredictionAnswer(TypedDict):
    """The answer to a prediction request: one prediction per instance, in order, and the time spent
    in the server from decoding to answering. ``kind`` says whether ``top_k`` holds ranked classes
    (``classification_prediction``) or one predicted value (``regression_prediction``), or whether
    each prediction holds an image's ``boxes`` (``detection_prediction``) or a series' forecast
    (``forecast_prediction``: ``workers.contracts.forecasting.ForecastPrediction``)."""

    kind: PredictionKind
    version: int
    model_version: PredictionModelVersion
    predictions: (
        list[ClassificationPrediction]
        | list[RegressionPrediction]
        | list[DetectionPrediction]
        | list[ForecastPrediction]
    )
    latency_ms: float
