"""One analysis run: results table + scheme → the output JSON of contract §3."""

from __future__ import annotations

import copy
import math
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ._core import (
    TaskData,
    build_tasks,
    combine_ranks,
    key_task_ranking,
)
from ._validation import validate_results
from .audit import audit_task
from .bootstrap import (
    bootstrap_counts,
    leave_one_out_counts,
    resampled,
    summarise_resamples,
)
from .scheme import Scheme, parse_scheme, scheme_to_dict
from .significance import adjust_pvalues, pairwise_wilcoxon

__all__ = ["AnalysisResult", "run_analysis"]


@dataclass(frozen=True)
class AnalysisResult:
    """The outcome of :func:`run_analysis`.

    Attributes
    ----------
    scheme : Scheme
        The scheme as executed (effective bootstrap size and seed filled in).
    output : dict
        The contract §3 JSON object; use :meth:`to_json_dict` for a copy.
    """

    scheme: Scheme
    output: dict[str, Any]

    def to_json_dict(self) -> dict[str, Any]:
        """The analysis output (contract §3) as plain JSON-able objects."""
        return copy.deepcopy(self.output)


def _number(x: float, *, integral: bool = False) -> int | float | None:
    """A JSON number: None for NaN, int when whole and ``integral``."""
    value = float(x)
    if math.isnan(value) or math.isinf(value):
        return None
    if integral and value.is_integer():
        return int(value)
    return value


def _rank_key(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else repr(float(x))


def _by_algorithm(
    algorithms: list[str], arr: np.ndarray, *, integral: bool = False
) -> dict[str, int | float | None]:
    return {
        a: _number(v, integral=integral) for a, v in zip(algorithms, arr, strict=True)
    }


def task_seed(seed: int, task: str) -> np.random.Generator:
    """The generator of one task: independent of the other tasks' names and order."""
    return np.random.default_rng([seed, zlib.crc32(task.encode("utf-8"))])


def task_int_seed(seed: int, task: str) -> int:
    """An integer seed derived like :func:`task_seed` (for rank intervals)."""
    sequence = np.random.SeedSequence([seed, zlib.crc32(task.encode("utf-8"))])
    return int(sequence.generate_state(1, dtype=np.uint32)[0])


def _values_after_policy(x: np.ndarray) -> np.ndarray:
    """Complete cases (rows without NaN) for the omnibus rank intervals."""
    return x[~np.isnan(x).any(axis=1)]


def _significance(
    x: np.ndarray, scheme: Scheme, metric: str, algorithms: list[str]
) -> dict[str, dict[str, bool]]:
    hib = scheme.higher_is_better[metric]
    p = pairwise_wilcoxon(x, higher_is_better=hib, method=scheme.test.method)
    if scheme.method == "test_then_rank":
        p = adjust_pvalues(p, method=scheme.test.p_adjust)
        alpha = scheme.test.alpha
    else:
        p = adjust_pvalues(p, method="holm")
        alpha = scheme.uncertainty.alpha
    sig = np.nan_to_num(p, nan=1.0) <= alpha
    return {
        a: {b: bool(sig[i, j]) for j, b in enumerate(algorithms) if j != i}
        for i, a in enumerate(algorithms)
    }


def _rank_ci(
    x: np.ndarray, scheme: Scheme, metric: str, algorithms: list[str], seed: int
) -> dict[str, dict[str, list[int | float | None]]] | None:
    from .intervals import rank_confidence_intervals  # lands on another branch

    complete = _values_after_policy(x)
    if complete.shape[0] == 0:
        return None
    n_boot = scheme.uncertainty.bootstrap or 1000
    out: dict[str, dict[str, list[int | float | None]]] = {}
    for method in scheme.uncertainty.rank_ci:
        bounds = rank_confidence_intervals(
            complete,
            method=method,
            alpha=scheme.uncertainty.alpha,
            higher_is_better=scheme.higher_is_better[metric],
            n_boot=n_boot,
            seed=seed,
        )
        out[method] = {
            a: [_number(lo, integral=True), _number(hi, integral=True)]
            for a, (lo, hi) in zip(algorithms, bounds, strict=True)
        }
    return out


def _resample_block(
    full: np.ndarray, ranks: np.ndarray, algorithms: list[str], integral: bool
) -> dict[str, Any]:
    summary = summarise_resamples(full, ranks)
    n = ranks.shape[0]
    per_alg: dict[str, Any] = {}
    for j, a in enumerate(algorithms):
        values, freq = np.unique(ranks[:, j], return_counts=True)
        per_alg[a] = {
            "median": _number(summary.median[j], integral=True),
            "lower": _number(summary.lower[j], integral=True),
            "upper": _number(summary.upper[j], integral=True),
            "freq": {
                _rank_key(v): float(c) / n for v, c in zip(values, freq, strict=True)
            },
        }
    taus = summary.kendall_tau[~np.isnan(summary.kendall_tau)]
    tau = (
        {
            "median": float(np.median(taus)),
            "lower": float(np.percentile(taus, 2.5)),
            "upper": float(np.percentile(taus, 97.5)),
        }
        if taus.size
        else {"median": None, "lower": None, "upper": None}
    )
    winners = full == full.min()
    best = ranks.min(axis=1)
    by_alg = {
        a: float((ranks[:, j] == best).mean())
        for j, a in enumerate(algorithms)
        if winners[j]
    }
    return {
        "algorithms": per_alg,
        "kendall_tau": tau,
        "winner_stability": _number(summary.winner_stability),
        "winner_stability_by_algorithm": by_alg,
        "tau_min": float(taus.min()) if taus.size else None,
    }


def _task_block(
    task: TaskData,
    scheme: Scheme,
    key: str,
    *,
    n_boot: int,
    seed: int,
    leave_one_out: bool,
    audit: bool,
) -> tuple[dict[str, Any], np.ndarray]:
    algs = task.algorithms
    integral = scheme.ties != "average"
    ranks, scores, per_target = key_task_ranking(task, scheme, key, None)
    score_integral = (
        scheme.method == "test_then_rank" and key in scheme.metrics and not per_target
    )
    block: dict[str, Any] = {
        "ranks": _by_algorithm(algs, ranks, integral=integral),
        "scores": _by_algorithm(algs, scores, integral=score_integral),
        "n_cases": len(task.cases),
    }
    single_metric = key in scheme.metrics
    if per_target:
        targets: dict[str, Any] = {}
        for t, (r_t, s_t) in per_target.items():
            entry: dict[str, Any] = {
                "ranks": _by_algorithm(algs, r_t, integral=integral),
                "scores": _by_algorithm(
                    algs, s_t, integral=scheme.method == "test_then_rank"
                ),
            }
            x = task.values[key][t]
            entry["significance"] = _significance(x, scheme, key, algs)
            if scheme.uncertainty.rank_ci:
                entry["rank_ci"] = _rank_ci(
                    x, scheme, key, algs, task_int_seed(seed, task.name)
                )
            targets[t] = entry
        block["targets"] = targets
    elif single_metric:
        x = task.values[key][""]
        block["significance"] = _significance(x, scheme, key, algs)
        if scheme.uncertainty.rank_ci:
            block["rank_ci"] = _rank_ci(
                x, scheme, key, algs, task_int_seed(seed, task.name)
            )

    n_cases = len(task.cases)
    if n_boot > 0:
        rng = task_seed(seed, task.name)
        boot = resampled(
            lambda c: key_task_ranking(task, scheme, key, c)[0],
            bootstrap_counts(n_cases, n_boot, rng=rng),
        )
        summary = _resample_block(ranks, boot, algs, integral)
        block["bootstrap"] = summary["algorithms"]
        block["kendall_tau"] = summary["kendall_tau"]
        block["winner_stability"] = summary["winner_stability"]
        block["winner_stability_by_algorithm"] = summary[
            "winner_stability_by_algorithm"
        ]
    if leave_one_out and n_cases > 1:
        loo = resampled(
            lambda c: key_task_ranking(task, scheme, key, c)[0],
            leave_one_out_counts(n_cases),
        )
        summary = _resample_block(ranks, loo, algs, integral)
        block["leave_one_out"] = {
            "kendall_tau": {
                "median": summary["kendall_tau"]["median"],
                "min": summary["tau_min"],
            },
            "winner_stability": summary["winner_stability"],
            "rank_range": {
                a: [
                    _number(loo[:, j].min(), integral=True),
                    _number(loo[:, j].max(), integral=True),
                ]
                for j, a in enumerate(algs)
            },
        }
    if audit:
        block["audit"] = audit_task(task, scheme, key, ranks)
    return block, ranks


def run_analysis(
    results: pd.DataFrame,
    scheme: dict[str, Any] | Scheme,
    *,
    bootstrap: int | None = None,
    seed: int | None = None,
    progress: Callable[[float], None] | None = None,
    leave_one_out: bool = True,
    audit: bool = True,
) -> AnalysisResult:
    """Rank a challenge's results under a registered scheme (contract §§1-3).

    Parameters
    ----------
    results : pandas.DataFrame
        A results table (as read by :func:`read_results`); it is validated here
        unless it is the (unmodified) output of :func:`validate_results`.
    scheme : dict or Scheme
        The ranking scheme (contract §2).
    bootstrap : int, optional
        Overrides ``uncertainty.bootstrap`` (0 switches the bootstrap off).
    seed : int, optional
        Overrides ``uncertainty.seed``. Without either, a fresh seed is drawn
        and reported in ``scheme.uncertainty.seed`` of the output.
    progress : callable, optional
        Called with the finished fraction (0..1) after every task.
    leave_one_out : bool
        Add the leave-one-case-out analysis of seed 004 §4.3 (``leave_one_out``
        key per task).
    audit : bool
        Add the robustness audit of seed 004 §§4.1/4.3 (``audit`` key per task).

    Returns
    -------
    AnalysisResult
        ``to_json_dict()`` gives the output JSON. The same input and seed give
        byte-identical ``json.dumps(..., sort_keys=True)``, whatever the row order.

    Raises
    ------
    ResultsError, SchemeError, MissingResultsError (all ValueError)
    """
    parsed = parse_scheme(scheme)
    frame = results if results.attrs.get("validated") else validate_results(results)
    n_boot = parsed.uncertainty.bootstrap if bootstrap is None else int(bootstrap)
    if n_boot < 0:
        raise ValueError("bootstrap must be ≥ 0")
    eff_seed = seed if seed is not None else parsed.uncertainty.seed
    if eff_seed is None:
        eff_seed = int(np.random.SeedSequence().entropy % (2**63))
    executed = Scheme(
        **{
            **{f: getattr(parsed, f) for f in parsed.__dataclass_fields__},
            "uncertainty": type(parsed.uncertainty)(
                bootstrap=n_boot,
                seed=int(eff_seed),
                rank_ci=parsed.uncertainty.rank_ci,
                alpha=parsed.uncertainty.alpha,
            ),
        }
    )
    tasks = build_tasks(frame, executed)
    keys = ["combined"] if executed.combine else list(executed.metrics)
    total = len(keys) * len(tasks)
    done = 0
    rankings: dict[str, Any] = {}
    for key in keys:
        task_blocks: dict[str, Any] = {}
        task_ranks: list[np.ndarray] = []
        for task in tasks:
            block, ranks = _task_block(
                task,
                executed,
                key,
                n_boot=n_boot,
                seed=int(eff_seed),
                leave_one_out=leave_one_out,
                audit=audit,
            )
            task_blocks[task.name] = block
            task_ranks.append(ranks)
            done += 1
            if progress is not None:
                progress(done / total)
        entry: dict[str, Any] = {"tasks": task_blocks}
        if executed.consensus is not None and tasks:
            algs = tasks[0].algorithms
            c_ranks, c_scores = combine_ranks(
                task_ranks,
                average_ties=executed.consensus == "mean_average_rank",
                ties=executed.ties,
            )
            entry["consensus"] = {
                "ranks": _by_algorithm(
                    algs, c_ranks, integral=executed.ties != "average"
                ),
                "scores": _by_algorithm(algs, c_scores),
            }
        rankings[key] = entry
    if progress is not None and total == 0:
        progress(1.0)
    output = {"scheme": scheme_to_dict(executed), "rankings": rankings}
    return AnalysisResult(scheme=executed, output=output)
