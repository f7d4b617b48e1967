from __future__ import annotations

from django.db.models import QuerySet
from workspaces.selectors import scoped_to_member

from training.models import ModelVersion


def model_versions_for(*, user) -> QuerySet[ModelVersion]:
    return scoped_to_member(ModelVersion.objects.select_related("dataset_version", "created_by"), user=user)


def per_class_deltas(a: ModelVersion, b: ModelVersion) -> dict:
    """Side-by-side metrics of two versions: b minus a, per class and overall."""
    def by_class(version):
        return {row["class"]: row for row in version.evaluation.get("per_class", [])}

    rows_a, rows_b = by_class(a), by_class(b)
    classes = list(dict.fromkeys([*rows_a, *rows_b]))
    per_class = []
    for name in classes:
        ra, rb = rows_a.get(name, {}), rows_b.get(name, {})
        row = {"class": name}
        for metric in ("precision", "recall", "f1", "support"):
            va, vb = ra.get(metric), rb.get(metric)
            row[metric] = {"a": va, "b": vb, "delta": (vb - va) if va is not None and vb is not None else None}
        per_class.append(row)
    overall = {}
    for metric in ("accuracy", "macro_f1", "weighted_f1"):
        va, vb = a.evaluation.get(metric), b.evaluation.get(metric)
        overall[metric] = {"a": va, "b": vb, "delta": (vb - va) if va is not None and vb is not None else None}
    return {"a": a.pk, "b": b.pk, "overall": overall, "per_class": per_class}
