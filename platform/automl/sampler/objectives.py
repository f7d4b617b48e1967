"""How the SDE sampler ranks trials of multi-objective and constrained studies.

The swarm needs one number per COMPLETE trial, lower is better: it picks the particles' personal
bests and weights the consensus by its ranks. With several objectives that number is, for the
particle that asks:

    level(t) + chebyshev_w(t) / (1 + max chebyshev_w)

- level: the trial's non-dominated-sort level among the feasible trials (0 = the current front);
- chebyshev_w: the augmented Chebyshev scalarisation max_j w_j r_j + 0.05 sum_j w_j r_j of the
  rank-normalised objectives (r_j in [0, 1]), with weights w fixed per particle
  (evenly spread over the simplex, rotated by the seed; MOEA/D's subproblems, ParEGO's
  scalarisation). Each particle follows its own region of the front, so the swarm spreads along
  it instead of collapsing on one compromise.

Constraints follow Deb's rules: every feasible trial ranks before every infeasible one, and the
infeasible ones rank by their total violation sum_j max(0, c_j). Constraint values are Optuna's
convention (``c <= 0`` is feasible) and live in the trial's ``constraints`` system attr, written by
the sampler's ``after_trial`` the way Optuna's own samplers write it, so NSGA-II and TPE read the
same values.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from optuna.study import StudyDirection
from optuna.study._constrained_optimization import _CONSTRAINTS_KEY
from optuna.trial import FrozenTrial

__all__ = ["CONSTRAINTS_KEY", "fitness", "non_dominated_levels", "particle_weights", "violation"]

CONSTRAINTS_KEY = _CONSTRAINTS_KEY
_AUGMENT = 0.05


def particle_weights(seed: int, particle: int, n_particles: int, n_objectives: int) -> np.ndarray:
    """The Chebyshev weights of one particle: evenly spread over the simplex for 2 objectives
    (a seed-dependent offset keeps runs with different seeds from sharing directions), a seeded
    Dirichlet(1) draw for 3 or more. Example: ``particle_weights(0, 3, 8, 2)`` -> ``[w, 1 - w]``."""
    rng = np.random.default_rng([seed, particle, 7919])
    if n_objectives == 2:
        offset = np.random.default_rng([seed, 7919]).random()
        w1 = ((particle + offset) % n_particles) / n_particles
        w = np.array([w1, 1.0 - w1])
    else:
        w = rng.dirichlet(np.ones(n_objectives))
    return np.maximum(w, 1e-3)


def violation(
    trials: Sequence[FrozenTrial], constraints: Sequence[Sequence[float] | None] | None = None
) -> np.ndarray:
    """Total constraint violation per trial (0 = feasible). ``constraints`` defaults to each
    trial's ``constraints`` system attr; a trial without one is feasible when no trial has one
    and infinitely infeasible otherwise (it was never checked)."""
    if constraints is None:
        constraints = [t.system_attrs.get(CONSTRAINTS_KEY) for t in trials]
    if all(c is None for c in constraints):
        return np.zeros(len(trials))
    out = np.empty(len(trials))
    for i, c in enumerate(constraints):
        out[i] = np.inf if c is None else float(np.sum(np.maximum(np.asarray(c, dtype=float), 0.0)))
    return out


def non_dominated_levels(f: np.ndarray) -> np.ndarray:
    """Non-dominated-sort level of each row of f (minimised), 0 for the front."""
    n = len(f)
    levels = np.full(n, -1)
    if n == 0:
        return levels
    le = np.all(f[:, None, :] <= f[None, :, :], axis=2)
    lt = np.any(f[:, None, :] < f[None, :, :], axis=2)
    dominates = le & lt  # dominates[i, j]: i dominates j
    count = dominates.sum(0)
    level = 0
    current = np.flatnonzero(count == 0)
    while current.size:
        levels[current] = level
        count = count - dominates[current].sum(0)
        count[levels >= 0] = -1
        current = np.flatnonzero(count == 0)
        level += 1
    return levels


def fitness(
    trials: Sequence[FrozenTrial],
    directions: Sequence[StudyDirection],
    constraints: Sequence[Sequence[float] | None] | None = None,
    *,
    weights: np.ndarray | None = None,
) -> np.ndarray:
    """One value per COMPLETE trial, lower is better (see the module docstring). ``weights``: the
    asking particle's Chebyshev weights (default: equal). With one objective the value is the
    (minimised) objective itself for feasible trials."""
    n = len(trials)
    if n == 0:
        return np.zeros(0)
    signs = np.array([1.0 if d == StudyDirection.MINIMIZE else -1.0 for d in directions])
    f = np.array([t.values for t in trials], dtype=float) * signs
    f = np.where(np.isnan(f), np.inf, f)
    viol = violation(trials, constraints)
    feasible = viol <= 0.0
    score = np.empty(n)

    if feasible.any():
        ff = f[feasible]
        if len(directions) == 1:
            fs = ff[:, 0]
        else:
            w = np.full(f.shape[1], 1.0 / f.shape[1]) if weights is None else np.asarray(weights, dtype=float)
            fs = _scalarised(ff, w)
        score[feasible] = fs
        worst = float(np.max(fs[np.isfinite(fs)])) if np.isfinite(fs).any() else 0.0
        best = float(np.min(fs[np.isfinite(fs)])) if np.isfinite(fs).any() else 0.0
        score[feasible] = np.where(np.isfinite(fs), fs, worst + 1.0)
        offset = worst + 1.0 + (worst - best)
    else:
        offset = 0.0
    if (~feasible).any():
        v = viol[~feasible]
        # Deb: infeasible after feasible, by total violation (ranked: the scale of c is arbitrary).
        order = np.argsort(v, kind="stable")
        ranks = np.empty(len(v))
        ranks[order] = np.arange(len(v))
        ranks = _tie_ranks(v, ranks)
        score[~feasible] = offset + 1.0 + ranks
    return score


def _scalarised(f: np.ndarray, w: np.ndarray) -> np.ndarray:
    levels = non_dominated_levels(np.where(np.isfinite(f), f, np.finfo(float).max))
    # Rank-normalised objectives: scale-free, and an outlier (a diverged trial) cannot squash the rest.
    g = np.argsort(np.argsort(f, axis=0, kind="stable"), axis=0, kind="stable") / max(1, len(f) - 1)
    cheb = np.max(w * g, axis=1) + _AUGMENT * np.sum(w * g, axis=1)
    return levels + cheb / (1.0 + float(cheb.max()))


def _tie_ranks(v: np.ndarray, ranks: np.ndarray) -> np.ndarray:
    """Equal violations share the lowest rank of their group."""
    out = ranks.copy()
    for value in np.unique(v):
        same = v == value
        out[same] = ranks[same].min()
    return out
