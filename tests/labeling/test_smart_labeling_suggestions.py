"""Smart labeling without a worker: a round is refused before anything is queued when it cannot
work, one round runs at a time, and the job's body (run here in-process, the real compute plane on
real digits) stores a ranked suggestion for every unlabeled sample. Accepting labels samples through
the activity log, never over a person's label; rejecting leaves them unlabeled; a later round
supersedes what is still pending."""

from __future__ import annotations

import pytest
from datasets.models import Label, Sample, SampleActivity
from jobs.models import Job
from jobs.services import job_claim, job_fail
from labeling.models import SmartLabelingRound, Suggestion
from labeling.services.smart import smart_round_run

from tests.datasets.factories import dataset_with_samples

pytestmark = pytest.mark.django_db


def url(dataset, tail: str = "") -> str:
    return f"/api/v1/datasets/{dataset.pk}/{tail}"


def events():
    seen: list[tuple[str, float | None]] = []

    def report(message: str = "", *, fraction=None, milestone=False, **metrics):
        seen.append((message, fraction))

    return report, seen


def run_round(round_id: int):
    """The job's body as the worker runs it (the runner's claim and heartbeats aside)."""
    report, seen = events()
    smart_round = SmartLabelingRound.objects.get(pk=round_id)
    result = smart_round_run(round_id=round_id, job=smart_round.job, report=report)
    return result, seen


@pytest.fixture
def few_digits(tenants, isolated_storage):
    """Three digit classes, three labeled samples each, and 12 unlabeled digits."""
    return dataset_with_samples(
        user=tenants["alice"],
        project=tenants["project_a"],
        name="Few",
        per_class=3,
        classes=range(3),
        unlabeled=12,
    )


def test_a_round_is_refused_before_anything_is_queued(tenants, api_client, isolated_storage):
    alice = api_client(tenants["alice"])
    thin = dataset_with_samples(
        user=tenants["alice"],
        project=tenants["project_a"],
        name="Thin",
        per_class=1,
        classes=range(4),
        unlabeled=3,
    )
    refused = alice.post(url(thin, "smart-labeling/"), {}, format="json")
    assert refused.status_code == 400, refused.content
    assert refused.json()["error"]["code"] == "not_enough_labels"
    assert "at least 2 classes" in refused.json()["error"]["message"]

    full = dataset_with_samples(
        user=tenants["alice"], project=tenants["project_a"], name="Full", per_class=2, classes=range(2)
    )
    nothing = alice.post(url(full, "smart-labeling/"), {}, format="json")
    assert nothing.status_code == 400 and nothing.json()["error"]["code"] == "nothing_to_suggest"

    bad = alice.post(url(full, "smart-labeling/"), {"batch_size": 501}, format="json")
    assert bad.status_code == 400 and "batch_size" in bad.json()["error"]["details"]
    viewer = api_client(tenants["carol"]).post(url(thin, "smart-labeling/"), {}, format="json")
    assert viewer.status_code == 403
    stranger = api_client(tenants["bob"]).post(url(thin, "smart-labeling/"), {}, format="json")
    assert stranger.status_code == 404
    assert not Job.objects.filter(kind="labeling.smart_round").exists()
    assert not SmartLabelingRound.objects.exists()


def test_one_round_at_a_time(few_digits, tenants, api_client):
    alice = api_client(tenants["alice"])
    first = alice.post(url(few_digits, "smart-labeling/"), {"batch_size": 5}, format="json")
    assert first.status_code == 202, first.content
    body = first.json()
    assert body["number"] == 1 and body["status"] == "queued" and body["params"]["batch_size"] == 5
    job = Job.objects.get(pk=body["job"])
    assert job.kind == "labeling.smart_round" and job.params == {"smart_round": body["id"]}

    busy = alice.post(url(few_digits, "smart-labeling/"), {}, format="json")
    assert busy.status_code == 409 and busy.json()["error"]["code"] == "round_running"

    # a job that ended without the round hearing of it (the reaper failed it) frees the dataset
    claimed = job_claim(job_id=job.pk, worker="elsewhere/1")
    assert claimed is not None and job_fail(job=claimed, error="worker lost")
    listed = alice.get(url(few_digits, "smart-labeling/")).json()["results"]
    assert [(r["number"], r["status"], r["error"]) for r in listed] == [(1, "failed", "worker lost")]
    second = alice.post(url(few_digits, "smart-labeling/"), {}, format="json")
    assert second.status_code == 202 and second.json()["number"] == 2


def test_suggestions_are_ranked_and_accepting_never_overwrites_a_person(few_digits, tenants, api_client):
    alice = api_client(tenants["alice"])
    started = alice.post(
        url(few_digits, "smart-labeling/"), {"batch_size": 4, "seed": 3}, format="json"
    ).json()
    result, seen = run_round(started["id"])
    unlabeled = set(Sample.objects.filter(dataset=few_digits, label=None).values_list("pk", flat=True))
    assert result["suggestions"] == len(unlabeled) == 12 and seen[0][0] == "reading the dataset"

    smart_round = alice.get(url(few_digits, f"smart-labeling/{started['id']}/")).json()
    assert smart_round["status"] == "succeeded" and smart_round["finished_at"]
    summary = smart_round["summary"]
    assert (summary["labeled"], summary["unlabeled"], summary["ranked"]) == (9, 12, 4)
    assert sum(summary["confidence_histogram"]) == 12 == sum(summary["per_class_suggested"])

    page = alice.get(url(few_digits, "suggestions/")).json()
    assert page["count"] == 12 and {s["sample"]["id"] for s in page["results"]} == unlabeled
    assert [s["rank"] for s in page["results"][:4]] == [1, 2, 3, 4]
    assert all(s["rank"] is None for s in page["results"][4:])
    ranked = alice.get(url(few_digits, "suggestions/"), {"ranked": "true"}).json()["results"]
    assert [s["id"] for s in ranked] == [s["id"] for s in page["results"][:4]]
    labels = {label.pk: label.name for label in Label.objects.filter(dataset=few_digits)}
    first = page["results"][0]
    assert first["label_name"] == labels[first["label"]] and 0 < first["confidence"] <= 1
    assert first["scores"][0] == {"label": first["label"], "score": pytest.approx(first["confidence"])}
    assert first["sample"]["thumbnail_url"].endswith(f"/samples/{first['sample']['id']}/thumbnail/")

    # the sample list shows each unlabeled sample's suggestion, a labeled one none
    samples = {s["id"]: s for s in alice.get(url(few_digits, "samples/")).json()["results"]}
    assert all(samples[pk]["suggestion"]["round"] == started["id"] for pk in unlabeled)
    assert all(s["suggestion"] is None for pk, s in samples.items() if pk not in unlabeled)

    # a person labels one of them by hand: its suggestion is no longer offered, and accepting it is skipped
    by_hand, other = page["results"][0], page["results"][1]
    other_label = next(pk for pk in labels if pk != by_hand["label"])
    sample = samples[by_hand["sample"]["id"]]
    patched = alice.patch(
        url(few_digits, f"samples/{sample['id']}/"),
        {"label": other_label, "label_version": sample["label_version"]},
        format="json",
    )
    assert patched.status_code == 200, patched.content
    assert alice.get(url(few_digits, "suggestions/")).json()["count"] == 11
    viewer = api_client(tenants["carol"]).post(url(few_digits, "suggestions/accept/"), {"ids": [other["id"]]})
    assert viewer.status_code == 403
    accepted = alice.post(
        url(few_digits, "suggestions/accept/"), {"ids": [by_hand["id"], other["id"]]}, format="json"
    )
    assert accepted.status_code == 200, accepted.content
    assert accepted.json() == {"accepted": 1, "skipped": [{"id": by_hand["id"], "reason": "human_labeled"}]}
    assert Sample.objects.get(pk=sample["id"]).label_id == other_label  # the person's label stays
    labeled = Sample.objects.get(pk=other["sample"]["id"])
    assert labeled.label_id == other["label"]
    activity = SampleActivity.objects.get(sample=labeled)
    assert (activity.source, activity.actor, activity.after["label"]) == (
        "suggestion",
        tenants["alice"],
        other["label"],
    )
    again = alice.post(url(few_digits, "suggestions/accept/"), {"ids": [other["id"]]}, format="json").json()
    assert again == {"accepted": 0, "skipped": [{"id": other["id"], "reason": "not_pending"}]}

    # reject by filter: everything pending of one label; those samples stay unlabeled
    pending = alice.get(url(few_digits, "suggestions/")).json()["results"]
    some_label = pending[0]["label"]
    of_label = [s for s in pending if s["label"] == some_label]
    rejected = alice.post(url(few_digits, "suggestions/reject/"), {"label": some_label}, format="json").json()
    assert rejected == {"rejected": len(of_label)}
    assert Sample.objects.filter(pk__in=[s["sample"]["id"] for s in of_label], label=None).count() == len(
        of_label
    )
    statuses = alice.get(url(few_digits, "suggestions/"), {"status": "rejected"}).json()
    assert statuses["count"] == len(of_label)

    # a second round supersedes what the first left pending
    left = alice.get(url(few_digits, "suggestions/")).json()["count"]
    second = alice.post(url(few_digits, "smart-labeling/"), {"batch_size": 2}, format="json").json()
    run_round(second["id"])
    first_round = Suggestion.objects.filter(round_id=started["id"])
    # (and the one labeled by hand was superseded when accepting it was skipped)
    assert first_round.filter(status="superseded").count() == left + 1
    assert first_round.get(pk=by_hand["id"]).status == "superseded"
    assert not first_round.filter(status="pending").exists()
    assert {s["round"] for s in alice.get(url(few_digits, "suggestions/")).json()["results"]} == {
        second["id"]
    }


def test_accept_by_confidence_for_one_class(few_digits, tenants, api_client):
    alice = api_client(tenants["alice"])
    started = alice.post(url(few_digits, "smart-labeling/"), {}, format="json").json()
    run_round(started["id"])
    pending = alice.get(url(few_digits, "suggestions/"), {"ordering": "-confidence"}).json()["results"]
    confidences = [s["confidence"] for s in pending]
    assert confidences == sorted(confidences, reverse=True)
    label = pending[0]["label"]
    threshold = pending[0]["confidence"] - 1e-6
    wanted = [s for s in pending if s["label"] == label and s["confidence"] >= threshold]
    body = {"label": label, "min_confidence": threshold}
    accepted = alice.post(url(few_digits, "suggestions/accept/"), body, format="json").json()
    assert accepted == {"accepted": len(wanted), "skipped": []}
    assert set(
        Sample.objects.filter(pk__in=[s["sample"]["id"] for s in wanted]).values_list("label", flat=True)
    ) == {label}
    empty = alice.post(url(few_digits, "suggestions/accept/"), {}, format="json")
    assert empty.status_code == 400 and "ids" in empty.json()["error"]["details"]


def test_accepting_suggested_boxes_clips_them_and_drops_low_scores(tenants, api_client):
    from datasets.services.annotations import annotations_write

    from tests.datasets import factories

    alice = api_client(tenants["alice"])
    scenes = factories.dataset(tenants["project_a"], name="Scenes", task_type="object_detection")
    one, two = factories.label(scenes, "one"), factories.label(scenes, "two")
    busy, empty, human = (factories.sample(scenes, width=32, height=32) for _ in range(3))
    box = {"kind": "box", "label": "one", "geometry": {"x": 1, "y": 1, "width": 8, "height": 8}}
    annotations_write(
        dataset=scenes, sample_id=human.pk, revision=0, annotations=[box], actor=tenants["alice"]
    )
    refused = alice.post(url(scenes, "smart-labeling/"), {}, format="json")
    assert refused.status_code == 400 and refused.json()["error"]["code"] == "not_enough_labels"

    smart_round = SmartLabelingRound.objects.create(dataset=scenes, number=1, status="succeeded")

    def suggest(sample, boxes):
        return Suggestion.objects.create(
            round=smart_round, dataset=scenes, sample=sample, boxes=boxes, confidence=0.5
        )

    on_busy = suggest(
        busy,
        [
            {"label": one.pk, "x": 2, "y": 2, "width": 10, "height": 10, "score": 0.9},
            {"label": two.pk, "x": 25, "y": 25, "width": 20, "height": 20, "score": 0.6},  # over the edge
            {"label": one.pk, "x": 0, "y": 0, "width": 5, "height": 5, "score": 0.2},
        ],
    )
    on_empty = suggest(empty, [{"label": two.pk, "x": 3, "y": 3, "width": 9, "height": 9, "score": 0.1}])
    on_human = suggest(human, [{"label": two.pk, "x": 3, "y": 3, "width": 9, "height": 9, "score": 0.99}])
    listed = alice.get(url(scenes, f"samples/{busy.pk}/")).json()["suggestion"]
    assert listed["id"] == on_busy.pk and len(listed["boxes"]) == 3

    body = {"ids": [on_busy.pk, on_empty.pk, on_human.pk], "min_score": 0.5}
    accepted = alice.post(url(scenes, "suggestions/accept/"), body, format="json")
    assert accepted.status_code == 200, accepted.content
    assert accepted.json() == {"accepted": 2, "skipped": [{"id": on_human.pk, "reason": "human_labeled"}]}
    boxes = alice.get(url(scenes, f"samples/{busy.pk}/annotations/")).json()
    assert boxes["status"] == "annotated"
    assert [(a["label"], a["geometry"]) for a in boxes["annotations"]] == [
        ("one", {"x": 2.0, "y": 2.0, "width": 10.0, "height": 10.0}),
        ("two", {"x": 25.0, "y": 25.0, "width": 7.0, "height": 7.0}),
    ]
    assert Sample.objects.get(pk=empty.pk).annotation_status == "no_objects"
    assert SampleActivity.objects.get(sample=busy).source == "suggestion"
    kept = alice.get(url(scenes, f"samples/{human.pk}/annotations/")).json()
    assert [a["label"] for a in kept["annotations"]] == ["one"]  # the person's box stays
    assert alice.get(url(scenes, f"samples/{busy.pk}/")).json()["suggestion"] is None


@pytest.mark.slow  # the MiniLM encoder on CPU: ~5 s idle, over 20 s on a loaded machine
def test_texts_get_suggestions_from_their_embeddings(tenants, api_client):
    from tests.datasets import factories
    from tests.templates_text.corpus import balanced

    alice = api_client(tenants["alice"])
    texts = factories.dataset(tenants["project_a"], name="Docstrings", task_type="text_classification")
    rows = balanced(8)
    labels = {area: factories.label(texts, area) for area in sorted({area for _, area in rows})}
    seen: dict[str, int] = {}
    truth = {}
    for text, area in rows:
        seen[area] = seen.get(area, 0) + 1
        labeled = seen[area] <= 3  # three labels per area, the rest unlabeled
        sample = factories.sample(texts, label=labels[area] if labeled else None, text=text, format="TEXT")
        if not labeled:
            truth[sample.pk] = area
    started = alice.post(url(texts, "smart-labeling/"), {"batch_size": 5}, format="json")
    assert started.status_code == 202, started.content
    result, _ = run_round(started.json()["id"])
    assert result["suggestions"] == len(truth)
    pending = alice.get(url(texts, "suggestions/"), {"page_size": 500}).json()["results"]
    assert {s["sample"]["id"] for s in pending} == set(truth)
    assert all(s["sample"]["text"] for s in pending)
    right = sum(s["label_name"] == truth[s["sample"]["id"]] for s in pending)
    assert right > len(truth) / len(labels), f"{right} of {len(truth)} right: no better than chance"


def test_a_round_whose_data_changed_before_it_ran_fails_with_the_reason(few_digits, tenants, api_client):
    from datasets.services.labels import samples_set_labels
    from jobs.runner import JobInputRejected

    alice = api_client(tenants["alice"])
    started = alice.post(url(few_digits, "smart-labeling/"), {}, format="json").json()
    label = Label.objects.filter(dataset=few_digits).first()
    changes = [
        {"id": pk, "label": label.pk, "label_version": version}
        for pk, version in Sample.objects.filter(dataset=few_digits, label=None).values_list(
            "pk", "label_version"
        )
    ]
    samples_set_labels(dataset=few_digits, changes=changes, actor=tenants["alice"], source="bulk")
    with pytest.raises(JobInputRejected):  # the runner records it as the job's error, no traceback
        run_round(started["id"])
    failed = alice.get(url(few_digits, f"smart-labeling/{started['id']}/")).json()
    assert failed["status"] == "failed" and "nothing to suggest" in failed["error"], failed
    assert failed["summary"] is None and not Suggestion.objects.exists()
