"""The Python a custom job runs with: the worker's own (no requirements) or a virtual environment
on top of it with the job's requirements installed, cached by their hash and shared between jobs.

A requirements environment is a venv (``--system-site-packages``, plus a ``.pth`` that adds the
worker's own site-packages, so torch, numpy and ``sampan`` stay importable and the requirements
override them). pip runs as a run uid of its own (the only step with the network on), then the
tree is made root-owned and read-only to everyone else, so no later job can change what another
one runs with. Building is locked per hash (``fcntl.flock``) and marked complete only at the end: an
interrupted build is rebuilt.
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import hashlib
import json
import os
import pwd
import shutil
import stat
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from workers.contracts.custom_code import RunEnvironment
from workers.custom_code.sandbox import SandboxPolicy, allocate_run_uid, run_sandboxed

__all__ = [
    "EnvironmentError_",
    "PreparedEnvironment",
    "describe_environment",
    "prepare_environment",
    "requirements_hash",
]

COMPLETE_MARK = ".sampan-complete"
INSTALL_WALL_TIME_S = 1800
INSTALL_MEMORY_MB = 4096


class EnvironmentError_(RuntimeError):  # noqa: N801 (EnvironmentError is a builtin alias of OSError)
    """The requirements could not be installed (pip's exit code and its last lines)."""


@dataclass(frozen=True)
class PreparedEnvironment:
    python: str
    requirements_hash: str
    reused: bool


def normalise_requirements(requirements: str) -> list[str]:
    """The requirement lines that matter: comments and blank lines dropped, whitespace collapsed,
    sorted and unique (order does not change what pip resolves)."""
    lines = set()
    for raw in requirements.splitlines():
        line = raw.split(" #", 1)[0].strip() if not raw.lstrip().startswith("#") else ""
        if line:
            lines.add(" ".join(line.split()))
    return sorted(lines)


def requirements_hash(requirements: str) -> str:
    """sha256 of the normalised requirement lines (``""`` and comments only hash alike)."""
    return hashlib.sha256("\n".join(normalise_requirements(requirements)).encode()).hexdigest()


def _site_packages(python: str) -> list[str]:
    code = "import json, site, sys; print(json.dumps([p for p in sys.path if p.endswith('-packages')]))"
    out = subprocess.run([python, "-c", code], check=True, capture_output=True, text=True).stdout
    return [str(p) for p in json.loads(out)]


def _venv_python(env_dir: Path) -> Path:
    return env_dir / "bin" / "python"


def _chown_tree(root: Path, uid: int, gid: int) -> None:
    os.chown(root, uid, gid, follow_symlinks=False)
    for base, dirs, files in os.walk(root):
        for name in dirs + files:
            os.chown(os.path.join(base, name), uid, gid, follow_symlinks=False)


def _seal(root: Path) -> None:
    """Root-owned, readable and runnable by all, writable by none but root."""
    if os.geteuid() == 0:
        _chown_tree(root, 0, 0)
    for base, dirs, files in os.walk(root):
        for name in dirs + files:
            path = os.path.join(base, name)
            mode = os.lstat(path).st_mode
            if stat.S_ISLNK(mode):
                continue
            extra = stat.S_IRGRP | stat.S_IROTH
            if stat.S_ISDIR(mode) or mode & stat.S_IXUSR:
                extra |= stat.S_IXGRP | stat.S_IXOTH
            os.chmod(path, (mode | extra) & ~(stat.S_IWGRP | stat.S_IWOTH))
    os.chmod(root, 0o755)


def _build(
    env_dir: Path,
    requirements: str,
    *,
    base_python: str,
    sandbox_user: str | None,
    network: bool,
    on_output: Callable[[str, str], None],
) -> None:
    subprocess.run(
        [base_python, "-m", "venv", "--system-site-packages", "--without-pip", str(env_dir)],
        check=True,
        capture_output=True,
    )
    python = _venv_python(env_dir)
    own = _site_packages(str(python))
    own_site = next((p for p in own if p.startswith(str(env_dir))), None)
    if own_site is None:
        raise EnvironmentError_(f"the new environment at {env_dir} has no site-packages")
    base_sites = [p for p in _site_packages(base_python) if not p.startswith(str(env_dir))]
    # the worker's packages (and their .pth files: editable installs) after the environment's own
    lines = [f"import site; site.addsitedir({p!r})" for p in base_sites]
    Path(own_site, "_sampan_base.pth").write_text("\n".join(lines) + "\n")
    user = sandbox_user if os.geteuid() == 0 else None
    # pip (and whatever a requirement's build runs) as a uid of its own: no other run or build can
    # touch this environment while it is being made
    with allocate_run_uid() if user else contextlib.nullcontext(None) as uid:
        _install(env_dir, python, requirements, user=user, uid=uid, network=network, on_output=on_output)
    _seal(env_dir)


def _install(
    env_dir: Path,
    python: Path,
    requirements: str,
    *,
    user: str | None,
    uid: int | None,
    network: bool,
    on_output: Callable[[str, str], None],
) -> None:
    scratch = Path(tempfile.mkdtemp(prefix="sampan-pip-"))
    try:
        os.chmod(scratch, 0o700)
        req_file = scratch / "requirements.txt"
        req_file.write_text("\n".join(normalise_requirements(requirements)) + "\n")
        if user:
            entry = pwd.getpwnam(user)
            owner = (uid, uid) if uid is not None else (entry.pw_uid, entry.pw_gid)
            _chown_tree(env_dir, *owner)
            _chown_tree(scratch, *owner)
        env = {
            "PATH": f"{python.parent}:/usr/local/bin:/usr/bin:/bin",
            "HOME": str(scratch),
            "PIP_NO_CACHE_DIR": "1",
            "PIP_DISABLE_PIP_VERSION_CHECK": "1",
            "PIP_NO_INPUT": "1",
            "LANG": "C.UTF-8",
            "USER": "sandbox",
            "LOGNAME": "sandbox",
        }
        for name in ("PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "PIP_FIND_LINKS", "PIP_TRUSTED_HOST"):
            if name in os.environ:
                env[name] = os.environ[name]
        tail: list[str] = []

        def output(stream: str, line: str) -> None:
            tail.append(line)
            del tail[:-20]
            on_output(stream, line)

        outcome = run_sandboxed(
            [str(python), "-m", "pip", "install", "--no-warn-script-location", "-r", str(req_file)],
            cwd=scratch,
            env=env,
            policy=SandboxPolicy(
                limits={"wall_time_s": INSTALL_WALL_TIME_S, "memory_mb": INSTALL_MEMORY_MB, "cpus": 1},
                network=network,
                user=user,
                uid=uid,
            ),
            on_output=output,
        )
        if outcome.exit_code != 0:
            why = outcome.reason or f"pip exited with code {outcome.exit_code}"
            raise EnvironmentError_(
                "installing the requirements failed (" + why + "):\n" + "\n".join(tail[-10:])
            )
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def prepare_environment(
    requirements: str,
    *,
    cache_dir: Path,
    on_output: Callable[[str, str], None],
    base_python: str = sys.executable,
    sandbox_user: str | None = "nobody",
    network: bool = True,
) -> PreparedEnvironment:
    """The Python to run a job with (see the module's docstring). ``""`` requirements: the base
    Python itself (``reused`` True: nothing was built)."""
    digest = requirements_hash(requirements)
    if not normalise_requirements(requirements):
        return PreparedEnvironment(python=base_python, requirements_hash=digest, reused=True)
    cache_dir = Path(cache_dir)
    cache_dir.mkdir(parents=True, exist_ok=True)
    env_dir = cache_dir / digest
    with open(cache_dir / f"{digest}.lock", "a+") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            if (env_dir / COMPLETE_MARK).exists():
                on_output("system", f"reusing the environment {digest[:12]} for these requirements")
                return PreparedEnvironment(str(_venv_python(env_dir)), digest, reused=True)
            if env_dir.exists():
                shutil.rmtree(env_dir)
            on_output("system", f"installing the requirements into a new environment {digest[:12]}")
            try:
                _build(
                    env_dir,
                    requirements,
                    base_python=base_python,
                    sandbox_user=sandbox_user,
                    network=network,
                    on_output=on_output,
                )
            except BaseException:
                shutil.rmtree(env_dir, ignore_errors=True)
                raise
            mark = env_dir / COMPLETE_MARK
            mark.write_text(json.dumps({"requirements": normalise_requirements(requirements)}) + "\n")
            os.chmod(mark, 0o644)
            return PreparedEnvironment(str(_venv_python(env_dir)), digest, reused=False)
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


_DESCRIBE = """
import json, platform, sys
from importlib import metadata
packages = {}
for dist in metadata.distributions():
    name = dist.metadata["Name"]
    if name and name not in packages:
        packages[name] = dist.version
print(json.dumps({"python": platform.python_version(), "platform": platform.platform(),
                  "packages": dict(sorted(packages.items(), key=lambda kv: kv[0].lower()))}))
"""


@functools.lru_cache(maxsize=64)
def _describe(python: str, marker: float) -> str:
    return subprocess.run(
        [python, "-c", _DESCRIBE], check=True, capture_output=True, text=True, timeout=120
    ).stdout


def describe_environment(python: str) -> RunEnvironment:
    """Python's version, the platform and every installed distribution of ``python``."""
    try:
        marker = os.stat(python).st_mtime
    except OSError:
        marker = 0.0
    data = json.loads(_describe(python, marker))
    return RunEnvironment(python=data["python"], platform=data["platform"], packages=data["packages"])
