"""The life of a run: reclaimed when its job is gone, retried after database
errors, failed with a reason a person can act on, retried by a person."""

import errno
import os
import socket
import time
from datetime import timedelta
from pathlib import Path

import pytest
from celery import Celery
from django.conf import settings
from django.core.management import call_command
from django.db import OperationalError
from django.test import override_settings
from django.utils import timezone

from analysis import jobs, run_state, services
from analysis.jobs import RetryLater
from analysis.models import AnalysisRun, AnalysisStatus
from tests.analysis.django.conftest import EXPLORATORY_SCHEME as SCHEME
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def running_fields(**fields) -> dict:
    """A run a worker elsewhere claimed (attempt 1) and is working on."""
    defaults = {
        "status": AnalysisStatus.RUNNING,
        "started": timezone.now(),
        "heartbeat": timezone.now(),
        "progress": 30,
        "attempt": 1,
        "worker": "elsewhere:1",
    }
    return {**defaults, **fields}


def running_run(results, user, **fields) -> AnalysisRun:
    return AnalysisRun.objects.create(
        results=results,
        scheme={"Brain": SCHEME},
        seed=7,
        requested_by=user,
        **running_fields(**fields),
    )


def dead_pid() -> int:
    pid = 2**22 - 7
    while True:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return pid
        pid -= 1


def resume_analyses() -> run_state.WatchdogReport:
    """The watchdog's pass over analysis runs, as `resume_jobs` makes it."""
    return run_state.resume_runs(AnalysisRun, services.send_analysis)


def reports_dir() -> Path:
    return Path(settings.MEDIA_ROOT) / "reports"


def test_a_run_with_a_live_heartbeat_is_not_taken_over(results, chair):
    run = running_run(results, chair)
    services.execute_analysis(run.pk)
    run.refresh_from_db()
    assert (run.status, run.attempt, run.progress) == ("running", 1, 30)


def test_a_redelivered_job_reclaims_a_run_with_a_stale_heartbeat(results, chair):
    stale = timezone.now() - timedelta(seconds=settings.JOBS_STALE_SECONDS + 1)
    run = running_run(results, chair, heartbeat=stale)
    services.execute_analysis(run.pk)
    run.refresh_from_db()
    assert (run.status, run.attempt, run.error) == ("done", 2, "")
    assert run.note == (
        "The worker running it stopped at 30 %; resumed (attempt 2 of 5)."
    )


def test_a_run_whose_worker_process_died_is_reclaimed_at_once(results, chair):
    run = running_run(results, chair, worker=f"{socket.gethostname()}:{dead_pid()}")
    services.execute_analysis(run.pk)
    run.refresh_from_db()
    assert (run.status, run.attempt) == ("done", 2)


def test_a_database_error_requeues_the_run_with_the_reason(results, chair, monkeypatch):
    run = AnalysisRun.objects.create(
        results=results, scheme={"Brain": SCHEME}, seed=7, requested_by=chair
    )

    def restarting(*args, **kwargs):
        raise OperationalError("terminating connection due to administrator command")

    monkeypatch.setattr(services, "compute_output", restarting)
    monkeypatch.setattr(run_state.connection, "close", lambda: None)  # test txn
    with pytest.raises(RetryLater) as retry:
        services.execute_analysis(run.pk)
    run.refresh_from_db()
    assert retry.value.delay == 30
    assert (run.status, run.attempt) == ("queued", 1)
    assert run.note == (
        "The database restarted or could not be reached; retrying in 30 s "
        "(attempt 2 of 5)."
    )
    monkeypatch.undo()
    services.execute_analysis(run.pk)  # the retry
    run.refresh_from_db()
    assert (run.status, run.attempt, run.progress) == ("done", 2, 100)


def test_disk_full_fails_the_run_leaves_no_partial_file_and_retry_finishes(
    results, chair, monkeypatch
):
    before = set(reports_dir().glob("*")) if reports_dir().exists() else set()
    real_replace = os.replace

    def full_disk(src, dst):
        Path(src).write_bytes(b"%PDF-1.4 trunc")  # what a full disk leaves
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(run_state.os, "replace", full_disk)
    run = services.start_analysis(results=results, actor=chair, scheme=SCHEME)
    run.refresh_from_db()
    assert run.status == "failed"
    assert run.error.startswith("The disk is full (no space left on device)")
    assert set(reports_dir().glob("*")) == before  # nothing partial

    monkeypatch.setattr(run_state.os, "replace", real_replace)
    retried = services.retry_analysis(run=run, actor=chair)
    assert (retried.status, retried.error) == ("done", "")
    assert retried.note.startswith("Retried by chair after: The disk is full")
    assert Path(retried.report.path).read_bytes()[:5] == b"%PDF-"


@override_settings(ANALYSIS_WALL_TIME_SECONDS=0)
def test_a_run_over_its_wall_time_is_failed_with_the_limit(results, chair):
    run = services.start_analysis(results=results, actor=chair, scheme=SCHEME)
    run.refresh_from_db()
    assert run.status == "failed"
    assert "wall-time limit of 0 s (ANALYSIS_WALL_TIME_SECONDS)" in run.error


def test_the_watchdog_fails_runs_over_their_wall_time(results, chair):
    old = timezone.now() - timedelta(seconds=settings.ANALYSIS_WALL_TIME_SECONDS + 5)
    run = running_run(results, chair, started=old)
    report = resume_analyses()
    run.refresh_from_db()
    assert report.failed == [run.pk]
    assert run.status == "failed"
    assert "wall-time limit" in run.error


def test_a_run_whose_worker_keeps_dying_gives_up_with_the_reason(results, chair):
    stale = timezone.now() - timedelta(hours=1)
    run = running_run(results, chair, heartbeat=stale, attempt=5)
    services.execute_analysis(run.pk)
    run.refresh_from_db()
    assert run.status == "failed"
    assert run.error == (
        "Gave up after 5 attempts: the worker running it stopped each time "
        "(killed, or out of memory). Retry it once the cause is fixed."
    )


def test_the_watchdog_requeues_a_silent_run_and_it_finishes(
    results, chair, django_capture_on_commit_callbacks
):
    stale = timezone.now() - timedelta(seconds=settings.JOBS_STALE_SECONDS + 1)
    run = running_run(results, chair, heartbeat=stale, progress=53)
    with django_capture_on_commit_callbacks(execute=True):
        report = resume_analyses()
    run.refresh_from_db()
    assert (report.stale, report.queued) == ([run.pk], [run.pk])
    assert (run.status, run.attempt) == ("done", 2)
    assert run.note.startswith("The worker running it stopped at 53 % (no sign")


@override_settings(JOBS_SYNCHRONOUS=False, CELERY_BROKER_URL="")
def test_starting_an_identical_analysis_returns_the_queued_run(results, chair):
    first = services.start_analysis(results=results, actor=chair, scheme=SCHEME)
    second = services.start_analysis(results=results, actor=chair, scheme=SCHEME)
    other = services.start_analysis(
        results=results, actor=chair, scheme={**SCHEME, "higher_is_better": False}
    )
    assert second.pk == first.pk != other.pk
    assert AnalysisRun.objects.count() == 2


@pytest.fixture
def broker_down(monkeypatch):
    url = "redis://127.0.0.1:1/0"  # nothing listens on port 1
    # A fresh app: the project's app may hold a pooled connection to a live
    # broker from an earlier test (the PostgreSQL leg runs a real worker).
    down = Celery("down", broker=url)
    monkeypatch.setattr(jobs, "_celery_app", lambda: down)
    try:
        with override_settings(JOBS_SYNCHRONOUS=False, CELERY_BROKER_URL=url):
            yield
    finally:
        down.close()


@pytest.mark.django_db(transaction=True)  # the queue is asked after commit
def test_starting_while_the_queue_is_down_answers_202_and_stays_queued(
    organizer_api, results, broker_down
):
    response = organizer_api.post(
        f"/api/v1/results/{results.pk}/analyses/", {"scheme": SCHEME}, format="json"
    )
    assert response.status_code == 202, response.content
    body = response.json()
    assert body["detail"] == "queued; it starts when the job queue is back"
    run = AnalysisRun.objects.get(pk=body["id"])
    assert (run.status, run.enqueued, run.note) == (
        "queued",
        None,
        run_state.QUEUE_DOWN_NOTE,
    )
    # the watchdog tries again; still down: still queued, nothing doubled
    assert resume_analyses().queued == [run.pk]
    assert AnalysisRun.objects.filter(status="queued").count() == 1


def test_retry_through_the_api_page_and_command(
    client, organizer_api, results, chair, organizer
):
    failed = running_run(results, chair, status="failed", error="The disk is full.")
    response = organizer_api.post(f"/api/v1/analyses/{failed.pk}/retry/")
    assert response.status_code == 202
    failed.refresh_from_db()
    assert (failed.status, failed.error, failed.attempt) == ("done", "", 1)
    again = organizer_api.post(f"/api/v1/analyses/{failed.pk}/retry/")
    assert again.status_code == 409
    assert "only a failed analysis can be retried" in again.json()["detail"]

    failed.status, failed.error = "failed", "Out of memory."
    failed.save()
    client.force_login(chair)
    page = client.get(f"/analyses/{failed.pk}/")
    assert b"Retry the analysis" in page.content
    client.post(f"/analyses/{failed.pk}/retry/")
    failed.refresh_from_db()
    assert failed.status == "done"

    failed.status, failed.error = "failed", "Out of memory."
    failed.save()
    call_command("resume_jobs", "--retry", str(failed.pk))
    failed.refresh_from_db()
    assert failed.status == "done"


def test_only_organizers_and_chairs_retry(api, results, chair):
    failed = running_run(results, chair, status="failed", error="x")
    stranger = UserFactory()
    api.force_authenticate(stranger)
    assert api.post(f"/api/v1/analyses/{failed.pk}/retry/").status_code == 404
    failed.refresh_from_db()
    assert failed.status == "failed"


@pytest.mark.django_db(transaction=True)
@override_settings(
    JOBS_SYNCHRONOUS=False, CELERY_BROKER_URL="", JOBS_HEARTBEAT_SECONDS=0.05
)
def test_an_in_process_job_beats_and_finishes(results, chair):
    """Without a broker (the demo) the job runs in a thread of the web
    process, with its heartbeat thread beside it."""
    run = services.start_analysis(results=results, actor=chair, scheme=SCHEME)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        run.refresh_from_db()
        if run.status in ("done", "failed"):
            break
        time.sleep(0.2)
    assert (run.status, run.error, run.attempt) == ("done", "", 1)
    assert run.enqueued is not None
