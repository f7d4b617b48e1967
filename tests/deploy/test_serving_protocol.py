"""workers/serving on its own (no Django): request parsing in every format, errors that name the
problem, and the predictor giving the evaluation's own answers for the same images."""

from __future__ import annotations

import io
import json

import numpy as np
import pytest
from PIL import Image

from tests.deploy.factories import b64, png
from workers.serving.predictors import PREDICTORS, PredictorLoadError, load_predictor
from workers.serving.protocol import PredictionInputError, parse_request, response_body


def parse(content_type, body, **kwargs):
    return parse_request(
        content_type=content_type,
        body=body,
        data_kind=kwargs.pop("data_kind", "image"),
        max_batch=kwargs.pop("max_batch", 4),
        **kwargs,
    )


def refused(content_type, body, **kwargs) -> PredictionInputError:
    with pytest.raises(PredictionInputError) as caught:
        parse(content_type, body, **kwargs)
    return caught.value


def test_json_multipart_and_raw_bodies_give_the_same_images():
    data = png(5)
    from_json = parse(
        "application/json; charset=utf-8",
        json.dumps({"instances": [{"image": b64(data)}], "top_k": 2}).encode(),
    )
    single = parse("application/json", json.dumps({"image": "data:image/png;base64," + b64(data)}).encode())
    boundary = "b0undary"
    multipart = (
        (
            f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="five.png"\r\n'
            f"Content-Type: image/png\r\n\r\n"
        ).encode()
        + data
        + (
            f'\r\n--{boundary}\r\nContent-Disposition: form-data; name="top_k"\r\n\r\n3\r\n--{boundary}--\r\n'
        ).encode()
    )
    from_multipart = parse(f"multipart/form-data; boundary={boundary}", multipart)
    raw = parse("image/png", data, query_top_k="1")
    assert (from_json.top_k, single.top_k, from_multipart.top_k, raw.top_k) == (2, 5, 3, 1)
    pixels = [np.asarray(p.instances[0]) for p in (from_json, single, from_multipart, raw)]
    assert all(np.array_equal(pixels[0], other) for other in pixels[1:])
    assert pixels[0].shape == (32, 32)


def test_exif_orientation_is_applied():
    image = Image.new("RGB", (40, 20), (255, 0, 0))
    exif = Image.Exif()
    exif[0x0112] = 6  # rotate 90 degrees clockwise to display
    out = io.BytesIO()
    image.save(out, "JPEG", exif=exif)
    decoded = parse("image/jpeg", out.getvalue()).instances[0]
    assert decoded.size == (20, 40)


def test_errors_name_the_problem_with_their_status():
    assert refused("application/json", b"").code == "empty_input"
    batch = refused("application/json", json.dumps({"instances": [{"image": b64(png())}] * 5}).encode())
    assert (batch.status, batch.code, batch.details) == (413, "batch_too_large", {"count": 5, "max_batch": 4})
    body = refused("image/png", png(), max_body_bytes=10)
    assert (body.status, body.code) == (413, "body_too_large")
    media = refused("text/csv", b"a,b")
    assert (media.status, media.code) == (415, "unsupported_media_type")
    second = refused(
        "application/json",
        json.dumps({"instances": [{"image": b64(png())}, {"image": b64(b"GIF89a broken")}]}).encode(),
    )
    assert second.code == "invalid_image" and "instances[1].image" in second.message
    pixels = refused("image/png", png(size=64), max_image_pixels=1000)
    assert (pixels.status, pixels.code) == (413, "image_too_large")
    assert (
        refused("application/json", b'{"instances": [{"image": "x"}], "top_k": "many"}').code
        == "invalid_top_k"
    )
    assert refused("multipart/form-data", b"--x\r\n").code == "invalid_multipart"
    assert PredictionInputError(415, "unsupported_media_type", "m").as_dict() == {
        "error": {"code": "unsupported_media_type", "message": "m", "details": {}}
    }


def test_text_and_tabular_instances():
    texts = parse(
        "application/json",
        json.dumps({"instances": [{"text": "good"}, {"text": "bad"}]}).encode(),
        data_kind="text",
    )
    assert texts.instances == ["good", "bad"]
    assert (
        refused("application/json", b'{"instances": [{"text": "  "}]}', data_kind="text").code
        == "empty_input"
    )
    assert refused("image/png", png(), data_kind="text").status == 415
    rows = parse("application/json", b'{"instances": [{"age": 3, "city": "Oslo"}]}', data_kind="tabular")
    assert rows.instances == [{"age": 3, "city": "Oslo"}]


def test_predictor_answers_like_the_evaluation_predictor(trained_digits, tmp_path):
    from workers.image_classification.predictor import ImageClassifier
    from workers.image_classification.preprocessing import open_image

    assert "image_classification" in PREDICTORS
    predictor = load_predictor(trained_digits, threads=1)
    assert predictor.data_kind == "image" and predictor.classes == [str(d) for d in range(10)]
    images = [png(i) for i in range(6)]
    served = predictor.predict(
        parse(
            "application/json",
            json.dumps({"instances": [{"image": b64(d)} for d in images]}).encode(),
            max_batch=8,
        ).instances,
        3,
    )
    reference = ImageClassifier(trained_digits / "model.onnx").predict(
        [open_image(d) for d in images], top_k=3
    )
    assert [[c["index"] for c in row] for row in served] == [[c["index"] for c in row] for row in reference]
    assert np.allclose(
        [[c["score"] for c in row] for row in served],
        [[c["score"] for c in row] for row in reference],
        rtol=1e-5,
        atol=1e-6,
    )
    body = json.loads(
        response_body(
            kind="classification_prediction",
            model_version={"id": 1, "name": "V1", "template": "image_classification"},
            predictions=served,
            latency_ms=0.123456,
        )
    )
    assert body["latency_ms"] == 0.123 and body["predictions"][0]["top_k"] == served[0]
    with pytest.raises(PredictorLoadError):
        load_predictor(tmp_path)
