"""Multi-objective and constrained studies through the API without workers: objectives and
constraints validated by field, the target profile's budgets as constraints, Optuna's study with one
direction per objective, the samplers (nsga2, gp; cmaes refused), and the Pareto front of recorded
trials (feasible, non-dominated). Answers are checked against the OpenAPI schema."""

from __future__ import annotations

import pytest

from tests.automl import factories as rows
from tests.datasets.factories import dataset_with_samples

pytestmark = [pytest.mark.openapi_conformance, pytest.mark.django_db]


@pytest.fixture
def version(tenants):
    from datasets.services import dataset_version_create

    dataset = dataset_with_samples(
        user=tenants["alice"], project=tenants["project_a"], name="Digits", per_class=6, classes=range(3)
    )
    return dataset_version_create(dataset=dataset, user=tenants["alice"], seed=1)


SPACE = [{"name": "learning_rate", "type": "float", "low": 1e-4, "high": 1e-2, "log": True}]


def post(client, version, **body):
    return client.post(
        "/api/v1/studies/",
        {"dataset_version": version.pk, "n_trials": 4, "parallelism": 1, "search_space": SPACE, **body},
        format="json",
    )


def test_two_objectives_make_an_optuna_study_with_two_directions(tenants, api_client, version):
    import optuna
    from automl import engine
    from automl.models import Study

    client = api_client(tenants["alice"])
    response = post(
        client,
        version,
        objectives=[{"metric": "val_acc"}, {"metric": "latency_ms"}],
        constraints=[{"metric": "size_bytes", "op": "<=", "value": 5e6}],
        target_profile="edge-arm-slow",
        sampler="nsga2",
    )
    assert response.status_code == 201, response.content
    study = response.json()
    assert study["multi_objective"] is True
    assert study["objectives"] == [
        {"metric": "val_acc", "direction": "maximize"},
        {"metric": "latency_ms", "direction": "minimize"},
    ]
    assert study["constraints"] == [{"metric": "size_bytes", "op": "<=", "value": 5e6}]
    assert study["target_profile"]["name"] == "edge-arm-slow" and study["target_profile"]["slowdown"] == 4.0
    assert study["target_profile_id"] is None  # a builtin
    assert study["pruner"] == "none", "Optuna's pruners judge one objective"
    assert study["sampler_in_use"] == "nsga2" and study["pareto_front"] == []
    loaded = engine.optuna_study(Study.objects.get(pk=study["id"]))
    assert [d.name for d in loaded.directions] == ["MAXIMIZE", "MINIMIZE"]
    assert isinstance(loaded.sampler, optuna.samplers.NSGAIISampler)


def test_a_profiles_budget_becomes_a_constraint_and_a_workspace_profile_is_snapshotted(
    tenants, api_client, version
):
    client = api_client(tenants["alice"])
    profile = client.post(
        "/api/v1/target-profiles/",
        {"workspace": tenants["ws_a"].pk, "name": "phone", "slowdown": 3.0, "latency_budget_ms": 5},
        format="json",
    )
    assert profile.status_code == 201, profile.content
    response = post(client, version, target_profile=profile.json()["id"], sampler="gp")
    assert response.status_code == 201, response.content
    study = response.json()
    assert study["constraints"] == [{"metric": "latency_ms", "op": "<=", "value": 5.0}]
    assert study["target_profile"]["name"] == "phone" and study["target_profile_id"] == profile.json()["id"]
    assert study["multi_objective"] is False and study["objectives"] == [
        {"metric": "val_acc", "direction": "maximize"}
    ]
    # the snapshot stays when the profile changes or goes
    assert client.delete(f"/api/v1/target-profiles/{profile.json()['id']}/").status_code == 204
    again = client.get(f"/api/v1/studies/{study['id']}/").json()
    assert again["target_profile"]["slowdown"] == 3.0 and again["target_profile_id"] is None


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"objectives": []}, "objectives"),
        ({"objectives": [{"metric": "val_acc"}] * 2}, "objectives[1].metric"),
        ({"objectives": [{"metric": "accuracy"}]}, "objectives[0].metric"),
        ({"objectives": [{"metric": "a"}, {"metric": "b"}, {"metric": "c"}, {"metric": "d"}]}, "objectives"),
        ({"objectives": [{"metric": "val_acc"}, {"metric": "latency_ms", "direction": "up"}]}, "objectives"),
        ({"constraints": [{"metric": "latency_ms", "op": "<", "value": 3}]}, "constraints"),
        ({"constraints": [{"metric": "speed", "op": "<=", "value": 3}]}, "constraints[0].metric"),
        ({"target_profile": "a-phone"}, "target_profile"),
        ({"objectives": [{"metric": "val_acc"}, {"metric": "size_bytes"}], "sampler": "cmaes"}, "sampler"),
        (
            {"search_space": [{"name": "quantization", "type": "categorical", "choices": ["fp16"]}]},
            "search_space[0].choices",
        ),
    ],
)
def test_bad_objectives_constraints_and_targets_name_the_field(tenants, api_client, version, body, field):
    response = post(api_client(tenants["alice"]), version, **body)
    assert response.status_code == 400, response.content
    error = response.json()["error"]
    assert any(key == field or key.startswith(field) for key in error["details"]), error


def test_another_workspaces_target_profile_does_not_exist(tenants, api_client, version):
    from deploy.targets import target_profile_create

    theirs = target_profile_create(user=tenants["bob"], workspace=tenants["ws_b"], name="bob's board")
    response = post(api_client(tenants["alice"]), version, target_profile=theirs.pk)
    assert response.status_code == 400 and "target_profile" in response.json()["error"]["details"]


def test_a_latency_objective_adapts_the_default_space_and_says_so(tenants, api_client, version):
    from automl.services import quantizer_installed

    client = api_client(tenants["alice"])
    response = client.post(
        "/api/v1/studies/",
        {
            "dataset_version": version.pk,
            "n_trials": 2,
            "parallelism": 1,
            "objectives": [{"metric": "val_acc"}, {"metric": "latency_ms"}],
        },
        format="json",
    )
    assert response.status_code == 201, response.content
    study = response.json()
    names = [d["name"] for d in study["search_space"]]
    assert "width" in names and ("quantization" in names) == quantizer_installed()
    assert any("width" in note for note in study["space_notes"])
    assert study["target_profile"]["name"] == "worker-cpu", "the default target"
    plain = post(client, version)
    assert plain.json()["space_notes"] == [] and plain.json()["pareto_front"] == []


def test_pareto_front_holds_the_feasible_non_dominated_trials(tenants, api_client, version):
    study = rows.study(
        version,
        objectives=[
            {"metric": "val_acc", "direction": "maximize"},
            {"metric": "latency_ms", "direction": "minimize"},
        ],
        constraints=[{"metric": "size_bytes", "op": "<=", "value": 1000.0}],
        n_trials=6,
    )
    # (accuracy, latency, feasible): 0 and 1 trade off; 2 is dominated by 0; 3 would dominate all but
    # is infeasible; 4 failed
    for values, feasible in (
        ([0.9, 5.0], True),
        ([0.7, 1.0], True),
        ([0.8, 6.0], True),
        ([0.95, 0.5], False),
    ):
        rows.trial(study, value=values[0], values=values, feasible=feasible)
    rows.trial(study, state="failed", value=None)
    client = api_client(tenants["alice"])
    answer = client.get(f"/api/v1/studies/{study.pk}/").json()
    assert answer["pareto_front"] == [0, 1]
    trials = client.get(f"/api/v1/studies/{study.pk}/trials/").json()
    assert [t["on_front"] for t in trials] == [True, True, False, False, False]
    assert [t["feasible"] for t in trials] == [True, True, True, False, None]


def test_constraint_values_follow_optunas_convention():
    from automl.services import constraint_values

    limits = [
        {"metric": "latency_ms", "op": "<=", "value": 5.0},
        {"metric": "val_acc", "op": ">=", "value": 0.8},
        {"metric": "size_bytes", "op": "<=", "value": 10.0},
    ]
    assert constraint_values(
        limits, {"latency_ms": 4.0, "val_acc": 0.9, "size_bytes": None}
    ) == pytest.approx([-1.0, -0.1, 1.0])
