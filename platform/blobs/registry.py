"""Where each app declares the blob keys its rows reference (read by blobs.services' sweep).

Each app has a ``blob_references.py`` that calls :func:`blob_references_register` once; a test
fails when a model has a ``FileField`` or a ``*key`` / ``*prefix`` field its app has not declared.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from django.utils.module_loading import autodiscover_modules

KeySource = Callable[[], Iterable[str]]


@dataclass(frozen=True)
class BlobReferences:
    """What one app's rows reference in the blob storage.

    Field names are ``"Model.field"`` within the app. ``key_fields`` and ``prefix_fields`` are read
    by the sweep itself (every non-empty value); ``computed_fields`` are the fields that the app's
    own ``keys`` / ``prefixes`` / ``markers`` functions read (JSON fields, keys derived from ids);
    ``not_blob_fields`` look like keys but are not (an API key's prefix).
    """

    key_fields: tuple[str, ...] = ()
    prefix_fields: tuple[str, ...] = ()
    computed_fields: tuple[str, ...] = ()
    not_blob_fields: tuple[str, ...] = ()
    keys: KeySource | None = None
    prefixes: KeySource | None = None
    markers: KeySource | None = None


_REGISTRY: dict[str, BlobReferences] = {}


def blob_references_register(app_label: str, references: BlobReferences) -> None:
    """Declare an app's blob references (called from ``<app>/blobs.py``).

    e.g. ``blob_references_register("notebooks", BlobReferences(prefix_fields=("Notebook.storage_prefix",)))``
    """
    _REGISTRY[app_label] = references


def blob_references() -> dict[str, BlobReferences]:
    """Every app's declaration (imports each installed app's ``blob_references`` module once)."""
    autodiscover_modules("blob_references")
    return dict(_REGISTRY)


def keys_in_json(value: Any) -> Iterator[str]:
    """The strings a JSON value holds under ``key`` or ``*_key`` names, at any depth.

    e.g. ``{"artifacts": [{"path": "a.txt", "key": "custom-jobs/job-3/artifacts/a.txt"}]}``
    """
    if isinstance(value, dict):
        for name, item in value.items():
            if isinstance(item, str) and item and (name == "key" or str(name).endswith("_key")):
                yield item
            else:
                yield from keys_in_json(item)
    elif isinstance(value, list):
        for item in value:
            yield from keys_in_json(item)
