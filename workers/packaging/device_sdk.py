"""The device SDK: the fp32 model and an int8 model (ONNX Runtime static quantization calibrated on
training images), the JSON companions, test vectors for both, a compression report, and samples in
Python (onnxruntime), JavaScript (onnxruntime-web, in the browser and in Node) and C++ (the ONNX
Runtime C++ API)."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from workers.contracts.packages import PACKAGE_REPORT_VERSION
from workers.packaging.artifacts import ModelArtifacts
from workers.packaging.package_contents import (
    MANIFEST_FORMAT,
    TEMPLATES_DIR,
    PackagingError,
    copy_template_tree,
    created_at,
    describe_onnx,
    expected_outputs,
    file_entries,
    pick_test_vectors,
    sampan_version,
    slug,
    write_json,
    write_vector_images,
    write_zip,
)
from workers.packaging.server_package import model_version_of, stage_model_files, template_values
from workers.progress import Report, silent_report

MAX_CALIBRATION_IMAGES = 300
CALIBRATION_BATCH = 32
EVALUATION_BATCH = 64
SAMPLE_REQUIREMENTS = ("onnxruntime", "numpy", "Pillow")
ONNXRUNTIME_WEB_VERSION = "1.30.0"
QUANTIZATION = {
    "format": "QDQ",
    "activations": "uint8 (per tensor)",
    "weights": "int8 (per channel)",
    "calibration": "MinMax",
    "tool": "onnxruntime.quantization.quantize_static",
}


# A model version that is already int8 (compressed: QDQ or integer operators) is shipped as it is.
QUANTIZED_OPS = frozenset(
    {
        "QuantizeLinear",
        "DequantizeLinear",
        "QLinearConv",
        "QLinearMatMul",
        "ConvInteger",
        "MatMulInteger",
        "DynamicQuantizeLinear",
    }
)
ALREADY_QUANTIZED = {
    "method": "the model version is already int8 (a compressed version): model.fp32.onnx and "
    "model.int8.onnx are its own file, not quantized again",
    "calibration_images": 0,
}


def is_quantized(path: Path) -> bool:
    """Whether the ONNX graph already holds quantization operators (a compressed int8 model)."""
    import onnx

    return any(
        node.op_type in QUANTIZED_OPS for node in onnx.load(str(path), load_external_data=False).graph.node
    )


class _Ranked:
    """ImageClassifier with the predictors' ``predict(instances, top_k)`` call shape."""

    def __init__(self, classifier: Any) -> None:
        self.classifier = classifier

    def predict(self, images: Sequence[Any], top_k: int) -> list[list[dict[str, Any]]]:
        answers: list[list[dict[str, Any]]] = self.classifier.predict(images, top_k=top_k)
        return answers


def calibration_batches(
    paths: Sequence[str | os.PathLike[str]],
    spec: dict[str, Any],
    input_name: str,
    *,
    limit: int = MAX_CALIBRATION_IMAGES,
    batch_size: int | None = None,
) -> Iterator[dict[str, np.ndarray]]:
    """Preprocessed batches of at most ``limit`` images spread evenly over ``paths``; with a model's
    fixed ``batch_size``, batches of exactly that size (the last one repeats its last image, which
    leaves the calibration ranges as they are)."""
    from workers.image_classification.preprocessing import open_image, preprocess_batch

    if len(paths) > limit:
        paths = [paths[int(i)] for i in np.linspace(0, len(paths) - 1, limit).round()]
    step = batch_size or CALIBRATION_BATCH
    for start in range(0, len(paths), step):
        images = [open_image(path, spec) for path in paths[start : start + step]]
        if batch_size:
            images += [images[-1]] * (batch_size - len(images))
        yield {input_name: preprocess_batch(images, spec)}


def quantize_int8(
    fp32_path: Path,
    int8_path: Path,
    calibration_images: Sequence[str | os.PathLike[str]],
    spec: dict[str, Any],
    workdir: Path,
    *,
    symbolic_shape: bool = True,
) -> int:
    """Static int8 quantization of ``fp32_path`` (QDQ, per-channel weights) calibrated on the images;
    keeps the model's metadata. Returns the number of calibration images used. ``symbolic_shape``:
    run ONNX Runtime's symbolic shape inference first (ONNX's own shape inference always runs)."""
    import onnx
    from onnxruntime.quantization import (
        CalibrationDataReader,
        CalibrationMethod,
        QuantFormat,
        QuantType,
        quantize_static,
    )
    from onnxruntime.quantization.shape_inference import quant_pre_process

    model_input = describe_onnx(fp32_path)["inputs"][0]
    input_name, batch = model_input["name"], (model_input["shape"] or [None])[0]
    fixed = batch if isinstance(batch, int) and batch > 0 else None  # a bring-your-own export's fixed batch
    count = min(len(calibration_images), MAX_CALIBRATION_IMAGES)

    class Reader(CalibrationDataReader):  # type: ignore[misc]  # onnxruntime has no type information
        def __init__(self) -> None:
            self.batches = calibration_batches(calibration_images, spec, input_name, batch_size=fixed)

        def get_next(self) -> dict[str, np.ndarray] | None:
            return next(self.batches, None)

    prepared = workdir / "model.prepared.onnx"
    # shape inference and graph optimizations (e.g. batch norm folded into convolutions) first
    quant_pre_process(str(fp32_path), str(prepared), skip_symbolic_shape=not symbolic_shape)
    quantize_static(
        str(prepared),
        str(int8_path),
        Reader(),
        quant_format=QuantFormat.QDQ,
        activation_type=QuantType.QUInt8,
        weight_type=QuantType.QInt8,
        per_channel=True,
        calibrate_method=CalibrationMethod.MinMax,
    )
    source, quantized = onnx.load(str(fp32_path)), onnx.load(str(int8_path))
    present = {entry.key for entry in quantized.metadata_props}
    for entry in source.metadata_props:
        if entry.key not in present:
            quantized.metadata_props.add(key=entry.key, value=entry.value)
    onnx.save(quantized, str(int8_path))
    return count


def probabilities(
    classifier: Any, paths: Sequence[str | os.PathLike[str]], spec: dict[str, Any]
) -> np.ndarray:
    from workers.image_classification.preprocessing import open_image

    rows = [
        classifier.probabilities([open_image(p, spec) for p in paths[start : start + EVALUATION_BATCH]])
        for start in range(0, len(paths), EVALUATION_BATCH)
    ]
    return np.concatenate(rows) if rows else np.zeros((0, len(classifier.classes or [])), dtype=np.float32)


def compression_report(
    fp32: Any, int8: Any, fp32_path: Path, int8_path: Path, artifacts: ModelArtifacts, calibration_count: int
) -> dict[str, Any]:
    """Size and test accuracy of both models and their top-1 agreement on the test images."""
    spec = dict(artifacts.preprocessing)
    p32, p8 = (
        probabilities(fp32, artifacts.test_images, spec),
        probabilities(int8, artifacts.test_images, spec),
    )
    top32, top8 = p32.argmax(axis=1), p8.argmax(axis=1)
    labels = np.asarray(artifacts.test_labels) if artifacts.test_labels is not None else None
    n = len(artifacts.test_images)

    def accuracy(top: np.ndarray) -> float | None:
        return float((top == labels).mean()) if labels is not None and n else None

    size32, size8 = fp32_path.stat().st_size, int8_path.stat().st_size
    return {
        "format": "sampan.compression_report/1",
        "test_images": n,
        "fp32": {"file": fp32_path.name, "bytes": size32, "accuracy": accuracy(top32)},
        "int8": {"file": int8_path.name, "bytes": size8, "accuracy": accuracy(top8)},
        "size_ratio": round(size8 / size32, 4),
        "top1_agreement": float((top32 == top8).mean()) if n else None,
        "max_abs_score_diff": float(np.abs(p32 - p8).max()) if n else None,
        "quantization": {**QUANTIZATION, "calibration_images": calibration_count},
    }


def archive_device_sdk(
    root: Path,
    out_path: str | os.PathLike[str],
    artifacts: ModelArtifacts,
    when: str,
    *,
    models: dict[str, Any],
    compression: dict[str, Any],
    vectors: int,
    tolerance: dict[str, float],
    report: Report,
    manifest_fields: dict[str, Any],
    **ready: float | None,
) -> dict[str, Any]:
    """Write manifest.json (the package's facts, ``manifest_fields``, each model's test vectors and
    the sha256 and size of every other file) and the zip, report "Device SDK ready" (with the metrics
    ``ready``); returns the builder's report. ``tolerance``: how closely fp32 answers the vectors."""
    manifest = {
        "format": MANIFEST_FORMAT,
        "kind": "device",
        "sampan_version": sampan_version(),
        "created_at": when,
        "template": artifacts.template,
        "model_version": model_version_of(artifacts),
        "classes": len(artifacts.classes),
        "models": models,
        "quantization": compression.get("quantization"),
        **manifest_fields,
        "test_vectors": {
            "files": [f"test_vectors/expected.{name}.json" for name in models],
            "count": vectors,
            "fp32": tolerance,
        },
    }
    manifest["files"] = file_entries(root)
    write_json(root / "manifest.json", manifest)
    report("Writing the archive", fraction=0.9)
    archive = write_zip(root, out_path, prefix=f"sampan-device-{slug(manifest['model_version'].get('name'))}")
    report("Device SDK ready", fraction=1.0, milestone=True, size_bytes=archive["size_bytes"], **ready)
    return {
        "kind": "device",
        "version": PACKAGE_REPORT_VERSION,
        **archive,
        "manifest": {k: manifest[k] for k in ("format", "sampan_version", "template", "model_version")},
        "models": models,
        "compression": compression,
        "test_vectors": vectors,
        "files": manifest["files"],
    }


def build_device_sdk(
    *,
    artifacts: ModelArtifacts,
    out_path: str | os.PathLike[str],
    calibration_images: Sequence[str | os.PathLike[str]],
    report: Report = silent_report,
) -> dict[str, Any]:
    """Build the device SDK archive (zip) at ``out_path``; returns its report with the compression
    report under ``"compression"``. ``calibration_images``: training images (up to 300 are used).

    >>> build_device_sdk(artifacts=artifacts, out_path="sdk.zip", calibration_images=paths)  # doctest: +SKIP
    """
    from workers.image_classification.predictor import ImageClassifier
    from workers.serving.predictors import PREDICTORS, predictor_class

    if artifacts.template == "object_detection":
        from workers.packaging.device_sdk_detection import build_detection_device_sdk

        return build_detection_device_sdk(
            artifacts=artifacts, out_path=out_path, calibration_images=calibration_images, report=report
        )
    if artifacts.template == "time_series_forecasting":
        from workers.packaging.forecast_package import build_forecast_device_sdk

        return build_forecast_device_sdk(artifacts=artifacts, out_path=out_path, report=report)
    if artifacts.template != "image_classification":
        if artifacts.template not in PREDICTORS:
            raise PackagingError(
                f"no predictor serves template {artifacts.template!r}; known: {', '.join(PREDICTORS)}"
            )
        from workers.packaging.device_sdk_rows import build_rows_device_sdk

        # text and tabular: dynamic int8 (or none, for trees) needs no calibration images
        return build_rows_device_sdk(
            artifacts=artifacts,
            data_kind=predictor_class(artifacts.template).data_kind,
            out_path=out_path,
            report=report,
        )
    if not calibration_images:
        raise PackagingError(
            "static int8 quantization needs calibration images (training images); none were given"
        )
    when = created_at()
    spec = dict(artifacts.preprocessing)
    with (
        tempfile.TemporaryDirectory(prefix="sampan-device-sdk-") as temp,
        tempfile.TemporaryDirectory(prefix="sampan-quantize-") as workdir,
    ):
        root = Path(temp)
        report("Checking and copying the model", fraction=0.05)
        stage_model_files(artifacts, root, model_name="model.fp32.onnx")
        fp32_path, int8_path = root / "model.fp32.onnx", root / "model.int8.onnx"
        report(
            f"Quantizing to int8, calibrated on {min(len(calibration_images), MAX_CALIBRATION_IMAGES)} "
            "training images",
            fraction=0.15,
        )
        already = is_quantized(fp32_path)
        if already:  # a compressed int8 model version: quantizing its QDQ graph again is invalid
            shutil.copyfile(fp32_path, int8_path)
            calibration_count = 0
        else:
            calibration_count = quantize_int8(fp32_path, int8_path, calibration_images, spec, Path(workdir))
        classes = list(artifacts.classes)
        fp32 = ImageClassifier(fp32_path, preprocessing=spec, classes=classes)
        int8 = ImageClassifier(int8_path, preprocessing=spec, classes=classes)
        report("Measuring fp32 and int8 on the test images", fraction=0.5)
        compression = compression_report(fp32, int8, fp32_path, int8_path, artifacts, calibration_count)
        if already:
            compression["quantization"] = ALREADY_QUANTIZED
            compression["int8_note"] = ALREADY_QUANTIZED["method"]
        write_json(root / "compression_report.json", compression)
        report("Writing the test vectors and samples", fraction=0.75)
        vectors = write_vector_images(
            pick_test_vectors(artifacts.test_images, artifacts.test_labels), root / "test_vectors" / "images"
        )
        for name, classifier in (("fp32", fp32), ("int8", int8)):
            expected = expected_outputs(_Ranked(classifier), vectors, root / "test_vectors", classes)
            write_json(
                root / "test_vectors" / f"expected.{name}.json", {**expected, "model": f"model.{name}.onnx"}
            )
        write_samples(root, artifacts, when)
        models = {
            name: {"file": f"model.{name}.onnx", **describe_onnx(root / f"model.{name}.onnx")}
            for name in ("fp32", "int8")
        }
        return archive_device_sdk(
            root,
            out_path,
            artifacts,
            when,
            models=models,
            compression=compression,
            vectors=len(vectors),
            tolerance={"rtol": 1e-4, "atol": 1e-5},
            report=report,
            manifest_fields={
                "samples": {
                    "python": "python/classify.py",
                    "javascript": "javascript/sampan_classifier.mjs",
                    "cpp": "cpp/classify.cpp",
                }
            },
            top1_agreement=compression["top1_agreement"],
        )


def write_samples(root: Path, artifacts: ModelArtifacts, when: str) -> None:
    """README, the Python, JavaScript and C++ samples, the Python sample's pinned requirements and the
    C++ sample's compiled-in spec."""
    import importlib.metadata

    values = {**template_values(artifacts, when), "onnxruntime_web_version": ONNXRUNTIME_WEB_VERSION}
    copy_template_tree(TEMPLATES_DIR / "device", root, values)
    pins = [f"{name}=={importlib.metadata.version(name)}" for name in SAMPLE_REQUIREMENTS]
    (root / "python" / "requirements.txt").write_text("\n".join(pins) + "\n")
    (root / "cpp" / "model_spec.h").write_text(
        cpp_model_spec(dict(artifacts.preprocessing), list(artifacts.classes))
    )


def _cpp_string(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\r", "\\r")
    return f'"{escaped}"'


def cpp_model_spec(spec: dict[str, Any], classes: list[str]) -> str:
    """``preprocess.json`` and ``labels.json`` as C++ constants (floats rounded to float32 as NumPy does)."""
    height, width = spec["image_size"]

    def floats(values: Sequence[float]) -> str:
        return ", ".join(f"static_cast<float>({float(v)!r})" for v in values)

    return "\n".join(
        [
            "// Generated by Sampan's device SDK builder from ../preprocess.json and ../labels.json.",
            "#pragma once",
            "#include <string>",
            "#include <vector>",
            "",
            "namespace spec {",
            f"constexpr int kHeight = {int(height)};",
            f"constexpr int kWidth = {int(width)};",
            f"constexpr const char* kResizeMode = {_cpp_string(spec['resize_mode'])};",
            f"constexpr double kCropFraction = {float(spec['crop_fraction'])!r};",
            f"constexpr const char* kResample = {_cpp_string(spec['resample'])};",
            f"constexpr float kScale = {floats([spec['scale']])};",
            f"constexpr float kMean[3] = {{{floats(spec['mean'])}}};",
            f"constexpr float kStd[3] = {{{floats(spec['std'])}}};",
            "constexpr int kAlphaBackground[3] = "
            f"{{{', '.join(str(int(v)) for v in spec['alpha_background'])}}};",
            f"const std::vector<std::string> kLabels = {{{', '.join(_cpp_string(c) for c in classes)}}};",
            "}  // namespace spec",
            "",
        ]
    )
