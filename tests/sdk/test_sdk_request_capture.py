"""Request capture through the SDK against the live platform (gunicorn, whose background writer keeps
the inputs): turn it on, predict, list and read what was kept, send it to a dataset (unlabeled samples
with suggestions from production), accept one, filter, delete with the inputs."""

from __future__ import annotations

import io

import pytest
import sampan
from PIL import Image

from tests.sdk.onnx_models import PLAIN, brightness_classifier

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def png(value: int, size: int = 20) -> bytes:
    out = io.BytesIO()
    Image.new("L", (size, size), value).save(out, "PNG")
    return out.getvalue()


def test_capture_send_to_dataset_accept_and_delete(sdk, project, tmp_path):
    model = sdk.model_versions.upload_onnx(
        brightness_classifier(tmp_path / "brightness.onnx"),
        project=project,
        classes=["dark", "bright"],
        preprocessing=PLAIN,
    )
    deployment = model.deploy("brightness")
    deployment.create_key("capture")

    assert deployment.capture_policy()["enabled"] is False  # off by default
    deployment.predict(png(0))
    assert deployment.captures(wait=1.5) == []

    policy = deployment.set_capture(enabled=True, sample_rate=1.0, labels=["dark"])
    assert policy["enabled"] and policy["labels"] == ["dark"] and policy["sample_rate"] == 1.0
    answers = deployment.predict_batch([png(0), png(255), png(0, size=24)])
    assert [a.label for a in answers] == ["dark", "bright", "dark"]
    kept = deployment.captures(wait=10)
    for _ in range(50):  # the batch is written at once, but poll until both rows are there
        if len(kept) == 2:
            break
        kept = deployment.captures(wait=1)
    assert [(c["reason"], c["answer"]["label"]) for c in kept] == [("label", "dark")] * 2
    assert deployment.captures(reason="sampled") == [] and len(deployment.captures(label="dark")) == 2
    stored = Image.open(io.BytesIO(deployment.capture_content(kept[0])))
    assert stored.format == "PNG" and stored.size == (24, 24)  # newest first: the batch's last

    inbox = sdk.datasets.create("from production", project=project)
    inbox.create_label("dark")
    sent = deployment.send_captures(inbox, kept)
    assert sent["samples_created"] == 2 and sent["suggestions_created"] == 2 and sent["skipped"] == []
    assert {c["sent_to_dataset"] for c in deployment.captures(sent=True)} == {inbox.id}
    production = inbox.suggestions(source="capture")
    assert {(s["source"], s["deployment_name"], s["label_name"]) for s in production} == {
        ("capture", "brightness", "dark")
    }
    assert inbox.suggestions(source="smart_round") == []
    assert inbox.accept_suggestions(production[:1])["accepted"] == 1
    assert [s["label_name"] for s in inbox.samples() if s["label_name"]] == ["dark"]

    again = deployment.send_captures(inbox, kept[:1])
    assert again["samples_created"] == 0 and again["skipped"][0]["reason"] == "already_sent"
    with pytest.raises(sampan.BadRequest):
        deployment.set_capture(sample_rate=2)
    assert deployment.delete_captures(all=True) == 2
    assert deployment.captures() == [] and deployment.capture_policy()["stored_count"] == 0
