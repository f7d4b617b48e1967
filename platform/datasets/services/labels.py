"""Labels of a dataset (create, rename, merge, delete) and label writes on samples, which use
optimistic concurrency: a write names the ``label_version`` it saw and a stale one is a 409."""

from __future__ import annotations

import zlib
from collections.abc import Mapping
from typing import Any

from config.exceptions import NotFound, field_error
from django.db import IntegrityError, transaction
from django.db.models import F

from datasets.exceptions import LabelConflict, LabelDeleted
from datasets.models import Dataset, Label, Sample

PALETTE = [
    "#e6194b",
    "#3cb44b",
    "#4363d8",
    "#f58231",
    "#911eb4",
    "#42d4f4",
    "#f032e6",
    "#bfef45",
    "#fabed4",
    "#469990",
    "#dcbeff",
    "#9a6324",
    "#800000",
    "#aaffc3",
    "#808000",
    "#000075",
]


def label_problem(name: str) -> str | None:
    """Why ``name`` (already stripped) cannot be a label, or None when it can."""
    if not name:
        return "A label name must not be blank."
    if len(name) > 100:
        return "A label name has at most 100 characters."
    if any(c in name for c in "/\\\x00") or name in {".", ".."}:
        return (
            f"{name!r} cannot be a label: label names are folder names on export, "
            "so '/', '\\\\', '.' and '..' are not allowed."
        )
    return None


def label_name(name: str, *, field: str = "name") -> str:
    """``name`` stripped, or a 400 on ``field`` saying why it cannot be a label."""
    name = (name or "").strip()
    problem = label_problem(name)
    if problem is not None:
        raise field_error(field, problem)
    return name


def color_for(name: str) -> str:
    return PALETTE[zlib.crc32(name.encode()) % len(PALETTE)]


def label_create(*, dataset: Dataset, name: str, color: str = "") -> Label:
    name = label_name(name)
    try:
        with transaction.atomic():
            return Label.objects.create(dataset=dataset, name=name, color=color or color_for(name))
    except IntegrityError:
        raise field_error("name", f"This dataset already has a label named {name!r}.") from None


def label_update(*, label: Label, name: str | None = None, color: str | None = None) -> Label:
    """Rename or recolour; renaming onto an existing name is refused (merge the labels instead)."""
    if name is not None:
        label.name = label_name(name)
    if color is not None:
        label.color = color
    try:
        with transaction.atomic():
            label.save()
    except IntegrityError:
        raise field_error(
            "name", f"This dataset already has a label named {label.name!r}; merge the two labels instead."
        ) from None
    return label


def _lock_labels(*pks: int) -> dict[int, Label]:
    """FOR UPDATE, in id order: waits for label writes in flight, and they wait for us."""
    return {lab.pk: lab for lab in Label.objects.select_for_update().filter(pk__in=pks).order_by("pk")}


def _move_samples(label: Label, *, to: Label | None, dry_run: bool) -> int:
    """Give ``label``'s samples the label ``to`` (None: unlabeled) and delete ``label``, unless
    ``dry_run``. Returns how many samples change."""
    samples = Sample.objects.filter(dataset_id=label.dataset_id, label_id=label.pk)
    affected = samples.count()
    if not dry_run:
        samples.update(label=to, label_version=F("label_version") + 1)
        Label.objects.filter(pk=label.pk).delete()
    return affected


@transaction.atomic
def label_delete(*, label: Label, dry_run: bool = False) -> int:
    """Delete a label; its samples become unlabeled. Returns how many samples change."""
    if not _lock_labels(label.pk):
        raise NotFound(f"Label {label.pk} no longer exists.")
    return _move_samples(label, to=None, dry_run=dry_run)


@transaction.atomic
def label_merge(*, label: Label, into: Label, dry_run: bool = False) -> int:
    """Move ``label``'s samples to ``into`` and delete ``label``. Returns how many samples change."""
    if into.pk == label.pk:
        raise field_error("into", "A label cannot be merged into itself.")
    if into.dataset_id != label.dataset_id:
        raise field_error("into", f"Label {into.pk} is not a label of this dataset.")
    locked = _lock_labels(label.pk, into.pk)
    if into.pk not in locked:
        raise LabelDeleted(f"Label {into.pk} no longer exists; reload the labels.", field="into")
    if label.pk not in locked:
        raise NotFound(f"Label {label.pk} no longer exists.")
    return _move_samples(label, to=into, dry_run=dry_run)


# --- label writes on samples (optimistic concurrency) ---------------------------------------------


def _label_for_write(*, dataset: Dataset, label_id: int | None) -> Label | None:
    """The target label, locked against deletion until our transaction ends."""
    if label_id is None:
        return None
    label = Label.objects.select_for_update(no_key=True).filter(pk=label_id, dataset=dataset).first()
    if label is None:
        raise LabelDeleted(
            f"Label {label_id} does not exist in this dataset (it may have just been deleted or merged); "
            "nothing was saved. Reload the labels and try again.",
            field="label",
        )
    return label


def _current(sample: Mapping[str, Any]) -> dict:
    return {
        "id": sample["pk"],
        "label": sample["label_id"],
        "label_name": sample["label__name"],
        "label_version": sample["label_version"],
    }


def sample_set_label(*, dataset: Dataset, sample_id: int, label_id: int | None, label_version: int) -> Sample:
    """Label one sample if nobody changed it since ``label_version``; 409 with the current value if
    someone did. e.g. ``sample_set_label(dataset=d, sample_id=7, label_id=3, label_version=0)``"""
    with transaction.atomic():
        label = _label_for_write(dataset=dataset, label_id=label_id)
        changed = Sample.objects.filter(pk=sample_id, dataset=dataset, label_version=label_version).update(
            label=label, label_version=F("label_version") + 1
        )
        if changed != 1:
            current = (
                Sample.objects.filter(pk=sample_id, dataset=dataset)
                .values("pk", "label_id", "label__name", "label_version")
                .first()
            )
            if current is None:
                raise NotFound(f"Sample {sample_id} does not exist in this dataset.")
            raise LabelConflict(
                f"Sample {sample_id} was relabeled by someone else (its label_version is now "
                f"{current['label_version']}, you sent {label_version}); nothing was saved.",
                field="label_version",
                current=_current(current),
            )
    return Sample.objects.select_related("label").get(pk=sample_id)


def samples_bulk_set_label(*, dataset: Dataset, label_id: int | None, items: list[dict]) -> list[dict]:
    """All or nothing: every item is ``{"id", "label_version"}``; if any sample changed meanwhile,
    nothing is saved and the 409 lists the current values. Returns the new versions."""
    ids = [item["id"] for item in items]
    if len(set(ids)) != len(ids):
        raise field_error("items", "Each sample may appear once.")
    with transaction.atomic():
        label = _label_for_write(dataset=dataset, label_id=label_id)
        seen = dict(
            Sample.objects.select_for_update()
            .filter(dataset=dataset, pk__in=ids)
            .order_by("pk")
            .values_list("pk", "label_version")
        )
        missing = sorted(set(ids) - set(seen))
        if missing:
            raise field_error("items", f"No sample(s) {missing[:20]} in this dataset; nothing was saved.")
        stale = [item["id"] for item in items if seen[item["id"]] != item["label_version"]]
        if stale:
            current = Sample.objects.filter(pk__in=stale).values(
                "pk", "label_id", "label__name", "label_version"
            )
            raise LabelConflict(
                f"{len(stale)} of the {len(ids)} samples were relabeled by someone else since you loaded "
                "them; nothing was saved.",
                field="items",
                conflicts=[_current(row) for row in current],
            )
        Sample.objects.filter(pk__in=ids).update(label=label, label_version=F("label_version") + 1)
        return [
            {"id": pk, "label": label_id, "label_version": version}
            for pk, version in Sample.objects.filter(pk__in=ids)
            .order_by("pk")
            .values_list("pk", "label_version")
        ]


def sample_delete(*, sample: Sample) -> None:
    """Versions keep their copy of the sample; the blob stays for them."""
    sample.delete()
