"""Traffic split, canary and shadow releases (issue 17): the refusals of /traffic/, /promote/ and
/shadow/, and live: a split lands near its weights, sticky keys stay on one version, every answer
comes whole from the version its header names while the split changes under concurrent load, and
the shadow is compared (agreement 1.0 with itself, below 1 with another class order) without ever
changing the response."""

from __future__ import annotations

import json
import threading
from collections import Counter

import pytest
import requests

from tests.deploy.factories import b64, deployment_with_key, png
from tests.harness import wait_for

BODY = {"instances": [{"image": b64(png(7))}]}
CLASSES = [str(i) for i in range(10)]


def version(
    world, *, number: int, onnx: bytes = b"placeholder", classes=None, run=None, project=None, **extra
):
    """Model version V<number> of project A (or ``project``); from the trained digits ``run`` when
    given, with its class list (or ``classes``: another order makes a distinguishable version)."""
    from tests.training.factories import model_version

    if run is not None:
        onnx = (run / "model.onnx").read_bytes()
        extra.setdefault("preprocessing", json.loads((run / "preprocess.json").read_text()))
        classes = classes or json.loads((run / "labels.json").read_text())
    return model_version(
        project or world["project_a"],
        number=number,
        onnx=onnx,
        classes=classes or CLASSES,
        params={"model": "cnn_small"},
        metrics={"test": {"accuracy": 0.5}},
        **extra,
    )


# --- refusals and the recorded history (no live server) --------------------------------------------


@pytest.mark.django_db
def test_traffic_promote_and_shadow_refusals_and_history(tenants, api_client):
    v1, v2, v3, v4 = (version(tenants, number=n) for n in (1, 2, 3, 4))
    detector = version(tenants, number=5, template="object_detection")
    no_onnx = version(tenants, number=6, onnx_key="")
    theirs = version(tenants, number=1, project=tenants["project_b"])
    alice = api_client(tenants["alice"])
    created = alice.post("/api/v1/deployments/", {"model_version": v1.pk, "name": "digits"}, format="json")
    assert created.status_code == 201, created.content
    deployment = created.json()
    assert deployment["traffic"] == [
        {"model_version": v1.pk, "model_version_name": v1.name, "role": "primary", "weight": 100}
    ]
    assert deployment["sticky_traffic"] is False
    url = f"/api/v1/deployments/{deployment['id']}"

    def traffic(canaries, **extra):
        return alice.post(
            f"{url}/traffic/",
            {"canaries": [{"model_version": mv.pk, "weight": w} for mv, w in canaries], **extra},
            format="json",
        )

    def refused(response, status, code, field):
        assert response.status_code == status, response.content
        error = response.json()["error"]
        assert error["code"] == code, error
        assert any(key.startswith(field) for key in error["details"]), error
        return error

    refused(traffic([(v2, 60), (v3, 40)]), 400, "canary_weights_too_high", "canaries")
    refused(traffic([(v1, 10)]), 400, "canary_invalid", "canaries[0].model_version")  # the primary
    refused(traffic([(v2, 10), (v2, 5)]), 400, "canary_invalid", "canaries[1].model_version")
    refused(traffic([(detector, 10)]), 400, "canary_invalid", "canaries[0].model_version")
    refused(traffic([(no_onnx, 10)]), 400, "canary_invalid", "canaries[0].model_version")
    assert traffic([(v2, 0)]).status_code == 400
    assert traffic([(v2, 100)]).status_code == 400
    assert traffic([(theirs, 10)]).status_code == 400  # another tenant's version does not exist here
    assert alice.post(f"{url}/traffic/", {}, format="json").status_code == 400  # canaries required
    refused(
        alice.post(f"{url}/promote/", {"model_version": v2.pk}, format="json"),
        400,
        "not_a_canary",
        "model_version",
    )

    # nothing refused changed anything
    assert alice.get(f"{url}/").json()["traffic"][0]["weight"] == 100

    ok = traffic([(v2, 10), (v3, 5)], sticky=True)
    assert ok.status_code == 200, ok.content
    body = ok.json()
    assert [(e["model_version"], e["role"], e["weight"]) for e in body["traffic"]] == [
        (v1.pk, "primary", 85),
        (v2.pk, "canary", 10),
        (v3.pk, "canary", 5),
    ]
    assert body["sticky_traffic"] is True
    assert body["history"][-1]["action"] == "traffic"
    assert body["history"][-1]["details"] == {"traffic": body["traffic"], "sticky": True}

    # the shadow: not the primary, not a canary
    shadow = f"{url}/shadow/"
    refused(
        alice.post(shadow, {"model_version": v1.pk}, format="json"), 400, "shadow_invalid", "model_version"
    )
    refused(
        alice.post(shadow, {"model_version": v2.pk}, format="json"), 400, "shadow_invalid", "model_version"
    )
    refused(
        alice.post(shadow, {"model_version": detector.pk}, format="json"),
        400,
        "shadow_invalid",
        "model_version",
    )
    body = alice.post(shadow, {"model_version": v4.pk}, format="json").json()
    assert body["traffic"][-1] == {
        "model_version": v4.pk,
        "model_version_name": v4.name,
        "role": "shadow",
        "weight": 0,
    }
    assert body["history"][-1]["action"] == "shadow"
    # a canary cannot be the shadow
    refused(traffic([(v4, 10)]), 400, "canary_invalid", "canaries[0].model_version")

    # promote a canary: it becomes the primary, the canaries go, the shadow stays
    body = alice.post(f"{url}/promote/", {"model_version": v3.pk}, format="json").json()
    assert body["model_version"] == v3.pk and body["previous_model_version"] == v1.pk
    assert [(e["model_version"], e["role"], e["weight"]) for e in body["traffic"]] == [
        (v3.pk, "primary", 100),
        (v4.pk, "shadow", 0),
    ]
    assert body["history"][-1]["action"] == "promote"
    assert body["history"][-1]["details"]["traffic"] == body["traffic"]

    # a switch to a canary takes it out of the canaries; a switch to the shadow ends the shadow
    traffic([(v2, 20)])
    body = alice.post(f"{url}/switch/", {"model_version": v2.pk}, format="json").json()
    assert [(e["model_version"], e["role"]) for e in body["traffic"]] == [
        (v2.pk, "primary"),
        (v4.pk, "shadow"),
    ]
    body = alice.post(f"{url}/switch/", {"model_version": v4.pk}, format="json").json()
    assert [(e["model_version"], e["role"]) for e in body["traffic"]] == [(v4.pk, "primary")]
    # rollback serves the previous version again
    body = alice.post(f"{url}/rollback/", format="json").json()
    assert body["model_version"] == v2.pk

    # rolling the canary back and removing the shadow
    traffic([(v3, 30)])
    alice.post(shadow, {"model_version": v1.pk}, format="json")
    body = traffic([]).json()
    assert [e["role"] for e in body["traffic"]] == ["primary", "shadow"]
    body = alice.post(shadow, {"model_version": None}, format="json").json()
    assert [e["role"] for e in body["traffic"]] == ["primary"]
    assert body["history"][-1]["details"]["traffic"] == body["traffic"]

    # a viewer reads, never changes; the agreement answers without a shadow
    carol = api_client(tenants["carol"])
    assert carol.post(f"{url}/traffic/", {"canaries": []}, format="json").status_code == 403
    assert carol.post(shadow, {"model_version": v1.pk}, format="json").status_code == 403
    agreement = carol.get(f"{url}/shadow-agreement/?window=24h")
    assert agreement.status_code == 200
    assert agreement.json()["compared"] == 0
    assert carol.get(f"{url}/shadow-agreement/?window=2y").status_code == 400
    # the deployment's versions cannot be deleted while they serve traffic
    from training.models import ModelVersion

    assert ModelVersion.objects.filter(pk=v1.pk).exists()


def test_sticky_points_agree_across_states_and_spread():
    from deploy.serving import DeploymentState, ModelVersionState, sticky_point

    def mv(i):
        return ModelVersionState(i, f"V{i}", "image_classification", "", "", (), "{}")

    state = DeploymentState(
        id=7, stamp=1, active=True, model_version=mv(1), keys={}, canaries=((mv(2), 30),), sticky=True
    )
    for key_id in range(50):
        chosen = {state.choose(key_id).id for _ in range(5)}
        assert chosen == {2 if sticky_point(7, key_id) < 30 else 1}
    share = sum(sticky_point(7, key_id) < 30 for key_id in range(2000)) / 2000
    assert 0.25 < share < 0.35
    assert state.versions() == [mv(1), mv(2)]


def test_compare_by_label_names_and_values():
    from deploy.shadow import compare

    a = [[{"label": "cat", "index": 0, "score": 0.9}], [{"label": "dog", "index": 1, "score": 0.6}]]
    b = [[{"label": "cat", "index": 1, "score": 0.7}], [{"label": "cat", "index": 1, "score": 0.8}]]
    compared, agreed, deltas = compare("classification_prediction", a, b)
    assert (compared, agreed) == (2, 1) and deltas == pytest.approx([0.2, 0.2])
    compared, agreed, deltas = compare("regression_prediction", [[{"value": 3.0}]], [[{"value": 1.5}]])
    assert (compared, agreed, deltas) == (1, 0, [1.5])
    boxes = {"boxes": [{"label": "car", "score": 0.5}, {"label": "bus", "score": 0.8}]}
    compared, agreed, deltas = compare(
        "detection_prediction",
        [boxes, {"boxes": []}],
        [{"boxes": [{"label": "bus", "score": 0.6}]}, {"boxes": []}],
    )
    assert (compared, agreed) == (2, 2) and deltas == pytest.approx([0.2, 0.0])


# --- live: the web process serves the split ---------------------------------------------------------


def ok(response):
    assert response.status_code == 200, response.content
    return response


def post(url, deployment_id, secret, body=BODY, session=None):
    return (session or requests).post(
        f"{url}/api/v1/deployments/{deployment_id}/predict/",
        json=body,
        headers={"Authorization": f"Bearer {secret}"},
        timeout=30,
    )


def consistent(response, classes_of: dict[int, list[str]]) -> int:
    """The version that answered, checked: the header names it, the body names it, and the label is
    that version's name of the answered index."""
    assert response.status_code == 200, response.text
    answered = int(response.headers["X-Sampan-Model-Version"])
    body = response.json()
    assert body["model_version"]["id"] == answered
    top = body["predictions"][0]["top_k"][0]
    assert top["label"] == classes_of[answered][top["index"]], (answered, top)
    return answered


@pytest.mark.integration
@pytest.mark.django_db(transaction=True)
def test_split_lands_near_its_weights_and_sticky_keys_stay(live_web, tenants, api_client, trained_digits):
    from deploy import services
    from deploy.serving import sticky_point

    v1 = version(tenants, number=1, run=trained_digits)
    v2 = version(tenants, number=2, run=trained_digits, classes=list(reversed(CLASSES)))
    classes_of = {v1.pk: list(v1.classes), v2.pk: list(v2.classes)}
    deployment, _, secret = deployment_with_key(tenants, v1)
    alice = api_client(tenants["alice"])
    url = f"/api/v1/deployments/{deployment.pk}"
    ok(alice.post(f"{url}/traffic/", {"canaries": [{"model_version": v2.pk, "weight": 10}]}, format="json"))

    counts: Counter[int] = Counter()
    lock = threading.Lock()

    def client(n):
        with requests.Session() as session:
            for _ in range(n):
                answered = consistent(post(live_web, deployment.pk, secret, session=session), classes_of)
                with lock:
                    counts[answered] += 1

    threads = [threading.Thread(target=client, args=(250,)) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=300)
    assert sum(counts.values()) == 1000
    # binomial(1000, 0.1): mean 100, sd 9.5; 5 sd either side
    assert 52 <= counts[v2.pk] <= 148, counts

    # per-version usage: both versions, their roles, one score per call
    def by_version():
        usage = alice.get(f"{url}/usage/?window=1h").json()
        rows = {row["model_version"]: row for row in usage["by_version"]}
        return rows if sum(row["calls"] for row in rows.values()) == 1000 else None

    rows = wait_for(by_version, timeout=30, interval=0.5, what="per-version usage")
    assert rows[v1.pk]["role"] == "primary" and rows[v2.pk]["role"] == "canary"
    assert rows[v2.pk]["calls"] == counts[v2.pk] and rows[v1.pk]["calls"] == counts[v1.pk]
    for row in rows.values():
        assert sum(b["count"] for b in row["scores"]) == row["calls"]
        assert all(0 <= b["low"] < b["high"] <= 1 for b in row["scores"])
        assert row["latency_ms"]["p50"] > 0 and row["errors"] == 0

    # sticky: each key answered by the version its fixed percentile picks, every time
    services.deployment_set_traffic(
        user=tenants["alice"], deployment=deployment, canaries=[(v2, 50)], sticky=True
    )
    keys = [
        services.deployment_key_create(user=tenants["alice"], deployment=deployment, name=f"k{i}")
        for i in range(8)
    ]
    with requests.Session() as session:
        for key, key_secret in keys:
            expected = v2.pk if sticky_point(deployment.pk, key.pk) < 50 else v1.pk
            answered = {
                consistent(post(live_web, deployment.pk, key_secret, session=session), classes_of)
                for _ in range(8)
            }
            assert answered == {expected}, (key.pk, answered, expected)

    # rolled back: the primary answers everything
    ok(alice.post(f"{url}/traffic/", {"canaries": []}, format="json"))
    assert {consistent(post(live_web, deployment.pk, secret), classes_of) for _ in range(20)} == {v1.pk}


@pytest.mark.integration
@pytest.mark.django_db(transaction=True)
def test_shadow_is_compared_and_never_changes_the_answer(live_web, tenants, api_client, trained_digits):
    v1 = version(tenants, number=1, run=trained_digits)
    same = version(tenants, number=2, run=trained_digits)  # the same model: agrees with v1
    reversed_ = version(tenants, number=3, run=trained_digits, classes=list(reversed(CLASSES)))
    deployment, _, secret = deployment_with_key(tenants, v1)
    alice = api_client(tenants["alice"])
    url = f"/api/v1/deployments/{deployment.pk}"
    bodies = [
        {"instances": [{"image": b64(png(i))} for i in range(start, start + 3)], "top_k": 3}
        for start in range(0, 12, 3)
    ]

    def answers():
        out = []
        for body in bodies:
            response = post(live_web, deployment.pk, secret, body)
            assert response.status_code == 200, response.text
            assert response.headers["X-Sampan-Model-Version"] == str(v1.pk)
            answer = response.json()
            answer.pop("latency_ms")
            out.append(answer)
        return out

    plain = answers()
    for shadow, expected in ((same, 1.0), (reversed_, 0.0)):
        ok(alice.post(f"{url}/shadow/", {"model_version": shadow.pk}, format="json"))
        for _ in range(3):
            assert answers() == plain  # the shadow never changes the response

        def compared(shadow=shadow):
            figures = alice.get(f"{url}/shadow-agreement/?window=1h").json()
            return figures if figures["shadow_version"] == shadow.pk and figures["compared"] >= 36 else None

        figures = wait_for(compared, timeout=60, interval=0.5, what="the shadow's comparisons")
        assert figures["compared"] == 36 and figures["errors"] == 0
        assert figures["agreement"] == expected
        assert figures["prediction_kind"] == "classification_prediction"
        assert figures["points"] and sum(p["compared"] for p in figures["points"]) == 36
        assert sum(b["count"] for b in figures["deltas"]) == 36
        if expected == 1.0:
            assert figures["mean_delta"] == 0.0
        # the shadow answers no request: the usage counts only the served version
        usage = alice.get(f"{url}/usage/?window=1h").json()
        assert {row["model_version"] for row in usage["by_version"]} <= {v1.pk}
    # capture keeps what the shadow disagreed on, with both answers (the shadow worker offers them)
    policy = {"enabled": True, "sample_rate": 1.0, "shadow_disagreement": True}
    ok(alice.put(f"{url}/capture/", policy, format="json"))
    assert answers()[:1] == plain[:1]

    def captured():
        rows = alice.get(f"{url}/captures/").json()["results"]
        return rows if len(rows) >= 12 else None

    rows = wait_for(captured, timeout=30, interval=0.5, what="captures of the disagreements")
    assert len(rows) == 12 and {r["reason"] for r in rows} == {"disagreement"}
    assert {r["shadow_version"] for r in rows} == {reversed_.pk} and {r["model_version"] for r in rows} == {
        v1.pk
    }
    assert all(r["shadow_answer"]["label"] != r["answer"]["label"] for r in rows)
    ok(alice.put(f"{url}/capture/", {"enabled": False}, format="json"))
    ok(alice.post(f"{url}/shadow/", {"model_version": None}, format="json"))
    assert answers() == plain


@pytest.mark.integration
@pytest.mark.django_db(transaction=True)
def test_weights_promotion_and_shadow_change_under_concurrent_load(
    live_web, tenants, api_client, trained_digits
):
    v1 = version(tenants, number=1, run=trained_digits)
    v2 = version(tenants, number=2, run=trained_digits, classes=list(reversed(CLASSES)))
    v3 = version(tenants, number=3, run=trained_digits, classes=CLASSES[5:] + CLASSES[:5])
    classes_of = {mv.pk: list(mv.classes) for mv in (v1, v2, v3)}
    deployment, _, secret = deployment_with_key(tenants, v1)
    assert post(live_web, deployment.pk, secret).status_code == 200
    results: list[tuple[int, int | None, str]] = []
    lock = threading.Lock()
    stop = threading.Event()

    def client():
        with requests.Session() as session:
            while not stop.is_set():
                response = post(live_web, deployment.pk, secret, session=session)
                try:
                    answered: int | None = consistent(response, classes_of)
                    problem = ""
                except AssertionError as exc:
                    answered, problem = None, str(exc)[:300]
                with lock:
                    results.append((response.status_code, answered, problem))

    threads = [threading.Thread(target=client) for _ in range(4)]
    for thread in threads:
        thread.start()
    alice = api_client(tenants["alice"])
    url = f"/api/v1/deployments/{deployment.pk}"
    steps = [
        ("traffic", {"canaries": [{"model_version": v2.pk, "weight": 10}]}),
        ("shadow", {"model_version": v3.pk}),
        ("traffic", {"canaries": [{"model_version": v2.pk, "weight": 50}]}),
        ("traffic", {"canaries": [{"model_version": v2.pk, "weight": 50}], "sticky": True}),
        ("promote", {"model_version": v2.pk}),
        ("shadow", {"model_version": None}),
    ]
    try:
        for action, payload in steps:
            before = len(results)
            wait_for(
                lambda before=before: len(results) >= before + 15, timeout=60, what="requests between changes"
            )
            response = alice.post(f"{url}/{action}/", payload, format="json")
            assert response.status_code == 200, (action, response.content)
        count = len(results)
        wait_for(lambda: len(results) >= count + 20, timeout=60, what="requests after the last change")
    finally:
        stop.set()
        for thread in threads:
            thread.join(timeout=30)
    problems = [r for r in results if r[0] != 200 or r[1] is None]
    assert not problems, f"{len(problems)} of {len(results)} failed: {problems[:3]}"
    answered = [version for _, version, _ in results]
    assert {v1.pk, v2.pk} <= set(answered)
    assert v3.pk not in answered  # the shadow never answers
    assert answered[-1] == v2.pk  # promoted: the primary now


def test_a_full_shadow_queue_drops_and_counts_never_waits(monkeypatch):
    import time

    from deploy import shadow

    release = threading.Event()
    started = threading.Event()

    def slow(task):
        started.set()
        release.wait(10)

    monkeypatch.setattr(shadow, "run", slow)
    runner = shadow.ShadowRunner(maxsize=2)
    task = shadow.ShadowTask(
        state=None,
        key_id=None,
        served=None,
        data_kind="image",
        kind="classification_prediction",
        instances=[],
        predictions=[],
        top_k=1,
        options=None,
    )
    try:
        assert runner.submit(task)  # taken by the thread, which blocks on it
        assert started.wait(5)
        began = time.monotonic()
        accepted = [runner.submit(task) for _ in range(5)]
        assert time.monotonic() - began < 1  # a put, never a wait
        assert accepted == [True, True, False, False, False] and runner.dropped == 3
        assert not runner.idle()
    finally:
        release.set()
    wait_for(runner.idle, timeout=10, what="the queue to drain")
    assert runner.processed == 3 and runner.dropped == 3
