"""The GPU check (scripts/gpu_check.sh) keeps working on machines without a GPU: with --allow-cpu it
runs every step of the CUDA path's check on the CPU against a platform it starts itself, says the CUDA
path is unverified, and fails without --allow-cpu rather than pass on a host that has no GPU."""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from tests.harness import REPO

pytestmark = [pytest.mark.integration, pytest.mark.slow]


def _run(tmp_path, *args: str) -> tuple[subprocess.CompletedProcess[str], dict]:
    out = tmp_path / "verdict.json"
    env = {
        k: v for k, v in os.environ.items() if not k.startswith(("SAMPAN_", "DATABASE_URL", "CELERY_BROKER"))
    }
    result = subprocess.run(
        ["bash", "scripts/gpu_check.sh", "--out", str(out), *args],
        cwd=REPO,
        env={**env, "OMP_NUM_THREADS": "1"},
        capture_output=True,
        text=True,
        timeout=900,
    )
    return result, json.loads(out.read_text()) if out.exists() else {}


def test_without_a_gpu_the_check_fails_and_says_why(tmp_path):
    result, verdict = _run(tmp_path)
    assert result.returncode == 1, result.stdout[-3000:] + result.stderr[-3000:]
    assert verdict["rows"] == [
        {
            "check": "GPU visible to torch",
            "status": "FAIL",
            "detail": verdict["rows"][0]["detail"],
        }
    ]
    assert "the CUDA path is unverified" in verdict["rows"][0]["detail"]


def test_with_allow_cpu_every_step_runs_on_the_cpu(tmp_path):
    result, verdict = _run(tmp_path, "--allow-cpu", "--epochs", "1", "--images", "400")
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    rows = {row["check"]: row for row in verdict["rows"]}
    assert rows["GPU visible to torch"]["status"] == "INFO"
    assert rows["worker --queues auto"] == {**rows["worker --queues auto"], "status": "PASS"}
    assert "cpu" in rows["worker --queues auto"]["detail"]
    training = rows["training job (CPU stand-in)"]
    assert training["status"] == "PASS" and "device cpu" in training["detail"]
    assert rows["ONNX export matches a CPU export"]["status"] == "PASS"
    assert rows["hosted endpoint answers"]["status"] == "PASS"
    assert rows["ONNX Runtime CUDA provider"]["status"] in {"INFO", "PASS"}
    assert "| check | verdict | detail |" in result.stdout
