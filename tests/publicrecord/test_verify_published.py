"""`manage.py verify_registrations` checks every published result's hashes
(issue 27, item 4)."""

import io

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from analysis.models import AnalysisRun
from publicrecord.publication import publish_analysis
from tests.publicrecord.publishing import analysed

pytestmark = pytest.mark.django_db


@pytest.fixture
def published(call, organizer, chair):
    registration, run = analysed(call, organizer, chair)
    return registration, publish_analysis(run=run, actor=organizer)


def _verify() -> str:
    out = io.StringIO()
    call_command("verify_registrations", stdout=out, stderr=io.StringIO())
    return out.getvalue()


def test_published_results_are_verified(published):
    assert "OK: 1 published results verified." in _verify()


def test_changed_report_is_found(published):
    registration, publication = published
    with publication.run.report.open("wb") as fh:
        fh.write(b"%PDF-1.4 another report")
    err = io.StringIO()
    with pytest.raises(CommandError, match="1 problem"):
        call_command("verify_registrations", stdout=io.StringIO(), stderr=err)
    assert err.getvalue().strip() == (
        f"{registration.identifier} v1: published result 1: "
        "the report differs from the published SHA-256"
    )


def test_changed_output_is_found(published):
    _registration, publication = published
    output = dict(publication.run.output, note="edited")
    AnalysisRun.objects.filter(pk=publication.run_id).update(output=output)
    with pytest.raises(CommandError, match="1 problem"):
        _verify()
