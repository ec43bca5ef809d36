"""What reviewing grants in the registry: assigned reviewers read the proposal."""

from __future__ import annotations

from django.db.models import Q

from registry.models import Challenge
from registry.permissions import ReaderRule

from .enums import ACTIVE_ASSIGNMENT_STATES


def is_assigned_reviewer(user, challenge: Challenge) -> bool:
    """An assigned reviewer who has not declined."""
    return challenge.assignments.filter(
        reviewer=user, status__in=ACTIVE_ASSIGNMENT_STATES
    ).exists()


def _reviewing(user) -> Q:
    return Q(
        assignments__reviewer=user,
        assignments__status__in=ACTIVE_ASSIGNMENT_STATES,
    )


ASSIGNED_REVIEWERS_READ = ReaderRule(allows=is_assigned_reviewer, visible=_reviewing)
