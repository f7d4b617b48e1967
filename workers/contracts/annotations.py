"""Annotations (DESIGN §11) and the object-detection payloads built on them.

A sample of a localized task has zero or more annotations, each a label plus a geometry. The
geometry's shape is told by the annotation's ``kind``: ``"box"`` now (:class:`BoxGeometry`, in the
stored image's pixels, origin top left); polygons, masks, text spans and OCR transcriptions become
new kinds with their own geometry shape, so stored rows never need migrating.

A sample's ``annotation_status`` says whether a person has looked at it: ``unlabeled`` (not yet),
``annotated`` (it has annotations) or ``no_objects`` (reviewed: nothing to annotate).

This module is Django-free and torch-free: the web process, workers and packages import it.

Shapes:

- :class:`AnnotationRecord`: one annotation as the API and the SDK read and write it.
- :class:`InterchangeSet`: what a parser of an interchange format (COCO, VOC, YOLO, Label Studio,
  plain images; ``workers.annotation_formats``) returns and a writer takes, with the problems it
  found per file/annotation.
- :class:`DetectionManifest`: the dataset-version manifest of an object-detection dataset.
- :class:`DetectionReport` / :class:`DetectionComparison`: evaluation.
- :class:`DetectionPrediction`: one image's answer from a deployed detector.
"""

from __future__ import annotations

from typing import Literal, NotRequired, TypedDict

from workers.contracts.evaluation import ModelFile
from workers.contracts.manifest import SampleRef, SplitName

ANNOTATIONS_VERSION = 1

AnnotationKind = Literal["box"]
ANNOTATION_KINDS: tuple[AnnotationKind, ...] = ("box",)
AnnotationStatus = Literal["unlabeled", "annotated", "no_objects"]
ANNOTATION_STATUSES: tuple[AnnotationStatus, ...] = ("unlabeled", "annotated", "no_objects")
InterchangeFormat = Literal["coco", "voc", "yolo", "label_studio", "images"]
INTERCHANGE_FORMATS: tuple[InterchangeFormat, ...] = ("coco", "voc", "yolo", "label_studio", "images")
EXPORT_FORMATS: tuple[InterchangeFormat, ...] = ("coco", "voc", "yolo")


class BoxGeometry(TypedDict):
    """An axis-aligned box in the image's pixels: top-left corner, width and height (all floats,
    width and height > 0, inside the image)."""

    x: float
    y: float
    width: float
    height: float


class AnnotationRecord(TypedDict):
    """One annotation: ``label`` is the label's name (the dataset's label list), ``geometry`` the
    shape for ``kind``. ``attributes`` holds free key/values kept through import and export (COCO
    ``iscrowd``, VOC ``difficult``/``truncated``). ``id`` is absent on writes."""

    id: NotRequired[int]
    kind: AnnotationKind
    label: str
    geometry: BoxGeometry
    attributes: NotRequired[dict[str, str | int | float | bool]]


class SampleAnnotations(TypedDict):
    """A sample's annotations as read and written (``GET/PUT .../samples/{id}/annotations/``).
    ``revision`` is the sample's concurrency counter: a write names the revision it read and is
    refused with 409 ``annotation_conflict`` (and the current state) when it changed since."""

    sample: int
    status: AnnotationStatus
    revision: int
    width: int
    height: int
    annotations: list[AnnotationRecord]


# --- interchange formats -------------------------------------------------------------------


class ImportProblem(TypedDict):
    """One thing wrong in an interchange file: the file (path inside the archive), the line where
    the format has lines (YOLO txt, XML, JSON), the annotation's id or index where it has one, a
    machine ``code`` and a sentence. ``action`` says what the import did: ``skipped`` (that
    annotation or image left out), ``clipped`` (a box cut to the image), ``refused`` (the whole
    archive: nothing imported)."""

    file: str
    line: NotRequired[int]
    annotation: NotRequired[int | str]
    code: str
    message: str
    action: Literal["skipped", "clipped", "refused"]


class InterchangeImage(TypedDict):
    """An image of an interchange set: ``file`` is its path inside the archive (or a local path),
    ``width``/``height`` as the format declares them (0 when it does not; the importer reads the
    image), ``status`` ``unlabeled`` for images with no annotation file, ``no_objects`` for an
    annotation file with no boxes, ``annotated`` otherwise."""

    file: str
    width: int
    height: int
    status: AnnotationStatus
    annotations: list[AnnotationRecord]


class InterchangeSet(TypedDict):
    """A parsed interchange archive: the class names in the format's order and its images."""

    format: InterchangeFormat
    classes: list[str]
    images: list[InterchangeImage]
    problems: list[ImportProblem]


# --- dataset-version manifest --------------------------------------------------------------


class DetectionBox(TypedDict):
    """A box of a manifest sample: ``label`` indexes the manifest's ``classes``; x, y, width, height
    in the image's pixels."""

    label: int
    x: float
    y: float
    width: float
    height: float


class DetectionSample(TypedDict):
    id: NotRequired[SampleRef]
    path: str
    width: int
    height: int
    boxes: list[DetectionBox]
    split: SplitName


class DetectionManifest(TypedDict):
    """``{"kind": "detection", "version": 1, "classes": ["cat"], "samples": [{"id": 3, "path":
    "/.../ab.png", "width": 128, "height": 96, "boxes": [{"label": 0, "x": 4, "y": 5, "width": 20,
    "height": 30}], "split": "train"}]}``. Samples marked ``no_objects`` have ``boxes: []``;
    unlabeled samples are left out of versions."""

    kind: Literal["detection"]
    version: int
    classes: list[str]
    samples: list[DetectionSample]


# --- evaluation ----------------------------------------------------------------------------


class PrecisionRecallCurve(TypedDict):
    """A class's precision-recall curve at IoU 0.5 (COCO's 101 recall points, precision
    interpolated), for drawing."""

    recall: list[float]
    precision: list[float]


class ClassAP(TypedDict):
    """A class's average precision: ``ap`` is AP@[.5:.95] (COCO), ``ap50`` and ``ap75`` at one IoU;
    ``ground_truth`` boxes of the class in the split; -1.0 where the class has no ground truth."""

    label: str
    ap: float
    ap50: float
    ap75: float
    ground_truth: int
    pr_curve: PrecisionRecallCurve


class DetectionConfusion(TypedDict):
    """Class confusion at IoU 0.5 and the report's score threshold: ``labels`` are the classes then
    ``"background"``; ``matrix[true][predicted]``. A missed object counts in its class's row under
    background; a false positive with no overlapping object in background's row."""

    labels: list[str]
    matrix: list[list[int]]


class BadCaseBox(TypedDict):
    label: str
    x: float
    y: float
    width: float
    height: float
    score: NotRequired[float]


class BadCase(TypedDict):
    """An image where the model went wrong: ``false_positives`` (predictions that match no object of
    their class) and ``missed`` (objects no prediction found), with every predicted and true box for
    drawing. ``sample`` is the dataset's sample id (opens the box labeler)."""

    sample: SampleRef
    path: str
    width: int
    height: int
    false_positives: int
    missed: int
    predicted: list[BadCaseBox]
    truth: list[BadCaseBox]


class DetectionHeadline(TypedDict):
    map: float
    map50: float
    map75: float


class DetectionReport(TypedDict):
    """A detector's report on one split: COCO-style mAP@[.5:.95] (``map``), mAP@.5, mAP@.75,
    per-class AP with PR curves, the confusion with background, bad cases."""

    kind: Literal["detection_report"]
    version: int
    split: str
    samples: int
    classes: list[str]
    map: float
    map50: float
    map75: float
    headline: DetectionHeadline
    per_class: list[ClassAP]
    confusion_matrix: DetectionConfusion
    score_threshold: float
    bad_cases: list[BadCase]
    model: ModelFile


class ClassAPDelta(TypedDict):
    label: str
    a: float
    b: float
    delta: float


class DetectionComparison(TypedDict):
    """Two detection reports of the same split side by side: ``a``/``b`` mAP figures and per-class
    AP@[.5:.95] deltas (b - a)."""

    kind: Literal["detection_comparison"]
    version: int
    split: str
    map: ClassAPDelta
    map50: ClassAPDelta
    per_class: list[ClassAPDelta]


# --- prediction ----------------------------------------------------------------------------


class DetectedBox(TypedDict):
    """A detected object in the original image's pixels."""

    label: str
    index: int
    score: float
    x: float
    y: float
    width: float
    height: float


class DetectionPrediction(TypedDict):
    """One image's answer from a detector: boxes by descending score, at most ``max_detections``
    (default 100, 1–1000), each scoring at least ``score_threshold`` (default 0.3, 0–1)."""

    boxes: list[DetectedBox]
    width: int
    height: int
