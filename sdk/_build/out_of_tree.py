"""The SDK's build backend: setuptools, building wheels and sdists in a temporary copy of the
source, so ``pip install ./sdk`` leaves no ``build/`` or ``*.egg-info`` in the checkout.
Editable installs (``pip install -e ./sdk``) build in place, as they must."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from setuptools import build_meta as _setuptools
from setuptools.build_meta import *  # noqa: F403 - the hooks not wrapped here are setuptools' own

SOURCE = Path(__file__).resolve().parents[1]
SKIPPED = shutil.ignore_patterns("build", "dist", "*.egg-info", "__pycache__", "*.pyc")


@contextmanager
def _in_a_copy() -> Iterator[None]:
    previous = os.getcwd()
    with tempfile.TemporaryDirectory(prefix="sampan-build-") as temp:
        copy = Path(temp) / "sdk"
        shutil.copytree(SOURCE, copy, ignore=SKIPPED)
        os.chdir(copy)
        try:
            yield
        finally:
            os.chdir(previous)


def _out_of_tree(hook: Callable[..., str]) -> Callable[..., str]:
    def run(directory: str, *args: Any, **kwargs: Any) -> str:
        target = os.path.abspath(directory)  # pip's output directory, outside the copy
        with _in_a_copy():
            return hook(target, *args, **kwargs)

    run.__name__ = hook.__name__
    return run


build_wheel = _out_of_tree(_setuptools.build_wheel)
build_sdist = _out_of_tree(_setuptools.build_sdist)
prepare_metadata_for_build_wheel = _out_of_tree(_setuptools.prepare_metadata_for_build_wheel)
