"""The test-set planner: how stable is a ranking with n test cases?

For each n of a grid, :func:`run_plan` simulates R challenges of n cases from
an expected-performance model, ranks each one with the task's own scheme
through the engine (:func:`ranking._core.key_task_ranking`, the code that
ranks an analysis and its bootstrap) and reports how often the truly best
algorithm comes first, Kendall's τ-b to the true ranking, how often an
adjacent pair swaps and the width of the scheme's rank intervals, each with
its Monte-Carlo standard error (seed 004 §6: "determining the optimal sample
size … is often not straightforward"; seed 002: one test case can change a
ranking).

Two models:

* ``parametric`` — every case draws, per algorithm, ``mean + sd * z`` with
  ``z`` standard normal and correlation ρ between the algorithms of one case
  (a shared case effect); each result goes missing with ``missing_rate``.
  The true ranking is the ranking of the means.
* ``pilot`` — a pilot (or previous edition's) results table: each simulated
  challenge draws n of its cases with replacement; the true ranking is the
  pilot's own ranking under the scheme. At n = the pilot's size this is the
  analysis's bootstrap, so ``p_winner`` is its ``winner_stability``.

Simulations come in blocks of ``PLAN_BLOCK``; block k of n draws from its own
generator (seed, n, k), so blocks can be computed anywhere, in any order, and
a plan is the same however its blocks were computed (:func:`simulate_block`,
:func:`summarise_plan`). The contract is in ``docs/ranking-engine.md``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ._core import TaskData, build_tasks, key_task_ranking
from ._parallel import parallel_map
from ._ranks import rank_rows
from ._validation import ResultsTable, read_table, validate_table
from .bootstrap import case_counts, kendall_tau_b, winner_again
from .run import _values_after_policy
from .scheme import Scheme, SchemeError, parse_scheme, scheme_to_dict
from .version import ENGINE_VERSION

__all__ = [
    "PLAN_BLOCK",
    "BlockStats",
    "PlanLimits",
    "PlanSpecError",
    "PreparedPlan",
    "plan_blocks",
    "prepare_plan",
    "run_plan",
    "run_prepared_plan",
    "simulate_block",
    "summarise_plan",
]

PLAN_BLOCK = 100  # simulations per independently seeded block
_PLAN_STREAM = 0x504C414E  # "PLAN": keeps plan streams apart from the bootstrap's
_POOL_CELLS = 5_000  # counts cells of one batch of parametric simulations
#: Targets an organizer may set: output field → (direction, default).
TARGET_FIELDS = {
    "p_winner": "min",
    "p_winner_alone": "min",
    "kendall_tau": "min",
    "p_adjacent_swap": "max",
    "rank_interval_width": "max",
}
DEFAULT_TARGETS = {"p_winner": 0.9}


class PlanSpecError(ValueError):
    """A plan specification is invalid; the message starts with the field."""

    def __init__(self, field_name: str, message: str):
        self.field = field_name
        super().__init__(f"{field_name}: {message}")


@dataclass(frozen=True)
class PlanLimits:
    """Bounds on one plan (the registry passes its settings).

    ``interval_simulations`` simulations per n get rank intervals (the
    slowest part); a bootstrap interval uses at most ``interval_bootstrap``
    samples.
    """

    max_n_values: int = 20
    max_n: int = 5_000
    max_simulations: int = 10_000
    max_algorithms: int = 50
    max_work: int = 2_000_000_000  # Σ n x simulations x algorithms
    interval_simulations: int = 200
    interval_bootstrap: int = 200


@dataclass(frozen=True)
class PreparedPlan:
    """A validated plan: the scheme, the key ranked, the model and the grid."""

    scheme: Scheme
    key: str
    algorithms: tuple[str, ...]
    truth: np.ndarray
    n_values: tuple[int, ...]
    simulations: int
    seed: int
    targets: dict[str, float]
    model: dict[str, Any]
    interval_method: str | None
    interval_simulations: int
    interval_bootstrap: int
    pilot: TaskData | None = field(default=None, repr=False)
    means: np.ndarray | None = None

    @property
    def n_blocks(self) -> int:
        """Simulation blocks per n."""
        return -(-self.simulations // PLAN_BLOCK)


@dataclass(frozen=True)
class BlockStats:
    """Per-simulation outcomes of one block (JSON-able, for resumable jobs)."""

    n: int
    block: int
    winner: tuple[bool, ...]
    alone: tuple[bool, ...]
    tau: tuple[float, ...]
    swap: tuple[bool, ...]
    width: tuple[float, ...]  # only the simulations that got rank intervals

    def to_json_dict(self) -> dict[str, Any]:
        return {
            "n": self.n,
            "block": self.block,
            "winner": [int(w) for w in self.winner],
            "alone": [int(w) for w in self.alone],
            "tau": list(self.tau),
            "swap": [int(s) for s in self.swap],
            "width": list(self.width),
        }

    @classmethod
    def from_json_dict(cls, data: Mapping[str, Any]) -> BlockStats:
        return cls(
            n=int(data["n"]),
            block=int(data["block"]),
            winner=tuple(bool(w) for w in data["winner"]),
            alone=tuple(bool(w) for w in data["alone"]),
            tau=tuple(float(t) for t in data["tau"]),
            swap=tuple(bool(s) for s in data["swap"]),
            width=tuple(float(w) for w in data["width"]),
        )


# ------------------------------------------------------------------ the spec


def _number(value: Any, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise PlanSpecError(name, f"expected a number, found {value!r}")
    if not math.isfinite(value):
        raise PlanSpecError(name, "must be finite")
    return float(value)


def _integer(value: Any, name: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise PlanSpecError(name, f"expected a whole number, found {value!r}")
    if not low <= value <= high:
        raise PlanSpecError(name, f"must be between {low} and {high}, not {value}")
    return int(value)


def _fields(obj: Any, name: str, allowed: Sequence[str]) -> dict[str, Any]:
    if not isinstance(obj, dict):
        raise PlanSpecError(name, f"expected an object, found {type(obj).__name__}")
    unknown = sorted(set(obj) - set(allowed))
    if unknown:
        raise PlanSpecError(
            f"{name}.{unknown[0]}" if name else unknown[0],
            f"unknown field; expected one of {', '.join(allowed)}",
        )
    return obj


def _key(scheme: Scheme, model: dict[str, Any]) -> str:
    """The ranking key planned: ``combined``, or the model's (single) metric."""
    if scheme.combine:
        return "combined"
    metric = model.get("metric")
    if metric is None:
        if len(scheme.metrics) > 1:
            raise PlanSpecError(
                "model.metric",
                "the scheme ranks several metrics separately; name the one "
                f"to plan for ({', '.join(scheme.metrics)})",
            )
        return scheme.metrics[0]
    if metric not in scheme.metrics:
        raise PlanSpecError("model.metric", f"{metric!r} is not a metric of the scheme")
    return str(metric)


def _parametric_means(model: dict[str, Any], higher: bool) -> dict[str, float]:
    """``means``, or ``algorithms`` evenly spaced by ``gap`` below ``best``."""
    if "means" in model:
        means = model["means"]
        if not isinstance(means, dict) or len(means) < 2:
            raise PlanSpecError(
                "model.means", "expected an object {algorithm: mean} of ≥ 2"
            )
        return {str(a): _number(v, f"model.means.{a}") for a, v in means.items()}
    for name in ("algorithms", "gap", "best"):
        if name not in model:
            raise PlanSpecError(
                f"model.{name}", "required (or give model.means instead)"
            )
    count = _integer(model["algorithms"], "model.algorithms", 2, 10**6)
    gap = _number(model["gap"], "model.gap")
    best = _number(model["best"], "model.best")
    step = -gap if higher else gap
    width = len(str(count))
    return {f"A{k + 1:0{width}d}": best + k * step for k in range(count)}


def _parametric(
    model: dict[str, Any], scheme: Scheme, key: str
) -> tuple[tuple[str, ...], np.ndarray, dict[str, Any]]:
    if key == "combined" and len(scheme.metrics) > 1:
        raise PlanSpecError(
            "model.kind",
            "a parametric model describes one metric; this scheme combines "
            "several: plan it from a pilot results table",
        )
    higher = scheme.higher_is_better[key if key != "combined" else scheme.metrics[0]]
    means = _parametric_means(model, higher)
    sd = _number(model.get("sd"), "model.sd")
    if sd <= 0:
        raise PlanSpecError("model.sd", "must be > 0")
    rho = _number(model.get("correlation", 0.0), "model.correlation")
    if not 0 <= rho < 1:
        raise PlanSpecError("model.correlation", "must be ≥ 0 and < 1")
    rate = _number(model.get("missing_rate", 0.0), "model.missing_rate")
    if not 0 <= rate < 1:
        raise PlanSpecError("model.missing_rate", "must be ≥ 0 and < 1")
    if rate > 0 and scheme.missing is None:
        raise PlanSpecError(
            "model.missing_rate",
            "results go missing but the scheme has no 'missing' rule",
        )
    algorithms = tuple(sorted(means))
    mean_array = np.array([means[a] for a in algorithms])
    echo = {
        "kind": "parametric",
        "means": {a: means[a] for a in algorithms},
        "sd": sd,
        "correlation": rho,
        "missing_rate": rate,
    }
    return algorithms, mean_array, echo


def _pilot_task(
    model: dict[str, Any], scheme: Scheme, results: ResultsTable | None
) -> TaskData:
    if results is None:
        path = model.get("results")
        if not isinstance(path, str) or not path:
            raise PlanSpecError("model.results", "expected the path of a results CSV")
        results = read_table(path)
    table = validate_table(results)
    tasks = build_tasks(table, scheme)
    names = [t.name for t in tasks]
    wanted = model.get("task")
    if wanted is None and len(tasks) == 1:
        wanted = tasks[0].name
    for task in tasks:
        if task.name == wanted:
            _require_pilot_values(table, task, scheme)
            return task
    raise PlanSpecError(
        "model.task", f"expected one of the results' tasks: {', '.join(names)}"
    )


def _require_pilot_values(table: ResultsTable, task: TaskData, scheme: Scheme) -> None:
    """Refuse a pilot task without a value of a metric (or target) the scheme
    ranks: the missing rule would fill every value, and the "plan" would
    resample fill values (identical ranks, every winner "correct").

    Raises
    ------
    ValueError
        Naming the scheme's metric and the metrics the pilot task has.
    """
    for metric in scheme.metrics:
        for target, raw in task.raw[metric].items():
            if not np.isnan(raw).all():
                continue
            found = _task_metrics(table, task.name)
            where = f"the pilot task {task.name!r}" + (
                f", target {target!r}," if target else ""
            )
            if metric not in found:
                listed = ", ".join(repr(m) for m in found)
                reason = f"{where} has no row of it; its metrics are {listed}"
            else:
                reason = f"every value of it in {where} is missing"
            raise ValueError(
                f"scheme field 'metric': the scheme ranks metric {metric!r}, but "
                f"{reason}; a plan from fill values would mean nothing"
            )


def _task_metrics(table: ResultsTable, task_name: str) -> list[str]:
    """The metrics with a row in task ``task_name`` of ``table``, sorted."""
    task_code = table.categories["task"].index(task_name)
    codes = np.unique(table.codes["metric"][table.codes["task"] == task_code])
    return sorted(table.categories["metric"][int(k)] for k in codes)


def _targets(raw: Any) -> dict[str, float]:
    if raw is None:
        return dict(DEFAULT_TARGETS)
    given = _fields(raw, "targets", tuple(TARGET_FIELDS))
    return {k: _number(v, f"targets.{k}") for k, v in sorted(given.items())}


def _grid(raw: Any, limits: PlanLimits) -> tuple[int, ...]:
    if not isinstance(raw, list) or not raw:
        raise PlanSpecError("n", "expected a non-empty list of case counts")
    if len(raw) > limits.max_n_values:
        raise PlanSpecError("n", f"at most {limits.max_n_values} values")
    values = [_integer(v, "n", 2, limits.max_n) for v in raw]
    if len(set(values)) != len(values):
        raise PlanSpecError("n", "each value once")
    return tuple(sorted(values))


def prepare_plan(
    spec: Mapping[str, Any],
    *,
    results: ResultsTable | None = None,
    limits: PlanLimits | None = None,
) -> PreparedPlan:
    """Validate a plan specification (contract: ``docs/ranking-engine.md``).

    Parameters
    ----------
    spec : dict
        ``{"scheme", "model", "n", "simulations", "seed"}`` and optionally
        ``"targets"``.
    results : ResultsTable, optional
        The pilot table (instead of reading ``model.results`` from disk).
    limits : PlanLimits, optional
        Bounds; :class:`PlanLimits` defaults otherwise.

    Raises
    ------
    PlanSpecError, SchemeError, ResultsError, MissingResultsError (ValueError)
    """
    limits = limits or PlanLimits()
    spec = _fields(
        dict(spec), "", ("scheme", "model", "n", "simulations", "seed", "targets")
    )
    for name in ("scheme", "model", "n", "simulations", "seed"):
        if name not in spec:
            raise PlanSpecError(name, "required")
    try:
        scheme = parse_scheme(spec["scheme"])
    except SchemeError as exc:
        raise PlanSpecError(f"scheme.{exc.field}", str(exc).split(": ", 1)[1]) from None
    model = spec["model"]
    if not isinstance(model, dict) or model.get("kind") not in ("parametric", "pilot"):
        raise PlanSpecError("model.kind", "expected 'parametric' or 'pilot'")
    n_values = _grid(spec["n"], limits)
    simulations = _integer(
        spec["simulations"], "simulations", 1, limits.max_simulations
    )
    seed = _integer(spec["seed"], "seed", 0, 2**63 - 1)
    targets = _targets(spec.get("targets"))
    key = _key(scheme, model)
    pilot, means = None, None
    if model["kind"] == "parametric":
        _fields(
            model,
            "model",
            (
                "kind",
                "means",
                "algorithms",
                "gap",
                "best",
                "sd",
                "correlation",
                "missing_rate",
                "metric",
            ),
        )
        algorithms, means, echo = _parametric(model, scheme, key)
        truth = rank_rows(
            means, ties=scheme.ties, higher_is_better=scheme.higher_is_better[key]
        )
    else:
        _fields(model, "model", ("kind", "results", "task", "metric"))
        pilot = _pilot_task(model, scheme, results)
        algorithms = tuple(pilot.algorithms)
        truth = key_task_ranking(pilot, scheme, key, None)[0]
        echo = {"kind": "pilot", "task": pilot.name, "cases": len(pilot.cases)}
        if isinstance(model.get("results"), str):
            echo["results"] = model["results"]
    if not 2 <= len(algorithms) <= limits.max_algorithms:
        raise PlanSpecError(
            "model",
            f"expected 2 to {limits.max_algorithms} algorithms, "
            f"found {len(algorithms)}",
        )
    work = sum(n_values) * simulations * len(algorithms)
    if work > limits.max_work:
        raise PlanSpecError(
            "simulations",
            f"Σn x simulations x algorithms = {work:,} exceeds {limits.max_work:,}; "
            "fewer simulations or a smaller grid",
        )
    rank_ci = scheme.uncertainty.rank_ci
    interval_ok = rank_ci and (pilot is None or not pilot.has_targets)
    return PreparedPlan(
        scheme=scheme,
        key=key,
        algorithms=algorithms,
        truth=np.asarray(truth, dtype=np.float64),
        n_values=n_values,
        simulations=simulations,
        seed=seed,
        targets=targets,
        model=echo,
        interval_method=rank_ci[0] if interval_ok and key != "combined" else None,
        interval_simulations=min(simulations, limits.interval_simulations),
        interval_bootstrap=min(
            scheme.uncertainty.bootstrap or 1000, limits.interval_bootstrap
        ),
        pilot=pilot,
        means=means,
    )


# ---------------------------------------------------------------- simulation


def plan_blocks(prepared: PreparedPlan) -> list[tuple[int, int]]:
    """Every (n, block) of the plan, in the order the plan lists them."""
    return [(n, k) for n in prepared.n_values for k in range(prepared.n_blocks)]


def _block_rng(prepared: PreparedPlan, n: int, block: int) -> np.random.Generator:
    return np.random.default_rng([prepared.seed, _PLAN_STREAM, n, block])


def _parametric_values(
    prepared: PreparedPlan, rng: np.random.Generator, rows: int
) -> np.ndarray:
    """``rows`` simulated cases (rows x algorithms) after the missing rule."""
    assert prepared.means is not None
    model, m = prepared.model, prepared.means.size
    rho = model["correlation"]
    shared = rng.standard_normal((rows, 1))
    own = rng.standard_normal((rows, m))
    z = math.sqrt(rho) * shared + math.sqrt(1 - rho) * own
    x = prepared.means[None, :] + model["sd"] * z
    if model["missing_rate"] > 0:
        x[rng.random((rows, m)) < model["missing_rate"]] = np.nan
        missing = prepared.scheme.missing
        if missing is not None and missing.policy == "value":
            assert missing.value is not None
            x = np.where(np.isnan(x), missing.value[prepared.key], x)
    return x


def _as_task(prepared: PreparedPlan, x: np.ndarray) -> TaskData:
    """Simulated cases as a one-target task, for the engine's ranking."""
    values = {prepared.key: {"": x}}
    return TaskData(
        name="plan",
        cases=[str(i) for i in range(x.shape[0])],
        algorithms=list(prepared.algorithms),
        targets=[""],
        values=values,
        raw=values,
    )


def _parametric_block(
    prepared: PreparedPlan, n: int, size: int, rng: np.random.Generator
) -> tuple[np.ndarray, list[np.ndarray]]:
    """Ranks (size x m) of ``size`` simulated challenges and their matrices.

    A batch of c challenges is one pool of c·n cases with block-diagonal
    counts (challenge i counts cases i·n … i·n + n − 1 once), so the engine
    ranks the batch in one vectorised call, exactly as each challenge alone.
    The engine's resample code costs c·(c·n) per pair: batches stay small.
    """
    batch = max(1, min(size, math.isqrt(max(1, _POOL_CELLS // n))))
    pool = _parametric_values(prepared, rng, size * n)  # one draw: batch-free
    ranks = []
    for start in range(0, size, batch):
        c = min(batch, size - start)
        x = pool[start * n : (start + c) * n]
        counts = np.kron(np.eye(c, dtype=np.int64), np.ones((1, n), dtype=np.int64))
        data = _as_task(prepared, x)
        try:
            ranks.append(
                key_task_ranking(data, prepared.scheme, prepared.key, counts)[0]
            )
        finally:
            data.release()
    matrices = [pool[i * n : (i + 1) * n] for i in range(size)]
    return np.concatenate(ranks, axis=0), matrices


def _pilot_block(
    prepared: PreparedPlan, n: int, size: int, rng: np.random.Generator
) -> tuple[np.ndarray, list[np.ndarray]]:
    """Ranks of ``size`` challenges of n pilot cases drawn with replacement."""
    data = prepared.pilot
    assert data is not None
    idx = rng.integers(0, len(data.cases), size=(size, n))
    ranks = key_task_ranking(
        data, prepared.scheme, prepared.key, case_counts(idx, len(data.cases))
    )[0]
    if prepared.interval_method is None:
        return ranks, []
    x = data.values[prepared.key][""]
    return ranks, [x[row] for row in idx]


def _winner_alone(truth: np.ndarray, ranks: np.ndarray) -> np.ndarray:
    """Per simulation: does first place hold truly best algorithms only?

    Under a test-based scheme a small n leaves every algorithm tied first,
    which ``p_winner`` (a shared first place counts) reports as a success.
    """
    first = ranks == ranks.min(axis=1, keepdims=True)
    return ~(first & (truth != truth.min())[None, :]).any(axis=1)


def _adjacent_swaps(truth: np.ndarray, ranks: np.ndarray) -> np.ndarray:
    """Per simulation: does a pair adjacent in the true order come out
    strictly reversed? (Tied true ranks make no pair; an observed tie is no
    swap.)"""
    order = np.argsort(truth, kind="stable")
    better, worse = order[:-1], order[1:]
    distinct = truth[better] < truth[worse]
    reversed_ = ranks[:, better[distinct]] > ranks[:, worse[distinct]]
    return reversed_.any(axis=1)


def _interval_width(prepared: PreparedPlan, x: np.ndarray, seed: int) -> float:
    """Median over algorithms of the number of ranks each interval spans."""
    assert prepared.interval_method is not None
    complete = _values_after_policy(x)
    m = len(prepared.algorithms)
    if complete.shape[0] < 2:
        return float(m)  # no evidence: every rank is possible
    # scipy.stats only when planned intervals need it: `import ranking` (every
    # command line run) stays without it
    from .intervals import rank_confidence_intervals

    bounds = rank_confidence_intervals(
        complete,
        method=prepared.interval_method,
        alpha=prepared.scheme.uncertainty.alpha,
        higher_is_better=prepared.scheme.higher_is_better[prepared.key],
        n_boot=prepared.interval_bootstrap,
        seed=seed,
        ties=prepared.scheme.ties,
    )
    return float(np.median([hi - lo + 1 for lo, hi in bounds]))


def simulate_block(prepared: PreparedPlan, n: int, block: int) -> BlockStats:
    """Simulate block ``block`` of the challenges with ``n`` cases.

    The block holds simulations ``block * PLAN_BLOCK`` up to
    ``min(simulations, (block + 1) * PLAN_BLOCK)``; its draws depend only on
    (seed, n, block), never on which other blocks run or where.
    """
    if n not in prepared.n_values or not 0 <= block < prepared.n_blocks:
        raise ValueError(f"no block {block} of n = {n} in this plan")
    start = block * PLAN_BLOCK
    size = min(PLAN_BLOCK, prepared.simulations - start)
    rng = _block_rng(prepared, n, block)
    simulate = _pilot_block if prepared.pilot is not None else _parametric_block
    ranks, matrices = simulate(prepared, n, size, rng)
    tau = kendall_tau_b(prepared.truth, ranks)
    # A challenge that ranks every algorithm equal says nothing about the order.
    tau = np.where(np.isnan(tau), 0.0, tau)
    widths: list[float] = []
    if prepared.interval_method is not None:
        wanted = max(0, min(size, prepared.interval_simulations - start))
        seeds = rng.integers(0, 2**32, size=wanted)
        widths = [
            _interval_width(prepared, matrices[i], int(seeds[i])) for i in range(wanted)
        ]
    return BlockStats(
        n=n,
        block=block,
        winner=tuple(bool(w) for w in winner_again(prepared.truth, ranks)),
        alone=tuple(bool(w) for w in _winner_alone(prepared.truth, ranks)),
        tau=tuple(float(t) for t in tau),
        swap=tuple(bool(s) for s in _adjacent_swaps(prepared.truth, ranks)),
        width=tuple(widths),
    )


# ------------------------------------------------------------------ summary


def _mean_se(values: np.ndarray) -> tuple[float | None, float | None]:
    if values.size == 0:
        return None, None
    mean = float(values.mean())
    se = float(values.std(ddof=1) / math.sqrt(values.size)) if values.size > 1 else 0.0
    return round(mean, 6), round(se, 6)


def _record(n: int, blocks: list[BlockStats]) -> dict[str, Any]:
    def joined(name: str) -> np.ndarray:
        return np.array([v for b in blocks for v in getattr(b, name)], dtype=float)

    record: dict[str, Any] = {"n": n}
    for name, out in (
        ("winner", "p_winner"),
        ("alone", "p_winner_alone"),
        ("tau", "kendall_tau"),
        ("swap", "p_adjacent_swap"),
        ("width", "rank_interval_width"),
    ):
        record[out], record[f"{out}_se"] = _mean_se(joined(name))
    record["interval_simulations"] = int(joined("width").size)
    return record


def _meets(record: Mapping[str, Any], targets: Mapping[str, float]) -> bool:
    for name, goal in targets.items():
        value = record.get(name)
        if value is None:
            return False
        if (value < goal) if TARGET_FIELDS[name] == "min" else (value > goal):
            return False
    return True


def recommended_n(
    records: Sequence[Mapping[str, Any]], targets: Mapping[str, float]
) -> int | None:
    """The smallest n of the grid from which on every n meets the targets."""
    found = None
    for record in reversed(records):
        if not _meets(record, targets):
            break
        found = int(record["n"])
    return found


def summarise_plan(
    prepared: PreparedPlan, blocks: Mapping[tuple[int, int], BlockStats]
) -> dict[str, Any]:
    """The plan's output JSON from every block's outcomes (any order)."""
    missing = [nb for nb in plan_blocks(prepared) if nb not in blocks]
    if missing:
        raise ValueError(f"{len(missing)} blocks not computed yet, e.g. {missing[0]}")
    records = [
        _record(n, [blocks[(n, k)] for k in range(prepared.n_blocks)])
        for n in prepared.n_values
    ]
    return {
        "engine_version": ENGINE_VERSION,
        "seed": prepared.seed,
        "simulations": prepared.simulations,
        "scheme": scheme_to_dict(prepared.scheme),
        "key": prepared.key,
        "model": prepared.model,
        "algorithms": list(prepared.algorithms),
        "true_ranks": {
            a: float(r)
            for a, r in zip(prepared.algorithms, prepared.truth, strict=True)
        },
        "interval_method": prepared.interval_method,
        "targets": prepared.targets,
        "recommended_n": recommended_n(records, prepared.targets),
        "n": records,
    }


def run_plan(
    spec: Mapping[str, Any],
    *,
    results: ResultsTable | None = None,
    limits: PlanLimits | None = None,
    workers: int = 1,
) -> dict[str, Any]:
    """Validate ``spec``, simulate every block and summarise (one process).

    ``workers`` threads share the blocks; the output does not depend on their
    number. One by default, whatever ``RANKING_WORKERS``: a block's numpy
    calls last microseconds, so two threads mostly trade the GIL — on two
    cores they took 75 % more CPU for no shorter wall time
    (docs/engine-benchmark.md, (d)).
    """
    return run_prepared_plan(
        prepare_plan(spec, results=results, limits=limits), workers=workers
    )


def run_prepared_plan(prepared: PreparedPlan, *, workers: int = 1) -> dict[str, Any]:
    """Simulate every block of a :func:`prepare_plan` result and summarise."""
    todo = plan_blocks(prepared)
    stats = parallel_map(lambda nb: simulate_block(prepared, *nb), todo, workers)
    return summarise_plan(prepared, dict(zip(todo, stats, strict=True)))
