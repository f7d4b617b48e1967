"""``sampan.run``: what a user's own training code uses inside a platform run (a custom job, an
AutoML trial, a notebook) and on a laptop alike. No network, no platform client: it reads the
environment the worker sets and talks to the worker over two inherited pipes.

>>> import sampan.run as run
>>> epochs = int(run.params.get("epochs", 3))          # hyperparameters, types kept
>>> data = run.dataset()                               # $SAMPAN_DATA_DIR/manifest.json
>>> for sample in data.samples("train"): ...   # {"id", "file" (absolute), "label" (class index)}
>>> run.log_metrics(step=epoch, loss=0.31, val_accuracy=0.93)   # live curves; may raise TrialPruned
>>> run.save_model("model.onnx", labels=data.classes, preprocessing={"image_size": [28, 28]})

The environment (set by the worker, docs/custom-code.md):

- ``SAMPAN_PARAMS``: the hyperparameters as a JSON object (also passed as ``--name=value`` arguments);
- ``SAMPAN_DATA_DIR``: the materialised dataset version (unset when the job has none);
- ``SAMPAN_OUTPUT_DIR``: where the model and artifacts go (``./outputs`` outside a run);
- ``SAMPAN_RUN_EVENTS_FD`` / ``SAMPAN_RUN_REPLY_FD``: the pipes of the run-event protocol: one JSON
  object per line (``{"kind": "metrics" | "artifact" | "status", "version": 1, ...}``) out, and one
  ``{"kind": "run_reply", "version": 1, "prune": bool}`` line back for each ``metrics`` event;
- ``SAMPAN_OBJECTIVE``: the metric an AutoML trial reports (:data:`objective`).

Outside a platform run (no ``SAMPAN_RUN_EVENTS_FD``) :func:`log_metrics` prints one line and appends
to ``<output_dir>/metrics.jsonl``, :func:`status` and :func:`log_artifact` print, so the same script
runs unchanged on a laptop.
"""

from __future__ import annotations

import json
import math
import numbers
import os
import re
import shutil
import sys
import threading
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

if TYPE_CHECKING:
    from typing import TypeAlias

    HyperValue: TypeAlias = str | int | float | bool

__all__ = [
    "Dataset",
    "TrialPruned",
    "data_dir",
    "dataset",
    "in_platform_run",
    "log_artifact",
    "log_metrics",
    "objective",
    "output_dir",
    "params",
    "save_model",
    "status",
]

# The run-event protocol's version (workers/contracts/custom_code.py RUN_EVENT_VERSION; restated: the
# SDK does not import the platform's packages)
RUN_EVENT_VERSION = 1
DATA_LAYOUT_VERSION = 1
METRIC_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.]{0,63}$")
# The image preprocessing spec's defaults (workers/contracts/preprocessing.py ImagePreprocessing, the
# image templates' make_spec): ``save_model(preprocessing={"image_size": [h, w]})`` fills the rest
IMAGE_PREPROCESSING_DEFAULTS: dict[str, Any] = {
    "kind": "image",
    "version": 1,
    "format": "sampan.preprocess/1",
    "resize_mode": "stretch",
    "crop_fraction": 1.0,
    "resample": "bilinear",
    "color": "RGB",
    "alpha_background": [255, 255, 255],
    "scale": 1.0 / 255.0,
    "mean": [0.485, 0.456, 0.406],
    "std": [0.229, 0.224, 0.225],
    "layout": "NCHW",
    "dtype": "float32",
}


class TrialPruned(Exception):
    """Raised by :func:`log_metrics` when the worker answers "prune": the AutoML study stopped this
    trial early. Let it propagate (the run ends, recorded as pruned), or catch it to clean up and
    re-raise."""

    def __init__(self, step: int, metrics: Mapping[str, float]) -> None:
        shown = ", ".join(f"{k}={v:g}" for k, v in metrics.items())
        super().__init__(f"trial pruned at step {step} ({shown})")
        self.step = step
        self.metrics = dict(metrics)


# --- the environment ---------------------------------------------------------------------------


def _params() -> dict[str, HyperValue]:
    raw = os.environ.get("SAMPAN_PARAMS", "").strip()
    if not raw:
        return {}
    try:
        value = json.loads(raw)
    except ValueError as exc:
        raise ValueError(f"SAMPAN_PARAMS is not JSON: {exc}") from None
    if not isinstance(value, dict):
        raise ValueError(
            f"SAMPAN_PARAMS must be a JSON object of hyperparameters, not {type(value).__name__}"
        )
    return value


def _data_dir() -> Path | None:
    raw = os.environ.get("SAMPAN_DATA_DIR")
    return Path(raw) if raw else None


def _output_dir() -> Path:
    return Path(os.environ.get("SAMPAN_OUTPUT_DIR") or "outputs")


def _objective() -> str | None:
    return os.environ.get("SAMPAN_OBJECTIVE") or None


def in_platform_run() -> bool:
    """Whether this process runs under a Sampan worker (the run-event pipe is there)."""
    return bool(os.environ.get("SAMPAN_RUN_EVENTS_FD"))


def __getattr__(name: str) -> Any:
    # module attributes read the environment when used (a notebook can set it after the import)
    if name == "params":
        return _params()
    if name == "data_dir":
        return _data_dir()
    if name == "output_dir":
        return _output_dir()
    if name == "objective":
        return _objective()
    raise AttributeError(f"module 'sampan.run' has no attribute {name!r}")


if TYPE_CHECKING:  # what the module-level __getattr__ answers, for type checkers
    params: dict[str, HyperValue]
    data_dir: Path | None
    output_dir: Path
    objective: str | None


# --- the channel to the worker -----------------------------------------------------------------


class _Channel:
    """The two pipes (events out, replies in), opened once per pair of descriptors."""

    def __init__(self, events_fd: int, reply_fd: int | None) -> None:
        self.events_fd = events_fd
        self.reply_fd = reply_fd
        self._replies: IO[bytes] | None = None
        self.lock = threading.Lock()

    def send(self, event: Mapping[str, Any]) -> None:
        line = (json.dumps(event, separators=(",", ":"), allow_nan=False) + "\n").encode()
        view = memoryview(line)
        while view:
            written = os.write(self.events_fd, view)
            view = view[written:]

    def reply(self) -> dict[str, Any] | None:
        if self.reply_fd is None:
            return None
        if self._replies is None:
            self._replies = os.fdopen(self.reply_fd, "rb", buffering=0, closefd=False)
        line = self._replies.readline()
        if not line:
            raise RuntimeError("the Sampan worker closed the run's reply channel (the run is ending)")
        try:
            reply = json.loads(line)
        except ValueError:
            raise RuntimeError(f"the Sampan worker's reply is not JSON: {line[:200]!r}") from None
        if not isinstance(reply, dict) or reply.get("kind") != "run_reply":
            raise RuntimeError(f"unexpected reply from the Sampan worker: {line[:200]!r}")
        return reply


_channel_lock = threading.Lock()
_channel: _Channel | None = None
_last_step = -1


def _fd(name: str) -> int | None:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return None
    try:
        return int(raw)
    except ValueError:
        raise RuntimeError(f"{name} must be a file descriptor number, not {raw!r}") from None


def _current_channel() -> _Channel | None:
    global _channel
    events = _fd("SAMPAN_RUN_EVENTS_FD")
    if events is None:
        return None
    reply = _fd("SAMPAN_RUN_REPLY_FD")
    with _channel_lock:
        if _channel is None or _channel.events_fd != events or _channel.reply_fd != reply:
            _channel = _Channel(events, reply)
        return _channel


def _local_write(record: Mapping[str, Any]) -> None:
    folder = _output_dir()
    folder.mkdir(parents=True, exist_ok=True)
    with (folder / "metrics.jsonl").open("a", encoding="utf-8") as fh:
        fh.write(json.dumps(record, allow_nan=False) + "\n")


# --- metrics, status, artifacts ----------------------------------------------------------------


def _as_float(name: str, value: Any) -> float:
    if isinstance(value, (bool, str, bytes)):
        raise TypeError(f"metric {name!r} must be a number, not {type(value).__name__} ({value!r})")
    if not isinstance(value, numbers.Real) and hasattr(value, "item"):  # a 0-d tensor or array
        try:
            value = value.item()
        except (TypeError, ValueError, RuntimeError):
            raise TypeError(f"metric {name!r} must be a single number; got {type(value).__name__}") from None
    if not isinstance(value, numbers.Real) or isinstance(value, bool):
        raise TypeError(f"metric {name!r} must be a number, not {type(value).__name__} ({value!r})")
    number = float(value)
    if not math.isfinite(number):
        raise ValueError(f"metric {name!r} must be finite, not {number}")
    return number


def _check_step(step: Any) -> int:
    global _last_step
    if step is None:
        return _last_step + 1
    if isinstance(step, bool) or not isinstance(step, numbers.Integral):
        raise TypeError(f"step must be an integer, not {type(step).__name__} ({step!r})")
    if int(step) < 0:
        raise ValueError(f"step must be 0 or more, not {step}")
    return int(step)


def log_metrics(step: int | None = None, **metrics: Any) -> None:
    """Report metrics at ``step`` (default: the previous step + 1, from 0): the job's live curves,
    and for an AutoML trial the objective's intermediate value.

    Names are ``[A-Za-z_][A-Za-z0-9_.]*`` (64 characters at most); values finite numbers (ints,
    floats, NumPy scalars, 0-d tensors). Raises :class:`TrialPruned` when the study prunes the trial.
    """
    global _last_step
    if not metrics:
        raise ValueError("log_metrics needs at least one metric: log_metrics(step=3, loss=0.25)")
    checked: dict[str, float] = {}
    for name, value in metrics.items():
        if not METRIC_NAME.match(name):
            raise ValueError(
                f"metric name {name!r} is not allowed: use letters, digits, '_' and '.', starting with a "
                "letter or '_' (64 characters at most)"
            )
        checked[name] = _as_float(name, value)
    number = _check_step(step)
    _last_step = number
    channel = _current_channel()
    if channel is None:
        shown = " ".join(f"{k}={v:.6g}" for k, v in checked.items())
        print(f"step {number}: {shown}", flush=True)
        _local_write({"step": number, **checked})
        return
    with channel.lock:
        channel.send({"kind": "metrics", "version": RUN_EVENT_VERSION, "step": number, "metrics": checked})
        reply = channel.reply()
    if reply is not None and reply.get("prune"):
        raise TrialPruned(number, checked)


def status(message: str, fraction: float | None = None) -> None:
    """Say what the code is doing (the job's progress line); ``fraction`` 0..1 moves its bar."""
    if not isinstance(message, str):
        raise TypeError(f"message must be a string, not {type(message).__name__}")
    event: dict[str, Any] = {"kind": "status", "version": RUN_EVENT_VERSION, "message": message[:500]}
    if fraction is not None:
        value = _as_float("fraction", fraction)
        if not 0.0 <= value <= 1.0:
            raise ValueError(f"fraction must be between 0 and 1, not {value}")
        event["fraction"] = value
    channel = _current_channel()
    if channel is None:
        suffix = f" ({event['fraction']:.0%})" if "fraction" in event else ""
        print(f"status: {message}{suffix}", flush=True)
        return
    with channel.lock:
        channel.send(event)


def _inside(path: Path, folder: Path) -> bool:
    try:
        path.resolve().relative_to(folder.resolve())
        return True
    except ValueError:
        return False


def log_artifact(path: str | os.PathLike[str], name: str | None = None) -> Path:
    """Keep a file with the job (a plot, a report, a checkpoint). A file outside the output directory
    is copied into ``<output_dir>/artifacts/``; returns where it is kept."""
    source = Path(path)
    if not source.is_file():
        raise FileNotFoundError(f"log_artifact: no such file: {source}")
    folder = _output_dir()
    if _inside(source, folder):
        kept = source
    else:
        target_dir = folder / "artifacts"
        target_dir.mkdir(parents=True, exist_ok=True)
        kept = target_dir / (name or source.name)
        shutil.copyfile(source, kept)
    label = name or source.name
    relative = kept.resolve().relative_to(folder.resolve()).as_posix()
    channel = _current_channel()
    if channel is None:
        print(f"artifact: {label} -> {kept}", flush=True)
    else:
        with channel.lock:
            channel.send({"kind": "artifact", "version": RUN_EVENT_VERSION, "path": relative, "name": label})
    return kept


# --- the model ---------------------------------------------------------------------------------


def _full_preprocessing(preprocessing: Mapping[str, Any]) -> dict[str, Any]:
    if not isinstance(preprocessing, Mapping):
        raise TypeError(f"preprocessing must be a dict, not {type(preprocessing).__name__}")
    given = dict(preprocessing)
    if given.get("kind", "image") != "image":
        return given  # a text or tabular spec: written as given (the platform checks it)
    size = given.get("image_size")
    if isinstance(size, int) and not isinstance(size, bool):
        size = [size, size]
    if (
        not isinstance(size, (list, tuple))
        or len(size) != 2
        or not all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in size)
    ):
        raise ValueError(
            "preprocessing needs the model's input size: image_size = [height, width] (positive integers)"
        )
    return {**IMAGE_PREPROCESSING_DEFAULTS, **given, "image_size": [int(v) for v in size]}


def save_model(
    onnx_path: str | os.PathLike[str],
    *,
    labels: Iterable[str],
    preprocessing: Mapping[str, Any],
) -> Path:
    """Write the run's model to the output directory: ``model.onnx`` (copied unless it is already
    there), ``labels.json`` (the class names, in score order) and ``preprocess.json`` (image specs
    are completed from ``image_size`` with the platform's defaults: RGB, ImageNet mean/std, NCHW).

    The platform records it as a model version after the same checks as an uploaded model (one float
    input ``[batch, 3, height, width]``, scores ``[batch, classes]``). Returns the output directory."""
    source = Path(onnx_path)
    if not source.is_file():
        raise FileNotFoundError(f"save_model: no such ONNX file: {source}")
    names = list(labels) if not isinstance(labels, str) else [labels]
    if not names:
        raise ValueError("save_model needs the class names: labels=[...]")
    for label in names:
        if not isinstance(label, str) or not label.strip():
            raise TypeError(f"labels must be non-empty strings; got {label!r}")
    if len(set(names)) != len(names):
        raise ValueError(f"labels must be unique; got {names}")
    spec = _full_preprocessing(preprocessing)
    folder = _output_dir()
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / "model.onnx"
    if not (target.exists() and target.resolve() == source.resolve()):
        shutil.copyfile(source, target)
    (folder / "labels.json").write_text(json.dumps(names, ensure_ascii=False), encoding="utf-8")
    (folder / "preprocess.json").write_text(json.dumps(spec, indent=2), encoding="utf-8")
    if not in_platform_run():
        print(f"model: {target} ({len(names)} classes)", flush=True)
    return folder


# --- the dataset -------------------------------------------------------------------------------


class Dataset:
    """The dataset version of the run, as materialised under ``data_dir`` (docs/custom-code.md):
    ``manifest.json``, the files under ``files/``, one samples file per split."""

    def __init__(self, root: Path, manifest: Mapping[str, Any]) -> None:
        self.root = root
        self.manifest = dict(manifest)

    def __repr__(self) -> str:
        counts = ", ".join(f"{name} {split.get('samples', '?')}" for name, split in self.splits.items())
        return f"<sampan.run.Dataset {self.task} version {self.dataset_version}: {counts}>"

    @property
    def classes(self) -> list[str]:
        return list(self.manifest.get("classes") or [])

    @property
    def task(self) -> str:
        return str(self.manifest.get("task", ""))

    @property
    def data_kind(self) -> str:
        return str(self.manifest.get("data_kind", ""))

    @property
    def dataset_version(self) -> int | None:
        value = self.manifest.get("dataset_version")
        return int(value) if value is not None else None

    @property
    def target(self) -> str | None:
        value = self.manifest.get("target")
        return str(value) if value is not None else None

    @property
    def splits(self) -> dict[str, dict[str, Any]]:
        return dict(self.manifest.get("splits") or {})

    def _split_path(self, split: str) -> Path:
        splits = self.splits
        if split not in splits:
            raise KeyError(f"no split {split!r} in this dataset (it has {', '.join(splits) or 'none'})")
        return self.root / str(splits[split]["path"])

    def samples(self, split: str = "train") -> list[dict[str, Any]]:
        """The samples of a split (``<split>.jsonl``), with ``file`` made an absolute path."""
        path = self._split_path(split)
        if path.suffix != ".jsonl":
            raise ValueError(
                f"split {split!r} is a table ({path.name}): read it with dataset.table({split!r})"
            )
        rows: list[dict[str, Any]] = []
        with path.open(encoding="utf-8") as fh:
            for line in fh:
                if not line.strip():
                    continue
                row = json.loads(line)
                if isinstance(row.get("file"), str):
                    row["file"] = str(self.root / row["file"])
                rows.append(row)
        return rows

    def table(self, split: str = "train") -> Any:
        """A table split (``<split>.parquet``) as a pandas DataFrame (needs pandas and pyarrow)."""
        path = self._split_path(split)
        if path.suffix != ".parquet":
            raise ValueError(f"split {split!r} is not a table ({path.name}): read it with dataset.samples()")
        try:
            import pandas as pd
        except ImportError as exc:
            raise ImportError(
                "dataset.table() needs pandas (and pyarrow): pip install pandas pyarrow"
            ) from exc
        return pd.read_parquet(path)


def dataset(path: str | os.PathLike[str] | None = None) -> Dataset:
    """The run's dataset (``$SAMPAN_DATA_DIR``, or ``path``: a folder with ``manifest.json``)."""
    root = Path(path) if path is not None else _data_dir()
    if root is None:
        raise RuntimeError(
            "this run has no dataset: SAMPAN_DATA_DIR is not set (submit the job with a dataset version, "
            "or give run.dataset() a folder with a manifest.json)"
        )
    manifest_path = root / "manifest.json"
    if not manifest_path.is_file():
        raise FileNotFoundError(f"no manifest.json in {root}")
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    if not isinstance(manifest, dict) or manifest.get("kind") != "custom_data_layout":
        raise ValueError(f"{manifest_path} is not a Sampan data layout (kind custom_data_layout)")
    return Dataset(root, manifest)


if __name__ == "__main__":  # pragma: no cover - `python -m sampan.run` prints what a run would see
    print(json.dumps({"params": _params(), "data_dir": str(_data_dir()), "output_dir": str(_output_dir())}))
    sys.exit(0)
