"""The web server's gunicorn parts: the access-log lines of config/gunicorn_logging.py are gunicorn's
own, and the kept-alive worker of config/gunicorn_worker.py serves more keep-alive clients than it
has threads, each on its one connection, and stops gracefully."""

from __future__ import annotations

import datetime
import http.client
import signal
import threading
from types import SimpleNamespace

import pytest
from config.gunicorn_logging import SampanLogger
from config.gunicorn_worker import CoalescingResponse
from gunicorn import glogging, util
from gunicorn.config import Config
from gunicorn.http import wsgi

ENVIRON = {
    "REQUEST_METHOD": "POST",
    "RAW_URI": "/api/v1/deployments/7/predict/?top_k=2",
    "PATH_INFO": "/api/v1/deployments/7/predict/",
    "QUERY_STRING": "top_k=2",
    "SERVER_PROTOCOL": "HTTP/1.1",
    "REMOTE_ADDR": "10.1.2.3",
    "HTTP_USER_AGENT": 'curl/8 "quoted"',
    "HTTP_AUTHORIZATION": "Basic YWxpY2U6c2VjcmV0",  # alice:secret
    "HTTP_X_SAMPAN_KEY": "spd_x",
    "wsgi.input": object(),
}


def lines(logger_class, access_log_format: str | None = None) -> str:
    cfg = Config()
    cfg.set("accesslog", "-")
    if access_log_format:
        cfg.set("access_log_format", access_log_format)
    logger = logger_class(cfg)
    captured = []
    logger.access_log.handlers = []
    logger.access_log.addHandler(_Capture(captured))
    logger.now = lambda: "[05/Dec/2026:04:00:00 +0000]"
    response = SimpleNamespace(
        status="200 OK",
        sent=1234,
        headers=[("Content-Type", "application/json"), ("X-Sampan-Model-Version", "3")],
    )
    request = SimpleNamespace(headers=[("USER-AGENT", 'curl/8 "quoted"'), ("X-SAMPAN-KEY", "spd_x")])
    logger.access(response, request, ENVIRON, datetime.timedelta(seconds=0, microseconds=1520))
    return "\n".join(captured)


class _Capture(glogging.logging.Handler):
    def __init__(self, out: list[str]) -> None:
        super().__init__()
        self.out = out

    def emit(self, record) -> None:
        self.out.append(record.getMessage())


@pytest.mark.parametrize(
    "access_log_format",
    [
        None,  # gunicorn's default format
        '%(h)s %(l)s %(u)s %(t)s "%(r)s" %(s)s %(b)s "%(f)s" "%(a)s" %(m)s %(U)s %(q)s %(H)s %(B)s '
        "%(T)s %(D)s %(M)s %(L)s %(p)s",
        '%(h)s "%({x-sampan-key}i)s" %({x-sampan-model-version}o)s %({path_info}e)s',  # gunicorn's own atoms
    ],
)
def test_access_lines_are_gunicorns(access_log_format):
    ours = lines(SampanLogger, access_log_format)
    assert ours == lines(glogging.Logger, access_log_format)
    assert ours.startswith("10.1.2.3 ")


@pytest.mark.integration
def test_keepalive_worker_serves_more_clients_than_threads_and_stops_gracefully(django_db_setup):
    from tests.harness import live_env, start_web

    web, url = start_web("web-keepalive", live_env(), threads=2)
    port = int(url.rsplit(":", 1)[1])
    answered: list[int] = []
    failures: list[str] = []
    lock = threading.Lock()

    def client() -> None:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        try:
            for _ in range(15):
                conn.request("GET", "/api/v1/auth/csrf/")
                response = conn.getresponse()
                response.read()
                with lock:
                    answered.append(response.status)
        except Exception as exc:  # noqa: BLE001 - reported below
            with lock:
                failures.append(f"{type(exc).__name__}: {exc}")
        finally:
            conn.close()

    try:
        clients = [threading.Thread(target=client) for _ in range(6)]  # 6 keep-alive clients, 2 threads
        for thread in clients:
            thread.start()
        for thread in clients:
            thread.join(timeout=120)
        assert not failures, failures
        assert answered == [200] * 90

        # a graceful stop while a client holds a kept-alive connection: its request in flight is answered
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        conn.request("GET", "/api/v1/auth/csrf/")
        assert conn.getresponse().read() is not None
        web.proc.send_signal(signal.SIGTERM)
        assert web.proc.wait(timeout=30) == 0
    finally:
        web.stop()


class _Socket:
    def __init__(self) -> None:
        self.writes: list[bytes] = []

    def sendall(self, data: bytes) -> None:
        self.writes.append(bytes(data))


def _respond(response_class, method: str, status: str, headers: list, body: list[bytes]) -> list[bytes]:
    request = SimpleNamespace(version=(1, 1), method=method, should_close=lambda: False)
    sock = _Socket()
    response = response_class(request, sock, Config())
    response.start_response(status, headers)
    for piece in body:
        response.write(piece)
    response.close()
    return sock.writes


@pytest.mark.parametrize(
    ("method", "status", "headers", "body"),
    [
        (
            "POST",
            "200 OK",
            [("Content-Type", "application/json"), ("Content-Length", "11")],
            [b'{"a": "b"}\n'],
        ),
        ("GET", "200 OK", [("Content-Length", "6")], [b"abc", b"def"]),  # streamed in pieces
        ("GET", "200 OK", [("Content-Length", "3")], [b"abcdef"]),  # more than announced: cut
        ("GET", "200 OK", [], [b"abc", b"def"]),  # no length: chunked
        ("HEAD", "200 OK", [("Content-Length", "3")], [b"abc"]),  # no body on the wire
        ("GET", "204 No Content", [], [b""]),
        ("GET", "200 OK", [("Content-Length", "0")], []),
    ],
)
def test_coalescing_response_sends_the_same_bytes(monkeypatch, method, status, headers, body):
    monkeypatch.setattr(util, "http_date", lambda *a: "Sat, 05 Dec 2026 04:00:00 GMT")
    ours = _respond(CoalescingResponse, method, status, headers, body)
    stock = _respond(wsgi.Response, method, status, headers, body)
    assert b"".join(ours) == b"".join(stock)
    if method == "POST":  # a small answer: one write instead of two
        assert len(stock) == 2 and len(ours) == 1
