"""Statistical forecasters, one series at a time: naive, seasonal naive, ETS (additive errors,
automatic trend and season by AICc), a small automatic ARIMA and theta.

``fit`` chooses a model's form and estimates its parameters (JSON-able numbers and strings);
``forecast`` re-runs the model from those parameters on any history (the training series, or the
history a prediction request sends) and gives the point forecast and quantiles. ``forecast`` is
NumPy only: the model packages run it without SciPy or statsmodels. Quantiles are normal
quantiles of each step's forecast standard deviation (from the model's one-step residuals).

ETS initial states are not parameters: for given smoothing parameters the one-step errors are
linear in the initial level and trend, so both ``fit`` and ``forecast`` take the least-squares
initial level and trend of the history at hand (the initial seasonal pattern is the history's
classical decomposition). The smoothing parameters are found by a vectorised coarse-to-fine grid
search (every candidate filtered at once), which keeps a fit at a few milliseconds.

>>> y = 10 + np.sin(np.arange(48) * np.pi / 6)
>>> params = fit("ets", y, 12, 6)
>>> mean, q = forecast("ets", params, y, 12, 6, [0.1, 0.9])
>>> bool(np.abs(mean - y[:6]).max() < 0.1), q.shape
(True, (2, 6))
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

STATISTICAL = ("naive", "seasonal_naive", "ets", "arima", "theta")

Params = dict[str, float | int | str]

_TINY = 1e-10

#: The most recent points an ETS fit searches its parameters on.
ETS_FIT_POINTS = 600


# --- shared pieces -------------------------------------------------------------------------


def normal_quantile(p: np.ndarray | float) -> np.ndarray:
    """The standard normal distribution's inverse CDF (Acklam's rational approximation, relative
    error below 1.2e-9)."""
    p = np.clip(np.asarray(p, dtype=np.float64), 1e-12, 1 - 1e-12)
    a = (
        -39.69683028665376,
        220.9460984245205,
        -275.9285104469687,
        138.3577518672690,
        -30.66479806614716,
        2.506628277459239,
    )
    b = (-54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572)
    c = (
        -0.007784894002430293,
        -0.3223964580411365,
        -2.400758277161838,
        -2.549732539343734,
        4.374664141464968,
        2.938163982698783,
    )
    d = (0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416)
    low = 0.02425
    out = np.empty_like(p)
    lower = p < low
    upper = p > 1 - low
    middle = ~(lower | upper)
    q = np.sqrt(-2 * np.log(p[lower]))
    out[lower] = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) / (
        (((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1
    )
    q = np.sqrt(-2 * np.log(1 - p[upper]))
    out[upper] = -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) / (
        (((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1
    )
    q = p[middle] - 0.5
    r = q * q
    out[middle] = (
        (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5])
        * q
        / (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1)
    )
    return out


def _quantiles(mean: np.ndarray, sd: np.ndarray, quantiles: Sequence[float]) -> np.ndarray:
    z = normal_quantile(np.asarray(list(quantiles), dtype=np.float64))
    values: np.ndarray = mean[None, :] + z[:, None] * sd[None, :]
    return values


def _clean(y: np.ndarray) -> np.ndarray:
    y = np.asarray(y, dtype=np.float64).ravel()
    return y[np.isfinite(y)]


def _naive(y: np.ndarray, horizon: int, sigma: float | None) -> tuple[np.ndarray, np.ndarray]:
    last = float(y[-1]) if y.shape[0] else 0.0
    if y.shape[0] > 2:
        sigma = float(np.sqrt(np.mean(np.diff(y) ** 2)))
    sd = (sigma or 0.0) * np.sqrt(np.arange(1, horizon + 1))
    return np.full(horizon, last), sd


def _seasonal_naive(
    y: np.ndarray, m: int, horizon: int, sigma: float | None
) -> tuple[np.ndarray, np.ndarray]:
    if m <= 1 or y.shape[0] < m:
        return _naive(y, horizon, sigma)
    steps = np.arange(horizon)
    mean = y[y.shape[0] - m + steps % m]
    if y.shape[0] > m + 2:
        sigma = float(np.sqrt(np.mean((y[m:] - y[:-m]) ** 2)))
    sd = (sigma or 0.0) * np.sqrt(steps // m + 1.0)
    return mean, sd


def seasonal_pattern(y: np.ndarray, m: int) -> np.ndarray:
    """The additive seasonal pattern of ``y`` by classical decomposition (centred moving average,
    mean deviation per season position, centred to sum 0); the pattern's first value belongs to
    ``y[0]``'s position. Zeros when ``y`` is shorter than two seasons."""
    n = y.shape[0]
    if m <= 1 or n < 2 * m:
        return np.zeros(max(m, 1))
    weights = np.r_[0.5, np.ones(m - 1), 0.5] / m if m % 2 == 0 else np.ones(m) / m
    trend = np.convolve(y, weights, mode="valid")
    offset = (weights.shape[0] - 1) // 2
    detrended = y[offset : offset + trend.shape[0]] - trend
    positions = (np.arange(trend.shape[0]) + offset) % m
    sums = np.bincount(positions, weights=detrended, minlength=m)
    counts = np.bincount(positions, minlength=m)
    pattern: np.ndarray = sums / np.maximum(counts, 1)
    return pattern - float(pattern.mean())


def _seasonal_test(y: np.ndarray, m: int) -> bool:
    """Whether ``y`` looks seasonal at lag ``m`` (the theta method's 90% autocorrelation test)."""
    n = y.shape[0]
    if m <= 1 or n < 3 * m:
        return False
    z = y - y.mean()
    denominator = float(np.sum(z * z))
    if denominator <= _TINY:
        return False
    acf = np.array([np.sum(z[k:] * z[:-k]) / denominator for k in range(1, m + 1)])
    limit = 1.645 * np.sqrt((1 + 2 * np.sum(acf[:-1] ** 2)) / n)
    return bool(abs(acf[-1]) > limit)


# --- ETS -------------------------------------------------------------------------------------


def _ets_filter(
    y: np.ndarray,
    m: int,
    alpha: np.ndarray,
    beta: np.ndarray,
    gamma: np.ndarray,
    phi: np.ndarray,
    season: np.ndarray | None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Filters ``y`` with K candidate smoothing parameter sets at once (``season``: each
    candidate's initial seasonal pattern (K, m), zeros and gamma 0 for a form without season),
    with the least-squares initial level and trend (a form without trend has beta = phi = 0, so
    its trend channel stays 0). Returns each candidate's SSE (K,), final level and trend (K,),
    final seasonal states (K, m) (position of the step after the history first) and one-step
    errors (K, n)."""
    n = y.shape[0]
    k = alpha.shape[0]
    channels = 3
    drive = np.zeros(channels)
    drive[0] = 1.0
    level = np.zeros((k, channels))
    slope = np.zeros((k, channels))
    level[:, 1] = 1.0
    slope[:, 2] = 1.0
    # (m, K, channels): the state read at step t, states[t % m], is contiguous
    states = np.zeros((m, k, channels)) if season is not None and m > 1 else None
    if states is not None and season is not None:
        states[:, :, 0] = season.T
    errors = np.empty((n, k, channels))
    driven = y[:, None] * drive[None, :]
    a, b, g, f = alpha[:, None], beta[:, None], gamma[:, None], phi[:, None]
    for t in range(n):
        damped = f * slope
        base = level + damped
        if states is not None:
            s = states[t % m]
            e = driven[t] - base - s
            states[t % m] = s + g * e
        else:
            e = driven[t] - base
        errors[t] = e
        level = base + a * e
        slope = damped + b * e
    errors = errors.transpose(1, 2, 0)
    # the initial states minimising the SSE: errors = e0 + E c, c = -(E'E)^-1 E'e0
    e0 = errors[:, 0, :]
    basis = errors[:, 1:, :]
    gram = np.einsum("kin,kjn->kij", basis, basis)
    gram += np.eye(channels - 1)[None] * (1e-9 * np.trace(gram, axis1=1, axis2=2)[:, None, None] + _TINY)
    rhs = -np.einsum("kin,kn->ki", basis, e0)
    init = np.linalg.solve(gram, rhs[:, :, None])[:, :, 0]
    total = e0 + np.einsum("ki,kin->kn", init, basis)
    sse = np.sum(total * total, axis=1)
    final_level = level[:, 0] + np.sum(level[:, 1:] * init, axis=1)
    final_slope = slope[:, 0] + np.sum(slope[:, 1:] * init, axis=1)
    if states is not None:
        final_states = states[:, :, 0].T + np.einsum("ki,mki->km", init, states[:, :, 1:])
        final_states = np.roll(final_states, -(n % m), axis=1)
    else:
        final_states = np.zeros((k, max(m, 1)))
    return sse, final_level, final_slope, final_states, total


def _ets_candidates(
    center: np.ndarray | None, spread: float, trend: str, seasonal: bool, rng: np.random.Generator
) -> np.ndarray:
    """Candidate (alpha, beta*, gamma*, phi) rows: beta = beta* alpha, gamma = gamma* (1 - alpha)
    keep the usual admissible region. A regular grid first, then jittered rows around the best."""
    if center is None:
        alphas = np.array([0.02, 0.08, 0.2, 0.4, 0.65, 0.9, 0.995])
        betas = np.array([0.01, 0.1, 0.35]) if trend != "none" else np.array([0.0])
        gammas = np.array([0.02, 0.15, 0.5]) if seasonal else np.array([0.0])
        phis = (
            np.array([0.85, 0.95]) if trend == "damped" else np.array([1.0 if trend == "additive" else 0.0])
        )
        grid = np.array(np.meshgrid(alphas, betas, gammas, phis, indexing="ij")).reshape(4, -1).T
        return grid
    count = 24
    rows = center[None, :] + rng.normal(0.0, spread, size=(count, 4)) * np.array([1.0, 1.0, 1.0, 0.3])
    rows = np.vstack([center[None, :], rows])
    rows[:, 0] = np.clip(rows[:, 0], 1e-4, 0.9999)
    rows[:, 1] = np.clip(rows[:, 1], 1e-4, 0.9999) if trend != "none" else 0.0
    rows[:, 2] = np.clip(rows[:, 2], 1e-4, 0.9999) if seasonal else 0.0
    rows[:, 3] = np.clip(rows[:, 3], 0.8, 0.98) if trend == "damped" else center[3]
    return rows


def _ets_params(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    alpha = rows[:, 0]
    return alpha, rows[:, 1] * alpha, rows[:, 2] * (1 - alpha), rows[:, 3]


def _parameter_count(trend: str, seasonal: bool, m: int) -> int:
    """Smoothing parameters, initial states and the variance."""
    return 3 + (trend != "none") * 2 + (trend == "damped") + int(seasonal) * m


def _fit_ets(y: np.ndarray, m: int) -> Params:
    """Every admissible ETS form's smoothing parameters at once (one filter pass per search
    round over all forms' candidates), then the form with the lowest AICc. Long histories are
    fitted on their last :data:`ETS_FIT_POINTS` points (or eight seasons): the recent past decides
    the smoothing parameters, and the fit stays fast."""
    y = y[-max(ETS_FIT_POINTS, 8 * m) :]
    n = y.shape[0]
    if n < 4:
        return {"fallback": "naive"}
    forms = [("none", False), ("additive", False), ("damped", False)]
    if 1 < m <= 60 and n >= 2 * m + 2:
        forms += [("none", True), ("additive", True), ("damped", True)]
    forms = [(trend, seasonal) for trend, seasonal in forms if n > _parameter_count(trend, seasonal, m) + 2]
    if not forms:
        return {"fallback": "naive"}
    scale = float(np.mean(np.abs(y))) or 1.0
    z = y / scale
    pattern = seasonal_pattern(z, m) if m > 1 else np.zeros(1)
    rng = np.random.default_rng(0)
    best_sse = [np.inf] * len(forms)
    best_rows: list[np.ndarray] = [np.zeros(4)] * len(forms)
    candidates = [_ets_candidates(None, 0.0, trend, seasonal, rng) for trend, seasonal in forms]
    spread = 0.15
    for _ in range(3):
        rows = np.vstack(candidates)
        owner = np.concatenate([np.full(len(c), i) for i, c in enumerate(candidates)])
        seasonal_rows = np.array([forms[i][1] for i in owner])
        season = pattern[None, :] * seasonal_rows[:, None] if m > 1 else None
        alpha, beta, gamma, phi = _ets_params(rows)
        sse, *_ = _ets_filter(z, m, alpha, beta, gamma, phi, season)
        sse = np.where(np.isfinite(sse), sse, np.inf)
        for i in range(len(forms)):
            mine = np.flatnonzero(owner == i)
            index = int(mine[np.argmin(sse[mine])])
            if sse[index] < best_sse[i]:
                best_sse[i], best_rows[i] = float(sse[index]), rows[index]
        candidates = [
            _ets_candidates(best_rows[i], spread, trend, seasonal, rng)
            for i, (trend, seasonal) in enumerate(forms)
        ]
        spread /= 2.5
    best: tuple[float, Params] | None = None
    for i, (trend, seasonal) in enumerate(forms):
        k = _parameter_count(trend, seasonal, m)
        sse_i = max(best_sse[i], _TINY)
        aicc = n * np.log(sse_i / n) + 2 * k + 2 * k * (k + 1) / (n - k - 1)
        if best is None or aicc < best[0]:
            alpha_i, beta_i, gamma_i, phi_i = (float(v) for v in best_rows[i])
            best = (
                float(aicc),
                {
                    "trend": trend,
                    "seasonal": "additive" if seasonal else "none",
                    "alpha": alpha_i,
                    "beta": beta_i * alpha_i,
                    "gamma": gamma_i * (1 - alpha_i),
                    "phi": phi_i,
                    "sigma": float(np.sqrt(sse_i / max(n - k, 1))) * scale,
                },
            )
    return best[1] if best is not None else {"fallback": "naive"}


def _forecast_ets(params: Params, y: np.ndarray, m: int, horizon: int) -> tuple[np.ndarray, np.ndarray]:
    trend = str(params["trend"])
    seasonal = params["seasonal"] == "additive" and m > 1 and y.shape[0] >= 2 * m
    alpha, beta, gamma, phi = (np.array([float(params[key])]) for key in ("alpha", "beta", "gamma", "phi"))
    if not seasonal:
        gamma = np.zeros(1)
    season = seasonal_pattern(y, m)[None, :] if seasonal else None
    sse, level, slope, states, errors = _ets_filter(y, m, alpha, beta, gamma, phi, season)
    steps = np.arange(1, horizon + 1)
    f = float(phi[0])
    if trend == "damped":
        damp = np.cumsum(f**steps)
    elif trend == "additive":
        damp = steps.astype(np.float64)
    else:
        damp = np.zeros(horizon)
    mean = level[0] + damp * slope[0]
    if seasonal:
        mean = mean + states[0][(steps - 1) % m]
    k = _parameter_count(trend, seasonal, m)
    sigma = float(np.sqrt(sse[0] / max(y.shape[0] - k, 1))) if y.shape[0] > k + 2 else float(params["sigma"])
    a, b, g = float(alpha[0]), float(beta[0]), float(gamma[0])
    j = np.arange(1, horizon)
    damp_j = (
        np.cumsum(f**j) if trend == "damped" else (j.astype(np.float64) if trend == "additive" else 0 * j)
    )
    c = a + b * damp_j + (g * ((j % m) == 0) if seasonal else 0.0)
    variance = np.concatenate([[1.0], 1.0 + np.cumsum(c * c)])
    return mean, sigma * np.sqrt(variance)


# --- ARIMA ----------------------------------------------------------------------------------


def _kpss_stationary(z: np.ndarray) -> bool:
    """The KPSS level-stationarity test at 5% (statistic below 0.463)."""
    n = z.shape[0]
    if n < 8:
        return True
    e = z - z.mean()
    partial = np.cumsum(e)
    lags = int(3 * np.sqrt(n) / 13)
    variance = float(np.sum(e * e)) / n
    for lag in range(1, lags + 1):
        variance += 2 * (1 - lag / (lags + 1)) * float(np.sum(e[lag:] * e[:-lag])) / n
    if variance <= _TINY:
        return True
    return bool(float(np.sum(partial * partial)) / (n * n * variance) < 0.463)


def _difference(y: np.ndarray, d: int, seasonal_d: int, m: int) -> np.ndarray:
    z = y
    if seasonal_d:
        z = z[m:] - z[:-m]
    for _ in range(d):
        z = np.diff(z)
    return z


def _ar_design(z: np.ndarray, lags: list[int], intercept: bool, start: int) -> tuple[np.ndarray, np.ndarray]:
    columns = [z[start - lag : z.shape[0] - lag] for lag in lags]
    if intercept:
        columns.append(np.ones(z.shape[0] - start))
    design = np.column_stack(columns) if columns else np.zeros((z.shape[0] - start, 0))
    return design, z[start:]


def seasonal_strength(y: np.ndarray, m: int) -> float:
    """``1 - var(remainder) / var(remainder + seasonal)`` of a classical decomposition (0 when
    ``y`` is shorter than two seasons)."""
    n = y.shape[0]
    if m <= 1 or n < 2 * m:
        return 0.0
    weights = np.r_[0.5, np.ones(m - 1), 0.5] / m if m % 2 == 0 else np.ones(m) / m
    trend = np.convolve(y, weights, mode="valid")
    offset = (weights.shape[0] - 1) // 2
    detrended = y[offset : offset + trend.shape[0]] - trend
    pattern = seasonal_pattern(y, m)[(np.arange(trend.shape[0]) + offset) % m]
    remainder = detrended - pattern
    total = float(np.var(detrended))
    return max(0.0, 1.0 - float(np.var(remainder)) / total) if total > _TINY else 0.0


def _fit_arima(y: np.ndarray, m: int) -> Params:
    n = y.shape[0]
    if n < 6:
        return {"fallback": "naive"}
    seasonal_d = int(m > 1 and n >= 3 * m + 4 and seasonal_strength(y, m) > 0.64)
    d = 0
    z = _difference(y, 0, seasonal_d, m)
    while d < 2 and not _kpss_stationary(z):
        d += 1
        z = _difference(y, d, seasonal_d, m)
    intercept = d + seasonal_d <= 1
    max_p = int(min(5, max(0, z.shape[0] // 10)))
    seasonal_lags = [m] if 5 < m <= 60 and z.shape[0] > 3 * m + 10 else []
    start = max([max_p, *seasonal_lags])
    best: tuple[float, list[int], np.ndarray, float] | None = None
    for p in range(max_p + 1):
        for extra in ([], seasonal_lags):
            if extra and not [lag for lag in extra if lag > p]:
                continue
            lags = list(range(1, p + 1)) + [lag for lag in extra if lag > p]
            design, target = _ar_design(z, lags, intercept, start)
            if target.shape[0] <= design.shape[1] + 3:
                continue
            coef = np.linalg.lstsq(design, target, rcond=None)[0] if design.shape[1] else np.zeros(0)
            residuals = target - design @ coef if design.shape[1] else target
            variance = max(float(np.mean(residuals * residuals)), _TINY)
            aic = target.shape[0] * np.log(variance) + 2 * (design.shape[1] + 1)
            if best is None or aic < best[0]:
                best = (float(aic), lags, coef, float(np.sqrt(variance)))
    if best is None:
        return {"fallback": "naive"}
    _, lags, coef, sigma = best
    params: Params = {
        "d": d,
        "seasonal_d": seasonal_d,
        "lags": ",".join(str(lag) for lag in lags),
        "sigma": sigma,
    }
    for lag, value in zip(lags, coef, strict=False):
        params[f"ar{lag}"] = float(value)
    params["intercept"] = float(coef[-1]) if intercept else 0.0
    return params


def _forecast_arima(params: Params, y: np.ndarray, m: int, horizon: int) -> tuple[np.ndarray, np.ndarray]:
    d, seasonal_d = int(params["d"]), int(params["seasonal_d"])
    lags = [int(lag) for lag in str(params["lags"]).split(",") if lag]
    phi = {lag: float(params[f"ar{lag}"]) for lag in lags}
    intercept = float(params["intercept"])
    needed = (m if seasonal_d else 0) + d + (max(lags) if lags else 0) + 1
    if y.shape[0] < needed:
        return _naive(y, horizon, float(params["sigma"]))
    z = list(_difference(y, d, seasonal_d, m))
    length = len(z)
    for _ in range(horizon):
        z.append(intercept + sum(coef * z[-lag] for lag, coef in phi.items()))
    z_future = np.array(z[length:])
    # undo the differences: the full AR polynomial (1 - sum phi B^l)(1 - B)^d (1 - B^m)^D
    polynomial = np.zeros(max(lags, default=0) + 1)
    polynomial[0] = 1.0
    for lag, coef in phi.items():
        polynomial[lag] -= coef
    difference = np.array([1.0])
    for _ in range(d):
        difference = np.convolve(difference, [1.0, -1.0])
    if seasonal_d:
        season = np.zeros(m + 1)
        season[0], season[m] = 1.0, -1.0
        difference = np.convolve(difference, season)
    history = list(y)
    n = len(history)
    for step in range(horizon):
        # y_t = z_t - sum_{i>=1} difference[i] y_{t-i}
        value = z_future[step] - sum(difference[i] * history[-i] for i in range(1, difference.shape[0]))
        history.append(value)
    mean = np.array(history[n:])
    full = np.convolve(polynomial, difference)
    psi = np.zeros(horizon)
    psi[0] = 1.0
    for j in range(1, horizon):
        psi[j] = -sum(full[i] * psi[j - i] for i in range(1, min(j, full.shape[0] - 1) + 1))
    residual_sigma = float(params["sigma"])
    return mean, residual_sigma * np.sqrt(np.cumsum(psi * psi))


# --- theta ----------------------------------------------------------------------------------


def _ses_sse(y: np.ndarray, alphas: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    level = np.full(alphas.shape[0], y[0])
    sse = np.zeros(alphas.shape[0])
    for t in range(1, y.shape[0]):
        error = y[t] - level
        sse += error * error
        level = level + alphas * error
    return sse, level


def _theta_decompose(
    y: np.ndarray, m: int, seasonal: bool, multiplicative: bool
) -> tuple[np.ndarray, np.ndarray]:
    """The seasonally adjusted series and the seasonal indices (position of y[0] first)."""
    if not seasonal:
        return y, np.zeros(max(m, 1))
    if multiplicative:
        pattern = seasonal_pattern(np.log(y), m)
        indices = np.exp(pattern)
        return y / indices[np.arange(y.shape[0]) % m], indices
    pattern = seasonal_pattern(y, m)
    return y - pattern[np.arange(y.shape[0]) % m], pattern


def _fit_theta(y: np.ndarray, m: int) -> Params:
    n = y.shape[0]
    if n < 4:
        return {"fallback": "naive"}
    seasonal = _seasonal_test(y, m)
    multiplicative = bool(seasonal and np.all(y > 0))
    adjusted, _ = _theta_decompose(y, m, seasonal, multiplicative)
    alphas = np.linspace(0.01, 0.99, 50)
    sse, _ = _ses_sse(adjusted, alphas)
    best = int(np.argmin(sse))
    fine = np.clip(alphas[best] + np.linspace(-0.02, 0.02, 21), 0.001, 0.999)
    sse_fine, _ = _ses_sse(adjusted, fine)
    index = int(np.argmin(sse_fine))
    return {
        "alpha": float(fine[index]),
        "seasonal": ("multiplicative" if multiplicative else "additive") if seasonal else "none",
        "sigma": float(np.sqrt(sse_fine[index] / max(n - 2, 1))),
    }


def _forecast_theta(params: Params, y: np.ndarray, m: int, horizon: int) -> tuple[np.ndarray, np.ndarray]:
    kind = str(params["seasonal"])
    seasonal = kind != "none" and m > 1 and y.shape[0] >= 2 * m
    multiplicative = seasonal and kind == "multiplicative" and bool(np.all(y > 0))
    adjusted, indices = _theta_decompose(y, m, seasonal, multiplicative)
    n = adjusted.shape[0]
    alpha = float(params["alpha"])
    sse, level = _ses_sse(adjusted, np.array([alpha]))
    t = np.arange(n, dtype=np.float64)
    slope = float(np.polyfit(t, adjusted, 1)[0]) if n > 2 else 0.0
    steps = np.arange(1, horizon + 1)
    drift = 0.5 * slope * (steps - 1 + 1 / alpha - (1 - alpha) ** n / alpha)
    mean = level[0] + drift
    sigma = float(np.sqrt(sse[0] / max(n - 2, 1))) if n > 4 else float(params["sigma"])
    sd = sigma * np.sqrt(1 + (steps - 1) * alpha * alpha)
    if seasonal:
        position = (n + steps - 1) % m
        if multiplicative:
            mean = mean * indices[position]
            sd = sd * indices[position]
        else:
            mean = mean + indices[position]
    return mean, sd


# --- the interface --------------------------------------------------------------------------


def fit(model: str, y: np.ndarray, season_length: int, horizon: int) -> Params:
    """``model``'s form and parameters fitted to the history ``y`` (JSON-able). Histories too short
    for a model give ``{"fallback": "naive"}``."""
    y = _clean(y)
    m = max(int(season_length), 1)
    if model not in STATISTICAL:
        raise ValueError(f"unknown statistical model {model!r}; use one of {', '.join(STATISTICAL)}")
    if y.shape[0] == 0:
        return {"fallback": "naive"}
    if model == "naive":
        return {"sigma": float(np.sqrt(np.mean(np.diff(y) ** 2))) if y.shape[0] > 1 else 0.0}
    if model == "seasonal_naive":
        if m > 1 and y.shape[0] > m:
            return {"sigma": float(np.sqrt(np.mean((y[m:] - y[:-m]) ** 2)))}
        return {"sigma": float(np.sqrt(np.mean(np.diff(y) ** 2))) if y.shape[0] > 1 else 0.0}
    if model == "ets":
        return _fit_ets(y, m)
    if model == "arima":
        return _fit_arima(y, m)
    return _fit_theta(y, m)


def forecast(
    model: str,
    params: Params,
    y: np.ndarray,
    season_length: int,
    horizon: int,
    quantiles: Sequence[float],
) -> tuple[np.ndarray, np.ndarray]:
    """The point forecast (horizon,) and the quantiles' values (len(quantiles), horizon) of
    ``model`` with ``params`` from the history ``y`` (NumPy only)."""
    y = _clean(y)
    m = max(int(season_length), 1)
    horizon = int(horizon)
    sigma = float(params["sigma"]) if "sigma" in params else None
    if y.shape[0] == 0:
        mean, sd = np.zeros(horizon), np.zeros(horizon)
    elif model == "naive" or params.get("fallback") == "naive":
        mean, sd = _naive(y, horizon, sigma)
    elif model == "seasonal_naive":
        mean, sd = _seasonal_naive(y, m, horizon, sigma)
    elif model == "ets":
        mean, sd = _forecast_ets(params, y, m, horizon)
    elif model == "arima":
        mean, sd = _forecast_arima(params, y, m, horizon)
    elif model == "theta":
        mean, sd = _forecast_theta(params, y, m, horizon)
    else:
        raise ValueError(f"unknown statistical model {model!r}; use one of {', '.join(STATISTICAL)}")
    if not (np.all(np.isfinite(mean)) and np.all(np.isfinite(sd))):
        mean, sd = _naive(y, horizon, sigma)
    return mean, _quantiles(mean, sd, quantiles)
