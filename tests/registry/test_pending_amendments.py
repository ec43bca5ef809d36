"""A pending amendment waits for the call's chairs (issue 28): it is on the
call dashboard and the calls list, and the chairs get an e-mail when it is
proposed (after the commit only)."""

import pytest
from django.core import mail
from django.urls import reverse

from registry.amendments import propose_amendment, reject_amendment
from registry.registration import register_challenge
from registry.selectors import pending_amendments
from tests.factories import CallFactory, UserFactory
from tests.registry.helpers import proposal_with_scheme
from tests.schemes import SIGNIFICANCE_SCHEME

pytestmark = pytest.mark.django_db

CHANGE = {"tasks": {"Brain": {"scheme": {**SIGNIFICANCE_SCHEME, "ties": "max"}}}}


@pytest.fixture
def registration(call, organizer, chair):
    challenge = proposal_with_scheme(call, organizer, SIGNIFICANCE_SCHEME)
    challenge.status = "accepted"
    challenge.save()
    return register_challenge(challenge=challenge, actor=chair)


def propose(registration, organizer):
    return propose_amendment(
        registration=registration,
        actor=organizer,
        justification="Ties <b>as</b> the worst rank.",
        changes=CHANGE,
    )


def test_proposing_mails_the_chairs_of_the_call_after_the_commit(
    registration, organizer, chair, django_capture_on_commit_callbacks
):
    chair.email = "chair@example.org"
    chair.save()
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        propose(registration, organizer)
    assert mail.outbox == []  # nothing leaves before the commit
    for callback in callbacks:
        callback()
    [sent] = mail.outbox
    assert sent.to == ["chair@example.org"]
    assert registration.identifier in sent.subject
    assert "Ties <b>as</b> the worst rank." in sent.body  # plain text, as typed
    assert reverse("registry:amendments", args=[registration.identifier]) in sent.body


def test_call_dashboard_lists_pending_amendments_until_decided(
    client, registration, organizer, chair
):
    amendment = propose(registration, organizer)
    client.force_login(chair)
    url = reverse("reviews:call", args=[registration.challenge.call.pk])
    body = client.get(url).content.decode()
    assert f'data-amendment="{amendment.pk}"' in body
    assert reverse("registry:amendments", args=[registration.identifier]) in body
    assert "Ties &lt;b&gt;as&lt;/b&gt;" in body  # escaped
    reject_amendment(amendment=amendment, actor=chair, note="No.")
    assert 'id="amendments"' not in client.get(url).content.decode()


def test_calls_list_counts_pending_amendments_per_call(
    client, registration, organizer, chair
):
    other = CallFactory(slug="isbi-2028", title="ISBI 2028")
    other.chairs.add(chair)
    propose(registration, organizer)
    client.force_login(chair)
    body = client.get(reverse("reviews:calls")).content.decode()
    assert body.count("data-pending-amendments=") == 1
    assert 'data-pending-amendments="1"' in body
    assert "1 amendment to decide" in body


def test_pending_amendments_are_those_of_the_given_calls(registration, organizer, call):
    amendment = propose(registration, organizer)
    other = CallFactory(slug="isbi-2028")
    assert list(pending_amendments([call])) == [amendment]
    assert list(pending_amendments([other])) == []
    stranger = UserFactory()
    assert list(pending_amendments(stranger.chaired_calls.all())) == []
