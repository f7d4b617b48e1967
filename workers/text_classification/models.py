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


class WordpieceTfidf(nn.Module):
    """input_ids, attention_mask -> the texts' bag of wordpieces as L2-normalised sublinear TF-IDF
    [batch, vocab]: (1 + log count) x idf, where ``idf`` (a buffer set from the training texts) is 0
    for the special tokens and for wordpieces no training text has, so they weigh nothing."""

    def __init__(self, vocab_size: int) -> None:
        super().__init__()
        self.idf: torch.Tensor
        self.register_buffer("idf", torch.zeros(vocab_size))

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
        idf = self.idf
        counts = torch.zeros(input_ids.shape[0], idf.shape[0], dtype=torch.float32).scatter_add(
            1, input_ids, attention_mask.to(torch.float32)
        )
        weights = torch.where(counts > 0, 1.0 + torch.log(counts.clamp(min=1.0)), torch.zeros_like(counts))
        weights = weights * idf
        normalised: torch.Tensor = weights / weights.norm(dim=1, keepdim=True).clamp(min=1e-12)
        return normalised


class MiniLMTfidfClassifier(nn.Module):
    """One linear softmax layer over two views of a text: the MiniLM sentence embedding (``head``,
    which carries the bias) and the TF-IDF bag of its wordpieces (``sparse_head``). The embedding
    knows meaning, the wordpieces know the exact words of the domain; inside one ONNX graph the
    input stays (input_ids, attention_mask)."""

    def __init__(
        self, classes: int, dropout: float, vocab_size: int, encoder: MiniLMEncoder | None = None
    ) -> None:
        super().__init__()
        self.encoder = encoder if encoder is not None else load_minilm()
        self.tfidf = WordpieceTfidf(vocab_size)
        self.dropout = nn.Dropout(dropout)
        self.head = nn.Linear(self.encoder.width, classes)
        self.sparse_head = nn.Linear(vocab_size, classes, bias=False)

    def combine(self, embeddings: torch.Tensor, tfidf: torch.Tensor) -> torch.Tensor:
        logits: torch.Tensor = self.head(self.dropout(embeddings)) + self.sparse_head(tfidf)
        return logits

    def logits(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
        return self.combine(self.encoder(input_ids, attention_mask), self.tfidf(input_ids, attention_mask))

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
        return torch.softmax(self.logits(input_ids, attention_mask), dim=1)
