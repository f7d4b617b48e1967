"""workers.templates.recommend: a preset fitted to the data and the workers online by the template's
rule. The user's own values are never changed nor listed, every choice validates, the answer is the
same for the same input, and a template without a rule changes nothing."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

import pytest

from workers.contracts.templates import DataProfile, HardwareProfile
from workers.templates import registry
from workers.templates.declaration import TemplateParamError
from workers.templates.recommend import cpu_hardware, recommend

CPU: HardwareProfile = {"gpus": 0, "cpu_count": 2, "workers": 1}
GPU: HardwareProfile = {"gpus": 1, "cpu_count": 16, "workers": 1}
NO_WORKER: HardwareProfile = {"gpus": 0, "cpu_count": 1, "workers": 0}
PROFILES: list[DataProfile] = [
    {"train_samples": 12, "classes": 2, "features": 4},
    {"train_samples": 150, "classes": 3, "features": 4},
    {"train_samples": 1_797, "classes": 10, "features": 64},
    {"train_samples": 60_000, "classes": 10, "features": 20},
    {"train_samples": 500_000, "classes": 0, "features": 8},
]


def test_a_few_detection_images_get_a_smaller_batch_and_say_why():
    template = registry.get("object_detection")
    rec = recommend(template, "balanced", {"train_samples": 20, "classes": 2}, CPU)
    assert rec["kind"] == "preset_recommendation" and rec["version"] == 1
    assert rec["template"] == "object_detection" and rec["preset"] == "balanced"
    assert rec["data"] == {"train_samples": 20, "classes": 2} and rec["hardware"] == CPU
    (choice,) = rec["choices"]
    assert choice["param"] == "batch_size" and choice["preset_value"] == 16 and choice["value"] == 4
    assert (
        "20 training images" in choice["reason"]
        and "5 optimizer steps per epoch instead of 2" in choice["reason"]
    )
    assert rec["values"] == {**template.validate_params("balanced"), "batch_size": 4}


def test_many_images_without_a_gpu_trade_resnet18_for_the_narrow_resnet():
    template = registry.get("object_detection")
    data: DataProfile = {"train_samples": 5_000, "classes": 3}
    on_cpu = recommend(template, "accurate", data, CPU)
    assert [(c["param"], c["preset_value"], c["value"]) for c in on_cpu["choices"]] == [
        ("model", "det_resnet18", "det_medium")
    ]
    assert "No GPU" in on_cpu["choices"][0]["reason"]
    on_gpu = recommend(template, "accurate", data, GPU)
    assert on_gpu["choices"] == [] and on_gpu["values"]["model"] == "det_resnet18"


def test_the_users_own_values_are_never_changed_nor_listed():
    template = registry.get("object_detection")
    data: DataProfile = {"train_samples": 5_000, "classes": 3}
    rec = recommend(template, "accurate", data, CPU, {"model": "det_resnet18", "epochs": 3, "seed": None})
    assert rec["values"]["model"] == "det_resnet18" and rec["values"]["epochs"] == 3
    assert rec["choices"] == []
    tiny = recommend(template, "balanced", {"train_samples": 20, "classes": 2}, CPU, {"batch_size": 16})
    assert tiny["values"]["batch_size"] == 16 and tiny["choices"] == []


def test_a_short_series_leaves_the_neural_candidate_out_of_accurate():
    template = registry.get("time_series_forecasting")
    short = recommend(template, "accurate", {"train_samples": 96, "classes": 0}, CPU)
    assert [(c["param"], c["preset_value"], c["value"]) for c in short["choices"]] == [
        ("neural", True, False)
    ]
    assert short["choices"][0]["reason"].startswith("96 training observations")
    assert recommend(template, "accurate", {"train_samples": 20_000, "classes": 0}, CPU)["choices"] == []
    assert recommend(template, "balanced", {"train_samples": 96, "classes": 0}, CPU)["choices"] == []


@pytest.mark.parametrize("name", [t.name for t in registry.all()])
def test_every_choice_of_every_template_validates_and_is_deterministic(name):
    template = registry.get(name)
    for preset in template.presets:
        for data in PROFILES:
            for hardware in (CPU, GPU, NO_WORKER):
                rec = recommend(template, preset.name, data, hardware)
                assert rec == recommend(template, preset.name, data.copy(), hardware.copy())
                assert template.validate_params(preset.name, rec["values"]) == rec["values"]
                declared = template.validate_params(preset.name)
                differing = [p.name for p in template.params if rec["values"][p.name] != declared[p.name]]
                assert [c["param"] for c in rec["choices"]] == differing
                for choice in rec["choices"]:
                    assert choice["preset_value"] == declared[choice["param"]]
                    assert choice["value"] == rec["values"][choice["param"]]
                    assert choice["reason"].strip() and not choice["reason"][0].islower()


LOCALES = Path(__file__).resolve().parents[2] / "frontend" / "src" / "i18n" / "locales"


def test_every_reason_has_a_code_the_ui_says_in_both_languages_with_its_values():
    """The UI shows a choice's reason in the user's language from ``reason_code`` (training.json
    ``reasons.<code>``); each code's placeholders are exactly the reason's values (``count`` is
    passed as ``n``)."""
    catalogs = {
        lang: json.loads((LOCALES / lang / "training.json").read_text())["reasons"]
        for lang in ("en", "zh-CN")
    }
    seen: dict[str, set[str]] = {}
    for template in registry.all():
        for preset in template.presets:
            for data in PROFILES + [
                {"train_samples": 20, "classes": 2},
                {"train_samples": 2500, "classes": 4},
            ]:
                for hardware in (CPU, GPU, NO_WORKER):
                    for choice in recommend(template, preset.name, data, hardware)["choices"]:
                        assert choice.get("reason_code"), (
                            f"{template.name}: {choice['param']} has no reason code"
                        )
                        names = {"n" if k == "count" else k for k in choice.get("reason_params", {})}
                        seen.setdefault(choice["reason_code"], set()).update(names)
    assert len(seen) >= 8  # the rules of five templates say why in many ways
    for code, names in seen.items():
        for lang, catalog in catalogs.items():
            assert code in catalog, f"training.json ({lang}) has no reasons.{code}"
            placeholders = set(re.findall(r"{{(\w+)}}", catalog[code]))
            assert placeholders <= names, f"{lang} reasons.{code} uses {placeholders - names}, not given"
    for code in ("cv_asked", "cv_small_data"):  # the cross-validation reasons of workers.shared.validation
        assert all(code in catalog for catalog in catalogs.values())


def test_a_template_without_a_rule_gives_no_choices():
    template = dataclasses.replace(registry.get("object_detection"), adapt=None)
    rec = recommend(template, "balanced", {"train_samples": 3, "classes": 1}, CPU)
    assert rec["choices"] == [] and rec["values"] == template.validate_params("balanced")


def test_a_rule_that_proposes_an_unknown_or_invalid_value_is_a_declaration_error():
    base = registry.get("object_detection")
    unknown = dataclasses.replace(base, adapt=lambda values, data, hardware: {"depth": (3, "Why not.")})
    with pytest.raises(ValueError, match="'depth', which is not a parameter"):
        recommend(unknown, "fast", {"train_samples": 100, "classes": 2}, CPU)
    invalid = dataclasses.replace(base, adapt=lambda values, data, hardware: {"image_size": (100, "Odd.")})
    with pytest.raises(ValueError, match="image_size: must be a multiple of 32"):
        recommend(invalid, "fast", {"train_samples": 100, "classes": 2}, CPU)


def test_bad_presets_and_overrides_are_named_as_validate_params_names_them():
    template = registry.get("object_detection")
    with pytest.raises(TemplateParamError) as bad_preset:
        recommend(template, "huge", {"train_samples": 10, "classes": 1}, CPU)
    assert bad_preset.value.field == "preset"
    with pytest.raises(TemplateParamError) as bad_param:
        recommend(template, "fast", {"train_samples": 10, "classes": 1}, CPU, {"batch_size": 1})
    assert bad_param.value.field == "batch_size"


def test_cpu_hardware_is_this_machine_without_a_gpu():
    hardware = cpu_hardware()
    assert hardware["gpus"] == 0 and hardware["workers"] == 1 and hardware["cpu_count"] >= 1
