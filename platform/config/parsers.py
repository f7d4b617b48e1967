"""The API's JSON parser: DRF's, with a nesting limit checked before parsing.

Python's json module parses recursively, so a body of 50,000 nested arrays (a few hundred kilobytes)
ends in RecursionError. ``JSONParser`` refuses documents nested deeper than ``MAX_JSON_DEPTH`` with a
400 ``parse_error`` naming the limit, using the same check as the prediction endpoint
(``workers.serving.protocol.loads_json``). Every DRF view parses JSON through this class
(REST_FRAMEWORK["DEFAULT_PARSER_CLASSES"], and views that list parsers import it from here).
"""

from __future__ import annotations

import json

from django.conf import settings
from rest_framework import parsers
from rest_framework.exceptions import ParseError
from rest_framework.utils.json import strict_constant

from workers.serving.protocol import DEFAULT_MAX_JSON_DEPTH, JSONNestingError, loads_json

MAX_JSON_DEPTH = DEFAULT_MAX_JSON_DEPTH


class JSONTooDeep(ParseError):
    """400 parse_error; ``error_details`` become the error body's details (config.errors)."""

    def __init__(self, exc: JSONNestingError) -> None:
        super().__init__(exc.message)
        self.error_details = exc.details


class JSONParser(parsers.JSONParser):
    def parse(self, stream, media_type=None, parser_context=None):
        encoding = (parser_context or {}).get("encoding", settings.DEFAULT_CHARSET)
        try:
            text = (stream.read() if stream is not None else b"").decode(encoding)
            data = loads_json(text, max_depth=MAX_JSON_DEPTH)
            if "NaN" in text or "Infinity" in text:  # DRF's strict mode: no non-finite numbers
                json.loads(text, parse_constant=strict_constant)
            return data
        except JSONNestingError as exc:
            raise JSONTooDeep(exc) from None
        except ValueError as exc:  # JSONDecodeError, UnicodeDecodeError, strict_constant's refusal
            raise ParseError(f"JSON parse error - {exc}") from None
