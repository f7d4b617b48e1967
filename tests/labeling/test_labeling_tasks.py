"""Team labeling on PostgreSQL: an owner hands unlabeled digits to two annotators with overlap 2;
each sees only their own queue; their answers give the agreement figures; a rejected item goes back
to both annotators with the comment; accepted items label their samples (review status accepted,
logged as the reviewer's); a version is made of the reviewed samples only."""

from __future__ import annotations

import pytest
from datasets.models import Label, Sample, SampleActivity
from labeling.models import LabelingAssignment
from sklearn.metrics import cohen_kappa_score
from workspaces.models import Role

from tests.datasets.factories import dataset_with_samples
from tests.workspaces.factories import membership

pytestmark = [pytest.mark.django_db, pytest.mark.openapi_conformance]  # every answer matches the schema


@pytest.fixture
def team(tenants, make_user, isolated_storage):
    """Workspace A with annotators ann and bo, and a dataset of 4 labeled and 4 unlabeled digits."""
    ann, bo = make_user("ann"), make_user("bo")
    membership(tenants["ws_a"], ann, Role.ANNOTATOR)
    membership(tenants["ws_a"], bo, Role.ANNOTATOR)
    dataset = dataset_with_samples(
        user=tenants["alice"], project=tenants["project_a"], per_class=2, classes=range(2), unlabeled=4
    )
    labels = list(Label.objects.filter(dataset=dataset).order_by("position", "id"))
    return {**tenants, "ann": ann, "bo": bo, "dataset": dataset, "labels": labels}


def create_task(client, team, **body):
    payload = {
        "dataset": team["dataset"].pk,
        "name": "Unlabeled digits",
        "instructions": "The digit you see.",
        "overlap": 2,
        "annotators": [team["ann"].pk, team["bo"].pk],
        "selection": {"by": "filter", "unlabeled": True},
        **body,
    }
    return client.post("/api/v1/labeling-tasks/", payload, format="json")


def submit(client, assignment: dict, **answer):
    return client.post(f"/api/v1/labeling-assignments/{assignment['id']}/submit/", answer, format="json")


def queue(client, **params) -> list[dict]:
    query = "&".join(f"{k}={v}" for k, v in params.items())
    response = client.get(f"/api/v1/labeling-assignments/?{query}")
    assert response.status_code == 200, response.content
    return response.json()["results"]


def test_overlap_two_agreement_reject_accept_and_a_reviewed_only_version(team, api_client):
    alice, ann, bo = api_client(team["alice"]), api_client(team["ann"]), api_client(team["bo"])
    zero, one = (label.pk for label in team["labels"])
    dataset = team["dataset"]

    refused = create_task(alice, team, overlap=3)
    assert refused.status_code == 400 and refused.json()["error"]["code"] == "overlap_too_large"
    stranger = create_task(alice, team, annotators=[team["ann"].pk, team["bob"].pk])
    assert stranger.status_code == 400 and stranger.json()["error"]["code"] == "annotator_not_member"
    viewer = create_task(alice, team, annotators=[team["carol"].pk])  # viewers only read
    assert viewer.json()["error"]["code"] == "annotator_not_member"
    assert create_task(api_client(team["carol"]), team).status_code == 403
    hidden = create_task(ann, team)  # the dataset does not exist for an annotator
    assert hidden.status_code == 400 and "dataset" in hidden.json()["error"]["details"]

    created = create_task(alice, team)
    assert created.status_code == 201, created.content
    task = created.json()
    assert task["progress"]["items"] == 4
    assert [p["assigned"] for p in task["progress"]["per_annotator"]] == [4, 4]
    assert [label["name"] for label in task["labels"]] == ["0", "1"]

    # the annotator sees the workspace (role annotator), their task and queue, nothing else
    workspaces = ann.get("/api/v1/workspaces/").json()["results"]
    assert [(w["name"], w["role"]) for w in workspaces] == [("Workspace A", "annotator")]
    assert ann.get(f"/api/v1/datasets/{dataset.pk}/").status_code == 404
    assert ann.get("/api/v1/datasets/").json()["count"] == 0
    assert [t["id"] for t in ann.get("/api/v1/labeling-tasks/").json()["results"]] == [task["id"]]
    assert ann.get(f"/api/v1/labeling-tasks/{task['id']}/items/").status_code == 403
    mine, theirs = queue(ann, task=task["id"]), queue(bo, task=task["id"])
    assert len(mine) == len(theirs) == 4
    assert [a["position"] for a in mine] == [1, 2, 3, 4] and {a["total"] for a in mine} == {4}
    assert mine[0]["labels"][0]["name"] == "0" and mine[0]["task"]["instructions"] == "The digit you see."
    assert ann.get(f"/api/v1/labeling-assignments/{theirs[0]['id']}/").status_code == 404
    image = ann.get(mine[0]["sample"]["image"])
    assert image.status_code == 200 and image["Content-Type"].startswith("image/")
    assert ann.get(f"/api/v1/labeling-assignments/{theirs[0]['id']}/image/").status_code == 404
    opened = ann.get(f"/api/v1/labeling-assignments/{mine[0]['id']}/").json()
    assert opened["opened_at"] is not None

    bad = submit(ann, mine[0], label=10**9)
    assert bad.status_code == 400 and bad.json()["error"]["code"] == "unknown_label"
    for a in mine:
        assert submit(ann, a, label=zero).status_code == 200
    for i, a in enumerate(theirs):
        answer = one if i == 3 else zero
        assert submit(bo, a, label=answer).status_code == 200
    # overlap 2: nothing written on the samples before review
    sample_ids = [a["sample"]["id"] for a in mine]
    assert not Sample.objects.filter(pk__in=sample_ids, label__isnull=False).exists()

    agreement = alice.get(f"/api/v1/labeling-tasks/{task['id']}/agreement/").json()
    assert agreement["overlapping_samples"] == 4
    assert agreement["percent_agreement"] == 0.75
    [pair] = agreement["pairs"]
    assert pair["shared"] == 4
    assert pair["cohen_kappa"] == pytest.approx(cohen_kappa_score([0, 0, 0, 0], [0, 0, 0, 1]))
    assert {s["username"]: s["agreement_with_others"] for s in agreement["annotators"]} == {
        "ann": 0.75,
        "bo": 0.75,
    }

    items = alice.get(f"/api/v1/labeling-tasks/{task['id']}/items/?submitted=true").json()["results"]
    assert len(items) == 4 and all(len(item["assignments"]) == 2 for item in items)
    last = items[3]
    rejected = alice.post(
        f"/api/v1/labeling-tasks/{task['id']}/review/",
        {"items": [last["id"]], "verdict": "reject", "comment": "Look again: the tail."},
        format="json",
    )
    assert rejected.json() == {"reviewed": 1, "skipped": []}
    for client in (ann, bo):
        first = queue(client, task=task["id"])[0]  # sent back: first in the queue, with the comment
        assert first["item"] == last["id"] and first["status"] == "rejected"
        assert first["comment"] == "Look again: the tail." and first["rejections"] == 1
    assert Sample.objects.get(pk=last["sample"]["id"]).review_status == "rejected"

    accepted = alice.post(
        f"/api/v1/labeling-tasks/{task['id']}/review/",
        {"items": [item["id"] for item in items[:3]], "verdict": "accept"},
        format="json",
    )
    assert accepted.json() == {"reviewed": 3, "skipped": []}
    for sample in Sample.objects.filter(pk__in=sample_ids[:3]):
        assert (sample.label_id, sample.review_status) == (zero, "accepted")
    logged = SampleActivity.objects.filter(sample_id=sample_ids[0], action="label").get()
    assert (logged.source, logged.actor_id) == ("review", team["alice"].pk)
    done = queue(ann, task=task["id"], status="accepted")
    assert len(done) == 3

    # bo answers the rejected one again; the reviewer overrules with a label of their own
    again = queue(bo, task=task["id"], status="rejected")[0]
    assert submit(bo, again, label=zero).status_code == 200
    waiting = alice.get(f"/api/v1/labeling-tasks/{task['id']}/items/?review=pending").json()["results"]
    assert [item["id"] for item in waiting] == [last["id"]]
    overruled = alice.post(
        f"/api/v1/labeling-tasks/{task['id']}/review/",
        {"items": [last["id"]], "verdict": "accept", "label": one},
        format="json",
    )
    assert overruled.json()["reviewed"] == 1
    assert Sample.objects.get(pk=last["sample"]["id"]).label_id == one
    accepted_again = submit(bo, again, label=zero)
    assert accepted_again.status_code == 409
    assert accepted_again.json()["error"]["code"] == "assignment_accepted"

    stats = {
        s["username"]: s
        for s in alice.get(f"/api/v1/labeling-tasks/{task['id']}/agreement/").json()["annotators"]
    }
    assert stats["ann"]["rejection_rate"] == 0.25 and stats["bo"]["rejected"] == 1
    progress = alice.get(f"/api/v1/labeling-tasks/{task['id']}/").json()["progress"]
    assert (progress["accepted"], progress["rejected"]) == (4, 0)

    reviewed = alice.get(f"/api/v1/datasets/{dataset.pk}/samples/?review_status=accepted").json()
    assert sorted(s["id"] for s in reviewed["results"]) == sorted(sample_ids)
    version = alice.post(
        f"/api/v1/datasets/{dataset.pk}/versions/", {"reviewed_only": True, "seed": 1}, format="json"
    )
    assert version.status_code == 201, version.content
    assert version.json()["reviewed_only"] is True
    assert version.json()["sample_count"] == 4  # the 4 labeled at import were never reviewed


def test_overlap_one_labels_at_once_balanced_round_robin_and_closed_tasks(team, api_client):
    alice, ann = api_client(team["alice"]), api_client(team["ann"])
    zero = team["labels"][0].pk
    dataset = team["dataset"]
    unlabeled = list(Sample.objects.filter(dataset=dataset, label__isnull=True).order_by("pk"))
    people = [team["ann"].pk, team["bo"].pk, team["erin"].pk]  # an editor may annotate too
    balanced = create_task(
        alice, team, annotators=people, selection={"by": "ids", "ids": [s.pk for s in unlabeled[:3]]}
    )
    assert balanced.status_code == 201, balanced.content
    counts = {p["username"]: p["assigned"] for p in balanced.json()["progress"]["per_annotator"]}
    assert counts == {"ann": 2, "bo": 2, "erin": 2}
    for sample in unlabeled[:3]:
        assert (
            LabelingAssignment.objects.filter(item__sample=sample).values("annotator").distinct().count() == 2
        )

    missing = create_task(alice, team, selection={"by": "ids", "ids": [10**12]})
    assert missing.json()["error"]["code"] == "unknown_sample"
    single = create_task(alice, team, overlap=1, selection={"by": "ids", "ids": [unlabeled[3].pk]}).json()
    [assignment] = queue(ann, task=single["id"]) or queue(api_client(team["bo"]), task=single["id"])
    owner = team["ann"] if queue(ann, task=single["id"]) else team["bo"]
    client = api_client(owner)
    assert submit(client, assignment, label=zero).status_code == 200
    sample = Sample.objects.get(pk=unlabeled[3].pk)
    assert sample.label_id == zero and sample.review_status == "unreviewed"
    logged = SampleActivity.objects.get(sample=sample, action="label")
    assert (logged.source, logged.actor_id) == ("task", owner.pk)

    assert alice.post(f"/api/v1/labeling-tasks/{single['id']}/close/").json()["status"] == "closed"
    closed = submit(client, assignment, label=zero)
    assert closed.status_code == 409 and closed.json()["error"]["code"] == "task_closed"
    assert api_client(team["carol"]).post(f"/api/v1/labeling-tasks/{single['id']}/close/").status_code == 403
    listed = api_client(team["carol"]).get(f"/api/v1/labeling-tasks/?dataset={dataset.pk}").json()
    assert listed["count"] == 2  # a viewer reads every task of the workspace


def test_detection_answers_are_checked_compared_by_class_and_written_on_accept(team, api_client):
    from datasets.models import Annotation

    from tests.datasets import factories

    alice, ann, bo = api_client(team["alice"]), api_client(team["ann"]), api_client(team["bo"])
    boxes = factories.dataset(team["project_a"], name="Scenes", task_type="object_detection")
    factories.label(boxes, "car")
    factories.label(boxes, "person")
    scenes = [factories.sample(boxes) for _ in range(2)]  # 32 x 32 images
    task = create_task(alice, team, dataset=boxes.pk, selection={"by": "ids", "ids": [s.pk for s in scenes]})
    assert task.status_code == 201, task.content
    task_id = task.json()["id"]
    mine, theirs = queue(ann, task=task_id), queue(bo, task=task_id)

    car = {"label": "car", "x": 2, "y": 3, "width": 10, "height": 8}
    outside = submit(ann, mine[0], status="annotated", boxes=[{**car, "x": 30}])
    assert outside.status_code == 400 and outside.json()["error"]["code"] == "annotation_out_of_bounds"
    unknown = submit(ann, mine[0], status="annotated", boxes=[{**car, "label": "bus"}])
    assert unknown.json()["error"]["code"] == "unknown_label"
    mismatch = submit(ann, mine[0], status="no_objects", boxes=[car])
    assert mismatch.json()["error"]["code"] == "annotation_status_mismatch"

    assert submit(ann, mine[0], status="annotated", boxes=[car]).status_code == 200
    assert submit(bo, theirs[0], status="annotated", boxes=[{**car, "x": 4}]).status_code == 200
    assert submit(ann, mine[1], status="no_objects", boxes=[]).status_code == 200
    person = {**car, "label": "person"}
    assert submit(bo, theirs[1], status="annotated", boxes=[person]).status_code == 200

    agreement = alice.get(f"/api/v1/labeling-tasks/{task_id}/agreement/").json()
    assert agreement["classes"] == ["car", "person"]
    # objects: the car both drew (IoU 0.67: the same car) and the person only bo drew
    assert agreement["overlapping_samples"] == 2 and agreement["percent_agreement"] == 0.5
    per_class = {c["name"]: c["percent_agreement"] for c in agreement["per_class"]}
    assert per_class == {"car": 1.0, "person": 0.0}

    items = alice.get(f"/api/v1/labeling-tasks/{task_id}/items/").json()["results"]
    # a tie (one answer each): the first submitted wins
    reviewed = alice.post(
        f"/api/v1/labeling-tasks/{task_id}/review/",
        {"items": [item["id"] for item in items], "verdict": "accept"},
        format="json",
    )
    assert reviewed.json() == {"reviewed": 2, "skipped": []}
    first, second = (Sample.objects.get(pk=s.pk) for s in scenes)
    assert (first.annotation_status, first.review_status) == ("annotated", "accepted")
    assert list(Annotation.objects.filter(sample=first).values_list("label__name", "geometry")) == [
        ("car", {"x": 2.0, "y": 3.0, "width": 10.0, "height": 8.0})
    ]
    assert second.annotation_status == "no_objects" and not Annotation.objects.filter(sample=second).exists()
    assert SampleActivity.objects.filter(sample=first, source="review", action="annotations").exists()


def test_a_smart_ranking_selects_in_rank_order_and_members_take_the_annotator_role(
    team, api_client, make_user
):
    from labeling.models import SmartLabelingRound, Suggestion

    alice = api_client(team["alice"])
    dataset = team["dataset"]
    unlabeled = list(Sample.objects.filter(dataset=dataset, label__isnull=True).order_by("pk"))
    smart = SmartLabelingRound.objects.create(dataset=dataset, number=1, status="succeeded")
    for rank, sample in enumerate(reversed(unlabeled), start=1):  # the last sample ranks first
        Suggestion.objects.create(round=smart, dataset=dataset, sample=sample, rank=rank)
    ranked = create_task(alice, team, selection={"by": "ranking", "count": 2})
    assert ranked.status_code == 201, ranked.content
    items = alice.get(f"/api/v1/labeling-tasks/{ranked.json()['id']}/items/").json()["results"]
    assert [item["sample"]["id"] for item in items] == [unlabeled[-1].pk, unlabeled[-2].pk]
    missing = create_task(alice, team, selection={"by": "ranking", "round": smart.pk + 1000})
    assert missing.json()["error"]["code"] == "no_ranking"

    make_user("dana")
    members = f"/api/v1/workspaces/{team['ws_a'].pk}/members/"
    added = alice.post(members, {"username": "dana", "role": "annotator"}, format="json")
    assert added.status_code == 201 and added.json()["role"] == "annotator"
    assert api_client(team["ann"]).get(members).status_code == 404  # an annotator sees no members
