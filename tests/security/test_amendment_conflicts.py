"""Attack: a chair judges the amendments of a design they organize, or
registers a proposal they are in conflict with (issue 30).

A chair of the call in conflict with the proposal (organizer, co-organizer,
the same normalised institution) neither approves nor rejects its amendments
nor registers it, on the pages or the API; another chair of the call, or
staff, does.
"""

import pytest
from django.core.exceptions import PermissionDenied
from django.urls import reverse

from registry import services as registry_services
from registry.amendments import approve_amendment, propose_amendment
from registry.models import AmendmentStatus
from registry.registration import register_challenge
from tests.factories import UserFactory
from tests.registry.helpers import proposal_with_scheme
from tests.reviews.conftest import client_for
from tests.schemes import SIGNIFICANCE_SCHEME

pytestmark = pytest.mark.django_db

CHANGE = {"tasks": {"Brain": {"scheme": {**SIGNIFICANCE_SCHEME, "ties": "max"}}}}
CONFLICT = (
    "You have a conflict of interest with this proposal (chair is an organizer "
    "of this proposal.); another chair of the call (or staff) must decide on "
    "this proposal's amendments."
)


@pytest.fixture
def accepted(call, organizer):
    challenge = proposal_with_scheme(call, organizer, SIGNIFICANCE_SCHEME)
    challenge.status = "accepted"
    challenge.save()
    return challenge


@pytest.fixture
def other_chair(call):
    user = UserFactory(username="second-chair")
    call.chairs.add(user)
    return user


@pytest.fixture
def pending(accepted, organizer, chair, other_chair):
    """A registered design with a pending amendment; `chair` co-organizes it."""
    registration = register_challenge(challenge=accepted, actor=other_chair)
    registry_services.add_co_organizer(challenge=accepted, user=chair, actor=organizer)
    return propose_amendment(
        registration=registration,
        actor=organizer,
        justification="Ties as the worst rank.",
        changes=CHANGE,
    )


def approve_url(amendment) -> str:
    return f"/api/v1/amendments/{amendment.pk}/approve/"


def test_chair_who_co_organizes_cannot_approve_through_the_service(pending, chair):
    with pytest.raises(PermissionDenied) as refused:
        approve_amendment(amendment=pending, actor=chair)
    assert str(refused.value) == CONFLICT
    pending.refresh_from_db()
    assert pending.status == AmendmentStatus.PENDING
    assert pending.registration.versions.count() == 1


def test_chair_who_co_organizes_cannot_approve_through_the_api(pending, chair):
    response = client_for(chair).post(approve_url(pending))
    assert response.status_code == 403
    assert response.json()["detail"] == CONFLICT
    pending.refresh_from_db()
    assert pending.status == AmendmentStatus.PENDING


def test_chair_who_co_organizes_cannot_reject_through_the_api(pending, chair):
    response = client_for(chair).post(f"/api/v1/amendments/{pending.pk}/reject/")
    assert response.status_code == 403
    pending.refresh_from_db()
    assert pending.status == AmendmentStatus.PENDING


def test_chair_who_co_organizes_cannot_decide_on_the_page(client, pending, chair):
    client.force_login(chair)
    identifier = pending.registration.identifier
    url = reverse("registry:decide-amendment", args=[identifier, pending.pk])
    response = client.post(url, {"decision": "approve", "note": ""})
    assert response.status_code == 403
    pending.refresh_from_db()
    assert pending.status == AmendmentStatus.PENDING


def test_conflicted_chair_sees_why_instead_of_the_buttons(client, pending, chair):
    client.force_login(chair)
    url = reverse("registry:amendments", args=[pending.registration.identifier])
    body = client.get(url).content.decode()
    assert f'data-decide="{pending.pk}"' not in body
    assert f'data-decide-refusal="{pending.pk}"' in body
    assert "another chair of the call (or staff) must decide" in body


def test_another_chair_of_the_call_approves(client, pending, other_chair):
    client.force_login(other_chair)
    identifier = pending.registration.identifier
    listing = client.get(reverse("registry:amendments", args=[identifier]))
    assert f'data-decide="{pending.pk}"' in listing.content.decode()
    url = reverse("registry:decide-amendment", args=[identifier, pending.pk])
    response = client.post(url, {"decision": "approve", "note": ""})
    assert response.status_code == 302
    pending.refresh_from_db()
    assert pending.status == AmendmentStatus.APPROVED
    assert pending.decided_by == other_chair


def test_staff_approves_through_the_api(pending):
    staff = UserFactory(username="staff", is_staff=True)
    response = client_for(staff).post(approve_url(pending))
    assert response.status_code == 200
    assert response.json()["status"] == "approved"


def test_staff_who_organizes_cannot_approve(pending, organizer):
    organizer.is_staff = True
    organizer.save()
    response = client_for(organizer).post(approve_url(pending))
    assert response.status_code == 403
    assert "conflict of interest" in response.json()["detail"]


def test_chair_of_the_same_institution_cannot_approve(pending, organizer, call):
    organizer.profile.institution = "Technical University of Munich"
    organizer.profile.save()
    colleague = UserFactory(
        username="colleague", profile__institution="Tech. Univ. of Munich"
    )
    call.chairs.add(colleague)
    response = client_for(colleague).post(approve_url(pending))
    assert response.status_code == 403
    assert "'Tech. Univ. of Munich'" in response.json()["detail"]
    pending.refresh_from_db()
    assert pending.status == AmendmentStatus.PENDING


def test_organizer_who_is_no_chair_still_cannot_approve(pending, organizer):
    response = client_for(organizer).post(approve_url(pending))
    assert response.status_code == 403
    assert response.json()["detail"] == (
        "Only the call's chairs (or staff) decide on this proposal's amendments."
    )


# --- registering -----------------------------------------------------------------


@pytest.fixture
def chair_of_the_same_institution(organizer, call):
    organizer.profile.institution = "Deutsches Krebsforschungszentrum"
    organizer.profile.save()
    colleague = UserFactory(
        username="colleague", profile__institution="Deutsches Krebsforschungszentrum"
    )
    call.chairs.add(colleague)
    return colleague


def test_conflicted_chair_cannot_register_through_the_api(
    accepted, chair_of_the_same_institution
):
    response = client_for(chair_of_the_same_institution).post(
        f"/api/v1/challenges/{accepted.pk}/register/"
    )
    assert response.status_code == 403
    assert response.json()["detail"].endswith(
        "another chair of the call (or staff) must register it."
    )
    accepted.refresh_from_db()
    assert accepted.status == "accepted"


def test_conflicted_chair_cannot_register_on_the_page(
    client, accepted, chair_of_the_same_institution
):
    client.force_login(chair_of_the_same_institution)
    overview = client.get(reverse("registry:overview", args=[accepted.pk]))
    assert 'id="register-proposal"' not in overview.content.decode()
    url = reverse("registry:register", args=[accepted.pk])
    assert client.get(url).status_code == 403
    assert client.post(url).status_code == 403
    accepted.refresh_from_db()
    assert accepted.status == "accepted"


def test_another_chair_registers(client, accepted, chair):
    client.force_login(chair)
    overview = client.get(reverse("registry:overview", args=[accepted.pk]))
    assert 'id="register-proposal"' in overview.content.decode()
    response = client.post(reverse("registry:register", args=[accepted.pk]))
    assert response.status_code == 302
    accepted.refresh_from_db()
    assert accepted.status == "registered"


def test_staff_registers_through_the_api(accepted):
    staff = UserFactory(username="staff", is_staff=True)
    response = client_for(staff).post(f"/api/v1/challenges/{accepted.pk}/register/")
    assert response.status_code == 201


def test_organizer_still_registers_their_accepted_design(accepted, organizer):
    response = client_for(organizer).post(f"/api/v1/challenges/{accepted.pk}/register/")
    assert response.status_code == 201
