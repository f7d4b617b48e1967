"""The template registry and parameter validation: presets, overrides and clear errors by field."""

from __future__ import annotations

import json

import pytest

from workers.image_classification.manifest import ManifestError, check_manifest
from workers.templates import TemplateParamError, registry
from workers.templates.registry import UnknownTemplate

TEMPLATE = registry.get("image_classification")


def test_registry_lists_image_classification_and_names_unknown_templates():
    assert [t.name for t in registry.all()][0] == "image_classification"
    assert registry.get("image_classification") is TEMPLATE
    with pytest.raises(
        UnknownTemplate, match="unknown task template 'segmentation'; available: image_classification, "
    ):
        registry.get("segmentation")


def test_presets_differ_in_model_size_epochs_and_augmentation():
    fast, balanced, accurate = (TEMPLATE.validate_params(name) for name in ("fast", "balanced", "accurate"))
    assert (fast["model"], balanced["model"], accurate["model"]) == ("cnn_small", "resnet_narrow", "resnet18")
    assert fast["epochs"] < balanced["epochs"] < accurate["epochs"]
    assert fast["image_size"] < balanced["image_size"] < accurate["image_size"]
    assert [p["augmentation"] for p in (fast, balanced, accurate)] == ["light", "standard", "strong"]
    assert TEMPLATE.validate_params(None) == balanced  # the default preset
    assert set(balanced) == {"preset"} | {p.name for p in TEMPLATE.params}


def test_overrides_win_and_validated_params_round_trip():
    params = TEMPLATE.validate_params(
        "fast", {"epochs": 3, "learning_rate": 1, "batch_size": 32.0, "image_size": None}
    )
    assert params["epochs"] == 3 and params["batch_size"] == 32 and isinstance(params["batch_size"], int)
    assert params["learning_rate"] == 1.0 and isinstance(params["learning_rate"], float)
    assert params["image_size"] == TEMPLATE.preset("fast").values["image_size"]  # None means "not set"
    assert TEMPLATE.validate_params(params["preset"], params) == params
    assert json.loads(json.dumps(params)) == params


@pytest.mark.parametrize(
    ("preset", "overrides", "field", "message"),
    [
        ("turbo", {}, "preset", "unknown preset 'turbo'; choose one of fast, balanced, accurate"),
        (3, {}, "preset", "must be a preset name (fast, balanced, accurate), got int 3"),
        (
            "fast",
            {"epoch": 3},
            "epoch",
            "unknown parameter; image_classification accepts augmentation, batch_size,",
        ),
        ("fast", {"epochs": 0}, "epochs", "must be between 1 and 500, got 0"),
        ("fast", {"epochs": 2.5}, "epochs", "must be an integer, got 2.5"),
        ("fast", {"epochs": "10"}, "epochs", "must be an integer, got str '10'"),
        ("fast", {"epochs": True}, "epochs", "must be an integer, got bool True"),
        ("fast", {"learning_rate": 0.0}, "learning_rate", "must be between 1e-06 and 1, got 0.0"),
        ("fast", {"learning_rate": float("nan")}, "learning_rate", "must be a finite number, got nan"),
        ("fast", {"weight_decay": -0.1}, "weight_decay", "must be between 0 and 1, got -0.1"),
        ("fast", {"batch_size": 1}, "batch_size", "must be between 2 and 1024, got 1"),
        ("fast", {"image_size": 8}, "image_size", "must be between 32 and 512, got 8"),
        (
            "fast",
            {"augmentation": "extreme"},
            "augmentation",
            "must be one of 'none', 'light', 'standard', 'strong', got 'extreme'",
        ),
        (
            "fast",
            {"model": "vit"},
            "model",
            "must be one of 'cnn_small', 'resnet_narrow', 'resnet18', got 'vit'",
        ),
        ("fast", {"horizontal_flip": "yes"}, "horizontal_flip", "must be true or false, got str 'yes'"),
        (
            "balanced",
            {"epochs": 2, "warmup_epochs": 2},
            "warmup_epochs",
            "must be less than epochs (2), got 2",
        ),
        (
            "fast",
            {"preset": "accurate"},
            "preset",
            "the parameters name preset 'accurate' but preset 'fast' was chosen",
        ),
        ("fast", ["epochs", 3], "params", "must be an object mapping parameter names to values, got list"),
    ],
)
def test_bad_parameters_name_their_field(preset, overrides, field, message):
    with pytest.raises(TemplateParamError) as caught:
        TEMPLATE.validate_params(preset, overrides)
    assert caught.value.field == field
    assert caught.value.message.startswith(message), caught.value.message
    assert str(caught.value) == f"{field}: {caught.value.message}"
    assert caught.value.as_dict() == {"field": field, "message": caught.value.message}


def test_search_space_lies_inside_the_parameter_ranges_and_everything_is_json():
    described = TEMPLATE.as_dict()
    assert json.loads(json.dumps(described)) == described
    assert described["objective"] == {"metric": "val_acc", "direction": "maximize"}
    by_name = {p["name"]: p for p in described["params"]}
    assert by_name["learning_rate"] == {
        "name": "learning_rate",
        "type": "float",
        "title": "Learning rate",
        "help": "Peak learning rate of AdamW.",
        "default": 2e-3,
        "minimum": 1e-6,
        "maximum": 1,
        "log": True,
    }
    for dimension in described["search_space"]:
        param = by_name[dimension["name"]]
        if dimension["type"] == "categorical":
            assert all(TEMPLATE.param(param["name"]).validate(c) == c for c in dimension["choices"])
        else:
            assert param["minimum"] <= dimension["low"] < dimension["high"] <= param["maximum"]
    assert {"learning_rate", "weight_decay", "batch_size"} <= {d["name"] for d in described["search_space"]}


def test_entry_points_resolve_to_the_compute_functions():
    assert TEMPLATE.load("train").__name__ == "train"
    assert TEMPLATE.load("evaluate").__name__ == "evaluate"
    assert TEMPLATE.load("export").__name__ == "export_onnx"
    assert TEMPLATE.load("check_data").__name__ == "check_manifest"
    with pytest.raises(KeyError, match="unknown entry point 'predict'"):
        TEMPLATE.load("predict")


def _manifest(counts: list[int], *, split: str = "train") -> dict:
    return {
        "classes": [f"c{i}" for i in range(len(counts))],
        "samples": [
            {"path": f"/nowhere/{c}-{i}.png", "label": c, "split": split}
            for c, n in enumerate(counts)
            for i in range(n)
        ],
    }


@pytest.mark.parametrize(
    ("manifest", "message"),
    [
        ([], "the manifest must be an object with 'classes' and 'samples', got list"),
        ({"classes": ["a", "a"], "samples": []}, "class names must be unique; repeated: a"),
        (_manifest([6]), "at least 2 classes are needed, the manifest has 1"),
        ({"classes": ["a", "b"], "samples": []}, "'samples' must be a non-empty list"),
        (_manifest([6, 4]), "class 'c1' has 4 labeled samples; at least 5 are needed"),
        (_manifest([6, 6], split="val"), "the train split is empty"),
        (
            {"classes": ["a", "b"], "samples": [{"path": "x.png", "label": 2, "split": "train"}]},
            "samples[0].label must be an integer class index in 0..1, got 2",
        ),
        (
            {"classes": ["a", "b"], "samples": [{"path": "x.png", "label": 0, "split": "holdout"}]},
            "samples[0].split must be one of train, val, test, got 'holdout'",
        ),
    ],
)
def test_training_data_problems_are_named(manifest, message):
    with pytest.raises(ManifestError) as caught:
        check_manifest(manifest)
    assert str(caught.value) == message


def test_check_data_counts_per_split_and_reports_missing_files_when_asked():
    manifest = _manifest([5, 7])
    manifest["samples"][0]["split"] = "test"
    summary = check_manifest(manifest)
    assert summary == {
        "classes": ["c0", "c1"],
        "samples": 12,
        "counts": {"train": [4, 7], "val": [0, 0], "test": [1, 0]},
    }
    with pytest.raises(ManifestError, match=r"^12 image files are missing: /nowhere/0-0.png, .* and 2 more$"):
        check_manifest(manifest, check_files=True)
