"""Tabular datasets through the API: CSV, XLSX and Parquet imports with schema inference, the
data profile, versions and the formula-safe export; every bad file a clear 4xx with nothing stored."""

from __future__ import annotations

import csv
import io
import zipfile

import pytest
from datasets.models import ImportBatch, Sample

from tests.datasets.factories import upload
from tests.templates_tabular.tables import csv_bytes, frame, parquet_bytes, xlsx_bytes

pytestmark = [pytest.mark.openapi_conformance, pytest.mark.django_db]


def new_dataset(client, tenants, task_type: str, name: str = "Table") -> int:
    response = client.post(
        "/api/v1/datasets/",
        {"project": tenants["project_a"].pk, "name": name, "task_type": task_type},
        format="json",
    )
    assert response.status_code == 201, response.content
    return response.json()["id"]


def import_file(client, dataset_id: int, name: str, data: bytes, **fields):
    return client.post(
        f"/api/v1/datasets/{dataset_id}/imports/", {"file": upload(name, data), **fields}, format="multipart"
    )


def error(response) -> dict:
    return response.json()["error"]


def test_wine_csv_import_infers_the_schema_profiles_and_versions(tenants, api_client, isolated_storage):
    client = api_client(tenants["alice"])
    dataset_id = new_dataset(client, tenants, "tabular_classification", "Wine")
    preview = client.post(
        f"/api/v1/datasets/{dataset_id}/imports/preview/",
        {"file": upload("wine.csv", csv_bytes("wine"))},
        format="multipart",
    )
    assert preview.status_code == 200, preview.content
    assert preview.json()["suggested"] == {"target_column": "target"}
    types = {c["name"]: c["type"] for c in preview.json()["columns"]}
    assert types["alcohol"] == "numeric" and types["target"] == "categorical"
    assert not Sample.objects.exists(), "a preview stores nothing"

    imported = import_file(client, dataset_id, "wine.csv", csv_bytes("wine"), target_column="target")
    assert imported.status_code == 201, imported.content
    batch = imported.json()
    assert (
        batch["imported"] == 178
        and batch["failed"] == 0
        and sorted(batch["labels_created"]) == ["class_0", "class_1", "class_2"]
    )
    assert batch["mapping"]["target_column"] == "target" and batch["mapping"]["format"] == "csv"

    dataset = client.get(f"/api/v1/datasets/{dataset_id}/").json()
    assert dataset["schema"]["target"] == "target" and len(dataset["schema"]["columns"]) == 13
    assert dataset["labeled_count"] == 178
    profile = client.get(f"/api/v1/datasets/{dataset_id}/profile/").json()
    assert profile["rows"] == 178
    alcohol = next(c for c in profile["columns"] if c["name"] == "alcohol")
    wine = frame("wine")
    assert alcohol["min"] == pytest.approx(wine["alcohol"].min()) and alcohol["max"] == pytest.approx(
        wine["alcohol"].max()
    )
    assert sum(alcohol["histogram"]["counts"]) == 178 and alcohol["missing"] == 0
    assert {c["value"]: c["count"] for c in profile["target"]["classes"]} == wine[
        "target"
    ].value_counts().to_dict()

    sample = client.get(f"/api/v1/datasets/{dataset_id}/samples/?page_size=1").json()["results"][0]
    assert (
        sample["values"]["alcohol"] == pytest.approx(wine["alcohol"][0]) and sample["label_name"] == "class_0"
    )

    again = import_file(client, dataset_id, "wine.csv", csv_bytes("wine"))  # the target is remembered
    assert again.status_code == 201 and again.json()["imported"] == 0 and again.json()["duplicates"] == 178

    version = client.post(f"/api/v1/datasets/{dataset_id}/versions/", {"seed": 3}, format="json").json()
    assert version["classes"] == ["class_0", "class_1", "class_2"] and version["sample_count"] == 178
    from datasets.models import DatasetVersion
    from datasets.services import dataset_version_manifest

    assert DatasetVersion.objects.get(pk=version["id"]).schema["target"] == "target"
    manifest = dataset_version_manifest(version=DatasetVersion.objects.get(pk=version["id"]))
    assert manifest["kind"] == "tabular" and manifest["task"] == "classification"
    assert len(manifest["samples"]) == 178 and set(manifest["samples"][0]["values"]) == set(wine.columns) - {
        "target"
    }


def test_xlsx_and_parquet_imports_and_regression_targets(tenants, api_client, isolated_storage):
    client = api_client(tenants["alice"])
    cancer = new_dataset(client, tenants, "tabular_classification", "Cancer")
    response = import_file(
        client, cancer, "cancer.xlsx", xlsx_bytes("breast_cancer", rows=60), target_column="target"
    )
    assert response.status_code == 201, response.content
    assert response.json()["imported"] == 60 and response.json()["mapping"]["format"] == "xlsx"

    diabetes = new_dataset(client, tenants, "tabular_regression", "Diabetes")
    response = import_file(
        client, diabetes, "diabetes.parquet", parquet_bytes("diabetes"), target_column="target"
    )
    assert response.status_code == 201, response.content
    assert response.json()["imported"] == 442 and response.json()["labels_created"] == []
    profile = client.get(f"/api/v1/datasets/{diabetes}/profile/").json()
    assert profile["target"]["type"] == "numeric" and profile["target"]["min"] == pytest.approx(
        frame("diabetes")["target"].min()
    )
    version = client.post(f"/api/v1/datasets/{diabetes}/versions/", {"seed": 1}, format="json").json()
    assert version["classes"] == [] and sum(version["totals"].values()) == 442
    assert (
        version["counts"]["train"] == {"rows": round(442 * 0.8)}
        or sum(version["counts"]["train"].values()) > 300
    )


def test_bad_tables_are_refused_naming_the_problem(tenants, api_client, isolated_storage, settings):
    client = api_client(tenants["alice"])
    dataset_id = new_dataset(client, tenants, "tabular_classification")

    no_target = import_file(client, dataset_id, "t.csv", b"a,b\n1,x\n2,y\n")
    assert no_target.status_code == 400 and error(no_target)["code"] == "no_target_column"
    empty = import_file(client, dataset_id, "t.csv", b"a,y\n1,\n2,\n3,NA\n", target_column="y")
    assert empty.status_code == 400 and error(empty)["code"] == "empty_target"
    assert "'y' is empty in every row" in error(empty)["message"]
    one = import_file(client, dataset_id, "t.csv", b"a,y\n1,cat\n2,cat\n", target_column="y")
    assert (
        one.status_code == 400 and error(one)["code"] == "single_class" and "'cat'" in error(one)["message"]
    )
    missing = import_file(client, dataset_id, "t.csv", b"a,y\n1,cat\n", target_column="label")
    assert missing.status_code == 400 and "no column named 'label'" in error(missing)["message"]
    garbage = bytes(range(0x80, 0x100)) * 40 + bytes(range(0x20)) * 40
    unreadable = import_file(client, dataset_id, "t.csv", b"a,y\n1,cat\n2,dog\n" + garbage, target_column="y")
    assert unreadable.status_code == 400 and error(unreadable)["code"] == "bad_encoding"
    assert "line 4" in error(unreadable)["message"], error(unreadable)["message"]
    wrong_format = import_file(client, dataset_id, "t.pdf", b"%PDF-1.4", target_column="y")
    assert wrong_format.status_code == 400 and error(wrong_format)["code"] == "unsupported_format"

    regression = new_dataset(client, tenants, "tabular_regression", "Reg")
    words = import_file(client, regression, "r.csv", b"a,y\n1,2.5\n2,high\n3,4\n", target_column="y")
    assert words.status_code == 400 and error(words)["code"] == "non_numeric_target"
    assert "row 2 has 'high'" in error(words)["message"]

    settings.SAMPAN_DATASET_MAX_TABLE_BYTES = 1024
    big = import_file(client, dataset_id, "big.csv", b"a,y\n" + b"1,cat\n2,dog\n" * 200, target_column="y")
    assert big.status_code == 413 and error(big)["code"] == "upload_too_large"
    assert "SAMPAN_DATASET_MAX_TABLE_BYTES" in error(big)["message"]

    images = client.post(
        f"/api/v1/datasets/{dataset_id}/imports/", {"files": [upload("a.png", b"x")]}, format="multipart"
    )
    assert images.status_code == 400 and error(images)["code"] == "wrong_import_kind"
    assert not Sample.objects.exists() and not ImportBatch.objects.exists()


def test_formula_cells_are_stored_as_text_and_escaped_on_export(tenants, api_client, isolated_storage):
    client = api_client(tenants["alice"])
    dataset_id = new_dataset(client, tenants, "tabular_classification")
    body = b'amount,note,y\n-3.5,"=HYPERLINK(""http://x"",""a"")",cat\n2,+1+2,dog\n4,plain,cat\n'
    response = import_file(client, dataset_id, "f.csv", body, target_column="y")
    assert response.status_code == 201, response.content
    stored = Sample.objects.get(original_name="row 1")
    assert stored.values == {"amount": -3.5, "note": '=HYPERLINK("http://x","a")'}
    exported = client.get(f"/api/v1/datasets/{dataset_id}/export/")
    assert exported.status_code == 200
    with zipfile.ZipFile(io.BytesIO(b"".join(exported.streaming_content))) as archive:
        rows = list(csv.reader(io.StringIO(archive.read("data.csv").decode())))
    assert rows[0] == ["amount", "note", "y", "split"]
    assert rows[1] == ["-3.5", '\'=HYPERLINK("http://x","a")', "cat", ""]
    assert rows[2][1] == "'+1+2"


def test_a_cp1252_file_is_detected_and_read(tenants, api_client, isolated_storage):
    client = api_client(tenants["alice"])
    dataset_id = new_dataset(client, tenants, "tabular_classification")
    body = "city,y\nZürich café crème,yes\nMünchen,no\nSão Paulo,yes\n".encode("cp1252")
    response = import_file(client, dataset_id, "c.csv", body, target_column="y")
    assert response.status_code == 201, response.content
    assert response.json()["mapping"]["encoding"] != "utf-8"
    assert Sample.objects.get(original_name="row 1").values == {"city": "Zürich café crème"}
