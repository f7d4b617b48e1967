"""Trying a model signed in, without a deployment or a key (EasyDL's 校验模型): POST
/api/v1/model-versions/{id}/try/ and the deployment's own POST /api/v1/deployments/{id}/try/ answer
with the hosted endpoint's predictor, parser, limits and error codes; the model version's try records
no usage anywhere; workspace members (viewers too) may try, anyone else gets a 404."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import requests

from tests.deploy.factories import b64, deployment_with_key, model_version_from, png

pytestmark = [pytest.mark.django_db]


def post_json(client, url: str, payload, **extra):
    return client.post(url, data=json.dumps(payload), content_type="application/json", **extra)


def error_of(response, status: int) -> dict:
    assert response.status_code == status, (response.status_code, response.content[:300])
    error = response.json()["error"]
    assert set(error) == {"code", "message", "details"} and error["message"]
    return error


@pytest.fixture
def digits_version(tenants, trained_digits):
    return model_version_from(tenants, trained_digits)


def try_url(mv) -> str:
    return f"/api/v1/model-versions/{mv.pk}/try/"


def test_try_answers_as_the_hosted_api_does_and_records_no_usage(tenants, api_client, digits_version):
    from deploy.models import UsageMinute
    from deploy.usage import recorder

    deployment, _, secret = deployment_with_key(tenants, digits_version)
    recorder.flush()
    before = UsageMinute.objects.filter(deployment=deployment).count()
    payload = {"instances": [{"image": b64(png(i))} for i in range(4)], "top_k": 3}

    tried = post_json(api_client(tenants["alice"]), try_url(digits_version), payload)
    assert tried.status_code == 200, tried.content
    assert tried["X-Sampan-Model-Version"] == str(digits_version.pk)
    hosted = post_json(
        api_client(),
        f"/api/v1/deployments/{deployment.pk}/predict/",
        payload,
        HTTP_AUTHORIZATION=f"Bearer {secret}",
    )
    assert hosted.status_code == 200, hosted.content
    mine, theirs = tried.json(), hosted.json()
    assert (
        mine["kind"] == theirs["kind"] == "classification_prediction" and mine["version"] == theirs["version"]
    )
    assert (
        mine["model_version"]
        == theirs["model_version"]
        == {
            "id": digits_version.pk,
            "name": "V1",
            "template": "image_classification",
        }
    )
    for a, b in zip(mine["predictions"], theirs["predictions"], strict=True):
        assert [c["label"] for c in a["top_k"]] == [c["label"] for c in b["top_k"]]
        assert np.allclose([c["score"] for c in a["top_k"]], [c["score"] for c in b["top_k"]], atol=1e-6)
    # multipart file parts and a raw image body (top_k from the query) work as on the hosted API
    alice = api_client(tenants["alice"])
    files = requests.Request(
        "POST", "http://x", files=[("file", ("3.png", png(3), "image/png"))], data={"top_k": "2"}
    ).prepare()
    multipart = alice.generic(
        "POST", try_url(digits_version), files.body, content_type=files.headers["Content-Type"]
    )
    assert multipart.status_code == 200, multipart.content
    assert len(multipart.json()["predictions"][0]["top_k"]) == 2
    raw = alice.generic("POST", try_url(digits_version) + "?top_k=1", png(3), content_type="image/png")
    assert raw.status_code == 200, raw.content
    assert (
        raw.json()["predictions"][0]["top_k"][0]["label"]
        == multipart.json()["predictions"][0]["top_k"][0]["label"]
    )

    # only the hosted call counts in the deployment's usage
    recorder.flush()
    rows = UsageMinute.objects.filter(deployment=deployment)
    assert rows.count() == before + 1 and sum(r.calls for r in rows) == 1


def test_bad_input_gets_the_hosted_error_codes_and_a_smaller_batch(
    tenants, api_client, digits_version, settings
):
    alice, url = api_client(tenants["alice"]), try_url(digits_version)
    assert error_of(alice.generic("POST", url, b"{not json", content_type="application/json"), 400)[
        "code"
    ] == ("invalid_json")
    assert error_of(post_json(alice, url, {"instances": []}), 400)["code"] == "empty_input"
    bad = error_of(post_json(alice, url, {"instances": [{"image": "@@not base64@@"}]}), 400)
    assert bad["code"] == "invalid_base64" and "instances[0].image" in bad["message"]
    not_image = error_of(post_json(alice, url, {"instances": [{"image": b64(b"not pixels")}]}), 400)
    assert not_image["code"] == "invalid_image"
    assert error_of(post_json(alice, url, {"instances": [{"text": "x"}]}), 400)["code"] == "invalid_instance"
    assert error_of(alice.generic("POST", url, b"hello", content_type="text/plain"), 415)["code"] == (
        "unsupported_media_type"
    )
    batch = error_of(post_json(alice, url, {"instances": [{"image": b64(png(i))} for i in range(11)]}), 413)
    assert batch["code"] == "batch_too_large" and batch["details"] == {"count": 11, "max_batch": 10}
    settings.SAMPAN_DEPLOY_MAX_BODY_BYTES = 1000
    big = error_of(alice.generic("POST", url, b"\0" * 2000, content_type="image/png"), 413)
    assert big["code"] == "body_too_large"
    assert error_of(alice.get(url), 405)["code"] == "method_not_allowed"


def test_a_model_version_without_onnx_is_409(tenants, api_client):
    from tests.training.factories import model_version

    mv = model_version(tenants["project_a"], onnx_key="")
    error = error_of(
        post_json(api_client(tenants["alice"]), try_url(mv), {"instances": [{"image": b64(png())}]}), 409
    )
    assert error["code"] == "model_not_servable"


def test_a_file_that_is_no_onnx_model_is_409_not_a_server_error(tenants, api_client):
    """A stored file ONNX Runtime cannot run is the model's problem, not an outage: 409, no Retry-After,
    for the try route and for a deployment of it alike."""
    from tests.training.factories import model_version

    mv = model_version(tenants["project_a"], onnx=b"not an onnx model")
    payload = {"instances": [{"image": b64(png())}]}
    tried = post_json(api_client(tenants["alice"]), try_url(mv), payload)
    error = error_of(tried, 409)
    assert error["code"] == "model_not_servable" and "cannot be served" in error["message"]
    assert "Retry-After" not in tried
    deployment, _, secret = deployment_with_key(tenants, mv, name="no-model")
    hosted = post_json(
        api_client(tenants["alice"]),
        f"/api/v1/deployments/{deployment.pk}/predict/",
        payload,
        HTTP_AUTHORIZATION=f"Bearer {secret}",
    )
    assert error_of(hosted, 409)["code"] == "model_not_servable"


def test_members_may_try_others_get_404_and_anonymous_401(tenants, api_client, digits_version):
    payload = {"instances": [{"image": b64(png())}]}
    assert (
        post_json(api_client(tenants["carol"]), try_url(digits_version), payload).status_code == 200
    )  # viewer
    assert (
        post_json(api_client(tenants["erin"]), try_url(digits_version), payload).status_code == 200
    )  # editor
    assert error_of(post_json(api_client(tenants["bob"]), try_url(digits_version), payload), 404)["code"] == (
        "not_found"
    )
    assert post_json(api_client(), try_url(digits_version), payload).status_code in (401, 403)
    assert error_of(
        post_json(api_client(tenants["alice"]), "/api/v1/model-versions/999999/try/", payload), 404
    )


def test_tries_are_limited_per_user(tenants, api_client, digits_version, settings):
    settings.SAMPAN_TRY_PER_MINUTE = 2
    settings.CELERY_BROKER_URL = "memory://"  # count in this process, not in another test's Redis window
    from deploy import serving

    serving.quotas._redis_checked = False
    payload = {"instances": [{"image": b64(png())}]}
    alice, carol = api_client(tenants["alice"]), api_client(tenants["carol"])
    try:
        answers = [post_json(alice, try_url(digits_version), payload) for _ in range(3)]
        assert [a.status_code for a in answers[:2]] == [200, 200]
        error = error_of(answers[2], 429)
        assert error["code"] == "throttled" and int(answers[2]["Retry-After"]) >= 1
        assert post_json(carol, try_url(digits_version), payload).status_code == 200  # another user's count
    finally:
        serving.quotas._redis_checked = False


def test_session_try_with_csrf_reads_a_multipart_body(tenants, digits_version):
    """A browser's session request: the CSRF check must not consume the multipart body first."""
    from django.test import Client

    browser = Client(enforce_csrf_checks=True)
    browser.force_login(tenants["alice"])
    browser.get("/api/v1/auth/csrf/")
    token = browser.cookies["csrftoken"].value
    form = requests.Request("POST", "http://x", files=[("file", ("7.png", png(7), "image/png"))]).prepare()
    refused = browser.generic(
        "POST", try_url(digits_version), form.body, content_type=form.headers["Content-Type"]
    )
    assert refused.status_code == 403, refused.content  # no CSRF header
    answer = browser.generic(
        "POST",
        try_url(digits_version),
        form.body,
        content_type=form.headers["Content-Type"],
        HTTP_X_CSRFTOKEN=token,
    )
    assert answer.status_code == 200, answer.content
    assert answer.json()["predictions"][0]["top_k"]


def test_the_deployments_try_needs_no_key_follows_its_state_and_counts_without_a_key(
    tenants, api_client, digits_version
):
    from deploy import services
    from deploy.models import UsageMinute
    from deploy.usage import recorder

    deployment, _, _ = deployment_with_key(tenants, digits_version)
    url = f"/api/v1/deployments/{deployment.pk}/try/"
    payload = {"instances": [{"image": b64(png(5))}]}
    recorder.flush()
    answer = post_json(api_client(tenants["carol"]), url, payload)  # a viewer, no key
    assert answer.status_code == 200, answer.content
    assert answer.json()["model_version"]["id"] == digits_version.pk
    recorder.flush()
    rows = list(UsageMinute.objects.filter(deployment=deployment))
    assert sum(r.calls for r in rows) == 1 and all(r.key_id is None for r in rows)

    assert error_of(post_json(api_client(tenants["bob"]), url, payload), 404)["code"] == "not_found"
    services.deployment_set_status(user=tenants["alice"], deployment=deployment, status="stopped")
    assert (
        error_of(post_json(api_client(tenants["alice"]), url, payload), 409)["code"] == "deployment_stopped"
    )


@pytest.mark.parametrize("template", ["tabular_classification", "text_classification"])
def test_text_and_tabular_models_are_tried_like_the_hosted_api(tenants, api_client, tmp_path, template):
    from tests.packages.test_text_and_tabular_server_packages import train_tabular, train_text
    from tests.training.factories import model_version
    from workers.serving.predictors import load_predictor, predict_instances

    _, (result, instances) = (
        train_text(tmp_path) if template.startswith("text") else train_tabular(template, tmp_path)
    )
    mv = model_version(
        tenants["project_a"],
        template=template,
        onnx=Path(result["onnx"]).read_bytes(),
        classes=result["classes"],
        preprocessing=result["preprocessing"],
    )
    sent = [{"text": t} for t in instances[:3]] if template.startswith("text") else instances[:3]
    answer = post_json(api_client(tenants["carol"]), try_url(mv), {"instances": sent, "top_k": 2})
    assert answer.status_code == 200, answer.content
    body = answer.json()
    assert body["kind"] == "classification_prediction" and len(body["predictions"]) == 3

    # the platform's predictor on the same files gives the same answer
    directory = tmp_path / "served"
    directory.mkdir()
    (directory / "model.onnx").write_bytes(Path(result["onnx"]).read_bytes())
    (directory / "preprocess.json").write_text(json.dumps(result["preprocessing"]))
    (directory / "labels.json").write_text(json.dumps(result["classes"]))
    (directory / "manifest.json").write_text(json.dumps({"template": template}))
    predictor = load_predictor(directory)
    expected, _ = predict_instances(predictor, instances[:3], 2)
    for got, want in zip(body["predictions"], expected, strict=True):
        assert [c["label"] for c in got["top_k"]] == [c["label"] for c in want]
        assert np.allclose([c["score"] for c in got["top_k"]], [c["score"] for c in want], atol=1e-5)

    if template.startswith("tabular"):
        row = {**instances[2], "not_a_column": 1}
        unknown = error_of(post_json(api_client(tenants["alice"]), try_url(mv), {"instances": [row]}), 400)
        assert unknown["code"] == "unknown_column" and "not_a_column" in unknown["message"]


@pytest.mark.integration
@pytest.mark.django_db(transaction=True)
def test_the_sdk_tries_a_model_version_as_a_deployment_answers(live_web, tenants, token_for, trained_digits):
    import sampan
    from sampan.errors import SampanError

    mv = model_version_from(tenants, trained_digits)
    deployment, _, secret = deployment_with_key(tenants, mv)
    client = sampan.Client(live_web, token_for(tenants["carol"]), timeout=60, backoff=0.1, max_backoff=2)
    model = client.model_versions.get(mv.pk)
    tried = model.try_predict(png(4), top_k=3)
    hosted = client.deployments.get(deployment.pk).predict(png(4), key=secret, top_k=3)
    assert tried.label == hosted.label and [c["label"] for c in tried.classes] == [
        c["label"] for c in hosted.classes
    ]
    assert np.isclose(tried.score, hosted.score, atol=1e-6)
    assert [p.label for p in model.try_batch([png(i) for i in range(3)])] == [
        p.label
        for p in client.deployments.get(deployment.pk).predict_batch([png(i) for i in range(3)], key=secret)
    ]
    with pytest.raises(SampanError) as refused:
        model.try_batch([png(i) for i in range(11)])
    assert refused.value.code == "batch_too_large" and refused.value.status == 413
