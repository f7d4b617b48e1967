from __future__ import annotations

import os
from typing import Any

import requests


class SampanError(Exception):
    """An error answer from the platform, carrying its error code and message."""

    def __init__(self, status: int, code: str, message: str, details: Any = None) -> None:
        super().__init__(f"{status} {code}: {message}")
        self.status, self.code, self.message, self.details = status, code, message, details


class Client:
    def __init__(self, base_url: str | None = None, api_key: str | None = None, *, timeout: float = 30.0) -> None:
        self.base_url = (base_url or os.environ.get("SAMPAN_URL") or "http://127.0.0.1:8000").rstrip("/")
        self.api_key = api_key or os.environ.get("SAMPAN_API_KEY")
        self.timeout = timeout
        self._session = requests.Session()
        if self.api_key:
            self._session.headers["Authorization"] = f"Bearer {self.api_key}"

    def request(self, method: str, path: str, **kwargs: Any) -> Any:
        response = self._session.request(method, f"{self.base_url}/api/v1/{path.lstrip('/')}", timeout=self.timeout, **kwargs)
        if response.status_code >= 400:
            try:
                error = response.json()["error"]
            except (ValueError, KeyError, TypeError):
                error = {"code": "http_error", "message": response.text[:200], "details": {}}
            raise SampanError(response.status_code, error["code"], error["message"], error.get("details"))
        return response.json() if response.content else None

    def me(self) -> dict:
        """The user behind the API key."""
        return self.request("GET", "auth/me/")
