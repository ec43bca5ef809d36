"""Test-set plans of tasks (issue 29): compute, attach, read.

A plan answers, for a task's executable ranking scheme, *with n test cases,
how stable will the ranking be?* (``ranking.planner``). The page, the API and
``manage.py plan`` compute it through :func:`compute_task_plan`; an organizer
attaches it to a task of a draft with :func:`attach_plan`, which computes it
again from the same inputs (deterministic per seed) instead of trusting a plan
sent by a client. The attached plan is part of the design (`TaskDesign.plan`):
reviewers see it beside the number of test cases, registration freezes it,
the design PDF prints it and a design check reads it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import F

if TYPE_CHECKING:
    from ranking.planner import PlanLimits, PreparedPlan

# The engine (numpy, scipy) is imported where a plan is computed, not here:
# the design and its diffs import this module's wording at start-up.

from .canonical import sha256_hex
from .models import Task
from .parameters import Role
from .pilot_tables import STORED_MARK, pilot_table_text, with_stored_table
from .services import require_edit

TEST_CASES = Role.TEST_CASES.number
#: The design check's threshold: P(winner correct) at the chosen n.
WEAK_PLAN_P_WINNER = 0.8
DEFAULT_GRID = (10, 20, 30, 50, 75, 100, 150, 200, 300, 500)
DEFAULT_INPUTS: dict[str, Any] = {
    "model": {
        "kind": "parametric",
        "algorithms": 10,
        "best": 0.85,
        "gap": 0.02,
        "sd": 0.1,
        "correlation": 0.5,
        "missing_rate": 0.0,
    },
    "n": list(DEFAULT_GRID),
    "simulations": 500,
    "seed": 1,
    "targets": {"p_winner": 0.9},
}
INPUT_KEYS = ("model", "n", "simulations", "seed", "targets")
TARGET_WORDS = {
    "p_winner": "P(winner correct)",
    "p_winner_alone": "P(winner correct and alone first)",
    "kendall_tau": "Kendall's τ",
    "p_adjacent_swap": "P(an adjacent pair swaps)",
    "rank_interval_width": "rank-interval width",
}


def plan_limits() -> PlanLimits:
    """The engine's bounds from the settings (docs/security.md)."""
    from ranking.planner import PlanLimits

    return PlanLimits(
        max_n_values=settings.PLAN_MAX_N_VALUES,
        max_n=settings.PLAN_MAX_N,
        max_simulations=settings.PLAN_MAX_SIMULATIONS,
        max_algorithms=settings.PLAN_MAX_ALGORITHMS,
        max_work=settings.PLAN_MAX_WORK,
        interval_simulations=settings.PLAN_INTERVAL_SIMULATIONS,
    )


def _inputs(inputs: Mapping[str, Any]) -> dict[str, Any]:
    unknown = sorted(set(inputs) - set(INPUT_KEYS))
    if unknown:
        raise ValidationError(
            {unknown[0]: f"unknown field; expected one of {', '.join(INPUT_KEYS)}"}
        )
    model = inputs.get("model", DEFAULT_INPUTS["model"])
    if not isinstance(model, Mapping):
        raise ValidationError(
            {"model": "expected an object with a kind, 'parametric' or 'pilot'"}
        )
    if model.get("kind") == "pilot":
        _check_pilot(model)
    return {key: inputs.get(key, DEFAULT_INPUTS[key]) for key in INPUT_KEYS}


def _check_pilot(model: Mapping[str, Any]) -> None:
    """A pilot model carries its table's text (``"table"``), bounded by
    ``PLAN_PILOT_MAX_BYTES``; never a server path: over the web a path would
    read any file the server can (the command line reads paths)."""
    if "results" in model:
        raise ValidationError(
            {
                "model.results": "a results file on the server is read by `manage.py "
                "plan` only; here give the pilot table itself (model.table)"
            }
        )
    table = model.get("table")
    if not isinstance(table, str) or not table.strip():
        raise ValidationError({"model.table": "expected the pilot results CSV"})
    size = len(table.encode("utf-8"))
    if size > settings.PLAN_PILOT_MAX_BYTES:
        raise ValidationError(
            {
                "model.table": f"the pilot table has {size:,} bytes; at most "
                f"{settings.PLAN_PILOT_MAX_BYTES:,} (PLAN_PILOT_MAX_BYTES)"
            }
        )


def task_plan_spec(*, task: Task, inputs: Mapping[str, Any]) -> dict[str, Any]:
    """The planner's specification: the task's scheme and the checked inputs
    (a pilot model keeps its table's text, as a background run stores it)."""
    return _checked_spec(task, inputs)


def _checked_spec(task: Task, inputs: Mapping[str, Any]) -> dict[str, Any]:
    if task.scheme is None:
        raise ValidationError(
            {"scheme": f"task “{task.name}” has no ranking scheme yet: set one first"}
        )
    return {"scheme": task.scheme, **_inputs(inputs)}


def planner_error(exc: ValueError) -> ValidationError:
    """A planner refusal (``"field: message"``) as a ValidationError on the field."""
    field, _, message = str(exc).partition(": ")
    return ValidationError({field if message else "spec": message or field})


def prepare_task_plan(spec: Mapping[str, Any]) -> PreparedPlan:
    """The engine's validated plan of ``spec`` (a :func:`task_plan_spec`), for
    a request and a background run alike; a pilot table given as text is
    parsed by the engine's ``read_table``.

    Raises
    ------
    ValidationError
        On the field the engine names; a pilot table that cannot be read or
        does not fit the scheme on ``model.table``.
    """
    from ranking import ResultsError, read_table
    from ranking.planner import PlanSpecError, prepare_plan

    model = spec["model"]
    if model.get("kind") != "pilot":
        try:
            return prepare_plan(spec, limits=plan_limits())
        except ValueError as exc:
            raise planner_error(exc) from None
    try:
        results = read_table(model["table"].encode("utf-8"))
    except ResultsError as exc:
        raise ValidationError({"model.table": f"the pilot table: {exc}"}) from None
    engine_model = {"kind": "pilot", "task": model.get("task") or None}
    try:
        return prepare_plan(
            {**spec, "model": engine_model}, results=results, limits=plan_limits()
        )
    except PlanSpecError as exc:
        raise planner_error(exc) from None
    except ValueError as exc:  # the table and the task's scheme do not fit
        raise ValidationError(
            {"model.table": f"the pilot table does not fit the task's scheme: {exc}"}
        ) from None


def finished_plan(plan: dict[str, Any], spec: Mapping[str, Any]) -> dict[str, Any]:
    """The engine's output of ``spec`` as the registry keeps it: a pilot plan
    also carries its table and the table's SHA-256, so it can be checked and
    computed again without any file the client named."""
    model = spec["model"]
    if model.get("kind") != "pilot":
        return plan
    table = model["table"]
    plan["model"] = {
        **plan["model"],
        "results_sha256": sha256_hex(table.encode("utf-8")),
        "table": table,
    }
    return plan


def compute_task_plan(*, task: Task, inputs: Mapping[str, Any]) -> dict[str, Any]:
    """The plan of ``task``'s scheme under ``inputs`` (model, n, simulations,
    seed, targets; defaults from `DEFAULT_INPUTS`).

    Raises
    ------
    ValidationError
        The task has no scheme, or an input is refused (the message names it).
    """
    from ranking.planner import run_prepared_plan

    spec = _checked_spec(task, inputs)
    prepared = prepare_task_plan(spec)
    try:
        plan = run_prepared_plan(prepared)
    except ValueError as exc:  # e.g. a non-finite value met while ranking
        raise planner_error(exc) from None
    return finished_plan(plan, spec)


@transaction.atomic
def attach_plan(*, task: Task, inputs: Mapping[str, Any], actor) -> Task:
    """Compute the plan of ``inputs`` and attach it to ``task`` (a draft's)."""
    require_edit(actor, task.challenge)
    plan = compute_task_plan(task=task, inputs=inputs)
    return attach_computed_plan(task=task, plan=plan, actor=actor)


@transaction.atomic
def attach_computed_plan(*, task: Task, plan: dict[str, Any], actor) -> Task:
    """Attach a plan the registry computed itself (a background plan run's
    output; never a plan sent by a client)."""
    require_edit(actor, task.challenge)
    plan = with_stored_table(plan)  # the design keeps the table's hash, not it
    task.test_set_plan = plan
    task.version = F("version") + 1  # lost-update protection (registry/versions.py)
    task.save(update_fields=["test_set_plan", "version"])
    task.refresh_from_db(fields=["version"])
    answer = task.answers.filter(number=TEST_CASES).values_list("value", flat=True)
    chosen = chosen_test_cases(answer.first())
    transaction.on_commit(lambda: _store_figure(plan, chosen))
    return task


def _store_figure(plan: Mapping[str, Any], chosen: int | None) -> None:
    from .plan_figure import store_plan_figure  # matplotlib on demand

    store_plan_figure(plan, chosen)


@transaction.atomic
def detach_plan(*, task: Task, actor) -> Task:
    require_edit(actor, task.challenge)
    task.test_set_plan = None
    task.version = F("version") + 1
    task.save(update_fields=["test_set_plan", "version"])
    task.refresh_from_db(fields=["version"])
    return task


def plan_inputs(plan: Mapping[str, Any]) -> dict[str, Any]:
    """The inputs that computed ``plan`` (to compute it again, or prefill a form)."""
    model = dict(plan["model"])
    if model["kind"] == "pilot":  # the echo (cases, SHA-256) is computed again
        model = {
            "kind": "pilot",
            "task": model["task"],
            "table": pilot_table_text(model),
        }
    return {
        "model": model,
        "n": [r["n"] for r in plan["n"]],
        "simulations": plan["simulations"],
        "seed": plan["seed"],
        "targets": dict(plan["targets"]),
    }


# --- reading a plan ---------------------------------------------------------------


@dataclass(frozen=True)
class PlanReading:
    """What a plan says at the chosen number of test cases."""

    n: int
    p_winner: float
    interpolated: bool  # n between two grid values: linear interpolation
    outside: str = ""  # "below" / "above" the grid: the nearest end is used


def chosen_test_cases(answer_value: Any) -> int | None:
    """The count of the test-cases answer (``{"count": n, ...}``), if any."""
    count = answer_value.get("count") if isinstance(answer_value, Mapping) else None
    return count if isinstance(count, int) and count > 0 else None


def p_winner_at(plan: Mapping[str, Any], n: int) -> PlanReading:
    """P(winner correct) at ``n`` cases, read from the plan's grid."""
    records = plan["n"]
    grid = [r["n"] for r in records]
    values = [r["p_winner"] for r in records]
    if n <= grid[0]:
        return PlanReading(n, values[0], False, "below" if n < grid[0] else "")
    if n >= grid[-1]:
        return PlanReading(n, values[-1], False, "above" if n > grid[-1] else "")
    for (n0, p0), (n1, p1) in zip(
        zip(grid, values, strict=True),
        zip(grid[1:], values[1:], strict=True),
        strict=True,
    ):
        if n0 <= n <= n1:
            if n == n0:
                return PlanReading(n, p0, False)
            if n == n1:
                return PlanReading(n, p1, False)
            return PlanReading(n, p0 + (p1 - p0) * (n - n0) / (n1 - n0), True)
    raise AssertionError("unreachable: n lies within the grid")


def _percent(p: float) -> str:
    return f"{100 * p:.0f} %"


def plan_summary(plan: Mapping[str, Any], chosen: int | None) -> list[str]:
    """The plan in plain words, one sentence per item."""
    model = plan["model"]
    m = len(plan["algorithms"])
    if model["kind"] == "parametric":
        expectation = (
            f"{m} algorithms whose expected {plan['key']} values lie "
            f"{min(model['means'].values()):g}–{max(model['means'].values()):g}, "
            f"spread {model['sd']:g} between cases, correlation "
            f"{model['correlation']:g} between algorithms on the same case"
        )
        if model.get("missing_rate"):
            expectation += f", {_percent(model['missing_rate'])} results missing"
    else:
        expectation = (
            f"the {m} algorithms of the pilot task “{model['task']}” "
            f"({model['cases']} cases, resampled)"
        )
    lines = [
        f"Simulated {plan['simulations']} challenges for each number of test cases "
        f"under the task's ranking scheme, expecting {expectation}."
    ]
    targets = _targets_text(plan["targets"])
    if plan["recommended_n"] is None:
        lines.append(
            f"No number of test cases in the plan reaches the targets ({targets})."
        )
    else:
        lines.append(
            f"From {plan['recommended_n']} test cases on, every planned number "
            f"reaches the targets ({targets})."
        )
    if chosen is not None:
        reading = p_winner_at(plan, chosen)
        where = {
            "below": " (fewer cases than the plan's smallest n: at most this)",
            "above": " (more cases than the plan's largest n: at least this)",
        }.get(reading.outside, " (interpolated)" if reading.interpolated else "")
        lines.append(
            f"With the chosen {chosen} test cases (parameter {TEST_CASES}), the truly "
            f"best algorithm ranks first in about {_percent(reading.p_winner)} of "
            f"challenges{where}."
        )
    return lines


# --- a plan in a diff ------------------------------------------------------------


def _grid_text(ns: list[int], full: bool) -> str:
    if full or len(ns) == 1:
        return ", ".join(str(n) for n in ns)
    return f"{ns[0]}–{ns[-1]}"


def _model_text(model: Mapping[str, Any], full: bool) -> str:
    if model["kind"] == "pilot":
        text = f"pilot task “{model['task']}” ({model['cases']} cases)"
        digest = model.get("results_sha256")
        return f"{text}, table SHA-256 {digest[:12]}…" if digest else text
    means = model["means"]
    if full:
        values = ", ".join(f"{a}: {v:g}" for a, v in means.items())
    else:
        values = f"{min(means.values()):g}–{max(means.values()):g}"
    text = (
        f"{len(means)} algorithms, means {values}, spread {model['sd']:g}, "
        f"correlation {model['correlation']:g}"
    )
    if model.get("missing_rate"):
        text += f", {_percent(model['missing_rate'])} missing"
    return text


def _targets_text(targets: Mapping[str, float]) -> str:
    from ranking.planner import TARGET_FIELDS

    return ", ".join(
        f"{TARGET_WORDS.get(k, k)} {'≥' if TARGET_FIELDS[k] == 'min' else '≤'} {v:g}"
        for k, v in targets.items()
    )


def _plan_facts(plan: Mapping[str, Any], full: bool = False) -> dict[str, str]:
    """A plan's inputs and headline output in plain words, by label; ``full``
    spells out what the short form summarises (every n, every mean)."""
    recommended = plan.get("recommended_n")
    return {
        "n grid": _grid_text([r["n"] for r in plan["n"]], full),
        "recommended n": "none" if recommended is None else str(recommended),
        "expected performance": _model_text(plan["model"], full),
        "targets": _targets_text(plan["targets"]) or "none",
        "simulations": str(plan["simulations"]),
        "seed": str(plan["seed"]),
        "ranking engine": str(plan["engine_version"]),
    }


def plan_text(plan: Mapping[str, Any] | None) -> str:
    """A plan in one line of plain words (empty for no plan)."""
    if not plan:
        return ""
    return "; ".join(f"{label} {words}" for label, words in _plan_facts(plan).items())


def plan_field_changes(
    before: Mapping[str, Any], after: Mapping[str, Any]
) -> tuple[tuple[str, str, str], ...]:
    """``(label, before, after)`` in plain words for each input or headline
    output that differs between two plans of a task."""
    short_a, short_b = _plan_facts(before), _plan_facts(after)
    full_a, full_b = _plan_facts(before, True), _plan_facts(after, True)
    out = []
    for label, words in short_a.items():
        if full_a[label] == full_b[label]:
            continue
        # Equal summaries of different values (a mean inside the same range)
        # are spelled out, so the line shows what changed.
        same = words == short_b[label]
        out.append(
            (
                label,
                full_a[label] if same else words,
                full_b[label] if same else short_b[label],
            )
        )
    if not out and _table_stored_since(before, after):
        out.append(
            ("pilot table", "kept in the plan", "stored as a file, same SHA-256")
        )
    elif not out and before != after:
        # Same inputs, other outputs: the task's ranking scheme changed.
        out.append(("simulated outputs", "as computed before", "recomputed"))
    return tuple(out)


def _table_stored_since(before: Mapping[str, Any], after: Mapping[str, Any]) -> bool:
    """``after`` is ``before`` with its inline pilot table stored as a file."""
    model = before["model"]
    if "table" not in model or STORED_MARK not in after["model"]:
        return False
    kept = {k: v for k, v in model.items() if k != "table"}
    size = len(model["table"].encode("utf-8"))
    return {**before, "model": {**kept, STORED_MARK: size}} == after


# --- what pages and PDFs show ------------------------------------------------------


@dataclass(frozen=True)
class PlanRow:
    n: int
    p_winner: float
    p_winner_se: float
    p_winner_alone: float | None
    kendall_tau: float
    p_adjacent_swap: float
    rank_interval_width: float | None
    recommended: bool
    chosen: bool


@dataclass(frozen=True)
class PlanView:
    """A plan as the review page, the public record and the design PDF show it."""

    task: str
    parameter: int  # the row it is shown beside (parameter 38)
    chosen: int | None
    summary: tuple[str, ...]
    rows: tuple[PlanRow, ...]
    recommended_n: int | None
    interval_method: str | None
    footnote: str  # seed, simulations, engine version: enough to compute it again
    plan: Mapping[str, Any] = field(repr=False, compare=False, default_factory=dict)

    @cached_property
    def figure(self) -> str:
        """Each output against n with the chosen n marked, as a data URI."""
        from .plan_figure import cached_plan_figure_data_uri  # matplotlib on demand

        return cached_plan_figure_data_uri(self.plan, self.chosen)


def _footnote(plan: Mapping[str, Any]) -> str:
    """Enough to compute the plan again (and, for a pilot, to check its table)."""
    text = (
        f"Seed {plan['seed']}, {plan['simulations']} simulated challenges per "
        f"n, ranking engine {plan['engine_version']}."
    )
    digest = plan["model"].get("results_sha256")
    return f"{text} Pilot table SHA-256 {digest}." if digest else text


def plan_view(task: str, plan: Mapping[str, Any], chosen: int | None) -> PlanView:
    """The view of ``plan`` (a task's attached plan) at the chosen n."""
    recommended = plan.get("recommended_n")
    rows = tuple(
        PlanRow(
            n=r["n"],
            p_winner=r["p_winner"],
            p_winner_se=r["p_winner_se"],
            p_winner_alone=r.get("p_winner_alone"),
            kendall_tau=r["kendall_tau"],
            p_adjacent_swap=r["p_adjacent_swap"],
            rank_interval_width=r.get("rank_interval_width"),
            recommended=r["n"] == recommended,
            chosen=r["n"] == chosen,
        )
        for r in plan["n"]
    )
    return PlanView(
        task=task,
        parameter=TEST_CASES,
        chosen=chosen,
        summary=tuple(plan_summary(plan, chosen)),
        rows=rows,
        recommended_n=recommended,
        interval_method=plan.get("interval_method"),
        footnote=_footnote(plan),
        plan=plan,
    )


def task_plan_view(task: Any, chosen_value: Any) -> PlanView | None:
    """The view of a task's attached plan (a Task row, a frozen task or a
    `TaskDesign`), or None without one."""
    plan = getattr(task, "test_set_plan", None) or getattr(task, "plan", None)
    if not plan:
        return None
    return plan_view(task.name, plan, chosen_test_cases(chosen_value))
