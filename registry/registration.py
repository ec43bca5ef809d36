"""Registration: freezing an accepted design as an append-only hash chain.

Version n of a registration is the canonical JSON of the whole design at that
moment (every parameter of every task, the ranking schemes, the organizers, the
call), plus the previous version's SHA-256, so altering any stored version
breaks every later link (`004` §5.4: designs public before the first result,
changes versioned, justified and highlighted).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.db.models import F, Max
from django.utils import timezone

from audit.services import record

from .amendment_checks import amendment_problems
from .canonical import canonical_json_bytes, sha256_hex
from .chair_conflicts import call_action_refusal, may_act_for_call
from .enums import ChallengeStatus
from .exports import export_challenge
from .models import (
    Amendment,
    AmendmentStatus,
    Call,
    Challenge,
    Registration,
    RegistrationVersion,
)
from .permissions import is_organizer
from .search import write_listing
from .services import TransitionError, set_challenge_state

SCHEMA = "challenge-registry/registration"
SCHEMA_VERSION = 1


def registration_document(
    challenge: Challenge,
    *,
    identifier: str,
    number: int,
    previous_sha256: str | None,
    created: str,
    created_by: str,
    justification: str = "",
    post_hoc: bool = False,
) -> dict[str, Any]:
    organizers = [challenge.owner, *challenge.co_organizers.order_by("username")]
    return {
        "schema": SCHEMA,
        "schema_version": SCHEMA_VERSION,
        "identifier": identifier,
        "version": number,
        "previous_sha256": previous_sha256,
        "registered_at": created,
        "registered_by": created_by,
        "justification": justification,
        "post_hoc": post_hoc,
        "call": {"slug": challenge.call.slug, "title": challenge.call.title},
        "organizers": [
            {"username": u.get_username(), "institution": _institution(u)}
            for u in organizers
        ],
        "design": export_challenge(challenge),
    }


def _institution(user) -> str:
    profile = getattr(user, "profile", None)
    return profile.institution if profile else ""


def next_identifier(call: Call, last: int | None) -> tuple[int, str]:
    """The sequence number and identifier after `last` in `call`."""
    sequence = (last or 0) + 1
    return sequence, f"{call.slug}-{sequence:03d}"


def _next_identifier(call: Call) -> tuple[int, str]:
    # The call row is locked by the caller, so numbers are handed out one by one.
    last = Registration.objects.filter(call=call).aggregate(n=Max("sequence"))["n"]
    return next_identifier(call, last)


def registration_refusal(actor, challenge: Challenge) -> str | None:
    """Why `actor` may not register `challenge`, or None. The organizers
    register their own accepted design; for the call, a chair (or staff) in
    conflict of interest with the proposal leaves it to another chair."""
    if is_organizer(actor, challenge):
        return None
    if not may_act_for_call(actor, challenge):
        return "Only the call's chairs or the organizers can register."
    return call_action_refusal(actor, challenge, action="register it")


def check_registrable(challenge: Challenge, actor) -> None:
    """Raise unless `actor` may register `challenge` now (an organizer, or a
    chair of its call or staff not in conflict with it, and the proposal
    accepted)."""
    if refusal := registration_refusal(actor, challenge):
        raise PermissionDenied(refusal)
    if challenge.status != ChallengeStatus.ACCEPTED:
        raise TransitionError(
            f"Only accepted proposals can be registered; this one is "
            f"{challenge.get_status_display().lower()}.",
            state=challenge.status,
        )


@dataclass(frozen=True)
class RegistrationPreview:
    """What registering would do, for the organizer or chair to confirm."""

    identifier: str  # the next free identifier of the call (taken in order)
    tasks_without_scheme: list[str]


def registration_preview(challenge: Challenge, actor) -> RegistrationPreview:
    check_registrable(challenge, actor)
    return RegistrationPreview(
        identifier=_next_identifier(challenge.call)[1],
        tasks_without_scheme=list(
            challenge.tasks.filter(scheme__isnull=True).values_list("name", flat=True)
        ),
    )


@transaction.atomic
def register_challenge(*, challenge: Challenge, actor) -> Registration:
    """Freeze an accepted proposal as version 1 of a new registration."""
    check_registrable(challenge, actor)
    challenge = Challenge.objects.select_for_update().get(pk=challenge.pk)
    check_registrable(challenge, actor)  # again, now that the row is locked
    call = Call.objects.select_for_update().get(pk=challenge.call_id)
    sequence, identifier = _next_identifier(call)
    registration = Registration.objects.create(
        challenge=challenge, call=call, sequence=sequence, identifier=identifier
    )
    append_version(registration=registration, actor=actor)
    set_challenge_state(
        challenge,
        ChallengeStatus.REGISTERED,
        actor=actor,
        note=f"Registered as {identifier}.",
    )
    record(actor=actor, action="registration.register", target=registration)
    return registration


def new_version(
    *,
    registration: Registration,
    actor,
    number: int,
    previous: RegistrationVersion | None,
    created,
    justification: str = "",
    post_hoc: bool = False,
) -> tuple[RegistrationVersion, dict[str, Any]]:
    """The (unsaved) version `number` of the challenge's current design, and
    the document it hashes."""
    document = registration_document(
        registration.challenge,
        identifier=registration.identifier,
        number=number,
        previous_sha256=previous.sha256 if previous else None,
        created=created.isoformat(),
        created_by=actor.get_username(),
        justification=justification,
        post_hoc=post_hoc,
    )
    data = canonical_json_bytes(document)
    version = RegistrationVersion(
        registration=registration,
        number=number,
        canonical=data.decode("utf-8"),
        sha256=sha256_hex(data),
        previous_sha256=previous.sha256 if previous else "",
        created=created,
        created_by=actor,
        justification=justification,
        post_hoc=post_hoc,
    )
    return version, document


def append_version(
    *,
    registration: Registration,
    actor,
    justification: str = "",
    post_hoc: bool = False,
) -> RegistrationVersion:
    """Write the next version from the challenge's current design (atomic caller)."""
    last = registration.versions.order_by("-number").first()
    version, document = new_version(
        registration=registration,
        actor=actor,
        number=1 if last is None else last.number + 1,
        previous=last,
        created=timezone.now().replace(microsecond=0),
        justification=justification,
        post_hoc=post_hoc,
    )
    version.save()
    write_listing(registration, version, document)
    return version


@dataclass(frozen=True)
class ChainProblem:
    identifier: str
    version: int
    message: str


def verify_chain(
    identifier: str, versions: list[RegistrationVersion]
) -> list[ChainProblem]:
    """Recompute every hash and chain link of one registration's versions
    (given in version order)."""
    problems: list[ChainProblem] = []
    previous = None
    for expected_number, version in enumerate(versions, start=1):

        def problem(message: str, version=version) -> None:
            problems.append(ChainProblem(identifier, version.number, message))

        data = version.canonical.encode("utf-8")
        if version.number != expected_number:
            problem(
                f"version numbers jump from {expected_number - 1} to {version.number}"
            )
        if sha256_hex(data) != version.sha256:
            problem("stored SHA-256 does not match the canonical bytes")
        try:
            document = json.loads(data)
        except ValueError:
            problem("canonical text is not JSON")
            previous = version
            continue
        if canonical_json_bytes(document) != data:
            problem("stored text is not in canonical form")
        expected_previous = previous.sha256 if previous else None
        if document.get("previous_sha256") != expected_previous:
            problem("document's previous_sha256 breaks the chain")
        if (version.previous_sha256 or None) != expected_previous:
            problem("stored previous_sha256 breaks the chain")
        if document.get("identifier") != identifier:
            problem("document names another registration")
        if document.get("version") != version.number:
            problem("document states another version number")
        previous = version
    return problems


def verify_registration(registration: Registration) -> list[ChainProblem]:
    """Recompute every hash and chain link of one registration."""
    return verify_chain(
        registration.identifier, list(registration.versions.order_by("number"))
    )


@dataclass(frozen=True)
class Verification:
    registrations: int
    versions: int
    problems: list[ChainProblem]


def verify_registrations(registrations=None) -> Verification:
    """Verify the chains of `registrations` (a queryset; default: all), and
    that every version after the first was made by an approved amendment
    whose changes explain its difference from the version before.

    The versions stream in one ordered query (in chunks), so the cost is the
    hashing, not round trips: one registration's chain is checked as soon as
    its versions have been read.
    """
    versions = RegistrationVersion.objects.order_by("registration_id", "number")
    approved = Amendment.objects.filter(
        status=AmendmentStatus.APPROVED, version__isnull=False
    ).only("version_id", "changes")
    if registrations is not None:
        versions = versions.filter(registration__in=registrations.values("pk"))
        approved = approved.filter(registration__in=registrations.values("pk"))
    versions = versions.annotate(identifier=F("registration__identifier"))
    by_version = {amendment.version_id: amendment for amendment in approved}
    problems: list[ChainProblem] = []
    chain: list[RegistrationVersion] = []
    counted = [0, 0]

    def close() -> None:
        if chain:
            identifier = chain[0].identifier
            problems.extend(verify_chain(identifier, chain))
            problems.extend(
                ChainProblem(identifier, number, message)
                for number, message in amendment_problems(chain, by_version)
            )
            counted[0] += 1
            counted[1] += len(chain)
            chain.clear()

    for version in versions.iterator(chunk_size=500):
        if chain and chain[0].registration_id != version.registration_id:
            close()
        chain.append(version)
    close()
    problems.sort(key=lambda p: (p.identifier, p.version))
    return Verification(counted[0], counted[1], problems)


def verify_all_registrations() -> list[ChainProblem]:
    return verify_registrations().problems
