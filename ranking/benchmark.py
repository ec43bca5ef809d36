"""Engine benchmark: ``python -m ranking.benchmark [--quick]``.

(a) MSD scale: 19 algorithms x 17 tasks x 100 cases, test_then_rank,
    1000 bootstrap samples; naive baseline = one ``scipy.stats.wilcoxon`` call
    per ordered pair and sample after a pandas group-by.
(b) 200 algorithms x 10 000 cases, aggregate_then_rank (mean), 1000
    bootstrap samples; naive baseline = pandas group-by mean per sample.

The naive baselines run on the first few bootstrap samples of every task
(the *same* draws as the engine) and are extrapolated linearly to all
samples; on those samples the engine's and the baseline's significance
matrices and ranks are compared for identity.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time
import tracemalloc
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
import scipy.stats

from ._core import MatrixRule, build_tasks, rank_matrix
from ._validation import validate_results
from .bootstrap import (
    BOOTSTRAP_BLOCK,
    block_counts,
    block_rng,
    bootstrap_indices,
    n_blocks,
)
from .run import run_analysis
from .scheme import parse_scheme
from .significance import adjust_pvalues, pairwise_wilcoxon
from .simulate import msd_like

SEED = 1


def _first_draws(n_cases: int, n_boot: int, task: str, k: int) -> np.ndarray:
    """Case indices of the first ``k`` bootstrap samples of ``task`` (block 0)."""
    rng = block_rng(SEED, task, 0)
    return next(bootstrap_indices(n_cases, min(BOOTSTRAP_BLOCK, n_boot), rng=rng))[:k]


def _timed(fn: Callable[[], Any]) -> tuple[Any, float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - wall, time.process_time() - cpu


def _peak_mib(fn: Callable[[], Any]) -> float:
    tracemalloc.start()
    try:
        fn()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return peak / 2**20


def _naive_significance(xb: np.ndarray, alpha: float) -> np.ndarray:
    m = xb.shape[1]
    sig = np.zeros((m, m), dtype=bool)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for i in range(m):
            for j in range(m):
                if i == j:
                    continue
                d = xb[:, i] - xb[:, j]
                if not np.any(d):
                    continue  # p = 1
                p = scipy.stats.wilcoxon(
                    xb[:, i],
                    xb[:, j],
                    alternative="greater",
                    zero_method="wilcox",
                    correction=True,
                    method="asymptotic",
                ).pvalue
                sig[i, j] = p <= alpha
    return sig


def _naive_matrix(task_rows: pd.DataFrame, fill: float) -> np.ndarray:
    wide = task_rows.pivot_table(
        index="case", columns="algorithm", values="value", aggfunc="first", dropna=False
    )
    return wide.sort_index().sort_index(axis=1).fillna(fill).to_numpy()


def scenario_a(n_boot: int, naive_samples: int) -> list[str]:
    frame = msd_like(n_tasks=17, n_algorithms=19, n_cases=100, seed=0)
    scheme = {
        "metric": "DSC",
        "higher_is_better": True,
        "missing": {"policy": "value", "value": 0},
        "method": "test_then_rank",
        "test": {"name": "wilcoxon", "alpha": 0.05, "p_adjust": "none"},
        "ties": "min",
    }

    def engine() -> dict[str, Any]:
        return run_analysis(
            frame, scheme, bootstrap=n_boot, seed=SEED, audit=False, leave_one_out=False
        ).to_json_dict()

    out, wall, cpu = _timed(engine)
    peak = _peak_mib(engine)
    _, all_wall, all_cpu = _timed(
        lambda: run_analysis(frame, scheme, bootstrap=n_boot, seed=SEED)
    )

    # Naive baseline on the first `naive_samples` draws of every task.
    def naive() -> tuple[dict[str, np.ndarray], dict[str, list[np.ndarray]]]:
        full_sig: dict[str, np.ndarray] = {}
        boot_sig: dict[str, list[np.ndarray]] = {}
        for task_name, rows in frame.groupby("task", sort=True):
            x = _naive_matrix(rows, 0.0)
            full_sig[task_name] = _naive_significance(x, 0.05)
            idx = _first_draws(x.shape[0], n_boot, str(task_name), naive_samples)
            boot_sig[task_name] = [_naive_significance(x[i], 0.05) for i in idx]
        return full_sig, boot_sig

    (naive_full, naive_boot), n_wall, n_cpu = _timed(naive)
    per_unit = n_wall / (1 + naive_samples)  # per task: full data + samples
    naive_est = per_unit * (1 + n_boot)

    # Identity of decisions: full data (from the output JSON) and the samples.
    parsed = parse_scheme(scheme)
    tasks = build_tasks(validate_results(frame), parsed)
    rule = MatrixRule.from_scheme(parsed, "DSC")
    same_sig, same_rank, compared = True, True, 0
    for task in tasks:
        algs = task.algorithms
        sig_json = out["rankings"]["DSC"]["tasks"][task.name]["significance"]
        engine_full = np.array(
            [
                [i != j and sig_json[a][b] for j, b in enumerate(algs)]
                for i, a in enumerate(algs)
            ]
        )
        same_sig &= bool(np.array_equal(engine_full, naive_full[task.name]))
        x = task.values["DSC"][""]
        idx = _first_draws(x.shape[0], n_boot, task.name, naive_samples)
        counts = np.stack([np.bincount(r, minlength=x.shape[0]) for r in idx])
        p = adjust_pvalues(pairwise_wilcoxon(x, counts), method="none")
        engine_sig = np.nan_to_num(p, nan=1.0) <= 0.05
        engine_ranks, _ = rank_matrix(x, counts, rule)
        for b in range(len(idx)):
            naive_sig = naive_boot[task.name][b]
            same_sig &= bool(np.array_equal(engine_sig[b], naive_sig))
            naive_rank = scipy.stats.rankdata(-naive_sig.sum(axis=1), method="min")
            same_rank &= bool(np.array_equal(engine_ranks[b], naive_rank))
            compared += 1
    return [
        "(a) 19 algorithms x 17 tasks x 100 cases, test_then_rank (Wilcoxon, "
        f"alpha 0.05), {n_boot} bootstrap samples",
        f"    engine run_analysis (no audit/leave-one-out): {wall:.2f} s wall, "
        f"{cpu:.2f} s CPU",
        f"    engine peak traced memory: {peak:.0f} MiB",
        "    engine run_analysis with robustness audit and leave-one-case-out: "
        f"{all_wall:.2f} s wall, {all_cpu:.2f} s CPU",
        f"    naive baseline (scipy.stats.wilcoxon per ordered pair, pandas pivot): "
        f"timed on full data + {naive_samples} samples per task = {n_wall:.2f} s wall "
        f"({n_cpu:.2f} s CPU), extrapolated linearly to full data + {n_boot} samples: "
        f"{naive_est:.0f} s",
        f"    speed-up (naive estimate / engine, wall): {naive_est / wall:.0f}x",
        f"    identical significance matrices (full data, 17 tasks, and {compared} "
        f"bootstrap samples): {same_sig}; identical ranks: {same_rank}",
    ]


def scenario_b(n_boot: int, naive_samples: int) -> list[str]:
    rng = np.random.default_rng(0)
    n_cases, m = 10_000, 200
    skill = rng.normal(0, 0.3, size=m)
    x = 1 / (1 + np.exp(-(1.0 + skill[None, :] + rng.normal(0, 1, size=(n_cases, m)))))
    algorithms = [f"A{j:03d}" for j in range(m)]
    cases = [f"c{i:05d}" for i in range(n_cases)]
    frame = pd.DataFrame(
        {
            "task": "T1",
            "case": np.repeat(np.asarray(cases, dtype=object), m),
            "algorithm": np.tile(np.asarray(algorithms, dtype=object), n_cases),
            "metric": "DSC",
            "value": x.ravel(),
        }
    )
    scheme = {
        "metric": "DSC",
        "higher_is_better": True,
        "method": "aggregate_then_rank",
    }
    parsed = parse_scheme(scheme)
    validated = validate_results(frame)
    validated.attrs["validated"] = True
    task = build_tasks(validated, parsed)[0]
    rule = MatrixRule.from_scheme(parsed, "DSC")

    def bootstrap_only() -> np.ndarray:
        return np.concatenate(
            [
                rank_matrix(task.values["DSC"][""], counts, rule)[0]
                for block in range(n_blocks(n_boot))
                for counts in block_counts(
                    n_cases, n_boot, seed=SEED, task="T1", block=block
                )
            ]
        )

    def engine_full() -> dict[str, Any]:
        return run_analysis(
            frame, scheme, bootstrap=n_boot, seed=SEED, audit=False, leave_one_out=False
        ).to_json_dict()

    boot_ranks, b_wall, b_cpu = _timed(bootstrap_only)
    _, f_wall, f_cpu = _timed(engine_full)
    peak = _peak_mib(engine_full)

    long = validated.set_index("case")

    def naive() -> list[np.ndarray]:
        idx = _first_draws(n_cases, n_boot, "T1", naive_samples)
        out = []
        for row in idx:
            drawn = long.loc[[cases[i] for i in row]]
            means = drawn.groupby("algorithm")["value"].mean().sort_index()
            out.append(means.rank(method="min", ascending=False).to_numpy())
        return out

    naive_ranks, n_wall, n_cpu = _timed(naive)
    naive_est = n_wall / naive_samples * n_boot
    identical = all(
        np.array_equal(boot_ranks[b], naive_ranks[b]) for b in range(naive_samples)
    )
    return [
        "(b) 200 algorithms x 10 000 cases, aggregate_then_rank (mean), "
        f"{n_boot} bootstrap samples",
        f"    engine bootstrap ranking alone: {b_wall:.2f} s wall, {b_cpu:.2f} s CPU",
        f"    engine run_analysis end to end (validation of 2 000 000 rows, ranking, "
        f"significance map of 39 800 ordered pairs, bootstrap): {f_wall:.2f} s wall, "
        f"{f_cpu:.2f} s CPU",
        f"    engine peak traced memory (run_analysis): {peak:.0f} MiB",
        "    naive baseline (pandas group-by mean per sample): "
        f"{naive_samples} samples in {n_wall:.2f} s wall ({n_cpu:.2f} s CPU), "
        f"extrapolated to {n_boot}: {naive_est:.0f} s",
        "    speed-up (naive estimate / engine bootstrap, wall): "
        f"{naive_est / b_wall:.0f}x",
        f"    identical ranks on the {naive_samples} compared samples: {identical}",
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ranking.benchmark")
    parser.add_argument("--bootstrap", type=int, default=1000)
    parser.add_argument("--naive-samples", type=int, default=3)
    parser.add_argument("--only", choices=["a", "b"], default=None)
    args = parser.parse_args(argv)
    lines = [
        f"python {sys.version.split()[0]}, numpy {np.__version__}, "
        f"scipy {scipy.__version__}, pandas {pd.__version__}, "
        f"{os.cpu_count()} CPUs, load average at start "
        f"{', '.join(f'{v:.1f}' for v in os.getloadavg())}",
    ]
    print(lines[0], flush=True)
    for name, fn in (("a", scenario_a), ("b", scenario_b)):
        if args.only in (None, name):
            for line in fn(args.bootstrap, args.naive_samples):
                print(line, flush=True)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"process peak RSS (ru_maxrss, whole benchmark incl. data): {rss:.0f} MiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
