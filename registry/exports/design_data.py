"""Proposal (ORM) → `DesignDocument` (plain data) for the design-document PDF."""

from __future__ import annotations

import datetime as dt

from django.utils import timezone

from ..completeness import Completeness, Entry
from ..models import Challenge
from ..parameters import GROUPS
from ..planning import PLANNING_QUESTIONS
from ..selectors import answers_of, completeness_of
from .design_document import (
    CompletenessRow,
    DesignAnswer,
    DesignDocument,
    DesignGroup,
    DesignSection,
    PlanningItem,
)


def _person(user) -> str:
    name = user.get_full_name() or user.get_username()
    profile = getattr(user, "profile", None)
    institution = getattr(profile, "institution", "")
    return f"{name} ({institution})" if institution else name


def _design_answer(entry: Entry, answers) -> DesignAnswer:
    parameter = entry.parameter
    stored = answers.get((entry.task_id, parameter.number))
    if entry.state == "answered":
        text = parameter.to_text(stored.value)
    elif entry.state == "not_applicable":
        text = stored.not_applicable.strip()
    else:
        text = ""
    return DesignAnswer(
        number=parameter.number,
        name=parameter.name,
        required=parameter.required_for_submission,
        state=entry.state,
        text=text,
    )


def _sections(completeness: Completeness, answers) -> tuple[DesignSection, ...]:
    scopes = dict.fromkeys((e.task_id, e.task_name) for e in completeness.entries)
    sections = []
    task_number = 0
    for task_id, task_name in scopes:
        if task_id is None:
            title = "Challenge level"
        else:
            task_number += 1
            title = f"Task {task_number}: {task_name}"
        groups = []
        for group in GROUPS:
            entries = [
                e
                for e in completeness.entries
                if e.task_id == task_id and e.parameter.group == group
            ]
            if entries:
                groups.append(
                    DesignGroup(
                        title=group,
                        answers=tuple(_design_answer(e, answers) for e in entries),
                    )
                )
        sections.append(DesignSection(title=title, groups=tuple(groups)))
    return tuple(sections)


def _completeness_rows(completeness: Completeness) -> tuple[CompletenessRow, ...]:
    rows = []
    last_scope = object()
    for group, task_id, task_name, tally in completeness.sections():
        if task_id != last_scope:
            last_scope = task_id
            scope = completeness.for_task(task_id)
            label = "Challenge level" if task_id is None else f"Task: {task_name}"
            rows.append(
                CompletenessRow(
                    label, scope.done, scope.total, scope.percent, is_total=True
                )
            )
        rows.append(CompletenessRow(group, tally.done, tally.total, tally.percent))
    return tuple(rows)


def build_design_data(
    challenge: Challenge, *, registry_url: str, today: dt.date | None = None
) -> DesignDocument:
    """Everything the PDF shows, read once from the database."""
    completeness = completeness_of(challenge)
    answers = answers_of(challenge)
    organizers = [challenge.owner, *challenge.co_organizers.order_by("username")]
    planning = challenge.planning or {}
    return DesignDocument(
        challenge_name=challenge.name,
        call_title=challenge.call.title,
        status=challenge.get_status_display(),
        revision=challenge.revision,
        organizers=tuple(_person(u) for u in organizers),
        generated_on=today or timezone.localdate(),
        registry_url=registry_url,
        overall_percent=completeness.overall.percent,
        submission_percent=completeness.submission.percent,
        threshold_percent=completeness.threshold_percent,
        can_submit=completeness.can_submit,
        completeness_rows=_completeness_rows(completeness),
        planning=tuple(
            PlanningItem(q.label, str(planning.get(q.key, "") or ""))
            for q in PLANNING_QUESTIONS
        ),
        sections=_sections(completeness, answers),
    )
