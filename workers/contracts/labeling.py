"""Team labeling's agreement report: how far annotators agree on the samples they labeled in common
(``GET /api/v1/labeling-tasks/{id}/agreement/``), computed by ``workers.labeling_agreement`` from
the submitted answers.

Classification answers are compared by label. Object detection answers are compared object by
object: boxes of the same class at IoU >= 0.5 are one object, and each annotator drew it or not
(``workers.labeling_agreement.detection_units``); there, pairs' ``shared`` counts objects,
``overlapping_samples`` images, and a class's figures are over the objects of that class. Kappa is
Cohen's for a pair and Fleiss' for all; None where it is undefined (fewer than two shared samples,
or no variation)."""

from __future__ import annotations

from typing import Literal, NotRequired, TypedDict

from workers.contracts.annotations import AnnotationStatus

AGREEMENT_VERSION = 1


class PairAgreement(TypedDict):
    annotator_a: int  # user ids
    annotator_b: int
    shared: int
    percent_agreement: float | None
    cohen_kappa: float | None


class ClassAgreement(TypedDict):
    label: int  # class index into the report's classes
    name: str
    percent_agreement: float | None
    kappa: float | None  # Fleiss' kappa of "is this class" vs "is not"


class AnnotatorStats(TypedDict):
    annotator: int
    username: str
    assigned: int
    submitted: int
    accepted: int
    rejected: int  # assignments rejected at least once
    rejection_rate: float | None
    per_hour: float | None  # submissions per active hour
    agreement_with_others: float | None


class AgreementReport(TypedDict):
    kind: Literal["agreement_report"]
    version: int
    classes: list[str]
    overlapping_samples: int
    percent_agreement: float | None
    fleiss_kappa: float | None
    pairs: list[PairAgreement]
    per_class: list[ClassAgreement]
    annotators: list[AnnotatorStats]


class AnswerBox(TypedDict):
    label: str  # the label's name, as annotations are written
    x: float
    y: float
    width: float
    height: float


class TaskAnswer(TypedDict):
    """An annotator's answer to one sample of a labeling task, in the shape of the dataset's task:
    ``{"label": id}`` (classification), ``{"status", "boxes"}`` (object detection; status annotated
    or no_objects) or ``{"target": x}`` (regression)."""

    label: NotRequired[int]
    status: NotRequired[AnnotationStatus]
    boxes: NotRequired[list[AnswerBox]]
    target: NotRequired[float]
