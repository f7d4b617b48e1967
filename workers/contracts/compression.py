"""Model compression: what a compression job is asked to make (``CompressionSpec``) and what it made
(``CompressionResult``), shared by ``workers.compression`` and the platform.

A spec lists recipes; each recipe names one variant to produce from the parent model version:
structured pruning to a FLOPs fraction or a latency target, knowledge distillation into a smaller
student, int8 quantization (static, quantization-aware training, ``auto`` = static unless it loses
more than ``max_metric_drop``, or dynamic), or a combination applied in that order (prune or distill,
fine-tune, then quantize). Every variant is evaluated on the parent's test split with the template's
own ``evaluate`` and measured like the parent (size, parameters, FLOPs, latency on the target), so
the result compares variants with the parent side by side.
"""

from __future__ import annotations

from typing import Literal, NotRequired, TypedDict

from workers.contracts.annotations import DetectionReport
from workers.contracts.evaluation import EvaluationReport
from workers.contracts.preprocessing import Preprocessing
from workers.contracts.targets import LatencyMeasurement, TargetProfile
from workers.contracts.templates import ParamValues

COMPRESSION_SPEC_VERSION = 1
COMPRESSION_RESULT_VERSION = 1

Quantization = Literal["static", "qat", "auto", "dynamic"]
Precision = Literal["fp32", "int8"]


class PruneSpec(TypedDict):
    """Structured (channel) pruning: keep ``flops_ratio`` of the parent's FLOPs (0 < r < 1), or prune
    until the target latency is at most ``latency_ms`` (bisection on the ratio). One of the two."""

    flops_ratio: NotRequired[float]
    latency_ms: NotRequired[float]


class DistillSpec(TypedDict):
    """Knowledge distillation: train ``student`` (an architecture of the template, or
    ``"<parent arch>@<width>"`` for the parent's architecture at a width multiplier) on the teacher's
    soft targets at ``temperature`` mixed with the labels: loss = alpha * KL * T^2 + (1 - alpha) * CE."""

    student: str
    temperature: NotRequired[float]
    alpha: NotRequired[float]


class CompressionRecipe(TypedDict):
    """One variant to produce, e.g. ``{"name": "pruned-50-int8", "prune": {"flops_ratio": 0.5},
    "quantize": "static"}``; ``fine_tune_epochs``: epochs after pruning (or of distillation)."""

    name: str
    prune: NotRequired[PruneSpec]
    distill: NotRequired[DistillSpec]
    quantize: NotRequired[Quantization]
    fine_tune_epochs: NotRequired[int]


class CompressionSpec(TypedDict):
    """What a compression job makes. ``target``: the profile latency is measured with (default the
    builtin ``worker-cpu``); ``max_metric_drop``: the tolerance of ``quantize="auto"`` (default
    0.005 top-1 accuracy, 0.02 mAP)."""

    kind: Literal["compression_spec"]
    version: int
    recipes: list[CompressionRecipe]
    target: NotRequired[TargetProfile]
    max_metric_drop: NotRequired[float]
    seed: NotRequired[int]


class VariantSummary(TypedDict):
    """A model's measurements: file size, parameters, FLOPs (2 x multiply-accumulates of
    Conv/Gemm/MatMul), precision, latency on the target, and its headline metric on the test split;
    ``delta`` = value - the parent's value (0 for the parent)."""

    size_bytes: int
    parameters: int
    flops: int
    precision: Precision
    latency: LatencyMeasurement
    metric: str
    value: float
    delta: float


class CompressionVariant(TypedDict):
    """One variant made: its model file (``checkpoint``, the template's ``model.pt`` format, None for
    an int8-only variant of the parent), its ``onnx`` (int8 QDQ when quantized), what serving needs
    (``preprocessing``, ``classes``), the student's template ``params``, the evaluation report on the
    test split, the measurements, and notes on choices made (e.g. "static int8 dropped 1.2 points;
    QAT used")."""

    name: str
    recipe: CompressionRecipe
    checkpoint: str | None
    onnx: str
    preprocessing: Preprocessing
    classes: list[str]
    params: ParamValues
    evaluation: EvaluationReport | DetectionReport
    summary: VariantSummary
    notes: list[str]


class SkippedRecipe(TypedDict):
    """A recipe that does not apply to this model (e.g. pruning a tree ensemble), and why."""

    name: str
    reason: str


class CompressionResult(TypedDict):
    """What ``workers.compression.compress`` returns: the parent's summary and each variant's."""

    kind: Literal["compression_result"]
    version: int
    template: str
    parent: VariantSummary
    variants: list[CompressionVariant]
    skipped: list[SkippedRecipe]
