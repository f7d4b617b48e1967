"""What every format parser does the same way: collect classes in the format's order, open each
image once (its real size from its header), check every box against that size, and report each
problem with its file, line and annotation while keeping the rest.

Box rules (one place, every format):

- zero or negative width or height: ``box_empty``, skipped;
- less than half of the box's area inside the image: ``box_outside_image``, skipped;
- otherwise a box reaching past an edge (by more than ``EDGE_TOLERANCE``: float noise from
  normalized formats is cut silently) is cut to the image: ``box_clipped``.

An image's status: ``annotated`` when a box of it was kept, ``no_objects`` when its annotation
file lists none, ``unlabeled`` when every box it listed was refused (a person should look again)
and for images no annotation file mentions.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Literal

from workers.annotation_formats.tree import DirectoryTree, ImageUnreadable
from workers.contracts.annotations import (
    AnnotationRecord,
    ImportProblem,
    InterchangeFormat,
    InterchangeImage,
    InterchangeSet,
)

EDGE_TOLERANCE = 0.05  # pixels: rounding in exports (COCO to 1/100 px, YOLO to 6 decimals)
MOSTLY_OUTSIDE = 0.5  # a box with less than this fraction of its area inside the image is refused
LABEL_MAX_LENGTH = 100  # the platform's label names (datasets.Label.name)

Action = Literal["skipped", "clipped", "refused"]
AttributeValue = str | int | float | bool


def import_problem(
    file: str,
    code: str,
    message: str,
    action: Action,
    *,
    line: int | None = None,
    annotation: int | str | None = None,
) -> ImportProblem:
    problem: ImportProblem = {"file": file, "code": code, "message": message, "action": action}
    if line is not None:
        problem["line"] = line
    if annotation is not None:
        problem["annotation"] = annotation
    return problem


def _pixels(value: float) -> str:
    return f"{value:g}"


class SetBuilder:
    """Accumulates one interchange set; a parser calls ``open_image`` for each image its annotation
    files describe and ``add_box`` for each box, then ``finish``."""

    def __init__(self, tree: DirectoryTree, format: InterchangeFormat) -> None:
        self.tree = tree
        self.format: InterchangeFormat = format
        self.classes: list[str] = []
        self._class_set: set[str] = set()
        self.problems: list[ImportProblem] = []
        self._images: dict[str, InterchangeImage] = {}
        self._listed_by: dict[str, str] = {}  # image -> the annotation file that described it
        self._boxes_listed: dict[str, int] = {}
        self._unreadable: set[str] = set()

    def problem(
        self,
        file: str,
        code: str,
        message: str,
        action: Action,
        *,
        line: int | None = None,
        annotation: int | str | None = None,
    ) -> None:
        self.problems.append(import_problem(file, code, message, action, line=line, annotation=annotation))

    def class_name(
        self, raw: object, *, file: str, line: int | None = None, what: str = "class"
    ) -> str | None:
        """A usable label name from ``raw`` (stripped, 1-100 characters) or None, reported."""
        name = raw.strip() if isinstance(raw, str) else str(raw) if isinstance(raw, int | float) else ""
        if 1 <= len(name) <= LABEL_MAX_LENGTH:
            return name
        shown = repr(raw) if len(repr(raw)) <= 60 else repr(raw)[:57] + "..."
        self.problem(
            file,
            "bad_label",
            f"{what} name {shown} is not a label name (1 to {LABEL_MAX_LENGTH} characters); "
            "its boxes are left out",
            "skipped",
            line=line,
        )
        return None

    def add_class(self, name: str) -> None:
        if name not in self._class_set:
            self._class_set.add(name)
            self.classes.append(name)

    def open_image(
        self,
        image: str,
        *,
        file: str,
        declared: tuple[float, float] = (0, 0),
        line: int | None = None,
        annotation: int | str | None = None,
    ) -> InterchangeImage | None:
        """Start ``image`` (a path from ``tree.images``) as described by annotation ``file``, or
        None when it cannot be (listed before, unreadable), reported. ``declared`` is the size the
        file states ((0, 0) when none): when it differs from the image's own, the image's wins."""
        if image in self._images or image in self._unreadable:
            first = self._listed_by.get(image, "")
            where = "earlier in this file" if first == file else f"by {first}" if first else "before"
            self.problem(
                file,
                "image_listed_twice",
                f"{image} is described again (already {where}); this description is left out",
                "skipped",
                line=line,
                annotation=annotation,
            )
            return None
        self._listed_by[image] = file
        try:
            width, height = self.tree.image_size(image)
        except ImageUnreadable as exc:
            self._unreadable.add(image)
            self.problem(image, exc.code, f"{exc}; its annotations are left out", "skipped")
            return None
        declared_width, declared_height = declared
        if (
            declared_width
            and declared_height
            and (round(declared_width), round(declared_height)) != (width, height)
        ):
            self.problem(
                file,
                "image_size_mismatch",
                f"{image} is declared {_pixels(declared_width)}x{_pixels(declared_height)} "
                f"but is {width}x{height}: its boxes are read in the image's own pixels and cut to it",
                "clipped",
                line=line,
                annotation=annotation,
            )
        entry: InterchangeImage = {
            "file": image,
            "width": width,
            "height": height,
            "status": "no_objects",
            "annotations": [],
        }
        self._images[image] = entry
        self._boxes_listed[image] = 0
        return entry

    def refuse_box(self, image: InterchangeImage) -> None:
        """Count a box of ``image`` that was refused before ``add_box`` (its problem reported)."""
        self._boxes_listed[image["file"]] += 1

    def add_box(
        self,
        image: InterchangeImage,
        label: str,
        x: float,
        y: float,
        width: float,
        height: float,
        *,
        file: str,
        line: int | None = None,
        annotation: int | str | None = None,
        attributes: Mapping[str, AttributeValue] | None = None,
    ) -> bool:
        """Check the box against the image, cut it when it reaches past an edge, and keep it; False
        when it is refused (reported)."""
        self._boxes_listed[image["file"]] += 1
        shown = f"box ({_pixels(x)}, {_pixels(y)}, {_pixels(width)} x {_pixels(height)})"
        if not all(math.isfinite(value) for value in (x, y, width, height)):
            self.problem(
                file,
                "malformed_file",
                f"{shown} of {image['file']} is not a number",
                "skipped",
                line=line,
                annotation=annotation,
            )
            return False
        if width <= 0 or height <= 0:
            self.problem(
                file,
                "box_empty",
                f"{shown} of {image['file']} has no area (width and height must be > 0)",
                "skipped",
                line=line,
                annotation=annotation,
            )
            return False
        image_width, image_height = image["width"], image["height"]
        left, top = max(x, 0.0), max(y, 0.0)
        right, bottom = min(x + width, float(image_width)), min(y + height, float(image_height))
        inside = max(0.0, right - left) * max(0.0, bottom - top)
        if inside < MOSTLY_OUTSIDE * width * height:
            share = round(100 * inside / (width * height))
            self.problem(
                file,
                "box_outside_image",
                f"{shown} lies mostly outside the {image_width}x{image_height} image {image['file']} "
                f"({share}% inside); it is left out",
                "skipped",
                line=line,
                annotation=annotation,
            )
            return False
        overflow = max(-x, -y, x + width - image_width, y + height - image_height)
        if overflow > EDGE_TOLERANCE:
            self.problem(
                file,
                "box_clipped",
                f"{shown} reaches {_pixels(round(overflow, 2))} px past the edge of the "
                f"{image_width}x{image_height} image {image['file']}; it is cut to the image",
                "clipped",
                line=line,
                annotation=annotation,
            )
        record: AnnotationRecord = {
            "kind": "box",
            "label": label,
            "geometry": {"x": left, "y": top, "width": right - left, "height": bottom - top},
        }
        if attributes:
            record["attributes"] = dict(attributes)
        self.add_class(label)
        image["annotations"].append(record)
        return True

    def finish(self) -> InterchangeSet:
        """The set: the described images, then every other readable image of the tree as
        ``unlabeled``, all in path order."""
        for entry in self._images.values():
            if entry["annotations"]:
                entry["status"] = "annotated"
            elif self._boxes_listed[entry["file"]]:
                entry["status"] = "unlabeled"
        images = dict(self._images)
        for image in self.tree.images:
            if image in images or image in self._unreadable:
                continue
            try:
                width, height = self.tree.image_size(image)
            except ImageUnreadable as exc:
                self.problem(image, exc.code, str(exc), "skipped")
                continue
            images[image] = {
                "file": image,
                "width": width,
                "height": height,
                "status": "unlabeled",
                "annotations": [],
            }
        return {
            "format": self.format,
            "classes": list(self.classes),
            "images": [images[name] for name in sorted(images)],
            "problems": self.problems,
        }


def refused(format: InterchangeFormat, problem: ImportProblem) -> InterchangeSet:
    """A set with nothing to import and the one problem that says why."""
    return {"format": format, "classes": [], "images": [], "problems": [problem]}
