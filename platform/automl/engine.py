"""Optuna for studies: the shared RDB storage, the samplers, the pruners and the search space's
distributions. No torch here (the web process asks trials too).

Storage: with PostgreSQL, Optuna's tables live in the platform's database in their own schema
``optuna`` (made by this app's migration), so every worker host shares them; in embedded mode
(SQLite) they live in ``SAMPAN_HOME/optuna.sqlite3``, a file next to the platform's database.
"""

from __future__ import annotations

import logging
import os
from typing import Any, Literal
from urllib.parse import quote

from django.conf import settings
from django.db import connections

logger = logging.getLogger("sampan.automl")

OPTUNA_SCHEMA = "optuna"
_storage_cache: dict[tuple[int, str], Any] = {}


def storage_url() -> tuple[str, dict[str, Any]]:
    """The SQLAlchemy URL of Optuna's storage and the engine's keyword arguments."""
    db = connections["default"].settings_dict
    if db["ENGINE"].endswith("postgresql"):
        user = quote(db.get("USER") or "", safe="")
        password = f":{quote(db['PASSWORD'], safe='')}" if db.get("PASSWORD") else ""
        auth = f"{user}{password}@" if user else ""
        port = f":{db['PORT']}" if db.get("PORT") else ""
        url = f"postgresql+psycopg://{auth}{db.get('HOST') or '127.0.0.1'}{port}/{db['NAME']}"
        # no pool: a study touches its storage a few times per epoch, and pooled connections would
        # outlive requests and keep a test database from being dropped
        from sqlalchemy.pool import NullPool

        return url, {"poolclass": NullPool, "connect_args": {"options": f"-csearch_path={OPTUNA_SCHEMA}"}}
    path = os.path.join(str(settings.SAMPAN_HOME), "optuna.sqlite3")
    return f"sqlite:///{path}", {"connect_args": {"timeout": 30}}


def storage():
    """The process's Optuna RDB storage (one engine per process: Celery forks its workers)."""
    import optuna

    url, engine_kwargs = storage_url()
    key = (os.getpid(), url)
    if key not in _storage_cache:
        optuna.logging.set_verbosity(optuna.logging.WARNING)
        _storage_cache[key] = optuna.storages.RDBStorage(url, engine_kwargs=engine_kwargs)
    return _storage_cache[key]


def sde_sampler_class():
    """Sampan's SDE sampler, or None while it is not installed (studies then ask TPE)."""
    try:
        from automl.sampler import SdeSampler
    except ImportError:
        return None
    return SdeSampler


def trial_constraints(trial, *, count: int) -> list[float]:
    """A trial's constraint values (Optuna's convention: <= 0 is feasible), from the ``constraints``
    user attr the trial's job sets before ``tell``. A trial without it (pruned before measuring)
    counts as violating every constraint."""
    found = trial.user_attrs.get("constraints")
    if isinstance(found, list) and len(found) == count:
        return [float(v) for v in found]
    return [1.0] * count


def _sde_takes_constraints(sde) -> bool:
    import inspect

    return "constraints_func" in inspect.signature(sde.__init__).parameters


def sampler_in_use(kind: str, *, multi_objective: bool = False, constrained: bool = False) -> str:
    """The sampler a study's trials are really asked from: sde falls back to tpe while it is not
    installed, and to nsga2 for a multi-objective or constrained study while it cannot take those."""
    if kind != "sde":
        return kind
    sde = sde_sampler_class()
    if sde is None:
        return "tpe"
    if (multi_objective or constrained) and not _sde_takes_constraints(sde):
        return "nsga2"
    return "sde"


def make_sampler(
    kind: str,
    *,
    seed: int,
    study_seed: int | None = None,
    parallelism: int = 1,
    constraints: int = 0,
    multi_objective: bool = False,
    continuous: bool = False,
):
    """A sampler of ``kind`` (sde, tpe, cmaes, random, nsga2, gp). ``seed`` differs per ask (the
    study's seed plus the number of trials so far), so asks from different processes never replay
    one stream. The SDE sampler takes the study's fixed seed instead: it draws from (seed, trial
    number) itself, and one seed keeps its quasi-random start a single Halton sequence. It gets at
    least one particle per concurrent trial, so parallel asks rarely find their particle busy.
    ``constraints`` > 0: the samplers that can take constraints get a ``constraints_func`` reading
    the trial's ``constraints`` user attr (see :func:`trial_constraints`)."""
    import functools
    import inspect

    import optuna

    constraints_func = functools.partial(trial_constraints, count=constraints) if constraints else None
    kind = sampler_in_use(kind, multi_objective=multi_objective, constrained=bool(constraints))
    if kind == "sde":
        sde = sde_sampler_class()
        assert sde is not None  # sampler_in_use said so
        extra: dict[str, Any] = {"constraints_func": constraints_func} if constraints_func is not None else {}
        if (multi_objective or constraints or continuous) and "surrogate" in inspect.signature(
            sde.__init__
        ).parameters:
            # the surrogate screen ranks better with several objectives or constraints and on mostly
            # continuous spaces (docs/benchmarks.md hpo_multi_objective, hpo-nextbar); on mostly
            # discrete ones (HPOBench's tables) it ranked worse, so those keep the plain swarm
            extra["surrogate"] = True
        return sde(seed=seed if study_seed is None else study_seed, n_particles=max(8, parallelism), **extra)
    if kind == "tpe":
        return optuna.samplers.TPESampler(seed=seed, constant_liar=True, constraints_func=constraints_func)
    if kind == "cmaes":
        return optuna.samplers.CmaEsSampler(seed=seed, warn_independent_sampling=False)
    if kind == "random":
        return optuna.samplers.RandomSampler(seed=seed)
    if kind == "nsga2":
        # a small population: studies are tens of trials, and a generation waits for its population
        return optuna.samplers.NSGAIISampler(
            seed=seed, population_size=max(4, min(20, parallelism * 2)), constraints_func=constraints_func
        )
    if kind == "gp":
        return optuna.samplers.GPSampler(
            seed=seed,
            n_startup_trials=GP_STARTUP_TRIALS,
            constraints_func=constraints_func,
            warn_independent_sampling=False,
        )
    raise ValueError(f"unknown sampler {kind!r}")


# Optuna's GPSampler fits its model with torch once a study has GP_STARTUP_TRIALS finished trials
# (before that it samples at random). The web process never imports torch (DESIGN §2), so it leaves
# a gp study's later asks to the processes that may: the worker that records a trial and the
# housekeeping reconciler (every SAMPAN_REAPER_INTERVAL_SECONDS) fill the free slots instead.
GP_STARTUP_TRIALS = 10
_torch_allowed = True


def forbid_torch() -> None:
    """Called once by the web process (config/wsgi.py): asks that would import torch are left to others."""
    global _torch_allowed
    _torch_allowed = False


def may_ask_here(sampler: str, finished_trials: int) -> bool:
    """Whether this process may ask a study with ``sampler`` that has ``finished_trials`` for a trial."""
    return _torch_allowed or sampler != "gp" or finished_trials < GP_STARTUP_TRIALS


def make_pruner(kind: str):
    import optuna

    if kind == "median":
        # n_startup_trials=2: with tiny budgets pruning still gets to decide
        return optuna.pruners.MedianPruner(n_startup_trials=2, n_warmup_steps=1)
    if kind == "successive_halving":
        return optuna.pruners.SuccessiveHalvingPruner(min_resource=1, reduction_factor=2)
    return optuna.pruners.NopPruner()


def distributions(search_space: list[dict[str, Any]]) -> dict[str, Any]:
    """Optuna distributions of a validated search space."""
    from optuna.distributions import CategoricalDistribution, FloatDistribution, IntDistribution

    found: dict[str, Any] = {}
    for dim in search_space:
        if dim["type"] == "categorical":
            found[dim["name"]] = CategoricalDistribution(list(dim["choices"]))
        elif dim["type"] == "int":
            found[dim["name"]] = IntDistribution(
                int(dim["low"]), int(dim["high"]), log=bool(dim.get("log")), step=int(dim.get("step") or 1)
            )
        else:
            found[dim["name"]] = FloatDistribution(
                float(dim["low"]), float(dim["high"]), log=bool(dim.get("log")), step=dim.get("step")
            )
    return found


def mostly_continuous(search_space: list[dict[str, Any]]) -> bool:
    """At least half of the dimensions are floats, or ints with more than 16 values."""
    if not search_space:
        return False
    continuous = sum(
        1
        for dim in search_space
        if dim["type"] == "float"
        or (dim["type"] == "int" and (int(dim["high"]) - int(dim["low"])) / int(dim.get("step") or 1) >= 16)
    )
    return continuous * 2 >= len(search_space)


def optuna_study(study, *, seed: int | None = None):
    """Load a platform study's Optuna study with its sampler (seeded by ``seed``) and pruner."""
    import optuna

    return optuna.load_study(
        study_name=study.optuna_name,
        storage=storage(),
        sampler=make_sampler(
            study.sampler,
            seed=study.seed if seed is None else seed,
            study_seed=study.seed,
            parallelism=study.parallelism,
            constraints=len(study.constraints),
            multi_objective=study.is_multi_objective,
            continuous=mostly_continuous(study.search_space),
        ),
        pruner=make_pruner(study.pruner),
    )


def optuna_study_create(study) -> None:
    """Record the study in Optuna's storage: one direction per objective."""
    import optuna

    directions: list[Literal["maximize", "minimize"]] = [
        "maximize" if goal.get("direction", "maximize") == "maximize" else "minimize" for goal in study.goals
    ]
    optuna.create_study(
        study_name=study.optuna_name,
        storage=storage(),
        directions=directions,
        sampler=make_sampler(
            study.sampler,
            seed=study.seed,
            study_seed=study.seed,
            parallelism=study.parallelism,
            constraints=len(study.constraints),
            multi_objective=study.is_multi_objective,
            continuous=mostly_continuous(study.search_space),
        ),
        pruner=make_pruner(study.pruner),
    )
