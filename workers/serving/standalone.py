"""The on-prem prediction server: the standard library's ``ThreadingHTTPServer`` in front of the
platform's own protocol and predictor, so a package answers exactly as the hosted API does.

No Django, no torch, no outbound calls. Endpoints:

- ``POST /predict`` (also ``/v1/predict``): the hosted API's request and response
  (see :mod:`workers.serving.protocol`), authenticated by ``Authorization: Bearer <key>`` or
  ``X-Sampan-Key: <key>`` against ``SAMPAN_SERVER_API_KEY``; ``?top_k=`` for raw image bodies,
  ``?score_threshold=&max_detections=`` for a detector.
- ``GET /healthz`` (also ``HEAD``): ``{"status": "ok", "model_version": ..., "template": ...}`` without a key.

Settings (command-line options win over the environment)::

    SAMPAN_SERVER_API_KEY        required: the key clients send (refuses to start without one)
    SAMPAN_SERVER_HOST           --host       default 127.0.0.1 (the Docker image sets 0.0.0.0)
    SAMPAN_SERVER_PORT           --port       default 8080
    SAMPAN_SERVER_THREADS        --threads    ONNX Runtime intra-op threads (default: its own choice)
    SAMPAN_SERVER_MAX_BATCH      --max-batch  instances per request (default 32)
    SAMPAN_SERVER_MAX_BODY_BYTES              request body limit (default 20 MiB)
    SAMPAN_MODEL_DIR             --model-dir  default: the package folder holding manifest.json

>>> # SAMPAN_SERVER_API_KEY=secret python serve.py --port 8080   # doctest: +SKIP
"""

from __future__ import annotations

import argparse
import hmac
import json
import logging
import os
import signal
import sys
import threading
import time
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from workers.serving.predictors import Predictor, PredictorLoadError, load_predictor, predict_instances
from workers.serving.protocol import (
    DEFAULT_MAX_BATCH,
    DEFAULT_MAX_BODY_BYTES,
    PredictionInputError,
    check_body_size,
    parse_request,
    response_body,
)

log = logging.getLogger("sampan.server")

PREDICT_PATHS = ("/predict", "/v1/predict")
HEALTH_PATHS = ("/healthz", "/health")
READ_TIMEOUT_S = 30  # a client that stops sending mid-request frees its thread after this
# A refused body is read and dropped up to this size before answering: closing a socket with unread
# data resets the connection, and the client might then never see the answer.
DRAIN_LIMIT_BYTES = 64 * 1024 * 1024


class ServerConfigError(ValueError):
    """A setting is missing or malformed; the message names it."""


def _env_int(name: str, default: int | None, *, low: int = 1) -> int | None:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ServerConfigError(f"{name} must be an integer, got {raw!r}") from None
    if value < low:
        raise ServerConfigError(f"{name} must be at least {low}, got {value}")
    return value


def default_model_dir() -> Path:
    """The package folder (two levels above this file's ``workers/serving``) when it holds a model."""
    package_root = Path(__file__).resolve().parents[2]
    return package_root if (package_root / "manifest.json").is_file() else Path.cwd()


class PredictionService:
    """The predictor plus what the responses say about it (shared by every request thread)."""

    def __init__(
        self,
        model_dir: str | os.PathLike[str],
        *,
        api_key: str,
        threads: int | None = None,
        max_batch: int = DEFAULT_MAX_BATCH,
        max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
    ) -> None:
        if not api_key:
            raise ServerConfigError(
                "SAMPAN_SERVER_API_KEY is not set: the server refuses to run without an API key"
            )
        self.model_dir = Path(model_dir)
        manifest_path = self.model_dir / "manifest.json"
        self.manifest: dict[str, Any] = (
            json.loads(manifest_path.read_text()) if manifest_path.is_file() else {}
        )
        self.predictor: Predictor = load_predictor(self.model_dir, threads=threads)
        version = self.manifest.get("model_version") or {}
        self.model_version = {
            "id": version.get("id"),
            "name": version.get("name"),
            "template": version.get("template") or self.predictor.template,
        }
        self.api_key = api_key.encode()
        self.max_batch = max_batch
        self.max_body_bytes = max_body_bytes

    def key_matches(self, presented: str | None) -> bool:
        return presented is not None and hmac.compare_digest(presented.encode(), self.api_key)

    def predict(
        self,
        *,
        content_type: str | None,
        body: bytes,
        query_top_k: str | None,
        query: dict[str, str] | None = None,
    ) -> bytes:
        """The answer's bytes; ``query`` holds the query string's parameters (a detector's options)."""
        started = time.perf_counter()
        parsed = parse_request(
            content_type=content_type,
            body=body,
            data_kind=self.predictor.data_kind,
            max_batch=self.max_batch,
            max_body_bytes=self.max_body_bytes,
            query_top_k=query_top_k,
            prediction_kind=self.predictor.prediction_kind,
            query=query,
        )
        predictions, details = predict_instances(
            self.predictor, parsed.instances, parsed.top_k, options=parsed.options
        )
        return response_body(
            kind=self.predictor.prediction_kind,
            model_version=self.model_version,
            predictions=predictions,
            details=details,
            latency_ms=(time.perf_counter() - started) * 1000,
        )


def error_body(code: str, message: str, details: dict[str, Any] | None = None) -> bytes:
    return json.dumps({"error": {"code": code, "message": message, "details": details or {}}}).encode()


class PredictionHandler(BaseHTTPRequestHandler):
    server_version = "SampanServer/1"
    protocol_version = "HTTP/1.1"
    timeout = READ_TIMEOUT_S
    service: PredictionService  # set on the subclass made by make_server

    _body_read = False

    def parse_request(self) -> bool:
        self._body_read = False  # one handler serves every request of a kept-alive connection
        return super().parse_request()

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (the base class's name)
        log.info("%s %s", self.address_string(), format % args)

    def _send(self, status: int, body: bytes, headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        if self.close_connection:
            self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(body)

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """Malformed requests, unknown methods and the like answer the platform's error shape too."""
        try:
            phrase = HTTPStatus(code).phrase
        except ValueError:
            phrase = "Error"
        self.close_connection = True
        body = error_body(f"http_{code}", message or phrase, {"explain": explain} if explain else None)
        self.send_response(code, message)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Connection", "close")
        self.end_headers()
        if (
            self.command != "HEAD"
            and code >= 200
            and code not in (HTTPStatus.NO_CONTENT, HTTPStatus.NOT_MODIFIED)
        ):
            self.wfile.write(body)

    def _refuse(
        self,
        status: int,
        code: str,
        message: str,
        details: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        self._drain_body()
        self.close_connection = True
        self._send(status, error_body(code, message, details), headers)

    def _drain_body(self) -> None:
        if self._body_read:
            return
        self._body_read = True
        raw_length = self.headers.get("Content-Length", "").strip()
        left = int(raw_length) if raw_length.isdigit() else 0
        if left > DRAIN_LIMIT_BYTES:
            return
        try:
            while left > 0:
                chunk = self.rfile.read(min(left, 1 << 16))
                if not chunk:
                    break
                left -= len(chunk)
        except OSError:
            pass

    def _presented_key(self) -> str | None:
        authorization = self.headers.get("Authorization", "")
        scheme, _, token = authorization.partition(" ")
        if scheme.lower() == "bearer" and token.strip():
            return token.strip()
        return self.headers.get("X-Sampan-Key")

    def do_GET(self) -> None:
        path = urlsplit(self.path).path
        if path in HEALTH_PATHS:
            self._send(
                HTTPStatus.OK,
                json.dumps(
                    {
                        "status": "ok",
                        "model_version": self.service.model_version,
                        "template": self.service.predictor.template,
                    }
                ).encode(),
            )
        elif path in PREDICT_PATHS:
            self._refuse(
                HTTPStatus.METHOD_NOT_ALLOWED,
                "method_not_allowed",
                f"{path} accepts POST only.",
                headers={"Allow": "POST"},
            )
        else:
            self._refuse(
                HTTPStatus.NOT_FOUND,
                "not_found",
                f"No endpoint at {path}; use POST /predict or GET /healthz.",
            )

    def do_HEAD(self) -> None:
        if urlsplit(self.path).path in HEALTH_PATHS:
            self.send_response(HTTPStatus.OK)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", "0")
            self.end_headers()
        else:
            self.send_error(HTTPStatus.METHOD_NOT_ALLOWED, "HEAD is accepted on /healthz only")

    def do_POST(self) -> None:
        url = urlsplit(self.path)
        if url.path not in PREDICT_PATHS:
            self._refuse(HTTPStatus.NOT_FOUND, "not_found", f"No endpoint at {url.path}; use POST /predict.")
            return
        if not self.service.key_matches(self._presented_key()):
            self._refuse(
                HTTPStatus.UNAUTHORIZED,
                "invalid_api_key",
                "A valid API key is required: send 'Authorization: Bearer <key>' or 'X-Sampan-Key: <key>'.",
                headers={"WWW-Authenticate": 'Bearer realm="sampan"'},
            )
            return
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            self._refuse(
                HTTPStatus.LENGTH_REQUIRED,
                "length_required",
                "Chunked bodies are not accepted; send Content-Length.",
            )
            return
        raw_length = self.headers.get("Content-Length", "0").strip() or "0"
        if not raw_length.isdigit():
            self._refuse(
                HTTPStatus.BAD_REQUEST,
                "invalid_content_length",
                f"Content-Length {raw_length!r} is not a number of bytes.",
            )
            return
        try:
            check_body_size(int(raw_length), max_body_bytes=self.service.max_body_bytes)
            body = self.rfile.read(int(raw_length))
            self._body_read = True
            if len(body) < int(raw_length):
                self._refuse(
                    HTTPStatus.BAD_REQUEST,
                    "incomplete_body",
                    f"The body ended after {len(body)} of {raw_length} bytes.",
                )
                return
            query = {name: values[0] for name, values in parse_qs(url.query).items()}
            answer = self.service.predict(
                content_type=self.headers.get("Content-Type"),
                body=body,
                query_top_k=query.get("top_k"),
                query=query,
            )
        except PredictionInputError as exc:
            self._refuse(exc.status, exc.code, exc.message, exc.details)
            return
        except Exception:
            log.exception("prediction failed")
            self._refuse(
                HTTPStatus.INTERNAL_SERVER_ERROR,
                "internal_error",
                "The prediction failed; see the server's log.",
            )
            return
        self._send(HTTPStatus.OK, answer)

    def _method_not_allowed(self) -> None:
        self._refuse(
            HTTPStatus.METHOD_NOT_ALLOWED,
            "method_not_allowed",
            f"{self.command} is not supported; use POST /predict or GET /healthz.",
            headers={"Allow": "GET, POST"},
        )

    do_PUT = do_DELETE = do_PATCH = do_OPTIONS = _method_not_allowed


class PredictionServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True


def make_server(service: PredictionService, host: str, port: int) -> PredictionServer:
    """A server bound to (host, port) (port 0 picks a free one: see ``server.server_address``)."""
    handler = type("BoundPredictionHandler", (PredictionHandler,), {"service": service})
    return PredictionServer((host, port), handler)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="Sampan on-prem prediction server (POST /predict, GET /healthz)."
    )
    parser.add_argument("--host", default=os.environ.get("SAMPAN_SERVER_HOST", "127.0.0.1"))
    parser.add_argument("--port", type=int, default=None, help="default: SAMPAN_SERVER_PORT or 8080")
    parser.add_argument("--threads", type=int, default=None, help="ONNX Runtime intra-op threads")
    parser.add_argument("--max-batch", type=int, default=None, help="instances per request (default 32)")
    parser.add_argument("--model-dir", default=os.environ.get("SAMPAN_MODEL_DIR"))
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    args = parse_args(argv)
    try:
        port = args.port if args.port is not None else _env_int("SAMPAN_SERVER_PORT", 8080, low=0)
        service = PredictionService(
            args.model_dir or default_model_dir(),
            api_key=os.environ.get("SAMPAN_SERVER_API_KEY", ""),
            threads=args.threads or _env_int("SAMPAN_SERVER_THREADS", None),
            max_batch=args.max_batch
            or _env_int("SAMPAN_SERVER_MAX_BATCH", DEFAULT_MAX_BATCH)
            or DEFAULT_MAX_BATCH,
            max_body_bytes=_env_int("SAMPAN_SERVER_MAX_BODY_BYTES", DEFAULT_MAX_BODY_BYTES)
            or DEFAULT_MAX_BODY_BYTES,
        )
        server = make_server(service, args.host, int(port or 0))
    except (ServerConfigError, PredictorLoadError, OSError, ValueError) as exc:
        print(f"sampan server: {exc}", file=sys.stderr)
        return 2
    host, bound_port = server.server_address[:2]

    def stop(signum: int, frame: Any) -> None:
        threading.Thread(target=server.shutdown, daemon=True).start()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    log.info(
        "serving %s (%s) on http://%s:%s",
        service.model_version.get("name"),
        service.predictor.template,
        host,
        bound_port,
    )
    try:
        server.serve_forever()
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
