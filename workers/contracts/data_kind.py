"""The data modality: one name, ``data_kind``, and one set of values, used everywhere a piece of
code asks what a template trains on or what a model takes as input.

- a template's declaration (``TaskTemplate.data_kind``, ``GET /api/v1/templates/``);
- a predictor's input (``Predictor.data_kind``, ``workers.serving.protocol.parse_request``) and the
  ``data_kind`` of a package's ``test_vectors/expected.json``;
- a dataset-version manifest's ``kind`` (``workers.contracts.manifest``) takes the same values;
- a dataset's task type is ``<data_kind>_<label kind>`` (``tabular_regression``).

``"tabular"`` is the modality (rows of typed cells); a *table* is a file format (CSV, XLSX, ...)
that text datasets are imported from too, so an import's ``source`` stays ``"table"``.
"""

from __future__ import annotations

from typing import Literal, get_args

DataKind = Literal["image", "text", "tabular"]
DATA_KINDS: tuple[DataKind, ...] = get_args(DataKind)
