"""Training text classifiers and exporting them to one self-contained ONNX file taking
(input_ids, attention_mask) int64 [batch, tokens] (both dimensions dynamic) and answering
probabilities [batch, classes]. The tokenizer.json travels in the preprocessing spec."""

from __future__ import annotations

import contextlib
import io
import json
import logging
import os
import random
import time
import warnings
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import torch

from workers.contracts.manifest import TextManifest
from workers.contracts.preprocessing import TextPreprocessing
from workers.progress import Report, silent_report
from workers.shared.warm_start import warm_start as warm_start_from_file
from workers.text_classification.minilm import package_dir
from workers.text_classification.models import BagOfEmbeddings, MiniLMClassifier
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
    ``workers.shared.warm_start``)."""
    check_manifest(manifest)
    params = TEMPLATE.validate_params(spec.get("preset"), spec)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    random.seed(params["seed"])
    np.random.seed(params["seed"] % 2**32)
    torch.manual_seed(params["seed"])
    generator = torch.Generator().manual_seed(params["seed"])
    classes = list(manifest["classes"])
    preprocessing, tokenizer_text = _preprocessing(params["max_length"])
    tokenizer = TextTokenizer(preprocessing, tokenizer_text)
    (out / "tokenizer.json").write_text(tokenizer_text)
    train_set = [s for s in manifest["samples"] if s["split"] == "train"]
    val_set = [s for s in manifest["samples"] if s["split"] == "val"] or train_set
    train_texts, val_texts = [s["text"] for s in train_set], [s["text"] for s in val_set]
    y_train = torch.tensor([s["label"] for s in train_set])
    y_val = torch.tensor([s["label"] for s in val_set])
    started = time.monotonic()
    report(f"training {params['model']} on {len(train_set)} texts", fraction=0.0, milestone=True)
    if params["model"] == "bag_of_embeddings":
        model: torch.nn.Module = BagOfEmbeddings(
            tokenizer.vocab_size, params["embedding_dim"], len(classes), params["dropout"]
        )
    else:
        model = MiniLMClassifier(len(classes), params["dropout"])
    warm_start_info = None
    if warm_start:
        warm_start_info = warm_start_from_file(
            model,
            warm_start,
            classes=classes,
            class_keys=("head.weight", "head.bias"),
            expect={"model": params["model"], "vocab_size": tokenizer.vocab_size},
        )
    if params["model"] == "minilm_head":
        assert isinstance(model, MiniLMClassifier)
        history = _train_head(
            model, params, tokenizer, train_texts, y_train, val_texts, y_val, generator, report
        )
    else:
        history = _train_end_to_end(
            model, params, tokenizer, train_texts, y_train, val_texts, y_val, generator, report
        )
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
        probe=val_texts[:5],
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
    }


def _preprocessing(max_length: int) -> tuple[TextPreprocessing, str]:
    """The model's preprocessing spec and its tokenizer.json (kept out of the spec, see tokenization)."""
    text = tokenizer_json(package_dir() / "tokenizer.json", max_length=max_length)
    return make_spec(max_length=max_length, output=OUTPUT_NAME, tokenizer_text=text), text


def _evaluate_logits(logits: torch.Tensor, y: torch.Tensor) -> dict[str, float]:
    return {
        "val_loss": float(torch.nn.functional.cross_entropy(logits, y)),
        "val_acc": float((logits.argmax(dim=1) == y).float().mean()),
    }


def _train_head(
    model: MiniLMClassifier,
    params: Mapping[str, Any],
    tokenizer: TextTokenizer,
    train_texts: list[str],
    y_train: torch.Tensor,
    val_texts: list[str],
    y_val: torch.Tensor,
    generator: torch.Generator,
    report: Report,
) -> list[dict[str, Any]]:
    """Frozen encoder: embed every text once, then train the head on the embeddings."""
    model.encoder.eval()
    for p in model.encoder.parameters():
        p.requires_grad_(False)

    def embed(texts: list[str]) -> torch.Tensor:
        chunks = []
        with torch.inference_mode():
            for index in _batches(len(texts), EMBED_BATCH):
                chunks.append(model.encoder(*_tensors(tokenizer, [texts[i] for i in index])))
        return torch.cat(chunks)

    train_embeddings, val_embeddings = embed(train_texts), embed(val_texts)
    report("embedded the texts with MiniLM", fraction=0.3, milestone=True)
    head = torch.nn.Sequential(model.dropout, model.head)
    return _fit(
        head,
        params,
        lambda index: (train_embeddings[index],),
        y_train,
        lambda: (val_embeddings,),
        y_val,
        generator,
        report,
        start_fraction=0.3,
    )


def _train_end_to_end(
    model: torch.nn.Module,
    params: Mapping[str, Any],
    tokenizer: TextTokenizer,
    train_texts: list[str],
    y_train: torch.Tensor,
    val_texts: list[str],
    y_val: torch.Tensor,
    generator: torch.Generator,
    report: Report,
) -> list[dict[str, Any]]:
    if isinstance(model, MiniLMClassifier):
        layers = model.encoder.encoder.layer
        for p in model.encoder.parameters():
            p.requires_grad_(False)
        for layer in list(layers)[-params["finetune_layers"] :]:
            for p in layer.parameters():
                p.requires_grad_(True)

    def batch_inputs(index: list[int]) -> tuple[torch.Tensor, torch.Tensor]:
        return _tensors(tokenizer, [train_texts[i] for i in index])

    return _fit(
        model,
        params,
        batch_inputs,
        y_train,
        None,
        y_val,
        generator,
        report,
        start_fraction=0.0,
        val_texts=val_texts,
        tokenizer=tokenizer,
    )


def _fit(
    module: torch.nn.Module,
    params: Mapping[str, Any],
    batch_inputs: Callable[[list[int]], tuple[torch.Tensor, ...]],
    y_train: torch.Tensor,
    val_inputs: Callable[[], tuple[torch.Tensor, ...]] | None,
    y_val: torch.Tensor,
    generator: torch.Generator,
    report: Report,
    *,
    start_fraction: float,
    val_texts: list[str] | None = None,
    tokenizer: TextTokenizer | None = None,
) -> list[dict[str, Any]]:
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
        metrics = {"epoch": epoch, "loss": total / max(seen, 1), **_evaluate_logits(logits, y_val)}
        history.append(metrics)
        score = (metrics["val_acc"], -metrics["val_loss"])
        if best_score is None or score > best_score:
            best_score = score
            best_state = {k: v.detach().clone() for k, v in module.state_dict().items()}
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
    if state["model"] == "bag_of_embeddings":
        model: torch.nn.Module = BagOfEmbeddings(
            state["vocab_size"], params["embedding_dim"], len(state["classes"]), params["dropout"]
        )
    else:
        model = MiniLMClassifier(len(state["classes"]), params["dropout"])
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
