"""Writes for the registry. Every change of a proposal goes through here.

Each service validates first, then writes inside one transaction, so a refused
request changes nothing.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.db.models import F, Max
from django.utils import timezone

from .completeness import Completeness
from .enums import ACTIONS_BY_STATUS, ALLOWED_TRANSITIONS, ChallengeStatus
from .lock import amending
from .models import (
    Answer,
    Call,
    Challenge,
    StatusChange,
    Task,
    refuse_registered_change,
)
from .parameters import BY_NUMBER, Role, get_parameter
from .permissions import can_edit_challenge, can_manage_organizers, is_organizer
from .planning import PLANNING_QUESTIONS
from .selectors import completeness_of
from .versions import OtherChange, StaleEditError, bump, check, preview

NAME_PARAMETER = Role.CHALLENGE_NAME.number
NAME_LIMIT = Challenge._meta.get_field("name").max_length


class TransitionError(Exception):
    """An illegal state change; the API answers it with 409.

    With `state` (the proposal's current status) the answer also names that
    state and the actions still allowed in it.
    """

    def __init__(self, message: str, *, state: str | None = None):
        super().__init__(message)
        self.state = state

    def details(self) -> dict[str, Any]:
        if self.state is None:
            return {}
        return {
            "state": self.state,
            "allowed_actions": list(ACTIONS_BY_STATUS.get(self.state, ())),
        }


class IncompleteError(TransitionError):
    """Submission refused below the call's completeness threshold."""

    def __init__(self, completeness: Completeness):
        self.completeness = completeness
        missing = len(completeness.missing_required)
        super().__init__(
            f"The proposal is {completeness.submission.percent} % complete; the call "
            f"needs {completeness.threshold_percent} %. {missing} required "
            "parameter(s) are missing."
            + ("" if completeness.has_tasks else " Add at least one task.")
        )


# --- calls -----------------------------------------------------------------


@transaction.atomic
def create_call(
    *, slug: str, title: str, threshold: int = 90, deadline: dt.date | None = None
) -> Call:
    if Call.objects.filter(slug=slug).exists():
        raise ValidationError(f"slug: a call {slug!r} already exists.")
    call = Call(
        slug=slug,
        title=title,
        completeness_threshold=threshold,
        submission_deadline=deadline,
    )
    call.full_clean()
    call.save()
    return call


# --- proposals ---------------------------------------------------------------


def require_edit(actor, challenge: Challenge) -> None:
    if not can_edit_challenge(actor, challenge):
        raise PermissionDenied(
            f"The proposal is {challenge.get_status_display().lower()} and cannot "
            "be edited by you."
        )


@transaction.atomic
@transaction.atomic
def create_challenge(*, owner, call: Call, name: str) -> Challenge:
    """A new draft of `owner` in `call`; at most ``MAX_PROPOSALS_PER_CALL``
    proposals per account and call (proposal spam, issue 30)."""
    name = (name or "").strip()
    if not name:
        raise ValidationError({"name": "Give the challenge a name."})
    if len(name) > NAME_LIMIT:
        raise ValidationError({"name": f"At most {NAME_LIMIT} characters."})
    _check_proposal_quota(owner, call)
    challenge = Challenge.objects.create(call=call, name=name, owner=owner)
    Answer.objects.create(
        challenge=challenge,
        number=NAME_PARAMETER,
        value=challenge.name,
        updated_by=owner,
    )
    return challenge


def _check_proposal_quota(owner, call: Call) -> None:
    # The owner's row lock makes two simultaneous creations count each other.
    get_user_model().objects.select_for_update().filter(pk=owner.pk).first()
    limit = settings.MAX_PROPOSALS_PER_CALL
    count = Challenge.objects.filter(owner=owner, call=call).count()
    if count >= limit:
        raise ValidationError(
            {
                "call": f"You already have {count} proposals in {call.title} "
                f"(the limit is {limit} per account and call); ask the call's "
                "chairs if you need more."
            }
        )


@transaction.atomic
def update_challenge(
    *,
    challenge: Challenge,
    actor,
    name: str | None = None,
    planning: dict[str, Any] | None = None,
    expected_version: int | None = None,
) -> Challenge:
    """Save the name and/or planning; ``expected_version`` refuses a save made
    from a stale copy (StaleEditError)."""
    require_edit(actor, challenge)
    current = Challenge.objects.select_for_update().get(pk=challenge.pk)
    check(
        expected_version,
        current.version,
        lambda: OtherChange(
            "The proposal's name or planning answers",
            "another organizer",
            current.updated,
            f"name “{current.name}”, {len(current.planning)} planning answer(s)",
        ),
    )
    if name is not None:
        answer_parameter(
            challenge=challenge, number=NAME_PARAMETER, value=name, actor=actor
        )
    if planning is not None:
        planning = clean_planning(planning)
        if planning != current.planning:
            challenge.planning = planning
            bump(challenge)
            challenge.save(update_fields=["planning", "version", "updated"])
    challenge.refresh_from_db()
    return challenge


def clean_planning(planning: dict[str, Any]) -> dict[str, Any]:
    if not isinstance(planning, dict):
        raise ValidationError({"planning": "Expected an object."})
    by_key = {q.key: q for q in PLANNING_QUESTIONS}
    unknown = set(planning) - set(by_key)
    if unknown:
        raise ValidationError({"planning": f"Unknown questions {sorted(unknown)}."})
    cleaned: dict[str, Any] = {}
    for key, value in planning.items():
        question = by_key[key]
        if value in (None, ""):
            continue
        if question.kind == "integer":
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValidationError({f"planning.{key}": "Expected a whole number."})
        elif question.kind == "choice" and value not in question.choices:
            raise ValidationError(
                {f"planning.{key}": f"Expected one of {list(question.choices)}."}
            )
        elif question.kind == "text":
            if not isinstance(value, str):
                raise ValidationError({f"planning.{key}": "Expected text."})
            value = value.strip()
        cleaned[key] = value
    return cleaned


def refuse_scheme_prose(task: Task | None, number: int) -> None:
    """Organizers never write the prose a task's ranking scheme writes (it would
    no longer say what the scheme executes); they change the scheme instead."""
    parameter = BY_NUMBER.get(number)
    if task is None or not task.scheme or parameter is None:
        return
    if parameter.derived_from_scheme:
        raise ValidationError(
            {
                "number": f"Parameter {number} ({parameter.name}) of task "
                f"“{task.name}” is written from the task's ranking scheme and is "
                "read-only; change the ranking scheme instead."
            }
        )


def clean_answer(
    *, number: int, task: Task | None, value: Any, not_applicable: str | None
) -> tuple[Any, str]:
    """Validate one answer against the catalogue: (clean value, n/a reason)."""
    try:
        parameter = get_parameter(number)
    except KeyError as exc:
        raise ValidationError({"number": str(exc.args[0])}) from None
    expected = "task" if task is not None else "challenge"
    if parameter.level != expected:
        raise ValidationError(
            {
                "number": f"Parameter {number} ({parameter.name}) is a "
                f"{parameter.level}-level parameter, not a {expected}-level one."
            }
        )
    if not_applicable is not None:
        reason = str(not_applicable).strip()
        if not parameter.not_applicable_allowed:
            raise ValidationError(
                {
                    "not_applicable": f"Parameter {number} ({parameter.name}) always "
                    "applies; give a value."
                }
            )
        if not reason:
            raise ValidationError({"not_applicable": "Say why it does not apply."})
        return None, reason[:5000]
    try:
        return parameter.clean(value), ""
    except ValidationError as exc:
        raise ValidationError(
            {
                "value": [
                    f"Parameter {number} ({parameter.name}): {m}" for m in exc.messages
                ]
            }
        ) from None


def _changed_by_other(number: int, answer: Answer | None) -> OtherChange:
    what = f"Parameter {number} ({get_parameter(number).name})"
    if answer is None:
        return OtherChange(what, "another organizer", None, "(cleared)")
    now = (
        f"not applicable: {answer.not_applicable}"
        if answer.not_applicable
        else preview(answer.value)
    )
    by = answer.updated_by.get_username() if answer.updated_by else "someone"
    return OtherChange(what, by, answer.updated, now)


@dataclass(frozen=True)
class AnswerInput:
    """One answer to store: a value, a reason why the parameter does not apply,
    or ``clear=True`` (the stored answer is removed)."""

    value: Any = None
    not_applicable: str | None = None
    clear: bool = False


class AnswersRefusedError(ValidationError):
    """Some answers of a `store_answers` call are invalid; nothing was written.

    Keyed by `Parameter.key` (what a section form shows next to each field);
    ``by_number`` keeps each answer's own error."""

    def __init__(self, by_number: dict[int, ValidationError]):
        self.by_number = by_number
        super().__init__(
            {_key(number): error.messages for number, error in by_number.items()}
        )


def _key(number: int) -> str:
    parameter = BY_NUMBER.get(number)
    return parameter.key if parameter else str(number)


def _clean_input(
    number: int, item: AnswerInput, task: Task | None, *, scheme_prose: bool
) -> tuple[Any, str] | None:
    """(clean value, n/a reason) to store, or None to clear; ValidationError."""
    if not scheme_prose:
        refuse_scheme_prose(task, number)
    if item.clear:
        if number == NAME_PARAMETER:
            raise ValidationError({"number": "The challenge name cannot be cleared."})
        return None
    cleaned, reason = clean_answer(
        number=number, task=task, value=item.value, not_applicable=item.not_applicable
    )
    if number == NAME_PARAMETER and len(cleaned) > NAME_LIMIT:
        raise ValidationError(
            {
                "value": f"Parameter {NAME_PARAMETER} (Challenge name): "
                f"at most {NAME_LIMIT} characters."
            }
        )
    return cleaned, reason


def answer_as_stored(
    number: int, item: AnswerInput, task: Task | None
) -> tuple[Any, str] | None:
    """(value, n/a reason) that `store_answers` would store for `item` (None:
    cleared), to compare with an answer as stored; ValidationError."""
    return _clean_input(number, item, task, scheme_prose=True)


def _unchanged(answer: Answer | None, wanted: tuple[Any, str] | None) -> bool:
    if answer is None:
        return wanted is None
    return wanted is not None and (answer.value, answer.not_applicable) == wanted


@transaction.atomic
def store_answers(
    *,
    challenge: Challenge,
    actor,
    answers: Mapping[int, AnswerInput],
    task: Task | None = None,
    expected_versions: Mapping[int, int] | None = None,
    scheme_prose: bool = True,
) -> dict[int, Answer | None]:
    """Validate and write several answers of the challenge (or of one task):
    all of them or none. Returns parameter number -> stored answer (None: cleared).

    Without the organizer check: callers are responsible for permission
    (`answer_parameter` and `answer_section` for organizers, approved
    amendments for chairs). ``scheme_prose=False`` refuses the parameters a
    task's ranking scheme writes (organizers change the scheme instead).

    One lock of the challenge serialises the writers of its answers, so the
    current rows are read once and their next versions are known. Every answer
    is checked before anything is written: a save from a stale copy
    (``expected_versions``: parameter -> version the caller saw, 0 for none;
    absent: not checked) raises StaleEditError naming every such change, then
    invalid answers raise AnswersRefusedError naming every field. Unchanged
    answers are not written; the challenge's ``updated`` is stamped once.
    """
    if task is not None and task.challenge_id != challenge.pk:
        raise ValidationError({"task": "The task belongs to another challenge."})
    wanted: dict[int, tuple[Any, str] | None] = {}
    errors: dict[int, ValidationError] = {}
    for number, item in answers.items():
        try:
            wanted[number] = _clean_input(number, item, task, scheme_prose=scheme_prose)
        except ValidationError as exc:
            errors[number] = exc
    status, version = (
        Challenge.objects.select_for_update()
        .filter(pk=challenge.pk)
        .values_list("status", "version")
        .get()
    )
    stored = {
        a.number: a
        for a in Answer.objects.select_related("updated_by").filter(
            challenge=challenge, task=task, number__in=list(answers)
        )
    }
    changed = {n: w for n, w in wanted.items() if not _unchanged(stored.get(n), w)}
    expected = expected_versions or {}
    stale = [
        _changed_by_other(n, stored.get(n))
        for n in changed
        if n in expected and expected[n] != getattr(stored.get(n), "version", 0)
    ]
    if stale:
        raise StaleEditError(stale)
    if errors:
        raise AnswersRefusedError(errors)
    result = {n: stored.get(n) for n in answers}
    if changed:
        result.update(
            _write_answers(challenge, task, changed, stored, actor, status, version)
        )
    return result


def _write_answers(challenge, task, changed, stored, actor, status, version):
    """The writes of `store_answers` (the challenge row is locked)."""
    now = timezone.now()
    created, updated, cleared = [], [], []
    result: dict[int, Answer | None] = {}
    for number, wanted in changed.items():
        answer = stored.get(number)
        if wanted is None:
            cleared.append(answer.pk)
            result[number] = None
            continue
        if answer is None:
            answer = Answer(challenge=challenge, task=task, number=number)
            created.append(answer)
        else:
            answer.version += 1  # the challenge is locked: no other writer
            updated.append(answer)
        answer.value, answer.not_applicable = wanted
        answer.updated_by, answer.updated = actor, now
        result[number] = answer
    if status == ChallengeStatus.REGISTERED and not amending():
        first = next(iter(changed))
        target = result[first] or stored[first]
        refuse_registered_change(target, f"The answer {target}")
    if created:
        Answer.objects.bulk_create(created)
    if updated:
        Answer.objects.bulk_update(
            updated, ["value", "not_applicable", "version", "updated_by", "updated"]
        )
    if cleared:
        Answer.objects.filter(pk__in=cleared).delete()
    stamp: dict[str, Any] = {"updated": now}
    if changed.get(NAME_PARAMETER):
        stamp["name"] = challenge.name = changed[NAME_PARAMETER][0]
        stamp["version"] = challenge.version = version + 1
    Challenge.objects.filter(pk=challenge.pk).update(**stamp)
    challenge.updated = now
    return result


def _store_one(
    *,
    challenge: Challenge,
    actor,
    task: Task | None,
    number: int,
    item: AnswerInput,
    expected_version: int | None,
    scheme_prose: bool,
) -> Answer | None:
    """`store_answers` for one answer; an invalid one raises its own error."""
    try:
        stored = store_answers(
            challenge=challenge,
            actor=actor,
            task=task,
            answers={number: item},
            expected_versions=None
            if expected_version is None
            else {number: expected_version},
            scheme_prose=scheme_prose,
        )
    except AnswersRefusedError as exc:
        raise exc.by_number[number] from None
    return stored[number]


def answer_parameter(
    *,
    challenge: Challenge,
    number: int,
    actor,
    task: Task | None = None,
    value: Any = None,
    not_applicable: str | None = None,
    expected_version: int | None = None,
) -> Answer:
    """Store one answer (a value, or a reason why the parameter does not apply).

    ``expected_version``: the answer's version the caller saw (0: none yet);
    a save from a stale copy is refused with StaleEditError."""
    require_edit(actor, challenge)
    return _store_one(
        challenge=challenge,
        actor=actor,
        task=task,
        number=number,
        item=AnswerInput(value, not_applicable),
        expected_version=expected_version,
        scheme_prose=False,
    )


def clear_answer(
    *,
    challenge: Challenge,
    number: int,
    actor,
    task: Task | None = None,
    expected_version: int | None = None,
) -> None:
    require_edit(actor, challenge)
    _store_one(
        challenge=challenge,
        actor=actor,
        task=task,
        number=number,
        item=AnswerInput(clear=True),
        expected_version=expected_version,
        scheme_prose=False,
    )


def answer_section(
    *,
    challenge: Challenge,
    actor,
    answers: Mapping[int, AnswerInput],
    task: Task | None = None,
    seen_versions: Mapping[int, int] | None = None,
) -> None:
    """Store the answers of one editor section: all of them or none.

    `store_answers` for an organizer: every refused field is named (keyed by
    `Parameter.key`); ``seen_versions`` (parameter → version shown in the
    form, 0 for none): an answer changed by someone else since is not
    overwritten; StaleEditError names every such change.
    """
    require_edit(actor, challenge)
    store_answers(
        challenge=challenge,
        actor=actor,
        task=task,
        answers=answers,
        expected_versions=seen_versions,
        scheme_prose=False,
    )


# --- tasks ------------------------------------------------------------------


def _clean_task_name(
    challenge: Challenge, name: str, *, exclude: int | None = None
) -> str:
    name = (name or "").strip()
    if not name:
        raise ValidationError({"name": "Give the task a name."})
    if len(name) > 200:
        raise ValidationError({"name": "At most 200 characters."})
    clash = challenge.tasks.filter(name=name).exclude(pk=exclude)
    if clash.exists():
        raise ValidationError({"name": f"A task {name!r} already exists."})
    return name


@transaction.atomic
def add_task(*, challenge: Challenge, name: str, actor) -> Task:
    require_edit(actor, challenge)
    name = _clean_task_name(challenge, name)
    last = challenge.tasks.aggregate(last=Max("position"))["last"]
    task = Task.objects.create(
        challenge=challenge, name=name, position=0 if last is None else last + 1
    )
    challenge.save(update_fields=["updated"])
    return task


@transaction.atomic
def rename_task(
    *, task: Task, name: str, actor, expected_version: int | None = None
) -> Task:
    require_edit(actor, task.challenge)
    current = Task.objects.select_for_update().get(pk=task.pk)
    check(
        expected_version,
        current.version,
        lambda: OtherChange("The task", "another organizer", None, current.name),
    )
    name = _clean_task_name(task.challenge, name, exclude=task.pk)
    if name != current.name:
        task.name = name
        bump(task)
        task.save(update_fields=["name", "version"])
        task.refresh_from_db(fields=["name", "version"])
    return task


@transaction.atomic
def remove_task(*, task: Task, actor) -> None:
    require_edit(actor, task.challenge)
    challenge = task.challenge
    task.delete()
    challenge.save(update_fields=["updated"])


@transaction.atomic
def move_task(*, task: Task, offset: int, actor) -> None:
    """Move a task up (offset -1) or down (+1) in the order of tasks."""
    require_edit(actor, task.challenge)
    tasks = list(task.challenge.tasks.select_for_update().order_by("position", "id"))
    index = tasks.index(task)
    target = max(0, min(len(tasks) - 1, index + offset))
    tasks.insert(target, tasks.pop(index))
    for position, item in enumerate(tasks):
        if item.position != position:
            Task.objects.filter(pk=item.pk).update(position=position)


# --- organizers ---------------------------------------------------------------


@transaction.atomic
def add_co_organizer(*, challenge: Challenge, user, actor) -> None:
    if not can_manage_organizers(actor, challenge):
        raise PermissionDenied("Only the proposal's owner can invite co-organizers.")
    if user.pk == challenge.owner_id:
        raise ValidationError({"username": "The owner already organizes it."})
    challenge.co_organizers.add(user)


@transaction.atomic
def remove_co_organizer(*, challenge: Challenge, user, actor) -> None:
    if not can_manage_organizers(actor, challenge):
        raise PermissionDenied("Only the proposal's owner can remove co-organizers.")
    challenge.co_organizers.remove(user)


# --- life cycle -----------------------------------------------------------------


@transaction.atomic
def set_challenge_state(
    challenge: Challenge, new_status: str, *, actor, note: str = ""
) -> Challenge:
    """The single funnel for status changes: checks, saves, records history.

    The row is locked so that two simultaneous transitions cannot both succeed.
    """
    locked = Challenge.objects.select_for_update().get(pk=challenge.pk)
    old = locked.status
    if (old, new_status) not in ALLOWED_TRANSITIONS:
        raise TransitionError(
            f"A {ChallengeStatus(old).label.lower()} proposal cannot become "
            f"{ChallengeStatus(new_status).label.lower()}.",
            state=old,
        )
    updates = {"status": new_status}
    if new_status == ChallengeStatus.SUBMITTED:
        updates["revision"] = F("revision") + 1
    Challenge.objects.filter(pk=locked.pk).update(**updates)
    StatusChange.objects.create(
        challenge=locked,
        from_status=old,
        to_status=new_status,
        actor=actor,
        note=note,
    )
    challenge.refresh_from_db()
    return challenge


@transaction.atomic
def submit_challenge(*, challenge: Challenge, actor, note: str = "") -> Challenge:
    """Submit a draft if it meets the call's completeness threshold.

    A revision goes back through `resubmit_revision`, which the review workflow
    calls with the organizers' response letter.
    """
    if challenge.status == ChallengeStatus.REVISION_REQUESTED:
        raise TransitionError(
            "A revised proposal is resubmitted with a response letter to the "
            "reviewers (resubmit), not submitted as a new draft.",
            state=challenge.status,
        )
    if is_organizer(actor, challenge) and challenge.status != ChallengeStatus.DRAFT:
        # The organizer may submit; the state is the problem (409, not 403).
        raise TransitionError(
            f"The proposal is {challenge.get_status_display().lower()}; only a "
            "draft can be submitted.",
            state=challenge.status,
        )
    return _submit(challenge=challenge, actor=actor, note=note)


@transaction.atomic
def resubmit_revision(*, challenge: Challenge, actor, response: str) -> Challenge:
    """revision requested → submitted, with the same completeness check."""
    if challenge.status != ChallengeStatus.REVISION_REQUESTED:
        raise TransitionError(
            "Only a proposal with a requested revision can be resubmitted.",
            state=challenge.status,
        )
    return _submit(challenge=challenge, actor=actor, note=response)


def _submit(*, challenge: Challenge, actor, note: str) -> Challenge:
    if not can_edit_challenge(actor, challenge):
        raise PermissionDenied("Only organizers can submit their proposal.")
    completeness = completeness_of(challenge)
    if not completeness.can_submit:
        raise IncompleteError(completeness)
    return set_challenge_state(
        challenge, ChallengeStatus.SUBMITTED, actor=actor, note=note
    )


@transaction.atomic
def withdraw_challenge(*, challenge: Challenge, actor, note: str = "") -> Challenge:
    if not can_manage_organizers(actor, challenge):
        raise PermissionDenied("Only the proposal's owner can withdraw it.")
    return set_challenge_state(
        challenge, ChallengeStatus.WITHDRAWN, actor=actor, note=note
    )


@transaction.atomic
def delete_draft(*, challenge: Challenge, actor) -> None:
    if not can_manage_organizers(actor, challenge):
        raise PermissionDenied("Only the proposal's owner can delete it.")
    if challenge.status != ChallengeStatus.DRAFT:
        raise TransitionError(
            "Only drafts can be deleted; withdraw it instead.", state=challenge.status
        )
    challenge.delete()


@transaction.atomic
def duplicate_challenge(
    *, challenge: Challenge, actor, name: str | None = None
) -> Challenge:
    """A new draft owned by `actor` with the same design: tasks, their ranking
    schemes and the answers (a copy without its schemes could be registered
    with nothing executable to rank by)."""
    copy = create_challenge(
        owner=actor,
        call=challenge.call,
        name=name or f"Copy of {challenge.name}"[:NAME_LIMIT],  # a generated default
    )
    copy.planning = dict(challenge.planning)
    copy.duplicated_from = challenge
    copy.save(update_fields=["planning", "duplicated_from"])
    task_map = {
        task.pk: Task.objects.create(
            challenge=copy, name=task.name, position=task.position, scheme=task.scheme
        )
        for task in challenge.tasks.all()
    }
    Answer.objects.bulk_create(
        Answer(
            challenge=copy,
            task=task_map.get(a.task_id),
            number=a.number,
            value=a.value,
            not_applicable=a.not_applicable,
            updated_by=actor,
        )
        for a in challenge.answers.exclude(task=None, number=NAME_PARAMETER)
    )
    return copy
