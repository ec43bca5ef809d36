"""Published results on the harvesting side of the public record: their own
OAI-PMH set (harvested with sickle, `datacite` and `oai_datacite` valid
against the shipped XSDs),
IsSupplementedBy in the registered version's DataCite, and the sitemap —
never an unpublished or embargoed analysis, by any id."""

import datetime as dt

import pytest
from django.utils import timezone
from lxml import etree
from sickle import Sickle

from analysis.models import AnalysisRun
from analysis.services import start_analysis
from publicrecord.citation import (
    citation_record,
    datacite_json,
    datacite_xml,
    validate_datacite,
)
from publicrecord.oai import OAI, validate_oai_datacite
from publicrecord.publication import publish_analysis

from .publishing import analysed, exploratory_run
from .test_oai import NS, REPOSITORY, error, oai

SITE = f"https://{REPOSITORY}"
DATACITE = NS["d"]


@pytest.fixture
def site(settings):
    settings.SITE_URL = SITE
    settings.OAI_PAGE_SIZE = 2
    return settings


@pytest.fixture
def three(site, call, organizer, chair):
    """Registrations: one with a corrected result and an exploratory analysis
    alongside (three public publications), one embargoed, one unpublished."""
    public, run = analysed(call, organizer, chair, name="Public results")
    publish_analysis(run=run, actor=organizer)
    rerun = start_analysis(results=run.results, actor=organizer)
    publish_analysis(
        run=AnalysisRun.objects.get(pk=rerun.pk),
        actor=organizer,
        supersedes=1,
        note="Re-run after fixing the seed.",
    )
    exploratory = exploratory_run(public, organizer)
    publish_analysis(run=exploratory, actor=organizer, publish_as="exploratory")
    embargoed, run = analysed(call, organizer, chair, name="Embargoed results")
    day = timezone.now().date() + dt.timedelta(days=30)
    publish_analysis(run=run, actor=organizer, public_from=day)
    unpublished, _run = analysed(call, organizer, chair, name="Unpublished results")
    return public, embargoed, unpublished, day


def _id(registration, number: int) -> str:
    return f"oai:{REPOSITORY}:results/{registration.identifier}/{number}"


def _page(registration, number: int) -> str:
    return f"{SITE}/registry/{registration.identifier}/results/{number}/"


def _version(registration, number: int = 1) -> str:
    return f"{SITE}/registry/{registration.identifier}/?version={number}"


def _relations(resource) -> list[tuple[str, str]]:
    return [
        (e.get("relationType"), e.text)
        for e in resource.iter(f"{{{DATACITE}}}relatedIdentifier")
    ]


@pytest.mark.django_db(transaction=True)
def test_sickle_harvests_the_public_results_only(three, live_server):
    public, embargoed, unpublished, _day = three
    harvester = Sickle(f"{live_server.url}/oai")
    records = list(harvester.ListRecords(metadataPrefix="datacite", set="results"))
    assert [r.header.identifier for r in records] == [_id(public, n) for n in (1, 2, 3)]
    for number, record in enumerate(records, start=1):
        assert record.header.setSpecs == ["results"]
        (resource,) = record.xml.find(f".//{{{OAI}}}metadata")
        assert validate_datacite(etree.tostring(resource)) == [], record.header
        kind = resource.find(f"{{{DATACITE}}}resourceType")
        assert kind.get("resourceTypeGeneral") == "Dataset"
        identifier = resource.findtext(f"{{{DATACITE}}}identifier")
        assert identifier == _page(public, number)
        assert ("IsSupplementTo", _version(public)) in _relations(resource)
    assert ("IsNewVersionOf", _page(public, 1)) in _relations(
        records[1].xml.find(f".//{{{OAI}}}metadata")[0]
    )
    assert "Exploratory" in records[2].raw
    wrapped = list(harvester.ListRecords(metadataPrefix="oai_datacite", set="results"))
    assert [r.header.identifier for r in wrapped] == [_id(public, n) for n in (1, 2, 3)]
    for record in wrapped:
        (wrapper,) = record.xml.find(f".//{{{OAI}}}metadata")
        assert validate_oai_datacite(etree.tostring(wrapper)) == [], record.header
    everything = list(harvester.ListIdentifiers(metadataPrefix="oai_dc"))
    assert sorted(h.identifier for h in everything if ":results/" in h.identifier) == [
        _id(public, n) for n in (1, 2, 3)
    ]
    for hidden in (embargoed, unpublished):
        assert all(hidden.identifier not in r.raw for r in records)
    dublin_core = harvester.GetRecord(
        identifier=_id(public, 1), metadataPrefix="oai_dc"
    )
    assert dublin_core.metadata["identifier"] == [_page(public, 1)]
    assert dublin_core.metadata["type"][0] == "Dataset"


@pytest.mark.django_db
def test_unpublished_or_embargoed_analysis_is_no_record_by_any_id(client, three):
    _public, embargoed, unpublished, _day = three
    runs = AnalysisRun.objects.filter(
        results__registration__in=[embargoed, unpublished]
    ).values_list("pk", flat=True)
    for registration in (embargoed, unpublished):
        for number in (1, 2, *runs):
            for verb in ("GetRecord", "ListMetadataFormats"):
                root = oai(
                    client,
                    verb=verb,
                    identifier=_id(registration, number),
                    **({"metadataPrefix": "oai_dc"} if verb == "GetRecord" else {}),
                )
                assert error(root)[0] == "idDoesNotExist", (registration, number)
    listed = oai(client, verb="ListIdentifiers", metadataPrefix="oai_dc", set="results")
    identifiers = [e.text for e in listed.iter(f"{{{OAI}}}identifier")]
    assert identifiers
    assert not any(
        r.identifier in i for r in (embargoed, unpublished) for i in identifiers
    )


@pytest.mark.django_db
def test_embargoed_result_appears_from_its_public_day(client, three, monkeypatch):
    _public, embargoed, _unpublished, day = three
    version = embargoed.versions.get()
    assert "IsSupplementedBy" not in datacite_xml(citation_record(version)).decode()

    def listed(**dates) -> dict[str, str]:
        root = oai(client, verb="ListIdentifiers", metadataPrefix="oai_dc", **dates)
        return {
            h.findtext("o:identifier", namespaces=NS): h.findtext(
                "o:datestamp", namespaces=NS
            )
            for h in root.iter(f"{{{OAI}}}header")
        }

    noon = dt.datetime.combine(day, dt.time(12), tzinfo=dt.UTC)
    monkeypatch.setattr(timezone, "now", lambda: noon)
    since = {"from": day.isoformat(), "set": "results"}
    assert listed(**since) == {_id(embargoed, 1): f"{day.isoformat()}T00:00:00Z"}
    # the version it supplements changed that day too: harvesters see it again
    versions = listed(**{"from": day.isoformat(), "set": "registrations"})
    assert versions == {
        f"oai:{REPOSITORY}:registrations/{embargoed.identifier}/v1": (
            f"{day.isoformat()}T00:00:00Z"
        )
    }
    sitemap = client.get("/sitemap-results-1.xml").content.decode()
    assert f"<loc>{_page(embargoed, 1)}</loc>" in sitemap
    assert f"<lastmod>{day.isoformat()}</lastmod>" in sitemap
    relations = datacite_json(citation_record(version))["relatedIdentifiers"]
    assert {
        "relatedIdentifier": _page(embargoed, 1),
        "relatedIdentifierType": "URL",
        "relationType": "IsSupplementedBy",
    } in relations


@pytest.mark.django_db
def test_registered_version_is_supplemented_by_its_current_public_result(three):
    public, embargoed, unpublished, _day = three
    data = datacite_xml(citation_record(public.versions.get()))
    assert validate_datacite(data) == []
    supplemented = [
        url
        for relation, url in _relations(etree.fromstring(data))
        if relation == "IsSupplementedBy"
    ]
    # the correction, not what it superseded nor the exploratory analysis
    assert supplemented == [_page(public, 2)]
    for hidden in (embargoed, unpublished):
        record = citation_record(hidden.versions.get())
        assert record.supplemented_by == ()
        assert "IsSupplementedBy" not in datacite_xml(record).decode()


SM = {"s": "http://www.sitemaps.org/schemas/sitemap/0.9"}


@pytest.mark.django_db
def test_sitemap_lists_the_public_results_pages_never_embargoed(
    client, three, settings
):
    public, embargoed, unpublished, _day = three
    settings.SITEMAP_PAGE_SIZE = 2  # three public publications: two files
    index = etree.fromstring(client.get("/sitemap.xml").content)
    files = [e.text for e in index.iterfind(".//s:loc", SM)]
    assert files[-2:] == [f"{SITE}/sitemap-results-{n}.xml" for n in (1, 2)]
    pages, modified = [], []
    for n in (1, 2):
        response = client.get(f"/sitemap-results-{n}.xml")
        assert response.status_code == 200
        urlset = etree.fromstring(response.content)
        pages += [e.text for e in urlset.iterfind(".//s:loc", SM)]
        modified += [e.text for e in urlset.iterfind(".//s:lastmod", SM)]
    assert pages == [_page(public, n) for n in (1, 2, 3)]
    assert modified == [
        p.created.date().isoformat() for p in public.publications.order_by("pk")
    ]
    assert client.get("/sitemap-results-3.xml").status_code == 404
    for hidden in (embargoed, unpublished):
        assert not any(hidden.identifier in page for page in pages)
    for page in pages:  # each listed page answers anonymously
        assert client.get(page.removeprefix(SITE)).status_code == 200


@pytest.mark.django_db
def test_embargoed_correction_changes_nothing_public_before_its_day(
    client, site, call, organizer, chair
):
    registration, run = analysed(call, organizer, chair, name="Corrected later")
    publish_analysis(run=run, actor=organizer)
    rerun = start_analysis(results=run.results, actor=organizer)
    day = timezone.now().date() + dt.timedelta(days=10)
    publish_analysis(
        run=AnalysisRun.objects.get(pk=rerun.pk),
        actor=organizer,
        supersedes=1,
        note="Corrected seed.",
        public_from=day,
    )
    version = registration.versions.get()
    assert citation_record(version).supplemented_by == (_page(registration, 1),)
    root = oai(
        client,
        verb="GetRecord",
        metadataPrefix="oai_datacite",
        identifier=_id(registration, 2),
    )
    assert error(root)[0] == "idDoesNotExist"
    listed = oai(client, verb="ListIdentifiers", metadataPrefix="oai_dc", set="results")
    assert [e.text for e in listed.iter(f"{{{OAI}}}identifier")] == [
        _id(registration, 1)
    ]
    assert _page(registration, 2) not in client.get("/sitemap-results-1.xml").text
