"""Request capture: a deployment keeps what its policy asks of the requests it answers (off by default;
filters low confidence / shadow disagreement / label, a sample rate, a size cap, retention), served
through the real hosted endpoint and the per-process background writer; the captures' API (list,
content, delete one / many / all with their blobs); "send to dataset" creates unlabeled samples with
a pending suggestion from production that the existing accept API turns into the label."""

from __future__ import annotations

import io
import json
from datetime import UTC, datetime, timedelta

import pytest
from django.core.files.storage import default_storage
from PIL import Image

from tests.deploy.factories import b64, deployment_with_key, model_version_from, png


def post_json(client, url: str, payload, **extra):
    return client.post(url, data=json.dumps(payload), content_type="application/json", **extra)


def predict(api_client, deployment, secret, indexes):
    answer = post_json(
        api_client(),
        f"/api/v1/deployments/{deployment.pk}/predict/",
        {"instances": [{"image": b64(png(i))} for i in indexes], "top_k": 3},
        HTTP_AUTHORIZATION=f"Bearer {secret}",
    )
    assert answer.status_code == 200, answer.content
    return answer.json()["predictions"]


def set_policy(client, deployment, **fields):
    answer = client.put(f"/api/v1/deployments/{deployment.pk}/capture/", fields, format="json")
    assert answer.status_code == 200, answer.content
    return answer.json()


def captured(deployment):
    from deploy.capture import writer
    from deploy.models import CapturedRequest

    writer.flush()
    return list(CapturedRequest.objects.filter(deployment=deployment).order_by("id"))


# --- through the hosted endpoint and the writer thread (committed rows: the thread's own connection) --


@pytest.mark.django_db(transaction=True)
def test_capture_through_the_hosted_endpoint_with_each_filter_and_the_cap(
    tenants, api_client, trained_digits
):
    from deploy.capture import writer
    from deploy.models import DeploymentEvent

    mv = model_version_from(tenants, trained_digits)
    deployment, key, secret = deployment_with_key(tenants, mv)
    alice = api_client(tenants["alice"])

    # off by default: nothing kept
    policy = alice.get(f"/api/v1/deployments/{deployment.pk}/capture/").json()
    assert policy["enabled"] is False and policy["stored_count"] == 0
    predict(api_client, deployment, secret, [0, 1])
    assert captured(deployment) == []

    # no filter, every instance sampled: each input kept as PNG with its answer, key and version
    set_policy(alice, deployment, enabled=True, sample_rate=1.0)
    assert DeploymentEvent.objects.filter(deployment=deployment, action="capture").count() == 1
    answers = predict(api_client, deployment, secret, [0, 1, 2])
    rows = captured(deployment)
    assert [r.reason for r in rows] == ["sampled"] * 3
    assert {r.key_id for r in rows} == {key.pk} and {r.model_version_id for r in rows} == {mv.pk}
    assert [r.top_label for r in rows] == [a["top_k"][0]["label"] for a in answers]
    assert rows[0].blob_key.startswith(f"captures/{deployment.pk}/") and rows[0].content_type == "image/png"
    content = alice.get(f"/api/v1/deployments/{deployment.pk}/captures/{rows[0].pk}/content/")
    assert content.status_code == 200 and content["Content-Type"] == "image/png"
    assert content["X-Content-Type-Options"] == "nosniff"
    body = b"".join(content.streaming_content) if content.streaming else content.content
    assert Image.open(io.BytesIO(body)).size == Image.open(io.BytesIO(png(0))).size
    listed = alice.get(f"/api/v1/deployments/{deployment.pk}/captures/").json()
    assert listed["count"] == 3 and listed["results"][0]["answer"]["label"] == answers[2]["top_k"][0]["label"]
    assert (
        listed["results"][0]["model_version_name"] == mv.name
        and listed["results"][0]["sent_to_dataset"] is None
    )
    alice.post(f"/api/v1/deployments/{deployment.pk}/captures/delete/", {"all": True}, format="json")

    # low confidence: kept when the top score is under the threshold, not when it is over
    score = answers[0]["top_k"][0]["score"]
    set_policy(alice, deployment, low_confidence_below=min(1.0, score + 1e-6))
    predict(api_client, deployment, secret, [0])
    assert [r.reason for r in captured(deployment)] == ["low_confidence"]
    set_policy(alice, deployment, low_confidence_below=max(0.0, score - 1e-6))
    predict(api_client, deployment, secret, [0])
    assert len(captured(deployment)) == 1

    # label filter: the served top-1 class in the list
    label = answers[1]["top_k"][0]["label"]
    set_policy(alice, deployment, low_confidence_below=None, labels=[label])
    predict(api_client, deployment, secret, [1])
    assert [r.reason for r in captured(deployment)] == ["low_confidence", "label"]
    set_policy(alice, deployment, labels=["no such class"])
    predict(api_client, deployment, secret, [1])
    assert len(captured(deployment)) == 2

    # sample rate 0: nothing kept
    set_policy(alice, deployment, labels=[], sample_rate=0.0)
    predict(api_client, deployment, secret, [0, 1, 2])
    assert len(captured(deployment)) == 2

    # the cap: no input kept past max_bytes (stored bytes counted from the rows)
    stored = sum(r.size_bytes for r in captured(deployment))
    writer.forget()
    set_policy(alice, deployment, sample_rate=1.0, max_bytes=stored + rows[0].size_bytes + 10)
    over_cap = writer.stats["over_cap"]
    predict(api_client, deployment, secret, [0, 1, 2, 3])
    after = captured(deployment)
    assert len(after) == 3, "one more input fits under the cap, the other three do not"
    assert sum(r.size_bytes for r in after) <= stored + rows[0].size_bytes + 10
    assert writer.stats["over_cap"] == over_cap + 3
    assert alice.get(f"/api/v1/deployments/{deployment.pk}/capture/").json()["stored_count"] == 3


@pytest.mark.django_db(transaction=True)
def test_shadow_disagreement_filter_keeps_only_instances_the_shadow_answered_differently(tenants):
    """The shadow worker's call (deploy.shadow hands both answers to offer): an instance is kept when
    the shadow's top-1 class differs, with both answers and the shadow's version."""
    from deploy import capture
    from deploy.models import CapturePolicy

    from tests.deploy.factories import deployment as deployment_row
    from tests.training.factories import model_version

    served, shadow = model_version(tenants["project_a"]), model_version(tenants["project_a"])
    deployment = deployment_row(served)
    CapturePolicy.objects.create(
        deployment=deployment, enabled=True, sample_rate=1.0, shadow_disagreement=True
    )

    policy = capture.load_policy(deployment.pk)
    assert policy is not None and policy.shadow_disagreement

    class State:
        id = deployment.pk

    State.capture = policy

    def top(label, score):
        return [{"label": label, "index": 0, "score": score}]

    images = [Image.new("RGB", (8, 8), color) for color in ("red", "green", "blue")]
    capture.offer(
        state=State,
        key_id=None,
        model_version=served.pk,
        data_kind="image",
        instances=images,
        predictions=[top("cat", 0.9), top("dog", 0.6), top("cat", 0.7)],
        shadow_version=shadow.pk,
        shadow_predictions=[top("cat", 0.8), top("cat", 0.5), top("cat", 0.9)],
    )
    rows = captured(deployment)
    assert [(r.reason, r.top_label, r.shadow_version_id) for r in rows] == [
        ("disagreement", "dog", shadow.pk)
    ]
    assert rows[0].shadow_answer["label"] == "cat" and rows[0].answer["top_k"][0]["score"] == 0.6


# --- the API, deletes, retention, send to dataset (rows written by the writer in this thread) ------


def write_captures(deployment, instances, predictions, *, data_kind="image", at=None):
    """Captures written by the real writer (encoding, blob storage, rows), in the test's thread."""
    from deploy import capture

    items = [
        (instance, capture.answer_of(prediction), None, "sampled")
        for instance, prediction in zip(instances, predictions, strict=True)
    ]
    capture.writer.write(
        capture._Pending(
            deployment_id=deployment.pk,
            key_id=None,
            model_version_id=deployment.model_version_id,
            shadow_version_id=None,
            data_kind=data_kind,
            at=at or datetime.now(tz=UTC),
            max_bytes=1 << 40,
            items=items,
        )
    )
    return captured(deployment)


def digit_images(indexes):
    return [Image.open(io.BytesIO(png(i))) for i in indexes]


def classes(label, score=0.8, other="1"):
    return [{"label": label, "index": 0, "score": score}, {"label": other, "index": 1, "score": 1 - score}]


@pytest.fixture
def image_deployment(tenants):
    from tests.deploy.factories import deployment as deployment_row
    from tests.training.factories import model_version

    return deployment_row(model_version(tenants["project_a"], classes=[str(i) for i in range(10)]))


@pytest.mark.django_db
def test_policy_bad_inputs_are_refused_naming_the_field(tenants, api_client, image_deployment):
    from deploy.models import DeploymentEvent

    alice = api_client(tenants["alice"])
    url = f"/api/v1/deployments/{image_deployment.pk}/capture/"
    for body, field in (
        ({"sample_rate": 1.5}, "sample_rate"),
        ({"sample_rate": -0.1}, "sample_rate"),
        ({"retention_days": 0}, "retention_days"),
        ({"max_bytes": 0}, "max_bytes"),
        ({"low_confidence_below": 2}, "low_confidence_below"),
        ({"labels": "cat"}, "labels"),
    ):
        answer = alice.put(url, body, format="json")
        assert answer.status_code == 400, (body, answer.content)
        assert field in answer.json()["error"]["details"], answer.json()
    assert alice.get(url).json()["enabled"] is False
    changed = set_policy(alice, image_deployment, enabled=True, retention_days=3, labels=["7"])
    assert changed["retention_days"] == 3 and changed["labels"] == ["7"] and changed["updated_by"] == "alice"
    event = DeploymentEvent.objects.filter(deployment=image_deployment).last()
    assert event.action == "capture" and event.details["capture"]["labels"] == ["7"]
    assert event.by == tenants["alice"]
    assert api_client(tenants["carol"]).put(url, {"enabled": False}, format="json").status_code == 403


@pytest.mark.django_db
def test_delete_one_many_and_all_remove_the_stored_inputs(
    tenants, api_client, image_deployment, django_capture_on_commit_callbacks
):
    from deploy.models import CapturedRequest

    alice = api_client(tenants["alice"])
    rows = write_captures(image_deployment, digit_images(range(5)), [classes("0")] * 5)
    keys = [r.blob_key for r in rows]
    assert all(default_storage.exists(k) for k in keys)
    base = f"/api/v1/deployments/{image_deployment.pk}/captures/"

    with django_capture_on_commit_callbacks(execute=True):  # blobs go once the rows' deletion commits
        assert alice.delete(f"{base}{rows[0].pk}/").status_code == 204
    assert not default_storage.exists(keys[0]) and default_storage.exists(keys[1])
    unknown = alice.post(f"{base}delete/", {"ids": [rows[1].pk, 999_999]}, format="json")
    assert unknown.status_code == 400 and "999999" in unknown.json()["error"]["message"]
    assert CapturedRequest.objects.filter(deployment=image_deployment).count() == 4, "nothing deleted"
    with django_capture_on_commit_callbacks(execute=True):
        many = alice.post(f"{base}delete/", {"ids": [rows[1].pk, rows[2].pk]}, format="json")
        assert many.json() == {"deleted": 2}
        assert alice.post(f"{base}delete/", {"all": True}, format="json").json() == {"deleted": 2}
    assert not CapturedRequest.objects.filter(deployment=image_deployment).exists()
    assert not any(default_storage.exists(k) for k in keys)
    assert alice.post(f"{base}delete/", {}, format="json").status_code == 400

    # deleting the deployment deletes its captures' inputs too
    more = write_captures(image_deployment, digit_images([5, 6]), [classes("0")] * 2)
    with django_capture_on_commit_callbacks(execute=True):
        assert alice.delete(f"/api/v1/deployments/{image_deployment.pk}/").status_code == 204
    assert not any(default_storage.exists(r.blob_key) for r in more)


@pytest.mark.django_db
def test_retention_cleanup_deletes_old_captures_and_their_inputs(
    tenants, image_deployment, django_capture_on_commit_callbacks
):
    from deploy.capture_services import capture_cleanup
    from deploy.models import CapturePolicy
    from deploy.tasks import capture_cleanup as task

    CapturePolicy.objects.create(deployment=image_deployment, enabled=True, retention_days=2)
    old = write_captures(
        image_deployment,
        digit_images([0, 1]),
        [classes("0")] * 2,
        at=datetime.now(tz=UTC) - timedelta(days=3),
    )
    fresh = write_captures(image_deployment, digit_images([2]), [classes("0")])
    young = [r for r in fresh if r.pk not in {o.pk for o in old}]
    with django_capture_on_commit_callbacks(execute=True):
        assert capture_cleanup() == 2
    assert [r.pk for r in captured(image_deployment)] == [young[0].pk]
    assert not any(default_storage.exists(r.blob_key) for r in old)
    assert default_storage.exists(young[0].blob_key)
    assert task() == 0, "the beat task runs the same cleanup"


@pytest.mark.django_db
def test_send_image_captures_to_a_dataset_and_accept_the_suggestion(tenants, api_client, image_deployment):
    from datasets.models import Sample
    from labeling.models import Suggestion

    from tests.datasets import factories

    alice = api_client(tenants["alice"])
    dataset = factories.dataset(tenants["project_a"], name="From production")
    seven, three = factories.label(dataset, "7"), factories.label(dataset, "3")
    rows = write_captures(
        image_deployment,
        digit_images([0, 1, 2, 3]),
        [classes("7", 0.9), classes("3", 0.6), classes("5", 0.7), classes("7", 0.8)],
    )
    base = f"/api/v1/deployments/{image_deployment.pk}/captures/"
    sent = alice.post(f"{base}send/", {"dataset": dataset.pk, "ids": [r.pk for r in rows[:3]]}, format="json")
    assert sent.status_code == 200, sent.content
    result = sent.json()
    assert result["samples_created"] == 3 and result["suggestions_created"] == 2
    assert [(s["id"], s["reason"]) for s in result["skipped"]] == [(rows[2].pk, "no_suggestion")]
    assert "'5'" in result["skipped"][0]["detail"]
    samples = Sample.objects.filter(dataset=dataset)
    assert samples.count() == 3 and not samples.filter(label__isnull=False).exists()
    suggestion = Suggestion.objects.get(captured_request=rows[0])
    assert (suggestion.source, suggestion.round_id, suggestion.label_id) == ("capture", None, seven.pk)
    assert suggestion.confidence == pytest.approx(0.9)

    # listed with the smart-labeling suggestions, marked as from production; sent captures say where
    listed = alice.get(f"/api/v1/datasets/{dataset.pk}/suggestions/").json()["results"]
    assert {(s["source"], s["round"], s["label_name"]) for s in listed} == {
        ("capture", None, "7"),
        ("capture", None, "3"),
    }
    assert {(s["deployment"], s["deployment_name"]) for s in listed} == {
        (image_deployment.pk, image_deployment.name)
    }
    assert alice.get(f"/api/v1/datasets/{dataset.pk}/suggestions/?source=smart_round").json()["count"] == 0
    assert alice.get(f"/api/v1/datasets/{dataset.pk}/suggestions/?source=capture").json()["count"] == 2
    shown = alice.get(f"/api/v1/datasets/{dataset.pk}/samples/").json()["results"]
    assert {
        (s["suggestion"]["source"], s["suggestion"]["deployment_name"]) for s in shown if s["suggestion"]
    } == {("capture", image_deployment.name)}
    capture_list = alice.get(f"{base}?sent=true").json()
    assert capture_list["count"] == 3 and {c["sent_to_dataset"] for c in capture_list["results"]} == {
        dataset.pk
    }

    # accepted through the existing suggestion API: the sample gets the label
    accepted = alice.post(
        f"/api/v1/datasets/{dataset.pk}/suggestions/accept/", {"ids": [suggestion.pk]}, format="json"
    )
    assert accepted.status_code == 200 and accepted.json()["accepted"] == 1, accepted.content
    assert Sample.objects.get(pk=suggestion.sample_id).label_id == seven.pk
    assert three.pk in set(Suggestion.objects.filter(dataset=dataset).values_list("label_id", flat=True))

    # again: the sent ones are skipped; without ids, the unsent ones matching the filter go
    again = alice.post(f"{base}send/", {"dataset": dataset.pk, "ids": [rows[0].pk]}, format="json").json()
    assert again["samples_created"] == 0 and again["skipped"][0]["reason"] == "already_sent"
    rest = alice.post(f"{base}send/", {"dataset": dataset.pk, "label": "7"}, format="json").json()
    assert rest["samples_created"] == 1 and rest["suggestions_created"] == 1
    assert Sample.objects.filter(dataset=dataset).count() == 4


@pytest.mark.django_db
def test_send_refuses_a_dataset_of_another_project_task_or_tenant(tenants, api_client, image_deployment):
    from tests.datasets import factories
    from tests.workspaces.factories import project

    alice = api_client(tenants["alice"])
    rows = write_captures(image_deployment, digit_images([0]), [classes("0")])
    url = f"/api/v1/deployments/{image_deployment.pk}/captures/send/"
    other_project = factories.dataset(project(tenants["ws_a"], name="Other"), name="Elsewhere")
    texts = factories.dataset(tenants["project_a"], name="Texts", task_type="text_classification")
    theirs = factories.dataset(tenants["project_b"], name="Bob's")
    for dataset, words in ((other_project, "another project"), (texts, "text classification")):
        refused = alice.post(url, {"dataset": dataset.pk, "ids": [rows[0].pk]}, format="json")
        assert refused.status_code == 400 and words in refused.json()["error"]["message"], refused.content
    refused = alice.post(url, {"dataset": theirs.pk, "ids": [rows[0].pk]}, format="json")
    assert refused.status_code == 400 and "dataset" in refused.json()["error"]["details"]
    unknown = alice.post(url, {"dataset": texts.pk, "ids": [999_999]}, format="json")
    assert unknown.status_code == 400
    assert captured(image_deployment)[0].sent_at is None


@pytest.mark.django_db
def test_send_text_and_row_captures(tenants, api_client):
    """Text captures become text samples; a tabular row becomes a row of the dataset's columns; a
    regression answer becomes the suggested value."""
    from datasets.models import Sample
    from datasets.services.table_imports import import_table
    from labeling.models import Suggestion

    from tests.datasets import factories
    from tests.deploy.factories import deployment as deployment_row
    from tests.training.factories import model_version

    alice = api_client(tenants["alice"])
    project = tenants["project_a"]
    text_deployment = deployment_row(model_version(project, template="text_classification"), name="texts")
    texts = factories.dataset(project, name="Reviews", task_type="text_classification")
    factories.label(texts, "good")
    rows = write_captures(
        text_deployment, ["great phone", "awful battery"], [classes("good"), classes("bad")], data_kind="text"
    )
    listed = alice.get(f"/api/v1/deployments/{text_deployment.pk}/captures/").json()["results"]
    assert {c["text"] for c in listed} == {"great phone", "awful battery"}
    content = alice.get(f"/api/v1/deployments/{text_deployment.pk}/captures/{rows[0].pk}/content/")
    assert content["Content-Type"].startswith("text/plain") and content.content == b"great phone"
    sent = alice.post(
        f"/api/v1/deployments/{text_deployment.pk}/captures/send/", {"dataset": texts.pk}, format="json"
    ).json()
    assert sent["samples_created"] == 2 and sent["suggestions_created"] == 1
    assert sorted(Sample.objects.filter(dataset=texts).values_list("text", flat=True)) == [
        "awful battery",
        "great phone",
    ]

    table = factories.dataset(project, name="Houses", task_type="tabular_regression")
    csv = b"rooms,city,price\n3,Oslo,100\n4,Bergen,150\n5,Oslo,210\n"
    import_table(
        dataset=table,
        upload=factories.upload("houses.csv", csv),
        user=tenants["alice"],
        target_column="price",
    )
    row_deployment = deployment_row(model_version(project, template="tabular_regression"), name="houses")
    row_captures = write_captures(
        row_deployment, [{"rooms": 6, "city": "Oslo"}], [[{"value": 260.5}]], data_kind="row"
    )
    listed = alice.get(f"/api/v1/deployments/{row_deployment.pk}/captures/").json()["results"]
    assert listed[0]["row"] == {"rooms": 6, "city": "Oslo"} and listed[0]["answer"]["value"] == 260.5
    sent = alice.post(
        f"/api/v1/deployments/{row_deployment.pk}/captures/send/",
        {"dataset": table.pk, "ids": [row_captures[0].pk]},
        format="json",
    ).json()
    assert sent["samples_created"] == 1 and sent["suggestions_created"] == 1, sent
    sample = Sample.objects.get(dataset=table, target__isnull=True)
    assert sample.values == {"rooms": 6, "city": "Oslo"}
    assert Suggestion.objects.get(sample=sample).value == 260.5


@pytest.mark.django_db
def test_another_tenant_gets_404_for_captures_and_their_content(tenants, api_client, image_deployment):
    rows = write_captures(image_deployment, digit_images([0]), [classes("0")])
    bob = api_client(tenants["bob"])
    base = f"/api/v1/deployments/{image_deployment.pk}"
    for method, url in (
        ("get", f"{base}/capture/"),
        ("put", f"{base}/capture/"),
        ("get", f"{base}/captures/"),
        ("get", f"{base}/captures/{rows[0].pk}/content/"),
        ("delete", f"{base}/captures/{rows[0].pk}/"),
        ("post", f"{base}/captures/delete/"),
        ("post", f"{base}/captures/send/"),
    ):
        answer = getattr(bob, method)(url, {"all": True}, format="json")
        assert answer.status_code == 404, (method, url, answer.status_code)
    assert default_storage.exists(rows[0].blob_key)
    carol = api_client(tenants["carol"])  # a viewer reads, never deletes
    assert carol.get(f"{base}/captures/{rows[0].pk}/content/").status_code == 200
    assert carol.delete(f"{base}/captures/{rows[0].pk}/").status_code == 403


@pytest.mark.django_db
def test_send_detection_captures_suggests_the_boxes_of_the_datasets_classes(tenants, api_client):
    """A detector's served boxes become the suggestion's boxes (classes mapped by name, a class the
    dataset lacks left out); accepting it through the suggestion API annotates the image."""
    from datasets.models import Annotation, Sample

    from tests.datasets import factories
    from tests.deploy.factories import deployment as deployment_row
    from tests.training.factories import model_version

    alice = api_client(tenants["alice"])
    project = tenants["project_a"]
    detector = deployment_row(model_version(project, template="object_detection"), name="boxes")
    scenes = factories.dataset(project, name="Scenes", task_type="object_detection")
    one = factories.label(scenes, "one")
    answer = {
        "width": 32,
        "height": 32,
        "boxes": [
            {"label": "one", "index": 0, "score": 0.9, "x": 2.0, "y": 3.0, "width": 10.0, "height": 12.0},
            {"label": "two", "index": 1, "score": 0.5, "x": 15.0, "y": 15.0, "width": 5.0, "height": 5.0},
        ],
    }
    rows = write_captures(detector, digit_images([3]), [answer])
    assert (rows[0].top_label, rows[0].top_score) == ("one", 0.9)
    sent = alice.post(
        f"/api/v1/deployments/{detector.pk}/captures/send/", {"dataset": scenes.pk}, format="json"
    ).json()
    assert sent["samples_created"] == 1 and sent["suggestions_created"] == 1, sent
    [suggestion] = alice.get(f"/api/v1/datasets/{scenes.pk}/suggestions/?source=capture").json()["results"]
    assert [(b["label"], b["x"], b["height"]) for b in suggestion["boxes"]] == [(one.pk, 2.0, 12.0)]
    accepted = alice.post(
        f"/api/v1/datasets/{scenes.pk}/suggestions/accept/", {"ids": [suggestion["id"]]}, format="json"
    )
    assert accepted.json()["accepted"] == 1, accepted.content
    sample = Sample.objects.get(dataset=scenes)
    assert sample.annotation_status == "annotated"
    assert list(Annotation.objects.filter(sample=sample).values_list("label__name", flat=True)) == ["one"]


def test_a_full_queue_drops_captures_and_never_blocks_the_request():
    """The writer's queue is bounded: past it, offer() drops the instances (counted) at once."""
    import os
    import queue

    from deploy import capture

    writer = capture.CaptureWriter()
    writer._thread, writer._pid = object(), os.getpid()  # no thread: nothing drains the queue
    writer._queue = queue.Queue(maxsize=2)
    policy = capture.CaptureSnapshot(
        deployment_id=1,
        sample_rate=1.0,
        max_bytes=1 << 30,
        low_confidence_below=None,
        shadow_disagreement=False,
        labels=frozenset(),
    )

    class State:
        id = 1

    State.capture = policy
    original, capture.writer = capture.writer, writer
    try:
        for _ in range(5):
            capture.offer(
                state=State,
                key_id=None,
                model_version=1,
                data_kind="text",
                instances=["a", "b"],
                predictions=[classes("0"), classes("1")],
            )
    finally:
        capture.writer = original
    assert writer._queue.qsize() == 2 and writer.stats["dropped"] == 6
