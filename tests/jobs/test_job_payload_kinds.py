"""Every job kind's params and result, a package's report and a worker's devices are contracts
(workers.contracts.job_kinds, workers.contracts.packages): the API answers params with the job's
kind, the runner stamps a result's kind, and the data migrations (jobs 0004, deploy 0003) stamp
what was stored before. A stamped row is left alone."""

from __future__ import annotations

import importlib

import pytest
from django.apps import apps
from django.db import connection

from tests.deploy import factories as deploy_rows
from tests.jobs import factories as jobs_rows
from tests.training import factories as training_rows
from workers.contracts.job_kinds import JOB_PARAMS, RESULT_KINDS, job_result

pytestmark = pytest.mark.django_db


def run(migration: str) -> None:
    module = importlib.import_module(migration)
    with connection.schema_editor() as editor:
        module.stamp(apps, editor)


def test_every_registered_kind_has_params_and_a_result_contract():
    from jobs import registry

    names = {kind.name for kind in registry.all_kinds()}
    assert names == set(JOB_PARAMS) == set(RESULT_KINDS)


def test_a_result_gets_its_kinds_stamp_and_keeps_its_own():
    assert job_result("system.check", {"versions": {}}) == {
        "kind": "system_check_result",
        "version": 1,
        "versions": {},
    }
    trained = {"kind": "training_job_result", "version": 1, "model_version": 3}
    assert job_result("training.run", trained) == trained
    assert job_result("tests.unknown_kind", {"x": 1}) == {"x": 1}


def test_old_job_results_get_their_kinds(tenants):
    project = tenants["project_a"]
    check = jobs_rows.job(project, result={"versions": {"python": "3.11"}, "devices": {}})
    build = jobs_rows.job(
        project, kind="deploy.build_package", params={"package": 4}, result={"package": 4, "kind": "device"}
    )
    trial = jobs_rows.job(project, kind="automl.trial", params={}, result={"trial": 2, "state": "pruned"})
    new = {"kind": "system_check_result", "version": 1, "versions": {}}
    stamped = jobs_rows.job(project, result=new)
    unfinished = jobs_rows.job(project)

    run("jobs.migrations.0004_result_kinds")
    run("jobs.migrations.0004_result_kinds")  # twice: nothing changes the second time

    for row in (check, build, trial, stamped, unfinished):
        row.refresh_from_db()
    assert check.result == {
        "kind": "system_check_result",
        "version": 1,
        "versions": {"python": "3.11"},
        "devices": {},
    }
    assert build.result == {
        "kind": "package_build_result",
        "version": 1,
        "package": 4,
        "package_kind": "device",
    }
    assert trial.result == {"kind": "automl_trial_result", "version": 1, "trial": 2, "state": "pruned"}
    assert stamped.result == new and unfinished.result is None


def test_the_row_by_row_path_stamps_alike():
    """What the migration does on SQLite (the embedded mode), row by row."""
    stamped = importlib.import_module("jobs.migrations.0004_result_kinds").stamped
    assert stamped("deploy.build_package", {"package": 4, "kind": "server"}) == {
        "kind": "package_build_result",
        "version": 1,
        "package": 4,
        "package_kind": "server",
    }
    assert stamped("datasets.import", {"import_batch": 1, "imported": 3}) == {
        "kind": "dataset_import_result",
        "version": 1,
        "import_batch": 1,
        "imported": 3,
    }
    assert stamped("system.check", {"kind": "system_check_result", "version": 1}) is None
    assert stamped("training.run", {"model_version": 1}) is None  # jobs 0003 stamped those
    assert stamped("system.check", None) is None


def test_old_package_reports_get_their_version(tenants):
    version = training_rows.model_version(tenants["project_a"], onnx_key="")
    old = deploy_rows.package(version, report={"kind": "server", "size_bytes": 3})
    building = deploy_rows.package(version, report={})
    new = deploy_rows.package(version, kind="device", report={"kind": "device", "version": 1, "x": 1})

    run("deploy.migrations.0003_package_report_version")

    for row in (old, building, new):
        row.refresh_from_db()
    assert old.report == {"kind": "server", "version": 1, "size_bytes": 3}
    assert building.report == {} and new.report == {"kind": "device", "version": 1, "x": 1}


@pytest.mark.openapi_conformance
def test_the_api_answers_params_with_the_jobs_kind_and_null_for_an_unbuilt_report(tenants, api_client):
    client = api_client(tenants["alice"])
    job = jobs_rows.job(tenants["project_a"], params={"seconds": 1})
    answer = client.get(f"/api/v1/jobs/{job.pk}/")
    assert answer.status_code == 200
    assert answer.json()["params"] == {"kind": "system.check", "version": 1, "seconds": 1}
    assert answer.json()["result"] is None
    job.refresh_from_db()
    assert job.params == {"seconds": 1}  # stored as the kind's serializer validated them

    version = training_rows.model_version(tenants["project_a"], onnx_key="")
    package = deploy_rows.package(version, report={}, created_by=tenants["alice"])
    answer = client.get(f"/api/v1/packages/{package.pk}/")
    assert answer.status_code == 200 and answer.json()["report"] is None


@pytest.mark.openapi_conformance
def test_a_workers_devices_are_answered_as_detected(tenants, api_client):
    devices = {
        "cpu_count": 16,
        "machine": "x86_64",
        "torch": "2.5.1",
        "cuda": [{"index": 0, "name": "NVIDIA H200", "memory_bytes": 150_000_000_000}],
    }
    jobs_rows.worker_node("gpu-host", devices=devices)
    answer = api_client(tenants["alice"]).get("/api/v1/workers/")
    assert answer.status_code == 200
    rows = answer.json()
    rows = rows["results"] if isinstance(rows, dict) else rows
    assert [row["devices"] for row in rows if row["hostname"] == "gpu-host"] == [devices]


def conforms(payload: dict, component: str) -> None:
    """``payload`` matches the schema's ``component`` (unknown keys refused)."""
    from tests.openapi_conformance import _validate

    _validate(payload, {"$ref": f"#/components/schemas/{component}"}, component)


def test_a_system_checks_result_is_its_contract():
    import django

    from workers.progress import silent_report
    from workers.system_check import run_system_check

    result = job_result("system.check", run_system_check(seconds=0.05, report=silent_report))
    result["versions"]["django"] = django.get_version()
    conforms(result, "SystemCheckResult")
    conforms(result["devices"], "WorkerDevices")


@pytest.mark.packages
def test_the_builders_reports_are_their_contracts(tmp_path):
    from tests.packages.packaging_support import digits_artifacts
    from workers.packaging import build_device_sdk, build_server_package

    artifacts, training_images, _ = digits_artifacts()
    server = build_server_package(artifacts=artifacts, out_path=tmp_path / "server.zip")
    conforms(server, "ServerPackageReport")
    device = build_device_sdk(
        artifacts=artifacts, out_path=tmp_path / "device.zip", calibration_images=training_images[:20]
    )
    conforms(device, "DeviceSdkReport")
    assert device["compression"]["int8"] is not None and device["compression"]["top1_agreement"] is not None
