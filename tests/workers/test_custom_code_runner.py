"""run_custom_job with real processes as the sandbox user: a script, a module and a notebook each
run with their arguments, hyperparameters and environment; metrics events become progress reports
and a prune answer; the model files are found; the data directory is read-only; a cancel from
report() stops the run; a notebook cell's error fails the run with its traceback."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import nbformat
import pytest

from workers.contracts.custom_code import CustomJobSpec, HyperValue
from workers.custom_code.runner import RunnerError, run_custom_job
from workers.custom_code.sandbox import RUN_UID_COUNT, RUN_UID_FIRST, allocate_run_uid
from workers.progress import JobCancelled, progress_event

RUN_UIDS = range(RUN_UID_FIRST, RUN_UID_FIRST + RUN_UID_COUNT)

# the sandbox's side of the protocol, as sampan.run speaks it
EVENTS = textwrap.dedent("""
    import json, os
    _out = os.fdopen(int(os.environ["SAMPAN_RUN_EVENTS_FD"]), "w", buffering=1)
    _back = os.fdopen(int(os.environ["SAMPAN_RUN_REPLY_FD"]))
    def log_metrics(step, **metrics):
        _out.write(json.dumps({"kind": "metrics", "version": 1, "step": step, "metrics": metrics}) + "\\n")
        return json.loads(_back.readline())["prune"]
    def status(message, fraction=None):
        event = {"kind": "status", "version": 1, "message": message, "fraction": fraction}
        _out.write(json.dumps(event) + "\\n")
""")


@pytest.fixture
def job_dir() -> Iterator[Path]:
    """A job's work directory the sandbox user can reach (pytest's tmp_path is private to root)."""
    path = Path(tempfile.mkdtemp(prefix="sampan-h1-job-", dir="/tmp"))
    os.chmod(path, 0o755)
    (path / "code").mkdir()
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture(scope="module")
def env_cache() -> Iterator[Path]:
    path = Path(tempfile.mkdtemp(prefix="sampan-h1-envs-", dir="/tmp"))
    os.chmod(path, 0o755)
    yield path
    shutil.rmtree(path, ignore_errors=True)


def spec(entry_point: str, **overrides: Any) -> CustomJobSpec:
    hyperparameters: dict[str, HyperValue] = overrides.pop("hyperparameters", {})
    data: dict[str, Any] = {
        "kind": "custom_job_spec",
        "version": 1,
        "code_sha256": "0" * 64,
        "code_kind": "script",
        "entry_point": entry_point,
        "args": [],
        "hyperparameters": hyperparameters,
        "requirements": "",
        "requirements_hash": "",
        "limits": {"wall_time_s": 120, "memory_mb": 1024, "cpus": 1},
        "network": False,
        "queue": "cpu",
        **overrides,
    }
    return data  # type: ignore[return-value]


class Recorder:
    def __init__(self, cancel_after_step: int | None = None) -> None:
        self.reports: list[dict[str, Any]] = []
        self.lines: list[tuple[str, str]] = []
        self.cancel_after_step = cancel_after_step

    def report(
        self, message: str = "", *, fraction: float | None = None, milestone: bool = False, **m: Any
    ) -> None:
        self.reports.append(dict(progress_event(message, fraction=fraction, **m)))  # refuses a bad event
        if self.cancel_after_step is not None and m.get("step", -1) >= self.cancel_after_step:
            raise JobCancelled("cancelled")

    def output(self, stream: str, line: str) -> None:
        self.lines.append((stream, line))

    def stream(self, name: str) -> list[str]:
        return [line for stream, line in self.lines if stream == name]


def test_a_script_runs_with_args_params_metrics_and_a_model(job_dir: Path, env_cache: Path) -> None:
    (job_dir / "code" / "train.py").write_text(
        EVENTS
        + textwrap.dedent("""
        import os, sys, pathlib
        print("argv", sys.argv[1:])
        print("params", os.environ["SAMPAN_PARAMS"])
        print("user", os.getuid(), "cwd", os.getcwd() == os.path.dirname(os.path.abspath(__file__)))
        print("env", sorted(k for k in os.environ if k.startswith("SAMPAN_")))
        print("gpus", repr(os.environ["CUDA_VISIBLE_DEVICES"]))
        status("training", 0.5)
        pruned = [log_metrics(step, loss=1 / (step + 1), acc=step / 3) for step in range(3)]
        print("pruned", pruned)
        out = pathlib.Path(os.environ["SAMPAN_OUTPUT_DIR"])
        for name in ("model.onnx", "labels.json", "preprocess.json"):
            (out / name).write_text("{}")
        print("written", file=sys.stderr)
    """)
    )
    rec = Recorder()
    steps: list[tuple[int, dict[str, float]]] = []

    def on_metrics(step: int, metrics: dict[str, float]) -> bool:
        steps.append((step, metrics))
        return step == 2

    os.environ["DATABASE_URL_CANARY"] = "1"
    try:
        result = run_custom_job(
            spec(
                "train.py",
                args=["--data", "x y"],
                hyperparameters={"lr": 0.01, "epochs": 3, "augment": True, "name": "a b"},
            ),
            code_dir=job_dir / "code",
            data_dir=None,
            work_dir=job_dir,
            report=rec.report,
            on_output=rec.output,
            on_metrics=on_metrics,
            env_cache=env_cache,
        )
    finally:
        del os.environ["DATABASE_URL_CANARY"]
    out = rec.stream("stdout")
    assert out[0] == "argv ['--data', 'x y', '--lr=0.01', '--epochs=3', '--augment=true', '--name=a b']"
    assert json.loads(out[1].removeprefix("params ")) == {
        "lr": 0.01,
        "epochs": 3,
        "augment": True,
        "name": "a b",
    }
    assert RUN_UIDS.start <= int(out[2].split()[1]) < RUN_UIDS.stop and out[2].endswith("cwd True")
    assert (
        out[3] == "env ['SAMPAN_OUTPUT_DIR', 'SAMPAN_PARAMS', 'SAMPAN_RUN_EVENTS_FD', 'SAMPAN_RUN_REPLY_FD']"
    )
    assert out[4] == "gpus ''"  # a cpu-queue job sees no GPU
    assert out[5] == "pruned [False, False, True]"
    assert rec.stream("stderr") == ["written"]
    assert steps == [
        (0, {"loss": 1.0, "acc": 0.0}),
        (1, {"loss": 0.5, "acc": 1 / 3}),
        (2, {"loss": 1 / 3, "acc": 2 / 3}),
    ]
    metric_reports = [r for r in rec.reports if "custom_metrics" in r]
    assert [(r["step"], r["message"]) for r in metric_reports] == [
        (0, "step 0"),
        (1, "step 1"),
        (2, "step 2"),
    ]
    assert {"kind": "progress", "version": 1, "fraction": 0.5, "message": "training"} in rec.reports
    assert result["exit_code"] == 0
    assert result["stopped"] == "pruned" and "step 2" in result["reason"]
    assert result["metrics"] == {"loss": 1 / 3, "acc": 2 / 3}
    assert result["history"][1] == {"step": 1.0, "loss": 0.5, "acc": 1 / 3}
    assert result["model"] == {
        "onnx": str(job_dir / "output" / "model.onnx"),
        "labels": str(job_dir / "output" / "labels.json"),
        "preprocessing": str(job_dir / "output" / "preprocess.json"),
    }
    assert result["isolation"] == {"user": True, "network": True}
    assert "numpy" in result["environment"]["packages"]
    assert (
        result["requirements_hash"] == result["requirements_hash"].lower()
        and len(result["requirements_hash"]) == 64
    )


def test_a_module_runs_with_python_m_and_a_failure_is_a_result(job_dir: Path, env_cache: Path) -> None:
    package = job_dir / "code" / "trainer"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "main.py").write_text(
        "import sys\nprint('module', __name__, sys.argv[1:])\nraise ValueError('bad lr')\n"
    )
    rec = Recorder()
    result = run_custom_job(
        spec("trainer.main", hyperparameters={"lr": 0.5}),
        code_dir=job_dir / "code",
        data_dir=None,
        work_dir=job_dir,
        report=rec.report,
        on_output=rec.output,
        env_cache=env_cache,
    )
    assert rec.stream("stdout") == ["module __main__ ['--lr=0.5']"]
    assert result["exit_code"] == 1 and result["stopped"] is None
    assert result["reason"] == "exited with code 1"
    assert rec.stream("stderr")[-1] == "ValueError: bad lr"
    assert result["model"] is None


def test_an_entry_point_outside_the_code_is_refused(job_dir: Path, env_cache: Path) -> None:
    with pytest.raises(RunnerError, match="outside the code"):
        run_custom_job(
            spec("../escape.py"),
            code_dir=job_dir / "code",
            data_dir=None,
            work_dir=job_dir,
            report=Recorder().report,
            on_output=Recorder().output,
            env_cache=env_cache,
        )


def test_data_is_readable_not_writable_and_cancel_stops_the_run(job_dir: Path, env_cache: Path) -> None:
    data = job_dir / "data"
    data.mkdir()
    (data / "manifest.json").write_text('{"kind": "custom_data_layout"}')
    os.chmod(data / "manifest.json", 0o600)  # the runner opens it to the sandbox user, read-only
    (job_dir / "code" / "train.py").write_text(
        EVENTS
        + textwrap.dedent("""
        import os, time, pathlib
        data = pathlib.Path(os.environ["SAMPAN_DATA_DIR"])
        print("read", (data / "manifest.json").read_text())
        for target in (data / "manifest.json", data / "new.txt"):
            try:
                with open(target, "a") as f:
                    f.write("x")
                print("wrote")
            except PermissionError:
                print("denied")
        for step in range(1000):
            log_metrics(step, loss=1.0)
            time.sleep(0.05)
    """)
    )
    rec = Recorder(cancel_after_step=3)
    with pytest.raises(JobCancelled):
        run_custom_job(
            spec("train.py"),
            code_dir=job_dir / "code",
            data_dir=data,
            work_dir=job_dir,
            report=rec.report,
            on_output=rec.output,
            env_cache=env_cache,
        )
    assert rec.stream("stdout")[:3] == ['read {"kind": "custom_data_layout"}', "denied", "denied"]
    assert max(r.get("step", 0) for r in rec.reports) < 10
    assert ("system", "stopped: cancelled") in rec.lines


def _notebook(path: Path, *sources: str) -> None:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(source) for source in sources]
    nbformat.write(nb, path)


def test_a_notebook_runs_cell_by_cell_with_events(job_dir: Path, env_cache: Path) -> None:
    _notebook(
        job_dir / "code" / "train.ipynb",
        EVENTS,
        "import os, sys, json\nprint('cell 2', os.getuid(), json.loads(os.environ['SAMPAN_PARAMS']))",
        "print('to stderr', file=sys.stderr)\nprune = log_metrics(5, acc=0.75)\nprune",
        "open('written.txt', 'w').write('ok')\n21 * 2",
    )
    rec = Recorder()
    result = run_custom_job(
        spec("train.ipynb", code_kind="notebook", hyperparameters={"epochs": 2}),
        code_dir=job_dir / "code",
        data_dir=None,
        work_dir=job_dir,
        report=rec.report,
        on_output=rec.output,
        env_cache=env_cache,
    )
    assert result["exit_code"] == 0, rec.lines
    cell2, *rest = rec.stream("stdout")
    assert int(cell2.split()[2]) in RUN_UIDS and cell2.endswith("{'epochs': 2}")
    assert rest == ["False", "42"]
    assert rec.stream("stderr") == ["to stderr"]
    assert result["metrics"] == {"acc": 0.75}
    assert (job_dir / "code" / "written.txt").read_text() == "ok"  # cwd: the notebook's folder
    executed = nbformat.read(job_dir / "output" / "train.executed.ipynb", as_version=4)
    assert executed.cells[3].outputs[0]["data"]["text/plain"] == "42"


def test_a_notebook_cell_error_fails_the_run_with_its_traceback(job_dir: Path, env_cache: Path) -> None:
    _notebook(job_dir / "code" / "nb.ipynb", "print('before')", "1 / 0", "print('never')")
    rec = Recorder()
    result = run_custom_job(
        spec("nb.ipynb", code_kind="notebook"),
        code_dir=job_dir / "code",
        data_dir=None,
        work_dir=job_dir,
        report=rec.report,
        on_output=rec.output,
        env_cache=env_cache,
    )
    assert result["exit_code"] == 1
    assert rec.stream("stdout") == ["before"]
    assert "ZeroDivisionError" in "\n".join(rec.stream("stderr"))


def test_sampan_run_reads_the_layout_and_talks_to_the_runner(job_dir: Path, env_cache: Path) -> None:
    """The other end of the protocol is sampan.run itself: params, the materialised table, status,
    an artifact, metrics, and TrialPruned when the study answers prune."""
    from workers.custom_code.layout import materialize

    manifest = {
        "kind": "tabular",
        "version": 1,
        "task": "classification",
        "columns": [{"name": "x", "type": "numeric"}],
        "target": "y",
        "classes": ["no", "yes"],
        "samples": [{"values": {"x": float(i)}, "label": i % 2, "split": "train"} for i in range(6)],
    }
    materialize(manifest, job_dir / "data", dataset_version=12, task="tabular_classification")
    (job_dir / "code" / "train.py").write_text(
        textwrap.dedent("""
        import sampan.run as run
        table = run.dataset().table("train")
        version = run.dataset().dataset_version
        print("rows", len(table), sorted(set(table["y"])), run.params["epochs"], version)
        run.status("fitting", 0.25)
        (run.output_dir / "notes.txt").write_text("hello")
        run.log_artifact(run.output_dir / "notes.txt", name="notes")
        try:
            for step in range(run.params["epochs"]):
                run.log_metrics(step, score=step * 0.5)
        except run.TrialPruned:
            print("pruned")
            raise SystemExit(0)
    """)
    )
    rec = Recorder()
    result = run_custom_job(
        spec(
            "train.py", hyperparameters={"epochs": 5}, objective={"metric": "score", "direction": "maximize"}
        ),
        code_dir=job_dir / "code",
        data_dir=job_dir / "data",
        work_dir=job_dir,
        report=rec.report,
        on_output=rec.output,
        on_metrics=lambda step, metrics: step >= 1,
        env_cache=env_cache,
    )
    assert result["exit_code"] == 0, rec.lines
    assert rec.stream("stdout") == ["rows 6 ['no', 'yes'] 5 12", "pruned"]
    assert result["stopped"] == "pruned"
    assert [h["step"] for h in result["history"]] == [0.0, 1.0]
    assert result["artifacts"] == [{"path": "notes.txt", "name": "notes"}]
    assert {"kind": "progress", "version": 1, "fraction": 0.25, "message": "fitting"} in rec.reports


def test_concurrent_runs_have_their_own_uids_and_cannot_read_each_other(env_cache: Path) -> None:
    import threading

    with allocate_run_uid() as first, allocate_run_uid() as second:
        assert first != second and {first, second} <= set(RUN_UIDS)

    jobs = [Path(tempfile.mkdtemp(prefix="sampan-h1-job-", dir="/tmp")) for _ in range(2)]
    try:
        for job in jobs:
            os.chmod(job, 0o755)
            (job / "code").mkdir()
        a, b = jobs
        (a / "code" / "train.py").write_text(
            textwrap.dedent("""
            import os, pathlib, time
            pathlib.Path(os.environ["HOME"], "secret.txt").write_text("a's secret")
            pathlib.Path(os.environ["SAMPAN_OUTPUT_DIR"], "model.txt").write_text("a's model")
            print("ready", os.getpid(), os.getuid(), flush=True)
            while not pathlib.Path("go").exists():
                time.sleep(0.05)
            """)
        )
        rec_a = Recorder()
        ready = threading.Event()

        def output_a(stream: str, line: str) -> None:
            rec_a.output(stream, line)
            if line.startswith("ready"):
                ready.set()

        results: list[Any] = []
        thread = threading.Thread(
            target=lambda: results.append(
                run_custom_job(
                    spec("train.py", limits={"wall_time_s": 120, "memory_mb": 1024, "cpus": 1}),
                    code_dir=a / "code",
                    data_dir=None,
                    work_dir=a,
                    report=rec_a.report,
                    on_output=output_a,
                    env_cache=env_cache,
                )
            )
        )
        thread.start()
        try:
            assert ready.wait(60), rec_a.lines
            _, pid_a, uid_a = rec_a.stream("stdout")[0].split()
            (b / "code" / "train.py").write_text(
                textwrap.dedent(f"""
                import os
                print("uid", os.getuid() != {uid_a})
                for attempt in (lambda: open({str(a / "home" / "secret.txt")!r}).read(),
                                lambda: os.kill({pid_a}, 0)):
                    try:
                        attempt()
                        print("allowed")
                    except PermissionError:
                        print("denied")
                """)
            )
            rec_b = Recorder()
            result_b = run_custom_job(
                spec("train.py"),
                code_dir=b / "code",
                data_dir=None,
                work_dir=b,
                report=rec_b.report,
                on_output=rec_b.output,
                env_cache=env_cache,
            )
        finally:
            (a / "code" / "go").touch()
            thread.join(60)
        assert result_b["exit_code"] == 0, rec_b.lines
        assert rec_b.stream("stdout") == ["uid True", "denied", "denied"]
        assert results and results[0]["exit_code"] == 0
        # afterwards a's folders are root's again: the uid's next holder cannot read them
        for folder in (a / "output", a / "home", a / "code"):
            info = folder.stat()
            assert (info.st_uid, info.st_gid, info.st_mode & 0o777) == (0, 0, 0o700)
        assert (a / "output" / "model.txt").stat().st_uid == 0
    finally:
        for job in jobs:
            shutil.rmtree(job, ignore_errors=True)
