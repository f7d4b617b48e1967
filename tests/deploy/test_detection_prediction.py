"""A deployed detector answers through the hosted API and both try routes: ``kind``
``detection_prediction``, each image's boxes in its original pixels (the Detector's own answer),
``score_threshold`` / ``max_detections`` from the JSON body, multipart fields or the query string,
``top_k`` ignored, and a bad value refused with a 400 naming the field.

The model is a constant detector (tests/workers/detection_models.py): fixed heatmaps whatever the
image, so the expected boxes are known exactly without training."""

from __future__ import annotations

import io
import json

import pytest
from PIL import Image

from tests.deploy.factories import b64, deployment_with_key
from tests.workers.detection_models import constant_detector

pytestmark = [pytest.mark.django_db]

CLASSES = ["猫", "dog"]
# (class, score, x, y, width, height) in the model's 64 x 64 input; centres in distinct cells
BOXES = [(0, 0.9, 8, 8, 20, 16), (1, 0.6, 36, 36, 16, 20), (0, 0.2, 44, 4, 12, 8)]
WIDTH, HEIGHT = 128, 96  # the request's image: boxes come back scaled by 2 and 1.5


def image_bytes(fmt: str = "PNG") -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (WIDTH, HEIGHT), (120, 80, 40)).save(out, fmt)
    return out.getvalue()


@pytest.fixture
def detector_dir(tmp_path):
    return constant_detector(tmp_path / "detector", CLASSES, BOXES)


@pytest.fixture
def detector_version(tenants, detector_dir):
    from tests.training.factories import model_version

    return model_version(
        tenants["project_a"],
        template="object_detection",
        onnx=(detector_dir / "model.onnx").read_bytes(),
        classes=CLASSES,
        preprocessing=json.loads((detector_dir / "preprocess.json").read_text()),
        metrics={"test": {"map": 0.5, "map50": 0.8, "map75": 0.4}},
    )


def post_json(client, url: str, payload, **extra):
    return client.post(url, data=json.dumps(payload), content_type="application/json", **extra)


def scaled(box) -> dict:
    label, score, x, y, w, h = box
    sx, sy = WIDTH / 64, HEIGHT / 64
    return {
        "index": label,
        "label": CLASSES[label],
        "x": x * sx,
        "y": y * sy,
        "width": w * sx,
        "height": h * sy,
    }


def assert_boxes(prediction: dict, expected: list) -> None:
    assert (prediction["width"], prediction["height"]) == (WIDTH, HEIGHT)
    got = prediction["boxes"]
    assert [b["index"] for b in got] == [e[0] for e in expected], got
    assert [b["score"] for b in got] == pytest.approx([e[1] for e in expected], abs=1e-5)
    for box, want in zip(got, expected, strict=True):
        for key, value in scaled(want).items():
            assert box[key] == (pytest.approx(value, abs=1e-3) if isinstance(value, float) else value), key


def test_hosted_detector_answers_boxes_in_original_pixels_with_its_options(
    tenants, api_client, detector_version, detector_dir
):
    from workers.object_detection.predictor import Detector

    deployment, _, secret = deployment_with_key(tenants, detector_version, name="boxes")
    url = f"/api/v1/deployments/{deployment.pk}/predict/"
    client = api_client()
    auth = {"HTTP_AUTHORIZATION": f"Bearer {secret}"}

    # JSON, defaults: score_threshold 0.3 leaves the 0.2 box out; top_k is ignored
    answer = post_json(client, url, {"instances": [{"image": b64(image_bytes())}] * 2, "top_k": 1}, **auth)
    assert answer.status_code == 200, answer.content
    body = answer.json()
    assert body["kind"] == "detection_prediction" and body["version"] == 1
    assert body["model_version"] == {"id": detector_version.pk, "name": "V1", "template": "object_detection"}
    assert len(body["predictions"]) == 2
    for prediction in body["predictions"]:
        assert_boxes(prediction, BOXES[:2])
    # the same as the Detector's own answer on the decoded image (one predictor for every caller)
    own = Detector(detector_dir).detect([Image.open(io.BytesIO(image_bytes()))])
    assert body["predictions"][0] == json.loads(json.dumps(own[0]))

    # options in the body
    low = post_json(
        client, url, {"image": b64(image_bytes()), "score_threshold": 0.1, "max_detections": 2}, **auth
    )
    assert low.status_code == 200, low.content
    assert_boxes(low.json()["predictions"][0], BOXES[:2])
    everything = post_json(
        client, url, {"instances": [{"image": b64(image_bytes())}], "score_threshold": 0.05}, **auth
    )
    assert_boxes(everything.json()["predictions"][0], BOXES)

    # options as multipart fields, and as query parameters of a raw JPEG body (the body wins over the query)
    multipart = client.post(
        url + "?score_threshold=0.95",
        {"file": io.BytesIO(image_bytes()), "score_threshold": "0.5", "max_detections": "1"},
        **auth,
    )
    assert multipart.status_code == 200, multipart.content
    assert_boxes(multipart.json()["predictions"][0], BOXES[:1])
    raw = client.post(
        url + "?score_threshold=0.15&max_detections=3&top_k=1",
        data=image_bytes("JPEG"),
        content_type="image/jpeg",
        **auth,
    )
    assert raw.status_code == 200, raw.content
    assert_boxes(raw.json()["predictions"][0], BOXES)
    nothing = client.post(url + "?score_threshold=1", data=image_bytes(), content_type="image/png", **auth)
    assert nothing.json()["predictions"][0]["boxes"] == []


@pytest.mark.parametrize(
    ("where", "options", "code", "field"),
    [
        ("body", {"score_threshold": 1.5}, "invalid_score_threshold", "score_threshold"),
        ("body", {"score_threshold": "high"}, "invalid_score_threshold", "score_threshold"),
        ("body", {"score_threshold": True}, "invalid_score_threshold", "score_threshold"),
        ("body", {"max_detections": 0}, "invalid_max_detections", "max_detections"),
        ("body", {"max_detections": 1001}, "invalid_max_detections", "max_detections"),
        ("body", {"max_detections": 2.5}, "invalid_max_detections", "max_detections"),
        ("query", {"score_threshold": "-0.1"}, "invalid_score_threshold", "score_threshold"),
        ("query", {"max_detections": "many"}, "invalid_max_detections", "max_detections"),
    ],
)
def test_bad_detector_options_are_refused_naming_the_field(
    tenants, api_client, detector_version, where, options, code, field
):
    deployment, _, secret = deployment_with_key(tenants, detector_version, name="bad options")
    url = f"/api/v1/deployments/{deployment.pk}/predict/"
    payload = {"instances": [{"image": b64(image_bytes())}]}
    if where == "body":
        payload.update(options)
    else:
        url += "?" + "&".join(f"{k}={v}" for k, v in options.items())
    refused = post_json(api_client(), url, payload, HTTP_AUTHORIZATION=f"Bearer {secret}")
    assert refused.status_code == 400, refused.content
    error = refused.json()["error"]
    assert error["code"] == code and error["details"]["field"] == field and field in error["message"]


def test_try_routes_answer_a_detector_as_the_hosted_api_does(tenants, api_client, detector_version):
    deployment, _, secret = deployment_with_key(tenants, detector_version, name="try boxes")
    payload = {"instances": [{"image": b64(image_bytes())}], "score_threshold": 0.1, "max_detections": 5}
    hosted = post_json(
        api_client(),
        f"/api/v1/deployments/{deployment.pk}/predict/",
        payload,
        HTTP_AUTHORIZATION=f"Bearer {secret}",
    ).json()
    viewer = api_client(tenants["alice"])
    for url in (
        f"/api/v1/model-versions/{detector_version.pk}/try/",
        f"/api/v1/deployments/{deployment.pk}/try/",
    ):
        tried = post_json(viewer, url, payload)
        assert tried.status_code == 200, (url, tried.content)
        assert tried.json()["kind"] == "detection_prediction"
        assert tried.json()["predictions"] == hosted["predictions"]
        assert_boxes(tried.json()["predictions"][0], BOXES)
    body_wins = post_json(
        viewer, f"/api/v1/model-versions/{detector_version.pk}/try/?max_detections=0", payload
    )
    assert body_wins.status_code == 200, "a value in the body wins over the query string"
    bad = post_json(viewer, f"/api/v1/deployments/{deployment.pk}/try/", {**payload, "max_detections": -1})
    assert bad.status_code == 400 and bad.json()["error"]["code"] == "invalid_max_detections"
