"""Predictors: a model directory (``model.onnx``, ``preprocess.json``, ``labels.json``,
``manifest.json``) -> an object answering ``predict(instances, top_k)`` with ONNX Runtime.

Template-generic: ``PREDICTORS`` maps a template name to its predictor class as a ``"module:Class"``
string, imported only when a model of that template is loaded. A predictor class takes
``(model_dir, *, threads=None)`` and has ``template``, ``data_kind`` (``"image"``, ``"text"`` or
``"tabular"``, what :func:`workers.serving.protocol.parse_request` decodes for it),
``prediction_kind`` (the answer's ``kind``: ``"classification_prediction"``,
``"regression_prediction"`` or ``"detection_prediction"``), ``classes``
and ``predict(instances, top_k) -> [[{"label", "index", "score"}, ...], ...]``; optionally
``predict_detailed(instances, top_k) -> (answers, [{...per instance...}])`` for what an answer adds
(tabular models: ``{"imputed": [columns]}``). Detectors have instead
``detect(images, *, score_threshold, max_detections) -> [DetectionPrediction, ...]``. Forecasters
(``prediction_kind="forecast_prediction"``, data kind ``"time_series"``) have instead
``forecast(body) -> [ForecastPrediction, ...]`` for a ForecastInstances body. Callers go
through :func:`predict_instances`.

>>> predictor = load_predictor("out/")  # doctest: +SKIP
>>> predictor.predict([PIL.Image.open("3.png")], top_k=1)  # doctest: +SKIP
[[{'index': 3, 'label': '3', 'score': 0.98}]]
"""

from __future__ import annotations

import importlib
import json
import math
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

from workers.contracts.prediction import PredictionKind

PREDICTORS: dict[str, str] = {
    "image_classification": "workers.serving.predictors:ImageClassificationPredictor",
    "object_detection": "workers.object_detection.predictor:Detector",
    "tabular_classification": "workers.tabular.predictor:TabularServingPredictor",
    "tabular_regression": "workers.tabular.predictor:TabularServingPredictor",
    "text_classification": "workers.text_classification.predictor:TextServingPredictor",
    "time_series_forecasting": "workers.time_series.predictor:ForecastServingPredictor",
}
DEFAULT_TEMPLATE = "image_classification"


class Predictor(Protocol):
    template: str
    data_kind: str
    prediction_kind: PredictionKind
    classes: list[str]

    def predict(self, instances: Sequence[Any], top_k: int) -> list[list[dict[str, Any]]]: ...


class PredictorClass(Protocol):
    """A predictor class: what :data:`PREDICTORS` names."""

    data_kind: str

    def __call__(self, model_dir: str | os.PathLike[str], *, threads: int | None = None) -> Predictor: ...


class PredictorLoadError(RuntimeError):
    """The model directory cannot be served; the message says why."""


def _read_json(path: Path, default: Any = None) -> Any:
    if not path.is_file():
        if default is not None:
            return default
        raise PredictorLoadError(f"{path.name} is missing from {path.parent}")
    try:
        return json.loads(path.read_text())
    except ValueError as exc:
        raise PredictorLoadError(f"{path} is not valid JSON ({exc})") from None


class ImageClassificationPredictor:
    """Wraps :class:`workers.image_classification.predictor.ImageClassifier` (the evaluation's own)."""

    template = "image_classification"
    data_kind = "image"
    prediction_kind: PredictionKind = "classification_prediction"

    def __init__(self, model_dir: str | os.PathLike[str], *, threads: int | None = None) -> None:
        from workers.image_classification.predictor import ImageClassifier

        model_dir = Path(model_dir)
        preprocessing = _read_json(model_dir / "preprocess.json", default={}) or None
        classes = _read_json(model_dir / "labels.json", default=[]) or None
        self.classifier = ImageClassifier(
            model_dir / "model.onnx", preprocessing=preprocessing, classes=classes, threads=threads
        )
        self.classes = list(self.classifier.classes or [])

    def predict(self, instances: Sequence[Any], top_k: int) -> list[list[dict[str, Any]]]:
        return self.classifier.predict(instances, top_k=top_k)


def predict_instances(
    predictor: Predictor,
    instances: Sequence[Any],
    top_k: int,
    *,
    options: Mapping[str, Any] | None = None,
) -> tuple[list[Any], list[dict[str, Any]] | None]:
    """(answers, per-instance details or None), as the hosted API and the server package answer.
    A detector's answers are its ``DetectionPrediction`` per image, computed with ``options``
    (``score_threshold``, ``max_detections``: ``ParsedRequest.options``); ``top_k`` is ignored.

    An ONNX Runtime failure on these inputs (a shape, rank or type the graph does not take) is the
    request's problem the model could not run on, a 422 naming the input, never a server error."""
    from workers.serving.protocol import PredictionInputError

    try:
        if predictor.prediction_kind == "forecast_prediction":
            return _forecast(predictor, instances, options), None
        if predictor.prediction_kind == "detection_prediction":
            detections: list[Any] = getattr(predictor, "detect")(instances, **dict(options or {}))  # noqa: B009
            return detections, None
        detailed = getattr(predictor, "predict_detailed", None)
        if detailed is not None:
            answers: tuple[list[list[dict[str, Any]]], list[dict[str, Any]] | None]
            answers = detailed(instances, top_k)
            return answers
        return predictor.predict(instances, top_k), None
    except PredictionInputError:
        raise
    except Exception as exc:
        if not type(exc).__module__.startswith("onnxruntime"):
            raise
        reason = " ".join(str(exc).split())
        reason = reason.split("] ", 1)[-1][:500]  # drop ONNX Runtime's "[ONNXRuntimeError] : 2 : ..." prefix
        where = "instances[0]" if len(instances) == 1 else f"instances[0..{len(instances) - 1}]"
        raise PredictionInputError(
            422,
            "model_rejected_input",
            f"The model cannot run on {where}: ONNX Runtime says: {reason}",
            {"field": "instances", "count": len(instances), "reason": reason},
        ) from None


def _forecast(predictor: Predictor, instances: Sequence[Any], options: Mapping[str, Any] | None) -> list[Any]:
    """A forecaster's answers; a history its spec refuses (``ForecastInputError``) is a 400 with the
    same code, naming the series and the position in ``details``."""
    from workers.serving.protocol import PredictionInputError
    from workers.time_series.history import ForecastInputError

    try:
        forecast = getattr(predictor, "forecast")  # noqa: B009 - the Predictor protocol has no forecast
        forecasts: list[Any] = forecast({"instances": list(instances), **dict(options or {})})
    except ForecastInputError as exc:
        raise PredictionInputError(400, exc.code, exc.message, exc.details) from None
    for index, forecast in enumerate(forecasts):
        numbers = [forecast["mean"], *forecast["quantiles"].values()]
        if not all(math.isfinite(value) for values in numbers for value in values):
            # JSON has no NaN or infinity: values too large for the model's arithmetic (1e308) end here
            raise PredictionInputError(
                422,
                "model_rejected_input",
                f"The model cannot forecast instances[{index}] (id {forecast['id']!r}): its forecast is not "
                "finite; the history's values (or covariates) are out of the range the model computes in.",
                {"series": index, "id": forecast["id"], "field": "values"},
            )
    return forecasts


def predictor_class(template: str) -> PredictorClass:
    try:
        target = PREDICTORS[template]
    except KeyError:
        raise PredictorLoadError(
            f"no predictor for template {template!r}; known: {', '.join(sorted(PREDICTORS))}"
        ) from None
    module, _, name = target.partition(":")
    found: PredictorClass = getattr(importlib.import_module(module), name)
    return found


def load_predictor(
    model_dir: str | os.PathLike[str], *, template: str | None = None, threads: int | None = None
) -> Predictor:
    """The predictor of ``model_dir``; its template comes from ``manifest.json`` unless given."""
    model_dir = Path(model_dir)
    if template is None:
        manifest = _read_json(model_dir / "manifest.json", default={"template": DEFAULT_TEMPLATE})
        template = manifest.get("template") or DEFAULT_TEMPLATE
    if not (model_dir / "model.onnx").is_file():
        raise PredictorLoadError(f"model.onnx is missing from {model_dir}")
    return predictor_class(template)(model_dir, threads=threads)
