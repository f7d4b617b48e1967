"""Regression targets are written like labels: all or nothing with optimistic concurrency, one
activity entry (action ``target``) per changed row, revertible. Accepted regression suggestions
(their value becomes the target, source ``suggestion``) never overwrite a target a person set, and
labeling-task answers with a ``target`` land in the log as the annotator's (overlap 1) or the
reviewer's (the mean of the answers)."""

from __future__ import annotations

import pytest
from config.exceptions import DomainError
from datasets.models import ReviewStatus, Sample, SampleActivity
from datasets.services.labels import samples_set_targets
from labeling.models import SmartLabelingRound, Suggestion
from workspaces.models import Role

from tests.datasets import factories
from tests.workspaces.factories import membership

pytestmark = pytest.mark.django_db


@pytest.fixture
def prices(tenants):
    """A tabular regression dataset: two rows with a target, three without."""
    dataset = factories.dataset(tenants["project_a"], name="Prices", task_type="tabular_regression")
    dataset.schema = {
        "columns": [{"name": "size", "type": "numeric"}],
        "target": "price",
        "task": "regression",
    }
    dataset.save(update_fields=["schema"])
    rows = [
        factories.sample(dataset, values={"size": size}, target=target, format="ROW")
        for size, target in ((1, 2.5), (2, 4.0), (3, None), (4, None), (5, None))
    ]
    return dataset, rows


def url(dataset, tail: str) -> str:
    return f"/api/v1/datasets/{dataset.pk}/{tail}"


def log_of(sample) -> list[tuple[str, str, dict, dict]]:
    return [
        (a.action, a.source, a.before, a.after)
        for a in SampleActivity.objects.filter(sample=sample).order_by("id")
    ]


def test_set_targets_is_all_or_nothing_logged_and_checked(prices, tenants):
    dataset, (a, b, c, *_) = prices
    Sample.objects.filter(pk=a.pk).update(review_status=ReviewStatus.ACCEPTED)
    written = samples_set_targets(
        dataset=dataset,
        changes=[
            {"id": a.pk, "target": 3, "label_version": 0},
            {"id": c.pk, "target": 7.25, "label_version": 0},
        ],
        actor=tenants["alice"],
        source="manual",
    )
    assert written == [
        {"id": a.pk, "target": 3.0, "label_version": 1},
        {"id": c.pk, "target": 7.25, "label_version": 1},
    ]
    assert log_of(a) == [("target", "manual", {"target": 2.5}, {"target": 3.0})]
    assert log_of(c) == [("target", "manual", {"target": None}, {"target": 7.25})]
    assert Sample.objects.get(pk=a.pk).review_status == ReviewStatus.UNREVIEWED

    # one stale version refuses the whole write, naming the current values
    with pytest.raises(DomainError) as stale:
        samples_set_targets(
            dataset=dataset,
            changes=[
                {"id": b.pk, "target": 1.0, "label_version": 0},
                {"id": c.pk, "target": 8.0, "label_version": 0},
            ],
            actor=tenants["alice"],
        )
    assert stale.value.status == 409 and stale.value.code == "label_conflict"
    assert stale.value.details["conflicts"] == [{"id": c.pk, "target": 7.25, "label_version": 1}]
    assert Sample.objects.get(pk=b.pk).target == 4.0 and not log_of(b)

    for bad in (float("nan"), float("inf"), "4", True):
        with pytest.raises(DomainError) as refused:
            samples_set_targets(
                dataset=dataset, changes=[{"id": b.pk, "target": bad, "label_version": 0}], actor=None
            )
        assert refused.value.status == 400 and "changes[0].target" in refused.value.details
    assert Sample.objects.get(pk=b.pk).target == 4.0


def test_accepted_regression_suggestions_become_targets_never_over_a_person(prices, tenants, api_client):
    dataset, (a, b, c, d, e) = prices
    smart_round = SmartLabelingRound.objects.create(dataset=dataset, number=1, status="succeeded")
    suggested = {
        row.pk: Suggestion.objects.create(
            round=smart_round, dataset=dataset, sample=row, value=value, confidence=confidence
        )
        for row, value, confidence in ((c, 6.5, 0.97), (d, 8.0, 0.96), (e, 9.5, 0.4))
    }
    # a person sets row d's target after the round: its suggestion is no longer offered
    samples_set_targets(
        dataset=dataset,
        changes=[{"id": d.pk, "target": 7.0, "label_version": 0}],
        actor=tenants["alice"],
        source="manual",
    )
    alice = api_client(tenants["alice"])
    accepted = alice.post(
        url(dataset, "suggestions/accept/"),
        {"ids": [suggested[c.pk].pk, suggested[d.pk].pk]},
        format="json",
    )
    assert accepted.status_code == 200, accepted.content
    assert accepted.json() == {
        "accepted": 1,
        "skipped": [{"id": suggested[d.pk].pk, "reason": "human_labeled"}],
    }
    assert Sample.objects.get(pk=c.pk).target == 6.5
    assert Sample.objects.get(pk=d.pk).target == 7.0  # the person's target stays
    assert log_of(c) == [("target", "suggestion", {"target": None}, {"target": 6.5})]
    assert log_of(d) == [("target", "manual", {"target": None}, {"target": 7.0})]

    # by rule: only what is pending, confident enough and still without a target
    by_rule = alice.post(url(dataset, "suggestions/accept/"), {"min_confidence": 0.9}, format="json")
    assert by_rule.json() == {"accepted": 0, "skipped": []}
    assert Sample.objects.get(pk=e.pk).target is None

    # the log entry reads and reverts through the API
    entries = alice.get(url(dataset, f"activity/?sample={c.pk}")).json()["results"]
    assert [(x["action"], x["after"], x["can_revert"]) for x in entries] == [
        ("target", {"target": 6.5}, True)
    ]
    reverted = alice.post(url(dataset, f"activity/{entries[0]['id']}/revert/"))
    assert reverted.status_code == 200, reverted.content
    body = reverted.json()
    assert (body["action"], body["source"], body["before"], body["after"]) == (
        "target",
        "revert",
        {"target": 6.5},
        {"target": None},
    )
    assert Sample.objects.get(pk=c.pk).target is None
    again = alice.post(url(dataset, f"activity/{entries[0]['id']}/revert/"))
    assert again.status_code == 409 and again.json()["error"]["code"] == "label_conflict"


def test_task_answers_with_a_target_are_logged(prices, tenants, make_user, api_client):
    dataset, (_, _, c, d, e) = prices
    ann, bo = make_user("ann"), make_user("bo")
    membership(tenants["ws_a"], ann, Role.ANNOTATOR)
    membership(tenants["ws_a"], bo, Role.ANNOTATOR)
    alice = api_client(tenants["alice"])

    def task(overlap: int, ids: list[int], annotators: list) -> dict:
        created = alice.post(
            "/api/v1/labeling-tasks/",
            {
                "dataset": dataset.pk,
                "name": f"Prices x{overlap}",
                "overlap": overlap,
                "annotators": [user.pk for user in annotators],
                "selection": {"by": "ids", "ids": ids},
            },
            format="json",
        )
        assert created.status_code == 201, created.content
        return created.json()

    def submit(user, task_id: int, target) -> int:
        client = api_client(user)
        (mine,) = client.get(f"/api/v1/labeling-assignments/?task={task_id}").json()["results"]
        sent = client.post(
            f"/api/v1/labeling-assignments/{mine['id']}/submit/", {"target": target}, format="json"
        )
        assert sent.status_code == 200, sent.content
        return mine["id"]

    single = task(1, [c.pk], [ann])
    submit(ann, single["id"], 5.5)
    assert Sample.objects.get(pk=c.pk).target == 5.5
    (entry,) = SampleActivity.objects.filter(sample=c)
    assert (entry.action, entry.source, entry.actor, entry.before, entry.after) == (
        "target",
        "task",
        ann,
        {"target": None},
        {"target": 5.5},
    )

    double = task(2, [d.pk], [ann, bo])
    submit(ann, double["id"], 10.0)
    submit(bo, double["id"], 12.0)
    assert Sample.objects.get(pk=d.pk).target is None  # written when the reviewer accepts
    (item,) = alice.get(f"/api/v1/labeling-tasks/{double['id']}/items/").json()["results"]
    review = alice.post(
        f"/api/v1/labeling-tasks/{double['id']}/review/",
        {"items": [item["id"]], "verdict": "accept"},
        format="json",
    )
    assert review.status_code == 200, review.content
    row = Sample.objects.get(pk=d.pk)
    assert (row.target, row.review_status) == (11.0, ReviewStatus.ACCEPTED)
    assert [(x[0], x[1], x[3]) for x in log_of(d)] == [
        ("target", "review", {"target": 11.0}),
        ("review", "review", {"review_status": "accepted"}),
    ]
    assert not SampleActivity.objects.filter(sample=e).exists()
