"""Amendments: justified changes to a registered design, approved by a chair.

An approved amendment is applied to the design and frozen as the next
registration version. One approved after the first results were uploaded is
marked post hoc on that version, permanently (`004` §4.1: a scheme changed
after seeing results can decide the winner).
"""

from __future__ import annotations

from functools import partial
from typing import Any

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.utils import timezone

from audit.services import record

from .amendment_checks import unexplained_changes
from .chair_conflicts import call_action_refusal
from .design import split_compared
from .lock import RegisteredDataError, registered_changes_allowed
from .mail import send_amendment_proposed
from .models import Amendment, AmendmentStatus, Registration, RegistrationVersion
from .parameters import BY_NUMBER
from .permissions import is_organizer
from .registration import append_version
from .schemes import clean_task_scheme, write_scheme_prose
from .services import (
    AnswerInput,
    TransitionError,
    clean_answer,
    refuse_scheme_prose,
    store_answers,
)

CHANGE_KEYS = {"challenge", "tasks"}


def _number(key: Any, where: str) -> int:
    try:
        return int(key)
    except (TypeError, ValueError):
        raise ValidationError(
            {where: f"{key!r} is not a parameter number (1–53)."}
        ) from None


def _clean_change(number: int, task, value: Any, *, new_scheme: bool) -> Any:
    """One cleaned change: a value, or ``{"not_applicable": reason}`` (the form
    `registry.design` compares). The prose a ranking scheme writes is refused while
    the task has (or is given) a scheme: the scheme is what changes."""
    refuse_scheme_prose(task, number)
    parameter = BY_NUMBER.get(number)
    if new_scheme and parameter is not None and parameter.derived_from_scheme:
        raise ValidationError(
            {
                f"tasks.{task.name}.{number}": f"Parameter {number} "
                f"({parameter.name}) is written from the new ranking scheme."
            }
        )
    value, reason = split_compared(value)
    if reason:
        return {
            "not_applicable": clean_answer(
                number=number, task=task, value=None, not_applicable=reason
            )[1]
        }
    return clean_answer(number=number, task=task, value=value, not_applicable=None)[0]


def clean_changes(registration: Registration, changes: Any) -> dict[str, Any]:
    """Validate the whole change set before anything is stored.

    ``{"challenge": {"<n>": change}, "tasks": {"<task>": {"<n>": change,
    "scheme": {...}}}}`` where a change is the new value or ``{"not_applicable":
    "why"}``."""
    if not isinstance(changes, dict) or not changes:
        raise ValidationError({"changes": "Give at least one change."})
    unknown = set(changes) - CHANGE_KEYS
    if unknown:
        raise ValidationError({"changes": f"Unknown keys {sorted(unknown)}."})
    challenge = registration.challenge
    tasks = {task.name: task for task in challenge.tasks.all()}
    cleaned: dict[str, Any] = {"challenge": {}, "tasks": {}}
    for key, value in (changes.get("challenge") or {}).items():
        number = _number(key, f"challenge.{key}")
        cleaned["challenge"][str(number)] = _clean_change(
            number, None, value, new_scheme=False
        )
    for task_name, task_changes in (changes.get("tasks") or {}).items():
        task = tasks.get(task_name)
        if task is None:
            raise ValidationError(
                {
                    f"tasks.{task_name}": f"No task {task_name!r}; tasks are "
                    f"{sorted(tasks)}."
                }
            )
        if not isinstance(task_changes, dict) or not task_changes:
            raise ValidationError({f"tasks.{task_name}": "Give the changes."})
        out: dict[str, Any] = {}
        for key, value in task_changes.items():
            if key == "scheme":
                out["scheme"] = clean_task_scheme(task, value)
                continue
            number = _number(key, f"tasks.{task_name}.{key}")
            out[str(number)] = _clean_change(
                number, task, value, new_scheme="scheme" in task_changes
            )
        cleaned["tasks"][task_name] = out
    if not cleaned["challenge"]:
        del cleaned["challenge"]
    if not cleaned["tasks"]:
        del cleaned["tasks"]
    return cleaned


@transaction.atomic
def propose_amendment(
    *, registration: Registration, actor, justification: str, changes: Any
) -> Amendment:
    if not is_organizer(actor, registration.challenge):
        raise PermissionDenied("Only the organizers can propose amendments.")
    justification = (justification or "").strip()
    if not justification:
        raise ValidationError({"justification": "Explain why the design changes."})
    cleaned = clean_changes(registration, changes)
    latest = registration.versions.order_by("-number").first()
    amendment = Amendment.objects.create(
        registration=registration,
        base_version=latest.number,
        proposed_by=actor,
        justification=justification,
        changes=cleaned,
    )
    record(actor=actor, action="amendment.propose", target=amendment)
    transaction.on_commit(partial(send_amendment_proposed, amendment.pk))
    return amendment


def amendment_decision_refusal(user, challenge) -> str | None:
    """Why `user` may not approve or reject amendments of `challenge`: a chair
    of the call or staff decides, unless in conflict with the proposal."""
    return call_action_refusal(
        user, challenge, action="decide on this proposal's amendments"
    )


def _lock_pending(amendment: Amendment, actor) -> Amendment:
    refusal = amendment_decision_refusal(actor, amendment.registration.challenge)
    if refusal:
        raise PermissionDenied(refusal)
    locked = Amendment.objects.select_for_update().get(pk=amendment.pk)
    if locked.status != AmendmentStatus.PENDING:
        raise TransitionError(f"The amendment is already {locked.status}.")
    return locked


@transaction.atomic
def approve_amendment(
    *, amendment: Amendment, actor, note: str = ""
) -> RegistrationVersion:
    """Apply the change set and freeze it as the next version."""
    # Lock the registration first so two approvals cannot race for one number.
    registration = Registration.objects.select_for_update().get(
        pk=amendment.registration_id
    )
    amendment = _lock_pending(amendment, actor)
    latest = registration.versions.order_by("-number").first()
    if latest.number != amendment.base_version:
        # Re-validate against the design as it is now; refuses stale changes.
        clean_changes(registration, amendment.changes)
    with registered_changes_allowed():
        _apply_changes(registration.challenge, amendment.changes, actor=actor)
    version = append_version(
        registration=registration,
        actor=actor,
        justification=amendment.justification,
        post_hoc=registration.results_versions.exists(),
    )
    check_amendment_version(latest, version, amendment.changes)
    amendment.status = AmendmentStatus.APPROVED
    amendment.decided_by, amendment.decided_at = actor, timezone.now()
    amendment.decision_note, amendment.version = note, version
    amendment.save()
    record(actor=actor, action="amendment.approve", target=amendment, version=version)
    return version


def _apply_changes(challenge, changes: dict[str, Any], *, actor) -> None:
    """Write the approved changes: the challenge's answers in one call, then
    per task its scheme (and the prose it writes) and its answers in one call."""
    if changes.get("challenge"):
        store_answers(
            challenge=challenge, actor=actor, answers=_inputs(changes["challenge"])
        )
    tasks = {task.name: task for task in challenge.tasks.all()}
    for task_name, task_changes in changes.get("tasks", {}).items():
        task = tasks[task_name]
        answers = dict(task_changes)
        if "scheme" in answers:
            task.scheme = answers.pop("scheme")
            task.save(update_fields=["scheme"])
            write_scheme_prose(task, actor=actor)
        if answers:
            store_answers(
                challenge=challenge, task=task, actor=actor, answers=_inputs(answers)
            )


def _inputs(changes: dict[str, Any]) -> dict[int, AnswerInput]:
    """Amendment changes (parameter key -> compared value) as answers to store."""
    inputs = {}
    for key, change in changes.items():
        value, reason = split_compared(change)
        inputs[int(key)] = AnswerInput(value=value, not_applicable=reason or None)
    return inputs


def check_amendment_version(
    previous: RegistrationVersion, version: RegistrationVersion, changes: dict
) -> None:
    """The new version must be the previous one plus exactly the approved changes.

    Anything else (an edit that slipped past the lock, e.g. with the database
    triggers disabled) refuses the approval, which rolls back whole, and names
    what differs, so it can be neither hidden in a version nor left out of its
    diff.
    """
    unexplained = unexplained_changes(previous, version, changes)
    if unexplained:
        raise RegisteredDataError(
            version.registration,
            "amendment version",
            f"The design differs from version {previous.number} by more than the "
            f"approved changes ({'; '.join(unexplained)}); nothing was approved.",
        )


@transaction.atomic
def reject_amendment(*, amendment: Amendment, actor, note: str = "") -> Amendment:
    amendment = _lock_pending(amendment, actor)
    amendment.status = AmendmentStatus.REJECTED
    amendment.decided_by, amendment.decided_at = actor, timezone.now()
    amendment.decision_note = note
    amendment.save()
    record(actor=actor, action="amendment.reject", target=amendment)
    return amendment
