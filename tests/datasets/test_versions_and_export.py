"""Dataset versions are immutable snapshots with a stratified split that the seed reproduces;
the manifest and the trainability check serve the training service; the export zip re-imports
to the same classes and counts, with a formula-safe CSV manifest."""

from __future__ import annotations

import csv
import io
import os
import zipfile
from collections import Counter

import pytest
from config.exceptions import InvalidInput
from datasets.models import DatasetVersion, Label, Sample, VersionSample
from datasets.services import dataset_create
from datasets.services.export import csv_cell
from datasets.services.labels import label_delete, label_merge, label_update
from datasets.services.versions import (
    dataset_version_check_trainable,
    dataset_version_create,
    dataset_version_manifest,
    stratified_split,
)

from tests.datasets.factories import dataset_with_samples, digit_bytes, upload

pytestmark = pytest.mark.django_db


@pytest.fixture
def ten_per_class(tenants, api_client, isolated_storage):
    dataset = dataset_with_samples(
        user=tenants["alice"], project=tenants["project_a"], per_class=10, classes=range(3), unlabeled=4
    )
    return {
        "dataset": dataset,
        "client": api_client(tenants["alice"]),
        "url": f"/api/v1/datasets/{dataset.pk}/versions/",
    }


def split_of(version: DatasetVersion) -> dict[int, str]:
    return dict(VersionSample.objects.filter(version=version).values_list("sample_id", "split"))


def test_version_is_stratified_and_reproducible(ten_per_class):
    client, url = ten_per_class["client"], ten_per_class["url"]
    body = {"train_ratio": 0.6, "val_ratio": 0.2, "test_ratio": 0.2, "seed": 42}
    first = client.post(url, body, format="json")
    assert first.status_code == 201, first.json()
    v1 = first.json()
    assert (v1["name"], v1["number"], v1["seed"], v1["classes"]) == ("V1", 1, 42, ["0", "1", "2"])
    assert v1["counts"] == {
        "train": {"0": 6, "1": 6, "2": 6},
        "val": {"0": 2, "1": 2, "2": 2},
        "test": {"0": 2, "1": 2, "2": 2},
    }
    assert v1["totals"] == {"train": 18, "val": 6, "test": 6}
    assert (v1["sample_count"], v1["unlabeled_excluded"]) == (30, 4)
    same = client.post(url, body, format="json").json()
    other = client.post(url, {**body, "seed": 43}, format="json").json()
    assert same["name"] == "V2" and other["name"] == "V3"
    versions = {v.number: v for v in DatasetVersion.objects.filter(dataset=ten_per_class["dataset"])}
    assert split_of(versions[1]) == split_of(versions[2]), "the same seed must give the same split"
    assert split_of(versions[1]) != split_of(versions[3])
    listed = client.get(url).json()["results"]
    assert [v["name"] for v in listed] == ["V3", "V2", "V1"]
    assert client.get(f"{url}{v1['id']}/").json() == v1


def test_small_classes_still_fill_every_split():
    members = {name: list(range(i * 100, i * 100 + 6)) for i, name in enumerate("abc")}
    split = stratified_split(members=members, ratios=(0.8, 0.1, 0.1), seed=5)
    assert Counter(split.values()) == {"train": 14, "val": 2, "test": 2}
    for name, ids in members.items():  # each class within one sample of its own share
        per_class = Counter(split[i] for i in ids)
        assert 4 <= per_class["train"] <= 5 and per_class["val"] <= 1 and per_class["test"] <= 1, (
            name,
            per_class,
        )
    assert stratified_split(members=members, ratios=(0.8, 0.1, 0.1), seed=5) == split
    exact = stratified_split(
        members={"a": list(range(8)), "b": list(range(100, 108))}, ratios=(0.5, 0.25, 0.25), seed=5
    )
    assert Counter(exact[i] for i in range(8)) == {"train": 4, "val": 2, "test": 2}
    assert set(stratified_split(members=members, ratios=(0.9, 0.1, 0.0), seed=1).values()) == {"train", "val"}


@pytest.mark.parametrize(
    ("body", "says"),
    [
        ({"train_ratio": 0.5, "val_ratio": 0.2, "test_ratio": 0.2}, "must be 1, not 0.9"),
        ({"train_ratio": 0, "val_ratio": 0.5, "test_ratio": 0.5}, "above 0"),
        ({"train_ratio": 1.5, "val_ratio": -0.25, "test_ratio": -0.25}, "less than or equal to 1"),
    ],
)
def test_ratios_are_validated(ten_per_class, body, says):
    response = ten_per_class["client"].post(ten_per_class["url"], body, format="json")
    assert response.status_code == 400 and says in response.json()["error"]["message"]
    assert not DatasetVersion.objects.exists()


def test_a_version_without_labeled_samples_is_refused(tenants, api_client, isolated_storage):
    dataset = dataset_create(
        user=tenants["alice"], project=tenants["project_a"], name="Empty", task_type="image_classification"
    )
    response = api_client(tenants["alice"]).post(
        f"/api/v1/datasets/{dataset.pk}/versions/", {}, format="json"
    )
    assert response.status_code == 400 and "no labeled samples" in response.json()["error"]["message"]


def test_a_version_never_changes_when_samples_and_labels_do(ten_per_class, tenants):
    dataset, client = ten_per_class["dataset"], ten_per_class["client"]
    version = dataset_version_create(dataset=dataset, user=tenants["alice"], seed=7)
    before_rows = list(VersionSample.objects.filter(version=version).order_by("pk").values())
    before_api = client.get(f"{ten_per_class['url']}{version.pk}/").json()
    before_manifest = dataset_version_manifest(version=version)

    labels = {lab.name: lab for lab in Label.objects.filter(dataset=dataset)}
    label_update(label=labels["0"], name="zero")
    label_merge(label=labels["1"], into=labels["2"])
    label_delete(label=labels["2"])
    Sample.objects.filter(dataset=dataset).first().delete()
    client.post(
        f"/api/v1/datasets/{dataset.pk}/imports/",
        {"files": [upload("new.png", digit_bytes(1200))], "label": "new"},
        format="multipart",
    )

    after_rows = list(VersionSample.objects.filter(version=version).order_by("pk").values())
    assert [{k: v for k, v in row.items() if k != "sample_id"} for row in after_rows] == [
        {k: v for k, v in row.items() if k != "sample_id"} for row in before_rows
    ]
    assert client.get(f"{ten_per_class['url']}{version.pk}/").json() == before_api
    after_manifest = dataset_version_manifest(version=version)
    without_ids = lambda m: [{k: v for k, v in s.items() if k != "id"} for s in m["samples"]]  # noqa: E731
    assert after_manifest["classes"] == before_manifest["classes"]
    assert without_ids(after_manifest) == without_ids(before_manifest)
    # ``id`` links to the live sample; the one deleted above no longer has one.
    assert sum(str(s["id"]).startswith("deleted-") for s in after_manifest["samples"]) == 1


def test_manifest_gives_local_paths_label_indexes_and_splits(ten_per_class, tenants):
    version = dataset_version_create(dataset=ten_per_class["dataset"], user=tenants["alice"], seed=1)
    manifest = dataset_version_manifest(version=version)
    assert manifest["classes"] == ["0", "1", "2"]
    assert len(manifest["samples"]) == 30
    assert Counter(s["label"] for s in manifest["samples"]) == {0: 10, 1: 10, 2: 10}
    assert Counter(s["split"] for s in manifest["samples"]) == {"train": 24, "val": 3, "test": 3}
    assert all(os.path.isfile(s["path"]) for s in manifest["samples"])


def test_manifest_downloads_from_storage_without_local_paths(ten_per_class, tenants, tmp_path, settings):
    version = dataset_version_create(dataset=ten_per_class["dataset"], user=tenants["alice"], seed=1)
    settings.STORAGES = {
        **settings.STORAGES,
        "default": {**settings.STORAGES["default"], "BACKEND": "tests.datasets.factories.NoLocalPathStorage"},
    }
    manifest = dataset_version_manifest(version=version, cache_dir=tmp_path / "cache")
    first = manifest["samples"][0]["path"]
    assert first.startswith(str(tmp_path / "cache")) and os.path.isfile(first)


def test_trainable_check_names_the_problem(tenants, isolated_storage):
    one_class = dataset_with_samples(
        user=tenants["alice"], project=tenants["project_a"], name="One", per_class=4, classes=[3]
    )
    with pytest.raises(InvalidInput) as refused:
        dataset_version_check_trainable(
            version=dataset_version_create(dataset=one_class, user=None, seed=1), min_per_class=2
        )
    assert "has 1 labeled class (3); training needs at least 2" in refused.value.message
    small = dataset_with_samples(
        user=tenants["alice"], project=tenants["project_a"], name="Small", per_class=3, classes=[1, 2]
    )
    Sample.objects.filter(dataset=small, label__name="2").first().delete()
    version = dataset_version_create(dataset=small, user=None, seed=1)
    with pytest.raises(InvalidInput) as refused:
        dataset_version_check_trainable(version=version, min_per_class=3)
    assert "every class needs at least 3 samples, but '2' has 2" in refused.value.message
    dataset_version_check_trainable(version=version, min_per_class=2)


def unzip(response) -> zipfile.ZipFile:
    return zipfile.ZipFile(io.BytesIO(b"".join(response.streaming_content)))


def test_export_re_imports_to_the_same_classes_and_counts(ten_per_class, tenants):
    client, dataset = ten_per_class["client"], ten_per_class["dataset"]
    response = client.get(f"/api/v1/datasets/{dataset.pk}/export/")
    assert response.status_code == 200 and response["Content-Type"] == "application/zip"
    assert "attachment" in response["Content-Disposition"]
    exported = b"".join(response.streaming_content)
    names = zipfile.ZipFile(io.BytesIO(exported)).namelist()
    assert "manifest.csv" in names and sum(n.startswith("1/") for n in names) == 10
    copy = dataset_create(
        user=tenants["alice"], project=tenants["project_a"], name="Copy", task_type="image_classification"
    )
    imported = client.post(
        f"/api/v1/datasets/{copy.pk}/imports/",
        {"archive": upload("export.zip", exported)},
        format="multipart",
    )
    assert imported.status_code == 201 and imported.json()["failed"] == 0 and imported.json()["ignored"] == 1
    counts = lambda d: client.get(f"/api/v1/datasets/{d.pk}/samples/").json()["counts"]  # noqa: E731
    original, again = counts(dataset), counts(copy)
    assert (again["total"], again["unlabeled"]) == (original["total"], original["unlabeled"]) == (34, 4)
    assert [(r["name"], r["count"]) for r in again["per_label"]] == [
        (r["name"], r["count"]) for r in original["per_label"]
    ]
    assert sorted(Sample.objects.filter(dataset=copy).values_list("sha256", flat=True)) == sorted(
        Sample.objects.filter(dataset=dataset).values_list("sha256", flat=True)
    )


def test_version_export_has_splits_and_a_formula_safe_manifest(ten_per_class, tenants):
    dataset, client = ten_per_class["dataset"], ten_per_class["client"]
    label_update(label=Label.objects.get(dataset=dataset, name="0"), name="=HYPERLINK(1+2)")
    version = dataset_version_create(dataset=dataset, user=tenants["alice"], seed=2)
    archive = unzip(client.get(f"/api/v1/datasets/{dataset.pk}/export/?version={version.pk}"))
    rows = list(csv.DictReader(io.StringIO(archive.read("manifest.csv").decode())))
    assert len(rows) == 30 and Counter(r["split"] for r in rows) == {"train": 24, "val": 3, "test": 3}
    evil = [r for r in rows if "HYPERLINK" in r["label"]]
    assert len(evil) == 10 and all(r["label"].startswith("'=") and r["path"].startswith("'=") for r in evil)
    assert all(name in archive.namelist() for name in (r["path"].lstrip("'") for r in rows))
    assert [csv_cell(v) for v in ("=1+1", "+1", "-1", "@SUM(A1)", "plain", 3)] == [
        "'=1+1",
        "'+1",
        "'-1",
        "'@SUM(A1)",
        "plain",
        "3",
    ]
    bad = client.get(f"/api/v1/datasets/{dataset.pk}/export/?version=abc")
    assert bad.status_code == 400 and bad.json()["error"]["code"] == "invalid"
