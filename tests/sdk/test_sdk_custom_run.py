"""sampan.run, the SDK inside a custom-code run: the run-event protocol over a real pipe pair (events
out, replies in), pruning, validation, the laptop fallback, the dataset layout reader, save_model, and
the digits-cnn example run end to end against a hand-written layout (its model passes the platform's
uploaded-model checks)."""

from __future__ import annotations

import importlib.util
import json
import math
import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest
import sampan.run as run

from tests.workers.digits_data import write_digits

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "custom-code" / "digits-cnn" / "train.py"


class Worker:
    """The worker's side of the protocol: reads event lines, answers each ``metrics`` event with a
    run_reply (``prune`` from ``prune_at``: the steps to prune at)."""

    def __init__(self, prune_at: set[int] | None = None) -> None:
        self.events_r, self.events_w = os.pipe()
        self.reply_r, self.reply_w = os.pipe()
        self.prune_at = prune_at or set()
        self.events: list[dict] = []
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        with os.fdopen(self.events_r, "rb") as events, os.fdopen(self.reply_w, "wb", buffering=0) as replies:
            for line in events:
                event = json.loads(line)
                self.events.append(event)
                if event["kind"] == "metrics":
                    prune = event["step"] in self.prune_at
                    replies.write(
                        json.dumps({"kind": "run_reply", "version": 1, "prune": prune}).encode() + b"\n"
                    )

    def env(self) -> dict[str, str]:
        return {"SAMPAN_RUN_EVENTS_FD": str(self.events_w), "SAMPAN_RUN_REPLY_FD": str(self.reply_r)}

    def close_child_ends(self) -> None:
        os.close(self.events_w)
        os.close(self.reply_r)

    def finish(self) -> list[dict]:
        self.thread.join(timeout=60)
        assert not self.thread.is_alive(), "the run never closed its event pipe"
        return self.events


@pytest.fixture
def clean_env(monkeypatch, tmp_path):
    for name in (
        "SAMPAN_PARAMS",
        "SAMPAN_DATA_DIR",
        "SAMPAN_OUTPUT_DIR",
        "SAMPAN_RUN_EVENTS_FD",
        "SAMPAN_RUN_REPLY_FD",
        "SAMPAN_OBJECTIVE",
    ):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(run, "_last_step", -1)
    return tmp_path


def write_layout(root: Path, *, per_class: int = 8, size: int = 28) -> Path:
    """A data layout as the worker materialises one (workers.custom_code.layout.materialize, API.md §1):
    manifest.json, files/..., <split>.jsonl with {"id", "file" (relative), "label" (class index)}."""
    from workers.custom_code.layout import materialize

    manifest = write_digits(root.parent / f"{root.name}-src", size=size, per_class=per_class)
    materialize(manifest, root, dataset_version=41, task="image_classification")
    return root


def test_events_and_replies_over_a_real_pipe_pair(clean_env, monkeypatch):
    worker = Worker()
    for name, value in worker.env().items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("SAMPAN_OUTPUT_DIR", str(clean_env / "out"))
    artifact = clean_env / "confusion.csv"
    artifact.write_text("a,b\n1,2\n")

    run.log_metrics(step=0, loss=1.5, val_accuracy=np.float32(0.25))
    run.log_metrics(loss=1.25)  # step defaults to the previous one + 1
    run.status("epoch 2 of 4", fraction=0.5)
    kept = run.log_artifact(artifact, name="confusion")
    worker.close_child_ends()
    events = worker.finish()

    assert events == [
        {"kind": "metrics", "version": 1, "step": 0, "metrics": {"loss": 1.5, "val_accuracy": 0.25}},
        {"kind": "metrics", "version": 1, "step": 1, "metrics": {"loss": 1.25}},
        {"kind": "status", "version": 1, "message": "epoch 2 of 4", "fraction": 0.5},
        {"kind": "artifact", "version": 1, "path": "artifacts/confusion", "name": "confusion"},
    ]
    assert kept == clean_env / "out" / "artifacts" / "confusion" and kept.read_text() == "a,b\n1,2\n"
    assert not (clean_env / "out" / "metrics.jsonl").exists()  # in a run, metrics go to the worker only


def test_a_prune_reply_raises_trial_pruned(clean_env, monkeypatch):
    worker = Worker(prune_at={2})
    for name, value in worker.env().items():
        monkeypatch.setenv(name, value)
    run.log_metrics(step=1, accuracy=0.4)
    with pytest.raises(run.TrialPruned) as caught:
        run.log_metrics(step=2, accuracy=0.41)
    assert caught.value.step == 2 and caught.value.metrics == {"accuracy": 0.41}
    assert "pruned at step 2" in str(caught.value)
    worker.close_child_ends()
    assert [e["step"] for e in worker.finish()] == [1, 2]


def test_a_closed_reply_channel_is_an_error_not_a_hang(clean_env, monkeypatch):
    events_r, events_w = os.pipe()
    reply_r, reply_w = os.pipe()
    os.close(reply_w)  # the worker went away
    monkeypatch.setenv("SAMPAN_RUN_EVENTS_FD", str(events_w))
    monkeypatch.setenv("SAMPAN_RUN_REPLY_FD", str(reply_r))
    with pytest.raises(RuntimeError, match="closed the run's reply channel"):
        run.log_metrics(step=0, loss=1.0)
    for fd in (events_r, events_w, reply_r):
        os.close(fd)


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"loss": float("nan")}, ValueError, "'loss' must be finite"),
        ({"loss": math.inf}, ValueError, "'loss' must be finite"),
        ({"ok": True}, TypeError, "'ok' must be a number, not bool"),
        ({"name": "x"}, TypeError, "'name' must be a number, not str"),
        ({"loss": [1.0, 2.0]}, TypeError, "'loss' must be a number"),
        ({"loss": np.array([1.0, 2.0])}, TypeError, "'loss' must be a single number"),
        ({"val/acc": 1.0}, ValueError, "metric name 'val/acc' is not allowed"),
        ({}, ValueError, "at least one metric"),
        ({"step": -1, "loss": 1.0}, ValueError, "step must be 0 or more"),
        ({"step": 1.5, "loss": 1.0}, TypeError, "step must be an integer"),
    ],
)
def test_log_metrics_refuses_bad_values_with_a_clear_error(clean_env, kwargs, error, message):
    with pytest.raises(error, match=message):
        run.log_metrics(**kwargs)
    assert not (clean_env / "outputs" / "metrics.jsonl").exists()


def test_status_refuses_a_fraction_outside_0_1(clean_env):
    with pytest.raises(ValueError, match="between 0 and 1"):
        run.status("half", fraction=1.5)


def test_outside_a_run_metrics_print_and_go_to_outputs_metrics_jsonl(clean_env, capsys):
    run.log_metrics(loss=2.0, accuracy=0.5)
    run.log_metrics(loss=1.0, accuracy=np.float64(0.75))
    run.status("done", fraction=1.0)
    out = capsys.readouterr().out.splitlines()
    assert out == ["step 0: loss=2 accuracy=0.5", "step 1: loss=1 accuracy=0.75", "status: done (100%)"]
    lines = (clean_env / "outputs" / "metrics.jsonl").read_text().splitlines()
    assert [json.loads(line) for line in lines] == [
        {"step": 0, "loss": 2.0, "accuracy": 0.5},
        {"step": 1, "loss": 1.0, "accuracy": 0.75},
    ]
    assert run.in_platform_run() is False


def test_params_data_and_output_dirs_come_from_the_environment(clean_env, monkeypatch):
    assert run.params == {} and run.data_dir is None and run.output_dir == Path("outputs")
    assert run.objective is None
    monkeypatch.setenv(
        "SAMPAN_PARAMS", json.dumps({"epochs": 3, "lr": 0.01, "augment": False, "opt": "adam"})
    )
    monkeypatch.setenv("SAMPAN_DATA_DIR", "/data/run")
    monkeypatch.setenv("SAMPAN_OUTPUT_DIR", "/out/run")
    monkeypatch.setenv("SAMPAN_OBJECTIVE", "val_accuracy")
    params = run.params
    assert params == {"epochs": 3, "lr": 0.01, "augment": False, "opt": "adam"}
    assert type(params["epochs"]) is int and type(params["augment"]) is bool
    assert run.data_dir == Path("/data/run") and run.output_dir == Path("/out/run")
    assert run.objective == "val_accuracy"
    monkeypatch.setenv("SAMPAN_PARAMS", "[1, 2]")
    with pytest.raises(ValueError, match="must be a JSON object"):
        _ = run.params
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        _ = run.nope  # type: ignore[attr-defined]


def test_dataset_reads_the_layout_with_absolute_files(clean_env, monkeypatch):
    with pytest.raises(RuntimeError, match="SAMPAN_DATA_DIR is not set"):
        run.dataset()
    root = write_layout(clean_env / "data", per_class=3)
    monkeypatch.setenv("SAMPAN_DATA_DIR", str(root))
    data = run.dataset()
    assert data.classes == [str(d) for d in range(10)] and data.task == "image_classification"
    assert data.data_kind == "image" and data.dataset_version == 41 and data.target is None
    train = data.samples("train")
    assert len(train) == data.splits["train"]["samples"] == 20
    assert all(Path(s["file"]).is_absolute() and Path(s["file"]).is_file() for s in train)
    assert {s["label"] for s in train} == set(range(10))  # class indexes
    with pytest.raises(KeyError, match="no split 'holdout'"):
        data.samples("holdout")
    with pytest.raises(ValueError, match="not a table"):
        data.table("train")


def test_dataset_reads_a_table_split_as_a_dataframe(clean_env):
    pd = pytest.importorskip("pandas")
    root = clean_env / "table"
    root.mkdir()
    frame = pd.DataFrame({"x": [1.0, 2.0, 3.0], "colour": ["red", "blue", "red"], "y": [0, 1, 0]})
    frame.to_parquet(root / "train.parquet")
    (root / "manifest.json").write_text(
        json.dumps(
            {
                "kind": "custom_data_layout",
                "version": 1,
                "dataset_version": 5,
                "data_kind": "tabular",
                "task": "tabular_classification",
                "classes": ["0", "1"],
                "target": "y",
                "splits": {"train": {"samples": 3, "path": "train.parquet"}},
            }
        )
    )
    data = run.dataset(root)
    assert data.target == "y"
    assert data.table("train").to_dict("list") == frame.to_dict("list")
    with pytest.raises(ValueError, match="is a table"):
        data.samples("train")


def test_save_model_writes_the_three_files_with_a_full_image_spec(clean_env, monkeypatch):
    monkeypatch.setenv("SAMPAN_OUTPUT_DIR", str(clean_env / "out"))
    onnx = clean_env / "net.onnx"
    onnx.write_bytes(b"not checked here")
    folder = run.save_model(onnx, labels=["cat", "dog"], preprocessing={"image_size": 32, "mean": [0.5] * 3})
    assert folder == clean_env / "out"
    assert (folder / "model.onnx").read_bytes() == b"not checked here"
    assert json.loads((folder / "labels.json").read_text()) == ["cat", "dog"]
    spec = json.loads((folder / "preprocess.json").read_text())
    assert (
        spec["image_size"] == [32, 32]
        and spec["mean"] == [0.5] * 3
        and spec["format"] == "sampan.preprocess/1"
    )
    assert spec["layout"] == "NCHW" and spec["color"] == "RGB" and spec["std"] == [0.229, 0.224, 0.225]
    with pytest.raises(ValueError, match="unique"):
        run.save_model(onnx, labels=["a", "a"], preprocessing={"image_size": 8})
    with pytest.raises(ValueError, match=r"image_size = \[height, width\]"):
        run.save_model(onnx, labels=["a", "b"], preprocessing={"mean": [0.5] * 3})
    with pytest.raises(FileNotFoundError, match="no such ONNX file"):
        run.save_model(clean_env / "missing.onnx", labels=["a"], preprocessing={"image_size": 8})


def test_run_module_needs_no_requests_and_no_platform(tmp_path):
    """sampan/run.py loads on its own with requests unimportable and no workers/ or Django (it restates
    the protocol's shapes): custom code can use it anywhere."""
    script = (
        "import sys, importlib.util\n"
        "sys.modules['requests'] = None\n"
        f"spec = importlib.util.spec_from_file_location('sampan_run', {str(Path(run.__file__))!r})\n"
        "module = importlib.util.module_from_spec(spec); spec.loader.exec_module(module)\n"
        "module.log_metrics(step=4, loss=0.5)\n"
        "roots = ('requests', 'workers', 'django', 'sampan')\n"
        "bad = sorted(m for m, mod in sys.modules.items() if mod is not None and m.split('.')[0] in roots)\n"
        "print('imported', bad)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["step 4: loss=0.5", "imported []"]
    assert importlib.util.find_spec("sampan.run") is not None


def test_the_digits_example_trains_streams_metrics_and_writes_a_model_the_platform_accepts(tmp_path):
    """The example as a worker runs it: a child process with the event pipes, hyperparameters as
    arguments and SAMPAN_PARAMS; its metrics arrive per epoch and its model passes check_uploaded_onnx."""
    from training.model_uploads import check_uploaded_onnx

    root = write_layout(tmp_path / "data", per_class=8)
    worker = Worker()
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(tmp_path),
        "OMP_NUM_THREADS": "1",
        "PYTHONUNBUFFERED": "1",
        "SAMPAN_DATA_DIR": str(root),
        "SAMPAN_OUTPUT_DIR": str(tmp_path / "output"),
        "SAMPAN_PARAMS": json.dumps({"epochs": 2, "lr": 0.01}),
        **worker.env(),
    }
    child = subprocess.run(
        [sys.executable, "-u", str(EXAMPLE), "--epochs=2", "--lr=0.01"],
        cwd=tmp_path,
        env=env,
        pass_fds=(worker.events_w, worker.reply_r),
        capture_output=True,
        text=True,
        timeout=300,
    )
    worker.close_child_ends()
    events = worker.finish()
    assert child.returncode == 0, child.stderr[-3000:]
    metrics = [e for e in events if e["kind"] == "metrics"]
    assert [e["step"] for e in metrics] == [1, 2]
    assert all(set(e["metrics"]) == {"loss", "val_accuracy"} and e["metrics"]["loss"] > 0 for e in metrics)
    statuses = [e for e in events if e["kind"] == "status"]
    assert statuses[-1] == {"kind": "status", "version": 1, "message": "epoch 2/2", "fraction": 1.0}
    assert "60 training images, 10 val images, 10 classes" in child.stdout

    output = tmp_path / "output"
    classes = json.loads((output / "labels.json").read_text())
    preprocessing = json.loads((output / "preprocess.json").read_text())
    _proto, checked_classes, spec = check_uploaded_onnx(
        output / "model.onnx", filename="model.onnx", classes=classes, preprocessing=preprocessing
    )
    assert checked_classes == [str(d) for d in range(10)]
    assert spec["image_size"] == [28, 28] and spec == preprocessing


TABULAR_EXAMPLE = REPO / "examples" / "custom-code" / "tabular-forest"


def write_iris_layout(root: Path) -> Path:
    """scikit-learn's bundled iris as a tabular dataset version's layout (materialize), with a
    categorical column and a missing value, so the example's encoding is exercised."""
    from sklearn.datasets import load_iris

    from workers.custom_code.layout import materialize

    iris = load_iris()
    names = ["sepal_length", "sepal_width", "petal_length", "petal_width"]
    rng = np.random.default_rng(0)
    samples = []
    for index, (row, label) in enumerate(zip(iris.data, iris.target, strict=True)):
        values = {name: float(v) for name, v in zip(names, row, strict=True)}
        values["garden"] = ["north", "south"][index % 2]
        if index == 3:
            values["sepal_width"] = None
        split = ["train", "train", "train", "val", "test"][int(rng.integers(5))]
        samples.append({"id": index, "values": values, "label": int(label), "split": split})
    manifest = {
        "kind": "tabular",
        "task": "classification",
        "target": "species",
        "classes": list(iris.target_names),
        "columns": [
            *({"name": n, "type": "numeric"} for n in names),
            {"name": "garden", "type": "categorical"},
        ],
        "samples": samples,
    }
    materialize(manifest, root, dataset_version=52, task="tabular_classification")
    return root


def test_the_tabular_example_runs_as_a_module_with_curves_and_an_artifact(tmp_path):
    root = write_iris_layout(tmp_path / "data")
    data = run.dataset(root)
    assert data.data_kind == "tabular" and data.target == "species"
    assert set(data.table("train").columns) >= {"sepal_length", "garden", "species", "_id"}
    code = tmp_path / "code"  # the worker runs a copy of the code, in its folder
    shutil.copytree(TABULAR_EXAMPLE, code, ignore=shutil.ignore_patterns("__pycache__"))
    worker = Worker()
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(tmp_path),
        "OMP_NUM_THREADS": "1",
        "SAMPAN_DATA_DIR": str(root),
        "SAMPAN_OUTPUT_DIR": str(tmp_path / "output"),
        "SAMPAN_PARAMS": json.dumps({"n_estimators": 30}),
        **worker.env(),
    }
    child = subprocess.run(
        [sys.executable, "-u", "-m", "trainer", "--n_estimators=30"],
        cwd=code,
        env=env,
        pass_fds=(worker.events_w, worker.reply_r),
        capture_output=True,
        text=True,
        timeout=300,
    )
    worker.close_child_ends()
    events = worker.finish()
    assert child.returncode == 0, child.stderr[-3000:]
    metrics = [e for e in events if e["kind"] == "metrics"]
    assert [e["step"] for e in metrics] == [10, 20, 30]
    assert all(0.8 <= e["metrics"]["val_accuracy"] <= 1.0 for e in metrics), metrics  # iris is easy
    artifacts = [e for e in events if e["kind"] == "artifact"]
    assert artifacts == [
        {"kind": "artifact", "version": 1, "path": "importances.json", "name": "importances.json"}
    ]
    importances = json.loads((tmp_path / "output" / "importances.json").read_text())
    assert next(iter(importances)).startswith("petal_")  # the petals separate the species
    assert "garden_north" in importances and "training rows" in child.stdout


NOTEBOOK_EXAMPLE = REPO / "examples" / "custom-code" / "digits-notebook" / "train.ipynb"


def test_the_notebook_example_runs_cell_by_cell_with_sampan_run(tmp_path):
    """The notebook example as a worker runs a notebook entry point (workers.custom_code.notebook_exec):
    its cells' output streams, log_metrics from a cell reaches the worker over the inherited pipes."""
    root = write_layout(tmp_path / "data", per_class=8)
    code = tmp_path / "code"
    code.mkdir()
    shutil.copyfile(NOTEBOOK_EXAMPLE, code / "train.ipynb")
    (tmp_path / "output").mkdir()
    worker = Worker()
    env = {
        "PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin",
        "HOME": str(tmp_path),
        "OMP_NUM_THREADS": "1",
        "PYTHONPATH": str(REPO),
        "SAMPAN_DATA_DIR": str(root),
        "SAMPAN_OUTPUT_DIR": str(tmp_path / "output"),
        "SAMPAN_PARAMS": json.dumps({"epochs": 3}),
        **worker.env(),
    }
    child = subprocess.run(
        [sys.executable, "-u", "-m", "workers.custom_code.notebook_exec", "train.ipynb", "--epochs=3"],
        cwd=code,
        env=env,
        pass_fds=(worker.events_w, worker.reply_r),
        capture_output=True,
        text=True,
        timeout=300,
    )
    worker.close_child_ends()
    events = worker.finish()
    assert child.returncode == 0, (child.stdout[-2000:], child.stderr[-3000:])
    assert [e["step"] for e in events if e["kind"] == "metrics"] == [1, 2, 3]
    assert all(
        set(e["metrics"]) == {"train_accuracy", "val_accuracy"} for e in events if e["kind"] == "metrics"
    )
    assert [e["path"] for e in events if e["kind"] == "artifact"] == ["confusion.json"]
    assert "60 training images, 10 validation images" in child.stdout
    confusion = json.loads((tmp_path / "output" / "confusion.json").read_text())
    assert sum(map(sum, confusion["counts"])) == 10
    assert (tmp_path / "output" / "train.executed.ipynb").is_file()
