"""A package build's report (``Package.report``): what ``workers.packaging`` returns for the on-prem
server package (``kind`` ``server``) and the device SDK (``kind`` ``device``, with its compression
report: fp32 and int8 sizes and test accuracies, their top-1 agreement)."""

from __future__ import annotations

from typing import Literal, NotRequired, TypedDict

from workers.contracts.jobs import HeadlineMetrics

PACKAGE_REPORT_VERSION = 1


class TensorDescription(TypedDict):
    """An ONNX graph input or output: its shape has symbolic dims (names) and unknown ones (null)."""

    name: str
    shape: list[int | str | None]
    dtype: str


class OnnxDescription(TypedDict):
    """A packaged ONNX file: opsets by domain, IR version, producer, inputs and outputs."""

    file: str
    ir_version: int
    opset: dict[str, int]
    producer: str
    inputs: list[TensorDescription]
    outputs: list[TensorDescription]


class PackagedModelVersion(TypedDict):
    """The model version a package holds (its test headline metrics included)."""

    id: NotRequired[int]
    name: NotRequired[str]
    project: NotRequired[int]
    template: str
    code_version: NotRequired[str]
    onnx_sha256: NotRequired[str]
    dataset_version: NotRequired[int | None]
    metrics: NotRequired[HeadlineMetrics]


class PackageManifestSummary(TypedDict):
    """The head of the package's manifest.json."""

    format: str
    sampan_version: str
    template: str
    model_version: PackagedModelVersion


class PackageFile(TypedDict):
    path: str
    bytes: int
    sha256: str


class PackagedModelQuality(TypedDict):
    """One model of the device SDK: its file, size and test accuracy (null without labels; absent for
    regression); a detector's mAP@.5 on the test split instead (null without true boxes)."""

    file: str
    bytes: int
    accuracy: NotRequired[float | None]
    map50: NotRequired[float | None]


class Quantization(TypedDict):
    """How the int8 model was made: static QDQ calibrated on training images (images), or dynamic
    (texts and rows)."""

    format: NotRequired[str]
    method: NotRequired[str]
    activations: NotRequired[str]
    weights: NotRequired[str]
    calibration: NotRequired[str]
    calibration_images: NotRequired[int]
    tool: NotRequired[str]


class CompressionReport(TypedDict):
    """fp32 against int8 on the test split (``test_images`` or ``test_instances``): sizes, accuracies,
    top-1 agreement and the largest score difference (regression: value differences). ``int8`` is
    null, with ``int8_note`` saying why, when the model could not be quantized. Detectors
    (``task`` ``"detection"``): each model's mAP@.5, ``map50_drop`` (fp32 minus int8) and
    ``box_agreement``: the share of fp32's boxes (at ``score_threshold``) that int8 finds too (same
    class, IoU >= 0.5)."""

    format: str
    test_images: NotRequired[int]
    test_instances: NotRequired[int]
    fp32: PackagedModelQuality
    int8: PackagedModelQuality | None
    int8_note: NotRequired[str | None]
    size_ratio: NotRequired[float]
    top1_agreement: NotRequired[float | None]
    max_abs_score_diff: NotRequired[float | None]
    max_abs_value_diff: NotRequired[float]
    mean_abs_value_diff: NotRequired[float]
    quantization: NotRequired[Quantization]
    task: NotRequired[Literal["classification", "detection"]]
    map50_drop: NotRequired[float | None]
    box_agreement: NotRequired[float | None]
    score_threshold: NotRequired[float]


class ServerPackageReport(TypedDict):
    """The on-prem server package: the archive, its model, pinned requirements, test vectors, files."""

    kind: Literal["server"]
    version: int
    path: str
    size_bytes: int
    sha256: str
    manifest: PackageManifestSummary
    model: OnnxDescription
    requirements: list[str]
    test_vectors: int
    files: list[PackageFile]


class DeviceSdkReport(TypedDict):
    """The device SDK: the archive, its fp32 and int8 models, the compression report, test vectors,
    files."""

    kind: Literal["device"]
    version: int
    path: str
    size_bytes: int
    sha256: str
    manifest: PackageManifestSummary
    models: dict[str, OnnxDescription]
    compression: CompressionReport
    test_vectors: int
    files: list[PackageFile]


PackageReport = ServerPackageReport | DeviceSdkReport
