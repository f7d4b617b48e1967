"""Sampan's SDE sampler (platform/automl/sampler) as an Optuna sampler: convergence, concurrent asks,
encodings, pruned and failed trials, seeds, and its state in PostgreSQL storage across processes."""

from __future__ import annotations

import math
import os
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import optuna
import pytest
from automl.sampler import SdeSampler
from automl.sampler.encoding import SpaceEncoding
from optuna.distributions import CategoricalDistribution, FloatDistribution, IntDistribution
from optuna.trial import TrialState

REPO = Path(__file__).resolve().parents[2]
optuna.logging.set_verbosity(optuna.logging.WARNING)


def sphere(trial: optuna.Trial) -> float:
    return sum((trial.suggest_float(f"x{i}", -5.0, 5.0) - 1.0) ** 2 for i in range(4))


def test_converges_on_a_sphere():
    for seed in (0, 1, 2):
        study = optuna.create_study(sampler=SdeSampler(seed=seed))
        study.optimize(sphere, n_trials=150)
        values = [t.value for t in study.trials]
        # The uniform startup points of a 4-d sphere over [-5, 5] score ~35 on average; the swarm
        # must get close to the minimum, and its second half must beat its first.
        assert study.best_value < 0.05, (seed, study.best_value)
        assert np.median(values[75:]) < np.median(values[:75]) / 4
        assert abs(study.best_params["x0"] - 1.0) < 0.25


def test_the_same_seed_gives_the_same_trials():
    runs = []
    for _ in range(2):
        study = optuna.create_study(sampler=SdeSampler(seed=7))
        study.optimize(sphere, n_trials=40)
        runs.append([t.params for t in study.trials])
    assert runs[0] == runs[1]
    other = optuna.create_study(sampler=SdeSampler(seed=8))
    other.optimize(sphere, n_trials=40)
    assert [t.params for t in other.trials] != runs[0]


def _point(trial: optuna.Trial) -> tuple:
    return tuple(trial.suggest_float(f"x{i}", -5.0, 5.0) for i in range(4))


@pytest.mark.parametrize("told_first", [0, 30])
def test_eight_concurrent_asks_give_eight_distinct_points(told_first):
    study = optuna.create_study(sampler=SdeSampler(seed=3))
    study.optimize(sphere, n_trials=told_first)  # 0: startup phase, 30: the particles move

    # Eight threads ask at once, nobody tells.
    points: list[tuple] = []
    barrier = threading.Barrier(8)

    def worker() -> None:
        barrier.wait()
        trial = study.ask()
        points.append(_point(trial))

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(points) == 8 and len(set(points)) == 8

    # Eight more asks in a row, still without a single tell: the particles are busy.
    more = [_point(study.ask()) for _ in range(8)]
    assert len(set(more) | set(points)) == 16
    for p in points + more:
        assert all(-5.0 <= c <= 5.0 for c in p)


MIXED_SPACE = {
    "lr": FloatDistribution(1e-5, 1e-1, log=True),
    "dropout": FloatDistribution(0.0, 0.5, step=0.1),
    "width": IntDistribution(8, 512, log=True),
    "batch_size": IntDistribution(16, 256, step=16),
    "epochs": IntDistribution(1, 5),
    "optimizer": CategoricalDistribution(["sgd", "adam", "adamw"]),
    "augment": CategoricalDistribution([None, True, 2.5]),
    "constant": IntDistribution(3, 3),
}


def mixed_objective(trial: optuna.Trial) -> float:
    p = {name: trial._suggest(name, dist) for name, dist in MIXED_SPACE.items()}
    return (
        (math.log10(p["lr"]) + 3) ** 2
        + (p["dropout"] - 0.2) ** 2
        + (math.log2(p["width"]) - 6) ** 2 / 4
        + ((p["batch_size"] - 64) / 64) ** 2
        + abs(p["epochs"] - 4)
        + (p["optimizer"] != "adam")
        + (p["augment"] is not True)
    )


def _in_bounds(name: str, value) -> bool:
    dist = MIXED_SPACE[name]
    if isinstance(dist, CategoricalDistribution):
        return value in dist.choices
    if isinstance(dist, IntDistribution) and type(value) is not int:
        return False
    if not dist.low <= value <= dist.high:
        return False
    if dist.step is not None:
        steps = (value - dist.low) / dist.step
        return abs(steps - round(steps)) < 1e-9
    return True


def test_log_int_step_and_categorical_values_round_trip_and_stay_in_bounds():
    study = optuna.create_study(sampler=SdeSampler(seed=5))
    study.optimize(mixed_objective, n_trials=80)
    enc = SpaceEncoding(MIXED_SPACE)
    sorted_enc = SpaceEncoding(dict(sorted(MIXED_SPACE.items())))  # the sampler's column order
    assert enc.dim == 1 + 1 + 1 + 1 + 1 + 3 + 3  # the constant has no column
    kinds = {t.system_attrs.get("sde", {}).get("kind") for t in study.trials}
    assert {"startup", "move"} <= kinds  # both the quasi-random and the particle phase ran
    seen_choices = set()
    for t in study.trials:
        assert set(t.params) == set(MIXED_SPACE)
        for name, value in t.params.items():
            assert _in_bounds(name, value), (name, value)
        u = enc.encode(t.params)
        assert np.all((u >= 0) & (u <= 1))
        assert enc.decode(u) == t.params
        x = t.system_attrs.get("sde", {}).get("x")
        if x is not None:  # the particle's continuous position decodes to the trial's params
            assert sorted_enc.decode(np.asarray(x)) == t.params
        seen_choices.add(t.params["optimizer"])
    assert seen_choices == {"sgd", "adam", "adamw"}
    # Better than the startup points: the search used what it learned.
    assert study.best_value < min(t.value for t in study.trials[:12])


def test_grid_cells_cover_every_value_equally():
    enc = SpaceEncoding({"b": IntDistribution(16, 256, step=16), "w": IntDistribution(1, 4, log=True)})
    grid = np.linspace(0.0, 1.0, 1601)
    counts = {}
    for u in grid:
        value = enc.decode(np.array([u, 0.5]))["b"]
        counts[value] = counts.get(value, 0) + 1
    assert sorted(counts) == list(range(16, 257, 16))
    assert max(counts.values()) - min(counts.values()) <= 2
    assert {enc.decode(np.array([0.5, u]))["w"] for u in grid} == {1, 2, 3, 4}


def test_pruned_and_failed_trials_do_not_corrupt_the_state():
    """Points with x0 > 2.5 get pruned after reporting a huge negative intermediate value (Optuna
    keeps it as the pruned trial's value), points with x0 < -2.5 fail. A sampler that took either as
    a best would chase them; the true minimum is at (1, ..., 1)."""

    def objective(trial: optuna.Trial) -> float:
        x = [trial.suggest_float(f"x{i}", -5.0, 5.0) for i in range(4)]
        if x[0] > 2.5:
            trial.report(-1e9, step=0)
            raise optuna.TrialPruned()
        if x[0] < -2.5:
            raise RuntimeError("this configuration crashes")
        return sum((c - 1.0) ** 2 for c in x)

    study = optuna.create_study(sampler=SdeSampler(seed=11))
    study.optimize(objective, n_trials=40, catch=(RuntimeError,))
    # Mid-run, bad points arrive as other workers' trials would: pruned ones right next to the
    # true minimum (their -1e9 must not become a best), failed ones.
    for x0 in (2.6, 3.0, 4.0):
        study.enqueue_trial({"x0": x0, "x1": 1.0, "x2": 1.0, "x3": 1.0})
    for x0 in (-2.6, -3.0, -4.0):
        study.enqueue_trial({"x0": x0, "x1": 1.0, "x2": 1.0, "x3": 1.0})
    study.optimize(objective, n_trials=110, catch=(RuntimeError,))
    states = [t.state for t in study.trials]
    assert states.count(TrialState.PRUNED) >= 3 and states.count(TrialState.FAIL) >= 3
    pruned = [t for t in study.trials if t.state == TrialState.PRUNED]
    assert all(t.value is None or t.value < 0 for t in pruned)
    assert study.best_value < 0.1
    # The swarm does not drift to the pruned or failed regions: late asks stay out of them.
    late = [t.params["x0"] for t in study.trials[-50:]]
    assert sum(1 for x in late if x > 2.5 or x < -2.5) <= 5
    # Every particle step started from a finished position and is reproducible from the attrs.
    for t in study.trials:
        if t.system_attrs.get("sde", {}).get("kind") == "move":
            assert len(t.system_attrs["sde"]["x"]) == 4 and t.system_attrs["sde"]["k"] >= 2


def test_dynamic_parameters_fall_back_to_independent_sampling():
    def objective(trial: optuna.Trial) -> float:
        kind = trial.suggest_categorical("kind", ["a", "b"])
        x = trial.suggest_float("x", -2, 2)
        extra = trial.suggest_int(f"extra_{kind}", 0, 10)
        return x**2 + extra

    study = optuna.create_study(sampler=SdeSampler(seed=2))
    study.optimize(objective, n_trials=40)
    assert {t.params["kind"] for t in study.trials} == {"a", "b"}
    assert all(0 <= t.params.get("extra_a", t.params.get("extra_b")) <= 10 for t in study.trials)
    assert study.best_value < 1.0


# -- PostgreSQL RDB storage, two processes ------------------------------------------------------


@pytest.fixture
def optuna_database_url():
    """A dedicated PostgreSQL database next to the test database (dropped afterwards)."""
    import psycopg
    from django.conf import settings

    db = settings.DATABASES["default"]
    if "postgresql" not in db["ENGINE"]:
        pytest.skip("needs PostgreSQL (DATABASE_URL)")
    name = f"{db['NAME'].removeprefix('test_')}_sde_optuna"
    auth = db["USER"] + (f":{db['PASSWORD']}" if db.get("PASSWORD") else "")
    server = f"{auth}@{db.get('HOST') or '127.0.0.1'}:{db.get('PORT') or 5432}"
    admin = f"postgresql://{server}/postgres"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')
    yield f"postgresql+psycopg://{server}/{name}"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


WORKER = """
import sys, json, optuna
sys.path.insert(0, {platform!r})
from automl.sampler import SdeSampler
optuna.logging.set_verbosity(optuna.logging.WARNING)
study = optuna.load_study(study_name="sde", storage={url!r}, sampler=SdeSampler(seed=int(sys.argv[1])))
study.optimize(
    lambda t: sum((t.suggest_float(f"x{{i}}", -5, 5) - 1) ** 2 for i in range(4)), n_trials=int(sys.argv[2])
)
print(json.dumps(len(study.trials)))
"""


def test_state_survives_between_processes_in_postgresql_storage(optuna_database_url, tmp_path):
    optuna.create_study(study_name="sde", storage=optuna_database_url)
    script = tmp_path / "worker.py"
    script.write_text(WORKER.format(platform=str(REPO / "platform"), url=optuna_database_url))

    def run(seed: int, n: int) -> int:
        done = subprocess.run(
            [sys.executable, str(script), str(seed), str(n)],
            capture_output=True,
            text=True,
            timeout=300,
            env=os.environ,
        )
        assert done.returncode == 0, done.stderr
        return int(done.stdout.strip().splitlines()[-1])

    assert run(0, 30) == 30  # the first process: startup points and the first particle steps
    assert run(1, 30) == 60  # a second process, another seed, continues the same swarm

    trials = optuna.load_study(study_name="sde", storage=optuna_database_url).trials
    first, second = trials[:30], trials[30:]
    assert all(t.state == TrialState.COMPLETE for t in trials)
    by_number = {t.number: t for t in trials}
    continued = 0
    for t in second:
        attrs = t.system_attrs.get("sde", {})
        if attrs.get("kind") != "move":
            continue
        particle = attrs["particle"]
        earlier = [
            u
            for u in trials
            if u.number < t.number
            and u.system_attrs.get("sde", {}).get("particle") == particle
            and u.system_attrs.get("sde", {}).get("kind") in ("init", "move", "restart")
        ]
        prev = max(earlier, key=lambda u: u.number)
        assert attrs["k"] == prev.system_attrs["sde"]["k"] + 1  # the step count carried over
        if prev.number < 30:
            continued += 1
            assert by_number[prev.number] in first
    assert continued >= 4  # the second process moved particles whose state the first one wrote
    points = {tuple(t.params.values()) for t in trials}
    assert len(points) == 60
    assert min(t.value for t in second) < min(t.value for t in first)
