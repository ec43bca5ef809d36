import xml.etree.ElementTree as ET

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import override_settings

from publicrecord.citation import NAMESPACE, validate_datacite
from publicrecord.deposit import deposit_version
from publicrecord.models import Deposit

from . import zenodo_server
from .conftest import CLEAN_SCHEME, registered

pytestmark = pytest.mark.django_db


@pytest.fixture
def zenodo():
    server, state = zenodo_server.start()
    url = f"http://127.0.0.1:{server.server_address[1]}"
    with override_settings(ZENODO_TOKEN=zenodo_server.TOKEN, ZENODO_URL=url):
        yield state
    server.shutdown()
    server.server_close()


def test_off_by_default(call, organizer, chair):
    registered(call, organizer, chair, name="Quiet", scheme=CLEAN_SCHEME)
    assert not Deposit.objects.exists()
    with pytest.raises(CommandError, match="ZENODO_TOKEN"):
        call_command("deposit_registrations")


def test_new_version_is_deposited_with_pdf_metadata_and_doi(
    api, zenodo, call, organizer, chair
):
    registration = registered(
        call, organizer, chair, name="Decathlon", scheme=CLEAN_SCHEME
    )
    deposit = Deposit.objects.get()
    assert deposit.status == "done"
    assert deposit.doi == "10.5072/zenodo.1"
    [deposition] = zenodo.depositions.values()
    assert deposition["published"] is True
    files = deposition["files"]
    assert sorted(files) == [
        "miccai-2027-001-v1-canonical.json",
        "miccai-2027-001-v1-datacite.xml",
        "miccai-2027-001-v1-design.pdf",
    ]
    assert files["miccai-2027-001-v1-design.pdf"].startswith(b"%PDF")
    assert validate_datacite(files["miccai-2027-001-v1-datacite.xml"]) == []
    metadata = deposition["metadata"]
    assert metadata["title"].startswith("Decathlon")
    assert metadata["creators"][0]["name"] == "olga"
    assert metadata["version"] == "1"
    # the DOI becomes the version's DataCite identifier
    xml = api.get(
        f"/api/v1/registrations/{registration.identifier}/datacite.xml"
    ).content
    identifier = ET.fromstring(xml).find(f"{{{NAMESPACE}}}identifier")
    assert identifier.get("identifierType") == "DOI"
    assert identifier.text == "10.5072/zenodo.1"
    assert validate_datacite(xml) == []


def test_a_failed_publish_is_resumed_without_a_second_deposition(
    zenodo, call, organizer, chair
):
    zenodo.fail_publish = 1
    registered(call, organizer, chair, name="Flaky", scheme=CLEAN_SCHEME)
    deposit = Deposit.objects.get()
    assert deposit.status == "failed"
    assert "HTTP 500" in deposit.error
    call_command("deposit_registrations")
    deposit.refresh_from_db()
    assert deposit.status == "done"
    assert deposit.attempts == 2
    assert len(zenodo.depositions) == 1  # resumed, not created again
    assert deposit_version(deposit.version_id).attempts == 2  # published: left alone


def test_a_wrong_token_is_recorded_as_a_failure(zenodo, call, organizer, chair):
    with override_settings(ZENODO_TOKEN="wrong"):
        registered(call, organizer, chair, name="Denied", scheme=CLEAN_SCHEME)
    deposit = Deposit.objects.get()
    assert deposit.status == "failed"
    assert "HTTP 401" in deposit.error
    assert zenodo.depositions == {}
