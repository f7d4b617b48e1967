"""Query-count budgets on every list endpoint (NetBox's way): listing one row or many takes the same
number of SQL queries, within a budget stated per route.

The routes are walked from the OpenAPI schema as the code generates it now: every GET operation whose
answer is a list (a JSON array, or a page with a ``results`` array). A new list route fails
``test_every_list_route_has_a_budget`` until ROUTES says how to make its rows and what it may cost.
Each route's rows are made with the factories under tests/, 1 first and then 4 more, and both answers
must list them (so the rows were really read) in the same number of queries. An N+1 query (a
serializer reading a relation the selector did not join or prefetch) makes the second count grow.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests.openapi_conformance import openapi_schema

pytestmark = pytest.mark.django_db

MORE = 4  # rows added after the first


def list_operations() -> list[str]:
    """Path templates of every GET operation that answers a list, from the generated schema."""
    schema = openapi_schema()
    components = schema["components"]["schemas"]

    def resolve(node: dict) -> dict:
        while "$ref" in node:
            node = components[node["$ref"].rsplit("/", 1)[1]]
        return node

    found = []
    for template, operations in schema["paths"].items():
        get = operations.get("get")
        if not get:
            continue
        body = get["responses"].get("200", {}).get("content", {}).get("application/json", {}).get("schema")
        if body is None:
            continue
        body = resolve(body)
        paged = body.get("type") == "object" and resolve(body.get("properties", {}).get("results", {}))
        if body.get("type") == "array" or (paged and paged.get("type") == "array"):
            found.append(template)
    return sorted(found)


# --- the rows of each list ---------------------------------------------------------------------
# A builder takes the world (tests/conftest.py's tenants, plus what earlier builders cached in it) and
# a number of rows, makes that many more rows the list shows to the requester, and returns the path's
# parameters. Parents (a dataset, a job, a study) are made once per world.


def _once(world: dict, key: str, make: Callable[[], object]):
    if key not in world:
        world[key] = make()
    return world[key]


def _dataset(world):
    from tests.datasets import factories

    return _once(world, "dataset", lambda: factories.dataset(world["project_a"], name="Budget digits"))


def _dataset_version(world):
    """A version of a small imported dataset (2 classes, 2 images each), through the real services."""

    def make():
        from datasets.services import dataset_version_create

        from tests.datasets.factories import dataset_with_samples

        dataset = dataset_with_samples(
            user=world["alice"],
            project=world["project_a"],
            name="Budget versions",
            per_class=2,
            classes=range(2),
        )
        return dataset_version_create(dataset=dataset, user=world["alice"], seed=1)

    return _once(world, "dataset_version", make)


def _model_version(world):
    from tests.training.factories import model_version

    return _once(
        world,
        "model_version",
        lambda: model_version(world["project_a"], dataset_version=_dataset_version(world)),
    )


def _deployment(world):
    from tests.deploy.factories import deployment

    return _once(world, "deployment", lambda: deployment(_model_version(world), name="budget"))


def _study(world):
    from tests.automl.factories import study

    return _once(world, "study", lambda: study(_dataset_version(world)))


def backbones(world, n):
    from tests.training.factories import backbone

    for _ in range(n):
        backbone(world["project_a"], created_by=world["alice"])
    return {}


def datasets(world, n):
    from tests.datasets import factories

    for _ in range(n):
        dataset = factories.dataset(world["project_a"])
        factories.sample(dataset, label=factories.label(dataset))
    return {}


def imports(world, n):
    from tests.datasets.factories import import_batch
    from tests.jobs.factories import job

    dataset = _dataset(world)
    for _ in range(n):
        import_batch(dataset, job=job(world["project_a"], kind="datasets.import"))
    return {"dataset_id": dataset.pk}


def labels(world, n):
    from tests.datasets.factories import label, sample

    dataset = _dataset(world)
    for _ in range(n):
        sample(dataset, label=label(dataset))
    return {"dataset_id": dataset.pk}


def samples(world, n):
    from tests.datasets.factories import label, sample

    dataset = _dataset(world)
    for _ in range(n):
        sample(dataset, label=label(dataset))
    return {"dataset_id": dataset.pk}


def activity(world, n):
    from datasets.services.labels import sample_set_label

    from tests.datasets.factories import label, sample

    dataset = _dataset(world)
    for _ in range(n):
        row = sample(dataset)
        sample_set_label(
            dataset=dataset,
            sample_id=row.pk,
            label_id=label(dataset).pk,
            label_version=0,
            actor=world["alice"],
        )
    return {"dataset_id": dataset.pk}


def dataset_versions(world, n):
    from datasets.services import dataset_version_create

    first = "dataset_version" not in world  # made with its dataset: the first of the list
    dataset = _dataset_version(world).dataset
    for _ in range(n - 1 if first else n):
        seed = world["version_seed"] = world.get("version_seed", 1) + 1
        dataset_version_create(dataset=dataset, user=world["alice"], seed=seed)
    return {"dataset_id": dataset.pk}


def quality_reports(world, n):
    from datasets.models import QualityReport

    from tests.jobs.factories import job

    version = _dataset_version(world)
    for i in range(n):
        QualityReport.objects.create(
            dataset=version.dataset,
            version=version if i % 2 else None,
            job=job(world["project_a"], kind="datasets.quality_report"),
            created_by=world["alice"],
        )
    return {"dataset_id": version.dataset_id}


def smart_rounds(world, n):
    from labeling.models import SmartLabelingRound

    from tests.jobs.factories import job

    dataset = _dataset(world)
    for _ in range(n):
        number = world["smart_round_number"] = world.get("smart_round_number", 0) + 1
        SmartLabelingRound.objects.create(
            dataset=dataset,
            number=number,
            job=job(world["project_a"], kind="labeling.smart_round"),
            params={"batch_size": 5, "strategy": "uncertainty_diversity", "seed": number},
            created_by=world["alice"],
        )
    return {"dataset_id": dataset.pk}


def suggestions(world, n):
    """Pending suggestions of one round, each on an unlabeled sample with its thumbnail and label."""
    from labeling.models import SmartLabelingRound, Suggestion

    from tests.datasets.factories import label, sample

    dataset = _dataset(world)
    smart_round = _once(
        world, "suggestion_round", lambda: SmartLabelingRound.objects.create(dataset=dataset, number=100)
    )
    for i in range(n):
        Suggestion.objects.create(
            round=smart_round,
            dataset=dataset,
            sample=sample(dataset),
            label=label(dataset),
            confidence=0.5,
            rank=i + 1,
        )
    return {"dataset_id": dataset.pk}


def deployments(world, n):
    from deploy.models import DeploymentEvent, DeploymentTraffic

    from tests.deploy.factories import deployment
    from tests.training.factories import model_version

    canary = _once(world, "canary", lambda: model_version(world["project_a"]))
    shadow = _once(world, "shadow", lambda: model_version(world["project_a"]))
    for _ in range(n):
        row = deployment(_model_version(world), created_by=world["alice"])
        # each with a canary, a shadow and a history entry with details: the list reads them in bulk
        DeploymentTraffic.objects.create(deployment=row, model_version=canary, role="canary", weight=10)
        DeploymentTraffic.objects.create(deployment=row, model_version=shadow, role="shadow", weight=0)
        DeploymentEvent.objects.create(deployment=row, action="traffic", model_version=row.model_version)
    return {}


def deployment_keys(world, n):
    from tests.deploy.factories import deployment_key

    target = _deployment(world)
    for _ in range(n):
        deployment_key(target, by=world["alice"])
    return {"deployment_id": target.pk}


def captures(world, n):
    from deploy.models import CapturedRequest
    from django.utils import timezone

    target = _deployment(world)
    for _ in range(n):
        CapturedRequest.objects.create(
            deployment=target,
            model_version=target.model_version,
            at=timezone.now(),
            reason="sampled",
            data_kind="image",
            blob_key="captures/budget.png",
            content_type="image/png",
            answer={"label": "cat", "score": 0.5, "value": None},
            top_label="cat",
        )
    return {"deployment_id": target.pk}


def code_archives(world, n):
    from tests.customjobs.code_factories import code_archive

    for i in range(n):
        code_archive(user=world["alice"], project=world["project_a"], data=f"print({i})\n".encode())
    return {}


def notebooks(world, n):
    """Alice's notebooks (the list shows only the caller's own); rows only, no server runs."""
    from notebooks.models import Notebook, NotebookStatus

    for _ in range(n):
        Notebook.objects.create(
            workspace=world["ws_a"],
            project=world["project_a"],
            owner=world["alice"],
            status=NotebookStatus.STOPPED,
            limits={"wall_time_s": 3600, "memory_mb": 2048, "cpus": 1},
        )
    return {}


def jobs(world, n):
    from tests.jobs.factories import job

    for _ in range(n):
        job(world["project_a"])
    return {}


def job_events(world, n):
    from tests.jobs.factories import job_event

    for i in range(n):
        job_event(world["job_a"], message=f"step {i}", data={"fraction": 0.1})
    return {"id": world["job_a"].pk}


def compressions(world, n):
    from tests.training.factories import compression, model_version

    parent = model_version(world["project_a"], dataset_version=_dataset_version(world))
    for _ in range(n):
        compression(parent, created_by=world["alice"])
    return {}


def model_versions(world, n):
    from tests.jobs.factories import job
    from tests.training.factories import model_version

    for _ in range(n):
        model_version(
            world["project_a"],
            dataset_version=_dataset_version(world),
            job=job(world["project_a"], kind="training.run"),
            created_by=world["alice"],
        )
    return {}


def batch_predictions(world, n):
    from tests.deploy.factories import batch_prediction

    for _ in range(n):
        batch_prediction(_model_version(world), created_by=world["alice"])
    return {}


def packages(world, n):
    from tests.deploy.factories import package
    from tests.jobs.factories import job

    for _ in range(n):
        package(
            _model_version(world),
            job=job(world["project_a"], kind="deploy.package"),
            created_by=world["alice"],
        )
    return {}


def projects(world, n):
    from tests.workspaces.factories import project

    for _ in range(n):
        project(world["ws_a"])
    return {}


def studies(world, n):
    from tests.automl.factories import study, trial

    for _ in range(n):
        made = study(_dataset_version(world), created_by=world["alice"])
        trial(made)
    return {}


def target_profiles(world, n):
    from deploy.targets import target_profile_create

    for _ in range(n):
        count = len(world.setdefault("target_profiles", []))
        world["target_profiles"].append(
            target_profile_create(user=world["alice"], workspace=world["ws_a"], name=f"board {count}")
        )
    return {}


def trials(world, n):
    from tests.automl.factories import trial
    from tests.jobs.factories import job
    from tests.training.factories import model_version

    target = _study(world)
    for _ in range(n):
        made = model_version(world["project_a"], dataset_version=_dataset_version(world))
        trial(target, job=job(world["project_a"], kind="automl.trial"), model_version=made)
    return {"id": target.pk}


def tokens(world, n):
    from tests.accounts.factories import api_token

    for _ in range(n):
        api_token(world["alice"])
    return {}


def training_jobs(world, n):
    from tests.jobs.factories import job
    from tests.training.factories import model_version

    version = _dataset_version(world)
    for _ in range(n):
        ran = job(
            world["project_a"],
            kind="training.run",
            status="succeeded",
            params={"dataset_version": version.pk, "template": "image_classification", "preset": "fast"},
        )
        model_version(world["project_a"], dataset_version=version, job=ran)
    return {}


def users(world, n):
    from tests.accounts.factories import user

    for _ in range(n):
        user()
    return {}


def workspaces_with_limits(world, n):
    from jobs.models import WorkspaceLimits
    from workspaces.services import workspace_create

    from tests.jobs.factories import job

    for i in range(n):
        workspace = workspace_create(user=world["carol"], name=f"Pool {i} {uuid.uuid4().hex[:6]}")
        WorkspaceLimits.objects.create(workspace=workspace, max_jobs=i)
        job(world["project_a"], queue="gpu", status="running")
    return {}


def workers(world, n):
    from tests.jobs.factories import worker_node

    for _ in range(n):
        worker_node()
    return {}


def workspaces(world, n):
    from tests.workspaces.factories import membership, workspace

    for _ in range(n):
        membership(workspace(owner=world["alice"]))
    return {}


def members(world, n):
    from tests.workspaces.factories import membership

    for _ in range(n):
        membership(world["ws_a"])
    return {"workspace_id": world["ws_a"].pk}


def workspace_invitations(world, n):
    from workspaces.services import invitation_create

    from tests.accounts.factories import user

    for _ in range(n):
        invitation_create(workspace=world["ws_a"], username=user().username, role="viewer", by=world["alice"])
    return {"workspace_id": world["ws_a"].pk}


def invitations(world, n):
    from workspaces.services import invitation_create

    from tests.workspaces.factories import workspace

    for _ in range(n):
        invitation_create(workspace=workspace(), username="alice", role="viewer", by=None)
    return {}


def _labeling_task(world, n: int):
    """A labeling task of n new samples of the budget dataset, each assigned to alice (an owner may
    annotate) and erin."""
    from labeling.services.tasks import labeling_task_create

    from tests.datasets.factories import sample

    dataset = _dataset(world)
    ids = [sample(dataset).pk for _ in range(n)]
    return labeling_task_create(
        dataset=dataset,
        user=world["alice"],
        name=f"Budget task {len(ids)}",
        annotators=[world["alice"].pk, world["erin"].pk],
        overlap=2,
        selection={"by": "ids", "ids": ids},
    )


def labeling_tasks(world, n):
    for _ in range(n):
        _labeling_task(world, 1)
    return {}


def labeling_task_items(world, n):
    from labeling.models import LabelingAssignment, LabelingItem

    from tests.datasets.factories import sample

    task = _once(world, "labeling_task", lambda: _labeling_task(world, 1))
    if world.get("labeling_task_items"):  # the task's first item was made with it
        for _ in range(n):
            item = LabelingItem.objects.create(task=task, sample=sample(task.dataset), position=99)
            LabelingAssignment.objects.create(item=item, annotator=world["alice"])
    world["labeling_task_items"] = True
    return {"id": task.pk}


def labeling_assignments(world, n):
    _labeling_task(world, n)  # alice's own queue grows by n
    return {}


def series_points(world, n):
    """A forecasting dataset's longest series grows by n daily observations per call."""
    from datetime import date, timedelta

    from datasets.services import dataset_create
    from datasets.services.table_imports import import_table
    from django.core.files.uploadedfile import SimpleUploadedFile

    dataset = _once(
        world,
        "series_dataset",
        lambda: dataset_create(
            user=world["alice"],
            project=world["project_a"],
            name="Budget series",
            task_type="time_series_forecasting",
        ),
    )
    first = world.get("series_days", 0)
    world["series_days"] = first + n + 1
    days = range(first, first + n + 1)
    text = "date,y\n" + "".join(f"{date(2024, 1, 1) + timedelta(days=d)},{d}\n" for d in days)
    import_table(
        dataset=dataset,
        upload=SimpleUploadedFile("s.csv", text.encode()),
        user=world["alice"],
        time_series={"frequency": "D"},
    )
    return {"id": dataset.pk}


def nothing(world, n):
    """Lists that read no rows (the registries of job kinds and templates)."""
    return {}


@dataclass(frozen=True)
class Route:
    rows: Callable[[dict, int], dict]
    budget: int  # the most queries one answer may take, authentication and the page count included
    as_user: str = "alice"
    counts_rows: bool = True  # False: the list's length does not follow the database


ROUTES: dict[str, Route] = {
    "/api/v1/backbones/": Route(backbones, 2),
    "/api/v1/code-archives/": Route(code_archives, 2),
    "/api/v1/notebooks/": Route(notebooks, 2),
    "/api/v1/datasets/": Route(datasets, 2),
    "/api/v1/datasets/{dataset_id}/imports/": Route(imports, 3),
    # + the keys of every label of the dataset (a key depends on the labels before it)
    "/api/v1/datasets/{dataset_id}/labels/": Route(labels, 4),
    "/api/v1/datasets/{dataset_id}/samples/": Route(samples, 4),
    "/api/v1/datasets/{dataset_id}/versions/": Route(dataset_versions, 3),
    "/api/v1/datasets/{dataset_id}/smart-labeling/": Route(smart_rounds, 3),
    "/api/v1/datasets/{dataset_id}/suggestions/": Route(suggestions, 3),
    "/api/v1/datasets/{dataset_id}/quality-reports/": Route(quality_reports, 3),
    "/api/v1/datasets/{dataset_id}/activity/": Route(activity, 3),
    # the dataset (scoped), its observations (one read); the answer is the series asked for, not rows
    "/api/v1/datasets/{id}/series/": Route(series_points, 3, counts_rows=False),
    # count, page, history (its versions and users joined), traffic split (its versions joined)
    "/api/v1/deployments/": Route(deployments, 4),
    "/api/v1/deployments/{deployment_id}/keys/": Route(deployment_keys, 3),
    # the deployment, the count, the page (sent_to_dataset is a join of the same query)
    "/api/v1/deployments/{deployment_id}/captures/": Route(captures, 3),
    "/api/v1/invitations/": Route(invitations, 2),
    # + annotators, the dataset's labels (prefetched) and the page's progress (3 grouped reads)
    "/api/v1/labeling-tasks/": Route(labeling_tasks, 7),
    "/api/v1/labeling-tasks/{id}/items/": Route(labeling_task_items, 5),
    "/api/v1/labeling-assignments/": Route(labeling_assignments, 3),
    "/api/v1/job-kinds/": Route(nothing, 0, counts_rows=False),
    # + the workers online and one read of the queues: why the page's queued jobs wait (queue_state)
    "/api/v1/jobs/": Route(jobs, 4),
    "/api/v1/jobs/{id}/events/": Route(job_events, 3),
    "/api/v1/model-versions/": Route(model_versions, 2),
    # count, page (parent, job and user joined)
    "/api/v1/compressions/": Route(compressions, 2),
    "/api/v1/packages/": Route(packages, 2),
    # count, page (model version, dataset version and its dataset, dataset, job, user joined)
    "/api/v1/batch-predictions/": Route(batch_predictions, 2),
    "/api/v1/projects/": Route(projects, 2),
    "/api/v1/studies/": Route(studies, 3),
    # count, page (created_by joined); the builtins are constants
    "/api/v1/target-profiles/": Route(target_profiles, 2),
    "/api/v1/target-profiles/builtins/": Route(nothing, 0, counts_rows=False),
    "/api/v1/studies/{id}/trials/": Route(trials, 3),
    "/api/v1/templates/": Route(nothing, 0, counts_rows=False),
    "/api/v1/tokens/": Route(tokens, 2),
    # + the caller's role in the page's workspaces (my_role), + 2 when a row is queued (queue_state)
    "/api/v1/training-jobs/": Route(training_jobs, 3),
    "/api/v1/users/": Route(users, 2, as_user="staff"),
    "/api/v1/workers/": Route(workers, 1),
    # count, page, the page's owners (prefetched), their limits rows, their running jobs (one grouped read)
    "/api/v1/workspace-limits/": Route(workspaces_with_limits, 5, as_user="staff"),
    "/api/v1/workspaces/": Route(workspaces, 2),
    "/api/v1/workspaces/{workspace_id}/members/": Route(members, 3),
    "/api/v1/workspaces/{workspace_id}/invitations/": Route(workspace_invitations, 3),
}


def test_every_list_route_has_a_budget():
    listed = set(list_operations())
    missing = sorted(listed - set(ROUTES))
    assert not missing, f"list routes without a query budget in {__file__}: {missing}"
    gone = sorted(set(ROUTES) - listed)
    assert not gone, f"budgets for routes that are no longer lists: {gone}"


def _listed(body) -> int:
    return len(body) if isinstance(body, list) else body["count"]


@pytest.mark.parametrize("template", sorted(ROUTES))
def test_list_queries_do_not_grow_with_rows(template, tenants, make_user, api_client, isolated_storage):
    route = ROUTES[template]
    world = tenants
    world["staff"] = make_user("budget-staff", is_staff=True)
    client = api_client(world[route.as_user])

    def answer(params: dict) -> tuple[int, int, list[str]]:
        url = template.format(**params)
        with CaptureQueriesContext(connection) as queries:
            response = client.get(url)
        assert response.status_code == 200, (url, response.content[:500])
        return _listed(response.json()), len(queries), [q["sql"] for q in queries.captured_queries]

    params = route.rows(world, 1)
    answer(params)  # once to warm what a process caches (no query budget pays for that)
    one, queries_one, _ = answer(params)
    many, queries_many, sql = answer(route.rows(world, MORE))
    if route.counts_rows:
        assert many == one + MORE, f"{template}: {one} rows listed, then {many} after {MORE} more were made"
    listing = "\n".join(sql)
    assert queries_many == queries_one, (
        f"{template}: {queries_one} queries for {one} rows but {queries_many} for {many}:\n{listing}"
    )
    assert queries_many <= route.budget, (
        f"{template}: {queries_many} queries, over its budget of {route.budget}:\n{listing}"
    )
