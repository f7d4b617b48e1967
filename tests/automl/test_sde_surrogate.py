"""The SDE sampler's surrogate screen (platform/automl/sampler/surrogate.py): the GP ranks candidates
the way the objective does, running trials steer it away, and the sampler stays deterministic."""

from __future__ import annotations

import numpy as np
import optuna
from automl.sampler import SdeSampler
from automl.sampler.surrogate import Surrogate, screen
from scipy.stats import spearmanr

optuna.logging.set_verbosity(optuna.logging.WARNING)


def _quadratic(x: np.ndarray) -> np.ndarray:
    return (((x - 0.3) * np.array([1.0, 2.0, 0.5, 1.5])) ** 2).sum(-1)


def test_it_ranks_a_quadratics_candidates_right():
    rng = np.random.default_rng(0)
    x = rng.random((60, 4))
    model = Surrogate(x, _quadratic(x))
    candidates = rng.random((200, 4))
    mean, std = model.predict(candidates)
    assert np.all(std > 0)
    # The predicted order follows the true order closely (ranks: the model sees rank scores).
    assert spearmanr(mean, _quadratic(candidates)).statistic > 0.9
    # The screen's pick is among the truly best few candidates.
    pick = screen(x, _quadratic(x), candidates)
    assert np.argsort(np.argsort(_quadratic(candidates)))[pick] < 10


def test_it_fits_the_best_k_points_only_and_ignores_the_scale():
    rng = np.random.default_rng(1)
    x = rng.random((500, 3))
    y = _quadratic(np.hstack([x, np.zeros((500, 1))]))
    small = Surrogate(x, y, k=64)
    scaled = Surrogate(x, 1e9 * y + 5.0, k=64)  # a monotone change of the values changes nothing
    assert len(small.x) == 64
    candidates = rng.random((50, 3))
    np.testing.assert_allclose(small.predict(candidates)[0], scaled.predict(candidates)[0])


def test_running_trials_lower_the_appeal_of_their_neighbourhood():
    rng = np.random.default_rng(2)
    x = rng.random((40, 2))
    y = ((x - 0.5) ** 2).sum(-1)
    spot = np.array([[0.5, 0.5]])
    alone = Surrogate(x, y).expected_improvement(spot)[0]
    believed = Surrogate(x, y, pending=spot).expected_improvement(spot)[0]
    assert believed < alone


def _sphere(trial: optuna.Trial) -> float:
    return sum((trial.suggest_float(f"x{i}", -5.0, 5.0) - 1.0) ** 2 for i in range(4))


def test_the_sampler_with_the_screen_is_deterministic_per_seed_and_converges():
    runs = []
    for _ in range(2):
        study = optuna.create_study(sampler=SdeSampler(seed=5, surrogate=True))
        study.optimize(_sphere, n_trials=60)
        runs.append([t.params for t in study.trials])
        assert study.best_value < 0.5, study.best_value
    assert runs[0] == runs[1]
    other = optuna.create_study(sampler=SdeSampler(seed=5))  # the screen changes the proposals
    other.optimize(_sphere, n_trials=60)
    assert [t.params for t in other.trials] != runs[0]


def test_concurrent_asks_with_the_screen_are_distinct():
    study = optuna.create_study(sampler=SdeSampler(seed=3, surrogate=16))
    study.optimize(_sphere, n_trials=30)
    asked = [study.ask() for _ in range(8)]
    points = {tuple(t.suggest_float(f"x{i}", -5.0, 5.0) for i in range(4)) for t in asked}
    assert len(points) == 8
