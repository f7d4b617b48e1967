"""``pip install ./sdk`` builds out of tree (sdk/_build/out_of_tree.py wraps setuptools): the
checkout gets no ``build/`` or ``*.egg-info``; the wheel holds the package and ``py.typed``, and an
sdist builds a wheel too. Run on a temporary copy of sdk/, with the virtualenv's setuptools."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

from tests.harness import REPO

PIP = [sys.executable, "-m", "pip", "--disable-pip-version-check", "--no-input"]


def _copy_of_sdk(tmp_path: Path) -> Path:
    copy = tmp_path / "sdk"
    shutil.copytree(
        REPO / "sdk", copy, ignore=shutil.ignore_patterns("build", "dist", "*.egg-info", "__pycache__")
    )
    return copy


def _untracked_leftovers(copy: Path) -> list[str]:
    return sorted(
        str(p.relative_to(copy))
        for p in copy.rglob("*")
        if p.name in ("build", "dist") or p.name.endswith(".egg-info")
    )


def test_pip_install_of_the_checkout_leaves_no_build_dir(tmp_path):
    copy = _copy_of_sdk(tmp_path)
    target = tmp_path / "site"
    subprocess.run(
        [*PIP, "install", "--quiet", "--no-deps", "--no-build-isolation", "--target", str(target), str(copy)],
        check=True,
        cwd=tmp_path,
    )
    assert _untracked_leftovers(copy) == []
    assert (target / "sampan" / "__init__.py").is_file() and (target / "sampan" / "py.typed").is_file()


def test_an_sdist_carries_the_backend_and_builds_a_wheel(tmp_path):
    copy = _copy_of_sdk(tmp_path)
    dist = tmp_path / "dist"
    subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; sys.path.insert(0, '_build'); import out_of_tree as b; "
            f"print(b.build_sdist({str(dist)!r}))",
        ],
        check=True,
        cwd=copy,
    )
    assert _untracked_leftovers(copy) == []
    (sdist,) = dist.glob("sampan-*.tar.gz")
    with tarfile.open(sdist) as tar:
        names = tar.getnames()
        assert any(name.endswith("_build/out_of_tree.py") for name in names), names
        tar.extractall(tmp_path / "unpacked", filter="data")
    (unpacked,) = (tmp_path / "unpacked").iterdir()
    subprocess.run(
        [*PIP, "wheel", "--quiet", "--no-deps", "--no-build-isolation", "-w", str(dist), str(unpacked)],
        check=True,
        cwd=tmp_path,
    )
    (wheel,) = dist.glob("sampan-*.whl")
    assert "sampan/py.typed" in zipfile.ZipFile(wheel).namelist()
