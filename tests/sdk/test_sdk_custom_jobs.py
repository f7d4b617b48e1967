"""Custom code from the SDK and the CLI against the live platform (gunicorn + a Celery worker on the
test PostgreSQL and Redis): upload a folder (zipped reproducibly, caches left out), run the digits
example on a dataset version, follow its logs, read its custom metrics and the model version it made;
the CLI streams a failing run's logs and exits 1; bad code, limits and parameters are refused with
the server's error codes; sampan.jobs takes the project from SAMPAN_PROJECT."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import sampan
import sampan.jobs

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "custom-code" / "digits-cnn"


def test_upload_a_folder_run_the_example_follow_logs_and_get_its_model_version(
    sdk, project, digits_folder, tmp_path
):
    dataset = sdk.datasets.create("custom digits", project=project)
    assert dataset.upload(digits_folder, progress=False).imported == 80
    version = dataset.create_version(seed=5)

    folder = tmp_path / "digits-cnn"
    shutil.copytree(EXAMPLE, folder, ignore=shutil.ignore_patterns("__pycache__", "outputs"))
    (folder / "__pycache__").mkdir()
    (folder / "__pycache__" / "train.cpython-311.pyc").write_bytes(b"\0" * 16)
    (folder / "notes.pyc").write_bytes(b"\0")
    code = sdk.code_archives.upload(project, folder, name="digits-cnn")
    assert code.code_kind == "zip" and code.entry_point == "train.py" and code.name == "digits-cnn"
    assert sorted(f["path"] for f in code.files) == ["README.md", "train.py"]  # caches left out
    again = sdk.code_archives.upload(project, folder)
    assert again.sha256 == code.sha256  # the same files zip to the same bytes
    assert "run.log_metrics" in code.file_text("train.py")
    assert code.id in [c.id for c in sdk.code_archives.list(project)]
    assert sdk.code_archives.get(code.id).sha256 == code.sha256

    job = sdk.custom_jobs.submit(
        project, code, dataset_version=version, hyperparameters={"epochs": 2, "seed": 1}, name="digits"
    )
    assert job.data["kind"] == "training.custom"
    lines = list(job.logs(follow=True, poll=0.5, timeout=600))
    assert job.status == "succeeded", (job.data["error"], [line["text"] for line in lines][-30:])
    seqs = [line["seq"] for line in lines]
    assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs)
    stdout = [line["text"] for line in lines if line["stream"] == "stdout"]
    assert any("training images" in text for text in stdout), stdout
    # reading from the middle gives the rest, once
    middle = seqs[len(seqs) // 2]
    assert [line["seq"] for line in job.logs(after=middle)] == [s for s in seqs if s > middle]

    result = job.data["result"]
    assert result["kind"] == "custom_job_result" and result["exit_code"] == 0
    assert set(result["metrics"]) >= {"loss", "val_accuracy"} and len(result["history"]) == 2
    curves = [p for p in job.progress_series() if "custom_metrics" in p]
    assert [p["step"] for p in curves] == [1, 2]
    model = job.model_version()
    assert model.source == "custom" and model.id == result["model_version"]
    assert model.data["lineage"]["code_sha256"] == code.sha256
    assert model.data["lineage"]["hyperparameters"] == {"epochs": 2, "seed": 1}
    assert model.data["lineage"]["dataset_version"] == version.id


def sampan_cli(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    executable = shutil.which("sampan", path=str(Path(sys.executable).parent))
    assert executable, "the sampan console script is installed with the SDK"
    base = {k: v for k, v in os.environ.items() if not k.startswith("SAMPAN_")}
    return subprocess.run(
        [executable, *args], env={**base, **env}, capture_output=True, text=True, timeout=600
    )


def test_cli_submit_follows_a_failing_run_and_exits_1_then_prints_its_logs(
    live_web, live_worker, tenants, token_for, tmp_path
):
    script = tmp_path / "crash.py"
    script.write_text(
        textwrap.dedent(
            """
            import sys
            import sampan.run as run

            print("argv", sys.argv[1], sorted(sys.argv[2:]))
            print("params", sorted(run.params.items()))
            run.log_metrics(step=0, loss=1.0)
            raise RuntimeError("the trainer broke on purpose")
            """
        )
    )
    env = {
        "SAMPAN_URL": live_web,
        "SAMPAN_API_KEY": token_for(tenants["alice"]),
        "SAMPAN_PROJECT": str(tenants["project_a"].pk),
    }
    done = sampan_cli(
        "custom-job",
        "submit",
        str(script),
        "-p",
        "epochs=3",
        "-p",
        "opt=adam",
        "--arg=--fast",  # an argument that starts with a dash: --arg=VALUE
        "--follow",
        env=env,
    )
    assert done.returncode == 1, (done.stdout, done.stderr)
    summary = json.loads(done.stdout)
    assert summary["status"] == "failed" and summary["kind"] == "training.custom"
    assert "exit code 1" in (summary["error"] or ""), summary
    assert "the trainer broke on purpose" in (summary["error"] or "")
    assert "argv --fast ['--epochs=3', '--opt=adam']" in done.stderr  # the logs, streamed
    assert "params [('epochs', 3), ('opt', 'adam')]" in done.stderr
    assert "[stderr] RuntimeError: the trainer broke on purpose" in done.stderr

    logs = sampan_cli("custom-job", "logs", str(summary["job"]), env=env)
    assert logs.returncode == 0, logs.stderr
    assert "argv --fast ['--epochs=3', '--opt=adam']" in logs.stdout.splitlines()
    as_json = sampan_cli("custom-job", "logs", str(summary["job"]), "--json", "--follow", env=env)
    assert as_json.returncode == 1  # followed to its end: the job failed
    lines = [json.loads(line) for line in as_json.stdout.splitlines()]
    assert {line["stream"] for line in lines} >= {"stdout", "stderr"}
    assert [line["seq"] for line in lines] == sorted(line["seq"] for line in lines)


def test_bad_code_limits_and_parameters_are_refused_with_their_codes(sdk, project, tmp_path, monkeypatch):
    broken = tmp_path / "broken.py"
    broken.write_text("def train(:\n    pass\n")
    with pytest.raises(sampan.BadRequest) as caught:
        sdk.code_archives.upload(project, broken)
    assert caught.value.code == "code_archive_invalid" and "line 1" in caught.value.message
    with pytest.raises(ValueError, match="upload a .py script"):
        (tmp_path / "data.csv").write_text("a\n")
        sdk.code_archives.upload(project, tmp_path / "data.csv")
    with pytest.raises(FileNotFoundError):
        sdk.code_archives.upload(project, tmp_path / "missing")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "requirements.txt").write_text("# nothing to install\n")

    ok = tmp_path / "ok.py"
    ok.write_text("print('ok')\n")
    code = sdk.code_archives.upload(project, ok)
    assert code.code_kind == "script" and code.entry_point == "ok.py"
    with pytest.raises(sampan.BadRequest) as caught:
        sdk.custom_jobs.submit(project, code, limits={"memory_mb": 10**7}, requirements="requirements.txt")
    assert caught.value.code == "custom_job_limit_too_high"
    with pytest.raises(sampan.BadRequest) as caught:
        sdk.custom_jobs.submit(project, code.id, hyperparameters={"bad-name": 1})
    assert caught.value.code == "custom_job_invalid" and "bad-name" in caught.value.message
    with pytest.raises(TypeError, match="list of strings"):
        sdk.custom_jobs.submit(project, code, args="--fast")  # type: ignore[arg-type]

    # sampan.jobs: the project from SAMPAN_PROJECT (what a platform notebook has set)
    monkeypatch.delenv("SAMPAN_PROJECT", raising=False)
    with pytest.raises(ValueError, match="SAMPAN_PROJECT"):
        sampan.jobs.submit(code, client=sdk)
    monkeypatch.setenv("SAMPAN_PROJECT", str(project.id))
    with pytest.raises(sampan.BadRequest) as caught:
        sampan.jobs.submit(code, client=sdk, limits={"cpus": 10**4})
    assert caught.value.code == "custom_job_limit_too_high"


def test_a_folder_zips_reproducibly_without_caches_links_or_outputs(tmp_path):
    import io
    import zipfile

    from sampan.code_archives import zip_folder

    folder = tmp_path / "trainer"
    (folder / "pkg" / "__pycache__").mkdir(parents=True)
    (folder / "train.py").write_text("print('train')\n")
    (folder / "pkg" / "model.py").write_text("X = 1\n")
    (folder / "pkg" / "__pycache__" / "model.cpython-311.pyc").write_bytes(b"\0")
    (folder / ".git").mkdir()
    (folder / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (folder / "outputs").mkdir()
    (folder / "outputs" / "model.onnx").write_bytes(b"old run")
    (folder / "secret-link").symlink_to("/etc/hostname")
    first = zip_folder(folder)
    with zipfile.ZipFile(io.BytesIO(first)) as bundle:
        assert sorted(bundle.namelist()) == ["pkg/model.py", "train.py"]
        assert bundle.read("pkg/model.py") == b"X = 1\n"
    os.utime(folder / "train.py", (1, 1))  # a newer checkout of the same files: the same bytes
    assert zip_folder(folder) == first
    (folder / "train.py").write_text("print('changed')\n")
    assert zip_folder(folder) != first


def test_requirements_are_text_or_a_file(tmp_path, monkeypatch):
    from sampan.custom_jobs import read_requirements

    monkeypatch.chdir(tmp_path)
    (tmp_path / "requirements.txt").write_text("lightgbm==4.3.0\n")
    assert read_requirements(None) is None
    assert read_requirements("requirements.txt") == "lightgbm==4.3.0\n"
    assert read_requirements(tmp_path / "requirements.txt") == "lightgbm==4.3.0\n"
    assert read_requirements("scikit-learn>=1.4\nxgboost") == "scikit-learn>=1.4\nxgboost"
    assert read_requirements("xgboost") == "xgboost"  # no such file: a requirement line
    with pytest.raises(FileNotFoundError):
        read_requirements(tmp_path / "missing.txt")


def test_the_wait_bar_shows_a_custom_runs_own_metrics():
    from sampan.training import Job

    class Bar:
        n = 0.0

        def update(self, by: float) -> None:
            self.n += by

        def set_postfix(self, shown: dict, refresh: bool = True) -> None:
            self.shown = shown

    progress = {"kind": "progress", "version": 1, "fraction": 0.5, "step": 4}
    progress["custom_metrics"] = {"loss": 0.123456, "val_accuracy": 0.75}
    job = Job(None, {"id": 1, "kind": "training.custom", "status": "running", "progress": progress})  # type: ignore[arg-type]
    bar, seen = Bar(), {}
    job._show(bar, seen)
    assert bar.n == 50.0
    assert bar.shown == {"status": "running", "step": 4, "loss": "0.1235", "val_accuracy": "0.75"}


def test_a_module_entry_point_on_a_table_keeps_an_artifact_to_download(sdk, project, tmp_path):
    import pandas as pd
    from sklearn.datasets import load_iris

    iris = load_iris(as_frame=True).frame.rename(columns=lambda c: c.replace(" (cm)", "").replace(" ", "_"))
    iris["species"] = iris.pop("target").map(dict(enumerate(load_iris().target_names)))
    iris = pd.concat([iris[iris.species == s].head(20) for s in iris.species.unique()])
    table = sdk.datasets.create("iris", project=project, task_type="tabular_classification")
    table.import_table(iris, target_column="species")
    version = table.create_version(seed=2)

    code = sdk.code_archives.upload(
        project, REPO / "examples" / "custom-code" / "tabular-forest", entry_point="trainer"
    )
    assert code.entry_point == "trainer"
    job = sdk.custom_jobs.submit(project, code, dataset_version=version, hyperparameters={"n_estimators": 20})
    job.wait(timeout=600, progress=False)
    result = job.data["result"]
    assert [point["step"] for point in result["history"]] == [10, 20]
    assert 0.0 <= result["metrics"]["val_accuracy"] <= 1.0
    assert [a["path"] for a in job.artifacts()] == ["importances.json"]
    path = job.download_artifact("importances.json", tmp_path / "kept" / "importances.json")
    importances = json.loads(path.read_text())
    assert set(importances) >= {"sepal_length", "petal_width"}
    with pytest.raises(sampan.NotFound):
        job.download_artifact("../secrets.json", tmp_path / "nothing")
    with pytest.raises(ValueError, match="recorded no model version"):
        job.model_version()  # a table run writes no model
