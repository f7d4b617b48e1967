"""A cheap surrogate that screens the SDE swarm's candidate proposals (numpy only).

The swarm proposes a point by drawing noise; with the screen on, it draws ``n`` such points from
the same distribution and keeps the one a small Gaussian process rates best. The GP is fitted to
the K best evaluated points only (K <= 64, so one fit is a few 64 x 64 Cholesky factorizations,
whatever the number of trials), on rank-transformed values (robust to the objective's scale and
outliers), with an isotropic Matern-5/2 kernel whose length scale is the marginal-likelihood best
of a small grid. Trials still running are added as "kriging believers" (their value is the GP's
own prediction): the variance collapses around them, so asynchronous workers do not all pick the
same promising spot. Candidates are ranked by expected improvement over the best value.
"""

from __future__ import annotations

import math

import numpy as np

_LENGTH_SCALES = (0.05, 0.1, 0.2, 0.4, 0.8)  # times sqrt(D): distances in [0, 1]^D grow with sqrt(D)
_NOISE = 1e-3  # the rank transform is noise-free; a small nugget keeps the Cholesky stable


def _matern52(a: np.ndarray, b: np.ndarray, length: float) -> np.ndarray:
    d2 = np.maximum((a * a).sum(1)[:, None] + (b * b).sum(1)[None, :] - 2.0 * a @ b.T, 0.0)
    r = np.sqrt(5.0 * d2) / length
    return (1.0 + r + r * r / 3.0) * np.exp(-r)


def _normal_scores(y: np.ndarray) -> np.ndarray:
    """Ranks mapped to logit quantiles (about normal): 0 mean, scale-free, outliers tamed."""
    order = np.argsort(y, kind="stable")
    ranks = np.empty(len(y))
    ranks[order] = np.arange(len(y))
    u = (ranks + 0.5) / len(y)
    z = np.log(u / (1.0 - u))
    return (z - z.mean()) / max(float(z.std()), 1e-12)


class Surrogate:
    """A GP over the K best points; ``predict`` gives the mean and standard deviation."""

    def __init__(self, x: np.ndarray, y: np.ndarray, *, pending: np.ndarray | None = None, k: int = 64):
        if len(x) < 2:
            raise ValueError("the surrogate needs at least 2 points")
        keep = np.argsort(y, kind="stable")[:k]
        self.x = np.asarray(x, dtype=float)[keep]
        self.z = _normal_scores(np.asarray(y, dtype=float)[keep])
        dim = self.x.shape[1]
        best = None
        for scale in _LENGTH_SCALES:
            length = scale * math.sqrt(dim)
            fit = self._fit(self.x, self.z, length)
            if fit is not None and (best is None or fit[0] > best[0]):
                best = fit
        if best is None:  # pragma: no cover - the nugget keeps every grid point positive definite
            raise np.linalg.LinAlgError("no length scale gave a positive definite kernel")
        _, self.length, self.chol, self.alpha, self.var = best
        self.best_z = float(self.z.min())
        if pending is not None and len(pending):
            # Kriging believer: running trials take the GP's mean as their value.
            pending = np.asarray(pending, dtype=float)
            mean, _ = self.predict(pending)
            x_all = np.vstack([self.x, pending])
            z_all = np.concatenate([self.z, mean])
            fit = self._fit(x_all, z_all, self.length)
            if fit is not None:
                self.x, self.z = x_all, z_all
                _, self.length, self.chol, self.alpha, self.var = fit

    @staticmethod
    def _fit(x: np.ndarray, z: np.ndarray, length: float):
        n = len(z)
        kern = _matern52(x, x, length) + _NOISE * np.eye(n)
        try:
            chol = np.linalg.cholesky(kern)
        except np.linalg.LinAlgError:
            return None
        alpha = np.linalg.solve(chol.T, np.linalg.solve(chol, z))
        var = max(float(z @ alpha) / n, 1e-9)  # the signal variance's closed-form maximum
        log_lik = -0.5 * n * math.log(var) - float(np.log(np.diag(chol)).sum())
        return log_lik, length, chol, alpha, var

    def predict(self, xc: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        ks = _matern52(np.asarray(xc, dtype=float), self.x, self.length)
        mean = ks @ self.alpha
        v = np.linalg.solve(self.chol, ks.T)
        var = self.var * np.maximum(1.0 + _NOISE - (v * v).sum(0), 1e-12)
        return mean, np.sqrt(var)

    def expected_improvement(self, xc: np.ndarray) -> np.ndarray:
        mean, std = self.predict(xc)
        gain = self.best_z - mean
        u = gain / std
        cdf = 0.5 * (1.0 + np.vectorize(math.erf)(u / math.sqrt(2.0)))
        pdf = np.exp(-0.5 * u * u) / math.sqrt(2.0 * math.pi)
        return gain * cdf + std * pdf


def screen(
    x: np.ndarray,
    y: np.ndarray,
    candidates: np.ndarray,
    *,
    pending: np.ndarray | None = None,
    k: int = 64,
) -> int:
    """The index of the candidate with the highest expected improvement (lower y is better)."""
    if len(candidates) == 1:
        return 0
    finite = np.isfinite(y)
    if finite.sum() < 2:
        return 0
    model = Surrogate(x[finite], y[finite], pending=pending, k=k)
    return int(np.argmax(model.expected_improvement(candidates)))
