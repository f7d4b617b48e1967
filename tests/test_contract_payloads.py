"""The compute plane produces its contracts: template descriptions, preprocessing specs and prediction
answers validate against the serializers built from workers.contracts (the same ones the OpenAPI
schema describes), and the search-space serializer refuses a bad dimension by its path."""

from __future__ import annotations

import json

import numpy as np
import pytest
from automl.search_space import search_space_validate
from config.contract_fields import PreprocessingField
from config.contracts import contract_serializer
from config.exceptions import InvalidInput

from workers.contracts import prediction, preprocessing, templates
from workers.image_classification.preprocessing import (
    PreprocessingSpecError,
    make_spec,
    preprocess_numpy,
    validate_spec,
)
from workers.serving.protocol import response_body
from workers.tabular.encoding import encode, fit_encoder
from workers.templates import registry
from workers.text_classification.tokenization import make_spec as text_spec


def _valid(contract: type, payload: object) -> dict:
    serializer = contract_serializer(contract)(data=payload)
    assert serializer.is_valid(), serializer.errors
    return serializer.validated_data


@pytest.mark.parametrize("template", registry.all(), ids=lambda t: t.name)
def test_every_template_describes_itself_by_the_contract(template):
    described = template.as_dict()
    assert described["kind"] == "template" and described["version"] == templates.TEMPLATE_VERSION
    _valid(templates.TemplateDescription, json.loads(json.dumps(described)))
    for dimension in described["search_space"]:
        _valid(templates.SearchDimension, dimension)
    numeric = [p for p in described["params"] if p["type"] in ("int", "float")]
    assert numeric and all({"minimum", "maximum", "log"} <= set(p) for p in numeric)


def test_a_description_missing_a_field_or_with_a_bad_type_is_refused():
    described = json.loads(json.dumps(registry.get("image_classification").as_dict()))
    serializer = contract_serializer(templates.TemplateDescription)
    assert not serializer(
        data={**described, "params": [{**described["params"][0], "type": "list"}]}
    ).is_valid()
    del described["objective"]
    missing = serializer(data=described)
    assert not missing.is_valid() and "objective" in missing.errors


def test_image_specs_carry_their_kind_and_older_specs_are_read_as_image_specs():
    spec = make_spec([24, 40], resize_mode="center_crop", crop_fraction=0.875)
    assert (spec["kind"], spec["version"]) == ("image", preprocessing.PREPROCESSING_VERSION)
    _valid(preprocessing.ImagePreprocessing, spec)
    legacy = {k: v for k, v in spec.items() if k not in ("kind", "version")}
    assert validate_spec(legacy) == spec  # a preprocess.json written before kind existed
    assert preprocessing.with_kind(legacy) == spec
    assert PreprocessingField().to_representation(legacy) == spec
    assert PreprocessingField().to_representation({}) is None
    with pytest.raises(PreprocessingSpecError):
        validate_spec({**spec, "kind": "text"})
    from PIL import Image

    pixels = preprocess_numpy(Image.new("RGB", (50, 30), (10, 200, 30)), spec)
    assert pixels.shape == (3, 24, 40)  # the added keys change nothing in what the spec does


def test_text_and_table_specs_follow_their_contracts():
    text = text_spec(max_length=64, output="probabilities", tokenizer_text='{"model": {}}')
    _valid(preprocessing.TextPreprocessing, text)
    rows = [{"age": 30, "city": "Bern", "when": "2024-01-02"}, {"age": None, "city": "Zurich", "when": ""}]
    columns = [{"name": "age", "type": "numeric"}, {"name": "city", "type": "categorical"}]
    encoding = fit_encoder([*columns, {"name": "when", "type": "datetime"}], rows)
    assert (encoding["kind"], encoding["version"]) == ("tabular", preprocessing.PREPROCESSING_VERSION)
    _valid(preprocessing.TableEncoding, encoding)
    shipped = {**encoding, "task": "regression", "input": "features", "output": "value", "target": "price"}
    _valid(preprocessing.TablePreprocessing, shipped)
    assert encode(shipped, rows).shape == (2, encoding["width"])


def test_prediction_answers_follow_the_contract_per_task():
    model_version = {"id": 3, "name": "V3", "template": "tabular_regression"}
    regression = json.loads(
        response_body(
            kind="regression_prediction",
            model_version=model_version,
            predictions=[[{"value": 42.5}]],
            details=[{"imputed": ["rooms"]}],
            latency_ms=0.1234,
        )
    )
    assert set(regression) == {"kind", "version", "model_version", "predictions", "latency_ms"}
    assert (regression["kind"], regression["version"]) == ("regression_prediction", 1)
    _valid(prediction.PredictionModelVersion, regression["model_version"])
    _valid(prediction.RegressionPrediction, regression["predictions"][0])
    classification = json.loads(
        response_body(
            kind="classification_prediction",
            model_version={**model_version, "template": "image_classification"},
            predictions=[[{"label": "cat", "index": 0, "score": float(np.float32(0.75))}]],
            latency_ms=1.0,
        )
    )
    _valid(prediction.ClassificationPrediction, classification["predictions"][0])
    assert classification["kind"] == "classification_prediction"
    assert not contract_serializer(prediction.ClassificationPrediction)(
        data=regression["predictions"][0]
    ).is_valid()
    _valid(prediction.TableInstances, {"instances": [{"rooms": 3, "city": None, "new": True}], "top_k": 2})


def _space(*dimensions: dict, fixed: dict | None = None) -> list:
    template = registry.get("image_classification")
    return search_space_validate(
        template=template,
        preset="fast",
        fixed_params={"seed": 0, **(fixed or {})},
        search_space=list(dimensions),
    )


def test_the_search_space_serializer_keeps_canonical_dimensions():
    space = _space(
        {"name": "learning_rate", "type": "float", "low": 1e-4, "high": 1e-2, "log": True},
        {"name": "epochs", "type": "int", "low": 2.0, "high": 4},
        {"name": "augmentation", "type": "categorical", "choices": ["light", "strong"]},
    )
    assert space == [
        {"name": "learning_rate", "type": "float", "low": 1e-4, "high": 1e-2, "log": True},
        {"name": "epochs", "type": "int", "low": 2, "high": 4, "log": False},
        {"name": "augmentation", "type": "categorical", "choices": ["light", "strong"]},
    ]
    assert isinstance(space[1]["low"], int)


@pytest.mark.parametrize(
    ("dimensions", "field"),
    [
        (["epochs"], "search_space[0]"),
        ([{"name": "learning_rate", "type": "float", "low": "0.1", "high": 1}], "search_space[0].low"),
        (
            [{"name": "learning_rate", "type": "float", "low": 0.001, "high": 0.1, "log": "yes"}],
            "search_space[0].log",
        ),
        ([{"name": "learning_rate", "type": "normal", "low": 0.001, "high": 0.1}], "search_space[0].type"),
        (
            [{"name": "augmentation", "type": "categorical", "choices": ["light", None]}],
            "search_space[0].choices",
        ),
        ([{"name": "epochs", "type": "int", "low": 2.5, "high": 4}], "search_space[0].low"),
        (
            [
                {"name": "epochs", "type": "int", "low": 2, "high": 4},
                {"name": "epochs", "type": "int", "low": 3, "high": 5},
            ],
            "search_space[1].name",
        ),
        ([{"name": "seed", "type": "int", "low": 0, "high": 5}], "search_space[0].name"),
    ],
)
def test_the_search_space_serializer_names_the_bad_field(dimensions, field):
    with pytest.raises(InvalidInput) as caught:
        _space(*dimensions)
    assert list(caught.value.details) == [field], caught.value.details
    assert caught.value.message.startswith(f"{field}: ")
