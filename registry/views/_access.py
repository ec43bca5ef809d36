"""Object-level checks shared by the organizer pages.

404 for a proposal the user may not see (no existence leak); 403 for one the user
sees but may not change.
"""

from __future__ import annotations

from django.core.exceptions import PermissionDenied
from django.http import Http404
from django.shortcuts import get_object_or_404

from ..models import Challenge, Task
from ..permissions import can_edit_challenge, can_manage_organizers, can_view_challenge


def visible_challenge(request, pk: int) -> Challenge:
    challenge = get_object_or_404(
        Challenge.objects.select_related("call", "owner"), pk=pk
    )
    if not can_view_challenge(request.user, challenge):
        raise Http404("No such proposal.")
    return challenge


def editable_challenge(request, pk: int) -> Challenge:
    challenge = visible_challenge(request, pk)
    if not can_edit_challenge(request.user, challenge):
        raise PermissionDenied(
            f"This proposal is {challenge.get_status_display().lower()}; "
            "it cannot be edited by you."
        )
    return challenge


def owned_challenge(request, pk: int) -> Challenge:
    challenge = visible_challenge(request, pk)
    if not can_manage_organizers(request.user, challenge):
        raise PermissionDenied("Only the proposal's owner can do this.")
    return challenge


def task_of(challenge: Challenge, task_pk: int) -> Task:
    return get_object_or_404(Task, pk=task_pk, challenge=challenge)
