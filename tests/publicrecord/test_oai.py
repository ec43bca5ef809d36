"""OAI-PMH 2.0 at /oai: harvested by a real harvester (sickle) across
resumption tokens, `oai_datacite` (the DataCite OAI 1.1 wrapper) and
`datacite` (the bare kernel) records valid against the shipped XSDs, and the
protocol's errors as the protocol says."""

import datetime as dt

import pytest
from lxml import etree
from sickle import Sickle, oaiexceptions

from config.checks import check_datacite_client_id
from publicrecord.citation import NAMESPACE as DATACITE
from publicrecord.citation import validate_datacite
from publicrecord.oai import OAI, OAI_DATACITE, validate_oai_datacite
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
    wrapped = {}
    for record in records:
        (wrapper,) = record.xml.find(f".//{{{OAI}}}metadata")
        assert validate_oai_datacite(etree.tostring(wrapper)) == [], record.header
        (resource,) = wrapper.find(f"{{{OAI_DATACITE}}}payload")
        wrapped[record.header.identifier] = etree.tostring(resource)
    assert all("Secret draft" not in r.raw for r in records)
    bare = list(harvester.ListRecords(metadataPrefix="datacite"))
    assert sorted(r.header.identifier for r in bare) == sorted(five_versions)
    for record in bare:
        (resource,) = record.xml.find(f".//{{{OAI}}}metadata")
        assert validate_datacite(etree.tostring(resource)) == [], record.header
        # the same record, bare or wrapped
        assert etree.tostring(resource) == wrapped[record.header.identifier]

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
    assert [
        (
            f.findtext("o:metadataPrefix", namespaces=NS),
            f.findtext("o:schema", namespaces=NS),
            f.findtext("o:metadataNamespace", namespaces=NS),
        )
        for f in formats.iter(f"{{{OAI}}}metadataFormat")
    ] == [
        (
            "oai_dc",
            "http://www.openarchives.org/OAI/2.0/oai_dc.xsd",
            "http://www.openarchives.org/OAI/2.0/oai_dc/",
        ),
        (
            "oai_datacite",
            "http://schema.datacite.org/oai/oai-1.1/oai.xsd",
            "http://schema.datacite.org/oai/oai-1.1/",
        ),
        (
            "datacite",
            "http://schema.datacite.org/meta/kernel-4.6/metadata.xsd",
            "http://datacite.org/schema/kernel-4",
        ),
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


@pytest.mark.django_db
def test_oai_datacite_wraps_the_kernel_with_the_configured_repository(
    client, five_versions, settings
):
    settings.DATACITE_CLIENT_ID = "TIB.EXAMPLE"
    root = oai(
        client,
        verb="GetRecord",
        metadataPrefix="oai_datacite",
        identifier=five_versions[0],
    )
    (wrapper,) = root.find(".//o:metadata", NS)
    assert wrapper.tag == f"{{{OAI_DATACITE}}}oai_datacite"
    assert validate_oai_datacite(etree.tostring(wrapper)) == []
    w = {"w": OAI_DATACITE}
    assert wrapper.findtext("w:datacentreSymbol", namespaces=w) == "TIB.EXAMPLE"
    assert wrapper.findtext("w:schemaVersion", namespaces=w) == "4.6"
    (resource,) = wrapper.find("w:payload", w)
    assert resource.tag == f"{{{DATACITE}}}resource"


def test_validate_oai_datacite_names_a_bad_wrapper_and_a_bad_payload():
    bare = f'<resource xmlns="{DATACITE}"/>'.encode()
    assert validate_oai_datacite(bare) == [
        f"line 1: Element '{{{DATACITE}}}resource': No matching global "
        "declaration available for the validation root."
    ]
    empty_payload = (
        f'<oai_datacite xmlns="{OAI_DATACITE}"><schemaVersion>4.6</schemaVersion>'
        "<datacentreSymbol/><payload/></oai_datacite>"
    ).encode()
    assert validate_oai_datacite(empty_payload) == ["payload holds 0 elements, not 1."]
    bad_payload = empty_payload.replace(
        b"<payload/>", b"<payload>" + bare + b"</payload>"
    )
    (error,) = validate_oai_datacite(bad_payload)
    assert error.startswith(
        f"line 1: Element '{{{DATACITE}}}resource': Missing child element(s)."
    )


@pytest.mark.parametrize(
    ("value", "refused"),
    [
        ("", False),
        ("TIB.EXAMPLE", False),
        ("CERN.ZENODO", False),
        ("DELFT.DATA4TU", False),
        ("ZENODO", True),
        ("TIB EXAMPLE", True),
        ("TIB.EXAMPLE\n", True),
        ("<TIB.EXAMPLE>", True),
    ],
)
def test_datacite_client_id_must_be_a_repository_id(settings, value, refused):
    settings.DATACITE_CLIENT_ID = value
    errors = check_datacite_client_id(None)
    expected = [f"DATACITE_CLIENT_ID {value!r} is not a DataCite repository ID."]
    assert [e.msg for e in errors] == (expected if refused else [])
    assert [e.id for e in errors] == (["registry.E001"] if refused else [])
