"""The text classification template's declaration (no torch here: the web process imports it)."""

from __future__ import annotations

from workers.templates.declaration import DataRequirements, Param, Preset, SearchDimension, TaskTemplate

MODELS = ("bag_of_embeddings", "minilm_head", "minilm_finetune")

PARAMS = (
    Param(
        "model",
        "choice",
        "Model",
        "minilm_head",
        choices=MODELS,
        help=(
            "bag_of_embeddings: token embeddings trained from scratch (small, fast); minilm_head: a "
            "classifier on the frozen pretrained MiniLM sentence encoder; minilm_finetune: the same with the "
            "encoder's last layers fine-tuned."
        ),
    ),
    Param("epochs", "int", "Epochs", 30, low=1, high=500),
    Param("batch_size", "int", "Batch size", 32, low=2, high=1024),
    Param(
        "learning_rate",
        "float",
        "Learning rate",
        3e-3,
        low=1e-6,
        high=1.0,
        log=True,
        help="Peak rate of AdamW.",
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
)

PRESETS = (
    Preset(
        "fast",
        "Fast",
        "A small bag-of-embeddings model trained from scratch: seconds on a CPU.",
        {
            "model": "bag_of_embeddings",
            "epochs": 40,
            "learning_rate": 1e-2,
            "embedding_dim": 64,
            "batch_size": 32,
        },
    ),
    Preset(
        "balanced",
        "Balanced",
        "A classifier on the pretrained MiniLM sentence encoder (frozen).",
        {"model": "minilm_head", "epochs": 60, "learning_rate": 3e-3, "batch_size": 32},
    ),
    Preset(
        "accurate",
        "Accurate",
        "MiniLM with its top two layers fine-tuned (best on a GPU).",
        {
            "model": "minilm_finetune",
            "epochs": 4,
            "learning_rate": 5e-5,
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

TEMPLATE = TaskTemplate(
    name="text_classification",
    title="Text classification",
    description=(
        "Assign one label to each text. A bag-of-embeddings model from scratch or the pretrained MiniLM "
        "sentence encoder; the tokenizer ships with the model; serves raw text with ONNX Runtime."
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
)
