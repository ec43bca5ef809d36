"""Object lookups shared by the pages and the APIs of every app.

404 for a proposal the user may not see (no existence leak); 403 for one the user
sees but may not change; 409 (`conflict`) for an API request the state refuses.
"""

from __future__ import annotations

from django.core.exceptions import PermissionDenied
from django.db.models import Prefetch
from django.http import Http404
from django.shortcuts import get_object_or_404
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response

from .models import Challenge, Registration, Task
from .permissions import (
    can_edit_challenge,
    can_manage_organizers,
    can_view_challenge,
    challenges_visible_to,
)


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


def public_registration(identifier: str) -> Registration:
    """A registration by its identifier (registrations are public); 404 if none."""
    return get_object_or_404(
        Registration.objects.select_related("challenge", "call"),
        identifier=identifier,
    )


def visible_challenges(user):
    return (
        challenges_visible_to(user)
        .select_related("call", "owner")
        .prefetch_related(
            "co_organizers",
            "answers",
            Prefetch("tasks", queryset=Task.objects.prefetch_related("answers")),
        )
    )


def get_challenge(request: Request, pk: int) -> Challenge:
    """The challenge if the user may see it; 404 otherwise (no existence leak)."""
    return get_object_or_404(visible_challenges(request.user), pk=pk)


def get_task(request: Request, pk: int) -> Task:
    task = get_object_or_404(Task.objects.select_related("challenge"), pk=pk)
    get_challenge(request, task.challenge_id)
    return task


TRUE = ("1", "true", "yes", "on")


def flag(request: Request, name: str) -> bool:
    """A yes/no flag of an API request, from the query or the form
    (``?commit=true``, ``new_version=1``): one of TRUE in any case; anything
    else, or nothing, is false."""
    value = request.query_params.get(name, request.data.get(name, ""))
    return str(value).strip().lower() in TRUE


def conflict(reason: str | Exception, **extra) -> Response:
    """409 with the reason; a TransitionError (anything with `details()`) adds
    the current state and the actions allowed in it."""
    details = reason.details() if hasattr(reason, "details") else {}
    body = {"detail": str(reason), **details, **extra}
    return Response(body, status=status.HTTP_409_CONFLICT)
