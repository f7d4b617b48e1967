"""Requirements environments (workers.custom_code.environment), offline: a tiny wheel built here is
required by path; pip runs as the sandbox user with the network cut; the environment sees both the
wheel and the worker's packages, is reused on the second call (same hash), and is read-only to the
sandbox user. A job with those requirements imports the wheel's module."""

from __future__ import annotations

import base64
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from workers.custom_code.environment import (
    EnvironmentError_,
    describe_environment,
    prepare_environment,
    requirements_hash,
)
from workers.custom_code.runner import run_custom_job
from workers.progress import silent_report


def build_wheel(folder: Path, name: str = "sampan_h1_tiny", version: str = "0.1.0") -> Path:
    """A pure-Python wheel: the module and its dist-info (METADATA, WHEEL, RECORD)."""
    dist_info = f"{name}-{version}.dist-info"
    files = {
        f"{name}.py": f"VALUE = 'tiny {version}'\n",
        f"{dist_info}/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n",
        f"{dist_info}/WHEEL": (
            "Wheel-Version: 1.0\nGenerator: h1-test\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
        ),
    }
    record = []
    for path, text in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b"=").decode()
        record.append(f"{path},sha256={digest},{len(text.encode())}")
    record.append(f"{dist_info}/RECORD,,")
    files[f"{dist_info}/RECORD"] = "\n".join(record) + "\n"
    wheel = folder / f"{name}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        for path, text in files.items():
            archive.writestr(path, text)
    os.chmod(wheel, 0o644)
    return wheel


@pytest.fixture
def folder() -> Iterator[Path]:
    path = Path(tempfile.mkdtemp(prefix="sampan-h1-env-", dir="/tmp"))
    os.chmod(path, 0o755)
    yield path
    shutil.rmtree(path, ignore_errors=True)


def as_nobody(python: str, code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["su", "-s", "/bin/sh", "nobody", "-c", f'{python} -c "{code}"'],
        capture_output=True,
        text=True,
        env={"PATH": "/usr/bin:/bin"},
        check=False,
    )


def test_requirements_hash_ignores_comments_order_and_blank_lines() -> None:
    assert requirements_hash("b==1\n# pinned\n\na>=2  # why\n") == requirements_hash("a>=2\nb==1")
    assert requirements_hash("a>=2") != requirements_hash("a>=3")
    assert requirements_hash("") == requirements_hash("# nothing\n")


def test_no_requirements_is_the_base_python(folder: Path) -> None:
    prepared = prepare_environment("", cache_dir=folder / "envs", on_output=lambda s, t: None)
    assert prepared.python == sys.executable
    assert not (folder / "envs").exists() or not any((folder / "envs").iterdir())


def test_an_environment_is_built_as_the_sandbox_user_reused_and_read_only(folder: Path) -> None:
    wheel = build_wheel(folder)
    requirements = f"# a local wheel\n{wheel}\n"
    lines: list[tuple[str, str]] = []
    first = prepare_environment(
        requirements, cache_dir=folder / "envs", on_output=lambda s, t: lines.append((s, t)), network=False
    )
    assert first.reused is False
    assert first.requirements_hash == requirements_hash(requirements)
    assert first.python == str(folder / "envs" / first.requirements_hash / "bin" / "python")
    assert any("Successfully installed sampan_h1_tiny" in line.replace("-", "_") for _, line in lines), lines
    env_dir = folder / "envs" / first.requirements_hash
    # installed by the sandbox user, then handed to root and closed to writes
    installed = next(env_dir.glob("lib/python*/site-packages/sampan_h1_tiny.py"))
    assert installed.stat().st_uid == 0 and env_dir.stat().st_uid == 0
    assert not any(p.lstat().st_mode & 0o022 for p in [env_dir, *env_dir.rglob("*")] if not p.is_symlink())
    # the sandbox user runs it: the wheel and the worker's own packages (numpy, sampan) import
    ran = as_nobody(first.python, "import sampan_h1_tiny, numpy, sampan; print(sampan_h1_tiny.VALUE)")
    assert ran.stdout.strip() == "tiny 0.1.0", ran.stderr
    # ... and cannot change it
    tamper = as_nobody(first.python, f"open('{installed}', 'a').write('VALUE = 1')")
    assert tamper.returncode != 0 and "PermissionError" in tamper.stderr
    tamper = as_nobody(first.python, f"open('{installed.parent}/evil.py', 'w')")
    assert tamper.returncode != 0 and "PermissionError" in tamper.stderr

    again: list[tuple[str, str]] = []
    second = prepare_environment(
        "\n" + str(wheel),
        cache_dir=folder / "envs",
        on_output=lambda s, t: again.append((s, t)),
        network=False,
    )
    assert second.reused is True and second.python == first.python
    assert again == [
        ("system", f"reusing the environment {first.requirements_hash[:12]} for these requirements")
    ]
    assert describe_environment(second.python)["packages"]["sampan_h1_tiny"] == "0.1.0"


def test_a_failed_install_says_why_and_leaves_no_environment(folder: Path) -> None:
    with pytest.raises(EnvironmentError_, match="installing the requirements failed"):
        prepare_environment(
            str(folder / "missing-1.0-py3-none-any.whl"),
            cache_dir=folder / "envs",
            on_output=lambda s, t: None,
            network=False,
        )
    assert [p.name for p in (folder / "envs").iterdir() if not p.name.endswith(".lock")] == []


def test_a_job_runs_with_its_requirements(folder: Path) -> None:
    wheel = build_wheel(folder, version="0.2.0")
    work = folder / "job"
    (work / "code").mkdir(parents=True)
    (work / "code" / "train.py").write_text("import sampan_h1_tiny\nprint(sampan_h1_tiny.VALUE)\n")
    lines: list[tuple[str, str]] = []
    result = run_custom_job(
        {
            "kind": "custom_job_spec",
            "version": 1,
            "code_sha256": "0" * 64,
            "code_kind": "script",
            "entry_point": "train.py",
            "args": [],
            "hyperparameters": {},
            "requirements": str(wheel),
            "requirements_hash": requirements_hash(str(wheel)),
            "limits": {"wall_time_s": 60, "memory_mb": 1024, "cpus": 1},
            "network": False,
            "queue": "cpu",
        },
        code_dir=work / "code",
        data_dir=None,
        work_dir=work,
        report=silent_report,
        on_output=lambda s, t: lines.append((s, t)),
        env_cache=folder / "envs",
    )
    assert result["exit_code"] == 0, lines
    assert ("stdout", "tiny 0.2.0") in lines
    assert result["requirements_hash"] == requirements_hash(str(wheel))
    assert result["environment"]["packages"]["sampan_h1_tiny"] == "0.2.0"
