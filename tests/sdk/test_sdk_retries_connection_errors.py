"""The SDK retries what is safe to retry: idempotent requests (and POSTs carrying an
Idempotency-Key) on a reset connection, a refused connection and 502/503/504, with backoff and a
bounded total time; a POST without a key is not replayed once sent. ``job.wait()`` keeps polling
across a real web restart (a gunicorn of this test's own, killed and started again)."""

from __future__ import annotations

import socket
import struct
import sys
import threading
import time

import pytest
import sampan

from tests.harness import REPO, LiveProcess, free_port, live_env, wait_for
from tests.sdk.live_platform import write_digits_folder


class ScriptedServer:
    """A local HTTP/1.1 server whose connections follow a script, one step per connection:
    ``"reset"`` reads the request then closes with an RST (SO_LINGER 0: ConnectionResetError on the
    client), an int answers that status, ``"ok"`` answers 200 with a JSON body. Records every request."""

    def __init__(self, script: list[object]) -> None:
        self.script = list(script)
        self.requests: list[bytes] = []
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            with conn:
                data = b""
                while b"\r\n\r\n" not in data:
                    chunk = conn.recv(65536)
                    if not chunk:
                        break
                    data += chunk
                head, _, body = data.partition(b"\r\n\r\n")
                length = next(
                    (
                        int(line.split(b":", 1)[1])
                        for line in head.split(b"\r\n")
                        if line.lower().startswith(b"content-length:")
                    ),
                    0,
                )
                while len(body) < length:
                    body += conn.recv(65536)
                self.requests.append(head)
                step = self.script.pop(0) if self.script else "ok"
                if step == "reset":
                    conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                    continue
                status, payload = (
                    (200, b'{"ok": true}')
                    if step == "ok"
                    else (
                        int(step),
                        b'{"error": {"code": "bad_gateway", "message": "upstream down", "details": {}}}',
                    )
                )
                conn.sendall(
                    b"HTTP/1.1 %d X\r\nContent-Type: application/json\r\nContent-Length: %d\r\n"
                    b"Connection: close\r\n\r\n%s" % (status, len(payload), payload)
                )

    def close(self) -> None:
        self.sock.close()

    def header(self, index: int, name: str) -> str | None:
        for line in self.requests[index].split(b"\r\n")[1:]:
            key, _, value = line.decode().partition(":")
            if key.strip().lower() == name.lower():
                return value.strip()
        return None


@pytest.fixture
def scripted():
    servers: list[ScriptedServer] = []

    def make(*script: object) -> tuple[ScriptedServer, sampan.Client]:
        server = ScriptedServer(list(script))
        servers.append(server)
        return server, sampan.Client(server.url, "spk_test", timeout=5, backoff=0.05, max_backoff=0.2)

    yield make
    for server in servers:
        server.close()


def test_a_get_is_retried_after_a_connection_reset(scripted):
    server, client = scripted("reset", "ok")
    assert client.request("GET", "jobs/1/") == {"ok": True}
    assert len(server.requests) == 2


def test_gets_are_retried_on_502_503_504_then_give_up_after_max_retries(scripted):
    server, client = scripted(502, 504, 503, "ok")
    assert client.request("GET", "jobs/1/") == {"ok": True}
    assert len(server.requests) == 4

    server, client = scripted(*[502] * 20)
    with pytest.raises(sampan.ServerError) as failed:
        client.request("GET", "jobs/1/")
    assert failed.value.status == 502 and len(server.requests) == 1 + client.http.max_retries


def test_retries_stop_at_the_total_time_bound(scripted):
    server, client = scripted(*["reset"] * 50)
    client.http.max_retries, client.http.backoff, client.http.max_backoff = 50, 0.2, 0.2
    client.http.retry_timeout = 1.0
    started = time.monotonic()
    with pytest.raises(sampan.TransportError) as failed:
        client.request("GET", "jobs/1/")
    assert failed.value.code == "connection_error"
    assert time.monotonic() - started < 2.0 and 3 <= len(server.requests) <= 7


def test_a_post_without_an_idempotency_key_is_not_replayed_once_sent(scripted):
    server, client = scripted("reset", "ok")
    with pytest.raises(sampan.TransportError):
        client.request("POST", "deployments/1/stop/", json={})
    assert len(server.requests) == 1
    server, client = scripted(502, "ok")
    with pytest.raises(sampan.ServerError):
        client.request("POST", "deployments/1/stop/", json={})
    assert len(server.requests) == 1


def test_a_job_creating_post_carries_one_idempotency_key_across_its_retries(scripted):
    server, client = scripted("reset", 502, "ok")
    assert client.http.post("training-jobs/", {"dataset_version": 1}, idempotent=True) == {"ok": True}
    keys = [server.header(i, "Idempotency-Key") for i in range(3)]
    assert keys[0] and keys[0].startswith("sampan-") and keys == [keys[0]] * 3
    server.script[:] = ["ok"]
    client.http.post("training-jobs/", {"dataset_version": 1}, idempotent=True)
    assert server.header(3, "Idempotency-Key") not in (None, keys[0])  # a new call, a new key


def test_a_refused_connection_is_retried_even_for_a_post(scripted):
    port = free_port()  # nothing listens there yet
    client = sampan.Client(f"http://127.0.0.1:{port}", "spk_test", timeout=5, backoff=0.3, max_backoff=0.3)
    server_holder: list[ScriptedServer] = []

    def listen_soon() -> None:
        time.sleep(0.5)
        server = ScriptedServer(["ok"])
        server.sock.close()
        server.sock = socket.socket()
        server.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        server.sock.bind(("127.0.0.1", port))
        server.sock.listen(8)
        threading.Thread(target=server._serve, daemon=True).start()
        server_holder.append(server)

    threading.Thread(target=listen_soon, daemon=True).start()
    assert client.request("POST", "deployments/1/stop/", json={}) == {"ok": True}  # nothing was sent before
    server_holder[0].close()


def _start_web(port: int) -> LiveProcess:
    web = LiveProcess(
        "web-restarted",
        [
            sys.executable,
            "-m",
            "gunicorn",
            "config.wsgi:application",
            "--chdir",
            str(REPO / "platform"),
            "--bind",
            f"127.0.0.1:{port}",
            "--worker-class",
            "gthread",
            "--workers",
            "1",
            "--threads",
            "4",
            "--no-control-socket",
        ],
        live_env(),
    )

    def answers() -> bool:
        import requests

        try:
            return requests.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code < 500
        except requests.RequestException:
            return not web.alive()

    wait_for(answers, timeout=60, what="the restarted web server")
    assert web.alive(), web.log()
    return web


@pytest.mark.integration
@pytest.mark.django_db(transaction=True)
def test_job_wait_survives_the_web_being_down_for_seconds(live_worker, tenants, token_for, tmp_path):
    port = free_port()
    web = _start_web(port)
    restarted: list[LiveProcess] = []
    try:
        client = sampan.Client(
            f"http://127.0.0.1:{port}", token_for(tenants["alice"]), timeout=30, backoff=0.1, max_backoff=1
        )
        dataset = client.datasets.create("restart", project=tenants["project_a"].pk)
        dataset.upload(
            write_digits_folder(tmp_path / "digits", per_class=6, classes=range(3)), progress=False
        )
        job = dataset.create_version(seed=1).train("fast", params={"epochs": 2, "image_size": 32})

        web.stop()  # the web goes away; the worker trains on, talking to the database
        down_at = time.monotonic()
        up_at: list[float] = []

        def restart_later() -> None:
            time.sleep(6)
            restarted.append(_start_web(port))
            up_at.append(time.monotonic())

        thread = threading.Thread(target=restart_later, daemon=True)
        thread.start()
        job.wait(progress=False, poll=0.3, timeout=240)  # first polls hit a refused connection
        thread.join(timeout=90)
        assert job.status == "succeeded" and up_at and up_at[0] - down_at >= 6
        assert job.model_version().source == "trained"
    finally:
        web.stop()
        for process in restarted:
            process.stop()
