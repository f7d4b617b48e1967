"""The compute plane never imports Django or the platform's apps, and what the web process imports
from it (the template registry and declarations) loads neither torch nor onnx."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
WORKERS = REPO / "workers"
PLATFORM_PACKAGES = {
    p.name for p in (REPO / "platform").iterdir() if p.is_dir() and not p.name.startswith((".", "_"))
}


def _run(code: str) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", code],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(REPO)},
    )
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_importing_every_workers_module_imports_no_django():
    loaded = _run("""
import json, pkgutil, importlib, sys, workers
names = [m.name for m in pkgutil.walk_packages(workers.__path__, "workers.")]
for name in names:
    importlib.import_module(name)
print(json.dumps({"modules": names, "django": sorted(m for m in sys.modules if m.split('.')[0] == 'django')}))
""")
    assert "workers.image_classification.trainer" in loaded["modules"]
    assert "workers.templates.registry" in loaded["modules"]
    assert loaded["django"] == []


def test_no_workers_source_imports_django_or_a_platform_app():
    assert {"jobs", "datasets", "training", "config"} <= PLATFORM_PACKAGES
    offenders = []
    for path in WORKERS.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else (
                    [node.module]
                    if isinstance(node, ast.ImportFrom) and node.module and node.level == 0
                    else []
                )
            )
            for name in names:
                if name.split(".")[0] in PLATFORM_PACKAGES | {"django", "rest_framework", "celery"}:
                    offenders.append(f"{path.relative_to(REPO)}: {name}")
    assert offenders == []


def test_the_web_process_side_of_templates_loads_no_torch_or_onnx():
    loaded = _run("""
import json, sys
from workers.templates import registry
from workers.image_classification import manifest, preprocessing, template  # noqa: F401
from workers.shared import classification_metrics, onnx_model  # noqa: F401
template = registry.get("image_classification")
params = template.validate_params("fast", {"epochs": 2})
described = template.as_dict()
summary = template.load("check_data")({"classes": ["a", "b"], "samples": [
    {"path": f"/x/{i}.png", "label": i % 2, "split": "train"} for i in range(10)]})
heavy = sorted(
    {m.split('.')[0] for m in sys.modules} & {"torch", "onnx", "onnxruntime", "onnxscript", "django"}
)
print(json.dumps({"heavy": heavy, "epochs": params["epochs"], "counts": summary["counts"]["train"]}))
""")
    assert loaded == {"heavy": [], "epochs": 2, "counts": [5, 5]}


def test_serving_side_modules_load_no_torch():
    loaded = _run("""
import json, sys
from workers.image_classification import evaluation, predictor  # noqa: F401
print(json.dumps({"torch": "torch" in sys.modules}))
""")
    assert loaded == {"torch": False}
