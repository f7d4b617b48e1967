"""The sample list: server-side filters (picked ids among them), counts from the database, a query
budget that does not grow with the page size; images and thumbnails with caching headers; chart statistics."""

from __future__ import annotations

import io

import pytest
from datasets.models import Label, Sample, VersionSample
from datasets.services import dataset_version_create
from django.db import connection
from django.test.utils import CaptureQueriesContext
from PIL import Image

from tests.datasets.factories import dataset_with_samples, upload

pytestmark = pytest.mark.django_db


@pytest.fixture
def listed(tenants, api_client, isolated_storage):
    """Classes 0..3 with 5 samples each and 7 unlabeled."""
    dataset = dataset_with_samples(
        user=tenants["alice"], project=tenants["project_a"], per_class=5, classes=range(4), unlabeled=7
    )
    return {
        "dataset": dataset,
        "client": api_client(tenants["alice"]),
        "url": f"/api/v1/datasets/{dataset.pk}/samples/",
        "labels": {lab.name: lab for lab in Label.objects.filter(dataset=dataset)},
    }


def test_counts_and_pages(listed):
    body = listed["client"].get(f"{listed['url']}?page_size=10").json()
    assert body["count"] == 27 and len(body["results"]) == 10 and body["next"].endswith("page=2&page_size=10")
    counts = body["counts"]
    assert (counts["total"], counts["labeled"], counts["unlabeled"]) == (27, 20, 7)
    assert [(row["name"], row["count"]) for row in counts["per_label"]] == [
        ("0", 5),
        ("1", 5),
        ("2", 5),
        ("3", 5),
    ]
    ids = [row["id"] for row in body["results"]]
    assert ids == sorted(ids)
    first = body["results"][0]
    assert set(first) >= {
        "id",
        "original_name",
        "label",
        "label_name",
        "label_version",
        "width",
        "height",
        "format",
        "thumbnail_url",
        "image_url",
        "split",
    }
    last = listed["client"].get(f"{listed['url']}?page_size=10&page=3").json()
    assert len(last["results"]) == 7 and last["next"] is None
    assert listed["client"].get(f"{listed['url']}?page=9").status_code == 404


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("label={label_2}", 5),
        ("unlabeled=true", 7),
        ("unlabeled=false", 20),
        ("search=loose_000", 7),
        ("search=3_000", 5),
        ("search=LOOSE_0001", 1),
        ("label={label_2}&search=2_0001", 1),
    ],
)
def test_filters(listed, query, expected):
    url = listed["url"] + "?" + query.format(label_2=listed["labels"]["2"].pk)
    body = listed["client"].get(url).json()
    assert body["count"] == expected == len(body["results"]), body
    assert body["counts"]["total"] == 27, "counts describe the whole dataset, whatever the filter"


def test_split_filter_within_a_version(listed, tenants):
    version = dataset_version_create(
        dataset=listed["dataset"],
        user=tenants["alice"],
        train_ratio=0.6,
        val_ratio=0.2,
        test_ratio=0.2,
        seed=3,
    )
    seen = {}
    for split, expected in (("train", 12), ("val", 4), ("test", 4)):
        body = listed["client"].get(f"{listed['url']}?version={version.pk}&split={split}&page_size=50").json()
        assert body["count"] == expected and {row["split"] for row in body["results"]} == {split}
        seen.update({row["id"]: split for row in body["results"]})
    assert seen == dict(VersionSample.objects.filter(version=version).values_list("sample_id", "split"))
    everything = listed["client"].get(f"{listed['url']}?version={version.pk}&page_size=50").json()
    assert everything["count"] == 20, "unlabeled samples are not in a version"
    bad = listed["client"].get(f"{listed['url']}?split=train")
    assert bad.status_code == 400 and "version" in bad.json()["error"]["message"]
    unknown = listed["client"].get(f"{listed['url']}?version={version.pk + 1000}")
    assert unknown.status_code == 400 and "No version" in unknown.json()["error"]["message"]


def test_picked_ids_come_back_in_pages(listed, tenants):
    client, url, dataset = listed["client"], listed["url"], listed["dataset"]
    ids = list(Sample.objects.filter(dataset=dataset).order_by("-id").values_list("pk", flat=True)[:12])
    elsewhere = dataset_with_samples(
        user=tenants["bob"], project=tenants["project_b"], per_class=1, classes=range(1)
    )
    foreign = Sample.objects.get(dataset=elsewhere).pk
    picked = ",".join(map(str, [*ids, foreign, 10**12, ids[0]]))
    first = client.get(f"{url}?ids={picked}&page_size=5").json()
    assert first["count"] == 12, (
        "another dataset's sample and an unknown id are not found; a repeat counts once"
    )
    assert [row["id"] for row in first["results"]] == ids[:5], "in the order given (a ranking's), not by id"
    assert first["counts"]["total"] == 27 and "page=2" in first["next"]
    last = client.get(f"{url}?ids={picked}&page_size=5&page=3").json()
    assert [row["id"] for row in last["results"]] == ids[10:] and last["next"] is None
    repeated = client.get(url, {"ids": [str(ids[0]), f"{ids[1]},{ids[2]}"]}).json()
    assert repeated["count"] == 3, "ids=1&ids=2,3 works too"
    label = listed["labels"]["2"]
    in_label = Sample.objects.filter(dataset=dataset, label=label).values_list("pk", flat=True)
    both = client.get(f"{url}?ids={','.join(map(str, ids + list(in_label)))}&label={label.pk}").json()
    assert sorted(row["id"] for row in both["results"]) == sorted(in_label), "other filters still apply"


@pytest.mark.parametrize(
    ("ids", "message"),
    [
        ("", "ids: No sample ids: give comma-separated sample ids, e.g. ids=1,2,3."),
        ("1,x,3", "ids: 'x' is not a sample id: give comma-separated sample ids, e.g. ids=1,2,3."),
        ("1,-2", "ids: '-2' is not a sample id"),
        ("0", "ids: '0' is not a sample id"),
        ("1,,2", "ids: '' is not a sample id"),
        (str(2**63), f"ids: '{2**63}' is not a sample id"),
        (",".join(map(str, range(1, 502))), "ids: At most 500 sample ids at once; got 501."),
    ],
)
def test_bad_ids_answer_400_naming_the_problem(listed, ids, message):
    response = listed["client"].get(f"{listed['url']}?ids={ids}")
    assert response.status_code == 400 and response.json()["error"]["code"] == "invalid"
    assert response.json()["error"]["message"].startswith(message), response.json()
    assert listed["client"].get(f"{listed['url']}?ids={','.join(map(str, range(1, 501)))}").status_code == 200


def test_query_budget_does_not_grow_with_the_page_size(listed, django_assert_max_num_queries):
    client, url = listed["client"], listed["url"]
    label = listed["labels"]["1"].pk
    ids = ",".join(
        str(pk) for pk in Sample.objects.filter(dataset=listed["dataset"]).values_list("pk", flat=True)
    )
    for query, budget in (
        ("", 4),
        (f"label={label}", 4),
        ("unlabeled=true", 4),
        ("search=loose", 5),
        (f"ids={ids}", 5),
    ):
        counted = []
        for page_size in (2, 25):
            with CaptureQueriesContext(connection) as queries:
                assert client.get(f"{url}?page_size={page_size}&{query}").status_code == 200
            counted.append(len(queries))
        assert counted[0] == counted[1] <= budget, (
            query,
            counted,
            [q["sql"] for q in queries.captured_queries],
        )
    with django_assert_max_num_queries(4):
        client.get(f"{url}?page_size=500")
    with django_assert_max_num_queries(5):
        client.get(f"{url}?page_size=500&ids={ids}")


def test_image_and_thumbnail_are_served_with_caching_headers(listed):
    client = listed["client"]
    big = io.BytesIO()
    Image.new("RGB", (300, 200), (200, 30, 30)).save(big, "PNG")
    client.post(
        f"/api/v1/datasets/{listed['dataset'].pk}/imports/",
        {"files": [upload("big.png", big.getvalue())]},
        format="multipart",
    )
    sample = Sample.objects.get(dataset=listed["dataset"], original_name="big.png")
    image = client.get(f"{listed['url']}{sample.pk}/image/", HTTP_ACCEPT="image/png")
    assert image.status_code == 200 and image["Content-Type"] == "image/png"
    assert image["ETag"] == f'"{sample.sha256}"' and "immutable" in image["Cache-Control"]
    assert "private" in image["Cache-Control"]
    assert Image.open(io.BytesIO(b"".join(image.streaming_content))).size == (300, 200)
    again = client.get(f"{listed['url']}{sample.pk}/image/", HTTP_IF_NONE_MATCH=f'"{sample.sha256}"')
    assert again.status_code == 304
    thumb = client.get(f"{listed['url']}{sample.pk}/thumbnail/")
    assert (
        thumb.status_code == 200
        and thumb["Content-Type"] == "image/jpeg"
        and "immutable" in thumb["Cache-Control"]
    )
    assert Image.open(io.BytesIO(b"".join(thumb.streaming_content))).size == (128, 85)
    small = Sample.objects.filter(dataset=listed["dataset"], width=32).first()
    own = client.get(f"{listed['url']}{small.pk}/thumbnail/")
    assert own["Content-Type"] == "image/png", "a 32 px image is its own thumbnail"
    assert b"".join(own.streaming_content) == b"".join(
        client.get(f"{listed['url']}{small.pk}/image/").streaming_content
    )
    missing = client.get(f"{listed['url']}{10**9}/image/")
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "not_found"


def test_statistics_for_charts(listed):
    stats = listed["client"].get(f"/api/v1/datasets/{listed['dataset'].pk}/statistics/").json()
    assert (stats["total"], stats["labeled"], stats["unlabeled"]) == (27, 20, 7)
    assert [row["count"] for row in stats["per_label"]] == [5, 5, 5, 5]
    assert stats["formats"] == [{"format": "PNG", "count": 27}]
    assert stats["common_sizes"] == [{"width": 32, "height": 32, "count": 27}]
    assert {row["max_side"]: row["count"] for row in stats["size_buckets"]}[32] == 27
    assert stats["width"] == {"min": 32, "max": 32, "mean": 32.0}


def test_dataset_list_shows_counts(listed):
    rows = listed["client"].get(f"/api/v1/datasets/?project={listed['dataset'].project_id}").json()["results"]
    row = next(r for r in rows if r["id"] == listed["dataset"].pk)
    assert (row["sample_count"], row["labeled_count"], row["label_count"]) == (27, 20, 4)


def test_sample_delete_keeps_versions(listed, tenants):
    version = dataset_version_create(dataset=listed["dataset"], user=tenants["alice"], seed=1)
    sample = Sample.objects.filter(dataset=listed["dataset"], label__isnull=False).first()
    assert listed["client"].delete(f"{listed['url']}{sample.pk}/").status_code == 204
    assert VersionSample.objects.filter(version=version, blob_key=sample.blob_key, sample=None).count() == 1


def test_deleting_a_dataset_removes_its_rows(listed, tenants):
    from datasets.models import Dataset, DatasetVersion, ImportBatch

    dataset = listed["dataset"]
    dataset_version_create(dataset=dataset, user=tenants["alice"], seed=1)
    assert listed["client"].delete(f"/api/v1/datasets/{dataset.pk}/").status_code == 204
    assert not Dataset.objects.filter(pk=dataset.pk).exists()
    for model in (Sample, Label, DatasetVersion, ImportBatch):
        assert not model.objects.filter(dataset_id=dataset.pk).exists(), model
    assert not VersionSample.objects.exists()
