"""Fit an image classifier's size to a deployment target before training ("choose the deployment
target at training time", as EasyDL does).

The latency of a network does not depend on its weights, so candidates are measured untrained: each
(image size, width) is built, exported to ONNX and timed with the target profile's ONNX Runtime
settings (``workers.deployment_targets.measure_latency``; the target's latency is the worker's
times the profile's slowdown). Candidates are tried from the largest (image size x width, the
run's own configuration first) down, fp32 before int8 (int8 only where the worker can quantize:
``workers.compression.quantize_onnx``), and the first that fits the profile's latency and size
budgets is chosen. :class:`TargetUnreachable` names the smallest latency reached when none fits.

No Django here; torch and onnxruntime are imported inside the functions.

e.g. ``fit_image_classifier(params={"model": "resnet_narrow", "image_size": 64, ...},
num_classes=10, profile=target_profile("edge-arm-slow") | {"latency_budget_ms": 2.0},
work_dir=Path("/tmp/fit"))["chosen"]`` -> ``{"image_size": 48, "width": 0.5, "precision": "fp32"}``
"""

from __future__ import annotations

import contextlib
import io
import math
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from workers.contracts.target_fit import FitCandidate, TargetFit
from workers.contracts.targets import LatencyMeasurement, TargetProfile

WIDTHS = (1.0, 0.75, 0.5, 0.25)
SIZE_FACTORS = (1.0, 0.75, 0.5, 0.375, 0.25)
MIN_IMAGE_SIZE = 32


class TargetUnreachable(ValueError):
    """No candidate fits the target's budgets; ``smallest_ms`` is the lowest latency measured."""

    code = "target_unreachable"

    def __init__(self, message: str, *, smallest_ms: float, candidates: list[FitCandidate]) -> None:
        super().__init__(message)
        self.smallest_ms = smallest_ms
        self.candidates = candidates


def candidate_shapes(image_size: int, width: float) -> list[tuple[int, float]]:
    """(image size, width) pairs from the run's own down, by capacity (size^2 x width^2) descending;
    image sizes stay multiples of 8 and at least 32."""
    sizes = sorted(
        {
            max(MIN_IMAGE_SIZE, int(round(image_size * f / 8)) * 8)
            for f in SIZE_FACTORS
            if image_size * f >= 24
        }
        | {image_size},
        reverse=True,
    )
    widths = sorted({w for w in WIDTHS if w <= width} | {width}, reverse=True)
    pairs = [(s, w) for s in sizes for w in widths if s <= image_size]
    return sorted(pairs, key=lambda p: (-(p[0] ** 2) * p[1] ** 2, -p[0]))


def _export_untrained(arch: str, num_classes: int, image_size: int, width: float, out: Path) -> Path:
    import torch

    from workers.image_classification.models import build_model

    torch.manual_seed(0)
    model = build_model(arch, num_classes, width=width).eval()
    example = torch.zeros(1, 3, image_size, image_size)
    with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(
            model,
            (example,),
            str(out),
            dynamo=False,
            opset_version=17,
            input_names=["input"],
            output_names=["logits"],
            dynamic_axes={"input": {0: "batch"}, "logits": {0: "batch"}},
        )
    return out


def _quantize_for_latency(onnx_path: Path, out: Path) -> Path | None:
    """Static int8 (QDQ) of an untrained model with random calibration data: its latency is what a
    calibrated int8 model of the same shape takes. None when the worker cannot quantize."""
    try:
        import numpy as np
        from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static
    except ImportError:
        return None

    class Random(CalibrationDataReader):  # type: ignore[misc]
        def __init__(self, shape: list[int]) -> None:
            rng = np.random.default_rng(0)
            self.batches = iter([{"input": rng.standard_normal(shape).astype(np.float32)} for _ in range(2)])

        def get_next(self) -> dict[str, Any] | None:
            return next(self.batches, None)

    import onnx

    dims = onnx.load(str(onnx_path)).graph.input[0].type.tensor_type.shape.dim
    shape = [1] + [int(d.dim_value) for d in dims[1:]]
    import logging

    root = logging.getLogger()
    level = root.level
    root.setLevel(logging.ERROR)  # the quantizer warns on the root logger about every conv bias
    try:
        quantize_static(
            str(onnx_path),
            str(out),
            Random(shape),
            quant_format=QuantFormat.QDQ,
            activation_type=QuantType.QUInt8,
            weight_type=QuantType.QInt8,
        )
    finally:
        root.setLevel(level)
    return out


def int8_available() -> bool:
    """Whether a trained model can be made int8 after training (``workers.compression.quantize_onnx``)."""
    try:
        from workers.compression import quantize_onnx  # noqa: F401
    except ImportError:
        return False
    return True


def fit_image_classifier(
    *,
    params: dict[str, Any],
    num_classes: int,
    profile: TargetProfile,
    work_dir: Path,
    report: Callable[..., None] | None = None,
    measure: Callable[[Path, TargetProfile], LatencyMeasurement] | None = None,
) -> TargetFit:
    """Choose ``image_size``, ``width`` and precision for ``params`` (an image classifier's) so the
    model meets ``profile``'s budgets; see the module's docstring. Raises :class:`TargetUnreachable`."""
    from workers.deployment_targets import measure_latency, model_size

    timer = measure or (lambda path, prof: measure_latency(path, prof, warmup=3, runs=15))
    budget_ms = profile.get("latency_budget_ms")
    budget_bytes = profile.get("size_budget_bytes")
    if budget_ms is None and budget_bytes is None:
        raise ValueError(f"target {profile['name']!r} has no latency or size budget to fit")
    arch = str(params["model"])
    size = int(params["image_size"])
    width = float(params.get("width", 1.0))
    precisions: list[Literal["fp32", "int8"]] = ["fp32", "int8"] if int8_available() else ["fp32"]
    work_dir.mkdir(parents=True, exist_ok=True)
    measured: list[FitCandidate] = []
    for image_size, w in candidate_shapes(size, width):
        fp32 = _export_untrained(arch, num_classes, image_size, w, work_dir / f"{image_size}-{w}.onnx")
        for precision in precisions:
            path = fp32
            if precision == "int8":
                quantized = _quantize_for_latency(fp32, work_dir / f"{image_size}-{w}-int8.onnx")
                if quantized is None:
                    continue
                path = quantized
            latency = timer(path, profile)
            nbytes = model_size(path)
            fits = (budget_ms is None or latency["target_ms"] <= budget_ms) and (
                budget_bytes is None or nbytes <= budget_bytes
            )
            candidate: FitCandidate = {
                "image_size": image_size,
                "width": w,
                "precision": precision,
                "latency_ms": float(latency["target_ms"]),
                "size_bytes": int(nbytes),
                "fits": bool(fits),
            }
            measured.append(candidate)
            if report is not None:
                report(
                    f"{arch} at {image_size}px, width {w:g}, {precision}: {latency['target_ms']:.2f} ms on "
                    f"{profile['name']}{' (fits)' if fits else ''}"
                )
            if fits:
                return {
                    "kind": "target_fit",
                    "version": 1,
                    "profile": profile["name"],
                    "latency_budget_ms": budget_ms,
                    "size_budget_bytes": budget_bytes,
                    "chosen": candidate,
                    "candidates": measured,
                    "reasons": _reasons(candidate, measured, size, width, profile),
                }
    smallest = min((c["latency_ms"] for c in measured), default=math.inf)
    last: dict[str, Any] = dict(measured[-1]) if measured else {"image_size": size, "width": width}
    raise TargetUnreachable(
        f"No configuration of {arch} fits target {profile['name']!r}: the smallest "
        f"({last['image_size']}px, width {last['width']:g}) "
        f"takes {smallest:.2f} ms against a budget of {budget_ms} ms"
        + (f" and {budget_bytes} bytes" if budget_bytes is not None else "")
        + "; choose a smaller model, a faster target or a larger budget.",
        smallest_ms=smallest,
        candidates=measured,
    )


def _reasons(
    chosen: FitCandidate, measured: list[FitCandidate], size: int, width: float, profile: TargetProfile
) -> list[str]:
    budget = profile.get("latency_budget_ms")
    reasons = []
    if len(measured) == 1:
        reasons.append(
            f"The requested {size}px at width {width:g} already fits {profile['name']}: "
            f"{chosen['latency_ms']:.2f} ms" + (f" <= {budget} ms." if budget is not None else ".")
        )
        return reasons
    too_slow = [c for c in measured if not c["fits"]]
    reasons.append(
        f"{len(too_slow)} larger configuration(s) exceeded the budget on {profile['name']} (the requested "
        f"{size}px at width {width:g} took {measured[0]['latency_ms']:.2f} ms)."
    )
    reasons.append(
        f"Chose {chosen['image_size']}px at width {chosen['width']:g} in {chosen['precision']}: "
        f"{chosen['latency_ms']:.2f} ms"
        + (f" <= {budget} ms" if budget is not None else "")
        + ", the largest that fits."
    )
    return reasons
