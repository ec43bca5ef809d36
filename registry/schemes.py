"""Executable ranking schemes on tasks, validated by the engine itself.

The registry stores each task's scheme in the contract format
(`shared/reference/ranking-scheme.md`), normalised by the engine, and derives
the prose of the rank computation method, missing data handling, uncertainty
handling and statistical tests from it, so prose and executable scheme cannot
disagree.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import F

from ranking import SchemeError, describe_scheme, parse_scheme, scheme_to_dict
from ranking.scheme import Scheme

from .models import Answer, Task
from .parameters import BY_NUMBER, SCHEME_PROSE, Role
from .services import AnswerInput, rename_task, require_edit, store_answers
from .versions import OtherChange, check

# Parameter number → key of `describe_scheme`: the prose a scheme writes.
PROSE_FROM_SCHEME = {role.number: key for role, key in SCHEME_PROSE.items()}
METRICS = Role.METRICS.parameter


def registered_metrics(task: Task) -> dict[str, dict[str, Any]]:
    """The task's registered metrics, by name ({} when unanswered)."""
    answer = Answer.objects.filter(task=task, number=METRICS.number).first()
    if answer is None or not answer.value:
        return {}
    return {m["name"]: m for m in answer.value["metrics"]}


def _grouped(number: int) -> str:
    return f"{number:,}".replace(",", " ")


def check_scheme_limits(scheme: Scheme) -> None:
    """Refuse more bootstrap replicates than `MAX_BOOTSTRAP_REPLICATES`.

    Shared by every path that stores or runs a scheme (editor, API, import,
    amendments, the start of an analysis), so none of them can queue a run that
    exhausts the worker's memory.
    """
    replicates, limit = scheme.uncertainty.bootstrap, settings.MAX_BOOTSTRAP_REPLICATES
    if replicates > limit:
        raise ValidationError(
            {
                "scheme": f"scheme.uncertainty.bootstrap: {_grouped(replicates)} "
                f"bootstrap replicates; the limit is {_grouped(limit)}."
            }
        )


def parse_bounded_scheme(data: Any) -> Scheme:
    """The engine's parse, with its errors and the limits as ValidationError."""
    try:
        scheme = parse_scheme(data)
    except SchemeError as exc:
        raise ValidationError({"scheme": f"scheme.{exc}"}) from None
    check_scheme_limits(scheme)
    return scheme


def check_run_limits(schemes: dict[str, dict[str, Any]], frame) -> None:
    """Refuse a run whose bootstrap work exceeds `MAX_RUN_BOOTSTRAP_WORK`.

    Work = replicates x cases x algorithms x metrics x targets, summed over
    tasks (an upper bound of what the engine resamples).
    """
    work = 0
    for task, data in schemes.items():
        scheme = parse_bounded_scheme(data)
        rows = frame[frame["task"] == task]
        targets = max(1, rows["target"].nunique()) if "target" in rows else 1
        work += (
            scheme.uncertainty.bootstrap
            * rows["case"].nunique()
            * rows["algorithm"].nunique()
            * len(scheme.metrics)
            * targets
        )
    limit = settings.MAX_RUN_BOOTSTRAP_WORK
    if work > limit:
        raise ValidationError(
            {
                "scheme": f"The run would resample {_grouped(work)} ranks (bootstrap "
                "replicates x cases x algorithms x metrics); the limit is "
                f"{_grouped(limit)}. Use fewer bootstrap replicates."
            }
        )


def clean_task_scheme(task: Task, data: Any) -> dict[str, Any]:
    """Validate a scheme for `task`; returns it normalised ("as executed")."""
    scheme = parse_bounded_scheme(data)
    metrics = registered_metrics(task)
    for name in scheme.metrics:
        if not metrics:
            break
        if name not in metrics:
            raise ValidationError(
                {
                    "scheme": f"scheme.metric: {name!r} is not among the task's "
                    f"metrics (parameter {METRICS.number}: {sorted(metrics)})."
                }
            )
        if metrics[name]["higher_is_better"] != scheme.higher_is_better[name]:
            raise ValidationError(
                {
                    "scheme": f"scheme.higher_is_better: {name} is registered as "
                    f"{'higher' if metrics[name]['higher_is_better'] else 'lower'} is "
                    f"better in parameter {METRICS.number}."
                }
            )
    return scheme_to_dict(scheme)


@transaction.atomic
def set_task_scheme(*, task: Task, scheme: Any, actor) -> Task:
    """Store the task's scheme and rewrite the prose parameters it determines."""
    require_edit(actor, task.challenge)
    task.scheme = clean_task_scheme(task, scheme)
    task.version = F("version") + 1  # lost-update protection (registry/versions.py)
    task.save(update_fields=["scheme", "version"])
    task.refresh_from_db(fields=["version"])
    write_scheme_prose(task, actor=actor)
    return task


@transaction.atomic
def update_task(
    *, task: Task, actor, changes: Mapping[str, Any], seen_version: int | None = None
) -> None:
    """Rename the task (``changes["name"]``) and set its scheme
    (``changes["scheme"]``) as one change: all of it or none.
    ``seen_version``, the task version the caller saw, refuses a change made
    from a stale copy (StaleEditError)."""
    current = Task.objects.select_for_update().get(pk=task.pk)
    check(
        seen_version,
        current.version,
        lambda: OtherChange(
            f"Task “{current.name}”",
            "another organizer",
            None,
            f"name “{current.name}”, scheme "
            + ("set" if current.scheme else "not set"),
        ),
    )
    if "name" in changes:
        rename_task(task=task, name=changes["name"], actor=actor)
    if "scheme" in changes:
        set_task_scheme(task=task, scheme=changes["scheme"], actor=actor)


@dataclass(frozen=True)
class ReplacedAnswer:
    """A typed answer that saving a scheme would overwrite with generated prose."""

    task: str
    number: int
    name: str
    typed: str
    generated: str


def typed_answers_replaced(task: Task, scheme: Any) -> list[ReplacedAnswer]:
    """The prose answers (49, 50, …) of `task` that saving `scheme` would
    overwrite although the organizer wrote them: filled, different from the new
    text, and not what the task's current scheme generated."""
    new = describe_scheme(scheme)
    old = describe_scheme(task.scheme) if task.scheme else {}
    stored = {
        a.number: a.value
        for a in Answer.objects.filter(task=task, number__in=PROSE_FROM_SCHEME)
    }
    replaced = []
    for number, key in sorted(PROSE_FROM_SCHEME.items()):
        typed = stored.get(number)
        if (
            isinstance(typed, str)
            and typed.strip()
            and typed not in (new[key], old.get(key))
        ):
            name = BY_NUMBER[number].name
            replaced.append(ReplacedAnswer(task.name, number, name, typed, new[key]))
    return replaced


def write_scheme_prose(task: Task, *, actor) -> None:
    sentences = describe_scheme(task.scheme)
    store_answers(
        challenge=task.challenge,
        task=task,
        actor=actor,
        answers={
            n: AnswerInput(sentences[key]) for n, key in PROSE_FROM_SCHEME.items()
        },
    )


@transaction.atomic
def set_scheme_for_all_tasks(*, challenge, scheme: Any, actor) -> list[Task]:
    """The same scheme for every task of `challenge`: all of them or none.

    Each task validates it against its own registered metrics; a refusal names the
    task (``tasks.<name>.scheme``) and rolls back every task.
    """
    tasks = list(challenge.tasks.all())
    for task in tasks:
        try:
            set_task_scheme(task=task, scheme=scheme, actor=actor)
        except ValidationError as exc:
            messages = [m for ms in exc.message_dict.values() for m in ms]
            raise ValidationError(
                {
                    f"tasks.{task.name}.scheme": [
                        f"Task {task.name}: {m}" for m in messages
                    ]
                }
            ) from None
    return tasks
