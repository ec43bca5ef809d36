"""Object-level checks of the review pages, the same rules as the API:
404 for a proposal (or call, or assignment) the user may not see, 403 for one
the user sees but may not act on."""

from __future__ import annotations

from django.core.exceptions import PermissionDenied
from django.http import Http404
from django.shortcuts import get_object_or_404

from registry.access import visible_challenge
from registry.models import Call, Challenge
from registry.permissions import can_view_challenge, is_organizer

from .. import selectors
from ..enums import ACTIVE_ASSIGNMENT_STATES
from ..models import Assignment

__all__ = [
    "chaired_assignment",
    "chaired_call",
    "chaired_challenge",
    "organized_challenge",
    "own_assignment",
    "reviewed_challenge",
    "visible_challenge",
]


def chaired_call(request, pk: int) -> Call:
    call = get_object_or_404(Call, pk=pk)
    if not (request.user.is_staff or call.chairs.filter(pk=request.user.pk).exists()):
        raise Http404("No such call.")
    return call


def chaired_challenge(request, pk: int) -> Challenge:
    """Chairs of the call (and staff, read-only: the services refuse them)."""
    challenge = visible_challenge(request, pk)
    if not selectors.sees_identities(request.user, challenge):
        raise PermissionDenied("Only the chairs of the call manage its reviews.")
    return challenge


def chaired_assignment(request, pk: int) -> Assignment:
    """An assignment of a proposal the user chairs (the services re-check)."""
    assignment = get_object_or_404(
        Assignment.objects.select_related("challenge__call", "reviewer"), pk=pk
    )
    chaired_challenge(request, assignment.challenge_id)
    return assignment


def reviewed_challenge(request, pk: int) -> tuple[Challenge, Assignment]:
    """An assigned (not declined) reviewer and their assignment."""
    challenge = visible_challenge(request, pk)
    assignment = selectors.assignment_of(request.user, challenge)
    if assignment is None or assignment.status not in ACTIVE_ASSIGNMENT_STATES:
        raise PermissionDenied("Only reviewers assigned to this proposal review it.")
    return challenge, assignment


def organized_challenge(request, pk: int) -> Challenge:
    challenge = visible_challenge(request, pk)
    if not is_organizer(request.user, challenge):
        raise PermissionDenied("Only the organizers can do this.")
    return challenge


def own_assignment(request, pk: int) -> Assignment:
    assignment = get_object_or_404(
        Assignment.objects.select_related("challenge__call"), pk=pk
    )
    if assignment.reviewer_id != request.user.pk:
        if can_view_challenge(request.user, assignment.challenge):
            raise PermissionDenied("Only the assigned reviewer can decline.")
        raise Http404("No such assignment.")
    return assignment
