"""One analysis run: results table + scheme → the output JSON of contract §3."""

from __future__ import annotations

import copy
import math
import zlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ._bounded import significant_pairs
from ._core import TaskData, combine_ranks, key_task_ranking, leave_one_out_ranks
from ._exact import NonFiniteResultError
from ._memory import LARGE_ROWS, release_free_memory
from ._parallel import one_blas_thread
from .audit import audit_task
from .bootstrap import (
    kendall_tau_b,
    summarise_resamples,
    winner_again,
)
from .plan import PreparedAnalysis, bootstrap_block_ranks, prepare_analysis
from .scheme import Scheme, parse_scheme, scheme_to_dict

if TYPE_CHECKING:
    import pandas as pd

    from ._validation import ResultsTable

__all__ = ["AnalysisResult", "run_analysis"]

# Percentages at which the Kendall's tau samples are summarised for violins.
TAU_QUANTILES = np.linspace(0.0, 100.0, 21)


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


def task_int_seed(seed: int, task: str) -> int:
    """An integer seed of one task (for rank intervals): independent of the
    other tasks' names and order."""
    sequence = np.random.SeedSequence([seed, zlib.crc32(task.encode("utf-8"))])
    return int(sequence.generate_state(1, dtype=np.uint32)[0])


def _values_after_policy(x: np.ndarray) -> np.ndarray:
    """Complete cases (rows without NaN) for the omnibus rank intervals."""
    return x[~np.isnan(x).any(axis=1)]


def _significance(
    task: TaskData,
    target: str,
    scheme: Scheme,
    metric: str,
    workers: int | None,
) -> dict[str, dict[str, bool]]:
    if scheme.method == "test_then_rank":
        p_adjust, alpha = scheme.test.p_adjust, scheme.test.alpha
    else:
        p_adjust, alpha = "holm", scheme.uncertainty.alpha
    hib, method = scheme.higher_is_better[metric], scheme.test.method
    sig = significant_pairs(
        task.values[metric][target],
        alpha=alpha,
        p_adjust=p_adjust,
        method=method,
        higher_is_better=hib,
        workers=workers,
        bounds=task.pvalue_bounds(metric, target, hib, method),
    )
    algorithms = task.algorithms
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
            ties=scheme.ties,
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
        # The shape of the tau distribution for violin plots, so figures never
        # re-run the bootstrap: quantiles at 0, 5, ..., 100 %.
        "tau_quantiles": (
            [float(q) for q in np.percentile(taus, TAU_QUANTILES)] if taus.size else []
        ),
    }


def _refuse_infinite(scores: np.ndarray, what: str) -> None:
    """Scores are finite or NaN (no value at all); never a silent infinity."""
    bad = np.isinf(np.asarray(scores, dtype=np.float64))
    if bad.any():
        raise NonFiniteResultError(
            f"the {what} is infinite",
            columns=tuple(int(j) for j in np.flatnonzero(bad)),
        )


def _task_block(
    task: TaskData,
    scheme: Scheme,
    key: str,
    *,
    boot: np.ndarray | None,
    seed: int,
    leave_one_out: bool,
    audit: bool,
    workers: int | None,
) -> tuple[dict[str, Any], np.ndarray]:
    algs = task.algorithms
    integral = scheme.ties != "average"
    ranks, scores, per_target = key_task_ranking(task, scheme, key, None)
    _refuse_infinite(scores, "score")
    for _, s_t in per_target.values():
        _refuse_infinite(s_t, "target score")
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
            entry["significance"] = _significance(task, t, scheme, key, workers)
            if scheme.uncertainty.rank_ci:
                entry["rank_ci"] = _rank_ci(
                    x, scheme, key, algs, task_int_seed(seed, task.name)
                )
            targets[t] = entry
        block["targets"] = targets
    elif single_metric:
        x = task.values[key][""]
        block["significance"] = _significance(task, "", scheme, key, workers)
        if scheme.uncertainty.rank_ci:
            block["rank_ci"] = _rank_ci(
                x, scheme, key, algs, task_int_seed(seed, task.name)
            )

    n_cases = len(task.cases)
    if boot is not None:
        summary = _resample_block(ranks, boot, algs, integral)
        block["bootstrap"] = summary["algorithms"]
        block["kendall_tau"] = summary["kendall_tau"]
        block["kendall_tau_quantiles"] = summary["tau_quantiles"]
        block["winner_stability"] = summary["winner_stability"]
        block["winner_stability_by_algorithm"] = summary[
            "winner_stability_by_algorithm"
        ]
    if leave_one_out and n_cases > 1:
        loo = leave_one_out_ranks(task, scheme, key)
        taus = kendall_tau_b(ranks, loo)
        taus = taus[~np.isnan(taus)]
        block["leave_one_out"] = {
            "kendall_tau": {
                "median": float(np.median(taus)) if taus.size else None,
                "min": float(taus.min()) if taus.size else None,
            },
            "winner_stability": _number(winner_again(ranks, loo).mean()),
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


def _checked_bootstrap_ranks(
    prepared: PreparedAnalysis,
    given: Mapping[tuple[str, str], np.ndarray],
) -> dict[tuple[str, str], np.ndarray]:
    """The precomputed rankings, one (n_boot x algorithms) array per (key, task)."""
    if prepared.n_boot == 0:
        if given:
            raise ValueError("bootstrap_ranks given but the bootstrap is off")
        return {}
    expected = {
        (k, t.name): len(t.algorithms) for k in prepared.keys for t in prepared.tasks
    }
    missing = sorted(set(expected) - set(given))
    extra = sorted(set(given) - set(expected))
    if missing or extra:
        raise ValueError(
            "bootstrap_ranks must hold exactly one array per (key, task); "
            f"missing {missing}, unexpected {extra}"
        )
    checked = {}
    for pair, m in expected.items():
        arr = np.asarray(given[pair], dtype=np.float64)
        if arr.shape != (prepared.n_boot, m):
            raise ValueError(
                f"bootstrap_ranks[{pair!r}] has shape {arr.shape}, "
                f"expected {(prepared.n_boot, m)}"
            )
        checked[pair] = arr
    return checked


def run_analysis(
    results: pd.DataFrame | ResultsTable,
    scheme: dict[str, Any] | Scheme,
    *,
    bootstrap: int | None = None,
    seed: int | None = None,
    progress: Callable[[float], None] | None = None,
    leave_one_out: bool = True,
    audit: bool = True,
    bootstrap_ranks: Mapping[tuple[str, str], np.ndarray] | None = None,
    workers: int | None = None,
) -> AnalysisResult:
    """Rank a challenge's results under a registered scheme (contract §§1-3).

    Parameters
    ----------
    results : pandas.DataFrame or ResultsTable
        A results table (as read by :func:`read_results`, or the checked
        columns of :func:`read_table`); a frame is validated here unless it is
        the (unmodified) output of :func:`validate_results`.
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
    bootstrap_ranks : mapping, optional
        Precomputed bootstrap rankings, ``{(key, task): array (n_boot, m)}``
        for every ranking key and task, e.g. the blocks of
        :func:`bootstrap_block_ranks` computed elsewhere and concatenated in
        block order. Needs a seed (argument or scheme). Without it the
        bootstrap is computed here, block by block.
    workers : int, optional
        Worker threads for the chunks of pairs of a large significance map
        (tasks are ranked one after another); default ``RANKING_WORKERS`` or
        min(cpu_count, 4). The output does not depend on it.

    Returns
    -------
    AnalysisResult
        ``to_json_dict()`` gives the output JSON. The same input and seed give
        byte-identical ``json.dumps(..., sort_keys=True)``, whatever the row order
        and however the bootstrap blocks were computed.

    Raises
    ------
    ResultsError, SchemeError, MissingResultsError (all ValueError)
    """
    if (
        bootstrap_ranks is not None
        and seed is None
        and parse_scheme(scheme).uncertainty.seed is None
    ):
        raise ValueError("bootstrap_ranks needs a seed (argument or scheme)")
    prepared = prepare_analysis(results, scheme, bootstrap=bootstrap, seed=seed)
    del results  # the tasks' matrices hold what is needed (a caller may keep it)
    if sum(len(t.cases) * len(t.algorithms) for t in prepared.tasks) >= LARGE_ROWS:
        release_free_memory()
    given = (
        None
        if bootstrap_ranks is None
        else _checked_bootstrap_ranks(prepared, bootstrap_ranks)
    )
    total = len(prepared.keys) * len(prepared.tasks)
    # One BLAS thread throughout: the engine's products are small or sliced,
    # and OpenBLAS's own threads spin while they wait, which on a busy machine
    # multiplied the CPU time of the bootstrap's products tenfold. The output
    # does not depend on it (worker threads already run under this limit).
    with one_blas_thread():
        rankings = _rank_keys(prepared, given, leave_one_out, audit, workers, progress)
    if progress is not None and total == 0:
        progress(1.0)
    output = {"scheme": scheme_to_dict(prepared.scheme), "rankings": rankings}
    return AnalysisResult(scheme=prepared.scheme, output=output)


def _rank_keys(
    prepared: PreparedAnalysis,
    given: dict[tuple[str, str], np.ndarray] | None,
    leave_one_out: bool,
    audit: bool,
    workers: int | None,
    progress: Callable[[float], None] | None,
) -> dict[str, Any]:
    """The ``rankings`` object of the output: every key, every task."""
    executed, tasks, n_boot = prepared.scheme, prepared.tasks, prepared.n_boot
    total = len(prepared.keys) * len(tasks)
    done = 0
    rankings: dict[str, Any] = {}
    for key in prepared.keys:

        def rank_task(
            task: TaskData, key: str = key
        ) -> tuple[dict[str, Any], np.ndarray]:
            try:
                boot = None
                if n_boot > 0:
                    boot = (
                        given[(key, task.name)]
                        if given is not None
                        else bootstrap_block_ranks(prepared, key=key, task=task.name)
                    )
                return _task_block(
                    task,
                    executed,
                    key,
                    boot=boot,
                    seed=prepared.seed,
                    leave_one_out=leave_one_out,
                    audit=audit,
                    workers=workers,
                )
            except NonFiniteResultError as exc:
                raise exc.named(
                    metric=key, task=task.name, algorithms=task.algorithms
                ) from None
            finally:
                task.release()

        task_blocks: dict[str, Any] = {}
        task_ranks: list[np.ndarray] = []
        # Tasks one after another, not on worker threads: their numpy calls
        # are short (microseconds), so two threads hand the GIL over at every
        # call, and on an idle machine that cost more CPU and more wall time
        # than it saved (docs/ranking-engine.md, "Speed"). The workers serve
        # the long calls of a large significance map.
        for task in tasks:
            block, ranks = rank_task(task)
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
    return rankings
