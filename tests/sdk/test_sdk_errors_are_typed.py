"""Error answers become typed exceptions with the server's code and message; 429/503 are retried
honouring Retry-After; timeouts and unreachable servers are TransportErrors."""

from __future__ import annotations

import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
import sampan

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def test_bad_key_is_an_authentication_error(live_web, tenants):
    client = sampan.Client(live_web, "spk_not-a-real-token")
    with pytest.raises(sampan.AuthenticationError) as caught:
        client.projects.list()
    assert caught.value.status == 401 and caught.value.code in ("authentication_failed", "not_authenticated")
    assert caught.value.message


def test_missing_objects_and_other_tenants_are_not_found(sdk, tenants):
    with pytest.raises(sampan.NotFound) as caught:
        sdk.projects.get(tenants["project_b"].pk)  # bob's project
    assert caught.value.status == 404 and caught.value.code == "not_found"
    with pytest.raises(sampan.NotFound):
        sdk.jobs.get(987654321)


def test_invalid_input_names_the_field(sdk, project):
    with pytest.raises(sampan.BadRequest) as caught:
        sdk.datasets.create("", project=project)
    assert caught.value.code == "invalid" and "name" in caught.value.details


def test_viewer_writes_are_permission_denied(live_web, tenants, token_for):
    carol = sampan.Client(live_web, token_for(tenants["carol"]))
    assert [p.name for p in carol.projects.list()] == ["Project A"]
    with pytest.raises(sampan.PermissionDenied) as caught:
        carol.datasets.create("viewer's", project=tenants["project_a"].pk)
    assert caught.value.status == 403 and "viewer" in caught.value.message


def test_stale_label_version_is_a_conflict(sdk, project, digits_folder):
    dataset = sdk.datasets.create("conflicts", project=project)
    dataset.upload(digits_folder / "3", label="3", progress=False)
    sample = next(dataset.samples())
    dataset.create_label("8")
    updated = dataset.set_label(sample, "8")  # label_version taken from the sample as listed
    assert updated["label_name"] == "8" and updated["label_version"] == sample["label_version"] + 1
    with pytest.raises(sampan.Conflict) as caught:
        dataset.set_label(sample, "3")  # the same, now stale, label_version
    assert caught.value.status == 409 and caught.value.details
    with pytest.raises(sampan.Conflict):
        dataset.set_labels([sample], "3")


class _Flaky(BaseHTTPRequestHandler):
    """Answers 429 with Retry-After (or 503) a set number of times, then 200."""

    failures: list[tuple[int, str | None]] = []
    seen: list[str] = []

    def do_GET(self):  # noqa: N802 - http.server's naming
        self.seen.append(self.headers.get("Authorization", ""))
        if self.failures:
            status, retry_after = self.failures.pop(0)
            body = b'{"error": {"code": "quota_exceeded", "message": "Over quota.", "details": {}}}'
            self.send_response(status)
            if retry_after is not None:
                self.send_header("Retry-After", retry_after)
        else:
            body = b'{"username": "alice"}'
            self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture
def flaky_server():
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Flaky)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def test_429_and_503_are_retried_honouring_retry_after(flaky_server, monkeypatch):
    slept: list[float] = []
    real_sleep, caller = time.sleep, threading.get_ident()

    def sleep(seconds: float) -> None:  # the module is shared: another test's leftover thread sleeps too
        if threading.get_ident() == caller:
            slept.append(seconds)
        else:
            real_sleep(seconds)

    monkeypatch.setattr("sampan._transport.time.sleep", sleep)
    _Flaky.failures[:] = [(429, "7"), (503, None), (429, "0")]
    _Flaky.seen[:] = []
    client = sampan.Client(flaky_server, "spk_x", max_retries=3, backoff=0.25, max_backoff=30)
    assert client.me() == {"username": "alice"}
    assert len(_Flaky.seen) == 4 and set(_Flaky.seen) == {"Bearer spk_x"}
    assert slept[0] == 7.0 and slept[2] == 0.0  # Retry-After honoured
    assert 0.25 <= slept[1] <= 0.25 * 2 * 1.25  # no header: exponential backoff with jitter

    _Flaky.failures[:] = [(429, "120")] * 2
    capped = sampan.Client(flaky_server, "spk_x", max_retries=1, max_backoff=5)
    with pytest.raises(sampan.RateLimited) as caught:
        capped.me()
    assert caught.value.retry_after == 120.0 and caught.value.code == "quota_exceeded"
    assert slept[-1] == 5.0  # capped by max_backoff


def test_timeouts_and_unreachable_servers_are_transport_errors():
    with socket.socket() as listener:  # accepts connections, never answers
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        client = sampan.Client(
            f"http://127.0.0.1:{listener.getsockname()[1]}", "spk_x", timeout=0.5, max_retries=1, backoff=0.01
        )  # a GET's read timeout is retried, then raised
        with pytest.raises(sampan.TransportError) as caught:
            client.me()
        assert caught.value.code == "timeout"
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    with pytest.raises(sampan.TransportError) as caught:
        sampan.Client(f"http://127.0.0.1:{port}", "spk_x", max_retries=2, backoff=0.01).me()
    assert caught.value.code == "connection_error"
