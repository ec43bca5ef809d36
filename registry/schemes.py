"""Executable ranking schemes on tasks, validated by the engine itself.

The registry stores each task's scheme in the contract format
(`shared/reference/ranking-scheme.md`), normalised by the engine, and derives
the prose of parameters 46, 48, 49 and 50 from it, so prose and executable
scheme cannot disagree.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import F

from ranking import SchemeError, describe_scheme, parse_scheme, scheme_to_dict

from .models import Answer, Task
from .services import require_edit, store_answer

METRICS_PARAMETER = 44
# Parameter number → key of `describe_scheme`.
PROSE_FROM_SCHEME = {46: "ranking", 48: "missing", 49: "uncertainty", 50: "tests"}


def registered_metrics(task: Task) -> dict[str, dict[str, Any]]:
    """The task's metrics from parameter 44, by name ({} when unanswered)."""
    answer = Answer.objects.filter(task=task, number=METRICS_PARAMETER).first()
    if answer is None or not answer.value:
        return {}
    return {m["name"]: m for m in answer.value["metrics"]}


def clean_task_scheme(task: Task, data: Any) -> dict[str, Any]:
    """Validate a scheme for `task`; returns it normalised ("as executed")."""
    try:
        scheme = parse_scheme(data)
    except SchemeError as exc:
        raise ValidationError({"scheme": f"scheme.{exc}"}) from None
    metrics = registered_metrics(task)
    for name in scheme.metrics:
        if not metrics:
            break
        if name not in metrics:
            raise ValidationError(
                {
                    "scheme": f"scheme.metric: {name!r} is not among the task's "
                    f"metrics (parameter 44: {sorted(metrics)})."
                }
            )
        if metrics[name]["higher_is_better"] != scheme.higher_is_better[name]:
            raise ValidationError(
                {
                    "scheme": f"scheme.higher_is_better: {name} is registered as "
                    f"{'higher' if metrics[name]['higher_is_better'] else 'lower'} is "
                    "better in parameter 44."
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


def write_scheme_prose(task: Task, *, actor) -> None:
    sentences = describe_scheme(task.scheme)
    for number, key in PROSE_FROM_SCHEME.items():
        store_answer(
            challenge=task.challenge,
            task=task,
            number=number,
            value=sentences[key],
            actor=actor,
        )


@transaction.atomic
def set_scheme_for_all_tasks(*, challenge, scheme: Any, actor) -> list[Task]:
    """The same scheme for every task of `challenge`: all of them or none.

    Each task validates it against its own parameter 44; a refusal names the
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
