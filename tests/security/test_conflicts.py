"""Attack: side-step the conflict-of-interest rules during review."""

import pytest
from django.core import mail

from audit.models import AuditEvent
from registry import services as registry_services
from reviews import services
from reviews.conflicts import conflict_reason, normalise_institution
from reviews.enums import AssignmentStatus
from reviews.services import ReviewConflictError
from tests.factories import UserFactory
from tests.reviews.conftest import client_for, review_payload

pytestmark = pytest.mark.django_db


@pytest.fixture
def assigned(world):
    assignment = services.assign_reviewer(
        challenge=world.challenge, reviewer=world.tech1, role="technical",
        actor=world.chair,
    )  # fmt: skip
    mail.outbox.clear()
    return assignment


def test_reviewer_made_co_organizer_is_withdrawn_with_a_notice(
    world, assigned, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        registry_services.add_co_organizer(
            challenge=world.challenge, user=world.tech1, actor=world.organizer
        )
    assigned.refresh_from_db()
    assert assigned.status == AssignmentStatus.WITHDRAWN
    assert assigned.decline_reason == "tina is an organizer of this proposal."
    [notice] = mail.outbox
    assert notice.to == [world.chair.email]
    assert "conflict of interest" in notice.subject
    assert AuditEvent.objects.filter(action="review.withdraw_conflicted").count() == 1
    # ...and the review is no longer accepted.
    response = client_for(world.tech1).post(
        f"/api/v1/challenges/{world.challenge.pk}/reviews/", review_payload()
    )
    assert response.status_code in (403, 404)


def test_co_organizer_added_through_the_reverse_relation_is_checked(world, assigned):
    world.tech1.co_organized_challenges.add(world.challenge)
    assigned.refresh_from_db()
    assert assigned.status == AssignmentStatus.WITHDRAWN


def test_organizer_institution_matching_the_reviewer_withdraws(world, assigned):
    world.tech1.profile.institution = "Univ. of Zürich"
    world.tech1.profile.save()
    assert assigned.status == AssignmentStatus.ASSIGNED
    world.organizer.profile.institution = "University of Zurich"
    world.organizer.profile.save()
    assigned.refresh_from_db()
    assert assigned.status == AssignmentStatus.WITHDRAWN
    assert "'Univ. of Zürich'" in assigned.decline_reason


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Univ. of X", "University of X"),
        ("Inst. of Cancer Research", "Institute of Cancer Research"),
        ("Université de Montréal", "universite de montreal"),
        ("German Cancer Research Center", "German Cancer Research Centre"),
        ("  Dept. Radiology, Hosp. A & B ", "department radiology hospital a and b"),
    ],
)
def test_institutions_compare_after_normalisation(a, b):
    assert normalise_institution(a) == normalise_institution(b)


def test_institutions_that_differ_stay_different():
    assert normalise_institution("University of X") != normalise_institution(
        "University of Y"
    )


def test_shared_mail_domain_is_a_conflict(world):
    world.organizer.email = "olga@dkfz.de"
    world.organizer.save()
    reviewer = UserFactory(username="rita", email="rita@radiology.dkfz.de")
    assert conflict_reason(reviewer, world.challenge) == (
        "rita's e-mail domain 'radiology.dkfz.de' is also an organizer's ('dkfz.de')."
    )
    webmail = UserFactory(username="walt", email="walt@gmail.com")
    world.organizer.email = "olga@gmail.com"
    world.organizer.save()
    assert conflict_reason(webmail, world.challenge) is None


def test_chair_cannot_assign_themselves(world):
    with pytest.raises(ReviewConflictError, match="cannot assign themselves"):
        services.assign_reviewer(
            challenge=world.challenge, reviewer=world.chair, role="technical",
            actor=world.chair,
        )  # fmt: skip
    assert not world.challenge.assignments.exists()


def test_chair_self_assignment_via_api_is_409(world):
    response = client_for(world.chair).post(
        f"/api/v1/challenges/{world.challenge.pk}/assignments/",
        {"reviewer": world.chair.username, "role": "technical"},
        format="json",
    )
    assert response.status_code == 409
    assert "cannot assign themselves" in response.json()["detail"]
