from __future__ import annotations

from django.db.models import QuerySet
from workspaces.selectors import scoped_to_member

from training.models import Backbone, ModelVersion


def model_versions_for(*, user) -> QuerySet[ModelVersion]:
    return scoped_to_member(ModelVersion.objects.select_related("dataset_version", "created_by"), user=user)


def backbones_for(*, user) -> QuerySet[Backbone]:
    return scoped_to_member(Backbone.objects.select_related("created_by"), user=user)


def model_versions_compared(a: ModelVersion, b: ModelVersion) -> dict:
    """Two versions' evaluation reports side by side; every delta is b minus a."""
    from workers.image_classification.evaluation import compare

    if not a.evaluation or not b.evaluation:
        from rest_framework.exceptions import ValidationError

        raise ValidationError({"a" if not a.evaluation else "b": ["This model version has no evaluation report."]})
    return {"a": a.pk, "b": b.pk, "a_name": a.name, "b_name": b.name, **compare(a.evaluation, b.evaluation)}
