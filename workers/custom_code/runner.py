"""Run one custom job: prepare its Python, lay out its work directory for the sandbox user, run
its entry point (a script, a module or a notebook) in the sandbox, turn ``sampan.run`` events into
progress reports, and say what came out (:class:`CustomJobResult`).

The work directory holds ``output/`` (``$SAMPAN_OUTPUT_DIR``) and ``home/`` (``$HOME``), both
owned by the sandbox user; ``code_dir`` is given to the sandbox user too (the code may write next to
itself); ``data_dir`` stays root-owned and readable only. Every directory above them must be
traversable by the sandbox user (``o+x``), else :class:`RunnerError` names the one that is not.
"""

from __future__ import annotations

import json
import math
import os
import pwd
import re
import stat
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from workers.contracts.custom_code import (
    CUSTOM_JOB_RESULT_VERSION,
    RUN_EVENT_VERSION,
    CustomJobResult,
    CustomJobSpec,
    CustomModelOutput,
    HyperValue,
    RunArtifact,
    RunEvent,
    RunReply,
)
from workers.custom_code.environment import PreparedEnvironment, describe_environment, prepare_environment
from workers.custom_code.sandbox import SandboxPolicy, allocate_run_uid, run_sandboxed
from workers.progress import Report

__all__ = ["RunnerError", "build_argv", "format_hyperparameter", "run_custom_job"]

HEARTBEAT_S = 2.0
MODULE_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")
NOTEBOOK_EXEC = Path(__file__).with_name("notebook_exec.py")
MODEL_FILES = ("model.onnx", "labels.json", "preprocess.json")


class RunnerError(ValueError):
    """The job cannot be run as specified (an entry point that does not exist, a work directory the
    sandbox user cannot reach)."""


def format_hyperparameter(value: HyperValue) -> str:
    """How a hyperparameter is written on the command line: booleans ``true``/``false``, numbers
    and strings as Python writes them (``SAMPAN_PARAMS`` keeps the types)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _inside(root: Path, relative: str) -> Path:
    path = (root / relative).resolve()
    if not path.is_relative_to(root.resolve()):
        raise RunnerError(f"the entry point {relative!r} lies outside the code")
    return path


def build_argv(python: str, spec: CustomJobSpec, code_dir: Path) -> list[str]:
    """The command for the spec's entry point: ``python -u script.py``, ``python -u -m module`` or
    the notebook executor; then ``args``, then each hyperparameter as ``--name=value``."""
    entry = spec["entry_point"]
    if entry.endswith(".ipynb"):
        notebook = _inside(code_dir, entry)
        if not notebook.is_file():
            raise RunnerError(f"the notebook {entry!r} is not in the code")
        head = [python, "-u", "-P", str(NOTEBOOK_EXEC), str(notebook.relative_to(code_dir.resolve()))]
    elif entry.endswith(".py"):
        script = _inside(code_dir, entry)
        if not script.is_file():
            raise RunnerError(f"the script {entry!r} is not in the code")
        head = [python, "-u", str(script.relative_to(code_dir.resolve()))]
    elif MODULE_NAME.match(entry):
        head = [python, "-u", "-m", entry]
    else:
        raise RunnerError(
            f"the entry point {entry!r} is neither a .py file, a .ipynb notebook nor a module name"
        )
    params = [f"--{name}={format_hyperparameter(value)}" for name, value in spec["hyperparameters"].items()]
    return [*head, *spec["args"], *params]


def _check_reachable(path: Path) -> None:
    """Every directory from / down to ``path`` must let others through (o+x)."""
    current = Path(path).resolve()
    for directory in [*reversed(current.parents), current]:
        mode = directory.stat().st_mode
        if not mode & stat.S_IXOTH:
            raise RunnerError(
                f"the sandbox user cannot reach {path}: {directory} is not traversable by others "
                f"(mode {stat.filemode(mode)})"
            )


def _give(path: Path, uid: int, gid: int) -> None:
    os.chown(path, uid, gid, follow_symlinks=False)
    for base, dirs, files in os.walk(path):
        for name in dirs + files:
            os.chown(os.path.join(base, name), uid, gid, follow_symlinks=False)


def _open_read_only(path: Path) -> None:
    """Readable (and directories traversable) by all, writable by the owner (root) alone."""
    for base, _dirs, files in os.walk(path):
        os.chmod(base, 0o755)
        for name in files:
            file = os.path.join(base, name)
            if not os.path.islink(file):
                os.chmod(file, (os.stat(file).st_mode | 0o444) & ~0o022)


def _prepare_work_dir(
    work_dir: Path, code_dir: Path, data_dir: Path | None, owner: tuple[int, int] | None
) -> tuple[Path, Path]:
    output, home = work_dir / "output", work_dir / "home"
    for directory in (work_dir, output, home):
        directory.mkdir(parents=True, exist_ok=True)
    if owner is not None:
        os.chmod(work_dir, 0o711)
        for directory in (output, home, code_dir):
            _give(directory, *owner)
            os.chmod(directory, 0o700)
        if data_dir is not None:
            _open_read_only(data_dir)
        for directory in (code_dir, output, home, *([data_dir] if data_dir else [])):
            _check_reachable(directory.parent)
    return output, home


def _run_owner(user: str | None, uid: int | None) -> tuple[int, int] | None:
    if not user:
        return None
    if uid is not None:
        return uid, uid
    entry = pwd.getpwnam(user)
    return entry.pw_uid, entry.pw_gid


def _model_output(output: Path) -> CustomModelOutput | None:
    files = [output / name for name in MODEL_FILES]
    if not all(f.is_file() and not f.is_symlink() for f in files):
        return None
    return CustomModelOutput(onnx=str(files[0]), labels=str(files[1]), preprocessing=str(files[2]))


def _finite_metrics(raw: Any) -> dict[str, float]:
    metrics: dict[str, float] = {}
    if not isinstance(raw, Mapping):
        return metrics
    for name, value in raw.items():
        number = isinstance(value, int | float) and not isinstance(value, bool)
        if isinstance(name, str) and number and math.isfinite(float(value)):
            metrics[name] = float(value)
    return metrics


def run_custom_job(
    spec: CustomJobSpec,
    *,
    code_dir: Path,
    data_dir: Path | None,
    work_dir: Path,
    report: Report,
    on_output: Callable[[str, str], None],
    on_metrics: Callable[[int, dict[str, float]], bool] | None = None,
    sandbox_user: str | None = "nobody",
    env_cache: Path,
    base_python: str = sys.executable,
    own_uid: bool = True,
) -> CustomJobResult:
    """Run ``spec``'s code (see the module's docstring). A non-zero exit, a limit or a prune is a
    result; ``JobCancelled`` raised by ``report`` (cancel) stops the run and propagates.

    As root with a ``sandbox_user``, the code runs as a uid of its own for the run's length
    (``own_uid``; :func:`allocate_run_uid`), so two runs on a host cannot read each other's files or
    processes, and its folders go back to root afterwards so the uid's next run cannot read them
    either. ``own_uid=False``: it runs as ``sandbox_user`` itself."""
    user = sandbox_user if os.geteuid() == 0 else None
    kwargs: dict[str, Any] = dict(
        code_dir=Path(code_dir),
        data_dir=None if data_dir is None else Path(data_dir),
        work_dir=Path(work_dir),
        report=report,
        on_output=on_output,
        on_metrics=on_metrics,
        user=user,
        env_cache=Path(env_cache),
        base_python=base_python,
    )
    if user and own_uid:
        with allocate_run_uid() as uid:
            return _run(spec, uid=uid, **kwargs)
    return _run(spec, uid=None, **kwargs)


def _run(
    spec: CustomJobSpec,
    *,
    code_dir: Path,
    data_dir: Path | None,
    work_dir: Path,
    report: Report,
    on_output: Callable[[str, str], None],
    on_metrics: Callable[[int, dict[str, float]], bool] | None,
    user: str | None,
    uid: int | None,
    env_cache: Path,
    base_python: str,
) -> CustomJobResult:
    report("preparing the environment")
    prepared = prepare_environment(
        spec["requirements"],
        cache_dir=Path(env_cache),
        on_output=on_output,
        base_python=base_python,
        sandbox_user=user,
        network=True,
    )
    owner = _run_owner(user, uid)
    output, home = _prepare_work_dir(work_dir, code_dir, data_dir, owner)
    try:
        return _run_prepared(
            spec, prepared, code_dir, data_dir, output, home, report, on_output, on_metrics, user, uid
        )
    finally:
        if owner is not None:  # the run's uid gives its folders back (its next holder cannot read them)
            for directory in (output, home, code_dir):
                _give(directory, 0, 0)


def _run_prepared(
    spec: CustomJobSpec,
    prepared: PreparedEnvironment,
    code_dir: Path,
    data_dir: Path | None,
    output: Path,
    home: Path,
    report: Report,
    on_output: Callable[[str, str], None],
    on_metrics: Callable[[int, dict[str, float]], bool] | None,
    user: str | None,
    uid: int | None,
) -> CustomJobResult:
    argv = build_argv(prepared.python, spec, code_dir)
    env: dict[str, str] = {
        "PATH": f"{Path(prepared.python).parent}:/usr/local/bin:/usr/bin:/bin",
        "HOME": str(home),
        "PYTHONUNBUFFERED": "1",
        "PYTHONDONTWRITEBYTECODE": "1",
        "LANG": "C.UTF-8",
        "SAMPAN_OUTPUT_DIR": str(output),
        "SAMPAN_PARAMS": json.dumps(spec["hyperparameters"]),
        "MPLBACKEND": "Agg",
        "TMPDIR": str(home),
        # a run uid has no passwd entry: getpass.getuser() (torch, matplotlib caches) reads these
        "USER": "sandbox",
        "LOGNAME": "sandbox",
    }
    if data_dir is not None:
        env["SAMPAN_DATA_DIR"] = str(data_dir)
    objective = spec.get("objective")
    if objective and objective.get("metric"):
        env["SAMPAN_OBJECTIVE"] = objective["metric"]
    if spec.get("queue") == "gpu":  # the worker's own GPU selection, if it has one
        for name in ("CUDA_VISIBLE_DEVICES", "NVIDIA_VISIBLE_DEVICES"):
            if name in os.environ:
                env[name] = os.environ[name]
    else:  # a CPU job does not take a GPU it happens to see
        env["CUDA_VISIBLE_DEVICES"] = ""
    cpus = str(max(1, spec["limits"]["cpus"]))
    for name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "TORCH_NUM_THREADS"):
        env[name] = cpus

    last_values: dict[str, float] = {}
    history: list[dict[str, float]] = []
    artifacts: list[RunArtifact] = []
    pruned_at: list[int] = []
    last_report = [time.monotonic()]

    def reported(message: str = "", **kwargs: Any) -> None:
        last_report[0] = time.monotonic()
        report(message, **kwargs)

    def on_event(event: RunEvent) -> RunReply | None:
        kind = event.get("kind")
        if kind == "metrics":
            metrics = _finite_metrics(event.get("metrics"))
            raw_step = event.get("step")
            step = raw_step if isinstance(raw_step, int) and not isinstance(raw_step, bool) else len(history)
            if not metrics:
                return None
            last_values.update(metrics)
            history.append({"step": float(step), **metrics})
            reported(f"step {step}", step=step, custom_metrics=metrics)
            prune = bool(on_metrics(step, metrics)) if on_metrics is not None else False
            if prune and not pruned_at:
                pruned_at.append(step)
                on_output("system", f"pruned at step {step}: the study stops this trial")
            return RunReply(kind="run_reply", version=RUN_EVENT_VERSION, prune=prune)
        if kind == "status":
            message = event.get("message")
            fraction = event.get("fraction")
            ok_fraction = (
                float(fraction)
                if isinstance(fraction, int | float)
                and not isinstance(fraction, bool)
                and math.isfinite(fraction)
                else None
            )
            reported(str(message or "")[:500], fraction=ok_fraction)
        elif kind == "artifact":
            path = event.get("path")
            if isinstance(path, str) and path:
                target = (output / path).resolve()
                if target.is_relative_to(output.resolve()) and target.exists():
                    artifacts.append(
                        {
                            "path": str(target.relative_to(output.resolve())),
                            "name": str(event.get("name") or path),
                        }
                    )
                else:
                    on_output("system", f"ignored the artifact {path!r}: not a file in the output directory")
        return None

    def poll() -> None:
        if time.monotonic() - last_report[0] >= HEARTBEAT_S:
            reported()

    report("running the code")
    outcome = run_sandboxed(
        argv,
        cwd=code_dir,
        env=env,
        policy=SandboxPolicy(limits=spec["limits"], network=spec["network"], user=user, uid=uid),
        on_output=on_output,
        on_event=on_event,
        poll=poll,
    )
    stopped = outcome.stopped
    reason = outcome.reason
    if stopped is None and pruned_at:
        stopped = "pruned"
        reason = f"pruned at step {pruned_at[0]} by the study's pruner"
    return CustomJobResult(
        kind="custom_job_result",
        version=CUSTOM_JOB_RESULT_VERSION,
        exit_code=outcome.exit_code,
        stopped=stopped,
        reason=reason,
        duration_s=outcome.duration_s,
        peak_memory_mb=outcome.peak_memory_mb,
        metrics=last_values,
        history=history,
        artifacts=artifacts,
        model=_model_output(output),
        environment=describe_environment(prepared.python),
        requirements_hash=prepared.requirements_hash,
        isolation=outcome.isolation,
    )
