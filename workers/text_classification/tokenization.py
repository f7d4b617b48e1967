"""Tokenization shared by training, evaluation and serving: the ``tokenizers`` library with the
tokenizer.json shipped in the model's preprocessing spec (the MiniLM WordPiece vocabulary,
lowercasing, truncation to ``max_length``, padding to the longest text of a batch).

Spec (the model's preprocessing, ``workers.contracts.preprocessing.TextPreprocessing``):
``{"kind": "text", "version": 1, "max_length": 128, "inputs": ["input_ids", "attention_mask"],
"output": "probabilities", "tokenizer_sha256": "...", "tokenizer_in": "..."}``. The tokenizer.json itself
(about 470 kB) travels with the model, not in every API answer: inside the ONNX file's metadata
(``sampan.tokenizer``), as ``tokenizer.json`` next to it in run directories, or inline under
``"tokenizer"``; its sha256 is checked wherever it comes from. No torch here.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from workers.contracts.preprocessing import PREPROCESSING_VERSION, TextPreprocessing

INPUTS = ("input_ids", "attention_mask")
METADATA_KEY = "sampan.tokenizer"


def tokenizer_sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def make_spec(*, max_length: int, output: str, tokenizer_text: str) -> TextPreprocessing:
    """The spec of a model that reads texts with ``tokenizer_text`` (shipped in the ONNX metadata).

    >>> make_spec(max_length=64, output="probabilities", tokenizer_text="{}")["inputs"]
    ['input_ids', 'attention_mask']
    """
    return {
        "kind": "text",
        "version": PREPROCESSING_VERSION,
        "max_length": max_length,
        "inputs": list(INPUTS),
        "output": output,
        "tokenizer_sha256": tokenizer_sha256(tokenizer_text),
        "tokenizer_in": f"model.onnx metadata {METADATA_KEY}",
    }


def tokenizer_json(source: Path, *, max_length: int) -> str:
    """The package's tokenizer.json set up as Sampan uses it (truncate, pad to the batch's longest)."""
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(source))
    tokenizer.enable_truncation(max_length=max_length)
    pad = tokenizer.token_to_id("[PAD]") or 0
    tokenizer.enable_padding(pad_id=pad, pad_token="[PAD]")
    return tokenizer.to_str()


class TextTokenizer:
    """``spec``'s tokenizer: ``tokenizer`` (a tokenizer.json string) when the spec has none inline."""

    def __init__(self, spec: Mapping[str, Any], tokenizer: str | None = None) -> None:
        from tokenizers import Tokenizer

        source = spec.get("tokenizer") if isinstance(spec.get("tokenizer"), str) else tokenizer
        if spec.get("kind") != "text" or not isinstance(source, str):
            raise ValueError("not a text preprocessing spec, or its tokenizer.json is missing")
        expected = spec.get("tokenizer_sha256")
        if expected and tokenizer_sha256(source) != expected:
            raise ValueError("the tokenizer.json does not match the model's (sha256 differs)")
        self.tokenizer = Tokenizer.from_str(source)
        self.vocab_size = self.tokenizer.get_vocab_size()

    def __call__(self, texts: Sequence[str]) -> dict[str, np.ndarray]:
        encoded = self.tokenizer.encode_batch(list(texts))
        return {  # int64 arrays shaped (texts, longest)
            "input_ids": np.asarray([e.ids for e in encoded], dtype=np.int64),
            "attention_mask": np.asarray([e.attention_mask for e in encoded], dtype=np.int64),
        }
