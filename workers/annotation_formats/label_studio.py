"""Label Studio's JSON export: a list of tasks, each with ``data`` (the image's URL or path) and
``annotations`` (older exports: ``completions``), each annotation a ``result`` list of regions.
A ``rectanglelabels`` region's ``value`` holds ``x``, ``y``, ``width``, ``height`` as percentages
of the image (``original_width``/``original_height`` are the size it was labelled at; percentages
do not depend on it) and ``rotation`` in degrees about the top-left corner: a rotated rectangle
becomes its axis-aligned bounding box. A ``polygonlabels`` region becomes its bounding box.

A task's latest annotation that was not cancelled counts (several annotators may have labelled
it). The image is found by its path inside the archive, by its file name, and by the name Label
Studio stored the upload under without the 8-character prefix it adds (``1a2b3c4d-cat.jpg``).
Classes come in order of first use.
"""

from __future__ import annotations

import math
import posixpath
import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from workers.annotation_formats.builder import SetBuilder
from workers.annotation_formats.tree import is_image_name
from workers.contracts.annotations import InterchangeImage

UPLOAD_PREFIX = re.compile(r"^[0-9a-f]{8}-")
# Region types that only classify or transcribe (no geometry): not boxes, not problems.
NON_REGION_TYPES = frozenset({"choices", "textarea", "rating", "number", "datetime", "taxonomy", "pairwise"})


def is_label_studio(document: object) -> bool:
    return (
        isinstance(document, list)
        and bool(document)
        and all(isinstance(task, dict) and isinstance(task.get("data"), dict) for task in document)
        and any("annotations" in task or "completions" in task for task in document)
    )


def _image_reference(data: Mapping[str, Any]) -> str | None:
    reference = data.get("image")
    if isinstance(reference, str) and reference:
        return reference
    return next((value for value in data.values() if isinstance(value, str) and is_image_name(value)), None)


def _candidates(reference: str) -> list[str]:
    """Paths the reference may mean: the ``?d=`` of a local-files URL, the URL's path, its file
    name and the file name without Label Studio's upload prefix."""
    parts = urlsplit(reference)
    paths = [unquote(value) for value in parse_qs(parts.query).get("d", [])]
    paths.append(unquote(parts.path) if parts.scheme or parts.query else reference)
    name = posixpath.basename(paths[-1])
    if UPLOAD_PREFIX.match(name):
        paths.append(UPLOAD_PREFIX.sub("", name))
    return paths


def _latest_annotation(task: Mapping[str, Any]) -> Mapping[str, Any] | None:
    annotations = task.get("annotations") or task.get("completions") or []
    if not isinstance(annotations, list):
        return None
    kept = [annotation for annotation in annotations if isinstance(annotation, dict)]
    kept = [annotation for annotation in kept if not annotation.get("was_cancelled")]
    return kept[-1] if kept else None


def _number(value: object) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _rectangle(value: Mapping[str, Any], width: int, height: int) -> tuple[float, float, float, float] | None:
    numbers = [_number(value.get(key)) for key in ("x", "y", "width", "height")]
    if any(number is None for number in numbers):
        return None
    x, y, w, h = (
        (number or 0.0) * scale / 100
        for number, scale in zip(numbers, (width, height, width, height), strict=True)
    )
    rotation = _number(value.get("rotation")) or 0.0
    if rotation % 360 == 0:
        return x, y, w, h
    angle = math.radians(rotation)
    cos, sin = math.cos(angle), math.sin(angle)
    xs = [x + dx * cos - dy * sin for dx, dy in ((0, 0), (w, 0), (w, h), (0, h))]
    ys = [y + dx * sin + dy * cos for dx, dy in ((0, 0), (w, 0), (w, h), (0, h))]
    return min(xs), min(ys), max(xs) - min(xs), max(ys) - min(ys)


def _polygon(value: Mapping[str, Any], width: int, height: int) -> tuple[float, float, float, float] | None:
    points = value.get("points")
    if not isinstance(points, list) or len(points) < 3:
        return None
    try:
        xs = [float(point[0]) * width / 100 for point in points]
        ys = [float(point[1]) * height / 100 for point in points]
    except (TypeError, ValueError, IndexError, KeyError):
        return None
    return min(xs), min(ys), max(xs) - min(xs), max(ys) - min(ys)


def _region(builder: SetBuilder, image: InterchangeImage, file: str, reference: str, region: object) -> None:
    if not isinstance(region, dict) or region.get("type") in NON_REGION_TYPES:
        return
    kind = str(region.get("type", ""))
    value = region.get("value")
    if not isinstance(value, dict):
        value = {}
    if kind not in ("rectanglelabels", "polygonlabels"):
        if kind.endswith("labels") or kind in ("rectangle", "polygon", "keypoint", "brush", "ellipse"):
            builder.refuse_box(image)
            builder.problem(
                file,
                "unsupported_annotation",
                f"region {reference} is a {kind} region, not a box; it is left out",
                "skipped",
                annotation=reference,
            )
        return
    labels = value.get(kind)
    shape = (_rectangle if kind == "rectanglelabels" else _polygon)(value, image["width"], image["height"])
    if not isinstance(labels, list) or not labels or shape is None:
        builder.refuse_box(image)
        builder.problem(
            file,
            "malformed_file",
            f"region {reference} needs '{kind}' (its label) and its coordinates in percent",
            "skipped",
            annotation=reference,
        )
        return
    for raw in labels:
        label = builder.class_name(raw, file=file, what="region label")
        if label is None:
            builder.refuse_box(image)
            continue
        builder.add_box(image, label, *shape, file=file, annotation=reference)


def parse_document(builder: SetBuilder, file: str, tasks: list[Any]) -> None:
    folder = posixpath.dirname(file)
    folders = [folder, "", posixpath.join(folder, "images"), "images"]
    for position, task in enumerate(tasks):
        task_id = task.get("id", position)
        reference = _image_reference(task["data"])
        if reference is None:
            builder.problem(
                file,
                "malformed_file",
                f"task {task_id} names no image in its data",
                "skipped",
                annotation=f"task {task_id}",
            )
            continue
        found, why = None, "no such image in the archive"
        for candidate in _candidates(reference):
            found, reason = builder.tree.find_image(candidate, folders=folders)
            if found is not None:
                break
            why = reason if "cannot tell" in reason else why
        if found is None:
            builder.problem(
                file,
                "image_missing",
                f"task {task_id}'s image {reference}: {why}; its annotations are left out",
                "skipped",
                annotation=f"task {task_id}",
            )
            continue
        annotation = _latest_annotation(task)
        if annotation is None:
            continue  # not labelled yet: the image is imported unlabeled
        image = builder.open_image(found, file=file, annotation=f"task {task_id}")
        if image is None:
            continue
        results = annotation.get("result")
        for index, region in enumerate(results if isinstance(results, list) else []):
            region_id = (
                region.get("id") if isinstance(region, dict) and isinstance(region.get("id"), str) else None
            )
            _region(builder, image, file, region_id or f"task {task_id} result {index}", region)
