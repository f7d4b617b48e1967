"""Scrambled Halton points, one coordinate at a time.

Point t, coordinate j is the radical inverse of t in the j-th prime base with a random permutation
of the non-zero digits per coordinate (Braaten-Weller style, which breaks the correlation between
high bases at small t) and a random Cranley-Patterson shift. Any worker computes any coordinate of
any point from (seed, t, j) alone, so startup points need no shared state and a parameter that
first appears in trial t still gets a low-discrepancy value.
"""

from __future__ import annotations

import numpy as np

_PRIMES: list[int] = []


def _prime(j: int) -> int:
    candidate = _PRIMES[-1] + 1 if _PRIMES else 2
    while len(_PRIMES) <= j:
        if all(candidate % p for p in _PRIMES if p * p <= candidate):
            _PRIMES.append(candidate)
        candidate += 1
    return _PRIMES[j]


def halton(seed: int, t: int, j: int) -> float:
    """Coordinate j of the t-th point of the scrambled Halton sequence of this seed, in [0, 1)."""
    base = _prime(j)
    rng = np.random.default_rng([seed, 7919, j])
    perm = np.concatenate([[0], 1 + rng.permutation(base - 1)])
    shift = rng.random()
    value, scale, n = 0.0, 1.0 / base, t + 1
    while n > 0:
        n, digit = divmod(n, base)
        value += perm[digit] * scale
        scale /= base
    return (value + shift) % 1.0


def halton_point(seed: int, t: int, dim: int) -> np.ndarray:
    return np.array([halton(seed, t, j) for j in range(dim)])
