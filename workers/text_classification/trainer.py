"""Training text classifiers and exporting them to one self-contained ONNX file taking
(input_ids, attention_mask) int64 [batch, tokens] (both dimensions dynamic) and answering
probabilities [batch, classes]. The tokenizer.json travels in the preprocessing spec."""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import logging
import os
import random
import time
import warnings
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

from workers.contracts.manifest import TextManifest
from workers.contracts.preprocessing import TextPreprocessing
from workers.progress import Report, silent_report
from workers.shared.validation import ValidationPlan, kfold_indices, plan, summarize
from workers.shared.warm_start import warm_start as warm_start_from_file
from workers.text_classification.minilm import MiniLMEncoder, package_dir
from workers.text_classification.models import BagOfEmbeddings, MiniLMClassifier, MiniLMTfidfClassifier
from workers.text_classification.template import TEMPLATE
from workers.text_classification.tokenization import (
    INPUTS,
    METADATA_KEY,
    TextTokenizer,
    make_spec,
    tokenizer_json,
)

OUTPUT_NAME = "probabilities"
EMBED_BATCH = 64
# below this many texts (train + val) validation "auto" cross-validates: the folds refit a linear head
# on cached embeddings (or a small model), seconds each
CV_THRESHOLD = 3000
# strengths (inverse L2 penalty) the linear head over [wordpiece TF-IDF, MiniLM embedding] tries
C_GRID = (1.0, 3.0, 10.0, 30.0, 100.0)
# the embedding's weight beside the (unit-norm) TF-IDF row in that head's input
EMBEDDING_SCALE = 1.0
LOGISTIC_ITERATIONS = 1000
SPECIAL_TOKENS = ("[CLS]", "[SEP]", "[PAD]")
# minilm_finetune: the head learns at HEAD_LR_FACTOR x learning_rate, the top layer at the rate, each
# lower one at LAYER_DECAY x the one above; training stops after PATIENCE epochs without a better val score
HEAD_LR_FACTOR = 20.0
LAYER_DECAY = 0.8
PATIENCE = 3
CLASS_KEYS = {
    "bag_of_embeddings": ("head.weight", "head.bias"),
    "minilm_head": ("head.weight", "head.bias"),
    "minilm_tfidf": ("head.weight", "head.bias", "sparse_head.weight"),
    "minilm_finetune": ("head.weight", "head.bias", "sparse_head.weight"),
}


class TextDataError(ValueError):
    """The manifest cannot be trained on; the message says why."""


def check_manifest(manifest: TextManifest) -> dict[str, Any]:
    if manifest.get("kind") != "text":
        raise TextDataError("not a text manifest (kind must be 'text')")
    classes = manifest.get("classes") or []
    if len(classes) < 2:
        raise TextDataError(f"at least 2 classes are needed, got {len(classes)}")
    samples = manifest.get("samples") or []
    for i, sample in enumerate(samples):
        if not isinstance(sample.get("text"), str) or not sample["text"].strip():
            raise TextDataError(f"samples[{i}].text must be a non-empty string")
        if not isinstance(sample.get("label"), int) or not 0 <= sample["label"] < len(classes):
            raise TextDataError(f"samples[{i}].label must be a class index")
    train = [s for s in samples if s.get("split") == "train"]
    if len({s["label"] for s in train}) < 2:
        raise TextDataError("the train split needs samples of at least 2 classes")
    return {"classes": len(classes), "samples": len(samples), "train": len(train)}


def _batches(n: int, size: int, generator: torch.Generator | None = None) -> Iterator[list[int]]:
    order = torch.randperm(n, generator=generator).tolist() if generator is not None else list(range(n))
    for start in range(0, n, size):
        yield order[start : start + size]


def _tensors(tokenizer: TextTokenizer, texts: list[str]) -> tuple[torch.Tensor, torch.Tensor]:
    encoded = tokenizer(texts)
    return torch.from_numpy(encoded["input_ids"]), torch.from_numpy(encoded["attention_mask"])


def train(
    spec: Mapping[str, Any],
    manifest: TextManifest,
    out_dir: str | Path,
    report: Report = silent_report,
    *,
    warm_start: str | os.PathLike[str] | None = None,
    **_: Any,
) -> dict[str, Any]:
    """Train a text classifier; ``warm_start``: a text classifier version's ``model.pt`` to start
    from (the same model and vocabulary; the head's rows matched by class name, see
    ``workers.shared.warm_start``).

    Small data (``validation`` auto below :data:`CV_THRESHOLD` texts, or ``cross_validation``):
    k-fold over train + val chooses the stopping epoch (bag_of_embeddings, minilm_head) or the
    regularisation of the linear head (minilm_tfidf, and minilm_finetune's head warm-up); the
    final model then trains on train + val, and ``result["cross_validation"]`` tells the folds.
    """
    check_manifest(manifest)
    params = TEMPLATE.validate_params(spec.get("preset"), spec)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    _seed_everything(params["seed"])
    classes = list(manifest["classes"])
    preprocessing, tokenizer_text = _preprocessing(params["max_length"])
    tokenizer = TextTokenizer(preprocessing, tokenizer_text)
    (out / "tokenizer.json").write_text(tokenizer_text)
    train_set = [s for s in manifest["samples"] if s["split"] == "train"]
    held_out = [s for s in manifest["samples"] if s["split"] == "val"]
    data = _Split(
        train_texts=[s["text"] for s in train_set],
        y_train=torch.tensor([s["label"] for s in train_set]),
        val_texts=[s["text"] for s in held_out or train_set],
        y_val=torch.tensor([s["label"] for s in held_out or train_set]),
        has_val=bool(held_out),
    )
    decision = plan(
        params["validation"],
        samples=len(data.pool_texts),
        threshold=CV_THRESHOLD,
        folds=params["folds"],
    )
    started = time.monotonic()
    report(f"training {params['model']} on {len(train_set)} texts", fraction=0.0, milestone=True)
    model = _build(params, len(classes), tokenizer.vocab_size)
    warm_start_info = None
    if warm_start:
        warm_start_info = warm_start_from_file(
            model,
            warm_start,
            classes=classes,
            class_keys=CLASS_KEYS[params["model"]],
            expect={"model": params["model"], "vocab_size": tokenizer.vocab_size},
        )
    extra: dict[str, Any] = {}
    pristine = warm_start is None  # the pretrained encoder: its embeddings may come from the cache
    if params["model"] in ("minilm_tfidf", "minilm_finetune"):
        assert isinstance(model, MiniLMTfidfClassifier)
        history, extra = _train_tfidf(model, params, tokenizer, data, decision, report, cached=pristine)
    elif params["model"] == "minilm_head":
        assert isinstance(model, MiniLMClassifier)
        history, extra = _train_head(model, params, tokenizer, data, decision, report, cached=pristine)
    else:
        history, extra = _train_from_scratch(model, params, tokenizer, data, decision, report)
    checkpoint = out / "model.pt"
    torch.save(
        {
            "state_dict": model.state_dict(),
            "model": params["model"],
            "classes": classes,
            "vocab_size": tokenizer.vocab_size,
            "params": params,
        },
        checkpoint,
    )
    onnx_path = out / "model.onnx"
    verified = export_model(
        model,
        onnx_path,
        classes=classes,
        preprocessing=preprocessing,
        tokenizer=tokenizer,
        probe=data.val_texts[:5],
    )
    best = max(history, key=lambda h: (h["val_acc"], -h["val_loss"])) if history else {}
    return {
        "model": str(checkpoint),
        "onnx": str(onnx_path),
        "preprocessing": preprocessing,
        "classes": classes,
        "params": params,
        "metrics": best,
        "epochs": len(history),
        "best_epoch": best.get("epoch"),
        "history": history,
        "export": verified,
        "warm_start": warm_start_info,
        "runtime": {"seconds": time.monotonic() - started, "device": "cpu"},
        **extra,
    }


@dataclass(frozen=True)
class _Split:
    """The texts a run learns from: train, and val (a copy of train when the manifest has none)."""

    train_texts: list[str]
    y_train: torch.Tensor
    val_texts: list[str]
    y_val: torch.Tensor
    has_val: bool

    @property
    def pool_texts(self) -> list[str]:
        """train + val: what cross-validation folds and the final model of a cross-validated run use."""
        return self.train_texts + self.val_texts if self.has_val else self.train_texts

    @property
    def y_pool(self) -> torch.Tensor:
        return torch.cat([self.y_train, self.y_val]) if self.has_val else self.y_train


def _seed_everything(seed: int) -> None:
    random.seed(seed)
    np.random.seed(seed % 2**32)
    torch.manual_seed(seed)


def _build(params: Mapping[str, Any], classes: int, vocab_size: int) -> torch.nn.Module:
    if params["model"] == "bag_of_embeddings":
        return BagOfEmbeddings(vocab_size, params["embedding_dim"], classes, params["dropout"])
    if params["model"] == "minilm_head":
        return MiniLMClassifier(classes, params["dropout"])
    return MiniLMTfidfClassifier(classes, params["dropout"], vocab_size)


def _preprocessing(max_length: int) -> tuple[TextPreprocessing, str]:
    """The model's preprocessing spec and its tokenizer.json (kept out of the spec, see tokenization)."""
    text = tokenizer_json(package_dir() / "tokenizer.json", max_length=max_length)
    return make_spec(max_length=max_length, output=OUTPUT_NAME, tokenizer_text=text), text


def _evaluate_logits(logits: torch.Tensor, y: torch.Tensor) -> dict[str, float]:
    return {
        "val_loss": float(torch.nn.functional.cross_entropy(logits, y)),
        "val_acc": float((logits.argmax(dim=1) == y).float().mean()),
    }


def embedding_cache_dir() -> Path | None:
    """Where frozen MiniLM embeddings are kept between runs: ``SAMPAN_EMBEDDING_CACHE`` (a directory,
    or ``off``), else ``$SAMPAN_HOME/cache`` (shared with smart labeling's text features), else none.
    A vanished or unreadable entry is just recomputed."""
    raw = os.environ.get("SAMPAN_EMBEDDING_CACHE", "").strip()
    if raw.lower() == "off":
        return None
    if raw:
        return Path(raw)
    home = os.environ.get("SAMPAN_HOME", "").strip()
    return Path(home) / "cache" if home else None


def _embed(
    encoder: MiniLMEncoder,
    tokenizer: TextTokenizer,
    texts: list[str],
    *,
    max_length: int,
    cached: bool,
) -> torch.Tensor:
    """Sentence embeddings of ``texts`` (n, width), short texts batched together; with ``cached``
    (the pretrained encoder, untouched) rows come from and go to the embedding cache, keyed by the
    text's sha256 and ``max_length``."""
    from workers.smart_labeling.features import FeatureCache

    cache = FeatureCache(embedding_cache_dir() if cached else None, f"minilm-v1-{max_length}")
    keys = [hashlib.sha256(t.encode()).hexdigest() for t in texts]
    out = np.zeros((len(texts), encoder.width), np.float32)
    missing = []
    for i, key in enumerate(keys):
        row = cache.get(key)
        if row is not None and row.shape == (encoder.width,):
            out[i] = row
        else:
            missing.append(i)
    order = sorted(missing, key=lambda i: len(texts[i]))
    encoder.eval()
    with torch.inference_mode():
        for start in range(0, len(order), EMBED_BATCH):
            index = order[start : start + EMBED_BATCH]
            out[index] = encoder(*_tensors(tokenizer, [texts[i] for i in index])).numpy()
    for i in missing:
        cache.put(keys[i], out[i])
    return torch.from_numpy(out)


def _train_from_scratch(
    model: torch.nn.Module,
    params: Mapping[str, Any],
    tokenizer: TextTokenizer,
    data: _Split,
    decision: ValidationPlan,
    report: Report,
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """bag_of_embeddings: every epoch reads the texts' tokens."""
    pool = data.pool_texts

    def fit(
        module: torch.nn.Module,
        fit_index: np.ndarray,
        val_index: np.ndarray | None,
        epochs: int,
        fraction: float,
    ) -> list[dict[str, Any]]:
        texts = [pool[i] for i in fit_index]
        quiet = val_index is not None  # a fold: its epochs are not the run's progress
        val_texts = [pool[i] for i in val_index] if val_index is not None else None
        return _fit(
            module,
            {**params, "epochs": epochs},
            lambda index: _tensors(tokenizer, [texts[i] for i in index]),
            data.y_pool[fit_index],
            None,
            data.y_pool[val_index] if val_index is not None else None,
            torch.Generator().manual_seed(params["seed"]),
            silent_report if quiet else report,
            start_fraction=fraction,
            val_texts=val_texts,
            tokenizer=tokenizer,
        )

    if not decision.cross_validate:
        history = _fit(
            model,
            params,
            lambda index: _tensors(tokenizer, [data.train_texts[i] for i in index]),
            data.y_train,
            None,
            data.y_val,
            torch.Generator().manual_seed(params["seed"]),
            report,
            start_fraction=0.0,
            val_texts=data.val_texts,
            tokenizer=tokenizer,
        )
        return history, {}
    initial = {k: v.detach().clone() for k, v in model.state_dict().items()}

    def fresh() -> torch.nn.Module:
        assert isinstance(model, BagOfEmbeddings)
        module = _build(params, model.head.out_features, tokenizer.vocab_size)
        module.load_state_dict(initial)
        return module

    return _cross_validate_epochs(model, fresh, fit, params, data, decision, report)


def _cross_validate_epochs(
    model: torch.nn.Module,
    fresh: Callable[[], torch.nn.Module],
    fit: Callable[[torch.nn.Module, np.ndarray, np.ndarray | None, int, float], list[dict[str, Any]]],
    params: Mapping[str, Any],
    data: _Split,
    decision: ValidationPlan,
    report: Report,
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """k folds of ``params["epochs"]`` epochs each: the epoch with the best mean held-out accuracy
    (then loss) is the stopping point; ``model`` then trains that many epochs on train + val."""
    y = data.y_pool.numpy()
    folds = kfold_indices(y, decision.folds, seed=params["seed"])
    per_fold: list[list[dict[str, Any]]] = []
    for number, (fit_index, held_out) in enumerate(folds):
        _seed_everything(params["seed"] + number + 1)
        per_fold.append(fit(fresh(), fit_index, held_out, params["epochs"], 0.8 * number / len(folds)))
        report(
            f"fold {number + 1}/{len(folds)} done", fraction=0.8 * (number + 1) / len(folds), milestone=True
        )
    history = [
        {
            "epoch": epoch + 1,
            **{
                key: float(np.mean([run[epoch][key] for run in per_fold]))
                for key in ("loss", "val_loss", "val_acc")
            },
        }
        for epoch in range(params["epochs"])
    ]
    best = max(history, key=lambda h: (h["val_acc"], -h["val_loss"]))
    epochs = int(best["epoch"])
    _seed_everything(params["seed"])
    fit(model, np.arange(len(y)), None, epochs, 0.8)
    scores = [
        {
            "fold": number,
            "train_samples": len(fit_index),
            "samples": len(held_out),
            "score": run[epochs - 1]["val_acc"],
        }
        for number, ((fit_index, held_out), run) in enumerate(zip(folds, per_fold, strict=True))
    ]
    summary = summarize(
        scores,
        metric="accuracy",
        direction="maximize",
        chosen={"epochs": epochs},
        reason=f"{decision.reason}; the folds' best mean accuracy came after epoch {epochs}",
        plan=decision,
    )
    return history, {"cross_validation": summary}


def _train_head(
    model: MiniLMClassifier,
    params: Mapping[str, Any],
    tokenizer: TextTokenizer,
    data: _Split,
    decision: ValidationPlan,
    report: Report,
    *,
    cached: bool,
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Frozen encoder: embed every text once, then train the head on the embeddings."""
    model.encoder.eval()
    for p in model.encoder.parameters():
        p.requires_grad_(False)
    pool = _embed(model.encoder, tokenizer, data.pool_texts, max_length=params["max_length"], cached=cached)
    report("embedded the texts with MiniLM", fraction=0.3, milestone=True)
    head = torch.nn.Sequential(model.dropout, model.head)
    if not decision.cross_validate:
        train_embeddings = pool[: len(data.train_texts)]
        val_embeddings = pool[len(data.train_texts) :] if data.has_val else train_embeddings
        history = _fit(
            head,
            params,
            lambda index: (train_embeddings[index],),
            data.y_train,
            lambda: (val_embeddings,),
            data.y_val,
            torch.Generator().manual_seed(params["seed"]),
            report,
            start_fraction=0.3,
        )
        return history, {}
    initial = {k: v.detach().clone() for k, v in head.state_dict().items()}

    def fresh() -> torch.nn.Module:
        module = torch.nn.Sequential(
            torch.nn.Dropout(params["dropout"]),
            torch.nn.Linear(model.head.in_features, model.head.out_features),
        )
        module.load_state_dict(initial)
        return module

    def fit(
        module: torch.nn.Module,
        fit_index: np.ndarray,
        val_index: np.ndarray | None,
        epochs: int,
        fraction: float,
    ) -> list[dict[str, Any]]:
        features = pool[fit_index]
        return _fit(
            module,
            {**params, "epochs": epochs},
            lambda index: (features[index],),
            data.y_pool[fit_index],
            (lambda: (pool[val_index],)) if val_index is not None else None,
            data.y_pool[val_index] if val_index is not None else None,
            torch.Generator().manual_seed(params["seed"]),
            silent_report if val_index is not None else report,  # a fold's epochs are not the run's
            start_fraction=0.3 + 0.6 * fraction,
        )

    return _cross_validate_epochs(head, fresh, fit, params, data, decision, report)


def _wordpieces(tokenizer: TextTokenizer, texts: list[str]) -> list[np.ndarray]:
    """Each text's token ids (special tokens included, padding not)."""
    ids: list[np.ndarray] = []
    for start in range(0, len(texts), EMBED_BATCH):
        encoded = tokenizer(texts[start : start + EMBED_BATCH])
        pairs = zip(encoded["input_ids"], encoded["attention_mask"], strict=True)
        ids.extend(row[mask == 1] for row, mask in pairs)
    return ids


def _fit_idf(tokenizer: TextTokenizer, ids: list[np.ndarray]) -> np.ndarray:
    """Smoothed idf over ``ids``' texts, log((1 + n) / (1 + df)) + 1; 0 for special tokens and for
    wordpieces none of them has (as a TF-IDF vectorizer's vocabulary leaves them out)."""
    df = np.zeros(tokenizer.vocab_size, np.float64)
    for row in ids:
        df[np.unique(row)] += 1
    idf = np.where(df > 0, np.log((1 + len(ids)) / (1 + df)) + 1.0, 0.0)
    for token in SPECIAL_TOKENS:
        index = tokenizer.tokenizer.token_to_id(token)
        if index is not None:
            idf[index] = 0.0
    return idf.astype(np.float32)


def _tfidf_matrix(ids: list[np.ndarray], idf: np.ndarray) -> Any:
    """The rows :class:`WordpieceTfidf` computes in the graph, as a scipy CSR matrix."""
    from scipy import sparse  # type: ignore[import-untyped]

    rows, cols, values = [], [], []
    for i, row in enumerate(ids):
        unique, counts = np.unique(row, return_counts=True)
        weights = (1.0 + np.log(counts)) * idf[unique]
        norm = float(np.sqrt(np.sum(weights.astype(np.float64) ** 2)))
        keep = weights > 0
        rows.extend([i] * int(keep.sum()))
        cols.extend(unique[keep].tolist())
        values.extend((weights[keep] / max(norm, 1e-12)).tolist())
    return sparse.csr_matrix(
        (np.asarray(values, np.float32), (rows, cols)), shape=(len(ids), len(idf)), dtype=np.float32
    )


def _features(tfidf: Any, embeddings: torch.Tensor, used: np.ndarray) -> Any:
    """[TF-IDF of the ``used`` wordpieces, embedding x scale]: the columns no text has are left out
    (a tenth of the vocabulary or less on small data, so each fit is that much cheaper)."""
    from scipy import sparse

    return sparse.hstack([tfidf[:, used], sparse.csr_matrix(embeddings.numpy() * EMBEDDING_SCALE)]).tocsr()


def _logistic(x: Any, y: np.ndarray, c: float) -> Any:
    from sklearn.linear_model import LogisticRegression  # type: ignore[import-untyped]

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a rare non-converged fit at the largest C is still usable
        return LogisticRegression(C=c, max_iter=LOGISTIC_ITERATIONS).fit(x, y)


def _logistic_logits(fitted: Any, x: Any, classes: int) -> torch.Tensor:
    """Logits [n, classes] of a fitted LogisticRegression (a binary one's are [0, z])."""
    scores = np.asarray(fitted.decision_function(x), np.float32)
    if scores.ndim == 1:
        scores = np.stack([np.zeros_like(scores), scores], axis=1)
    logits = np.full((x.shape[0], classes), -1e4, np.float32)  # a class no fitted row had
    logits[:, fitted.classes_] = scores
    return torch.from_numpy(logits)


def _set_head(model: MiniLMTfidfClassifier, fitted: Any, used: np.ndarray) -> None:
    """Copy a LogisticRegression over :func:`_features` into the model's two linear maps (the
    wordpieces left out weigh 0)."""
    classes = model.head.out_features
    coef = np.asarray(fitted.coef_, np.float32)
    intercept = np.asarray(fitted.intercept_, np.float32)
    if coef.shape[0] == 1:  # binary: class 1's logit is z, class 0's is 0
        coef = np.concatenate([np.zeros_like(coef), coef])
        intercept = np.concatenate([np.zeros_like(intercept), intercept])
    weight = np.zeros((classes, coef.shape[1]), np.float32)
    bias = np.full(classes, -1e4, np.float32)
    weight[fitted.classes_], bias[fitted.classes_] = coef, intercept
    sparse = np.zeros(tuple(model.sparse_head.weight.shape), np.float32)
    sparse[:, used] = weight[:, : len(used)]
    with torch.no_grad():
        model.sparse_head.weight.copy_(torch.from_numpy(sparse))
        model.head.weight.copy_(torch.from_numpy(weight[:, len(used) :] * EMBEDDING_SCALE))
        model.head.bias.copy_(torch.from_numpy(bias))


def _choose_c(
    features: Any,
    y: np.ndarray,
    classes: int,
    splits: list[tuple[np.ndarray, np.ndarray]],
    report: Report,
) -> tuple[float, list[dict[str, Any]], list[list[float]]]:
    """Each C of :data:`C_GRID` fitted on every split's first part and scored on its second; the
    best mean accuracy (then log loss) wins. Returns C, one history entry per C, and the chosen C's
    per-split accuracies."""
    history, accuracies = [], []
    for number, c in enumerate(C_GRID):
        runs = []
        for fit_index, held_out in splits:
            fitted = _logistic(features[fit_index], y[fit_index], c)
            train_logits = _logistic_logits(fitted, features[fit_index], classes)
            runs.append(
                {
                    "loss": float(
                        torch.nn.functional.cross_entropy(train_logits, torch.from_numpy(y[fit_index]))
                    ),
                    **_evaluate_logits(
                        _logistic_logits(fitted, features[held_out], classes), torch.from_numpy(y[held_out])
                    ),
                }
            )
        entry = {"epoch": number + 1, "C": c, **{k: float(np.mean([r[k] for r in runs])) for k in runs[0]}}
        history.append(entry)
        accuracies.append([r["val_acc"] for r in runs])
        report(
            f"linear head: C {c:g} of {len(C_GRID)} strengths",
            epoch=number + 1,
            epochs=len(C_GRID),
            fraction=0.35 + 0.3 * (number + 1) / len(C_GRID),
            milestone=number + 1 == len(C_GRID),
            **{k: v for k, v in entry.items() if k in ("loss", "val_loss", "val_acc")},
        )
    best = max(range(len(C_GRID)), key=lambda i: (history[i]["val_acc"], -history[i]["val_loss"]))
    return C_GRID[best], history, accuracies


def _train_tfidf(
    model: MiniLMTfidfClassifier,
    params: Mapping[str, Any],
    tokenizer: TextTokenizer,
    data: _Split,
    decision: ValidationPlan,
    report: Report,
    *,
    cached: bool,
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """minilm_tfidf: a logistic regression over [TF-IDF of the wordpieces, MiniLM embedding]; its
    strength C chosen by the folds (or the val split), then fitted on train + val.

    minilm_finetune: that head is the warm-up; then the encoder's top layers and the embedding head
    are fine-tuned on train (the wordpiece weights stay), early-stopped on the val split, and the
    fine-tuned model is kept only if it beats the warm-up head on val."""
    for p in model.encoder.parameters():
        p.requires_grad_(False)
    pool_texts = data.pool_texts
    embeddings = _embed(model.encoder, tokenizer, pool_texts, max_length=params["max_length"], cached=cached)
    report("embedded the texts with MiniLM", fraction=0.3, milestone=True)
    ids = _wordpieces(tokenizer, pool_texts)
    idf = _fit_idf(tokenizer, ids)
    with torch.no_grad():
        model.tfidf.idf.copy_(torch.from_numpy(idf))
    used = np.flatnonzero(idf > 0)
    features = _features(_tfidf_matrix(ids, idf), embeddings, used)
    y = data.y_pool.numpy()
    classes = model.head.out_features
    n_train = len(data.train_texts)
    extra: dict[str, Any] = {}
    if decision.cross_validate:
        splits = kfold_indices(y, decision.folds, seed=params["seed"])
    else:
        val_index = np.arange(n_train, len(y)) if data.has_val else np.arange(n_train)
        splits = [(np.arange(n_train), val_index)]
    c, history, accuracies = _choose_c(features, y, classes, splits, report)
    finetune = params["model"] == "minilm_finetune"
    if decision.cross_validate:
        best = accuracies[C_GRID.index(c)]
        reason = f"{decision.reason}; the folds chose the linear head's strength C={c:g}"
        if finetune:
            reason += (
                "; fine-tuning the encoder on every fold would cost k runs, so its epochs are early-stopped "
                "on the val split and it is kept only if it beats this head there"
            )
        extra["cross_validation"] = summarize(
            [
                {"fold": i, "train_samples": len(f), "samples": len(h), "score": score}
                for i, ((f, h), score) in enumerate(zip(splits, best, strict=True))
            ],
            metric="accuracy",
            direction="maximize",
            chosen={"C": c},
            reason=reason,
        )
    if not finetune or not data.has_val:
        _set_head(model, _logistic(features, y, c), used)
        if finetune:
            extra["finetune"] = {
                "kept": False,
                "reason": "no val split to check the fine-tuning against the head: the head was kept",
            }
        report(f"fitted the linear head (C={c:g}) on {len(y)} texts", fraction=0.9, milestone=True)
        return history, extra
    head_only = _logistic(features[:n_train], y[:n_train], c)
    _set_head(model, head_only, used)
    head_scores = _evaluate_logits(_logistic_logits(head_only, features[n_train:], classes), data.y_val)
    pretrained = {k: v.detach().clone() for k, v in model.state_dict().items()}
    tuned_history = _finetune(model, params, tokenizer, data, report)
    tuned = max(tuned_history, key=lambda h: (h["val_acc"], -h["val_loss"]))
    kept = (tuned["val_acc"], -tuned["val_loss"]) > (head_scores["val_acc"], -head_scores["val_loss"])
    if kept:
        reason = (
            f"fine-tuned (epoch {tuned['epoch']}): val accuracy {tuned['val_acc']:.4f} against the head's "
            f"{head_scores['val_acc']:.4f}"
        )
    else:
        model.load_state_dict(pretrained)
        _set_head(model, _logistic(features, y, c), used)
        reason = (
            f"the head was kept (refitted on train + val): fine-tuning reached val accuracy "
            f"{tuned['val_acc']:.4f}, not above the head's {head_scores['val_acc']:.4f}"
        )
    extra["finetune"] = {
        "kept": kept,
        "head_val_acc": head_scores["val_acc"],
        "head_val_loss": head_scores["val_loss"],
        "finetuned_val_acc": tuned["val_acc"],
        "finetuned_val_loss": tuned["val_loss"],
        "best_epoch": tuned["epoch"],
        "reason": reason,
    }
    report(reason, fraction=0.9, milestone=True)
    offset = len(history)
    return history + [{**h, "epoch": h["epoch"] + offset} for h in tuned_history], extra


def _length_batches(ids: list[np.ndarray], size: int) -> list[list[int]]:
    """Batches of texts of similar length (little padding), in length order."""
    order = sorted(range(len(ids)), key=lambda i: len(ids[i]))
    return [order[start : start + size] for start in range(0, len(order), size)]


def _finetune(
    model: MiniLMTfidfClassifier,
    params: Mapping[str, Any],
    tokenizer: TextTokenizer,
    data: _Split,
    report: Report,
) -> list[dict[str, Any]]:
    """Fine-tune the top ``finetune_layers`` layers and the embedding head on train, from the warm-up
    head: the frozen bottom layers run once per text (their output is cached per length-sorted
    batch), layer-wise learning rates (the head at HEAD_LR_FACTOR x the rate, each lower layer
    LAYER_DECAY x the one above), early stopping on val after PATIENCE epochs without progress;
    the best epoch's weights are loaded back."""
    encoder = model.encoder
    top = min(params["finetune_layers"], len(encoder.encoder.layer))
    bottom = len(encoder.encoder.layer) - top

    def prepare(
        texts: list[str],
    ) -> list[tuple[list[int], torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]]:
        ids = _wordpieces(tokenizer, texts)
        batches = []
        with torch.no_grad():  # not inference mode: the cached tensors feed layers that learn
            for index in _length_batches(ids, params["batch_size"]):
                input_ids, mask = _tensors(tokenizer, [texts[i] for i in index])
                x, bias = encoder.bottom(input_ids, mask, bottom)
                sparse = model.sparse_head(model.tfidf(input_ids, mask))
                batches.append((index, x, bias, mask, sparse))
        return batches

    train_batches, val_batches = prepare(data.train_texts), prepare(data.val_texts)
    report("cached the frozen layers' output", fraction=0.7, milestone=True)
    layers = list(encoder.encoder.layer)[bottom:]
    for layer in layers:
        for p in layer.parameters():
            p.requires_grad_(True)
    rate = params["learning_rate"]
    groups = [{"params": list(model.head.parameters()), "lr": rate * HEAD_LR_FACTOR}]
    groups += [
        {"params": list(layer.parameters()), "lr": rate * LAYER_DECAY**depth}
        for depth, layer in enumerate(reversed(layers))
    ]
    optimizer = torch.optim.AdamW(groups, weight_decay=params["weight_decay"])
    epochs = params["epochs"]
    scheduler = torch.optim.lr_scheduler.OneCycleLR(
        optimizer,
        max_lr=[g["lr"] for g in groups],
        total_steps=epochs * len(train_batches),
        pct_start=0.1,
    )
    generator = torch.Generator().manual_seed(params["seed"])

    def logits_of(
        batch: tuple[list[int], torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor],
    ) -> torch.Tensor:
        _, x, bias, mask, sparse = batch
        logits: torch.Tensor = model.head(model.dropout(encoder.top(x, bias, mask, top))) + sparse
        return logits

    history: list[dict[str, Any]] = []
    best_score, best_state, since_best = None, None, 0
    for epoch in range(1, epochs + 1):
        model.train()
        total, seen = 0.0, 0
        for b in torch.randperm(len(train_batches), generator=generator).tolist():
            batch = train_batches[b]
            loss = torch.nn.functional.cross_entropy(logits_of(batch), data.y_train[batch[0]])
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
            scheduler.step()
            total, seen = total + loss.item() * len(batch[0]), seen + len(batch[0])
        model.eval()
        with torch.inference_mode():
            logits = torch.cat([logits_of(batch) for batch in val_batches])
            order = torch.tensor([i for batch in val_batches for i in batch[0]])
        metrics = {
            "epoch": epoch,
            "loss": total / max(seen, 1),
            **_evaluate_logits(logits, data.y_val[order]),
        }
        history.append(metrics)
        score = (metrics["val_acc"], -metrics["val_loss"])
        if best_score is None or score > best_score:
            best_score, since_best = score, 0
            best_state = {k: v.detach().clone() for k, v in model.state_dict().items()}
        else:
            since_best += 1
        report(
            f"fine-tuning epoch {epoch}/{epochs}",
            epoch=epoch,
            epochs=epochs,
            fraction=0.7 + 0.2 * epoch / epochs,
            milestone=epoch == epochs,
            **{k: v for k, v in metrics.items() if k != "epoch"},
        )
        if since_best >= PATIENCE:
            break
    if best_state is not None:
        model.load_state_dict(best_state)
    for p in model.encoder.parameters():
        p.requires_grad_(False)
    model.eval()
    return history


def _fit(
    module: torch.nn.Module,
    params: Mapping[str, Any],
    batch_inputs: Callable[[list[int]], tuple[torch.Tensor, ...]],
    y_train: torch.Tensor,
    val_inputs: Callable[[], tuple[torch.Tensor, ...]] | None,
    y_val: torch.Tensor | None,
    generator: torch.Generator,
    report: Report,
    *,
    start_fraction: float,
    val_texts: list[str] | None = None,
    tokenizer: TextTokenizer | None = None,
) -> list[dict[str, Any]]:
    """Train ``params["epochs"]`` epochs; with ``y_val``, score each epoch on val and keep the best
    epoch's weights (without, train all epochs: the final fit of a cross-validated run)."""
    trainable = [p for p in module.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(trainable, lr=params["learning_rate"], weight_decay=params["weight_decay"])
    steps = params["epochs"] * max(1, -(-len(y_train) // params["batch_size"]))
    scheduler = torch.optim.lr_scheduler.OneCycleLR(
        optimizer, max_lr=params["learning_rate"], total_steps=steps
    )
    logits_of = getattr(module, "logits", None) or module
    history: list[dict[str, Any]] = []
    best_score, best_state = None, None
    for epoch in range(1, params["epochs"] + 1):
        module.train()
        total, seen = 0.0, 0
        for index in _batches(len(y_train), params["batch_size"], generator):
            loss = torch.nn.functional.cross_entropy(logits_of(*batch_inputs(index)), y_train[index])
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
            scheduler.step()
            total, seen = total + loss.item() * len(index), seen + len(index)
        metrics: dict[str, Any] = {"epoch": epoch, "loss": total / max(seen, 1)}
        if y_val is not None:
            module.eval()
            with torch.inference_mode():
                if val_texts is None:
                    assert val_inputs is not None
                    logits = logits_of(*val_inputs())
                else:
                    assert tokenizer is not None
                    logits = torch.cat(
                        [
                            logits_of(*_tensors(tokenizer, [val_texts[i] for i in index]))
                            for index in _batches(len(val_texts), EMBED_BATCH)
                        ]
                    )
            metrics.update(_evaluate_logits(logits, y_val))
            score = (metrics["val_acc"], -metrics["val_loss"])
            if best_score is None or score > best_score:
                best_score = score
                best_state = {k: v.detach().clone() for k, v in module.state_dict().items()}
        history.append(metrics)
        report(
            f"epoch {epoch}/{params['epochs']}",
            epoch=epoch,
            epochs=params["epochs"],
            fraction=start_fraction + (0.9 - start_fraction) * epoch / params["epochs"],
            milestone=epoch == params["epochs"],
            **{k: v for k, v in metrics.items() if k != "epoch"},
        )
    if best_state is not None:
        module.load_state_dict(best_state)
    module.eval()
    return history


def export_model(
    model: torch.nn.Module,
    path: Path,
    *,
    classes: list[str],
    preprocessing: Mapping[str, Any],
    tokenizer: TextTokenizer,
    probe: list[str],
) -> dict[str, Any]:
    """ONNX with dynamic batch and token dimensions, external_data=False, checked against torch."""
    import onnx
    import onnxruntime

    from workers.shared.onnx_model import check_onnx_self_contained

    model.eval()
    batch = torch.export.Dim("batch", min=1, max=1 << 16)
    tokens = torch.export.Dim("tokens", min=2, max=int(preprocessing["max_length"]))
    example = (torch.ones(2, 7, dtype=torch.int64), torch.ones(2, 7, dtype=torch.int64))
    temp = path.with_name(f".tmp-{path.name}.{os.getpid()}")
    logging.getLogger("torch.onnx._internal.exporter._registration").setLevel(logging.ERROR)
    try:
        with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(
                model,
                example,
                str(temp),
                dynamo=True,
                external_data=False,
                opset_version=18,
                input_names=list(INPUTS),
                output_names=[OUTPUT_NAME],
                dynamic_shapes=({0: batch, 1: tokens}, {0: batch, 1: tokens}),
                verbose=False,
            )
        check_onnx_self_contained(temp)
        proto = onnx.load(str(temp))
        for key, value in (
            ("sampan.template", TEMPLATE.name),
            ("sampan.classes", json.dumps(classes)),
            ("sampan.preprocessing", json.dumps(preprocessing)),
            (METADATA_KEY, tokenizer.tokenizer.to_str()),
        ):
            entry = proto.metadata_props.add()
            entry.key, entry.value = key, value
        onnx.save(proto, str(temp))
        session = onnxruntime.InferenceSession(str(temp), providers=["CPUExecutionProvider"])
        worst = 0.0
        for texts in (probe[:1] or ["a"], probe or ["a", "b c d"]):
            inputs = tokenizer(texts)
            (actual,) = session.run([OUTPUT_NAME], inputs)
            with torch.inference_mode():
                expected = model(*(torch.from_numpy(inputs[name]) for name in INPUTS)).numpy()
            worst = max(worst, float(np.max(np.abs(actual - expected))))
            if not np.allclose(actual, expected, rtol=1e-4, atol=1e-5):
                raise ValueError(
                    f"ONNX Runtime and torch disagree on the exported text model (max abs diff {worst:.3g})"
                )
        os.replace(temp, path)
    finally:
        temp.unlink(missing_ok=True)
    return {
        "path": str(path),
        "bytes": path.stat().st_size,
        "opset": 18,
        "max_abs_diff": worst,
        "inputs": {name: ["batch", "tokens"] for name in INPUTS},
        "output": {OUTPUT_NAME: ["batch", len(classes)]},
    }


def export_onnx(checkpoint: str | os.PathLike[str], out_path: str | os.PathLike[str]) -> dict[str, Any]:
    """Re-export a training checkpoint (``model.pt``) to ONNX."""
    state = torch.load(os.fspath(checkpoint), weights_only=True)
    params = state["params"]
    if state["model"] != "bag_of_embeddings" and "sparse_head.weight" not in state["state_dict"]:
        params = {**params, "model": "minilm_head"}  # a fine-tuned model of before the TF-IDF view
    model = _build(params, len(state["classes"]), state["vocab_size"])
    model.load_state_dict(state["state_dict"])
    preprocessing, tokenizer_text = _preprocessing(params["max_length"])
    return export_model(
        model,
        Path(out_path),
        classes=list(state["classes"]),
        preprocessing=preprocessing,
        tokenizer=TextTokenizer(preprocessing, tokenizer_text),
        probe=["a short text", "another one"],
    )
