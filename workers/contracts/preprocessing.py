"""The preprocessing spec of a model: what turns an input (an image, a text, a table row) into the
ONNX model's input tensors. Written next to the model as ``preprocess.json`` (and into the ONNX
metadata as ``sampan.preprocessing``), stored as a model version's ``preprocessing``, shipped in
server packages and device SDKs whose samples (Python, JavaScript, C++) read it.

One spec per input ``kind``: ``image`` (workers.image_classification.preprocessing), ``text``
(workers.text_classification.tokenization) and ``tabular`` (workers.tabular.encoding). Readers
ignore keys they do not know, so keys are only ever added. Specs written before ``kind`` and
``version`` existed are image specs (``format`` ``sampan.preprocess/1``); readers treat a spec
without ``kind`` as one, and the API answers it with ``kind``/``version`` filled in
(:func:`with_kind`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, NotRequired, TypedDict

PREPROCESSING_VERSION = 1
IMAGE_FORMAT = "sampan.preprocess/1"


class ImagePreprocessing(TypedDict):
    """Decode, apply the EXIF orientation, composite alpha over ``alpha_background``, convert to RGB,
    resize (``stretch``, or ``center_crop`` after scaling the shorter side to ``side / crop_fraction``)
    to ``image_size`` ``[height, width]``, then ``(pixel * scale - mean) / std`` per channel, NCHW float32."""

    kind: Literal["image"]
    version: int
    format: Literal["sampan.preprocess/1"]
    image_size: list[int]
    resize_mode: Literal["stretch", "center_crop"]
    crop_fraction: float
    resample: Literal["bilinear", "bicubic", "nearest"]
    color: Literal["RGB"]
    alpha_background: list[int]
    scale: float
    mean: list[float]
    std: list[float]
    layout: Literal["NCHW"]
    dtype: Literal["float32"]


class TextPreprocessing(TypedDict):
    """WordPiece tokenization (lowercased, cut to ``max_length`` tokens, padded to the longest text of a
    batch) by the tokenizer.json whose sha256 is ``tokenizer_sha256``. The tokenizer travels with the
    model (``tokenizer_in`` says where); ``tokenizer`` holds it inline where a spec carries it."""

    kind: Literal["text"]
    version: int
    max_length: int
    inputs: list[str]
    output: str
    tokenizer_sha256: str
    tokenizer_in: NotRequired[str]
    tokenizer: NotRequired[str]


class TableFeature(TypedDict):
    """One table column the model reads. ``numeric`` and ``datetime`` (days since 1970) columns are
    standardised (``mean``, ``std``) after filling gaps with ``fill``, with a 0/1 ``indicator`` column
    when the training split had gaps; ``categorical`` ones are one-hot over ``categories`` plus
    "other", ``missing`` saying whether the training split had empty cells."""

    name: str
    type: Literal["numeric", "datetime", "categorical"]
    fill: NotRequired[float]
    mean: NotRequired[float]
    std: NotRequired[float]
    indicator: NotRequired[bool]
    categories: NotRequired[list[str]]
    missing: NotRequired[bool]


class TableEncoding(TypedDict):
    """The feature encoding fitted on the training split (``workers.tabular.encoding.fit_encoder``):
    ``width`` is the number of matrix columns the features make."""

    kind: Literal["tabular"]
    version: int
    features: list[TableFeature]
    width: int


class TablePreprocessing(TableEncoding):
    """A tabular model's spec: the encoding plus the task, the ONNX input/output names and the target
    column (not a feature; a row may carry it and it is ignored)."""

    task: Literal["classification", "regression"]
    input: str
    output: str
    target: str | None


Preprocessing = ImagePreprocessing | TextPreprocessing | TablePreprocessing


def with_kind(spec: Mapping[str, Any]) -> dict[str, Any]:
    """``spec`` with ``kind`` and ``version`` filled in when it predates them (an image spec then).

    >>> with_kind({"format": "sampan.preprocess/1", "image_size": [8, 8]})["kind"]
    'image'
    """
    filled = dict(spec)
    if "kind" not in filled and filled.get("format") == IMAGE_FORMAT:
        filled["kind"] = "image"
    filled.setdefault("version", PREPROCESSING_VERSION)
    return filled
