"""With SITE_URL set, every exported URL and e-mail link names that address."""

import json

import pytest
from django.core import mail

from publicrecord.citation import citation_record
from publicrecord.deposit import zenodo_metadata
from tests.factories import UserFactory
from tests.links import urls_in

from .conftest import CLEAN_SCHEME, registered

pytestmark = pytest.mark.django_db
SITE = "https://registry.example.org"


@pytest.fixture
def registration(call, organizer, chair, settings):
    settings.SITE_URL = SITE
    return registered(call, organizer, chair, name="Decathlon", scheme=CLEAN_SCHEME)


def exported_texts(api, registration) -> dict[str, str]:
    base = f"/api/v1/registrations/{registration.identifier}/"
    texts = {
        name: api.get(base + name).content.decode()
        for name in ("datacite.xml", "citation.json", "citation.bib")
    }
    version = registration.versions.get(number=1)
    texts["zenodo"] = json.dumps(zenodo_metadata(citation_record(version)))
    return texts


def test_every_exported_url_starts_with_site_url(api, registration):
    for name, text in exported_texts(api, registration).items():
        links = urls_in(text)
        assert links, name
        assert all(u.startswith(f"{SITE}/") for u in links), (name, links)


def test_feedback_mails_link_the_thread_under_site_url(
    api, registration, django_capture_on_commit_callbacks
):
    reader = UserFactory(username="reader")
    api.force_authenticate(reader)
    with django_capture_on_commit_callbacks(execute=True):
        response = api.post(
            f"/api/v1/registrations/{registration.identifier}/feedback/",
            {"category": "design", "text": "Case 17 has a wrong label."},
            format="json",
        )
    assert response.status_code == 201
    links = [u for m in mail.outbox for u in urls_in(m.body)]
    assert links == [f"{SITE}/registry/{registration.identifier}/feedback/"]
