"""Object ids in URLs: every route that takes an id matches only ids a row can have.

Primary keys are 64-bit (BigAutoField, PostgreSQL ``bigint``, SQLite ``INTEGER``), so an id in a
path is 1 to 19 decimal digits and at most 2**63 - 1. Anything else (``99999999999999999999``)
matches no route and is Django's JSON 404, before a view, a queryset or raw SQL sees a number the
database cannot hold (SQLite raises OverflowError, PostgreSQL "bigint out of range").

- ``<id:pk>`` in ``path()`` routes (registered here as the ``id`` converter);
- ``ApiRouter``: DRF's router with ``<id:...>`` for every viewset's lookup and nested prefix;
- ``object_id(text)`` for code that parses paths itself (the prediction fast path).
"""

from __future__ import annotations

from django.urls import register_converter
from rest_framework.routers import DefaultRouter

MAX_OBJECT_ID = 2**63 - 1


def object_id(text: str) -> int | None:
    """``int(text)`` if it is an id a row can have, else None. ``object_id("7") == 7``."""
    if not (0 < len(text) <= 19) or not text.isascii() or not text.isdigit():
        return None
    value = int(text)
    return value if value <= MAX_OBJECT_ID else None


class ObjectIdConverter:
    regex = "[0-9]{1,19}"

    def to_python(self, value: str) -> int:
        number = object_id(value)
        if number is None:  # Django treats a ValueError as "this route does not match"
            raise ValueError(f"{value} is not a 64-bit object id")
        return number

    def to_url(self, value: int | str) -> str:
        return str(value)


register_converter(ObjectIdConverter, "id")


class ApiRouter(DefaultRouter):
    """DefaultRouter on ``path()`` routes whose lookups are ``<id:pk>``. Nested prefixes name their
    parent's id the same way: ``register("workspaces/<id:workspace_id>/members", ...)``."""

    def __init__(self) -> None:
        super().__init__(trailing_slash=True, use_regex_path=False)
        self.include_root_view = False
        self.include_format_suffixes = False  # the API speaks JSON only: no ".json" twin of every route
        self._default_value_pattern = "id"
