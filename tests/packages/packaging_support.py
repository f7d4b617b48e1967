"""Shared by the package tests: the session's trained digits model as ModelArtifacts, fresh
virtualenvs holding only a package's own requirements, and the package's files unzipped.

(Not a conftest.py: the suite's modules import the root conftest as ``conftest``.)"""

from __future__ import annotations

import functools
import os
import subprocess
import sys
import zipfile
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(TESTS / "workers"))
# the compute-plane tests' training run (the balanced preset on all digits, 6 epochs): shared, so the
# whole suite trains it once
from digits_data import trained_digits  # noqa: E402

from workers.packaging import ModelArtifacts  # noqa: E402

MODEL_VERSION = {"id": 41, "name": "V7", "template": "image_classification"}


@functools.cache
def digits_artifacts() -> tuple[ModelArtifacts, list[str], Path]:
    """(artifacts, training image paths for calibration, the training run's folder)."""
    manifest, result, _, out_dir = trained_digits()
    test = [s for s in manifest["samples"] if s["split"] == "test"]
    artifacts = ModelArtifacts(
        result["onnx"],
        result["preprocessing"],
        result["classes"],
        "image_classification",
        MODEL_VERSION,
        [s["path"] for s in test],
        [s["label"] for s in test],
    )
    return artifacts, [s["path"] for s in manifest["samples"] if s["split"] == "train"], Path(out_dir)


def unzip_package(archive: Path, into: Path) -> Path:
    """Extract the archive; returns its single top-level folder."""
    with zipfile.ZipFile(archive) as zipped:
        tops = {name.split("/")[0] for name in zipped.namelist()}
        assert len(tops) == 1, tops
        zipped.extractall(into)
    return into / tops.pop()


def clean_env(venv: Path | None = None, **extra: str) -> dict[str, str]:
    """An environment without the platform's paths: only the venv (if any) and the system's binaries."""
    path = f"{venv / 'bin'}:/usr/local/bin:/usr/bin:/bin" if venv else "/usr/local/bin:/usr/bin:/bin"
    env = {
        "PATH": path,
        "HOME": os.environ.get("HOME", "/root"),
        "LANG": "C.UTF-8",
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    env.update({k: v for k, v in os.environ.items() if k.startswith(("PIP_", "npm_config_"))})
    env.update(extra)
    return env


def fresh_venv(path: Path, requirements: Path) -> Path:
    """``python -m venv`` + ``pip install -r requirements`` (pip's cache is reused); returns its python."""
    subprocess.run([sys.executable, "-m", "venv", str(path)], check=True, env=clean_env(), timeout=120)
    python = path / "bin" / "python"
    pip_install(python, requirements)
    return python


def pip_install(python: Path, requirements: Path) -> None:
    """``pip install -r requirements`` into the venv of ``python``."""
    path = python.parent.parent
    out = subprocess.run(
        [
            str(python),
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            "-r",
            str(requirements),
        ],
        capture_output=True,
        text=True,
        env=clean_env(path),
        timeout=900,
    )
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]


def npm_install(folder: Path) -> Path:
    """``npm install`` of a sample's package.json (npm's cache preferred); returns the folder."""
    out = subprocess.run(
        ["npm", "install", "--no-audit", "--no-fund", "--prefer-offline"],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=600,
        env=clean_env(),
    )
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    return folder


def run_node(
    args: list[str], cwd: Path | None = None, *, stdin: str | None = None, timeout: float = 300, **env: str
) -> subprocess.CompletedProcess[str]:
    """``node args`` in ``cwd`` (where a sample's node_modules are found) with the clean environment."""
    return subprocess.run(
        ["node", *args],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
        env=clean_env(**env),
    )


def run_in(python: Path, args: list[str], *, cwd: Path, timeout: float = 300, **env: str) -> str:
    out = subprocess.run(
        [str(python), *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        env=clean_env(python.parent.parent, **env),
    )
    assert out.returncode == 0, f"{args} failed:\n{out.stdout[-3000:]}\n{out.stderr[-3000:]}"
    return out.stdout


HEADERS_CACHE = (
    Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "sampan-tests" / "onnxruntime-headers"
)
# Debian 13 packages the ONNX Runtime headers (libonnxruntime-dev); its library needs a newer libc
# than Debian 12's, so the tests take only the headers from it (the C API is backward compatible)
# and link the shared library of the onnxruntime wheel from PyPI.
DEBIAN_HEADERS_SUITE = "deb http://deb.debian.org/debian trixie main"


def onnxruntime_headers() -> Path:
    """A folder holding onnxruntime_cxx_api.h: the system's, or libonnxruntime-dev's fetched with apt
    into a private cache (apt's own configuration and the system are left alone)."""
    system = Path("/usr/include/onnxruntime")
    if (system / "onnxruntime_cxx_api.h").is_file():
        return system
    include = HEADERS_CACHE / "usr" / "include" / "onnxruntime"
    if (include / "onnxruntime_cxx_api.h").is_file():
        return include
    apt = HEADERS_CACHE.parent / "apt"
    (apt / "lists" / "partial").mkdir(parents=True, exist_ok=True)
    (apt / "cache" / "archives" / "partial").mkdir(parents=True, exist_ok=True)
    (apt / "sources.list").write_text(DEBIAN_HEADERS_SUITE + "\n")
    (apt / "status").touch()
    options = [
        f"-oDir::Etc::SourceList={apt / 'sources.list'}",
        "-oDir::Etc::SourceParts=/nonexistent",
        f"-oDir::State::Lists={apt / 'lists'}",
        f"-oDir::Cache={apt / 'cache'}",
        f"-oDir::State::status={apt / 'status'}",
        "-oAPT::Sandbox::User=root",
    ]
    subprocess.run(["apt-get", *options, "-qq", "update"], check=True, timeout=600, capture_output=True)
    subprocess.run(
        ["apt-get", *options, "-qq", "download", "libonnxruntime-dev"],
        check=True,
        timeout=600,
        capture_output=True,
        cwd=apt,
    )
    (deb,) = apt.glob("libonnxruntime-dev_*.deb")
    subprocess.run(["dpkg-deb", "-x", str(deb), str(HEADERS_CACHE)], check=True, timeout=120)
    return include


def onnxruntime_library(venv_python: Path, into: Path) -> Path:
    """``libonnxruntime.so`` (linked under its soname) from the onnxruntime wheel in a venv."""
    out = subprocess.run(
        [
            str(venv_python),
            "-c",
            "import onnxruntime, pathlib; print(pathlib.Path(onnxruntime.__file__).parent / 'capi')",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    (library,) = Path(out.stdout.strip()).glob("libonnxruntime.so.*")
    into.mkdir(parents=True, exist_ok=True)
    for name in ("libonnxruntime.so.1", "libonnxruntime.so"):
        (into / name).unlink(missing_ok=True)
        (into / name).symlink_to(library)
    return into / "libonnxruntime.so"
