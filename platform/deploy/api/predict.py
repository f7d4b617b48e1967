"""POST /api/v1/deployments/{id}/predict/: bytes in, bytes out, no DRF on the hot path.

``serve`` answers a prediction request from its WSGI environ (or ``request.META``, the same dict)
and returns an ``Answer`` (status, headers, body). Two callers share it, so both give the same
answers:

- ``predict``, the plain Django view behind the URL route (the OpenAPI schema's view; reached when
  a request comes through Django's handler, e.g. the test client or a request the WSGI fast path
  hands to Django);
- ``deploy.api.fastpath``, which config/wsgi.py puts in front of Django: it answers requests to
  this path straight from the environ, without the middleware chain or an HttpRequest.

Per request: one indexed read of the deployment's serving stamp (deploy.serving), a sha256 of the
key, the quota counter when the key has a quota, the decode/preprocess/ONNX Runtime call, and an
in-memory usage record.
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl

from accounts.throttle import client_address, key_by_address
from django.db import DatabaseError
from django.http import HttpResponse

from deploy import serving, shadow
from deploy.usage import answer_values, recorder
from workers.serving.predictors import predict_instances
from workers.serving.protocol import PredictionInputError, check_body_size, parse_request, response_body

logger = logging.getLogger("sampan.deploy")
KEY_HEADER = "HTTP_X_SAMPAN_KEY"


@dataclass(slots=True)
class Answer:
    status: int
    body: bytes
    headers: tuple[tuple[str, str], ...] = ()  # besides Content-Type (always application/json)


def error_answer(
    status: int,
    code: str,
    message: str,
    details: dict | None = None,
    headers: tuple[tuple[str, str], ...] = (),
) -> Answer:
    return Answer(
        status,
        json.dumps({"error": {"code": code, "message": message, "details": details or {}}}).encode(),
        headers,
    )


def unavailable_answer(exc: serving.ServingUnavailable) -> Answer:
    """503 while the database is away: the client may retry after the outage's estimate."""
    return error_answer(
        503,
        "database_unavailable",
        str(exc),
        {"retry_after_seconds": exc.retry_after},
        headers=(("Retry-After", str(exc.retry_after)),),
    )


def _unauthorized(code: str, message: str) -> Answer:
    return error_answer(401, code, message, headers=(("WWW-Authenticate", 'Bearer realm="deployment"'),))


def presented_key(meta: Mapping) -> str | None:
    key = meta.get(KEY_HEADER)
    if key:
        return key.strip()
    header = meta.get("HTTP_AUTHORIZATION", "")
    scheme, _, value = header.partition(" ")
    if scheme.lower() == "bearer" and value.strip():
        return value.strip()
    return None


def _key_of_another_deployment(digest: str) -> bool:
    from deploy.models import DeploymentKey

    try:
        return DeploymentKey.objects.filter(digest=digest).exists()
    except (
        DatabaseError
    ):  # the database is away (deploy.serving): the key is not this deployment's, that is all
        return False


def _too_many_failures(wait: int) -> Answer:
    return error_answer(
        429,
        "throttled",
        f"Too many invalid deployment keys from this address. Expected available in {wait} seconds.",
        {"retry_after_seconds": wait},
        headers=(("Retry-After", str(wait)),),
    )


def _refused(meta: Mapping, answer: Answer) -> Answer:
    """A key that does not authenticate counts against the client's address (accounts.throttle);
    past the limit the answer is a 429 instead."""
    wait = key_by_address.failed(client_address(meta))
    return _too_many_failures(wait) if wait else answer


def serve(
    deployment_id: int,
    *,
    method: str,
    meta: Mapping,
    read_body: Callable[[], bytes],
    query_top_k: Callable[[], str | None],
    started: float | None = None,
) -> Answer:
    """Answer one prediction request. ``meta`` is the WSGI environ; ``read_body`` is called at most
    once, after the key, state and Content-Length checks; ``query_top_k`` gives ``?top_k=`` (or None)."""
    started = time.perf_counter() if started is None else started
    if method != "POST":
        return error_answer(
            405,
            "method_not_allowed",
            f"Method {method} is not allowed; POST a prediction request.",
            headers=(("Allow", "POST"),),
        )
    raw_key = presented_key(meta)
    if not raw_key:
        return _unauthorized(
            "missing_key",
            "Send a key of this deployment: 'Authorization: Bearer spd_...' or 'X-Sampan-Key: spd_...'.",
        )
    if key_by_address.blocking:  # someone is guessing keys: is it this address?
        wait = key_by_address.blocked_here(client_address(meta))
        if wait:
            return _too_many_failures(wait)
    try:
        state = serving.states.get(deployment_id)
    except serving.ServingUnavailable as exc:
        return unavailable_answer(exc)
    digest = hashlib.sha256(raw_key.encode("utf-8", "surrogatepass")).hexdigest()
    key = state.keys.get(digest) if state is not None else None
    if key is None:
        if _key_of_another_deployment(digest):
            return _refused(
                meta, error_answer(403, "key_wrong_deployment", "This key belongs to another deployment.")
            )
        return _refused(meta, _unauthorized("invalid_key", "Invalid deployment key."))
    assert state is not None  # a key was found in it
    if key.revoked:
        return _refused(meta, _unauthorized("key_revoked", "This deployment key has been revoked."))
    now = time.time()
    if serving.expired(key, now):
        return _refused(meta, _unauthorized("key_expired", "This deployment key has expired."))
    answer, mv, served = _answer(meta, read_body, query_top_k, state, key, now)
    record_usage(state.id, key.id, started, answer, mv, served)
    return answer


@dataclass(slots=True)
class Served:
    """What a version answered to one request: handed to the shadow and to capture."""

    data_kind: str
    kind: str
    instances: Sequence[Any]
    predictions: Sequence[Any]
    top_k: int
    options: dict[str, Any] | None


def record_usage(
    deployment_id: int,
    key_id: int | None,
    started: float,
    answer: Answer,
    mv: serving.ModelVersionState | None,
    served: Served | None,
) -> None:
    recorder.record(
        deployment_id=deployment_id,
        key_id=key_id,
        latency_ms=(time.perf_counter() - started) * 1000,
        error=answer.status >= 400,
        model_version_id=None if mv is None else mv.id,
        answers=() if served is None else answer_values(served.kind, served.predictions),
        regression=served is not None and served.kind == "regression_prediction",
    )


def answer_chosen(
    state: serving.DeploymentState,
    key_id: int | None,
    *,
    meta: Mapping,
    read_body: Callable[[], bytes],
    query_top_k: Callable[[], str | None],
    max_batch: int | None = None,
) -> tuple[Answer, serving.ModelVersionState, Served | None]:
    """Answer with the version the traffic split picks for this request (all of it from that one
    version), then hand the answered request to the shadow (a queue put) or, without a shadow, to
    capture."""
    mv = state.choose(key_id)
    answered: list[Served] = []
    answer = answer_with(
        mv,
        meta=meta,
        read_body=read_body,
        query_top_k=query_top_k,
        max_batch=max_batch,
        on_served=answered.append,
    )
    served = answered[0] if answered else None
    # a forecaster's deployment has no shadow or capture (template_not_supported); one switched to a
    # forecaster while they were on keeps them off until it serves another template again
    if served is not None and served.kind != "forecast_prediction":
        if state.shadow is not None:
            shadow.runner.submit(
                shadow.ShadowTask(
                    state=state,
                    key_id=key_id,
                    served=mv,
                    data_kind=served.data_kind,
                    kind=served.kind,
                    instances=served.instances,
                    predictions=served.predictions,
                    top_k=served.top_k,
                    options=served.options,
                )
            )
        elif state.capture is not None:
            shadow.offer_capture(
                state=state,
                key_id=key_id,
                model_version=mv,
                data_kind=served.data_kind,
                instances=served.instances,
                predictions=served.predictions,
            )
    return answer, mv, served


def _answer(
    meta: Mapping,
    read_body: Callable[[], bytes],
    query_top_k: Callable[[], str | None],
    state: serving.DeploymentState,
    key: serving.KeyState,
    now: float,
) -> tuple[Answer, serving.ModelVersionState | None, Served | None]:
    if not state.active:
        return (
            error_answer(
                409, "deployment_stopped", "This deployment is stopped; start it to serve predictions."
            ),
            None,
            None,
        )
    wait = serving.quotas.hit(key, now)
    if wait:
        return (
            error_answer(
                429,
                "quota_exceeded",
                f"This key may make {key.quota_per_minute} calls per minute; retry in {wait} s.",
                {"retry_after_seconds": wait, "quota_per_minute": key.quota_per_minute},
                headers=(("Retry-After", str(wait)),),
            ),
            None,
            None,
        )
    return answer_chosen(state, key.id, meta=meta, read_body=read_body, query_top_k=query_top_k)


def answer_with(
    mv: serving.ModelVersionState,
    *,
    meta: Mapping,
    read_body: Callable[[], bytes],
    query_top_k: Callable[[], str | None],
    max_batch: int | None = None,
    on_served: Callable[[Served], None] | None = None,
) -> Answer:
    """Answer a prediction request with model version ``mv``: the size checks, the request parsing and
    the predictor every caller shares (the hosted endpoint and the session-authenticated try routes,
    deploy.api.try_it). ``max_batch`` lowers the batch limit (never raises it); ``on_served`` is given
    the parsed instances and the predictions of a 200 answer."""
    started = time.perf_counter()
    try:
        length = int(meta.get("CONTENT_LENGTH") or 0)
    except ValueError:
        return error_answer(400, "bad_request", "Content-Length header is not a number.")
    limit = serving.max_body_bytes()
    try:
        check_body_size(length, max_body_bytes=limit)
        try:
            predictor = serving.predictors.get(mv)
        except serving.ModelRejected as exc:  # not a servable ONNX model: no retry helps
            return error_answer(409, "model_not_servable", str(exc))
        except serving.ModelUnavailable as exc:
            return error_answer(503, "model_unavailable", str(exc), headers=(("Retry-After", "30"),))
        parsed = parse_request(
            content_type=meta.get("CONTENT_TYPE"),
            body=read_body(),
            data_kind=predictor.data_kind,
            max_batch=serving.max_batch() if max_batch is None else min(max_batch, serving.max_batch()),
            max_image_pixels=serving.max_image_pixels(),
            max_body_bytes=limit,
            query_top_k=query_top_k() if meta.get("QUERY_STRING") else None,
            prediction_kind=predictor.prediction_kind,
            query=_query(meta) if predictor.prediction_kind == "detection_prediction" else None,
        )
        # a predictor may refuse an instance only it can judge (a row with none of the model's columns)
        predictions, details = predict_instances(
            predictor, parsed.instances, parsed.top_k, options=parsed.options
        )
    except PredictionInputError as exc:
        return Answer(exc.status, exc.body())
    answer = Answer(
        200,
        response_body(
            kind=predictor.prediction_kind,
            model_version=mv.public,
            predictions=predictions,
            details=details,
            latency_ms=(time.perf_counter() - started) * 1000,
        ),
        (("X-Sampan-Model-Version", str(mv.id)),),
    )
    if on_served is not None:
        on_served(
            Served(
                data_kind=predictor.data_kind,
                kind=predictor.prediction_kind,
                instances=parsed.instances,
                predictions=predictions,
                top_k=parsed.top_k,
                options=dict(parsed.options) if parsed.options else None,
            )
        )
    return answer


def _query(meta: Mapping) -> dict[str, str]:
    """The query string's parameters (the last value of each), as a detector's options come."""
    raw = meta.get("QUERY_STRING") or ""
    return dict(parse_qsl(raw, keep_blank_values=True)) if raw else {}


def http_response(answer: Answer) -> HttpResponse:
    response = HttpResponse(answer.body, status=answer.status, content_type="application/json")
    for name, value in answer.headers:
        response[name] = value
    return response


def predict(request, deployment_id: int):
    """The Django view: the same answers as the WSGI fast path, through Django's request/response."""
    answer = serve(
        deployment_id,
        method=request.method,
        meta=request.META,
        read_body=lambda: request.body,
        query_top_k=lambda: request.GET.get("top_k"),
    )
    return http_response(answer)
