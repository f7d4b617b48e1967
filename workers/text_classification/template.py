"""The text classification template's declaration (no torch here: the web process imports it)."""

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
    validation_params,
)

MODELS = ("bag_of_embeddings", "minilm_head", "minilm_tfidf", "minilm_finetune")
# below this many texts (train + val) validation "auto" cross-validates (the trainer's CV_THRESHOLD)
CROSS_VALIDATION_THRESHOLD = 3000

PARAMS = (
    Param(
        "model",
        "choice",
        "Model",
        "minilm_head",
        choices=MODELS,
        help=(
            "bag_of_embeddings: token embeddings trained from scratch (small, fast); minilm_head: a "
            "classifier on the frozen pretrained MiniLM sentence encoder; minilm_tfidf: one logistic "
            "regression over the MiniLM sentence embedding and the TF-IDF of the text's wordpieces (its "
            "strength chosen by validation; epochs and learning rate do not apply); minilm_finetune: that "
            "model as a warm-up, then the encoder's last layers fine-tuned, kept only if it beats the "
            "warm-up on the val split."
        ),
    ),
    Param(
        "epochs",
        "int",
        "Epochs",
        30,
        low=1,
        high=500,
        help="minilm_finetune: the most fine-tuning epochs (it stops after 3 without a better val score).",
    ),
    Param("batch_size", "int", "Batch size", 32, low=2, high=1024),
    Param(
        "learning_rate",
        "float",
        "Learning rate",
        3e-3,
        low=1e-6,
        high=1.0,
        log=True,
        help=(
            "Peak rate of AdamW. minilm_finetune: the top layer's; the head learns 20x faster and each "
            "lower layer at 0.8x the one above."
        ),
    ),
    Param("weight_decay", "float", "Weight decay", 1e-4, low=0.0, high=1.0),
    Param("dropout", "float", "Dropout", 0.1, low=0.0, high=0.8),
    Param(
        "embedding_dim",
        "int",
        "Embedding size",
        64,
        low=8,
        high=1024,
        help="bag_of_embeddings: token vector size.",
    ),
    Param(
        "finetune_layers",
        "int",
        "Fine-tuned layers",
        2,
        low=1,
        high=6,
        help="minilm_finetune: how many of the encoder's 6 layers (from the top) are trained.",
    ),
    Param("max_length", "int", "Max tokens", 128, low=8, high=512, help="Texts are cut to this many tokens."),
    Param("seed", "int", "Random seed", 0, low=0, high=2**31 - 1),
    *validation_params(threshold=CROSS_VALIDATION_THRESHOLD, unit="texts"),
)

PRESETS = (
    Preset(
        "fast",
        "Fast",
        "A small bag-of-embeddings model trained from scratch, validated on the val split (no "
        "cross-validation): seconds on a CPU, no pretrained model; it trades accuracy (well below "
        "balanced on small data) for speed and size.",
        {
            "model": "bag_of_embeddings",
            "validation": "holdout",
            "epochs": 40,
            "learning_rate": 1e-2,
            "embedding_dim": 64,
            "batch_size": 32,
        },
    ),
    Preset(
        "balanced",
        "Balanced",
        "The pretrained MiniLM sentence embedding and the TF-IDF of the text's wordpieces, one logistic "
        "regression over both (frozen encoder: the texts are embedded once).",
        {"model": "minilm_tfidf"},
    ),
    Preset(
        "accurate",
        "Accurate",
        "Balanced's model as a warm-up, then MiniLM's top two layers fine-tuned with layer-wise learning "
        "rates and early stopping; kept only where it beats the warm-up on the val split (best on a GPU).",
        {
            "model": "minilm_finetune",
            "epochs": 10,
            "learning_rate": 1e-4,
            "weight_decay": 0.01,
            "batch_size": 16,
            "finetune_layers": 2,
        },
    ),
)

SEARCH_SPACE = (
    SearchDimension("learning_rate", "float", low=1e-4, high=3e-2, log=True),
    SearchDimension("weight_decay", "float", low=1e-6, high=1e-1, log=True),
    SearchDimension("dropout", "float", low=0.0, high=0.5),
    SearchDimension("batch_size", "categorical", choices=(16, 32, 64)),
)


def _epochs_for(texts: int, model: str, epochs: int) -> tuple[int, Reason] | None:
    """Large data needs fewer passes (each holds many steps); on small data early stopping or the
    folds already choose the epoch, and more passes would only cost time."""
    if model == "minilm_tfidf":
        return None  # a convex fit: no epochs
    if texts <= 20_000:
        return None  # small data: early stopping (or the folds) already picks the epoch
    wanted = min(epochs, 3) if model == "minilm_finetune" else min(epochs, max(10, epochs // 2))
    if wanted == epochs:
        return None
    return wanted, Reason(
        "texts_fewer_epochs",
        f"{texts:,} training texts: each pass holds many steps, fewer passes suffice",
        {"count": texts},
    )


def adapt(
    values: Mapping[str, Any], data: DataProfile, hardware: HardwareProfile
) -> dict[str, tuple[ParamValue, str | Reason]]:
    """Text classification's data- and hardware-aware defaults (``TaskTemplate.adapt``): epochs and
    batch size follow the number of texts; fine-tuning trains more layers on a GPU and fewer, on
    shorter texts, on CPU-only workers with many texts.

    >>> rec = adapt(TEMPLATE.validate_params("accurate"), {"train_samples": 12000, "classes": 4},
    ...             {"gpus": 0, "cpu_count": 2, "workers": 1})
    >>> rec["max_length"][0], rec["finetune_layers"][0]
    (64, 1)
    """
    texts = int(data["train_samples"])
    gpus = int(hardware["gpus"])
    changes: dict[str, tuple[ParamValue, str | Reason]] = {}
    current = dict(values)

    def change(name: str, value: ParamValue, reason: Reason) -> None:
        if current.get(name) != value:
            changes[name] = (value, reason)
            current[name] = value

    model = current["model"]
    if texts > 0:
        epochs = _epochs_for(texts, model, int(current["epochs"]))
        if epochs is not None:
            change("epochs", *epochs)
        # at least ~8 optimizer steps per epoch
        fitting = max(8, 2 ** int(math.log2(max(8, texts // 8))))
        if model != "minilm_tfidf" and int(current["batch_size"]) > fitting:
            change(
                "batch_size",
                fitting,
                Reason(
                    "texts_batch",
                    f"{texts:,} training texts: batches of {fitting} keep several steps per pass",
                    {"count": texts, "batch": fitting},
                ),
            )
    if model == "minilm_finetune":
        if gpus > 0 and int(current["finetune_layers"]) < 4:
            change(
                "finetune_layers",
                4,
                Reason(
                    "gpu_finetune_layers",
                    "A GPU fine-tunes 4 of MiniLM's 6 layers in the time a CPU takes for 2",
                ),
            )
            if int(current["batch_size"]) < 32 and texts >= 256:
                change(
                    "batch_size", 32, Reason("gpu_batch", "A GPU takes batches of 32 texts at no extra time")
                )
        elif gpus == 0 and texts > 10_000:
            change(
                "finetune_layers",
                1,
                Reason(
                    "cpu_finetune_top_layer",
                    f"CPU-only workers and {texts:,} texts: fine-tuning only the top layer keeps a run short",
                    {"count": texts},
                ),
            )
            if int(current["max_length"]) > 64:
                change(
                    "max_length",
                    64,
                    Reason(
                        "cpu_short_texts", "CPU-only workers and many texts: 64 tokens cost a fraction of 128"
                    ),
                )
    return changes


TEMPLATE = TaskTemplate(
    name="text_classification",
    title="Text classification",
    description=(
        "Assign one label to each text. A bag-of-embeddings model from scratch, or the pretrained MiniLM "
        "sentence encoder with the TF-IDF of the text's wordpieces (optionally fine-tuned); small data "
        "is cross-validated; the tokenizer ships with the model; serves raw text with ONNX Runtime."
    ),
    data_kind="text",
    label_kind="single_label",
    params=PARAMS,
    presets=PRESETS,
    default_preset="balanced",
    search_space=SEARCH_SPACE,
    objective={"metric": "val_acc", "direction": "maximize"},
    metrics=("loss", "val_loss", "val_acc"),
    data=DataRequirements(min_classes=2, min_samples_per_class=2, required_splits=("train",)),
    train="workers.text_classification.trainer:train",
    evaluate="workers.text_classification.evaluation:evaluate",
    export="workers.text_classification.trainer:export_onnx",
    check_data="workers.text_classification.trainer:check_manifest",
    warm_start=True,
    adapt=adapt,
)
