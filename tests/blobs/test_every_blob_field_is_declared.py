"""Every model field that can hold a blob key is declared to the blob garbage collector's registry
(each app's blob_references.py), so a new field cannot be forgotten: the sweep would delete the
blobs it names."""

from __future__ import annotations

from pathlib import Path

from django.apps import apps
from django.core.exceptions import FieldDoesNotExist
from django.db import models

PLATFORM = Path(__file__).resolve().parents[2] / "platform"


def _looks_like_a_blob_field(field) -> bool:
    if isinstance(field, models.FileField):
        return True
    if field.is_relation:
        return False
    name = field.name.lower()
    return name.endswith("key") or name.endswith("prefix")


def test_every_key_or_file_field_is_declared():
    from blobs.registry import blob_references

    registry = blob_references()
    undeclared = []
    for config in apps.get_app_configs():
        if not Path(config.path).is_relative_to(PLATFORM):
            continue  # Django's own apps (a session key is no blob)
        declared = registry.get(config.label)
        names = set()
        if declared is not None:
            names = {
                *declared.key_fields,
                *declared.prefix_fields,
                *declared.computed_fields,
                *declared.not_blob_fields,
            }
        for model in config.get_models():
            for field in model._meta.concrete_fields:
                if _looks_like_a_blob_field(field) and f"{model.__name__}.{field.name}" not in names:
                    undeclared.append(f"{config.label}.{model.__name__}.{field.name}")
    assert undeclared == [], (
        "declare these in the app's blob_references.py (key_fields, prefix_fields, computed_fields, "
        f"or not_blob_fields): {undeclared}"
    )


def test_every_declared_field_exists():
    from blobs.registry import blob_references

    missing = []
    for label, declared in blob_references().items():
        for name in (
            *declared.key_fields,
            *declared.prefix_fields,
            *declared.computed_fields,
            *declared.not_blob_fields,
        ):
            model_name, field_name = name.split(".")
            try:
                apps.get_model(label, model_name)._meta.get_field(field_name)
            except (LookupError, FieldDoesNotExist):
                missing.append(f"{label}.{name}")
    assert missing == []
