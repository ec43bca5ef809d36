"""The demo has enough reviewers (issue 28): whichever one demo reviewer is
conflicted with a proposal, the chair's suggestions still offer three
technical reviewers and a clinical one (seed 004 §5.1: 2–3 reviewers and a
clinical reviewer)."""

import pytest

from accounts.models import Role
from demo import liver
from demo.accounts import DEMO_ACCOUNTS, ensure_demo_accounts, ensure_demo_call
from demo.load import ensure_design
from reviews.enums import ReviewerRole
from reviews.models import ConflictDeclaration
from reviews.selectors import suggest_reviewers

REVIEWERS = [
    username
    for username, _, role, _, _ in DEMO_ACCOUNTS
    if role in (Role.REVIEWER, Role.CLINICAL_REVIEWER)
]


@pytest.fixture
def proposal(db):
    call = ensure_demo_call()
    users = ensure_demo_accounts(call)
    return ensure_design(liver, call, users), users


def offered(challenge) -> dict[str, int]:
    roles = [s.role for s in suggest_reviewers(challenge)]
    return {role: roles.count(role) for role in ReviewerRole.values}


def test_the_demo_offers_every_reviewer_for_a_new_proposal(proposal):
    challenge, _ = proposal
    assert offered(challenge) == {"technical": 4, "clinical": 2}


@pytest.mark.parametrize("conflicted", REVIEWERS)
def test_one_conflicted_demo_reviewer_leaves_three_technical_and_a_clinical(
    proposal, conflicted
):
    challenge, users = proposal
    ConflictDeclaration.objects.create(
        reviewer=users[conflicted], challenge=challenge, reason="Co-author."
    )
    counts = offered(challenge)
    assert counts["technical"] >= 3
    assert counts["clinical"] >= 1
    assert users[conflicted] not in [s.user for s in suggest_reviewers(challenge)]
