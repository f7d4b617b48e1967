"""Smart labeling through the SDK on a live platform: too few labels is a typed refusal; a round
waits with its job and answers its summary; the ranking comes back in rank order; accepting by
label and confidence labels those samples, rejecting leaves the rest unlabeled."""

from __future__ import annotations

import pytest

from tests.datasets.factories import digit_bytes, digit_class

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def test_smart_labeling_through_the_sdk(sdk, project, tmp_path):
    import sampan

    folder = tmp_path / "digits"
    for label in ("0", "1"):
        (folder / label).mkdir(parents=True)
    (folder / "0" / "a.png").write_bytes(digit_bytes(0))
    (folder / "1" / "a.png").write_bytes(digit_bytes(1))
    dataset = sdk.datasets.create("Smart digits", project=project)
    dataset.upload(folder, progress=False)
    with pytest.raises(sampan.BadRequest) as refused:
        dataset.smart_label()
    assert refused.value.code == "not_enough_labels"

    # sixteen more zeros and ones, unlabeled; then two more of each class labeled by hand
    picked = [i for i in range(10, 400) if digit_class(i) in (0, 1)][:16]
    dataset.upload([(f"d{i}.png", digit_bytes(i)) for i in picked], progress=False)
    by_name = {s["original_name"]: s for s in dataset.samples()}
    for digit in (0, 1):
        chosen = [by_name[f"d{i}.png"] for i in picked if digit_class(i) == digit][:2]
        dataset.set_labels(chosen, str(digit))

    smart = dataset.smart_label(batch_size=3, progress=False)
    assert isinstance(smart, sampan.SmartRound) and smart.status == "succeeded"
    unlabeled = sum(1 for _ in dataset.samples(unlabeled=True))
    assert smart.summary is not None and smart.summary["unlabeled"] == unlabeled
    assert dataset.smart_rounds()[0].id == smart.id

    ranked = dataset.next_to_label(3)
    assert [s["rank"] for s in ranked] == [1, 2, 3]
    pending = dataset.suggestions(ordering="-confidence")
    assert len(pending) == unlabeled and pending[0]["confidence"] >= pending[-1]["confidence"]

    top = pending[0]
    result = dataset.accept_suggestions(label=top["label_name"], min_confidence=top["confidence"])
    assert result["accepted"] >= 1 and result["skipped"] == []
    labeled = {s["id"]: s for s in dataset.samples(label=top["label_name"])}
    assert top["sample"]["id"] in labeled
    assert dataset.activity(sample=top["sample"]["id"])[0]["source"] == "suggestion"

    left = dataset.suggestions()
    assert dataset.reject_suggestions(left) == {"rejected": len(left)}
    assert dataset.suggestions() == [] and len(dataset.suggestions(status="rejected")) == len(left)
