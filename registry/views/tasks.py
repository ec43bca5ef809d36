"""Tasks of a proposal (add, rename, reorder, remove) and its co-organizers."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from .. import services
from ..access import editable_challenge, owned_challenge, task_of
from ..forms import CoOrganizerForm, TaskNameForm

TASKS_ANCHOR = "#tasks"


def _back(challenge, anchor: str = TASKS_ANCHOR):
    response = redirect("registry:overview", challenge.pk)
    response["Location"] += anchor
    return response


@contextmanager
def _refusal_shown(request) -> Iterator[None]:
    """A service's refusal (ValidationError) becomes error messages on the page."""
    try:
        yield
    except ValidationError as exc:
        for message in exc.messages:
            messages.error(request, message)


def _posted_task_name(request) -> str | None:
    form = TaskNameForm(request.POST)
    if form.is_valid():
        return form.cleaned_data["name"]
    messages.error(request, "Give the task a name (at most 200 characters).")
    return None


@login_required
@require_POST
def name_task(request, pk: int, task_pk: int | None = None):
    """Add a task under the posted name, or rename task `task_pk` to it."""
    challenge = editable_challenge(request, pk)
    task = None if task_pk is None else task_of(challenge, task_pk)
    name = _posted_task_name(request)
    if name is not None:
        with _refusal_shown(request):
            if task is None:
                task = services.add_task(
                    challenge=challenge, name=name, actor=request.user
                )
                messages.success(request, f"Added task “{task.name}”.")
            else:
                services.rename_task(task=task, name=name, actor=request.user)
                messages.success(request, f"Renamed the task to “{task.name}”.")
    return _back(challenge)


@login_required
@require_POST
def move_task(request, pk: int, task_pk: int):
    challenge = editable_challenge(request, pk)
    task = task_of(challenge, task_pk)
    offset = {"up": -1, "down": 1}.get(request.POST.get("direction", ""))
    if offset is None:
        messages.error(request, "direction: expected “up” or “down”.")
    else:
        services.move_task(task=task, offset=offset, actor=request.user)
    return _back(challenge)


@login_required
def remove_task(request, pk: int, task_pk: int):
    challenge = editable_challenge(request, pk)
    task = task_of(challenge, task_pk)
    if request.method == "POST":
        services.remove_task(task=task, actor=request.user)
        messages.success(request, f"Removed task “{task.name}” and its answers.")
        return _back(challenge)
    answered = task.answers.count()
    return render(
        request,
        "registry/confirm_remove_task.html",
        {"challenge": challenge, "task": task, "answered": answered},
    )


@login_required
@require_POST
def add_co_organizer(request, pk: int):
    challenge = owned_challenge(request, pk)
    form = CoOrganizerForm(request.POST)
    if not form.is_valid():
        for message in form.errors.get("username", []):
            messages.error(request, f"username: {message}")
        return _back(challenge, "#organizers")
    user = form.cleaned_data["username"]
    with _refusal_shown(request):
        services.add_co_organizer(challenge=challenge, user=user, actor=request.user)
        messages.success(request, f"{user.username} now co-organizes the proposal.")
    return _back(challenge, "#organizers")


@login_required
@require_POST
def remove_co_organizer(request, pk: int, user_pk: int):
    challenge = owned_challenge(request, pk)
    user = get_object_or_404(challenge.co_organizers, pk=user_pk)
    services.remove_co_organizer(challenge=challenge, user=user, actor=request.user)
    messages.success(request, f"{user.username} no longer co-organizes it.")
    return _back(challenge, "#organizers")
