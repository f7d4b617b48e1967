"""Text classification on small data: k-fold cross-validation chooses the model's stopping point
or its linear head's strength, the exported ONNX model answers as the torch model does, the
``accurate`` preset keeps its fine-tuning only where it beats the warm-up head on val, frozen
MiniLM embeddings come from the cache on a second run, and the adapt rule sets epochs, batch size
and fine-tuned layers from the data and the workers.

The corpus is Python's standard library docstrings by area (tests/templates_text/corpus.py), 20 or
30 texts per class: seconds per run on two CPU cores.
"""

from __future__ import annotations

import hashlib
import shutil
from typing import Any

import numpy as np
import pytest

from tests.templates_text.corpus import balanced
from workers.templates.recommend import recommend
from workers.text_classification.evaluation import evaluate
from workers.text_classification.predictor import TextClassifier
from workers.text_classification.template import TEMPLATE
from workers.text_classification.trainer import C_GRID, train

CPU = {"gpus": 0, "cpu_count": 2, "workers": 1}


def manifest(per_class: int) -> dict[str, Any]:
    pairs = balanced(per_class, seed=3)
    classes = sorted({area for _, area in pairs})
    splits = ("train", "train", "val", "test", "train")
    samples = [
        {"id": i, "text": text, "label": classes.index(area), "split": splits[i % len(splits)]}
        for i, (text, area) in enumerate(pairs)
    ]
    return {"kind": "text", "classes": classes, "samples": samples}


def accuracy_of(result: dict[str, Any], data: dict[str, Any], split: str) -> float:
    rows = [s for s in data["samples"] if s["split"] == split]
    probabilities = TextClassifier(result["onnx"], preprocessing=result["preprocessing"]).probabilities(
        [s["text"] for s in rows]
    )
    return float(np.mean(probabilities.argmax(axis=1) == [s["label"] for s in rows]))


def test_balanced_cross_validates_its_linear_head_and_exports_the_same_model(tmp_path, monkeypatch):
    monkeypatch.setenv("SAMPAN_EMBEDDING_CACHE", str(tmp_path / "cache"))
    data = manifest(20)
    result = train({"preset": "balanced", "max_length": 64}, data, tmp_path / "run")
    cv = result["cross_validation"]
    pool = sum(s["split"] in ("train", "val") for s in data["samples"])
    assert cv["folds"] == 5 and cv["samples"] == pool and cv["metric"] == "accuracy"
    assert sum(f["train_samples"] + f["samples"] for f in cv["scores"]) == 5 * pool
    assert cv["chosen"]["C"] in C_GRID and "cross-validation" in cv["reason"]
    assert 0.5 < cv["mean"] <= 1 and cv["std"] > 0
    # one history entry per strength tried; the study objective reads the best of them
    assert [h["C"] for h in result["history"]] == list(C_GRID)
    assert result["metrics"]["val_acc"] == pytest.approx(cv["mean"])
    # the TF-IDF view and the embedding in one graph: ONNX Runtime answers as torch did
    assert result["export"]["max_abs_diff"] < 1e-4
    report = evaluate(result["onnx"], data, preprocessing=result["preprocessing"])
    assert report["accuracy"] >= 0.6, report["accuracy"]
    # the final head was fitted on train + val: it knows the val texts
    assert accuracy_of(result, data, "val") > report["accuracy"]

    holdout = train(
        {"preset": "balanced", "max_length": 64, "validation": "holdout"}, data, tmp_path / "holdout"
    )
    assert "cross_validation" not in holdout and len(holdout["history"]) == len(C_GRID)


def test_the_small_model_takes_its_stopping_epoch_from_the_folds(tmp_path):
    data = manifest(20)
    result = train(
        {"preset": "fast", "max_length": 64, "epochs": 6, "folds": 3, "seed": 2, "validation": "auto"},
        data,
        tmp_path / "run",
    )
    cv = result["cross_validation"]
    assert cv["folds"] == 3 and 1 <= cv["chosen"]["epochs"] <= 6
    # the history is the folds' mean per epoch, and the chosen epoch is its best
    assert len(result["history"]) == 6
    assert result["best_epoch"] == cv["chosen"]["epochs"]
    assert cv["mean"] == pytest.approx(result["history"][cv["chosen"]["epochs"] - 1]["val_acc"])


def test_accurate_keeps_fine_tuning_only_where_it_beats_the_warm_up_head(tmp_path, monkeypatch):
    monkeypatch.setenv("SAMPAN_EMBEDDING_CACHE", "off")
    data = manifest(15)
    result = train({"preset": "accurate", "max_length": 32, "epochs": 2, "seed": 1}, data, tmp_path / "run")
    finetune = result["finetune"]
    assert "cross_validation" in result and "val split" in result["cross_validation"]["reason"]
    assert 1 <= finetune["best_epoch"] <= 2
    val = accuracy_of(result, data, "val")
    if finetune["kept"]:
        assert finetune["finetuned_val_acc"] > finetune["head_val_acc"] or (
            finetune["finetuned_val_acc"] == finetune["head_val_acc"]
            and finetune["finetuned_val_loss"] < finetune["head_val_loss"]
        )
        assert val == pytest.approx(finetune["finetuned_val_acc"])
    else:
        assert "head was kept" in finetune["reason"]
    # either way the exported model is at least as good on val as the warm-up head was
    assert val >= finetune["head_val_acc"]
    assert result["export"]["max_abs_diff"] < 1e-4


def test_frozen_embeddings_come_from_the_cache_and_a_vanished_cache_is_a_miss(tmp_path, monkeypatch):
    from workers.text_classification.minilm import load_minilm
    from workers.text_classification.tokenization import TextTokenizer
    from workers.text_classification.trainer import _embed, _preprocessing

    cache = tmp_path / "cache"
    monkeypatch.setenv("SAMPAN_EMBEDDING_CACHE", str(cache))
    data = manifest(8)
    result = train({"preset": "balanced", "max_length": 32, "validation": "holdout"}, data, tmp_path / "run")
    texts = [s["text"] for s in data["samples"] if s["split"] in ("train", "val")]
    rows = {path.stem: np.load(path) for path in (cache / "minilm-v1-32").rglob("*.npy")}
    assert len(rows) == len(texts) and result["history"]

    encoder, (spec, tokenizer_text) = load_minilm(), _preprocessing(32)
    tokenizer = TextTokenizer(spec, tokenizer_text)
    torn = next((cache / "minilm-v1-32").rglob("*.npy"))
    torn.write_bytes(b"torn")  # a torn entry is recomputed, not trusted
    again = _embed(encoder, tokenizer, texts, max_length=32, cached=True).numpy()
    assert np.load(torn).shape == (384,)
    shutil.rmtree(cache)  # the whole cache may vanish: every row is a miss, then written again
    fresh = _embed(encoder, tokenizer, texts, max_length=32, cached=True).numpy()
    assert np.allclose(again, fresh, atol=1e-5) and len(list(cache.rglob("*.npy"))) == len(texts)
    for text, row in zip(texts, fresh, strict=True):
        assert np.allclose(rows[hashlib.sha256(text.encode()).hexdigest()], row, atol=1e-5)


def test_the_adapt_rule_follows_the_texts_and_the_workers():
    small = recommend(TEMPLATE, "fast", {"train_samples": 100, "classes": 4}, CPU)
    assert small["values"]["batch_size"] == 8 and small["values"]["epochs"] == 40
    assert [c["param"] for c in small["choices"]] == ["batch_size"]
    assert "100 training texts" in small["choices"][0]["reason"]
    large = recommend(TEMPLATE, "fast", {"train_samples": 50_000, "classes": 4}, CPU)
    assert large["values"]["epochs"] == 20 and large["values"]["batch_size"] == 32
    gpu = recommend(TEMPLATE, "accurate", {"train_samples": 5000, "classes": 4}, {**CPU, "gpus": 1})
    assert gpu["values"]["finetune_layers"] == 4 and gpu["values"]["batch_size"] == 32
    large_cpu = recommend(TEMPLATE, "accurate", {"train_samples": 40_000, "classes": 4}, CPU)
    assert large_cpu["values"]["finetune_layers"] == 1 and large_cpu["values"]["max_length"] == 64
    assert large_cpu["values"]["epochs"] == 3
    # balanced fits a convex head: nothing to adapt; a user's own value is never changed
    assert recommend(TEMPLATE, "balanced", {"train_samples": 300, "classes": 4}, CPU)["choices"] == []
    mine = recommend(
        TEMPLATE, "fast", {"train_samples": 100, "classes": 4}, CPU, overrides={"batch_size": 64}
    )
    assert mine["values"]["batch_size"] == 64 and mine["choices"] == []
