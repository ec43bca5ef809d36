"""Simulated challenge results (seed 000, "Assessment data"), as results tables.

* :func:`c_ideal` — five algorithms, n = 50 cases, values uniform on
  [0.9, 1), [0.8, 0.9), …, [0.5, 0.6): a clear, indisputable ranking.
* :func:`c_random` — 250 normal values (mean 1.5, variance 1) passed through
  the logistic function and dealt to five algorithms: differences by chance.
* :func:`msd_like` — many tasks, algorithms and cases with per-algorithm
  skill, per-case difficulty and optional missing results, for benchmarks and
  the registry's scheme preview.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["c_ideal", "c_random", "matrix_to_results", "msd_like"]


def matrix_to_results(
    values: np.ndarray,
    *,
    task: str = "T1",
    metric: str = "DSC",
    algorithms: list[str] | None = None,
    cases: list[str] | None = None,
) -> pd.DataFrame:
    """A (cases x algorithms) matrix as a long results table (NaN → empty)."""
    x = np.asarray(values, dtype=np.float64)
    n, m = x.shape
    algorithms = algorithms or [f"A{j + 1}" for j in range(m)]
    cases = cases or [f"c{i + 1:03d}" for i in range(n)]
    return pd.DataFrame(
        {
            "task": task,
            "case": np.repeat(np.asarray(cases, dtype=object), m),
            "algorithm": np.tile(np.asarray(algorithms, dtype=object), n),
            "metric": metric,
            "value": x.ravel(),
        }
    )


def c_ideal(*, seed: int = 0, n_cases: int = 50) -> pd.DataFrame:
    """The c_ideal data set of seed 000 (5 algorithms, disjoint value ranges)."""
    rng = np.random.default_rng(seed)
    lows = np.array([0.9, 0.8, 0.7, 0.6, 0.5])
    x = lows[None, :] + 0.1 * rng.random((n_cases, 5))
    x = np.minimum(x, np.nextafter(lows + 0.1, 0.0)[None, :])
    return matrix_to_results(x)


def c_random(*, seed: int = 0, n_cases: int = 50) -> pd.DataFrame:
    """The c_random data set of seed 000 (no systematic differences)."""
    rng = np.random.default_rng(seed)
    z = rng.normal(1.5, 1.0, size=(n_cases, 5))
    return matrix_to_results(1.0 / (1.0 + np.exp(-z)))


def msd_like(
    *,
    n_tasks: int = 17,
    n_algorithms: int = 19,
    n_cases: int = 100,
    missing_rate: float = 0.0,
    seed: int = 0,
    metric: str = "DSC",
) -> pd.DataFrame:
    """An MSD-scale results table: skill + case difficulty + noise on [0, 1]."""
    rng = np.random.default_rng(seed)
    frames = []
    algorithms = [f"A{j + 1:02d}" for j in range(n_algorithms)]
    for t in range(n_tasks):
        skill = rng.normal(0.0, 0.6, size=n_algorithms)
        difficulty = rng.normal(0.0, 1.0, size=(n_cases, 1))
        noise = rng.normal(0.0, 0.8, size=(n_cases, n_algorithms))
        x = 1.0 / (1.0 + np.exp(-(1.5 + skill[None, :] - difficulty + noise)))
        if missing_rate > 0:
            x[rng.random(x.shape) < missing_rate] = np.nan
        frames.append(
            matrix_to_results(
                x, task=f"T{t + 1:02d}", metric=metric, algorithms=algorithms
            )
        )
    return pd.concat(frames, ignore_index=True)
