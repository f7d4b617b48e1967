"""What a training job given a target profile chose before training (``workers.target_fitting``):
the candidates measured on the target and the one kept, with the reasons in sentences."""

from __future__ import annotations

from typing import Literal, NotRequired, TypedDict

TARGET_FIT_VERSION = 1


class FitCandidate(TypedDict):
    image_size: int
    width: float
    precision: Literal["fp32", "int8"]
    latency_ms: float  # the target's estimate (measured on the worker x the profile's slowdown)
    size_bytes: int
    fits: bool


class TargetFit(TypedDict):
    kind: Literal["target_fit"]
    version: int
    profile: str
    latency_budget_ms: float | None
    size_budget_bytes: int | None
    chosen: FitCandidate
    candidates: list[FitCandidate]  # in the order they were measured, largest first
    reasons: list[str]
    trained_latency_ms: NotRequired[float]  # the trained model (the one the version serves) on the target
