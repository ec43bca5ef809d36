"""Attack: a repository (or whoever answers for it) collects the Zenodo token.

The token followed the bucket host the repository returned and survived a
redirect to another host, and the returned DOI was stored as given (it goes
into DataCite). The token now goes only to ``ZENODO_URL``'s origin, no
redirect is followed, and a DOI that is not one fails the deposit.
"""

import pytest
from django.test import override_settings

from publicrecord.models import Deposit
from tests.publicrecord import zenodo_server
from tests.publicrecord.conftest import CLEAN_SCHEME, registered

pytestmark = pytest.mark.django_db


@pytest.fixture
def two_servers():
    """The configured repository and another host that records what it gets."""
    servers = [zenodo_server.start() for _ in range(2)]
    urls = [f"http://127.0.0.1:{server.server_address[1]}" for server, _ in servers]
    with override_settings(ZENODO_TOKEN=zenodo_server.TOKEN, ZENODO_URL=urls[0]):
        yield servers[0][1], servers[1][1], urls[1]
    for server, _ in servers:
        server.shutdown()
        server.server_close()


def deposit_of(call, organizer, chair) -> Deposit:
    registered(call, organizer, chair, name="Decathlon", scheme=CLEAN_SCHEME)
    return Deposit.objects.get()


def test_the_token_is_not_sent_to_another_bucket_host(
    two_servers, call, organizer, chair
):
    zenodo, elsewhere, other_url = two_servers
    zenodo.bucket_host = other_url
    deposit = deposit_of(call, organizer, chair)
    assert deposit.status == "failed"
    assert "not on the configured repository" in deposit.error
    assert elsewhere.requests == []


def test_the_token_does_not_follow_a_redirect(two_servers, call, organizer, chair):
    zenodo, elsewhere, other_url = two_servers
    zenodo.redirect_create_to = f"{other_url}/api/deposit/depositions"
    deposit = deposit_of(call, organizer, chair)
    assert deposit.status == "failed"
    assert "HTTP 307" in deposit.error
    assert "redirects are not followed" in deposit.error
    assert elsewhere.requests == []


def test_a_returned_doi_that_is_not_a_doi_fails_the_deposit(
    two_servers, call, organizer, chair
):
    zenodo, _, _ = two_servers
    zenodo.doi = '10.5072/x"><script>'
    deposit = deposit_of(call, organizer, chair)
    assert deposit.status == "failed"
    assert deposit.doi == ""
    assert "not a DOI" in deposit.error
