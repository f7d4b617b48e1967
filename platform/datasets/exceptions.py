"""API errors of the data service. The shared handler (config.errors) turns them into
{"error": {"code", "message", "details"}}; a dict detail becomes ``details`` verbatim and its first
entry the message, so each one leads with the sentence a person should read."""

from __future__ import annotations

from rest_framework import exceptions, status


class _DatasetError(exceptions.APIException):
    def __init__(
        self, message: str, *, code: str | None = None, field: str = "non_field_errors", **details
    ) -> None:
        super().__init__(message)
        if code:
            self.default_code = code
        # Kept as plain JSON (APIException would turn numbers into strings).
        self.detail = {field: [message], **details}  # type: ignore[assignment]


class ImportRejected(_DatasetError):
    """The upload as a whole is refused; the dataset is unchanged."""

    status_code = status.HTTP_400_BAD_REQUEST
    default_code = "import_rejected"


class UploadTooLarge(_DatasetError):
    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_code = "upload_too_large"


class LabelConflict(_DatasetError):
    """A label write based on a stale ``label_version``; ``details.current`` holds the truth."""

    status_code = status.HTTP_409_CONFLICT
    default_code = "label_conflict"


class LabelDeleted(_DatasetError):
    """The label a write names was deleted or merged away meanwhile."""

    status_code = status.HTTP_409_CONFLICT
    default_code = "label_deleted"
