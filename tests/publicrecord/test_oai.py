"""OAI-PMH 2.0 at /oai: harvested by a real harvester (sickle) across
resumption tokens, datacite records valid against the shipped XSD, and the
protocol's errors as the protocol says."""

import datetime as dt

import pytest
from lxml import etree
from sickle import Sickle, oaiexceptions

from publicrecord.citation import NAMESPACE as DATACITE
from publicrecord.citation import validate_datacite
from publicrecord.oai import OAI
from registry.amendments import approve_amendment
from tests.factories import ChallengeFactory

from .conftest import CLEAN_SCHEME, propose_more_cases, registered

NS = {"o": OAI, "d": DATACITE, "dc": "http://purl.org/dc/elements/1.1/"}
REPOSITORY = "registry.example.org"


@pytest.fixture
def oai_settings(settings):
    settings.SITE_URL = f"https://{REPOSITORY}"
    settings.OAI_PAGE_SIZE = 2
    return settings


@pytest.fixture
def five_versions(oai_settings, call, organizer, chair):
    """Four registrations, one amended (five versions), and a draft."""
    registrations = [
        registered(call, organizer, chair, name=f"Challenge {n}", scheme=CLEAN_SCHEME)
        for n in range(4)
    ]
    approve_amendment(
        amendment=propose_more_cases(registrations[0], organizer), actor=chair
    )
    ChallengeFactory(call=call, owner=organizer, name="Secret draft")
    return [
        f"oai:{REPOSITORY}:registrations/{r.identifier}/v{n}"
        for r in registrations
        for n in range(1, r.versions.count() + 1)
    ]


# --- a real harvester ------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_sickle_harvests_every_record_across_resumption_tokens(
    five_versions, live_server
):
    harvester = Sickle(f"{live_server.url}/oai")
    records = list(harvester.ListRecords(metadataPrefix="oai_datacite"))
    assert sorted(r.header.identifier for r in records) == sorted(five_versions)
    for record in records:
        (resource,) = record.xml.find(f".//{{{OAI}}}metadata")
        assert validate_datacite(etree.tostring(resource)) == [], record.header
    assert all("Secret draft" not in r.raw for r in records)

    dublin_core = list(harvester.ListRecords(metadataPrefix="oai_dc"))
    titles = {r.metadata["title"][0] for r in dublin_core}
    assert titles == {f"Challenge {n}" for n in range(4)}
    headers = list(harvester.ListIdentifiers(metadataPrefix="oai_dc"))
    assert sorted(h.identifier for h in headers) == sorted(five_versions)
    assert [s.setSpec for s in harvester.ListSets()] == ["registrations", "results"]
    identify = harvester.Identify()
    assert identify.baseURL == f"https://{REPOSITORY}/oai"
    assert identify.protocolVersion == "2.0"
    got = harvester.GetRecord(identifier=five_versions[0], metadataPrefix="oai_dc")
    assert got.metadata["identifier"][0].startswith(f"https://{REPOSITORY}/registry/")
    with pytest.raises(oaiexceptions.IdDoesNotExist):
        harvester.GetRecord(
            identifier=f"oai:{REPOSITORY}:registrations/nope/v1",
            metadataPrefix="oai_dc",
        )
    with pytest.raises(oaiexceptions.CannotDisseminateFormat):
        list(harvester.ListRecords(metadataPrefix="marc21"))


# --- the protocol, request by request --------------------------------------------


def oai(client, **params) -> etree._Element:
    response = client.get("/oai", params)
    assert response.status_code == 200
    assert response["Content-Type"] == "text/xml; charset=utf-8"
    return etree.fromstring(response.content)


def error(root) -> tuple[str, dict]:
    (element,) = root.findall("o:error", NS)
    return element.get("code"), dict(root.find("o:request", NS).attrib)


@pytest.mark.django_db
def test_protocol_errors_answer_as_the_protocol_says(client, five_versions):
    token_of_identifiers = oai(
        client, verb="ListIdentifiers", metadataPrefix="oai_dc"
    ).findtext(".//o:resumptionToken", namespaces=NS)
    cases = [
        ({}, "badVerb"),
        ({"verb": "Harvest"}, "badVerb"),
        ({"verb": ["Identify", "Identify"]}, "badVerb"),
        ({"verb": "Identify", "extra": "1"}, "badArgument"),
        ({"verb": "ListRecords"}, "badArgument"),
        (
            {"verb": "ListRecords", "metadataPrefix": ["oai_dc", "oai_dc"]},
            "badArgument",
        ),
        (
            {"verb": "ListRecords", "metadataPrefix": "oai_dc", "from": "2026-13-01"},
            "badArgument",
        ),
        (
            {
                "verb": "ListRecords",
                "metadataPrefix": "oai_dc",
                "from": "2026-01-02",
                "until": "2026-01-01",
            },
            "badArgument",
        ),
        (
            {
                "verb": "ListRecords",
                "metadataPrefix": "oai_dc",
                "from": "2026-01-01",
                "until": "2026-01-02T00:00:00Z",
            },
            "badArgument",
        ),
        (
            {
                "verb": "ListRecords",
                "metadataPrefix": "oai_dc",
                "resumptionToken": token_of_identifiers,
            },
            "badArgument",
        ),
        ({"verb": "GetRecord", "identifier": five_versions[0]}, "badArgument"),
        ({"verb": "Harvest\x01"}, "badVerb"),
        (
            {
                "verb": "GetRecord",
                "identifier": "oai:\x00x",
                "metadataPrefix": "oai_dc",
            },
            "badArgument",
        ),
        ({"verb": "ListRecords", "metadataPrefix": "oai_dc\x1b"}, "badArgument"),
        ({"verb": "Identify", "extra\x01": "1"}, "badArgument"),
        (
            {"verb": "ListRecords", "metadataPrefix": "marc21"},
            "cannotDisseminateFormat",
        ),
        (
            {
                "verb": "GetRecord",
                "identifier": five_versions[0],
                "metadataPrefix": "x",
            },
            "cannotDisseminateFormat",
        ),
        (
            {
                "verb": "GetRecord",
                "identifier": "oai:other.org:registrations/a/v1",
                "metadataPrefix": "oai_dc",
            },
            "idDoesNotExist",
        ),
        (
            {
                "verb": "GetRecord",
                "identifier": five_versions[0] + "9",
                "metadataPrefix": "oai_dc",
            },
            "idDoesNotExist",
        ),
        ({"verb": "ListMetadataFormats", "identifier": "oai:x"}, "idDoesNotExist"),
        ({"verb": "ListRecords", "resumptionToken": "forged"}, "badResumptionToken"),
        (
            {"verb": "ListRecords", "resumptionToken": token_of_identifiers},
            "badResumptionToken",
        ),
        ({"verb": "ListSets", "resumptionToken": "x"}, "badResumptionToken"),
        (
            {"verb": "ListRecords", "metadataPrefix": "oai_dc", "from": "2999-01-01"},
            "noRecordsMatch",
        ),
        (
            {"verb": "ListIdentifiers", "metadataPrefix": "oai_dc", "set": "drafts"},
            "noRecordsMatch",
        ),
    ]
    for params, code in cases:
        got, request = error(oai(client, **params))
        assert got == code, params
        if code in ("badVerb", "badArgument"):
            assert request == {}, params  # only the base URL is echoed
        else:
            assert request["verb"] == params["verb"], params


@pytest.mark.django_db
def test_from_and_until_select_by_datestamp(client, five_versions):
    def listed(**dates) -> list[str]:
        root = oai(client, verb="ListIdentifiers", metadataPrefix="oai_dc", **dates)
        if root.find("o:error", NS) is not None:
            return []
        return [
            h.findtext("o:identifier", namespaces=NS)
            for h in root.iter(f"{{{OAI}}}header")
        ]

    today = dt.datetime.now(dt.UTC).date()
    assert len(listed(**{"from": today.isoformat()})) == 2  # a first page
    assert listed(until=(today - dt.timedelta(days=1)).isoformat()) == []
    assert listed(**{"from": (today + dt.timedelta(days=1)).isoformat()}) == []
    stamps = [
        e.text
        for e in oai(client, verb="ListIdentifiers", metadataPrefix="oai_dc").iter(
            f"{{{OAI}}}datestamp"
        )
    ]
    # seconds granularity, inclusive at both ends
    assert listed(**{"from": stamps[0], "until": stamps[0]})


@pytest.mark.django_db
def test_identify_formats_and_sets(client, five_versions):
    identify = oai(client, verb="Identify").find("o:Identify", NS)
    assert identify.findtext("o:granularity", namespaces=NS) == "YYYY-MM-DDThh:mm:ssZ"
    assert identify.findtext("o:deletedRecord", namespaces=NS) == "no"
    formats = oai(client, verb="ListMetadataFormats", identifier=five_versions[0])
    assert [p.text for p in formats.iter(f"{{{OAI}}}metadataPrefix")] == [
        "oai_dc",
        "oai_datacite",
    ]
    page = oai(client, verb="ListRecords", metadataPrefix="oai_dc")
    token = page.find(".//o:resumptionToken", NS)
    assert token.get("completeListSize") == "5"
    assert token.get("cursor") == "0"


@pytest.mark.django_db
def test_post_is_answered_like_get(client, five_versions):
    response = client.post("/oai", {"verb": "Identify"})
    assert response.status_code == 200
    assert etree.fromstring(response.content).find("o:Identify", NS) is not None
