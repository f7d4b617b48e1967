"""Which interchange formats an unpacked archive holds, told by content:

- COCO: a ``*.json`` object with ``images`` and ``categories`` lists (and ``annotations``);
- Label Studio: a ``*.json`` list of tasks (objects with ``data`` and ``annotations``);
- Pascal VOC: a ``*.xml`` whose root element is ``<annotation>``;
- YOLO: ``*.txt`` label files paired with images (``labels/`` beside ``images/``, or next to them),
  with ``classes.txt``, ``obj.names`` or a ``data.yaml``;
- plain images: none of these.

A JSON file that does not parse is reported (named with its line) and read as no format.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from workers.annotation_formats import coco, label_studio, voc, yolo
from workers.annotation_formats.builder import import_problem
from workers.annotation_formats.tree import DirectoryTree
from workers.contracts.annotations import ImportProblem, InterchangeFormat

FORMAT_NAMES: dict[InterchangeFormat, str] = {
    "coco": "COCO",
    "voc": "Pascal VOC",
    "yolo": "YOLO",
    "label_studio": "Label Studio",
    "images": "plain images",
}


@dataclass
class AnnotationFiles:
    """The annotation files found, by format, and the problems met while looking."""

    coco: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    label_studio: list[tuple[str, list[Any]]] = field(default_factory=list)
    voc: list[str] = field(default_factory=list)
    yolo: yolo.YoloLayout | None = None
    problems: list[ImportProblem] = field(default_factory=list)

    def evidence(self) -> dict[InterchangeFormat, str]:
        """Each format present and one of its files (for messages), in INTERCHANGE_FORMATS order."""
        found: dict[InterchangeFormat, str] = {}
        if self.coco:
            found["coco"] = self.coco[0][0]
        if self.voc:
            found["voc"] = self.voc[0]
        if self.yolo is not None:
            found["yolo"] = self.yolo.evidence()
        if self.label_studio:
            found["label_studio"] = self.label_studio[0][0]
        return found


def _load_json(tree: DirectoryTree, file: str, problems: list[ImportProblem]) -> object:
    try:
        return json.loads(tree.path(file).read_bytes().decode("utf-8-sig"))
    except UnicodeDecodeError:
        problems.append(
            import_problem(file, "malformed_file", "not UTF-8 text; the file is left out", "skipped")
        )
    except json.JSONDecodeError as exc:
        message = f"not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno}); the file is left out"
        problems.append(import_problem(file, "malformed_file", message, "skipped", line=exc.lineno))
    return None


def find_annotation_files(tree: DirectoryTree) -> AnnotationFiles:
    found = AnnotationFiles()
    for file in tree.with_suffix(".json"):
        document = _load_json(tree, file, found.problems)
        if coco.is_coco(document):
            found.coco.append((file, document))  # type: ignore[arg-type]
        elif label_studio.is_label_studio(document):
            found.label_studio.append((file, document))  # type: ignore[arg-type]
    found.voc = [file for file in tree.with_suffix(".xml") if voc.looks_like_voc(tree.path(file))]
    found.yolo = yolo.find_layout(tree)
    return found
