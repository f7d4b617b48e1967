"""Labels of a dataset (create, rename, reorder, key, merge, delete) and label writes on samples, which use
optimistic concurrency: a write names the ``label_version`` it saw and a stale one is a 409."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

from config.exceptions import NotFound, field_error
from django.db import IntegrityError, transaction
from django.db.models import F, Max

from datasets.exceptions import LabelConflict, LabelDeleted
from datasets.label_order import RESERVED_KEYS
from datasets.models import (
    ANNOTATION_TASKS,
    REGRESSION_TASKS,
    ActivityAction,
    ActivitySource,
    Annotation,
    AnnotationStatus,
    Dataset,
    Label,
    Sample,
)
from datasets.services.activity import (
    activity_record,
    boxes_now,
    boxes_value,
    label_value,
    reset_review,
    target_value,
)

#: Distinct colours, none repeated before the 21st label (the frontend has the same list, for
#: labels without a colour). Labels get them in order: the first colour no other label has.
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
    "#ffe119",
    "#ffd8b1",
    "#a9a9a9",
    "#fffac8",
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


def next_colors(*, dataset: Dataset, count: int) -> list[str]:
    """Colours for ``count`` new labels: palette colours no label of the dataset has yet, in
    palette order, then the palette again."""
    used = set(Label.objects.filter(dataset=dataset).values_list("color", flat=True))
    free = [c for c in PALETTE if c not in used]
    return [free[i] if i < len(free) else PALETTE[(len(used) + i) % len(PALETTE)] for i in range(count)]


def next_position(*, dataset: Dataset) -> int:
    last = Label.objects.filter(dataset=dataset).aggregate(last=Max("position"))["last"]
    return 0 if last is None else last + 1


def label_shortcut(value: str, *, dataset: Dataset, label: Label | None = None) -> str:
    """The key ``value`` names, lower-cased (keys ignore Shift), or a 400 with a code saying why it
    cannot be a label's key: one printable character, not one the labeling grid uses, not another
    label's. Blank: the label takes the default key of its place."""
    key = value or ""
    if not key:
        return ""
    if len(key) != 1 or not (33 <= ord(key) <= 126):
        raise field_error(
            "shortcut",
            f"{value!r} cannot be a key: give one character typed without modifiers "
            "(a letter, a digit or a punctuation mark).",
            code="shortcut_invalid",
        )
    key = key.lower()
    if key in RESERVED_KEYS:
        raise field_error(
            "shortcut",
            f"{key!r} is used by the labeling grid itself; pick another key.",
            code="shortcut_reserved",
        )
    others = Label.objects.filter(dataset=dataset, shortcut=key)
    other = (others if label is None else others.exclude(pk=label.pk)).first()
    if other is not None:
        raise field_error(
            "shortcut", f"The key {key!r} is already label {other.name!r}'s.", code="shortcut_taken"
        )
    return key


def _refuse_forecasting(dataset: Dataset, what: str) -> None:
    from datasets.services.time_series import refuse_forecasting

    refuse_forecasting(dataset, what)


def label_create(*, dataset: Dataset, name: str, color: str = "", shortcut: str = "") -> Label:
    """A new label, last in the dataset's order, with a colour no other label has (unless given).
    e.g. ``label_create(dataset=d, name="猫", shortcut="c")``"""
    _refuse_forecasting(dataset, "labels")
    name = label_name(name)
    try:
        with transaction.atomic():
            list(Dataset.objects.select_for_update().filter(pk=dataset.pk).values_list("pk"))
            shortcut = label_shortcut(shortcut, dataset=dataset)
            return Label.objects.create(
                dataset=dataset,
                name=name,
                color=color or next_colors(dataset=dataset, count=1)[0],
                position=next_position(dataset=dataset),
                shortcut=shortcut,
            )
    except IntegrityError:
        raise field_error("name", f"This dataset already has a label named {name!r}.") from None


def label_update(
    *, label: Label, name: str | None = None, color: str | None = None, shortcut: str | None = None
) -> Label:
    """Rename, recolour or set the key; renaming onto an existing name is refused (merge the labels
    instead). ``shortcut=""`` gives the label its default key back."""
    if name is not None:
        label.name = label_name(name)
    if color is not None:
        label.color = color
    if shortcut is not None:
        label.shortcut = label_shortcut(shortcut, dataset=label.dataset, label=label)
    try:
        with transaction.atomic():
            label.save()
    except IntegrityError as error:
        if "shortcut" in str(error):
            raise field_error(
                "shortcut",
                f"The key {label.shortcut!r} was just given to another label.",
                code="shortcut_taken",
            ) from None
        raise field_error(
            "name", f"This dataset already has a label named {label.name!r}; merge the two labels instead."
        ) from None
    return label


@transaction.atomic
def labels_reorder(*, dataset: Dataset, label_ids: list[int]) -> list[Label]:
    """Put the dataset's labels in the order of ``label_ids``, which names every label once; all or
    nothing. Versions made before keep their class order. e.g. ``labels_reorder(dataset=d,
    label_ids=[3, 1, 2])``"""
    labels = {lab.pk: lab for lab in Label.objects.select_for_update().filter(dataset=dataset).order_by("pk")}
    repeated = sorted({pk for pk in label_ids if label_ids.count(pk) > 1})
    if repeated:
        raise field_error(
            "label_ids", f"Each label may appear once; repeated: {repeated}.", code="labels_repeated"
        )
    foreign = [pk for pk in label_ids if pk not in labels]
    if foreign:
        raise field_error(
            "label_ids",
            f"No label(s) {foreign[:20]} in this dataset (deleted, or another dataset's); reload the labels.",
            code="labels_unknown",
        )
    missing = sorted(set(labels) - set(label_ids))
    if missing:
        names = ", ".join(repr(labels[pk].name) for pk in missing[:20])
        raise field_error(
            "label_ids",
            f"The order must name every label of the dataset; missing: {missing[:20]} ({names}). "
            "Reload the labels: one may have been added meanwhile.",
            code="labels_missing",
        )
    for position, pk in enumerate(label_ids):
        labels[pk].position = position
    Label.objects.bulk_update(labels.values(), ["position"])
    return [labels[pk] for pk in label_ids]


def _lock_labels(*pks: int) -> dict[int, Label]:
    """FOR UPDATE, in id order: waits for label writes in flight, and they wait for us."""
    return {lab.pk: lab for lab in Label.objects.select_for_update().filter(pk__in=pks).order_by("pk")}


def _move_samples(label: Label, *, to: Label | None, dry_run: bool, actor: Any = None) -> int:
    """Give ``label``'s samples the label ``to`` (None: unlabeled) and delete ``label``, unless
    ``dry_run``. Returns how many samples change. Object detection: the label's boxes move to
    ``to``, or are deleted with it (an image left without boxes is unlabeled again). Each changed
    sample gets a log entry (source ``label_change``, one insert); a sample left unlabeled is
    unreviewed again, a merged one keeps its review (the same objects under one name)."""
    if label.dataset.task_type in ANNOTATION_TASKS:
        return _move_boxes(label, to=to, dry_run=dry_run, actor=actor)
    samples = Sample.objects.filter(dataset_id=label.dataset_id, label_id=label.pk)
    if dry_run:
        return samples.count()
    ids = list(samples.order_by("pk").values_list("pk", flat=True))
    samples.update(label=to, label_version=F("label_version") + 1)
    before = label_value(label.pk, label.name)
    after = label_value(to.pk if to else None, to.name if to else None)
    activity_record(
        dataset=label.dataset,
        entries=[(pk, before, after) for pk in ids],
        action=ActivityAction.LABEL,
        source=ActivitySource.LABEL_CHANGE,
        actor=actor,
    )
    if to is None:
        reset_review(sample_ids=ids, source=ActivitySource.LABEL_CHANGE)
    Label.objects.filter(pk=label.pk).delete()
    return len(ids)


def _move_boxes(label: Label, *, to: Label | None, dry_run: bool, actor: Any = None) -> int:
    boxes = Annotation.objects.filter(label_id=label.pk)
    sample_ids = list(boxes.order_by().values_list("sample_id", flat=True).distinct())
    if dry_run:
        return len(sample_ids)
    # lock the samples as annotation writes do, so a write in flight is refused (its revision is stale)
    statuses = dict(
        Sample.objects.select_for_update()
        .filter(pk__in=sample_ids)
        .order_by("pk")
        .values_list("pk", "annotation_status")
    )
    before = {pk: boxes_value(statuses[pk], rows) for pk, rows in boxes_now(sample_ids).items()}
    if to is None:
        boxes.delete()
    else:
        boxes.update(label=to)
    Sample.objects.filter(pk__in=sample_ids).update(label_version=F("label_version") + 1)
    emptied = list(
        Sample.objects.filter(pk__in=sample_ids, annotation_status=AnnotationStatus.ANNOTATED)
        .exclude(pk__in=Annotation.objects.filter(sample_id__in=sample_ids).values("sample_id"))
        .values_list("pk", flat=True)
    )
    Sample.objects.filter(pk__in=emptied).update(annotation_status=AnnotationStatus.UNLABELED)
    after: dict[int, dict[str, Any]] = {}
    for pk, value in before.items():
        moved = (
            [b for b in value["boxes"] if b["label"] != label.pk]
            if to is None
            else [
                {**b, "label": to.pk, "label_name": to.name} if b["label"] == label.pk else b
                for b in value["boxes"]
            ]
        )
        status = AnnotationStatus.UNLABELED if pk in emptied else value["status"]
        after[pk] = {"status": status, "boxes": moved}
    activity_record(
        dataset=label.dataset,
        entries=[(pk, before[pk], after[pk]) for pk in sorted(before)],
        action=ActivityAction.ANNOTATIONS,
        source=ActivitySource.LABEL_CHANGE,
        actor=actor,
    )
    if to is None:
        reset_review(sample_ids=sample_ids, source=ActivitySource.LABEL_CHANGE)
    Label.objects.filter(pk=label.pk).delete()
    return len(sample_ids)


@transaction.atomic
def label_delete(*, label: Label, dry_run: bool = False, actor: Any = None) -> int:
    """Delete a label; its samples become unlabeled. Returns how many samples change."""
    if not _lock_labels(label.pk):
        raise NotFound(f"Label {label.pk} no longer exists.")
    return _move_samples(label, to=None, dry_run=dry_run, actor=actor)


@transaction.atomic
def label_merge(*, label: Label, into: Label, dry_run: bool = False, actor: Any = None) -> int:
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
    return _move_samples(label, to=into, dry_run=dry_run, actor=actor)


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


def _locked_samples(*, dataset: Dataset, ids: list[int]) -> dict[int, dict[str, Any]]:
    """The samples' current label and version, locked (in id order) until our transaction ends."""
    return {
        row["pk"]: dict(row)
        for row in Sample.objects.select_for_update(of=("self",))
        .filter(dataset=dataset, pk__in=ids)
        .order_by("pk")
        .values("pk", "label_id", "label__name", "label_version")
    }


def _write_labels(
    *,
    dataset: Dataset,
    seen: dict[int, dict[str, Any]],
    targets: dict[int, Label | None],
    actor: Any,
    source: str,
    comment: str = "",
) -> list[dict]:
    """Give each sample its target label (samples already checked and locked), log the changes and
    make the samples unreviewed again (unless a reviewer wrote). Returns the new versions."""
    by_label: dict[int | None, list[int]] = {}
    for pk, label in targets.items():
        by_label.setdefault(label.pk if label else None, []).append(pk)
    for label_id, pks in by_label.items():
        Sample.objects.filter(pk__in=pks).update(label_id=label_id, label_version=F("label_version") + 1)
    activity_record(
        dataset=dataset,
        entries=[
            (
                pk,
                label_value(seen[pk]["label_id"], seen[pk]["label__name"]),
                label_value(label.pk if label else None, label.name if label else None),
            )
            for pk, label in targets.items()
        ],
        action=ActivityAction.LABEL,
        source=source,
        actor=actor,
        comment=comment,
    )
    reset_review(sample_ids=list(targets), source=source)
    return [
        {"id": pk, "label": label_id, "label_version": version}
        for pk, label_id, version in Sample.objects.filter(pk__in=list(targets))
        .order_by("pk")
        .values_list("pk", "label_id", "label_version")
    ]


def sample_set_label(
    *,
    dataset: Dataset,
    sample_id: int,
    label_id: int | None,
    label_version: int,
    actor: Any = None,
    source: str = ActivitySource.MANUAL,
    comment: str = "",
) -> Sample:
    """Label one sample if nobody changed it since ``label_version``; 409 with the current value if
    someone did. The change is logged (``actor``, ``source``) and the sample is unreviewed again.
    e.g. ``sample_set_label(dataset=d, sample_id=7, label_id=3, label_version=0, actor=user)``"""
    _refuse_forecasting(dataset, "labeling samples")
    with transaction.atomic():
        label = _label_for_write(dataset=dataset, label_id=label_id)
        seen = _locked_samples(dataset=dataset, ids=[sample_id])
        if sample_id not in seen:
            raise NotFound(f"Sample {sample_id} does not exist in this dataset.")
        current = seen[sample_id]
        if current["label_version"] != label_version:
            raise LabelConflict(
                f"Sample {sample_id} was relabeled by someone else (its label_version is now "
                f"{current['label_version']}, you sent {label_version}); nothing was saved.",
                field="label_version",
                current=_current(current),
            )
        _write_labels(
            dataset=dataset,
            seen=seen,
            targets={sample_id: label},
            actor=actor,
            source=source,
            comment=comment,
        )
    return Sample.objects.select_related("label").get(pk=sample_id)


def _refuse_missing_or_stale(
    *, changes: list[dict], seen: Mapping[int, Mapping[str, Any]], current: Callable[..., dict], changed: str
) -> None:
    """All or nothing: a 400 naming samples not in the dataset, a 409 listing (``current``) those
    whose ``label_version`` moved since the caller read them."""
    ids = [change["id"] for change in changes]
    missing = sorted(set(ids) - set(seen))
    if missing:
        raise field_error("changes", f"No sample(s) {missing[:20]} in this dataset; nothing was saved.")
    stale = [
        change["id"] for change in changes if seen[change["id"]]["label_version"] != change["label_version"]
    ]
    if stale:
        raise LabelConflict(
            f"{len(stale)} of the {len(ids)} samples were {changed} by someone else since you loaded "
            "them; nothing was saved.",
            field="changes",
            conflicts=[current(seen[pk]) for pk in stale],
        )


def samples_set_labels(
    *, dataset: Dataset, changes: list[dict], actor: Any = None, source: str = ActivitySource.BULK
) -> list[dict]:
    """All or nothing, each sample its own label: every change is ``{"id", "label" (id or None),
    "label_version"}``; if any sample changed meanwhile nothing is saved and the 409 lists the current
    values. Returns the new versions. e.g. ``samples_set_labels(dataset=d, changes=[{"id": 7,
    "label": 3, "label_version": 0}, {"id": 8, "label": 4, "label_version": 2}], actor=user,
    source="suggestion")``"""
    ids = [change["id"] for change in changes]
    if len(set(ids)) != len(ids):
        raise field_error("changes", "Each sample may appear once.")
    with transaction.atomic():
        wanted = sorted({change["label"] for change in changes if change["label"] is not None})
        labels = {
            lab.pk: lab
            for lab in Label.objects.select_for_update(no_key=True)
            .filter(pk__in=wanted, dataset=dataset)
            .order_by("pk")
        }
        gone = [pk for pk in wanted if pk not in labels]
        if gone:
            raise LabelDeleted(
                f"Label(s) {gone[:20]} do not exist in this dataset (they may have just been deleted or "
                "merged); nothing was saved. Reload the labels and try again.",
                field="changes",
            )
        seen = _locked_samples(dataset=dataset, ids=ids)
        _refuse_missing_or_stale(changes=changes, seen=seen, current=_current, changed="relabeled")
        targets = {change["id"]: labels.get(change["label"]) for change in changes}
        return _write_labels(dataset=dataset, seen=seen, targets=targets, actor=actor, source=source)


def _current_target(sample: Mapping[str, Any]) -> dict:
    return {"id": sample["pk"], "target": sample["target"], "label_version": sample["label_version"]}


def _finite_target(value: Any, *, where: str) -> float | None:
    """``value`` as a float (None clears the target), or a 400 naming ``where``."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise field_error(where, f"A target is a finite number or null, not {value!r}; nothing was saved.")
    return float(value)


def samples_set_targets(
    *,
    dataset: Dataset,
    changes: list[dict],
    actor: Any = None,
    source: str = ActivitySource.BULK,
    comment: str = "",
) -> list[dict]:
    """Regression datasets, all or nothing: every change is ``{"id", "target" (a finite number or
    None), "label_version"}``; if any sample changed meanwhile nothing is saved and the 409 lists the
    current values. Each changed target is logged (action ``target``) and its sample is unreviewed
    again unless a reviewer wrote. Returns the new versions. e.g. ``samples_set_targets(dataset=d,
    changes=[{"id": 7, "target": 3.2, "label_version": 0}], actor=user, source="suggestion")``"""
    if dataset.task_type not in REGRESSION_TASKS:
        raise field_error(
            "changes", f"Only regression datasets have targets; this one is {dataset.task_type}."
        )
    ids = [change["id"] for change in changes]
    if len(set(ids)) != len(ids):
        raise field_error("changes", "Each sample may appear once.")
    targets = {
        change["id"]: _finite_target(change.get("target"), where=f"changes[{i}].target")
        for i, change in enumerate(changes)
    }
    with transaction.atomic():
        seen = {
            row["pk"]: row
            for row in Sample.objects.select_for_update(of=("self",))
            .filter(dataset=dataset, pk__in=ids)
            .order_by("pk")
            .values("pk", "target", "label_version")
        }
        _refuse_missing_or_stale(changes=changes, seen=seen, current=_current_target, changed="changed")
        Sample.objects.bulk_update(
            [
                Sample(pk=pk, target=target, label_version=seen[pk]["label_version"] + 1)
                for pk, target in targets.items()
            ],
            ["target", "label_version"],
            batch_size=1000,
        )
        activity_record(
            dataset=dataset,
            entries=[
                (pk, target_value(seen[pk]["target"]), target_value(target)) for pk, target in targets.items()
            ],
            action=ActivityAction.TARGET,
            source=source,
            actor=actor,
            comment=comment,
        )
        reset_review(sample_ids=list(targets), source=source)
        return [
            _current_target(row)
            for row in Sample.objects.filter(pk__in=ids)
            .order_by("pk")
            .values("pk", "target", "label_version")
        ]


def samples_bulk_set_label(
    *,
    dataset: Dataset,
    label_id: int | None,
    items: list[dict],
    actor: Any = None,
    source: str = ActivitySource.BULK,
) -> list[dict]:
    """All or nothing: every item is ``{"id", "label_version"}``; if any sample changed meanwhile,
    nothing is saved and the 409 lists the current values. Returns the new versions."""
    _refuse_forecasting(dataset, "labeling samples")
    ids = [item["id"] for item in items]
    if len(set(ids)) != len(ids):
        raise field_error("items", "Each sample may appear once.")
    with transaction.atomic():
        label = _label_for_write(dataset=dataset, label_id=label_id)
        seen = _locked_samples(dataset=dataset, ids=ids)
        missing = sorted(set(ids) - set(seen))
        if missing:
            raise field_error("items", f"No sample(s) {missing[:20]} in this dataset; nothing was saved.")
        stale = [item["id"] for item in items if seen[item["id"]]["label_version"] != item["label_version"]]
        if stale:
            raise LabelConflict(
                f"{len(stale)} of the {len(ids)} samples were relabeled by someone else since you loaded "
                "them; nothing was saved.",
                field="items",
                conflicts=[_current(seen[pk]) for pk in stale],
            )
        return _write_labels(
            dataset=dataset, seen=seen, targets=dict.fromkeys(ids, label), actor=actor, source=source
        )


def sample_delete(*, sample: Sample) -> None:
    """Versions keep their copy of the sample; the blob stays for them."""
    sample.delete()
