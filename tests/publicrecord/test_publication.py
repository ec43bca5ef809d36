"""Publishing an analysis as the challenge's result (issue 27, item 1)."""

import datetime
import hashlib
import json

import lxml.html
import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.urls import reverse
from django.utils import timezone

from analysis.models import AnalysisStatus
from audit.models import AuditEvent
from publicrecord.models import Publication
from publicrecord.publication import publish_analysis
from publicrecord.selectors import current_results, published_results
from tests.factories import UserFactory
from tests.publicrecord.publishing import analysed, exploratory_run

pytestmark = pytest.mark.django_db


def _today():
    return timezone.now().date()


@pytest.fixture
def analysis(call, organizer, chair):
    return analysed(call, organizer, chair)


def test_publish_result_records_hashes_and_audit(analysis, organizer):
    _registration, run = analysis
    publication = publish_analysis(run=run, actor=organizer)
    assert (publication.number, publication.exploratory) == (1, False)
    assert publication.version == run.results.registration_version
    assert publication.results_sha256 == run.results.sha256
    assert publication.report_sha256 == run.report_sha256
    event = AuditEvent.objects.get(action="publication.publish")
    assert event.target_id == str(publication.pk)
    assert event.details["analysis"] == run.pk
    assert list(published_results()) == [publication]


def test_chair_publishes_and_other_user_is_refused(analysis, chair):
    _registration, run = analysis
    with pytest.raises(PermissionDenied):
        publish_analysis(run=run, actor=UserFactory())
    assert not Publication.objects.exists()
    assert publish_analysis(run=run, actor=chair).published_by == chair


def test_unfinished_run_is_refused(analysis, organizer):
    _registration, run = analysis
    run.status = AnalysisStatus.FAILED
    run.save()
    with pytest.raises(ValidationError) as refused:
        publish_analysis(run=run, actor=organizer)
    assert refused.value.message_dict["analysis"] == [
        f"Analysis {run.pk} is failed; only a finished analysis can be published."
    ]
    assert not AuditEvent.objects.filter(action="publication.publish").exists()


def test_exploratory_run_cannot_be_the_result(analysis, organizer):
    registration, _run = analysis
    exploratory = exploratory_run(registration, organizer)
    with pytest.raises(ValidationError) as refused:
        publish_analysis(run=exploratory, actor=organizer)
    assert (
        "cannot be the challenge's result"
        in refused.value.message_dict["publish_as"][0]
    )
    with pytest.raises(ValidationError) as first:
        publish_analysis(run=exploratory, actor=organizer, publish_as="exploratory")
    assert "publish the analysis of the registered scheme first" in str(first.value)
    assert not Publication.objects.exists()


def test_exploratory_published_alongside_result(analysis, organizer, client):
    registration, run = analysis
    publish_analysis(run=run, actor=organizer)
    exploratory = exploratory_run(registration, organizer)
    alongside = publish_analysis(
        run=exploratory, actor=organizer, publish_as="exploratory"
    )
    assert (alongside.number, alongside.exploratory) == (2, True)
    page = client.get(
        reverse("publicrecord:results-version", args=[registration.identifier, 2])
    )
    assert "NOT PRE-REGISTERED" in page.content.decode()
    latest = client.get(reverse("publicrecord:results", args=[registration.identifier]))
    assert latest.context["publication"].number == 1  # the result, not exploratory


def test_second_result_must_be_a_correction_with_a_note(analysis, organizer):
    registration, run = analysis
    first = publish_analysis(run=run, actor=organizer)
    rerun = exploratory_run(registration, organizer)  # any other finished run
    rerun.exploratory = False
    rerun.save()
    with pytest.raises(ValidationError) as again:
        publish_analysis(run=rerun, actor=organizer)
    assert (
        "already published (publication 1)" in again.value.message_dict["supersedes"][0]
    )
    with pytest.raises(ValidationError) as silent:
        publish_analysis(run=rerun, actor=organizer, supersedes=1)
    assert "write a note" in silent.value.message_dict["note"][0]
    correction = publish_analysis(
        run=rerun, actor=organizer, supersedes=1, note="Wrong results version."
    )
    assert correction.supersedes == first
    with pytest.raises(ValidationError) as stale:
        publish_analysis(run=run, actor=organizer, supersedes=1, note="x")
    assert "already superseded by publication 2" in str(stale.value)
    assert list(current_results()) == [correction]
    assert list(published_results()) == [first, correction]  # both readable


def test_corrected_publication_stays_readable(analysis, organizer, client):
    registration, run = analysis
    publish_analysis(run=run, actor=organizer)
    rerun = exploratory_run(registration, organizer)
    rerun.exploratory = False
    rerun.save()
    publish_analysis(run=rerun, actor=organizer, supersedes=1, note="Fixed a typo.")
    old = client.get(
        reverse("publicrecord:results-version", args=[registration.identifier, 1])
    )
    assert old.status_code == 200
    assert 'id="superseded-by"' in old.content.decode()
    new = client.get(reverse("publicrecord:results", args=[registration.identifier]))
    assert new.context["publication"].number == 2
    assert "Fixed a typo." in new.content.decode()


@pytest.mark.parametrize(
    ("days", "message"),
    [
        (0, "is not after today"),
        (-3, "is not after today"),
        (10_000, "at most 730 days"),
    ],
)
def test_embargo_date_is_checked(analysis, organizer, days, message):
    _registration, run = analysis
    day = _today() + datetime.timedelta(days=days)
    with pytest.raises(ValidationError) as refused:
        publish_analysis(run=run, actor=organizer, public_from=day)
    assert message in refused.value.message_dict["public_from"][0]
    assert not Publication.objects.exists()


def _anonymous_urls(identifier: str, number: int) -> list[str]:
    args = [identifier, number]
    return [
        reverse("publicrecord:results", args=[identifier]),
        reverse("publicrecord:results-version", args=args),
        *(
            reverse("publicrecord:results-download", args=[*args, name])
            for name in ("results.csv", "report.pdf", "output.json", "scheme.json")
        ),
        reverse("publicrecord:results-figure", args=args)
        + "?kind=blob&key=DSC&task=Brain",
        reverse("api:publication", args=args),
    ]


def test_embargoed_publication_is_not_reachable_anonymously(
    analysis, organizer, client
):
    registration, run = analysis
    day = _today() + datetime.timedelta(days=30)
    publication = publish_analysis(run=run, actor=organizer, public_from=day)
    for url in _anonymous_urls(registration.identifier, publication.number):
        assert client.get(url).status_code == 404, url
    listing = client.get(reverse("api:publications", args=[registration.identifier]))
    assert listing.json() == {"results": []}
    record = client.get(
        reverse("registry:public-detail", args=[registration.identifier])
    )
    assert 'id="results-page-link"' not in record.content.decode()
    assert list(published_results()) == []
    # the day it lifts, everything is public
    assert list(published_results(on=day)) == [publication]
    client.force_login(organizer)
    page = client.get(_anonymous_urls(registration.identifier, 1)[1])
    assert 'id="embargoed"' in page.content.decode()


def test_unpublished_analysis_is_not_reachable_by_any_id(analysis, client):
    registration, run = analysis
    for number in (1, run.pk):
        for url in _anonymous_urls(registration.identifier, number):
            assert client.get(url).status_code == 404, url


def test_results_page_shows_rankings_deviations_and_hashes(analysis, organizer, client):
    registration, run = analysis
    publish_analysis(run=run, actor=organizer)
    record = client.get(
        reverse("registry:public-detail", args=[registration.identifier])
    ).content.decode()
    assert 'id="results-page-link"' in record
    assert 'id="verify-results"' in record
    assert 'id="no-outcome"' not in record
    list_page = client.get(reverse("registry:public-list")).content.decode()
    results_url = reverse("publicrecord:results", args=[registration.identifier])
    assert f'href="{results_url}"' in list_page
    page = client.get(results_url)
    body = page.content.decode()
    assert page.status_code == 200
    sentences = page.context["sections"][0]["tasks"][0]["sentences"]
    assert sentences[0] == (
        "C ranks 1. Rank interval by bootstrap (2.5–97.5 % of the ranks of mean "
        "scores over paired bootstrap samples): rank 1 only. Rank interval by "
        "id_nemenyi (ranks not excluded by Nemenyi tests on per-case ranks): "
        "rank 1 only."
    )
    assert all(sentence in body for sentence in sentences)
    for deviation in run.deviations:
        assert f'data-deviation="{deviation["code"]}"' in body
    for download in page.context["downloads"]:
        data = b"".join(client.get(download.url))
        if download.sha256:
            assert hashlib.sha256(data).hexdigest() == download.sha256
            assert f'data-sha256="{download.name}">{download.sha256}' in body
    figure = client.get(page.context["sections"][0]["tasks"][0]["plots"][0][1])
    assert figure["Content-Type"] == "image/svg+xml"
    assert figure.content.lstrip().startswith(b"<?xml")


def test_publish_page_publishes_and_shows_errors(analysis, organizer, client):
    registration, run = analysis
    client.force_login(organizer)
    run_page = client.get(reverse("analysis:run", args=[run.pk])).content.decode()
    url = reverse("publicrecord:publish", args=[run.pk])
    assert f'href="{url}"' in run_page
    refused = client.post(url, {"public_from": "2001-01-01", "note": ""})
    assert refused.status_code == 200
    assert "is not after today" in refused.content.decode()
    assert not Publication.objects.exists()
    done = client.post(url, {"public_from": "", "note": "The registered analysis."})
    assert done.status_code == 302
    assert done["Location"] == reverse(
        "publicrecord:results-version", args=[registration.identifier, 1]
    )
    run_page = client.get(reverse("analysis:run", args=[run.pk])).content.decode()
    assert 'data-publication="1"' in run_page


def test_publish_page_refuses_other_users(analysis, client):
    _registration, run = analysis
    client.force_login(UserFactory())
    assert client.get(reverse("publicrecord:publish", args=[run.pk])).status_code == 404


def test_results_page_describes_a_schema_org_dataset(call, organizer, chair, client):
    registration, run = analysed(
        call, organizer, chair, name="Brain </script><b>bold</b> & co"
    )
    publish_analysis(run=run, actor=organizer)
    body = client.get(
        reverse("publicrecord:results", args=[registration.identifier])
    ).content.decode()
    tree = lxml.html.fromstring(body)
    (script,) = tree.xpath("//script[@type='application/ld+json']")
    data = json.loads(script.text)
    assert data["@type"] == "Dataset"
    assert data["name"] == (
        f"Results of Brain </script><b>bold</b> & co ({registration.identifier}, "
        "publication 1)"
    )
    assert "</script><b>" not in script.text  # escaped inside the element
    downloads = {d["encodingFormat"]: d for d in data["distribution"]}
    csv = downloads["text/csv"]
    assert csv["contentUrl"].startswith("http://testserver/registry/")
    assert csv["description"] == f"SHA-256 {run.results.sha256}"


def test_missing_report_file_is_a_404_not_an_error(analysis, organizer, client):
    registration, run = analysis
    publish_analysis(run=run, actor=organizer)
    run.report.storage.delete(run.report.name)
    url = reverse(
        "publicrecord:results-download",
        args=[registration.identifier, 1, "report.pdf"],
    )
    assert client.get(url).status_code == 404
