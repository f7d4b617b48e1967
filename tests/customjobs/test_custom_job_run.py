"""A custom job run on the platform (customjobs.run) against PostgreSQL, Redis and a live worker: the
digits example trains on a dataset version, logs metrics (live curves) and lines, writes ONNX that
becomes a custom model version with lineage, is evaluated, deploys and answers a prediction; a crash
fails with its exit code and traceback, limits stop with the sandbox's reason, cancel kills the tree."""

from __future__ import annotations

import json
import os
import time

import pytest
from jobs.models import JobEvent, JobLogLine

from tests.customjobs.run_support import (
    DIGITS_EXAMPLE,
    code_archive,
    custom_job,
    finished,
    log_text,
    script_archive,
    zip_folder,
)
from tests.datasets.factories import dataset_with_samples
from tests.deploy.factories import b64, png
from tests.harness import wait_for

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def digits_version(tenants, *, per_class: int = 8):
    from datasets.services import dataset_version_create

    dataset = dataset_with_samples(
        user=tenants["alice"],
        project=tenants["project_a"],
        name="Digits",
        per_class=per_class,
        classes=range(10),
    )
    return dataset_version_create(dataset=dataset, user=tenants["alice"], seed=7)


def curve_points(job) -> list[tuple[int, dict]]:
    events = JobEvent.objects.filter(job=job, type="progress", data__has_key="custom_metrics").order_by("pk")
    return [(e.data["step"], e.data["custom_metrics"]) for e in events]


def test_digits_example_becomes_an_evaluated_model_version_that_deploys_and_predicts(
    live_worker, tenants, api_client, settings
):
    from customjobs.running import job_work_dirs
    from deploy import services as deploy_services
    from training.models import ModelVersion

    alice = tenants["alice"]
    version = digits_version(tenants)
    archive = code_archive(
        tenants["project_a"],
        alice,
        data=zip_folder(DIGITS_EXAMPLE),
        filename="digits-cnn.zip",
        entry_point="train.py",
        name="digits-cnn",
    )
    job = custom_job(archive, alice, dataset_version=version, hyperparameters={"epochs": 2, "seed": 3})
    job = finished(job, timeout=600)
    assert job.status == "succeeded", f"{job.error}\n{log_text(job)}"

    result = job.result
    assert result["kind"] == "custom_job_result" and result["exit_code"] == 0 and result["stopped"] is None
    assert set(result["metrics"]) >= {"loss", "val_accuracy"} and len(result["history"]) == 2
    # live curves: one progress event per log_metrics call, with the user's own metric names
    points = curve_points(job)
    assert [step for step, _ in points] == [1, 2], points
    assert all(set(m) >= {"loss", "val_accuracy"} for _, m in points)
    assert points[-1][1]["loss"] == pytest.approx(result["metrics"]["loss"])
    # its output lines, numbered in order; the sandbox ran it as the sandbox user
    assert "training images" in log_text(job, "stdout")
    seqs = list(JobLogLine.objects.filter(job=job).order_by("seq").values_list("seq", flat=True))
    assert seqs == list(range(1, len(seqs) + 1))
    if os.geteuid() == 0:
        assert result["isolation"]["user"] is True
    assert job_work_dirs(job) == [], "work dir removed"

    model = ModelVersion.objects.get(pk=result["model_version"])
    assert result["model_version_name"] == model.name == "V1"
    assert model.source == "custom" and model.job_id == job.pk and model.dataset_version_id == version.pk
    assert model.classes == [str(i) for i in range(10)] and model.preprocessing["image_size"] == [28, 28]
    lineage = model.lineage
    assert lineage["kind"] == "custom_job_lineage" and lineage["job"] == job.pk
    assert lineage["code_archive"] == archive.pk and lineage["code_sha256"] == archive.sha256
    assert lineage["code_name"] == "digits-cnn" and lineage["entry_point"] == "train.py"
    assert lineage["hyperparameters"] == {"epochs": 2, "seed": 3} and lineage["dataset_version"] == version.pk
    assert lineage["environment"]["python"] and "torch" in lineage["environment"]["packages"]
    # evaluated on the version's test split as an uploaded model is
    test = model.metrics["test"]
    assert 0.0 <= test["accuracy"] <= 1.0
    assert model.evaluation["samples"] == sum(version.counts["test"].values()) > 0

    # it deploys and answers the hosted prediction API
    deployment = deploy_services.deployment_create(user=alice, model_version=model, name="custom digits")
    _, secret = deploy_services.deployment_key_create(user=alice, deployment=deployment, name="k")
    answer = api_client().post(
        f"/api/v1/deployments/{deployment.pk}/predict/",
        data=json.dumps({"instances": [{"image": b64(png(i))} for i in range(3)], "top_k": 2}),
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Bearer {secret}",
    )
    assert answer.status_code == 200, answer.content
    body = answer.json()
    assert body["model_version"]["id"] == model.pk and len(body["predictions"]) == 3
    assert all(p["top_k"][0]["label"] in model.classes for p in body["predictions"])


def test_a_run_without_a_model_succeeds_with_its_metrics_parameters_and_artifacts(live_worker, tenants):
    from django.core.files.storage import default_storage

    alice = tenants["alice"]
    archive = script_archive(
        tenants["project_a"],
        alice,
        """
        import sys
        import sampan.run as run

        print("argv", sys.argv[1:])
        for step in range(1, 4):
            run.log_metrics(step=step, score=run.params["alpha"] * step)
        report = run.output_dir / "report.txt"
        report.write_text("all good")
        run.log_artifact(report, name="report")
        """,
    )
    job = finished(custom_job(archive, alice, args=["--flag"], hyperparameters={"alpha": 0.5}))
    assert job.status == "succeeded", f"{job.error}\n{log_text(job)}"
    assert job.result["model"] is None and job.result["model_version"] is None
    # an artifact is kept with the job in blob storage (the work dir is gone)
    [artifact] = job.result["artifacts"]
    assert artifact["name"] == "report" and artifact["path"] == "report.txt" and artifact["size_bytes"] == 8
    with default_storage.open(artifact["key"], "rb") as kept:
        assert kept.read() == b"all good"
    assert job.result["metrics"] == {"score": 1.5}
    assert [(step, m["score"]) for step, m in curve_points(job)] == [(1, 0.5), (2, 1.0), (3, 1.5)]
    assert "argv ['--flag', '--alpha=0.5']" in log_text(job, "stdout")


def test_a_crash_fails_with_its_exit_code_and_traceback_and_a_retry_numbers_on(
    live_worker, tenants, api_client
):
    from jobs.services import job_retry

    alice = tenants["alice"]
    archive = script_archive(
        tenants["project_a"],
        alice,
        """
        print("about to divide", flush=True)

        def ratio(a, b):
            return a / b

        ratio(1, 0)
        """,
    )
    job = finished(custom_job(archive, alice))
    assert job.status == "failed"
    assert job.error.startswith("exit code 1\nTraceback (most recent call last):"), job.error
    assert job.error.rstrip().endswith("ZeroDivisionError: division by zero") and "ratio(1, 0)" in job.error
    assert "about to divide" in log_text(job, "stdout") and "ZeroDivisionError" in log_text(job, "stderr")
    first = JobLogLine.objects.filter(job=job).count()
    # the owner reads the reason and the traceback; another workspace does not learn the job exists
    mine = api_client(alice).get(f"/api/v1/jobs/{job.pk}/")
    assert mine.status_code == 200 and mine.json()["error"] == job.error
    bob = api_client(tenants["bob"])
    assert bob.get(f"/api/v1/jobs/{job.pk}/").status_code == 404
    assert bob.get(f"/api/v1/jobs/{job.pk}/logs/").status_code == 404

    job_retry(job=job)
    job = finished(job)
    assert job.status == "failed"
    seqs = list(JobLogLine.objects.filter(job=job).order_by("seq").values_list("seq", flat=True))
    assert len(seqs) > first and seqs == list(range(1, len(seqs) + 1)), "the retry goes on numbering"
    assert log_text(job, "stdout").count("about to divide") == 2
    assert log_text(job, "system").count(f"{archive.name} ({archive.sha256[:12]})") == 2


def test_memory_and_time_limits_stop_the_run_with_the_reason(live_worker, tenants):
    alice = tenants["alice"]
    hog = script_archive(
        tenants["project_a"],
        alice,
        """
        import time
        held = []
        for i in range(60):
            held.append(b"x" * (20 * 1024 * 1024))
            print(f"holding {20 * (i + 1)} MiB", flush=True)
            time.sleep(0.1)
        """,
        name="hog",
    )
    sleeper = script_archive(
        tenants["project_a"],
        alice,
        'import time\nprint("sleeping", flush=True)\ntime.sleep(300)\n',
        name="sleeper",
    )
    memory_job = custom_job(hog, alice, memory_mb=150)
    time_job = custom_job(sleeper, alice, wall_time_s=4)
    memory_job = finished(memory_job, timeout=120)
    assert memory_job.status == "failed"
    assert "memory limit" in memory_job.error and "150" in memory_job.error, memory_job.error
    assert "holding 1200 MiB" not in log_text(memory_job)
    started = time.monotonic()
    time_job = finished(time_job, timeout=120)
    assert time_job.status == "failed" and "time limit" in time_job.error, time_job.error
    assert time.monotonic() - started < 100
    assert "sleeping" in log_text(time_job, "stdout")


def test_cancel_kills_the_whole_process_tree(live_worker, tenants):
    from jobs.models import Job
    from jobs.services import job_cancel

    alice = tenants["alice"]
    archive = script_archive(
        tenants["project_a"],
        alice,
        """
        import subprocess, sys, time
        inner = (
            "import subprocess, time; p = subprocess.Popen(['sleep', '300']); "
            "print('grandchild', p.pid, flush=True); time.sleep(300)"
        )
        child = subprocess.Popen([sys.executable, "-c", inner])
        print("child", child.pid, flush=True)
        time.sleep(300)
        """,
    )
    job = custom_job(archive, alice)
    text = wait_for(
        lambda: (t := log_text(job)) and "grandchild" in t and "child" in t and t,
        timeout=120,
        interval=0.5,
        what="the process tree to start",
    )
    pids = [
        int(line.split()[-1]) for line in text.splitlines() if line.split()[:1] in (["child"], ["grandchild"])
    ]
    assert len(pids) == 2
    job_cancel(job=Job.objects.get(pk=job.pk))
    job = finished(job, timeout=60)
    assert job.status == "cancelled"

    def gone(pid: int) -> bool:
        try:
            with open(f"/proc/{pid}/stat") as fh:
                return fh.read().split(") ")[-1].startswith("Z")  # a zombie waiting for its reaper
        except FileNotFoundError:
            return True

    wait_for(lambda: all(gone(p) for p in pids), timeout=15, what=f"processes {pids} to be gone")
