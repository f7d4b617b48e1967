"""The image classification trainer: ``train(spec, manifest, out_dir, report) -> result``.

One call trains (or resumes) a run in ``out_dir``, then writes the model file, the ONNX export and
its JSON companions. A checkpoint is taken at the end of every epoch and written by a background
thread while the next epoch trains; the epoch's report waits for the write (see below).
``JobCancelled`` raised by ``report`` is honoured after the checkpoint is on disk (one is also
taken in the middle of an epoch), so the next call continues exactly where this one stopped.

Progress (``report(message, fraction=..., milestone=..., **metrics)``, see ``workers.progress``),
at most one non-milestone call per ``REPORT_INTERVAL_S``:

- training steps: ``epoch`` (1-based, the epoch in progress), ``epochs``, ``step`` (optimizer
  steps so far), ``steps`` (in the whole run), ``loss`` and ``train_acc`` (running means over the
  epoch so far), ``lr``, ``samples_per_s`` (this epoch), ``eta_s``;
- validation: ``epoch``, ``epochs``, ``step``, ``steps``, ``validated``, ``validation_size``;
- end of each epoch, ``milestone=True``: ``epoch`` (just completed), ``epochs``, ``step``,
  ``steps``, ``loss``, ``train_acc``, ``val_loss``, ``val_acc`` (None without a val split),
  ``lr``, ``samples_per_s``, ``eta_s``, ``best_epoch``. It is sent once the epoch's checkpoint
  is complete (marker written), so "epoch k done" means a resume starts at epoch k or later:
  before the first step of the next epoch that finds the write done (or is due to report: it
  then waits for the write), at the latest before the next validation or the export; no other
  report comes before it. A run resumed at an epoch boundary sends its last finished epoch's
  report once more first (its attempt may have been killed between that epoch's checkpoint and
  its report);
- before the export, ``milestone=True``: ``epoch``, ``epochs``, ``step``, ``steps``, ``eta_s=0``.

Files in ``out_dir``::

    checkpoints/epoch-*-step-*.pt(.complete)   training state, every epoch (see checkpoints.py)
    model.pt          the weights to deploy (best validation epoch), with arch, classes, preprocessing
    model.onnx        the ONNX export of model.pt, verified against torch
    preprocess.json   the preprocessing spec; labels.json: class names in output order
    result.json       the returned result
    folds/fold-<i>/   a cross-validated run's folds (see cross_validation.py): fold.json once finished
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import math
import random
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import torch
from torch import nn

from workers.contracts.manifest import ImageManifest
from workers.image_classification import checkpoints
from workers.image_classification.cross_validation import (
    FOLD_FORMAT,
    StageReport,
    choose_epochs,
    describe,
    fold_manifests,
    pooled_manifest,
    read_fold,
    validation_plan,
    write_fold,
)
from workers.image_classification.data import (
    DECODED_CACHE_BYTES,
    EpochSampler,
    ImageSamples,
    RankSampler,
    default_loader_workers,
    make_loader,
    usable_cpus,
)
from workers.image_classification.manifest import Manifest, parse_manifest
from workers.image_classification.models import build_model, load_backbone
from workers.image_classification.preprocessing import make_spec
from workers.image_classification.template import TEMPLATE
from workers.image_classification.transforms import EvalTransform, TrainTransform
from workers.progress import JobCancelled, Report, silent_report
from workers.shared.validation import ValidationPlan
from workers.shared.warm_start import warm_start as warm_start_from_file

if TYPE_CHECKING:
    from workers.distributed import Ranks

CHECKPOINT_FORMAT = "sampan.image_classification.checkpoint/1"
MODEL_FORMAT = "sampan.image_classification.model/1"
REPORT_INTERVAL_S = 0.5  # between step reports; epoch ends are always reported
KEEP_CHECKPOINTS = 2


class TrainingDiverged(RuntimeError):
    pass


def resolve_device(device: str | None) -> torch.device:
    """``None`` or ``"auto"``: CUDA when available, else CPU; otherwise the named device."""
    if device is None or device == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    resolved = torch.device(device)
    if resolved.type == "cuda" and not torch.cuda.is_available():
        raise ValueError(f"device {device!r} was requested but CUDA is not available here")
    return resolved


def train(
    spec: Mapping[str, Any],
    manifest: ImageManifest,
    out_dir: str | Path,
    report: Report = silent_report,
    *,
    device: str | None = None,
    backbone: str | Path | None = None,
    warm_start: str | Path | None = None,
    num_workers: int | None = None,
    threads: int | None = None,
    processes: int = 1,
    distributed: Ranks | None = None,
) -> dict[str, Any]:
    """Train an image classifier on ``manifest`` with the parameters ``spec``; resume if ``out_dir``
    holds a complete checkpoint of the same run.

    ``spec``: a preset name under ``"preset"`` plus parameter overrides, e.g. ``{"preset": "fast",
    "epochs": 5}``; the output of ``TEMPLATE.validate_params`` is accepted as is.
    ``backbone``: a state_dict file to initialise all but the head from (ignored when resuming).
    ``warm_start``: a model version's ``model.pt`` to start from (same model and preprocessing; the
    head's rows matched by class name, see ``workers.shared.warm_start``; ignored when resuming).
    ``device``: ``"auto"`` (default), ``"cpu"``, ``"cuda"`` or ``"cuda:N"``. ``num_workers`` and
    ``threads``: data-loader processes and torch's intra-op threads (defaults suit the host).

    ``validation`` (``auto``, ``holdout``, ``cross_validation``) and ``folds``: with small data the
    train and val splits are pooled into ``folds`` folds that choose the stopping epoch, the final
    model trains on all of them and ``result["cross_validation"]`` describes the folds (see
    ``workers.image_classification.cross_validation``); otherwise the val split picks the best epoch.

    ``processes`` > 1: data-parallel training with that many ranks on this host (DistributedDataParallel
    under torch's elastic launcher, see ``workers.distributed``; the same global ``batch_size``, each
    rank a slice of every batch). Small data that cross-validates trains its folds in one process.
    ``distributed``: set by the launcher in each rank, never by a caller.

    Raises ``TemplateParamError`` or ``ManifestError`` for bad input, ``JobCancelled`` when
    ``report`` asks to stop (after saving a checkpoint).
    """
    params = TEMPLATE.validate_params(spec.get("preset"), spec)
    data = parse_manifest(manifest, check_files=True)
    decision = validation_plan(params, data, device_type=resolve_device(device).type)
    if processes > 1 and not decision.cross_validate:
        check_processes(processes, params, data, device)
        from workers.distributed import launch_training

        options = {k: str(v) for k, v in (("backbone", backbone), ("warm_start", warm_start)) if v}
        return launch_training(
            "workers.image_classification.trainer:train",
            params,
            dict(manifest),
            out_dir,
            report,
            processes=processes,
            device=device,
            options=options,
        )
    if decision.cross_validate:
        return cross_validate_and_train(
            params,
            data,
            Path(out_dir),
            report,
            decision=decision,
            device=device,
            backbone=backbone,
            warm_start=warm_start,
            num_workers=num_workers,
            threads=threads,
        )
    return TrainingRun.start(
        params,
        data,
        out_dir,
        report,
        device=device,
        backbone=backbone,
        warm_start=warm_start,
        num_workers=num_workers,
        threads=threads,
        distributed=distributed,
    )


def check_processes(processes: int, params: Mapping[str, Any], data: Manifest, device: str | None) -> None:
    """A data-parallel run needs a batch slice for every rank and, on CUDA, a GPU for every rank."""
    from workers.distributed import max_processes

    batch = min(int(params["batch_size"]), len(data.split("train")))
    if processes > batch:
        raise ValueError(
            f"processes {processes} is more than the global batch of {batch} images: every rank "
            "needs a part of each batch"
        )
    resolved = resolve_device(device)
    if resolved.type == "cuda" and processes > max_processes("cuda"):
        raise ValueError(
            f"processes {processes} asks for more GPUs than this worker has ({max_processes('cuda')})"
        )


def run_fingerprint(
    params: Mapping[str, Any],
    data: Manifest,
    backbone: str | Path | None,
    warm_start: str | Path | None = None,
) -> str:
    backbone_digest = checkpoints.sha256_of(Path(backbone)) if backbone else None
    run: dict[str, Any] = {"params": dict(params), "data": data.fingerprint(), "backbone": backbone_digest}
    if warm_start:
        run["warm_start"] = checkpoints.sha256_of(Path(warm_start))
    canonical = json.dumps(run, sort_keys=True)
    return hashlib.sha256(canonical.encode()).hexdigest()


def rng_state() -> dict[str, Any]:
    numpy_state = np.random.get_state()
    assert isinstance(numpy_state, tuple)  # the legacy MT19937 state, always a tuple here
    return {
        "python": random.getstate(),
        "numpy": {
            "name": numpy_state[0],
            "keys": torch.from_numpy(numpy_state[1].astype(np.int64)),
            "pos": int(numpy_state[2]),
            "has_gauss": int(numpy_state[3]),
            "cached_gaussian": float(numpy_state[4]),
        },
        "torch": torch.get_rng_state(),
        "cuda": torch.cuda.get_rng_state_all() if torch.cuda.is_available() else [],
    }


def restore_rng_state(state: Mapping[str, Any]) -> None:
    python = state["python"]
    random.setstate((python[0], tuple(python[1]), python[2]))
    n = state["numpy"]
    np.random.set_state(
        (n["name"], n["keys"].numpy().astype(np.uint32), n["pos"], n["has_gauss"], n["cached_gaussian"])
    )
    torch.set_rng_state(state["torch"])
    if state["cuda"] and torch.cuda.is_available() and len(state["cuda"]) == torch.cuda.device_count():
        torch.cuda.set_rng_state_all(state["cuda"])


def lr_schedule(
    optimizer: torch.optim.Optimizer, params: Mapping[str, Any], steps_per_epoch: int
) -> torch.optim.lr_scheduler.LambdaLR:
    """Per-step learning-rate factors. cosine: linear warm-up over ``warmup_epochs``, then cosine
    decay to 0. onecycle: cosine rise from lr/25 to lr over the first 25 % of steps, then cosine
    decay to lr/250000 (the one-cycle policy's learning rate, defined for any number of steps)."""
    total = params["epochs"] * steps_per_epoch

    def anneal(start: float, end: float, progress: float) -> float:
        return end + (start - end) * 0.5 * (1.0 + math.cos(math.pi * min(1.0, progress)))

    if params["schedule"] == "onecycle":
        rise = max(1, round(0.25 * total))

        def factor(step: int) -> float:  # closures: the scheduler's state_dict then holds only numbers
            if step < rise:
                return anneal(1 / 25, 1.0, step / rise)
            return anneal(1.0, 1 / 250_000, (step - rise) / max(1, total - rise))
    else:
        warmup: int = params["warmup_epochs"] * steps_per_epoch

        def factor(step: int) -> float:
            if step < warmup:
                return (step + 1) / warmup
            return anneal(1.0, 0.0, (step - warmup) / max(1, total - warmup))

    return torch.optim.lr_scheduler.LambdaLR(optimizer, factor)


def parameter_groups(model: nn.Module, weight_decay: float) -> list[dict[str, Any]]:
    """Decay conv and linear weights only, not biases or normalization scales."""
    decay: list[nn.Parameter] = []
    no_decay: list[nn.Parameter] = []
    for parameter in model.parameters():
        (decay if parameter.ndim > 1 else no_decay).append(parameter)
    return [{"params": decay, "weight_decay": weight_decay}, {"params": no_decay, "weight_decay": 0.0}]


class TrainingRun:
    """One training call of a template's run. Subclasses (other image templates) override the hooks:
    ``_create_model``, ``_datasets``, ``_train_step``, ``_validation_start/_step/_end``,
    ``_export``, ``_companion_files``, ``_model_file_tags``; ``metric`` names the validation figure
    that picks the best epoch (higher is better)."""

    template_name = TEMPLATE.name
    model_format = MODEL_FORMAT
    metric = "val_acc"
    reports_accuracy = True  # train_acc in reports, history and metrics
    class_keys: tuple[str, ...] = ("fc.weight", "fc.bias")  # one row per class (a warm start maps them)

    @classmethod
    def start(
        cls,
        params: dict[str, Any],
        data: Any,
        out_dir: str | Path,
        report: Report,
        *,
        device: str | None,
        backbone: str | Path | None,
        num_workers: int | None,
        threads: int | None,
        warm_start: str | Path | None = None,
        distributed: Ranks | None = None,
    ) -> dict[str, Any]:
        """Run (or resume) to the end; torch's intra-op thread count is given back afterwards."""
        run = cls(
            params,
            data,
            Path(out_dir),
            report,
            device=resolve_device(device),
            backbone=backbone,
            warm_start=warm_start,
            num_workers=num_workers,
            threads=threads,
            distributed=distributed,
        )
        previous_threads = torch.get_num_threads()
        try:
            return run.execute()
        finally:
            torch.set_num_threads(previous_threads)

    def __init__(
        self,
        params: dict[str, Any],
        data: Manifest,
        out_dir: Path,
        report: Report,
        *,
        device: torch.device,
        backbone: str | Path | None,
        num_workers: int | None,
        threads: int | None,
        warm_start: str | Path | None = None,
        distributed: Ranks | None = None,
    ) -> None:
        self.params = params
        self.ranks = distributed
        self.data = data
        self.out_dir = out_dir
        self.checkpoint_dir = out_dir / "checkpoints"
        self.report = report
        self.device = device
        self.backbone = backbone
        self.warm_start = warm_start
        self.warm_start_info: dict[str, Any] | None = None
        cpus = usable_cpus()
        self.num_workers = default_loader_workers(device.type, cpus) if num_workers is None else num_workers
        self.threads = threads or max(1, cpus - self.num_workers)
        self.fingerprint = run_fingerprint(params, data, backbone, warm_start)
        self.preprocessing = make_spec(params["image_size"])
        self.train_samples = data.split("train")
        self.val_samples = data.split("val")
        self.batch_size = min(params["batch_size"], len(self.train_samples))
        if self.batch_size < 2:
            raise ValueError("training needs at least 2 samples in the train split")
        self.steps_per_epoch = len(self.train_samples) // self.batch_size  # the last partial batch is dropped
        # a rank's slice of every global batch [first, last); its loss is scaled so that DDP's mean of
        # the ranks' gradients is the gradient of the global batch's mean loss, for any split
        world = distributed.world_size if distributed else 1
        rank = distributed.rank if distributed else 0
        self.slice = (rank * self.batch_size // world, (rank + 1) * self.batch_size // world)
        self.local_batch = self.slice[1] - self.slice[0]
        self.loss_scale = self.local_batch * world / self.batch_size
        # epochs this call trains to (a cross-validated final fit stops at the folds' choice; the
        # learning-rate schedule always spans params["epochs"])
        self.epochs: int = params["epochs"]
        self.total_steps: int = self.epochs * self.steps_per_epoch
        self.use_amp = device.type == "cuda" and torch.cuda.is_bf16_supported()

    # --- set-up ---------------------------------------------------------------------------------

    def _build(self) -> None:
        params = self.params
        torch.set_num_threads(self.threads)
        random.seed(params["seed"])
        np.random.seed(params["seed"])
        torch.manual_seed(params["seed"])
        if self.device.type == "cuda":
            torch.backends.cudnn.benchmark = True
        self.model = self._create_model()
        if self.warm_start:
            self.warm_start_info = warm_start_from_file(
                self.model,
                self.warm_start,
                classes=list(self.data.classes),
                class_keys=self.class_keys,
                expect=self._warm_start_tags(),
            )
        if self.ranks is not None and self.device.type == "cuda":  # batch statistics over all ranks
            self.model = nn.SyncBatchNorm.convert_sync_batchnorm(self.model)
        # Module.to takes memory_format (torch's docs); its type stub's overloads leave it out
        self.model.to(self.device, memory_format=torch.channels_last)  # type: ignore[call-overload]
        self.train_model: nn.Module = self.model  # what training steps call: DDP's wrapper when distributed
        if self.ranks is not None:
            from torch.nn.parallel import DistributedDataParallel

            # broadcast_buffers=False: no broadcast of rank 0's BatchNorm statistics before every
            # forward (measured ~7 % of a CPU step); rank 0 validates and saves with its own, and
            # SyncBatchNorm on CUDA keeps every rank's statistics equal anyway
            self.train_model = DistributedDataParallel(
                self.model,
                device_ids=[self.device.index] if self.device.type == "cuda" else None,
                broadcast_buffers=False,
            )
        self.optimizer = torch.optim.AdamW(
            parameter_groups(self.model, params["weight_decay"]), lr=params["learning_rate"]
        )
        self.scheduler = lr_schedule(self.optimizer, params, self.steps_per_epoch)
        self.train_set, val_set = self._datasets(DECODED_CACHE_BYTES // max(1, self.num_workers))
        self.sampler = (
            EpochSampler(len(self.train_set), seed=params["seed"])
            if self.ranks is None
            else RankSampler(
                len(self.train_set), seed=params["seed"], batch_size=self.batch_size, part=self.slice
            )
        )
        self.train_loader = make_loader(
            self.train_set,
            batch_size=self.local_batch,
            sampler=self.sampler,
            num_workers=self.num_workers,
            device_type=self.device.type,
            drop_last=True,
            seed=params["seed"],
        )
        self.val_loader = None
        if val_set is not None:
            self.val_loader = make_loader(
                val_set,
                batch_size=2 * self.batch_size,
                sampler=None,
                num_workers=self.num_workers,
                device_type=self.device.type,
                drop_last=False,
                seed=params["seed"],
            )

    def _create_model(self) -> nn.Module:
        """The network (with the uploaded backbone loaded, recorded in ``backbone_info``) and its loss."""
        model = build_model(
            self.params["model"], len(self.data.classes), width=float(self.params.get("width", 1.0))
        )
        self.backbone_info = load_backbone(model, self.backbone) if self.backbone else None
        self.criterion = nn.CrossEntropyLoss(label_smoothing=self.params["label_smoothing"])
        return model

    def _warm_start_tags(self) -> dict[str, Any]:
        """What a warm start's model file must share with this run (besides the weights' shapes)."""
        return {"arch": self.params["model"], "preprocessing": self.preprocessing}

    def _datasets(self, cache_bytes: int) -> tuple[ImageSamples, ImageSamples | None]:
        """The train split's dataset (augmented) and the val split's (or None without one)."""
        params = self.params
        train_transform = TrainTransform(
            self.preprocessing, augmentation=params["augmentation"], horizontal_flip=params["horizontal_flip"]
        )
        train_set = ImageSamples(
            self.train_samples, train_transform, seed=params["seed"], cache_bytes=cache_bytes
        )
        if not self.val_samples:
            return train_set, None
        val_set = ImageSamples(
            self.val_samples, EvalTransform(self.preprocessing), seed=params["seed"], cache_bytes=cache_bytes
        )
        return train_set, val_set

    def _autocast(self) -> contextlib.AbstractContextManager[Any]:
        return torch.autocast("cuda", dtype=torch.bfloat16) if self.use_amp else contextlib.nullcontext()

    def _resume(self) -> None:
        """Load the newest complete checkpoint, if any; otherwise start at epoch 0. Distributed: rank 0
        clears what a killed writer left before any rank reads."""
        self.removed_files = []
        if self.ranks is None or self.ranks.leader:
            self.removed_files = checkpoints.remove_incomplete(self.checkpoint_dir)
        if self.ranks is not None:
            import torch.distributed as dist

            dist.barrier()
        state, info, self.skipped_checkpoints = checkpoints.load_latest(
            self.checkpoint_dir, map_location=self.device
        )
        self.epoch, self.batch_in_epoch, self.step = 0, 0, 0
        self.epoch_progress: dict[str, float] = {}
        self.history: list[dict[str, Any]] = []
        self.best: dict[str, Any] | None = None
        self.best_model: dict[str, torch.Tensor] | None = None
        self.elapsed_before = 0.0
        self.resumed_from = None
        self.writer = checkpoints.CheckpointWriter(self.checkpoint_dir, keep=KEEP_CHECKPOINTS)
        self.writer.last = info
        if state is None:
            return
        if state.get("format") != CHECKPOINT_FORMAT or state.get("fingerprint") != self.fingerprint:
            raise ValueError(
                f"{self.out_dir} holds checkpoints of a different run (other parameters, data or "
                "backbone); train in an empty directory or delete its checkpoints/"
            )
        self.model.load_state_dict(state["model"])
        self.optimizer.load_state_dict(state["optimizer"])
        self.scheduler.load_state_dict(state["scheduler"])
        self.epoch, self.batch_in_epoch, self.step = state["epoch"], state["batch_in_epoch"], state["step"]
        self.epoch_progress = dict(state["epoch_progress"] or {})
        self.history = list(state["history"])
        self.best = state["best"]
        self.best_model = state["best_model"]
        self.elapsed_before = float(state["elapsed_s"])
        self.backbone_info = state["backbone"]
        self.warm_start_info = state.get("warm_start")
        restore_rng_state(state["rng"])
        assert info is not None
        self.resumed_from = {
            "epoch": self.epoch,
            "step": self.step,
            "batch_in_epoch": self.batch_in_epoch,
            "checkpoint": str(info.path),
        }

    # --- the loop -------------------------------------------------------------------------------

    def execute(self) -> dict[str, Any]:
        self.out_dir.mkdir(parents=True, exist_ok=True)
        self._build()
        self._resume()
        self.started = time.monotonic()
        self.run_steps = 0  # steps taken by this call (for the ETA)
        self.run_step_seconds = 0.0
        self.val_seconds: list[float] = []
        leader = self.ranks is None or self.ranks.leader
        # the finished epoch's report, held back until its checkpoint is complete (_send_epoch_report)
        self.epoch_report: Callable[[], None] | None = None
        if leader and self.resumed_from is not None and self.batch_in_epoch == 0 and self.history:
            # the checkpoint of an epoch is written before its report is sent: an attempt killed
            # in between left that epoch unreported (a study's pruner would never see it), so a
            # run resumed at an epoch boundary sends its last finished epoch's report again
            self._epoch_report()()
        dirty = False  # weights changed since the last checkpoint
        try:
            while self.epoch < self.epochs:
                dirty = True
                self._train_epoch()
                if not leader:  # the other ranks leave validation, checkpoints and reports to rank 0
                    self._finish_epoch(None, None, 0.0)
                    dirty = False
                    continue
                self._send_epoch_report(wait=True)  # the previous epoch's, if no step sent it
                val_loss, val_acc, val_seconds = self._validate()
                self._finish_epoch(val_loss, val_acc, val_seconds)
                self._checkpoint()
                dirty = False
                self.epoch_report = self._epoch_report()
        except JobCancelled:
            last = self.writer.wait()
            with contextlib.suppress(JobCancelled):  # recorded before report raises again
                self._send_epoch_report(wait=True)
            # cancelled by the held-back epoch report before this epoch's first step: nothing new
            if dirty and (last is None or last.step != self.step):
                self._checkpoint()
                self.writer.wait()
            raise
        except BaseException:
            with contextlib.suppress(Exception):  # keep the last good checkpoint; report the original error
                self.writer.wait()
                self._send_epoch_report(wait=True)  # not when the write failed: wait() raised
            raise
        self.writer.wait()
        self._send_epoch_report(wait=True)
        if not leader:
            return {"rank": self.ranks.rank if self.ranks else 0, "epochs": self.epoch}
        return self._finish()

    def _train_step(self, batch: Any) -> tuple[torch.Tensor, int, torch.Tensor | None]:
        """One batch's forward pass: (loss, images, correct predictions or None where the task has no
        accuracy)."""
        inputs, labels = batch
        inputs = inputs.to(self.device, non_blocking=True, memory_format=torch.channels_last)
        labels = labels.to(self.device, non_blocking=True)
        with self._autocast():
            logits = self.train_model(inputs)
            loss = self.criterion(logits, labels)
        return loss, labels.shape[0], (logits.detach().argmax(1) == labels).sum()

    def _train_epoch(self) -> None:
        model, device = self.model, self.device
        model.train()
        epochs = self.epochs
        self.sampler.set_epoch(self.epoch, skip=self.batch_in_epoch * self.batch_size)
        progress = self.epoch_progress or {"loss_sum": 0.0, "correct": 0, "seen": 0, "seconds": 0.0}
        loss_sum = torch.zeros((), dtype=torch.float64, device=device)
        correct = torch.zeros((), dtype=torch.int64, device=device)
        seen_before, seconds_before = int(progress["seen"]), float(progress["seconds"])
        seen = 0
        epoch_start = time.monotonic()
        self.last_report = epoch_start

        def snapshot() -> dict[str, float]:
            return {
                "loss_sum": float(progress["loss_sum"]) + float(loss_sum),
                "correct": int(progress["correct"]) + int(correct),
                "seen": seen_before + seen,
                "seconds": seconds_before + time.monotonic() - epoch_start,
            }

        for batch in self.train_loader:
            if self.epoch_report is not None:  # the previous epoch's report, before this epoch's first
                self._send_epoch_report(wait=time.monotonic() - self.last_report >= REPORT_INTERVAL_S)
            loss, count, batch_correct = self._train_step(batch)
            self.optimizer.zero_grad(set_to_none=True)
            (loss * self.loss_scale if self.loss_scale != 1.0 else loss).backward()
            self.optimizer.step()
            self.scheduler.step()
            self.step += 1
            self.batch_in_epoch += 1
            self.run_steps += 1
            loss_sum += loss.detach() * count
            if batch_correct is not None:
                correct += batch_correct
            seen += count
            now = time.monotonic()
            if now - self.last_report >= REPORT_INTERVAL_S:
                if self.epoch_report is not None:  # still held back: it comes first, in this one's place
                    self._send_epoch_report(wait=True)
                    continue
                self.last_report = now
                self.epoch_progress = current = snapshot()
                self.run_step_seconds = now - self.started - sum(self.val_seconds)
                self._check_finite(current)
                self.report(
                    f"epoch {self.epoch + 1}/{epochs}, step {self.step}/{self.total_steps}",
                    fraction=self.step / self.total_steps,
                    epoch=self.epoch + 1,
                    epochs=epochs,
                    step=self.step,
                    steps=self.total_steps,
                    loss=current["loss_sum"] / max(1, current["seen"]),
                    **self._accuracy(current),
                    lr=self.optimizer.param_groups[0]["lr"],
                    samples_per_s=seen * self.batch_size / self.local_batch / max(1e-9, now - epoch_start),
                    eta_s=self._eta(),
                )
        if self.ranks is not None:  # the epoch's figures over every rank's slice
            import torch.distributed as dist

            images = torch.tensor(float(seen), dtype=torch.float64, device=device)
            totals = torch.stack([loss_sum, correct.to(torch.float64), images])
            dist.all_reduce(totals)
            loss_sum, correct, seen = totals[0], totals[1].round().to(torch.int64), int(totals[2].item())
        self.epoch_progress = snapshot()
        self.run_step_seconds = time.monotonic() - self.started - sum(self.val_seconds)
        self._check_finite(self.epoch_progress)

    def _accuracy(self, progress: Mapping[str, float]) -> dict[str, Any]:
        """``train_acc`` of the epoch so far, for tasks that have one."""
        return {"train_acc": progress["correct"] / max(1, progress["seen"])} if self.reports_accuracy else {}

    def _check_finite(self, progress: Mapping[str, float]) -> None:
        if not math.isfinite(progress["loss_sum"]):
            raise TrainingDiverged(
                f"the training loss is not finite at epoch {self.epoch + 1}, step {self.step}; "
                "try a lower learning_rate"
            )

    @torch.inference_mode()
    def _validate(self) -> tuple[float | None, float | None, float]:
        """(val_loss, the val split's ``metric``, seconds); Nones without a val split."""
        if self.val_loader is None:
            return None, None, 0.0
        started = time.monotonic()
        self.model.eval()
        self._validation_start()
        total = 0
        size = len(self.val_samples)
        for batch in self.val_loader:
            total += self._validation_step(batch, total)
            now = time.monotonic()
            if now - self.last_report >= REPORT_INTERVAL_S:  # a long validation stays cancellable
                self.last_report = now
                self.report(
                    f"epoch {self.epoch + 1}/{self.epochs}: validating, {total}/{size} images",
                    fraction=self.step / self.total_steps,
                    epoch=self.epoch + 1,
                    epochs=self.epochs,
                    step=self.step,
                    steps=self.total_steps,
                    validated=total,
                    validation_size=size,
                )
        val_loss, value = self._validation_end(total)
        seconds = time.monotonic() - started
        self.val_seconds.append(seconds)
        return val_loss, value, seconds

    def _validation_start(self) -> None:
        self.val_loss_sum = torch.zeros((), dtype=torch.float64, device=self.device)
        self.val_correct = torch.zeros((), dtype=torch.int64, device=self.device)

    def _validation_step(self, batch: Any, done: int) -> int:
        """Accumulate one val batch (``done`` images came before it); returns its image count."""
        inputs, labels = batch
        inputs = inputs.to(self.device, non_blocking=True, memory_format=torch.channels_last)
        labels = labels.to(self.device, non_blocking=True)
        with self._autocast():
            logits = self.model(inputs)
        self.val_loss_sum += nn.functional.cross_entropy(logits.float(), labels, reduction="sum")
        self.val_correct += (logits.argmax(1) == labels).sum()
        return int(labels.shape[0])

    def _validation_end(self, total: int) -> tuple[float, float]:
        return float(self.val_loss_sum) / total, int(self.val_correct) / total

    def _finish_epoch(self, val_loss: float | None, value: float | None, val_seconds: float) -> None:
        progress = self.epoch_progress
        self.epoch += 1
        entry = {
            "epoch": self.epoch,
            "step": self.step,
            "train_loss": progress["loss_sum"] / max(1, progress["seen"]),
            **self._accuracy(progress),
            "val_loss": val_loss,
            self.metric: value,
            "lr": self.optimizer.param_groups[0]["lr"],
            "samples_per_s": progress["seen"] / max(1e-9, progress["seconds"]),
            "train_seconds": progress["seconds"],
            "val_seconds": val_seconds,
        }
        self.history.append(entry)
        self.batch_in_epoch = 0
        self.epoch_progress = {}
        if value is not None and (self.best is None or value > self.best[self.metric]):
            self.best = {"epoch": self.epoch, self.metric: value, "val_loss": val_loss}
            self.best_model = {k: v.detach().to("cpu", copy=True) for k, v in self.model.state_dict().items()}

    def _eta(self) -> float:
        remaining_steps = self.total_steps - self.step
        per_step = self.run_step_seconds / self.run_steps if self.run_steps else 0.0
        per_validation = sum(self.val_seconds) / len(self.val_seconds) if self.val_seconds else 0.0
        remaining_epochs: int = self.epochs - self.epoch - (0 if self.batch_in_epoch == 0 else 1)
        return remaining_steps * per_step + max(0, remaining_epochs) * per_validation

    def _epoch_report(self) -> Callable[[], None]:
        """The report of the epoch just finished, as it stands now, to send later."""
        entry = self.history[-1]
        epochs = self.epochs
        value = entry[self.metric]
        return functools.partial(
            self.report,
            f"epoch {self.epoch}/{epochs} done: {self.metric} {value:.4f}"
            if value is not None
            else f"epoch {self.epoch}/{epochs} done",
            fraction=self.step / self.total_steps,
            milestone=True,
            epoch=self.epoch,
            epochs=epochs,
            step=self.step,
            steps=self.total_steps,
            loss=entry["train_loss"],
            **({"train_acc": entry["train_acc"]} if self.reports_accuracy else {}),
            val_loss=entry["val_loss"],
            **{self.metric: value},
            lr=entry["lr"],
            samples_per_s=entry["samples_per_s"],
            eta_s=self._eta(),
            best_epoch=self.best["epoch"] if self.best else None,
        )

    def _send_epoch_report(self, *, wait: bool) -> None:
        """Send the held-back epoch report once its checkpoint is on disk with its marker (a worker
        killed after "epoch k done" then resumes from epoch k, never before); ``wait=False`` sends
        only when the write is already done."""
        send = self.epoch_report
        if send is None or (not wait and self.writer.busy):
            return
        self.epoch_report = None
        self.writer.wait()  # re-raises a failed write: that epoch is then never reported as done
        send()
        self.last_report = time.monotonic()  # the next step report comes REPORT_INTERVAL_S later

    # --- persistence ----------------------------------------------------------------------------

    def _state(self) -> dict[str, Any]:
        return {
            "format": CHECKPOINT_FORMAT,
            "fingerprint": self.fingerprint,
            "arch": self.params["model"],
            "num_classes": len(self.data.classes),
            "classes": list(self.data.classes),
            "preprocessing": self.preprocessing,
            "params": dict(self.params),
            "model": self.model.state_dict(),
            "optimizer": self.optimizer.state_dict(),
            "scheduler": self.scheduler.state_dict(),
            "epoch": self.epoch,
            "batch_in_epoch": self.batch_in_epoch,
            "step": self.step,
            "epoch_progress": self.epoch_progress if self.batch_in_epoch else None,
            "history": self.history,
            "best": self.best,
            "best_model": self.best_model,
            "backbone": self.backbone_info,
            "warm_start": self.warm_start_info,
            "rng": rng_state(),
            "elapsed_s": self.elapsed_before + time.monotonic() - self.started,
        }

    def _checkpoint(self) -> None:
        # best_model is replaced on improvement, never changed in place: the writer may share it.
        self.writer.submit(self._state(), epoch=self.epoch, step=self.step, immutable=("best_model",))

    def _channels_tag(self) -> dict[str, Any]:
        """A narrowed network's channels (``width`` < 1), which export and compression rebuild it with."""
        width = float(self.params.get("width", 1.0))
        if width == 1.0:
            return {}
        from workers.image_classification.models import default_channels

        return {"channels": default_channels(self.params["model"], width)}

    def _model_file_tags(self) -> dict[str, Any]:
        """Entries a subclass adds to model.pt (e.g. its template)."""
        return {}

    def _export(self, model_path: Path) -> dict[str, Any]:
        from workers.image_classification.export import export_onnx

        return export_onnx(model_path, self.out_dir / "model.onnx")

    def _companion_files(self) -> dict[str, Any]:
        """The JSON files written next to model.onnx: name -> content."""
        return {"preprocess.json": self.preprocessing, "labels.json": list(self.data.classes)}

    def _finish(self) -> dict[str, Any]:
        weights = self.best_model if self.best_model is not None else self.model.state_dict()
        chosen_epoch = self.best["epoch"] if self.best else self.epoch
        model_path = self.out_dir / "model.pt"
        model_file = {
            "format": self.model_format,
            **self._model_file_tags(),
            "arch": self.params["model"],
            **self._channels_tag(),
            "num_classes": len(self.data.classes),
            "classes": list(self.data.classes),
            "preprocessing": self.preprocessing,
            "params": dict(self.params),
            "epoch": chosen_epoch,
            "model": {k: v.detach().cpu() for k, v in weights.items()},
        }
        checkpoints.atomic_write(model_path, lambda handle: torch.save(model_file, handle))
        self.report(
            "exporting the model to ONNX",
            fraction=1.0,
            milestone=True,
            epoch=self.epoch,
            epochs=self.epochs,
            step=self.step,
            steps=self.total_steps,
            eta_s=0.0,
        )
        onnx_info = self._export(model_path)
        for name, content in self._companion_files().items():
            checkpoints.atomic_write_json(self.out_dir / name, content)
        preprocess_path, labels_path = self.out_dir / "preprocess.json", self.out_dir / "labels.json"
        last = self.history[-1]
        train_seconds = sum(h["train_seconds"] for h in self.history)
        samples = sum(h["samples_per_s"] * h["train_seconds"] for h in self.history)
        assert self.writer.last is not None
        result: dict[str, Any] = {
            "template": self.template_name,
            "params": dict(self.params),
            "classes": list(self.data.classes),
            "epochs": self.epoch,
            "best_epoch": chosen_epoch,
            "metrics": {
                "train_loss": last["train_loss"],
                **({"train_acc": last["train_acc"]} if self.reports_accuracy else {}),
                "val_loss": last["val_loss"],
                self.metric: last[self.metric],
                f"best_{self.metric}": self.best[self.metric] if self.best else None,
                "samples_per_s": samples / max(1e-9, train_seconds),
                "train_seconds": train_seconds,
                "elapsed_s": self.elapsed_before + time.monotonic() - self.started,
            },
            "history": self.history,
            "checkpoint": str(self.writer.last.path),
            "model": str(model_path),
            "onnx": str(self.out_dir / "model.onnx"),
            "export": onnx_info,
            "preprocessing": self.preprocessing,
            "preprocessing_path": str(preprocess_path),
            "labels_path": str(labels_path),
            "data": self.data.summary(),
            "resumed_from": self.resumed_from,
            "skipped_checkpoints": self.skipped_checkpoints,
            "removed_incomplete_files": self.removed_files,
            "backbone": self.backbone_info,
            "warm_start": self.warm_start_info,
            "runtime": {
                "device": str(self.device),
                "threads": self.threads,
                "loader_workers": self.num_workers,
                "amp": "bfloat16" if self.use_amp else None,
                "torch": torch.__version__,
                "processes": self.ranks.world_size if self.ranks else 1,
                **({"backend": self.ranks.backend, "restarts": self.ranks.restarts} if self.ranks else {}),
            },
        }
        checkpoints.atomic_write_json(self.out_dir / "result.json", result)
        return result


class FoldRun(TrainingRun):
    """One fold of a cross-validation: trains on the other folds, scores its held-out fold (the
    ``val`` split) every epoch, and keeps only those scores (``fold.json``), not a model."""

    def _finish(self) -> dict[str, Any]:
        record = {
            "format": FOLD_FORMAT,
            "fingerprint": self.fingerprint,
            "train_samples": len(self.train_samples),
            "samples": len(self.val_samples),
            "history": [
                {
                    "epoch": h["epoch"],
                    "train_loss": h["train_loss"],
                    "val_loss": h["val_loss"],
                    self.metric: h[self.metric],
                    "train_seconds": h["train_seconds"],
                }
                for h in self.history
            ],
            "elapsed_s": self.elapsed_before + time.monotonic() - self.started,
        }
        write_fold(self.out_dir / "fold.json", record)
        return record


class CrossValidatedFinalRun(TrainingRun):
    """The final fit after the folds: every pooled image in ``train``, the learning-rate schedule of
    ``params["epochs"]`` stopped after the folds' chosen epoch; each epoch's ``val_acc``/``val_loss``
    are the folds' means at that epoch (the held-out estimate for these weights)."""

    def __init__(
        self,
        *args: Any,
        chosen: int,
        means: list[float],
        losses: list[float | None],
        cross_validation: dict[str, Any],
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        self.epochs = chosen
        self.total_steps = chosen * self.steps_per_epoch
        self.fold_means, self.fold_losses = means, losses
        self.cross_validation = cross_validation

    def _validate(self) -> tuple[float | None, float | None, float]:
        return self.fold_losses[self.epoch], self.fold_means[self.epoch], 0.0

    def _finish(self) -> dict[str, Any]:
        result = super()._finish()
        result["cross_validation"] = self.cross_validation
        checkpoints.atomic_write_json(self.out_dir / "result.json", result)
        return result


def cross_validate_and_train(
    params: dict[str, Any],
    data: Manifest,
    out_dir: Path,
    report: Report,
    *,
    decision: ValidationPlan,
    device: str | None,
    backbone: str | Path | None,
    warm_start: str | Path | None,
    num_workers: int | None,
    threads: int | None,
) -> dict[str, Any]:
    """Run the folds (skipping finished ones), choose the stopping epoch, train the final model on
    the pooled train and val images; returns the final run's result with ``cross_validation``."""
    resolved = resolve_device(device)
    folds = fold_manifests(data, decision.folds, seed=params["seed"])
    share = 1.0 / (len(folds) + 1)  # of the progress bar, per fold and for the final fit
    options: dict[str, Any] = {
        "device": resolved,
        "backbone": backbone,
        "warm_start": warm_start,
        "num_workers": num_workers,
        "threads": threads,
    }
    previous_threads = torch.get_num_threads()
    try:
        records = []
        for fold, (fold_data, _, _) in enumerate(folds):
            fold_dir = out_dir / "folds" / f"fold-{fold}"
            stage = StageReport(report, start=fold * share, width=share, fold=fold, folds=len(folds))
            run = FoldRun(params, fold_data, fold_dir, stage, **options)
            record = read_fold(fold_dir / "fold.json", run.fingerprint)
            if record is None:
                record = run.execute()
                stage.finished(record, TrainingRun.metric)
            records.append(record)
        metric = TrainingRun.metric
        chosen, means, losses = choose_epochs(records, metric)
        summary = describe(records, chosen, decision, metric)
        final = CrossValidatedFinalRun(
            params,
            pooled_manifest(data),
            out_dir,
            StageReport(report, start=len(folds) * share, width=share),
            chosen=chosen,
            means=means,
            losses=losses,
            cross_validation=dict(summary),
            **options,
        )
        return final.execute()
    finally:
        torch.set_num_threads(previous_threads)
