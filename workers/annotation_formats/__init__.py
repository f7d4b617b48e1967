"""Annotation interchange formats (DESIGN §11): COCO, Pascal VOC, YOLO and Label Studio JSON in,
COCO, VOC and YOLO out; plain images come in unlabeled.

``parse_directory(root)`` reads an unpacked archive into an :class:`InterchangeSet`: the class
names in the format's order, every image with its real size (read from its header, never taken
from the annotation file) and status, its boxes in pixels, and a problem per bad file, line or
annotation, the rest kept (see ``builder`` for the box rules). Two annotation formats in one
archive are refused (``mixed_annotation_formats``, naming both) unless ``format`` says which to
read. ``write_directory`` writes a set as a COCO, VOC or YOLO layout with its images.

e.g. ``parse_directory(Path("unpacked"))`` ->
``{"format": "coco", "classes": ["cat"], "images": [{"file": "images/a.jpg", "width": 640,
"height": 480, "status": "annotated", "annotations": [{"kind": "box", "label": "cat",
"geometry": {"x": 10.0, "y": 20.0, "width": 30.0, "height": 40.0}}]}], "problems": []}``

Pure Python with Pillow (image headers only): no Django, no torch.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from workers.annotation_formats import coco, label_studio, voc, yolo
from workers.annotation_formats.builder import SetBuilder, import_problem, refused
from workers.annotation_formats.detect import FORMAT_NAMES, find_annotation_files
from workers.annotation_formats.tree import DirectoryTree
from workers.annotation_formats.writing import ImageSource
from workers.contracts.annotations import (
    EXPORT_FORMATS,
    INTERCHANGE_FORMATS,
    InterchangeFormat,
    InterchangeSet,
)

__all__ = ["parse_directory", "write_directory"]


def parse_directory(root: Path, format: InterchangeFormat | None = None) -> InterchangeSet:
    """Read the unpacked archive at ``root``; ``format`` None detects it (see ``detect``)."""
    if format is not None and format not in INTERCHANGE_FORMATS:
        raise ValueError(f"unknown interchange format {format!r}; one of {', '.join(INTERCHANGE_FORMATS)}")
    tree = DirectoryTree(Path(root))
    found = find_annotation_files(tree)
    evidence = found.evidence()
    if format is None:
        if len(evidence) > 1:
            named = " and ".join(f"{FORMAT_NAMES[name]} ({file})" for name, file in evidence.items())
            first = next(iter(evidence))
            return refused(
                first,
                import_problem(
                    evidence[first],
                    "mixed_annotation_formats",
                    f"the archive holds annotations in more than one format: {named}; "
                    "upload one format at a time, or choose the format to read",
                    "refused",
                ),
            )
        chosen: InterchangeFormat = next(iter(evidence), "images")
    elif format != "images" and format not in evidence:
        return refused(
            format,
            import_problem(
                "",
                "annotation_format_not_found",
                f"no {FORMAT_NAMES[format]} annotation file in the archive",
                "refused",
            ),
        )
    else:
        chosen = format
    builder = SetBuilder(tree, chosen)
    if chosen in ("coco", "label_studio") or format is None:
        builder.problems.extend(found.problems)  # JSON files that did not parse
    if chosen == "coco":
        for file, document in found.coco:
            coco.parse_document(builder, file, document)
    elif chosen == "label_studio":
        for file, tasks in found.label_studio:
            label_studio.parse_document(builder, file, tasks)
    elif chosen == "voc":
        voc.parse(builder, found.voc)
    elif chosen == "yolo":
        assert found.yolo is not None
        if found.yolo.names is None:
            return refused(
                "yolo",
                import_problem(
                    found.yolo.evidence(),
                    "yolo_classes_missing",
                    "YOLO label files without class names: add a classes.txt (a name per line, "
                    "in class index order) or a data.yaml with names",
                    "refused",
                ),
            )
        yolo.parse(builder, found.yolo)
    return builder.finish()


def write_directory(
    s: InterchangeSet,
    out_dir: Path,
    format: Literal["coco", "voc", "yolo"],
    image_source: ImageSource,
) -> None:
    """Write ``s`` under ``out_dir`` as a ``format`` layout, copying each image from
    ``image_source(image["file"])``. Images keep their paths inside the set (made safe: no ``..``,
    nothing absolute)."""
    if format not in EXPORT_FORMATS:
        raise ValueError(f"cannot write {format!r}; one of {', '.join(EXPORT_FORMATS)}")
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    {"coco": coco.write, "voc": voc.write, "yolo": yolo.write}[format](s, out_dir, image_source)
