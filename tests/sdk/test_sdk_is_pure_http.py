"""The SDK is a light, typed, pure-HTTP distribution: requests and tqdm only, nothing heavy imported
with it, py.typed shipped, Python >= 3.10."""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib

from tests.harness import REPO

HEAVY = (
    "torch",
    "django",
    "rest_framework",
    "pandas",
    "numpy",
    "PIL",
    "matplotlib",
    "onnx",
    "onnxruntime",
    "tqdm",
)


def test_distribution_declares_only_http_and_progress_dependencies():
    project = tomllib.loads((REPO / "sdk" / "pyproject.toml").read_text())["project"]
    names = sorted(dep.split(">")[0].split("=")[0].split("<")[0].strip() for dep in project["dependencies"])
    assert names == ["requests", "tqdm"]
    assert project["requires-python"] == ">=3.10"
    assert project["scripts"] == {"sampan": "sampan.cli:main"}
    assert {"pandas", "images", "plot", "all"} <= set(project["optional-dependencies"])


def test_importing_the_sdk_loads_nothing_heavy():
    probe = (
        "import json, sys, sampan; client = sampan.Client('http://127.0.0.1:1', 'spk_x'); "
        f"print(json.dumps(sorted(m for m in {HEAVY!r} if m in sys.modules)))"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd="/")
    assert json.loads(out.stdout) == []


def test_typed_package():
    from importlib import resources

    assert resources.files("sampan").joinpath("py.typed").is_file()
    package_data = tomllib.loads((REPO / "sdk" / "pyproject.toml").read_text())["tool"]["setuptools"][
        "package-data"
    ]
    assert package_data == {"sampan": ["py.typed"]}
