"""Forecasting versions: the horizon is required, the split is by time (each series' last horizon
steps test, the horizon before validation, series too short for both train only), the version says
how many observations and series each split has, and the manifest holds every series on its
regular grid (None for gaps) with known and static covariates, unchanged by later imports. The
compute plane's loader reads the manifest back."""

from __future__ import annotations

import numpy as np
import pytest
from datasets.models import DatasetVersion, VersionSample
from datasets.services import dataset_version_check_trainable, dataset_version_manifest

from tests.datasets.factories import upload
from workers.time_series import bundled
from workers.time_series.data import load_series

pytestmark = [pytest.mark.openapi_conformance, pytest.mark.django_db]

DATASETS = "/api/v1/datasets/"


def forecasting_dataset(client, tenants, name: str = "Stores") -> int:
    response = client.post(
        DATASETS,
        {"project": tenants["project_a"].pk, "name": name, "task_type": "time_series_forecasting"},
        format="json",
    )
    assert response.status_code == 201, response.content
    return response.json()["id"]


def import_csv(client, dataset_id: int, text: str, **mapping):
    response = client.post(
        f"{DATASETS}{dataset_id}/imports/",
        {"file": upload("series.csv", text.encode()), **mapping},
        format="multipart",
    )
    assert response.status_code == 201, response.content
    return response.json()


def stores_csv() -> str:
    """Store a: 20 days (2024-01-01..20) with a gap on 01-10; store b: 6 days (too short for h=3);
    price known, region static."""
    lines = ["date,store,sales,price,region"]
    for day in range(1, 21):
        if day != 10:
            lines.append(f"2024-01-{day:02d},a,{day * 10},{1 + day % 2},north")
    for day in range(5, 11):
        lines.append(f"2024-01-{day:02d},b,{day},2.5,south")
    return "\n".join(lines) + "\n"


def test_split_by_time_and_the_manifest(tenants, api_client, isolated_storage):
    client = api_client(tenants["alice"])
    dataset_id = forecasting_dataset(client, tenants)
    import_csv(
        client,
        dataset_id,
        stores_csv(),
        series_column="store",
        target_columns=["sales"],
        known_covariates=["price"],
        static_covariates=["region"],
    )
    versions = f"{DATASETS}{dataset_id}/versions/"
    missing = client.post(versions, {}, format="json")
    assert missing.status_code == 400 and missing.json()["error"]["code"] == "horizon_required"
    too_long = client.post(versions, {"horizon": 10}, format="json")
    assert too_long.status_code == 400, too_long.content
    error = too_long.json()["error"]
    assert error["code"] == "horizon_too_long" and error["details"]["series"] == "a"
    assert "'a'" in error["message"] and error["details"]["needed"] == 22
    assert not DatasetVersion.objects.filter(dataset_id=dataset_id).exists()

    made = client.post(versions, {"horizon": 3, "note": "h3"}, format="json")
    assert made.status_code == 201, made.content
    version = made.json()
    assert version["horizon"] == 3
    assert version["time_split"] == {
        "horizon": 3,
        "observations": {"train": 13 + 6, "val": 3, "test": 3},
        "series": {"train": 2, "val": 1, "test": 1},
        "train_only_series": 1,
    }
    assert version["totals"] == {"train": 19, "val": 3, "test": 3}
    assert client.get(f"{versions}{version['id']}/").json()["time_split"]["horizon"] == 3
    splits = dict(
        VersionSample.objects.filter(version_id=version["id"])
        .values_list("values__date", "split")
        .filter(values__store="a")
    )
    assert (
        splits["2024-01-14"] == "train" and splits["2024-01-15"] == "val" and splits["2024-01-18"] == "test"
    )

    stored = DatasetVersion.objects.get(pk=version["id"])
    dataset_version_check_trainable(version=stored, min_per_class=1)
    manifest = dataset_version_manifest(version=stored)
    assert manifest["kind"] == "time_series" and manifest["horizon"] == 3 and manifest["frequency"] == "D"
    assert manifest["series_column"] == "store" and manifest["known_covariates"] == ["price"]
    entries = {e["id"]: e for e in manifest["series"]}
    a, b = entries["a"], entries["b"]
    assert a["start"] == "2024-01-01" and len(a["values"]) == 20
    assert a["values"][8] == 90.0 and a["values"][9] is None  # the gap on 01-10
    assert (a["val_start"], a["test_start"]) == (14, 17)
    assert a["known"]["price"][:3] == [2.0, 1.0, 2.0] and a["known"]["price"][9] is None
    assert a["static"] == {"region": "north"} and b["static"] == {"region": "south"}
    assert b["start"] == "2024-01-05" and (b["val_start"], b["test_start"]) == (6, 6)  # train only

    # the compute plane reads it: the gap filled (interpolated) and remembered as unobserved
    frequency, series = load_series(manifest)
    loaded = {s.id: s for s in series}
    assert frequency.alias == "D" and loaded["a"].values[9] == pytest.approx(100.0)
    assert not loaded["a"].observed[9] and loaded["a"].observed.sum() == 19

    # a later import changes the dataset, not the version
    import_csv(client, dataset_id, "date,store,sales,price,region\n2024-01-21,a,210,1,north\n")
    again = dataset_version_manifest(version=DatasetVersion.objects.get(pk=version["id"]))
    assert again == manifest
    newer = client.post(versions, {"horizon": 3}, format="json").json()
    assert newer["name"] == "V2" and newer["time_split"]["observations"]["train"] == 20


def test_co2_weekly_with_missing_values_gives_a_trainable_manifest(tenants, api_client, isolated_storage):
    client = api_client(tenants["alice"])
    dataset_id = forecasting_dataset(client, tenants, "CO2")
    text = bundled.to_csv("co2")
    batch = import_csv(client, dataset_id, text)
    schema = client.get(f"{DATASETS}{dataset_id}/").json()["schema"]
    assert schema["frequency"] == bundled.real_series("co2")[0] == "W" and schema["target_columns"] == [
        "value"
    ]
    profile = client.get(f"{DATASETS}{dataset_id}/profile/").json()
    series = profile["series"][0]
    assert series["missing"] > 0 and series["seasonal_strength"] > 0.9 and series["trend_strength"] > 0.9
    assert batch["failed"] == 0
    version = client.post(f"{DATASETS}{dataset_id}/versions/", {"horizon": 52}, format="json").json()
    manifest = dataset_version_manifest(version=DatasetVersion.objects.get(pk=version["id"]))
    (entry,) = manifest["series"]
    n = len(entry["values"])
    assert entry["id"] == "value" and (entry["val_start"], entry["test_start"]) == (n - 104, n - 52)
    _, (loaded,) = load_series(manifest)
    assert np.isfinite(loaded.values).all()


def test_labels_and_quality_reports_are_refused_and_the_export_holds_the_rows(
    tenants, api_client, isolated_storage
):
    import csv
    import io
    import zipfile

    client = api_client(tenants["alice"])
    dataset_id = forecasting_dataset(client, tenants)
    import_csv(client, dataset_id, stores_csv(), series_column="store", known_covariates=["price"])
    label = client.post(f"{DATASETS}{dataset_id}/labels/", {"name": "x"}, format="json")
    assert label.status_code == 400 and label.json()["error"]["code"] == "not_for_forecasting"
    quality = client.post(f"{DATASETS}{dataset_id}/quality-reports/", {}, format="json")
    assert quality.status_code == 400 and quality.json()["error"]["code"] == "not_for_forecasting"
    exported = client.get(f"{DATASETS}{dataset_id}/export/")
    assert exported.status_code == 200
    with zipfile.ZipFile(io.BytesIO(b"".join(exported.streaming_content))) as archive:
        rows = list(csv.DictReader(io.StringIO(archive.read("data.csv").decode())))
    assert len(rows) == 25 and set(rows[0]) == {"date", "store", "sales", "price", "split"}
    assert rows[0]["date"] == "2024-01-01" and rows[0]["sales"] == "10.0"
