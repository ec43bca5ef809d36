"""Registered challenges built through the real services."""

import pytest

from demo.accounts import ensure_demo_accounts, ensure_demo_call
from demo.load import load_demo_challenges
from demo.story import MSD_SCHEME, review_and_accept
from registry import services
from registry.amendments import propose_amendment
from registry.registration import register_challenge
from registry.schemes import set_task_scheme
from tests.factories import ChallengeFactory, TaskFactory
from tests.registry.helpers import fill_proposal

# The MSD scheme on the example metric: no design-check warning.
CLEAN_SCHEME = {
    **MSD_SCHEME,
    "metric": "DSC",
    "missing": {"policy": "value", "value": 0},
}
AGGREGATE_SCHEME = {
    "metric": "DSC",
    "higher_is_better": True,
    "missing": {"policy": "ignore"},
    "method": "aggregate_then_rank",
    "aggregate": "median",
    "uncertainty": {"bootstrap": 0},
}


def registered(
    call,
    owner,
    chair,
    *,
    name,
    tasks=("Brain",),
    skip=(),
    scheme=None,
    not_applicable=(),
    answers=None,
):
    """A registered challenge with every parameter answered but `skip`."""
    challenge = ChallengeFactory(call=call, owner=owner, name=name)
    for task_name in tasks:
        TaskFactory(challenge=challenge, name=task_name)
    fill_proposal(challenge, owner, skip=frozenset(skip) | set(not_applicable))
    for number, task in not_applicable:
        services.answer_parameter(
            challenge=challenge,
            task=challenge.tasks.get(name=task) if task else None,
            number=number,
            value=None,
            not_applicable="Does not apply here.",
            actor=owner,
        )
    for number, value in (answers or {}).items():
        services.answer_parameter(
            challenge=challenge, task=None, number=number, value=value, actor=owner
        )
    if scheme is not None:
        for task in challenge.tasks.all():
            set_task_scheme(task=task, scheme=scheme, actor=owner)
    challenge.status = "accepted"
    challenge.save()
    return register_challenge(challenge=challenge, actor=chair)


@pytest.fixture
def demo_registered(db):
    """The MSD demo design, reviewed, accepted and registered (no results)."""
    call = ensure_demo_call()
    users = ensure_demo_accounts(call)
    msd_challenge, _robustmis = load_demo_challenges(call, users)
    owner = users["organizer"]
    for task in msd_challenge.tasks.all():
        set_task_scheme(task=task, scheme=MSD_SCHEME, actor=owner)
    msd_challenge = services.submit_challenge(challenge=msd_challenge, actor=owner)
    review_and_accept(msd_challenge, users)
    msd_challenge.refresh_from_db()
    registration = register_challenge(challenge=msd_challenge, actor=users["chair"])
    return registration, users


def propose_more_cases(registration, organizer, justification="More cases."):
    """An amendment raising Brain's test cases (parameter 38) to 120."""
    return propose_amendment(
        registration=registration,
        actor=organizer,
        justification=justification,
        changes={"tasks": {"Brain": {"38": {"count": 120, "details": ""}}}},
    )
