"""The baseline of benchmarks/hosted_predict.py: a bare Starlette app served by uvicorn, the same model
through the same predictor, the same base64 JSON (or raw image) request and the same answer.

What a hand-written model server does and no more: one static bearer key compared in constant time,
the request parsed by ``workers.serving.protocol.parse_request``, ``predict_instances`` on the
predictor the platform loads (``workers.serving.predictors.load_predictor``, one ONNX Runtime
intra-op thread), ``response_body``. No database, no key store, no quota, no usage record, no
security headers. The endpoint is ``async``: the predictor runs on the event loop's thread (ONNX
Runtime's call is short; a thread hop per request would cost more).

    SAMPAN_BARE_MODEL_DIR=run/ SAMPAN_BARE_KEY=secret \\
        uvicorn benchmarks.bare_predict_app:app --workers 2 --http httptools --loop uvloop
"""

from __future__ import annotations

import hmac
import os
import time

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from workers.serving.predictors import load_predictor, predict_instances
from workers.serving.protocol import PredictionInputError, parse_request, response_body

MODEL_DIR = os.environ["SAMPAN_BARE_MODEL_DIR"]
KEY = os.environ["SAMPAN_BARE_KEY"].encode()
predictor = load_predictor(MODEL_DIR, threads=1)
MODEL_VERSION = {"id": 1, "name": "V1", "template": predictor.template}


async def predict(request: Request) -> Response:
    started = time.perf_counter()
    scheme, _, presented = request.headers.get("authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not hmac.compare_digest(presented.strip().encode(), KEY):
        return Response(b'{"error": {"code": "invalid_key"}}', 401, media_type="application/json")
    try:
        parsed = parse_request(
            content_type=request.headers.get("content-type"),
            body=await request.body(),
            data_kind=predictor.data_kind,
            max_batch=32,
            query_top_k=request.query_params.get("top_k"),
            prediction_kind=predictor.prediction_kind,
        )
        predictions, details = predict_instances(predictor, parsed.instances, parsed.top_k)
    except PredictionInputError as exc:
        return Response(exc.body(), exc.status, media_type="application/json")
    body = response_body(
        kind=predictor.prediction_kind,
        model_version=MODEL_VERSION,
        predictions=predictions,
        details=details,
        latency_ms=(time.perf_counter() - started) * 1000,
    )
    return Response(body, 200, media_type="application/json")


async def healthz(request: Request) -> Response:
    return Response(b"{}", 200, media_type="application/json")


app = Starlette(routes=[Route("/predict", predict, methods=["POST"]), Route("/healthz", healthz)])
