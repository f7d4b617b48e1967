#!/usr/bin/env bash
# The GPU check (tests/gpu/gpu_check.py): run on a GPU host from the repository root, after
# `make install` (a CUDA build of torch; onnxruntime-gpu for the CUDA serving row). A few minutes.
#   bash scripts/gpu_check.sh               # FAILS without a GPU
#   bash scripts/gpu_check.sh --allow-cpu   # the same steps on the CPU (what CI runs)
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-.venv/bin/python}"
exec "$PYTHON" tests/gpu/gpu_check.py "$@"
