"""A call with a chair, a submitted proposal and reviewers, built through the
real services."""

from types import SimpleNamespace

import pytest
from rest_framework.test import APIClient

from accounts.models import Role
from registry import services as registry_services
from reviews import services
from tests.factories import CallFactory, UserFactory
from tests.registry.helpers import fill_proposal


def client_for(user=None) -> APIClient:
    client = APIClient()
    if user is not None:
        client.force_authenticate(user)
    return client


def get_from_challenge(world, user, path: str = ""):
    """`user` reads the API of `world.challenge` below ``/api/v1/challenges/<pk>/``
    (e.g. `path` "reviews/")."""
    return client_for(user).get(f"/api/v1/challenges/{world.challenge.pk}/{path}")


def post_to_challenge(world, user, path: str, data: dict):
    """`user` posts `data` as JSON to the API of `world.challenge` below
    ``/api/v1/challenges/<pk>/`` (e.g. `path` "reviews/")."""
    return client_for(user).post(
        f"/api/v1/challenges/{world.challenge.pk}/{path}", data, format="json"
    )


def assert_conflict(response, detail: str) -> None:
    """The API refused with 409 Conflict and said `detail` in its reason."""
    assert response.status_code == 409
    assert detail in response.json()["detail"]


def submitted_proposal(owner, call, *, name="Decathlon", tasks=("Brain",)):
    challenge = registry_services.create_challenge(owner=owner, call=call, name=name)
    for task in tasks:
        registry_services.add_task(challenge=challenge, name=task, actor=owner)
    fill_proposal(challenge, owner)
    return registry_services.submit_challenge(challenge=challenge, actor=owner)


@pytest.fixture
def world(db):
    call = CallFactory(slug="miccai-2027", title="MICCAI 2027")
    chair = UserFactory(username="chair", profile__role=Role.CHAIR)
    call.chairs.add(chair)
    other_call = CallFactory(slug="isbi-2027")
    other_chair = UserFactory(username="otherchair", profile__role=Role.CHAIR)
    other_call.chairs.add(other_chair)
    organizer = UserFactory(username="olga", profile__institution="Org Institute")
    challenge = submitted_proposal(organizer, call)
    return SimpleNamespace(
        call=call,
        chair=chair,
        other_chair=other_chair,
        organizer=organizer,
        other_organizer=UserFactory(username="oscar"),
        challenge=challenge,
        tech1=UserFactory(
            username="tina",
            profile__role=Role.REVIEWER,
            profile__expertise="segmentation, MRI",
        ),
        tech2=UserFactory(
            username="tom", profile__role=Role.REVIEWER, profile__expertise="CT"
        ),
        clinical=UserFactory(
            username="clara",
            profile__role=Role.CLINICAL_REVIEWER,
            profile__expertise="diagnosis",
        ),
        outsider_reviewer=UserFactory(username="rex", profile__role=Role.REVIEWER),
        staff=UserFactory(username="sam", is_staff=True),
    )


@pytest.fixture
def under_review(world):
    """The proposal with two technical and one clinical reviewer assigned."""
    for reviewer, role in (
        (world.tech1, "technical"),
        (world.tech2, "technical"),
        (world.clinical, "clinical"),
    ):
        assign_reviewer(world, reviewer, role)
    world.challenge.refresh_from_db()
    return world


# A review through the review page's form: section 5 (assessment method) scored
# with a comment, no parameter commented on.
REVIEW_FORM = {
    "recommendation": "major_revision",
    "confidence": "4",
    "comments": "Add a missing-data rule.",
    "section_5_score": "2",
    "section_5_comment": "The ranking is vague.",
    "parameter_1": "",
    "parameter_1_comment": "",
}


# The chair's decision through the management page's form (accept, confirmed).
DECISION_FORM = {
    "decision-decision": "accept",
    "decision-letter": "Yes.",
    "decision-confirm": "on",
}


def review_payload(recommendation="major_revision", **extra):
    return {
        "recommendation": recommendation,
        "confidence": 4,
        "comments": "Clear design; the ranking needs a missing-data rule.",
        **extra,
    }


def assign_reviewer(world, reviewer, role: str = "technical", **options):
    """The chair of `world` assigns `reviewer` to `world.challenge` through the
    service (`options`: e.g. `due`)."""
    return services.assign_reviewer(
        challenge=world.challenge,
        reviewer=reviewer,
        role=role,
        actor=world.chair,
        **options,
    )


def submit_review(challenge, reviewer, recommendation="major_revision", **fields):
    """`reviewer` reviews `challenge` through the service: `review_payload` with
    `fields` replaced or added."""
    return services.submit_review(
        challenge=challenge, actor=reviewer, **review_payload(recommendation, **fields)
    )


def decide_revision(world, letter: str = "Fix."):
    """The chair requests a revision of `world.challenge` (confirmed: there are
    fewer reviews than the call requires)."""
    return services.decide(
        confirm=True,
        challenge=world.challenge,
        actor=world.chair,
        decision="revision",
        letter=letter,
    )
