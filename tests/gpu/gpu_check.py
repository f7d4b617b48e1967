"""The GPU check: does Sampan's CUDA path work on this host? Anyone with a GPU host runs it in a few
minutes (`bash scripts/gpu_check.sh`); it prints a verdict table and writes it as JSON.

It starts the platform as `make up` does (web + one worker with `--queues auto`, embedded SQLite and
filesystem broker in a fresh SAMPAN_HOME) and, through the SDK only:

1. the worker's `--queues auto` found the GPU and consumes the `gpu` queue;
2. a training job (image classification, scikit-learn's digits) goes to the `gpu` queue and trains on
   CUDA, with bf16 autocast where the GPU supports it;
3. the ONNX model the GPU worker exported answers like the same checkpoint exported on the CPU
   (ONNX Runtime's CPU provider, max |difference| of the logits within tolerance) and like the torch
   model on CUDA;
4. ONNX Runtime's CUDA provider (when the installed wheel has it: `onnxruntime-gpu`) serves the
   model with the CPU provider's answers within tolerance, and the hosted endpoint answers.

Without a GPU it says so and exits 1 (`--allow-cpu` runs the same steps on the CPU, which is how CI
keeps this script working). Record a GPU host's verdict in docs/benchmarks.md with the date and device.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(REPO), str(REPO / "sdk" / "src")]

import numpy as np  # noqa: E402

LOGIT_TOLERANCE = 1e-3  # max |difference| of logits between two exports of one checkpoint
CUDA_TOLERANCE = 2e-2  # ONNX Runtime's CUDA kernels (TF32 convolutions) against its CPU ones


class Verdict:
    def __init__(self) -> None:
        self.rows: list[dict[str, str]] = []

    def add(self, check: str, status: str, detail: str) -> None:
        self.rows.append({"check": check, "status": status, "detail": detail})
        print(f"[{status}] {check}: {detail}", flush=True)

    @property
    def failed(self) -> bool:
        return any(row["status"] == "FAIL" for row in self.rows)

    def table(self) -> str:
        lines = ["| check | verdict | detail |", "| --- | --- | --- |"]
        lines += [f"| {r['check']} | {r['status']} | {r['detail']} |" for r in self.rows]
        return "\n".join(lines)


def _session(path: Path, provider: str):
    import onnxruntime

    return onnxruntime.InferenceSession(str(path), providers=[provider])


def _logits(session, images: np.ndarray) -> np.ndarray:
    name = session.get_inputs()[0].name
    return np.asarray(session.run(None, {name: images})[0], dtype=np.float64)


def _test_batch(run_dir: Path, images_dir: Path, count: int) -> np.ndarray:
    """The first ``count`` digits, preprocessed as the model's preprocess.json says."""
    from workers.image_classification.preprocessing import open_image, preprocess_batch

    spec = json.loads((run_dir / "preprocess.json").read_text())
    paths = sorted(images_dir.glob("*/*.png"))[:count]
    return np.asarray(preprocess_batch([open_image(p, spec) for p in paths], spec), dtype=np.float32)


def check(args: argparse.Namespace) -> Verdict:
    import onnxruntime
    import torch

    from benchmarks.time_to_service import Platform, write_digits
    from workers.devices import detect

    verdict = Verdict()
    devices = detect()
    cuda = devices.get("cuda") or []
    if cuda:
        names = ", ".join(f"{d['name']} ({d['memory_bytes'] / 2**30:.0f} GiB)" for d in cuda)
        verdict.add(
            "GPU visible to torch", "PASS", f"{names}; torch {torch.__version__}, CUDA {torch.version.cuda}"
        )
    else:
        status = "INFO" if args.allow_cpu else "FAIL"
        verdict.add(
            "GPU visible to torch", status, f"none (torch {torch.__version__}): the CUDA path is unverified"
        )
        if not args.allow_cpu:
            return verdict
    expected_queue = "gpu" if cuda else "cpu"

    images = Path(tempfile.mkdtemp(prefix="sampan-gpu-check-"))
    write_digits(images)
    for folder in images.iterdir():  # --images: that many digits, spread over the ten classes
        for extra in sorted(folder.glob("*.png"))[max(1, args.images // 10) :]:
            extra.unlink()
    platform = Platform()
    try:
        import sampan

        client = sampan.Client(platform.url, platform.api_key, timeout=120)
        deadline, queues = time.monotonic() + 90, []
        # the worker registers after its start (the housekeeping process may have reported first)
        while expected_queue not in queues and time.monotonic() < deadline:
            workers = client.request("GET", "workers/")
            queues = sorted({q for w in workers for q in w["queues"] if w.get("alive", True)})
            time.sleep(0 if expected_queue in queues else 1)
        verdict.add(
            "worker --queues auto",
            "PASS" if expected_queue in queues else "FAIL",
            f"consumes {', '.join(queues)}",
        )
        project = client.projects.create(f"gpu check {int(time.time())}")
        dataset = client.datasets.create("digits", project=project)
        dataset.upload(images, progress=False, batch_size=200)
        version = dataset.create_version(seed=0)
        started = time.monotonic()
        job = version.train("fast", params={"epochs": args.epochs}, adapt=False)
        job.wait(progress=False, poll=0.5, timeout=args.timeout)
        seconds = time.monotonic() - started
        data = job.data
        result = data.get("result") or {}
        runtime = (result.get("metrics") or {}).get("runtime") or {}
        model = job.model_version()
        runtime = model.metrics.get("runtime") or runtime
        on_device = str(runtime.get("device", "?"))
        ok = (
            data["status"] == "succeeded"
            and data.get("queue") == expected_queue
            and on_device.startswith("cuda" if cuda else "cpu")
        )
        verdict.add(
            "training job on the gpu queue" if cuda else "training job (CPU stand-in)",
            "PASS" if ok else "FAIL",
            f"queue {data.get('queue')}, device {on_device}, autocast {runtime.get('amp') or 'off'}, "
            f"{seconds:.0f} s, test accuracy {model.metrics['test']['accuracy']:.3f}",
        )
        run_dir = Path(result["run_dir"])
        batch = _test_batch(run_dir, images, 64)

        # the worker's export against the same checkpoint exported here on the CPU
        from workers.image_classification.export import export_onnx, load_classifier

        cpu_export = Path(tempfile.mkdtemp()) / "model.cpu.onnx"
        export_onnx(run_dir / "model.pt", cpu_export)
        classifier, _ = load_classifier(run_dir / "model.pt")
        worker_logits = _logits(_session(run_dir / "model.onnx", "CPUExecutionProvider"), batch)
        cpu_logits = _logits(_session(cpu_export, "CPUExecutionProvider"), batch)
        gap = float(np.abs(worker_logits - cpu_logits).max())
        verdict.add(
            "ONNX export matches a CPU export",
            "PASS" if gap <= LOGIT_TOLERANCE else "FAIL",
            f"max abs logit difference {gap:.2e} (tolerance {LOGIT_TOLERANCE:g}) on 64 digits",
        )
        if cuda:
            with torch.no_grad():
                torch_logits = classifier.cuda().eval()(torch.from_numpy(batch).cuda()).float().cpu().numpy()
            gap = float(np.abs(torch_logits - worker_logits).max())
            verdict.add(
                "ONNX (CPU) matches torch on CUDA",
                "PASS" if gap <= CUDA_TOLERANCE else "FAIL",
                f"max abs logit difference {gap:.2e} (tolerance {CUDA_TOLERANCE:g})",
            )

        providers = onnxruntime.get_available_providers()
        if "CUDAExecutionProvider" in providers:
            session = _session(run_dir / "model.onnx", "CUDAExecutionProvider")
            used = session.get_providers()[0]
            gap = float(np.abs(_logits(session, batch) - worker_logits).max())
            verdict.add(
                "ONNX Runtime CUDA provider",
                "PASS" if used == "CUDAExecutionProvider" and gap <= CUDA_TOLERANCE else "FAIL",
                f"session on {used}, max abs logit difference vs CPU {gap:.2e} "
                f"(tolerance {CUDA_TOLERANCE:g})",
            )
        else:
            verdict.add(
                "ONNX Runtime CUDA provider",
                "INFO",
                f"not in this onnxruntime wheel ({onnxruntime.__version__}: {', '.join(providers)}); "
                "serving uses the CPU provider (install onnxruntime-gpu for CUDA serving)",
            )

        # data-parallel training (workers.distributed): one nccl rank per GPU, on multi-GPU hosts only
        if len(cuda) >= 2:
            ranks = len(cuda) if args.processes is None else args.processes
            started = time.monotonic()
            ddp = version.train("fast", params={"epochs": args.epochs}, adapt=False, processes=ranks)
            ddp.wait(progress=False, poll=0.5, timeout=args.timeout, raise_on_failure=False)
            ddp_runtime = (
                ddp.model_version().metrics.get("runtime") or {} if ddp.status == "succeeded" else {}
            )
            verdict.add(
                f"data-parallel training, {ranks} GPUs",
                "PASS"
                if ddp_runtime.get("processes") == ranks and ddp_runtime.get("backend") == "nccl"
                else "FAIL",
                f"status {ddp.status}, processes {ddp_runtime.get('processes')}, backend "
                f"{ddp_runtime.get('backend')}, {time.monotonic() - started:.0f} s"
                + (f": {ddp.data.get('error')}" if ddp.status != "succeeded" else ""),
            )
        elif cuda:
            verdict.add("data-parallel training", "INFO", "one GPU: the nccl check needs two or more")

        deployment = model.deploy("gpu-check")
        deployment.create_key("gpu-check")
        # the first image of the batch: the endpoint must give the exported model's answer
        sample = sorted(images.glob("*/*.png"))[0]
        labels = json.loads((run_dir / "labels.json").read_text())
        expected = labels[int(np.argmax(worker_logits[0]))]
        answer = deployment.predict(sample)
        verdict.add(
            "hosted endpoint answers",
            "PASS" if answer.label == expected else "FAIL",
            f"{sample.parent.name}/{sample.name} -> {answer.label} (the ONNX model says {expected})",
        )
    finally:
        platform.stop()
    return verdict


def main() -> int:
    parser = argparse.ArgumentParser(description="Check Sampan's CUDA path on this host.")
    parser.add_argument(
        "--allow-cpu", action="store_true", help="run the steps on the CPU when no GPU is found"
    )
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--images", type=int, default=1797, help="digits to train on (at most 1,797)")
    parser.add_argument("--timeout", type=float, default=240.0, help="seconds the training job may take")
    parser.add_argument("--out", type=Path, default=REPO / "artifacts" / "gpu_check.json")
    parser.add_argument(
        "--processes", type=int, help="ranks of the data-parallel check (default: every GPU; 2+ GPUs only)"
    )
    args = parser.parse_args()
    started = time.monotonic()
    verdict = check(args)
    elapsed = time.monotonic() - started
    print()
    print(verdict.table())
    print(
        f"\n{datetime.date.today().isoformat()}, {elapsed:.0f} s: {'FAILED' if verdict.failed else 'passed'}"
    )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(
        json.dumps(
            {"date": datetime.date.today().isoformat(), "seconds": round(elapsed, 1), "rows": verdict.rows},
            indent=2,
        )
    )
    return 1 if verdict.failed else 0


if __name__ == "__main__":
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    sys.exit(main())
