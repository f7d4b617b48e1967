"""Sampan's SDE sampler: damped-momentum particles around a consensus point (DESIGN §8).

The search space is encoded to [0, 1]^D. The first trials are scrambled Halton points. After that,
trial t belongs to particle t mod N and moves that particle one step:

    m <- max(0, 1 - 3a/k) m - a (x - p_i) - a (x - v)
    x <- x + a m + s_k (x - v) * xi + e_min * xi'

with p_i the particle's best evaluated point, v the consensus (softmin over the ranks of the best
completed trials), k the particle's step count, xi and xi' standard normal, and reflection at the
cube's faces. Everything a step needs (position, momentum, step count) is written to the new
trial's system attrs, so any worker of any process can ask next: there is no generation barrier.
When the particle's previous trial is still running, the ask returns an exploratory point drawn
around the consensus instead, and the particle keeps its state. Late in a run some asks are local
steps around the incumbent, inside a trust region set by the spread of the best trials. A
particle that has collapsed onto the consensus without improving restarts at a fresh point.

Only COMPLETE trials count as evaluations: pruned trials never become bests, failed ones are
ignored, and both still advance their particle (their position is the particle's next start).
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from optuna.distributions import BaseDistribution
from optuna.samplers import BaseSampler
from optuna.samplers._base import _process_constraints_after_trial
from optuna.study import Study, StudyDirection
from optuna.trial import FrozenTrial, TrialState

from .encoding import SpaceEncoding
from .objectives import fitness, particle_weights
from .qmc import halton
from .surrogate import screen

_ATTR = "sde"  # the system attr holding a trial's sampler state
_MOVE_KINDS = ("init", "move", "restart")
_MISSING = object()


class SdeSampler(BaseSampler):
    """An asynchronous particle sampler (momentum + consensus); multi-objective and constrained
    studies rank trials by objectives.fitness (per-particle Chebyshev weights, Deb's rules).

    Example::

        sampler = SdeSampler(seed=0)
        study = optuna.create_study(sampler=sampler)
        study.optimize(objective, n_trials=100)

    Args:
        seed: seed of every random choice (the same seed and the same completion order give the
            same trials).
        n_particles: N, the number of particles (default ``max(8, 4 + 3 ln D)``); keep it at least
            the number of concurrent workers, otherwise workers find busy particles more often.
        n_startup_trials: quasi-random trials before the particles move (default
            ``max(N, min(D + 1, 2 N))`` plus nothing else).
        step: a, the step size of the momentum update.
        noise: s_0, the scale of the consensus noise s_k (annealed as s_0 / sqrt(k)).
        e_min: the floor of the exploration noise (default ``0.02 / sqrt(D / 5)`` per coordinate).
        temperature: the softmin temperature over ranks at the start, in units of N; annealed as
            more trials complete.
        local_fraction: the largest share of asks that take a local step around the incumbent.
        local_radius: that step's scale relative to the spread of the best trials.
        patience: steps without a personal improvement after which a collapsed particle restarts.
        explore_fraction: share of the other asks that sample around the consensus (as a busy
            particle does) instead of moving a particle.
        surrogate: screen the swarm's proposals with a small GP (surrogate.py): each ask draws this
            many candidates (True: 32) from the move's own distribution and keeps the one with
            the highest expected improvement; False (default) keeps the single draw.
        smoothing: in spaces with int, step or categorical parameters, trials are ranked by a
            Gaussian-kernel average of the values around them (this bandwidth in cube units), which
            keeps a noisy lucky value from pulling the swarm; None ranks raw values.
        constraints_func: Optuna's convention: trial -> constraint values, ``<= 0`` feasible;
            stored as the trial's ``constraints`` system attr after it finishes.
    """

    def __init__(
        self,
        *,
        seed: int | None = None,
        n_particles: int | None = None,
        n_startup_trials: int | None = None,
        step: float = 0.5,
        noise: float = 0.5,
        e_min: float | None = None,
        temperature: float = 0.5,
        local_fraction: float = 0.3,
        local_radius: float = 1.0,
        patience: int = 4,
        explore_fraction: float = 0.5,
        surrogate: bool | int = False,
        smoothing: float | None = 0.25,
        constraints_func: Callable[[FrozenTrial], Sequence[float]] | None = None,
    ) -> None:
        if n_particles is not None and n_particles < 2:
            raise ValueError("n_particles must be at least 2")
        if n_startup_trials is not None and n_startup_trials < 1:
            raise ValueError("n_startup_trials must be at least 1")
        if seed is None:
            entropy = np.random.SeedSequence().entropy
            assert isinstance(entropy, int)  # a SeedSequence made without entropy draws an int
            seed = entropy % (2**31)
        self._seed = int(seed)
        self._n_particles = n_particles
        self._n_startup_trials = n_startup_trials
        self._step = step
        self._noise = noise
        self._e_min = e_min
        self._temperature = temperature
        self._local_fraction = local_fraction
        self._local_radius = local_radius
        self._patience = patience
        self._explore_fraction = explore_fraction
        self._smoothing = smoothing
        self._constraints_func = constraints_func
        self._surrogate = 32 if surrogate is True else int(surrogate)
        self._spaces: dict[tuple[int, int], tuple[dict[str, BaseDistribution] | None, set[int]]] = {}
        self._lock = threading.Lock()
        self._encodings: dict[str, SpaceEncoding] = {}
        # Encoded points of finished trials (immutable once finished), by (storage, trial id, space).
        self._points: dict[tuple[int, int, str], np.ndarray | None] = {}

    # -- Optuna's sampler interface -------------------------------------------------------------

    def reseed_rng(self) -> None:
        # Every random draw is seeded by (seed, trial number): copies of this sampler in other
        # threads or processes never repeat each other's points, so there is nothing to reseed.
        pass

    def after_trial(
        self, study: Study, trial: FrozenTrial, state: TrialState, values: Sequence[float] | None
    ) -> None:
        # The `constraints` system attr, written as Optuna's samplers write it (NSGA-II, TPE read it).
        if self._constraints_func is not None:
            _process_constraints_after_trial(self._constraints_func, study, trial, state)

    def infer_relative_search_space(self, study: Study, trial: FrozenTrial) -> dict[str, BaseDistribution]:
        # The intersection of the spaces of all finished (complete or pruned) trials, updated
        # incrementally: finished trials never change.
        key = (id(study._storage), study._study_id)
        with self._lock:
            space, seen = self._spaces.get(key, (None, set()))
            for t in study._get_trials(deepcopy=False, use_cache=True):
                if t.state not in (TrialState.COMPLETE, TrialState.PRUNED) or t._trial_id in seen:
                    continue
                seen.add(t._trial_id)
                if space is None:
                    space = dict(t.distributions)
                else:
                    space = {n: d for n, d in space.items() if t.distributions.get(n) == d}
            self._spaces[key] = (space, seen)
        return dict(sorted((space or {}).items()))

    def sample_independent(
        self, study: Study, trial: FrozenTrial, param_name: str, param_distribution: BaseDistribution
    ) -> Any:
        # Parameters outside the joint space (the first trials, dynamic ones): a Halton coordinate
        # chosen by the parameter's position in this trial.
        q = halton(self._seed, trial.number, len(trial.params))
        return SpaceEncoding({param_name: param_distribution}).from_quantiles(np.array([q]))[param_name]

    def sample_relative(
        self, study: Study, trial: FrozenTrial, search_space: dict[str, BaseDistribution]
    ) -> dict[str, Any]:
        if not search_space:
            return {}
        enc = self._encoding(search_space)
        if enc.dim == 0:
            return {}
        dim = enc.dim
        n_particles = self._n_particles or max(8, int(4 + 3 * math.log(dim)))
        n_startup = self._n_startup_trials or max(n_particles, min(dim + 1, 2 * n_particles))
        trials = study._get_trials(deepcopy=False, use_cache=True)
        complete, x_all = self._evaluated(study, trials, enc, search_space)
        if trial.number < n_startup or len(complete) < 2:
            q = np.array([halton(self._seed, trial.number, j) for j in range(enc.n_free)])
            self._set(study, trial, {"kind": "startup"})
            return enc.from_quantiles(q)

        rng = np.random.default_rng([self._seed, trial.number])
        if len(study.directions) > 1 or self._constraints_func is not None:
            # Several objectives or constraints: objectives.py ranks (per-particle weights, Deb).
            weights = particle_weights(
                self._seed, trial.number % n_particles, n_particles, len(study.directions)
            )
            y = fitness(complete, study.directions, weights=weights)
        else:
            sign = 1.0 if study.direction == StudyDirection.MINIMIZE else -1.0
            y = sign * np.array([t.value for t in complete], dtype=float)
        score = y
        if self._smoothing and enc.discrete and np.all(np.isfinite(y)):
            # Noisy discrete spaces: rank by a kernel average over nearby configurations.
            d2 = ((x_all[:, None, :] - x_all[None, :, :]) ** 2).sum(-1)
            kern = np.exp(-d2 / (2 * self._smoothing**2))
            score = kern @ y / kern.sum(1)
        order = np.argsort(score, kind="stable")
        ranks = np.empty(len(y))
        ranks[order] = np.arange(len(y))
        by_number = {t.number: i for i, t in enumerate(complete)}

        # Softmin over ranks: the temperature falls as evaluations accumulate past the startup.
        progress = max(0, len(complete) - n_startup) / n_particles
        tau = max(1.0, self._temperature * n_particles / (1.0 + 0.5 * progress))
        w = np.exp(-ranks / tau)
        w /= w.sum()
        v = w @ x_all
        spread = np.sqrt(np.maximum(w @ (x_all - v) ** 2, 0.0))
        e_min = self._e_min if self._e_min is not None else 0.02 / math.sqrt(max(dim, 5) / 5)
        best = x_all[order[0]]
        n_cand = max(1, self._surrogate)
        pending = self._pending(trial, trials, enc) if n_cand > 1 else None

        def pick(candidates: np.ndarray) -> np.ndarray:
            # One row: the swarm's own draw, or the surrogate's choice among n_cand draws.
            return candidates[screen(x_all, score, candidates, pending=pending) if n_cand > 1 else 0]

        particle = trial.number % n_particles
        history = [t for t in trials if t.number < trial.number and _attrs(t).get("particle") == particle]
        moves = [t for t in history if _attrs(t).get("kind") in _MOVE_KINDS]
        prev = max(moves, key=lambda t: t.number) if moves else None

        # Late in the run a share of the asks refine the incumbent inside a trust region.
        local_share = self._local_fraction * min(1.0, progress / 8.0)
        busy = prev is not None and not prev.state.is_finished()
        if rng.random() < local_share:
            radius = np.maximum(self._local_radius * spread, e_min)
            x = pick(_reflect(best + radius * rng.standard_normal((n_cand, dim))))
            return self._propose(
                study, trial, enc, trials, rng, x, e_min, {"kind": "local", "particle": particle}
            )
        if busy or rng.random() < self._explore_fraction:
            # The particle is busy elsewhere (or this ask explores): sample around the consensus
            # with the spread of the best trials; the particle keeps its state.
            x = pick(_reflect(v + np.maximum(spread, e_min) * rng.standard_normal((n_cand, dim))))
            return self._propose(
                study, trial, enc, trials, rng, x, e_min, {"kind": "explore", "particle": particle}
            )

        if prev is None or len(_attrs(prev).get("x", ())) != dim:
            # First move of this particle: start from the i-th best evaluated point.
            origin = complete[order[particle % len(order)]]
            x, m, k, epoch, kind = x_all[by_number[origin.number]], np.zeros(dim), 1, 0, "init"
            p_best = x
            origin_number = origin.number
        else:
            x = np.asarray(_attrs(prev)["x"], dtype=float)
            m = np.asarray(_attrs(prev)["m"], dtype=float)
            k = int(_attrs(prev)["k"]) + 1
            epoch = int(_attrs(prev).get("epoch", 0))
            origin_number = _attrs(prev).get("origin")
            kind = "move"
            p_best, stale = self._personal_best(history, epoch, origin_number, by_number, x_all, y, k)
            if p_best is None:
                p_best = x
            collapsed = float(np.max(np.abs(x - v))) < 2 * e_min and float(np.max(np.abs(m))) < 2 * e_min
            if stale >= self._patience and collapsed:
                x = pick(rng.random((n_cand, dim)))
                state = _state(particle, "restart", x, np.zeros(dim), 1, epoch + 1, None)
                return self._propose(study, trial, enc, trials, rng, x, e_min, state)

        a = self._step
        s_k = self._noise / math.sqrt(k)
        m = max(0.0, 1.0 - 3.0 * a / k) * m - a * (x - p_best) - a * (x - v)
        noise = (rng.standard_normal((n_cand, dim)), rng.standard_normal((n_cand, dim)))
        x = pick(_reflect(x + a * m + s_k * (x - v) * noise[0] + e_min * noise[1]))
        return self._propose(
            study, trial, enc, trials, rng, x, e_min, _state(particle, kind, x, m, k, epoch, origin_number)
        )

    def _propose(
        self,
        study: Study,
        trial: FrozenTrial,
        enc: SpaceEncoding,
        trials: Sequence[FrozenTrial],
        rng: np.random.Generator,
        x: np.ndarray,
        e_min: float,
        attrs: dict[str, Any],
    ) -> dict[str, Any]:
        """Decode x, nudging it first while it lands on the params of another trial: in int, step
        and categorical spaces a particle would otherwise spend trials on configurations that
        were already run (or are running)."""
        params = enc.decode(x)
        if enc.discrete:
            taken = {
                tuple(t.params.get(n, _MISSING) for n in enc.names)
                for t in trials
                if t.number != trial.number
            }
            scale = max(e_min, 0.05)
            for _ in range(16):
                if tuple(params[n] for n in enc.names) not in taken:
                    break
                x = _reflect(x + scale * rng.standard_normal(enc.dim))
                params = enc.decode(x)
                scale *= 1.3
            if "x" in attrs:
                attrs["x"] = [float(c) for c in x]
        self._set(study, trial, attrs)
        return params

    # -- internals ------------------------------------------------------------------------------

    def _pending(self, trial: FrozenTrial, trials: Sequence[FrozenTrial], enc: SpaceEncoding) -> np.ndarray:
        """Encoded points of the other running trials that have all the space's params."""
        points = [
            enc.encode(t.params)
            for t in trials
            if t.state == TrialState.RUNNING
            and t.number != trial.number
            and all(n in t.params for n in enc.names)
        ]
        return np.array(points) if points else np.empty((0, enc.dim))

    def _encoding(self, search_space: dict[str, BaseDistribution]) -> SpaceEncoding:
        enc = SpaceEncoding(search_space)
        with self._lock:
            return self._encodings.setdefault(enc.signature, enc)

    def _evaluated(
        self,
        study: Study,
        trials: Sequence[FrozenTrial],
        enc: SpaceEncoding,
        search_space: dict[str, BaseDistribution],
    ) -> tuple[list[FrozenTrial], np.ndarray]:
        """The COMPLETE trials that cover the space, and their points (cached: finished trials
        never change). A particle's stored position is used when it decodes to the trial's
        params: it keeps where the trial sat inside its int, step or categorical cell."""
        storage_key = id(study._storage)
        complete, points = [], []
        for t in trials:
            if t.state != TrialState.COMPLETE:
                continue
            key = (storage_key, t._trial_id, enc.signature)
            point = self._points.get(key, _MISSING)
            if point is _MISSING:
                point = None
                if _covers(t, search_space):
                    stored = _attrs(t).get("x")
                    params = {n: t.params[n] for n in enc.names}
                    if (
                        stored is not None
                        and len(stored) == enc.dim
                        and enc.decode(np.asarray(stored)) == params
                    ):
                        point = np.asarray(stored, dtype=float)
                    else:
                        point = enc.encode(t.params)
                self._points[key] = point
            if point is not None:
                complete.append(t)
                points.append(point)
        return complete, (np.array(points) if points else np.empty((0, enc.dim)))

    def _personal_best(
        self,
        history: list[FrozenTrial],
        epoch: int,
        origin_number: int | None,
        by_number: dict[int, int],
        x_all: np.ndarray,
        y: np.ndarray,
        k: int,
    ) -> tuple[np.ndarray | None, int]:
        """The particle's best COMPLETE point of this epoch and how many steps ago it improved."""
        best_i, best_k = None, 1
        if origin_number is not None and origin_number in by_number:
            best_i = by_number[origin_number]
        for t in sorted(history, key=lambda t: t.number):
            if _attrs(t).get("epoch", 0) != epoch or t.number not in by_number:
                continue
            i = by_number[t.number]
            if best_i is None or y[i] < y[best_i]:
                best_i, best_k = i, int(_attrs(t).get("k", best_k))
        if best_i is None:
            return None, k
        return x_all[best_i], k - best_k

    def _set(self, study: Study, trial: FrozenTrial, attrs: dict[str, Any]) -> None:
        # One attribute, one write: with RDB storage every write is a round trip.
        study._storage.set_trial_system_attr(trial._trial_id, _ATTR, attrs)


def _state(particle: int, kind: str, x, m, k: int, epoch: int, origin: int | None) -> dict[str, Any]:
    return {
        "particle": particle,
        "kind": kind,
        "x": [float(c) for c in x],
        "m": [float(c) for c in m],
        "k": k,
        "epoch": epoch,
        "origin": origin,
    }


def _attrs(trial: FrozenTrial) -> dict[str, Any]:
    return trial.system_attrs.get(_ATTR) or {}


def _reflect(x: np.ndarray) -> np.ndarray:
    """Fold a point back into [0, 1]^D by reflection at the faces."""
    x = np.mod(x, 2.0)
    return np.where(x > 1.0, 2.0 - x, x)


def _covers(trial: FrozenTrial, search_space: dict[str, BaseDistribution]) -> bool:
    return all(trial.distributions.get(name) == dist for name, dist in search_space.items())
