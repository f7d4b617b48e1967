"""Writes and reads of request capture (deploy.capture keeps the requests): the policy, deleting
captures and their blobs, the retention cleanup, and "send to dataset" (unlabeled samples through the
datasets app's import path, plus a pending Suggestion per sample holding the served answer)."""

from __future__ import annotations

import functools
import hashlib
import json
import logging
from collections.abc import Collection
from datetime import timedelta
from typing import Any

from config.exceptions import field_error
from django.conf import settings
from django.core.files.storage import default_storage
from django.db import transaction
from django.db.models import Count, F, QuerySet, Sum
from django.utils import timezone

from deploy.capture import writer
from deploy.models import (
    CapturedRequest,
    CapturePolicy,
    Deployment,
    DeploymentEvent,
    DeploymentEventAction,
)

logger = logging.getLogger("sampan.deploy")

POLICY_FIELDS = (
    "enabled",
    "sample_rate",
    "retention_days",
    "max_bytes",
    "low_confidence_below",
    "shadow_disagreement",
    "labels",
)
DEFAULT_RETENTION_DAYS = 7
MAX_SEND = 1000  # captures sent to a dataset in one call
DELETE_BATCH = 1000

# the dataset tasks a capture's input fits, by data kind
KIND_TASKS = {
    "image": ("image_classification", "object_detection"),
    "text": ("text_classification",),
    "row": ("tabular_classification", "tabular_regression"),
}


# --- the policy ----------------------------------------------------------------------------------


def capture_policy_of(*, deployment: Deployment) -> CapturePolicy:
    """The deployment's policy; an unsaved default (off) when it never had one."""
    policy = CapturePolicy.objects.filter(deployment=deployment).select_related("updated_by").first()
    return policy or CapturePolicy(deployment=deployment)


def capture_stored(*, deployment: Deployment) -> dict[str, int]:
    """``{stored_bytes, stored_count}`` of the deployment's captures."""
    totals = CapturedRequest.objects.filter(deployment=deployment).aggregate(
        stored_bytes=Sum("size_bytes"), stored_count=Count("id")
    )
    return {"stored_bytes": totals["stored_bytes"] or 0, "stored_count": totals["stored_count"] or 0}


def policy_details(policy: CapturePolicy) -> dict[str, Any]:
    return {name: getattr(policy, name) for name in POLICY_FIELDS}


@transaction.atomic
def capture_policy_update(*, user, deployment: Deployment, **fields: Any) -> CapturePolicy:
    """Change the capture policy (any of POLICY_FIELDS; the serializer checked the values). Every web
    process reads the new policy on its next request (the serving stamp moves); history event ``capture``.

    e.g. ``capture_policy_update(user=u, deployment=d, enabled=True, sample_rate=0.05)``
    """
    from deploy.services import _touch, check_operation_supported

    Deployment.objects.select_for_update().filter(pk=deployment.pk).first()
    if fields.get("enabled"):
        check_operation_supported(deployment.model_version, "request capture", field="enabled")
    policy = capture_policy_of(deployment=deployment)
    before = policy_details(policy)
    for name, value in fields.items():
        if name not in POLICY_FIELDS:
            raise field_error(name, f"{name} is not a capture policy setting.")
        setattr(policy, name, value)
    policy.updated_by = user if user is not None and user.is_authenticated else None
    policy.save()
    after = policy_details(policy)
    if after != before:
        DeploymentEvent.objects.create(
            deployment=deployment,
            action=DeploymentEventAction.CAPTURE,
            model_version_id=deployment.model_version_id,
            by=policy.updated_by,
            details={"capture": after},
        )
        _touch(deployment)
    return policy


# --- reads ---------------------------------------------------------------------------------------


def captures_of(
    *,
    deployment: Deployment,
    reason: str | None = None,
    label: str | None = None,
    sent: bool | None = None,
    model_version: int | None = None,
) -> QuerySet[CapturedRequest]:
    """The deployment's captures, newest first, filtered.

    e.g. ``captures_of(deployment=d, reason="low_confidence", sent=False)``
    """
    queryset = CapturedRequest.objects.filter(deployment=deployment)
    if reason:
        queryset = queryset.filter(reason=reason)
    if label:
        queryset = queryset.filter(top_label=label)
    if sent is not None:
        queryset = queryset.filter(sent_at__isnull=not sent)
    if model_version is not None:
        queryset = queryset.filter(model_version_id=model_version)
    return queryset.select_related("model_version", "shadow_version").annotate(
        sent_to_dataset=F("sent_to_sample__dataset_id")
    )


def capture_content(capture: CapturedRequest) -> bytes | None:
    """The stored input's bytes (None: the blob is gone)."""
    try:
        with default_storage.open(capture.blob_key, "rb") as fh:
            return fh.read()
    except (FileNotFoundError, OSError):
        return None


MAX_LISTED_TEXT = 2000


def capture_preview(capture: CapturedRequest) -> dict[str, Any]:
    """``{text}`` of a text capture (its first MAX_LISTED_TEXT characters) or ``{row}`` of a tabular one."""
    if capture.data_kind not in ("text", "row"):
        return {}
    data = capture_content(capture)
    if data is None:
        return {}
    if capture.data_kind == "text":
        return {"text": data.decode("utf-8", "replace")[:MAX_LISTED_TEXT]}
    try:
        return {"row": json.loads(data)}
    except ValueError:
        return {}


# --- deletes -------------------------------------------------------------------------------------


def _delete_rows(queryset: QuerySet[CapturedRequest]) -> int:
    """Delete the rows (their blobs go once committed: ``captured_request_deleted``)."""
    deleted = 0
    while True:
        chunk = list(queryset.values_list("pk", "blob_key")[:DELETE_BATCH])
        if not chunk:
            break
        CapturedRequest.objects.filter(
            pk__in=[pk for pk, _ in chunk]
        ).delete()  # blobs: captured_request_deleted
        deleted += len(chunk)
    return deleted


def captured_request_deleted(sender, instance: CapturedRequest, **kwargs: Any) -> None:
    """``post_delete`` of every CapturedRequest (connected in deploy.apps), however it goes (one,
    many, retention, its deployment, project or workspace deleted): its input is deleted from blob
    storage once the deletion commits."""
    if instance.blob_key:
        transaction.on_commit(functools.partial(_delete_blobs, [instance.blob_key]))


def _delete_blobs(keys: Collection[str]) -> None:
    for key in keys:
        try:
            default_storage.delete(key)
        except Exception:
            logger.warning("deleting the captured input %s failed", key, exc_info=True)


@transaction.atomic
def capture_delete(*, capture: CapturedRequest) -> None:
    _delete_rows(CapturedRequest.objects.filter(pk=capture.pk))
    writer.forget(capture.deployment_id)


@transaction.atomic
def captures_delete(*, deployment: Deployment, ids: Collection[int] | None = None, all: bool = False) -> int:
    """Delete captures of ``deployment`` by id, or all of them; their inputs go too. Unknown ids are
    refused (400 naming them), nothing deleted.

    e.g. ``captures_delete(deployment=d, ids=[4, 5])`` -> 2
    """
    queryset = CapturedRequest.objects.filter(deployment=deployment)
    if not all:
        wanted = set(ids or ())
        if not wanted:
            raise field_error("ids", "Give the captures' ids, or all: true.")
        found = set(queryset.filter(pk__in=wanted).values_list("pk", flat=True))
        missing = sorted(wanted - found)
        if missing:
            raise field_error(
                "ids",
                f"No capture {', '.join(map(str, missing[:20]))} in this deployment.",
                missing=missing[:100],
            )
        queryset = queryset.filter(pk__in=found)
    deleted = _delete_rows(queryset)
    writer.forget(deployment.pk)
    return deleted


def capture_cleanup(*, now=None) -> int:
    """Delete captures older than their deployment's retention (a deployment without a policy: the
    default, 7 days). The hourly ``deploy.capture_cleanup`` task."""
    now = now or timezone.now()
    deleted = 0
    retention = dict(CapturePolicy.objects.values_list("deployment_id", "retention_days"))
    deployments = CapturedRequest.objects.values_list("deployment_id", flat=True).distinct()
    for deployment_id in list(deployments):
        days = retention.get(deployment_id) or DEFAULT_RETENTION_DAYS
        with transaction.atomic():
            deleted += _delete_rows(
                CapturedRequest.objects.filter(deployment_id=deployment_id, at__lt=now - timedelta(days=days))
            )
        writer.forget(deployment_id)
    if deleted:
        logger.info("capture cleanup: deleted %d captured request(s) past their retention", deleted)
    return deleted


# --- send to a dataset ---------------------------------------------------------------------------


def _check_dataset(*, deployment: Deployment, dataset) -> str:
    """The deployment's template, which the dataset's task must be."""
    if dataset.project_id != deployment.project_id:
        raise field_error("dataset", f"Dataset {dataset.name!r} belongs to another project.")
    template = deployment.model_version.template
    if dataset.task_type != template:
        raise field_error(
            "dataset",
            f"Dataset {dataset.name!r} is a {dataset.get_task_type_display().lower()} dataset; this "
            f"deployment's model is {template.replace('_', ' ')}: send its captures to a "
            f"{template.replace('_', ' ')} dataset.",
        )
    return template


def _selected(
    *,
    deployment: Deployment,
    ids: Collection[int] | None,
    reason: str | None,
    label: str | None,
    skipped: list[dict[str, Any]],
) -> list[CapturedRequest]:
    queryset = CapturedRequest.objects.filter(deployment=deployment).select_for_update()
    if ids:
        wanted = set(ids)
        if len(wanted) > MAX_SEND:
            raise field_error("ids", f"{len(wanted):,} captures; one send takes at most {MAX_SEND:,}.")
        chosen = list(queryset.filter(pk__in=wanted).order_by("at", "pk"))
        missing = sorted(wanted - {c.pk for c in chosen})
        if missing:
            raise field_error(
                "ids",
                f"No capture {', '.join(map(str, missing[:20]))} in this deployment.",
                missing=missing[:100],
            )
    else:
        queryset = queryset.filter(sent_at__isnull=True)
        if reason:
            queryset = queryset.filter(reason=reason)
        if label:
            queryset = queryset.filter(top_label=label)
        chosen = list(queryset.order_by("at", "pk")[: MAX_SEND + 1])
        if len(chosen) > MAX_SEND:
            raise field_error(
                "ids",
                f"More than {MAX_SEND:,} captures match; send them by ids or narrow the filter "
                "(reason, label), at most {MAX_SEND:,} at a time.",
            )
    if not chosen:
        raise field_error("ids", "No capture to send: none matches (captures already sent are left out).")
    fresh = []
    for capture in chosen:
        if capture.sent_at is not None:
            skipped.append({"id": capture.pk, "reason": "already_sent", "detail": ""})
        else:
            fresh.append(capture)
    return fresh


def _staged(capture: CapturedRequest, data: bytes, dataset, skipped: list[dict[str, Any]]):
    """The Staged sample of one capture, or None (the reason appended to ``skipped``)."""
    from datasets.images import ImageRejected
    from datasets.services.image_imports import _prepare_and_store
    from datasets.services.imports import Staged

    name = f"capture {capture.pk} of deployment {capture.deployment_id}"
    if capture.data_kind == "image":
        staged = _prepare_and_store(data, settings.SAMPAN_DATASET_MAX_IMAGE_PIXELS)
        if isinstance(staged, ImageRejected):
            skipped.append({"id": capture.pk, "reason": "unreadable_input", "detail": str(staged)})
            return None
        staged.name = f"{name}.png"
        return staged
    if capture.data_kind == "text":
        text = data.decode("utf-8", "replace")
        return Staged(
            name=f"{name}: {text[:60]}"[:255],
            label=None,
            sha256=hashlib.sha256(text.encode()).hexdigest(),
            fields={"format": "TEXT", "size_bytes": len(text.encode()), "text": text},
        )
    return _staged_row(capture, data, dataset, name, skipped)


def _staged_row(capture, data: bytes, dataset, name: str, skipped: list[dict[str, Any]]):
    """A row as a tabular import stores it (datasets.services.table_imports): the dataset's columns,
    numbers in its numeric columns, no label or target."""
    from datasets.services.imports import Staged
    from datasets.tables import as_number

    columns = (dataset.schema or {}).get("columns")
    if not columns:
        skipped.append(
            {
                "id": capture.pk,
                "reason": "no_schema",
                "detail": "the dataset has no columns yet: import a table into it first",
            }
        )
        return None
    try:
        row = json.loads(data)
    except ValueError:
        skipped.append({"id": capture.pk, "reason": "unreadable_input", "detail": "not a JSON row"})
        return None
    values: dict[str, Any] = {}
    for column in columns:
        value = row.get(column["name"]) if isinstance(row, dict) else None
        if value is not None and column["type"] == "numeric":
            parsed = as_number(value)
            value = parsed if parsed is not None else str(value)
        elif value is not None and not isinstance(value, str):
            value = str(value)
        values[column["name"]] = value
    canonical = json.dumps([values, None, None], sort_keys=True, separators=(",", ":"))
    return Staged(
        name=name[:255],
        label=None,
        sha256=hashlib.sha256(canonical.encode()).hexdigest(),
        fields={"format": "ROW", "size_bytes": len(canonical), "values": values, "target": None},
    )


def _suggestion(capture: CapturedRequest, sample, template: str, labels: dict[str, int]):
    """(Suggestion fields, or None with why not)."""
    answer = capture.answer or {}
    if template == "tabular_regression":
        if answer.get("value") is None:
            return None, "the served answer has no value"
        return {"value": float(answer["value"]), "confidence": 0.0}, ""
    if template == "object_detection":
        width, height = answer.get("width") or sample.width, answer.get("height") or sample.height
        sx = sample.width / width if width else 1.0
        sy = sample.height / height if height else 1.0
        boxes, unknown = [], set()
        for box in answer.get("boxes") or []:
            label_id = labels.get(str(box.get("label")))
            if label_id is None:
                unknown.add(str(box.get("label")))
                continue
            boxes.append(
                {
                    "label": label_id,
                    "x": float(box["x"]) * sx,
                    "y": float(box["y"]) * sy,
                    "width": float(box["width"]) * sx,
                    "height": float(box["height"]) * sy,
                    "score": float(box.get("score", 0.0)),
                }
            )
        if unknown and not boxes:
            return None, f"no class of the dataset among the boxes ({', '.join(sorted(unknown)[:10])})"
        best = max((b["score"] for b in boxes), default=0.0)
        return {"boxes": boxes, "confidence": best}, ""
    top = answer.get("label")
    label_id = labels.get(str(top)) if top is not None else None
    if label_id is None:
        return None, f"the dataset has no label {top!r}"
    scores = [
        {"label": labels[str(entry.get("label"))], "score": float(entry.get("score", 0.0))}
        for entry in answer.get("top_k") or []
        if str(entry.get("label")) in labels
    ]
    return {"label_id": label_id, "confidence": float(answer.get("score") or 0.0), "scores": scores}, ""


def captures_send(
    *,
    user,
    deployment: Deployment,
    dataset,
    ids: Collection[int] | None = None,
    reason: str | None = None,
    label: str | None = None,
) -> dict[str, Any]:
    """Add captured inputs to ``dataset`` (same project, the deployment's task) as unlabeled samples,
    each with a pending Suggestion (source ``capture``) holding the served answer, its label mapped
    to the dataset's classes by name. Captures by ``ids``, else the unsent ones matching ``reason`` /
    ``label``. A capture already sent, whose input is gone or already in the dataset is skipped (and
    said so); a served label the dataset lacks gives a sample without a suggestion.

    e.g. ``captures_send(user=u, deployment=d, dataset=ds, reason="low_confidence")`` ->
    ``{"dataset": 7, "samples_created": 12, "suggestions_created": 12, "skipped": []}``
    """
    from datasets.models import ImportBatch, ImportSource, Label, Sample
    from datasets.selectors import dataset_profile
    from datasets.services.imports import commit_samples
    from labeling.models import Suggestion, SuggestionSource

    template = _check_dataset(deployment=deployment, dataset=dataset)
    allowed = {kind for kind, tasks in KIND_TASKS.items() if dataset.task_type in tasks}
    skipped: list[dict[str, Any]] = []
    with transaction.atomic():
        captures = _selected(deployment=deployment, ids=ids, reason=reason, label=label, skipped=skipped)
        staged_of: dict[int, Any] = {}
        for capture in captures:
            if capture.data_kind not in allowed:
                skipped.append({"id": capture.pk, "reason": "wrong_kind", "detail": capture.data_kind})
                continue
            data = capture_content(capture)
            if data is None:
                skipped.append({"id": capture.pk, "reason": "input_missing", "detail": ""})
                continue
            staged = _staged(capture, data, dataset, skipped)
            if staged is not None:
                staged_of[capture.pk] = staged
        created_samples = 0
        suggestions: list[Suggestion] = []
        if staged_of:
            # one sample per distinct input: a second capture of the same input in this send is a duplicate
            first_of: dict[str, int] = {}
            unique = []
            for capture_id, staged in staged_of.items():
                if staged.sha256 in first_of:
                    skipped.append(
                        {
                            "id": capture_id,
                            "reason": "duplicate",
                            "detail": f"as capture {first_of[staged.sha256]}",
                        }
                    )
                else:
                    first_of[staged.sha256] = capture_id
                    unique.append(staged)
            text_like = dataset.task_type not in KIND_TASKS["image"]
            batch = ImportBatch(
                dataset=dataset,
                source=ImportSource.TABLE if text_like else ImportSource.FILES,
                filename=f"captures of deployment {deployment.name}"[:255],
                size_bytes=sum(s.fields.get("size_bytes", 0) for s in unique),
                created_by=user if user is not None and user.is_authenticated else None,
            )

            def refresh_profile(locked) -> None:
                if text_like:
                    locked.profile = dataset_profile(dataset=locked)
                    locked.save(update_fields=["profile"])

            commit_samples(
                dataset=dataset,
                batch=batch,
                staged=unique,
                problems=[],
                files=len(unique),
                what="capture",
                field="ids",
                finish=refresh_profile,
            )
            samples = {
                sha: sample
                for sample in Sample.objects.filter(dataset=dataset, sha256__in=list(first_of))
                for sha in [sample.sha256]
            }
            labels = dict(Label.objects.filter(dataset=dataset).values_list("name", "pk"))
            now = timezone.now()
            sent: list[CapturedRequest] = []
            captures_by_id = {c.pk: c for c in captures}
            for sha, capture_id in first_of.items():
                capture, sample = captures_by_id[capture_id], samples.get(sha)
                if sample is None or sample.import_batch_id != batch.pk:
                    skipped.append(
                        {"id": capture_id, "reason": "duplicate", "detail": "already in the dataset"}
                    )
                    continue
                created_samples += 1
                capture.sent_to_sample = sample
                capture.sent_at = now
                sent.append(capture)
                fields, why_not = _suggestion(capture, sample, template, labels)
                if fields is None:
                    skipped.append({"id": capture_id, "reason": "no_suggestion", "detail": why_not})
                    continue
                suggestions.append(
                    Suggestion(
                        dataset=dataset,
                        sample=sample,
                        round=None,
                        source=SuggestionSource.CAPTURE,
                        captured_request=capture,
                        priority=1.0 - fields.get("confidence", 0.0),
                        **fields,
                    )
                )
            CapturedRequest.objects.bulk_update(sent, ["sent_to_sample", "sent_at"])
            Suggestion.objects.bulk_create(suggestions)
    return {
        "dataset": dataset.pk,
        "samples_created": created_samples,
        "suggestions_created": len(suggestions),
        "skipped": sorted(skipped, key=lambda s: s["id"]),
    }
