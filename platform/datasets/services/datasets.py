"""Datasets themselves: create, rename or describe, delete."""

from __future__ import annotations

from typing import Any

from config.exceptions import DomainError, field_error
from django.db import IntegrityError, transaction

from datasets.models import Annotation, Dataset, DatasetVersion, Sample, VersionSample


def _name_taken(name: str) -> DomainError:
    return field_error("name", f"A dataset named {name!r} already exists in this project.")


def dataset_create(*, user, project, name: str, task_type: str, description: str = "") -> Dataset:
    """e.g. ``dataset_create(user=u, project=p, name="Digits", task_type="image_classification")``"""
    try:
        with transaction.atomic():
            return Dataset.objects.create(
                workspace_id=project.workspace_id,
                project=project,
                name=name.strip(),
                task_type=task_type,
                description=description,
                created_by=user,
            )
    except IntegrityError:
        raise _name_taken(name.strip()) from None


def dataset_update(*, dataset: Dataset, **fields: Any) -> Dataset:
    for key, value in fields.items():
        setattr(dataset, key, value.strip() if key == "name" else value)
    try:
        with transaction.atomic():
            dataset.save()
    except IntegrityError:
        raise _name_taken(dataset.name) from None
    return dataset


@transaction.atomic
def dataset_delete(*, dataset: Dataset) -> None:
    """Delete the dataset's rows in bulk (its blobs stay: content-addressed, possibly shared)."""
    VersionSample.objects.filter(version__dataset=dataset).delete()
    DatasetVersion.all_objects.filter(dataset=dataset).delete()  # a version a job is filling too
    Annotation.objects.filter(sample__dataset=dataset)._raw_delete(Annotation.objects.db)
    # Nothing references these samples any more; skip the collector, which would load every row.
    Sample.objects.filter(dataset=dataset)._raw_delete(Sample.objects.db)
    dataset.delete()
