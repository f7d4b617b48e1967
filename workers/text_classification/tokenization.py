"""Tokenization shared by training, evaluation and serving: the ``tokenizers`` library with the
tokenizer.json shipped in the model's preprocessing spec (the MiniLM WordPiece vocabulary,
lowercasing, truncation to ``max_length``, padding to the longest text of a batch).

Spec: ``{"kind": "text", "tokenizer": "<tokenizer.json as a string>", "max_length": 128,
"inputs": ["input_ids", "attention_mask"], "output": "probabilities"}``. No torch here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

INPUTS = ("input_ids", "attention_mask")


def tokenizer_json(source: Path, *, max_length: int) -> str:
    """The package's tokenizer.json set up as Sampan uses it (truncate, pad to the batch's longest)."""
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(source))
    tokenizer.enable_truncation(max_length=max_length)
    pad = tokenizer.token_to_id("[PAD]") or 0
    tokenizer.enable_padding(pad_id=pad, pad_token="[PAD]")
    return tokenizer.to_str()


class TextTokenizer:
    def __init__(self, spec: Mapping[str, Any]) -> None:
        from tokenizers import Tokenizer

        if spec.get("kind") != "text" or not isinstance(spec.get("tokenizer"), str):
            raise ValueError("not a text preprocessing spec (kind 'text' with an inline tokenizer.json)")
        self.tokenizer = Tokenizer.from_str(spec["tokenizer"])
        self.vocab_size = self.tokenizer.get_vocab_size()

    def __call__(self, texts: Sequence[str]) -> dict[str, np.ndarray]:
        encoded = self.tokenizer.encode_batch(list(texts))
        return {"input_ids": np.asarray([e.ids for e in encoded], dtype=np.int64),
                "attention_mask": np.asarray([e.attention_mask for e in encoded], dtype=np.int64)}
