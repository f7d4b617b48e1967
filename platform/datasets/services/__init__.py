"""Writes of the data service, a module per concern: ``datasets`` (the datasets themselves),
``labels`` (labels and label writes on samples), ``image_imports`` and ``table_imports`` (with
``imports``, what they share: the one commit path and the one background-import path, and
``import_job``, that job's body), ``versions`` (snapshots, the manifest the compute plane trains on)
and ``export``. Reads are in ``datasets.selectors``.

Other apps take part in the data lifecycle through the names below; inside the app, and for
anything else, import the concern's module.
"""

from datasets.services.datasets import dataset_create
from datasets.services.versions import (
    dataset_version_check_trainable,
    dataset_version_create,
    dataset_version_manifest,
)

__all__ = [
    "dataset_create",
    "dataset_version_check_trainable",
    "dataset_version_create",
    "dataset_version_manifest",
]
