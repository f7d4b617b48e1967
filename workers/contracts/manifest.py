"""The dataset-version manifest: what the platform hands a template's ``train`` and ``evaluate``
(``datasets.services.versions.dataset_version_manifest``), one shape per data modality, told apart
by ``kind``.

Every sample has its ``split`` and its ``id`` (the dataset's sample id, or ``"deleted-<n>"`` for a
sample deleted since the snapshot; hand-written manifests may leave it out and are then referred to
by position). A classification sample's ``label`` indexes ``classes``; a regression row has a
``target`` instead. Images are local files (``path``), texts and table rows travel inline.

``kind`` takes the values of ``workers.contracts.data_kind.DataKind``. Version 1 is the shape the
platform produced before ``kind`` and ``version`` were written into every manifest (an image
manifest had neither); readers accept a manifest without them.
"""

from __future__ import annotations

from typing import Literal, NotRequired, TypedDict

MANIFEST_VERSION = 1

# How a sample is referred to: its ``id``, else its position in ``samples``.
SampleRef = int | str
# A table cell as read: a number, a string, or None for a missing value.
CellValue = float | str | None

SplitName = Literal["train", "val", "test"]
ColumnType = Literal["numeric", "categorical", "datetime", "text", "empty"]
TableTask = Literal["classification", "regression"]


class ImageSample(TypedDict):
    id: NotRequired[SampleRef]
    path: str
    label: int
    split: SplitName


class ImageManifest(TypedDict):
    """``{"kind": "image", "version": 1, "classes": ["cat", "dog"],
    "samples": [{"id": 17, "path": "/.../ab12....png", "label": 0, "split": "train"}]}``"""

    kind: Literal["image"]
    version: int
    classes: list[str]
    samples: list[ImageSample]


class TextSample(TypedDict):
    id: NotRequired[SampleRef]
    text: str
    label: int
    split: SplitName


class TextManifest(TypedDict):
    kind: Literal["text"]
    version: int
    classes: list[str]
    samples: list[TextSample]


class TableColumn(TypedDict):
    """A feature column of a table and the type inferred from its cells at the first import."""

    name: str
    type: ColumnType


class TabularSample(TypedDict):
    """One row: its feature cells by column name, and ``label`` (classification) or ``target``
    (regression)."""

    id: NotRequired[SampleRef]
    values: dict[str, CellValue]
    label: NotRequired[int]
    target: NotRequired[float]
    split: SplitName


class TabularManifest(TypedDict):
    """``columns`` are the features (the target is not among them); ``classes`` is [] for regression."""

    kind: Literal["tabular"]
    version: int
    task: TableTask
    columns: list[TableColumn]
    target: str
    classes: list[str]
    samples: list[TabularSample]


DatasetManifest = ImageManifest | TextManifest | TabularManifest


class DatasetSchema(TypedDict):
    """What a text or tabular dataset's first import fixes (the dataset's and each version's
    ``schema``): text datasets the text and label columns, tabular ones the feature columns, the
    target and the task. Empty for image datasets."""

    text_column: NotRequired[str]
    label_column: NotRequired[str]
    columns: NotRequired[list[TableColumn]]
    target: NotRequired[str]
    task: NotRequired[TableTask]
