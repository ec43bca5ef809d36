"""Object lookups of the review pages and the review API (both call these, so
they cannot disagree): 404 for a proposal (or call, or assignment) the user
may not see, 403 for one the user sees but may not act on. Views call them
before reading any input, so a refused user gets the same refusal whatever
they sent. The services check again; these decide the answer first."""

from __future__ import annotations

from collections.abc import Callable

from django.core.exceptions import PermissionDenied
from django.http import Http404
from django.shortcuts import get_object_or_404

from registry.access import visible_challenge
from registry.models import Call, Challenge
from registry.permissions import can_view_challenge, is_organizer

from . import selectors
from .conflicts import chair_refusal
from .enums import ACTIVE_ASSIGNMENT_STATES
from .models import Assignment

__all__ = [
    "chair_action_challenge",
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


def _visible_challenge_if(
    request, pk: int, allowed: Callable[[object, Challenge], bool], refusal: str
) -> Challenge:
    """404 unless the user sees the proposal; 403 with `refusal` unless
    `allowed(user, challenge)`."""
    challenge = visible_challenge(request, pk)
    if not allowed(request.user, challenge):
        raise PermissionDenied(refusal)
    return challenge


def chaired_challenge(request, pk: int) -> Challenge:
    """What chairs read (reviewer identities, suggestions); staff read it too.
    A chair in conflict with the proposal reads none of it."""
    challenge = visible_challenge(request, pk)
    if not request.user.is_staff:
        _refuse_conflicted_chair(request.user, challenge)
    return challenge


def chair_action_challenge(request, pk: int) -> Challenge:
    """What only the call's chairs do (assign, decide): staff read, never act;
    a chair in conflict with the proposal does neither."""
    challenge = visible_challenge(request, pk)
    _refuse_conflicted_chair(request.user, challenge)
    return challenge


def _refuse_conflicted_chair(user, challenge: Challenge) -> None:
    if refusal := chair_refusal(user, challenge):
        raise PermissionDenied(refusal)


def chaired_assignment(request, pk: int) -> Assignment:
    """An assignment a chair changes (unassign, change the role)."""
    return _assignment_if(
        request,
        pk,
        lambda user, assignment: chair_refusal(user, assignment.challenge) is None,
        "Only a chair of the call without a conflict of interest can change "
        "its assignments.",
    )


def reviewed_challenge(request, pk: int) -> tuple[Challenge, Assignment]:
    """An assigned (not declined) reviewer and their assignment."""
    challenge = visible_challenge(request, pk)
    assignment = selectors.assignment_of(request.user, challenge)
    if assignment is None or assignment.status not in ACTIVE_ASSIGNMENT_STATES:
        raise PermissionDenied("Only reviewers assigned to this proposal review it.")
    return challenge, assignment


def organized_challenge(request, pk: int) -> Challenge:
    return _visible_challenge_if(
        request, pk, is_organizer, "Only the organizers can do this."
    )


def own_assignment(request, pk: int) -> Assignment:
    """The user's own assignment (to decline it)."""
    return _assignment_if(
        request,
        pk,
        lambda user, assignment: assignment.reviewer_id == user.pk,
        "Only the assigned reviewer can decline.",
    )


def _assignment_if(
    request, pk: int, allowed: Callable[[object, Assignment], bool], refusal: str
) -> Assignment:
    """The assignment if `allowed(user, assignment)`; 403 with `refusal` if
    the user sees its proposal; else one 404 whether the assignment is missing
    or hidden (the answer must not tell which)."""
    assignment = (
        Assignment.objects.select_related("challenge__call", "reviewer")
        .filter(pk=pk)
        .first()
    )
    if assignment is not None:
        if allowed(request.user, assignment):
            return assignment
        if can_view_challenge(request.user, assignment.challenge):
            raise PermissionDenied(refusal)
    raise Http404("No such assignment.")
