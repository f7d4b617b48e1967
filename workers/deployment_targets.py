"""Deployment targets: the built-in profiles, their validation, and a model's latency and size measured
with a profile's runtime settings (``workers.contracts.targets``).

Latency is measured with ONNX Runtime as the device SDK and the hosted endpoint run a model: one
session with the profile's provider and thread counts, warm-up calls first, then the median and the
90th percentile of timed calls. The target's latency is the worker's times the profile's ``slowdown``.
Torch-free; ONNX Runtime is imported inside the functions (the web process validates profiles).

e.g. ``measure_latency("model.onnx", BUILTIN_TARGETS["worker-cpu"])["median_ms"]``
"""

from __future__ import annotations

import math
import os
import platform
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from workers.contracts.targets import (
    LATENCY_MEASUREMENT_VERSION,
    TARGET_PROFILE_VERSION,
    LatencyMeasurement,
    TargetProfile,
)

MAX_THREADS = 64
MAX_SLOWDOWN = 1000.0


class TargetProfileError(ValueError):
    """A profile field is missing or out of range; ``field`` names it."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


def _profile(
    name: str,
    description: str,
    *,
    threads: int = 1,
    slowdown: float = 1.0,
    latency_budget_ms: float | None = None,
) -> TargetProfile:
    return {
        "kind": "target_profile",
        "version": TARGET_PROFILE_VERSION,
        "name": name,
        "description": description,
        "runtime": "onnxruntime",
        "execution_provider": "CPUExecutionProvider",
        "intra_op_threads": threads,
        "inter_op_threads": 1,
        "batch_size": 1,
        "slowdown": slowdown,
        "latency_budget_ms": latency_budget_ms,
        "size_budget_bytes": None,
    }


BUILTIN_TARGETS: dict[str, TargetProfile] = {
    "worker-cpu": _profile(
        "worker-cpu",
        "This worker's CPU with the device SDK's settings: ONNX Runtime, 1 thread, one input per call.",
    ),
    "worker-cpu-4t": _profile(
        "worker-cpu-4t",
        "This worker's CPU as the hosted endpoint and the server package run: ONNX Runtime, 4 threads, "
        "one input per call.",
        threads=4,
    ),
    "edge-arm-slow": _profile(
        "edge-arm-slow",
        "A small ARM board (a Raspberry Pi 4 class device), estimated at 4x this worker's single-thread "
        "latency; measure your own device with the device SDK's sample and register its slowdown.",
        slowdown=4.0,
    ),
}


def _number(
    values: Mapping[str, Any], field: str, default: float | None, low: float, high: float
) -> float | None:
    value = values.get(field, default)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(float(value)):
        raise TargetProfileError(field, f"must be a number, got {value!r}")
    if not low <= float(value) <= high:
        raise TargetProfileError(field, f"must be between {low:g} and {high:g}, got {value!r}")
    return float(value)


def target_profile(value: str | Mapping[str, Any]) -> TargetProfile:
    """A built-in profile by name, or a complete, validated profile from a partial mapping (defaults:
    the device SDK's settings on this worker). Raises :class:`TargetProfileError` naming the field.

    >>> target_profile({"name": "phone", "slowdown": 3})["intra_op_threads"]
    1
    """
    if isinstance(value, str):
        if value not in BUILTIN_TARGETS:
            raise TargetProfileError(
                "target_profile", f"unknown target {value!r}; built-in targets: {', '.join(BUILTIN_TARGETS)}"
            )
        return dict(BUILTIN_TARGETS[value])  # type: ignore[return-value]
    if not isinstance(value, Mapping):
        raise TargetProfileError("target_profile", f"must be a name or an object, got {type(value).__name__}")
    name = value.get("name")
    if not isinstance(name, str) or not name.strip() or len(name) > 100:
        raise TargetProfileError("name", "must be a non-empty text of at most 100 characters")
    runtime = value.get("runtime", "onnxruntime")
    if runtime != "onnxruntime":
        raise TargetProfileError("runtime", f"only onnxruntime is supported, got {runtime!r}")
    provider = value.get("execution_provider", "CPUExecutionProvider")
    if not isinstance(provider, str) or not provider.endswith("ExecutionProvider"):
        raise TargetProfileError(
            "execution_provider", f"must name an ONNX Runtime provider, got {provider!r}"
        )
    size_budget = _number(value, "size_budget_bytes", None, 1, 2**40)
    return {
        "kind": "target_profile",
        "version": TARGET_PROFILE_VERSION,
        "name": name.strip(),
        "description": str(value.get("description") or ""),
        "runtime": "onnxruntime",
        "execution_provider": provider,
        "intra_op_threads": int(_number(value, "intra_op_threads", 1, 1, MAX_THREADS) or 1),
        "inter_op_threads": int(_number(value, "inter_op_threads", 1, 1, MAX_THREADS) or 1),
        "batch_size": int(_number(value, "batch_size", 1, 1, 4096) or 1),
        "slowdown": float(_number(value, "slowdown", 1.0, 0.01, MAX_SLOWDOWN) or 1.0),
        "latency_budget_ms": _number(value, "latency_budget_ms", None, 0.001, 3_600_000.0),
        "size_budget_bytes": None if size_budget is None else int(size_budget),
    }


def model_size(onnx_path: str | os.PathLike[str]) -> int:
    """The model file's bytes (what a device downloads and stores)."""
    return Path(onnx_path).stat().st_size


def machine() -> str:
    name = f"{platform.machine() or 'unknown'} {platform.processor() or ''}".strip()
    return f"{name}, {os.cpu_count()} cores"


_NUMPY_TYPES = {
    "tensor(float)": np.float32,
    "tensor(float16)": np.float16,
    "tensor(double)": np.float64,
    "tensor(int64)": np.int64,
    "tensor(int32)": np.int32,
    "tensor(int8)": np.int8,
    "tensor(uint8)": np.uint8,
    "tensor(bool)": np.bool_,
}


def zero_inputs(session: Any, batch_size: int) -> dict[str, np.ndarray]:
    """Inputs of the graph's declared shapes (a dynamic first dimension is the batch, any other is 1);
    ids are zeros, features are a fixed pseudo-random draw so no kernel takes a shortcut on zeros."""
    rng = np.random.default_rng(0)
    inputs: dict[str, np.ndarray] = {}
    for arg in session.get_inputs():
        shape = [
            (dim if isinstance(dim, int) and dim > 0 else (batch_size if i == 0 else 1))
            for i, dim in enumerate(arg.shape)
        ]
        dtype = _NUMPY_TYPES.get(arg.type, np.float32)
        if np.issubdtype(dtype, np.floating):
            inputs[arg.name] = rng.standard_normal(shape).astype(dtype)
        elif dtype is np.bool_:
            inputs[arg.name] = np.ones(shape, dtype=dtype)
        else:
            inputs[arg.name] = np.ones(shape, dtype=dtype)
    return inputs


def measure_latency(
    onnx_path: str | os.PathLike[str],
    profile: TargetProfile,
    *,
    inputs: Mapping[str, np.ndarray] | None = None,
    warmup: int = 5,
    runs: int = 30,
) -> LatencyMeasurement:
    """The model's latency per call with the profile's settings: ``warmup`` untimed calls, then the
    median and 90th percentile of ``runs`` timed ones. ``inputs``: one call's inputs (default: inputs of
    the graph's shapes with the profile's batch size)."""
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = profile["intra_op_threads"]
    options.inter_op_num_threads = profile["inter_op_threads"]
    options.execution_mode = onnxruntime.ExecutionMode.ORT_SEQUENTIAL
    available = onnxruntime.get_available_providers()
    provider = profile["execution_provider"]
    if provider not in available:
        raise TargetProfileError(
            "execution_provider",
            f"{provider} is not available on this worker (it has {', '.join(available)})",
        )
    session = onnxruntime.InferenceSession(str(onnx_path), options, providers=[provider])
    feed = dict(inputs) if inputs is not None else zero_inputs(session, profile["batch_size"])
    for _ in range(max(0, warmup)):
        session.run(None, feed)
    times = []
    for _ in range(max(1, runs)):
        start = time.perf_counter()
        session.run(None, feed)
        times.append((time.perf_counter() - start) * 1000.0)
    median = float(np.median(times))
    return {
        "kind": "latency_measurement",
        "version": LATENCY_MEASUREMENT_VERSION,
        "median_ms": round(median, 4),
        "p90_ms": round(float(np.percentile(times, 90)), 4),
        "runs": len(times),
        "target_ms": round(median * profile["slowdown"], 4),
        "profile": profile["name"],
        "threads": profile["intra_op_threads"],
        "provider": provider,
        "machine": machine(),
    }
