"""The data of tests/scale: alice's digits and their version, made through the API as a user would."""

from __future__ import annotations

from tests.datasets.factories import dataset_with_samples


def digits_version(client, tenants, *, per_class: int) -> int:
    """Digits (``per_class`` of each of 0-9) in alice's project and a version of them (seed 3): its id."""
    dataset = dataset_with_samples(
        user=tenants["alice"], project=tenants["project_a"], per_class=per_class, classes=range(10)
    )
    version = client.post(f"/api/v1/datasets/{dataset.pk}/versions/", {"seed": 3}, format="json")
    assert version.status_code == 201, version.content
    return int(version.json()["id"])


def start_training(client, version: int, params: dict) -> int:
    """A fast-preset training job of ``version`` with ``params``, through the API: its id."""
    started = client.post(
        "/api/v1/training-jobs/",
        {"dataset_version": version, "preset": "fast", "params": params},
        format="json",
    )
    assert started.status_code == 201, started.content
    return int(started.json()["id"])
