import json
import xml.etree.ElementTree as ET

import pytest

from publicrecord.citation import NAMESPACE, validate_datacite
from publicrecord.orcid import check_digit, clean_orcid
from publicrecord.profiles import set_verified_orcid
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


def test_datacite_validates_and_names_the_organizers_orcid(api, call, organizer, chair):
    organizer.first_name, organizer.last_name = "Olga", "Organa"
    organizer.save()
    set_verified_orcid(organizer, VALID_ORCID)  # as sign-in with ORCID does
    # the iD the profile holds at registration is frozen with the version
    registration = registered(
        call, organizer, chair, name="Decathlon & <Co>", scheme=CLEAN_SCHEME
    )
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
    first = ET.fromstring(datacite(api, registration.identifier, 1))
    assert [
        (r.get("relationType"), r.text.rsplit("=", 1)[1])
        for r in first.findall(".//d:relatedIdentifier", NS)
    ] == [("IsPreviousVersionOf", "2")]
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
    assert f"/api/v1/registrations/{registration.identifier}/datacite.json" in page
    assert f"/api/v1/registrations/{registration.identifier}/citation.bib" in page


def test_check_datacite_command_validates_every_version(registration):
    from io import StringIO

    from django.core.management import call_command

    out = StringIO()
    call_command("check_datacite", stdout=out)
    assert out.getvalue().strip() == "1 version(s) valid."


def exports(api, identifier, number) -> list[bytes]:
    base = f"/api/v1/registrations/{identifier}/versions/{number}/"
    names = ("datacite.xml", "citation.json", "citation.bib")
    return [api.get(base + name).content for name in names]


def test_a_registered_versions_citation_survives_profile_edits(
    api, registration, organizer, chair
):
    before = exports(api, registration.identifier, 1)
    assert b"Organa" in before[2]
    organizer.first_name, organizer.last_name = "Olga", "Skywalker"
    organizer.save()
    set_verified_orcid(organizer, VALID_ORCID)  # as sign-in with ORCID does
    assert exports(api, registration.identifier, 1) == before
    # the next version is registered with the profile as it is then
    approve_amendment(
        amendment=propose_more_cases(registration, organizer), actor=chair
    )
    latest = exports(api, registration.identifier, 2)
    assert b"Skywalker" in latest[2]
    assert b"Organa" not in latest[2]
    assert VALID_ORCID.encode() in latest[0]
    # version 1 now also names its successor (IsPreviousVersionOf), nothing else
    after = exports(api, registration.identifier, 1)
    assert after[1:] == before[1:]
    assert b"IsPreviousVersionOf" in after[0]
    assert b"Skywalker" not in after[0]


def test_frozen_citations_cannot_be_changed(registration):
    from publicrecord.models import FrozenCitation, FrozenCitationError

    frozen = FrozenCitation.objects.get(version__registration=registration)
    assert frozen.creators[0]["family"] == "Organa"
    frozen.creators = []
    with pytest.raises(FrozenCitationError):
        frozen.save()
    with pytest.raises(FrozenCitationError):
        FrozenCitation.objects.all().update(creators=[])


@pytest.mark.django_db(transaction=True)
def test_migration_freezes_existing_versions_from_todays_profiles(
    call, organizer, chair
):
    from django.core.management import call_command

    from publicrecord.models import FrozenCitation

    organizer.first_name, organizer.last_name = "Olga", "Organa"
    organizer.save()
    registration = registered(call, organizer, chair, name="Old", scheme=CLEAN_SCHEME)
    call_command("migrate", "publicrecord", "0002_deposit", verbosity=0)
    call_command("migrate", "publicrecord", verbosity=0)
    frozen = FrozenCitation.objects.get(version__registration=registration)
    assert frozen.creators == [
        {
            "name": "Organa, Olga",
            "given": "Olga",
            "family": "Organa",
            "orcid": "",
            "affiliation": organizer.profile.institution,
        }
    ]


def test_datacite_json_says_what_the_xml_says(api, registration, organizer, chair):
    from publicrecord.citation import datacite_xml_from

    approve_amendment(
        amendment=propose_more_cases(registration, organizer), actor=chair
    )
    base = f"/api/v1/registrations/{registration.identifier}/"
    for path in ("datacite.json", "versions/1/datacite.json"):
        response = api.get(base + path)
        assert response.status_code == 200
        assert response["Content-Type"].startswith("application/vnd.datacite")
        body = response.json()
        attributes = body["data"]["attributes"]
        assert body["data"]["type"] == "dois"
        # the JSON, written as XML, is byte for byte the XML export
        xml = datacite_xml_from(attributes)
        assert xml == datacite(api, registration.identifier, 2 if path[0] == "d" else 1)
        assert validate_datacite(xml) == []
    assert attributes["creators"][0]["familyName"] == "Organa"
    assert attributes["relatedIdentifiers"][0]["relationType"] == "IsPreviousVersionOf"
    assert api.get(base + "versions/3/datacite.json").status_code == 404


def test_versions_written_in_bulk_are_frozen_on_first_citation():
    """`registry.seeding` writes versions without signals (benchmarks)."""
    from publicrecord.citation import citation_record
    from publicrecord.models import FrozenCitation
    from registry.models import RegistrationVersion
    from registry.seeding import seed_registry

    seed_registry(2, seed=3)
    assert not FrozenCitation.objects.exists()
    version = RegistrationVersion.objects.first()
    owner = version.registration.challenge.owner
    first = citation_record(version)
    owner.last_name = "Renamed"
    owner.save()
    version = RegistrationVersion.objects.get(pk=version.pk)
    assert citation_record(version).creators == first.creators
    assert FrozenCitation.objects.count() == 1
