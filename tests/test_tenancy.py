"""Tenancy over every registered API route: new routes are covered automatically, and a route
without a fixture below fails the test until someone says how to address its objects.

- another tenant's objects answer 404 for every method the route allows;
- a viewer's writes answer 403;
- lists never show another tenant's rows.
"""

from __future__ import annotations

import re

import pytest
from django.urls import URLPattern, URLResolver, get_resolver

from tests.automl import factories as automl_rows
from tests.datasets.factories import tenancy_objects as ds
from tests.deploy import factories as deploy_rows
from tests.jobs import factories as jobs_rows
from tests.training import factories as training_rows

pytestmark = pytest.mark.django_db

WRITE_METHODS = {"post", "put", "patch", "delete"}


def api_routes() -> list[tuple[str, str, set[str]]]:
    """(route name, route regex, HTTP methods) for every pattern under /api/v1/."""
    found = []

    def walk(patterns, prefix: str) -> None:
        for entry in patterns:
            regex = prefix + str(entry.pattern)
            if isinstance(entry, URLResolver):
                walk(entry.url_patterns, regex)
            elif isinstance(entry, URLPattern) and regex.startswith("api/v1/"):
                callback = entry.callback
                actions = getattr(callback, "actions", None)
                if actions:
                    methods = set(actions)
                else:
                    view = callback.view_class
                    methods = {
                        m for m in view.http_method_names if hasattr(view, m) and m not in {"options", "head"}
                    }
                if r"\.(?P<format>" in regex or "<drf_format_suffix" in regex:
                    continue
                found.append((entry.name, regex, methods))

    walk(get_resolver().url_patterns, "")
    return found


# How to address tenant A's object for each route that takes ids; "staff" routes are admin-only.
OBJECT_ROUTES = {
    "workspace-detail": lambda t: {"pk": t["ws_a"].pk},
    "workspace-limits": lambda t: {"pk": t["ws_a"].pk},  # writes: staff only (tests/jobs/test_fair_queues.py)
    "membership-list": lambda t: {"workspace_id": t["ws_a"].pk},
    "membership-detail": lambda t: {"workspace_id": t["ws_a"].pk, "pk": t["carol_membership"].pk},
    "project-detail": lambda t: {"pk": t["project_a"].pk},
    "job-detail": lambda t: {"pk": t["job_a"].pk},
    "job-cancel": lambda t: {"pk": t["job_a"].pk},
    "job-retry": lambda t: {"pk": t["job_a"].pk},
    "job-events": lambda t: {"pk": t["job_a"].pk},
    "training-job-detail": lambda t: {"pk": training_job(t).pk},
    "token-detail": lambda t: {"pk": t["alice_token"].pk},
    "token-revoke": lambda t: {"pk": t["alice_token"].pk},
    "dataset-detail": lambda t: {"pk": ds(t)["dataset"].pk},
    "dataset-statistics": lambda t: {"pk": ds(t)["dataset"].pk},
    "dataset-export": lambda t: {"pk": ds(t)["dataset"].pk},
    "dataset-exports": lambda t: {"pk": ds(t)["dataset"].pk},
    "dataset-export-download": lambda t: {"pk": ds(t)["dataset"].pk, "job_id": export_job(t).pk},
    "dataset-profile": lambda t: {"pk": ds(t)["dataset"].pk},
    "dataset-series": lambda t: {"pk": ds(t)["dataset"].pk},
    "dataset-import-preview": lambda t: {"dataset_id": ds(t)["dataset"].pk},
    "dataset-label-list": lambda t: {"dataset_id": ds(t)["dataset"].pk},
    "dataset-label-detail": lambda t: {"dataset_id": ds(t)["dataset"].pk, "pk": ds(t)["label"].pk},
    "dataset-label-merge": lambda t: {"dataset_id": ds(t)["dataset"].pk, "pk": ds(t)["label"].pk},
    "dataset-label-reorder": lambda t: {"dataset_id": ds(t)["dataset"].pk},
    "dataset-sample-list": lambda t: {"dataset_id": ds(t)["dataset"].pk},
    "dataset-sample-detail": lambda t: {"dataset_id": ds(t)["dataset"].pk, "pk": ds(t)["sample"].pk},
    "dataset-sample-image": lambda t: {"dataset_id": ds(t)["dataset"].pk, "pk": ds(t)["sample"].pk},
    "dataset-sample-thumbnail": lambda t: {"dataset_id": ds(t)["dataset"].pk, "pk": ds(t)["sample"].pk},
    "dataset-sample-bulk-label": lambda t: {"dataset_id": ds(t)["dataset"].pk},
    "dataset-import-list": lambda t: {"dataset_id": ds(t)["dataset"].pk},
    "dataset-import-detail": lambda t: {"dataset_id": ds(t)["dataset"].pk, "pk": ds(t)["import"].pk},
    "dataset-version-list": lambda t: {"dataset_id": ds(t)["dataset"].pk},
    "dataset-version-detail": lambda t: {"dataset_id": ds(t)["dataset"].pk, "pk": ds(t)["version"].pk},
    "smart-round-list": lambda t: {"dataset_id": ds(t)["dataset"].pk},
    "smart-round-detail": lambda t: {"dataset_id": ds(t)["dataset"].pk, "pk": smart_round(t).pk},
    "suggestion-list": lambda t: {"dataset_id": ds(t)["dataset"].pk},
    "suggestion-accept": lambda t: {"dataset_id": ds(t)["dataset"].pk},
    "suggestion-reject": lambda t: {"dataset_id": ds(t)["dataset"].pk},
    "dataset-activity-list": lambda t: {"dataset_id": ds(t)["dataset"].pk},
    "dataset-activity-detail": lambda t: {"dataset_id": ds(t)["dataset"].pk, "pk": activity_entry(t).pk},
    "dataset-activity-revert": lambda t: {"dataset_id": ds(t)["dataset"].pk, "pk": activity_entry(t).pk},
    "dataset-quality-report-list": lambda t: {"dataset_id": ds(t)["dataset"].pk},
    "dataset-quality-report-detail": lambda t: {
        "dataset_id": ds(t)["dataset"].pk,
        "pk": quality_report(t).pk,
    },
    "dataset-sample-annotations": lambda t: {
        "dataset_id": detection_sample(t).dataset_id,
        "pk": detection_sample(t).pk,
    },
    "dataset-annotations-bulk": lambda t: {"pk": detection_sample(t).dataset_id},
    "model-version-detail": lambda t: {"pk": model_version(t).pk},
    "model-version-evaluation": lambda t: {"pk": model_version(t).pk},
    "model-version-onnx": lambda t: {"pk": model_version(t).pk},
    "model-version-try": lambda t: {"pk": model_version(t).pk},
    "model-version-retrain": lambda t: {"pk": model_version(t).pk},
    "model-version-compress": lambda t: {"pk": model_version(t).pk},
    "compression-detail": lambda t: {"pk": compression(t).pk},
    "compression-browser-latency": lambda t: {"pk": compression(t).pk},
    "backbone-detail": lambda t: {"pk": backbone(t).pk},
    "deployment-detail": lambda t: {"pk": deployment(t).pk},
    "deployment-switch": lambda t: {"pk": deployment(t).pk},
    "deployment-rollback": lambda t: {"pk": deployment(t).pk},
    "deployment-stop": lambda t: {"pk": deployment(t).pk},
    "deployment-start": lambda t: {"pk": deployment(t).pk},
    "deployment-usage": lambda t: {"pk": deployment(t).pk},
    "deployment-traffic": lambda t: {"pk": deployment(t).pk},
    "deployment-promote": lambda t: {"pk": deployment(t).pk},
    "deployment-shadow": lambda t: {"pk": deployment(t).pk},
    "deployment-shadow-agreement": lambda t: {"pk": deployment(t).pk},
    "deployment-try": lambda t: {"pk": deployment(t).pk},
    "deployment-retrain": lambda t: {"pk": deployment(t).pk},
    "deployment-capture-policy": lambda t: {"pk": deployment(t).pk},
    "deployment-capture-list": lambda t: {"deployment_id": deployment(t).pk},
    "deployment-capture-detail": lambda t: {"deployment_id": deployment(t).pk, "pk": capture(t).pk},
    "deployment-capture-content": lambda t: {"deployment_id": deployment(t).pk, "pk": capture(t).pk},
    "deployment-capture-delete": lambda t: {"deployment_id": deployment(t).pk},
    "deployment-capture-send": lambda t: {"deployment_id": deployment(t).pk},
    "deployment-key-list": lambda t: {"deployment_id": deployment(t).pk},
    "deployment-key-detail": lambda t: {"deployment_id": deployment(t).pk, "pk": t["deployment_key"].pk},
    "package-detail": lambda t: {"pk": package(t).pk},
    "package-download": lambda t: {"pk": package(t).pk},
    "batch-prediction-detail": lambda t: {"pk": batch_prediction(t).pk},
    "batch-prediction-cancel": lambda t: {"pk": batch_prediction(t).pk},
    "batch-prediction-download": lambda t: {"pk": batch_prediction(t).pk},
    "study-detail": lambda t: {"pk": study(t).pk},
    "target-profile-detail": lambda t: {"pk": target_profile(t).pk},
    "study-trials": lambda t: {"pk": study(t).pk},
    "study-results": lambda t: {"pk": study(t).pk},
    "study-pause": lambda t: {"pk": study(t).pk},
    "study-resume": lambda t: {"pk": study(t).pk},
    "study-stop": lambda t: {"pk": study(t).pk},
    "study-promote": lambda t: {"pk": study(t).pk},
    "labeling-task-detail": lambda t: {"pk": labeling_task(t).pk},
    "labeling-task-close": lambda t: {"pk": labeling_task(t).pk},
    "labeling-task-agreement": lambda t: {"pk": labeling_task(t).pk},
    "labeling-task-items": lambda t: {"pk": labeling_task(t).pk},
    "labeling-task-review": lambda t: {"pk": labeling_task(t).pk},
    # alice's own assignment (an owner may annotate): only she reads it, so no viewer test
    "labeling-assignment-detail": lambda t: {"pk": own_assignment(t).pk},
    "labeling-assignment-submit": lambda t: {"pk": own_assignment(t).pk},
    "labeling-assignment-image": lambda t: {"pk": own_assignment(t).pk},
    "labeling-assignment-thumbnail": lambda t: {"pk": own_assignment(t).pk},
    "workspace-invitation-list": lambda t: {"workspace_id": t["ws_a"].pk},
    "workspace-invitation-revoke": lambda t: {"workspace_id": t["ws_a"].pk, "pk": invitation(t).pk},
    # addressed to alice (by workspace B): only she answers it; there is no viewer of an invitation
    "invitation-accept": lambda t: {"pk": invitation_to_alice(t).pk},
    "invitation-decline": lambda t: {"pk": invitation_to_alice(t).pk},
    "code-archive-detail": lambda t: {"pk": code_archive(t).pk},
    "code-archive-files": lambda t: {"pk": code_archive(t).pk},
    "job-logs": lambda t: {"pk": t["job_a"].pk},
    "job-artifacts": lambda t: {"pk": custom_job(t).pk},
    # a notebook is its owner's alone: alice's, in project A
    "notebook-detail": lambda t: {"pk": notebook(t).pk},
    "notebook-stop": lambda t: {"pk": notebook(t).pk},
}
# The query string an object route needs to answer its owner (the rest of the path is the fixture's).
OBJECT_QUERY = {"code-archive-files": "?path=train.py", "job-artifacts": "?path=notes.txt"}
STAFF_ROUTES = {
    "user-list",
    "user-detail",
    "user-deactivate",
    "user-reactivate",
    "user-make-admin",
    "user-remove-admin",
    "user-reset-password",
    "workspace-limits-list",
}
# Routes without ids: what a viewer of workspace A may not create there (None: personal or open routes).
CREATE_IN_A = {
    "deployment-list": lambda t: {"model_version": model_version(t).pk, "name": "viewer's deployment"},
    "package-list": lambda t: {"model_version": model_version(t).pk, "kind": "server"},
    "batch-prediction-list": lambda t: {
        "model_version": model_version(t).pk,
        "source": "dataset_version",
        "dataset_version": ds(t)["version"].pk,
    },
    "project-list": lambda t: {"workspace": t["ws_a"].pk, "name": "viewer's project"},
    "job-list": lambda t: {"workspace": t["ws_a"].pk, "kind": "system.check"},
    "dataset-list": lambda t: {
        "workspace": t["ws_a"].pk,
        "project": t["project_a"].pk,
        "name": "viewer's dataset",
    },
    "training-job-list": lambda t: {"dataset_version": ds(t)["version"].pk, "preset": "fast"},
    "backbone-list": lambda t: {"project": t["project_a"].pk, "name": "viewer's backbone"},
    "study-list": lambda t: {"dataset_version": ds(t)["version"].pk},
    "target-profile-list": lambda t: {"workspace": t["ws_a"].pk, "name": "viewer's board"},
    "model-version-upload": lambda t: {"project": t["project_a"].pk, "format": "onnx"},
    "labeling-task-list": lambda t: {
        "dataset": ds(t)["dataset"].pk,
        "name": "viewer's task",
        "annotators": [t["alice"].pk],
        "selection": {"by": "ids", "ids": [ds(t)["sample"].pk]},
    },
    "code-archive-list": lambda t: {"project": t["project_a"].pk, "name": "viewer's code"},
    "custom-job-list": lambda t: {"project": t["project_a"].pk, "code_archive": code_archive(t).pk},
    "notebook-list": lambda t: {"project": t["project_a"].pk},
}
# The field a stranger's create is refused on (their target does not exist for them).
CREATE_TARGET_FIELD = {
    "deployment-list": "model_version",
    "package-list": "model_version",
    "batch-prediction-list": "model_version",
    "study-list": "dataset_version",
    "training-job-list": "dataset_version",
    "backbone-list": "project",
    "model-version-upload": "project",
    "labeling-task-list": "dataset",
    "code-archive-list": "project",
    "custom-job-list": "project",
    "notebook-list": "project",
}
# Object routes only their owner reads (a viewer of the workspace gets 404 like a stranger).
OWN_QUEUE_ROUTES = {
    "notebook-detail",
    "notebook-stop",
    "labeling-assignment-detail",
    "labeling-assignment-submit",
    "labeling-assignment-image",
    "labeling-assignment-thumbnail",
}
# Collection routes that read tenant objects named in the query string.
QUERY_ROUTES = {"model-version-list", "model-version-compare", "training-estimates", "compression-list"}
# Object routes a viewer may POST to: trying a model answers a prediction and changes nothing.
VIEWER_MAY_POST = {"model-version-try", "deployment-try", "dataset-exports"}  # exporting is reading
# deployment-predict is authenticated by deployment keys only (tests/deploy: other deployment's key -> 403).
PERSONAL_OR_OPEN = {
    "auth-csrf",
    "auth-login",
    "auth-logout",
    "auth-me",
    "token-list",
    "invitation-list",
    "workspace-list",
    "job-kinds",
    "workers",
    "templates",
    "template-detail",
    "deployment-predict",
    "target-profile-builtins",  # the builtin profiles: no tenant object
    "study-defaults",  # a template's budget for the workers online: no tenant object read
    "labeling-assignment-list",  # the caller's own queue
}


def detection_sample(world: dict):
    """An image of an object-detection dataset of project A (its row only)."""
    if "detection_sample" not in world:
        from tests.datasets import factories

        dataset = factories.dataset(world["project_a"], name="Tenancy boxes", task_type="object_detection")
        world["detection_sample"] = factories.sample(dataset)
    return world["detection_sample"]


def model_version(world: dict):
    """A model version of project A with a stored (placeholder) ONNX file."""
    if "model_version" not in world:
        world["model_version"] = training_rows.model_version(
            world["project_a"],
            number=1,
            dataset_version=ds(world)["version"],
            evaluation=training_rows.EVALUATION,
        )
    return world["model_version"]


def compression(world: dict):
    """A finished compression run of project A's model version (its rows only: nothing runs it)."""
    if "compression" not in world:
        world["compression"] = training_rows.compression(model_version(world))
    return world["compression"]


def deployment(world: dict):
    """A deployment of project A's model version, with one key."""
    if "deployment" not in world:
        world["deployment"] = deploy_rows.deployment(model_version(world), name="Digits")
        world["deployment_key"], _ = deploy_rows.deployment_key(
            world["deployment"], by=world["alice"], name="key"
        )
    return world["deployment"]


def capture(world: dict):
    """A captured request of the deployment (a stored PNG input, the served answer)."""
    if "capture" not in world:
        from deploy.models import CapturedRequest
        from django.core.files.base import ContentFile
        from django.core.files.storage import default_storage
        from django.utils import timezone

        from tests.deploy.factories import png

        world["capture"] = CapturedRequest.objects.create(
            deployment=deployment(world),
            model_version=model_version(world),
            at=timezone.now(),
            reason="sampled",
            data_kind="image",
            blob_key=default_storage.save("captures/tenancy.png", ContentFile(png(0))),
            content_type="image/png",
            size_bytes=len(png(0)),
            answer={"label": "cat", "score": 0.5, "value": None},
            top_label="cat",
        )
    return world["capture"]


def package(world: dict):
    """A built server package of project A's model version (its archive a placeholder)."""
    if "package" not in world:
        world["package"] = deploy_rows.package(model_version(world), kind="server")
    return world["package"]


def batch_prediction(world: dict):
    """A finished batch prediction of project A's model version over its dataset version's test split."""
    if "batch_prediction" not in world:
        world["batch_prediction"] = deploy_rows.batch_prediction(
            model_version(world), dataset_version=ds(world)["version"]
        )
    return world["batch_prediction"]


def backbone(world: dict):
    """A checked backbone of project A (its file is a placeholder: no route here reads it)."""
    if "backbone" not in world:
        world["backbone"] = training_rows.backbone(world["project_a"], name="ResNet-18")
    return world["backbone"]


def target_profile(world: dict):
    """A target profile of workspace A."""
    if "target_profile" not in world:
        from deploy.targets import target_profile_create

        world["target_profile"] = target_profile_create(
            user=world["alice"], workspace=world["ws_a"], name="A's board", slowdown=2.0
        )
    return world["target_profile"]


def study(world: dict):
    """A study of project A (its rows only: no route here reads Optuna's record of it)."""
    if "study" not in world:
        world["study"] = automl_rows.study(
            ds(world)["version"], name="Tenancy study", optuna_name="tenancy-study"
        )
    return world["study"]


def invitation(world: dict):
    """Workspace A's pending invitation of dana (a user in no workspace)."""
    if "invitation" not in world:
        from accounts.models import User
        from workspaces.services import invitation_create

        User.objects.create_user(username="dana", password="correct-horse-battery")
        world["invitation"] = invitation_create(
            workspace=world["ws_a"], username="dana", role="viewer", by=world["alice"]
        )
    return world["invitation"]


def invitation_to_alice(world: dict):
    """Workspace B's pending invitation of alice."""
    if "invitation_to_alice" not in world:
        from workspaces.services import invitation_create

        world["invitation_to_alice"] = invitation_create(
            workspace=world["ws_b"], username="alice", role="viewer", by=world["bob"]
        )
    return world["invitation_to_alice"]


def quality_report(world: dict):
    """A finished quality report of project A's dataset (its row only: nothing runs it)."""
    if "quality_report" not in world:
        from datasets.models import QualityReport

        world["quality_report"] = QualityReport.objects.create(dataset=ds(world)["dataset"], status="failed")
    return world["quality_report"]


def export_job(world: dict):
    """A succeeded export job of project A's dataset (its body run here, its zip stored)."""
    if "export_job" not in world:
        from datasets.services.dataset_jobs import dataset_export_job_create, dataset_export_job_run
        from jobs.models import JobStatus

        from workers.progress import silent_report

        job = dataset_export_job_create(
            dataset=ds(world)["dataset"], version=None, format=None, user=world["alice"]
        )
        job.result = dataset_export_job_run(job=job, report=silent_report)
        job.status = JobStatus.SUCCEEDED
        job.save(update_fields=["result", "status"])
        world["export_job"] = job
    return world["export_job"]


def activity_entry(world: dict):
    """A logged label change of project A's dataset (a sample relabeled to the other label)."""
    if "activity_entry" not in world:
        from datasets.models import Sample, SampleActivity
        from datasets.services.labels import sample_set_label

        sample = Sample.objects.get(pk=ds(world)["sample"].pk)
        other = (
            ds(world)["other_label"] if sample.label_id != ds(world)["other_label"].pk else ds(world)["label"]
        )
        sample_set_label(
            dataset=sample.dataset,
            sample_id=sample.pk,
            label_id=other.pk,
            label_version=sample.label_version,
            actor=world["alice"],
        )
        world["activity_entry"] = SampleActivity.objects.filter(sample=sample).first()
    return world["activity_entry"]


def smart_round(world: dict):
    """A smart-labeling round of project A's dataset (its row only: nothing runs it)."""
    if "smart_round" not in world:
        from labeling.models import SmartLabelingRound

        world["smart_round"] = SmartLabelingRound.objects.create(
            dataset=ds(world)["dataset"], number=1, status="failed"
        )
    return world["smart_round"]


def labeling_task(world: dict):
    """A labeling task of project A's dataset: its first sample, assigned to alice."""
    if "labeling_task" not in world:
        from labeling.services.tasks import labeling_task_create

        world["labeling_task"] = labeling_task_create(
            dataset=ds(world)["dataset"],
            user=world["alice"],
            name="Tenancy task",
            annotators=[world["alice"].pk],
            selection={"by": "ids", "ids": [ds(world)["sample"].pk]},
        )
    return world["labeling_task"]


def own_assignment(world: dict):
    """Alice's assignment in the labeling task."""
    from labeling.models import LabelingAssignment

    return LabelingAssignment.objects.get(item__task=labeling_task(world), annotator=world["alice"])


def code_archive(world: dict):
    """A code archive of project A (a one-file script stored through the real service)."""
    if "code_archive" not in world:
        from tests.customjobs.code_factories import code_archive as make_archive

        world["code_archive"] = make_archive(user=world["alice"], project=world["project_a"])
    return world["code_archive"]


def custom_job(world: dict):
    """A finished custom job of project A that kept one artifact (its row and the blob, nothing ran)."""
    if "custom_job" not in world:
        from django.core.files.base import ContentFile
        from django.core.files.storage import default_storage

        job = jobs_rows.job(world["project_a"], kind="training.custom", params={"code_archive": 0})
        key = default_storage.save(f"custom-jobs/job-{job.pk}/artifacts/notes.txt", ContentFile(b"kept"))
        job.result = {"artifacts": [{"path": "notes.txt", "name": "notes.txt", "key": key}]}
        job.save(update_fields=["result"])
        world["custom_job"] = job
    return world["custom_job"]


def notebook(world: dict):
    """Alice's notebook in project A (its row only: no server runs)."""
    if "notebook" not in world:
        from notebooks.models import Notebook, NotebookStatus

        world["notebook"] = Notebook.objects.create(
            workspace=world["ws_a"],
            project=world["project_a"],
            owner=world["alice"],
            status=NotebookStatus.RUNNING,
            limits={"wall_time_s": 3600, "memory_mb": 2048, "cpus": 1},
        )
    return world["notebook"]


def training_job(world: dict):
    """A training job of project A (its row only: nothing runs it)."""
    if "training_job" not in world:
        world["training_job"] = jobs_rows.job(
            world["project_a"],
            kind="training.run",
            params={
                "dataset_version": ds(world)["version"].pk,
                "template": "image_classification",
                "preset": "fast",
            },
        )
    return world["training_job"]


ROUTES = api_routes()


def url_for(regex: str, kwargs: dict) -> str:
    path = regex
    for key, value in kwargs.items():
        path = re.sub(rf"\(\?P<{key}>[^)]*\)", str(value), path)
    path = path.replace("^", "").replace("$", "")
    path = re.sub(r"<(?:\w+:)?(\w+)>", lambda m: str(kwargs[m.group(1)]), path)
    assert "(?P<" not in path and "<" not in path, f"unfilled parameter in {path}"
    return "/" + path


@pytest.fixture
def world(tenants):
    from accounts.services import api_token_create

    tenants["alice_token"] = api_token_create(user=tenants["alice"], name="alice's").token
    return tenants


def test_every_api_route_is_classified():
    names = {name for name, _, _ in ROUTES}
    unknown = names - set(OBJECT_ROUTES) - STAFF_ROUTES - set(CREATE_IN_A) - PERSONAL_OR_OPEN - QUERY_ROUTES
    assert not unknown, f"new API routes need a tenancy fixture in tests/test_tenancy.py: {sorted(unknown)}"
    assert len(ROUTES) >= 15


@pytest.mark.parametrize(
    ("name", "regex", "methods"),
    [r for r in ROUTES if r[0] in OBJECT_ROUTES],
    ids=lambda v: v if isinstance(v, str) and not v.startswith("api/") else "",
)
def test_other_tenant_gets_404(name, regex, methods, world, api_client):
    url = url_for(regex, OBJECT_ROUTES[name](world)) + OBJECT_QUERY.get(name, "")
    bob = api_client(world["bob"])
    owner = api_client(world["alice"])
    if "get" in methods:
        assert owner.get(url).status_code == 200, f"the owner cannot read {url}"
    for method in sorted(methods):
        response = getattr(bob, method)(url, {}, format="json")
        assert response.status_code == 404, (
            f"{method.upper()} {url} as another tenant: {response.status_code}"
        )
        assert response.json()["error"]["code"] == "not_found"


@pytest.mark.parametrize(
    ("name", "regex", "methods"),
    [
        r
        for r in ROUTES
        if r[0] in OBJECT_ROUTES
        and r[0].split("-")[0] not in {"token", "invitation"}
        and r[0] not in VIEWER_MAY_POST
        and r[0] not in OWN_QUEUE_ROUTES
    ],
    ids=lambda v: v if isinstance(v, str) and not v.startswith("api/") else "",
)
def test_viewer_cannot_write(name, regex, methods, world, api_client):
    url = url_for(regex, OBJECT_ROUTES[name](world)) + OBJECT_QUERY.get(name, "")
    carol = api_client(world["carol"])
    if "get" in methods:
        assert carol.get(url).status_code == 200, f"a viewer can read {url}"
    for method in sorted(methods & WRITE_METHODS):
        response = getattr(carol, method)(url, {"role": "owner", "name": "x"}, format="json")
        assert response.status_code == 403, (
            f"{method.upper()} {url} as viewer: {response.status_code} {response.content[:200]}"
        )
        assert response.json()["error"]["code"] == "permission_denied"


@pytest.mark.parametrize(
    ("name", "regex", "methods"),
    [r for r in ROUTES if r[0] in CREATE_IN_A],
    ids=lambda v: v if isinstance(v, str) and not v.startswith("api/") else "",
)
def test_viewer_cannot_create_and_other_tenant_cannot_target(name, regex, methods, world, api_client):
    url = url_for(regex, {})
    body = CREATE_IN_A[name](world)
    viewer = api_client(world["carol"]).post(url, body, format="json")
    assert viewer.status_code == 403, viewer.content
    stranger = api_client(world["bob"]).post(url, body, format="json")
    assert stranger.status_code == 400, stranger.content
    assert CREATE_TARGET_FIELD.get(name, "workspace") in stranger.json()["error"]["details"]
    if "get" in methods:
        listed = api_client(world["bob"]).get(url).json()["results"]
        assert all(row["workspace"] == world["ws_b"].pk for row in listed)


def test_query_routes_hide_other_tenants(world, api_client):
    mv = model_version(world)
    bob, alice = api_client(world["bob"]), api_client(world["alice"])
    assert bob.get("/api/v1/model-versions/").json()["count"] == 0
    assert bob.get(f"/api/v1/model-versions/?project={world['project_a'].pk}").json()["count"] == 0
    assert alice.get("/api/v1/model-versions/").json()["count"] == 1
    compare = f"/api/v1/model-versions/compare/?a={mv.pk}&b={mv.pk}"
    assert alice.get(compare).status_code == 200
    assert bob.get(compare).status_code == 404
    estimates = f"/api/v1/training-estimates/?dataset_version={ds(world)['version'].pk}"
    assert alice.get(estimates).status_code == 200
    assert bob.get(estimates).status_code == 404


@pytest.mark.parametrize("name", sorted(STAFF_ROUTES))
def test_staff_routes_refuse_ordinary_users(name, world, api_client):
    regex = next(r for n, r, _ in ROUTES if n == name)
    url = url_for(regex, {"pk": world["alice"].pk})
    assert api_client(world["bob"]).get(url).status_code == 403


def test_lists_show_only_own_tenant(world, api_client):
    bob = api_client(world["bob"])
    assert [w["name"] for w in bob.get("/api/v1/workspaces/").json()["results"]] == ["Workspace B"]
    assert [p["name"] for p in bob.get("/api/v1/projects/").json()["results"]] == ["Project B"]
    assert bob.get("/api/v1/jobs/").json()["count"] == 0
    training_job(world)
    assert bob.get("/api/v1/training-jobs/").json()["count"] == 0
    assert bob.get(f"/api/v1/projects/?workspace={world['ws_a'].pk}").json()["count"] == 0
    assert bob.get("/api/v1/tokens/").json()["count"] == 0


def test_editor_can_write_content_but_not_manage_members(world, api_client):
    erin = api_client(world["erin"])
    created = erin.post("/api/v1/projects/", {"workspace": world["ws_a"].pk, "name": "Erin's"}, format="json")
    assert created.status_code == 201
    assert (
        erin.patch(
            f"/api/v1/projects/{world['project_a'].pk}/", {"description": "edited"}, format="json"
        ).status_code
        == 200
    )
    members = f"/api/v1/workspaces/{world['ws_a'].pk}/members/"
    assert erin.post(members, {"username": "bob", "role": "viewer"}, format="json").status_code == 403
    assert erin.delete(f"/api/v1/workspaces/{world['ws_a'].pk}/").status_code == 403


def test_annotator_sees_nothing_but_their_own_assignments(world, api_client, make_user):
    """An annotator of workspace A: every object route of A answers 404 (or 403 for a write the
    route checks by role), except their workspace's own row; lists show none of A's content; and
    another annotator's assignment does not exist for them."""
    from labeling.services.tasks import labeling_task_create
    from workspaces.models import Role

    from tests.workspaces.factories import membership

    ann = make_user("ann")
    membership(world["ws_a"], ann, Role.ANNOTATOR)
    client = api_client(ann)
    for name, regex, methods in ROUTES:
        if name not in OBJECT_ROUTES:
            continue
        url = url_for(regex, OBJECT_ROUTES[name](world))
        for method in sorted(methods):
            status = getattr(client, method)(url, {}, format="json").status_code
            if name == "workspace-detail" and method == "get":
                assert status == 200  # their workspace, with role annotator
            else:
                assert status in (403, 404), f"{method.upper()} {url} as an annotator: {status}"
    for name in sorted(CREATE_IN_A) + ["labeling-assignment-list"]:
        regex = next((r for n, r, m in ROUTES if n == name and "get" in m), None)
        if regex is not None:
            assert client.get(url_for(regex, {})).json()["count"] == 0, (
                f"{name} lists A's rows to an annotator"
            )
    assert client.get("/api/v1/workspaces/").json()["results"][0]["role"] == "annotator"

    theirs = labeling_task_create(
        dataset=ds(world)["dataset"],
        user=world["alice"],
        name="Ann's task",
        annotators=[ann.pk],
        selection={"by": "ids", "ids": [ds(world)["sample"].pk]},
    )
    assert [t["id"] for t in client.get("/api/v1/labeling-tasks/").json()["results"]] == [theirs.pk]
    [mine] = client.get("/api/v1/labeling-assignments/").json()["results"]
    assert client.get(f"/api/v1/labeling-assignments/{mine['id']}/image/").status_code == 200
    assert client.get(f"/api/v1/labeling-assignments/{own_assignment(world).pk}/").status_code == 404
    assert client.get(f"/api/v1/labeling-tasks/{theirs.pk}/items/").status_code == 403
