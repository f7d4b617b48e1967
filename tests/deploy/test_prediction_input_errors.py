"""Bad prediction requests get a 4xx naming the problem, from the real web process: corrupt images,
empty input, bad base64, wrong content type, oversized bodies, batches and images."""

from __future__ import annotations

import json

import pytest
import requests

from tests.datasets.factories import pixel_flood_png
from tests.deploy.factories import b64, deployment_with_key, model_version_from, png

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def endpoint(live_web, tenants, trained_digits):
    deployment, _, secret = deployment_with_key(tenants, model_version_from(tenants, trained_digits))
    url = f"{live_web}/api/v1/deployments/{deployment.pk}/predict/"

    def send(*, content_type: str | None = "application/json", data: bytes = b"", **kwargs):
        headers = {"Authorization": f"Bearer {secret}"}
        if content_type is not None:
            headers["Content-Type"] = content_type
        return requests.post(url, data=data, headers=headers, timeout=30, **kwargs)

    return send


def error_of(response, status: int) -> dict:
    assert response.status_code == status, (response.status_code, response.text[:300])
    assert response.headers["Content-Type"].startswith("application/json")
    error = response.json()["error"]
    assert set(error) == {"code", "message", "details"} and error["message"]
    return error


def as_json(instances, **extra) -> bytes:
    return json.dumps({"instances": instances, **extra}).encode()


def test_bad_json_and_instances_are_400(endpoint):
    assert error_of(endpoint(data=b"{not json"), 400)["code"] == "invalid_json"
    assert error_of(endpoint(data=b"[1, 2]"), 400)["code"] == "invalid_json"
    empty = error_of(endpoint(data=as_json([])), 400)
    assert empty["code"] == "empty_input" and "no instances" in empty["message"]
    assert error_of(endpoint(data=b"{}"), 400)["code"] == "empty_input"
    assert error_of(endpoint(data=b""), 400)["code"] == "empty_input"
    assert error_of(endpoint(data=as_json([{"text": "x"}])), 400)["code"] == "invalid_instance"
    assert error_of(endpoint(data=as_json("abc")), 400)["code"] == "invalid_instance"
    bad_b64 = error_of(endpoint(data=as_json([{"image": b64(png())}, {"image": "@@not base64@@"}])), 400)
    assert bad_b64["code"] == "invalid_base64" and "instances[1].image" in bad_b64["message"]
    assert error_of(endpoint(data=as_json([{"image": 12}])), 400)["code"] == "invalid_base64"
    top_k = error_of(endpoint(data=as_json([{"image": b64(png())}], top_k=0)), 400)
    assert top_k["code"] == "invalid_top_k" and top_k["details"]["field"] == "top_k"


def test_corrupt_and_non_images_are_400_by_name(endpoint):
    not_image = error_of(endpoint(data=as_json([{"image": b64(b"just some text, not pixels")}])), 400)
    assert not_image["code"] == "invalid_image" and "instances[0].image" in not_image["message"]
    truncated = error_of(endpoint(content_type="image/png", data=png()[:70]), 400)
    assert truncated["code"] == "invalid_image"
    files = [
        ("file", ("good.png", png(), "image/png")),
        ("file", ("broken.png", b"\x89PNG broken", "image/png")),
    ]
    multipart = requests.Request("POST", "http://x", files=files).prepare()
    broken = error_of(endpoint(content_type=multipart.headers["Content-Type"], data=multipart.body), 400)
    assert broken["code"] == "invalid_image" and "broken.png" in broken["message"]
    no_file = requests.Request("POST", "http://x", files=[("other", ("a.png", png(), "image/png"))]).prepare()
    assert (
        error_of(endpoint(content_type=no_file.headers["Content-Type"], data=no_file.body), 400)["code"]
        == "empty_input"
    )


def test_wrong_content_type_is_415(endpoint):
    error = error_of(endpoint(content_type="text/plain", data=b"hello"), 415)
    assert error["code"] == "unsupported_media_type" and "text/plain" in error["message"]
    assert error_of(endpoint(content_type=None, data=b"hello"), 415)["code"] == "unsupported_media_type"


def test_oversized_body_batch_and_image_are_413(endpoint, settings):
    big = endpoint(content_type="image/png", data=b"\0" * (settings.SAMPAN_MAX_REQUEST_BYTES + 1))
    assert error_of(big, 413)["code"] in ("request_too_large", "body_too_large")
    batch = error_of(endpoint(data=as_json([{"image": b64(png(i))} for i in range(33)])), 413)
    assert batch["code"] == "batch_too_large" and batch["details"] == {"count": 33, "max_batch": 32}
    flood = error_of(endpoint(content_type="image/png", data=pixel_flood_png()), 413)
    assert flood["code"] == "image_too_large" and "pixel" in flood["message"]
    # the endpoint still answers after all of that
    assert endpoint(data=as_json([{"image": b64(png())}])).status_code == 200


def test_other_methods_are_405(live_web):
    response = requests.get(f"{live_web}/api/v1/deployments/1/predict/", timeout=10)
    assert error_of(response, 405)["code"] == "method_not_allowed"
