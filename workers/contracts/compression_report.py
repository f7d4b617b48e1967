"""The platform's record of a compression run (``training.Compression.report``) and a compressed
model version's lineage: ``workers.contracts.compression.CompressionResult`` with each variant's files
replaced by the model version recorded for it, plus latencies measured in browsers (onnxruntime-web).
"""

from __future__ import annotations

from typing import Literal, NotRequired, TypedDict

from workers.contracts.compression import CompressionRecipe, SkippedRecipe, VariantSummary

COMPRESSION_REPORT_VERSION = 1
COMPRESSION_LINEAGE_VERSION = 1


class CompressionLineage(TypedDict):
    """What made a compressed model version (``ModelVersion.lineage`` with source ``compressed``):
    the version it was compressed from, the teacher of a distillation (null: the parent or none),
    the recipe, and the compression run (``/api/v1/compressions/{id}/``)."""

    kind: Literal["compression_lineage"]
    version: int
    parent: int
    teacher: int | None
    recipe: CompressionRecipe
    compression: int


class ReportedParent(VariantSummary):
    """The parent's measurements, on the same test split and target as the variants'."""

    model_version: int
    model_version_name: str


class ReportedVariant(TypedDict):
    """One variant: its recipe, the model version recorded for it, its measurements against the
    parent (``summary.delta`` = its metric - the parent's) and notes on choices the job made."""

    name: str
    recipe: CompressionRecipe
    model_version: int
    model_version_name: str
    summary: VariantSummary
    notes: list[str]


class BrowserLatency(TypedDict):
    """A latency measured in a browser with onnxruntime-web (the device SDK's JavaScript runtime)
    for the parent or a variant, posted by the UI (``POST /compressions/{id}/browser-latency/``)."""

    model_version: int
    median_ms: float
    p90_ms: float
    runs: int
    user_agent: str
    backend: Literal["wasm"]
    measured_at: str


class CompressionRunReport(TypedDict):
    """A finished compression run: the parent's and each variant's size, parameters, FLOPs,
    latency (worker, and browsers that measured it) and metric on the parent's test split."""

    kind: Literal["compression_report"]
    version: int
    template: str
    target: str  # the target profile the latency was measured with
    parent: ReportedParent
    variants: list[ReportedVariant]
    skipped: list[SkippedRecipe]
    browser_latency: list[BrowserLatency]
    notes: NotRequired[list[str]]
