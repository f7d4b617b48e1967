"""Refusals of the data service that carry more than a message, as domain errors
(config.exceptions): the shared handler (config.errors) answers them as
{"error": {"code", "message", "details"}} and a background import records their ``message`` and
``details`` on its batch.

Each is the error of one field, as ``config.exceptions.field_error`` makes it (the message names the
field, the details lead with ``{field: [text]}``), or of ``non_field_errors`` when none is named
(the message is the text alone). The rest of the details (counts, the current label, ...) follow.
"""

from __future__ import annotations

from typing import Any

from config.exceptions import Conflict, InvalidInput, TooLarge


class _FieldError:
    def __init__(
        self, text: str, *, code: str | None = None, field: str = "non_field_errors", **details: Any
    ) -> None:
        message = text if field == "non_field_errors" else f"{field}: {text}"
        super().__init__(message, code=code, **({field: [text]} | details))  # type: ignore[call-arg]


class ImportRejected(_FieldError, InvalidInput):
    """The upload as a whole is refused; the dataset is unchanged."""

    default_code = "import_rejected"


class UploadTooLarge(_FieldError, TooLarge):
    default_code = "upload_too_large"


class LabelConflict(_FieldError, Conflict):
    """A label write based on a stale ``label_version``; ``details.current`` holds the truth."""

    default_code = "label_conflict"


class LabelDeleted(_FieldError, Conflict):
    """The label a write names was deleted or merged away meanwhile."""

    default_code = "label_deleted"


class AnnotationConflict(_FieldError, Conflict):
    """An annotation write based on a stale ``revision``; ``details.current`` (one sample) or
    ``details.conflicts`` (bulk) hold the truth."""

    default_code = "annotation_conflict"
