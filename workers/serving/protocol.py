"""The prediction request/response protocol shared by the hosted API, the on-prem server and the SDKs.

No Django, no torch: Pillow and the standard library only, so packages vendor this file as it is.

Requests (``parse_request``):

- JSON ``{"instances": [{"image": "<base64>"}, ...], "top_k": 5}``, or ``{"image": "<base64>"}`` for
  one image (a ``data:image/...;base64,`` prefix is accepted); text templates send
  ``{"instances": [{"text": "..."}]}``, tabular ones ``{"instances": [{"<column>": value, ...}]}``.
- ``multipart/form-data``: one or more parts named ``file`` (images), an optional field ``top_k``.
- a raw image body (``Content-Type: image/*`` or ``application/octet-stream``): one image.

Images are identified by their content (never the declared type or a file name), refused above a
pixel limit from the header alone (a pixel flood is never decoded), and decoded upright.

Responses (``response_body``)::

    {"kind": "classification_prediction", "version": 1,
     "model_version": {"id": 12, "name": "V3", "template": "image_classification"},
     "predictions": [{"top_k": [{"label": "3", "index": 3, "score": 0.98}, ...]}, ...],
     "latency_ms": 0.42}

Detectors (``prediction_kind="detection_prediction"``) also read ``score_threshold`` (0-1, default
0.3) and ``max_detections`` (1-1000, default 100) from the JSON body, a multipart field or the query
string (the body wins), ignore ``top_k``, and answer
``{"kind": "detection_prediction", ..., "predictions": [{"boxes": [{"label", "index", "score", "x",
"y", "width", "height"}], "width": 640, "height": 480}]}``: boxes in the original image's pixels.

Forecasters (data kind ``time_series``) take JSON only: a ``ForecastInstances``
``{"instances": [{"id": "store-7", "timestamps": ["2024-01-01", ...], "values": [12.0, ...],
"known": {...}, "static": {...}}], "horizon": 7, "quantiles": [0.1, 0.9]}`` (``top_k`` is ignored;
each series is checked by ``workers.time_series.history``, a bad one a 400 naming the series and the
position), and answer ``{"kind": "forecast_prediction", ..., "predictions": [{"id", "timestamps",
"mean", "quantiles": {"0.1": [...], "0.9": [...]}}]}`` (``workers.contracts.forecasting``).

Tabular answers add ``"imputed": ["<column>", ...]`` to each prediction: the columns that were
missing and filled by the model's missing-value rule (see ``workers.tabular.encoding.check_row``);
regression models answer ``"kind": "regression_prediction"`` with ``{"top_k": [{"value": 42.5}]}``.
The contracts (requests and answers per task): ``workers.contracts.prediction``.

Errors (``PredictionInputError.as_dict``): ``{"error": {"code", "message", "details"}}`` with
status 400 (bad input), 413 (body, batch or image too large), 415 (content type) or 422 (the model
cannot run on the input: ONNX Runtime refused its shape or type).
"""

from __future__ import annotations

import base64
import binascii
import io
import json
import re
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from email.parser import BytesParser
from email.policy import HTTP
from typing import Any, cast

import numpy as np
from PIL import Image, ImageOps, UnidentifiedImageError

from workers.contracts.data_kind import DATA_KINDS
from workers.contracts.prediction import (
    PREDICTION_ANSWER_VERSION,
    ClassificationPrediction,
    DetectionPrediction,
    ForecastPrediction,
    PredictionAnswer,
    PredictionKind,
    PredictionModelVersion,
    RegressionPrediction,
)

DEFAULT_MAX_BATCH = 32
DEFAULT_TOP_K = 5
MAX_TOP_K = 1000
DEFAULT_MAX_IMAGE_PIXELS = 40_000_000
DEFAULT_MAX_BODY_BYTES = 20 * 1024 * 1024
DEFAULT_MAX_TEXT_CHARS = 100_000
DEFAULT_MAX_JSON_DEPTH = 64
DEFAULT_SCORE_THRESHOLD = 0.3
DEFAULT_MAX_DETECTIONS = 100
MAX_DETECTIONS = 1000
DETECTION_OPTIONS = ("score_threshold", "max_detections")
FORECAST_OPTIONS = ("horizon", "quantiles")
JSON_TYPES = ("application/json",)
RAW_IMAGE_TYPES = ("application/octet-stream",)


class PredictionInputError(ValueError):
    """A request the predictor cannot answer; ``status`` is the HTTP status to reply with.

    >>> PredictionInputError(400, "empty_input", "no instances").as_dict()["error"]["code"]
    'empty_input'
    """

    def __init__(self, status: int, code: str, message: str, details: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.details = details or {}

    def as_dict(self) -> dict[str, Any]:
        return {"error": {"code": self.code, "message": self.message, "details": self.details}}

    def body(self) -> bytes:
        return json.dumps(self.as_dict()).encode()


class JSONNestingError(PredictionInputError):
    """A JSON document nested deeper than the limit (400 ``parse_error``); ``limit`` is the depth allowed."""

    def __init__(self, limit: int) -> None:
        super().__init__(
            400,
            "parse_error",
            f"The JSON body is nested deeper than {limit} levels of arrays and "
            f"objects, the limit; send a flatter document.",
            {"max_depth": limit},
        )
        self.limit = limit


# A JSON string, escapes included; an unterminated one runs to the end (json.loads then reports it).
# It cannot fail to match once it has its opening quote, so it never backtracks.
_JSON_STRING = re.compile(rb'"[^"\\]*(?:\\[\s\S]?[^"\\]*)*(?:"|\Z)')
_OPEN, _CLOSE = b"\x01", b"\x02"
_BRACKETS = bytes.maketrans(b"[{]}", _OPEN * 2 + _CLOSE * 2)
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[{]}")


def _nested_deeper_than(data: bytes, max_depth: int) -> bool:
    """Whether arrays/objects in ``data`` nest deeper than ``max_depth``, without recursion: strings
    are cut out, the brackets kept, then each pass deletes the innermost ``[]``/``{}`` pairs, which
    lowers the nesting by exactly one level, all in C (re.sub, bytes.translate, bytes.replace): linear
    in the body, no Python loop per byte."""
    if data.count(b"[") + data.count(b"{") <= max_depth:  # most requests: too few brackets to nest deeper
        return False
    brackets = _JSON_STRING.sub(b"", data).translate(_BRACKETS, _NOT_BRACKETS)
    leaf = _OPEN + _CLOSE
    for passes in range(max_depth + 1):
        if brackets.count(_OPEN) + passes <= max_depth:
            return False
        if _OPEN * (max_depth + 1 - passes) in brackets:  # a run of openers: deep for sure, say so at once
            return True
        reduced = brackets.replace(leaf, b"")
        if reduced == brackets:  # only unmatched brackets are left (invalid JSON): count them as nesting
            return brackets.count(_OPEN) + passes > max_depth
        brackets = reduced
    return True  # not reached: the last pass above always answers


def loads_json(data: bytes | str, *, max_depth: int = DEFAULT_MAX_JSON_DEPTH) -> Any:
    """``json.loads`` that refuses documents nested deeper than ``max_depth`` before parsing them
    (:class:`JSONNestingError`, a ValueError), so 50,000 nested arrays never reach the recursive parser.
    Invalid JSON raises ``json.JSONDecodeError`` (or UnicodeDecodeError) as ``json.loads`` does.

    >>> loads_json(b'{"a": [1, [2]]}')
    {'a': [1, [2]]}
    >>> try:
    ...     loads_json("[" * 100 + "]" * 100)
    ... except JSONNestingError as exc:
    ...     print(exc.code, exc.limit)
    parse_error 64
    """
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else bytes(data)
    if _nested_deeper_than(raw, max_depth):
        raise JSONNestingError(max_depth)
    return json.loads(data)


@dataclass
class ParsedRequest:
    """What a request asks: the decoded instances, ``top_k`` and, for detectors, ``options``
    (``{"score_threshold": 0.3, "max_detections": 100}``, validated)."""

    instances: list[Any]
    top_k: int = DEFAULT_TOP_K
    extra: dict[str, Any] = field(default_factory=dict)
    options: dict[str, Any] = field(default_factory=dict)


def media_type(content_type: str | None) -> str:
    """``"Image/PNG; charset=x"`` -> ``"image/png"``."""
    return (content_type or "").split(";", 1)[0].strip().lower()


def check_body_size(length: int | None, *, max_body_bytes: int = DEFAULT_MAX_BODY_BYTES) -> None:
    """Refuse a body over the limit before reading it (413), from its declared Content-Length."""
    if length is not None and length > max_body_bytes:
        raise PredictionInputError(
            413,
            "body_too_large",
            f"The request body is {length:,} bytes; at most {max_body_bytes:,} are accepted.",
            {"size_bytes": length, "limit_bytes": max_body_bytes},
        )


def decode_image(
    data: bytes, *, where: str = "image", max_pixels: int = DEFAULT_MAX_IMAGE_PIXELS
) -> Image.Image:
    """Decode image bytes by content: the first frame, EXIF orientation applied, mode untouched."""
    if not data:
        raise PredictionInputError(400, "empty_input", f"{where} is empty.", {"field": where})
    with warnings.catch_warnings():
        warnings.simplefilter("error", Image.DecompressionBombWarning)
        try:
            image: Image.Image = Image.open(io.BytesIO(data))
        except UnidentifiedImageError:
            raise PredictionInputError(
                400,
                "invalid_image",
                f"{where} is not an image Pillow can read (checked by content).",
                {"field": where},
            ) from None
        except (Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:
            raise PredictionInputError(413, "image_too_large", f"{where}: {exc}", {"field": where}) from None
        except (OSError, ValueError, SyntaxError) as exc:
            raise PredictionInputError(
                400, "invalid_image", f"{where} has an unreadable image header ({exc}).", {"field": where}
            ) from None
        width, height = image.size
        if width < 1 or height < 1:
            raise PredictionInputError(
                400, "invalid_image", f"{where} has no pixels ({width}x{height}).", {"field": where}
            )
        if width * height > max_pixels:
            raise PredictionInputError(
                413,
                "image_too_large",
                f"{where} is {width}x{height} = {width * height:,} pixels, over the "
                f"{max_pixels:,}-pixel limit.",
                {"field": where, "pixels": width * height, "limit_pixels": max_pixels},
            )
        try:
            image.load()
            if image.format in ("JPEG", "WEBP", "TIFF", "MPO"):
                image = ImageOps.exif_transpose(image)
        except (Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:
            raise PredictionInputError(413, "image_too_large", f"{where}: {exc}", {"field": where}) from None
        except (OSError, ValueError, SyntaxError, EOFError) as exc:
            message = str(exc) or type(exc).__name__
            raise PredictionInputError(
                400,
                "invalid_image",
                f"{where} cannot be decoded as {image.format or 'an image'}: {message}.",
                {"field": where},
            ) from None
    if image.mode == "F" and not np.isfinite(np.asarray(image)).all():  # getextrema() skips NaN
        raise PredictionInputError(
            400,
            "invalid_image",
            f"{where} is a float image holding values that are not finite numbers.",
            {"field": where},
        )
    return image


def decode_base64(value: Any, *, where: str) -> bytes:
    if not isinstance(value, str):
        raise PredictionInputError(
            400,
            "invalid_base64",
            f"{where} must be a base64 string, got {type(value).__name__}.",
            {"field": where},
        )
    if value.startswith("data:"):  # a data URL as browsers' FileReader gives it
        _, sep, value = value.partition(",")
        if not sep:
            raise PredictionInputError(
                400, "invalid_base64", f"{where} is a data URL without data.", {"field": where}
            )
    try:
        return base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        try:  # tolerate line breaks (e.g. `base64` without -w0) and URL-safe alphabets
            return base64.b64decode("".join(value.split()).replace("-", "+").replace("_", "/"), validate=True)
        except (binascii.Error, ValueError):
            raise PredictionInputError(
                400, "invalid_base64", f"{where} is not valid base64.", {"field": where}
            ) from None


def parse_top_k(value: Any) -> int:
    if value is None:
        return DEFAULT_TOP_K
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value.strip())
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_TOP_K:
        raise PredictionInputError(
            400,
            "invalid_top_k",
            f"top_k must be an integer from 1 to {MAX_TOP_K}, got {value!r}.",
            {"field": "top_k"},
        )
    return int(value)


def parse_score_threshold(value: Any) -> float:
    """A detector's ``score_threshold``: a number from 0 to 1 (a numeric string from a query or form)."""
    if value is None:
        return DEFAULT_SCORE_THRESHOLD
    number: Any = value
    if isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            number = value
    if isinstance(number, bool) or not isinstance(number, int | float) or not 0.0 <= number <= 1.0:
        raise PredictionInputError(
            400,
            "invalid_score_threshold",
            f"score_threshold must be a number from 0 to 1, got {value!r}.",
            {"field": "score_threshold"},
        )
    return float(number)


def parse_max_detections(value: Any) -> int:
    """A detector's ``max_detections`` per image: an integer from 1 to 1000."""
    if value is None:
        return DEFAULT_MAX_DETECTIONS
    number: Any = value
    if isinstance(value, str) and value.strip().isdigit():
        number = int(value.strip())
    if isinstance(number, bool) or not isinstance(number, int) or not 1 <= number <= MAX_DETECTIONS:
        raise PredictionInputError(
            400,
            "invalid_max_detections",
            f"max_detections must be an integer from 1 to {MAX_DETECTIONS}, got {value!r}.",
            {"field": "max_detections"},
        )
    return int(number)


def detection_options(sent: Mapping[str, Any], query: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """A detector's validated options from the body's fields (``sent``), else the query string.

    >>> detection_options({"score_threshold": 0.5}, {"max_detections": "10"})
    {'score_threshold': 0.5, 'max_detections': 10}
    """
    query = query or {}

    def raw(name: str) -> Any:
        return sent[name] if sent.get(name) is not None else query.get(name)

    return {
        "score_threshold": parse_score_threshold(raw("score_threshold")),
        "max_detections": parse_max_detections(raw("max_detections")),
    }


def _check_batch(count: int, max_batch: int) -> None:
    if count == 0:
        raise PredictionInputError(
            400, "empty_input", "The request has no instances to predict.", {"field": "instances"}
        )
    if count > max_batch:
        raise PredictionInputError(
            413,
            "batch_too_large",
            f"The request has {count} instances; at most {max_batch} are accepted per request.",
            {"count": count, "max_batch": max_batch},
        )


def _instance(raw: Any, *, index: int, data_kind: str, max_pixels: int) -> Any:
    where = f"instances[{index}]"
    if not isinstance(raw, dict):
        raise PredictionInputError(400, "invalid_instance", f"{where} must be an object.", {"field": where})
    if data_kind == "image":
        if "image" not in raw:
            raise PredictionInputError(
                400, "invalid_instance", f"{where} has no 'image' (a base64 string).", {"field": where}
            )
        return decode_image(
            decode_base64(raw["image"], where=f"{where}.image"), where=f"{where}.image", max_pixels=max_pixels
        )
    if data_kind == "text":
        text = raw.get("text")
        if not isinstance(text, str):
            raise PredictionInputError(
                400, "invalid_instance", f"{where}.text must be a string.", {"field": f"{where}.text"}
            )
        if not text.strip():
            raise PredictionInputError(
                400, "empty_input", f"{where}.text is empty.", {"field": f"{where}.text"}
            )
        if len(text) > DEFAULT_MAX_TEXT_CHARS:
            raise PredictionInputError(
                413,
                "text_too_long",
                f"{where}.text has {len(text):,} characters; at most "
                f"{DEFAULT_MAX_TEXT_CHARS:,} are accepted.",
                {"field": f"{where}.text"},
            )
        return text
    if not raw:
        raise PredictionInputError(400, "empty_input", f"{where} has no columns.", {"field": where})
    return raw


def _parse_json(body: bytes, *, data_kind: str, max_batch: int, max_pixels: int) -> ParsedRequest:
    try:
        payload = loads_json(body)
    except PredictionInputError:
        raise
    except (UnicodeDecodeError, ValueError) as exc:
        raise PredictionInputError(400, "invalid_json", f"The body is not valid JSON ({exc}).") from None
    if not isinstance(payload, dict):
        raise PredictionInputError(400, "invalid_json", "The body must be a JSON object with 'instances'.")
    if data_kind == "time_series":
        return _parse_forecast(payload, max_batch=max_batch)
    top_k = parse_top_k(payload.get("top_k"))
    if "instances" in payload:
        raw = payload["instances"]
        if not isinstance(raw, list):
            raise PredictionInputError(
                400, "invalid_instance", "'instances' must be a list of objects.", {"field": "instances"}
            )
    elif (data_kind == "image" and "image" in payload) or (data_kind == "text" and "text" in payload):
        raw = [{k: v for k, v in payload.items() if k != "top_k" and k not in DETECTION_OPTIONS}]
    else:
        expected = {
            "image": '{"instances": [{"image": "<base64>"}]}',
            "text": '{"instances": [{"text": "..."}]}',
        }.get(data_kind, '{"instances": [{...}]}')
        raise PredictionInputError(
            400, "empty_input", f"The body has no 'instances'; send {expected}.", {"field": "instances"}
        )
    _check_batch(len(raw), max_batch)
    instances = [
        _instance(item, index=i, data_kind=data_kind, max_pixels=max_pixels) for i, item in enumerate(raw)
    ]
    sent = {name: payload[name] for name in DETECTION_OPTIONS if name in payload}
    return ParsedRequest(instances=instances, top_k=top_k, extra=sent)


def _parse_forecast(payload: dict[str, Any], *, max_batch: int) -> ParsedRequest:
    """A forecaster's request (a ForecastInstances): the series as sent (the predictor checks each
    against its spec, ``workers.time_series.history``), ``horizon`` and ``quantiles`` in ``options``."""
    raw = payload.get("instances")
    if raw is None:
        raise PredictionInputError(
            400,
            "empty_input",
            'The body has no \'instances\'; send {"instances": [{"timestamps": [...], "values": [...]}]}.',
            {"field": "instances"},
        )
    if not isinstance(raw, list):
        raise PredictionInputError(
            400, "invalid_instance", "'instances' must be a list of objects.", {"field": "instances"}
        )
    _check_batch(len(raw), max_batch)
    for index, item in enumerate(raw):
        if not isinstance(item, dict):
            raise PredictionInputError(
                400,
                "invalid_instance",
                f"instances[{index}] must be an object with 'timestamps' and 'values'.",
                {"field": f"instances[{index}]", "series": index},
            )
    options = {name: payload[name] for name in FORECAST_OPTIONS if payload.get(name) is not None}
    return ParsedRequest(instances=list(raw), top_k=DEFAULT_TOP_K, options=options)


def _parse_multipart(
    content_type: str, body: bytes, *, data_kind: str, max_batch: int, max_pixels: int
) -> ParsedRequest:
    if data_kind != "image":
        raise PredictionInputError(
            415,
            "unsupported_media_type",
            'multipart/form-data is accepted for image models only; send JSON {"instances": [...]}.',
        )
    if "boundary=" not in content_type:
        raise PredictionInputError(
            400, "invalid_multipart", "The multipart/form-data Content-Type has no boundary."
        )
    message = BytesParser(policy=HTTP).parsebytes(
        b"Content-Type: " + content_type.encode("latin-1") + b"\r\n\r\n" + body
    )
    if not message.is_multipart():
        raise PredictionInputError(400, "invalid_multipart", "The multipart/form-data body cannot be parsed.")
    files: list[tuple[str, bytes]] = []
    top_k_raw: Any = None
    sent: dict[str, Any] = {}
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        payload = cast(bytes, part.get_payload(decode=True) or b"")  # decode=True: a leaf's bytes
        if name == "file":
            files.append((part.get_filename() or f"file {len(files) + 1}", payload))
        elif name == "top_k":
            top_k_raw = payload.decode("utf-8", "replace").strip()
        elif isinstance(name, str) and name in DETECTION_OPTIONS:
            sent[name] = payload.decode("utf-8", "replace").strip()
    top_k = parse_top_k(top_k_raw)
    if not files:
        raise PredictionInputError(
            400, "empty_input", "The multipart body has no part named 'file'.", {"field": "file"}
        )
    _check_batch(len(files), max_batch)
    images = [
        decode_image(data, where=f"file {filename!r}", max_pixels=max_pixels) for filename, data in files
    ]
    return ParsedRequest(instances=images, top_k=top_k, extra=sent)


def parse_request(
    *,
    content_type: str | None,
    body: bytes,
    data_kind: str = "image",
    max_batch: int = DEFAULT_MAX_BATCH,
    max_image_pixels: int = DEFAULT_MAX_IMAGE_PIXELS,
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
    query_top_k: str | None = None,
    prediction_kind: str | None = None,
    query: Mapping[str, str] | None = None,
) -> ParsedRequest:
    """Parse a prediction request body into instances the predictor takes (PIL images, texts, rows).

    Raises :class:`PredictionInputError` naming the problem. ``query_top_k`` (``?top_k=3``) is
    used for raw image bodies, which have nowhere else to say it. For a detector
    (``prediction_kind="detection_prediction"``) ``options`` holds its validated ``score_threshold``
    and ``max_detections`` from the body, else ``query`` (the query string's parameters).

    >>> parse_request(content_type="application/json", body=b'{"instances": []}')  # doctest: +SKIP
    PredictionInputError: The request has no instances to predict.
    """
    if data_kind not in DATA_KINDS:
        raise ValueError(f"data_kind must be one of {DATA_KINDS}, got {data_kind!r}")
    parsed = _parse_body(
        content_type=content_type,
        body=body,
        data_kind=data_kind,
        max_batch=max_batch,
        max_image_pixels=max_image_pixels,
        max_body_bytes=max_body_bytes,
        query_top_k=query_top_k,
    )
    if prediction_kind == "detection_prediction":
        parsed.options = detection_options(parsed.extra, query)
    return parsed


def _parse_body(
    *,
    content_type: str | None,
    body: bytes,
    data_kind: str,
    max_batch: int,
    max_image_pixels: int,
    max_body_bytes: int,
    query_top_k: str | None,
) -> ParsedRequest:
    check_body_size(len(body), max_body_bytes=max_body_bytes)
    kind = media_type(content_type)
    if not body:
        raise PredictionInputError(400, "empty_input", "The request body is empty.")
    if kind in JSON_TYPES or kind.endswith("+json"):
        return _parse_json(body, data_kind=data_kind, max_batch=max_batch, max_pixels=max_image_pixels)
    if kind == "multipart/form-data":
        return _parse_multipart(
            content_type or "", body, data_kind=data_kind, max_batch=max_batch, max_pixels=max_image_pixels
        )
    if data_kind == "image" and (kind.startswith("image/") or kind in RAW_IMAGE_TYPES):
        return ParsedRequest(
            instances=[decode_image(body, where="the request body", max_pixels=max_image_pixels)],
            top_k=parse_top_k(query_top_k),
        )
    accepted = (
        "application/json, multipart/form-data or image/*" if data_kind == "image" else "application/json"
    )
    raise PredictionInputError(
        415,
        "unsupported_media_type",
        f"Content-Type {kind or '(none)'!r} is not accepted; send {accepted}.",
        {"content_type": kind, "accepted": accepted},
    )


def response_body(
    *,
    kind: PredictionKind,
    model_version: PredictionModelVersion | Mapping[str, Any],
    predictions: Sequence[Sequence[Mapping[str, Any]]] | Sequence[Mapping[str, Any]],
    latency_ms: float,
    details: Sequence[Mapping[str, Any]] | None = None,
) -> bytes:
    """The JSON answer (a :class:`~workers.contracts.prediction.PredictionAnswer`), as bytes.

    ``predictions`` holds each instance's ``top_k`` as the predictor made it (classes with scores, or
    one ``{"value": v}``), or for ``detection_prediction`` each image's whole prediction (``boxes``,
    ``width``, ``height``), for ``forecast_prediction`` each series' ForecastPrediction; ``details``
    adds keys to each prediction (tabular: ``imputed``). Not
    validated here: this is the hot path, and the predictors produce the contract's shapes.
    """
    answers: list[Any]
    if kind in ("detection_prediction", "forecast_prediction"):
        answers = list(predictions)
    elif details is None:
        answers = [{"top_k": p} for p in predictions]
    else:
        answers = [{"top_k": p, **extra} for p, extra in zip(predictions, details, strict=True)]
    answer: PredictionAnswer = {
        "kind": kind,
        "version": PREDICTION_ANSWER_VERSION,
        "model_version": cast(PredictionModelVersion, model_version),
        "predictions": cast(
            list[ClassificationPrediction]
            | list[RegressionPrediction]
            | list[DetectionPrediction]
            | list[ForecastPrediction],
            answers,
        ),
        "latency_ms": round(latency_ms, 3),
    }
    return json.dumps(answer).encode()
