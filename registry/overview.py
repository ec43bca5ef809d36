"""The read-only rendering of a design: its parts (the challenge level, then each
task), their sections and answered rows (overview and review pages)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .completeness import Completeness, StoredAnswer, compute_completeness
from .design import Design
from .links import parameter_url, section_url
from .models import Challenge
from .parameters import Parameter, Role
from .sections import sections_at
from .selectors import answers_of
from .test_set_plans import PlanView, task_plan_view

Answers = dict[tuple[int | None, int], StoredAnswer]


@dataclass(frozen=True)
class Row:
    parameter: Parameter
    text: str
    not_applicable: str
    url: str


@dataclass(frozen=True)
class Part:
    """The challenge level, or one task, with its sections of answered rows."""

    task: object | None
    sections: list[tuple[object, str, list[Row], object]]
    plan: PlanView | None = None  # the attached test-set plan, beside parameter 38


@dataclass(frozen=True)
class FrozenTask:
    """A task of a frozen design, with what the templates read of a Task row."""

    pk: int
    name: str
    scheme: dict[str, Any] | None
    test_set_plan: dict[str, Any] | None = None


def proposal_parts(challenge: Challenge, completeness: Completeness) -> list[Part]:
    """The read-only rendering of the live design (overview and review pages)."""
    return _parts(challenge, answers_of(challenge), challenge.tasks.all(), completeness)


def frozen_parts(challenge: Challenge, design: Design) -> list[Part]:
    """The read-only rendering of a frozen design of `challenge` (a reviewed
    revision): rows, schemes and section meters from the design, not the live
    rows. Tasks keep their live ids (anchors, links) where they still exist."""
    live = {t.name: t.pk for t in challenge.tasks.all()}
    tasks = [
        FrozenTask(live.get(t.name, -i), t.name, t.scheme, t.plan)
        for i, t in enumerate(design.tasks, start=1)
    ]
    answers: Answers = {(None, Role.CHALLENGE_NAME.number): StoredAnswer(design.name)}
    task_answers = (t.answers for t in design.tasks)
    scopes = [(None, design.answers), *zip(tasks, task_answers, strict=True)]
    for task, entries in scopes:
        for entry in entries:
            key = (task.pk if task else None, entry.number)
            answers[key] = StoredAnswer(entry.value, entry.not_applicable)
    completeness = compute_completeness(
        answers=answers,
        tasks=[(t.pk, t.name) for t in tasks],
        threshold_percent=challenge.call.completeness_threshold,
    )
    return _parts(challenge, answers, tasks, completeness)


def _parts(challenge, answers: Answers, tasks, completeness) -> list[Part]:
    levels = [("challenge", None), *(("task", t) for t in tasks)]
    parts = []
    for level, task in levels:
        task_id = task.pk if task else None
        sections = []
        for section in sections_at(level):
            rows = []
            for parameter in section.parameters:
                stored = answers.get((task_id, parameter.number))
                rows.append(
                    Row(
                        parameter,
                        parameter.to_text(stored.value) if stored else "",
                        stored.not_applicable if stored else "",
                        parameter_url(challenge, parameter, task_id),
                    )
                )
            url = section_url(challenge, section, task_id)
            tally = completeness.section(section.group, task_id)
            sections.append((section, url, rows, tally))
        chosen = answers.get((task_id, Role.TEST_CASES.number))
        plan = task_plan_view(task, chosen.value if chosen else None) if task else None
        parts.append(Part(task, sections, plan))
    return parts
