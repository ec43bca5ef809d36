"""The statistics' cache generation: it moves with every event that may change
a number of the statistics, not with draft edits, and reads no large table
whole (it runs on every statistics request)."""

from collections.abc import Callable

import pytest
from django.db import connection
from django.utils import timezone

from analysis import run_state
from analysis.models import AnalysisRun, AnalysisStatus, ResultsVersion
from publicrecord import statistics
from registry import services
from registry.amendments import approve_amendment, reject_amendment
from tests.factories import CallFactory, ChallengeFactory, ResultsVersionFactory

from .conftest import propose_more_cases, registered

pytestmark = pytest.mark.django_db


def moves(event: Callable[[], object]) -> bool:
    """Whether `event` changes the generation."""
    before = statistics._generation()
    event()
    return statistics._generation() != before


@pytest.fixture
def registration(call, organizer, chair):
    return registered(call, organizer, chair, name="Alpha")


def queued(results: ResultsVersion) -> AnalysisRun:
    """A new queued analysis of `results`."""
    return AnalysisRun.objects.create(
        results=results, scheme={}, seed=1, requested_by=results.uploaded_by
    )


@pytest.fixture
def run(registration):
    return queued(ResultsVersionFactory(registration=registration))


def test_a_registration_moves_it(call, organizer, chair):
    assert moves(lambda: registered(call, organizer, chair, name="Beta"))


def test_a_new_call_moves_it(db):
    assert moves(CallFactory)


@pytest.mark.parametrize(
    ("field", "value"), [("title", "MICCAI 2027 (Daejeon)"), ("slug", "miccai27")]
)
def test_a_call_edited_moves_it(registration, call, field, value):
    setattr(call, field, value)
    assert moves(call.save)


def test_an_amendment_proposed_moves_it(registration, organizer):
    assert moves(lambda: propose_more_cases(registration, organizer))


def test_an_amendment_rejected_moves_it(registration, organizer, chair):
    """A rejection writes no version: only the amendment row changes."""
    amendment = propose_more_cases(registration, organizer)
    assert moves(lambda: reject_amendment(amendment=amendment, actor=chair))


def test_an_amendment_approved_moves_it(registration, organizer, chair):
    amendment = propose_more_cases(registration, organizer)
    assert moves(lambda: approve_amendment(amendment=amendment, actor=chair))


def test_each_analysis_done_moves_it_and_one_failed_does_not(run, registration):
    """Runs finish in any order (a long bootstrap after a later short run):
    each finish moves it, not only that of the newest run."""

    def finish(run: AnalysisRun) -> None:  # the worker's last update
        AnalysisRun.objects.filter(pk=run.pk).update(
            status=AnalysisStatus.DONE, finished=timezone.now()
        )

    later = queued(run.results)
    assert moves(lambda: finish(later))
    assert moves(lambda: finish(run))
    failed = queued(run.results)
    assert not moves(lambda: run_state.fail(failed.pk, "out of memory"))


def test_draft_edits_and_queued_analyses_do_not_move_it(
    registration, run, call, organizer
):
    draft = ChallengeFactory(call=call, owner=organizer, name="Draft")

    def edit_draft() -> None:
        services.answer_parameter(
            challenge=draft,
            task=None,
            number=2,
            value="https://example.org/draft",
            actor=organizer,
        )
        draft.name = "Draft, renamed"
        draft.save()

    assert not moves(edit_draft)
    assert not moves(lambda: queued(run.results))


@pytest.mark.skipif(connection.vendor != "sqlite", reason="reads SQLite's query plan")
def test_generation_reads_no_table_whole():
    """Every part is an index lookup (MAX by an index), never a scan (COUNT,
    or every call's title), so it costs the same at 100 000 registrations as
    at 10."""
    with connection.cursor() as cursor:
        cursor.execute("EXPLAIN QUERY PLAN " + statistics._GENERATION_SQL)
        plan = [row[-1] for row in cursor.fetchall()]
    searches = [step for step in plan if step.startswith("SEARCH ")]
    assert len(searches) == statistics._GENERATION_SQL.count("MAX("), plan
    assert not [step for step in plan if step.startswith("SCAN registry_")], plan
    assert not [step for step in plan if step.startswith("SCAN analysis_")], plan
