"""Deployment targets: where a model will run, and what a latency measured for one says.

A ``TargetProfile`` names the runtime settings a deployment uses (ONNX Runtime, its execution provider,
its thread counts, the batch size of one call) and how much slower than this worker the target is
(``slowdown``: a target's latency is estimated as the worker's measured latency times it). Budgets are
the constraints a study or a training job must meet ("latency <= 5 ms on target X").

Built-in profiles (``workers.deployment_targets.BUILTIN_TARGETS``) describe this worker's CPU with the
device SDK's settings; a workspace registers its own (a phone, an edge box) with a slowdown it measured
by running the device SDK's sample there against the same model.
"""

from __future__ import annotations

from typing import Literal, TypedDict

TARGET_PROFILE_VERSION = 1
LATENCY_MEASUREMENT_VERSION = 1


class DeploymentTarget(TypedDict):
    """A deployment target's profile (named apart from a dataset's target-column profile in the API)."""

    kind: Literal["target_profile"]
    version: int
    name: str
    description: str
    runtime: Literal["onnxruntime"]
    execution_provider: str  # "CPUExecutionProvider" (or another provider the worker's wheel has)
    intra_op_threads: int  # the device SDK's default: 1
    inter_op_threads: int
    batch_size: int  # inputs per call
    # the target's latency / this worker's, for the same model and settings (1.0: this worker)
    slowdown: float
    latency_budget_ms: float | None  # a constraint on the target's latency per call
    size_budget_bytes: int | None  # a constraint on the model file's size


# the name the compute plane uses; the OpenAPI component is DeploymentTarget
TargetProfile = DeploymentTarget


class LatencyMeasurement(TypedDict):
    """One model's latency per call, measured on the worker with a profile's settings."""

    kind: Literal["latency_measurement"]
    version: int
    median_ms: float  # measured on this worker
    p90_ms: float
    runs: int
    target_ms: float  # median_ms * the profile's slowdown: the estimate for the target
    profile: str
    threads: int
    provider: str
    machine: str  # the worker's CPU, as Python's platform module names it, and its core count
