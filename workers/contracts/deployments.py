"""Deployment operations: the traffic split (canaries, the shadow), the shadow's agreement with the
served version, request capture and a deployment's history entries.

- :class:`TrafficEntry`: one model version a deployment serves and its share; the primary answers
  what the canaries leave, the shadow (weight 0) gets a copy of every request.
- :class:`DeploymentEventDetails`: what one history entry changed.
- :class:`ShadowAgreementPoint`: the shadow's agreement over one time bucket.
- :class:`CaptureFilters` / :class:`CapturedAnswer`: what is captured, and one captured instance as
  the API lists it.
"""

from __future__ import annotations

from typing import Literal, NotRequired, TypedDict

from workers.contracts.annotations import DetectedBox
from workers.contracts.prediction import ClassScore

DEPLOYMENTS_VERSION = 1

TrafficRoleName = Literal["primary", "canary", "shadow"]


class TrafficEntry(TypedDict):
    model_version: int
    model_version_name: str
    role: TrafficRoleName
    weight: int


class CapturePolicySettings(TypedDict):
    """A deployment's request capture policy (deploy.models.CapturePolicy) as a history entry keeps it."""

    enabled: bool
    sample_rate: float
    retention_days: int
    max_bytes: int
    low_confidence_below: float | None
    shadow_disagreement: bool
    labels: list[str]


class DeploymentEventDetails(TypedDict):
    """``traffic``: the split after the change (traffic, promote, switch, rollback, shadow);
    ``sticky``: the stickiness after it; ``capture``: the capture policy after a capture change."""

    traffic: NotRequired[list[TrafficEntry]]
    sticky: NotRequired[bool]
    capture: NotRequired[CapturePolicySettings]


class ShadowAgreementPoint(TypedDict):
    """One bucket of time: ``compared`` instances answered by both versions, ``agreement`` the
    share with the same top-1 class (null for regression), ``mean_delta`` the mean |served - shadow|
    top-1 score (regression: value), ``errors`` of the shadow."""

    start: str
    compared: int
    agreement: float | None
    mean_delta: float | None
    errors: int


class CaptureFilters(TypedDict):
    low_confidence_below: float | None
    shadow_disagreement: bool
    labels: list[str]


class CapturedAnswer(TypedDict):
    """A served (or shadow) answer as kept with a capture: ``label`` and ``score`` of the top class
    (a detector: of its best box; null when it found none), or the regression ``value``; a
    classifier's ``top_k`` as answered; a detector's ``boxes`` (original image pixels) with the
    image's ``width`` and ``height``."""

    label: str | None
    score: float | None
    value: float | None
    top_k: NotRequired[list[ClassScore]]
    boxes: NotRequired[list[DetectedBox]]
    width: NotRequired[int]
    height: NotRequired[int]
