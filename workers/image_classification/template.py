"""The image classification template's declaration (no torch here: the web process imports it)."""

from __future__ import annotations

from typing import Any

from workers.templates.declaration import (
    DataRequirements,
    Param,
    Preset,
    SearchDimension,
    TaskTemplate,
    TemplateParamError,
)

MODELS = ("cnn_small", "resnet_narrow", "resnet18")
AUGMENTATIONS = ("none", "light", "standard", "strong")
MIN_SAMPLES_PER_CLASS = 5

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
        "seed",
        "int",
        "Random seed",
        0,
        low=0,
        high=2**31 - 1,
        help="Seeds weights, data order and augmentation, so a run can be repeated.",
    ),
)

PRESETS = (
    Preset(
        "fast",
        "Fast",
        "A small CNN at 32x32 pixels: minutes on a CPU, a first model to look at.",
        {
            "model": "cnn_small",
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
    warm_start=True,
)
