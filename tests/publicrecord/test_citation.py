import json
import xml.etree.ElementTree as ET

import pytest

from publicrecord.citation import NAMESPACE, validate_datacite
from publicrecord.orcid import check_digit, clean_orcid
from registry.amendments import approve_amendment
from registry.models import Registration
from tests.factories import UserFactory

from .conftest import CLEAN_SCHEME, propose_more_cases, registered

pytestmark = pytest.mark.django_db
NS = {"d": NAMESPACE}
VALID_ORCID = "0000-0002-1825-0097"


@pytest.fixture
def registration(call, organizer, chair):
    organizer.first_name, organizer.last_name = "Olga", "Organa"
    organizer.save()
    return registered(
        call, organizer, chair, name="Decathlon & <Co>", scheme=CLEAN_SCHEME
    )


def datacite(api, identifier, number=None):
    path = f"/api/v1/registrations/{identifier}/"
    path += f"versions/{number}/datacite.xml" if number else "datacite.xml"
    response = api.get(path)
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/xml")
    return response.content


def test_orcid_check_digit_follows_iso_7064_11_2():
    assert check_digit("000000021825009") == "7"
    assert check_digit("000000021694233") == "X"
    assert clean_orcid("https://orcid.org/0000-0002-1694-233x") == "0000-0002-1694-233X"
    assert clean_orcid("0000000218250097") == VALID_ORCID
    assert clean_orcid("") == ""


def test_patch_me_sets_orcid_and_refuses_a_wrong_check_digit(api, organizer):
    api.force_authenticate(organizer)
    ok = api.patch("/api/v1/me/", {"orcid": VALID_ORCID}, format="json")
    assert ok.status_code == 200
    assert ok.json()["orcid"] == VALID_ORCID
    bad = api.patch("/api/v1/me/", {"orcid": "0000-0002-1825-0098"}, format="json")
    assert bad.status_code == 400
    assert "orcid" in bad.json()
    assert "check digit" in json.dumps(bad.json())
    assert api.get("/api/v1/me/").json()["orcid"] == VALID_ORCID  # unchanged
    malformed = api.patch("/api/v1/me/", {"orcid": "1234"}, format="json")
    assert malformed.status_code == 400
    assert "orcid" in malformed.json()
    not_text = api.patch("/api/v1/me/", {"orcid": False}, format="json")
    assert not_text.json() == {"orcid": ["orcid: expected text."]}
    assert api.get("/api/v1/me/").json()["orcid"] == VALID_ORCID  # unchanged
    other = api.patch("/api/v1/me/", {"email": "x@example.org"}, format="json")
    assert other.status_code == 400
    assert "email" in other.json()


def test_patch_me_is_atomic(api, organizer):
    api.force_authenticate(organizer)
    response = api.patch(
        "/api/v1/me/",
        {"first_name": "Changed", "orcid": "0000-0002-1825-0098"},
        format="json",
    )
    assert response.status_code == 400
    organizer.refresh_from_db()
    assert organizer.first_name != "Changed"


def test_me_needs_sign_in(api, db):
    assert api.patch(
        "/api/v1/me/", {"orcid": VALID_ORCID}, format="json"
    ).status_code in (
        401,
        403,
    )


def test_profile_page_shows_the_orcid_error(client, organizer):
    client.force_login(organizer)
    page = client.post(
        "/profile/", {"orcid": "0000-0002-1825-0098", "first_name": "", "last_name": ""}
    )
    assert page.status_code == 200
    assert 'data-error-for="orcid"' in page.content.decode()
    saved = client.post(
        "/profile/", {"orcid": VALID_ORCID, "first_name": "O", "last_name": "P"}
    )
    assert saved.status_code == 302
    assert api_orcid(organizer) == VALID_ORCID


def api_orcid(user):
    from publicrecord.profiles import orcid_of

    return orcid_of(user)


def test_datacite_validates_and_names_the_organizers_orcid(
    api, registration, organizer
):
    api.force_authenticate(organizer)
    api.patch("/api/v1/me/", {"orcid": VALID_ORCID}, format="json")
    api.force_authenticate(None)
    data = datacite(api, registration.identifier)
    assert validate_datacite(data) == []
    root = ET.fromstring(data)
    assert root.tag == f"{{{NAMESPACE}}}resource"
    ids = root.findall(".//d:creator/d:nameIdentifier", NS)
    assert [(i.get("nameIdentifierScheme"), i.text) for i in ids] == [
        ("ORCID", f"https://orcid.org/{VALID_ORCID}")
    ]
    assert root.find(".//d:creatorName", NS).text == "Organa, Olga"
    assert root.find(".//d:title", NS).text == "Decathlon & <Co>"
    assert root.find("d:version", NS).text == "1"
    assert registration.versions.get(number=1).sha256 in data.decode()


def test_every_version_validates_and_links_its_predecessor(
    api, registration, organizer, chair
):
    co = UserFactory(username="co")
    registration.challenge.co_organizers.add(co)  # in the next version's organizers
    approve_amendment(
        amendment=propose_more_cases(registration, organizer), actor=chair
    )
    for number in (1, 2):
        data = datacite(api, registration.identifier, number)
        assert validate_datacite(data) == [], number
    latest = ET.fromstring(datacite(api, registration.identifier))
    assert latest.find("d:version", NS).text == "2"
    related = latest.find(".//d:relatedIdentifier", NS)
    assert related.get("relationType") == "IsNewVersionOf"
    assert related.text.endswith("?version=1")
    assert len(latest.findall(".//d:creator", NS)) == 2
    assert (
        api.get(
            f"/api/v1/registrations/{registration.identifier}/versions/3/datacite.xml"
        ).status_code
        == 404
    )


def test_validation_catches_an_invalid_document(api, registration):
    data = datacite(api, registration.identifier).replace(
        b"<publicationYear>", b"<publicationYear>x"
    )
    assert validate_datacite(data)


def test_demo_registration_validates(api, demo_registered):
    for registration in Registration.objects.all():
        assert validate_datacite(datacite(api, registration.identifier)) == []


def test_csl_json_and_bibtex(api, registration):
    base = f"/api/v1/registrations/{registration.identifier}/"
    response = api.get(base + "citation.json")
    assert response["Content-Type"].startswith(
        "application/vnd.citationstyles.csl+json"
    )
    items = response.json()
    assert items[0]["title"] == "Decathlon & <Co>"
    assert items[0]["author"] == [{"family": "Organa", "given": "Olga"}]
    assert items[0]["version"] == "1"
    bib = api.get(base + "versions/1/citation.bib").content.decode()
    assert bib.startswith("@misc{miccai2027001v1,")
    assert r"Decathlon \& <Co>" in bib
    assert "author = {Organa, Olga}" in bib
    assert bib.count("{") == bib.count("}")


def test_public_page_links_the_citations(api, registration):
    page = api.get(f"/registry/{registration.identifier}/").content.decode()
    assert 'id="cite-datacite"' in page
    assert f"/api/v1/registrations/{registration.identifier}/citation.bib" in page


def test_check_datacite_command_validates_every_version(registration):
    from io import StringIO

    from django.core.management import call_command

    out = StringIO()
    call_command("check_datacite", stdout=out)
    assert out.getvalue().strip() == "1 version(s) valid."
