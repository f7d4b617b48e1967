from __future__ import annotations

from django.db.models import QuerySet
from workspaces.selectors import scoped_to_member

from training.models import Backbone, ModelVersion


def model_versions_for(*, user) -> QuerySet[ModelVersion]:
    return scoped_to_member(ModelVersion.objects.select_related("dataset_version", "created_by"), user=user)


def backbones_for(*, user) -> QuerySet[Backbone]:
    return scoped_to_member(Backbone.objects.select_related("created_by"), user=user)


CLASSIFICATION_REPORT_KEYS = {"accuracy", "macro", "weighted", "top_k_accuracy", "per_class"}


def model_versions_compared(a: ModelVersion, b: ModelVersion) -> dict:
    """Two versions' evaluation reports side by side; every delta is b minus a."""
    from rest_framework.exceptions import ValidationError

    from workers.image_classification.evaluation import compare

    if not a.evaluation or not b.evaluation:
        raise ValidationError({"a" if not a.evaluation else "b": ["This model version has no evaluation report."]})
    for key, version in (("a", a), ("b", b)):
        if not CLASSIFICATION_REPORT_KEYS <= version.evaluation.keys():
            raise ValidationError({key: [f"{version.name} ({version.template}) has no classification report; "
                                         "compare works on classifiers (regression reports carry MAE, RMSE "
                                         "and R2 to read side by side)."]})
    return {"a": a.pk, "b": b.pk, "a_name": a.name, "b_name": b.name, **compare(a.evaluation, b.evaluation)}
