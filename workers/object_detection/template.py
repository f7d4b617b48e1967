"""The object detection template's declaration (no torch here: the web process imports it)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from workers.contracts.templates import DataProfile, HardwareProfile, ParamValue
from workers.image_classification.template import PARAMS as IMAGE_CLASSIFICATION_PARAMS
from workers.image_classification.template import _cross_check as image_cross_check
from workers.templates.declaration import (
    DataRequirements,
    Param,
    Preset,
    Reason,
    SearchDimension,
    TaskTemplate,
    TemplateParamError,
)

MODELS = ("det_small", "det_medium", "det_resnet18")
AUGMENTATIONS = ("none", "light", "standard", "strong")
MIN_BOXES_PER_CLASS = 3

SHARED_PARAMS = ("epochs", "batch_size", "learning_rate", "weight_decay", "horizontal_flip", "schedule")
_IMAGE_PARAMS = {param.name: param for param in IMAGE_CLASSIFICATION_PARAMS}

PARAMS = (
    Param(
        "model",
        "choice",
        "Model",
        "det_medium",
        choices=MODELS,
        help="An anchor-free detector (CenterNet-style heatmaps at stride 4) on a ResNet backbone with a "
        "light feature pyramid. det_small: a small ResNet; det_medium: a narrow ResNet; det_resnet18: "
        "ResNet-18 (its backbone keys match the common ResNet-18 layout, for transfer learning).",
    ),
    *(_IMAGE_PARAMS[name] for name in SHARED_PARAMS),  # image classification's, same meaning
    Param(
        "image_size",
        "int",
        "Image size",
        96,
        low=32,
        high=1024,
        help="Images are resized to image_size x image_size pixels (a multiple of 32) before the model "
        "sees them; boxes are scaled back to the original image.",
    ),
    Param(
        "augmentation",
        "choice",
        "Augmentation",
        "standard",
        choices=AUGMENTATIONS,
        help="Random scale and crop that move and clip the boxes, horizontal flip and colour jitter, "
        "from none to strong.",
    ),
    _IMAGE_PARAMS["warmup_epochs"],
    _IMAGE_PARAMS["seed"],
)

PRESETS = (
    Preset(
        "fast",
        "Fast",
        "A small detector at 64x64 pixels: minutes on a CPU, a first model to look at.",
        {
            "model": "det_small",
            "epochs": 40,
            "batch_size": 8,
            "learning_rate": 4e-3,
            "image_size": 64,
            "augmentation": "light",
            "schedule": "onecycle",
            "weight_decay": 1e-4,
        },
    ),
    Preset(
        "balanced",
        "Balanced",
        "A narrow-ResNet detector at 96x96 pixels with standard augmentation.",
        {
            "model": "det_medium",
            "epochs": 40,
            "batch_size": 16,
            "learning_rate": 3e-3,
            "image_size": 96,
            "augmentation": "standard",
            "schedule": "onecycle",
            "weight_decay": 1e-4,
        },
    ),
    Preset(
        "accurate",
        "Accurate",
        "A ResNet-18 detector at 128x128 pixels, more epochs (best on a GPU).",
        {
            "model": "det_resnet18",
            "epochs": 60,
            "batch_size": 16,
            "learning_rate": 2e-3,
            "image_size": 128,
            "augmentation": "standard",
            "schedule": "onecycle",
            "weight_decay": 1e-4,
        },
    ),
)

SEARCH_SPACE = (
    SearchDimension("learning_rate", "float", low=5e-4, high=1e-2, log=True),
    SearchDimension("image_size", "categorical", choices=(64, 96, 128)),
    SearchDimension("model", "categorical", choices=("det_small", "det_medium")),
    SearchDimension("augmentation", "categorical", choices=("light", "standard", "strong")),
    SearchDimension("epochs", "int", low=10, high=60),
)


def _cross_check(values: dict[str, Any]) -> None:
    if values["image_size"] % 32:
        raise TemplateParamError("image_size", f"must be a multiple of 32, got {values['image_size']}")
    image_cross_check(values)


# fewest optimizer steps per epoch before the batch shrinks; images at which a CPU-only run of
# the accurate preset trades ResNet-18 for the narrow ResNet
MIN_STEPS_PER_EPOCH = 4
CPU_RESNET18_IMAGES = 2000


def adapt(
    values: Mapping[str, Any], data: DataProfile, hardware: HardwareProfile
) -> dict[str, tuple[ParamValue, str | Reason]]:
    """Data- and hardware-aware defaults (workers.templates.recommend): a batch that still gives a
    few optimizer steps per epoch on a handful of images, and no ResNet-18 on many images when no
    GPU is online."""
    changes: dict[str, tuple[ParamValue, str | Reason]] = {}
    images = data["train_samples"]
    batch = int(values["batch_size"])
    if 0 < images < MIN_STEPS_PER_EPOCH * batch:
        smaller = max(2, 2 ** int(math.log2(max(2, images // MIN_STEPS_PER_EPOCH))))
        if smaller < batch:
            changes["batch_size"] = (
                smaller,
                Reason(
                    "images_batch_steps",
                    f"{images:,} training images: batches of {smaller} make {math.ceil(images / smaller)} "
                    f"optimizer steps per epoch instead of {math.ceil(images / batch)}.",
                    {
                        "count": images,
                        "batch": smaller,
                        "steps": math.ceil(images / smaller),
                        "before": math.ceil(images / batch),
                    },
                ),
            )
    if hardware["gpus"] == 0 and values["model"] == "det_resnet18" and images >= CPU_RESNET18_IMAGES:
        changes["model"] = (
            "det_medium",
            Reason(
                "cpu_det_medium",
                f"No GPU among the workers online and {images:,} training images: the narrow ResNet "
                f"(det_medium) instead of ResNet-18, which is slow to train on a CPU.",
                {"count": images},
            ),
        )
    return changes


TEMPLATE = TaskTemplate(
    name="object_detection",
    title="Object detection",
    description=(
        "Find objects in images: a box and a label for each. Trains an anchor-free detector with torch; "
        "serves with ONNX Runtime."
    ),
    data_kind="image",
    label_kind="boxes",
    params=PARAMS,
    presets=PRESETS,
    default_preset="balanced",
    search_space=SEARCH_SPACE,
    objective={"metric": "val_map50", "direction": "maximize"},
    metrics=("loss", "val_loss", "val_map50", "lr", "samples_per_s", "eta_s"),
    data=DataRequirements(
        min_classes=1, min_samples_per_class=MIN_BOXES_PER_CLASS, required_splits=("train",)
    ),
    train="workers.object_detection.trainer:train",
    evaluate="workers.object_detection.evaluation:evaluate",
    export="workers.object_detection.export:export_onnx",
    check_data="workers.object_detection.manifest:check_manifest",
    cross_check=_cross_check,
    adapt=adapt,
    warm_start=True,
)
