"""COCO object-detection JSON (``instances_*.json``): ``images`` (id, file_name, width, height),
``categories`` (id, name) and ``annotations`` (id, image_id, category_id, bbox ``[x, y, width,
height]`` in pixels, iscrowd).

Reading: each ``file_name`` is looked for next to the JSON file, in an ``images/`` folder beside
it, at the archive's root and in a root ``images/`` folder, then by its file name anywhere in the
archive. Classes keep the categories' order; an archive with several COCO files (train, val)
merges them. ``iscrowd`` and CVAT's ``attributes`` travel as annotation attributes.

Writing: ``annotations.json`` beside an ``images/`` folder; categories numbered from 1, boxes to
1/100 pixel. Images the set has as ``unlabeled`` are copied but not listed, so they read back
unlabeled, while a listed image without annotations reads back as ``no_objects``.
"""

from __future__ import annotations

import json
import posixpath
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from workers.annotation_formats.builder import AttributeValue, SetBuilder
from workers.annotation_formats.writing import ImageCopier, ImageSource, class_list, image_size
from workers.contracts.annotations import InterchangeImage, InterchangeSet

ANNOTATIONS_FILE = "annotations.json"
IMAGES_FOLDER = "images"


def is_coco(document: object) -> bool:
    return (
        isinstance(document, dict)
        and isinstance(document.get("images"), list)
        and isinstance(document.get("categories"), list)
        and isinstance(document.get("annotations", []), list)
    )


def _is_id(value: object) -> bool:
    return isinstance(value, int | str) and not isinstance(value, bool)


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _attributes(annotation: Mapping[str, Any]) -> dict[str, AttributeValue]:
    attributes: dict[str, AttributeValue] = {}
    if _is_number(annotation.get("iscrowd")) and annotation["iscrowd"]:
        attributes["iscrowd"] = int(annotation["iscrowd"])  # 0, the default, is not kept
    extra = annotation.get("attributes")
    if isinstance(extra, dict):
        for key, value in extra.items():
            if isinstance(key, str) and isinstance(value, str | int | float | bool):
                attributes.setdefault(key, value)
    return attributes


def _categories(builder: SetBuilder, file: str, document: Mapping[str, Any]) -> dict[object, str | None]:
    """Category id -> class name (None: a category whose name is refused, reported)."""
    categories: dict[object, str | None] = {}
    for position, category in enumerate(document["categories"]):
        if not isinstance(category, dict) or not _is_id(category.get("id")):
            builder.problem(
                file,
                "malformed_file",
                f"categories[{position}] has no id",
                "skipped",
                annotation=f"categories[{position}]",
            )
            continue
        category_id = category["id"]
        if category_id in categories:
            builder.problem(
                file,
                "malformed_file",
                f"category id {category_id} is listed twice; the first ({categories[category_id]}) is kept",
                "skipped",
                annotation=f"category {category_id}",
            )
            continue
        name = builder.class_name(category.get("name"), file=file, what=f"category {category_id}")
        categories[category_id] = name
        if name is not None:
            builder.add_class(name)
    return categories


def _images(
    builder: SetBuilder, file: str, document: Mapping[str, Any]
) -> dict[object, InterchangeImage | None]:
    """Image id -> the image started in the builder (None: missing or refused, reported)."""
    folder = posixpath.dirname(file)
    folders = [folder, posixpath.join(folder, IMAGES_FOLDER), "", IMAGES_FOLDER]
    images: dict[object, InterchangeImage | None] = {}
    for position, entry in enumerate(document["images"]):
        if (
            not isinstance(entry, dict)
            or not _is_id(entry.get("id"))
            or not isinstance(entry.get("file_name"), str)
        ):
            builder.problem(
                file,
                "malformed_file",
                f"images[{position}] needs an id and a file_name",
                "skipped",
                annotation=f"images[{position}]",
            )
            continue
        image_id, file_name = entry["id"], entry["file_name"]
        if image_id in images:
            builder.problem(
                file,
                "image_listed_twice",
                f"image id {image_id} ({file_name}) is listed twice; the first listing is kept",
                "skipped",
                annotation=f"image {image_id}",
            )
            continue
        found, why = builder.tree.find_image(file_name, folders=folders)
        if found is None:
            builder.problem(
                file,
                "image_missing",
                f"image {file_name} (id {image_id}): {why}; its annotations are left out",
                "skipped",
                annotation=f"image {image_id}",
            )
            images[image_id] = None
            continue
        width, height = entry.get("width"), entry.get("height")
        declared = (0.0, 0.0)
        if isinstance(width, int | float) and isinstance(height, int | float):
            declared = (float(width), float(height))
        images[image_id] = builder.open_image(
            found, file=file, declared=declared, annotation=f"image {image_id}"
        )
    return images


def _box(annotation: Mapping[str, Any]) -> list[float] | None:
    bbox = annotation.get("bbox")
    if isinstance(bbox, list) and len(bbox) == 4 and all(_is_number(value) for value in bbox):
        return [float(value) for value in bbox]
    return None


def parse_document(builder: SetBuilder, file: str, document: Mapping[str, Any]) -> None:
    """Add one COCO file's images and boxes to ``builder``."""
    categories = _categories(builder, file, document)
    images = _images(builder, file, document)
    for position, annotation in enumerate(document.get("annotations", [])):
        if not isinstance(annotation, dict):
            builder.problem(file, "malformed_file", f"annotations[{position}] is not an object", "skipped")
            continue
        reference = annotation.get("id") if _is_id(annotation.get("id")) else f"annotations[{position}]"
        image_id = annotation.get("image_id")
        if not _is_id(image_id) or image_id not in images:
            builder.problem(
                file,
                "image_missing",
                f"annotation {reference} refers to image id {image_id!r}, which the file does not list",
                "skipped",
                annotation=reference,
            )
            continue
        image = images[image_id]
        if image is None:
            continue  # the image's problem is reported
        category_id = annotation.get("category_id")
        if not _is_id(category_id) or category_id not in categories:
            builder.refuse_box(image)
            builder.problem(
                file,
                "unknown_category",
                f"annotation {reference} has category id {category_id!r}, "
                "which the file's categories do not list",
                "skipped",
                annotation=reference,
            )
            continue
        label = categories[category_id]
        box = _box(annotation)
        if label is None or box is None:
            builder.refuse_box(image)
            if box is None:
                builder.problem(
                    file,
                    "malformed_file",
                    f"annotation {reference} has no bbox of four numbers [x, y, width, height]",
                    "skipped",
                    annotation=reference,
                )
            continue
        builder.add_box(
            image, label, *box, file=file, annotation=reference, attributes=_attributes(annotation)
        )


def _annotation(
    annotation_id: int, image_id: int, category_id: int, record: Mapping[str, Any]
) -> dict[str, Any]:
    geometry = record["geometry"]
    box = [round(float(geometry[key]), 2) for key in ("x", "y", "width", "height")]
    attributes = dict(record.get("attributes") or {})
    iscrowd = attributes.pop("iscrowd", 0)
    written: dict[str, Any] = {
        "id": annotation_id,
        "image_id": image_id,
        "category_id": category_id,
        "bbox": box,
        "area": round(box[2] * box[3], 2),
        "iscrowd": int(iscrowd) if isinstance(iscrowd, int | float) else 0,
        "segmentation": [],
    }
    if attributes:
        written["attributes"] = attributes
    return written


def write(interchange: InterchangeSet, out_dir: Path, image_source: ImageSource) -> None:
    classes = class_list(interchange)
    category_ids = {name: index for index, name in enumerate(classes, start=1)}
    copier = ImageCopier(image_source, out_dir / IMAGES_FOLDER, unique_stems=False)
    images: list[dict[str, Any]] = []
    annotations: list[dict[str, Any]] = []
    for image in interchange["images"]:
        copied = copier.copy(image["file"])
        if image["status"] == "unlabeled":
            continue
        width, height = image_size(image, out_dir / IMAGES_FOLDER / copied)
        image_id = len(images) + 1
        images.append({"id": image_id, "file_name": copied.as_posix(), "width": width, "height": height})
        for record in image["annotations"]:
            annotations.append(
                _annotation(len(annotations) + 1, image_id, category_ids[record["label"]], record)
            )
    document = {
        "info": {"description": "Exported by Sampan"},
        "images": images,
        "annotations": annotations,
        "categories": [
            {"id": index, "name": name, "supercategory": ""} for name, index in category_ids.items()
        ],
    }
    (out_dir / ANNOTATIONS_FILE).write_text(json.dumps(document, ensure_ascii=False), encoding="utf-8")
