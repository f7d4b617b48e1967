"""The data modality: one name, ``data_kind``, and one set of values, used everywhere a piece of
code asks what a template trains on or what a model takes as input.

- a template's declaration (``TaskTemplate.data_kind``, ``GET /api/v1/templates/``);
- a predictor's input (``Predictor.data_kind``, ``workers.serving.protocol.parse_request``) and the
  ``data_kind`` of a package's ``test_vectors/expected.json``;
- a dataset-version manifest's ``kind`` (``workers.contracts.manifest``) takes the same values;
- a dataset's task type is ``<data_kind>_<label kind>`` (``tabular_regression``), except
  ``object_detection`` (images with boxes): ``task_data_kind`` says each task type's data kind.

``"tabular"`` is the modality (rows of typed cells); ``"time_series"`` series on a regular time grid
(``workers.contracts.forecasting``); a *table* is a file format (CSV, XLSX, ...)
that text datasets are imported from too, so an import's ``source`` stays ``"table"``.
"""

from __future__ import annotations

from typing import Literal, get_args

DataKind = Literal["image", "text", "tabular", "time_series"]
DATA_KINDS: tuple[DataKind, ...] = get_args(DataKind)

_TASK_DATA_KINDS: dict[str, DataKind] = {
    "image_classification": "image",
    "object_detection": "image",
    "text_classification": "text",
    "tabular_classification": "tabular",
    "tabular_regression": "tabular",
    "time_series_forecasting": "time_series",
}


def task_data_kind(task_type: str) -> DataKind:
    """The data kind of a dataset's task type: ``task_data_kind("object_detection")`` -> ``"image"``."""
    try:
        return _TASK_DATA_KINDS[task_type]
    except KeyError:
        raise ValueError(f"unknown task type {task_type!r}; known: {sorted(_TASK_DATA_KINDS)}") from None
