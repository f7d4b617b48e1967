"""Team labeling through the SDK on a live web process: an owner creates a task for an annotator,
the annotator works through ``client.assignments`` (and cannot see the dataset), the owner rejects
one answer, accepts the rest and makes a reviewed-only version."""

from __future__ import annotations

import pytest

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def test_labeling_task_through_the_sdk(live_web, tenants, token_for, make_user):
    import sampan
    from workspaces.models import Role

    from tests.datasets.factories import digit_bytes
    from tests.workspaces.factories import membership

    ann = make_user("ann")
    membership(tenants["ws_a"], ann, Role.ANNOTATOR)
    owner = sampan.Client(live_web, token_for(tenants["alice"]), timeout=30, backoff=0.1, max_backoff=1)
    annotator = sampan.Client(live_web, token_for(ann), timeout=30, backoff=0.1, max_backoff=1)
    dataset = owner.datasets.create("Team digits", project=owner.projects.get(tenants["project_a"].pk))
    dataset.upload([(f"{i}.png", digit_bytes(i)) for i in range(3)], progress=False)  # unlabeled
    dataset.create_label("0")
    dataset.create_label("1")

    task = owner.labeling_tasks.create(
        dataset, "Three digits", annotators=[ann.pk], unlabeled=True, instructions="Which digit?"
    )
    assert isinstance(task, sampan.LabelingTask) and task.progress["items"] == 3
    with pytest.raises(sampan.NotFound):
        annotator.datasets.get(dataset.id)
    queue = annotator.assignments.list(task=task.id)
    assert [a.position for a in queue] == [1, 2, 3]
    zero = queue[0].labels[0]["id"]
    assert queue[0].image()[:4] == b"\x89PNG"
    for assignment in queue:
        assert assignment.submit(label=zero).status == "submitted"

    items = task.items(submitted=True)
    assert len(items) == 3 and items[0]["assignments"][0]["answer"] == {"label": zero}
    assert task.review(items[:1], "reject", comment="Not a zero") == {"reviewed": 1, "skipped": []}
    [back] = annotator.assignments.list(task=task.id, status="rejected")
    assert back.comment == "Not a zero" and back.rejections == 1
    assert task.review(items[1:], "accept")["reviewed"] == 2
    assert task.agreement()["annotators"][0]["rejection_rate"] == pytest.approx(1 / 3, abs=1e-3)
    assert [t.id for t in annotator.labeling_tasks.list()] == [task.id]

    version = dataset.create_version(seed=1, reviewed_only=True)
    assert version.reviewed_only is True and version.sample_count == 2
    with pytest.raises(sampan.PermissionDenied):
        annotator.labeling_tasks.get(task.id).review(items[1:], "accept")
    assert task.close().status == "closed"
