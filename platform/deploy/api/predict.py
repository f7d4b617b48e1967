"""POST /api/v1/deployments/{id}/predict/ as a plain Django view: no DRF request, parsers,
authentication classes or renderers on the hot path; bytes in, bytes out.

Per request: one indexed read of the deployment's serving stamp (deploy.serving), a sha256 of the
key, the quota counter when the key has a quota, the decode/preprocess/ONNX Runtime call, and an
in-memory usage record.
"""

from __future__ import annotations

import hashlib
import json
import logging
import time

from django.http import HttpResponse

from deploy import serving
from deploy.usage import recorder
from workers.serving.protocol import PredictionInputError, check_body_size, parse_request, response_body

logger = logging.getLogger("sampan.deploy")
KEY_HEADER = "HTTP_X_SAMPAN_KEY"


def _error(status: int, code: str, message: str, details: dict | None = None, headers: dict | None = None):
    response = HttpResponse(json.dumps({"error": {"code": code, "message": message, "details": details or {}}}),
                            status=status, content_type="application/json")
    for name, value in (headers or {}).items():
        response[name] = value
    return response


def _unauthorized(code: str, message: str):
    return _error(401, code, message, headers={"WWW-Authenticate": 'Bearer realm="deployment"'})


def presented_key(request) -> str | None:
    key = request.META.get(KEY_HEADER)
    if key:
        return key.strip()
    header = request.META.get("HTTP_AUTHORIZATION", "")
    scheme, _, value = header.partition(" ")
    if scheme.lower() == "bearer" and value.strip():
        return value.strip()
    return None


def _key_of_another_deployment(digest: str) -> bool:
    from deploy.models import DeploymentKey

    return DeploymentKey.objects.filter(digest=digest).exists()


def predict(request, deployment_id: int):
    started = time.perf_counter()
    if request.method != "POST":
        return _error(405, "method_not_allowed", f"Method {request.method} is not allowed; POST a prediction request.",
                      headers={"Allow": "POST"})
    raw_key = presented_key(request)
    if not raw_key:
        return _unauthorized("missing_key", "Send a key of this deployment: 'Authorization: Bearer spd_...' or "
                                            "'X-Sampan-Key: spd_...'.")
    state = serving.states.get(deployment_id)
    digest = hashlib.sha256(raw_key.encode("utf-8", "surrogatepass")).hexdigest()
    key = state.keys.get(digest) if state is not None else None
    if key is None:
        if _key_of_another_deployment(digest):
            return _error(403, "key_wrong_deployment", "This key belongs to another deployment.")
        return _unauthorized("invalid_key", "Invalid deployment key.")
    if key.revoked:
        return _unauthorized("key_revoked", "This deployment key has been revoked.")
    now = time.time()
    if serving.expired(key, now):
        return _unauthorized("key_expired", "This deployment key has expired.")
    response = _answer(request, state, key, now)
    recorder.record(deployment_id=state.id, key_id=key.id, latency_ms=(time.perf_counter() - started) * 1000,
                    error=response.status_code >= 400)
    return response


def _answer(request, state: serving.DeploymentState, key: serving.KeyState, now: float):
    started = time.perf_counter()
    if not state.active:
        return _error(409, "deployment_stopped", "This deployment is stopped; start it to serve predictions.")
    wait = serving.quotas.hit(key, now)
    if wait:
        return _error(429, "quota_exceeded", f"This key may make {key.quota_per_minute} calls per minute; retry in "
                      f"{wait} s.", {"retry_after_seconds": wait, "quota_per_minute": key.quota_per_minute},
                      headers={"Retry-After": str(wait)})
    try:
        length = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        return _error(400, "bad_request", "Content-Length header is not a number.")
    limit = serving.max_body_bytes()
    try:
        check_body_size(length, max_body_bytes=limit)
        mv = state.model_version
        try:
            predictor = serving.predictors.get(mv)
        except serving.ModelUnavailable as exc:
            return _error(503, "model_unavailable", str(exc), headers={"Retry-After": "30"})
        parsed = parse_request(content_type=request.META.get("CONTENT_TYPE"), body=request.body,
                               input_kind=predictor.input_kind, max_batch=serving.max_batch(),
                               max_image_pixels=serving.max_image_pixels(), max_body_bytes=limit,
                               query_top_k=request.GET.get("top_k") if request.META.get("QUERY_STRING") else None)
    except PredictionInputError as exc:
        return HttpResponse(exc.body(), status=exc.status, content_type="application/json")
    predictions = predictor.predict(parsed.instances, parsed.top_k)
    response = HttpResponse(response_body(model_version=mv.public, predictions=predictions,
                                          latency_ms=(time.perf_counter() - started) * 1000),
                            content_type="application/json")
    response["X-Sampan-Model-Version"] = str(mv.id)
    return response
