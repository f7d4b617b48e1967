"""Text classifiers (torch): a bag of embeddings trained from scratch, and a head on the pretrained
MiniLM encoder (frozen, or its last layers fine-tuned). Both take (input_ids, attention_mask) and
end in a softmax, so the exported ONNX answers probabilities."""

from __future__ import annotations

import torch
from torch import nn

from workers.text_classification.minilm import MiniLMEncoder, load_minilm


class BagOfEmbeddings(nn.Module):
    """fastText-style: mean of learned token embeddings (padding masked out), dropout, linear."""

    def __init__(self, vocab_size: int, dim: int, classes: int, dropout: float) -> None:
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, dim)
        self.dropout = nn.Dropout(dropout)
        self.head = nn.Linear(dim, classes)

    def features(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
        mask = attention_mask.to(torch.float32).unsqueeze(-1)
        pooled: torch.Tensor = (self.embedding(input_ids) * mask).sum(dim=1) / mask.sum(dim=1).clamp(min=1.0)
        return pooled

    def logits(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
        logits: torch.Tensor = self.head(self.dropout(self.features(input_ids, attention_mask)))
        return logits

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
        return torch.softmax(self.logits(input_ids, attention_mask), dim=1)


class MiniLMClassifier(nn.Module):
    """The MiniLM sentence embedding, dropout and a linear head."""

    def __init__(self, classes: int, dropout: float, encoder: MiniLMEncoder | None = None) -> None:
        super().__init__()
        self.encoder = encoder if encoder is not None else load_minilm()
        self.dropout = nn.Dropout(dropout)
        self.head = nn.Linear(self.encoder.width, classes)

    def logits(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
        logits: torch.Tensor = self.head(self.dropout(self.encoder(input_ids, attention_mask)))
        return logits

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
        return torch.softmax(self.logits(input_ids, attention_mask), dim=1)
