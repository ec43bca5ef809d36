"""A plain-JSON snapshot of a proposal's design, frozen at each submission.

Minimal on purpose: the answers by parameter number, challenge-level and per task
(tasks in their order, keyed by name). Review rounds diff two snapshots.
"""

from __future__ import annotations

from typing import Any

from .models import Challenge


def _entry(answer) -> dict[str, Any]:
    return {"value": answer.value, "not_applicable": answer.not_applicable or ""}


def design_snapshot(challenge: Challenge) -> dict[str, Any]:
    """`{"revision", "name", "answers": {"<n>": entry}, "tasks": [{"name",
    "answers": {"<n>": entry}}]}` with entry `{"value", "not_applicable"}`."""
    answers = list(challenge.answers.all())
    tasks = list(challenge.tasks.all())
    return {
        "revision": challenge.revision,
        "name": challenge.name,
        "answers": {
            str(a.number): _entry(a)
            for a in sorted(answers, key=lambda a: a.number)
            if a.task_id is None
        },
        "tasks": [
            {
                "name": task.name,
                "answers": {
                    str(a.number): _entry(a)
                    for a in sorted(answers, key=lambda a: a.number)
                    if a.task_id == task.pk
                },
            }
            for task in tasks
        ],
    }
