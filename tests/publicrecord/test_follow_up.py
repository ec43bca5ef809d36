"""Follow the registration: the statistics of published results and their
deviations equal a recount from the database (issue 27, item 3)."""

import datetime
from collections import Counter

import pytest
from django.urls import reverse
from django.utils import timezone

from analysis.deviations import DEVIATION_CODES
from analysis.models import AnalysisRun
from publicrecord.models import Publication
from publicrecord.publication import publish_analysis
from registry.models import Registration
from tests.publicrecord.publishing import analysed

pytestmark = pytest.mark.django_db


@pytest.fixture
def registry(call, organizer, chair):
    """Four registered challenges: published with its deviations, published
    without any, embargoed, and analysed but unpublished."""
    flagged, run = analysed(call, organizer, chair, name="Flagged")
    publish_analysis(run=run, actor=organizer)
    clean, run = analysed(call, organizer, chair, name="Clean")
    AnalysisRun.objects.filter(pk=run.pk).update(deviations=[])
    publish_analysis(run=AnalysisRun.objects.get(pk=run.pk), actor=organizer)
    _embargoed, run = analysed(call, organizer, chair, name="Embargoed")
    later = timezone.now().date() + datetime.timedelta(days=9)
    publish_analysis(run=run, actor=organizer, public_from=later)
    analysed(call, organizer, chair, name="Unpublished")
    return flagged, clean


def _recount() -> dict:
    """From the rows themselves: the public, not superseded results."""
    today = timezone.now().date()
    public = [
        p
        for p in Publication.objects.filter(exploratory=False)
        if (p.public_from is None or p.public_from <= today)
        and not Publication.objects.filter(supersedes=p).exists()
    ]
    kinds = Counter(
        code for p in public for code in {d["code"] for d in p.run.deviations}
    )
    return {
        "registered": Registration.objects.count(),
        "published": len(public),
        "without_deviation": sum(1 for p in public if not p.run.deviations),
        "challenges_by_code": dict(kinds),
    }


def test_statistics_equal_a_recount_from_the_database(registry, client):
    stats = client.get(reverse("api:statistics")).json()["deviations"]
    expected = _recount()
    assert expected["published"] == 2  # the embargoed and unpublished do not count
    assert expected["without_deviation"] == 1
    assert {k: stats[k] for k in expected} == expected
    page = client.get(reverse("publicrecord:statistics")).content.decode()
    assert 'id="stat-published">2<' in page
    assert 'id="follow-clean">1<' in page


def test_list_filters_by_results_and_deviation_kind(registry, client):
    flagged, clean = registry
    url = reverse("api:follow-up")

    def listed(**query):
        rows = client.get(url, query).json()["results"]
        return [row["identifier"] for row in rows]

    assert len(listed()) == 4
    assert listed(results="published") == sorted([flagged.identifier, clean.identifier])
    assert len(listed(results="unpublished")) == 2  # embargoed and unpublished
    assert listed(deviation="none") == [clean.identifier]
    code = flagged.publications.get().run.deviations[0]["code"]
    assert listed(deviation=code) == [flagged.identifier]
    page = client.get(reverse("publicrecord:statistics"), {"deviation": code})
    assert [r.identifier for r in page.context["follow_page"].object_list] == [
        flagged.identifier
    ]


def test_unknown_filter_values_are_refused(registry, client):
    answer = client.get(reverse("api:follow-up"), {"deviation": "made_up"})
    assert answer.status_code == 400
    assert DEVIATION_CODES[0] in answer.json()["deviation"][0]
    assert client.get(reverse("api:follow-up"), {"results": "x"}).status_code == 400
    page = client.get(reverse("publicrecord:statistics"), {"results": "x"})
    assert 'data-error-for="results"' in page.content.decode()
