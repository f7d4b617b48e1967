"""The image classification template's declaration (no torch here: the web process imports it)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from workers.contracts.templates import DataProfile, HardwareProfile, ParamValue
from workers.templates.declaration import (
    DataRequirements,
    Param,
    Preset,
    Reason,
    SearchDimension,
    TaskTemplate,
    TemplateParamError,
    validation_params,
)

MODELS = ("cnn_small", "resnet_narrow", "resnet18")
AUGMENTATIONS = ("none", "light", "standard", "strong")
MIN_SAMPLES_PER_CLASS = 5

# validation="auto" cross-validates below this many images (train + val), and on a CPU only when the
# folds' estimated cost fits CPU_CROSS_VALIDATION_BUDGET: every fold is a full training run.
CROSS_VALIDATION_THRESHOLD = 2000
# Relative cost of one image through one training step at 32x32 pixels (cnn_small = 1); it grows with
# the pixel count. Measured on a CPU: cnn_small 1, resnet_narrow ~1.5, resnet18 ~4.
MODEL_COST = {"cnn_small": 1.0, "resnet_narrow": 1.5, "resnet18": 4.0}
# The folds of digits-sized data (1,500 images) fit for the narrow ResNet at 48 px and 30 epochs; an
# estimate, not a measurement of the host (one cost unit is a few ms of a small CPU).
CPU_CROSS_VALIDATION_BUDGET = 900_000.0

PARAMS = (
    Param(
        "model",
        "choice",
        "Model",
        "resnet_narrow",
        choices=MODELS,
        help="cnn_small: a small plain CNN; resnet_narrow: a narrow ResNet; resnet18: ResNet-18 "
        "(its state_dict keys match the common ResNet-18 layout, for transfer learning).",
    ),
    Param("epochs", "int", "Epochs", 15, low=1, high=500, help="Passes over the training split."),
    Param("batch_size", "int", "Batch size", 64, low=2, high=1024, help="Images per optimizer step."),
    Param(
        "learning_rate",
        "float",
        "Learning rate",
        2e-3,
        low=1e-6,
        high=1.0,
        log=True,
        help="Peak learning rate of AdamW.",
    ),
    Param(
        "weight_decay",
        "float",
        "Weight decay",
        5e-4,
        low=0.0,
        high=1.0,
        help="AdamW's decoupled weight decay (not applied to biases and normalization layers).",
    ),
    Param(
        "image_size",
        "int",
        "Image size",
        64,
        low=32,
        high=512,
        help="Images are resized to image_size x image_size pixels before the model sees them.",
    ),
    Param(
        "augmentation",
        "choice",
        "Augmentation",
        "standard",
        choices=AUGMENTATIONS,
        help="Random resized crop and colour jitter (brightness, contrast, saturation), from none to strong.",
    ),
    Param(
        "horizontal_flip",
        "bool",
        "Horizontal flip",
        False,
        help="Mirror half of the training images. Off by default because a mirrored digit, letter or sign "
        "can be a different class; turn it on for photos where a mirror image is the same class.",
    ),
    Param(
        "schedule",
        "choice",
        "Learning-rate schedule",
        "cosine",
        choices=("cosine", "onecycle"),
        help="cosine: linear warm-up then cosine decay; onecycle: the one-cycle policy.",
    ),
    Param(
        "warmup_epochs",
        "int",
        "Warm-up epochs",
        1,
        low=0,
        high=50,
        help="Epochs of linear warm-up before the cosine decay (cosine schedule only).",
    ),
    Param("label_smoothing", "float", "Label smoothing", 0.0, low=0.0, high=0.5),
    Param(
        "width",
        "float",
        "Width",
        1.0,
        low=0.25,
        high=1.0,
        help="Channel multiplier of the network (0.25-1.0): narrower is smaller and faster, usually less "
        "accurate. A training job given a target profile fits it to the target's latency budget.",
    ),
    Param(
        "seed",
        "int",
        "Random seed",
        0,
        low=0,
        high=2**31 - 1,
        help="Seeds weights, data order and augmentation, so a run can be repeated.",
    ),
    *validation_params(threshold=CROSS_VALIDATION_THRESHOLD, unit="images"),
)

PRESETS = (
    Preset(
        "fast",
        "Fast",
        "A small CNN at 32x32 pixels, validated on the val split (no cross-validation): minutes on a CPU, "
        "a first model to look at.",
        {
            "model": "cnn_small",
            "validation": "holdout",
            "epochs": 10,
            "batch_size": 64,
            "learning_rate": 3e-3,
            "image_size": 32,
            "augmentation": "light",
            "schedule": "onecycle",
            "warmup_epochs": 0,
        },
    ),
    Preset(
        "balanced",
        "Balanced",
        "A narrow ResNet at 64x64 pixels with standard augmentation.",
        {
            "model": "resnet_narrow",
            "epochs": 15,
            "batch_size": 64,
            "learning_rate": 2e-3,
            "image_size": 64,
            "augmentation": "standard",
            "schedule": "cosine",
            "warmup_epochs": 1,
        },
    ),
    Preset(
        "accurate",
        "Accurate",
        "ResNet-18 at 128x128 pixels, strong augmentation, more epochs (best on a GPU).",
        {
            "model": "resnet18",
            "epochs": 30,
            "batch_size": 64,
            "learning_rate": 1e-3,
            "image_size": 128,
            "augmentation": "strong",
            "schedule": "cosine",
            "warmup_epochs": 2,
            "label_smoothing": 0.1,
        },
    ),
)

SEARCH_SPACE = (
    SearchDimension("learning_rate", "float", low=1e-4, high=1e-2, log=True),
    SearchDimension("weight_decay", "float", low=1e-6, high=1e-1, log=True),
    SearchDimension("batch_size", "categorical", choices=(32, 64, 128)),
    SearchDimension("augmentation", "categorical", choices=("light", "standard", "strong")),
    SearchDimension("label_smoothing", "float", low=0.0, high=0.2),
    SearchDimension("epochs", "int", low=5, high=30),
    SearchDimension("model", "categorical", choices=("cnn_small", "resnet_narrow")),
)


def _cross_check(values: dict[str, Any]) -> None:
    if values["schedule"] == "cosine" and values["warmup_epochs"] >= values["epochs"]:
        raise TemplateParamError(
            "warmup_epochs", f"must be less than epochs ({values['epochs']}), got {values['warmup_epochs']}"
        )


def training_cost(values: Mapping[str, Any], images: int) -> float:
    """The estimated cost of one training run over ``images`` images (see ``MODEL_COST``)."""
    return (
        images
        * int(values["epochs"])
        * MODEL_COST[str(values["model"])]
        * (int(values["image_size"]) / 32) ** 2
    )


def cross_validation_cost(values: Mapping[str, Any], images: int, folds: int) -> float:
    """The estimated cost of ``folds`` fold runs, each on (folds - 1) / folds of ``images``."""
    return folds * training_cost(values, round(images * (folds - 1) / folds))


def _epochs_for(images: int, preset_epochs: int, *, fast: bool = False) -> tuple[int, Reason] | None:
    """Small data needs more passes to take enough optimizer steps; large data fewer. The fast preset
    stays fast: at most half as many passes again."""
    if images < 500:
        epochs = min(60, preset_epochs * 3 // (2 if fast else 1))
        code, why = "images_more_epochs", "small data needs more passes"
    elif images < 3000:
        epochs = min(40, preset_epochs * (3 if fast else 4) // 2)
        code, why = "images_more_epochs", "small data needs more passes"
    elif images > 50_000:
        epochs, code, why = (
            min(preset_epochs, 10),
            "images_fewer_epochs",
            "large data, each pass holds many steps",
        )
    elif images > 20_000:
        epochs, code, why = (
            min(preset_epochs, 15),
            "images_fewer_epochs",
            "large data, each pass holds many steps",
        )
    else:
        return None
    if epochs == preset_epochs:
        return None
    return epochs, Reason(code, f"{images:,} training images: {why}", {"count": images})


def adapt(
    values: Mapping[str, Any], data: DataProfile, hardware: HardwareProfile
) -> dict[str, tuple[ParamValue, str | Reason]]:
    """Image classification's data- and hardware-aware defaults (``TaskTemplate.adapt``).

    On CPU-only workers the larger models are shrunk to what trains in minutes rather than hours
    (ResNet-18 at 128 px for 30 epochs on a CPU takes hours on a few thousand images); epochs follow
    the data size; the batch is no larger than the data allows; on a CPU with small data the
    cross-validation uses 3 folds when 5 would not fit its budget.

    >>> from workers.templates.recommend import recommend
    >>> rec = recommend(TEMPLATE, "accurate", {"train_samples": 1437, "classes": 10},
    ...                 {"gpus": 0, "cpu_count": 2, "workers": 1})
    >>> rec["values"]["model"], rec["values"]["image_size"], rec["values"]["folds"]
    ('resnet_narrow', 64, 3)
    """
    images = int(data["train_samples"])
    cpu_only = int(hardware["gpus"]) == 0
    changes: dict[str, tuple[ParamValue, str | Reason]] = {}
    current = dict(values)

    def change(name: str, value: ParamValue, reason: Reason) -> None:
        if current.get(name) != value:
            changes[name] = (value, reason)
            current[name] = value

    if cpu_only and images > 0:
        if current["model"] == "resnet18":
            change(
                "model",
                "resnet_narrow",
                Reason(
                    "cpu_no_resnet18",
                    "CPU-only workers: ResNet-18 would take hours; the narrow ResNet trains in minutes",
                ),
            )
        # small data: a narrow ResNet at 48 px (64 px where ResNet-18 was asked for) instead of 64/128
        size_cap = (64 if values["model"] == "resnet18" else 48) if images <= 20_000 else 64
        if int(current["image_size"]) > size_cap:
            change(
                "image_size",
                size_cap,
                Reason(
                    "cpu_image_size",
                    f"CPU-only workers: {size_cap}x{size_cap} pixels cost a fraction of "
                    f"{current['image_size']}x{current['image_size']}",
                    {"size": size_cap, "from": int(current["image_size"])},
                ),
            )
    if images > 0:
        epochs = _epochs_for(images, int(current["epochs"]), fast=values.get("preset") == "fast")
        if epochs is not None:
            change("epochs", *epochs)
        # at least ~8 optimizer steps per epoch: the batch is no larger than an eighth of the data
        fitting = max(8, 2 ** int(math.log2(max(8, images // 8))))
        if int(current["batch_size"]) > fitting:
            change(
                "batch_size",
                fitting,
                Reason(
                    "images_batch",
                    f"{images:,} training images: batches of {fitting} keep several steps per pass",
                    {"count": images, "batch": fitting},
                ),
            )
        if current["schedule"] == "cosine" and int(current["warmup_epochs"]) >= int(current["epochs"]):
            change(
                "warmup_epochs",
                max(0, int(current["epochs"]) // 10),
                Reason("shorter_warmup", "fewer epochs, shorter warm-up"),
            )
    if (
        cpu_only
        and current["validation"] == "auto"
        and 0 < images < CROSS_VALIDATION_THRESHOLD
        and cross_validation_cost(current, images, int(current["folds"])) > CPU_CROSS_VALIDATION_BUDGET
        and int(current["folds"]) > 3
        and cross_validation_cost(current, images, 3) <= CPU_CROSS_VALIDATION_BUDGET
    ):
        change(
            "folds",
            3,
            Reason(
                "cpu_fewer_folds",
                f"CPU-only workers: 3 folds instead of {current['folds']} keep cross-validation affordable",
                {"folds": int(current["folds"])},
            ),
        )
    return changes


TEMPLATE = TaskTemplate(
    name="image_classification",
    title="Image classification",
    description=(
        "Assign one label to each image. Trains a CNN or ResNet with torch; serves with ONNX Runtime."
    ),
    data_kind="image",
    label_kind="single_label",
    params=PARAMS,
    presets=PRESETS,
    default_preset="balanced",
    search_space=SEARCH_SPACE,
    objective={"metric": "val_acc", "direction": "maximize"},
    metrics=("loss", "train_acc", "val_loss", "val_acc", "lr", "samples_per_s", "eta_s"),
    data=DataRequirements(
        min_classes=2, min_samples_per_class=MIN_SAMPLES_PER_CLASS, required_splits=("train",)
    ),
    train="workers.image_classification.trainer:train",
    evaluate="workers.image_classification.evaluation:evaluate",
    export="workers.image_classification.export:export_onnx",
    check_data="workers.image_classification.manifest:check_manifest",
    cross_check=_cross_check,
    adapt=adapt,
    warm_start=True,
)
