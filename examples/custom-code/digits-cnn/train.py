"""A tiny CNN for an image classification dataset version, trained by your own code on Sampan.

    sampan custom-job submit examples/custom-code/digits-cnn --dataset-version 12 -p epochs=5 --follow

The platform materialises the dataset version under $SAMPAN_DATA_DIR (manifest.json, one
``<split>.jsonl`` per split: {"id", "file", "label": class index}), passes hyperparameters as ``--name=value``
arguments (and in ``sampan.run.params``), and records the model this script writes to
$SAMPAN_OUTPUT_DIR (model.onnx + labels.json + preprocess.json) as a model version.

On a laptop: ``SAMPAN_DATA_DIR=path/to/layout python train.py --epochs=3`` (metrics go to
./outputs/metrics.jsonl, the model to ./outputs/).
"""

from __future__ import annotations

import argparse
import logging
import os
import tempfile
import time
import warnings

import numpy as np
import sampan.run as run
import torch
from PIL import Image
from torch import nn

MEAN = np.array([0.485, 0.456, 0.406], dtype=np.float32)
STD = np.array([0.229, 0.224, 0.225], dtype=np.float32)


def load_split(samples: list[dict], classes: list[str], size: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Images as a float tensor [n, 3, size, size], preprocessed exactly as preprocess.json says
    (RGB, bilinear stretch to size x size, /255, ImageNet mean/std), and their class indexes."""
    index = {name: i for i, name in enumerate(classes)}
    images, labels = [], []
    for sample in samples:
        label = sample.get("label")  # the class index (a class name is accepted too)
        if isinstance(label, str):
            label = index.get(label)
        if not isinstance(label, int) or not 0 <= label < len(classes):
            continue  # an unlabelled sample
        with Image.open(sample["file"]) as image:
            pixels = image.convert("RGB").resize((size, size), Image.Resampling.BILINEAR)
        array = (np.asarray(pixels, dtype=np.float32) / 255.0 - MEAN) / STD
        images.append(array.transpose(2, 0, 1))
        labels.append(label)
    if not images:
        return torch.zeros((0, 3, size, size)), torch.zeros((0,), dtype=torch.long)
    return torch.from_numpy(np.stack(images)), torch.tensor(labels, dtype=torch.long)


class TinyCNN(nn.Module):
    def __init__(self, classes: int, width: int = 16) -> None:
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, width, 3, padding=1),
            nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Conv2d(width, 2 * width, 3, padding=1),
            nn.ReLU(),
            nn.AdaptiveAvgPool2d(4),
        )
        self.head = nn.Linear(2 * width * 16, classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(torch.flatten(self.features(x), 1))


def accuracy(model: nn.Module, x: torch.Tensor, y: torch.Tensor) -> float:
    if len(y) == 0:
        return float("nan")
    model.eval()
    with torch.no_grad():
        return float((model(x).argmax(1) == y).float().mean())


def export_onnx(model: nn.Module, size: int, path: str) -> None:
    """A self-contained ONNX file (no external data) with a dynamic batch: input [batch, 3, size, size]."""
    model.eval()
    logging.getLogger("torch.onnx._internal.exporter._registration").setLevel(logging.ERROR)
    batch = torch.export.Dim("batch", min=1, max=4096)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(
            model,
            (torch.zeros(2, 3, size, size),),
            path,
            dynamo=True,
            external_data=False,
            input_names=["image"],
            output_names=["scores"],
            dynamic_shapes=({0: batch},),
            verbose=False,
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--lr", type=float, default=0.01)
    parser.add_argument("--batch_size", type=int, default=32)
    parser.add_argument("--image_size", type=int, default=28)
    parser.add_argument("--seed", type=int, default=0)
    args, _unknown = parser.parse_known_args()
    torch.manual_seed(args.seed)
    torch.set_num_threads(max(1, int(os.environ.get("OMP_NUM_THREADS", "1"))))

    data = run.dataset()
    if not data.task.startswith("image_classification"):
        raise SystemExit(f"this example trains image classifiers; the dataset's task is {data.task!r}")
    classes = data.classes
    run.status(f"loading {data}")
    x_train, y_train = load_split(data.samples("train"), classes, args.image_size)
    val_split = "val" if data.splits.get("val", {}).get("samples") else "train"
    x_val, y_val = load_split(data.samples(val_split), classes, args.image_size)
    print(f"{len(y_train)} training images, {len(y_val)} {val_split} images, {len(classes)} classes")

    model = TinyCNN(len(classes))
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    loss_fn = nn.CrossEntropyLoss()
    started = time.monotonic()
    for epoch in range(1, args.epochs + 1):
        model.train()
        order = torch.randperm(len(y_train))
        total = 0.0
        for start in range(0, len(order), args.batch_size):
            batch = order[start : start + args.batch_size]
            optimizer.zero_grad()
            loss = loss_fn(model(x_train[batch]), y_train[batch])
            loss.backward()
            optimizer.step()
            total += loss.item() * len(batch)
        train_loss = total / max(1, len(y_train))
        val_accuracy = accuracy(model, x_val, y_val)
        # live curves on the job page; an AutoML trial reports its objective here (may raise TrialPruned)
        run.log_metrics(step=epoch, loss=train_loss, val_accuracy=val_accuracy)
        run.status(f"epoch {epoch}/{args.epochs}", fraction=epoch / args.epochs)
    print(f"trained {args.epochs} epochs in {time.monotonic() - started:.1f} s")

    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "model.onnx")
        export_onnx(model, args.image_size, path)
        run.save_model(path, labels=classes, preprocessing={"image_size": [args.image_size, args.image_size]})


if __name__ == "__main__":
    main()
