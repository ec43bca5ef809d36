"""Load the demo designs (MSD, RobustMIS and two invented ones) through the services.

Everything goes through `registry.services`, so the demo data passes the same
validation as a proposal typed into the form: each value is cleaned by its
parameter, each status change is recorded in the timeline.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

from django.db import transaction

from registry import services
from registry.enums import ChallengeStatus
from registry.models import Call, Challenge

from . import msd, robustmis
from .answers import NotApplicable

DESIGNS: tuple[ModuleType, ...] = (msd, robustmis)
OWNER = "organizer"


def load_demo_challenges(call: Call, users: dict[str, Any]) -> list[Challenge]:
    """The demo proposals of `call`, one per design, created where missing.

    Idempotent: a design whose name the demo organizer already owns in this call
    is left as it is. `users` maps demo usernames to users (see
    `demo.accounts.ensure_demo_accounts`).
    """
    return [ensure_design(design, call, users) for design in DESIGNS]


def ensure_design(design: ModuleType, call: Call, users: dict[str, Any]) -> Challenge:
    """The demo organizer's challenge of `design` in `call`, loaded if missing
    (a design whose name the organizer already owns there is left as it is)."""
    existing = Challenge.objects.filter(
        call=call, owner=users[OWNER], name=design.NAME
    ).first()
    return existing or _load_design(design, call, users)


@transaction.atomic
def _load_design(design: ModuleType, call: Call, users: dict[str, Any]) -> Challenge:
    owner = users[OWNER]
    challenge = services.create_challenge(owner=owner, call=call, name=design.NAME)
    for username in design.CO_ORGANIZERS:
        services.add_co_organizer(
            challenge=challenge, user=users[username], actor=owner
        )
    services.update_challenge(
        challenge=challenge, actor=owner, planning=dict(design.PLANNING)
    )
    _answer_all(challenge, design.CHALLENGE, owner, task=None)
    for task_name, answers in design.TASKS.items():
        task = services.add_task(challenge=challenge, name=task_name, actor=owner)
        _answer_all(challenge, answers, owner, task=task)
    if design.STATUS == ChallengeStatus.SUBMITTED:
        challenge = services.submit_challenge(
            challenge=challenge, actor=owner, note="Demo design loaded."
        )
    return challenge


def _answer_all(challenge: Challenge, answers: dict[int, Any], actor, *, task):
    services.answer_section(
        challenge=challenge,
        task=task,
        actor=actor,
        answers={
            number: services.AnswerInput(not_applicable=value.reason)
            if isinstance(value, NotApplicable)
            else services.AnswerInput(value)
            for number, value in answers.items()
        },
    )
