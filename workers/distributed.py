"""Data-parallel training on one worker host: N processes under torch's elastic launcher.

``launch_training(...)`` runs in the worker (a Celery task, a notebook, a test). It starts
``python -m workers.distributed <launch.json>`` in a session of its own; that process calls
``torch.distributed.launcher.api.elastic_launch`` (torchrun's engine: c10d rendezvous on a local
TCP port, ``max_restarts``), which spawns one rank per process. Each rank joins the process group
(gloo on CPU, nccl on CUDA: rank r on ``cuda:r``) and runs the template's trainer with
``distributed=Ranks(rank, world_size)``; the trainer wraps its model in DistributedDataParallel and
gives each rank a fixed slice of every global batch (see ``RankSampler``).

Rank 0 alone validates, checkpoints (the atomic checkpoints of
``workers.image_classification.checkpoints``), exports and reports: its progress goes as JSON lines
to ``<out_dir>/distributed/progress.jsonl``, which ``launch_training`` forwards to its own ``report``.
When a rank dies (an exception, an out-of-memory kill, ``kill -9``), the elastic agent stops the
others and starts the group again, up to ``max_restarts`` times; every rank of the new group
resumes from the newest complete checkpoint (an epoch boundary).

Cancellation: ``report`` raising ``JobCancelled`` in the caller stops the launcher (SIGTERM, which
the agent passes to the ranks) and re-raises; the run resumes from its last epoch checkpoint.
Errors that come from the input (``ValueError``, a diverged loss) are the same on every rank, so a
rank records the first one in ``distributed/error.json`` and the group ends without a restart;
``launch_training`` raises it again with its type.

Nothing here imports Django; torch is imported inside the functions that need it.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import traceback
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from workers.progress import Report, silent_report

LAUNCH_FORMAT = "sampan.distributed.launch/1"
DEFAULT_MAX_RESTARTS = 3
POLL_S = 0.2
STOP_GRACE_S = 30.0
REPO = Path(__file__).resolve().parents[1]  # on the launcher's PYTHONPATH: ``-m workers.distributed``
# errors a restart cannot fix: the rank records them and the group ends
INPUT_ERRORS: tuple[str, ...] = ("ValueError", "TemplateParamError", "ManifestError", "TrainingDiverged")


@dataclass(frozen=True)
class Ranks:
    """This process's place in the group: ``rank`` of ``world_size`` (rank 0 checkpoints and reports)."""

    rank: int
    world_size: int
    restarts: int = 0
    backend: str = "gloo"

    @property
    def leader(self) -> bool:
        return self.rank == 0


def max_processes(device_type: str) -> int:
    """Ranks a host can run: one per GPU on CUDA; on a CPU, one per core (more only oversubscribe)."""
    if device_type == "cuda":
        import torch

        return torch.cuda.device_count()
    return usable_cores()


def usable_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def distributed_dir(out_dir: Path) -> Path:
    return out_dir / "distributed"


# --- the caller's side ----------------------------------------------------------------------------


def launch_training(
    train_target: str,
    spec: Mapping[str, Any],
    manifest: Mapping[str, Any],
    out_dir: str | Path,
    report: Report,
    *,
    processes: int,
    device: str | None = None,
    options: Mapping[str, Any] | None = None,
    max_restarts: int = DEFAULT_MAX_RESTARTS,
    timeout_s: float | None = None,
) -> dict[str, Any]:
    """Train with ``processes`` ranks on this host and return rank 0's result (``result.json``).

    ``train_target``: ``"module:function"`` of a trainer that takes ``(spec, manifest, out_dir,
    report, device=..., threads=..., num_workers=..., distributed=Ranks(...), **options)``.
    ``options``: JSON-serialisable keyword arguments for it (backbone and warm-start paths).

    e.g. ``launch_training("workers.image_classification.trainer:train", {"preset": "fast"},
    manifest, "/tmp/run", silent_report, processes=2)["runtime"]["processes"] == 2``
    """
    out = Path(out_dir)
    folder = distributed_dir(out)
    folder.mkdir(parents=True, exist_ok=True)
    progress_path, error_path = folder / "progress.jsonl", folder / "error.json"
    for stale in (progress_path, error_path, out / "result.json"):
        stale.unlink(missing_ok=True)
    launch = {
        "format": LAUNCH_FORMAT,
        "train": train_target,
        "spec": dict(spec),
        "manifest": dict(manifest),
        "out_dir": str(out),
        "processes": processes,
        "device": device,
        "options": dict(options or {}),
        "max_restarts": max_restarts,
        "endpoint": f"127.0.0.1:{free_port()}",
        "run_id": uuid.uuid4().hex,
    }
    launch_path = folder / "launch.json"
    launch_path.write_text(json.dumps(launch))
    log = (folder / "launcher.log").open("wb")
    launcher = subprocess.Popen(
        [sys.executable, "-m", "workers.distributed", str(launch_path)],
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,  # the launcher, its agent and the ranks: one group to stop together
        env={**os.environ, "PYTHONPATH": python_path()},
    )
    started = time.monotonic()
    offset = 0
    try:
        while True:
            code = launcher.poll()
            offset = forward_progress(progress_path, offset, report)
            if code is not None:
                break
            if timeout_s is not None and time.monotonic() - started > timeout_s:
                raise TimeoutError(f"distributed training did not finish within {timeout_s:.0f} s")
            time.sleep(POLL_S)
    except BaseException:  # JobCancelled, a timeout, the worker shutting down: stop the whole group
        stop_group(launcher)
        raise
    finally:
        log.close()
    if error_path.exists():
        raise recorded_error(json.loads(error_path.read_text()))
    result_path = out / "result.json"
    if code != 0 or not result_path.exists():
        tail = (folder / "launcher.log").read_text(errors="replace")[-3000:]
        raise RuntimeError(
            f"distributed training with {processes} processes failed (launcher exit code {code}, "
            f"after up to {max_restarts} restarts):\n{tail}"
        )
    result: dict[str, Any] = json.loads(result_path.read_text())
    return result


def python_path() -> str:
    return os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))


def forward_progress(path: Path, offset: int, report: Report) -> int:
    """Call ``report`` for each complete line rank 0 appended since ``offset``; the new offset."""
    if not path.exists():
        return offset
    with path.open("rb") as handle:
        handle.seek(offset)
        chunk = handle.read()
    end = chunk.rfind(b"\n") + 1
    for line in chunk[:end].splitlines():
        event = json.loads(line)
        report(event["message"], fraction=event["fraction"], milestone=event["milestone"], **event["metrics"])
    return offset + end


def stop_group(launcher: subprocess.Popen[bytes]) -> None:
    """SIGTERM to the launcher's session (the agent stops its ranks), SIGKILL after a grace period."""
    if launcher.poll() is not None:
        return
    with contextlib.suppress(ProcessLookupError):
        os.killpg(launcher.pid, signal.SIGTERM)
    try:
        launcher.wait(timeout=STOP_GRACE_S)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(launcher.pid, signal.SIGKILL)
        launcher.wait()


def recorded_error(record: Mapping[str, Any]) -> Exception:
    """The exception a rank recorded, with its own type where the caller knows it."""
    message = str(record["message"])
    name = record["type"]
    if name == "TrainingDiverged":
        from workers.image_classification.trainer import TrainingDiverged

        return TrainingDiverged(message)
    if name == "TemplateParamError":
        return ValueError(message)
    return ValueError(message) if name in INPUT_ERRORS else RuntimeError(f"{name}: {message}")


# --- the launcher process -------------------------------------------------------------------------


def run_launcher(launch_path: Path) -> int:
    """``python -m workers.distributed launch.json``: the elastic agent and its ranks."""
    from torch.distributed.launcher.api import LaunchConfig, elastic_launch

    launch = json.loads(launch_path.read_text())
    watch_parent(os.getppid())
    # A fresh store for every round: the rendezvous's shared TCPStore outlives a restart, and the new
    # ranks' gloo would read the dead ranks' addresses from it and wait for them (a hang, seen after
    # kill -9). Unshared, rank 0 of each round hosts its own store on a new port.
    os.environ["TORCH_DISABLE_SHARE_RDZV_TCP_STORE"] = "1"
    config = LaunchConfig(
        min_nodes=1,
        max_nodes=1,
        nproc_per_node=int(launch["processes"]),
        run_id=launch["run_id"],
        rdzv_backend="c10d",
        rdzv_endpoint=launch["endpoint"],
        max_restarts=int(launch["max_restarts"]),
        monitor_interval=0.5,
        start_method="spawn",
    )
    elastic_launch(config, rank_main)(str(launch_path))
    return 0


def watch_parent(parent: int) -> None:
    """End this process when its parent goes (a worker killed with -9 leaves no orphaned ranks)."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)
        os.kill(os.getpid(), signal.SIGTERM)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def rank_main(launch_path: str) -> None:
    """One rank: join the process group, train, leave. Rank 0 writes result.json."""
    import torch
    import torch.distributed as dist

    launch = json.loads(Path(launch_path).read_text())
    rank, world_size = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    local_rank = int(os.environ.get("LOCAL_RANK", rank))
    restarts = int(os.environ.get("TORCHELASTIC_RESTART_COUNT", "0"))
    out_dir = Path(launch["out_dir"])
    folder = distributed_dir(out_dir)
    watch_parent(os.getppid())
    (folder / f"rank-{rank}.pid").write_text(str(os.getpid()))  # for operators (and the tests) to find
    from workers.image_classification.data import default_loader_workers
    from workers.image_classification.trainer import resolve_device

    device = resolve_device(launch["device"])
    if device.type == "cuda":
        device = torch.device("cuda", local_rank)
        torch.cuda.set_device(device)
    backend = "nccl" if device.type == "cuda" else "gloo"
    threads = max(1, usable_cores() // world_size)
    os.environ["OMP_NUM_THREADS"] = str(threads)
    module, _, name = str(launch["train"]).partition(":")
    train = getattr(importlib.import_module(module), name)
    report: Report = ProgressFile(folder / "progress.jsonl") if rank == 0 else silent_report
    dist.init_process_group(backend)
    try:
        train(
            launch["spec"],
            launch["manifest"],
            out_dir,
            report,
            device=str(device),
            threads=threads,
            num_workers=0 if device.type == "cpu" else default_loader_workers("cuda", threads),
            distributed=Ranks(rank, world_size, restarts=restarts, backend=backend),
            **launch["options"],
        )
    except Exception as exc:
        if type(exc).__name__ not in INPUT_ERRORS:
            raise  # the agent restarts the group
        record_error(folder / "error.json", exc, rank)
    finally:
        with contextlib.suppress(Exception):
            dist.destroy_process_group()


def record_error(path: Path, exc: BaseException, rank: int) -> None:
    record = {
        "type": type(exc).__name__,
        "message": str(exc),
        "rank": rank,
        "traceback": traceback.format_exc()[-4000:],
    }
    with contextlib.suppress(FileExistsError), path.open("x") as handle:  # the first rank's record wins
        json.dump(record, handle)


class ProgressFile:
    """Rank 0's ``report``: one JSON line per call, flushed, for ``launch_training`` to forward."""

    def __init__(self, path: Path) -> None:
        self.handle = path.open("a", encoding="utf-8")

    def __call__(
        self, message: str = "", *, fraction: float | None = None, milestone: bool = False, **metrics: Any
    ) -> None:
        line = json.dumps(
            {"message": message, "fraction": fraction, "milestone": milestone, "metrics": metrics},
            default=float,
        )
        self.handle.write(line + "\n")
        self.handle.flush()


if __name__ == "__main__":
    # through the package's module, so the ranks unpickle workers.distributed.rank_main, not __main__'s
    from workers import distributed

    sys.exit(distributed.run_launcher(Path(sys.argv[1])))
