"""Benchmark (issues 16, 31): 6 algorithms × 2 000 cases, 3 characteristics,
one grouping — the global model and the 6 per-algorithm models, binomial, and
the same seven models as linear mixed models of the metric value.

    python -m casemodels.benchmark [--cases 2000] [--algorithms 6]

Prints the wall and CPU time of all models, the time of one plain logistic regression
on the same rows measured in the same run (a baseline for the machine), their
ratio, and the machine. The target is ≤ 10 s for all binomial models. The
linear models are timed as the minimum CPU time of three runs and compared
with lme4's ``lmer`` on the same data (``LMER_SECONDS``: no R here; measured
with lme4 1.1-31, one core, one BLAS thread, issue 31).
"""

from __future__ import annotations

import argparse
import os
import platform
import time

import numpy as np
import pandas as pd
from scipy import optimize

from .run import fit_case_models

LMER_SECONDS = 0.38  # the seven lmer fits, 6 × 2 000 (issue 31's measurement)
LINEAR_SPEC = {
    "metric": "DSC",
    "outcome": {"type": "value"},
    "characteristics": ["blur", "occlusion", "size"],
    "groups": ["patient"],
}


def simulate(cases: int, algorithms: int, *, seed: int = 1):
    rng = np.random.default_rng(seed)
    patients = max(10, cases // 10)
    blur = rng.uniform(size=cases).round(3)
    occlusion = rng.integers(0, 2, cases)
    size = rng.choice(["large", "medium", "small"], cases)
    patient = rng.integers(0, patients, cases)
    u = rng.normal(0, 0.8, patients)
    base = -1 + 1.5 * blur + occlusion + 0.6 * (size == "small") + u[patient]
    rows = []
    for a in range(algorithms):
        eta = base + rng.normal(0, 0.4)
        fail = rng.uniform(size=cases) < 1 / (1 + np.exp(-eta))
        value = np.where(fail, 0.3, 0.8)
        rows += [("T", f"c{c:05d}", f"alg{a}", "DSC", value[c]) for c in range(cases)]
    results = pd.DataFrame(
        rows, columns=["task", "case", "algorithm", "metric", "value"]
    )
    results["value"] = results["value"].map(repr)
    metadata = pd.DataFrame(
        {
            "case": [f"c{c:05d}" for c in range(cases)],
            "blur": blur.astype(str),
            "occlusion": occlusion.astype(str),
            "size": size,
            "patient": [f"p{p}" for p in patient],
        }
    )
    return results, metadata


def _logistic_baseline(X: np.ndarray, y: np.ndarray) -> float:
    start = time.perf_counter()

    def nll(b):
        eta = X @ b
        return float(np.sum(np.logaddexp(0, eta) - y * eta))

    def grad(b):
        return X.T @ (1 / (1 + np.exp(-(X @ b))) - y)

    optimize.minimize(nll, np.zeros(X.shape[1]), jac=grad, method="BFGS")
    return time.perf_counter() - start


def linear_seconds(cases: int, algorithms: int, *, runs: int = 3) -> float:
    """Minimum CPU time of fitting the seven linear models (metric values drawn
    around 0.7 so that the model has something to estimate)."""
    results, metadata = simulate(cases, algorithms)
    rng = np.random.default_rng(3)
    noise = (0.7 + 0.1 * rng.normal(size=len(results))).round(4)
    results["value"] = [repr(float(v)) for v in noise]
    best = float("inf")
    for _ in range(runs):
        cpu = time.process_time()
        fit_case_models(results, metadata, LINEAR_SPEC)
        best = min(best, time.process_time() - cpu)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=2000)
    parser.add_argument("--algorithms", type=int, default=6)
    args = parser.parse_args()
    results, metadata = simulate(args.cases, args.algorithms)
    spec = {
        "metric": "DSC",
        "outcome": {"type": "failure", "below": 0.5},
        "characteristics": ["blur", "occlusion", "size"],
        "groups": ["patient"],
    }
    start, cpu = time.perf_counter(), time.process_time()
    output = fit_case_models(results, metadata, spec)
    elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
    n = len(results)
    X = np.column_stack([np.ones(n), np.random.default_rng(0).normal(size=(n, 4))])
    y = (np.random.default_rng(1).uniform(size=n) < 0.4).astype(float)
    baseline = _logistic_baseline(X, y)
    converged = sum(m["converged"] for m in output["models"])
    print(
        f"{args.algorithms} algorithms × {args.cases} cases ({n} rows), "
        f"3 characteristics, 1 grouping: {len(output['models'])} models "
        f"({converged} converged) in {elapsed:.2f} s wall, {cpu:.2f} s CPU "
        "(target ≤ 10 s)"
    )
    print(
        f"baseline (one logistic regression, {n} rows): {baseline:.3f} s; "
        f"ratio {elapsed / baseline:.0f}×"
    )
    linear = linear_seconds(args.cases, args.algorithms)
    print(
        f"linear mixed models, the same 7 models of the value: {linear:.3f} s CPU "
        f"(minimum of 3); lme4 lmer {LMER_SECONDS:.2f} s (stored reference): "
        f"{LMER_SECONDS / linear:.1f}x lmer's speed "
        f"({'met' if linear <= LMER_SECONDS else 'NOT met'}: ≤ lmer)"
    )
    print(
        f"machine: {platform.processor() or platform.machine()}, "
        f"{os.cpu_count()} CPUs, Python {platform.python_version()}, "
        f"load {os.getloadavg()[0]:.1f}"
    )


if __name__ == "__main__":
    main()
