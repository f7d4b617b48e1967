"""Target profiles through the API: a workspace registers its own (validated as the worker validates
one), the builtins are listed apart and read-only, names are unique per workspace and never a
builtin's, and a profile measures a real ONNX model with its own thread settings."""

from __future__ import annotations

import pytest

pytestmark = [pytest.mark.openapi_conformance, pytest.mark.django_db]

URL = "/api/v1/target-profiles/"


def test_builtins_are_listed_read_only(tenants, api_client):
    answer = api_client(tenants["alice"]).get(f"{URL}builtins/")
    assert answer.status_code == 200
    names = [p["name"] for p in answer.json()]
    assert {"worker-cpu", "worker-cpu-4t", "edge-arm-slow"} <= set(names)
    slow = next(p for p in answer.json() if p["name"] == "edge-arm-slow")
    assert slow["slowdown"] == 4.0 and slow["intra_op_threads"] == 1 and slow["kind"] == "target_profile"


def test_create_update_delete_and_validation(tenants, api_client):
    client = api_client(tenants["alice"])
    body = {"workspace": tenants["ws_a"].pk, "name": "phone", "slowdown": 3.5, "latency_budget_ms": 20}
    created = client.post(URL, body, format="json")
    assert created.status_code == 201, created.content
    profile = created.json()
    assert profile["intra_op_threads"] == 1 and profile["runtime"] == "onnxruntime" and not profile["builtin"]
    assert client.get(URL).json()["count"] == 1

    again = client.post(URL, body, format="json")
    assert again.status_code in (400, 409) and "name" in str(again.json()["error"])
    builtin_name = client.post(URL, {**body, "name": "worker-cpu"}, format="json")
    assert builtin_name.status_code == 400 and "name" in builtin_name.json()["error"]["details"]
    bad = client.post(URL, {**body, "name": "x", "slowdown": 0}, format="json")
    assert bad.status_code == 400 and "slowdown" in bad.json()["error"]["details"]
    threads = client.post(URL, {**body, "name": "y", "intra_op_threads": 1000}, format="json")
    assert threads.status_code == 400 and "intra_op_threads" in threads.json()["error"]["details"]

    changed = client.patch(
        f"{URL}{profile['id']}/", {"slowdown": 2.0, "size_budget_bytes": 1000000}, format="json"
    )
    assert changed.status_code == 200, changed.content
    assert changed.json()["slowdown"] == 2.0 and changed.json()["size_budget_bytes"] == 1000000
    assert changed.json()["name"] == "phone" and changed.json()["workspace"] == tenants["ws_a"].pk

    viewer = api_client(tenants["carol"]).patch(f"{URL}{profile['id']}/", {"slowdown": 9}, format="json")
    assert viewer.status_code == 403
    assert api_client(tenants["bob"]).get(f"{URL}{profile['id']}/").status_code == 404
    assert client.delete(f"{URL}{profile['id']}/").status_code == 204
    assert client.get(URL).json()["count"] == 0


def test_a_profile_measures_an_onnx_model_with_its_settings(tmp_path, tenants):
    """The worker side a study's trial runs: the profile's contract from the row, then measure_latency."""
    import onnx
    from deploy.targets import target_profile_create, target_profile_resolve
    from onnx import TensorProto, helper

    from workers.deployment_targets import measure_latency, model_size

    graph = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["y"])],
        "tiny",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 8])],
    )
    path = tmp_path / "model.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)
    row = target_profile_create(
        user=tenants["alice"], workspace=tenants["ws_a"], name="slow board", slowdown=5.0
    )
    profile, found = target_profile_resolve(value=row.pk, workspace_id=tenants["ws_a"].pk)
    assert found == row and profile["slowdown"] == 5.0
    measured = measure_latency(path, profile, warmup=1, runs=3)
    assert measured["profile"] == "slow board" and measured["threads"] == 1 and measured["runs"] == 3
    assert measured["target_ms"] == pytest.approx(measured["median_ms"] * 5.0, rel=0.05, abs=1e-3)
    assert model_size(path) == path.stat().st_size
