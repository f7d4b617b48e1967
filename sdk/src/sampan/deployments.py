"""Deployments (hosted endpoints), their API keys, usage and predictions; on-prem packages."""

from __future__ import annotations

import base64
import builtins
import contextlib
import io
import math
import os
import time
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, cast, overload

from sampan import _schema as schema
from sampan._resource import Resource
from sampan._resource import id_of as _id
from sampan._transport import Outage
from sampan.errors import JobFailed, SampanError, WaitTimeout

if TYPE_CHECKING:
    from sampan.batch import BatchPrediction
    from sampan.client import Client
    from sampan.training import Job, TrainingJob

MAX_BATCH = 32  # the hosted endpoint's batch limit


class Prediction:
    """One instance's answer (an image, a text or a table row): typed accessors over the endpoint's
    entry (``data``, a :data:`sampan.types.Prediction`), the best class first in ``top_k``.

    A regression model (an answer of kind ``regression_prediction``) answers a number in ``value``; its
    ``label`` is then ``""``, ``score`` NaN and ``index`` -1. For a table row, ``imputed`` names the
    columns the server filled in by the model's missing-value rule (a cell sent as None/NaN, or a
    column left out).

    A detector (``detection_prediction``) answers ``boxes``: ``{label, index, score, x, y, width,
    height}`` in the original image's pixels, best score first; ``label``, ``score`` and ``index``
    are then the best box's (``""``, NaN, -1 when it found nothing).
    """

    __slots__ = ("data", "kind", "model_version")

    def __init__(
        self,
        data: schema.Prediction,
        model_version: schema.PredictionModelVersion,
        kind: str = "classification_prediction",
    ) -> None:
        self.data = data
        self.model_version = model_version
        self.kind = kind

    @classmethod
    def from_answer(
        cls,
        answer: schema.Prediction,
        model_version: schema.PredictionModelVersion,
        kind: str = "classification_prediction",
    ) -> Prediction:
        """One entry of the endpoint's ``predictions`` as a Prediction; ``kind`` is the answer's."""
        return cls(answer, model_version, kind)

    @property
    def regression(self) -> bool:
        """Whether a regression model answered (the answer's ``kind``)."""
        return self.kind == "regression_prediction"

    @property
    def detection(self) -> bool:
        """Whether a detector answered (boxes, the answer's ``kind``)."""
        return self.kind == "detection_prediction"

    @property
    def boxes(self) -> list[schema.DetectedBox]:
        """A detector's boxes, best score first (``[]`` for other models).

        e.g. ``[(b["label"], round(b["score"], 2)) for b in deployment.predict("street.jpg").boxes]``"""
        return cast("schema.DetectionPrediction", self.data)["boxes"] if self.detection else []

    @property
    def classes(self) -> list[schema.ClassScore]:
        """A classifier's ranked classes (``[]`` for a regression model or a detector)."""
        if self.regression or self.detection:
            return []
        return cast("schema.ClassificationPrediction", self.data)["top_k"]

    @property
    def top_k(self) -> list[schema.ClassScore] | list[schema.PredictedValue]:
        """As answered: ranked classes (``{label, index, score}``), or one ``{value}`` for regression
        (``[]`` for a detector: see ``boxes``)."""
        if self.detection:
            return []
        return cast("schema.ClassificationPrediction | schema.RegressionPrediction", self.data)["top_k"]

    @property
    def value(self) -> float | None:
        """A regression model's number (None for a classifier)."""
        if not self.regression:
            return None
        return cast("schema.RegressionPrediction", self.data)["top_k"][0]["value"]

    @property
    def label(self) -> str:
        best = self.classes or self.boxes
        return best[0]["label"] if best else ""

    @property
    def score(self) -> float:
        best = self.classes or self.boxes
        return best[0]["score"] if best else float("nan")

    @property
    def index(self) -> int:
        best = self.classes or self.boxes
        return best[0]["index"] if best else -1

    @property
    def imputed(self) -> list[str]:
        imputed: list[str] = cast("dict[str, Any]", self.data).get("imputed", [])
        return imputed

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Prediction)
            and other.data == self.data
            and other.model_version == self.model_version
            and other.kind == self.kind
        )

    def __hash__(self) -> int:
        return hash((self.label, self.value, tuple(self.imputed), len(self.boxes)))

    def __repr__(self) -> str:
        if self.detection:
            shown = ", ".join(f"{b['label']} {b['score']:.2f}" for b in self.boxes[:5])
            more = f", +{len(self.boxes) - 5}" if len(self.boxes) > 5 else ""
            return f"Prediction(boxes={len(self.boxes)}: [{shown}{more}])"
        if self.regression:
            return f"Prediction(value={self.value!r}, imputed={self.imputed!r})"
        return (
            f"Prediction(label={self.label!r}, score={self.score:.4g}, index={self.index}, "
            f"imputed={self.imputed!r})"
        )


def json_cell(value: Any) -> Any:
    """A table cell as JSON: NaN, infinities, None, pandas NA/NaT become null (a missing value, which
    the server fills by the model's rule); NumPy scalars become Python numbers."""
    if value is None:
        return None
    if hasattr(value, "item") and type(value).__module__ == "numpy":
        value = value.item()  # np.float64, np.int64, np.bool_ -> float, int, bool
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, (str, int, bool)):
        return value
    if type(value).__name__ in ("NAType", "NaTType"):
        return None
    if hasattr(value, "isoformat"):  # a datetime or pandas Timestamp
        return value.isoformat()
    if isinstance(value, Mapping):
        return {str(k): json_cell(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_cell(v) for v in value]
    return value


def table_rows(rows: Any) -> list[Mapping[str, Any]]:
    """``rows`` as a list of mappings: a pandas DataFrame gives one per row (its index is dropped)."""
    if _is_dataframe(rows):
        return list(rows.to_dict("records"))
    return list(rows)


def _is_dataframe(obj: Any) -> bool:
    return type(obj).__name__ == "DataFrame" and hasattr(obj, "to_dict") and hasattr(obj, "columns")


def prediction_instances(
    images: Sequence[Any] | None = None,
    *,
    texts: Sequence[str] | None = None,
    rows: Sequence[Mapping[str, Any]] | Any | None = None,
) -> list[dict[str, Any]]:
    """The ``instances`` of a predict request: exactly one of ``images`` (each ``{"image": base64}``),
    ``texts`` (``{"text": ...}``, text classification) or ``rows`` (``{column: value}``, tabular
    models; a pandas DataFrame too). Missing cells (None, NaN, pandas NA) are sent as JSON null.

    >>> prediction_instances(texts=["great film"])
    [{'text': 'great film'}]
    >>> prediction_instances(rows=[{"alcohol": 13.2, "ash": float("nan")}])
    [{'alcohol': 13.2, 'ash': None}]
    """
    given = [
        name for name, value in (("images", images), ("texts", texts), ("rows", rows)) if value is not None
    ]
    if len(given) != 1:
        raise ValueError(f"Give exactly one of images, texts or rows (got {', '.join(given) or 'none'}).")
    if texts is not None:
        if isinstance(texts, str):
            raise TypeError("texts is a list of strings; for one text use predict(text=...).")
        for i, text in enumerate(texts):
            if not isinstance(text, str):
                raise TypeError(f"texts[{i}] is a {type(text).__name__}, not a str.")
        return [{"text": text} for text in texts]
    if rows is not None:
        if isinstance(rows, Mapping):
            raise TypeError("rows is a list of {column: value} dicts; for one row use predict(row=...).")
        listed = table_rows(rows)
        for i, row in enumerate(listed):
            if not isinstance(row, Mapping):
                raise TypeError(f"rows[{i}] is a {type(row).__name__}, not a {{column: value}} mapping.")
        return [{str(column): json_cell(value) for column, value in row.items()} for row in listed]
    assert images is not None
    return [{"image": base64.b64encode(encode_image(image)).decode("ascii")} for image in images]


def predict_body(
    instances: list[dict[str, Any]],
    top_k: int,
    score_threshold: float | None = None,
    max_detections: int | None = None,
) -> dict[str, Any]:
    """A predict request's JSON: the instances, ``top_k`` and, when given, a detector's
    ``score_threshold`` and ``max_detections`` (left out: the server's defaults)."""
    body: dict[str, Any] = {"instances": instances, "top_k": top_k}
    if score_threshold is not None:
        body["score_threshold"] = float(score_threshold)
    if max_detections is not None:
        body["max_detections"] = int(max_detections)
    return body


def encode_image(image: Any) -> bytes:
    """Image bytes for a request: a file path, bytes, a PIL image, or a NumPy array (H x W, H x W x 3/4;
    uint8, or floats in [0, 1]) encoded as PNG."""
    if isinstance(image, (bytes, bytearray, memoryview)):
        return bytes(image)
    if isinstance(image, (str, os.PathLike)):
        return Path(image).read_bytes()
    if hasattr(image, "save") and hasattr(image, "mode"):  # PIL.Image.Image
        buffer = io.BytesIO()
        image.save(buffer, format="PNG")
        return buffer.getvalue()
    if hasattr(image, "__array_interface__") or type(image).__module__ == "numpy":
        import numpy as np

        try:
            from PIL import Image
        except ImportError as exc:
            raise ImportError(
                "Predicting from a NumPy array needs Pillow: pip install 'sampan[images]'"
            ) from exc
        array = np.asarray(image)
        if array.dtype != np.uint8:
            if array.size and float(array.max()) <= 1.0:
                array = array * 255.0
            array = np.clip(np.rint(array), 0, 255).astype(np.uint8)
        if array.ndim == 3 and array.shape[2] == 1:
            array = array[:, :, 0]
        if array.ndim not in (2, 3) or (array.ndim == 3 and array.shape[2] not in (3, 4)):
            raise ValueError(
                f"An image array must be H x W, H x W x 3 or H x W x 4; got shape {array.shape}."
            )
        buffer = io.BytesIO()
        Image.fromarray(array).save(buffer, format="PNG")
        return buffer.getvalue()
    raise TypeError(
        f"Cannot send a {type(image).__name__} as an image: give a path, bytes, a PIL image or a NumPy array."
    )


class Deployment(Resource[schema.Deployment]):
    """A hosted endpoint serving one model version of a project.

    >>> deployment = model.deploy("digits")
    >>> deployment.create_key("notebook")          # the secret is kept on the object for predict()
    >>> deployment.predict("3.png").label
    '3'
    """

    _path = "deployments/"

    def __init__(self, client: Client, data: schema.Deployment, key: str | None = None) -> None:
        super().__init__(client, data)
        self.key = key

    # --- lifecycle -------------------------------------------------------------------------------

    def _act(self, action: str, body: dict[str, Any] | None = None) -> Deployment:
        self.data = self._client.http.post(f"deployments/{self.id}/{action}/", body or {})
        return self

    def switch(self, model_version: int | Resource[Any]) -> Deployment:
        """Serve another model version of the same project (the previous one is kept for rollback)."""
        return self._act("switch", {"model_version": _id(model_version)})

    def rollback(self) -> Deployment:
        return self._act("rollback")

    def stop(self) -> Deployment:
        return self._act("stop")

    def start(self) -> Deployment:
        return self._act("start")

    def usage(self, window: str = "24h") -> schema.DeploymentUsage:
        """Calls, errors and latency percentiles: ``{totals, series, by_version}`` for window 1h, 24h
        or 7d; ``by_version`` splits them by the model version that answered (with its role and the
        distribution of its top-1 scores, or values for regression)."""
        usage: schema.DeploymentUsage = self._client.http.get(f"deployments/{self.id}/usage/", window=window)
        return usage

    # --- traffic split: canaries and the shadow ---------------------------------------------------

    @property
    def traffic(self) -> list[schema.TrafficEntry]:
        """The split as last read: the primary (``weight`` = 100 - the canaries'), the canaries and
        the shadow (role ``shadow``, weight 0), each ``{model_version, model_version_name, role, weight}``."""
        return list(self.data.get("traffic") or [])

    def set_traffic(
        self, canaries: Iterable[tuple[int | Resource[Any], int]] = (), *, sticky: bool | None = None
    ) -> Deployment:
        """Send each canary (model version, percent 1-99) its share of the requests; the primary
        answers the rest (the weights add up to at most 99). ``canaries=[]`` rolls them back.
        ``sticky=True``: every request of one API key goes to the same version.

        >>> deployment.set_traffic(canaries=[(v2, 10)])     # 10 % to V2, 90 % to the primary
        """
        body: dict[str, Any] = {
            "canaries": [{"model_version": _id(mv), "weight": int(weight)} for mv, weight in canaries]
        }
        if sticky is not None:
            body["sticky"] = bool(sticky)
        return self._act("traffic", body)

    def rollback_canary(self) -> Deployment:
        """Remove every canary: the primary answers all requests again."""
        return self.set_traffic([])

    def promote(self, model_version: int | Resource[Any]) -> Deployment:
        """Make a canary the primary (the old primary becomes the previous version); the canaries go."""
        return self._act("promote", {"model_version": _id(model_version)})

    def set_shadow(self, model_version: int | Resource[Any] | None) -> Deployment:
        """Give a copy of every answered request to ``model_version`` (its answers are compared with
        the served ones, never returned); None removes the shadow."""
        return self._act("shadow", {"model_version": None if model_version is None else _id(model_version)})

    def shadow_agreement(
        self, window: str = "1h", *, wait: float = 0.0, at_least: int = 1
    ) -> schema.ShadowAgreement:
        """How the shadow's answers compared with the served ones over 1h, 24h or 7d: ``{compared,
        agreement (same top-1 class; None for regression), mean_delta, errors, points, deltas, ...}``.
        The comparisons are written in the background within about a second: ``wait`` polls up to
        that many seconds until ``at_least`` instances were compared (or failed)."""
        deadline = time.monotonic() + wait
        while True:
            agreement: schema.ShadowAgreement = self._client.http.get(
                f"deployments/{self.id}/shadow-agreement/", window=window
            )
            if agreement["compared"] + agreement["errors"] >= at_least or time.monotonic() >= deadline:
                return agreement
            time.sleep(0.2)

    # --- keys ------------------------------------------------------------------------------------

    def keys(self) -> list[schema.DeploymentKey]:
        return list(self._client.http.paginate(f"deployments/{self.id}/keys/"))

    def create_key(
        self, name: str = "sdk", *, expires_at: str | None = None, quota_per_minute: int | None = None
    ) -> schema.DeploymentKeyCreated:
        """Issue an API key for predictions; its secret (``key``, ``spd_...``) is answered once and kept
        on this object, so :meth:`predict` uses it by default."""
        body: dict[str, Any] = {"name": name}
        if expires_at is not None:
            body["expires_at"] = expires_at
        if quota_per_minute is not None:
            body["quota_per_minute"] = quota_per_minute
        created: schema.DeploymentKeyCreated = self._client.http.post(f"deployments/{self.id}/keys/", body)
        self.key = created["key"]
        return created

    def revoke_key(self, key: int | Mapping[str, Any]) -> None:
        self._client.http.delete(f"deployments/{self.id}/keys/{_id(key)}/")

    # --- request capture --------------------------------------------------------------------------

    def capture_policy(self) -> schema.CapturePolicy:
        """What this deployment keeps of the requests it answers (off by default), and how much is
        stored: ``{enabled, sample_rate, retention_days, max_bytes, low_confidence_below,
        shadow_disagreement, labels, stored_bytes, stored_count, ...}``."""
        policy: schema.CapturePolicy = self._client.http.get(f"deployments/{self.id}/capture/")
        return policy

    def set_capture(self, **fields: Any) -> schema.CapturePolicy:
        """Change the capture policy: any of ``enabled``, ``sample_rate`` (0-1), ``retention_days``,
        ``max_bytes``, ``low_confidence_below`` (None: no such filter), ``shadow_disagreement``,
        ``labels``; the others keep their values.

        e.g. ``deployment.set_capture(enabled=True, sample_rate=0.1, low_confidence_below=0.6)``
        """
        policy: schema.CapturePolicy = self._client.http.request(
            "PUT", f"deployments/{self.id}/capture/", json=fields
        )
        return policy

    def captures(
        self,
        *,
        reason: str | None = None,
        label: str | None = None,
        sent: bool | None = None,
        model_version: int | Resource[Any] | None = None,
        wait: float = 0.0,
    ) -> builtins.list[schema.CapturedRequest]:
        """The captured requests, newest first, filtered by ``reason`` (``sampled``,
        ``low_confidence``, ``disagreement``, ``label``), served ``label``, ``sent`` to a dataset or
        not, and the ``model_version`` that answered. Captures are written in the background within a
        second of the answer: ``wait`` polls up to that many seconds until there is at least one."""
        deadline = time.monotonic() + wait
        while True:
            found: builtins.list[schema.CapturedRequest] = list(
                self._client.http.paginate(
                    f"deployments/{self.id}/captures/",
                    reason=reason,
                    label=label,
                    sent=None if sent is None else str(bool(sent)).lower(),
                    model_version=None if model_version is None else _id(model_version),
                )
            )
            if found or time.monotonic() >= deadline:
                return found
            time.sleep(0.2)

    def capture_content(self, capture: int | Mapping[str, Any]) -> bytes:
        """A captured input as stored: PNG bytes (images), UTF-8 text, or the row as JSON."""
        response = self._client.http.raw("GET", f"deployments/{self.id}/captures/{_id(capture)}/content/")
        return bytes(response.content)

    def send_captures(
        self,
        dataset: int | Resource[Any],
        ids: Iterable[int | Mapping[str, Any]] | None = None,
        *,
        reason: str | None = None,
        label: str | None = None,
    ) -> schema.CaptureSendResult:
        """Add captured inputs to ``dataset`` (this project's, the model's task) as unlabeled samples,
        each with the served answer as a pending suggestion (source ``capture``) to accept or correct.
        By ``ids`` (ints or capture dicts), else every capture not sent yet matching ``reason`` /
        ``label``. Answers ``{dataset, samples_created, suggestions_created, skipped: [{id, reason,
        detail}]}``."""
        body: dict[str, Any] = {"dataset": _id(dataset)}
        if ids is not None:
            body["ids"] = [_id(i) for i in ids]
        if reason is not None:
            body["reason"] = reason
        if label is not None:
            body["label"] = label
        result: schema.CaptureSendResult = self._client.http.post(
            f"deployments/{self.id}/captures/send/", body
        )
        return result

    def delete_captures(
        self, ids: Iterable[int | Mapping[str, Any]] | None = None, *, all: bool = False
    ) -> int:
        """Delete captured requests by ``ids``, or ``all=True``; their stored inputs go too. Answers
        how many were deleted."""
        body: dict[str, Any] = {"all": True} if all else {"ids": [_id(i) for i in ids or ()]}
        result = self._client.http.post(f"deployments/{self.id}/captures/delete/", body)
        return int(result["deleted"])

    # --- predictions ------------------------------------------------------------------------------

    def _key(self, key: str | None) -> str:
        chosen = key or self.key or os.environ.get("SAMPAN_DEPLOYMENT_KEY")
        if not chosen:
            raise ValueError(
                "predict() needs a deployment key: deployment.create_key(), key=..., or "
                "SAMPAN_DEPLOYMENT_KEY."
            )
        return chosen

    def predict_raw(
        self,
        images: Sequence[Any] | None = None,
        *,
        texts: Sequence[str] | None = None,
        rows: Sequence[Mapping[str, Any]] | None = None,
        key: str | None = None,
        top_k: int = 5,
        score_threshold: float | None = None,
        max_detections: int | None = None,
    ) -> schema.PredictResponse:
        """The endpoint's JSON answer for up to 32 instances (``{model_version, predictions, latency_ms}``):
        give exactly one of ``images``, ``texts`` (text classification) or ``rows`` (tabular models).
        Detectors take ``score_threshold`` (0-1, server default 0.3) and ``max_detections`` (1-1000,
        default 100) and ignore ``top_k``."""
        instances = prediction_instances(images, texts=texts, rows=rows)
        answer: schema.PredictResponse = self._client.http.request(
            "POST",
            self.data["predict_url"] or f"deployments/{self.id}/predict/",
            json=predict_body(instances, top_k, score_threshold, max_detections),
            headers={"Authorization": f"Bearer {self._key(key)}"},
        )
        return answer

    @overload
    def predict(
        self,
        image: None = None,
        *,
        history: Any,
        horizon: int | None = None,
        quantiles: Sequence[float] | None = None,
        known_future: Any = None,
        key: str | None = None,
    ) -> Any: ...

    @overload
    def predict(
        self,
        image: Any = None,
        *,
        text: str | None = None,
        row: Mapping[str, Any] | Any | None = None,
        key: str | None = None,
        top_k: int = 5,
        score_threshold: float | None = None,
        max_detections: int | None = None,
    ) -> Prediction: ...

    def predict(
        self,
        image: Any = None,
        *,
        text: str | None = None,
        row: Mapping[str, Any] | Any | None = None,
        history: Any = None,
        horizon: int | None = None,
        quantiles: Sequence[float] | None = None,
        known_future: Any = None,
        key: str | None = None,
        top_k: int = 5,
        score_threshold: float | None = None,
        max_detections: int | None = None,
    ) -> Prediction | Any:
        """Predict one instance: an ``image`` (a file path, bytes, a PIL image or a NumPy array), a
        ``text`` (text classification) or a table ``row`` (``{column: value}``, tabular models).
        A detector's answer has ``boxes`` (``score_threshold``, ``max_detections`` tune them).
        A forecaster takes ``history=`` and answers a DataFrame: see :meth:`forecast`.

        e.g. ``deployment.predict("3.png")``, ``deployment.predict(text="great film")``,
        ``deployment.predict(row={"alcohol": 13.2, "ash": 2.4, ...}).label``,
        ``deployment.predict("street.jpg", score_threshold=0.5).boxes``,
        ``deployment.predict(history=recent, horizon=7)``
        """
        given = sum(value is not None for value in (image, text, row, history))
        if given != 1:
            raise ValueError("Give exactly one of image, text=, row= or history= to predict().")
        if history is not None:
            return self.forecast(
                history, horizon=horizon, quantiles=quantiles, known_future=known_future, key=key
            )
        options: dict[str, Any] = {
            "key": key,
            "top_k": top_k,
            "score_threshold": score_threshold,
            "max_detections": max_detections,
        }
        if text is not None:
            return self.predict_batch(texts=[text], **options)[0]
        if row is not None:
            if not isinstance(row, Mapping) and hasattr(row, "to_dict"):  # a pandas Series
                row = row.to_dict()
            return self.predict_batch(rows=[row], **options)[0]
        return self.predict_batch([image], **options)[0]

    def predict_batch(
        self,
        images: Sequence[Any] | None = None,
        *,
        texts: Sequence[str] | None = None,
        rows: Sequence[Mapping[str, Any]] | Any | None = None,
        key: str | None = None,
        top_k: int = 5,
        batch_size: int = MAX_BATCH,
        score_threshold: float | None = None,
        max_detections: int | None = None,
    ) -> list[Prediction]:
        """Predict many images, texts or rows (exactly one of them; sent ``batch_size`` at a time);
        answers in the same order. ``rows`` may be a pandas DataFrame or a list of dicts; missing
        cells (None, NaN) go as null and each answer's ``imputed`` names the columns filled in.
        e.g. ``deployment.predict_batch(rows=frame.drop(columns="target"))``"""
        if rows is not None and not isinstance(rows, Mapping):
            rows = table_rows(rows)
        given = [v for v in (images, texts, rows) if v is not None]
        if len(given) != 1:
            raise ValueError("Give exactly one of images, texts= or rows= to predict_batch().")
        if isinstance(given[0], (str, Mapping)):
            raise TypeError("predict_batch() takes a list; for one instance use predict().")
        items: Sequence[Any] = given[0]
        answers: list[Prediction] = []
        for start in range(0, len(items), batch_size):
            chunk = list(items[start : start + batch_size])
            body = self.predict_raw(
                chunk if images is not None else None,
                texts=chunk if texts is not None else None,
                rows=chunk if rows is not None else None,
                key=key,
                top_k=top_k,
                score_threshold=score_threshold,
                max_detections=max_detections,
            )
            answers += [
                Prediction(answer, body["model_version"], body["kind"]) for answer in body["predictions"]
            ]
        return answers

    # --- forecasting ----------------------------------------------------------------------------

    def forecast_contract(self) -> dict[str, Any]:
        """What the deployed forecaster takes (``ForecastContract``): ``frequency``, ``min_history``
        (the fewest history points), ``horizon`` (the most steps), ``quantiles``,
        ``interval_level``, ``known_covariates``, ``static_covariates`` and ``series_ids``. A
        deployment of another kind of model raises ``ValueError``."""
        contract = self._fields.get("forecast_contract")
        if contract is None:
            contract = self.refresh()._fields.get("forecast_contract")
        if contract is None:
            raise ValueError(f"Deployment {self.id} does not serve a forecaster (no forecast_contract).")
        return dict(contract)

    def forecast_raw(
        self,
        instances: Sequence[Mapping[str, Any]],
        *,
        horizon: int | None = None,
        quantiles: Sequence[float] | None = None,
        key: str | None = None,
    ) -> dict[str, Any]:
        """The endpoint's JSON answer to a forecast request of up to 32 series (``ForecastInstance``
        each: ``{id?, timestamps, values, known?, static?}``): ``{kind: "forecast_prediction",
        model_version, predictions: [{id, timestamps, mean, quantiles}], latency_ms}``. A bad history
        is a :class:`sampan.BadRequest` whose ``code`` says what (``history_too_short``,
        ``history_gap``, ``wrong_frequency``, ``history_not_numeric``, ...) and whose ``details``
        name the series and the position."""
        from sampan.forecasting import forecast_body

        answer: dict[str, Any] = self._client.http.request(
            "POST",
            self.data["predict_url"] or f"deployments/{self.id}/predict/",
            json=forecast_body([dict(i) for i in instances], horizon, quantiles),
            headers={"Authorization": f"Bearer {self._key(key)}"},
        )
        return answer

    def forecast(
        self,
        history: Any,
        *,
        horizon: int | None = None,
        quantiles: Sequence[float] | None = None,
        known_future: Any = None,
        static: Mapping[str, Mapping[str, Any]] | None = None,
        id_column: str | None = None,
        timestamp_column: str | None = None,
        value_column: str | None = None,
        key: str | None = None,
        batch_size: int = MAX_BATCH,
    ) -> Any:
        """Forecast the next ``horizon`` steps (default: the model's) of one or many series from their
        recent history; answers a long pandas DataFrame: ``id``, ``timestamp``, ``mean`` and one
        ``q<level>`` column per quantile (default the model's interval, e.g. ``q0.1`` and ``q0.9``).

        ``history``: a pandas Series indexed by timestamps (one series), a long DataFrame (``id``,
        ``timestamp`` and ``value`` columns; other names via ``id_column``, ``timestamp_column``,
        ``value_column``) or a wide one (timestamps and one column per series). At least the model's
        ``min_history`` points per series, on its frequency's grid, without gaps or NaN (see
        :meth:`forecast_contract`). A model with known covariates reads them from the history's
        columns and their future values from ``known_future`` (same columns, the ``horizon`` rows
        after each series' last timestamp); static covariates come from the history's columns or
        ``static`` (``{series id: {name: value}}``). Series go ``batch_size`` per request.

        e.g. ``deployment.forecast(recent, horizon=7, quantiles=[0.05, 0.5, 0.95])``
        """
        from sampan.forecasting import forecast_with

        return forecast_with(
            lambda chunk: self.forecast_raw(chunk, horizon=horizon, quantiles=quantiles, key=key),
            self.forecast_contract(),
            history,
            horizon=horizon,
            known_future=known_future,
            static=static,
            id_column=id_column,
            timestamp_column=timestamp_column,
            value_column=value_column,
            batch_size=min(batch_size, MAX_BATCH),
        )

    def retrain(
        self, dataset_version: int | Resource[Any], *, preset: str | None = None, **params: Any
    ) -> TrainingJob:
        """Retrain from the version this deployment serves (its primary), warm-started from its
        weights; see :meth:`sampan.ModelVersion.retrain`. Deploy the result as a canary to compare.

        e.g. ``deployment.retrain(new_version, epochs=5).wait()``
        """
        body: dict[str, Any] = {"dataset_version": _id(dataset_version), "params": params}
        if preset is not None:
            body["preset"] = preset
        job = self._client.http.post(f"deployments/{self.id}/retrain/", body, idempotent=True)
        return self._client.training_jobs.get(job["id"])

    def batch_predict(self, source: Any, **options: Any) -> BatchPrediction:
        """A batch prediction by the version this deployment serves (its primary), recorded as
        started from it: ``source`` and ``options`` as :meth:`sampan.ModelVersion.batch_predict`.
        Runs as a job on the workers, not through the endpoint: no key, no usage, no rate limit."""
        from sampan.batch import create_batch

        return create_batch(
            self._client, int(self._fields["model_version"]), source, deployment=self, **options
        )

    def batch_predictions(self) -> list[BatchPrediction]:
        """The batch predictions started from this deployment, newest first."""
        return self._client.batch_predictions.list(deployment=self)


class Deployments:
    """``client.deployments``: create (deploy), list, get, rename, delete."""

    def __init__(self, client: Client) -> None:
        self._client = client

    def list(
        self, *, project: int | Resource[Any] | None = None, model_version: int | Resource[Any] | None = None
    ) -> builtins.list[Deployment]:
        return [
            Deployment(self._client, d)
            for d in self._client.http.paginate(
                "deployments/",
                project=_id(project) if project is not None else None,
                model_version=_id(model_version) if model_version is not None else None,
            )
        ]

    def get(self, deployment_id: int) -> Deployment:
        return Deployment(self._client, self._client.http.get(f"deployments/{int(deployment_id)}/"))

    def create(self, model_version: int | Resource[Any], *, name: str | None = None) -> Deployment:
        """Deploy a model version as a hosted endpoint (active at once).

        e.g. ``deployment = client.deployments.create(model, name="digits")``
        """
        mv = (
            model_version
            if isinstance(model_version, Resource)
            else self._client.model_versions.get(_id(model_version))
        )
        body = {
            "model_version": mv.id,
            "project": mv["project"],
            "name": name or f"{mv._fields.get('name', 'model')}-{int(time.time())}",
        }
        return Deployment(self._client, self._client.http.post("deployments/", body))

    def rename(self, deployment: int | Deployment, name: str) -> Deployment:
        return Deployment(
            self._client, self._client.http.patch(f"deployments/{_id(deployment)}/", {"name": name})
        )

    def delete(self, deployment: int | Deployment) -> None:
        self._client.http.delete(f"deployments/{_id(deployment)}/")


class Package(Resource[schema.Package]):
    """An on-prem server package or a device SDK of a model version, built by a job."""

    _path = "packages/"

    def wait(
        self,
        *,
        timeout: float | None = 1800,
        poll: float = 1.0,
        progress: bool = True,
        max_outage: float = 300.0,
    ) -> Package:
        """Wait for the build job (with its progress bar); raises :class:`sampan.JobFailed` if it failed.
        Polling goes on across a web restart for up to ``max_outage`` seconds (as :meth:`Job.wait`)."""
        build = self.data["job"]
        if build is not None and self.data["status"] in ("queued", "running"):
            job: Job = self._client.jobs.get(build)
            with contextlib.suppress(JobFailed):  # the package's own error says it better
                job.wait(timeout=timeout, poll=poll, progress=progress, max_outage=max_outage)
        deadline = None if timeout is None else time.monotonic() + timeout
        outage = Outage(max_outage)
        while not outage.attempt(self.refresh) or self.data["status"] in ("queued", "running"):
            if deadline is not None and time.monotonic() > deadline:
                raise WaitTimeout(f"Package {self.id} still {self.data['status']}", code="wait_timeout")
            time.sleep(poll)
        if self.data["status"] != "succeeded":
            raise SampanError(
                f"Package {self.id} {self.data['status']}: {self.data['error']}",
                code="package_failed",
                details=self.data,
            )
        return self

    def download(self, dest: str | os.PathLike[str] | IO[bytes], *, progress: bool = False) -> Path | None:
        """Save the archive (zip); 409 ``package_not_ready`` until it is built."""
        return self._client.http.download(
            f"packages/{self.id}/download/", dest, progress=progress, description=f"package {self.id}"
        )


class Packages:
    """``client.packages``: create (build), list, get, delete."""

    def __init__(self, client: Client) -> None:
        self._client = client

    def list(
        self,
        *,
        project: int | Resource[Any] | None = None,
        model_version: int | Resource[Any] | None = None,
        kind: str | None = None,
    ) -> builtins.list[Package]:
        return [
            Package(self._client, p)
            for p in self._client.http.paginate(
                "packages/",
                project=_id(project) if project is not None else None,
                model_version=_id(model_version) if model_version is not None else None,
                kind=kind,
            )
        ]

    def get(self, package_id: int) -> Package:
        return Package(self._client, self._client.http.get(f"packages/{int(package_id)}/"))

    def create(self, model_version: int | Resource[Any], *, kind: str = "server") -> Package:
        """Build a ``server`` package (a standalone HTTP server) or a ``device`` SDK; ``.wait()`` for it."""
        body = {"model_version": _id(model_version), "kind": kind}
        return Package(self._client, self._client.http.post("packages/", body, idempotent=True))

    def delete(self, package: int | Package) -> None:
        self._client.http.delete(f"packages/{_id(package)}/")
