"""HTTP to the platform: authentication, timeouts, typed errors, and retries with backoff.

What is retried (exponential backoff with jitter, ``max_retries`` times within ``retry_timeout`` s):

- 429 and 503 answers, on any method (the server did nothing; ``Retry-After`` is honoured);
- 502 and 504 answers, connection errors (refused, reset) and read timeouts, on idempotent requests
  only: GET, HEAD, PUT, DELETE, OPTIONS, and POSTs that carry an ``Idempotency-Key`` (the server
  replays the first answer to a retry, so a retried job-creating POST cannot create two jobs);
- a POST without a key only when the connection could not even be opened (nothing was sent).
"""

from __future__ import annotations

import email.utils
import importlib.util
import os
import random
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import requests

from sampan import __version__
from sampan.errors import SampanError, ServerError, TransportError, WaitTimeout, error_for

RETRY_STATUSES = frozenset({429, 503})  # refused before doing anything: safe to retry on any method
IDEMPOTENT_RETRY_STATUSES = frozenset({502, 504})  # a proxy lost the answer: retry idempotent requests only
IDEMPOTENT_METHODS = frozenset({"GET", "HEAD", "PUT", "DELETE", "OPTIONS"})
IDEMPOTENCY_HEADER = "Idempotency-Key"
Timeout = float | tuple[float, float]


def parse_retry_after(value: str | None) -> float | None:
    """Seconds from a Retry-After header (delta-seconds or an HTTP date)."""
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


class Transport:
    """One ``requests.Session`` against ``base_url``; every call goes through :meth:`request`."""

    def __init__(
        self,
        base_url: str,
        *,
        api_key: str | None,
        timeout: Timeout,
        max_retries: int,
        backoff: float,
        max_backoff: float,
        retry_timeout: float = 60.0,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.api_key = api_key
        self.timeout = timeout
        self.max_retries = max_retries
        self.backoff = backoff
        self.max_backoff = max_backoff
        self.retry_timeout = retry_timeout
        self.session = requests.Session()
        self.session.headers["User-Agent"] = f"sampan-python/{__version__}"
        if api_key:
            self.session.headers["Authorization"] = f"Bearer {api_key}"

    def url(self, path: str) -> str:
        if path.startswith(("http://", "https://")):
            return path
        if path.startswith("/"):
            return f"{self.base_url}{path}"
        return f"{self.base_url}/api/v1/{path}"

    def _delay(self, attempt: int, retry_after: float | None) -> float:
        if retry_after is not None:
            return min(retry_after, self.max_backoff)
        return min(self.backoff * (2.0**attempt) * (1 + random.random() / 4), self.max_backoff)

    def raw(
        self,
        method: str,
        path: str,
        *,
        timeout: Timeout | None = None,
        headers: dict[str, str] | None = None,
        idempotent: bool = False,
        **kwargs: Any,
    ) -> requests.Response:
        """Send a request (retrying as the module says) and return the successful response; raise a
        typed error.

        ``idempotent=True`` on a POST sends a fresh ``Idempotency-Key`` (kept across its retries), which
        makes it retryable on connection errors and 502/504; job-creating calls of the SDK set it.
        """
        method = method.upper()
        headers = dict(headers or {})
        if idempotent and method == "POST" and IDEMPOTENCY_HEADER not in headers:
            headers[IDEMPOTENCY_HEADER] = f"sampan-{uuid.uuid4()}"
        safe = method in IDEMPOTENT_METHODS or IDEMPOTENCY_HEADER in headers
        files = kwargs.get("files")
        url = self.url(path)
        deadline = time.monotonic() + self.retry_timeout
        attempt = 0
        while True:
            if attempt and files:
                _rewind(files)
            try:
                response = self.session.request(
                    method, url, timeout=timeout or self.timeout, headers=headers or None, **kwargs
                )
            except requests.RequestException as exc:
                code = "timeout" if isinstance(exc, requests.Timeout) else "connection_error"
                error: SampanError = TransportError(
                    f"{method} {url} {'timed out' if code == 'timeout' else 'failed'}: {exc}", code=code
                )
                retryable = safe or _not_sent(exc)
                if retryable and self._sleep_before_retry(attempt, None, deadline):
                    attempt += 1
                    continue
                raise error from exc
            if response.status_code < 400:
                return response
            error = self._error(response)
            retryable = (
                response.status_code in RETRY_STATUSES
                or (safe and response.status_code in IDEMPOTENT_RETRY_STATUSES)
                or (response.status_code == 409 and error.code == "idempotency_in_progress")
            )
            if retryable and self._sleep_before_retry(attempt, error.retry_after, deadline):
                response.close()
                attempt += 1
                continue
            raise error

    def _sleep_before_retry(self, attempt: int, retry_after: float | None, deadline: float) -> bool:
        """Wait before retry number ``attempt + 1``; False when the retries or their time are spent."""
        if attempt >= self.max_retries:
            return False
        delay = self._delay(attempt, retry_after)
        if time.monotonic() + delay > deadline:
            return False
        time.sleep(delay)
        return True

    @staticmethod
    def _error(response: requests.Response) -> SampanError:
        retry_after = parse_retry_after(response.headers.get("Retry-After"))
        try:
            body = response.json()["error"]
            code, message, details = str(body["code"]), str(body["message"]), body.get("details")
        except (ValueError, KeyError, TypeError):
            code, message, details = "http_error", (response.text or response.reason or "")[:500], {}
        if retry_after is None and isinstance(details, dict) and "retry_after_seconds" in details:
            retry_after = float(details["retry_after_seconds"])
        return error_for(response.status_code, code, message, details, retry_after)

    def request(self, method: str, path: str, **kwargs: Any) -> Any:
        """The JSON answer of a request (None for an empty body)."""
        response = self.raw(method, path, **kwargs)
        if not response.content:
            return None
        return response.json()

    def get(self, path: str, **params: Any) -> Any:
        return self.request("GET", path, params={k: v for k, v in params.items() if v is not None} or None)

    def post(self, path: str, json: Any = None, **kwargs: Any) -> Any:
        """POST; ``idempotent=True`` for job-creating calls (an ``Idempotency-Key`` makes them retryable)."""
        return self.request("POST", path, json=json, **kwargs)

    def patch(self, path: str, json: Any = None) -> Any:
        return self.request("PATCH", path, json=json)

    def put(self, path: str, json: Any = None) -> Any:
        return self.request("PUT", path, json=json)

    def delete(self, path: str, **params: Any) -> Any:
        return self.request("DELETE", path, params=params or None)

    def paginate(self, path: str, **params: Any) -> Iterator[Any]:
        """Every item of a paginated list, page after page (JSON: the caller names its type)."""
        query = {k: v for k, v in params.items() if v is not None}
        page = 1
        while True:
            body = self.request("GET", path, params={**query, "page": page, "page_size": 500})
            if isinstance(body, list):  # an unpaginated list
                yield from body
                return
            yield from body["results"]
            if not body.get("next"):
                return
            page += 1

    def download(
        self,
        path: str,
        dest: str | os.PathLike[str] | IO[bytes],
        *,
        params: dict[str, Any] | None = None,
        progress: bool = False,
        description: str = "download",
    ) -> Path | None:
        """Stream a file answer into ``dest`` (a path or a binary file object); returns the path."""
        response = self.raw("GET", path, params=params, stream=True)
        total = int(response.headers.get("Content-Length") or 0) or None
        bar = _bar(progress, total=total, unit="B", unit_scale=True, desc=description)
        try:
            if isinstance(dest, (str, os.PathLike)):
                target = Path(dest)
                target.parent.mkdir(parents=True, exist_ok=True)
                partial = target.with_name(target.name + ".partial")
                with partial.open("wb") as out:
                    for chunk in response.iter_content(1 << 16):
                        out.write(chunk)
                        bar.update(len(chunk))
                partial.replace(target)
                return target
            for chunk in response.iter_content(1 << 16):
                dest.write(chunk)
                bar.update(len(chunk))
            return None
        finally:
            bar.close()
            response.close()


TRANSIENT_STATUSES = frozenset({502, 503, 504})


class Outage:
    """For polling loops (``wait()``): a refresh that fails with a connection error or a 502/503/504
    (a web restart, a proxy without an upstream) is skipped, and polling goes on, until the failures
    have lasted ``limit`` seconds without a success; then the last error is raised."""

    def __init__(self, limit: float) -> None:
        self.limit = limit
        self.since: float | None = None
        self.last: SampanError | None = None
        self.value: Any = None

    def attempt(self, call: Any) -> bool:
        """Run ``call()`` (its answer in ``value``); True when it succeeded, False when it failed
        transiently (within the limit)."""
        try:
            self.value = call()
        except (TransportError, ServerError) as exc:
            if isinstance(exc, ServerError) and exc.status not in TRANSIENT_STATUSES:
                raise
            now = time.monotonic()
            self.since = now if self.since is None else self.since
            self.last = exc
            if now - self.since > self.limit:
                raise
            return False
        self.since = None
        self.last = None
        return True


def _not_sent(exc: requests.RequestException) -> bool:
    """Whether the request surely never reached the server (the connection could not be opened)."""
    if isinstance(exc, requests.ConnectTimeout):
        return True
    import urllib3.exceptions

    seen: set[int] = set()
    stack: list[BaseException] = [exc]
    while stack:
        cause = stack.pop()
        if id(cause) in seen:
            continue
        seen.add(id(cause))
        if isinstance(cause, (urllib3.exceptions.NewConnectionError, ConnectionRefusedError)):
            return True
        linked = (getattr(cause, "reason", None), cause.__cause__, cause.__context__, *cause.args)
        stack += [link for link in linked if isinstance(link, BaseException)]
    return False


def _rewind(files: Any) -> None:
    entries = files.values() if isinstance(files, dict) else [entry for _, entry in files]
    for entry in entries:
        handle = entry[1] if isinstance(entry, tuple) else entry
        if hasattr(handle, "seek"):
            handle.seek(0)


class _NoBar:
    def update(self, n: float = 1) -> None:
        pass

    def set_postfix(self, *args: Any, **kwargs: Any) -> None:
        pass

    def set_description(self, *args: Any, **kwargs: Any) -> None:
        pass

    def close(self) -> None:
        pass

    n: float = 0
    total: float | None = None

    def refresh(self) -> None:
        pass


def _bar(enabled: bool, **kwargs: Any) -> Any:
    """A tqdm progress bar (the notebook widget when available), or a silent stand-in."""
    if not enabled:
        return _NoBar()
    if importlib.util.find_spec("ipywidgets") is not None:  # the notebook bar needs it (else tqdm.auto warns)
        from tqdm.auto import tqdm as auto_tqdm

        return auto_tqdm(**kwargs)
    from tqdm import tqdm

    return tqdm(**kwargs)


def wait_with_progress(
    resource: Any, *, title: str, timeout: float | None, poll: float, progress: bool, max_outage: float
) -> None:
    """Poll ``resource`` (a job-backed resource: ``status``, ``finished``, ``refresh()`` and
    ``data["progress"]`` with ``fraction`` and ``message`` or ``done``/``total``; may be null) until
    it finished, with a percentage bar named ``title``. Raises :class:`sampan.WaitTimeout` after
    ``timeout`` seconds (the job goes on)."""
    deadline = None if timeout is None else time.monotonic() + timeout
    outage = Outage(max_outage)
    bar = _bar(
        progress,
        total=100,
        desc=title,
        bar_format="{l_bar}{bar}| {n:.0f}/{total:.0f}% [{elapsed}<{remaining}{postfix}]",
    )
    try:
        while True:
            state = resource.data.get("progress") or {}  # null before a job reports (batch predictions)
            fraction = 1.0 if resource.status == "succeeded" else state.get("fraction")
            if fraction is not None:
                bar.n = round(100 * float(fraction))
            message = state.get("message")
            if not message and state.get("total"):
                message = f"{state.get('done') or 0}/{state['total']}"
            bar.set_postfix(
                {"status": resource.status, **({"step": message} if message else {})}, refresh=True
            )
            if resource.finished:
                return
            if deadline is not None and time.monotonic() > deadline:
                raise WaitTimeout(
                    f"{title[:1].upper()}{title[1:]} is still {resource.status} after {timeout:g} s.",
                    code="wait_timeout",
                )
            time.sleep(poll)
            outage.attempt(resource.refresh)
    finally:
        bar.close()
