"""HTTP to the platform: authentication, timeouts, typed errors, retries of 429/503 with backoff."""

from __future__ import annotations

import email.utils
import os
import random
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import requests

from sampan import __version__
from sampan.errors import SampanError, TransportError, error_for

RETRY_STATUSES = frozenset({429, 503})
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

    def __init__(self, base_url: str, *, api_key: str | None, timeout: Timeout, max_retries: int,
                 backoff: float, max_backoff: float) -> None:
        self.base_url = base_url.rstrip("/")
        self.api_key = api_key
        self.timeout = timeout
        self.max_retries = max_retries
        self.backoff = backoff
        self.max_backoff = max_backoff
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
        return min(self.backoff * (2 ** attempt) * (1 + random.random() / 4), self.max_backoff)

    def raw(self, method: str, path: str, *, timeout: Timeout | None = None, headers: dict[str, str] | None = None,
            **kwargs: Any) -> requests.Response:
        """Send a request (retrying 429/503) and return the successful response; raise a typed error."""
        files = kwargs.get("files")
        attempt = 0
        while True:
            if attempt and files:
                _rewind(files)
            try:
                response = self.session.request(method, self.url(path), timeout=timeout or self.timeout,
                                                headers=headers, **kwargs)
            except requests.Timeout as exc:
                raise TransportError(f"{method} {self.url(path)} timed out ({exc})", code="timeout") from exc
            except requests.RequestException as exc:
                raise TransportError(f"{method} {self.url(path)} failed: {exc}", code="connection_error") from exc
            if response.status_code < 400:
                return response
            error = self._error(response)
            if response.status_code in RETRY_STATUSES and attempt < self.max_retries:
                time.sleep(self._delay(attempt, error.retry_after))
                attempt += 1
                continue
            raise error

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
        return self.request("POST", path, json=json, **kwargs)

    def patch(self, path: str, json: Any = None) -> Any:
        return self.request("PATCH", path, json=json)

    def delete(self, path: str, **params: Any) -> Any:
        return self.request("DELETE", path, params=params or None)

    def paginate(self, path: str, **params: Any) -> Iterator[dict[str, Any]]:
        """Every item of a paginated list, page after page."""
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

    def download(self, path: str, dest: str | os.PathLike[str] | IO[bytes], *, params: dict[str, Any] | None = None,
                 progress: bool = False, description: str = "download") -> Path | None:
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
    try:
        import ipywidgets  # noqa: F401 - the notebook bar needs it; without it tqdm.auto only warns
        from tqdm.auto import tqdm
    except ImportError:
        from tqdm import tqdm
    return tqdm(**kwargs)
