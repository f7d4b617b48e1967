"""A small image-classification dataset version and a training job on it, for the job fault tests."""

from __future__ import annotations

from tests.datasets.factories import dataset_with_samples


def small_version(tenants, *, per_class: int = 24, classes=range(3)):
    from datasets.models import ImportBatch
    from datasets.services import dataset_version_create

    from tests.harness import wait_for

    dataset = dataset_with_samples(
        user=tenants["alice"],
        project=tenants["project_a"],
        name="Digits",
        per_class=per_class,
        classes=classes,
    )
    wait_for(
        lambda: ImportBatch.objects.filter(dataset=dataset, status__in=["succeeded", "failed"]).exists(),
        timeout=120,
        interval=0.5,
        what="the archive import",
    )
    return dataset_version_create(dataset=dataset, user=tenants["alice"], seed=7)


def training_job(tenants, version, *, epochs: int):
    from training.services import training_job_create

    return training_job_create(
        user=tenants["alice"],
        dataset_version=version,
        preset="fast",
        params={"epochs": epochs, "image_size": 32, "augmentation": "none", "validation": "holdout"},
    )
