"""Object-level permissions for proposals. Views and API ask only these."""

from __future__ import annotations

from django.db.models import Q, QuerySet

from reviews.enums import ACTIVE_ASSIGNMENT_STATES

from .enums import EDITABLE_STATES, ChallengeStatus
from .models import Challenge

PUBLIC_STATES = (ChallengeStatus.REGISTERED,)


def is_organizer(user, challenge: Challenge) -> bool:
    if not user.is_authenticated:
        return False
    return (
        challenge.owner_id == user.pk
        or challenge.co_organizers.filter(pk=user.pk).exists()
    )


def is_chair(user, challenge: Challenge) -> bool:
    return user.is_authenticated and challenge.call.chairs.filter(pk=user.pk).exists()


def is_assigned_reviewer(user, challenge: Challenge) -> bool:
    """An assigned reviewer who has not declined."""
    return (
        user.is_authenticated
        and challenge.assignments.filter(
            reviewer=user, status__in=ACTIVE_ASSIGNMENT_STATES
        ).exists()
    )


def can_view_challenge(user, challenge: Challenge) -> bool:
    """Drafts: organizers only. Submitted: also the call's chairs, the assigned
    (non-declined) reviewers and staff."""
    if challenge.status in PUBLIC_STATES or is_organizer(user, challenge):
        return True
    if challenge.status == ChallengeStatus.DRAFT:
        return False
    return (
        user.is_staff
        or is_chair(user, challenge)
        or is_assigned_reviewer(user, challenge)
    )


def can_edit_challenge(user, challenge: Challenge) -> bool:
    return challenge.status in EDITABLE_STATES and is_organizer(user, challenge)


def can_manage_organizers(user, challenge: Challenge) -> bool:
    return user.is_authenticated and challenge.owner_id == user.pk


def challenges_visible_to(user) -> QuerySet[Challenge]:
    """Every proposal `user` may read (mirrors `can_view_challenge`)."""
    public = Q(status__in=PUBLIC_STATES)
    if not user.is_authenticated:
        return Challenge.objects.filter(public)
    mine = Q(owner=user) | Q(co_organizers=user)
    beyond_draft = ~Q(status=ChallengeStatus.DRAFT)
    reviewing = Q(
        assignments__reviewer=user,
        assignments__status__in=ACTIVE_ASSIGNMENT_STATES,
    )
    others = Q(call__chairs=user) | reviewing
    if user.is_staff:
        return Challenge.objects.filter(public | mine | beyond_draft).distinct()
    return Challenge.objects.filter(public | mine | (beyond_draft & others)).distinct()
