"""Object-level permissions for proposals. Views and API ask only these."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from django.db.models import Q, QuerySet

from .enums import EDITABLE_STATES, ChallengeStatus
from .models import Call, Challenge

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


@dataclass(frozen=True)
class ReaderRule:
    """Who else may read a submitted proposal, declared by the app that knows.

    The registry does not know who reviews it: `reviews` adds its rule (assigned
    reviewers who have not declined) when it is ready. `allows` decides for one
    proposal; `visible` is the same rule as a query for a signed-in user.
    """

    allows: Callable[[object, Challenge], bool]
    visible: Callable[[object], Q]


_READER_RULES: list[ReaderRule] = []


def add_reader_rule(rule: ReaderRule) -> None:
    if rule not in _READER_RULES:
        _READER_RULES.append(rule)


def _is_granted_reader(user, challenge: Challenge) -> bool:
    return user.is_authenticated and any(
        rule.allows(user, challenge) for rule in _READER_RULES
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
        or _is_granted_reader(user, challenge)
    )


def can_edit_challenge(user, challenge: Challenge) -> bool:
    return challenge.status in EDITABLE_STATES and is_organizer(user, challenge)


def can_manage_organizers(user, challenge: Challenge) -> bool:
    return user.is_authenticated and challenge.owner_id == user.pk


def challenges_visible_to(user) -> QuerySet[Challenge]:
    """Every proposal `user` may read (mirrors `can_view_challenge`).

    Conditions on other tables are `pk IN (subquery)`, not joins: no row is
    repeated, so no DISTINCT, and PostgreSQL can walk an index in the list's
    order and stop after a page (constant cost at any number of proposals).
    """
    public = Q(status__in=PUBLIC_STATES)
    if not user.is_authenticated:
        return Challenge.objects.filter(public)
    mine = Q(owner=user) | _ids_where(Q(co_organizers=user))
    beyond_draft = ~Q(status=ChallengeStatus.DRAFT)
    others = Q(call__in=Call.objects.filter(chairs=user).values("pk"))
    for rule in _READER_RULES:
        others |= _ids_where(rule.visible(user))
    if user.is_staff:
        return Challenge.objects.filter(public | mine | beyond_draft)
    return Challenge.objects.filter(public | mine | (beyond_draft & others))


def _ids_where(condition: Q) -> Q:
    """``condition`` (which may join other tables) as ``pk IN (subquery)``."""
    return Q(pk__in=Challenge.objects.filter(condition).values("pk"))
