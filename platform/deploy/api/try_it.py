"""Try a model before (and after) deploying it, signed in, without a deployment key (EasyDL's 校验模型).

- ``POST /api/v1/model-versions/{id}/try/``: any model version the user can read, no deployment
  needed; nothing is recorded in any deployment's usage.
- ``POST /api/v1/deployments/{id}/try/``: the model version the deployment serves right now, as
  its traffic split picks it (a canary answers its share; the shadow gets a copy) (409
  when it is stopped), so the browser's Try it tab needs no key; the call counts in the deployment's
  usage as a call without a key.

Both take the hosted endpoint's requests and give its answers (``deploy.api.predict.answer_with``:
the same parser, limits, error codes and ONNX Runtime predictor), with a smaller batch limit
(SAMPAN_TRY_MAX_BATCH, 10) and a per-user rate limit (SAMPAN_TRY_PER_MINUTE, 60; 429 with
Retry-After).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping

from deploy import serving
from deploy.api.predict import (
    Answer,
    answer_chosen,
    answer_with,
    error_answer,
    record_usage,
    unavailable_answer,
)


def read_body_first(request) -> None:
    """Read a request's raw body before DRF authenticates it: the CSRF check of a session request
    reads ``request.POST``, which consumes a multipart body the prediction parser needs as bytes.
    A body over the limit is left unread (the answer is a 413 before it would be read)."""
    try:
        length = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        return
    if 0 < length <= serving.max_body_bytes():
        request.body  # noqa: B018 - cached on the request from here on


def _throttled(user_id: int) -> Answer | None:
    limit = serving.try_per_minute()
    if limit <= 0:
        return None
    wait = serving.quotas.count(f"try:user:{user_id}", limit, time.time())
    if not wait:
        return None
    return error_answer(
        429,
        "throttled",
        f"You may try models {limit} times per minute; retry in {wait} s.",
        {"retry_after_seconds": wait, "per_minute": limit},
        headers=(("Retry-After", str(wait)),),
    )


def try_model_version(
    model_version, *, user_id: int, meta: Mapping, read_body: Callable[[], bytes], top_k: str | None
) -> Answer:
    """Answer a prediction request with ``model_version`` (a training.ModelVersion the user may read)."""
    if not model_version.onnx_key:
        return error_answer(
            409,
            "model_not_servable",
            f"Model version {model_version.name} has no ONNX file, so it cannot answer predictions.",
        )
    refused = _throttled(user_id)
    if refused is not None:
        return refused
    return answer_with(
        serving.model_version_state(model_version),
        meta=meta,
        read_body=read_body,
        query_top_k=lambda: top_k,
        max_batch=serving.try_max_batch(),
    )


def try_deployment(
    deployment_id: int, *, user_id: int, meta: Mapping, read_body: Callable[[], bytes], top_k: str | None
) -> Answer:
    """Answer a prediction request as deployment ``deployment_id`` serves it now (the user may read it)."""
    started = time.perf_counter()
    try:
        state = serving.states.get(deployment_id)
    except serving.ServingUnavailable as exc:
        return unavailable_answer(exc)
    if state is None:
        return error_answer(404, "not_found", "No such deployment.")
    if not state.active:
        return error_answer(
            409, "deployment_stopped", "This deployment is stopped; start it to serve predictions."
        )
    refused = _throttled(user_id)
    if refused is not None:
        return refused
    answer, mv, served = answer_chosen(
        state,
        None,
        meta=meta,
        read_body=read_body,
        query_top_k=lambda: top_k,
        max_batch=serving.try_max_batch(),
    )
    record_usage(state.id, None, started, answer, mv, served)
    return answer
