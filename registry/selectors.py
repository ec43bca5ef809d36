"""Reads for the registry."""

from __future__ import annotations

from collections.abc import Iterable

from django.db.models import F, Q, QuerySet

from .completeness import Completeness, StoredAnswer, compute_completeness
from .enums import ChallengeStatus
from .models import (
    Amendment,
    AmendmentStatus,
    Answer,
    Challenge,
    Registration,
    Task,
)


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


def completeness_of_many(challenges: Iterable[Challenge]) -> dict[int, Completeness]:
    """`completeness_of` for a page of challenges (with their `call` loaded) in
    two queries: the answers are read as plain values, not as model instances
    (a page of 25 designs holds thousands of answers)."""
    challenges = list(challenges)
    ids = [c.pk for c in challenges]
    answers: dict[int, dict] = {pk: {} for pk in ids}
    rows = Answer.objects.filter(challenge_id__in=ids).values_list(
        "challenge_id", "task_id", "number", "value", "not_applicable"
    )
    for challenge_id, task_id, number, value, reason in rows.order_by():
        answers[challenge_id][(task_id, number)] = StoredAnswer(value, reason)
    tasks: dict[int, list[tuple[int, str]]] = {pk: [] for pk in ids}
    for challenge_id, task_id, name in Task.objects.filter(
        challenge_id__in=ids
    ).values_list("challenge_id", "pk", "name"):
        tasks[challenge_id].append((task_id, name))
    return {
        c.pk: compute_completeness(
            answers=answers[c.pk],
            tasks=tasks[c.pk],
            threshold_percent=c.call.completeness_threshold,
        )
        for c in challenges
    }


def proposals_of(user) -> QuerySet[Challenge]:
    """The proposals `user` organizes or co-organizes (no join and no DISTINCT:
    a page and its count stay index reads at any number of proposals)."""
    co_organized = Challenge.co_organizers.through.objects.filter(user=user)
    return Challenge.objects.filter(
        Q(owner=user) | Q(pk__in=co_organized.values("challenge_id"))
    ).select_related("call")


# How many proposals the "waiting for you" list of My proposals shows.
WAITING_LIMIT = 20


def proposals_waiting_for(user) -> list[Challenge]:
    """The proposals that need their organizer `user` to act: revisions the
    chairs asked for, then drafts, soonest submission deadline first."""
    waiting = proposals_of(user).filter(
        status__in=[ChallengeStatus.REVISION_REQUESTED, ChallengeStatus.DRAFT]
    )
    ordered = waiting.order_by(
        F("status").desc(),  # "revision_requested" before "draft"
        F("call__submission_deadline").asc(nulls_last=True),
        "-updated",
    )
    return list(ordered[:WAITING_LIMIT])


def amendment_numbers(registration: Registration) -> dict[int, int]:
    """Amendment pk → its number within `registration` (1, 2, … in the order
    proposed, whatever its status): the same for every reader, page and API;
    the pk counts every registration's amendments."""
    pks = registration.amendments.order_by("created", "pk").values_list("pk", flat=True)
    return {pk: number for number, pk in enumerate(pks, start=1)}


def pending_amendments(calls) -> QuerySet[Amendment]:
    """Amendments of registrations in `calls` (a queryset or list of calls)
    that wait for a chair's decision, oldest first: the chair's to-do list."""
    return (
        Amendment.objects.filter(
            status=AmendmentStatus.PENDING, registration__challenge__call__in=calls
        )
        .select_related("registration__challenge__call", "proposed_by")
        .order_by("created", "pk")
    )
