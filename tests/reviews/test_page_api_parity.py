"""The review pages and the review API give one answer per (action, role).

Both follow the rule of `reviews.access`: 404 for a proposal (or assignment)
the user may not see, 403 for one they see but may not act on; and who may act
is decided before what they sent, so a refused user gets the same refusal
whatever the input (no 400 that tells a stranger which usernames exist). Where
the state allows no action (409), that is the answer whatever was sent.

Anonymous: the page redirects to sign in, the API answers 401; both count as
"sign in". A page's redirect elsewhere and an API 2xx both count as "done".
Each request runs in a savepoint that is rolled back.
"""

import pytest
from django.db import transaction
from django.test import Client
from django.urls import reverse

from registry.enums import ChallengeStatus
from registry.models import Challenge
from reviews import services
from reviews.models import Assignment
from tests.factories import UserFactory
from tests.reviews.conftest import (
    DECISION_FORM,
    REVIEW_FORM,
    client_for,
    review_payload,
    submitted_proposal,
)

pytestmark = pytest.mark.django_db

SIGN_IN, DONE = "sign in", "done"
REFUSALS = {SIGN_IN, 403, 404}

# action: (page method, page URL name, target, valid form, invalid form),
#         (API method, API path, valid body, invalid body)
# The target is the proposal ("challenge") or tina's assignment ("assignment");
# {pk} in a form's keys is the assignment's pk (the decline form's prefix).
ACTIONS = {
    "see reviewer identities": (
        ("get", "reviews:manage", "challenge", None, None),
        ("get", "/api/v1/challenges/{challenge}/suggestions/", None, None),
    ),
    "assign": (
        (
            "post",
            "reviews:assign",
            "challenge",
            {"assign-reviewer": "rex", "assign-role": "technical"},
            {"assign-reviewer": "nobody", "assign-role": "technical"},
        ),
        (
            "post",
            "/api/v1/challenges/{challenge}/assignments/",
            {"reviewer": "rex", "role": "technical"},
            {"reviewer": "nobody", "role": "technical"},
        ),
    ),
    "decide": (
        (
            "post",
            "reviews:decide",
            "challenge",
            DECISION_FORM,
            {"decision-decision": "bogus", "decision-letter": ""},
        ),
        (
            "post",
            "/api/v1/challenges/{challenge}/decision/",
            {"decision": "accept", "letter": "Yes.", "confirm": True},
            {"decision": "bogus", "letter": ""},
        ),
    ),
    "review": (
        ("post", "reviews:review", "challenge", REVIEW_FORM, {}),
        ("post", "/api/v1/challenges/{challenge}/reviews/", review_payload(), {}),
    ),
    "resubmit": (
        ("post", "reviews:resubmit", "challenge", {"response": "Done."}, {}),
        ("post", "/api/v1/challenges/{challenge}/resubmit/", {"response": "Done."}, {}),
    ),
    "decline": (
        (
            "post",
            "reviews:decline",
            "assignment",
            {"decline-{pk}-reason": "Busy."},
            {"decline-{pk}-reason": ""},
        ),
        ("post", "/api/v1/assignments/{assignment}/decline/", {"reason": "Busy."}, {}),
    ),
    "unassign": (
        ("post", "reviews:unassign", "assignment", {}, {}),
        ("delete", "/api/v1/assignments/{assignment}/", None, None),
    ),
    "change role": (
        (
            "post",
            "reviews:change-role",
            "assignment",
            {"role": "clinical", "confirm": "on"},
            {"role": "bogus"},
        ),
        (
            "patch",
            "/api/v1/assignments/{assignment}/",
            {"role": "clinical", "confirm": True},
            {"role": "bogus"},
        ),
    ),
}

ROLES = (
    "anonymous",
    "unrelated user",
    "organizer",
    "assigned reviewer",
    "reviewer of another proposal",
    "chair of another call",
    "chair",
    "staff",
)

# Under review only its people see it; registered, everyone signed in does.
STATES = (ChallengeStatus.UNDER_REVIEW, ChallengeStatus.REGISTERED)


def user_for(world, role: str):
    if role == "reviewer of another proposal":
        other = submitted_proposal(world.other_organizer, world.call, name="Other")
        reviewer = UserFactory(username="rita")
        services.assign_reviewer(
            challenge=other, reviewer=reviewer, role="technical", actor=world.chair
        )
        return reviewer
    return {
        "anonymous": None,
        "unrelated user": UserFactory(username="ursula"),
        "organizer": world.organizer,
        "assigned reviewer": world.tech1,
        "chair of another call": world.other_chair,
        "chair": world.chair,
        "staff": world.staff,
    }[role]


def page_answer(client: Client, method: str, url: str, form) -> object:
    with transaction.atomic():
        response = getattr(client, method)(url, *([] if form is None else [form]))
        transaction.set_rollback(True)
    if response.status_code == 302:
        return SIGN_IN if response["Location"].startswith(reverse("login")) else DONE
    return DONE if response.status_code == 200 else response.status_code


def api_answer(client, method: str, url: str, body) -> object:
    with transaction.atomic():
        response = getattr(client, method)(url, body, format="json")
        transaction.set_rollback(True)
    if response.status_code == 401:
        return SIGN_IN
    return DONE if 200 <= response.status_code < 300 else response.status_code


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("action", list(ACTIONS))
def test_page_and_api_answer_alike(under_review, action, role):
    user = user_for(under_review, role)
    page, api = Client(), client_for(user)
    if user is not None:
        page.force_login(user)
    assignment = Assignment.objects.get(reviewer=under_review.tech1)
    targets = {"challenge": under_review.challenge.pk, "assignment": assignment.pk}
    (p_method, name, target, *p_forms), (a_method, path, *a_bodies) = ACTIONS[action]
    page_url = reverse(name, args=[targets[target]])
    api_url = path.format(**targets)
    p_forms = [
        {k.format(pk=assignment.pk): v for k, v in f.items()} if f is not None else f
        for f in p_forms
    ]
    answers, expected = {}, {}
    for state in STATES:
        Challenge.objects.filter(pk=under_review.challenge.pk).update(status=state)
        page_says = page_answer(page, p_method, page_url, p_forms[0])
        answers[state.value, "valid input"] = (
            page_says,
            api_answer(api, a_method, api_url, a_bodies[0]),
        )
        expected[state.value, "valid input"] = (page_says, page_says)
        if page_says in REFUSALS or page_says == 409:
            page_invalid = page_answer(page, p_method, page_url, p_forms[1])
            answers[state.value, "invalid input"] = (
                page_invalid,
                api_answer(api, a_method, api_url, a_bodies[1]),
            )
            # a refused user, or a state that allows no action: the same
            # refusal, whatever was sent
            expected[state.value, "invalid input"] = (page_says, page_says)
    assert answers == expected
