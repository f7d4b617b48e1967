"""The tabular predict endpoint holds rows to the model's contract instead of imputing silently:
a misspelled or unknown column and a wrong type ("abc", a list in a numeric column) are a 400 naming
the column; a missing value (absent, null, NaN) is imputed only in a column whose training data had
gaps, and each prediction names the columns it imputed. Through the live gunicorn (WSGI fast path)."""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path

import pytest
import requests

from tests.deploy.factories import deployment_with_key

COLUMNS = [
    {"name": "size", "type": "numeric"},
    {"name": "weight", "type": "numeric"},
    {"name": "colour", "type": "categorical"},
    {"name": "shape", "type": "categorical"},
]
ROW = {"size": 8.0, "weight": 1.2, "colour": "x", "shape": "round"}


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """A classifier whose training data had gaps in `size` (numeric) and `colour` (categorical) only."""
    from workers.tabular.trainer import train

    rng = random.Random(3)
    samples = []
    for i in range(240):
        label = i % 2
        values = {
            "size": None if i % 6 == 0 else rng.gauss(5 + 3 * label, 1),
            "weight": rng.gauss(label, 1),
            "colour": None if i % 7 == 0 else rng.choice(["x", "y"]),
            "shape": ["square", "round"][label] if rng.random() < 0.9 else ["square", "round"][1 - label],
        }
        samples.append(
            {"id": i, "split": "test" if i % 5 == 0 else "train", "values": values, "label": label}
        )
    manifest = {
        "kind": "tabular",
        "task": "classification",
        "target": "kind",
        "columns": COLUMNS,
        "classes": ["small", "big"],
        "samples": samples,
    }
    return train({"preset": "fast"}, manifest, tmp_path_factory.mktemp("contract") / "run")


@pytest.fixture
def endpoint(live_web, tenants, trained):
    from django.core.files.base import ContentFile
    from django.core.files.storage import default_storage
    from training.models import ModelVersion

    project = tenants["project_a"]
    data = Path(trained["onnx"]).read_bytes()
    key = default_storage.save(f"models/project-{project.pk}/tabular/model.onnx", ContentFile(data))
    version = ModelVersion.objects.create(
        workspace=project.workspace,
        project=project,
        number=1,
        template="tabular_classification",
        preset="fast",
        params={"model": "gbdt"},
        classes=trained["classes"],
        preprocessing=trained["preprocessing"],
        onnx_key=key,
        onnx_sha256=hashlib.sha256(data).hexdigest(),
        metrics={},
    )
    deployment, _, secret = deployment_with_key(tenants, version, name="rows")
    url = f"{live_web}/api/v1/deployments/{deployment.pk}/predict/"

    def send(body: bytes | list) -> requests.Response:
        data = body if isinstance(body, bytes) else json.dumps({"instances": body, "top_k": 2}).encode()
        return requests.post(
            url,
            data=data,
            timeout=30,
            headers={"Authorization": f"Bearer {secret}", "Content-Type": "application/json"},
        )

    return send


def refused(response: requests.Response, code: str, column: str) -> str:
    assert response.status_code == 400, (response.status_code, response.text[:400])
    error = response.json()["error"]
    assert error["code"] == code, error
    assert repr(column) in error["message"] and column in error["details"]["columns"], error
    return error["message"]


pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def test_unknown_columns_and_wrong_types_are_400_naming_the_column(endpoint):
    message = refused(endpoint([{**ROW, "wieght": 1.2}]), "unknown_column", "wieght")
    assert "did you mean 'weight'" in message
    refused(
        endpoint([ROW, {"size": 8.0, "weight": 1.0, "colour": "x", "shape": "round", "extra": 1}]),
        "unknown_column",
        "extra",
    )
    assert "instances[1]" in refused(
        endpoint([ROW, {"size": 8.0, "weight": 1.0, "colour": "x", "shape": "round", "extra": 1}]),
        "unknown_column",
        "extra",
    )
    refused(endpoint([{**ROW, "weight": "abc"}]), "invalid_value", "weight")
    refused(endpoint([{**ROW, "size": [1, 2]}]), "invalid_value", "size")
    refused(endpoint([{**ROW, "weight": True}]), "invalid_value", "weight")
    refused(endpoint([{**ROW, "colour": {"r": 1}}]), "invalid_value", "colour")
    # numbers as strings (as a CSV holds them) are numbers
    assert endpoint([{**ROW, "weight": "1.2"}]).status_code == 200


def test_a_missing_value_is_imputed_only_where_training_had_gaps_and_is_reported(endpoint):
    answer = endpoint([ROW, {"weight": 1.2, "shape": "round"}, {**ROW, "size": None, "colour": ""}])
    assert answer.status_code == 200, answer.text
    assert [p["imputed"] for p in answer.json()["predictions"]] == [
        [],
        ["size", "colour"],
        ["size", "colour"],
    ]
    # NaN (Python's json writes it for a float nan) is missing too, under the same rule
    nan = endpoint(b'{"instances": [{"size": NaN, "weight": 1.2, "colour": "x", "shape": "round"}]}')
    assert nan.status_code == 200 and nan.json()["predictions"][0]["imputed"] == ["size"], nan.text
    # the target column, if a row carries it, is ignored
    assert endpoint([{**ROW, "kind": "big"}]).json()["predictions"][0]["imputed"] == []
    # columns without gaps in training are required
    message = refused(endpoint([{"size": 8.0, "colour": "x", "shape": "round"}]), "missing_column", "weight")
    assert "may be missing: size, colour" in message
    refused(endpoint([{**ROW, "shape": None}]), "missing_column", "shape")
    refused(
        endpoint(b'{"instances": [{"size": 1, "weight": NaN, "colour": "x", "shape": "round"}]}'),
        "missing_column",
        "weight",
    )


def test_the_contract_is_the_packages_too(trained, tmp_path):
    """The server package's vendored predictor and its README say and do the same."""
    from tests.packages.packaging_support import unzip_package
    from workers.packaging import ModelArtifacts, build_server_package

    rows = [dict(ROW), {"weight": 0.1, "shape": "square"}, {**ROW, "weight": None}, {**ROW, "unused": "x"}]
    artifacts = ModelArtifacts(
        trained["onnx"],
        trained["preprocessing"],
        trained["classes"],
        "tabular_classification",
        {"id": 1, "name": "V1"},
        test_instances=rows,
        test_labels=[1, 0, 1, 1],
    )
    build_server_package(artifacts=artifacts, out_path=tmp_path / "server.zip")
    root = unzip_package(tmp_path / "server.zip", tmp_path / "server")
    readme = (root / "README.md").read_text()
    assert "In this model: `size`, `colour`; every other column is required." in readme
    assert "`imputed`" in readme and "unknown_column" in readme
    vectors = json.loads((root / "test_vectors" / "expected.json").read_text())["vectors"]
    # the row lacking a required value is left out; the unused column is dropped from the one that had it
    got = sorted(json.dumps(v["instance"], sort_keys=True) for v in vectors)  # picked class by class
    assert got == sorted(
        json.dumps(r, sort_keys=True) for r in [ROW, {"weight": 0.1, "shape": "square"}, ROW]
    )
