"""Reads for the registry."""

from __future__ import annotations

from django.db.models import Q, QuerySet

from .completeness import Completeness, StoredAnswer, compute_completeness
from .models import Challenge


def answers_of(challenge: Challenge) -> dict[tuple[int | None, int], StoredAnswer]:
    return {
        (a.task_id, a.number): StoredAnswer(a.value, a.not_applicable)
        for a in challenge.answers.all()
    }


def answer_versions(challenge: Challenge, task_id: int | None) -> dict[int, int]:
    """Parameter → version of the stored answers of the challenge or one task."""
    return dict(
        challenge.answers.filter(task_id=task_id).values_list("number", "version")
    )


def completeness_of(challenge: Challenge) -> Completeness:
    return compute_completeness(
        answers=answers_of(challenge),
        tasks=[(t.pk, t.name) for t in challenge.tasks.all()],
        threshold_percent=challenge.call.completeness_threshold,
    )


def proposals_of(user) -> QuerySet[Challenge]:
    """The proposals `user` organizes, ready for `completeness_of` per row
    without further queries."""
    return (
        Challenge.objects.filter(Q(owner=user) | Q(co_organizers=user))
        .distinct()
        .select_related("call")
        .prefetch_related("answers", "tasks")
    )
