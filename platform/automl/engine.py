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


def make_sampler(kind: str, *, seed: int, study_seed: int | None = None, parallelism: int = 1):
    """A sampler of ``kind`` (sde, tpe, cmaes, random). ``seed`` differs per ask (the study's seed
    plus the number of trials so far), so asks from different processes never replay one stream.
    The SDE sampler takes the study's fixed seed instead: it draws from (seed, trial number) itself,
    and one seed keeps its quasi-random start a single Halton sequence. It gets at least one
    particle per concurrent trial, so parallel asks rarely find their particle busy."""
    import optuna

    if kind == "sde":
        sde = sde_sampler_class()
        if sde is not None:
            return sde(seed=seed if study_seed is None else study_seed, n_particles=max(8, parallelism))
        return optuna.samplers.TPESampler(seed=seed, constant_liar=True)
    if kind == "tpe":
        return optuna.samplers.TPESampler(seed=seed, constant_liar=True)
    if kind == "cmaes":
        return optuna.samplers.CmaEsSampler(seed=seed, warn_independent_sampling=False)
    if kind == "random":
        return optuna.samplers.RandomSampler(seed=seed)
    raise ValueError(f"unknown sampler {kind!r}")


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
        ),
        pruner=make_pruner(study.pruner),
    )


def optuna_study_create(study) -> None:
    import optuna

    direction: Literal["maximize", "minimize"] = (
        "maximize" if study.objective.get("direction", "maximize") == "maximize" else "minimize"
    )
    optuna.create_study(
        study_name=study.optuna_name,
        storage=storage(),
        direction=direction,
        sampler=make_sampler(
            study.sampler, seed=study.seed, study_seed=study.seed, parallelism=study.parallelism
        ),
        pruner=make_pruner(study.pruner),
    )
