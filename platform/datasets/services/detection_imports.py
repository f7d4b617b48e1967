"""Object-detection imports: an archive in an interchange format (COCO JSON with its images, Pascal
VOC XML, YOLO txt with classes.txt or data.yaml, a Label Studio JSON export, or plain images).

The archive is checked whole by the same safe reader as every image import, unpacked into a
temporary folder (names already checked: nothing absolute, no ``..``, no links), and read by
``workers.annotation_formats.parse_directory``. Its images are verified, re-encoded and stored as
any image import's; labels are created in the format's class order; each new sample gets its boxes
and status. The format's problems (a box clipped or skipped, an unknown category, a malformed
line, ...) join the batch's ``problems`` with their file, line and annotation; the rest imports.
A refusal of the whole archive (two formats mixed: ``mixed_annotation_formats``) imports nothing.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import BinaryIO, cast

from django.conf import settings
from django.db.models import F
from django.utils import timezone

from datasets.archives import ArchiveLimits, ArchiveRejected, ArchiveScan, archive_files
from datasets.exceptions import ImportRejected
from datasets.label_order import import_order
from datasets.models import (
    ActivityAction,
    ActivitySource,
    Annotation,
    AnnotationStatus,
    Dataset,
    ImportBatch,
    Label,
    Sample,
)
from datasets.services import imports
from datasets.services.activity import Entry, activity_record, boxes_value
from datasets.services.imports import Report
from datasets.services.labels import next_colors, next_position
from workers.contracts.annotations import INTERCHANGE_FORMATS, InterchangeFormat, InterchangeSet

ANNOTATION_FORMAT_CHOICES = ("auto", *INTERCHANGE_FORMATS)


def _unpack(fileobj: BinaryIO, scan: ArchiveScan, root: Path) -> list[tuple[str, str, str]]:
    """Write the archive's files under ``root``; returns the problems of entries that were not
    written as (name, code, message). Entry names were checked by the scan (relative, no ``..``)."""
    for entry in scan.entries:
        if entry.problem is not None and entry.problem[0] == "bad_label":
            entry.problem = None  # folder names are no labels here
    unwritable: list[tuple[str, str, str]] = []
    try:
        for entry, data in archive_files(fileobj, scan, limits=ArchiveLimits.from_settings()):
            target = root.joinpath(*Path(entry.name.replace("\\", "/")).parts)
            if root not in target.parents:  # the scan refuses such names already; never write outside
                raise ImportRejected(f"Archive entry {entry.name!r} escapes the archive.", code="unsafe_path")
            try:
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(data)
            except OSError as exc:  # a file and a folder of the same name, a name the disk refuses
                unwritable.append((entry.name, "corrupt_entry", f"cannot be unpacked: {exc.strerror or exc}"))
    except ArchiveRejected as exc:
        raise ImportRejected(str(exc), code=exc.code, field="archive") from None
    return [*((e.name, *e.problem) for e in scan.entries if e.problem is not None), *unwritable]


def _parse(root: Path, annotation_format: str) -> InterchangeSet:
    from workers.annotation_formats import parse_directory

    chosen = None if annotation_format in ("", "auto") else cast(InterchangeFormat, annotation_format)
    return parse_directory(root, format=chosen)


def _refusal(interchange: InterchangeSet) -> ImportRejected | None:
    refused = [p for p in interchange["problems"] if p["action"] == "refused"]
    if not refused:
        return None
    first = refused[0]
    where = f"{first['file']}: " if first["file"] else ""
    return ImportRejected(
        f"{where}{first['message']}; nothing was imported.",
        code=first["code"],
        field="archive",
        problems=[dict(p) for p in refused],
    )


def import_detection_archive(
    *,
    dataset: Dataset,
    fileobj: BinaryIO,
    scan: ArchiveScan,
    batch: ImportBatch,
    annotation_format: str = "auto",
    report: Report | None = None,
) -> ImportBatch:
    """Import an interchange archive into an object-detection dataset (see the module's doc).
    e.g. ``import_detection_archive(dataset=d, fileobj=f, scan=s, batch=b, annotation_format="coco")``"""
    from datasets.services.image_imports import _ImportRun

    batch.mapping = {"annotation_format": annotation_format or "auto"}
    with tempfile.TemporaryDirectory(prefix="sampan-import-") as folder:
        root = Path(folder).resolve()
        unreadable = _unpack(fileobj, scan, root)
        if report is not None:
            report("reading the annotations", fraction=0.05, milestone=True)
        interchange = _parse(root, annotation_format)
        refusal = _refusal(interchange)
        if refusal is not None:
            raise refusal
        images = interchange["images"]
        run = _ImportRun(
            report=report, total=len(images), max_pixels=settings.SAMPAN_DATASET_MAX_IMAGE_PIXELS
        )
        run.feed((image["file"], None, (root / image["file"]).read_bytes()) for image in images)
    for name, code, message in unreadable:
        run.problem(name, code, message)
    # Files not imported (and, from commit_samples, duplicates) count as failed/duplicates; the
    # format's problems about boxes and lines follow them in the batch's list.
    file_problems: list[dict] = run.problems
    by_name = {image["file"][-255:]: image for image in images}

    def finish(locked: Dataset) -> None:
        problems = [*file_problems, *(dict(p) for p in interchange["problems"])]
        _write_boxes(
            dataset=locked,
            batch=batch,
            by_name=by_name,
            names_by_sha={staged.sha256: staged.name for staged in run.staged},
            classes=list(interchange["classes"]),
            problems=problems,
        )

    run.progress(force=True)
    return imports.commit_samples(
        dataset=dataset,
        batch=batch,
        staged=run.staged,
        problems=file_problems,
        files=len(scan.entries),
        ignored=scan.ignored,
        finish=finish,
    )


def _write_boxes(
    *,
    dataset: Dataset,
    batch: ImportBatch,
    by_name: dict,
    names_by_sha: dict[str, str],
    classes: list[str],
    problems: list[dict],
) -> None:
    """Inside the import's transaction: create the set's labels (class order; then any other label
    its boxes use) and give each new sample its boxes and status. An image already in the dataset
    and still unlabeled (imported plain before) gets the archive's boxes too; one that a person
    labeled keeps its own (the archive's copy is reported as a duplicate)."""
    used = [r["label"] for image in by_name.values() for r in image["annotations"]]
    wanted = list(dict.fromkeys([*classes, *used]))
    labels = {lab.name: lab for lab in Label.objects.filter(dataset=dataset, name__in=wanted)}
    ordered = dict.fromkeys([*classes, *import_order(n for n in used if n not in classes)])
    created = [name for name in ordered if name not in labels]
    if created:
        first = next_position(dataset=dataset)
        colors = next_colors(dataset=dataset, count=len(created))
        Label.objects.bulk_create(
            [
                Label(dataset=dataset, name=n, color=colors[i], position=first + i)
                for i, n in enumerate(created)
            ]
        )
        labels = {lab.name: lab for lab in Label.objects.filter(dataset=dataset, name__in=wanted)}
    rows: list[Annotation] = []
    by_status: dict[str, list[int]] = {}
    fields = ("pk", "original_name", "sha256", "import_batch_id", "width", "height")
    earlier: list[Sample] = []
    for chunk in imports.chunks(list(names_by_sha), 5000):
        earlier.extend(
            Sample.objects.filter(
                dataset=dataset, sha256__in=chunk, annotation_status=AnnotationStatus.UNLABELED
            )
            .exclude(import_batch=batch)
            .only(*fields)
        )
    earlier_ids = {s.pk for s in earlier}
    updated: list[int] = []
    logged: list[Entry] = []  # one activity entry per image the import annotates
    for sample in [*Sample.objects.filter(import_batch=batch).only(*fields), *earlier]:
        name = sample.original_name if sample.import_batch_id == batch.pk else names_by_sha[sample.sha256]
        image = by_name.get(name)
        if image is None:
            continue
        kept = 0
        first = len(rows)
        for index, record in enumerate(image["annotations"]):
            geometry = _inside(record["geometry"], sample.width, sample.height)
            if geometry is None:
                problems.append(
                    {
                        "file": image["file"],
                        "annotation": index,
                        "code": "box_outside_image",
                        "message": f"the box lies outside the stored {sample.width} x {sample.height} image",
                        "action": "skipped",
                    }
                )
                continue
            kept += 1
            rows.append(
                Annotation(
                    sample=sample,
                    label=labels[record["label"]],
                    kind="box",
                    geometry=geometry,
                    attributes=dict(record.get("attributes") or {}),
                    created_by=batch.created_by,
                )
            )
        status = image["status"]
        if status == AnnotationStatus.ANNOTATED and not kept:
            status = AnnotationStatus.UNLABELED
        by_status.setdefault(status, []).append(sample.pk)
        if status != AnnotationStatus.UNLABELED:
            unlabeled = boxes_value(AnnotationStatus.UNLABELED, [])
            logged.append((sample.pk, unlabeled, boxes_value(status, rows[first:])))
        if sample.pk in earlier_ids and status != AnnotationStatus.UNLABELED:
            updated.append(sample.pk)
    Annotation.objects.bulk_create(rows, batch_size=2000)
    activity_record(
        dataset=dataset,
        entries=logged,
        action=ActivityAction.ANNOTATIONS,
        source=ActivitySource.IMPORT,
        actor=batch.created_by,
    )
    for status, ids in by_status.items():
        for chunk in imports.chunks(ids, 5000):
            Sample.objects.filter(pk__in=chunk).update(annotation_status=status)
    for chunk in imports.chunks(updated, 5000):  # their annotations changed: a new revision
        Sample.objects.filter(pk__in=chunk).update(label_version=F("label_version") + 1)
    ImportBatch.objects.filter(pk=batch.pk).update(
        labels_created=created, problems=problems[: imports.MAX_PROBLEMS_LISTED], finished_at=timezone.now()
    )
    batch.labels_created, batch.problems = created, problems[: imports.MAX_PROBLEMS_LISTED]


def _inside(geometry: dict, width: int, height: int) -> dict | None:
    """The box cut to the stored image (its size may differ from the one the file declared, e.g. an
    EXIF rotation), or None when nothing of it is left."""
    x0, y0 = max(0.0, float(geometry["x"])), max(0.0, float(geometry["y"]))
    x1 = min(float(width), float(geometry["x"]) + float(geometry["width"]))
    y1 = min(float(height), float(geometry["y"]) + float(geometry["height"]))
    if x1 - x0 <= 0 or y1 - y0 <= 0:
        return None
    return {"x": x0, "y": y0, "width": x1 - x0, "height": y1 - y0}
